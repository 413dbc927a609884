//! DragonBones import and export on the shipped character (`data/dragonbones-you-xin`), and
//! bad input.

use crate::common;
use skinweights::{FormatError, RigFormat, SkeletonError};

use common::max_abs_diff;
use serde_json::Value;
use skinweights::io::dragonbones::{import_dragonbones, load_dragonbones, DragonBonesImport};
use skinweights::io::ExportOptions;
use skinweights::io::ZERO_LENGTH_TAIL;
use skinweights::scene::SubScene;
use skinweights::{metrics, skeleton::Pose, skinning::linear_blend_skinning, Error};
use std::process::Command;

const BODY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/dragonbones-you-xin/body_ske.json"
);

fn body_text() -> String {
    std::fs::read_to_string(BODY).unwrap()
}

fn body() -> DragonBonesImport {
    load_dragonbones(BODY).unwrap()
}

/// Weighted mesh displays of the raw file: (slot name, display JSON).
fn raw_meshes(raw: &Value) -> Vec<(String, Value)> {
    raw["armature"][0]["skin"][0]["slot"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| {
            s["display"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["type"] == "mesh")
                .map(|d| (s["name"].as_str().unwrap().to_string(), d.clone()))
        })
        .collect()
}

fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn body_has_seven_weighted_meshes_with_330_vertices() {
    let imp = body();
    imp.scene.sanity_check().unwrap();
    let meshes = &imp.report.meshes;
    assert_eq!(meshes.len(), 7);
    assert!(meshes.iter().all(|m| m.weighted));
    assert_eq!(meshes.iter().map(|m| m.vertices).sum::<usize>(), 330);
    assert_eq!(imp.scene.mesh().vertex_count(), 330);
    assert_eq!(imp.scene.mesh().triangle_count(), 418);
    assert_eq!(imp.scene.mesh().parts().len(), 7);
    assert_eq!(imp.scene.skeleton().len(), 70);
    let counts: Vec<(&str, usize)> = meshes
        .iter()
        .map(|m| (m.part.as_str(), m.vertices))
        .collect();
    assert_eq!(
        counts,
        [
            ("a_leg_L", 43),
            ("1046", 73),
            ("a_arm_L", 46),
            ("a_body", 74),
            ("a_head", 19),
            ("a_arm_R", 35),
            ("a_leg_R", 40)
        ]
    );
    // 15 triangles are clockwise after the y flip (the file mixes windings) and get reversed.
    assert_eq!(
        meshes.iter().map(|m| m.reoriented_triangles).sum::<usize>(),
        15
    );
    // The artist's bones per mesh (for scoring solvers with the same bones).
    let arm = meshes.iter().find(|m| m.part == "a_arm_L").unwrap();
    assert_eq!(arm.bones, ["spine2", "upperarm_l", "hand_l", "forearm_l"]);
    let body = meshes.iter().find(|m| m.part == "a_body").unwrap();
    assert_eq!(body.bones.len(), 10);
}

#[test]
fn artist_rows_sum_to_one() {
    let imp = body();
    assert!(imp.artist.normalization_error() < 1e-6);
    imp.artist.validate_with_tolerance(1e-6).unwrap();
    // The file rounds its weights: rows were off by up to 3e-5 before normalizing.
    let worst = imp
        .report
        .meshes
        .iter()
        .map(|m| m.max_row_sum_error)
        .fold(0.0, f64::max);
    assert!(worst > 1e-6 && worst < 1e-4, "{worst}");
    assert_eq!(imp.artist_file().solver, "artist");
}

/// Checks where the vertices are placed (`slotPose · v`, y flipped); skinning at rest is the
/// identity for any weights and bones, so the bones are checked by the posed tests below.
#[test]
fn rest_pose_skinning_reproduces_the_file_positions() {
    let imp = body();
    let raw: Value = serde_json::from_str(&body_text()).unwrap();
    let posed = linear_blend_skinning(
        imp.scene.mesh().vertices(),
        imp.scene.skeleton(),
        &imp.artist,
        &Pose::rest(),
    )
    .unwrap();
    let mut worst: f64 = 0.0;
    let mut checked = 0;
    for (slot, d) in raw_meshes(&raw) {
        let m = imp.report.meshes.iter().find(|m| m.slot == slot).unwrap();
        let sp = nums(&d["slotPose"]);
        let v = nums(&d["vertices"]);
        assert_eq!(v.len() / 2, m.vertices);
        for (i, c) in v.chunks(2).enumerate() {
            // slotPose maps the slot frame to armature space; then y-down -> y-up.
            let x = sp[0] * c[0] + sp[2] * c[1] + sp[4];
            let y = sp[1] * c[0] + sp[3] * c[1] + sp[5];
            let p = posed[m.first_vertex + i];
            worst = worst.max((p.x - x).hypot(p.y + y));
            checked += 1;
        }
    }
    assert_eq!(checked, 330);
    assert!(worst < 1e-3, "worst {worst}");
}

#[test]
fn report_names_bones_whose_setup_differs_from_bind() {
    let imp = body();
    let d = &imp.report.bind_differs;
    // Every one of the 21 bound bones: the pelvis was moved after binding, so all of its
    // descendants differ in world space.
    assert_eq!(d.len(), 21);
    let pelvis = d.iter().find(|b| b.bone == "pelvis").unwrap();
    assert!(
        (pelvis.position - 14.583).abs() < 1e-3,
        "{}",
        pelvis.position
    );
    assert!(pelvis.angle_deg.abs() < 1e-6);
    // Five changed their own transform; the rest follow a parent.
    let mut local: Vec<&str> = d
        .iter()
        .filter(|b| b.local)
        .map(|b| b.bone.as_str())
        .collect();
    local.sort_unstable();
    assert_eq!(local, ["foot_l", "foot_r", "hand_r", "pelvis", "thigh_l"]);
    let hand = d.iter().find(|b| b.bone == "hand_r").unwrap();
    assert!((hand.angle_deg + 16.612).abs() < 1e-3, "{}", hand.angle_deg);
    // The rest skeleton is the bind pose: pelvis head at bonePose (-107.18, -913), flipped.
    let sk = imp.scene.skeleton();
    let p = &sk.bones()[sk.index_of("pelvis").unwrap()];
    assert!((p.head.x + 107.18).abs() < 1e-9 && (p.head.y - 913.0).abs() < 1e-9);
    // Zero-length bones keep a 1 px tail along their x axis.
    assert!((p.length() - 1.0).abs() < 1e-12);
}

