//! glTF 2.0: export a scene with its weights as a skinned mesh, and import a skinned mesh that
//! lies in a plane.
//!
//! **Export** ([`export_gltf`]) writes one `.gltf` JSON file with one embedded buffer (a
//! `data:application/octet-stream;base64,` URI), so Blender, three.js or Godot load it as is:
//!
//! - the mesh at z = 0, as **one primitive** (glTF has no notion of parts; the part labels
//!   travel in `extras`, see below) when the scene has no art; with art, one primitive per
//!   layer in draw order sharing the vertex accessors, plus the images, a material per image
//!   and `TEXCOORD_0` (see `art_export.rs`); triangles counter-clockwise seen from +z (glTF's front
//!   face); `POSITION` float VEC3 with min/max, indices `UNSIGNED_SHORT` when every index fits
//!   below 65535 (that value is reserved) and `UNSIGNED_INT` otherwise;
//! - `JOINTS_0` (`UNSIGNED_BYTE` VEC4 up to 256 bones, `UNSIGNED_SHORT` above) and
//!   `WEIGHTS_0` (float VEC4): the 4 largest influences of every vertex
//!   ([`Weights::top_k`]`(4)`: sorted, truncated, renormalized), largest first, padded with
//!   joint 0 / weight 0;
//! - one node per bone, under one root node named after the scene (the skin's `skeleton`),
//!   with local TRS such that each node's world transform is the bone's bind transform
//!   (translation at the head, rotation about z by the bone's angle); joint `j` is bone `j`;
//! - a skin whose `inverseBindMatrices` (MAT4 float, column-major) invert each joint's world
//!   bind matrix, a mesh node carrying the skin, and one scene;
//! - the scene's clips as animations on the joint nodes (`animation.rs`: translation,
//!   rotation about z and scale channels; curves other than linear and stepped are sampled
//!   at the clip's frames into `LINEAR` keys).
//!
//! glTF cannot say everything a skinweights scene holds; with [`GltfOptions::extras`] (the
//! default) the rest is written into `extras.skinweights` objects, which other tools keep as
//! custom properties and [`import_gltf`] reads back: each bone node's `length`, `part` and
//! `influences`, and the mesh's `parts` and `vertex_parts` (when there is more than one part).
//! Probes are not exported.
//!
//! **Import** ([`import_gltf`], [`import_gltf_str`]) takes the first node that has both a mesh
//! and a skin. Buffers may be embedded `data:` URIs or files relative to the `.gltf`, in its
//! directory or below (`.glb` is not read; an absolute path, a `..` component or a scheme
//! other than `data:` is an error naming `buffers[i].uri`). Every triangle primitive of the
//! mesh is read. Primitives that name the same `POSITION` accessor (and the same `JOINTS_n` /
//! `WEIGHTS_n` accessors), as a mesh split by material does, share their vertices: each
//! accessor vertex becomes one mesh vertex, so the mesh stays in one piece at the seams. With
//! several primitives each becomes a part `primitive<i>` (unless `extras` name the parts); a
//! vertex that several primitives use belongs to the part of the first of them. Textures
//! become the scene's art (`texture.rs`). Then:
//!
//! - **Plane.** The mesh must lie in a plane z = const (any constant): a vertex off that plane
//!   is [`Error::NonPlanarMesh`]. x and y are kept, z dropped. Triangles clockwise seen from
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
//!   not have is [`Error::JointOutOfRange`].
//!
//! Every number of the file is checked before it is used: an accessor must lie inside its
//! buffer view and the view inside its buffer (no arithmetic overflow), offsets must be
//! multiples of the component size, a `byteStride` a multiple of 4 in 4..=252 and absent on
//! index data, the node hierarchy a forest (a cycle of children is an error), a skin at most
//! [`MAX_JOINTS`] joints and the weight matrix at most [`MAX_WEIGHT_ENTRIES`] entries. An
//! accessor without a buffer view (all zeros, says the spec) is read only where its count is
//! fixed by another (`JOINTS_n` / `WEIGHTS_n` by `POSITION`, inverse bind matrices by the
//! joints). Bad input is an [`Error`] naming the field, e.g. `accessors[3].byteOffset`.

use crate::error::{Error, Result};
use crate::io::WeightsFile;
use crate::mesh::{Mesh, DEFAULT_PART};
use crate::scene::Scene;
use crate::skeleton::{Bone, Skeleton};
use crate::skinning::check_shape;
use crate::weights::{Weights, EXPORT_ROW_SUM_TOLERANCE};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use nalgebra::{Isometry2, Matrix4, Point2, Vector2};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

mod animation;
mod art_export;
mod texture;
pub use texture::EmbeddedImage;

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

/// Row sums of imported weights further than this from 1 are reported in a note.
const ROW_SUM_NOTE: f64 = 1e-6;

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

/// Options of [`export_gltf`].
#[derive(Debug, Clone, PartialEq)]
pub struct GltfOptions {
    /// Multiplies every coordinate (glTF units are metres: 0.01 turns a 200 px character into
    /// a 2 m one in Blender). Default 1.
    pub scale: f64,
    /// Write `extras.skinweights` (bone lengths, parts, influences) so that [`import_gltf`]
    /// gets the scene back. Default true.
    pub extras: bool,
}

impl Default for GltfOptions {
    fn default() -> Self {
        GltfOptions {
            scale: 1.0,
            extras: true,
        }
    }
}

/// Accumulates the one binary buffer, its buffer views and one accessor per view.
#[derive(Default)]
struct BufferBuilder {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl BufferBuilder {
    /// Appends `data` as a new buffer view, starting on a 4-byte boundary (glTF requires
    /// accessor offsets aligned to their component size; 4 covers every type), and an
    /// accessor over all of it. Returns the accessor's index.
    fn push(
        &mut self,
        data: &[u8],
        target: Option<u32>,
        component: u32,
        count: usize,
        kind: &str,
    ) -> usize {
        self.pad();
        let mut view = json!({
            "buffer": 0,
            "byteOffset": self.bytes.len(),
            "byteLength": data.len(),
        });
        if let Some(t) = target {
            view["target"] = json!(t);
        }
        self.bytes.extend_from_slice(data);
        self.views.push(view);
        self.accessors.push(json!({
            "bufferView": self.views.len() - 1,
            "componentType": component,
            "count": count,
            "type": kind,
        }));
        self.accessors.len() - 1
    }

