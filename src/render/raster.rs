//! The rasterizer: triangles drawn as a GPU draws them.
//!
//! - Vertex positions are snapped to a fixed-point grid of 1/256 pixel ([`SUBPIXEL`]) and
//!   coverage is decided with exact integer edge functions, so two triangles sharing an edge
//!   agree on every sample: nothing is drawn twice and nothing is left out.
//! - Top-left fill rule: a sample exactly on an edge belongs to the triangle whose top or
//!   left edge it is. No per-triangle edge antialiasing.
//! - N x N supersampling (N = 1, 2, 4, 8) on a regular grid, sample `(i, j)` of a pixel at
//!   `((i + 1/2) / N, (j + 1/2) / N)`; every sample is shaded and blended on its own and the
//!   pixel is the mean of its samples, rounded to 8 bits.
//! - Texture coordinates are interpolated affinely (2D), sampled bilinearly with
//!   clamp-to-edge ([`super::texture`]).
//! - Layers in draw order, triangles in mesh order within a layer, blended 'over' a
//!   background colour in straight (`c·a + dst·(1 - a)`) or premultiplied
//!   (`c + dst·(1 - a)`) alpha.
//! - The frame is cut into 32 x 32 pixel tiles rendered in parallel (rayon); each tile sees
//!   the triangles in the same order, so the image does not depend on the thread count.

use super::texture::{Texels, Texture};
use crate::error::{ArgumentError, Error, MeshError, OutputError, Result};
use crate::mesh::Mesh;
use crate::scene::{triangle_layers, AlphaMode, Art};
use image::{ImageBuffer, Rgb, RgbImage};
use nalgebra::{Point2, Vector2};
use rayon::prelude::*;

/// Fixed-point steps per pixel for vertex positions and sample positions.
pub const SUBPIXEL: i64 = 256;
/// Largest render width or height, pixels.
pub const MAX_RENDER_SIDE: u64 = 16_384;
/// Largest render, pixels (8192 x 8192).
pub const MAX_RENDER_PIXELS: u64 = 1 << 26;
/// Supersampling factors accepted (samples per pixel side).
pub const SAMPLE_COUNTS: [u32; 4] = [1, 2, 4, 8];
/// Tile side, pixels.
const TILE: usize = 32;
/// Fixed-point coordinates are clamped to this (about ±1M px), so edge functions stay far
/// inside i64.
const MAX_FIXED: i64 = 1 << 28;

/// How scene coordinates map to the picture: rotate about the scene origin, scale, flip y
/// (images count rows down), then shift by a sub-pixel offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// Output pixels per scene unit (default 1).
    pub scale: f64,
    /// Counter-clockwise rotation of the picture, degrees (default 0).
    pub rotation_deg: f64,
    /// Extra shift in output pixels, added after fitting (default (0, 0)); use fractions of
    /// a pixel to move edges off the pixel grid.
    pub offset: Vector2<f64>,
}

impl Default for View {
    fn default() -> Self {
        View {
            scale: 1.0,
            rotation_deg: 0.0,
            offset: Vector2::zeros(),
        }
    }
}

/// The output picture: its size and the map from scene coordinates to pixel coordinates
/// (x right, y down, pixel `(c, r)` covering `[c, c+1] x [r, r+1]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// `[a, b, c, d, tx, ty]`: pixel `x = a·sx + c·sy + tx`, `y = b·sx + d·sy + ty`.
    pub matrix: [f64; 6],
}

impl Frame {
    /// The smallest frame holding `points` under `view` with `margin` pixels all round (plus
    /// one pixel for the offset). Errors: a scale that is not finite and positive, a
    /// non-finite rotation, offset or margin, and a frame over [`MAX_RENDER_SIDE`] a side or
    /// [`MAX_RENDER_PIXELS`] pixels ([`OutputError::RenderTooLarge`], before anything is allocated).
    pub fn fit(points: &[Point2<f64>], view: &View, margin: f64) -> Result<Frame> {
        if !(view.scale.is_finite() && view.scale > 0.0) {
            return Err(ArgumentError::InvalidArgument {
                argument: "scale",
                value: view.scale.to_string(),
                reason: format!("{} must be finite and > 0", view.scale),
            }
            .into());
        }
        for (field, v) in [
            ("rotation", view.rotation_deg),
            ("offset.x", view.offset.x),
            ("offset.y", view.offset.y),
            ("margin", margin),
        ] {
            if !v.is_finite() {
                return Err(ArgumentError::InvalidArgument {
                    argument: field,
                    value: v.to_string(),
                    reason: format!("{v} is not finite"),
                }
                .into());
            }
        }
        if points.is_empty() {
            return Err(OutputError::NothingToFrame.into());
        }
        let (s, c) = view.rotation_deg.to_radians().sin_cos();
        let (a, b, cc, d) = (
            c * view.scale,
            -s * view.scale,
            -s * view.scale,
            -c * view.scale,
        );
        // Rotated and scaled, y flipped: x' = a x + cc y, y' = b x + d y.
        let mut lo = Vector2::new(f64::INFINITY, f64::INFINITY);
        let mut hi = -lo;
        for p in points {
            let q = Vector2::new(a * p.x + cc * p.y, b * p.x + d * p.y);
            lo = lo.inf(&q);
            hi = hi.sup(&q);
        }
        let w = (hi.x - lo.x + 2.0 * margin).ceil() + 1.0;
        let h = (hi.y - lo.y + 2.0 * margin).ceil() + 1.0;
        check_size(w, h, 1)?;
        Ok(Frame {
            width: w as u32,
            height: h as u32,
            matrix: [
                a,
                b,
                cc,
                d,
                margin - lo.x + view.offset.x,
                margin - lo.y + view.offset.y,
            ],
        })
    }

