//! Bounded biharmonic weights end to end (criterion; 10 samples: the machine has 2 cores).
//!
//! Measured figures (release build, this 2-core machine shared with other builds). The
//! machine's load changes the figures threefold, so both are given: single runs on a
//! lightly loaded machine (load average about 2) and, under a load average of 9.7, this
//! bench (`cargo bench --bench bbw`, 10000-vertex case: mean 1.19 s) and
//! `cargo run --release --example solver_timing -- arms-down N bbw`.
//!
//! | arms-down vertices | bbw, load ~2 | bbw, load 9.7 | iterations per bone | heat, load ~2 | libigl bbw | target |
//! |--------------------|--------------|---------------|---------------------|---------------|------------|--------|
//! | 9 817              | 0.37 s       | 1.19-1.25 s   | 6-7                 | 19 ms         | -          | -      |
//! | 49 751             | 10.1 s       | 28.4 s (peak 270 MB) | 11-18        | 0.10 s        | 5 s        | 0.5 s  |
//! | 500k               | not run (minutes, from the per-iteration cost) | | | 1.1 s | > 240 s | 10 s |
//!
//! **The targets are missed.** Where the time goes at 49 751 vertices: assembly 0.05 s, the
//! shared factorization of `Q_FF = (L M^-1 L)_FF` (AMD; its stencil is the two-ring, so the
//! factor is about 4x heat's) 0.19 s including the unconstrained solve of every bone, then
//! each active-set iteration refactorizes `Q` with the active rows fixed (numeric only, the
//! symbolic analysis is reused: 0.12 s) per bone. The number of iterations grows with the
//! resolution (the active region's border advances about one ring of vertices per
//! iteration), so the cost is about `iterations x bones x numeric factorization / 2 cores`.
//!
//! **Bulk release** (option `release_rings`, default 1; issue 13): a vertex the active set
//! releases also releases the vertices fixed at the same bound one step of `Q`'s stencil
//! around it (each vertex at most once). `cargo run --release --example bbw_compare` (old =
//! `release_rings=0` and new in one process, load average 3.8-4.0, arms-down):
//!
//! | vertices | rings=0 | rings=1 (default) | rings=2 | passes per bone, 0 -> 1 | lift_l drag 0 / 1 | max weight difference |
//! |----------|---------|-------------------|---------|-------------------------|-------------------|-----------------------|
//! | 9 817    | 0.515 s | 0.246 s (2.09x)   | 0.367 s (1.40x) | 6-7 -> 2-4      | 0.365% / 0.365%   | 4.2e-3 |
//! | 49 751   | 10.7 s  | 3.73 s (2.87x)    | 3.78 s (2.83x)  | 11-18 -> 5-6    | 0.345% / 0.343%   | 3.5e-3 |
//!
//! With the default, `cargo run --release --features internals --example solver_timing --
//! arms-down 100000 bbw` (99 739 vertices, load average 5.5): 11.2 s, peak 530 MB; 500k was
//! not run (minutes at this rate).
//!
//! Tried and dropped: conjugate gradients on each pass's system preconditioned with the
//! previous pass's factorization (it differs by the few released vertices), warm-started
//! from the previous iterate, refactorizing after 40 iterations: slower (10k 1.51 s vs
//! 0.53 s, 50k 50.1 s vs 11.9 s in one process), since 40 triangular solves cost more than
//! one supernodal numeric refactorization and CG seldom reached the 1e-12 residual in time.
//!
//! Starting the active set wider (values of the unconstrained solution below a margin fixed
//! at 0, above 1 - margin at 1, so that passes release instead of grow): slower in one
//! process at load average 9 (10k: 1.44 s -> 2.15 s / 1.97 s for margins 0.01 / 0.05; 50k:
//! 12.8 s -> 14.9 s / 32.2 s); the bulk release already recedes the border several rings a
//! pass, and a wider start only adds releases.
//!
//! ADMM with one prefactored `Q + rho M` shared by all bones was tried first: 2 ms per
//! iteration at 10k vertices but it needed more than 2000 iterations to reach 1e-3 (3.9 s),
//! and a large `rho` stops early far from the optimum (drag 143%).

use criterion::{criterion_group, criterion_main, Criterion};
use skinweights::{builtin_scene, solver_by_name, BuiltinOptions};
use std::time::Duration;

fn bbw(c: &mut Criterion) {
    let mut group = c.benchmark_group("bbw");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for vertices in [10_000, 50_000] {
        let scene = builtin_scene(
            "arms-down",
            &BuiltinOptions {
                gap: None,
                vertices,
                ..Default::default()
            },
        )
        .expect("built-in scene");
        let solver = solver_by_name("bbw", &[]).expect("bbw is registered");
        group.bench_function(format!("arms-down {vertices}"), |b| {
            b.iter(|| solver.solve(&scene).expect("bbw solves arms-down"))
        });
    }
    group.finish();
}

criterion_group!(benches, bbw);
criterion_main!(benches);
