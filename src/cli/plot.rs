//! `skinweights plot`: the weight map and the probe pose of a weights file.

use super::{check_outputs, load_weights_for, resolve_scene, BuiltinArgs};
use crate::cli::error::Result;
use clap::Args;
use skinweights::compare::probe_view;
use skinweights::plot::{figure_panels, save_figure, Grid};
use skinweights::scene::{Probe, Watch};
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
    let mut measure = "drag";
    let probe = match (
        a.probe.as_deref(),
        scene.probes().is_empty(),
        scene.clips().first(),
    ) {
        // A rig without probes: the pose panel shows the clip frame that moves the
        // character most, coloured by how far each vertex moved from rest.
        (None, true, Some(_)) => {
            let (clip, time) = most_moving_frame(&scene, &w)?;
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
            measure = "movement";
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
    let panels = figure_panels(&scene, &w, &label, &probe.name, view, drag_scale, measure);
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

/// Frames sampled per clip when looking for the one that moves most.
const FRAMES_PER_CLIP: usize = 16;

/// The clip and time, among [`FRAMES_PER_CLIP`] evenly spaced frames of every clip, whose
/// skinned vertices lie farthest from rest on average once the character's mean shift is
/// taken away: a blink or an idle breath shows little in a still picture, a walk or an
/// attack shows the weights at work, and a clip that only carries the character across the
/// stage does not count as motion.
fn most_moving_frame<'a>(
    scene: &'a skinweights::scene::Scene,
    weights: &skinweights::weights::Weights,
) -> Result<(&'a skinweights::animation::Clip, f64)> {
    use skinweights::render::{posed_vertices, Skinning};
    let rest = scene.mesh().vertices();
    let mut best: Option<(&skinweights::animation::Clip, f64, f64)> = None;
    for clip in scene.clips() {
        for k in 0..FRAMES_PER_CLIP {
            let time = clip.duration * k as f64 / (FRAMES_PER_CLIP - 1) as f64;
            let posed =
                posed_vertices(scene, weights, &scene.clip_pose(clip, time)?, Skinning::Lbs)?;
            let n = rest.len().max(1) as f64;
            let shift = posed
                .iter()
                .zip(rest)
                .map(|(p, r)| p - r)
                .sum::<nalgebra::Vector2<f64>>()
                / n;
            let moved = posed
                .iter()
                .zip(rest)
                .map(|(p, r)| (p - r - shift).norm())
                .sum::<f64>()
                / n;
            if best.is_none_or(|(_, _, m)| moved > m) {
                best = Some((clip, time, moved));
            }
        }
    }
    best.map(|(clip, time, _)| (clip, time)).ok_or_else(|| {
        skinweights::ArgumentError::InvalidArgument {
            argument: "scene",
            value: scene.name().to_string(),
            reason: "the scene has no clip to pose".into(),
        }
        .into()
    })
}

#[cfg(test)]
mod tests {
    use super::most_moving_frame;
    use skinweights::animation::{BoneTrack, ChannelKind, Clip, Key};
    use skinweights::scene::{builtin_scene, BuiltinOptions};
    use skinweights::solvers::solve;

    /// A still clip, a clip that only carries the character across the stage, and a wave:
    /// the panel shows the wave at its largest angle.
    #[test]
    fn the_pose_panel_shows_the_frame_that_moves_the_character_most() {
        let options = BuiltinOptions::default().with_vertices(500);
        let scene = builtin_scene("arms-down", &options).unwrap();
        let bones = scene.skeleton().bones();
        let root = bones[0].name.clone();
        let arm = bones
            .iter()
            .find(|b| b.parent.is_some())
            .unwrap()
            .name
            .clone();
        let keys = |values: [f64; 3]| {
            vec![
                Key::new(0.0, values[0]),
                Key::new(0.5, values[1]),
                Key::new(1.0, values[2]),
            ]
        };
        let still = Clip::new("still", 1.0)
            .with_track(BoneTrack::new(&arm).with(ChannelKind::Rotation, keys([0.0; 3])));
        let carried = Clip::new("carried", 1.0).with_track(
            BoneTrack::new(&root).with(ChannelKind::TranslateX, keys([0.0, 900.0, 0.0])),
        );
        let wave = Clip::new("wave", 1.0)
            .with_track(BoneTrack::new(&arm).with(ChannelKind::Rotation, keys([0.0, 70.0, 0.0])));
        let scene = scene
            .with_animation(vec![still, carried, wave], vec![])
            .unwrap();
        let weights = solve(&scene, "linear").unwrap();
        let (clip, time) = most_moving_frame(&scene, &weights).unwrap();
        assert_eq!(clip.name, "wave");
        assert!((time - 0.5).abs() < 0.04, "{time}");
    }
}
