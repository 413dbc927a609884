//! One item's rows: its resume keys, the rows its records already hold, and each other
//! solver's row computed through the pipeline ([`crate::pipeline`]: load, solve, write,
//! export, lint, score), a failure or panic at any step a row with its typed error.

use super::report::{self, Row, Stage};
use super::{
    classify, item_id, solver_tag, BatchOptions, Candidate, Fnv64, ItemKind, LintMode,
    TRANSFER_PREFIX,
};
use crate::error::{ArgumentError, BatchError, Error, Result};
use crate::io::{ExportOptions, WeightsFile};
use crate::lint::{Check, LintOptions};
use crate::pipeline::{self, Item};
use crate::transfer::SourceSet;
use crate::weights::Weights;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// An item's rows and how many were reused; `skipped`: a walked file that is no item.
pub(super) struct Done {
    pub(super) rows: Vec<Row>,
    pub(super) reused: usize,
    pub(super) skipped: bool,
    /// Summed seconds of the rows computed (not reused).
    pub(super) computed_seconds: f64,
}

/// Runs `f`, a panic caught as [`BatchError::Panicked`].
fn guarded<T>(context: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into());
        Err(BatchError::Panicked {
            context: context.to_string(),
            message,
        }
        .into())
    })
}

/// Whether an error row is recorded (I/O errors are not: they may pass).
fn recordable(e: &Error) -> bool {
    !matches!(
        e,
        Error::Io { .. } | Error::NoSpace { .. } | Error::PermissionDenied { .. }
    )
}

/// The companion files whose bytes are part of an item's key.
fn companions(c: &Candidate, kind: Option<&ItemKind>, options: &BatchOptions) -> Vec<PathBuf> {
    match kind {
        Some(ItemKind::Sprite { bones }) => vec![bones.clone()],
        Some(ItemKind::Scene) if options.reference_artist => {
            vec![c.path.with_extension("artist.json")]
        }
        _ => Vec::new(),
    }
}

/// A failed row for `spec` (the stage it failed at and the error), recorded under `key`
/// when given and the error is [`recordable`].
fn error_row(
    c: &Candidate,
    spec: &str,
    kind: &str,
    (stage, error): (Stage, &Error),
    key: Option<&str>,
    seconds: f64,
    options: &BatchOptions,
) -> Row {
    let mut row = Row::new(&c.input, spec);
    row.kind = kind.to_string();
    row.fail(stage, error);
    row.seconds = seconds;
    if let Some(key) = key {
        row.key = key.to_string();
        if recordable(error) {
            // A record that cannot be written only means the row is computed again.
            let _ = report::write_record(&record_path(options, key), &row);
        }
    }
    row
}

/// One item through every solver.
pub(super) fn process(c: &Candidate, options: &BatchOptions) -> Done {
    let item = ItemRun {
        c,
        options,
        started: Instant::now(),
    };
    if let Some(e) = &c.error {
        return item.failed_all(e);
    }
    if let Ok(m) = std::fs::metadata(&c.path) {
        if !m.is_file() {
            // A device or FIFO could block or never end: never read.
            return item.failed_all(&Error::Batch(BatchError::NotAnItem {
                path: c.path.clone(),
                reason: "not a regular file (a folder, device, FIFO or socket)".into(),
            }));
        }
    }
    let bytes = match std::fs::read(&c.path) {
        Ok(b) => b,
        Err(e) => return item.failed_all(&Error::io(&c.path, e)),
    };
    let kind = match guarded("classifying", || classify(&c.path, &bytes, c.explicit)) {
        Ok(Some(kind)) => Ok(kind),
        Ok(None) => {
            return Done {
                rows: Vec::new(),
                reused: 0,
                skipped: true,
                computed_seconds: 0.0,
            }
        }
        Err(e) => Err(e),
    };
    let id = item_id(&c.path);
    let keys = item.keys(&id, bytes, kind.as_ref().ok());
    let mut rows = item.done_rows(&keys);
    let reused = rows.iter().filter(|r| r.is_some()).count();
    let mut computed_seconds = 0.0;
    if reused < rows.len() {
        computed_seconds = item.compute_rows(&kind, &id, &keys, &mut rows);
    }
    Done {
        rows: rows.into_iter().flatten().collect(),
        reused,
        skipped: false,
        computed_seconds,
    }
}

