//! glTF animations read into the scene's clips (issue 26): the shipped rigs' clips exported and
//! imported back, their poses checked against an independent evaluation of the exported file
//! (this file's own reading of the glTF spec: node TRS, LINEAR lerp / slerp, STEP), a
//! CUBICSPLINE sampler evaluated by hand from its raw accessor bytes, normalized integer
//! rotations, and hostile animations as typed errors.

use crate::common;
use skinweights::{ClipError, FormatError};

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use common::data;
use nalgebra::{Matrix4, Quaternion, UnitQuaternion, Vector3};
use serde_json::{json, Value};
use skinweights::animation::ChannelKind;
use skinweights::io::spine::{load_spine, SkinSelection, SpineImportOptions};
use skinweights::io::{gltf::import_gltf_str, ExportOptions};
use skinweights::{scene::Scene, weights::Weights, Error};

/// The document's JSON and its one decoded buffer.
struct Doc {
    json: Value,
    bin: Vec<u8>,
}

fn parse(text: &str) -> Doc {
    let json: Value = serde_json::from_str(text).unwrap();
    let uri = json["buffers"][0]["uri"].as_str().unwrap();
    let bin = BASE64.decode(uri.split_once(',').unwrap().1).unwrap();
    Doc { json, bin }
}

impl Doc {
    fn floats(&self, accessor: u64) -> Vec<f64> {
        let a = &self.json["accessors"][accessor as usize];
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

/// `[x, y, z]` or the default.
fn vec_or(node: &Value, key: &str, default: &[f64]) -> Vec<f64> {
    node.get(key).map_or(default.to_vec(), |v| {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    })
}

/// Every node's world matrix at time `t` of animation `anim`: static TRS overridden by the
/// animated properties (LINEAR: lerp, quaternions slerped the short way; STEP: hold).
fn gltf_world(doc: &Doc, anim: &Value, t: f64) -> Vec<Matrix4<f64>> {
    let nodes = doc.json["nodes"].as_array().unwrap();
    let mut trs: Vec<[Vec<f64>; 3]> = nodes
        .iter()
        .map(|n| {
            [
                vec_or(n, "translation", &[0.0; 3]),
                vec_or(n, "rotation", &[0.0, 0.0, 0.0, 1.0]),
                vec_or(n, "scale", &[1.0; 3]),
            ]
        })
        .collect();
    for ch in anim["channels"].as_array().unwrap() {
        let s = &anim["samplers"][ch["sampler"].as_u64().unwrap() as usize];
        let input = doc.floats(s["input"].as_u64().unwrap());
        let output = doc.floats(s["output"].as_u64().unwrap());
        let path = ch["target"]["path"].as_str().unwrap();
        let w = if path == "rotation" { 4 } else { 3 };
        let at = |k: usize| output[w * k..w * k + w].to_vec();
        let last = input.len() - 1;
        let value = if t <= input[0] {
            at(0)
        } else if t >= input[last] {
            at(last)
        } else {
            let k = input.iter().rposition(|&x| x <= t).unwrap();
            let u = (t - input[k]) / (input[k + 1] - input[k]);
            match (s["interpolation"].as_str().unwrap(), path) {
                ("STEP", _) => at(k),
                (_, "rotation") => {
                    let q = |v: Vec<f64>| {
                        UnitQuaternion::from_quaternion(Quaternion::new(v[3], v[0], v[1], v[2]))
                    };
                    let (a, mut b) = (q(at(k)), q(at(k + 1)));
                    if a.coords.dot(&b.coords) < 0.0 {
                        b = UnitQuaternion::new_unchecked(-b.into_inner());
                    }
                    let r = a.slerp(&b, u);
                    vec![r.i, r.j, r.k, r.w]
                }
                _ => at(k)
                    .iter()
                    .zip(at(k + 1))
                    .map(|(a, b)| a + (b - a) * u)
                    .collect(),
            }
        };
        let node = ch["target"]["node"].as_u64().unwrap() as usize;
        let slot = ["translation", "rotation", "scale"]
            .iter()
            .position(|p| *p == path)
            .unwrap();
        trs[node][slot] = value;
    }
    let local: Vec<Matrix4<f64>> = trs
        .iter()
        .map(|[t, r, s]| {
            let q = UnitQuaternion::from_quaternion(Quaternion::new(r[3], r[0], r[1], r[2]));
            Matrix4::new_translation(&Vector3::new(t[0], t[1], t[2]))
                * q.to_homogeneous()
                * Matrix4::new_nonuniform_scaling(&Vector3::new(s[0], s[1], s[2]))
        })
        .collect();
    let mut world = local.clone();
    // Parents before children: walk down from the roots.
    let mut parent = vec![None; nodes.len()];
    for (p, n) in nodes.iter().enumerate() {
        for c in n
            .get("children")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            parent[c.as_u64().unwrap() as usize] = Some(p);
        }
    }
    let mut order: Vec<usize> = (0..nodes.len()).filter(|&i| parent[i].is_none()).collect();
    let mut i = 0;
    while i < order.len() {
        let p = order[i];
        i += 1;
        for c in nodes[p]
            .get("children")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let c = c.as_u64().unwrap() as usize;
            world[c] = world[p] * local[c];
            order.push(c);
        }
    }
    world
}

