//! Sprite to mesh: tracing real sprites (area, islands, holes, y-flip), bones, bad input and
//! the `skinweights mesh` command.

use image::{Rgba, RgbaImage};
use nalgebra::Point2;
use skinweights::mesh::{MeshingOptions, Outline};
use skinweights::scene::{
    sprite_scene, trace_alpha, BonesFile, Sprite, SpriteOptions, TraceOptions, DEFAULT_THRESHOLD,
};
use skinweights::{Error, Scene};
use std::path::{Path, PathBuf};

mod common;
use common::{skinweights, text};

/// The four shipped sprites and their bones files.
const SPRITES: [(&str, &str); 4] = [
    (
        "kenney-toon/femaleAdventurer_idle.png",
        "kenney-toon/femaleAdventurer_idle_bones.json",
    ),
    (
        "kenney-toon/malePerson_idle.png",
        "kenney-toon/malePerson_idle_bones.json",
    ),
    (
        "kenney-toon/robot_idle.png",
        "kenney-toon/robot_idle_bones.json",
    ),
    ("godot-gbot/gBot.png", "godot-gbot/gBot_bones.json"),
];

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(rel)
}

/// Pixels with alpha >= threshold.
fn opaque_pixels(image: &RgbaImage, threshold: u8) -> usize {
    image.pixels().filter(|p| p[3] >= threshold).count()
}

/// Sizes (pixel counts) of the 8-connected islands of opaque pixels, by flood fill.
fn island_sizes(image: &RgbaImage, threshold: u8) -> Vec<usize> {
    let (w, h) = (image.width() as i64, image.height() as i64);
    let opaque = |x: i64, y: i64| {
        x >= 0 && y >= 0 && x < w && y < h && image.get_pixel(x as u32, y as u32)[3] >= threshold
    };
    let mut seen = vec![false; (w * h) as usize];
    let mut sizes = Vec::new();
    for start in 0..w * h {
        let (sx, sy) = (start % w, start / w);
        if seen[start as usize] || !opaque(sx, sy) {
            continue;
        }
        seen[start as usize] = true;
        let mut stack = vec![(sx, sy)];
        let mut size = 0;
        while let Some((x, y)) = stack.pop() {
            size += 1;
            for (dx, dy) in [
                (-1, -1),
                (0, -1),
                (1, -1),
                (-1, 0),
                (1, 0),
                (-1, 1),
                (0, 1),
                (1, 1),
            ] {
                let (nx, ny) = (x + dx, y + dy);
                if opaque(nx, ny) && !seen[(ny * w + nx) as usize] {
                    seen[(ny * w + nx) as usize] = true;
                    stack.push((nx, ny));
                }
            }
        }
        sizes.push(size);
    }
    sizes
}

/// Signed area of one loop (islands positive, holes negative).
fn loop_area(l: &[Point2<f64>]) -> f64 {
    Outline {
        loops: vec![l.to_vec()],
        segments: vec![],
    }
    .area()
}

fn small_mesh() -> SpriteOptions {
    SpriteOptions {
        meshing: MeshingOptions {
            target_vertices: 3000,
            ..MeshingOptions::default()
        },
        ..SpriteOptions::default()
    }
}

/// An image `w` x `h` whose pixel (column, row) is opaque where `opaque` says.
/// Meshing options for synthetic shapes, traced without simplification so that their
/// coordinates are exact.
fn exact() -> SpriteOptions {
    SpriteOptions {
        trace: TraceOptions {
            tolerance: 0.0,
            ..TraceOptions::default()
        },
        ..small_mesh()
    }
}

fn synthetic(w: u32, h: u32, opaque: impl Fn(u32, u32) -> bool) -> Sprite {
    let image = RgbaImage::from_fn(w, h, |x, y| {
        Rgba([200, 100, 50, if opaque(x, y) { 255 } else { 0 }])
    });
    Sprite::from_rgba(image, "synthetic")
}

fn one_bone(head: [f64; 2], tail: [f64; 2]) -> BonesFile {
    BonesFile::from_json(&format!(
        r#"{{"bones": [{{"name": "b", "parent": null, "head": {head:?}, "tail": {tail:?}}}]}}"#
    ))
    .unwrap()
}