/// One item being taken through every solver: its candidate, the batch's options, and when
/// its work started (the rows' times count from it).
struct ItemRun<'a> {
    c: &'a Candidate,
    options: &'a BatchOptions,
    started: Instant,
}

impl ItemRun<'_> {
    /// Every solver's row failed with `e`. An input that cannot be read has no key: its rows
    /// are computed again on every run.
    fn failed_all(&self, e: &Error) -> Done {
        let seconds = self.started.elapsed().as_secs_f64();
        let rows: Vec<Row> = self
            .options
            .solvers
            .iter()
            .map(|s| error_row(self.c, s, "", (Stage::Read, e), None, seconds, self.options))
            .collect();
        Done {
            computed_seconds: seconds * rows.len() as f64,
            rows,
            reused: 0,
            skipped: false,
        }
    }

    /// Each solver's resume key: a hash of the options, the item's id and `bytes`, its
    /// companion files, and the solver.
    fn keys(&self, id: &str, bytes: Vec<u8>, kind: Option<&ItemKind>) -> Vec<String> {
        let mut hash = Fnv64::default();
        hash.field("skinweights batch/1")
            .field(env!("CARGO_PKG_VERSION"))
            .field(self.options.fingerprint())
            .field(id)
            .field(&bytes);
        drop(bytes);
        for p in companions(self.c, kind, self.options) {
            match std::fs::read(&p) {
                Ok(b) => hash.field(b"present").field(b),
                Err(_) => hash.field(b"absent"),
            };
        }
        self.options
            .solvers
            .iter()
            .map(|s| hash.clone().field(s).hex())
            .collect()
    }

    /// The rows already done (none with `fresh`), with their outputs present, by key.
    fn done_rows(&self, keys: &[String]) -> Vec<Option<Row>> {
        keys.iter()
            .map(|k| {
                if self.options.fresh {
                    return None;
                }
                report::read_record(&record_path(self.options, k)).filter(|r| {
                    [&r.weights, &r.scene, &r.export]
                        .iter()
                        .all(|p| p.is_empty() || Path::new(p).is_file())
                })
            })
            .collect()
    }

    /// Loads the item (when it was classified) and fills every empty slot of `rows` with
    /// its solver's row; the summed seconds of the rows computed.
    fn compute_rows(
        &self,
        kind: &Result<ItemKind>,
        id: &str,
        keys: &[String],
        rows: &mut [Option<Row>],
    ) -> f64 {
        let (c, options) = (self.c, self.options);
        let kind_name = kind.as_ref().map_or("", ItemKind::name);
        let loaded;
        let outcome = match kind {
            Ok(kind) => {
                loaded = guarded("loading", || load(c, kind, id, options));
                loaded.as_ref().map_err(|e| (Stage::Load, e))
            }
            Err(e) => Err((Stage::Classify, e)),
        };
        let load_seconds = self.started.elapsed().as_secs_f64();
        let mut computed_seconds = 0.0;
        for ((slot, spec), key) in rows.iter_mut().zip(&options.solvers).zip(keys) {
            if slot.is_some() {
                continue;
            }
            let row = match outcome {
                Ok(item) => solved_row(c, item, spec, key, id, kind_name, load_seconds, options),
                Err(failed) => {
                    error_row(c, spec, kind_name, failed, Some(key), load_seconds, options)
                }
            };
            computed_seconds += row.seconds;
            *slot = Some(row);
        }
        computed_seconds
    }
}

