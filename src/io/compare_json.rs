//! The compare table as JSON: `{"scene", "probe", "rows": [...]}` with docs/metrics.md's keys.

use crate::compare::Comparison;
use crate::error::{Error, FormatError, Result};

/// The table as pretty JSON (docs/metrics.md's keys).
pub fn comparison_to_json(table: &Comparison) -> Result<String> {
    serde_json::to_string_pretty(table).map_err(|e| {
        Error::Format(FormatError::Json {
            context: "compare".into(),
            message: e.to_string(),
        })
    })
}
