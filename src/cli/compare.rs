//! `skinweights compare`: solvers x metrics on one scene, tables and the overview figure; with
//! `--clip`, each solver's weights played over the scene's clips instead of a probe.

use super::bones::{chosen_binding, BindArg, BonesArg, ClipMeasure};
use super::warnings::{print_warnings, seconds};
use super::{check_outputs, load_weights_for, resolve_scene, SceneArg};
use crate::cli::error::{CliError, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use skinweights::animation::{Clip, DEFAULT_FPS};
use skinweights::binding::Binding;
use skinweights::compare::{compare_solved, probe_view, solve_all_bound, Comparison, Solved};
use skinweights::metrics::clip::{clips_metrics, ClipMetrics, ClipOptions};
use skinweights::plot::{figure_panels, save_figure, Grid};
use skinweights::scene::{Probe, Scene};
use skinweights::solvers::{solver_by_name, COMPARE_DEFAULTS};
use skinweights::Error;
use skinweights::FormatError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `compare`.
#[derive(Args)]
pub struct CompareArgs {
    #[command(flatten)]
    scene: SceneArg,
    /// Comma-separated solver names (default: every registered solver, listed below).
    #[arg(long, value_delimiter = ',', default_values_t = COMPARE_DEFAULTS.iter().map(|s| s.to_string()))]
    solvers: Vec<String>,
    /// Probe to measure (default: the scene's first probe).
    #[arg(long, conflicts_with = "clip")]
    probe: Option<String>,
    /// Play each solver's weights over a clip of the scene, or `all` of them, instead of a
    /// probe: the clip metrics of `eval --clip` per solver (tables only, no figures).
    #[arg(long)]
    clip: Option<String>,
    /// Reference weights (e.g. the artist's) for the clip deviation.
    #[arg(long, requires = "clip")]
    reference: Option<PathBuf>,
    /// Frames per second clips are sampled at (plus each clip's last frame).
    #[arg(long, default_value_t = DEFAULT_FPS, requires = "clip")]
    fps: f64,
    /// Directory for the table files and figures [default: skinweights-compare, whose files
    /// each run replaces]. Files that already exist in a folder given here are replaced only
    /// with --force (README's are in results/compare: rewrite them with `--out
    /// results/compare --force`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Overwrite table files and figures that already exist in --out.
    #[arg(long)]
    force: bool,
    /// Print JSON instead of the Markdown table.
    #[arg(long)]
    json: bool,
    /// Skip the figures (tables only).
    #[arg(long)]
    no_figures: bool,
    /// Print every solver warning (by default long lists of one kind are summarised).
    #[arg(long)]
    verbose: bool,
    #[command(flatten)]
    bones: BonesArg,
    #[command(flatten)]
    bind: BindArg,
}

/// Where `compare` writes by default: a folder of its own, not the tracked results/compare
/// that README shows, so running the main job in a checkout leaves it clean (the timings
/// change on every run). Each run replaces the previous run's files there, so the main job
/// can be run again without `--force`; a folder given with `--out` is the user's and its
/// files are replaced only with `--force`.
const DEFAULT_OUT: &str = "skinweights-compare";

impl CompareArgs {
    /// The output folder and whether files already in it may be replaced.
    fn output_folder(&self) -> (&Path, bool) {
        match &self.out {
            Some(out) => (out.as_path(), self.force),
            None => (Path::new(DEFAULT_OUT), true),
        }
    }
}

/// The files `compare` writes in `--out`.
const OUTPUT_FILES: [&str; 5] = [
    "compare.md",
    "compare.csv",
    "compare.json",
    "overview.png",
    "overview.svg",
];

/// The files `compare --clip` writes in `--out`.
const CLIP_OUTPUT_FILES: [&str; 2] = ["compare-clip.md", "compare-clip.json"];

/// Runs `compare`.
pub fn run(a: CompareArgs) -> Result<ExitCode> {
    let scene = resolve_scene(a.scene.scene.as_deref(), &a.scene.builtin)?;
    let measure = super::bones::clip_measure(
        &scene,
        a.scene.scene.as_deref(),
        a.probe.as_deref(),
        a.clip.as_deref(),
        a.reference.as_deref(),
    );
    if let Some(m) = measure {
        return run_clips(&a, &scene, &m);
    }
    // Validate names and the probe before spending time on solves.
    let (solvers, no_figures) = (&a.solvers, a.no_figures);
    let (out, replace) = a.output_folder();
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
    check_outputs(&inputs, &outputs_ref, replace)?;
    let steps = solvers.len() as u64 + if no_figures { 0 } else { 1 };
    let binding = chosen_binding(&scene, a.scene.scene.as_deref(), &a.bones, &a.bind)?;
    let (solved, pb) = solve_with_progress(&scene, solvers, &binding, steps)?;
    let table = compare_solved(&scene, &solved, Some(&probe_ref.name))?;
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let write = |name: &str, text: String| -> Result<()> {
        let path = out.join(name);
        Ok(skinweights::io::write_atomic(&path, text)?)
    };
    write("compare.md", table.to_markdown())?;
    write("compare.csv", table.to_csv())?;
    write("compare.json", skinweights::io::comparison_to_json(&table)?)?;
    if !no_figures {
        pb.set_message("drawing figures");
        save_overview(&scene, &solved, probe_ref, &table, out)?;
        pb.inc(1);
    }
    pb.finish_and_clear();
    print_comparison(&a, &table, out)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the overview figure (`overview.png` and `overview.svg` in `out`): each solver's
/// weight map above its probe pose, every pose panel on one colour scale.
fn save_overview(
    scene: &Scene,
    solved: &[Solved],
    probe: &Probe,
    table: &Comparison,
    out: &Path,
) -> Result<()> {
    // One colour scale for every pose panel, so the panels compare at a glance.
    let scale = table
        .rows
        .iter()
        .map(|r| r.metrics.drag_max_pct)
        .fold(1.0, f64::max);
    let mut weight_row = Vec::new();
    let mut pose_row = Vec::new();
    for s in solved {
        let view = probe_view(scene, &s.weights, probe)?;
        let [w, p] = figure_panels(
            scene,
            &s.weights,
            &s.solver,
            &probe.name,
            view,
            scale,
            "drag",
        );
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
    Ok(())
}

/// Prints each solver's warnings, then the table (Markdown, or JSON with `--json`) and what
/// was written.
fn print_comparison(a: &CompareArgs, table: &Comparison, out: &Path) -> Result<()> {
    for r in &table.rows {
        print_warnings(&format!("{}: ", r.solver), &r.warnings, a.verbose);
    }
    if a.json {
        println!("{}", skinweights::io::comparison_to_json(table)?);
    } else {
        print!("{}", table.to_markdown());
        println!(
            "\nwrote {}/compare.{{md,csv,json}}{}",
            out.display(),
            if a.no_figures {
                ""
            } else {
                " and overview.{png,svg}"
            }
        );
    }
    Ok(())
}

/// Solves with a progress bar of `steps` steps (the solves first); returns the bar for the
/// steps after them.
fn solve_with_progress(
    scene: &Scene,
    solvers: &[String],
    binding: &Binding,
    steps: u64,
) -> Result<(Vec<Solved>, ProgressBar)> {
    let pb = ProgressBar::new(steps);
    pb.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} ({elapsed})")
            .expect("valid template"),
    );
    let solved = solve_all_bound(scene, solvers, binding, |i, name| {
        pb.set_position(i as u64);
        pb.set_message(format!("solving {name}"));
    })?;
    pb.set_position(solvers.len() as u64);
    Ok((solved, pb))
}

/// One solver's clip metrics: per clip and over all of them.
struct SolverClips {
    solver: String,
    seconds: f64,
    clips: Vec<ClipMetrics>,
    all: ClipMetrics,
}

/// `compare --clip`: every solver's weights over the chosen clips, measured exactly as
/// `eval --clip` measures one weights file (same library call, same keys).
fn run_clips(a: &CompareArgs, scene: &Scene, m: &ClipMeasure) -> Result<ExitCode> {
    let name = m.clip.as_str();
    for s in &a.solvers {
        solver_by_name(s, skinweights::solvers::NO_OPTIONS)?;
    }
    let clips = chosen_clips(scene, name)?;
    let reference = m
        .reference
        .as_ref()
        .map(|p| load_weights_for(scene, p))
        .transpose()?;
    let options = ClipOptions::default().with_fps(a.fps);
    // Every frame count and key check before the solves: a bad --fps fails at once.
    for c in &clips {
        c.frame_times(a.fps)?;
    }
    let (out, replace) = a.output_folder();
    let outputs: Vec<PathBuf> = CLIP_OUTPUT_FILES.iter().map(|f| out.join(f)).collect();
    let mut inputs: Vec<&Path> = a.scene.scene.iter().map(Path::new).collect();
    inputs.extend(m.reference.iter().map(PathBuf::as_path));
    let outputs_ref: Vec<&Path> = outputs.iter().map(PathBuf::as_path).collect();
    check_outputs(&inputs, &outputs_ref, replace)?;
    let binding = chosen_binding(scene, a.scene.scene.as_deref(), &a.bones, &a.bind)?;
    let (solved, pb) = solve_with_progress(scene, &a.solvers, &binding, a.solvers.len() as u64)?;
    pb.finish_and_clear();
    let rows = solved
        .iter()
        .map(|s| {
            let m = clips_metrics(scene, &s.weights, reference.as_ref(), &clips, &options)?;
            Ok(SolverClips {
                solver: s.solver.clone(),
                seconds: s.seconds,
                all: m.all,
                clips: m.clips,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let doc = json!({
        "scene": scene.name(),
        "clip": name,
        "reference": m.reference.as_ref().map(|p| p.display().to_string()),
        "fps": a.fps,
        "solvers": rows.iter().map(|r| json!({
            "solver": r.solver,
            "seconds": r.seconds,
            "clips": r.clips,
            "all": r.all,
        })).collect::<Vec<_>>(),
    });
    let json_text = serde_json::to_string_pretty(&doc).map_err(|e| {
        Error::Format(FormatError::Json {
            context: "compare --clip".into(),
            message: e.to_string(),
        })
    })?;
    let table = clip_table(scene, name, &rows);
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    skinweights::io::write_atomic(&outputs[0], &table)?;
    skinweights::io::write_atomic(&outputs[1], &json_text)?;
    for s in &solved {
        print_warnings(&format!("{}: ", s.solver), &s.warnings, a.verbose);
    }
    if a.json {
        println!("{json_text}");
    } else {
        print!("{table}");
        println!("\nwrote {}/compare-clip.{{md,json}}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The clip called `name`, or every clip for `all` (an error when the scene has none).
pub(super) fn chosen_clips<'s>(scene: &'s Scene, name: &str) -> Result<Vec<&'s Clip>> {
    match name {
        "all" if scene.clips().is_empty() => Err(CliError::NoClips {
            scene: scene.name().to_string(),
        }),
        "all" => Ok(scene.clips().iter().collect()),
        _ => Ok(vec![scene.clip(name)?]),
    }
}

/// The Markdown table of `compare --clip`: one row per solver, its numbers over the chosen
/// clips (`-`: no reference weights, so no deviation).
fn clip_table(scene: &Scene, name: &str, rows: &[SolverClips]) -> String {
    let f = clip_cell;
    let mut s = format!(
        "scene {}, clip {name}: each solver's weights played over the clip\n\n| solver | \
         frames | deviation max px | p95 px | mean px | max % | worst frame | flipped max | \
         flipped frames | area change max % | time s |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
        scene.name()
    );
    for r in rows {
        let m = &r.all;
        let worst = worst_frame_cell(m);
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.3} | {:.2} |\n",
            r.solver,
            m.frames,
            f(m.deviation_max_px),
            f(m.deviation_p95_px),
            f(m.deviation_mean_px),
            f(m.deviation_max_pct),
            worst,
            m.flipped_max,
            m.flipped_frames,
            m.area_change_max_pct,
            r.seconds
        );
    }
    s
}

/// A deviation cell of the clip tables: 3 decimals, `-` without reference.
pub(super) fn clip_cell(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |x| format!("{x:.3}"))
}

/// The worst-frame cell of the clip tables: clip, frame index and time.
pub(super) fn worst_frame_cell(m: &ClipMetrics) -> String {
    m.worst_frame.as_ref().map_or("-".into(), |w| {
        format!("{} #{} ({} s)", w.clip, w.frame, seconds(w.time))
    })
}
