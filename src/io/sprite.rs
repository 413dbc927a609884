//! Sprite to scene: trace a PNG's alpha channel into outline loops and mesh them around bones.
//!
//! [`trace_alpha`] runs marching squares on the alpha channel (samples at pixel centres, the
//! boundary where alpha crosses `threshold - 0.5`, positions interpolated along cell edges),
//! then simplifies each loop with Douglas-Peucker. Holes and separate islands are kept; specks
//! smaller than [`TraceOptions::min_area`] are dropped. [`sprite_scene`] meshes the loops with
//! [`mesh_outline`], the bones inserted as constraint segments, and labels parts.
//!
//! Coordinates: 1 unit = 1 pixel, y up, origin at the image's bottom-left corner. Pixel
//! (column `c`, row `r`, rows counted from the top) covers the square `[c, c + 1] x
//! [h - r - 1, h - r]` for an image `h` pixels high, so a hard-edged opaque block traces to
//! its pixel edges, except at its corners: marching squares joins the midpoints of the two
//! edges meeting at a corner, which cuts 1/8 px² off every convex corner and adds 1/8 px² at
//! every concave one (a corner-only join of two pixels counts as two concave corners). A
//! loop around `n` pixels (an island's pixels and holes, or a hole's) therefore traces to
//! `n - 1/2` px², and a hard-edged image to its opaque pixel count minus 1/2 px² per island
//! plus 1/2 per hole: a 2 x 2 block traces to 3.5 px², one pixel to 0.5. Anti-aliased edges
//! move the boundary with the alpha values; on the shipped sprites the traced area is within
//! 0.8% of the opaque pixel count, and the simplified outline's within 0.25%
//! (tests/it/sprite.rs).
//!
//! Images are limited to 32 768 pixels a side and 32 Mi (33 554 432) pixels in all, checked
//! from the PNG header before decoding ([`FormatError::ImageTooLarge`]), so that decoding and
//! tracing need at most about 0.5 GB. Tracing takes time about linear in the pixel count plus
//! the traced points.
//!
//! Islands are 8-connected: two opaque pixels touching only at a corner belong to one island
//! (where four samples form a saddle, the opaque diagonal is joined). Holes are therefore
//! 4-connected transparent regions.
//!
//! # Bones file
//!
//! The scene file's `bones` list, plus optional part regions and probes, in the same frame
//! (pixels, y up, origin bottom-left):
//!
//! ```json
//! {
//!   "bones": [{"name": "spine", "parent": null, "head": [48, 20], "tail": [48, 44], "part": "torso"}],
//!   "parts": [{"part": "torso", "polygon": [[0, 0], [96, 0], [96, 128], [0, 128]]}],
//!   "probes": [{"name": "lift_l", "pose": {"upper_arm_l": -90}, "watch": {"part": "torso", "below_y": 30}}]
//! }
//! ```
//!
//! Each mesh vertex gets the part of the first polygon containing it (see [`assign_parts`]); a
//! vertex in no polygon is an error, so end the list with a catch-all polygon if the regions
//! do not cover the whole sprite. Without `parts` every vertex is in part `body`. A bone that
//! leaves the traced shape keeps its position in the skeleton, but only its inside pieces
//! become mesh constraints; [`sprite_scene`] reports each such bone, and splits the
//! constraints of bones that cross each other at the crossing. Probes select vertices by
//! `part`, `below_y` or `min_distance`: a `vertices` list would index a mesh not yet made.

use super::scene_json::{probes_from_file, skeleton_from_file, BoneFile, ProbeFile};
use crate::error::{ArgumentError, Error, FormatError, Result};
use crate::geometry::{crosses_ray, loop_area, touching_edge_pairs, Segment};
use crate::mesh::{assign_parts, mesh_outline, LabelledRegion, Mesh, MeshingOptions, Outline};
use crate::scene::{AlphaMode, Art, ArtImage, Layer, Probe, Scene};
use crate::skeleton::Skeleton;
use image::codecs::png::PngDecoder;
use image::{DynamicImage, ImageDecoder, RgbaImage};
use nalgebra::Point2;
use serde::Deserialize;
use std::path::Path;

/// Default alpha threshold: a pixel is opaque when its alpha is at least 128 of 255.
pub const DEFAULT_THRESHOLD: u8 = 128;
/// Default simplification tolerance, pixels.
pub const DEFAULT_TOLERANCE: f64 = 0.5;
/// Default minimum traced loop area, square pixels: smaller islands and holes are dropped.
/// A traced loop is 1/2 px² short of the pixels it encloses (see the module docs), so this
/// keeps a hard-edged island or hole of 4 pixels (3.5 px²) and drops one of 3 (2.5 px²).
pub const DEFAULT_MIN_AREA: f64 = 3.0;
/// Largest sprite width or height, pixels.
const MAX_SPRITE_SIDE: u32 = 1 << 15;
/// Largest sprite pixel count (32 Mi, e.g. 8192 x 4096).
const MAX_SPRITE_PIXELS: u64 = 1 << 25;
/// [`sprite_scene`] refuses outlines with more kept points than 10 per requested vertex, and
/// never refuses fewer than this many.
pub const MIN_OUTLINE_POINT_BUDGET: usize = 50_000;
/// A bone constraint clipped at the outline stops this far (pixels) inside it, so that the
/// mesher never gets a segment end lying numerically on an outline edge.
pub const CLIP_MARGIN: f64 = 0.5;

/// A decoded sprite image and the name errors use for it.
#[derive(Debug, Clone)]
pub struct Sprite {
    /// Where the image came from (a file path, or any label); errors name it.
    pub source: String,
    /// The pixels.
    pub image: RgbaImage,
}

impl Sprite {
    /// Reads a PNG file. A missing file is an [`Error::Io`], anything that is not a PNG an
    /// [`FormatError::Image`], an image over 32 768 pixels a side or 32 Mi pixels in all an
    /// [`FormatError::ImageTooLarge`]; all name the path.
    pub fn load(path: impl AsRef<Path>) -> Result<Sprite> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Sprite::from_png_bytes(&bytes, path.display().to_string())
    }

    /// Decodes PNG bytes; `source` names them in errors. The size is checked from the header
    /// before any pixel is decoded (see [`Sprite::load`]).
    pub fn from_png_bytes(bytes: &[u8], source: impl Into<String>) -> Result<Sprite> {
        let source = source.into();
        let bad = |e: image::ImageError| {
            Error::Format(FormatError::Image {
                path: source.clone().into(),
                message: e.to_string(),
            })
        };
        let mut limits = image::io::Limits::default();
        // 16-bit RGBA at the largest size, plus room for the decoder's own buffers.
        limits.max_alloc = Some(MAX_SPRITE_PIXELS * 8 + (64 << 20));
        let decoder = PngDecoder::with_limits(std::io::Cursor::new(bytes), limits).map_err(bad)?;
        let (width, height) = decoder.dimensions();
        check_size(&source, width, height)?;
        let image = DynamicImage::from_decoder(decoder)
            .map_err(bad)?
            .into_rgba8();
        Ok(Sprite { source, image })
    }

    /// Wraps pixels already in memory.
    pub fn from_rgba(image: RgbaImage, source: impl Into<String>) -> Sprite {
        Sprite {
            source: source.into(),
            image,
        }
    }

    /// The source's file stem (e.g. `robot_idle` for `data/kenney-toon/robot_idle.png`).
    pub fn stem(&self) -> String {
        Path::new(&self.source)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.source.clone())
    }
}

