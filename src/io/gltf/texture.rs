//! glTF textures on import: each primitive's material `baseColorTexture` becomes the image of
//! its part's layer, and its `TEXCOORD_n` the vertices' texture coordinates in image pixels
//! (`u · width`, `v · height`: glTF and [`Art`] both put the origin at the image's top-left,
//! v down).
//!
//! The image may be a file beside the `.gltf` (the same rules as buffer files: relative, no
//! `..`), a `data:` URI, or bytes in a buffer view. A file must exist and be an image this
//! build reads (PNG); its size is read from its header. Embedded images are decoded to check
//! them and come back as [`EmbeddedImage`]s, which [`GltfImport::write_embedded_images`] writes
//! beside the output scene (the art model refers to images by path). A texture coordinate
//! outside `[0, 1]` (a repeating texture, which layers cannot draw) is an error naming the
//! vertex. A mesh without textures has no art.
//!
//! Layers: a primitive whose `extras.skinweights.part` names a part (what the exporter
//! writes, one primitive per layer) gives that part its image, and the primitives' order is
//! the draw order; parts no primitive names follow in part order, each with the image of the
//! primitive its first vertex came from (one part per primitive in other files). A vertex's
//! coordinate is scaled by its part's image size. `extras.skinweights.alpha` =
//! `premultiplied` on an image marks art stored premultiplied (glTF's default is straight).

use super::json::{lookup, PrimitiveJson};
use super::primitives::Kept;
use super::reader::{relative_file, Reader, Values, Want};
use super::GltfImport;
use super::{FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT};
use crate::error::{Error, OutputError, Result, SkeletonError};
use crate::mesh::Mesh;
use crate::scene::{AlphaMode, Art, ArtImage, Layer, Scene};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use nalgebra::Point2;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// How far (in texture units) a coordinate may stray outside `[0, 1]`: f32 rounding.
const UV_TOLERANCE: f64 = 1e-6;

/// `materials[i]`: only the base colour texture is read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct MaterialJson {
    pbr_metallic_roughness: Option<PbrJson>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PbrJson {
    base_color_texture: Option<TextureInfoJson>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TextureInfoJson {
    index: usize,
    #[serde(default)]
    tex_coord: usize,
}

/// `textures[i]`.
#[derive(Deserialize)]
pub(super) struct TextureJson {
    source: Option<usize>,
}

/// `images[i]`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ImageJson {
    uri: Option<String>,
    buffer_view: Option<usize>,
    name: Option<String>,
    /// `extras.skinweights.alpha`: `premultiplied` for art stored premultiplied.
    extras: Option<serde_json::Value>,
}

/// An image stored inside the glTF (a `data:` URI or a buffer view): its bytes as stored,
/// to be written to the file name of [`Art::images`]`[image]` before the scene is used.
#[derive(Debug, Clone)]
pub struct EmbeddedImage {
    /// Index into the imported art's images.
    pub image: usize,
    /// File name to write it under (no folder): `SCENE_imageK.png`.
    pub file_name: String,
    /// The encoded image (PNG).
    pub bytes: Vec<u8>,
}

impl GltfImport {
    /// Writes the embedded images into `dir` and points the scene's art at them; refuses to
    /// overwrite a file unless `force`. Returns the paths written (none for a glTF whose
    /// images are files).
    pub fn write_embedded_images(&mut self, dir: &Path, force: bool) -> Result<Vec<PathBuf>> {
        write_embedded_images(&mut self.scene, &self.report.embedded_images, dir, force)
    }
}

/// Writes `embedded` into `dir` and points `scene`'s art at them (see
/// [`GltfImport::write_embedded_images`]).
pub(super) fn write_embedded_images(
    scene: &mut Scene,
    embedded: &[EmbeddedImage],
    dir: &Path,
    force: bool,
) -> Result<Vec<PathBuf>> {
    let Some(art) = scene.art.as_mut() else {
        return Ok(Vec::new());
    };
    let paths: Vec<PathBuf> = embedded.iter().map(|e| dir.join(&e.file_name)).collect();
    if let Some(p) = paths.iter().find(|p| !force && p.exists()) {
        return Err(OutputError::WouldOverwrite { path: p.clone() }.into());
    }
    for (e, path) in embedded.iter().zip(&paths) {
        crate::io::write_atomic(path, &e.bytes)?;
        art.images[e.image].path = path.clone();
    }
    Ok(paths)
}

/// The size of PNG bytes, decoded whole (PNG only, whatever image formats other features of
/// the build may decode).
fn png_size(bytes: &[u8]) -> std::result::Result<(u32, u32), String> {
    image::load_from_memory_with_format(bytes, image::ImageFormat::Png)
        .map(|im| (im.width(), im.height()))
        .map_err(|e| e.to_string())
}

