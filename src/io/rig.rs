//! A rig made by another tool, read whatever its format: what `import` does per format, and
//! what the benchmark scores against, behind one call.
//!
//! [`RigFormat::of_file`] tells the format by the extension and the content: `.tscn` is
//! Godot, `.gltf`/`.glb` glTF; a JSON file is Spine when its `skeleton` names a `spine`
//! version, Creature when it has `mesh.regions` beside a `skeleton`, DragonBones when it has
//! an `armature` list. [`load_rig`] then imports it with the artist's weights and, per
//! artist mesh, the bones the artist bound it to ([`RigImport::meshes`]): what
//! [`crate::metrics::artist`] scores a solver on.

use super::creature::load_creature;
use super::dragonbones::load_dragonbones;
use super::gltf::import_gltf;
use super::godot::load_godot;
use super::spine::{load_spine, SkinSelection, SpineImport, SpineImportOptions};
use crate::error::Result;
use crate::scene::Scene;
use crate::transfer::SlotPart;
use crate::weights::Weights;
use std::path::Path;

/// A rig format the toolkit imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RigFormat {
    /// Spine 4.x JSON.
    Spine,
    /// Creature JSON.
    Creature,
    /// DragonBones 5.5 JSON (`*_ske.json`).
    DragonBones,
    /// Godot 3 or 4 text scene (`.tscn`).
    Godot,
    /// glTF 2.0 (`.gltf`).
    Gltf,
}

impl RigFormat {
    /// Lower-case name, as the `import` and `export` commands spell it.
    pub fn name(self) -> &'static str {
        match self {
            RigFormat::Spine => "spine",
            RigFormat::Creature => "creature",
            RigFormat::DragonBones => "dragonbones",
            RigFormat::Godot => "godot",
            RigFormat::Gltf => "gltf",
        }
    }

    /// The format of a parsed JSON document, by its content (see the module docs); `None`
    /// for JSON that is none of the JSON rig formats.
    pub fn of_json(json: &serde_json::Value) -> Option<RigFormat> {
        if json["skeleton"]["spine"].is_string() {
            Some(RigFormat::Spine)
        } else if json["mesh"]["regions"].is_object() && json["skeleton"].is_object() {
            Some(RigFormat::Creature)
        } else if json["armature"].is_array() {
            Some(RigFormat::DragonBones)
        } else {
            None
        }
    }

    /// The format of the file at `path` whose bytes are `bytes`: by extension for Godot and
    /// glTF, else by content. `Ok(None)`: valid JSON that is no rig. Errors: JSON that does
    /// not parse ([`FormatError::Json`](crate::error::FormatError::Json), naming the file).
    pub fn of_file(path: &Path, bytes: &[u8]) -> Result<Option<RigFormat>> {
        match extension(path).as_str() {
            "tscn" => return Ok(Some(RigFormat::Godot)),
            "gltf" | "glb" => return Ok(Some(RigFormat::Gltf)),
            _ => {}
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
pub(crate) fn parse_json(path: &Path, bytes: &[u8]) -> Result<serde_json::Value> {
    crate::io::json_path::parse_json(bytes, &path.display().to_string())
}

/// A rig read by [`load_rig`].
#[derive(Debug, Clone)]
pub struct RigImport {
    /// Its format.
    pub format: RigFormat,
    /// The character, as `import` writes it.
    pub scene: Scene,
    /// The artist's weights (`None`: a glTF file without weights).
    pub artist: Option<Weights>,
    /// Per artist mesh scored against the artist: its part name and the artist's bone names
    /// (see [`load_rig`] for which meshes).
    pub meshes: Vec<(String, Vec<String>)>,
    /// Notes of the import (repairs, things left out).
    pub notes: Vec<String>,
    /// Per imported attachment of a format with slots (Spine, DragonBones): its part, its
    /// slot and whether the file weights it. Parts drawn in one slot are one part's costumes
    /// ([`crate::transfer::slot_partners`]).
    pub slots: Vec<SlotPart>,
    /// Godot only: the Godot version the file is written for (3 or 4).
    pub godot: Option<u32>,
}

/// Imports the rig at `path` in `format` (Spine with the attachments `skin` selects; the
/// atlas beside the file when there is one). The scored meshes ([`RigImport::meshes`]) are
/// the importers' meshes with their bones: DragonBones and Godot every mesh; Creature the
/// regions with two or more bones; Spine the weighted attachments whose artist weights use
/// two or more bones; glTF each part whose artist weights use two or more bones.
///
/// Errors: the format importer's.
pub fn load_rig(path: &Path, format: RigFormat, skin: SkinSelection) -> Result<RigImport> {
    let mut slots = Vec::new();
    let (scene, artist, meshes, notes, godot) = match format {
        RigFormat::Creature => {
            let c = load_creature(path)?;
            let meshes = c
                .report
                .meshes
                .iter()
                .filter(|m| m.bones.len() >= 2)
                .map(|m| (m.part.clone(), m.bones.clone()))
                .collect();
            (c.scene, Some(c.artist), meshes, c.report.notes, None)
        }
        RigFormat::Spine => {
            let s = load_spine(path, None, &SpineImportOptions::default().with_skin(skin))?;
            let meshes = spine_meshes(&s);
            slots = s
                .report
                .attachments
                .iter()
                .map(|a| {
                    SlotPart::new(&a.part, &a.slot, a.weighted)
                        .in_skin(&a.skin)
                        .on_bone(Some(&a.slot_bone))
                })
                .collect();
            (s.scene, Some(s.artist), meshes, s.report.notes, None)
        }
        RigFormat::Godot => {
            let g = load_godot(path)?;
            let meshes = g
                .report
                .meshes
                .iter()
                .map(|m| (m.part.clone(), m.bones.clone()))
                .collect();
            (
                g.scene,
                Some(g.artist),
                meshes,
                g.report.notes,
                Some(g.report.godot),
            )
        }
        RigFormat::DragonBones => {
            let d = load_dragonbones(path)?;
            slots = d
                .report
                .meshes
                .iter()
                .map(|m| {
                    SlotPart::new(&m.part, &m.slot, m.weighted).on_bone(m.slot_bone.as_deref())
                })
                .collect();
            let meshes = d
                .report
                .meshes
                .iter()
                .map(|m| (m.part.clone(), m.bones.clone()))
                .collect();
            (d.scene, Some(d.artist), meshes, d.report.notes, None)
        }
        RigFormat::Gltf => {
            let g = import_gltf(path)?;
            let meshes = g
                .artist
                .as_ref()
                .map_or_else(Vec::new, |a| weighted_parts(&g.scene, a));
            (g.scene, g.artist, meshes, g.report.notes, None)
        }
    };
    Ok(RigImport {
        format,
        scene,
        artist,
        meshes,
        notes,
        slots,
        godot,
    })
}

/// The bones (scene order) some vertex of `vertices` has a weight on in `artist`.
fn weighted_bones(
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

/// A Spine rig's weighted attachments with at least two bones, each with the bones its artist
/// weighted it to (rigid and one-bone meshes score 100% for every solver and are left out).
fn spine_meshes(s: &SpineImport) -> Vec<(String, Vec<String>)> {
    s.report
        .attachments
        .iter()
        .filter(|a| a.weighted)
        .filter_map(|a| {
            let bones = weighted_bones(&s.scene, &s.artist, a.vertex_range());
            (bones.len() >= 2).then(|| (a.part.clone(), bones))
        })
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
