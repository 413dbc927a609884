//! 2D primitives written once: orientation, segments (distance, crossing, contact), closed
//! loops (area, point in polygon) and bounding boxes.
//!
//! Meshing, sprite tracing, visibility, the solvers and the metrics all use these; nothing
//! here knows about meshes, bones or files. Every formula is written so that mirroring the
//! input (x -> -x) mirrors the result exactly, bit for bit: the mirror-symmetry tests rely on
//! it.

use nalgebra::Point2;

/// Twice the signed area of triangle (a, b, c): positive when counter-clockwise, i.e. when
/// `c` lies left of the directed line a -> b.
#[inline]
pub fn signed_area2(a: &Point2<f64>, b: &Point2<f64>, c: &Point2<f64>) -> f64 {
    (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
}

/// A segment with what distance queries need precomputed (bones are segments from head to
/// tail).
#[derive(Debug, Clone, Copy)]
pub struct Segment {
    /// Start.
    pub a: Point2<f64>,
    /// End.
    pub b: Point2<f64>,
    /// `1 / |b - a|^2`, or 0 for a zero-length segment (which then acts as a point).
    inv_len2: f64,
}

impl Segment {
    /// The segment from `a` to `b`.
    pub fn new(a: Point2<f64>, b: Point2<f64>) -> Self {
        let len2 = (b - a).norm_squared();
        Segment {
            a,
            b,
            inv_len2: if len2 > 0.0 { 1.0 / len2 } else { 0.0 },
        }
    }

    /// Parameter in `[0, 1]` of the point of the segment closest to `p`.
    #[inline]
    pub fn closest_parameter(&self, p: &Point2<f64>) -> f64 {
        let d = self.b - self.a;
        ((p - self.a).dot(&d) * self.inv_len2).clamp(0.0, 1.0)
    }

    /// The point of the segment closest to `p`.
    #[inline]
    pub fn closest_point(&self, p: &Point2<f64>) -> Point2<f64> {
        let t = self.closest_parameter(p);
        self.a + (self.b - self.a) * t
    }

    /// Distance from `p` to the segment.
    #[inline]
    pub fn distance(&self, p: &Point2<f64>) -> f64 {
        (p - self.closest_point(p)).norm()
    }

    /// The point where this segment and `other` cross at an interior point of both (a proper
    /// crossing), if they do.
    pub fn proper_crossing(&self, other: &Segment) -> Option<Point2<f64>> {
        let (s, t) = ([self.a, self.b], [other.a, other.b]);
        let (d, e) = (s[1] - s[0], t[1] - t[0]);
        let (s0, s1) = (
            signed_area2(&t[0], &t[1], &s[0]),
            signed_area2(&t[0], &t[1], &s[1]),
        );
        let (t0, t1) = (
            signed_area2(&s[0], &s[1], &t[0]),
            signed_area2(&s[0], &s[1], &t[1]),
        );
        let proper = s0 * s1 < 0.0 && t0 * t1 < 0.0;
        proper.then(|| s[0] + d * ((t[0] - s[0]).perp(&e) / d.perp(&e)))
    }
}

/// Whether segments ab and cd share any point other than a common endpoint (a crossing, a
/// touch of an endpoint on the other segment, or a collinear overlap).
pub fn improper_contact(a: Point2<f64>, b: Point2<f64>, c: Point2<f64>, d: Point2<f64>) -> bool {
    let (d1, d2) = (signed_area2(&a, &b, &c), signed_area2(&a, &b, &d));
    let (d3, d4) = (signed_area2(&c, &d, &a), signed_area2(&c, &d, &b));
    let shares_endpoint = a == c || a == d || b == c || b == d;
    if d1 == 0.0 && d2 == 0.0 {
        // Collinear: any overlap longer than a single shared endpoint is improper.
        let dir = b - a;
        let t = |p: Point2<f64>| (p - a).dot(&dir);
        let (t0, t1) = (0.0_f64, dir.dot(&dir));
        let (u0, u1) = {
            let (x, y) = (t(c), t(d));
            (x.min(y), x.max(y))
        };
        let lo = t0.max(u0);
        let hi = t1.min(u1);
        return hi > lo || (hi == lo && !shares_endpoint);
    }
    let crosses = (d1 > 0.0) != (d2 > 0.0) && (d3 > 0.0) != (d4 > 0.0);
    let proper = crosses && d1 != 0.0 && d2 != 0.0 && d3 != 0.0 && d4 != 0.0;
    if proper {
        return true;
    }
    // Touching: an endpoint of one lies on the other.
    let on = |p: Point2<f64>, s: Point2<f64>, e: Point2<f64>| {
        signed_area2(&s, &e, &p) == 0.0
            && p.x >= s.x.min(e.x)
            && p.x <= s.x.max(e.x)
            && p.y >= s.y.min(e.y)
            && p.y <= s.y.max(e.y)
    };
    let touches = on(c, a, b) || on(d, a, b) || on(a, c, d) || on(b, c, d);
    // Non-collinear edges that touch only at a shared endpoint are fine.
    touches && !shares_endpoint
}

/// Pairs `(i, j)`, `i < j`, of `edges` that share any point other than a common endpoint;
/// with `first_only`, at most one pair. A sweep along x ([`x_overlapping_pairs`]): only edges
/// whose x-ranges overlap are compared.
pub fn touching_edge_pairs(edges: &[[Point2<f64>; 2]], first_only: bool) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    x_overlapping_pairs(edges, |i, j| {
        let ([a, b], [c, d]) = (edges[i], edges[j]);
        if improper_contact(a, b, c, d) {
            pairs.push((i.min(j), i.max(j)));
            return !first_only;
        }
        true
    });
    pairs
}

