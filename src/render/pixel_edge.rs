//! The pixel-edge check: "render over black, white and red at 1x, 2x and 4x; pass: no
//! fixed-colour bright or dark fringe", measured with the fringe metric.

use super::fringe::{fringe_excluding, Fringe, Matting};
use super::overlap::overlap_mask;
use super::raster::{
    render_16_over_where, render_over, Drawing, Frame, RenderOptions, Rgb16Image, View,
};
use super::texture::Texture;
use super::{posed_vertices, Skinning};
use crate::error::{ArtError, Error, OutputError, Result};
use crate::lint::PixelEdgeMeasure;
use crate::scene::{AlphaMode, Scene};
use crate::skeleton::Pose;
use crate::weights::Weights;
use image::RgbImage;
use nalgebra::Vector2;

/// Samples per pixel side of the reference render.
pub const REFERENCE_SAMPLES: u32 = 8;

/// Samples per pixel side of the renders the pixel-edge check measures (and `render`'s
/// default, so the numbers it prints are the check's). Four, not the renderer's default two:
/// where a dark outline meets the lit interior at a silhouette the colour under one edge
/// pixel changes by 40-90 levels, and F compares the test's sample mean with the 8 x 8
/// reference's. At 2 x 2 that sampling difference alone reaches F = 7-11 at 4x in
/// `pixel_edge`'s probe poses (premultiplied, S = 0.00); at 4 x 4 it is 3.1 or less at 2x and
/// 4x, so an F above 4 points at the alpha pipeline again, not at the sample pattern.
pub const PIXEL_EDGE_SAMPLES: u32 = 4;

/// The renders of one pose in one frame that the fringe metric reads.
#[derive(Debug, Clone)]
pub struct MattingRenders {
    /// The render under test over black, white and red.
    pub black: RgbImage,
    /// Over white.
    pub white: RgbImage,
    /// Over red.
    pub red: RgbImage,
    /// The reference (premultiplied, 8 x 8 samples, 16 bits a channel) over black.
    pub ref_black: Rgb16Image,
    /// The reference over white.
    pub ref_white: Rgb16Image,
    /// Pixels where the drawn mesh overlaps itself ([`overlap_mask`]): left out of F.
    pub overlap: Vec<bool>,
}

impl MattingRenders {
    /// The fringe metric of these renders, red check included, F outside the overlap.
    pub fn fringe(&self) -> Result<Fringe> {
        fringe_excluding(
            &Matting {
                black: &self.black,
                white: &self.white,
                ref_black: &self.ref_black,
                ref_white: &self.ref_white,
                red: Some(&self.red),
            },
            Some(&self.overlap),
        )
    }
}

/// Where the fringe metric reads the reference: the pixels the render under test covers in
/// part (`0 < a < 1`, its edge band) and their 8 neighbours (the opaque-interior test's
/// reach). Everywhere else the render is fully clear or fully opaque.
fn reference_read(black: &RgbImage, white: &RgbImage) -> Vec<bool> {
    let (w, h) = (black.width() as usize, black.height() as usize);
    let partial: Vec<bool> = black
        .as_raw()
        .chunks_exact(3)
        .zip(white.as_raw().chunks_exact(3))
        .map(|(k, w)| {
            let diff: i32 = (0..3).map(|c| i32::from(w[c]) - i32::from(k[c])).sum();
            diff > 0 && diff < 3 * 255
        })
        .collect();
    super::mask::dilate_one_pixel(&partial, w, h)
}

