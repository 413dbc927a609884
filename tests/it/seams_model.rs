//! Seams recorded in the scene (issue 29 item 1): layered scenes built from scene files,
//! repaired, re-solved with every registry solver; the opening stays below 1e-6 px at every
//! probe and the weight difference across a seam 0, after a save/load round trip and after
//! an export and re-import. Hostile seams give typed errors.

use crate::common;
use skinweights::io::{
    gltf::import_gltf_str, load_scene, save_scene, scene_from_binary, scene_from_json,
    scene_to_binary, scene_to_json, ExportOptions, GodotVersion,
};
use skinweights::metrics::posed_positions;
use skinweights::scene::{builtin_scene, BuiltinOptions, Seams, Weld};
use skinweights::seams::repair::{recorded_seams, repair, RepairOptions};
use skinweights::solvers::{solver_by_name, NO_OPTIONS, SOLVER_NAMES};
use skinweights::{scene::Scene, weights::Weights, Error};
use skinweights::{SeamError, SeamProblem};
use std::collections::HashMap;
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("seams_model_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A built-in layered scene (arms `gap` px from the torso) written to a scene file and read back (a scene from a file).
fn from_file(name: &str, vertices: usize, gap: Option<f64>) -> Scene {
    let scene = builtin_scene(
        name,
        &BuiltinOptions::default()
            .with_vertices(vertices)
            .with_gap(gap),
    )
    .unwrap();
    let path = tmp(&format!("{name}.json"));
    save_scene(&scene, &path).unwrap();
    load_scene(&path).unwrap().0
}

/// A hand-made scene file: an upper arm [0, 40] x [0, 10] and a forearm [40, 80] x [0, 10],
/// each its own two-strip mesh with its own vertices on x = 40, a bone each, bent at 60 and
/// 120 degrees.
fn hand_made() -> Scene {
    let text = r#"{
      "format": "skinweights.scene/1", "name": "hand-made arm",
      "vertices": [[0,0],[20,0],[40,0],[0,10],[20,10],[40,10],[0,5],[40,5],
                   [40,0],[60,0],[80,0],[40,10],[60,10],[80,10],[40,5],[80,5]],
      "triangles": [[0,1,6],[1,4,6],[4,3,6],[1,2,7],[1,7,4],[7,5,4],
                    [8,9,14],[9,12,14],[12,11,14],[9,10,15],[9,15,12],[15,13,12]],
      "parts": ["upper", "forearm"],
      "vertex_parts": [0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1],
      "bones": [
        {"name": "upper", "parent": null, "head": [0,5], "tail": [40,5], "part": "upper"},
        {"name": "forearm", "parent": "upper", "head": [40,5], "tail": [80,5], "part": "forearm"}
      ],
      "probes": [
        {"name": "bend_60", "pose": {"forearm": 60}},
        {"name": "bend_120", "pose": {"forearm": 120}}
      ]
    }"#;
    scene_from_json(text, None).unwrap().0
}

/// Largest opening at the scene's recorded joints over every probe.
fn max_opening(scene: &Scene, weights: &Weights) -> f64 {
    scene
        .probes()
        .iter()
        .map(|p| {
            let posed = posed_positions(scene, weights, &p.pose).unwrap();
            scene.seams().max_opening(&posed)
        })
        .fold(0.0, f64::max)
}

