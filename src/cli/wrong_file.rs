//! Turns a reader's error on a file of another kind (a PNG given to `import spine`, a Spine
//! skeleton given to `solve`) or a file cut short into an error that names what the file
//! is and the command that reads it.

use crate::cli::error::CliError;
use skinweights::io::{sniff_file, FileKind};
use std::path::Path;

/// `err` (from reading `path` as `expected`) replaced by [`CliError::WrongFile`] when the
/// file is of another known kind, or by [`CliError::Truncated`] when it is JSON cut short;
/// otherwise `err` unchanged.
pub fn explain(path: &Path, expected: FileKind, err: impl Into<CliError>) -> CliError {
    let err = err.into();
    match sniff_file(path) {
        FileKind::TruncatedJson => CliError::Truncated {
            path: path.to_path_buf(),
            bytes: std::fs::metadata(path).map_or(0, |m| m.len()),
        },
        FileKind::Unknown => err,
        kind if kind == expected => err,
        kind => CliError::WrongFile {
            path: path.to_path_buf(),
            looks_like: kind.describe(),
            expected: expected.describe(),
            command: kind.command(path),
        },
    }
}