/// Renders `drawing` in `frame` over black, white and red with `options` (its background is
/// ignored), and the premultiplied 8 x 8 reference over black and white (16 bits a channel)
/// where the fringe metric reads it: at the render's edge band and one pixel around it
/// (`0 < a < 1`). Elsewhere the render is fully clear or fully opaque, and the reference
/// holds the render's own colours (scaled to 16 bits), which give it the same coverage, 0 or
/// 1, so the metric's band and opaque interior are the reference's there too.
pub fn matting_renders(
    drawing: &Drawing,
    frame: &Frame,
    options: &RenderOptions,
) -> Result<MattingRenders> {
    let [black, white, red] = render_over(
        drawing,
        frame,
        options,
        [[0, 0, 0], [255, 255, 255], [255, 0, 0]],
    )?;
    let reference = RenderOptions {
        samples: REFERENCE_SAMPLES,
        ..RenderOptions::default()
    }
    .with_alpha(AlphaMode::Premultiplied);
    let read = reference_read(&black, &white);
    let [mut ref_black, mut ref_white] = render_16_over_where(
        drawing,
        frame,
        &reference,
        [[0, 0, 0], [255, 255, 255]],
        Some(&read),
    )?;
    for (i, _) in read.iter().enumerate().filter(|(_, &r)| !r) {
        for c in 3 * i..3 * i + 3 {
            ref_black.as_mut()[c] = u16::from(black.as_raw()[c]) * 257;
            ref_white.as_mut()[c] = u16::from(white.as_raw()[c]) * 257;
        }
    }
    let overlap = overlap_mask(drawing.mesh, drawing.positions, frame);
    Ok(MattingRenders {
        overlap,
        black,
        white,
        red,
        ref_black,
        ref_white,
    })
}

/// Settings of [`pixel_edge`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PixelEdgeOptions {
    /// Output scales in pixels per texel (default [`Self::DEFAULT_SCALES`], 1, 2, 4): at 1x
    /// one texel of the art covers one pixel, whatever size the scene draws its images at.
    pub scales: Vec<f64>,
    /// Texels per scene unit of the art, so that scale `s` draws the scene at
    /// `s · texels_per_unit` pixels per unit (default [`Self::DEFAULT_TEXELS_PER_UNIT`], 1,
    /// a sprite's; see [`PixelEdgeOptions::for_scene`], which takes
    /// [`crate::scene::Art::texels_per_unit`]).
    pub texels_per_unit: f64,
    /// Rotation of the picture, degrees (default [`Self::DEFAULT_ROTATION_DEG`], 17: a
    /// pixel-aligned render hides fringes).
    pub rotation_deg: f64,
    /// Sub-pixel offset, pixels (default [`Self::DEFAULT_OFFSET`], (0.37, 0.21)).
    pub offset: Vector2<f64>,
    /// How the art is drawn (default: [`PIXEL_EDGE_SAMPLES`] = 4 x 4 samples, the images'
    /// stored alpha mode for both texture and blend; see [`PixelEdgeOptions::for_scene`]).
    pub render: RenderOptions,
    /// Skinning (default [`Self::DEFAULT_SKINNING`], LBS).
    pub skinning: Skinning,
    /// Pass limit on |S|, 8-bit units (default [`Self::DEFAULT_MAX_BIAS`], 1).
    pub max_bias: f64,
    /// Pass limit on G (default [`Self::DEFAULT_MAX_GAP`], 2/255).
    pub max_gap: f64,
    /// Pass limit on the red check, 8-bit units (default [`Self::DEFAULT_MAX_RED_ERROR`], 3:
    /// rounding of three renders).
    pub max_red_error: f64,
}

impl Default for PixelEdgeOptions {
    fn default() -> Self {
        PixelEdgeOptions {
            scales: Self::DEFAULT_SCALES.to_vec(),
            texels_per_unit: Self::DEFAULT_TEXELS_PER_UNIT,
            rotation_deg: Self::DEFAULT_ROTATION_DEG,
            offset: Self::DEFAULT_OFFSET,
            render: RenderOptions {
                samples: PIXEL_EDGE_SAMPLES,
                ..RenderOptions::default()
            },
            skinning: Self::DEFAULT_SKINNING,
            max_bias: Self::DEFAULT_MAX_BIAS,
            max_gap: Self::DEFAULT_MAX_GAP,
            max_red_error: Self::DEFAULT_MAX_RED_ERROR,
        }
    }
}

