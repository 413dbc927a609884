//! Corrective shapes in the scene file and baked into exported clips (issue 29, item 3): the
//! scene file and its binary form keep them, hostile ones are typed errors (fuzzed too), the
//! drawing paths add them, and each export carries them where the format can: glTF morph
//! targets (evaluated here from the raw accessors), Spine deform keys and DragonBones FFD
//! frames (each drawn here from the file's own numbers and compared with the library).

use crate::common;
use skinweights::{CorrectiveError, FormatError, SkeletonError};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use common::{skinweights, small_scene, solved, text, Rng};
use nalgebra::{Point2, Vector2};
use serde_json::Value;
use skinweights::animation::{BoneTrack, ChannelKind, Clip, Key};
use skinweights::correctives::{
    auto_corrective, skin_scene, skin_with_correctives, AutoCorrectiveOptions, Corrective,
    CorrectiveKey, Interpolation,
};
use skinweights::io::{
    gltf::import_gltf_str, scene_from_binary, scene_from_json, scene_to_binary, scene_to_json,
    ExportOptions,
};
use skinweights::metrics::clip::{clip_frame_positions, clip_metrics, ClipOptions};
use skinweights::render::{posed_vertices, Skinning};
use skinweights::{
    scene::Scene, skeleton::Pose, skinning::linear_blend_skinning, weights::Weights, Error,
};

/// The bar (500 vertices) with a clip bending the joint to 150 degrees and back, its
/// `linear` weights and an automatic corrective at 90 and 150 degrees.
fn corrected_bar() -> (Scene, Weights) {
    let scene = small_scene("bar");
    let weights = solved(&scene, "linear");
    let auto = auto_corrective(
        &scene,
        &weights,
        "lower",
        &[90.0, 150.0],
        // The two asked keys only (the fit adds one every 5 degrees by default): two morph
        // targets, named below.
        &AutoCorrectiveOptions::default().with_key_step(None),
    )
    .unwrap();
    let clip = Clip::new("bend", 1.0).with_track(BoneTrack::new("lower").with(
        ChannelKind::Rotation,
        vec![Key::new(0.0, 0.0), Key::new(0.5, 150.0), Key::new(1.0, 0.0)],
    ));
    let scene = scene
        .with_animation(vec![clip], Vec::new())
        .unwrap()
        .with_correctives(vec![auto.corrective])
        .unwrap();
    (scene, weights)
}

fn max_offset_difference(a: &[Corrective], b: &[Corrective]) -> f64 {
    assert_eq!(a.len(), b.len());
    let mut worst = 0.0f64;
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.joint, y.joint);
        assert_eq!(x.vertices, y.vertices);
        assert_eq!(x.interpolation, y.interpolation);
        assert_eq!(x.keys.len(), y.keys.len());
        for (kx, ky) in x.keys.iter().zip(&y.keys) {
            assert_eq!(kx.angle, ky.angle);
            for (p, q) in kx.offsets.iter().zip(&ky.offsets) {
                worst = worst.max((p - q).norm());
            }
        }
    }
    worst
}

#[test]
fn scene_file_and_binary_keep_the_correctives() {
    let (scene, _) = corrected_bar();
    let json = scene_to_json(&scene, None).unwrap();
    assert!(json.contains("\"correctives\"") && json.contains("skinweights.scene/3"));
    let (back, _) = scene_from_json(&json, None).unwrap();
    let d_json = max_offset_difference(scene.correctives(), back.correctives());
    let (bin, _) = scene_from_binary(&scene_to_binary(&scene, None).unwrap(), None).unwrap();
    let d_bin = max_offset_difference(scene.correctives(), bin.correctives());
    println!(
        "round trip: {} offsets, largest difference JSON {d_json:e} px, binary {d_bin:e} px",
        scene.correctives()[0].vertices.len() * 2
    );
    assert_eq!(d_json, 0.0);
    assert_eq!(d_bin, 0.0);
    back.sanity_check().unwrap();
    // Written again unchanged.
    assert_eq!(scene_to_json(&back, None).unwrap(), json);

    // Without correctives: no key, the version the rest needs (the bar alone is /1).
    let plain = small_scene("bar");
    let text = scene_to_json(&plain, None).unwrap();
    assert!(!text.contains("correctives") && text.contains("skinweights.scene/1"));
    let (again, _) = scene_from_json(&text, None).unwrap();
    assert!(again.correctives().is_empty());
    assert_eq!(scene_to_json(&again, None).unwrap(), text);
}

