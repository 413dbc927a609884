//! glTF export: the scene and its top-4 weights as one `.gltf` JSON file with one embedded
//! buffer (the layout is in the module documentation of [`super`]).

use super::{animation_export, art_export, morph_export};
use super::{
    ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, FLOAT, GLTF_INFLUENCES, TRIANGLES, UNSIGNED_BYTE,
    UNSIGNED_INT, UNSIGNED_SHORT,
};
use crate::error::{ArgumentError, Error, FormatError, Result};
use crate::io::scene_json::{probe_files, ProbeFile};
use crate::mesh::Mesh;
use crate::scene::{Probe, Scene};
use crate::skeleton::Bone;
use crate::skinning::check_shape;
use crate::weights::{Weights, EXPORT_ROW_SUM_TOLERANCE};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use nalgebra::{Isometry2, Point2};
use serde_json::{json, Value};

/// Options of the glTF writer ([`crate::io::ExportOptions::gltf_scale`] and
/// [`crate::io::ExportOptions::gltf_extras`] set them).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct GltfOptions {
    /// Multiplies every coordinate (glTF units are metres: 0.01 turns a 200 px character into
    /// a 2 m one in Blender). Default [`Self::DEFAULT_SCALE`], 1.
    pub scale: f64,
    /// Write `extras.skinweights` (bone lengths, parts, influences) so that
    /// [`import_gltf`](super::import_gltf) gets the scene back. Default
    /// [`Self::DEFAULT_EXTRAS`], true.
    pub extras: bool,
}

impl Default for GltfOptions {
    fn default() -> Self {
        GltfOptions {
            scale: Self::DEFAULT_SCALE,
            extras: Self::DEFAULT_EXTRAS,
        }
    }
}

impl GltfOptions {
    /// Default [`Self::scale`]: 1.
    pub const DEFAULT_SCALE: f64 = 1.0;
    /// Default [`Self::extras`]: true.
    pub const DEFAULT_EXTRAS: bool = true;

    /// These options multiplying every coordinate by `scale`.
    pub fn with_scale(mut self, scale: f64) -> Self {
        self.scale = scale;
        self
    }

    /// These options writing `extras.skinweights` or not.
    pub fn with_extras(mut self, extras: bool) -> Self {
        self.extras = extras;
        self
    }
}

/// Accumulates the one binary buffer, its buffer views and one accessor per view.
#[derive(Default)]
pub(super) struct BufferBuilder {
    pub(super) bytes: Vec<u8>,
    pub(super) views: Vec<Value>,
    pub(super) accessors: Vec<Value>,
}

