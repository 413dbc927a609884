//! The closest point of the source meshes to a target vertex: a bucket grid answers points
//! inside a source triangle; a point outside is closest to a boundary edge, found by a scan
//! of the boundary edges (few: they grow with the square root of the mesh).

use super::TransferSource;
use crate::mesh::triangle_grid::TriangleGrid;
use nalgebra::Point2;
use std::collections::HashMap;

/// The closest source point to a query.
#[derive(Debug, Clone, Copy)]
pub(super) struct Hit {
    /// Source triangle.
    pub triangle: usize,
    /// Barycentric coordinates of the point in it.
    pub bary: [f64; 3],
    /// The point.
    pub point: Point2<f64>,
    /// Its distance from the query (0 inside).
    pub distance: f64,
}

pub(super) struct Finder<'a> {
    source: &'a TransferSource<'a>,
    grid: TriangleGrid,
    /// Boundary edges: (triangle, first corner, second corner) as vertex indices.
    boundary: Vec<(usize, usize, usize)>,
}

impl<'a> Finder<'a> {
    pub(super) fn new(source: &'a TransferSource<'a>) -> Finder<'a> {
        let corners = |t: &[usize; 3]| t.map(|v| source.vertices[v]);
        let grid = TriangleGrid::new(
            source
                .triangles
                .iter()
                .enumerate()
                .map(|(i, t)| (i, corners(t)))
                .collect(),
            0.0,
        );
        Finder {
            source,
            grid,
            boundary: boundary_edges(&source.triangles),
        }
    }

    /// The closest source point to `p` (the sources have at least one triangle).
    pub(super) fn closest(&self, p: Point2<f64>) -> Hit {
        let tri = |i: usize| self.source.triangles[i];
        if let Some(c) = self.grid.closest(p, 0.0, |_| true) {
            return Hit {
                triangle: c.id,
                bary: c.bary,
                point: p,
                distance: 0.0,
            };
        }
        let pts = &self.source.vertices;
        let mut best = Hit {
            triangle: 0,
            bary: [1.0, 0.0, 0.0],
            point: pts[tri(0)[0]],
            distance: (pts[tri(0)[0]] - p).norm(),
        };
        for &(t, a, b) in &self.boundary {
            let seg = crate::geometry::Segment::new(pts[a], pts[b]);
            let s = seg.closest_parameter(&p);
            let q = pts[a] + (pts[b] - pts[a]) * s;
            let d = (q - p).norm();
            if d < best.distance {
                let mut bary = [0.0; 3];
                for (k, &c) in tri(t).iter().enumerate() {
                    if c == a {
                        bary[k] += 1.0 - s;
                    } else if c == b {
                        bary[k] += s;
                    }
                }
                best = Hit {
                    triangle: t,
                    bary,
                    point: q,
                    distance: d,
                };
            }
        }
        best
    }
}

/// Edges used by one triangle only: (triangle, corner, next corner).
pub(super) fn boundary_edges(triangles: &[[usize; 3]]) -> Vec<(usize, usize, usize)> {
    let mut count: HashMap<(usize, usize), (usize, usize)> = HashMap::new();
    for (i, t) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            count.entry((a.min(b), a.max(b))).or_insert((0, i)).0 += 1;
        }
    }
    let mut edges: Vec<(usize, usize, usize)> = count
        .into_iter()
        .filter(|(_, (n, _))| *n == 1)
        .map(|((a, b), (_, t))| (t, a, b))
        .collect();
    edges.sort_unstable();
    edges
}