/// Largest difference between the imported scene's posed bones and the glTF evaluation,
/// and (for bones with no local transform or inherit mode on them or above) the original
/// scene's, over every frame (30 fps) and key time of every clip.
fn round_trip(label: &str, scene: &Scene, weights: &Weights) -> (f64, f64, usize) {
    let text = common::export_text("gltf", scene, weights, &ExportOptions::default()).unwrap();
    let doc = parse(&text);
    let import = import_gltf_str(&text, None, label).unwrap();
    let back = &import.scene;
    back.sanity_check().unwrap();
    assert_eq!(
        back.clips().len(),
        scene.clips().len(),
        "{label}: {:?}",
        import.report.notes
    );
    let sk = scene.skeleton();
    let plain = |j: usize| {
        (0..sk.len()).all(|k| sk.bones()[k].local.is_none() || !sk.is_ancestor_or_self(k, j))
    };
    let (mut vs_file, mut vs_original, mut frames) = (0.0f64, 0.0f64, 0usize);
    let anims = doc.json["animations"].as_array().unwrap();
    for (clip, anim) in back.clips().iter().zip(anims) {
        let original = scene.clip(&clip.name).unwrap();
        assert_eq!(anim["name"], clip.name.as_str());
        assert!(
            (clip.duration - original.duration).abs() < 1e-6,
            "{label} {}",
            clip.name
        );
        let mut times = clip.frame_times(30.0).unwrap();
        times.extend(original.key_times());
        for t in times {
            let got = back
                .skeleton()
                .world_affines(&clip.sample(back.skeleton(), t).unwrap())
                .unwrap();
            let file = gltf_world(&doc, anim, t);
            let want = sk.world_affines(&original.sample(sk, t).unwrap()).unwrap();
            for (j, g) in got.iter().enumerate() {
                let m = &file[j + 1];
                let f = [
                    m[(0, 0)],
                    m[(0, 1)],
                    m[(1, 0)],
                    m[(1, 1)],
                    m[(0, 3)],
                    m[(1, 3)],
                ];
                let g = [g.a, g.b, g.c, g.d, g.tx, g.ty];
                let d = g
                    .iter()
                    .zip(f)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max);
                vs_file = vs_file.max(d);
                if plain(j) {
                    let w = &want[j];
                    let w = [w.a, w.b, w.c, w.d, w.tx, w.ty];
                    let d = g
                        .iter()
                        .zip(w)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0, f64::max);
                    vs_original = vs_original.max(d);
                }
            }
            frames += 1;
        }
    }
    eprintln!(
        "{label}: {} clips, {frames} frames: imported poses vs the glTF file {vs_file:.3e}, vs \
         the original scene (bones without inherit modes) {vs_original:.3e}",
        back.clips().len()
    );
    (vs_file, vs_original, frames)
}

