//! `render --clip`: a clip of a built-in scene (saved as a scene file with clips) written as
//! an animated PNG, as a contact sheet, and two solvers side by side.

use crate::common;

use image::RgbImage;
use skinweights::animation::{BoneTrack, ChannelKind, Clip, Key};
use skinweights::io::{save_scene, WeightsFile};
use std::path::Path;

/// arms-down with a clip `wave`: its first child bone rotated 0 -> 60 -> 0 degrees over 1 s.
fn clip_scene(dir: &Path) -> (String, String, String, String) {
    let scene = common::small_scene("arms-down");
    let bone = scene
        .skeleton()
        .bones()
        .iter()
        .find(|b| b.parent.is_some())
        .expect("a child bone")
        .name
        .clone();
    let clip = Clip::new("wave", 1.0).with_track(BoneTrack::new(&bone).with(
        ChannelKind::Rotation,
        vec![Key::new(0.0, 0.0), Key::new(0.5, 60.0), Key::new(1.0, 0.0)],
    ));
    let scene = scene
        .with_animation(vec![clip], vec![])
        .expect("valid clip");
    let path = |n: &str| dir.join(n).to_str().unwrap().to_string();
    save_scene(&scene, path("scene.json")).unwrap();
    let names: Vec<String> = scene
        .skeleton()
        .bones()
        .iter()
        .map(|b| b.name.clone())
        .collect();
    for solver in ["heat+mask", "euclidean"] {
        let w = common::solved(&scene, solver);
        WeightsFile::save_weights(
            path(&format!("{solver}.json")),
            scene.name(),
            solver,
            &names,
            &w,
        )
        .unwrap();
    }
    (
        path("scene.json"),
        path("heat+mask.json"),
        path("euclidean.json"),
        bone,
    )
}

/// The frames of an APNG.
fn apng_frames(path: &str) -> Vec<RgbImage> {
    let bytes = std::fs::read(path).unwrap();
    let mut d = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let n = d.info().animation_control.expect("animated").num_frames;
    let (w, h) = (d.info().width, d.info().height);
    let mut buf = vec![0; d.output_buffer_size().unwrap()];
    (0..n)
        .map(|_| {
            d.next_frame(&mut buf).unwrap();
            RgbImage::from_raw(w, h, buf.clone()).unwrap()
        })
        .collect()
}

/// Rows of the caption strip above a frame (its dark grey, where the drawing's background is
/// black).
fn caption_rows(im: &RgbImage) -> u32 {
    (0..im.height())
        .find(|&y| im.get_pixel(0, y).0 != [32, 32, 32])
        .unwrap_or(im.height())
}

/// The frame without its caption.
fn picture(im: &RgbImage) -> RgbImage {
    let top = caption_rows(im);
    image::imageops::crop_imm(im, 0, top, im.width(), im.height() - top).to_image()
}

fn differing_pixels(a: &RgbImage, b: &RgbImage) -> usize {
    a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count()
}

fn run_ok(args: &[&str]) -> String {
    let o = common::skinweights(args);
    let text = common::text(&o);
    assert!(o.status.success(), "{args:?}: {text}");
    text
}

#[test]
fn clip_renders_as_animation_sheet_and_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let (scene, w1, w2, _) = clip_scene(dir.path());
    let out = |n: &str| dir.path().join(n).to_str().unwrap().to_string();

    // 1 s at 10 fps: frames at 0, 0.1, ..., 1.0.
    let text = run_ok(&[
        "render",
        &scene,
        &w1,
        "--clip",
        "wave",
        "--fps",
        "10",
        "-o",
        &out("a.apng"),
    ]);
    assert!(text.contains("11 frames at 10 fps"), "{text}");
    let frames = apng_frames(&out("a.apng"));
    assert_eq!(frames.len(), 11);
    // Every frame is captioned (weights file, clip, time): two lines of text in a strip.
    let strip = caption_rows(&frames[0]);
    assert!((20..80).contains(&strip), "{strip} caption rows");
    // The pose at 0 s and 1 s is the rest pose: identical pictures under captions that
    // differ (the time); at 0.5 s the arm is up.
    assert_eq!(
        differing_pixels(&picture(&frames[0]), &picture(&frames[10])),
        0
    );
    assert!(
        differing_pixels(&frames[0], &frames[10]) > 0,
        "no time in the caption"
    );
    let moved = differing_pixels(&frames[0], &frames[5]);
    assert!(
        moved > 100,
        "only {moved} pixels changed at the clip's middle"
    );
    // Consecutive frames differ while the arm moves.
    for i in 0..10 {
        assert!(
            differing_pixels(&frames[i], &frames[i + 1]) > 0,
            "frame {i}"
        );
    }
    let (fw, fh) = frames[0].dimensions();

    // The contact sheet: 4 columns, 3 rows, each cell the animation's frame.
    run_ok(&[
        "render",
        &scene,
        &w1,
        "--clip",
        "wave",
        "--fps",
        "10",
        "--columns",
        "4",
        "-o",
        &out("sheet.png"),
    ]);
    let sheet = image::open(out("sheet.png")).unwrap().to_rgb8();
    assert_eq!(sheet.dimensions(), (4 * fw, 3 * fh));
    let cell = image::imageops::crop_imm(&sheet, fw, fh, fw, fh).to_image();
    assert_eq!(differing_pixels(&cell, &frames[5]), 0);

    // Two solvers side by side: twice as wide, the same at rest, different mid-clip.
    run_ok(&[
        "render",
        &scene,
        &w1,
        "--clip",
        "wave",
        "--fps",
        "10",
        "--compare",
        &w2,
        "-o",
        &out("both.apng"),
    ]);
    let both = apng_frames(&out("both.apng"));
    assert_eq!(both.len(), 11);
    let (bw, bh) = both[0].dimensions();
    assert_eq!(bw % 2, 0);
    let half = |im: &RgbImage, right: bool| {
        image::imageops::crop_imm(im, if right { bw / 2 } else { 0 }, 0, bw / 2, bh).to_image()
    };
    // The halves say which weights they show: the captions differ, the pictures at rest do not.
    assert_eq!(
        differing_pixels(
            &picture(&half(&both[0], false)),
            &picture(&half(&both[0], true))
        ),
        0
    );
    assert!(differing_pixels(&half(&both[0], false), &half(&both[0], true)) > 0);
    assert!(differing_pixels(&half(&both[5], false), &half(&both[5], true)) > 0);
}

#[test]
fn clip_render_errors_name_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let (scene, w1, _, _) = clip_scene(dir.path());
    let out = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let fail = |args: &[&str]| {
        let o = common::skinweights(args);
        assert!(!o.status.success(), "{args:?} succeeded");
        common::text(&o)
    };
    let t = fail(&[
        "render",
        &scene,
        &w1,
        "--clip",
        "nope",
        "-o",
        &out("x.apng"),
    ]);
    assert!(t.contains("no clip \"nope\"") && t.contains("wave"), "{t}");
    let t = fail(&["render", &scene, &w1, "--clip", "wave", "-o", &out("x.gif")]);
    assert!(
        t.contains("cannot write .gif files") && t.contains("OUT.apng") && t.contains("OUT.png"),
        "{t}"
    );
    let t = fail(&[
        "render",
        &scene,
        &w1,
        "--clip",
        "wave",
        "--fps",
        "0",
        "-o",
        &out("x.apng"),
    ]);
    assert!(t.contains("fps"), "{t}");
    assert!(!Path::new(&out("x.apng")).exists());
}