#[test]
fn lift_probes_swing_the_arms_out_and_the_artist_keeps_the_body_still() {
    let imp = body();
    let scene = &imp.scene;
    let names: Vec<&str> = scene.probes().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["lift_l", "lift_r"]);
    for (probe, bone, deg) in [
        ("lift_l", "upperarm_l", -90.0),
        ("lift_r", "upperarm_r", 90.0),
    ] {
        let p = scene.probe(Some(probe)).unwrap();
        assert_eq!(p.pose.rotations.get(bone), Some(&deg));
        assert_eq!(p.watch.part.as_deref(), Some("a_body"));
        let watched = p.watched_vertices(scene).unwrap();
        // Body vertices beyond one upper-arm length from the shoulder: 28 (left), 34 (right).
        let expected = if probe == "lift_l" { 28 } else { 34 };
        assert_eq!(watched.len(), expected, "{probe}");
        // The elbow moves away from the body's centre line.
        let sk = scene.skeleton();
        let j = sk.index_of(bone).unwrap();
        let rest = sk.posed_segments(&Pose::rest()).unwrap()[j][1];
        let lifted = sk.posed_segments(&p.pose).unwrap()[j][1];
        assert!(lifted.x.abs() > rest.x.abs() + 100.0 || (lifted.x - rest.x).abs() > 100.0);
        // The artist never weights the body to an arm: no drag.
        let m = metrics::evaluate(scene, &imp.artist, p).unwrap();
        assert!(m.drag_max_pct < 1e-9, "{probe}: {}", m.drag_max_pct);
    }
}

#[test]
fn every_solver_gives_valid_weights_on_the_import() {
    let imp = body();
    for name in skinweights::solvers::SOLVER_NAMES
        .iter()
        .chain(&["heat+mask"])
    {
        let w = skinweights::solvers::solve(&imp.scene, name).unwrap();
        w.validate().unwrap();
        assert_eq!(w.vertex_count(), 330);
    }
}

#[test]
fn export_then_import_round_trips_weights_and_positions() {
    let imp = body();
    let doc = common::export_json(
        "dragonbones",
        &imp.scene,
        &imp.artist,
        &ExportOptions::default(),
    )
    .unwrap();
    assert_eq!(doc["version"], "5.5");
    let again = import_dragonbones(&doc.to_string()).unwrap();
    let (a, b) = (&imp.scene, &again.scene);
    assert_eq!(b.mesh().vertex_count(), 330);
    assert_eq!(a.mesh().parts(), b.mesh().parts());
    assert_eq!(a.mesh().triangle_count(), b.mesh().triangle_count());
    let pos = a
        .mesh()
        .vertices()
        .iter()
        .zip(b.mesh().vertices())
        .map(|(p, q)| (p - q).norm())
        .fold(0.0, f64::max);
    assert!(pos < 1e-6, "positions {pos}");
    assert_eq!(a.skeleton().names(), b.skeleton().names());
    let bones = a
        .skeleton()
        .bones()
        .iter()
        .zip(b.skeleton().bones())
        .map(|(x, y)| (x.head - y.head).norm().max((x.tail - y.tail).norm()))
        .fold(0.0, f64::max);
    assert!(bones < 1e-6, "bones {bones}");
    let w = max_abs_diff(imp.artist.as_slice(), again.artist.as_slice());
    assert!(w < 1e-6, "weights {w}");
    // Re-exported bind poses equal the setup transforms: nothing differs any more.
    assert!(again.report.bind_differs.is_empty());
    // Zero-length bones (pivots like pelvis) are written with their 1 px tail as length 1:
    // the scene cannot tell them from a real 1 px bone, and the round trip keeps the
    // geometry the same (the length-0 file and the length-1 file import to one skeleton).
    let raw: Value = serde_json::from_str(&body_text()).unwrap();
    let length = |doc: &Value, bone: &str| {
        doc["armature"][0]["bone"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == bone)
            .unwrap()["length"]
            .as_f64()
            .unwrap_or(0.0)
    };
    assert_eq!(length(&raw, "pelvis"), 0.0);
    assert_eq!(length(&doc, "pelvis"), ZERO_LENGTH_TAIL);
    let pelvis = b.skeleton().index_of("pelvis").unwrap();
    assert_eq!(b.skeleton().bones()[pelvis].length(), ZERO_LENGTH_TAIL);
    // Heat weights export too, and re-import to the same values.
    let heat = skinweights::solvers::solve(&imp.scene, "heat").unwrap();
    let doc =
        common::export_json("dragonbones", &imp.scene, &heat, &ExportOptions::default()).unwrap();
    let back = import_dragonbones(&doc.to_string()).unwrap();
    let w = max_abs_diff(heat.as_slice(), back.artist.as_slice());
    assert!(w < 1e-6, "heat weights {w}");
}

/// The file with one edit to the `a_body` mesh display.
fn with_body_mesh(edit: impl FnOnce(&mut serde_json::Map<String, Value>)) -> String {
    let mut raw: Value = serde_json::from_str(&body_text()).unwrap();
    let slots = raw["armature"][0]["skin"][0]["slot"]
        .as_array_mut()
        .unwrap();
    let slot = slots.iter_mut().find(|s| s["name"] == "a_body").unwrap();
    edit(slot["display"][0].as_object_mut().unwrap());
    raw.to_string()
}

fn dragonbones_error(text: &str) -> (String, String, Option<usize>, String) {
    match import_dragonbones(text) {
        Err(Error::Format(FormatError::Rig {
            format: RigFormat::DRAGONBONES,
            context,
            field,
            vertex,
            message,
        })) => (context, field, vertex, message),
        other => panic!("expected a DragonBones error, got {other:?}"),
    }
}

