//! One part of a scene with a chosen set of bones, as a scene of its own.
//!
//! Layered 2D art (DragonBones, Spine, a sprite sheet of limbs) is rigged mesh by mesh: the
//! artist picks, for each mesh, the few bones allowed to move it. To compare a solver with
//! that artist on equal terms, the solver must see the same mesh and the same bones; solving
//! each part separately with its own bone list is also exactly what a per-part mask does.

use super::Scene;
use crate::error::{Error, Result};
use crate::mesh::Mesh;
use crate::skeleton::{Bone, Skeleton};
use crate::weights::Weights;

/// A scene cut down to one part and some bones, with the maps back to the full scene.
#[derive(Debug, Clone)]
pub struct PartScene {
    /// The sub-scene: the part's vertices and triangles, the chosen bones (all driving this
    /// part), no probes.
    pub scene: Scene,
    /// For each sub-scene vertex, its index in the full scene.
    pub vertices: Vec<usize>,
    /// For each sub-scene bone, its index in the full skeleton.
    pub bones: Vec<usize>,
}

impl PartScene {
    /// Cuts part `part` of `scene` out with the bones `bones` (full-skeleton indices, in the
    /// order the sub-skeleton should have).
    ///
    /// Each bone keeps its rest geometry; its parent becomes its nearest ancestor among
    /// `bones` (or none), and its driven part becomes `part`. Errors: an unknown part, an
    /// empty or repeated bone list, a bone index out of range, and a vertex of the part that no
    /// triangle lying wholly inside the part uses (the part would not be a mesh of its own).
    pub fn new(scene: &Scene, part: &str, bones: &[usize]) -> Result<Self> {
        let mesh = &scene.mesh;
        let part_index = mesh.part_index(part).ok_or_else(|| Error::UnknownPart {
            context: "part scene".into(),
            part: part.to_string(),
            known: mesh.parts().to_vec(),
        })?;
        if bones.is_empty() {
            return Err(Error::field(
                "bones",
                format!("part {part:?}: no bones given"),
            ));
        }
        let n_bones = scene.skeleton.len();
        let mut sub_of_bone = vec![None; n_bones];
        for (i, &b) in bones.iter().enumerate() {
            if b >= n_bones {
                return Err(Error::field(
                    "bones",
                    format!("bone index {b} out of range (skeleton has {n_bones})"),
                ));
            }
            if let Some(first) = sub_of_bone[b].replace(i) {
                return Err(Error::DuplicateBone {
                    name: scene.skeleton.bones()[b].name.clone(),
                    first,
                    second: i,
                });
            }
        }

        let in_part = |v: usize| mesh.vertex_parts()[v] == part_index;
        let mut sub_of_vertex = vec![usize::MAX; mesh.vertex_count()];
        let mut vertices = Vec::new();
        let mut triangles = Vec::new();
        for t in mesh.triangles() {
            if !t.iter().all(|&v| in_part(v)) {
                continue;
            }
            let mut local = [0; 3];
            for (k, &v) in t.iter().enumerate() {
                if sub_of_vertex[v] == usize::MAX {
                    sub_of_vertex[v] = vertices.len();
                    vertices.push(v);
                }
                local[k] = sub_of_vertex[v];
            }
            triangles.push(local);
        }
        if let Some(v) =
            (0..mesh.vertex_count()).find(|&v| in_part(v) && sub_of_vertex[v] == usize::MAX)
        {
            return Err(Error::VertexParts {
                message: format!(
                    "vertex {v} of part {part:?} has no triangle inside the part, so the part is not a mesh of its own"
                ),
            });
        }
        let positions = vertices.iter().map(|&v| mesh.vertices()[v]).collect();
        let sub_mesh = Mesh::new(positions, triangles)?;

        let full = scene.skeleton.bones();
        let sub_bones = bones
            .iter()
            .map(|&b| {
                let mut parent = full[b].parent;
                while let Some(p) = parent {
                    if sub_of_bone[p].is_some() {
                        break;
                    }
                    parent = full[p].parent;
                }
                Bone {
                    name: full[b].name.clone(),
                    parent: parent.and_then(|p| sub_of_bone[p]),
                    head: full[b].head,
                    tail: full[b].tail,
                    part: None,
                    influences: None,
                }
            })
            .collect();
        let skeleton = Skeleton::new(sub_bones)?;
        let sub_scene = Scene::new(
            format!("{}/{part}", scene.name),
            sub_mesh,
            skeleton,
            Vec::new(),
        )?;
        Ok(PartScene {
            scene: sub_scene,
            vertices,
            bones: bones.to_vec(),
        })
    }

