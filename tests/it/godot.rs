//! Godot `.tscn` import and export: the shipped gBot rig (`data/godot-gbot/player.tscn`,
//! Godot 4), round trips through Godot 3 and 4 text, and malformed input.

use crate::common;
use skinweights::io::godot::{godot_vertex_order, import_godot, load_godot, GodotImport};
use skinweights::io::GodotVersion;
use skinweights::scene::{builtin_scene, BuiltinOptions};
use skinweights::FormatError;
use skinweights::{scene::Scene, weights::Weights, Error};
use std::path::Path;

const PLAYER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/godot-gbot/player.tscn");

fn player() -> GodotImport {
    load_godot(PLAYER).unwrap()
}

fn check_rows(w: &Weights) {
    for (v, row) in w.rows().enumerate() {
        assert!(
            row.iter().all(|x| x.is_finite() && *x >= 0.0),
            "vertex {v}: {row:?}"
        );
        let s: f64 = row.iter().sum();
        assert!((s - 1.0).abs() < 1e-12, "vertex {v} sums to {s}");
    }
}

#[test]
fn player_imports_with_its_hierarchy_weights_and_texture() {
    let g = player();
    let scene = &g.scene;
    assert_eq!(g.report.godot, 4);
    assert_eq!(g.report.skeleton, "Sprite2D/Skeleton2D");
    assert_eq!(
        scene.mesh().parts(),
        ["RightArm", "RightLeg", "Body", "LeftLeg", "Head", "Chin", "LeftArm"]
    );
    let names = scene.skeleton().names();
    assert_eq!(names.len(), 16);
    let parent = |b: &str| {
        let j = scene.skeleton().index_of(b).unwrap();
        scene.skeleton().bones()[j]
            .parent
            .map(|p| names[p].as_str())
    };
    assert_eq!(parent("Hip"), None);
    assert_eq!(parent("Chest"), Some("Hip"));
    assert_eq!(parent("Head"), Some("Chest"));
    assert_eq!(parent("Chin"), Some("Head"));
    assert_eq!(parent("LeftHand"), Some("LeftForearm"));
    assert_eq!(parent("LeftForearm"), Some("LeftArm"));
    assert_eq!(parent("LeftArm"), Some("Chest"));
    assert_eq!(parent("RightFoot"), Some("RightLowerLeg"));
    assert_eq!(parent("RightLeg"), Some("Hip"));
    // Hip's rest is (-3, -11) in the skeleton frame, y-down: (-3, 11) y-up; Chest 32 px above.
    let hip = &scene.skeleton().bones()[scene.skeleton().index_of("Hip").unwrap()];
    assert!((hip.head - nalgebra::Point2::new(-3.0, 11.0)).norm() < 1e-9);
    let chest = &scene.skeleton().bones()[scene.skeleton().index_of("Chest").unwrap()];
    assert!((chest.head - nalgebra::Point2::new(-3.0, 43.0)).norm() < 1e-9);
    // Hip points at its first child, Chest.
    assert!((hip.tail - chest.head).norm() < 1e-9);

    // Every polygon: vertices = the file's points (internal_vertex_count = all of them).
    let counts: Vec<usize> = g.report.meshes.iter().map(|m| m.vertices).collect();
    assert_eq!(counts, [19, 14, 21, 15, 14, 7, 20]);
    assert_eq!(scene.mesh().vertex_count(), 110);
    for m in &g.report.meshes {
        assert!(!m.outline_triangulated);
        assert_eq!(m.internal_vertices, m.vertices);
        assert!(
            m.triangles >= m.vertices - 2,
            "{}: {} triangles",
            m.part,
            m.triangles
        );
    }
    scene.sanity_check().unwrap();

    // Painted weights: rows sum to 1 after the repairs; Body paints 0.51 + 0.51 at the waist.
    check_rows(&g.artist);
    let body = g.report.meshes.iter().find(|m| m.part == "Body").unwrap();
    assert_eq!(body.renormalized_rows, 4);
    assert!((body.max_row_sum_error - 0.02).abs() < 1e-6);
    assert_eq!(body.bones, ["Hip", "Chest"]);
    let head = g.report.meshes.iter().find(|m| m.part == "Head").unwrap();
    assert_eq!(head.bones, ["Head"]);
    // Stale paths (bones re-parented after painting) carry no weight: reported.
    assert!(head.missing_bone_paths.contains(&"Hip/LeftArm".to_string()));
    let arm = g
        .report
        .meshes
        .iter()
        .find(|m| m.part == "RightArm")
        .unwrap();
    assert_eq!(arm.bones, ["RightArm", "RightForearm", "RightHand"]);
    assert!(g.report.notes.iter().any(|n| n.contains("name no bone")));

    // The texture: gBot.png beside the scene (res://player/gBot.png is not there).
    let art = scene.art().unwrap();
    assert_eq!(art.images.len(), 1);
    assert_eq!(art.images[0].name, "gBot");
    assert!(art.images[0].path.ends_with("godot-gbot/gBot.png"));
    assert!(art.images[0].path.exists());
    assert_eq!(art.layers.len(), 7);
    assert_eq!(art.layers[0].part, "RightArm");
    // Chin's uv equals its polygon (the offset moves the points, not the texture).
    let chin = g.report.meshes.iter().find(|m| m.part == "Chin").unwrap();
    assert_eq!(
        art.uvs[chin.first_vertex],
        nalgebra::Point2::new(486.0, 576.0)
    );
}

