//! The scene's correctives as glTF morph targets with animated weights.
//!
//! Every key of every corrective becomes one morph target of the mesh (in corrective, then
//! key order; named `JOINT@ANGLE` in the mesh's `extras.targetNames`, the name Blender and
//! three.js read): a `POSITION` displacement per vertex, the key's offsets times the export
//! scale and zero elsewhere. The mesh's default `weights` are 0. Each exported clip gets a
//! `weights` channel on the mesh node, sampled at the clip's frames
//! ([`crate::animation::DEFAULT_FPS`]) and key times into `LINEAR` keys: per target the
//! key's weight at the joint angle of that frame's pose ([`Corrective::key_weights`]), so
//! that `base + sum_k w_k target_k` is [`Corrective::offsets_at`] there.
//!
//! glTF adds morph targets **before** skinning; skinweights adds correctives after it,
//! turned by the parent bone. A glTF runtime therefore turns each offset by the vertex's
//! blended skinning matrix instead of the parent's rotation: the same where a vertex follows
//! its parent only, smaller and turned part way where it follows the child too (see
//! docs/correctives.md for the measured difference).

use super::export::{push_vec3_with_bounds, BufferBuilder};
use crate::animation::{Clip, DEFAULT_FPS};
use crate::correctives::Corrective;
use crate::error::Result;
use crate::scene::Scene;
use serde_json::{json, Value};

/// The morph targets of the scene's correctives: the `targets` list every primitive of the
/// mesh carries (empty without correctives) and the targets' names.
pub(super) fn push_targets(
    scene: &Scene,
    scale: f64,
    buf: &mut BufferBuilder,
) -> (Value, Vec<String>) {
    let n = scene.mesh.vertex_count();
    let (mut targets, mut names) = (Vec::new(), Vec::new());
    for c in &scene.correctives {
        for key in &c.keys {
            let mut delta = vec![[0f32; 3]; n];
            for (&v, o) in c.vertices.iter().zip(&key.offsets) {
                delta[v] = [(o.x * scale) as f32, (o.y * scale) as f32, 0.0];
            }
            let a = push_vec3_with_bounds(buf, &delta);
            targets.push(json!({ "POSITION": a }));
            names.push(target_name(c, key.angle));
        }
    }
    (Value::Array(targets), names)
}

/// `JOINT@ANGLE`, the angle as written in the scene file.
fn target_name(c: &Corrective, angle: f64) -> String {
    format!("{}@{angle}", c.joint)
}

/// The clip's times and morph weights (one per target per time, target order of
/// [`push_targets`]): the frames at [`DEFAULT_FPS`] and the key times, each pose with IK
/// ([`Scene::clip_pose`]).
pub(super) fn clip_weights(scene: &Scene, clip: &Clip) -> Result<(Vec<f64>, Vec<f32>)> {
    let mut times = clip.frame_times(DEFAULT_FPS)?;
    times.extend(clip.key_times());
    times.sort_by(f64::total_cmp);
    times.dedup();
    let mut weights = Vec::new();
    for &t in &times {
        let pose = scene.clip_pose(clip, t)?;
        for c in &scene.correctives {
            let angle = c.joint_angle(&scene.skeleton, &pose)?;
            weights.extend(c.key_weights(angle).into_iter().map(|w| w as f32));
        }
    }
    Ok((times, weights))
}
