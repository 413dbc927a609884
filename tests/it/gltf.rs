//! glTF 2.0 export and import (issue 6): the exported file checked as a validator would,
//! the SimpleSkin sample imported and round-tripped, and bad input as typed errors.

use crate::common;
use skinweights::{ArgumentError, FormatError, MeshError, WeightsError};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use nalgebra::{Matrix4, Point2, Quaternion, UnitQuaternion, Vector3};
use serde_json::Value;
use skinweights::io::{gltf::import_gltf, gltf::import_gltf_str, gltf::GltfImport, ExportOptions};
use skinweights::{
    mesh::Mesh, scene::builtin_scene, scene::BuiltinOptions, scene::Scene, skeleton::Bone,
    skeleton::Skeleton, solvers::solve, weights::Weights, Error,
};
use std::path::Path;
use std::process::Command;

const SIMPLE_SKIN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/khronos-simpleskin/SimpleSkin.gltf"
);

const FLOAT: u64 = 5126;
const UNSIGNED_BYTE: u64 = 5121;
const UNSIGNED_SHORT: u64 = 5123;
const UNSIGNED_INT: u64 = 5125;

/// The exported document and its decoded buffer.
struct Doc {
    json: Value,
    bin: Vec<u8>,
}

fn parse(text: &str) -> Doc {
    let json: Value = serde_json::from_str(text).unwrap();
    let buffers = json["buffers"].as_array().unwrap();
    assert_eq!(buffers.len(), 1, "one embedded buffer");
    let uri = buffers[0]["uri"].as_str().unwrap();
    let data = uri
        .strip_prefix("data:application/octet-stream;base64,")
        .expect("embedded octet-stream data URI");
    let bin = BASE64.decode(data).unwrap();
    Doc { json, bin }
}

fn encode(doc: &Doc) -> String {
    let mut json = doc.json.clone();
    json["buffers"][0]["uri"] = Value::String(format!(
        "data:application/octet-stream;base64,{}",
        BASE64.encode(&doc.bin)
    ));
    json.to_string()
}

fn component_size(t: u64) -> usize {
    match t {
        UNSIGNED_BYTE => 1,
        UNSIGNED_SHORT => 2,
        _ => 4,
    }
}

fn components(kind: &str) -> usize {
    match kind {
        "SCALAR" => 1,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        k => panic!("unexpected accessor type {k}"),
    }
}

impl Doc {
    fn accessor(&self, i: u64) -> &Value {
        &self.json["accessors"][i as usize]
    }
    /// Byte offset of accessor `i`'s data in the buffer (tightly packed, as exported).
    fn offset(&self, i: u64) -> usize {
        let a = self.accessor(i);
        let view = &self.json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        assert!(
            view.get("byteStride").is_none(),
            "exported views are tightly packed"
        );
        view["byteOffset"].as_u64().unwrap() as usize
            + a["byteOffset"].as_u64().unwrap_or(0) as usize
    }
    /// Accessor `i` read independently of the library, as f64.
    fn read(&self, i: u64) -> Vec<f64> {
        let a = self.accessor(i);
        let t = a["componentType"].as_u64().unwrap();
        let size = component_size(t);
        let n = a["count"].as_u64().unwrap() as usize * components(a["type"].as_str().unwrap());
        let start = self.offset(i);
        self.bin[start..start + n * size]
            .chunks_exact(size)
            .map(|c| match t {
                UNSIGNED_BYTE => f64::from(c[0]),
                UNSIGNED_SHORT => f64::from(u16::from_le_bytes([c[0], c[1]])),
                UNSIGNED_INT => f64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                FLOAT => f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
                _ => panic!("componentType {t}"),
            })
            .collect()
    }
    fn primitive(&self) -> &Value {
        &self.json["meshes"][0]["primitives"][0]
    }
    fn attribute(&self, name: &str) -> u64 {
        self.primitive()["attributes"][name].as_u64().unwrap()
    }
}

/// A node's local matrix from its TRS (T * R * S).
fn local_matrix(node: &Value) -> Matrix4<f64> {
    let get = |k: &str, default: &[f64]| -> Vec<f64> {
        node.get(k)
            .map(|v| {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect()
            })
            .unwrap_or_else(|| default.to_vec())
    };
    let t = get("translation", &[0.0; 3]);
    let r = get("rotation", &[0.0, 0.0, 0.0, 1.0]);
    let s = get("scale", &[1.0; 3]);
    let q = UnitQuaternion::from_quaternion(Quaternion::new(r[3], r[0], r[1], r[2]));
    assert!(
        (Quaternion::new(r[3], r[0], r[1], r[2]).norm() - 1.0).abs() < 1e-9,
        "unit rotation"
    );
    Matrix4::new_translation(&Vector3::new(t[0], t[1], t[2]))
        * q.to_homogeneous()
        * Matrix4::new_nonuniform_scaling(&Vector3::new(s[0], s[1], s[2]))
}

/// World matrices of every node from the TRS hierarchy.
fn world_matrices(json: &Value) -> Vec<Matrix4<f64>> {
    let nodes = json["nodes"].as_array().unwrap();
    let mut parent = vec![None; nodes.len()];
    for (p, n) in nodes.iter().enumerate() {
        for c in n["children"].as_array().into_iter().flatten() {
            let c = c.as_u64().unwrap() as usize;
            assert!(parent[c].is_none(), "node {c} has one parent");
            parent[c] = Some(p);
        }
    }
    (0..nodes.len())
        .map(|mut i| {
            let mut m = local_matrix(&nodes[i]);
            while let Some(p) = parent[i] {
                m = local_matrix(&nodes[p]) * m;
                i = p;
            }
            m
        })
        .collect()
}

/// Largest entry-wise difference of two weight matrices of the same shape.
fn max_abs_diff(a: &Weights, b: &Weights) -> f64 {
    assert_eq!(
        (a.vertex_count(), a.bone_count()),
        (b.vertex_count(), b.bone_count())
    );
    common::max_abs_diff(a.as_slice(), b.as_slice())
}

fn figure_with_heat() -> (Scene, Weights) {
    let scene = builtin_scene(
        "figure",
        &BuiltinOptions::default().with_gap(None).with_vertices(3000),
    )
    .unwrap();
    let weights = solve(&scene, "heat").unwrap();
    (scene, weights)
}

