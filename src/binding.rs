//! Which bones each mesh of a scene is solved over (issue 60): the imported bindings
//! ([`Bind::Artist`], protocol (a)), a binder that picks each mesh's bones without any artist
//! weight ([`Bind::Auto`], protocol (c)), or every deforming bone at once ([`Bind::All`], the
//! whole solve, protocol (b)); and a solve over a subset of the bones
//! ([`solve_with_bones`], the deforming bones of [`Scene::deforming_bones`]). The binder's
//! figures: `docs/binding.md`.
//!
//! The binder starts from the whole solve: a bone that the whole solve gives little weight on
//! a mesh is one an artist rarely binds that mesh to, and re-solving the mesh without it stops
//! it pulling vertices it should not.
//!
//! It runs solvers, so it sits above [`crate::solvers`] (and [`crate::scene`], whose model it
//! cuts into sub-scenes).

use crate::error::{ArgumentError, Error, Result, SkeletonError};
use crate::scene::{Scene, SubScene};
use crate::solvers::{Solution, Solver};
use crate::weights::Weights;

/// How the bones of each mesh are chosen before its weights are solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bind {
    /// The imported bindings: each mesh solved over the bones its file binds it to; a mesh
    /// without bindings gets the binder ([`Bind::Auto`]).
    Artist,
    /// The binder: each mesh solved over the bones the whole solve weights on it.
    Auto,
    /// The whole character at once over every deforming bone (today's solve).
    All,
}

impl Bind {
    /// The names `--bind` takes, in [`Bind`]'s order.
    pub const NAMES: [&'static str; 3] = ["artist", "auto", "all"];
}

impl std::str::FromStr for Bind {
    type Err = crate::Error;

    /// `artist`, `auto` or `all`; anything else is an [`ArgumentError::InvalidArgument`] for
    /// `--bind` that lists them.
    fn from_str(s: &str) -> Result<Bind> {
        match s {
            "artist" => Ok(Bind::Artist),
            "auto" => Ok(Bind::Auto),
            "all" => Ok(Bind::All),
            _ => Err(ArgumentError::InvalidArgument {
                argument: "--bind",
                value: s.to_string(),
                reason: format!("expected one of {}", Bind::NAMES.join(", ")),
            }
            .into()),
        }
    }
}

/// The binder's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BindOptions {
    /// A bone is kept for a mesh when its whole-solve weight, averaged over the mesh's
    /// vertices, is at least this. The mesh's heaviest bone is always kept.
    pub min_mass: f64,
}

impl Default for BindOptions {
    /// The threshold chosen by leaving one source out (`docs/binding.md`).
    fn default() -> Self {
        BindOptions { min_mass: 0.02 }
    }
}

/// One mesh (a part of the scene) and the bones it is solved over (scene indices, ascending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshBones {
    /// The part's name.
    pub part: String,
    /// Scene indices of its bones.
    pub bones: Vec<usize>,
}

/// Per part of `scene` with vertices, the bones `whole` (weights on the whole scene) gives a
/// mean weight of at least `options.min_mass` on it, and always the heaviest one and the
/// part's home bone (`home`, when listed: the bone an unweighted mesh hangs on).
///
/// Errors: [`WeightsError::WeightsShape`](crate::error::WeightsError::WeightsShape) when
/// `whole` does not fit the scene; [`ArgumentError::InvalidArgument`] (`min_mass`) when the
/// threshold is not finite or not in [0, 1].
pub fn auto_bones(
    scene: &Scene,
    whole: &Weights,
    home: &[MeshBones],
    options: &BindOptions,
) -> Result<Vec<MeshBones>> {
    let nb = scene.skeleton.len();
    crate::skinning::check_shape(scene.mesh.vertex_count(), whole, nb)?;
    if !(0.0..=1.0).contains(&options.min_mass) {
        return Err(ArgumentError::InvalidArgument {
            argument: "min_mass",
            value: options.min_mass.to_string(),
            reason: "the binder's threshold is a mean weight, between 0 and 1".into(),
        }
        .into());
    }
    let parts = scene.mesh.parts();
    let mut mass = vec![vec![0.0; nb]; parts.len()];
    let mut count = vec![0usize; parts.len()];
    for (v, &p) in scene.mesh.vertex_parts().iter().enumerate() {
        count[p] += 1;
        mass[p]
            .iter_mut()
            .zip(whole.row(v))
            .for_each(|(m, w)| *m += w);
    }
    Ok(parts
        .iter()
        .enumerate()
        .filter(|&(p, _)| count[p] > 0)
        .map(|(p, part)| {
            let mean: Vec<f64> = mass[p].iter().map(|m| m / count[p] as f64).collect();
            let heaviest = (0..nb).max_by(|&a, &b| mean[a].total_cmp(&mean[b]));
            let homes: &[usize] = home
                .iter()
                .find(|h| h.part == *part)
                .map_or(&[], |h| &h.bones);
            let bones = (0..nb)
                .filter(|&j| {
                    mean[j] >= options.min_mass || Some(j) == heaviest || homes.contains(&j)
                })
                .collect();
            MeshBones {
                part: part.clone(),
                bones,
            }
        })
        .collect())
}

