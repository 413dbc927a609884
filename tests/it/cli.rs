//! The command line end to end: scene, solve, compare, eval, lint, plot, and bad input.

use crate::common;

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
    let (scene, notes) = skinweights::io::load_scene(&out).unwrap();
    assert!(notes.is_empty());
    scene.sanity_check().unwrap();
    assert_eq!(scene.name(), "arms-down");
    assert_eq!(scene.skeleton().len(), 5);
    assert!(scene.probes().iter().any(|p| p.name == "lift_l"));
    let n = scene.mesh().vertex_count() as f64;
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
fn compare_default_lists_every_registered_solver_and_writes_the_evidence() {
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
            "heat+mask",
            "bbw",
            "best"
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
    assert_eq!((png.width(), png.height()), (440 * 8, 900));
    let md = std::fs::read_to_string(d.path().join("cmp/compare.md")).unwrap();
    assert!(md.contains("| drag max (% h) |"));
    let o = skinweights(&["compare", "--solvers", "heat,nonsense", "--out", &out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("nonsense"));
    // A second run into the same folder is refused without --force, before any solve.
    let before = std::fs::read(d.path().join("cmp/compare.md")).unwrap();
    let again = ["compare", "--vertices", "3000", "--solvers", "linear"];
    let o = skinweights(&[&again[..], &["--out", &out, "--no-figures"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("already exists"), "{}", text(&o));
    assert_eq!(
        std::fs::read(d.path().join("cmp/compare.md")).unwrap(),
        before
    );
    let o = skinweights(&[&again[..], &["--out", &out, "--no-figures", "--force"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let md = std::fs::read_to_string(d.path().join("cmp/compare.md")).unwrap();
    assert_eq!(md.matches("| linear |").count(), 1, "{md}");
    assert!(!md.contains("| heat |"), "{md}");
}

#[test]
fn compare_by_default_writes_outside_the_tracked_results() {
    // The main job run in a checkout must not rewrite README's results/compare.
    let d = tmp();
    let compare_in_checkout = |solver: &str| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_skinweights"))
            .args([
                "compare",
                "bar",
                "--vertices",
                "500",
                "--no-figures",
                "--solvers",
            ])
            .arg(solver)
            .current_dir(d.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
    };
    compare_in_checkout("linear");
    let table = d.path().join("skinweights-compare/compare.md");
    assert!(table.exists());
    assert!(!d.path().join("results").exists());
    // The main job runs again without --force: its own folder's files are replaced.
    std::fs::write(&table, "old").unwrap();
    compare_in_checkout("heat");
    let md = std::fs::read_to_string(&table).unwrap();
    assert!(
        md.contains("| heat |") && !md.contains("| linear |"),
        "{md}"
    );
}

#[test]
fn solve_defaults_to_best_and_dash_writes_standard_output() {
    let d = tmp();
    let w = p(d.path(), "w.json");
    let o = skinweights(&["solve", "bar", "--vertices", "500", "-o", &w]);
    assert!(o.status.success(), "{}", text(&o));
    let file = skinweights::io::WeightsFile::load(&w).unwrap();
    assert_eq!(file.solver, "best");
    // `-o -`: the file on standard output, the status line on standard error, no file `-`.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_skinweights"))
        .args(["solve", "bar", "--vertices", "500", "-o", "-"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["solver"], "best");
    assert_eq!(
        json["weights"].as_array().unwrap().len(),
        file.weights.len()
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("wrote -"));
    assert!(!d.path().join("-").exists());
    // The help names the default and every registered solver.
    let o = skinweights(&["solve", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(help.contains("[default: best]"), "{help}");
    for name in skinweights::solvers::SOLVER_NAMES {
        assert!(
            help.contains(&format!("  {name} ")),
            "{name} missing from {help}"
        );
    }
    let o = skinweights(&["compare", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        help.contains("[default: linear euclidean geodesic heat mask heat+mask bbw best]"),
        "{help}"
    );
}

#[test]
fn generator_options_with_a_scene_file_are_errors() {
    let d = tmp();
    let scene = p(d.path(), "bar.json");
    let o = skinweights(&["scene", "bar", "--vertices", "500", "-o", &scene]);
    assert!(o.status.success(), "{}", text(&o));
    let w = p(d.path(), "w.json");
    for (flag, value) in [("--vertices", "500"), ("--gap", "4"), ("--overlap", "1")] {
        let o = skinweights(&["solve", &scene, flag, value, "--solver", "linear", "-o", &w]);
        assert_eq!(o.status.code(), Some(2), "{flag}");
        assert!(
            text(&o).contains(flag) && text(&o).contains("scene file"),
            "{}",
            text(&o)
        );
        assert!(!Path::new(&w).exists());
    }
}

#[test]
fn repair_applies_the_built_in_scene_overlap_and_its_own() {
    // `--overlap` is the repair step; the layered-elbow generator's overlap is
    // `--scene-overlap` (both used to be `--overlap`, and the scene's never applied).
    let d = tmp();
    let scene_of = |args: &[&str], name: &str| {
        let out = p(d.path(), name);
        let mut all = vec![
            "repair",
            "layered-elbow",
            "--vertices",
            "3000",
            "--weld",
            "0",
        ];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-o", &out]);
        let o = skinweights(&all);
        assert!(o.status.success(), "{}", text(&o));
        skinweights::io::load_scene(&out).unwrap().0
    };
    let plain = scene_of(&[], "plain.json");
    let under = scene_of(&["--scene-overlap", "3"], "under.json");
    // The scene's own overlap moves the forearm layer's contour: another mesh.
    assert_ne!(plain.mesh().vertices(), under.mesh().vertices());
}

#[test]
fn outputs_onto_devices_fifos_and_symlinks() {
    use std::os::unix::fs::FileTypeExt;
    let d = tmp();
    let dir = d.path();
    // /dev/full: a typed "no space" error, and the node stays a device.
    let o = skinweights(&[
        "scene",
        "bar",
        "--vertices",
        "500",
        "-o",
        "/dev/full",
        "--force",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("no space left"), "{}", text(&o));
    assert!(std::fs::metadata("/dev/full")
        .unwrap()
        .file_type()
        .is_char_device());
    // A private null device made with mknod (as root), written through without --force.
    let null = dir.join("null");
    let made = std::process::Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if made {
        let o = skinweights(&["scene", "bar", "--vertices", "500", "-o", &p(dir, "null")]);
        assert!(o.status.success(), "{}", text(&o));
        assert!(std::fs::metadata(&null)
            .unwrap()
            .file_type()
            .is_char_device());
    } else {
        eprintln!("note: mknod refused here; the private device node case is skipped");
    }
    // A FIFO: its reader receives the whole file, and the FIFO stays.
    let fifo = dir.join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let o = skinweights(&["scene", "bar", "--vertices", "500", "-o", &p(dir, "fifo")]);
    assert!(o.status.success(), "{}", text(&o));
    let got = reader.join().unwrap();
    let scene = skinweights::io::scene_from_json(std::str::from_utf8(&got).unwrap(), None)
        .unwrap()
        .0;
    assert_eq!(scene.name(), "bar");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    // A symlink: its target (in another folder) is written, the link stays a link; an
    // existing target still needs --force.
    std::fs::create_dir(dir.join("real")).unwrap();
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(dir.join("real/target.json"), &link).unwrap();
    let o = skinweights(&[
        "scene",
        "bar",
        "--vertices",
        "500",
        "-o",
        &p(dir, "link.json"),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        skinweights::io::load_scene(dir.join("real/target.json"))
            .unwrap()
            .0
            .name(),
        "bar"
    );
    let o = skinweights(&[
        "scene",
        "arms-down",
        "--vertices",
        "500",
        "-o",
        &p(dir, "link.json"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("already exists"), "{}", text(&o));
    let o = skinweights(&[
        "scene",
        "arms-down",
        "--vertices",
        "500",
        "-o",
        &p(dir, "link.json"),
        "--force",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let target = skinweights::io::load_scene(dir.join("real/target.json"))
        .unwrap()
        .0;
    assert_eq!(target.name(), "arms-down");
    assert_eq!(std::fs::read_dir(dir.join("real")).unwrap().count(), 1);
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
    let file = skinweights::io::WeightsFile::load(&w).unwrap();
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

/// `skinweights ... | head`: the reader closes the pipe before the command writes. The
/// command must end quietly (SIGPIPE, as Unix tools do), not panic on the broken pipe.
#[cfg(unix)]
#[test]
fn a_closed_standard_output_ends_the_command_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let d = tmp();
    for args in [
        &[
            "compare",
            "bar",
            "--vertices",
            "300",
            "--solvers",
            "linear",
            "--json",
        ][..],
        &["pose", "bar", "--json"][..],
        &[
            "solve",
            "bar",
            "--vertices",
            "300",
            "--solver",
            "linear",
            "-o",
            "-",
        ][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_skinweights"))
            .args(args)
            .current_dir(d.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            o.status.signal() == Some(13) || o.status.code() == Some(2),
            "{args:?}: {:?} {stderr}",
            o.status
        );
    }
}

/// Runs `skinweights ARGS` in `dir` (issue 47: names resolved against the working folder).
fn skinweights_in(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_skinweights"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("runs")
}

/// Issue 47: after `compare figure --out figure` a folder named `figure` is here; the
/// built-in scene is still used, with a note saying the folder was ignored. A regular file
/// named like a built-in is read, with a note saying so; a folder named like no built-in is
/// a typed error naming it.
#[test]
fn a_local_path_named_like_a_built_in_does_not_hide_it_silently() {
    let dir = tmp();
    let d = dir.path();
    std::fs::create_dir(d.join("figure")).unwrap();
    let o = skinweights_in(d, &["scene", "figure", "--vertices", "500", "-o", "f.json"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("using the built-in scene \"figure\"; the folder ./figure is ignored"),
        "{}",
        text(&o)
    );
    let o = skinweights_in(
        d,
        &[
            "solve",
            "figure",
            "--vertices",
            "500",
            "--solver",
            "linear",
            "-o",
            "w.json",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("the folder ./figure is ignored"),
        "{}",
        text(&o)
    );

    std::fs::copy(d.join("f.json"), d.join("bar")).unwrap();
    let o = skinweights_in(d, &["eval", "bar", "w.json"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("reading the scene file ./bar, not the built-in scene \"bar\""),
        "{}",
        text(&o)
    );

    std::fs::create_dir(d.join("stuff")).unwrap();
    let o = skinweights_in(d, &["solve", "stuff", "-o", "w2.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("stuff is a folder, not a scene file (built-in scenes: "),
        "{}",
        text(&o)
    );
}

/// The DragonBones body imported into `dir` as `body.json` (+ `body.artist.json`).
fn import_body(dir: &Path) {
    let ske = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/dragonbones-you-xin/body_ske.json"
    );
    let o = skinweights_in(dir, &["import", "dragonbones", ske, "-o", "body.json"]);
    assert!(o.status.success(), "{}", text(&o));
}

/// Lines of standard error that start with `warning:`.
fn warning_lines(o: &std::process::Output) -> usize {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .count()
}

/// Issue 47: `solve body.json --solver bbw` printed 70 warning lines; long lists of one kind
/// are summarised (the first few and a count), the whole list behind --verbose.
#[test]
fn long_lists_of_solver_warnings_are_summarised_unless_verbose() {
    let dir = tmp();
    let d = dir.path();
    import_body(d);
    let args = [
        "solve",
        "body.json",
        "--solver",
        "bbw",
        "--bones",
        "all",
        "--bind",
        "all",
    ];
    let o = skinweights_in(d, &[&args[..], &["-o", "a.json"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let short = warning_lines(&o);
    assert!(short <= 10, "{short} warning lines:\n{}", text(&o));
    assert!(text(&o).contains("more of this kind; --verbose for all"));
    let o = skinweights_in(d, &[&args[..], &["--verbose", "-o", "b.json"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(warning_lines(&o), 70, "{}", text(&o));
    assert!(!text(&o).contains("--verbose for all"));
    assert_eq!(
        std::fs::read(d.join("a.json")).unwrap(),
        std::fs::read(d.join("b.json")).unwrap()
    );
}

/// `solve body.json --solver heat --bones BONES -o OUT` in `dir`, which must succeed.
fn solve_heat_with_bones(dir: &Path, bones: &str, out: &str) -> std::process::Output {
    let args = [
        "solve",
        "body.json",
        "--solver",
        "heat",
        "--bones",
        bones,
        "--bind",
        "all",
        "-o",
        out,
    ];
    let o = skinweights_in(dir, &args);
    assert!(o.status.success(), "{}", text(&o));
    o
}

/// Issue 47, item 2: `solve` weights the deforming bones only: on the DragonBones body the
/// IK target `bone_ikTarget` (0 in the artist's weights) gets no weight, a note names it,
/// rows still sum to 1 over all 70 bones; `--bones all` writes what solving every bone
/// writes, byte for byte; `--bones A,B` weights those.
#[test]
fn solve_weights_the_deforming_bones_unless_asked() {
    let dir = tmp();
    let d = dir.path();
    import_body(d);
    let o = skinweights_in(
        d,
        &[
            "solve",
            "body.json",
            "--solver",
            "heat",
            "--bind",
            "all",
            "-o",
            "h.json",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("bones get weight 0 (--bones all weights them)"));
    assert!(text(&o).contains("bone_ikTarget"));
    let file = skinweights::io::WeightsFile::load(d.join("h.json")).unwrap();
    assert_eq!(file.bones.len(), 70);
    let ik = file
        .bones
        .iter()
        .position(|b| b == "bone_ikTarget")
        .unwrap();
    assert!(file.weights.iter().all(|r| r[ik] == 0.0));
    for row in &file.weights {
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
    let artist = skinweights::io::WeightsFile::load(d.join("body.artist.json")).unwrap();
    for (j, bone) in file.bones.iter().enumerate() {
        let a = artist.bones.iter().position(|b| b == bone).unwrap();
        if artist.weights.iter().all(|r| r[a] == 0.0) {
            assert!(file.weights.iter().all(|r| r[j] == 0.0), "{bone}");
        }
    }

    let o = solve_heat_with_bones(d, "all", "all.json");
    assert!(!text(&o).contains("get weight 0"));
    let (scene, _) = skinweights::io::load_scene(d.join("body.json")).unwrap();
    let w = skinweights::solvers::solve(&scene, "heat").unwrap();
    skinweights::io::WeightsFile::save_weights(
        d.join("lib.json"),
        scene.name(),
        "heat",
        &scene.skeleton().names(),
        &w,
    )
    .unwrap();
    assert_eq!(
        std::fs::read(d.join("all.json")).unwrap(),
        std::fs::read(d.join("lib.json")).unwrap(),
        "--bones all is today's output"
    );

    solve_heat_with_bones(d, "pelvis,spine", "two.json");
    let two = skinweights::io::WeightsFile::load(d.join("two.json")).unwrap();
    let kept = ["pelvis", "spine"].map(|n| two.bones.iter().position(|b| b == n).unwrap());
    for row in &two.weights {
        assert!((kept.iter().map(|&j| row[j]).sum::<f64>() - 1.0).abs() < 1e-9);
    }
    let o = skinweights_in(
        d,
        &[
            "solve",
            "body.json",
            "--bones",
            "pelvis,nope",
            "-o",
            "x.json",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("--bones: unknown bone \"nope\""),
        "{}",
        text(&o)
    );
}

/// Issue 47, item 2: `compare` and `view` use the same rule as `solve`.
#[test]
fn compare_weights_the_deforming_bones_as_solve_does() {
    let dir = tmp();
    let d = dir.path();
    import_body(d);
    let o = skinweights_in(
        d,
        &[
            "compare",
            "body.json",
            "--clip",
            "idle",
            "--solvers",
            "heat",
            "--bind",
            "all",
            "--json",
            "--out",
            "c",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("bone_ikTarget"), "{}", text(&o));
    assert!(text(&o).contains("bones get weight 0"), "{}", text(&o));
    let args = [
        "view",
        "body.json",
        "--html",
        "v.html",
        "--solvers",
        "heat",
        "--bind",
        "all",
    ];
    let o = skinweights_in(d, &args);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("bone_ikTarget"), "{}", text(&o));
}

/// Issue 47, item 1: on an imported rig without probes, `compare`, `eval` and `plot` measure
/// what the rig has: its clips, against the artist's weights the import wrote beside it.
#[test]
fn commands_on_a_rig_without_probes_measure_its_clips_against_the_artist() {
    let dir = tmp();
    let d = dir.path();
    let owl = concat!(env!("CARGO_MANIFEST_DIR"), "/data/spine/owl/owl-pro.json");
    let o = skinweights_in(d, &["import", "spine", owl, "-o", "owl.json"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(d.join("owl.artist.json").is_file());
    let o = skinweights_in(d, &["solve", "owl.json", "-o", "owl.best.json"]);
    assert!(o.status.success(), "{}", text(&o));

    let o = skinweights_in(d, &["compare", "owl.json", "--json", "--out", "cmp"]);
    assert!(o.status.success(), "{}", text(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["clip"], "all");
    assert_eq!(doc["reference"], "owl.artist.json");
    let best = (doc["solvers"].as_array().unwrap().iter())
        .find(|s| s["solver"] == "best")
        .unwrap();
    let deviation = best["all"]["deviation_max_px"].as_f64();
    assert!(deviation.is_some_and(|x| x > 0.0), "{best}");
    assert!(text(&o).contains("has no probe"), "{}", text(&o));

    let o = skinweights_in(d, &["eval", "owl.json", "owl.best.json", "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["reference"], "owl.artist.json");
    assert_eq!(
        doc["all"]["deviation_max_px"].as_f64(),
        deviation,
        "eval and compare agree"
    );

    let o = skinweights_in(d, &["plot", "owl.json", "owl.best.json", "-o", "owl.png"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(d.join("owl.png").is_file());
}

/// `lint` on imported Spine rigs: the pixel-edge check is drawn at 1, 2 and 4 pixels per
/// texel of the atlas (packed at half size, so half a pixel per scene unit at 1x), and a
/// scale whose frame is over the renderer's limits (the 7200-unit-wide tank at 4x) is a
/// `SKIP` row, not an error: the other rows are still measured and the exit code still
/// separates the weights (1) from the art (4).
#[test]
fn lint_draws_spine_art_per_texel_and_skips_a_scale_too_large_to_render() {
    let d = tmp();
    for (rig, json) in [("owl", "owl-pro.json"), ("tank", "tank-pro.json")] {
        let scene = p(d.path(), &format!("{rig}.json"));
        let source = format!("{}/data/spine/{rig}/{json}", env!("CARGO_MANIFEST_DIR"));
        let o = skinweights(&["import", "spine", &source, "-o", &scene]);
        assert!(o.status.success(), "{}", text(&o));
        let (loaded, _) = skinweights::io::load_scene(&scene).unwrap();
        let density = loaded
            .art()
            .unwrap()
            .texels_per_unit(loaded.mesh())
            .unwrap();
        assert!((density - 0.5).abs() < 0.01, "{rig}: {density}");
    }
    let artist = |rig: &str| p(d.path(), &format!("{rig}.artist.json"));
    let owl = skinweights(&["lint", &p(d.path(), "owl.json"), &artist("owl"), "--art"]);
    let out = text(&owl);
    for scale in ["1x", "2x", "4x"] {
        assert!(
            out.contains(&format!("PASS pixel edge rest {scale}")),
            "{out}"
        );
    }
    let tank = skinweights(&["lint", &p(d.path(), "tank.json"), &artist("tank"), "--art"]);
    let out = text(&tank);
    assert!(out.contains("SKIP pixel edge 4x"), "{out}");
    assert!(out.contains("over the renderer's limit"), "{out}");
    assert!(out.contains("pixel edge rest 2x"), "{out}");
    assert!(matches!(tank.status.code(), Some(1) | Some(4)), "{out}");
}

/// An art image that is missing (a scene moved without its images) leaves the weights'
/// checks measured and the pixel-edge check a `SKIP` row naming the file, not an error.
#[test]
fn lint_skips_the_pixel_edge_check_when_the_art_image_is_missing() {
    let d = tmp();
    let scene = p(d.path(), "gbot.json");
    let tscn = format!("{}/data/godot-gbot/player.tscn", env!("CARGO_MANIFEST_DIR"));
    let o = skinweights(&["import", "godot", &tscn, "-o", &scene]);
    assert!(o.status.success(), "{}", text(&o));
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&scene).unwrap()).unwrap();
    json["art"]["images"][0]["path"] = "no_such_image.png".into();
    std::fs::write(&scene, json.to_string()).unwrap();
    let lint = skinweights(&["lint", &scene, &p(d.path(), "gbot.artist.json"), "--art"]);
    let out = text(&lint);
    assert!(out.contains("PASS weight normalization"), "{out}");
    assert!(out.contains("SKIP pixel edge"), "{out}");
    assert!(out.contains("no_such_image.png"), "{out}");
    // The exit code is the weights': the artist's own, judged against themselves.
    assert_eq!(lint.status.code(), Some(0), "{out}");
}

/// `lint` on an imported rig judges the weights against the artist's (SCENE.artist.json
/// beside the scene): the owl's artist leaves 2 isolated discontinuities that show in its
/// clips, reported but not counted; `--no-reference` counts them; `best`'s weights fail only
/// by what they add; the art's pixel-edge check runs only with `--art`.
#[test]
fn lint_judges_an_imported_rig_against_the_artists_weights() {
    let d = tmp();
    let dir = d.path();
    let source = format!("{}/data/spine/owl/owl-pro.json", env!("CARGO_MANIFEST_DIR"));
    let o = skinweights(&["import", "spine", &source, "-o", &p(dir, "owl.json")]);
    assert!(o.status.success(), "{}", text(&o));
    let o = skinweights_in(dir, &["lint", "owl.json", "owl.artist.json"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("FAIL neighbourhood continuity     2 isolated discontinuities that show"),
        "{out}"
    );
    assert!(out.contains("2 more stay within 1 px"), "{out}");
    assert!(out.contains("the reference fails it as badly"), "{out}");
    assert!(out.contains("--art to render it"), "{out}");
    assert!(!out.contains("pixel edge rest"), "{out}");
    let o = skinweights_in(
        dir,
        &["lint", "owl.json", "owl.artist.json", "--no-reference"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));

    // The whole solve (the default binds each weighted mesh to its artist's bones).
    let o = skinweights_in(
        dir,
        &["solve", "owl.json", "--bind", "all", "-o", "owl.best.json"],
    );
    assert!(o.status.success(), "{}", text(&o));
    let o = skinweights_in(dir, &["lint", "owl.json", "owl.best.json", "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let continuity = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["check"] == "neighbourhood continuity")
        .unwrap();
    let ours = continuity["values"]["isolated_vertices"].as_f64().unwrap();
    assert_eq!(continuity["reference"]["pass"], false, "{continuity}");
    // best moves the owl's image quads rigidly: no discontinuity that shows.
    assert_eq!(ours, 0.0, "{continuity}");
    assert_eq!(continuity["shared_with_reference"], false, "{continuity}");
    assert_eq!(o.status.code(), Some(0), "{continuity}");
}
