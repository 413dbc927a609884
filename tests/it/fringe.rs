//! The pixel-edge check on art it was not tuned on: seeded synthetic sprites (a dark outline
//! around a lit, shaded interior, as the Kenney sprites are drawn; transparent texels black or
//! white; outline 70-130 levels) at random rotations and sub-pixel offsets, in the rest pose and a bent probe pose,
//! plus the shipped characters in their probe poses. Straight alpha must show the fringe
//! (|S| well above 1 at 2x and 4x); bleeding and premultiplied alpha bring |S| to 1 or less,
//! and premultiplied alpha also F to 4 or less at 4x, at the check's 4 x 4 samples.

use crate::common;
use common::{data, Rng};

use image::{Rgba, RgbaImage};
use nalgebra::{Point2, Vector2};
use skinweights::io::dragonbones::{load_dragonbones, Atlas};
use skinweights::io::{sprite_scene, BonesFile, Sprite, SpriteOptions, TraceOptions};
use skinweights::mesh::MeshingOptions;
use skinweights::render::{
    bleed, matting_renders, pixel_edge, posed_vertices, render, render_16, render_16_over,
    render_over, Drawing, Frame, Fringe, PixelEdgeOptions, RenderOptions, Skinning, Texture, View,
    PIXEL_EDGE_SAMPLES,
};
use skinweights::scene::AlphaMode;
use skinweights::{scene::Scene, skeleton::Pose, weights::Weights};

/// A limb-like sprite from `seed`: three overlapping ellipses along x (about the distance
/// inside the outline is the largest of their `(1 - d)·min(rx, ry)`), alpha ramping from 0 to
/// 1 over 0.4-1.2 texels at the outline (sharp, as the Kenney art: a soft ramp hides the
/// fringe in texels of low alpha), a darker outline 0.5-3 texels wide switching within half a
/// texel to a lit interior shaded across the limb; transparent texels hold `dirt`. Two bones
/// along it, and a probe bending the lower one by 25-60 degrees either way.
fn synthetic_sprite(seed: u64, dirt: [u8; 3]) -> (RgbaImage, BonesFile) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    for _ in 0..4 {
        rng.next();
    }
    let (w, h) = (
        rng.range(96.0, 128.0).round(),
        rng.range(56.0, 72.0).round(),
    );
    let cy = h / 2.0;
    let ellipses: Vec<[f64; 4]> = (0..3)
        .map(|k| {
            let cx = w * (0.25 + 0.25 * k as f64) + rng.range(-4.0, 4.0);
            let rx = rng.range(0.18, 0.26) * w;
            let ry = rng.range(0.16, 0.34) * h;
            [cx, cy + rng.range(-3.0, 3.0), rx, ry]
        })
        .collect();
    let ramp = rng.range(0.4, 1.2);
    let outline = rng.range(0.5, 3.0);
    // Outlines as dark as 10 levels hide a black-texel fringe (black mixed into near-black):
    // 70-130 levels, as the Kenney outlines, keep it measurable.
    let dark = [
        rng.range(70.0, 130.0),
        rng.range(70.0, 130.0),
        rng.range(70.0, 130.0),
    ];
    let lit = [
        rng.range(150.0, 240.0),
        rng.range(120.0, 240.0),
        rng.range(90.0, 240.0),
    ];
    let image = RgbaImage::from_fn(w as u32, h as u32, |x, y| {
        let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
        let inside = ellipses
            .iter()
            .map(|&[cx, cy, rx, ry]| {
                let d = (((px - cx) / rx).powi(2) + ((py - cy) / ry).powi(2)).sqrt();
                (1.0 - d) * rx.min(ry)
            })
            .fold(f64::NEG_INFINITY, f64::max);
        let a = ((inside + ramp / 2.0) / ramp).clamp(0.0, 1.0);
        let a = (a * 255.0).round() as u8;
        if a == 0 {
            return Rgba([dirt[0], dirt[1], dirt[2], 0]);
        }
        // 0 in the outline, 1 in the interior, switching within half a texel (a thin outline
        // puts the switch inside the silhouette's edge pixels); the interior is shaded darker
        // towards y = h.
        let t = (2.0 * (inside - outline) + 0.5).clamp(0.0, 1.0);
        let shade = 1.0 - 0.35 * py / h;
        let c = |k: usize| (dark[k] + t * (lit[k] * shade - dark[k])).round() as u8;
        Rgba([c(0), c(1), c(2), a])
    });
    let bend = rng.range(25.0, 60.0) * if rng.next() % 2 == 0 { 1.0 } else { -1.0 };
    let bones = BonesFile::from_json(&format!(
        r#"{{"bones": [{{"name": "upper", "parent": null, "head": [{x0}, {cy}], "tail": [{xm}, {cy}], "part": "limb"}},
                      {{"name": "lower", "parent": "upper", "head": [{xm}, {cy}], "tail": [{x1}, {cy}], "part": "limb"}}],
            "probes": [{{"name": "bend", "pose": {{"lower": {bend}}}}}]}}"#,
        x0 = 0.1 * w,
        xm = 0.5 * w,
        x1 = 0.9 * w,
    ))
    .unwrap();
    (image, bones)
}

