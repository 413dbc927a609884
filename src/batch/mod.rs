//! Many characters in, weights and one report out (feature `io`): the library side of
//! `skinweights batch` (docs/batch.md).
//!
//! [`expand_inputs`] turns folders, globs and manifests into candidate files; [`run`] takes
//! each through [`classify`] (scene file, rig, sprite, or no item), loads it as `solve`,
//! `import` or `mesh` would, and per solver solves, writes the weights (the same bytes as
//! `skinweights solve` of the same scene and options), optionally exports the rig in its
//! own format, lints and scores against the artist, each step one of [`crate::pipeline`]'s
//! (the commands' own). Every (item, solver) gives a [`Row`]:
//! a failure of any kind (a bad file, a solver error, even a panic) is a row with its typed
//! error, and the batch goes on.
//!
//! **Parallelism.** `jobs` worker threads each take the next item; each worker runs its
//! solves on a rayon pool of its own with `cores / jobs` threads (1 by default), so the two
//! levels never oversubscribe the machine, and exactly `jobs` items are in memory at a time
//! (rayon's work stealing at the outer level would let a worker waiting inside a solve start
//! another item). Solver results do not depend on the thread count.
//!
//! **Resume.** Each (item, solver) has a key: a hash of the input's bytes (and its sprite's
//! bones file, or a scene's artist file with `--reference artist`), the solver, the options
//! and the output name. After its outputs are written (each whole or not at all), the row is
//! recorded in `OUT/.batch/KEY.json`. A run finding a record whose outputs exist reuses the
//! row (with the time measured when it was computed) instead of computing it: a batch killed
//! at any point resumes where it stopped, and its final report equals an uninterrupted
//! run's. Error rows are recorded too, except I/O errors (which may pass); a changed input
//! or option changes the key and is computed again.
//!
//! **Report.** Rows are appended to `OUT/report.running.csv` as they finish; at the end
//! `OUT/report.csv` and `OUT/report.json` hold every row sorted by input then solver, and the
//! running file is removed.
//!
//! **Elsewhere.** [`run_item`] takes one candidate as [`run`] does, without the report, so
//! that items can run in other processes or machines sharing `OUT` (the Python module's Dask
//! back end); a [`run`] over all of them afterwards reuses their records and writes the
//! report.

mod inputs;
mod key;
mod report;
mod rows;

pub use inputs::{
    bones_beside, classify, expand_inputs, glob, read_manifest, Candidate, ItemKind,
    ITEM_EXTENSIONS, MANIFEST_EXTENSIONS,
};
pub use key::{item_id, normalized, solver_tag, Fnv64};
pub use report::{
    csv_header, csv_line, read_report, to_csv, to_json, variant_name, Row, Stage, Status, COLUMNS,
};

use crate::binding::Bind;
use crate::error::{ArgumentError, Error, Result};
use crate::io::spine::SkinSelection;
use crate::io::write_atomic;
use crate::transfer::SourceSet;
use rows::{process, Done};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Which lint checks run on each row's weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LintMode {
    /// No lint.
    None,
    /// [`crate::lint::lint`]: every check of `skinweights lint` but the pixel-edge rows.
    #[default]
    Geometry,
    /// Also the pixel-edge rows for scenes with art, as `skinweights lint` (renders every
    /// probe at 1x, 2x and 4x: minutes and about 1 GB per Spine rig).
    Full,
}

