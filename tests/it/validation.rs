//! Every validation error: feed the bad input, check the typed error and what it names.

use nalgebra::Point2;
use skinweights::io::scene_from_json;
use skinweights::{
    io::WeightsFile, mesh::Mesh, skeleton::Bone, skeleton::Pose, skeleton::Skeleton,
    weights::Weights, Error,
};
use skinweights::{
    ArtError, FormatError, MeshError, SkeletonError, VertexPartsProblem, WeightsError,
};

fn square() -> Vec<Point2<f64>> {
    vec![
        Point2::new(0.0, 0.0),
        Point2::new(1.0, 0.0),
        Point2::new(1.0, 1.0),
        Point2::new(0.0, 1.0),
    ]
}

#[test]
fn empty_mesh() {
    assert!(matches!(
        Mesh::new(vec![], vec![]),
        Err(Error::Mesh(MeshError::EmptyMesh {
            vertices: 0,
            triangles: 0
        }))
    ));
    assert!(matches!(
        Mesh::new(square(), vec![]),
        Err(Error::Mesh(MeshError::EmptyMesh {
            vertices: 4,
            triangles: 0
        }))
    ));
}

#[test]
fn non_finite_coordinate_names_the_vertex() {
    let mut v = square();
    v[2].y = f64::NAN;
    match Mesh::new(v, vec![[0, 1, 2], [0, 2, 3]]) {
        Err(Error::Mesh(MeshError::NonFiniteCoordinate { vertex: 2, .. })) => {}
        other => panic!("{other:?}"),
    }
    let mut v = square();
    v[3].x = f64::INFINITY;
    assert!(matches!(
        Mesh::new(v, vec![[0, 1, 2], [0, 2, 3]]),
        Err(Error::Mesh(MeshError::NonFiniteCoordinate {
            vertex: 3,
            ..
        }))
    ));
}