/// The sweep along x behind [`touching_edge_pairs`]: calls `visit(i, j)` for every pair of
/// `edges` whose x-ranges overlap (each pair once, `i` the one starting further left), until
/// `visit` returns false. Edges are compared only with those starting within their own
/// x-range, so an outline of short edges costs about `edges x (edges a vertical line meets)`.
pub fn x_overlapping_pairs(
    edges: &[[Point2<f64>; 2]],
    mut visit: impl FnMut(usize, usize) -> bool,
) {
    let lo = |i: usize| edges[i][0].x.min(edges[i][1].x);
    let hi = |i: usize| edges[i][0].x.max(edges[i][1].x);
    let mut order: Vec<usize> = (0..edges.len()).collect();
    order.sort_by(|&p, &q| lo(p).total_cmp(&lo(q)));
    for (n, &i) in order.iter().enumerate() {
        for &j in &order[n + 1..] {
            if lo(j) > hi(i) {
                break;
            }
            if !visit(i, j) {
                return;
            }
        }
    }
}

/// Calls `visit(i, j)` (`i < j`) once for every pair of `edges` whose bounding boxes
/// overlap (touching counts), in no particular order. A uniform grid of cells about twice
/// the median edge extent: each edge is listed in the cells its box covers and a pair is
/// visited in the one cell holding the low corner of the two boxes' intersection, so an
/// outline of short edges costs about linear time wherever its edges lie (the sweep of
/// [`x_overlapping_pairs`] compares every edge with all the edges a vertical line through
/// it meets: 10^7 pairs for the long vertical sides of a 1M-vertex mesh). Edges covering
/// more than [`GRID_MAX_CELLS_PER_EDGE`] cells are compared with every edge directly.
pub fn bbox_overlapping_pairs(edges: &[[Point2<f64>; 2]], mut visit: impl FnMut(usize, usize)) {
    let n = edges.len();
    if n < 2 {
        return;
    }
    let boxes: Vec<[f64; 4]> = edges
        .iter()
        .map(|[a, b]| [a.x.min(b.x), a.y.min(b.y), a.x.max(b.x), a.y.max(b.y)])
        .collect();
    let [x0, y0, x1, y1] = union_box(&boxes);
    let h = grid_cell_size(&boxes, [x0, y0, x1, y1]);
    if !h.is_finite() || h <= 0.0 {
        // Every edge is a point at one place (or coordinates are not finite): compare all.
        for i in 0..n {
            for j in i + 1..n {
                if boxes_overlap(&boxes[i], &boxes[j]) {
                    visit(i, j);
                }
            }
        }
        return;
    }
    let grid = Grid {
        x0,
        y0,
        h,
        cols: (((x1 - x0) / h).floor() as usize).saturating_add(1),
    };
    let (mut entries, big) = grid.entries(&boxes);
    entries.sort_unstable();
    grid.visit_cell_pairs(&boxes, &entries, &mut visit);
    visit_big_pairs(&boxes, &big, &mut visit);
}

