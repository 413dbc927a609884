//! `skinweights lint`: the table of checks, PASS/FAIL with the measured number.

use super::{load_weights_for, resolve_scene, BuiltinArgs};
use crate::cli::error::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use skinweights::error::FormatError;
use skinweights::lint::{lint, LintOptions};
use skinweights::render::pixel_edge_lint_reporting;
use skinweights::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `lint`.
#[derive(Args)]
pub struct LintArgs {
    /// Scene file or built-in name.
    scene: String,
    /// Weights file (skinweights.weights/1 JSON).
    weights: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Largest acceptable area loss in an extreme pose, percent.
    #[arg(long, default_value_t = LintOptions::default().max_area_loss_pct)]
    max_area_loss: f64,
    /// Largest acceptable interpenetrating area in an extreme pose, px² (0: the contour must
    /// not interpenetrate at all).
    #[arg(long, default_value_t = LintOptions::default().max_interpenetration_px2)]
    max_interpenetration: f64,
    /// Largest acceptable opening at a recorded seam in a probe or clip frame, px.
    #[arg(long, value_name = "PX", default_value_t = LintOptions::default().max_seam_opening_px)]
    max_seam_opening: f64,
    #[command(flatten)]
    builtin: BuiltinArgs,
}

/// Runs `lint`: exit code 0 when every check passes, 1 when one fails.
/// Exit code when every check of the weights passes but a pixel-edge check of the art fails.
pub const ART_FAILED: u8 = 4;

pub fn run(a: LintArgs) -> Result<ExitCode> {
    let scene = resolve_scene(Some(&a.scene), &a.builtin)?;
    let w = load_weights_for(&scene, &a.weights)?;
    let options = LintOptions {
        max_area_loss_pct: a.max_area_loss,
        max_interpenetration_px2: a.max_interpenetration,
        max_seam_opening_px: a.max_seam_opening,
        ..LintOptions::default()
    };
    let mut checks = lint(&scene, &w, &options)?;
    // The checks of the weights come first; the pixel-edge rows check the art as drawn.
    let weight_checks = checks.len();
    if scene.art().is_some() {
        let pb = ProgressBar::new(3);
        pb.set_style(
            ProgressStyle::with_template("{bar:20} {pos}/{len} scales  {msg} ({elapsed})")
                .expect("valid template"),
        );
        pb.enable_steady_tick(Duration::from_millis(120));
        let edge = pixel_edge_lint_reporting(&scene, &w, |step| {
            pb.set_length(step.count as u64);
            pb.set_position(step.done as u64);
            pb.set_message(format!(
                "pixel edge {}x: {} pose(s) over black, white and red, and the reference",
                step.scale, step.poses
            ));
        });
        pb.finish_and_clear();
        checks.extend(edge?.unwrap_or_default());
    }
    if a.json {
        let text = serde_json::to_string_pretty(&checks).map_err(|e| {
            Error::Format(FormatError::Json {
                context: "lint".into(),
                message: e.to_string(),
            })
        })?;
        println!("{text}");
    } else {
        for c in &checks {
            println!(
                "{} {:<28} {}  (pass: {})",
                match (c.pass, c.measured_nothing()) {
                    (_, true) => "SKIP",
                    (true, false) => "PASS",
                    (false, false) => "FAIL",
                },
                c.check,
                c.measured,
                c.condition
            );
            if !c.pass {
                println!("     inspect first: {}", c.inspect_first);
            }
        }
        if scene.art().is_none() {
            println!("skipped: pixel-edge check (the scene has no art)");
        }
    }
    let (weights, art) = checks.split_at(weight_checks);
    Ok(if !weights.iter().all(|c| c.pass) {
        ExitCode::from(1)
    } else if !art.iter().all(|c| c.pass) {
        if !a.json {
            println!("the weights pass; only the art's pixel-edge checks fail (exit code 4)");
        }
        ExitCode::from(ART_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}
