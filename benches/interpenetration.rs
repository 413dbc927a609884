//! Interpenetration of one pose of a 1M-vertex mesh: crossing boundary edges (sweep along x)
//! and the interpenetrating area (scanline over the outlines and the flipped triangles),
//! given the rest-pose work ([`Interpenetration::new`], done once per mesh, not timed).
//!
//! Measured on this 2-core machine, `cargo bench -p skinweights-benches --bench interpenetration` (2026-12-02,
//! load average 2-5):
//! - `bar 1M bend 90` (991 731 vertices, 5 856 boundary edges, the seed's ramp folding the
//!   inner side: 262.2 px², 0 crossings): 19.8 ms (19.3-20.6 ms);
//! - `bar 1M bend 270` (LBS at 270 degrees is the -90 bend: the same numbers): 22.3 ms
//!   (21.4-22.9 ms);
//! - `figure 1M lift_l` (992 379 vertices, 11 990 boundary edges, 1283.1 px² folded at the
//!   armpit, 0 crossings): 86.7 ms (83.6-90.0 ms).
//!
//! Before (the same day, load about 9): 56, 46 and 116 ms. Two changes: edge pairs from a
//! uniform grid ([`skinweights::geometry::bbox_overlapping_pairs`]) instead of the sweep
//! along x, which compared every edge of the bent bar's vertical sides with all of them
//! (bar 90: pairs 8 -> <1 ms); and the scanline keeps its active edges in x order between
//! slabs (insertion sort of a nearly sorted list instead of a full sort per slab). On
//! `figure` the remaining time is the scanline (8 319 slabs, 207 active edges each on
//! average), the grid pairs (~24 ms: the welded part lines are boundary edges of both
//! layers, so every such edge pairs with its twin) and the flip pass over 2M triangles.
//!
//! Target: at most 0.1 s per pose at 1M vertices.

use criterion::{criterion_group, criterion_main, Criterion};
use skinweights::metrics::{posed_positions, Interpenetration};
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Scene, skeleton::Pose, weights::Weights,
};
use std::hint::black_box;
use std::time::Duration;

fn scene(name: &str) -> Scene {
    builtin_scene(name, &BuiltinOptions::default().with_vertices(1_000_000)).unwrap()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("interpenetration");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    // The bar with the seed's ramp weights (linear solver), bent 90 degrees and 270 (which
    // LBS draws as the -90 bend): the joint's inner side folds.
    let bar = scene("bar");
    let w = skinweights::solvers::solve(&bar, "linear").unwrap();
    let contour = Interpenetration::for_scene(&bar).unwrap();
    for theta in [90.0, 270.0] {
        let posed = posed_positions(&bar, &w, &Pose::rest().rotate("lower", theta)).unwrap();
        let r = contour.measure(&posed).unwrap();
        eprintln!(
            "bar {} vertices, {} boundary edges, bend {theta}: {} crossings, area {:.1} px²",
            bar.mesh().vertex_count(),
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
    let w: Weights = skinweights::solvers::solve(&figure, "linear").unwrap();
    let contour = Interpenetration::for_scene(&figure).unwrap();
    let probe = figure.probe(Some("lift_l")).unwrap();
    let posed = posed_positions(&figure, &w, &probe.pose).unwrap();
    let r = contour.measure(&posed).unwrap();
    eprintln!(
        "figure {} vertices, {} boundary edges, lift_l: {} crossings, area {:.1} px²",
        figure.mesh().vertex_count(),
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
