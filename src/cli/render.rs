//! `skinweights render`: the scene posed and drawn with its art, and the fringe numbers of
//! that render.

use super::{check_outputs, load_weights_for, resolve_scene, spinner_after_delay, BuiltinArgs};
use crate::cli::error::Result;
use clap::{Args, ValueEnum};
use image::RgbImage;
use indicatif::{ProgressBar, ProgressStyle};
use nalgebra::{Point2, Vector2};
use skinweights::animation::Clip;
use skinweights::render::{
    clip_frames, contact_sheet, drawn_parts, drawn_positions, encode_apng, hide_parts,
    matting_renders, parse_colour, posed_vertices, readable_scale, render, side_by_side, ClipFrame,
    Drawing, Frame, Fringe, MattingRenders, RenderOptions, Skinning, Texture, View,
    PIXEL_EDGE_SAMPLES,
};
use skinweights::scene::AlphaMode;
use skinweights::scene::Scene;
use skinweights::skeleton::Pose;
use skinweights::Error;
use skinweights::{ArgumentError, OutputError, SkeletonError};
use std::collections::BTreeMap;
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
    #[arg(long, conflicts_with_all = ["pose", "clip"])]
    probe: Option<String>,
    /// Rotate a bone about its head, degrees counter-clockwise: BONE=DEG (repeatable).
    #[arg(long, value_name = "BONE=DEG", conflicts_with = "clip")]
    pose: Vec<String>,
    /// Play this clip of the scene: OUT.apng is an animated PNG, OUT.png a contact sheet of
    /// the frames (left to right, top to bottom).
    #[arg(long)]
    clip: Option<String>,
    /// Frames per second the clip is sampled at (with --clip).
    #[arg(long, default_value_t = skinweights::animation::DEFAULT_FPS, requires = "clip")]
    fps: f64,
    /// A second weights file drawn to the right of the first, same frames (with --clip).
    #[arg(long, value_name = "W2.json", requires = "clip")]
    compare: Option<PathBuf>,
    /// Contact sheet columns (0: as square as the frame count allows).
    #[arg(long, default_value_t = 0, requires = "clip")]
    columns: u32,
    /// The skin a rig imported with `--skin all` shows (default: the `default` skin, with
    /// each slot's setup attachment); an unknown name is an error listing the scene's skins.
    #[arg(long, value_name = "NAME")]
    skin: Option<String>,
    /// Background colour: black, white, red or #RRGGBB.
    #[arg(long, default_value = "black")]
    background: String,
    /// Output units per scene unit, here pixels (sprites: 1 = the art's own size); the same
    /// factor as `export --scale`, whose output units are glTF's metres [default: 1, or,
    /// when the drawn character's longer side would be under 200 or over 2048 px at 1, the
    /// integer scale that makes it about 512 px or the power of 1/2 that brings it within
    /// 2048 px; the output line states the scale].
    #[arg(long)]
    scale: Option<f64>,
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
    #[arg(long, conflicts_with = "clip")]
    matting: Option<PathBuf>,
    /// Also measure and print the fringe numbers of the render (bias S, F, gap G, the red
    /// check): four more renders, two of them at 8 x 8 samples, seconds on large art (on
    /// with --matting).
    #[arg(long, conflicts_with = "clip")]
    fringe: bool,
    /// Output image (PNG; with --clip also APNG).
    #[arg(short, long)]
    output: PathBuf,
    /// Overwrite output files that exist.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    builtin: BuiltinArgs,
}

