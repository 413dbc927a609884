//! glTF 2.0: export a scene with its weights as a skinned mesh, and import a skinned mesh that
//! lies in a plane.
//!
//! **Export** (the `gltf` row of [`crate::io::FORMATS`], [`crate::io::Format::export`])
//! writes one `.gltf` JSON file with one embedded buffer (a
//! `data:application/octet-stream;base64,` URI), so Blender, three.js or Godot load it as is
//! (an [`ExportOptions::output`](crate::io::ExportOptions::output) ending in `.glb` gives the
//! same document as binary glTF, the buffer in its BIN chunk):
//!
//! - the mesh at z = 0, as **one primitive** (glTF has no notion of parts; the part labels
//!   travel in `extras`, see below) when the scene has no art; with art, one primitive per
//!   layer in draw order sharing the vertex accessors, plus the images, a material per image
//!   and `TEXCOORD_0` (see `art_export.rs`); triangles counter-clockwise seen from +z (glTF's front
//!   face); `POSITION` float VEC3 with min/max, indices `UNSIGNED_SHORT` when every index fits
//!   below 65535 (that value is reserved) and `UNSIGNED_INT` otherwise;
//! - `JOINTS_0` (`UNSIGNED_BYTE` VEC4 up to 256 bones, `UNSIGNED_SHORT` above) and
//!   `WEIGHTS_0` (float VEC4): the 4 largest influences of every vertex
//!   ([`Weights::top_k`](crate::weights::Weights::top_k)`(4)`: sorted, truncated, renormalized), largest first, padded with
//!   joint 0 / weight 0;
//! - one node per bone, under one root node named after the scene (the skin's `skeleton`),
//!   with local TRS such that each node's world transform is the bone's bind transform
//!   (translation at the head, rotation about z by the bone's angle); joint `j` is bone `j`;
//! - a skin whose `inverseBindMatrices` (MAT4 float, column-major) invert each joint's world
//!   bind matrix, a mesh node carrying the skin, and one scene;
//! - the scene's clips as animations on the joint nodes (`animation.rs`: translation,
//!   rotation about z and scale channels; curves other than linear and stepped are sampled
//!   at the clip's frames into `LINEAR` keys; the clip's length in
//!   `extras.skinweights.duration`);
//! - the scene's correctives as morph targets, one per corrective key, with a `weights`
//!   channel per animation on the mesh node (`morph_export.rs`; glTF applies them before
//!   skinning).
//!
//! glTF cannot say everything a skinweights scene holds; with
//! [`ExportOptions::gltf_extras`](crate::io::ExportOptions::gltf_extras) (the default) the rest
//! is written into `extras.skinweights` objects, which other tools keep as custom properties and [`import_gltf`] reads back: each bone node's `length`, `part` and
//! `influences`, the mesh's `parts` and `vertex_parts` (when there is more than one part),
//! and the scene's probes on the skinned mesh node (`probes`, as a scene file writes them,
//! lengths times the export's scale).
//!
//! **Import** ([`import_gltf`], [`import_gltf_str`]) takes the first node that has both a mesh
//! and a skin. Buffers may be embedded `data:` URIs or files relative to the `.gltf`, in its
//! directory or below, or a `.glb`'s BIN chunk (`glb.rs`; an absolute path, a `..` component or a scheme
//! other than `data:` is an error naming `buffers[i].uri`). Every triangle primitive of the
//! mesh is read. Primitives that name the same `POSITION` accessor (and the same `JOINTS_n` /
//! `WEIGHTS_n` accessors), as a mesh split by material does, share their vertices: each
//! accessor vertex becomes one mesh vertex, so the mesh stays in one piece at the seams. With
//! several primitives each becomes a part `primitive<i>` (unless `extras` name the parts); a
//! vertex that several primitives use belongs to the part of the first of them. Textures
//! become the scene's art (`texture.rs`), and the animations the scene's clips
//! (`animation_import.rs`: `LINEAR`, `STEP` and `CUBICSPLINE` samplers on the joint nodes).
//! Then:
//!
//! - **Plane.** The mesh must lie in a plane z = const (any constant): a vertex off that plane
//!   is [`FormatError::NonPlanarMesh`](crate::error::FormatError::NonPlanarMesh). x and y are kept, z dropped. Triangles clockwise seen from
//!   +z (a mesh facing -z) are flipped to counter-clockwise and a note says so.
//! - **Bind pose.** Vertex positions are taken as stored, without the mesh node's transform:
//!   the glTF spec says a skinned mesh node's transform is ignored, and the inverse bind
//!   matrices map exactly these positions into joint space. Bone `k` comes from skin joint `k`:
//!   its head is the joint's world position at bind (translation of the inverse of its inverse
//!   bind matrix; identity when the skin has none, as the spec says), its parent the nearest
//!   ancestor node that is also a joint. Its tail is `head + length * x` along the joint's bind
//!   x axis when `extras.skinweights.length` gives the length; otherwise the head of its child
//!   joint when it has exactly one (at a distinct position); otherwise along the joint's x
//!   axis with length [`LEAF_BONE_FRACTION`] of the mesh size (its larger bounding-box side).
//! - **Weights** come from every `JOINTS_n` / `WEIGHTS_n` pair (joints `UNSIGNED_BYTE` or
//!   `UNSIGNED_SHORT`; weights float or normalized ubyte / ushort) and are renormalized (a note
//!   reports rows that were off by more than 1e-6). A non-zero weight on a joint the skin does
//!   not have is [`FormatError::JointOutOfRange`](crate::error::FormatError::JointOutOfRange).
//!
//! Every number of the file is checked before it is used: an accessor must lie inside its
//! buffer view and the view inside its buffer (no arithmetic overflow), offsets must be
//! multiples of the component size, a `byteStride` a multiple of 4 in 4..=252 and absent on
//! index data, the node hierarchy a forest (a cycle of children is an error), a skin at most
//! [`MAX_JOINTS`] joints and the weight matrix at most [`MAX_WEIGHT_ENTRIES`] entries. An
//! accessor without a buffer view (all zeros, says the spec) is read only where its count is
//! fixed by another (`JOINTS_n` / `WEIGHTS_n` by `POSITION`, inverse bind matrices by the
//! joints). Bad input is an [`Error`](crate::Error) naming the field, e.g. `accessors[3].byteOffset`.

