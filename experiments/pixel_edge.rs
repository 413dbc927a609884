//! # pixel_edge: the seeds' pixel-edge check on real and synthetic art
//!
//! The seeds' check table: "Pixel edge: render over black, white and red at 1x, 2x and 4x;
//! pass: no fixed-colour bright or dark fringe; inspect first: transparent RGB, premultiplied
//! alpha, texture dilation". For each character, pose (rest and a probe) and scale (1x, 2x,
//! 4x; rotated 17 degrees with a (0.37, 0.21) px offset, 4 x 4 samples as `lint` renders) the
//! art is drawn three ways:
//!
//! - **straight**: the texture as stored, straight-alpha filtering and blending;
//! - **bleed**: the same pipeline on the texture after alpha bleeding (`skinweights bleed`);
//! - **premultiplied**: texture premultiplied, premultiplied blending.
//!
//! and measured with the fringe metric (`skinweights::render::fringe`): bias S, F (max and
//! p99; also over the whole band, overlaps included), gap G, and the red check. In the probe
//! poses the premultiplied pipeline is also drawn at 1 x 1 and 2 x 2 samples: F against the
//! sample count.
//!
//! Characters: the three Kenney sprites (transparent texels black, as shipped), the
//! DragonBones you_xin character with its atlas (the frame fitted to its left arm, so that 4x
//! stays a few megapixels), and a synthetic sprite whose transparent texels are white (the
//! seeds' case). Sprites are traced at alpha threshold 1, so the mesh covers every visible
//! texel as a runtime's sprite mesh does; weights are heat+mask (sprites) or the artist's
//! (DragonBones).
//!
//! Writes `results/pixel_edge/`: `pixel_edge.csv` (one row per character, pose, scale and
//! pipeline), `samples_sweep.csv` (premultiplied, probe poses, F at 1, 2 and 4 samples a
//! side), `summary.json`, `worst_pixels.json` (the worst premultiplied pixel of each probe
//! render: coverages, colours, how fast the reference colour changes around it), and
//! `crops_*.png` (4x probe pose, zoomed crops around the worst
//! edge: rows straight / bleed / premultiplied, columns over black / white / red).
//!
//! ```text
//! cargo run --release --bin pixel_edge [-- --out DIR] [--quick]
//! ```

mod common;

use clap::Parser;
use common::{csv_num, main_with, progress, write_json, write_text, Res};
use image::{Rgb, RgbImage, Rgba, RgbaImage};
use nalgebra::{Point2, Vector2};
use serde::Serialize;
use skinweights::io::dragonbones::load_dragonbones;
use skinweights::io::{sprite_scene, BonesFile, Sprite, SpriteOptions, TraceOptions};
use skinweights::mesh::MeshingOptions;
use skinweights::render::{
    bleed, coverage, coverage_16, fringe, matting_renders, posed_vertices, Drawing, Frame, Matting,
    MattingRenders, RenderOptions, Skinning, Texture, View, PIXEL_EDGE_SAMPLES,
};
use skinweights::scene::AlphaMode;
use skinweights::{scene::Scene, skeleton::Pose, weights::Weights};

#[derive(Parser)]
#[command(about = "Fringe (S, F, G) of straight / bleed / premultiplied art at 1x, 2x, 4x")]
struct Cli {
    #[command(flatten)]
    common: common::CommonArgs,
    /// Samples per pixel side of the renders under test (the reference has 8).
    #[arg(long, default_value_t = PIXEL_EDGE_SAMPLES)]
    samples: u32,
}

/// One character to measure.
struct Case {
    name: String,
    scene: Scene,
    weights: Weights,
    /// The texture (one image) as stored.
    texture: RgbaImage,
    /// Parts whose vertices the frame is fitted to (empty: all).
    frame_parts: Vec<String>,
}