/// The pose of `--probe` or `--pose` (rest when neither is given).
fn pose_of(scene: &skinweights::scene::Scene, probe: Option<&str>, raw: &[String]) -> Result<Pose> {
    if let Some(name) = probe {
        return Ok(scene.probe(Some(name))?.pose.clone());
    }
    let mut pose = Pose::rest();
    for kv in raw {
        let (bone, deg) = kv.split_once('=').ok_or_else(|| {
            Error::Argument(ArgumentError::InvalidArgument {
                argument: "--pose",
                value: kv.clone(),
                reason: format!("{kv:?} is not BONE=DEG"),
            })
        })?;
        let deg: f64 = deg
            .trim()
            .parse()
            .ok()
            .filter(|d: &f64| d.is_finite())
            .ok_or_else(|| {
                Error::Argument(ArgumentError::InvalidArgument {
                    argument: "--pose",
                    value: kv.clone(),
                    reason: format!("{kv:?}: {deg:?} is not a number of degrees"),
                })
            })?;
        if scene.skeleton().index_of(bone.trim()).is_none() {
            return Err(SkeletonError::UnknownBone {
                context: "--pose".into(),
                bone: bone.trim().into(),
            }
            .into());
        }
        pose = pose.rotate(bone.trim(), deg);
    }
    Ok(pose)
}

