//! Quick release-mode timing of the solvers on a built-in scene, without criterion:
//! `cargo run --release --features internals --bin solver_timing -- SCENE VERTICES SOLVER[,SOLVER...]`
//! (defaults: arms-down 500000 linear,euclidean,geodesic,heat); `SOLVER:key=value:...` sets
//! options (for `best` also its recipe's constants, such as `cut_fade=0`).
//! `SCENE` is a built-in name or a scene file (`*.json`; `VERTICES` is then ignored).
//! Prints wall time per solver, its CPU time (all threads) and the process's peak resident
//! memory (Linux).

mod common;

use common::recipe::{best_with_recipe, is_recipe_key};
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, solvers::solver_by_name, solvers::Solver,
};
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

/// CPU time of the whole process so far (user + system, every thread; Linux, 10 ms
/// ticks): on a shared machine the wall time follows the load, the CPU time much less.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // Fields after the command name's closing parenthesis; utime and stime are the
            // 14th and 15th of the line.
            let rest = s.rsplit_once(')')?.1;
            let f: Vec<&str> = rest.split_whitespace().collect();
            Some((f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?) / 100.0)
        })
        .unwrap_or(f64::NAN)
}

fn main() -> skinweights::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scene_name = args.first().map_or("arms-down", String::as_str);
    let vertices = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(500_000);
    let solvers = args
        .get(2)
        .map_or("linear,euclidean,geodesic,heat", String::as_str);
    let t = Instant::now();
    // A scene file (for example a sprite traced with `skinweights mesh`), or a built-in.
    let scene = match scene_name.ends_with(".json") {
        true => skinweights::io::load_scene(scene_name)?.0,
        false => builtin_scene(
            scene_name,
            &BuiltinOptions::default()
                .with_gap(None)
                .with_vertices(vertices),
        )?,
    };
    println!(
        "{scene_name}: {} vertices, {} bones, meshed in {:.2} s, peak {:.0} MB",
        scene.mesh().vertex_count(),
        scene.skeleton().len(),
        t.elapsed().as_secs_f64(),
        peak_rss_mb()
    );
    for name in solvers.split(',') {
        if name == "geodesic-stages" {
            geodesic_stages(&scene);
            continue;
        }
        if name == "bbw-stages" {
            bbw_stages(&scene)?;
            continue;
        }
        if name == "heat-stages" {
            heat_stages(&scene)?;
            continue;
        }
        // `NAME:key=value:key=value` passes options, so variants are timed in one process.
        let mut fields = name.split(':');
        let base = fields.next().unwrap_or(name);
        let options: Vec<(String, String)> = fields
            .filter_map(|kv| kv.split_once('=').map(|(k, v)| (k.into(), v.into())))
            .collect();
        // `best`'s recipe constants (`cut_fade=0`, ...) are no options.
        let recipe = base == "best" && options.iter().any(|(k, _)| is_recipe_key(k));
        let solver: Box<dyn Solver> = if recipe {
            let pairs: Vec<(&str, &str)> = options
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            Box::new(best_with_recipe(&pairs)?)
        } else {
            solver_by_name(base, &options)?
        };
        let (t, cpu) = (Instant::now(), cpu_seconds());
        let solution = solver.solve(&scene)?;
        println!(
            "{name:>16}: {:.3} s (report {:.3} s, cpu {:.2} s), peak {:.0} MB, warnings {:?}",
            t.elapsed().as_secs_f64(),
            solution.report.seconds,
            cpu_seconds() - cpu,
            peak_rss_mb(),
            solution
                .report
                .warnings
                .iter()
                .map(|w| w.to_string())
                .collect::<Vec<_>>()
        );
    }
    Ok(())
}