/// Repairs (weld 0.5 px), checks seams were recorded, round-trips the file (JSON and
/// binary), re-solves with every registry solver and checks opening and weight difference.
fn check_repaired(scene: &Scene, solvers: &[&str]) -> (Scene, Vec<(String, Weights)>) {
    let options = RepairOptions::default().with_weld(Some(0.5));
    let (fixed, _) = repair(scene, &options).unwrap();
    assert!(
        !fixed.seams().joints.is_empty(),
        "{}: repair recorded no joint",
        scene.name()
    );
    fixed.sanity_check().unwrap();
    let path = tmp(&format!("{}-repaired.json", scene.name().replace(' ', "_")));
    save_scene(&fixed, &path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"seams\"") && text.contains("skinweights.scene/3"));
    let loaded = load_scene(&path).unwrap().0;
    assert_eq!(loaded.seams(), fixed.seams());
    let binary = scene_from_binary(&scene_to_binary(&fixed, None).unwrap(), None)
        .unwrap()
        .0;
    assert_eq!(binary.seams(), fixed.seams());
    // Unrepaired: each layer solved as drawn cracks.
    let before = solver_by_name("heat", NO_OPTIONS)
        .unwrap()
        .solve(scene)
        .unwrap()
        .weights;
    let groups = recorded_seams(&fixed, false).unwrap();
    assert_eq!(&groups, fixed.seams());
    let mut out = Vec::new();
    for &name in solvers {
        let w = solver_by_name(name, NO_OPTIONS)
            .unwrap()
            .solve(&loaded)
            .unwrap()
            .weights;
        w.validate().unwrap();
        let diff = loaded.seams().max_weight_difference(&w);
        let opening = max_opening(&loaded, &w);
        assert_eq!(
            diff,
            0.0,
            "{} {name}: weight difference {diff}",
            scene.name()
        );
        assert!(
            opening < 1e-6,
            "{} {name}: opening {opening} px",
            scene.name()
        );
        out.push((name.to_string(), w));
    }
    // The same vertices (appended only) cracked before: the check can fail.
    let n = scene.mesh().vertex_count();
    let cracked = fixed
        .seams()
        .joints
        .iter()
        .filter(|g| g.iter().all(|&v| v < n))
        .any(|g| {
            scene.probes().iter().any(|p| {
                let posed = posed_positions(scene, &before, &p.pose).unwrap();
                (posed[g[0]] - posed[g[1]]).norm() > 0.01
            })
        });
    assert!(cracked, "{}: no crack before repair to close", scene.name());
    (loaded, out)
}

#[test]
fn hand_made_scene_stays_repaired_with_every_solver() {
    check_repaired(&hand_made(), SOLVER_NAMES);
}

#[test]
fn layered_elbow_from_file_stays_repaired_with_every_solver() {
    check_repaired(&from_file("layered-elbow", 1500, None), SOLVER_NAMES);
}

#[test]
fn layered_arms_from_file_stays_repaired() {
    check_repaired(
        &from_file("layered-arms", 3000, Some(0.0)),
        &["heat", "linear", "best"],
    );
}

/// Vertices at bit-identical positions in different parts of an imported scene (the
/// exported seam) and the largest weight difference between them.
fn imported_seam_difference(scene: &Scene, weights: &Weights) -> (usize, f64) {
    let mut at: HashMap<(u64, u64), Vec<usize>> = HashMap::new();
    for (v, p) in scene.mesh().vertices().iter().enumerate() {
        at.entry((p.x.to_bits(), p.y.to_bits()))
            .or_default()
            .push(v);
    }
    let parts = scene.mesh().vertex_parts();
    let mut groups = 0;
    let mut worst: f64 = 0.0;
    for g in at.values().filter(|g| g.len() > 1) {
        if g.iter().all(|&v| parts[v] == parts[g[0]]) {
            continue;
        }
        groups += 1;
        for &v in &g[1..] {
            for (a, b) in weights.row(g[0]).iter().zip(weights.row(v)) {
                worst = worst.max((a - b).abs());
            }
        }
    }
    (groups, worst)
}

