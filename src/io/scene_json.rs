//! The scene file: JSON, `"format": "skinweights.scene/1"` (see docs/formats.md), or
//! `skinweights.scene/2` when it carries art (`/1` plus an optional `art` object: images
//! with paths relative to the scene file, a texture coordinate per vertex, layers in draw
//! order). Scenes without art are written as `/1`, so older readers keep reading them.

use super::binary;
use crate::error::{Error, Result};
use crate::mesh::{Mesh, DEFAULT_PART};
use crate::scene::{AlphaMode, Art, ArtImage, Layer, Probe, Scene, Watch};
use crate::skeleton::{Bone, Pose, Skeleton};
use nalgebra::{Point2, Vector2};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The `format` tag of scene files without art.
pub const SCENE_FORMAT: &str = "skinweights.scene/1";
/// The `format` tag of scene files with art (`/1` plus the `art` object).
pub const SCENE_FORMAT_ART: &str = "skinweights.scene/2";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SceneFile {
    format: String,
    name: String,
    vertices: Vec<[f64; 2]>,
    triangles: Vec<[usize; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    parts: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vertex_parts: Option<Vec<usize>>,
    bones: Vec<BoneFile>,
    #[serde(default)]
    probes: Vec<ProbeFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    art: Option<ArtFile>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArtFile {
    images: Vec<ImageFile>,
    uvs: Vec<[f64; 2]>,
    layers: Vec<LayerFile>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ImageFile {
    name: String,
    path: String,
    #[serde(default = "straight")]
    alpha: String,
}

fn straight() -> String {
    AlphaMode::Straight.name().to_string()
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LayerFile {
    part: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    image: Option<usize>,
}

/// A bone as written in scene files (and in the sprite importer's bones files).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BoneFile {
    name: String,
    parent: Option<String>,
    head: [f64; 2],
    tail: [f64; 2],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    part: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    influences: Option<Vec<String>>,
}

/// A pose entry: a bare number is a rotation in degrees.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum PoseValue {
    Degrees(f64),
    Full {
        #[serde(default)]
        rotate: Option<f64>,
        #[serde(default)]
        translate: Option<[f64; 2]>,
    },
}

/// A probe as written in scene files (and in the sprite importer's bones files).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProbeFile {
    name: String,
    pose: BTreeMap<String, PoseValue>,
    #[serde(default)]
    watch: WatchFile,
}

#[derive(Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct WatchFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    part: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    below_y: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min_distance: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vertices: Option<Vec<usize>>,
}

/// Parses and validates a scene from JSON text. Returns the scene and notes about repairs
/// made while loading (e.g. a consistently clockwise file flipped to counter-clockwise).
///
/// Image paths in `art` are resolved against `base_dir` (the scene file's folder) when given.
pub fn scene_from_json(text: &str, base_dir: Option<&Path>) -> Result<(Scene, Vec<String>)> {
    let file: SceneFile = serde_json::from_str(text).map_err(|e| Error::Json {
        context: "scene".into(),
        message: e.to_string(),
    })?;
    scene_from_file(file, base_dir)
}

/// The header of a binary scene file: the JSON file without its three big arrays, and
/// their lengths.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BinaryHeader {
    /// Vertex and triangle counts.
    counts: [usize; 2],
    scene: SceneFile,
}

/// Parses and validates a binary scene (see [`super::binary`]); image paths resolve against
/// `base_dir` as in [`scene_from_json`].
pub fn scene_from_binary(bytes: &[u8], base_dir: Option<&Path>) -> Result<(Scene, Vec<String>)> {
    let (mut reader, header) = binary::Reader::open(bytes, binary::SCENE_MAGIC)?;
    let header: BinaryHeader = serde_json::from_str(header).map_err(|e| Error::Json {
        context: "binary scene header".into(),
        message: e.to_string(),
    })?;
    let [n, m] = header.counts;
    let mut file = header.scene;
    file.vertices = reader.f64_records::<2>("vertices", n)?;
    file.triangles = reader.index_records::<3>("triangles", m)?;
    let parts = reader.index_records::<1>("vertex_parts", n)?;
    // Same size and alignment: collected in place, without a copy.
    file.vertex_parts = Some(parts.into_iter().map(|[p]| p).collect());
    reader.finish()?;
    scene_from_file(file, base_dir)
}