/// Exports `scene` with `weights`, re-imports, and checks every written point against the
/// scene vertex it came from.
fn round_trip(scene: &Scene, weights: &Weights, godot: u32) -> GodotImport {
    let text = common::export_text("godot", scene, weights, &common::godot_options(godot)).unwrap();
    let back = import_godot(&text, None).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.report.godot, godot);
    let order = godot_vertex_order(scene);
    let scene_names = scene.skeleton().names();
    let back_names = back.scene.skeleton().names();
    assert_eq!(back_names, scene_names);
    let mut k = 0;
    let (mut max_pos, mut max_w) = (0.0f64, 0.0f64);
    for poly in &order {
        for &v in &poly.vertices {
            max_pos =
                max_pos.max((back.scene.mesh().vertices()[k] - scene.mesh().vertices()[v]).norm());
            for j in 0..scene_names.len() {
                max_w = max_w.max((back.artist.get(k, j) - weights.get(v, j)).abs());
            }
            if let (Some(a), Some(b)) = (scene.art(), back.scene.art()) {
                assert!((a.uvs[v] - b.uvs[k]).norm() < 1e-9);
            }
            k += 1;
        }
    }
    assert_eq!(k, back.scene.mesh().vertex_count());
    assert!(max_pos < 1e-4, "positions moved by {max_pos} px");
    assert!(max_w < 1e-6, "weights changed by {max_w}");
    for (a, b) in scene
        .skeleton()
        .bones()
        .iter()
        .zip(back.scene.skeleton().bones())
    {
        assert!((a.head - b.head).norm() < 1e-9, "{}", a.name);
        assert_eq!(a.parent, b.parent);
        if godot == 4 {
            assert!((a.tail - b.tail).norm() < 1e-9, "{}", a.name);
        }
    }
    check_rows(&back.artist);
    back
}

#[test]
fn player_round_trips_through_godot_3_and_4() {
    let g = player();
    for godot in [3, 4] {
        let back = round_trip(&g.scene, &g.artist, godot);
        assert_eq!(back.scene.mesh().parts(), g.scene.mesh().parts());
        assert_eq!(
            back.scene.mesh().triangle_count(),
            g.scene.mesh().triangle_count()
        );
        // Our export lists every bone with its full path: nothing to repair.
        assert!(back.report.meshes.iter().all(|m| m.renormalized_rows == 0
            && m.unweighted_vertices == 0
            && m.missing_bone_paths.is_empty()));
    }
}

#[test]
fn solved_scenes_round_trip_through_godot_3_and_4() {
    for name in ["layered-arms", "arms-down"] {
        let scene = builtin_scene(name, &BuiltinOptions::default().with_vertices(800)).unwrap();
        let weights = skinweights::solvers::solve(&scene, "euclidean").unwrap();
        for godot in [3, 4] {
            let back = round_trip(&scene, &weights, godot);
            // Seam vertices of a connected scene are written once per polygon using them.
            assert!(back.scene.mesh().vertex_count() >= scene.mesh().vertex_count());
            assert_eq!(
                back.scene.mesh().triangle_count(),
                scene.mesh().triangle_count()
            );
        }
    }
    // Godot 5 cannot be asked for: the export's options name a version it writes.
    assert_eq!(GodotVersion::from_number(5), None);
}

/// The error of importing `text`, as a string, checked to be a Godot error at `line`.
fn godot_error(text: &str, line: usize) -> String {
    let e = import_godot(text, None).unwrap_err();
    match &e {
        Error::Format(FormatError::Godot { line: l, .. }) => assert_eq!(*l, line, "{e}"),
        _ => panic!("not a Godot error: {e}"),
    }
    e.to_string()
}

