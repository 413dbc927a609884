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
//! weights, free to separate (a scene whose bones name no parts links every pair).

use super::layers::{Layers, TriangleLocator};
use crate::error::Result;
use crate::geometry::Segment;
use crate::mesh::CotanLaplacian;
use crate::scene::Scene;
use crate::weights::Weights;
use nalgebra::Point2;

/// What [`overlap_consistent_weights`] changed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OverlapWeightsReport {
    /// Pairs of layers linked by a joint (part names, back layer first), whose overlaps are
    /// blended.
    pub linked: Vec<[String; 2]>,
    /// Vertices lying inside a linked layer other than their own, whose rows were blended.
    pub vertices_blended: usize,
    /// Vertices within the band around the overlaps whose rows were smoothed to spread the
    /// blend (see [`overlap_consistent_weights_with`]).
    pub vertices_widened: usize,
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
    overlap_consistent_weights_with(scene, weights, DEFAULT_BAND)
}

/// Default width of the band the blend is spread over, px (12). Confined to the overlap
/// (band 0), a vertex of a coarse layer alone inside the other layer takes that layer's
/// rows while its neighbours keep their own: an isolated discontinuity that `lint` rejects
/// (tests/it/seams_layered_scenes.rs, seed 23); spread over 12 px the ramp is gentle and the
/// layers' rows in the overlap end closer (there 0.09-0.11 apart at band 0, 0.025-0.052
/// at 12).
pub const DEFAULT_BAND: f64 = 12.0;

