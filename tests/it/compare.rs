//! The compare table on arms-down: the seed's leakage story in numbers.

use crate::common;

use skinweights::compare::{compare_solved, solve_all, METRIC_COLUMNS};
use skinweights::solvers::COMPARE_DEFAULTS;
use skinweights::{scene::builtin_scene, scene::BuiltinOptions};

#[test]
fn arms_down_leakage_story() {
    let scene = builtin_scene("arms-down", &BuiltinOptions::default()).unwrap();
    let names: Vec<String> = COMPARE_DEFAULTS.iter().map(|s| s.to_string()).collect();
    let started = std::time::Instant::now();
    let solved = solve_all(&scene, &names, |_, _| {}).unwrap();
    let wall = started.elapsed().as_secs_f64();
    let table = compare_solved(&scene, &solved, Some("lift_l")).unwrap();
    let row = |n: &str| &table.rows.iter().find(|r| r.solver == n).unwrap().metrics;
    // compare's default rows: the baselines, the reference and the recommended solver.
    assert!(names.iter().any(|n| n == "bbw") && names.iter().any(|n| n == "best"));
    assert!(
        row("euclidean").drag_max_pct > 20.0,
        "{}",
        row("euclidean").drag_max_pct
    );
    assert!(
        row("heat").drag_max_pct <= 2.0,
        "{}",
        row("heat").drag_max_pct
    );
    assert_eq!(row("mask").drag_max_pct, 0.0);
    assert_eq!(row("heat+mask").drag_max_pct, 0.0);
    assert_eq!(row("mask").leaked_weight, 0.0);
    assert_eq!(row("heat+mask").leaked_weight, 0.0);
    assert!(row("euclidean").leaked_weight > 10.0 * row("heat").leaked_weight);
    // The recommended solver: no drag, no leak, no more folds than heat, smoother than
    // heat; the optimum reference drags less than heat.
    assert_eq!(row("best").drag_max_pct, 0.0);
    assert_eq!(row("best").leaked_weight, 0.0);
    assert!(row("best").flipped <= row("heat").flipped);
    assert!(row("best").dirichlet < row("heat").dirichlet);
    assert!(row("bbw").drag_max_pct < row("heat").drag_max_pct);
    let mut total = 0.0;
    for r in &table.rows {
        let m = &r.metrics;
        assert!(m.norm_err < 1e-9, "{}: {}", r.solver, m.norm_err);
        assert!(m.bind_err < 1e-6, "{}: {}", r.solver, m.bind_err);
        // A solve takes time: a zero or missing time means the timer was not wired.
        let t = m.time_s.unwrap();
        assert!(t > 0.0 && t.is_finite(), "{}: {t}", r.solver);
        total += t;
    }
    // The solves run one after another, so their times add up to at most the wall time
    // around them all: the timer measures the solve, whatever the machine's load (no
    // threshold in seconds).
    assert!(total <= wall + 1e-6, "rows {total} s, wall {wall} s");
    // Heat is the smoothest field that does not leak: lower Dirichlet energy than the masks
    // (which cut at the part boundary) and than geodesic.
    assert!(row("heat").dirichlet < row("mask").dirichlet);
    assert!(row("heat").dirichlet < row("heat+mask").dirichlet);
    assert!(row("heat").dirichlet < row("geodesic").dirichlet);
    // Masks crease the shoulder: nearly all of their shear sits in one row of triangles, so
    // the 99th percentile stays near 1 while the maximum is large.
    assert!(row("mask").distortion_max > 50.0 * row("mask").distortion_p99);
}

/// Issue 4 asked for "heat's distortion max lower than mask's". In docs/metrics.md (the
/// worst single triangle's singular-value ratio) that comparison flips with the mesh: heat
/// nearly collapses one or two triangles inside the armpit, and their ratio swings between 12
/// and 12 826 as the mesh changes. The crease a mask makes is measured robustly by the Dirichlet
/// energy instead: a weight field that jumps across one row of triangles has energy growing like
/// 1/h (about sqrt(n)), while heat's smooth field converges. This holds at every resolution.
#[test]
fn mask_crease_shows_in_dirichlet_energy_at_every_resolution() {
    let mut heat = Vec::new();
    let mut mask = Vec::new();
    for vertices in [3_000, 10_000, 30_000] {
        let scene = common::scene_at("arms-down", vertices);
        let names = vec!["heat".to_string(), "mask".to_string()];
        let solved = solve_all(&scene, &names, |_, _| {}).unwrap();
        let table = compare_solved(&scene, &solved, Some("lift_l")).unwrap();
        let energy = |n: &str| {
            table
                .rows
                .iter()
                .find(|r| r.solver == n)
                .unwrap()
                .metrics
                .dirichlet
        };
        assert!(
            energy("heat") < 0.5 * energy("mask"),
            "{vertices}: heat {} mask {}",
            energy("heat"),
            energy("mask")
        );
        heat.push(energy("heat"));
        mask.push(energy("mask"));
    }
    // 10x the vertices: the mask's energy grows by more than 2x (a jump), heat's by less than 1.5x.
    assert!(mask[2] > 2.0 * mask[0], "mask {mask:?}");
    assert!(heat[2] < 1.5 * heat[0], "heat {heat:?}");
}

#[cfg(feature = "io")]
#[test]
fn metric_columns_are_the_json_keys_in_order() {
    let scene = builtin_scene(
        "bar",
        &BuiltinOptions::default().with_gap(None).with_vertices(600),
    )
    .unwrap();
    let solved = solve_all(&scene, &["linear".to_string()], |_, _| {}).unwrap();
    let table = compare_solved(&scene, &solved, None).unwrap();
    let json = serde_json::to_string(&table.rows[0].metrics).unwrap();
    let keys: Vec<&str> = METRIC_COLUMNS.iter().map(|c| c.key).collect();
    let at: Vec<usize> = keys
        .iter()
        .map(|k| json.find(&format!("\"{k}\":")).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{keys:?} vs {json}");
    assert_eq!(json.matches("\":").count(), keys.len(), "{json}");
    assert!(table
        .to_csv()
        .starts_with(&format!("solver,{}\n", keys.join(","))));
}
