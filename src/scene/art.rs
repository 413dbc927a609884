//! The art a scene is drawn with: images, a texture coordinate per vertex, and the draw
//! order of the parts (layers).
//!
//! Only the model lives here: paths and numbers, no pixels. Reading the images is the
//! renderer's job (feature `io`), so the numeric core stays free of image decoding.

use crate::error::{ArtError, Result, SkeletonError};
use crate::mesh::Mesh;
use nalgebra::Point2;
use std::path::PathBuf;

/// How an image stores colour at partly transparent texels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AlphaMode {
    /// RGB independent of alpha (what PNG files store). The default.
    #[default]
    Straight,
    /// RGB already multiplied by alpha.
    Premultiplied,
}

impl AlphaMode {
    /// The name used in files and on the command line (`straight`, `premultiplied`).
    pub fn name(self) -> &'static str {
        match self {
            AlphaMode::Straight => "straight",
            AlphaMode::Premultiplied => "premultiplied",
        }
    }

    /// Parses [`AlphaMode::name`]'s output.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "straight" => Some(AlphaMode::Straight),
            "premultiplied" => Some(AlphaMode::Premultiplied),
            _ => None,
        }
    }
}

/// One image the layers sample.
#[derive(Debug, Clone, PartialEq)]
pub struct ArtImage {
    /// Short name (shown in reports), e.g. the file stem.
    pub name: String,
    /// Where the image is. Scene files store it relative to the scene file; loading resolves
    /// it against the file's folder.
    pub path: PathBuf,
    /// How the image stores colour at partly transparent texels.
    pub alpha: AlphaMode,
}

/// One layer: a part of the mesh drawn with one image (or a flat colour).
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// The part (name in the mesh's `parts`) drawn as this layer.
    pub part: String,
    /// Index into [`Art::images`], or `None` for a flat colour.
    pub image: Option<usize>,
    /// The rig's slot this layer is one attachment of (Spine, DragonBones), which decides
    /// when it is drawn ([`Art::drawn_layers`]). `None`: always drawn.
    pub slot: Option<SlotAttachment>,
}

/// Where a layer sits in a rig's slot: a slot shows one attachment at a time, its setup
/// attachment at rest and the one a clip's attachment keys name while it plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotAttachment {
    /// The slot's name.
    pub slot: String,
    /// The attachment's name in the slot (what the slot's setup and a clip's keys name).
    pub attachment: String,
    /// The skin the attachment comes from; `None`: whichever skin is shown (a scene
    /// imported with one skin).
    pub skin: Option<String>,
    /// Whether this is the slot's setup attachment (shown at rest, given the skin).
    pub setup: bool,
}

/// The skin a scene shows when none is picked.
pub const DEFAULT_SKIN: &str = "default";

impl Layer {
    /// A layer of `part` drawn with `image`, in no slot (always drawn).
    pub fn new(part: impl Into<String>, image: Option<usize>) -> Self {
        Layer {
            part: part.into(),
            image,
            slot: None,
        }
    }

    /// One layer per part, in the parts' order (back to front), each drawn with `image`.
    pub fn one_per_part(parts: &[String], image: Option<usize>) -> Vec<Layer> {
        parts.iter().map(|p| Layer::new(p.clone(), image)).collect()
    }
}

/// Images, texture coordinates and layer order of a scene.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Art {
    /// The images layers refer to by index.
    pub images: Vec<ArtImage>,
    /// Texture coordinate of every vertex, in pixels of its layer's image: u to the right
    /// from the image's left edge, v down from its top edge (image rows), so (0, 0) is the
    /// top-left corner of the top-left pixel and pixel (c, r) covers [c, c+1] x [r, r+1].
    pub uvs: Vec<Point2<f64>>,
    /// Layers in draw order, back to front; every part of the mesh exactly once.
    pub layers: Vec<Layer>,
}

