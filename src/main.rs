//! The `skinweights` command line: see `src/cli/` (one file per command).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