impl BufferBuilder {
    /// Appends `data` as a new buffer view, starting on a 4-byte boundary (glTF requires
    /// accessor offsets aligned to their component size; 4 covers every type), and an
    /// accessor over all of it. Returns the accessor's index.
    pub(super) fn push(
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

    pub(super) fn pad(&mut self) {
        while self.bytes.len() % 4 != 0 {
            self.bytes.push(0);
        }
    }
}

/// Appends `triangles` as an index accessor over `vertex_count` vertices and returns it.
/// 65535 is reserved as a primitive-restart value, so `UNSIGNED_SHORT` only below it.
pub(super) fn push_indices(
    buf: &mut BufferBuilder,
    triangles: &[[usize; 3]],
    vertex_count: usize,
) -> usize {
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

/// Little-endian bytes of f32 values.
pub(super) fn f32_bytes(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
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
/// Errors: [`WeightsError::WeightsShape`](crate::error::WeightsError::WeightsShape) when the weights do not match the scene;
/// [`WeightsError::InvalidWeight`](crate::error::WeightsError::InvalidWeight) / [`WeightsError::RowSum`](crate::error::WeightsError::RowSum) for weights that are not finite,
/// non-negative rows summing to 1 within 1e-6; [`ArgumentError::InvalidArgument`] for a bad
/// `scale` (one that is not positive, or that takes a coordinate outside f32);
/// [`FormatError::InvalidField`] for more than 65536 bones (`JOINTS_0` cannot name them).
pub(crate) fn export_gltf(
    scene: &Scene,
    weights: &Weights,
    options: &GltfOptions,
) -> Result<String> {
    let (mut doc, bytes) = export_document(scene, weights, options)?;
    doc["buffers"][0]["uri"] = json!(format!(
        "data:application/octet-stream;base64,{}",
        BASE64.encode(&bytes)
    ));
    json_text(&doc, true)
}

/// The same document as [`export_gltf`] as binary glTF (`.glb`): the JSON in the first
/// chunk, the buffer in the BIN chunk instead of a base64 `data:` URI (images stay `data:`
/// URIs). [`import_gltf`](super::import_gltf) reads it back.
///
/// Errors: those of [`export_gltf`], and [`FormatError::InvalidField`] for a file over 4 GiB.
pub(crate) fn export_glb(
    scene: &Scene,
    weights: &Weights,
    options: &GltfOptions,
) -> Result<Vec<u8>> {
    let (doc, bytes) = export_document(scene, weights, options)?;
    super::glb::glb_bytes(&json_text(&doc, false)?, &bytes)
}

/// The document serialized, indented or compact.
fn json_text(doc: &Value, pretty: bool) -> Result<String> {
    let text = if pretty {
        serde_json::to_string_pretty(doc)
    } else {
        serde_json::to_string(doc)
    };
    text.map_err(|e| {
        Error::Format(FormatError::Json {
            context: "glTF export".into(),
            message: e.to_string(),
        })
    })
}

/// The glTF document (its one buffer without a `uri`) and the bytes of that buffer.
fn export_document(
    scene: &Scene,
    weights: &Weights,
    options: &GltfOptions,
) -> Result<(Value, Vec<u8>)> {
    check_export(scene, weights, options.scale)?;
    let mut buf = BufferBuilder::default();
    let attributes = push_vertex_attributes(&mut buf, scene, weights, options.scale);
    let skeleton = SkeletonNodes::build(scene, options, &mut buf);
    let mut mesh = MeshOut::build(scene, &attributes, options.extras, &mut buf)?;
    mesh.add_morph_targets(scene, options.scale, &mut buf);
    let animations = animation_export::write_animations(
        scene,
        &skeleton.locals,
        options.scale,
        |j| j + 1,
        scene.skeleton.len() + 1,
        &mut buf,
        options.extras,
    )?;
    buf.pad();
    let probes = options
        .extras
        .then(|| probe_files(&scaled_probes(&scene.probes, options.scale)));
    Ok(document(scene, buf, skeleton, mesh, animations, probes))
}

/// The checks [`export_gltf`] makes before writing anything: weights that fit the scene,
/// a usable scale, at most 65536 bones, and every scaled coordinate representable in f32.
fn check_export(scene: &Scene, weights: &Weights, scale: f64) -> Result<()> {
    let (n, nb) = (scene.mesh.vertex_count(), scene.skeleton.len());
    check_shape(n, weights, nb)?;
    weights.validate_with_tolerance(EXPORT_ROW_SUM_TOLERANCE)?;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(ArgumentError::InvalidArgument {
            argument: "scale",
            value: scale.to_string(),
            reason: format!("{scale} is not a positive number"),
        }
        .into());
    }
    if nb > usize::from(u16::MAX) + 1 {
        return Err(Error::field(
            "bones",
            format!("{nb} bones: JOINTS_0 holds at most 65536"),
        ));
    }
    check_f32_range(&scene.mesh, scene.skeleton.bones(), scale)
}

/// glTF stores positions and bind matrices as f32: every scaled coordinate must survive
/// (neither overflow nor a non-zero value flushed to 0).
fn check_f32_range(mesh: &Mesh, bones: &[Bone], scale: f64) -> Result<()> {
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
    let check = |what: &str, x: f64| {
        let y = x * scale;
        if y.is_nan() || y.abs() > f64::from(f32::MAX) {
            return Err(ArgumentError::InvalidArgument {
                argument: "scale",
                value: scale.to_string(),
                reason: format!("{what}: coordinate {x} times scale {scale:e} overflows f32 (glTF stores f32; at most {:e})", f32::MAX),
            }.into());
        }
        if x != 0.0 && y.abs() < f64::from(f32::MIN_POSITIVE) {
            return Err(ArgumentError::InvalidArgument {
                argument: "scale",
                value: scale.to_string(),
                reason: format!("{what}: coordinate {x} times scale {scale:e} underflows f32 to 0 (glTF stores f32; the smallest normal is {:e})", f32::MIN_POSITIVE),
            }.into());
        }
        Ok(())
    };
    points
        .chain(ends)
        .try_for_each(|(what, p): (String, Point2<f64>)| {
            check(&what, p.x)?;
            check(&what, p.y)
        })
}

/// Appends `values` as a `VEC3` float vertex accessor with the min/max of the f32 values
/// actually stored (validators compare exactly; `POSITION` accessors need them, morph
/// targets' too). Returns the accessor's index.
pub(super) fn push_vec3_with_bounds(buf: &mut BufferBuilder, values: &[[f32; 3]]) -> usize {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in values {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let a = buf.push(
        &f32_bytes(values.iter().flatten().copied()),
        Some(ARRAY_BUFFER),
        FLOAT,
        values.len(),
        "VEC3",
    );
    buf.accessors[a]["min"] = json!(lo);
    buf.accessors[a]["max"] = json!(hi);
    a
}

/// `POSITION`, `JOINTS_0` and `WEIGHTS_0` appended to the buffer; returns the primitive's
/// `attributes` object.
fn push_vertex_attributes(
    buf: &mut BufferBuilder,
    scene: &Scene,
    weights: &Weights,
    scale: f64,
) -> Value {
    let n = scene.mesh.vertex_count();
    // Positions, with min/max of the f32 values actually stored (validators compare exactly).
    let positions: Vec<[f32; 3]> = scene
        .mesh
        .vertices()
        .iter()
        .map(|p| [(p.x * scale) as f32, (p.y * scale) as f32, 0.0])
        .collect();
    let position_accessor = push_vec3_with_bounds(buf, &positions);

    // JOINTS_0 / WEIGHTS_0: sort, keep 4, renormalize (never the first 4 in bone order).
    let rows: Vec<([usize; 4], [f32; 4])> = weights
        .top_k(GLTF_INFLUENCES)
        .influences()
        .iter()
        .map(|inf| weights_row_f32(inf))
        .collect();
    let (joint_bytes, joint_type): (Vec<u8>, u32) = if scene.skeleton.len() <= 256 {
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
    json!({
        "POSITION": position_accessor,
        "JOINTS_0": joints_accessor,
        "WEIGHTS_0": weights_accessor,
    })
}

/// The skeleton as nodes: node 0 is the root, node 1 + j is bone j (the mesh node, 1 + nb,
/// is added by [`document`]).
struct SkeletonNodes {
    nodes: Vec<Value>,
    /// Each bone node's rest transform relative to its parent (scaled).
    locals: Vec<Isometry2<f64>>,
    /// The skin's `inverseBindMatrices` accessor.
    ibm_accessor: usize,
}

impl SkeletonNodes {
    fn build(scene: &Scene, options: &GltfOptions, buf: &mut BufferBuilder) -> Self {
        let bones = scene.skeleton.bones();
        let nb = bones.len();
        let scale = options.scale;
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
        let locals: Vec<Isometry2<f64>> = bones
            .iter()
            .enumerate()
            .map(|(j, bone)| match bone.parent {
                Some(p) => scaled_bind[p].inverse() * scaled_bind[j],
                None => scaled_bind[j],
            })
            .collect();
        nodes.extend((0..nb).map(|j| bone_node(bones, j, &locals[j], options)));
        SkeletonNodes {
            nodes,
            locals,
            ibm_accessor,
        }
    }
}

/// The node of bone `j`: its rest TRS, children, and with `options.extras` its length, part
/// and influences.
fn bone_node(bones: &[Bone], j: usize, local: &Isometry2<f64>, options: &GltfOptions) -> Value {
    let bone = &bones[j];
    let half = local.rotation.angle() / 2.0;
    let t = local.translation.vector;
    let mut node = json!({
        "name": bone.name,
        "translation": [t.x, t.y, 0.0],
        "rotation": [0.0, 0.0, half.sin(), half.cos()],
    });
    let children: Vec<usize> = (0..bones.len())
        .filter(|&c| bones[c].parent == Some(j))
        .map(|c| c + 1)
        .collect();
    if !children.is_empty() {
        node["children"] = json!(children);
    }
    if options.extras {
        let mut extras = json!({ "length": bone.length() * options.scale });
        if let Some(part) = &bone.part {
            extras["part"] = json!(part);
        }
        if let Some(influences) = &bone.influences {
            extras["influences"] = json!(influences);
        }
        node["extras"] = json!({ "skinweights": extras });
    }
    node
}

/// The glTF mesh and, with art, the images, materials and textures it uses.
struct MeshOut {
    mesh: Value,
    art: Option<art_export::ExportedArt>,
}

impl MeshOut {
    /// With art: one primitive per layer and the images (`art_export.rs`); without: one
    /// primitive. The parts go into `extras` when there are several.
    fn build(
        scene: &Scene,
        attributes: &Value,
        extras: bool,
        buf: &mut BufferBuilder,
    ) -> Result<Self> {
        let mesh = &scene.mesh;
        let art = match &scene.art {
            Some(art) => Some(art_export::export_art(scene, art, attributes, buf, extras)?),
            None => None,
        };
        let primitives = match &art {
            Some(a) => a.primitives.clone(),
            None => vec![json!({
                "attributes": attributes,
                "indices": push_indices(buf, mesh.triangles(), mesh.vertex_count()),
                "mode": TRIANGLES,
            })],
        };
        let mut gltf_mesh = json!({ "name": scene.name, "primitives": primitives });
        if extras && mesh.parts().len() > 1 {
            gltf_mesh["extras"] = json!({ "skinweights": {
                "parts": mesh.parts(),
                "vertex_parts": mesh.vertex_parts(),
            }});
        }
        Ok(MeshOut {
            mesh: gltf_mesh,
            art,
        })
    }

    /// The scene's correctives as morph targets on every primitive (`morph_export.rs`),
    /// default weights 0 and the targets' names; nothing without correctives.
    fn add_morph_targets(&mut self, scene: &Scene, scale: f64, buf: &mut BufferBuilder) {
        if scene.correctives.is_empty() {
            return;
        }
        let (targets, names) = morph_export::push_targets(scene, scale, buf);
        if let Some(primitives) = self.mesh["primitives"].as_array_mut() {
            for p in primitives {
                p["targets"] = targets.clone();
            }
        }
        self.mesh["weights"] = json!(vec![0.0; names.len()]);
        if !self.mesh["extras"].is_object() {
            self.mesh["extras"] = json!({});
        }
        self.mesh["extras"]["targetNames"] = json!(names);
    }
}

/// The whole glTF document around the written pieces.
fn document(
    scene: &Scene,
    buf: BufferBuilder,
    skeleton: SkeletonNodes,
    mesh: MeshOut,
    animations: Vec<Value>,
    probes: Option<Vec<ProbeFile>>,
) -> (Value, Vec<u8>) {
    let nb = scene.skeleton.len();
    let mut nodes = skeleton.nodes;
    let mut mesh_node = json!({ "name": format!("{}_mesh", scene.name), "mesh": 0, "skin": 0 });
    if let Some(probes) = probes.filter(|p| !p.is_empty()) {
        mesh_node["extras"] = json!({ "skinweights": { "probes": probes } });
    }
    nodes.push(mesh_node);
    let mut doc = json!({
        "asset": {
            "version": "2.0",
            "generator": concat!("skinweights ", env!("CARGO_PKG_VERSION")),
        },
        "scene": 0,
        "scenes": [{ "name": scene.name, "nodes": [0, nb + 1] }],
        "nodes": nodes,
        "meshes": [mesh.mesh],
        "skins": [{
            "name": scene.name,
            "joints": (1..=nb).collect::<Vec<_>>(),
            "inverseBindMatrices": skeleton.ibm_accessor,
            "skeleton": 0,
        }],
        "accessors": buf.accessors,
        "bufferViews": buf.views,
        "buffers": [{ "byteLength": buf.bytes.len() }],
    });
    if !animations.is_empty() {
        doc["animations"] = json!(animations);
    }
    if let Some(a) = mesh.art {
        doc["materials"] = json!(a.materials);
        doc["textures"] = json!(a.textures);
        doc["images"] = json!(a.images);
        doc["samplers"] = json!(a.samplers);
        doc["extensionsUsed"] = json!(["KHR_materials_unlit"]);
    }
    (doc, buf.bytes)
}

/// `probes` in the exported units: lengths (`below_y`, `min_distance`, translations) times
/// `scale`, angles as they are.
fn scaled_probes(probes: &[Probe], scale: f64) -> Vec<Probe> {
    probes
        .iter()
        .map(|p| {
            let mut p = p.clone();
            for t in p.pose.translations.values_mut() {
                *t *= scale;
            }
            p.watch.below_y = p.watch.below_y.map(|y| y * scale);
            p.watch.min_distance = p.watch.min_distance.map(|d| d * scale);
            p
        })
        .collect()
}