/// What a batch does per item.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BatchOptions {
    /// The output folder, created if missing (default [`Self::DEFAULT_OUT`], `batch`).
    pub out: PathBuf,
    /// Solver specs, each run on every item (default: [`crate::solvers::RECOMMENDED_SOLVER`]).
    pub solvers: Vec<String>,
    /// Solver options (`key=value`), given to every solver (default none).
    pub solver_options: Vec<(String, String)>,
    /// Keep at most K influences per vertex in the weights written, as `solve` (default
    /// `None`: every influence).
    pub max_influences: Option<usize>,
    /// Approximate vertex count of a sprite's mesh, as `mesh --vertices` (default
    /// [`Self::DEFAULT_SPRITE_VERTICES`], 10 000).
    pub sprite_vertices: usize,
    /// Which Spine attachments are imported (default [`SkinSelection::All`]: every
    /// attachment of every skin, as the benchmark reads them).
    pub skin: SkinSelection,
    /// Also write each rig in its own format with the new weights (default false).
    pub export: bool,
    /// Lint checks run on the weights (default [`LintMode::Geometry`]).
    pub lint: LintMode,
    /// Score against the artist's weights (rigs, and scene files with a
    /// `SCENE.artist.json` beside them; default false).
    pub reference_artist: bool,
    /// How each mesh's bones are chosen (default `None`: [`Bind::Artist`] for a rig whose
    /// own weights bind its meshes, [`Bind::All`] for sprites and scenes without them; see
    /// [`Binding::for_scene`](crate::binding::Binding::for_scene)).
    pub bind: Option<Bind>,
    /// Items solved at a time (default [`Self::DEFAULT_JOBS`], 0: one per core).
    pub jobs: usize,
    /// Ignore the done records: compute every row again (default false).
    pub fresh: bool,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            out: PathBuf::from(Self::DEFAULT_OUT),
            solvers: vec![crate::solvers::RECOMMENDED_SOLVER.to_string()],
            solver_options: Vec::new(),
            max_influences: None,
            sprite_vertices: Self::DEFAULT_SPRITE_VERTICES,
            skin: SkinSelection::All,
            export: false,
            lint: LintMode::default(),
            reference_artist: false,
            bind: None,
            jobs: Self::DEFAULT_JOBS,
            fresh: false,
        }
    }
}

impl BatchOptions {
    /// Default [`Self::out`]: `batch`.
    pub const DEFAULT_OUT: &'static str = "batch";
    /// Default [`Self::sprite_vertices`]: 10 000.
    pub const DEFAULT_SPRITE_VERTICES: usize = 10_000;
    /// Default [`Self::jobs`]: 0, one per core.
    pub const DEFAULT_JOBS: usize = 0;
}

/// A solver spec `transfer:SOURCES` is not a solver: its row's weights are the item's artist
/// weights with each costume transferred from SOURCES ([`SourceSet`], as `skinweights
/// transfer --from`).
pub const TRANSFER_PREFIX: &str = "transfer:";

impl BatchOptions {
    /// Checks the options before any work: every solver builds with the options
    /// ([`SolverError::UnknownSolver`](crate::error::SolverError::UnknownSolver), [`SolverError::InvalidOption`](crate::error::SolverError::InvalidOption)), no solver is given twice or
    /// two specs share a file name, `max_influences` is at least 1.
    pub fn check(&self) -> Result<()> {
        if self.solvers.is_empty() {
            return Err(ArgumentError::MissingArgument {
                argument: "--solver",
                reason: "a batch needs at least one solver".into(),
            }
            .into());
        }
        if self.max_influences == Some(0) {
            return Err(ArgumentError::InvalidArgument {
                argument: "--max-influences",
                value: "0".into(),
                reason: "must be at least 1".into(),
            }
            .into());
        }
        let mut tags = Vec::new();
        for spec in &self.solvers {
            match spec.strip_prefix(TRANSFER_PREFIX) {
                Some(from) => drop(from.parse::<SourceSet>()?),
                None => drop(crate::solvers::solver_by_name(spec, &self.solver_options)?),
            }
            let tag = solver_tag(spec);
            if tags.contains(&tag) {
                return Err(ArgumentError::InvalidArgument {
                    argument: "--solver",
                    value: spec.clone(),
                    reason: format!("given twice (or its file name {tag:?} is another's)"),
                }
                .into());
            }
            tags.push(tag);
        }
        Ok(())
    }

