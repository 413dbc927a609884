//! Issue 58, the first hour continued: lint samples long animation and shares its poses
//! between weights sets; `render` measures fringes only with `--fringe` and picks a readable
//! scale; batch names the bones-file names it looked for; a bones file listing vertex
//! indices is refused.

use crate::common::{data, skinweights, text};
use skinweights::lint::{lint, lint_on, LintOptions, LintScene, MAX_LINT_CLIP_FRAMES};

/// Imports `rel` (under data/) with `format` into `dir` as `name.json` (+ `.artist.json`).
fn import(dir: &std::path::Path, format: &str, rel: &str, name: &str) -> (String, String) {
    let scene = dir.join(format!("{name}.json"));
    let o = skinweights(&[
        "import",
        format,
        data(rel).to_str().unwrap(),
        "-o",
        scene.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let artist = dir.join(format!("{name}.artist.json"));
    (
        scene.to_str().unwrap().to_string(),
        artist.to_str().unwrap().to_string(),
    )
}

#[test]
fn lint_lowers_the_clip_rate_past_the_frame_budget_and_shares_poses() {
    let dir = tempfile::tempdir().unwrap();
    let (scene_path, artist) = import(
        dir.path(),
        "spine",
        "spine/spineboy/spineboy-pro.json",
        "boy",
    );
    let (scene, _) = skinweights::io::load_scene(&scene_path).unwrap();
    let file = skinweights::io::WeightsFile::load(&artist).unwrap();
    let w = file
        .to_weights_for(&scene.skeleton().names(), scene.mesh().vertex_count())
        .unwrap();
    // As shipped the clips are short: every frame at 30 fps.
    assert_eq!(LintScene::new(&scene).clip_fps().unwrap(), 30.0);
    // 11 clips of 100 s: 33 000+ frames at 30 fps, so the rate drops to keep about 1000.
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&scene_path).unwrap()).unwrap();
    for clip in json["clips"].as_array_mut().unwrap() {
        clip["duration"] = 100.0.into();
    }
    let long = dir.path().join("long.json");
    std::fs::write(&long, json.to_string()).unwrap();
    let (scene, _) = skinweights::io::load_scene(&long).unwrap();
    let at = LintScene::new(&scene);
    let fps = at.clip_fps().unwrap();
    let frames: usize = scene
        .clips()
        .iter()
        .map(|c| c.frame_times(fps).unwrap().len())
        .sum();
    assert!(fps < 1.0, "{fps}");
    assert!(
        frames <= MAX_LINT_CLIP_FRAMES + 2 * scene.clips().len(),
        "{frames} frames at {fps} fps"
    );
    // The shared poses give the same rows as a lint of its own, for both weights sets.
    let options = LintOptions::default();
    let first = lint_on(&at, &w, &options).unwrap();
    let again = lint_on(&at, &w, &options).unwrap();
    let alone = lint(&scene, &w, &options).unwrap();
    for (a, b) in first.iter().zip(&alone).chain(again.iter().zip(&alone)) {
        assert_eq!(
            (&a.check, &a.measured, a.pass),
            (&b.check, &b.measured, b.pass)
        );
    }
    let continuity = first
        .iter()
        .find(|c| c.check == "neighbourhood continuity")
        .unwrap();
    assert!(
        continuity
            .measured
            .contains(&format!("clips sampled at {fps:.2} fps")),
        "{}",
        continuity.measured
    );
}

#[test]
fn render_measures_fringes_only_when_asked_and_picks_a_readable_scale() {
    let dir = tempfile::tempdir().unwrap();
    let (scene, artist) = import(dir.path(), "creature", "creature/creature-bat.json", "bat");
    let out = dir.path().join("bat.png");
    let out = out.to_str().unwrap();
    let o = skinweights(&["render", &scene, &artist, "--samples", "1", "-o", out]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(!t.contains("fringe:"), "{t}");
    // The bat is about 24 units tall: an integer scale brings it to about 512 px.
    assert!(t.contains("(picked for a readable size"), "{t}");
    let (w, h) = image::image_dimensions(out).unwrap();
    assert!(w.max(h) > 256 && w.max(h) <= 512 + 8, "{w} x {h}");
    // --scale is kept and stated as given.
    let o = skinweights(&[
        "render",
        &scene,
        &artist,
        "--samples",
        "1",
        "--scale",
        "1",
        "--force",
        "-o",
        out,
    ]);
    let t = text(&o);
    assert!(o.status.success() && t.contains("scale 1)"), "{t}");
    let (w1, h1) = image::image_dimensions(out).unwrap();
    assert!(w1.max(h1) < 64, "{w1} x {h1}");
    // --fringe prints the numbers.
    let o = skinweights(&[
        "render",
        &scene,
        &artist,
        "--samples",
        "1",
        "--fringe",
        "--force",
        "-o",
        out,
    ]);
    let t = text(&o);
    assert!(o.status.success() && t.contains("fringe: S = "), "{t}");
}

#[test]
fn batch_names_the_bones_file_names_it_looked_for() {
    let dir = tempfile::tempdir().unwrap();
    let sp = dir.path().join("sp");
    std::fs::create_dir(&sp).unwrap();
    std::fs::copy(data("kenney-toon/robot_idle.png"), sp.join("hero.png")).unwrap();
    std::fs::copy(
        data("kenney-toon/robot_idle_bones.json"),
        sp.join("hero-bones.json"),
    )
    .unwrap();
    // A texture with no bones file anywhere near stays passed over.
    let tex = dir.path().join("tex");
    std::fs::create_dir(&tex).unwrap();
    std::fs::copy(data("kenney-toon/robot_idle.png"), tex.join("page.png")).unwrap();
    let out = dir.path().join("out");
    let o = skinweights(&[
        "batch",
        sp.to_str().unwrap(),
        tex.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert_ne!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains("hero_bones.json")
            && t.contains("hero.bones.json")
            && t.contains("hero-bones.json beside it is a bones file"),
        "{t}"
    );
    assert!(!t.contains("page.png"), "{t}");
    assert!(
        t.contains("1 failed") && t.contains("2 files passed over"),
        "{t}"
    );
}

#[test]
fn a_bones_file_listing_vertex_indices_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut bones: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(data("kenney-toon/robot_idle_bones.json")).unwrap(),
    )
    .unwrap();
    bones["probes"][0]["watch"]["vertices"] = serde_json::json!([1, 2, 3]);
    let path = dir.path().join("b.json");
    std::fs::write(&path, bones.to_string()).unwrap();
    let out = dir.path().join("s.json");
    let o = skinweights(&[
        "mesh",
        data("kenney-toon/robot_idle.png").to_str().unwrap(),
        "--bones",
        path.to_str().unwrap(),
        "--vertices",
        "300",
        "-o",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(
        t.contains(path.to_str().unwrap())
            && t.contains("probes[0] (\"lift_l\"): watch.vertices")
            && t.contains("may not list vertex indices"),
        "{t}"
    );
    assert!(!out.exists());
}
