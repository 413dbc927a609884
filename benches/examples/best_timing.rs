//! `best`'s solve time against heat's from 10k to 500k vertices, in one process (issue 27,
//! item 5: `best` within 1.5x heat). Single shots, alternating heat and best, the smaller
//! of `REPEATS` runs each (criterion at 500k is too slow; `benches/best.rs` has the 50k
//! rows with criterion). The results are recorded in `benches/best.rs`.
//!
//! `cargo run --release -p skinweights-benches --example best_timing [SCENE:VERTICES ...]`

use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Scene, solvers::solver_by_name,
    solvers::Solver,
};
use std::time::Instant;

/// Runs per solver and scene (the smaller time is kept: the machine is shared).
const REPEATS: usize = 2;

/// The scenes timed by default: arms-down at four sizes, figure (19 bones) at 50k.
const DEFAULT_CASES: [(&str, usize); 5] = [
    ("arms-down", 10_000),
    ("arms-down", 50_000),
    ("arms-down", 200_000),
    ("arms-down", 500_000),
    ("figure", 50_000),
];

fn seconds(solver: &dyn Solver, scene: &Scene) -> f64 {
    let t = Instant::now();
    solver.solve(scene).expect("solve");
    t.elapsed().as_secs_f64()
}

fn main() {
    let args: Vec<(String, usize)> = std::env::args()
        .skip(1)
        .map(|a| {
            let (s, n) = a.split_once(':').expect("SCENE:VERTICES");
            (s.to_string(), n.parse().expect("vertex count"))
        })
        .collect();
    let cases: Vec<(String, usize)> = if args.is_empty() {
        DEFAULT_CASES
            .iter()
            .map(|&(s, n)| (s.to_string(), n))
            .collect()
    } else {
        args
    };
    let heat = solver_by_name("heat", Vec::<(String, String)>::new()).expect("heat");
    let best = solver_by_name("best", Vec::<(String, String)>::new()).expect("best");
    println!("| scene | vertices | bones | heat s | best s | best / heat |");
    println!("|---|---|---|---|---|---|");
    for (name, vertices) in cases {
        let scene = builtin_scene(&name, &BuiltinOptions::default().with_vertices(vertices))
            .expect("built-in scene");
        let (mut h, mut b) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..REPEATS {
            h = h.min(seconds(heat.as_ref(), &scene));
            b = b.min(seconds(best.as_ref(), &scene));
        }
        println!(
            "| {name} | {} | {} | {h:.3} | {b:.3} | {:.2} |",
            scene.mesh().vertex_count(),
            scene.skeleton().len(),
            b / h
        );
    }
}