/// The bar's scene file with `correctives` replaced by `value` (format /3).
fn bar_file_with(correctives: &str) -> String {
    let text = scene_to_json(&small_scene("bar"), None).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    doc["format"] = Value::from("skinweights.scene/3");
    let mut s = serde_json::to_string(&doc).unwrap();
    s.pop();
    s.push_str(&format!(",\"correctives\":{correctives}}}"));
    s
}

/// What a hostile case's error must be.
type ErrorCheck = fn(&Error) -> bool;

#[test]
fn hostile_correctives_in_a_scene_file_are_typed_errors() {
    let load = |c: &str| scene_from_json(&bar_file_with(c), None).map(|_| ());
    let ok = r#"[{"joint": "lower", "vertices": [0, 1], "keys": [{"angle": 90, "offsets": [[1, 0], [0, 1]]}]}]"#;
    load(ok).unwrap();
    let cases: Vec<(&str, ErrorCheck)> = vec![
        (
            r#"[{"joint": "elbow", "vertices": [0], "keys": [{"angle": 90, "offsets": [[1, 0]]}]}]"#,
            |e| matches!(e, Error::Skeleton(SkeletonError::UnknownBone { bone, .. }) if bone == "elbow"),
        ),
        (
            r#"[{"joint": "upper", "vertices": [0], "keys": [{"angle": 90, "offsets": [[1, 0]]}]}]"#,
            |e| matches!(e, Error::Corrective(CorrectiveError::NotAJoint { bone }) if bone == "upper"),
        ),
        (
            r#"[{"joint": "lower", "vertices": [0], "keys": [{"angle": 90, "offsets": [[1, 0]]}, {"angle": 45, "offsets": [[1, 0]]}]}]"#,
            |e| {
                matches!(
                    e,
                    Error::Corrective(CorrectiveError::CorrectiveAngleOrder { key: 1, .. })
                )
            },
        ),
        (
            r#"[{"joint": "lower", "vertices": [0, 99999], "keys": [{"angle": 90, "offsets": [[1, 0], [0, 0]]}]}]"#,
            |e| {
                matches!(
                    e,
                    Error::Corrective(CorrectiveError::CorrectiveVertex { vertex: 99999, .. })
                )
            },
        ),
        (
            r#"[{"joint": "lower", "vertices": [3, 3], "keys": [{"angle": 90, "offsets": [[1, 0], [0, 0]]}]}]"#,
            |e| {
                matches!(
                    e,
                    Error::Corrective(CorrectiveError::DuplicateCorrectiveVertex { vertex: 3, .. })
                )
            },
        ),
        (
            r#"[{"joint": "lower", "vertices": [0, 1], "keys": [{"angle": 90, "offsets": [[1, 0]]}]}]"#,
            |e| {
                matches!(
                    e,
                    Error::Corrective(CorrectiveError::CorrectiveOffsets {
                        given: 1,
                        vertices: 2,
                        ..
                    })
                )
            },
        ),
        (
            r#"[{"joint": "lower", "vertices": [0], "keys": []}]"#,
            |e| {
                matches!(
                    e,
                    Error::Corrective(CorrectiveError::EmptyCorrective { .. })
                )
            },
        ),
        (
            r#"[{"joint": "lower", "interpolation": "cubic", "vertices": [0], "keys": [{"angle": 90, "offsets": [[1, 0]]}]}]"#,
            |e| crate::common::invalid_field(e).0 == "correctives[0].interpolation",
        ),
        (
            r#"[{"joint": "lower", "vertices": [0], "keys": [{"angle": 90, "offsets": [[1, 0]]}]}, {"joint": "lower", "vertices": [1], "keys": [{"angle": 90, "offsets": [[1, 0]]}]}]"#,
            |e| {
                matches!(
                    e,
                    Error::Corrective(CorrectiveError::DuplicateCorrective {
                        first: 0,
                        second: 1,
                        ..
                    })
                )
            },
        ),
        (
            r#"[{"joint": "lower", "vertices": [0], "keys": [{"angle": 90, "offsets": [[1e999, 0]]}]}]"#,
            |e| {
                matches!(
                    e,
                    Error::Corrective(CorrectiveError::NonFiniteCorrective { .. })
                        | Error::Format(FormatError::Json { .. })
                )
            },
        ),
        (
            r#"[{"joint": "lower", "vertices": [0], "keys": [{"angle": 90, "offsets": [[1, 0]], "extra": 1}]}]"#,
            |e| matches!(e, Error::Format(FormatError::Json { .. })),
        ),
    ];
    for (c, expected) in cases {
        let e = load(c).unwrap_err();
        assert!(expected(&e), "{c}: {e}");
    }
    // A version 1 or 2 file may not carry them.
    let old = bar_file_with(ok).replace("skinweights.scene/3", "skinweights.scene/1");
    let e = scene_from_json(&old, None).unwrap_err();
    let (field, message) = crate::common::invalid_field(&e);
    assert!(
        field == "format" && message.contains("correctives") && message.contains("scene/3"),
        "{e}"
    );

    // NaN cannot be written in JSON; the library refuses it, naming key and vertex.
    let mut c = Corrective {
        joint: "lower".into(),
        vertices: vec![4, 7],
        keys: vec![CorrectiveKey {
            angle: 90.0,
            offsets: vec![Vector2::new(0.0, 0.0), Vector2::new(f64::NAN, 0.0)],
        }],
        interpolation: Interpolation::Linear,
    };
    let e = small_scene("bar")
        .with_correctives(vec![c.clone()])
        .unwrap_err();
    assert!(
        matches!(&e, Error::Corrective(CorrectiveError::NonFiniteCorrective { key: 0, what, .. }) if what.contains("vertex 7")),
        "{e}"
    );
    c.keys[0].offsets[1].x = 0.0;
    c.keys[0].angle = f64::INFINITY;
    assert!(matches!(
        small_scene("bar").with_correctives(vec![c]),
        Err(Error::Corrective(
            CorrectiveError::NonFiniteCorrective { .. }
        ))
    ));
}