    fn pad(&mut self) {
        while self.bytes.len() % 4 != 0 {
            self.bytes.push(0);
        }
    }
}

/// Appends `triangles` as an index accessor over `vertex_count` vertices and returns it.
/// 65535 is reserved as a primitive-restart value, so `UNSIGNED_SHORT` only below it.
fn push_indices(buf: &mut BufferBuilder, triangles: &[[usize; 3]], vertex_count: usize) -> usize {
    let flat = triangles.iter().flatten();
    let (bytes, index_type): (Vec<u8>, u32) = if vertex_count <= usize::from(u16::MAX) {
        let b = flat.flat_map(|&i| (i as u16).to_le_bytes()).collect();
        (b, UNSIGNED_SHORT)
    } else {
        let b = flat.flat_map(|&i| (i as u32).to_le_bytes()).collect();
        (b, UNSIGNED_INT)
    };
    buf.push(
        &bytes,
        Some(ELEMENT_ARRAY_BUFFER),
        index_type,
        3 * triangles.len(),
        "SCALAR",
    )
}

fn f32_bytes(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

/// A bind isometry as a column-major 4x4 matrix in the z = 0 plane.
fn isometry_columns(m: &Isometry2<f64>) -> [f64; 16] {
    let (c, s) = (m.rotation.re, m.rotation.im);
    let t = m.translation.vector;
    [
        c, s, 0.0, 0.0, -s, c, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, t.x, t.y, 0.0, 1.0,
    ]
}

/// One vertex's `WEIGHTS_0` in f32, largest first: the largest absorbs the f32 rounding of
/// the sum so that the row sums to 1 as closely as f32 allows, unless that would reorder it.
fn weights_row_f32(influences: &[(usize, f64)]) -> ([usize; 4], [f32; 4]) {
    let mut joints = [0usize; 4];
    let mut w = [0f32; 4];
    for (i, &(b, x)) in influences.iter().take(GLTF_INFLUENCES).enumerate() {
        joints[i] = b;
        w[i] = x as f32;
    }
    let rest: f64 = w[1..].iter().map(|&x| f64::from(x)).sum();
    let first = (1.0 - rest) as f32;
    if first >= w[1] {
        w[0] = first;
    }
    (joints, w)
}

/// What glTF's 4-influence limit drops from `weights`, as one line for the user (`None` when
/// no vertex has more than [`GLTF_INFLUENCES`] influences): how many vertices lose weight,
/// the mean and largest share dropped before renormalizing, and the worst vertex.
pub fn truncation_note(weights: &Weights) -> Option<String> {
    let cut: Vec<(usize, f64)> = weights
        .top_k_dropped(GLTF_INFLUENCES)
        .into_iter()
        .enumerate()
        .filter(|&(_, d)| d > 0.0)
        .collect();
    let &(worst, most) = cut.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let mean = cut.iter().map(|c| c.1).sum::<f64>() / cut.len() as f64;
    Some(format!(
        "glTF keeps {GLTF_INFLUENCES} influences per vertex: {} vertices had more; the weight \
         dropped before renormalizing is {:.1}% on average over them, at most {:.1}% (vertex \
         {worst}). Solve with --max-influences {GLTF_INFLUENCES} to eval and plot exactly what \
         the file holds.",
        cut.len(),
        100.0 * mean,
        100.0 * most
    ))
}

/// Writes `scene` and `weights` as glTF 2.0 JSON with one embedded buffer (see the module
/// docs for the layout).
///
/// Errors: [`Error::WeightsShape`] when the weights do not match the scene;
/// [`Error::InvalidWeight`] / [`Error::RowSum`] for weights that are not finite,
/// non-negative rows summing to 1 within 1e-6; [`Error::InvalidField`] for a bad
/// `scale` or more than 65536 bones.
pub fn export_gltf(scene: &Scene, weights: &Weights, options: &GltfOptions) -> Result<String> {
    let mesh = &scene.mesh;
    let bones = scene.skeleton.bones();
    let (n, nb) = (mesh.vertex_count(), bones.len());
    check_shape(n, weights, nb)?;
    weights.validate_with_tolerance(EXPORT_ROW_SUM_TOLERANCE)?;
    let scale = options.scale;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(Error::field(
            "scale",
            format!("{scale} is not a positive number"),
        ));
    }
    if nb > usize::from(u16::MAX) + 1 {
        return Err(Error::field(
            "bones",
            format!("{nb} bones: JOINTS_0 holds at most 65536"),
        ));
    }

    // glTF stores positions and bind matrices as f32: every scaled coordinate must survive.
    let points = mesh
        .vertices()
        .iter()
        .enumerate()
        .map(|(v, p)| (format!("vertex {v}"), *p));
    let ends = bones.iter().flat_map(|b| {
        [
            (format!("bone {:?} head", b.name), b.head),
            (format!("bone {:?} tail", b.name), b.tail),
        ]
    });
    for (what, p) in points.chain(ends) {
        for x in [p.x, p.y] {
            let y = x * scale;
            if y.is_nan() || y.abs() > f64::from(f32::MAX) {
                return Err(Error::field(
                    "scale",
                    format!("{what}: coordinate {x} times scale {scale:e} overflows f32 (glTF stores f32; at most {:e})", f32::MAX),
                ));
            }
            if x != 0.0 && y.abs() < f64::from(f32::MIN_POSITIVE) {
                return Err(Error::field(
                    "scale",
                    format!("{what}: coordinate {x} times scale {scale:e} underflows f32 to 0 (glTF stores f32; the smallest normal is {:e})", f32::MIN_POSITIVE),
                ));
            }
        }
    }

    let mut buf = BufferBuilder::default();

    // Positions, with min/max of the f32 values actually stored (validators compare exactly).
    let positions: Vec<[f32; 3]> = mesh
        .vertices()
        .iter()
        .map(|p| [(p.x * scale) as f32, (p.y * scale) as f32, 0.0])
        .collect();
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in &positions {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let position_accessor = buf.push(
        &f32_bytes(positions.iter().flatten().copied()),
        Some(ARRAY_BUFFER),
        FLOAT,
        n,
        "VEC3",
    );
    buf.accessors[position_accessor]["min"] = json!(lo);
    buf.accessors[position_accessor]["max"] = json!(hi);

    // JOINTS_0 / WEIGHTS_0: sort, keep 4, renormalize (never the first 4 in bone order).
    let rows: Vec<([usize; 4], [f32; 4])> = weights
        .top_k(GLTF_INFLUENCES)
        .influences()
        .iter()
        .map(|inf| weights_row_f32(inf))
        .collect();
    let (joint_bytes, joint_type): (Vec<u8>, u32) = if nb <= 256 {
        let b = rows.iter().flat_map(|(j, _)| j.map(|x| x as u8)).collect();
        (b, UNSIGNED_BYTE)
    } else {
        let b = rows
            .iter()
            .flat_map(|(j, _)| j.iter().flat_map(|&x| (x as u16).to_le_bytes()))
            .collect();
        (b, UNSIGNED_SHORT)
    };
    let joints_accessor = buf.push(&joint_bytes, Some(ARRAY_BUFFER), joint_type, n, "VEC4");
    let weights_accessor = buf.push(
        &f32_bytes(rows.iter().flat_map(|(_, w)| *w)),
        Some(ARRAY_BUFFER),
        FLOAT,
        n,
        "VEC4",
    );

    // Skeleton: node 0 is the root, node 1 + j is bone j, node 1 + nb the mesh.
    let scaled_bind: Vec<Isometry2<f64>> = scene
        .skeleton
        .bind_transforms()
        .into_iter()
        .map(|mut b| {
            b.translation.vector *= scale;
            b
        })
        .collect();
    let ibm: Vec<f32> = scaled_bind
        .iter()
        .flat_map(|b| isometry_columns(&b.inverse()).map(|x| x as f32))
        .collect();
    // Inverse bind matrices are not vertex data: no buffer-view target.
    let ibm_accessor = buf.push(&f32_bytes(ibm), None, FLOAT, nb, "MAT4");

    let mut nodes = vec![json!({
        "name": scene.name,
        "children": (0..nb).filter(|&j| bones[j].parent.is_none()).map(|j| j + 1).collect::<Vec<_>>(),
    })];
    let mut locals = Vec::with_capacity(nb);
    for (j, bone) in bones.iter().enumerate() {
        let local = match bone.parent {
            Some(p) => scaled_bind[p].inverse() * scaled_bind[j],
            None => scaled_bind[j],
        };
        locals.push(local);
        let half = local.rotation.angle() / 2.0;
        let t = local.translation.vector;
        let mut node = json!({
            "name": bone.name,
            "translation": [t.x, t.y, 0.0],
            "rotation": [0.0, 0.0, half.sin(), half.cos()],
        });
        let children: Vec<usize> = (0..nb)
            .filter(|&c| bones[c].parent == Some(j))
            .map(|c| c + 1)
            .collect();
        if !children.is_empty() {
            node["children"] = json!(children);
        }
        if options.extras {
            let mut extras = json!({ "length": bone.length() * scale });
            if let Some(part) = &bone.part {
                extras["part"] = json!(part);
            }
            if let Some(influences) = &bone.influences {
                extras["influences"] = json!(influences);
            }
            node["extras"] = json!({ "skinweights": extras });
        }
        nodes.push(node);
    }
    nodes.push(json!({ "name": format!("{}_mesh", scene.name), "mesh": 0, "skin": 0 }));

    let attributes = json!({
        "POSITION": position_accessor,
        "JOINTS_0": joints_accessor,
        "WEIGHTS_0": weights_accessor,
    });
    // With art: one primitive per layer and the images (art_export.rs); without: one.
    let art = match &scene.art {
        Some(art) => Some(art_export::export_art(
            scene,
            art,
            &attributes,
            &mut buf,
            options.extras,
        )?),
        None => None,
    };
    let primitives = match &art {
        Some(a) => a.primitives.clone(),
        None => vec![json!({
            "attributes": attributes,
            "indices": push_indices(&mut buf, mesh.triangles(), n),
            "mode": TRIANGLES,
        })],
    };
    let mut gltf_mesh = json!({ "name": scene.name, "primitives": primitives });
    if options.extras && mesh.parts().len() > 1 {
        gltf_mesh["extras"] = json!({ "skinweights": {
            "parts": mesh.parts(),
            "vertex_parts": mesh.vertex_parts(),
        }});
    }

    let animations = animation::write_animations(scene, &locals, scale, |j| j + 1, &mut buf)?;
    buf.pad();
    let mut doc = json!({
        "asset": {
            "version": "2.0",
            "generator": concat!("skinweights ", env!("CARGO_PKG_VERSION")),
        },
        "scene": 0,
        "scenes": [{ "name": scene.name, "nodes": [0, nb + 1] }],
        "nodes": nodes,
        "meshes": [gltf_mesh],
        "skins": [{
            "name": scene.name,
            "joints": (1..=nb).collect::<Vec<_>>(),
            "inverseBindMatrices": ibm_accessor,
            "skeleton": 0,
        }],
        "accessors": buf.accessors,
        "bufferViews": buf.views,
        "buffers": [{
            "byteLength": buf.bytes.len(),
            "uri": format!("data:application/octet-stream;base64,{}", BASE64.encode(&buf.bytes)),
        }],
    });
    if !animations.is_empty() {
        doc["animations"] = json!(animations);
    }
    if let Some(a) = art {
        doc["materials"] = json!(a.materials);
        doc["textures"] = json!(a.textures);
        doc["images"] = json!(a.images);
        doc["samplers"] = json!(a.samplers);
        doc["extensionsUsed"] = json!(["KHR_materials_unlit"]);
    }
    serde_json::to_string_pretty(&doc).map_err(|e| Error::Json {
        context: "glTF export".into(),
        message: e.to_string(),
    })
}

// ---------------------------------------------------------------------------------------
// Import
// ---------------------------------------------------------------------------------------

/// What [`import_gltf`] read: the scene, its weights (when the mesh has `JOINTS_0` /
/// `WEIGHTS_0`) and notes about what was repaired or assumed.
#[derive(Debug, Clone)]
pub struct GltfImport {
    /// Mesh and skeleton (no probes: glTF has none).
    pub scene: Scene,
    /// The weights, columns in the skeleton's bone order.
    pub weights: Option<WeightsFile>,
    /// Repairs and assumptions (flipped winding, renormalized rows, dropped vertices, ...).
    pub notes: Vec<String>,
    /// Images the file embeds (`data:` URIs, buffer views) that the scene's art names by file
    /// name: write them with [`GltfImport::write_embedded_images`] before saving the scene.
    pub embedded_images: Vec<EmbeddedImage>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Doc {
    asset: Asset,
    #[serde(default)]
    accessors: Vec<AccessorJson>,
    #[serde(default)]
    buffer_views: Vec<ViewJson>,
    #[serde(default)]
    buffers: Vec<BufferJson>,
    #[serde(default)]
    meshes: Vec<MeshJson>,
    #[serde(default)]
    nodes: Vec<NodeJson>,
    #[serde(default)]
    skins: Vec<SkinJson>,
    #[serde(default)]
    materials: Vec<texture::MaterialJson>,
    #[serde(default)]
    textures: Vec<texture::TextureJson>,
    #[serde(default)]
    images: Vec<texture::ImageJson>,
    /// Extensions a reader must understand to load the file correctly; this importer
    /// implements none, so any is an error (glTF 2.0 spec, 3.12).
    #[serde(default)]
    extensions_required: Vec<String>,
}

#[derive(Deserialize)]
struct Asset {
    version: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AccessorJson {
    buffer_view: Option<usize>,
    #[serde(default)]
    byte_offset: usize,
    component_type: u32,
    #[serde(default)]
    normalized: bool,
    count: usize,
    #[serde(rename = "type")]
    kind: String,
    sparse: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ViewJson {
    buffer: usize,
    #[serde(default)]
    byte_offset: usize,
    byte_length: usize,
    byte_stride: Option<usize>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BufferJson {
    uri: Option<String>,
    byte_length: usize,
}

#[derive(Deserialize)]
struct MeshJson {
    primitives: Vec<PrimitiveJson>,
    extras: Option<Value>,
}

#[derive(Deserialize)]
struct PrimitiveJson {
    attributes: BTreeMap<String, usize>,
    indices: Option<usize>,
    #[serde(default = "triangles_mode")]
    mode: u32,
    material: Option<usize>,
    /// `extras.skinweights.part`: the layer's part (art_export.rs writes it).
    extras: Option<Value>,
}

fn triangles_mode() -> u32 {
    TRIANGLES
}

#[derive(Deserialize)]
struct NodeJson {
    name: Option<String>,
    #[serde(default)]
    children: Vec<usize>,
    mesh: Option<usize>,
    skin: Option<usize>,
    extras: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SkinJson {
    inverse_bind_matrices: Option<usize>,
    joints: Vec<usize>,
}

/// `list[i]`, or an error naming the missing `what[i]`.
fn lookup<'a, T>(list: &'a [T], i: usize, what: &str) -> Result<&'a T> {
    list.get(i).ok_or_else(|| {
        Error::field(
            format!("{what}[{i}]"),
            format!("does not exist (the file has {} {what})", list.len()),
        )
    })
}

/// The decoded buffers of a document.
fn load_buffers(doc: &Doc, base_dir: Option<&Path>) -> Result<Vec<Vec<u8>>> {
    doc.buffers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let field = format!("buffers[{i}].uri");
            let uri = b
                .uri
                .as_deref()
                .ok_or_else(|| Error::field(&field, "missing (only .glb files have one)"))?;
            let bytes = if let Some(rest) = uri.strip_prefix("data:") {
                let (_, data) = rest
                    .split_once(";base64,")
                    .ok_or_else(|| Error::field(&field, "data URI is not base64"))?;
                BASE64
                    .decode(data)
                    .map_err(|e| Error::field(&field, format!("bad base64: {e}")))?
            } else {
                let name = relative_file(uri).map_err(|m| Error::field(&field, m))?;
                let dir = base_dir.ok_or_else(|| {
                    Error::field(
                        &field,
                        format!("external file {uri:?} but no directory to resolve it"),
                    )
                })?;
                read_file_prefix(&dir.join(name), b.byte_length, &field)?
            };
            if bytes.len() < b.byte_length {
                return Err(Error::field(
                    format!("buffers[{i}].byteLength"),
                    format!("{} but the data has {} bytes", b.byte_length, bytes.len()),
                ));
            }
            Ok(bytes)
        })
        .collect()
}

/// The file name a buffer URI that is not a `data:` URI stands for: percent-decoded, and
/// refused unless it is a relative path that stays in the `.gltf`'s directory (no scheme such
/// as `file:` or `http:`, no absolute path, no `..`).
fn relative_file(uri: &str) -> std::result::Result<String, String> {
    if let Some(scheme) = uri_scheme(uri) {
        return Err(format!(
            "{uri:?}: scheme {scheme}: is not read (only data: URIs and relative file names)"
        ));
    }
    let name = percent_decode(uri);
    if name.is_empty() || name.contains('\0') {
        return Err(format!("{uri:?} is not a file name"));
    }
    if name.starts_with(['/', '\\']) || Path::new(&name).has_root() {
        return Err(format!(
            "{uri:?} is an absolute path (buffer files must lie beside the .gltf)"
        ));
    }
    if name.split(['/', '\\']).any(|c| c == "..") {
        return Err(format!(
            "{uri:?} climbs out of the .gltf's directory with `..`"
        ));
    }
    Ok(name)
}

/// The scheme of a URI (RFC 3986: a letter, then letters, digits, `+`, `-` or `.`, then `:`),
/// if it has one. A Windows drive (`C:\...`) counts as one.
fn uri_scheme(uri: &str) -> Option<&str> {
    let (scheme, _) = uri.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
        .then_some(scheme)
}

/// The first `len` bytes (or fewer, when the file is shorter) of the regular file `path`; a
/// device or a pipe is refused, since reading it might never end.
fn read_file_prefix(path: &Path, len: usize, field: &str) -> Result<Vec<u8>> {
    use std::io::Read as _;
    let io = |e: std::io::Error| Error::io(path, e);
    let file = std::fs::File::open(path).map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return Err(Error::field(
            field,
            format!("{} is not a regular file", path.display()),
        ));
    }
    let mut bytes = Vec::new();
    file.take(u64::try_from(len).unwrap_or(u64::MAX))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    Ok(bytes)
}

/// A relative URI as a file name: `%XX` escapes decoded (glTF URIs follow RFC 3986, so a
/// space is written `%20`); anything malformed is kept as written.
fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads accessors as f64 (normalized integers mapped to [0, 1] / [-1, 1]).
struct Reader<'a> {
    doc: &'a Doc,
    buffers: Vec<Vec<u8>>,
}

/// An accessor's values, `components` per element.
struct Values {
    data: Vec<f64>,
    components: usize,
    component_type: u32,
}

impl Values {
    fn element(&self, i: usize) -> &[f64] {
        &self.data[i * self.components..(i + 1) * self.components]
    }
    fn count(&self) -> usize {
        self.data.len() / self.components
    }
}

/// What an accessor must be in the role it is read for.
struct Want<'a> {
    /// `POSITION`, `indices`, `JOINTS_0`, ...: named in errors.
    role: &'a str,
    kinds: &'a [&'a str],
    component_types: &'a [u32],
    /// The count the accessor must have and what fixes it ("one per POSITION"). Only such an
    /// accessor may lack a bufferView (the spec's all zeros): nothing else bounds its count.
    count: Option<(usize, &'a str)>,
    /// Index data: its buffer view must not have a byteStride.
    indices: bool,
}