    /// Workers and threads per worker's solver pool on a machine with `cores` cores.
    fn threads(&self, cores: usize) -> (usize, usize) {
        let jobs = if self.jobs == 0 { cores } else { self.jobs }.max(1);
        (jobs, (cores / jobs).max(1))
    }

    /// The options that change a row's outputs, for the resume key.
    fn fingerprint(&self) -> String {
        format!(
            "options={:?} max_influences={:?} sprite_vertices={} skin={:?} export={} lint={:?} reference={} bind={:?}",
            self.solver_options,
            self.max_influences,
            self.sprite_vertices,
            self.skin,
            self.export,
            self.lint,
            self.reference_artist,
            self.bind
        )
    }
}

/// What one finished item reports to [`run`]'s callback.
#[derive(Debug)]
pub struct ItemDone<'a> {
    /// The item's rows (none for a file passed over as no item).
    pub rows: &'a [Row],
    /// Rows taken from done records.
    pub reused: usize,
}

/// The outcome of [`run`].
#[derive(Debug, Clone)]
pub struct Summary {
    /// Every row, sorted by input then solver.
    pub rows: Vec<Row>,
    /// Items (candidates that were items or failed to be read).
    pub items: usize,
    /// Walked files passed over as no item (weights, bones, atlases, PNGs without bones).
    pub skipped: usize,
    /// Rows computed by this run.
    pub computed: usize,
    /// Rows reused from done records.
    pub reused: usize,
    /// Rows with status error.
    pub failed: usize,
    /// Wall time of the run, seconds.
    pub wall_seconds: f64,
    /// Summed `seconds` of the rows computed by this run.
    pub computed_seconds: f64,
    /// Item workers and threads per worker.
    pub jobs: (usize, usize),
    /// `OUT/report.csv`.
    pub report_csv: PathBuf,
    /// `OUT/report.json`.
    pub report_json: PathBuf,
}