/// How [`trace_alpha`] turns alpha into loops.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TraceOptions {
    /// A pixel is opaque when its alpha is at least this (1 to 255; default
    /// [`DEFAULT_THRESHOLD`] = 128). The traced boundary runs where the interpolated alpha
    /// equals `threshold - 0.5`.
    pub threshold: u8,
    /// Douglas-Peucker tolerance in pixels (default [`DEFAULT_TOLERANCE`] = 0.5; 0 keeps every
    /// traced point except exactly collinear ones). Simplification never makes a loop cross
    /// itself or another loop, nor changes which loops lie inside which.
    pub tolerance: f64,
    /// Loops (islands or holes) whose traced area is less than this many square pixels are
    /// dropped (default [`DEFAULT_MIN_AREA`] = 3, which keeps 4-pixel blocks: a traced area
    /// is 1/2 px² short of the pixel count, see the module docs).
    pub min_area: f64,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            threshold: DEFAULT_THRESHOLD,
            tolerance: DEFAULT_TOLERANCE,
            min_area: DEFAULT_MIN_AREA,
        }
    }
}

impl TraceOptions {
    /// Default [`Self::threshold`]: [`DEFAULT_THRESHOLD`], 128.
    pub const DEFAULT_THRESHOLD: u8 = DEFAULT_THRESHOLD;
    /// Default [`Self::tolerance`]: [`DEFAULT_TOLERANCE`], 0.5 px.
    pub const DEFAULT_TOLERANCE: f64 = DEFAULT_TOLERANCE;
    /// Default [`Self::min_area`]: [`DEFAULT_MIN_AREA`], 3 px².
    pub const DEFAULT_MIN_AREA: f64 = DEFAULT_MIN_AREA;

    /// These options counting a pixel opaque when its alpha is at least `threshold`.
    pub fn with_threshold(mut self, threshold: u8) -> Self {
        self.threshold = threshold;
        self
    }

    /// These options with the Douglas-Peucker tolerance `tolerance`, pixels.
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// These options dropping loops whose traced area is less than `min_area` px².
    pub fn with_min_area(mut self, min_area: f64) -> Self {
        self.min_area = min_area;
        self
    }
}

/// The result of [`trace_alpha`].
#[derive(Debug, Clone)]
pub struct Trace {
    /// The loops in scene coordinates: islands counter-clockwise, holes clockwise; no
    /// segments.
    pub outline: Outline,
    /// Loops dropped for enclosing less than [`TraceOptions::min_area`].
    pub dropped_specks: usize,
    /// Points of the kept loops before simplification.
    pub traced_points: usize,
    /// Area of the kept loops before simplification, square pixels (holes count negative):
    /// for a hard-edged image, the opaque pixels of the kept loops minus 1/2 per island plus
    /// 1/2 per hole (see the module docs). `outline.area()` is the area after
    /// simplification.
    pub traced_area: f64,
    /// Pixels with alpha >= the threshold (compare with `outline.area()`).
    pub opaque_pixels: usize,
}

impl Trace {
    /// Points of the kept loops after simplification.
    pub fn kept_points(&self) -> usize {
        self.outline.loops.iter().map(Vec::len).sum()
    }
}

/// Traces the alpha channel of `sprite` into outline loops (see the module docs).
///
/// Errors: a threshold of 0 or a negative / non-finite tolerance or minimum area
/// ([`ArgumentError::InvalidArgument`]); an image over the size limits ([`FormatError::ImageTooLarge`]); no
/// opaque pixel ([`FormatError::TransparentImage`]); every island's traced area under the minimum
/// ([`FormatError::IslandsTooSmall`], giving the largest island's traced area).
pub fn trace_alpha(sprite: &Sprite, options: &TraceOptions) -> Result<Trace> {
    check_options(options)?;
    check_size(&sprite.source, sprite.image.width(), sprite.image.height())?;
    let opaque_pixels = sprite
        .image
        .pixels()
        .filter(|p| p[3] >= options.threshold)
        .count();
    if opaque_pixels == 0 {
        return Err(FormatError::TransparentImage {
            image: sprite.source.clone(),
            threshold: options.threshold,
        }
        .into());
    }
    let raw = AlphaGrid::new(&sprite.image, options.threshold).march();
    let total = raw.len();
    let largest = raw.iter().map(|l| loop_area(l)).fold(0.0, f64::max);
    let kept: Vec<Vec<Point2<f64>>> = raw
        .into_iter()
        .filter(|l| loop_area(l).abs() >= options.min_area)
        .collect();
    if kept.iter().all(|l| loop_area(l) < 0.0) {
        return Err(FormatError::IslandsTooSmall {
            image: sprite.source.clone(),
            min_area: options.min_area,
            largest,
        }
        .into());
    }
    let traced_points = kept.iter().map(Vec::len).sum();
    let traced_area = kept.iter().map(|l| loop_area(l)).sum();
    let dropped_specks = total - kept.len();
    let loops = simplify_loops(&kept, options.tolerance);
    Ok(Trace {
        outline: Outline {
            loops,
            segments: Vec::new(),
        },
        dropped_specks,
        traced_points,
        traced_area,
        opaque_pixels,
    })
}

/// Rejects images over `MAX_SPRITE_SIDE` a side or `MAX_SPRITE_PIXELS` in all.
fn check_size(source: &str, width: u32, height: u32) -> Result<()> {
    if width > MAX_SPRITE_SIDE
        || height > MAX_SPRITE_SIDE
        || width as u64 * height as u64 > MAX_SPRITE_PIXELS
    {
        return Err(FormatError::ImageTooLarge {
            path: source.into(),
            width,
            height,
            max_side: MAX_SPRITE_SIDE,
            max_pixels: MAX_SPRITE_PIXELS,
        }
        .into());
    }
    Ok(())
}