mod animation_export;
mod animation_import;
mod art_export;
mod export;
mod glb;
mod import;
mod json;
mod morph_export;
mod primitives;
mod reader;
mod skeleton_read;
mod texture;

pub use animation_import::ROTATION_SAMPLING_TOLERANCE;
pub use export::truncation_note;
pub(crate) use export::GltfOptions;
pub(crate) use export::{export_glb, export_gltf};
pub use glb::{glb_bytes, split_glb, GLB_MAGIC};
pub use import::{
    import_gltf, import_gltf_str, GltfImport, GltfReport, MAX_JOINTS, MAX_WEIGHT_ENTRIES,
};
pub use texture::EmbeddedImage;

use super::format::{Format, Source};
use super::{ExportOptions, Exported, FileKind, Imported};
use crate::error::{Result, RigFormat};
use crate::scene::Scene;
use crate::weights::Weights;
use std::path::Path;

impl RigFormat {
    /// glTF 2.0 (`.gltf`, `.glb`).
    pub const GLTF: Self = Self::named("glTF");
}

/// Its row of the format table ([`super::FORMATS`]).
pub(super) const FORMAT: Format = Format {
    kind: RigFormat::GLTF,
    name: "gltf",
    extensions: &["gltf", "glb"],
    import_help: "glTF 2.0 (.gltf; buffers embedded or beside it)",
    export_help: "glTF 2.0 (.gltf with an embedded buffer, or binary glTF when the output ends in .glb; the scene's art as embedded PNG images, one material per image and one primitive per layer)",
    file_kinds: &[FileKind::Gltf, FileKind::Glb],
    always_weighted: false,
    weights_solver: GLTF_SOLVER_NAME,
    skins: false,
    source: Source::Never,
    influence_limit: false,
    scales: true,
    atlas_without_source: false,
    batch_suffix: ".gltf",
    transfer_writes: false,
    detect: None,
    import: |path, _| {
        let g = import_gltf(path)?;
        Ok(Imported {
            scene: g.scene,
            artist: g.artist,
            report: Box::new(g.report),
        })
    },
    export: exported,
};

/// glTF, binary when the output ends in `.glb`; a note on the influences past four.
fn exported(scene: &Scene, weights: &Weights, o: &ExportOptions) -> Result<Exported> {
    let options = GltfOptions::default()
        .with_scale(o.gltf_scale)
        .with_extras(o.gltf_extras);
    let binary = o
        .output
        .as_deref()
        .and_then(Path::extension)
        .is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    let bytes = if binary {
        export_glb(scene, weights, &options)?
    } else {
        export_gltf(scene, weights, &options)?.into_bytes()
    };
    let art = scene.art().map_or(String::new(), |art| {
        format!(
            ", {} images embedded, {} layers as primitives",
            art.images.len(),
            art.layers.len()
        )
    });
    let summary = format!(
        ": {} vertices, {} triangles, {} joints{art}",
        scene.mesh().vertex_count(),
        scene.mesh().triangle_count(),
        scene.skeleton().len()
    );
    let mut out = Exported::new(bytes, summary);
    out.notes.extend(truncation_note(weights));
    Ok(out)
}

/// Influences per vertex in `JOINTS_0` / `WEIGHTS_0` (what every glTF loader reads).
pub const GLTF_INFLUENCES: usize = 4;

/// Length of an imported leaf bone with no length in `extras`, as a fraction of the mesh's
/// larger bounding-box side: glTF joints are points, skinweights bones are segments.
pub const LEAF_BONE_FRACTION: f64 = 0.1;

/// Name of the tool in `WeightsFile::solver` for imported weights.
pub const GLTF_SOLVER_NAME: &str = "gltf";

/// Relative tolerance (of the mesh size) on the plane test of imported meshes: well above
/// f32 rounding (6e-8), well below anything drawn on purpose.
const PLANE_TOLERANCE: f64 = 1e-6;

// glTF enums (spec section 5).
const BYTE: u32 = 5120;
const UNSIGNED_BYTE: u32 = 5121;
const SHORT: u32 = 5122;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const FLOAT: u32 = 5126;
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const TRIANGLES: u32 = 4;
