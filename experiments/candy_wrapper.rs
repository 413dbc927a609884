//! # candy_wrapper: how much a joint collapses when it bends, and what fixes it
//!
//! On the built-in `bar` (200 x 40, bones `upper` 0..100 and `lower` 100..200 along x, joint at
//! x = 100) the weights are designed directly with the seed's 1D ramp
//! `w_lower = clamp((x - (100 - r)) / (2r), 0, 1)`, `w_upper = 1 - w_lower`, r = 20 (no solver
//! needed). The lower bone bends 0..180 degrees and, for each method, we measure the
//! **joint cross-section width**: the posed distance between the top (x, 20) and bottom
//! (x, -20) of every column x across the joint region, the narrowest column divided by the
//! rest width 40.
//!
//! - (a) LBS: the narrowest column is the equal-weight one (x = 100), width `cos(θ/2)`.
//! - (b) LBS with a half-angle helper bone at the joint ([`HalfAngleHelper`]): `cos(θ/4)`.
//! - (c) 2D dual-quaternion skinning: the joint keeps its width (columns move rigidly).
//! - (d) LBS plus an automatic corrective ([`auto_corrective`]: the fillet bend of the joint,
//!   keys at 45, 90, 135 and 179 degrees (and every 5 degrees between), the 179 key held
//!   to 180). Correctives live on mesh vertices, so its width is measured on the mesh's
//!   columns: each top boundary vertex (x, 20) with its mirror (x, -20), all along the bar;
//!   `lbs_mesh_width` is LBS on the same columns.
//!
//! For every method it also measures the joint's **outer bulge**: how far a posed mesh
//! vertex lies outside the ideal bent bar (the upper limb at rest, the lower limb turned
//! rigidly by θ, and the round joint, the disc of the half-width 20 about the joint), over
//! the width 40; and the **run-time cost**: the median wall time of skinning the whole mesh
//! once (LBS; DQS; LBS on the skeleton with the helper bone; LBS plus the corrective).
//!
//! It also reports the total area change of the posed bar mesh per method, and checks the
//! seed's claim that the blend width r changes how far the collapse spreads, not how deep.
//!
//! **Scale and shear.** The same four methods on poses where the lower bone scales
//! non-uniformly (along its axis by 0.5..2, across by 0.5 and 2) or shears (15..45 degrees),
//! alone and on top of a 90 degree bend. Per pose and method: the **child limb error** (the
//! largest distance of a vertex the ramp gives wholly to the lower bone from where the lower
//! bone's affine skinning transform puts it: how far the method fails to follow the bone),
//! the narrowest and widest mesh column over the rest width, the area change and the flipped
//! triangles. What each method does: LBS and the helper blend the affine matrices (scale and
//! shear followed, the helper bone itself does not scale); dual quaternions blend rigid
//! transforms only, so they drop scale and shear; the corrective is keyed on the joint angle
//! only, so it adds nothing to a pose that scales or shears without bending and adds the
//! unscaled bend's offsets to one that does both.
//!
//! Writes `results/candy_wrapper/`: `candy_wrapper.csv` (one row per angle),
//! `scale_shear.csv` (one row per pose and method), `summary.json`, and figures
//! `width.png|svg`, `area.png|svg`, `bulge.png|svg`, `posed.png|svg`, `scale_shear.png|svg`.
//!
//! ```text
//! cargo run --release --bin candy_wrapper [-- --out DIR] [--quick]
//! ```

mod common;

use clap::Parser;
use common::{csv_num, main_with, progress, save_png_svg, write_json, write_text, Res};
use nalgebra::Point2;
use nalgebra::{Rotation2, Vector2};
use serde::Serialize;
use skinweights::correctives::{
    auto_corrective, skin_with_correctives, AutoCorrectiveOptions, Corrective,
};
use skinweights::metrics::{area_change_pct, flipped_triangles};
use skinweights::plot::{Grid, LineChart, Panel, PoseMap, Series};
use skinweights::skinning::{dual_quaternion_skinning, linear_blend_skinning, HalfAngleHelper};
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Scene, skeleton::Pose, skeleton::Skeleton,
    weights::Weights,
};
use std::time::Instant;

#[derive(Parser)]
#[command(about = "Joint width and area vs bend angle on the bar: LBS, helper bone, DQS")]
struct Cli {
    #[command(flatten)]
    common: common::CommonArgs,
}

/// The fourth method's name in tables.
const CORRECTIVE_LABEL: &str = "LBS + automatic corrective";

/// Joint position and half-height of the bar, and the blend half-width r of the ramp.
const JOINT_X: f64 = 100.0;
const HALF_HEIGHT: f64 = 20.0;
const RAMP_R: f64 = 20.0;

/// The seed's ramp: child weight across the joint region.
fn child_weight(x: f64, r: f64) -> f64 {
    ((x - (JOINT_X - r)) / (2.0 * r)).clamp(0.0, 1.0)
}