    /// Where scene point `p` lands, in pixels.
    pub fn to_pixels(&self, p: Point2<f64>) -> Point2<f64> {
        let [a, b, c, d, tx, ty] = self.matrix;
        Point2::new(a * p.x + c * p.y + tx, b * p.x + d * p.y + ty)
    }
}

/// Longer side, px, below which [`readable_scale`] enlarges a picture.
pub const READABLE_MIN_SIDE: f64 = 200.0;
/// Longer side, px, above which [`readable_scale`] shrinks a picture.
pub const READABLE_MAX_SIDE: f64 = 2048.0;
/// Longer side, px, [`readable_scale`] enlarges a small picture towards.
pub const READABLE_SIDE: f64 = 512.0;

/// The output scale (pixels per scene unit) for a picture of `points` rotated by
/// `rotation_deg` when none is asked for: 1 (a sprite at its art's own size, a Spine rig in
/// its own units) when the longer side of their bounding box at scale 1 is between
/// [`READABLE_MIN_SIDE`] and [`READABLE_MAX_SIDE`] px; for a smaller one (a Creature rig
/// exported 24 units tall) the integer scale giving a longer side of at most
/// [`READABLE_SIDE`] px; for a larger one, the power of 1/2 that brings the longer side
/// within [`READABLE_MAX_SIDE`]. 1 for no points or a box without extent.
pub fn readable_scale(points: &[Point2<f64>], rotation_deg: f64) -> f64 {
    let (s, c) = rotation_deg.to_radians().sin_cos();
    let mut lo = Vector2::new(f64::INFINITY, f64::INFINITY);
    let mut hi = -lo;
    for p in points {
        let q = Vector2::new(c * p.x - s * p.y, s * p.x + c * p.y);
        lo = lo.inf(&q);
        hi = hi.sup(&q);
    }
    let side = (hi.x - lo.x).max(hi.y - lo.y);
    if !(side.is_finite() && side > 0.0) {
        return 1.0;
    }
    if side < READABLE_MIN_SIDE {
        (READABLE_SIDE / side).floor().max(1.0)
    } else if side > READABLE_MAX_SIDE {
        let halvings = (side / READABLE_MAX_SIDE).log2().ceil().min(1000.0);
        0.5f64.powf(halvings)
    } else {
        1.0
    }
}

/// Refuses a render of `w` x `h` pixels (any non-finite or huge size) before allocating.
pub(crate) fn check_size(w: f64, h: f64, samples: u32) -> Result<()> {
    let ok = w.is_finite()
        && h.is_finite()
        && w >= 1.0
        && h >= 1.0
        && w <= MAX_RENDER_SIDE as f64
        && h <= MAX_RENDER_SIDE as f64
        && w * h <= MAX_RENDER_PIXELS as f64;
    if !ok {
        let size = |v: f64| {
            if v.is_finite() {
                v.max(0.0) as u64
            } else {
                u64::MAX
            }
        };
        return Err(OutputError::RenderTooLarge {
            width: size(w),
            height: size(h),
            samples,
            max_side: MAX_RENDER_SIDE,
            max_pixels: MAX_RENDER_PIXELS,
        }
        .into());
    }
    Ok(())
}

/// How to draw: supersampling, background, alpha modes.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct RenderOptions {
    /// Samples per pixel side: 1, 2, 4 or 8 (default [`RenderOptions::DEFAULT_SAMPLES`] = 2,
    /// four samples a pixel like a GPU's common 4x multisampling; 1 is one sample at the
    /// pixel centre).
    pub samples: u32,
    /// Background colour, 8-bit RGB (default [`Self::DEFAULT_BACKGROUND`], black).
    pub background: [u8; 3],
    /// The alpha mode textures are sampled in: each image is converted from its stored mode
    /// (default [`Self::DEFAULT_TEXTURE_ALPHA`], [`AlphaMode::Straight`], what PNG files
    /// hold).
    pub texture_alpha: AlphaMode,
    /// How a sampled colour is blended over what is below (default [`Self::DEFAULT_BLEND`],
    /// [`AlphaMode::Straight`]). Matching `texture_alpha` is correct; a mismatch shows
    /// what a pipeline with inconsistent modes draws.
    pub blend: AlphaMode,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            samples: RenderOptions::DEFAULT_SAMPLES,
            background: RenderOptions::DEFAULT_BACKGROUND,
            texture_alpha: RenderOptions::DEFAULT_TEXTURE_ALPHA,
            blend: RenderOptions::DEFAULT_BLEND,
        }
    }
}