/// Whether two boxes `[x0, y0, x1, y1]` overlap (touching counts): the pair test of
/// [`bbox_overlapping_pairs`].
#[inline]
fn boxes_overlap(p: &[f64; 4], q: &[f64; 4]) -> bool {
    p[0] <= q[2] && q[0] <= p[2] && p[1] <= q[3] && q[1] <= p[3]
}

/// The box `[x0, y0, x1, y1]` around all `boxes`: the extent the grid of
/// [`bbox_overlapping_pairs`] covers.
fn union_box(boxes: &[[f64; 4]]) -> [f64; 4] {
    let (mut x0, mut y0, mut x1, mut y1) = (
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    );
    for b in boxes {
        x0 = x0.min(b[0]);
        y0 = y0.min(b[1]);
        x1 = x1.max(b[2]);
        y1 = y1.max(b[3]);
    }
    [x0, y0, x1, y1]
}

/// The side of the grid cells of [`bbox_overlapping_pairs`] for `boxes` within `bounds`:
/// about twice the median edge extent, but never more cells than 4 per edge (not finite
/// or zero when every edge is a point at one place).
fn grid_cell_size(boxes: &[[f64; 4]], [x0, y0, x1, y1]: [f64; 4]) -> f64 {
    let n = boxes.len();
    let mut extents: Vec<f64> = boxes
        .iter()
        .map(|b| (b[2] - b[0]).max(b[3] - b[1]))
        .collect();
    let mid = extents.len() / 2;
    let median = *extents.select_nth_unstable_by(mid, f64::total_cmp).1;
    // Cells about twice the median edge, but never more cells than 4 per edge.
    let area_cell = ((x1 - x0).max(f64::MIN_POSITIVE) * (y1 - y0).max(f64::MIN_POSITIVE)
        / (4.0 * n as f64))
        .sqrt();
    let span = (x1 - x0).max(y1 - y0) / (4.0 * n as f64);
    (2.0 * median).max(area_cell).max(span)
}

/// The uniform grid of [`bbox_overlapping_pairs`]: cells of side `h` from `(x0, y0)`,
/// `cols` to a row.
struct Grid {
    x0: f64,
    y0: f64,
    h: f64,
    cols: usize,
}

impl Grid {
    /// The (column, row) of the cell holding `(x, y)`.
    #[inline]
    fn cell(&self, x: f64, y: f64) -> (usize, usize) {
        (
            ((x - self.x0) / self.h) as usize,
            ((y - self.y0) / self.h) as usize,
        )
    }

    /// Lists every box in the cells it covers, as (cell id, box index) entries, unsorted;
    /// the boxes covering more than [`GRID_MAX_CELLS_PER_EDGE`] cells are returned apart.
    fn entries(&self, boxes: &[[f64; 4]]) -> (Vec<(usize, u32)>, Vec<usize>) {
        let mut entries: Vec<(usize, u32)> = Vec::with_capacity(2 * boxes.len());
        let mut big: Vec<usize> = Vec::new();
        for (i, b) in boxes.iter().enumerate() {
            let (c0, r0) = self.cell(b[0], b[1]);
            let (c1, r1) = self.cell(b[2], b[3]);
            if (c1 - c0 + 1).saturating_mul(r1 - r0 + 1) > GRID_MAX_CELLS_PER_EDGE {
                big.push(i);
                continue;
            }
            for r in r0..=r1 {
                for c in c0..=c1 {
                    entries.push((r * self.cols + c, i as u32));
                }
            }
        }
        (entries, big)
    }

    /// Visits the overlapping pairs listed together in a cell of the sorted `entries`,
    /// each in the one cell holding the low corner of the two boxes' intersection, so
    /// that a pair sharing several cells is visited once.
    fn visit_cell_pairs(
        &self,
        boxes: &[[f64; 4]],
        entries: &[(usize, u32)],
        visit: &mut impl FnMut(usize, usize),
    ) {
        let mut k = 0;
        while k < entries.len() {
            let id = entries[k].0;
            let mut end = k;
            while end < entries.len() && entries[end].0 == id {
                end += 1;
            }
            for a in k..end {
                let i = entries[a].1 as usize;
                for e in &entries[a + 1..end] {
                    let j = e.1 as usize;
                    let (p, q) = (&boxes[i], &boxes[j]);
                    if !boxes_overlap(p, q) {
                        continue;
                    }
                    let (c, r) = self.cell(p[0].max(q[0]), p[1].max(q[1]));
                    if r * self.cols + c == id {
                        visit(i.min(j), i.max(j));
                    }
                }
            }
            k = end;
        }
    }
}

