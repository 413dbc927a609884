//! Which bones each mesh of a scene is solved over (issue 60): the imported bindings
//! ([`Bind::Artist`], protocol (a)), a binder that picks each mesh's bones without any artist
//! weight ([`Bind::Auto`], protocol (c)), or every deforming bone at once ([`Bind::All`], the
//! whole solve, protocol (b)); and a solve over a subset of the bones
//! ([`solve_with_bones`], the deforming bones of [`Scene::deforming_bones`]). The binder's
//! figures: `docs/binding.md`.
//!
//! The binder starts from the whole solve: a bone that the whole solve gives little weight on
//! a mesh, or whose segment does not mostly lie in the mesh, is one an artist rarely binds
//! that mesh to; each mesh is then solved again over the bones it keeps
//! ([`BindOptions`] documents each rule and its default). A learned binder
//! ([`BinderModel`] over [`pair_features`], `BindOptions::model`) edits or replaces the rule:
//! boosted trees ([`FITTED_TREES`]) beat the rule leaving one source out, so
//! [`BindOptions::default`] uses them; [`BindOptions::rule`] is the rule alone.
//!
//! It runs solvers, so it sits above [`crate::solvers`] (and [`crate::scene`], whose model it
//! cuts into sub-scenes).

use crate::error::{ArgumentError, Error, Result, SkeletonError};
use crate::scene::{MeshParts, Scene, SubScene};
use crate::solvers::{Solution, SolveWarning, Solver};
use crate::weights::Weights;
use nalgebra::{Point2, Vector2};
use rayon::prelude::*;

mod fitted_trees;
mod trees;

pub use trees::{BinderTrees, PairTree, FITTED_TREES};

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

    /// The default: [`Bind::Artist`] for a scene with the rig's own weights (an imported rig),
    /// else [`Bind::All`] (sprites and built-in scenes keep the whole solve).
    pub fn default_for(has_artist_weights: bool) -> Bind {
        if has_artist_weights {
            Bind::Artist
        } else {
            Bind::All
        }
    }
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

/// The binder's settings. The default is the shipped trees ([`FITTED_TREES`], chosen by
/// leaving one source out of 51 painted rigs); [`BindOptions::rule`] is the hand-made rule,
/// whose settings were chosen on the same rigs (`docs/binding.md`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BindOptions {
    /// A bone is kept for a mesh when its whole-solve weight, averaged over the mesh's
    /// vertices, is at least this. The mesh's heaviest bone is always kept. Default 0.02.
    pub min_mass: f64,
    /// A mesh keeps, besides its heaviest bone, only bones with at least this many of the
    /// five points of their segment (ends and quarters) inside its triangles (0: no
    /// condition). Default 3: bones whose segment mostly lies in the mesh.
    pub min_inside: usize,
    /// Whether a mesh always keeps its home bone (the bone an unweighted mesh hangs on); else
    /// the home bone is kept by the same rules as the others. Default false: forcing it in
    /// made the re-solve fold meshes whose artist binds the home bone's children instead.
    pub keep_home: bool,
    /// Whether each mesh is solved again over its bones ([`solve_bound`]); otherwise the whole
    /// solve is pruned to them ([`prune`]: cheaper, one solve in all). Default true.
    pub resolve: bool,
    /// Whether the whole solve leaves out roots, points and holders of rigid art
    /// ([`whole_bones`]). Default false.
    pub skip_holders: bool,
    /// Whether the whole solve leaves out the bones that lie outside every mesh
    /// ([`whole_bones`]). Default false.
    pub skip_outside: bool,
    /// A learned binder: when set, each mesh keeps the bones this model binds
    /// ([`BinderModel::choose`] over [`pair_features`], whose rule feature is `min_mass` 0.02
    /// and `min_inside` 3) instead of `min_mass` and `min_inside`. Default
    /// `Some(BinderModel::Trees(FITTED_TREES))`; `None` in [`BindOptions::rule`].
    pub model: Option<BinderModel>,
    /// With `resolve`, each mesh the binder re-solves ([`Bind::Auto`], and the parts
    /// [`Bind::Artist`] leaves to the binder) with fewer vertices than this is solved on a
    /// uniformly subdivided copy of at least this many vertices and read back at its own
    /// vertices ([`crate::solvers::Refined`]): an artist's mesh of 20-150 vertices is too
    /// coarse for a diffusion to resolve. `None`: every mesh on its own vertices. Default
    /// `Some(`[`BindOptions::DEFAULT_REFINE`]`)`; `None` in [`BindOptions::rule`].
    pub refine: Option<usize>,
}

impl Default for BindOptions {
    /// The shipped trees over the rule's settings, each mesh re-solved subdivided to
    /// [`BindOptions::DEFAULT_REFINE`] vertices: both chosen by leaving one source out
    /// (`docs/binding.md`).
    fn default() -> Self {
        BindOptions {
            model: Some(BinderModel::Trees(FITTED_TREES)),
            refine: Some(BindOptions::DEFAULT_REFINE),
            ..BindOptions::rule()
        }
    }
}

impl BindOptions {
    /// Default of [`BindOptions::refine`]: the subdivision target chosen for every painted
    /// rig with its source left out, among none, 50, 100, 150, 500 and 2000 vertices
    /// (`BINDING_MODE=refine`, `docs/binding.md`).
    pub const DEFAULT_REFINE: usize = 150;

    /// The hand-made rule alone (no model): the mean weight and segment rules with the
    /// settings chosen on all rigs, each mesh re-solved on its own vertices.
    pub fn rule() -> Self {
        BindOptions {
            min_mass: 0.02,
            min_inside: 3,
            keep_home: false,
            resolve: true,
            skip_holders: false,
            skip_outside: false,
            model: None,
            refine: None,
        }
    }
}

/// A solver run on each scene's mesh subdivided to at least `target` vertices (the binder's
/// re-solve with [`BindOptions::refine`]).
struct RefinedBy<'a> {
    inner: &'a dyn Solver,
    target: usize,
}

impl<'a> RefinedBy<'a> {
    /// `solver` subdivided as `options.refine` says; `None` when it says no.
    fn from_options(solver: &'a dyn Solver, options: &BindOptions) -> Option<Self> {
        options.refine.map(|target| RefinedBy {
            inner: solver,
            target,
        })
    }
}