fn ramp_weights(points: &[Point2<f64>], r: f64) -> Res<Weights> {
    let rows: Vec<Vec<f64>> = points
        .iter()
        .map(|p| {
            let c = child_weight(p.x, r);
            vec![1.0 - c, c]
        })
        .collect();
    Ok(Weights::from_rows(&rows, 2)?)
}

/// Columns across the joint region (and a margin), as top/bottom point pairs.
fn columns(r: f64) -> Vec<Point2<f64>> {
    let n = (4.0 * (r + 10.0)) as i64; // 0.5 px steps over [100 - r - 10, 100 + r + 10]
    let mut pts = Vec::new();
    for i in -n..=n {
        let x = JOINT_X + i as f64 * 0.5;
        pts.push(Point2::new(x, HALF_HEIGHT));
        pts.push(Point2::new(x, -HALF_HEIGHT));
    }
    pts
}

/// Narrowest posed column width over the rest width.
fn min_width_ratio(posed: &[Point2<f64>]) -> f64 {
    posed
        .chunks(2)
        .map(|p| (p[0] - p[1]).norm())
        .fold(f64::INFINITY, f64::min)
        / (2.0 * HALF_HEIGHT)
}

/// Widest posed column width over the rest width.
fn max_width_ratio(posed: &[Point2<f64>]) -> f64 {
    posed
        .chunks(2)
        .map(|p| (p[0] - p[1]).norm())
        .fold(0.0, f64::max)
        / (2.0 * HALF_HEIGHT)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Lbs,
    Helper,
    Dqs,
}

impl Method {
    const ALL: [Method; 3] = [Method::Lbs, Method::Helper, Method::Dqs];
    fn label(self) -> &'static str {
        match self {
            Method::Lbs => "LBS",
            Method::Helper => "LBS + half-angle helper",
            Method::Dqs => "dual quaternions",
        }
    }
}

/// The rig: bar skeleton, and the same skeleton with a helper bone at the joint.
struct Rig {
    skeleton: Skeleton,
}

impl Rig {
    /// Posed positions of `points` (weights from the ramp) with `method` at bend `theta`.
    fn pose(&self, method: Method, points: &[Point2<f64>], r: f64, theta: f64) -> Res<Posed> {
        self.pose_with(method, points, r, &Pose::rest().rotate("lower", theta))
    }

    /// [`Rig::pose`] for any pose.
    fn pose_with(&self, method: Method, points: &[Point2<f64>], r: f64, pose: &Pose) -> Res<Posed> {
        let w = ramp_weights(points, r)?;
        let pose = pose.clone();
        Ok(match method {
            Method::Lbs => Posed {
                positions: linear_blend_skinning(points, &self.skeleton, &w, &pose)?,
                bones: self.skeleton.posed_segments(&pose)?,
            },
            Method::Dqs => Posed {
                positions: dual_quaternion_skinning(points, &self.skeleton, &w, &pose)?,
                bones: self.skeleton.posed_segments(&pose)?,
            },
            Method::Helper => {
                let (ext, ext_w, helper) = HalfAngleHelper::add(&self.skeleton, &w, "lower")?;
                let driven = helper.drive(&self.skeleton, &pose);
                let mut bones = ext.posed_segments(&driven)?;
                // The helper is as long as the child; draw only its first 30% so the picture
                // shows its direction (half the bend) without a stray line across the figure.
                let [a, b] = bones[helper.helper];
                bones[helper.helper] = [a, a + (b - a) * 0.3];
                Posed {
                    positions: linear_blend_skinning(points, &ext, &ext_w, &driven)?,
                    bones,
                }
            }
        })
    }
}

struct Posed {
    positions: Vec<Point2<f64>>,
    bones: Vec<[Point2<f64>; 2]>,
}

/// Per-vertex posed/rest area ratio of the incident triangles.
fn vertex_area_ratio(scene: &Scene, posed: &[Point2<f64>]) -> Vec<Option<f64>> {
    let n = scene.mesh().vertex_count();
    let (mut rest, mut now) = (vec![0.0; n], vec![0.0; n]);
    let r = scene.mesh().vertices();
    for t in scene.mesh().triangles() {
        let a0 = skinweights::geometry::signed_area2(&r[t[0]], &r[t[1]], &r[t[2]]);
        let a1 = skinweights::geometry::signed_area2(&posed[t[0]], &posed[t[1]], &posed[t[2]]);
        for &v in t {
            rest[v] += a0;
            now[v] += a1;
        }
    }
    rest.iter()
        .zip(&now)
        .map(|(a0, a1)| Some((a1 / a0).max(0.0)))
        .collect()
}

#[derive(Serialize, Clone, Copy)]
struct Row {
    theta_deg: f64,
    lbs_width: f64,
    cos_half: f64,
    helper_width: f64,
    cos_quarter: f64,
    dqs_width: f64,
    dqs_max_width: f64,
    lbs_area_change_pct: f64,
    helper_area_change_pct: f64,
    dqs_area_change_pct: f64,
    lbs_mesh_width: f64,
    corrective_width: f64,
    corrective_max_width: f64,
    corrective_area_change_pct: f64,
    corrective_flipped: usize,
    lbs_bulge_pct: f64,
    helper_bulge_pct: f64,
    dqs_bulge_pct: f64,
    corrective_bulge_pct: f64,
}

