//! Seam repairs (issue 12): weld, inward overlap, tiny components, seam-consistent weights
//! and limited smoothing, on layered scenes built here (two touching rectangles meshed
//! separately, a scene file read from a string) and on the built-in layered-arms.

use crate::common;
use skinweights::{RepairProblem, SeamError};

use nalgebra::Point2;
use skinweights::io::scene_from_json;
use skinweights::lint::{lint, LintOptions};
use skinweights::mesh::{mesh_outline, MeshingOptions, Outline};
use skinweights::scene::{Art, Layer};
use skinweights::seams::repair::{
    inward_overlap, merge_tiny_components, repair, repaired_weights, seam_consistent_weights,
    seam_weight_difference, silhouette_change, smooth_seam_weights, weld_seams, RepairOptions,
    SmoothOptions,
};
use skinweights::solvers::Heat;
use skinweights::{
    mesh::Mesh, scene::Scene, skeleton::Bone, skeleton::Pose, skeleton::Skeleton,
    skinning::linear_blend_skinning, weights::Weights, Error,
};

/// An upper arm [0, 100] x [0, 30] and a forearm [100, 200] x [0, 30], meshed separately at
/// different densities (so their seam vertices do not match), one bone each along y = 15,
/// drawn as two flat-colour layers with texture coordinates = positions.
fn two_rectangles() -> Scene {
    two_rectangles_apart(0.0)
}

/// [`two_rectangles`] with the forearm starting `gap` px right of the upper arm's end.
fn two_rectangles_apart(gap: f64) -> Scene {
    let rect = |x0: f64, x1: f64, max_area: f64| {
        let outline = Outline {
            loops: vec![vec![
                Point2::new(x0, 0.0),
                Point2::new(x1, 0.0),
                Point2::new(x1, 30.0),
                Point2::new(x0, 30.0),
            ]],
            segments: vec![[Point2::new(x0, 15.0), Point2::new(x1, 15.0)]],
        };
        let options = MeshingOptions::default()
            .with_max_area(Some(max_area))
            .with_min_angle_deg(28.0);
        mesh_outline(&outline, &options).unwrap()
    };
    let (mut v, mut t, _) = rect(0.0, 100.0, 12.0);
    let n = v.len();
    let (v2, t2, _) = rect(100.0 + gap, 200.0, 20.0);
    let m = v2.len();
    v.extend(v2);
    t.extend(t2.into_iter().map(|tri| tri.map(|i| i + n)));
    let mut parts = vec![0; n];
    parts.extend(vec![1; m]);
    let uvs = v.clone();
    let mesh = Mesh::with_parts(v, t, vec!["upper".into(), "lower".into()], parts).unwrap();
    let skeleton = Skeleton::new(vec![
        Bone::new(
            "upper",
            Point2::new(0.0, 15.0),
            Point2::new(100.0 + gap, 15.0),
        )
        .with_part("upper"),
        Bone::new(
            "lower",
            Point2::new(100.0 + gap, 15.0),
            Point2::new(200.0, 15.0),
        )
        .with_parent(0)
        .with_part("lower"),
    ])
    .unwrap();
    let art = Art {
        images: Vec::new(),
        uvs,
        layers: Layer::one_per_part(mesh.parts(), None),
    };
    Scene::new("two-rectangles", mesh, skeleton, Vec::new())
        .unwrap()
        .with_art(art)
        .unwrap()
}

/// The largest distance between posed vertices that share a rest position in different
/// layers, over bend angles 0, 15, ..., 150 degrees of `bone`.
fn max_seam_separation(scene: &Scene, weights: &Weights, bone: &str) -> f64 {
    let pts = scene.mesh().vertices();
    let parts = scene.mesh().vertex_parts();
    let mut pairs = Vec::new();
    for a in 0..pts.len() {
        for b in a + 1..pts.len() {
            if parts[a] != parts[b] && (pts[a] - pts[b]).norm() <= 1e-9 {
                pairs.push((a, b));
            }
        }
    }
    assert!(!pairs.is_empty(), "no seam pairs");
    let mut worst: f64 = 0.0;
    for k in 0..=10 {
        let pose = Pose::rest().rotate(bone, 15.0 * k as f64);
        let posed = linear_blend_skinning(pts, scene.skeleton(), weights, &pose).unwrap();
        for &(a, b) in &pairs {
            worst = worst.max((posed[a] - posed[b]).norm());
        }
    }
    worst
}

