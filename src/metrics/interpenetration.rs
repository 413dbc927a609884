//! Interpenetration: where a posed mesh covers the plane more than once although it did not
//! at rest (the extreme-pose check: "the contour does not interpenetrate").
//!
//! **Layers.** Every triangle belongs to one layer (for a scene: the part of its corner drawn
//! first, [`crate::scene::Scene::triangle_parts`]; without art, the lowest part index).
//! A layer's *boundary edges* are the triangle edges with no triangle of the same layer
//! across them, directed as in their triangle (the layer on their left): a separately drawn
//! layer's outline, and the line where two parts of one welded mesh meet.
//!
//! **Rest overlaps are allowed.** Layers drawn overlapping on purpose (a forearm tucked 2 px
//! under the upper arm) overlap at rest and may go on doing so. A pair of layers `(L, M)` is
//! *allowed* when, at rest, their boundaries properly cross or they cover a common area
//! (measured as below with nothing allowed); `(L, L)` is allowed only for a layer whose rest
//! mesh already covers itself twice (an imported mesh folded at rest). Every measure below
//! skips allowed pairs, so **the rest pose reports exactly 0** by construction.
//!
//! **Crossings.** Pairs of posed boundary edges that cross at an interior point of both
//! ([`Segment::proper_crossing`]: touching, sharing an endpoint or running collinear is not
//! a crossing), of one layer (`self_crossings`: the layer's outline crosses itself) or of two
//! layers that are not allowed to overlap (`layer_crossings`). An edge on the line between two
//! welded parts belongs to both parts' outlines and counts once for each.
//!
//! **Interpenetrating area.** With `c_L(x)` the number of posed triangles of layer `L` that
//! contain the point `x` (unsigned: a flipped triangle covers too), `x` is *interpenetrated*
//! when two pieces of material that may not overlap lie on it:
//!
//! ```text
//! I(x) = [ some layer L with (L, L) not allowed has c_L(x) >= 2 ]
//!     or [ some pair L != M, (L, M) not allowed, has c_L(x) >= 1 and c_M(x) >= 1 ]
//! area = integral of I(x) dx over the plane          (px^2; each point counted once)
//! ```
//!
//! On a mesh without allowed pairs this is the area covered more than once. It is computed
//! exactly, from the outlines: the winding number `w_L(x)` of layer L's posed boundary is the
//! signed count `sum over triangles of L of sign(t) [x in t]`, so with `f_L(x)` the number of
//! flipped (clockwise) posed triangles of L containing `x`, `c_L = w_L + 2 f_L`. A scanline
//! sweep over the boundary edges and the flipped triangles' edges gives every `c_L` along a
//! horizontal line; between two consecutive event heights (edge endpoints and crossings of any
//! two of these edges) the interpenetrated length is linear in y, so one scanline at each
//! slab's middle integrates it exactly (to rounding; stretches shorter than 1e-9 px, which
//! rounding leaves where two layers touch, are not counted). The cost grows with the number
//! of boundary edges, flipped triangles and crossings, not with the mesh's interior.
//!
//! Per pose, [`Interpenetration::measure`] takes posed positions from any deformation (LBS,
//! DQS, correctives, a clip frame); [`Interpenetration::new`] does the rest-pose work once.

use crate::error::{MeshError, Result, TriangleLayersProblem};
use crate::geometry::{bbox_overlapping_pairs, signed_area2, Segment};
use crate::mesh::Mesh;
use crate::scene::Scene;
use nalgebra::Point2;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// Interpenetrated stretches of a scanline up to this long (px) are rounding where two layers
/// touch, not an overlap.
const CLOSED: f64 = 1e-9;

/// A directed boundary edge of one layer (its layer on the left).
#[derive(Debug, Clone, Copy)]
struct BoundaryEdge {
    a: u32,
    b: u32,
    layer: u32,
}

/// The rest-pose part of the measure for one mesh: its layers' boundary edges and the layer
/// pairs allowed to overlap. Measure any number of poses with [`Interpenetration::measure`].
#[derive(Debug, Clone)]
pub struct Interpenetration<'m> {
    mesh: &'m Mesh,
    triangle_layer: Vec<u32>,
    layer_names: Vec<String>,
    edges: Vec<BoundaryEdge>,
    /// Allowed pairs `(lower, higher)` layer index.
    allowed: HashSet<(u32, u32)>,
    rest_area: f64,
}

