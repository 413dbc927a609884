//! The scene's clips as glTF animations on the joint nodes.
//!
//! Each clip with at least one track becomes an animation named after it; each bone track
//! gives up to three channels on the bone's node: `translation` (the node's rest translation
//! plus the clip's translation offset, times the export scale, z = 0), `rotation` (a
//! quaternion about z by the node's rest angle plus the clip's rotation) and `scale`
//! (`(scale_x, scale_y, 1)`). A channel group whose keys are all linear (or all stepped) and
//! share their times is written key for key as `LINEAR` (`STEP`); any other curve (Bézier,
//! easings, Godot transitions) is sampled at the clip's frames
//! ([`crate::animation::DEFAULT_FPS`]) and key times into `LINEAR` keys, with extra samples
//! so that no rotation step reaches 90° (glTF interpolates quaternions the short way).
//! Two keys at one time (a jump) keep the later. Shear has no glTF node property (an
//! [`ClipError::InvalidClip`]). glTF nodes always inherit their parent's transform: bones with
//! another inherit mode (DragonBones `inheritRotation: false`) move as ordinary children.

use super::export::BufferBuilder;
use super::FLOAT;
use crate::animation::{BoneTrack, Channel, ChannelKind, Clip, Curve, DEFAULT_FPS};
use crate::error::{ClipError, Result};
use crate::scene::Scene;
use nalgebra::Isometry2;
use serde_json::{json, Value};

/// Largest rotation (radians) between consecutive written rotation keys.
const MAX_ROTATION_STEP: f64 = std::f64::consts::FRAC_PI_2;

/// Times and interpolation for a group of channels (see the module documentation).
fn times_for(clip: &Clip, channels: &[&Channel]) -> Result<(Vec<f64>, &'static str)> {
    let first = channels[0];
    let shared = channels.iter().all(|c| {
        c.keys.len() == first.keys.len()
            && c.keys
                .iter()
                .zip(&first.keys)
                .all(|(a, b)| a.time == b.time)
    });
    let all = |curve: Curve| {
        channels.iter().all(|c| {
            let n = c.keys.len();
            c.keys
                .iter()
                .take(n.saturating_sub(1))
                .all(|k| k.curve == curve)
        })
    };
    let mut times: Vec<f64> = first.keys.iter().map(|k| k.time).collect();
    let interpolation = if shared && all(Curve::Linear) {
        "LINEAR"
    } else if shared && all(Curve::Stepped) {
        "STEP"
    } else {
        times = clip.frame_times(DEFAULT_FPS)?;
        times.extend(channels.iter().flat_map(|c| c.keys.iter().map(|k| k.time)));
        "LINEAR"
    };
    times.sort_by(f64::total_cmp);
    times.dedup();
    Ok((times, interpolation))
}

