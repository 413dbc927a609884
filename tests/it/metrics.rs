//! Metrics against an independent computation of docs/metrics.md's definitions.

use nalgebra::{Point2, Rotation2, Vector2};
use skinweights::lint::{lint, LintOptions};
use skinweights::metrics::{self, evaluate, singular_values_2x2};
use skinweights::{
    mesh::Mesh, scene::Probe, scene::Scene, scene::Watch, skeleton::Bone, skeleton::Pose,
    skeleton::Skeleton, weights::Weights, Error,
};
use skinweights::{WeightsError, WeightsShapeProblem};

/// A `nx` x `ny` grid over [0, 4] x [0, 1], split into parts "left" (x < 2) and "right".
fn strip(nx: usize, ny: usize) -> Mesh {
    let mut v = Vec::new();
    let mut parts = Vec::new();
    for j in 0..=ny {
        for i in 0..=nx {
            let p = Point2::new(4.0 * i as f64 / nx as f64, j as f64 / ny as f64);
            parts.push(usize::from(p.x >= 2.0));
            v.push(p);
        }
    }
    let id = |i: usize, j: usize| j * (nx + 1) + i;
    let mut t = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    Mesh::with_parts(v, t, vec!["left".into(), "right".into()], parts).unwrap()
}

fn strip_scene(theta: f64) -> Scene {
    let mesh = strip(16, 4);
    let skeleton = Skeleton::new(vec![
        Bone::new("l", Point2::new(0.0, 0.5), Point2::new(2.0, 0.5)).with_part("left"),
        Bone::new("r", Point2::new(2.0, 0.5), Point2::new(4.0, 0.5))
            .with_parent(0)
            .with_part("right"),
    ])
    .unwrap();
    let probe = Probe {
        name: "bend".into(),
        pose: Pose::rest().rotate("r", theta),
        watch: Watch {
            part: Some("left".into()),
            ..Watch::default()
        },
    };
    Scene::new("strip", mesh, skeleton, vec![probe]).unwrap()
}

/// Child weight: a linear ramp over x in [1, 3].
fn ramp_weights(mesh: &Mesh) -> Weights {
    let rows: Vec<Vec<f64>> = mesh
        .vertices()
        .iter()
        .map(|p| {
            let c = ((p.x - 1.0) / 2.0).clamp(0.0, 1.0);
            vec![1.0 - c, c]
        })
        .collect();
    Weights::from_rows(&rows, 2).unwrap()
}

/// Independent LBS for this scene: the child rotates by theta about (2, 0.5).
fn independent_pose(mesh: &Mesh, w: &Weights, theta: f64) -> Vec<Point2<f64>> {
    let pivot = Vector2::new(2.0, 0.5);
    let rot = Rotation2::new(theta.to_radians());
    mesh.vertices()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let moved = Point2::from(rot * (p.coords - pivot) + pivot);
            let (a, b) = (w.get(i, 0), w.get(i, 1));
            Point2::from((a * p.coords + b * moved.coords) / (a + b))
        })
        .collect()
}

#[test]
fn drag_leak_flips_area_match_an_independent_computation() {
    for theta in [30.0, 90.0, 150.0] {
        let scene = strip_scene(theta);
        let w = ramp_weights(scene.mesh());
        let m = evaluate(&scene, &w, &scene.probes()[0]).unwrap();
        let posed = independent_pose(scene.mesh(), &w, theta);
        let height = 1.0;
        // Drag: watched = left part; own bone = l (unmoved), so the target is the rest position.
        let watched: Vec<usize> = (0..scene.mesh().vertex_count())
            .filter(|&v| scene.mesh().vertices()[v].x < 2.0)
            .collect();
        let d: Vec<f64> = watched
            .iter()
            .map(|&v| (posed[v] - scene.mesh().vertices()[v]).norm())
            .collect();
        let dmax = d.iter().cloned().fold(0.0, f64::max) / height * 100.0;
        let dmean = d.iter().sum::<f64>() / d.len() as f64 / height * 100.0;
        let rel = |a: f64, b: f64| (a - b).abs() <= 1e-6 * b.abs().max(1e-12);
        assert!(rel(m.drag_max_pct, dmax), "{} vs {dmax}", m.drag_max_pct);
        assert!(
            rel(m.drag_mean_pct, dmean),
            "{} vs {dmean}",
            m.drag_mean_pct
        );
        assert!(dmax > 0.0);
        // Leaked weight: the mean child weight over watched vertices.
        let leak = watched.iter().map(|&v| w.get(v, 1)).sum::<f64>() / watched.len() as f64;
        assert!(rel(m.leaked_weight, leak));
        // Flips and area from the independently posed positions.
        let area2 = |a: Point2<f64>, b: Point2<f64>, c: Point2<f64>| (b - a).perp(&(c - a));
        let flips = scene
            .mesh()
            .triangles()
            .iter()
            .filter(|t| area2(posed[t[0]], posed[t[1]], posed[t[2]]) <= 0.0)
            .count();
        assert_eq!(m.flipped, flips, "theta {theta}");
        let posed_area: f64 = scene
            .mesh()
            .triangles()
            .iter()
            .map(|t| area2(posed[t[0]], posed[t[1]], posed[t[2]]))
            .sum::<f64>()
            / 2.0;
        assert!(rel(m.area_change_pct, (posed_area / 4.0 - 1.0) * 100.0));
        assert!(m.bind_err < 1e-12);
        assert!(m.norm_err < 1e-15);
        assert_eq!(m.time_s, None); // the solve time is the caller's to set
        assert!(m.distortion_max >= m.distortion_p99 && m.distortion_p99 >= 1.0);
    }
    // A 150-degree bend over a 2-wide ramp folds the inner side of the joint.
    let scene = strip_scene(150.0);
    let m = evaluate(&scene, &ramp_weights(scene.mesh()), &scene.probes()[0]).unwrap();
    assert!(m.flipped > 0, "expected folds at 150 degrees");
    assert!(m.area_change_pct < 0.0);
}

