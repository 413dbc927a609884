//! # seam_lab: the crack at the elbow, measured, and the seeds' repairs one by one
//!
//! The seeds' opening case: two separate layers (upper arm, forearm) whose contours touch
//! at the elbow crack open once the joint bends, and the background shows through. For
//! three layered characters (the built-in `layered-elbow`, its layers painted with white
//! transparent texels; the DragonBones you_xin character with its atlas; the Godot gBot
//! with its Polygon2D layers), the joint of one seam is bent 0-150 degrees and each
//! variant is measured:
//!
//! - `none`: the scene as drawn, weights by bone heat solved on the scene as it is (each
//!   separate layer on its own);
//! - each repair alone: `weld` (shared boundary vertices, `weld_seams` 0.5 px), `overlap`
//!   (1.5 px inward overlap, `repair` with `overlap`), `bleed` (alpha dilation of the
//!   textures), `premultiplied` (premultiplied texture and blending), `seam_weights`
//!   (seam-consistent heat weights with limited smoothing and the blend of overlapping
//!   layers linked by a joint, `blend_overlaps`);
//! - `all`: every step in the seeds' order (weld, overlap, bleed, premultiplied, seam
//!   weights + smoothing).
//!
//! Per variant, angle and scale (1x, 2x, 4x; frame fitted around the joint, 0.37/0.21 px
//! offset, 2 x 2 samples): the seam's widest opening (px) and open area (px^2)
//! (`seams::measure`), the gap G restricted to the seam (`seam_pixel_gaps_in_art`: the open
//! region counts between opaque art only), and the fringe
//! metric of the whole frame (bias S, F, G, the red check), rendered over black, white and
//! red.
//!
//! Writes `results/seam_lab/`: `seam_lab.csv` (one row per case, variant, angle, scale),
//! `seams.csv` (the seams found at rest in each character), `summary.json`, and
//! `crops_layered_elbow.png` (4x, over white, elbow at 90 degrees: the columns are
//! none, weld, + overlap, + bleed, + premultiplied, + seam weights = all).
//!
//! ```text
//! cargo run --release --bin seam_lab [-- --out DIR] [--quick]
//! ```

mod common;

use clap::Parser;
use common::{csv_num, main_with, progress, write_json, write_text, Res};
use image::{Rgb, RgbImage};
use nalgebra::{Point2, Vector2};
use serde::Serialize;
use skinweights::io::dragonbones::load_dragonbones;
use skinweights::io::godot::load_godot;
use skinweights::render::{
    bleed, matting_renders, posed_vertices, Drawing, Frame, RenderOptions, Skinning, Texture, View,
};
use skinweights::render::{paint_layers, seam_pixel_gaps_in_art, PaintOptions};
use skinweights::scene::AlphaMode;
use skinweights::seams::measure::{find_contacts, find_seams, measure_seams, Seam, SeamOptions};
use skinweights::seams::repair::{repair, repaired_weights, weld_seams, RepairOptions};
use skinweights::solvers::{Heat, Solver};
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Scene, skeleton::Pose, weights::Weights,
};
use std::path::Path;

#[derive(Parser)]
#[command(
    about = "Seam opening, gap and fringe of layered characters, before and after each repair"
)]
struct Cli {
    #[command(flatten)]
    common: common::CommonArgs,
}

/// The variants in table order; `all` is the seeds' order.
const VARIANTS: [&str; 7] = [
    "none",
    "weld",
    "overlap",
    "bleed",
    "premultiplied",
    "seam_weights",
    "all",
];
/// The cumulative steps of the figure, in the seeds' order.
const STEPS: [&str; 6] = [
    "none",
    "weld",
    "weld+overlap",
    "weld+overlap+bleed",
    "weld+overlap+bleed+premultiplied",
    "all",
];
const WELD_TOL: f64 = 0.5;
const OVERLAP_PX: f64 = 1.5;
const SCALES: [f64; 3] = [1.0, 2.0, 4.0];

/// A layered character and the bone whose joint is bent.
struct Case {
    name: String,
    scene: Scene,
    textures: Vec<Texture>,
    bone: String,
    /// Sign of the bend (the elbow opens outward for positive angles).
    sign: f64,
}

/// One variant of a case, ready to pose.
struct Variant {
    scene: Scene,
    weights: Weights,
    textures: Vec<Texture>,
    alpha: AlphaMode,
    seam: Option<Seam>,
}