impl Solver for RefinedBy<'_> {
    fn name(&self) -> String {
        self.inner.name()
    }

    /// A copy the inner solver cannot solve (bbw's system on a subdivided sliver is not
    /// positive definite) does not stop the bind: the mesh is solved on its own vertices,
    /// with a [`SolveWarning::RefineFailed`] saying so.
    fn compute(&self, scene: &Scene) -> Result<Solution> {
        match crate::solvers::compute_refined(self.inner, self.name(), scene, self.target) {
            Ok(solved) => Ok(solved),
            Err(error) => {
                let mut own = self.inner.compute(scene)?;
                own.report.warnings.push(SolveWarning::RefineFailed {
                    target: self.target,
                    error: error.to_string(),
                });
                Ok(own)
            }
        }
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

/// A part with at most this many vertices is a quad (a Spine region, a DragonBones image): it
/// cannot be weighted in its file, so the binder keeps it rigid on its home bone.
pub const RIGID_VERTICES: usize = 4;

/// The bones of `deforming` the whole solve of [`Bind::Auto`] uses, read from the skeleton,
/// the meshes and the home bones alone (`docs/binding.md`: over 51 painted rigs an artist bound
/// a mesh to 3 of 442 leaf bones holding rigid art, 5 of 52 roots, and 15 of 114 bones lying
/// outside every mesh). With `options.skip_holders`, without:
/// - a root (a bone without parent) that has children;
/// - a bone of zero length (below 1e-3 of the longest bone);
/// - a bone that is the home of some part and of no part with more than [`RIGID_VERTICES`]
///   vertices (it holds rigid art only);
///
/// and with `options.skip_outside`, without a bone none of whose five points (head, tail and
/// three between) lies in a triangle of a part with more than [`RIGID_VERTICES`] vertices.
/// `deforming` itself when that would leave no bone.
pub fn whole_bones(
    scene: &Scene,
    deforming: &[usize],
    home: &[MeshBones],
    options: &BindOptions,
) -> Vec<usize> {
    let bones = scene.skeleton.bones();
    let longest = bones.iter().map(|b| b.length()).fold(0.0, f64::max);
    let shapes = PartShapes::new(scene);
    let (mut holds_rigid, mut holds_mesh) = (vec![false; bones.len()], vec![false; bones.len()]);
    for h in home {
        let n = scene
            .mesh
            .part_index(&h.part)
            .map_or(0, |p| shapes.count[p]);
        for &j in h.bones.iter().filter(|&&j| j < bones.len()) {
            if n > RIGID_VERTICES {
                holds_mesh[j] = true;
            } else {
                holds_rigid[j] = true;
            }
        }
    }
    let has_children = |j: usize| bones.iter().any(|b| b.parent == Some(j));
    let kept: Vec<usize> = deforming
        .iter()
        .copied()
        .filter(|&j| {
            let Some(b) = bones.get(j) else { return true };
            let root = b.parent.is_none() && has_children(j);
            let point = b.length() < 1e-3 * longest;
            let holder = holds_rigid[j] && !holds_mesh[j];
            let holds = options.skip_holders && (root || point || holder);
            let outside = options.skip_outside
                && !(0..shapes.count.len())
                    .any(|p| shapes.count[p] > RIGID_VERTICES && shapes.meets(p, b));
            !(holds || outside)
        })
        .collect();
    if kept.is_empty() {
        deforming.to_vec()
    } else {
        kept
    }
}

/// Each part's triangles and bounding box, to ask whether a bone lies in it.
struct PartShapes {
    /// Vertices per part.
    count: Vec<usize>,
    /// Triangles per part, as corner points.
    triangles: Vec<Vec<[Point2<f64>; 3]>>,
    /// Bounding box per part: min and max corner.
    bounds: Vec<[Point2<f64>; 2]>,
}

impl PartShapes {
    fn new(scene: &Scene) -> PartShapes {
        let n = scene.mesh.parts().len();
        let vertex_parts = scene.mesh.vertex_parts();
        let points = scene.mesh.vertices();
        let mut count = vec![0usize; n];
        let far = Point2::new(f64::INFINITY, f64::INFINITY);
        let mut bounds = vec![[far, -far]; n];
        for (v, &p) in vertex_parts.iter().enumerate() {
            count[p] += 1;
            let [lo, hi] = &mut bounds[p];
            *lo = lo.inf(&points[v]);
            *hi = hi.sup(&points[v]);
        }
        let mut triangles = vec![Vec::new(); n];
        for t in scene.mesh.triangles() {
            triangles[vertex_parts[t[0]]].push(t.map(|v| points[v]));
        }
        PartShapes {
            count,
            triangles,
            bounds,
        }
    }

    /// Whether one of the five points of `bone`'s segment (ends and quarters) lies in part `p`.
    fn meets(&self, p: usize, bone: &crate::skeleton::Bone) -> bool {
        self.points_in(p, bone) > 0
    }

    /// How many of the five points of `bone`'s segment (ends and quarters) lie in part `p`.
    fn points_in(&self, p: usize, bone: &crate::skeleton::Bone) -> usize {
        (0..=4)
            .filter(|&k| {
                let q = bone.head + (bone.tail - bone.head) * (k as f64 / 4.0);
                self.contains(p, &q)
            })
            .count()
    }

    fn contains(&self, p: usize, q: &Point2<f64>) -> bool {
        let [lo, hi] = self.bounds[p];
        if q.x < lo.x || q.y < lo.y || q.x > hi.x || q.y > hi.y {
            return false;
        }
        self.triangles[p].iter().any(|[a, b, c]| {
            let side = |u: &Point2<f64>, w: &Point2<f64>| {
                (w.x - u.x) * (q.y - u.y) - (w.y - u.y) * (q.x - u.x)
            };
            let (x, y, z) = (side(a, b), side(b, c), side(c, a));
            (x >= 0.0 && y >= 0.0 && z >= 0.0) || (x <= 0.0 && y <= 0.0 && z <= 0.0)
        })
    }
}

/// Per part of `scene` with vertices, the bones `whole` (weights on the whole scene) gives a
/// mean weight of at least `options.min_mass` on it and at least `options.min_inside` points
/// of their segment in it, and always the heaviest one; with `options.keep_home` also the
/// part's home bone (`home`, when listed: the bone an unweighted mesh hangs on). With
/// `options.model`, the bones that model binds instead ([`BinderModel::choose`]).
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
    if let Some(model) = &options.model {
        return Ok(model.choose(&pair_features(scene, whole, home)?));
    }
    let parts = scene.mesh.parts();
    let shapes = PartShapes::new(scene);
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
        .filter(|&(p, _)| count[p] > 0 && nb > 0)
        .map(|(p, part)| {
            let mean: Vec<f64> = mass[p].iter().map(|m| m / count[p] as f64).collect();
            let heaviest = (0..nb)
                .max_by(|&a, &b| mean[a].total_cmp(&mean[b]))
                .unwrap_or(0);
            let homes: Vec<usize> = home
                .iter()
                .find(|h| h.part == *part)
                .map_or(&[][..], |h| &h.bones)
                .iter()
                .copied()
                .filter(|&j| j < nb)
                .collect();
            let lies_in = |j: usize| {
                options.min_inside == 0
                    || shapes.points_in(p, &scene.skeleton.bones()[j]) >= options.min_inside
            };
            let bones: Vec<usize> = (0..nb)
                .filter(|&j| {
                    (mean[j] >= options.min_mass && mean[j] > 0.0 && lies_in(j))
                        || j == heaviest
                        || (options.keep_home && homes.contains(&j))
                })
                .collect();
            MeshBones {
                part: part.clone(),
                bones,
            }
        })
        .collect())
}

/// How many numbers describe a (mesh, bone) pair for the learned binder ([`pair_features`]).
pub const FEATURES: usize = 26;

/// The name of each feature of [`pair_features`], in order. Distances and lengths are relative
/// to the mesh's size (the diagonal of its bounding box); hierarchy steps are capped at
/// [`MAX_STEPS`] and divided by it.
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "mean whole weight",
    "sqrt mean whole weight",
    "max whole weight",
    "share of vertices it leads",
    "share of segment points inside",
    "segment to nearest vertex",
    "segment to centre",
    "is home",
    "steps to home",
    "mesh has a home",
    "steps to heaviest",
    "is heaviest",
    "log length",
    "children",
    "1 / (1 + mass rank)",
    "is root",
    "ancestor of heaviest",
    "descendant of heaviest",
    "mass over heaviest's",
    "mass 0.02 and 3 points inside",
    "log(1 + bones of the mesh passing the rule)",
    "parent passes the rule",
    "a child passes the rule",
    "log(1 + rig's mean bones passing the rule per mesh)",
    "name tokens shared (Jaccard)",
    "every name token of the bone in the mesh's",
];

/// The feature of [`FEATURE_NAMES`] that is the hand-made rule (mean weight 0.02 and 3 of the
/// segment's 5 points in the mesh), and the one that marks the heaviest bone: together the
/// base set [`BinderModel::choose`] edits.
const RULE: usize = 19;
const HEAVIEST: usize = 11;

/// Hierarchy steps beyond this count as this many in [`pair_features`].
pub const MAX_STEPS: usize = 6;

/// One part's candidate bones and the features of each ([`FEATURE_NAMES`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PartFeatures {
    /// The part's name.
    pub part: String,
    /// Candidate bones (scene indices, ascending).
    pub bones: Vec<usize>,
    /// Per candidate, its features.
    pub features: Vec<[f64; FEATURES]>,
}

/// A regularised logit over [`pair_features`]: a bone is bound to a mesh when its probability
/// is at least `threshold`; the most probable bone always is. Fitted by the binding experiment
/// (`experiments/binding.rs`) on the painted rigs, leaving one source out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BinderLogit {
    /// Per feature, the mean it is centred by.
    pub mean: [f64; FEATURES],
    /// Per feature, the spread it is divided by (1 for a constant feature).
    pub scale: [f64; FEATURES],
    /// Per standardised feature, its coefficient.
    pub coef: [f64; FEATURES],
    /// The intercept.
    pub bias: f64,
    /// The probability from which any bone is bound.
    pub threshold: f64,
    /// The probability from which a bone of the base set (the hand-made rule's bones and the
    /// heaviest) stays bound: the model edits the rule. Equal to `threshold` for a plain logit.
    pub keep: f64,
}