impl RenderOptions {
    /// Default samples per pixel side.
    pub const DEFAULT_SAMPLES: u32 = 2;
    /// Default [`Self::background`]: black.
    pub const DEFAULT_BACKGROUND: [u8; 3] = [0, 0, 0];
    /// Default [`Self::texture_alpha`]: [`AlphaMode::Straight`].
    pub const DEFAULT_TEXTURE_ALPHA: AlphaMode = AlphaMode::Straight;
    /// Default [`Self::blend`]: [`AlphaMode::Straight`].
    pub const DEFAULT_BLEND: AlphaMode = AlphaMode::Straight;

    /// Both alpha modes set to `mode` (a consistent pipeline).
    pub fn with_alpha(mut self, mode: AlphaMode) -> Self {
        self.texture_alpha = mode;
        self.blend = mode;
        self
    }

    /// These options with `samples` samples per pixel side.
    pub fn with_samples(mut self, samples: u32) -> Self {
        self.samples = samples;
        self
    }

    /// These options with the background colour `background`, 8-bit RGB.
    pub fn with_background(mut self, background: [u8; 3]) -> Self {
        self.background = background;
        self
    }

    /// These options sampling textures in `texture_alpha`.
    pub fn with_texture_alpha(mut self, texture_alpha: AlphaMode) -> Self {
        self.texture_alpha = texture_alpha;
        self
    }

    /// These options blending in `blend`.
    pub fn with_blend(mut self, blend: AlphaMode) -> Self {
        self.blend = blend;
        self
    }
}

/// What to draw: posed vertex positions (scene units) of a mesh, and its art with the
/// textures of the art's images (in order). Without art every part is drawn in an opaque
/// flat colour, parts in mesh order.
#[derive(Debug, Clone, Copy)]
pub struct Drawing<'a> {
    /// The mesh (triangles, parts).
    pub mesh: &'a Mesh,
    /// Where each vertex is drawn, scene units.
    pub positions: &'a [Point2<f64>],
    /// Images, texture coordinates and layer order.
    pub art: Option<&'a Art>,
    /// One texture per art image.
    pub textures: &'a [Texture],
}

/// Opaque colours of untextured parts, cycled by part index.
const FLAT_COLOURS: [[f32; 3]; 6] = [
    [0.85, 0.55, 0.35],
    [0.35, 0.6, 0.85],
    [0.5, 0.75, 0.4],
    [0.8, 0.4, 0.6],
    [0.9, 0.8, 0.35],
    [0.55, 0.45, 0.8],
];

enum Paint {
    Flat([f32; 3]),
    Texture(usize),
}

/// A triangle set up for rasterization.
struct Setup {
    /// Corners in fixed point, ordered so that the edge functions are positive inside.
    v: [[i64; 2]; 3],
    /// 0 for a top or left edge (a sample on it is inside), -1 otherwise.
    bias: [i64; 3],
    /// Bounding box in fixed point: x0, y0, x1, y1.
    bbox: [i64; 4],
    /// Texture coordinate planes: `u = u0 + du·(x - x0) + ...` over fixed-point x, y.
    u: [f64; 3],
    w: [f64; 3],
    paint: Paint,
}

/// Renders `drawing` into `frame`. Errors: a sample count not in [`SAMPLE_COUNTS`], a frame
/// over the size limits, art whose texture count or coordinate count does not match.
pub fn render(drawing: &Drawing, frame: &Frame, options: &RenderOptions) -> Result<RgbImage> {
    let [image] = render_over(drawing, frame, options, [options.background])?;
    Ok(image)
}

/// [`render`] over each of `backgrounds` (`options.background` is ignored), in one pass:
/// every sample is shaded once and blended over each background, so each image equals
/// [`render`] with that background, byte for byte, at a fraction of the cost of drawing
/// them one by one.
pub fn render_over<const K: usize>(
    drawing: &Drawing,
    frame: &Frame,
    options: &RenderOptions,
    backgrounds: [[u8; 3]; K],
) -> Result<[RgbImage; K]> {
    let resolved = render_resolved(drawing, frame, options, backgrounds, None, |m| {
        round_to_u8(m * 255.0)
    })?;
    into_images(
        frame,
        resolved,
        |p| RgbImage::from_raw(frame.width, frame.height, p),
        || RgbImage::new(frame.width, frame.height),
    )
}

