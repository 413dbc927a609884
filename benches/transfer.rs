//! Costume transfer of a 1 024-vertex target from a 10 000-vertex source (issue 57's speed
//! target: under 50 ms), both methods, four bones, the source's weights smooth blends.
//!
//! Measured on this 2-core machine, `cargo bench -p skinweights-benches --bench transfer`:
//! see `docs/transfer.md` for the figures of the last run.

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::Point2;
use skinweights::mesh::Mesh;
use skinweights::scene::Scene;
use skinweights::skeleton::{Bone, Skeleton};
use skinweights::transfer::{
    transfer, TransferMethod, TransferOptions, TransferSource, TransferTarget,
};
use skinweights::weights::Weights;

/// A grid of `n` x `n` vertices over the square `lo`-`hi`, indices from `first`.
fn grid(lo: f64, hi: f64, n: usize, first: usize) -> (Vec<Point2<f64>>, Vec<[usize; 3]>) {
    let at = |i: usize| lo + (hi - lo) * i as f64 / (n - 1) as f64;
    let vertices = (0..n * n)
        .map(|k| Point2::new(at(k % n), at(k / n)))
        .collect();
    let mut triangles = Vec::new();
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let a = first + j * n + i;
            triangles.push([a, a + 1, a + n + 1]);
            triangles.push([a, a + n + 1, a + n]);
        }
    }
    (vertices, triangles)
}

fn costume() -> (Scene, Weights) {
    let (mut vertices, mut triangles) = grid(0.0, 1000.0, 100, 0);
    let (tv, tt) = grid(10.0, 990.0, 32, vertices.len());
    let source = vertices.len();
    vertices.extend(tv);
    triangles.extend(tt);
    let parts = (0..vertices.len())
        .map(|v| usize::from(v >= source))
        .collect();
    let mesh = Mesh::with_parts(
        vertices,
        triangles,
        vec!["source".into(), "target".into()],
        parts,
    )
    .expect("valid grid");
    let bones = (0..4)
        .map(|k| {
            let x = 250.0 * k as f64;
            let bone = Bone::new(
                format!("b{k}"),
                Point2::new(x, 500.0),
                Point2::new(x + 250.0, 500.0),
            );
            if k == 0 {
                bone
            } else {
                bone.with_parent(k - 1)
            }
        })
        .collect();
    let scene = Scene::from_mesh(mesh, Skeleton::new(bones).expect("chain")).expect("scene");
    let rows: Vec<Vec<f64>> = scene
        .mesh()
        .vertices()
        .iter()
        .map(|p| {
            let raw: Vec<f64> = (0..4)
                .map(|k| (-((p.x - 250.0 * k as f64 - 125.0) / 200.0).powi(2)).exp())
                .collect();
            let s: f64 = raw.iter().sum();
            raw.iter().map(|w| w / s).collect()
        })
        .collect();
    (scene, Weights::from_rows(&rows, 4).expect("rows"))
}

fn bench(c: &mut Criterion) {
    let (scene, artist) = costume();
    let source = TransferSource::from_parts(&scene, &artist, &["source".into()]).expect("source");
    let target = TransferTarget {
        part: "target".into(),
        bones: None,
    };
    let solver = skinweights::solvers::recommended();
    let mut group = c.benchmark_group("transfer 1k target from 10k source");
    group.sample_size(20);
    for method in [TransferMethod::Nearest, TransferMethod::Robust] {
        let options = TransferOptions {
            method,
            ..TransferOptions::default()
        };
        group.bench_function(method.name(), |b| {
            b.iter(|| {
                transfer(&scene, &target, &source, &options, solver.as_ref()).expect("transfer")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
