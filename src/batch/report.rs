//! The batch report: one [`Row`] per item and solver, written as CSV and JSON, and the
//! per-row done records a re-run resumes from.

use crate::error::{Error, FormatError, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Whether a row's item and solver went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Solved, written, linted and scored.
    Ok,
    /// Something failed: see [`Row::error`].
    Error,
}

/// Where a row's work stopped with its error: the step of the batch it was in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Finding and reading the input file (a glob matching nothing, a missing file, a
    /// folder or device, a read error).
    Read,
    /// Telling what the input is (a file that is no item of any kind it could be).
    Classify,
    /// Importing the rig, meshing the sprite or reading the scene, and writing the item's
    /// scene file.
    Load,
    /// Making the solver from its spec and solving.
    Solve,
    /// Writing the weights file.
    Write,
    /// Writing the rig back in its format (`--export`).
    Export,
    /// Running the lint checks.
    Lint,
    /// Scoring against the artist (`--reference artist`).
    Score,
    /// Writing the row's done record.
    Record,
}

impl Stage {
    /// The stage as the report writes it (`load`, `solve`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Read => "read",
            Stage::Classify => "classify",
            Stage::Load => "load",
            Stage::Solve => "solve",
            Stage::Write => "write",
            Stage::Export => "export",
            Stage::Lint => "lint",
            Stage::Score => "score",
            Stage::Record => "record",
        }
    }
}

/// One item solved by one solver (the columns of `report.csv`, the objects of
/// `report.json`). Paths are the files written, joined to the output folder as given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The input file, as given or found under a given folder.
    pub input: String,
    /// What the input is: `scene`, `sprite`, `spine`, `creature`, `dragonbones`, `godot`,
    /// `gltf` (empty when it could not be told).
    pub kind: String,
    /// The solver spec.
    pub solver: String,
    /// `ok` or `error`.
    pub status: Status,
    /// The error's message (empty when ok).
    pub error: String,
    /// The error's type: the [`Error`] variant (`Json`, `Spine`, `NotAnItem`, `Panicked`,
    /// ...; empty when ok).
    pub error_kind: String,
    /// The weights file written (empty when none was).
    pub weights: String,
    /// The scene the weights belong to: the input itself for a scene file, else the scene
    /// file the batch wrote (the imported rig or meshed sprite).
    pub scene: String,
    /// The rig written back in its own format with the new weights (`--export`; empty
    /// otherwise, and for scenes and sprites, which have no other format).
    pub export: String,
    /// Wall time of the row, in seconds: loading the item plus this solver's solve, writes,
    /// lint and score. A resumed row keeps the time measured when it was computed.
    pub seconds: f64,
    /// Vertices of the scene.
    pub vertices: Option<usize>,
    /// Triangles of the scene.
    pub triangles: Option<usize>,
    /// Bones of the scene.
    pub bones: Option<usize>,
    /// Warnings of the solver.
    pub warnings: usize,
    /// `pass` when every lint check passed, `fail` when one did (empty when lint did not
    /// run).
    pub lint: String,
    /// The failed lint checks, `; `-separated.
    pub lint_failed: String,
    /// `--reference artist`: the artist meshes scored (as the benchmark picks them).
    pub artist_meshes: Option<usize>,
    /// Dominant-bone agreement with the artist over the scored vertices, %.
    pub artist_agreement_pct: Option<f64>,
    /// Mean total-variation weight distance to the artist per scored vertex (0 to 1).
    pub artist_weight_distance: Option<f64>,
    /// One-bone deviation from the artist, mean over (mesh, bone) pairs, % of the mesh
    /// diagonal.
    pub artist_one_bone_mean_pct: Option<f64>,
    /// One-bone deviation from the artist, 95th percentile over (mesh, bone) pairs.
    pub artist_one_bone_p95_pct: Option<f64>,
    /// The resume key: a hash of the input's bytes (and its bones or artist file) and the
    /// options (empty when the input could not be read).
    pub key: String,
    /// Where the row failed (`None` when ok; a record written before this column reads
    /// back as `None`).
    #[serde(default)]
    pub stage: Option<Stage>,
}

impl Row {
    /// A row for `input` and `solver` with nothing filled in yet (status ok).
    pub fn new(input: &str, solver: &str) -> Row {
        Row {
            input: input.to_string(),
            kind: String::new(),
            solver: solver.to_string(),
            status: Status::Ok,
            error: String::new(),
            error_kind: String::new(),
            weights: String::new(),
            scene: String::new(),
            export: String::new(),
            seconds: 0.0,
            vertices: None,
            triangles: None,
            bones: None,
            warnings: 0,
            lint: String::new(),
            lint_failed: String::new(),
            artist_meshes: None,
            artist_agreement_pct: None,
            artist_weight_distance: None,
            artist_one_bone_mean_pct: None,
            artist_one_bone_p95_pct: None,
            key: String::new(),
            stage: None,
        }
    }

    /// Marks the row failed at `stage` with `error` (its message, and its variant as the
    /// kind).
    pub fn fail(&mut self, stage: Stage, error: &Error) {
        self.status = Status::Error;
        self.stage = Some(stage);
        self.error = error.to_string();
        self.error_kind = variant_name(error);
    }