/// Runs a batch over `candidates` (from [`expand_inputs`]); `on_item` is called (from a
/// worker thread) as each item finishes. Errors only for what stops the whole batch: bad
/// options, an output folder that cannot be made, a report that cannot be written. Every
/// per-item failure is a row.
pub fn run(
    candidates: &[Candidate],
    options: &BatchOptions,
    on_item: &(dyn Fn(ItemDone<'_>) + Sync),
) -> Result<Summary> {
    options.check()?;
    let started = Instant::now();
    let out = &options.out;
    let records = out.join(".batch");
    std::fs::create_dir_all(&records).map_err(|e| Error::io(&records, e))?;
    remove_partials(out);
    remove_partials(&records);
    let running_path = out.join("report.running.csv");
    let running = Mutex::new(start_running_report(&running_path)?);

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = options.threads(cores);
    let results = run_workers(candidates, options, threads, &running, on_item);
    let mut summary = summarize(results, threads, out);
    write_atomic(&summary.report_json, to_json(&summary.rows)?)?;
    write_atomic(&summary.report_csv, to_csv(&summary.rows))?;
    let _ = std::fs::remove_file(&running_path);
    summary.wall_seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Creates the running report at `path`, its header written.
fn start_running_report(path: &Path) -> Result<std::fs::File> {
    let mut running = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    running
        .write_all(csv_header().as_bytes())
        .map_err(|e| Error::io(path, e))?;
    Ok(running)
}

/// Takes every candidate through [`process`] on `threads.0` workers, each with a rayon pool
/// of `threads.1` threads; each item's rows are appended to `running` and passed to
/// `on_item` as it finishes. The items in the order they finished.
fn run_workers(
    candidates: &[Candidate],
    options: &BatchOptions,
    (jobs, inner): (usize, usize),
    running: &Mutex<std::fs::File>,
    on_item: &(dyn Fn(ItemDone<'_>) + Sync),
) -> Vec<Done> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Done>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(candidates.len()).max(1) {
            s.spawn(|| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(inner).build();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(c) = candidates.get(i) else { break };
                    let work = || process(c, options);
                    let done = match &pool {
                        Ok(pool) => pool.install(work),
                        Err(_) => work(),
                    };
                    if let Ok(mut f) = running.lock() {
                        for r in &done.rows {
                            // The running file is a convenience: a failed append loses nothing.
                            let _ = f.write_all(csv_line(r).as_bytes());
                        }
                        let _ = f.flush();
                    }
                    on_item(ItemDone {
                        rows: &done.rows,
                        reused: done.reused,
                    });
                    if let Ok(mut all) = results.lock() {
                        all.push(done);
                    }
                }
            });
        }
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// The summary of the finished items: their counts and every row, sorted by input then
/// solver (the wall time is left at 0).
fn summarize(results: Vec<Done>, jobs: (usize, usize), out: &Path) -> Summary {
    let mut summary = Summary {
        rows: Vec::new(),
        items: 0,
        skipped: 0,
        computed: 0,
        reused: 0,
        failed: 0,
        wall_seconds: 0.0,
        computed_seconds: 0.0,
        jobs,
        report_csv: out.join("report.csv"),
        report_json: out.join("report.json"),
    };
    for done in results {
        if done.skipped {
            summary.skipped += 1;
            continue;
        }
        summary.items += 1;
        summary.reused += done.reused;
        summary.computed += done.rows.len() - done.reused;
        summary.computed_seconds += done.computed_seconds;
        summary.rows.extend(done.rows);
    }
    summary
        .rows
        .sort_by(|a, b| (&a.input, &a.solver).cmp(&(&b.input, &b.solver)));
    summary.failed = summary
        .rows
        .iter()
        .filter(|r| r.status == Status::Error)
        .count();
    summary
}

/// What [`run_item`] did with one candidate.
#[derive(Debug, Clone)]
pub struct ItemOutcome {
    /// The item's rows, one per solver (none when `skipped`).
    pub rows: Vec<Row>,
    /// Rows taken from done records.
    pub reused: usize,
    /// A file found by a walk or a glob that is no item: passed over.
    pub skipped: bool,
    /// Summed `seconds` of the rows computed (not reused).
    pub computed_seconds: f64,
}

/// One candidate through every solver exactly as [`run`] takes it (the same outputs, done
/// records and rows), on a rayon pool of `threads` threads (0: the global pool), without
/// the batch's report: no `report.*` file is written and no temporary file is removed, so
/// several processes may run different items into one output folder at the same time. A
/// [`run`] over every item afterwards reuses their records and writes the report; the
/// Python module's Dask back end runs one task of this per item.
pub fn run_item(
    candidate: &Candidate,
    options: &BatchOptions,
    threads: usize,
) -> Result<ItemOutcome> {
    options.check()?;
    let records = options.out.join(".batch");
    std::fs::create_dir_all(&records).map_err(|e| Error::io(&records, e))?;
    let work = || process(candidate, options);
    let done = match threads {
        0 => work(),
        n => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
            Ok(pool) => pool.install(work),
            Err(_) => work(),
        },
    };
    Ok(ItemOutcome {
        rows: done.rows,
        reused: done.reused,
        skipped: done.skipped,
        computed_seconds: done.computed_seconds,
    })
}

/// Removes the temporary files of writes a killed run left (`.NAME.partial-PID-N`).
fn remove_partials(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.filter_map(|e| e.ok()) {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') && name.contains(".partial-") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::BatchError;

    #[test]
    fn csv_cells_with_commas_quotes_and_newlines_are_quoted() {
        let mut row = Row::new("a,b.json", "best");
        row.fail(
            Stage::Read,
            &Error::Batch(BatchError::NotAnItem {
                path: "a,b.json".into(),
                reason: "say \"hi\"\nagain".into(),
            }),
        );
        let line = csv_line(&row);
        assert!(line.starts_with("\"a,b.json\",,best,error,\""), "{line}");
        assert!(line.contains("say \"\"hi\"\"\nagain\""), "{line}");
        assert_eq!(to_csv(&[row]).lines().next().unwrap(), COLUMNS.join(","));
    }
}