    /// Writes `sub` (weights on this sub-scene) into the rows of `full` (weights on the full
    /// scene) for this part's vertices; the other bones get weight 0 there.
    pub fn scatter_into(&self, sub: &Weights, full: &mut Weights) -> Result<()> {
        if sub.vertex_count() != self.vertices.len() || sub.bone_count() != self.bones.len() {
            return Err(Error::WeightsShape {
                message: format!(
                    "part scene {:?}: weights are {} x {}, expected {} x {}",
                    self.scene.name,
                    sub.vertex_count(),
                    sub.bone_count(),
                    self.vertices.len(),
                    self.bones.len()
                ),
            });
        }
        for (i, &v) in self.vertices.iter().enumerate() {
            if v >= full.vertex_count() {
                return Err(Error::WeightsShape {
                    message: format!("full weights have no vertex {v}"),
                });
            }
            let row = full.row_mut(v);
            row.iter_mut().for_each(|w| *w = 0.0);
            for (j, &b) in self.bones.iter().enumerate() {
                if b >= row.len() {
                    return Err(Error::WeightsShape {
                        message: format!("full weights have no bone {b}"),
                    });
                }
                row[b] = sub.get(i, j);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{builtin_scene, BuiltinOptions};

    fn layered() -> Scene {
        builtin_scene(
            "layered-arms",
            &BuiltinOptions {
                vertices: 2000,
                ..Default::default()
            },
        )
        .unwrap()
    }

    #[test]
    fn arm_layer_with_its_two_bones() {
        let scene = layered();
        let upper = scene.skeleton.index_of("upper_arm_l").unwrap();
        let fore = scene.skeleton.index_of("forearm_l").unwrap();
        let cut = PartScene::new(&scene, "arm_l", &[upper, fore]).unwrap();
        cut.scene.sanity_check().unwrap();
        let arm = scene.mesh.part_index("arm_l").unwrap();
        let expected = scene
            .mesh
            .vertex_parts()
            .iter()
            .filter(|&&p| p == arm)
            .count();
        assert_eq!(cut.vertices.len(), expected);
        assert!(cut
            .vertices
            .iter()
            .all(|&v| scene.mesh.vertex_parts()[v] == arm));
        // The forearm's parent is still the upper arm; the upper arm's parent (spine) is gone.
        let bones = cut.scene.skeleton.bones();
        assert_eq!(bones[0].parent, None);
        assert_eq!(bones[1].parent, Some(0));
        assert_eq!(bones[1].head, scene.skeleton.bones()[fore].head);

        let sub = crate::solve(&cut.scene, "heat").unwrap();
        let mut full = Weights::zeros(scene.mesh.vertex_count(), scene.skeleton.len());
        cut.scatter_into(&sub, &mut full).unwrap();
        for (i, &v) in cut.vertices.iter().enumerate() {
            assert_eq!(full.get(v, upper), sub.get(i, 0));
            assert_eq!(full.get(v, fore), sub.get(i, 1));
            assert!((full.row(v).iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn bad_requests_are_named() {
        let scene = layered();
        assert!(matches!(
            PartScene::new(&scene, "tail", &[0]),
            Err(Error::UnknownPart { .. })
        ));
        assert!(PartScene::new(&scene, "arm_l", &[]).is_err());
        assert!(PartScene::new(&scene, "arm_l", &[99]).is_err());
        assert!(matches!(
            PartScene::new(&scene, "arm_l", &[1, 1]),
            Err(Error::DuplicateBone { .. })
        ));
    }
}