#[test]
fn index_out_of_range_names_triangle_and_index() {
    match Mesh::new(square(), vec![[0, 1, 2], [0, 2, 7]]) {
        Err(Error::Mesh(MeshError::IndexOutOfRange {
            triangle: 1,
            index: 7,
            vertex_count: 4,
        })) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn zero_area_triangle() {
    let mut v = square();
    v.push(Point2::new(2.0, 0.0)); // collinear with 0 and 1
    match Mesh::new(v.clone(), vec![[0, 1, 2], [0, 2, 3], [0, 1, 4]]) {
        Err(Error::Mesh(MeshError::ZeroAreaTriangle { triangle: 2, .. })) => {}
        other => panic!("{other:?}"),
    }
    // A repeated corner is zero area too.
    assert!(matches!(
        Mesh::new(square(), vec![[0, 1, 1]]),
        Err(Error::Mesh(MeshError::ZeroAreaTriangle { triangle: 0, .. }))
    ));
}

#[test]
fn repeated_triangle_names_both() {
    match Mesh::new(square(), vec![[0, 1, 2], [0, 2, 3], [1, 2, 0]]) {
        Err(Error::Mesh(MeshError::RepeatedTriangle {
            triangle: 2,
            first: 0,
            ..
        })) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn edge_shared_by_three_triangles() {
    // Three CCW triangles on the edge (0, 1): one above, two overlapping below... all CCW
    // needs the fans to go the same way, so use a fan of three apexes above the edge.
    let v = vec![
        Point2::new(0.0, 0.0),
        Point2::new(1.0, 0.0),
        Point2::new(0.5, 1.0),
        Point2::new(0.5, 2.0),
        Point2::new(0.5, 3.0),
    ];
    match Mesh::new(v, vec![[0, 1, 2], [0, 1, 3], [0, 1, 4]]) {
        Err(Error::Mesh(MeshError::NonManifoldEdge {
            a: 0,
            b: 1,
            count: 3,
            ..
        })) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn mixed_orientation_names_the_clockwise_triangle() {
    match Mesh::new(square(), vec![[0, 1, 2], [0, 3, 2]]) {
        // One of each: the first clockwise one is named.
        Err(Error::Mesh(MeshError::MixedOrientation {
            triangle: 1,
            ccw: 1,
            total: 2,
            ..
        })) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn clockwise_mesh_is_rejected_by_mesh_and_flipped_by_the_loader() {
    assert!(matches!(
        Mesh::new(square(), vec![[0, 2, 1], [0, 3, 2]]),
        Err(Error::Mesh(MeshError::ClockwiseMesh { total: 2 }))
    ));
    let json = scene_json(r#"[[0,2,1],[0,3,2]]"#, "null");
    let (scene, notes) = scene_from_json(&json, None).unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("flipped"));
    assert!(scene.mesh().area() > 0.0);
}

#[test]
fn unreferenced_vertex() {
    let mut v = square();
    v.push(Point2::new(5.0, 5.0));
    assert!(matches!(
        Mesh::new(v, vec![[0, 1, 2], [0, 2, 3]]),
        Err(Error::Mesh(MeshError::UnreferencedVertex { vertex: 4 }))
    ));
}

#[test]
fn vertex_part_out_of_range() {
    let e = Mesh::with_parts(
        square(),
        vec![[0, 1, 2], [0, 2, 3]],
        vec!["a".into()],
        vec![0, 0, 1, 0],
    );
    match e {
        Err(Error::Mesh(MeshError::VertexParts { problem })) => assert_eq!(
            problem,
            VertexPartsProblem::PartOutOfRange {
                vertex: 2,
                part: 1,
                parts: 1
            }
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn skeleton_errors() {
    let o = Point2::new(0.0, 0.0);
    let x = Point2::new(1.0, 0.0);
    assert!(matches!(
        Skeleton::new(vec![]),
        Err(Error::Skeleton(SkeletonError::EmptySkeleton))
    ));
    match Skeleton::new(vec![Bone::new("a", o, x), Bone::new("a", x, o)]) {
        Err(Error::Skeleton(SkeletonError::DuplicateBone {
            name,
            first: 0,
            second: 1,
        })) => assert_eq!(name, "a"),
        other => panic!("{other:?}"),
    }
    match Skeleton::new(vec![
        Bone::new("a", o, x).with_parent(1),
        Bone::new("b", x, o).with_parent(0),
    ]) {
        Err(Error::Skeleton(SkeletonError::ParentCycle { cycle, .. })) => {
            assert!(cycle.contains('a') && cycle.contains('b'), "{cycle}")
        }
        other => panic!("{other:?}"),
    }
    match Skeleton::new(vec![Bone::new("a", o, Point2::new(f64::NAN, 0.0))]) {
        Err(Error::Skeleton(SkeletonError::NonFiniteBone {
            bone,
            field: "tail",
        })) => assert_eq!(bone, "a"),
        other => panic!("{other:?}"),
    }
    let s = Skeleton::new(vec![Bone::new("a", o, x)]).unwrap();
    match s.world_transforms(&Pose::rest().rotate("nope", 10.0)) {
        Err(Error::Skeleton(SkeletonError::UnknownBone { bone, .. })) => assert_eq!(bone, "nope"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        s.world_transforms(&Pose::rest().rotate("a", f64::NAN)),
        Err(Error::Skeleton(SkeletonError::NonFinitePose { .. }))
    ));
}

fn scene_json(triangles: &str, parent: &str) -> String {
    format!(
        r#"{{"format":"skinweights.scene/1","name":"t",
        "vertices":[[0,0],[1,0],[1,1],[0,1]],"triangles":{triangles},
        "parts":["body"],"vertex_parts":[0,0,0,0],
        "bones":[{{"name":"root","parent":null,"head":[0,0],"tail":[0,1],"part":"body"}},
                 {{"name":"tip","parent":{parent},"head":[0,1],"tail":[1,1]}}],
        "probes":[{{"name":"p","pose":{{"tip":30}},"watch":{{"part":"body","below_y":0.5}}}}]}}"#
    )
}

#[test]
fn scene_json_round_trip() {
    let json = scene_json("[[0,1,2],[0,2,3]]", r#""root""#);
    let (scene, notes) = scene_from_json(&json, None).unwrap();
    assert!(notes.is_empty());
    assert_eq!(scene.skeleton().bones()[1].parent, Some(0));
    let again = skinweights::io::scene_to_json(&scene, None).unwrap();
    let (scene2, _) = scene_from_json(&again, None).unwrap();
    assert_eq!(scene2.mesh().vertices(), scene.mesh().vertices());
    assert_eq!(scene2.skeleton(), scene.skeleton());
    assert_eq!(scene2.probes(), scene.probes());
    assert_eq!(
        scene.probes()[0].watched_vertices(&scene).unwrap(),
        vec![0, 1]
    );
}

#[test]
fn scene_json_errors_name_the_problem() {
    let err = |j: String| scene_from_json(&j, None).unwrap_err();
    match err(scene_json("[[0,1,2],[0,2,3]]", r#""ghost""#)) {
        Error::Skeleton(SkeletonError::UnknownParent { bone, parent }) => {
            assert_eq!((bone.as_str(), parent.as_str()), ("tip", "ghost"))
        }
        e => panic!("{e}"),
    }
    let bad_part =
        scene_json("[[0,1,2],[0,2,3]]", "null").replace(r#""part":"body""#, r#""part":"arm""#);
    match err(bad_part) {
        Error::Skeleton(SkeletonError::UnknownPart { part, context, .. }) => {
            assert_eq!(part, "arm");
            assert!(context.contains("root"), "{context}");
        }
        e => panic!("{e}"),
    }
    let bad_pose =
        scene_json("[[0,1,2],[0,2,3]]", "null").replace(r#"{"tip":30}"#, r#"{"elbow":30}"#);
    match err(bad_pose) {
        Error::Skeleton(SkeletonError::UnknownBone { bone, context }) => {
            assert_eq!(bone, "elbow");
            assert!(context.contains("probe"), "{context}");
        }
        e => panic!("{e}"),
    }
    let bad_format = scene_json("[[0,1,2],[0,2,3]]", "null").replace("scene/1", "scene/9");
    assert!(
        matches!(err(bad_format), Error::Format(FormatError::InvalidField { field, .. }) if field == "format")
    );
    let missing = scene_json("[[0,1,2],[0,2,3]]", "null").replace(r#""name":"t","#, "");
    match err(missing) {
        Error::Format(FormatError::Json { message, .. }) => {
            assert!(message.contains("name"), "{message}")
        }
        e => panic!("{e}"),
    }
    match err(scene_json("[[0,1,2],[0,2,9]]", "null")) {
        Error::Mesh(MeshError::IndexOutOfRange {
            triangle: 1,
            index: 9,
            ..
        }) => {}
        e => panic!("{e}"),
    }
}

#[test]
fn weights_validation_and_file_mismatch() {
    let w = Weights::from_rows(&[vec![0.5, 0.5], vec![0.25, 0.60]], 2).unwrap();
    match w.validate() {
        Err(Error::Weights(WeightsError::RowSum { vertex: 1, sum, .. })) => {
            assert!((sum - 0.85).abs() < 1e-12)
        }
        other => panic!("{other:?}"),
    }
    let w = Weights::from_rows(&[vec![1.5, -0.5]], 2).unwrap();
    assert!(matches!(
        w.validate(),
        Err(Error::Weights(WeightsError::InvalidWeight {
            vertex: 0,
            bone: 1,
            ..
        }))
    ));
    let w = Weights::from_rows(&[vec![f64::NAN, 1.0]], 2).unwrap();
    assert!(matches!(
        w.validate(),
        Err(Error::Weights(WeightsError::InvalidWeight {
            vertex: 0,
            bone: 0,
            ..
        }))
    ));
    assert!(matches!(
        Weights::from_rows(&[vec![1.0]], 2),
        Err(Error::Weights(WeightsError::WeightsShape { .. }))
    ));

    let names = vec!["root".to_string(), "tip".to_string()];
    let good = Weights::from_rows(&[vec![1.0, 0.0], vec![0.0, 1.0]], 2).unwrap();
    let file = WeightsFile::new("t", "test", names.clone(), &good);
    assert_eq!(file.to_weights_for(&names, 2).unwrap(), good);
    // Columns are matched by name, not position.
    let swapped = vec!["tip".to_string(), "root".to_string()];
    let w = file.to_weights_for(&swapped, 2).unwrap();
    assert_eq!(w.row(0), &[0.0, 1.0]);
    for (bones, n, says) in [
        (
            names.clone(),
            3,
            "the weights file has 2 rows, the scene has 3 vertices",
        ),
        (
            vec!["root".into(), "other".into()],
            2,
            r#"the scene's bone "other" is missing from the weights file"#,
        ),
        (
            vec!["root".into()],
            2,
            r#"the weights file has bone "tip", which the scene does not have"#,
        ),
    ] {
        match file.to_weights_for(&bones, n) {
            Err(e @ Error::Weights(WeightsError::WeightsShape { .. })) => {
                assert!(e.to_string().contains(says), "{e}")
            }
            other => panic!("{other:?}"),
        }
    }
    let json = serde_json::to_string(&file).unwrap();
    assert!(WeightsFile::from_json(&json).is_ok());
    assert!(matches!(
        WeightsFile::from_json(&json.replace("weights/1", "weights/2")),
        Err(Error::Format(FormatError::InvalidField { .. }))
    ));
}

#[test]
fn pinched_vertex_and_stray_triangle_are_non_manifold() {
    // Two triangles touching only at vertex 2 (a bowtie).
    let v = vec![
        Point2::new(0.0, 0.0),
        Point2::new(1.0, 0.0),
        Point2::new(0.5, 1.0),
        Point2::new(0.0, 2.0),
        Point2::new(1.0, 2.0),
    ];
    match Mesh::new(v, vec![[0, 1, 2], [2, 4, 3]]) {
        Err(Error::Mesh(MeshError::NonManifoldVertex { vertex: 2, fans: 2 })) => {}
        other => panic!("{other:?}"),
    }
    // A closed fan around the centre of a square plus a stray triangle reaching it: the
    // counts look like one open fan, the walk finds two.
    let v = vec![
        Point2::new(0.0, 0.0),
        Point2::new(2.0, 0.0),
        Point2::new(2.0, 2.0),
        Point2::new(0.0, 2.0),
        Point2::new(1.0, 1.0),
        Point2::new(5.0, 0.0),
        Point2::new(5.0, 3.0),
    ];
    let t = vec![[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4], [4, 5, 6]];
    match Mesh::new(v, t) {
        Err(Error::Mesh(MeshError::NonManifoldVertex { vertex: 4, fans: 2 })) => {}
        other => panic!("{other:?}"),
    }
}

fn bar_with_art() -> skinweights::scene::Scene {
    use skinweights::scene::{AlphaMode, Art, ArtImage};
    let scene = skinweights::scene::builtin_scene(
        "bar",
        &skinweights::scene::BuiltinOptions::default().with_vertices(600),
    )
    .unwrap();
    // Texture coordinates: the bar's frame flipped to image rows (v down), 1 px per unit.
    let uvs = scene
        .mesh()
        .vertices()
        .iter()
        .map(|p| Point2::new(p.x, 40.0 - p.y))
        .collect();
    let art = Art::single_image(
        ArtImage {
            name: "bar".into(),
            path: "art/bar.png".into(),
            alpha: AlphaMode::Premultiplied,
        },
        uvs,
        scene.mesh().parts(),
    );
    scene.with_art(art).unwrap()
}

#[test]
fn scene_art_round_trips_with_paths_relative_to_the_scene_file() {
    let dir = tempfile::tempdir().unwrap();
    let scene = bar_with_art();
    let image = dir.path().join("art/bar.png");
    let mut art = scene.art().cloned().unwrap();
    art.images[0].path = image.clone();
    let scene = scene.with_art(art).unwrap();
    let file = dir.path().join("scenes/bar.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    skinweights::io::save_scene(&scene, &file).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\"skinweights.scene/2\""), "format tag");
    assert!(
        text.contains("\"../art/bar.png\""),
        "path relative to the scene file"
    );
    let (back, _) = skinweights::io::load_scene(&file).unwrap();
    back.sanity_check().unwrap();
    let (a, b) = (scene.art().unwrap(), back.art().unwrap());
    let uv_err = a
        .uvs
        .iter()
        .zip(&b.uvs)
        .map(|(p, q)| (p - q).norm())
        .fold(0.0, f64::max);
    assert!(a.uvs.len() == b.uvs.len() && uv_err < 1e-9, "{uv_err}");
    assert_eq!(a.layers, b.layers);
    assert_eq!(
        b.images[0].alpha,
        skinweights::scene::AlphaMode::Premultiplied
    );
    assert_eq!(
        std::path::Path::new(&b.images[0].path).components().count(),
        file.parent()
            .unwrap()
            .join("../art/bar.png")
            .components()
            .count()
    );
    assert!(file.parent().unwrap().join("../art/bar.png") == b.images[0].path);
    // Without art the file stays at version 1, which older readers accept.
    let plain = skinweights::scene::builtin_scene("bar", &Default::default()).unwrap();
    let text = skinweights::io::scene_to_json(&plain, None).unwrap();
    assert!(text.contains("\"skinweights.scene/1\"") && !text.contains("\"art\""));
}

#[test]
fn bad_scene_art_names_the_field() {
    let scene = bar_with_art();
    let text = skinweights::io::scene_to_json(&scene, None).unwrap();
    let err = |t: String| scene_from_json(&t, None).unwrap_err();
    let e = err(text.replace("skinweights.scene/2", "skinweights.scene/1"));
    let (field, message) = crate::common::invalid_field(&e);
    assert!(field == "format" && message.contains("scene/2"), "{e}");
    let e = err(text.replace("\"premultiplied\"", "\"linear\""));
    let (field, message) = crate::common::invalid_field(&e);
    assert!(
        field == "art.images[0].alpha" && message.contains("linear"),
        "{e}"
    );
    let e = err(text.replace("\"image\":0", "\"image\":7"));
    assert!(
        matches!(
            e,
            Error::Art(ArtError::LayerImage {
                layer: 0,
                image: 7,
                ..
            })
        ),
        "{e:?}"
    );
    let e = err(text.replace("\"uvs\":[[", "\"uvs\":[[1,2],["));
    assert!(
        matches!(e, Error::Art(ArtError::ArtUvs { given, vertices }) if given == vertices + 1),
        "{e:?}"
    );
}
