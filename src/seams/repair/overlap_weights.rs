//! Overlap-consistent weights: where two layers linked by a joint overlap (an arm drawn over
//! the body at the shoulder), every vertex of either layer in the overlap gets one blended
//! weight field, so linear blend skinning moves the two layers' material there together.
//!
//! Layers that overlap instead of touching have no seam to weld: each keeps its own weights,
//! the arm's inner end (inside the body) turns with the arm while the body under it stays,
//! and the shoulder opens. The fix is a weight field on the union of the layers. Inside the
//! overlap `O` of layers `A` and `B`, with `w_A(p)` and `w_B(p)` each layer's own weights at
//! `p` (barycentric lookup in that layer's triangles) and `d_A(p)`, `d_B(p)` the distances to
//! each layer's outline:
//!
//! `w*(p) = (d_A w_A(p) + d_B w_B(p)) / (d_A + d_B)`
//!
//! On A's outline inside B (`d_A = 0`) the field is B's own: A's inner end follows the body.
//! On B's outline inside A it is A's own, so A's field is continuous where it leaves the
//! overlap, and B's likewise. Both layers' vertices in `O` read the same field, so at every
//! vertex their rows agree, and between vertices they differ only by the two meshes'
//! piecewise-linear interpolation. More than two linked layers at a point blend the same
//! way (each weighted by its distance to its own outline). Only layers linked by a joint
//! ([`crate::seams::measure::joint_links`]) blend: two legs that overlap keep their own
//! weights, free to separate.

use super::layers::{Layers, TriangleLocator};
use crate::error::Result;
use crate::geometry::Segment;
use crate::scene::Scene;
use crate::seams::measure::joint_links;
use crate::weights::Weights;
use nalgebra::Point2;

/// What [`overlap_consistent_weights`] changed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OverlapWeightsReport {
    /// Pairs of layers linked by a joint (part names), whose overlap was blended.
    pub linked: Vec<[String; 2]>,
    /// Vertices lying inside a linked layer other than their own, whose rows were blended.
    pub vertices_blended: usize,
    /// Largest weight difference (any bone) between a vertex in an overlap and the other
    /// layer's weights at its position, before and after.
    pub overlap_difference: [f64; 2],
}

/// Blends the weights of every vertex that lies inside another layer linked to its own by a
/// joint (see the module docs); every other row is kept bit for bit. Rows stay finite,
/// >= 0 and sum to 1.
///
/// Errors: weights of the wrong shape or not scorable; a scene with fewer than two layers.
pub fn overlap_consistent_weights(
    scene: &Scene,
    weights: &Weights,
) -> Result<(Weights, OverlapWeightsReport)> {
    crate::skinning::check_shape(scene.mesh.vertex_count(), weights, scene.skeleton.len())?;
    weights.check_scorable()?;
    let layers = Layers::of(scene)?;
    let mesh = &scene.mesh;
    let pts = mesh.vertices();
    let tris = mesh.triangles();
    let count = layers.count();
    // Layer of every part (through its vertices) and the joint-linked layer pairs.
    let mut layer_of_part = vec![usize::MAX; mesh.parts().len()];
    for (v, &p) in mesh.vertex_parts().iter().enumerate() {
        layer_of_part[p] = layers.layer[v];
    }
    let mut linked = vec![vec![false; count]; count];
    let mut pairs = Vec::new();
    for link in joint_links(scene) {
        let [a, b] = link.parts.map(|p| layer_of_part[p]);
        if a < count && b < count && a != b && !linked[a][b] {
            linked[a][b] = true;
            linked[b][a] = true;
            pairs.push([layers.names[a].clone(), layers.names[b].clone()]);
        }
    }
    let mut outline: Vec<Vec<Segment>> = vec![Vec::new(); count];
    for &[a, b] in &layers.boundary {
        outline[layers.layer[a]].push(Segment::new(pts[a], pts[b]));
    }
    let distance = |l: usize, p: Point2<f64>| {
        outline[l]
            .iter()
            .map(|s| s.distance(&p))
            .fold(f64::INFINITY, f64::min)
    };
    let locator = TriangleLocator::new(pts, tris);
    let mut out = weights.clone();
    let (mut blended, mut before, mut after) = (0usize, 0.0f64, 0.0f64);
    let mut others: Vec<(usize, Vec<f64>)> = Vec::new();
    let mut hits: Vec<(usize, Vec<usize>)> = Vec::new();
    for (v, &p) in pts.iter().enumerate() {
        let own = layers.layer[v];
        // Each other linked layer containing p, with its own weights there.
        others.clear();
        for lt in (0..count).filter(|&l| linked[own][l]) {
            if let Some(row) = interpolate(&locator, weights, tris, &layers, p, lt) {
                others.push((lt, row));
            }
        }
        if others.is_empty() {
            continue;
        }
        blended += 1;
        let d_own = distance(own, p);
        let ds: Vec<f64> = others.iter().map(|(l, _)| distance(*l, p)).collect();
        let total = d_own + ds.iter().sum::<f64>();
        let n = (others.len() + 1) as f64;
        // On every outline at once (a point where the outlines cross): the plain mean.
        let share = |d: f64| if total > 0.0 { d / total } else { 1.0 / n };
        let row = out.row_mut(v);
        row.iter_mut().for_each(|w| *w *= share(d_own));
        for ((_, other), &d) in others.iter().zip(&ds) {
            for (w, o) in row.iter_mut().zip(other) {
                *w += share(d) * o;
            }
        }
        for (_, other) in &others {
            before = before.max(row_difference(weights.row(v), other));
        }
        hits.push((v, others.iter().map(|(l, _)| *l).collect::<Vec<_>>()));
    }
    out.normalize();
    out.validate()?;
    // After: each blended vertex against the other layers' new weights at its position.
    for (v, ls) in &hits {
        for &l in ls {
            if let Some(row) = interpolate(&locator, &out, tris, &layers, pts[*v], l) {
                after = after.max(row_difference(out.row(*v), &row));
            }
        }
    }
    Ok((
        out,
        OverlapWeightsReport {
            linked: pairs,
            vertices_blended: blended,
            overlap_difference: [before, after],
        },
    ))
}

/// Layer `l`'s weights at `p` (barycentric in the first triangle of `l`
/// that contains it), or `None` when no triangle of `l` does.
fn interpolate(
    locator: &TriangleLocator,
    weights: &Weights,
    tris: &[[usize; 3]],
    layers: &Layers,
    p: Point2<f64>,
    l: usize,
) -> Option<Vec<f64>> {
    let (t, bary) = locator
        .containing(p, layers.eps)
        .into_iter()
        .find(|&(t, _)| layers.layer[tris[t][0]] == l)?;
    let mut row = vec![0.0; weights.bone_count()];
    for (k, &c) in tris[t].iter().enumerate() {
        for (w, x) in row.iter_mut().zip(weights.row(c)) {
            *w += bary[k] * x;
        }
    }
    Some(row)
}

fn row_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}
