//! glTF import of textures: a material's baseColorTexture (file beside the .gltf, data: URI,
//! or buffer view) becomes the scene's art, TEXCOORD_0 its texture coordinates in pixels.

use crate::common;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use common::{small_scene, solved};
use image::{Rgba, RgbaImage};
use serde_json::{json, Value};
use skinweights::io::{gltf::import_gltf, ExportOptions};
use skinweights::render::Texture;
use std::path::{Path, PathBuf};

const W: u32 = 16;
const H: u32 = 8;

fn png_bytes() -> Vec<u8> {
    let image = RgbaImage::from_fn(W, H, |x, y| Rgba([(x * 16) as u8, (y * 32) as u8, 90, 255]));
    let mut bytes = Vec::new();
    image
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .unwrap();
    bytes
}

/// The glTF of a small solved figure with TEXCOORD_0 = the vertex's place in the mesh's
/// bounding box (u right, v down), a material whose base colour texture is `image`, and the
/// texture coordinates each vertex should import with (in pixels of a W x H image).
fn textured(image: Value, extra_buffer: Option<&[u8]>) -> (Value, Vec<[f64; 2]>) {
    let scene = small_scene("arms-down");
    let weights = solved(&scene, "euclidean");
    let text = common::export_text("gltf", &scene, &weights, &ExportOptions::default()).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let (lo, hi) = scene.mesh().bounds();
    let uv: Vec<[f32; 2]> = scene
        .mesh()
        .vertices()
        .iter()
        .map(|p| {
            [
                ((p.x - lo.x) / (hi.x - lo.x)) as f32,
                ((hi.y - p.y) / (hi.y - lo.y)) as f32,
            ]
        })
        .collect();
    let bytes: Vec<u8> = uv.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
    let push_buffer = |doc: &mut Value, data: &[u8]| -> usize {
        let buffers = doc["buffers"].as_array_mut().unwrap();
        buffers.push(json!({
            "uri": format!("data:application/octet-stream;base64,{}", BASE64.encode(data)),
            "byteLength": data.len(),
        }));
        let b = buffers.len() - 1;
        let views = doc["bufferViews"].as_array_mut().unwrap();
        views.push(json!({"buffer": b, "byteOffset": 0, "byteLength": data.len()}));
        views.len() - 1
    };
    let view = push_buffer(&mut doc, &bytes);
    let accessors = doc["accessors"].as_array_mut().unwrap();
    accessors.push(
        json!({"bufferView": view, "componentType": 5126, "count": uv.len(), "type": "VEC2"}),
    );
    let accessor = accessors.len() - 1;
    let mut image = image;
    if let Some(data) = extra_buffer {
        image["bufferView"] = json!(push_buffer(&mut doc, data));
    }
    let prim = &mut doc["meshes"][0]["primitives"][0];
    prim["attributes"]["TEXCOORD_0"] = json!(accessor);
    prim["material"] = json!(0);
    doc["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    doc["textures"] = json!([{"source": 0}]);
    doc["images"] = json!([image]);
    let expected = uv
        .iter()
        .map(|&[u, v]| [u as f64 * W as f64, v as f64 * H as f64])
        .collect();
    (doc, expected)
}

fn write(dir: &Path, doc: &Value) -> PathBuf {
    let path = dir.join("model.gltf");
    std::fs::write(&path, serde_json::to_string(doc).unwrap()).unwrap();
    path
}

fn assert_uvs(art: &skinweights::scene::Art, expected: &[[f64; 2]]) {
    assert_eq!(art.uvs.len(), expected.len());
    for (v, (got, want)) in art.uvs.iter().zip(expected).enumerate() {
        assert!(
            (got.x - want[0]).abs() < 1e-9 && (got.y - want[1]).abs() < 1e-9,
            "vertex {v}: {got:?} vs {want:?}"
        );
    }
}

#[test]
fn image_file_beside_the_gltf_becomes_the_art() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("skin tex.png"), png_bytes()).unwrap();
    let (doc, expected) = textured(json!({"uri": "skin%20tex.png"}), None);
    let imported = import_gltf(write(dir.path(), &doc)).unwrap();
    let art = imported.scene.art().expect("textured glTF has art");
    assert_eq!(art.images.len(), 1);
    assert_eq!(art.images[0].path, dir.path().join("skin tex.png"));
    assert_eq!(art.images[0].name, "skin tex");
    assert!(art.layers.iter().all(|l| l.image == Some(0)));
    assert_eq!(art.layers.len(), imported.scene.mesh().parts().len());
    assert_uvs(art, &expected);
    // The corners of the bounding box map to the image's corners.
    let max_u = art.uvs.iter().map(|p| p.x).fold(0.0, f64::max);
    let max_v = art.uvs.iter().map(|p| p.y).fold(0.0, f64::max);
    assert!((max_u - W as f64).abs() < 1e-4 && (max_v - H as f64).abs() < 1e-4);
    assert!(imported.report.embedded_images.is_empty());
    let textures = Texture::load_art(art).unwrap();
    assert_eq!(textures[0].image.dimensions(), (W, H));
}