#[test]
fn figure_export_is_valid_gltf() {
    let (scene, weights) = figure_with_heat();
    let n = scene.mesh().vertex_count();
    let nb = scene.skeleton().len();
    assert_eq!(nb, 19);
    let over4 = weights
        .influence_counts()
        .iter()
        .filter(|&&c| c > 4)
        .count();
    assert!(over4 > 500, "{over4} vertices with more than 4 influences");

    let doc =
        parse(&common::export_text("gltf", &scene, &weights, &ExportOptions::default()).unwrap());
    let j = &doc.json;
    assert_eq!(j["asset"]["version"], "2.0");
    assert!(j["asset"]["generator"]
        .as_str()
        .unwrap()
        .starts_with("skinweights"));

    // Buffer and views: lengths, bounds, 4-byte alignment, targets.
    let byte_length = j["buffers"][0]["byteLength"].as_u64().unwrap() as usize;
    assert_eq!(byte_length, doc.bin.len());
    assert_eq!(byte_length % 4, 0);
    for view in j["bufferViews"].as_array().unwrap() {
        let (o, l) = (
            view["byteOffset"].as_u64().unwrap() as usize,
            view["byteLength"].as_u64().unwrap() as usize,
        );
        assert_eq!(o % 4, 0, "view offset {o} aligned");
        assert!(o + l <= byte_length, "view {o}+{l} inside the buffer");
    }
    let target = |accessor: u64| {
        let v = doc.accessor(accessor)["bufferView"].as_u64().unwrap() as usize;
        j["bufferViews"][v].get("target").and_then(Value::as_u64)
    };
    // Every accessor fits in its view.
    for (i, a) in j["accessors"].as_array().unwrap().iter().enumerate() {
        let v = &j["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        let size = component_size(a["componentType"].as_u64().unwrap())
            * components(a["type"].as_str().unwrap())
            * a["count"].as_u64().unwrap() as usize;
        let start = a["byteOffset"].as_u64().unwrap_or(0) as usize;
        assert!(
            start + size <= v["byteLength"].as_u64().unwrap() as usize,
            "accessor {i}"
        );
    }

    // POSITION: float VEC3, one per vertex, z = 0, min/max = the real bounds.
    let pos = doc.attribute("POSITION");
    let a = doc.accessor(pos);
    assert_eq!(
        (a["componentType"].as_u64(), a["type"].as_str()),
        (Some(FLOAT), Some("VEC3"))
    );
    assert_eq!(a["count"].as_u64(), Some(n as u64));
    assert_eq!(target(pos), Some(34962));
    let p = doc.read(pos);
    let (lo, hi) = scene.mesh().bounds();
    let f = |x: f64| f64::from(x as f32);
    let as_f64 = |v: &Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    assert_eq!(as_f64(&a["min"]), vec![f(lo.x), f(lo.y), 0.0]);
    assert_eq!(as_f64(&a["max"]), vec![f(hi.x), f(hi.y), 0.0]);
    for (v, q) in scene.mesh().vertices().iter().enumerate() {
        assert_eq!(&p[3 * v..3 * v + 3], &[f(q.x), f(q.y), 0.0]);
    }

    // Indices: 3 per triangle, UNSIGNED_SHORT below 65535 vertices, counter-clockwise as stored.
    let ind = doc.primitive()["indices"].as_u64().unwrap();
    let a = doc.accessor(ind);
    assert_eq!(
        (a["componentType"].as_u64(), a["type"].as_str()),
        (Some(UNSIGNED_SHORT), Some("SCALAR"))
    );
    assert_eq!(
        a["count"].as_u64(),
        Some(3 * scene.mesh().triangle_count() as u64)
    );
    assert_eq!(target(ind), Some(34963));
    let idx = doc.read(ind);
    for (t, tri) in scene.mesh().triangles().iter().enumerate() {
        let [a, b, c] = [0, 1, 2].map(|k| idx[3 * t + k] as usize);
        assert_eq!([a, b, c], *tri);
        let pt = |i: usize| Point2::new(p[3 * i], p[3 * i + 1]);
        let area2 = (pt(b) - pt(a)).perp(&(pt(c) - pt(a)));
        assert!(area2 > 0.0, "triangle {t} counter-clockwise seen from +z");
    }
    assert_eq!(doc.primitive()["mode"].as_u64(), Some(4));

    // JOINTS_0 / WEIGHTS_0: the sorted top 4, renormalized.
    let (ja, wa) = (doc.attribute("JOINTS_0"), doc.attribute("WEIGHTS_0"));
    let a = doc.accessor(ja);
    assert_eq!(
        (a["componentType"].as_u64(), a["type"].as_str()),
        (Some(UNSIGNED_BYTE), Some("VEC4"))
    );
    assert_eq!(a["count"].as_u64(), Some(n as u64));
    let a = doc.accessor(wa);
    assert_eq!(
        (a["componentType"].as_u64(), a["type"].as_str()),
        (Some(FLOAT), Some("VEC4"))
    );
    assert_eq!(a["count"].as_u64(), Some(n as u64));
    assert_eq!((target(ja), target(wa)), (Some(34962), Some(34962)));
    let (jv, wv) = (doc.read(ja), doc.read(wa));
    let joints = j["skins"][0]["joints"].as_array().unwrap();
    assert_eq!(joints.len(), nb);
    let top = weights.top_k(4);
    let mut max_sum_err = 0.0f64;
    let mut max_diff = 0.0f64;
    for v in 0..n {
        let (jr, wr) = (&jv[4 * v..4 * v + 4], &wv[4 * v..4 * v + 4]);
        max_sum_err = max_sum_err.max((wr.iter().sum::<f64>() - 1.0).abs());
        assert!(
            wr.windows(2).all(|w| w[0] >= w[1]),
            "vertex {v} sorted: {wr:?}"
        );
        assert!(jr.iter().all(|&x| (x as usize) < joints.len()));
        let mut row = vec![0.0; nb];
        for k in 0..4 {
            row[jr[k] as usize] += wr[k];
        }
        for (x, y) in row.iter().zip(top.row(v)) {
            max_diff = max_diff.max((x - y).abs());
        }
    }
    assert!(max_sum_err < 1e-6, "row sums off by {max_sum_err:e}");
    assert!(
        max_diff < 1e-6,
        "exported top-4 differs from top_k(4) by {max_diff:e}"
    );

    // Skin: inverse bind matrices times the joints' world matrices (from node TRS) = identity,
    // and each joint's world matrix is its bone's bind transform.
    let skin = &j["skins"][0];
    let ibm = skin["inverseBindMatrices"].as_u64().unwrap();
    let a = doc.accessor(ibm);
    assert_eq!(
        (
            a["componentType"].as_u64(),
            a["type"].as_str(),
            a["count"].as_u64()
        ),
        (Some(FLOAT), Some("MAT4"), Some(nb as u64))
    );
    assert_eq!(target(ibm), None);
    let m = doc.read(ibm);
    let world = world_matrices(j);
    let mut max_err = 0.0f64;
    for (k, bone) in scene.skeleton().bones().iter().enumerate() {
        let node = joints[k].as_u64().unwrap() as usize;
        assert_eq!(j["nodes"][node]["name"], bone.name.as_str());
        let inv = Matrix4::from_column_slice(&m[16 * k..16 * k + 16]);
        max_err = max_err.max((inv * world[node] - Matrix4::identity()).abs().max());
        // The bone's 2D bind transform placed in the z = 0 plane of a 4x4 matrix.
        let b = bone.bind_transform().to_homogeneous();
        let mut expected = Matrix4::identity();
        expected
            .fixed_view_mut::<2, 2>(0, 0)
            .copy_from(&b.fixed_view::<2, 2>(0, 0));
        expected[(0, 3)] = b[(0, 2)];
        expected[(1, 3)] = b[(1, 2)];
        let err = (world[node] - expected).abs().max();
        assert!(
            err < 1e-9,
            "bone {}: world matrix off bind by {err:e}",
            bone.name
        );
    }
    // f32 matrices with translations up to ~200 px: ~1e-5 relative error at most.
    assert!(max_err < 2e-5, "IBM x world off identity by {max_err:e}");

    // Skin root, mesh node and scene.
    let root = skin["skeleton"].as_u64().unwrap() as usize;
    assert!(joints.iter().all(|jn| {
        let mut at = jn.as_u64().unwrap() as usize;
        loop {
            if at == root {
                return true;
            }
            match j["nodes"].as_array().unwrap().iter().position(|n| {
                n["children"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|c| c.as_u64() == Some(at as u64))
            }) {
                Some(p) => at = p,
                None => return false,
            }
        }
    }));
    let mesh_node = j["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n.get("skin").is_some())
        .unwrap();
    assert_eq!(j["nodes"][mesh_node]["mesh"].as_u64(), Some(0));
    let scene_nodes = &j["scenes"][j["scene"].as_u64().unwrap() as usize]["nodes"];
    assert!(scene_nodes
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x.as_u64() == Some(mesh_node as u64)));
    assert!(scene_nodes
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x.as_u64() == Some(root as u64)));
}

