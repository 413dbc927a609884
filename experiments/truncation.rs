//! # truncation: what limiting each vertex to 4 influences costs, done right and done wrong
//!
//! On the built-in `figure` (19 bones; hips, collar and shoulders are where several parts
//! meet), each solver (euclidean, geodesic, heat, heat+mask) computes weights. They are
//! exported the way engines store them: influences below 1/255 (zero in an 8-bit weight
//! format) are dropped and the row renormalized; these are the **full** weights. Then:
//!
//! 1. **sort-then-truncate-4** ([`Weights::top_k`]): keep the 4 largest, renormalize (the
//!    seed's rule);
//! 2. **first-4-then-normalize** ([`Weights::first_k_then_normalize`]): keep the first 4
//!    influences in bone order, renormalize (the seed's bug).
//!
//! In each of the figure's probe poses (lift_l, lift_r, kick_r, kick_l) we skin all three with
//! LBS and report the max and mean vertex error against the full weights (% of character
//! height), how many vertices have more than 4 influences (the only ones truncation
//! touches) and how many move by more than 1% of the height.
//!
//! The seed's second trap: export with sort-then-truncate-4 (rows sum to 1), then a runtime
//! that keeps only its own top 3 (or 2) and does **not** renormalize. Rows then sum to less
//! than 1 and every such vertex contracts toward the origin (the figure's feet): we measure
//! the row-sum deficit, the displacement in the rest pose and in the probe poses, and the
//! mesh's area change.
//!
//! Writes `results/truncation/`: `truncation.csv` (solver x scheme x probe),
//! `runtime_shrink.csv` (solver x runtime k x pose), `truncation.json`, and figure
//! `truncation.png|svg`.
//!
//! ```text
//! cargo run --release --bin truncation [-- --out DIR] [--quick]
//! ```

mod common;

use clap::Parser;
use common::{csv_num, main_with, progress, save_png_svg, write_json, write_text, AnyFigure, Res};
use nalgebra::Point2;
use serde::Serialize;
use skinweights::metrics::{area_change_pct, posed_positions};
use skinweights::plot::{Grid, Panel, PoseMap};
use skinweights::skinning::blend_raw;
use skinweights::solvers::solver_by_name;
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Scene, skeleton::Pose, weights::Weights,
};

#[derive(Parser)]
#[command(about = "Truncation to 4 influences: sort-then-truncate vs first-4, and runtime shrink")]
struct Cli {
    #[command(flatten)]
    common: common::CommonArgs,
}

const SOLVERS: [&str; 4] = ["euclidean", "geodesic", "heat", "heat+mask"];
/// Weights below this are not stored (they are 0 in an 8-bit weight format).
const EXPORT_FLOOR: f64 = 1.0 / 255.0;
const K: usize = 4;
/// A vertex "flies" when its error exceeds this share of the character height (%).
const VISIBLE_PCT: f64 = 1.0;

#[derive(Serialize, Clone)]
struct TruncRow {
    solver: String,
    scheme: String,
    probe: String,
    vertices: usize,
    over_4_influences: usize,
    max_err_pct: f64,
    mean_err_pct: f64,
    mean_err_over_truncated_pct: f64,
    moved_over_1pct: usize,
}

#[derive(Serialize, Clone)]
struct ShrinkRow {
    solver: String,
    runtime_k: usize,
    pose: String,
    vertices_short: usize,
    min_row_sum: f64,
    mean_row_sum: f64,
    max_shift_pct: f64,
    mean_shift_pct: f64,
    area_change_pct: f64,
}

#[derive(Serialize)]
struct Output {
    experiment: &'static str,
    scene: String,
    vertices: usize,
    bones: usize,
    export_floor: f64,
    prune_error_max_pct: Vec<(String, f64)>,
    truncation: Vec<TruncRow>,
    runtime_shrink: Vec<ShrinkRow>,
    seconds: f64,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    main_with(|| run(&cli))
}

/// Drops weights below the export floor and renormalizes.
fn export(w: &Weights) -> Weights {
    let mut out = w.clone();
    for row in out.rows_mut_unchecked() {
        for x in row.iter_mut() {
            if *x < EXPORT_FLOOR {
                *x = 0.0;
            }
        }
    }
    out.normalize();
    out
}