/// [`render`] with 16 bits per channel: the same samples, each pixel's mean rounded to
/// 1/65535 instead of 1/255. The fringe metric's reference is rendered this way: it divides
/// by the reference's coverage, and at a pixel whose coverage is one 8-bit level the 8-bit
/// colour is all rounding (`c_ref` off by up to half its value).
pub fn render_16(drawing: &Drawing, frame: &Frame, options: &RenderOptions) -> Result<Rgb16Image> {
    let [image] = render_16_over(drawing, frame, options, [options.background])?;
    Ok(image)
}

/// [`render_16`] over each of `backgrounds` in one pass, as [`render_over`].
pub fn render_16_over<const K: usize>(
    drawing: &Drawing,
    frame: &Frame,
    options: &RenderOptions,
    backgrounds: [[u8; 3]; K],
) -> Result<[Rgb16Image; K]> {
    render_16_over_where(drawing, frame, options, backgrounds, None)
}

/// [`render_16_over`] that draws only what it must for the pixels flagged in `wanted` (one
/// flag per pixel, row-major; `None`: every pixel). A wanted pixel is what
/// [`render_16_over`] gives it; the others hold whatever is cheapest.
pub(crate) fn render_16_over_where<const K: usize>(
    drawing: &Drawing,
    frame: &Frame,
    options: &RenderOptions,
    backgrounds: [[u8; 3]; K],
    wanted: Option<&[bool]>,
) -> Result<[Rgb16Image; K]> {
    let resolved = render_resolved(drawing, frame, options, backgrounds, wanted, |m| {
        (m * 65535.0 + 0.5) as u16
    })?;
    into_images(
        frame,
        resolved,
        |p| Rgb16Image::from_raw(frame.width, frame.height, p),
        || Rgb16Image::new(frame.width, frame.height),
    )
}

/// The images of a multi-background render: `make` on each background's pixels, once every
/// buffer is checked to fill the frame (so `make`, `from_raw`, always succeeds).
fn into_images<T, I, const K: usize>(
    frame: &Frame,
    resolved: [Vec<T>; K],
    make: impl Fn(Vec<T>) -> Option<I>,
    empty: impl Fn() -> I,
) -> Result<[I; K]> {
    let len = 3 * frame.width as usize * frame.height as usize;
    if let Some(bad) = resolved.iter().find(|p| p.len() != len) {
        return Err(size_mismatch(frame, bad.len()));
    }
    Ok(resolved.map(|pixels| make(pixels).unwrap_or_else(&empty)))
}

/// The error of a resolved buffer that does not fill its frame (cannot happen: one RGB triple
/// is resolved per pixel).
fn size_mismatch(frame: &Frame, len: usize) -> Error {
    let rows = len / 3 / (frame.width as usize).max(1);
    Error::Output(OutputError::RenderSize {
        render: "resolved pixels",
        got: (frame.width, u32::try_from(rows).unwrap_or(u32::MAX)),
        frame: (frame.width, frame.height),
    })
}

/// An RGB image with 16 bits per channel.
pub type Rgb16Image = ImageBuffer<Rgb<u16>, Vec<u16>>;

/// Draws over each background and resolves every pixel's mean colour (in `0..=1`) with
/// `resolve`: per background, RGB channels, rows from the top.
fn render_resolved<T: Copy + Default + Send, const K: usize>(
    drawing: &Drawing,
    frame: &Frame,
    options: &RenderOptions,
    backgrounds: [[u8; 3]; K],
    wanted: Option<&[bool]>,
    resolve: impl Fn(f32) -> T + Sync,
) -> Result<[Vec<T>; K]> {
    check_render_inputs(drawing, frame, options, wanted)?;
    let n = options.samples;
    let texels = drawing_texels(drawing, options);
    let setups = setup_triangles(drawing, frame);
    let tiling = Tiling::new(frame);
    let bins = tiling.bin(&setups);

    let backgrounds = backgrounds.map(|b| b.map(|c| c as f32 / 255.0));
    let tiles: Vec<[Vec<T>; K]> = (0..tiling.columns * tiling.rows)
        .into_par_iter()
        .map(|t| {
            let tile = tiling.tile(t, n as usize, wanted);
            if tile
                .spans
                .as_ref()
                .is_some_and(|s| s.iter().all(|r| r.0 == r.1))
            {
                return std::array::from_fn(|_| vec![T::default(); tile.w * tile.h * 3]);
            }
            draw_tile(
                &tile,
                &bins[t],
                &setups,
                &texels,
                options,
                backgrounds,
                &resolve,
            )
        })
        .collect();
    Ok(tiling.assemble(&tiles))
}