/// The art of the imported mesh, or `None` when no primitive has a base colour texture.
/// `vertex_counts[p]` is the vertex count of primitive `p`'s POSITION accessor, `kept` where
/// each mesh vertex came from, `name` the scene's (it names embedded image files).
#[allow(clippy::too_many_arguments)]
pub(super) fn read_art(
    reader: &Reader,
    prims: &[PrimitiveJson],
    mesh_index: usize,
    vertex_counts: &[usize],
    mesh: &Mesh,
    kept: &[Kept],
    name: &str,
    base_dir: Option<&Path>,
    notes: &mut Vec<String>,
) -> Result<Option<(Art, Vec<EmbeddedImage>)>> {
    let (parts, vertex_parts) = (mesh.parts(), mesh.vertex_parts());
    // Per primitive: (glTF image index, TEXCOORD set).
    let mut textured: Vec<Option<(usize, usize)>> = Vec::with_capacity(prims.len());
    for (p, prim) in prims.iter().enumerate() {
        textured.push(primitive_texture(reader, prim, p)?);
    }
    if textured.iter().all(Option::is_none) {
        return Ok(None);
    }
    // Each glTF image used, once, in order of first use: art image k.
    let mut used: Vec<usize> = Vec::new();
    for &(image, _) in textured.iter().flatten() {
        if !used.contains(&image) {
            used.push(image);
        }
    }
    let UsedImages {
        images,
        sizes,
        embedded,
    } = read_used_images(reader, &used, name, base_dir)?;
    let coords = read_coords(reader, prims, &textured, mesh_index, vertex_counts)?;
    // The primitive that gives each part its image: the one whose `extras.skinweights.part`
    // names it (what the exporter writes), else the one its first vertex came from.
    let named = named_parts(prims, mesh_index, parts)?;
    let art_image =
        |p: usize| textured[p].map(|(i, _)| used.iter().position(|&u| u == i).unwrap_or(0));
    let source = part_sources(&named, parts, kept, vertex_parts, &art_image, notes);
    let part_image: Vec<Option<usize>> = source.iter().map(|s| s.and_then(art_image)).collect();
    let uvs = PartCoords {
        prims,
        mesh_index,
        coords: &coords,
        source: &source,
        part_image: &part_image,
        sizes: &sizes,
    }
    .vertex_uvs(kept, vertex_parts)?;
    let layers = draw_layers(&named, parts, &part_image);
    Ok(Some((
        Art {
            images,
            uvs,
            layers,
        },
        embedded,
    )))
}

/// The art images of the glTF images `used`, their sizes and the embedded ones' bytes.
struct UsedImages {
    images: Vec<ArtImage>,
    sizes: Vec<(u32, u32)>,
    embedded: Vec<EmbeddedImage>,
}

/// Reads the glTF images `used` (art image k from `used[k]`).
fn read_used_images(
    reader: &Reader,
    used: &[usize],
    name: &str,
    base_dir: Option<&Path>,
) -> Result<UsedImages> {
    let mut images = Vec::with_capacity(used.len());
    let mut sizes = Vec::with_capacity(used.len());
    let mut embedded = Vec::new();
    for (k, &i) in used.iter().enumerate() {
        let FoundImage { image, size, bytes } = read_image(reader, i, name, k, base_dir)?;
        if let Some(bytes) = bytes {
            embedded.push(EmbeddedImage {
                image: k,
                file_name: image.path.to_string_lossy().into_owned(),
                bytes,
            });
        }
        images.push(image);
        sizes.push(size);
    }
    Ok(UsedImages {
        images,
        sizes,
        embedded,
    })
}

/// Texture coordinates per primitive (read once for a stream's vertex count); `None` for
/// an untextured primitive.
fn read_coords(
    reader: &Reader,
    prims: &[PrimitiveJson],
    textured: &[Option<(usize, usize)>],
    mesh_index: usize,
    vertex_counts: &[usize],
) -> Result<Vec<Option<Values>>> {
    let mut coords: Vec<Option<Values>> = Vec::with_capacity(prims.len());
    for (p, (prim, tex)) in prims.iter().zip(textured).enumerate() {
        coords.push(match tex {
            None => None,
            Some((_, set)) => {
                let role = format!("TEXCOORD_{set}");
                let field = format!("meshes[{mesh_index}].primitives[{p}].attributes.{role}");
                let &accessor = prim.attributes.get(&role).ok_or_else(|| {
                    Error::field(&field, "missing, but the material has a texture")
                })?;
                let n = vertex_counts[p];
                Some(reader.read(
                    accessor,
                    &Want {
                        role: &role,
                        kinds: &["VEC2"],
                        component_types: &[FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT],
                        count: Some((n, "one per POSITION")),
                        indices: false,
                    },
                )?)
            }
        });
    }
    Ok(coords)
}

