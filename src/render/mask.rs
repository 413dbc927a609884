//! Pixel masks: the flags of a `w x h` image, row-major.

/// `flags` grown by one pixel in each of the eight directions (a 3 x 3 dilation), clipped to
/// the image. Used where a measurement reads a pixel's neighbours too (bilinear taps, the
/// fringe metric's edge band).
pub(crate) fn dilate_one_pixel(flags: &[bool], w: usize, h: usize) -> Vec<bool> {
    debug_assert_eq!(flags.len(), w * h);
    let mut grown = vec![false; w * h];
    for y in 0..h {
        for x in (0..w).filter(|&x| flags[y * w + x]) {
            for yy in y.saturating_sub(1)..(y + 2).min(h) {
                grown[yy * w + x.saturating_sub(1)..yy * w + (x + 2).min(w)].fill(true);
            }
        }
    }
    grown
}

#[cfg(test)]
mod tests {
    use super::dilate_one_pixel;

    #[test]
    fn a_pixel_grows_to_its_three_by_three_block_clipped_at_the_border() {
        let (w, h) = (4, 3);
        let mut flags = vec![false; w * h];
        flags[0] = true; // corner (0, 0)
        flags[2 * w + 2] = true; // (2, 2), bottom row
        let grown = dilate_one_pixel(&flags, w, h);
        let set: Vec<usize> = (0..w * h).filter(|&k| grown[k]).collect();
        assert_eq!(set, vec![0, 1, 4, 5, 6, 7, 9, 10, 11]);
    }
}
