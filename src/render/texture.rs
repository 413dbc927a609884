//! Textures: an art image's pixels, converted to the alpha mode the renderer samples in, and
//! bilinear sampling with clamp-to-edge, as a GPU's linear filter does.

use crate::error::{ArtError, Result};
use crate::io::Sprite;
use crate::mesh::Mesh;
use crate::scene::{AlphaMode, Art, Scene};
use image::RgbaImage;
use std::path::Path;

/// One image's pixels and how they store colour.
#[derive(Debug, Clone)]
pub struct Texture {
    /// Name errors and reports use (the art image's name or path).
    pub name: String,
    /// The pixels, 8 bits per channel, rows from the top.
    pub image: RgbaImage,
    /// How `image` stores colour at partly transparent texels.
    pub stored: AlphaMode,
}

impl Texture {
    /// Wraps pixels already in memory.
    pub fn new(name: impl Into<String>, image: RgbaImage, stored: AlphaMode) -> Texture {
        Texture {
            name: name.into(),
            image,
            stored,
        }
    }

    /// Reads a PNG file (errors name the path: missing file, not a PNG, too large).
    pub fn load(path: &Path, stored: AlphaMode) -> Result<Texture> {
        let sprite = Sprite::load(path)?;
        Ok(Texture::new(sprite.source, sprite.image, stored))
    }

    /// Every image of `art`, in order.
    pub fn load_art(art: &Art) -> Result<Vec<Texture>> {
        art.images
            .iter()
            .map(|im| Texture::load(&im.path, im.alpha))
            .collect()
    }

    /// The texels as floats in `0..=1`, in alpha mode `mode` (converted from the stored mode
    /// in floating point, without rounding).
    pub(crate) fn texels(&self, mode: AlphaMode) -> Texels {
        let data = self
            .image
            .pixels()
            .map(|p| {
                let [r, g, b, a] = p.0.map(|c| c as f32 / 255.0);
                match (self.stored, mode) {
                    (AlphaMode::Straight, AlphaMode::Premultiplied) => [r * a, g * a, b * a, a],
                    (AlphaMode::Premultiplied, AlphaMode::Straight) if a > 0.0 => {
                        [(r / a).min(1.0), (g / a).min(1.0), (b / a).min(1.0), a]
                    }
                    (AlphaMode::Premultiplied, AlphaMode::Straight) => [0.0; 4],
                    _ => [r, g, b, a],
                }
            })
            .collect();
        Texels {
            width: self.image.width() as usize,
            height: self.image.height() as usize,
            data,
        }
    }
}

/// Checks that every vertex of a textured layer has its texture coordinate inside its
/// image (within 1e-6 px): a coordinate outside is an error naming the vertex, the image and
/// its size.
pub fn check_uvs(mesh: &Mesh, art: &Art, textures: &[Texture]) -> Result<()> {
    if textures.len() != art.images.len() {
        return Err(ArtError::TextureCount {
            given: textures.len(),
            images: art.images.len(),
        }
        .into());
    }
    let image_of_part = art.image_of_part(mesh.parts());
    const TOL: f64 = 1e-6;
    for (v, (&part, uv)) in mesh.vertex_parts().iter().zip(&art.uvs).enumerate() {
        let Some(k) = image_of_part[part] else {
            continue;
        };
        let (w, h) = (
            textures[k].image.width() as f64,
            textures[k].image.height() as f64,
        );
        if !(uv.x >= -TOL && uv.x <= w + TOL && uv.y >= -TOL && uv.y <= h + TOL) {
            return Err(ArtError::UvOutsideImage {
                vertex: v,
                u: uv.x,
                v: uv.y,
                image: textures[k].name.clone(),
                width: w,
                height: h,
            }
            .into());
        }
    }
    Ok(())
}

/// Texels as floats, ready to sample.
pub(crate) struct Texels {
    width: usize,
    height: usize,
    data: Vec<[f32; 4]>,
}

impl Texels {
    /// Bilinear sample at `(u, v)` in texel units (texel `(c, r)` covers `[c, c+1] x [r, r+1]`,
    /// its centre at `+0.5`), clamped to the edge texels.
    #[inline(always)]
    pub(crate) fn bilinear(&self, u: f64, v: f64) -> [f32; 4] {
        let (x, y) = (u - 0.5, v - 0.5);
        let (x0, y0) = (floor(x), floor(y));
        let (fx, fy) = ((x - x0) as f32, (y - y0) as f32);
        // Through i64 (one instruction; f64 to usize is several): `floor` gives whole
        // numbers, the casts saturate, so the clamped indices are those of f64 clamping.
        let clamp = |i: i64, n: usize| i.clamp(0, n as i64 - 1) as usize;
        let (xi, yi) = (x0 as i64, y0 as i64);
        let (c0, c1) = (
            clamp(xi, self.width),
            clamp(xi.saturating_add(1), self.width),
        );
        let (r0, r1) = (
            clamp(yi, self.height),
            clamp(yi.saturating_add(1), self.height),
        );
        let w = self.width;
        let (row0, row1) = (&self.data[r0 * w..][..w], &self.data[r1 * w..][..w]);
        let (p00, p10, p01, p11) = (row0[c0], row0[c1], row1[c0], row1[c1]);
        let mut out = [0.0f32; 4];
        for k in 0..4 {
            let top = p00[k] + (p10[k] - p00[k]) * fx;
            let bottom = p01[k] + (p11[k] - p01[k]) * fx;
            out[k] = top + (bottom - top) * fy;
        }
        out
    }
}

/// `x.floor()` without the library call this target makes for it (no SSE4.1 `roundsd`):
/// identical for every f64 (numbers of magnitude 2^52 and up, infinities and NaN are their
/// own floor), except that -0.0 becomes +0.0, which no sample can tell apart.
#[inline]
pub(crate) fn floor(x: f64) -> f64 {
    if x.abs() < 4_503_599_627_370_496.0 {
        let t = x as i64 as f64;
        if t > x {
            t - 1.0
        } else {
            t
        }
    } else {
        x
    }
}

/// The colour (RGBA in 0..1, straight alpha) of every vertex: its layer's image sampled at
/// its texture coordinate (nearest texel, clamped); flat-colour layers get opaque grey.
pub fn vertex_colours(scene: &Scene, art: &Art) -> Result<Vec<[f64; 4]>> {
    let textures = Texture::load_art(art)?;
    let image_of_part = art.image_of_part(scene.mesh.parts());
    Ok((0..scene.mesh.vertex_count())
        .map(|v| match image_of_part[scene.mesh.vertex_parts()[v]] {
            Some(k) => {
                let im = &textures[k].image;
                let uv = art.uvs[v];
                let x = (uv.x.floor().max(0.0) as u32).min(im.width().saturating_sub(1));
                let y = (uv.y.floor().max(0.0) as u32).min(im.height().saturating_sub(1));
                let p = im.get_pixel(x, y).0.map(|c| c as f64 / 255.0);
                match textures[k].stored {
                    AlphaMode::Premultiplied if p[3] > 0.0 => {
                        [p[0] / p[3], p[1] / p[3], p[2] / p[3], p[3]]
                    }
                    _ => p,
                }
            }
            None => [0.5, 0.5, 0.5, 1.0],
        })
        .collect())
}