/// Two posed boundary edges that cross.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EdgeCrossing {
    /// The two edges' layers (names).
    pub layers: [String; 2],
    /// The two edges as vertex pairs.
    pub edges: [[usize; 2]; 2],
    /// Where they cross (posed coordinates).
    pub point: [f64; 2],
}

/// Interpenetration between one pair of layers (the same name twice: a layer with itself).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerOverlap {
    /// The layers (names; lower index first).
    pub layers: [String; 2],
    /// Crossing boundary-edge pairs between them.
    pub crossings: usize,
    /// Area (px^2) where both cover (for a layer with itself: where it covers twice). A
    /// point where three layers meet counts for each pair, so these can sum to more than the
    /// report's `area`.
    pub area: f64,
}

/// Interpenetration of one pose (see the module docs for the definitions). The field names
/// are the JSON keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InterpenetrationReport {
    /// Crossing pairs of boundary edges of one layer (its outline crosses itself).
    pub self_crossings: usize,
    /// Crossing pairs of boundary edges of two layers that did not overlap at rest.
    pub layer_crossings: usize,
    /// Interpenetrating area, px^2: covered by material that may not overlap there.
    pub area_px2: f64,
    /// The same area as a percentage of the rest mesh's area.
    pub area_pct: f64,
    /// The crossing found first (leftmost), to inspect.
    pub first_crossing: Option<EdgeCrossing>,
    /// Every pair of layers that interpenetrates, the largest area first.
    pub pairs: Vec<LayerOverlap>,
}

impl InterpenetrationReport {
    /// All crossing pairs, self and between layers.
    pub fn crossings(&self) -> usize {
        self.self_crossings + self.layer_crossings
    }

    /// Whether nothing interpenetrates (no crossing, area exactly 0).
    pub fn is_clean(&self) -> bool {
        self.crossings() == 0 && self.area_px2 == 0.0
    }
}

impl<'m> Interpenetration<'m> {
    /// The rest-pose work for `mesh` with one layer per triangle (`triangle_layer[t]` indexes
    /// `layer_names`): the layers' boundary edges, and the layer pairs that overlap at rest.
    ///
    /// Errors: [`MeshError::TriangleLayers`] when the list's length is not the triangle count or
    /// a layer index has no name.
    pub fn new(mesh: &'m Mesh, triangle_layer: &[usize], layer_names: Vec<String>) -> Result<Self> {
        let nt = mesh.triangle_count();
        if triangle_layer.len() != nt {
            return Err(MeshError::TriangleLayers {
                problem: TriangleLayersProblem::Count {
                    layers: triangle_layer.len(),
                    triangles: nt,
                },
            }
            .into());
        }
        if let Some((t, &l)) = triangle_layer
            .iter()
            .enumerate()
            .find(|(_, &l)| l >= layer_names.len() || l > u32::MAX as usize)
        {
            return Err(MeshError::TriangleLayers {
                problem: TriangleLayersProblem::UnnamedLayer {
                    triangle: t,
                    layer: l,
                    names: layer_names.len(),
                },
            }
            .into());
        }
        let triangle_layer: Vec<u32> = triangle_layer.iter().map(|&l| l as u32).collect();
        let edges = layer_boundary_edges(mesh, &triangle_layer);
        let mut me = Interpenetration {
            mesh,
            triangle_layer,
            layer_names,
            edges,
            allowed: HashSet::new(),
            rest_area: mesh.area(),
        };
        let rest = me.measure_pairs(mesh.vertices());
        me.allowed = rest
            .into_iter()
            .filter(|(_, s)| s.crossings > 0 || s.area > 0.0)
            .map(|(k, _)| k)
            .collect();
        Ok(me)
    }

    /// [`Interpenetration::new`] with the scene's layers: parts, a triangle in the part of
    /// its corner drawn first ([`crate::scene::Scene::triangle_parts`]).
    pub fn for_scene(scene: &'m Scene) -> Result<Self> {
        let layers = scene.triangle_parts();
        Interpenetration::new(&scene.mesh, &layers, scene.mesh.parts().to_vec())
    }

    /// Number of boundary edges over all layers.
    pub fn boundary_edge_count(&self) -> usize {
        self.edges.len()
    }

