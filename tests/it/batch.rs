//! `skinweights batch`: a row per item, hostile files as typed error rows, weights equal to
//! `solve` byte for byte, resume from the done records, and a SIGKILLed batch that resumes
//! to the report of an uninterrupted one.

use crate::common;

use common::{data, skinweights, text};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Copies `from` (a file or a folder, not recursive) into `dir`.
fn copy_into(from: &Path, dir: &Path) {
    if from.is_dir() {
        let sub = dir.join(from.file_name().unwrap());
        std::fs::create_dir_all(&sub).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                std::fs::copy(&p, sub.join(p.file_name().unwrap())).unwrap();
            }
        }
    } else {
        std::fs::copy(from, dir.join(from.file_name().unwrap())).unwrap();
    }
}

/// The rows of a JSON report.
fn rows(out: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join("report.json")).unwrap();
    serde_json::from_str::<Vec<Value>>(&text).unwrap()
}

/// The rows without their timings.
fn untimed(rows: &[Value]) -> Vec<Value> {
    rows.iter()
        .map(|r| {
            let mut r = r.clone();
            r.as_object_mut().unwrap().remove("seconds");
            r
        })
        .collect()
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

fn path_arg(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn a_folder_of_rigs_sprites_scenes_and_hostile_files_gives_a_row_each() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    copy_into(&data("spine/vine"), &input);
    copy_into(&data("godot-gbot"), &input);
    copy_into(&data("dragonbones-you-xin/body_ske.json"), &input);
    copy_into(&data("creature/creature-bat.json"), &input);
    copy_into(&data("khronos-simpleskin/SimpleSkin.gltf"), &input);
    let bar = input.join("bar.json");
    let o = skinweights(&["scene", "bar", "--vertices", "500", "-o", &path_arg(&bar)]);
    assert!(o.status.success(), "{}", text(&o));
    std::fs::write(input.join("garbage.json"), "{\"bones\": [1, 2").unwrap();
    let spine = std::fs::read(data("spine/owl/owl-pro.json")).unwrap();
    std::fs::write(input.join("truncated.json"), &spine[..spine.len() / 2]).unwrap();
    std::fs::write(input.join("empty.json"), "").unwrap();
    std::fs::write(input.join("unknown.json"), "{\"hello\": \"world\"}").unwrap();

    let out = dir.path().join("out");
    let o = skinweights(&[
        "batch",
        &path_arg(&input),
        "--out",
        &path_arg(&out),
        "--vertices",
        "2000",
        "--reference",
        "artist",
        "--export",
    ]);
    assert_eq!(o.status.code(), Some(3), "some rows failed: {}", text(&o));
    let summary = text(&o);
    assert!(
        summary.contains("batch: 11 items x 1 solvers = 11 rows: 7 ok, 4 failed"),
        "{summary}"
    );
    let rows = rows(&out);
    let by_name = |name: &str| {
        rows.iter()
            .find(|r| s(&r["input"]).ends_with(name))
            .unwrap_or_else(|| panic!("no row for {name}: {rows:#?}"))
    };
    // The hostile files: typed errors, the rest completes.
    for (name, kind) in [
        ("garbage.json", "Json"),
        ("truncated.json", "Json"),
        ("empty.json", "Json"),
        ("unknown.json", "NotAnItem"),
    ] {
        let r = by_name(name);
        assert_eq!(s(&r["status"]), "error", "{r}");
        assert_eq!(s(&r["error_kind"]), kind, "{r}");
        assert!(
            s(&r["error"]).contains(name),
            "the error names the file: {r}"
        );
        assert_eq!(s(&r["weights"]), "", "{r}");
    }
    for (name, kind) in [
        ("vine-pro.json", "spine"),
        ("player.tscn", "godot"),
        ("body_ske.json", "dragonbones"),
        ("creature-bat.json", "creature"),
        ("SimpleSkin.gltf", "gltf"),
    ] {
        let r = by_name(name);
        assert_eq!(s(&r["status"]), "ok", "{r}");
        assert_eq!(s(&r["kind"]), kind, "{r}");
        assert_eq!(s(&r["solver"]), skinweights::solvers::RECOMMENDED_SOLVER);
        assert!(r["artist_agreement_pct"].is_number(), "scored: {r}");
        assert!(Path::new(s(&r["export"])).is_file(), "exported: {r}");
        assert!(matches!(s(&r["lint"]), "pass" | "fail"), "{r}");
    }
    let r = by_name("gBot.png");
    assert_eq!((s(&r["status"]), s(&r["kind"])), ("ok", "sprite"), "{r}");
    assert!(
        r["artist_agreement_pct"].is_null(),
        "a sprite has no artist: {r}"
    );
    let r = by_name("bar.json");
    assert_eq!((s(&r["status"]), s(&r["kind"])), ("ok", "scene"));
    assert_eq!(
        s(&r["scene"]),
        path_arg(&bar),
        "a scene file is its own scene"
    );
    assert_eq!(s(&r["export"]), "", "a scene has no other format");

    // Every valid item's weights are `solve`'s of the same scene, byte for byte.
    for r in rows.iter().filter(|r| s(&r["status"]) == "ok") {
        let w = dir.path().join("solved.json");
        let o = skinweights(&["solve", s(&r["scene"]), "-o", &path_arg(&w), "--force"]);
        assert!(o.status.success(), "{}", text(&o));
        assert!(
            std::fs::read(&w).unwrap() == std::fs::read(s(&r["weights"])).unwrap(),
            "{} differs from solve",
            s(&r["weights"])
        );
    }
    // ... and the scene is the one `import` and `mesh` write (in the same folder: art paths
    // are relative to it).
    let imported = out.join("vine_import.json");
    let vine = input.join("vine/vine-pro.json");
    let o = skinweights(&[
        "import",
        "spine",
        &path_arg(&vine),
        "--skin",
        "all",
        "-o",
        &path_arg(&imported),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let vine_row = by_name("vine-pro.json");
    assert!(std::fs::read(&imported).unwrap() == std::fs::read(s(&vine_row["scene"])).unwrap());
    let meshed = out.join("gbot_mesh.json");
    let sprite = input.join("godot-gbot/gBot.png");
    let bones = input.join("godot-gbot/gBot_bones.json");
    let o = skinweights(&[
        "mesh",
        &path_arg(&sprite),
        "--bones",
        &path_arg(&bones),
        "--vertices",
        "2000",
        "-o",
        &path_arg(&meshed),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        std::fs::read(&meshed).unwrap() == std::fs::read(s(&by_name("gBot.png")["scene"])).unwrap()
    );
    // The CSV holds the same rows.
    let csv = std::fs::read_to_string(out.join("report.csv")).unwrap();
    assert_eq!(csv.lines().count(), rows.len() + 1);
    assert!(csv.starts_with("input,kind,solver,status,error,"));
    assert!(!out.join("report.running.csv").exists());
}

#[test]
fn a_rerun_reuses_every_done_row_and_computes_a_deleted_one_again() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    for (name, vertices) in [("a", "500"), ("b", "600"), ("c", "700")] {
        let o = skinweights(&[
            "scene",
            "bar",
            "--vertices",
            vertices,
            "-o",
            &path_arg(&input.join(format!("{name}.json"))),
        ]);
        assert!(o.status.success(), "{}", text(&o));
    }
    std::fs::write(input.join("bad.json"), "[").unwrap();
    let out = dir.path().join("out");
    let run = || {
        let o = skinweights(&[
            "batch",
            &path_arg(&input),
            "--out",
            &path_arg(&out),
            "--solver",
            "heat",
            "--solver",
            "euclidean",
        ]);
        assert_eq!(o.status.code(), Some(3), "{}", text(&o));
        text(&o)
    };
    let first = run();
    assert!(first.contains("8 computed, 0 reused"), "{first}");
    let before = rows(&out);
    let again = run();
    assert!(again.contains("0 computed, 8 reused"), "{again}");
    assert_eq!(
        rows(&out),
        before,
        "reused rows keep their measured seconds"
    );
    // Delete one record: only that row is computed again.
    let victim = before
        .iter()
        .find(|r| s(&r["input"]).ends_with("b.json") && s(&r["solver"]) == "heat")
        .unwrap();
    std::fs::remove_file(
        out.join(".batch")
            .join(format!("{}.json", s(&victim["key"]))),
    )
    .unwrap();
    let third = run();
    assert!(third.contains("1 computed, 7 reused"), "{third}");
    let after = rows(&out);
    assert_eq!(untimed(&after), untimed(&before));
    for (a, b) in after.iter().zip(&before) {
        if a["key"] != victim["key"] {
            assert_eq!(a, b);
        }
    }
    // Another option is another key: computed again.
    let o = skinweights(&[
        "batch",
        &path_arg(&input),
        "--out",
        &path_arg(&out),
        "--solver",
        "heat",
        "--solver",
        "euclidean",
        "--max-influences",
        "1",
    ]);
    assert!(text(&o).contains("8 computed, 0 reused"), "{}", text(&o));
}

/// Files under `dir` (recursively) whose name marks an unfinished write.
fn partial_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(partial_files(&p));
        } else if p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .contains(".partial-")
        {
            out.push(p);
        }
    }
    out
}