/// Largest `byteStride` the spec allows.
const MAX_STRIDE: usize = 252;

impl Reader<'_> {
    /// The bytes of buffer view `view_index`, checked to lie inside its buffer.
    fn view_bytes(&self, view_index: usize) -> Result<&[u8]> {
        let view = lookup(&self.doc.buffer_views, view_index, "bufferViews")?;
        let buffer = lookup(&self.buffers, view.buffer, "buffers")?;
        let view_end = view
            .byte_offset
            .checked_add(view.byte_length)
            .filter(|&end| end <= buffer.len())
            .ok_or_else(|| {
                Error::field(
                    format!("bufferViews[{view_index}].byteLength"),
                    format!(
                        "{} bytes from byteOffset {} lie outside buffers[{}] ({} bytes)",
                        view.byte_length,
                        view.byte_offset,
                        view.buffer,
                        buffer.len()
                    ),
                )
            })?;
        Ok(&buffer[view.byte_offset..view_end])
    }

    /// Accessor `index`, checked against `want` and against its buffer view and buffer before
    /// anything is allocated: what it reads lies in the file.
    fn read(&self, index: usize, want: &Want) -> Result<Values> {
        let a = lookup(&self.doc.accessors, index, "accessors")?;
        let role = want.role;
        let at = |f: &str| format!("accessors[{index}].{f}");
        if !want.kinds.contains(&a.kind.as_str())
            || !want.component_types.contains(&a.component_type)
        {
            return Err(Error::field(
                format!("accessors[{index}] ({role})"),
                format!(
                    "type {} / componentType {} (expected {:?} of {:?})",
                    a.kind, a.component_type, want.kinds, want.component_types
                ),
            ));
        }
        if a.sparse.is_some() {
            return Err(Error::field(
                at("sparse"),
                format!("sparse accessors are not supported ({role})"),
            ));
        }
        let components = match a.kind.as_str() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            other => return Err(Error::field(at("type"), format!("unsupported {other}"))),
        };
        let size = match a.component_type {
            BYTE | UNSIGNED_BYTE => 1,
            SHORT | UNSIGNED_SHORT => 2,
            _ => 4,
        };
        if let Some((expected, why)) = want.count {
            if a.count != expected {
                return Err(Error::field(
                    at("count"),
                    format!("{} {role} elements, expected {expected} ({why})", a.count),
                ));
            }
        }
        let Some(view_index) = a.buffer_view else {
            // The spec: no buffer view means all zeros. The count was checked above.
            if want.count.is_none() {
                return Err(Error::field(
                    at("bufferView"),
                    format!(
                        "missing: {role} would be all zeros (the spec's default), which makes \
                         no mesh"
                    ),
                ));
            }
            return Ok(Values {
                data: vec![0.0; a.count * components],
                components,
                component_type: a.component_type,
            });
        };
        let view_at = |f: &str| format!("bufferViews[{view_index}].{f}");
        let view = lookup(&self.doc.buffer_views, view_index, "bufferViews")?;
        let bytes = self.view_bytes(view_index)?;
        let element = components * size;
        if let Some(stride) = view.byte_stride {
            if want.indices {
                return Err(Error::field(
                    view_at("byteStride"),
                    format!("{stride}, but index data (accessors[{index}]) has no stride"),
                ));
            }
            if stride % 4 != 0 || !(4..=MAX_STRIDE).contains(&stride) {
                return Err(Error::field(
                    view_at("byteStride"),
                    format!("{stride} (must be a multiple of 4 in 4..={MAX_STRIDE})"),
                ));
            }
            if stride < element {
                return Err(Error::field(
                    view_at("byteStride"),
                    format!(
                        "{stride} is less than the {element}-byte elements of accessors[{index}]"
                    ),
                ));
            }
        }
        let stride = view.byte_stride.unwrap_or(element);
        if a.byte_offset % size != 0 {
            return Err(Error::field(
                at("byteOffset"),
                format!(
                    "{} is not a multiple of the component size {size}",
                    a.byte_offset
                ),
            ));
        }
        // With the accessor's offset aligned, its start in the buffer is aligned iff the view's is.
        if view.byte_offset % size != 0 {
            return Err(Error::field(
                view_at("byteOffset"),
                format!(
                    "{}: accessors[{index}] would start at a buffer offset that is not a multiple \
                     of its component size {size}",
                    view.byte_offset
                ),
            ));
        }
        if a.byte_offset > view.byte_length {
            return Err(Error::field(
                at("byteOffset"),
                format!(
                    "{} is past the end of bufferViews[{view_index}] ({} bytes)",
                    a.byte_offset, view.byte_length
                ),
            ));
        }
        // Bytes the accessor spans: byteOffset + stride * (count - 1) + element.
        let span = match a.count {
            0 => Some(0),
            c => (c - 1)
                .checked_mul(stride)
                .and_then(|x| x.checked_add(element))
                .and_then(|x| x.checked_add(a.byte_offset)),
        };
        if span.is_none_or(|s| s > view.byte_length) {
            return Err(Error::field(
                at("count"),
                format!(
                    "{} elements of {element} bytes (stride {stride}) from byteOffset {} overrun \
                     bufferViews[{view_index}] ({} bytes)",
                    a.count, a.byte_offset, view.byte_length
                ),
            ));
        }
        // Within the view: count * components <= byteLength / size, so this is bounded by the file.
        let mut data = Vec::with_capacity(a.count * components);
        for e in 0..a.count {
            let start = a.byte_offset + e * stride;
            for c in bytes[start..start + element].chunks_exact(size) {
                data.push(component(c, a.component_type, a.normalized));
            }
        }
        if let Some(i) = data.iter().position(|x| !x.is_finite()) {
            return Err(Error::field(
                format!("accessors[{index}] ({role})"),
                format!("element {} is not finite", i / components),
            ));
        }
        Ok(Values {
            data,
            components,
            component_type: a.component_type,
        })
    }
}