fn assert_valid_rows(w: &Weights) {
    for (v, row) in w.rows().enumerate() {
        assert!(
            row.iter().all(|x| x.is_finite() && *x >= 0.0),
            "row {v}: {row:?}"
        );
        let s: f64 = row.iter().sum();
        assert!((s - 1.0).abs() <= 1e-9, "row {v} sums to {s}");
    }
}

fn assert_layers_kept(before: &Scene, after: &Scene) {
    assert_eq!(before.mesh().parts(), after.mesh().parts());
    let (a, b) = (before.art().unwrap(), after.art().unwrap());
    assert_eq!(a.layers, b.layers, "layers and their textures");
    assert_eq!(a.images, b.images);
    for p in 0..after.mesh().parts().len() {
        assert!(
            after.mesh().vertex_parts().contains(&p),
            "part {} lost",
            after.mesh().parts()[p]
        );
    }
    // Vertices are only appended: the old ones keep their part and texture coordinate.
    let n = before.mesh().vertex_count();
    assert_eq!(
        &after.mesh().vertex_parts()[..n],
        before.mesh().vertex_parts()
    );
    assert_eq!(&b.uvs[..n], &a.uvs[..n]);
}

#[test]
fn weld_then_seam_consistent_weights_move_the_seam_together() {
    let scene = two_rectangles();
    let (welded, report) = weld_seams(&scene, 0.5).unwrap();
    println!("weld: {report:?}");
    welded.sanity_check().unwrap();
    assert_layers_kept(&scene, &welded);
    assert_eq!(report.seams.len(), 1);
    assert_eq!(
        report.seams[0].layers,
        ["upper".to_string(), "lower".to_string()]
    );
    // The seam x = 100, 0..30 at the denser side's spacing: every vertex of both sides.
    let seam_vertices = |s: &Scene, part: usize| {
        (0..s.mesh().vertex_count())
            .filter(|&v| s.mesh().vertex_parts()[v] == part && s.mesh().vertices()[v].x == 100.0)
            .count()
    };
    let (up, low) = (seam_vertices(&scene, 0), seam_vertices(&scene, 1));
    println!("seam vertices before: upper {up}, lower {low}");
    assert_ne!(up, low, "the two sides are meshed at different densities");
    assert_eq!(seam_vertices(&welded, 0), seam_vertices(&welded, 1));
    assert_eq!(report.seams[0].shared_positions, seam_vertices(&welded, 0));
    assert!(report.vertices_inserted > 0);
    assert!(report.max_displacement <= 0.5);
    assert!(
        report.silhouette_change <= 0.5,
        "{}",
        report.silhouette_change
    );

    let heat = Heat::default();
    let (w, r) = seam_consistent_weights(&welded, &heat).unwrap();
    println!("seam-consistent: {r:?}");
    assert_valid_rows(&w);
    let alone = skinweights::solvers::solve(&welded, "heat").unwrap();
    let apart = max_seam_separation(&welded, &alone, "lower");
    let together = max_seam_separation(&welded, &w, "lower");
    println!(
        "max seam opening over 0-150 degrees: layers solved alone {apart:.4} px, \
         seam-consistent {together:e} px; weight difference alone {:.4}, consistent {:e}",
        r.alone_max_difference, r.consistent_max_difference
    );
    assert!(together <= 1e-9, "{together}");
    assert!(apart > 1.0, "{apart}");
    assert!(r.alone_max_difference > 0.1);
    assert!(r.consistent_max_difference <= 1e-12);
    assert_eq!(
        seam_weight_difference(&welded, &w).unwrap(),
        r.consistent_max_difference
    );
    let checks = lint(&welded, &w, &LintOptions::default()).unwrap();
    for c in &checks {
        println!("lint {}: {} {}", c.check, c.pass, c.measured);
    }
    assert!(checks.iter().all(|c| c.pass));
}

