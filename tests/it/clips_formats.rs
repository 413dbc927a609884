//! Clip loaders and writers: DragonBones animations into `Scene.clips` and back.

use crate::common;
use serde_json::{json, Value};
use skinweights::animation::{ChannelKind, Clip, Curve};
use skinweights::io::dragonbones::import_dragonbones;
use skinweights::io::ExportOptions;
use skinweights::{ClipError, Error, FormatError, RigFormat, SkeletonError};
use std::collections::BTreeMap;

const BODY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/dragonbones-you-xin/body_ske.json"
);

fn body_text() -> String {
    std::fs::read_to_string(BODY).unwrap()
}

#[test]
fn the_dragonbones_body_has_ten_clips_of_540_frames() {
    let rig = import_dragonbones(&body_text()).unwrap();
    let clips = rig.scene.clips();
    assert_eq!(clips.len(), 10);
    let frames: f64 = clips.iter().map(|c| c.duration * 30.0).sum();
    assert!((frames - 540.0).abs() < 1e-9, "{frames}");
    let idle = rig.scene.clip("idle").unwrap();
    assert!((idle.duration - 70.0 / 30.0).abs() < 1e-12);
    // 56 timelines in the file, plus the bones whose bind pose differs from their setup
    // transform and that idle leaves unkeyed (held at setup, see the pose test).
    assert_eq!(idle.tracks.len(), 66);
    // The pelvis's first translate frame carries a Bézier curve [0.2595, 0, 0.946, 0.84].
    let pelvis = idle.tracks.iter().find(|t| t.bone == "pelvis").unwrap();
    let tx = pelvis.channels.get(ChannelKind::TranslateX).unwrap();
    assert!(tx
        .keys
        .iter()
        .any(|k| matches!(k.curve, Curve::Bezier { x1, .. } if x1 == 0.2595)));
    // The pelvis was moved after binding: its keys hold setup + animation relative to the
    // bind pose, i.e. the file's values plus one constant per channel.
    assert!(rig.report.notes.iter().any(|n| n.contains("pelvis")));
    let raw_x = [0.0, -3.82, -4.65, 0.0];
    let dx: Vec<f64> = tx
        .keys
        .iter()
        .zip(raw_x)
        .map(|(k, r)| k.value - r)
        .collect();
    assert!(dx.iter().all(|d| (d - dx[0]).abs() < 1e-12), "{dx:?}");
    // y-down → y-up: translate_y is minus the file's y (plus the constant).
    let ty = pelvis.channels.get(ChannelKind::TranslateY).unwrap();
    let raw_y = [0.0, 0.6, 0.79, 0.0];
    let dy: Vec<f64> = ty
        .keys
        .iter()
        .zip(raw_y)
        .map(|(k, r)| k.value + r)
        .collect();
    assert!(dy.iter().all(|d| (d - dy[0]).abs() < 1e-12), "{dy:?}");
}