/// How far a posed point lies outside the ideal bent bar (see the module docs), px.
fn outside_ideal(p: Point2<f64>, theta: f64) -> f64 {
    let rect = |q: Vector2<f64>| {
        let dx = (-q.x).max(q.x - 100.0).max(0.0);
        let dy = (q.y.abs() - HALF_HEIGHT).max(0.0);
        dx.hypot(dy)
    };
    let q = p - Point2::new(JOINT_X, 0.0);
    let upper = rect(Vector2::new(-q.x, -q.y));
    let lower = rect(Rotation2::new(-theta.to_radians()) * q);
    let disc = (q.norm() - HALF_HEIGHT).max(0.0);
    upper.min(lower).min(disc)
}

/// Largest outer bulge of posed points, % of the width 40.
fn bulge_pct(posed: &[Point2<f64>], theta: f64) -> f64 {
    posed
        .iter()
        .map(|&p| outside_ideal(p, theta))
        .fold(0.0, f64::max)
        / (2.0 * HALF_HEIGHT)
        * 100.0
}

/// The mesh's columns across the band: top boundary vertex (x, 20) and its mirror.
fn mesh_columns(scene: &Scene, reach: f64) -> Vec<[usize; 2]> {
    let v = scene.mesh().vertices();
    (0..v.len())
        .filter(|&i| v[i].y == HALF_HEIGHT && (v[i].x - JOINT_X).abs() <= reach)
        .filter_map(|i| {
            (0..v.len())
                .find(|&j| v[j].y == -HALF_HEIGHT && v[j].x == v[i].x)
                .map(|j| [i, j])
        })
        .collect()
}

/// Narrowest and widest posed mesh column over the rest width.
fn mesh_width(posed: &[Point2<f64>], cols: &[[usize; 2]]) -> (f64, f64) {
    cols.iter()
        .map(|&[a, b]| (posed[a] - posed[b]).norm() / (2.0 * HALF_HEIGHT))
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), w| {
            (lo.min(w), hi.max(w))
        })
}

/// One scale or shear pose of the lower bone, on top of a bend.
struct Deform {
    label: String,
    theta: f64,
    scale: Vector2<f64>,
    shear: Vector2<f64>,
}

impl Deform {
    fn pose(&self) -> Pose {
        Pose::rest()
            .rotate("lower", self.theta)
            .scale("lower", self.scale)
            .shear("lower", self.shear)
    }
}

/// The scale and shear poses: along-axis scale 0.5..2, across-axis scale 0.5 and 2, shear
/// of the bone's y axis 15..45 degrees, each unbent and bent 90 degrees.
fn deform_poses() -> Vec<Deform> {
    let mut out = Vec::new();
    for theta in [0.0, 90.0] {
        let mut add = |label: String, scale: Vector2<f64>, shear: Vector2<f64>| {
            out.push(Deform {
                label,
                theta,
                scale,
                shear,
            })
        };
        for sx in [0.5, 0.75, 1.0, 1.5, 2.0] {
            add(
                format!("scale x {sx}"),
                Vector2::new(sx, 1.0),
                Vector2::zeros(),
            );
        }
        for sy in [0.5, 2.0] {
            add(
                format!("scale y {sy}"),
                Vector2::new(1.0, sy),
                Vector2::zeros(),
            );
        }
        for sh in [15.0, 30.0, 45.0] {
            add(
                format!("shear y {sh}"),
                Vector2::new(1.0, 1.0),
                Vector2::new(0.0, sh),
            );
        }
    }
    out
}

/// One method on one scale or shear pose.
#[derive(Serialize, Clone)]
struct DeformRow {
    pose: String,
    theta_deg: f64,
    scale_x: f64,
    scale_y: f64,
    shear_y_deg: f64,
    method: &'static str,
    /// Largest distance of a vertex wholly weighted to the lower bone from where the lower
    /// bone's affine skinning transform puts it, px.
    child_limb_error_px: f64,
    min_width: f64,
    max_width: f64,
    area_change_pct: f64,
    flipped: usize,
}

/// The corrective on one case: scene, weights, joint and angle (widths and bulge on the bar).
#[derive(Serialize)]
struct Case {
    scene: String,
    solver: &'static str,
    joint: &'static str,
    theta_deg: f64,
    min_width: Option<f64>,
    max_width: Option<f64>,
    bulge_pct: Option<f64>,
    flipped: usize,
    lbs_flipped: usize,
    capped: bool,
}

/// Run-time cost of one method: median wall time of skinning the whole mesh once.
#[derive(Serialize)]
struct Cost {
    method: &'static str,
    median_ms: f64,
    vertices: usize,
}