#[test]
fn bad_input_is_a_typed_error_naming_the_field() {
    // Missing field.
    let (context, field, _, message) = dragonbones_error(&with_body_mesh(|d| {
        d.remove("triangles");
    }));
    assert!(context.contains("a_body"), "{context}");
    assert_eq!(field, "triangles");
    assert_eq!(message, "missing");

    // Bone index out of range in the weights (vertex 0's first bone).
    let (context, field, vertex, message) = dragonbones_error(&with_body_mesh(|d| {
        d.get_mut("weights").unwrap()[1] = Value::from(999);
    }));
    assert!(context.contains("a_body"));
    assert_eq!((field.as_str(), vertex), ("weights", Some(0)));
    assert!(
        message.contains("999") && message.contains("70 bones"),
        "{message}"
    );

    // Bone index out of range in bonePose.
    let (_, field, _, _) = dragonbones_error(&with_body_mesh(|d| {
        d.get_mut("bonePose").unwrap()[0] = Value::from(70);
    }));
    assert_eq!(field, "bonePose");

    // Weights for fewer vertices than the mesh has: names the vertex where they run out.
    let (_, field, vertex, _) = dragonbones_error(&with_body_mesh(|d| {
        let w = d.get_mut("weights").unwrap().as_array_mut().unwrap();
        w.truncate(w.len() - 3);
    }));
    assert_eq!((field.as_str(), vertex), ("weights", Some(73)));

    // Weights for more vertices than the mesh has.
    let (_, field, vertex, message) = dragonbones_error(&with_body_mesh(|d| {
        let w = d.get_mut("weights").unwrap().as_array_mut().unwrap();
        w.extend([Value::from(1), Value::from(5), Value::from(1.0)]);
    }));
    assert_eq!((field.as_str(), vertex), ("weights", None));
    assert!(message.contains("3 numbers left over"), "{message}");

    // A triangle index past the vertices.
    let (_, field, _, message) = dragonbones_error(&with_body_mesh(|d| {
        d.get_mut("triangles").unwrap()[0] = Value::from(74);
    }));
    assert_eq!(field, "triangles");
    assert!(message.contains("vertex 74"), "{message}");

    // Odd vertex array.
    let (_, field, _, _) = dragonbones_error(&with_body_mesh(|d| {
        d.get_mut("vertices").unwrap().as_array_mut().unwrap().pop();
    }));
    assert_eq!(field, "vertices");

    // A weight naming a bone that is not in bonePose.
    let (_, field, vertex, message) = dragonbones_error(&with_body_mesh(|d| {
        d.get_mut("weights").unwrap()[1] = Value::from(0);
    }));
    assert_eq!((field.as_str(), vertex), ("weights", Some(0)));
    assert!(message.contains("\"root\""), "{message}");

    // Not JSON at all, and a bone with an unknown parent.
    assert!(matches!(
        import_dragonbones("{"),
        Err(Error::Format(FormatError::Json { .. }))
    ));
    let mut raw: Value = serde_json::from_str(&body_text()).unwrap();
    raw["armature"][0]["bone"][3]["parent"] = Value::from("nobody");
    assert!(matches!(
        import_dragonbones(&raw.to_string()),
        Err(Error::Skeleton(SkeletonError::UnknownParent { .. }))
    ));
}

#[test]
fn unweighted_mesh_is_attached_to_its_slot_bone() {
    // A root bone and a child rotated 90 degrees (y-down) with a square mesh in its slot.
    let text = r#"{"version": "5.5", "armature": [{"name": "sq",
        "bone": [{"name": "root"},
                 {"name": "arm", "parent": "root", "length": 10,
                  "transform": {"x": 100, "y": -50, "skX": 90, "skY": 90}}],
        "slot": [{"name": "s", "parent": "arm"}],
        "skin": [{"slot": [{"name": "s", "display": [{"type": "mesh", "name": "sq",
            "vertices": [0, 0, 10, 0, 10, 10, 0, 10], "uvs": [0,0,1,0,1,1,0,1],
            "triangles": [0, 1, 2, 0, 2, 3]}]}]}]}]}"#;
    let imp = import_dragonbones(text).unwrap();
    let m = &imp.report.meshes[0];
    assert!(!m.weighted);
    assert_eq!(m.bones, ["arm"]);
    let arm = imp.scene.skeleton().index_of("arm").unwrap();
    for v in 0..4 {
        assert_eq!(imp.artist.get(v, arm), 1.0);
    }
    // Slot frame (10, 0) -> rotated 90 deg (y-down) about (100, -50) -> (100, -40) -> y-up.
    let p = imp.scene.mesh().vertices()[1];
    assert!(
        (p.x - 100.0).abs() < 1e-9 && (p.y - 40.0).abs() < 1e-9,
        "{p}"
    );
    // The arm bone points down in y-up (rotated +90 in y-down), 10 px long.
    let b = &imp.scene.skeleton().bones()[arm];
    assert!((b.tail.x - 100.0).abs() < 1e-9 && (b.tail.y - 40.0).abs() < 1e-9);
    // The root binds nothing: no part, no influence under masking.
    let root = &imp.scene.skeleton().bones()[0];
    assert_eq!(root.part, None);
    assert_eq!(root.influences.as_deref(), Some(&[][..]));
    assert!(imp
        .report
        .notes
        .iter()
        .any(|n| n.contains("no upper-arm bone")));
}