#[derive(Serialize, Clone)]
struct Row {
    case: String,
    variant: String,
    joint: String,
    angle: f64,
    scale: f64,
    widest_px: f64,
    open_area_px2: f64,
    seam_gap: f64,
    seam_pixels: usize,
    s: f64,
    f_max: f64,
    g: f64,
    red_check: f64,
}

fn data(rel: &str) -> std::path::PathBuf {
    common::repo_root().join("data").join(rel)
}

fn elbow(vertices: usize) -> Res<Case> {
    let scene = builtin_scene(
        "layered-elbow",
        &BuiltinOptions::default().with_vertices(vertices),
    )?;
    let (scene, textures) =
        paint_layers(&scene, Path::new("layered-elbow"), &PaintOptions::default())?;
    Ok(Case {
        name: "layered_elbow".into(),
        scene,
        textures,
        bone: "forearm".into(),
        sign: 1.0,
    })
}

/// A real character: its art, and the joint of its first seam whose joint bone's name has
/// `joint_hint` in it.
fn real(name: &str, scene: Scene, joint_hint: &str, sign: f64) -> Res<Case> {
    let art = scene.art().ok_or("the character has no art")?;
    let textures = Texture::load_art(art)?;
    let seams = find_seams(&scene, &SeamOptions::default())?;
    let bone = seams
        .iter()
        .filter_map(|s| s.joint_name.clone())
        .find(|j| j.to_lowercase().contains(joint_hint))
        .ok_or_else(|| format!("{name}: no seam at a joint named *{joint_hint}*"))?;
    Ok(Case {
        name: name.into(),
        scene,
        textures,
        bone,
        sign,
    })
}

fn heat(scene: &Scene) -> Res<Weights> {
    Ok(Heat::default().solve(scene)?.weights)
}

/// The seam at the case's bent joint in `scene`.
fn seam_at(scene: &Scene, bone: &str) -> Res<Option<Seam>> {
    Ok(find_seams(scene, &SeamOptions::default())?
        .into_iter()
        .find(|s| s.joint_name.as_deref() == Some(bone)))
}

/// Builds variant `name` (a table variant or a cumulative step) of `case`.
fn variant(case: &Case, name: &str) -> Res<Variant> {
    let has = |step: &str| name == step || name == "all" || name.split('+').any(|s| s == step);
    let mut scene = case.scene.clone();
    if has("weld") || has("overlap") {
        let options = RepairOptions::default()
            .with_weld(has("weld").then_some(WELD_TOL))
            .with_overlap(has("overlap").then_some(OVERLAP_PX));
        scene = if options.overlap.is_some() {
            repair(&scene, &options)?.0
        } else {
            weld_seams(&scene, WELD_TOL)?.0
        };
    }
    let weights = if has("seam_weights") {
        let options = RepairOptions::default()
            .with_smooth_seams(true)
            .with_blend_overlaps(true);
        repaired_weights(&scene, &options, &Heat::default())?.0
    } else {
        heat(&scene)?
    };
    let mut textures = case.textures.clone();
    if has("bleed") {
        for t in &mut textures {
            t.image = bleed(&t.image, None);
        }
    }
    let alpha = if has("premultiplied") {
        AlphaMode::Premultiplied
    } else {
        AlphaMode::Straight
    };
    let seam = seam_at(&scene, &case.bone)?;
    Ok(Variant {
        scene,
        weights,
        textures,
        alpha,
        seam,
    })
}

/// The frame around the joint: rest vertices within `radius` of it, posed.
fn joint_frame(v: &Variant, case: &Case, posed: &[Point2<f64>], scale: f64) -> Res<Frame> {
    let bones = v.scene.skeleton().bones();
    let j = v.scene.skeleton().index_of(&case.bone).ok_or("bone")?;
    let head = bones[j].head;
    let radius = 45.0;
    let near: Vec<Point2<f64>> = v
        .scene
        .mesh()
        .vertices()
        .iter()
        .zip(posed)
        .filter(|(p, _)| (*p - head).norm() <= radius)
        .map(|(_, q)| *q)
        .collect();
    let view = View {
        scale,
        rotation_deg: 0.0,
        offset: Vector2::new(0.37, 0.21),
    };
    Ok(Frame::fit(&near, &view, 4.0)?)
}

