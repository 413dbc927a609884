//! Where a drawn mesh covers itself: pixels in which some point lies inside two or more
//! triangles (a fold of the posed mesh, or one part over another).
//!
//! The fringe metric's F compares the render's edge colours with a reference's at the
//! render's own coverage, which assumes one surface per pixel. Where two surfaces overlap
//! inside a pixel the mix of their colours depends on how much of each the samples hit, so
//! the test render and the 8 x 8 reference disagree by sampling alone (up to 16 levels in the
//! probe poses of `pixel_edge` at 2 x 2 samples), whatever the alpha pipeline. F leaves these pixels out
//! (see [`mod@super::fringe`]).

use super::raster::Frame;
use crate::mesh::Mesh;
use nalgebra::Point2;
use rayon::prelude::*;

/// Test points per pixel side.
const GRID: usize = 4;
/// Pixel rows a parallel task counts.
const BAND_PIXEL_ROWS: usize = 16;

/// One flag per pixel of `frame` (row-major): whether a point of a 4 x 4 grid in the pixel, or
/// in one of its 8 neighbours, lies strictly inside two or more triangles of `mesh` drawn at
/// `positions` (scene units). The one-pixel margin covers the bilinear filter's reach and the
/// reference's finer samples.
pub fn overlap_mask(mesh: &Mesh, positions: &[Point2<f64>], frame: &Frame) -> Vec<bool> {
    let (w, h) = (frame.width as usize, frame.height as usize);
    let (gw, gh) = (w * GRID, h * GRID);
    let px: Vec<Point2<f64>> = positions.iter().map(|&p| frame.to_pixels(p)).collect();
    let g = GRID as f64;
    // Bands of pixel rows in parallel, each counting every triangle's grid points in its own
    // rows: the flags do not depend on the split.
    let mut overlapped = vec![false; w * h];
    overlapped
        .par_chunks_mut(w * BAND_PIXEL_ROWS)
        .enumerate()
        .for_each(|(band, flags)| {
            let first_row = band * BAND_PIXEL_ROWS * GRID;
            let band_rows = flags.len() / w * GRID;
            let mut count = vec![0u8; gw * band_rows];
            for tri in mesh.triangles() {
                let [a, b, c] = tri.map(|v| px[v]);
                let area = (b - a).perp(&(c - a));
                if area == 0.0 || !area.is_finite() {
                    continue;
                }
                // Grid point (i, j) sits at ((i + 1/2) / GRID, (j + 1/2) / GRID) pixels.
                let range = |lo: f64, hi: f64, n: usize| {
                    let first = ((lo * g - 0.5).ceil().max(0.0)) as usize;
                    let last = ((hi * g - 0.5).floor().min(n as f64 - 1.0)).max(-1.0);
                    (first, last as isize)
                };
                let (i0, i1) = range(a.x.min(b.x).min(c.x), a.x.max(b.x).max(c.x), gw);
                let (j0, j1) = range(a.y.min(b.y).min(c.y), a.y.max(b.y).max(c.y), gh);
                let j0 = j0.max(first_row) as isize;
                let j1 = j1.min((first_row + band_rows) as isize - 1);
                let sign = area.signum();
                let inside = |p: Point2<f64>| {
                    let e = |u: Point2<f64>, v: Point2<f64>| sign * (v - u).perp(&(p - u)) > 0.0;
                    e(a, b) && e(b, c) && e(c, a)
                };
                for j in j0..=j1 {
                    let y = (j as f64 + 0.5) / g;
                    let at = |i: isize| Point2::new((i as f64 + 0.5) / g, y);
                    // The row meets the triangle in one run of grid points: find its ends
                    // from the bounding box inwards with the exact test, then count the run.
                    let Some(first) = (i0 as isize..=i1).find(|&i| inside(at(i))) else {
                        continue;
                    };
                    let last = (first..=i1).rev().find(|&i| inside(at(i))).unwrap_or(first);
                    let row = (j as usize - first_row) * gw;
                    for n in &mut count[row + first as usize..=row + last as usize] {
                        *n = n.saturating_add(1);
                    }
                }
            }
            for (k, _) in count.iter().enumerate().filter(|(_, &n)| n >= 2) {
                flags[(k / gw / GRID) * w + (k % gw) / GRID] = true;
            }
        });
    super::mask::dilate_one_pixel(&overlapped, w, h)
}
