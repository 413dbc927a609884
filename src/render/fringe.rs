//! The fringe metric: how far the colours at a render's edges are from the correct
//! (premultiplied) colours, found by triangulation matting over black and white.
//!
//! Render the same pose in the same frame over black (K) and white (W). Per pixel, coverage
//! is `a = 1 - mean_c(W - K) / 255` and the premultiplied colour is K (a colour drawn 'over'
//! a background B gives `C + (1 - a)·B`). A reference render (premultiplied alpha, 8 x 8
//! samples) gives `a_ref` and `c_ref = K_ref / a_ref`. The reference is an ideal, so it is
//! kept at 16 bits per channel (in 8-bit units, `K_ref` to 1/257 of a level): at a pixel the
//! reference barely covers, an 8-bit `a_ref` of one level (1/765) makes `c_ref` mostly rounding
//! (F = 5.0 on `pixel_edge`'s synthetic limb came from one such pixel). In the edge band, pixels with
//! `0 < a < 1` and `a_ref > 0`, the deviation of each colour channel is
//! `d = K - a·c_ref` (8-bit units; the colour the reference has, at the test render's own
//! coverage, so silhouette aliasing does not count):
//!
//! - **bias S** = mean of d over the band's channels: positive is a bright fringe, negative
//!   a dark one (the "fixed-colour fringe").
//! - **F** = max |d| and its 99th percentile (nearest rank) over the band's channels: how far
//!   edge colours are off at worst. Band pixels where the drawn mesh overlaps itself (a fold
//!   of the posed mesh, or one part over another; [`super::overlap_mask`], given to
//!   [`fringe_excluding`]) are left out of F: there the colour is a mix of two surfaces in
//!   proportions that depend on where the samples fall, so the render and the reference differ
//!   by sampling alone (up to 16 levels in `pixel_edge`'s probe poses, premultiplied, 2 x 2
//!   samples), which
//!   says nothing about the alpha pipeline. S and G use every band / interior pixel as before.
//! - **gap G** = 1 - min a over the reference's opaque interior (pixels with `a_ref = 1`)
//!   eroded by one pixel (all 8 neighbours opaque too): background showing through a shape.
//! - **red check**: a render over red (R) must equal `K + (1 - a)·(255, 0, 0)` up to
//!   rounding; the largest difference checks that blending is linear in the background.

use super::raster::Rgb16Image;
use crate::error::{OutputError, Result};
use image::RgbImage;
use rayon::prelude::*;

/// The fringe numbers of one render (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fringe {
    /// Bias S: mean deviation in the edge band, 8-bit units (positive: bright fringe).
    pub bias: f64,
    /// F: largest |deviation| in the edge band, 8-bit units.
    pub max: f64,
    /// 99th percentile of |deviation| in the edge band, 8-bit units.
    pub p99: f64,
    /// Gap G: 1 - the smallest coverage inside the reference's eroded opaque interior.
    pub gap: f64,
    /// Pixels in the edge band.
    pub band_pixels: usize,
    /// Band pixels left out of F (where the mesh overlaps itself; 0 without a mask).
    pub f_excluded: usize,
    /// Pixels in the eroded interior.
    pub interior_pixels: usize,
    /// Largest |R - (K + (1 - a)·red)| over all pixels and channels, when a red render was
    /// given.
    pub red_error: Option<f64>,
}

/// Renders of one pose in one frame, the inputs of [`fringe`].
#[derive(Debug, Clone, Copy)]
pub struct Matting<'a> {
    /// The render under test over black.
    pub black: &'a RgbImage,
    /// The render under test over white.
    pub white: &'a RgbImage,
    /// The reference (premultiplied, 8 x 8 samples, 16 bits) over black.
    pub ref_black: &'a Rgb16Image,
    /// The reference over white.
    pub ref_white: &'a Rgb16Image,
    /// The render under test over red, for the consistency check (optional).
    pub red: Option<&'a RgbImage>,
}

/// Coverage `a = 1 - mean_c(W - K) / 255` of every pixel.
pub fn coverage(black: &RgbImage, white: &RgbImage) -> Vec<f64> {
    coverage_of(black.as_raw(), white.as_raw(), 255.0)
}

/// [`coverage`] of 16-bit renders (`/ 65535`), such as the reference.
pub fn coverage_16(black: &Rgb16Image, white: &Rgb16Image) -> Vec<f64> {
    coverage_of(black.as_raw(), white.as_raw(), 65535.0)
}

fn coverage_of<T: Copy + Into<f64> + Sync>(black: &[T], white: &[T], max: f64) -> Vec<f64> {
    black
        .par_chunks_exact(3)
        .zip(white.par_chunks_exact(3))
        .map(|(k, w)| {
            let diff: f64 = (0..3).map(|c| w[c].into() - k[c].into()).sum();
            1.0 - diff / (3.0 * max)
        })
        .collect()
}

/// The fringe metric of a matting set (see the module docs), F over the whole band. Errors:
/// images of different sizes.
pub fn fringe(m: &Matting) -> Result<Fringe> {
    fringe_excluding(m, None)
}

