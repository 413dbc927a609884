//! The table of measurable checks, run on a scene and its weights.
//!
//! | check | pass condition | inspect first on failure |
//! |---|---|---|
//! | bind-pose identity | max displacement < 1e-6 | inverse bind matrix and multiplication order |
//! | weight normalization | max abs(row sum - 1) < 1e-5 | uninitialized weights, import precision, missing influence |
//! | neighbourhood continuity | no isolated discontinuity | automatic-weight radius and hard-edge labels |
//! | extreme pose (each probe) | no flipped triangle, area loss within the limit | corrective shape, helper bone, blend width |
//! | seam weights (scenes with recorded seams) | max weight difference across a seam <= 1e-12 | weights solved outside the registry or edited after it |
//! | seam opening (each probe and clip frame) | max distance between a joint's posed vertices <= 1e-6 px | seam weights, then the joint's rest positions |
//! | interpenetration (each probe) | the posed contour does not interpenetrate: no crossing boundary edges, interpenetrating area <= the limit (default 0 px²) | corrective shape, helper bone, blend width; then the layer pair and crossing it names |
//!
//! | pixel edge (scenes with art; feature `io`) | \|S\| <= 1 and G <= 2/255 over black, white, red at 1x, 2x, 4x | transparent RGB, premultiplied alpha, texture dilation |
//!
//! The pixel-edge rows come from [`pixel_edge_checks`], given the renderer's numbers (they
//! need the textures and the renderer, feature `io`).
//!
//! The interpenetration row is the extreme-pose condition "no intersection"
//! ([`crate::metrics::interpenetration()`]): crossing pairs of posed boundary edges (a layer's
//! outline crossing itself, or two layers' outlines crossing where they did not overlap at
//! rest) and the area covered more than once that was not at rest. Its [`Check::values`]
//! (JSON key `values`) are `self_crossings`, `layer_crossings`, `area_px2` and `area_pct`;
//! the continuity row's are `isolated_vertices` and `worst_px` (the largest distance off the
//! neighbours' blend, 0 without poses), an extreme pose's `flipped_triangles` and
//! `area_change_pct`.
//!
//! An artist's rig is judged against its own weights: [`shared_with_reference`] tells a
//! failure the reference weights share (as badly or worse) from one these weights add.
//! Artists paint hard edges on coarse meshes on purpose, so their weights can fail the
//! continuity row, and an extreme pose derived from the skeleton can exceed what the art
//! was drawn for.

use crate::error::{Result, SceneError, SolverError};
use crate::metrics::{
    area_change_pct, bind_identity_error, flipped_triangles, isolated_discontinuities,
    posed_positions, Interpenetration, DEFAULT_JUMP_THRESHOLD,
};
use crate::scene::Scene;
use crate::skinning::{check_shape, lbs_with_affines};
use crate::weights::Weights;
use rayon::prelude::*;
use serde::Serialize;
use std::cell::OnceCell;
use std::collections::BTreeMap;

/// Default [`LintOptions::visible_jump_px`]: a discontinuity shows when its vertex lands a
/// pixel or more away from where its neighbours' mean weights would put it.
pub const DEFAULT_VISIBLE_JUMP_PX: f64 = 1.0;

