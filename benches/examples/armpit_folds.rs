//! Where the armpit flips of arms-down's lift_l probe are, and how their count scales with
//! the mesh resolution.
//!
//! ```text
//! cargo run --release -p skinweights-benches --example armpit_folds -- [GAP] [SOLVER ...]
//! ```
//!
//! For 10k, 50k and 200k vertices: the flipped triangles after LBS in lift_l and the largest
//! distance from one of them to a concave corner of the outline (the armpits); and the
//! flips with dual-quaternion skinning of the same weights.

use skinweights::metrics::{flipped_triangles, posed_positions};
use skinweights::skinning::dual_quaternion_skinning;
use skinweights::{scene::builtin_scene, scene::BuiltinOptions, solvers::solver_by_name};

fn main() -> skinweights::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let gap: f64 = args.first().and_then(|g| g.parse().ok()).unwrap_or(12.0);
    let solvers: Vec<&str> = match args.len() {
        0 | 1 => vec!["heat", "best", "bbw"],
        _ => args[1..].iter().map(String::as_str).collect(),
    };
    for vertices in [10_000, 50_000, 200_000] {
        let scene = builtin_scene(
            "arms-down",
            &BuiltinOptions::default()
                .with_vertices(vertices)
                .with_gap(Some(gap)),
        )?;
        let probe = scene.probe(Some("lift_l"))?;
        let (mesh, pts) = (scene.mesh(), scene.mesh().vertices());
        // Concave boundary corners: the outline turns clockwise there.
        let mut corners = Vec::new();
        for lp in mesh.topology().boundary_loops() {
            let k = lp.len();
            for i in 0..k {
                let (a, b, c) = (pts[lp[(i + k - 1) % k]], pts[lp[i]], pts[lp[(i + 1) % k]]);
                let turn = (b - a).perp(&(c - b));
                if turn < -0.3 * (b - a).norm() * (c - b).norm() {
                    corners.push(pts[lp[i]]);
                }
            }
        }
        for &name in &solvers {
            if name == "bbw" && vertices > 50_000 {
                continue; // minutes at 200k: see benches/bbw.rs
            }
            let weights = solver_by_name(name, skinweights::solvers::NO_OPTIONS)?
                .solve(&scene)?
                .weights;
            let posed = posed_positions(&scene, &weights, &probe.pose)?;
            let mut flips = 0;
            let mut farthest = 0.0f64;
            for t in mesh.triangles() {
                let [a, b, c] = t.map(|v| posed[v]);
                if (b - a).perp(&(c - a)) <= 0.0 {
                    flips += 1;
                    let centroid =
                        nalgebra::center(&pts[t[0]], &nalgebra::center(&pts[t[1]], &pts[t[2]]));
                    let d = corners
                        .iter()
                        .map(|c| (centroid - c).norm())
                        .fold(f64::INFINITY, f64::min);
                    farthest = farthest.max(d);
                }
            }
            let dqs = dual_quaternion_skinning(pts, scene.skeleton(), &weights, &probe.pose)?;
            println!(
                "{vertices:>7} vertices  {name:<6} {flips:>3} flipped, all within {farthest:.2} of a \
                 concave corner; with DQS instead of LBS: {} flipped",
                flipped_triangles(mesh, &dqs)
            );
        }
    }
    Ok(())
}