fn check_options(options: &TraceOptions) -> Result<()> {
    if options.threshold == 0 {
        return Err(ArgumentError::InvalidArgument {
            argument: "threshold",
            value: "0".into(),
            reason: "must be 1 to 255 (0 makes every pixel opaque)".into(),
        }
        .into());
    }
    for (field, value) in [
        ("tolerance", options.tolerance),
        ("min_area", options.min_area),
    ] {
        if !value.is_finite() || value < 0.0 {
            return Err(ArgumentError::InvalidArgument {
                argument: field,
                value: value.to_string(),
                reason: format!("{value} must be finite and >= 0"),
            }
            .into());
        }
    }
    Ok(())
}

/// Alpha samples at pixel centres in y-up order, padded with a ring of transparent samples so
/// that every boundary closes.
struct AlphaGrid {
    /// Samples per row (image width + 2).
    w: usize,
    /// Rows (image height + 2).
    h: usize,
    alpha: Vec<u8>,
    /// Samples with alpha >= this are opaque.
    threshold: u8,
    /// The iso-level: between the last transparent and the first opaque alpha value.
    level: f64,
}

impl AlphaGrid {
    /// The grid of an image within the size limits (see [`check_size`]).
    fn new(image: &RgbaImage, threshold: u8) -> Self {
        let (iw, ih) = (image.width() as usize, image.height() as usize);
        let (w, h) = (iw + 2, ih + 2);
        let mut alpha = vec![0u8; w * h];
        for (c, r, p) in image.enumerate_pixels() {
            // Sample (c + 1, k + 1) with k = ih - 1 - r: row 0 of the image is the top.
            let k = ih - 1 - r as usize;
            alpha[(k + 1) * w + c as usize + 1] = p[3];
        }
        AlphaGrid {
            w,
            h,
            alpha,
            threshold,
            level: threshold as f64 - 0.5,
        }
    }

    fn opaque(&self, i: usize, k: usize) -> bool {
        self.alpha[k * self.w + i] >= self.threshold
    }

    /// Number of horizontal grid edges (they come first in the edge numbering).
    fn horizontal_edges(&self) -> usize {
        self.h * (self.w - 1)
    }

    /// Id of the edge from sample (i, k) to (i + 1, k).
    fn h_edge(&self, i: usize, k: usize) -> usize {
        k * (self.w - 1) + i
    }

    /// Id of the edge from sample (i, k) to (i, k + 1).
    fn v_edge(&self, i: usize, k: usize) -> usize {
        self.horizontal_edges() + k * self.w + i
    }

    /// Where the boundary crosses grid edge `id`, in scene coordinates.
    fn crossing(&self, id: usize) -> Point2<f64> {
        let (s0, s1) = if id < self.horizontal_edges() {
            let (k, i) = (id / (self.w - 1), id % (self.w - 1));
            ((i, k), (i + 1, k))
        } else {
            let id = id - self.horizontal_edges();
            let (k, i) = (id / self.w, id % self.w);
            ((i, k), (i, k + 1))
        };
        let a0 = self.alpha[s0.1 * self.w + s0.0] as f64;
        let a1 = self.alpha[s1.1 * self.w + s1.0] as f64;
        // One side is >= threshold and the other <= threshold - 1, so 0 < t < 1 strictly:
        // no crossing sits on a sample, and loops never share a point.
        let t = (self.level - a0) / (a1 - a0);
        // Sample (i, k) is the centre of pixel column i - 1, y-up row k - 1.
        let at = |s: (usize, usize)| Point2::new(s.0 as f64 - 0.5, s.1 as f64 - 0.5);
        at(s0) + (at(s1) - at(s0)) * t
    }

    /// Marching squares: every boundary as a closed loop with the opaque side on its left.
    fn march(&self) -> Vec<Vec<Point2<f64>>> {
        const NONE: u32 = u32::MAX;
        // About 2 MAX_SPRITE_PIXELS = 2^26 edges at most (see check_size): ids fit in a u32.
        let edges = self.horizontal_edges() + self.w * (self.h - 1);
        let mut next = vec![NONE; edges];
        for k in 0..self.h - 1 {
            for i in 0..self.w - 1 {
                // Corners counter-clockwise: bottom-left, bottom-right, top-right, top-left;
                // cell edge m runs from corner m to corner m + 1.
                let corners = [(i, k), (i + 1, k), (i + 1, k + 1), (i, k + 1)];
                let o = corners.map(|(x, y)| self.opaque(x, y));
                if o.iter().all(|&b| b == o[0]) {
                    continue;
                }
                let ids = [
                    self.h_edge(i, k),
                    self.v_edge(i + 1, k),
                    self.h_edge(i, k + 1),
                    self.v_edge(i, k),
                ];
                let crossed: Vec<usize> = (0..4).filter(|&m| o[m] != o[(m + 1) % 4]).collect();
                // Leaving the opaque side at an exit, the boundary re-enters at the next
                // crossing counter-clockwise. In a saddle this cuts off the transparent
                // corners, joining the opaque diagonal (8-connected islands), and it is the
                // same decision whichever loop reaches the cell first.
                for (n, &m) in crossed.iter().enumerate() {
                    if o[m] {
                        let entry = crossed[(n + 1) % crossed.len()];
                        next[ids[m]] = ids[entry] as u32;
                    }
                }
            }
        }
        let mut loops = Vec::new();
        for start in 0..edges {
            if next[start] == NONE {
                continue;
            }
            let mut l = Vec::new();
            let mut e = start;
            while next[e] != NONE {
                l.push(self.crossing(e));
                let n = next[e] as usize;
                next[e] = NONE;
                e = n;
            }
            loops.push(l);
        }
        loops
    }
}

