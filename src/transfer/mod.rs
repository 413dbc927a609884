//! Weight transfer: an artist's weights carried from weighted source meshes to a new
//! drawing of the same part (an outfit, another skin's attachment of the slot).
//!
//! Two methods ([`TransferMethod`]): `nearest` gives every target vertex the weights at the
//! closest point of the sources, interpolated in the source triangle (Blender's Data
//! Transfer); `robust` (Abdrashitov et al. 2023, in 2D) copies only where the target is close
//! to a source and, on the target's outline, runs the same way, and fills the rest with a
//! Laplacian solve over the target mesh. Source bones the target is not bound to are mapped to
//! its bones by hierarchy, rest position and name; the share of weight no target bone takes,
//! and a target far from every source, are weighted from scratch by a solver over the
//! target's bones, each with a note.

mod bone_map;
mod closest;
mod costumes;
mod inpaint;

pub use bone_map::{bone_map_cost, BonePlan};
pub use costumes::{default_targets, skin_parts, transfer_parts, SourceSet};

use crate::error::{ArgumentError, Result, SceneError, WeightsError, WeightsShapeProblem};
use crate::geometry::Bounds;
use crate::scene::{Scene, SubScene};
use crate::skeleton::Skeleton;
use crate::solvers::Solver;
use crate::weights::Weights;
use closest::{Finder, Hit};
use nalgebra::{Point2, Vector2};

/// How target vertices get their weights from the sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferMethod {
    /// The weights at the closest source point (barycentric interpolation), at every vertex.
    Nearest,
    /// Copied only where the closest source point is within [`TransferOptions::max_distance`]
    /// and the outlines agree within [`TransferOptions::max_angle_deg`]; the rest inpainted by
    /// a Laplacian (harmonic) solve over the target mesh.
    Robust,
}

impl TransferMethod {
    /// The names `--method` takes, in the enum's order.
    pub const NAMES: [&'static str; 2] = ["nearest", "robust"];

    /// The method's name.
    pub fn name(self) -> &'static str {
        match self {
            TransferMethod::Nearest => "nearest",
            TransferMethod::Robust => "robust",
        }
    }
}

impl std::str::FromStr for TransferMethod {
    type Err = crate::Error;

    /// `nearest` or `robust`; anything else is an [`ArgumentError::InvalidArgument`] for
    /// `--method` that lists them.
    fn from_str(s: &str) -> Result<TransferMethod> {
        match s {
            "nearest" => Ok(TransferMethod::Nearest),
            "robust" => Ok(TransferMethod::Robust),
            _ => Err(ArgumentError::InvalidArgument {
                argument: "--method",
                value: s.to_string(),
                reason: format!("expected one of {}", TransferMethod::NAMES.join(", ")),
            }
            .into()),
        }
    }
}

/// The transfer's settings; every default is the one `docs/transfer.md` measures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransferOptions {
    /// Default [`TransferMethod::Nearest`]: chosen by leaving one source out on the costume
    /// pairs of the corpus (`docs/transfer.md`).
    pub method: TransferMethod,
    /// `robust`'s match radius as a fraction of the target's bounding-box diagonal (default
    /// 0.05, the paper's): it copies only within it.
    pub max_distance: f64,
    /// A target with no vertex within this fraction of its diagonal of a source is far from
    /// every source and weighted from scratch, with a note (default 0.5: a drawing of the same
    /// part overlaps its source; the corners of a region's quad stand off it by a fraction).
    pub far_distance: f64,
    /// `robust` only: largest angle (degrees) between the target's outward outline normal and
    /// the direction from the closest source point for a copy (default 30, the paper's).
    pub max_angle_deg: f64,
    /// Largest [`bone_map_cost`] at which a source bone the target is not bound to is mapped
    /// to one of the target's bones (default 0: only a bone of the same name, place and
    /// depth; mapping by likeness lowered every measure on the corpus, `docs/transfer.md`);
    /// above it the bone has no counterpart.
    pub max_map_cost: f64,
    /// Whether target bones no source weight reaches take, at each vertex, the weight the
    /// from-scratch solve gives them (default true); false leaves them unweighted.
    pub uncovered_from_scratch: bool,
    /// For a target with known bones: the least fraction of them the sources must reach for a
    /// transfer; below it the target is weighted from scratch, with a note (default 1: a
    /// target bound to a bone no source uses is weighted from scratch).
    pub min_coverage: f64,
}