/// Visits the pairs of the edges too long for the grid (`big`) with every edge they
/// overlap, each pair of two long ones once.
fn visit_big_pairs(boxes: &[[f64; 4]], big: &[usize], visit: &mut impl FnMut(usize, usize)) {
    let n = boxes.len();
    let mut is_big = vec![false; n];
    big.iter().for_each(|&i| is_big[i] = true);
    for &i in big {
        for j in 0..n {
            if j != i && (!is_big[j] || j > i) && boxes_overlap(&boxes[i], &boxes[j]) {
                visit(i.min(j), i.max(j));
            }
        }
    }
}

/// Most grid cells an edge is listed in by [`bbox_overlapping_pairs`] before it is compared
/// with every edge instead.
pub const GRID_MAX_CELLS_PER_EDGE: usize = 64;

/// The edges of a closed loop (the last point connects back to the first).
pub fn loop_edges(l: &[Point2<f64>]) -> impl Iterator<Item = (Point2<f64>, Point2<f64>)> + '_ {
    (0..l.len()).map(move |i| (l[i], l[(i + 1) % l.len()]))
}

/// Shoelace area of one closed loop (counter-clockwise positive).
pub fn loop_area(l: &[Point2<f64>]) -> f64 {
    loop_edges(l)
        .map(|(a, b)| a.x * b.y - b.x * a.y)
        .sum::<f64>()
        * 0.5
}

/// Whether the edge a -> b crosses the horizontal ray from `p` towards +x (the even-odd
/// rule's step; half-open in y so a vertex on the ray counts once).
#[inline]
pub fn crosses_ray(a: Point2<f64>, b: Point2<f64>, p: Point2<f64>) -> bool {
    if (a.y > p.y) != (b.y > p.y) {
        let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
        p.x < x
    } else {
        false
    }
}

/// Even-odd point-in-polygon test over several closed loops (holes included by parity;
/// points exactly on an edge may go either way).
pub fn even_odd_contains(loops: &[Vec<Point2<f64>>], p: Point2<f64>) -> bool {
    let mut inside = false;
    for l in loops {
        for (a, b) in loop_edges(l) {
            if crosses_ray(a, b, p) {
                inside = !inside;
            }
        }
    }
    inside
}

/// [`even_odd_contains`] for many queries: the loop edges bucketed into horizontal bands, so
/// a query tests only the edges whose y-range meets its band instead of every edge. Answers
/// exactly as [`even_odd_contains`] does (the same [`crosses_ray`] on the same edges).
///
/// With as many bands as edges (at most 65 536), building takes time and memory about
/// `edges + bands * (how often a horizontal line crosses the loops)`, and a query about that
/// crossing count: near-linear for traced sprites, where a full scan per query was quadratic
/// (a 300 x 300 checkerboard traced to 45 000 loops took 54 s to mesh).
#[derive(Debug, Clone)]
pub struct EvenOddIndex {
    y0: f64,
    band_height: f64,
    /// Edges (a, b) of each band, in band order.
    bands: Vec<Vec<(Point2<f64>, Point2<f64>)>>,
}

impl EvenOddIndex {
    /// Indexes the edges of `loops` (closed; holes by parity).
    pub fn new(loops: &[Vec<Point2<f64>>]) -> Self {
        // Horizontal edges never cross a horizontal ray.
        let edges: Vec<(Point2<f64>, Point2<f64>)> = loops
            .iter()
            .flat_map(|l| loop_edges(l))
            .filter(|(a, b)| a.y != b.y)
            .collect();
        let (y0, y1) = edges
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (a, b)| {
                (lo.min(a.y).min(b.y), hi.max(a.y).max(b.y))
            });
        let n_bands = edges.len().clamp(1, 1 << 16);
        let band_height = ((y1 - y0) / n_bands as f64).max(f64::MIN_POSITIVE);
        let mut index = EvenOddIndex {
            y0,
            band_height,
            bands: vec![Vec::new(); if edges.is_empty() { 0 } else { n_bands }],
        };
        for (a, b) in edges {
            let (lo, hi) = (index.band(a.y.min(b.y)), index.band(a.y.max(b.y)));
            for band in &mut index.bands[lo..=hi] {
                band.push((a, b));
            }
        }
        index
    }

    fn band(&self, y: f64) -> usize {
        let k = ((y - self.y0) / self.band_height).floor();
        if k.is_nan() || k <= 0.0 {
            0
        } else {
            (k as usize).min(self.bands.len().saturating_sub(1))
        }
    }

    /// Whether `p` is inside (even-odd rule), exactly as [`even_odd_contains`] answers.
    pub fn contains(&self, p: Point2<f64>) -> bool {
        if self.bands.is_empty() || p.y.is_nan() || p.y < self.y0 {
            return false;
        }
        self.bands[self.band(p.y)]
            .iter()
            .filter(|(a, b)| crosses_ray(*a, *b, p))
            .count()
            % 2
            == 1
    }
}

