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
//!
//! The subdivision itself is the mesh layer's (`mesh::subdivide`, beside `CoarseMesh`).

use super::{finish, Solution, Solver};
use crate::error::Result;
use crate::mesh::{subdivide, Mesh};
use crate::scene::Scene;
use crate::weights::Weights;
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

    fn compute(&self, scene: &Scene) -> Result<Solution> {
        compute_refined(self.inner.as_ref(), self.name(), scene, self.target)
    }
}

/// `inner` on `scene`'s mesh subdivided to at least `target` vertices, read back at the
/// scene's own vertices; the solution is named `name`. [`Refined`]'s solve, for a solver
/// borrowed rather than owned (the binder's re-solve of each mesh).
pub(crate) fn compute_refined(
    inner: &dyn Solver,
    name: String,
    scene: &Scene,
    target: usize,
) -> Result<Solution> {
    let started = Instant::now();
    let n = scene.mesh.vertex_count();
    let k = subdivision_factor(&scene.mesh, target);
    if k == 1 {
        let inner = inner.compute(scene)?;
        return finish(name, started, inner.weights, inner.report.warnings);
    }
    let fine = Scene::new(
        scene.name.clone(),
        subdivide(&scene.mesh, k)?,
        scene.skeleton.clone(),
        Vec::new(),
    )?;
    let solved = inner.compute(&fine)?;
    let nb = solved.weights.bone_count();
    let data = solved.weights.as_slice()[..n * nb].to_vec();
    let weights = Weights::from_row_major(data, nb)?;
    finish(name, started, weights, solved.report.warnings)
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
    use nalgebra::Point2;

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