#[test]
fn fuzzed_correctives_never_panic() {
    let mut rng = Rng(0x5eed_c0de_2901);
    let hostile = [
        "-1",
        "1e308",
        "-1e308",
        "1e999",
        "\"x\"",
        "null",
        "[]",
        "4000000000",
        "0.5",
    ];
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..400 {
        // Each number valid three times in four, else a hostile one.
        let mut pick = |valid: &'static str| {
            if rng.next() % 4 == 0 {
                hostile[(rng.next() % hostile.len() as u64) as usize]
            } else {
                valid
            }
        };
        let c = format!(
            r#"[{{"joint": "lower", "vertices": [{}, {}], "keys": [{{"angle": {}, "offsets": [[{}, {}], [{}, 0]]}}, {{"angle": {}, "offsets": [[0, 0], [{}, {}]]}}]}}]"#,
            pick("0"),
            pick("1"),
            pick("90"),
            pick("1.5"),
            pick("-2"),
            pick("0.25"),
            pick("150"),
            pick("3"),
            pick("-1")
        );
        match scene_from_json(&bar_file_with(&c), None) {
            Ok((scene, _)) => {
                scene.sanity_check().unwrap();
                // An accepted corrective draws finite positions.
                let w = Weights::from_rows(&vec![vec![0.5, 0.5]; scene.mesh().vertex_count()], 2)
                    .unwrap();
                let posed = skin_scene(&scene, &w, &Pose::rest().rotate("lower", 120.0)).unwrap();
                assert!(posed.iter().all(|p| p.x.is_finite() && p.y.is_finite()));
                accepted += 1;
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                refused += 1;
            }
        }
    }
    println!("fuzzed correctives: {accepted} accepted, {refused} refused");
    assert!(accepted > 0 && refused > 0);
}