#[test]
fn shipped_rigs_clips_round_trip_through_gltf() {
    use skinweights::io::dragonbones::import_dragonbones;
    let body = import_dragonbones(
        &std::fs::read_to_string(data("dragonbones-you-xin/body_ske.json")).unwrap(),
    )
    .unwrap();
    let gbot = skinweights::io::godot::load_godot(data("godot-gbot/player.tscn")).unwrap();
    // The first Spine example whose clips have no shear (glTF nodes have none).
    let spine = [
        "spineboy/spineboy-pro.json",
        "owl/owl-pro.json",
        "alien/alien-pro.json",
        "goblins/goblins-pro.json",
        "vine/vine-pro.json",
        "tank/tank-pro.json",
    ]
    .into_iter()
    .map(|f| {
        let options = SpineImportOptions::default().with_skin(SkinSelection::All);
        (
            f,
            load_spine(data(&format!("spine/{f}")), None, &options).unwrap(),
        )
    })
    .find(|(_, s)| {
        common::export_text("gltf", &s.scene, &s.artist, &ExportOptions::default()).is_ok()
    })
    .unwrap();
    eprintln!("Spine example: {}", spine.0);
    let spine = spine.1;
    for (label, scene, weights) in [
        ("DragonBones body", &body.scene, &body.artist),
        ("gBot", &gbot.scene, &gbot.artist),
        ("Spine", &spine.scene, &spine.artist),
    ] {
        let (vs_file, vs_original, frames) = round_trip(label, scene, weights);
        assert!(frames > 40, "{label}: {frames}");
        // f32 storage of coordinates of a few hundred px: 1e-4 px.
        assert!(vs_file < 2e-4, "{label}: {vs_file:e}");
        assert!(vs_original < 2e-4, "{label}: {vs_original:e}");
    }
}

/// A small exported scene (no clips) and its document, to which animations are added.
fn base_doc() -> (Scene, Doc) {
    let scene = common::small_scene("arms-down");
    let w = common::solved(&scene, "linear");
    let text = common::export_text("gltf", &scene, &w, &ExportOptions::default()).unwrap();
    (scene, parse(&text))
}

/// Appends `bytes` to the buffer as a new view with one accessor; returns its index.
fn push(
    doc: &mut Doc,
    bytes: &[u8],
    component: u64,
    count: usize,
    kind: &str,
    normalized: bool,
) -> u64 {
    while doc.bin.len() % 4 != 0 {
        doc.bin.push(0);
    }
    let views = doc.json["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": doc.bin.len(), "byteLength": bytes.len()}));
    let view = views.len() - 1;
    doc.bin.extend_from_slice(bytes);
    let accessors = doc.json["accessors"].as_array_mut().unwrap();
    let mut a =
        json!({"bufferView": view, "componentType": component, "count": count, "type": kind});
    if normalized {
        a["normalized"] = json!(true);
    }
    accessors.push(a);
    (accessors.len() - 1) as u64
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn encode(doc: &Doc) -> String {
    let mut json = doc.json.clone();
    json["buffers"][0]["byteLength"] = json!(doc.bin.len());
    json["buffers"][0]["uri"] = json!(format!(
        "data:application/octet-stream;base64,{}",
        BASE64.encode(&doc.bin)
    ));
    json.to_string()
}

/// Adds an animation with one sampler per `(node, path, input, output, interpolation)`.
fn add_animation(doc: &mut Doc, name: &str, channels: &[(u64, &str, u64, u64, &str)]) {
    let samplers: Vec<Value> = channels
        .iter()
        .map(|&(_, _, i, o, interp)| json!({"input": i, "output": o, "interpolation": interp}))
        .collect();
    let chans: Vec<Value> = channels
        .iter()
        .enumerate()
        .map(|(s, &(node, path, ..))| json!({"sampler": s, "target": {"node": node, "path": path}}))
        .collect();
    let anim = json!({"name": name, "channels": chans, "samplers": samplers});
    match doc.json.get_mut("animations").and_then(Value::as_array_mut) {
        Some(list) => list.push(anim),
        None => doc.json["animations"] = json!([anim]),
    }
}

/// The glTF spec's cubic Hermite (Appendix C) from raw f32 keys: `(in, value, out)` triples.
fn hermite(times: &[f32], triples: &[[f32; 3]], t: f64) -> f64 {
    let last = times.len() - 1;
    if t >= f64::from(times[last]) {
        return f64::from(triples[last][1]);
    }
    let k = times.iter().rposition(|&x| f64::from(x) <= t).unwrap();
    let (t0, t1) = (f64::from(times[k]), f64::from(times[k + 1]));
    let td = t1 - t0;
    let s = (t - t0) / td;
    let (v0, b0) = (f64::from(triples[k][1]), f64::from(triples[k][2]));
    let (v1, a1) = (f64::from(triples[k + 1][1]), f64::from(triples[k + 1][0]));
    (2.0 * s.powi(3) - 3.0 * s * s + 1.0) * v0
        + td * (s.powi(3) - 2.0 * s * s + s) * b0
        + (-2.0 * s.powi(3) + 3.0 * s * s) * v1
        + td * (s.powi(3) - s * s) * a1
}

