use skinweights::solvers::{Bbw, BbwOptions, Solver, SolverOptions};
use skinweights::{builtin_scene, BuiltinOptions};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = &args[0];
    let n: usize = args[1].parse().unwrap();
    let scene = if name.ends_with(".json") {
        skinweights::io::load_scene(name).unwrap().0
    } else {
        builtin_scene(
            name,
            &BuiltinOptions {
                gap: None,
                vertices: n,
                ..Default::default()
            },
        )
        .unwrap()
    };
    let run = |spec: &str| {
        let mut o = BbwOptions::default();
        for kv in spec.split(',').filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once('=').unwrap();
            o.set(k, v).unwrap();
        }
        let t = std::time::Instant::now();
        let s = Bbw::new(o).solve(&scene).unwrap();
        (s, t.elapsed().as_secs_f64())
    };
    for pair in &args[2..] {
        let (a, b) = pair.split_once('/').unwrap();
        let (sa, ta) = run(a);
        let (sb, tb) = run(b);
        let d = sa
            .weights
            .rows()
            .zip(sb.weights.rows())
            .flat_map(|(x, y)| {
                x.iter()
                    .zip(y)
                    .map(|(p, q)| (p - q).abs())
                    .collect::<Vec<_>>()
            })
            .fold(0.0, f64::max);
        for (v, (x, y)) in sa.weights.rows().zip(sb.weights.rows()).enumerate().take(
            if std::env::var("SHOWV").is_ok() {
                usize::MAX
            } else {
                0
            },
        ) {
            if x.iter().zip(y).any(|(p, q)| (p - q).abs() > 0.1) {
                println!(
                    "vertex {v} at {:?} part {}: {:?} vs {:?}",
                    scene.mesh.vertices()[v],
                    scene.mesh.parts()[scene.mesh.vertex_parts()[v]],
                    x.iter()
                        .enumerate()
                        .filter(|e| *e.1 > 0.0)
                        .collect::<Vec<_>>(),
                    y.iter()
                        .enumerate()
                        .filter(|e| *e.1 > 0.0)
                        .collect::<Vec<_>>()
                );
            }
        }
        println!(
            "{name} {}: {a} {ta:.3}s vs {b} {tb:.3}s: max diff {d:.2e} warnings {:?} {:?}",
            scene.mesh.vertex_count(),
            sa.report.warnings,
            sb.report.warnings
        );
    }
}