#[test]
fn weld_closes_a_sub_pixel_gap_and_moves_the_silhouette_less_than_the_tolerance() {
    let scene = two_rectangles_apart(0.3);
    let (welded, r) = weld_seams(&scene, 0.5).unwrap();
    println!("gap 0.3 px, weld 0.5: {r:?}");
    welded.sanity_check().unwrap();
    assert_layers_kept(&scene, &welded);
    assert_eq!(r.seams.len(), 1);
    // Pairs meet halfway (0.15 px each); T-junction vertices move onto the other side's
    // edge, whose ends met halfway too: nothing moves more than 0.15 px.
    assert!(r.vertices_moved >= 4);
    assert!(
        (r.max_displacement - 0.15).abs() < 1e-9,
        "{}",
        r.max_displacement
    );
    assert!(r.silhouette_change <= 0.5, "{}", r.silhouette_change);
    assert!(r.silhouette_change > 0.0);
    // A tolerance under the gap welds nothing.
    let (same, none) = weld_seams(&scene, 0.2).unwrap();
    assert!(none.seams.is_empty() && none.vertices_moved == 0);
    assert_eq!(same.mesh().vertices(), scene.mesh().vertices());
    let (w, c) = seam_consistent_weights(&welded, &Heat::default()).unwrap();
    assert_valid_rows(&w);
    let together = max_seam_separation(&welded, &w, "lower");
    println!(
        "gap closed: seam opening {together:e} px, alone difference {:.4}",
        c.alone_max_difference
    );
    assert!(together <= 1e-9);
}

#[test]
fn overlap_adds_a_strip_under_the_front_layer_and_keeps_the_silhouette() {
    let scene = two_rectangles();
    let (welded, _) = weld_seams(&scene, 0.5).unwrap();
    for px in [1.0, 2.0] {
        let (over, r) = inward_overlap(&welded, px).unwrap();
        println!("overlap {px}: {r:?}");
        over.sanity_check().unwrap();
        assert_layers_kept(&welded, &over);
        assert_eq!(r.seams, 1);
        assert_eq!(r.vertices_moved, 0);
        // A px x 30 strip.
        assert!(
            (r.area_added - 30.0 * px).abs() < 1e-6 * 30.0,
            "{}",
            r.area_added
        );
        assert!(r.silhouette_change <= px, "{}", r.silhouette_change);
        assert!(silhouette_change(&scene, &over).unwrap() <= 0.5 + px);
        // Every new vertex is upper (the back layer) and inside the lower rectangle.
        let n = welded.mesh().vertex_count();
        for v in n..over.mesh().vertex_count() {
            let p = over.mesh().vertices()[v];
            assert_eq!(over.mesh().vertex_parts()[v], 0);
            assert!(p.x > 100.0 && p.x <= 100.0 + px + 1e-9, "{p}");
            // Texture coordinates extrapolate the upper layer's mapping (uv = position).
            let uv = over.art().unwrap().uvs[v];
            assert!((uv - p).norm() < 1e-9, "{uv} vs {p}");
        }
        let (w, wr) = seam_consistent_weights(&over, &Heat::default()).unwrap();
        println!("after overlap: {wr:?}");
        assert_valid_rows(&w);
        assert!(wr.overlap_vertices > 0);
        assert!(max_seam_separation(&over, &w, "lower") <= 1e-9);
    }
}

#[test]
fn smoothing_closes_weight_jumps_in_the_band_and_keeps_the_silhouette() {
    let scene = two_rectangles();
    let (welded, _) = weld_seams(&scene, 0.5).unwrap();
    let alone = skinweights::solvers::solve(&welded, "heat").unwrap();
    let (w, r) = smooth_seam_weights(&welded, &alone, &SmoothOptions::default()).unwrap();
    println!("smooth: {r:?}");
    assert_valid_rows(&w);
    assert!(r.seam_difference[0] > 0.1);
    assert!(r.seam_difference[1] <= 1e-12, "{:?}", r.seam_difference);
    assert!(r.vertices_changed > 0 && r.band_vertices > 0);
    // Outer silhouette (boundary vertices off the seam) and everything far away: unchanged.
    let mesh = welded.mesh();
    let mut unchanged = 0;
    for v in 0..mesh.vertex_count() {
        let p = mesh.vertices()[v];
        let on_outline = p.y == 0.0 || p.y == 30.0 || p.x == 0.0 || p.x == 200.0;
        let on_seam = p.x == 100.0;
        if (on_outline && !on_seam) || (p.x - 100.0).abs() > 6.0 {
            assert_eq!(w.row(v), alone.row(v), "vertex {v} at {p}");
            unchanged += 1;
        }
    }
    println!("{unchanged} silhouette / out-of-band vertices bit-identical");
    assert!(max_seam_separation(&welded, &w, "lower") <= 1e-9);
    let bad = SmoothOptions::default().with_strength(0.0);
    assert!(smooth_seam_weights(&welded, &alone, &bad).is_err());
}

