//! The fringe metric's gap G restricted to each seam of [`crate::seams::measure`]: the
//! render's coverage (triangulation matting, [`crate::render::coverage`]) against what should
//! be covered there (the layers plus the open region).

use crate::error::{ArtError, Error, OutputError, Result};
use crate::mesh::triangle_grid::TriangleGrid;
use crate::render::{coverage, coverage_16, Frame, MattingRenders, Texture};
use crate::scene::Scene;
use crate::seams::measure::{
    check_positions, chord_quads, coverage_grid, posed_chords, Chords, Seam,
};
use nalgebra::Point2;

/// Gap G at one seam.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeamPixelGap {
    /// `1 - min a` over the seam's pixels that should be covered (0 when there are none).
    pub gap: f64,
    /// Pixels measured: within `SEAM_BAND_PX` (1.5 px) of the seam, and covered (with all 8
    /// neighbours) by the layers plus the open region.
    pub pixels: usize,
}

/// How far from the posed seam (chords and open region) a pixel still belongs to it,
/// output pixels.
pub const SEAM_BAND_PX: f64 = 1.5;
/// Reference samples per pixel side.
const REFERENCE_SAMPLES: usize = 4;

/// Gap G per seam for a render of the scene posed at `posed` into `frame`, given as its
/// matting renders ([`crate::render::matting_renders`]: the render under test over black
/// and white, and the premultiplied 8 x 8 reference).
///
/// The reference is what should be covered: a pixel should be covered when all its 4 x 4
/// sample points lie in a posed triangle or in the seam's open region (the quads between
/// the chords), and either some of them lie in the open region or the reference render
/// covers it fully (so the art's own antialiased silhouette, where the seam meets the
/// outline, does not count as a gap). A pixel counts when it and its 8 neighbours should be
/// covered and it lies within `SEAM_BAND_PX` (1.5 px) of the seam. A crack, a sub-pixel gap between
/// edges that are rasterized apart, or two translucent edges on top of each other all leave
/// `a < 1` there. Errors: renders of different sizes or not the frame's, positions that do
/// not match the mesh.
pub fn seam_pixel_gaps(
    scene: &Scene,
    seams: &[Seam],
    posed: &[Point2<f64>],
    frame: &Frame,
    renders: &MattingRenders,
) -> Result<Vec<SeamPixelGap>> {
    gaps(scene, seams, posed, frame, renders, None)
}

/// [`seam_pixel_gaps`] for a scene drawn with `textures` (its art's images, in order): the
/// open region counts only between seam points where both layers' art is opaque at rest
/// (texture alpha at least [`OPAQUE_ALPHA`] at the seam point and at its partner). Meshes
/// of real art run a few px into the images' transparent margins; an opening between two
/// transparent margins shows the background as the art does at rest, so it is no crack.
/// Errors: those of [`seam_pixel_gaps`]; textures that do not match the art.
pub fn seam_pixel_gaps_in_art(
    scene: &Scene,
    seams: &[Seam],
    posed: &[Point2<f64>],
    frame: &Frame,
    renders: &MattingRenders,
    textures: &[Texture],
) -> Result<Vec<SeamPixelGap>> {
    let art = scene.art.as_ref().ok_or_else(|| {
        Error::Art(ArtError::NoArt {
            scene: scene.name.clone(),
        })
    })?;
    crate::render::check_uvs(&scene.mesh, art, textures)?;
    gaps(scene, seams, posed, frame, renders, Some(textures))
}

/// Texture alpha (0-1) from which a seam point counts as drawn art.
pub const OPAQUE_ALPHA: f64 = 0.5;

/// Whether the art is opaque at rest at every seam sample and its partner, per edge and
/// sample (see [`seam_pixel_gaps_in_art`]).
fn opaque_samples(scene: &Scene, seam: &Seam, textures: &[Texture]) -> Vec<Vec<bool>> {
    let Some(art) = &scene.art else {
        return seam
            .edges
            .iter()
            .map(|e| vec![true; e.samples.len()])
            .collect();
    };
    let mesh = &scene.mesh;
    let layer_of_part = art.layer_of_part(mesh.parts());
    let image_of = |v: usize| {
        art.layers
            .get(layer_of_part[mesh.vertex_parts()[v]])
            .and_then(|l| l.image)
            .and_then(|i| textures.get(i))
    };
    let opaque_at = |v: usize, uv: Point2<f64>| {
        image_of(v).is_none_or(|t| alpha_at(&t.image, uv) >= OPAQUE_ALPHA)
    };
    let tris = mesh.triangles();
    seam.edges
        .iter()
        .map(|e| {
            let [a, b] = e.ends;
            e.samples
                .iter()
                .map(|&(t, partner)| {
                    let here = art.uvs[a] + (art.uvs[b] - art.uvs[a]) * t;
                    let there = partner.map(|p| {
                        let c = tris[p.triangle];
                        let mut uv = Point2::origin();
                        for (&v, &l) in c.iter().zip(&p.bary) {
                            uv += art.uvs[v].coords * l;
                        }
                        (c[0], uv)
                    });
                    opaque_at(a, here) && there.is_some_and(|(v, uv)| opaque_at(v, uv))
                })
                .collect()
        })
        .collect()
}