/// [`fringe`] with F taken over the band pixels not flagged in `excluded` (one flag per pixel,
/// row-major, e.g. [`super::overlap_mask`]). Errors: images or a mask of different sizes.
pub fn fringe_excluding(m: &Matting, excluded: Option<&[bool]>) -> Result<Fringe> {
    let (w, h) = checked_size(m, excluded)?;
    let a = coverage(m.black, m.white);
    let a_ref = coverage_16(m.ref_black, m.ref_white);
    let k = m.black.as_raw();
    let band = band_deviations(k, m.ref_black.as_raw(), &a, &a_ref, excluded);
    let bias = if band.deviations.is_empty() {
        0.0
    } else {
        band.deviations.iter().sum::<f64>() / band.deviations.len() as f64
    };
    let mut abs = band.abs;
    abs.sort_by(f64::total_cmp);
    let max = abs.last().copied().unwrap_or(0.0);
    let p99 = if abs.is_empty() {
        0.0
    } else {
        abs[((0.99 * abs.len() as f64).ceil() as usize).clamp(1, abs.len()) - 1]
    };
    let (interior_pixels, min_a) = eroded_interior(&a, &a_ref, w, h);
    let red_error = m.red.map(|r| red_check_error(k, r.as_raw(), &a));
    Ok(Fringe {
        bias,
        max,
        p99,
        gap: 1.0 - min_a,
        band_pixels: band.band_pixels,
        f_excluded: band.f_excluded,
        interior_pixels,
        red_error,
    })
}

/// The width and height, pixels, that every image of `m` and the `excluded` mask share;
/// an error naming the first that differs from the render over black.
fn checked_size(m: &Matting, excluded: Option<&[bool]>) -> Result<(usize, usize)> {
    let size = m.black.dimensions();
    for (name, dimensions) in [
        ("white", Some(m.white.dimensions())),
        ("ref_black", Some(m.ref_black.dimensions())),
        ("ref_white", Some(m.ref_white.dimensions())),
        ("red", m.red.map(RgbImage::dimensions)),
    ] {
        if let Some(dimensions) = dimensions {
            if dimensions != size {
                return Err(OutputError::RenderSize {
                    render: name,
                    got: dimensions,
                    frame: size,
                }
                .into());
            }
        }
    }
    let (w, h) = (size.0 as usize, size.1 as usize);
    if let Some(mask) = excluded {
        if mask.len() != w * h {
            return Err(OutputError::MaskSize {
                given: mask.len(),
                pixels: w * h,
            }
            .into());
        }
    }
    Ok((w, h))
}

/// The edge band's colour deviations `d = K - a·c_ref`, channel by channel in pixel order.
struct BandDeviations {
    /// Every band channel's deviation (for S).
    deviations: Vec<f64>,
    /// |deviation| of the band channels not excluded (for F).
    abs: Vec<f64>,
    /// Pixels in the edge band.
    band_pixels: usize,
    /// Band pixels left out of F.
    f_excluded: usize,
}

/// The deviations of the band pixels (`0 < a < 1`, `a_ref > 0`) of the render over black
/// `k` from the 16-bit reference over black `k_ref`, F leaving out the `excluded` pixels.
fn band_deviations(
    k: &[u8],
    k_ref: &[u16],
    a: &[f64],
    a_ref: &[f64],
    excluded: Option<&[bool]>,
) -> BandDeviations {
    // 16-bit reference levels in 8-bit units.
    let ref_level = 255.0 / 65535.0;
    let mut band = BandDeviations {
        deviations: Vec::new(),
        abs: Vec::new(),
        band_pixels: 0,
        f_excluded: 0,
    };
    for i in 0..a.len() {
        if !(a[i] > 0.0 && a[i] < 1.0 && a_ref[i] > 0.0) {
            continue;
        }
        band.band_pixels += 1;
        let in_f = !excluded.is_some_and(|mask| mask[i]);
        band.f_excluded += usize::from(!in_f);
        for c in 0..3 {
            let c_ref = k_ref[3 * i + c] as f64 * ref_level / a_ref[i];
            let d = k[3 * i + c] as f64 - a[i] * c_ref;
            band.deviations.push(d);
            if in_f {
                band.abs.push(d.abs());
            }
        }
    }
    band
}

/// The pixel count of the reference's opaque interior eroded by one pixel (a `w` x `h`
/// frame), and the smallest coverage `a` there (1 if it is empty).
fn eroded_interior(a: &[f64], a_ref: &[f64], w: usize, h: usize) -> (usize, f64) {
    let opaque = |x: isize, y: isize| {
        x >= 0
            && y >= 0
            && (x as usize) < w
            && (y as usize) < h
            && a_ref[y as usize * w + x as usize] >= 1.0
    };
    // Rows in parallel: a count and a minimum do not depend on the order.
    (0..h as isize)
        .into_par_iter()
        .map(|y| {
            let mut row = (0usize, 1.0f64);
            for x in 0..w as isize {
                let inside = (-1..=1).all(|dy| (-1..=1).all(|dx| opaque(x + dx, y + dy)));
                if inside {
                    row.0 += 1;
                    row.1 = row.1.min(a[y as usize * w + x as usize]);
                }
            }
            row
        })
        .reduce(|| (0, 1.0), |p, q| (p.0 + q.0, p.1.min(q.1)))
}

/// The largest |R - (K + (1 - a)·red)| over every pixel and channel of the render over red
/// `r`, predicted from the render over black `k` and the coverage `a`.
fn red_check_error(k: &[u8], r: &[u8], a: &[f64]) -> f64 {
    (0..a.len())
        .into_par_iter()
        .map(|i| {
            let red = [255.0, 0.0, 0.0];
            let mut worst: f64 = 0.0;
            for c in 0..3 {
                let predicted = k[3 * i + c] as f64 + (1.0 - a[i]) * red[c];
                worst = worst.max((r[3 * i + c] as f64 - predicted).abs());
            }
            worst
        })
        .reduce(|| 0.0, f64::max)
}
