//! Helpers shared by the integration tests: running the `skinweights` binary, small built-in
//! scenes, solved weights and comparisons. Each test module uses a subset.

#![allow(dead_code)]

use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Scene, solvers::solve, weights::Weights,
};
#[cfg(feature = "cli")]
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

/// Seeded synthetic character sprites (`best.rs`; the `leakage_folds` experiment includes the
/// same file).
#[cfg(feature = "io")]
pub mod synthetic_sprite;

/// Held by each test that starts Godot 3 or Chromium, for as long as the program runs: one at
/// a time. The integration tests share one process, so tests of different modules run side
/// by side, which they never did as separate binaries; `xvfb-run -a` picks a free display
/// number with a racy probe, and a browser or an engine next to another takes the machine's
/// memory and cores from the timed tests.
pub fn engine() -> MutexGuard<'static, ()> {
    static ENGINE: Mutex<()> = Mutex::new(());
    ENGINE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs the `skinweights` binary with `args`.
#[cfg(feature = "cli")]
pub fn skinweights(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skinweights"))
        .args(args)
        .output()
        .expect("runs")
}

/// Its stdout followed by its stderr.
#[cfg(feature = "cli")]
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Built-in scene `name` at 500 vertices (the smallest accepted): fast to solve.
pub fn small_scene(name: &str) -> Scene {
    scene_at(name, 500)
}

/// Built-in scene `name` meshed with about `vertices` vertices (default options otherwise).
pub fn scene_at(name: &str, vertices: usize) -> Scene {
    builtin_scene(name, &BuiltinOptions::default().with_vertices(vertices)).expect("built-in scene")
}

/// Weights of `solver` on `scene`, checked valid.
pub fn solved(scene: &Scene, solver: &str) -> Weights {
    let w = solve(scene, solver).expect("solves");
    w.validate().expect("valid weights");
    w
}

/// Largest absolute difference between two equally long slices (pass `Weights::as_slice()`
/// to compare weight matrices; check their shapes first).
pub fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "lengths differ");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// A file under the repository's `data/` folder.
pub fn data(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(rel)
}

/// A seeded xorshift generator (no dependency, the same numbers on every run).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// A random byte.
    pub fn byte(&mut self) -> u8 {
        (self.next() >> 24) as u8
    }
}

/// A small valid Spine 4.2 project (bones with an inherit mode, a weighted mesh, a region,
/// two animations with every curve kind, a two-bone IK constraint): the seed of the Spine
/// fuzz target and of the Spine clip tests' hostile cases.
pub const TINY_SPINE: &str = r#"{
"skeleton": {"spine": "4.2.22"},
"bones": [
  {"name": "root"},
  {"name": "upper", "parent": "root", "rotation": 90, "length": 60},
  {"name": "lower", "parent": "upper", "x": 60, "length": 50},
  {"name": "tip", "parent": "lower", "x": 50, "inherit": "noScale", "scaleX": 0.5},
  {"name": "target", "parent": "root", "x": 40, "y": 80}
],
"slots": [
  {"name": "arm", "bone": "upper", "attachment": "arm"},
  {"name": "hat", "bone": "tip", "attachment": "hat"}
],
"ik": [{"name": "reach", "bones": ["upper", "lower"], "target": "target", "mix": 0.5}],
"skins": [{"name": "default", "attachments": {
  "arm": {"arm": {"type": "mesh", "uvs": [0, 1, 1, 1, 1, 0, 0, 0], "triangles": [0, 1, 2, 0, 2, 3],
    "vertices": [1, 1, 0, 10, 1, 1, 1, 0, -10, 1,
                 2, 1, 110, -10, 0.5, 2, 50, -10, 0.5, 2, 1, 110, 10, 0.5, 2, 50, 10, 0.5],
    "hull": 4}},
  "hat": {"hat": {"x": 10, "width": 20, "height": 20}}
}}],
"animations": {
  "wave": {
    "bones": {
      "upper": {"rotate": [{"value": 0, "curve": [0.1, 5, 0.3, 25]}, {"time": 0.4, "value": 30},
                           {"time": 1, "value": 0}]},
      "lower": {"translate": [{"curve": "stepped"}, {"time": 0.5, "x": 5, "y": -5}],
                "scale": [{"curve": [0.2, 1, 0.6, 1.2, 0.3, 1, 0.7, 0.9]}, {"time": 1, "x": 1.5, "y": 0.8}],
                "shear": [{"time": 0.2, "x": 10}]},
      "tip": {"shearx": [{"value": 0}, {"time": 0.8, "value": -15}]}
    },
    "slots": {"hat": {"rgba": [{"color": "ffffffff"}, {"time": 1.25, "color": "ffffff00"}]}}
  },
  "idle": {"bones": {"root": {"translatex": [{"value": 0}, {"time": 2, "value": 10}]}}}
}
}"#;

