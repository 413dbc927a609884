//! Drawing posed textured characters, and measuring what their edges look like
//! (feature `io`).
//!
//! - `raster.rs`: a deterministic CPU rasterizer that draws as a GPU does (fixed-point
//!   vertices, top-left fill rule, N x N supersampling, bilinear clamp-to-edge sampling,
//!   layers blended 'over' in straight or premultiplied alpha), parallel over tiles.
//! - `clip.rs`: a clip frame by frame, as an animated PNG, a contact sheet or side by side.
//! - `texture.rs`: art images as textures, converted to the alpha mode sampled in.
//! - `alpha.rs`: the alpha repairs: bleeding and premultiplication.
//! - `fringe.rs`: the fringe metric (triangulation matting over black and white against a
//!   premultiplied 8 x 8 reference): bias S, F, gap G.
//! - `paint.rs`: painted layer images for model-only layered scenes (the built-in
//!   `layered-elbow`).
//! - `seam_gaps.rs`: the fringe metric's gap G restricted to each seam of
//!   [`crate::seams::measure`].
//! - `pixel_edge.rs`: the pixel-edge check (probes over black, white and red at 1x, 2x
//!   and 4x), used by `lint`.

mod alpha;
mod clip;
mod fringe;
mod mask;
mod overlap;
mod paint;
mod pixel_edge;
mod raster;
mod seam_gaps;
mod texture;

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
    readable_scale, render, render_16, render_16_over, render_over, Drawing, Frame, RenderOptions,
    Rgb16Image, View, MAX_RENDER_PIXELS, MAX_RENDER_SIDE, READABLE_MAX_SIDE, READABLE_MIN_SIDE,
    READABLE_SIDE, SAMPLE_COUNTS, SUBPIXEL,
};
pub use seam_gaps::{
    seam_pixel_gaps, seam_pixel_gaps_in_art, SeamPixelGap, OPAQUE_ALPHA, SEAM_BAND_PX,
};
pub use texture::{check_uvs, vertex_colours, Texture};

use crate::error::{ArgumentError, Result};
use crate::mesh::Mesh;
use crate::scene::Scene;
use crate::skeleton::Pose;
use crate::skinning::dual_quaternion_skinning;
use crate::weights::Weights;
use nalgebra::Point2;
use std::collections::BTreeMap;

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

/// Which of the scene's parts are drawn (indexed like the mesh's parts) when the rig shows
/// skin `skin` (`None`: the default skin) and a clip's attachment keys set the slots in
/// `keyed` ([`crate::animation::Clip::attachments_at`]; empty at rest and in a pose): one
/// attachment per slot, [`crate::scene::Art::drawn_layers`]. `None` when the scene's art
/// puts no layer in a slot: every part is drawn, as before slots were recorded.
///
/// Errors: a `skin` the art does not name ([`crate::scene::Art::check_skin`]).
pub fn drawn_parts(
    scene: &Scene,
    skin: Option<&str>,
    keyed: &BTreeMap<String, Option<String>>,
) -> Result<Option<Vec<bool>>> {
    let art = match scene.art() {
        Some(art) => art,
        None if skin.is_some() => {
            return Err(ArgumentError::InvalidArgument {
                argument: "skin",
                value: skin.unwrap_or_default().to_string(),
                reason: format!(
                    "scene {:?} has no art, so no skins to pick from",
                    scene.name()
                ),
            }
            .into())
        }
        None => return Ok(None),
    };
    if let Some(k) = skin {
        art.check_skin(k)?;
    }
    if !art.has_slots() {
        return Ok(None);
    }
    let layers = art.drawn_layers(skin, keyed);
    Ok(Some(art.drawn_parts(scene.mesh().parts(), &layers)))
}

/// Hides the parts `drawn` marks false: every vertex of such a part is moved onto one
/// point (the first drawn vertex's position), so its triangles have zero area and the
/// rasterizer draws nothing for them, as a GPU draws nothing for a triangle of zero area.
pub fn hide_parts(mesh: &Mesh, positions: &mut [Point2<f64>], drawn: &[bool]) {
    let vertex_parts = mesh.vertex_parts();
    let shown = |v: usize| drawn.get(vertex_parts[v]).copied().unwrap_or(true);
    let anchor = (0..positions.len())
        .find(|&v| shown(v))
        .map_or_else(Point2::origin, |v| positions[v]);
    for (v, p) in positions.iter_mut().enumerate() {
        if !shown(v) {
            *p = anchor;
        }
    }
}

/// The positions of the vertices of drawn parts (every position when none is drawn), what
/// a frame is fitted to.
pub fn drawn_positions(mesh: &Mesh, positions: &[Point2<f64>], drawn: &[bool]) -> Vec<Point2<f64>> {
    let vertex_parts = mesh.vertex_parts();
    let kept: Vec<Point2<f64>> = positions
        .iter()
        .enumerate()
        .filter(|&(v, _)| drawn.get(vertex_parts[v]).copied().unwrap_or(true))
        .map(|(_, &p)| p)
        .collect();
    if kept.is_empty() {
        positions.to_vec()
    } else {
        kept
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
