//! Godot scenes (`.tscn`, text): import of a Skeleton2D rig with its Polygon2D layers and
//! their painted weights, and export of a scene with weights as Polygon2D nodes Godot can
//! skin. Godot 3 (`format=2`, `PoolVector2Array`) and Godot 4 (`format=3`,
//! `PackedVector2Array`).
//!
//! Format semantics, as Godot's `Polygon2D`, `Skeleton2D` and `Bone2D` use them:
//!
//! - A Bone2D's `rest` (a `Transform2D` relative to its parent bone, or to the Skeleton2D
//!   for the top bones) is the bind pose; the skeleton skins with `pose · rest⁻¹` per bone
//!   (`Skeleton2D::_update_transform`). The node's `position` / `rotation` / `scale` is only
//!   the pose it was saved in.
//! - A Polygon2D's `polygon` points (plus `offset`) are in the Polygon2D's own frame; with a
//!   `skeleton` the renderer maps them into the Skeleton2D's frame, skins them there and maps
//!   them back, so the bind position of a vertex is `skeleton_global⁻¹ · polygon_global · p`.
//! - `bones` alternates a path (relative to the Skeleton2D) and one weight per point;
//!   `polygons` lists n-gons of point indices, each ear-clipped when drawn; the last
//!   `internal_vertex_count` points are inside the outline.
//! - `uv` is in texture pixels (u right, v down from the top-left), the same convention as
//!   [`crate::scene::Art::uvs`].
//!
//! Godot is y-down; skinweights is y-up. Points are flipped `(x, y) → (x, -y)` after
//! being placed in the skeleton's frame (angles change sign), and every triangle is made
//! counter-clockwise.

mod clips;
mod export;
mod import;
mod triangulate;
pub mod tscn;
mod values;

pub use clips::GODOT_DEFAULT_ANIMATION_LENGTH;
pub(crate) use export::export_godot;
pub use export::{godot_vertex_order, PolygonOrder};
pub use import::{import_godot, load_godot, GodotImport, ImportReport, MeshReport};

use super::format::{boxed, Format, Source};
use super::{ExportOptions, Exported, FileKind};
use crate::error::{Result, RigFormat};
use crate::scene::Scene;
use crate::weights::Weights;
use std::path::Path;

impl RigFormat {
    /// Godot 3 or 4 text scene (`.tscn`).
    pub const GODOT: Self = Self::named("Godot");
}

/// Its row of the format table ([`super::FORMATS`]).
pub(super) const FORMAT: Format = Format {
    kind: RigFormat::GODOT,
    name: "godot",
    extensions: &["tscn"],
    import_help: "Godot 3 or 4 text scene (.tscn): Skeleton2D, Polygon2D layers, painted weights",
    export_help: "Godot .tscn (text scene): a Skeleton2D and one skinned Polygon2D per part",
    file_kinds: &[FileKind::GodotScene],
    always_weighted: true,
    weights_solver: "artist",
    skins: false,
    source: Source::Never,
    influence_limit: false,
    scales: false,
    atlas_without_source: false,
    batch_suffix: ".tscn",
    transfer_writes: false,
    detect: None,
    import: |path, _| Ok(boxed(load_godot(path)?)),
    export: exported,
};

/// One Polygon2D per part; a reminder for each texture not beside the output.
fn exported(scene: &Scene, weights: &Weights, o: &ExportOptions) -> Result<Exported> {
    let text = export_godot(scene, weights, o.godot.number())?;
    let summary = format!(
        " (Godot {}): {} parts as Polygon2D nodes, {} bones",
        o.godot.number(),
        scene.mesh().parts().len(),
        scene.skeleton().len()
    );
    let mut out = Exported::new(text, summary);
    if let Some(output) = o.output.as_deref() {
        let out_dir = output.parent().unwrap_or(Path::new("."));
        for image in scene.art().iter().flat_map(|art| &art.images) {
            if let Some(file) = image.path.file_name() {
                if !out_dir.join(file).exists() {
                    out.reminders.push(format!(
                        "the scene's texture is res://{}: copy {} beside {}",
                        file.to_string_lossy(),
                        image.path.display(),
                        output.display()
                    ));
                }
            }
        }
    }
    Ok(out)
}