#[cfg(unix)]
#[test]
fn a_batch_killed_with_sigkill_resumes_to_the_report_of_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    for k in 0..16 {
        let o = skinweights(&[
            "scene",
            "arms-down",
            "--vertices",
            &(5000 + 100 * k).to_string(),
            "-o",
            &path_arg(&input.join(format!("arms{k:02}.json"))),
        ]);
        assert!(o.status.success(), "{}", text(&o));
    }
    let batch = |cwd: &Path| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_skinweights"));
        c.current_dir(cwd).args([
            "batch",
            &path_arg(&input),
            "--out",
            "out",
            "--solver",
            "bbw",
            "--jobs",
            "1",
        ]);
        c
    };
    // Uninterrupted.
    let whole = dir.path().join("whole");
    std::fs::create_dir_all(&whole).unwrap();
    let o = batch(&whole).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));

    // Killed once the first row is recorded, then run again.
    let killed = dir.path().join("killed");
    std::fs::create_dir_all(&killed).unwrap();
    let mut child = batch(&killed)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let records = killed.join("out/.batch");
    let started = Instant::now();
    loop {
        let done = std::fs::read_dir(&records).map_or(0, |d| d.count());
        if done >= 1 || started.elapsed() > Duration::from_secs(60) {
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let recorded = std::fs::read_dir(&records)
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            let name = name.to_string_lossy();
            !name.starts_with('.') && name.ends_with(".json")
        })
        .count();
    let o = batch(&killed).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let summary = text(&o);
    assert!(
        summary.contains(&format!("{} computed, {recorded} reused", 16 - recorded)),
        "{recorded} rows were done before the kill: {summary}"
    );
    assert!(
        recorded < 16,
        "the kill came after the batch ended: make it slower"
    );
    assert_eq!(
        untimed(&rows(&killed.join("out"))),
        untimed(&rows(&whole.join("out")))
    );
    assert!(partial_files(&killed.join("out")).is_empty());
    assert!(!killed.join("out/report.running.csv").exists());
    for r in rows(&whole.join("out")) {
        let w = s(&r["weights"]);
        assert!(
            std::fs::read(whole.join(w)).unwrap() == std::fs::read(killed.join(w)).unwrap(),
            "{w} differs"
        );
    }
}