#[test]
fn missing_or_unreadable_image_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (doc, _) = textured(json!({"uri": "absent.png"}), None);
    let e = import_gltf(write(dir.path(), &doc))
        .unwrap_err()
        .to_string();
    assert!(e.contains("absent.png") && e.contains("images[0]"), "{e}");
    std::fs::write(dir.path().join("absent.png"), b"not a png").unwrap();
    let e = import_gltf(write(dir.path(), &doc))
        .unwrap_err()
        .to_string();
    assert!(e.contains("absent.png"), "{e}");
    let (doc, _) = textured(json!({"uri": "../up.png"}), None);
    let e = import_gltf(write(dir.path(), &doc))
        .unwrap_err()
        .to_string();
    assert!(e.contains("images[0].uri") && e.contains(".."), "{e}");
}

#[test]
fn data_uri_image_is_written_beside_the_scene() {
    let dir = tempfile::tempdir().unwrap();
    let uri = format!("data:image/png;base64,{}", BASE64.encode(png_bytes()));
    let (doc, expected) = textured(json!({"uri": uri}), None);
    let mut imported = import_gltf(write(dir.path(), &doc)).unwrap();
    assert_eq!(imported.report.embedded_images.len(), 1);
    assert_eq!(
        imported.report.embedded_images[0].file_name,
        "model_image0.png"
    );
    assert_uvs(imported.scene.art().unwrap(), &expected);
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let written = imported.write_embedded_images(&out, false).unwrap();
    assert_eq!(written, vec![out.join("model_image0.png")]);
    let art = imported.scene.art().unwrap();
    assert_eq!(art.images[0].path, out.join("model_image0.png"));
    assert_eq!(
        Texture::load_art(art).unwrap()[0].image.dimensions(),
        (W, H)
    );
    // No overwrite without force.
    match imported.write_embedded_images(&out, false) {
        Err(skinweights::Error::Output(skinweights::OutputError::WouldOverwrite { path })) => {
            assert_eq!(path, out.join("model_image0.png"))
        }
        other => panic!("{other:?}"),
    }
    imported.write_embedded_images(&out, true).unwrap();
}

#[test]
fn buffer_view_image_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let png = png_bytes();
    let (doc, expected) = textured(json!({"mimeType": "image/png"}), Some(&png));
    let imported = import_gltf(write(dir.path(), &doc)).unwrap();
    assert_eq!(imported.report.embedded_images.len(), 1);
    assert_eq!(imported.report.embedded_images[0].bytes, png);
    assert_uvs(imported.scene.art().unwrap(), &expected);
    // A corrupt embedded image is an error naming the image.
    let (doc, _) = textured(json!({"mimeType": "image/png"}), Some(b"garbage"));
    let e = import_gltf(write(dir.path(), &doc))
        .unwrap_err()
        .to_string();
    assert!(e.contains("images[0]") && e.contains("decode"), "{e}");
}

#[test]
fn texture_coordinates_outside_the_image_are_an_error_naming_the_vertex() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.png"), png_bytes()).unwrap();
    let (mut doc, _) = textured(json!({"uri": "t.png"}), None);
    // Scale the texture coordinates' buffer: rewrite the accessor to read the positions
    // (x, y of VEC3 floats, far outside [0, 1]) through a VEC2 view with stride 12.
    let positions = doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"].clone();
    let pos_view = doc["accessors"][positions.as_u64().unwrap() as usize]["bufferView"].clone();
    let views = doc["bufferViews"].as_array_mut().unwrap();
    let mut strided = views[pos_view.as_u64().unwrap() as usize].clone();
    strided["byteStride"] = json!(12);
    views.push(strided);
    let view = views.len() - 1;
    let tc = doc["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"]
        .as_u64()
        .unwrap() as usize;
    doc["accessors"][tc]["bufferView"] = json!(view);
    let e = import_gltf(write(dir.path(), &doc))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("TEXCOORD") && e.contains("vertex") && e.contains("outside [0, 1]"),
        "{e}"
    );
}

#[test]
fn simpleskin_has_no_texture_and_no_art() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/khronos-simpleskin/SimpleSkin.gltf");
    let imported = import_gltf(path).unwrap();
    assert!(imported.scene.art().is_none());
    assert!(imported.report.embedded_images.is_empty());
}

#[test]
fn material_without_texture_gives_no_art() {
    let dir = tempfile::tempdir().unwrap();
    let (mut doc, _) = textured(json!({"uri": "unused.png"}), None);
    doc["materials"] = json!([{"pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1]}}]);
    let imported = import_gltf(write(dir.path(), &doc)).unwrap();
    assert!(imported.scene.art().is_none());
}
