//! **refine** (`--option refine=N`): solve on a refined copy of the mesh, then read the
//! weights of the original vertices back.
//!
//! Artists' meshes have 20-150 vertices with long thin triangles; a diffusion solver on them
//! sees too few unknowns to resolve anything. Every triangle is split uniformly into `k^2`
//! similar triangles (each edge into `k` pieces; shared edges split identically, so the
//! refined mesh is conforming), with the smallest `k` that reaches `N` vertices. The
//! original vertices keep their indices `0..n` in the refined mesh, so carrying the weights
//! back is reading off the first `n` rows. Uniform subdivision keeps each triangle's shape,
//! and piecewise-linear finite elements converge under it on any triangulation, so the
//! solve approaches the continuous solution on the artist's shape. New vertices take the part
//! of the nearest corner of their triangle (barycentrically).

use super::{finish, Solution, Solver};
use crate::error::{Error, Result};
use crate::mesh::Mesh;
use crate::scene::Scene;
use crate::weights::Weights;
use nalgebra::Point2;
use std::collections::HashMap;
use std::time::Instant;

/// Refined meshes are capped at this many vertices.
pub const MAX_REFINED_VERTICES: usize = 5_000_000;

/// Vertex count of a `k`-subdivision of a mesh with `n` vertices, `e` edges, `t` triangles.
fn subdivided_count(n: usize, e: usize, t: usize, k: usize) -> usize {
    n + e * (k - 1) + t * (k - 1) * k.saturating_sub(2) / 2
}

/// The smallest subdivision factor `k >= 1` that gives at least `target` vertices.
pub fn subdivision_factor(mesh: &Mesh, target: usize) -> usize {
    let (n, e, t) = (
        mesh.vertex_count(),
        mesh.topology().edges().len(),
        mesh.triangle_count(),
    );
    let mut k = 1;
    while subdivided_count(n, e, t, k) < target
        && subdivided_count(n, e, t, k + 1) <= MAX_REFINED_VERTICES
    {
        k += 1;
    }
    k
}

/// Splits every triangle of `mesh` into `k^2` similar triangles; vertices `0..n` are the
/// original ones, in order.
pub fn subdivide(mesh: &Mesh, k: usize) -> Result<Mesh> {
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
            .ok_or_else(|| Error::Solver {
                solver: "refine".into(),
                message: format!("edge ({u}, {v}) missing from the topology"),
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

/// An inner solver run on a refined copy of the scene's mesh.
pub struct Refined {
    inner: Box<dyn Solver>,
    target: usize,
}

impl Refined {
    /// Runs `inner` on the mesh subdivided to at least `target` vertices.
    pub fn new(inner: Box<dyn Solver>, target: usize) -> Self {
        Refined { inner, target }
    }
}

impl Solver for Refined {
    fn name(&self) -> String {
        format!("{}+refine({})", self.inner.name(), self.target)
    }

    fn solve(&self, scene: &Scene) -> Result<Solution> {
        let started = Instant::now();
        let n = scene.mesh.vertex_count();
        let k = subdivision_factor(&scene.mesh, self.target);
        if k == 1 {
            let inner = self.inner.solve(scene)?;
            return finish(self.name(), started, inner.weights, inner.report.warnings);
        }
        let fine = Scene::new(
            scene.name.clone(),
            subdivide(&scene.mesh, k)?,
            scene.skeleton.clone(),
            Vec::new(),
        )?;
        let inner = self.inner.solve(&fine)?;
        let nb = inner.weights.bone_count();
        let data = inner.weights.as_slice()[..n * nb].to_vec();
        let weights = Weights::from_row_major(data, nb)?;
        finish(self.name(), started, weights, inner.report.warnings)
    }
}

/// Parses the `refine` option: a whole number of vertices.
pub(crate) fn parse_target(value: &str) -> Result<usize> {
    let x = super::parse_number(
        "refine",
        value,
        |x| x >= 1.0 && x.fract() == 0.0 && x <= MAX_REFINED_VERTICES as f64,
        &format!("a whole number of vertices from 1 to {MAX_REFINED_VERTICES}"),
    )?;
    Ok(x as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subdivision_keeps_the_original_vertices_and_the_area() {
        let v = vec![
            Point2::new(0.0, 0.0),
            Point2::new(10.0, 0.0),
            Point2::new(10.0, 1.0),
            Point2::new(0.0, 1.0),
        ];
        let m = Mesh::new(v.clone(), vec![[0, 1, 2], [0, 2, 3]]).unwrap();
        for k in 1..6 {
            let f = subdivide(&m, k).unwrap();
            assert_eq!(&f.vertices()[..4], &v[..]);
            assert_eq!(f.triangle_count(), 2 * k * k);
            assert_eq!(f.vertex_count(), (k + 1) * (k + 1));
            assert_eq!(f.vertex_count(), subdivided_count(4, 5, 2, k));
            assert!((f.area() - 10.0).abs() < 1e-12);
            assert_eq!(f.topology().boundary_loops().len(), 1);
        }
        assert_eq!(subdivision_factor(&m, 4), 1);
        assert_eq!(subdivision_factor(&m, 36), 5);
    }
}