#[test]
fn drawing_paths_add_the_correctives() {
    let (scene, weights) = corrected_bar();
    let pose = Pose::rest().rotate("lower", 120.0);
    let library = skin_with_correctives(
        scene.mesh().vertices(),
        scene.skeleton(),
        &weights,
        &pose,
        scene.correctives(),
    )
    .unwrap();
    let drawn = posed_vertices(&scene, &weights, &pose, Skinning::Lbs).unwrap();
    let worst = library
        .iter()
        .zip(&drawn)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    assert!(worst < 1e-9, "render vs library {worst}");
    let lbs =
        linear_blend_skinning(scene.mesh().vertices(), scene.skeleton(), &weights, &pose).unwrap();
    let moved = lbs
        .iter()
        .zip(&drawn)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    assert!(moved > 1.0, "the corrective moves the band ({moved} px)");
    // Without correctives: LBS bit for bit.
    let plain = small_scene("bar");
    assert_eq!(
        posed_vertices(&plain, &weights, &pose, Skinning::Lbs).unwrap(),
        linear_blend_skinning(plain.mesh().vertices(), plain.skeleton(), &weights, &pose).unwrap()
    );
    // Clip frames and clip metrics.
    let clip = &scene.clips()[0];
    let at_peak = clip_frame_positions(&scene, &weights, clip, 0.5).unwrap();
    let peak = scene.clip_pose(clip, 0.5).unwrap();
    assert_eq!(at_peak, skin_scene(&scene, &weights, &peak).unwrap());
    let bare = scene.clone().without_correctives();
    let with = clip_metrics(&scene, &weights, None, clip, &ClipOptions::default()).unwrap();
    let without = clip_metrics(&bare, &weights, None, clip, &ClipOptions::default()).unwrap();
    let with_ref = clip_metrics(
        &scene,
        &weights,
        Some(&weights),
        clip,
        &ClipOptions::default(),
    )
    .unwrap();
    println!(
        "bend clip: area change {:.2}% with the corrective, {:.2}% without; flipped {} vs {}",
        with.area_change_max_pct,
        without.area_change_max_pct,
        with.flipped_max,
        without.flipped_max
    );
    // The corrective unfolds the inner side (LBS's |area| counts folded triangles too).
    assert!(with.flipped_max < without.flipped_max);
    assert_eq!(with_ref.area_change_max_pct, with.area_change_max_pct);
    assert_eq!(with_ref.deviation_max_px, Some(0.0));
}

/// The glTF document's JSON and its one decoded buffer.
struct Gltf {
    json: Value,
    bin: Vec<u8>,
}

impl Gltf {
    fn parse(text: &str) -> Gltf {
        let json: Value = serde_json::from_str(text).unwrap();
        let uri = json["buffers"][0]["uri"].as_str().unwrap();
        let bin = BASE64.decode(uri.split_once(',').unwrap().1).unwrap();
        Gltf { json, bin }
    }

    /// An accessor's float values, read from the raw bytes (tightly packed).
    fn floats(&self, accessor: &Value) -> Vec<f64> {
        let a = &self.json["accessors"][accessor.as_u64().unwrap() as usize];
        assert_eq!(a["componentType"], 5126);
        let v = &self.json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        let start = (v["byteOffset"].as_u64().unwrap_or(0) + a["byteOffset"].as_u64().unwrap_or(0))
            as usize;
        let comps = match a["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC3" => 3,
            _ => 4,
        };
        let n = a["count"].as_u64().unwrap() as usize * comps;
        self.bin[start..start + 4 * n]
            .chunks(4)
            .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect()
    }
}