impl Art {
    /// Art with one image and one layer per part, in the parts' order, every layer drawn with
    /// that image: what a single sprite sheet gives (`uvs`: one per vertex, in the image's
    /// pixels). Checked against the mesh when attached ([`crate::scene::Scene::with_art`]).
    pub fn single_image(image: ArtImage, uvs: Vec<Point2<f64>>, parts: &[String]) -> Self {
        Art {
            images: vec![image],
            uvs,
            layers: Layer::one_per_part(parts, Some(0)),
        }
    }

    /// Checks the art against a mesh with `vertex_count` vertices and part names `parts`:
    /// one finite texture coordinate per vertex, every part drawn exactly once, image
    /// indices in range.
    pub fn check(&self, vertex_count: usize, parts: &[String]) -> Result<()> {
        if self.uvs.len() != vertex_count {
            return Err(ArtError::ArtUvs {
                given: self.uvs.len(),
                vertices: vertex_count,
            }
            .into());
        }
        if let Some(v) = self
            .uvs
            .iter()
            .position(|p| !p.x.is_finite() || !p.y.is_finite())
        {
            return Err(ArtError::NonFiniteUv {
                vertex: v,
                u: self.uvs[v].x,
                v: self.uvs[v].y,
            }
            .into());
        }
        for (i, l) in self.layers.iter().enumerate() {
            if !parts.contains(&l.part) {
                return Err(SkeletonError::UnknownPart {
                    context: format!("art.layers[{i}]"),
                    part: l.part.clone(),
                    known: parts.to_vec(),
                }
                .into());
            }
            if self.layers[..i].iter().any(|o| o.part == l.part) {
                return Err(ArtError::DuplicateLayer {
                    layer: i,
                    part: l.part.clone(),
                }
                .into());
            }
            if let Some(k) = l.image {
                if k >= self.images.len() {
                    return Err(ArtError::LayerImage {
                        layer: i,
                        image: k,
                        images: self.images.len(),
                    }
                    .into());
                }
            }
        }
        if let Some(p) = parts
            .iter()
            .find(|p| !self.layers.iter().any(|l| &l.part == *p))
        {
            return Err(ArtError::UndrawnPart { part: p.clone() }.into());
        }
        Ok(())
    }

    /// The image index of every part (`None`: a flat colour, or a part with no layer),
    /// indexed like the mesh's parts.
    pub fn image_of_part(&self, parts: &[String]) -> Vec<Option<usize>> {
        parts
            .iter()
            .map(|p| {
                self.layers
                    .iter()
                    .find(|l| &l.part == p)
                    .and_then(|l| l.image)
            })
            .collect()
    }

    /// How many texels of its image one scene unit of `mesh` covers, along a side: the
    /// area-weighted median over textured triangles of `sqrt(texture area / scene area)`.
    /// 1 for a sprite (texture coordinates are the pixel positions); 0.5 for a Spine rig
    /// whose atlas is packed at `scale: 0.5`. `None` when no textured triangle has area.
    pub fn texels_per_unit(&self, mesh: &Mesh) -> Option<f64> {
        let image_of_part = self.image_of_part(mesh.parts());
        let area = |p: [Point2<f64>; 3]| ((p[1] - p[0]).perp(&(p[2] - p[0])) / 2.0).abs();
        let vertices = mesh.vertices();
        let mut ratios: Vec<(f64, f64)> = mesh
            .triangles()
            .iter()
            .filter(|t| image_of_part[mesh.vertex_parts()[t[0]]].is_some())
            .filter_map(|t| {
                let scene = area(t.map(|v| vertices[v]));
                let texture = area(t.map(|v| self.uvs[v]));
                let ratio = (texture / scene).sqrt();
                (scene > 0.0 && ratio.is_finite() && ratio > 0.0).then_some((ratio, scene))
            })
            .collect();
        ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
        let total: f64 = ratios.iter().map(|r| r.1).sum();
        let mut below = 0.0;
        for (ratio, weight) in ratios {
            below += weight;
            if below >= total / 2.0 {
                return Some(ratio);
            }
        }
        None
    }