    /// The layer pairs that overlap at rest and are therefore not measured (names, lower
    /// index first; a name twice for a layer that covers itself at rest).
    pub fn rest_overlaps(&self) -> Vec<[String; 2]> {
        let mut v: Vec<(u32, u32)> = self.allowed.iter().copied().collect();
        v.sort_unstable();
        v.into_iter()
            .map(|(a, b)| [self.name(a), self.name(b)])
            .collect()
    }

    fn name(&self, layer: u32) -> String {
        self.layer_names[layer as usize].clone()
    }

    fn allowed(&self, a: u32, b: u32) -> bool {
        self.allowed.contains(&(a.min(b), a.max(b)))
    }

    /// Interpenetration of one pose: `posed` has one position per mesh vertex, from any
    /// deformation (a probe, a clip frame, correctives).
    ///
    /// Errors: [`MeshError::PosedPositions`] for a list of the wrong length,
    /// [`MeshError::NonFiniteCoordinate`] for a position that is not finite.
    pub fn measure(&self, posed: &[Point2<f64>]) -> Result<InterpenetrationReport> {
        self.check_posed(posed)?;
        let mut first = Vec::new();
        let (stats, total) = self.measure_core(posed, &mut first, 1);
        let mut report = InterpenetrationReport {
            self_crossings: 0,
            layer_crossings: 0,
            area_px2: total,
            area_pct: total / self.rest_area * 100.0,
            first_crossing: first.pop(),
            pairs: Vec::new(),
        };
        for ((a, b), s) in stats {
            if a == b {
                report.self_crossings += s.crossings;
            } else {
                report.layer_crossings += s.crossings;
            }
            report.pairs.push(LayerOverlap {
                layers: [self.name(a), self.name(b)],
                crossings: s.crossings,
                area: s.area,
            });
        }
        report.pairs.sort_by(|p, q| {
            q.area
                .total_cmp(&p.area)
                .then(q.crossings.cmp(&p.crossings))
        });
        Ok(report)
    }

    /// Every crossing pair of boundary edges that [`Interpenetration::measure`] counts, in
    /// sweep order (by the left end of the edges). Same errors.
    pub fn crossings(&self, posed: &[Point2<f64>]) -> Result<Vec<EdgeCrossing>> {
        self.check_posed(posed)?;
        let mut all = Vec::new();
        self.measure_core(posed, &mut all, usize::MAX);
        Ok(all)
    }

    fn check_posed(&self, posed: &[Point2<f64>]) -> Result<()> {
        let n = self.mesh.vertex_count();
        if posed.len() != n {
            return Err(MeshError::PosedPositions {
                given: posed.len(),
                vertices: n,
            }
            .into());
        }
        if let Some(v) = posed
            .iter()
            .position(|p| !p.x.is_finite() || !p.y.is_finite())
        {
            return Err(MeshError::NonFiniteCoordinate {
                vertex: v,
                x: posed[v].x,
                y: posed[v].y,
            }
            .into());
        }
        Ok(())
    }

    /// Per-pair statistics of the pairs that are not allowed.
    fn measure_pairs(&self, posed: &[Point2<f64>]) -> BTreeMap<(u32, u32), PairStat> {
        self.measure_core(posed, &mut Vec::new(), 0).0
    }