/// One little-endian component as f64 (normalized integers mapped to [0, 1] / [-1, 1]).
fn component(c: &[u8], component_type: u32, normalized: bool) -> f64 {
    let raw = match component_type {
        BYTE => f64::from(c[0] as i8),
        UNSIGNED_BYTE => f64::from(c[0]),
        SHORT => f64::from(i16::from_le_bytes([c[0], c[1]])),
        UNSIGNED_SHORT => f64::from(u16::from_le_bytes([c[0], c[1]])),
        UNSIGNED_INT => f64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        _ => f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    };
    if !normalized {
        return raw;
    }
    match component_type {
        BYTE => (raw / 127.0).max(-1.0),
        UNSIGNED_BYTE => raw / 255.0,
        SHORT => (raw / 32767.0).max(-1.0),
        UNSIGNED_SHORT => raw / 65535.0,
        _ => raw,
    }
}

/// Reads a glTF 2.0 file (`.gltf` JSON; buffers embedded or next to it) holding a skinned
/// mesh in a plane. The scene is named after the file stem. See the module docs for what is
/// read and how.
pub fn import_gltf(path: impl AsRef<Path>) -> Result<GltfImport> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    if bytes.starts_with(b"glTF") {
        return Err(Error::field(
            path.display().to_string(),
            "binary glTF (.glb) is not supported: convert it to .gltf (e.g. gltf-transform copy)",
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| Error::Json {
        context: path.display().to_string(),
        message: e.to_string(),
    })?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "gltf".into());
    import_gltf_str(&text, path.parent(), &name).map_err(|e| e.in_file(path))
}

