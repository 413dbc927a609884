//! Old vs new bbw in one process, so that the machine's load cancels in the ratio:
//! `cargo run --release -p skinweights-benches --example bbw_compare -- [SCENE] [VERTICES...]
//! [KEY=VALUE[,KEY=VALUE]...]` (defaults arms-down, 10000 50000) solves the built-in scene
//! with the whole free set factored every pass
//! (`subdomain=0`, the solver before the subdomains; with `release_rings=0` as well,
//! the plain primal-dual active set), then with the defaults and each extra option set
//! given, and prints the wall times, their ratios to the first, the largest weight
//! difference to the first and the lift_l drag of each.

use skinweights::metrics::evaluate;
use skinweights::{scene::builtin_scene, scene::BuiltinOptions, solvers::solver_by_name};
use std::time::Instant;

fn main() -> skinweights::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sizes: Vec<usize> = args.iter().filter_map(|s| s.parse().ok()).collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 50_000]
    } else {
        sizes
    };
    let scene_name = args
        .iter()
        .find(|s| s.parse::<usize>().is_err() && !s.contains('='))
        .map_or("arms-down", String::as_str);
    let mut variants = vec![
        "subdomain=0,release_rings=0".to_string(),
        "subdomain=0".to_string(),
        String::new(),
    ];
    variants.extend(args.iter().filter(|s| s.contains('=')).cloned());
    for vertices in sizes {
        let scene = builtin_scene(
            scene_name,
            &BuiltinOptions::default()
                .with_gap(None)
                .with_vertices(vertices),
        )?;
        let probe = scene.probe(Some("lift_l")).or_else(|_| scene.probe(None))?;
        let mut runs = Vec::new();
        for variant in &variants {
            let options: Vec<(String, String)> = variant
                .split(',')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let solver = solver_by_name("bbw", &options)?;
            let t = Instant::now();
            let solution = solver.solve(&scene)?;
            let secs = t.elapsed().as_secs_f64();
            let drag = evaluate(&scene, &solution.weights, probe)?.drag_max_pct;
            runs.push((secs, drag, solution.weights));
        }
        for (variant, run) in variants.iter().zip(&runs) {
            let diff = runs[0]
                .2
                .rows()
                .zip(run.2.rows())
                .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
                .fold(0.0, f64::max);
            let name = if variant.is_empty() {
                "defaults"
            } else {
                variant
            };
            println!(
                "{} vertices, {name}: {:.3} s, {:.2}x faster than the first, \
                 {} drag {:.3}%, max weight difference to the first {:.2e}",
                scene.mesh().vertex_count(),
                run.0,
                runs[0].0 / run.0,
                probe.name,
                run.1,
                diff
            );
        }
    }
    Ok(())
}
