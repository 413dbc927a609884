//! Quick release-mode timing of the solvers on a built-in scene, without criterion:
//! `cargo run --release --example solver_timing -- SCENE VERTICES SOLVER[,SOLVER...]`
//! (defaults: arms-down 500000 linear,euclidean,geodesic,heat). Prints wall time per
//! solver and the process's peak resident memory (Linux).

use skinweights::{builtin_scene, solver_by_name, BuiltinOptions};
use std::time::Instant;

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() -> skinweights::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scene_name = args.first().map_or("arms-down", String::as_str);
    let vertices = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(500_000);
    let solvers = args
        .get(2)
        .map_or("linear,euclidean,geodesic,heat", String::as_str);
    let t = Instant::now();
    let scene = builtin_scene(
        scene_name,
        &BuiltinOptions {
            gap: None,
            vertices,
        },
    )?;
    println!(
        "{scene_name}: {} vertices, {} bones, meshed in {:.2} s, peak {:.0} MB",
        scene.mesh.vertex_count(),
        scene.skeleton.len(),
        t.elapsed().as_secs_f64(),
        peak_rss_mb()
    );
    for name in solvers.split(',') {
        let solver = solver_by_name(name, &[])?;
        let t = Instant::now();
        let solution = solver.solve(&scene)?;
        println!(
            "{name:>16}: {:.3} s (report {:.3} s), peak {:.0} MB, warnings {:?}",
            t.elapsed().as_secs_f64(),
            solution.report.seconds,
            peak_rss_mb(),
            solution.report.warnings
        );
    }
    Ok(())
}