impl PixelEdgeOptions {
    /// Default [`Self::scales`]: 1, 2 and 4 pixels per texel.
    pub const DEFAULT_SCALES: [f64; 3] = [1.0, 2.0, 4.0];
    /// Default [`Self::texels_per_unit`]: 1, a sprite's.
    pub const DEFAULT_TEXELS_PER_UNIT: f64 = 1.0;
    /// Default [`Self::rotation_deg`]: 17 degrees.
    pub const DEFAULT_ROTATION_DEG: f64 = 17.0;
    /// Default [`Self::offset`]: (0.37, 0.21) px.
    pub const DEFAULT_OFFSET: Vector2<f64> = Vector2::new(0.37, 0.21);
    /// Default [`Self::skinning`]: LBS.
    pub const DEFAULT_SKINNING: Skinning = Skinning::Lbs;
    /// Default [`Self::max_bias`]: 1 (8-bit units).
    pub const DEFAULT_MAX_BIAS: f64 = 1.0;
    /// Default [`Self::max_gap`]: 2/255.
    pub const DEFAULT_MAX_GAP: f64 = 2.0 / 255.0;
    /// Default [`Self::max_red_error`]: 3 (8-bit units).
    pub const DEFAULT_MAX_RED_ERROR: f64 = 3.0;

    /// These options with output scales `scales` (pixels per texel).
    pub fn with_scales(mut self, scales: Vec<f64>) -> Self {
        self.scales = scales;
        self
    }

    /// These options with the picture rotated by `rotation_deg` degrees.
    pub fn with_rotation_deg(mut self, rotation_deg: f64) -> Self {
        self.rotation_deg = rotation_deg;
        self
    }

    /// These options with the sub-pixel offset `offset`, pixels.
    pub fn with_offset(mut self, offset: Vector2<f64>) -> Self {
        self.offset = offset;
        self
    }

    /// These options drawing the art with `render`.
    pub fn with_render(mut self, render: RenderOptions) -> Self {
        self.render = render;
        self
    }

    /// The defaults, drawing the art as it declares itself: texture and blend in the first
    /// image's stored alpha mode, scales counted in the art's own texels
    /// ([`crate::scene::Art::texels_per_unit`]: a Spine atlas packed at half size is checked
    /// at 1, 2 and 4 pixels per texel, not per scene unit).
    pub fn for_scene(scene: &Scene) -> Self {
        let art = scene.art.as_ref();
        let mode = art
            .and_then(|a| a.images.first())
            .map_or(AlphaMode::Straight, |i| i.alpha);
        let defaults = PixelEdgeOptions::default();
        PixelEdgeOptions {
            render: defaults.render.with_alpha(mode),
            texels_per_unit: art
                .and_then(|a| a.texels_per_unit(&scene.mesh))
                .unwrap_or(defaults.texels_per_unit),
            ..defaults
        }
    }
}

/// One pose at one scale.
#[derive(Debug, Clone)]
pub struct PixelEdgeRow {
    /// `rest` or the probe's name.
    pub pose: String,
    /// Output scale.
    pub scale: f64,
    /// The fringe numbers.
    pub fringe: Fringe,
    /// Whether |S|, G and the red check are within the limits.
    pub pass: bool,
}

impl PixelEdgeRow {
    /// The numbers the lint table's pixel-edge row shows ([`crate::lint::pixel_edge_checks`]).
    pub fn lint_measure(&self) -> PixelEdgeMeasure {
        let f = &self.fringe;
        PixelEdgeMeasure {
            pose: self.pose.clone(),
            scale: self.scale,
            bias: f.bias,
            max: f.max,
            p99: f.p99,
            gap: f.gap,
            red_error: f.red_error,
            pass: self.pass,
        }
    }
}

