//! glTF export of a scene's art (io/gltf/art_export.rs): images embedded as PNG data URIs,
//! TEXCOORD_0 normalized with the origin at the image's top-left, one primitive per layer in
//! draw order. Export -> import gives the same art back, and both render the same pixels.

use crate::common;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use common::{small_scene, solved};
use image::{Rgba, RgbaImage};
use nalgebra::Vector2;
use serde_json::Value;
use skinweights::io::dragonbones::load_dragonbones;
use skinweights::io::{
    gltf::import_gltf, gltf::GltfImport, sprite_scene, BonesFile, ExportOptions, Sprite,
    SpriteOptions,
};
use skinweights::render::{posed_vertices, render, Drawing, Frame, RenderOptions, Texture, View};
use skinweights::scene::{triangle_layers, AlphaMode, Art, ArtImage, Layer};
use skinweights::{scene::Scene, skeleton::Pose, weights::Weights};
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(rel)
}

/// Exports `scene` with `weights` into `dir/NAME.gltf`, imports it back with its embedded
/// images written into `dir`; returns the glTF JSON, the import and its weights.
fn round_trip(scene: &Scene, weights: &Weights, dir: &Path) -> (Value, GltfImport, Weights) {
    let text = common::export_text("gltf", scene, weights, &ExportOptions::default()).unwrap();
    let path = dir.join(format!("{}.gltf", scene.name()));
    std::fs::write(&path, &text).unwrap();
    let mut imported = import_gltf(&path).unwrap();
    imported.write_embedded_images(dir, false).unwrap();
    let w = imported
        .weights_file()
        .unwrap()
        .to_weights_for(
            &imported.scene.skeleton().names(),
            imported.scene.mesh().vertex_count(),
        )
        .unwrap();
    (serde_json::from_str(&text).unwrap(), imported, w)
}

/// Checks that `b` carries `a`'s art: same layers (parts, images, draw order), image names,
/// alpha modes and file bytes, the same vertices (f32) and triangles (grouped by layer, mesh
/// order kept within a layer). Returns the largest texture coordinate difference in texture
/// units (pixels over the image size).
fn assert_same_art(a: &Scene, b: &Scene) -> f64 {
    let (art_a, art_b) = (a.art().unwrap(), b.art().unwrap());
    assert_eq!(art_a.layers, art_b.layers, "layers and draw order");
    assert_eq!(art_a.images.len(), art_b.images.len());
    for (x, y) in art_a.images.iter().zip(&art_b.images) {
        assert_eq!(x.name, y.name);
        assert_eq!(x.alpha, y.alpha);
        assert_eq!(
            std::fs::read(&x.path).unwrap(),
            std::fs::read(&y.path).unwrap(),
            "image bytes of {}",
            x.name
        );
    }
    assert_eq!(a.mesh().parts(), b.mesh().parts());
    assert_eq!(a.mesh().vertex_parts(), b.mesh().vertex_parts());
    assert_eq!(a.mesh().vertex_count(), b.mesh().vertex_count());
    for (p, q) in a.mesh().vertices().iter().zip(b.mesh().vertices()) {
        assert!(
            (p - q).norm() <= 1e-6 * p.coords.norm().max(1.0),
            "{p} vs {q}"
        );
    }
    // Triangles come back grouped by layer (one primitive each), mesh order within a layer.
    let layers = triangle_layers(a.mesh(), &art_a.layer_of_part(a.mesh().parts()));
    let mut order: Vec<usize> = (0..a.mesh().triangle_count()).collect();
    order.sort_by_key(|&t| layers[t]);
    let expected: Vec<[usize; 3]> = order.iter().map(|&t| a.mesh().triangles()[t]).collect();
    assert_eq!(b.mesh().triangles(), &expected[..]);
    let sizes: Vec<(u32, u32)> = Texture::load_art(art_a)
        .unwrap()
        .iter()
        .map(|t| t.image.dimensions())
        .collect();
    let image_of_part = art_a.image_of_part(a.mesh().parts());
    let mut worst = 0.0f64;
    for (v, (p, q)) in art_a.uvs.iter().zip(&art_b.uvs).enumerate() {
        if let Some(k) = image_of_part[a.mesh().vertex_parts()[v]] {
            let (w, h) = (f64::from(sizes[k].0), f64::from(sizes[k].1));
            worst = worst
                .max(((p.x - q.x) / w).abs())
                .max(((p.y - q.y) / h).abs());
        }
    }
    worst
}