/// Refuses a render before anything is drawn: a sample count not in [`SAMPLE_COUNTS`], a
/// frame over the size limits, a `wanted` mask of the wrong size, posed positions that do
/// not match the mesh, and art that does not match the mesh or its textures.
fn check_render_inputs(
    drawing: &Drawing,
    frame: &Frame,
    options: &RenderOptions,
    wanted: Option<&[bool]>,
) -> Result<()> {
    let n = options.samples;
    if !SAMPLE_COUNTS.contains(&n) {
        return Err(ArgumentError::InvalidArgument {
            argument: "samples",
            value: n.to_string(),
            reason: format!("{n} (use 1, 2, 4 or 8 samples per pixel side)"),
        }
        .into());
    }
    check_size(frame.width as f64, frame.height as f64, n)?;
    let pixels = frame.width as usize * frame.height as usize;
    if let Some(flags) = wanted.filter(|f| f.len() != pixels) {
        return Err(OutputError::MaskSize {
            given: flags.len(),
            pixels,
        }
        .into());
    }
    let mesh = drawing.mesh;
    if drawing.positions.len() != mesh.vertex_count() {
        return Err(MeshError::PosedPositions {
            given: drawing.positions.len(),
            vertices: mesh.vertex_count(),
        }
        .into());
    }
    if let Some(art) = drawing.art {
        art.check(mesh.vertex_count(), mesh.parts())?;
        super::texture::check_uvs(mesh, art, drawing.textures)?;
    }
    Ok(())
}

/// The texels of each of the drawing's textures in the alpha mode they are sampled in (none
/// without art).
fn drawing_texels(drawing: &Drawing, options: &RenderOptions) -> Vec<Texels> {
    match drawing.art {
        Some(_) => drawing
            .textures
            .iter()
            .map(|t| t.texels(options.texture_alpha))
            .collect(),
        None => Vec::new(),
    }
}

/// The frame cut into [`TILE`] x [`TILE`] pixel tiles (the last column and row may be
/// narrower), numbered row by row.
struct Tiling {
    /// Frame width, pixels.
    width: usize,
    /// Frame height, pixels.
    height: usize,
    /// Tiles per row.
    columns: usize,
    /// Tile rows.
    rows: usize,
}

impl Tiling {
    /// The tiling of `frame`.
    fn new(frame: &Frame) -> Self {
        let (width, height) = (frame.width as usize, frame.height as usize);
        Tiling {
            width,
            height,
            columns: width.div_ceil(TILE),
            rows: height.div_ceil(TILE),
        }
    }

    /// The top-left pixel, width and height of tile `t`.
    fn bounds(&self, t: usize) -> (usize, usize, usize, usize) {
        let (c, r) = (t % self.columns, t / self.columns);
        let (x0, y0) = (c * TILE, r * TILE);
        (
            x0,
            y0,
            TILE.min(self.width - x0),
            TILE.min(self.height - y0),
        )
    }

    /// Per tile, the indices of the triangles whose bounding box touches it, in draw order.
    fn bin(&self, setups: &[Setup]) -> Vec<Vec<u32>> {
        let (w, h, tx, ty) = (self.width, self.height, self.columns, self.rows);
        let mut bins: Vec<Vec<u32>> = vec![Vec::new(); tx * ty];
        let tile_px = (TILE as i64) * SUBPIXEL;
        for (i, s) in setups.iter().enumerate() {
            let [x0, y0, x1, y1] = s.bbox;
            if x1 < 0 || y1 < 0 || x0 >= w as i64 * SUBPIXEL || y0 >= h as i64 * SUBPIXEL {
                continue;
            }
            let c0 = (x0.max(0) / tile_px) as usize;
            let r0 = (y0.max(0) / tile_px) as usize;
            let c1 = ((x1 / tile_px) as usize).min(tx - 1);
            let r1 = ((y1 / tile_px) as usize).min(ty - 1);
            for r in r0..=r1 {
                for c in c0..=c1 {
                    bins[r * tx + c].push(i as u32);
                }
            }
        }
        bins
    }

    /// Tile `t` drawn with `n` x `n` samples a pixel, limited to the samples its `wanted`
    /// pixels need.
    fn tile(&self, t: usize, n: usize, wanted: Option<&[bool]>) -> TileRef {
        let (x0, y0, tw, th) = self.bounds(t);
        let w = self.width;
        // The samples of each pixel row from its first wanted pixel to its last.
        let spans = wanted.map(|flags| {
            (y0..y0 + th)
                .map(|y| {
                    let row = &flags[y * w + x0..y * w + x0 + tw];
                    match (row.iter().position(|&f| f), row.iter().rposition(|&f| f)) {
                        (Some(a), Some(b)) => (a * n, (b + 1) * n),
                        _ => (0, 0),
                    }
                })
                .collect::<Vec<_>>()
        });
        TileRef {
            x0,
            y0,
            w: tw,
            h: th,
            n,
            spans,
        }
    }