#[test]
fn a_scene_file_with_two_touching_layers_repairs_the_same_way() {
    // Two 10 x 10 layers sampling one image, touching along x = 10 with a T-junction at
    // (10, 5) on the right layer only.
    let json = r#"{"format": "skinweights.scene/2", "name": "two",
      "vertices": [[0,0],[10,0],[10,10],[0,10], [10,0],[20,0],[20,10],[10,10],[10,5]],
      "triangles": [[0,1,2],[0,2,3], [4,5,8],[5,6,8],[6,7,8]],
      "parts": ["left", "right"], "vertex_parts": [0,0,0,0, 1,1,1,1,1],
      "bones": [{"name": "a", "parent": null, "head": [0,5], "tail": [10,5], "part": "left"},
                {"name": "b", "parent": "a", "head": [10,5], "tail": [20,5], "part": "right"}],
      "art": {"images": [{"name": "sheet", "path": "sheet.png", "alpha": "straight"}],
              "uvs": [[0,10],[10,10],[10,0],[0,0], [30,10],[40,10],[40,0],[30,0],[30,5]],
              "layers": [{"part": "left", "image": 0}, {"part": "right", "image": 0}]}}"#;
    let (scene, _) = scene_from_json(json, None).unwrap();
    let options = RepairOptions::default()
        .with_weld(Some(0.25))
        .with_overlap(Some(1.0))
        .with_smooth_seams(true);
    let (fixed, report) = repair(&scene, &options).unwrap();
    println!("{report:?}");
    fixed.sanity_check().unwrap();
    assert_layers_kept(&scene, &fixed);
    let weld = report.weld.as_ref().unwrap();
    assert_eq!(weld.vertices_inserted, 1);
    assert_eq!(weld.max_displacement, 0.0);
    // The inserted vertex (10, 5) of the left layer interpolates its texture coordinate.
    let art = fixed.art().unwrap();
    let v = scene.mesh().vertex_count();
    assert_eq!(fixed.mesh().vertices()[v], Point2::new(10.0, 5.0));
    assert_eq!(art.uvs[v], Point2::new(10.0, 5.0));
    let over = report.overlap.as_ref().unwrap();
    assert!((over.area_added - 10.0).abs() < 1e-9, "{}", over.area_added);
    assert!(over.silhouette_change <= 1.0);
    let (w, wr) = repaired_weights(&fixed, &options, &Heat::default()).unwrap();
    println!("{wr:?}");
    assert_valid_rows(&w);
    // The solver's own computation before the seam join (`solve` joins, however built).
    let raw = skinweights::solvers::Solver::compute(&Heat::default(), &fixed).unwrap();
    let apart = max_seam_separation(&fixed, &raw.weights, "b");
    let together = max_seam_separation(&fixed, &w, "b");
    println!("scene file: seam opening alone {apart:.4} px, repaired {together:e} px");
    assert!(together <= 1e-9 && apart > 0.0);
    assert!(lint(&fixed, &w, &LintOptions::default())
        .unwrap()
        .iter()
        .all(|c| c.pass));
}

#[test]
fn layered_arms_repairs_pass_lint() {
    // At 10k vertices some arm and torso vertices coincide exactly along their parallel top
    // edges: an overlap, not a seam, so they must not be joined or averaged either.
    for vertices in [1500, 10_000] {
        layered_arms_at(vertices);
    }
}