    /// Whether any layer sits in a slot (then [`Art::drawn_layers`] hides some layers).
    pub fn has_slots(&self) -> bool {
        self.layers.iter().any(|l| l.slot.is_some())
    }

    /// The skins the layers name, in first-layer order (empty for a scene imported with one
    /// skin, or without slots).
    pub fn skins(&self) -> Vec<String> {
        let mut skins: Vec<String> = Vec::new();
        for s in self.layers.iter().filter_map(|l| l.slot.as_ref()) {
            if let Some(k) = &s.skin {
                if !skins.contains(k) {
                    skins.push(k.clone());
                }
            }
        }
        skins
    }

    /// Checks that `skin` is one of [`Art::skins`]
    /// ([`crate::error::ArgumentError::InvalidArgument`] for `skin`, naming the known skins).
    pub fn check_skin(&self, skin: &str) -> Result<()> {
        let known = self.skins();
        if known.iter().any(|k| k == skin) {
            return Ok(());
        }
        Err(crate::error::ArgumentError::InvalidArgument {
            argument: "skin",
            value: skin.to_string(),
            reason: if known.is_empty() {
                format!(
                    "no skin is called {skin:?}: the scene records no skins (import a Spine rig with --skin all to keep every skin)"
                )
            } else {
                format!("no skin is called {skin:?} (the scene has {known:?})")
            },
        }
        .into())
    }

    /// Which layers are drawn (indexed like [`Art::layers`]) when the rig shows skin `skin`
    /// (`None`: [`DEFAULT_SKIN`]) and a clip's attachment keys set some slots (`keyed`:
    /// slot name → attachment name, `None` for an empty slot; see
    /// [`crate::animation::Clip::attachments_at`]).
    ///
    /// A layer in no slot is always drawn. A slot shows the attachment `keyed` names for
    /// it, else its setup attachment (the name of its layers marked
    /// [`SlotAttachment::setup`]), else nothing; of the layers of that slot and name, the
    /// one of skin `skin` is drawn, else the one of the default skin, and a layer of no
    /// skin always. So a scene without slots draws every layer, and a scene imported with
    /// one skin draws each slot's setup attachment at rest.
    pub fn drawn_layers(
        &self,
        skin: Option<&str>,
        keyed: &std::collections::BTreeMap<String, Option<String>>,
    ) -> Vec<bool> {
        let skin = skin.unwrap_or(DEFAULT_SKIN);
        let mut setup: std::collections::HashMap<&str, &str> = Default::default();
        for s in self.layers.iter().filter_map(|l| l.slot.as_ref()) {
            if s.setup {
                setup.entry(&s.slot).or_insert(&s.attachment);
            }
        }
        let shown = |slot: &str| -> Option<&str> {
            match keyed.get(slot) {
                Some(name) => name.as_deref(),
                None => setup.get(slot).copied(),
            }
        };
        let in_skin = |slot: &str, name: &str, k: &str| {
            self.layers.iter().any(|l| {
                l.slot.as_ref().is_some_and(|s| {
                    s.slot == slot && s.attachment == name && s.skin.as_deref() == Some(k)
                })
            })
        };
        self.layers
            .iter()
            .map(|l| {
                let Some(s) = &l.slot else { return true };
                if shown(&s.slot) != Some(s.attachment.as_str()) {
                    return false;
                }
                match s.skin.as_deref() {
                    None => true,
                    Some(k) if k == skin => true,
                    Some(DEFAULT_SKIN) => !in_skin(&s.slot, &s.attachment, skin),
                    Some(_) => false,
                }
            })
            .collect()
    }