    /// The frame's pixels per background (RGB channels, rows from the top), copied from
    /// each tile's pixels (`tiles[t]`, as [`draw_tile`] returns them).
    fn assemble<T: Copy + Default, const K: usize>(&self, tiles: &[[Vec<T>; K]]) -> [Vec<T>; K] {
        let (w, h) = (self.width, self.height);
        let mut out: [Vec<T>; K] = std::array::from_fn(|_| vec![T::default(); w * h * 3]);
        for (t, per_background) in tiles.iter().enumerate() {
            let (x0, y0, tw, _) = self.bounds(t);
            for (image, pixels) in out.iter_mut().zip(per_background) {
                for (k, row) in pixels.chunks_exact(3 * tw).enumerate() {
                    let at = 3 * ((y0 + k) * w + x0);
                    image[at..at + 3 * tw].copy_from_slice(row);
                }
            }
        }
        out
    }
}

/// Triangles in draw order, set up in fixed point. A triangle belongs to the layer of its
/// corners' parts that is drawn first (corners of one part in a layered mesh; on a sprite
/// mesh split into part regions, triangles straddling two regions go to the back one).
/// Triangles that snap to zero area draw nothing, as on a GPU.
fn setup_triangles(drawing: &Drawing, frame: &Frame) -> Vec<Setup> {
    let mesh = drawing.mesh;
    let parts = mesh.parts();
    let layer_of_part: Vec<usize> = match drawing.art {
        Some(art) => art.layer_of_part(parts),
        None => (0..parts.len()).collect(),
    };
    let fixed: Vec<[i64; 2]> = drawing
        .positions
        .iter()
        .map(|&p| {
            let q = frame.to_pixels(p);
            let f = |x: f64| ((x * SUBPIXEL as f64).round() as i64).clamp(-MAX_FIXED, MAX_FIXED);
            [f(q.x), f(q.y)]
        })
        .collect();
    let mut order: Vec<(usize, usize)> = triangle_layers(mesh, &layer_of_part)
        .into_iter()
        .enumerate()
        .map(|(t, layer)| (layer, t))
        .collect();
    order.sort_unstable();
    order
        .into_iter()
        .filter_map(|(layer, t)| {
            let tri = mesh.triangles()[t];
            let paint = match drawing.art {
                Some(art) => match art.layers[layer].image {
                    Some(k) => Paint::Texture(k),
                    None => Paint::Flat(flat_colour(parts, &art.layers[layer].part)),
                },
                None => Paint::Flat(FLAT_COLOURS[layer % FLAT_COLOURS.len()]),
            };
            let uv = |k: usize| match drawing.art {
                Some(art) => art.uvs[tri[k]],
                None => Point2::origin(),
            };
            setup(
                [fixed[tri[0]], fixed[tri[1]], fixed[tri[2]]],
                [uv(0), uv(1), uv(2)],
                paint,
            )
        })
        .collect()
}

fn flat_colour(parts: &[String], part: &str) -> [f32; 3] {
    let i = parts.iter().position(|p| p == part).unwrap_or(0);
    FLAT_COLOURS[i % FLAT_COLOURS.len()]
}

fn cross(a: [i64; 2], b: [i64; 2], p: [i64; 2]) -> i64 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

fn setup(mut v: [[i64; 2]; 3], mut uv: [Point2<f64>; 3], paint: Paint) -> Option<Setup> {
    let mut area = cross(v[0], v[1], v[2]);
    if area == 0 {
        return None;
    }
    if area < 0 {
        v.swap(1, 2);
        uv.swap(1, 2);
        area = -area;
    }
    let mut bias = [0i64; 3];
    for (i, b) in bias.iter_mut().enumerate() {
        let (a, c) = (v[i], v[(i + 1) % 3]);
        let (dx, dy) = (c[0] - a[0], c[1] - a[1]);
        // With y down and positive area, a top edge runs in +x and a left edge upwards.
        let top_left = (dy == 0 && dx > 0) || dy < 0;
        *b = if top_left { 0 } else { -1 };
    }
    let bbox = [
        v.iter().map(|p| p[0]).min()?,
        v.iter().map(|p| p[1]).min()?,
        v.iter().map(|p| p[0]).max()?,
        v.iter().map(|p| p[1]).max()?,
    ];
    let det = area as f64;
    let (x10, y10) = ((v[1][0] - v[0][0]) as f64, (v[1][1] - v[0][1]) as f64);
    let (x20, y20) = ((v[2][0] - v[0][0]) as f64, (v[2][1] - v[0][1]) as f64);
    let plane = |f0: f64, f1: f64, f2: f64| {
        let (d1, d2) = (f1 - f0, f2 - f0);
        [f0, (d1 * y20 - d2 * y10) / det, (d2 * x10 - d1 * x20) / det]
    };
    Some(Setup {
        v,
        bias,
        bbox,
        u: plane(uv[0].x, uv[1].x, uv[2].x),
        w: plane(uv[0].y, uv[1].y, uv[2].y),
        paint,
    })
}