/// The row of one solver on a loaded item, recorded unless it failed with an I/O error.
#[allow(clippy::too_many_arguments)]
fn solved_row(
    c: &Candidate,
    item: &Item,
    spec: &str,
    key: &str,
    id: &str,
    kind: &str,
    load_seconds: f64,
    options: &BatchOptions,
) -> Row {
    let t = Instant::now();
    let mut row = Row::new(&c.input, spec);
    row.kind = kind.to_string();
    row.key = key.to_string();
    if let Some(file) = &item.scene_file {
        row.scene = file.display().to_string();
    }
    let mesh = item.scene.mesh();
    row.vertices = Some(mesh.vertex_count());
    row.triangles = Some(mesh.triangle_count());
    row.bones = Some(item.scene.skeleton().len());
    // The stage solve_row is in: where its error (or a panic) stopped it.
    let mut stage = Stage::Solve;
    let result = guarded(spec, || {
        solve_row(item, spec, id, options, &mut row, &mut stage)
    });
    row.seconds = load_seconds + t.elapsed().as_secs_f64();
    let record = match &result {
        Ok(()) => true,
        Err(e) => {
            row.fail(stage, e);
            recordable(e)
        }
    };
    if record {
        if let Err(e) = report::write_record(&record_path(options, key), &row) {
            row.fail(Stage::Record, &e);
        }
    }
    row
}

fn record_path(options: &BatchOptions, key: &str) -> PathBuf {
    options.out.join(".batch").join(format!("{key}.json"))
}

/// The item's scene: a scene file as `solve` loads it; a rig or sprite imported or meshed,
/// written to `OUT/ID.scene.json` and loaded back from it (so the weights are exactly those
/// of `skinweights solve OUT/ID.scene.json`).
fn load(c: &Candidate, kind: &ItemKind, id: &str, options: &BatchOptions) -> Result<Item> {
    let scene_out = options.out.join(format!("{id}.scene.json"));
    match kind {
        ItemKind::Scene => Item::scene_file(&c.path),
        ItemKind::Rig(format) => {
            Item::rig(&c.path, *format, options.skin.clone())?.saved_as(&scene_out)
        }
        ItemKind::Sprite { bones } => {
            Item::sprite(&c.path, bones, options.sprite_vertices)?.saved_as(&scene_out)
        }
    }
}

/// One solver on a loaded item: solve, write the weights (as `solve` does), export, lint,
/// score; fills `row`, and `stage` with each step as it starts (the one an error or panic
/// stopped).
fn solve_row(
    item: &Item,
    spec: &str,
    id: &str,
    options: &BatchOptions,
    row: &mut Row,
    stage: &mut Stage,
) -> Result<()> {
    *stage = Stage::Solve;
    let weights = match spec.strip_prefix(TRANSFER_PREFIX) {
        Some(from) => transferred(item, from, spec, options, row)?,
        None => {
            let solver = crate::solvers::solver_by_name(spec, &options.solver_options)?;
            let binding = pipeline::binding(&item.scene, options.bind, None, item.artist.as_ref())?;
            let solution = pipeline::solve(
                &item.scene,
                solver.as_ref(),
                &binding,
                options.max_influences,
            )?;
            row.warnings = solution.report.warnings.len();
            solution.weights
        }
    };
    *stage = Stage::Write;
    let tag = solver_tag(spec);
    let weights_out = options.out.join(format!("{id}.{tag}.weights.json"));
    let scene = &item.scene;
    WeightsFile::save_weights(
        &weights_out,
        scene.name(),
        spec,
        &scene.skeleton().names(),
        &weights,
    )?;
    row.weights = weights_out.display().to_string();
    if options.export {
        *stage = Stage::Export;
        if let Some(path) = export(item, &weights, &format!("{id}.{tag}"), options)? {
            row.export = path.display().to_string();
        }
    }
    if options.lint != LintMode::None {
        *stage = Stage::Lint;
        lint_row(item, &weights, options, row)?;
    }
    if let (Some(artist), true) = (&item.artist, options.reference_artist) {
        *stage = Stage::Score;
        let scores = pipeline::score(scene, &weights, artist, &item.scored_meshes)?;
        row.artist_meshes = Some(scores.meshes);
        row.artist_agreement_pct = scores.agreement_pct;
        row.artist_weight_distance = scores.weight_distance;
        row.artist_one_bone_mean_pct = scores.one_bone_mean_pct;
        row.artist_one_bone_p95_pct = scores.one_bone_p95_pct;
    }
    Ok(())
}

