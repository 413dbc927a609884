//! bbw's QP by two methods on the same system: the active set the solver uses, and
//! Clarabel's interior point (the issue's "interior-point crate such as clarabel:
//! measure"). Prints each method's time, iterations and objective per bone:
//! `cargo run --release -p skinweights-benches --example bbw_qp_methods -- [VERTICES] [BONES]`
//! (defaults: arms-down at 10000 vertices, every bone). The interior point runs one bone
//! at a time with Clarabel's default settings (its own sparse LDL'); the active set solves
//! all bones together (two threads), as `bbw` does.

mod box_qp_reference;

use box_qp_reference::{objective, solve_box_qp};
use skinweights::solvers::internals::BiharmonicSystem;
use skinweights::solvers::BbwOptions;
use skinweights::{scene::builtin_scene, scene::BuiltinOptions};
use std::time::Instant;

fn main() -> skinweights::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let vertices = args.first().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let scene = builtin_scene(
        "arms-down",
        &BuiltinOptions::default().with_vertices(vertices),
    )?;
    let bones = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(scene.skeleton().len())
        .min(scene.skeleton().len());
    let o = BbwOptions::default();
    let t = Instant::now();
    let system = BiharmonicSystem::assemble(&scene, &o)?;
    let assembled = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let ours = system.bone_solutions(&scene, &o)?;
    let active_set = t.elapsed().as_secs_f64();
    println!(
        "arms-down: {} vertices ({} free), assembly {assembled:.3} s; active set, all {} \
         bones: {active_set:.3} s",
        scene.mesh().vertex_count(),
        system.free.len(),
        scene.skeleton().len()
    );
    let upper = vec![1.0; system.free.len()];
    let mut interior_total = 0.0;
    for (j, qp) in ours.iter().enumerate().take(bones) {
        let b = system.rhs.col_as_slice(j);
        let t = Instant::now();
        let reference = solve_box_qp(&system.q_lower, b, &upper);
        let seconds = t.elapsed().as_secs_f64();
        interior_total += seconds;
        let gap =
            qp.x.iter()
                .zip(&reference.x)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
        println!(
            "bone {j}: active set {} passes, objective {:.9e}; interior point {} iterations \
             ({}), {seconds:.3} s, objective {:.9e}; largest weight difference {gap:.2e}",
            qp.iterations,
            objective(&system.q_lower, b, &qp.x),
            reference.iterations,
            if reference.solved {
                "solved"
            } else {
                "NOT solved"
            },
            objective(&system.q_lower, b, &reference.x),
        );
    }
    println!("interior point, {bones} bones one after the other: {interior_total:.3} s");
    Ok(())
}
