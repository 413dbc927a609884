//! Spine animations as the scene's clips, on the ten shipped Spine 4.2 examples
//! (`data/spine/`): keys hit exactly, Bézier segments against an independent cubic, `pose
//! --json` world transforms against an independent forward kinematics written here straight
//! from the JSON (this file's own reading of the user guide's transform and inherit rules),
//! export round trips and hostile animations.

use crate::common;
use skinweights::io::ExportOptions;
use skinweights::ClipError;

use common::{data, skinweights, text, TINY_SPINE};
use nalgebra::{Matrix2, Vector2};
use serde_json::Value;
use skinweights::animation::ChannelKind;
use skinweights::io::save_scene;
use skinweights::io::spine::{
    import_spine, load_spine, SkinSelection, SpineImport, SpineImportOptions,
};
use skinweights::Error;

/// (folder, JSON file, animations).
const EXAMPLES: [(&str, &str, usize); 10] = [
    ("alien", "alien-pro.json", 4),
    ("cloud-pot", "cloud-pot.json", 3),
    ("goblins", "goblins-pro.json", 1),
    ("owl", "owl-pro.json", 6),
    ("powerup", "powerup-pro.json", 1),
    ("raptor", "raptor-pro.json", 5),
    ("spineboy", "spineboy-pro.json", 11),
    ("stretchyman", "stretchyman-pro.json", 2),
    ("tank", "tank-pro.json", 2),
    ("vine", "vine-pro.json", 1),
];

fn path(folder: &str, file: &str) -> std::path::PathBuf {
    data(&format!("spine/{folder}/{file}"))
}

fn raw(folder: &str, file: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path(folder, file)).unwrap()).unwrap()
}

fn import(folder: &str, file: &str) -> SpineImport {
    load_spine(
        path(folder, file),
        None,
        &SpineImportOptions::default().with_skin(SkinSelection::All),
    )
    .unwrap()
}

// ------------------------------------------------------------ the independent reading

fn num(v: &Value, key: &str, default: f64) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(default)
}

/// Columns: unit vectors at `ax` and `ay` degrees, scaled by `sx`, `sy`.
fn columns(ax: f64, ay: f64, sx: f64, sy: f64) -> Matrix2<f64> {
    let (ax, ay) = (ax.to_radians(), ay.to_radians());
    Matrix2::new(ax.cos() * sx, ay.cos() * sy, ax.sin() * sx, ay.sin() * sy)
}

/// `(1-s)³ p0 + 3(1-s)²s p1 + 3(1-s)s² p2 + s³ p3`.
fn cubic(p: [f64; 4], s: f64) -> f64 {
    let r = 1.0 - s;
    r * r * r * p[0] + 3.0 * r * r * s * p[1] + 3.0 * r * s * s * p[2] + s * s * s * p[3]
}

/// The value of a Spine Bézier segment at time `t`: `s` by bisection on the time cubic
/// (control times clamped to the segment, as the importer documents), then the value cubic.
/// Between two equal values the importer's clip is flat (documented): so is this.
fn bezier_at(t0: f64, v0: f64, t1: f64, v1: f64, c: [f64; 4], t: f64) -> f64 {
    if v0 == v1 {
        return v0;
    }
    let xs = [t0, c[0].clamp(t0, t1), c[2].clamp(t0, t1), t1];
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if cubic(xs, mid) < t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    cubic([v0, c[1], c[3], v1], 0.5 * (lo + hi))
}

/// Channel `ch` (of `n`) of a timeline's keys at time `t`, field `field`, default `d`.
fn sample(keys: &[Value], field: &str, d: f64, ch: usize, t: f64) -> f64 {
    let time = |k: &Value| num(k, "time", 0.0);
    let value = |k: &Value| num(k, field, d);
    if t < time(&keys[0]) {
        return value(&keys[0]);
    }
    let i = keys.iter().rposition(|k| time(k) <= t).unwrap();
    let k = &keys[i];
    let Some(next) = keys.get(i + 1) else {
        return value(k);
    };
    let (t0, v0, t1, v1) = (time(k), value(k), time(next), value(next));
    if t == t0 {
        return v0;
    }
    match k.get("curve") {
        None => v0 + (v1 - v0) * (t - t0) / (t1 - t0),
        Some(Value::String(s)) if s == "stepped" => v0,
        Some(Value::Array(c)) => {
            let c: Vec<f64> = c.iter().map(|x| x.as_f64().unwrap()).collect();
            bezier_at(
                t0,
                v0,
                t1,
                v1,
                [c[4 * ch], c[4 * ch + 1], c[4 * ch + 2], c[4 * ch + 3]],
                t,
            )
        }
        other => panic!("curve {other:?}"),
    }
}

