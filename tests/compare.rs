//! The compare table on arms-down: the seed's leakage story in numbers.

use skinweights::compare::{compare_solved, solve_all, DEFAULT_SOLVERS};
use skinweights::{builtin_scene, BuiltinOptions};

#[test]
fn arms_down_leakage_story() {
    let scene = builtin_scene("arms-down", &BuiltinOptions::default()).unwrap();
    let names: Vec<String> = DEFAULT_SOLVERS.iter().map(|s| s.to_string()).collect();
    let solved = solve_all(&scene, &names, |_, _| {}).unwrap();
    let table = compare_solved(&scene, &solved, Some("lift_l")).unwrap();
    let row = |n: &str| &table.rows.iter().find(|r| r.solver == n).unwrap().metrics;
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
    for r in &table.rows {
        let m = &r.metrics;
        assert!(m.norm_err < 1e-9, "{}: {}", r.solver, m.norm_err);
        assert!(m.bind_err < 1e-6, "{}: {}", r.solver, m.bind_err);
        assert!(m.time_s.unwrap() >= 0.0);
    }
    // Heat is the smoothest field that does not leak: lower Dirichlet energy than the masks
    // (which cut at the part boundary) and than geodesic.
    assert!(row("heat").dirichlet < row("mask").dirichlet);
    assert!(row("heat").dirichlet < row("heat+mask").dirichlet);
    assert!(row("heat").dirichlet < row("geodesic").dirichlet);
    // Masks crease the shoulder: nearly all of their shear sits in one row of triangles, so
    // the 99th percentile stays near 1 while the maximum is large.
    assert!(row("mask").distortion_max > 50.0 * row("mask").distortion_p99);
}
