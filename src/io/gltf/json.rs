//! The glTF document as serde reads it: only the properties the importer uses.

use super::{texture, TRIANGLES};
use crate::error::{Error, Result};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Doc {
    pub(super) asset: Asset,
    #[serde(default)]
    pub(super) accessors: Vec<AccessorJson>,
    #[serde(default)]
    pub(super) buffer_views: Vec<ViewJson>,
    #[serde(default)]
    pub(super) buffers: Vec<BufferJson>,
    #[serde(default)]
    pub(super) meshes: Vec<MeshJson>,
    #[serde(default)]
    pub(super) nodes: Vec<NodeJson>,
    #[serde(default)]
    pub(super) skins: Vec<SkinJson>,
    #[serde(default)]
    pub(super) materials: Vec<texture::MaterialJson>,
    #[serde(default)]
    pub(super) textures: Vec<texture::TextureJson>,
    #[serde(default)]
    pub(super) images: Vec<texture::ImageJson>,
    /// Extensions a reader must understand to load the file correctly; this importer
    /// implements none, so any is an error (glTF 2.0 spec, 3.12).
    #[serde(default)]
    pub(super) extensions_required: Vec<String>,
    #[serde(default)]
    pub(super) animations: Vec<AnimationJson>,
}

#[derive(Deserialize)]
pub(super) struct Asset {
    pub(super) version: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct AccessorJson {
    pub(super) buffer_view: Option<usize>,
    #[serde(default)]
    pub(super) byte_offset: usize,
    pub(super) component_type: u32,
    #[serde(default)]
    pub(super) normalized: bool,
    pub(super) count: usize,
    #[serde(rename = "type")]
    pub(super) kind: String,
    pub(super) sparse: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ViewJson {
    pub(super) buffer: usize,
    #[serde(default)]
    pub(super) byte_offset: usize,
    pub(super) byte_length: usize,
    pub(super) byte_stride: Option<usize>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BufferJson {
    pub(super) uri: Option<String>,
    pub(super) byte_length: usize,
}

#[derive(Deserialize)]
pub(super) struct MeshJson {
    pub(super) primitives: Vec<PrimitiveJson>,
    pub(super) extras: Option<Value>,
}

#[derive(Deserialize)]
pub(super) struct PrimitiveJson {
    pub(super) attributes: BTreeMap<String, usize>,
    pub(super) indices: Option<usize>,
    #[serde(default = "triangles_mode")]
    pub(super) mode: u32,
    pub(super) material: Option<usize>,
    /// `extras.skinweights.part`: the layer's part (art_export.rs writes it).
    pub(super) extras: Option<Value>,
}

pub(super) fn triangles_mode() -> u32 {
    TRIANGLES
}

#[derive(Deserialize)]
pub(super) struct NodeJson {
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) children: Vec<usize>,
    pub(super) mesh: Option<usize>,
    pub(super) skin: Option<usize>,
    pub(super) extras: Option<Value>,
    /// The static TRS or matrix, kept as JSON: read (and checked) only when the file has
    /// animations, so that a file without them imports as it always did.
    pub(super) translation: Option<Value>,
    pub(super) rotation: Option<Value>,
    pub(super) scale: Option<Value>,
    pub(super) matrix: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SkinJson {
    pub(super) inverse_bind_matrices: Option<usize>,
    pub(super) joints: Vec<usize>,
}

/// `list[i]`, or an error naming the missing `what[i]`.
pub(super) fn lookup<'a, T>(list: &'a [T], i: usize, what: &str) -> Result<&'a T> {
    list.get(i).ok_or_else(|| {
        Error::field(
            format!("{what}[{i}]"),
            format!("does not exist (the file has {} {what})", list.len()),
        )
    })
}

#[derive(Deserialize)]
pub(super) struct AnimationJson {
    pub(super) name: Option<String>,
    pub(super) channels: Vec<AnimationChannelJson>,
    pub(super) samplers: Vec<SamplerJson>,
    /// `extras.skinweights.duration`: the clip's length when it outlasts its last key.
    pub(super) extras: Option<Value>,
}

#[derive(Deserialize)]
pub(super) struct AnimationChannelJson {
    pub(super) sampler: usize,
    pub(super) target: TargetJson,
}

#[derive(Deserialize)]
pub(super) struct TargetJson {
    /// Absent when an extension (KHR_animation_pointer) names the target.
    pub(super) node: Option<usize>,
    pub(super) path: String,
}

#[derive(Deserialize)]
pub(super) struct SamplerJson {
    pub(super) input: usize,
    #[serde(default = "linear")]
    pub(super) interpolation: String,
    pub(super) output: usize,
}

fn linear() -> String {
    "LINEAR".into()
}