/// Serializes a scene to the binary format; image paths as in [`scene_to_json`].
pub fn scene_to_binary(scene: &Scene, out_dir: Option<&Path>) -> Result<Vec<u8>> {
    let mesh = &scene.mesh;
    let mut file = scene_file(scene, out_dir, false);
    file.vertex_parts = None;
    let header = BinaryHeader {
        counts: [mesh.vertex_count(), mesh.triangle_count()],
        scene: file,
    };
    let header = serde_json::to_string(&header).map_err(|e| Error::Json {
        context: "scene".into(),
        message: e.to_string(),
    })?;
    let size = mesh.vertex_count() * 20 + mesh.triangle_count() * 12;
    let mut w = binary::Writer::new(binary::SCENE_MAGIC, &header, size);
    w.f64s(mesh.vertices().iter().flat_map(|p| [p.x, p.y]));
    w.u32s("triangles", mesh.triangles().iter().flatten().copied())?;
    w.u32s("vertex_parts", mesh.vertex_parts().iter().copied())?;
    Ok(w.finish())
}

fn scene_from_file(file: SceneFile, base_dir: Option<&Path>) -> Result<(Scene, Vec<String>)> {
    if file.format != SCENE_FORMAT && file.format != SCENE_FORMAT_ART {
        return Err(Error::field(
            "format",
            format!(
                "expected {SCENE_FORMAT:?} or {SCENE_FORMAT_ART:?}, found {:?}",
                file.format
            ),
        ));
    }
    if file.art.is_some() && file.format == SCENE_FORMAT {
        return Err(Error::field(
            "format",
            format!("a scene with \"art\" must say {SCENE_FORMAT_ART:?}"),
        ));
    }
    let mut notes = Vec::new();
    // Same size and alignment: collected in place, without a copy.
    let vertices: Vec<Point2<f64>> = file
        .vertices
        .into_iter()
        .map(|[x, y]| Point2::new(x, y))
        .collect();
    let (parts, vertex_parts) = match (file.parts, file.vertex_parts) {
        (Some(p), Some(vp)) => (p, vp),
        (None, None) => (vec![DEFAULT_PART.to_string()], vec![0; vertices.len()]),
        (Some(p), None) if p.len() == 1 => (p, vec![0; vertices.len()]),
        (Some(_), None) => {
            return Err(Error::field(
                "vertex_parts",
                "missing: several parts are named but no vertex is assigned to one",
            ))
        }
        (None, Some(_)) => {
            return Err(Error::field(
                "parts",
                "missing: vertex_parts is given without part names",
            ))
        }
    };
    // Artist meshes (folded, either orientation, unused vertices) load with notes.
    let (mesh, mesh_notes) = Mesh::from_artist(vertices, file.triangles, parts, vertex_parts)?;
    notes.extend(mesh_notes.messages());
    let skeleton = skeleton_from_file(&file.bones)?;
    let probes = probes_from_file(file.probes);
    let scene = Scene::new(file.name, mesh, skeleton, probes)?;
    let scene = match file.art {
        Some(art) => scene.with_art(art_from_file(art, base_dir)?)?,
        None => scene,
    };
    Ok((scene, notes))
}