/// [`overlap_consistent_weights`] with the blend spread over `band` px (0: confined to the
/// overlap). Errors: those of [`overlap_consistent_weights`]; a negative or non-finite band.
pub fn overlap_consistent_weights_with(
    scene: &Scene,
    weights: &Weights,
    band: f64,
) -> Result<(Weights, OverlapWeightsReport)> {
    let band = super::layers::check_amount("overlap blend band", band)?;
    crate::skinning::check_shape(scene.mesh.vertex_count(), weights, scene.skeleton.len())?;
    weights.check_scorable()?;
    let layers = Layers::of(scene)?;
    let mesh = &scene.mesh;
    let pts = mesh.vertices();
    let tris = mesh.triangles();
    let count = layers.count();
    let linked = layers.linked(scene);
    let mut pairs = Vec::new();
    for (a, row) in linked.iter().enumerate() {
        for (b, &yes) in row.iter().enumerate().skip(a + 1) {
            if yes {
                pairs.push([layers.names[a].clone(), layers.names[b].clone()]);
            }
        }
    }
    let locator = TriangleLocator::new(pts, tris);
    let outline = inner_outlines(scene, &layers, &linked, &locator);
    let ctx = Context {
        layers: &layers,
        locator: &locator,
        tris,
        pts,
        linked: &linked,
        outline: &outline,
    };
    // Blend, widen the blend's ramp into both layers, blend again (the widened fields
    // agree in the overlap only up to the ramp, which the second blend removes).
    let (first, blended, before) = ctx.blend(weights);
    let (wide, widened) = ctx.widen(mesh, &first, band)?;
    let (out, _, _) = ctx.blend(&wide);
    out.validate()?;
    // After: each blended vertex against the other layers' new weights at its position.
    let mut after: f64 = 0.0;
    for &v in &blended {
        for l in (0..count).filter(|&l| linked[layers.layer[v]][l]) {
            if let Some(row) = interpolate(&locator, &out, tris, &layers, pts[v], l) {
                after = after.max(row_difference(out.row(v), &row));
            }
        }
    }
    Ok((
        out,
        OverlapWeightsReport {
            linked: pairs,
            vertices_blended: blended.len(),
            vertices_widened: widened,
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

/// Pieces each boundary edge is cut into when its inner parts are found.
const PIECES: usize = 8;

/// The inner outline of every layer: the pieces (eighths) of its boundary edges just
/// outside of which lies another layer linked to it. Outlines shared as silhouette (two
/// layers' edges running together, both layers on the same side) are not inner: nothing
/// needs to follow across them.
fn inner_outlines(
    scene: &Scene,
    layers: &Layers,
    linked: &[Vec<bool>],
    locator: &TriangleLocator,
) -> Vec<Vec<Segment>> {
    let mesh = &scene.mesh;
    let (pts, tris) = (mesh.vertices(), mesh.triangles());
    // How far outside the edge to look: a hair, relative to the scene's size.
    let reach = layers.eps * 1e4;
    let mut out: Vec<Vec<Segment>> = vec![Vec::new(); layers.count()];
    for &[a, b] in &layers.boundary {
        let l = layers.layer[a];
        let d = pts[b] - pts[a];
        if d.norm() == 0.0 {
            continue;
        }
        let outward = nalgebra::Vector2::new(d.y, -d.x) / d.norm();
        for k in 0..PIECES {
            let at = |s: f64| pts[a] + d * (s / PIECES as f64);
            let (p, q) = (at(k as f64), at(k as f64 + 1.0));
            let outside = nalgebra::center(&p, &q) + outward * reach;
            let inner = locator.containing(outside, 0.0).iter().any(|&(t, _)| {
                let lt = layers.layer[tris[t][0]];
                lt != l && linked[l][lt]
            });
            if inner {
                out[l].push(Segment::new(p, q));
            }
        }
    }
    out
}

/// What the blend reads: the layers, their triangles and inner outlines.
struct Context<'a> {
    layers: &'a Layers,
    locator: &'a TriangleLocator<'a>,
    tris: &'a [[usize; 3]],
    pts: &'a [Point2<f64>],
    linked: &'a [Vec<bool>],
    outline: &'a [Vec<Segment>],
}

impl Context<'_> {
    fn distance(&self, l: usize, p: Point2<f64>) -> f64 {
        self.outline[l]
            .iter()
            .map(|s| s.distance(&p))
            .fold(f64::INFINITY, f64::min)
    }

    /// One blend (see the module docs): the new weights, the vertices blended and the
    /// largest difference they had from another layer's weights at their position.
    fn blend(&self, weights: &Weights) -> (Weights, Vec<usize>, f64) {
        let (layers, locator, tris, linked) = (self.layers, self.locator, self.tris, self.linked);
        let count = layers.count();
        let distance = |l: usize, p: Point2<f64>| self.distance(l, p);
        let mut out = weights.clone();
        let (mut blended, mut before) = (Vec::new(), 0.0f64);
        let mut others: Vec<(usize, Vec<f64>)> = Vec::new();
        for (v, &p) in self.pts.iter().enumerate() {
            let own = layers.layer[v];
            // Each other linked layer containing p, with its own weights there.
            others.clear();
            for lt in (0..count).filter(|&l| linked[own][l]) {
                if let Some(row) = interpolate(locator, weights, tris, layers, p, lt) {
                    others.push((lt, row));
                }
            }
            if others.is_empty() {
                continue;
            }
            blended.push(v);
            let d_own = distance(own, p);
            let ds: Vec<f64> = others.iter().map(|(l, _)| distance(*l, p)).collect();
            let all = || std::iter::once(d_own).chain(ds.iter().copied());
            let total: f64 = all().sum();
            let infinite = all().filter(|d| d.is_infinite()).count() as f64;
            let n = (others.len() + 1) as f64;
            // A layer with no inner outline takes the point whole; on every inner outline at
            // once (where they cross) the rows are averaged.
            let share = |d: f64| {
                if infinite > 0.0 {
                    if d.is_infinite() {
                        1.0 / infinite
                    } else {
                        0.0
                    }
                } else if total > 0.0 {
                    d / total
                } else {
                    1.0 / n
                }
            };
            let row = out.row_mut_unchecked(v);
            row.iter_mut().for_each(|w| *w *= share(d_own));
            for ((_, other), &d) in others.iter().zip(&ds) {
                for (w, o) in row.iter_mut().zip(other) {
                    *w += share(d) * o;
                }
            }
            for (_, other) in &others {
                before = before.max(row_difference(weights.row(v), other));
            }
        }
        out.normalize();
        (out, blended, before)
    }

    /// Spreads the blend's ramp into both layers: Laplacian steps (cotangent weights, on
    /// each layer's own mesh) on the vertices within `band` of an inner outline, holding
    /// the vertices on an inner outline (which follow the other layer) and everything
    /// farther. Returns the weights and how many vertices moved.
    fn widen(
        &self,
        mesh: &crate::mesh::Mesh,
        weights: &Weights,
        band: f64,
    ) -> Result<(Weights, usize)> {
        let n = self.pts.len();
        let bones = weights.bone_count();
        let near = |v: usize, r: f64| {
            self.outline
                .iter()
                .flatten()
                .any(|s| s.distance(&self.pts[v]) <= r)
        };
        let free: Vec<usize> = (0..n)
            .filter(|&v| {
                let own = self.layers.layer[v];
                let on_own = self.outline[own]
                    .iter()
                    .any(|s| s.distance(&self.pts[v]) <= self.layers.eps);
                !on_own && near(v, band)
            })
            .collect();
        if free.is_empty() {
            return Ok((weights.clone(), 0));
        }
        let laplacian = CotanLaplacian::new(mesh);
        let diag = laplacian.diagonal();
        let mut w: Vec<f64> = weights.as_slice().to_vec();
        for _ in 0..WIDEN_STEPS {
            let mut next = w.clone();
            for b in 0..bones {
                let col: Vec<f64> = (0..n).map(|v| w[v * bones + b]).collect();
                let lw = laplacian.apply(&col);
                for &v in free.iter().filter(|&&v| diag[v] > 0.0) {
                    next[v * bones + b] = (diag[v] * col[v] - lw[v]) / diag[v];
                }
            }
            for &v in &free {
                let row = &mut next[v * bones..(v + 1) * bones];
                row.iter_mut().for_each(|x| *x = x.max(0.0));
                let s: f64 = row.iter().sum();
                if s > 0.0 && s.is_finite() {
                    row.iter_mut().for_each(|x| *x /= s);
                }
            }
            w = next;
        }
        Ok((Weights::from_row_major(w, bones)?, free.len()))
    }
}

/// Laplacian steps that spread the blend (Jacobi: enough to cross a band of about 15 edges).
const WIDEN_STEPS: usize = 300;
