//! What every export takes ([`ExportOptions`]) and gives ([`Exported`]), so that one table
//! ([`crate::io::FORMATS`]) writes every format.

use crate::error::Result;
use std::path::{Path, PathBuf};

/// The Godot version a scene file is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum GodotVersion {
    /// Godot 3: `format=2`, `Pool*Array`.
    Godot3,
    /// Godot 4: `format=3`, `Packed*Array`. The default.
    #[default]
    Godot4,
}

impl GodotVersion {
    /// The major version, 3 or 4.
    pub fn number(self) -> u32 {
        match self {
            GodotVersion::Godot3 => 3,
            GodotVersion::Godot4 => 4,
        }
    }

    /// The version of major number `n`; `None` for a version the toolkit does not write.
    pub fn from_number(n: u32) -> Option<GodotVersion> {
        match n {
            3 => Some(GodotVersion::Godot3),
            4 => Some(GodotVersion::Godot4),
            _ => None,
        }
    }
}

/// What an export takes, for every format (each reads what applies to it; the table's
/// flags say which: [`crate::io::Format::source`], [`crate::io::Format::influence_limit`],
/// [`crate::io::Format::scales`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ExportOptions {
    /// Spine (optional) and Creature (required, unless [`ExportOptions::source_text`] gives
    /// it): the file the scene was imported from, of which only the weights are rewritten.
    pub source: Option<PathBuf>,
    /// Spine and Creature: the source's text, taken instead of reading
    /// [`ExportOptions::source`] (which, when set too, only names it in errors and the
    /// summary). `None`: the source, if any, is read from its file.
    pub source_text: Option<String>,
    /// Spine: keep at most K influences per vertex (the largest, renormalized); `None`: all.
    pub max_influences: Option<usize>,
    /// Spine with a source: write region attachments the new weights bend as weighted
    /// meshes.
    pub regions_to_meshes: bool,
    /// Godot: the version to write for.
    pub godot: GodotVersion,
    /// glTF: every coordinate multiplied by this (glTF units are metres).
    pub gltf_scale: f64,
    /// glTF: write `extras.skinweights` (bone lengths, parts, influences) so that the
    /// import gets the scene back. Default true.
    pub gltf_extras: bool,
    /// Where the file goes: glTF is binary when it ends in `.glb`, and the summary names
    /// it. `None`: text glTF.
    pub output: Option<PathBuf>,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            source: None,
            source_text: None,
            max_influences: None,
            regions_to_meshes: false,
            godot: GodotVersion::default(),
            gltf_scale: 1.0,
            gltf_extras: true,
            output: None,
        }
    }
}

impl ExportOptions {
    /// Sets [`ExportOptions::source`].
    pub fn with_source(mut self, source: Option<&Path>) -> Self {
        self.source = source.map(Path::to_path_buf);
        self
    }

    /// Sets [`ExportOptions::source_text`]: the source as text (a Spine or Creature file
    /// already read, or made in memory) rather than a file to read.
    pub fn with_source_text(mut self, text: impl Into<String>) -> Self {
        self.source_text = Some(text.into());
        self
    }

    /// Sets [`ExportOptions::max_influences`].
    pub fn with_max_influences(mut self, k: Option<usize>) -> Self {
        self.max_influences = k;
        self
    }

    /// Sets [`ExportOptions::regions_to_meshes`].
    pub fn with_regions_to_meshes(mut self, on: bool) -> Self {
        self.regions_to_meshes = on;
        self
    }

    /// Sets [`ExportOptions::godot`].
    pub fn with_godot(mut self, godot: GodotVersion) -> Self {
        self.godot = godot;
        self
    }

    /// Sets [`ExportOptions::gltf_scale`].
    pub fn with_gltf_scale(mut self, scale: f64) -> Self {
        self.gltf_scale = scale;
        self
    }

    /// Sets [`ExportOptions::gltf_extras`].
    pub fn with_gltf_extras(mut self, extras: bool) -> Self {
        self.gltf_extras = extras;
        self
    }

    /// Sets [`ExportOptions::output`].
    pub fn with_output(mut self, output: &Path) -> Self {
        self.output = Some(output.to_path_buf());
        self
    }

    /// The output's display name for summaries (empty without one).
    pub(crate) fn output_name(&self) -> String {
        self.output
            .as_deref()
            .map_or_else(String::new, |p| p.display().to_string())
    }
}

/// What an export wrote: the file's bytes, a companion atlas, and what to tell the user.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Exported {
    /// The exported file.
    pub bytes: Vec<u8>,
    /// The atlas text to write beside it as `OUTPUT.atlas` (a minimal Spine project with art).
    pub atlas: Option<String>,
    /// Notes on what the format could not keep, said before the summary.
    pub notes: Vec<String>,
    /// What was written, after the output's name (`: 3 parts as ..., 12 bones`).
    pub summary: String,
    /// Notes on what to copy beside the output, said after the summary.
    pub reminders: Vec<String>,
    /// Spine: the mesh attachments whose vertices were written (converted regions
    /// included); 0 for the other formats.
    pub meshes: usize,
    /// Spine: the region attachments written as weighted meshes
    /// ([`ExportOptions::regions_to_meshes`]); 0 for the other formats.
    pub regions_to_meshes: usize,
    /// Spine: the region attachments (part names) the new weights bend, kept rigid because
    /// [`ExportOptions::regions_to_meshes`] is off; empty for the other formats.
    pub bent_regions: Vec<String>,
}

impl Exported {
    /// The file's bytes and a summary, nothing else.
    pub(crate) fn new(bytes: impl Into<Vec<u8>>, summary: String) -> Exported {
        Exported {
            bytes: bytes.into(),
            atlas: None,
            notes: Vec::new(),
            summary,
            reminders: Vec::new(),
            meshes: 0,
            regions_to_meshes: 0,
            bent_regions: Vec::new(),
        }
    }

    /// Writes the file to `path` and the atlas, if any, beside it (`path` with the
    /// extension `.atlas`); each output is written whole or not at all.
    pub fn save(&self, path: &Path) -> Result<()> {
        crate::io::write_atomic(path, &self.bytes)?;
        if let Some(atlas) = &self.atlas {
            crate::io::write_atomic(path.with_extension("atlas"), atlas)?;
        }
        Ok(())
    }
}