/// Thresholds of the checks.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LintOptions {
    /// Bind-pose identity limit, scene units (default [`Self::DEFAULT_BIND_TOLERANCE`],
    /// 1e-6).
    pub bind_tolerance: f64,
    /// Normalization limit (default [`Self::DEFAULT_NORM_TOLERANCE`], 1e-5).
    pub norm_tolerance: f64,
    /// L1 jump that counts as a discontinuity (default [`Self::DEFAULT_JUMP_THRESHOLD`] =
    /// [`DEFAULT_JUMP_THRESHOLD`], 0.5).
    pub jump_threshold: f64,
    /// Smallest distance, px, by which an isolated discontinuity must leave its neighbours'
    /// blend in some probe or clip frame to fail the continuity check (default
    /// [`Self::DEFAULT_VISIBLE_JUMP_PX`] = [`DEFAULT_VISIBLE_JUMP_PX`], a pixel). A scene
    /// with neither probes nor clips counts every isolated discontinuity.
    pub visible_jump_px: f64,
    /// Largest acceptable area loss in an extreme pose, percent (default
    /// [`Self::DEFAULT_MAX_AREA_LOSS_PCT`], 10).
    pub max_area_loss_pct: f64,
    /// Largest acceptable interpenetrating area in an extreme pose, px² (default
    /// [`Self::DEFAULT_MAX_INTERPENETRATION_PX2`], 0: the "no intersection").
    pub max_interpenetration_px2: f64,
    /// Largest acceptable opening between the vertices of a recorded seam joint in a probe
    /// or clip frame, px (default [`Self::DEFAULT_MAX_SEAM_OPENING_PX`], 1e-6).
    pub max_seam_opening_px: f64,
}

impl Default for LintOptions {
    fn default() -> Self {
        LintOptions {
            bind_tolerance: Self::DEFAULT_BIND_TOLERANCE,
            norm_tolerance: Self::DEFAULT_NORM_TOLERANCE,
            jump_threshold: Self::DEFAULT_JUMP_THRESHOLD,
            visible_jump_px: Self::DEFAULT_VISIBLE_JUMP_PX,
            max_area_loss_pct: Self::DEFAULT_MAX_AREA_LOSS_PCT,
            max_interpenetration_px2: Self::DEFAULT_MAX_INTERPENETRATION_PX2,
            max_seam_opening_px: Self::DEFAULT_MAX_SEAM_OPENING_PX,
        }
    }
}

impl LintOptions {
    /// Default [`Self::bind_tolerance`]: 1e-6 scene units.
    pub const DEFAULT_BIND_TOLERANCE: f64 = 1e-6;
    /// Default [`Self::norm_tolerance`]: 1e-5.
    pub const DEFAULT_NORM_TOLERANCE: f64 = 1e-5;
    /// Default [`Self::jump_threshold`]: [`DEFAULT_JUMP_THRESHOLD`], 0.5.
    pub const DEFAULT_JUMP_THRESHOLD: f64 = DEFAULT_JUMP_THRESHOLD;
    /// Default [`Self::visible_jump_px`]: [`DEFAULT_VISIBLE_JUMP_PX`], a pixel.
    pub const DEFAULT_VISIBLE_JUMP_PX: f64 = DEFAULT_VISIBLE_JUMP_PX;
    /// Default [`Self::max_area_loss_pct`]: 10 percent.
    pub const DEFAULT_MAX_AREA_LOSS_PCT: f64 = 10.0;
    /// Default [`Self::max_interpenetration_px2`]: 0 px².
    pub const DEFAULT_MAX_INTERPENETRATION_PX2: f64 = 0.0;
    /// Default [`Self::max_seam_opening_px`]: 1e-6 px.
    pub const DEFAULT_MAX_SEAM_OPENING_PX: f64 = 1e-6;

    /// These options with the largest acceptable area loss `pct`, percent.
    pub fn with_max_area_loss_pct(mut self, pct: f64) -> Self {
        self.max_area_loss_pct = pct;
        self
    }

    /// These options with the largest acceptable interpenetrating area `px2`, px².
    pub fn with_max_interpenetration_px2(mut self, px2: f64) -> Self {
        self.max_interpenetration_px2 = px2;
        self
    }

    /// These options with the largest acceptable seam opening `px`, px.
    pub fn with_max_seam_opening_px(mut self, px: f64) -> Self {
        self.max_seam_opening_px = px;
        self
    }
}