/// Renders `a` and `b` (the same character: `b` is `a` through glTF) in `pose` into one
/// frame, fitted to `a`; returns (pixels that differ, largest channel difference, pixels).
fn compare_renders(
    (a, wa): (&Scene, &Weights),
    (b, wb): (&Scene, &Weights),
    pose: &Pose,
    scale: f64,
) -> (usize, u8, usize) {
    let lbs = skinweights::render::Skinning::Lbs;
    let pa = posed_vertices(a, wa, pose, lbs).unwrap();
    let pb = posed_vertices(b, wb, pose, lbs).unwrap();
    let view = View {
        scale,
        rotation_deg: 0.0,
        offset: Vector2::zeros(),
    };
    let frame = Frame::fit(&pa, &view, 2.0).unwrap();
    let draw = |scene: &Scene, positions: &[nalgebra::Point2<f64>]| {
        let textures = Texture::load_art(scene.art().unwrap()).unwrap();
        let drawing = Drawing {
            mesh: scene.mesh(),
            positions,
            art: scene.art(),
            textures: &textures,
        };
        render(&drawing, &frame, &RenderOptions::default()).unwrap()
    };
    let (ia, ib) = (draw(a, &pa), draw(b, &pb));
    assert_eq!(ia.dimensions(), ib.dimensions());
    let mut differ = 0;
    let mut worst = 0u8;
    for (x, y) in ia.pixels().zip(ib.pixels()) {
        let d =
            x.0.iter()
                .zip(y.0)
                .map(|(p, q)| p.abs_diff(q))
                .max()
                .unwrap();
        differ += usize::from(d > 0);
        worst = worst.max(d);
    }
    (differ, worst, ia.pixels().len())
}

/// Renders both in the rest pose and in `pose`, prints the figures and checks that they
/// agree within rounding: f32 positions move a vertex by ~1e-5 px, which flips the
/// coverage of a few edge samples.
fn assert_renders_agree(a: (&Scene, &Weights), b: (&Scene, &Weights), pose: &Pose, what: &str) {
    for (name, pose) in [("rest", &Pose::rest()), ("posed", pose)] {
        let (differ, worst, total) = compare_renders(a, b, pose, 2.0);
        eprintln!("{what} {name} at 2x: {differ} of {total} pixels differ, by at most {worst}/255");
        assert!(
            differ as f64 <= 1e-3 * total as f64,
            "{what} {name}: {differ} of {total} pixels differ"
        );
        assert!(worst <= 128, "{what} {name}: a pixel differs by {worst}");
    }
}

#[test]
fn dragonbones_character_keeps_its_atlas_through_gltf() {
    let db = load_dragonbones(data("dragonbones-you-xin/body_ske.json")).unwrap();
    let scene = db.scene;
    assert!(scene.art().is_some(), "the shipped character has its atlas");
    // glTF holds 4 influences: cut first so that posed renders compare the same weights.
    let weights = db.artist.top_k(4);
    let dir = tempfile::tempdir().unwrap();
    let (doc, imported, w) = round_trip(&scene, &weights, dir.path());
    let art = scene.art().unwrap();
    assert_eq!(
        doc["meshes"][0]["primitives"].as_array().unwrap().len(),
        art.layers.len()
    );
    let uv = assert_same_art(&scene, &imported.scene);
    eprintln!("DragonBones: texture coordinates within {uv:e} texture units");
    assert!(uv <= 1e-6, "{uv}");
    let probe = &scene.probes()[0].pose;
    assert_renders_agree(
        (&scene, &weights),
        (&imported.scene, &w),
        probe,
        "DragonBones",
    );
}