#[test]
fn cubicspline_translation_matches_a_hand_evaluation_of_the_raw_bytes() {
    let (scene, mut doc) = base_doc();
    // Joint 0 is node 1; its rest translation from the file.
    let rest: Vec<f64> = vec_or(&doc.json["nodes"][1], "translation", &[0.0; 3]);
    let times: [f32; 4] = [0.0, 0.4, 0.75, 1.5];
    // x: ordinary segments; y: the middle segment has equal end values (split on import).
    let x: [[f32; 3]; 4] = [
        [0.0, 1.0, 30.0],
        [-12.0, 9.0, 4.0],
        [2.0, -3.5, 0.0],
        [5.0, 6.0, 0.0],
    ];
    let y: [[f32; 3]; 4] = [
        [0.0, 2.0, -8.0],
        [40.0, 7.0, 25.0],
        [-25.0, 7.0, 3.0],
        [0.0, 1.0, 0.0],
    ];
    let mut out = Vec::new();
    for k in 0..4 {
        for part in 0..3 {
            if part == 1 {
                out.extend([rest[0] as f32 + x[k][1], rest[1] as f32 + y[k][1], 0.0]);
            } else {
                out.extend([x[k][part], y[k][part], 0.0]);
            }
        }
    }
    let input = push(&mut doc, &f32s(&times), 5126, 4, "SCALAR", false);
    let output = push(&mut doc, &f32s(&out), 5126, 12, "VEC3", false);
    add_animation(
        &mut doc,
        "cubic",
        &[(1, "translation", input, output, "CUBICSPLINE")],
    );
    let import = import_gltf_str(&encode(&doc), None, "cubic").unwrap();
    let clip = import.scene.clip("cubic").unwrap();
    assert_eq!(clip.duration, 1.5);
    let track = &clip.tracks[0];
    assert_eq!(track.bone, scene.skeleton().bones()[0].name);
    // The raw triples as stored (values include the rest translation).
    let raw = |c: usize| -> Vec<[f32; 3]> {
        (0..4)
            .map(|k| [out[9 * k + c], out[9 * k + 3 + c], out[9 * k + 6 + c]])
            .collect()
    };
    let mut worst = 0.0f64;
    for (c, kind) in [(0, ChannelKind::TranslateX), (1, ChannelKind::TranslateY)] {
        let ch = track.channels.get(kind).unwrap();
        let r = raw(c);
        // Offsets differ from node values by the setup translation: compare changes from t = 0.
        let (g0, h0) = (ch.sample(0.0).unwrap(), hermite(&times, &r, 0.0));
        for i in 0..=300 {
            let t = 1.5 * f64::from(i) / 300.0;
            let d = (ch.sample(t).unwrap() - g0) - (hermite(&times, &r, t) - h0);
            worst = worst.max(d.abs());
        }
    }
    eprintln!("CUBICSPLINE translation vs hand Hermite from the raw bytes: {worst:e}");
    assert!(worst < 1e-9, "{worst:e}");
}

