//! Issue 28 item 2: errors that used to be `FormatError::InvalidField` catch-alls outside the file
//! readers are typed variants naming the offending index, name or value. One test per
//! variant, matching the variant (not the message text) and the value it carries.

use crate::common;
use skinweights::{
    ArgumentError, ArtError, FormatError, MeshError, OutputError, SceneError, SkeletonError,
    WeightsError,
};

use common::{small_scene, solved};
use image::{RgbImage, RgbaImage};
use nalgebra::Point2;
use skinweights::metrics::{drag_of_positions, evaluate};
use skinweights::render::{
    check_uvs, encode_apng, fringe_excluding, paint_layers, parse_colour, side_by_side, Frame,
    Matting, PaintOptions, Rgb16Image, Texture, View,
};
use skinweights::scene::{AlphaMode, Art, ArtImage, Layer, SubScene};
use skinweights::{
    mesh::Mesh, scene::builtin_scene, scene::BuiltinOptions, scene::Probe, scene::Scene,
    skeleton::Bone, skeleton::Pose, Error,
};
use skinweights::{scene::Watch, skeleton::Skeleton};

fn probe(name: &str, pose: Pose, watch: Watch) -> Probe {
    Probe {
        name: name.into(),
        pose,
        watch,
    }
}

// ---------------------------------------------------------------- built-in scenes

#[test]
fn an_unknown_built_in_scene_is_unknown_builtin() {
    match builtin_scene("dragon", &BuiltinOptions::default()) {
        Err(Error::Scene(SceneError::UnknownBuiltin { name, known })) => {
            assert_eq!(name, "dragon");
            assert!(known.contains("arms-down"), "{known}");
        }
        other => panic!("{:?}", other.map(|s| s.name().to_string())),
    }
}

#[test]
fn a_bad_generator_setting_is_invalid_argument_with_its_value() {
    let options = BuiltinOptions::default()
        .with_vertices(1000)
        .with_overlap(Some(3.0));
    match builtin_scene("bar", &options) {
        Err(Error::Argument(ArgumentError::InvalidArgument {
            argument, value, ..
        })) => assert_eq!((argument, value.as_str()), ("overlap", "3")),
        other => panic!("{:?}", other.map(|s| s.name().to_string())),
    }
}

// ---------------------------------------------------------------- clips and probes by name

