//! The renderer against independent references, the alpha repairs' invariants, the fringe
//! metric on sprites with dirty transparent texels, and bad input.

use crate::common;
use common::{data, Rng};
use skinweights::{ArgumentError, OutputError};

use image::{Rgb, RgbImage, Rgba, RgbaImage};
use nalgebra::{Point2, Vector2};
use skinweights::io::{sprite_scene, BonesFile, Sprite, SpriteOptions, TraceOptions};
use skinweights::mesh::Mesh;
use skinweights::render::{
    bleed, fill_transparent, matting_renders, parse_colour, premultiply, render, Drawing, Frame,
    RenderOptions, Texture, View,
};
use skinweights::scene::{AlphaMode, Art, ArtImage};
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Scene, skeleton::Pose, Error,
};
use std::path::Path;

/// A 4 x 4 square (two triangles) with the 4 x 4 texture `tex` mapped onto it texel for
/// texel: scene (x, y) -> uv (x, 4 - y).
fn square(tex: RgbaImage) -> (Mesh, Art, Vec<Texture>) {
    let vertices = vec![
        Point2::new(0.0, 0.0),
        Point2::new(4.0, 0.0),
        Point2::new(4.0, 4.0),
        Point2::new(0.0, 4.0),
    ];
    let mesh = Mesh::new(vertices.clone(), vec![[0, 1, 2], [0, 2, 3]]).unwrap();
    let art = Art::single_image(
        ArtImage {
            name: "tex".into(),
            path: "tex.png".into(),
            alpha: AlphaMode::Straight,
        },
        vertices
            .iter()
            .map(|p| Point2::new(p.x, 4.0 - p.y))
            .collect(),
        mesh.parts(),
    );
    (
        mesh,
        art,
        vec![Texture::new("tex", tex, AlphaMode::Straight)],
    )
}

/// Bilinear clamp-to-edge in f64, written from the definition (texel centres at +0.5).
fn reference_bilinear(tex: &RgbaImage, u: f64, v: f64) -> [f64; 4] {
    let (w, h) = (tex.width() as i64, tex.height() as i64);
    let (x, y) = (u - 0.5, v - 0.5);
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let texel = |c: i64, r: i64| tex.get_pixel(c.clamp(0, w - 1) as u32, r.clamp(0, h - 1) as u32);
    let mut out = [0.0; 4];
    for (k, o) in out.iter_mut().enumerate() {
        let p = |c: f64, r: f64| texel(c as i64, r as i64)[k] as f64 / 255.0;
        *o = (1.0 - fy) * ((1.0 - fx) * p(x0, y0) + fx * p(x0 + 1.0, y0))
            + fy * ((1.0 - fx) * p(x0, y0 + 1.0) + fx * p(x0 + 1.0, y0 + 1.0));
    }
    out
}

