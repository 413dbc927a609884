//! The command line end to end: scene, solve, compare, eval, lint, plot, and bad input.

#![cfg(feature = "cli")]

mod common;

use common::{skinweights, text};
use std::path::Path;

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn p(dir: &Path, name: &str) -> String {
    dir.join(name).to_string_lossy().to_string()
}

#[test]
fn scene_writes_a_valid_file_and_refuses_to_overwrite() {
    let d = tmp();
    let out = p(d.path(), "arms.json");
    let o = skinweights(&[
        "scene",
        "arms-down",
        "--gap",
        "12",
        "--vertices",
        "3000",
        "-o",
        &out,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let (scene, notes) = skinweights::load_scene(&out).unwrap();
    assert!(notes.is_empty());
    scene.sanity_check().unwrap();
    assert_eq!(scene.name, "arms-down");
    assert_eq!(scene.skeleton.len(), 5);
    assert!(scene.probes.iter().any(|p| p.name == "lift_l"));
    let n = scene.mesh.vertex_count() as f64;
    assert!((n - 3000.0).abs() <= 300.0, "{n}");
    // A second run must not clobber the file without --force.
    let before = std::fs::read(&out).unwrap();
    let o = skinweights(&["scene", "bar", "-o", &out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("already exists"), "{}", text(&o));
    assert_eq!(std::fs::read(&out).unwrap(), before);
    for name in ["arms-touching", "layered-arms", "bar", "figure"] {
        let o = skinweights(&[
            "scene",
            name,
            "--vertices",
            "2000",
            "-o",
            &p(d.path(), &format!("{name}.json")),
        ]);
        assert!(o.status.success(), "{name}: {}", text(&o));
    }
    let o = skinweights(&["scene", "dragon", "-o", &p(d.path(), "x.json")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("unknown built-in scene"));
}

#[test]
fn compare_default_lists_six_solvers_and_writes_the_evidence() {
    let d = tmp();
    let out = p(d.path(), "cmp");
    let o = skinweights(&["compare", "--vertices", "3000", "--out", &out, "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["scene"], "arms-down");
    assert_eq!(json["probe"], "lift_l");
    let rows = json["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["solver"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "linear",
            "euclidean",
            "geodesic",
            "heat",
            "mask",
            "heat+mask"
        ]
    );
    for key in [
        "drag_max_pct",
        "drag_mean_pct",
        "leaked_weight",
        "flipped",
        "distortion_max",
        "distortion_p99",
        "area_change_pct",
        "norm_err",
        "bind_err",
        "discontinuities",
        "dirichlet",
        "time_s",
    ] {
        assert!(rows.iter().all(|r| r.get(key).is_some()), "missing {key}");
    }
    for f in [
        "compare.md",
        "compare.csv",
        "compare.json",
        "overview.png",
        "overview.svg",
    ] {
        let meta = std::fs::metadata(d.path().join("cmp").join(f)).unwrap();
        assert!(meta.len() > 100, "{f} is empty");
    }
    let png = image::open(d.path().join("cmp/overview.png")).unwrap();
    assert_eq!((png.width(), png.height()), (440 * 6, 900));
    let md = std::fs::read_to_string(d.path().join("cmp/compare.md")).unwrap();
    assert!(md.contains("| drag max (% h) |"));
    let o = skinweights(&["compare", "--solvers", "heat,nonsense", "--out", &out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("nonsense"));
}

#[test]
fn solve_eval_lint_plot_round_trip() {
    let d = tmp();
    let scene = p(d.path(), "bar.json");
    assert!(
        skinweights(&["scene", "bar", "--vertices", "2000", "-o", &scene])
            .status
            .success()
    );
    let w = p(d.path(), "w.json");
    let o = skinweights(&[
        "solve",
        &scene,
        "--solver",
        "heat",
        "--max-influences",
        "1",
        "-o",
        &w,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let file = skinweights::WeightsFile::load(&w).unwrap();
    assert_eq!(file.solver, "heat");
    assert!(file
        .weights
        .iter()
        .all(|r| r.iter().filter(|&&x| x != 0.0).count() == 1));

    let o = skinweights(&["eval", &scene, &w, "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["probe"], "bend");
    assert!(json["rows"][0]["norm_err"].as_f64().unwrap() < 1e-12);

    // One row summing to 0.85: eval reports it, lint fails with the seed's hint.
    let mut broken = file.clone();
    broken.weights[5] = vec![0.25, 0.60];
    let bad = p(d.path(), "bad.json");
    broken.save(&bad).unwrap();
    let o = skinweights(&["eval", &scene, &bad, "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!((json["rows"][0]["norm_err"].as_f64().unwrap() - 0.15).abs() < 1e-12);
    let o = skinweights(&["lint", &scene, &bad]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("FAIL weight normalization"), "{t}");
    assert!(
        t.contains("uninitialized weights, import precision, missing influence"),
        "{t}"
    );
    assert!(t.contains("vertex 5"), "{t}");

    // Heat weights on the bar pass the seed's checks.
    let o = skinweights(&[
        "solve",
        &scene,
        "--solver",
        "heat",
        "-o",
        &p(d.path(), "heat.json"),
    ]);
    assert!(o.status.success());
    let o = skinweights(&["lint", &scene, &p(d.path(), "heat.json")]);
    assert!(text(&o).contains("PASS bind-pose identity"), "{}", text(&o));

    // Wrong vertex count or bones: a clear error, exit 2, no panic.
    let mut short = file.clone();
    short.weights.pop();
    let s = p(d.path(), "short.json");
    short.save(&s).unwrap();
    let o = skinweights(&["eval", &scene, &s]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("vertices"), "{}", text(&o));
    let mut renamed = file.clone();
    renamed.bones[0] = "femur".into();
    let r = p(d.path(), "renamed.json");
    renamed.save(&r).unwrap();
    let o = skinweights(&["lint", &scene, &r]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("femur") || text(&o).contains("upper"),
        "{}",
        text(&o)
    );

    for ext in ["png", "svg"] {
        let fig = p(d.path(), &format!("fig.{ext}"));
        let o = skinweights(&["plot", &scene, &w, "-o", &fig]);
        assert!(o.status.success(), "{}", text(&o));
        assert!(std::fs::metadata(&fig).unwrap().len() > 1000);
    }
    let o = skinweights(&["plot", &scene, &w, "-o", &p(d.path(), "fig.gif")]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn solve_help_lists_every_solver_option() {
    use skinweights::solvers::{EuclideanOptions, HeatOptions, LinearOptions, SolverOptions};
    let o = skinweights(&["solve", "--help"]);
    let help = text(&o);
    for line in LinearOptions::help()
        .into_iter()
        .chain(EuclideanOptions::help())
        .chain(HeatOptions::help())
    {
        // Each key with its meaning and its default, as the options struct states them.
        assert!(help.contains(&line), "--help does not say {line:?}");
    }
    // The defaults come from the structs' Default, not from a copy of the numbers.
    assert!(help.contains("tie_tolerance=T") && help.contains("(default 0.000001)"));
    assert!(help.contains("blend_fraction=F") && help.contains("(default 0.1)"));
}

#[test]
fn no_output_lands_on_an_input_or_on_another_output_even_with_force() {
    let d = tmp();
    let scene = p(d.path(), "bar.json");
    let o = skinweights(&["scene", "bar", "--vertices", "500", "-o", &scene]);
    assert!(o.status.success(), "{}", text(&o));
    let before = std::fs::read(&scene).unwrap();
    // solve onto its own scene file.
    let o = skinweights(&["solve", &scene, "--solver", "heat", "-o", &scene, "--force"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("is also an input"), "{}", text(&o));
    assert_eq!(std::fs::read(&scene).unwrap(), before);
    // import with the scene and weights outputs on one path.
    let body = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/dragonbones-you-xin/body_ske.json"
    );
    let same = p(d.path(), "same.json");
    let o = skinweights(&[
        "import",
        "dragonbones",
        body,
        "-o",
        &same,
        "--weights",
        &same,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("two outputs"), "{}", text(&o));
    assert!(!Path::new(&same).exists());
}
