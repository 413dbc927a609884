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

use super::format::{boxed, Format, Source};
use super::{ExportOptions, Exported, FileKind};
use crate::error::{Error, Result, RigFormat};
use crate::scene::Scene;
use crate::weights::Weights;

impl RigFormat {
    /// Spine 4.x JSON.
    pub const SPINE: Self = Self::named("Spine");
}

/// Its row of the format table ([`super::FORMATS`]).
pub(super) const FORMAT: Format = Format {
    kind: RigFormat::SPINE,
    name: "spine",
    extensions: &[],
    import_help: "Spine 4.x JSON: bones in the setup pose, mesh and region attachments, artist weights, the atlas (`--atlas`, default NAME.atlas beside the file)",
    export_help: "Spine 4.2 JSON: with `--source`, that project with its meshes' weighted vertices rewritten; without, a minimal project (bones, a slot and mesh per part, the atlas)",
    file_kinds: &[FileKind::SpineJson],
    always_weighted: true,
    weights_solver: "artist",
    skins: true,
    source: Source::Optional,
    influence_limit: true,
    scales: false,
    atlas_without_source: true,
    batch_suffix: ".spine.json",
    transfer_writes: true,
    detect: Some(|json| json["skeleton"]["spine"].is_string()),
    import: |path, o| {
        let options = SpineImportOptions::default().with_skin(o.skin.clone());
        Ok(boxed(load_spine(path, o.atlas.as_deref(), &options)?))
    },
    export: exported,
};

/// The weights into the source project's meshes, or a new project and its atlas.
fn exported(scene: &Scene, weights: &Weights, o: &ExportOptions) -> Result<Exported> {
    let options = SpineExportOptions::default()
        .with_max_influences(o.max_influences)
        .with_regions_to_meshes(o.regions_to_meshes);
    let (out, json) = spine_file(
        scene,
        weights,
        o.source.as_deref(),
        o.source_text.as_deref(),
        &options,
        &o.output_name(),
    )?;
    let summary = format!(
        ": {} mesh attachments with weighted vertices{}, {} bones{}",
        out.meshes,
        if out.regions_to_meshes > 0 {
            format!(" ({} of them regions before)", out.regions_to_meshes)
        } else {
            String::new()
        },
        scene.skeleton().len(),
        match (&out.atlas, o.output.as_deref()) {
            (Some(_), Some(path)) => format!(" (and {})", path.with_extension("atlas").display()),
            _ => String::new(),
        }
    );
    let mut exported = Exported::new(json, summary);
    exported.atlas = out.atlas;
    exported.notes = out.notes;
    exported.meshes = out.meshes;
    exported.regions_to_meshes = out.regions_to_meshes;
    exported.bent_regions = out.bent_regions;
    Ok(exported)
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
