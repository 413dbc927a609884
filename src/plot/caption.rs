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
/// Largest and smallest text size, pixels. Below 13 px DejaVu Sans, anti-aliased without
/// hinting, runs letters together ("clip" read as "dip" at 10 px): a narrower panel wraps
/// its lines instead of shrinking the text further.
const MAX_TEXT: f64 = 22.0;
const MIN_TEXT: f64 = 13.0;

/// `picture` with `lines` of text in a dark strip above it (as wide as the picture), at
/// [`caption_size`]. Errors: the text renderer's.
pub fn caption(picture: &RgbImage, lines: &[String]) -> Result<RgbImage> {
    caption_at(picture, lines, caption_size(picture.width(), lines))
}

/// The text size, pixels, at which the longest of `lines` fits in `width` pixels, within
/// 13-22 px (a picture narrower than that wraps the lines: [`caption_layout`]).
pub fn caption_size(width: u32, lines: &[String]) -> f64 {
    let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    // DejaVu Sans averages about 0.55 em a character.
    (f64::from(width) / (0.58 * longest.max(1) as f64 + 1.0)).clamp(MIN_TEXT, MAX_TEXT)
}

/// `lines` as drawn in a strip `width` pixels wide at text `size` (clamped to 13-22): each
/// line wrapped at spaces to fit, and a word wider than the strip cut with "…".
pub fn caption_layout(width: u32, lines: &[String], size: f64) -> Vec<String> {
    register_fonts();
    let size = size.clamp(MIN_TEXT, MAX_TEXT);
    let font = FontDesc::new(FontFamily::SansSerif, size, FontStyle::Normal);
    let room = f64::from(width) - 0.8 * size;
    let fits = |text: &str| {
        font.box_size(text)
            .map_or(text.chars().count() as f64 * 0.58 * size, |(w, _)| {
                f64::from(w)
            })
            <= room
    };
    let cut = |word: &str| {
        let chars: Vec<char> = word.chars().collect();
        (0..chars.len())
            .rev()
            .map(|n| chars[..n].iter().collect::<String>() + "…")
            .find(|t| fits(t))
            .unwrap_or_else(|| "…".into())
    };
    let mut out = Vec::new();
    for line in lines {
        let mut current = String::new();
        for word in line.split(' ') {
            let joined = if current.is_empty() {
                word.to_string()
            } else {
                format!("{current} {word}")
            };
            if fits(&joined) {
                current = joined;
                continue;
            }
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            current = if fits(word) { word.into() } else { cut(word) };
        }
        out.push(current);
    }
    out
}

/// [`caption`] with the text `size` in pixels given (clamped to 13-22): pictures captioned
/// at one size with the same lines keep one height (panels side by side).
pub fn caption_at(picture: &RgbImage, lines: &[String], size: f64) -> Result<RgbImage> {
    caption_rows(picture, lines, size, 0)
}

/// [`caption_at`] with a strip of at least `rows` lines of text ([`caption_layout`]'s
/// count): frames whose captions wrap differently keep one height.
pub fn caption_rows(
    picture: &RgbImage,
    lines: &[String],
    size: f64,
    rows: usize,
) -> Result<RgbImage> {
    register_fonts();
    let width = picture.width();
    let size = size.clamp(MIN_TEXT, MAX_TEXT);
    let lines = caption_layout(width, lines, size);
    let line_height = (size * 1.3).ceil() as u32;
    let strip_height = line_height * lines.len().max(rows) as u32 + (size * 0.6).ceil() as u32;
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

    #[test]
    fn a_narrow_caption_wraps_at_a_legible_size_and_cuts_long_words() {
        let lines = vec!["clip walk  t = 0.333 s  (frame 3 of 12)".to_string()];
        // 120 px: the line does not fit at 13 px; it wraps, every piece fits.
        let size = caption_size(120, &lines);
        assert_eq!(size, 13.0);
        let laid = caption_layout(120, &lines, size);
        assert!(laid.len() > 1, "{laid:?}");
        assert_eq!(
            laid.join(" ").replace("  ", " "),
            lines[0].replace("  ", " ")
        );
        let long = vec!["weights: a_very_long_weights_file_name_without_spaces.json".to_string()];
        let laid = caption_layout(120, &long, 13.0);
        assert!(laid.iter().any(|l| l.ends_with('…')), "{laid:?}");
        // At least `rows` lines tall.
        let picture = RgbImage::from_pixel(120, 50, image::Rgb([0, 0, 0]));
        let a = caption_rows(&picture, &lines, 13.0, 0).unwrap();
        let b = caption_rows(&picture, &lines, 13.0, laid.len() + 5).unwrap();
        assert!(b.height() > a.height());
    }
}