fn art_from_file(art: ArtFile, base_dir: Option<&Path>) -> Result<Art> {
    let images = art
        .images
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            let alpha = AlphaMode::from_name(&f.alpha).ok_or_else(|| {
                Error::field(
                    format!("art.images[{i}].alpha"),
                    format!("{:?} is not \"straight\" or \"premultiplied\"", f.alpha),
                )
            })?;
            let path = Path::new(&f.path);
            Ok(ArtImage {
                name: f.name,
                path: match base_dir {
                    Some(d) if path.is_relative() => d.join(path),
                    _ => path.to_path_buf(),
                },
                alpha,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Art {
        images,
        uvs: art.uvs.iter().map(|&[u, v]| Point2::new(u, v)).collect(),
        layers: art
            .layers
            .into_iter()
            .map(|l| Layer {
                part: l.part,
                image: l.image,
            })
            .collect(),
    })
}

fn art_to_file(art: &Art, out_dir: Option<&Path>) -> ArtFile {
    ArtFile {
        images: art
            .images
            .iter()
            .map(|im| ImageFile {
                name: im.name.clone(),
                path: relative_to(&im.path, out_dir)
                    .to_string_lossy()
                    .into_owned(),
                alpha: im.alpha.name().to_string(),
            })
            .collect(),
        uvs: art.uvs.iter().map(|p| [p.x, p.y]).collect(),
        layers: art
            .layers
            .iter()
            .map(|l| LayerFile {
                part: l.part.clone(),
                image: l.image,
            })
            .collect(),
    }
}

/// `path` written relative to `dir` when both resolve to absolute paths (with `..` steps as
/// needed), else unchanged.
fn relative_to(path: &Path, dir: Option<&Path>) -> std::path::PathBuf {
    let (Some(dir), Ok(cwd)) = (dir, std::env::current_dir()) else {
        return path.to_path_buf();
    };
    let abs = |p: &Path| {
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            cwd.join(p)
        };
        // Lexical normalization: `a/./b/../c` -> `a/c` (no file system access needed).
        let mut out = std::path::PathBuf::new();
        for c in p.components() {
            match c {
                std::path::Component::CurDir => {}
                std::path::Component::ParentDir => {
                    out.pop();
                }
                c => out.push(c),
            }
        }
        out
    };
    let (p, d) = (abs(path), abs(dir));
    let common = p
        .components()
        .zip(d.components())
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return p;
    }
    let mut rel = std::path::PathBuf::new();
    for _ in d.components().skip(common) {
        rel.push("..");
    }
    for c in p.components().skip(common) {
        rel.push(c);
    }
    rel
}

/// Builds the skeleton of the `bones` list of a scene file (parents resolved by name).
pub(crate) fn skeleton_from_file(bones_file: &[BoneFile]) -> Result<Skeleton> {
    let mut bones = Vec::with_capacity(bones_file.len());
    for b in bones_file {
        let parent = match &b.parent {
            None => None,
            Some(p) => Some(
                bones_file
                    .iter()
                    .position(|o| &o.name == p)
                    .ok_or_else(|| Error::UnknownParent {
                        bone: b.name.clone(),
                        parent: p.clone(),
                    })?,
            ),
        };
        bones.push(Bone {
            name: b.name.clone(),
            parent,
            head: Point2::new(b.head[0], b.head[1]),
            tail: Point2::new(b.tail[0], b.tail[1]),
            part: b.part.clone(),
            influences: b.influences.clone(),
        });
    }
    Skeleton::new(bones)
}

/// Builds the probes of the `probes` list of a scene file.
pub(crate) fn probes_from_file(probes: Vec<ProbeFile>) -> Vec<Probe> {
    probes
        .into_iter()
        .map(|p| {
            let mut pose = Pose::default();
            for (bone, v) in p.pose {
                match v {
                    PoseValue::Degrees(d) => {
                        pose.rotations.insert(bone, d);
                    }
                    PoseValue::Full { rotate, translate } => {
                        if let Some(d) = rotate {
                            pose.rotations.insert(bone.clone(), d);
                        }
                        if let Some([x, y]) = translate {
                            pose.translations.insert(bone, Vector2::new(x, y));
                        }
                    }
                }
            }
            Probe {
                name: p.name,
                pose,
                watch: Watch {
                    part: p.watch.part,
                    below_y: p.watch.below_y,
                    min_distance: p.watch.min_distance,
                    vertices: p.watch.vertices,
                },
            }
        })
        .collect()
}

