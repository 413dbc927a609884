//! glTF textures on export: a scene's art becomes images, materials and one primitive per
//! layer, so that [`import_gltf`](super::import_gltf) reads the same art back and glTF viewers
//! draw the character with its images.
//!
//! - **Images**: every art image's PNG file, byte for byte, in a `data:image/png;base64,` URI
//!   (`mimeType` `image/png`), like the buffer: the exporter writes one self-contained
//!   `.gltf`. The file is decoded once to check it. Its `name` is the art image's name; a
//!   premultiplied image (glTF assumes straight alpha) says so in `extras.skinweights.alpha`.
//! - **Sampler**: one, `CLAMP_TO_EDGE` both ways and `LINEAR` filters (no mipmaps), as the
//!   renderer samples.
//! - **Materials**: one per image, `baseColorTexture` = that image, `alphaMode` `BLEND`,
//!   double-sided, metallic 0, roughness 1 and `KHR_materials_unlit` (listed in
//!   `extensionsUsed`, not required): 2D art is drawn as painted, not lit.
//! - **TEXCOORD_0**: one per vertex, shared by every primitive, the vertex's pixel coordinate
//!   divided by its layer's image size. glTF and [`Art`] both put the origin at the image's
//!   top-left corner with v down, so there is no flip: `(u / width, v / height)`. Vertices of
//!   a flat-colour layer get (0, 0).
//! - **Primitives**: one per layer in draw order (back to front), all naming the same
//!   `POSITION`, `JOINTS_0`, `WEIGHTS_0` and `TEXCOORD_0` accessors (so the mesh stays one
//!   piece), each with its own indices: the triangles drawn in that layer, in mesh order,
//!   by the renderer's rule ([`triangle_layers`]). A layer without triangles has no
//!   primitive (glTF accessors cannot be empty). A textured layer's primitive has its image's
//!   material; a flat-colour layer's none. With extras, `extras.skinweights.part` names the
//!   layer's part so the importer restores the image of every part and the draw order.
//!
//! glTF viewers blend the primitives in this order at z = 0; the file itself promises no
//! order, so viewers that sort transparent primitives may differ where layers overlap.

use super::export::{push_indices, BufferBuilder};
use super::{ARRAY_BUFFER, FLOAT, TRIANGLES};
use crate::error::{Error, Result};
use crate::scene::{triangle_layers, AlphaMode, Art, ArtImage, Scene};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde_json::{json, Value};

/// glTF sampler constants.
const LINEAR: u32 = 9729;
const CLAMP_TO_EDGE: u32 = 33071;

/// How far (in image pixels) a texture coordinate may stray outside its image: the
/// renderer's tolerance ([`crate::render::check_uvs`]).
const UV_TOLERANCE_PX: f64 = 1e-6;

/// The glTF arrays that carry the art.
pub(super) struct ExportedArt {
    /// `meshes[0].primitives`, back to front.
    pub(super) primitives: Vec<Value>,
    pub(super) materials: Vec<Value>,
    pub(super) textures: Vec<Value>,
    pub(super) images: Vec<Value>,
    pub(super) samplers: Vec<Value>,
}

/// Writes `art` (checked against the scene's mesh): TEXCOORD_0 into `buf`, and the
/// primitives, each with `attributes` (POSITION, JOINTS_0, WEIGHTS_0) plus TEXCOORD_0.
/// Errors name the image that cannot be read or the vertex whose coordinate lies outside
/// its image.
pub(super) fn export_art(
    scene: &Scene,
    art: &Art,
    attributes: &Value,
    buf: &mut BufferBuilder,
    extras: bool,
) -> Result<ExportedArt> {
    let mesh = &scene.mesh;
    art.check(mesh.vertex_count(), mesh.parts())?;
    let ArtImages { images, sizes } = image_entries(art, extras)?;
    let materials = material_entries(art);
    let textures = (0..art.images.len())
        .map(|k| json!({ "sampler": 0, "source": k }))
        .collect();
    let samplers = vec![json!({
        "magFilter": LINEAR,
        "minFilter": LINEAR,
        "wrapS": CLAMP_TO_EDGE,
        "wrapT": CLAMP_TO_EDGE,
    })];

    let mut attributes = attributes.clone();
    if !art.images.is_empty() {
        let uv = normalized_uvs(scene, art, &sizes)?;
        let n = mesh.vertex_count();
        let bytes: Vec<u8> = uv.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
        attributes["TEXCOORD_0"] = json!(buf.push(&bytes, Some(ARRAY_BUFFER), FLOAT, n, "VEC2"));
    }
    let primitives = layer_primitives(scene, art, &attributes, buf, extras);
    Ok(ExportedArt {
        primitives,
        materials,
        textures,
        images,
        samplers,
    })
}

/// The art's images as glTF images, with their sizes.
struct ArtImages {
    images: Vec<Value>,
    /// Each image's width and height in pixels.
    sizes: Vec<(u32, u32)>,
}

