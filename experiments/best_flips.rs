//! Where `best` folds triangles that heat does not: `cargo run --release --features internals --bin best_flips
//! -- SCENE|FILE.json VERTICES [SOLVER,...] [key=value ...]` (`gap=G` sets arms-down's gap) prints, per probe and solver, drag, flips
//! the smallest posed / rest triangle area ratio (how close the pose is to folding, and where)
//! and for each flipped triangle its centroid and the weights of its corners.

mod common;

use common::recipe::best_with_recipe;
use skinweights::metrics::{evaluate, posed_positions};
use skinweights::solvers::Solver;
use skinweights::{scene::builtin_scene, scene::BuiltinOptions, solvers::solver_by_name};

fn main() -> skinweights::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map_or("figure", String::as_str);
    let vertices = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let solvers = args.get(2).map_or("heat,best", String::as_str);
    let mut options: Vec<(String, String)> = args
        .iter()
        .skip(3)
        .filter_map(|a| a.split_once('=').map(|(k, v)| (k.into(), v.into())))
        .collect();
    // `gap=G` is the scene's (arms-down), not the solver's.
    let gap = options
        .iter()
        .position(|(k, _)| k == "gap")
        .and_then(|i| options.remove(i).1.parse().ok());
    // A path ending in `.json` is a scene file (feature `io`), anything else a built-in.
    let scene = if name.ends_with(".json") {
        skinweights::io::load_scene(name)?.0
    } else {
        builtin_scene(
            name,
            &BuiltinOptions::default()
                .with_vertices(vertices)
                .with_gap(gap),
        )?
    };
    let bones = scene.skeleton().bones();
    for s in solvers.split(',') {
        let opts: Vec<(String, String)> = if s == "heat" { vec![] } else { options.clone() };
        // `best` takes its recipe's constants too (feature `internals`).
        let w = if s == "best" {
            let pairs: Vec<(&str, &str)> =
                opts.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            best_with_recipe(&pairs)?.solve(&scene)?
        } else {
            solver_by_name(s, &opts)?.solve(&scene)?
        }
        .weights;
        if let Ok(b) = std::env::var("DUMP_BOX") {
            let f: Vec<f64> = b.split(',').map(|x| x.parse().unwrap()).collect();
            for (v, p) in scene.mesh().vertices().iter().enumerate() {
                if p.x >= f[0] && p.x <= f[1] && p.y >= f[2] && p.y <= f[3] {
                    let row: Vec<String> = (0..w.bone_count())
                        .filter(|&j| w.get(v, j) > 1e-3)
                        .map(|j| format!("{}={:.3}", bones[j].name, w.get(v, j)))
                        .collect();
                    println!("  v{v} ({:.1}, {:.1}): {}", p.x, p.y, row.join(" "));
                }
            }
        }
        for probe in scene.probes() {
            let m = evaluate(&scene, &w, probe)?;
            let posed = posed_positions(&scene, &w, &probe.pose)?;
            let pts = scene.mesh().vertices();
            // The smallest posed / rest area ratio: how close the pose is to folding.
            let (ratio, at) = scene
                .mesh()
                .triangles()
                .iter()
                .map(|t| {
                    let a = |p: &[nalgebra::Point2<f64>]| {
                        (p[t[1]] - p[t[0]]).perp(&(p[t[2]] - p[t[0]]))
                    };
                    (
                        a(&posed) / a(pts),
                        (pts[t[0]].coords + pts[t[1]].coords + pts[t[2]].coords) / 3.0,
                    )
                })
                .fold((f64::INFINITY, nalgebra::Vector2::zeros()), |m, x| {
                    if x.0 < m.0 {
                        x
                    } else {
                        m
                    }
                });
            println!(
                "{s:>6} {:>7}: drag {:.3}% flips {} dirichlet {:.1} min area ratio {ratio:.3} at ({:.1}, {:.1})",
                probe.name, m.drag_max_pct, m.flipped, m.dirichlet, at.x, at.y
            );
            for t in scene.mesh().triangles() {
                let a =
                    |p: &[nalgebra::Point2<f64>]| (p[t[1]] - p[t[0]]).perp(&(p[t[2]] - p[t[0]]));
                if a(&posed) <= 0.0 {
                    let c = (pts[t[0]].coords + pts[t[1]].coords + pts[t[2]].coords) / 3.0;
                    println!(
                        "    fold at ({:.1}, {:.1}) rest area {:.3}",
                        c.x,
                        c.y,
                        a(pts) / 2.0
                    );
                    for &v in t {
                        let row: Vec<String> = (0..w.bone_count())
                            .filter(|&j| w.get(v, j) > 1e-3)
                            .map(|j| format!("{}={:.3}", bones[j].name, w.get(v, j)))
                            .collect();
                        println!(
                            "      v{v} ({:.1}, {:.1}): {}",
                            pts[v].x,
                            pts[v].y,
                            row.join(" ")
                        );
                    }
                }
            }
        }
    }
    Ok(())
}