/// Each mesh of `bindings` solved alone with `solver` over its bones, scattered into weights on
/// the whole scene; vertices of parts not listed keep their row of `rest`.
///
/// Errors: an unknown part or bone index ([`SkeletonError`]), `rest` of the wrong shape, and the
/// solver's own errors (each names the mesh it was solving).
pub fn solve_bound(
    solver: &dyn Solver,
    scene: &Scene,
    bindings: &[MeshBones],
    rest: Weights,
) -> Result<Weights> {
    let mut full = rest;
    crate::skinning::check_shape(scene.mesh.vertex_count(), &full, scene.skeleton.len())?;
    for mb in bindings {
        let names = bone_names(scene, &mb.bones, &mb.part)?;
        let cut = SubScene::new(scene, &mb.part, &names)?;
        let solved = solver.solve(&cut.scene)?;
        cut.scatter(&solved.weights, &mut full)?;
    }
    Ok(full)
}

fn bone_names(scene: &Scene, bones: &[usize], part: &str) -> Result<Vec<String>> {
    bone_names_in(
        scene,
        bones,
        &format!("binding of mesh {part:?} in scene {:?}", scene.name),
    )
}

/// What a file says about each mesh's bones: the input of [`bind`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileBindings {
    /// Meshes the file weights, each with the bones it weights it to.
    pub artist: Vec<MeshBones>,
    /// Meshes the file does not weight (every vertex on one bone, as an unweighted Spine or
    /// DragonBones mesh is read), each with that bone: the binder keeps it.
    pub home: Vec<MeshBones>,
}

impl FileBindings {
    /// The bindings `weights` (a rig's own weights on `scene`, as an import writes them)
    /// record: per part with vertices, the bones with weight on any of its vertices; a part
    /// whose every vertex lies wholly on one bone goes to [`FileBindings::home`].
    ///
    /// Errors: [`WeightsError::WeightsShape`](crate::error::WeightsError::WeightsShape) when
    /// `weights` does not fit the scene.
    pub fn from_weights(scene: &Scene, weights: &Weights) -> Result<FileBindings> {
        let nb = scene.skeleton.len();
        crate::skinning::check_shape(scene.mesh.vertex_count(), weights, nb)?;
        let parts = scene.mesh.parts();
        let mut used = vec![vec![false; nb]; parts.len()];
        let mut rigid = vec![true; parts.len()];
        let mut count = vec![0usize; parts.len()];
        for (v, &p) in scene.mesh.vertex_parts().iter().enumerate() {
            count[p] += 1;
            let row = weights.row(v);
            let on: Vec<usize> = (0..nb).filter(|&j| row[j] > BOUND_WEIGHT).collect();
            rigid[p] &= on.len() == 1;
            on.into_iter().for_each(|j| used[p][j] = true);
        }
        let mut out = FileBindings::default();
        for (p, part) in parts.iter().enumerate().filter(|&(p, _)| count[p] > 0) {
            let bones: Vec<usize> = (0..nb).filter(|&j| used[p][j]).collect();
            let mb = MeshBones {
                part: part.clone(),
                bones,
            };
            match (rigid[p], mb.bones.len()) {
                (_, 0) => {}
                (true, 1) => out.home.push(mb),
                _ => out.artist.push(mb),
            }
        }
        Ok(out)
    }
}

/// A weight above this binds a vertex to a bone (below it is rounding in the file).
const BOUND_WEIGHT: f64 = 1e-6;

/// The weights of `scene` by `bind`: the step every driver calls.
///
/// - [`Bind::All`]: `solver` over the `deforming` bones on the whole scene.
/// - [`Bind::Auto`]: that whole solve, then [`auto_bones`] (with `file.home`) and
///   [`solve_bound`]; `file.artist` is not used.
/// - [`Bind::Artist`]: the meshes of `file.artist` solved over their bones; the other parts
///   get the binder's bones (the whole solve is skipped when every part is listed).
///
/// Errors: those of [`solve_with_bones`], [`auto_bones`] and [`solve_bound`].
pub fn bind(
    solver: &dyn Solver,
    scene: &Scene,
    bind: Bind,
    deforming: &[usize],
    file: &FileBindings,
    options: &BindOptions,
) -> Result<Weights> {
    let artist: &[MeshBones] = match bind {
        Bind::Artist => &file.artist,
        Bind::Auto | Bind::All => &[],
    };
    let mut has_vertices = vec![false; scene.mesh.parts().len()];
    scene
        .mesh
        .vertex_parts()
        .iter()
        .for_each(|&p| has_vertices[p] = true);
    let unbound = scene
        .mesh
        .parts()
        .iter()
        .enumerate()
        .any(|(p, part)| has_vertices[p] && !artist.iter().any(|a| a.part == *part));
    if !unbound && bind == Bind::Artist {
        let rest = Weights::zeros(scene.mesh.vertex_count(), scene.skeleton.len());
        return solve_bound(solver, scene, artist, rest);
    }
    let whole = solve_with_bones(solver, scene, deforming)?.weights;
    if bind == Bind::All {
        return Ok(whole);
    }
    let mut bindings = auto_bones(scene, &whole, &file.home, options)?;
    bindings.retain(|mb| !artist.iter().any(|a| a.part == mb.part));
    bindings.extend(artist.iter().cloned());
    solve_bound(solver, scene, &bindings, whole)
}