impl Default for TransferOptions {
    fn default() -> Self {
        TransferOptions {
            method: TransferMethod::Nearest,
            max_distance: 0.05,
            far_distance: 0.5,
            max_angle_deg: 30.0,
            max_map_cost: 0.0,
            uncovered_from_scratch: true,
            min_coverage: 1.0,
        }
    }
}

impl TransferOptions {
    fn check(&self) -> Result<()> {
        let bad = |argument: &'static str, value: f64, reason: &str| -> crate::Error {
            ArgumentError::InvalidArgument {
                argument,
                value: value.to_string(),
                reason: reason.to_string(),
            }
            .into()
        };
        if !(self.max_distance.is_finite() && self.max_distance >= 0.0) {
            return Err(bad(
                "max_distance",
                self.max_distance,
                "a fraction of the target's diagonal, finite and >= 0",
            ));
        }
        if !(self.far_distance.is_finite() && self.far_distance >= 0.0) {
            return Err(bad(
                "far_distance",
                self.far_distance,
                "a fraction of the target's diagonal, finite and >= 0",
            ));
        }
        if !(0.0..=180.0).contains(&self.max_angle_deg) {
            return Err(bad(
                "max_angle_deg",
                self.max_angle_deg,
                "degrees in [0, 180]",
            ));
        }
        if !(self.max_map_cost.is_finite() && self.max_map_cost >= 0.0) {
            return Err(bad("max_map_cost", self.max_map_cost, "finite and >= 0"));
        }
        if !(0.0..=1.0).contains(&self.min_coverage) {
            return Err(bad(
                "min_coverage",
                self.min_coverage,
                "a fraction in [0, 1]",
            ));
        }
        Ok(())
    }
}

/// Weighted source meshes in one coordinate frame, with the skeleton their weight columns
/// refer to.
#[derive(Debug, Clone)]
pub struct TransferSource<'s> {
    skeleton: &'s Skeleton,
    vertices: Vec<Point2<f64>>,
    triangles: Vec<[usize; 3]>,
    weights: Weights,
    given: String,
}

impl<'s> TransferSource<'s> {
    /// The parts `parts` of `scene` with their rows of `weights` (weights on the whole scene).
    ///
    /// Errors: an unknown part, `weights` of the wrong shape, and
    /// [`SceneError::EmptyTransferSource`] when the parts hold no triangle.
    pub fn from_parts(scene: &'s Scene, weights: &Weights, parts: &[String]) -> Result<Self> {
        let mesh = &scene.mesh;
        crate::skinning::check_shape(mesh.vertex_count(), weights, scene.skeleton.len())?;
        let mut wanted = vec![false; mesh.parts().len()];
        for p in parts {
            let i = mesh.part_index(p).ok_or_else(|| {
                crate::Error::from(crate::error::SkeletonError::UnknownPart {
                    context: "transfer source".into(),
                    part: p.clone(),
                    known: mesh.parts().to_vec(),
                })
            })?;
            wanted[i] = true;
        }
        let mut local = vec![usize::MAX; mesh.vertex_count()];
        let mut vertices = Vec::new();
        let mut rows = Vec::new();
        for (v, &p) in mesh.vertex_parts().iter().enumerate() {
            if wanted[p] {
                local[v] = vertices.len();
                vertices.push(mesh.vertices()[v]);
                rows.extend_from_slice(weights.row(v));
            }
        }
        let triangles = mesh
            .triangles()
            .iter()
            .filter(|t| t.iter().all(|&v| local[v] != usize::MAX))
            .map(|t| t.map(|v| local[v]))
            .collect();
        let weights = Weights::from_row_major(rows, scene.skeleton.len().max(1))?;
        TransferSource::new(
            &scene.skeleton,
            vertices,
            triangles,
            weights,
            match parts {
                [one] => format!("part {one:?}"),
                _ => format!("{} parts", parts.len()),
            },
        )
    }