const SMALL: &str = r#"[gd_scene load_steps=2 format=2]

[ext_resource path="res://sheet.png" type="Texture" id=1]

[node name="Root" type="Node2D"]

[node name="Skeleton2D" type="Skeleton2D" parent="."]

[node name="A" type="Bone2D" parent="Skeleton2D"]
rest = Transform2D( 1, 0, 0, 1, 0, 0 )

[node name="B" type="Bone2D" parent="Skeleton2D/A"]
rest = Transform2D( 1, 0, 0, 1, 10, 0 )

[node name="P" type="Polygon2D" parent="."]
texture = ExtResource( 1 )
skeleton = NodePath("../Skeleton2D")
polygon = PoolVector2Array( 0, -2, 20, -2, 20, 2, 0, 2, 10, 0 )
polygons = [ ]
bones = [ NodePath("A"), PoolRealArray( 1, 0, 0, 1, 0.5 ), NodePath("A/B"), PoolRealArray( 0, 1, 1, 0, 0.5 ) ]
internal_vertex_count = 1
"#;

#[test]
fn a_godot_3_scene_with_empty_polygons_is_triangulated_with_its_internal_vertex() {
    let g = import_godot(SMALL, Some(Path::new("/nonexistent"))).unwrap();
    assert_eq!(g.report.godot, 3);
    let m = &g.report.meshes[0];
    assert!(m.outline_triangulated);
    assert_eq!(m.vertices, 5);
    // A 4-point outline (2 triangles) with a point inserted on their shared diagonal: 4.
    assert_eq!(m.triangles, 4);
    assert!((g.scene.mesh().area() - 80.0).abs() < 1e-9);
    check_rows(&g.artist);
    // y flipped: the bone B sits at x = 10 on the x axis; the first point at y = +2.
    assert_eq!(
        g.scene.mesh().vertices()[0],
        nalgebra::Point2::new(0.0, 2.0)
    );
    let art = g.scene.art().unwrap();
    assert_eq!(art.images[0].path, Path::new("/nonexistent/sheet.png"));
    // No uv: the points are the texture coordinates.
    assert_eq!(art.uvs[1], nalgebra::Point2::new(20.0, -2.0));
}