#[test]
fn textured_square_matches_an_independent_reference() {
    let mut rng = Rng(7);
    let tex = RgbaImage::from_fn(4, 4, |_, _| Rgba([rng.byte(), rng.byte(), rng.byte(), 255]));
    let (mesh, art, textures) = square(tex.clone());
    let white = RgbaImage::from_pixel(4, 4, Rgba([255, 255, 255, 255]));
    let (_, _, white_tex) = square(white);
    for (ox, oy) in [(0.0, 0.0), (0.25, 0.5), (0.5, 0.125), (0.375, 0.75)] {
        let view = View {
            offset: Vector2::new(ox, oy),
            ..View::default()
        };
        let frame = Frame::fit(mesh.vertices(), &view, 2.0).unwrap();
        // The square lands at [2 + ox, 6 + ox) x [2 + oy, 6 + oy) (y down).
        let (left, top) = (2.0 + ox, 2.0 + oy);
        assert_eq!(
            frame.to_pixels(Point2::new(0.0, 4.0)),
            Point2::new(left, top)
        );
        for n in [1u32, 2, 4, 8] {
            let options = RenderOptions::default().with_samples(n);
            let draw = |textures: &[Texture]| {
                render(
                    &Drawing {
                        mesh: &mesh,
                        positions: mesh.vertices(),
                        art: Some(&art),
                        textures,
                    },
                    &frame,
                    &options,
                )
                .unwrap()
            };
            let coverage_image = draw(&white_tex);
            let image = draw(&textures);
            for (px, py, got) in image.enumerate_pixels() {
                let mut count = 0;
                let mut sum = [0.0; 3];
                for j in 0..n {
                    for i in 0..n {
                        let sx = px as f64 + (2 * i + 1) as f64 / (2 * n) as f64;
                        let sy = py as f64 + (2 * j + 1) as f64 / (2 * n) as f64;
                        // Top-left rule on an axis-aligned square: left and top edges in.
                        if sx >= left && sx < left + 4.0 && sy >= top && sy < top + 4.0 {
                            count += 1;
                            let c = reference_bilinear(&tex, sx - left, sy - top);
                            for k in 0..3 {
                                sum[k] += c[k];
                            }
                        }
                    }
                }
                let total = (n * n) as f64;
                // Exact coverage: white over black is round(255 * covered / samples).
                let expected_cov = (255.0 * count as f64 / total).round() as u8;
                assert_eq!(
                    coverage_image.get_pixel(px, py)[0],
                    expected_cov,
                    "offset ({ox}, {oy}), {n}x{n}, pixel ({px}, {py})"
                );
                for k in 0..3 {
                    let want = 255.0 * sum[k] / total;
                    assert!(
                        (got[k] as f64 - want).abs() <= 0.5 + 1e-3,
                        "offset ({ox}, {oy}), {n}x{n}, pixel ({px}, {py}) channel {k}: {} vs {want}",
                        got[k]
                    );
                }
            }
        }
    }
}

/// A scene of about 10k triangles with a uniform translucent texture on every part.
fn translucent_bar() -> (Scene, Vec<Texture>) {
    let scene = builtin_scene("bar", &BuiltinOptions::default().with_vertices(5400)).unwrap();
    let art = Art::single_image(
        ArtImage {
            name: "flat".into(),
            path: "flat.png".into(),
            alpha: AlphaMode::Straight,
        },
        vec![Point2::new(1.0, 1.0); scene.mesh().vertex_count()],
        scene.mesh().parts(),
    );
    let tex = RgbaImage::from_pixel(2, 2, Rgba([40, 160, 220, 128]));
    let scene = scene.with_art(art).unwrap();
    (scene, vec![Texture::new("flat", tex, AlphaMode::Straight)])
}

#[test]
fn shared_edges_are_drawn_exactly_once() {
    let (scene, textures) = translucent_bar();
    let triangles = scene.mesh().triangle_count();
    assert!(triangles >= 10_000, "{triangles}");
    let (lo, hi) = scene.mesh().bounds();
    let view = View {
        scale: 3.0,
        rotation_deg: 17.0,
        offset: Vector2::new(0.37, 0.21),
    };
    let frame = Frame::fit(scene.mesh().vertices(), &view, 2.0).unwrap();
    // Pixels whose whole square lies at least 1 px inside the bar's rectangle.
    let [a, b, c, d, tx, ty] = frame.matrix;
    let det = a * d - b * c;
    let inside = |px: f64, py: f64| {
        let (x, y) = (px - tx, py - ty);
        let sx = (d * x - c * y) / det;
        let sy = (-b * x + a * y) / det;
        let m = 2.0 / view.scale; // 1.414 px of pixel diagonal plus margin, in scene units
        sx > lo.x + m && sx < hi.x - m && sy > lo.y + m && sy < hi.y - m
    };
    let drawing = Drawing {
        mesh: scene.mesh(),
        positions: scene.mesh().vertices(),
        art: scene.art(),
        textures: &textures,
    };
    for mode in [AlphaMode::Straight, AlphaMode::Premultiplied] {
        for n in [1, 4] {
            let options = RenderOptions::default()
                .with_samples(n)
                .with_background([255, 0, 0])
                .with_alpha(mode);
            let image = render(&drawing, &frame, &options).unwrap();
            // One layer of 50% blue-ish over red everywhere inside: a gap shows more red,
            // a double blend less.
            let expected = [
                (255.0f64 * (1.0 - 128.0 / 255.0) + 40.0 * 128.0 / 255.0).round() as u8,
                (160.0f64 * 128.0 / 255.0).round() as u8,
                (220.0f64 * 128.0 / 255.0).round() as u8,
            ];
            let mut checked = 0;
            for (x, y, p) in image.enumerate_pixels() {
                if inside(x as f64 + 0.5, y as f64 + 0.5) {
                    checked += 1;
                    for k in 0..3 {
                        assert!(
                            (p[k] as i32 - expected[k] as i32).abs() <= 1,
                            "{mode:?} {n}x{n} pixel ({x}, {y}): {p:?} vs {expected:?}"
                        );
                    }
                }
            }
            assert!(checked > 50_000, "{checked}");
        }
    }
    // Opaque flat colours (no art): no red pixel inside the outline.
    let flat = Drawing {
        art: None,
        textures: &[],
        ..drawing
    };
    let image = render(
        &flat,
        &frame,
        &RenderOptions::default().with_background([255, 0, 0]),
    )
    .unwrap();
    let red = image
        .enumerate_pixels()
        .filter(|(x, y, p)| inside(*x as f64 + 0.5, *y as f64 + 0.5) && p.0 == [255, 0, 0])
        .count();
    assert_eq!(red, 0);
}

