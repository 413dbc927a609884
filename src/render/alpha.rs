//! Alpha repairs from the seam repair order: alpha bleeding (dilation of colour into the
//! fully transparent texels) and premultiplication.

use image::RgbaImage;

/// Alpha bleeding: every fully transparent texel (alpha 0) reached within `rings` steps
/// (`None`: no limit) takes the colour of the nearest visible texels, ring by ring. Ring 0
/// is the texels with alpha > 0; a transparent texel joins ring k + 1 when one of its 8
/// neighbours is in ring k or below, and takes the mean colour (rounded) of those neighbours.
/// Alpha, and every texel with alpha > 0, stay byte-identical; transparent texels never
/// reached keep their colour. Time linear in the texel count.
pub fn bleed(image: &RgbaImage, rings: Option<u32>) -> RgbaImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let mut out = image.clone();
    // 0 = still to fill, 1 = filled (visible or an earlier ring).
    let mut filled: Vec<bool> = image.pixels().map(|p| p[3] > 0).collect();
    let neighbours = |i: usize| {
        let (x, y) = ((i % w) as isize, (i / w) as isize);
        (-1isize..=1)
            .flat_map(move |dy| (-1isize..=1).map(move |dx| (dx, dy)))
            .filter(|&d| d != (0, 0))
            .map(move |(dx, dy)| (x + dx, y + dy))
            .filter(move |&(x, y)| x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h)
            .map(move |(x, y)| y as usize * w + x as usize)
    };
    // The first frontier: transparent texels next to a visible one.
    let mut frontier: Vec<usize> = (0..w * h)
        .filter(|&i| !filled[i] && neighbours(i).any(|j| filled[j]))
        .collect();
    let mut ring = 0u32;
    while !frontier.is_empty() && rings.is_none_or(|k| ring < k) {
        ring += 1;
        let colours: Vec<[u8; 3]> = frontier
            .iter()
            .map(|&i| {
                let (mut sum, mut count) = ([0u32; 3], 0u32);
                for j in neighbours(i).filter(|&j| filled[j]) {
                    let p = out.as_raw();
                    for (c, s) in sum.iter_mut().enumerate() {
                        *s += p[4 * j + c] as u32;
                    }
                    count += 1;
                }
                sum.map(|s| ((s + count / 2) / count) as u8)
            })
            .collect();
        for (&i, c) in frontier.iter().zip(&colours) {
            let p = out.get_pixel_mut((i % w) as u32, (i / w) as u32);
            p.0[..3].copy_from_slice(c);
            filled[i] = true;
        }
        let mut next: Vec<usize> = frontier
            .iter()
            .flat_map(|&i| neighbours(i))
            .filter(|&j| !filled[j])
            .collect();
        next.sort_unstable();
        next.dedup();
        frontier = next;
    }
    out
}

/// Premultiplied alpha: every channel times alpha / 255, rounded to nearest (alpha kept).
pub fn premultiply(image: &RgbaImage) -> RgbaImage {
    let mut out = image.clone();
    for p in out.pixels_mut() {
        let a = p[3] as u32;
        for c in 0..3 {
            p.0[c] = ((p[c] as u32 * a + 127) / 255) as u8;
        }
    }
    out
}

/// Sets the colour of every fully transparent texel to `rgb` (alpha and visible texels
/// kept): the "dirty" transparent texels exporters leave behind, for experiments and tests.
pub fn fill_transparent(image: &RgbaImage, rgb: [u8; 3]) -> RgbaImage {
    let mut out = image.clone();
    for p in out.pixels_mut().filter(|p| p[3] == 0) {
        p.0[..3].copy_from_slice(&rgb);
    }
    out
}
