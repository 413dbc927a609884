//! A rig made by another tool, read whatever its format: what the benchmark, `batch` and
//! `transfer` score and carry, through the format table ([`crate::io::FORMATS`]).
//!
//! [`RigFormat::of_file`](crate::RigFormat::of_file) tells the format; [`load_rig`] then
//! imports it with the artist's weights and, per artist mesh, the bones the artist bound it
//! to ([`RigReport::scored_meshes`](crate::io::RigReport::scored_meshes)): what
//! [`crate::metrics::artist`] scores a solver on.

use super::spine::SkinSelection;
use super::{ImportOptions, RigImport};
use crate::error::{Result, RigFormat};
use crate::scene::Scene;
use crate::weights::Weights;
use std::path::Path;

/// Imports the rig at `path` in `format` (Spine with the attachments `skin` selects; the
/// atlas beside the file when there is one).
///
/// Errors: the format importer's.
pub fn load_rig(path: &Path, format: RigFormat, skin: SkinSelection) -> Result<RigImport> {
    format
        .format()
        .import(path, &ImportOptions::default().with_skin(skin))
}

/// The bones (scene order) some vertex of `vertices` has a weight on in `artist`.
pub(crate) fn weighted_bones(
    scene: &Scene,
    artist: &Weights,
    vertices: impl Iterator<Item = usize> + Clone,
) -> Vec<String> {
    let names = scene.skeleton().names();
    (0..names.len())
        .filter(|&b| vertices.clone().any(|v| artist.get(v, b) > 0.0))
        .map(|b| names[b].clone())
        .collect()
}

/// Each part of `scene` whose `artist` weights use two or more bones, with those bones: the
/// artist meshes of a scene whose importer lists none (glTF, or a scene file with its
/// `SCENE.artist.json`).
pub fn weighted_parts(scene: &Scene, artist: &Weights) -> Vec<(String, Vec<String>)> {
    let parts = scene.mesh().vertex_parts();
    scene
        .mesh()
        .parts()
        .iter()
        .enumerate()
        .filter_map(|(p, name)| {
            let vertices = (0..parts.len()).filter(move |&v| parts[v] == p);
            let bones = weighted_bones(scene, artist, vertices);
            (bones.len() >= 2).then(|| (name.clone(), bones))
        })
        .collect()
}
