//! What kind of file a path holds, from its magic bytes or its top-level JSON keys, so that a
//! reader's error can say "this is a Spine skeleton" and name the command that reads it.
//! Only error paths call it: it reads the whole file and parses it loosely.

use std::path::Path;

/// The kinds of file the toolkit reads, and the two ways a file can be none of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileKind {
    /// A PNG image (a sprite, or an atlas page).
    Png,
    /// A JPEG image.
    Jpeg,
    /// A Spine skeleton JSON (`skeleton.spine`).
    SpineJson,
    /// A Spine atlas (libgdx text: page name, `size:`, regions).
    SpineAtlas,
    /// A DragonBones skeleton JSON (`armature` list).
    DragonBones,
    /// A Creature JSON export (`mesh`, `skeleton` and `animation`).
    Creature,
    /// A glTF 2.0 JSON file (`asset.version`).
    Gltf,
    /// A binary glTF (`glTF` magic).
    Glb,
    /// A skinweights scene file (JSON or binary `.swb`).
    Scene,
    /// A skinweights weights file (JSON or binary).
    Weights,
    /// A sprite's bones file (`bones` list, no mesh).
    BonesFile,
    /// A Godot text scene (`.tscn`).
    GodotScene,
    /// JSON that ends before its last value closes: a file cut short.
    TruncatedJson,
    /// None of the above.
    Unknown,
}

impl FileKind {
    /// What the file looks like, for an error message ("a PNG image").
    pub fn describe(self) -> &'static str {
        match self {
            FileKind::Png => "a PNG image",
            FileKind::Jpeg => "a JPEG image",
            FileKind::SpineJson => "a Spine skeleton",
            FileKind::SpineAtlas => "a Spine atlas",
            FileKind::DragonBones => "a DragonBones skeleton",
            FileKind::Creature => "a Creature export",
            FileKind::Gltf => "a glTF file",
            FileKind::Glb => "a binary glTF file",
            FileKind::Scene => "a skinweights scene",
            FileKind::Weights => "a skinweights weights file",
            FileKind::BonesFile => "a sprite's bones file",
            FileKind::GodotScene => "a Godot scene",
            FileKind::TruncatedJson => "JSON that ends early: the file looks truncated",
            FileKind::Unknown => "no format skinweights reads",
        }
    }

    /// The command that reads a file of this kind (`file` is spliced in), if one does.
    pub fn command(self, file: &Path) -> Option<String> {
        let f = file.display();
        Some(match self {
            FileKind::SpineJson => format!("skinweights import spine {f} -o SCENE.json"),
            FileKind::DragonBones => format!("skinweights import dragonbones {f} -o SCENE.json"),
            FileKind::Creature => format!("skinweights import creature {f} -o SCENE.json"),
            FileKind::Gltf | FileKind::Glb => format!("skinweights import gltf {f} -o SCENE.json"),
            FileKind::GodotScene => format!("skinweights import godot {f} -o SCENE.json"),
            FileKind::Png => format!("skinweights mesh {f} --bones NAME_bones.json -o SCENE.json"),
            FileKind::SpineAtlas => {
                format!("skinweights import spine SKELETON.json --atlas {f} -o SCENE.json")
            }
            FileKind::Scene => format!("skinweights solve {f} -o WEIGHTS.json"),
            FileKind::Weights => format!("skinweights eval SCENE.json {f}"),
            FileKind::BonesFile => format!("skinweights mesh NAME.png --bones {f} -o SCENE.json"),
            FileKind::Jpeg | FileKind::TruncatedJson | FileKind::Unknown => return None,
        })
    }
}

/// The kind of the file at `path`; [`FileKind::Unknown`] when it cannot be read.
pub fn sniff_file(path: &Path) -> FileKind {
    std::fs::read(path).map_or(FileKind::Unknown, |b| sniff_bytes(&b))
}