#[test]
fn exports_keep_identical_weights_at_seams() {
    let (scene, solved) = check_repaired(&hand_made(), &["heat"]);
    let weights = &solved[0].1;
    let joints = scene.seams().joints.len();
    // glTF
    let text = common::export_text("gltf", &scene, weights, &ExportOptions::default()).unwrap();
    let imported = import_gltf_str(&text, None, "arm").unwrap();
    let w = imported
        .weights_file()
        .unwrap()
        .to_weights_for(
            &imported.scene.skeleton().names(),
            imported.scene.mesh().vertex_count(),
        )
        .unwrap();
    let (groups, diff) = imported_seam_difference(&imported.scene, &w);
    assert!(
        groups >= joints,
        "glTF: {groups} seam positions of {joints}"
    );
    assert_eq!(diff, 0.0, "glTF seam weight difference");
    // DragonBones
    let text =
        common::export_text("dragonbones", &scene, weights, &ExportOptions::default()).unwrap();
    let imported = skinweights::io::dragonbones::import_dragonbones(&text).unwrap();
    let (groups, diff) = imported_seam_difference(&imported.scene, &imported.artist);
    assert!(groups >= joints, "DragonBones: {groups} of {joints}");
    assert_eq!(diff, 0.0, "DragonBones seam weight difference");
    // Godot 4
    let godot4 = ExportOptions::default().with_godot(GodotVersion::Godot4);
    let text = common::export_text("godot", &scene, weights, &godot4).unwrap();
    let imported = skinweights::io::godot::import_godot(&text, None).unwrap();
    let (groups, diff) = imported_seam_difference(&imported.scene, &imported.artist);
    assert!(groups >= joints, "Godot: {groups} of {joints}");
    assert_eq!(diff, 0.0, "Godot seam weight difference");
}

#[test]
fn weld_overlaps_records_welds_that_every_solver_honours() {
    let scene = builtin_scene(
        "layered-elbow",
        &BuiltinOptions::default()
            .with_vertices(1500)
            .with_overlap(Some(3.0)),
    )
    .unwrap();
    let options = RepairOptions::default().with_weld_overlaps(true);
    let (fixed, _) = repair(&scene, &options).unwrap();
    assert!(!fixed.seams().welds.is_empty(), "no weld recorded");
    let text = scene_to_json(&fixed, None).unwrap();
    let loaded = scene_from_json(&text, None).unwrap().0;
    assert_eq!(loaded.seams(), fixed.seams());
    for name in ["heat", "linear", "best"] {
        let w = solver_by_name(name, NO_OPTIONS)
            .unwrap()
            .solve(&loaded)
            .unwrap()
            .weights;
        let diff = loaded.seams().max_weight_difference(&w);
        assert!(diff < 1e-12, "{name}: weld difference {diff}");
    }
}

#[test]
fn hostile_seams_give_typed_errors() {
    let scene = hand_made();
    let n = scene.mesh().vertex_count();
    let joints = |j: Vec<Vec<usize>>| Seams {
        joints: j,
        welds: Vec::new(),
    };
    // Out of range.
    match scene.clone().with_seams(joints(vec![vec![2, n + 5]])) {
        Err(Error::Seam(SeamError::SeamVertexOutOfRange { seam, vertex, .. })) => {
            assert_eq!((seam.as_str(), vertex), ("joints[0]", n + 5))
        }
        other => panic!("{other:?}"),
    }
    // A vertex in two groups.
    match scene
        .clone()
        .with_seams(joints(vec![vec![2, 8], vec![8, 2]]))
    {
        Err(Error::Seam(SeamError::SeamVertexRepeated {
            seam,
            vertex,
            first,
        })) => {
            assert_eq!(
                (seam.as_str(), vertex, first.as_str()),
                ("joints[1]", 8, "joints[0]")
            )
        }
        other => panic!("{other:?}"),
    }
    // Members at different rest positions (vertex 0 at x = 0, vertex 8 at x = 40).
    assert!(matches!(
        scene.clone().with_seams(joints(vec![vec![0, 8]])),
        Err(Error::Seam(SeamError::SeamSpread { vertex: 8, .. }))
    ));
    // A lone member.
    assert!(matches!(
        scene.clone().with_seams(joints(vec![vec![2]])),
        Err(Error::Seam(SeamError::InvalidSeam {
            problem: SeamProblem::TooFewMembers { members: 1 },
            ..
        }))
    ));
    let weld = |vertex: usize, at: [f64; 3]| Seams {
        joints: Vec::new(),
        welds: vec![Weld {
            vertex,
            from: [0, 1, 6],
            at,
        }],
    };
    // NaN barycentric coordinates.
    match scene.clone().with_seams(weld(9, [f64::NAN, 0.5, 0.5])) {
        Err(Error::Seam(SeamError::InvalidSeam { seam, problem })) => {
            assert_eq!(seam, "welds[0]");
            assert!(matches!(
                problem,
                SeamProblem::NonFiniteBarycentric { vertex: 9, .. }
            ));
        }
        other => panic!("{other:?}"),
    }
    // Not barycentric.
    assert!(matches!(
        scene.clone().with_seams(weld(9, [2.0, -0.5, -0.5])),
        Err(Error::Seam(SeamError::InvalidSeam { .. }))
    ));
    // A weld target that is also a joint member.
    let both = Seams {
        joints: vec![vec![2, 8]],
        welds: vec![Weld {
            vertex: 8,
            from: [0, 1, 6],
            at: [1.0, 0.0, 0.0],
        }],
    };
    assert!(matches!(
        scene.clone().with_seams(both),
        Err(Error::Seam(SeamError::SeamVertexRepeated { vertex: 8, .. }))
    ));
    // The same through a scene file: the loader names the seam.
    let mut text = scene_to_json(&scene, None).unwrap();
    text = text.replacen("skinweights.scene/1", "skinweights.scene/3", 1);
    let text = format!(
        "{},\"seams\":{{\"joints\":[[2,{}]]}}}}",
        text.trim_end().trim_end_matches('}'),
        n + 1
    );
    assert!(matches!(
        scene_from_json(&text, None),
        Err(Error::Seam(SeamError::SeamVertexOutOfRange { .. }))
    ));
    // A scene with seams must say version 3.
    let old = text.replacen("skinweights.scene/3", "skinweights.scene/1", 1);
    assert!(scene_from_json(&old, None).is_err());
}

