//! `skinweights compare`: solvers x metrics on one scene, tables and the overview figure.

use super::{check_outputs, resolve_scene, SceneArg};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use skinweights::compare::{compare_solved, figure_panels, solve_all, DEFAULT_SOLVERS};
use skinweights::plot::{save_figure, Grid};
use skinweights::solvers::solver_by_name;
use skinweights::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `compare`.
#[derive(Args)]
pub struct CompareArgs {
    #[command(flatten)]
    scene: SceneArg,
    /// Comma-separated solver names (default: every registered solver, listed below).
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_SOLVERS.iter().map(|s| s.to_string()))]
    solvers: Vec<String>,
    /// Probe to measure (default: the scene's first probe).
    #[arg(long)]
    probe: Option<String>,
    /// Directory for the table files and figures (README's are in results/compare: rewrite
    /// them with `--out results/compare --force`).
    #[arg(long, default_value = DEFAULT_OUT)]
    out: PathBuf,
    /// Overwrite table files and figures that already exist in --out.
    #[arg(long)]
    force: bool,
    /// Print JSON instead of the Markdown table.
    #[arg(long)]
    json: bool,
    /// Skip the figures (tables only).
    #[arg(long)]
    no_figures: bool,
}

/// Where `compare` writes by default: a folder of its own, not the tracked results/compare
/// that README shows, so running the main job in a checkout leaves it clean (the timings
/// change on every run).
const DEFAULT_OUT: &str = "skinweights-compare";

/// The files `compare` writes in `--out`.
const OUTPUT_FILES: [&str; 5] = [
    "compare.md",
    "compare.csv",
    "compare.json",
    "overview.png",
    "overview.svg",
];

/// Runs `compare`.
pub fn run(a: CompareArgs) -> Result<ExitCode> {
    let scene = resolve_scene(a.scene.scene.as_deref(), &a.scene.builtin)?;
    // Validate names and the probe before spending time on solves.
    let (solvers, out, json, no_figures) = (&a.solvers, a.out.as_path(), a.json, a.no_figures);
    for name in solvers {
        solver_by_name(name, skinweights::solvers::NO_OPTIONS)?;
    }
    let probe_ref = scene.probe(a.probe.as_deref())?;
    // Outputs already in --out are replaced only with --force, and never the scene read.
    let written = if no_figures { 3 } else { OUTPUT_FILES.len() };
    let outputs: Vec<PathBuf> = OUTPUT_FILES[..written]
        .iter()
        .map(|name| out.join(name))
        .collect();
    let inputs: Vec<&Path> = a.scene.scene.iter().map(Path::new).collect();
    let outputs_ref: Vec<&Path> = outputs.iter().map(PathBuf::as_path).collect();
    check_outputs(&inputs, &outputs_ref, a.force)?;
    let steps = solvers.len() as u64 + if no_figures { 0 } else { 1 };
    let pb = ProgressBar::new(steps);
    pb.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} ({elapsed})")
            .expect("valid template"),
    );
    let solved = solve_all(&scene, solvers, |i, name| {
        pb.set_position(i as u64);
        pb.set_message(format!("solving {name}"));
    })?;
    pb.set_position(solvers.len() as u64);
    let table = compare_solved(&scene, &solved, Some(&probe_ref.name))?;
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let write = |name: &str, text: String| -> Result<()> {
        let path = out.join(name);
        skinweights::io::write_atomic(&path, text)
    };
    write("compare.md", table.to_markdown())?;
    write("compare.csv", table.to_csv())?;
    write("compare.json", table.to_json()?)?;
    if !no_figures {
        pb.set_message("drawing figures");
        // One colour scale for every pose panel, so the panels compare at a glance.
        let scale = table
            .rows
            .iter()
            .map(|r| r.metrics.drag_max_pct)
            .fold(1.0, f64::max);
        let mut weight_row = Vec::new();
        let mut pose_row = Vec::new();
        for s in &solved {
            let [w, p] = figure_panels(&scene, &s.weights, &s.solver, probe_ref, scale)?;
            weight_row.push(w);
            pose_row.push(p);
        }
        let n = solved.len();
        let panels: Vec<_> = weight_row.into_iter().chain(pose_row).collect();
        let grid = Grid {
            panels: &panels,
            columns: n.max(1),
        };
        let size = (440 * n.max(1) as u32, 900);
        save_figure(&grid, out.join("overview.png"), size)?;
        save_figure(&grid, out.join("overview.svg"), size)?;
        pb.inc(1);
    }
    pb.finish_and_clear();
    for r in &table.rows {
        for w in &r.warnings {
            eprintln!("warning: {}: {w}", r.solver);
        }
    }
    if json {
        println!("{}", table.to_json()?);
    } else {
        print!("{}", table.to_markdown());
        println!(
            "\nwrote {}/compare.{{md,csv,json}}{}",
            out.display(),
            if no_figures {
                ""
            } else {
                " and overview.{png,svg}"
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}