/// A sprite scene traced at alpha threshold 1 (the mesh covers every visible texel, as a
/// runtime's sprite mesh does), with a catch-all region for the first bone's part, and its
/// heat+mask weights.
fn sprite_case(image: &RgbaImage, mut bones: BonesFile, vertices: usize) -> (Scene, Weights) {
    assert!(
        bones.skeleton.bones()[0].part.is_some(),
        "the first bone has a part"
    );
    bones.cover_rest_with_first_part(image.width() as f64, image.height() as f64);
    let options = SpriteOptions::default()
        .with_trace(TraceOptions::default().with_threshold(1))
        .with_meshing(MeshingOptions::default().with_target_vertices(vertices))
        .with_name(Some("sprite".into()));
    let (scene, _, _) =
        sprite_scene(&Sprite::from_rgba(image.clone(), "sprite"), bones, &options).unwrap();
    let weights = skinweights::solvers::solve(&scene, "heat+mask").unwrap();
    (scene, weights)
}

/// The pixel-edge rows (rest and every probe, 2x and 4x) of `texture` drawn in `mode` (the
/// check's defaults otherwise: 4 x 4 samples), at the given rotation and offset.
fn check(
    scene: &Scene,
    weights: &Weights,
    texture: &RgbaImage,
    mode: AlphaMode,
    rotation_deg: f64,
    offset: Vector2<f64>,
) -> Vec<(String, f64, Fringe)> {
    let textures = vec![Texture::new("art", texture.clone(), AlphaMode::Straight)];
    let defaults = PixelEdgeOptions::default();
    assert_eq!(defaults.render.samples, PIXEL_EDGE_SAMPLES);
    let render = defaults.render.with_alpha(mode);
    let options = defaults
        .with_scales(vec![2.0, 4.0])
        .with_rotation_deg(rotation_deg)
        .with_offset(offset)
        .with_render(render);
    pixel_edge(scene, weights, &textures, &options)
        .unwrap()
        .into_iter()
        .map(|r| (r.pose, r.scale, r.fringe))
        .collect()
}

#[test]
fn unseen_sprites_fringe_in_straight_alpha_and_premultiplied_keeps_edge_colours() {
    let mut rng = Rng(0x5EED_F00D);
    let mut worst_f: f64 = 0.0;
    let mut weakest_straight = f64::INFINITY;
    for seed in 1..=6u64 {
        let (dirt, sign) = if seed % 2 == 0 {
            ([255u8, 255, 255], 1.0)
        } else {
            ([0u8, 0, 0], -1.0)
        };
        let (image, bones) = synthetic_sprite(seed, dirt);
        let (scene, weights) = sprite_case(&image, bones, 700);
        let rotation = rng.range(-80.0, 80.0);
        let offset = Vector2::new(rng.range(0.0, 1.0), rng.range(0.0, 1.0));
        let straight = check(
            &scene,
            &weights,
            &image,
            AlphaMode::Straight,
            rotation,
            offset,
        );
        let bled = check(
            &scene,
            &weights,
            &bleed(&image, None),
            AlphaMode::Straight,
            rotation,
            offset,
        );
        let pre = check(
            &scene,
            &weights,
            &image,
            AlphaMode::Premultiplied,
            rotation,
            offset,
        );
        assert_eq!(straight.len(), 4, "rest and bend at 2x and 4x");
        let at = format!("seed {seed}, dirt {dirt:?}, rotation {rotation:.1}, offset {offset:?}");
        for ((s, b), p) in straight.iter().zip(&bled).zip(&pre) {
            let (pose, scale) = (&s.0, s.1);
            println!(
                "{at}, {pose} {scale}x: straight S {:+.2}, bleed S {:+.2}, premultiplied S {:+.2} F {:.2}",
                s.2.bias, b.2.bias, p.2.bias, p.2.max
            );
            weakest_straight = weakest_straight.min(sign * s.2.bias);
            assert!(
                sign * s.2.bias > 1.5,
                "{at}, {pose} {scale}x: straight S = {}",
                s.2.bias
            );
            assert!(
                b.2.bias.abs() <= 1.0,
                "{at}, {pose} {scale}x: bleed S = {}",
                b.2.bias
            );
            assert!(
                p.2.bias.abs() <= 1.0,
                "{at}, {pose} {scale}x: premultiplied S = {}",
                p.2.bias
            );
            if scale == 4.0 {
                worst_f = worst_f.max(p.2.max);
                assert!(
                    p.2.max <= 4.0,
                    "{at}, {pose} 4x: premultiplied F = {}",
                    p.2.max
                );
            }
            for f in [&s.2, &b.2, &p.2] {
                assert!(f.band_pixels > 100, "{at}, {pose} {scale}x: {f:?}");
                assert!(f.gap <= 2.0 / 255.0, "{at}, {pose} {scale}x: {f:?}");
                assert!(f.red_error.unwrap() <= 3.0, "{at}, {pose} {scale}x: {f:?}");
            }
        }
    }
    println!("straight |S| >= {weakest_straight:.2}; premultiplied F at 4x <= {worst_f:.2}");
}

