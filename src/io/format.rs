//! A row of the format table ([`FORMATS`]): what a rig format the toolkit reads and writes
//! is called, how a file is told to be one, and its import and export, each with one
//! signature for every format.
//!
//! Everything that handles "any format" reads the table: [`crate::io::rig::load_rig`],
//! `batch` (what an input is, how a rig is read and written back), and the `import` and
//! `export` commands (their format argument, help and checks). A format's folder in
//! `src/io/` defines its row (`FORMAT`) beside its [`RigFormat`] constant; the table in
//! `src/io/mod.rs` lists the rows, and `docs/formats/NAME.md` is its page.
//!
//! Telling a file's format: a file whose extension a row claims ([`Format::extensions`])
//! is that format; any other file is parsed as JSON and is the format whose
//! [`Format::detect`] holds (the detections exclude each other; each row says what it looks
//! for).

use super::exported::{ExportOptions, Exported};
use super::imported::{ImportOptions, Imported, RigImport, RigReport};
use super::sniff::FileKind;
use super::FORMATS;
use crate::error::{Result, RigFormat};
use crate::scene::Scene;
use crate::weights::Weights;
use serde_json::Value;
use std::path::Path;

/// Whether a format's export takes the file the scene was imported from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Source {
    /// It takes none.
    Never,
    /// It may: the source then keeps everything but the weights.
    Optional,
    /// It must: only the weights of the source are rewritten.
    Required,
}

/// What reads a file of a format.
type Import = fn(&Path, &ImportOptions) -> Result<RigImport>;

/// What writes a scene and weights in a format.
type Export = fn(&Scene, &Weights, &ExportOptions) -> Result<Exported>;

/// One row of the format table.
#[derive(Clone, Copy)]
pub struct Format {
    /// The format, as errors and `batch` name it.
    pub kind: RigFormat,
    /// Lower-case name, as the `import` and `export` commands spell it.
    pub name: &'static str,
    /// Extensions (lower case) that make a file this format whatever its content; JSON
    /// formats claim none and are told apart by [`Format::detect`].
    pub extensions: &'static [&'static str],
    /// `import --help`'s line on it.
    pub import_help: &'static str,
    /// `export --help`'s line on it.
    pub export_help: &'static str,
    /// The kinds of file ([`FileKind`]) it reads, the first when the file is none of them:
    /// what an import error expected.
    pub file_kinds: &'static [FileKind],
    /// Whether every file carries the artist's weights (glTF's may not).
    pub always_weighted: bool,
    /// The solver name of its weights file.
    pub weights_solver: &'static str,
    /// Whether its import takes a skin and an atlas ([`ImportOptions`]).
    pub skins: bool,
    /// Whether its export takes the file the scene was imported from.
    pub source: Source,
    /// Whether its export takes an influence limit ([`ExportOptions::max_influences`]).
    pub influence_limit: bool,
    /// Whether its export scales coordinates ([`ExportOptions::gltf_scale`]); the others
    /// keep pixels.
    pub scales: bool,
    /// Whether an export without a source also writes `OUTPUT.atlas`.
    pub atlas_without_source: bool,
    /// What `batch` appends to an item's stem for the rig written back.
    pub batch_suffix: &'static str,
    /// Whether `transfer -o` writes the rig back: the formats whose costume parts (Spine
    /// skins, DragonBones displays) it carries weights between.
    pub transfer_writes: bool,
    pub(super) detect: Option<fn(&Value) -> bool>,
    pub(super) import: Import,
    pub(super) export: Export,
}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Format")
            .field("kind", &self.kind)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Format {
    /// Whether the parsed JSON document is a file of this format (by its content).
    pub fn detect(&self, json: &Value) -> bool {
        self.detect.is_some_and(|d| d(json))
    }

    /// Reads the file at `path`. Errors: the format's importer's.
    pub fn import(&self, path: &Path, options: &ImportOptions) -> Result<RigImport> {
        (self.import)(path, options)
    }

    /// The scene and its weights as a file of this format. Errors: the format's
    /// exporter's (weights of the wrong shape or not valid, a source that is not the
    /// scene's, a missing required source).
    pub fn export(
        &self,
        scene: &Scene,
        weights: &Weights,
        options: &ExportOptions,
    ) -> Result<Exported> {
        (self.export)(scene, weights, options)
    }

    /// The row named `name` (as the commands spell it).
    pub fn by_name(name: &str) -> Option<&'static Format> {
        FORMATS.iter().find(|f| f.name == name)
    }

    /// The row claiming the extension `ext` (lower case).
    pub fn by_extension(ext: &str) -> Option<&'static Format> {
        FORMATS.iter().find(|f| f.extensions.contains(&ext))
    }

    /// The kind of file an import error expected, given the kind `found`.
    pub fn expected_kind(&self, found: FileKind) -> FileKind {
        if self.file_kinds.contains(&found) {
            found
        } else {
            self.file_kinds
                .first()
                .copied()
                .unwrap_or(FileKind::Unknown)
        }
    }
}

impl RigFormat {
    /// Its row of [`FORMATS`].
    pub fn format(self) -> &'static Format {
        FORMATS
            .iter()
            .find(|f| f.kind == self)
            // A `RigFormat` is made only in its format's folder, beside the row listed here.
            .expect("every RigFormat is the kind of a row of FORMATS")
    }

    /// Lower-case name, as the `import` and `export` commands spell it.
    pub fn name(self) -> &'static str {
        self.format().name
    }

    /// The format of a parsed JSON document, by its content (see the module docs); `None`
    /// for JSON that is none of the JSON rig formats.
    pub fn of_json(json: &Value) -> Option<RigFormat> {
        FORMATS.iter().find(|f| f.detect(json)).map(|f| f.kind)
    }

    /// The format of the file at `path` whose bytes are `bytes`: by extension when a
    /// format claims it, else by content. `Ok(None)`: valid JSON that is no rig. Errors:
    /// JSON that does not parse ([`FormatError::Json`](crate::error::FormatError::Json),
    /// naming the file).
    pub fn of_file(path: &Path, bytes: &[u8]) -> Result<Option<RigFormat>> {
        if let Some(f) = Format::by_extension(&extension(path)) {
            return Ok(Some(f.kind));
        }
        Ok(RigFormat::of_json(&parse_json(path, bytes)?))
    }
}

/// The lower-case extension of `path` (empty when it has none).
pub(crate) fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Parses `bytes` as JSON (a UTF-8 byte order mark skipped, as the importers do); errors
/// name the file.
pub(crate) fn parse_json(path: &Path, bytes: &[u8]) -> Result<Value> {
    crate::io::json_path::parse_json(bytes, &path.display().to_string())
}

/// An importer's result with its report boxed and its weights optional.
pub(super) fn boxed<R: RigReport + 'static>(i: Imported<R>) -> RigImport {
    Imported {
        scene: i.scene,
        artist: Some(i.artist),
        report: Box::new(i.report),
    }
}
