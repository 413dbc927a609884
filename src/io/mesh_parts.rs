//! A scene's mesh split by part, as the exporters write it (one DragonBones display or
//! Spine mesh per part), and the tail importers give bones of length 0.

use crate::mesh::Mesh;

/// Tail length (px) given to bones of length 0 (DragonBones pivots such as `pelvis`, Spine IK
/// targets and control bones, Godot bones without a length): a scene's bone is a segment
/// whose direction is its orientation, so a short tail along the bone's x axis keeps that
/// orientation and solvers see it as (almost) a point. The exporters write length 0 (Spine)
/// or this length (DragonBones) back for a bone this short.
pub const ZERO_LENGTH_TAIL: f64 = 1.0;

/// The vertices `tris` use, ascending, once each: a DragonBones display's and a Spine
/// mesh's vertex order.
pub(crate) fn vertices_of(tris: &[[usize; 3]]) -> Vec<usize> {
    let mut used: Vec<usize> = tris.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    used
}

/// Each part's triangles: a triangle goes to the part most of its corners belong to (ties:
/// the first corner's).
pub(crate) fn triangles_by_part(mesh: &Mesh) -> Vec<Vec<[usize; 3]>> {
    let vp = mesh.vertex_parts();
    let mut part_triangles: Vec<Vec<[usize; 3]>> = vec![Vec::new(); mesh.parts().len()];
    for &t in mesh.triangles() {
        let [a, b, c] = t.map(|v| vp[v]);
        let p = if b == c { b } else { a };
        part_triangles[p].push(t);
    }
    part_triangles
}