struct TileRef {
    x0: usize,
    y0: usize,
    w: usize,
    h: usize,
    n: usize,
    /// Per pixel row of the tile, the samples `lo..hi` along the row that must be drawn
    /// (`None`: all); the others are left at the background.
    spans: Option<Vec<(usize, usize)>>,
}

impl TileRef {
    /// The part of the covered samples `first..end` (counted from sample column `i0`) of
    /// sample row `j` that its pixel row's wanted span keeps.
    fn wanted_part(&self, j: usize, i0: usize, first: usize, end: usize) -> (usize, usize) {
        match &self.spans {
            Some(spans) => {
                let (lo, hi) = spans[j / self.n];
                (
                    first.max(lo.saturating_sub(i0)),
                    end.min(hi.saturating_sub(i0)),
                )
            }
            None => (first, end),
        }
    }
}

/// Draws one tile over each background: its samples start at the background, every binned
/// triangle is blended in order (each sample shaded once, blended over every background),
/// then each pixel is the mean of its samples (in `0..=1`), stored with `resolve`. Returns,
/// per background, RGB channels, rows of the tile.
fn draw_tile<T, const K: usize>(
    tile: &TileRef,
    triangles: &[u32],
    setups: &[Setup],
    texels: &[Texels],
    options: &RenderOptions,
    backgrounds: [[f32; 3]; K],
    resolve: impl Fn(f32) -> T,
) -> [Vec<T>; K] {
    let grid = SampleGrid::new(tile);
    let mut buf = vec![backgrounds; grid.sw * grid.sh];
    let premultiplied_blend = options.blend == AlphaMode::Premultiplied;
    for &t in triangles {
        draw_triangle(
            &mut buf,
            tile,
            &grid,
            &setups[t as usize],
            texels,
            premultiplied_blend,
        );
    }
    resolve_tile(&buf, tile, grid.sw, resolve)
}

/// The samples of one tile: `sw` x `sh` of them, sample `(i, j)` at fixed-point
/// `(sx0 + i·step, sy0 + j·step)`.
struct SampleGrid {
    /// Samples per tile row.
    sw: usize,
    /// Sample rows.
    sh: usize,
    /// Fixed-point distance between neighbouring samples.
    step: i64,
    /// Fixed-point x of the first sample column.
    sx0: i64,
    /// Fixed-point y of the first sample row.
    sy0: i64,
}

impl SampleGrid {
    /// The sample grid of `tile`.
    fn new(tile: &TileRef) -> Self {
        let n = tile.n;
        // Sample k along a pixel side sits at (2k + 1) / (2n) of the pixel.
        let step = SUBPIXEL / n as i64;
        let first = step / 2;
        SampleGrid {
            sw: tile.w * n,
            sh: tile.h * n,
            step,
            sx0: tile.x0 as i64 * SUBPIXEL + first,
            sy0: tile.y0 as i64 * SUBPIXEL + first,
        }
    }

    /// The sample columns `[i0, i1]` and rows `[j0, j1]` (inclusive) inside the fixed-point
    /// bounding box `bbox` and the tile; `None` if there are none.
    fn samples_in(&self, bbox: [i64; 4]) -> Option<([usize; 2], [usize; 2])> {
        let step = self.step;
        let lo = |b: i64, s0: i64| ((b - s0 + step - 1).div_euclid(step)).max(0) as usize;
        let hi = |b: i64, s0: i64, max: usize| {
            let k = (b - s0).div_euclid(step);
            if k < 0 {
                None
            } else {
                Some((k as usize).min(max - 1))
            }
        };
        let (i0, j0) = (lo(bbox[0], self.sx0), lo(bbox[1], self.sy0));
        let (Some(i1), Some(j1)) = (
            hi(bbox[2], self.sx0, self.sw),
            hi(bbox[3], self.sy0, self.sh),
        ) else {
            return None;
        };
        if i0 > i1 || j0 > j1 {
            return None;
        }
        Some(([i0, i1], [j0, j1]))
    }
}