    fn measure_core(
        &self,
        posed: &[Point2<f64>],
        list: &mut Vec<EdgeCrossing>,
        limit: usize,
    ) -> (BTreeMap<(u32, u32), PairStat>, f64) {
        let segments = self.segments(posed);
        let ends: Vec<[Point2<f64>; 2]> = segments.iter().map(|s| [s.lo, s.hi]).collect();
        // Every proper crossing of two edges is an event of the area sweep; crossings of two
        // boundary edges of layers that may not overlap are also reported.
        let mut event_ys = Vec::new();
        let mut stats: BTreeMap<(u32, u32), PairStat> = BTreeMap::new();
        let mut found: Vec<((f64, usize, f64, usize), EdgeCrossing)> = Vec::new();
        bbox_overlapping_pairs(&ends, |i, j| {
            let (s, t) = (&segments[i], &segments[j]);
            let Some(p) = Segment::new(s.lo, s.hi).proper_crossing(&Segment::new(t.lo, t.hi))
            else {
                return;
            };
            event_ys.push(p.y);
            if let (Some(e), Some(f)) = (s.edge, t.edge) {
                let (la, lb) = (s.layer, t.layer);
                if !self.allowed(la, lb) {
                    stats.entry((la.min(lb), la.max(lb))).or_default().crossings += 1;
                    if limit > 0 {
                        // Listed in sweep order: by the left end of the edge further left.
                        let left = |k: usize| ends[k][0].x.min(ends[k][1].x);
                        let (first, second) = if (left(j), j) < (left(i), i) {
                            (j, i)
                        } else {
                            (i, j)
                        };
                        let (e, f) = if first == i { (e, f) } else { (f, e) };
                        let (la, lb) = (segments[first].layer, segments[second].layer);
                        let (e, f) = (self.edges[e as usize], self.edges[f as usize]);
                        found.push((
                            (left(first), first, left(second), second),
                            EdgeCrossing {
                                layers: [self.name(la), self.name(lb)],
                                edges: [[e.a as usize, e.b as usize], [f.a as usize, f.b as usize]],
                                point: [p.x, p.y],
                            },
                        ));
                    }
                }
            }
        });
        found.sort_by(|(p, _), (q, _)| {
            (p.0.total_cmp(&q.0))
                .then(p.1.cmp(&q.1))
                .then(p.2.total_cmp(&q.2))
                .then(p.3.cmp(&q.3))
        });
        list.extend(found.into_iter().take(limit).map(|f| f.1));
        let total = self.sweep_area(&segments, event_ys, &mut stats);
        (stats, total)
    }

    /// The sweep's edges: every boundary edge (weight 1) and, reversed, every edge of a
    /// flipped triangle (weight 2), so that the winding of a layer's edges is its `c_L`.
    /// Edges two flipped triangles of one layer share cancel and are left out.
    fn segments(&self, posed: &[Point2<f64>]) -> Vec<SweepEdge> {
        let tris = self.mesh.triangles();
        let flipped: Vec<usize> = (0..tris.len())
            .into_par_iter()
            .filter(|&t| {
                let [a, b, c] = tris[t];
                signed_area2(&posed[a], &posed[b], &posed[c]) < 0.0
            })
            .collect();
        let mut out: Vec<SweepEdge> = self
            .edges
            .iter()
            .enumerate()
            .map(|(k, e)| {
                SweepEdge::new(
                    posed[e.a as usize],
                    posed[e.b as usize],
                    e.layer,
                    1,
                    Some(k as u32),
                )
            })
            .collect();
        // (layer, low vertex, high vertex) -> signed multiplicity along low -> high.
        let mut half: Vec<((u32, u32, u32), i32)> = Vec::with_capacity(3 * flipped.len());
        for &t in &flipped {
            let tri = tris[t];
            let layer = self.triangle_layer[t];
            for k in 0..3 {
                // Reversed: the clockwise triangle walked counter-clockwise.
                let (a, b) = (tri[(k + 1) % 3] as u32, tri[k] as u32);
                let key = (layer, a.min(b), a.max(b));
                half.push((key, if a < b { 1 } else { -1 }));
            }
        }
        half.sort_unstable_by_key(|h| h.0);
        let mut i = 0;
        while i < half.len() {
            let key = half[i].0;
            let mut m = 0;
            while i < half.len() && half[i].0 == key {
                m += half[i].1;
                i += 1;
            }
            let (layer, lo, hi) = key;
            let (a, b) = if m > 0 { (lo, hi) } else { (hi, lo) };
            for _ in 0..m.abs() {
                out.push(SweepEdge::new(
                    posed[a as usize],
                    posed[b as usize],
                    layer,
                    2,
                    None,
                ));
            }
        }
        out
    }