#[test]
fn figure_round_trips_through_gltf() {
    let (scene, weights) = figure_with_heat();
    let text = common::export_text("gltf", &scene, &weights, &ExportOptions::default()).unwrap();
    let GltfImport {
        scene: back,
        artist: w,
        ..
    } = import_gltf_str(&text, None, "figure").unwrap();
    assert_eq!(back.mesh().triangles(), scene.mesh().triangles());
    assert_eq!(back.mesh().parts(), scene.mesh().parts());
    assert_eq!(back.mesh().vertex_parts(), scene.mesh().vertex_parts());
    let pos_err = back
        .mesh()
        .vertices()
        .iter()
        .zip(scene.mesh().vertices())
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    // f32 keeps 24 bits: at most 2^-24 of the largest coordinate per axis.
    let size = scene
        .mesh()
        .vertices()
        .iter()
        .fold(0.0f64, |m, p| m.max(p.x.abs()).max(p.y.abs()));
    assert!(
        pos_err <= 1e-7 * size,
        "f32 positions off by {pos_err:e} (size {size})"
    );
    for (a, b) in back.skeleton().bones().iter().zip(scene.skeleton().bones()) {
        assert_eq!(
            (&a.name, a.parent, &a.part, &a.influences),
            (&b.name, b.parent, &b.part, &b.influences)
        );
        assert!(
            (a.head - b.head).norm() < 1e-4 && (a.tail - b.tail).norm() < 1e-4,
            "{}",
            a.name
        );
    }
    let w = w.unwrap();
    assert_eq!(w.vertex_count(), back.mesh().vertex_count());
    let diff = max_abs_diff(&w, &weights.top_k(4));
    assert!(diff < 1e-6, "weights off top_k(4) by {diff:e}");
    // The probes travel in the mesh node's extras: figure's 4 come back as they were.
    assert_eq!(scene.probes().len(), 4);
    assert_eq!(back.probes(), scene.probes());
}

/// Probes are written in the exported units (lengths times the scale) and read back; a
/// plain export (no extras) has none.
#[test]
fn probes_travel_in_extras_at_the_export_scale() {
    let (scene, weights) = figure_with_heat();
    let options = ExportOptions::default().with_gltf_scale(2.0);
    let text = common::export_text("gltf", &scene, &weights, &options).unwrap();
    let back = import_gltf_str(&text, None, "figure").unwrap().scene;
    assert_eq!(back.probes().len(), scene.probes().len());
    for (b, a) in back.probes().iter().zip(scene.probes()) {
        assert_eq!((&b.name, &b.pose.rotations), (&a.name, &a.pose.rotations));
        assert_eq!(b.watch.below_y, a.watch.below_y.map(|y| 2.0 * y));
        assert_eq!(b.watch.min_distance, a.watch.min_distance.map(|d| 2.0 * d));
        assert_eq!(
            (&b.watch.part, &b.watch.vertices),
            (&a.watch.part, &a.watch.vertices)
        );
    }
    let plain = ExportOptions::default().with_gltf_extras(false);
    let text = common::export_text("gltf", &scene, &weights, &plain).unwrap();
    assert!(import_gltf_str(&text, None, "figure")
        .unwrap()
        .scene
        .probes()
        .is_empty());
}

#[test]
fn simpleskin_imports() {
    let imported = import_gltf(SIMPLE_SKIN).unwrap();
    let scene = &imported.scene;
    assert_eq!(scene.name(), "SimpleSkin");
    assert_eq!(scene.mesh().vertex_count(), 10);
    assert_eq!(scene.mesh().triangle_count(), 8);
    // A 1 x 2 strip in the plane z = 0: vertices (0|1, 0.5 k).
    for (v, p) in scene.mesh().vertices().iter().enumerate() {
        assert_eq!(*p, Point2::new((v % 2) as f64, 0.5 * (v / 2) as f64));
    }
    assert!((scene.mesh().area() - 2.0).abs() < 1e-12);
    let bones = scene.skeleton().bones();
    assert_eq!(scene.skeleton().names(), ["joint0", "joint1"]);
    assert_eq!((bones[0].parent, bones[1].parent), (None, Some(0)));
    // Both inverse bind matrices translate by (-0.5, -1): both joints sit at (0.5, 1).
    for b in bones {
        assert_eq!(b.head, Point2::new(0.5, 1.0));
        // No child at a distinct position: along x, a tenth of the mesh's larger side (2).
        assert!((b.tail - Point2::new(0.7, 1.0)).norm() < 1e-12);
    }
    let w = imported
        .weights_file()
        .unwrap()
        .to_weights_for(&scene.skeleton().names(), 10)
        .unwrap();
    // Rows of two vertices each: 1/0, 3/4 1/4, 1/2 1/2, 1/4 3/4, 0/1.
    for v in 0..10 {
        let w1 = 0.25 * (v / 2) as f64;
        assert_eq!(w.row(v), &[1.0 - w1, w1], "vertex {v}");
    }
}

