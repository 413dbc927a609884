//! One part of a scene with a chosen set of bones: how a solver is scored against an artist
//! on the same mesh with the same bones (see `ImportReport`'s per-mesh bone lists).

use super::Scene;
use crate::error::{Error, MeshError, Result, SkeletonError, WeightsError, WeightsShapeProblem};
use crate::mesh::Mesh;
use crate::skeleton::{Bone, Skeleton};
use crate::weights::Weights;

/// A part cut out of a scene, with the maps back to the full scene.
#[derive(Debug, Clone)]
pub struct SubScene {
    /// The part's mesh (one part) and the kept bones; probes that fit are kept.
    pub scene: Scene,
    /// Full-scene index of each sub-scene vertex.
    pub vertices: Vec<usize>,
    /// Full-scene index of each sub-scene bone.
    pub bones: Vec<usize>,
    /// Vertex and bone counts of the full scene, to check full-scene weights against.
    full_shape: (usize, usize),
}

/// A scene's mesh split into its parts once: each part's vertices (scene indices, in order)
/// and the triangles whose corners all lie in it (in the part's own numbering, in scene
/// order). [`MeshParts::cut`] is [`SubScene::new`] without a pass over the whole mesh per part.
#[derive(Debug, Clone)]
pub struct MeshParts<'a> {
    scene: &'a Scene,
    vertices: Vec<Vec<usize>>,
    triangles: Vec<Vec<[usize; 3]>>,
}

impl<'a> MeshParts<'a> {
    /// The parts of `scene`'s mesh.
    pub fn new(scene: &'a Scene) -> MeshParts<'a> {
        let mesh = &scene.mesh;
        let of = mesh.vertex_parts();
        let mut vertices = vec![Vec::new(); mesh.parts().len()];
        let mut local = vec![0usize; of.len()];
        for (v, &p) in of.iter().enumerate() {
            local[v] = vertices[p].len();
            vertices[p].push(v);
        }
        let mut triangles = vec![Vec::new(); vertices.len()];
        for t in mesh.triangles() {
            let p = of[t[0]];
            if of[t[1]] == p && of[t[2]] == p {
                triangles[p].push(t.map(|v| local[v]));
            }
        }
        MeshParts {
            scene,
            vertices,
            triangles,
        }
    }

    /// `part` cut out of the scene with only the named bones: [`SubScene::new`].
    ///
    /// Errors: those of [`SubScene::new`].
    pub fn cut(&self, part: &str, bones: &[String]) -> Result<SubScene> {
        let (scene, mesh) = (self.scene, &self.scene.mesh);
        let p = mesh.part_index(part).ok_or_else(|| {
            Error::Skeleton(SkeletonError::UnknownPart {
                context: "sub-scene".into(),
                part: part.to_string(),
                known: mesh.parts().to_vec(),
            })
        })?;
        let vertices = self.vertices[p].clone();
        let triangles = self.triangles[p].clone();
        // An artist mesh may fold and leave vertices unused (the solvers handle both); a
        // meshed scene may not.
        let artist = mesh.artist_notes().is_some();
        let mut used = vec![false; vertices.len()];
        triangles.iter().flatten().for_each(|&i| used[i] = true);
        if let Some(i) = used.iter().position(|u| !u).filter(|_| !artist) {
            return Err(MeshError::StrandedVertex {
                part: part.to_string(),
                vertex: vertices[i],
            }
            .into());
        }
        let points = vertices.iter().map(|&v| mesh.vertices()[v]).collect();
        let parts = vec![part.to_string()];
        let sub_mesh = if artist {
            Mesh::from_artist(points, triangles, parts, vec![0; vertices.len()])?.0
        } else {
            Mesh::with_parts(points, triangles, parts, vec![0; vertices.len()])?
        };

        let (kept, sub_skeleton) = kept_skeleton(&scene.skeleton, bones, Some(part))?;
        let probes = scene
            .probes
            .iter()
            .filter(|pr| {
                pr.pose
                    .moved_bones()
                    .all(|b| sub_skeleton.index_of(b).is_some())
                    && pr.watch.part.as_deref().is_none_or(|q| q == part)
                    && pr.watch.vertices.is_none()
            })
            .cloned()
            .collect();
        Ok(SubScene {
            scene: Scene::new(
                format!("{}/{part}", scene.name),
                sub_mesh,
                sub_skeleton,
                probes,
            )?,
            vertices,
            bones: kept,
            full_shape: (mesh.vertex_count(), scene.skeleton.len()),
        })
    }
}

impl SubScene {
    /// Cuts `part` out of `scene` with only the named bones.
    ///
    /// Vertices keep their order; triangles whose corners all lie in the part are kept. Each
    /// kept bone's parent becomes its nearest kept ancestor, so posing a bone still moves the
    /// kept bones below it. A bone keeps its `part` only if it is this part; `influences` are
    /// dropped (one part: nothing to mask between). Probes are kept when every bone they
    /// pose is kept and they watch this part (or any part) without a vertex list.
    ///
    /// Errors: unknown part or bone ([`SkeletonError::UnknownPart`], [`SkeletonError::UnknownBone`]), no
    /// bones, and a part vertex used only by triangles that cross into other parts.
    pub fn new(scene: &Scene, part: &str, bones: &[String]) -> Result<SubScene> {
        MeshParts::new(scene).cut(part, bones)
    }