fn median_ms(mut f: impl FnMut() -> Res<()>) -> Res<f64> {
    let mut t = Vec::new();
    for _ in 0..41 {
        let s = Instant::now();
        f()?;
        t.push(s.elapsed().as_secs_f64() * 1e3);
    }
    t.sort_by(f64::total_cmp);
    Ok(t[t.len() / 2])
}

#[derive(Serialize)]
struct BlendWidthCheck {
    r: f64,
    theta_deg: f64,
    lbs_min_width: f64,
    /// Length along the bar (px) of the columns narrower than 90% of rest.
    collapsed_length_px: f64,
}

#[derive(Serialize)]
struct Summary {
    experiment: &'static str,
    scene: String,
    mesh_vertices: usize,
    ramp_r: f64,
    rest_width: f64,
    width_definition: &'static str,
    max_abs_err_lbs_vs_cos_half: f64,
    max_abs_err_helper_vs_cos_quarter: f64,
    max_abs_dqs_width_minus_1: f64,
    corrective_keys_deg: Vec<f64>,
    corrective_band_vertices: usize,
    corrective_fit_seconds: f64,
    corrective_min_width: f64,
    corrective_max_width: f64,
    corrective_max_bulge_pct: f64,
    corrective_max_flipped: usize,
    max_bulge_pct: [f64; 4],
    bulge_definition: &'static str,
    run_time_cost: Vec<Cost>,
    key_angles: Vec<Row>,
    blend_width_check: Vec<BlendWidthCheck>,
    scale_shear_definition: &'static str,
    scale_shear: Vec<DeformRow>,
    cases: Vec<Case>,
    seconds: f64,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    main_with(|| run(&cli))
}

