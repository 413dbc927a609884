//! `skinweights batch`: folders, globs and manifests of scenes, rigs and sprites in; weights,
//! exports and one report out, on every core, resumable (docs/batch.md).

use super::parse_options;
use crate::cli::error::Result;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use skinweights::batch::{expand_inputs, BatchOptions, ItemDone, LintMode, Status, Summary};
use skinweights::io::spine::SkinSelection;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

/// The exit code when some rows failed (every other row is done and reported).
pub const SOME_FAILED: u8 = 3;

/// `--lint` values.
#[derive(Clone, Copy, ValueEnum)]
enum LintArg {
    /// No lint.
    None,
    /// Every check of `skinweights lint` but the pixel-edge rows (the default).
    Geometry,
    /// Also the pixel-edge rows for scenes with art, as `lint` (minutes and ~1 GB per
    /// Spine rig).
    Full,
}

/// `--reference` values.
#[derive(Clone, Copy, ValueEnum)]
enum Reference {
    /// The artist's weights in the rig (or SCENE.artist.json beside a scene file), scored
    /// as the benchmark does.
    Artist,
}

/// Arguments of `batch`.
#[derive(Args)]
pub struct BatchArgs {
    /// Inputs: files, folders (walked for .json, .spinejson, .tscn, .gltf, .glb, .png and
    /// .swb files), globs (quoted, e.g. 'rigs/**/*.json') or manifests (.txt/.lst/.list:
    /// one input a line; .json: a list of inputs).
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<String>,
    /// Output folder: weights, scenes, exports, report.csv, report.json and the done
    /// records (.batch/) a re-run resumes from.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Solver (repeatable): each runs on every item (default: the recommended one).
    #[arg(long, default_value = skinweights::solvers::RECOMMENDED_SOLVER)]
    solver: Vec<String>,
    /// Solver option as key=value (repeatable), given to every solver.
    #[arg(long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Keep at most K influences per vertex in the weights (and exports).
    #[arg(long, value_name = "K")]
    max_influences: Option<usize>,
    /// Also write each rig in its own format with the new weights (Spine, Creature,
    /// DragonBones, Godot, glTF).
    #[arg(long)]
    export: bool,
    /// Lint checks run on every row's weights.
    #[arg(long, value_enum, default_value = "geometry")]
    lint: LintArg,
    /// Score the weights against a reference.
    #[arg(long, value_enum)]
    reference: Option<Reference>,
    /// Sprites: approximate vertex count of the mesh (as `mesh --vertices`).
    #[arg(long, default_value_t = BatchOptions::default().sprite_vertices)]
    vertices: usize,
    /// Spine: the skin to import, `default`, or `all` (every attachment of every skin, as
    /// the benchmark reads them).
    #[arg(long, default_value = "all")]
    skin: String,
    #[command(flatten)]
    bind: super::bones::BindArg,
    /// Items solved at a time (default: one per core; each solve gets cores / jobs threads).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Also give every rig a row whose weights are the artist's with each costume (an
    /// unweighted attachment beside a weighted one in its slot) transferred from SOURCES:
    /// `slot`, `all` or `skin:NAME`, as `skinweights transfer --from` (its solver column
    /// reads `transfer:SOURCES`).
    #[arg(long, value_name = "SOURCES")]
    transfer_from: Option<String>,
    /// Ignore the done records of an earlier run: compute every row again.
    #[arg(long)]
    fresh: bool,
}

/// Runs `batch`: exit code 0 when every row is ok, [`SOME_FAILED`] when some failed.
pub fn run(a: BatchArgs) -> Result<ExitCode> {
    let options = batch_options(&a)?;
    let candidates = expand_inputs(&a.inputs, &a.out);
    // indicatif draws nothing when standard error is not a terminal.
    let bar = ProgressBar::new(candidates.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} files, {msg} failed ({elapsed}, ETA {eta})",
        )
        .expect("valid template"),
    );
    bar.set_message("0");
    let failures = AtomicU64::new(0);
    let on_item = |done: ItemDone<'_>| {
        let failed = done
            .rows
            .iter()
            .filter(|r| r.status == Status::Error)
            .count() as u64;
        let total = failures.fetch_add(failed, Ordering::Relaxed) + failed;
        bar.set_message(total.to_string());
        bar.inc(1);
    };
    // A panic is caught and reported as the row's error: keep its default message off the
    // progress bar.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let summary = skinweights::batch::run(&candidates, &options, &on_item);
    std::panic::set_hook(hook);
    bar.finish_and_clear();
    let s = summary?;
    print_summary(&s, options.solvers.len());
    Ok(if s.failed == 0 {
        ExitCode::SUCCESS
    } else if s.failed == s.rows.len() {
        // Nothing could run (a misspelt folder, every input unreadable): as a refused batch.
        ExitCode::from(2)
    } else {
        ExitCode::from(SOME_FAILED)
    })
}

/// The library's options from the arguments, checked.
fn batch_options(a: &BatchArgs) -> Result<BatchOptions> {
    let mut options = BatchOptions::default();
    options.out = a.out.clone();
    options.solvers = a.solver.clone();
    if let Some(from) = &a.transfer_from {
        options
            .solvers
            .push(format!("{}{from}", skinweights::batch::TRANSFER_PREFIX));
    }
    options.solver_options = parse_options(&a.options)?;
    options.max_influences = a.max_influences;
    options.sprite_vertices = a.vertices;
    options.skin = SkinSelection::from_arg(&a.skin);
    options.export = a.export;
    options.lint = match a.lint {
        LintArg::None => LintMode::None,
        LintArg::Geometry => LintMode::Geometry,
        LintArg::Full => LintMode::Full,
    };
    options.reference_artist = a.reference.is_some();
    options.bind = a.bind.bind;
    options.jobs = a.jobs.unwrap_or(0);
    options.fresh = a.fresh;
    options.check()?;
    Ok(options)
}

/// The summary line, and each failed row on standard error.
fn print_summary(s: &Summary, solvers: usize) {
    println!(
        "batch: {} items x {} solvers = {} rows: {} ok, {} failed; {} computed, {} reused; \
         {} files passed over; {:.1} s wall, {:.1} s summed row time ({} workers x {} threads); \
         report {}",
        s.items,
        solvers,
        s.rows.len(),
        s.rows.len() - s.failed,
        s.failed,
        s.computed,
        s.reused,
        s.skipped,
        s.wall_seconds,
        s.computed_seconds,
        s.jobs.0,
        s.jobs.1,
        s.report_csv.display()
    );
    for r in s.rows.iter().filter(|r| r.status == Status::Error) {
        let stage = r.stage.map_or("", |s| s.name());
        eprintln!("error: {} ({}, {stage}): {}", r.input, r.solver, r.error);
    }
}