/// Premultiplied fringe at 4x of `scene` in its first probe pose, framed on the vertices of
/// `frame_parts` (all when empty), as `pixel_edge` draws it (rotated 17 degrees, offset
/// (0.37, 0.21) px), at `samples` per pixel side.
fn probe_f_at_4x(
    scene: &Scene,
    weights: &Weights,
    textures: &[Texture],
    frame_parts: &[&str],
    samples: u32,
) -> Fringe {
    let pose: Pose = scene.probes()[0].pose.clone();
    let positions = posed_vertices(scene, weights, &pose, Skinning::Lbs).unwrap();
    let parts: Vec<usize> = frame_parts
        .iter()
        .map(|p| scene.mesh().part_index(p).unwrap())
        .collect();
    let framed: Vec<Point2<f64>> = positions
        .iter()
        .zip(scene.mesh().vertex_parts())
        .filter(|(_, p)| parts.is_empty() || parts.contains(p))
        .map(|(q, _)| *q)
        .collect();
    let view = View {
        scale: 4.0,
        rotation_deg: 17.0,
        offset: Vector2::new(0.37, 0.21),
    };
    let frame = Frame::fit(&framed, &view, 4.0).unwrap();
    let drawing = Drawing {
        mesh: scene.mesh(),
        positions: &positions,
        art: scene.art(),
        textures,
    };
    let options = RenderOptions::default()
        .with_samples(samples)
        .with_alpha(AlphaMode::Premultiplied);
    matting_renders(&drawing, &frame, &options)
        .unwrap()
        .fringe()
        .unwrap()
}

