//! Issue 58, a new user's first hour: every wrong-file error names what the file is and the
//! command that reads it; batch's exit codes and console rows; the notes that name a fix.

use crate::common::{data, skinweights, spine_with_named_skins, text};

/// Runs `args`, asserts exit code 2 and returns the output text.
fn refused(args: &[&str]) -> String {
    let o = skinweights(args);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
    t
}

#[test]
fn a_file_of_another_format_names_the_command_that_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.json");
    let out = out.to_str().unwrap();
    let spine = data("spine/spineboy/spineboy-pro.json");
    let spine = spine.to_str().unwrap();
    let png = data("kenney-toon/robot_idle.png");
    let atlas = data("spine/spineboy/spineboy.atlas");
    let creature = data("creature/creature-bat.json");
    let dragon = data("dragonbones-you-xin/body_ske.json");
    let godot = data("godot-gbot/player.tscn");
    let cases: [(&[&str], &str); 9] = [
        (
            &["import", "spine", png.to_str().unwrap(), "-o", out],
            "this is a PNG image, not a Spine skeleton: `skinweights mesh ",
        ),
        (
            &["import", "creature", spine, "-o", out],
            "this is a Spine skeleton, not a Creature export: `skinweights import spine ",
        ),
        (
            &["solve", spine, "-o", out],
            "this is a Spine skeleton, not a skinweights scene: `skinweights import spine ",
        ),
        (
            &["import", "spine", atlas.to_str().unwrap(), "-o", out],
            "this is a Spine atlas, not a Spine skeleton: `skinweights import spine SKELETON.json --atlas ",
        ),
        (
            &["solve", creature.to_str().unwrap(), "-o", out],
            "this is a Creature export, not a skinweights scene: `skinweights import creature ",
        ),
        (
            &["solve", dragon.to_str().unwrap(), "-o", out],
            "this is a DragonBones skeleton, not a skinweights scene: `skinweights import dragonbones ",
        ),
        (
            &["solve", godot.to_str().unwrap(), "-o", out],
            "this is a Godot scene, not a skinweights scene: `skinweights import godot ",
        ),
        (
            &["eval", "arms-down", spine],
            "this is a Spine skeleton, not a skinweights weights file: `skinweights import spine ",
        ),
        (
            &["import", "gltf", spine, "-o", out],
            "this is a Spine skeleton, not a glTF file: `skinweights import spine ",
        ),
    ];
    for (args, want) in cases {
        let t = refused(args);
        assert!(t.contains(want), "{args:?}: {t}");
    }
}

#[test]
fn a_file_cut_short_is_called_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(data("spine/spineboy/spineboy-pro.json")).unwrap();
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let cut = cut.to_str().unwrap();
    let out = dir.path().join("o.json");
    let want = format!(
        "the file looks truncated: its JSON stops after {} bytes",
        bytes.len() / 2
    );
    for args in [
        vec!["import", "spine", cut, "-o", out.to_str().unwrap()],
        vec!["solve", cut, "-o", out.to_str().unwrap()],
    ] {
        let t = refused(&args);
        assert!(t.contains(&want), "{args:?}: {t}");
    }
}

#[test]
fn batch_on_a_misspelt_folder_exits_2_and_prints_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let missing = dir.path().join("charcters");
    let o = skinweights(&[
        "batch",
        missing.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(
        t.contains(&format!("error: {} (", missing.display())),
        "{t}"
    );
}

#[test]
fn an_empty_default_skin_names_the_skins_that_have_the_art_and_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let rig = dir.path().join("rig.json");
    let out = dir.path().join("scene.json");
    let (rig, out) = (rig.to_str().unwrap(), out.to_str().unwrap());
    std::fs::write(rig, spine_with_named_skins(&[("red", 1), ("blue", 3)])).unwrap();
    let t = refused(&["import", "spine", rig, "-o", out]);
    assert!(
        t.contains(
            "no attachment to import with the default skin (no slot's setup attachment is \
             drawable art in it); skins with setup attachments: \"blue\" (3 setup attachments), \
             \"red\" (1); import one with `--skin NAME` (e.g. `--skin blue`) or every skin's \
             attachments with `--skin all`"
        ),
        "{t}"
    );

    // The flag named imports: blue's three squares, four vertices each.
    for (skin, vertices) in [("blue", 12), ("red", 4), ("all", 16)] {
        let o = skinweights(&["import", "spine", rig, "--skin", skin, "-o", out, "--force"]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(0), "--skin {skin}: {t}");
        assert!(
            t.contains(&format!("{vertices} vertices")),
            "--skin {skin}: {t}"
        );
    }
}