#[test]
fn simpleskin_round_trips() {
    let first = import_gltf(SIMPLE_SKIN).unwrap();
    let names = first.scene.skeleton().names();
    let w1 = first
        .weights_file()
        .unwrap()
        .to_weights_for(&names, 10)
        .unwrap();
    let text = common::export_text("gltf", &first.scene, &w1, &ExportOptions::default()).unwrap();
    let second = import_gltf_str(&text, None, "SimpleSkin").unwrap();
    let w2 = second
        .weights_file()
        .unwrap()
        .to_weights_for(&names, 10)
        .unwrap();
    let (a, b) = (&first.scene, &second.scene);
    assert_eq!(a.mesh().triangles(), b.mesh().triangles());
    for (p, q) in a.mesh().vertices().iter().zip(b.mesh().vertices()) {
        assert!((p - q).norm() < 1e-6);
    }
    assert!(max_abs_diff(&w1, &w2) < 1e-6);
    for (x, y) in a.skeleton().bones().iter().zip(b.skeleton().bones()) {
        assert_eq!((&x.name, x.parent), (&y.name, y.parent));
        assert!((x.head - y.head).norm() < 1e-6 && (x.tail - y.tail).norm() < 1e-6);
    }
}

/// The exported SimpleSkin, for corrupting.
fn simpleskin_doc() -> Doc {
    let first = import_gltf(SIMPLE_SKIN).unwrap();
    let names = first.scene.skeleton().names();
    let w = first
        .weights_file()
        .unwrap()
        .to_weights_for(&names, 10)
        .unwrap();
    parse(&common::export_text("gltf", &first.scene, &w, &ExportOptions::default()).unwrap())
}

fn set_f32(doc: &mut Doc, at: usize, x: f32) {
    doc.bin[at..at + 4].copy_from_slice(&x.to_le_bytes());
}

#[test]
fn planes_other_than_z_0_and_back_faces_import() {
    let mut doc = simpleskin_doc();
    let pos = doc.offset(doc.attribute("POSITION"));
    for v in 0..10 {
        set_f32(&mut doc, pos + 12 * v + 8, 2.5);
    }
    let a = doc.attribute("POSITION") as usize;
    doc.json["accessors"][a]["min"][2] = 2.5.into();
    doc.json["accessors"][a]["max"][2] = 2.5.into();
    let imported = import_gltf_str(&encode(&doc), None, "z").unwrap();
    assert_eq!(imported.scene.mesh().vertex_count(), 10);
    assert!(
        imported.report.notes.iter().any(|n| n.contains("z = 2.5")),
        "{:?}",
        imported.report.notes
    );

    // Reverse every triangle: the mesh now faces -z and is flipped back, with a note.
    let mut doc = simpleskin_doc();
    let ind = doc.offset(doc.primitive()["indices"].as_u64().unwrap());
    for t in 0..8 {
        let (b, c) = (ind + 6 * t + 2, ind + 6 * t + 4);
        for k in 0..2 {
            doc.bin.swap(b + k, c + k);
        }
    }
    let imported = import_gltf_str(&encode(&doc), None, "back").unwrap();
    assert!(
        imported.report.notes.iter().any(|n| n.contains("flipped")),
        "{:?}",
        imported.report.notes
    );
    assert!((imported.scene.mesh().area() - 2.0).abs() < 1e-12);
}

/// SimpleSkin with its 8 triangles split into two primitives of 4 (rows 0-2 and rows 2-4) over
/// the same POSITION / JOINTS_0 / WEIGHTS_0 accessors, as a mesh split by material is stored.
fn simpleskin_in_two_primitives() -> Doc {
    let mut doc = simpleskin_doc();
    let ind = doc.primitive()["indices"].as_u64().unwrap() as usize;
    let mut halves = Vec::new();
    for half in 0..2 {
        let mut a = doc.json["accessors"][ind].clone();
        a["byteOffset"] = (24 * half).into();
        a["count"] = 12.into();
        doc.json["accessors"].as_array_mut().unwrap().push(a);
        let mut prim = doc.primitive().clone();
        prim["indices"] = (doc.json["accessors"].as_array().unwrap().len() - 1).into();
        halves.push(prim);
    }
    doc.json["meshes"][0]["primitives"] = halves.into();
    doc
}

