//! `skinweights eval`: every metric of a weights file on a probe of the scene, or over its
//! clips (`--clip NAME|all`, with `--reference` weights for the deviation).

use super::compare::{chosen_clips, clip_cell, worst_frame_cell};
use super::{load_weights_for, resolve_scene, BuiltinArgs};
use crate::cli::error::Result;
use clap::Args;
use serde_json::json;
use skinweights::compare::{CompareRow, Comparison};
use skinweights::metrics::clip::{clips_metrics, ClipOptions};
use skinweights::metrics::evaluate;
use skinweights::scene::Scene;
use skinweights::weights::Weights;
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
    #[arg(long, conflicts_with = "clip")]
    probe: Option<String>,
    /// Measure over a clip of the scene, or `all` of them, instead of a probe.
    #[arg(long)]
    clip: Option<String>,
    /// Reference weights (e.g. the artist's) for the clip deviation.
    #[arg(long, requires = "clip")]
    reference: Option<PathBuf>,
    /// Frames per second clips are sampled at (plus each clip's last frame).
    #[arg(long, default_value_t = skinweights::animation::DEFAULT_FPS, requires = "clip")]
    fps: f64,
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
    let measure = super::bones::clip_measure(
        &scene,
        Some(&a.scene),
        a.probe.as_deref(),
        a.clip.as_deref(),
        a.reference.as_deref(),
    );
    if let Some(m) = measure {
        let reference = m
            .reference
            .as_ref()
            .map(|p| load_weights_for(&scene, p))
            .transpose()?;
        return run_clips(&a, &scene, &w, reference.as_ref(), &m);
    }
    let probe = scene.probe(a.probe.as_deref())?;
    let metrics = evaluate(&scene, &w, probe)?;
    let table = Comparison {
        scene: scene.name().to_string(),
        probe: probe.name.clone(),
        rows: vec![CompareRow {
            solver: a.weights.display().to_string(),
            metrics,
            warnings: vec![],
        }],
    };
    if a.json {
        println!("{}", skinweights::io::comparison_to_json(&table)?);
    } else {
        print!("{}", table.to_markdown());
    }
    Ok(ExitCode::SUCCESS)
}

fn run_clips(
    a: &EvalArgs,
    scene: &Scene,
    w: &Weights,
    reference: Option<&Weights>,
    measure: &super::bones::ClipMeasure,
) -> Result<ExitCode> {
    let name = measure.clip.as_str();
    let clips = chosen_clips(scene, name)?;
    let options = ClipOptions::default().with_fps(a.fps);
    let m = clips_metrics(scene, w, reference, &clips, &options)?;
    let (per_clip, all) = (m.clips, m.all);
    if a.json {
        let out = json!({
            "scene": scene.name(),
            "weights": a.weights.display().to_string(),
            "reference": measure.reference.as_ref().map(|p| p.display().to_string()),
            "fps": a.fps,
            "clips": per_clip,
            "all": all,
        });
        println!("{out}");
        return Ok(ExitCode::SUCCESS);
    }
    let f = clip_cell;
    println!(
        "| clip | frames | deviation max px | p95 px | mean px | max % | worst frame | flipped max | area change max % |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for m in per_clip.iter().chain(std::iter::once(&all)) {
        let worst = worst_frame_cell(m);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.3} |",
            m.clip,
            m.frames,
            f(m.deviation_max_px),
            f(m.deviation_p95_px),
            f(m.deviation_mean_px),
            f(m.deviation_max_pct),
            worst,
            m.flipped_max,
            m.area_change_max_pct
        );
    }
    Ok(ExitCode::SUCCESS)
}
