//! Clip evaluation of a 1M-vertex mesh over 100 frames: per frame the clip sampled to a pose,
//! LBS with the weights and with the reference weights, each vertex's deviation (max, p95,
//! mean), flipped triangles and area change, and over the clip the pooled max / p95 / mean
//! ([`clip_metrics`], what `eval --clip` and `view` report).
//!
//! Measured on this 2-core machine (shared with other builds), `cargo bench --bench
//! clip_eval`: see the figures below.
//!
//! Target: at most 1 s for the 100 frames.

use criterion::{criterion_group, criterion_main, Criterion};
use skinweights::animation::{BoneTrack, ChannelKind, Clip, Key};
use skinweights::metrics::clip::{clip_metrics, ClipOptions};
use skinweights::{builtin_scene, BuiltinOptions, Scene, Weights};
use std::hint::black_box;
use std::time::Duration;

/// The bar at 1M vertices with `swing`: the lower bone 0 -> 80 -> -40 -> 0 degrees and the
/// upper 0 -> 20 -> 0 over 0.99 s, sampled at 100 fps (100 frames).
fn scene() -> Scene {
    let s = builtin_scene(
        "bar",
        &BuiltinOptions {
            vertices: 1_000_000,
            ..Default::default()
        },
    )
    .unwrap();
    let names = s.skeleton.names();
    let clip = Clip::new("swing", 0.99)
        .with_track(BoneTrack::new(&names[1]).with(
            ChannelKind::Rotation,
            vec![
                Key::new(0.0, 0.0),
                Key::new(0.33, 80.0),
                Key::new(0.66, -40.0),
                Key::new(0.99, 0.0),
            ],
        ))
        .with_track(BoneTrack::new(&names[0]).with(
            ChannelKind::Rotation,
            vec![Key::new(0.0, 0.0), Key::new(0.5, 20.0), Key::new(0.99, 0.0)],
        ));
    s.with_animation(vec![clip], vec![]).unwrap()
}

/// Two bones blended across the joint (the upper bone's tail) over `width` px with a
/// smoothstep: the reference and the weights differ only in the width.
fn blend(scene: &Scene, width: f64) -> Weights {
    let joint = scene.skeleton.bones()[0].tail.x;
    let mut data = Vec::with_capacity(scene.mesh.vertex_count() * 2);
    for v in scene.mesh.vertices() {
        let u = ((v.x - joint) / width + 0.5).clamp(0.0, 1.0);
        let child = u * u * (3.0 - 2.0 * u);
        data.extend([1.0 - child, child]);
    }
    Weights::from_row_major(data, 2).unwrap()
}

fn bench(c: &mut Criterion) {
    let scene = scene();
    let reference = blend(&scene, 20.0);
    let weights = blend(&scene, 60.0);
    let options = ClipOptions::default().with_fps(100.0);
    let clip = &scene.clips[0];
    let m = clip_metrics(&scene, &weights, Some(&reference), clip, &options).unwrap();
    assert_eq!(m.frames, 100);
    assert!(m.deviation_max_px.unwrap() > 0.0);
    eprintln!(
        "bar {} vertices, {} triangles: deviation max {:.4} px, p95 {:.4}, mean {:.4}, \
         flipped max {}, area change max {:.3} %",
        scene.mesh.vertex_count(),
        scene.mesh.triangle_count(),
        m.deviation_max_px.unwrap(),
        m.deviation_p95_px.unwrap(),
        m.deviation_mean_px.unwrap(),
        m.flipped_max,
        m.area_change_max_pct
    );
    // CPU time (user + system, all threads) of one evaluation, which other processes on the
    // machine inflate less than wall time: on a quiet 2-core machine the wall time is about
    // this divided by 2.
    let cpu = cpu_seconds();
    let runs = 3;
    for _ in 0..runs {
        black_box(clip_metrics(&scene, &weights, Some(&reference), clip, &options).unwrap());
    }
    if let (Some(a), Some(b)) = (cpu, cpu_seconds()) {
        eprintln!("CPU time per evaluation: {:.2} s", (b - a) / runs as f64);
    }
    let mut group = c.benchmark_group("clip_eval");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    group.bench_function("bar 1M 100 frames with reference", |b| {
        b.iter(|| {
            black_box(clip_metrics(&scene, &weights, Some(&reference), clip, &options).unwrap())
        })
    });
    group.finish();
}

/// This process's user + system CPU time from `/proc/self/stat` (Linux), seconds.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesized command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

criterion_group!(benches, bench);
criterion_main!(benches);
