//! Meshing arms-down at about 1M triangles.
//!
//! Measured on this 2-core machine (shared with other builds), `cargo bench --bench meshing`:
//! - `builtin arms-down 500k vertices` (~990k triangles; half meshed + mirrored, then
//!   validated into a `Mesh` with its topology; 986 952 triangles): 0.92 s (893-952 ms; 0.98 s
//!   before the Hilbert renumbering, which costs about 0.05 s and speeds up every solver)
//! - `mesh_outline full arms-down ~1M triangles` (the whole outline in one spade refinement,
//!   no mirroring, no validation; 988 458 triangles): 1.42 s (1.40-1.46 s)
//!
//! Target: under 1.5 s.

use criterion::{criterion_group, criterion_main, Criterion};
use skinweights::mesh::{estimate_max_area, mesh_outline, MeshingOptions};
use skinweights::scene::{arms_down_outline, BUILTIN_MIN_ANGLE_DEG, DEFAULT_GAP};
use skinweights::{builtin_scene, BuiltinOptions};
use std::hint::black_box;
use std::time::Duration;

/// Vertices for about 1M triangles (a quality mesh has about two triangles per vertex).
const VERTICES: usize = 500_000;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("meshing");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));

    group.bench_function("builtin arms-down 500k vertices", |b| {
        let options = BuiltinOptions {
            gap: None,
            vertices: VERTICES,
        };
        b.iter(|| black_box(builtin_scene("arms-down", &options).unwrap()))
    });

    let outline = arms_down_outline(DEFAULT_GAP);
    let options = MeshingOptions {
        max_area: Some(estimate_max_area(
            outline.area(),
            outline.perimeter(),
            VERTICES,
        )),
        min_angle_deg: BUILTIN_MIN_ANGLE_DEG,
        ..MeshingOptions::default()
    };
    let (_, triangles, _) = mesh_outline(&outline, &options).unwrap();
    eprintln!("full outline: {} triangles", triangles.len());
    group.bench_function("mesh_outline full arms-down ~1M triangles", |b| {
        b.iter(|| black_box(mesh_outline(&outline, &options).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
