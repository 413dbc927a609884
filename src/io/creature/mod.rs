//! Creature JSON (Kestrel Moon's Creature animation tool, the "Game Engines" export): import of
//! the character's mesh regions, skeleton, artist weights and animation clips, and export of
//! weights back into a copy of the source file.
//!
//! Format semantics, as Kestrel Moon's runtime documentation describes the exported file and
//! as the shipped files bear out (see `docs/formats/creature.md`):
//!
//! - `mesh.points` (x, y per point, flat) are the rest pose in the character's world frame,
//!   y up (legs below the torso, as in the WebGL viewer): no flip is applied.
//! - `mesh.indices` are triangles (flat, point indices). `mesh.regions` maps a region name to
//!   a contiguous point range `start_pt_index..=end_pt_index` and a range of `indices`
//!   `start_index..=end_index` (both inclusive), and `weights`: bone name → one weight per
//!   point of the region.
//! - `skeleton` maps bone names to `id`, `children` (ids), `restParentMat` (4×4, column
//!   major) and `localRestStartPt` / `localRestEndPt`. The bone's rest world start and end
//!   points are `restParentMat · local`; `restParentMat` is the parent's rest frame (origin at
//!   the parent's end point, x axis along its start → end), the identity for the root.
//! - `animation` maps a clip name to `bones`: frame number (a string) → bone name →
//!   `start_pt`, `end_pt`, each bone's world start and end at that frame (baked keys, played
//!   linearly in between). Frames are converted to seconds at [`FRAME_RATE`] frames per
//!   second, the clip's first frame at time 0.
//!
//! A scene bone is the segment from the rest start to the rest end point; a clip key gives the
//! bone the world frame with its origin at the frame's start point, its x axis along start →
//! end, scaled by the length's ratio to the rest length (the `clips` module).

mod clips;
mod export;
mod import;
mod parse;

pub use clips::FRAME_RATE;
pub(crate) use export::{creature_file, export_creature};
pub use import::{import_creature, load_creature, CreatureImport, ImportReport, MeshReport};

use super::format::{boxed, Format, Source};
use super::{ExportOptions, Exported, FileKind};
use crate::error::{Error, FormatError, Result, RigFormat};
use crate::scene::Scene;
use crate::weights::Weights;

impl RigFormat {
    /// Creature JSON.
    pub const CREATURE: Self = Self::named("Creature");
}

/// Its row of the format table ([`super::FORMATS`]).
pub(super) const FORMAT: Format = Format {
    kind: RigFormat::CREATURE,
    name: "creature",
    extensions: &[],
    import_help: "Creature JSON (Kestrel Moon's \"Game Engines\" export): mesh regions as parts, the skeleton, artist weights and clips (frames at 60 fps)",
    export_help: "Creature JSON: the `--source` file (required) with each region's weights rewritten, everything else kept as in the source",
    file_kinds: &[FileKind::Creature],
    always_weighted: true,
    weights_solver: "artist",
    skins: false,
    source: Source::Required,
    influence_limit: false,
    scales: false,
    atlas_without_source: false,
    batch_suffix: ".creature.json",
    transfer_writes: false,
    // A Spine skeleton names its version where a Creature skeleton names a bone.
    detect: Some(|json| {
        json["mesh"]["regions"].is_object()
            && json["skeleton"].is_object()
            && !json["skeleton"]["spine"].is_string()
    }),
    import: |path, _| Ok(boxed(load_creature(path)?)),
    export: exported,
};

/// The weights written into a copy of the source file.
fn exported(scene: &Scene, weights: &Weights, o: &ExportOptions) -> Result<Exported> {
    let source = o.source.as_deref();
    let text = match (o.source_text.as_deref(), source) {
        (Some(text), _) => export_creature(text, scene, weights).map_err(|e| match source {
            Some(s) => e.in_file(s),
            None => e,
        })?,
        (None, Some(source)) => creature_file(scene, weights, source)?,
        (None, None) => {
            return Err(crate::error::ArgumentError::MissingArgument {
                argument: "--source",
                reason: "a Creature export needs the file the scene was imported from".into(),
            }
            .into())
        }
    };
    let summary = format!(
        ": {} with the weights of {} vertices on {} bones",
        source.map_or_else(|| "the source".into(), |s| s.display().to_string()),
        scene.mesh().vertex_count(),
        scene.skeleton().len()
    );
    Ok(Exported::new(text, summary))
}

/// Largest coordinate accepted anywhere in a file or produced from it: points, bone start and
/// end points, matrix translations. A character is a few thousand units wide at most.
const MAX_COORDINATE: f64 = 1e6;

/// Largest entry of a matrix's linear part, and largest ratio of a bone's animated length to
/// its rest length (either way).
const MAX_SCALE: f64 = 1e3;

/// Shortest rest bone accepted: a bone's direction is its frame's x axis.
const MIN_BONE_LENGTH: f64 = 1e-9;

/// A Creature error.
fn creature_error(
    context: impl Into<String>,
    field: impl Into<String>,
    vertex: Option<usize>,
    message: impl Into<String>,
) -> Error {
    Error::Format(FormatError::Rig {
        format: RigFormat::CREATURE,
        context: context.into(),
        field: field.into(),
        vertex,
        message: message.into(),
    })
}