impl BinderLogit {
    /// The probability that an artist binds the pair with features `x`.
    pub fn probability(&self, x: &[f64; FEATURES]) -> f64 {
        let z = self.bias
            + (0..FEATURES)
                .map(|k| self.coef[k] * (x[k] - self.mean[k]) / self.scale[k])
                .sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }

    /// Per part of `features`, the bones with a probability of at least `threshold`, those of
    /// the base set with at least `keep`, and always the most probable one.
    pub fn choose(&self, features: &[PartFeatures]) -> Vec<MeshBones> {
        choose_by(features, |x| self.probability(x), self.threshold, self.keep)
    }
}

/// A learned binder over [`pair_features`]: a logit or boosted trees.
// `BindOptions` is `Copy` and a model is copied once per bind, so the logit stays unboxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BinderModel {
    /// A regularised logit.
    Logit(BinderLogit),
    /// Boosted trees ([`FITTED_TREES`] is the one [`BindOptions::default`] uses).
    Trees(BinderTrees),
}

impl BinderModel {
    /// The probability that an artist binds the pair with features `x`.
    pub fn probability(&self, x: &[f64; FEATURES]) -> f64 {
        match self {
            BinderModel::Logit(l) => l.probability(x),
            BinderModel::Trees(t) => t.probability(x),
        }
    }

    /// Per part of `features`, the bones this model binds.
    pub fn choose(&self, features: &[PartFeatures]) -> Vec<MeshBones> {
        match self {
            BinderModel::Logit(l) => l.choose(features),
            BinderModel::Trees(t) => t.choose(features),
        }
    }
}

/// Per part of `features`, the bones whose `probability` is at least `threshold`, those of the
/// base set (the rule's bones and the heaviest) with at least `keep`, and always the most
/// probable one: [`BinderModel::choose`] for any model of the pairs.
pub fn choose_by(
    features: &[PartFeatures],
    probability: impl Fn(&[f64; FEATURES]) -> f64 + Sync,
    threshold: f64,
    keep: f64,
) -> Vec<MeshBones> {
    // Parts on rayon's threads: a hundred trees per pair were a third of the binder's time on
    // ggx-character (652 parts x 84 bones).
    features
        .par_iter()
        .map(|pf| {
            let p: Vec<f64> = pf.features.iter().map(&probability).collect();
            let top = (0..p.len()).max_by(|&a, &b| p[a].total_cmp(&p[b]));
            let bones = (0..p.len())
                .filter(|&k| {
                    let x = &pf.features[k];
                    let base = x[RULE] > 0.5 || x[HEAVIEST] > 0.5;
                    p[k] >= threshold || (base && p[k] >= keep) || Some(k) == top
                })
                .map(|k| pf.bones[k])
                .collect();
            MeshBones {
                part: pf.part.clone(),
                bones,
            }
        })
        .collect()
}

/// Hierarchy steps between bones, from their depths and parents.
struct Hierarchy {
    parent: Vec<Option<usize>>,
    depth: Vec<usize>,
    children: Vec<usize>,
}

impl Hierarchy {
    fn new(bones: &[crate::skeleton::Bone]) -> Hierarchy {
        let parent: Vec<Option<usize>> = bones
            .iter()
            .map(|b| b.parent.filter(|&q| q < bones.len()))
            .collect();
        let mut children = vec![0usize; bones.len()];
        parent.iter().flatten().for_each(|&q| children[q] += 1);
        // Bounded by the bone count so that a cycle cannot loop.
        let depth = (0..bones.len())
            .map(|j| {
                let (mut d, mut at) = (0, j);
                while let Some(q) = parent[at].filter(|_| d < bones.len()) {
                    d += 1;
                    at = q;
                }
                d
            })
            .collect();
        Hierarchy {
            parent,
            depth,
            children,
        }
    }

    /// Steps from `a` to `b` through their lowest common ancestor; [`MAX_STEPS`] at most.
    fn steps(&self, a: usize, b: usize) -> usize {
        let (mut a, mut b, mut n) = (a, b, 0);
        while a != b && n < MAX_STEPS {
            if self.depth[a] >= self.depth[b] {
                match self.parent[a] {
                    Some(q) => a = q,
                    None => return MAX_STEPS,
                }
            } else {
                match self.parent[b] {
                    Some(q) => b = q,
                    None => return MAX_STEPS,
                }
            }
            n += 1;
        }
        if a == b {
            n
        } else {
            MAX_STEPS
        }
    }

    /// Whether `a` is a strict ancestor of `b`.
    fn is_ancestor(&self, a: usize, b: usize) -> bool {
        let (mut at, mut n) = (b, 0);
        while let Some(q) = self.parent[at].filter(|_| n < self.parent.len()) {
            if q == a {
                return true;
            }
            at = q;
            n += 1;
        }
        false
    }
}

/// The features ([`FEATURE_NAMES`]) of each part of `scene` with vertices and each candidate
/// bone: the bones `whole` (the whole solve) gives any weight to somewhere; read from `whole`,
/// the skeleton, the meshes and `home` (the parts' home bones) alone.
///
/// Errors: [`WeightsError::WeightsShape`](crate::error::WeightsError::WeightsShape) when
/// `whole` does not fit the scene.
pub fn pair_features(
    scene: &Scene,
    whole: &Weights,
    home: &[MeshBones],
) -> Result<Vec<PartFeatures>> {
    let nb = scene.skeleton.len();
    crate::skinning::check_shape(scene.mesh.vertex_count(), whole, nb)?;
    let parts = scene.mesh.parts();
    let mut verts = vec![Vec::new(); parts.len()];
    let mut used = vec![false; nb];
    for (v, &p) in scene.mesh.vertex_parts().iter().enumerate() {
        verts[p].push(v);
        whole
            .row(v)
            .iter()
            .zip(used.iter_mut())
            .for_each(|(&w, u)| *u |= w > 0.0);
    }
    let candidates: Vec<usize> = (0..nb).filter(|&j| used[j]).collect();
    let rig = PairContext {
        tokens: scene
            .skeleton
            .bones()
            .iter()
            .map(|b| name_tokens(&b.name))
            .collect(),
        bones: scene.skeleton.bones(),
        tree: Hierarchy::new(scene.skeleton.bones()),
        shapes: PartShapes::new(scene),
        points: scene.mesh.vertices(),
        whole,
        candidates,
    };
    let mut out: Vec<PartFeatures> = parts
        .par_iter()
        .enumerate()
        .filter(|&(p, _)| !verts[p].is_empty() && !rig.candidates.is_empty())
        .map(|(p, part)| {
            let home_bone = home
                .iter()
                .find(|h| h.part == *part)
                .and_then(|h| h.bones.first().copied())
                .filter(|&j| j < nb);
            rig.part(p, part, &verts[p], home_bone)
        })
        .collect();
    context_features(&mut out, &rig.tree);
    Ok(out)
}

/// What [`pair_features`] reads for every part: the skeleton, the meshes, the whole solve and
/// its candidate bones.
struct PairContext<'a> {
    bones: &'a [crate::skeleton::Bone],
    /// Each bone's [`name_tokens`].
    tokens: Vec<Vec<String>>,
    tree: Hierarchy,
    shapes: PartShapes,
    points: &'a [Point2<f64>],
    whole: &'a Weights,
    candidates: Vec<usize>,
}

/// The whole solve on one part: per bone its mean and max weight and the share of the part's
/// vertices it leads, the heaviest candidate and each candidate's rank by mean weight.
struct WholeOnPart {
    mean: Vec<f64>,
    max: Vec<f64>,
    leads: Vec<f64>,
    heaviest: usize,
    rank: Vec<usize>,
}