/// Bilinear alpha (0-1) of `image` at texture coordinate `uv` (pixels, clamp to edge).
fn alpha_at(image: &image::RgbaImage, uv: Point2<f64>) -> f64 {
    let (w, h) = (image.width() as i64, image.height() as i64);
    let (x, y) = (uv.x - 0.5, uv.y - 0.5);
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let texel = |i: i64, j: i64| {
        let (i, j) = (i.clamp(0, w - 1), j.clamp(0, h - 1));
        image.get_pixel(i as u32, j as u32)[3] as f64 / 255.0
    };
    let (i, j) = (x0 as i64, y0 as i64);
    (texel(i, j) * (1.0 - fx) + texel(i + 1, j) * fx) * (1.0 - fy)
        + (texel(i, j + 1) * (1.0 - fx) + texel(i + 1, j + 1) * fx) * fy
}

fn gaps(
    scene: &Scene,
    seams: &[Seam],
    posed: &[Point2<f64>],
    frame: &Frame,
    renders: &MattingRenders,
    textures: Option<&[Texture]>,
) -> Result<Vec<SeamPixelGap>> {
    check_positions(scene, posed)?;
    check_render_sizes(frame, renders)?;
    let to_px = |p: Point2<f64>| frame.to_pixels(p);
    let pixels = PixelMaps {
        a: coverage(&renders.black, &renders.white),
        a_ref: coverage_16(&renders.ref_black, &renders.ref_white),
        cover: coverage_grid(scene, posed, to_px, 0.0),
        w: frame.width as i64,
        h: frame.height as i64,
    };
    Ok(seams
        .iter()
        .map(|seam| {
            let opaque = textures.map(|t| opaque_samples(scene, seam, t));
            // A chord between transparent art drops its partner: no open region there.
            let chords: Chords = posed_chords(scene, seam, posed)
                .into_iter()
                .enumerate()
                .map(|(i, e)| {
                    e.into_iter()
                        .enumerate()
                        .map(|(k, (x, y))| {
                            let keep = opaque.as_ref().is_none_or(|o| o[i][k]);
                            (to_px(x), y.filter(|_| keep).map(to_px))
                        })
                        .collect()
                })
                .collect();
            pixels.seam_gap(&chords)
        })
        .collect())
}

/// Every render of `renders` must be the frame's size.
fn check_render_sizes(frame: &Frame, renders: &MattingRenders) -> Result<()> {
    for (name, dimensions) in [
        ("black", renders.black.dimensions()),
        ("white", renders.white.dimensions()),
        ("ref_black", renders.ref_black.dimensions()),
        ("ref_white", renders.ref_white.dimensions()),
    ] {
        if dimensions != (frame.width, frame.height) {
            return Err(OutputError::RenderSize {
                render: name,
                got: dimensions,
                frame: (frame.width, frame.height),
            }
            .into());
        }
    }
    Ok(())
}

/// The per-pixel maps every seam is measured on (output pixels).
struct PixelMaps {
    /// Coverage of the render under test.
    a: Vec<f64>,
    /// Coverage of the reference render.
    a_ref: Vec<f64>,
    /// The posed triangles.
    cover: TriangleGrid,
    w: i64,
    h: i64,
}

/// The pixels around a seam: `[x0, x1) x [y0, y1)`, and the size of the reference window
/// (one more pixel all round).
struct Window {
    x0: i64,
    x1: i64,
    y0: i64,
    y1: i64,
    ww: usize,
    wh: usize,
}