/// An axis-aligned bounding box. Empty (`lo > hi`) until a point is added.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// Lower-left corner.
    pub lo: Point2<f64>,
    /// Upper-right corner.
    pub hi: Point2<f64>,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds::EMPTY
    }
}

impl Bounds {
    /// The box that contains nothing.
    pub const EMPTY: Bounds = Bounds {
        lo: Point2::new(f64::INFINITY, f64::INFINITY),
        hi: Point2::new(f64::NEG_INFINITY, f64::NEG_INFINITY),
    };

    /// The smallest box around `points` ([`Bounds::EMPTY`] for none).
    pub fn of<'a>(points: impl IntoIterator<Item = &'a Point2<f64>>) -> Self {
        let mut b = Bounds::EMPTY;
        for p in points {
            b.add(p);
        }
        b
    }

    /// Grows the box to contain `p`.
    #[inline]
    pub fn add(&mut self, p: &Point2<f64>) {
        self.lo.x = self.lo.x.min(p.x);
        self.lo.y = self.lo.y.min(p.y);
        self.hi.x = self.hi.x.max(p.x);
        self.hi.y = self.hi.y.max(p.y);
    }

    /// The smallest box containing both.
    pub fn union(&self, other: &Bounds) -> Bounds {
        Bounds {
            lo: self.lo.inf(&other.lo),
            hi: self.hi.sup(&other.hi),
        }
    }

    /// Whether the box contains no point.
    pub fn is_empty(&self) -> bool {
        !(self.lo.x <= self.hi.x && self.lo.y <= self.hi.y)
    }

    /// Width and height (0 for an empty box).
    pub fn size(&self) -> nalgebra::Vector2<f64> {
        if self.is_empty() {
            nalgebra::Vector2::zeros()
        } else {
            self.hi - self.lo
        }
    }

    /// Whether `p` is inside or on the box.
    pub fn contains(&self, p: &Point2<f64>) -> bool {
        p.x >= self.lo.x && p.x <= self.hi.x && p.y >= self.lo.y && p.y <= self.hi.y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: f64, y: f64) -> Point2<f64> {
        Point2::new(x, y)
    }

    #[test]
    fn the_banded_index_answers_as_the_full_scan() {
        // A checkerboard of unit squares (the tracer's worst case) plus a star with long
        // slanted edges, queried on a grid that hits vertices, edges and outside points.
        let mut loops: Vec<Vec<Point2<f64>>> = Vec::new();
        for i in 0..12 {
            for j in 0..12 {
                if (i + j) % 2 == 0 {
                    let (x, y) = (i as f64, j as f64);
                    loops.push(vec![p(x, y), p(x + 1., y), p(x + 1., y + 1.), p(x, y + 1.)]);
                }
            }
        }
        loops.push(
            (0..10)
                .map(|k| {
                    let a = k as f64 * std::f64::consts::PI / 5.0;
                    let r = if k % 2 == 0 { 9.0 } else { 3.0 };
                    p(6.0 + r * a.cos(), 6.0 + r * a.sin())
                })
                .collect(),
        );
        let index = EvenOddIndex::new(&loops);
        let mut inside = 0;
        for i in -10..=140 {
            for j in -10..=140 {
                let q = p(i as f64 * 0.1 - 0.3, j as f64 * 0.1 - 0.3);
                assert_eq!(index.contains(q), even_odd_contains(&loops, q), "{q}");
                inside += usize::from(index.contains(q));
            }
        }
        assert!(inside > 1000, "{inside}");
        assert!(!EvenOddIndex::new(&[]).contains(p(0., 0.)));
    }

    #[test]
    fn orientation_area_and_containment_of_a_unit_square() {
        assert_eq!(signed_area2(&p(0., 0.), &p(1., 0.), &p(0., 1.)), 1.0);
        assert_eq!(signed_area2(&p(0., 0.), &p(0., 1.), &p(1., 0.)), -1.0);
        let square = vec![p(0., 0.), p(2., 0.), p(2., 2.), p(0., 2.)];
        assert_eq!(loop_area(&square), 4.0);
        let hole = vec![p(0.5, 0.5), p(0.5, 1.5), p(1.5, 1.5), p(1.5, 0.5)];
        assert_eq!(loop_area(&hole), -1.0);
        let loops = vec![square, hole];
        assert!(even_odd_contains(&loops, p(0.25, 1.0)));
        assert!(!even_odd_contains(&loops, p(1.0, 1.0)));
        assert!(!even_odd_contains(&loops, p(3.0, 1.0)));
    }

    #[test]
    fn segment_distance_crossing_and_contact() {
        let s = Segment::new(p(0., 0.), p(4., 0.));
        assert_eq!(s.distance(&p(2., 3.)), 3.0);
        assert_eq!(s.distance(&p(7., 4.)), 5.0);
        assert_eq!(Segment::new(p(1., 1.), p(1., 1.)).distance(&p(4., 5.)), 5.0);
        let t = Segment::new(p(1., -1.), p(1., 3.));
        assert_eq!(s.proper_crossing(&t), Some(p(1., 0.)));
        // Touching at an endpoint is a contact but not a proper crossing.
        let u = Segment::new(p(2., 0.), p(2., 5.));
        assert_eq!(s.proper_crossing(&u), None);
        assert!(improper_contact(s.a, s.b, u.a, u.b));
        // Sharing an endpoint only is fine; a collinear overlap is not.
        assert!(!improper_contact(
            p(0., 0.),
            p(1., 0.),
            p(1., 0.),
            p(1., 1.)
        ));
        assert!(improper_contact(p(0., 0.), p(2., 0.), p(1., 0.), p(3., 0.)));
        let edges = [
            [p(0., 0.), p(4., 0.)],
            [p(1., -1.), p(1., 3.)],
            [p(9., 9.), p(9., 8.)],
        ];
        assert_eq!(touching_edge_pairs(&edges, false), vec![(0, 1)]);
    }

    #[test]
    fn bounds_grow_and_report_size() {
        let b = Bounds::of(&[p(1., 2.), p(-1., 5.), p(0., 0.)]);
        assert_eq!((b.lo, b.hi), (p(-1., 0.), p(1., 5.)));
        assert_eq!(b.size(), nalgebra::Vector2::new(2., 5.));
        assert!(Bounds::EMPTY.is_empty());
        assert_eq!(Bounds::EMPTY.size(), nalgebra::Vector2::zeros());
        assert!(b.contains(&p(0., 5.)) && !b.contains(&p(0., 5.1)));
    }
}

