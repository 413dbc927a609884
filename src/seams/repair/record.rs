//! The seams a repaired scene records ([`crate::scene::Seams`]): the joints [`super::repair`]
//! welded, and with `weld_overlaps` Spine's Weld for layers that overlap instead of touching.
//! Recorded in the scene, they are applied after every registry solve, so a repaired scene
//! stays repaired whichever solver or tool solves it next.

use super::layers::{Layers, TriangleLocator};
use crate::error::Result;
use crate::scene::{Scene, Seams, Weld, JOINT_TOLERANCE};
use crate::seams::measure::joint_links;
use std::collections::HashSet;

/// The seams of `scene` as [`super::repair`] records them:
///
/// - joints: every group of coincident vertices of different layers that meet across a seam
///   edge (the weld's shared boundary vertices; groups whose members are more than
///   [`JOINT_TOLERANCE`] apart are left out, as they are no shared position);
/// - with `weld_overlaps`, welds: every vertex of a layer that lies under a triangle of a
///   layer drawn in front of it, where a joint links the two layers (an overlap strip, an
///   arm drawn over the body), takes that triangle's weights at its position (Spine's Weld).
///   Vertices of a joint are not welded, nor are vertices whose source triangle has a
///   welded corner (welds do not chain).
///
/// A scene with fewer than two layers has no seams (an empty [`Seams`]).
pub fn recorded_seams(scene: &Scene, weld_overlaps: bool) -> Result<Seams> {
    let Ok(layers) = Layers::of(scene) else {
        return Ok(Seams::default());
    };
    let mesh = &scene.mesh;
    let pts = mesh.vertices();
    let joints: Vec<Vec<usize>> = layers
        .coincident_groups(mesh)
        .into_iter()
        .filter(|g| {
            g.len() >= 2
                && g[1..]
                    .iter()
                    .all(|&v| (pts[v] - pts[g[0]]).norm() <= JOINT_TOLERANCE)
        })
        .collect();
    let mut welds = Vec::new();
    if weld_overlaps {
        let in_joint: HashSet<usize> = joints.iter().flatten().copied().collect();
        // Layer pairs a joint links (a bone of one layer whose parent drives the other).
        let layer_of_part: Vec<Option<usize>> = (0..mesh.parts().len())
            .map(|p| {
                mesh.vertex_parts()
                    .iter()
                    .position(|&q| q == p)
                    .map(|v| layers.layer[v])
            })
            .collect();
        let linked: HashSet<(usize, usize)> = joint_links(scene)
            .iter()
            .filter_map(|l| Some((layer_of_part[l.parts[0]]?, layer_of_part[l.parts[1]]?)))
            .flat_map(|(a, b)| [(a, b), (b, a)])
            .collect();
        let unused: HashSet<usize> = mesh.unused_vertices().iter().copied().collect();
        let tris = mesh.triangles();
        let locator = TriangleLocator::new(pts, tris);
        for (v, &p) in pts.iter().enumerate() {
            if in_joint.contains(&v) || unused.contains(&v) {
                continue;
            }
            let lv = layers.layer[v];
            let over = locator
                .containing(p, layers.eps)
                .into_iter()
                .filter(|&(t, _)| {
                    let lt = layers.layer[tris[t][0]];
                    lt > lv && linked.contains(&(lv, lt))
                })
                // The front-most layer over the vertex is the one it shows through.
                .max_by_key(|&(t, _)| layers.layer[tris[t][0]]);
            if let Some((t, at)) = over {
                // On an edge the coordinates can be a rounding below 0: clamp and rescale.
                let at = at.map(|a| a.max(0.0));
                let sum: f64 = at.iter().sum();
                welds.push(Weld {
                    vertex: v,
                    from: tris[t],
                    at: at.map(|a| a / sum),
                });
            }
        }
        let targets: HashSet<usize> = welds.iter().map(|w| w.vertex).collect();
        welds.retain(|w| w.from.iter().all(|s| !targets.contains(s)));
    }
    Ok(Seams { joints, welds })
}