/// Most joints a skin may have: `JOINTS_n` are at most `UNSIGNED_SHORT`, so no vertex can be
/// weighted to a joint past 65535.
pub const MAX_JOINTS: usize = 1 << 16;

/// Most entries (vertices x joints) of the dense weight matrix an import builds: 2^28 f64,
/// 2 GiB. Far above any real 2D character (3,000 vertices x 70 bones is 2^18).
pub const MAX_WEIGHT_ENTRIES: usize = 1 << 28;

/// [`import_gltf`] on JSON text; `base_dir` resolves external buffer files.
pub fn import_gltf_str(text: &str, base_dir: Option<&Path>, name: &str) -> Result<GltfImport> {
    let doc: Doc = serde_json::from_str(text).map_err(|e| Error::Json {
        context: "glTF".into(),
        message: e.to_string(),
    })?;
    if !doc.asset.version.starts_with("2.") {
        return Err(Error::field(
            "asset.version",
            format!("{:?} (only glTF 2.x is read)", doc.asset.version),
        ));
    }
    if let Some(ext) = doc.extensions_required.first() {
        return Err(Error::field(
            "extensionsRequired",
            format!("the file requires extension {ext:?}, which this importer does not support"),
        ));
    }
    let skinned: Vec<(usize, usize, usize)> = doc
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| Some((i, n.mesh?, n.skin?)))
        .collect();
    let &(node_index, mesh_index, skin_index) = skinned
        .first()
        .ok_or_else(|| Error::field("nodes", "no node has both a mesh and a skin"))?;
    let gltf_mesh = lookup(&doc.meshes, mesh_index, "meshes")?;
    let skin = lookup(&doc.skins, skin_index, "skins")?;
    if skin.joints.is_empty() {
        return Err(Error::field(
            format!("skins[{skin_index}].joints"),
            "empty (a skin needs at least one joint)",
        ));
    }
    if skin.joints.len() > MAX_JOINTS {
        return Err(Error::field(
            format!("skins[{skin_index}].joints"),
            format!(
                "{} joints (at most {MAX_JOINTS}: JOINTS_n cannot name more)",
                skin.joints.len()
            ),
        ));
    }
    let reader = Reader {
        buffers: load_buffers(&doc, base_dir)?,
        doc: &doc,
    };
    let mut notes = Vec::new();
    if skinned.len() > 1 {
        notes.push(format!(
            "read node {node_index} (mesh {mesh_index}, skin {skin_index}), the first of {} \
             skinned mesh nodes",
            skinned.len()
        ));
    }

    let (streams, primitives) = read_primitives(&reader, gltf_mesh, mesh_index, skin.joints.len())?;
    let geometry = plane_geometry(&streams, &primitives, &mut notes)?;
    let (parts, vertex_parts) =
        mesh_parts(gltf_mesh, mesh_index, &streams, &primitives, &geometry.kept)?;
    let entries = geometry.vertices.len().saturating_mul(skin.joints.len());
    if geometry.weights.is_some() && entries > MAX_WEIGHT_ENTRIES {
        return Err(Error::field(
            format!("skins[{skin_index}].joints"),
            format!(
                "{} joints x {} vertices = {entries} weights (at most {MAX_WEIGHT_ENTRIES} are \
                 imported)",
                skin.joints.len(),
                geometry.vertices.len()
            ),
        ));
    }
    let (mesh, flipped) =
        Mesh::with_parts_fix_winding(geometry.vertices, geometry.triangles, parts, vertex_parts)?;
    if flipped {
        notes.push(format!(
            "all {} triangles were clockwise seen from +z (the mesh faces -z): flipped",
            mesh.triangle_count()
        ));
    }
    let skeleton = read_skeleton(
        &reader,
        skin,
        skin_index,
        &mesh,
        geometry.plane_z,
        &mut notes,
    )?;
    let weights = match &geometry.weights {
        Some(rows) => Some(normalized_weights(rows, skeleton.len(), &mut notes)?),
        None => {
            notes.push("the mesh has no JOINTS_0 / WEIGHTS_0: no weights".into());
            None
        }
    };
    let vertex_counts: Vec<usize> = primitives
        .iter()
        .map(|p| streams[p.stream].positions.count())
        .collect();
    let art = texture::read_art(
        &reader,
        &gltf_mesh.primitives,
        mesh_index,
        &vertex_counts,
        &mesh,
        &geometry.kept,
        name,
        base_dir,
        &mut notes,
    )?;
    let mut scene = Scene::new(name, mesh, skeleton, vec![])?;
    let mut embedded_images = Vec::new();
    if let Some((art, embedded)) = art {
        scene = scene.with_art(art)?;
        embedded_images = embedded;
    }
    let weights = weights
        .map(|w| WeightsFile::new(&scene.name, GLTF_SOLVER_NAME, scene.skeleton.names(), &w));
    Ok(GltfImport {
        scene,
        weights,
        notes,
        embedded_images,
    })
}

