//! Meshing arms-down at about 1M triangles.
//!
//! Measured on this 2-core machine (shared with other builds), `cargo bench -p skinweights-benches --bench meshing`:
//! - `builtin arms-down 500k vertices` (~990k triangles; half meshed + mirrored, then
//!   validated into a `Mesh` with its topology; 986 952 triangles): 0.92 s (893-952 ms; 0.98 s
//!   before the Hilbert renumbering, which costs about 0.05 s and speeds up every solver)
//! - `mesh_outline full arms-down ~1M triangles` (the whole outline in one spade refinement,
//!   no mirroring, no validation; 988 458 triangles): 1.42 s (1.40-1.46 s)
//!
//! Target: under 1.5 s.
//!
//! - `trace_alpha 40 000 islands` (800 x 800 px of 3 x 3 px islands; `cargo bench -p skinweights-benches --bench
//!   meshing -- tracing`): 86 ms (85-87 ms). The nesting check used to compare every loop with
//!   every other (about 60 s here); it now indexes loops by row. Meshing those islands still
//!   takes about 24 s: `extract_inside` in `mesh/meshing.rs` tests every region against every
//!   edge (left for later).

use criterion::{criterion_group, criterion_main, Criterion};
use image::{Rgba, RgbaImage};
use skinweights::mesh::{estimate_max_area, mesh_outline, MeshingOptions};
use skinweights::scene::{arms_down_outline, BUILTIN_MIN_ANGLE_DEG, DEFAULT_GAP};

use skinweights::io::{trace_alpha, Sprite, TraceOptions};
use skinweights::{scene::builtin_scene, scene::BuiltinOptions};
use std::hint::black_box;
use std::time::Duration;

/// Vertices for about 1M triangles (a quality mesh has about two triangles per vertex).
const VERTICES: usize = 500_000;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("meshing");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));

    group.bench_function("builtin arms-down 500k vertices", |b| {
        let options = BuiltinOptions::default()
            .with_gap(None)
            .with_vertices(VERTICES);
        b.iter(|| black_box(builtin_scene("arms-down", &options).unwrap()))
    });

    let outline = arms_down_outline(DEFAULT_GAP);
    let options = MeshingOptions::default()
        .with_max_area(Some(estimate_max_area(
            outline.area(),
            outline.perimeter(),
            VERTICES,
        )))
        .with_min_angle_deg(BUILTIN_MIN_ANGLE_DEG);
    let (_, triangles, _) = mesh_outline(&outline, &options).unwrap();
    eprintln!("full outline: {} triangles", triangles.len());
    group.bench_function("mesh_outline full arms-down ~1M triangles", |b| {
        b.iter(|| black_box(mesh_outline(&outline, &options).unwrap()))
    });
    group.finish();

    // Many small islands: 800 x 800 px of 3 x 3 px islands, 1 px apart (40 000 loops).
    let islands = RgbaImage::from_fn(800, 800, |x, y| {
        let opaque = x % 4 != 3 && y % 4 != 3;
        Rgba([0, 0, 0, if opaque { 255 } else { 0 }])
    });
    let sprite = Sprite::from_rgba(islands, "islands");
    let mut group = c.benchmark_group("tracing");
    group.sample_size(10);
    group.bench_function("trace_alpha 40 000 islands", |b| {
        b.iter(|| black_box(trace_alpha(&sprite, &TraceOptions::default()).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