/// Rotation samples refined so that consecutive angles differ by less than
/// [`MAX_ROTATION_STEP`] (only for `LINEAR`, where the interpolation is in angle).
fn refine_rotation(channel: &Channel, mut times: Vec<f64>) -> Vec<f64> {
    let at = |t: f64| channel.sample(t).unwrap_or(0.0).to_radians();
    let mut i = 0;
    // Each split halves a segment; 64 levels reach any finite step.
    let mut guard = 0usize;
    while i + 1 < times.len() && guard < 1_000_000 {
        guard += 1;
        let (a, b) = (times[i], times[i + 1]);
        if (at(b) - at(a)).abs() >= MAX_ROTATION_STEP && b - a > 1e-9 {
            times.insert(i + 1, 0.5 * (a + b));
        } else {
            i += 1;
        }
    }
    times
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Writes the clips' animations; `local[j]` is bone `j`'s node rest transform (scaled),
/// `node_of(j)` its node index, `mesh_node` the node of the mesh whose morph target weights
/// follow the scene's correctives (`morph_export.rs`; no channel without correctives); with
/// `extras` each clip's length goes into `extras.skinweights.duration`.
pub(super) fn write_animations(
    scene: &Scene,
    local: &[Isometry2<f64>],
    scale: f64,
    node_of: impl Fn(usize) -> usize,
    mesh_node: usize,
    buf: &mut BufferBuilder,
    extras: bool,
) -> Result<Vec<Value>> {
    let mut animations = Vec::new();
    for clip in &scene.clips {
        clip.check(&scene.skeleton)?;
        let mut out = AnimationOut::default();
        for track in &clip.tracks {
            let Some(j) = scene.skeleton.index_of(&track.bone) else {
                continue; // clip.check refused unknown bones
            };
            out.track(buf, clip, track, &local[j], node_of(j), scale)?;
        }
        let AnimationOut {
            mut channels,
            mut samplers,
        } = out;
        if !channels.is_empty() && !scene.correctives.is_empty() {
            let (times, weights) = super::morph_export::clip_weights(scene, clip)?;
            let input: Vec<f32> = times.iter().map(|&t| t as f32).collect();
            let a = buf.push(&f32_bytes(&input), None, FLOAT, input.len(), "SCALAR");
            buf.accessors[a]["min"] = json!([input[0]]);
            buf.accessors[a]["max"] = json!([input[input.len() - 1]]);
            let b = buf.push(&f32_bytes(&weights), None, FLOAT, weights.len(), "SCALAR");
            samplers.push(json!({"input": a, "output": b, "interpolation": "LINEAR"}));
            channels.push(json!({
                "sampler": samplers.len() - 1,
                "target": {"node": mesh_node, "path": "weights"},
            }));
        }
        if !channels.is_empty() {
            // glTF animations last until their last key; a clip may hold its last pose
            // longer (importers of skinweights' files read it back).
            let mut animation = json!({
                "name": clip.name,
                "channels": channels,
                "samplers": samplers,
            });
            if extras {
                animation["extras"] = json!({"skinweights": {"duration": clip.duration}});
            }
            animations.push(animation);
        }
    }
    Ok(animations)
}

/// One glTF animation's channels and samplers, as they are written.
#[derive(Default)]
struct AnimationOut {
    channels: Vec<Value>,
    samplers: Vec<Value>,
}

impl AnimationOut {
    /// Adds a sampler keyed at `times` (`values` of accessor type `kind` per time) and the
    /// channel driving `path` of `node` with it.
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        buf: &mut BufferBuilder,
        node: usize,
        path: &str,
        times: &[f64],
        interpolation: &str,
        values: Vec<f32>,
        kind: &str,
    ) {
        let input: Vec<f32> = times.iter().map(|&t| t as f32).collect();
        let a = buf.push(&f32_bytes(&input), None, FLOAT, input.len(), "SCALAR");
        buf.accessors[a]["min"] = json!([input[0]]);
        buf.accessors[a]["max"] = json!([input[input.len() - 1]]);
        let b = buf.push(&f32_bytes(&values), None, FLOAT, input.len(), kind);
        self.samplers
            .push(json!({"input": a, "output": b, "interpolation": interpolation}));
        self.channels.push(json!({
            "sampler": self.samplers.len() - 1,
            "target": {"node": node, "path": path},
        }));
    }

    /// The translation, rotation and scale channels of one bone track; `rest` is the
    /// bone's node rest transform (scaled), `node` its node.
    fn track(
        &mut self,
        buf: &mut BufferBuilder,
        clip: &Clip,
        track: &BoneTrack,
        rest: &Isometry2<f64>,
        node: usize,
        scale: f64,
    ) -> Result<()> {
        use ChannelKind as K;
        let ch = &track.channels;
        if ch.shear_x.is_some() || ch.shear_y.is_some() {
            return Err(ClipError::InvalidClip {
                clip: clip.name.clone(),
                message: format!("bone {:?}: shear has no glTF node property", track.bone),
            }
            .into());
        }
        let pair = [ch.get(K::TranslateX), ch.get(K::TranslateY)];
        let present: Vec<&Channel> = pair.iter().flatten().copied().collect();
        if !present.is_empty() {
            let (times, interpolation) = times_for(clip, &present)?;
            let t0 = rest.translation.vector;
            let values = times
                .iter()
                .flat_map(|&t| {
                    let x = ch.value(K::TranslateX, t);
                    let y = ch.value(K::TranslateY, t);
                    [(t0.x + x * scale) as f32, (t0.y + y * scale) as f32, 0.0]
                })
                .collect();
            self.add(
                buf,
                node,
                "translation",
                &times,
                interpolation,
                values,
                "VEC3",
            );
        }
        if let Some(r) = ch.get(K::Rotation) {
            let (times, interpolation) = times_for(clip, &[r])?;
            let times = if interpolation == "LINEAR" {
                refine_rotation(r, times)
            } else {
                times
            };
            let a0 = rest.rotation.angle();
            let values = times
                .iter()
                .flat_map(|&t| {
                    let half = 0.5 * (a0 + ch.value(K::Rotation, t).to_radians());
                    [0.0, 0.0, half.sin() as f32, half.cos() as f32]
                })
                .collect();
            self.add(buf, node, "rotation", &times, interpolation, values, "VEC4");
        }
        let pair = [ch.get(K::ScaleX), ch.get(K::ScaleY)];
        let present: Vec<&Channel> = pair.iter().flatten().copied().collect();
        if !present.is_empty() {
            let (times, interpolation) = times_for(clip, &present)?;
            let values = times
                .iter()
                .flat_map(|&t| {
                    [
                        ch.value(K::ScaleX, t) as f32,
                        ch.value(K::ScaleY, t) as f32,
                        1.0,
                    ]
                })
                .collect();
            self.add(buf, node, "scale", &times, interpolation, values, "VEC3");
        }
        Ok(())
    }
}
