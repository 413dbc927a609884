//! DragonBones import and export on the shipped character (`data/dragonbones-you-xin`), and
//! bad input.

use serde_json::Value;
use skinweights::scene::dragonbones::{
    export_dragonbones, import_dragonbones, load_dragonbones, DragonBonesImport,
};
use skinweights::scene::SubScene;
use skinweights::{linear_blend_skinning, metrics, Error, Pose};
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

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
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
    assert_eq!(imp.scene.mesh.vertex_count(), 330);
    assert_eq!(imp.scene.mesh.triangle_count(), 418);
    assert_eq!(imp.scene.mesh.parts().len(), 7);
    assert_eq!(imp.scene.skeleton.len(), 70);
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

#[test]
fn rest_pose_skinning_reproduces_the_file_positions() {
    let imp = body();
    let raw: Value = serde_json::from_str(&body_text()).unwrap();
    let posed = linear_blend_skinning(
        imp.scene.mesh.vertices(),
        &imp.scene.skeleton,
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
    let sk = &imp.scene.skeleton;
    let p = &sk.bones()[sk.index_of("pelvis").unwrap()];
    assert!((p.head.x + 107.18).abs() < 1e-9 && (p.head.y - 913.0).abs() < 1e-9);
    // Zero-length bones keep a 1 px tail along their x axis.
    assert!((p.length() - 1.0).abs() < 1e-12);
}

#[test]
fn lift_probes_swing_the_arms_out_and_the_artist_keeps_the_body_still() {
    let imp = body();
    let scene = &imp.scene;
    let names: Vec<&str> = scene.probes.iter().map(|p| p.name.as_str()).collect();
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
        let sk = &scene.skeleton;
        let j = sk.index_of(bone).unwrap();
        let rest = sk.posed_segments(&Pose::rest()).unwrap()[j][1];
        let lifted = sk.posed_segments(&p.pose).unwrap()[j][1];
        assert!(lifted.x.abs() > rest.x.abs() + 100.0 || (lifted.x - rest.x).abs() > 100.0);
        // The artist never weights the body to an arm: no drag.
        let m = metrics::evaluate(scene, &imp.artist, p, None).unwrap();
        assert!(m.drag_max_pct < 1e-9, "{probe}: {}", m.drag_max_pct);
    }
}

#[test]
fn every_solver_gives_valid_weights_on_the_import() {
    let imp = body();
    for name in skinweights::SOLVER_NAMES.iter().chain(&["heat+mask"]) {
        let w = skinweights::solve(&imp.scene, name).unwrap();
        w.validate().unwrap();
        assert_eq!(w.vertex_count(), 330);
    }
}

