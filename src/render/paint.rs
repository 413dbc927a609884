//! Painted art for a layered scene that comes without pixels (the built-in scenes are
//! model-only): one image per layer, so seams and fringes can be rendered (feature `io`).
//!
//! Each part gets its own image covering its rest outline plus a margin, one texel per px,
//! texture coordinates = rest position shifted into the image. A texel's alpha is the share
//! of its 4 x 4 sample points inside the painted shape: the part's triangles, and, where
//! the part lies over or against another layer, up to [`PaintOptions::beyond`] px past its
//! own contour (artists paint a layer on under its neighbour, which is what gives an
//! overlap repair art to show). The contour falls half-way across texels, so silhouettes
//! are antialiased the way exported art is. Texels outside the shape are fully transparent
//! with the RGB of [`PaintOptions::transparent`]: the "dirty" transparent colour that
//! bilinear filtering pulls into straight-alpha edges.

use crate::error::{ArtError, Result, SeamError};
use crate::render::Texture;
use crate::scene::{AlphaMode, Art, ArtImage, Layer, Scene};
use crate::seams::measure::TriangleGrid;
use image::{Rgba, RgbaImage};
use nalgebra::Point2;
use std::path::Path;

/// Settings of [`paint_layers`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PaintOptions {
    /// RGB of the fully transparent texels (default [`Self::DEFAULT_TRANSPARENT`], white,
    /// the "white dots").
    pub transparent: [u8; 3],
    /// How far past its own contour a layer is painted where it lies over or against
    /// another layer, px (default [`Self::DEFAULT_BEYOND`], 4).
    pub beyond: f64,
    /// Transparent texels around each layer's outline (default [`Self::DEFAULT_MARGIN`], 8).
    pub margin: u32,
}

impl PaintOptions {
    /// Default [`Self::transparent`]: white.
    pub const DEFAULT_TRANSPARENT: [u8; 3] = [255, 255, 255];
    /// Default [`Self::beyond`]: 4 px.
    pub const DEFAULT_BEYOND: f64 = 4.0;
    /// Default [`Self::margin`]: 8 texels.
    pub const DEFAULT_MARGIN: u32 = 8;

    /// These options with the RGB `transparent` for the fully transparent texels.
    pub fn with_transparent(mut self, transparent: [u8; 3]) -> Self {
        self.transparent = transparent;
        self
    }
}

impl Default for PaintOptions {
    fn default() -> Self {
        PaintOptions {
            transparent: Self::DEFAULT_TRANSPARENT,
            beyond: Self::DEFAULT_BEYOND,
            margin: Self::DEFAULT_MARGIN,
        }
    }
}

/// Base colours of the layers, cycled by part index.
const LAYER_COLOURS: [[f64; 3]; 4] = [
    [214.0, 142.0, 98.0],
    [92.0, 150.0, 212.0],
    [118.0, 186.0, 96.0],
    [200.0, 110.0, 170.0],
];
/// Stripe period of the painted pattern, px.
const STRIPE: f64 = 10.0;
/// Sample points per texel side for the alpha.
const ALPHA_SAMPLES: usize = 4;

/// The colour painted at rest position `p` of part `part`: the part's colour, darker on
/// stripes across x and lighter with y, so bends and stretches show.
fn pattern(part: usize, p: Point2<f64>) -> [u8; 3] {
    let base = LAYER_COLOURS[part % LAYER_COLOURS.len()];
    let stripe = if (p.x / STRIPE).floor().rem_euclid(2.0) == 0.0 {
        0.82
    } else {
        1.0
    };
    let shade = 1.0 + 0.004 * p.y;
    base.map(|c| (c * stripe * shade).clamp(0.0, 255.0).round() as u8)
}

/// Where a part's image sits in rest space: texel (u, v) <-> rest position
/// (`lo.x - margin + u`, `hi.y + margin - v`), so image rows run down while y runs up.
struct PartFrame {
    /// Lower-left corner of the part's rest bounding box.
    lo: Point2<f64>,
    /// Upper-right corner of the part's rest bounding box.
    hi: Point2<f64>,
    /// Transparent texels around the box (plus half a texel, so the contour falls half-way
    /// across texels).
    margin: f64,
}

impl PartFrame {
    /// The frame around `members` (the origin for a part without vertices).
    fn around(points: &[Point2<f64>], members: &[usize], margin: f64) -> Self {
        let (mut lo, mut hi) = (
            Point2::new(f64::INFINITY, f64::INFINITY),
            Point2::new(f64::NEG_INFINITY, f64::NEG_INFINITY),
        );
        for &v in members {
            lo = lo.inf(&points[v]);
            hi = hi.sup(&points[v]);
        }
        if members.is_empty() {
            (lo, hi) = (Point2::origin(), Point2::origin());
        }
        PartFrame { lo, hi, margin }
    }

    /// Image width and height in texels (not yet checked against the size limit).
    fn size(&self) -> (f64, f64) {
        (
            (self.hi.x - self.lo.x + 2.0 * self.margin).ceil(),
            (self.hi.y - self.lo.y + 2.0 * self.margin).ceil(),
        )
    }