    /// The CSV cells, in [`COLUMNS`] order.
    fn cells(&self) -> Vec<String> {
        let n = |x: Option<usize>| x.map_or(String::new(), |x| x.to_string());
        let f = |x: Option<f64>| x.map_or(String::new(), |x| x.to_string());
        vec![
            self.input.clone(),
            self.kind.clone(),
            self.solver.clone(),
            match self.status {
                Status::Ok => "ok".into(),
                Status::Error => "error".into(),
            },
            self.error.clone(),
            self.error_kind.clone(),
            self.weights.clone(),
            self.scene.clone(),
            self.export.clone(),
            self.seconds.to_string(),
            n(self.vertices),
            n(self.triangles),
            n(self.bones),
            self.warnings.to_string(),
            self.lint.clone(),
            self.lint_failed.clone(),
            n(self.artist_meshes),
            f(self.artist_agreement_pct),
            f(self.artist_weight_distance),
            f(self.artist_one_bone_mean_pct),
            f(self.artist_one_bone_p95_pct),
            self.key.clone(),
            self.stage.map_or(String::new(), |s| s.name().to_string()),
        ]
    }
}

/// The columns of `report.csv`, the fields of [`Row`] in order.
pub const COLUMNS: [&str; 23] = [
    "input",
    "kind",
    "solver",
    "status",
    "error",
    "error_kind",
    "weights",
    "scene",
    "export",
    "seconds",
    "vertices",
    "triangles",
    "bones",
    "warnings",
    "lint",
    "lint_failed",
    "artist_meshes",
    "artist_agreement_pct",
    "artist_weight_distance",
    "artist_one_bone_mean_pct",
    "artist_one_bone_p95_pct",
    "key",
    "stage",
];

/// The name of the variant that says what went wrong ([`Error::variant_name`]): the domain
/// error's variant (`Json`, `NotAnItem`), the format of a rig error (`Spine`), or `Io`.
pub fn variant_name(error: &Error) -> String {
    error.variant_name().to_string()
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The CSV header line (with its newline).
pub fn csv_header() -> String {
    COLUMNS.join(",") + "\n"
}

/// One row as a CSV line (with its newline).
pub fn csv_line(row: &Row) -> String {
    let cells: Vec<String> = row.cells().iter().map(|c| csv_cell(c)).collect();
    cells.join(",") + "\n"
}

/// The whole CSV report.
pub fn to_csv(rows: &[Row]) -> String {
    rows.iter().fold(csv_header(), |s, r| s + &csv_line(r))
}

/// The whole JSON report: a list of rows.
pub fn to_json(rows: &[Row]) -> Result<String> {
    serde_json::to_string_pretty(rows).map_err(|e| {
        Error::Format(FormatError::Json {
            context: "batch report".into(),
            message: e.to_string(),
        })
    })
}

/// Reads a JSON report (`report.json`) back.
pub fn read_report(path: &Path) -> Result<Vec<Row>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    serde_json::from_str(&text).map_err(|e| {
        Error::Format(FormatError::Json {
            context: path.display().to_string(),
            message: e.to_string(),
        })
    })
}

/// Reads a done record; `None` when it is missing or unreadable (the row is then computed
/// again).
pub(crate) fn read_record(path: &Path) -> Option<Row> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// Writes a done record, whole or not at all.
pub(crate) fn write_record(path: &Path, row: &Row) -> Result<()> {
    let text = serde_json::to_string(row).map_err(|e| {
        Error::Format(FormatError::Json {
            context: path.display().to_string(),
            message: e.to_string(),
        })
    })?;
    crate::io::write_atomic(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resumed row must print as the computed one did: every float read back from a done
    /// record is the float written, including ones whose shortest form has 17 digits (which a
    /// plain decimal parse can miss by one ulp).
    #[test]
    fn records_keep_every_float_exactly() {
        let dir = std::env::temp_dir().join(format!("sw-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.json");
        // The value a CI run lost: 0.00048552999999999997 came back as 0.00048553.
        let mut row = Row::new("in.json", "best");
        row.seconds = f64::from_bits(0x3f3f_d1d7_78a2_5326);
        write_record(&path, &row).unwrap();
        assert_eq!(
            read_record(&path).unwrap().seconds.to_bits(),
            row.seconds.to_bits()
        );
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..2000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let nanos = state >> 40;
            let mut row = Row::new("in.json", "best");
            // How `Instant::elapsed().as_secs_f64()` builds the float: not the nearest one.
            let load = std::time::Duration::from_nanos(nanos >> 3).as_secs_f64();
            row.seconds = load + std::time::Duration::from_nanos(nanos).as_secs_f64();
            row.artist_agreement_pct =
                Some(f64::from_bits(0x4054_0000_0000_0000 ^ (state & 0xfff_ffff)));
            write_record(&path, &row).unwrap();
            let back = read_record(&path).unwrap();
            assert_eq!(
                back.seconds.to_bits(),
                row.seconds.to_bits(),
                "{}",
                row.seconds
            );
            assert_eq!(csv_line(&back), csv_line(&row));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