#[test]
fn malformed_scenes_name_line_and_field() {
    // Unbalanced brackets: the array opened on line 18 runs into the next property.
    let text = SMALL.replace(
        "polygon = PoolVector2Array( 0, -2, 20, -2, 20, 2, 0, 2, 10, 0 )",
        "polygon = PoolVector2Array( 0, -2, 20, -2, 20, 2, 0, 2, 10, 0",
    );
    let e = godot_error(&text, 18);
    assert!(
        e.contains("node \"P\" property \"polygon\"") && e.contains("not closed"),
        "{e}"
    );
    let text = SMALL.replace(
        "PoolRealArray( 0, 1, 1, 0, 0.5 ) ]",
        "PoolRealArray( 0, 1, 1, 0, 0.5 )",
    );
    let e = godot_error(&text, 20);
    assert!(
        e.contains("property \"bones\"") && e.contains("'[' opened on line 20"),
        "{e}"
    );

    // Unknown resource ids.
    let e = godot_error(&SMALL.replace("ExtResource( 1 )", "ExtResource( 7 )"), 16);
    assert!(
        e.contains("node \"P\" property texture")
            && e.contains("ExtResource(\"7\") names no [ext_resource]"),
        "{e}"
    );
    let e = godot_error(
        &SMALL.replace("polygons = [ ]", "polygons = [ SubResource( 3 ) ]"),
        19,
    );
    assert!(e.contains("SubResource(\"3\")"), "{e}");

    // A weights array of the wrong length: Godot skips that bone's weights and draws the
    // rest, and so does the import, with a note naming the bone.
    let short = SMALL.replace(
        "PoolRealArray( 1, 0, 0, 1, 0.5 )",
        "PoolRealArray( 1, 0, 0, 1 )",
    );
    let g = import_godot(&short, None).unwrap();
    let note = g
        .report
        .notes
        .iter()
        .find(|n| n.contains("weights of bone \"A\" are 4 numbers for a polygon of 5 points"))
        .unwrap_or_else(|| panic!("{:?}", g.report.notes));
    assert!(note.contains("skipped"), "{note}");
    let a = g.scene.skeleton().index_of("A").unwrap();
    assert!(g.artist.rows().all(|r| r[a] == 0.0));

    // Weight on a bone path that does not exist.
    let e = godot_error(&SMALL.replace("NodePath(\"A/B\")", "NodePath(\"B\")"), 20);
    assert!(
        e.contains("bones[2]") && e.contains("\"B\" names no Bone2D"),
        "{e}"
    );
    // ... with weight 0 it is only reported.
    let zero = SMALL.replace(
        "NodePath(\"A/B\"), PoolRealArray( 0, 1, 1, 0, 0.5 ) ]",
        "NodePath(\"A/B\"), PoolRealArray( 0, 1, 1, 0, 0.5 ), NodePath(\"Gone\"), PoolRealArray( 0, 0, 0, 0, 0 ) ]",
    );
    let g = import_godot(&zero, None).unwrap();
    assert_eq!(g.report.meshes[0].missing_bone_paths, ["Gone"]);

    // Parent cycles and parents that come later.
    let e = godot_error(
        &SMALL.replace("parent=\"Skeleton2D/A\"]", "parent=\"Skeleton2D/B\"]"),
        12,
    );
    assert!(
        e.contains("node \"B\" parent") && e.contains("cycle"),
        "{e}"
    );
    let e = godot_error(
        &SMALL.replace(
            "[node name=\"A\" type=\"Bone2D\" parent=\"Skeleton2D\"]",
            "[node name=\"A\" type=\"Bone2D\" parent=\"Skeleton2D/B\"]",
        ),
        9,
    );
    assert!(
        e.contains("node \"A\" parent") && e.contains("defined before"),
        "{e}"
    );

    // A skeleton path to something that is not a Skeleton2D; wrong value types.
    let e = godot_error(
        &SMALL.replace("NodePath(\"../Skeleton2D\")", "NodePath(\"..\")"),
        17,
    );
    assert!(
        e.contains("property skeleton") && e.contains("not a Skeleton2D"),
        "{e}"
    );
    let e = godot_error(
        &SMALL.replace(
            "rest = Transform2D( 1, 0, 0, 1, 10, 0 )",
            "rest = Transform2D( 1, 0, 0, 1, 10 )",
        ),
        13,
    );
    assert!(
        e.contains("node \"B\" property rest") && e.contains("5 numbers, expected 6"),
        "{e}"
    );
    let e = godot_error(
        &SMALL.replace("polygons = [ ]", "polygons = [ PoolIntArray( 0, 1, 9 ) ]"),
        19,
    );
    assert!(
        e.contains("polygons[0]") && e.contains("9, out of range"),
        "{e}"
    );
    // Not a scene at all.
    let e = godot_error("[gd_resource type=\"Animation\" format=3]\n", 1);
    assert!(e.contains("gd_scene"), "{e}");
}

/// What `scripts/godot3_check.gd` compares Godot's view of an export with: bone paths and
/// rest transforms, and per polygon its points, internal count, triangle count, bone paths
/// and weights, as our exporter meant them.
fn expected_json(scene: &Scene, weights: &Weights) -> serde_json::Value {
    use serde_json::json;
    let bones = scene.skeleton().bones();
    let mut paths: Vec<String> = Vec::new();
    for b in bones {
        paths.push(match b.parent {
            Some(p) => format!("{}/{}", paths[p], b.name),
            None => b.name.clone(),
        });
    }
    let world: Vec<[f64; 3]> = bones
        .iter()
        .map(|b| {
            let d = b.tail - b.head;
            [b.head.x, -b.head.y, -d.y.atan2(d.x)]
        })
        .collect();
    let rests: Vec<Vec<f64>> = bones
        .iter()
        .enumerate()
        .map(|(j, b)| {
            let [x, y, a] = world[j];
            let (px, py, pa) = match b.parent {
                Some(p) => (world[p][0], world[p][1], world[p][2]),
                None => (0.0, 0.0, 0.0),
            };
            // Parent frame⁻¹ · own frame (rotations and translations).
            let (dx, dy) = (x - px, y - py);
            let (s, c) = (-pa).sin_cos();
            let r = a - pa;
            vec![
                r.cos(),
                r.sin(),
                -r.sin(),
                r.cos(),
                c * dx - s * dy,
                s * dx + c * dy,
            ]
        })
        .collect();
    let polygons: Vec<serde_json::Value> = godot_vertex_order(scene)
        .iter()
        .map(|poly| {
            let points: Vec<[f64; 2]> = poly
                .vertices
                .iter()
                .map(|&v| {
                    let p = scene.mesh().vertices()[v];
                    [p.x, -p.y]
                })
                .collect();
            let w: Vec<Vec<f64>> = (0..bones.len())
                .map(|j| poly.vertices.iter().map(|&v| weights.get(v, j)).collect())
                .collect();
            json!({
                "name": scene.mesh().parts()[poly.part],
                "points": points,
                "internal": poly.vertices.len() - poly.outline,
                "triangles": poly.triangles.len(),
                "bones": paths,
                "weights": w,
                "texture": scene.art().is_some(),
            })
        })
        .collect();
    json!({
        "bones": paths.iter().zip(&rests).map(|(p, r)| json!({"path": p, "rest": r})).collect::<Vec<_>>(),
        "polygons": polygons,
    })
}