#[test]
fn traced_sprite_keeps_its_image_through_gltf() {
    let sprite = Sprite::load(data("kenney-toon/robot_idle.png")).unwrap();
    let bones = BonesFile::load(data("kenney-toon/robot_idle_bones.json")).unwrap();
    let (scene, _, _) = sprite_scene(&sprite, bones, &SpriteOptions::default()).unwrap();
    let art = scene.art().expect("a traced sprite carries its image");
    assert_eq!(art.images.len(), 1);
    let weights = solved(&scene, "euclidean").top_k(4);
    let dir = tempfile::tempdir().unwrap();
    let (_, imported, w) = round_trip(&scene, &weights, dir.path());
    let uv = assert_same_art(&scene, &imported.scene);
    eprintln!(
        "sprite ({} vertices, {} parts): texture coordinates within {uv:e} texture units",
        scene.mesh().vertex_count(),
        scene.mesh().parts().len()
    );
    assert!(uv <= 1e-6, "{uv}");
    let probe = &scene.probes()[0].pose;
    assert_renders_agree((&scene, &weights), (&imported.scene, &w), probe, "sprite");
}

/// A W x H image whose top half (PNG rows 0..H/2) is red and bottom half blue.
fn red_over_blue(path: &Path) -> (u32, u32) {
    let (w, h) = (8, 6);
    RgbaImage::from_fn(w, h, |_, y| {
        if y < h / 2 {
            Rgba([255, 0, 0, 255])
        } else {
            Rgba([0, 0, 255, 255])
        }
    })
    .save(path)
    .unwrap();
    (w, h)
}

/// The small arms-down figure with art `image`: texture coordinates from the vertex's place
/// in the bounding box, the figure's top (largest y: scene y is up) at the image's top row.
fn figure_with_art(image: &Path, (w, h): (u32, u32), layers: Vec<Layer>) -> Scene {
    let scene = small_scene("arms-down");
    let (lo, hi) = scene.mesh().bounds();
    let uvs = scene
        .mesh()
        .vertices()
        .iter()
        .map(|p| {
            nalgebra::Point2::new(
                (p.x - lo.x) / (hi.x - lo.x) * f64::from(w),
                (hi.y - p.y) / (hi.y - lo.y) * f64::from(h),
            )
        })
        .collect();
    let art = Art {
        images: vec![ArtImage {
            name: "red over blue".into(),
            path: image.to_path_buf(),
            alpha: AlphaMode::Straight,
        }],
        uvs,
        layers,
    };
    scene.with_art(art).unwrap()
}

/// The figure drawn with the red-over-blue image written into `dir` (every part one layer),
/// and its glTF export (euclidean weights) parsed as JSON.
fn exported_red_over_blue_figure(dir: &Path) -> (Scene, Value) {
    let png = dir.join("rb.png");
    let size = red_over_blue(&png);
    let base = small_scene("arms-down");
    let scene = figure_with_art(&png, size, all_layers(&base));
    let weights = solved(&scene, "euclidean");
    let text = common::export_text("gltf", &scene, &weights, &ExportOptions::default()).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    (scene, doc)
}

fn all_layers(scene: &Scene) -> Vec<Layer> {
    Layer::one_per_part(scene.mesh().parts(), Some(0))
}

