//! Format features real Spine 4.0 / 4.1 / 4.2 (and 3.7) and DragonBones 4.5 / 5.0 / 5.5
//! exports use and the shipped rigs do not, on small hand-written rigs
//! (`tests/data/formats/`): each loads, every weighted mesh of the file is a part (counted
//! here from the raw JSON, not by the importer's code), the artist's rows sum to 1, and the
//! clips are read; what is genuinely unsupported is a typed error naming the field.

use serde_json::Value;
use skinweights::animation::{ChannelKind, Clip, Curve};
use skinweights::io::dragonbones::{import_dragonbones, load_dragonbones, DragonBonesImport};
use skinweights::io::spine::{load_spine, SkinSelection, SpineImport, SpineImportOptions};
use skinweights::skeleton::Inherit;
use skinweights::{weights::Weights, Error};
use skinweights::{FormatError, RigFormat};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/formats/{name}"))
}

fn raw(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(file(name)).unwrap()).unwrap()
}

fn spine(name: &str) -> SpineImport {
    let options = SpineImportOptions::default().with_skin(SkinSelection::All);
    load_spine(file(name), None, &options).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The inherit mode of bone `name` (a Spine bone, so it has local transforms).
fn inherit_of(bones: &[skinweights::skeleton::Bone], name: &str) -> Inherit {
    let bone = bones.iter().find(|b| b.name == name);
    bone.and_then(|b| b.local)
        .unwrap_or_else(|| panic!("no local bone {name}"))
        .inherit
}

fn dragonbones(name: &str) -> DragonBonesImport {
    load_dragonbones(file(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every row non-negative and summing to 1.
fn assert_rows_sum_to_one(w: &Weights) {
    for v in 0..w.vertex_count() {
        let row = w.row(v);
        assert!(row.iter().all(|&x| x >= 0.0), "vertex {v}: {row:?}");
        let sum: f64 = row.iter().sum();
        assert!((sum - 1.0).abs() < 1e-9, "vertex {v} sums to {sum}");
    }
}

fn clip<'a>(clips: &'a [Clip], name: &str) -> &'a Clip {
    clips.iter().find(|c| c.name == name).unwrap()
}

/// `(time, value)` of one channel of one bone in a clip.
fn keys(c: &Clip, bone: &str, kind: ChannelKind) -> Vec<(f64, f64)> {
    let track = c.tracks.iter().find(|t| t.bone == bone).unwrap();
    let channel = track.channels.get(kind).unwrap();
    channel.keys.iter().map(|k| (k.time, k.value)).collect()
}

fn close(a: &[(f64, f64)], b: &[(f64, f64)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(p, q)| (p.0 - q.0).abs() < 1e-9 && (p.1 - q.1).abs() < 1e-9)
}

/// A Spine project's skins as (skin, slot, attachment, value), whether `skins` is the 3.8+
/// array or the 3.7 object.
fn spine_attachments(json: &Value) -> Vec<(String, String, String, Value)> {
    let skins: Vec<(String, &Value)> = match &json["skins"] {
        Value::Array(list) => list
            .iter()
            .map(|s| (s["name"].as_str().unwrap().to_string(), &s["attachments"]))
            .collect(),
        Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), v)).collect(),
        _ => Vec::new(),
    };
    let mut out = Vec::new();
    for (skin, slots) in skins {
        for (slot, atts) in slots.as_object().into_iter().flatten() {
            for (name, a) in atts.as_object().unwrap() {
                out.push((skin.clone(), slot.clone(), name.clone(), a.clone()));
            }
        }
    }
    out
}

/// The weighted mesh attachments of a Spine project, as the import names its parts with
/// every skin: a mesh whose `vertices` outnumber its `uvs`, or a linked mesh whose parent is
/// one.
fn spine_weighted_parts(json: &Value) -> BTreeSet<String> {
    let all = spine_attachments(json);
    let weighted = |a: &Value| {
        a["vertices"].as_array().map_or(0, Vec::len) > a["uvs"].as_array().map_or(0, Vec::len)
    };
    let mut out = BTreeSet::new();
    for (skin, slot, name, a) in &all {
        let is = match a["type"].as_str() {
            Some("mesh") => weighted(a),
            Some("linkedmesh") => {
                let parent_skin = a["skin"].as_str().unwrap_or("default");
                all.iter().any(|(k, s, n, p)| {
                    k == parent_skin
                        && s == slot
                        && Some(n.as_str()) == a["parent"].as_str()
                        && weighted(p)
                })
            }
            _ => false,
        };
        if is {
            let base = if name == slot {
                slot.clone()
            } else {
                format!("{slot}/{name}")
            };
            out.insert(if skin == "default" {
                base
            } else {
                format!("{skin}:{base}")
            });
        }
    }
    out
}