fn run(cli: &Cli) -> Res<()> {
    let started = std::time::Instant::now();
    let out = cli.common.out_dir("candy_wrapper")?;
    let quick = cli.common.quick;
    let scene = builtin_scene(
        "bar",
        &BuiltinOptions::default().with_vertices(if quick { 800 } else { 3000 }),
    )?;
    let rig = Rig {
        skeleton: scene.skeleton().clone(),
    };
    let step = if quick { 15 } else { 5 };
    let angles: Vec<f64> = (0..=180).step_by(step).map(f64::from).collect();
    let cols = columns(RAMP_R);
    let mesh_pts = scene.mesh().vertices().to_vec();
    let mesh_w = ramp_weights(&mesh_pts, RAMP_R)?;
    let keys = [45.0, 90.0, 135.0, 179.0];
    let fit_started = Instant::now();
    let auto = auto_corrective(
        &scene,
        &mesh_w,
        "lower",
        &keys,
        &AutoCorrectiveOptions::default(),
    )?;
    let fit_seconds = fit_started.elapsed().as_secs_f64();
    let corrective: Vec<Corrective> = vec![auto.corrective.clone()];
    let mcols = mesh_columns(&scene, JOINT_X);

    let bar = progress(angles.len() as u64, "bending the bar");
    let mut rows = Vec::new();
    for &theta in &angles {
        bar.set_message(format!("bending the bar: {theta} deg"));
        let mut width = [0.0; 3];
        let mut area = [0.0; 3];
        let mut bulge = [0.0; 3];
        let mut dqs_max = 0.0;
        let mut lbs_mesh = 0.0;
        for (k, m) in Method::ALL.into_iter().enumerate() {
            let c = rig.pose(m, &cols, RAMP_R, theta)?;
            width[k] = min_width_ratio(&c.positions);
            if m == Method::Dqs {
                dqs_max = max_width_ratio(&c.positions);
            }
            let p = rig.pose(m, &mesh_pts, RAMP_R, theta)?;
            area[k] = area_change_pct(scene.mesh(), &p.positions);
            bulge[k] = bulge_pct(&p.positions, theta);
            if m == Method::Lbs {
                lbs_mesh = mesh_width(&p.positions, &mcols).0;
            }
        }
        let pose = Pose::rest().rotate("lower", theta);
        let fixed =
            skin_with_correctives(&mesh_pts, scene.skeleton(), &mesh_w, &pose, &corrective)?;
        let (cw_lo, cw_hi) = mesh_width(&fixed, &mcols);
        let t = theta.to_radians();
        rows.push(Row {
            theta_deg: theta,
            lbs_width: width[0],
            cos_half: (t / 2.0).cos(),
            helper_width: width[1],
            cos_quarter: (t / 4.0).cos(),
            dqs_width: width[2],
            dqs_max_width: dqs_max,
            lbs_area_change_pct: area[0],
            helper_area_change_pct: area[1],
            dqs_area_change_pct: area[2],
            lbs_mesh_width: lbs_mesh,
            corrective_width: cw_lo,
            corrective_max_width: cw_hi,
            corrective_area_change_pct: area_change_pct(scene.mesh(), &fixed),
            corrective_flipped: flipped_triangles(scene.mesh(), &fixed),
            lbs_bulge_pct: bulge[0],
            helper_bulge_pct: bulge[1],
            dqs_bulge_pct: bulge[2],
            corrective_bulge_pct: bulge_pct(&fixed, theta),
        });
        bar.inc(1);
    }
    bar.finish();

    // CSV.
    let mut csv = String::from(
        "theta_deg,lbs_width,cos_half,helper_width,cos_quarter,dqs_width,dqs_max_width,lbs_area_change_pct,helper_area_change_pct,dqs_area_change_pct,lbs_mesh_width,corrective_width,corrective_max_width,corrective_area_change_pct,corrective_flipped,lbs_bulge_pct,helper_bulge_pct,dqs_bulge_pct,corrective_bulge_pct\n",
    );
    for r in &rows {
        let nums = [
            r.lbs_width,
            r.cos_half,
            r.helper_width,
            r.cos_quarter,
            r.dqs_width,
            r.dqs_max_width,
            r.lbs_area_change_pct,
            r.helper_area_change_pct,
            r.dqs_area_change_pct,
            r.lbs_mesh_width,
            r.corrective_width,
            r.corrective_max_width,
            r.corrective_area_change_pct,
        ];
        let bulges = [
            r.lbs_bulge_pct,
            r.helper_bulge_pct,
            r.dqs_bulge_pct,
            r.corrective_bulge_pct,
        ];
        csv += &format!(
            "{},{},{},{}\n",
            r.theta_deg,
            nums.map(csv_num).join(","),
            r.corrective_flipped,
            bulges.map(csv_num).join(",")
        );
    }
    write_text(&out, "candy_wrapper.csv", &csv)?;

    // The seed: the blend width r sets how far the collapse spreads, never how deep.
    let mut blend_width_check = Vec::new();
    for r in [5.0, 10.0, 20.0, 40.0] {
        let theta = 120.0;
        let cols = columns(r);
        let c = rig.pose(Method::Lbs, &cols, r, theta)?;
        let widths: Vec<f64> = c
            .positions
            .chunks(2)
            .map(|p| (p[0] - p[1]).norm() / (2.0 * HALF_HEIGHT))
            .collect();
        let collapsed = widths.iter().filter(|&&w| w < 0.9).count() as f64 * 0.5;
        blend_width_check.push(BlendWidthCheck {
            r,
            theta_deg: theta,
            lbs_min_width: min_width_ratio(&c.positions),
            collapsed_length_px: collapsed,
        });
    }

    // Scale and shear: what each method does when the child bone does more than turn.
    let child_only: Vec<usize> = (0..mesh_pts.len())
        .filter(|&v| child_weight(mesh_pts[v].x, RAMP_R) == 1.0)
        .collect();
    let mut deform_rows = Vec::new();
    for d in deform_poses() {
        let pose = d.pose();
        let child = scene.skeleton().skinning_affines(&pose)?[1];
        let mut results: Vec<(&'static str, Vec<Point2<f64>>)> = Vec::new();
        for m in Method::ALL {
            results.push((
                m.label(),
                rig.pose_with(m, &mesh_pts, RAMP_R, &pose)?.positions,
            ));
        }
        results.push((
            CORRECTIVE_LABEL,
            skin_with_correctives(&mesh_pts, scene.skeleton(), &mesh_w, &pose, &corrective)?,
        ));
        for (method, posed) in results {
            let (lo, hi) = mesh_width(&posed, &mcols);
            deform_rows.push(DeformRow {
                pose: d.label.clone(),
                theta_deg: d.theta,
                scale_x: d.scale.x,
                scale_y: d.scale.y,
                shear_y_deg: d.shear.y,
                method,
                child_limb_error_px: child_only
                    .iter()
                    .map(|&v| (posed[v] - child.apply(mesh_pts[v])).norm())
                    .fold(0.0, f64::max),
                min_width: lo,
                max_width: hi,
                area_change_pct: area_change_pct(scene.mesh(), &posed),
                flipped: flipped_triangles(scene.mesh(), &posed),
            });
        }
    }
    let mut csv = String::from(
        "pose,theta_deg,scale_x,scale_y,shear_y_deg,method,child_limb_error_px,min_width,max_width,area_change_pct,flipped\n",
    );
    for r in &deform_rows {
        csv += &format!(
            "{},{},{},{},{},{},{},{}\n",
            r.pose,
            r.theta_deg,
            r.scale_x,
            r.scale_y,
            r.shear_y_deg,
            r.method,
            [
                r.child_limb_error_px,
                r.min_width,
                r.max_width,
                r.area_change_pct
            ]
            .map(csv_num)
            .join(","),
            r.flipped
        );
    }
    write_text(&out, "scale_shear.csv", &csv)?;

    // The corrective on cases it was not tuned on: the bar with the built-in `linear` and
    // `heat` weights at ±45..170 degrees, and the arms-down character's left elbow (heat).
    let case_angles = [
        -170.0, -150.0, -120.0, -90.0, -45.0, 45.0, 90.0, 120.0, 150.0, 170.0,
    ];
    let mut cases = Vec::new();
    for solver in ["linear", "heat"] {
        let w = skinweights::solvers::solve(&scene, solver)?;
        let fit = auto_corrective(
            &scene,
            &w,
            "lower",
            &case_angles,
            &AutoCorrectiveOptions::default(),
        )?;
        let c = [fit.corrective.clone()];
        for &theta in &case_angles {
            let pose = Pose::rest().rotate("lower", theta);
            let fixed = skin_with_correctives(&mesh_pts, scene.skeleton(), &w, &pose, &c)?;
            let lbs = linear_blend_skinning(&mesh_pts, scene.skeleton(), &w, &pose)?;
            let (lo, hi) = mesh_width(&fixed, &mcols);
            let capped = fit.bends.iter().any(|b| b.angle == theta && b.capped);
            cases.push(Case {
                scene: "bar".into(),
                solver,
                joint: "lower",
                theta_deg: theta,
                min_width: Some(lo),
                max_width: Some(hi),
                bulge_pct: Some(bulge_pct(&fixed, theta)),
                flipped: flipped_triangles(scene.mesh(), &fixed),
                lbs_flipped: flipped_triangles(scene.mesh(), &lbs),
                capped,
            });
        }
    }
    let arms = builtin_scene(
        "arms-down",
        &BuiltinOptions::default().with_vertices(if quick { 1500 } else { 5000 }),
    )?;
    let w = skinweights::solvers::solve(&arms, "heat")?;
    let elbow_angles = [-150.0, -90.0, 90.0, 150.0];
    let fit = auto_corrective(
        &arms,
        &w,
        "forearm_l",
        &elbow_angles,
        &AutoCorrectiveOptions::default(),
    )?;
    let c = [fit.corrective.clone()];
    for &theta in &elbow_angles {
        let pose = Pose::rest().rotate("forearm_l", theta);
        let fixed = skin_with_correctives(arms.mesh().vertices(), arms.skeleton(), &w, &pose, &c)?;
        let lbs = linear_blend_skinning(arms.mesh().vertices(), arms.skeleton(), &w, &pose)?;
        cases.push(Case {
            scene: format!("arms-down ({} vertices)", arms.mesh().vertex_count()),
            solver: "heat",
            joint: "forearm_l",
            theta_deg: theta,
            min_width: None,
            max_width: None,
            bulge_pct: None,
            flipped: flipped_triangles(arms.mesh(), &fixed),
            lbs_flipped: flipped_triangles(arms.mesh(), &lbs),
            capped: fit.bends.iter().any(|b| b.angle == theta && b.capped),
        });
    }

    // Run-time cost of skinning the whole mesh once, per method.
    let pose = Pose::rest().rotate("lower", 120.0);
    let (ext, ext_w, helper) = HalfAngleHelper::add(scene.skeleton(), &mesh_w, "lower")?;
    let driven = helper.drive(scene.skeleton(), &pose);
    let sk = scene.skeleton();
    let n = mesh_pts.len();
    let run_time_cost = vec![
        Cost {
            method: "LBS",
            median_ms: median_ms(|| {
                std::hint::black_box(linear_blend_skinning(&mesh_pts, sk, &mesh_w, &pose)?);
                Ok(())
            })?,
            vertices: n,
        },
        Cost {
            method: "dual quaternions",
            median_ms: median_ms(|| {
                std::hint::black_box(dual_quaternion_skinning(&mesh_pts, sk, &mesh_w, &pose)?);
                Ok(())
            })?,
            vertices: n,
        },
        Cost {
            method: "LBS + half-angle helper",
            median_ms: median_ms(|| {
                std::hint::black_box(linear_blend_skinning(&mesh_pts, &ext, &ext_w, &driven)?);
                Ok(())
            })?,
            vertices: n,
        },
        Cost {
            method: CORRECTIVE_LABEL,
            median_ms: median_ms(|| {
                std::hint::black_box(skin_with_correctives(
                    &mesh_pts,
                    sk,
                    &mesh_w,
                    &pose,
                    &corrective,
                )?);
                Ok(())
            })?,
            vertices: n,
        },
    ];

    let max_err = |f: &dyn Fn(&Row) -> f64| rows.iter().map(f).fold(0.0, f64::max);
    let min_of = |f: &dyn Fn(&Row) -> f64| rows.iter().map(f).fold(f64::INFINITY, f64::min);
    let summary = Summary {
        experiment: "candy_wrapper",
        scene: scene.name().to_string(),
        mesh_vertices: scene.mesh().vertex_count(),
        ramp_r: RAMP_R,
        rest_width: 2.0 * HALF_HEIGHT,
        width_definition: "narrowest posed column (top-bottom distance) across the joint region, over the rest width 40",
        max_abs_err_lbs_vs_cos_half: max_err(&|r| (r.lbs_width - r.cos_half).abs()),
        max_abs_err_helper_vs_cos_quarter: max_err(&|r| (r.helper_width - r.cos_quarter).abs()),
        max_abs_dqs_width_minus_1: max_err(&|r| (r.dqs_width - 1.0).abs()),
        corrective_keys_deg: keys.to_vec(),
        corrective_band_vertices: auto.corrective.vertices.len(),
        corrective_fit_seconds: fit_seconds,
        corrective_min_width: min_of(&|r| r.corrective_width),
        corrective_max_width: max_err(&|r| r.corrective_max_width),
        corrective_max_bulge_pct: max_err(&|r| r.corrective_bulge_pct),
        corrective_max_flipped: rows.iter().map(|r| r.corrective_flipped).max().unwrap_or(0),
        max_bulge_pct: [
            max_err(&|r| r.lbs_bulge_pct),
            max_err(&|r| r.helper_bulge_pct),
            max_err(&|r| r.dqs_bulge_pct),
            max_err(&|r| r.corrective_bulge_pct),
        ],
        bulge_definition: "largest distance of a posed mesh vertex outside the ideal bent bar (upper limb at rest, lower limb turned rigidly, disc of radius 20 about the joint), % of the width 40; order LBS, helper, DQS, corrective",
        run_time_cost,
        key_angles: rows
            .iter()
            .filter(|r| [0.0, 90.0, 120.0, 180.0].contains(&r.theta_deg))
            .copied()
            .collect(),
        blend_width_check,
        scale_shear_definition: "lower bone scaled (along x, across y) or its y axis sheared, unbent (theta 0) and bent 90 degrees; child_limb_error_px: largest distance of a vertex weighted wholly to the lower bone from the lower bone's affine skinning transform of it; widths over the mesh columns, over the rest width 40",
        scale_shear: deform_rows.clone(),
        cases,
        seconds: started.elapsed().as_secs_f64(),
    };
    write_json(&out, "summary.json", &summary)?;

    // Figures.
    let pts = |f: &dyn Fn(&Row) -> f64| -> Vec<(f64, f64)> {
        rows.iter().map(|r| (r.theta_deg, f(r))).collect()
    };
    let fine: Vec<f64> = (0..=180).map(f64::from).collect();
    let curve = |f: &dyn Fn(f64) -> f64| -> Vec<(f64, f64)> {
        fine.iter().map(|&t| (t, f(t.to_radians()))).collect()
    };
    let (blue, orange, green, red) = ((31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40));
    let mut width_chart = LineChart::new(
        "Candy wrapper on the bar: joint width vs bend angle",
        "bend angle θ (degrees)",
        "narrowest joint width / rest width (1)",
    )
    .legend_lower_left();
    width_chart.y_range = Some((0.0, 1.08));
    width_chart.x_range = Some((-4.0, 184.0));
    width_chart.series = vec![
        Series::new("analytic cos(θ/2)", curve(&|t| (t / 2.0).cos()))
            .dashed()
            .with_color(blue),
        Series::new("LBS, measured", pts(&|r| r.lbs_width))
            .markers()
            .with_color(blue),
        Series::new("analytic cos(θ/4)", curve(&|t| (t / 4.0).cos()))
            .dashed()
            .with_color(orange),
        Series::new(
            "LBS + half-angle helper, measured",
            pts(&|r| r.helper_width),
        )
        .markers()
        .with_color(orange),
        Series::new("dual quaternions, measured", pts(&|r| r.dqs_width))
            .markers()
            .with_color(green),
        Series::new(
            "LBS + automatic corrective (keys 45/90/135/179), mesh columns",
            pts(&|r| r.corrective_width),
        )
        .markers()
        .with_color(red),
    ];
    save_png_svg(&width_chart, &out, "width", (900, 600))?;

    let mut bulge_chart = LineChart::new(
        "Candy wrapper on the bar: outer bulge vs bend angle",
        "bend angle θ (degrees)",
        "largest vertex distance outside the ideal bent bar / width (%)",
    );
    bulge_chart.series = vec![
        Series::new("LBS", pts(&|r| r.lbs_bulge_pct)).with_color(blue),
        Series::new("LBS + half-angle helper", pts(&|r| r.helper_bulge_pct)).with_color(orange),
        Series::new("dual quaternions", pts(&|r| r.dqs_bulge_pct)).with_color(green),
        Series::new(
            "LBS + automatic corrective",
            pts(&|r| r.corrective_bulge_pct),
        )
        .with_color(red),
    ];
    bulge_chart.reference_lines = vec![(2.0, "2 % of the width".into())];
    save_png_svg(&bulge_chart, &out, "bulge", (900, 600))?;

    let mut area_chart = LineChart::new(
        "Candy wrapper on the bar: total area change vs bend angle",
        "bend angle θ (degrees)",
        "posed area vs rest (%)",
    )
    .legend_lower_left();
    area_chart.series = vec![
        Series::new("LBS", pts(&|r| r.lbs_area_change_pct)).with_color(blue),
        Series::new(
            "LBS + half-angle helper",
            pts(&|r| r.helper_area_change_pct),
        )
        .with_color(orange),
        Series::new("dual quaternions", pts(&|r| r.dqs_area_change_pct)).with_color(green),
        Series::new(
            "LBS + automatic corrective",
            pts(&|r| r.corrective_area_change_pct),
        )
        .with_color(red),
    ];
    area_chart.reference_lines = vec![(0.0, "rest area".into())];
    save_png_svg(&area_chart, &out, "area", (900, 600))?;

    let mut scale_chart = LineChart::new(
        "Candy wrapper on the bar: the lower bone scaled along its axis",
        "scale of the lower bone along its axis sx",
        "largest child-limb vertex error vs the bone's transform (px)",
    );
    let colors = [blue, orange, green, red];
    let names: Vec<&str> = Method::ALL
        .iter()
        .map(|m| m.label())
        .chain([CORRECTIVE_LABEL])
        .collect();
    for (k, name) in names.iter().enumerate() {
        for theta in [0.0, 90.0] {
            let points: Vec<(f64, f64)> = deform_rows
                .iter()
                .filter(|r| {
                    r.method == *name
                        && r.theta_deg == theta
                        && r.scale_y == 1.0
                        && r.shear_y_deg == 0.0
                })
                .map(|r| (r.scale_x, r.child_limb_error_px))
                .collect();
            let series =
                Series::new(format!("{name}, bend {theta}°"), points).with_color(colors[k]);
            scale_chart.series.push(if theta == 0.0 {
                series.dashed()
            } else {
                series
            });
        }
    }
    save_png_svg(&scale_chart, &out, "scale_shear", (900, 600))?;

    // Posed meshes: methods x angles, coloured by local area ratio.
    let shown = [90.0, 135.0, 180.0];
    let mut panels = Vec::new();
    for m in Method::ALL {
        for &theta in &shown {
            let p = rig.pose(m, &mesh_pts, RAMP_R, theta)?;
            let ratio = vertex_area_ratio(&scene, &p.positions);
            let total = area_change_pct(scene.mesh(), &p.positions);
            panels.push(Panel::Pose(PoseMap::new(
                format!("{} at {theta}° (area {total:+.1}%)", m.label()),
                &scene,
                p.positions,
                p.bones,
                &ratio,
                1.25,
                "area ratio",
            )));
        }
    }
    save_png_svg(
        &Grid {
            panels: &panels,
            columns: shown.len(),
        },
        &out,
        "posed",
        (1650, 1050),
    )?;

    println!("candy_wrapper: wrote {}", out.display());
    for r in summary.key_angles.iter() {
        println!(
            "  θ = {:>5.1}°: LBS {:.4} (cos θ/2 {:.4}), helper {:.4} (cos θ/4 {:.4}), DQS {:.4}; area LBS {:+.2}%, helper {:+.2}%, DQS {:+.2}%",
            r.theta_deg,
            r.lbs_width,
            r.cos_half,
            r.helper_width,
            r.cos_quarter,
            r.dqs_width,
            r.lbs_area_change_pct,
            r.helper_area_change_pct,
            r.dqs_area_change_pct
        );
    }
    println!(
        "  corrective (keys {:?}, band {} vertices, fit {:.2} s): width {:.4}..{:.4}, bulge <= {:.2}%, flipped <= {}; max bulge LBS/helper/DQS/corrective {:.2?}%",
        summary.corrective_keys_deg,
        summary.corrective_band_vertices,
        summary.corrective_fit_seconds,
        summary.corrective_min_width,
        summary.corrective_max_width,
        summary.corrective_max_bulge_pct,
        summary.corrective_max_flipped,
        summary.max_bulge_pct
    );
    for r in deform_rows.iter().filter(|r| {
        ["scale x 0.5", "scale x 2", "scale y 2", "shear y 30"].contains(&r.pose.as_str())
    }) {
        println!(
            "  {} at bend {}°, {}: child limb error {:.2} px, width {:.4}..{:.4}, area {:+.2}%, {} flipped",
            r.pose,
            r.theta_deg,
            r.method,
            r.child_limb_error_px,
            r.min_width,
            r.max_width,
            r.area_change_pct,
            r.flipped
        );
    }
    for c in &summary.cases {
        println!(
            "  case {} {} {} at {}°: width {:.4?}..{:.4?}, bulge {:.3?}%, {} flipped (LBS {}){}",
            c.scene,
            c.solver,
            c.joint,
            c.theta_deg,
            c.min_width,
            c.max_width,
            c.bulge_pct,
            c.flipped,
            c.lbs_flipped,
            if c.capped { ", reach capped" } else { "" }
        );
    }
    for c in &summary.run_time_cost {
        println!(
            "  cost {}: {:.3} ms per pose ({} vertices)",
            c.method, c.median_ms, c.vertices
        );
    }
    println!(
        "  max |LBS - cos θ/2| = {:.1e}, max |helper - cos θ/4| = {:.1e}, max |DQS - 1| = {:.1e}",
        summary.max_abs_err_lbs_vs_cos_half,
        summary.max_abs_err_helper_vs_cos_quarter,
        summary.max_abs_dqs_width_minus_1
    );
    Ok(())
}
