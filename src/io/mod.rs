//! Every file format, one module each (feature `io`): the scene and weights JSON files,
//! sprite tracing (PNG alpha to a scene), glTF 2.0, Creature JSON, DragonBones 5.5, Godot and Spine 4.x; [`binary`] holds
//! the compact `.swb` form of the scene and weights files for large meshes.
//!
//! Formats convert between files and the model types ([`crate::scene::Scene`], [`crate::weights::Weights`]);
//! they hold no solver or metric logic.

mod angles;
mod atomic;
pub mod binary;
mod compare_json;
pub mod creature;
pub mod dragonbones;
mod exported;
mod format;
pub mod gltf;
pub mod godot;
mod imported;
mod json_path;
mod mesh_parts;
mod png;
pub mod rig;
mod scene_builder;
mod scene_json;
mod sniff;
pub mod spine;
mod sprite;
mod tolerance;
mod weights_json;

pub use atomic::{is_stdout, output_kind, resolve_output, write_atomic, OutputKind};
pub use compare_json::comparison_to_json;
pub use exported::{ExportOptions, Exported, GodotVersion};
pub(crate) use format::{extension, parse_json};
pub use format::{Format, Source};
pub use imported::{ImportOptions, Imported, RigImport, RigReport};
pub use mesh_parts::ZERO_LENGTH_TAIL;
pub use png::encode_png;
pub use scene_json::{
    load_scene, save_scene, scene_from_binary, scene_from_json, scene_to_binary, scene_to_json,
    SCENE_FORMAT, SCENE_FORMAT_ANIM, SCENE_FORMAT_ART,
};
pub use sniff::{sniff_bytes, sniff_file, FileKind};
pub use sprite::{
    png_dimensions, sprite_scene, trace_alpha, BonesFile, Sprite, SpriteOptions, Trace,
    TraceOptions, CLIP_MARGIN, DEFAULT_MIN_AREA, DEFAULT_THRESHOLD, DEFAULT_TOLERANCE,
};
pub(crate) use tolerance::listed;
pub use tolerance::{MAX_ROUNDED_WEIGHT, MIN_ROUNDED_WEIGHT};
pub use weights_json::{WeightsFile, WEIGHTS_FORMAT};

/// The format table: one row ([`Format`]) per rig format, in the commands' order. Each row
/// is defined in its format's folder.
pub const FORMATS: &[Format] = &[
    gltf::FORMAT,
    creature::FORMAT,
    dragonbones::FORMAT,
    godot::FORMAT,
    spine::FORMAT,
];

#[cfg(test)]
mod tests {
    use crate::animation::{Channel, Key};
    use crate::error::ClipError;
    use crate::error::Error;

    /// A NaN key reaching a writer (outside the crate `Scene::with_animation` refuses it):
    /// every writer checks the clips before writing.
    #[test]
    fn writers_refuse_a_nan_key() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/godot-gbot/player.tscn");
        let g = super::godot::load_godot(path).unwrap();
        let mut scene = g.scene.clone();
        scene.clips[1].tracks[0].channels.rotation =
            Some(Channel::new(vec![Key::new(0.0, f64::NAN)]));
        for e in [
            super::godot::export_godot(&scene, &g.artist, 3).unwrap_err(),
            super::gltf::export_gltf(&scene, &g.artist, &super::gltf::GltfOptions::default())
                .unwrap_err(),
            super::dragonbones::export_dragonbones(&scene, &g.artist).unwrap_err(),
        ] {
            assert!(
                matches!(e, Error::Clip(ClipError::InvalidKey { ref clip, .. }) if clip == "fly"),
                "{e}"
            );
        }
    }
}