#[test]
fn many_skins_are_listed_eight_then_counted() {
    let names: Vec<String> = (0..11).map(|k| format!("k{k}")).collect();
    let skins: Vec<(&str, usize)> = names.iter().map(|n| (n.as_str(), 1)).collect();
    let e = skinweights::io::spine::import_spine(
        &spine_with_named_skins(&skins),
        None,
        &Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("\"k0\" (1 setup attachments), \"k1\" (1), "),
        "file order among equals: {e}"
    );
    assert!(e.contains("\"k7\" (1), and 3 more; "), "{e}");
    assert!(!e.contains("\"k8\""), "{e}");

    // `--skin k3` tried: the hint lists the other skins, not k3.
    let e = skinweights::io::spine::import_spine(
        &spine_with_named_skins(&[("k3", 0), ("k4", 2)]),
        None,
        &skinweights::io::spine::SpineImportOptions::default()
            .with_skin(skinweights::io::spine::SkinSelection::Named("k3".into())),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("with skin \"k3\" (no slot's setup attachment is drawable art in it); skins with setup attachments: \"k4\" (2 setup attachments);"),
        "{e}"
    );
}

#[test]
fn a_spine_import_without_its_atlas_or_page_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("spineboy-pro.json");
    std::fs::copy(data("spine/spineboy/spineboy-pro.json"), &json).unwrap();
    let out = dir.path().join("s.json");
    let o = skinweights(&[
        "import",
        "spine",
        json.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("no atlas beside") && t.contains("--atlas FILE"),
        "{t}"
    );
    // The atlas without its page image: the import names the missing PNG.
    std::fs::copy(
        data("spine/spineboy/spineboy.atlas"),
        dir.path().join("spineboy.atlas"),
    )
    .unwrap();
    let o = skinweights(&[
        "import",
        "spine",
        json.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--force",
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("page images are missing") && t.contains("spineboy.png"),
        "{t}"
    );
}

#[test]
fn a_scene_without_probes_points_to_where_a_probe_goes() {
    let e = skinweights::SceneError::NoProbes {
        scene: "robot".into(),
    }
    .to_string();
    assert!(
        e.contains("docs/formats.md") && e.contains("--clip NAME"),
        "{e}"
    );
}

#[test]
fn plot_on_a_rig_without_probes_titles_its_panel_by_movement_not_drag() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let rig = data("spine/spineboy/spineboy-pro.json");
    let run = |args: &[&str]| {
        let o = skinweights(args);
        assert!(o.status.success(), "{args:?}: {}", text(&o));
        text(&o)
    };
    run(&[
        "import",
        "spine",
        rig.to_str().unwrap(),
        "-o",
        &p("boy.json"),
    ]);
    run(&[
        "solve",
        &p("boy.json"),
        "--solver",
        "euclidean",
        "-o",
        &p("w.json"),
    ]);
    let t = run(&["plot", &p("boy.json"), &p("w.json"), "-o", &p("fig.svg")]);
    assert!(t.contains("has no probe"), "{t}");
    let svg = std::fs::read_to_string(p("fig.svg")).unwrap();
    assert!(
        svg.contains("max movement") && !svg.contains("max drag"),
        "title not found"
    );
}

/// A Godot scene whose texture is not where it says imports, and says the texture is missing
/// (before, `render` failed later with no word at import).
#[test]
fn a_godot_import_without_its_texture_names_where_it_looked() {
    let dir = tempfile::tempdir().unwrap();
    let tscn = dir.path().join("bot.tscn");
    std::fs::copy(data("artist-rigs/godot-godotbot.tscn"), &tscn).unwrap();
    let out = dir.path().join("bot.json");
    let o = skinweights(&[
        "import",
        "godot",
        tscn.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("texture \"res://gBot_pieces.png\": not found at")
            && t.contains("`render` needs it"),
        "{t}"
    );
}
