//! `skinweights.batch`: the library's batch run (`skinweights::batch`, the CLI's
//! `skinweights batch`), its input expansion and its one-item run (for the Dask back end in
//! `skinweights/distributed.py`). Runs with the interpreter detached; prints nothing.

use crate::convert::{self, value_error};
use crate::to_py;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use skinweights::batch::{self as b, BatchOptions, Candidate, ItemDone, LintMode, Row, Status};
use skinweights::io::spine::SkinSelection;
use std::panic::PanicHookInfo;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

type Hook = Box<dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static>;

/// Runs in flight and the panic hook they replaced.
static QUIET: Mutex<(usize, Option<Hook>)> = Mutex::new((0, None));

/// Silences the default panic message while a batch runs (a panicking item is caught and
/// reported as its row's `Panicked` error, as the CLI does); the hook is restored when the
/// last run in flight ends.
struct QuietPanics;

impl QuietPanics {
    fn new() -> Self {
        let mut q = QUIET.lock().unwrap_or_else(|e| e.into_inner());
        if q.0 == 0 {
            q.1 = Some(std::panic::take_hook());
            std::panic::set_hook(Box::new(|_| {}));
        }
        q.0 += 1;
        QuietPanics
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        let mut q = QUIET.lock().unwrap_or_else(|e| e.into_inner());
        q.0 -= 1;
        if q.0 == 0 {
            if let Some(hook) = q.1.take() {
                std::panic::set_hook(hook);
            }
        }
    }
}

/// The options of a batch from the keyword arguments (the CLI's flags).
#[allow(clippy::too_many_arguments)]
fn batch_options(
    out: PathBuf,
    solvers: Option<Vec<String>>,
    options: Option<&Bound<'_, PyAny>>,
    max_influences: Option<usize>,
    export: bool,
    lint: &str,
    reference: Option<&str>,
    vertices: usize,
    skin: &str,
    jobs: Option<usize>,
    fresh: bool,
) -> PyResult<BatchOptions> {
    let lint = match lint {
        "none" => LintMode::None,
        "geometry" => LintMode::Geometry,
        "full" => LintMode::Full,
        other => {
            return Err(value_error(format!(
                "lint must be \"none\", \"geometry\" or \"full\", got {other:?}"
            )))
        }
    };
    let reference_artist = match reference {
        None => false,
        Some("artist") => true,
        Some(other) => {
            return Err(value_error(format!(
                "reference must be None or \"artist\", got {other:?}"
            )))
        }
    };
    let mut o = BatchOptions::default();
    o.out = out;
    o.solvers =
        solvers.unwrap_or_else(|| vec![skinweights::solvers::RECOMMENDED_SOLVER.to_string()]);
    o.solver_options = convert::options(options)?;
    o.max_influences = max_influences;
    o.sprite_vertices = vertices;
    o.skin = SkinSelection::from_arg(skin);
    o.export = export;
    o.lint = lint;
    o.reference_artist = reference_artist;
    o.jobs = jobs.unwrap_or(0);
    o.fresh = fresh;
    o.check().map_err(to_py)?;
    Ok(o)
}

/// Rows as a list of dicts: exactly the objects of `report.json`.
fn rows_to_py<'py>(py: Python<'py>, rows: &[Row]) -> PyResult<Bound<'py, PyAny>> {
    let text = b::to_json(rows).map_err(to_py)?;
    py.import("json")?.call_method1("loads", (text,))
}

/// Runs a batch as `skinweights batch INPUT... --out OUT` does: the same outputs, done
/// records and report.csv / report.json. Returns (rows, summary): rows the report's rows (a
/// list of dicts, sorted by input then solver), summary a dict with items, skipped,
/// computed, reused, failed, wall_seconds, computed_seconds, jobs, threads, report_csv and
/// report_json. `progress(done, total, failed)` is called after each file (from worker
/// threads, holding the GIL); an exception it raises is re-raised when the batch ends.
#[pyfunction]
#[pyo3(signature = (items, out, solvers=None, options=None, max_influences=None, export=false,
    lint="geometry", reference=None, vertices=10_000, skin="all", jobs=None, fresh=false,
    progress=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn batch<'py>(
    py: Python<'py>,
    items: Vec<String>,
    out: PathBuf,
    solvers: Option<Vec<String>>,
    options: Option<&Bound<'py, PyAny>>,
    max_influences: Option<usize>,
    export: bool,
    lint: &str,
    reference: Option<&str>,
    vertices: usize,
    skin: &str,
    jobs: Option<usize>,
    fresh: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let options = batch_options(
        out,
        solvers,
        options,
        max_influences,
        export,
        lint,
        reference,
        vertices,
        skin,
        jobs,
        fresh,
    )?;
    let progress = progress.filter(|p| !p.is_none(py));
    let raised: Mutex<Option<PyErr>> = Mutex::new(None);
    let summary = py.detach(|| {
        let candidates = b::expand_inputs(&items, &options.out);
        let total = candidates.len();
        let done = AtomicUsize::new(0);
        let failed = AtomicUsize::new(0);
        let on_item = |item: ItemDone<'_>| {
            let bad = item
                .rows
                .iter()
                .filter(|r| r.status == Status::Error)
                .count();
            let failed = failed.fetch_add(bad, Ordering::Relaxed) + bad;
            let done = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(cb) = &progress {
                Python::attach(|py| {
                    if let Err(e) = cb.call1(py, (done, total, failed)) {
                        let mut first = raised.lock().unwrap_or_else(|e| e.into_inner());
                        first.get_or_insert(e);
                    }
                });
            }
        };
        let _quiet = QuietPanics::new();
        b::run(&candidates, &options, &on_item)
    });
    let s = summary.map_err(to_py)?;
    if let Some(e) = raised.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let d = PyDict::new(py);
    d.set_item("items", s.items)?;
    d.set_item("skipped", s.skipped)?;
    d.set_item("rows", s.rows.len())?;
    d.set_item("computed", s.computed)?;
    d.set_item("reused", s.reused)?;
    d.set_item("failed", s.failed)?;
    d.set_item("wall_seconds", s.wall_seconds)?;
    d.set_item("computed_seconds", s.computed_seconds)?;
    d.set_item("jobs", s.jobs.0)?;
    d.set_item("threads", s.jobs.1)?;
    d.set_item("report_csv", s.report_csv.display().to_string())?;
    d.set_item("report_json", s.report_json.display().to_string())?;
    Ok((rows_to_py(py, &s.rows)?, d))
}

