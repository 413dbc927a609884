//! `skinweights plot`: the weight map and the probe pose of a weights file.

use super::{check_outputs, load_weights_for, resolve_scene, BuiltinArgs};
use clap::Args;
use skinweights::compare::probe_view;
use skinweights::plot::{figure_panels, save_figure, Grid};
use skinweights::Result;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `plot`.
#[derive(Args)]
pub struct PlotArgs {
    /// Scene file or built-in name.
    scene: String,
    /// Weights file (skinweights.weights/1 JSON).
    weights: PathBuf,
    /// Probe to pose (default: the scene's first probe).
    #[arg(long)]
    probe: Option<String>,
    /// Output figure, .png or .svg.
    #[arg(short, long)]
    output: PathBuf,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    builtin: BuiltinArgs,
}

/// Runs `plot`.
pub fn run(a: PlotArgs) -> Result<ExitCode> {
    check_outputs(&[Path::new(&a.scene), &a.weights], &[&a.output], a.force)?;
    let scene = resolve_scene(Some(&a.scene), &a.builtin)?;
    let w = load_weights_for(&scene, &a.weights)?;
    let probe = scene.probe(a.probe.as_deref())?;
    let label = a
        .weights
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let view = probe_view(&scene, &w, probe)?;
    let drag_scale = view.max_drag_pct.max(1.0);
    let panels = figure_panels(&scene, &w, &label, &probe.name, view, drag_scale);
    save_figure(
        &Grid {
            panels: &panels,
            columns: 2,
        },
        &a.output,
        (1400, 700),
    )?;
    println!("wrote {}", a.output.display());
    Ok(ExitCode::SUCCESS)
}
