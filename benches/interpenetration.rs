//! Interpenetration of one pose of a 1M-vertex mesh: crossing boundary edges (sweep along x)
//! and the interpenetrating area (scanline over the outlines and the flipped triangles),
//! given the rest-pose work ([`Interpenetration::new`], done once per mesh, not timed).
//!
//! Measured on this 2-core machine (shared with other builds), `cargo bench --bench
//! interpenetration`:
//! - `bar 1M bend 90` (991 731 vertices, 5 856 boundary edges, the seed's ramp folding the
//!   inner side: 262.2 px², 0 crossings): 223 ms (201-250 ms);
//! - `bar 1M bend 270` (LBS at 270 degrees is the -90 bend: the same numbers): 243 ms
//!   (220-273 ms);
//! - `figure 1M lift_l` (992 379 vertices, 11 990 boundary edges, 1283.1 px² folded at the
//!   armpit, 0 crossings): 330 ms (306-356 ms);
//!
//! all with the machine under a load average of about 12 on its 2 cores (other helpers'
//! builds), so not yet a quiet-machine figure: over the 0.1 s target as measured. Not yet
//! profiled; the per-pose work is one pass over the triangles for flips (2M), the sweep over
//! the boundary and flipped-triangle edges, and the scanline.
//!
//! Target: at most 0.1 s per pose at 1M vertices.

use criterion::{criterion_group, criterion_main, Criterion};
use skinweights::metrics::{posed_positions, Interpenetration};
use skinweights::{builtin_scene, BuiltinOptions, Pose, Scene, Weights};
use std::hint::black_box;
use std::time::Duration;

fn scene(name: &str) -> Scene {
    builtin_scene(
        name,
        &BuiltinOptions {
            vertices: 1_000_000,
            ..Default::default()
        },
    )
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("interpenetration");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    // The bar with the seed's ramp weights (linear solver), bent 90 degrees and 270 (which
    // LBS draws as the -90 bend): the joint's inner side folds.
    let bar = scene("bar");
    let w = skinweights::solve(&bar, "linear").unwrap();
    let contour = Interpenetration::for_scene(&bar).unwrap();
    for theta in [90.0, 270.0] {
        let posed = posed_positions(&bar, &w, &Pose::rest().rotate("lower", theta)).unwrap();
        let r = contour.measure(&posed).unwrap();
        eprintln!(
            "bar {} vertices, {} boundary edges, bend {theta}: {} crossings, area {:.1} px²",
            bar.mesh.vertex_count(),
            contour.boundary_edge_count(),
            r.crossings(),
            r.area_px2
        );
        group.bench_function(format!("bar 1M bend {theta}"), |b| {
            b.iter(|| black_box(contour.measure(black_box(&posed)).unwrap()))
        });
    }
    drop(contour);
    drop(bar);
    // The figure with every vertex on its part's nearest bone's weights, lifting an arm.
    let figure = scene("figure");
    let w: Weights = skinweights::solve(&figure, "linear").unwrap();
    let contour = Interpenetration::for_scene(&figure).unwrap();
    let probe = figure.probe(Some("lift_l")).unwrap();
    let posed = posed_positions(&figure, &w, &probe.pose).unwrap();
    let r = contour.measure(&posed).unwrap();
    eprintln!(
        "figure {} vertices, {} boundary edges, lift_l: {} crossings, area {:.1} px²",
        figure.mesh.vertex_count(),
        contour.boundary_edge_count(),
        r.crossings(),
        r.area_px2
    );
    group.bench_function("figure 1M lift_l", |b| {
        b.iter(|| black_box(contour.measure(black_box(&posed)).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
