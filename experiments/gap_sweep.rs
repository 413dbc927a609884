//! # gap_sweep: weight leakage across the arm-torso gap, vs gap width
//!
//! The built-in `arms-down` character (height 200 px, ~10k vertices) is generated with the gap
//! between each arm and the torso set to 0, 2, 4, 8, 12, 24 and 48 px. Every solver (linear,
//! euclidean, geodesic, heat, mask = euclidean+mask, heat+mask) computes weights, and the
//! probe `lift_l` (left upper arm raised to horizontal) measures the leak on the torso below
//! y = 120: **drag** (how far those vertices move from where the spine alone would put them,
//! max and mean, % of character height) and **leaked weight** (mean weight of the moved arm
//! bones on them). Gap 0 is the arms-touching scene: the arm is glued to the torso along its
//! whole length, so geometry cannot separate them and only masks keep the torso still.
//!
//! Writes `results/gap_sweep/`: `gap_sweep.csv` (one row per gap and solver),
//! `gap_sweep.json` (rows plus the checks of issue 5), `leakage.png|svg` (drag and leaked
//! weight vs gap) and `poses.png|svg` (the probe pose at gap 0 and 12 for four solvers).
//!
//! ```text
//! cargo run --release --bin gap_sweep [-- --out DIR] [--quick]
//! ```

mod common;

use clap::Parser;
use common::{
    all_solvers, arms_down, csv_num, main_with, progress, save_png_svg, solver_series, write_json,
    write_text, AnyFigure, Res,
};
use serde::Serialize;
use skinweights::compare::{probe_view, solve_all};
use skinweights::metrics::evaluate;
use skinweights::plot::{figure_panels, Grid, LineChart, Series};

#[derive(Parser)]
#[command(about = "Leakage (torso drag, leaked weight) vs arm-torso gap for every solver")]
struct Cli {
    #[command(flatten)]
    common: common::CommonArgs,
}

const GAPS: [f64; 7] = [0.0, 2.0, 4.0, 8.0, 12.0, 24.0, 48.0];
const PROBE: &str = "lift_l";

#[derive(Serialize, Clone)]
struct Row {
    gap: f64,
    solver: String,
    vertices: usize,
    drag_max_pct: f64,
    drag_mean_pct: f64,
    leaked_weight: f64,
    flipped: usize,
    time_s: f64,
    warnings: Vec<skinweights::solvers::SolveWarning>,
}

#[derive(Serialize)]
struct Check {
    claim: String,
    pass: bool,
    detail: String,
}

#[derive(Serialize)]
struct Output {
    experiment: &'static str,
    scene: &'static str,
    probe: &'static str,
    target_vertices: usize,
    gaps: Vec<f64>,
    solvers: Vec<String>,
    rows: Vec<Row>,
    checks: Vec<Check>,
    seconds: f64,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    main_with(|| run(&cli))
}

