//! # lift_sweep: torso drag and shape distortion vs how far the arm is lifted
//!
//! On the built-in `arms-down` character (gap 12 px, height 200 px, ~10k vertices) every
//! solver (linear, euclidean, geodesic, heat, mask = euclidean+mask, heat+mask) computes
//! weights once; then the left upper arm is lifted from 0 to 180 degrees (the `lift_l` probe
//! is the 90-degree case) and each pose is skinned with LBS. For every angle we measure the
//! **drag** of the torso below y = 120 (max and mean displacement from where the spine alone
//! puts it, % of character height) and the **distortion** of the whole mesh (per triangle,
//! the ratio of the singular values of its deformation gradient; we report the 99th
//! percentile and the max), plus flipped triangles and the area change.
//!
//! Writes `results/lift_sweep/`: `lift_sweep.csv` (one row per angle and solver),
//! `lift_sweep.json`, and `lift.png|svg` (drag, zoomed drag and distortion vs angle).
//!
//! ```text
//! cargo run --release --bin lift_sweep [-- --out DIR] [--quick]
//! ```

mod common;

use clap::Parser;
use common::{
    all_solvers, arms_down, csv_num, json_num, main_with, progress, save_png_svg, solver_series,
    write_json, write_text, AnyFigure, Res,
};
use serde::Serialize;
use skinweights::compare::solve_all;
use skinweights::metrics::evaluate;
use skinweights::plot::{Grid, LineChart, Series};
use skinweights::{scene::Probe, skeleton::Pose};

#[derive(Parser)]
#[command(about = "Torso drag and distortion vs arm lift angle for every solver")]
struct Cli {
    #[command(flatten)]
    common: common::CommonArgs,
}

const GAP: f64 = 12.0;

#[derive(Serialize, Clone)]
struct Row {
    lift_deg: f64,
    solver: String,
    drag_max_pct: f64,
    drag_mean_pct: f64,
    /// `null` when a triangle collapsed (infinite ratio).
    distortion_p99: Option<f64>,
    distortion_max: Option<f64>,
    flipped: usize,
    area_change_pct: f64,
}

#[derive(Serialize)]
struct Output {
    experiment: &'static str,
    scene: &'static str,
    gap_px: f64,
    vertices: usize,
    bone: &'static str,
    angle_convention: &'static str,
    solve_seconds: Vec<(String, f64)>,
    rows: Vec<Row>,
    seconds: f64,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    main_with(|| run(&cli))
}

fn run(cli: &Cli) -> Res<()> {
    let started = std::time::Instant::now();
    let out = cli.common.out_dir("lift_sweep")?;
    let quick = cli.common.quick;
    let scene = arms_down(GAP, if quick { 3000 } else { 10_000 })?;
    let base = scene.probe(Some("lift_l"))?.clone();
    let solvers = all_solvers();
    let step = if quick { 30 } else { 10 };
    let angles: Vec<f64> = (0..=180).step_by(step).map(f64::from).collect();

    let bar = progress(
        (solvers.len() * (angles.len() + 1)) as u64,
        "lift sweep: solving",
    );
    let solved = solve_all(&scene, &solvers, |_, name| {
        bar.set_message(format!("lift sweep: solving {name}"));
        bar.inc(1);
    })?;
    let mut rows = Vec::new();
    for s in &solved {
        bar.set_message(format!("lift sweep: posing {}", s.solver));
        for &deg in &angles {
            // lift_l lifts the left arm outwards with a negative (clockwise) rotation.
            let probe = Probe {
                name: format!("lift_l_{deg}"),
                pose: Pose::rest().rotate("upper_arm_l", -deg),
                watch: base.watch.clone(),
            };
            let m = evaluate(&scene, &s.weights, &probe)?;
            rows.push(Row {
                lift_deg: deg,
                solver: s.solver.clone(),
                drag_max_pct: m.drag_max_pct,
                drag_mean_pct: m.drag_mean_pct,
                distortion_p99: json_num(m.distortion_p99),
                distortion_max: json_num(m.distortion_max),
                flipped: m.flipped,
                area_change_pct: m.area_change_pct,
            });
            bar.inc(1);
        }
    }
    bar.finish();

    let mut csv = String::from(
        "lift_deg,solver,drag_max_pct,drag_mean_pct,distortion_p99,distortion_max,flipped,area_change_pct\n",
    );
    let opt = |v: Option<f64>| v.map_or("inf".to_string(), csv_num);
    for r in &rows {
        csv += &format!(
            "{},{},{},{},{},{},{},{}\n",
            r.lift_deg,
            r.solver,
            csv_num(r.drag_max_pct),
            csv_num(r.drag_mean_pct),
            opt(r.distortion_p99),
            opt(r.distortion_max),
            r.flipped,
            csv_num(r.area_change_pct)
        );
    }
    write_text(&out, "lift_sweep.csv", &csv)?;
    write_json(
        &out,
        "lift_sweep.json",
        &Output {
            experiment: "lift_sweep",
            scene: "arms-down",
            gap_px: GAP,
            vertices: scene.mesh().vertex_count(),
            bone: "upper_arm_l",
            angle_convention: "lift angle in degrees; the pose rotates upper_arm_l by -angle (clockwise: outwards and up)",
            solve_seconds: solved
                .iter()
                .map(|s| (s.solver.clone(), s.seconds))
                .collect(),
            rows: rows.clone(),
            seconds: started.elapsed().as_secs_f64(),
        },
    )?;

    let series = |f: &dyn Fn(&Row) -> Option<f64>| -> Vec<Series> {
        solvers
            .iter()
            .map(|name| {
                let pts = rows
                    .iter()
                    .filter(|r| &r.solver == name)
                    .filter_map(|r| f(r).map(|y| (r.lift_deg, y)))
                    .collect();
                solver_series(name, pts)
            })
            .collect()
    };
    let x_label = "arm lift angle (degrees)";
    let mut full = LineChart::new(
        "Torso drag vs arm lift (arms-down, gap 12 px)",
        x_label,
        "max torso drag (% of height)",
    );
    full.series = series(&|r| Some(r.drag_max_pct));
    let mut zoom = LineChart::new(
        "The same, zoomed to 0-6% of height",
        x_label,
        "max torso drag (% of height)",
    );
    zoom.series = series(&|r| Some(r.drag_max_pct));
    zoom.y_range = Some((-0.2, 6.0));
    let mut dist = LineChart::new(
        "Shape distortion of the whole mesh",
        x_label,
        "distortion p99 (singular-value ratio, 1 = rigid)",
    );
    dist.series = series(&|r| r.distortion_p99);
    dist.log_y = true;
    let panels = [
        AnyFigure::Chart(full),
        AnyFigure::Chart(zoom),
        AnyFigure::Chart(dist),
    ];
    save_png_svg(
        &Grid {
            panels: &panels,
            columns: 3,
        },
        &out,
        "lift",
        (1950, 650),
    )?;

    println!("lift_sweep: wrote {}", out.display());
    println!(
        "{:>10}  {:>6}  {:>12}  {:>14}  {:>7}",
        "solver", "lift", "drag max %h", "distortion p99", "flipped"
    );
    for r in rows
        .iter()
        .filter(|r| [30.0, 90.0, 180.0].contains(&r.lift_deg))
    {
        println!(
            "{:>10}  {:>6}  {:>12.3}  {:>14.3}  {:>7}",
            r.solver,
            r.lift_deg,
            r.drag_max_pct,
            r.distortion_p99.unwrap_or(f64::INFINITY),
            r.flipped
        );
    }
    Ok(())
}