impl PairContext<'_> {
    /// The features of part `p` (named `part`, vertices `vs`, home bone `home_bone`) with each
    /// candidate bone. The four context features are left 0 ([`context_features`]).
    fn part(&self, p: usize, part: &str, vs: &[usize], home_bone: Option<usize>) -> PartFeatures {
        let n = vs.len() as f64;
        let [lo, hi] = self.shapes.bounds[p];
        let size = (hi - lo).norm().max(1e-9);
        let centre = vs
            .iter()
            .fold(Point2::origin(), |c, &v| c + self.points[v].coords / n);
        let w = self.whole_on(vs);
        let (tree, heaviest) = (&self.tree, w.heaviest);
        let f = |b: bool| if b { 1.0 } else { 0.0 };
        let steps = |a: usize, b: usize| tree.steps(a, b) as f64 / MAX_STEPS as f64;
        let part_tokens = name_tokens(part);
        let features = self
            .candidates
            .iter()
            .map(|&j| {
                let b = &self.bones[j];
                let seg = b.segment();
                // The feature stops at 2 sizes: a bone whose box is that far from the part's
                // needs no distance to each vertex (a third of the binder's time on big rigs).
                let gap = |a: f64, b: f64, l: f64, h: f64| (a.min(b) - h).max(l - a.max(b));
                let box_gap = Vector2::new(
                    gap(seg.a.x, seg.b.x, lo.x, hi.x).max(0.0),
                    gap(seg.a.y, seg.b.y, lo.y, hi.y).max(0.0),
                )
                .norm();
                let nearest = if box_gap > 2.0 * size * (1.0 + 1e-9) {
                    f64::INFINITY
                } else {
                    vs.iter()
                        .map(|&v| seg.distance(&self.points[v]))
                        .fold(f64::INFINITY, f64::min)
                };
                let inside = self.shapes.points_in(p, b);
                let bone_tokens = &self.tokens[j];
                let mean = &w.mean;
                [
                    mean[j],
                    mean[j].sqrt(),
                    w.max[j],
                    w.leads[j],
                    inside as f64 / 5.0,
                    (nearest / size).min(2.0),
                    (seg.distance(&centre) / size).min(2.0),
                    f(home_bone == Some(j)),
                    home_bone.map_or(1.0, |h| steps(h, j)),
                    f(home_bone.is_some()),
                    steps(heaviest, j),
                    f(j == heaviest),
                    (b.length() / size).max(1e-3).ln().clamp(-5.0, 2.0),
                    tree.children[j].min(3) as f64 / 3.0,
                    1.0 / (1.0 + w.rank[j] as f64),
                    f(tree.parent[j].is_none()),
                    f(tree.is_ancestor(j, heaviest)),
                    f(tree.is_ancestor(heaviest, j)),
                    mean[j] / mean[heaviest].max(1e-12),
                    f(mean[j] >= 0.02 && inside >= 3),
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    shared_tokens(bone_tokens, &part_tokens),
                    f(!bone_tokens.is_empty()
                        && bone_tokens.iter().all(|t| part_tokens.contains(t))),
                ]
            })
            .collect::<Vec<[f64; FEATURES]>>();
        PartFeatures {
            part: part.to_string(),
            bones: self.candidates.clone(),
            features,
        }
    }

    /// The whole solve on the vertices `vs` of one part.
    fn whole_on(&self, vs: &[usize]) -> WholeOnPart {
        let nb = self.bones.len();
        let n = vs.len() as f64;
        let (mut mean, mut max, mut leads) = (vec![0.0; nb], vec![0.0f64; nb], vec![0.0; nb]);
        for &v in vs {
            let row = self.whole.row(v);
            let lead = (0..nb).max_by(|&a, &b| row[a].total_cmp(&row[b]));
            for &j in &self.candidates {
                mean[j] += row[j] / n;
                max[j] = max[j].max(row[j]);
            }
            lead.into_iter().for_each(|j| leads[j] += 1.0 / n);
        }
        let heaviest = self
            .candidates
            .iter()
            .copied()
            .max_by(|&a, &b| mean[a].total_cmp(&mean[b]).then(b.cmp(&a)))
            .unwrap_or(0);
        let mut order = self.candidates.clone();
        order.sort_by(|&a, &b| mean[b].total_cmp(&mean[a]).then(a.cmp(&b)));
        let mut rank = vec![0usize; nb];
        order.iter().enumerate().for_each(|(r, &j)| rank[j] = r);
        WholeOnPart {
            mean,
            max,
            leads,
            heaviest,
            rank,
        }
    }
}

/// The Jaccard index of two names' words ([`name_tokens`]).
fn shared_tokens(bone_tokens: &[String], part_tokens: &[String]) -> f64 {
    let common = bone_tokens
        .iter()
        .filter(|t| part_tokens.contains(t))
        .count();
    let union = bone_tokens.len() + part_tokens.len() - common;
    common as f64 / union.max(1) as f64
}

/// The words of a bone or part name, lowercase: split at anything not a letter or digit and
/// between letters and digits, numbers left out (`front-arm2` and `raptor-front-arm` share
/// `front` and `arm`: artists name a mesh after the bones that move it).
fn name_tokens(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut flush = |word: &mut String| {
        if !word.is_empty() && !word.chars().all(|c| c.is_ascii_digit()) {
            out.push(std::mem::take(word));
        }
        word.clear();
    };
    for c in name.chars().flat_map(char::to_lowercase) {
        let digit = c.is_ascii_digit();
        let switch = word
            .chars()
            .last()
            .is_some_and(|l| l.is_ascii_digit() != digit);
        if !c.is_alphanumeric() || switch {
            flush(&mut word);
        }
        if c.is_alphanumeric() {
            word.push(c);
        }
    }
    flush(&mut word);
    out.sort();
    out.dedup();
    out
}

/// Fills the features of [`pair_features`] that read the other bones of the mesh and the rig:
/// whether the bone's parent or a child passes the rule, how many bones of the mesh do, and how
/// many do per mesh over the rig (long chains inside a mesh are bound whole by their artists).
fn context_features(parts: &mut [PartFeatures], tree: &Hierarchy) {
    let passing = |pf: &PartFeatures| pf.features.iter().filter(|x| x[RULE] > 0.5).count();
    let per_mesh = parts.iter().map(passing).sum::<usize>() as f64 / parts.len().max(1) as f64;
    for pf in parts.iter_mut() {
        let n = passing(pf) as f64;
        let rule: Vec<usize> = (0..pf.bones.len())
            .filter(|&k| pf.features[k][RULE] > 0.5)
            .map(|k| pf.bones[k])
            .collect();
        for (x, &j) in pf.features.iter_mut().zip(&pf.bones) {
            let parent = tree.parent[j].is_some_and(|q| rule.contains(&q));
            let child = rule.iter().any(|&c| tree.parent[c] == Some(j));
            x[RULE + 1] = n.ln_1p();
            x[RULE + 2] = if parent { 1.0 } else { 0.0 };
            x[RULE + 3] = if child { 1.0 } else { 0.0 };
            x[RULE + 4] = per_mesh.ln_1p();
        }
    }
}

/// Per part of `scene` with vertices, the bones of `deforming` with at least `min_inside` of
/// the five points of their segment (ends and quarters) inside its triangles, and its home
/// bone (`home`); the bone of `deforming` nearest its centre when that leaves none. Reads the
/// skeleton and the meshes alone: no solve.
pub fn geometric_bones(
    scene: &Scene,
    deforming: &[usize],
    home: &[MeshBones],
    min_inside: usize,
) -> Vec<MeshBones> {
    let shapes = PartShapes::new(scene);
    let bones = scene.skeleton.bones();
    let points = scene.mesh.vertices();
    let mut centre = vec![Point2::origin(); shapes.count.len()];
    for (v, &p) in scene.mesh.vertex_parts().iter().enumerate() {
        centre[p] += points[v].coords / shapes.count[p] as f64;
    }
    scene
        .mesh
        .parts()
        .iter()
        .enumerate()
        .filter(|&(p, _)| shapes.count[p] > 0)
        .map(|(p, part)| {
            let homes = home
                .iter()
                .find(|h| h.part == *part)
                .map_or(&[][..], |h| &h.bones);
            let mut chosen: Vec<usize> = lying_in(&shapes, p, bones, deforming, min_inside)
                .chain(homes.iter().copied().filter(|&j| j < bones.len()))
                .collect();
            if chosen.is_empty() {
                let d = |j: usize| bones[j].segment().distance(&centre[p]);
                chosen.extend(
                    deforming
                        .iter()
                        .copied()
                        .filter(|&j| j < bones.len())
                        .min_by(|&a, &b| d(a).total_cmp(&d(b))),
                );
            }
            chosen.sort_unstable();
            chosen.dedup();
            MeshBones {
                part: part.clone(),
                bones: chosen,
            }
        })
        .collect()
}