fn layered_arms_at(vertices: usize) {
    let scene = common::scene_at("layered-arms", vertices);
    let options = RepairOptions::default()
        .with_weld(Some(0.5))
        .with_overlap(Some(1.0))
        .with_smooth_seams(true);
    let (fixed, report) = repair(&scene, &options).unwrap();
    println!("layered-arms: {report:?}");
    fixed.sanity_check().unwrap();
    assert_eq!(fixed.mesh().parts(), scene.mesh().parts());
    // Its layers overlap at the shoulder (the arm's top lies over the torso, top edges
    // parallel, the arm's lower edge crossing the torso's side): no boundaries meet, so
    // nothing is welded or extended, and the scene comes back unchanged.
    let weld = report.weld.as_ref().unwrap();
    assert!(weld.seams.is_empty(), "{:?}", weld.seams);
    assert_eq!((weld.vertices_moved, weld.vertices_inserted), (0, 0));
    assert_eq!(report.overlap.as_ref().unwrap().vertices_added, 0);
    assert_eq!(fixed.mesh().vertices(), scene.mesh().vertices());
    let (w, wr) = repaired_weights(&fixed, &options, &Heat::default()).unwrap();
    println!("{wr:?}");
    assert_valid_rows(&w);
    assert_eq!(wr.consistent.seam_positions, 0);
    let checks = lint(&fixed, &w, &LintOptions::default()).unwrap();
    for c in &checks {
        println!("lint {}: {} {}", c.check, c.pass, c.measured);
    }
    assert!(checks.iter().all(|c| c.pass));
}

#[test]
fn tiny_islands_join_their_neighbour_and_small_holes_close() {
    // A 20 x 20 square (part a) with a 2 x 2 hole, a big 20 x 20 square of part b beside it,
    // and a 1 x 1 island labelled b sitting next to part a's square.
    let square = |x: f64, y: f64, s: f64| {
        vec![
            Point2::new(x, y),
            Point2::new(x + s, y),
            Point2::new(x + s, y + s),
            Point2::new(x, y + s),
        ]
    };
    let mut hole = square(9.0, 9.0, 2.0);
    hole.reverse();
    let options = MeshingOptions::default().with_max_area(Some(10.0));
    let (va, ta, _) = mesh_outline(
        &Outline {
            loops: vec![square(0.0, 0.0, 20.0), hole],
            segments: Vec::new(),
        },
        &options,
    )
    .unwrap();
    let (vb, tb, _) = mesh_outline(
        &Outline {
            loops: vec![square(30.0, 0.0, 20.0)],
            segments: Vec::new(),
        },
        &options,
    )
    .unwrap();
    let vi = square(20.5, 5.0, 1.0);
    let ti = vec![[0, 1, 2], [0, 2, 3]];
    let mut v = va.clone();
    let mut t = ta.clone();
    let mut parts = vec![0; va.len()];
    for (vs, ts, p) in [(vb, tb, 1), (vi, ti, 1)] {
        let off = v.len();
        parts.extend(vec![p; vs.len()]);
        v.extend(vs);
        t.extend(ts.into_iter().map(|tri| tri.map(|i| i + off)));
    }
    let mesh = Mesh::with_parts(v, t, vec!["a".into(), "b".into()], parts).unwrap();
    let skeleton = Skeleton::new(vec![
        Bone::new("a", Point2::new(5.0, 10.0), Point2::new(15.0, 10.0)).with_part("a"),
        Bone::new("b", Point2::new(35.0, 10.0), Point2::new(45.0, 10.0)).with_part("b"),
    ])
    .unwrap();
    let scene = Scene::new("islands", mesh, skeleton, Vec::new()).unwrap();
    let area_before = scene.mesh().area();
    let (fixed, r) = merge_tiny_components(&scene, 5.0, None).unwrap();
    println!("{r:?}");
    fixed.sanity_check().unwrap();
    assert_eq!(r.merged.len(), 1);
    assert_eq!(
        (r.merged[0].from.as_str(), r.merged[0].into.as_str()),
        ("b", "a")
    );
    assert!((r.merged[0].area - 1.0).abs() < 1e-12);
    assert!((r.merged[0].distance - 0.5).abs() < 1e-12);
    assert_eq!(r.holes_closed, 1);
    assert!((r.hole_area_closed - 4.0).abs() < 1e-9);
    assert!((fixed.mesh().area() - area_before - 4.0).abs() < 1e-9);
    assert_eq!(fixed.mesh().topology().boundary_loops().len(), 3);
    // The big square of b keeps its label: b is not lost.
    assert!(fixed.mesh().vertex_parts().contains(&1));
}