/// A runtime that keeps its `k` largest influences and does not renormalize.
fn runtime_truncate(w: &Weights, k: usize) -> Weights {
    let mut out = w.clone();
    let mut idx = Vec::new();
    for row in out.rows_mut_unchecked() {
        idx.clear();
        idx.extend((0..row.len()).filter(|&b| row[b] > 0.0));
        idx.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
        for &b in idx.iter().skip(k) {
            row[b] = 0.0;
        }
    }
    out
}

/// LBS without the division by the weight sum (what such a runtime computes).
fn raw_lbs(scene: &Scene, w: &Weights, pose: &Pose) -> Res<Vec<Point2<f64>>> {
    let s = scene.skeleton().skinning_transforms(pose)?;
    Ok(scene
        .mesh()
        .vertices()
        .iter()
        .zip(w.rows())
        .map(|(v, row)| {
            let infl: Vec<(f64, Point2<f64>)> = row
                .iter()
                .enumerate()
                .filter(|(_, &x)| x > 0.0)
                .map(|(j, &x)| (x, s[j] * v))
                .collect();
            blend_raw(&infl)
        })
        .collect())
}

fn distances(a: &[Point2<f64>], b: &[Point2<f64>]) -> Vec<f64> {
    a.iter().zip(b).map(|(p, q)| (p - q).norm()).collect()
}

