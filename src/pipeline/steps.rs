//! The steps every driver takes an item through: bind and solve, lint, score against the
//! artist, export.

use crate::binding::{Bind, Binding};
use crate::error::Result;
use crate::io::{ExportOptions, Exported, Format};
use crate::lint::{lint_on, shared_with_reference, Check, LintOptions, LintScene};
use crate::metrics::artist::{score_against_artist, ArtistMesh, ArtistScoreOptions};
use crate::scene::Scene;
use crate::solvers::{Solution, Solver};
use crate::weights::Weights;
use std::path::Path;

/// How each mesh of `scene` is bound, as `skinweights solve` picks it: `bind` (`None`: the
/// default of [`Binding::for_scene`]) over the `listed` bones (`--bones`), else the deforming
/// bones ([`Scene::deforming_bones`]: no IK target, and with the `artist`'s weights, no bone
/// they bind to no vertex).
///
/// Errors: those of [`Scene::deforming_bones`] and [`Binding::for_scene`].
pub fn binding(
    scene: &Scene,
    bind: Option<Bind>,
    listed: Option<Vec<usize>>,
    artist: Option<&Weights>,
) -> Result<Binding> {
    let restrict = listed.is_some();
    let bones = match listed {
        Some(bones) => bones,
        None => scene.deforming_bones(artist)?.kept,
    };
    Binding::for_scene(scene, bind, bones, artist, restrict)
}

/// `solver` on `scene` as `binding` binds it, keeping at most `max_influences` per vertex
/// ([`Weights::top_k`]) when given.
pub fn solve(
    scene: &Scene,
    solver: &dyn Solver,
    binding: &Binding,
    max_influences: Option<usize>,
) -> Result<Solution> {
    let mut solution = binding.solve(solver, scene)?;
    if let Some(k) = max_influences {
        solution.weights = solution.weights.top_k(k);
    }
    Ok(solution)
}

/// The lint checks of some weights, and those of the reference weights they are judged
/// against.
#[derive(Debug, Clone)]
pub struct Linted {
    /// The checks of the weights (a driver may append the pixel-edge rows).
    pub checks: Vec<Check>,
    /// The reference's checks, when there is a reference.
    pub reference: Option<Vec<Check>>,
}

impl Linted {
    /// Whether `check` fails as badly for the reference: the failure is the rig's (as an
    /// imported rig's own weights show), listed but not counted.
    pub fn shared(&self, check: &Check) -> bool {
        self.reference
            .as_ref()
            .is_some_and(|r| shared_with_reference(check, r))
    }
}

/// [`crate::lint::lint`] of `weights` on `scene`, and of `reference` when given (the poses
/// and rest-pose work computed once for both).
pub fn lint(
    scene: &Scene,
    weights: &Weights,
    reference: Option<&Weights>,
    options: &LintOptions,
) -> Result<Linted> {
    let at = LintScene::new(scene);
    let checks = lint_on(&at, weights, options)?;
    let reference = reference.map(|r| lint_on(&at, r, options)).transpose()?;
    Ok(Linted { checks, reference })
}

/// Weights scored against the artist's over the artist meshes.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ArtistScores {
    /// Artist meshes scored (those of the scene).
    pub meshes: usize,
    /// Vertices whose largest bone is the artist's, % of the meshes' vertices; `None`
    /// without vertices.
    pub agreement_pct: Option<f64>,
    /// Mean weight distance per vertex; `None` without vertices.
    pub weight_distance: Option<f64>,
    /// Mean one-bone deviation over (mesh, bone) pairs, %; `None` without pairs.
    pub one_bone_mean_pct: Option<f64>,
    /// 95th percentile of the one-bone deviations, %.
    pub one_bone_p95_pct: Option<f64>,
}

/// The benchmark's scores of `weights` against `artist` over the artist `meshes` (parts
/// missing from the scene are left out): agreement and weight distance pooled over
/// vertices, the one-bone deviation's mean and 95th percentile over (mesh, bone) pairs.
pub fn score(
    scene: &Scene,
    weights: &Weights,
    artist: &Weights,
    meshes: &[(String, Vec<String>)],
) -> Result<ArtistScores> {
    let options = ArtistScoreOptions::default();
    let parts = scene.mesh().vertex_parts();
    let (mut vertices, mut agreeing, mut distance) = (0, 0, 0.0);
    let mut deviations = Vec::new();
    let mut scored = 0;
    for (part, bones) in meshes {
        let Some(p) = scene.mesh().part_index(part) else {
            continue;
        };
        let mesh_vertices: Vec<usize> = (0..parts.len()).filter(|&v| parts[v] == p).collect();
        let mesh_bones: Vec<usize> = bones
            .iter()
            .filter_map(|b| scene.skeleton().index_of(b))
            .collect();
        let mesh = ArtistMesh {
            vertices: &mesh_vertices,
            bones: &mesh_bones,
        };
        let s = score_against_artist(scene, weights, artist, mesh, &options)?;
        scored += 1;
        vertices += s.vertices;
        agreeing += s.agreeing;
        distance += s.weight_distance_sum;
        deviations.extend(s.one_bone_deviation_pct);
    }
    let mut scores = ArtistScores {
        meshes: scored,
        ..ArtistScores::default()
    };
    if vertices > 0 {
        scores.agreement_pct = Some(100.0 * agreeing as f64 / vertices as f64);
        scores.weight_distance = Some(distance / vertices as f64);
    }
    if !deviations.is_empty() {
        scores.one_bone_mean_pct = Some(deviations.iter().sum::<f64>() / deviations.len() as f64);
        scores.one_bone_p95_pct = Some(crate::metrics::percentile(&deviations, 0.95));
    }
    Ok(scores)
}

/// `scene` with `weights` in `format`, written to `path` (and its atlas beside it when the
/// export makes one); the export, for its notes and summary.
pub fn export(
    format: &Format,
    scene: &Scene,
    weights: &Weights,
    options: &ExportOptions,
    path: &Path,
) -> Result<Exported> {
    let exported = format.export(scene, weights, options)?;
    exported.save(path)?;
    Ok(exported)
}