#[derive(Serialize, Clone)]
struct Row {
    character: String,
    pose: String,
    scale: f64,
    pipeline: String,
    samples: u32,
    s: f64,
    f_max: f64,
    f_p99: f64,
    g: f64,
    red_check: f64,
    band_pixels: usize,
    /// Band pixels left out of F: the posed mesh overlaps itself there.
    f_excluded: usize,
    /// F over the whole band, overlap pixels included.
    f_all: f64,
}

impl Row {
    fn new(
        case: &Case,
        pose: &str,
        scale: f64,
        pipeline: &str,
        samples: u32,
        m: &MattingRenders,
    ) -> Res<Row> {
        let f = m.fringe()?;
        let all = fringe(&Matting {
            black: &m.black,
            white: &m.white,
            ref_black: &m.ref_black,
            ref_white: &m.ref_white,
            red: None,
        })?;
        Ok(Row {
            character: case.name.clone(),
            pose: pose.into(),
            scale,
            pipeline: pipeline.into(),
            samples,
            s: f.bias,
            f_max: f.max,
            f_p99: f.p99,
            g: f.gap,
            red_check: f.red_error.unwrap_or(0.0),
            band_pixels: f.band_pixels,
            f_excluded: f.f_excluded,
            f_all: all.max,
        })
    }

    fn csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            self.character,
            self.pose,
            self.scale,
            self.pipeline,
            self.samples,
            csv_num(self.s),
            csv_num(self.f_max),
            csv_num(self.f_p99),
            csv_num(self.g),
            csv_num(self.red_check),
            self.band_pixels,
            self.f_excluded,
            csv_num(self.f_all)
        )
    }
}

const CSV_HEADER: &str =
    "character,pose,scale,pipeline,samples,S,F_max,F_p99,G,red_check,band_pixels,F_excluded,F_all\n";

const PIPELINES: [&str; 3] = ["straight", "bleed", "premultiplied"];

fn data(rel: &str) -> std::path::PathBuf {
    common::repo_root().join("data").join(rel)
}

fn sprite_case(name: &str, image: RgbaImage, mut bones: BonesFile, vertices: usize) -> Res<Case> {
    // Threshold-1 outlines reach past the authored part regions: the rest goes to the
    // first bone's part.
    bones.cover_rest_with_first_part(image.width() as f64, image.height() as f64);
    let sprite = Sprite::from_rgba(image.clone(), name);
    let options = SpriteOptions::default()
        .with_trace(TraceOptions::default().with_threshold(1))
        .with_meshing(MeshingOptions::default().with_target_vertices(vertices))
        .with_name(Some(name.into()));
    let (scene, _, _) = sprite_scene(&sprite, bones, &options)?;
    let weights = skinweights::solvers::solve(&scene, "heat+mask")?;
    Ok(Case {
        name: name.into(),
        scene,
        weights,
        texture: image,
        frame_parts: Vec::new(),
    })
}

/// A limb-like synthetic sprite: two overlapping soft-edged ellipses with a colour gradient,
/// transparent texels white, one bone along it and a 35-degree probe.
fn synthetic(vertices: usize) -> Res<Case> {
    let (w, h) = (120u32, 64u32);
    let image = RgbaImage::from_fn(w, h, |x, y| {
        let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
        let e = |cx: f64, cy: f64, rx: f64, ry: f64| {
            let d = (((px - cx) / rx).powi(2) + ((py - cy) / ry).powi(2)).sqrt();
            (1.0 - d) * rx.min(ry) // about the distance inside the edge, px
        };
        let inside = e(38.0, 32.0, 32.0, 22.0).max(e(86.0, 32.0, 30.0, 16.0));
        let a = ((inside + 1.0) / 2.0).clamp(0.0, 1.0);
        let a = (a * 255.0).round() as u8;
        if a == 0 {
            Rgba([255, 255, 255, 0])
        } else {
            Rgba([
                (60.0 + 1.2 * px) as u8,
                (150.0 - py) as u8,
                (90.0 + 0.5 * px) as u8,
                a,
            ])
        }
    });
    let bones = BonesFile::from_json(
        r#"{"bones": [{"name": "upper", "parent": null, "head": [10, 32], "tail": [62, 32], "part": "limb"},
                      {"name": "lower", "parent": "upper", "head": [62, 32], "tail": [112, 32], "part": "limb"}],
            "probes": [{"name": "bend", "pose": {"lower": 35}}]}"#,
    )?;
    sprite_case("synthetic_white", image, bones, vertices)
}