impl LintOptions {
    /// Every threshold must be a finite number >= 0 (`NaN` would make every comparison fail
    /// silently, infinity would pass anything): [`SolverError::InvalidOption`] names the first that
    /// is not.
    pub fn check(&self) -> Result<()> {
        for (option, value) in [
            ("bind_tolerance", self.bind_tolerance),
            ("norm_tolerance", self.norm_tolerance),
            ("jump_threshold", self.jump_threshold),
            ("visible_jump_px", self.visible_jump_px),
            ("max_area_loss_pct", self.max_area_loss_pct),
            ("max_interpenetration_px2", self.max_interpenetration_px2),
            ("max_seam_opening_px", self.max_seam_opening_px),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(SolverError::InvalidOption {
                    option: option.into(),
                    message: format!("{value} is not a finite number >= 0"),
                }
                .into());
            }
        }
        Ok(())
    }
}

/// The result of one check.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// Check name.
    pub check: String,
    /// Whether it passed.
    pub pass: bool,
    /// The measured number, in words with units.
    pub measured: String,
    /// The pass condition.
    pub condition: String,
    /// The "inspect first on failure" hint.
    pub inspect_first: String,
    /// The measured numbers by name, for machines (JSON key `values`, left out when empty);
    /// see the module docs for the rows that have them.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub values: BTreeMap<String, f64>,
}

impl Check {
    /// Whether these weights do no worse on this check than `reference` (the same check,
    /// run on reference weights such as the artist's): every number in [`Check::values`]
    /// is at most the reference's (for `area_change_pct`, at least: a loss is negative),
    /// up to rounding. `false` for rows without numbers (bind identity, normalization,
    /// pixel edge) and for rows of different checks.
    pub fn no_worse_than(&self, reference: &Check) -> bool {
        if self.check != reference.check || self.values.is_empty() {
            return false;
        }
        self.values.iter().all(|(key, &ours)| {
            let Some(&theirs) = reference.values.get(key) else {
                return false;
            };
            let slack = 1e-9 * ours.abs().max(theirs.abs()).max(1.0);
            if key == "area_change_pct" {
                ours >= theirs - slack
            } else {
                ours <= theirs + slack
            }
        })
    }

    /// Whether the check could not be run ([`not_measured`]): shown as `SKIP`, not a
    /// failure.
    pub fn measured_nothing(&self) -> bool {
        self.measured.starts_with(NOT_MEASURED)
    }
}

/// Whether a failing row `check` of some weights is one the reference weights fail as
/// badly ([`Check::no_worse_than`] the reference's row of the same name in `reference`):
/// what the rig itself does, not what these weights add. `false` for a passing row.
pub fn shared_with_reference(check: &Check, reference: &[Check]) -> bool {
    !check.pass
        && reference
            .iter()
            .find(|r| r.check == check.check)
            .is_some_and(|r| !r.pass && check.no_worse_than(r))
}

/// Runs every check; one extreme-pose check per probe of the scene.
pub fn lint(scene: &Scene, weights: &Weights, options: &LintOptions) -> Result<Vec<Check>> {
    lint_on(&LintScene::new(scene), weights, options)
}

/// Most clip frames lint measures over all of a scene's clips together: clips are sampled
/// at [`crate::animation::DEFAULT_FPS`], or, when that would give more frames in all, at
/// the lower rate that gives about this many ([`LintScene::clip_fps`]; every clip keeps its
/// first and last frames). A rig with 141 clips (430 s of animation) had 13 149 frames at
/// 30 fps, 48 s of lint.
pub const MAX_LINT_CLIP_FRAMES: usize = 1000;

/// What lint measures that does not depend on the weights: the probe and clip poses, their
/// skinning transforms, and the rest-pose work of the interpenetration check. Each is
/// computed on first use and shared by every weights set linted with [`lint_on`] on the
/// same scene (the command line lints the weights and the reference weights with one).
pub struct LintScene<'a> {
    scene: &'a Scene,
    poses: OnceCell<Vec<CheckedPose>>,
    contour: OnceCell<Interpenetration<'a>>,
}

/// One pose the checks that follow a scene's motion measure.
struct CheckedPose {
    /// The probe's name, or the clip's and the time, quoted for the rows.
    name: String,
    /// The skinning transform of every bone in this pose.
    transforms: Vec<crate::skeleton::Affine2>,
}

