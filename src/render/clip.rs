//! A clip drawn frame by frame: sampled at a frame rate, skinned, and the frames put
//! together as an animated PNG, a contact sheet, or two renders side by side.

use super::raster::check_size;
use super::{posed_vertices, Skinning};
use crate::animation::Clip;
use crate::error::{Error, FormatError, OutputError, Result};
use crate::scene::Scene;
use crate::weights::Weights;
use image::RgbImage;
use nalgebra::Point2;
use std::path::Path;

/// One sampled frame of a clip: its time and the skinned vertex positions.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipFrame {
    /// Seconds from the clip's start.
    pub time: f64,
    /// Every vertex skinned into the clip's pose at `time` (scene units).
    pub positions: Vec<Point2<f64>>,
}

/// The clip sampled at `fps` ([`Clip::frame_times`]), each frame's pose from
/// [`Scene::clip_pose`] (IK applied) and skinned with `skinning`. Errors: the clip's own
/// ([`Clip::check`]), a bad `fps`, and skinning's.
pub fn clip_frames(
    scene: &Scene,
    weights: &Weights,
    clip: &Clip,
    fps: f64,
    skinning: Skinning,
) -> Result<Vec<ClipFrame>> {
    clip.check(&scene.skeleton)?;
    clip.frame_times(fps)?
        .into_iter()
        .map(|time| {
            let pose = scene.clip_pose(clip, time)?;
            let positions = posed_vertices(scene, weights, &pose, skinning)?;
            Ok(ClipFrame { time, positions })
        })
        .collect()
}

/// Frames of one size, or an error naming the first that differs.
fn common_size(frames: &[RgbImage], what: &'static str) -> Result<(u32, u32)> {
    let first = frames
        .first()
        .ok_or(Error::Output(OutputError::NoFrames { what }))?;
    let size = first.dimensions();
    if let Some((i, f)) = frames
        .iter()
        .enumerate()
        .find(|(_, f)| f.dimensions() != size)
    {
        return Err(OutputError::FrameSize {
            what,
            frame: i,
            size: f.dimensions(),
            first: size,
        }
        .into());
    }
    Ok(size)
}

/// An animated PNG (APNG) of `frames`, looping forever; frame `i` is shown until
/// `times[i + 1]` (the last for the mean step, or 1/30 s for a single frame), in units of
/// 1/10000 s. `path` names the output in errors. Errors: no frames, frames of different
/// sizes, `times` not one per frame.
pub fn encode_apng(frames: &[RgbImage], times: &[f64], path: &Path) -> Result<Vec<u8>> {
    let (w, h) = common_size(frames, "apng")?;
    if times.len() != frames.len() {
        return Err(OutputError::FrameTimes {
            given: times.len(),
            frames: frames.len(),
        }
        .into());
    }
    let n = frames.len();
    let mean_step = if n > 1 {
        (times[n - 1] - times[0]) / (n - 1) as f64
    } else {
        1.0 / 30.0
    };
    // Delays as num / 10000 s: u16 holds up to 6.5 s a frame, 0.1 ms resolution.
    let delay = |i: usize| -> u16 {
        let dt = times.get(i + 1).map_or(mean_step, |t| t - times[i]);
        (dt * 10_000.0).round().clamp(1.0, u16::MAX as f64) as u16
    };
    let err = |e: png::EncodingError| {
        Error::Format(FormatError::Image {
            path: path.into(),
            message: e.to_string(),
        })
    };
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_animated(n as u32, 0).map_err(err)?;
        let mut writer = encoder.write_header().map_err(err)?;
        for (i, frame) in frames.iter().enumerate() {
            writer.set_frame_delay(delay(i), 10_000).map_err(err)?;
            writer.write_image_data(frame.as_raw()).map_err(err)?;
        }
        writer.finish().map_err(err)?;
    }
    Ok(bytes)
}

/// `frames` on a grid, left to right then top to bottom, `columns` a row (at least 1; 0
/// picks the smallest `c` with `c * c >= n`); cells past the last frame are `background`.
/// Errors: no frames, frames of different sizes, a sheet over the render size limits.
pub fn contact_sheet(frames: &[RgbImage], columns: u32, background: [u8; 3]) -> Result<RgbImage> {
    let (w, h) = common_size(frames, "contact sheet")?;
    let n = frames.len() as u32;
    let cols = if columns == 0 {
        (1..=n).find(|c| c * c >= n).unwrap_or(1)
    } else {
        columns.min(n)
    };
    let rows = n.div_ceil(cols);
    check_size(cols as f64 * w as f64, rows as f64 * h as f64, 1)?;
    let mut sheet = RgbImage::from_pixel(cols * w, rows * h, image::Rgb(background));
    for (i, f) in frames.iter().enumerate() {
        let (cx, cy) = ((i as u32 % cols) * w, (i as u32 / cols) * h);
        image::imageops::replace(&mut sheet, f, cx as i64, cy as i64);
    }
    Ok(sheet)
}

/// Images of one height side by side, left to right. Errors: none given, heights that
/// differ, a result over the render size limits.
pub fn side_by_side(images: &[RgbImage]) -> Result<RgbImage> {
    let first = images.first().ok_or(Error::Output(OutputError::NoFrames {
        what: "side by side",
    }))?;
    let h = first.height();
    if let Some((i, im)) = images.iter().enumerate().find(|(_, im)| im.height() != h) {
        return Err(OutputError::ImageHeight {
            image: i,
            height: im.height(),
            first: h,
        }
        .into());
    }
    let w: u64 = images.iter().map(|im| im.width() as u64).sum();
    check_size(w as f64, h as f64, 1)?;
    let mut out = RgbImage::new(w as u32, h);
    let mut x = 0i64;
    for im in images {
        image::imageops::replace(&mut out, im, x, 0);
        x += im.width() as i64;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solid(w: u32, h: u32, v: u8) -> RgbImage {
        RgbImage::from_pixel(w, h, image::Rgb([v, v, v]))
    }

    #[test]
    fn sheet_places_frames_on_a_grid() {
        let frames: Vec<_> = (0..5).map(|i| solid(4, 3, 10 * i as u8 + 1)).collect();
        let sheet = contact_sheet(&frames, 0, [0, 0, 0]).unwrap();
        // 5 frames: 3 columns, 2 rows.
        assert_eq!(sheet.dimensions(), (12, 6));
        assert_eq!(sheet.get_pixel(4, 0).0, [11, 11, 11]);
        assert_eq!(sheet.get_pixel(5, 4).0, [41, 41, 41]);
        assert_eq!(sheet.get_pixel(9, 4).0, [0, 0, 0]);
        assert!(contact_sheet(&[solid(4, 3, 0), solid(4, 4, 0)], 0, [0; 3]).is_err());
    }

    #[test]
    fn apng_round_trips_frames_and_delays() {
        let frames: Vec<_> = (0..3).map(|i| solid(5, 2, 50 * i as u8)).collect();
        let bytes = encode_apng(&frames, &[0.0, 0.04, 0.1], Path::new("x.apng")).unwrap();
        let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let info = decoder.info();
        assert_eq!(info.animation_control.unwrap().num_frames, 3);
        let mut buf = vec![0; decoder.output_buffer_size().unwrap()];
        let mut delays = Vec::new();
        for i in 0..3 {
            decoder.next_frame(&mut buf).unwrap();
            let fc = decoder.info().frame_control.unwrap();
            delays.push((fc.delay_num, fc.delay_den));
            assert!(buf.iter().all(|&v| v == 50 * i as u8));
        }
        assert_eq!(delays, vec![(400, 10_000), (600, 10_000), (500, 10_000)]);
    }
}