/// The kind of a file from its bytes.
pub fn sniff_bytes(bytes: &[u8]) -> FileKind {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return FileKind::Png;
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return FileKind::Jpeg;
    }
    if bytes.starts_with(b"glTF") {
        return FileKind::Glb;
    }
    if bytes.starts_with(super::binary::SCENE_MAGIC) {
        return FileKind::Scene;
    }
    if bytes.starts_with(super::binary::WEIGHTS_MAGIC) {
        return FileKind::Weights;
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return FileKind::Unknown;
    };
    let text = text.trim_start_matches('\u{feff}');
    let trimmed = text.trim_start();
    if trimmed.starts_with("[gd_scene") {
        return FileKind::GodotScene;
    }
    if trimmed.starts_with('{') {
        return match serde_json::from_str::<serde_json::Value>(trimmed) {
            Ok(v) => json_kind(&v),
            Err(e) if e.classify() == serde_json::error::Category::Eof => FileKind::TruncatedJson,
            Err(_) => FileKind::Unknown,
        };
    }
    if looks_like_atlas(trimmed) {
        return FileKind::SpineAtlas;
    }
    FileKind::Unknown
}

/// The kind of a parsed JSON document, from its top-level keys.
fn json_kind(v: &serde_json::Value) -> FileKind {
    let Some(o) = v.as_object() else {
        return FileKind::Unknown;
    };
    let format = o.get("format").and_then(|f| f.as_str()).unwrap_or("");
    if format.starts_with("skinweights.scene/") {
        FileKind::Scene
    } else if format.starts_with("skinweights.weights/") {
        FileKind::Weights
    } else if o.get("skeleton").is_some_and(|s| s.get("spine").is_some())
        || (o.contains_key("bones") && o.contains_key("slots") && o.contains_key("skins"))
    {
        FileKind::SpineJson
    } else if o.get("armature").is_some_and(|a| a.is_array()) {
        FileKind::DragonBones
    } else if o.contains_key("mesh") && o.contains_key("skeleton") && o.contains_key("animation") {
        FileKind::Creature
    } else if o.get("asset").is_some_and(|a| a.get("version").is_some()) {
        FileKind::Gltf
    } else if o.contains_key("bones") && !o.contains_key("mesh") {
        FileKind::BonesFile
    } else {
        FileKind::Unknown
    }
}

/// A libgdx atlas: a page line, then `size:`/`format:`/`filter:` headers within a few lines.
fn looks_like_atlas(text: &str) -> bool {
    text.lines().take(8).any(|l| {
        let l = l.trim();
        ["size:", "format:", "filter:", "repeat:", "pma:"]
            .iter()
            .any(|k| l.starts_with(k))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_bytes() {
        assert_eq!(sniff_bytes(b"\x89PNG\r\n\x1a\nxxxx"), FileKind::Png);
        assert_eq!(
            sniff_bytes(br#"{"skeleton":{"spine":"4.2.1"},"bones":[]}"#),
            FileKind::SpineJson
        );
        assert_eq!(
            sniff_bytes(b"\nhero.png\nsize: 512,512\nformat: RGBA8888\n"),
            FileKind::SpineAtlas
        );
        assert_eq!(sniff_bytes(br#"{"armature":[]}"#), FileKind::DragonBones);
        assert_eq!(
            sniff_bytes(br#"{"mesh":{},"skeleton":{},"animation":{}}"#),
            FileKind::Creature
        );
        assert_eq!(
            sniff_bytes(br#"{"asset":{"version":"2.0"}}"#),
            FileKind::Gltf
        );
        assert_eq!(
            sniff_bytes(br#"{"format":"skinweights.scene/3"}"#),
            FileKind::Scene
        );
        assert_eq!(sniff_bytes(br#"{"bones":[1,2"#), FileKind::TruncatedJson);
        assert_eq!(
            sniff_bytes(b"[gd_scene load_steps=3]"),
            FileKind::GodotScene
        );
        assert_eq!(sniff_bytes(b"hello"), FileKind::Unknown);
    }
}