#[test]
fn gltf_morph_targets_reproduce_the_offsets() {
    let (scene, weights) = corrected_bar();
    let text = common::export_text("gltf", &scene, &weights, &ExportOptions::default()).unwrap();
    let doc = Gltf::parse(&text);
    let prim = &doc.json["meshes"][0]["primitives"][0];
    let base = doc.floats(&prim["attributes"]["POSITION"]);
    let targets: Vec<Vec<f64>> = prim["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| doc.floats(&t["POSITION"]))
        .collect();
    assert_eq!(targets.len(), 2);
    assert_eq!(
        doc.json["meshes"][0]["extras"]["targetNames"],
        serde_json::json!(["lower@90", "lower@150"])
    );
    let anim = &doc.json["animations"][0];
    let channel = anim["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["path"] == "weights")
        .unwrap();
    assert_eq!(channel["target"]["node"], 3, "the mesh node");
    let sampler = &anim["samplers"][channel["sampler"].as_u64().unwrap() as usize];
    let times = doc.floats(&sampler["input"]);
    let w = doc.floats(&sampler["output"]);
    assert_eq!(w.len(), times.len() * targets.len());
    let c = &scene.correctives()[0];
    let n = scene.mesh().vertex_count();
    let (mut worst_morph, mut worst_runtime) = (0.0f64, 0.0f64);
    for (i, &t) in times.iter().enumerate() {
        let pose = scene.clip_pose(&scene.clips()[0], t).unwrap();
        let angle = c.joint_angle(scene.skeleton(), &pose).unwrap();
        let offsets = c.offsets_at(angle);
        // base + sum_k w_k target_k from the file, against rest + offsets from the library.
        let mut morphed: Vec<Point2<f64>> = (0..n)
            .map(|v| {
                let mut p = [base[3 * v], base[3 * v + 1]];
                for (k, target) in targets.iter().enumerate() {
                    p[0] += w[i * targets.len() + k] * target[3 * v];
                    p[1] += w[i * targets.len() + k] * target[3 * v + 1];
                }
                Point2::new(p[0], p[1])
            })
            .collect();
        let mut expected: Vec<Point2<f64>> = scene.mesh().vertices().to_vec();
        for (&v, o) in c.vertices.iter().zip(&offsets) {
            expected[v] += o;
        }
        for (a, b) in morphed.iter().zip(&expected) {
            worst_morph = worst_morph.max((a - b).norm());
        }
        // What a glTF runtime draws (morph, then skin) against the library's LBS + R o.
        let drawn = linear_blend_skinning(&morphed, scene.skeleton(), &weights, &pose).unwrap();
        let library = skin_scene(&scene, &weights, &pose).unwrap();
        for (a, b) in drawn.iter().zip(&library) {
            worst_runtime = worst_runtime.max((a - b).norm());
        }
        morphed.clear();
    }
    println!(
        "glTF morph targets at {} sampled times: base + sum w target vs rest + offsets {worst_morph:e} px; morph-then-skin vs LBS + corrective {worst_runtime:.3} px",
        times.len()
    );
    assert!(worst_morph < 1e-4, "{worst_morph}");
    // The file still imports (the weights channel is skipped with a note).
    let back = import_gltf_str(&text, None, "bar").unwrap();
    assert_eq!(back.scene.mesh().vertex_count(), n);

    // Without correctives: no targets, no weights channel.
    let bare = scene.clone().without_correctives();
    let plain = common::export_text("gltf", &bare, &weights, &ExportOptions::default()).unwrap();
    assert!(!plain.contains("targets") && !plain.contains("\"weights\""));
}

/// The Spine attachment `part` of the default skin and the bone names in file order.
fn spine_mesh<'a>(json: &'a Value, part: &str) -> &'a Value {
    let skins = json["skins"].as_array().unwrap();
    &skins[0]["attachments"][part][part]
}

/// A deform key's (Spine) or FFD frame's (DragonBones) values by index: `vertices` starting
/// at `offset`, 0 outside them.
fn sparse_values(key: &Value) -> impl Fn(usize) -> f64 {
    let offset = key["offset"].as_u64().unwrap_or(0) as usize;
    let values: Vec<f64> = key["vertices"]
        .as_array()
        .map(|a| a.iter().map(|x| x.as_f64().unwrap()).collect())
        .unwrap_or_default();
    move |i| {
        i.checked_sub(offset)
            .and_then(|k| values.get(k))
            .copied()
            .unwrap_or(0.0)
    }
}