/// Douglas-Peucker on every loop, then repairs: an edge that touches another edge gets its
/// farthest dropped point back, and a loop whose simplification changed which loops it
/// contains is kept whole. Both only add points, and the unsimplified loops are valid, so
/// the repairs end.
///
/// Time is about linear in the number of points: touching edges are looked for in tiles
/// ([`touching_edges`]), after the first pass only among edges of loops that changed, and
/// containment is tested only for loops whose first point lies in a loop's bounding box,
/// against that loop's edges in one row of pixels ([`EdgeRows`]).
fn simplify_loops(loops: &[Vec<Point2<f64>>], tolerance: f64) -> Vec<Vec<Point2<f64>>> {
    let mut keep: Vec<Vec<bool>> = loops
        .iter()
        .map(|l| douglas_peucker(l, tolerance))
        .collect();
    let kept_loops = |keep: &[Vec<bool>]| -> Vec<Vec<Point2<f64>>> {
        loops
            .iter()
            .zip(keep)
            .map(|(l, k)| {
                l.iter()
                    .zip(k)
                    .filter(|(_, &k)| k)
                    .map(|(p, _)| *p)
                    .collect()
            })
            .collect()
    };
    let firsts = FirstPoints::new(loops);
    // Loops whose kept points changed since their edges were last checked for touching, and
    // since their nesting was last checked.
    let mut touch_dirty = vec![true; loops.len()];
    let mut nest_dirty = vec![true; loops.len()];
    loop {
        let mut changed = vec![false; loops.len()];
        for (li, start, end) in touching_edges(loops, &keep, &touch_dirty) {
            if let Some(m) = farthest_between(&loops[li], start, end) {
                keep[li][m] = true;
                changed[li] = true;
            }
        }
        if !changed.contains(&true) {
            let simplified = kept_loops(&keep);
            for m in 0..loops.len() {
                if !std::mem::take(&mut nest_dirty[m]) {
                    continue;
                }
                // Point 0 of every loop is always kept: if the loops do not cross, one point
                // tells whether a whole loop lies inside loop m, and only points in its
                // bounding box can.
                let (lo, hi) = bounding_box(&loops[m]);
                let inside = firsts.in_box(lo, hi, m);
                if inside.is_empty() {
                    continue;
                }
                let traced = EdgeRows::new(std::slice::from_ref(&loops[m]));
                let simple = EdgeRows::new(std::slice::from_ref(&simplified[m]));
                let moved = inside.iter().any(|&l| {
                    let p = loops[l][0];
                    traced.contains(p) != simple.contains(p)
                });
                if moved {
                    keep[m].iter_mut().for_each(|k| *k = true);
                    changed[m] = true;
                }
            }
        }
        if !changed.contains(&true) {
            return kept_loops(&keep);
        }
        for (m, c) in changed.into_iter().enumerate() {
            touch_dirty[m] = c;
            nest_dirty[m] |= c;
        }
    }
}

/// Axis-aligned bounding box of some points, grown by one pixel on every side.
fn bounding_box(points: &[Point2<f64>]) -> (Point2<f64>, Point2<f64>) {
    let mut lo = Point2::new(f64::INFINITY, f64::INFINITY);
    let mut hi = Point2::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
    for p in points {
        lo = lo.inf(p);
        hi = hi.sup(p);
    }
    (lo.map(|v| v - 1.0), hi.map(|v| v + 1.0))
}

/// The first point of every loop, sorted into rows one pixel high and by x within a row.
struct FirstPoints {
    base: f64,
    /// Row `r` holds the points with `floor(y - base) == r`, as (x, loop), sorted by x.
    rows: Vec<Vec<(f64, usize)>>,
    points: Vec<Point2<f64>>,
}

impl FirstPoints {
    fn new(loops: &[Vec<Point2<f64>>]) -> Self {
        let points: Vec<Point2<f64>> = loops.iter().map(|l| l[0]).collect();
        let (lo, hi) = bounding_box(&points);
        let base = lo.y.floor();
        let mut rows = vec![Vec::new(); row_count(base, hi.y)];
        for (i, p) in points.iter().enumerate() {
            rows[(p.y - base).floor() as usize].push((p.x, i));
        }
        for r in &mut rows {
            r.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        FirstPoints { base, rows, points }
    }

    /// The loops other than `skip` whose first point lies in the box `lo`-`hi`.
    fn in_box(&self, lo: Point2<f64>, hi: Point2<f64>, skip: usize) -> Vec<usize> {
        let mut found = Vec::new();
        for row in row_range(self.base, self.rows.len(), lo.y, hi.y).map(|r| &self.rows[r]) {
            let from = row.partition_point(|&(x, _)| x < lo.x);
            for &(x, l) in &row[from..] {
                if x > hi.x {
                    break;
                }
                let y = self.points[l].y;
                if l != skip && y >= lo.y && y <= hi.y {
                    found.push(l);
                }
            }
        }
        found
    }
}

/// Rows one pixel high from `floor(base)` to past `top` (both finite, and `top - base`
/// bounded by the image height).
fn row_count(base: f64, top: f64) -> usize {
    (top - base).floor().max(0.0) as usize + 1
}

/// The rows of a `rows`-row index starting at `base` that the y range `y0..=y1` (any finite
/// values) meets, one more on each side for rounding.
fn row_range(base: f64, rows: usize, y0: f64, y1: f64) -> std::ops::Range<usize> {
    let first = ((y0.min(y1) - base).floor() - 1.0).max(0.0);
    let last = ((y0.max(y1) - base).floor() + 2.0).min(rows as f64);
    if first >= last {
        0..0
    } else {
        // Both are clamped to 0..=rows above.
        first as usize..last as usize
    }
}

/// The edges of some loops sorted into rows one pixel high, so that an even-odd point test or
/// a segment's crossings look only at the edges that reach the rows concerned.
struct EdgeRows<'a> {
    loops: &'a [Vec<Point2<f64>>],
    base: f64,
    /// Row `r` holds (loop, edge) of the edges whose y range meets `floor(y - base) == r`;
    /// edge `i` runs from point `i` to point `i + 1` (wrapping).
    rows: Vec<Vec<(usize, usize)>>,
}

impl<'a> EdgeRows<'a> {
    /// Indexes loops of finite points spanning at most the image height.
    fn new(loops: &'a [Vec<Point2<f64>>]) -> Self {
        let all: Vec<Point2<f64>> = loops.iter().flatten().copied().collect();
        let (lo, hi) = bounding_box(&all);
        let base = if all.is_empty() { 0.0 } else { lo.y.floor() };
        let count = if all.is_empty() {
            0
        } else {
            row_count(base, hi.y)
        };
        let mut rows = vec![Vec::new(); count];
        for (li, l) in loops.iter().enumerate() {
            for i in 0..l.len() {
                let (a, b) = (l[i], l[(i + 1) % l.len()]);
                let r0 = (a.y.min(b.y) - base).floor() as usize;
                let r1 = (a.y.max(b.y) - base).floor() as usize;
                for row in &mut rows[r0..=r1] {
                    row.push((li, i));
                }
            }
        }
        EdgeRows { loops, base, rows }
    }

    fn edge(&self, (li, i): (usize, usize)) -> (Point2<f64>, Point2<f64>) {
        let l = &self.loops[li];
        (l[i], l[(i + 1) % l.len()])
    }

    /// The edges in the rows that the y range `y0..=y1` meets (an edge may come more than
    /// once).
    fn near(&self, y0: f64, y1: f64) -> impl Iterator<Item = (Point2<f64>, Point2<f64>)> + '_ {
        row_range(self.base, self.rows.len(), y0, y1)
            .flat_map(move |r| self.rows[r].iter().map(move |&e| self.edge(e)))
    }

    /// Whether `p` is inside the loops by the even-odd rule: the same test, edge by edge, as
    /// [`Outline::contains`], on the edges of `p`'s row only.
    fn contains(&self, p: Point2<f64>) -> bool {
        let r = (p.y - self.base).floor();
        if !(r >= 0.0 && r < self.rows.len() as f64) {
            return false;
        }
        let mut inside = false;
        for &e in &self.rows[r as usize] {
            let (a, b) = self.edge(e);
            if crosses_ray(a, b, p) {
                inside = !inside;
            }
        }
        inside
    }
}