/// Runs the pixel-edge check on a scene with art: the rest pose and every probe, at every
/// scale, drawing one attachment per slot as `render` does, each over black, white and red (the red render checks the blend), against the
/// premultiplied 8 x 8 reference. Errors: a scene without art, textures that do not match
/// it, renders over the size limits.
pub fn pixel_edge(
    scene: &Scene,
    weights: &Weights,
    textures: &[Texture],
    options: &PixelEdgeOptions,
) -> Result<Vec<PixelEdgeRow>> {
    let art = scene.art.as_ref().ok_or_else(|| {
        Error::Art(ArtError::NoArt {
            scene: scene.name.clone(),
        })
    })?;
    let mut poses = vec![("rest".to_string(), Pose::rest())];
    poses.extend(
        scene
            .probes
            .iter()
            .map(|p| (p.name.clone(), p.pose.clone())),
    );
    // One attachment per slot, as `render` draws the rig (every part without slots).
    let drawn = super::drawn_parts(scene, None, &std::collections::BTreeMap::new())?;
    let mut rows = Vec::new();
    for (name, pose) in poses {
        let mut positions = posed_vertices(scene, weights, &pose, options.skinning)?;
        let fitted = match &drawn {
            Some(d) => {
                super::hide_parts(&scene.mesh, &mut positions, d);
                super::drawn_positions(&scene.mesh, &positions, d)
            }
            None => positions.clone(),
        };
        let drawing = Drawing {
            mesh: &scene.mesh,
            positions: &positions,
            art: Some(art),
            textures,
        };
        for &scale in &options.scales {
            let view = View {
                scale: scale * options.texels_per_unit,
                rotation_deg: options.rotation_deg,
                offset: options.offset,
            };
            let frame = Frame::fit(&fitted, &view, 2.0)?;
            let m = matting_renders(&drawing, &frame, &options.render)?;
            let f = m.fringe()?;
            let pass = f.bias.abs() <= options.max_bias
                && f.gap <= options.max_gap
                && f.red_error.is_none_or(|e| e <= options.max_red_error);
            rows.push(PixelEdgeRow {
                pose: name.clone(),
                scale,
                fringe: f,
                pass,
            });
        }
    }
    Ok(rows)
}

/// The pixel-edge rows of `skinweights lint` ([`crate::lint::pixel_edge_checks`] on
/// [`pixel_edge`] with [`PixelEdgeOptions::for_scene`]) for a scene with art, its textures
/// loaded from the art's image files; `None` for a scene without art. An image that does not
/// load, or a scale whose frame is over the renderer's limits, is a row that measured
/// nothing ([`crate::lint::not_measured`]), naming the file or the size. Errors: the
/// renderer's others.
pub fn pixel_edge_lint(
    scene: &Scene,
    weights: &Weights,
) -> Result<Option<Vec<crate::lint::Check>>> {
    pixel_edge_lint_reporting(scene, weights, |_| {})
}

/// Where [`pixel_edge_lint_reporting`] is: the scale about to be drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PixelEdgeStep {
    /// Scales done so far.
    pub done: usize,
    /// Scales in all.
    pub count: usize,
    /// The scale about to be drawn, pixels per texel.
    pub scale: f64,
    /// Poses drawn at each scale (the rest pose and every probe).
    pub poses: usize,
}

/// [`pixel_edge_lint`], calling `started` before each scale is drawn (for a progress bar: a
/// scale draws every pose over three backgrounds and the reference, seconds on a large rig).
pub fn pixel_edge_lint_reporting(
    scene: &Scene,
    weights: &Weights,
    mut started: impl FnMut(PixelEdgeStep),
) -> Result<Option<Vec<crate::lint::Check>>> {
    let Some(art) = scene.art() else {
        return Ok(None);
    };
    let textures = match Texture::load_art(art) {
        Ok(textures) => textures,
        Err(e) => {
            let why = format!("the art's images do not load ({e})");
            return Ok(Some(vec![crate::lint::not_measured("pixel edge", &why)]));
        }
    };
    let edge = PixelEdgeOptions::for_scene(scene);
    let mut checks = Vec::new();
    // Scale by scale, so that a scale whose frame is over the renderer's limits (a wide
    // scene at 4x) is reported as not measured while the others are.
    for (done, &scale) in edge.scales.iter().enumerate() {
        started(PixelEdgeStep {
            done,
            count: edge.scales.len(),
            scale,
            poses: 1 + scene.probes().len(),
        });
        let at_scale = PixelEdgeOptions {
            scales: vec![scale],
            ..edge.clone()
        };
        match pixel_edge(scene, weights, &textures, &at_scale) {
            Ok(rows) => {
                let measured: Vec<_> = rows.iter().map(PixelEdgeRow::lint_measure).collect();
                checks.extend(crate::lint::pixel_edge_checks(
                    &measured,
                    edge.max_bias,
                    edge.max_gap,
                ));
            }
            Err(Error::Output(OutputError::RenderTooLarge {
                width,
                height,
                max_side,
                max_pixels,
                ..
            })) => {
                checks.push(crate::lint::not_measured(
                    &format!("pixel edge {scale}x"),
                    &format!(
                        "the frame would be {width} x {height} pixels, over the renderer's \
                         limit ({max_side} a side, {max_pixels} in all)"
                    ),
                ));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(Some(checks))
}