/// The floats of accessor `a` of an exported (one embedded buffer) glTF.
fn floats(doc: &Value, a: usize) -> Vec<f32> {
    let uri = doc["buffers"][0]["uri"].as_str().unwrap();
    let buffer = BASE64.decode(uri.split_once(',').unwrap().1).unwrap();
    let acc = &doc["accessors"][a];
    assert_eq!(acc["componentType"], 5126);
    let view = &doc["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = view["byteLength"].as_u64().unwrap() as usize;
    buffer[start..start + len]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The glTF spec, read without skinweights' importer: TEXCOORD (0, 0) is the first pixel of
/// the image, its top-left corner, and v grows down the rows. The figure's top must sample
/// the red rows and its bottom the blue ones.
#[test]
fn texture_origin_is_the_images_top_left_as_gltf_says() {
    let dir = tempfile::tempdir().unwrap();
    let (scene, doc) = exported_red_over_blue_figure(dir.path());
    let prim = &doc["meshes"][0]["primitives"][0];
    let uv = floats(
        &doc,
        prim["attributes"]["TEXCOORD_0"].as_u64().unwrap() as usize,
    );
    let pos = floats(
        &doc,
        prim["attributes"]["POSITION"].as_u64().unwrap() as usize,
    );
    let uri = doc["images"][0]["uri"].as_str().unwrap();
    let (head, data) = uri.split_once(',').unwrap();
    assert_eq!(head, "data:image/png;base64");
    let image = image::load_from_memory(&BASE64.decode(data).unwrap())
        .unwrap()
        .to_rgba8();
    let (lo, hi) = scene.mesh().bounds();
    let mid = (lo.y + hi.y) / 2.0;
    let (mut red, mut blue) = (0, 0);
    for v in 0..scene.mesh().vertex_count() {
        let (u, t) = (uv[2 * v], uv[2 * v + 1]);
        assert!((0.0..=1.0).contains(&u) && (0.0..=1.0).contains(&t));
        let y = f64::from(pos[3 * v + 1]);
        if (y - mid).abs() < 0.05 * (hi.y - lo.y) {
            continue; // near the colour boundary
        }
        // Nearest texel by the spec's convention: column u·W, row v·H from the top.
        let col = ((u * image.width() as f32) as u32).min(image.width() - 1);
        let row = ((t * image.height() as f32) as u32).min(image.height() - 1);
        let texel = image.get_pixel(col, row).0;
        if y > mid {
            assert_eq!(texel, [255, 0, 0, 255], "vertex {v} at the top samples red");
            red += 1;
        } else {
            assert_eq!(
                texel,
                [0, 0, 255, 255],
                "vertex {v} at the bottom samples blue"
            );
            blue += 1;
        }
    }
    assert!(red > 50 && blue > 50, "{red} {blue}");
    // The figure's highest vertex is at v = 0 exactly, its lowest at v = 1.
    let top = (0..scene.mesh().vertex_count())
        .max_by(|&a, &b| pos[3 * a + 1].total_cmp(&pos[3 * b + 1]))
        .unwrap();
    assert_eq!(uv[2 * top + 1], 0.0);
}

/// Checks an exported glTF against spec rules that are cheap to check here: buffer views
/// inside the buffer, accessors inside their views, POSITION min/max equal to the data,
/// indices in range, every primitive's attribute counts equal, TEXCOORD in [0, 1], images
/// PNG with their mimeType, textures / materials / samplers referring to what exists.
fn check_gltf_rules(doc: &Value) {
    let buffer_len = doc["buffers"][0]["byteLength"].as_u64().unwrap() as usize;
    let uri = doc["buffers"][0]["uri"].as_str().unwrap();
    assert_eq!(
        BASE64.decode(uri.split_once(',').unwrap().1).unwrap().len(),
        buffer_len
    );
    for (i, view) in doc["bufferViews"].as_array().unwrap().iter().enumerate() {
        let (off, len) = (
            view["byteOffset"].as_u64().unwrap() as usize,
            view["byteLength"].as_u64().unwrap() as usize,
        );
        assert!(len >= 1 && off + len <= buffer_len, "bufferViews[{i}]");
        assert_eq!(off % 4, 0, "bufferViews[{i}] aligned");
    }
    let size = |acc: &Value| {
        let c = match acc["componentType"].as_u64().unwrap() {
            5120 | 5121 => 1,
            5122 | 5123 => 2,
            _ => 4,
        };
        let n = match acc["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            t => panic!("type {t}"),
        };
        c * n
    };
    let accessors = doc["accessors"].as_array().unwrap();
    for (i, acc) in accessors.iter().enumerate() {
        let view = &doc["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
        let count = acc["count"].as_u64().unwrap() as usize;
        assert!(count >= 1, "accessors[{i}].count");
        assert_eq!(
            count * size(acc),
            view["byteLength"].as_u64().unwrap() as usize,
            "accessors[{i}] fills its view"
        );
    }
    let images = doc["images"].as_array().unwrap();
    for (i, image) in images.iter().enumerate() {
        assert_eq!(image["mimeType"], "image/png", "images[{i}]");
        let uri = image["uri"].as_str().unwrap();
        let bytes = BASE64.decode(uri.split_once(',').unwrap().1).unwrap();
        assert!(
            bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
            "images[{i}] is PNG"
        );
    }
    let samplers = doc["samplers"].as_array().unwrap();
    assert_eq!(samplers.len(), 1);
    assert_eq!(samplers[0]["magFilter"], 9729);
    assert_eq!(samplers[0]["minFilter"], 9729);
    assert_eq!(samplers[0]["wrapS"], 33071);
    assert_eq!(samplers[0]["wrapT"], 33071);
    for t in doc["textures"].as_array().unwrap() {
        assert!((t["source"].as_u64().unwrap() as usize) < images.len());
        assert_eq!(t["sampler"], 0);
    }
    let textures = doc["textures"].as_array().unwrap().len();
    let materials = doc["materials"].as_array().unwrap();
    for m in materials {
        assert_eq!(m["alphaMode"], "BLEND");
        let t = m["pbrMetallicRoughness"]["baseColorTexture"]["index"]
            .as_u64()
            .unwrap();
        assert!((t as usize) < textures);
    }
    for ext in doc["extensionsUsed"].as_array().unwrap() {
        assert_eq!(ext, "KHR_materials_unlit");
    }
    assert!(doc.get("extensionsRequired").is_none());
    let primitives = doc["meshes"][0]["primitives"].as_array().unwrap();
    let first = &primitives[0]["attributes"];
    let position = first["POSITION"].as_u64().unwrap() as usize;
    let n = accessors[position]["count"].as_u64().unwrap() as usize;
    let p = floats(doc, position);
    for k in 0..3 {
        let lo = (0..n).map(|v| p[3 * v + k]).fold(f32::INFINITY, f32::min);
        let hi = (0..n)
            .map(|v| p[3 * v + k])
            .fold(f32::NEG_INFINITY, f32::max);
        // As f32: the JSON number is the f32's shortest decimal form.
        assert_eq!(accessors[position]["min"][k].as_f64().unwrap() as f32, lo);
        assert_eq!(accessors[position]["max"][k].as_f64().unwrap() as f32, hi);
    }
    let uv = floats(doc, first["TEXCOORD_0"].as_u64().unwrap() as usize);
    assert!(uv.iter().all(|x| (0.0..=1.0).contains(x)));
    for (i, prim) in primitives.iter().enumerate() {
        assert_eq!(
            &prim["attributes"], first,
            "primitives[{i}] share the vertices"
        );
        let m = prim["material"].as_u64().unwrap() as usize;
        assert!(m < materials.len());
        let idx = &accessors[prim["indices"].as_u64().unwrap() as usize];
        assert_eq!(idx["count"].as_u64().unwrap() % 3, 0);
        assert!(idx["componentType"] == 5123 || idx["componentType"] == 5125);
    }
}

#[test]
fn exported_art_follows_the_gltf_rules() {
    let db = load_dragonbones(data("dragonbones-you-xin/body_ske.json")).unwrap();
    let text =
        common::export_text("gltf", &db.scene, &db.artist, &ExportOptions::default()).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    check_gltf_rules(&doc);
    assert_eq!(doc["images"][0]["name"], "body");
    // The PNG is the atlas file, byte for byte.
    let uri = doc["images"][0]["uri"].as_str().unwrap();
    assert_eq!(
        BASE64.decode(uri.split_once(',').unwrap().1).unwrap(),
        std::fs::read(data("dragonbones-you-xin/body_tex.png")).unwrap()
    );
}

#[test]
fn scene_without_art_exports_one_untextured_primitive() {
    let scene = small_scene("arms-down");
    assert!(scene.art().is_none());
    let weights = solved(&scene, "euclidean");
    let doc: Value = serde_json::from_str(
        &common::export_text("gltf", &scene, &weights, &ExportOptions::default()).unwrap(),
    )
    .unwrap();
    let prims = doc["meshes"][0]["primitives"].as_array().unwrap();
    assert_eq!(prims.len(), 1);
    assert!(prims[0]["attributes"].get("TEXCOORD_0").is_none());
    assert!(prims[0].get("material").is_none());
    for key in [
        "images",
        "materials",
        "textures",
        "samplers",
        "extensionsUsed",
    ] {
        assert!(doc.get(key).is_none(), "{key}");
    }
    let index = prims[0]["indices"].as_u64().unwrap() as usize;
    assert_eq!(
        doc["accessors"][index]["count"].as_u64().unwrap() as usize,
        3 * scene.mesh().triangle_count()
    );
}

/// Draw order other than part order, a flat-colour layer and a premultiplied image survive.
#[test]
fn draw_order_flat_layers_and_premultiplied_images_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("rb.png");
    let size = red_over_blue(&png);
    let base = small_scene("arms-down");
    let mut layers = all_layers(&base);
    assert!(layers.len() >= 3, "the figure has parts");
    layers.reverse();
    layers[1].image = None;
    let scene = figure_with_art(&png, size, layers);
    let mut art = scene.art().cloned().unwrap();
    art.images[0].alpha = AlphaMode::Premultiplied;
    let scene = scene.with_art(art).unwrap();
    let weights = solved(&scene, "euclidean");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let (doc, imported, _) = round_trip(&scene, &weights, &out);
    let prims = doc["meshes"][0]["primitives"].as_array().unwrap();
    assert!(prims[1].get("material").is_none(), "flat layer");
    assert_eq!(
        prims[0]["extras"]["skinweights"]["part"],
        scene.art().unwrap().layers[0].part.as_str()
    );
    // Flat-colour vertices carry no coordinate; compare the textured ones.
    let uv = assert_same_art(&scene, &imported.scene);
    assert!(uv <= 1e-6, "{uv}");
}

#[test]
fn unreadable_images_and_coordinates_outside_them_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("rb.png");
    let size = red_over_blue(&png);
    let base = small_scene("arms-down");
    let weights = solved(&base, "euclidean");
    let missing = dir.path().join("missing.png");
    let scene = figure_with_art(&missing, size, all_layers(&base));
    let e = common::export_text("gltf", &scene, &weights, &ExportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("missing.png") && e.contains("art.images[0]"),
        "{e}"
    );
    let not_png = dir.path().join("not.png");
    std::fs::write(&not_png, b"GIF89a").unwrap();
    let scene = figure_with_art(&not_png, size, all_layers(&base));
    let e = common::export_text("gltf", &scene, &weights, &ExportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("not.png"), "{e}");
    let scene = figure_with_art(&png, size, all_layers(&base));
    let mut art = scene.art().cloned().unwrap();
    art.uvs[7].x = f64::from(size.0) + 0.5;
    let scene = scene.with_art(art).unwrap();
    let e = common::export_text("gltf", &scene, &weights, &ExportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("art.uvs[7]") && e.contains("outside"), "{e}");
}

#[cfg(feature = "cli")]
#[test]
fn cli_export_then_import_gives_the_atlas_back() {
    use common::{skinweights, text};
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let ske = data("dragonbones-you-xin/body_ske.json");
    let o = skinweights(&[
        "import",
        "dragonbones",
        ske.to_str().unwrap(),
        "-o",
        &at("db.json"),
        "--weights",
        &at("w.json"),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let o = skinweights(&[
        "export",
        "gltf",
        &at("db.json"),
        &at("w.json"),
        "-o",
        &at("db.gltf"),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("1 images embedded, 7 layers as primitives"),
        "{}",
        text(&o)
    );
    let o = skinweights(&[
        "import",
        "gltf",
        &at("db.gltf"),
        "-o",
        &at("back.json"),
        "--weights",
        &at("back_w.json"),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        std::fs::read(dir.path().join("db_image0.png")).unwrap(),
        std::fs::read(data("dragonbones-you-xin/body_tex.png")).unwrap()
    );
    let layers = |f: &str| {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(at(f)).unwrap()).unwrap();
        v["art"]["layers"].clone()
    };
    assert_eq!(layers("db.json"), layers("back.json"));
}

/// The extras the importer reads for art are checked: a primitive naming a part the mesh
/// does not have, a part name that is not a string, an unknown alpha mode.
#[test]
fn bad_art_extras_are_errors_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let (_, doc) = exported_red_over_blue_figure(dir.path());
    let import = |doc: &Value| {
        skinweights::io::gltf::import_gltf_str(&doc.to_string(), Some(dir.path()), "x")
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let mut bad = doc.clone();
    bad["meshes"][0]["primitives"][1]["extras"]["skinweights"]["part"] = "nope".into();
    let e = import(&bad);
    assert!(
        e.contains("primitives[1].extras.skinweights.part") && e.contains("nope"),
        "{e}"
    );
    let mut bad = doc.clone();
    bad["meshes"][0]["primitives"][0]["extras"]["skinweights"]["part"] = 3.into();
    let e = import(&bad);
    assert!(e.contains("primitives[0].extras.skinweights.part"), "{e}");
    let mut bad = doc;
    bad["images"][0]["extras"] = serde_json::json!({"skinweights": {"alpha": "linear"}});
    let e = import(&bad);
    assert!(
        e.contains("images[0].extras.skinweights.alpha") && e.contains("linear"),
        "{e}"
    );
}