/// Douglas-Peucker work allowed per loop, in point-to-chord distances: this many per point
/// plus [`DP_WORK_MIN`]. The shipped sprites need under 10 per point.
const DP_WORK_PER_POINT: usize = 64;
/// See [`DP_WORK_PER_POINT`].
const DP_WORK_MIN: usize = 1 << 20;
/// Over budget, Douglas-Peucker restarts from every this many-th point kept.
const DP_CHUNK: usize = 256;

/// Which points of a closed loop Douglas-Peucker keeps: the first point, the point farthest
/// from it, and recursively every point farther than `tolerance` from its chord; at least
/// three points.
///
/// Plain Douglas-Peucker takes time up to quadratic in the loop's length (a comb: every
/// split peels off one tooth). Past [`DP_WORK_PER_POINT`] distances per point it starts
/// over with every [`DP_CHUNK`]-th point kept and simplifies between those, which bounds the
/// work by about `DP_CHUNK / 2` distances per point; the result still lies within
/// `tolerance` of the trace.
fn douglas_peucker(l: &[Point2<f64>], tolerance: f64) -> Vec<bool> {
    let n = l.len();
    let mut keep = vec![false; n];
    keep[0] = true;
    let far = (1..n)
        .max_by(|&a, &b| (l[a] - l[0]).norm().total_cmp(&(l[b] - l[0]).norm()))
        .unwrap_or(0);
    keep[far] = true;
    // Spans (start, end) over indices, `end == n` meaning point 0 again.
    let budget = DP_WORK_PER_POINT
        .saturating_mul(n)
        .saturating_add(DP_WORK_MIN);
    if !split_spans(l, tolerance, &mut keep, vec![(0, far), (far, n)], budget) {
        keep.iter_mut().for_each(|k| *k = false);
        let mut bounds: Vec<usize> = (0..n).step_by(DP_CHUNK).collect();
        bounds.iter().for_each(|&b| keep[b] = true);
        bounds.push(n);
        let spans = bounds.windows(2).map(|w| (w[0], w[1])).collect();
        split_spans(l, tolerance, &mut keep, spans, usize::MAX);
    }
    if keep.iter().filter(|&&k| k).count() < 3 {
        // A loop needs an area: add the point farthest from the chord 0-far.
        let m = [farthest(l, 0, far), farthest(l, far, n)]
            .into_iter()
            .flatten()
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((m, _)) = m {
            keep[m] = true;
        }
    }
    keep
}

/// The recursion of [`douglas_peucker`] from the spans on `stack`: keeps the farthest point
/// of every span while it is farther than `tolerance` from the span's chord. Returns false,
/// leaving `keep` partly updated, once more than `budget` distances have been computed.
fn split_spans(
    l: &[Point2<f64>],
    tolerance: f64,
    keep: &mut [bool],
    mut stack: Vec<(usize, usize)>,
    budget: usize,
) -> bool {
    let mut work = 0usize;
    while let Some((s, e)) = stack.pop() {
        work = work.saturating_add(e - s);
        if work > budget {
            return false;
        }
        if let Some((m, d)) = farthest(l, s, e) {
            if d > tolerance {
                keep[m] = true;
                stack.push((s, m));
                stack.push((m, e));
            }
        }
    }
    true
}

