//! `skinweights lint`: the table of checks, PASS/FAIL with the measured number.

use super::bones::binding_path;
use super::{load_weights_for, resolve_scene, BuiltinArgs};
use crate::cli::error::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use skinweights::lint::{Check, LintOptions};
use skinweights::pipeline;
use skinweights::render::pixel_edge_lint_reporting;
use skinweights::scene::Scene;
use skinweights::weights::Weights;
use skinweights::Error;
use skinweights::FormatError;
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
    /// Also check the art: the pixel-edge check renders it at 1x, 2x and 4x over black,
    /// white and red (seconds on a large atlas); exit code 4 when only these rows fail.
    #[arg(long)]
    art: bool,
    /// Reference weights (e.g. the artist's) to judge against: a check they fail as badly is
    /// reported but not counted in the exit code [default: SCENE.artist.json beside the
    /// scene file, when there].
    #[arg(long, conflicts_with = "no_reference")]
    reference: Option<PathBuf>,
    /// Judge every check by its own condition, even when SCENE.artist.json is beside the
    /// scene.
    #[arg(long)]
    no_reference: bool,
    #[command(flatten)]
    builtin: BuiltinArgs,
}

/// Exit code when every check of the weights passes but a pixel-edge check of the art fails.
pub const ART_FAILED: u8 = 4;

/// Runs `lint`: exit code 0 when every check passes (or fails only as the reference weights
/// do), 1 when a check of the weights fails, [`ART_FAILED`] when only the art's do.
pub fn run(a: LintArgs) -> Result<ExitCode> {
    let scene = resolve_scene(Some(&a.scene), &a.builtin)?;
    let w = load_weights_for(&scene, &a.weights)?;
    let options = LintOptions::default()
        .with_max_area_loss_pct(a.max_area_loss)
        .with_max_interpenetration_px2(a.max_interpenetration)
        .with_max_seam_opening_px(a.max_seam_opening);
    let reference = reference_weights(&a, &scene)?;
    let pb = super::spinner_after_delay("checking the weights in every probe and clip frame");
    let linted = pipeline::lint(&scene, &w, reference.as_ref().map(|r| &r.1), &options);
    pb.finish_and_clear();
    let mut linted = linted?;
    // The checks of the weights come first; the pixel-edge rows check the art as drawn.
    let weight_checks = linted.checks.len();
    if a.art && scene.art().is_some() {
        linted.checks.extend(art_checks(&scene, &w)?);
    }
    let shared: Vec<bool> = linted.checks.iter().map(|c| linted.shared(c)).collect();
    let checks = linted.checks;
    let reference = reference.map(|r| r.0).zip(linted.reference);
    if a.json {
        print_json(&checks, &shared, reference.as_ref())?;
    } else {
        print_table(&a, &scene, &checks, &shared, reference.as_ref());
    }
    let (weights, art) = checks.split_at(weight_checks);
    let weights_fail = weights.iter().zip(&shared).any(|(c, &s)| !c.pass && !s);
    Ok(if weights_fail {
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

/// The reference file and its weights: `--reference`, else the rig's own weights beside
/// the scene file (with a note), none with `--no-reference`.
fn reference_weights(a: &LintArgs, scene: &Scene) -> Result<Option<(PathBuf, Weights)>> {
    if a.no_reference {
        return Ok(None);
    }
    let path = match &a.reference {
        Some(p) => p.clone(),
        None => match binding_path(Some(&a.scene)) {
            Some(p) => {
                eprintln!(
                    "note: judged against {} (the rig's own weights): a check they fail as badly is not counted (--no-reference to count it)",
                    p.display()
                );
                p
            }
            None => return Ok(None),
        },
    };
    let reference = load_weights_for(scene, &path)?;
    Ok(Some((path, reference)))
}

/// The pixel-edge rows, with a progress bar per scale.
fn art_checks(scene: &Scene, w: &Weights) -> Result<Vec<Check>> {
    let pb = ProgressBar::new(3);
    pb.set_style(
        ProgressStyle::with_template("{bar:20} {pos}/{len} scales  {msg} ({elapsed})")
            .expect("valid template"),
    );
    pb.enable_steady_tick(Duration::from_millis(120));
    let edge = pixel_edge_lint_reporting(scene, w, |step| {
        pb.set_length(step.count as u64);
        pb.set_position(step.done as u64);
        pb.set_message(format!(
            "pixel edge {}x: {} pose(s) over black, white and red, and the reference",
            step.scale, step.poses
        ));
    });
    pb.finish_and_clear();
    Ok(edge?.unwrap_or_default())
}

/// The rows as JSON; with a reference, each row also carries the reference's result and
/// whether its failure is shared.
fn print_json(
    checks: &[Check],
    shared: &[bool],
    reference: Option<&(PathBuf, Vec<Check>)>,
) -> Result<()> {
    let json_error = |e: serde_json::Error| {
        Error::Format(FormatError::Json {
            context: "lint".into(),
            message: e.to_string(),
        })
    };
    let text = match reference {
        None => serde_json::to_string_pretty(checks).map_err(json_error)?,
        Some((_, rows)) => {
            let mut out = Vec::with_capacity(checks.len());
            for (c, &s) in checks.iter().zip(shared) {
                let mut v = serde_json::to_value(c).map_err(json_error)?;
                if let Some(r) = rows.iter().find(|r| r.check == c.check) {
                    v["reference"] = serde_json::json!({"pass": r.pass, "measured": r.measured});
                }
                v["shared_with_reference"] = s.into();
                out.push(v);
            }
            serde_json::to_string_pretty(&out).map_err(json_error)?
        }
    };
    println!("{text}");
    Ok(())
}

/// The rows as a table: status, check, what was measured, the pass condition, and for a
/// failure what to inspect first (or that the reference fails it as badly).
fn print_table(
    a: &LintArgs,
    scene: &Scene,
    checks: &[Check],
    shared: &[bool],
    reference: Option<&(PathBuf, Vec<Check>)>,
) {
    for (c, &s) in checks.iter().zip(shared) {
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
        if s {
            if let Some((path, rows)) = reference {
                let theirs = rows.iter().find(|r| r.check == c.check);
                println!(
                    "     the reference fails it as badly ({}: {}): not counted",
                    path.display(),
                    theirs.map_or("", |r| r.measured.as_str())
                );
            }
        } else if !c.pass {
            println!("     inspect first: {}", c.inspect_first);
        }
    }
    if scene.art().is_none() {
        println!("skipped: pixel-edge check (the scene has no art)");
    } else if !a.art {
        println!("skipped: pixel-edge check of the art (--art to render it at 1x, 2x and 4x)");
    }
    let n = shared.iter().filter(|&&s| s).count();
    if n > 0 {
        println!(
            "{n} check(s) fail as the reference weights do; the exit code counts only what these weights add"
        );
    }
}
