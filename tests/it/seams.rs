//! Seam metrics (issue 12): seams found at rest, opening width and open area in a pose,
//! checked against a case with a closed form and on the built-in layered elbow.

use nalgebra::Point2;
use skinweights::scene::{builtin_scene, BuiltinOptions, Scene, ELBOW_BENDS};
use skinweights::seams::measure::{find_seams, measure_seams, SeamOptions};
use skinweights::skinning::linear_blend_skinning;
use skinweights::{
    mesh::Mesh, skeleton::Bone, skeleton::Pose, skeleton::Skeleton, weights::Weights, Error,
};
use skinweights::{MeshError, SeamError};

/// A grid mesh of the rectangle [x0, x1] x [y0, y1] with nx x ny cells, appended to `v`/`t`.
fn rect(
    v: &mut Vec<Point2<f64>>,
    t: &mut Vec<[usize; 3]>,
    (x0, x1, y0, y1): (f64, f64, f64, f64),
    (nx, ny): (usize, usize),
) {
    let base = v.len();
    for j in 0..=ny {
        for i in 0..=nx {
            v.push(Point2::new(
                x0 + (x1 - x0) * i as f64 / nx as f64,
                y0 + (y1 - y0) * j as f64 / ny as f64,
            ));
        }
    }
    let id = |i: usize, j: usize| base + j * (nx + 1) + i;
    for j in 0..ny {
        for i in 0..nx {
            t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
}

/// Two separate rectangles of half-width 20: A = [0, 100] and B = [100 - overlap, 200],
/// meshed with different vertex spacings (so the shared end has T-junctions), each bound
/// rigidly to its own bone; B's bone is A's child with its head at (100, 0).
fn two_rectangles(overlap: f64) -> (Scene, Weights) {
    let (mut v, mut t) = (Vec::new(), Vec::new());
    rect(&mut v, &mut t, (0.0, 100.0, -20.0, 20.0), (10, 8));
    let na = v.len();
    rect(
        &mut v,
        &mut t,
        (100.0 - overlap, 200.0, -20.0, 20.0),
        (7, 5),
    );
    let parts = vec!["a".to_string(), "b".to_string()];
    let vp: Vec<usize> = (0..v.len()).map(|i| usize::from(i >= na)).collect();
    let rows: Vec<Vec<f64>> = vp
        .iter()
        .map(|&p| {
            if p == 0 {
                vec![1.0, 0.0]
            } else {
                vec![0.0, 1.0]
            }
        })
        .collect();
    let mesh = Mesh::with_parts(v, t, parts, vp).unwrap();
    let skeleton = Skeleton::new(vec![
        Bone::new("a", Point2::new(0.0, 0.0), Point2::new(100.0, 0.0)).with_part("a"),
        Bone::new("b", Point2::new(100.0, 0.0), Point2::new(200.0, 0.0))
            .with_part("b")
            .with_parent(0),
    ])
    .unwrap();
    let scene = Scene::from_mesh(mesh, skeleton).unwrap();
    let weights = Weights::from_rows(&rows, 2).unwrap();
    (scene, weights)
}

fn posed(scene: &Scene, w: &Weights, bone: &str, degrees: f64) -> Vec<Point2<f64>> {
    linear_blend_skinning(
        scene.mesh().vertices(),
        scene.skeleton(),
        w,
        &Pose::rest().rotate(bone, degrees),
    )
    .unwrap()
}

#[test]
fn a_rigid_bend_of_two_rectangles_opens_the_exact_wedge() {
    let (scene, w) = two_rectangles(0.0);
    // A tolerance far below a px: the chord lengths are exact.
    let options = SeamOptions::default().with_tolerance(1e-6);
    let seams = find_seams(&scene, &options).unwrap();
    assert_eq!(seams.len(), 1, "{seams:?}");
    let s = &seams[0];
    assert_eq!(s.names, ["a".to_string(), "b".to_string()]);
    assert_eq!(s.joint_name.as_deref(), Some("b"));
    // The touching ends: 9 vertices of A and 6 of B on x = 100, 40 px long.
    assert_eq!((s.vertices[0].len(), s.vertices[1].len()), (9, 6));
    assert!((s.length - 40.0).abs() < 1e-9, "{}", s.length);
    let rest = measure_seams(&scene, &seams, scene.mesh().vertices(), &options).unwrap();
    assert_eq!((rest[0].widest, rest[0].open_area), (0.0, 0.0));
    for deg in [10.0, 30.0, 60.0, 90.0, 120.0, 150.0] {
        let o = measure_seams(&scene, &seams, &posed(&scene, &w, "b", deg), &options).unwrap()[0];
        let th = f64::to_radians(deg);
        let (width, area) = (40.0 * (th / 2.0).sin(), 200.0 * th.sin());
        assert!(
            (o.widest - width).abs() < 1e-9,
            "{deg}: {} vs {width}",
            o.widest
        );
        assert!(
            (o.open_area - area).abs() < 0.005 * area,
            "{deg}: {} vs {area}",
            o.open_area
        );
    }
}

#[test]
fn an_overlap_reads_closed_until_the_bend_exceeds_it() {
    let (scene, w) = two_rectangles(2.0);
    let options = SeamOptions::default();
    let seams = find_seams(&scene, &options).unwrap();
    assert_eq!(seams.len(), 1);
    // B's extension covers A's corner while 20 sin θ <= 2: up to 5.74 degrees.
    for deg in [0.0, 2.0, 5.0] {
        let o = measure_seams(&scene, &seams, &posed(&scene, &w, "b", deg), &options).unwrap()[0];
        assert_eq!(o.widest, 0.0, "{deg}");
        // B's far corner dips below A's outline by o sin θ + 20 (1 - cos θ) px: a sliver
        // notch of the silhouette, not a crack.
        assert!(o.open_area < 0.15, "{deg}: {}", o.open_area);
    }
    let mut last = 0.0;
    for deg in [10.0, 30.0, 60.0, 90.0] {
        let o = measure_seams(&scene, &seams, &posed(&scene, &w, "b", deg), &options).unwrap()[0];
        let touching = 40.0 * (f64::to_radians(deg) / 2.0).sin();
        assert!(
            o.widest > last && o.widest < touching,
            "{deg}: {}",
            o.widest
        );
        last = o.widest;
    }
}

#[test]
fn layered_elbow_opens_with_the_bend() {
    let scene = builtin_scene(
        "layered-elbow",
        &BuiltinOptions::default().with_vertices(3000),
    )
    .unwrap();
    scene.sanity_check().unwrap();
    assert_eq!(scene.mesh().topology().component_count(), 2);
    let options = SeamOptions::default();
    let seams = find_seams(&scene, &options).unwrap();
    assert_eq!(seams.len(), 1);
    assert_eq!(seams[0].label(), "upper|forearm @ forearm");
    // Each layer solved on its own component: bone heat.
    let w = skinweights::solvers::solve(&scene, "heat").unwrap();
    let rest = measure_seams(&scene, &seams, scene.mesh().vertices(), &options).unwrap()[0];
    assert_eq!((rest.widest, rest.open_area), (0.0, 0.0));
    let mut last = (0.0, 0.0);
    for &deg in &ELBOW_BENDS {
        let o =
            measure_seams(&scene, &seams, &posed(&scene, &w, "forearm", deg), &options).unwrap()[0];
        assert!(
            o.widest > last.0 + 1.0,
            "{deg}: {} after {}",
            o.widest,
            last.0
        );
        last = (o.widest, o.open_area);
    }
    assert!(last.0 > 20.0, "150 degrees opens {} px", last.0);
}

#[test]
fn a_welded_mesh_has_seams_that_never_open() {
    let scene = builtin_scene("arms-down", &BuiltinOptions::default().with_vertices(2000)).unwrap();
    let options = SeamOptions::default();
    let seams = find_seams(&scene, &options).unwrap();
    let labels: Vec<String> = seams.iter().map(|s| s.label()).collect();
    assert_eq!(
        labels,
        ["torso|arm_l @ upper_arm_l", "torso|arm_r @ upper_arm_r"]
    );
    let w = skinweights::solvers::solve(&scene, "heat").unwrap();
    let o = measure_seams(
        &scene,
        &seams,
        &posed(&scene, &w, "upper_arm_l", -90.0),
        &options,
    )
    .unwrap();
    for x in o {
        assert!(x.widest < 1e-9 && x.open_area < 1e-9, "{x:?}");
    }
}

#[test]
fn bad_options_and_positions_are_errors() {
    let (scene, _) = two_rectangles(0.0);
    let bad = SeamOptions::default().with_tolerance(-1.0);
    assert!(matches!(
        find_seams(&scene, &bad),
        Err(Error::Seam(SeamError::InvalidAmount { ref option, .. })) if option == "tolerance"
    ));
    let seams = find_seams(&scene, &SeamOptions::default()).unwrap();
    assert!(matches!(
        measure_seams(
            &scene,
            &seams,
            &scene.mesh().vertices()[1..],
            &SeamOptions::default(),
        ),
        Err(Error::Mesh(MeshError::PosedPositions { .. }))
    ));
    let mut p = scene.mesh().vertices().to_vec();
    p[3].x = f64::NAN;
    assert!(matches!(
        measure_seams(&scene, &seams, &p, &SeamOptions::default()),
        Err(Error::Mesh(MeshError::NonFinitePosition { vertex: 3, .. }))
    ));
}