/// `X,Y` as a vector.
fn parse_offset(text: &str) -> Result<Vector2<f64>> {
    let bad = || {
        Error::Argument(ArgumentError::InvalidArgument {
            argument: "--offset",
            value: text.to_string(),
            reason: format!("{text:?} is not X,Y (pixels)"),
        })
    };
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

/// The files `--matting` writes into `dir`, in the order they are written (none without it).
fn matting_paths(dir: Option<&Path>) -> Vec<PathBuf> {
    match dir {
        Some(dir) => ["black", "white", "red", "ref_black", "ref_white", "overlap"]
            .iter()
            .map(|n| dir.join(format!("{n}.png")))
            .collect(),
        None => Vec::new(),
    }
}

/// The skinning `--dqs` picks.
fn skinning_of(a: &RenderArgs) -> Skinning {
    if a.dqs {
        Skinning::Dqs
    } else {
        Skinning::Lbs
    }
}

/// The view of `--scale`, `--rotate` and `--offset`; without `--scale`, the scale
/// [`readable_scale`] picks for `drawn` (the positions drawn at rest, in a probe or in every
/// clip frame).
fn view_of(a: &RenderArgs, drawn: &[Point2<f64>]) -> Result<View> {
    Ok(View {
        scale: a.scale.unwrap_or_else(|| readable_scale(drawn, a.rotate)),
        rotation_deg: a.rotate,
        offset: parse_offset(&a.offset)?,
    })
}

/// How the output line states the scale: as given, or as picked and why.
fn scale_note(a: &RenderArgs, view: &View) -> String {
    match a.scale {
        Some(s) => format!("scale {s}"),
        None if view.scale == 1.0 => "scale 1".into(),
        None => format!(
            "scale {} (picked for a readable size: the character is {} at scale 1; --scale to set it)",
            view.scale,
            if view.scale > 1.0 { "under 200 px" } else { "over 2048 px" }
        ),
    }
}

/// The scene's art loaded as textures (none for a scene without art).
fn textures_of(scene: &Scene) -> Result<Vec<Texture>> {
    Ok(match scene.art() {
        Some(art) => Texture::load_art(art)?,
        None => Vec::new(),
    })
}

/// The alpha pipeline of `--alpha`.
fn alpha_mode(alpha: AlphaArg) -> AlphaMode {
    match alpha {
        AlphaArg::Straight => AlphaMode::Straight,
        AlphaArg::Premultiplied => AlphaMode::Premultiplied,
    }
}

/// The render options of `--samples`, `--background` and `--alpha`.
fn render_options(a: &RenderArgs, background: [u8; 3]) -> RenderOptions {
    RenderOptions::default()
        .with_samples(a.samples)
        .with_background(background)
        .with_alpha(alpha_mode(a.alpha))
}

/// Writes the matting renders into `dir` as the files of [`matting_paths`], with the overlap
/// mask as a picture (white where the mesh overlaps itself).
fn save_matting(dir: &Path, frame: &Frame, m: &MattingRenders, files: &[PathBuf]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let overlap = image::RgbImage::from_fn(frame.width, frame.height, |x, y| {
        let v = if m.overlap[(y * frame.width + x) as usize] {
            255
        } else {
            0
        };
        image::Rgb([v, v, v])
    });
    for (im, path) in [&m.black, &m.white, &m.red].into_iter().zip(files) {
        save(im, path)?;
    }
    // The reference at its own 16 bits a channel, as the fringe numbers read it.
    save(&m.ref_black, &files[3])?;
    save(&m.ref_white, &files[4])?;
    save(&overlap, &files[5])?;
    Ok(())
}

/// Says what a still render wrote and, when measured, its fringe numbers.
fn report_still(a: &RenderArgs, frame: &Frame, view: &View, mode: AlphaMode, f: Option<&Fringe>) {
    let say = |line: String| super::status(&a.output, line);
    say(format!(
        "wrote {} ({} x {} px, {} alpha, {}x{} samples, {})",
        a.output.display(),
        frame.width,
        frame.height,
        mode.name(),
        a.samples,
        a.samples,
        scale_note(a, view)
    ));
    let Some(f) = f else {
        return;
    };
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
}

/// Runs `render`.
pub fn run(a: RenderArgs) -> Result<ExitCode> {
    if a.clip.is_some() {
        return run_clip(a);
    }
    let background = parse_colour(&a.background)?;
    let matting_files = matting_paths(a.matting.as_deref());
    let mut outputs: Vec<&Path> = vec![&a.output];
    outputs.extend(matting_files.iter().map(PathBuf::as_path));
    check_outputs(&[Path::new(&a.scene), &a.weights], &outputs, a.force)?;
    let scene = resolve_scene(Some(&a.scene), &a.builtin)?;
    let weights = load_weights_for(&scene, &a.weights)?;
    let pose = pose_of(&scene, a.probe.as_deref(), &a.pose)?;
    let mut positions = posed_vertices(&scene, &weights, &pose, skinning_of(&a))?;
    // A rig's slots show one attachment each: the others are hidden and left out of the
    // frame.
    let drawn = drawn_parts(&scene, a.skin.as_deref(), &BTreeMap::new())?;
    let shown = match &drawn {
        Some(d) => drawn_positions(scene.mesh(), &positions, d),
        None => positions.clone(),
    };
    let view = view_of(&a, &shown)?;
    let frame = Frame::fit(&shown, &view, 2.0)?;
    if let Some(d) = &drawn {
        hide_parts(scene.mesh(), &mut positions, d);
    }
    let textures = textures_of(&scene)?;
    let drawing = Drawing {
        mesh: scene.mesh(),
        positions: &positions,
        art: scene.art(),
        textures: &textures,
    };
    let mode = alpha_mode(a.alpha);
    let options = render_options(&a, background);
    // The fringe numbers take four more renders, two at 8 x 8 samples: only when asked.
    let fringe = a.fringe || a.matting.is_some();
    let pb = spinner_after_delay(format!(
        "rendering {} x {} px{}",
        frame.width,
        frame.height,
        if fringe {
            ", and the matting renders"
        } else {
            ""
        }
    ));
    let result = render(&drawing, &frame, &options).and_then(|image| {
        let m = if fringe {
            Some(matting_renders(&drawing, &frame, &options)?)
        } else {
            None
        };
        Ok((image, m))
    });
    pb.finish_and_clear();
    let (image, m) = result?;
    save(&image, &a.output)?;
    let f = match &m {
        Some(m) => {
            if let Some(dir) = &a.matting {
                save_matting(dir, &frame, m, &matting_files)?;
            }
            Some(m.fringe()?)
        }
        None => None,
    };
    report_still(&a, &frame, &view, mode, f.as_ref());
    Ok(ExitCode::SUCCESS)
}

/// What `render --clip` writes, from the output's extension.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ClipOutput {
    /// `.png`: one picture, the frames on a grid.
    Sheet,
    /// `.apng`: an animated PNG.
    Animation,
}

fn clip_output(path: &Path) -> Result<ClipOutput> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("png") => Ok(ClipOutput::Sheet),
        Some("apng") => Ok(ClipOutput::Animation),
        // GIF would need the gif crate (nothing in the build has it); APNG plays in every
        // browser, so it is the animation format.
        other => Err(OutputError::UnsupportedOutput {
            path: path.to_path_buf(),
            extension: other.unwrap_or("").to_string(),
            supported: CLIP_OUTPUTS.into(),
        }
        .into()),
    }
}