/// The primitive that gives each part its image: the first primitive that `named` names it
/// in, else the one its first vertex came from (noting parts that mix textures).
fn part_sources(
    named: &[Option<usize>],
    parts: &[String],
    kept: &[Kept],
    vertex_parts: &[usize],
    art_image: &dyn Fn(usize) -> Option<usize>,
    notes: &mut Vec<String>,
) -> Vec<Option<usize>> {
    let mut source: Vec<Option<usize>> = vec![None; parts.len()];
    for (p, part) in named.iter().enumerate() {
        if let Some(part) = *part {
            source[part].get_or_insert(p);
        }
    }
    for (k, &part) in kept.iter().zip(vertex_parts) {
        match source[part] {
            None => source[part] = Some(k.primitive),
            Some(first) if named.iter().all(|n| *n != Some(part)) => {
                if art_image(first) != art_image(k.primitive) {
                    notes.push(format!(
                        "part {:?} mixes primitives with different textures: drawn with its \
                         first vertex's",
                        parts[part]
                    ));
                }
            }
            Some(_) => {}
        }
    }
    source
}

/// What the mesh vertices' page pixels are read from.
struct PartCoords<'a> {
    prims: &'a [PrimitiveJson],
    mesh_index: usize,
    /// Texture coordinates per primitive.
    coords: &'a [Option<Values>],
    /// The primitive that gives each part its image.
    source: &'a [Option<usize>],
    /// Each part's art image.
    part_image: &'a [Option<usize>],
    /// Each art image's size in pixels.
    sizes: &'a [(u32, u32)],
}

impl PartCoords<'_> {
    /// Each mesh vertex's pixel in its part's image (the origin for an untextured part).
    fn vertex_uvs(&self, kept: &[Kept], vertex_parts: &[usize]) -> Result<Vec<Point2<f64>>> {
        let (prims, mesh_index) = (self.prims, self.mesh_index);
        let mut uvs = Vec::with_capacity(kept.len());
        for (v, (k, &part)) in kept.iter().zip(vertex_parts).enumerate() {
            // The coordinates of the part's own primitive when it numbers the same vertices.
            let q = self.source[part]
                .filter(|&q| {
                    prims[q].attributes.get("POSITION")
                        == prims[k.primitive].attributes.get("POSITION")
                })
                .unwrap_or(k.primitive);
            let uv = match (&self.coords[q], self.part_image[part]) {
                (Some(c), Some(img)) => {
                    let t = c.element(k.vertex);
                    let outside = |x: f64| !(-UV_TOLERANCE..=1.0 + UV_TOLERANCE).contains(&x);
                    if outside(t[0]) || outside(t[1]) {
                        return Err(Error::field(
                            format!("meshes[{mesh_index}].primitives[{q}] TEXCOORD of vertex {v}"),
                            format!(
                                "({}, {}) is outside [0, 1]: repeating textures are not supported",
                                t[0], t[1]
                            ),
                        ));
                    }
                    let (w, h) = self.sizes[img];
                    Point2::new(
                        t[0].clamp(0.0, 1.0) * w as f64,
                        t[1].clamp(0.0, 1.0) * h as f64,
                    )
                }
                _ => Point2::origin(),
            };
            uvs.push(uv);
        }
        Ok(uvs)
    }
}

/// Draw order: the named parts in primitive order, then the others in part order.
fn draw_layers(
    named: &[Option<usize>],
    parts: &[String],
    part_image: &[Option<usize>],
) -> Vec<Layer> {
    let mut order: Vec<usize> = Vec::with_capacity(parts.len());
    let mut placed = vec![false; parts.len()];
    for part in named.iter().flatten().copied().chain(0..parts.len()) {
        if !std::mem::replace(&mut placed[part], true) {
            order.push(part);
        }
    }
    order
        .iter()
        .map(|&part| Layer::new(parts[part].clone(), part_image[part]))
        .collect()
}