#[test]
fn traced_area_matches_the_opaque_pixel_count_within_2_percent() {
    // Measured: femaleAdventurer -0.19%, malePerson +0.24%, robot 0.00%, gBot -0.19%.
    for (png, _) in SPRITES {
        let sprite = Sprite::load(data(png)).unwrap();
        let count = opaque_pixels(&sprite.image, DEFAULT_THRESHOLD) as f64;
        let trace = trace_alpha(&sprite, &TraceOptions::default()).unwrap();
        let area = trace.outline.area();
        let rel = (area - count) / count;
        println!(
            "{png}: {count} opaque pixels, traced area {area:.1} ({:+.2}%)",
            100.0 * rel
        );
        assert!(rel.abs() < 0.02, "{png}: area {area} vs {count} pixels");
        // Simplification keeps far fewer points than the raw trace.
        let kept: usize = trace.outline.loops.iter().map(Vec::len).sum();
        assert!(
            kept * 3 < trace.traced_points,
            "{png}: {kept} of {}",
            trace.traced_points
        );
    }
}

#[test]
fn every_opaque_island_becomes_a_mesh_component() {
    // Kenney sprites: 1 island each (arms and legs touch the torso); gBot: 7 separate parts.
    let expected = [1, 1, 1, 7];
    for ((png, bones), want) in SPRITES.into_iter().zip(expected) {
        let sprite = Sprite::load(data(png)).unwrap();
        let islands = island_sizes(&sprite.image, DEFAULT_THRESHOLD);
        assert_eq!(islands.len(), want, "{png}: islands {islands:?}");
        let trace = trace_alpha(&sprite, &TraceOptions::default()).unwrap();
        let outer = trace
            .outline
            .loops
            .iter()
            .filter(|l| loop_area(l) > 0.0)
            .count();
        assert_eq!(outer, islands.len(), "{png}");
        let (scene, _) = sprite_scene(
            &sprite,
            BonesFile::load(data(bones)).unwrap(),
            &small_mesh(),
        )
        .unwrap();
        assert_eq!(
            scene.mesh.topology().component_count(),
            islands.len(),
            "{png}"
        );
    }
}

#[test]
fn shipped_sprites_make_valid_scenes_with_bones_inside_and_solvable_weights() {
    for (png, bones) in SPRITES {
        let sprite = Sprite::load(data(png)).unwrap();
        let bones = BonesFile::load(data(bones)).unwrap();
        let bone_count = bones.skeleton.len();
        let (scene, notes) = sprite_scene(&sprite, bones, &small_mesh()).unwrap();
        scene.sanity_check().unwrap();
        // Every authored bone lies inside the art: nothing was clipped.
        assert!(
            notes.iter().all(|n| !n.contains("outside")),
            "{png}: {notes:?}"
        );
        assert_eq!(scene.skeleton.len(), bone_count);
        // gBot's seven islands have 610 outline points and the mesher's angle bound adds
        // more around them: it lands at about 3 900 vertices for a target of 3 000.
        let n = scene.mesh.vertex_count() as f64;
        assert!(n > 2700.0 && n < 4500.0, "{png}: {n} vertices");
        // 1 unit = 1 px: the mesh spans the art, inside the image rectangle.
        let (lo, hi) = scene.mesh.bounds();
        let (w, h) = (sprite.image.width() as f64, sprite.image.height() as f64);
        assert!(
            lo.x >= 0.0 && lo.y >= 0.0 && hi.x <= w && hi.y <= h,
            "{png}: {lo} {hi}"
        );
        // Every part named by a bone has vertices, and the masks keep the probe's watched
        // vertices still.
        for solver in skinweights::SOLVER_NAMES {
            let w = skinweights::solve(&scene, solver).unwrap();
            w.validate().unwrap();
            assert_eq!(w.vertex_count(), scene.mesh.vertex_count());
        }
        let probe = scene.probe(Some("lift_l")).unwrap();
        assert!(!probe.watched_vertices(&scene).unwrap().is_empty(), "{png}");
        let masked = skinweights::solve(&scene, "heat+mask").unwrap();
        let m = skinweights::metrics::evaluate(&scene, &masked, probe, None).unwrap();
        assert!(m.drag_max_pct < 1e-9, "{png}: {}", m.drag_max_pct);
    }
}