#[test]
fn normalized_short_rotations_step_and_cubic_rotation_sampling() {
    let (_, mut doc) = base_doc();
    let rest_q = vec_or(&doc.json["nodes"][1], "rotation", &[0.0, 0.0, 0.0, 1.0]);
    let rest = 2.0 * rest_q[2].atan2(rest_q[3]);
    let times: [f32; 3] = [0.0, 0.5, 1.0];
    let angles = [rest, rest + 1.0, rest + 2.5];
    let shorts: Vec<u8> = angles
        .iter()
        .flat_map(|a: &f64| {
            [0.0, 0.0, (a / 2.0).sin(), (a / 2.0).cos()].map(|x: f64| (x * 32767.0).round() as i16)
        })
        .flat_map(i16::to_le_bytes)
        .collect();
    let input = push(&mut doc, &f32s(&times), 5126, 3, "SCALAR", false);
    let output = push(&mut doc, &shorts, 5122, 3, "VEC4", true);
    add_animation(
        &mut doc,
        "short",
        &[(1, "rotation", input, output, "LINEAR")],
    );
    add_animation(&mut doc, "step", &[(1, "rotation", input, output, "STEP")]);
    // CUBICSPLINE rotation: zero tangents, the same keys.
    let mut cubic = Vec::new();
    for a in angles {
        cubic.extend([0.0, 0.0, 0.0, 0.0]);
        cubic.extend([0.0, 0.0, (a / 2.0).sin() as f32, (a / 2.0).cos() as f32]);
        cubic.extend([0.0, 0.0, 0.0, 0.0]);
    }
    let out3 = push(&mut doc, &f32s(&cubic), 5126, 9, "VEC4", false);
    add_animation(
        &mut doc,
        "cubic",
        &[(1, "rotation", input, out3, "CUBICSPLINE")],
    );
    let import = import_gltf_str(&encode(&doc), None, "rot").unwrap();
    let s = &import.scene;
    let decoded = |k: usize| {
        let q: Vec<f64> = shorts[8 * k..8 * k + 8]
            .chunks(2)
            .map(|c| f64::from(i16::from_le_bytes([c[0], c[1]])) / 32767.0)
            .collect();
        2.0 * q[2].atan2(q[3])
    };
    let rot = |clip: &str, t: f64| {
        s.clip(clip).unwrap().tracks[0]
            .channels
            .get(ChannelKind::Rotation)
            .unwrap()
            .sample(t)
            .unwrap()
    };
    for (k, &time) in times.iter().enumerate() {
        let t = f64::from(time);
        let want = (decoded(k) - decoded(0)).to_degrees();
        assert!((rot("short", t) - rot("short", 0.0) - want).abs() < 1e-9);
    }
    // Linear between keys; stepped holds.
    let mid = 0.5 * (rot("short", 0.0) + rot("short", 0.5));
    assert!((rot("short", 0.25) - mid).abs() < 1e-9);
    assert_eq!(rot("step", 0.49), rot("step", 0.0));
    // CUBICSPLINE with zero tangents: the quaternion's z and w follow smoothstep between
    // keys; the resampled angle stays within the tolerance of that.
    let (z0, w0) = (
        (angles[0] / 2.0).sin() as f32,
        (angles[0] / 2.0).cos() as f32,
    );
    let (z1, w1) = (
        (angles[1] / 2.0).sin() as f32,
        (angles[1] / 2.0).cos() as f32,
    );
    let mut worst = 0.0f64;
    for i in 0..=100 {
        let u = f64::from(i) / 100.0;
        let h = 3.0 * u * u - 2.0 * u.powi(3);
        let z = f64::from(z0) + (f64::from(z1) - f64::from(z0)) * h;
        let w = f64::from(w0) + (f64::from(w1) - f64::from(w0)) * h;
        let want = (2.0 * z.atan2(w) - 2.0 * f64::from(z0).atan2(f64::from(w0))).to_degrees();
        let got = rot("cubic", 0.5 * u) - rot("cubic", 0.0);
        worst = worst.max((got - want).abs());
    }
    eprintln!("CUBICSPLINE rotation resampled: worst {worst:e} degrees");
    assert!(
        worst <= 2.0 * skinweights::io::gltf::ROTATION_SAMPLING_TOLERANCE,
        "{worst:e}"
    );
}