/// Serializes a scene to JSON text in the scene format. Image paths in `art` are written
/// relative to `out_dir` (the folder the file goes to) when given.
pub fn scene_to_json(scene: &Scene, out_dir: Option<&Path>) -> Result<String> {
    serde_json::to_string(&scene_file(scene, out_dir, true)).map_err(|e| Error::Json {
        context: "scene".into(),
        message: e.to_string(),
    })
}

/// The scene as file values; `with_arrays: false` leaves vertices and triangles empty (the
/// binary format stores them raw).
fn scene_file(scene: &Scene, out_dir: Option<&Path>, with_arrays: bool) -> SceneFile {
    let mesh = &scene.mesh;
    let bones = scene.skeleton.bones();
    SceneFile {
        format: if scene.art.is_some() {
            SCENE_FORMAT_ART
        } else {
            SCENE_FORMAT
        }
        .to_string(),
        art: scene.art.as_ref().map(|a| art_to_file(a, out_dir)),
        name: scene.name.clone(),
        vertices: if with_arrays {
            mesh.vertices().iter().map(|p| [p.x, p.y]).collect()
        } else {
            Vec::new()
        },
        triangles: if with_arrays {
            mesh.triangles().to_vec()
        } else {
            Vec::new()
        },
        parts: Some(mesh.parts().to_vec()),
        vertex_parts: Some(mesh.vertex_parts().to_vec()),
        bones: bones
            .iter()
            .map(|b| BoneFile {
                name: b.name.clone(),
                parent: b.parent.map(|p| bones[p].name.clone()),
                head: [b.head.x, b.head.y],
                tail: [b.tail.x, b.tail.y],
                part: b.part.clone(),
                influences: b.influences.clone(),
            })
            .collect(),
        probes: scene
            .probes
            .iter()
            .map(|p| {
                let mut pose = BTreeMap::new();
                let names: std::collections::BTreeSet<&String> = p
                    .pose
                    .rotations
                    .keys()
                    .chain(p.pose.translations.keys())
                    .collect();
                for n in names {
                    let r = p.pose.rotations.get(n).copied();
                    let t = p.pose.translations.get(n).map(|v| [v.x, v.y]);
                    let v = match (r, t) {
                        (Some(d), None) => PoseValue::Degrees(d),
                        (rotate, translate) => PoseValue::Full { rotate, translate },
                    };
                    pose.insert(n.clone(), v);
                }
                ProbeFile {
                    name: p.name.clone(),
                    pose,
                    watch: WatchFile {
                        part: p.watch.part.clone(),
                        below_y: p.watch.below_y,
                        min_distance: p.watch.min_distance,
                        vertices: p.watch.vertices.clone(),
                    },
                }
            })
            .collect(),
    }
}

/// Loads and validates a scene file. Returns the scene and loading notes (see
/// [`scene_from_json`]).
///
/// Both formats are read: a file that starts with the binary magic is binary, any other is
/// JSON.
pub fn load_scene(path: impl AsRef<Path>) -> Result<(Scene, Vec<String>)> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    if bytes.starts_with(binary::SCENE_MAGIC) {
        return scene_from_binary(&bytes, path.parent()).map_err(|e| e.in_file(path));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::field(
            "scene",
            format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        )
        .in_file(path)
    })?;
    scene_from_json(&text, path.parent()).map_err(|e| e.in_file(path))
}

/// Writes a scene file, whole or not at all (overwrites `path`; the CLI asks before doing
/// so): binary when the extension is `.swb`, JSON otherwise.
pub fn save_scene(scene: &Scene, path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    let bytes = if binary::wants_binary(path) {
        scene_to_binary(scene, path.parent())?
    } else {
        scene_to_json(scene, path.parent())?.into_bytes()
    };
    crate::io::write_atomic(path, bytes)
}