/// A timeline: its name, `(index into the local values, key field, default)` per channel,
/// and whether it adds (else multiplies).
type Timeline = (&'static str, &'static [(usize, &'static str, f64)], bool);

/// A bone's animated local values `[x, y, rotation, scaleX, scaleY, shearX, shearY]` at `t`.
fn animated_local(bone: &Value, timelines: Option<&Value>, t: f64) -> [f64; 7] {
    let mut l = [
        num(bone, "x", 0.0),
        num(bone, "y", 0.0),
        num(bone, "rotation", 0.0),
        num(bone, "scaleX", 1.0),
        num(bone, "scaleY", 1.0),
        num(bone, "shearX", 0.0),
        num(bone, "shearY", 0.0),
    ];
    let Some(tl) = timelines.and_then(Value::as_object) else {
        return l;
    };
    let mut set = [false; 7];
    // (timeline, [(index into l, field, default)], additive)
    let spec: [Timeline; 10] = [
        ("rotate", &[(2, "value", 0.0)], true),
        ("translate", &[(0, "x", 0.0), (1, "y", 0.0)], true),
        ("translatex", &[(0, "value", 0.0)], true),
        ("translatey", &[(1, "value", 0.0)], true),
        ("scale", &[(3, "x", 1.0), (4, "y", 1.0)], false),
        ("scalex", &[(3, "value", 1.0)], false),
        ("scaley", &[(4, "value", 1.0)], false),
        ("shear", &[(5, "x", 0.0), (6, "y", 0.0)], true),
        ("shearx", &[(5, "value", 0.0)], true),
        ("sheary", &[(6, "value", 0.0)], true),
    ];
    // The same timeline order as the file's object (the first timeline of a channel wins).
    for (name, keys) in tl {
        let Some((_, fields, add)) = spec.iter().find(|s| s.0 == name) else {
            continue;
        };
        let keys = keys.as_array().unwrap();
        for (ch, &(i, field, d)) in fields.iter().enumerate() {
            if set[i] {
                continue;
            }
            set[i] = true;
            // Before a bone timeline's first key Spine shows the setup pose.
            let v = if t < num(&keys[0], "time", 0.0) {
                d
            } else {
                sample(keys, field, d, ch, t)
            };
            if *add {
                l[i] += v;
            } else {
                l[i] *= v;
            }
        }
    }
    l
}

/// World `(linear, origin)` of every bone at time `t` of animation `anim` (no constraints).
fn worlds_at(doc: &Value, anim: &str, t: f64) -> Vec<(Matrix2<f64>, Vector2<f64>)> {
    let n = doc["bones"].as_array().unwrap().len();
    worlds_with(doc, anim, t, &vec![0.0; n])
}

/// [`worlds_at`] with `extra[j]` degrees added to bone `j`'s local rotation.
fn worlds_with(
    doc: &Value,
    anim: &str,
    t: f64,
    extra: &[f64],
) -> Vec<(Matrix2<f64>, Vector2<f64>)> {
    let bones = doc["bones"].as_array().unwrap();
    let names: Vec<&str> = bones.iter().map(|b| b["name"].as_str().unwrap()).collect();
    let tracks = &doc["animations"][anim]["bones"];
    let mut out: Vec<(Matrix2<f64>, Vector2<f64>)> = Vec::new();
    for (j, b) in bones.iter().enumerate() {
        let [x, y, mut r, sx, sy, hx, hy] =
            animated_local(b, tracks.get(b["name"].as_str().unwrap()), t);
        r += extra[j];
        let local = columns(r + hx, r + 90.0 + hy, sx, sy);
        let t = Vector2::new(x, y);
        let mode = b.get("inherit").and_then(Value::as_str).unwrap_or("normal");
        let w = match b.get("parent").and_then(Value::as_str) {
            None => (local, t),
            Some(p) => {
                let (pm, pt) = out[names.iter().position(|n| *n == p).unwrap()];
                let linear = match mode {
                    "normal" => pm * local,
                    "onlyTranslation" => local,
                    "noRotationOrReflection" => {
                        // The parent's axis lengths kept along its rotated axes.
                        let x_axis = pm.column(0).into_owned();
                        let phi = x_axis.y.atan2(x_axis.x).to_degrees();
                        let (a, b) = (x_axis.norm(), pm.determinant().abs() / x_axis.norm());
                        let rp = columns(phi, phi + 90.0, 1.0, 1.0);
                        rp * Matrix2::new(a, 0.0, 0.0, b) * rp.transpose() * local
                    }
                    "noScale" | "noScaleOrReflection" => {
                        let dir = (pm * Vector2::new(r.to_radians().cos(), r.to_radians().sin()))
                            .normalize();
                        let mut perp = Vector2::new(-dir.y, dir.x);
                        if mode == "noScale" && pm.determinant() < 0.0 {
                            perp = -perp;
                        }
                        Matrix2::from_columns(&[dir, perp]) * columns(hx, 90.0 + hy, sx, sy)
                    }
                    m => panic!("inherit {m}"),
                };
                (linear, pm * t + pt)
            }
        };
        out.push(w);
    }
    out
}

/// Every key time of an animation's bone timelines, sorted, deduplicated.
fn bone_key_times(doc: &Value, anim: &str) -> Vec<f64> {
    let mut times = Vec::new();
    if let Some(bones) = doc["animations"][anim]["bones"].as_object() {
        for tl in bones.values().filter_map(Value::as_object) {
            for keys in tl.values().filter_map(Value::as_array) {
                times.extend(keys.iter().map(|k| num(k, "time", 0.0)));
            }
        }
    }
    times.sort_by(f64::total_cmp);
    times.dedup();
    times
}

/// Constraint `c`'s (raw `ik` entry) mix and bend at time `t` of `anim`: its IK timeline's
/// when it has one (`mix` as a channel, default 1; `bendPositive` held from the key at or
/// before `t`, the first before it, default true), else its own (same defaults).
fn ik_state(doc: &Value, anim: &str, c: &Value, t: f64, timelines: bool) -> (f64, bool) {
    let bend = |v: &Value| {
        v.get("bendPositive")
            .and_then(Value::as_bool)
            .unwrap_or(true)
    };
    let name = c["name"].as_str().unwrap();
    match doc["animations"][anim]["ik"][name].as_array() {
        Some(keys) if timelines && !keys.is_empty() => {
            let i = keys
                .iter()
                .rposition(|k| num(k, "time", 0.0) <= t)
                .unwrap_or(0);
            (sample(keys, "mix", 1.0, 0, t), bend(&keys[i]))
        }
        _ => (num(c, "mix", 1.0), bend(c)),
    }
}

fn wrap(a: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    (a + std::f64::consts::PI).rem_euclid(tau) - std::f64::consts::PI
}

fn angle(v: Vector2<f64>) -> f64 {
    v.y.atan2(v.x)
}

/// World transforms at `t` of `anim` with the file's IK constraints applied in `order`, as
/// docs/clips.md and the `ik` module document the step: one bone turns its x axis toward the
/// target's origin; two bones (law of cosines, `bendPositive` counter-clockwise) put the
/// child's tip (its x axis at its setup `length`, 1 px for length 0) on the target when it
/// can reach; each turn scaled by `mix` and added to the bone's local rotation (negated
/// under a reflecting parent for `normal`/`noScale` bones). `timelines: false` uses the
/// constraints' own mix and bend.
fn worlds_with_ik(
    doc: &Value,
    anim: &str,
    t: f64,
    timelines: bool,
) -> Vec<(Matrix2<f64>, Vector2<f64>)> {
    let bones = doc["bones"].as_array().unwrap();
    let index = |name: &Value| bones.iter().position(|b| b["name"] == *name).unwrap();
    let setup = worlds_at(doc, "", 0.0);
    let reach = |j: usize| {
        let l = num(&bones[j], "length", 0.0);
        (if l > 0.0 { l } else { 1.0 }) / setup[j].0.column(0).norm()
    };
    let tip = |w: &[(Matrix2<f64>, Vector2<f64>)], j: usize| {
        w[j].1 + w[j].0.column(0).into_owned() * reach(j)
    };
    let mut extra = vec![0.0; bones.len()];
    let add = |extra: &mut Vec<f64>, w: &[(Matrix2<f64>, Vector2<f64>)], j: usize, d: f64| {
        let mode = bones[j]
            .get("inherit")
            .and_then(Value::as_str)
            .unwrap_or("normal");
        let parent = bones[j].get("parent").map(index);
        let reflected = matches!(mode, "normal" | "noScale")
            && parent.is_some_and(|p| w[p].0.determinant() < 0.0);
        extra[j] += if reflected { -d } else { d }.to_degrees();
    };
    let mut constraints: Vec<&Value> = doc["ik"].as_array().into_iter().flatten().collect();
    constraints.sort_by(|a, b| num(a, "order", 0.0).total_cmp(&num(b, "order", 0.0)));
    for c in constraints {
        let (mix, bend) = ik_state(doc, anim, c, t, timelines);
        let chain: Vec<usize> = c["bones"].as_array().unwrap().iter().map(index).collect();
        let target = index(&c["target"]);
        let w = worlds_with(doc, anim, t, &extra);
        let goal = w[target].1;
        let aim = |w: &[(Matrix2<f64>, Vector2<f64>)], j: usize| {
            let (o, tp) = (w[j].1, tip(w, j));
            if (tp - o).norm() == 0.0 || (goal - o).norm() == 0.0 {
                0.0
            } else {
                wrap(angle(goal - o) - angle(tp - o))
            }
        };
        match chain[..] {
            [one] => {
                let d = aim(&w, one);
                add(&mut extra, &w, one, d * mix);
            }
            [p, ch] => {
                let (o1, o2) = (w[p].1, w[ch].1);
                let (a, b) = ((o2 - o1).norm(), (tip(&w, ch) - o2).norm());
                let to = goal - o1;
                let d = to.norm().clamp((a - b).abs(), a + b);
                let mut d1 = 0.0;
                if a > 0.0 && d > 0.0 {
                    let cos = ((a * a + d * d - b * b) / (2.0 * a * d)).clamp(-1.0, 1.0);
                    let sign = if bend { 1.0 } else { -1.0 };
                    d1 = wrap(angle(to) + sign * cos.acos() - angle(o2 - o1));
                }
                add(&mut extra, &w, p, d1 * mix);
                let w = worlds_with(doc, anim, t, &extra);
                let d2 = aim(&w, ch);
                add(&mut extra, &w, ch, d2 * mix);
            }
            _ => panic!("{} bones", chain.len()),
        }
    }
    worlds_with(doc, anim, t, &extra)
}

// ------------------------------------------------------------------------------ tests

#[test]
fn every_example_imports_its_animations_as_clips() {
    let mut total = 0;
    for (folder, file, n) in EXAMPLES {
        let doc = raw(folder, file);
        let imported = import(folder, file);
        let scene = &imported.scene;
        assert_eq!(scene.clips().len(), n, "{folder}");
        for clip in scene.clips() {
            // The duration is the last key of any timeline (slots, deform, events too).
            let anim = &doc["animations"][&clip.name];
            fn last(v: &Value) -> f64 {
                match v {
                    Value::Object(m) => m
                        .iter()
                        .map(|(k, x)| {
                            if k == "time" {
                                x.as_f64().unwrap()
                            } else {
                                last(x)
                            }
                        })
                        .fold(0.0, f64::max),
                    Value::Array(a) => a.iter().map(last).fold(0.0, f64::max),
                    _ => 0.0,
                }
            }
            assert_eq!(clip.duration, last(anim), "{folder} {}", clip.name);
            clip.check(scene.skeleton()).unwrap();
        }
        total += n;
        scene.sanity_check().ok();
    }
    assert_eq!(total, 36);
}

#[test]
fn channels_equal_their_keys_at_key_times() {
    let mut checked = 0;
    for (folder, file, _) in EXAMPLES {
        let doc = raw(folder, file);
        let scene = import(folder, file).scene;
        for clip in scene.clips() {
            let Some(bones) = doc["animations"][&clip.name]["bones"].as_object() else {
                continue;
            };
            for (bone, tl) in bones {
                let track = clip.tracks.iter().find(|t| &t.bone == bone).unwrap();
                for (name, keys) in tl.as_object().unwrap() {
                    let (fields, kinds): (&[&str], &[ChannelKind]) = match name.as_str() {
                        "rotate" => (&["value"], &[ChannelKind::Rotation]),
                        "translate" => (
                            &["x", "y"],
                            &[ChannelKind::TranslateX, ChannelKind::TranslateY],
                        ),
                        "scale" => (&["x", "y"], &[ChannelKind::ScaleX, ChannelKind::ScaleY]),
                        "shear" => (&["x", "y"], &[ChannelKind::ShearX, ChannelKind::ShearY]),
                        "translatex" => (&["value"], &[ChannelKind::TranslateX]),
                        "translatey" => (&["value"], &[ChannelKind::TranslateY]),
                        _ => continue,
                    };
                    let keys = keys.as_array().unwrap();
                    for (i, k) in keys.iter().enumerate() {
                        let t = num(k, "time", 0.0);
                        // Of several keys at one time the last holds.
                        if keys.get(i + 1).is_some_and(|n| num(n, "time", 0.0) == t) {
                            continue;
                        }
                        for (f, kind) in fields.iter().zip(kinds) {
                            let d = if name == "scale" { 1.0 } else { 0.0 };
                            let want = num(k, f, d);
                            let got = track.channels.get(*kind).unwrap().sample(t).unwrap();
                            assert_eq!(got, want, "{folder} {} {bone} {name} key {i}", clip.name);
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 8000, "{checked}");
}

#[test]
fn bezier_segments_agree_with_an_independent_cubic() {
    let mut checked = 0;
    let mut worst: f64 = 0.0;
    for (folder, file, _) in EXAMPLES {
        let doc = raw(folder, file);
        let scene = import(folder, file).scene;
        for clip in scene.clips() {
            let Some(bones) = doc["animations"][&clip.name]["bones"].as_object() else {
                continue;
            };
            for (bone, tl) in bones {
                let track = clip.tracks.iter().find(|t| &t.bone == bone).unwrap();
                let Some(keys) = tl.get("rotate").and_then(Value::as_array) else {
                    continue;
                };
                let channel = track.channels.get(ChannelKind::Rotation).unwrap();
                for w in keys.windows(2) {
                    let Some(c) = w[0].get("curve").and_then(Value::as_array) else {
                        continue;
                    };
                    let c: Vec<f64> = c.iter().map(|x| x.as_f64().unwrap()).collect();
                    let (t0, t1) = (num(&w[0], "time", 0.0), num(&w[1], "time", 0.0));
                    let (v0, v1) = (num(&w[0], "value", 0.0), num(&w[1], "value", 0.0));
                    // Handles past the segment in time are clamped by the importer (noted);
                    // clamping both can leave x(s) flat where the value is ill-conditioned
                    // (a cube-root cusp): those segments are not compared.
                    if t1 <= t0 || !(t0..=t1).contains(&c[0]) || !(t0..=t1).contains(&c[2]) {
                        continue;
                    }
                    for j in 1..10 {
                        let t = t0 + (t1 - t0) * j as f64 / 10.0;
                        let want = bezier_at(t0, v0, t1, v1, [c[0], c[1], c[2], c[3]], t);
                        let got = channel.sample(t).unwrap();
                        worst = worst.max((got - want).abs());
                        assert!(
                            (got - want).abs() <= 1e-9,
                            "{folder} {} {bone} t {t}: {got} vs {want}",
                            clip.name
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    println!("{checked} Bézier samples, worst {worst:e} degrees");
    assert!(checked > 1000, "{checked}");
}

/// `pose --json` on a scene without its IK (this file's reading applies no constraints).
#[test]
fn pose_json_world_transforms_match_an_independent_computation_at_key_times() {
    let dir = tempfile::tempdir().unwrap();
    let mut worst: f64 = 0.0;
    let mut poses = 0;
    for (folder, file) in [
        ("raptor", "raptor-pro.json"),
        ("stretchyman", "stretchyman-pro.json"),
        ("spineboy", "spineboy-pro.json"),
        ("alien", "alien-pro.json"),
    ] {
        let doc = raw(folder, file);
        let scene = import(folder, file).scene.without_ik();
        let sp = dir.path().join(format!("{folder}.json"));
        save_scene(&scene, &sp).unwrap();
        for clip in scene.clips() {
            let times = bone_key_times(&doc, &clip.name);
            // At most 6 key times per clip, spread over it.
            let step = times.len().div_ceil(6).max(1);
            for &t in times.iter().step_by(step) {
                let out = skinweights(&[
                    "pose",
                    &sp.display().to_string(),
                    "--clip",
                    &clip.name,
                    "--time",
                    &format!("{t}"),
                    "--json",
                ]);
                assert!(out.status.success(), "{}", text(&out));
                let v: Value = serde_json::from_slice(&out.stdout).unwrap();
                let want = worlds_at(&doc, &clip.name, t);
                let got = v["bones"].as_array().unwrap();
                assert_eq!(got.len(), want.len());
                for (g, (m, o)) in got.iter().zip(&want) {
                    let w: Vec<f64> = g["world"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_f64().unwrap())
                        .collect();
                    let e = [m[(0, 0)], m[(0, 1)], m[(1, 0)], m[(1, 1)], o.x, o.y];
                    for (a, b) in w.iter().zip(e) {
                        worst = worst.max((a - b).abs());
                        assert!(
                            (a - b).abs() <= 1e-6,
                            "{folder} {} t {t} bone {}: {w:?} vs {e:?}",
                            clip.name,
                            g["name"]
                        );
                    }
                }
                poses += 1;
            }
        }
    }
    println!("{poses} poses, worst world entry difference {worst:e}");
    assert!(poses > 50, "{poses}");
}

/// World transforms of every bone at every frame (30 fps) of every clip, IK applied or not.
fn clip_worlds(i: &SpineImport, ik: bool) -> Vec<Vec<[f64; 6]>> {
    let s = if ik {
        i.scene.clone()
    } else {
        i.scene.clone().without_ik()
    };
    let mut out = Vec::new();
    for clip in s.clips() {
        for t in clip.frame_times(30.0).unwrap() {
            let pose = s.clip_pose(clip, t).unwrap();
            out.push(
                s.skeleton()
                    .world_affines(&pose)
                    .unwrap()
                    .iter()
                    .map(|w| w.to_array())
                    .collect(),
            );
        }
    }
    out
}

#[test]
fn export_round_trips_the_clips() {
    for (folder, file, _) in EXAMPLES {
        let text = std::fs::read_to_string(path(folder, file)).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        let options = SpineImportOptions::default().with_skin(SkinSelection::All);
        let first = import_spine(&text, None, &options).unwrap();
        // With the source, its animations and constraints are left as they were.
        let kept_json = common::export_json(
            "spine",
            &first.scene,
            &first.artist,
            &ExportOptions::default().with_source_text(&text),
        )
        .unwrap();
        for key in ["animations", "ik", "transform", "path", "physics"] {
            assert_eq!(kept_json.get(key), doc.get(key), "{folder} {key}");
        }
        // Without it, the scene's clips and IK are written and read back the same.
        let out_json = common::export_json(
            "spine",
            &first.scene,
            &first.artist,
            &ExportOptions::default(),
        )
        .unwrap();
        let again =
            import_spine(&serde_json::to_string(&out_json).unwrap(), None, &options).unwrap();
        assert_eq!(again.scene.ik(), first.scene.ik(), "{folder}");
        let names = |i: &SpineImport| {
            i.scene
                .clips()
                .iter()
                .map(|c| c.name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&again), names(&first), "{folder}");
        // Every channel of every clip at every frame: the same within 1e-9.
        let mut channels: f64 = 0.0;
        for (ca, cb) in first.scene.clips().iter().zip(again.scene.clips()) {
            assert_eq!(ca.duration, cb.duration, "{folder} {}", ca.name);
            for t in ca.frame_times(30.0).unwrap() {
                for ta in &ca.tracks {
                    let tb = cb.tracks.iter().find(|t| t.bone == ta.bone).unwrap();
                    for kind in ChannelKind::ALL {
                        let d = (ta.channels.value(kind, t) - tb.channels.value(kind, t)).abs();
                        channels = channels.max(d);
                    }
                }
            }
        }
        assert!(channels <= 1e-9, "{folder}: channels {channels}");
        // Bone world matrices at every frame: without IK within 1e-9; with IK within 1e-5,
        // since bone lengths are written back from the scene's segments (rounded by ~1e-13
        // px) and a two-bone chain near full reach amplifies that through acos.
        let worst = |ik: bool| {
            let (a, b) = (clip_worlds(&first, ik), clip_worlds(&again, ik));
            assert_eq!(a.len(), b.len(), "{folder}");
            let mut worst: f64 = 0.0;
            for (fa, fb) in a.iter().zip(&b) {
                for (wa, wb) in fa.iter().zip(fb) {
                    for (x, y) in wa.iter().zip(wb) {
                        worst = worst.max((x - y).abs());
                    }
                }
            }
            worst
        };
        let (plain, with_ik) = (worst(false), worst(true));
        println!(
            "{folder}: round trip channels {channels:e}, worlds {plain:e}, with IK {with_ik:e}"
        );
        assert!(plain <= 1e-9, "{folder}: {plain}");
        assert!(with_ik <= 1e-5, "{folder}: {with_ik}");
    }
}

fn tiny(edit: impl FnOnce(&mut Value)) -> Result<SpineImport, Error> {
    let mut doc: Value = serde_json::from_str(TINY_SPINE).unwrap();
    edit(&mut doc);
    import_spine(&doc.to_string(), None, &SpineImportOptions::default())
}

#[test]
fn the_tiny_project_imports_its_clips_and_ik() {
    let i = tiny(|_| {}).unwrap();
    let s = &i.scene;
    assert_eq!(s.clips().len(), 2);
    assert_eq!(s.ik().len(), 1);
    assert_eq!(s.ik()[0].mix, 0.5);
    let wave = s.clip("wave").unwrap();
    // The slot timeline's last key sets the duration; it is named in the notes.
    assert_eq!(wave.duration, 1.25);
    assert!(i
        .report
        .notes
        .iter()
        .any(|n| n.contains("slot rgba timelines not applied: wave")));
    let lower = wave.tracks.iter().find(|t| t.bone == "lower").unwrap();
    // Scale multiplies the setup (1 → 1.5 at 1 s), stepped translate holds until 0.5 s.
    assert_eq!(lower.channels.value(ChannelKind::ScaleX, 1.0), 1.5);
    assert_eq!(lower.channels.value(ChannelKind::TranslateX, 0.49), 0.0);
    assert_eq!(lower.channels.value(ChannelKind::TranslateX, 0.5), 5.0);
    // The shear key alone: the setup pose before it (as Spine draws it), its value from it on.
    let shear_key = lower
        .channels
        .get(ChannelKind::ShearX)
        .unwrap()
        .keys
        .last()
        .unwrap()
        .time;
    assert!(shear_key > 0.0);
    assert_eq!(lower.channels.value(ChannelKind::ShearX, 0.0), 0.0);
    assert_eq!(lower.channels.value(ChannelKind::ShearX, shear_key), 10.0);
    let pose = s.clip_pose(wave, 0.3).unwrap();
    let w = s.skeleton().world_affines(&pose).unwrap();
    assert!(w.iter().all(|m| m.is_finite()));
}

#[test]
fn hostile_animations_are_typed_errors() {
    let err = |edit: fn(&mut Value)| tiny(edit).err().map(|e| e.to_string()).unwrap_or_default();
    let e = err(|d| d["animations"]["wave"]["bones"]["ghost"] = serde_json::json!({"rotate": []}));
    assert!(
        e.contains("animation \"wave\"") && e.contains("ghost"),
        "{e}"
    );
    let e = err(|d| {
        d["animations"]["wave"]["bones"]["upper"]["rotate"][1]["time"] = serde_json::json!(2.0)
    });
    assert!(
        e.contains("clip \"wave\"") && e.contains("out of order"),
        "{e}"
    );
    let e = err(|d| {
        d["animations"]["wave"]["bones"]["upper"]["rotate"][0]["time"] = serde_json::json!(-1)
    });
    assert!(e.contains("negative"), "{e}");
    let e = err(|d| {
        d["animations"]["wave"]["bones"]["upper"]["rotate"][0]["value"] = serde_json::json!("NaN")
    });
    assert!(
        e.contains("upper") && e.contains("expected a number"),
        "{e}"
    );
    let e = err(|d| {
        d["animations"]["wave"]["bones"]["upper"]["rotate"][0]["value"] = serde_json::json!(1e308)
    });
    assert!(e.contains("beyond"), "{e}");
    let e = err(|d| {
        d["animations"]["wave"]["bones"]["lower"]["scale"][0]["curve"] =
            serde_json::json!([1, 2, 3])
    });
    assert!(e.contains("lower") && e.contains("3 numbers"), "{e}");
    let e = err(|d| d["ik"][0]["target"] = serde_json::json!("nobody"));
    assert!(
        e.contains("IK constraint \"reach\"") && e.contains("nobody"),
        "{e}"
    );
    // 10^7 keys (a 30 MB timeline), written as text: a typed error naming the count.
    let mut doc: Value = serde_json::from_str(TINY_SPINE).unwrap();
    doc["animations"]["idle"]["bones"]["root"]["rotate"] = serde_json::json!("MANY");
    let many = format!("[{}]", vec!["{}"; 10_000_000].join(","));
    let text = doc.to_string().replacen("\"MANY\"", &many, 1);
    let e = import_spine(&text, None, &SpineImportOptions::default()).unwrap_err();
    assert!(
        matches!(e, Error::Clip(ClipError::TooManyKeys { ref clip, .. }) if clip == "idle"),
        "{e}"
    );
    // Control times past the segment are clamped (Spine allows them), noted.
    let i = tiny(|d| {
        d["animations"]["wave"]["bones"]["upper"]["rotate"][0]["curve"] =
            serde_json::json!([-0.5, 5, 0.9, 25])
    })
    .unwrap();
    assert!(
        i.report.notes.iter().any(|n| n.contains("clamped")),
        "{:?}",
        i.report.notes
    );
    // A setup scale of 0 imports (noted), every clip frame finite.
    let i = tiny(|d| d["bones"][2]["scaleX"] = serde_json::json!(0)).unwrap();
    assert!(i.report.notes.iter().any(|n| n.contains("scale of 0")));
    for c in i.scene.clips() {
        let w = i
            .scene
            .skeleton()
            .world_affines(&i.scene.clip_pose(c, 0.5).unwrap())
            .unwrap();
        assert!(w.iter().all(|m| m.is_finite()));
    }
    // An IK chain the model cannot take is left out, named.
    let i = tiny(|d| d["ik"][0]["bones"] = serde_json::json!(["upper", "tip"])).unwrap();
    assert!(i.scene.ik().is_empty());
    assert!(i
        .report
        .notes
        .iter()
        .any(|n| n.contains("IK constraint left out")));
}

/// (folder, file, IK timelines, IK keys) of the examples that key IK constraints.
const IK_EXAMPLES: [(&str, &str, usize, usize); 3] = [
    ("raptor", "raptor-pro.json", 12, 16),
    ("spineboy", "spineboy-pro.json", 14, 29),
    ("stretchyman", "stretchyman-pro.json", 2, 2),
];

#[test]
fn ik_timelines_are_read_with_their_keys() {
    let mut keys_checked = 0;
    for (folder, file, timelines, keys) in IK_EXAMPLES {
        let doc = raw(folder, file);
        let i = import(folder, file);
        assert_eq!(
            (i.report.ik_timelines, i.report.ik_keys),
            (timelines, keys),
            "{folder}"
        );
        for clip in i.scene.clips() {
            for track in &clip.ik {
                let raw_keys = doc["animations"][&clip.name]["ik"][&track.constraint]
                    .as_array()
                    .unwrap();
                assert_eq!(track.keys.len(), raw_keys.len());
                for (k, r) in track.keys.iter().zip(raw_keys) {
                    assert_eq!(k.time, num(r, "time", 0.0));
                    assert_eq!(k.mix, num(r, "mix", 1.0));
                    assert_eq!(k.softness, num(r, "softness", 0.0));
                    let flag = |f: &str, d: bool| r.get(f).and_then(Value::as_bool).unwrap_or(d);
                    assert_eq!(k.bend_positive, flag("bendPositive", true));
                    assert_eq!(k.stretch, flag("stretch", false));
                    // Sampled at its time (the last of several keys at one time).
                    let s = track.sample(k.time).unwrap();
                    if raw_keys
                        .iter()
                        .filter(|o| num(o, "time", 0.0) == k.time)
                        .count()
                        == 1
                    {
                        assert_eq!((s.mix, s.bend_positive), (k.mix, k.bend_positive));
                    }
                    keys_checked += 1;
                }
                // Between keys: mix as the independent channel sampler has it.
                for w in track.keys.windows(2) {
                    let t = 0.5 * (w[0].time + w[1].time);
                    let want = sample(raw_keys, "mix", 1.0, 0, t);
                    let got = track.sample(t).unwrap().mix;
                    assert!(
                        (got - want).abs() <= 1e-9,
                        "{folder} {}: {got} vs {want}",
                        clip.name
                    );
                }
            }
        }
    }
    assert_eq!(keys_checked, 16 + 29 + 2);
}

/// `pose --json` of the whole scene (IK applied, with the clips' IK timelines) at every IK
/// key time and between keys, against this file's FK + IK straight from the JSON.
#[test]
fn pose_json_applies_ik_timelines_like_an_independent_reading() {
    let dir = tempfile::tempdir().unwrap();
    let (mut worst, mut poses, mut changed) = (0.0f64, 0, 0);
    for (folder, file, ..) in IK_EXAMPLES {
        let doc = raw(folder, file);
        let scene = import(folder, file).scene;
        let sp = dir.path().join(format!("{folder}.json"));
        save_scene(&scene, &sp).unwrap();
        for clip in scene.clips().iter().filter(|c| !c.ik.is_empty()) {
            let mut times: Vec<f64> = Vec::new();
            for track in &clip.ik {
                for (i, k) in track.keys.iter().enumerate() {
                    times.push(k.time);
                    if let Some(next) = track.keys.get(i + 1) {
                        times.push(0.5 * (k.time + next.time));
                    }
                }
            }
            times.push(0.5 * clip.duration);
            times.sort_by(f64::total_cmp);
            times.dedup();
            for &t in &times {
                let out = skinweights(&[
                    "pose",
                    &sp.display().to_string(),
                    "--clip",
                    &clip.name,
                    "--time",
                    &format!("{t}"),
                    "--json",
                ]);
                assert!(out.status.success(), "{}", text(&out));
                let v: Value = serde_json::from_slice(&out.stdout).unwrap();
                let want = worlds_with_ik(&doc, &clip.name, t, true);
                let setup_ik = worlds_with_ik(&doc, &clip.name, t, false);
                let got = v["bones"].as_array().unwrap();
                let mut differs = false;
                for ((g, (m, o)), (m0, o0)) in got.iter().zip(&want).zip(&setup_ik) {
                    let w: Vec<f64> = g["world"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_f64().unwrap())
                        .collect();
                    let e = [m[(0, 0)], m[(0, 1)], m[(1, 0)], m[(1, 1)], o.x, o.y];
                    for (a, b) in w.iter().zip(e) {
                        worst = worst.max((a - b).abs());
                        // 1e-5: a two-bone chain near full reach amplifies the ~1e-13 px
                        // by which the scene's bone lengths differ from the file's (acos).
                        assert!(
                            (a - b).abs() <= 1e-5,
                            "{folder} {} t {t} bone {}: {w:?} vs {e:?}",
                            clip.name,
                            g["name"]
                        );
                    }
                    differs |= (o - o0).norm() > 1e-3 || (m - m0).norm() > 1e-6;
                }
                changed += usize::from(differs);
                poses += 1;
            }
        }
    }
    println!("{poses} poses with IK timelines, worst world entry difference {worst:e}; {changed} differ from the constraints' own mix and bend");
    assert!(poses >= 40, "{poses}");
    // The timelines matter: many poses differ from the setup mix and bend.
    assert!(changed >= 10, "{changed}");
}

#[test]
fn ik_timelines_round_trip_through_scene_files_and_spine_export() {
    let dir = tempfile::tempdir().unwrap();
    for (folder, file, timelines, keys) in IK_EXAMPLES {
        let first = import(folder, file);
        // Scene file: the clips, IK tracks included, come back equal.
        let sp = dir.path().join(format!("{folder}.json"));
        save_scene(&first.scene, &sp).unwrap();
        let (loaded, _) = skinweights::io::load_scene(&sp).unwrap();
        assert_eq!(loaded.clips(), first.scene.clips(), "{folder}");
        // Spine without --source: written as animations.NAME.ik and read back.
        let out_json = common::export_json(
            "spine",
            &first.scene,
            &first.artist,
            &ExportOptions::default(),
        )
        .unwrap();
        let text = serde_json::to_string(&out_json).unwrap();
        let options = SpineImportOptions::default().with_skin(SkinSelection::All);
        let again = import_spine(&text, None, &options).unwrap();
        assert_eq!(
            (again.report.ik_timelines, again.report.ik_keys),
            (timelines, keys),
            "{folder}"
        );
        let mut worst = 0.0f64;
        for (ca, cb) in first.scene.clips().iter().zip(again.scene.clips()) {
            assert_eq!(ca.ik.len(), cb.ik.len(), "{folder} {}", ca.name);
            for (ta, tb) in ca.ik.iter().zip(&cb.ik) {
                assert_eq!(ta.constraint, tb.constraint);
                for (ka, kb) in ta.keys.iter().zip(&tb.keys) {
                    assert_eq!(
                        (ka.time, ka.bend_positive, ka.compress, ka.stretch),
                        (kb.time, kb.bend_positive, kb.compress, kb.stretch)
                    );
                }
                for t in ca.frame_times(30.0).unwrap() {
                    let (a, b) = (ta.sample(t).unwrap(), tb.sample(t).unwrap());
                    worst = worst.max((a.mix - b.mix).abs());
                    worst = worst.max((a.softness - b.softness).abs());
                    assert_eq!(a.bend_positive, b.bend_positive);
                }
            }
        }
        println!("{folder}: IK timelines round trip, worst mix/softness difference {worst:e}");
        assert!(worst <= 1e-9, "{folder}: {worst}");
    }
}