#[cfg(test)]
mod grid_pairs_tests {
    use super::*;

    /// The grid visits exactly the pairs whose boxes overlap, each once: seeded random short
    /// edges, some long ones (listed outside the grid), duplicates and points.
    #[test]
    fn grid_pairs_equal_brute_force() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for case in 0..20 {
            let mut edges = Vec::new();
            for k in 0..300 {
                let a = Point2::new(100.0 * next(), 40.0 * next());
                let len = if k % 37 == 0 { 80.0 } else { 3.0 };
                let b = Point2::new(a.x + len * (next() - 0.5), a.y + len * (next() - 0.5));
                edges.push([a, b]);
                if k % 50 == case % 50 {
                    edges.push([a, b]);
                    edges.push([a, a]);
                }
            }
            let overlap = |p: &[Point2<f64>; 2], q: &[Point2<f64>; 2]| {
                p[0].x.min(p[1].x) <= q[0].x.max(q[1].x)
                    && q[0].x.min(q[1].x) <= p[0].x.max(p[1].x)
                    && p[0].y.min(p[1].y) <= q[0].y.max(q[1].y)
                    && q[0].y.min(q[1].y) <= p[0].y.max(p[1].y)
            };
            let mut expected = Vec::new();
            for i in 0..edges.len() {
                for j in i + 1..edges.len() {
                    if overlap(&edges[i], &edges[j]) {
                        expected.push((i, j));
                    }
                }
            }
            let mut got = Vec::new();
            bbox_overlapping_pairs(&edges, |i, j| got.push((i, j)));
            got.sort_unstable();
            assert_eq!(got, expected, "case {case}");
        }
    }
}
