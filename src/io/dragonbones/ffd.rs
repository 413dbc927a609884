//! The scene's correctives baked into DragonBones FFD timelines.
//!
//! DragonBones 5.5 keeps mesh deformation in each animation's `ffd` list: per mesh display
//! (`name`, `skin`, `slot`) a frame list whose `vertices` are amounts added to the display's
//! setup vertices (x, y per vertex, armature space, y down), skipping `offset` numbers. For a
//! weighted mesh the amounts are added before skinning: the runtime turns a vertex's amount
//! into each bone's frame by the bone's bind pose and draws it with the bone's posed
//! transform, so the drawn displacement is `M_v δ` with `M_v = sum_b w_b L_b` (`L_b` the
//! linear part of bone `b`'s skinning transform). Every frame of the clip at the export frame
//! rate gets the amounts `δ = M_v^-1 Δ`, `Δ` the vertex's corrective displacement in the
//! frame's pose ([`Scene::apply_correctives`]), so the drawn vertex moves by exactly `Δ` at
//! every frame (linear tweens between frames). Where `M_v` is singular (a vertex weighted
//! half and half across a joint bent 180°, which LBS collapses to a point) no amount can move
//! it: those amounts are written 0.

use crate::error::Result;
use crate::scene::Scene;
use crate::skeleton::Affine2;
use nalgebra::{Matrix2, Point2, Vector2};
use serde_json::{json, Value};

/// Smallest |det M_v| an amount is solved for (below it the vertex's skinning collapses).
const MIN_DETERMINANT: f64 = 1e-9;

/// Adds the `ffd` timelines of the scene's correctives to `animations` (one per clip, in
/// clip order, at `rate` frames per second); `displays` lists each mesh display's part (its
/// slot and display name) and vertices in file order, `influences` every vertex's weights.
pub(super) fn add_ffd(
    scene: &Scene,
    influences: &[Vec<(usize, f64)>],
    displays: &[(String, Vec<usize>)],
    rate: f64,
    animations: &mut [Value],
) -> Result<()> {
    if scene.correctives.is_empty() || scene.clips.is_empty() {
        return Ok(());
    }
    let corrected = scene.corrected_vertices();
    let displays: Vec<&(String, Vec<usize>)> = displays
        .iter()
        .filter(|(_, used)| used.iter().any(|&v| corrected[v]))
        .collect();
    for (clip, anim) in scene.clips.iter().zip(animations.iter_mut()) {
        let total = (clip.duration * rate).round().max(0.0) as usize;
        let mut frames: Vec<Vec<Value>> = vec![Vec::new(); displays.len()];
        for k in 0..=total {
            let t = (k as f64 / rate).min(clip.duration);
            let pose = scene.clip_pose(clip, t)?;
            let mut shift = vec![Point2::origin(); scene.mesh.vertex_count()];
            scene.apply_correctives(&pose, &mut shift)?;
            let skinning = scene.skeleton.skinning_affines(&pose)?;
            for ((_, used), list) in displays.iter().zip(&mut frames) {
                let amounts = amounts(used, &shift, influences, &skinning);
                let mut f = json!({ "duration": usize::from(k < total), "tweenEasing": 0 });
                if let Some(first) = amounts.iter().position(|&x| x != 0.0) {
                    let last = amounts.iter().rposition(|&x| x != 0.0).unwrap_or(first);
                    f["offset"] = json!(first);
                    f["vertices"] = json!(amounts[first..=last]);
                }
                list.push(f);
            }
        }
        let timelines: Vec<Value> = displays
            .iter()
            .zip(frames)
            .map(|((part, _), frame)| {
                json!({ "name": part, "skin": "", "slot": part, "frame": frame })
            })
            .collect();
        anim["ffd"] = Value::Array(timelines);
    }
    Ok(())
}

/// The display's amounts (x, y per vertex, y down) that move each vertex by its shift.
fn amounts(
    used: &[usize],
    shift: &[Point2<f64>],
    influences: &[Vec<(usize, f64)>],
    skinning: &[Affine2],
) -> Vec<f64> {
    let mut out = Vec::with_capacity(2 * used.len());
    for &v in used {
        let delta: Vector2<f64> = shift[v].coords;
        if delta == Vector2::zeros() {
            out.extend([0.0, 0.0]);
            continue;
        }
        let (mut m, mut sum) = (Matrix2::zeros(), 0.0);
        for &(j, w) in &influences[v] {
            let s = &skinning[j];
            m += w * Matrix2::new(s.a, s.b, s.c, s.d);
            sum += w;
        }
        let m = m / sum.max(f64::MIN_POSITIVE);
        let d = match m.try_inverse() {
            Some(inv) if m.determinant().abs() >= MIN_DETERMINANT => inv * delta,
            _ => Vector2::zeros(),
        };
        out.extend([d.x, -d.y]);
    }
    out
}
