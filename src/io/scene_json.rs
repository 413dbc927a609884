//! The scene file: JSON, `"format": "skinweights.scene/1"` (see docs/formats.md),
//! `skinweights.scene/2` when it carries art (`/1` plus an optional `art` object: images
//! with paths relative to the scene file, a texture coordinate per vertex, layers in draw
//! order), or `skinweights.scene/3` when bones carry setup transforms (`"local": {x, y,
//! rotation, scale_x, scale_y, shear_x, shear_y, inherit}`, see [`crate::skeleton::local`])
//! or the scene has clips and IK constraints (see `docs/clips.md`). Every scene is written in
//! the lowest version that holds its content, so older readers keep reading them; all three
//! versions are read.

use super::binary;
use crate::animation::{
    AttachmentKey, AttachmentTrack, BoneTrack, Channel, ChannelKind, Clip, Curve, Easing,
    IkConstraint, IkKey, IkTrack, Key, MAX_KEYS,
};
use crate::correctives::{Corrective, CorrectiveKey, Interpolation};
use crate::error::{Error, FormatError, Result, SkeletonError};
use crate::mesh::{Mesh, DEFAULT_PART};
use crate::scene::{AlphaMode, Art, ArtImage, Layer, Probe, Scene, SlotAttachment, Watch};
use crate::skeleton::{Bone, Inherit, LocalTransform, Pose, Skeleton};
use nalgebra::{Point2, Vector2};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The `format` tag of scene files without art.
pub const SCENE_FORMAT: &str = "skinweights.scene/1";
/// The `format` tag of scene files with art (`/1` plus the `art` object).
pub const SCENE_FORMAT_ART: &str = "skinweights.scene/2";
/// The `format` tag of scene files with bone setup transforms (`local`), clips or IK
/// constraints (`/2` plus those).
pub const SCENE_FORMAT_ANIM: &str = "skinweights.scene/3";

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
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    clips: Vec<ClipFile>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ik: Vec<IkFile>,
    /// Recorded seams (format version 3; see docs/seams-model.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seams: Option<SeamsFile>,
    /// Corrective shapes (format version 3; see docs/correctives.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    correctives: Vec<CorrectiveFile>,
}

/// A corrective: `{"joint", "interpolation": "linear" | "smooth", "vertices": [v, ...],
/// "keys": [{"angle": degrees, "offsets": [[dx, dy], ...]}]}` (`interpolation` optional,
/// linear).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CorrectiveFile {
    joint: String,
    #[serde(default = "linear_name")]
    interpolation: String,
    vertices: Vec<usize>,
    keys: Vec<CorrectiveKeyFile>,
}

/// One key of a corrective: its angle and one offset per vertex.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CorrectiveKeyFile {
    angle: f64,
    offsets: Vec<[f64; 2]>,
}

fn linear_name() -> String {
    Interpolation::Linear.name().to_string()
}

impl CorrectiveFile {
    fn of(c: &Corrective) -> CorrectiveFile {
        CorrectiveFile {
            joint: c.joint.clone(),
            interpolation: c.interpolation.name().to_string(),
            vertices: c.vertices.clone(),
            keys: c
                .keys
                .iter()
                .map(|k| CorrectiveKeyFile {
                    angle: k.angle,
                    offsets: k.offsets.iter().map(|o| [o.x, o.y]).collect(),
                })
                .collect(),
        }
    }

    /// The model value; `i` is the corrective's index, for the error naming a bad
    /// interpolation (the rest is checked by [`Scene::with_correctives`]).
    fn into_corrective(self, i: usize) -> Result<Corrective> {
        let interpolation = Interpolation::from_name(&self.interpolation).ok_or_else(|| {
            Error::field(
                format!("correctives[{i}].interpolation"),
                format!(
                    "{:?} is not \"linear\" or \"smooth\" (corrective for joint {:?})",
                    self.interpolation, self.joint
                ),
            )
        })?;
        Ok(Corrective {
            joint: self.joint,
            vertices: self.vertices,
            keys: self
                .keys
                .into_iter()
                .map(|k| CorrectiveKey {
                    angle: k.angle,
                    offsets: k.offsets.iter().map(|&[x, y]| Vector2::new(x, y)).collect(),
                })
                .collect(),
            interpolation,
        })
    }
}