fn run(cli: &Cli) -> Res<()> {
    let started = std::time::Instant::now();
    let out = cli.common.out_dir("gap_sweep")?;
    let vertices = if cli.common.quick { 3000 } else { 10_000 };
    let solvers = all_solvers();
    let mut rows = Vec::new();
    let mut pose_panels: Vec<AnyFigure> = Vec::new();
    let shown_gaps = [0.0, 12.0];
    let shown_solvers = ["euclidean", "geodesic", "heat", "heat+mask"];

    let bar = progress((GAPS.len() * solvers.len()) as u64, "gap sweep");
    for &gap in &GAPS {
        let scene = arms_down(gap, vertices)?;
        let probe = scene.probe(Some(PROBE))?;
        let solved = solve_all(&scene, &solvers, |_, name| {
            bar.set_message(format!("gap {gap} px: {name}"));
        })?;
        for s in &solved {
            let m = evaluate(&scene, &s.weights, probe)?;
            rows.push(Row {
                gap,
                solver: s.solver.clone(),
                vertices: scene.mesh().vertex_count(),
                drag_max_pct: m.drag_max_pct,
                drag_mean_pct: m.drag_mean_pct,
                leaked_weight: m.leaked_weight,
                flipped: m.flipped,
                time_s: s.seconds,
                warnings: s.warnings.clone(),
            });
            if shown_gaps.contains(&gap) && shown_solvers.contains(&s.solver.as_str()) {
                let [_, pose] = figure_panels(
                    &scene,
                    &s.weights,
                    &format!("{}, gap {gap} px", s.solver),
                    &probe.name,
                    probe_view(&scene, &s.weights, probe)?,
                    5.0,
                    "drag",
                );
                pose_panels.push(AnyFigure::Mesh(pose));
            }
            bar.inc(1);
        }
    }
    bar.finish();

    // CSV.
    let mut csv = String::from(
        "gap_px,solver,vertices,drag_max_pct,drag_mean_pct,leaked_weight,flipped,time_s\n",
    );
    for r in &rows {
        csv += &format!(
            "{},{},{},{},{},{},{},{}\n",
            r.gap,
            r.solver,
            r.vertices,
            csv_num(r.drag_max_pct),
            csv_num(r.drag_mean_pct),
            csv_num(r.leaked_weight),
            r.flipped,
            csv_num(r.time_s)
        );
    }
    write_text(&out, "gap_sweep.csv", &csv)?;

    // The checks issue 5 states.
    let rows_ref = &rows;
    let of =
        |solver: &str| -> Vec<&Row> { rows_ref.iter().filter(|r| r.solver == solver).collect() };
    let list = |it: &mut dyn Iterator<Item = &Row>, f: &dyn Fn(&Row) -> f64| {
        it.map(|r| format!("gap {}: {:.3}", r.gap, f(r)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut checks = vec![
        Check {
            claim: "euclidean drag max > 20% of height at every gap".into(),
            pass: of("euclidean").iter().all(|r| r.drag_max_pct > 20.0),
            detail: list(&mut of("euclidean").into_iter(), &|r| r.drag_max_pct),
        },
        Check {
            claim: "heat drag max <= 2% of height for gaps >= 4".into(),
            pass: of("heat")
                .into_iter()
                .filter(|r| r.gap >= 4.0)
                .all(|r| r.drag_max_pct <= 2.0),
            detail: list(&mut of("heat").into_iter(), &|r| r.drag_max_pct),
        },
        Check {
            claim: "at gap 0 every solver except the masks leaks (leaked weight > 0.001)".into(),
            pass: rows
                .iter()
                .filter(|r| r.gap == 0.0 && !r.solver.contains("mask"))
                .all(|r| r.leaked_weight > 1e-3),
            detail: rows
                .iter()
                .filter(|r| r.gap == 0.0)
                .map(|r| format!("{}: {:.4}", r.solver, r.leaked_weight))
                .collect::<Vec<_>>()
                .join(", "),
        },
    ];
    for m in ["mask", "heat+mask"] {
        checks.push(Check {
            claim: format!("{m}: drag and leaked weight 0 at every gap"),
            pass: of(m)
                .iter()
                .all(|r| r.drag_max_pct == 0.0 && r.leaked_weight == 0.0),
            detail: list(&mut of(m).into_iter(), &|r| r.drag_max_pct),
        });
    }
    let output = Output {
        experiment: "gap_sweep",
        scene: "arms-down",
        probe: PROBE,
        target_vertices: vertices,
        gaps: GAPS.to_vec(),
        solvers: solvers.clone(),
        rows: rows.clone(),
        checks,
        seconds: started.elapsed().as_secs_f64(),
    };
    write_json(&out, "gap_sweep.json", &output)?;

    // Leakage charts.
    let series = |f: &dyn Fn(&Row) -> f64| -> Vec<Series> {
        solvers
            .iter()
            .map(|s| solver_series(s, of(s).iter().map(|r| (r.gap, f(r))).collect()))
            .collect()
    };
    let x_label = "gap between arm and torso (px; character height 200 px)";
    let mut full = LineChart::new(
        "Torso drag when the left arm lifts (lift_l)",
        x_label,
        "max torso drag (% of height)",
    )
    .legend_upper_right();
    full.series = series(&|r| r.drag_max_pct);
    let mut zoom = LineChart::new(
        "The same, zoomed to 0-6% of height",
        x_label,
        "max torso drag (% of height)",
    )
    .legend_upper_right();
    zoom.series = series(&|r| r.drag_max_pct);
    zoom.y_range = Some((-0.2, 6.0));
    zoom.reference_lines = vec![(2.0, "2% of height".into())];
    let mut leaked = LineChart::new(
        "Arm weight on the watched torso",
        x_label,
        "leaked weight (mean arm weight, 0-1)",
    )
    .legend_upper_right();
    leaked.series = series(&|r| r.leaked_weight);
    let panels = [
        AnyFigure::Chart(full),
        AnyFigure::Chart(zoom),
        AnyFigure::Chart(leaked),
    ];
    save_png_svg(
        &Grid {
            panels: &panels,
            columns: 3,
        },
        &out,
        "leakage",
        (1950, 650),
    )?;

    // Poses: gap 0 on the top row, gap 12 below.
    save_png_svg(
        &Grid {
            panels: &pose_panels,
            columns: shown_solvers.len(),
        },
        &out,
        "poses",
        (2000, 900),
    )?;

    println!("gap_sweep: wrote {}", out.display());
    println!(
        "{:>6}  {:>10}  {:>14}  {:>14}",
        "gap", "solver", "drag max % h", "leaked weight"
    );
    for r in &rows {
        println!(
            "{:>6}  {:>10}  {:>14.3}  {:>14.4}",
            r.gap, r.solver, r.drag_max_pct, r.leaked_weight
        );
    }
    for c in &output.checks {
        println!(
            "{} {} ({})",
            if c.pass { "PASS" } else { "FAIL" },
            c.claim,
            c.detail
        );
    }
    Ok(())
}