#[test]
fn cli_imports_and_exports_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("body.json");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_skinweights"))
            .args(args)
            .output()
            .unwrap()
    };
    let s = scene.to_str().unwrap();
    let o = run(&["import", "dragonbones", BODY, "-o", s]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("7 meshes") && out.contains("21 bones have a setup"),
        "{out}"
    );
    let artist = dir.path().join("body.artist.json");
    assert!(artist.exists());
    let again = run(&["import", "dragonbones", BODY, "-o", s]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    let exported = dir.path().join("body_ske.json");
    let e = exported.to_str().unwrap();
    let o = run(&[
        "export",
        "dragonbones",
        s,
        artist.to_str().unwrap(),
        "-o",
        e,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let back = load_dragonbones(&exported).unwrap();
    assert_eq!(back.scene.mesh().vertex_count(), 330);
    let o = run(&[
        "export",
        "dragonbones",
        s,
        artist.to_str().unwrap(),
        "-o",
        e,
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&[
        "import",
        "dragonbones",
        "/nonexistent_ske.json",
        "-o",
        e,
        "--force",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn each_mesh_cut_out_with_the_artist_bones_solves_and_scatters_back() {
    let imp = body();
    let mut combined =
        skinweights::weights::Weights::zeros_unchecked(330, imp.scene.skeleton().len());
    for m in &imp.report.meshes {
        let sub = SubScene::new(&imp.scene, &m.part, &m.bones).unwrap();
        sub.scene.sanity_check().unwrap();
        assert_eq!(sub.scene.mesh().vertex_count(), m.vertices);
        assert_eq!(sub.vertices, m.vertex_range().collect::<Vec<_>>());
        assert_eq!(sub.scene.skeleton().names(), m.bones);
        // The artist's rows only use these bones: restricting loses nothing.
        let artist = sub.restrict(&imp.artist).unwrap();
        sub.scatter(&artist, &mut combined).unwrap();
        for name in skinweights::solvers::SOLVER_NAMES
            .iter()
            .chain(&["heat+mask"])
        {
            let w = skinweights::solvers::solve(&sub.scene, name).unwrap();
            w.validate().unwrap();
        }
    }
    assert!(max_abs_diff(combined.as_slice(), imp.artist.as_slice()) < 1e-12);
    // Kept bones hang from their nearest kept ancestor: forearm_l under upperarm_l, hand_l
    // (a child of spine2 in the file) under spine2.
    let arm = SubScene::new(
        &imp.scene,
        "a_arm_L",
        &[
            "hand_l".into(),
            "forearm_l".into(),
            "upperarm_l".into(),
            "spine2".into(),
        ],
    )
    .unwrap();
    let sk = arm.scene.skeleton();
    let parent = |b: &str| {
        sk.bones()[sk.index_of(b).unwrap()]
            .parent
            .map(|p| sk.bones()[p].name.clone())
    };
    assert_eq!(parent("forearm_l").as_deref(), Some("upperarm_l"));
    assert_eq!(parent("upperarm_l").as_deref(), Some("spine2"));
    assert_eq!(parent("spine2"), None);
    assert!(matches!(
        SubScene::new(&imp.scene, "tail", &["spine".into()]),
        Err(Error::Skeleton(SkeletonError::UnknownPart { .. }))
    ));
}

/// Share of vertices whose largest weight is on the same bone in both weight sets.
fn dominant_agreement(a: &skinweights::weights::Weights, b: &skinweights::weights::Weights) -> f64 {
    let (da, db) = (a.dominant_bones(), b.dominant_bones());
    da.iter().zip(&db).filter(|(x, y)| x == y).count() as f64 / da.len() as f64
}

/// The artist_agreement experiment's findings, as checks: with the artist's per-mesh bone
/// lists, heat picks the artist's dominant bone on about three vertices in four and leaves the
/// body still when an arm lifts; without them (the whole character, all 70 bones) agreement
/// collapses and Euclidean falloff drags the body more than heat does.
#[test]
fn solvers_against_the_artist() {
    let imp = body();
    let scene = &imp.scene;
    let mut per_mesh = skinweights::weights::Weights::zeros_unchecked(330, scene.skeleton().len());
    for m in &imp.report.meshes {
        let sub = SubScene::new(scene, &m.part, &m.bones).unwrap();
        let w = skinweights::solvers::solve(&sub.scene, "heat").unwrap();
        sub.scatter(&w, &mut per_mesh).unwrap();
    }
    per_mesh.validate().unwrap();
    let agree = dominant_agreement(&per_mesh, &imp.artist);
    assert!(agree > 0.70, "per-mesh heat agrees on {agree}");

    let whole_heat = skinweights::solvers::solve(scene, "heat").unwrap();
    let whole_euclidean = skinweights::solvers::solve(scene, "euclidean").unwrap();
    let whole_agree = dominant_agreement(&whole_heat, &imp.artist);
    assert!(
        whole_agree < 0.5,
        "whole-character heat agrees on {whole_agree}"
    );

    let lift = scene.probe(Some("lift_l")).unwrap();
    let drag = |w: &skinweights::weights::Weights| metrics::drag(scene, w, lift).unwrap().max_pct();
    assert!(drag(&imp.artist) < 1e-9);
    assert!(drag(&per_mesh) < 1e-9);
    assert!(drag(&whole_euclidean) > 1.0, "{}", drag(&whole_euclidean));
    assert!(drag(&whole_heat) < 0.2 * drag(&whole_euclidean));
}

// ---- Posed skinning against DragonBones' own formula, in the file's y-down frame ----

/// A 2x3 matrix in DragonBones' layout `[a, b, c, d, tx, ty]`:
/// `x' = a·x + c·y + tx`, `y' = b·x + d·y + ty`.
type M = [f64; 6];

const ID: M = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// `m · n` (apply `n` first).
fn mul(m: M, n: M) -> M {
    [
        m[0] * n[0] + m[2] * n[1],
        m[1] * n[0] + m[3] * n[1],
        m[0] * n[2] + m[2] * n[3],
        m[1] * n[2] + m[3] * n[3],
        m[0] * n[4] + m[2] * n[5] + m[4],
        m[1] * n[4] + m[3] * n[5] + m[5],
    ]
}

fn inv(m: M) -> M {
    let det = m[0] * m[3] - m[1] * m[2];
    let (a, b, c, d) = (m[3] / det, -m[1] / det, -m[2] / det, m[0] / det);
    [a, b, c, d, -(a * m[4] + c * m[5]), -(b * m[4] + d * m[5])]
}

fn apply(m: M, x: f64, y: f64) -> [f64; 2] {
    [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]]
}

/// DragonBones' rotation matrix for `deg` (y-down: turns +x towards +y).
fn rot(deg: f64) -> M {
    let (s, c) = deg.to_radians().sin_cos();
    [c, s, -s, c, 0.0, 0.0]
}

/// Every weighted mesh vertex of a DragonBones document posed by `rotations` (scene degrees,
/// counter-clockwise in y-up, about each bone's head), computed straight from the file in
/// its y-down frame: `v_world = Σ w_i · boneWorld_i · bonePose_i⁻¹ · slotPose · v`, with
/// `boneWorld_i = boneWorld_parent · bonePose_parent⁻¹ · bonePose_i · R(-θ_i)` (a y-up
/// counter-clockwise turn is a y-down `R(-θ)`); a bone no mesh binds moves with its parent.
/// Rows are normalized as the importer does (the file rounds them). Returns, per mesh in
/// file order, (slot name, positions).
fn dragonbones_formula(raw: &Value, rotations: &[(&str, f64)]) -> Vec<(String, Vec<[f64; 2]>)> {
    let armature = &raw["armature"][0];
    let bones = armature["bone"].as_array().unwrap();
    let names: Vec<&str> = bones.iter().map(|b| b["name"].as_str().unwrap()).collect();
    let parent: Vec<Option<usize>> = bones
        .iter()
        .map(|b| {
            b["parent"]
                .as_str()
                .map(|p| names.iter().position(|n| *n == p).unwrap())
        })
        .collect();
    let meshes = raw_meshes(raw);
    let mut bind: Vec<Option<M>> = vec![None; bones.len()];
    for (_, d) in &meshes {
        for c in nums(&d["bonePose"]).chunks(7) {
            bind[c[0] as usize].get_or_insert([c[1], c[2], c[3], c[4], c[5], c[6]]);
        }
    }
    let theta = |j: usize| {
        rotations
            .iter()
            .find(|(n, _)| *n == names[j])
            .map_or(0.0, |r| r.1)
    };
    // DragonBones' `inheritRotation: false` (the feet): the bone's origin follows the
    // parent, its axes keep their bind orientation (turned by its own rotation only).
    let keeps_rotation: Vec<bool> = bones
        .iter()
        .map(|b| b["inheritRotation"].as_bool() == Some(false))
        .collect();
    // motion_j = boneWorld_j · bonePose_j⁻¹ (identity at rest), parents first.
    fn motion(
        j: usize,
        parent: &[Option<usize>],
        bind: &[Option<M>],
        keeps_rotation: &[bool],
        theta: &dyn Fn(usize) -> f64,
        memo: &mut Vec<Option<M>>,
    ) -> M {
        if let Some(m) = memo[j] {
            return m;
        }
        let up = parent[j].map_or(ID, |p| motion(p, parent, bind, keeps_rotation, theta, memo));
        let m = match bind[j] {
            Some(b) => {
                let placed = if keeps_rotation[j] {
                    let [x, y] = apply(up, b[4], b[5]);
                    [b[0], b[1], b[2], b[3], x, y]
                } else {
                    mul(up, b)
                };
                let world = mul(placed, rot(-theta(j)));
                mul(world, inv(b))
            }
            None => {
                assert_eq!(theta(j), 0.0, "the test only rotates bound bones");
                up
            }
        };
        memo[j] = Some(m);
        m
    }
    let mut memo = vec![None; bones.len()];
    meshes
        .iter()
        .map(|(slot, d)| {
            let sp = nums(&d["slotPose"]);
            let sp: M = [sp[0], sp[1], sp[2], sp[3], sp[4], sp[5]];
            let w = nums(&d["weights"]);
            let mut i = 0;
            let out = nums(&d["vertices"])
                .chunks(2)
                .map(|v| {
                    let [x, y] = apply(sp, v[0], v[1]);
                    let count = w[i] as usize;
                    let entries = &w[i + 1..i + 1 + 2 * count];
                    i += 1 + 2 * count;
                    let total: f64 = entries.chunks(2).map(|e| e[1]).sum();
                    let mut p = [0.0; 2];
                    for e in entries.chunks(2) {
                        let m = motion(
                            e[0] as usize,
                            &parent,
                            &bind,
                            &keeps_rotation,
                            &theta,
                            &mut memo,
                        );
                        let q = apply(m, x, y);
                        p[0] += e[1] / total * q[0];
                        p[1] += e[1] / total * q[1];
                    }
                    p
                })
                .collect();
            (slot.clone(), out)
        })
        .collect()
}

/// Largest distance between our posed import (y-up) and [`dragonbones_formula`] flipped to
/// y-up, and the largest distance a vertex moved from rest.
fn posed_difference(raw: &Value, rotations: &[(&str, f64)]) -> (f64, f64) {
    let imp = import_dragonbones(&raw.to_string()).unwrap();
    let mut pose = Pose::rest();
    for &(bone, deg) in rotations {
        pose = pose.rotate(bone, deg);
    }
    let ours = linear_blend_skinning(
        imp.scene.mesh().vertices(),
        imp.scene.skeleton(),
        &imp.artist,
        &pose,
    )
    .unwrap();
    let (mut worst, mut moved) = (0.0_f64, 0.0_f64);
    let mut checked = 0;
    for (slot, expected) in dragonbones_formula(raw, rotations) {
        let m = imp.report.meshes.iter().find(|m| m.slot == slot).unwrap();
        assert_eq!(expected.len(), m.vertices);
        for (i, e) in expected.iter().enumerate() {
            let v = m.first_vertex + i;
            let p = ours[v];
            worst = worst.max((p.x - e[0]).hypot(p.y + e[1]));
            moved = moved.max((p - imp.scene.mesh().vertices()[v]).norm());
            checked += 1;
        }
    }
    assert_eq!(checked, imp.scene.mesh().vertex_count());
    (worst, moved)
}

#[test]
fn posed_skinning_matches_the_dragonbones_formula() {
    let raw: Value = serde_json::from_str(&body_text()).unwrap();
    // hand_r's bind pose differs from its setup pose by its own transform (16.6 degrees);
    // thigh_l's too; the others follow the pelvis that moved after binding.
    let rotations = [
        ("spine", 15.0),
        ("thigh_l", 30.0),
        ("calf_l", -25.0),
        ("upperarm_r", 40.0),
        ("forearm_l", 25.0),
        ("hand_r", 35.0),
        ("head", -20.0),
    ];
    let (worst, moved) = posed_difference(&raw, &rotations);
    assert!(moved > 100.0, "the pose moves vertices by {moved} px only");
    assert!(
        worst < 1e-9,
        "posed: {worst} px from the DragonBones formula"
    );
    // The rest pose, for contrast, is the identity whatever the bones.
    let (rest, moved) = posed_difference(&raw, &[]);
    assert!(rest < 1e-6 && moved < 1e-6, "{rest} {moved}");
}

/// A small armature whose weighted mesh has a slotPose that rotates by 25 degrees and
/// translates, with bind poses unlike the setup transforms: root, `a` (bound), `b` (bound,
/// child of `a`), `c` (unbound child of `b`, moves with it). The mesh is a 2x5 strip in the
/// slot's frame, weighted from `a` to `b` along x.
fn synthetic() -> Value {
    let (s, c) = 25f64.to_radians().sin_cos();
    let slot_pose = [c, s, -s, c, 30.0, -15.0];
    let pose = |deg: f64, x: f64, y: f64| {
        let (s, c) = f64::to_radians(deg).sin_cos();
        [c, s, -s, c, x, y]
    };
    let (a, b) = (pose(20.0, 90.0, 40.0), pose(-10.0, 170.0, 70.0));
    let mut bone_pose = vec![1.0];
    bone_pose.extend(a);
    bone_pose.push(2.0);
    bone_pose.extend(b);
    let mut vertices = Vec::new();
    let mut weights = Vec::new();
    for k in 0..5 {
        let t = k as f64 / 4.0;
        for y in [-12.0, 12.0] {
            vertices.extend([40.0 + 140.0 * t, y]);
            weights.extend([2.0, 1.0, 1.0 - t, 2.0, t]);
        }
    }
    let mut triangles = Vec::new();
    for k in 0..4 {
        let i = 2 * k;
        triangles.extend([i, i + 2, i + 1, i + 1, i + 2, i + 3]);
    }
    serde_json::json!({
        "version": "5.5",
        "armature": [{
            "name": "strip",
            "bone": [
                {"name": "root"},
                {"name": "a", "parent": "root", "length": 80,
                 "transform": {"x": 100, "y": 50, "skX": 30, "skY": 30}},
                {"name": "b", "parent": "a", "length": 60,
                 "transform": {"x": 80, "skX": -45, "skY": -45}},
                {"name": "c", "parent": "b", "length": 20, "transform": {"x": 60}}
            ],
            "slot": [{"name": "s", "parent": "a"}],
            "skin": [{"slot": [{"name": "s", "display": [{
                "type": "mesh", "name": "strip",
                "vertices": vertices, "triangles": triangles, "weights": weights,
                "slotPose": slot_pose, "bonePose": bone_pose
            }]}]}]
        }]
    })
}

#[test]
fn a_non_identity_slot_pose_places_and_poses_the_mesh() {
    let raw = synthetic();
    let imp = import_dragonbones(&raw.to_string()).unwrap();
    // Rest: slotPose · v, flipped to y-up.
    let sp = nums(&raw["armature"][0]["skin"][0]["slot"][0]["display"][0]["slotPose"]);
    let v = nums(&raw["armature"][0]["skin"][0]["slot"][0]["display"][0]["vertices"]);
    let mut worst: f64 = 0.0;
    for (i, c) in v.chunks(2).enumerate() {
        let x = sp[0] * c[0] + sp[2] * c[1] + sp[4];
        let y = sp[1] * c[0] + sp[3] * c[1] + sp[5];
        let p = imp.scene.mesh().vertices()[i];
        worst = worst.max((p.x - x).hypot(p.y + y));
    }
    assert!(worst < 1e-9, "rest: {worst}");
    // Vertex 9 (x = 180, y = 12 in the slot frame) lands at (180 cos 25 - 12 sin 25 + 30,
    // 180 sin 25 + 12 cos 25 - 15) y-down.
    let p = imp.scene.mesh().vertices()[9];
    assert!(
        (p.x - 188.0640).abs() < 1e-3 && (p.y + 71.9470).abs() < 1e-3,
        "{p}"
    );
    // The rest skeleton is the bind pose: a's head at (90, 40), b's at (170, 70), y flipped;
    // c (unbound) 60 px along b's x axis.
    let sk = imp.scene.skeleton();
    let head = |n: &str| sk.bones()[sk.index_of(n).unwrap()].head;
    assert!((head("a") - nalgebra::Point2::new(90.0, -40.0)).norm() < 1e-9);
    assert!((head("b") - nalgebra::Point2::new(170.0, -70.0)).norm() < 1e-9);
    let (s, c) = (-10f64).to_radians().sin_cos();
    let expected_c = nalgebra::Point2::new(170.0 + 60.0 * c, -(70.0 + 60.0 * s));
    assert!((head("c") - expected_c).norm() < 1e-9, "{}", head("c"));
    // a points along its bonePose's x axis (20 degrees, y-down), 80 px long.
    let a = &sk.bones()[sk.index_of("a").unwrap()];
    let (s, c) = 20f64.to_radians().sin_cos();
    let expected_tail = nalgebra::Point2::new(90.0 + 80.0 * c, -(40.0 + 80.0 * s));
    assert!((a.tail - expected_tail).norm() < 1e-9, "{}", a.tail);
    // Posed: a turns 30 degrees, b -40.
    let (worst, moved) = posed_difference(&raw, &[("a", 30.0), ("b", -40.0)]);
    assert!(moved > 30.0, "{moved}");
    assert!(
        worst < 1e-9,
        "posed: {worst} px from the DragonBones formula"
    );
}

/// The file with one edit to the raw document.
fn with_raw(edit: impl FnOnce(&mut Value)) -> String {
    let mut raw: Value = serde_json::from_str(&body_text()).unwrap();
    edit(&mut raw);
    raw.to_string()
}

#[test]
fn file_numbers_used_as_sizes_or_indices_are_checked_first() {
    // A vertex's bone count is bounded by the bones in the mesh's bonePose (10 for a_body),
    // before anything is allocated or looped over: 1e18 and 1e300 overflowed a capacity,
    // 1e13 aborted allocating 160 TB.
    for count in [1e18, 1e300, 1e13, 11.0, 0.0, -1.0, 2.5] {
        let (context, field, vertex, message) = dragonbones_error(&with_body_mesh(|d| {
            d.get_mut("weights").unwrap()[0] = Value::from(count);
        }));
        assert!(context.contains("a_body"), "{context}");
        assert_eq!((field.as_str(), vertex), ("weights", Some(0)), "{count}");
        assert!(
            message.contains("is not an integer in 1..=10 (the bones in bonePose)"),
            "{count}: {message}"
        );
    }
    let (_, _, _, message) = dragonbones_error(&with_body_mesh(|d| {
        d.get_mut("weights").unwrap()[0] = Value::from(1e300);
    }));
    assert!(message.starts_with("bone count 1e300 "), "{message}");

    // A huge triangle index is reported as written, not saturated to usize::MAX.
    let (context, field, _, message) = dragonbones_error(&with_body_mesh(|d| {
        d.get_mut("triangles").unwrap()[0] = Value::from(1e300);
    }));
    assert!(context.contains("a_body"));
    assert_eq!(field, "triangles");
    assert_eq!(message, "triangle 0 uses vertex 1e300, but the mesh has 74");

    // Weights are fractions.
    let (_, field, vertex, message) = dragonbones_error(&with_body_mesh(|d| {
        d.get_mut("weights").unwrap()[2] = Value::from(1e300);
    }));
    assert_eq!((field.as_str(), vertex), ("weights", Some(0)));
    assert!(message.contains("outside -0.05..=1.001"), "{message}");

    // A vertex coordinate far outside any canvas names the vertex.
    let (_, field, vertex, message) = dragonbones_error(&with_body_mesh(|d| {
        d.get_mut("vertices").unwrap()[7] = Value::from(-1e300);
    }));
    assert_eq!((field.as_str(), vertex), ("vertices", Some(3)));
    assert!(message.contains("beyond ±1e6 px"), "{message}");

    // A bone length.
    let (context, field, _, _) = dragonbones_error(&with_raw(|raw| {
        raw["armature"][0]["bone"][0]["length"] = Value::from(1e308);
    }));
    assert_eq!(
        (context.as_str(), field.as_str()),
        ("bone \"root\"", "length")
    );
}

#[test]
fn bad_matrices_are_errors_naming_the_mesh_and_bone() {
    // A singular slotPose used to surface as "triangle 0 has zero area", and a huge one as a
    // zero-area triangle of another mesh.
    for (slot_pose, expected) in [
        ([0.0; 6], "the matrix is singular"),
        ([1.0, 2.0, 2.0, 4.0, 0.0, 0.0], "the matrix is singular"),
        (
            [1e300, 0.0, 0.0, 1e300, 0.0, 0.0],
            "the matrix a = 1e300 is beyond ±1000",
        ),
        (
            [1.0, 0.0, 0.0, 1.0, 0.0, 1e300],
            "the matrix ty = 1e300 is beyond ±1e6 px",
        ),
    ] {
        let (context, field, vertex, message) = dragonbones_error(&with_body_mesh(|d| {
            d.insert("slotPose".into(), serde_json::json!(slot_pose));
        }));
        assert_eq!(context, "mesh \"body/a_body\" (slot \"a_body\")");
        assert_eq!((field.as_str(), vertex), ("slotPose", None));
        assert!(message.starts_with(expected), "{message}");
    }
    // A within-limits slotPose that still throws a vertex off the canvas names the vertex.
    let (context, field, vertex, message) = dragonbones_error(&with_body_mesh(|d| {
        d.insert(
            "slotPose".into(),
            serde_json::json!([1000, 0, 0, 1000, 0, 0]),
        );
    }));
    assert!(context.contains("a_body"));
    assert_eq!((field.as_str(), vertex), ("vertices", Some(0)));
    assert!(message.starts_with("slotPose places it at"), "{message}");

    // bonePose: the bone's name is in the message.
    let raw: Value = serde_json::from_str(&body_text()).unwrap();
    let body = raw_meshes(&raw)
        .into_iter()
        .find(|(s, _)| s == "a_body")
        .unwrap()
        .1;
    let first = nums(&body["bonePose"])[0] as usize;
    let name = raw["armature"][0]["bone"][first]["name"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, field, _, message) = dragonbones_error(&with_body_mesh(|d| {
        let p = d.get_mut("bonePose").unwrap().as_array_mut().unwrap();
        for x in &mut p[1..5] {
            *x = Value::from(0.0);
        }
    }));
    assert_eq!(field, "bonePose");
    assert!(
        message.starts_with(&format!("the matrix of bone {name:?} is singular")),
        "{message}"
    );
    let (_, field, _, message) = dragonbones_error(&with_body_mesh(|d| {
        let p = d.get_mut("bonePose").unwrap().as_array_mut().unwrap();
        let again: Vec<Value> = p[..7].to_vec();
        p.extend(again);
    }));
    assert_eq!(field, "bonePose");
    assert_eq!(message, format!("bone {name:?} is listed twice"));

    // An extreme transform names the bone that has it (it used to name a descendant).
    let (context, field, _, message) = dragonbones_error(&with_raw(|raw| {
        raw["armature"][0]["bone"][0]["transform"] =
            serde_json::json!({"skX": 1e308, "skY": 1e308, "x": 1e308, "scX": 1e308});
    }));
    assert_eq!(context, "bone \"root\"");
    assert!(field.starts_with("transform."), "{field}");
    assert!(message.contains("e308 is beyond"), "{message}");

    // Transforms each within limits whose product is not: the first bone, parents first,
    // whose world matrix goes out of range is named, with its parent.
    let mut raw = synthetic();
    raw["armature"][0]["bone"][0]["transform"] = serde_json::json!({"scX": 1000, "scY": 1000});
    raw["armature"][0]["bone"][1]["transform"]["x"] = Value::from(2000);
    let (context, field, _, message) = dragonbones_error(&raw.to_string());
    assert_eq!(
        (context.as_str(), field.as_str()),
        ("bone \"a\"", "transform")
    );
    assert_eq!(
        message,
        "its setup position (2e6, 5e4) is beyond ±1e6 px, on the frame of its parent \"root\""
    );
}

#[test]
fn repeated_names_are_errors_and_degenerate_triangles_are_noted() {
    // Two armature slots with one name: the skin could not tell them apart.
    let (context, field, _, message) = dragonbones_error(&with_raw(|raw| {
        let slots = raw["armature"][0]["slot"].as_array_mut().unwrap();
        slots[1]["name"] = slots[0]["name"].clone();
    }));
    assert_eq!((context.as_str(), field.as_str()), ("slot 1", "name"));
    assert!(message.contains("is also the name of slot 0"), "{message}");

    // Artist meshes repeat triangles and put two vertices at one point: the import keeps
    // the repeat and leaves the zero-area triangles out, noting both (as the Spine import
    // does), rather than refusing the whole rig.
    let notes = |text: &str| import_dragonbones(text).unwrap().report.notes.join("\n");
    let repeated = notes(&with_body_mesh(|d| {
        let t = d.get_mut("triangles").unwrap().as_array_mut().unwrap();
        let first: Vec<Value> = t[..3].to_vec();
        t.extend(first);
    }));
    assert!(repeated.contains("repeat"), "{repeated}");
    let coincident = notes(&with_body_mesh(|d| {
        let v = d.get_mut("vertices").unwrap().as_array_mut().unwrap();
        let (x, y) = (v[0].clone(), v[1].clone());
        v[2] = x;
        v[3] = y;
    }));
    assert!(
        coincident
            .contains("a_body: 1 triangles of zero area left out (the first: display triangle"),
        "{coincident}"
    );
    // A display with no triangle of any area left is an error naming it.
    let (context, field, _, message) = dragonbones_error(&with_body_mesh(|d| {
        let v = d.get_mut("vertices").unwrap().as_array_mut().unwrap();
        for x in v.iter_mut() {
            *x = Value::from(1.0);
        }
    }));
    assert!(context.contains("a_body"), "{context}");
    assert_eq!(field, "triangles");
    assert!(!message.is_empty());
}

#[test]
fn a_file_that_is_not_json_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken_ske.json");
    std::fs::write(&path, "{").unwrap();
    match load_dragonbones(&path) {
        Err(Error::Format(FormatError::Json { context, .. })) => {
            assert_eq!(context, path.display().to_string())
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn report_prints_no_negative_zero() {
    let text = body().report.to_string();
    assert!(!text.contains("-0.000"), "{text}");
    // calf_r turns by about -1e-14 degrees: shown as 0.
    let calf = text
        .lines()
        .find(|l| l.trim_start().starts_with("calf_r"))
        .unwrap();
    assert!(calf.contains("turned    0.000 deg"), "{calf}");
}

#[test]
fn two_displays_of_one_slot_become_two_parts() {
    let mut raw = synthetic();
    let display = &mut raw["armature"][0]["skin"][0]["slot"][0]["display"];
    let copy = display[0].clone();
    display.as_array_mut().unwrap().push(copy);
    let imp = import_dragonbones(&raw.to_string()).unwrap();
    assert_eq!(imp.scene.mesh().parts(), ["s", "s#2"]);
    assert_eq!(imp.scene.mesh().vertex_count(), 20);
}

#[test]
fn more_weights_than_the_import_holds_is_an_error() {
    // 50,000 bones and a 2,002-vertex unweighted strip: 1.0e8 dense weights (800 MB).
    let mut bones = vec![serde_json::json!({"name": "root"})];
    bones.extend(
        (1..50_000).map(|i| serde_json::json!({"name": format!("b{i}"), "parent": "root"})),
    );
    let mut vertices = Vec::new();
    for k in 0..1001 {
        vertices.extend([k as f64, 0.0, k as f64, 10.0]);
    }
    let triangles: Vec<usize> = (0..1000)
        .flat_map(|k| {
            let i = 2 * k;
            [i, i + 2, i + 1, i + 1, i + 2, i + 3]
        })
        .collect();
    let raw = serde_json::json!({"armature": [{
        "bone": bones,
        "slot": [{"name": "s", "parent": "root"}],
        "skin": [{"slot": [{"name": "s", "display": [
            {"type": "mesh", "name": "strip", "vertices": vertices, "triangles": triangles}
        ]}]}]
    }]});
    let (context, field, _, message) = dragonbones_error(&raw.to_string());
    assert_eq!((context.as_str(), field.as_str()), ("armature", "bone"));
    assert_eq!(
        message,
        "2002 mesh vertices × 50000 bones is more than the 100000000 weights the import holds"
    );
}

#[test]
fn atlas_beside_the_file_gives_each_mesh_its_own_region() {
    let imp = body();
    let art = imp
        .scene
        .art()
        .expect("body_tex.json sits beside body_ske.json");
    assert_eq!(art.images.len(), 1);
    assert!(art.images[0].path.ends_with("body_tex.png"));
    let atlas: Value = serde_json::from_str(
        &std::fs::read_to_string(BODY.replace("_ske.json", "_tex.json")).unwrap(),
    )
    .unwrap();
    let region = |name: &str| {
        let s = atlas["SubTexture"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap();
        ["x", "y", "width", "height"].map(|k| s[k].as_f64().unwrap())
    };
    // Every display's vertices map inside its own region (not another's), and span most of it.
    for m in &imp.report.meshes {
        let [x, y, w, h] = region(&m.display);
        let uvs = &art.uvs[m.vertex_range()];
        assert!(
            uvs.iter()
                .all(|p| p.x >= x && p.x <= x + w && p.y >= y && p.y <= y + h),
            "{}",
            m.display
        );
        let span = uvs.iter().map(|p| p.x).fold(f64::MIN, f64::max)
            - uvs.iter().map(|p| p.x).fold(f64::MAX, f64::min);
        assert!(span > 0.8 * w, "{}: {span} of {w}", m.display);
    }
    // Layers follow the armature's slot order, every part once.
    let raw: Value = serde_json::from_str(&body_text()).unwrap();
    let slot_order: Vec<&str> = raw["armature"][0]["slot"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    let pos: Vec<usize> = art
        .layers
        .iter()
        .map(|l| slot_order.iter().position(|s| *s == l.part).unwrap())
        .collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{pos:?}");
    assert_eq!(art.layers.len(), 7);
    // Without the atlas file the import has no art.
    assert!(import_dragonbones(&body_text())
        .unwrap()
        .scene
        .art()
        .is_none());
}

#[test]
fn missing_atlas_image_or_region_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let ske = dir.path().join("body_ske.json");
    std::fs::write(&ske, body_text()).unwrap();
    let tex = BODY.replace("_ske.json", "_tex.json");
    std::fs::copy(&tex, dir.path().join("body_tex.json")).unwrap();
    match load_dragonbones(&ske) {
        Err(Error::Io { path, .. }) => assert!(path.ends_with("body_tex.png"), "{path:?}"),
        other => panic!("{:?}", other.err()),
    }
    // An unreadable image names the file too.
    std::fs::write(dir.path().join("body_tex.png"), b"not a png").unwrap();
    match load_dragonbones(&ske) {
        Err(Error::Format(FormatError::Image { path, .. })) => {
            assert!(path.ends_with("body_tex.png"), "{path:?}")
        }
        other => panic!("{:?}", other.err()),
    }
    // A display whose region is not in the atlas names the display and the texture.
    std::fs::copy(
        BODY.replace("_ske.json", "_tex.png"),
        dir.path().join("body_tex.png"),
    )
    .unwrap();
    let renamed = std::fs::read_to_string(&tex)
        .unwrap()
        .replace("body/a_head", "body/other");
    std::fs::write(dir.path().join("body_tex.json"), renamed).unwrap();
    match load_dragonbones(&ske) {
        Err(
            e @ Error::Format(FormatError::Rig {
                format: RigFormat::DRAGONBONES,
                ..
            }),
        ) => {
            let text = e.to_string();
            assert!(
                text.contains("a_head") && text.contains("not a region"),
                "{e}"
            )
        }
        other => panic!("{:?}", other.err()),
    }
}

/// DragonBones 5.0 writes booleans as 0/1 (`inheritRotation: 0`), and DragonBones reads
/// them: so does the import, with one note naming each bone's field; the scene equals the
/// one read from `false`. A number that is no boolean stays a typed error.
#[test]
fn booleans_written_as_zero_or_one_are_read_with_a_note() {
    let robot = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/artist-rigs/dragonbones-robot_ske.json"
    );
    let text = std::fs::read_to_string(robot).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let with = |doc: &mut Value, v: Value| {
        let bone = &mut doc["armature"][0]["bone"][1];
        bone["inheritRotation"] = v.clone();
        bone["inheritScale"] = v;
        serde_json::to_string(doc).unwrap()
    };
    let name = doc["armature"][0]["bone"][1]["name"]
        .as_str()
        .unwrap()
        .to_string();
    let numeric = import_dragonbones(&with(&mut doc, serde_json::json!(0))).unwrap();
    let boolean = import_dragonbones(&with(&mut doc, serde_json::json!(false))).unwrap();
    assert_eq!(
        numeric.scene.mesh().vertices(),
        boolean.scene.mesh().vertices()
    );
    assert_eq!(numeric.scene.skeleton(), boolean.scene.skeleton());
    let note = numeric
        .report
        .notes
        .iter()
        .find(|n| n.contains("written as 0/1"))
        .unwrap_or_else(|| panic!("{:?}", numeric.report.notes));
    assert!(
        note.starts_with("2 boolean fields")
            && note.contains(&format!("bone {name:?} inheritRotation")),
        "{note}"
    );
    assert!(!boolean.report.notes.iter().any(|n| n.contains("0/1")));

    let e = import_dragonbones(&with(&mut doc, serde_json::json!(2))).unwrap_err();
    assert!(
        matches!(&e, Error::Format(FormatError::Rig { format: RigFormat::DRAGONBONES, field, .. }) if field == "inheritRotation"),
        "{e}"
    );
}