fn random_image(rng: &mut Rng, w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |_, _| {
        let a = match rng.byte() % 4 {
            0 | 1 => 0,
            2 => 255,
            _ => rng.byte(),
        };
        Rgba([rng.byte(), rng.byte(), rng.byte(), a])
    })
}

#[test]
fn bleeding_keeps_alpha_and_visible_texels_and_premultiplies_the_same() {
    let mut rng = Rng(0x5eed);
    for case in 0..200 {
        let (w, h) = (1 + (rng.next() % 40) as u32, 1 + (rng.next() % 40) as u32);
        let x = random_image(&mut rng, w, h);
        let rings = if case % 3 == 0 {
            Some((rng.next() % 4) as u32)
        } else {
            None
        };
        let y = bleed(&x, rings);
        for (p, q) in x.pixels().zip(y.pixels()) {
            assert_eq!(p[3], q[3], "case {case}: alpha changed");
            if p[3] > 0 {
                assert_eq!(p, q, "case {case}: a visible texel changed");
            }
        }
        assert_eq!(premultiply(&y), premultiply(&x), "case {case}");
    }
}

#[test]
fn bleeding_fills_ring_by_ring_with_the_nearest_colour() {
    // One visible texel in the middle of a 7 x 1 strip of white transparent texels.
    let mut x = RgbaImage::from_pixel(7, 1, Rgba([255, 255, 255, 0]));
    x.put_pixel(3, 0, Rgba([10, 20, 30, 200]));
    let all = bleed(&x, None);
    assert!(all.pixels().all(|p| p.0[..3] == [10, 20, 30]));
    let one = bleed(&x, Some(1));
    let rgb: Vec<[u8; 3]> = one.pixels().map(|p| [p[0], p[1], p[2]]).collect();
    assert_eq!(rgb[1], [255, 255, 255]);
    assert_eq!(rgb[2], [10, 20, 30]);
    assert_eq!(rgb[4], [10, 20, 30]);
    assert_eq!(rgb[5], [255, 255, 255]);
    // Two visible neighbours: the mean, rounded.
    let mut x = RgbaImage::from_pixel(3, 1, Rgba([0, 0, 0, 0]));
    x.put_pixel(0, 0, Rgba([100, 0, 0, 255]));
    x.put_pixel(2, 0, Rgba([201, 0, 0, 255]));
    assert_eq!(bleed(&x, None).get_pixel(1, 0).0, [151, 0, 0, 0]);
    assert_eq!(premultiply(&x).get_pixel(0, 0).0, [100, 0, 0, 255]);
    let half = RgbaImage::from_pixel(1, 1, Rgba([255, 101, 0, 128]));
    assert_eq!(premultiply(&half).get_pixel(0, 0).0, [128, 51, 0, 128]);
}