    /// A source from raw arrays: `weights` has one row per vertex and one column per bone of
    /// `skeleton`; `given` says where it came from (shown in errors and notes).
    ///
    /// Errors: triangles out of range, weights of the wrong shape or not finite, and
    /// [`SceneError::EmptyTransferSource`] when no triangle has a weighted corner.
    pub fn new(
        skeleton: &'s Skeleton,
        vertices: Vec<Point2<f64>>,
        triangles: Vec<[usize; 3]>,
        weights: Weights,
        given: String,
    ) -> Result<Self> {
        let n = vertices.len();
        if weights.vertex_count() != n || (n > 0 && weights.bone_count() != skeleton.len()) {
            return Err(WeightsError::WeightsShape {
                problem: WeightsShapeProblem::Dimensions {
                    context: format!("transfer source {given}"),
                    found: (weights.vertex_count(), weights.bone_count()),
                    expected: (n, skeleton.len()),
                },
            }
            .into());
        }
        if let Some((v, w)) = weights
            .as_slice()
            .iter()
            .enumerate()
            .find(|(_, w)| !w.is_finite())
        {
            return Err(WeightsError::InvalidWeight {
                vertex: v / weights.bone_count().max(1),
                bone: v % weights.bone_count().max(1),
                value: *w,
            }
            .into());
        }
        if let Some(t) = triangles.iter().find(|t| t.iter().any(|&v| v >= n)) {
            return Err(WeightsError::WeightsShape {
                problem: WeightsShapeProblem::SourceTriangle {
                    given,
                    triangle: *t,
                    vertices: n,
                },
            }
            .into());
        }
        let weighted = |v: usize| weights.row(v).iter().sum::<f64>() > 0.0;
        if !triangles.iter().any(|t| t.iter().any(|&v| weighted(v))) {
            return Err(SceneError::EmptyTransferSource { given }.into());
        }
        Ok(TransferSource {
            skeleton,
            vertices,
            triangles,
            weights,
            given,
        })
    }

    /// Number of source vertices.
    pub fn vertex_count(&self) -> usize {
        self.vertices.len()
    }
}

/// The mesh to weight: a part of the scene and, when known, the bones it is bound to (scene
/// indices); source bones outside them are mapped onto them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferTarget {
    /// The part's name.
    pub part: String,
    /// Its bones, or `None` to keep every source bone.
    pub bones: Option<Vec<usize>>,
}

/// What a transfer did, in numbers and notes.
#[derive(Debug, Clone, PartialEq)]
pub struct TransferReport {
    /// The method used.
    pub method: TransferMethod,
    /// Target vertices whose weights were copied from a source point.
    pub copied: usize,
    /// Target vertices filled by the Laplacian solve (`robust`).
    pub inpainted: usize,
    /// Target vertices with some of their weight from the from-scratch solve.
    pub from_scratch: usize,
    /// Largest distance from a target vertex to the sources, in scene units.
    pub farthest: f64,
    /// Source bones given to a target bone of another name: (source, target).
    pub mapped: Vec<(String, String)>,
    /// Source bones with no counterpart among the target's bones.
    pub unmapped: Vec<String>,
    /// What the user should know, one sentence each.
    pub notes: Vec<String>,
}

/// A transferred mesh: its scene vertices and their weights.
#[derive(Debug, Clone, PartialEq)]
pub struct Transferred {
    /// The target part.
    pub part: String,
    /// Scene index of every target vertex, ascending.
    pub vertices: Vec<usize>,
    /// One row per target vertex, one column per scene bone; finite, >= 0, rows sum to 1.
    pub weights: Weights,
    /// What was copied, mapped and solved.
    pub report: TransferReport,
}