/// The vertices of part `part`'s mesh, ascending: those of the triangles whose corners are
/// mostly in the part (ties: the first corner's), as the exporters split triangles.
fn part_vertices(scene: &Scene, part: &str) -> Vec<usize> {
    let p = scene.mesh().part_index(part).unwrap();
    let vp = scene.mesh().vertex_parts();
    let mut used: Vec<usize> = scene
        .mesh()
        .triangles()
        .iter()
        .filter(|t| {
            let [a, b, c] = t.map(|v| vp[v]);
            (if b == c { b } else { a }) == p
        })
        .flatten()
        .copied()
        .collect();
    used.sort_unstable();
    used.dedup();
    used
}

#[test]
fn spine_deform_keys_reproduce_the_corrected_positions() {
    let (scene, weights) = corrected_bar();
    let json = &common::export_json("spine", &scene, &weights, &ExportOptions::default()).unwrap();
    let bones: Vec<String> = json["bones"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap().to_string())
        .collect();
    let deforms = &json["animations"]["bend"]["attachments"]["default"];
    let slots = deforms.as_object().unwrap();
    assert!(!slots.is_empty());
    let mut worst = 0.0f64;
    let mut keys_checked = 0;
    for (part, atts) in slots {
        let mesh = spine_mesh(json, part);
        let vertices: Vec<f64> = mesh["vertices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let used = part_vertices(&scene, part);
        for key in atts[part]["deform"].as_array().unwrap() {
            let t = key["time"].as_f64().unwrap();
            let deform = sparse_values(key);
            let pose = scene.clip_pose(&scene.clips()[0], t).unwrap();
            let world = scene.skeleton().world_affines(&pose).unwrap();
            let expected = skin_scene(&scene, &weights, &pose).unwrap();
            // Spine's weighted vertex: sum_b w_b W_b (bind_b + deform_b).
            let (mut at, mut pair) = (0usize, 0usize);
            for &v in &used {
                let count = vertices[at] as usize;
                at += 1;
                let mut q = Vector2::zeros();
                for _ in 0..count {
                    let bone = &bones[vertices[at] as usize];
                    let j = scene.skeleton().index_of(bone).unwrap();
                    let local = Point2::new(
                        vertices[at + 1] + deform(2 * pair),
                        vertices[at + 2] + deform(2 * pair + 1),
                    );
                    q += vertices[at + 3] * world[j].apply(local).coords;
                    at += 4;
                    pair += 1;
                }
                worst = worst.max((Point2::from(q) - expected[v]).norm());
            }
            assert_eq!(at, vertices.len());
            keys_checked += 1;
        }
    }
    println!("Spine deform: {keys_checked} keys, drawn vs library {worst:e} px");
    assert!(keys_checked >= 31);
    assert!(worst < 1e-6, "{worst}");
}

#[test]
fn dragonbones_ffd_frames_reproduce_the_corrected_positions() {
    let (scene, weights) = corrected_bar();
    let doc =
        common::export_json("dragonbones", &scene, &weights, &ExportOptions::default()).unwrap();
    let armature = &doc["armature"][0];
    let rate = armature["frameRate"].as_f64().unwrap();
    let anim = &armature["animation"][0];
    let ffd = anim["ffd"].as_array().unwrap();
    assert!(!ffd.is_empty());
    let displays = armature["skin"][0]["slot"].as_array().unwrap();
    let influences = weights.influences();
    let (mut worst, mut collapsed, mut frames_checked) = (0.0f64, 0usize, 0usize);
    for timeline in ffd {
        let name = timeline["name"].as_str().unwrap();
        let display = &displays.iter().find(|d| d["name"] == name).unwrap()["display"][0];
        let setup: Vec<f64> = display["vertices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let index = part_vertices(&scene, name);
        for (i, &v) in index.iter().enumerate() {
            let p = scene.mesh().vertices()[v];
            assert_eq!([setup[2 * i], setup[2 * i + 1]], [p.x, -p.y]);
        }
        let mut frame_start = 0.0;
        for frame in timeline["frame"].as_array().unwrap() {
            let t = frame_start / rate;
            frame_start += frame["duration"].as_f64().unwrap();
            let amount = sparse_values(frame);
            let pose = scene.clip_pose(&scene.clips()[0], t).unwrap();
            let s = scene.skeleton().skinning_affines(&pose).unwrap();
            let expected = skin_scene(&scene, &weights, &pose).unwrap();
            for (i, &v) in index.iter().enumerate() {
                // Setup vertex plus amount (y down), skinned.
                let q = Point2::new(
                    setup[2 * i] + amount(2 * i),
                    -(setup[2 * i + 1] + amount(2 * i + 1)),
                );
                let mut p = Vector2::zeros();
                for &(j, w) in &influences[v] {
                    p += w * s[j].apply(q).coords;
                }
                let e = (Point2::from(p) - expected[v]).norm();
                if e > 1e-6 {
                    collapsed += 1;
                }
                worst = worst.max(e);
            }
            frames_checked += 1;
        }
    }
    println!(
        "DragonBones FFD at {rate} fps: {frames_checked} frames, drawn vs library {worst:e} px, {collapsed} vertices off by more than 1e-6"
    );
    assert_eq!(collapsed, 0);
}

#[test]
fn correct_command_writes_the_fitted_correctives() {
    let dir = std::env::temp_dir().join(format!("sw_correct_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("bar_corrected.json");
    let out_s = out.to_str().unwrap();
    let args = [
        "correct",
        "bar",
        "--vertices",
        "500",
        "--solver",
        "linear",
        "--joint",
        "lower",
        "--angles",
        "90,150",
        "-o",
        out_s,
    ];
    let o = skinweights(&args);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("joint lower"), "{}", text(&o));
    let (scene, _) = skinweights::io::load_scene(&out).unwrap();
    assert_eq!(scene.correctives().len(), 1);
    let c = &scene.correctives()[0];
    assert_eq!(c.joint, "lower");
    assert_eq!(c.interpolation, Interpolation::Linear);
    let angles: Vec<f64> = c.keys.iter().map(|k| k.angle).collect();
    // The asked keys, and the fit's own every 5 degrees from the rest angle.
    assert!(
        angles.contains(&90.0) && angles.contains(&150.0),
        "{angles:?}"
    );
    assert!(
        angles.windows(2).all(|w| w[1] - w[0] <= 5.0 + 1e-9),
        "{angles:?}"
    );
    // The library's fit on the same scene and weights gives the same offsets.
    let bar = small_scene("bar");
    let fit = auto_corrective(
        &bar,
        &solved(&bar, "linear"),
        "lower",
        &[90.0, 150.0],
        &AutoCorrectiveOptions::default(),
    )
    .unwrap();
    let d = max_offset_difference(std::slice::from_ref(&fit.corrective), scene.correctives());
    assert!(d < 1e-9, "{d}");
    // Refuses to overwrite without --force; `-o -` prints the scene.
    let o = skinweights(&args);
    assert!(
        !o.status.success() && text(&o).contains("--force"),
        "{}",
        text(&o)
    );
    let mut to_stdout = args.to_vec();
    *to_stdout.last_mut().unwrap() = "-";
    let o = skinweights(&to_stdout);
    assert!(o.status.success(), "{}", text(&o));
    let (piped, _) = scene_from_json(&String::from_utf8(o.stdout).unwrap(), None).unwrap();
    assert_eq!(piped.correctives().len(), 1);
    // A hostile angle list is a typed error naming the key.
    let mut bad = args.to_vec();
    bad[9] = "150,90";
    bad[11] = "-";
    let o = skinweights(&bad);
    assert!(
        !o.status.success() && text(&o).contains("increasing"),
        "{}",
        text(&o)
    );
    let help = text(&skinweights(&["correct", "--help"]));
    assert!(help.contains("--angles") && help.contains("--joint") && help.contains("--weights"));
    std::fs::remove_dir_all(&dir).ok();
}
