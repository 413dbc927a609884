//! `skinweights plot`: the weight map and the probe pose of a weights file.

use super::{check_outputs, load_weights_for, resolve_scene, BuiltinArgs};
use clap::Args;
use skinweights::compare::probe_view;
use skinweights::plot::{figure_panels, save_figure, Grid};
use skinweights::{Probe, Result, Watch};
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
    let clip_frame;
    let probe = match (
        a.probe.as_deref(),
        scene.probes().is_empty(),
        scene.clips().first(),
    ) {
        // A rig without probes: the pose panel shows its first clip halfway through, coloured
        // by how far each vertex moved from rest.
        (None, true, Some(clip)) => {
            let time = 0.5 * clip.duration;
            clip_frame = Probe {
                name: format!("clip {} at {} s", clip.name, super::warnings::seconds(time)),
                pose: scene.clip_pose(clip, time)?,
                // Every vertex: the pose panel colours how far each one moved.
                watch: Watch::default(),
            };
            eprintln!(
                "note: scene {:?} has no probe: the pose panel is {}",
                scene.name(),
                clip_frame.name
            );
            &clip_frame
        }
        _ => scene.probe(a.probe.as_deref())?,
    };
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