    /// The interpenetrated area by a scanline sweep (see the module docs), adding each
    /// offending pair's area to `stats`.
    fn sweep_area(
        &self,
        segments: &[SweepEdge],
        mut ys: Vec<f64>,
        stats: &mut BTreeMap<(u32, u32), PairStat>,
    ) -> f64 {
        let order = sweep_order(segments, &mut ys);
        let mut next = 0;
        let mut active: Vec<usize> = Vec::new();
        let mut hits: Vec<(f64, u32, i32, usize)> = Vec::new();
        let mut state: Vec<(u32, i32)> = Vec::new();
        let mut offending: Vec<(u32, u32)> = Vec::new();
        let mut total = 0.0;
        for w in ys.windows(2) {
            let (y0, y1) = (w[0], w[1]);
            // No endpoint lies strictly between y0 and y1: an edge is active at the middle
            // iff it starts at or below y0 and ends at or above y1.
            while next < order.len() && segments[order[next]].lo.y <= y0 {
                active.push(order[next]);
                next += 1;
            }
            active.retain(|&i| segments[i].hi.y >= y1);
            if active.len() < 2 {
                continue;
            }
            let ym = 0.5 * (y0 + y1);
            let h = y1 - y0;
            hits.clear();
            hits.extend(active.iter().map(|&i| {
                let s = &segments[i];
                (s.x_at(ym), s.layer, s.delta, i)
            }));
            // `active` keeps the previous slab's order by x, which changes only where edges
            // cross (every crossing is an event) or start: nearly sorted, so insertion sort
            // costs about the new edges' moves instead of a full sort per slab.
            insertion_sort_by_x(&mut hits);
            active.clear();
            active.extend(hits.iter().map(|h| h.3));
            state.clear();
            let mut k = 0;
            while k < hits.len() {
                let x = hits[k].0;
                while k < hits.len() && hits[k].0 == x {
                    let (_, layer, delta, _) = hits[k];
                    match state.iter_mut().find(|s| s.0 == layer) {
                        Some(s) => s.1 += delta,
                        None => state.push((layer, delta)),
                    }
                    k += 1;
                }
                if k == hits.len() {
                    break;
                }
                let len = hits[k].0 - x;
                if len <= CLOSED {
                    continue;
                }
                self.offending_pairs(&state, &mut offending);
                if !offending.is_empty() {
                    total += len * h;
                    for &key in &offending {
                        stats.entry(key).or_default().area += len * h;
                    }
                }
            }
        }
        total
    }

    /// Replaces `offending` with the pairs of layers (ascending within a pair) that
    /// interpenetrate where `state` holds each layer's cover count `c_L` (module docs): a
    /// layer covering twice, or two layers covering at once, the pair not allowed.
    fn offending_pairs(&self, state: &[(u32, i32)], offending: &mut Vec<(u32, u32)>) {
        offending.clear();
        for (n, &(a, ca)) in state.iter().enumerate() {
            if ca >= 2 && !self.allowed(a, a) {
                offending.push((a, a));
            }
            if ca >= 1 {
                for &(b, cb) in &state[n + 1..] {
                    if cb >= 1 && !self.allowed(a, b) {
                        offending.push((a.min(b), a.max(b)));
                    }
                }
            }
        }
    }
}

/// The sweep's edges that are not horizontal, by their low end's y; adds their ends' y to
/// the slab boundaries `ys`, which it sorts and dedups.
fn sweep_order(segments: &[SweepEdge], ys: &mut Vec<f64>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..segments.len())
        .filter(|&i| segments[i].lo.y < segments[i].hi.y)
        .collect();
    for &i in &order {
        ys.push(segments[i].lo.y);
        ys.push(segments[i].hi.y);
    }
    ys.sort_unstable_by(f64::total_cmp);
    ys.dedup();
    order.sort_unstable_by(|&p, &q| segments[p].lo.y.total_cmp(&segments[q].lo.y));
    order
}

