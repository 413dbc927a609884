//! One loaded item: a scene and what its file says beside it (the artist's weights, the
//! scored meshes, the slots, the rig format).

use crate::error::{Result, RigFormat};
use crate::io::rig::{load_rig, weighted_parts};
use crate::io::spine::SkinSelection;
use crate::io::{
    load_scene, save_scene, sprite_scene, BonesFile, GodotVersion, Sprite, SpriteOptions,
    WeightsFile,
};
use crate::mesh::MeshingOptions;
use crate::scene::Scene;
use crate::transfer::SlotPart;
use crate::weights::Weights;
use std::path::{Path, PathBuf};

/// A character ready for the pipeline's steps: its scene and what its file carries.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Item {
    /// The character.
    pub scene: Scene,
    /// The file the item was read from (a scene file, a rig, a sprite's PNG).
    pub source: PathBuf,
    /// The scene file the weights belong to: the source for a scene file, where
    /// [`Item::saved_as`] wrote it for a rig or sprite; `None` before.
    pub scene_file: Option<PathBuf>,
    /// The artist's weights the file carries (a rig's own, or a scene file's
    /// `SCENE.artist.json`): the record of which bones deform and how each mesh is bound
    /// ([`binding`](super::binding)), and the reference of [`lint`](super::lint) and
    /// [`score`](super::score).
    pub artist: Option<Weights>,
    /// The artist meshes [`score`](super::score) scores: each part's name and the bones the
    /// artist binds it to.
    pub scored_meshes: Vec<(String, Vec<String>)>,
    /// The slots of the attachments (what a transfer's costumes are).
    pub slots: Vec<SlotPart>,
    /// The rig's format, `None` for scene files and sprites (which are exported to none).
    pub rig: Option<RigFormat>,
    /// The Godot version a Godot rig was written for.
    pub godot: Option<GodotVersion>,
}

impl Item {
    /// A scene file as `skinweights solve` loads it, with the artist's weights of its
    /// `SCENE.artist.json` when that file exists.
    ///
    /// Errors: those of reading either file, and artist weights that do not fit the scene.
    pub fn scene_file(path: &Path) -> Result<Item> {
        let (scene, _) = load_scene(path)?;
        let artist_file = path.with_extension("artist.json");
        let artist = if artist_file.is_file() {
            let w = WeightsFile::load(&artist_file)?
                .to_weights_for(&scene.skeleton().names(), scene.mesh().vertex_count())?;
            Some(w)
        } else {
            None
        };
        let scored_meshes = artist
            .as_ref()
            .map_or_else(Vec::new, |a| weighted_parts(&scene, a));
        let slots = crate::transfer::art_slots(&scene);
        Ok(Item {
            scene,
            source: path.to_path_buf(),
            scene_file: Some(path.to_path_buf()),
            artist,
            scored_meshes,
            slots,
            rig: None,
            godot: None,
        })
    }

    /// A rig imported from `path` in `format` with the attachments of `skin`.
    pub fn rig(path: &Path, format: RigFormat, skin: SkinSelection) -> Result<Item> {
        let rig = load_rig(path, format, skin)?;
        Ok(Item {
            scene: rig.scene,
            source: path.to_path_buf(),
            scene_file: None,
            artist: rig.artist,
            scored_meshes: rig.report.scored_meshes(),
            slots: rig.report.slots(),
            rig: Some(format),
            godot: rig.report.godot(),
        })
    }

    /// A sprite (a PNG) and its bones file meshed at about `vertices` vertices, as
    /// `skinweights mesh --vertices` does.
    pub fn sprite(path: &Path, bones: &Path, vertices: usize) -> Result<Item> {
        let sprite = Sprite::load(path)?;
        let bones = BonesFile::load(bones)?;
        let options = SpriteOptions {
            meshing: MeshingOptions::default().with_target_vertices(vertices),
            ..SpriteOptions::default()
        };
        let (scene, _, _) = sprite_scene(&sprite, bones, &options)?;
        Ok(Item {
            scene,
            source: path.to_path_buf(),
            scene_file: None,
            artist: None,
            scored_meshes: Vec::new(),
            slots: Vec::new(),
            rig: None,
            godot: None,
        })
    }

    /// The item with its scene written to `path` and read back from it, and its artist's
    /// weights written beside it as `SCENE.artist.json` (as `skinweights import` does): the
    /// weights solved on it are exactly those of `skinweights solve` on that file.
    pub fn saved_as(self, path: &Path) -> Result<Item> {
        save_scene(&self.scene, path)?;
        let scene = load_scene(path)?.0;
        if let Some(w) = &self.artist {
            WeightsFile::artist(&scene, w).save(path.with_extension("artist.json"))?;
        }
        Ok(Item {
            scene,
            scene_file: Some(path.to_path_buf()),
            ..self
        })
    }
}
