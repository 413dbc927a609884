//! `compare --clip`: each solver's weights played over the scene's clips, with the numbers of
//! `eval --clip` on the same weights (issue 26), on the DragonBones body.

use crate::common;

use common::{data, skinweights};
use serde_json::Value;

fn json(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn compare_clip_numbers_equal_eval_clip_for_the_same_weights() {
    let dir = tempfile::tempdir().unwrap();
    let p = |f: &str| dir.path().join(f).display().to_string();
    let body = data("dragonbones-you-xin/body_ske.json")
        .display()
        .to_string();
    let out = skinweights(&["import", "dragonbones", &body, "-o", &p("body.json")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (scene, artist) = (p("body.json"), p("body.artist.json"));
    let compare = json(&skinweights(&[
        "compare",
        &scene,
        "--clip",
        "all",
        "--solvers",
        "linear,euclidean",
        "--reference",
        &artist,
        "--json",
        "--out",
        &p("out"),
    ]));
    assert!(dir.path().join("out/compare-clip.md").exists());
    let solvers = compare["solvers"].as_array().unwrap();
    assert_eq!(solvers.len(), 2);
    for (i, name) in ["linear", "euclidean"].iter().enumerate() {
        let w = p(&format!("{name}.json"));
        let out = skinweights(&["solve", &scene, "--solver", name, "-o", &w]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let eval = json(&skinweights(&[
            "eval",
            &scene,
            &w,
            "--clip",
            "all",
            "--reference",
            &artist,
            "--json",
        ]));
        let c = &solvers[i];
        assert_eq!(c["solver"], *name);
        let clips = c["clips"].as_array().unwrap();
        assert_eq!(clips.len(), 10, "the body's ten clips");
        for (got, want) in clips.iter().chain([&c["all"]]).zip(
            eval["clips"]
                .as_array()
                .unwrap()
                .iter()
                .chain([&eval["all"]]),
        ) {
            for key in [
                "deviation_max_px",
                "deviation_p95_px",
                "deviation_mean_px",
                "deviation_max_pct",
                "flipped_max",
                "area_change_max_pct",
            ] {
                let (g, w) = (got[key].as_f64().unwrap(), want[key].as_f64().unwrap());
                assert!(
                    (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                    "{name} {key}: {g} vs {w}"
                );
            }
            assert_eq!(got["frames"], want["frames"]);
            assert_eq!(got["clip"], want["clip"]);
        }
        eprintln!(
            "{name} over the body's clips: deviation max {:.3} px, p95 {:.3}, mean {:.3}, flipped max {}",
            c["all"]["deviation_max_px"], c["all"]["deviation_p95_px"], c["all"]["deviation_mean_px"], c["all"]["flipped_max"]
        );
        assert!(c["all"]["deviation_max_px"].as_f64().unwrap() > 0.0);
    }
    // Without --clip the probe table is unchanged: --reference needs --clip.
    let out = skinweights(&["compare", &scene, "--reference", &artist]);
    assert!(!out.status.success());
}
