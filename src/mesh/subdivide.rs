//! Uniform subdivision: every triangle split into `k^2` similar triangles (each edge into `k`
//! pieces; shared edges split identically, so the result is conforming). The `refine` solver
//! option solves on such a copy.

use super::Mesh;
use crate::error::{Error, Result, SolverError};
use nalgebra::Point2;
use std::collections::HashMap;

/// Splits every triangle of `mesh` into `k^2` similar triangles; vertices `0..n` are the
/// original ones, in order.
pub(crate) fn subdivide(mesh: &Mesh, k: usize) -> Result<Mesh> {
    let k = k.max(1);
    let pts = mesh.vertices();
    let parts = mesh.vertex_parts();
    let mut vertices = pts.to_vec();
    let mut vertex_parts = parts.to_vec();
    let edges = mesh.topology().edges();
    let mut edge_base: HashMap<(usize, usize), usize> = HashMap::with_capacity(edges.len());
    for &[a, b] in edges {
        let (u, v) = (a.min(b), a.max(b));
        edge_base.insert((u, v), vertices.len());
        for s in 1..k {
            let t = s as f64 / k as f64;
            vertices.push(pts[u] + (pts[v] - pts[u]) * t);
            vertex_parts.push(if 2 * s <= k { parts[u] } else { parts[v] });
        }
    }
    // The vertex `s/k` of the way from `u` to `v` along edge (u, v).
    let on_edge = |u: usize, v: usize, s: usize| -> Result<usize> {
        if s == 0 {
            return Ok(u);
        }
        if s == k {
            return Ok(v);
        }
        let base = edge_base
            .get(&(u.min(v), u.max(v)))
            // Named after the `refine` option, its only caller (the message users saw).
            .ok_or_else(|| {
                Error::Solver(SolverError::Solver {
                    solver: "refine".into(),
                    message: format!("edge ({u}, {v}) missing from the topology"),
                })
            })?;
        Ok(if u < v {
            base + s - 1
        } else {
            base + (k - s) - 1
        })
    };
    let mut triangles = Vec::with_capacity(mesh.triangle_count() * k * k);
    let mut grid = vec![0usize; (k + 1) * (k + 1)];
    for tri in mesh.triangles() {
        let [a, b, c] = *tri;
        for i in 0..=k {
            for j in 0..=k - i {
                let id = if j == 0 {
                    on_edge(a, b, i)?
                } else if i == 0 {
                    on_edge(a, c, j)?
                } else if i + j == k {
                    on_edge(b, c, j)?
                } else {
                    let p: Point2<f64> = pts[a]
                        + (pts[b] - pts[a]) * (i as f64 / k as f64)
                        + (pts[c] - pts[a]) * (j as f64 / k as f64);
                    vertices.push(p);
                    let bary = [k - i - j, i, j];
                    let corner = (0..3).fold(0, |m, q| if bary[q] > bary[m] { q } else { m });
                    vertex_parts.push(parts[tri[corner]]);
                    vertices.len() - 1
                };
                grid[i * (k + 1) + j] = id;
            }
        }
        let g = |i: usize, j: usize| grid[i * (k + 1) + j];
        for i in 0..k {
            for j in 0..k - i {
                triangles.push([g(i, j), g(i + 1, j), g(i, j + 1)]);
                if i + j + 2 <= k {
                    triangles.push([g(i + 1, j), g(i + 1, j + 1), g(i, j + 1)]);
                }
            }
        }
    }
    mesh.with_parts_like(vertices, triangles, mesh.parts().to_vec(), vertex_parts)
}
