//! `skinweights render`: the scene posed and drawn with its art, and the fringe numbers of
//! that render.

use super::{check_outputs, load_weights_for, resolve_scene, spinner, BuiltinArgs};
use clap::{Args, ValueEnum};
use nalgebra::Vector2;
use skinweights::render::{
    matting_renders, parse_colour, posed_vertices, render, Drawing, Frame, RenderOptions, Skinning,
    Texture, View, PIXEL_EDGE_SAMPLES,
};
use skinweights::scene::AlphaMode;
use skinweights::{Error, Pose, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Alpha pipelines `render` draws with.
#[derive(Clone, Copy, ValueEnum)]
pub enum AlphaArg {
    /// Sample the texture as stored (PNG: straight) and blend `c·a + dst·(1 - a)`.
    Straight,
    /// Premultiply the texture, then blend `c + dst·(1 - a)`.
    Premultiplied,
}

/// Arguments of `render`.
#[derive(Args)]
pub struct RenderArgs {
    /// Scene file or built-in name (built-in scenes have no art: flat colours).
    scene: String,
    /// Weights file.
    weights: PathBuf,
    /// Pose the scene in this probe's pose (default: rest pose).
    #[arg(long, conflicts_with = "pose")]
    probe: Option<String>,
    /// Rotate a bone about its head, degrees counter-clockwise: BONE=DEG (repeatable).
    #[arg(long, value_name = "BONE=DEG")]
    pose: Vec<String>,
    /// Background colour: black, white, red or #RRGGBB.
    #[arg(long, default_value = "black")]
    background: String,
    /// Output units per scene unit, here pixels (sprites: 1 = the art's own size); the same
    /// factor as `export --scale`, whose output units are glTF's metres.
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    /// Alpha pipeline.
    #[arg(long, value_enum, default_value_t = AlphaArg::Straight)]
    alpha: AlphaArg,
    /// Samples per pixel side (1, 2, 4 or 8). The default, 4, is the pixel-edge check's (lint):
    /// at 2 x 2 the edge colour where a dark outline meets the lit interior differs from the
    /// 8 x 8 reference by sampling alone, enough to lift F above 4.
    #[arg(long, default_value_t = PIXEL_EDGE_SAMPLES)]
    samples: u32,
    /// Skin with dual quaternions instead of linear blend skinning.
    #[arg(long)]
    dqs: bool,
    /// Rotate the picture, degrees counter-clockwise.
    #[arg(long, default_value_t = 0.0)]
    rotate: f64,
    /// Sub-pixel offset of the picture, pixels: X,Y.
    #[arg(long, default_value = "0,0", value_name = "X,Y")]
    offset: String,
    /// Also write the renders the fringe numbers come from (black.png, white.png, red.png;
    /// ref_black.png, ref_white.png at 16 bits a channel) into this directory, and overlap.png (white: pixels where
    /// the mesh overlaps itself, which F leaves out).
    #[arg(long)]
    matting: Option<PathBuf>,
    /// Output image (PNG).
    #[arg(short, long)]
    output: PathBuf,
    /// Overwrite output files that exist.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    builtin: BuiltinArgs,
}

/// The pose of `--probe` or `--pose` (rest when neither is given).
fn pose_of(scene: &skinweights::Scene, probe: Option<&str>, raw: &[String]) -> Result<Pose> {
    if let Some(name) = probe {
        return Ok(scene.probe(Some(name))?.pose.clone());
    }
    let mut pose = Pose::rest();
    for kv in raw {
        let (bone, deg) = kv
            .split_once('=')
            .ok_or_else(|| Error::field("--pose", format!("{kv:?} is not BONE=DEG")))?;
        let deg: f64 = deg
            .trim()
            .parse()
            .ok()
            .filter(|d: &f64| d.is_finite())
            .ok_or_else(|| {
                Error::field(
                    "--pose",
                    format!("{kv:?}: {deg:?} is not a number of degrees"),
                )
            })?;
        if scene.skeleton.index_of(bone.trim()).is_none() {
            return Err(Error::UnknownBone {
                context: "--pose".into(),
                bone: bone.trim().into(),
            });
        }
        pose = pose.rotate(bone.trim(), deg);
    }
    Ok(pose)
}

/// `X,Y` as a vector.
fn parse_offset(text: &str) -> Result<Vector2<f64>> {
    let bad = || Error::field("--offset", format!("{text:?} is not X,Y (pixels)"));
    let (x, y) = text.split_once(',').ok_or_else(bad)?;
    let x: f64 = x.trim().parse().map_err(|_| bad())?;
    let y: f64 = y.trim().parse().map_err(|_| bad())?;
    Ok(Vector2::new(x, y))
}

/// Writes a PNG (8 or 16 bits a channel).
fn save<P>(im: &image::ImageBuffer<P, Vec<P::Subpixel>>, path: &Path) -> Result<()>
where
    P: image::PixelWithColorType,
    [P::Subpixel]: image::EncodableLayout,
{
    super::save_image(im, path)
}

/// Runs `render`.
pub fn run(a: RenderArgs) -> Result<ExitCode> {
    let background = parse_colour(&a.background)?;
    let matting_files: Vec<PathBuf> = match &a.matting {
        Some(dir) => ["black", "white", "red", "ref_black", "ref_white", "overlap"]
            .iter()
            .map(|n| dir.join(format!("{n}.png")))
            .collect(),
        None => Vec::new(),
    };
    let mut outputs: Vec<&Path> = vec![&a.output];
    outputs.extend(matting_files.iter().map(PathBuf::as_path));
    check_outputs(&[Path::new(&a.scene), &a.weights], &outputs, a.force)?;
    let scene = resolve_scene(Some(&a.scene), &a.builtin)?;
    let weights = load_weights_for(&scene, &a.weights)?;
    let pose = pose_of(&scene, a.probe.as_deref(), &a.pose)?;
    let skinning = if a.dqs { Skinning::Dqs } else { Skinning::Lbs };
    let positions = posed_vertices(&scene, &weights, &pose, skinning)?;
    let view = View {
        scale: a.scale,
        rotation_deg: a.rotate,
        offset: parse_offset(&a.offset)?,
    };
    let frame = Frame::fit(&positions, &view, 2.0)?;
    let textures = match &scene.art {
        Some(art) => Texture::load_art(art)?,
        None => Vec::new(),
    };
    let drawing = Drawing {
        mesh: &scene.mesh,
        positions: &positions,
        art: scene.art.as_ref(),
        textures: &textures,
    };
    let mode = match a.alpha {
        AlphaArg::Straight => AlphaMode::Straight,
        AlphaArg::Premultiplied => AlphaMode::Premultiplied,
    };
    let options = RenderOptions {
        samples: a.samples,
        background,
        ..RenderOptions::default()
    }
    .with_alpha(mode);
    let pb = spinner(format!(
        "rendering {} x {} px, and the matting renders",
        frame.width, frame.height
    ));
    let result = render(&drawing, &frame, &options).and_then(|image| {
        let m = matting_renders(&drawing, &frame, &options)?;
        Ok((image, m))
    });
    pb.finish_and_clear();
    let (image, m) = result?;
    save(&image, &a.output)?;
    if let Some(dir) = &a.matting {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let overlap = image::RgbImage::from_fn(frame.width, frame.height, |x, y| {
            let v = if m.overlap[(y * frame.width + x) as usize] {
                255
            } else {
                0
            };
            image::Rgb([v, v, v])
        });
        for (im, path) in [&m.black, &m.white, &m.red].into_iter().zip(&matting_files) {
            save(im, path)?;
        }
        // The reference at its own 16 bits a channel, as the fringe numbers read it.
        save(&m.ref_black, &matting_files[3])?;
        save(&m.ref_white, &matting_files[4])?;
        save(&overlap, &matting_files[5])?;
    }
    let f = m.fringe()?;
    let say = |line: String| super::status(&a.output, line);
    say(format!(
        "wrote {} ({} x {} px, {} alpha, {}x{} samples, scale {})",
        a.output.display(),
        frame.width,
        frame.height,
        mode.name(),
        a.samples,
        a.samples,
        a.scale
    ));
    say(format!(
        "fringe: S = {:+.3}  F = {:.3} (p99 {:.3})  G = {:.4}  red check {:.2}  ({} edge pixels, {} interior)",
        f.bias,
        f.max,
        f.p99,
        f.gap,
        f.red_error.unwrap_or(0.0),
        f.band_pixels,
        f.interior_pixels
    ));
    Ok(ExitCode::SUCCESS)
}