#[test]
fn globs_and_manifests_name_items_and_bad_options_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bar = dir.path().join("bar.json");
    let o = skinweights(&["scene", "bar", "--vertices", "500", "-o", &path_arg(&bar)]);
    assert!(o.status.success(), "{}", text(&o));
    let manifest = dir.path().join("list.txt");
    std::fs::write(&manifest, "# items\nbar.json\n\nmissing.json\n").unwrap();
    let out = dir.path().join("out");
    let glob = format!("{}/*.json", dir.path().display());
    let o = skinweights(&[
        "batch",
        &path_arg(&manifest),
        &glob,
        "--out",
        &path_arg(&out),
        "--solver",
        "euclidean",
        "--lint",
        "none",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let rows = rows(&out);
    // bar.json once (the manifest's and the glob's are one file), missing.json an Io row.
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_eq!(s(&rows[0]["status"]), "ok");
    assert_eq!(s(&rows[0]["lint"]), "");
    assert_eq!(s(&rows[1]["error_kind"]), "Io");
    let o = skinweights(&[
        "batch",
        &path_arg(&bar),
        "--out",
        &path_arg(&out),
        "--solver",
        "nope",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("nope"), "{}", text(&o));
}

/// A rig in a batch is solved with the deforming bones, as `solve` picks them (the rig's
/// weights are written beside its scene, as `import` writes them), and with `--reference
/// artist` its lint row is judged against the artist's weights as `lint` judges it: the
/// stretchyman's artist leaves 6 isolated discontinuities that show, best 4 of them no
/// farther, so the row passes and names the shared failure.
#[test]
fn a_rig_is_solved_with_its_deforming_bones_and_linted_against_its_artist() {
    let dir = tempfile::tempdir().unwrap();
    let rig = data("spine/stretchyman/stretchyman-pro.json");
    let run = |out: &Path, bind: &[&str]| {
        let mut args = vec![
            "batch".to_string(),
            path_arg(&rig),
            "--out".into(),
            path_arg(out),
            "--skin".into(),
            "default".into(),
            "--reference".into(),
            "artist".into(),
        ];
        args.extend(bind.iter().map(|b| b.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = skinweights(&args);
        assert!(o.status.success(), "{}", text(&o));
        rows(out).remove(0)
    };
    // The whole solve (`--bind all`) fails continuity only as the artist's weights do.
    let whole = run(&dir.path().join("all"), &["--bind", "all"]);
    assert_eq!(s(&whole["status"]), "ok", "{whole}");
    assert_eq!(s(&whole["lint"]), "pass", "{whole}");
    assert_eq!(
        s(&whole["lint_failed"]),
        "neighbourhood continuity (as the artist's)",
        "{whole}"
    );
    // By default each of the rig's weighted meshes keeps its artist's bones: closer to the
    // artist (74.2 % agreement against 66.7 % for the whole solve).
    let r = run(&dir.path().join("out"), &[]);
    assert_eq!(s(&r["status"]), "ok", "{r}");
    let agreement = |r: &serde_json::Value| r["artist_agreement_pct"].as_f64().unwrap();
    assert!(agreement(&r) > agreement(&whole) + 5.0, "{r}\n{whole}");
    let scene = s(&r["scene"]);
    assert!(Path::new(scene).with_extension("artist.json").is_file());
    let w = dir.path().join("solved.json");
    let o = skinweights(&["solve", scene, "-o", &path_arg(&w)]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(std::fs::read(&w).unwrap() == std::fs::read(s(&r["weights"])).unwrap());
}

/// The `stage` column: where each error row stopped (`read`, `classify`, `load`, `write`),
/// empty on ok rows, in the CSV's last column and on the console line.
#[test]
fn an_error_row_names_the_stage_it_failed_at() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    let rig = input.join("rig.json");
    let blocked = input.join("blocked.json");
    let garbage = input.join("garbage.json");
    let missing = input.join("missing.json");
    let text_of_rig = common::spine_with_named_skins(&[("red", 1), ("blue", 3)]);
    std::fs::write(&rig, &text_of_rig).unwrap();
    std::fs::write(&blocked, &text_of_rig).unwrap();
    std::fs::write(&garbage, "{nope").unwrap();
    let out = dir.path().join("out");
    let arg = |p: &Path| path_arg(p);
    let run = |skin: &str, items: &[&Path]| {
        let mut args = vec!["batch".to_string()];
        args.extend(items.iter().map(|p| arg(p)));
        args.extend(
            [
                "--out",
                &arg(&out),
                "--skin",
                skin,
                "--lint",
                "none",
                "--fresh",
            ]
            .map(String::from),
        );
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        skinweights(&args)
    };

    // The default skin is empty: the import refuses (load); the others fail before it.
    let o = run("default", &[&rig, &garbage, &missing]);
    assert_eq!(o.status.code(), Some(2), "every row failed: {}", text(&o));
    let stage_of = |rows: &[Value], p: &Path| {
        let r = rows
            .iter()
            .find(|r| s(&r["input"]) == arg(p))
            .unwrap_or_else(|| panic!("no row for {}: {rows:#?}", p.display()));
        (s(&r["status"]).to_string(), r["stage"].clone())
    };
    let found = rows(&out);
    assert_eq!(
        stage_of(&found, &rig),
        ("error".into(), Value::from("load"))
    );
    assert_eq!(
        stage_of(&found, &garbage),
        ("error".into(), Value::from("classify"))
    );
    assert_eq!(
        stage_of(&found, &missing),
        ("error".into(), Value::from("read"))
    );
    assert!(
        text(&o).contains(&format!(
            "error: {} (best, load): Spine skeleton: skins: ",
            arg(&rig)
        )),
        "{}",
        text(&o)
    );

    // With blue the rig solves; a folder where blocked's weights file goes fails the write.
    let id = skinweights::batch::item_id(&blocked);
    std::fs::create_dir_all(out.join(format!("{id}.best.weights.json"))).unwrap();
    let o = run("blue", &[&rig, &blocked]);
    assert_eq!(o.status.code(), Some(3), "one row failed: {}", text(&o));
    let found = rows(&out);
    assert_eq!(stage_of(&found, &rig), ("ok".into(), Value::Null));
    assert_eq!(
        stage_of(&found, &blocked),
        ("error".into(), Value::from("write"))
    );
    let csv = std::fs::read_to_string(out.join("report.csv")).unwrap();
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().ends_with(",key,stage"), "{csv}");
    for line in lines {
        let want = if line.contains("blocked") {
            ",write"
        } else {
            ","
        };
        let key_and_stage = line.rsplitn(3, ',').take(2).collect::<Vec<_>>();
        assert_eq!(
            key_and_stage[1].len(),
            16,
            "the key before the stage: {line}"
        );
        assert!(line.ends_with(want), "{line}");
    }
}