fn run(cli: &Cli) -> Res<()> {
    let started = std::time::Instant::now();
    let out = cli.common.out_dir("truncation")?;
    let scene = builtin_scene(
        "figure",
        &BuiltinOptions::default().with_vertices(if cli.common.quick { 3000 } else { 10_000 }),
    )?;
    let h = scene.mesh().height();
    let n = scene.mesh().vertex_count();
    let mut poses: Vec<(String, Pose)> = scene
        .probes()
        .iter()
        .map(|p| (p.name.clone(), p.pose.clone()))
        .collect();
    let probe_count = poses.len();
    poses.insert(0, ("rest".to_string(), Pose::rest()));

    let bar = progress(SOLVERS.len() as u64, "truncation");
    let mut trunc = Vec::new();
    let mut shrink = Vec::new();
    let mut prune = Vec::new();
    let mut figure_panels: Vec<AnyFigure> = Vec::new();
    for name in SOLVERS {
        bar.set_message(format!("truncation: {name}"));
        let raw = solver_by_name(name, skinweights::solvers::NO_OPTIONS)?
            .solve(&scene)?
            .weights;
        let full = export(&raw);
        let counts = full.influence_counts();
        let over: Vec<bool> = counts.iter().map(|&c| c > K).collect();
        let n_over = over.iter().filter(|&&o| o).count();
        let schemes = [
            ("sort-then-truncate-4", full.top_k(K)),
            ("first-4-then-normalize", full.first_k_then_normalize(K)),
        ];
        let mut prune_max: f64 = 0.0;
        for (probe, pose) in poses.iter().skip(1) {
            let reference = posed_positions(&scene, &full, pose)?;
            let exact = posed_positions(&scene, &raw, pose)?;
            prune_max = prune_max.max(
                distances(&reference, &exact)
                    .into_iter()
                    .fold(0.0, f64::max)
                    / h
                    * 100.0,
            );
            for (scheme, w) in &schemes {
                let posed = posed_positions(&scene, w, pose)?;
                let err: Vec<f64> = distances(&posed, &reference)
                    .into_iter()
                    .map(|d| d / h * 100.0)
                    .collect();
                let over_err: Vec<f64> = err
                    .iter()
                    .zip(&over)
                    .filter(|(_, &o)| o)
                    .map(|(e, _)| *e)
                    .collect();
                trunc.push(TruncRow {
                    solver: name.into(),
                    scheme: scheme.to_string(),
                    probe: probe.clone(),
                    vertices: n,
                    over_4_influences: n_over,
                    max_err_pct: err.iter().copied().fold(0.0, f64::max),
                    mean_err_pct: err.iter().sum::<f64>() / n as f64,
                    mean_err_over_truncated_pct: if over_err.is_empty() {
                        0.0
                    } else {
                        over_err.iter().sum::<f64>() / over_err.len() as f64
                    },
                    moved_over_1pct: err.iter().filter(|&&e| e > VISIBLE_PCT).count(),
                });
            }
        }
        prune.push((name.to_string(), prune_max));

        // The second trap: exported top-4, runtime top-k without renormalizing.
        let exported = full.top_k(K);
        for k in [3, 2] {
            let rt = runtime_truncate(&exported, k);
            let sums: Vec<f64> = rt.rows().map(|r| r.iter().sum()).collect();
            for (pose_name, pose) in &poses {
                let good = posed_positions(&scene, &exported, pose)?;
                let bad = raw_lbs(&scene, &rt, pose)?;
                let shift: Vec<f64> = distances(&bad, &good)
                    .into_iter()
                    .map(|d| d / h * 100.0)
                    .collect();
                let good_area = area_change_pct(scene.mesh(), &good);
                let bad_area = area_change_pct(scene.mesh(), &bad);
                shrink.push(ShrinkRow {
                    solver: name.into(),
                    runtime_k: k,
                    pose: pose_name.clone(),
                    vertices_short: sums.iter().filter(|&&s| s < 1.0 - 1e-12).count(),
                    min_row_sum: sums.iter().copied().fold(f64::INFINITY, f64::min),
                    mean_row_sum: sums.iter().sum::<f64>() / n as f64,
                    max_shift_pct: shift.iter().copied().fold(0.0, f64::max),
                    mean_shift_pct: shift.iter().sum::<f64>() / n as f64,
                    // Area relative to the correctly skinned pose, in %.
                    area_change_pct: ((1.0 + bad_area / 100.0) / (1.0 + good_area / 100.0) - 1.0)
                        * 100.0,
                });
            }
        }

        if name == "heat" {
            figure_panels = panels(&scene, &full, &schemes, &over, &exported, &poses)?;
        }
        bar.inc(1);
    }
    bar.finish();

    // Files.
    let mut csv = String::from("solver,scheme,probe,vertices,over_4_influences,max_err_pct,mean_err_pct,mean_err_over_truncated_pct,moved_over_1pct\n");
    for r in &trunc {
        csv += &format!(
            "{},{},{},{},{},{},{},{},{}\n",
            r.solver,
            r.scheme,
            r.probe,
            r.vertices,
            r.over_4_influences,
            csv_num(r.max_err_pct),
            csv_num(r.mean_err_pct),
            csv_num(r.mean_err_over_truncated_pct),
            r.moved_over_1pct
        );
    }
    write_text(&out, "truncation.csv", &csv)?;
    let mut csv = String::from("solver,runtime_k,pose,vertices_short,min_row_sum,mean_row_sum,max_shift_pct,mean_shift_pct,area_change_pct\n");
    for r in &shrink {
        csv += &format!(
            "{},{},{},{},{},{},{},{},{}\n",
            r.solver,
            r.runtime_k,
            r.pose,
            r.vertices_short,
            csv_num(r.min_row_sum),
            csv_num(r.mean_row_sum),
            csv_num(r.max_shift_pct),
            csv_num(r.mean_shift_pct),
            csv_num(r.area_change_pct)
        );
    }
    write_text(&out, "runtime_shrink.csv", &csv)?;
    write_json(
        &out,
        "truncation.json",
        &Output {
            experiment: "truncation",
            scene: scene.name().to_string(),
            vertices: n,
            bones: scene.skeleton().len(),
            export_floor: EXPORT_FLOOR,
            prune_error_max_pct: prune,
            truncation: trunc.clone(),
            runtime_shrink: shrink.clone(),
            seconds: started.elapsed().as_secs_f64(),
        },
    )?;
    save_png_svg(
        &common_grid(&figure_panels),
        &out,
        "truncation",
        (1800, 1050),
    )?;

    // Console summary: worst probe per solver and scheme.
    println!("truncation: wrote {} ({probe_count} probes)", out.display());
    for name in SOLVERS {
        for scheme in ["sort-then-truncate-4", "first-4-then-normalize"] {
            let rs: Vec<&TruncRow> = trunc
                .iter()
                .filter(|r| r.solver == name && r.scheme == scheme)
                .collect();
            let worst = rs
                .iter()
                .max_by(|a, b| a.max_err_pct.total_cmp(&b.max_err_pct));
            if let Some(w) = worst {
                println!(
                    "{name:>10} {scheme:<24} >4 infl: {:>5}  worst probe {:<7} max {:>8.3}% h, mean {:.4}% h, {} vertices > 1% h",
                    w.over_4_influences, w.probe, w.max_err_pct, w.mean_err_pct, w.moved_over_1pct
                );
            }
        }
    }
    for r in shrink
        .iter()
        .filter(|r| r.pose == "rest" || r.pose == "lift_l")
    {
        println!(
            "{:>10} runtime top-{} {:<7} short rows {:>5}, min sum {:.3}, max shift {:.3}% h, area {:+.3}%",
            r.solver, r.runtime_k, r.pose, r.vertices_short, r.min_row_sum, r.max_shift_pct, r.area_change_pct
        );
    }
    Ok(())
}