impl Transferred {
    /// Writes the target's rows into `weights` (weights on the whole scene).
    ///
    /// Errors: [`WeightsError::WeightsShape`] when `weights` has other bones or too few rows.
    pub fn scatter(&self, weights: &mut Weights) -> Result<()> {
        let fits = weights.bone_count() == self.weights.bone_count()
            && self.vertices.iter().all(|&v| v < weights.vertex_count());
        if !fits {
            return Err(WeightsError::WeightsShape {
                problem: WeightsShapeProblem::TransferRows {
                    part: self.part.clone(),
                    found: (weights.vertex_count(), weights.bone_count()),
                    min_vertices: self.vertices.iter().max().map_or(0, |&v| v + 1),
                    bones: self.weights.bone_count(),
                },
            }
            .into());
        }
        for (i, &v) in self.vertices.iter().enumerate() {
            weights
                .row_mut_unchecked(v)
                .copy_from_slice(self.weights.row(i));
        }
        Ok(())
    }
}

/// A part drawn in a slot of the rig (an attachment of a Spine or DragonBones slot).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotPart {
    /// The part's name in the scene.
    pub part: String,
    /// The slot's name.
    pub slot: String,
    /// The skin it belongs to (`None`: the format has no skins, or the scene does not say).
    pub skin: Option<String>,
    /// Whether the file weights it (false: rigid to its slot's bone).
    pub weighted: bool,
    /// The slot's bone (Spine: the slot's bone; DragonBones: the slot's parent), by name:
    /// what an unweighted mesh hangs on. `None`: the format or the file does not say.
    pub bone: Option<String>,
}

impl SlotPart {
    /// A part of a slot, in no skin.
    pub fn new(part: &str, slot: &str, weighted: bool) -> SlotPart {
        SlotPart {
            part: part.to_string(),
            slot: slot.to_string(),
            skin: None,
            weighted,
            bone: None,
        }
    }

    /// Sets [`SlotPart::bone`].
    pub fn on_bone(mut self, bone: Option<&str>) -> SlotPart {
        self.bone = bone.map(str::to_string);
        self
    }

    /// Sets [`SlotPart::skin`].
    pub fn in_skin(mut self, skin: &str) -> SlotPart {
        self.skin = Some(skin.to_string());
        self
    }
}

/// The other parts drawn in `part`'s slot that the file weights, in the order of `slots`:
/// the costume sources of a part. Empty when `part` has no slot.
pub fn slot_partners(slots: &[SlotPart], part: &str) -> Vec<String> {
    let Some(own) = slots.iter().find(|s| s.part == part) else {
        return Vec::new();
    };
    slots
        .iter()
        .filter(|s| s.slot == own.slot && s.part != part && s.weighted)
        .map(|s| s.part.clone())
        .collect()
}