/// The seam error of a refused repair.
fn seam_error<T: std::fmt::Debug>(r: Result<T, Error>) -> SeamError {
    match r.expect_err("must fail") {
        Error::Seam(e) => e,
        e => panic!("not a seam error: {e:?}"),
    }
}

/// The option and value of a refused amount ([`SeamError::InvalidAmount`]).
fn invalid_amount<T: std::fmt::Debug>(r: Result<T, Error>) -> (String, f64) {
    match seam_error(r) {
        SeamError::InvalidAmount { option, value, .. } => (option, value),
        e => panic!("{e:?}"),
    }
}

/// The option and layer of a repair too large for a layer ([`SeamError::RepairTooLarge`]).
fn too_large<T: std::fmt::Debug>(r: Result<T, Error>) -> (String, String) {
    match seam_error(r) {
        SeamError::RepairTooLarge { option, layer, .. } => (option, layer),
        e => panic!("{e:?}"),
    }
}

#[test]
fn bad_amounts_and_single_layer_scenes_are_typed_errors() {
    let scene = two_rectangles();
    assert_eq!(
        invalid_amount(inward_overlap(&scene, -1.0)),
        ("overlap".into(), -1.0)
    );
    let (option, value) = invalid_amount(inward_overlap(&scene, f64::NAN));
    assert!(option == "overlap" && value.is_nan());
    assert_eq!(
        invalid_amount(weld_seams(&scene, f64::INFINITY)),
        ("weld tolerance".into(), f64::INFINITY)
    );
    assert_eq!(invalid_amount(weld_seams(&scene, -0.1)).0, "weld tolerance");
    // Thickness of the upper arm: 2 x 3000 / 260 = 23.08 px; half of it is the limit.
    assert_eq!(
        too_large(weld_seams(&scene, 12.0)),
        ("weld tolerance".into(), "upper".into())
    );
    assert_eq!(too_large(inward_overlap(&scene, 12.0)).0, "overlap");
    // The problem is typed, and its text names the amount, the layer and the limit.
    let e = seam_error(weld_seams(&scene, 12.0));
    match &e {
        SeamError::RepairTooLarge {
            problem: RepairProblem::HalfTheThickness { amount, thickness },
            ..
        } => assert!(*amount == 12.0 && (thickness - 6000.0 / 260.0).abs() < 0.5),
        e => panic!("{e:?}"),
    }
    let text = e.to_string();
    assert!(
        text.starts_with(
            "weld tolerance: 12 px is more than half the thickness of layer \"upper\""
        ) && text.contains("use a value below"),
        "{text}"
    );
    assert_eq!(
        invalid_amount(merge_tiny_components(&scene, -3.0, None)).0,
        "island area"
    );
    let one = common::scene_at("bar", 500);
    let single = Scene::from_mesh(
        Mesh::new(
            one.mesh().vertices().to_vec(),
            one.mesh().triangles().to_vec(),
        )
        .unwrap(),
        Skeleton::new(vec![Bone::new(
            "a",
            Point2::new(0.0, 0.0),
            Point2::new(100.0, 0.0),
        )])
        .unwrap(),
    )
    .unwrap();
    for e in [
        seam_error(weld_seams(&single, 0.5)),
        seam_error(inward_overlap(&single, 1.0)),
        seam_error(seam_consistent_weights(&single, &Heat::default())),
    ] {
        assert!(
            matches!(&e, SeamError::SingleLayer { scene, .. } if scene == single.name()),
            "{e:?}"
        );
    }
    // A weld that would move more than half a layer: a thin 4-vertex sliver on the seam.
    let json = r#"{"format": "skinweights.scene/1", "name": "sliver",
      "vertices": [[0,0],[10,0],[10,10], [10.2,0],[14,0],[14,10],[10.2,10]],
      "triangles": [[0,1,2], [3,4,5],[3,5,6]],
      "parts": ["l", "r"], "vertex_parts": [0,0,0, 1,1,1,1],
      "bones": [{"name": "a", "parent": null, "head": [0,5], "tail": [10,5], "part": "l"}]}"#;
    let (sliver, _) = scene_from_json(json, None).unwrap();
    assert_eq!(too_large(weld_seams(&sliver, 0.3)).1, "l");
    let e = seam_error(weld_seams(&sliver, 0.3));
    assert!(
        matches!(
            &e,
            SeamError::RepairTooLarge {
                problem: RepairProblem::MovesMostOfLayer { moved, total: 3, .. },
                ..
            } if *moved >= 2
        ),
        "{e:?}"
    );
}