#[test]
fn hostile_animations_are_typed_errors_naming_the_animation() {
    let (_, base) = base_doc();
    let with = |times: &[f32], values: &[f32], node: u64, interp: &str| {
        let mut doc = Doc {
            json: base.json.clone(),
            bin: base.bin.clone(),
        };
        let n = times.len();
        let i = push(&mut doc, &f32s(times), 5126, n, "SCALAR", false);
        let o = push(
            &mut doc,
            &f32s(values),
            5126,
            values.len() / 3,
            "VEC3",
            false,
        );
        add_animation(&mut doc, "bad", &[(node, "translation", i, o, interp)]);
        import_gltf_str(&encode(&doc), None, "bad").unwrap_err()
    };
    let v6 = [0.0f32, 0.0, 0.0, 1.0, 1.0, 0.0];
    // NaN key time, NaN value: the accessor and the animation's sampler are named.
    for e in [
        with(&[0.0, f32::NAN], &v6, 1, "LINEAR"),
        with(
            &[0.0, 1.0],
            &[0.0, f32::NAN, 0.0, 1.0, 1.0, 0.0],
            1,
            "LINEAR",
        ),
    ] {
        assert!(
            matches!(e, Error::Format(FormatError::InvalidField { ref field, .. }) if field.contains("\"bad\" samplers[0]")),
            "{e}"
        );
    }
    // Times not increasing, negative.
    let e = with(&[0.5, 0.5], &v6, 1, "LINEAR");
    assert!(
        matches!(e, Error::Clip(ClipError::InvalidKey { ref clip, key: 1, channel: "translation", .. }) if clip == "bad"),
        "{e}"
    );
    let e = with(&[-1.0, 0.5], &v6, 1, "LINEAR");
    assert!(
        matches!(e, Error::Clip(ClipError::InvalidKey { key: 0, .. })),
        "{e}"
    );
    // Unknown node; unknown interpolation.
    let e = with(&[0.0, 1.0], &v6, 999, "LINEAR");
    assert!(
        matches!(e, Error::Clip(ClipError::InvalidClip { ref clip, ref message }) if clip == "bad" && message.contains("node 999")),
        "{e}"
    );
    let e = with(&[0.0, 1.0], &v6, 1, "BOUNCY");
    assert!(
        matches!(e, Error::Clip(ClipError::InvalidClip { ref message, .. }) if message.contains("BOUNCY")),
        "{e}"
    );
    // Mismatched counts: two keys with one value, and CUBICSPLINE without its tangents.
    let e = with(&[0.0, 1.0], &v6[..3], 1, "LINEAR");
    assert!(
        matches!(e, Error::Format(FormatError::InvalidField { ref field, ref message }) if field.ends_with(".count") && message.contains("expected 2")),
        "{e}"
    );
    let e = with(&[0.0, 1.0], &v6, 1, "CUBICSPLINE");
    assert!(
        matches!(e, Error::Format(FormatError::InvalidField { ref message, .. }) if message.contains("expected 6")),
        "{e}"
    );
    // More keys than the model holds (MAX_KEYS = 10^6) in one sampler: refused, named.
    let n = skinweights::animation::MAX_KEYS + 1;
    let times: Vec<f32> = (0..n).map(|i| i as f32 * 1e-3).collect();
    let e = with(&times, &vec![0.0f32; 3 * n], 1, "LINEAR");
    assert!(
        matches!(e, Error::Clip(ClipError::TooManyKeys { ref clip, .. }) if clip == "bad"),
        "{e}"
    );
    // 10^7 keys: refused by the input accessor's count, before the outputs are read (here
    // they are far too short, and the error is still the key count).
    let n = 10_000_000;
    let times: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let e = with(&times, &[0.0f32; 3], 1, "LINEAR");
    assert!(
        matches!(e, Error::Clip(ClipError::TooManyKeys { ref clip, count, .. }) if clip == "bad" && count == n),
        "{e}"
    );
    // An accessor out of range.
    let mut doc = Doc {
        json: base.json.clone(),
        bin: base.bin.clone(),
    };
    let i = push(&mut doc, &f32s(&[0.0, 1.0]), 5126, 2, "SCALAR", false);
    add_animation(&mut doc, "bad", &[(1, "translation", i, 12345, "LINEAR")]);
    let e = import_gltf_str(&encode(&doc), None, "bad").unwrap_err();
    assert!(
        matches!(e, Error::Format(FormatError::InvalidField { ref field, .. }) if field.contains("accessors[12345]")),
        "{e}"
    );
    // A rotation about x: valid glTF without a 2D reading, the clip is left out with a note.
    let mut doc = Doc {
        json: base.json.clone(),
        bin: base.bin.clone(),
    };
    let i = push(&mut doc, &f32s(&[0.0, 1.0]), 5126, 2, "SCALAR", false);
    let o = push(
        &mut doc,
        &f32s(&[0.0, 0.0, 0.0, 1.0, 0.5, 0.0, 0.0, 0.866]),
        5126,
        2,
        "VEC4",
        false,
    );
    add_animation(&mut doc, "tumble", &[(1, "rotation", i, o, "LINEAR")]);
    let import = import_gltf_str(&encode(&doc), None, "x").unwrap();
    assert!(import.scene.clips().is_empty());
    assert!(
        import
            .report
            .notes
            .iter()
            .any(|n| n.contains("\"tumble\" left out") && n.contains("axis other than z")),
        "{:?}",
        import.report.notes
    );
}