#[test]
fn asking_a_scene_for_a_missing_clip_or_probe_names_it() {
    let scene = small_scene("bar");
    match scene.clip("walk") {
        Err(Error::Scene(SceneError::UnknownClip {
            scene: s,
            clip,
            known,
        })) => {
            assert_eq!((s.as_str(), clip.as_str()), ("bar", "walk"));
            assert!(known.is_empty());
        }
        other => panic!("{other:?}"),
    }
    match scene.probe(Some("nope")) {
        Err(Error::Scene(SceneError::UnknownProbe { probe, known, .. })) => {
            assert_eq!(probe, "nope");
            assert_eq!(known.len(), scene.probes().len());
        }
        other => panic!("{other:?}"),
    }
    let scene = scene.with_probes(Vec::new()).unwrap();
    match scene.probe(None) {
        Err(Error::Scene(SceneError::NoProbes { scene: s })) => assert_eq!(s, "bar"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_probe_watching_a_vertex_out_of_range_is_probe_vertex() {
    let scene = small_scene("bar");
    let n = scene.mesh().vertex_count();
    let watch = Watch {
        vertices: Some(vec![0, n + 7]),
        ..Default::default()
    };
    match Scene::new(
        "bar",
        scene.mesh().clone(),
        scene.skeleton().clone(),
        vec![probe("far", Pose::rest(), watch)],
    ) {
        Err(Error::Scene(SceneError::ProbeVertex {
            probe,
            vertex,
            vertex_count,
        })) => assert_eq!((probe.as_str(), vertex, vertex_count), ("far", n + 7, n)),
        other => panic!("{:?}", other.map(|s| s.name().to_string())),
    }
}

#[test]
fn a_min_distance_probe_whose_pose_moves_nothing_is_probe_moves_no_bone() {
    let scene = small_scene("bar");
    let w = solved(&scene, "euclidean");
    let watch = Watch {
        min_distance: Some(10.0),
        ..Default::default()
    };
    match evaluate(&scene, &w, &probe("still", Pose::rest(), watch)) {
        Err(Error::Scene(SceneError::ProbeMovesNoBone { probe })) => assert_eq!(probe, "still"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn posed_positions_of_the_wrong_length_are_posed_positions() {
    let scene = small_scene("bar");
    let posed = &scene.mesh().vertices()[..3];
    match drag_of_positions(&scene, &scene.probes()[0], posed) {
        Err(e @ Error::Mesh(MeshError::PosedPositions { .. })) => {
            assert!(
                matches!(e, Error::Mesh(MeshError::PosedPositions { given: 3, vertices }) if vertices == scene.mesh().vertex_count())
            );
            // The Python module's tests match this text.
            assert!(
                e.to_string()
                    .starts_with("posed: 3 positions for a mesh of "),
                "{e}"
            );
        }
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------- skeleton, sub-scenes

#[test]
fn offsets_not_one_per_bone_are_pose_offsets() {
    let scene = small_scene("bar");
    match scene.skeleton().world_affines_with(&[]) {
        Err(Error::Skeleton(SkeletonError::PoseOffsets { given, bones })) => {
            assert_eq!((given, bones), (0, scene.skeleton().len()))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_part_vertex_only_on_crossing_triangles_is_a_stranded_vertex() {
    let p = |x, y| Point2::new(x, y);
    let mesh = Mesh::with_parts(
        vec![
            p(0.0, 0.0),
            p(1.0, 0.0),
            p(0.0, 1.0),
            p(1.0, 1.0),
            p(2.0, 0.5),
        ],
        vec![[0, 1, 2], [1, 3, 2], [1, 4, 3]],
        vec!["a".into(), "b".into()],
        vec![0, 0, 0, 1, 0],
    )
    .unwrap();
    let skeleton = Skeleton::new(vec![Bone::new("bone", p(0.0, 0.0), p(1.0, 0.0))]).unwrap();
    let scene = Scene::new("strand", mesh, skeleton, Vec::new()).unwrap();
    match SubScene::new(&scene, "a", &["bone".to_string()]) {
        Err(Error::Mesh(MeshError::StrandedVertex { part, vertex })) => {
            assert_eq!((part.as_str(), vertex), ("a", 4))
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

// ---------------------------------------------------------------- art

fn image(name: &str) -> ArtImage {
    ArtImage {
        name: name.into(),
        path: format!("{name}.png").into(),
        alpha: AlphaMode::Straight,
    }
}

#[test]
fn art_that_does_not_fit_its_mesh_gets_a_variant_per_problem() {
    let parts = vec!["a".to_string(), "b".to_string()];
    let good = Art {
        images: vec![image("sheet")],
        uvs: vec![Point2::new(1.0, 1.0); 4],
        layers: Layer::one_per_part(&parts, Some(0)),
    };
    assert!(good.check(4, &parts).is_ok());

    match good.check(5, &parts) {
        Err(Error::Art(ArtError::ArtUvs { given, vertices })) => {
            assert_eq!((given, vertices), (4, 5))
        }
        other => panic!("{other:?}"),
    }
    let mut nan = good.clone();
    nan.uvs[2].y = f64::NAN;
    match nan.check(4, &parts) {
        Err(Error::Art(ArtError::NonFiniteUv { vertex, u, v })) => {
            assert_eq!((vertex, u), (2, 1.0));
            assert!(v.is_nan());
        }
        other => panic!("{other:?}"),
    }
    let mut twice = good.clone();
    twice.layers[1].part = "a".into();
    match twice.check(4, &parts) {
        Err(Error::Art(ArtError::DuplicateLayer { layer, part })) => {
            assert_eq!((layer, part.as_str()), (1, "a"))
        }
        other => panic!("{other:?}"),
    }
    let mut no_image = good.clone();
    no_image.layers[1].image = Some(3);
    match no_image.check(4, &parts) {
        Err(Error::Art(ArtError::LayerImage {
            layer,
            image,
            images,
        })) => assert_eq!((layer, image, images), (1, 3, 1)),
        other => panic!("{other:?}"),
    }
    let mut undrawn = good.clone();
    undrawn.layers.pop();
    match undrawn.check(4, &parts) {
        Err(Error::Art(ArtError::UndrawnPart { part })) => assert_eq!(part, "b"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn textures_are_checked_against_the_art() {
    let mesh = small_scene("bar").mesh().clone();
    let n = mesh.vertex_count();
    let parts = mesh.parts().to_vec();
    let mut art = Art {
        images: vec![image("sheet")],
        uvs: vec![Point2::new(1.0, 1.0); n],
        layers: Layer::one_per_part(&parts, Some(0)),
    };
    let texture = || Texture::new("sheet", RgbaImage::new(8, 4), AlphaMode::Straight);
    assert!(check_uvs(&mesh, &art, &[texture()]).is_ok());
    match check_uvs(&mesh, &art, &[]) {
        Err(Error::Art(ArtError::TextureCount { given, images })) => {
            assert_eq!((given, images), (0, 1))
        }
        other => panic!("{other:?}"),
    }
    art.uvs[5] = Point2::new(2.0, 40.0);
    match check_uvs(&mesh, &art, &[texture()]) {
        Err(Error::Art(ArtError::UvOutsideImage {
            vertex,
            u,
            v,
            image,
            width,
            height,
        })) => {
            assert_eq!((vertex, u, v, image.as_str()), (5, 2.0, 40.0, "sheet"));
            assert_eq!((width, height), (8.0, 4.0));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn painting_a_part_wider_than_16384_pixels_is_layer_too_large() {
    let p = |x, y| Point2::new(x, y);
    let mesh = Mesh::new(
        vec![p(0.0, 0.0), p(20_000.0, 0.0), p(0.0, 10.0)],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let skeleton = Skeleton::new(vec![Bone::new("bone", p(0.0, 0.0), p(1.0, 0.0))]).unwrap();
    let scene = Scene::new("wide", mesh, skeleton, Vec::new()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    match paint_layers(&scene, &dir.path().join("wide"), &PaintOptions::default()) {
        Err(Error::Art(ArtError::LayerTooLarge {
            part, width, max, ..
        })) => {
            assert_eq!((part, max), (0, 16_384));
            assert!(width > 20_000.0, "{width}");
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

// ---------------------------------------------------------------- renders and frames

#[test]
fn frames_that_cannot_be_put_together_name_the_frame() {
    let path = std::path::Path::new("clip.apng");
    match encode_apng(&[], &[], path) {
        Err(Error::Output(OutputError::NoFrames { what })) => assert_eq!(what, "apng"),
        other => panic!("{:?}", other.map(|_| ())),
    }
    let frames = [
        RgbImage::new(4, 3),
        RgbImage::new(4, 3),
        RgbImage::new(5, 3),
    ];
    match encode_apng(&frames, &[0.0, 0.1, 0.2], path) {
        Err(Error::Output(OutputError::FrameSize {
            what,
            frame,
            size,
            first,
        })) => assert_eq!((what, frame, size, first), ("apng", 2, (5, 3), (4, 3))),
        other => panic!("{:?}", other.map(|_| ())),
    }
    match encode_apng(&frames[..2], &[0.0], path) {
        Err(Error::Output(OutputError::FrameTimes { given, frames })) => {
            assert_eq!((given, frames), (1, 2))
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    match side_by_side(&[]) {
        Err(Error::Output(OutputError::NoFrames { what })) => assert_eq!(what, "side by side"),
        other => panic!("{:?}", other.map(|_| ())),
    }
    match side_by_side(&[RgbImage::new(4, 3), RgbImage::new(2, 6)]) {
        Err(Error::Output(OutputError::ImageHeight {
            image,
            height,
            first,
        })) => assert_eq!((image, height, first), (1, 6, 3)),
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn matting_renders_and_masks_of_other_sizes_are_refused() {
    let (black, small_white) = (RgbImage::new(4, 4), RgbImage::new(3, 4));
    let (ref_black, ref_white) = (Rgb16Image::new(4, 4), Rgb16Image::new(4, 4));
    let m = Matting {
        black: &black,
        white: &small_white,
        ref_black: &ref_black,
        ref_white: &ref_white,
        red: None,
    };
    match fringe_excluding(&m, None) {
        Err(Error::Output(OutputError::RenderSize { render, got, frame })) => {
            assert_eq!((render, got, frame), ("white", (3, 4), (4, 4)))
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    let m = Matting { white: &black, ..m };
    match fringe_excluding(&m, Some(&[false; 3])) {
        Err(Error::Output(OutputError::MaskSize { given, pixels })) => {
            assert_eq!((given, pixels), (3, 16))
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn a_view_needs_points_and_finite_settings() {
    match Frame::fit(&[], &View::default(), 0.0) {
        Err(Error::Output(OutputError::NothingToFrame)) => {}
        other => panic!("{:?}", other.map(|f| f.width)),
    }
    let points = [Point2::new(0.0, 0.0), Point2::new(1.0, 1.0)];
    let view = View {
        scale: -2.0,
        ..View::default()
    };
    match Frame::fit(&points, &view, 0.0) {
        Err(Error::Argument(ArgumentError::InvalidArgument {
            argument, value, ..
        })) => assert_eq!((argument, value.as_str()), ("scale", "-2")),
        other => panic!("{:?}", other.map(|f| f.width)),
    }
    match parse_colour("mauve") {
        Err(Error::Argument(ArgumentError::InvalidArgument {
            argument, value, ..
        })) => assert_eq!((argument, value.as_str()), ("background", "mauve")),
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------- file formats

#[test]
fn a_binary_gltf_without_a_json_chunk_is_an_invalid_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("character.glb");
    // A .glb starts with the magic "glTF", then version 2 and the length; this one ends there.
    let mut bytes = b"glTF".to_vec();
    bytes.extend_from_slice(&2u32.to_le_bytes());
    bytes.extend_from_slice(&12u32.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    match skinweights::io::gltf::import_gltf(&path) {
        Err(Error::Format(FormatError::InvalidField { field, message })) => {
            assert_eq!(field, "glb chunk type");
            assert!(message.contains("no JSON chunk"), "{message}");
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn figures_of_weights_too_large_to_pose_are_unscorable_row_not_a_panic() {
    let scene = small_scene("bar");
    let mut w = solved(&scene, "heat");
    w.row_mut_unchecked(3)[0] = 1e308;
    let probe = &scene.probes()[0];
    match skinweights::compare::probe_view(&scene, &w, probe) {
        Err(Error::Weights(WeightsError::UnscorableRow { vertex, sum })) => {
            assert_eq!(vertex, 3);
            assert!(sum >= 1e308, "{sum}");
        }
        other => panic!("{:?}", other.map(|v| v.max_drag_pct)),
    }
}
