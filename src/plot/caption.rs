//! Captions on rendered pictures: a strip above the picture with lines of text, so a frame
//! of a contact sheet or an animation says what it shows (weights, clip, time) without the
//! command line beside it.

use super::{plot_err, register_fonts};
use crate::error::Result;
use image::RgbImage;
use plotters::prelude::*;

/// Background of the caption strip.
const STRIP: [u8; 3] = [32, 32, 32];
/// Text colour.
const INK: RGBColor = RGBColor(235, 235, 235);
/// Largest and smallest text size, pixels.
const MAX_TEXT: f64 = 22.0;
const MIN_TEXT: f64 = 10.0;

/// `picture` with `lines` of text in a dark strip above it (as wide as the picture), at
/// [`caption_size`]. Errors: the text renderer's.
pub fn caption(picture: &RgbImage, lines: &[String]) -> Result<RgbImage> {
    caption_at(picture, lines, caption_size(picture.width(), lines))
}

/// The text size, pixels, at which the longest of `lines` fits in `width` pixels, within
/// 10-22 px (a picture narrower than that shows the start of each line).
pub fn caption_size(width: u32, lines: &[String]) -> f64 {
    let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    // DejaVu Sans averages about 0.55 em a character.
    (f64::from(width) / (0.58 * longest.max(1) as f64 + 1.0)).clamp(MIN_TEXT, MAX_TEXT)
}

/// [`caption`] with the text `size` in pixels given (clamped to 10-22): pictures captioned
/// at one size with the same number of lines keep one height (panels side by side).
pub fn caption_at(picture: &RgbImage, lines: &[String], size: f64) -> Result<RgbImage> {
    register_fonts();
    let width = picture.width();
    let size = size.clamp(MIN_TEXT, MAX_TEXT);
    let line_height = (size * 1.3).ceil() as u32;
    let strip_height = line_height * lines.len() as u32 + (size * 0.6).ceil() as u32;
    let mut strip = RgbImage::from_pixel(width, strip_height, image::Rgb(STRIP));
    {
        let root =
            BitMapBackend::with_buffer(strip.as_mut(), (width, strip_height)).into_drawing_area();
        let style = ("sans-serif", size).into_font().color(&INK);
        for (k, line) in lines.iter().enumerate() {
            let y = (size * 0.35) as i32 + (k as u32 * line_height) as i32;
            root.draw_text(line, &style, ((size * 0.4) as i32, y))
                .map_err(plot_err)?;
        }
        root.present().map_err(plot_err)?;
    }
    let mut out = RgbImage::new(width, strip_height + picture.height());
    image::imageops::replace(&mut out, &strip, 0, 0);
    image::imageops::replace(&mut out, picture, 0, i64::from(strip_height));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caption_adds_a_strip_with_text_and_keeps_the_picture() {
        let picture = RgbImage::from_pixel(300, 200, image::Rgb([200, 10, 10]));
        let lines = vec!["heat.json".to_string(), "walk  t = 0.333 s".to_string()];
        let out = caption(&picture, &lines).unwrap();
        assert_eq!(out.width(), 300);
        let strip = out.height() - 200;
        assert!(strip >= 2 * 13, "{strip}");
        // The picture is below the strip, unchanged.
        for (x, y, p) in picture.enumerate_pixels() {
            assert_eq!(out.get_pixel(x, y + strip), p);
        }
        // Text: bright pixels in the strip.
        let ink = (0..strip)
            .flat_map(|y| (0..300).map(move |x| (x, y)))
            .filter(|&(x, y)| out.get_pixel(x, y).0[0] > 150)
            .count();
        assert!(ink > 100, "{ink} text pixels");
    }
}