fn common_grid(panels: &[AnyFigure]) -> Grid<'_, AnyFigure> {
    Grid { panels, columns: 3 }
}

/// Figure panels for one solver: influence counts, the two truncations' errors in the probe
/// pose where first-4 is worst, and the runtime shrink (top-3 and top-2).
fn panels(
    scene: &Scene,
    full: &Weights,
    schemes: &[(&str, Weights); 2],
    over: &[bool],
    exported: &Weights,
    poses: &[(String, Pose)],
) -> Res<Vec<AnyFigure>> {
    let h = scene.mesh().height();
    let mut out = Vec::new();
    // Influence counts on the rest mesh.
    let counts: Vec<Option<f64>> = full
        .influence_counts()
        .iter()
        .map(|&c| Some(c as f64))
        .collect();
    let max_count = counts.iter().flatten().copied().fold(1.0, f64::max);
    out.push(PoseMap::new(
        format!(
            "heat: influences >= 1/255 per vertex ({} have > 4)",
            over.iter().filter(|&&o| o).count()
        ),
        scene,
        scene.mesh().vertices().to_vec(),
        scene.skeleton().posed_segments(&Pose::rest())?,
        &counts,
        max_count,
        "influences",
    ));
    // The probe pose where first-4 errs most.
    let mut worst = (0.0, 1);
    for (i, (_, pose)) in poses.iter().enumerate().skip(1) {
        let r = posed_positions(scene, full, pose)?;
        let p = posed_positions(scene, &schemes[1].1, pose)?;
        let e = distances(&p, &r).into_iter().fold(0.0, f64::max);
        if e > worst.0 {
            worst = (e, i);
        }
    }
    let (probe, pose) = &poses[worst.1];
    let reference = posed_positions(scene, full, pose)?;
    for (scheme, w) in schemes {
        let posed = posed_positions(scene, w, pose)?;
        let err: Vec<Option<f64>> = distances(&posed, &reference)
            .into_iter()
            .map(|d| Some(d / h * 100.0))
            .collect();
        let max = err.iter().flatten().copied().fold(0.0, f64::max);
        out.push(PoseMap::new(
            format!("heat, {scheme}, {probe}: max error {max:.2}% h"),
            scene,
            posed,
            scene.skeleton().posed_segments(pose)?,
            &err,
            5.0,
            "error % h",
        ));
    }
    // Runtime shrink: exported top-4, runtime top-3 / top-2 without renormalizing.
    for (k, (name, pose)) in [(3, &poses[0]), (2, &poses[0]), (2, &poses[worst.1])] {
        let rt = runtime_truncate(exported, k);
        let good = posed_positions(scene, exported, pose)?;
        let bad = raw_lbs(scene, &rt, pose)?;
        let shift: Vec<Option<f64>> = distances(&bad, &good)
            .into_iter()
            .map(|d| Some(d / h * 100.0))
            .collect();
        let max = shift.iter().flatten().copied().fold(0.0, f64::max);
        out.push(PoseMap::new(
            format!("heat, runtime top-{k} unnormalized, {name}: shrink up to {max:.2}% h"),
            scene,
            bad,
            scene.skeleton().posed_segments(pose)?,
            &shift,
            5.0,
            "shift % h",
        ));
    }
    Ok(out
        .into_iter()
        .map(|p| AnyFigure::Mesh(Panel::Pose(p)))
        .collect())
}
