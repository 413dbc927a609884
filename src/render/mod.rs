//! Drawing posed textured characters, and measuring what their edges look like
//! (feature `io`).
//!
//! - [`raster`]: a deterministic CPU rasterizer that draws as a GPU does (fixed-point
//!   vertices, top-left fill rule, N x N supersampling, bilinear clamp-to-edge sampling,
//!   layers blended 'over' in straight or premultiplied alpha), parallel over tiles.
//! - [`clip`]: a clip frame by frame, as an animated PNG, a contact sheet or side by side.
//! - [`texture`]: art images as textures, converted to the alpha mode sampled in.
//! - [`alpha`]: the alpha repairs: bleeding and premultiplication.
//! - [`mod@fringe`]: the fringe metric (triangulation matting over black and white against a
//!   premultiplied 8 x 8 reference): bias S, F, gap G.
//! - [`paint`]: painted layer images for model-only layered scenes (the built-in
//!   `layered-elbow`).
//! - [`seam_gaps`]: the fringe metric's gap G restricted to each seam of
//!   [`crate::seams::measure`].
//! - [`mod@pixel_edge`]: the pixel-edge check (probes over black, white and red at 1x, 2x
//!   and 4x), used by `lint`.

pub mod alpha;
pub mod clip;
pub mod fringe;
mod mask;
pub mod overlap;
pub mod paint;
pub mod pixel_edge;
pub mod raster;
pub mod seam_gaps;
pub mod texture;

pub use alpha::{bleed, fill_transparent, premultiply};
pub use clip::{clip_frames, contact_sheet, encode_apng, side_by_side, ClipFrame};
pub use fringe::{coverage, coverage_16, fringe, fringe_excluding, Fringe, Matting};
pub use overlap::overlap_mask;
pub use paint::{paint_layers, PaintOptions};
pub use pixel_edge::{
    matting_renders, pixel_edge, pixel_edge_lint, pixel_edge_lint_reporting, MattingRenders,
    PixelEdgeOptions, PixelEdgeRow, PixelEdgeStep, PIXEL_EDGE_SAMPLES, REFERENCE_SAMPLES,
};
pub use raster::{
    render, render_16, render_16_over, render_over, Drawing, Frame, RenderOptions, Rgb16Image,
    View, MAX_RENDER_PIXELS, MAX_RENDER_SIDE, SAMPLE_COUNTS,
};
pub use seam_gaps::{seam_pixel_gaps, seam_pixel_gaps_in_art, SeamPixelGap, OPAQUE_ALPHA};
pub use texture::{check_uvs, vertex_colours, Texture};

use crate::error::{ArgumentError, Result};
use crate::scene::Scene;
use crate::skeleton::Pose;
use crate::skinning::dual_quaternion_skinning;
use crate::weights::Weights;
use nalgebra::Point2;

/// Which skinning poses the mesh before drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Skinning {
    /// Linear blend skinning, the reference CPU loop (the default).
    #[default]
    Lbs,
    /// 2D dual-quaternion skinning.
    Dqs,
}

/// The scene's vertices skinned into `pose`. With [`Skinning::Lbs`] the scene's correctives
/// are added ([`crate::correctives::skin_scene`]); dual-quaternion skinning is drawn
/// without them (a corrective is drawn against what LBS does to the joint).
pub fn posed_vertices(
    scene: &Scene,
    weights: &Weights,
    pose: &Pose,
    skinning: Skinning,
) -> Result<Vec<Point2<f64>>> {
    let rest = scene.mesh.vertices();
    match skinning {
        Skinning::Lbs => crate::correctives::skin_scene(scene, weights, pose),
        Skinning::Dqs => dual_quaternion_skinning(rest, &scene.skeleton, weights, pose),
    }
}

/// Parses a background colour: `black`, `white`, `red`, or `#RRGGBB` (hex digits, either
/// case). Anything else is an error naming the value.
pub fn parse_colour(text: &str) -> Result<[u8; 3]> {
    match text {
        "black" => return Ok([0, 0, 0]),
        "white" => return Ok([255, 255, 255]),
        "red" => return Ok([255, 0, 0]),
        _ => {}
    }
    let hex = text
        .strip_prefix('#')
        .filter(|h| h.len() == 6 && h.chars().all(|c| c.is_ascii_hexdigit()));
    match hex {
        Some(h) => {
            let byte = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).unwrap_or(0);
            Ok([byte(0), byte(2), byte(4)])
        }
        None => Err(ArgumentError::InvalidArgument {
            argument: "background",
            value: text.to_string(),
            reason: format!("{text:?} is not a colour (use black, white, red or #RRGGBB)"),
        }
        .into()),
    }
}