fn kenney(stem: &str, vertices: usize) -> Res<Case> {
    let sprite = Sprite::load(data(&format!("kenney-toon/{stem}.png")))?;
    let bones = BonesFile::load(data(&format!("kenney-toon/{stem}_bones.json")))?;
    sprite_case(stem, sprite.image, bones, vertices)
}

fn dragonbones() -> Res<Case> {
    let imp = load_dragonbones(data("dragonbones-you-xin/body_ske.json"))?;
    let art = imp
        .scene
        .art()
        .ok_or("the atlas beside body_ske.json is missing")?;
    let texture = Texture::load_art(art)?.remove(0).image;
    Ok(Case {
        name: "dragonbones_you_xin".into(),
        weights: imp.artist.clone(),
        texture,
        frame_parts: vec!["a_arm_L".into()],
        scene: imp.scene,
    })
}

/// The matting renders of `pipelines` for one case, pose, scale and sample count.
fn renders(
    case: &Case,
    pose: &Pose,
    scale: f64,
    samples: u32,
    pipelines: &[&str],
) -> Res<Vec<(String, MattingRenders)>> {
    let scene = &case.scene;
    let positions = posed_vertices(scene, &case.weights, pose, Skinning::Lbs)?;
    let framed: Vec<Point2<f64>> = if case.frame_parts.is_empty() {
        positions.clone()
    } else {
        let parts: Vec<usize> = case
            .frame_parts
            .iter()
            .filter_map(|p| scene.mesh().part_index(p))
            .collect();
        positions
            .iter()
            .zip(scene.mesh().vertex_parts())
            .filter(|(_, p)| parts.contains(p))
            .map(|(q, _)| *q)
            .collect()
    };
    let view = View {
        scale,
        rotation_deg: 17.0,
        offset: Vector2::new(0.37, 0.21),
    };
    let frame = Frame::fit(&framed, &view, 4.0)?;
    let bled = bleed(&case.texture, None);
    let mut out = Vec::new();
    for &pipeline in pipelines {
        let (image, mode) = match pipeline {
            "straight" => (&case.texture, AlphaMode::Straight),
            "bleed" => (&bled, AlphaMode::Straight),
            _ => (&case.texture, AlphaMode::Premultiplied),
        };
        let textures = vec![Texture::new("art", image.clone(), AlphaMode::Straight)];
        let drawing = Drawing {
            mesh: scene.mesh(),
            positions: &positions,
            art: scene.art(),
            textures: &textures,
        };
        let options = RenderOptions::default()
            .with_samples(samples)
            .with_alpha(mode);
        out.push((
            pipeline.to_string(),
            matting_renders(&drawing, &frame, &options)?,
        ));
    }
    Ok(out)
}

/// The worst premultiplied pixel of a probe render (largest |d| outside the overlap): what
/// the test render and the reference see there.
#[derive(Serialize)]
struct WorstPixel {
    character: String,
    pose: String,
    scale: f64,
    samples: u32,
    x: u32,
    y: u32,
    /// Largest |d| over the channels, 8-bit units.
    d: f64,
    a: f64,
    a_ref: f64,
    /// The test render's colour K / a, and the reference's c_ref (RGB).
    colour: [f64; 3],
    c_ref: [f64; 3],
    /// Largest change of c_ref over the 3 x 3 neighbourhood (pixels with a_ref > 0.05).
    c_ref_range: f64,
}