impl<'a> LintScene<'a> {
    /// Nothing computed yet.
    pub fn new(scene: &'a Scene) -> Self {
        LintScene {
            scene,
            poses: OnceCell::new(),
            contour: OnceCell::new(),
        }
    }

    /// The scene linted.
    pub fn scene(&self) -> &'a Scene {
        self.scene
    }

    /// The frame rate lint samples the scene's clips at: [`crate::animation::DEFAULT_FPS`],
    /// lowered in proportion when the clips together would have more than
    /// [`MAX_LINT_CLIP_FRAMES`] frames at that rate.
    pub fn clip_fps(&self) -> Result<f64> {
        let fps = crate::animation::DEFAULT_FPS;
        let mut total = 0usize;
        for clip in &self.scene.clips {
            total += clip.frame_times(fps)?.len();
        }
        Ok(if total > MAX_LINT_CLIP_FRAMES {
            fps * MAX_LINT_CLIP_FRAMES as f64 / total as f64
        } else {
            fps
        })
    }

    /// The poses the checks that follow a scene's motion measure: each probe, then each clip
    /// sampled at [`LintScene::clip_fps`] (with its last frame).
    fn poses(&self) -> Result<&[CheckedPose]> {
        if let Some(p) = self.poses.get() {
            return Ok(p);
        }
        let scene = self.scene;
        let skeleton = &scene.skeleton;
        let mut poses = Vec::new();
        for p in &scene.probes {
            poses.push(CheckedPose {
                name: format!("{:?}", p.name),
                transforms: skeleton.skinning_affines(&p.pose)?,
            });
        }
        let fps = self.clip_fps()?;
        let mut frames = Vec::new();
        for clip in &scene.clips {
            frames.extend(clip.frame_times(fps)?.into_iter().map(|t| (clip, t)));
        }
        // A frame's pose (IK applied) costs far more than its skinning: in parallel.
        let clip_poses = frames
            .into_par_iter()
            .map(|(clip, t)| {
                Ok(CheckedPose {
                    name: format!("{:?} at {t:.3} s", clip.name),
                    transforms: skeleton.skinning_affines(&scene.clip_pose(clip, t)?)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        poses.extend(clip_poses);
        Ok(self.poses.get_or_init(|| poses))
    }

    /// The interpenetration check's rest-pose work.
    fn contour(&self) -> Result<&Interpenetration<'a>> {
        if let Some(c) = self.contour.get() {
            return Ok(c);
        }
        let c = Interpenetration::for_scene(self.scene)?;
        Ok(self.contour.get_or_init(|| c))
    }
}

/// [`lint`] on a [`LintScene`], which keeps what does not depend on the weights for the
/// next weights set linted on the same scene.
pub fn lint_on(at: &LintScene<'_>, weights: &Weights, options: &LintOptions) -> Result<Vec<Check>> {
    let scene = at.scene;
    options.check()?;
    check_shape(scene.mesh.vertex_count(), weights, scene.skeleton.len())?;
    weights.check_scorable()?;
    let mut checks = Vec::new();
    let bind = bind_identity_error(scene, weights)?;
    checks.push(Check {
        check: "bind-pose identity".into(),
        pass: bind < options.bind_tolerance,
        measured: format!("max displacement {bind:.3e} px"),
        condition: format!("< {:e}", options.bind_tolerance),
        inspect_first: "inverse bind matrix and multiplication order".into(),
        values: BTreeMap::new(),
    });
    let norm = weights.normalization_error();
    let worst = weights
        .rows()
        .enumerate()
        .map(|(v, r)| (v, (r.iter().sum::<f64>() - 1.0).abs()))
        .fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    checks.push(Check {
        check: "weight normalization".into(),
        pass: norm < options.norm_tolerance,
        measured: format!("max |sum - 1| = {norm:.3e} (vertex {})", worst.0),
        condition: format!("< {:e}", options.norm_tolerance),
        inspect_first: "uninitialized weights, import precision, missing influence".into(),
        values: BTreeMap::new(),
    });
    checks.push(continuity_check(at, weights, options)?);
    for probe in &scene.probes {
        let posed = posed_positions(scene, weights, &probe.pose)?;
        let flipped = flipped_triangles(&scene.mesh, &posed);
        let area = area_change_pct(&scene.mesh, &posed);
        if !area.is_finite() {
            return Err(SceneError::UnmeasurablePose {
                probe: probe.name.clone(),
                measure: "the area change",
                value: area,
            }
            .into());
        }
        checks.push(Check {
            check: format!("extreme pose {:?}", probe.name),
            pass: flipped == 0 && area >= -options.max_area_loss_pct,
            measured: format!("{flipped} flipped triangles, area change {area:+.3}%"),
            condition: format!("0 flipped, area loss <= {}%", options.max_area_loss_pct),
            inspect_first: "corrective shape, helper bone, blend width".into(),
            values: BTreeMap::from([
                ("flipped_triangles".to_string(), flipped as f64),
                ("area_change_pct".to_string(), area),
            ]),
        });
        checks.push(interpenetration_check(
            at.contour()?,
            &probe.name,
            &posed,
            options.max_interpenetration_px2,
        )?);
    }
    checks.extend(seam_checks_on(at, weights, options.max_seam_opening_px)?);
    Ok(checks)
}

/// The seam rows of a scene with recorded seams ([`crate::scene::Seams`]; none without):
/// the largest weight difference across a seam (pass: 0 up to 1e-12), and the largest
/// opening between a joint's vertices in each probe and each clip frame (at
/// [`LintScene::clip_fps`]), pass when at most `max_opening_px`. Their
/// [`Check::values`] are `weight_difference`, and `opening_px` per pose.
pub fn seam_checks(scene: &Scene, weights: &Weights, max_opening_px: f64) -> Result<Vec<Check>> {
    seam_checks_on(&LintScene::new(scene), weights, max_opening_px)
}

fn seam_checks_on(
    at: &LintScene<'_>,
    weights: &Weights,
    max_opening_px: f64,
) -> Result<Vec<Check>> {
    let scene = at.scene;
    let seams = &scene.seams;
    if seams.is_empty() {
        return Ok(Vec::new());
    }
    check_shape(scene.mesh.vertex_count(), weights, scene.skeleton.len())?;
    let diff = seams.max_weight_difference(weights);
    let mut checks = vec![Check {
        check: "seam weights".into(),
        pass: diff <= SEAM_WEIGHT_TOLERANCE,
        measured: format!(
            "max weight difference across a seam {diff:.3e} ({} joints, {} welds)",
            seams.joints.len(),
            seams.welds.len()
        ),
        condition: format!("<= {SEAM_WEIGHT_TOLERANCE:e}"),
        inspect_first: "weights solved outside the registry, or edited after the solve".into(),
        values: BTreeMap::from([("weight_difference".to_string(), diff)]),
    }];
    for pose in at.poses()? {
        let posed = lbs_with_affines(scene.mesh.vertices(), weights, &pose.transforms)?;
        let opening = seams.max_opening(&posed);
        checks.push(Check {
            check: format!("seam opening {}", pose.name),
            pass: opening <= max_opening_px,
            measured: format!("max opening {opening:.3e} px"),
            condition: format!("<= {max_opening_px:e} px"),
            inspect_first: "seam weights, then the joint's rest positions".into(),
            values: BTreeMap::from([("opening_px".to_string(), opening)]),
        });
    }
    Ok(checks)
}

/// The neighbourhood-continuity row: vertices whose row differs from every neighbour's by
/// more than the jump threshold ([`isolated_discontinuities`]) that also show in the
/// deformed mesh, landing [`LintOptions::visible_jump_px`] or more from where their
/// neighbours' mean row would put them in some probe or clip frame (the check compares
/// weights and the deformation). Without probes or clips every such vertex counts.
fn continuity_check(at: &LintScene<'_>, weights: &Weights, options: &LintOptions) -> Result<Check> {
    let scene = at.scene;
    let jumps = isolated_discontinuities(&scene.mesh, weights, options.jump_threshold);
    let poses = if jumps.is_empty() { &[] } else { at.poses()? };
    let condition = format!(
        "no vertex differs from all its neighbours by L1 > {}",
        options.jump_threshold
    );
    let (shown, worst_px, measured) = if poses.is_empty() {
        let measured = match jumps.first() {
            Some(v) => format!(
                "{} isolated discontinuities (first: vertex {v})",
                jumps.len()
            ),
            None => "0 isolated discontinuities".into(),
        };
        (jumps.len(), 0.0, measured)
    } else {
        let transforms: Vec<&[crate::skeleton::Affine2]> =
            poses.iter().map(|p| p.transforms.as_slice()).collect();
        let mut visible: Vec<(usize, f64)> = jumps
            .iter()
            .map(|&v| (v, jump_distance(scene, weights, v, &transforms)))
            .filter(|&(_, d)| d >= options.visible_jump_px)
            .collect();
        let hidden = jumps.len() - visible.len();
        visible.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut measured = match visible.first() {
            Some((v, d)) => format!(
                "{} isolated discontinuities that show (worst: vertex {v}, {d:.1} px off its neighbours' blend)",
                visible.len()
            ),
            None => "0 isolated discontinuities that show".into(),
        };
        if hidden > 0 {
            measured += &format!(
                "; {hidden} more stay within {} px in all {} poses",
                options.visible_jump_px,
                poses.len()
            );
        }
        let fps = at.clip_fps()?;
        if fps < crate::animation::DEFAULT_FPS {
            measured +=
                &format!("; clips sampled at {fps:.2} fps ({MAX_LINT_CLIP_FRAMES} frames at most)");
        }
        let worst = visible.first().map_or(0.0, |&(_, d)| d);
        (visible.len(), worst, measured)
    };
    Ok(Check {
        check: "neighbourhood continuity".into(),
        pass: shown == 0,
        measured,
        condition: if poses.is_empty() {
            condition
        } else {
            format!(
                "{condition} and lands >= {} px from its neighbours' blend in a probe or clip frame",
                options.visible_jump_px
            )
        },
        inspect_first: "automatic-weight radius and hard-edge labels".into(),
        values: BTreeMap::from([
            ("isolated_vertices".to_string(), shown as f64),
            ("worst_px".to_string(), worst_px),
        ]),
    })
}

/// The largest distance, over the poses' skinning `transforms`, between vertex `v` skinned
/// with its own row and with the mean of its neighbours' rows.
fn jump_distance(
    scene: &Scene,
    weights: &Weights,
    v: usize,
    transforms: &[&[crate::skeleton::Affine2]],
) -> f64 {
    let neighbours = scene.mesh.topology().neighbors(v);
    let rest = scene.mesh.vertices()[v];
    let own = weights.row(v);
    let bones = own.len();
    let mean: Vec<f64> = (0..bones)
        .map(|j| {
            neighbours.iter().map(|&u| weights.row(u)[j]).sum::<f64>() / neighbours.len() as f64
        })
        .collect();
    transforms
        .iter()
        .map(|t| {
            let mut gap = nalgebra::Vector2::zeros();
            for (j, a) in t.iter().enumerate() {
                let delta = own[j] - mean[j];
                if delta != 0.0 {
                    gap += a.apply(rest).coords * delta;
                }
            }
            gap.norm()
        })
        .fold(0.0, f64::max)
}

/// Largest weight difference across a recorded seam that the seam row passes (rounding of
/// the join's mean).
pub const SEAM_WEIGHT_TOLERANCE: f64 = 1e-12;

/// One pose and scale of the pixel-edge check as the renderer measured it (feature
/// `io` renders; lint only tabulates): the fringe numbers S, F, G and the red check.
#[derive(Debug, Clone, PartialEq)]
pub struct PixelEdgeMeasure {
    /// `rest` or the probe's name.
    pub pose: String,
    /// Output scale.
    pub scale: f64,
    /// S: the mean signed fringe.
    pub bias: f64,
    /// F: the largest fringe.
    pub max: f64,
    /// F's 99th percentile.
    pub p99: f64,
    /// G: the gap coverage.
    pub gap: f64,
    /// The red render's blend error, if measured.
    pub red_error: Option<f64>,
    /// Whether the renderer found every number within its limits.
    pub pass: bool,
}

/// The pixel-edge check as lint rows, one per measured pose (rest and every probe) and
/// scale, for a scene with art, with the limits the renderer checked (`max_bias` on |S|,
/// `max_gap` on G). The caller renders (the `render` module's `pixel_edge`, feature `io`:
/// rotated 17 degrees with a sub-pixel offset, in the art's own alpha mode, 4 x 4 samples).
pub fn pixel_edge_checks(rows: &[PixelEdgeMeasure], max_bias: f64, max_gap: f64) -> Vec<Check> {
    rows.iter()
        .map(|r| Check {
            check: format!("pixel edge {} {}x", r.pose, r.scale),
            pass: r.pass,
            measured: format!(
                "S = {:+.2}, F = {:.1} (p99 {:.1}), G = {:.4}, red check {:.1}",
                r.bias,
                r.max,
                r.p99,
                r.gap,
                r.red_error.unwrap_or(0.0)
            ),
            condition: format!("|S| <= {max_bias}, G <= {max_gap:.4} over black, white, red"),
            inspect_first: "transparent RGB, premultiplied alpha, texture dilation".into(),
            values: BTreeMap::new(),
        })
        .collect()
}

/// What a check that could not be measured says it measured: [`not_measured`]'s rows start
/// with it, and [`Check::measured_nothing`] looks for it.
pub const NOT_MEASURED: &str = "not measured: ";

/// A row for a check that could not be run (`why`, e.g. a render over the size limits): it
/// neither passes nor fails the lint ([`Check::measured_nothing`]; counted as passing).
pub fn not_measured(check: &str, why: &str) -> Check {
    Check {
        check: check.to_string(),
        pass: true,
        measured: format!("{NOT_MEASURED}{why}"),
        condition: "-".into(),
        inspect_first: String::new(),
        values: BTreeMap::new(),
    }
}

/// The interpenetration row of one pose (a probe or a clip frame, named `pose`): pass when no
/// boundary edges cross and the interpenetrating area is at most `max_area_px2`.
pub fn interpenetration_check(
    contour: &Interpenetration<'_>,
    pose: &str,
    posed: &[nalgebra::Point2<f64>],
    max_area_px2: f64,
) -> Result<Check> {
    let r = contour.measure(posed)?;
    let mut measured = format!(
        "{} self-crossing and {} layer-crossing edge pairs, area {:.3} px² ({:.3}%)",
        r.self_crossings, r.layer_crossings, r.area_px2, r.area_pct
    );
    if let Some(c) = &r.first_crossing {
        measured += &format!(
            "; first: {}|{} edges {:?} x {:?} at ({:.1}, {:.1})",
            c.layers[0], c.layers[1], c.edges[0], c.edges[1], c.point[0], c.point[1]
        );
    } else if let Some(p) = r.pairs.first() {
        measured += &format!("; most: {}|{} {:.3} px²", p.layers[0], p.layers[1], p.area);
    }
    let values = BTreeMap::from([
        ("self_crossings".to_string(), r.self_crossings as f64),
        ("layer_crossings".to_string(), r.layer_crossings as f64),
        ("area_px2".to_string(), r.area_px2),
        ("area_pct".to_string(), r.area_pct),
    ]);
    Ok(Check {
        check: format!("interpenetration {pose:?}"),
        pass: r.crossings() == 0 && r.area_px2 <= max_area_px2,
        measured,
        condition: format!("0 crossing edge pairs, area <= {max_area_px2} px²"),
        inspect_first:
            "corrective shape, helper bone, blend width; then the layers and edges named".into(),
        values,
    })
}