    /// The whole scene (every vertex, every part, the probes that only move kept bones) with
    /// only the named bones: a fully automatic solve with a rig's deforming bones, leaving out
    /// control bones and IK targets. Parents are relinked as in [`SubScene::new`]; bones keep
    /// their `part` and `influences`.
    pub fn with_bones(scene: &Scene, bones: &[String]) -> Result<SubScene> {
        let (kept, skeleton) = kept_skeleton(&scene.skeleton, bones, None)?;
        let probes = scene
            .probes
            .iter()
            .filter(|pr| {
                pr.pose
                    .moved_bones()
                    .all(|b| skeleton.index_of(b).is_some())
            })
            .cloned()
            .collect();
        Ok(SubScene {
            scene: Scene::new(scene.name.clone(), scene.mesh.clone(), skeleton, probes)?,
            vertices: (0..scene.mesh.vertex_count()).collect(),
            bones: kept,
            full_shape: (scene.mesh.vertex_count(), scene.skeleton.len()),
        })
    }

    /// The rows of full-scene `weights` for this part, on the kept bones only, renormalized.
    /// Errors with [`WeightsError::RowSum`] naming the full-scene vertex when a row has no weight on
    /// the kept bones.
    pub fn restrict(&self, weights: &Weights) -> Result<Weights> {
        self.check_full_shape(weights)?;
        let mut out = Weights::zeros_unchecked(self.vertices.len(), self.bones.len());
        for (i, &v) in self.vertices.iter().enumerate() {
            for (k, &j) in self.bones.iter().enumerate() {
                out.set_unchecked(i, k, weights.get(v, j));
            }
            let sum: f64 = out.row(i).iter().sum();
            if !(sum > 0.0 && sum.is_finite()) {
                return Err(WeightsError::RowSum {
                    vertex: v,
                    sum,
                    tolerance: 0.0,
                }
                .into());
            }
            out.row_mut_unchecked(i).iter_mut().for_each(|w| *w /= sum);
        }
        Ok(out)
    }

    /// Full-scene weights must have the full scene's shape: extra columns would shift every
    /// row's entries, missing ones would read out of bounds.
    fn check_full_shape(&self, weights: &Weights) -> Result<()> {
        let (n, b) = self.full_shape;
        if weights.vertex_count() != n || weights.bone_count() != b {
            return Err(WeightsError::WeightsShape {
                problem: WeightsShapeProblem::Dimensions {
                    context: format!("sub-scene {:?}: full scene", self.scene.name),
                    found: (weights.vertex_count(), weights.bone_count()),
                    expected: (n, b),
                },
            }
            .into());
        }
        Ok(())
    }