/// Sorts nearly sorted scanline hits by x (stable; linear when already sorted).
fn insertion_sort_by_x(hits: &mut [(f64, u32, i32, usize)]) {
    for i in 1..hits.len() {
        let mut j = i;
        while j > 0 && hits[j - 1].0.total_cmp(&hits[j].0).is_gt() {
            hits.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// Crossings and area of one layer pair.
#[derive(Debug, Clone, Copy, Default)]
struct PairStat {
    crossings: usize,
    area: f64,
}

/// An edge of the sweep: its ends ordered by y (then x), its layer, and the change of the
/// layer's cover count when a scanline crosses it from left to right.
#[derive(Debug, Clone, Copy)]
struct SweepEdge {
    lo: Point2<f64>,
    hi: Point2<f64>,
    layer: u32,
    delta: i32,
    /// Index of the boundary edge (`None` for a flipped triangle's edge).
    edge: Option<u32>,
}

impl SweepEdge {
    fn new(a: Point2<f64>, b: Point2<f64>, layer: u32, weight: i32, edge: Option<u32>) -> Self {
        // The region lies left of a -> b: an edge running down is entered from the left.
        let down = (a.y, a.x) > (b.y, b.x);
        let (lo, hi) = if down { (b, a) } else { (a, b) };
        SweepEdge {
            lo,
            hi,
            layer,
            delta: if down { weight } else { -weight },
            edge,
        }
    }

    /// The x of the edge at height `y` (between its ends). Computed from the ends in a fixed
    /// order, so one mesh edge in two layers' outlines gives the same x.
    #[inline]
    fn x_at(&self, y: f64) -> f64 {
        self.lo.x + (y - self.lo.y) / (self.hi.y - self.lo.y) * (self.hi.x - self.lo.x)
    }
}

/// Boundary edges of every layer, directed as in their triangle: a triangle edge whose twin
/// half-edge is missing or in a triangle of another layer. The twin is found through the
/// mesh's CSR adjacency (one slot per directed edge), without hashing.
fn layer_boundary_edges(mesh: &Mesh, triangle_layer: &[u32]) -> Vec<BoundaryEdge> {
    let topo = mesh.topology();
    let (offsets, neighbors) = (topo.csr_offsets(), topo.csr_neighbors());
    let slot = |a: usize, b: usize| -> Option<usize> {
        let row = &neighbors[offsets[a]..offsets[a + 1]];
        row.binary_search(&b).ok().map(|k| offsets[a] + k)
    };
    let tris = mesh.triangles();
    const NONE: u32 = u32::MAX;
    let mut owner = vec![NONE; neighbors.len()];
    for (t, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            if let Some(s) = slot(tri[k], tri[(k + 1) % 3]) {
                owner[s] = t as u32;
            }
        }
    }
    let mut out = Vec::new();
    for (t, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            let twin = slot(b, a).map_or(NONE, |s| owner[s]);
            if twin == NONE || triangle_layer[twin as usize] != triangle_layer[t] {
                out.push(BoundaryEdge {
                    a: a as u32,
                    b: b as u32,
                    layer: triangle_layer[t],
                });
            }
        }
    }
    out
}

/// Interpenetration of `scene` posed with `posed` (one position per vertex): the rest-pose
/// work and one measure. To measure many poses of one scene, build [`Interpenetration`] once.
pub fn interpenetration(scene: &Scene, posed: &[Point2<f64>]) -> Result<InterpenetrationReport> {
    Interpenetration::for_scene(scene)?.measure(posed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    fn p(x: f64, y: f64) -> Point2<f64> {
        Point2::new(x, y)
    }

    /// Two unit squares side by side (a 2 x 1 strip), parts "a" (left) and "b" (right).
    fn strip() -> Mesh {
        let v = vec![
            p(0., 0.),
            p(1., 0.),
            p(2., 0.),
            p(0., 1.),
            p(1., 1.),
            p(2., 1.),
        ];
        let t = vec![[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4]];
        Mesh::with_parts(v, t, vec!["a".into(), "b".into()], vec![0, 0, 1, 0, 0, 1]).unwrap()
    }

    #[test]
    fn rest_is_clean_and_a_folded_square_covers_its_neighbour() {
        let mesh = strip();
        let ip = Interpenetration::new(&mesh, &[0, 0, 1, 1], vec!["a".into(), "b".into()]).unwrap();
        // Outline of a: 3 edges + the shared edge; of b: 3 + the shared edge.
        assert_eq!(ip.boundary_edge_count(), 8);
        assert!(ip.rest_overlaps().is_empty());
        assert!(ip.measure(mesh.vertices()).unwrap().is_clean());
        // Fold the right square over the left one (mirror about x = 1): b now covers a
        // exactly, its triangles flipped. c_a = 1, c_b = 1 on [0, 1] x [0, 1]: area 1.
        let mut posed = mesh.vertices().to_vec();
        posed[2] = p(0., 0.);
        posed[5] = p(0., 1.);
        let r = ip.measure(&posed).unwrap();
        assert!((r.area_px2 - 1.0).abs() < 1e-12, "{r:?}");
        assert_eq!(r.pairs.len(), 1);
        assert_eq!(r.pairs[0].layers, ["a".to_string(), "b".to_string()]);
        // Folded a little less (to x = 0.5): b covers [0.5, 1] x [0, 1], no edge crosses.
        posed[2] = p(0.5, 0.);
        posed[5] = p(0.5, 1.);
        let r = ip.measure(&posed).unwrap();
        assert!((r.area_px2 - 0.5).abs() < 1e-12, "{r:?}");
        assert_eq!(r.crossings(), 0);
        // Rotated about (1, 0.5) by 200 degrees: b's outline crosses a's.
        let (s, c) = 200f64.to_radians().sin_cos();
        let rot = |q: Point2<f64>| {
            p(
                1.0 + c * (q.x - 1.0) - s * (q.y - 0.5),
                0.5 + s * (q.x - 1.0) + c * (q.y - 0.5),
            )
        };
        let mut posed = mesh.vertices().to_vec();
        posed[2] = rot(posed[2]);
        posed[5] = rot(posed[5]);
        let r = ip.measure(&posed).unwrap();
        assert!(r.layer_crossings > 0 && r.area_px2 > 0.5, "{r:?}");
        assert!(r.first_crossing.is_some());
    }

    #[test]
    fn one_layer_folded_onto_itself_counts_self_overlap() {
        let mesh = strip();
        let ip = Interpenetration::new(&mesh, &[0; 4], vec!["body".into()]).unwrap();
        assert_eq!(ip.boundary_edge_count(), 6);
        let mut posed = mesh.vertices().to_vec();
        posed[2] = p(0.25, 0.);
        posed[5] = p(0.25, 1.);
        let r = ip.measure(&posed).unwrap();
        assert!((r.area_px2 - 0.75).abs() < 1e-12, "{r:?}");
        assert_eq!(r.pairs[0].layers, ["body".to_string(), "body".to_string()]);
        assert!((r.area_pct - 37.5).abs() < 1e-9);
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let mesh = strip();
        assert!(matches!(
            Interpenetration::new(&mesh, &[0, 0, 1], vec!["a".into(), "b".into()]),
            Err(Error::Mesh(MeshError::TriangleLayers { .. }))
        ));
        assert!(matches!(
            Interpenetration::new(&mesh, &[0, 0, 1, 2], vec!["a".into(), "b".into()]),
            Err(Error::Mesh(MeshError::TriangleLayers { .. }))
        ));
        let ip = Interpenetration::new(&mesh, &[0; 4], vec!["body".into()]).unwrap();
        assert!(matches!(
            ip.measure(&mesh.vertices()[..5]),
            Err(Error::Mesh(MeshError::PosedPositions {
                given: 5,
                vertices: 6
            }))
        ));
        let mut posed = mesh.vertices().to_vec();
        posed[3].y = f64::NAN;
        assert!(matches!(
            ip.measure(&posed),
            Err(Error::Mesh(MeshError::NonFiniteCoordinate {
                vertex: 3,
                ..
            }))
        ));
    }

    #[test]
    fn layers_overlapping_at_rest_are_allowed() {
        // Two separate squares overlapping by half at rest.
        let v = vec![
            p(0., 0.),
            p(1., 0.),
            p(1., 1.),
            p(0., 1.),
            p(0.5, 0.2),
            p(1.5, 0.2),
            p(1.5, 1.2),
            p(0.5, 1.2),
        ];
        let t = vec![[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]];
        let mesh = Mesh::with_parts(
            v,
            t,
            vec!["a".into(), "b".into()],
            vec![0, 0, 0, 0, 1, 1, 1, 1],
        )
        .unwrap();
        let ip = Interpenetration::new(&mesh, &[0, 0, 1, 1], vec!["a".into(), "b".into()]).unwrap();
        assert_eq!(ip.rest_overlaps(), vec![["a".to_string(), "b".to_string()]]);
        assert!(ip.measure(mesh.vertices()).unwrap().is_clean());
        // Without the allowance the same rest pose overlaps by 0.5 x 0.8 with 2 crossings.
        let one = Interpenetration::new(&mesh, &[0, 0, 0, 0], vec!["ab".into()]).unwrap();
        assert_eq!(
            one.rest_overlaps(),
            vec![["ab".to_string(), "ab".to_string()]]
        );
        let stats = one.measure_pairs(mesh.vertices());
        assert!(stats.is_empty());
        let none = Interpenetration {
            allowed: HashSet::new(),
            ..one.clone()
        };
        let r = none.measure(mesh.vertices()).unwrap();
        assert!((r.area_px2 - 0.4).abs() < 1e-12, "{r:?}");
        assert_eq!(r.self_crossings, 2);
    }
}