/// The bones of `candidates` with at least `min_inside` (at least 1) of the five points of
/// their segment inside part `p`.
fn lying_in<'a>(
    shapes: &'a PartShapes,
    p: usize,
    bones: &'a [crate::skeleton::Bone],
    candidates: &'a [usize],
    min_inside: usize,
) -> impl Iterator<Item = usize> + 'a {
    candidates
        .iter()
        .copied()
        .filter(move |&j| j < bones.len() && shapes.points_in(p, &bones[j]) >= min_inside.max(1))
}

/// Adds to each mesh of `bindings` the bones of `candidates` with at least `min_inside` of the
/// five points of their segment (ends and quarters) inside it: bones lying in a mesh that the
/// whole solve gave no weight there (its part constraint gave them to another mesh).
pub fn add_lying_in(
    scene: &Scene,
    bindings: &mut [MeshBones],
    candidates: &[usize],
    min_inside: usize,
) {
    let shapes = PartShapes::new(scene);
    let bones = scene.skeleton.bones();
    for mb in bindings.iter_mut() {
        let Some(p) = scene.mesh.part_index(&mb.part) else {
            continue;
        };
        mb.bones
            .extend(lying_in(&shapes, p, bones, candidates, min_inside));
        mb.bones.sort_unstable();
        mb.bones.dedup();
    }
}

/// `scene` with each bone allowed to influence (its `influences`) only the parts of
/// `bindings` that list it and the parts `bindings` does not list: a whole solve of it is a
/// solve of each mesh over its bones that the solver's part constraint keeps continuous.
///
/// Errors: a bone index past the skeleton ([`SkeletonError::UnknownBone`]).
pub fn masked(scene: &Scene, bindings: &[MeshBones]) -> Result<Scene> {
    let nb = scene.skeleton.len();
    let listed: Vec<&str> = bindings.iter().map(|mb| mb.part.as_str()).collect();
    let free: Vec<String> = scene
        .mesh
        .parts()
        .iter()
        .filter(|p| !listed.contains(&p.as_str()))
        .cloned()
        .collect();
    let mut allowed = vec![free; nb];
    for mb in bindings {
        bone_names(scene, &mb.bones, &mb.part)?;
        mb.bones
            .iter()
            .for_each(|&j| allowed[j].push(mb.part.clone()));
    }
    let bones = scene
        .skeleton
        .bones()
        .iter()
        .zip(allowed)
        .map(|(b, parts)| crate::skeleton::Bone {
            part: None,
            influences: Some(parts),
            ..b.clone()
        })
        .collect();
    let mut out = scene.clone();
    out.skeleton = crate::skeleton::Skeleton::new(bones)?;
    Ok(out)
}

/// `whole` with each part of `bindings` restricted to its bones: the other bones' weights set
/// to 0 and each row renormalised. A row left without weight goes wholly to the part's bone
/// with the most weight over the part (its first bone when none has any). Parts not listed
/// keep their rows.
///
/// Errors: `whole` of the wrong shape, an unknown part or bone index.
pub fn prune(scene: &Scene, whole: &Weights, bindings: &[MeshBones]) -> Result<Weights> {
    let nb = scene.skeleton.len();
    crate::skinning::check_shape(scene.mesh.vertex_count(), whole, nb)?;
    let mut out = whole.clone();
    let vertex_parts = scene.mesh.vertex_parts();
    for mb in bindings {
        bone_names(scene, &mb.bones, &mb.part)?;
        let p = scene.mesh.part_index(&mb.part).ok_or_else(|| {
            Error::Argument(ArgumentError::InvalidArgument {
                argument: "binding",
                value: mb.part.clone(),
                reason: format!("no part {:?} in scene {:?}", mb.part, scene.name),
            })
        })?;
        let verts: Vec<usize> = (0..vertex_parts.len())
            .filter(|&v| vertex_parts[v] == p)
            .collect();
        let mut keep = vec![false; nb];
        mb.bones.iter().for_each(|&j| keep[j] = true);
        let mass = |j: usize| verts.iter().map(|&v| whole.get(v, j)).sum::<f64>();
        let fallback = mb
            .bones
            .iter()
            .copied()
            .max_by(|&a, &b| mass(a).total_cmp(&mass(b)).then(b.cmp(&a)));
        for &v in &verts {
            let row = out.row_mut_unchecked(v);
            row.iter_mut()
                .zip(&keep)
                .filter(|(_, &k)| !k)
                .for_each(|(w, _)| *w = 0.0);
            let sum: f64 = row.iter().sum();
            if sum > 0.0 {
                row.iter_mut().for_each(|w| *w /= sum);
            } else if let Some(j) = fallback {
                row[j] = 1.0;
            }
        }
    }
    Ok(out)
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
    solve_bound_warning(solver, scene, bindings, rest, &mut Vec::new())
}

