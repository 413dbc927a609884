//! Creature JSON import and export on the three shipped rigs (`data/creature`), checked
//! against an independent reading of the files with serde_json, and hostile input.

use crate::common;
use skinweights::{ClipError, FormatError, RigFormat, SkeletonError};

use serde_json::{json, Value};
use skinweights::io::creature::{import_creature, load_creature, FRAME_RATE};
use skinweights::io::ExportOptions;
use skinweights::{scene::Scene, Error};
use std::process::Command;
use std::time::Instant;

const RIGS: [&str; 3] = ["creature-fox", "creature-bat", "creature-icedemon"];

fn path(rig: &str) -> String {
    format!("{}/data/creature/{rig}.json", env!("CARGO_MANIFEST_DIR"))
}

fn raw(rig: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path(rig)).unwrap()).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

/// Regions sorted by first point: (name, first point, last point).
fn regions(doc: &Value) -> Vec<(String, usize, usize)> {
    let mut out: Vec<(String, usize, usize)> = doc["mesh"]["regions"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(n, r)| {
            let i = |k: &str| r[k].as_u64().unwrap() as usize;
            (n.clone(), i("start_pt_index"), i("end_pt_index"))
        })
        .collect();
    out.sort_by_key(|r| r.1);
    out
}

/// The independent reading of one bone's rest start and end: `restParentMat` (column major)
/// applied to the local points.
fn rest_points(bone: &Value) -> [[f64; 2]; 2] {
    let m: Vec<f64> = bone["restParentMat"]
        .as_array()
        .unwrap()
        .iter()
        .map(f)
        .collect();
    let ap = |p: &Value| {
        let (x, y) = (f(&p[0]), f(&p[1]));
        [m[0] * x + m[4] * y + m[12], m[1] * x + m[5] * y + m[13]]
    };
    [ap(&bone["localRestStartPt"]), ap(&bone["localRestEndPt"])]
}