/// The vertices of one POSITION accessor, with the skin attributes read beside it. Primitives
/// that name the same POSITION and JOINTS_n / WEIGHTS_n accessors share one stream, so a
/// vertex they share is read once.
struct Stream {
    positions: Values,
    /// Sparse weights per vertex: (joint, weight), from every JOINTS_n / WEIGHTS_n pair.
    influences: Option<Vec<Vec<(usize, f64)>>>,
}

/// One triangle primitive: its triangles index the vertices of `streams[stream]`.
struct Primitive {
    stream: usize,
    triangles: Vec<[usize; 3]>,
}

/// Reads every primitive of the mesh, each distinct vertex stream once.
fn read_primitives(
    reader: &Reader,
    gltf_mesh: &MeshJson,
    mesh_index: usize,
    joint_count: usize,
) -> Result<(Vec<Stream>, Vec<Primitive>)> {
    let mut streams: Vec<Stream> = Vec::new();
    // (POSITION, [(JOINTS_n, WEIGHTS_n)]) -> stream.
    let mut stream_of: BTreeMap<(usize, Vec<(usize, usize)>), usize> = BTreeMap::new();
    // Errors count vertices through the streams in order: the number of the first of each.
    let mut bases: Vec<usize> = Vec::new();
    let mut vertex_total = 0;
    let mut primitives: Vec<Primitive> = Vec::new();
    // Errors count triangles through the primitives in order.
    let mut triangle_base = 0;
    for (p, prim) in gltf_mesh.primitives.iter().enumerate() {
        let at = format!("meshes[{mesh_index}].primitives[{p}]");
        if prim.mode != TRIANGLES {
            return Err(Error::field(
                format!("{at}.mode"),
                format!("{} (only triangles, mode 4, are read)", prim.mode),
            ));
        }
        let position = *prim
            .attributes
            .get("POSITION")
            .ok_or_else(|| Error::field(format!("{at}.attributes.POSITION"), "missing"))?;
        let mut sets = Vec::new();
        while let (Some(&j), Some(&w)) = (
            prim.attributes.get(&format!("JOINTS_{}", sets.len())),
            prim.attributes.get(&format!("WEIGHTS_{}", sets.len())),
        ) {
            sets.push((j, w));
        }
        let key = (position, sets);
        let stream = match stream_of.get(&key) {
            Some(&s) => s,
            None => {
                let stream = read_stream(reader, position, &key.1, vertex_total, joint_count)?;
                bases.push(vertex_total);
                vertex_total += stream.positions.count();
                streams.push(stream);
                stream_of.insert(key, streams.len() - 1);
                streams.len() - 1
            }
        };
        let n = streams[stream].positions.count();
        let indices: Vec<usize> = match prim.indices {
            Some(i) => reader
                .read(
                    i,
                    &Want {
                        role: "indices",
                        kinds: &["SCALAR"],
                        component_types: &[UNSIGNED_BYTE, UNSIGNED_SHORT, UNSIGNED_INT],
                        count: None,
                        indices: true,
                    },
                )?
                .data
                .iter()
                .map(|&x| x as usize)
                .collect(),
            None => (0..n).collect(),
        };
        if indices.len() % 3 != 0 {
            return Err(Error::field(
                format!("{at}.indices"),
                format!("{} indices is not a multiple of 3", indices.len()),
            ));
        }
        let triangles: Vec<[usize; 3]> = indices
            .chunks_exact(3)
            .map(|t| [t[0], t[1], t[2]])
            .collect();
        let base = bases[stream];
        for (t, tri) in triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i >= n) {
                return Err(Error::IndexOutOfRange {
                    triangle: triangle_base + t,
                    index: base + index,
                    vertex_count: base + n,
                });
            }
        }
        triangle_base += triangles.len();
        primitives.push(Primitive { stream, triangles });
    }
    if primitives.is_empty() {
        return Err(Error::field(
            format!("meshes[{mesh_index}].primitives"),
            "empty",
        ));
    }
    let with_weights = streams.iter().filter(|s| s.influences.is_some()).count();
    if with_weights != 0 && with_weights != streams.len() {
        return Err(Error::field(
            format!("meshes[{mesh_index}].primitives"),
            format!(
                "{with_weights} of {} vertex streams (POSITION accessors) have JOINTS_0 / \
                 WEIGHTS_0",
                streams.len()
            ),
        ));
    }
    Ok((streams, primitives))
}