/// [`solve_bound`], adding each mesh solve's warnings to `warnings`, prefixed by the mesh.
fn solve_bound_warning(
    solver: &dyn Solver,
    scene: &Scene,
    bindings: &[MeshBones],
    rest: Weights,
    warnings: &mut Vec<SolveWarning>,
) -> Result<Weights> {
    let mut full = rest;
    crate::skinning::check_shape(scene.mesh.vertex_count(), &full, scene.skeleton.len())?;
    let parts = MeshParts::new(scene);
    // The meshes are solved apart, so side by side; scattered and reported in the bindings'
    // order, so the weights, the warnings and the first error are the sequential ones.
    let solved: Vec<Result<(SubScene, Solution)>> = bindings
        .par_iter()
        .map(|mb| {
            let names = bone_names(scene, &mb.bones, &mb.part)?;
            let cut = parts.cut(&mb.part, &names)?;
            let solved = solver.solve(&cut.scene)?;
            Ok((cut, solved))
        })
        .collect();
    for (mb, solved) in bindings.iter().zip(solved) {
        let (cut, solved) = solved?;
        cut.scatter(&solved.weights, &mut full)?;
        let part = &mb.part;
        warnings.extend(solved.report.warnings.into_iter().map(|w| w.in_mesh(part)));
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

/// The weights of `scene` by `bind`: the step every driver calls (through
/// [`Binding::solve`]).
///
/// - [`Bind::All`]: `solver` over the `deforming` bones on the whole scene
///   ([`solve_with_bones`], its report unchanged).
/// - [`Bind::Auto`]: the whole solve over [`whole_bones`] of `deforming`, then [`auto_bones`]
///   (with `file.home`) and [`solve_bound`] ([`prune`] without `options.resolve`); a part of
///   `file.home` with at most [`RIGID_VERTICES`] vertices stays rigid on its home bone and a
///   mesh bound to one bone is set wholly on it, neither solved; `file.artist` is not used.
/// - [`Bind::Artist`]: the meshes of `file.artist` solved over their bones, on their own
///   vertices; the other parts get [`Bind::Auto`]'s binder over the same whole solve (skipped
///   when every part is listed).
///
/// The report's warnings are the whole solve's and each mesh solve's, prefixed by the mesh.
///
/// Errors: those of [`solve_with_bones`], [`auto_bones`], [`prune`] and [`solve_bound`].
pub fn bind(
    solver: &dyn Solver,
    scene: &Scene,
    bind: Bind,
    deforming: &[usize],
    file: &FileBindings,
    options: &BindOptions,
) -> Result<Solution> {
    if bind == Bind::All {
        return solve_with_bones(solver, scene, deforming);
    }
    let start = std::time::Instant::now();
    let mut warnings = Vec::new();
    let has_vertices = parts_with_vertices(scene);
    let unbound = scene
        .mesh
        .parts()
        .iter()
        .enumerate()
        .any(|(p, part)| has_vertices[p] && !file.artist.iter().any(|a| a.part == *part));
    // Under `Bind::Artist` the parts the file does not weight get the binder; its meshes are
    // solved over their bones after it.
    let artist: &[MeshBones] = if bind == Bind::Artist {
        &file.artist
    } else {
        &[]
    };
    let rest = if bind == Bind::Auto || unbound {
        let bones = whole_bones(scene, deforming, &file.home, options);
        let solved = solve_with_bones(solver, scene, &bones)?;
        warnings.extend(solved.report.warnings);
        let mut bindings = auto_bones(scene, &solved.weights, &file.home, options)?;
        bindings.retain(|mb| !artist.iter().any(|a| a.part == mb.part));
        solve_binder_sets(
            solver,
            scene,
            &file.home,
            bindings,
            solved.weights,
            options,
            &mut warnings,
        )?
    } else {
        Weights::zeros_unchecked(scene.mesh.vertex_count(), scene.skeleton.len())
    };
    // The file's meshes on their own vertices: the recipe chosen for artists' meshes within
    // 1.5x heat's time (`docs/benchmark.md`).
    let weights = if artist.is_empty() {
        rest
    } else {
        solve_bound_warning(solver, scene, artist, rest, &mut warnings)?
    };
    Ok(Solution {
        weights,
        report: crate::solvers::SolveReport {
            solver: solver.name(),
            seconds: start.elapsed().as_secs_f64(),
            warnings,
        },
    })
}

/// `whole` with each part of `bindings` re-solved over its bones ([`prune`]d instead without
/// `options.resolve`); a part of `home` with at most [`RIGID_VERTICES`] vertices stays rigid
/// on its home bone and a part bound to one bone is set wholly on it, neither solved.
fn solve_binder_sets(
    solver: &dyn Solver,
    scene: &Scene,
    home: &[MeshBones],
    mut bindings: Vec<MeshBones>,
    whole: Weights,
    options: &BindOptions,
    warnings: &mut Vec<SolveWarning>,
) -> Result<Weights> {
    let mut w = if options.resolve {
        // Neither an image quad kept rigid below nor a mesh bound to one bone needs a
        // solve: re-solving them was half of `bind`'s time on the painted rigs.
        let quads = rigid_parts(scene, home);
        bindings.retain(|mb| !quads.contains(&mb.part));
        let (one, many): (Vec<MeshBones>, Vec<MeshBones>) =
            bindings.into_iter().partition(|mb| mb.bones.len() == 1);
        let refined = RefinedBy::from_options(solver, options);
        let per_mesh: &dyn Solver = refined.as_ref().map_or(solver, |r| r);
        let mut w = solve_bound_warning(per_mesh, scene, &many, whole, warnings)?;
        one_bone(scene, &one, &mut w);
        w
    } else {
        prune(scene, &whole, &bindings)?
    };
    rigid_quads(scene, home, &mut w);
    Ok(w)
}

/// Everything a driver settles before it solves a scene: how meshes are bound ([`Bind`]), over
/// which bones, and what the file binds. [`Binding::solve`] is the one solve every driver
/// (`solve`, `compare`, `batch`, `view`, Python) calls.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    /// How each mesh's bones are chosen.
    pub bind: Bind,
    /// The bones any solve may weight (scene indices): the whole solve's and the binder's
    /// candidates. A mesh of [`FileBindings::artist`] keeps its own bones.
    pub bones: Vec<usize>,
    /// What the rig's own weights record (empty for a sprite or a built-in scene).
    pub file: FileBindings,
    /// The binder's settings.
    pub options: BindOptions,
}

impl Binding {
    /// The whole solve over `bones`: [`Bind::All`], no file bindings.
    pub fn whole(bones: Vec<usize>) -> Binding {
        Binding {
            bind: Bind::All,
            bones,
            file: FileBindings::default(),
            options: BindOptions::default(),
        }
    }

    /// The binding of `scene` when a driver is told `bind` (`None`: the default) over `bones`,
    /// with the rig's own weights `artist` when it has them.
    ///
    /// - The default is [`Bind::Artist`] when there are `artist` weights (an imported rig keeps
    ///   its artist's bones; its unweighted meshes get the binder), else [`Bind::All`]
    ///   (sprites and built-in scenes keep the whole solve).
    /// - With `restrict` (the user listed the bones), each artist mesh keeps only its bones in
    ///   `bones`; a mesh left with none is solved with the whole character.
    /// - Otherwise, under [`Bind::Artist`] and [`Bind::Auto`] with `artist` weights, the whole
    ///   solve is over every bone but IK targets ([`Scene::deforming_bones`] without them), not
    ///   `bones`: the bones the file binds no vertex to are left out only by [`Bind::All`].
    ///
    /// Errors: [`WeightsError::WeightsShape`](crate::error::WeightsError::WeightsShape) when
    /// `artist` does not fit the scene.
    pub fn for_scene(
        scene: &Scene,
        bind: Option<Bind>,
        bones: Vec<usize>,
        artist: Option<&Weights>,
        restrict: bool,
    ) -> Result<Binding> {
        let mut file = match artist {
            Some(w) => FileBindings::from_weights(scene, w)?,
            None => FileBindings::default(),
        };
        if restrict {
            for mb in &mut file.artist {
                mb.bones.retain(|j| bones.contains(j));
            }
            file.artist.retain(|mb| !mb.bones.is_empty());
            file.home
                .retain(|mb| mb.bones.iter().all(|j| bones.contains(j)));
        }
        let bind = bind.unwrap_or(Bind::default_for(artist.is_some()));
        // Which bones no vertex is bound to says nothing about the meshes the file does not
        // weight, nor may the binder learn it from the artist: per mesh, the whole solve is over
        // every bone but IK targets.
        let bones = match (restrict, bind) {
            (false, Bind::Artist | Bind::Auto) if artist.is_some() => {
                scene.deforming_bones(None)?.kept
            }
            _ => bones,
        };
        Ok(Binding {
            bind,
            bones,
            file,
            options: BindOptions::default(),
        })
    }

    /// Meshes of `scene` with vertices whose bones this binding takes from the file, and the
    /// others (the binder's under [`Bind::Auto`], the whole solve's under [`Bind::Artist`]):
    /// `(artist, others)`; both 0 under [`Bind::All`].
    pub fn counts(&self, scene: &Scene) -> (usize, usize) {
        if self.bind == Bind::All {
            return (0, 0);
        }
        let has_vertices = parts_with_vertices(scene);
        let meshes = has_vertices.iter().filter(|&&h| h).count();
        let artist = match self.bind {
            Bind::Artist => self.file.artist.len().min(meshes),
            _ => 0,
        };
        (artist, meshes - artist)
    }

    /// `solver`'s weights on `scene` under this binding: [`bind`].
    ///
    /// Errors: those of [`bind`].
    pub fn solve(&self, solver: &dyn Solver, scene: &Scene) -> Result<Solution> {
        bind(
            solver,
            scene,
            self.bind,
            &self.bones,
            &self.file,
            &self.options,
        )
    }
}

/// Per part of `scene`, whether any vertex lies in it.
fn parts_with_vertices(scene: &Scene) -> Vec<bool> {
    let mut has = vec![false; scene.mesh.parts().len()];
    scene
        .mesh
        .vertex_parts()
        .iter()
        .for_each(|&p| has[p] = true);
    has
}

/// The parts of `home` that [`rigid_quads`] sets rigid: at most [`RIGID_VERTICES`] vertices
/// and a home bone in the skeleton.
fn rigid_parts(scene: &Scene, home: &[MeshBones]) -> Vec<String> {
    let mut count = vec![0usize; scene.mesh.parts().len()];
    scene
        .mesh
        .vertex_parts()
        .iter()
        .for_each(|&p| count[p] += 1);
    home.iter()
        .filter(|h| {
            let small = scene
                .mesh
                .part_index(&h.part)
                .is_some_and(|p| count[p] <= RIGID_VERTICES);
            small && h.bones.first().is_some_and(|&j| j < scene.skeleton.len())
        })
        .map(|h| h.part.clone())
        .collect()
}

/// Each part of `home` with at most [`RIGID_VERTICES`] vertices set wholly on its (first) home
/// bone, as its file has it.
fn rigid_quads(scene: &Scene, home: &[MeshBones], w: &mut Weights) {
    let rigid = rigid_parts(scene, home);
    let on_home: Vec<MeshBones> = home
        .iter()
        .filter(|h| rigid.contains(&h.part))
        .map(|h| MeshBones {
            part: h.part.clone(),
            bones: h.bones[..1].to_vec(),
        })
        .collect();
    one_bone(scene, &on_home, w);
}

/// Each part of `bindings` with one bone set wholly on it (what a solve over one bone gives);
/// a part or bone unknown to the scene is left alone.
fn one_bone(scene: &Scene, bindings: &[MeshBones], w: &mut Weights) {
    let mut of_part = vec![Vec::new(); scene.mesh.parts().len()];
    for (v, &p) in scene.mesh.vertex_parts().iter().enumerate() {
        of_part[p].push(v);
    }
    for mb in bindings {
        let (Some(p), [j]) = (scene.mesh.part_index(&mb.part), mb.bones.as_slice()) else {
            continue;
        };
        if *j >= scene.skeleton.len() {
            continue;
        }
        for &v in &of_part[p] {
            let row = w.row_mut_unchecked(v);
            row.fill(0.0);
            row[*j] = 1.0;
        }
    }
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
    let mut full = Weights::zeros_unchecked(scene.mesh.vertex_count(), nb);
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
        builtin_scene("arms-down", &BuiltinOptions::default().with_vertices(2000)).unwrap()
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
        let mut w = Weights::zeros_unchecked(nv, nb);
        w.rows_mut_unchecked().for_each(|r| r.fill(1.0 / nb as f64));
        let below = BindOptions {
            min_mass: 0.5 / nb as f64,
            min_inside: 0,
            ..BindOptions::rule()
        };
        let all = auto_bones(&scene, &w, &[], &below).unwrap();
        assert_eq!(all.len(), scene.mesh.parts().len());
        assert!(all.iter().all(|mb| mb.bones.len() == nb));
        let above = BindOptions {
            min_mass: 2.0 / nb as f64,
            ..below
        };
        let one = auto_bones(&scene, &w, &[], &above).unwrap();
        assert!(one.iter().all(|mb| mb.bones.len() == 1), "{one:?}");
        let nan = BindOptions {
            min_mass: f64::NAN,
            ..below
        };
        let e = auto_bones(&scene, &w, &[], &nan).unwrap_err().to_string();
        assert!(e.contains("min_mass"), "{e}");
    }

    /// A 2 x 1 strip with bone `in` along it and bone `out` far beside it.
    fn strip() -> Scene {
        use crate::mesh::Mesh;
        use crate::skeleton::{Bone, Skeleton};
        let corners = [
            (0.0, 0.0),
            (1.0, 0.0),
            (2.0, 0.0),
            (2.0, 1.0),
            (1.0, 1.0),
            (0.0, 1.0),
        ];
        let mesh = Mesh::new(
            corners.iter().map(|&(x, y)| Point2::new(x, y)).collect(),
            vec![[0, 1, 4], [0, 4, 5], [1, 2, 3], [1, 3, 4]],
        )
        .unwrap();
        let skeleton = Skeleton::new(vec![
            Bone::new("in", Point2::new(0.1, 0.5), Point2::new(1.9, 0.5)),
            Bone::new("out", Point2::new(0.0, 5.0), Point2::new(2.0, 5.0)).with_parent(0),
        ])
        .unwrap();
        Scene::from_mesh(mesh, skeleton).unwrap()
    }

    /// Weights `share` on bone 0 and the rest on bone 1, on every vertex.
    fn split(scene: &Scene, share: f64) -> Weights {
        let mut w = Weights::zeros_unchecked(scene.mesh.vertex_count(), 2);
        w.rows_mut_unchecked()
            .for_each(|r| r.copy_from_slice(&[share, 1.0 - share]));
        w
    }

    #[test]
    fn a_bone_outside_the_mesh_is_dropped_and_the_home_bone_kept_only_when_asked() {
        let scene = strip();
        let part = scene.mesh.parts()[0].clone();
        let w = split(&scene, 0.7);
        let loose = BindOptions {
            min_inside: 0,
            ..BindOptions::rule()
        };
        let both = auto_bones(&scene, &w, &[], &loose).unwrap();
        assert_eq!(both[0].bones, vec![0, 1]);
        // Default: 3 of the 5 points of the segment in the mesh; `out` has none.
        let inside = auto_bones(&scene, &w, &[], &BindOptions::rule()).unwrap();
        assert_eq!(inside[0].bones, vec![0]);
        // The heaviest bone stays even outside the mesh.
        let heavy_out = auto_bones(&scene, &split(&scene, 0.2), &[], &BindOptions::rule());
        assert_eq!(heavy_out.unwrap()[0].bones, vec![0, 1]);
        let home = [MeshBones {
            part,
            bones: vec![1],
        }];
        let not_kept = auto_bones(&scene, &w, &home, &BindOptions::rule()).unwrap();
        assert_eq!(not_kept[0].bones, vec![0]);
        let keep = BindOptions {
            keep_home: true,
            ..BindOptions::rule()
        };
        assert_eq!(
            auto_bones(&scene, &w, &home, &keep).unwrap()[0].bones,
            vec![0, 1]
        );
    }

    #[test]
    fn names_split_into_words_without_numbers() {
        assert_eq!(name_tokens("raptor-front-arm"), ["arm", "front", "raptor"]);
        assert_eq!(name_tokens("Front_Arm2"), ["arm", "front"]);
        assert_eq!(name_tokens("bone12"), ["bone"]);
        assert!(name_tokens("12").is_empty());
    }

    #[test]
    fn the_learned_binder_edits_the_rule_and_keeps_the_most_probable_bone() {
        let scene = strip();
        let features = pair_features(&scene, &split(&scene, 0.7), &[]).unwrap();
        assert_eq!(features.len(), 1);
        assert_eq!(features[0].bones, vec![0, 1]);
        let [inb, out] = [features[0].features[0], features[0].features[1]];
        assert!(inb.iter().chain(&out).all(|x| x.is_finite()));
        // `in` lies in the mesh, is the heaviest and passes the rule; `out` does none of these.
        assert_eq!(
            (inb[RULE], inb[HEAVIEST], out[RULE], out[HEAVIEST]),
            (1.0, 1.0, 0.0, 0.0)
        );
        // A model reading only the rule feature: `in` is likely, `out` not.
        let mut coef = [0.0; FEATURES];
        coef[RULE] = 4.0;
        let model = BinderLogit {
            mean: [0.0; FEATURES],
            scale: [1.0; FEATURES],
            coef,
            bias: -2.0,
            threshold: 0.5,
            keep: 0.5,
        };
        assert!(model.probability(&inb) > 0.8 && model.probability(&out) < 0.2);
        assert_eq!(model.choose(&features)[0].bones, vec![0]);
        // Adding from a low probability takes `out` too; keeping the rule's bones from above
        // every probability still keeps the most probable one.
        let add = BinderLogit {
            threshold: 0.1,
            ..model
        };
        assert_eq!(add.choose(&features)[0].bones, vec![0, 1]);
        let none = BinderLogit {
            threshold: 2.0,
            keep: 2.0,
            ..model
        };
        assert_eq!(none.choose(&features)[0].bones, vec![0]);
        let options = BindOptions {
            model: Some(BinderModel::Logit(add)),
            ..BindOptions::rule()
        };
        let chosen = auto_bones(&scene, &split(&scene, 0.7), &[], &options).unwrap();
        assert_eq!(chosen[0].bones, vec![0, 1]);
    }

    /// The largest difference between two weight tables, entry by entry.
    fn largest_difference(a: &Weights, b: &Weights) -> f64 {
        a.as_slice()
            .iter()
            .zip(b.as_slice())
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn a_mesh_bound_to_one_bone_is_set_on_it_as_its_solve_would() {
        // `bind` skips the solve of such meshes: the solve over one bone puts every vertex
        // wholly on it.
        let scene = strip();
        let solver = crate::solvers::recommended();
        let part = scene.mesh.parts()[0].clone();
        let one = [MeshBones {
            part,
            bones: vec![1],
        }];
        let zeros = Weights::zeros_unchecked(scene.mesh.vertex_count(), 2);
        let solved = solve_bound(solver.as_ref(), &scene, &one, zeros.clone()).unwrap();
        let mut set = zeros;
        one_bone(&scene, &one, &mut set);
        let gap = largest_difference(&solved, &set);
        assert!(gap < 1e-12, "{gap}");
    }

    #[test]
    fn pruning_zeroes_the_other_bones_and_keeps_rows_normalised() {
        let scene = strip();
        let part = scene.mesh.parts()[0].clone();
        let mut w = split(&scene, 0.25);
        w.row_mut_unchecked(0).copy_from_slice(&[0.0, 1.0]);
        let only_in = [MeshBones {
            part,
            bones: vec![0],
        }];
        let pruned = prune(&scene, &w, &only_in).unwrap();
        assert!(pruned.normalization_error() < 1e-12);
        // Every row wholly on bone 0, the one left without weight too.
        for v in 0..scene.mesh.vertex_count() {
            assert_eq!(pruned.row(v), &[1.0, 0.0], "vertex {v}");
        }
        let unknown = [MeshBones {
            part: "nope".into(),
            bones: vec![0],
        }];
        let e = prune(&scene, &w, &unknown).unwrap_err().to_string();
        assert!(e.contains("nope"), "{e}");
    }

    #[test]
    fn the_whole_solve_can_leave_out_roots_and_holders_of_rigid_art() {
        let scene = arms_down();
        let every: Vec<usize> = (0..scene.skeleton.len()).collect();
        assert_eq!(
            whole_bones(&scene, &every, &[], &BindOptions::rule()),
            every
        );
        let skip = BindOptions {
            skip_holders: true,
            ..BindOptions::rule()
        };
        let roots: Vec<usize> = scene
            .skeleton
            .bones()
            .iter()
            .enumerate()
            .filter(|(j, b)| {
                b.parent.is_none() && scene.skeleton.bones().iter().any(|c| c.parent == Some(*j))
            })
            .map(|(j, _)| j)
            .collect();
        assert!(!roots.is_empty());
        let kept = whole_bones(&scene, &every, &[], &skip);
        assert!(roots.iter().all(|r| !kept.contains(r)), "{kept:?}");
        assert_eq!(kept.len() + roots.len(), every.len());
    }

    #[test]
    fn all_is_the_whole_solve_and_auto_weights_every_vertex() {
        let scene = arms_down();
        let solver = crate::solvers::recommended();
        let every: Vec<usize> = (0..scene.skeleton.len()).collect();
        let options = BindOptions::default();
        let none = FileBindings::default();
        let all = bind(solver.as_ref(), &scene, Bind::All, &every, &none, &options)
            .unwrap()
            .weights;
        assert_eq!(all, solver.solve(&scene).unwrap().weights);
        let auto = bind(solver.as_ref(), &scene, Bind::Auto, &every, &none, &options)
            .unwrap()
            .weights;
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

    #[test]
    fn the_default_binder_is_the_shipped_trees_and_weights_every_vertex() {
        let scene = arms_down();
        let options = BindOptions::default();
        assert_eq!(options.model, Some(BinderModel::Trees(FITTED_TREES)));
        assert_eq!(options.refine, Some(BindOptions::DEFAULT_REFINE));
        assert_eq!(
            BindOptions {
                model: None,
                refine: None,
                ..options
            },
            BindOptions::rule()
        );
        let solver = crate::solvers::recommended();
        let every: Vec<usize> = (0..scene.skeleton.len()).collect();
        let whole = solver.solve(&scene).unwrap().weights;
        let chosen = auto_bones(&scene, &whole, &[], &options).unwrap();
        assert_eq!(chosen.len(), scene.mesh.parts().len());
        assert!(chosen.iter().all(|mb| !mb.bones.is_empty()));
        let none = FileBindings::default();
        let auto = bind(solver.as_ref(), &scene, Bind::Auto, &every, &none, &options)
            .unwrap()
            .weights;
        assert!(auto.normalization_error() < 1e-9);
        assert!(auto.as_slice().iter().all(|w| w.is_finite() && *w >= 0.0));
    }

    /// An arm of two bones drawn as an artist's strip: 2 x 11 vertices, 20 triangles.
    fn coarse_arm() -> Scene {
        use crate::mesh::Mesh;
        use crate::skeleton::{Bone, Skeleton};
        let vertices: Vec<Point2<f64>> = (0..=10)
            .flat_map(|i| {
                [
                    Point2::new(f64::from(i), 0.0),
                    Point2::new(f64::from(i), 1.0),
                ]
            })
            .collect();
        let triangles: Vec<[usize; 3]> = (0..10)
            .flat_map(|i| {
                let (a, b, c, d) = (2 * i, 2 * i + 2, 2 * i + 3, 2 * i + 1);
                [[a, b, c], [a, c, d]]
            })
            .collect();
        let mesh = Mesh::new(vertices, triangles).unwrap();
        let skeleton = Skeleton::new(vec![
            Bone::new("upper", Point2::new(0.0, 0.5), Point2::new(5.0, 0.5)),
            Bone::new("lower", Point2::new(5.0, 0.5), Point2::new(10.0, 0.5)).with_parent(0),
        ])
        .unwrap();
        Scene::from_mesh(mesh, skeleton).unwrap()
    }

    #[test]
    fn the_binder_re_solves_a_coarse_mesh_on_a_subdivided_copy() {
        let scene = coarse_arm();
        assert!(scene.mesh.vertex_count() < BindOptions::DEFAULT_REFINE);
        let solver = crate::solvers::recommended();
        let every = [0, 1];
        let none = FileBindings::default();
        let options = BindOptions::default();
        let refined = bind(solver.as_ref(), &scene, Bind::Auto, &every, &none, &options)
            .unwrap()
            .weights;
        let own = BindOptions {
            refine: None,
            ..options
        };
        let plain = bind(solver.as_ref(), &scene, Bind::Auto, &every, &none, &own)
            .unwrap()
            .weights;
        // The same as the registry's `refine` wrapper over the binder's sets.
        let whole = solve_with_bones(solver.as_ref(), &scene, &every)
            .unwrap()
            .weights;
        let sets = auto_bones(&scene, &whole, &[], &options).unwrap();
        assert_eq!(sets[0].bones, vec![0, 1], "both bones lie in the arm");
        let wrapper = crate::solvers::Refined::new(
            crate::solvers::recommended(),
            BindOptions::DEFAULT_REFINE,
        );
        let expected = solve_bound(&wrapper, &scene, &sets, whole).unwrap();
        assert_eq!(refined, expected);
        let moved = largest_difference(&refined, &plain);
        assert!(
            moved > 1e-3,
            "the subdivided solve moved no weight: {moved}"
        );
        for w in [&refined, &plain] {
            assert!(w.normalization_error() < 1e-9);
            assert!(w.as_slice().iter().all(|x| x.is_finite() && *x >= 0.0));
        }
    }

    /// The recommended solver on meshes of at most 30 vertices; an error on larger ones.
    struct SmallMeshesOnly;

    impl Solver for SmallMeshesOnly {
        fn name(&self) -> String {
            "small meshes only".into()
        }

        fn compute(&self, scene: &Scene) -> Result<Solution> {
            if scene.mesh.vertex_count() > 30 {
                return Err(crate::error::SolverError::Solver {
                    solver: self.name(),
                    message: format!("{} vertices", scene.mesh.vertex_count()),
                }
                .into());
            }
            crate::solvers::recommended().compute(scene)
        }
    }

    #[test]
    fn a_mesh_whose_subdivided_solve_fails_is_solved_on_its_own_vertices_and_says_so() {
        let scene = coarse_arm();
        let every = [0, 1];
        let none = FileBindings::default();
        let options = BindOptions::default();
        let solved = bind(
            &SmallMeshesOnly,
            &scene,
            Bind::Auto,
            &every,
            &none,
            &options,
        )
        .unwrap();
        let own = BindOptions {
            refine: None,
            ..options
        };
        let plain = bind(&SmallMeshesOnly, &scene, Bind::Auto, &every, &none, &own).unwrap();
        assert_eq!(solved.weights, plain.weights);
        let said: Vec<String> = solved
            .report
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].starts_with("mesh \"")
                && said[0].contains("subdivided to 150 vertices failed")
                && said[0].contains("own vertices"),
            "{said:?}"
        );
        assert!(plain.report.warnings.is_empty());
    }
}