/// The glTF images (each PNG embedded as a `data:` URI; with `extras`, a premultiplied
/// image says so) and each image's size in pixels.
fn image_entries(art: &Art, extras: bool) -> Result<ArtImages> {
    let mut images = Vec::with_capacity(art.images.len());
    let mut sizes = Vec::with_capacity(art.images.len());
    for (k, image) in art.images.iter().enumerate() {
        let (png, size) = png_bytes(image, k)?;
        let mut json = json!({
            "name": image.name,
            "mimeType": "image/png",
            "uri": format!("data:image/png;base64,{}", BASE64.encode(&png)),
        });
        if extras && image.alpha == AlphaMode::Premultiplied {
            json["extras"] = json!({ "skinweights": { "alpha": image.alpha.name() } });
        }
        images.push(json);
        sizes.push(size);
    }
    Ok(ArtImages { images, sizes })
}

/// One unlit, blended, double-sided material per image, textured by it.
fn material_entries(art: &Art) -> Vec<Value> {
    art.images
        .iter()
        .enumerate()
        .map(|(k, image)| {
            json!({
                "name": image.name,
                "pbrMetallicRoughness": {
                    "baseColorTexture": { "index": k },
                    "metallicFactor": 0.0,
                    "roughnessFactor": 1.0,
                },
                "alphaMode": "BLEND",
                "doubleSided": true,
                "extensions": { "KHR_materials_unlit": {} },
            })
        })
        .collect()
}

/// One primitive per layer that has triangles, back to front, its indices written into
/// `buf`; with `extras`, each names its part.
fn layer_primitives(
    scene: &Scene,
    art: &Art,
    attributes: &Value,
    buf: &mut BufferBuilder,
    extras: bool,
) -> Vec<Value> {
    let mesh = &scene.mesh;
    let layer_of_triangle = triangle_layers(mesh, &art.layer_of_part(mesh.parts()));
    let mut primitives = Vec::new();
    for (l, layer) in art.layers.iter().enumerate() {
        let triangles: Vec<[usize; 3]> = mesh
            .triangles()
            .iter()
            .zip(&layer_of_triangle)
            .filter(|&(_, &tl)| tl == l)
            .map(|(t, _)| *t)
            .collect();
        if triangles.is_empty() {
            continue;
        }
        let mut primitive = json!({
            "attributes": attributes,
            "indices": push_indices(buf, &triangles, mesh.vertex_count()),
            "mode": TRIANGLES,
        });
        if let Some(k) = layer.image {
            primitive["material"] = json!(k);
        }
        if extras {
            primitive["extras"] = json!({ "skinweights": { "part": layer.part } });
        }
        primitives.push(primitive);
    }
    primitives
}

/// Every vertex's texture coordinate in `[0, 1]`: its pixel coordinate over its layer's
/// image size (`sizes[k]` of image `k`), as stored (f32).
fn normalized_uvs(scene: &Scene, art: &Art, sizes: &[(u32, u32)]) -> Result<Vec<[f32; 2]>> {
    let image_of_part = art.image_of_part(scene.mesh.parts());
    let mut out = Vec::with_capacity(art.uvs.len());
    for (v, (&part, p)) in scene.mesh.vertex_parts().iter().zip(&art.uvs).enumerate() {
        let Some(k) = image_of_part[part] else {
            out.push([0.0, 0.0]);
            continue;
        };
        let (w, h) = (f64::from(sizes[k].0), f64::from(sizes[k].1));
        let inside = |x: f64, n: f64| (-UV_TOLERANCE_PX..=n + UV_TOLERANCE_PX).contains(&x);
        if !(inside(p.x, w) && inside(p.y, h)) {
            return Err(Error::field(
                format!("art.uvs[{v}]"),
                format!(
                    "({}, {}) is outside image {:?} ({w} x {h} pixels): glTF export needs \
                     coordinates inside the image",
                    p.x, p.y, art.images[k].name
                ),
            ));
        }
        out.push([
            (p.x / w).clamp(0.0, 1.0) as f32,
            (p.y / h).clamp(0.0, 1.0) as f32,
        ]);
    }
    Ok(out)
}

/// Art image `k`'s file bytes and its size in pixels. The file is decoded once to check it:
/// this build reads PNG only, so what is embedded is the PNG file byte for byte.
fn png_bytes(image: &ArtImage, k: usize) -> Result<(Vec<u8>, (u32, u32))> {
    let field = format!("art.images[{k}]");
    let unreadable = |e: &dyn std::fmt::Display| {
        Error::field(
            &field,
            format!("cannot read image {}: {e}", image.path.display()),
        )
    };
    let bytes = std::fs::read(&image.path).map_err(|e| unreadable(&e))?;
    let decoded = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)
        .map_err(|e| unreadable(&e))?;
    if decoded.width() == 0 || decoded.height() == 0 {
        return Err(unreadable(&"it has no pixels"));
    }
    Ok((bytes, (decoded.width(), decoded.height())))
}