#[test]
fn holes_are_kept() {
    // A 30 x 30 block with a 10 x 10 hole in the middle.
    let sprite = synthetic(40, 40, |x, y| {
        (5..35).contains(&x)
            && (5..35).contains(&y)
            && !((15..25).contains(&x) && (15..25).contains(&y))
    });
    assert_eq!(
        trace_alpha(&sprite, &TraceOptions::default())
            .unwrap()
            .outline
            .loops
            .len(),
        2
    );
    let trace = trace_alpha(&sprite, &exact().trace).unwrap();
    assert_eq!(trace.outline.loops.len(), 2);
    let areas: Vec<f64> = trace.outline.loops.iter().map(|l| loop_area(l)).collect();
    assert_eq!(areas.iter().filter(|&&a| a < 0.0).count(), 1, "{areas:?}");
    // Chamfered corners: the block loses 4 x 1/8 px², the hole gives the same back.
    assert!(
        (trace.outline.area() - 800.0).abs() < 1e-9,
        "{}",
        trace.outline.area()
    );
    let (scene, _) = sprite_scene(&sprite, one_bone([10.0, 8.0], [10.0, 32.0]), &exact()).unwrap();
    scene.sanity_check().unwrap();
    assert!(
        (scene.mesh.area() - 800.0).abs() < 1e-6,
        "{}",
        scene.mesh.area()
    );
    assert_eq!(scene.mesh.topology().component_count(), 1);
    assert_eq!(scene.mesh.topology().boundary_loops().len(), 2);
    // No triangle covers the hole (x, y in 15..25 in both frames: the image is symmetric;
    // its chamfered corners are opaque, hence the half-pixel margin).
    for t in scene.mesh.triangles() {
        let c = t
            .iter()
            .map(|&i| scene.mesh.vertices()[i].coords)
            .sum::<nalgebra::Vector2<f64>>()
            / 3.0;
        assert!(
            !(c.x > 15.5 && c.x < 24.5 && c.y > 15.5 && c.y < 24.5),
            "{c}"
        );
    }
}

#[test]
fn y_is_flipped_with_the_origin_at_the_bottom_left() {
    // Columns 10..20 and rows 5..15 of a 40 x 30 image: y runs from 30 - 15 to 30 - 5.
    let sprite = synthetic(40, 30, |x, y| (10..20).contains(&x) && (5..15).contains(&y));
    let trace = trace_alpha(&sprite, &exact().trace).unwrap();
    let pts: Vec<Point2<f64>> = trace.outline.loops.concat();
    let min_x = pts.iter().map(|p| p.x).fold(f64::INFINITY, f64::min);
    let max_x = pts.iter().map(|p| p.x).fold(f64::NEG_INFINITY, f64::max);
    let min_y = pts.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
    let max_y = pts.iter().map(|p| p.y).fold(f64::NEG_INFINITY, f64::max);
    assert_eq!([min_x, max_x, min_y, max_y], [10.0, 20.0, 15.0, 25.0]);
    // The island is counter-clockwise in the y-up frame.
    assert!(
        (trace.outline.area() - 99.5).abs() < 1e-9,
        "{}",
        trace.outline.area()
    );
    let (scene, _) = sprite_scene(&sprite, one_bone([15.0, 17.0], [15.0, 23.0]), &exact()).unwrap();
    let (lo, hi) = scene.mesh.bounds();
    assert_eq!([lo.x, hi.x, lo.y, hi.y], [10.0, 20.0, 15.0, 25.0]);
}

#[test]
fn specks_are_dropped_and_counted() {
    // A block and a lone pixel far away.
    let sprite = synthetic(30, 30, |x, y| {
        ((2..12).contains(&x) && (2..12).contains(&y)) || (x == 25 && y == 25)
    });
    let trace = trace_alpha(&sprite, &TraceOptions::default()).unwrap();
    assert_eq!(trace.outline.loops.len(), 1);
    assert_eq!(trace.dropped_specks, 1);
    let keep = TraceOptions {
        min_area: 0.0,
        ..TraceOptions::default()
    };
    assert_eq!(trace_alpha(&sprite, &keep).unwrap().outline.loops.len(), 2);
}

#[test]
fn a_bone_outside_the_shape_is_clipped_and_reported() {
    let sprite = synthetic(40, 40, |x, y| (5..35).contains(&x) && (5..35).contains(&y));
    // From inside (20, 20) to far outside (20, 60): 25 px of it run outside.
    let (scene, notes) =
        sprite_scene(&sprite, one_bone([20.0, 20.0], [20.0, 60.0]), &exact()).unwrap();
    scene.sanity_check().unwrap();
    assert_eq!(scene.skeleton.bones()[0].tail, Point2::new(20.0, 60.0));
    let note = notes
        .iter()
        .find(|n| n.contains("outside"))
        .expect("a clipping note");
    assert!(
        note.contains("\"b\"") && note.contains("25.0 of its 40.0 px"),
        "{note}"
    );
    skinweights::solve(&scene, "heat")
        .unwrap()
        .validate()
        .unwrap();
}