/// The point strictly between `s` and `e` (indices; `e` may be `l.len()`, meaning 0) farthest
/// from the chord l[s]-l[e], with its distance.
fn farthest(l: &[Point2<f64>], s: usize, e: usize) -> Option<(usize, f64)> {
    let chord = Segment::new(l[s], l[e % l.len()]);
    (s + 1..e)
        .map(|m| (m, chord.distance(&l[m])))
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// [`farthest`] for an edge of the simplified loop from kept point `start` to kept point
/// `end` (wrapping around the end of the loop); `None` for an unsimplified edge.
fn farthest_between(l: &[Point2<f64>], start: usize, end: usize) -> Option<usize> {
    let e = if end <= start { end + l.len() } else { end };
    let chord = Segment::new(l[start], l[end]);
    (start + 1..e)
        .map(|m| m % l.len())
        .max_by(|&a, &b| chord.distance(&l[a]).total_cmp(&chord.distance(&l[b])))
}

/// Side of the square tiles, pixels, that [`touching_edges`] sorts edges into.
const TILE: f64 = 16.0;

/// Edges (loop, start point, end point) of the simplified loops that touch another edge
/// anywhere except at a shared endpoint, among the pairs with an edge of a loop marked in
/// `dirty` (pairs of unchanged edges were checked before). Each edge goes to the tiles it
/// passes through, and only edges sharing a tile are compared.
fn touching_edges(
    loops: &[Vec<Point2<f64>>],
    keep: &[Vec<bool>],
    dirty: &[bool],
) -> Vec<(usize, usize, usize)> {
    let mut edges = Vec::new();
    let mut ids = Vec::new();
    for (li, (l, k)) in loops.iter().zip(keep).enumerate() {
        let idx: Vec<usize> = (0..l.len()).filter(|&i| k[i]).collect();
        for (n, &s) in idx.iter().enumerate() {
            let e = idx[(n + 1) % idx.len()];
            edges.push([l[s], l[e]]);
            ids.push((li, s, e));
        }
    }
    let mut in_tiles: Vec<((i64, i64), usize)> = Vec::new();
    for (i, e) in edges.iter().enumerate() {
        tiles_of(*e, |t| in_tiles.push((t, i)));
    }
    in_tiles.sort_unstable();
    let fresh = |i: usize| dirty[ids[i].0];
    let mut pairs = Vec::new();
    let mut local = Vec::new();
    for tile in in_tiles.chunk_by(|a, b| a.0 == b.0) {
        if tile.len() < 2 || !tile.iter().any(|&(_, i)| fresh(i)) {
            continue;
        }
        local.clear();
        local.extend(tile.iter().map(|&(_, i)| edges[i]));
        for (a, b) in touching_edge_pairs(&local, false) {
            let (i, j) = (tile[a].1, tile[b].1);
            if fresh(i) || fresh(j) {
                pairs.push((i.min(j), i.max(j)));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
        .into_iter()
        .flat_map(|(i, j)| [ids[i], ids[j]])
        .collect()
}

/// Calls `f` with every [`TILE`] the segment passes through or comes within 1e-6 px of
/// (columns `floor(x / TILE)`, rows `floor(y / TILE)`): about `length / TILE + 2` tiles.
fn tiles_of(e: [Point2<f64>; 2], mut f: impl FnMut((i64, i64))) {
    const EPS: f64 = 1e-6;
    let [a, b] = if e[0].x <= e[1].x { e } else { [e[1], e[0]] };
    // Traced coordinates lie within the image: the casts are exact.
    let tile = |v: f64| (v / TILE).floor() as i64;
    let y_at = |x: f64| {
        if b.x > a.x {
            a.y + (b.y - a.y) * ((x - a.x) / (b.x - a.x)).clamp(0.0, 1.0)
        } else {
            a.y
        }
    };
    for cx in tile(a.x - EPS)..=tile(b.x + EPS) {
        let x0 = (cx as f64 * TILE).max(a.x);
        let x1 = ((cx + 1) as f64 * TILE).min(b.x);
        let (y0, y1) = if b.x > a.x {
            (y_at(x0), y_at(x1))
        } else {
            (a.y, b.y)
        };
        for cy in tile(y0.min(y1) - EPS)..=tile(y0.max(y1) + EPS) {
            f((cx, cy));
        }
    }
}

/// A bones file: the skeleton, optional part regions and probes (see the module docs).
#[derive(Debug, Clone)]
pub struct BonesFile {
    /// The bones.
    pub skeleton: Skeleton,
    /// Part regions in order of priority; empty means one part, `body`.
    pub regions: Vec<LabelledRegion>,
    /// Probes (poses and watched vertices).
    pub probes: Vec<Probe>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BonesJson {
    bones: Vec<BoneFile>,
    #[serde(default)]
    parts: Vec<RegionJson>,
    #[serde(default)]
    probes: Vec<ProbeFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegionJson {
    part: String,
    polygon: Vec<[f64; 2]>,
}

impl BonesFile {
    /// Parses a bones file's JSON text.
    ///
    /// A probe whose `watch` lists `vertices` is an [`FormatError::InvalidField`] naming the
    /// probe: a bones file comes before the mesh (traced and meshed from the sprite), so a
    /// vertex index in it means nothing.
    pub fn from_json(text: &str) -> Result<BonesFile> {
        BonesFile::parse(text, "bones file")
    }

    /// [`BonesFile::from_json`], errors naming the file as `file`.
    fn parse(text: &str, file: &str) -> Result<BonesFile> {
        let json: BonesJson = serde_json::from_str(text).map_err(|e| {
            Error::Format(FormatError::Json {
                context: file.into(),
                message: e.to_string(),
            })
        })?;
        if let Some((i, p)) = json
            .probes
            .iter()
            .enumerate()
            .find(|(_, p)| p.watches_vertices())
        {
            return Err(Error::field(
                format!("{file}: probes[{i}] ({:?}): watch.vertices", p.name()),
                "a bones file may not list vertex indices: the mesh is traced and meshed from \
                 the sprite after it is read, so no index names a vertex yet; select the \
                 watched vertices by `part`, `below_y` or `min_distance` (docs/formats.md, \
                 bones file), or list vertices in the scene file `skinweights mesh` writes",
            ));
        }
        Ok(BonesFile {
            skeleton: skeleton_from_file(&json.bones)?,
            regions: json
                .parts
                .into_iter()
                .map(|r| LabelledRegion {
                    part: r.part,
                    polygon: r.polygon.iter().map(|&[x, y]| Point2::new(x, y)).collect(),
                })
                .collect(),
            probes: probes_from_file(json.probes),
        })
    }

    /// Reads and parses a bones file; errors name the path.
    pub fn load(path: impl AsRef<Path>) -> Result<BonesFile> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        BonesFile::parse(&text, &path.display().to_string())
    }

    /// Appends a last-priority region covering a `width` x `height` image (and 8 px around
    /// it) for the first bone's part, so an outline traced at a low alpha threshold, which
    /// reaches past the authored regions, leaves no vertex without a part. Does nothing when
    /// the first bone has no part.
    pub fn cover_rest_with_first_part(&mut self, width: f64, height: f64) {
        let Some(part) = self.skeleton.bones().first().and_then(|b| b.part.clone()) else {
            return;
        };
        self.regions.push(LabelledRegion {
            part,
            polygon: vec![
                Point2::new(-8.0, -8.0),
                Point2::new(width + 8.0, -8.0),
                Point2::new(width + 8.0, height + 8.0),
                Point2::new(-8.0, height + 8.0),
            ],
        });
    }
}

/// The size of a PNG file from its header, without decoding pixels. A missing file is an
/// [`Error::Io`], anything that is not a PNG an [`FormatError::Image`]; both name the path.
pub fn png_dimensions(path: impl AsRef<Path>) -> Result<(u32, u32)> {
    let path = path.as_ref();
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let decoder = PngDecoder::new(std::io::BufReader::new(file)).map_err(|e| {
        Error::Format(FormatError::Image {
            path: path.into(),
            message: e.to_string(),
        })
    })?;
    Ok(decoder.dimensions())
}

/// Options of [`sprite_scene`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SpriteOptions {
    /// Tracing (default [`TraceOptions::default`]: threshold 128, tolerance 0.5 px, minimum
    /// area 3 px²).
    pub trace: TraceOptions,
    /// Meshing (default [`MeshingOptions::default`]: about 10 000 vertices, minimum angle 25
    /// degrees).
    pub meshing: MeshingOptions,
    /// Scene name (default `None`: the sprite's file stem).
    pub name: Option<String>,
}

impl SpriteOptions {
    /// These options tracing with `trace`.
    pub fn with_trace(mut self, trace: TraceOptions) -> Self {
        self.trace = trace;
        self
    }

    /// These options meshing with `meshing`.
    pub fn with_meshing(mut self, meshing: MeshingOptions) -> Self {
        self.meshing = meshing;
        self
    }

    /// These options naming the scene `name` (`None`: the sprite's file stem).
    pub fn with_name(mut self, name: Option<String>) -> Self {
        self.name = name;
        self
    }
}

/// Traces `sprite`, meshes it with the bones as constraint segments, labels parts and builds
/// the scene. Returns the scene, the trace (its outline with the bone constraints as
/// segments: what was meshed) and notes: specks dropped, every bone that runs outside the
/// traced shape (its constraint is clipped to the inside; the bone itself is unchanged) and
/// every pair of bones that cross.
pub fn sprite_scene(
    sprite: &Sprite,
    bones: BonesFile,
    options: &SpriteOptions,
) -> Result<(Scene, Trace, Vec<String>)> {
    let mut trace = trace_alpha(sprite, &options.trace)?;
    // The mesher follows every kept outline point; far more points than the mesh's vertex
    // budget is noise (a 300 x 300 one-pixel checkerboard at tolerance 0 keeps 178 805, an
    // 800 x 800 random-alpha PNG 204 461: 16 s and 55 s of meshing, on a loaded machine, into
    // meshes 18 and 62 times the requested 10 000 vertices). Refuse before that work.
    let budget = (10 * options.meshing.target_vertices).max(MIN_OUTLINE_POINT_BUDGET);
    if trace.kept_points() > budget {
        return Err(FormatError::OutlineTooComplex {
            image: sprite.source.clone(),
            points: trace.kept_points(),
            loops: trace.outline.loops.len(),
            budget,
            min_budget: MIN_OUTLINE_POINT_BUDGET,
        }
        .into());
    }
    let mut notes = Vec::new();
    if trace.dropped_specks > 0 {
        notes.push(format!(
            "dropped {} island(s) or hole(s) smaller than {} square pixels",
            trace.dropped_specks, options.trace.min_area
        ));
    }
    let rows = EdgeRows::new(&trace.outline.loops);
    let mut segments = Vec::new();
    let mut owners = Vec::new();
    for bone in bones.skeleton.bones() {
        let (pieces, outside) = bone_constraints(&rows, bone.head, bone.tail);
        if outside > 0.0 {
            notes.push(format!(
                "bone {:?}: {outside:.1} of its {:.1} px run outside the traced shape; its mesh \
                 constraint is clipped to {} piece(s) inside",
                bone.name,
                (bone.tail - bone.head).norm(),
                pieces.len()
            ));
        }
        owners.extend(std::iter::repeat_n(bone.name.as_str(), pieces.len()));
        segments.extend(pieces);
    }
    for (x, y) in split_crossings(&mut segments, &mut owners) {
        notes.push(format!(
            "bones {x:?} and {y:?} cross: both mesh constraints are split at the crossing"
        ));
    }
    trace.outline.segments = segments;
    let (vertices, triangles, _) = mesh_outline(&trace.outline, &options.meshing)?;
    let mesh = if bones.regions.is_empty() {
        Mesh::new(vertices, triangles)?
    } else {
        let (parts, labels) = assign_parts(&vertices, &bones.regions)?;
        Mesh::with_parts(vertices, triangles, parts, labels)?
    };
    let name = options.name.clone().unwrap_or_else(|| sprite.stem());
    let scene = Scene::new(name, mesh, bones.skeleton, bones.probes)?;
    let art = sprite_art(sprite, &scene.mesh);
    Ok((scene.with_art(art)?, trace, notes))
}

/// The sprite as the art of its own mesh: one image (the sprite's source path, straight
/// alpha as PNG stores it), every part a layer drawn with it in the mesh's part order, and
/// texture coordinates `u = x`, `v = height - y` (the scene frame is the image's pixels, y up
/// from the bottom edge), clamped to the image.
fn sprite_art(sprite: &Sprite, mesh: &Mesh) -> Art {
    let (w, h) = (sprite.image.width() as f64, sprite.image.height() as f64);
    Art {
        images: vec![ArtImage {
            name: sprite.stem(),
            path: sprite.source.clone().into(),
            alpha: AlphaMode::Straight,
        }],
        uvs: mesh
            .vertices()
            .iter()
            // A low tracing threshold can put the outline up to half a pixel past the image
            // edge; clamping changes no sampled colour (within half a pixel of the edge,
            // clamp-to-edge sampling returns the edge texels either way).
            .map(|p| Point2::new(p.x.clamp(0.0, w), (h - p.y).clamp(0.0, h)))
            .collect(),
        layers: mesh
            .parts()
            .iter()
            .map(|part| Layer::new(part.clone(), Some(0)))
            .collect(),
    }
}

/// The mesh constraints of bone `a`-`b`: its pieces inside the outline, each end that was cut
/// at the outline pulled [`CLIP_MARGIN`] inside (pieces left shorter than the margin are
/// dropped), and the length of the bone outside the outline.
fn bone_constraints(
    outline: &EdgeRows,
    a: Point2<f64>,
    b: Point2<f64>,
) -> (Vec<[Point2<f64>; 2]>, f64) {
    let pieces = clip_to_inside(outline, a, b);
    let inside: f64 = pieces.iter().map(|p| (p[1] - p[0]).norm()).sum();
    let length = (b - a).norm();
    let outside = if length - inside > 1e-9 * length.max(1.0) {
        length - inside
    } else {
        0.0
    };
    let constraints = pieces
        .into_iter()
        .filter_map(|[p, q]| {
            let (cut_p, cut_q) = (p != a, q != b);
            if !(cut_p || cut_q) {
                return Some([p, q]); // wholly inside (a zero-length bone is just a point)
            }
            let len = (q - p).norm();
            let margin = |cut: bool| if cut { CLIP_MARGIN } else { 0.0 };
            let (mp, mq) = (margin(cut_p), margin(cut_q));
            if len <= mp + mq + CLIP_MARGIN {
                return None;
            }
            let dir = (q - p) / len;
            Some([p + dir * mp, q - dir * mq])
        })
        .collect();
    (constraints, outside)
}

/// Splits every pair of constraint segments that cross at an interior point of both at that
/// point (the mesher rejects crossing constraints; crossed limbs are legitimate rigs).
/// `owners` names each segment's bone and is split alongside. Returns the pairs of bones
/// that crossed.
fn split_crossings<'a>(
    segments: &mut Vec<[Point2<f64>; 2]>,
    owners: &mut Vec<&'a str>,
) -> Vec<(&'a str, &'a str)> {
    let mut crossed = Vec::new();
    // Each pass splits every segment at all its crossings at once, so the pieces meet only at
    // shared end points; a crossing left by rounding is split by the next pass. If any
    // remain after a few passes, the mesher reports them.
    for _ in 0..8 {
        let mut cuts: Vec<(usize, Point2<f64>)> = Vec::new();
        for (i, j) in touching_edge_pairs(segments, false) {
            if let Some(x) = Segment::new(segments[i][0], segments[i][1])
                .proper_crossing(&Segment::new(segments[j][0], segments[j][1]))
            {
                crossed.push((owners[i], owners[j]));
                cuts.push((i, x));
                cuts.push((j, x));
            }
        }
        if cuts.is_empty() {
            break;
        }
        let from_start = |&(k, x): &(usize, Point2<f64>)| (x - segments[k][0]).norm();
        cuts.sort_by(|p, q| p.0.cmp(&q.0).then(from_start(p).total_cmp(&from_start(q))));
        for cut in cuts.chunk_by(|p, q| p.0 == q.0) {
            let k = cut[0].0;
            let [a, b] = segments[k];
            let mut points = vec![a];
            points.extend(cut.iter().map(|&(_, x)| x));
            points.push(b);
            points.dedup();
            segments[k] = [points[0], points[1]];
            for w in points[1..].windows(2) {
                segments.push([w[0], w[1]]);
                owners.push(owners[k]);
            }
        }
    }
    crossed
}

/// The pieces of segment `a`-`b` inside the outline, in order from `a`. Only the outline edges
/// in the pixel rows the segment spans are looked at.
fn clip_to_inside(outline: &EdgeRows, a: Point2<f64>, b: Point2<f64>) -> Vec<[Point2<f64>; 2]> {
    let d = b - a;
    let mut ts = vec![0.0, 1.0];
    for (p, q) in outline.near(a.y, b.y) {
        let e = q - p;
        let denom = d.perp(&e);
        if denom == 0.0 {
            continue; // parallel: crossings come from the neighbouring edges
        }
        let t = (p - a).perp(&e) / denom;
        let s = (p - a).perp(&d) / denom;
        if (0.0..=1.0).contains(&s) && t > 0.0 && t < 1.0 {
            ts.push(t);
        }
    }
    ts.sort_by(f64::total_cmp);
    ts.dedup();
    let mut pieces: Vec<[f64; 2]> = Vec::new();
    for w in ts.windows(2) {
        if !outline.contains(a + d * (0.5 * (w[0] + w[1]))) {
            continue;
        }
        match pieces.last_mut() {
            Some(last) if last[1] == w[0] => last[1] = w[1],
            _ => pieces.push([w[0], w[1]]),
        }
    }
    pieces
        .into_iter()
        .map(|[t0, t1]| {
            // Keep the exact end points where the bone itself ends inside.
            let at = |t: f64| match t {
                0.0 => a,
                1.0 => b,
                t => a + d * t,
            };
            [at(t0), at(t1)]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sprite(w: u32, h: u32, opaque: impl Fn(u32, u32) -> bool) -> Sprite {
        let image = RgbaImage::from_fn(w, h, |x, y| {
            image::Rgba([0, 0, 0, if opaque(x, y) { 255 } else { 0 }])
        });
        Sprite::from_rgba(image, "test")
    }

    #[test]
    fn diagonal_pixels_are_one_island() {
        let s = sprite(6, 6, |x, y| (x == 2 && y == 2) || (x == 3 && y == 3));
        let t = trace_alpha(
            &s,
            &TraceOptions {
                min_area: 0.0,
                tolerance: 0.0,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(t.outline.loops.len(), 1);
    }

    #[test]
    fn repairs_undo_simplification_that_would_make_loops_touch() {
        // Two interleaved combs, teeth 1 px apart.
        let s = sprite(60, 40, |x, y| {
            let left = x < 6 || (y % 4 == 0 && x < 50);
            let right = x >= 54 || (y % 4 == 2 && x >= 10);
            (left || right) && (2..38).contains(&y) && (1..59).contains(&x)
        });
        let raw = AlphaGrid::new(&s.image, DEFAULT_THRESHOLD).march();
        assert_eq!(raw.len(), 2);
        let plain: Vec<Vec<bool>> = raw.iter().map(|l| douglas_peucker(l, 10.0)).collect();
        let dirty = [true, true];
        assert!(!touching_edges(&raw, &plain, &dirty).is_empty());
        let repaired = simplify_loops(&raw, 10.0);
        let all = repaired
            .iter()
            .map(|l| vec![true; l.len()])
            .collect::<Vec<_>>();
        assert!(touching_edges(&repaired, &all, &dirty).is_empty());
        assert!(repaired.iter().map(Vec::len).sum::<usize>() < raw.iter().map(Vec::len).sum());
    }

    #[test]
    fn douglas_peucker_on_a_long_comb_falls_back_to_chunks_within_tolerance() {
        // 300 teeth 2 px apart: plain Douglas-Peucker peels off one tooth per split.
        let s = sprite(600, 1204, |x, y| {
            (2..1202).contains(&y) && (x < 6 || y % 4 < 2)
        });
        let raw = AlphaGrid::new(&s.image, DEFAULT_THRESHOLD).march();
        assert_eq!(raw.len(), 1);
        let l = &raw[0];
        let n = l.len();
        assert!(n > 300_000, "{n}");
        // Over budget (64 distances per point) for plain Douglas-Peucker ...
        let mut keep = vec![false; n];
        let budget = DP_WORK_PER_POINT * n + DP_WORK_MIN;
        assert!(!split_spans(l, 0.5, &mut keep, vec![(0, n)], budget));
        // ... so every 256th point is kept, and every dropped point is within 0.5 px of the
        // chord that replaces it.
        let keep = douglas_peucker(l, 0.5);
        assert!((0..n).step_by(DP_CHUNK).all(|i| keep[i]));
        let kept: Vec<usize> = (0..n).filter(|&i| keep[i]).collect();
        assert!(kept.len() < n / 50, "{} of {n}", kept.len());
        for (k, &s) in kept.iter().enumerate() {
            let e = kept.get(k + 1).copied().unwrap_or(n);
            if let Some((m, d)) = farthest(l, s, e) {
                assert!(d <= 0.5, "point {m}: {d}");
            }
        }
    }

    #[test]
    fn crossing_bones_are_split_and_meshed() {
        let s = sprite(20, 20, |_, _| true);
        let bones = BonesFile::from_json(
            r#"{"bones": [{"name": "a", "parent": null, "head": [2, 2], "tail": [18, 18]},
                          {"name": "b", "parent": null, "head": [2, 18], "tail": [18, 2]}]}"#,
        )
        .unwrap();
        let (scene, _, notes) = sprite_scene(&s, bones, &SpriteOptions::default()).unwrap();
        scene.sanity_check().unwrap();
        assert!(
            notes
                .iter()
                .any(|n| n.contains(r#"bones "a" and "b" cross"#)),
            "{notes:?}"
        );
        // The crossing point is a mesh vertex.
        assert!(scene
            .mesh
            .vertices()
            .iter()
            .any(|p| (p - Point2::new(10.0, 10.0)).norm() < 1e-9));
    }

    #[test]
    fn clipping_keeps_inside_pieces() {
        let sq = |x0: f64, x1: f64| {
            vec![
                Point2::new(x0, 0.0),
                Point2::new(x1, 0.0),
                Point2::new(x1, 10.0),
                Point2::new(x0, 10.0),
            ]
        };
        let loops = vec![sq(0.0, 10.0), sq(20.0, 30.0)];
        let outline = EdgeRows::new(&loops);
        let pieces = clip_to_inside(&outline, Point2::new(5.0, 5.0), Point2::new(35.0, 5.0));
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[0], [Point2::new(5.0, 5.0), Point2::new(10.0, 5.0)]);
        assert_eq!(pieces[1], [Point2::new(20.0, 5.0), Point2::new(30.0, 5.0)]);
    }
}