/// Tracing at alpha threshold 1, so the mesh covers every visible texel as a runtime's
/// sprite mesh does (the default threshold, 128, cuts the art's soft edge at alpha 1/2 and
/// with it most of the texels a filter mixes in).
fn every_visible_texel() -> TraceOptions {
    TraceOptions::default().with_threshold(1)
}

/// A synthetic sprite: an anti-aliased disc of radius 20 (a 2-texel alpha ramp) in a 56 x 56
/// image, colour (200, 120, 60), transparent texels holding `dirt`, with one bone.
fn disc_scene(dirt: [u8; 3]) -> (Scene, RgbaImage) {
    let image = RgbaImage::from_fn(56, 56, |x, y| {
        let d = ((x as f64 + 0.5 - 28.0).powi(2) + (y as f64 + 0.5 - 28.0).powi(2)).sqrt();
        let a = ((21.0 - d) / 2.0).clamp(0.0, 1.0);
        let a = (a * 255.0).round() as u8;
        if a == 0 {
            Rgba([dirt[0], dirt[1], dirt[2], 0])
        } else {
            Rgba([200, 120, 60, a])
        }
    });
    let bones = BonesFile::from_json(
        r#"{"bones": [{"name": "b", "parent": null, "head": [28, 12], "tail": [28, 44]}],
            "probes": [{"name": "turn", "pose": {"b": 30}}]}"#,
    )
    .unwrap();
    let sprite = Sprite::from_rgba(image.clone(), "disc");
    let (scene, _, _) = sprite_scene(
        &sprite,
        bones,
        &SpriteOptions::default()
            .with_meshing(skinweights::mesh::MeshingOptions::default().with_target_vertices(400))
            .with_trace(every_visible_texel()),
    )
    .unwrap();
    (scene, image)
}

fn fringe_of(
    scene: &Scene,
    tex: &RgbaImage,
    stored: AlphaMode,
    mode: AlphaMode,
    scale: f64,
) -> skinweights::render::Fringe {
    fringe_at(
        scene,
        tex,
        stored,
        mode,
        scale,
        RenderOptions::DEFAULT_SAMPLES,
    )
}

fn fringe_at(
    scene: &Scene,
    tex: &RgbaImage,
    stored: AlphaMode,
    mode: AlphaMode,
    scale: f64,
    samples: u32,
) -> skinweights::render::Fringe {
    let textures = vec![Texture::new("t", tex.clone(), stored)];
    let drawing = Drawing {
        mesh: scene.mesh(),
        positions: scene.mesh().vertices(),
        art: scene.art(),
        textures: &textures,
    };
    let view = View {
        scale,
        rotation_deg: 17.0,
        offset: Vector2::new(0.37, 0.21),
    };
    let frame = Frame::fit(scene.mesh().vertices(), &view, 2.0).unwrap();
    let options = RenderOptions::default()
        .with_samples(samples)
        .with_alpha(mode);
    matting_renders(&drawing, &frame, &options)
        .unwrap()
        .fringe()
        .unwrap()
}

#[test]
fn dirty_transparent_texels_fringe_in_straight_alpha_and_the_repairs_remove_it() {
    for (dirt, sign) in [([0u8, 0, 0], -1.0), ([255, 255, 255], 1.0)] {
        let (scene, tex) = disc_scene(dirt);
        for scale in [2.0, 4.0] {
            let straight = fringe_of(
                &scene,
                &tex,
                AlphaMode::Straight,
                AlphaMode::Straight,
                scale,
            );
            assert!(
                sign * straight.bias > 1.0,
                "dirt {dirt:?} at {scale}x: S = {}",
                straight.bias
            );
            let bled = fringe_of(
                &scene,
                &bleed(&tex, None),
                AlphaMode::Straight,
                AlphaMode::Straight,
                scale,
            );
            assert!(
                bled.bias.abs() <= 1.0,
                "bleed at {scale}x: S = {}",
                bled.bias
            );
            let pre = fringe_of(
                &scene,
                &tex,
                AlphaMode::Straight,
                AlphaMode::Premultiplied,
                scale,
            );
            assert!(
                pre.bias.abs() <= 1.0,
                "premultiplied at {scale}x: S = {}",
                pre.bias
            );
            if scale == 4.0 {
                assert!(pre.max <= 4.0, "premultiplied at 4x: F = {}", pre.max);
            }
            for f in [straight, bled, pre] {
                assert!(f.band_pixels > 50, "{f:?}");
                assert!(f.gap <= 2.0 / 255.0, "{f:?}");
                assert!(f.red_error.unwrap() <= 3.0, "{f:?}");
            }
        }
    }
}