#[test]
fn every_rig_imports_with_the_files_vertices_weights_and_bones() {
    for rig in RIGS {
        let doc = raw(rig);
        let start = Instant::now();
        let imp = load_creature(path(rig)).unwrap_or_else(|e| panic!("{rig}: {e}"));
        let took = start.elapsed().as_secs_f64();
        imp.scene.sanity_check().unwrap();
        imp.artist.validate().unwrap();
        let points: Vec<f64> = doc["mesh"]["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(f)
            .collect();
        let verts = imp.scene.mesh().vertices();
        let skel = imp.scene.skeleton();
        let (mut placed, mut max_place, mut max_weight) = (0, 0.0_f64, 0.0_f64);
        for ((name, first, last), m) in regions(&doc).iter().zip(&imp.report.meshes) {
            assert_eq!(&m.region, name);
            let r = &doc["mesh"]["regions"][name]["weights"];
            for (k, p) in (*first..=*last).enumerate() {
                let v = m.first_vertex + k;
                // y up, no flip: the scene vertex is the file's point.
                let d = (verts[v].x - points[2 * p]).hypot(verts[v].y - points[2 * p + 1]);
                max_place = max_place.max(d);
                placed += 1;
                let sum: f64 = r.as_object().unwrap().values().map(|w| f(&w[k])).sum();
                for (j, b) in skel.bones().iter().enumerate() {
                    let want = r.get(&b.name).map_or(0.0, |w| f(&w[k]) / sum);
                    max_weight = max_weight.max((imp.artist.get(v, j) - want).abs());
                }
            }
        }
        assert_eq!(placed, verts.len(), "{rig}: every vertex is a region point");
        assert!(max_place <= 1e-3, "{rig}: placement error {max_place}");
        assert!(max_weight <= 1e-6, "{rig}: weight error {max_weight}");
        let mut max_bone = 0.0_f64;
        for (name, b) in doc["skeleton"].as_object().unwrap() {
            let [s, e] = rest_points(b);
            let bone = &skel.bones()[skel.index_of(name).unwrap()];
            max_bone = max_bone
                .max((bone.head.x - s[0]).hypot(bone.head.y - s[1]))
                .max((bone.tail.x - e[0]).hypot(bone.tail.y - e[1]));
        }
        assert!(max_bone <= 1e-9, "{rig}: bone error {max_bone}");
        println!(
            "{rig}: {placed} vertices placed, max placement error {max_place:e}, max weight error {max_weight:e}, bones within {max_bone:e}, {} clips, import {took:.3} s",
            imp.scene.clips().len()
        );
    }
}

/// Every keyed frame of every clip: the scene's posed bone segments against the file's world
/// start and end points.
#[test]
fn clip_poses_put_every_bone_on_the_files_points() {
    for rig in RIGS {
        let doc = raw(rig);
        let imp = load_creature(path(rig)).unwrap();
        let scene: &Scene = &imp.scene;
        let mut worst = 0.0_f64;
        let mut frames_checked = 0;
        for (name, c) in doc["animation"].as_object().unwrap() {
            let clip = scene.clip(name).unwrap();
            let frames = c["bones"].as_object().unwrap();
            let first = frames
                .keys()
                .map(|k| k.parse::<f64>().unwrap())
                .fold(f64::INFINITY, f64::min);
            for (key, bones) in frames {
                let t = (key.parse::<f64>().unwrap() - first) / FRAME_RATE;
                let pose = scene.clip_pose(clip, t).unwrap();
                let segs = scene.skeleton().posed_segments(&pose).unwrap();
                for (bone, se) in bones.as_object().unwrap() {
                    let j = scene.skeleton().index_of(bone).unwrap();
                    for (k, field) in ["start_pt", "end_pt"].iter().enumerate() {
                        let p = &se[*field];
                        let d = (segs[j][k].x - f(&p[0])).hypot(segs[j][k].y - f(&p[1]));
                        worst = worst.max(d);
                    }
                }
                frames_checked += 1;
            }
            let last = frames
                .keys()
                .map(|k| k.parse::<f64>().unwrap())
                .fold(f64::NEG_INFINITY, f64::max);
            assert!((clip.duration - (last - first) / FRAME_RATE).abs() < 1e-12);
        }
        assert!(worst <= 1e-6, "{rig}: clip placement error {worst}");
        println!("{rig}: {frames_checked} frames, max bone point error {worst:e}");
    }
}

/// Halfway between two keys the tiny rig's channels are linear: the child's rotation is half
/// its turn.
#[test]
fn tiny_rig_interpolates_between_frames() {
    let imp = import_creature(common::TINY_CREATURE).unwrap();
    let clip = imp.scene.clip("wave").unwrap();
    assert!((clip.duration - 20.0 / FRAME_RATE).abs() < 1e-12);
    let pose = imp.scene.clip_pose(clip, 5.0 / FRAME_RATE).unwrap();
    assert!((pose.rotations["Bone_1"] - 45.0).abs() < 1e-9, "{pose:?}");
    // Frame 20: the root stretched 1.5 times; its child is not.
    let segs = imp
        .scene
        .skeleton()
        .posed_segments(&imp.scene.clip_pose(clip, clip.duration).unwrap())
        .unwrap();
    assert!((segs[0][1] - nalgebra::Point2::new(0.0, 3.0)).norm() < 1e-12);
    assert!((segs[1][1] - nalgebra::Point2::new(-2.0, 3.0)).norm() < 1e-12);
    assert_eq!(imp.report.meshes.len(), 2);
    assert_eq!(imp.report.meshes[1].vertex_range(), 6..9);
}

/// The weights of every region, normalized, by region and bone.
fn normalized_weights(doc: &Value) -> Vec<(String, String, Vec<f64>)> {
    let mut out = Vec::new();
    for (name, r) in doc["mesh"]["regions"].as_object().unwrap() {
        let w = r["weights"].as_object().unwrap();
        let n = w.values().next().unwrap().as_array().unwrap().len();
        let sums: Vec<f64> = (0..n).map(|k| w.values().map(|a| f(&a[k])).sum()).collect();
        for (bone, a) in w {
            let col = a
                .as_array()
                .unwrap()
                .iter()
                .zip(&sums)
                .map(|(x, s)| f(x) / s)
                .collect();
            out.push((name.clone(), bone.clone(), col));
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    out
}

/// `out` is `source` with each region's weights equal after normalizing (within 1e-6; a bone
/// written with all zeros counts as absent) and everything else unchanged. Returns the
/// largest weight difference.
fn same_but_weights(source: &Value, out: &Value) -> f64 {
    let (a, b) = (normalized_weights(source), normalized_weights(out));
    let lookup = |list: &[(String, String, Vec<f64>)], r: &str, bone: &str| {
        list.iter()
            .find(|(rr, bb, _)| rr == r && bb == bone)
            .map(|x| x.2.clone())
    };
    let mut worst = 0.0_f64;
    for (r, bone, col) in a.iter().chain(&b) {
        let x = lookup(&a, r, bone).unwrap_or_else(|| vec![0.0; col.len()]);
        let y = lookup(&b, r, bone).unwrap_or_else(|| vec![0.0; col.len()]);
        worst = worst.max(common::max_abs_diff(&x, &y));
    }
    let strip = |v: &Value| {
        let mut v = v.clone();
        for r in v["mesh"]["regions"].as_object_mut().unwrap().values_mut() {
            r.as_object_mut().unwrap().remove("weights");
        }
        v
    };
    assert_eq!(strip(source), strip(out), "only the weights may change");
    worst
}

#[test]
fn export_with_the_artist_weights_reproduces_the_source() {
    for rig in RIGS {
        let text = std::fs::read_to_string(path(rig)).unwrap();
        let imp = import_creature(&text).unwrap();
        let out = common::export_text(
            "creature",
            &imp.scene,
            &imp.artist,
            &ExportOptions::default().with_source_text(&text),
        )
        .unwrap();
        let worst = same_but_weights(&raw(rig), &serde_json::from_str(&out).unwrap());
        assert!(worst <= 1e-6, "{rig}: weights differ by {worst}");
        // Read back: the same vertices and weights.
        let back = import_creature(&out).unwrap();
        let verts = common::max_abs_diff(
            &flat(imp.scene.mesh().vertices()),
            &flat(back.scene.mesh().vertices()),
        );
        let w = common::max_abs_diff(imp.artist.as_slice(), back.artist.as_slice());
        assert!(verts <= 1e-6 && w <= 1e-6, "{rig}: {verts} {w}");
        // Everything outside the weights is the source's text, byte for byte.
        assert!(out.starts_with(&text[..text.find("\"weights\"").unwrap()]));
        println!("{rig}: round trip weights within {worst:e}, vertices {verts:e}");
    }
}

fn flat(p: &[nalgebra::Point2<f64>]) -> Vec<f64> {
    p.iter().flat_map(|q| [q.x, q.y]).collect()
}

#[test]
fn cli_round_trip_and_source_is_required() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_skinweights"))
            .args(args)
            .output()
            .unwrap()
    };
    let rig = "creature-bat";
    let scene = dir.path().join("bat.json");
    let s = scene.to_str().unwrap();
    let o = run(&["import", "creature", &path(rig), "-o", s]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("4 regions, 23 bones") && stdout.contains("mesh displacements"),
        "{stdout}"
    );
    let artist = dir.path().join("bat.artist.json");
    assert!(artist.exists());
    let a = artist.to_str().unwrap();
    let out = dir.path().join("out.json");
    let e = out.to_str().unwrap();
    let no_source = run(&["export", "creature", s, a, "-o", e]);
    assert_eq!(no_source.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_source.stderr).contains("--source"));
    let src = path(rig);
    let o = run(&["export", "creature", s, a, "--source", &src, "-o", e]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let worst = same_but_weights(&raw(rig), &written);
    assert!(worst <= 1e-6, "CLI round trip differs by {worst}");
    // Another rig as the source: refused, naming the mismatch.
    let other = path("creature-fox");
    let o = run(&[
        "export", "creature", s, a, "--source", &other, "-o", e, "--force",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("vertices"));
}

#[test]
fn export_refuses_a_scene_that_is_not_the_sources() {
    let imp = import_creature(common::TINY_CREATURE).unwrap();
    let mut doc: Value = serde_json::from_str(common::TINY_CREATURE).unwrap();
    doc["mesh"]["points"][4] = json!(4.01);
    let moved = doc.to_string();
    match common::export_text(
        "creature",
        &imp.scene,
        &imp.artist,
        &ExportOptions::default().with_source_text(moved),
    ) {
        Err(Error::Format(FormatError::Rig {
            format: RigFormat::CREATURE,
            vertex,
            field,
            ..
        })) => {
            assert_eq!((vertex, field.as_str()), (Some(2), "mesh.points"))
        }
        other => panic!("{other:?}"),
    }
    // Within 1e-3 is the same mesh.
    doc["mesh"]["points"][4] = json!(4.0005);
    assert!(common::export_text(
        "creature",
        &imp.scene,
        &imp.artist,
        &ExportOptions::default().with_source_text(doc.to_string())
    )
    .is_ok());
}

/// The tiny rig with one edit; the import's error.
fn edited(edit: impl FnOnce(&mut Value)) -> Error {
    let mut doc: Value = serde_json::from_str(common::TINY_CREATURE).unwrap();
    edit(&mut doc);
    import_creature(&doc.to_string()).expect_err("refused")
}

fn creature_field(e: &Error) -> (&str, &str, Option<usize>) {
    match e {
        Error::Format(FormatError::Rig {
            format: RigFormat::CREATURE,
            context,
            field,
            vertex,
            ..
        }) => (context.as_str(), field.as_str(), *vertex),
        other => panic!("not a Creature error: {other}"),
    }
}

#[test]
fn hostile_files_give_typed_errors() {
    let e = edited(|d| d["mesh"]["points"][3] = json!("x"));
    assert_eq!(creature_field(&e), ("mesh", "points", None));
    let e = edited(|d| d["mesh"]["points"][3] = json!(1e300));
    assert_eq!(creature_field(&e).1, "points");
    let e = edited(|d| d["mesh"]["indices"][4] = json!(7));
    assert_eq!(creature_field(&e), ("region \"body\"", "indices[4]", None));
    let e = edited(|d| d["mesh"]["regions"]["tip"]["end_pt_index"] = json!(9));
    assert_eq!(creature_field(&e).1, "end_pt_index");
    let e = edited(|d| d["mesh"]["regions"]["tip"]["start_pt_index"] = json!(5));
    assert!(e.to_string().contains("overlaps"), "{e}");
    let e = edited(|d| d["mesh"]["regions"]["body"]["end_index"] = json!(100));
    assert_eq!(creature_field(&e).1, "end_index");
    let e = edited(|d| d["mesh"]["regions"]["body"]["weights"]["Bone_0"][2] = json!(-0.5));
    assert_eq!(
        creature_field(&e),
        ("region \"body\"", "weights.Bone_0", Some(2))
    );
    let e =
        edited(|d| d["mesh"]["regions"]["body"]["weights"]["Ghost"] = json!([0, 1, 0, 0, 0, 0]));
    assert_eq!(creature_field(&e).2, Some(1));
    let e = edited(|d| d["skeleton"]["Bone_1"]["restParentMat"][12] = json!(null));
    assert_eq!(creature_field(&e).1, "restParentMat");
    let e = edited(|d| d["skeleton"]["Bone_1"]["localRestEndPt"] = json!([0, 0]));
    assert!(e.to_string().contains("length"), "{e}");
    let e = edited(|d| d["skeleton"]["Bone_0"]["children"] = json!([9]));
    assert_eq!(creature_field(&e).1, "children");
    let e = edited(|d| d["skeleton"]["Bone_1"]["id"] = json!(2));
    assert_eq!(creature_field(&e).1, "id");
    let e = edited(|d| d["skeleton"]["Bone_1"]["children"] = json!([2]));
    assert!(
        matches!(e, Error::Skeleton(SkeletonError::ParentCycle { .. })),
        "{e}"
    );
    let e = edited(|d| d["animation"]["wave"]["bones"]["x"] = json!({}));
    assert_eq!(creature_field(&e).1, "bones.x");
    let e = edited(|d| {
        d["animation"]["wave"]["bones"]["10"]
            .as_object_mut()
            .unwrap()
            .remove("Bone_1");
    });
    assert_eq!(creature_field(&e).1, "Bone_1");
    let e = edited(|d| d["animation"]["wave"]["bones"]["10"]["Bone_1"]["end_pt"] = json!([2, 0]));
    assert!(e.to_string().contains("rest length"), "{e}");
    let e = edited(|d| d["mesh"] = json!([]));
    assert_eq!(creature_field(&e).1, "mesh");
    assert!(matches!(
        import_creature("{\"mesh\": "),
        Err(Error::Format(FormatError::Json { .. }))
    ));
}

#[test]
fn a_weights_array_of_the_wrong_length_is_skipped_with_a_note() {
    let mut doc: Value = serde_json::from_str(common::TINY_CREATURE).unwrap();
    doc["mesh"]["regions"]["tip"]["weights"]["Bone_0"] = json!([0, 0]);
    let imp = import_creature(&doc.to_string()).unwrap();
    assert!(
        imp.report
            .notes
            .iter()
            .any(|n| n.contains("\"Bone_0\"") && n.contains("2 weights for 3 points")),
        "{:?}",
        imp.report.notes
    );
    imp.artist.validate().unwrap();
    // A region left with a point of no weight is refused, naming the point.
    doc["mesh"]["regions"]["tip"]["weights"]["Bone_1"] = json!([1, 1]);
    let e = import_creature(&doc.to_string()).unwrap_err();
    assert_eq!(creature_field(&e), ("region \"tip\"", "weights", Some(6)));
}

#[test]
fn ten_million_keys_and_huge_arrays_are_refused_quickly() {
    // 500 000 frames × 2 bones × 6 channels: past MAX_KEYS before any frame is read.
    let mut frames = String::from("{");
    for i in 0..500_000 {
        if i > 0 {
            frames.push(',');
        }
        frames.push_str(&format!("\"{i}\":{{}}"));
    }
    frames.push('}');
    let text = common::TINY_CREATURE.replacen(
        "\"bones\": {\n      \"0\"",
        &format!("\"bones\": {frames}, \"old\": {{\n      \"0\""),
        1,
    );
    let start = Instant::now();
    let e = import_creature(&text).unwrap_err();
    assert!(
        matches!(e, Error::Clip(ClipError::TooManyKeys { .. })),
        "{e}"
    );
    assert!(start.elapsed().as_secs_f64() < 5.0);
    // A million points with no region: read, left out with a note... but the weights matrix
    // bound holds: 10^6 points × 2 bones is fine; a region past them is not.
    let mut doc: Value = serde_json::from_str(common::TINY_CREATURE).unwrap();
    doc["mesh"]["regions"]["tip"]["end_pt_index"] = json!(1u64 << 40);
    let e = import_creature(&doc.to_string()).unwrap_err();
    assert_eq!(creature_field(&e).1, "end_pt_index");
}

/// A loaded file names its scene after its stem (the scene file `import` writes too); text
/// imported without a path is `creature`.
#[test]
fn the_scene_is_named_after_the_file() {
    let imp = load_creature(path("creature-bat")).unwrap();
    assert_eq!(imp.scene.name(), "creature-bat");
    let text = std::fs::read_to_string(path("creature-bat")).unwrap();
    let from_text = import_creature(&text).unwrap();
    assert_eq!(from_text.scene.name(), "creature");

    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("night flyer.v2.json");
    std::fs::write(&copy, &text).unwrap();
    assert_eq!(load_creature(&copy).unwrap().scene.name(), "night flyer.v2");
    let out = dir.path().join("bat.json");
    let o = common::skinweights(&[
        "import",
        "creature",
        copy.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::text(&o));
    let scene: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(scene["name"], "night flyer.v2");
}
