//! The coarse-to-fine start of bbw's active set (option `coarse` of
//! [`super::bbw::BbwOptions`]): every bone's bounded QP solved on a coarse copy of the mesh
//! ([`CoarseMesh`]) and interpolated at the free vertices.
//!
//! Started from the unconstrained solution, the active set's border creeps to the
//! optimum's a few rings per pass, and at 500k vertices that is most of the solve (8-9
//! whole passes and about 12 s of CPU in local passes for arms-down's five bones). From
//! the coarse optimum it starts a few fine rings away: every bone then takes 2 whole
//! passes on its own free set and a few local passes in between (arms-down 496k at the
//! default tolerance: 37.2 s -> 7.0-7.1 s; `cargo run --release --features internals
//! --bin solver_timing -- arms-down 500000 bbw:coarse=0,bbw`).

use super::bbw::{BbwOptions, BiharmonicSystem, COARSE_MIN_FREE};
use super::distance::bone_segments;
use crate::mesh::CoarseMesh;
use crate::scene::Scene;

/// Whether the coarse start is tried for a system with `free` free vertices.
pub(super) fn coarse_applies(o: &BbwOptions, free: usize) -> bool {
    o.coarse > 1.0 && free >= COARSE_MIN_FREE
}

/// Every bone's QP solution on a coarse copy of `scene`'s mesh interpolated at `system`'s
/// free vertices (row-major: `bones` values per free vertex, each in `[0, 1]`), or `None`
/// when the option is off, the mesh is too small, or the copy cannot be made or solved
/// (then the caller starts from the unconstrained solution; the optimum is the same).
pub(super) fn coarse_solution(
    scene: &Scene,
    system: &BiharmonicSystem,
    o: &BbwOptions,
) -> Option<Vec<f64>> {
    if !coarse_applies(o, system.free.len()) {
        return None;
    }
    let n = scene.mesh.vertex_count();
    let target = (n as f64 / o.coarse).round() as usize;
    let segments = bone_segments(scene.skeleton.bones());
    let coarse = CoarseMesh::new(&scene.mesh, &segments, target).ok()?;
    // Small components are copied unchanged: a copy that is not at least twice as small
    // would not pay (and each level halving the mesh bounds the recursion).
    if 2 * coarse.mesh.vertex_count() > n {
        return None;
    }
    let coarse_scene = Scene::from_mesh(coarse.mesh.clone(), scene.skeleton.clone()).ok()?;
    let coarse_system = BiharmonicSystem::assemble(&coarse_scene, o).ok()?;
    let solutions = coarse_system.bone_solutions(&coarse_scene, o).ok()?;
    // Every coarse vertex's value: the handles' fixed ones, the QP's on the free ones.
    let nb = scene.skeleton.len();
    let mut values = coarse_system.handles.values.clone();
    for (j, qp) in solutions.iter().enumerate() {
        for (f, &v) in coarse_system.free.iter().enumerate() {
            values[v * nb + j] = qp.x[f];
        }
    }
    coarse.interpolate(&scene.mesh, &system.free, &values, nb)
}