fn measure(case: &Case, v: &Variant, name: &str, angles: &[f64]) -> Res<Vec<Row>> {
    let mut rows = Vec::new();
    let options = SeamOptions::default();
    for &angle in angles {
        let pose = Pose::rest().rotate(&case.bone, case.sign * angle);
        let posed = posed_vertices(&v.scene, &v.weights, &pose, Skinning::Lbs)?;
        let seams: Vec<Seam> = v.seam.iter().cloned().collect();
        let opening = measure_seams(&v.scene, &seams, &posed, &options)?;
        let (widest, area) = opening
            .first()
            .map_or((0.0, 0.0), |o| (o.widest, o.open_area));
        let art = v.scene.art().ok_or("art")?;
        let drawing = Drawing {
            mesh: v.scene.mesh(),
            positions: &posed,
            art: Some(art),
            textures: &v.textures,
        };
        for &scale in &SCALES {
            let frame = joint_frame(v, case, &posed, scale)?;
            let render = RenderOptions::default().with_alpha(v.alpha);
            let m = matting_renders(&drawing, &frame, &render)?;
            let f = m.fringe()?;
            let gap = seam_pixel_gaps_in_art(&v.scene, &seams, &posed, &frame, &m, &v.textures)?;
            let (seam_gap, seam_pixels) = gap.first().map_or((0.0, 0), |g| (g.gap, g.pixels));
            rows.push(Row {
                case: case.name.clone(),
                variant: name.into(),
                joint: case.bone.clone(),
                angle,
                scale,
                widest_px: widest,
                open_area_px2: area,
                seam_gap,
                seam_pixels,
                s: f.bias,
                f_max: f.max,
                g: f.gap,
                red_check: f.red_error.unwrap_or(0.0),
            });
        }
    }
    Ok(rows)
}

/// 4x render over white of one variant at `angle`, cropped around the joint.
fn crop(case: &Case, v: &Variant, angle: f64) -> Res<RgbImage> {
    let pose = Pose::rest().rotate(&case.bone, case.sign * angle);
    let posed = posed_vertices(&v.scene, &v.weights, &pose, Skinning::Lbs)?;
    let frame = joint_frame(v, case, &posed, 4.0)?;
    let drawing = Drawing {
        mesh: v.scene.mesh(),
        positions: &posed,
        art: v.scene.art(),
        textures: &v.textures,
    };
    let options = RenderOptions::default()
        .with_alpha(v.alpha)
        .with_background([255, 255, 255]);
    Ok(skinweights::render::render(&drawing, &frame, &options)?)
}

/// Crops side by side, each cut to a `side` x `side` window around the joint's pixel.
fn strip(crops: &[(RgbImage, Point2<f64>)], side: u32) -> RgbImage {
    let gap = 6;
    let mut out = RgbImage::from_pixel(
        crops.len() as u32 * (side + gap) + gap,
        side + 2 * gap,
        Rgb([60, 60, 60]),
    );
    for (k, (im, centre)) in crops.iter().enumerate() {
        let x0 = centre.x as i64 - side as i64 / 2;
        let y0 = centre.y as i64 - side as i64 / 2;
        for y in 0..side {
            for x in 0..side {
                let (sx, sy) = (x0 + x as i64, y0 + y as i64);
                let p = if sx >= 0
                    && sy >= 0
                    && (sx as u32) < im.width()
                    && (sy as u32) < im.height()
                {
                    *im.get_pixel(sx as u32, sy as u32)
                } else {
                    Rgb([255, 255, 255])
                };
                out.put_pixel(gap + k as u32 * (side + gap) + x, gap + y, p);
            }
        }
    }
    out
}

