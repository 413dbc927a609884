//! Back-end comparisons that keep docs/performance.md's dependency choices reproducible:
//! - sparse Cholesky of the real bone-heat matrix: faer (supernodal) with AMD and with our
//!   nested dissection, vs nalgebra-sparse's `CscCholesky` on the same matrix permuted with
//!   the same AMD ordering (nalgebra-sparse has no fill-reducing ordering of its own);
//!   ordering, factorization and all bones' solves;
//! - multi-source Dijkstra for one bone: ours over the mesh's CSR adjacency vs petgraph's
//!   `dijkstra` from a virtual source joined to every seeded vertex (graph built outside the
//!   timing, which favours petgraph).
//!
//! Measured figures (release build, this 2-core machine, shared with other builds):
//!
//! | comparison                                            | time (criterion mean) |
//! |-------------------------------------------------------|-----------------------|
//! | 100k: faer, AMD, factor + 5 solves                     | 151 ms                |
//! | 100k: faer, nested dissection, factor + 5 solves       | 161 ms                |
//! | 100k: nalgebra-sparse CscCholesky, same AMD ordering   | 476 ms (3.1x faer)    |
//! | 500k: faer, AMD                                        | 1.89 s                |
//! | 500k: faer, nested dissection (the heat default)       | 1.15 s                |
//! | 500k Dijkstra, one bone: ours (CSR, sorted seeds)      | 78 ms                 |
//! | 500k Dijkstra, one bone: petgraph (virtual source)     | 175 ms (2.2x ours)    |
//!
//! petgraph also needs its graph built first (not timed here) and returns a `HashMap`.

use criterion::{criterion_group, criterion_main, Criterion};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::amd;
use faer::sparse::SparseColMat;
use nalgebra_sparse::{factorization::CscCholesky, CooMatrix, CscMatrix};
use petgraph::graph::{NodeIndex, UnGraph};
use skinweights::solvers::internals::bone_seeds;
use skinweights::solvers::internals::multi_source_dijkstra;
use skinweights::solvers::internals::nested_dissection;
use skinweights::solvers::internals::Visibility;
use skinweights::solvers::internals::{Factorization, HeatSystem};
use skinweights::solvers::HeatOptions;
use skinweights::{scene::builtin_scene, scene::BuiltinOptions, scene::Scene};
use std::time::Duration;

fn scene(vertices: usize) -> Scene {
    builtin_scene(
        "arms-down",
        &BuiltinOptions::default()
            .with_gap(None)
            .with_vertices(vertices),
    )
    .expect("built-in scene")
}

/// AMD ordering of a symmetric matrix given by its lower triangle: `perm_inv[old] = new`.
fn amd_perm_inv(lower: &SparseColMat<usize, f64>) -> Vec<usize> {
    let n = lower.nrows();
    let nnz = lower.compute_nnz();
    let mut perm = vec![0usize; n];
    let mut perm_inv = vec![0usize; n];
    let mut buf = MemBuffer::new(amd::order_scratch::<usize>(n, nnz));
    amd::order(
        &mut perm,
        &mut perm_inv,
        lower.symbolic(),
        Default::default(),
        MemStack::new(&mut buf),
    )
    .expect("amd");
    perm_inv
}

/// The full symmetric matrix `P A P'` in nalgebra-sparse's CSC format.
fn permuted_full(lower: &SparseColMat<usize, f64>, perm_inv: &[usize]) -> CscMatrix<f64> {
    let n = lower.nrows();
    let mut coo = CooMatrix::new(n, n);
    for j in 0..n {
        let rows = lower.row_idx_of_col_raw(j);
        let vals = lower.val_of_col(j);
        for (&i, &v) in rows.iter().zip(vals) {
            let (pi, pj) = (perm_inv[i], perm_inv[j]);
            coo.push(pi, pj, v);
            if i != j {
                coo.push(pj, pi, v);
            }
        }
    }
    CscMatrix::from(&coo)
}

fn bench_cholesky(c: &mut Criterion) {
    let s = scene(100_000);
    let system = HeatSystem::assemble(&s, &HeatOptions::default()).expect("system");
    let (n, nb) = (system.rhs.nrows(), system.rhs.ncols());
    let mut g = c.benchmark_group("cholesky: arms-down 100k, factor + 5 solves");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    g.bench_function("faer (AMD, supernodal)", |b| {
        b.iter(|| {
            let f = Factorization::new(&system.lower, None).expect("factor");
            let mut x = system.rhs.clone();
            f.solve_in_place(x.as_mut(), 1);
            x
        })
    });
    g.bench_function("faer (nested dissection, supernodal)", |b| {
        b.iter(|| {
            let order = nested_dissection(s.mesh());
            let f = Factorization::new(&system.lower, Some(&order)).expect("factor");
            let mut x = system.rhs.clone();
            f.solve_in_place(x.as_mut(), 1);
            x
        })
    });
    g.bench_function("nalgebra-sparse (same AMD ordering)", |b| {
        b.iter(|| {
            let perm_inv = amd_perm_inv(&system.lower);
            let a = permuted_full(&system.lower, &perm_inv);
            let f = CscCholesky::factor(&a).expect("factor");
            let mut rhs = nalgebra::DMatrix::<f64>::zeros(n, nb);
            for j in 0..nb {
                for i in 0..n {
                    rhs[(perm_inv[i], j)] = system.rhs[(i, j)];
                }
            }
            f.solve(&rhs)
        })
    });
    g.finish();
}

/// AMD vs nested dissection where it matters: at 500k vertices AMD's analysis dominates.
fn bench_ordering(c: &mut Criterion) {
    let s = scene(500_000);
    let system = HeatSystem::assemble(&s, &HeatOptions::default()).expect("system");
    let mut g = c.benchmark_group("faer ordering: arms-down 500k, factor + 5 solves");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(15));
    for (name, nd) in [("AMD", false), ("nested dissection", true)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let order = nd.then(|| nested_dissection(s.mesh()));
                let f = Factorization::new(&system.lower, order.as_deref()).expect("factor");
                let mut x = system.rhs.clone();
                f.solve_in_place(x.as_mut(), 1);
                x
            })
        });
    }
    g.finish();
}

fn bench_dijkstra(c: &mut Criterion) {
    let s = scene(500_000);
    let vis = Visibility::new(s.mesh());
    let bone = s.skeleton().index_of("upper_arm_l").expect("bone");
    let seeds = bone_seeds(&s, &vis, bone);
    let n = s.mesh().vertex_count();
    let pts = s.mesh().vertices();
    let mut graph = UnGraph::<(), f64>::with_capacity(n + 1, s.mesh().topology().edges().len() + n);
    for _ in 0..=n {
        graph.add_node(());
    }
    for &[a, b] in s.mesh().topology().edges() {
        graph.add_edge(
            NodeIndex::new(a),
            NodeIndex::new(b),
            (pts[a] - pts[b]).norm(),
        );
    }
    let source = NodeIndex::new(n);
    for (v, &d) in seeds.iter().enumerate() {
        if d.is_finite() {
            graph.add_edge(source, NodeIndex::new(v), d);
        }
    }
    let mut g = c.benchmark_group("dijkstra: arms-down 500k, one bone");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    g.bench_function("ours (CSR, multi-source)", |b| {
        b.iter(|| multi_source_dijkstra(s.mesh(), &seeds))
    });
    g.bench_function("petgraph (virtual source)", |b| {
        b.iter(|| petgraph::algo::dijkstra(&graph, source, None, |e| *e.weight()))
    });
    g.finish();
}

criterion_group!(benches, bench_cholesky, bench_ordering, bench_dijkstra);
criterion_main!(benches);
