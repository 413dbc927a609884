//! Helpers shared by the integration tests that run the `skinweights` binary.

use std::process::{Command, Output};

/// Runs the `skinweights` binary with `args`.
pub fn skinweights(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skinweights"))
        .args(args)
        .output()
        .expect("runs")
}

/// Its stdout followed by its stderr.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}
