//! The gap G restricted to a seam (issue 12), on the painted layered elbow.

use nalgebra::Vector2;
use skinweights::render::{
    matting_renders, posed_vertices, Drawing, Frame, RenderOptions, Skinning, View,
};
use skinweights::render::{paint_layers, seam_pixel_gaps, PaintOptions};
use skinweights::seams::measure::{find_seams, SeamOptions};
use skinweights::{scene::builtin_scene, scene::BuiltinOptions, skeleton::Pose};
use std::path::Path;

#[test]
fn the_open_elbow_shows_the_background_and_the_rest_pose_does_not() {
    let scene = builtin_scene(
        "layered-elbow",
        &BuiltinOptions::default().with_vertices(2000),
    )
    .unwrap();
    let (scene, textures) =
        paint_layers(&scene, Path::new("elbow"), &PaintOptions::default()).unwrap();
    // Transparent texels are white, every layer has its own image, UVs inside them.
    let art = scene.art().unwrap();
    assert_eq!(art.images.len(), 2);
    assert_eq!(textures[0].image.get_pixel(0, 0).0, [255, 255, 255, 0]);
    skinweights::render::check_uvs(scene.mesh(), art, &textures).unwrap();
    let weights = skinweights::solvers::solve(&scene, "heat").unwrap();
    let seams = find_seams(&scene, &SeamOptions::default()).unwrap();
    let gap = |degrees: f64| {
        let posed = posed_vertices(
            &scene,
            &weights,
            &Pose::rest().rotate("forearm", degrees),
            Skinning::Lbs,
        )
        .unwrap();
        let view = View {
            scale: 2.0,
            rotation_deg: 0.0,
            offset: Vector2::new(0.37, 0.21),
        };
        let frame = Frame::fit(&posed, &view, 4.0).unwrap();
        let drawing = Drawing {
            mesh: scene.mesh(),
            positions: &posed,
            art: Some(art),
            textures: &textures,
        };
        let m = matting_renders(&drawing, &frame, &RenderOptions::default()).unwrap();
        seam_pixel_gaps(&scene, &seams, &posed, &frame, &m).unwrap()[0]
    };
    let rest = gap(0.0);
    assert!(rest.pixels > 50, "{rest:?}");
    assert!(rest.gap < 0.05, "{rest:?}");
    let open = gap(90.0);
    assert!(open.pixels > rest.pixels, "{open:?}");
    assert_eq!(open.gap, 1.0, "{open:?}");
}

#[cfg(feature = "cli")]
#[test]
fn the_scene_command_writes_the_layer_images_and_refuses_to_overwrite_them() {
    let dir = std::env::temp_dir().join(format!("seams_cli_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("elbow.json");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "scene",
            "layered-elbow",
            "--vertices",
            "600",
            "--overlap",
            "2",
            "--transparent",
            "black",
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        std::process::Command::new(env!("CARGO_BIN_EXE_skinweights"))
            .args(&args)
            .output()
            .unwrap()
    };
    assert!(run(&[]).status.success());
    let png = dir.join("elbow_forearm.png");
    let image = image::open(&png).unwrap().to_rgba8();
    assert_eq!(image.get_pixel(0, 0).0, [0, 0, 0, 0]);
    let (scene, _) = skinweights::io::load_scene(&out).unwrap();
    assert_eq!(scene.art().unwrap().images.len(), 2);
    // The PNGs exist now: a second run without --force is refused and names one.
    std::fs::remove_file(&out).unwrap();
    let again = run(&[]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("elbow_upper.png"));
    assert!(run(&["--force"]).status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}