/// Blends triangle `s` into the tile's samples `buf` (row-major, `grid.sw` a row), over
/// every background alike.
fn draw_triangle<const K: usize>(
    buf: &mut [[[f32; 3]; K]],
    tile: &TileRef,
    grid: &SampleGrid,
    s: &Setup,
    texels: &[Texels],
    premultiplied_blend: bool,
) {
    let Some(([i0, i1], [j0, j1])) = grid.samples_in(s.bbox) else {
        return;
    };
    let (step, sw) = (grid.step, grid.sw);
    let [a, b, c] = s.v;
    // Edge functions step by a constant per sample along a row (exact integers).
    let dx = |p: [i64; 2], q: [i64; 2]| -(q[1] - p[1]) * step;
    let steps = [dx(a, b), dx(b, c), dx(c, a)];
    let (du, dv) = (s.u[1] * step as f64, s.w[1] * step as f64);
    let count = (i1 - i0 + 1) as i64;
    for j in j0..=j1 {
        let py = grid.sy0 + j as i64 * step;
        let p0 = [grid.sx0 + i0 as i64 * step, py];
        let e = [
            cross(a, b, p0) + s.bias[0],
            cross(b, c, p0) + s.bias[1],
            cross(c, a, p0) + s.bias[2],
        ];
        let Some((first, end)) = covered_span(e, steps, count) else {
            continue;
        };
        let (first, end) = tile.wanted_part(j, i0, first, end);
        if first >= end {
            continue;
        }
        let row = &mut buf[j * sw + i0 + first..j * sw + i0 + end];
        match s.paint {
            Paint::Flat(col) => row.fill([col; K]),
            Paint::Texture(k) => {
                let (ex, ey) = ((p0[0] - a[0]) as f64, (p0[1] - a[1]) as f64);
                let mut u = s.u[0] + s.u[1] * ex + s.u[2] * ey;
                let mut v = s.w[0] + s.w[1] * ex + s.w[2] * ey;
                // Step over the uncovered samples one by one, so that u and v at each
                // covered sample are the same sums as when every sample is visited.
                for _ in 0..first {
                    u += du;
                    v += dv;
                }
                blend_texture_row(row, &texels[k], [u, v], [du, dv], premultiplied_blend);
            }
        }
    }
}

/// Blends texture `tex` over a run of samples, sampled at `uv` for the first and stepping
/// by `duv` per sample, with the straight or premultiplied 'over'.
fn blend_texture_row<const K: usize>(
    row: &mut [[[f32; 3]; K]],
    tex: &Texels,
    uv: [f64; 2],
    duv: [f64; 2],
    premultiplied_blend: bool,
) {
    let [mut u, mut v] = uv;
    let [du, dv] = duv;
    for sample in row.iter_mut() {
        let col = tex.bilinear(u, v);
        let keep = 1.0 - col[3];
        let src: [f32; 3] = std::array::from_fn(|ch| {
            if premultiplied_blend {
                col[ch]
            } else {
                col[ch] * col[3]
            }
        });
        for dst in sample.iter_mut() {
            for ch in 0..3 {
                dst[ch] = src[ch] + dst[ch] * keep;
            }
        }
        u += du;
        v += dv;
    }
}

/// Each pixel of the tile the mean of its `n` x `n` samples in `buf` (`sw` a row), clamped
/// to `0..=1` and stored with `resolve`: per background, RGB channels, rows of the tile.
fn resolve_tile<T, const K: usize>(
    buf: &[[[f32; 3]; K]],
    tile: &TileRef,
    sw: usize,
    resolve: impl Fn(f32) -> T,
) -> [Vec<T>; K] {
    let n = tile.n;
    let inv = 1.0 / (n * n) as f32;
    std::array::from_fn(|b| {
        let mut out = Vec::with_capacity(tile.w * tile.h * 3);
        for y in 0..tile.h {
            for x in 0..tile.w {
                let mut sum = [0.0f32; 3];
                for j in 0..n {
                    let row = (y * n + j) * sw + x * n;
                    for px in &buf[row..row + n] {
                        for ch in 0..3 {
                            sum[ch] += px[b][ch];
                        }
                    }
                }
                for v in sum {
                    out.push(resolve((v * inv).clamp(0.0, 1.0)));
                }
            }
        }
        out
    })
}

/// The samples `first..end` of a row of `count` whose edge functions, `e` at sample 0 and
/// stepping by `steps` per sample, are all `>= 0`; `None` if there are none. Exact integer
/// division, so each sample gets the same inside/outside decision as testing it on its own.
#[inline]
fn covered_span(e: [i64; 3], steps: [i64; 3], count: i64) -> Option<(usize, usize)> {
    let (mut first, mut end) = (0i64, count);
    for (e0, d) in e.into_iter().zip(steps) {
        if d > 0 {
            // e0 + i·d >= 0 from i = ceil(-e0 / d) on.
            if e0 < 0 {
                first = first.max((-e0 + d - 1) / d);
            }
        } else if e0 < 0 {
            return None;
        } else if d < 0 {
            // e0 + i·d >= 0 up to i = floor(e0 / -d).
            end = end.min(e0 / -d + 1);
        }
    }
    (first < end).then_some((first as usize, end as usize))
}

/// `x.round() as u8` for `x` in `0..=255` (halves away from zero), without the library call
/// this target makes for `round`: `x - trunc(x)` is exact, so the comparison with 1/2 is too.
#[inline]
fn round_to_u8(x: f32) -> u8 {
    let t = x as u8;
    if x - t as f32 >= 0.5 {
        t + 1
    } else {
        t
    }
}