/// Reads the POSITION accessor `position` and its `(JOINTS_n, WEIGHTS_n)` accessors; `base`
/// numbers its first vertex in errors.
fn read_stream(
    reader: &Reader,
    position: usize,
    sets: &[(usize, usize)],
    base: usize,
    joint_count: usize,
) -> Result<Stream> {
    let positions = reader.read(
        position,
        &Want {
            role: "POSITION",
            kinds: &["VEC3"],
            component_types: &[FLOAT],
            count: None,
            indices: false,
        },
    )?;
    let n = positions.count();
    let mut influences: Option<Vec<Vec<(usize, f64)>>> = None;
    for (set, &(j, w)) in sets.iter().enumerate() {
        let per_position = Some((n, "one per POSITION"));
        let joints = reader.read(
            j,
            &Want {
                role: &format!("JOINTS_{set}"),
                kinds: &["VEC4"],
                component_types: &[UNSIGNED_BYTE, UNSIGNED_SHORT],
                count: per_position,
                indices: false,
            },
        )?;
        let weights = reader.read(
            w,
            &Want {
                role: &format!("WEIGHTS_{set}"),
                kinds: &["VEC4"],
                component_types: &[FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT],
                count: per_position,
                indices: false,
            },
        )?;
        if weights.component_type != FLOAT && !reader.doc.accessors[w].normalized {
            return Err(Error::field(
                format!("accessors[{w}].normalized"),
                format!("false, but integer WEIGHTS_{set} must be normalized"),
            ));
        }
        let rows = influences.get_or_insert_with(|| vec![Vec::new(); n]);
        for (v, row) in rows.iter_mut().enumerate() {
            for (&joint, &weight) in joints.element(v).iter().zip(weights.element(v)) {
                if weight == 0.0 {
                    continue; // padding; its joint index does not matter
                }
                // An UNSIGNED_BYTE / UNSIGNED_SHORT value: exact in f64 and in usize.
                let joint = joint as usize;
                if weight < 0.0 {
                    return Err(Error::InvalidWeight {
                        vertex: base + v,
                        bone: joint,
                        value: weight,
                    });
                }
                if joint >= joint_count {
                    return Err(Error::JointOutOfRange {
                        vertex: base + v,
                        joint,
                        joints: joint_count,
                    });
                }
                row.push((joint, weight));
            }
        }
    }
    Ok(Stream {
        positions,
        influences,
    })
}

/// The streams merged into one planar vertex list.
struct Geometry {
    vertices: Vec<Point2<f64>>,
    triangles: Vec<[usize; 3]>,
    /// The plane the mesh lies in.
    plane_z: f64,
    /// Per kept vertex, where it came from.
    kept: Vec<Kept>,
    weights: Option<Vec<Vec<(usize, f64)>>>,
}

/// Where a kept vertex came from.
#[derive(Clone, Copy)]
struct Kept {
    /// The first primitive (in the mesh's order) whose triangles use it: it gives the part.
    primitive: usize,
    /// Its index in its stream.
    vertex: usize,
}

/// Concatenates the streams, checks that every vertex lies in the plane z = z of the first
/// vertex, and drops vertices no triangle uses (a note counts them).
fn plane_geometry(
    streams: &[Stream],
    primitives: &[Primitive],
    notes: &mut Vec<String>,
) -> Result<Geometry> {
    let all: Vec<&[f64]> = streams
        .iter()
        .flat_map(|s| (0..s.positions.count()).map(|v| s.positions.element(v)))
        .collect();
    let extent = all
        .iter()
        .flat_map(|p| p.iter().copied())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let plane_z = all.first().map_or(0.0, |p| p[2]);
    if let Some((vertex, p)) = all
        .iter()
        .enumerate()
        .find(|(_, p)| (p[2] - plane_z).abs() > PLANE_TOLERANCE * extent.max(f64::MIN_POSITIVE))
    {
        return Err(Error::NonPlanarMesh {
            vertex,
            z: p[2],
            plane_z,
        });
    }
    // Per stream vertex, the first primitive that uses it (usize::MAX: none).
    let mut first_use: Vec<Vec<usize>> = streams
        .iter()
        .map(|s| vec![usize::MAX; s.positions.count()])
        .collect();
    for (pi, prim) in primitives.iter().enumerate() {
        let uses = &mut first_use[prim.stream];
        for &i in prim.triangles.iter().flatten() {
            uses[i] = uses[i].min(pi);
        }
    }
    let mut geometry = Geometry {
        vertices: Vec::new(),
        triangles: Vec::new(),
        plane_z,
        kept: Vec::new(),
        weights: streams[0].influences.as_ref().map(|_| Vec::new()),
    };
    let mut dropped = 0;
    // Per stream vertex, its index in the merged mesh; first_use turns into it.
    for (stream, uses) in streams.iter().zip(&mut first_use) {
        for (v, slot) in uses.iter_mut().enumerate() {
            if *slot == usize::MAX {
                dropped += 1;
                continue;
            }
            geometry.kept.push(Kept {
                primitive: *slot,
                vertex: v,
            });
            *slot = geometry.vertices.len();
            let p = stream.positions.element(v);
            geometry.vertices.push(Point2::new(p[0], p[1]));
            if let (Some(out), Some(rows)) = (&mut geometry.weights, &stream.influences) {
                out.push(rows[v].clone());
            }
        }
    }
    for prim in primitives {
        let new_index = &first_use[prim.stream];
        geometry
            .triangles
            .extend(prim.triangles.iter().map(|t| t.map(|i| new_index[i])));
    }
    if dropped > 0 {
        notes.push(format!("dropped {dropped} vertices that no triangle uses"));
    }
    if plane_z != 0.0 {
        notes.push(format!("the mesh lies in the plane z = {plane_z}"));
    }
    Ok(geometry)
}

/// Part names and per-vertex labels: from `extras.skinweights` when present, else one part
/// per primitive (one default part for a single primitive); a vertex that several primitives
/// use belongs to the first of them.
fn mesh_parts(
    gltf_mesh: &MeshJson,
    mesh_index: usize,
    streams: &[Stream],
    primitives: &[Primitive],
    kept: &[Kept],
) -> Result<(Vec<String>, Vec<usize>)> {
    if let Some(extras) = gltf_mesh.extras.as_ref().and_then(|e| e.get("skinweights")) {
        #[derive(Deserialize)]
        struct PartsExtras {
            parts: Vec<String>,
            vertex_parts: Vec<usize>,
        }
        let field = format!("meshes[{mesh_index}].extras.skinweights");
        let e: PartsExtras = serde_json::from_value(extras.clone())
            .map_err(|e| Error::field(&field, e.to_string()))?;
        let total: usize = streams.iter().map(|s| s.positions.count()).sum();
        // The labels number the vertices of the one POSITION accessor.
        if e.vertex_parts.len() != total || streams.len() != 1 {
            return Err(Error::field(
                format!("{field}.vertex_parts"),
                format!(
                    "{} labels for {total} vertices in {} POSITION accessors (one expected)",
                    e.vertex_parts.len(),
                    streams.len()
                ),
            ));
        }
        let labels = kept.iter().map(|k| e.vertex_parts[k.vertex]).collect();
        return Ok((e.parts, labels));
    }
    if primitives.len() == 1 {
        return Ok((vec![DEFAULT_PART.to_string()], vec![0; kept.len()]));
    }
    Ok((
        (0..primitives.len())
            .map(|p| format!("primitive{p}"))
            .collect(),
        kept.iter().map(|k| k.primitive).collect(),
    ))
}

