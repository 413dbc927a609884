//! The result every rig importer returns: the scene, the artist's weights and the format's
//! own report; what every report tells ([`RigReport`]) and the options every import takes
//! ([`ImportOptions`]), so that one table ([`crate::io::FORMATS`]) reads every format.

use super::exported::GodotVersion;
use super::spine::SkinSelection;
use crate::error::Result;
use crate::io::WeightsFile;
use crate::scene::Scene;
use crate::transfer::SlotPart;
use crate::weights::Weights;
use std::fmt;
use std::path::{Path, PathBuf};

/// What a rig importer produced ([`crate::io::spine::SpineImport`],
/// [`crate::io::dragonbones::DragonBonesImport`], [`crate::io::godot::GodotImport`],
/// [`crate::io::creature::CreatureImport`] and [`crate::io::gltf::GltfImport`] are this with
/// their format's report; [`RigImport`] with any format's). `W` is the artist's weights:
/// [`Weights`], or `Option<Weights>` for glTF, whose meshes may carry none.
#[derive(Debug, Clone)]
pub struct Imported<R, W = Weights> {
    /// The character: one part per imported mesh, the skeleton in its rest pose, clips, art
    /// and `lift_*` probes where the format has them.
    pub scene: Scene,
    /// The artist's weights (columns in the scene's bone order), after the report's repairs.
    pub artist: W,
    /// What was read, repaired and left out, in the format's terms.
    pub report: R,
}

impl<R> Imported<R> {
    /// The artist's weights as a weights file (solver `"artist"`).
    pub fn artist_file(&self) -> WeightsFile {
        WeightsFile::artist(&self.scene, &self.artist)
    }
}

/// What every format's import report tells, whatever the format; its `Display` is what
/// `skinweights import` prints.
pub trait RigReport: fmt::Display + fmt::Debug + Send + Sync {
    /// Repairs and things left out, in words.
    fn notes(&self) -> &[String];

    /// The artist meshes a solver is scored on ([`crate::metrics::artist`]): each part with
    /// the bones (scene order) its artist bound it to. DragonBones and Godot: every mesh;
    /// Creature: the regions with two or more bones; Spine: the weighted attachments whose
    /// artist weights use two or more bones; glTF: each part whose weights use two or more.
    fn scored_meshes(&self) -> Vec<(String, Vec<String>)>;

    /// Per imported attachment of a format with slots (Spine, DragonBones): its part, its
    /// slot and whether the file weights it. Parts drawn in one slot are one part's costumes
    /// ([`crate::transfer::slot_partners`]).
    fn slots(&self) -> Vec<SlotPart> {
        Vec::new()
    }

    /// The Godot version a Godot file is written for (`None` for other formats).
    fn godot(&self) -> Option<GodotVersion> {
        None
    }

    /// Notes its `Display` leaves out (glTF's), for the caller to show on their own.
    fn unshown_notes(&self) -> &[String] {
        &[]
    }

    /// Writes the images the file embeds into `dir` and points `scene`'s art at them;
    /// refuses to overwrite a file unless `force`. Returns the paths written (none for a
    /// format whose images are files).
    fn write_embedded_images(
        &self,
        _scene: &mut Scene,
        _dir: &Path,
        _force: bool,
    ) -> Result<Vec<PathBuf>> {
        Ok(Vec::new())
    }
}

/// A rig read through the format table, whatever its format: the artist's weights are
/// `None` for a glTF file without weights.
pub type RigImport = Imported<Box<dyn RigReport>, Option<Weights>>;

impl RigImport {
    /// Writes the images the file embeds beside the scene (see
    /// [`RigReport::write_embedded_images`]).
    pub fn write_embedded_images(&mut self, dir: &Path, force: bool) -> Result<Vec<PathBuf>> {
        self.report
            .write_embedded_images(&mut self.scene, dir, force)
    }
}

/// What an import takes, for every format (each reads what applies to it).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ImportOptions {
    /// Spine: which attachments to import. Default: the default skin.
    pub skin: SkinSelection,
    /// Spine: the atlas; default: `NAME.atlas` beside the file when it exists.
    pub atlas: Option<PathBuf>,
}

impl ImportOptions {
    /// Sets [`ImportOptions::skin`].
    pub fn with_skin(mut self, skin: SkinSelection) -> Self {
        self.skin = skin;
        self
    }

    /// Sets [`ImportOptions::atlas`].
    pub fn with_atlas(mut self, atlas: Option<PathBuf>) -> Self {
        self.atlas = atlas;
        self
    }
}