/// Loads the Godot 3 export of the gBot rig in the real engine when `godot3` is installed
/// (Debian: `apt-get install godot3 xvfb`); skipped with a note otherwise.
#[test]
fn godot3_loads_the_exported_player() {
    // `godot3 --version` prints the version but exits with status 255 (3.2.3).
    let installed = std::process::Command::new("godot3")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).starts_with("3."));
    if !installed {
        eprintln!(
            "godot3 is not installed: skipping the engine check (apt-get install godot3 xvfb)"
        );
        return;
    }
    let _engine = common::engine();
    // The gBot rig with its painted weights and texture, and a solved built-in scene with
    // internal vertices and no art.
    let g = player();
    let scene = builtin_scene(
        "layered-arms",
        &BuiltinOptions::default().with_vertices(800),
    )
    .unwrap();
    let weights = skinweights::solvers::solve(&scene, "heat").unwrap();
    let cases = [
        (
            &g.scene,
            &g.artist,
            "skeleton: 16 bones (expected 16)",
            "polygons: 7, points: 110, weights: 1760",
        ),
        (
            &scene,
            &weights,
            "skeleton: 5 bones (expected 5)",
            "polygons: 3, points: ",
        ),
    ];
    for (scene, weights, bones_line, polygons_line) in cases {
        let dir = tempfile::tempdir().unwrap();
        let scene_path = dir.path().join("scene3.tscn");
        std::fs::write(
            &scene_path,
            common::export_text("godot", scene, weights, &common::godot_options(3)).unwrap(),
        )
        .unwrap();
        if let Some(art) = scene.art() {
            std::fs::copy(&art.images[0].path, dir.path().join("gBot.png")).unwrap();
        }
        let expected_path = dir.path().join("expected.json");
        std::fs::write(&expected_path, expected_json(scene, weights).to_string()).unwrap();
        let out = std::process::Command::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/godot3_check.sh"
        ))
        .arg(&scene_path)
        .arg(&expected_path)
        .output()
        .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        println!("{}:\n{stdout}", scene.name());
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
        assert!(
            out.status.success(),
            "godot3 check failed: {:?}",
            out.status
        );
        assert!(stdout.contains("godot3 check: 0 mismatches"), "{stdout}");
        assert!(stdout.contains(bones_line), "{stdout}");
        assert!(stdout.contains(polygons_line), "{stdout}");
    }
}

/// `skinweights import godot` and `export godot` on the gBot rig: the artist's weights out
/// and back in, for Godot 3 and 4; no overwrite without --force.
#[cfg(feature = "cli")]
#[test]
fn cli_imports_and_exports_godot() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("gbot.json");
    let artist = dir.path().join("gbot.artist.json");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_skinweights"))
            .args(args)
            .output()
            .unwrap()
    };
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let out = run(&["import", "godot", PLAYER, "-o", &path(&scene)]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("110 vertices, 96 triangles, 16 bones"),
        "{stdout}"
    );
    assert!(artist.exists());
    let g = player();
    for godot in ["3", "4"] {
        let tscn = path(&dir.path().join(format!("gbot{godot}.tscn")));
        let export = |extra: &[&str]| {
            let mut args = vec!["export", "godot", "", "", "-o", &tscn, "--godot", godot];
            let (s, a) = (path(&scene), path(&artist));
            args[2] = &s;
            args[3] = &a;
            args.extend(extra);
            run(&args)
        };
        let out = export(&[]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let back = load_godot(&tscn).unwrap();
        assert_eq!(back.scene.mesh().vertex_count(), 110);
        let mut k = 0;
        for poly in &godot_vertex_order(&g.scene) {
            for &v in &poly.vertices {
                for j in 0..16 {
                    assert!((back.artist.get(k, j) - g.artist.get(v, j)).abs() < 1e-6);
                }
                k += 1;
            }
        }
        // Again: refused without --force, written with it.
        let out = export(&[]);
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
        assert!(export(&["--force"]).status.success());
    }
}