/// Stage-by-stage timing of the heat solver (`SOLVER` = `heat-stages`).
pub fn heat_stages(scene: &skinweights::scene::Scene) -> skinweights::Result<()> {
    use skinweights::solvers::internals::{Factorization, HeatSystem};
    use skinweights::solvers::HeatOptions;
    let t = Instant::now();
    let system = HeatSystem::assemble(scene, &HeatOptions::default())?;
    let t_assemble = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let factor = Factorization::new(&system.lower, None)?;
    let t_factor = t.elapsed().as_secs_f64();
    for blocks in [1, 2] {
        let mut rhs = system.rhs.clone();
        let t = Instant::now();
        factor.solve_in_place(rhs.as_mut(), blocks);
        println!(
            "  solve, {blocks} column block(s): {:.3} s",
            t.elapsed().as_secs_f64()
        );
    }
    println!("  assemble (visibility, nearest, Laplacian): {t_assemble:.3} s, factor: {t_factor:.3} s, peak {:.0} MB", peak_rss_mb());
    Ok(())
}

/// Stage-by-stage timing of the bbw solver's linear algebra (`SOLVER` = `bbw-stages`).
pub fn bbw_stages(scene: &skinweights::scene::Scene) -> skinweights::Result<()> {
    use skinweights::solvers::internals::{BiharmonicSystem, Factorization};
    use skinweights::solvers::BbwOptions;
    let t = Instant::now();
    let system = BiharmonicSystem::assemble(scene, &BbwOptions::default())?;
    println!(
        "  assemble: {:.3} s, {} free, Q lower {} values",
        t.elapsed().as_secs_f64(),
        system.free.len(),
        system.q_lower.val().len()
    );
    let t = Instant::now();
    let factor = Factorization::new(&system.q_lower, None)?;
    println!(
        "  symbolic + numeric: {:.3} s, factor {} values, peak {:.0} MB",
        t.elapsed().as_secs_f64(),
        factor.stored_values(),
        peak_rss_mb()
    );
    let t = Instant::now();
    let again = factor.refactor(&system.q_lower)?;
    println!("  numeric only: {:.3} s", t.elapsed().as_secs_f64());
    let mut again = again;
    let t = Instant::now();
    again.refactor_in_place(&system.q_lower)?;
    println!(
        "  numeric into the same storage: {:.3} s",
        t.elapsed().as_secs_f64()
    );
    drop(again);
    let order = factor.order();
    let t = Instant::now();
    let ordered = Factorization::new(&system.q_lower, Some(&order))?;
    println!(
        "  symbolic in that order + numeric: {:.3} s",
        t.elapsed().as_secs_f64()
    );
    drop(ordered);
    let mut rhs = system.rhs.clone();
    let t = Instant::now();
    factor.solve_in_place(rhs.as_mut(), 1);
    println!(
        "  solve {} columns: {:.3} s",
        rhs.ncols(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Per-bone timing of the geodesic solver's two stages (`SOLVER` = `geodesic-stages`).
pub fn geodesic_stages(scene: &skinweights::scene::Scene) {
    use skinweights::solvers::internals::bone_seeds;
    use skinweights::solvers::internals::multi_source_dijkstra;
    use skinweights::solvers::internals::Visibility;
    let t = Instant::now();
    let vis = Visibility::new(scene.mesh());
    println!("  visibility structure: {:.3} s", t.elapsed().as_secs_f64());
    for (j, b) in scene.skeleton().bones().iter().enumerate() {
        let t = Instant::now();
        let seeds = bone_seeds(scene, &vis, j);
        let t_seeds = t.elapsed().as_secs_f64();
        let seeded = seeds.iter().filter(|d| d.is_finite()).count();
        let t = Instant::now();
        let _ = multi_source_dijkstra(scene.mesh(), &seeds);
        println!(
            "  {:>12}: seeds {t_seeds:.3} s ({:.0}% visible), dijkstra {:.3} s",
            b.name,
            100.0 * seeded as f64 / seeds.len() as f64,
            t.elapsed().as_secs_f64()
        );
    }
}
