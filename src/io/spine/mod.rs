//! Spine 4.x JSON projects (`*.json` + the libgdx text `*.atlas`): import of the skeleton in
//! its setup pose with every mesh and region attachment and the artist's weights, and export
//! of a scene with weights back to Spine (rewriting a source project, or a minimal one).
//!
//! Format semantics, as the Spine user guide's "JSON export format" page documents them (no
//! runtime code was read or copied):
//!
//! - Spine is y-up, like skinweights: no flip. Angles are degrees, counter-clockwise.
//! - A bone's local transform is `x, y, rotation, scaleX, scaleY, shearX, shearY` and its
//!   `inherit` (4.2; `transform` in 4.0/4.1): the scene keeps it as the bone's
//!   [`crate::skeleton::LocalTransform`], and [`crate::skeleton::Inherit::compose`] holds the matrices
//!   of every mode (the setup pose and every clip frame use the same code).
//! - Animations (`animations.NAME`): bone timelines `rotate`, `translate`, `translatex/y`,
//!   `scale`, `scalex/y`, `shear`, `shearx/y` become the scene's clips (see `animation.rs`);
//!   values are offsets from the setup pose (rotation, translation, shear added; scale
//!   multiplied), as the clip model stores them; curves `stepped`, linear, and Spine 4's
//!   per-key Bézier arrays (absolute time and value of both control points, 4 numbers per
//!   channel). IK constraints become the scene's IK.
//! - A weighted mesh's `vertices` (longer than its `uvs`) are, per vertex, `boneCount` then
//!   `boneIndex, bindX, bindY, weight` per bone, `boneIndex` into the file's `bones`; the
//!   vertex is `Σ weight · world(bone) · (bindX, bindY)`. An unweighted mesh's `vertices` are
//!   `x, y` pairs in its slot's bone frame. `uvs` run 0..1 across the attachment's whole
//!   (untrimmed) image, v down.
//! - A region attachment is the image's rectangle `width × height`, centred, scaled by
//!   `scaleX, scaleY`, turned by `rotation` and moved to `(x, y)` in its slot's bone frame; an
//!   atlas region with whitespace stripped draws only its trimmed part (`offsets`).
//! - A linked mesh (`linkedmesh`) takes its `parent` mesh's vertices, triangles and uvs (the
//!   parent in skin `skin`, default `default`, same slot) and its own image (`path`).

mod animation;
mod atlas;
mod deform;
mod export;
mod import;
mod parse;

pub use atlas::{Atlas, AtlasPage, AtlasRegion};
pub(crate) use export::spine_file;
pub(crate) use export::SpineExportOptions;
pub use export::{DEFAULT_MAX_INFLUENCES, DEFAULT_REGIONS_TO_MESHES};
pub use import::{
    import_spine, load_spine, AttachmentReport, SkinSelection, SpineImport, SpineImportOptions,
    SpineReport,
};

use crate::error::Error;

impl crate::RigFormat {
    /// Spine 4.x JSON.
    pub const SPINE: Self = Self::named("Spine");
}

/// Largest coordinate (px) accepted in a file or produced from it (bone origins, vertices).
const MAX_COORDINATE: f64 = 1e6;

/// Largest |scale| accepted on a bone or attachment, and on a bone's world matrix.
const MAX_SCALE: f64 = 1e3;

/// Largest |angle| (degrees) accepted: beyond it the degrees have no fraction left.
const MAX_ANGLE_DEG: f64 = 1e6;

/// A Spine error naming the context (bone, slot, skin, attachment), the field and the vertex.
fn spine_error(
    context: impl Into<String>,
    field: impl Into<String>,
    vertex: Option<usize>,
    message: impl Into<String>,
) -> Error {
    crate::io::json_path::SPINE.error(context, field, vertex, message)
}