#[test]
fn primitives_sharing_accessors_share_vertices() {
    let whole = import_gltf(SIMPLE_SKIN).unwrap();
    let imported =
        import_gltf_str(&encode(&simpleskin_in_two_primitives()), None, "halves").unwrap();
    let mesh = imported.scene.mesh();
    // One vertex per accessor vertex: the seam (row 2, vertices 4 and 5) is not split.
    assert_eq!((mesh.vertex_count(), mesh.triangle_count()), (10, 8));
    assert_eq!(mesh.topology().component_count(), 1);
    assert_eq!(mesh.vertices(), whole.scene.mesh().vertices());
    assert_eq!(mesh.triangles(), whole.scene.mesh().triangles());
    // Parts still come from the primitives; the seam belongs to the first primitive using it.
    assert_eq!(mesh.parts(), ["primitive0", "primitive1"]);
    assert_eq!(mesh.vertex_parts(), [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
    assert!(
        !imported.report.notes.iter().any(|n| n.contains("dropped")),
        "{:?}",
        imported.report.notes
    );
    let w = imported.weights_file().unwrap();
    assert_eq!(w.weights[4], vec![0.5, 0.5]);
    assert_eq!(w.weights[6], vec![0.25, 0.75]);

    // Other WEIGHTS_0 accessors (over the same bytes) make other vertices: glTF vertices are
    // tuples of attributes, so the second primitive keeps its own copy of the seam.
    let mut doc = simpleskin_in_two_primitives();
    let weights = doc.attribute("WEIGHTS_0") as usize;
    let copy = doc.json["accessors"][weights].clone();
    doc.json["accessors"].as_array_mut().unwrap().push(copy);
    let copy = doc.json["accessors"].as_array().unwrap().len() - 1;
    doc.json["meshes"][0]["primitives"][1]["attributes"]["WEIGHTS_0"] = copy.into();
    let imported = import_gltf_str(&encode(&doc), None, "apart").unwrap();
    let mesh = imported.scene.mesh();
    assert_eq!((mesh.vertex_count(), mesh.triangle_count()), (12, 8));
    assert_eq!(mesh.topology().component_count(), 2);
    assert_eq!(mesh.vertex_parts(), [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
    assert!(
        imported
            .report
            .notes
            .iter()
            .any(|n| n.contains("dropped 8 vertices")),
        "{:?}",
        imported.report.notes
    );
}

#[test]
fn normalized_byte_weights_and_plain_export_import() {
    // WEIGHTS_0 as normalized UNSIGNED_BYTE, as many exporters write it.
    let mut doc = simpleskin_doc();
    let weights = doc.read(doc.attribute("WEIGHTS_0"));
    let offset = doc.bin.len();
    doc.bin
        .extend(weights.iter().map(|&w| (w * 255.0).round() as u8));
    doc.json["buffers"][0]["byteLength"] = doc.bin.len().into();
    let views = doc.json["bufferViews"].as_array_mut().unwrap();
    views.push(serde_json::json!({"buffer": 0, "byteOffset": offset, "byteLength": 40}));
    let view = views.len() - 1;
    let accessors = doc.json["accessors"].as_array_mut().unwrap();
    accessors.push(
        serde_json::json!({"bufferView": view, "componentType": UNSIGNED_BYTE,
        "normalized": true, "count": 10, "type": "VEC4"}),
    );
    let a = accessors.len() - 1;
    doc.json["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = a.into();
    let imported = import_gltf_str(&encode(&doc), None, "bytes").unwrap();
    let w = imported.weights_file().unwrap();
    // 0.75 -> 191/255 and 0.25 -> 64/255: rows sum to 1 exactly, ratios within 1/255.
    assert_eq!(w.weights[2], vec![191.0 / 255.0, 64.0 / 255.0]);
    assert_eq!(w.weights[4], vec![0.5, 0.5]);
    // 0.5 -> 128/255 twice sums to 256/255: renormalized, with a note.
    assert!(
        imported
            .report
            .notes
            .iter()
            .any(|n| n.contains("renormalized")),
        "{:?}",
        imported.report.notes
    );

    // Without extras the file carries nothing skinweights-specific, and still imports.
    let first = import_gltf(SIMPLE_SKIN).unwrap();
    let w = first
        .weights_file()
        .unwrap()
        .to_weights_for(&first.scene.skeleton().names(), 10)
        .unwrap();
    let plain = ExportOptions::default().with_gltf_extras(false);
    let text = common::export_text("gltf", &first.scene, &w, &plain).unwrap();
    assert!(!text.contains("extras"));
    let again = import_gltf_str(&text, None, "plain").unwrap();
    assert_eq!(
        again.scene.skeleton().bones()[1].tail,
        Point2::new(0.7, 1.0)
    );
}

#[test]
fn external_buffer_files_are_read() {
    let mut doc = simpleskin_doc();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("skin data.bin"), &doc.bin).unwrap();
    doc.json["buffers"][0]["uri"] = "skin%20data.bin".into();
    let path = dir.path().join("skin.gltf");
    std::fs::write(&path, doc.json.to_string()).unwrap();
    let imported = import_gltf(&path).unwrap();
    assert_eq!(imported.scene.mesh().vertex_count(), 10);
    assert_eq!(imported.scene.name(), "skin");
}

#[test]
fn bad_input_is_a_typed_error() {
    // Missing accessor.
    let mut doc = simpleskin_doc();
    doc.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = 99.into();
    match import_gltf_str(&encode(&doc), None, "x") {
        Err(Error::Format(FormatError::InvalidField { field, .. })) => {
            assert_eq!(field, "accessors[99]")
        }
        r => panic!("{:?}", r.map(|i| i.report.notes)),
    }
    // A weighted joint the skin does not have.
    let mut doc = simpleskin_doc();
    let joints = doc.offset(doc.attribute("JOINTS_0"));
    doc.bin[joints + 4 * 4] = 7; // vertex 4's first (non-zero) influence
    match import_gltf_str(&encode(&doc), None, "x") {
        Err(Error::Format(FormatError::JointOutOfRange {
            vertex,
            joint,
            joints,
        })) => {
            assert_eq!((vertex, joint, joints), (4, 7, 2))
        }
        r => panic!("{:?}", r.map(|i| i.report.notes)),
    }
    // A vertex off the plane.
    let mut doc = simpleskin_doc();
    let pos = doc.offset(doc.attribute("POSITION"));
    set_f32(&mut doc, pos + 12 * 3 + 8, 0.5);
    match import_gltf_str(&encode(&doc), None, "x") {
        Err(Error::Format(FormatError::NonPlanarMesh { vertex, z, plane_z })) => {
            assert_eq!((vertex, z, plane_z), (3, 0.5, 0.0))
        }
        r => panic!("{:?}", r.map(|i| i.report.notes)),
    }
    // An index past the end of the positions.
    let mut doc = simpleskin_doc();
    let ind = doc.offset(doc.primitive()["indices"].as_u64().unwrap());
    doc.bin[ind + 2 * 5] = 10; // triangle 1, corner 2
    assert!(matches!(
        import_gltf_str(&encode(&doc), None, "x"),
        Err(Error::Mesh(MeshError::IndexOutOfRange {
            triangle: 1,
            index: 10,
            vertex_count: 10
        }))
    ));
    // A buffer view longer than its buffer.
    let mut doc = simpleskin_doc();
    doc.json["bufferViews"][0]["byteLength"] = 100_000.into();
    assert!(matches!(
        import_gltf_str(&encode(&doc), None, "x"),
        Err(Error::Format(FormatError::InvalidField { .. }))
    ));
    // Not glTF 2.
    let mut doc = simpleskin_doc();
    doc.json["asset"]["version"] = "1.0".into();
    match import_gltf_str(&encode(&doc), None, "x") {
        Err(Error::Format(FormatError::InvalidField { field, .. })) => {
            assert_eq!(field, "asset.version")
        }
        r => panic!("{:?}", r.map(|i| i.report.notes)),
    }
    // Not JSON.
    assert!(matches!(
        import_gltf_str("{", None, "x"),
        Err(Error::Format(FormatError::Json { .. }))
    ));
    // Export: weights of another shape.
    let first = import_gltf(SIMPLE_SKIN).unwrap();
    assert!(matches!(
        common::export_text(
            "gltf",
            &first.scene,
            &Weights::zeros_unchecked(10, 3),
            &ExportOptions::default()
        ),
        Err(Error::Weights(WeightsError::WeightsShape { .. }))
    ));
    let bad_scale = ExportOptions::default().with_gltf_scale(f64::NAN);
    let w = Weights::from_rows(&vec![vec![1.0, 0.0]; 10], 2).unwrap();
    assert!(matches!(
        common::export_text("gltf", &first.scene, &w, &bad_scale),
        Err(Error::Argument(ArgumentError::InvalidArgument { argument: "scale", ref value, .. })) if value == "NaN"
    ));
}

/// A grid of `cols` x `rows` vertices with one bone per column.
fn grid_scene(cols: usize, rows: usize) -> (Scene, Weights) {
    let vertices: Vec<Point2<f64>> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| Point2::new(c as f64, r as f64)))
        .collect();
    let at = |c: usize, r: usize| r * cols + c;
    let mut triangles = Vec::new();
    for r in 0..rows - 1 {
        for c in 0..cols - 1 {
            triangles.push([at(c, r), at(c + 1, r), at(c + 1, r + 1)]);
            triangles.push([at(c, r), at(c + 1, r + 1), at(c, r + 1)]);
        }
    }
    let mesh = Mesh::new(vertices, triangles).unwrap();
    let bones = (0..cols - 1)
        .map(|c| {
            let b = Bone::new(
                format!("b{c}"),
                Point2::new(c as f64, 0.0),
                Point2::new(c as f64 + 1.0, 0.0),
            );
            if c == 0 {
                b
            } else {
                b.with_parent(c - 1)
            }
        })
        .collect();
    let skeleton = Skeleton::new(bones).unwrap();
    let nb = cols - 1;
    let mut w = Weights::zeros_unchecked(cols * rows, nb);
    for r in 0..rows {
        for c in 0..cols {
            w.set_unchecked(at(c, r), c.min(nb - 1), 0.7);
            w.set_unchecked(
                at(c, r),
                c.saturating_sub(1),
                0.3 + w.get(at(c, r), c.saturating_sub(1)),
            );
        }
    }
    (Scene::new("grid", mesh, skeleton, vec![]).unwrap(), w)
}

#[test]
fn large_meshes_use_wide_indices_and_joints() {
    // 300 x 220 = 66,000 vertices (> 65,535) and 299 bones (> 256).
    let (scene, weights) = grid_scene(300, 220);
    let doc =
        parse(&common::export_text("gltf", &scene, &weights, &ExportOptions::default()).unwrap());
    let ind = doc.primitive()["indices"].as_u64().unwrap();
    assert_eq!(
        doc.accessor(ind)["componentType"].as_u64(),
        Some(UNSIGNED_INT)
    );
    assert_eq!(
        doc.accessor(doc.attribute("JOINTS_0"))["componentType"].as_u64(),
        Some(UNSIGNED_SHORT)
    );
    let back = import_gltf_str(&encode(&doc), None, "grid").unwrap();
    assert_eq!(back.scene.mesh().triangles(), scene.mesh().triangles());
    let w = back
        .weights_file()
        .unwrap()
        .to_weights_for(&scene.skeleton().names(), 66_000)
        .unwrap();
    let diff = max_abs_diff(&w, &weights);
    assert!(diff < 1e-6, "{diff:e}");
}

#[test]
fn cli_exports_and_imports() {
    let bin = env!("CARGO_BIN_EXE_skinweights");
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_string_lossy().to_string();
    let run = |args: &[&str]| Command::new(bin).args(args).output().unwrap();
    let o = run(&[
        "import",
        "gltf",
        SIMPLE_SKIN,
        "-o",
        &p("s.json"),
        "--weights",
        &p("w.json"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let export = [
        "export",
        "gltf",
        &p("s.json"),
        &p("w.json"),
        "-o",
        &p("s.gltf"),
    ];
    let o = run(&export);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // SimpleSkin has 2 joints: nothing is truncated, so no note.
    assert!(!String::from_utf8_lossy(&o.stderr).contains("influences per vertex"));
    let before = std::fs::read(p("s.gltf")).unwrap();
    // No overwrite without --force, exit code 2 as for every input error.
    let o = run(&export);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("already exists"));
    assert_eq!(std::fs::read(p("s.gltf")).unwrap(), before);
    let o = run(&["import", "gltf", &p("s.gltf"), "-o", &p("s.json")]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&[
        "import",
        "gltf",
        &p("s.gltf"),
        "-o",
        &p("s.json"),
        "--force",
    ]);
    assert!(o.status.success());
    assert!(Path::new(&p("s.json")).exists());
    // A bad file is an input error.
    std::fs::write(p("bad.gltf"), "{\"asset\": {\"version\": \"2.0\"}}").unwrap();
    let o = run(&["import", "gltf", &p("bad.gltf"), "-o", &p("b.json")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no node has both a mesh and a skin"));
    assert!(!Path::new(&p("b.json")).exists());
}

#[test]
fn cli_says_what_the_four_influence_limit_drops() {
    let bin = env!("CARGO_BIN_EXE_skinweights");
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_string_lossy().to_string();
    let scene = skinweights::scene::builtin_scene(
        "figure",
        &skinweights::scene::BuiltinOptions::default().with_vertices(2000),
    )
    .unwrap();
    let weights = skinweights::solvers::solve(&scene, "heat").unwrap();
    skinweights::io::save_scene(&scene, p("f.json")).unwrap();
    skinweights::io::WeightsFile::new(scene.name(), "heat", scene.skeleton().names(), &weights)
        .save(p("w.json"))
        .unwrap();
    let dropped = weights.top_k_dropped(4);
    let cut = dropped.iter().filter(|&&d| d > 0.0).count();
    assert!(cut > 100, "{cut}");
    let o = Command::new(bin)
        .args([
            "export",
            "gltf",
            &p("f.json"),
            &p("w.json"),
            "-o",
            &p("f.gltf"),
        ])
        .output()
        .unwrap();
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("{cut} vertices had more")), "{err}");
}

/// The `InvalidField` error importing `doc` gives: (field, message).
fn field_error(doc: &Doc) -> (String, String) {
    match import_gltf_str(&encode(doc), None, "x") {
        Err(Error::Format(FormatError::InvalidField { field, message })) => (field, message),
        r => panic!("expected InvalidField, got {:?}", r.map(|i| i.report.notes)),
    }
}

/// The buffer view of accessor `a`.
fn view_of(doc: &Doc, a: u64) -> usize {
    doc.accessor(a)["bufferView"].as_u64().unwrap() as usize
}

#[test]
fn overflowing_and_overrunning_numbers_are_typed_errors() {
    let base = simpleskin_doc();
    let pos = base.attribute("POSITION");
    let joints = base.attribute("JOINTS_0");
    let ibm = base.json["skins"][0]["inverseBindMatrices"]
        .as_u64()
        .unwrap();
    let pv = view_of(&base, pos);

    // View byteOffset + byteLength wraps around u64: the old check passed and slicing panicked.
    let mut doc = simpleskin_doc();
    doc.json["bufferViews"][pv]["byteOffset"] = (u64::MAX - 7).into();
    let (field, message) = field_error(&doc);
    assert_eq!(field, format!("bufferViews[{pv}].byteLength"));
    assert!(message.contains(&(u64::MAX - 7).to_string()), "{message}");

    // count 2^62 with stride 12: stride * (count - 1) + 12 wraps to 0.
    let mut doc = simpleskin_doc();
    doc.json["bufferViews"][pv]["byteStride"] = 12.into();
    doc.json["accessors"][pos as usize]["count"] = (1u64 << 62).into();
    let (field, message) = field_error(&doc);
    assert_eq!(field, format!("accessors[{pos}].count"));
    assert!(message.contains("overrun"), "{message}");

    // Accessor byteOffset 2^64 - 4 (aligned, so only the bounds check can catch it).
    let mut doc = simpleskin_doc();
    doc.json["accessors"][pos as usize]["byteOffset"] = (u64::MAX - 3).into();
    let (field, message) = field_error(&doc);
    assert_eq!(field, format!("accessors[{pos}].byteOffset"));
    assert!(message.contains("past the end"), "{message}");

    // POSITION without a buffer view, count 2^40: used to allocate 26 TB of zeros.
    let mut doc = simpleskin_doc();
    let a = &mut doc.json["accessors"][pos as usize];
    a.as_object_mut().unwrap().remove("bufferView");
    a["count"] = (1u64 << 40).into();
    assert_eq!(field_error(&doc).0, format!("accessors[{pos}].bufferView"));

    // JOINTS_0 without a buffer view: its count must be POSITION's before anything is
    // allocated ...
    let mut doc = simpleskin_doc();
    let a = &mut doc.json["accessors"][joints as usize];
    a.as_object_mut().unwrap().remove("bufferView");
    a["count"] = (1u64 << 40).into();
    let (field, message) = field_error(&doc);
    assert_eq!(field, format!("accessors[{joints}].count"));
    assert!(
        message.contains("expected 10 (one per POSITION)"),
        "{message}"
    );
    // ... and with it, it reads as the spec's zeros: every weight goes to joint 0.
    doc.json["accessors"][joints as usize]["count"] = 10.into();
    let imported = import_gltf_str(&encode(&doc), None, "zeros").unwrap();
    let w = imported.weights_file().unwrap();
    assert_eq!(w.weights.len(), 10);
    assert!(w.weights.iter().all(|row| row == &vec![1.0, 0.0]));

    // inverseBindMatrices count 2^59: 64-byte matrices wrapped the old byte count.
    let mut doc = simpleskin_doc();
    doc.json["accessors"][ibm as usize]["count"] = (1u64 << 59).into();
    let (field, message) = field_error(&doc);
    assert_eq!(field, format!("accessors[{ibm}].count"));
    assert!(
        message.contains("expected 2 (one per skin joint)"),
        "{message}"
    );

    // Negative and fractional numbers are not indices or counts.
    let mut doc = simpleskin_doc();
    doc.json["accessors"][pos as usize]["count"] = (-1).into();
    assert!(matches!(
        import_gltf_str(&encode(&doc), None, "x"),
        Err(Error::Format(FormatError::Json { .. }))
    ));
    let mut doc = simpleskin_doc();
    doc.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = 0.5.into();
    assert!(matches!(
        import_gltf_str(&encode(&doc), None, "x"),
        Err(Error::Format(FormatError::Json { .. }))
    ));
}

#[test]
fn layout_rules_are_typed_errors() {
    let base = simpleskin_doc();
    let pos = base.attribute("POSITION");
    let weights = base.attribute("WEIGHTS_0");
    let ind = base.primitive()["indices"].as_u64().unwrap();
    let (pv, wv, iv) = (
        view_of(&base, pos),
        view_of(&base, weights),
        view_of(&base, ind),
    );
    // byteStride: a multiple of 4 in 4..=252, and at least the element size (12 for VEC3).
    for (stride, says) in [
        (3, "multiple of 4"),
        (13, "multiple of 4"),
        (256, "4..=252"),
        (8, "less than"),
    ] {
        let mut doc = simpleskin_doc();
        doc.json["bufferViews"][pv]["byteStride"] = stride.into();
        let (field, message) = field_error(&doc);
        assert_eq!(
            field,
            format!("bufferViews[{pv}].byteStride"),
            "stride {stride}"
        );
        assert!(message.contains(says), "stride {stride}: {message}");
    }
    // An index view has no byteStride, even a valid-looking one.
    let mut doc = simpleskin_doc();
    doc.json["bufferViews"][iv]["byteStride"] = 4.into();
    let (field, message) = field_error(&doc);
    assert_eq!(field, format!("bufferViews[{iv}].byteStride"));
    assert!(message.contains("index data"), "{message}");
    // Offsets are multiples of the component size: 2 for the UNSIGNED_SHORT indices ...
    let mut doc = simpleskin_doc();
    doc.json["accessors"][ind as usize]["byteOffset"] = 1.into();
    doc.json["accessors"][ind as usize]["count"] = 21.into();
    assert_eq!(field_error(&doc).0, format!("accessors[{ind}].byteOffset"));
    // ... and 4 for the float weights, counted from the start of the buffer.
    let mut doc = simpleskin_doc();
    let offset = doc.json["bufferViews"][wv]["byteOffset"].as_u64().unwrap();
    doc.json["bufferViews"][wv]["byteOffset"] = (offset + 2).into();
    let (field, message) = field_error(&doc);
    assert_eq!(field, format!("bufferViews[{wv}].byteOffset"));
    assert!(message.contains("component size 4"), "{message}");
}

#[test]
fn joint_and_weight_limits_are_typed_errors() {
    // No joints at all.
    let mut doc = simpleskin_doc();
    doc.json["skins"][0]["joints"] = Value::Array(vec![]);
    doc.json["skins"][0]
        .as_object_mut()
        .unwrap()
        .remove("inverseBindMatrices");
    assert_eq!(
        field_error(&doc),
        (
            "skins[0].joints".to_string(),
            "empty (a skin needs at least one joint)".to_string()
        )
    );
    // More joints than JOINTS_n can name.
    let mut doc = simpleskin_doc();
    doc.json["skins"][0]["joints"] = vec![1; 65_537].into();
    let (field, message) = field_error(&doc);
    assert_eq!(field, "skins[0].joints");
    assert!(message.contains("65537 joints"), "{message}");

    // 4,225 vertices x 65,536 distinct joints = 2.8e8 weights (2.2 GB dense): refused before
    // the matrix is allocated.
    let (scene, weights) = grid_scene(65, 65);
    let mut doc =
        parse(&common::export_text("gltf", &scene, &weights, &ExportOptions::default()).unwrap());
    let nodes = doc.json["nodes"].as_array_mut().unwrap();
    let first = nodes.len();
    nodes.extend((0..65_536).map(|_| serde_json::json!({})));
    let skin = doc.json["skins"][0].as_object_mut().unwrap();
    skin.remove("inverseBindMatrices");
    skin.insert(
        "joints".into(),
        (first..first + 65_536).collect::<Vec<_>>().into(),
    );
    let (field, message) = field_error(&doc);
    assert_eq!(field, "skins[0].joints");
    assert!(
        message.contains("65536 joints x 4225 vertices = 276889600 weights"),
        "{message}"
    );
}

#[test]
fn node_cycles_are_errors_and_deep_hierarchies_import() {
    // SimpleSkin exported: node 0 is the root, 1 and 2 the joints, 3 the mesh node.
    // joint1 -> root closes the cycle 0 -> 1 -> 2 -> 0; no node has two parents.
    let mut doc = simpleskin_doc();
    doc.json["nodes"][2]["children"] = vec![0].into();
    let (field, message) = field_error(&doc);
    assert!(
        ["nodes[0]", "nodes[1]", "nodes[2]"].contains(&field.as_str()),
        "{field}"
    );
    assert!(message.contains("own ancestor"), "{message}");

    // A cycle away from the joints is an error too (the hierarchy must be a forest).
    let mut doc = simpleskin_doc();
    let nodes = doc.json["nodes"].as_array_mut().unwrap();
    let n = nodes.len();
    nodes.push(serde_json::json!({ "children": [n + 1] }));
    nodes.push(serde_json::json!({ "children": [n] }));
    let (field, message) = field_error(&doc);
    assert!(
        field == format!("nodes[{n}]") || field == format!("nodes[{}]", n + 1),
        "{field}"
    );
    assert!(message.contains("own ancestor"), "{message}");

    // A child index past the nodes.
    let mut doc = simpleskin_doc();
    doc.json["nodes"][3]["children"] = vec![99].into();
    assert_eq!(field_error(&doc).0, "nodes[3].children[0]");

    // 200,000 nodes above the root: walked without recursion, in linear time (100x the
    // nodes takes well under 1000x the time of 2,000: a ratio, so a loaded machine slows
    // both alike; a quadratic walk would take 10000x).
    let import_above = |depth: usize| {
        let mut doc = simpleskin_doc();
        let nodes = doc.json["nodes"].as_array_mut().unwrap();
        let n = nodes.len();
        nodes.extend((0..depth).map(|i| {
            let child = if i + 1 < depth { n + i + 1 } else { 0 };
            serde_json::json!({ "children": [child] })
        }));
        let text = encode(&doc);
        let start = std::time::Instant::now();
        let imported = import_gltf_str(&text, None, "deep").unwrap();
        (imported, start.elapsed())
    };
    // The fastest of three runs each: a shared machine's pauses land on one run, not all.
    let fastest = |depth: usize| {
        let runs: Vec<_> = (0..3).map(|_| import_above(depth)).collect();
        let best = runs.iter().map(|r| r.1).min().unwrap();
        (runs.into_iter().next().unwrap().0, best)
    };
    let (_, shallow) = fastest(2_000);
    let (imported, deep) = fastest(200_000);
    let bones = imported.scene.skeleton().bones();
    assert_eq!(
        (bones.len(), bones[0].parent, bones[1].parent),
        (2, None, Some(0))
    );
    assert!(
        deep < 1000 * shallow,
        "200k nodes {deep:?}, 2k nodes {shallow:?}"
    );
}

#[test]
fn buffer_uris_stay_beside_the_gltf() {
    let base = simpleskin_doc();
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("inner");
    std::fs::create_dir_all(inner.join("sub")).unwrap();
    // The real data outside the .gltf's directory, and inside it in sub/.
    std::fs::write(dir.path().join("outside.bin"), &base.bin).unwrap();
    std::fs::write(inner.join("sub/skin.bin"), &base.bin).unwrap();
    let outside = dir.path().join("outside.bin").to_string_lossy().to_string();
    let file_uri = format!("file://{outside}");
    let import = |uri: &str| {
        let mut doc = simpleskin_doc();
        doc.json["buffers"][0]["uri"] = uri.into();
        let path = inner.join("skin.gltf");
        std::fs::write(&path, doc.json.to_string()).unwrap();
        import_gltf(&path)
    };
    // Below the directory is fine.
    assert_eq!(
        import("sub/skin.bin").unwrap().scene.mesh().vertex_count(),
        10
    );
    for (uri, says) in [
        ("../outside.bin", "`..`"),
        ("sub/%2E%2E/../outside.bin", "`..`"),
        ("sub/%2e%2e/%2e%2e/outside.bin", "`..`"),
        (outside.as_str(), "absolute"),
        (file_uri.as_str(), "scheme file:"),
        ("file:sub/skin.bin", "scheme file:"),
        ("https://example.com/skin.bin", "scheme https:"),
        ("sub", "not a regular file"),
    ] {
        match import(uri) {
            Err(Error::Format(FormatError::InvalidField { field, message })) => {
                assert_eq!(field, "buffers[0].uri", "{uri}");
                assert!(message.contains(says), "{uri}: {message}");
            }
            r => panic!("{uri}: {:?}", r.map(|i| i.report.notes)),
        }
    }
}

#[test]
fn json_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.gltf");
    std::fs::write(&path, "{\"asset\": ").unwrap();
    match import_gltf(&path) {
        Err(Error::Format(FormatError::Json { context, .. })) => {
            assert_eq!(context, path.display().to_string())
        }
        r => panic!("{:?}", r.map(|i| i.report.notes)),
    }
    // Bad mesh extras are a field error naming the mesh, not a JSON error losing it.
    let mut doc = simpleskin_doc();
    doc.json["meshes"][0]["extras"] = serde_json::json!({ "skinweights": { "parts": 3 } });
    assert_eq!(field_error(&doc).0, "meshes[0].extras.skinweights");
}

/// `export gltf -o x.glb` writes binary glTF (issue 47): the 12-byte header, a JSON chunk
/// padded with spaces, a BIN chunk padded with zeros; importing it gives what importing the
/// `.gltf` of the same weights gives.
#[test]
fn cli_writes_binary_gltf_for_glb_and_reads_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_string_lossy().to_string();
    let (scene, weights) = figure_with_heat();
    skinweights::io::save_scene(&scene, p("f.json")).unwrap();
    skinweights::io::WeightsFile::new(scene.name(), "heat", scene.skeleton().names(), &weights)
        .save(p("w.json"))
        .unwrap();
    for out in ["f.glb", "f.gltf"] {
        let o = common::skinweights(&["export", "gltf", &p("f.json"), &p("w.json"), "-o", &p(out)]);
        assert!(o.status.success(), "{}", common::text(&o));
    }
    let glb = std::fs::read(p("f.glb")).unwrap();
    let u32_at = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!((u32_at(4), u32_at(8)), (2, glb.len()));
    let json_len = u32_at(12);
    assert_eq!((json_len % 4, &glb[16..20]), (0, &b"JSON"[..]));
    let json: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    assert!(
        json["buffers"][0].get("uri").is_none(),
        "buffer 0 is the BIN chunk"
    );
    let bin_at = 20 + json_len;
    let bin_len = u32_at(bin_at);
    assert_eq!(&glb[bin_at + 4..bin_at + 8], b"BIN\0");
    assert_eq!((bin_len % 4, bin_at + 8 + bin_len), (0, glb.len()));
    assert!(bin_len >= json["buffers"][0]["byteLength"].as_u64().unwrap() as usize);

    let from_glb = import_gltf(p("f.glb")).unwrap();
    let from_gltf = import_gltf(p("f.gltf")).unwrap();
    let (a, b) = (from_glb.scene.mesh(), from_gltf.scene.mesh());
    assert_eq!((a.vertices(), a.triangles()), (b.vertices(), b.triangles()));
    assert_eq!(a.vertex_parts(), b.vertex_parts());
    assert_eq!(
        from_glb.scene.skeleton().bones(),
        from_gltf.scene.skeleton().bones()
    );
    assert_eq!(
        from_glb.weights_file().unwrap().weights,
        from_gltf.weights_file().unwrap().weights
    );
    let o = common::skinweights(&["import", "gltf", &p("f.glb"), "-o", &p("back.json")]);
    assert!(o.status.success(), "{}", common::text(&o));
}