#[test]
fn shipped_characters_keep_premultiplied_edge_colours_in_their_probe_poses() {
    let n = PIXEL_EDGE_SAMPLES;
    // robot_idle's lift_l is the worst Kenney probe. At 2 x 2 samples F is above 4 with no
    // bias (the edge colour where the dark outline meets the lit interior, sampled 4 times
    // against the reference's 64): why the check draws 4 x 4.
    let sprite = Sprite::load(data("kenney-toon/robot_idle.png")).unwrap();
    let bones = BonesFile::load(data("kenney-toon/robot_idle_bones.json")).unwrap();
    let (scene, weights) = sprite_case(&sprite.image, bones, 3000);
    let textures = vec![Texture::new("robot", sprite.image, AlphaMode::Straight)];
    let f = probe_f_at_4x(&scene, &weights, &textures, &[], n);
    assert!(
        f.bias.abs() <= 1.0 && f.max <= 4.0,
        "robot_idle lift_l: {f:?}"
    );
    assert!(f.band_pixels > 1000, "{f:?}");
    let coarse = probe_f_at_4x(&scene, &weights, &textures, &[], 2);
    println!(
        "robot_idle lift_l 4x: F {:.2} at 4 x 4, {:.2} at 2 x 2",
        f.max, coarse.max
    );
    assert!(
        coarse.bias.abs() <= 1.0 && coarse.max > 4.0,
        "robot_idle lift_l at 2 x 2: {coarse:?}"
    );
    // DragonBones with its atlas, framed on the raised left arm (10.7 at 2 x 2 samples).
    let imp = load_dragonbones(data("dragonbones-you-xin/body_ske.json")).unwrap();
    let textures = Texture::load_art(imp.scene.art().unwrap()).unwrap();
    let f = probe_f_at_4x(&imp.scene, &imp.artist, &textures, &["a_arm_L"], n);
    assert!(f.bias.abs() <= 1.0 && f.max <= 4.0, "you_xin lift_l: {f:?}");
    println!("you_xin lift_l 4x: S {:+.3}, F {:.2}", f.bias, f.max);
    assert!(f.band_pixels > 1000, "{f:?}");
    // A synthetic limb with white transparent texels at the experiment's mesh density.
    let (image, bones) = synthetic_sprite(11, [255, 255, 255]);
    let (scene, weights) = sprite_case(&image, bones, 1500);
    let textures = vec![Texture::new("limb", image, AlphaMode::Straight)];
    let f = probe_f_at_4x(&scene, &weights, &textures, &[], n);
    assert!(f.bias.abs() <= 1.0 && f.max <= 4.0, "synthetic bend: {f:?}");
    println!("synthetic bend 4x: S {:+.3}, F {:.2}", f.bias, f.max);
}

#[test]
fn the_16_bit_reference_is_the_8_bit_render_without_its_rounding() {
    let (image, bones) = synthetic_sprite(3, [0, 0, 0]);
    let (scene, _) = sprite_case(&image, bones, 500);
    let textures = vec![Texture::new("limb", image, AlphaMode::Straight)];
    let drawing = Drawing {
        mesh: scene.mesh(),
        positions: scene.mesh().vertices(),
        art: scene.art(),
        textures: &textures,
    };
    let view = View {
        scale: 2.0,
        rotation_deg: 17.0,
        offset: Vector2::new(0.37, 0.21),
    };
    let frame = Frame::fit(scene.mesh().vertices(), &view, 2.0).unwrap();
    let options = RenderOptions::default()
        .with_samples(8)
        .with_background([255, 255, 255])
        .with_alpha(AlphaMode::Premultiplied);
    let coarse = render(&drawing, &frame, &options).unwrap();
    let fine = render_16(&drawing, &frame, &options).unwrap();
    assert_eq!(coarse.dimensions(), fine.dimensions());
    let mut between = 0;
    for (c, f) in coarse.as_raw().iter().zip(fine.as_raw()) {
        let level = *f as f64 / 257.0;
        // The same mean, rounded to 1/255 or to 1/65535.
        assert!(
            (level - *c as f64).abs() <= 0.5 + 0.5 / 257.0 + 1e-9,
            "{c} vs {f}"
        );
        between += usize::from(f % 257 != 0);
    }
    // Edge pixels hold levels between the 8-bit ones.
    assert!(between > 100, "{between} channels between 8-bit levels");
}

/// One pass over several backgrounds draws, for each, the picture a pass over that background
/// alone draws, byte for byte: the pixel-edge check's five renders come from two passes.
#[test]
fn renders_over_several_backgrounds_equal_one_render_each() {
    for (seed, alpha) in [(5, AlphaMode::Straight), (6, AlphaMode::Premultiplied)] {
        let (image, bones) = synthetic_sprite(seed, [255, 255, 255]);
        let (scene, weights) = sprite_case(&image, bones, 400);
        // A sprite's texture coordinates are its pixels: the pixel-edge check's 1x is the
        // scene's own scale.
        let density = scene.art().unwrap().texels_per_unit(scene.mesh());
        assert_eq!(density, Some(1.0));
        let textures = vec![Texture::new("limb", image, AlphaMode::Straight)];
        let positions = match scene.probes().first() {
            Some(p) => posed_vertices(&scene, &weights, &p.pose, Skinning::Lbs).unwrap(),
            None => scene.mesh().vertices().to_vec(),
        };
        let drawing = Drawing {
            mesh: scene.mesh(),
            positions: &positions,
            art: scene.art(),
            textures: &textures,
        };
        let view = View {
            scale: 3.0,
            rotation_deg: 23.0,
            offset: Vector2::new(0.11, 0.53),
        };
        let frame = Frame::fit(&positions, &view, 2.0).unwrap();
        let backgrounds = [[0, 0, 0], [255, 255, 255], [255, 0, 0]];
        for samples in [1, 4] {
            let options = RenderOptions::default()
                .with_samples(samples)
                .with_alpha(alpha);
            let together = render_over(&drawing, &frame, &options, backgrounds).unwrap();
            let wide = render_16_over(&drawing, &frame, &options, backgrounds).unwrap();
            for (k, background) in backgrounds.into_iter().enumerate() {
                let alone = options.with_background(background);
                let one = render(&drawing, &frame, &alone).unwrap();
                assert!(
                    one.as_raw() == together[k].as_raw(),
                    "background {background:?}"
                );
                let one_16 = render_16(&drawing, &frame, &alone).unwrap();
                assert!(one_16.as_raw() == wide[k].as_raw(), "16-bit {background:?}");
            }
            // Not one picture three times: the backgrounds show at the edges.
            assert_ne!(together[0].as_raw(), together[1].as_raw());
        }
    }
}

