//! `skinweights eval`: every metric of a weights file on a probe of the scene.

use super::{load_weights_for, resolve_scene, BuiltinArgs};
use clap::Args;
use skinweights::compare::{CompareRow, Comparison};
use skinweights::metrics::evaluate;
use skinweights::Result;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `eval`.
#[derive(Args)]
pub struct EvalArgs {
    /// Scene file or built-in name.
    scene: String,
    /// Weights file (skinweights.weights/1 JSON).
    weights: PathBuf,
    /// Probe to measure (default: the scene's first probe).
    #[arg(long)]
    probe: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    builtin: BuiltinArgs,
}

/// Runs `eval`.
pub fn run(a: EvalArgs) -> Result<ExitCode> {
    let scene = resolve_scene(Some(&a.scene), &a.builtin)?;
    let w = load_weights_for(&scene, &a.weights)?;
    let probe = scene.probe(a.probe.as_deref())?;
    let metrics = evaluate(&scene, &w, probe, None)?;
    let table = Comparison {
        scene: scene.name.clone(),
        probe: probe.name.clone(),
        rows: vec![CompareRow {
            solver: a.weights.display().to_string(),
            metrics,
            warnings: vec![],
        }],
    };
    if a.json {
        println!("{}", table.to_json()?);
    } else {
        print!("{}", table.to_markdown());
    }
    Ok(ExitCode::SUCCESS)
}