/// Solves `scene` with only the bones `bones` (scene indices; seams kept), and returns the
/// solution on every bone of the scene: the other bones' columns are 0, so rows still sum
/// to 1 over all bones. With every bone it is `solver.solve(scene)` itself.
///
/// Errors: those of the solver, and [`SkeletonError::UnknownBone`] for an index past the skeleton.
pub fn solve_with_bones(solver: &dyn Solver, scene: &Scene, bones: &[usize]) -> Result<Solution> {
    let nb = scene.skeleton.len();
    let mut sorted = bones.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted == (0..nb).collect::<Vec<_>>() {
        return solver.solve(scene);
    }
    let names = bone_names_in(
        scene,
        &sorted,
        &format!("solve with bones of scene {:?}", scene.name),
    )?;
    let mut cut = SubScene::with_bones(scene, &names)?;
    if !scene.seams.is_empty() {
        cut.scene = cut.scene.with_seams(scene.seams.clone())?;
    }
    let solution = solver.solve(&cut.scene)?;
    let mut full = Weights::zeros(scene.mesh.vertex_count(), nb);
    cut.scatter(&solution.weights, &mut full)?;
    Ok(Solution {
        weights: full,
        report: solution.report,
    })
}

/// The names of `bones` (scene indices); an index past the skeleton is
/// [`SkeletonError::UnknownBone`] in `context`.
fn bone_names_in(scene: &Scene, bones: &[usize], context: &str) -> Result<Vec<String>> {
    bones
        .iter()
        .map(|&j| {
            scene
                .skeleton
                .bones()
                .get(j)
                .map(|b| b.name.clone())
                .ok_or_else(|| {
                    Error::Skeleton(SkeletonError::UnknownBone {
                        context: context.to_string(),
                        bone: format!("#{j}"),
                    })
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{builtin_scene, BuiltinOptions};

    fn arms_down() -> Scene {
        let options = BuiltinOptions {
            vertices: 2000,
            ..BuiltinOptions::default()
        };
        builtin_scene("arms-down", &options).unwrap()
    }

    #[test]
    fn names_parse_and_a_wrong_one_is_named() {
        assert_eq!("auto".parse::<Bind>().unwrap(), Bind::Auto);
        assert_eq!("artist".parse::<Bind>().unwrap(), Bind::Artist);
        let e = "some".parse::<Bind>().unwrap_err().to_string();
        assert!(
            e.contains("--bind") && e.contains("artist, auto, all"),
            "{e}"
        );
    }

    #[test]
    fn the_threshold_splits_equal_weights() {
        let scene = arms_down();
        let (nv, nb) = (scene.mesh.vertex_count(), scene.skeleton.len());
        let mut w = Weights::zeros(nv, nb);
        w.rows_mut().for_each(|r| r.fill(1.0 / nb as f64));
        let below = BindOptions {
            min_mass: 0.5 / nb as f64,
        };
        let all = auto_bones(&scene, &w, &[], &below).unwrap();
        assert_eq!(all.len(), scene.mesh.parts().len());
        assert!(all.iter().all(|mb| mb.bones.len() == nb));
        let above = BindOptions {
            min_mass: 2.0 / nb as f64,
        };
        let one = auto_bones(&scene, &w, &[], &above).unwrap();
        assert!(one.iter().all(|mb| mb.bones.len() == 1), "{one:?}");
        let nan = BindOptions { min_mass: f64::NAN };
        let e = auto_bones(&scene, &w, &[], &nan).unwrap_err().to_string();
        assert!(e.contains("min_mass"), "{e}");
    }

    #[test]
    fn all_is_the_whole_solve_and_auto_weights_every_vertex() {
        let scene = arms_down();
        let solver = crate::solvers::recommended();
        let every: Vec<usize> = (0..scene.skeleton.len()).collect();
        let options = BindOptions::default();
        let none = FileBindings::default();
        let all = bind(solver.as_ref(), &scene, Bind::All, &every, &none, &options).unwrap();
        assert_eq!(all, solver.solve(&scene).unwrap().weights);
        let auto = bind(solver.as_ref(), &scene, Bind::Auto, &every, &none, &options).unwrap();
        assert!(auto.normalization_error() < 1e-9);
        let wrong = FileBindings {
            artist: vec![MeshBones {
                part: scene.mesh.parts()[0].clone(),
                bones: vec![999],
            }],
            home: vec![],
        };
        let e = bind(
            solver.as_ref(),
            &scene,
            Bind::Artist,
            &every,
            &wrong,
            &options,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("#999"), "{e}");
    }
}
