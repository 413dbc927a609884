//! The format argument of `import` and `export`, parsed from the format table
//! ([`skinweights::io::FORMATS`]): its values are the table's names, each with the command's
//! line of help from its row.

use clap::builder::PossibleValue;
use clap::ValueEnum;
use skinweights::io::{Format, FORMATS};

/// A format named on the command line; `EXPORT` picks the help lines (`export`'s or
/// `import`'s).
#[derive(Clone, Copy, Debug)]
pub struct FormatArg<const EXPORT: bool>(pub &'static Format);

/// `import`'s format argument.
pub type ImportFormat = FormatArg<false>;

/// `export`'s format argument.
pub type ExportFormat = FormatArg<true>;

impl<const EXPORT: bool> FormatArg<EXPORT> {
    /// Every row of the table, in its order.
    const ALL: &'static [Self] = &{
        let mut all = [FormatArg(&FORMATS[0]); FORMATS.len()];
        let mut i = 0;
        while i < FORMATS.len() {
            all[i] = FormatArg(&FORMATS[i]);
            i += 1;
        }
        all
    };
}

impl<const EXPORT: bool> ValueEnum for FormatArg<EXPORT> {
    fn value_variants<'a>() -> &'a [Self] {
        Self::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = if EXPORT {
            self.0.export_help
        } else {
            self.0.import_help
        };
        Some(PossibleValue::new(self.0.name).help(help))
    }
}
