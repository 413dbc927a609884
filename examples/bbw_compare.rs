//! Old vs new bbw in one process, so that the machine's load cancels in the ratio:
//! `cargo run --release --example bbw_compare -- VERTICES...` (default 10000 50000) solves
//! arms-down with `release_rings=0` (the plain primal-dual active set, the
//! solver before issue 13's speed-up) then with 1
//! and 2, and prints the wall times, their ratios, the largest weight difference and the
//! lift_l drag of each.

use skinweights::metrics::evaluate;
use skinweights::{builtin_scene, solver_by_name, BuiltinOptions};
use std::time::Instant;

fn main() -> skinweights::Result<()> {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 50_000]
    } else {
        sizes
    };
    for vertices in sizes {
        let scene = builtin_scene(
            "arms-down",
            &BuiltinOptions {
                gap: None,
                vertices,
                ..Default::default()
            },
        )?;
        let probe = scene.probe(Some("lift_l"))?;
        let mut runs = Vec::new();
        for rings in ["0", "1", "2"] {
            let solver = solver_by_name("bbw", &[("release_rings".into(), rings.into())])?;
            let t = Instant::now();
            let solution = solver.solve(&scene)?;
            let secs = t.elapsed().as_secs_f64();
            let drag = evaluate(&scene, &solution.weights, probe, None)?.drag_max_pct;
            runs.push((secs, drag, solution.weights));
        }
        for (rings, run) in runs.iter().enumerate() {
            let diff = runs[0]
                .2
                .rows()
                .zip(run.2.rows())
                .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
                .fold(0.0, f64::max);
            println!(
                "{} vertices, release_rings={rings}: {:.3} s, {:.2}x faster than rings=0, \
                 lift_l drag {:.3}%, max weight difference to rings=0 {:.2e}",
                scene.mesh.vertex_count(),
                run.0,
                runs[0].0 / run.0,
                run.1,
                diff
            );
        }
    }
    Ok(())
}