    /// The rest position of image point (u, v).
    fn to_rest(&self, u: f64, v: f64) -> Point2<f64> {
        Point2::new(self.lo.x - self.margin + u, self.hi.y + self.margin - v)
    }

    /// The texture coordinate of rest position `p`.
    fn uv(&self, p: Point2<f64>) -> Point2<f64> {
        Point2::new(p.x - self.lo.x + self.margin, self.hi.y + self.margin - p.y)
    }
}

/// The image of part `part` in `frame`: alpha is the share of each texel's sample points
/// for which `painted` holds; colour is [`pattern`] where any does, else `transparent`.
fn paint_part_image(
    part: usize,
    frame: &PartFrame,
    (width, height): (u32, u32),
    transparent: [u8; 3],
    painted: impl Fn(Point2<f64>) -> bool,
) -> RgbaImage {
    let [tr, tg, tb] = transparent;
    let n = ALPHA_SAMPLES as f64;
    RgbaImage::from_fn(width, height, |u, v| {
        let inside = (0..ALPHA_SAMPLES * ALPHA_SAMPLES)
            .filter(|s| {
                let (i, j) = ((s % ALPHA_SAMPLES) as f64, (s / ALPHA_SAMPLES) as f64);
                painted(frame.to_rest(u as f64 + (i + 0.5) / n, v as f64 + (j + 0.5) / n))
            })
            .count();
        if inside == 0 {
            return Rgba([tr, tg, tb, 0]);
        }
        let alpha = (255.0 * inside as f64 / (n * n)).round() as u8;
        let [r, g, b] = pattern(part, frame.to_rest(u as f64 + 0.5, v as f64 + 0.5));
        Rgba([r, g, b, alpha])
    })
}

/// The errors of [`paint_layers`] that do not depend on the part being painted.
fn check_paint_input(scene: &Scene, options: &PaintOptions) -> Result<()> {
    if scene.art.is_some() {
        return Err(ArtError::HasArt {
            scene: scene.name.clone(),
        }
        .into());
    }
    if !(options.beyond.is_finite() && options.beyond >= 0.0) {
        return Err(SeamError::InvalidAmount {
            option: "beyond".into(),
            value: options.beyond,
            expected: "finite and >= 0",
        }
        .into());
    }
    Ok(())
}

/// `scene` with painted art: one straight-alpha PNG per part named `<stem>_<part>.png`
/// (e.g. stem `out/elbow` gives `out/elbow_upper.png`; not written: the images come back as textures, in art
/// order), layers drawn in part order. Errors: a scene that already has art, a `beyond`
/// that is negative or not finite, an image over 16384 texels a side.
pub fn paint_layers(
    scene: &Scene,
    stem: &Path,
    options: &PaintOptions,
) -> Result<(Scene, Vec<Texture>)> {
    check_paint_input(scene, options)?;
    let mesh = &scene.mesh;
    let points = mesh.vertices();
    let layers = scene.triangle_parts();
    let grid = TriangleGrid::new(
        mesh.triangles()
            .iter()
            .enumerate()
            .map(|(t, tri)| (t, tri.map(|v| points[v])))
            .collect(),
        options.beyond,
    );
    let mut uvs = vec![Point2::origin(); mesh.vertex_count()];
    let (mut images, mut textures) = (Vec::new(), Vec::new());
    for (part, name) in mesh.parts().iter().enumerate() {
        let members: Vec<usize> = (0..mesh.vertex_count())
            .filter(|&v| mesh.vertex_parts()[v] == part)
            .collect();
        let frame = PartFrame::around(points, &members, options.margin as f64 + 0.5);
        let (width, height) = frame.size();
        if width > 16_384.0 || height > 16_384.0 {
            return Err(ArtError::LayerTooLarge {
                part,
                name: name.to_string(),
                width,
                height,
                max: 16_384,
            }
            .into());
        }
        for &v in &members {
            uvs[v] = frame.uv(points[v]);
        }
        // Inside the part's own triangles, or over / against another layer and within
        // `beyond` of this part.
        let painted = |p: Point2<f64>| {
            grid.closest(p, 0.0, |t| layers[t] == part).is_some()
                || (grid.closest(p, 0.0, |t| layers[t] != part).is_some()
                    && grid
                        .closest(p, options.beyond, |t| layers[t] == part)
                        .is_some())
        };
        let size = (width as u32, height as u32);
        let image = paint_part_image(part, &frame, size, options.transparent, painted);
        let file = std::path::PathBuf::from(format!("{}_{name}.png", stem.display()));
        textures.push(Texture::new(
            file.to_string_lossy(),
            image,
            AlphaMode::Straight,
        ));
        images.push(ArtImage {
            name: name.clone(),
            path: file,
            alpha: AlphaMode::Straight,
        });
    }
    let art = Art {
        images,
        uvs,
        layers: mesh
            .parts()
            .iter()
            .enumerate()
            .map(|(i, p)| Layer::new(p.clone(), Some(i)))
            .collect(),
    };
    Ok((scene.clone().with_art(art)?, textures))
}
