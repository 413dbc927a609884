//! Bounded biharmonic weights: the invariants of the QP and the published leakage on
//! arms-down.

use crate::common;

use skinweights::metrics::evaluate;
use skinweights::solvers::{Bbw, BbwOptions, Solver};
use skinweights::{scene::builtin_scene, scene::BuiltinOptions, weights::Weights};

#[test]
fn bbw_rows_are_bounded_normalized_and_one_on_handles() {
    let scene = builtin_scene("arms-down", &BuiltinOptions::default()).unwrap();
    let solution = Bbw::default().solve(&scene).unwrap();
    let w = &solution.weights;
    assert!(
        solution.report.warnings.is_empty(),
        "{:?}",
        solution.report.warnings
    );
    for row in w.rows() {
        assert!(row.iter().all(|x| x.is_finite() && *x >= 0.0 && *x <= 1.0));
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
    // Vertices on exactly one bone carry that bone alone.
    let segs: Vec<_> = scene
        .skeleton()
        .bones()
        .iter()
        .map(|b| (b.head, b.tail))
        .collect();
    let on = |p: &nalgebra::Point2<f64>, (a, b): (nalgebra::Point2<f64>, nalgebra::Point2<f64>)| {
        let d = b - a;
        let t = ((p - a).dot(&d) / d.norm_squared()).clamp(0.0, 1.0);
        (p - (a + d * t)).norm() < 1e-9
    };
    let mut handles = 0;
    for (v, p) in scene.mesh().vertices().iter().enumerate() {
        let bones: Vec<usize> = (0..segs.len()).filter(|&j| on(p, segs[j])).collect();
        if bones.len() == 1 {
            handles += 1;
            assert_eq!(w.get(v, bones[0]), 1.0, "vertex {v} on bone {}", bones[0]);
        }
    }
    assert!(handles > 100, "{handles} handle vertices");
}

#[test]
fn bbw_drag_on_arms_down_is_within_the_published_range() {
    let scene = builtin_scene("arms-down", &BuiltinOptions::default()).unwrap();
    let solution = Bbw::default().solve(&scene).unwrap();
    let probe = scene.probe(Some("lift_l")).unwrap();
    let m = evaluate(&scene, &solution.weights, probe).unwrap();
    // libigl's bbw on the same scene: 0.44% (measured outside this repo).
    assert!(m.drag_max_pct <= 0.5, "drag {}", m.drag_max_pct);
    assert!(m.norm_err < 1e-9);
    assert!(m.bind_err < 1e-6);
}

/// The subdomain path (every bone solved on its own region, grown where a multiplier asks)
/// reaches the optimum the whole-free-set active set reaches.
#[test]
fn bbw_subdomains_give_the_whole_mesh_optimum() {
    let scene = common::scene_at("arms-down", 3000);
    for (parts, coarse) in starts() {
        let solve = |subdomain, region_rings| {
            let options = BbwOptions::default()
                .with_subdomain(subdomain)
                .with_region_rings(region_rings)
                .with_parts(parts)
                .with_coarse(coarse);
            solve_quietly(&scene, options)
        };
        let whole = solve(0.0, 2);
        // Margin 0 makes the regions grow during the iteration.
        for (rings, sub) in [(0, solve(1.0, 0)), (2, solve(1.0, 2))] {
            let what = format!("parts {parts}, coarse {coarse}, region_rings {rings}");
            assert_same_optimum(&whole, &sub, &what);
        }
    }
}

/// With and without parts, from the coarse start (the default above 2 000 free vertices)
/// and from the unconstrained solution (`coarse=0`).
fn starts() -> Vec<(bool, f64)> {
    let coarse = BbwOptions::default().coarse;
    vec![(false, coarse), (true, coarse), (false, 0.0), (true, 0.0)]
}

/// The local passes (option `local_reach`) only choose the active set the whole passes
/// solve with, so they reach the optimum the whole passes alone reach: at 3k and 10k
/// vertices, with and without parts, from both starts, and with a reach wide enough to
/// cover the mesh.
#[test]
fn bbw_local_passes_give_the_whole_pass_optimum() {
    for vertices in [3000, 10_000] {
        let scene = common::scene_at("arms-down", vertices);
        for (parts, coarse) in starts() {
            let options = |local_reach| {
                BbwOptions::default()
                    .with_local_reach(local_reach)
                    .with_parts(parts)
                    .with_coarse(coarse)
            };
            let whole = solve_quietly(&scene, options(0.0));
            for reach in [0.03, BbwOptions::default().local_reach, 1.0] {
                let local = solve_quietly(&scene, options(reach));
                let what =
                    format!("{vertices} vertices, parts {parts}, coarse {coarse}, reach {reach}");
                assert_same_optimum(&whole, &local, &what);
            }
        }
    }
}

/// A mesh of many small components (36 squares of about 110 vertices, like a sprite's
/// separate pieces): the coarse copy keeps such components unchanged, so it is no smaller.
/// Regression: the coarse start then recursed on the same mesh until the stack overflowed
/// (found on gBot traced at 10k vertices, 7 pieces). It must fall back to the
/// unconstrained start and give its weights.
#[test]
fn bbw_solves_meshes_of_many_small_components() {
    use nalgebra::Point2;
    use skinweights::mesh::{mesh_outline, Mesh, MeshingOptions, Outline};
    use skinweights::{scene::Scene, skeleton::Bone, skeleton::Skeleton};
    let square = |x: f64, y: f64| {
        vec![
            Point2::new(x, y),
            Point2::new(x + 10.0, y),
            Point2::new(x + 10.0, y + 10.0),
            Point2::new(x, y + 10.0),
        ]
    };
    let loops: Vec<Vec<Point2<f64>>> = (0..36)
        .map(|k| square(15.0 * (k % 6) as f64, 15.0 * (k / 6) as f64))
        .collect();
    let bones = [
        Bone::new("left", Point2::new(2.0, 5.0), Point2::new(8.0, 5.0)),
        Bone::new("right", Point2::new(77.0, 80.0), Point2::new(83.0, 80.0)),
    ];
    let outline = Outline {
        loops,
        segments: bones.iter().map(|b| [b.head, b.tail]).collect(),
    };
    let options = MeshingOptions::default().with_target_vertices(4_000);
    let (points, triangles, _) = mesh_outline(&outline, &options).unwrap();
    let mesh = Mesh::new(points, triangles).unwrap();
    assert_eq!(mesh.topology().component_count(), 36);
    let scene = Scene::from_mesh(mesh, Skeleton::new(bones.to_vec()).unwrap()).unwrap();
    let solve = |coarse| {
        let options = BbwOptions::default().with_coarse(coarse);
        Bbw::new(options).solve(&scene).unwrap().weights
    };
    let (with, without) = (solve(BbwOptions::default().coarse), solve(0.0));
    assert_same_optimum(&without, &with, "36 components");
}

/// `bbw` with `options` on `scene`, which must converge without warnings.
fn solve_quietly(scene: &skinweights::scene::Scene, options: BbwOptions) -> Weights {
    let solution = Bbw::new(options).solve(scene).unwrap();
    assert!(solution.report.warnings.is_empty());
    solution.weights
}

/// `other` is a valid weight table within the active-set tolerance of `whole`: both stop
/// with every bound violation and multiplier within the tolerance (1e-4 by default).
fn assert_same_optimum(whole: &Weights, other: &Weights, what: &str) {
    let diff = whole
        .rows()
        .zip(other.rows())
        .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max);
    assert!(diff < 2e-3, "{what}: {diff}");
    for row in other.rows() {
        assert!(row.iter().all(|x| x.is_finite() && *x >= 0.0));
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
}