/// The outputs `render --clip` writes, for the error naming them.
const CLIP_OUTPUTS: &str =
    "OUT.apng (an animated PNG every browser plays) or OUT.png (a contact sheet of the frames)";

/// `render --clip`: every frame drawn into one frame that holds all of them (so the camera
/// stays still), the weights side by side with `--compare`'s.
fn run_clip(a: RenderArgs) -> Result<ExitCode> {
    let kind = clip_output(&a.output)?;
    let background = parse_colour(&a.background)?;
    let mut inputs: Vec<&Path> = vec![Path::new(&a.scene), &a.weights];
    if let Some(c) = &a.compare {
        inputs.push(c);
    }
    check_outputs(&inputs, &[&a.output], a.force)?;
    let scene = resolve_scene(Some(&a.scene), &a.builtin)?;
    let clip = scene.clip(a.clip.as_deref().unwrap_or_default())?;
    let skinning = skinning_of(&a);
    let mut sets = vec![load_weights_for(&scene, &a.weights)?];
    if let Some(c) = &a.compare {
        sets.push(load_weights_for(&scene, c)?);
    }
    let mut frames = sets
        .iter()
        .map(|w| clip_frames(&scene, w, clip, a.fps, skinning))
        .collect::<skinweights::Result<Vec<_>>>()?;
    let frame = fit_clip_frame(&a, &scene, clip, &mut frames)?;
    let view_line = scale_note(&a, &frame.1);
    let frame = frame.0;
    let textures = textures_of(&scene)?;
    let options = render_options(&a, background);
    let panels = ClipPanels {
        scene: &scene,
        textures: &textures,
        frame: &frame,
        options: &options,
        frames: &frames,
        names: weights_names(&a),
        clip_name: &clip.name,
    };
    let pictures = panels.render_all()?;
    let times: Vec<f64> = frames[0].iter().map(|f| f.time).collect();
    let (w, h) = write_clip_pictures(kind, &pictures, &times, &a, background)?;
    super::status(
        &a.output,
        format!(
            "wrote {} ({} x {} px, {view_line}, clip {:?}: {} frames at {} fps, {} s{})",
            a.output.display(),
            w,
            h,
            clip.name,
            frames[0].len(),
            a.fps,
            super::warnings::seconds(clip.duration),
            if sets.len() > 1 {
                ", two weights side by side"
            } else {
                ""
            }
        ),
    );
    Ok(ExitCode::SUCCESS)
}

/// The frame that holds every frame of the clip, fitted to the parts each frame draws; the
/// parts a frame does not draw are then hidden in its positions.
fn fit_clip_frame(
    a: &RenderArgs,
    scene: &Scene,
    clip: &Clip,
    frames: &mut [Vec<ClipFrame>],
) -> Result<(Frame, View)> {
    let skin = a.skin.as_deref();
    // Each frame draws the attachment each slot shows at its time (the setup one unless
    // the clip's attachment keys change it); the frame holds what is drawn in any frame.
    let drawn = frames[0]
        .iter()
        .map(|f| drawn_parts(scene, skin, &clip.attachments_at(f.time)))
        .collect::<skinweights::Result<Vec<_>>>()?;
    let all: Vec<_> = frames
        .iter()
        .flat_map(|set| set.iter().zip(&drawn))
        .flat_map(|(f, d)| match d {
            Some(d) => drawn_positions(scene.mesh(), &f.positions, d),
            None => f.positions.clone(),
        })
        .collect();
    let view = view_of(a, &all)?;
    let frame = Frame::fit(&all, &view, 2.0)?;
    for set in frames.iter_mut() {
        for (f, d) in set.iter_mut().zip(&drawn) {
            if let Some(d) = d {
                hide_parts(scene.mesh(), &mut f.positions, d);
            }
        }
    }
    Ok((frame, view))
}