/// `"seams": {"joints": [[v, ...], ...], "welds": [{"vertex", "from": [a, b, c], "at": [u, v, w]}]}`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeamsFile {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    joints: Vec<Vec<usize>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    welds: Vec<WeldFile>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WeldFile {
    vertex: usize,
    from: [usize; 3],
    at: [f64; 3],
}

impl SeamsFile {
    fn of(seams: &crate::scene::Seams) -> Option<SeamsFile> {
        (!seams.is_empty()).then(|| SeamsFile {
            joints: seams.joints.clone(),
            welds: seams
                .welds
                .iter()
                .map(|w| WeldFile {
                    vertex: w.vertex,
                    from: w.from,
                    at: w.at,
                })
                .collect(),
        })
    }

    fn into_seams(self) -> crate::scene::Seams {
        crate::scene::Seams {
            joints: self.joints,
            welds: self
                .welds
                .into_iter()
                .map(|w| crate::scene::Weld {
                    vertex: w.vertex,
                    from: w.from,
                    at: w.at,
                })
                .collect(),
        }
    }
}

/// A clip: `{"name", "duration", "tracks": [{"bone", "rotation": [keys], ...}], "ik":
/// [{"constraint", "keys": [ik keys]}]}` (`ik` optional: older v3 files have none).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClipFile {
    name: String,
    duration: f64,
    #[serde(default)]
    tracks: Vec<TrackFile>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ik: Vec<IkTrackFile>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    attachments: Vec<AttachmentTrackFile>,
}

/// A slot's attachment timeline in a clip: `{"slot", "keys": [{"time", "attachment"}]}`
/// (`attachment` `null` or absent: the slot shows nothing from that time on).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AttachmentTrackFile {
    slot: String,
    keys: KeyList<AttachmentKeyFile>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AttachmentKeyFile {
    time: f64,
    #[serde(default)]
    attachment: Option<String>,
}

/// An IK timeline of a clip.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct IkTrackFile {
    constraint: String,
    keys: KeyList<IkKeyFile>,
}

/// An IK key: `{"time", "mix", "softness", "bend_positive", "compress", "stretch",
/// "mix_curve", "softness_curve"}`, all but `time` optional (1, 0, true, false, false,
/// linear, linear).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct IkKeyFile {
    time: f64,
    #[serde(default = "one")]
    mix: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    softness: f64,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    bend_positive: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    compress: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    stretch: bool,
    #[serde(default, skip_serializing_if = "CurveFile::is_linear")]
    mix_curve: CurveFile,
    #[serde(default, skip_serializing_if = "CurveFile::is_linear")]
    softness_curve: CurveFile,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrackFile {
    bone: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rotation: Option<KeyList>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    translate_x: Option<KeyList>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    translate_y: Option<KeyList>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scale_x: Option<KeyList>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scale_y: Option<KeyList>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shear_x: Option<KeyList>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shear_y: Option<KeyList>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyFile {
    time: f64,
    value: f64,
    #[serde(default, skip_serializing_if = "CurveFile::is_linear")]
    curve: CurveFile,
}

/// A curve: a name (`"linear"`, `"stepped"`, `"ease-in"`, ...) or `{"bezier": [x1, y1, x2,
/// y2]}` or `{"godot_ease": c}`.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum CurveFile {
    Name(String),
    Bezier { bezier: [f64; 4] },
    Godot { godot_ease: f64 },
}

impl Default for CurveFile {
    fn default() -> Self {
        CurveFile::Name("linear".into())
    }
}