#[test]
fn rigid_weights_have_no_drag_no_distortion_and_no_flips() {
    let scene = strip_scene(90.0);
    // Each vertex fully on its own part's bone: a hard cut at x = 2.
    let rows: Vec<Vec<f64>> = scene
        .mesh()
        .vertex_parts()
        .iter()
        .map(|&p| {
            if p == 0 {
                vec![1.0, 0.0]
            } else {
                vec![0.0, 1.0]
            }
        })
        .collect();
    let w = Weights::from_rows(&rows, 2).unwrap();
    let m = evaluate(&scene, &w, &scene.probes()[0]).unwrap();
    assert_eq!(m.drag_max_pct, 0.0);
    assert_eq!(m.leaked_weight, 0.0);
    // The cut triangles between x = 1.75 and 2 shear: distortion > 1 there, 1 elsewhere.
    assert!(m.distortion_max > 1.5);
    assert!((m.distortion_p99 - 1.0).abs() > 0.0);
    let posed = metrics::posed_positions(&scene, &w, &Pose::rest()).unwrap();
    assert!(metrics::distortion(scene.mesh(), &posed)
        .iter()
        .all(|&r| (r - 1.0).abs() < 1e-9));
}

#[test]
fn singular_values_and_percentile() {
    let m = nalgebra::Matrix2::new(3.0, 0.0, 0.0, 2.0);
    let (a, b) = singular_values_2x2(&m);
    assert!((a - 3.0).abs() < 1e-12 && (b - 2.0).abs() < 1e-12);
    let r = Rotation2::new(0.7).into_inner() * nalgebra::Matrix2::new(5.0, 0.0, 0.0, 0.5);
    let (a, b) = singular_values_2x2(&r);
    assert!((a - 5.0).abs() < 1e-12 && (b - 0.5).abs() < 1e-12);
    let values: Vec<f64> = (1..=200).map(f64::from).collect();
    assert_eq!(metrics::max_and_p99(&values), (200.0, 198.0));
}

#[test]
fn dirichlet_energy_of_a_linear_field() {
    // w = x / 4 on the strip has |grad w|^2 = 1/16 over area 4: energy 0.25 per bone column;
    // the second column 1 - w has the same gradient.
    let mesh = strip(8, 2);
    let rows: Vec<Vec<f64>> = mesh
        .vertices()
        .iter()
        .map(|p| vec![p.x / 4.0, 1.0 - p.x / 4.0])
        .collect();
    let w = Weights::from_rows(&rows, 2).unwrap();
    assert!((metrics::dirichlet_energy(&mesh, &w) - 0.5).abs() < 1e-12);
}

/// The ramp weights with one interior vertex, at x = 0.5 (all neighbours fully on "l"),
/// jumped to "r": the vertex and the weights.
fn spiked(scene: &Scene) -> (usize, Weights) {
    let mut w = ramp_weights(scene.mesh());
    let v = scene
        .mesh()
        .vertices()
        .iter()
        .position(|p| (p.x - 0.5).abs() < 1e-12 && (p.y - 0.5).abs() < 1e-12)
        .unwrap();
    w.row_mut_unchecked(v).copy_from_slice(&[0.0, 1.0]);
    (v, w)
}

