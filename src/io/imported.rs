//! The result every rig importer returns: the scene, the artist's weights and the format's
//! own report.

use crate::io::WeightsFile;
use crate::scene::Scene;
use crate::weights::Weights;

/// What a rig importer produced ([`crate::io::spine::SpineImport`],
/// [`crate::io::dragonbones::DragonBonesImport`], [`crate::io::godot::GodotImport`],
/// [`crate::io::creature::CreatureImport`] and [`crate::io::gltf::GltfImport`] are this with
/// their format's report). `W` is the artist's weights: [`Weights`], or `Option<Weights>` for
/// glTF, whose meshes may carry none.
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