/// A [`SlotPart`] for every layer of the scene's art that sits in a slot (`weighted` true:
/// a scene file does not say): what [`slot_partners`] takes for a scene file (imports give
/// [`crate::io::RigReport::slots`]).
pub fn art_slots(scene: &Scene) -> Vec<SlotPart> {
    scene
        .art()
        .map(|art| {
            art.layers
                .iter()
                .filter_map(|l| {
                    let slot = l.slot.as_ref()?;
                    let part = SlotPart::new(&l.part, &slot.slot, true);
                    Some(match &slot.skin {
                        Some(skin) => part.in_skin(skin),
                        None => part,
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Weights for `target` from `source`; `solver` weights from scratch what the sources do not
/// cover (a target far from every source, the share of source bones without counterpart).
///
/// Errors: bad options, an unknown part, [`SceneError::EmptyTransferTarget`], and the
/// solver's own errors.
pub fn transfer(
    scene: &Scene,
    target: &TransferTarget,
    source: &TransferSource,
    options: &TransferOptions,
    solver: &dyn Solver,
) -> Result<Transferred> {
    options.check()?;
    let nb = scene.skeleton.len();
    let plan = BonePlan::new(
        source.skeleton,
        &used_bones(&source.weights),
        &scene.skeleton,
        target.bones.as_deref(),
        options.max_map_cost,
    );
    let fallback_bones = fallback_bones(scene, target, &plan)?;
    let names: Vec<String> = fallback_bones
        .iter()
        .map(|&j| scene.skeleton.bones()[j].name.clone())
        .collect();
    let cut = SubScene::new(scene, &target.part, &names)?;
    let points = cut.scene.mesh.vertices();
    if points.is_empty() {
        return Err(SceneError::EmptyTransferTarget {
            part: target.part.clone(),
        }
        .into());
    }
    let finder = Finder::new(source);
    let hits: Vec<Hit> = points.iter().map(|&p| finder.closest(p)).collect();
    let farthest = hits.iter().map(|h| h.distance).fold(0.0, f64::max);
    let mut report = TransferReport::new(options.method, farthest, &plan);
    // Rows over the scene's bones plus one last column: the share of unmapped bones.
    let mut rows = vec![0.0; points.len() * (nb + 1)];
    let sources = Sources {
        target,
        source,
        plan: &plan,
        hits: &hits,
        nb,
    };
    let solve_rows = sources.fill_rows(&cut, names.len(), options, &mut rows, &mut report)?;
    let mut share = scratch_share(&rows, &solve_rows, nb);
    let uncovered = match (&target.bones, options.uncovered_from_scratch) {
        (Some(bones), true) => bones
            .iter()
            .copied()
            .filter(|&j| (0..points.len()).all(|v| rows[v * (nb + 1) + j] <= 0.0))
            .collect(),
        _ => Vec::new(),
    };
    let scratch = if share.iter().any(|&s| s > 0.0) || !uncovered.is_empty() {
        Some(solver.solve(&cut.scene)?.weights)
    } else {
        None
    };
    if let (Some(s), false) = (&scratch, uncovered.is_empty()) {
        give_uncovered(&cut, s, &uncovered, &mut share);
        let names: Vec<&str> = uncovered
            .iter()
            .map(|&j| scene.skeleton.bones()[j].name.as_str())
            .collect();
        report.notes.push(format!(
            "{}: no source weight reaches its bones {}; the from-scratch solve gives them their share",
            target.part,
            names.join(", ")
        ));
    }
    let weights = blend(&cut, &rows, &share, scratch.as_ref(), nb, &mut report)?;
    mapping_notes(&target.part, &plan, &mut report);
    Ok(Transferred {
        part: target.part.clone(),
        vertices: cut.vertices,
        weights,
        report,
    })
}

impl TransferReport {
    /// Nothing copied, inpainted or solved yet; the plan's mapped and unmapped bones.
    fn new(method: TransferMethod, farthest: f64, plan: &BonePlan) -> TransferReport {
        TransferReport {
            method,
            copied: 0,
            inpainted: 0,
            from_scratch: 0,
            farthest,
            mapped: plan.mapped.clone(),
            unmapped: plan.unmapped.clone(),
            notes: Vec::new(),
        }
    }
}

/// What [`transfer`] reads the source rows from: the target, its sources, the bone plan and
/// each target vertex's closest source point.
struct Sources<'a> {
    target: &'a TransferTarget,
    source: &'a TransferSource<'a>,
    plan: &'a BonePlan,
    hits: &'a [Hit],
    /// The scene's bones.
    nb: usize,
}

impl Sources<'_> {
    /// Fills `rows` (per target vertex of `cut`, the scene's bones and the unmapped share)
    /// from the sources, and returns which vertices are weighted from scratch instead: all of
    /// them when the sources are too far or reach too few of the target's bones, the robust
    /// method's orphans otherwise. `bones` counts the from-scratch solve's bones (for the note).
    fn fill_rows(
        &self,
        cut: &SubScene,
        bones: usize,
        options: &TransferOptions,
        rows: &mut [f64],
        report: &mut TransferReport,
    ) -> Result<Vec<bool>> {
        let (target, plan, hits) = (self.target, self.plan, self.hits);
        let points = cut.scene.mesh.vertices();
        let nb = self.nb;
        let diagonal = Bounds::of(points.iter()).size().norm();
        let radius = options.max_distance * diagonal;
        let far = options.far_distance * diagonal;
        let near = hits.iter().filter(|h| h.distance <= far).count();
        let mut solve_rows = vec![false; points.len()];
        let coverage = coverage(target, plan);
        if near > 0
            && coverage
                .is_some_and(|(reached, of)| (reached as f64) < options.min_coverage * of as f64)
        {
            let (reached, of) = coverage.unwrap_or_default();
            report.notes.push(format!(
                "{}: the sources reach {reached} of its {of} bones (fewer than {} of them): weighted from scratch",
                target.part,
                options.min_coverage
            ));
            solve_rows.fill(true);
        } else if near == 0 {
            report.notes.push(format!(
                "{}: farther than {far:.3} ({} of its diagonal) from every source ({}): weighted from scratch over {} bones",
                target.part,
                options.far_distance,
                self.source.given,
                bones
            ));
            solve_rows.fill(true);
        } else {
            for (v, hit) in hits.iter().enumerate() {
                plan.interpolate(
                    self.source,
                    hit,
                    &mut rows[v * (nb + 1)..(v + 1) * (nb + 1)],
                );
            }
            report.copied = points.len();
            if options.method == TransferMethod::Robust {
                let matched = robust_matches(cut, hits, radius, options.max_angle_deg);
                let orphans = inpaint::fill(&cut.scene.mesh, &matched, rows, nb + 1)?;
                report.copied = matched.iter().filter(|&&m| m).count();
                report.inpainted = points.len() - report.copied - orphans.len();
                orphans.iter().for_each(|&v| solve_rows[v] = true);
            }
        }
        Ok(solve_rows)
    }
}

/// Per target vertex, the share of its row the from-scratch solve takes: all of it for a vertex
/// weighted from scratch or given no source weight, else the unmapped bones' share (`rows`:
/// per vertex the scene's `nb` bones and that share).
fn scratch_share(rows: &[f64], solve_rows: &[bool], nb: usize) -> Vec<f64> {
    (0..solve_rows.len())
        .map(|v| {
            let row = &rows[v * (nb + 1)..(v + 1) * (nb + 1)];
            let kept: f64 = row[..nb].iter().map(|w| w.max(0.0)).sum();
            let lost = row[nb].max(0.0);
            if solve_rows[v] || kept <= 0.0 {
                1.0
            } else {
                (lost / (kept + lost)).clamp(0.0, 1.0)
            }
        })
        .collect()
}

/// Raises each vertex's from-scratch share to the weight `scratch` (the from-scratch solve on
/// `cut`) gives the `uncovered` bones (scene indices) there.
fn give_uncovered(cut: &SubScene, scratch: &Weights, uncovered: &[usize], share: &mut [f64]) {
    let columns: Vec<usize> = (0..cut.bones.len())
        .filter(|&k| uncovered.contains(&cut.bones[k]))
        .collect();
    for (v, sh) in share.iter_mut().enumerate() {
        let missing: f64 = columns.iter().map(|&k| scratch.row(v)[k]).sum();
        *sh = sh.max(missing.clamp(0.0, 1.0));
    }
}

/// How many of the target's bones the plan sends source weight to, and of how many.
fn coverage(target: &TransferTarget, plan: &BonePlan) -> Option<(usize, usize)> {
    let bones = target.bones.as_ref().filter(|b| !b.is_empty())?;
    let reached = bones
        .iter()
        .filter(|j| plan.to_scene.contains(&Some(**j)))
        .count();
    Some((reached, bones.len()))
}

/// Source bones carrying weight somewhere.
fn used_bones(weights: &Weights) -> Vec<bool> {
    let mut used = vec![false; weights.bone_count()];
    for row in weights.rows() {
        for (u, &w) in used.iter_mut().zip(row) {
            *u |= w > 0.0;
        }
    }
    used
}

/// The bones the from-scratch solve uses: the target's, else the scene bones the plan sends
/// source weight to, else the scene's deforming bones.
fn fallback_bones(scene: &Scene, target: &TransferTarget, plan: &BonePlan) -> Result<Vec<usize>> {
    if let Some(b) = target.bones.as_ref().filter(|b| !b.is_empty()) {
        return Ok(b.clone());
    }
    let mut bones: Vec<usize> = plan.to_scene.iter().flatten().copied().collect();
    bones.sort_unstable();
    bones.dedup();
    if bones.is_empty() {
        bones = scene.deforming_bones(None)?.kept;
    }
    Ok(bones)
}

/// `robust`'s test per target vertex: within `radius` of a source and, on the target's
/// outline outside the source, facing away from it within `max_angle_deg`.
fn robust_matches(cut: &SubScene, hits: &[Hit], radius: f64, max_angle_deg: f64) -> Vec<bool> {
    let normals = outline_normals(&cut.scene.mesh);
    let cos_max = max_angle_deg.to_radians().cos();
    hits.iter()
        .zip(cut.scene.mesh.vertices())
        .zip(&normals)
        .map(|((hit, p), n)| {
            if hit.distance > radius {
                return false;
            }
            match n {
                Some(n) if hit.distance > 0.0 => (p - hit.point).normalize().dot(n) >= cos_max,
                _ => true,
            }
        })
        .collect()
}

/// Outward unit normal of the outline at each boundary vertex (`None` inside).
fn outline_normals(mesh: &crate::mesh::Mesh) -> Vec<Option<Vector2<f64>>> {
    let pts = mesh.vertices();
    let mut sum = vec![Vector2::zeros(); pts.len()];
    let mut on = vec![false; pts.len()];
    for (t, a, b) in closest::boundary_edges(mesh.triangles()) {
        let third = mesh.triangles()[t]
            .into_iter()
            .find(|&c| c != a && c != b)
            .unwrap_or(a);
        let e = pts[b] - pts[a];
        let mut n = Vector2::new(e.y, -e.x);
        if n.dot(&(pts[third] - pts[a])) > 0.0 {
            n = -n;
        }
        for v in [a, b] {
            sum[v] += n;
            on[v] = true;
        }
    }
    sum.into_iter()
        .zip(on)
        .map(|(s, on)| (on && s.norm() > 0.0).then(|| s.normalize()))
        .collect()
}

/// Final rows: the transferred weights (normalised) and the from-scratch rows mixed by each
/// vertex's `share` of the latter (taken as 0 without them).
fn blend(
    cut: &SubScene,
    rows: &[f64],
    share: &[f64],
    scratch: Option<&Weights>,
    nb: usize,
    report: &mut TransferReport,
) -> Result<Weights> {
    let n = cut.vertices.len();
    let mut out = Weights::zeros_unchecked(n, nb);
    for v in 0..n {
        let row = &rows[v * (nb + 1)..(v + 1) * (nb + 1)];
        let kept: f64 = row[..nb].iter().map(|w| w.max(0.0)).sum();
        let share = if scratch.is_some() { share[v] } else { 0.0 };
        let dst = out.row_mut_unchecked(v);
        if share < 1.0 && kept > 0.0 {
            for (d, w) in dst.iter_mut().zip(&row[..nb]) {
                *d = (1.0 - share) * w.max(0.0) / kept;
            }
        }
        if let (true, Some(s)) = (share > 0.0, scratch) {
            report.from_scratch += 1;
            for (k, &j) in cut.bones.iter().enumerate() {
                dst[j] += share * s.row(v)[k];
            }
        }
    }
    let bad = out.normalize();
    if let Some(&v) = bad.first() {
        return Err(WeightsError::UnscorableRow {
            vertex: cut.vertices[v],
            sum: out.row(v).iter().sum(),
        }
        .into());
    }
    Ok(out)
}

fn mapping_notes(part: &str, plan: &BonePlan, report: &mut TransferReport) {
    if !plan.mapped.is_empty() {
        let pairs: Vec<String> = plan
            .mapped
            .iter()
            .map(|(s, t)| format!("{s} -> {t}"))
            .collect();
        report.notes.push(format!(
            "{part}: {} source bones it is not bound to were mapped to its bones: {}",
            pairs.len(),
            pairs.join(", ")
        ));
    }
    if !plan.unmapped.is_empty() {
        report.notes.push(format!(
            "{part}: {} source bones have no counterpart among its bones ({}); their share of {} vertices was weighted from scratch",
            plan.unmapped.len(),
            plan.unmapped.join(", "),
            report.from_scratch
        ));
    }
}
