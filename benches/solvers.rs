//! End-to-end solver timings (criterion; small sample sizes because the machine has 2 cores).
//!
//! Measured figures (release build, this 2-core machine, shared with other builds: load
//! average 1.4-2.9 during the runs, so read them as upper bounds).
//!
//! | scene (vertices, bones)          | solver    | criterion (mean) | solver_timing | target  |
//! |----------------------------------|-----------|------------------|---------------|---------|
//! | arms-down 496 293, 5             | linear    | 26 ms            | 26 ms         | 0.2 s   |
//! | arms-down 496 293, 5             | euclidean | 17 ms            | 16 ms         | 0.2 s   |
//! | arms-down 496 293, 5             | geodesic  | 0.38 s           | 0.40 s        | 1.0 s   |
//! | arms-down 496 293, 5             | heat      | 1.11 s           | 1.19 s        | 2.5 s   |
//! | figure 992 379, 19               | heat      | 2.70 s           | 2.75 s        | 8 s     |
//!
//! (Re-measured after the meshes were renumbered along a Hilbert curve, on an otherwise idle
//! machine; before: linear 36 ms, euclidean 24 ms, geodesic 0.63 s, heat 1.57 s / 4.35 s.)
//!
//! Peak memory (VmHWM of `cargo run --release --features internals --bin solver_timing -- SCENE N heat`, the
//! whole process including meshing): arms-down 500k heat 0.52 GB (0.15 GB before the
//! solve); figure 1M heat 1.13 GB (0.30 GB before the solve); target 2 GB.
//!
//! Heat stages at 1M / 19 bones (AMD ordering, `heat-stages`): assemble (visibility, nearest
//! visible bones, Laplacian) 1.2 s, symbolic + numeric factorization 4.1 s with AMD (nested
//! dissection, the default, is what brings the total to 4.4 s), solve of 19 right-hand sides
//! 0.83 s in one call vs 0.67 s in two column blocks on rayon threads (hence
//! `parallel_bones = true`).

use criterion::{criterion_group, criterion_main, Criterion};
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Scene, solvers::solver_by_name,
};
use std::time::Duration;

fn scene(name: &str, vertices: usize) -> Scene {
    builtin_scene(
        name,
        &BuiltinOptions::default()
            .with_gap(None)
            .with_vertices(vertices),
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
        let solver = solver_by_name(name, skinweights::solvers::NO_OPTIONS).expect("solver");
        g.bench_function(name, |b| b.iter(|| solver.solve(&arms).expect("solve")));
    }
    g.finish();
    drop(arms);

    let figure = scene("figure", 1_000_000);
    let mut g = c.benchmark_group("figure 1M, 19 bones");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20));
    let heat = solver_by_name("heat", skinweights::solvers::NO_OPTIONS).expect("solver");
    g.bench_function("heat", |b| b.iter(|| heat.solve(&figure).expect("solve")));
    g.finish();
}

criterion_group!(benches, bench_solvers);
criterion_main!(benches);
