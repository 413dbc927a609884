//! A uniform bucket grid over triangles: which triangle covers a point, the closest
//! triangle within a radius, and how much of a segment triangles cover (the seam queries,
//! and the transfer of values between a mesh and its coarse copy).

use crate::geometry::{signed_area2, Segment};
use nalgebra::Point2;

/// Triangles (corner positions) bucketed by their bounding boxes grown by `pad`.
pub(crate) struct TriangleGrid {
    corners: Vec<[Point2<f64>; 3]>,
    /// Caller's id of every stored triangle.
    ids: Vec<usize>,
    origin: Point2<f64>,
    cell: f64,
    cols: usize,
    rows: usize,
    /// CSR buckets: triangles of cell `c` are `items[offsets[c]..offsets[c + 1]]`.
    offsets: Vec<usize>,
    items: Vec<u32>,
}

/// The closest point of a triangle to a query point.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Closest {
    /// The caller's id of the triangle.
    pub id: usize,
    /// Barycentric coordinates of the closest point (sum 1, all >= 0).
    pub bary: [f64; 3],
    /// Distance from the query point (0 inside).
    pub distance: f64,
}

/// Chords up to this long (px) are closed: what barycentric rounding leaves at rest.
const CLOSED: f64 = 1e-9;
/// Largest cell count per side; queries stay cheap and memory bounded for any input.
const MAX_CELLS_SIDE: usize = 2048;

impl TriangleGrid {
    /// Buckets `triangles` (caller id, corners); `pad` grows every box so that queries up to
    /// that radius only need the query point's own cell.
    pub(crate) fn new(triangles: Vec<(usize, [Point2<f64>; 3])>, pad: f64) -> TriangleGrid {
        let mut lo = Point2::new(f64::INFINITY, f64::INFINITY);
        let mut hi = Point2::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
        let mut edge_sum = 0.0;
        for (_, c) in &triangles {
            for k in 0..3 {
                lo = lo.inf(&c[k]);
                hi = hi.sup(&c[k]);
                edge_sum += (c[(k + 1) % 3] - c[k]).norm();
            }
        }
        let n = triangles.len().max(1);
        if triangles.is_empty() {
            lo = Point2::origin();
            hi = Point2::origin();
        }
        lo -= nalgebra::Vector2::repeat(pad);
        hi += nalgebra::Vector2::repeat(pad);
        let span = (hi - lo).max().max(1e-9);
        // About one mean edge a cell, within the side limit.
        let cell = (edge_sum / (3 * n) as f64)
            .max(span / MAX_CELLS_SIDE as f64)
            .max(1e-9);
        let cols = (((hi.x - lo.x) / cell).floor() as usize + 1).min(MAX_CELLS_SIDE + 1);
        let rows = (((hi.y - lo.y) / cell).floor() as usize + 1).min(MAX_CELLS_SIDE + 1);
        let mut grid = TriangleGrid {
            corners: triangles.iter().map(|t| t.1).collect(),
            ids: triangles.iter().map(|t| t.0).collect(),
            origin: lo,
            cell,
            cols,
            rows,
            offsets: vec![0; cols * rows + 1],
            items: Vec::new(),
        };
        let ranges: Vec<[usize; 4]> = grid
            .corners
            .iter()
            .map(|c| {
                let (mut a, mut b) = (c[0], c[0]);
                for p in c {
                    a = a.inf(p);
                    b = b.sup(p);
                }
                let (c0, r0) = grid.cell_of(a - nalgebra::Vector2::repeat(pad));
                let (c1, r1) = grid.cell_of(b + nalgebra::Vector2::repeat(pad));
                [c0, r0, c1, r1]
            })
            .collect();
        for &[c0, r0, c1, r1] in &ranges {
            for r in r0..=r1 {
                for c in c0..=c1 {
                    grid.offsets[r * cols + c + 1] += 1;
                }
            }
        }
        for i in 0..cols * rows {
            grid.offsets[i + 1] += grid.offsets[i];
        }
        let mut fill = grid.offsets.clone();
        grid.items = vec![0; grid.offsets[cols * rows]];
        for (t, &[c0, r0, c1, r1]) in ranges.iter().enumerate() {
            for r in r0..=r1 {
                for c in c0..=c1 {
                    grid.items[fill[r * cols + c]] = t as u32;
                    fill[r * cols + c] += 1;
                }
            }
        }
        grid
    }

