//! The `benchmark` experiment: it runs on a rig it is given, scores every solver in both
//! protocols, and the artist's own weights would score perfectly (checked through the
//! library's scores, which the experiment uses). The experiments crate's tests live in
//! `experiments/tests/`; the data they read is the repository's `data/`, one folder up.

use skinweights::io::dragonbones::load_dragonbones;
use skinweights::metrics::artist::{score_against_artist, ArtistMesh, ArtistScoreOptions};
use skinweights::scene::SubScene;
use std::process::Command;

const BODY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../data/dragonbones-you-xin/body_ske.json"
);

#[test]
fn the_artists_weights_score_perfectly_on_every_mesh_of_the_dragonbones_body() {
    let rig = load_dragonbones(BODY).unwrap();
    for m in &rig.report.meshes {
        let cut = SubScene::new(&rig.scene, &m.part, &m.bones).unwrap();
        let mesh = ArtistMesh {
            vertices: &cut.vertices,
            bones: &cut.bones,
        };
        let s = score_against_artist(
            &rig.scene,
            &rig.artist,
            &rig.artist,
            mesh,
            &ArtistScoreOptions::default(),
        )
        .unwrap();
        assert_eq!(s.agreeing, s.vertices, "{}", m.part);
        assert_eq!(s.weight_distance(), 0.0, "{}", m.part);
        assert_eq!(s.one_bone_deviation_pct.len(), m.bones.len());
        assert!(
            s.one_bone_deviation_pct.iter().all(|&d| d == 0.0),
            "{}",
            m.part
        );
    }
}

/// Runs the benchmark binary with `args` and `--json`, and parses what it prints.
fn benchmark_json(args: &[&str]) -> serde_json::Value {
    let run = Command::new(env!("CARGO_BIN_EXE_benchmark"))
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).unwrap()
}

#[test]
fn benchmark_scores_every_solver_in_both_protocols_on_a_given_rig() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let json = benchmark_json(&[BODY, "--solvers", "euclidean,heat", "--out", dir]);
    let board = json["leaderboard"].as_array().unwrap();
    assert_eq!(
        board.len(),
        4,
        "2 solvers x 2 protocols in the `painted` group"
    );
    for row in board {
        assert_eq!(row["fold"], "painted");
        assert_eq!(row["meshes"], 7);
        assert_eq!(row["vertices"], 330);
        let agreement = row["agreement_pct"].as_f64().unwrap();
        assert!(agreement > 40.0 && agreement < 100.0, "{row}");
        let deviation = row["one_bone_mean_pct"].as_f64().unwrap();
        assert!(deviation > 0.0 && deviation.is_finite(), "{row}");
        assert!(row["one_bone_p95_pct"].as_f64().unwrap() >= deviation);
    }
    // Protocol (a) gives each mesh only its artist's bones: euclidean agrees far more often
    // than with every deforming bone of the body (74.5% against 60.3% when measured).
    let agreement = |protocol: &str, solver: &str| {
        board
            .iter()
            .find(|r| r["protocol"] == protocol && r["solver"] == solver)
            .unwrap()["agreement_pct"]
            .as_f64()
            .unwrap()
    };
    assert!(agreement("per mesh", "euclidean") > agreement("whole", "euclidean") + 5.0);
    assert!(out.path().join("leaderboard.md").exists());
    assert!(out.path().join("benchmark.json").exists());
}

/// Alien's artist meshes fold over themselves (its eye): cut out one by one for protocol (a)
/// they stay artist meshes, and every solver scores them.
#[test]
fn benchmark_scores_folded_artist_meshes_of_a_spine_rig() {
    let alien = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/spine/alien/alien-pro.json"
    );
    let json = benchmark_json(&[alien, "--solvers", "euclidean,heat,best"]);
    let rows = json["meshes"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        assert!(row["failed"].is_null(), "{row}");
        assert!(row["agreeing"].as_u64().unwrap() <= row["vertices"].as_u64().unwrap());
    }
}

/// A rig that does not load is a row with its error; the other rigs are still scored, and
/// the report's first tables are per rig and means over rigs.
#[test]
fn a_rig_that_fails_to_load_is_a_row_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken_ske.json");
    std::fs::write(&bad, "{\"armature\": 7}").unwrap();
    let json = benchmark_json(&[
        robot_path(),
        bad.to_str().unwrap(),
        "--solvers",
        "euclidean,heat",
    ]);
    let rigs = json["rigs"].as_array().unwrap();
    assert_eq!(rigs.len(), 2);
    let failed = rigs.iter().find(|r| r["name"] == "broken_ske").unwrap();
    assert_eq!(failed["fold"], "failed");
    assert!(
        failed["error"].as_str().unwrap().contains("armature"),
        "{failed}"
    );
    let robot = rigs
        .iter()
        .find(|r| r["name"] == "dragonbones-robot_ske")
        .unwrap();
    assert!(robot["error"].is_null());
    assert_eq!(robot["meshes"], 2);

    let run = Command::new(env!("CARGO_BIN_EXE_benchmark"))
        .args([robot_path(), "--solvers", "euclidean,heat"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stdout);
    let means = text
        .find("mean over rigs")
        .expect("a means-over-rigs table");
    let pooled = text.find("pooled over vertices").expect("a pooled table");
    assert!(means < pooled, "means over rigs come first");
    assert!(text.contains("rigs won"), "{text}");
}

fn robot_path() -> &'static str {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/artist-rigs/dragonbones-robot_ske.json"
    )
}