#[test]
fn sampled_channels_equal_their_keys_at_key_times() {
    let rig = import_dragonbones(&body_text()).unwrap();
    let mut checked = 0;
    for clip in rig.scene.clips() {
        for track in &clip.tracks {
            for (_, ch) in track.channels.iter() {
                for (i, k) in ch.keys.iter().enumerate() {
                    // Of several keys at one time the last holds.
                    if ch.keys.get(i + 1).is_some_and(|n| n.time == k.time) {
                        continue;
                    }
                    assert_eq!(ch.sample(k.time), Some(k.value));
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

fn poses_agree(a: &[Clip], b: &[Clip], skeleton: &skinweights::skeleton::Skeleton, tol: f64) {
    assert_eq!(a.len(), b.len());
    for (ca, cb) in a.iter().zip(b) {
        assert_eq!(ca.name, cb.name);
        assert!((ca.duration - cb.duration).abs() < 1e-12);
        for t in ca.key_times() {
            let wa = skeleton
                .world_affines(&ca.sample(skeleton, t).unwrap())
                .unwrap();
            let wb = skeleton
                .world_affines(&cb.sample(skeleton, t).unwrap())
                .unwrap();
            for (j, (p, q)) in wa.iter().zip(&wb).enumerate() {
                let d = [
                    p.a - q.a,
                    p.b - q.b,
                    p.c - q.c,
                    p.d - q.d,
                    p.tx - q.tx,
                    p.ty - q.ty,
                ]
                .iter()
                .fold(0.0_f64, |m, x| m.max(x.abs()));
                assert!(d <= tol, "clip {} t {t} bone {j}: {d:e}", ca.name);
            }
        }
    }
}

#[test]
fn dragonbones_round_trip_keeps_the_clips() {
    let rig = import_dragonbones(&body_text()).unwrap();
    let out = common::export_json(
        "dragonbones",
        &rig.scene,
        &rig.artist,
        &ExportOptions::default(),
    )
    .unwrap();
    assert_eq!(out["frameRate"], json!(30.0));
    let back = import_dragonbones(&out.to_string()).unwrap();
    assert_eq!(back.scene.clips().len(), 10);
    let keys: usize = rig.scene.clips().iter().map(Clip::key_count).sum();
    let keys_back: usize = back.scene.clips().iter().map(Clip::key_count).sum();
    assert_eq!(keys, keys_back);
    poses_agree(
        rig.scene.clips(),
        back.scene.clips(),
        rig.scene.skeleton(),
        1e-9,
    );
}

/// DragonBones' matrix `x' = a x + c y + tx, y' = b x + d y + ty` from a transform.
fn db_matrix(x: f64, y: f64, rot: f64, skew: f64, sx: f64, sy: f64) -> [f64; 6] {
    let (r, k) = (rot.to_radians(), (rot + skew).to_radians());
    [
        r.cos() * sx,
        r.sin() * sx,
        -k.sin() * sy,
        k.cos() * sy,
        x,
        y,
    ]
}

fn db_mul(p: [f64; 6], l: [f64; 6]) -> [f64; 6] {
    [
        p[0] * l[0] + p[2] * l[1],
        p[1] * l[0] + p[3] * l[1],
        p[0] * l[2] + p[2] * l[3],
        p[1] * l[2] + p[3] * l[3],
        p[0] * l[4] + p[2] * l[5] + p[4],
        p[1] * l[4] + p[3] * l[5] + p[5],
    ]
}

/// y of the Bézier timing curve at x = u, by bisection (independent of the library's solver).
fn bezier_at(c: &[f64], u: f64) -> f64 {
    let b = |p1: f64, p2: f64, s: f64| {
        3.0 * (1.0 - s) * (1.0 - s) * s * p1 + 3.0 * (1.0 - s) * s * s * p2 + s * s * s
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..100 {
        let m = 0.5 * (lo + hi);
        if b(c[0], c[2], m) < u {
            lo = m
        } else {
            hi = m
        }
    }
    b(c[1], c[3], 0.5 * (lo + hi))
}

/// A raw timeline's `(field, default)` value at `frame`, straight from the file's frames.
fn raw_value(frames: &[Value], field: &str, default: f64, frame: f64) -> f64 {
    let v = |f: &Value| f.get(field).and_then(Value::as_f64).unwrap_or(default);
    let mut start = 0.0;
    for (i, f) in frames.iter().enumerate() {
        let d = f.get("duration").and_then(Value::as_f64).unwrap_or(1.0);
        let last = i + 1 == frames.len();
        if frame < start + d || last {
            if last || d == 0.0 || frame <= start {
                return v(f);
            }
            let u = (frame - start) / d;
            let next = v(&frames[i + 1]);
            let w = if let Some(c) = f.get("curve").and_then(Value::as_array) {
                let c: Vec<f64> = c.iter().map(|x| x.as_f64().unwrap()).collect();
                bezier_at(&c, u)
            } else {
                match f.get("tweenEasing").and_then(Value::as_f64) {
                    None => 0.0,
                    Some(e) => {
                        assert_eq!(e, 0.0, "the body uses only linear easing");
                        u
                    }
                }
            };
            return v(f) + (next - v(f)) * w;
        }
        start += d;
    }
    default
}

/// The world matrix of a bone from its parent's (DragonBones' inheritance flags:
/// `inheritRotation: false` keeps the local linear part, `inheritScale: false` takes the
/// parent's rotation only).
fn db_child(bone: &Value, parent: [f64; 6], local: [f64; 6]) -> [f64; 6] {
    let flag = |f: &str| bone.get(f).and_then(Value::as_bool).unwrap_or(true);
    let (rot, scale) = (flag("inheritRotation"), flag("inheritScale"));
    let linear = if !rot {
        [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    } else if !scale {
        let a = parent[1].atan2(parent[0]);
        [a.cos(), a.sin(), -a.sin(), a.cos(), 0.0, 0.0]
    } else {
        [parent[0], parent[1], parent[2], parent[3], 0.0, 0.0]
    };
    let mut m = db_mul(linear, local);
    // The origin always goes through the parent's whole matrix.
    m[4] = parent[0] * local[4] + parent[2] * local[5] + parent[4];
    m[5] = parent[1] * local[4] + parent[3] * local[5] + parent[5];
    m
}

/// The clip's world transforms at every key time equal DragonBones' forward kinematics of
/// setup + animation computed here from the raw file (IK constraints aside: the body's 4 IK
/// constraints are not imported, and this computation leaves them out too).
#[test]
fn posed_world_transforms_on_the_body_match_the_raw_file() {
    let text = body_text();
    let raw: Value = serde_json::from_str(&text).unwrap();
    let arm = &raw["armature"][0];
    let rig = import_dragonbones(&text).unwrap();
    assert_eq!(rig.report.bind_differs.len(), 21);
    let skeleton = rig.scene.skeleton();
    let bones = arm["bone"].as_array().unwrap();
    let rate = arm["frameRate"].as_f64().unwrap();
    let mut compared = 0;
    let mut worst = 0.0_f64;
    for anim in arm["animation"].as_array().unwrap() {
        let name = anim["name"].as_str().unwrap();
        let clip = rig.scene.clip(name).unwrap();
        let timelines = anim["bone"].as_array().unwrap();
        for t in clip.key_times() {
            let frame = t * rate;
            let pose = clip.sample(skeleton, t).unwrap();
            let scene_world = skeleton.world_affines(&pose).unwrap();
            let mut world: Vec<[f64; 6]> = Vec::new();
            for b in bones {
                let n = b["name"].as_str().unwrap();
                let tf = &b["transform"];
                let g = |f: &str, d: f64| tf.get(f).and_then(Value::as_f64).unwrap_or(d);
                let tl = timelines.iter().find(|x| x["name"] == n);
                let frames = |k: &str| -> Vec<Value> {
                    tl.and_then(|x| x.get(k))
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default()
                };
                let (tr, ro, sc) = (
                    frames("translateFrame"),
                    frames("rotateFrame"),
                    frames("scaleFrame"),
                );
                let x = g("x", 0.0) + raw_value(&tr, "x", 0.0, frame);
                let y = g("y", 0.0) + raw_value(&tr, "y", 0.0, frame);
                let rot = g("skY", 0.0) + raw_value(&ro, "rotate", 0.0, frame);
                let skew = g("skX", 0.0) - g("skY", 0.0) + raw_value(&ro, "skew", 0.0, frame);
                let sx = g("scX", 1.0) * raw_value(&sc, "x", 1.0, frame);
                let sy = g("scY", 1.0) * raw_value(&sc, "y", 1.0, frame);
                let local = db_matrix(x, y, rot, skew, sx, sy);
                let m = match b.get("parent").and_then(Value::as_str) {
                    Some(p) => {
                        let pi = bones.iter().position(|o| o["name"] == p).unwrap();
                        db_child(b, world[pi], local)
                    }
                    None => local,
                };
                world.push(m);
            }
            for (j, m) in world.iter().enumerate() {
                let s = &scene_world[j];
                // The scene's y-up matrix seen y-down.
                let s_db = [s.a, -s.c, -s.b, s.d, s.tx, -s.ty];
                let d = (0..6).fold(0.0_f64, |acc, k| acc.max((s_db[k] - m[k]).abs()));
                assert!(d < 1e-9, "{name} t {t} bone {j}: {d:e} {s_db:?} {m:?}");
                worst = worst.max(d);
                compared += 1;
            }
        }
    }
    eprintln!("{compared} bone transforms compared, largest entry difference {worst:e}");
    // 70 bones at each of the 97 distinct key times of the 10 clips.
    assert_eq!(compared, 6790);
}

/// A tiny DragonBones document: two bones, one mesh, and `animation`.
fn tiny(animation: Value) -> String {
    let mut doc: Value = serde_json::from_str(&body_text()).unwrap();
    doc["armature"][0]["animation"] = animation;
    doc.to_string()
}

fn frames(list: Value) -> Value {
    json!([{"name": "a", "duration": 10, "bone": [{"name": "pelvis", "rotateFrame": list}]}])
}

#[test]
fn hostile_dragonbones_clips_are_typed_errors() {
    // Unknown bone.
    let e = import_dragonbones(&tiny(json!([{"name": "a", "duration": 10,
        "bone": [{"name": "nobody", "rotateFrame": [{"duration": 0, "rotate": 1}]}]}])))
    .unwrap_err();
    assert!(
        matches!(e, Error::Skeleton(SkeletonError::UnknownBone { ref bone, .. }) if bone == "nobody"),
        "{e}"
    );
    // Keys past the clip's end (times out of order cannot be written with durations >= 0;
    // a negative duration is refused).
    let e = import_dragonbones(&tiny(frames(json!([
        {"duration": 20, "tweenEasing": 0, "rotate": 1}, {"duration": 0}
    ]))))
    .unwrap_err();
    assert!(
        matches!(e, Error::Clip(ClipError::InvalidKey { key: 1, .. })),
        "{e}"
    );
    let e = import_dragonbones(&tiny(frames(json!([
        {"duration": -3, "rotate": 1}, {"duration": 0}
    ]))))
    .unwrap_err();
    assert!(
        matches!(e, Error::Format(FormatError::Rig { format: RigFormat::DRAGONBONES, ref field, .. }) if field.contains("duration")),
        "{e}"
    );
    // Control times outside [0, 1].
    let e = import_dragonbones(&tiny(frames(json!([
        {"duration": 5, "curve": [1.5, 0, 0.5, 1], "rotate": 1}, {"duration": 0}
    ]))))
    .unwrap_err();
    assert!(
        matches!(e, Error::Format(FormatError::Rig { format: RigFormat::DRAGONBONES, ref field, .. }) if field.ends_with("curve")),
        "{e}"
    );
    // A non-number key value (JSON has no NaN).
    let e = import_dragonbones(&tiny(frames(json!([
        {"duration": 5, "rotate": "NaN"}, {"duration": 0}
    ]))))
    .unwrap_err();
    assert!(
        matches!(e, Error::Format(FormatError::Rig { format: RigFormat::DRAGONBONES, ref field, .. }) if field.ends_with("rotate")),
        "{e}"
    );
    // More keys than MAX_KEYS.
    // Written as text: millions of JSON values would take gigabytes in the test alone.
    let key = r#"{"duration":0}"#;
    let many = vec![key; skinweights::animation::MAX_KEYS + 1].join(",");
    let text = tiny(frames(json!(["MANY"]))).replace(r#""MANY""#, &many);
    let e = import_dragonbones(&text).unwrap_err();
    assert!(
        matches!(e, Error::Clip(ClipError::TooManyKeys { .. })),
        "{e}"
    );
}

#[test]
fn dragonbones_easings_map_to_exact_curves() {
    // tweenEasing 0.5: f(u) = u + 0.5 u (1 - u).
    let text = tiny(frames(json!([
        {"duration": 10, "tweenEasing": 0.5, "rotate": 0}, {"duration": 0, "rotate": 10}
    ])));
    let rig = import_dragonbones(&text).unwrap();
    let ch = rig.scene.clips()[0].tracks[0]
        .channels
        .get(ChannelKind::Rotation)
        .unwrap()
        .clone();
    for i in 0..=10 {
        let u = i as f64 / 10.0;
        let want = -10.0 * (u + 0.5 * u * (1.0 - u));
        let got = ch.sample(u * 10.0 / 30.0).unwrap();
        assert!((got - want).abs() < 1e-9, "u {u}: {got} vs {want}");
    }
}

// ---------------------------------------------------------------------------------------
// Godot

const PLAYER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/godot-gbot/player.tscn");

fn player() -> skinweights::io::godot::GodotImport {
    skinweights::io::godot::load_godot(PLAYER).unwrap()
}

/// Skinning transforms `W(pose) W(rest)^-1` of a clip at a time, as 6 numbers per bone.
fn skinning_at(scene: &skinweights::scene::Scene, clip: &Clip, t: f64) -> Vec<[f64; 6]> {
    let pose = clip.sample(scene.skeleton(), t).unwrap();
    scene
        .skeleton()
        .skinning_affines(&pose)
        .unwrap()
        .iter()
        .map(|m| [m.a, m.b, m.c, m.d, m.tx, m.ty])
        .collect()
}

fn max_diff(a: &[[f64; 6]], b: &[[f64; 6]]) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(p, q)| p.iter().zip(q).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max)
}

/// Godot's forward kinematics straight from the file: each Bone2D's local transform is
/// `position · rotation` with the track's value at `t` where a track keys it (linear
/// interpolation, transitions 1 as in the file) and the node's saved value elsewhere;
/// skinning = `pose · rest⁻¹` composed down the bones, y flipped to y-up.
fn godot_skinning_from_file(anim: usize, t: f64) -> BTreeMap<String, [f64; 6]> {
    use skinweights::io::godot::tscn::{parse_tscn, Value};
    let text = std::fs::read_to_string(PLAYER).unwrap();
    let sections = parse_tscn(&text).unwrap();
    let anims: Vec<_> = sections
        .iter()
        .filter(|s| s.tag == "sub_resource" && s.attr_str("type") == Some("Animation"))
        .collect();
    let a = anims[anim];
    let nums = |v: &Value| -> Vec<f64> {
        match v {
            Value::Call { args, .. } => args.iter().map(|x| x.as_f64().unwrap()).collect(),
            Value::Array(x) => x.iter().map(|x| x.as_f64().unwrap()).collect(),
            other => panic!("{other:?}"),
        }
    };
    // Track values at t by path.
    let mut keyed: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for i in 0.. {
        let Some(p) = a.get(&format!("tracks/{i}/path")) else {
            break;
        };
        let Value::NodePath(path) = &p.value else {
            panic!()
        };
        let Value::Dict(d) = &a.get(&format!("tracks/{i}/keys")).unwrap().value else {
            panic!()
        };
        let get = |k: &str| {
            &d.iter()
                .find(|(x, _)| *x == Value::Str(k.into()))
                .unwrap()
                .1
        };
        let times = nums(get("times"));
        let Value::Array(values) = get("values") else {
            panic!()
        };
        let vals: Vec<Vec<f64>> = values
            .iter()
            .map(|v| match v {
                Value::Call { .. } => nums(v),
                x => vec![x.as_f64().unwrap()],
            })
            .collect();
        let k = times.partition_point(|&x| x <= t);
        let v = if k == 0 {
            vals[0].clone()
        } else if k == times.len() {
            vals[k - 1].clone()
        } else {
            let u = (t - times[k - 1]) / (times[k] - times[k - 1]);
            (0..vals[k].len())
                .map(|c| vals[k - 1][c] + (vals[k][c] - vals[k - 1][c]) * u)
                .collect()
        };
        keyed.insert(path.clone(), v);
    }
    // Bones under Sprite2D/Skeleton2D, parents first (file order).
    type M = [f64; 6]; // Godot columns: x axis, y axis, origin
    let mul = db_mul;
    let inv = |m: M| -> M {
        let det = m[0] * m[3] - m[1] * m[2];
        let (a, b, c, d) = (m[3] / det, -m[1] / det, -m[2] / det, m[0] / det);
        [a, b, c, d, -(a * m[4] + c * m[5]), -(b * m[4] + d * m[5])]
    };
    let trs = |pos: [f64; 2], rot: f64, sc: [f64; 2]| -> M {
        [
            rot.cos() * sc[0],
            rot.sin() * sc[0],
            -rot.sin() * sc[1],
            rot.cos() * sc[1],
            pos[0],
            pos[1],
        ]
    };
    let mut pose_world: BTreeMap<String, M> = BTreeMap::new();
    let mut rest_world: BTreeMap<String, M> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for s in sections
        .iter()
        .filter(|s| s.attr_str("type") == Some("Bone2D"))
    {
        let name = s.attr_str("name").unwrap().to_string();
        let parent = s.attr_str("parent").unwrap().to_string();
        let path = format!("{parent}/{name}");
        let prop = |k: &str| s.get(k).map(|p| nums(&p.value));
        let rest = prop("rest").unwrap();
        let rest: M = [rest[0], rest[1], rest[2], rest[3], rest[4], rest[5]];
        let saved_pos = prop("position").map_or([0.0, 0.0], |v| [v[0], v[1]]);
        let saved_rot = s.get("rotation").map_or(0.0, |p| p.value.as_f64().unwrap());
        let saved_scale = prop("scale").map_or([1.0, 1.0], |v| [v[0], v[1]]);
        let pos = keyed
            .get(&format!("{path}:position"))
            .map_or(saved_pos, |v| [v[0], v[1]]);
        let rot = keyed
            .get(&format!("{path}:rotation_degrees"))
            .map_or(saved_rot, |v| v[0].to_radians());
        let local = trs(pos, rot, saved_scale);
        let (pw, rw) = match (pose_world.get(&parent), rest_world.get(&parent)) {
            (Some(&p), Some(&r)) => (mul(p, local), mul(r, rest)),
            _ => (local, rest),
        };
        pose_world.insert(path.clone(), pw);
        rest_world.insert(path.clone(), rw);
        let s = mul(pw, inv(rw));
        // y flip: F S F in the scene's (a, b, c, d, tx, ty) with x' = a x + b y + tx.
        out.insert(name, [s[0], -s[2], -s[1], s[3], s[4], -s[5]]);
    }
    out
}

#[test]
fn gbot_animations_import_with_every_track() {
    let g = player();
    let clips = g.scene.clips();
    assert_eq!(clips.len(), 8);
    let names: Vec<&str> = clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "fall",
            "fly",
            "idle",
            "jump",
            "land",
            "land_hard",
            "run",
            "walk"
        ]
    );
    // 135 tracks: 128 rotation tracks (16 bones x 8) and 7 Hip position tracks (2 channels).
    let channels: usize = clips
        .iter()
        .flat_map(|c| &c.tracks)
        .map(|t| t.channels.iter().count())
        .sum();
    // Plus, per clip, constant channels for what no track keys but the node is saved with
    // away from its rest (Godot leaves such a property as saved).
    let constant: usize = clips
        .iter()
        .flat_map(|c| &c.tracks)
        .flat_map(|t| t.channels.iter())
        .filter(|(_, ch)| ch.keys.len() == 1 && ch.keys[0].time == 0.0)
        .count();
    eprintln!("gBot: {channels} channels, {constant} of them constant (saved pose)");
    assert_eq!(channels - constant, 128 + 2 * 7);
    assert_eq!(g.report.clips, 8);
    eprintln!(
        "gBot: {} clips, {} keys",
        g.report.clips, g.report.clip_keys
    );
    assert!(clips.iter().all(|c| c.tracks.len() == 16));
    assert_eq!(g.scene.clip("fall").unwrap().duration, 1.0); // Godot's default length
    assert_eq!(g.scene.clip("walk").unwrap().duration, 2.4);
}

#[test]
fn gbot_poses_match_godot_forward_kinematics_from_the_file() {
    let g = player();
    let bones: Vec<String> = g.scene.skeleton().names();
    let mut worst = 0.0_f64;
    let mut checked = 0;
    for (a, clip) in g.scene.clips().iter().enumerate() {
        let mut times = clip.key_times();
        // Mid-segment too: linear interpolation between the keys.
        let mids: Vec<f64> = times.windows(2).map(|w| 0.5 * (w[0] + w[1])).collect();
        times.extend(mids);
        for t in times {
            let ours = skinning_at(&g.scene, clip, t);
            let file = godot_skinning_from_file(a, t);
            for (j, name) in bones.iter().enumerate() {
                let d = max_diff(&ours[j..j + 1], &[file[name]]);
                assert!(d < 1e-9, "{} t {t} bone {name}: {d:e}", clip.name);
                worst = worst.max(d);
                checked += 1;
            }
        }
    }
    eprintln!("gBot: {checked} bone transforms against Godot FK, worst {worst:e}");
    assert!(checked > 1000, "{checked}");
}

#[test]
fn gbot_sampled_channels_equal_their_keys() {
    let g = player();
    let mut n = 0;
    for clip in g.scene.clips() {
        for track in &clip.tracks {
            for (_, ch) in track.channels.iter() {
                for k in &ch.keys {
                    assert_eq!(ch.sample(k.time), Some(k.value));
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, player().report.clip_keys);
}

#[test]
fn godot_round_trip_keeps_the_clips() {
    for (label, scene, weights) in [
        ("gBot", player().scene, player().artist),
        (
            "DragonBones body",
            import_dragonbones(&body_text()).unwrap().scene,
            import_dragonbones(&body_text()).unwrap().artist,
        ),
    ] {
        // Godot 3 points a bone with children at its first child, so the body's bones come
        // back turned from their Godot frames, where a non-uniform scale key is refused.
        let versions: &[u32] = if label == "gBot" { &[3, 4] } else { &[4] };
        for &godot in versions {
            let text =
                common::export_text("godot", &scene, &weights, &common::godot_options(godot))
                    .unwrap();
            let back = skinweights::io::godot::import_godot(&text, None).unwrap();
            assert_eq!(back.scene.clips().len(), scene.clips().len(), "{label}");
            let (mut worst, mut free) = (0.0_f64, 0.0_f64);
            for clip in scene.clips() {
                let other = back.scene.clip(&clip.name).unwrap();
                assert!((other.duration - clip.duration).abs() < 1e-12);
                let mut times = clip.key_times();
                times.extend(clip.frame_times(30.0).unwrap());
                for t in times {
                    let (a, b) = (
                        skinning_at(&scene, clip, t),
                        skinning_at(&back.scene, other, t),
                    );
                    for j in 0..scene.skeleton().len() {
                        let d = max_diff(&a[j..j + 1], &b[j..j + 1]);
                        // Godot's Bone2D always inherits its parent's rotation and scale: the
                        // body's feet (inheritRotation false) and hair0603 (inheritScale
                        // false) and the bones below them come back as ordinary children.
                        let inherits = scene.skeleton().bones().iter().enumerate().all(|(k, o)| {
                            o.local.is_none() || !scene.skeleton().is_ancestor_or_self(k, j)
                        });
                        if inherits {
                            worst = worst.max(d);
                        } else {
                            free = free.max(d);
                        }
                    }
                }
            }
            eprintln!(
                "{label} through Godot {godot}: worst skinning difference {worst:e} (bones below a non-inheriting bone: {free:e})"
            );
            // At key and frame times: the body's Bézier segments are sampled at 30 fps.
            assert!(worst < 1e-9, "{label} Godot {godot}: {worst:e}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// glTF

/// The exported glTF's JSON and its decoded embedded buffer, checked as a validator would:
/// views inside the buffer and 4-byte aligned, accessors inside their views, animation
/// inputs scalar floats with min/max and strictly increasing, outputs one per input (VEC3
/// translation/scale, VEC4 unit quaternions), channel targets on existing nodes.
fn gltf_checked(text: &str) -> (Value, Vec<u8>) {
    use base64::Engine as _;
    let json: Value = serde_json::from_str(text).unwrap();
    let uri = json["buffers"][0]["uri"].as_str().unwrap();
    let data = uri.split_once(",").unwrap().1;
    let bin = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    assert_eq!(
        json["buffers"][0]["byteLength"].as_u64().unwrap() as usize,
        bin.len()
    );
    for v in json["bufferViews"].as_array().unwrap() {
        let (o, l) = (
            v["byteOffset"].as_u64().unwrap(),
            v["byteLength"].as_u64().unwrap(),
        );
        assert_eq!(o % 4, 0);
        assert!((o + l) as usize <= bin.len());
    }
    for a in json["accessors"].as_array().unwrap() {
        let v = &json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        let comps = match a["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            t => panic!("{t}"),
        };
        let size = match a["componentType"].as_u64().unwrap() {
            5121 => 1,
            5123 => 2,
            _ => 4,
        };
        let need = a["count"].as_u64().unwrap() * comps * size;
        assert!(need <= v["byteLength"].as_u64().unwrap());
    }
    let nodes = json["nodes"].as_array().unwrap().len() as u64;
    for anim in json["animations"].as_array().unwrap() {
        let samplers = anim["samplers"].as_array().unwrap();
        for ch in anim["channels"].as_array().unwrap() {
            assert!(ch["target"]["node"].as_u64().unwrap() < nodes);
            let s = &samplers[ch["sampler"].as_u64().unwrap() as usize];
            let input = read_f32(&json, &bin, s["input"].as_u64().unwrap());
            let ia = &json["accessors"][s["input"].as_u64().unwrap() as usize];
            assert_eq!(ia["type"], "SCALAR");
            assert_eq!(ia["min"][0].as_f64().unwrap(), f64::from(input[0]));
            assert_eq!(
                ia["max"][0].as_f64().unwrap(),
                f64::from(*input.last().unwrap())
            );
            assert!(input.windows(2).all(|w| w[0] < w[1]), "inputs increase");
            let output = read_f32(&json, &bin, s["output"].as_u64().unwrap());
            let path = ch["target"]["path"].as_str().unwrap();
            let width = if path == "rotation" { 4 } else { 3 };
            assert_eq!(output.len(), width * input.len());
            if path == "rotation" {
                for q in output.chunks(4) {
                    let n: f32 = q.iter().map(|x| x * x).sum();
                    assert!((n - 1.0).abs() < 1e-6, "unit quaternion");
                }
            }
        }
    }
    (json, bin)
}

fn read_f32(json: &Value, bin: &[u8], accessor: u64) -> Vec<f32> {
    let a = &json["accessors"][accessor as usize];
    let v = &json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let start =
        (v["byteOffset"].as_u64().unwrap() + a["byteOffset"].as_u64().unwrap_or(0)) as usize;
    let comps = match a["type"].as_str().unwrap() {
        "SCALAR" => 1,
        "VEC3" => 3,
        _ => 4,
    };
    let n = a["count"].as_u64().unwrap() as usize * comps;
    bin[start..start + 4 * n]
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn gltf_export_writes_the_clips_as_joint_animations() {
    let scale = 0.001;
    for (label, scene, weights) in [
        ("gBot", player().scene, player().artist),
        (
            "DragonBones body",
            import_dragonbones(&body_text()).unwrap().scene,
            import_dragonbones(&body_text()).unwrap().artist,
        ),
    ] {
        let options = ExportOptions::default().with_gltf_scale(scale);
        let (json, bin) =
            gltf_checked(&common::export_text("gltf", &scene, &weights, &options).unwrap());
        let anims = json["animations"].as_array().unwrap();
        assert_eq!(anims.len(), scene.clips().len(), "{label}");
        let sk = scene.skeleton();
        // Bones that move as their glTF nodes do (no inherit mode on them or above).
        let plain = |j: usize| {
            (0..sk.len()).all(|k| sk.bones()[k].local.is_none() || !sk.is_ancestor_or_self(k, j))
        };
        let (mut worst, mut checked) = (0.0_f64, 0usize);
        for (clip, anim) in scene.clips().iter().zip(anims) {
            assert_eq!(anim["name"], clip.name.as_str());
            let samplers = anim["samplers"].as_array().unwrap();
            for ch in anim["channels"].as_array().unwrap() {
                let j = ch["target"]["node"].as_u64().unwrap() as usize - 1;
                if !plain(j) {
                    continue;
                }
                let s = &samplers[ch["sampler"].as_u64().unwrap() as usize];
                let input = read_f32(&json, &bin, s["input"].as_u64().unwrap());
                let output = read_f32(&json, &bin, s["output"].as_u64().unwrap());
                let path = ch["target"]["path"].as_str().unwrap();
                for (k, &t) in input.iter().enumerate() {
                    // The node's expected local transform from the library's forward
                    // kinematics: W_parent(t)^-1 W_j(t), scaled.
                    let t = f64::from(t);
                    let w = sk.world_affines(&clip.sample(sk, t).unwrap()).unwrap();
                    let local = match sk.bones()[j].parent {
                        Some(p) => w[p].inverse().unwrap() * w[j],
                        None => w[j],
                    };
                    let got: Vec<f64> = match path {
                        "rotation" => output[4 * k..4 * k + 4].iter().map(|&x| x.into()).collect(),
                        _ => output[3 * k..3 * k + 3].iter().map(|&x| x.into()).collect(),
                    };
                    let sx = local.a.hypot(local.c);
                    let want: Vec<f64> = match path {
                        "translation" => vec![local.tx * scale, local.ty * scale, 0.0],
                        "rotation" => {
                            let half = 0.5 * local.c.atan2(local.a);
                            let q = [0.0, 0.0, half.sin(), half.cos()];
                            // q and -q are the same rotation.
                            let sign = if q[3] * got[3] + q[2] * got[2] < 0.0 {
                                -1.0
                            } else {
                                1.0
                            };
                            q.iter().map(|x| sign * x).collect()
                        }
                        _ => vec![sx, (local.a * local.d - local.b * local.c) / sx, 1.0],
                    };
                    let d = got
                        .iter()
                        .zip(&want)
                        .fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
                    assert!(
                        d < 1e-6,
                        "{label} {} t {t} {path} bone {j}: {got:?} vs {want:?}",
                        clip.name
                    );
                    worst = worst.max(d);
                    checked += 1;
                }
            }
        }
        eprintln!(
            "{label}: {} glTF animations, {checked} decoded keys, worst {worst:e}",
            anims.len()
        );
        assert!(checked > 500, "{checked}");
    }
}

// ---------------------------------------------------------------------------------------
// Hostile clips in every loader and writer

/// gBot's text with the first animation's ("fall") first track keys and path replaced.
fn gbot_with(path: &str, keys: &str) -> String {
    let text = std::fs::read_to_string(PLAYER).unwrap();
    let old_path =
        "NodePath(\"Sprite2D/Skeleton2D/Hip/Chest/LeftArm/LeftForearm/LeftHand:rotation_degrees\")";
    let old_keys = "\"times\": PackedFloat32Array(0.5, 1),\n\"transitions\": PackedFloat32Array(1, 1),\n\"update\": 0,\n\"values\": [70.4643, 70.4643]";
    assert!(text.contains(old_path) && text.contains(old_keys));
    text.replacen(old_path, &format!("NodePath(\"{path}\")"), 1)
        .replacen(old_keys, keys, 1)
}

fn godot_keys(times: &str, transitions: &str, values: &str) -> String {
    format!(
        "\"times\": PackedFloat32Array({times}),\n\"transitions\": PackedFloat32Array({transitions}),\n\"update\": 0,\n\"values\": [{values}]"
    )
}

const HAND: &str = "Sprite2D/Skeleton2D/Hip/Chest/LeftArm/LeftForearm/LeftHand:rotation_degrees";

#[test]
fn hostile_godot_clips_are_typed_errors_naming_the_animation() {
    let import = |path: &str, keys: String| {
        skinweights::io::godot::import_godot(&gbot_with(path, &keys), None).unwrap_err()
    };
    // NaN key value and NaN time: the line, animation and track are named.
    for keys in [
        godot_keys("0.5, 1", "1, 1", "70, nan"),
        godot_keys("0.5, nan", "1, 1", "70, 71"),
        godot_keys("0.5, 1", "1, nan", "70, 71"),
    ] {
        let e = import(HAND, keys);
        assert!(
            matches!(e, Error::Format(FormatError::Godot { ref field, .. }) if field.contains("\"fall\" track 0")),
            "{e}"
        );
    }
    // Times out of order, and past the animation's length (1 s by default).
    let e = import(HAND, godot_keys("1, 0.5", "1, 1", "70, 71"));
    assert!(
        matches!(e, Error::Clip(ClipError::InvalidKey { ref clip, ref bone, channel: "rotation", key: 1, .. }) if clip == "fall" && bone == "LeftHand"),
        "{e}"
    );
    // A key past the length is never played: cut at the length with a note (Godot plays
    // the segment into it up to the end), not refused.
    let g = skinweights::io::godot::import_godot(
        &gbot_with(HAND, &godot_keys("0.5, 3", "1, 1", "70, 71")),
        None,
    )
    .unwrap();
    assert!(
        g.report.notes.iter().any(
            |n| n.contains("clip \"fall\": keys past its length") && n.contains("LeftHand (1)")
        ),
        "{:?}",
        g.report.notes
    );
    // A path naming no node.
    let e = import(
        "Sprite2D/Skeleton2D/Hip/Nobody:rotation_degrees",
        godot_keys("0.5, 1", "1, 1", "70, 71"),
    );
    assert!(
        matches!(e, Error::Skeleton(SkeletonError::UnknownBone { ref bone, ref context }) if bone.ends_with("Nobody") && context.contains("fall")),
        "{e}"
    );
    // Counts that disagree, an unknown interpolation mode's neighbour: cubic with a
    // transition other than 1.
    let e = import(HAND, godot_keys("0.5, 1", "1, 1", "70"));
    assert!(
        matches!(e, Error::Format(FormatError::Godot { ref message, .. }) if message.contains("2 times")),
        "{e}"
    );
    let text = gbot_with(HAND, &godot_keys("0.5, 1", "2, 1", "70, 71")).replacen(
        "tracks/0/interp = 1",
        "tracks/0/interp = 2",
        1,
    );
    let e = skinweights::io::godot::import_godot(&text, None).unwrap_err();
    assert!(
        matches!(e, Error::Format(FormatError::Godot { ref message, .. }) if message.contains("cubic")),
        "{e}"
    );
    // More keys than the model holds (MAX_KEYS = 10^6; refused before the values are read).
    let many: Vec<String> = (0..=skinweights::animation::MAX_KEYS)
        .map(|i| i.to_string())
        .collect();
    let e = import(HAND, godot_keys(&many.join(","), "1", "70"));
    assert!(
        matches!(e, Error::Clip(ClipError::TooManyKeys { ref clip, .. }) if clip == "fall"),
        "{e}"
    );
}

#[test]
fn cubic_godot_tracks_are_catmull_rom_segments() {
    // Godot 3's cubic_interpolate(from, to, pre, post, u), the end keys repeated.
    let cr = |v0: f64, v1: f64, v2: f64, v3: f64, u: f64| {
        0.5 * ((2.0 * v1)
            + (-v0 + v2) * u
            + (2.0 * v0 - 5.0 * v1 + 4.0 * v2 - v3) * u * u
            + (-v0 + 3.0 * v1 - 3.0 * v2 + v3) * u * u * u)
    };
    let v = [10.0, 40.0, 25.0, 70.0];
    let text = gbot_with(
        HAND,
        &godot_keys("0, 0.25, 0.5, 0.75", "1, 1, 1, 1", "10, 40, 25, 70"),
    )
    .replacen("tracks/0/interp = 1", "tracks/0/interp = 2", 1);
    let g = skinweights::io::godot::import_godot(&text, None).unwrap();
    let clip = g.scene.clip("fall").unwrap();
    let track = clip.tracks.iter().find(|t| t.bone == "LeftHand").unwrap();
    let ch = track.channels.get(ChannelKind::Rotation).unwrap();
    // The channel is minus the change from rest (degrees); compare differences of values.
    let offset = ch.keys[0].value + v[0];
    for seg in 0..3 {
        let at = |i: isize| v[i.clamp(0, 3) as usize];
        let i = seg as isize;
        for s in 0..=10 {
            let u = s as f64 / 10.0;
            let t = 0.25 * (seg as f64 + u);
            let want = -cr(at(i - 1), at(i), at(i + 1), at(i + 2), u) + offset;
            let got = ch.sample(t).unwrap();
            assert!(
                (got - want).abs() < 1e-9,
                "segment {seg} u {u}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn hostile_writers_are_typed_errors() {
    use skinweights::animation::{BoneTrack, Key};
    let g = player();
    // A shear channel: no Godot property, no glTF node property.
    let mut clips = g.scene.clips().to_vec();
    clips[0].tracks[0] = BoneTrack::new(clips[0].tracks[0].bone.clone())
        .with(ChannelKind::ShearY, vec![Key::new(0.0, 5.0)]);
    let scene = g
        .scene
        .clone()
        .with_animation(clips, g.scene.ik().to_vec())
        .unwrap();
    let e = common::export_text("godot", &scene, &g.artist, &common::godot_options(4)).unwrap_err();
    assert!(
        matches!(e, Error::Clip(ClipError::InvalidClip { ref clip, .. }) if clip == "fall"),
        "{e}"
    );
    let e = common::export_text("gltf", &scene, &g.artist, &ExportOptions::default()).unwrap_err();
    assert!(
        matches!(e, Error::Clip(ClipError::InvalidClip { ref clip, .. }) if clip == "fall"),
        "{e}"
    );
    // A NaN key cannot reach a writer: the scene refuses it (the writers check the clips
    // again before writing, tested on a scene built inside the crate: src/io/mod.rs).
    let mut clips = g.scene.clips().to_vec();
    clips[1].tracks[0].channels.rotation =
        Some(skinweights::animation::Channel::new(vec![Key::new(
            0.0,
            f64::NAN,
        )]));
    let e = g
        .scene
        .clone()
        .with_animation(clips, g.scene.ik().to_vec())
        .unwrap_err();
    assert!(
        matches!(e, Error::Clip(ClipError::InvalidKey { ref clip, .. }) if clip == "fly"),
        "{e}"
    );
}

/// 10^7 keys (issue 26): DragonBones refuses the file by its object count before parsing it
/// (parsed, 10^7 one-field frames took 7 GB); Spine and Godot refuse them by `MAX_KEYS` as
/// they read the keys (tested above at `MAX_KEYS + 1`).
#[test]
fn ten_million_dragonbones_keys_are_refused_before_parsing() {
    let text = tiny(frames(json!([])));
    let many = vec!["{}"; 10_000_000].join(",");
    let text = text.replacen(
        "\"rotateFrame\":[]",
        &format!("\"rotateFrame\":[{many}]"),
        1,
    );
    assert!(text.len() > 30_000_000);
    let e = import_dragonbones(&text).unwrap_err();
    assert!(
        matches!(e, Error::Format(FormatError::Rig { format: RigFormat::DRAGONBONES, ref field, ref message, .. }) if field == "(root)" && message.contains("JSON objects")),
        "{e}"
    );
}

/// 10^7 Godot keys (issue 26; a 78 MB `times` array): refused by their count before the
/// values are read, a typed error naming the animation.
#[test]
fn ten_million_godot_keys_are_refused_by_count() {
    let times: Vec<String> = (0..10_000_000).map(|i| i.to_string()).collect();
    let text = gbot_with(HAND, &godot_keys(&times.join(","), "1", "70"));
    let e = skinweights::io::godot::import_godot(&text, None).unwrap_err();
    assert!(
        matches!(e, Error::Clip(ClipError::TooManyKeys { ref clip, count, .. }) if clip == "fall" && count >= 10_000_000),
        "{e}"
    );
}

/// Godot Bézier tracks (the only Godot curves with free control times) are not read: the
/// track is skipped with a note, the clip imports without it.
#[test]
fn godot_bezier_tracks_are_skipped_with_a_note() {
    let text = std::fs::read_to_string(PLAYER).unwrap().replacen(
        "tracks/0/type = \"value\"",
        "tracks/0/type = \"bezier\"",
        1,
    );
    let import = skinweights::io::godot::import_godot(&text, None).unwrap();
    assert!(
        import
            .report
            .notes
            .iter()
            .any(|n| n.contains("\"bezier\" track: skipped")),
        "{:?}",
        import.report.notes
    );
}

/// Seeded hostile clips: random corruptions of one key of a DragonBones timeline and of a
/// Godot track, each of which must be a typed error naming the animation.
#[test]
fn seeded_hostile_clips_in_every_loader() {
    let mut state: u64 = 0x5eed_c11b;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let db_values = ["\"NaN\"", "\"inf\"", "{}", "[1]", "\"x\""];
    let mut kinds = [0usize; 6];
    for _ in 0..60 {
        let kind = next() % 6;
        kinds[kind] += 1;
        let x = next() % 5;
        match kind {
            // DragonBones: a bad value, a negative duration, a control time outside [0, 1],
            // an unknown bone.
            0..=3 => {
                let mut frame = json!({"duration": 5, "tweenEasing": 0, "rotate": 1});
                let bone = if kind == 3 { "nobody" } else { "pelvis" };
                match kind {
                    0 => {
                        frame["rotate"] = serde_json::from_str(db_values[x]).unwrap_or(json!("NaN"))
                    }
                    1 => frame["duration"] = json!(-1.0 - x as f64),
                    2 => frame["curve"] = json!([1.0 + x as f64, 0.0, -0.5, 1.0]),
                    _ => {}
                }
                let anim = json!([{"name": "hostile", "duration": 10, "bone": [
                    {"name": bone, "rotateFrame": [frame, {"duration": 0}]}]}]);
                let e = import_dragonbones(&tiny(anim)).unwrap_err();
                assert!(e.to_string().contains("hostile"), "kind {kind}: {e}");
            }
            // Godot: a non-finite or unordered key.
            _ => {
                let keys = if kind == 4 {
                    let bad = ["nan", "inf", "-inf", "nan", "inf"][x];
                    godot_keys("0.5, 1", "1, 1", &format!("70, {bad}"))
                } else {
                    godot_keys(&format!("0.9, 0.{x}"), "1, 1", "70, 71")
                };
                let e = skinweights::io::godot::import_godot(&gbot_with(HAND, &keys), None)
                    .unwrap_err();
                assert!(e.to_string().contains("fall"), "kind {kind}: {e}");
            }
        }
    }
    assert!(kinds.iter().all(|&k| k > 0), "{kinds:?}");
}

/// Plays the Godot 3 export of gBot's clips in the real engine (when `godot3` is installed:
/// `apt-get install godot3 xvfb`; skipped with a note otherwise) and compares every bone's
/// transform at key and mid-segment times with the library's forward kinematics (Godot 3.2.3:
/// worst entry 1.2e-4 px, its f32 arithmetic; before the export keyed every track at 0, 111 px
/// at the times before `fall`'s and `idle`'s first keys, where Godot leaves a track unapplied).
#[test]
fn godot3_plays_the_exported_clips() {
    let installed = std::process::Command::new("godot3")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).starts_with("3."));
    if !installed {
        eprintln!("godot3 is not installed: skipping (apt-get install godot3 xvfb)");
        return;
    }
    let _engine = common::engine();
    let g = player();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(
        p.join("project.godot"),
        "config_version=4\n\n[application]\n\nconfig/name=\"clips\"\n",
    )
    .unwrap();
    std::fs::write(
        p.join("scene.tscn"),
        common::export_text("godot", &g.scene, &g.artist, &common::godot_options(3)).unwrap(),
    )
    .unwrap();
    std::fs::copy(&g.scene.art().unwrap().images[0].path, p.join("gBot.png")).unwrap();
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/godot3_clips_check.gd"),
        p.join("check.gd"),
    )
    .unwrap();
    let sk = g.scene.skeleton();
    // Node paths below the Skeleton2D, as the export writes them.
    let paths: Vec<String> = (0..sk.len())
        .map(|j| {
            let mut chain = vec![sk.bones()[j].name.clone()];
            let mut at = sk.bones()[j].parent;
            while let Some(p) = at {
                chain.push(sk.bones()[p].name.clone());
                at = sk.bones()[p].parent;
            }
            chain.reverse();
            chain.join("/")
        })
        .collect();
    let mut times = serde_json::Map::new();
    for clip in g.scene.clips() {
        let mut t = clip.key_times();
        let mids: Vec<f64> = t.windows(2).map(|w| 0.5 * (w[0] + w[1])).collect();
        t.extend(mids);
        times.insert(clip.name.clone(), json!(t));
    }
    std::fs::write(
        p.join("times.json"),
        json!({"clips": times, "bones": paths}).to_string(),
    )
    .unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new("xvfb-run")
            .args([
                "-a",
                "godot3",
                "--no-window",
                "--video-driver",
                "GLES2",
                "--path",
            ])
            .arg(p)
            .args(args)
            .output()
            .unwrap()
    };
    let _ = run(&["--editor", "--quit"]);
    let out = run(&["-s", "res://check.gd"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("CLIPS "))
        .unwrap_or_else(|| panic!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    let got: Value = serde_json::from_str(line).unwrap();
    let (mut worst, mut checked) = (0.0_f64, 0usize);
    for clip in g.scene.clips() {
        let ts = times[&clip.name].as_array().unwrap();
        for (k, t) in ts.iter().enumerate() {
            let t = t.as_f64().unwrap();
            let w = sk.world_affines(&clip.sample(sk, t).unwrap()).unwrap();
            for (j, m) in w.iter().enumerate() {
                // y-down Godot columns of the scene's y-up matrix.
                let want = [m.a, -m.c, -m.b, m.d, m.tx, -m.ty];
                let row = &got[&clip.name][k][j];
                for (i, x) in want.iter().enumerate() {
                    let d = (row[i].as_f64().unwrap() - x).abs();
                    worst = worst.max(d);
                }
                checked += 1;
            }
        }
    }
    let rest = sk.rest_affines();
    let mut vs_rest = 0.0_f64;
    for clip in g.scene.clips() {
        for (k, _) in times[&clip.name].as_array().unwrap().iter().enumerate() {
            for (j, m) in rest.iter().enumerate() {
                let want = [m.a, -m.c, -m.b, m.d, m.tx, -m.ty];
                for (i, x) in want.iter().enumerate() {
                    vs_rest = vs_rest.max((got[&clip.name][k][j][i].as_f64().unwrap() - x).abs());
                }
            }
        }
    }
    eprintln!("godot3 played {checked} bone transforms, worst difference {worst:e} (from rest {vs_rest:e})");
    assert!(worst < 1e-3, "{worst:e}");
}