/// The join cannot be skipped: a repaired `layered-elbow` solved through a typed solver
/// struct, `solver_by_name`, `recommended()` and the CLI gives the same weights, its seams
/// joined (opening below 1e-6 px).
#[test]
fn every_way_of_building_a_solver_joins_the_seams() {
    use skinweights::solvers::{recommended, Best, Heat, Solver};
    let scene = builtin_scene("layered-elbow", &BuiltinOptions::default()).unwrap();
    let options = RepairOptions::default().with_weld(Some(0.5));
    let (fixed, _) = repair(&scene, &options).unwrap();
    assert!(!fixed.seams().is_empty());
    let by_name = |name: &str| {
        solver_by_name(name, NO_OPTIONS)
            .unwrap()
            .solve(&fixed)
            .unwrap()
            .weights
    };
    let heat_typed = Heat::default().solve(&fixed).unwrap().weights;
    assert_eq!(heat_typed, by_name("heat"));
    let best_typed = Best::default().solve(&fixed).unwrap().weights;
    let best_recommended = recommended().solve(&fixed).unwrap().weights;
    assert_eq!(best_typed, by_name("best"));
    assert_eq!(best_recommended, best_typed);
    for w in [&heat_typed, &best_typed] {
        assert_eq!(fixed.seams().max_weight_difference(w), 0.0);
        let opening = max_opening(&fixed, w);
        assert!(opening < 1e-6, "opening {opening} px");
    }
    // What `compute` gives before the join differs: the join is what closes the crack.
    let raw = Heat::default().compute(&fixed).unwrap().weights;
    assert!(fixed.seams().max_weight_difference(&raw) > 0.0);

    // The CLI's `solve` on the saved repaired scene writes the same weights.
    let path = tmp("layered-elbow-repaired-cli.json");
    save_scene(&fixed, &path).unwrap();
    let out = tmp("layered-elbow-heat-cli.json");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_skinweights"))
        .args(["solve", path.to_str().unwrap(), "--solver", "heat", "-o"])
        .arg(&out)
        .arg("--force")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let file = skinweights::io::WeightsFile::from_json(&text).unwrap();
    let cli = file
        .to_weights_for(&fixed.skeleton().names(), fixed.mesh().vertex_count())
        .unwrap();
    assert!(
        cli.as_slice()
            .iter()
            .zip(heat_typed.as_slice())
            .all(|(a, b)| (a - b).abs() <= 1e-12),
        "the CLI's weights differ from the typed struct's"
    );
}