/// The worst premultiplied pixel of `m` (a probe render of `case` at `scale` and `samples`).
fn worst_pixel(
    case: &Case,
    pose: &str,
    scale: f64,
    samples: u32,
    m: &MattingRenders,
) -> Option<WorstPixel> {
    let a = coverage(&m.black, &m.white);
    let a_ref = coverage_16(&m.ref_black, &m.ref_white);
    let w = m.black.width() as usize;
    let c_ref =
        |i: usize| [0, 1, 2].map(|c| m.ref_black.as_raw()[3 * i + c] as f64 / 257.0 / a_ref[i]);
    let colour = |i: usize| [0, 1, 2].map(|c| m.black.as_raw()[3 * i + c] as f64 / a[i]);
    let (mut best, mut at) = (-1.0, 0);
    for i in 0..a.len() {
        if a[i] > 0.0 && a[i] < 1.0 && a_ref[i] > 0.0 && !m.overlap[i] {
            let d = (0..3)
                .map(|c| (m.black.as_raw()[3 * i + c] as f64 - a[i] * c_ref(i)[c]).abs())
                .fold(0.0, f64::max);
            if d > best {
                (best, at) = (d, i);
            }
        }
    }
    if best < 0.0 {
        return None;
    }
    let (x, y) = (at % w, at / w);
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for yy in y.saturating_sub(1)..(y + 2).min(a.len() / w) {
        for xx in x.saturating_sub(1)..(x + 2).min(w) {
            let j = yy * w + xx;
            if a_ref[j] > 0.05 {
                let c = c_ref(j);
                for k in 0..3 {
                    lo[k] = lo[k].min(c[k]);
                    hi[k] = hi[k].max(c[k]);
                }
            }
        }
    }
    Some(WorstPixel {
        character: case.name.clone(),
        pose: pose.into(),
        scale,
        samples,
        x: x as u32,
        y: y as u32,
        d: best,
        a: a[at],
        a_ref: a_ref[at],
        colour: colour(at),
        c_ref: c_ref(at),
        c_ref_range: (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max),
    })
}

/// Zoomed crops around the worst straight-alpha edge pixel: rows = pipelines, columns =
/// black / white / red backgrounds.
fn crops(sets: &[(String, MattingRenders)]) -> RgbImage {
    const HALF: i64 = 24;
    const ZOOM: u32 = 5;
    let m = &sets[0].1;
    let a = coverage(&m.black, &m.white);
    let a_ref = coverage_16(&m.ref_black, &m.ref_white);
    let (w, h) = m.black.dimensions();
    let mut best = (0.0, 0i64, 0i64);
    for y in 0..h {
        for x in 0..w {
            let i = (y * w + x) as usize;
            if a[i] > 0.0 && a[i] < 1.0 && a_ref[i] > 0.0 {
                let d: f64 = (0..3)
                    .map(|c| {
                        (m.black.get_pixel(x, y)[c] as f64
                            - a[i] * m.ref_black.get_pixel(x, y)[c] as f64 / 257.0 / a_ref[i])
                            .abs()
                    })
                    .sum();
                if d > best.0 {
                    best = (d, x as i64, y as i64);
                }
            }
        }
    }
    let side = (2 * HALF) as u32 * ZOOM;
    let gap = 4;
    let mut out =
        RgbImage::from_pixel(3 * side + 2 * gap, 3 * side + 2 * gap, Rgb([128, 128, 128]));
    for (row, (_, set)) in sets.iter().enumerate() {
        for (col, im) in [&set.black, &set.white, &set.red].into_iter().enumerate() {
            for y in 0..side {
                for x in 0..side {
                    let sx = (best.1 - HALF + (x / ZOOM) as i64).clamp(0, w as i64 - 1) as u32;
                    let sy = (best.2 - HALF + (y / ZOOM) as i64).clamp(0, h as i64 - 1) as u32;
                    out.put_pixel(
                        col as u32 * (side + gap) + x,
                        row as u32 * (side + gap) + y,
                        *im.get_pixel(sx, sy),
                    );
                }
            }
        }
    }
    out
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    main_with(|| run(&cli))
}