#[test]
fn export_then_import_round_trips_weights_and_positions() {
    let imp = body();
    let doc = export_dragonbones(&imp.scene, &imp.artist).unwrap();
    assert_eq!(doc["version"], "5.5");
    let again = import_dragonbones(&doc.to_string()).unwrap();
    let (a, b) = (&imp.scene, &again.scene);
    assert_eq!(b.mesh.vertex_count(), 330);
    assert_eq!(a.mesh.parts(), b.mesh.parts());
    assert_eq!(a.mesh.triangle_count(), b.mesh.triangle_count());
    let pos = a
        .mesh
        .vertices()
        .iter()
        .zip(b.mesh.vertices())
        .map(|(p, q)| (p - q).norm())
        .fold(0.0, f64::max);
    assert!(pos < 1e-6, "positions {pos}");
    assert_eq!(a.skeleton.names(), b.skeleton.names());
    let bones = a
        .skeleton
        .bones()
        .iter()
        .zip(b.skeleton.bones())
        .map(|(x, y)| (x.head - y.head).norm().max((x.tail - y.tail).norm()))
        .fold(0.0, f64::max);
    assert!(bones < 1e-6, "bones {bones}");
    let w = max_abs_diff(imp.artist.as_slice(), again.artist.as_slice());
    assert!(w < 1e-6, "weights {w}");
    // Re-exported bind poses equal the setup transforms: nothing differs any more.
    assert!(again.report.bind_differs.is_empty());
    // Heat weights export too, and re-import to the same values.
    let heat = skinweights::solve(&imp.scene, "heat").unwrap();
    let doc = export_dragonbones(&imp.scene, &heat).unwrap();
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
        Err(Error::DragonBones {
            context,
            field,
            vertex,
            message,
        }) => (context, field, vertex, message),
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
    assert!(matches!(import_dragonbones("{"), Err(Error::Json { .. })));
    let mut raw: Value = serde_json::from_str(&body_text()).unwrap();
    raw["armature"][0]["bone"][3]["parent"] = Value::from("nobody");
    assert!(matches!(
        import_dragonbones(&raw.to_string()),
        Err(Error::UnknownParent { .. })
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
    let arm = imp.scene.skeleton.index_of("arm").unwrap();
    for v in 0..4 {
        assert_eq!(imp.artist.get(v, arm), 1.0);
    }
    // Slot frame (10, 0) -> rotated 90 deg (y-down) about (100, -50) -> (100, -40) -> y-up.
    let p = imp.scene.mesh.vertices()[1];
    assert!(
        (p.x - 100.0).abs() < 1e-9 && (p.y - 40.0).abs() < 1e-9,
        "{p}"
    );
    // The arm bone points down in y-up (rotated +90 in y-down), 10 px long.
    let b = &imp.scene.skeleton.bones()[arm];
    assert!((b.tail.x - 100.0).abs() < 1e-9 && (b.tail.y - 40.0).abs() < 1e-9);
    // The root binds nothing: no part, no influence under masking.
    let root = &imp.scene.skeleton.bones()[0];
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
    assert_eq!(back.scene.mesh.vertex_count(), 330);
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
    let mut combined = skinweights::Weights::zeros(330, imp.scene.skeleton.len());
    for m in &imp.report.meshes {
        let sub = SubScene::new(&imp.scene, &m.part, &m.bones).unwrap();
        sub.scene.sanity_check().unwrap();
        assert_eq!(sub.scene.mesh.vertex_count(), m.vertices);
        assert_eq!(sub.vertices, m.vertex_range().collect::<Vec<_>>());
        assert_eq!(sub.scene.skeleton.names(), m.bones);
        // The artist's rows only use these bones: restricting loses nothing.
        let artist = sub.restrict(&imp.artist).unwrap();
        sub.scatter(&artist, &mut combined).unwrap();
        for name in skinweights::SOLVER_NAMES.iter().chain(&["heat+mask"]) {
            let w = skinweights::solve(&sub.scene, name).unwrap();
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
    let sk = &arm.scene.skeleton;
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
        Err(Error::UnknownPart { .. })
    ));
}

/// Share of vertices whose largest weight is on the same bone in both weight sets.
fn dominant_agreement(a: &skinweights::Weights, b: &skinweights::Weights) -> f64 {
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
    let mut per_mesh = skinweights::Weights::zeros(330, scene.skeleton.len());
    for m in &imp.report.meshes {
        let sub = SubScene::new(scene, &m.part, &m.bones).unwrap();
        let w = skinweights::solve(&sub.scene, "heat").unwrap();
        sub.scatter(&w, &mut per_mesh).unwrap();
    }
    per_mesh.validate().unwrap();
    let agree = dominant_agreement(&per_mesh, &imp.artist);
    assert!(agree > 0.70, "per-mesh heat agrees on {agree}");

    let whole_heat = skinweights::solve(scene, "heat").unwrap();
    let whole_euclidean = skinweights::solve(scene, "euclidean").unwrap();
    let whole_agree = dominant_agreement(&whole_heat, &imp.artist);
    assert!(
        whole_agree < 0.5,
        "whole-character heat agrees on {whole_agree}"
    );

    let lift = scene.probe(Some("lift_l")).unwrap();
    let drag = |w: &skinweights::Weights| metrics::drag(scene, w, lift).unwrap().max_pct();
    assert!(drag(&imp.artist) < 1e-9);
    assert!(drag(&per_mesh) < 1e-9);
    assert!(drag(&whole_euclidean) > 1.0, "{}", drag(&whole_euclidean));
    assert!(drag(&whole_heat) < 0.2 * drag(&whole_euclidean));
}