    /// Whether each part is drawn, indexed like the mesh's `parts`, from
    /// [`Art::drawn_layers`]'s answer (a part with no layer is not drawn).
    pub fn drawn_parts(&self, parts: &[String], drawn_layers: &[bool]) -> Vec<bool> {
        let layer_of_part = self.layer_of_part(parts);
        layer_of_part
            .iter()
            .map(|&l| drawn_layers.get(l).copied().unwrap_or(false))
            .collect()
    }

    /// The layer index (draw position) of every part, indexed like the mesh's parts.
    pub fn layer_of_part(&self, parts: &[String]) -> Vec<usize> {
        parts
            .iter()
            .map(|p| {
                self.layers
                    .iter()
                    .position(|l| &l.part == p)
                    .unwrap_or(usize::MAX)
            })
            .collect()
    }
}

/// The layer every triangle is drawn in, given each part's layer (`layer_of_part`, indexed
/// like the mesh's parts): the first-drawn layer among its corners' parts. Corners of one
/// part in a layered mesh; on a sprite mesh split into part regions, a triangle straddling
/// two regions goes to the back one. The renderer, the glTF exporter, the seam measures and
/// the interpenetration metric share this rule ([`crate::scene::Scene::triangle_parts`] gives the
/// part instead of the layer).
pub fn triangle_layers(mesh: &Mesh, layer_of_part: &[usize]) -> Vec<usize> {
    let vertex_parts = mesh.vertex_parts();
    first_drawn_corners(mesh, layer_of_part)
        .map(|v| layer_of_part[vertex_parts[v]])
        .collect()
}

/// The corner of every triangle whose part is drawn first (the first such corner on a tie).
pub(crate) fn first_drawn_corners<'a>(
    mesh: &'a Mesh,
    layer_of_part: &'a [usize],
) -> impl Iterator<Item = usize> + 'a {
    let vertex_parts = mesh.vertex_parts();
    mesh.triangles().iter().map(move |tri| {
        tri.iter()
            .copied()
            .min_by_key(|&v| layer_of_part[vertex_parts[v]])
            .unwrap_or(tri[0])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    fn art() -> Art {
        Art {
            images: vec![ArtImage {
                name: "sheet".into(),
                path: "sheet.png".into(),
                alpha: AlphaMode::Straight,
            }],
            uvs: vec![Point2::new(0.0, 0.0); 3],
            layers: vec![Layer::new("b", Some(0)), Layer::new("a", None)],
        }
    }

    #[test]
    fn checks_name_the_offending_field() {
        let parts = vec!["a".to_string(), "b".to_string()];
        art().check(3, &parts).unwrap();
        assert_eq!(art().layer_of_part(&parts), vec![1, 0]);
        let art_error = |a: &Art| match a.check(3, &parts) {
            Err(Error::Art(e)) => e,
            other => panic!("{other:?}"),
        };
        assert!(matches!(
            art().check(4, &parts),
            Err(Error::Art(ArtError::ArtUvs {
                given: 3,
                vertices: 4
            }))
        ));
        let mut a = art();
        a.uvs[1].x = f64::NAN;
        assert!(matches!(
            art_error(&a),
            ArtError::NonFiniteUv { vertex: 1, .. }
        ));
        let mut a = art();
        a.layers[1].part = "b".into();
        assert!(matches!(
            art_error(&a),
            ArtError::DuplicateLayer { layer: 1, ref part } if part == "b"
        ));
        let mut a = art();
        a.layers.pop();
        assert!(matches!(
            art_error(&a),
            ArtError::UndrawnPart { ref part } if part == "a"
        ));
        let mut a = art();
        a.layers[0].image = Some(3);
        assert!(matches!(
            art_error(&a),
            ArtError::LayerImage {
                layer: 0,
                image: 3,
                ..
            }
        ));
        assert_eq!(
            AlphaMode::from_name("premultiplied"),
            Some(AlphaMode::Premultiplied)
        );
        assert_eq!(AlphaMode::from_name("Straight"), None);
    }
}
