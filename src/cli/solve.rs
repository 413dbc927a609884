//! `skinweights solve`: one solver on a scene, written as a weights file.

use super::bones::{chosen_binding, BindArg, BonesArg};
use super::warnings::{print_warnings, seconds};
use super::{check_outputs, parse_options, resolve_scene, spinner, SceneArg};
use crate::cli::error::Result;
use clap::Args;
use skinweights::io::WeightsFile;
use skinweights::pipeline;
use skinweights::solvers::solver_by_name;
use skinweights::ArgumentError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `solve`.
#[derive(Args)]
pub struct SolveArgs {
    #[command(flatten)]
    scene: SceneArg,
    /// Solver: a name from the list below, or SOLVER+mask (default: best, the recommended one).
    #[arg(long, default_value = skinweights::solvers::RECOMMENDED_SOLVER)]
    solver: String,
    /// Solver option as key=value (repeatable), e.g. --option falloff_power=2.
    #[arg(long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Keep at most K influences per vertex (largest first, then renormalize).
    #[arg(long)]
    max_influences: Option<usize>,
    /// Output weights file (JSON; `.swb` for the binary form; `-` for standard output).
    #[arg(short, long)]
    output: PathBuf,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    force: bool,
    /// Print every solver warning (by default long lists of one kind are summarised).
    #[arg(long)]
    verbose: bool,
    #[command(flatten)]
    bones: BonesArg,
    #[command(flatten)]
    bind: BindArg,
}

/// Runs `solve`.
pub fn run(a: SolveArgs) -> Result<ExitCode> {
    let input: Vec<&Path> = a.scene.scene.iter().map(Path::new).collect();
    check_outputs(&input, &[&a.output], a.force)?;
    if a.max_influences == Some(0) {
        return Err(ArgumentError::InvalidArgument {
            argument: "--max-influences",
            value: "0".into(),
            reason: "must be at least 1".into(),
        }
        .into());
    }
    let scene = resolve_scene(a.scene.scene.as_deref(), &a.scene.builtin)?;
    let options = parse_options(&a.options)?;
    let solver = solver_by_name(&a.solver, &options)?;
    let binding = chosen_binding(&scene, a.scene.scene.as_deref(), &a.bones, &a.bind)?;
    let pb = spinner(format!(
        "{} on {} ({} vertices)",
        a.solver,
        scene.name(),
        scene.mesh().vertex_count()
    ));
    let solution = pipeline::solve(&scene, solver.as_ref(), &binding, a.max_influences);
    pb.finish_and_clear();
    let solution = solution?;
    let weights = solution.weights;
    print_warnings("", &solution.report.warnings, a.verbose);
    WeightsFile::save_weights(
        &a.output,
        scene.name(),
        &a.solver,
        &scene.skeleton().names(),
        &weights,
    )?;
    super::status(
        &a.output,
        format_args!(
            "wrote {}: {} vertices x {} bones, {} in {} s",
            a.output.display(),
            weights.vertex_count(),
            weights.bone_count(),
            a.solver,
            seconds(solution.report.seconds)
        ),
    );
    Ok(ExitCode::SUCCESS)
}