/// The row's lint columns: with the artist's weights as the reference, a failure they share
/// as badly is the rig's (as `skinweights lint` judges an imported rig): listed, not failed.
fn lint_row(item: &Item, weights: &Weights, options: &BatchOptions, row: &mut Row) -> Result<()> {
    let reference = item.artist.as_ref().filter(|_| options.reference_artist);
    let scene = &item.scene;
    let mut linted = pipeline::lint(scene, weights, reference, &LintOptions::default())?;
    if options.lint == LintMode::Full {
        let edge = crate::render::pixel_edge_lint(scene, weights)?;
        linted.checks.extend(edge.unwrap_or_default());
    }
    let failed: Vec<&Check> = linted.checks.iter().filter(|c| !c.pass).collect();
    let counted = failed.iter().filter(|c| !linted.shared(c)).count();
    row.lint = if counted == 0 { "pass" } else { "fail" }.into();
    row.lint_failed = failed
        .iter()
        .map(|c| {
            if linted.shared(c) {
                format!("{} (as the artist's)", c.check)
            } else {
                c.check.clone()
            }
        })
        .collect::<Vec<_>>()
        .join("; ");
    Ok(())
}

/// A `transfer:` row's weights: the item's artist weights with every costume (an unweighted
/// attachment beside a weighted one in its slot) transferred from `from`, at most
/// `max_influences` per vertex; each fallback note counts as a warning.
fn transferred(
    item: &Item,
    from: &str,
    spec: &str,
    options: &BatchOptions,
    row: &mut Row,
) -> Result<Weights> {
    use crate::transfer::{default_targets, transfer_parts, TransferOptions, TransferTarget};
    let artist = item.artist.as_ref().ok_or_else(|| ArgumentError::InvalidArgument {
        argument: "--transfer-from",
        value: spec.to_string(),
        reason: "the item has no artist weights to transfer (a rig, or a scene with SCENE.artist.json)".into(),
    })?;
    let from: SourceSet = from.parse()?;
    let targets: Vec<TransferTarget> = default_targets(&item.slots)
        .into_iter()
        .map(|part| TransferTarget { part, bones: None })
        .collect();
    let solver = crate::solvers::recommended();
    let (weights, done) = transfer_parts(
        &item.scene,
        artist,
        &item.slots,
        &targets,
        &from,
        &TransferOptions::default(),
        solver.as_ref(),
    )?;
    row.warnings = done.iter().map(|t| t.report.notes.len()).sum();
    Ok(match options.max_influences {
        Some(k) => weights.top_k(k),
        None => weights,
    })
}

/// The rig written in its own format with `weights` to `OUT/STEM...`; `None` for scenes and
/// sprites.
fn export(
    item: &Item,
    weights: &Weights,
    stem: &str,
    options: &BatchOptions,
) -> Result<Option<PathBuf>> {
    let Some(format) = item.rig.map(|f| f.format()) else {
        return Ok(None);
    };
    let path = options.out.join(format!("{stem}{}", format.batch_suffix));
    let export_options = ExportOptions::default()
        .with_source(Some(&item.source))
        .with_max_influences(options.max_influences)
        .with_godot(item.godot.unwrap_or_default())
        .with_output(&path);
    pipeline::export(format, &item.scene, weights, &export_options, &path)?;
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::variant_name;

    #[test]
    fn a_panic_is_a_typed_error_with_its_message() {
        let e = guarded("solving", || -> Result<()> { panic!("boom {}", 7) }).unwrap_err();
        match e {
            Error::Batch(BatchError::Panicked { context, message }) => {
                assert_eq!((context.as_str(), message.as_str()), ("solving", "boom 7"))
            }
            e => panic!("{e:?}"),
        }
        assert_eq!(
            variant_name(&Error::Batch(BatchError::NoMatch {
                pattern: "*".into()
            })),
            "NoMatch"
        );
    }
}