    fn cell_of(&self, p: Point2<f64>) -> (usize, usize) {
        let f = |v: f64, n: usize| {
            if v.is_nan() || v <= 0.0 {
                0
            } else {
                (v.floor() as usize).min(n - 1)
            }
        };
        (
            f((p.x - self.origin.x) / self.cell, self.cols),
            f((p.y - self.origin.y) / self.cell, self.rows),
        )
    }

    fn bucket(&self, p: Point2<f64>) -> &[u32] {
        let (c, r) = self.cell_of(p);
        let i = r * self.cols + c;
        &self.items[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Whether some triangle covers `p` (edges included).
    pub(crate) fn covers(&self, p: Point2<f64>) -> bool {
        self.bucket(p)
            .iter()
            .any(|&t| inside(&self.corners[t as usize], p))
    }

    /// The triangle closest to `p` among those `keep` accepts (by caller id) within
    /// `max_distance` (at most the grid's pad); the first one found at distance 0 when `p` is
    /// inside several.
    pub(crate) fn closest(
        &self,
        p: Point2<f64>,
        max_distance: f64,
        keep: impl Fn(usize) -> bool,
    ) -> Option<Closest> {
        let mut best: Option<Closest> = None;
        for &t in self.bucket(p) {
            if !keep(self.ids[t as usize]) {
                continue;
            }
            let c = closest_on_triangle(&self.corners[t as usize], p);
            if c.1 <= max_distance && best.is_none_or(|b| c.1 < b.distance) {
                best = Some(Closest {
                    id: self.ids[t as usize],
                    bary: c.0,
                    distance: c.1,
                });
                if c.1 == 0.0 {
                    break;
                }
            }
        }
        best
    }

    /// Length of the part of segment `a`-`b` that no triangle covers, counting only the
    /// uncovered stretches whose middle lies farther than `slack` from every triangle
    /// (`slack` at most the grid's pad).
    pub(crate) fn uncovered_length(&self, a: Point2<f64>, b: Point2<f64>, slack: f64) -> f64 {
        let length = (b - a).norm();
        // Rounding of the partner's barycentric position, not an opening.
        if length <= CLOSED {
            return 0.0;
        }
        let (c0, r0) = self.cell_of(a.inf(&b));
        let (c1, r1) = self.cell_of(a.sup(&b));
        let mut seen = std::collections::HashSet::new();
        let mut intervals = Vec::new();
        for r in r0..=r1 {
            for c in c0..=c1 {
                let i = r * self.cols + c;
                for &t in &self.items[self.offsets[i]..self.offsets[i + 1]] {
                    if seen.insert(t) {
                        if let Some(iv) = clip(&self.corners[t as usize], a, b) {
                            intervals.push(iv);
                        }
                    }
                }
            }
        }
        intervals.sort_by(|p, q| p.0.total_cmp(&q.0));
        intervals.push((1.0, 1.0));
        let mut open = 0.0;
        let mut end = 0.0f64;
        for (s, e) in intervals {
            // Interval ends carry rounding: gaps below 1e-12 of the chord are closed.
            if s - end > 1e-12 {
                let middle = a + (b - a) * ((s + end) / 2.0);
                if self.closest(middle, slack, |_| true).is_none() {
                    open += s - end;
                }
            }
            end = end.max(e);
        }
        length * open
    }
}

/// Orientation sign of a triangle (+1 counter-clockwise, -1 clockwise, 0 degenerate).
fn orientation(c: &[Point2<f64>; 3]) -> f64 {
    signed_area2(&c[0], &c[1], &c[2]).signum()
}

/// Whether `p` lies in the closed triangle (either winding; degenerate triangles cover
/// nothing).
pub(crate) fn inside(c: &[Point2<f64>; 3], p: Point2<f64>) -> bool {
    let s = orientation(c);
    if s == 0.0 || signed_area2(&c[0], &c[1], &c[2]) == 0.0 {
        return false;
    }
    (0..3).all(|k| s * signed_area2(&c[k], &c[(k + 1) % 3], &p) >= 0.0)
}

/// Barycentric coordinates of the triangle's point closest to `p`, and the distance.
fn closest_on_triangle(c: &[Point2<f64>; 3], p: Point2<f64>) -> ([f64; 3], f64) {
    let area = signed_area2(&c[0], &c[1], &c[2]);
    if area != 0.0 && inside(c, p) {
        let b0 = signed_area2(&c[1], &c[2], &p) / area;
        let b1 = signed_area2(&c[2], &c[0], &p) / area;
        return ([b0, b1, 1.0 - b0 - b1], 0.0);
    }
    let mut best = ([1.0, 0.0, 0.0], f64::INFINITY);
    for k in 0..3 {
        let s = Segment::new(c[k], c[(k + 1) % 3]);
        let t = s.closest_parameter(&p);
        let d = (s.a + (s.b - s.a) * t - p).norm();
        if d < best.1 {
            let mut bary = [0.0; 3];
            bary[k] = 1.0 - t;
            bary[(k + 1) % 3] = t;
            best = (bary, d);
        }
    }
    best
}

/// The parameter interval of segment `a`-`b` (0 at a, 1 at b) inside the closed triangle.
fn clip(c: &[Point2<f64>; 3], a: Point2<f64>, b: Point2<f64>) -> Option<(f64, f64)> {
    let s = orientation(c);
    if s == 0.0 {
        return None;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for k in 0..3 {
        // f(t) = s * area(c_k, c_k+1, a + t (b - a)) >= 0, linear in t.
        let fa = s * signed_area2(&c[k], &c[(k + 1) % 3], &a);
        let fb = s * signed_area2(&c[k], &c[(k + 1) % 3], &b);
        if fa < 0.0 && fb < 0.0 {
            return None;
        }
        if fa < 0.0 {
            lo = lo.max(fa / (fa - fb));
        } else if fb < 0.0 {
            hi = hi.min(fa / (fa - fb));
        }
    }
    (hi > lo).then_some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: f64, y: f64) -> Point2<f64> {
        Point2::new(x, y)
    }

    #[test]
    fn coverage_closest_and_clipping() {
        let square = vec![
            (7, [p(0.0, 0.0), p(2.0, 0.0), p(2.0, 2.0)]),
            (9, [p(0.0, 0.0), p(2.0, 2.0), p(0.0, 2.0)]),
        ];
        let g = TriangleGrid::new(square, 0.5);
        assert!(g.covers(p(1.0, 0.5)) && g.covers(p(2.0, 2.0)) && !g.covers(p(2.1, 1.0)));
        let c = g.closest(p(2.25, 1.0), 0.5, |_| true).unwrap();
        assert_eq!(c.id, 7);
        assert!((c.distance - 0.25).abs() < 1e-12);
        assert!((c.bary[1] + c.bary[2] - 1.0).abs() < 1e-12 && c.bary[0].abs() < 1e-12);
        assert!(g.closest(p(3.0, 1.0), 0.5, |_| true).is_none());
        assert!(g.closest(p(2.25, 1.0), 0.5, |id| id == 9).is_none());
        // A segment from x = -1 to x = 4 at y = 1: 2 of its 5 units are covered.
        assert!((g.uncovered_length(p(-1.0, 1.0), p(4.0, 1.0), 0.0) - 3.0).abs() < 1e-12);
        assert_eq!(g.uncovered_length(p(0.5, 0.5), p(1.5, 1.5), 0.0), 0.0);
        // With slack 0.5, [-1.2, 0] counts and [2, 2.6] (middle 0.3 from the square) does not.
        assert!((g.uncovered_length(p(-1.2, 1.0), p(2.6, 1.0), 0.5) - 1.2).abs() < 1e-12);
    }
}
