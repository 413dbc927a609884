//! The scene's correctives baked into Spine deform timelines (minimal projects).
//!
//! Each clip gets, for every mesh attachment holding a corrected vertex, a deform timeline
//! (`animations.CLIP.attachments.default.SLOT.ATTACHMENT.deform`) with one key per frame at
//! [`DEFAULT_FPS`] and per key time of the clip, linear between keys. A weighted mesh's deform
//! vertices are one offset per (vertex, bone) pair, in that bone's frame: Spine draws
//! `sum_b w_b W_b (v_b + d_b)` with `W_b` the bone's world transform. Every pair of a vertex
//! gets `d_b = L_b^-1 Δ`, `L_b` the linear part of `W_b` and `Δ` the vertex's corrective
//! displacement in the frame's pose ([`Scene::apply_correctives`]); the weights sum to 1, so
//! the drawn vertex moves by exactly `Δ` at every key. Keys skip the leading zeros (`offset`)
//! and drop the trailing ones; a key with no offsets is the setup pose. Region attachments
//! cannot deform: the minimal project writes none, and a source project's attachments are
//! left without deform timelines (a note says so).

use crate::animation::{Clip, DEFAULT_FPS};
use crate::error::Result;
use crate::scene::Scene;
use crate::skeleton::Affine2;
use nalgebra::Point2;
use serde_json::{json, Map, Value};

/// Adds the deform timelines of the scene's correctives to `animations` (the object of
/// clips by name); `written` lists each mesh attachment's part (its slot and attachment
/// name) and vertices in file order, `rows` every vertex's influences in file order.
pub(super) fn add_deforms(
    scene: &Scene,
    rows: &[Vec<(usize, f64)>],
    written: &[(String, Vec<usize>)],
    animations: &mut Value,
    notes: &mut Vec<String>,
) -> Result<()> {
    if scene.correctives.is_empty() {
        return Ok(());
    }
    let corrected = scene.corrected_vertices();
    let meshes: Vec<&(String, Vec<usize>)> = written
        .iter()
        .filter(|(_, used)| used.iter().any(|&v| corrected[v]))
        .collect();
    let mut singular = 0usize;
    for clip in &scene.clips {
        let Some(anim) = animations.get_mut(&clip.name) else {
            continue;
        };
        let mut timelines: Vec<Vec<Value>> = vec![Vec::new(); meshes.len()];
        for t in bake_times(clip)? {
            let frame = Frame::new(scene, clip, t)?;
            for ((_, used), keys) in meshes.iter().zip(&mut timelines) {
                keys.push(frame.key(t, rows, used, &mut singular));
            }
        }
        let mut slots = Map::new();
        for ((part, _), keys) in meshes.iter().zip(timelines) {
            let mut attachment = Map::new();
            attachment.insert(part.clone(), json!({ "deform": Value::Array(keys) }));
            slots.insert(part.clone(), Value::Object(attachment));
        }
        anim["attachments"] = json!({ "default": Value::Object(slots) });
    }
    if singular > 0 {
        notes.push(format!(
            "{singular} deform offsets are on bones whose posed transform is singular: written 0"
        ));
    }
    Ok(())
}

/// The frames at [`DEFAULT_FPS`] and the clip's key times, sorted, once each.
pub(crate) fn bake_times(clip: &Clip) -> Result<Vec<f64>> {
    let mut times = clip.frame_times(DEFAULT_FPS)?;
    times.extend(clip.key_times());
    times.sort_by(f64::total_cmp);
    times.dedup();
    Ok(times)
}

/// One baked frame: every vertex's corrective displacement and the bones' inverse world
/// transforms in the frame's pose.
struct Frame {
    shift: Vec<Point2<f64>>,
    inverse: Vec<Option<Affine2>>,
}

impl Frame {
    fn new(scene: &Scene, clip: &Clip, t: f64) -> Result<Self> {
        let pose = scene.clip_pose(clip, t)?;
        let mut shift = vec![Point2::origin(); scene.mesh.vertex_count()];
        scene.apply_correctives(&pose, &mut shift)?;
        let inverse = scene
            .skeleton
            .world_affines(&pose)?
            .iter()
            .map(|w| w.inverse().ok())
            .collect();
        Ok(Frame { shift, inverse })
    }

    /// The deform key at `t` of the mesh of vertices `used`.
    fn key(
        &self,
        t: f64,
        rows: &[Vec<(usize, f64)>],
        used: &[usize],
        singular: &mut usize,
    ) -> Value {
        let mut flat = Vec::new();
        for &v in used {
            let delta = self.shift[v].coords;
            for &(j, _) in &rows[v] {
                let d = match &self.inverse[j] {
                    Some(inv) => inv.apply_vector(delta),
                    None => {
                        *singular += usize::from(delta != nalgebra::Vector2::zeros());
                        nalgebra::Vector2::zeros()
                    }
                };
                flat.extend([d.x, d.y]);
            }
        }
        let Some(first) = flat.iter().position(|&x| x != 0.0) else {
            return json!({ "time": t });
        };
        let last = flat.iter().rposition(|&x| x != 0.0).unwrap_or(first);
        json!({ "time": t, "offset": first, "vertices": flat[first..=last] })
    }
}