    /// Writes sub-scene weights back into the part's rows of full-scene `weights` (other
    /// bones get 0 on those rows). Errors with [`WeightsError::WeightsShape`] when `sub` is not
    /// this sub-scene's shape or `weights` not the full scene's.
    pub fn scatter(&self, sub: &Weights, weights: &mut Weights) -> Result<()> {
        if sub.vertex_count() != self.vertices.len() || sub.bone_count() != self.bones.len() {
            return Err(WeightsError::WeightsShape {
                problem: WeightsShapeProblem::Dimensions {
                    context: format!("sub-scene {:?}", self.scene.name),
                    found: (sub.vertex_count(), sub.bone_count()),
                    expected: (self.vertices.len(), self.bones.len()),
                },
            }
            .into());
        }
        self.check_full_shape(weights)?;
        for (i, &v) in self.vertices.iter().enumerate() {
            weights
                .row_mut_unchecked(v)
                .iter_mut()
                .for_each(|w| *w = 0.0);
            for (k, &j) in self.bones.iter().enumerate() {
                weights.set_unchecked(v, j, sub.get(i, k));
            }
        }
        Ok(())
    }
}

/// The named bones of `skeleton` (scene order) as a skeleton of their own: each bone's parent
/// becomes its nearest kept ancestor, so posing a bone still moves the kept bones below it.
/// With `part`, bones keep their `part` only if it is that part, and lose `influences` (one
/// part: nothing to mask between).
fn kept_skeleton(
    skeleton: &Skeleton,
    bones: &[String],
    part: Option<&str>,
) -> Result<(Vec<usize>, Skeleton)> {
    let sk = skeleton;
    let mut kept: Vec<usize> = bones
        .iter()
        .map(|name| {
            sk.index_of(name).ok_or_else(|| {
                Error::Skeleton(SkeletonError::UnknownBone {
                    context: "sub-scene".into(),
                    bone: name.clone(),
                })
            })
        })
        .collect::<Result<_>>()?;
    kept.sort_unstable();
    kept.dedup();
    let position = |j: usize| kept.iter().position(|&k| k == j);
    let sub_bones: Vec<Bone> = kept
        .iter()
        .map(|&j| {
            let b = &sk.bones()[j];
            let mut parent = b.parent;
            while let Some(a) = parent {
                if position(a).is_some() {
                    break;
                }
                parent = sk.bones()[a].parent;
            }
            match part {
                // Re-parenting breaks setup transforms relative to the old parents: the
                // kept bones are rigid (head and tail kept).
                Some(part) => Bone {
                    parent: parent.and_then(position),
                    part: b.part.clone().filter(|q| q == part),
                    influences: None,
                    local: None,
                    ..b.clone()
                },
                None => Bone {
                    parent: parent.and_then(position),
                    local: None,
                    ..b.clone()
                },
            }
        })
        .collect();
    let skeleton = Skeleton::new(sub_bones)?;
    Ok((kept, skeleton))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{builtin_scene, BuiltinOptions};

    /// The built-in layered arms at 2 000 vertices: separate parts for the arms and torso.
    fn layered_arms() -> Scene {
        builtin_scene(
            "layered-arms",
            &BuiltinOptions::default().with_vertices(2000),
        )
        .unwrap()
    }

    #[test]
    fn every_part_cut_from_one_split_keeps_its_vertices_and_triangles_in_order() {
        let scene = layered_arms();
        let parts = MeshParts::new(&scene);
        let names = scene.skeleton.names();
        let of = scene.mesh.vertex_parts();
        for (p, part) in scene.mesh.parts().iter().enumerate() {
            let cut = parts.cut(part, &names).unwrap();
            let expected: Vec<usize> = (0..of.len()).filter(|&v| of[v] == p).collect();
            assert_eq!(cut.vertices, expected, "part {part}");
            let local = |v: usize| expected.iter().position(|&u| u == v);
            let triangles: Vec<[usize; 3]> = scene
                .mesh
                .triangles()
                .iter()
                .filter_map(|t| Some([local(t[0])?, local(t[1])?, local(t[2])?]))
                .collect();
            assert!(!triangles.is_empty());
            assert_eq!(cut.scene.mesh.triangles(), &triangles[..], "part {part}");
        }
    }

    #[test]
    fn arm_layer_with_its_two_bones() {
        let scene = layered_arms();
        let upper = scene.skeleton.index_of("upper_arm_l").unwrap();
        let fore = scene.skeleton.index_of("forearm_l").unwrap();
        let cut =
            SubScene::new(&scene, "arm_l", &["upper_arm_l".into(), "forearm_l".into()]).unwrap();
        cut.scene.sanity_check().unwrap();
        let arm = scene.mesh.part_index("arm_l").unwrap();
        let in_arm = scene
            .mesh
            .vertex_parts()
            .iter()
            .filter(|&&p| p == arm)
            .count();
        assert_eq!(cut.vertices.len(), in_arm);
        // The forearm's parent is still the upper arm; the upper arm's parent (spine) is gone.
        let bones = cut.scene.skeleton.bones();
        assert_eq!(bones[0].parent, None);
        assert_eq!(bones[1].parent, Some(0));
        assert_eq!(bones[1].head, scene.skeleton.bones()[fore].head);

        let sub = crate::solvers::solve(&cut.scene, "heat").unwrap();
        let mut full = Weights::zeros_unchecked(scene.mesh.vertex_count(), scene.skeleton.len());
        cut.scatter(&sub, &mut full).unwrap();
        for (i, &v) in cut.vertices.iter().enumerate() {
            assert_eq!(full.get(v, upper), sub.get(i, 0));
            assert_eq!(full.get(v, fore), sub.get(i, 1));
            assert!((full.row(v).iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
        // restrict is scatter's inverse on the part's rows.
        let back = cut.restrict(&full).unwrap();
        assert!(back
            .as_slice()
            .iter()
            .zip(sub.as_slice())
            .all(|(a, b)| (a - b).abs() < 1e-12));
        // Wrong shapes are named, not a panic.
        let mut small = Weights::zeros_unchecked(3, 1);
        assert!(matches!(
            cut.scatter(&sub, &mut small),
            Err(Error::Weights(WeightsError::WeightsShape { .. }))
        ));
        assert!(matches!(
            cut.scatter(&Weights::zeros_unchecked(2, 2), &mut full),
            Err(Error::Weights(WeightsError::WeightsShape { .. }))
        ));
        let wide = Weights::zeros_unchecked(scene.mesh.vertex_count(), scene.skeleton.len() + 1);
        assert!(matches!(
            cut.restrict(&wide),
            Err(Error::Weights(WeightsError::WeightsShape { .. }))
        ));
    }
}