/// The file names of the weights (`--compare`'s second), as the panels' captions show them.
fn weights_names(a: &RenderArgs) -> Vec<String> {
    std::iter::once(&a.weights)
        .chain(&a.compare)
        .map(|p| {
            p.file_name()
                .map_or_else(|| p.display().to_string(), |f| f.to_string_lossy().into())
        })
        .collect()
}

/// What the panels of `render --clip` are drawn from: one panel a weights set and a frame.
struct ClipPanels<'a> {
    scene: &'a Scene,
    textures: &'a [Texture],
    frame: &'a Frame,
    options: &'a RenderOptions,
    /// The clip's frames skinned with each weights set.
    frames: &'a [Vec<ClipFrame>],
    /// Each weights set's file name.
    names: Vec<String>,
    clip_name: &'a str,
}

impl ClipPanels<'_> {
    /// The caption of weights set `set`'s frame `i`: the weights file, the clip, the time.
    fn label(&self, set: usize, i: usize) -> Vec<String> {
        let n = self.frames[0].len();
        vec![
            format!("weights: {}", self.names[set]),
            format!(
                "clip {}  t = {:.3} s  (frame {} of {n})",
                self.clip_name,
                self.frames[set][i].time,
                i + 1
            ),
        ]
    }

    /// Every frame drawn and captioned (the weights sets side by side), with a progress bar.
    fn render_all(&self) -> skinweights::Result<Vec<RgbImage>> {
        let n = self.frames[0].len();
        let pb = ProgressBar::new((n * self.frames.len()) as u64);
        pb.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} frames ({elapsed}, eta {eta})")
                .expect("valid template"),
        );
        // One caption size for every panel: the smallest the last frame's captions fit at.
        let size = (0..self.frames.len())
            .map(|set| skinweights::plot::caption_size(self.frame.width, &self.label(set, n - 1)))
            .fold(f64::INFINITY, f64::min);
        // One strip height for every panel: the most lines any caption wraps to.
        let rows = (0..self.frames.len())
            .flat_map(|set| (0..n).map(move |i| (set, i)))
            .map(|(set, i)| {
                skinweights::plot::caption_layout(self.frame.width, &self.label(set, i), size).len()
            })
            .max()
            .unwrap_or(0);
        let result = (0..n)
            .map(|i| self.picture(i, size, rows, &pb))
            .collect::<skinweights::Result<Vec<_>>>();
        pb.finish_and_clear();
        result
    }

    /// Frame `i` of every weights set, captioned at `size` in a strip of `rows` lines, side by
    /// side when there are two.
    fn picture(
        &self,
        i: usize,
        size: f64,
        rows: usize,
        pb: &ProgressBar,
    ) -> skinweights::Result<RgbImage> {
        let pictures = self
            .frames
            .iter()
            .enumerate()
            .map(|(set, frames)| {
                let drawing = Drawing {
                    mesh: self.scene.mesh(),
                    positions: &frames[i].positions,
                    art: self.scene.art(),
                    textures: self.textures,
                };
                let im = render(&drawing, self.frame, self.options).and_then(|im| {
                    skinweights::plot::caption_rows(&im, &self.label(set, i), size, rows)
                });
                pb.inc(1);
                im
            })
            .collect::<skinweights::Result<Vec<_>>>()?;
        if pictures.len() == 1 {
            Ok(pictures.into_iter().next().unwrap_or_default())
        } else {
            side_by_side(&pictures)
        }
    }
}

/// Writes the clip's pictures to `--output` as `kind` says; the size of the written picture.
fn write_clip_pictures(
    kind: ClipOutput,
    pictures: &[RgbImage],
    times: &[f64],
    a: &RenderArgs,
    background: [u8; 3],
) -> Result<(u32, u32)> {
    Ok(match kind {
        ClipOutput::Sheet => {
            let sheet = contact_sheet(pictures, a.columns, background)?;
            save(&sheet, &a.output)?;
            sheet.dimensions()
        }
        ClipOutput::Animation => {
            let bytes = encode_apng(pictures, times, &a.output)?;
            skinweights::io::write_atomic(&a.output, bytes)?;
            pictures[0].dimensions()
        }
    })
}