fn run(cli: &Cli) -> Res<()> {
    let started = std::time::Instant::now();
    let out = cli.common.out_dir("pixel_edge")?;
    let quick = cli.common.quick;
    let vertices = if quick { 800 } else { 3000 };
    let mut cases = vec![
        kenney("robot_idle", vertices)?,
        kenney("malePerson_idle", vertices)?,
        kenney("femaleAdventurer_idle", vertices)?,
        synthetic(vertices)?,
    ];
    if !quick {
        cases.push(dragonbones()?);
    }
    let scales = [1.0, 2.0, 4.0];
    let bar = progress((cases.len() * 2 * scales.len()) as u64, "rendering");
    let mut rows = Vec::new();
    let mut sweep = Vec::new();
    let mut worst = Vec::new();
    for case in &cases {
        let probe = case.scene.probes().first().ok_or("case without a probe")?;
        for (pose_name, pose) in [
            ("rest".to_string(), Pose::rest()),
            (probe.name.clone(), probe.pose.clone()),
        ] {
            for &scale in &scales {
                let sets = renders(case, &pose, scale, cli.samples, &PIPELINES)?;
                for (pipeline, m) in &sets {
                    rows.push(Row::new(case, &pose_name, scale, pipeline, cli.samples, m)?);
                }
                if pose_name != "rest" {
                    sweep.push(rows[rows.len() - 1].clone());
                    for samples in [1, 2].into_iter().filter(|&n| n != cli.samples) {
                        let pre = "premultiplied";
                        for (_, m) in renders(case, &pose, scale, samples, &[pre])? {
                            sweep.push(Row::new(case, &pose_name, scale, pre, samples, &m)?);
                        }
                    }
                }
                if pose_name != "rest" {
                    let pre = &sets[2].1;
                    worst.extend(worst_pixel(case, &pose_name, scale, cli.samples, pre));
                }
                if scale == 4.0 && pose_name != "rest" {
                    let path = out.join(format!("crops_{}.png", case.name));
                    crops(&sets)
                        .save(&path)
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                }
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();
    let csv: String = std::iter::once(CSV_HEADER.to_string())
        .chain(rows.iter().map(Row::csv))
        .collect();
    write_text(&out, "pixel_edge.csv", &csv)?;
    sweep.sort_by(|a, b| {
        (a.character.cmp(&b.character))
            .then(a.scale.total_cmp(&b.scale))
            .then(a.samples.cmp(&b.samples))
    });
    let csv: String = std::iter::once(CSV_HEADER.to_string())
        .chain(sweep.iter().map(Row::csv))
        .collect();
    write_text(&out, "samples_sweep.csv", &csv)?;
    write_json(&out, "summary.json", &rows)?;
    write_json(&out, "worst_pixels.json", &worst)?;
    println!("worst premultiplied pixel of each probe render (outside overlaps):");
    for p in &worst {
        println!(
            "  {} {} {}x: ({}, {}) |d| {:.2}, a {:.3} a_ref {:.3}, K/a {:.1?} c_ref {:.1?}, c_ref range in 3x3 {:.0}",
            p.character, p.pose, p.scale, p.x, p.y, p.d, p.a, p.a_ref, p.colour, p.c_ref, p.c_ref_range
        );
    }
    println!("| character | pose | scale | pipeline | samples | S | F max | F p99 | F all | G |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in rows.iter().chain(&sweep) {
        println!(
            "| {} | {} | {}x | {} | {} | {:+.2} | {:.1} | {:.1} | {:.1} | {:.4} |",
            r.character,
            r.pose,
            r.scale,
            r.pipeline,
            r.samples,
            r.s,
            r.f_max,
            r.f_p99,
            r.f_all,
            r.g
        );
    }
    println!(
        "wrote {} in {:.1} s",
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