impl CurveFile {
    fn is_linear(&self) -> bool {
        matches!(self, CurveFile::Name(n) if n == "linear")
    }
    fn from_model(c: &Curve) -> Self {
        match *c {
            Curve::Linear => CurveFile::Name("linear".into()),
            Curve::Stepped => CurveFile::Name("stepped".into()),
            Curve::Easing(e) => CurveFile::Name(e.name().into()),
            Curve::Bezier { x1, y1, x2, y2 } => CurveFile::Bezier {
                bezier: [x1, y1, x2, y2],
            },
            Curve::GodotEase(c) => CurveFile::Godot { godot_ease: c },
        }
    }
    fn to_model(&self, at: impl Fn() -> String) -> Result<Curve> {
        Ok(match self {
            CurveFile::Name(n) => match n.as_str() {
                "linear" => Curve::Linear,
                "stepped" => Curve::Stepped,
                other => Curve::Easing(Easing::from_name(other).ok_or_else(|| {
                    Error::field(
                        at(),
                        format!(
                            "unknown curve {other:?} (known: linear, stepped, {}, {{\"bezier\": [x1, y1, x2, y2]}}, {{\"godot_ease\": c}})",
                            Easing::ALL.map(Easing::name).join(", ")
                        ),
                    )
                })?),
            },
            &CurveFile::Bezier {
                bezier: [x1, y1, x2, y2],
            } => Curve::Bezier { x1, y1, x2, y2 },
            &CurveFile::Godot { godot_ease } => Curve::GodotEase(godot_ease),
        })
    }
}

/// A key list (bone channel keys, or IK keys) whose length counts against [`MAX_KEYS`] for
/// the whole file while it is read, so a hostile file fails before it allocates its keys.
struct KeyList<K = KeyFile>(Vec<K>);

thread_local! {
    static KEY_BUDGET: std::cell::Cell<usize> = const { std::cell::Cell::new(MAX_KEYS) };
}

impl<K: Serialize> Serialize for KeyList<K> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de, K: Deserialize<'de>> Deserialize<'de> for KeyList<K> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<K>(std::marker::PhantomData<K>);
        impl<'de, K: Deserialize<'de>> serde::de::Visitor<'de> for V<K> {
            type Value = KeyList<K>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of keys {\"time\", \"value\", \"curve\"}")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<KeyList<K>, A::Error> {
                let mut keys = Vec::new();
                while let Some(k) = seq.next_element::<K>()? {
                    let left = KEY_BUDGET.with(|b| {
                        let left = b.get().checked_sub(1);
                        b.set(left.unwrap_or(0));
                        left
                    });
                    if left.is_none() {
                        return Err(serde::de::Error::custom(format!(
                            "the clips hold more than {MAX_KEYS} keys"
                        )));
                    }
                    keys.push(k);
                }
                Ok(KeyList(keys))
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData))
    }
}

/// Parses a scene file with a fresh key budget.
fn parse_with_key_budget<T>(parse: impl FnOnce() -> T) -> T {
    KEY_BUDGET.with(|b| b.set(MAX_KEYS));
    let out = parse();
    KEY_BUDGET.with(|b| b.set(MAX_KEYS));
    out
}

/// An IK constraint: `{"name", "bones": [1 or 2 names], "target", "mix", "bend_positive",
/// "softness"}`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct IkFile {
    name: String,
    bones: Vec<String>,
    target: String,
    #[serde(default = "one")]
    mix: f64,
    #[serde(default = "yes")]
    bend_positive: bool,
    #[serde(default)]
    softness: f64,
}

fn yes() -> bool {
    true
}

fn clips_from_file(clips: Vec<ClipFile>) -> Result<Vec<Clip>> {
    clips
        .into_iter()
        .map(|c| {
            let mut clip = Clip::new(c.name, c.duration);
            for (ti, t) in c.tracks.into_iter().enumerate() {
                let track = track_from_file(&clip.name, ti, t)?;
                clip.tracks.push(track);
            }
            for (ti, t) in c.ik.into_iter().enumerate() {
                let track = ik_track_from_file(&clip.name, ti, t)?;
                clip.ik.push(track);
            }
            for t in c.attachments {
                let keys = t
                    .keys
                    .0
                    .into_iter()
                    .map(|k| AttachmentKey {
                        time: k.time,
                        attachment: k.attachment,
                    })
                    .collect();
                clip.attachments.push(AttachmentTrack::new(t.slot, keys));
            }
            Ok(clip)
        })
        .collect()
}