#[test]
fn spine_rigs_load_with_every_weighted_mesh_and_their_clips() {
    for name in [
        "spine40.json",
        "spine41.json",
        "spine42.json",
        "spine37.json",
    ] {
        let json = raw(name);
        let s = spine(name);
        let weighted: BTreeSet<String> = s
            .report
            .attachments
            .iter()
            .filter(|a| a.weighted)
            .map(|a| a.part.clone())
            .collect();
        assert_eq!(weighted, spine_weighted_parts(&json), "{name}");
        assert!(!weighted.is_empty(), "{name}");
        assert_rows_sum_to_one(&s.artist);
        let clips: BTreeSet<&str> = s.scene.clips().iter().map(|c| c.name.as_str()).collect();
        let expected: BTreeSet<&str> = json["animations"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(clips, expected, "{name}");
        assert_eq!(
            s.report.version,
            json["skeleton"]["spine"].as_str().unwrap()
        );
    }
}

#[test]
fn spine_40_bone_modes_curves_and_skipped_kinds() {
    let s = spine("spine40.json");
    let bones = s.scene.skeleton().bones();
    let inherit = |n: &str| inherit_of(bones, n);
    // 4.0 and 4.1 name the mode `transform`.
    assert_eq!(inherit("lower"), Inherit::NoScale);
    assert_eq!(inherit("hand"), Inherit::OnlyTranslation);
    assert!(bones.iter().any(|b| b.name == "胳膊"));
    let swing = clip(s.scene.clips(), "swing");
    assert!(close(
        &keys(swing, "upper", ChannelKind::Rotation),
        &[(0.0, 0.0), (1.0, 45.0)]
    ));
    // Absolute control points (time 0.25 and 0.75 of 0..1, values 0 and 45 of 0..45).
    let track = swing.tracks.iter().find(|t| t.bone == "upper").unwrap();
    let first = track.channels.get(ChannelKind::Rotation).unwrap().keys[0].curve;
    match first {
        Curve::Bezier { x1, y1, x2, y2 } => {
            assert!((x1 - 0.25).abs() < 1e-9 && y1.abs() < 1e-9);
            assert!((x2 - 0.75).abs() < 1e-9 && (y2 - 1.0).abs() < 1e-9);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(swing.ik.len(), 1);
    assert!(close(
        &keys(swing, "lower", ChannelKind::TranslateX),
        &[(0.0, 1.0)]
    ));
    let notes = s.report.notes.join("\n");
    for kind in [
        "clipping clip/clip",
        "boundingbox box/box",
        "path path-slot/p",
        "point empty/pt",
        "deform/sequence (attachment) timelines not applied",
        "draw order timelines not applied",
        "event timelines not applied",
        "slot rgba2 timelines not applied",
        "1 transform constraints not applied",
        "1 path constraints not applied",
    ] {
        assert!(notes.contains(kind), "{kind} in\n{notes}");
    }
    // The linked mesh in skin "alt" takes its parent's vertices from skin "default".
    let part = |n: &str| s.report.attachments.iter().find(|a| a.part == n).unwrap();
    let (arm, linked) = (part("arm"), part("alt:arm/arm-linked"));
    let mesh = s.scene.mesh();
    for (v, w) in arm.vertex_range().zip(linked.vertex_range()) {
        assert_eq!(mesh.vertices()[v], mesh.vertices()[w]);
    }
}

#[test]
fn spine_41_sequences_and_cross_skin_linked_meshes() {
    let s = spine("spine41.json");
    let notes = s.report.notes.join("\n");
    assert!(notes.contains("2 attachments are sequences"), "{notes}");
    assert!(
        notes.contains("slot alpha timelines not applied"),
        "{notes}"
    );
    let part = |n: &str| s.report.attachments.iter().find(|a| a.part == n).unwrap();
    let (coat, outfit) = (part("costume:body/coat"), part("outfit:body/body-outfit"));
    assert_eq!(outfit.kind, "linkedmesh");
    for (v, w) in coat.vertex_range().zip(outfit.vertex_range()) {
        assert_eq!(s.scene.mesh().vertices()[v], s.scene.mesh().vertices()[w]);
        assert_eq!(s.artist.row(v), s.artist.row(w));
    }
    // A stepped key, then 20 at 0.5 s and back (4.x omits `time` 0 and `value` 0).
    let idle = clip(s.scene.clips(), "idle");
    assert!(close(
        &keys(idle, "a", ChannelKind::Rotation),
        &[(0.0, 0.0), (0.5, 20.0), (1.0, 0.0)]
    ));
}

#[test]
fn spine_42_inherit_physics_and_unicode_names() {
    let s = spine("spine42.json");
    let bones = s.scene.skeleton().bones();
    let inherit = |n: &str| inherit_of(bones, n);
    assert_eq!(inherit("spine"), Inherit::NoScaleOrReflection);
    assert_eq!(inherit("head"), Inherit::NoRotationOrReflection);
    assert_eq!(inherit("tail"), Inherit::NoScale);
    assert!(s
        .report
        .attachments
        .iter()
        .any(|a| a.part == "尾巴" && a.weighted));
    let notes = s.report.notes.join("\n");
    for kind in [
        "1 physics constraints not applied",
        "physics constraint timelines not applied",
        "bone inherit timelines not applied",
    ] {
        assert!(notes.contains(kind), "{kind} in\n{notes}");
    }
    let walk = clip(s.scene.clips(), "walk");
    assert!((walk.duration - 0.8).abs() < 1e-12);
    assert!(close(
        &keys(walk, "tail", ChannelKind::TranslateX),
        &[(0.0, 0.0), (0.4, 2.0)]
    ));
}

#[test]
fn spine_37_object_skins_and_normalized_curves() {
    let s = spine("spine37.json");
    assert_eq!(s.report.skins, ["default", "other"]);
    let bend = clip(s.scene.clips(), "bend");
    assert!(close(
        &keys(bend, "b", ChannelKind::Rotation),
        &[(0.0, 0.0), (0.5, 40.0), (1.0, 0.0)]
    ));
    let track = bend.tracks.iter().find(|t| t.bone == "b").unwrap();
    let rotate = &track.channels.get(ChannelKind::Rotation).unwrap().keys;
    assert_eq!(
        rotate[0].curve,
        Curve::Bezier {
            x1: 0.25,
            y1: 0.0,
            x2: 0.75,
            y2: 1.0
        }
    );
    assert_eq!(rotate[1].curve, Curve::Stepped);
    let translate = &track.channels.get(ChannelKind::TranslateX).unwrap().keys;
    assert_eq!(
        translate[0].curve,
        Curve::Bezier {
            x1: 0.3,
            y1: 0.0,
            x2: 0.7,
            y2: 1.0
        }
    );
}

/// Mesh displays of an armature over every skin (`share` ones included), from the raw JSON.
fn dragonbones_mesh_displays(armature: &Value) -> usize {
    armature["skin"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["slot"].as_array().into_iter().flatten())
        .flat_map(|s| s["display"].as_array().into_iter().flatten())
        .filter(|d| d["type"] == "mesh")
        .count()
}

#[test]
fn dragonbones_rigs_load_with_every_mesh_display_and_their_clips() {
    for (name, armature) in [
        ("db55_ske.json", 1),
        ("db50_ske.json", 0),
        ("db45_ske.json", 0),
    ] {
        let json = raw(name);
        let a = &json["armature"][armature];
        let d = dragonbones(name);
        assert_eq!(d.report.armature, a["name"].as_str().unwrap(), "{name}");
        assert_eq!(
            d.report.meshes.len(),
            dragonbones_mesh_displays(a),
            "{name}"
        );
        assert_rows_sum_to_one(&d.artist);
        let clips: Vec<&str> = d.scene.clips().iter().map(|c| c.name.as_str()).collect();
        let expected: Vec<&str> = a["animation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(clips, expected, "{name}");
    }
}

#[test]
fn dragonbones_55_armature_choice_skins_and_shared_meshes() {
    let d = dragonbones("db55_ske.json");
    let parts: Vec<(&str, &str, bool)> = d
        .report
        .meshes
        .iter()
        .map(|m| (m.part.as_str(), m.display.as_str(), m.weighted))
        .collect();
    assert_eq!(
        parts,
        [
            ("arm", "arm", true),
            ("arm#2", "arm_b", true),
            ("hand", "hand_mesh", false),
            ("alt:arm", "arm_alt", true),
            ("alt:hand", "hand_alt", true),
        ]
    );
    let notes = d.report.notes.join("\n");
    assert!(
        notes.contains("imported \"hero\", the first with a mesh display; not \"effect\""),
        "{notes}"
    );
    // Shared meshes take the named mesh's geometry and weights.
    let m = |p: &str| d.report.meshes.iter().find(|m| m.part == p).unwrap();
    for shared in ["arm#2", "alt:arm"] {
        for (v, w) in m("arm").vertex_range().zip(m(shared).vertex_range()) {
            assert_eq!(d.scene.mesh().vertices()[v], d.scene.mesh().vertices()[w]);
            assert_eq!(d.artist.row(v), d.artist.row(w));
        }
    }
    for kind in [
        "1 IK constraints not applied",
        "mesh deform (ffd) timelines not applied: swing",
        "slot (display, colour) timelines not applied: swing",
    ] {
        assert!(notes.contains(kind), "{kind} in\n{notes}");
    }
}

#[test]
fn dragonbones_55_curves_easings_and_turns() {
    let d = dragonbones("db55_ske.json");
    let swing = clip(d.scene.clips(), "swing");
    let f = |n: f64| n / 30.0;
    assert!((swing.duration - f(20.0)).abs() < 1e-12);
    // The two-piece curve of the second frame splits its segment at the join (0.5, 0.5).
    assert!(close(
        &keys(swing, "upper", ChannelKind::TranslateX),
        &[(0.0, 0.0), (f(10.0), 10.0), (f(15.0), 5.0), (f(20.0), 0.0)]
    ));
    assert!(close(
        &keys(swing, "upper", ChannelKind::TranslateY),
        &[(0.0, 0.0), (f(10.0), -5.0), (f(15.0), -2.5), (f(20.0), 0.0)]
    ));
    let track = swing.tracks.iter().find(|t| t.bone == "upper").unwrap();
    let x = track.channels.get(ChannelKind::TranslateX).unwrap();
    let piece = Curve::Bezier {
        x1: 0.4,
        y1: 0.0,
        x2: 0.6,
        y2: 1.0,
    };
    for k in [1, 2] {
        match x.keys[k].curve {
            Curve::Bezier { x1, y1, x2, y2 } => {
                let Curve::Bezier {
                    x1: a1,
                    y1: b1,
                    x2: a2,
                    y2: b2,
                } = piece
                else {
                    unreachable!()
                };
                let d = [x1 - a1, y1 - b1, x2 - a2, y2 - b2];
                assert!(d.iter().all(|e| e.abs() < 1e-12), "key {k}: {d:?}");
            }
            other => panic!("key {k}: {other:?}"),
        }
    }
    // tweenEasing 2: DragonBones' sine in-out, ½(1 - cos πu), within 0.3% of the segment.
    for u in [0.1, 0.25, 0.5, 0.75, 0.9] {
        let sampled = x.sample(u * f(10.0)).unwrap();
        let sine = 10.0 * 0.5 * (1.0 - (std::f64::consts::PI * u).cos());
        assert!((sampled - sine).abs() < 0.03, "u {u}: {sampled} vs {sine}");
    }
    // clockwise -1 turns counter-clockwise on screen from 0 to 90 (y down): -270; then the
    // short way to -90. y-up rotations are the negated angles.
    assert!(close(
        &keys(swing, "upper", ChannelKind::Rotation),
        &[(0.0, 0.0), (f(10.0), 270.0), (f(20.0), 90.0)]
    ));
}

#[test]
fn dragonbones_50_frame_lists_with_tween_rotate() {
    let d = dragonbones("db50_ske.json");
    let wave = clip(d.scene.clips(), "wave");
    let r = keys(wave, "a", ChannelKind::Rotation);
    // tweenRotate 1 from 0 to -30 (y down) turns clockwise on screen: +330, then the short
    // way back to 0 (+30); y up negates. The setup rotation is a constant offset (rebased).
    assert_eq!(r.len(), 3);
    assert!((r[1].1 - r[0].1 + 330.0).abs() < 1e-9, "{r:?}");
    assert!((r[2].1 - r[1].1 + 30.0).abs() < 1e-9, "{r:?}");
}

#[test]
fn dragonbones_unsupported_data_is_a_typed_error_naming_the_field() {
    /// The second whole-transform frame of the first bone timeline.
    fn frame(j: &mut Value) -> &mut Value {
        &mut j["armature"][0]["animation"][0]["bone"][0]["frame"][1]
    }
    let text = std::fs::read_to_string(file("db45_ske.json")).unwrap();
    let field_of = |edit: &dyn Fn(&mut Value)| -> (String, String) {
        let mut json: Value = serde_json::from_str(&text).unwrap();
        edit(&mut json);
        match import_dragonbones(&json.to_string()) {
            Err(Error::Format(FormatError::Rig {
                format: RigFormat::DRAGONBONES,
                field,
                message,
                ..
            })) => (field, message),
            other => panic!("{:?}", other.map(|d| d.report)),
        }
    };
    // Global transforms (DragonBones 4.x `isGlobal` 1) are refused, not misplaced.
    let (field, message) = field_of(&|j| j["isGlobal"] = Value::from(1));
    assert_eq!(field, "isGlobal");
    assert!(message.contains("global"), "{message}");
    // An absent flag reads as relative, as the 5.x runtimes read 4.5 data.
    let mut json: Value = serde_json::from_str(&text).unwrap();
    json.as_object_mut().unwrap().remove("isGlobal");
    assert!(import_dragonbones(&json.to_string()).is_ok());
    // A curve that is not Bézier pieces, and an easing beyond DragonBones' range.
    let (field, _) =
        field_of(&|j| frame(j)["curve"] = serde_json::json!([0.1, 0.2, 0.3, 0.4, 0.5]));
    assert_eq!(field, "frame[1].curve");
    let (field, _) = field_of(&|j| {
        let f = frame(j);
        f.as_object_mut().unwrap().remove("curve");
        f["tweenEasing"] = Value::from(3);
    });
    assert_eq!(field, "frame[1].tweenEasing");
    // Joins out of time order.
    let (field, message) = field_of(&|j| {
        frame(j)["curve"] = serde_json::json!([
            0.1, 0.2, 0.3, 0.4, 0.6, 0.5, 0.2, 0.5, 0.3, 0.6, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0
        ])
    });
    assert_eq!(field, "frame[1].curve");
    assert!(message.contains("time order"), "{message}");
}

#[test]
fn dragonbones_unresolved_share_is_left_out_and_named() {
    let mut json = raw("db55_ske.json");
    json["armature"][1]["skin"][1]["slot"][0]["display"][0]["share"] = Value::from("nothing");
    let d = import_dragonbones(&json.to_string()).unwrap();
    assert_eq!(d.report.meshes.len(), 4);
    let notes = d.report.notes.join("\n");
    assert!(
        notes.contains("1 shared meshes name no mesh of their slot") && notes.contains("arm_alt"),
        "{notes}"
    );
}

#[test]
fn dragonbones_armature_without_skins_is_a_typed_error() {
    // An empty skin list once indexed its first skin (found by fuzz_dragonbones).
    for skins in ["[]", "[{}]", "[{\"name\": \"alt\"}]"] {
        let text = format!(
            r#"{{"armature": [{{"name": "a", "bone": [{{"name": "root"}}], "skin": {skins}}}]}}"#
        );
        match import_dragonbones(&text) {
            Err(Error::Format(FormatError::Rig {
                format: RigFormat::DRAGONBONES,
                field,
                message,
                ..
            })) => {
                assert_eq!(
                    (field.as_str(), message.as_str()),
                    ("skin", "no mesh display to import")
                );
            }
            other => panic!("{skins}: {:?}", other.map(|d| d.report)),
        }
    }
}

#[test]
fn dragonbones_zero_frame_rate_surfaces_and_value_timelines_load_noted() {
    let mut json = raw("db50_ske.json");
    json["frameRate"] = Value::from(0);
    let armature = &mut json["armature"][0];
    armature["bone"].as_array_mut().unwrap().push(
        serde_json::json!({"name": "lattice", "type": "surface", "segmentX": 2, "segmentY": 2}),
    );
    armature["animation"][0]["timeline"] = serde_json::json!([{"name": "lattice", "type": 50}]);
    let d = import_dragonbones(&json.to_string()).unwrap();
    // 24 frames at DragonBones' default 24 fps.
    assert!((d.scene.clips()[0].duration - 1.0).abs() < 1e-12);
    let notes = d.report.notes.join("\n");
    for kind in [
        "frameRate 0 read as 24",
        "1 surface bones read as plain bones",
        "value timelines (5.6 and later) not applied: wave",
    ] {
        assert!(notes.contains(kind), "{kind} in\n{notes}");
    }
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["spine42.json", "db55_ske.json"] {
        let text = std::fs::read_to_string(file(name)).unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, format!("\u{feff}{text}")).unwrap();
        let loaded = if name.starts_with("spine") {
            let options = SpineImportOptions::default().with_skin(SkinSelection::All);
            load_spine(&path, None, &options).map(|s| s.report.attachments.len())
        } else {
            load_dragonbones(&path).map(|d| d.report.meshes.len())
        };
        assert!(loaded.unwrap() > 0, "{name}");
    }
}