/// Per primitive, the part its `extras.skinweights.part` names (`None` without one); a name
/// that is not a part of the mesh is an error naming the primitive.
fn named_parts(
    prims: &[PrimitiveJson],
    mesh_index: usize,
    parts: &[String],
) -> Result<Vec<Option<usize>>> {
    prims
        .iter()
        .enumerate()
        .map(|(p, prim)| {
            let Some(name) = prim
                .extras
                .as_ref()
                .and_then(|e| e.get("skinweights"))
                .and_then(|e| e.get("part"))
            else {
                return Ok(None);
            };
            let context = format!("meshes[{mesh_index}].primitives[{p}].extras.skinweights.part");
            let name = name
                .as_str()
                .ok_or_else(|| Error::field(&context, format!("{name} is not a string")))?;
            parts
                .iter()
                .position(|q| q == name)
                .map(Some)
                .ok_or_else(|| {
                    Error::Skeleton(SkeletonError::UnknownPart {
                        context,
                        part: name.to_string(),
                        known: parts.to_vec(),
                    })
                })
        })
        .collect()
}

/// The (image index, TEXCOORD set) of primitive `p`'s base colour texture, if it has one.
fn primitive_texture(
    reader: &Reader,
    prim: &PrimitiveJson,
    p: usize,
) -> Result<Option<(usize, usize)>> {
    let Some(m) = prim.material else {
        return Ok(None);
    };
    let material = lookup(&reader.doc.materials, m, "materials")?;
    let Some(info) = material
        .pbr_metallic_roughness
        .as_ref()
        .and_then(|pbr| pbr.base_color_texture.as_ref())
    else {
        return Ok(None);
    };
    let texture = lookup(&reader.doc.textures, info.index, "textures")?;
    let source = texture.source.ok_or_else(|| {
        Error::field(
            format!("textures[{}].source", info.index),
            format!("missing (primitive {p}'s material {m} uses it)"),
        )
    })?;
    lookup(&reader.doc.images, source, "images")?;
    Ok(Some((source, info.tex_coord)))
}

/// What [`read_image`] found: the art image, its size in pixels, its bytes when embedded.
struct FoundImage {
    image: ArtImage,
    size: (u32, u32),
    bytes: Option<Vec<u8>>,
}

/// Art image `k` from glTF image `i`.
fn read_image(
    reader: &Reader,
    i: usize,
    scene: &str,
    k: usize,
    base_dir: Option<&Path>,
) -> Result<FoundImage> {
    let json = &reader.doc.images[i];
    let field = format!("images[{i}]");
    let embedded_name = || format!("{scene}_image{k}.png");
    let (path, bytes) = match (&json.uri, json.buffer_view) {
        (Some(uri), _) if uri.starts_with("data:") => {
            let (_, data) = uri["data:".len()..]
                .split_once(";base64,")
                .ok_or_else(|| Error::field(format!("{field}.uri"), "data URI is not base64"))?;
            let bytes = BASE64
                .decode(data)
                .map_err(|e| Error::field(format!("{field}.uri"), format!("bad base64: {e}")))?;
            (PathBuf::from(embedded_name()), Some(bytes))
        }
        (Some(uri), _) => {
            let name = relative_file(uri).map_err(|m| Error::field(format!("{field}.uri"), m))?;
            let dir = base_dir.ok_or_else(|| {
                Error::field(
                    format!("{field}.uri"),
                    format!("image file {uri:?} but no directory to resolve it"),
                )
            })?;
            (dir.join(name), None)
        }
        (None, Some(view)) => {
            let bytes = reader.view_bytes(view)?;
            (PathBuf::from(embedded_name()), Some(bytes.to_vec()))
        }
        (None, None) => {
            return Err(Error::field(&field, "has neither a uri nor a bufferView"));
        }
    };
    let size = match &bytes {
        Some(b) => png_size(b)
            .map_err(|e| Error::field(&field, format!("embedded image does not decode: {e}")))?,
        None => crate::io::png_dimensions(&path)
            .map_err(|e| Error::field(&field, format!("cannot read image: {e}")))?,
    };
    if size.0 == 0 || size.1 == 0 {
        return Err(Error::field(&field, "image has no pixels"));
    }
    let name = json.name.clone().unwrap_or_else(|| match &bytes {
        Some(_) => format!("image{k}"),
        None => path
            .file_stem()
            .map_or_else(|| format!("image{k}"), |s| s.to_string_lossy().into_owned()),
    });
    let alpha = match json
        .extras
        .as_ref()
        .and_then(|e| e.get("skinweights"))
        .and_then(|e| e.get("alpha"))
    {
        None => AlphaMode::Straight,
        Some(a) => a.as_str().and_then(AlphaMode::from_name).ok_or_else(|| {
            Error::field(
                format!("{field}.extras.skinweights.alpha"),
                format!("{a} (expected \"straight\" or \"premultiplied\")"),
            )
        })?,
    };
    Ok(FoundImage {
        image: ArtImage { name, path, alpha },
        size,
        bytes,
    })
}
