//! DragonBones texture atlases (`*_tex.json` + `*_tex.png`): where each display's art sits in
//! the atlas image, and the mesh `uvs` mapped into it.
//!
//! A mesh display's `uvs` run 0..1 across its atlas region (`SubTexture` `x`, `y`, `width`,
//! `height`, in atlas pixels from the top-left corner), as DragonBonesJS's slots map them:
//! `u_px = x + u · width`, `v_px = y + v · height`. A region's trim frame (`frameX` ...) does
//! not enter. Regions packed rotated (`"rotated": true`) are refused: the runtimes disagree
//! on their orientation.

use super::parse::FileMesh;
use crate::error::{Error, FormatError, Result, RigFormat};
use crate::io::png_dimensions;
use crate::scene::{AlphaMode, Art, ArtImage, Layer};
use nalgebra::Point2;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A texture atlas: its image and named regions.
#[derive(Debug, Clone)]
pub struct Atlas {
    /// Atlas name (`name`, else the file stem).
    pub name: String,
    /// The atlas image, resolved against the atlas file's folder.
    pub image: PathBuf,
    /// The image's size in pixels (read from the PNG header).
    pub size: (u32, u32),
    /// Regions by name: `[x, y, width, height]` in atlas pixels.
    pub regions: HashMap<String, [f64; 4]>,
}

#[derive(Deserialize)]
struct AtlasJson {
    #[serde(default)]
    name: Option<String>,
    #[serde(rename = "imagePath")]
    image_path: String,
    #[serde(rename = "SubTexture")]
    sub_texture: Vec<SubTextureJson>,
}

#[derive(Deserialize)]
struct SubTextureJson {
    name: String,
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    #[serde(default)]
    rotated: bool,
}

impl Atlas {
    /// Reads an atlas file and checks that its image exists and is a readable PNG, and that
    /// every region is finite and inside the image. Errors name the file (and the region).
    pub fn load(path: impl AsRef<Path>) -> Result<Atlas> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let file: AtlasJson = serde_json::from_str(&text).map_err(|e| {
            Error::Format(FormatError::Json {
                context: format!("DragonBones atlas {}", path.display()),
                message: e.to_string(),
            })
        })?;
        let image = path
            .parent()
            .unwrap_or(Path::new(""))
            .join(&file.image_path);
        let size = png_dimensions(&image)?;
        let mut regions = HashMap::new();
        for (i, s) in file.sub_texture.iter().enumerate() {
            let field = || format!("{}: SubTexture[{i}] {:?}", path.display(), s.name);
            if s.rotated {
                return Err(Error::field(
                    field(),
                    "rotated atlas regions are not supported (repack without rotation)",
                ));
            }
            let r = [s.x, s.y, s.width, s.height];
            let inside = r.iter().all(|v| v.is_finite())
                && s.x >= 0.0
                && s.y >= 0.0
                && s.width > 0.0
                && s.height > 0.0
                && s.x + s.width <= size.0 as f64
                && s.y + s.height <= size.1 as f64;
            if !inside {
                return Err(Error::field(
                    field(),
                    format!(
                        "region {r:?} is not inside the {} x {} image {}",
                        size.0,
                        size.1,
                        image.display()
                    ),
                ));
            }
            regions.insert(s.name.clone(), r);
        }
        let name = file.name.unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        Ok(Atlas {
            name,
            image,
            size,
            regions,
        })
    }

    /// The atlas file beside a skeleton file: `NAME_ske.json` -> `NAME_tex.json`, if that
    /// file exists.
    pub fn beside(skeleton: &Path) -> Option<PathBuf> {
        let file = skeleton.file_name()?.to_str()?;
        let stem = file.strip_suffix("_ske.json")?;
        let tex = skeleton.with_file_name(format!("{stem}_tex.json"));
        tex.is_file().then_some(tex)
    }
}

/// The art of an imported armature: the atlas image, every display's `uvs` mapped into its
/// region (displays without `uvs` are drawn flat, noted), layers in slot draw order. `meshes`
/// are the displays in part order, `parts` their part names.
pub(super) fn atlas_art(
    atlas: &Atlas,
    meshes: &[FileMesh],
    parts: &[String],
    notes: &mut Vec<String>,
) -> Result<Art> {
    let mut uvs = Vec::new();
    let mut layers = Vec::with_capacity(meshes.len());
    for (part, m) in meshes.iter().enumerate() {
        let image = match &m.uvs {
            None => {
                notes.push(format!(
                    "mesh {:?} has no uvs: drawn in a flat colour",
                    m.display
                ));
                uvs.extend(std::iter::repeat_n(Point2::origin(), m.vertices.len()));
                None
            }
            Some(mesh_uvs) => {
                let [x, y, w, h] = *atlas.regions.get(&m.texture).ok_or_else(|| {
                    Error::Format(FormatError::Rig {
                        format: RigFormat::DRAGONBONES,
                        context: format!("mesh {:?} (slot {:?})", m.display, m.slot),
                        field: "path".into(),
                        vertex: None,
                        message: format!(
                            "texture {:?} is not a region of atlas {:?}",
                            m.texture, atlas.name
                        ),
                    })
                })?;
                uvs.extend(
                    mesh_uvs
                        .iter()
                        .map(|&[u, v]| Point2::new(x + u * w, y + v * h)),
                );
                Some(0)
            }
        };
        layers.push((m.draw_order, part, image));
    }
    layers.sort_by_key(|&(order, part, _)| (order, part));
    Ok(Art {
        images: vec![ArtImage {
            name: atlas.name.clone(),
            path: atlas.image.clone(),
            alpha: AlphaMode::Straight,
        }],
        uvs,
        layers: layers
            .into_iter()
            .map(|(_, part, image)| Layer::new(parts[part].clone(), image))
            .collect(),
    })
}