/// The files a batch of `items` looks at, as `batch` expands them (folders walked, globs
/// expanded, manifests read; `out` and other batch output folders left out): a list of dicts
/// with input (as the report names it), path, explicit (named, not found by a walk), and
/// error / error_kind (an input that cannot be read at all: a glob matching nothing, a
/// manifest that does not parse; None otherwise).
#[pyfunction]
pub(crate) fn expand_inputs<'py>(
    py: Python<'py>,
    items: Vec<String>,
    out: PathBuf,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let candidates = py.detach(|| b::expand_inputs(&items, &out));
    candidates
        .iter()
        .map(|c| {
            let d = PyDict::new(py);
            d.set_item("input", &c.input)?;
            d.set_item("path", c.path.display().to_string())?;
            d.set_item("explicit", c.explicit)?;
            d.set_item("error", c.error.as_ref().map(|e| e.to_string()))?;
            d.set_item("error_kind", c.error.as_ref().map(b::variant_name))?;
            Ok(d)
        })
        .collect()
}

/// One file of a batch through every solver, exactly as `batch` takes it (the same outputs,
/// done records and rows), without writing the report or touching other items' files: what
/// each Dask task runs. `input`, `path` and `explicit` are one entry of `expand_inputs`;
/// `threads` is the size of the solver's thread pool (0: every core). Returns a dict with
/// rows (a list of report rows, empty when skipped), reused, skipped (a walked file that
/// is no item) and computed_seconds (summed seconds of the rows computed, not reused).
#[pyfunction]
#[pyo3(signature = (input, path, explicit, out, solvers=None, options=None, max_influences=None,
    export=false, lint="geometry", reference=None, vertices=10_000, skin="all", fresh=false,
    threads=1))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn batch_item<'py>(
    py: Python<'py>,
    input: String,
    path: PathBuf,
    explicit: bool,
    out: PathBuf,
    solvers: Option<Vec<String>>,
    options: Option<&Bound<'py, PyAny>>,
    max_influences: Option<usize>,
    export: bool,
    lint: &str,
    reference: Option<&str>,
    vertices: usize,
    skin: &str,
    fresh: bool,
    threads: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let options = batch_options(
        out,
        solvers,
        options,
        max_influences,
        export,
        lint,
        reference,
        vertices,
        skin,
        Some(1),
        fresh,
    )?;
    let candidate = Candidate {
        input,
        path,
        explicit,
        error: None,
    };
    let outcome = py
        .detach(|| {
            let _quiet = QuietPanics::new();
            b::run_item(&candidate, &options, threads)
        })
        .map_err(to_py)?;
    let d = PyDict::new(py);
    d.set_item("rows", rows_to_py(py, &outcome.rows)?)?;
    d.set_item("reused", outcome.reused)?;
    d.set_item("skipped", outcome.skipped)?;
    d.set_item("computed_seconds", outcome.computed_seconds)?;
    Ok(d)
}

/// Checks a batch's options without running anything (an unknown solver, a bad option,
/// `max_influences=0`): raises `SkinweightsError` as `batch` would.
#[pyfunction]
#[pyo3(signature = (solvers=None, options=None, max_influences=None, export=false,
    lint="geometry", reference=None, vertices=10_000, skin="all", fresh=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_batch_options(
    solvers: Option<Vec<String>>,
    options: Option<&Bound<'_, PyAny>>,
    max_influences: Option<usize>,
    export: bool,
    lint: &str,
    reference: Option<&str>,
    vertices: usize,
    skin: &str,
    fresh: bool,
) -> PyResult<()> {
    batch_options(
        PathBuf::new(),
        solvers,
        options,
        max_influences,
        export,
        lint,
        reference,
        vertices,
        skin,
        None,
        fresh,
    )
    .map(|_| ())
}