#[cfg(feature = "cli")]
#[test]
fn cli_repair_writes_a_scene_that_lints_and_refuses_to_overwrite() {
    use skinweights::scene::{AlphaMode, ArtImage};
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_skinweights"))
            .args(args)
            .output()
            .unwrap()
    };
    let text = |o: &std::process::Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    let d = tempfile::tempdir().unwrap();
    let (input, output) = (d.path().join("in"), d.path().join("out"));
    std::fs::create_dir_all(&input).unwrap();
    std::fs::create_dir_all(&output).unwrap();
    // An opaque 220 x 40 sheet: the two layers sample it at (x + 10, 35 - y).
    let image = image::RgbaImage::from_fn(220, 40, |x, _| {
        image::Rgba([(x % 256) as u8, 120, 200, 255])
    });
    image.save(input.join("sheet.png")).unwrap();
    let scene = two_rectangles();
    let mut art = scene.art().cloned().unwrap();
    art.images = vec![ArtImage {
        name: "sheet".into(),
        path: input.join("sheet.png"),
        alpha: AlphaMode::Straight,
    }];
    art.layers.iter_mut().for_each(|l| l.image = Some(0));
    art.uvs = scene
        .mesh()
        .vertices()
        .iter()
        .map(|p| Point2::new(p.x + 10.0, 35.0 - p.y))
        .collect();
    let scene = scene.with_art(art).unwrap();
    let scene_path = input.join("two.json");
    skinweights::io::save_scene(&scene, &scene_path).unwrap();
    let fixed = output.join("fixed.json");
    let weights = output.join("w.json");
    let args = [
        "repair",
        scene_path.to_str().unwrap(),
        "--weld",
        "0.5",
        "--overlap",
        "1",
        "--solver",
        "heat",
        "--weights",
        weights.to_str().unwrap(),
        "--smooth-seams",
        "-o",
        fixed.to_str().unwrap(),
    ];
    let o = run(&args);
    println!("{}", text(&o));
    assert!(o.status.success());
    let t = text(&o);
    for w in [
        "weld (tolerance 0.5 px): 1 seams",
        "overlap (1 px): 1 seams",
        "seam-consistent",
        "smoothing",
    ] {
        assert!(t.contains(w), "{w:?} missing");
    }
    // The image reference stays valid from the output folder.
    let (back, _) = skinweights::io::load_scene(&fixed).unwrap();
    assert!(back.art().unwrap().images[0].path.exists());
    let json = std::fs::read_to_string(&fixed).unwrap();
    assert!(json.contains("../in/sheet.png"), "relative image path");
    let o = run(&["lint", fixed.to_str().unwrap(), weights.to_str().unwrap()]);
    println!("{}", text(&o));
    assert!(o.status.success(), "lint fails on the repaired scene");
    // No overwrite without --force; with it, fine.
    let o = run(&args);
    assert!(!o.status.success() && text(&o).contains("already exists"));
    let mut forced = args.to_vec();
    forced.push("--force");
    assert!(run(&forced).status.success());
    let o = run(&[
        "repair",
        scene_path.to_str().unwrap(),
        "--overlap=-2",
        "-o",
        output.join("x.json").to_str().unwrap(),
    ]);
    assert!(
        !o.status.success() && text(&o).contains("overlap"),
        "{}",
        text(&o)
    );
    let o = run(&["repair", "--help"]);
    assert!(text(&o).contains("inward overlap") && text(&o).contains("Example"));
}
