//! Vertices no triangle uses (artist meshes keep them, [`crate::mesh::Mesh::from_artist`]): the
//! solvers built on the cotangent Laplacian (`heat`, `bbw`, `best`) would get a zero row and
//! mass there (a singular system), so they solve on the used vertices only and every unused
//! vertex is weighted to its nearest bone (straight-line distance to the bone segments; bones
//! tied within 1e-9 share it), with a warning. The distance-based solvers need nothing.

use super::distance::bone_segments;
use super::{finish, Solution, SolveWarning};
use crate::error::Result;
use crate::scene::Scene;
use crate::weights::Weights;
use std::time::Instant;

/// `solve` run on `scene` without its unused vertices, the result spread back with the
/// nearest-bone rows; `None` (nothing done) when every vertex is used.
pub(crate) fn solve_on_used(
    scene: &Scene,
    solver: String,
    solve: impl FnOnce(&Scene) -> Result<Solution>,
) -> Result<Option<Solution>> {
    let mesh = &scene.mesh;
    let unused = mesh.unused_vertices();
    if unused.is_empty() {
        return Ok(None);
    }
    let started = Instant::now();
    let n = mesh.vertex_count();
    let mut new_index = vec![usize::MAX; n];
    let mut used = Vec::with_capacity(n - unused.len());
    let mut skip = unused.iter().peekable();
    for (v, slot) in new_index.iter_mut().enumerate() {
        if skip.peek() == Some(&&v) {
            skip.next();
        } else {
            *slot = used.len();
            used.push(v);
        }
    }
    let compact = mesh.with_parts_like(
        used.iter().map(|&v| mesh.vertices()[v]).collect(),
        mesh.triangles()
            .iter()
            .map(|t| t.map(|v| new_index[v]))
            .collect(),
        mesh.parts().to_vec(),
        used.iter().map(|&v| mesh.vertex_parts()[v]).collect(),
    )?;
    let sub = Scene::new(
        scene.name.clone(),
        compact,
        scene.skeleton.clone(),
        Vec::new(),
    )?;
    let inner = solve(&sub)?;
    let nb = scene.skeleton.len();
    let segments = bone_segments(scene.skeleton.bones());
    let mut data = vec![0.0; n * nb];
    for (v, row) in data.chunks_exact_mut(nb).enumerate() {
        match new_index[v] {
            usize::MAX => {
                let p = mesh.vertices()[v];
                let d: Vec<f64> = segments.iter().map(|s| s.distance(&p)).collect();
                let best = d.iter().copied().fold(f64::INFINITY, f64::min);
                let tie = best + 1e-9 * best.max(f64::MIN_POSITIVE);
                let k = d.iter().filter(|&&x| x <= tie).count().max(1) as f64;
                for (w, &x) in row.iter_mut().zip(&d) {
                    *w = if x <= tie { 1.0 / k } else { 0.0 };
                }
            }
            i => row.copy_from_slice(inner.weights.row(i)),
        }
    }
    let mut warnings = inner.report.warnings;
    warnings.push(SolveWarning::UnusedVertices {
        count: unused.len(),
        first: unused[0],
    });
    let weights = Weights::from_row_major(data, nb)?;
    let mut solution = finish(solver, started, weights, warnings)?;
    solution.report.seconds += inner.report.seconds;
    Ok(Some(solution))
}