fn run(cli: Cli) -> Res<()> {
    let out = cli.common.out_dir("seam_lab")?;
    let quick = cli.common.quick;
    let angles: Vec<f64> = if quick {
        vec![0.0, 30.0, 90.0, 150.0]
    } else {
        (0..=10).map(|k| 15.0 * k as f64).collect()
    };
    let db = load_dragonbones(data("dragonbones-you-xin/body_ske.json"))?;
    let gbot = load_godot(data("godot-gbot/player.tscn"))?;
    let cases = vec![
        elbow(if quick { 2000 } else { 6000 })?,
        real("dragonbones_you_xin", db.scene, "upperarm", 1.0)?,
        real("godot_gbot", gbot.scene, "arm", 1.0)?,
    ];
    // The seams each character has at rest.
    let mut seam_csv =
        String::from("case,kind,seam,parts,joint,length_px,vertices_a,vertices_b,radius_px\n");
    for case in &cases {
        let options = SeamOptions::default();
        let seams = find_seams(&case.scene, &options)?;
        let contacts = find_contacts(&case.scene, &options)?;
        let kinds = std::iter::repeat("seam").zip(seams);
        for (kind, s) in kinds.chain(std::iter::repeat("contact").zip(contacts)) {
            seam_csv += &format!(
                "{},{kind},{},{}|{},{},{},{},{},{}\n",
                case.name,
                s.label(),
                s.names[0],
                s.names[1],
                s.joint_name.clone().unwrap_or_default(),
                csv_num(s.length),
                s.vertices[0].len(),
                s.vertices[1].len(),
                csv_num(s.radius)
            );
        }
    }
    write_text(&out, "seams.csv", &seam_csv)?;
    let bar = progress((cases.len() * VARIANTS.len()) as u64, "seam_lab");
    let mut rows = Vec::new();
    for case in &cases {
        for name in VARIANTS {
            bar.set_message(format!("{} {name}", case.name));
            let v = variant(case, name)?;
            rows.extend(measure(case, &v, name, &angles)?);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let mut csv = String::from(
        "case,variant,joint,angle_deg,scale,widest_px,open_area_px2,seam_gap,seam_pixels,s,f_max,g,red_check\n",
    );
    for r in &rows {
        csv += &format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.case,
            r.variant,
            r.joint,
            r.angle,
            r.scale,
            csv_num(r.widest_px),
            csv_num(r.open_area_px2),
            csv_num(r.seam_gap),
            r.seam_pixels,
            csv_num(r.s),
            csv_num(r.f_max),
            csv_num(r.g),
            csv_num(r.red_check)
        );
    }
    write_text(&out, "seam_lab.csv", &csv)?;
    // Summary: worst over angles and scales per case and variant.
    #[derive(Serialize)]
    struct Worst {
        case: String,
        variant: String,
        widest_px: f64,
        open_area_px2: f64,
        seam_gap: f64,
        max_abs_s: f64,
        g: f64,
    }
    let mut summary = Vec::new();
    for case in &cases {
        for name in VARIANTS {
            let sel: Vec<&Row> = rows
                .iter()
                .filter(|r| r.case == case.name && r.variant == name)
                .collect();
            let max = |f: &dyn Fn(&Row) -> f64| sel.iter().map(|r| f(r)).fold(0.0, f64::max);
            let w = Worst {
                case: case.name.clone(),
                variant: name.into(),
                widest_px: max(&|r| r.widest_px),
                open_area_px2: max(&|r| r.open_area_px2),
                seam_gap: max(&|r| r.seam_gap),
                max_abs_s: max(&|r| r.s.abs()),
                g: max(&|r| r.g),
            };
            eprintln!(
                "{:<22} {:<14} widest {:>7.3} px  area {:>8.3} px2  seam G {:.3}  |S| {:.3}  G {:.3}",
                w.case, w.variant, w.widest_px, w.open_area_px2, w.seam_gap, w.max_abs_s, w.g
            );
            summary.push(w);
        }
    }
    write_json(&out, "summary.json", &summary)?;
    // Figure: the elbow at 90 degrees, 4x over white, step by step.
    let case = &cases[0];
    let mut crops = Vec::new();
    for step in STEPS {
        let v = variant(case, step)?;
        let im = crop(case, &v, 90.0)?;
        let pose = Pose::rest().rotate(&case.bone, 90.0);
        let posed = posed_vertices(&v.scene, &v.weights, &pose, Skinning::Lbs)?;
        let frame = joint_frame(&v, case, &posed, 4.0)?;
        let j = v.scene.skeleton().index_of(&case.bone).ok_or("bone")?;
        let centre = frame.to_pixels(v.scene.skeleton().bones()[j].head + Vector2::new(8.0, -8.0));
        crops.push((im, centre));
    }
    let figure = strip(&crops, 160);
    let path = out.join("crops_layered_elbow.png");
    figure
        .save(&path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

fn main() -> std::process::ExitCode {
    main_with(|| run(Cli::parse()))
}