#[test]
fn isolated_discontinuity_is_found_and_lint_reports_it() {
    let scene = strip_scene(90.0);
    let (v, w) = spiked(&scene);
    assert_eq!(
        metrics::isolated_discontinuities(scene.mesh(), &w, 0.5),
        vec![v]
    );
    let checks = lint(&scene, &w, &LintOptions::default()).unwrap();
    let cont = checks
        .iter()
        .find(|c| c.check == "neighbourhood continuity")
        .unwrap();
    assert!(!cont.pass);
    assert!(cont.measured.contains(&format!("vertex {v}")));
    assert_eq!(
        cont.inspect_first,
        "automatic-weight radius and hard-edge labels"
    );
}

/// The continuity check compares the deformation too: a discontinuity whose vertex never
/// leaves its neighbours' blend by a pixel (here the probe does not bend) is reported and
/// passes; bent 90 degrees it lands 0.5 x the arc away and fails.
#[test]
fn an_isolated_discontinuity_fails_lint_only_where_it_shows() {
    let row = |scene: &Scene, w: &Weights| {
        lint(scene, w, &LintOptions::default())
            .unwrap()
            .into_iter()
            .find(|c| c.check == "neighbourhood continuity")
            .unwrap()
    };
    let flat = strip_scene(0.0);
    let (v, w) = spiked(&flat);
    let c = row(&flat, &w);
    assert!(c.pass, "{}", c.measured);
    assert_eq!(c.values["isolated_vertices"], 0.0);
    assert!(
        c.measured.contains("1 more stay within 1 px"),
        "{}",
        c.measured
    );
    let bent = strip_scene(90.0);
    let c = row(&bent, &w);
    assert!(!c.pass);
    assert_eq!(c.values["isolated_vertices"], 1.0);
    assert!(
        c.measured.contains(&format!("vertex {v}, ")),
        "{}",
        c.measured
    );
    // Skinned with "r" rotated 90 degrees about (2, 0.5), the vertex at (0.5, 0.5) lands at
    // (2, 2); its neighbours' mean row (all "l") keeps it in place: 1.5 * sqrt(2) px apart.
    let px: f64 = c
        .measured
        .split("vertex ")
        .nth(1)
        .unwrap()
        .split(", ")
        .nth(1)
        .unwrap()
        .trim_end_matches(" px off its neighbours' blend)")
        .parse()
        .unwrap();
    assert!((px - 1.5 * 2f64.sqrt()).abs() < 0.05, "{px}");
}

#[test]
fn lint_fails_a_row_summing_to_085_with_the_seed_hint() {
    let scene = strip_scene(30.0);
    let mut w = ramp_weights(scene.mesh());
    w.row_mut_unchecked(7).copy_from_slice(&[0.25, 0.60]);
    let m = evaluate(&scene, &w, &scene.probes()[0]).unwrap();
    assert!((m.norm_err - 0.15).abs() < 1e-12);
    let checks = lint(&scene, &w, &LintOptions::default()).unwrap();
    let norm = checks
        .iter()
        .find(|c| c.check == "weight normalization")
        .unwrap();
    assert!(!norm.pass);
    assert!(norm.measured.contains("vertex 7"), "{}", norm.measured);
    assert_eq!(
        norm.inspect_first,
        "uninitialized weights, import precision, missing influence"
    );
    // Bind identity still holds: the skinning loop divides by the weight sum.
    let bind = checks
        .iter()
        .find(|c| c.check == "bind-pose identity")
        .unwrap();
    assert!(bind.pass, "{bind:?}");
    // Shape mismatch is an error naming both shapes, not a panic.
    let short = Weights::from_rows(&[vec![1.0, 0.0]], 2).unwrap();
    let expected = WeightsShapeProblem::Dimensions {
        context: "scene".into(),
        found: (1, 2),
        expected: (scene.mesh().vertex_count(), 2),
    };
    for result in [
        lint(&scene, &short, &LintOptions::default()).map(|_| ()),
        evaluate(&scene, &short, &scene.probes()[0]).map(|_| ()),
    ] {
        match result {
            Err(e @ Error::Weights(WeightsError::WeightsShape { .. })) => {
                assert_eq!(
                    e.to_string(),
                    format!(
                        "weights shape mismatch: scene: weights are 1 vertices x 2 bones, expected {} vertices x 2 bones",
                        scene.mesh().vertex_count()
                    )
                );
                let Error::Weights(WeightsError::WeightsShape { problem }) = e else {
                    unreachable!()
                };
                assert_eq!(problem, expected)
            }
            other => panic!("{other:?}"),
        }
    }
}