#[test]
fn kenney_sprite_fringes_in_straight_alpha_and_not_after_the_repairs() {
    let sprite = Sprite::load(data("kenney-toon/robot_idle.png")).unwrap();
    let mut bones = BonesFile::load(data("kenney-toon/robot_idle_bones.json")).unwrap();
    // The part regions stop at the threshold-128 outline: catch the rest in the torso.
    bones.regions.push(skinweights::mesh::LabelledRegion {
        part: "torso".into(),
        polygon: vec![
            Point2::new(-8.0, -8.0),
            Point2::new(104.0, -8.0),
            Point2::new(104.0, 136.0),
            Point2::new(-8.0, 136.0),
        ],
    });
    let options = SpriteOptions::default().with_trace(every_visible_texel());
    let (scene, _, _) = sprite_scene(&sprite, bones, &options).unwrap();
    let n = RenderOptions::DEFAULT_SAMPLES;
    // As shipped the transparent texels are black: a dark fringe; white ones: a bright one.
    for (dirt, sign) in [([0u8, 0, 0], -1.0), ([255, 255, 255], 1.0)] {
        let tex = fill_transparent(&sprite.image, dirt);
        for scale in [2.0, 4.0] {
            let f = fringe_at(
                &scene,
                &tex,
                AlphaMode::Straight,
                AlphaMode::Straight,
                scale,
                n,
            );
            assert!(sign * f.bias > 1.0, "{dirt:?} {scale}x: {f:?}");
            let b = fringe_at(
                &scene,
                &bleed(&tex, None),
                AlphaMode::Straight,
                AlphaMode::Straight,
                scale,
                n,
            );
            assert!(b.bias.abs() <= 1.0, "bleed {dirt:?} {scale}x: {b:?}");
            let p = fringe_at(
                &scene,
                &tex,
                AlphaMode::Straight,
                AlphaMode::Premultiplied,
                scale,
                n,
            );
            assert!(
                p.bias.abs() <= 1.0,
                "premultiplied {dirt:?} {scale}x: {p:?}"
            );
            if scale == 4.0 {
                assert!(p.max <= 4.0, "premultiplied {dirt:?} 4x: {p:?}");
            }
        }
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    let (mesh, mut art, textures) = square(RgbaImage::from_pixel(4, 4, Rgba([9, 9, 9, 255])));
    // Missing image: the error names the file.
    art.images[0].path = "/nonexistent/missing_art.png".into();
    match Texture::load_art(&art) {
        Err(Error::Io { path, .. }) => assert!(path.ends_with("missing_art.png"), "{path:?}"),
        other => panic!("{:?}", other.err()),
    }
    // UVs out of the image name the vertex.
    art.uvs[2].x = 4.5;
    let frame = Frame::fit(mesh.vertices(), &View::default(), 1.0).unwrap();
    let drawing = Drawing {
        mesh: &mesh,
        positions: mesh.vertices(),
        art: Some(&art),
        textures: &textures,
    };
    let e = render(&drawing, &frame, &RenderOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("art.uvs[2]") && e.contains("outside image"),
        "{e}"
    );
    // Scale 0 and 1e9.
    for scale in [0.0, -1.0, f64::NAN] {
        let view = View {
            scale,
            ..View::default()
        };
        let e = Frame::fit(mesh.vertices(), &view, 1.0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("scale"), "{e}");
    }
    let huge = View {
        scale: 1e9,
        ..View::default()
    };
    assert!(matches!(
        Frame::fit(mesh.vertices(), &huge, 1.0),
        Err(Error::Output(OutputError::RenderTooLarge { .. }))
    ));
    // A frame built by hand is refused before allocating too.
    let frame = Frame {
        width: 1 << 20,
        height: 1 << 20,
        matrix: [1.0, 0.0, 0.0, -1.0, 0.0, 0.0],
    };
    let drawing = Drawing {
        art: None,
        textures: &[],
        ..drawing
    };
    assert!(matches!(
        render(&drawing, &frame, &RenderOptions::default()),
        Err(Error::Output(OutputError::RenderTooLarge { .. }))
    ));
    // Unknown colour and sample count.
    assert_eq!(parse_colour("#Ff8000").unwrap(), [255, 128, 0]);
    assert_eq!(parse_colour("red").unwrap(), [255, 0, 0]);
    for bad in ["purple", "#12345", "#GG0000", ""] {
        match parse_colour(bad) {
            Err(Error::Argument(ArgumentError::InvalidArgument { argument, .. })) => {
                assert!(argument.contains("background"), "{argument}")
            }
            other => panic!("{other:?}"),
        }
    }
    let frame = Frame::fit(mesh.vertices(), &View::default(), 1.0).unwrap();
    let e = render(&drawing, &frame, &RenderOptions::default().with_samples(3))
        .unwrap_err()
        .to_string();
    assert!(e.contains("samples"), "{e}");
    let _ = (Rgb([0u8, 0, 0]), RgbImage::new(1, 1), Pose::rest());
}

/// S, F and G recomputed from PNG files with the definitions written out again here.
fn matting_from_pngs(dir: &Path) -> (f64, f64, f64) {
    let load = |n: &str| {
        image::open(dir.join(format!("{n}.png")))
            .unwrap()
            .into_rgb8()
    };
    // The reference is written at 16 bits a channel: its levels in 8-bit units.
    let load_ref = |n: &str| {
        let im = image::open(dir.join(format!("{n}.png"))).unwrap();
        assert_eq!(im.color(), image::ColorType::Rgb16, "{n}.png");
        im.into_rgb16()
    };
    let (k, w, kr, wr) = (
        load("black"),
        load("white"),
        load_ref("ref_black"),
        load_ref("ref_white"),
    );
    // F leaves out the pixels where the mesh overlaps itself (white in overlap.png).
    let overlap = load("overlap");
    let cov = |b: &RgbImage, wh: &RgbImage, x: u32, y: u32| {
        let (p, q) = (b.get_pixel(x, y), wh.get_pixel(x, y));
        1.0 - (0..3).map(|c| q[c] as f64 - p[c] as f64).sum::<f64>() / 765.0
    };
    let cov_ref = |x: u32, y: u32| {
        let (p, q) = (kr.get_pixel(x, y), wr.get_pixel(x, y));
        1.0 - (0..3).map(|c| q[c] as f64 - p[c] as f64).sum::<f64>() / (3.0 * 65535.0)
    };
    let (mut sum, mut count, mut worst) = (0.0, 0usize, 0.0f64);
    let mut min_a: f64 = 1.0;
    let (width, height) = k.dimensions();
    for y in 0..height {
        for x in 0..width {
            let (a, ar) = (cov(&k, &w, x, y), cov_ref(x, y));
            if a > 0.0 && a < 1.0 && ar > 0.0 {
                for c in 0..3 {
                    let k_ref = kr.get_pixel(x, y)[c] as f64 * 255.0 / 65535.0;
                    let d = k.get_pixel(x, y)[c] as f64 - a * k_ref / ar;
                    sum += d;
                    count += 1;
                    if overlap.get_pixel(x, y)[0] == 0 {
                        worst = worst.max(d.abs());
                    }
                }
            }
            let interior = (x > 0 && y > 0 && x + 1 < width && y + 1 < height)
                && (0..3).all(|dy| (0..3).all(|dx| cov_ref(x + dx - 1, y + dy - 1) >= 1.0));
            if interior {
                min_a = min_a.min(a);
            }
        }
    }
    (sum / count as f64, worst, 1.0 - min_a)
}

fn number_after(text: &str, key: &str) -> f64 {
    let rest = &text[text.find(key).unwrap_or_else(|| panic!("{key} in {text}")) + key.len()..];
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn cli_render_prints_what_the_pngs_it_writes_give_and_lint_checks_pixel_edges() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let run = |args: &[&str]| common::skinweights(args);
    let png = data("kenney-toon/malePerson_idle.png");
    let bones = data("kenney-toon/malePerson_idle_bones.json");
    let o = run(&[
        "mesh",
        png.to_str().unwrap(),
        "--bones",
        bones.to_str().unwrap(),
        "--vertices",
        "1500",
        "-o",
        &p("man.json"),
    ]);
    assert!(o.status.success(), "{}", common::text(&o));
    let o = run(&[
        "solve",
        &p("man.json"),
        "--solver",
        "heat+mask",
        "-o",
        &p("w.json"),
    ]);
    assert!(o.status.success(), "{}", common::text(&o));
    for alpha in ["straight", "premultiplied"] {
        let out = p(&format!("{alpha}.png"));
        let matting = p(alpha);
        let o = run(&[
            "render",
            &p("man.json"),
            &p("w.json"),
            "--probe",
            "lift_l",
            "--background",
            "white",
            "--scale",
            "4",
            "--alpha",
            alpha,
            "--rotate",
            "17",
            "--offset",
            "0.37,0.21",
            "--matting",
            &matting,
            "-o",
            &out,
        ]);
        let text = common::text(&o);
        assert!(o.status.success(), "{text}");
        let (s, f, g) = matting_from_pngs(Path::new(&matting));
        let printed = |k: &str| number_after(&text, k);
        assert!((printed("S = ") - s).abs() < 1e-3, "{text}: S {s}");
        assert!((printed("F = ") - f).abs() < 1e-3, "{text}: F {f}");
        assert!((printed("G = ") - g).abs() < 1e-4, "{text}: G {g}");
        // The picture over white is the white matting render.
        let a = image::open(&out).unwrap().into_rgb8();
        let b = image::open(Path::new(&matting).join("white.png"))
            .unwrap()
            .into_rgb8();
        assert_eq!(a, b);
        if alpha == "premultiplied" {
            assert!(printed("S = ").abs() <= 1.0, "{text}");
        }
    }
    // lint --art adds the pixel-edge rows for a scene with art.
    let o = run(&["lint", &p("man.json"), &p("w.json"), "--art"]);
    let text = common::text(&o);
    assert!(
        text.contains("pixel edge rest 1x") && text.contains("pixel edge lift_l 4x"),
        "{text}"
    );
    assert!(text.contains("S = ") && text.contains("G = "), "{text}");
    // Bad input: unknown colour, scale 0 and 1e9, unknown bone.
    for (args, want) in [
        (vec!["--background", "purple"], "purple"),
        (vec!["--scale", "0"], "scale"),
        (vec!["--scale", "1e9"], "too large"),
        (vec!["--pose", "nobone=30"], "nobone"),
    ] {
        let mut all = vec!["render", "__scene__", "__w__", "-o", "__out__"];
        all.extend(args);
        let (scene, w, out) = (p("man.json"), p("w.json"), p("bad.png"));
        let all: Vec<&str> = all
            .into_iter()
            .map(|a| match a {
                "__scene__" => scene.as_str(),
                "__w__" => w.as_str(),
                "__out__" => out.as_str(),
                a => a,
            })
            .collect();
        let o = run(&all);
        assert_eq!(o.status.code(), Some(2), "{all:?}");
        assert!(
            common::text(&o).contains(want),
            "{all:?}: {}",
            common::text(&o)
        );
    }
    // bleed writes a PNG whose alpha is unchanged.
    let o = run(&[
        "bleed",
        png.to_str().unwrap(),
        "-o",
        &p("bled.png"),
        "--rings",
        "3",
    ]);
    assert!(o.status.success(), "{}", common::text(&o));
    let a = image::open(&png).unwrap().into_rgba8();
    let b = image::open(p("bled.png")).unwrap().into_rgba8();
    assert!(a
        .pixels()
        .zip(b.pixels())
        .all(|(x, y)| x[3] == y[3] && (x[3] == 0 || x == y)));
    let o = run(&["bleed", png.to_str().unwrap(), "-o", &p("bled.png")]);
    assert_eq!(o.status.code(), Some(2));
}