/// Which texels of an atlas image lie in a region (0), in the one-texel ring around one (1),
/// or further out (2).
fn atlas_zones(atlas: &Atlas) -> Vec<u8> {
    let (w, h) = atlas.size;
    let mut zone = vec![2u8; (w * h) as usize];
    for pass in [1u8, 0] {
        for &[x, y, rw, rh] in atlas.regions.values() {
            let grow = pass as i64;
            let (x0, y0) = (x as i64 - grow, y as i64 - grow);
            let (x1, y1) = ((x + rw) as i64 + grow, (y + rh) as i64 + grow);
            for r in y0.max(0)..y1.min(h as i64) {
                for c in x0.max(0)..x1.min(w as i64) {
                    let k = (r * w as i64 + c) as usize;
                    zone[k] = zone[k].min(pass);
                }
            }
        }
    }
    zone
}

#[test]
fn dragonbones_meshes_read_only_their_own_atlas_region() {
    let skeleton = data("dragonbones-you-xin/body_ske.json");
    let atlas = Atlas::load(data("dragonbones-you-xin/body_tex.json")).unwrap();
    let imp = load_dragonbones(&skeleton).unwrap();
    let scene = &imp.scene;
    let art = scene.art().unwrap();
    let image = Texture::load_art(art).unwrap().remove(0).image;
    assert_eq!(image.dimensions(), atlas.size);
    let zones = atlas_zones(&atlas);
    // The ring around every region is transparent (the packer's padding).
    let ring_alpha = image
        .pixels()
        .zip(&zones)
        .filter(|(_, &z)| z == 1)
        .map(|(p, _)| p[3])
        .max();
    assert_eq!(ring_alpha, Some(0));
    let paint = |zone: u8| {
        let mut im = image.clone();
        for (p, &z) in im.pixels_mut().zip(&zones) {
            if z == zone {
                *p = Rgba([255, 0, 255, 255]);
            }
        }
        im
    };
    let (far, ring) = (paint(2), paint(1));
    for pose in [Pose::rest(), scene.probes()[0].pose.clone()] {
        let positions = posed_vertices(scene, &imp.artist, &pose, Skinning::Lbs).unwrap();
        let frame = Frame::fit(
            &positions,
            &View {
                scale: 1.0,
                rotation_deg: 17.0,
                offset: Vector2::new(0.37, 0.21),
            },
            2.0,
        )
        .unwrap();
        let draw = |im: &RgbaImage| {
            let textures = vec![Texture::new("atlas", im.clone(), AlphaMode::Straight)];
            let drawing = Drawing {
                mesh: scene.mesh(),
                positions: &positions,
                art: Some(art),
                textures: &textures,
            };
            let options = RenderOptions::default().with_alpha(AlphaMode::Premultiplied);
            render(&drawing, &frame, &options).unwrap()
        };
        let shipped = draw(&image);
        // Texels more than one texel outside every region never reach the picture: the UVs
        // stay inside their regions and the bilinear filter reaches one texel further.
        assert_eq!(draw(&far), shipped, "texels beyond the regions' rings");
        // The ring is read (UVs run to the region's border), which is why it must be, and
        // is, transparent.
        let changed = draw(&ring)
            .pixels()
            .zip(shipped.pixels())
            .filter(|(a, b)| a != b)
            .count();
        assert!(changed > 0, "the ring is never sampled");
        println!("pixels that read the ring: {changed}");
    }
}
