//! End-to-end solver timings (criterion; small sample sizes because the machine has 2 cores).
//!
//! Measured figures (release, 2-core machine, `examples/solver_timing`, wall time of
//! `Solver::solve`, peak = process VmHWM including the scene):
//! FIGURES_PLACEHOLDER

use criterion::{criterion_group, criterion_main, Criterion};
use skinweights::{builtin_scene, solver_by_name, BuiltinOptions, Scene};
use std::time::Duration;

fn scene(name: &str, vertices: usize) -> Scene {
    builtin_scene(
        name,
        &BuiltinOptions {
            gap: None,
            vertices,
        },
    )
    .expect("built-in scene")
}

fn bench_solvers(c: &mut Criterion) {
    let arms = scene("arms-down", 500_000);
    let mut g = c.benchmark_group("arms-down 500k, 5 bones");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for name in ["linear", "euclidean", "geodesic", "heat"] {
        let solver = solver_by_name(name, &[]).expect("solver");
        g.bench_function(name, |b| b.iter(|| solver.solve(&arms).expect("solve")));
    }
    g.finish();
    drop(arms);

    let figure = scene("figure", 1_000_000);
    let mut g = c.benchmark_group("figure 1M, 19 bones");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20));
    let heat = solver_by_name("heat", &[]).expect("solver");
    g.bench_function("heat", |b| b.iter(|| heat.solve(&figure).expect("solve")));
    g.finish();
}

criterion_group!(benches, bench_solvers);
criterion_main!(benches);