/// Track `ti` of clip `clip` as a bone track; errors name the key whose curve is unknown.
fn track_from_file(clip: &str, ti: usize, t: TrackFile) -> Result<BoneTrack> {
    let mut track = BoneTrack::new(t.bone);
    let lists = [
        t.rotation,
        t.translate_x,
        t.translate_y,
        t.scale_x,
        t.scale_y,
        t.shear_x,
        t.shear_y,
    ];
    for (kind, list) in ChannelKind::ALL.into_iter().zip(lists) {
        let Some(list) = list else { continue };
        let keys = list
            .0
            .into_iter()
            .enumerate()
            .map(|(ki, k)| {
                let at = || format!("clips[{clip:?}].tracks[{ti}].{}[{ki}].curve", kind.name());
                Ok(Key {
                    time: k.time,
                    value: k.value,
                    curve: k.curve.to_model(at)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        *track.channels.get_mut(kind) = Some(Channel::new(keys));
    }
    Ok(track)
}

/// IK track `ti` of clip `name` as an IK track; errors name the key whose curve is unknown.
fn ik_track_from_file(name: &str, ti: usize, t: IkTrackFile) -> Result<IkTrack> {
    let keys = t
        .keys
        .0
        .into_iter()
        .enumerate()
        .map(|(ki, k)| {
            let at =
                |what: &'static str| move || format!("clips[{name:?}].ik[{ti}].keys[{ki}].{what}");
            Ok(IkKey {
                time: k.time,
                mix: k.mix,
                softness: k.softness,
                bend_positive: k.bend_positive,
                compress: k.compress,
                stretch: k.stretch,
                mix_curve: k.mix_curve.to_model(at("mix_curve"))?,
                softness_curve: k.softness_curve.to_model(at("softness_curve"))?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(IkTrack::new(t.constraint, keys))
}

fn clips_to_file(clips: &[Clip]) -> Vec<ClipFile> {
    clips
        .iter()
        .map(|c| ClipFile {
            name: c.name.clone(),
            duration: c.duration,
            tracks: c
                .tracks
                .iter()
                .map(|t| {
                    let list = |kind: ChannelKind| {
                        t.channels.get(kind).map(|ch| {
                            KeyList(
                                ch.keys
                                    .iter()
                                    .map(|k| KeyFile {
                                        time: k.time,
                                        value: k.value,
                                        curve: CurveFile::from_model(&k.curve),
                                    })
                                    .collect(),
                            )
                        })
                    };
                    TrackFile {
                        bone: t.bone.clone(),
                        rotation: list(ChannelKind::Rotation),
                        translate_x: list(ChannelKind::TranslateX),
                        translate_y: list(ChannelKind::TranslateY),
                        scale_x: list(ChannelKind::ScaleX),
                        scale_y: list(ChannelKind::ScaleY),
                        shear_x: list(ChannelKind::ShearX),
                        shear_y: list(ChannelKind::ShearY),
                    }
                })
                .collect(),
            ik: c
                .ik
                .iter()
                .map(|t| IkTrackFile {
                    constraint: t.constraint.clone(),
                    keys: KeyList(
                        t.keys
                            .iter()
                            .map(|k| IkKeyFile {
                                time: k.time,
                                mix: k.mix,
                                softness: k.softness,
                                bend_positive: k.bend_positive,
                                compress: k.compress,
                                stretch: k.stretch,
                                mix_curve: CurveFile::from_model(&k.mix_curve),
                                softness_curve: CurveFile::from_model(&k.softness_curve),
                            })
                            .collect(),
                    ),
                })
                .collect(),
            attachments: c
                .attachments
                .iter()
                .map(|t| AttachmentTrackFile {
                    slot: t.slot.clone(),
                    keys: KeyList(
                        t.keys
                            .iter()
                            .map(|k| AttachmentKeyFile {
                                time: k.time,
                                attachment: k.attachment.clone(),
                            })
                            .collect(),
                    ),
                })
                .collect(),
        })
        .collect()
}

fn ik_from_file(ik: Vec<IkFile>) -> Vec<IkConstraint> {
    ik.into_iter()
        .map(|k| IkConstraint {
            name: k.name,
            bones: k.bones,
            target: k.target,
            mix: k.mix,
            bend_positive: k.bend_positive,
            softness: k.softness,
        })
        .collect()
}

fn ik_to_file(ik: &[IkConstraint]) -> Vec<IkFile> {
    ik.iter()
        .map(|k| IkFile {
            name: k.name.clone(),
            bones: k.bones.clone(),
            target: k.target.clone(),
            mix: k.mix,
            bend_positive: k.bend_positive,
            softness: k.softness,
        })
        .collect()
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
    /// The rig's slot (format version 3); absent: the layer is always drawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    slot: Option<String>,
    /// The attachment's name in the slot (default: the part's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    attachment: Option<String>,
    /// The skin it comes from (absent: whichever skin is shown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    skin: Option<String>,
    /// Whether it is the slot's setup attachment (default true).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    setup: bool,
}

impl LayerFile {
    /// Whether the layer carries slot fields (which need format version 3).
    fn has_slot_fields(&self) -> bool {
        self.slot.is_some() || self.attachment.is_some() || self.skin.is_some() || !self.setup
    }
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
    /// The setup transform relative to the parent (format version 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    local: Option<LocalFile>,
}

/// A bone's `local` object: Spine's setup transform fields (angles in degrees).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LocalFile {
    #[serde(default)]
    x: f64,
    #[serde(default)]
    y: f64,
    #[serde(default)]
    rotation: f64,
    #[serde(default = "one")]
    scale_x: f64,
    #[serde(default = "one")]
    scale_y: f64,
    #[serde(default)]
    shear_x: f64,
    #[serde(default)]
    shear_y: f64,
    #[serde(default = "normal")]
    inherit: String,
}

fn one() -> f64 {
    1.0
}

fn normal() -> String {
    Inherit::Normal.spine_name().to_string()
}

impl LocalFile {
    fn to_model(&self, bone: &str) -> Result<LocalTransform> {
        let inherit = Inherit::from_scene_name(&self.inherit).ok_or_else(|| {
            Error::field(
                format!("bones[{bone:?}].local.inherit"),
                format!(
                    "{:?} is not one of {:?}",
                    self.inherit,
                    Inherit::ALL.map(Inherit::spine_name)
                ),
            )
        })?;
        Ok(LocalTransform {
            x: self.x,
            y: self.y,
            rotation: self.rotation,
            scale_x: self.scale_x,
            scale_y: self.scale_y,
            shear_x: self.shear_x,
            shear_y: self.shear_y,
            inherit,
        })
    }

    fn from_model(l: &LocalTransform) -> Self {
        LocalFile {
            x: l.x,
            y: l.y,
            rotation: l.rotation,
            scale_x: l.scale_x,
            scale_y: l.scale_y,
            shear_x: l.shear_x,
            shear_y: l.shear_y,
            inherit: l.inherit.spine_name().to_string(),
        }
    }
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
    let file: SceneFile = parse_with_key_budget(|| serde_json::from_str(text)).map_err(|e| {
        Error::Format(FormatError::Json {
            context: "scene".into(),
            message: e.to_string(),
        })
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
    let header: BinaryHeader =
        parse_with_key_budget(|| serde_json::from_str(header)).map_err(|e| {
            Error::Format(FormatError::Json {
                context: "binary scene header".into(),
                message: e.to_string(),
            })
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
    let header = serde_json::to_string(&header).map_err(|e| {
        Error::Format(FormatError::Json {
            context: "scene".into(),
            message: e.to_string(),
        })
    })?;
    let size = mesh.vertex_count() * 20 + mesh.triangle_count() * 12;
    let mut w = binary::Writer::new(binary::SCENE_MAGIC, &header, size);
    w.f64s(mesh.vertices().iter().flat_map(|p| [p.x, p.y]));
    w.u32s("triangles", mesh.triangles().iter().flatten().copied())?;
    w.u32s("vertex_parts", mesh.vertex_parts().iter().copied())?;
    Ok(w.finish())
}

/// Checks the `format` of a scene file: one of the known ones, and late enough for the
/// fields the file uses (art, then clips, IK, slots, seams, correctives and local bone
/// transforms). Its version is 1 ([`SCENE_FORMAT`]), 2 (art) or 3 (animation).
fn check_format(file: &SceneFile) -> Result<u32> {
    let version = match file.format.as_str() {
        SCENE_FORMAT => 1,
        SCENE_FORMAT_ART => 2,
        SCENE_FORMAT_ANIM => 3,
        _ => {
            return Err(Error::field(
                "format",
                format!(
                    "expected {SCENE_FORMAT:?}, {SCENE_FORMAT_ART:?} or {SCENE_FORMAT_ANIM:?}, found {:?}",
                    file.format
                ),
            ))
        }
    };
    if file.art.is_some() && version < 2 {
        return Err(Error::field(
            "format",
            format!("a scene with \"art\" must say {SCENE_FORMAT_ART:?} or later"),
        ));
    }
    if version < 3 && (!file.clips.is_empty() || !file.ik.is_empty()) {
        return Err(Error::field(
            "format",
            format!("a scene with \"clips\" or \"ik\" must say {SCENE_FORMAT_ANIM:?}"),
        ));
    }
    if version < 3
        && file
            .art
            .as_ref()
            .is_some_and(|a| a.layers.iter().any(LayerFile::has_slot_fields))
    {
        return Err(Error::field(
            "format",
            format!("a scene whose art layers name slots must say {SCENE_FORMAT_ANIM:?}"),
        ));
    }
    if version < 3 && file.seams.is_some() {
        return Err(Error::field(
            "format",
            format!("a scene with \"seams\" must say {SCENE_FORMAT_ANIM:?}"),
        ));
    }
    if version < 3 && !file.correctives.is_empty() {
        return Err(Error::field(
            "format",
            format!("a scene with \"correctives\" must say {SCENE_FORMAT_ANIM:?}"),
        ));
    }
    if let Some(b) = file.bones.iter().find(|b| b.local.is_some()) {
        if version < 3 {
            return Err(Error::field(
                format!("bones[{:?}].local", b.name),
                format!("a scene with bone \"local\" transforms must say {SCENE_FORMAT_ANIM:?}"),
            ));
        }
    }
    Ok(version)
}

/// The part names and each vertex's part from a scene file of `vertex_count` vertices:
/// both given, or neither (one default part), or one part name without assignments.
fn parts_from_file(
    parts: Option<Vec<String>>,
    vertex_parts: Option<Vec<usize>>,
    vertex_count: usize,
) -> Result<(Vec<String>, Vec<usize>)> {
    Ok(match (parts, vertex_parts) {
        (Some(p), Some(vp)) => (p, vp),
        (None, None) => (vec![DEFAULT_PART.to_string()], vec![0; vertex_count]),
        (Some(p), None) if p.len() == 1 => (p, vec![0; vertex_count]),
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
    })
}

fn scene_from_file(file: SceneFile, base_dir: Option<&Path>) -> Result<(Scene, Vec<String>)> {
    check_format(&file)?;
    let mut notes = Vec::new();
    // Same size and alignment: collected in place, without a copy.
    let vertices: Vec<Point2<f64>> = file
        .vertices
        .into_iter()
        .map(|[x, y]| Point2::new(x, y))
        .collect();
    let (parts, vertex_parts) = parts_from_file(file.parts, file.vertex_parts, vertices.len())?;
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
    let ik = ik_from_file(file.ik);
    notes.extend(ik.iter().flat_map(IkConstraint::notes));
    let scene = scene.with_animation(clips_from_file(file.clips)?, ik)?;
    let scene = match file.seams {
        Some(seams) => scene.with_seams(seams.into_seams())?,
        None => scene,
    };
    let correctives = file
        .correctives
        .into_iter()
        .enumerate()
        .map(|(i, c)| c.into_corrective(i))
        .collect::<Result<Vec<_>>>()?;
    let scene = scene.with_correctives(correctives)?;
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
            .enumerate()
            .map(|(i, l)| {
                let slot = match l.slot {
                    Some(slot) => Some(SlotAttachment {
                        slot,
                        attachment: l.attachment.unwrap_or_else(|| l.part.clone()),
                        skin: l.skin,
                        setup: l.setup,
                    }),
                    None if l.has_slot_fields() => {
                        return Err(Error::field(
                            format!("art.layers[{i}]"),
                            format!(
                                "layer of part {:?}: \"attachment\", \"skin\" and \"setup\" need a \"slot\"",
                                l.part
                            ),
                        ))
                    }
                    None => None,
                };
                Ok(Layer {
                    part: l.part,
                    image: l.image,
                    slot,
                })
            })
            .collect::<Result<Vec<_>>>()?,
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
                slot: l.slot.as_ref().map(|s| s.slot.clone()),
                // The attachment is written unless it is the part's name (the default).
                attachment: l
                    .slot
                    .as_ref()
                    .filter(|s| s.attachment != l.part)
                    .map(|s| s.attachment.clone()),
                skin: l.slot.as_ref().and_then(|s| s.skin.clone()),
                setup: l.slot.as_ref().is_none_or(|s| s.setup),
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
                    .ok_or_else(|| {
                        Error::Skeleton(SkeletonError::UnknownParent {
                            bone: b.name.clone(),
                            parent: p.clone(),
                        })
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
            local: b.local.as_ref().map(|l| l.to_model(&b.name)).transpose()?,
        });
    }
    Skeleton::new(bones)
}

/// The probes as written in scene files (the `probes` list; glTF export writes the same in
/// `extras.skinweights.probes`).
pub(crate) fn probe_files(probes: &[Probe]) -> Vec<ProbeFile> {
    probes
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
        .collect()
}

/// Builds the probes of the `probes` list of a scene file.
impl ProbeFile {
    /// The probe's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Whether its `watch` lists vertex indices.
    pub(crate) fn watches_vertices(&self) -> bool {
        self.watch.vertices.is_some()
    }
}

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
    serde_json::to_string(&scene_file(scene, out_dir, true)).map_err(|e| {
        Error::Format(FormatError::Json {
            context: "scene".into(),
            message: e.to_string(),
        })
    })
}

/// The scene as file values; `with_arrays: false` leaves vertices and triangles empty (the
/// binary format stores them raw).
fn scene_file(scene: &Scene, out_dir: Option<&Path>, with_arrays: bool) -> SceneFile {
    let mesh = &scene.mesh;
    let bones = scene.skeleton.bones();
    SceneFile {
        // The lowest version that holds the content, so older readers keep reading it.
        format: if scene.skeleton.has_local_transforms()
            || !scene.clips.is_empty()
            || !scene.ik.is_empty()
            || !scene.seams.is_empty()
            || !scene.correctives.is_empty()
            || scene.art.as_ref().is_some_and(Art::has_slots)
        {
            SCENE_FORMAT_ANIM
        } else if scene.art.is_some() {
            SCENE_FORMAT_ART
        } else {
            SCENE_FORMAT
        }
        .to_string(),
        art: scene.art.as_ref().map(|a| art_to_file(a, out_dir)),
        clips: clips_to_file(&scene.clips),
        ik: ik_to_file(&scene.ik),
        seams: SeamsFile::of(&scene.seams),
        correctives: scene.correctives.iter().map(CorrectiveFile::of).collect(),
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
                local: b.local.as_ref().map(LocalFile::from_model),
            })
            .collect(),
        probes: probe_files(&scene.probes),
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