impl PixelMaps {
    /// Gap G at the seam whose posed chords (pixels) are `chords`.
    fn seam_gap(&self, chords: &Chords) -> SeamPixelGap {
        let quads = chord_quads(chords);
        let region = TriangleGrid::new(quads.iter().copied().enumerate().collect(), 0.0);
        let segments = seam_segments(chords);
        if segments.is_empty() {
            return SeamPixelGap {
                gap: 0.0,
                pixels: 0,
            };
        }
        let band = TriangleGrid::new(
            segments
                .iter()
                .enumerate()
                .map(|(i, s)| (i, [s[0], s[1], s[1]]))
                .collect(),
            SEAM_BAND_PX,
        );
        let win = self.window(&segments);
        let full = self.should_cover(&win, &region);
        let mut min_a: f64 = 1.0;
        let mut pixels = 0;
        for py in win.y0..win.y1 {
            for px in win.x0..win.x1 {
                let centre = Point2::new(px as f64 + 0.5, py as f64 + 0.5);
                let near =
                    band.closest(centre, SEAM_BAND_PX, |_| true).is_some() || region.covers(centre);
                let (i, j) = ((px - win.x0 + 1) as usize, (py - win.y0 + 1) as usize);
                let inside =
                    (0..3).all(|dy| (0..3).all(|dx| full[(j + dy - 1) * win.ww + i + dx - 1]));
                if near && inside {
                    pixels += 1;
                    min_a = min_a.min(self.a[(py * self.w + px) as usize]);
                }
            }
        }
        SeamPixelGap {
            gap: 1.0 - min_a,
            pixels,
        }
    }

    /// The pixels within the band of the seam's `segments` (clamped to the frame).
    fn window(&self, segments: &[[Point2<f64>; 2]]) -> Window {
        let mut lo = Point2::new(f64::INFINITY, f64::INFINITY);
        let mut hi = Point2::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
        for s in segments {
            for p in s {
                lo = lo.inf(p);
                hi = hi.sup(p);
            }
        }
        let (w, h) = (self.w, self.h);
        let pad = SEAM_BAND_PX.ceil() as i64 + 1;
        let x0 = (lo.x.floor() as i64 - pad).clamp(0, w);
        let x1 = (hi.x.ceil() as i64 + pad).clamp(0, w);
        let y0 = (lo.y.floor() as i64 - pad).clamp(0, h);
        let y1 = (hi.y.ceil() as i64 + pad).clamp(0, h);
        Window {
            x0,
            x1,
            y0,
            y1,
            ww: (x1 - x0 + 2).max(0) as usize,
            wh: (y1 - y0 + 2).max(0) as usize,
        }
    }

    /// The reference: whether each pixel of the window plus a 1-pixel ring should be
    /// covered (row-major, `ww` a row): all its sample points in a posed triangle or the
    /// open `region`, and some in the region or the reference render covering it fully.
    fn should_cover(&self, win: &Window, region: &TriangleGrid) -> Vec<bool> {
        let (w, h) = (self.w, self.h);
        (0..win.ww * win.wh)
            .map(|k| {
                let (px, py) = (
                    (k % win.ww) as i64 + win.x0 - 1,
                    (k / win.ww) as i64 + win.y0 - 1,
                );
                let n = REFERENCE_SAMPLES as f64;
                let mut open = false;
                let covered = (0..REFERENCE_SAMPLES * REFERENCE_SAMPLES).all(|s| {
                    let p = Point2::new(
                        px as f64 + ((s % REFERENCE_SAMPLES) as f64 + 0.5) / n,
                        py as f64 + ((s / REFERENCE_SAMPLES) as f64 + 0.5) / n,
                    );
                    let in_region = region.covers(p);
                    open |= in_region;
                    in_region || self.cover.covers(p)
                });
                let art_opaque = px >= 0
                    && py >= 0
                    && px < w
                    && py < h
                    && self.a_ref[(py * w + px) as usize] >= 1.0;
                covered && (open || art_opaque)
            })
            .collect()
    }
}

/// The seam as segments: its chords and both posed seam curves.
fn seam_segments(chords: &Chords) -> Vec<[Point2<f64>; 2]> {
    let mut segments: Vec<[Point2<f64>; 2]> = Vec::new();
    for edge in chords {
        for (i, &(x, y)) in edge.iter().enumerate() {
            if let Some(y) = y {
                segments.push([x, y]);
            }
            if let Some(&(x2, y2)) = edge.get(i + 1) {
                segments.push([x, x2]);
                if let (Some(y), Some(y2)) = (y, y2) {
                    segments.push([y, y2]);
                }
            }
        }
    }
    segments
}
