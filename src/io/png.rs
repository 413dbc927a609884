//! PNG encoding: one rule for every still image the toolkit writes (renders, weight maps,
//! painted textures), so the same pixels always give the same bytes.
//!
//! Adaptive filtering and the `png` crate's fast deflate: a 4096 x 4096 render is written in
//! a fraction of the time it takes to draw.

use crate::error::{Error, FormatError, Result};
use image::{ColorType, EncodableLayout, ImageBuffer, PixelWithColorType};
use std::path::Path;

/// Encodes `image` as a PNG (8 or 16 bits a channel; gray, gray and alpha, RGB or RGBA);
/// `path` names the file in errors. Errors: [`FormatError::Image`] for a pixel type PNG
/// cannot hold.
pub fn encode_png<P>(image: &ImageBuffer<P, Vec<P::Subpixel>>, path: &Path) -> Result<Vec<u8>>
where
    P: PixelWithColorType,
    [P::Subpixel]: EncodableLayout,
{
    let error = |message: String| {
        Error::Format(FormatError::Image {
            path: path.into(),
            message,
        })
    };
    let (color, depth) = match P::COLOR_TYPE {
        ColorType::L8 => (png::ColorType::Grayscale, png::BitDepth::Eight),
        ColorType::L16 => (png::ColorType::Grayscale, png::BitDepth::Sixteen),
        ColorType::La8 => (png::ColorType::GrayscaleAlpha, png::BitDepth::Eight),
        ColorType::La16 => (png::ColorType::GrayscaleAlpha, png::BitDepth::Sixteen),
        ColorType::Rgb8 => (png::ColorType::Rgb, png::BitDepth::Eight),
        ColorType::Rgb16 => (png::ColorType::Rgb, png::BitDepth::Sixteen),
        ColorType::Rgba8 => (png::ColorType::Rgba, png::BitDepth::Eight),
        ColorType::Rgba16 => (png::ColorType::Rgba, png::BitDepth::Sixteen),
        other => return Err(error(format!("PNG cannot hold {other:?} pixels"))),
    };
    let native = image.as_raw().as_bytes();
    // PNG's 16-bit samples are big-endian; the buffer holds them in the machine's order.
    let samples: std::borrow::Cow<[u8]> = match depth {
        png::BitDepth::Sixteen if cfg!(target_endian = "little") => native
            .chunks_exact(2)
            .flat_map(|pair| [pair[1], pair[0]])
            .collect::<Vec<u8>>()
            .into(),
        _ => native.into(),
    };
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, image.width(), image.height());
    encoder.set_color(color);
    encoder.set_depth(depth);
    encoder.set_compression(png::Compression::Fast);
    encoder.set_filter(png::Filter::Adaptive);
    let mut writer = encoder.write_header().map_err(|e| error(e.to_string()))?;
    writer
        .write_image_data(&samples)
        .map_err(|e| error(e.to_string()))?;
    writer.finish().map_err(|e| error(e.to_string()))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageBuffer, Rgb, RgbImage, Rgba};

    #[test]
    fn pixels_round_trip_at_8_and_16_bits() {
        let rgb = RgbImage::from_fn(7, 5, |x, y| Rgb([x as u8 * 30, y as u8 * 40, 200]));
        let bytes = encode_png(&rgb, Path::new("t.png")).unwrap();
        let back = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png).unwrap();
        assert_eq!(back.into_rgb8(), rgb);

        let deep = ImageBuffer::<Rgba<u16>, Vec<u16>>::from_fn(3, 4, |x, y| {
            Rgba([x as u16 * 20_000, y as u16 * 300, 1, 65_535])
        });
        let bytes = encode_png(&deep, Path::new("t.png")).unwrap();
        let back = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png).unwrap();
        assert_eq!(back.into_rgba16(), deep);
    }
}