fn read_skeleton(
    reader: &Reader,
    skin: &SkinJson,
    skin_index: usize,
    mesh: &Mesh,
    plane_z: f64,
    notes: &mut Vec<String>,
) -> Result<Skeleton> {
    let doc = reader.doc;
    let nj = skin.joints.len();
    let mut joint_of_node = vec![None; doc.nodes.len()];
    for (k, &node) in skin.joints.iter().enumerate() {
        lookup(&doc.nodes, node, "nodes")?;
        if joint_of_node[node].replace(k).is_some() {
            return Err(Error::field(
                format!("skins[{skin_index}].joints"),
                format!("node {node} is listed twice"),
            ));
        }
    }
    let joint_above = joints_above(&doc.nodes, &joint_of_node)?;
    // World bind matrices: inverses of the inverse bind matrices.
    let bind: Vec<Matrix4<f64>> = match skin.inverse_bind_matrices {
        Some(a) => {
            let m = reader.read(
                a,
                &Want {
                    role: "inverseBindMatrices",
                    kinds: &["MAT4"],
                    component_types: &[FLOAT],
                    count: Some((nj, "one per skin joint")),
                    indices: false,
                },
            )?;
            (0..nj)
                .map(|k| {
                    Matrix4::from_column_slice(m.element(k))
                        .try_inverse()
                        .ok_or_else(|| {
                            Error::field(
                                format!("accessors[{a}] (inverseBindMatrices)"),
                                format!("matrix {k} is singular"),
                            )
                        })
                })
                .collect::<Result<_>>()?
        }
        None => vec![Matrix4::identity(); nj],
    };
    let heads: Vec<Point2<f64>> = bind
        .iter()
        .map(|b| Point2::new(b[(0, 3)], b[(1, 3)]))
        .collect();
    let (lo, hi) = mesh.bounds();
    let size = (hi.x - lo.x).max(hi.y - lo.y);
    let off_plane = bind
        .iter()
        .map(|b| (b[(2, 3)] - plane_z).abs())
        .fold(0.0, f64::max);
    if off_plane > PLANE_TOLERANCE * size {
        notes.push(format!(
            "joints lie up to {off_plane} off the mesh plane: projected onto it"
        ));
    }
    let x_axes: Vec<Vector2<f64>> = bind
        .iter()
        .map(|b| {
            let x = Vector2::new(b[(0, 0)], b[(1, 0)]);
            // A joint whose x axis points out of the plane keeps the world x axis.
            if x.norm() > 1e-9 {
                x.normalize()
            } else {
                Vector2::x()
            }
        })
        .collect();
    let parents: Vec<Option<usize>> = skin.joints.iter().map(|&n| joint_above[n]).collect();
    let mut children = vec![Vec::new(); nj];
    for (k, p) in parents.iter().enumerate() {
        if let Some(p) = *p {
            children[p].push(k);
        }
    }

    let leaf_length = LEAF_BONE_FRACTION * size;
    let names = joint_names(doc, &skin.joints);
    let mut bones = Vec::with_capacity(nj);
    for (k, &node) in skin.joints.iter().enumerate() {
        let extras = doc.nodes[node]
            .extras
            .as_ref()
            .and_then(|e| e.get("skinweights"));
        let length = match extras.and_then(|e| e.get("length")) {
            None => None,
            Some(l) => match l.as_f64() {
                Some(l) if l.is_finite() && l > 0.0 => Some(l),
                _ => {
                    return Err(Error::field(
                        format!("nodes[{node}].extras.skinweights.length"),
                        format!("{l} is not a positive number"),
                    ))
                }
            },
        };
        let tail = match (length, children[k].as_slice()) {
            (Some(l), _) => heads[k] + l * x_axes[k],
            (None, &[c]) if (heads[c] - heads[k]).norm() > 1e-9 * leaf_length => heads[c],
            _ => heads[k] + leaf_length * x_axes[k],
        };
        let mut bone = Bone::new(names[k].clone(), heads[k], tail);
        bone.parent = parents[k];
        if let Some(e) = extras {
            bone.part = e.get("part").and_then(Value::as_str).map(str::to_string);
            bone.influences = e.get("influences").and_then(|i| {
                i.as_array().map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
            });
        }
        bones.push(bone);
    }
    Skeleton::new(bones)
}

/// For every node, the joint (index in the skin, from `joint_of_node`) nearest above it: its
/// parent when that is a joint, else the parent's. The node graph must be a forest: a node
/// listed as a child twice, or a cycle of children, is an error. Linear in the node count,
/// without recursion.
fn joints_above(nodes: &[NodeJson], joint_of_node: &[Option<usize>]) -> Result<Vec<Option<usize>>> {
    let mut parent_of = vec![None; nodes.len()];
    for (p, node) in nodes.iter().enumerate() {
        for (i, &c) in node.children.iter().enumerate() {
            if c >= nodes.len() {
                return Err(Error::field(
                    format!("nodes[{p}].children[{i}]"),
                    format!(
                        "node {c} does not exist (the file has {} nodes)",
                        nodes.len()
                    ),
                ));
            }
            if let Some(first) = parent_of[c].replace(p) {
                return Err(Error::field(
                    format!("nodes[{c}]"),
                    format!("is a child of both nodes {first} and {p}"),
                ));
            }
        }
    }
    // Walk down from the roots, parents before children.
    let mut order: Vec<usize> = (0..nodes.len())
        .filter(|&i| parent_of[i].is_none())
        .collect();
    let mut joint_above = vec![None; nodes.len()];
    let mut next = 0;
    while let Some(&p) = order.get(next) {
        next += 1;
        for &c in &nodes[p].children {
            joint_above[c] = joint_of_node[p].or(joint_above[p]);
            order.push(c);
        }
    }
    if order.len() < nodes.len() {
        // A node no root reaches: with one parent each, going up from it ends in a cycle,
        // which `nodes.len()` steps up is certainly inside of.
        let mut reached = vec![false; nodes.len()];
        order.iter().for_each(|&i| reached[i] = true);
        let mut at = reached.iter().position(|r| !r).unwrap_or(0);
        for _ in 0..nodes.len() {
            at = parent_of[at].unwrap_or(at);
        }
        return Err(Error::field(
            format!("nodes[{at}]"),
            "is its own ancestor (its children lead back to it)",
        ));
    }
    Ok(joint_above)
}

/// Bone names: the joint node's name, or `joint<k>` when it has none; repeated names get the
/// joint index appended so that every bone is addressable.
fn joint_names(doc: &Doc, joints: &[usize]) -> Vec<String> {
    let raw: Vec<String> = joints
        .iter()
        .enumerate()
        .map(|(k, &node)| {
            doc.nodes[node]
                .name
                .clone()
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| format!("joint{k}"))
        })
        .collect();
    let mut uses: BTreeMap<&str, usize> = BTreeMap::new();
    for n in &raw {
        *uses.entry(n).or_default() += 1;
    }
    raw.iter()
        .enumerate()
        .map(|(k, n)| {
            if uses[n.as_str()] > 1 {
                format!("{n}#{k}")
            } else {
                n.clone()
            }
        })
        .collect()
}

/// Dense, renormalized weights from sparse rows; a row with no weight is an error.
fn normalized_weights(
    rows: &[Vec<(usize, f64)>],
    joints: usize,
    notes: &mut Vec<String>,
) -> Result<Weights> {
    let mut w = Weights::zeros(rows.len(), joints);
    let mut off = (0usize, 0.0f64);
    for (v, row) in rows.iter().enumerate() {
        let dense = w.row_mut(v);
        for &(j, x) in row {
            dense[j] += x;
        }
        let sum: f64 = dense.iter().sum();
        if sum <= 0.0 {
            return Err(Error::RowSum {
                vertex: v,
                sum,
                tolerance: ROW_SUM_NOTE,
            });
        }
        if (sum - 1.0).abs() > ROW_SUM_NOTE {
            off = (off.0 + 1, off.1.max((sum - 1.0).abs()));
        }
        dense.iter_mut().for_each(|x| *x /= sum);
    }
    if off.0 > 0 {
        notes.push(format!(
            "{} vertices' weights did not sum to 1 (off by up to {:.3e}): renormalized",
            off.0, off.1
        ));
    }
    Ok(w)
}