#[test]
fn bad_input_is_a_typed_error() {
    let transparent = synthetic(20, 20, |_, _| false);
    match trace_alpha(&transparent, &TraceOptions::default()) {
        Err(Error::TransparentImage { image, threshold }) => {
            assert_eq!((image.as_str(), threshold), ("synthetic", 128));
        }
        other => panic!("{other:?}"),
    }
    let d = tempfile::tempdir().unwrap();
    let not_png = d.path().join("notes.png");
    std::fs::write(&not_png, "this is not a PNG").unwrap();
    match Sprite::load(&not_png) {
        Err(Error::Image { path, .. }) => assert_eq!(path, not_png),
        other => panic!("{other:?}"),
    }
    let missing = d.path().join("missing_bones.json");
    match BonesFile::load(&missing) {
        Err(e @ Error::Io { .. }) => assert!(e.to_string().contains("missing_bones.json"), "{e}"),
        other => panic!("{other:?}"),
    }
    match BonesFile::from_json(r#"{"bones": [], "extra": 1}"#) {
        Err(Error::Json { message, .. }) => assert!(message.contains("extra"), "{message}"),
        other => panic!("{other:?}"),
    }
    let zero = TraceOptions {
        threshold: 0,
        ..TraceOptions::default()
    };
    let block = synthetic(10, 10, |x, _| x < 5);
    assert!(
        matches!(trace_alpha(&block, &zero), Err(Error::InvalidField { field, .. }) if field == "threshold")
    );
    let nan = TraceOptions {
        tolerance: f64::NAN,
        ..TraceOptions::default()
    };
    assert!(
        matches!(trace_alpha(&block, &nan), Err(Error::InvalidField { field, .. }) if field == "tolerance")
    );
    // A part region that misses some vertices names the vertex.
    let bones = BonesFile::from_json(
        r#"{"bones": [{"name": "b", "parent": null, "head": [2, 2], "tail": [2, 8], "part": "left"}],
            "parts": [{"part": "left", "polygon": [[0, 0], [3, 0], [3, 10], [0, 10]]}]}"#,
    )
    .unwrap();
    assert!(matches!(
        sprite_scene(&block, bones, &small_mesh()),
        Err(Error::VertexParts { .. })
    ));
}

#[test]
fn cli_mesh_writes_a_scene_that_compare_reads() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("robot.json");
    let out_s = out.to_string_lossy().to_string();
    let png = data(SPRITES[2].0).to_string_lossy().to_string();
    let bones = data(SPRITES[2].1).to_string_lossy().to_string();
    let mesh = |extra: &[&str]| {
        let mut args = vec!["mesh", &png, "--bones", &bones, "-o", &out_s];
        args.extend_from_slice(extra);
        skinweights(&args)
    };
    let o = mesh(&["--vertices", "2000"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("1 components"), "{}", text(&o));
    let (scene, _): (Scene, _) = skinweights::load_scene(&out).unwrap();
    scene.sanity_check().unwrap();
    assert_eq!(scene.name, "robot_idle");
    // Never overwrite without --force.
    let before = std::fs::read(&out).unwrap();
    let o = mesh(&["--tolerance", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("already exists"), "{}", text(&o));
    assert_eq!(std::fs::read(&out).unwrap(), before);
    let o = mesh(&["--force", "--threshold", "200", "--vertices", "2000"]);
    assert!(o.status.success(), "{}", text(&o));
    let cmp = d.path().join("cmp").to_string_lossy().to_string();
    let o = skinweights(&[
        "compare",
        &out_s,
        "--solvers",
        "heat,heat+mask",
        "--out",
        &cmp,
        "--no-figures",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["probe"], "lift_l");
    assert_eq!(json["rows"][1]["drag_max_pct"], 0.0);
}

#[test]
fn cli_mesh_bad_input_exits_2_naming_the_file() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("x.json").to_string_lossy().to_string();
    let png = data(SPRITES[0].0).to_string_lossy().to_string();
    let bones = data(SPRITES[0].1).to_string_lossy().to_string();
    let transparent = d.path().join("empty.png");
    RgbaImage::new(16, 16).save(&transparent).unwrap();
    let not_png = d.path().join("fake.png");
    std::fs::write(&not_png, "GIF89a").unwrap();
    let missing = d.path().join("nobones.json");
    let cases = [
        (
            transparent.to_string_lossy().to_string(),
            bones.clone(),
            "empty.png",
        ),
        (
            not_png.to_string_lossy().to_string(),
            bones.clone(),
            "fake.png",
        ),
        (
            png.clone(),
            missing.to_string_lossy().to_string(),
            "nobones.json",
        ),
    ];
    for (sprite, bones, name) in cases {
        let o = skinweights(&["mesh", &sprite, "--bones", &bones, "-o", &out]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("error:") && err.contains(name), "{err}");
    }
    assert!(!Path::new(&out).exists());
}
