//! The `benchmark` experiment: it runs on a rig it is given, scores every solver in both
//! protocols, and the artist's own weights would score perfectly (checked through the
//! library's scores, which the experiment uses).
#![cfg(feature = "cli")]

use skinweights::io::dragonbones::load_dragonbones;
use skinweights::metrics::artist::{score_against_artist, ArtistMesh, ArtistScoreOptions};
use skinweights::scene::SubScene;
use std::process::Command;

const BODY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/data/dragonbones-you-xin/body_ske.json"
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

#[test]
fn benchmark_scores_every_solver_in_both_protocols_on_a_given_rig() {
    let out = tempfile::tempdir().unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_benchmark"))
        .args([BODY, "--solvers", "euclidean,heat", "--json", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let board = json["leaderboard"].as_array().unwrap();
    assert_eq!(
        board.len(),
        4,
        "2 solvers x 2 protocols in the `given` fold"
    );
    for row in board {
        assert_eq!(row["fold"], "given");
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