/// A tiny Creature JSON file: a root bone from (0, 0) to (2, 0) and its child from (2, 0) to
/// (4, 0) (`restParentMat` the root's frame at its end point), a six-point strip region
/// `body` and a three-point region `tip`, and a clip `wave` keyed at frames 0, 10 and 20 (the
/// child turning up, then the root turning up and stretching 1.5 times).
pub const TINY_CREATURE: &str = r#"{
"mesh": {
  "points": [0, -1, 2, -1, 4, -1, 4, 1, 2, 1, 0, 1, 4, -0.5, 5, 0, 4, 0.5],
  "uvs": [0, 0, 0.5, 0, 1, 0, 1, 1, 0.5, 1, 0, 1, 0, 0, 1, 0.5, 0, 1],
  "indices": [0, 1, 4, 0, 4, 5, 1, 2, 3, 1, 3, 4, 6, 7, 8],
  "regions": {
    "body": {"start_pt_index": 0, "end_pt_index": 5, "start_index": 0, "end_index": 11, "id": 1,
      "weights": {"Bone_0": [1, 0.5, 0, 0, 0.5, 1], "Bone_1": [0, 0.5, 1, 1, 0.5, 0]}},
    "tip": {"start_pt_index": 6, "end_pt_index": 8, "start_index": 12, "end_index": 14, "id": 2,
      "weights": {"Bone_0": [0, 0, 0], "Bone_1": [1, 1, 1]}}
  }
},
"skeleton": {
  "Bone_0": {"name": "Bone_0", "id": 2, "restParentMat": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
    "localRestStartPt": [0, 0], "localRestEndPt": [2, 0], "children": [3]},
  "Bone_1": {"name": "Bone_1", "id": 3, "restParentMat": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 2, 0, 0, 1],
    "localRestStartPt": [0, 0], "localRestEndPt": [2, 0], "children": []}
},
"animation": {
  "wave": {
    "bones": {
      "0": {"Bone_0": {"start_pt": [0, 0], "end_pt": [2, 0]}, "Bone_1": {"start_pt": [2, 0], "end_pt": [4, 0]}},
      "10": {"Bone_0": {"start_pt": [0, 0], "end_pt": [2, 0]}, "Bone_1": {"start_pt": [2, 0], "end_pt": [2, 2]}},
      "20": {"Bone_0": {"start_pt": [0, 0], "end_pt": [0, 3]}, "Bone_1": {"start_pt": [0, 3], "end_pt": [-2, 3]}}
    },
    "meshes": {}, "uv_swaps": {}, "mesh_opacities": {}
  }
},
"uv_swap_items": {},
"anchor_points_items": {"AnchorPoints": []}
}"#;

/// The field and message of a file-format error naming a field
/// ([`skinweights::FormatError::InvalidField`]); panics on any other error.
pub fn invalid_field(e: &skinweights::Error) -> (&str, &str) {
    match e {
        skinweights::Error::Format(skinweights::FormatError::InvalidField { field, message }) => {
            (field, message)
        }
        e => panic!("not an invalid field: {e:?}"),
    }
}

/// A Spine rig whose default skin is empty and whose art is in `skins` (name, the slots whose
/// setup attachment it holds), with slots `s0`..`s3` each set up with attachment `a`.
#[cfg(feature = "io")]
pub fn spine_with_named_skins(skins: &[(&str, usize)]) -> String {
    let square = serde_json::json!({"width": 10, "height": 10});
    let mut list = vec![serde_json::json!({"name": "default", "attachments": {}})];
    for &(name, slots) in skins {
        let attachments: serde_json::Map<String, serde_json::Value> = (0..slots)
            .map(|s| (format!("s{s}"), serde_json::json!({ "a": square })))
            .collect();
        list.push(serde_json::json!({"name": name, "attachments": attachments}));
    }
    serde_json::json!({
        "skeleton": {"spine": "4.2.0"},
        "bones": [{"name": "root", "length": 20}],
        "slots": (0..4)
            .map(|s| serde_json::json!({"name": format!("s{s}"), "bone": "root", "attachment": "a"}))
            .collect::<Vec<_>>(),
        "skins": list,
    })
    .to_string()
}

/// `scene` and `weights` as a file of the format named `format` (a row of
/// [`skinweights::io::FORMATS`]), through the table's one export.
#[cfg(feature = "io")]
pub fn export(
    format: &str,
    scene: &Scene,
    weights: &Weights,
    options: &skinweights::io::ExportOptions,
) -> skinweights::Result<skinweights::io::Exported> {
    skinweights::io::Format::by_name(format)
        .unwrap_or_else(|| panic!("no format {format}"))
        .export(scene, weights, options)
}

/// [`export`]'s file as text (every format but binary glTF writes text).
#[cfg(feature = "io")]
pub fn export_text(
    format: &str,
    scene: &Scene,
    weights: &Weights,
    options: &skinweights::io::ExportOptions,
) -> skinweights::Result<String> {
    export(format, scene, weights, options).map(|e| String::from_utf8(e.bytes).unwrap())
}

/// [`export`]'s file parsed as JSON (DragonBones, Spine, text glTF).
#[cfg(feature = "io")]
pub fn export_json(
    format: &str,
    scene: &Scene,
    weights: &Weights,
    options: &skinweights::io::ExportOptions,
) -> skinweights::Result<serde_json::Value> {
    export(format, scene, weights, options).map(|e| serde_json::from_slice(&e.bytes).unwrap())
}

/// Export options writing for Godot `n` (3 or 4).
#[cfg(feature = "io")]
pub fn godot_options(n: u32) -> skinweights::io::ExportOptions {
    let version = skinweights::io::GodotVersion::from_number(n).expect("Godot 3 or 4");
    skinweights::io::ExportOptions::default().with_godot(version)
}

/// [`export`] and its file parsed as JSON (DragonBones, Spine, text glTF).
#[cfg(feature = "io")]
pub fn export_with_json(
    format: &str,
    scene: &Scene,
    weights: &Weights,
    options: &skinweights::io::ExportOptions,
) -> skinweights::Result<(skinweights::io::Exported, serde_json::Value)> {
    let out = export(format, scene, weights, options)?;
    let json = serde_json::from_slice(&out.bytes).unwrap();
    Ok((out, json))
}
