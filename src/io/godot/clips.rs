//! Godot `Animation` resources ↔ [`Clip`]s: value tracks on Skeleton2D bones.
//!
//! Read as Godot's `Animation` and `AnimationPlayer` documentation describes them:
//!
//! - Each `[sub_resource type="Animation"]` is a clip: `length` seconds (default 1), named
//!   after the `AnimationPlayer` entry that holds it (Godot 3 `anims/NAME`, Godot 4 an
//!   `AnimationLibrary`'s `_data`, `LIB/NAME` for a named library), else its
//!   `resource_name`, else `animation_ID`. Track paths resolve from the player's
//!   `root_node` (default `..`, the player's parent); an animation no player holds resolves
//!   from the scene root.
//! - `tracks/N/type = "value"` tracks on a Bone2D of the skeleton with property `rotation`
//!   (radians), `rotation_degrees`, `position` (also `position:x` / `:y`) or `scale` (also
//!   `:x` / `:y`) are read; other tracks (methods, audio, other nodes' properties) are
//!   skipped with a note. A path naming no node is an [`SkeletonError::UnknownBone`].
//! - Godot sets absolute values; a clip holds offsets from the scene's rest (the Bone2D
//!   `rest`): rotation `θ = -(r - r_rest)` (degrees, y-down → y-up), translation
//!   `t = R(-α_parent) F (p - p_rest)` with `F` the y flip and `α_parent` the angle between
//!   the parent's Godot frame and its scene bone (which points at its first child), scale
//!   `s / s_rest` (a bone whose frame is turned from its scene bone by other than a multiple of
//!   90° takes only uniform scale). A property a clip leaves unkeyed holds the node's saved
//!   value, as in Godot (a constant key when it differs from `rest`).
//! - `interp` 0 (nearest) → [`Curve::Stepped`]; 1 (linear) → per key `transitions` `c`:
//!   1 → linear, 0 → stepped, else [`Curve::GodotEase`]`(c)`; 2 (cubic) → Godot 3's uniform
//!   Catmull-Rom segment through the neighbouring keys (the end keys repeated), exactly the
//!   Bézier `(1/3, (v₂-v₀)/(6Δ), 2/3, 1-(v₃-v₁)/(6Δ))` with `Δ = v₂-v₁` (Godot 4 weights
//!   the tangents by key spacing: equal for evenly spaced keys); 3 / 4 (linear / cubic
//!   angle) as 1 / 2 after unwrapping each step to the short way round. `update = 1`
//!   (discrete) → stepped.
//!
//! Export writes every clip as an `Animation` with one value track per animated property
//! (the bones are written with frames along the bone, so `α = 0`): `rotation` (Godot 4,
//! radians) or `rotation_degrees` (Godot 3), `position`, `scale` (a track keyed first after 0
//! also keyed at 0 with its first value, which Godot would not apply before its first key),
//! `interp = 1`, transitions
//! 1 (linear), 0 (stepped), `c` (Godot ease), 2 / 0.5 / -2 (ease-in / ease-out /
//! ease-in-out, exactly Godot's `ease`); Bézier, bounce and back segments, and x/y channels
//! keyed at different times with other curves than linear, are sampled at the clip's
//! frames ([`crate::animation::DEFAULT_FPS`]) into linear keys.

use super::tscn::{section_name, Section, Value};
use super::values::{resource_ref, At};
use crate::animation::{
    BoneTrack, Channel, ChannelKind, Clip, Curve, Easing, Key, DEFAULT_FPS, MAX_KEYS,
};
use crate::error::{ClipError, Error, FormatError, Result, SkeletonError};
use crate::skeleton::{Affine2, Skeleton};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Godot's default `Animation.length` (seconds).
pub const GODOT_DEFAULT_ANIMATION_LENGTH: f64 = 1.0;

/// What the clip reader needs of a bone: its node, Godot frames and the angle `α` from the
/// Godot frame to the scene bone.
pub(super) struct BoneFrame {
    /// Node index of the Bone2D.
    pub node: usize,
    /// `rest` relative to the parent (y-down).
    pub rest: Affine2,
    /// The node's saved transform (`position` / `rotation` / `scale`).
    pub saved: Affine2,
    /// Radians from the Godot bone frame to the scene bone's frame (y-up), when that map is
    /// a rotation (`None`: the rest scales or skews).
    pub alpha: Option<f64>,
}

/// A node as the clip reader sees it.
pub(super) struct NodeRef<'a> {
    pub kind: &'a str,
    pub parent: Option<usize>,
    pub section: usize,
}

/// Godot's `position`, `rotation` (radians) and `scale` of a rest or saved transform.
fn parts(m: &Affine2) -> ([f64; 2], f64, [f64; 2]) {
    let (xx, xy, yx, yy) = (m.a, m.c, m.b, m.d);
    let sx = xx.hypot(xy);
    let det = xx * yy - xy * yx;
    let sy = if sx > 0.0 { det / sx } else { yx.hypot(yy) };
    ([m.tx, m.ty], xy.atan2(xx), [sx, sy])
}

/// Resolves a NodePath written on a node to a node index (the importer's).
pub(super) type Resolve<'a> = &'a dyn Fn(usize, &str) -> Option<usize>;

/// Which property a track sets.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Prop {
    Rotation { degrees: bool },
    Position(Option<usize>),
    Scale(Option<usize>),
}

/// Per animation id: its name and the node its paths resolve from.
fn animation_names(
    sections: &[Section],
    nodes: &[NodeRef],
    resolve: Resolve,
) -> HashMap<String, (String, usize)> {
    let by_id: HashMap<String, &Section> = sections
        .iter()
        .filter(|s| s.tag == "sub_resource")
        .filter_map(|s| super::values::resource_id(s).map(|id| (id, s)))
        .collect();
    let mut out = HashMap::new();
    let key_name = |k: &Value| match k {
        Value::Str(s) | Value::StringName(s) => Some(s.clone()),
        _ => None,
    };
    for (n, node) in nodes.iter().enumerate() {
        if node.kind != "AnimationPlayer" {
            continue;
        }
        let s = &sections[node.section];
        let root = match s.get("root_node").map(|p| &p.value) {
            Some(Value::NodePath(p)) | Some(Value::Str(p)) => resolve(n, p),
            _ => node.parent,
        }
        .unwrap_or(0);
        for p in &s.properties {
            // Godot 3: anims/NAME = SubResource(id).
            if let Some(name) = p.key.strip_prefix("anims/") {
                if let Some(("SubResource", id)) = resource_ref(&p.value) {
                    out.insert(id, (name.to_string(), root));
                }
                continue;
            }
            // Godot 4: libraries/NAME = SubResource(lib), or libraries = {NAME: SubResource}.
            let mut libs: Vec<(String, String)> = Vec::new();
            if let Some(lib) = p.key.strip_prefix("libraries/") {
                if let Some(("SubResource", id)) = resource_ref(&p.value) {
                    libs.push((lib.to_string(), id));
                }
            } else if p.key == "libraries" {
                if let Value::Dict(entries) = &p.value {
                    for (k, v) in entries {
                        if let (Some(lib), Some(("SubResource", id))) =
                            (key_name(k), resource_ref(v))
                        {
                            libs.push((lib, id));
                        }
                    }
                }
            }
            for (lib, id) in libs {
                let Some(ls) = by_id.get(&id) else { continue };
                let Some(Value::Dict(entries)) = ls.get("_data").map(|p| &p.value) else {
                    continue;
                };
                for (k, v) in entries {
                    if let (Some(name), Some(("SubResource", aid))) = (key_name(k), resource_ref(v))
                    {
                        let full = if lib.is_empty() {
                            name
                        } else {
                            format!("{lib}/{name}")
                        };
                        out.insert(aid, (full, root));
                    }
                }
            }
        }
    }
    out
}

/// Reads every Animation resource's bone tracks into clips (checked against `skeleton`).
pub(super) fn read_clips(
    sections: &[Section],
    nodes: &[NodeRef],
    resolve: Resolve,
    bones: &[BoneFrame],
    skeleton: &Skeleton,
    notes: &mut Vec<String>,
) -> Result<Vec<Clip>> {
    let names = animation_names(sections, nodes, resolve);
    let bone_of_node: HashMap<usize, usize> =
        bones.iter().enumerate().map(|(j, b)| (b.node, j)).collect();
    let mut clips = Vec::new();
    let mut keys_total = 0usize;
    for s in sections
        .iter()
        .filter(|s| s.tag == "sub_resource" && s.attr_str("type") == Some("Animation"))
    {
        let id = super::values::resource_id(s).unwrap_or_default();
        let (name, root) = match names.get(&id) {
            Some((n, r)) => (n.clone(), *r),
            None => {
                let n = match s.get("resource_name").map(|p| &p.value) {
                    Some(Value::Str(n)) | Some(Value::StringName(n)) => n.clone(),
                    _ => format!("animation_{id}"),
                };
                (n, 0)
            }
        };
        let length = match s.get("length") {
            Some(p) => At::property(s, p).number(&p.value)?,
            None => GODOT_DEFAULT_ANIMATION_LENGTH,
        };
        if length < 0.0 {
            return Err(ClipError::InvalidClip {
                clip: name,
                message: format!("length {length} is negative"),
            }
            .into());
        }
        let mut clip = Clip::new(name.clone(), length);
        // Track indices, in order.
        let mut indices: Vec<usize> = s
            .properties
            .iter()
            .filter_map(|p| {
                let rest = p.key.strip_prefix("tracks/")?;
                let (i, field) = rest.split_once('/')?;
                (field == "type").then(|| i.parse().ok()).flatten()
            })
            .collect();
        indices.sort_unstable();
        indices.dedup();
        for i in indices {
            let track = read_track(s, i, &name, resolve, root, &bone_of_node, bones, notes)?;
            let Some(track) = track else {
                continue;
            };
            keys_total = keys_total.saturating_add(track.keys.len());
            if keys_total > MAX_KEYS {
                return Err(ClipError::TooManyKeys {
                    clip: name,
                    count: keys_total,
                    max: MAX_KEYS,
                }
                .into());
            }
            add_track(&mut clip, skeleton, bones, track, &name, i)?;
        }
        fill_saved(&mut clip, skeleton, bones)?;
        cut_at_length(&mut clip, notes);
        clip.check(skeleton)?;
        clips.push(clip);
    }
    Ok(clips)
}

/// Keys past the clip's length, as Godot plays them: never reached, yet the segment into the
/// first of them shapes the values before the end. Each channel that has them ends with a
/// key at the length holding its value there (exact for linear and stepped segments; an
/// eased or cubic segment, now shorter, only approximates its curve), and a note names the
/// bones.
fn cut_at_length(clip: &mut Clip, notes: &mut Vec<String>) {
    let end = clip.duration;
    let mut cut = Vec::new();
    for track in &mut clip.tracks {
        let mut dropped = 0;
        for kind in ChannelKind::ALL {
            let Some(channel) = track.channels.get_mut(kind) else {
                continue;
            };
            let Some(first_past) = channel.keys.iter().position(|k| k.time > end) else {
                continue;
            };
            let at_end = channel.sample(end);
            dropped += channel.keys.len() - first_past;
            channel.keys.truncate(first_past);
            if channel.keys.last().is_none_or(|k| k.time < end) {
                if let Some(v) = at_end {
                    channel.keys.push(Key::new(end, v));
                }
            }
        }
        if dropped > 0 {
            cut.push(format!("{} ({dropped})", track.bone));
        }
    }
    if !cut.is_empty() {
        notes.push(format!(
            "clip {:?}: keys past its length {end} s, never played: the value at the end kept, the keys dropped: {}",
            clip.name,
            cut.join(", ")
        ));
    }
}

/// A key as read: time, the absolute value(s), the curve to the next key.
struct RawKey {
    time: f64,
    value: [f64; 2],
    curve: Curve,
}

fn track_error(
    s: &Section,
    line: usize,
    clip: &str,
    i: usize,
    path: &str,
    message: String,
) -> Error {
    Error::Format(FormatError::Godot {
        line,
        field: format!("{} animation {clip:?} track {i} ({path})", section_name(s)),
        message,
    })
}

/// A track as read: the bone (index into the skeleton) and property it sets, its keys.
struct RawTrack {
    bone: usize,
    prop: Prop,
    keys: Vec<RawKey>,
}

/// Track `i` of animation section `s` (clip `clip`), for reading its fields and naming it
/// in errors.
struct TrackAt<'a> {
    s: &'a Section,
    i: usize,
    clip: &'a str,
    /// `tracks/i/path` (empty when missing).
    path: String,
    /// Line of the path (else the type, else the section).
    line: usize,
}

impl<'a> TrackAt<'a> {
    fn new(s: &'a Section, i: usize, clip: &'a str) -> Self {
        let get = |f: &str| s.get(&format!("tracks/{i}/{f}"));
        let path = match get("path").map(|p| &p.value) {
            Some(Value::NodePath(p)) | Some(Value::Str(p)) => p.clone(),
            _ => String::new(),
        };
        let line = get("path").or(get("type")).map_or(s.line, |p| p.line);
        TrackAt {
            s,
            i,
            clip,
            path,
            line,
        }
    }

    /// Property `tracks/i/field`.
    fn get(&self, field: &str) -> Option<&'a super::tscn::Property> {
        self.s.get(&format!("tracks/{}/{field}", self.i))
    }

    fn err(&self, message: String) -> Error {
        track_error(self.s, self.line, self.clip, self.i, &self.path, message)
    }

    /// A note on the track: `animation "CLIP" track I (PATH): what`.
    fn note(&self, what: &str) -> String {
        format!(
            "animation {:?} track {} ({}): {what}",
            self.clip, self.i, self.path
        )
    }
}

#[allow(clippy::too_many_arguments)]
fn read_track(
    s: &Section,
    i: usize,
    clip: &str,
    resolve: Resolve,
    root: usize,
    bone_of_node: &HashMap<usize, usize>,
    bones: &[BoneFrame],
    notes: &mut Vec<String>,
) -> Result<Option<RawTrack>> {
    let t = TrackAt::new(s, i, clip);
    let Some((j, prop)) = track_target(&t, resolve, root, bone_of_node, notes)? else {
        return Ok(None);
    };
    if bones[j].alpha.is_none() {
        let property = t.path.split_once(':').map_or("", |(_, p)| p);
        return Err(t.err(format!(
            "the bone's rest scales or skews: its tracks are not read (property {property})"
        )));
    }
    let interp = match t.get("interp") {
        Some(p) => At::property(s, p).number(&p.value)?,
        None => 1.0,
    };
    let mut dict = read_key_dict(&t, prop)?;
    // Unwrap angle interpolation to the short way round.
    let (angle, cubic) = match interp as i64 {
        0 => (false, false),
        1 => (false, false),
        2 => (false, true),
        3 => (true, false),
        4 => (true, true),
        other => return Err(t.err(format!("interp {other}: expected 0 to 4"))),
    };
    if angle {
        if let Prop::Rotation { degrees } = prop {
            unwrap_turns(
                &mut dict.values,
                if degrees {
                    360.0
                } else {
                    std::f64::consts::TAU
                },
            );
        }
    }
    let stepped = interp == 0.0 || dict.update == 1.0;
    let keys = key_curves(&t, &dict, stepped, cubic)?;
    Ok(Some(RawTrack {
        bone: j,
        prop,
        keys,
    }))
}

/// The bone and property a value track sets; `None` (noted) for other tracks, nodes that
/// are no bone of the skeleton and properties not read.
fn track_target(
    t: &TrackAt,
    resolve: Resolve,
    root: usize,
    bone_of_node: &HashMap<usize, usize>,
    notes: &mut Vec<String>,
) -> Result<Option<(usize, Prop)>> {
    let kind = match t.get("type").map(|p| &p.value) {
        Some(Value::Str(k)) => k.clone(),
        _ => String::new(),
    };
    if kind != "value" {
        notes.push(t.note(&format!(
            "a {kind:?} track: skipped (only value tracks move bones)"
        )));
        return Ok(None);
    }
    let (node_path, property) = match t.path.split_once(':') {
        Some((n, p)) => (n, p),
        None => return Err(t.err("the path has no :property".into())),
    };
    let node = resolve(root, node_path).ok_or_else(|| {
        Error::Skeleton(SkeletonError::UnknownBone {
            context: format!(
                "Godot animation {:?} track {} (line {})",
                t.clip, t.i, t.line
            ),
            bone: node_path.to_string(),
        })
    })?;
    let Some(&j) = bone_of_node.get(&node) else {
        notes.push(t.note("not a bone of the skeleton: skipped"));
        return Ok(None);
    };
    let prop = match property {
        "rotation" => Prop::Rotation { degrees: false },
        "rotation_degrees" => Prop::Rotation { degrees: true },
        "position" => Prop::Position(None),
        "position:x" => Prop::Position(Some(0)),
        "position:y" => Prop::Position(Some(1)),
        "scale" => Prop::Scale(None),
        "scale:x" => Prop::Scale(Some(0)),
        "scale:y" => Prop::Scale(Some(1)),
        other => {
            notes.push(t.note(&format!("property {other:?} is not read")));
            return Ok(None);
        }
    };
    Ok(Some((j, prop)))
}

/// A track's `keys` dictionary, checked: as many times, transitions and values.
struct KeyDict {
    times: Vec<f64>,
    transitions: Vec<f64>,
    /// `update` (1: discrete).
    update: f64,
    /// Each key's value: a vector, or a number twice.
    values: Vec<[f64; 2]>,
}

fn read_key_dict(t: &TrackAt, prop: Prop) -> Result<KeyDict> {
    let keys_prop = t.get("keys").ok_or_else(|| t.err("no keys".into()))?;
    let at = At::property(t.s, keys_prop);
    let Value::Dict(entries) = &keys_prop.value else {
        return Err(t.err(format!(
            "keys: expected a dictionary, found {}",
            keys_prop.value.kind()
        )));
    };
    let field = |name: &str| {
        entries
            .iter()
            .find(|(k, _)| matches!(k, Value::Str(x) | Value::StringName(x) if x == name))
            .map(|(_, v)| v)
    };
    let wrap = |e: Error| match e {
        Error::Format(FormatError::Godot { message, .. }) => t.err(message),
        e => e,
    };
    let times = at
        .float_array(
            field("times").ok_or_else(|| t.err("keys has no \"times\"".into()))?,
            ".times",
        )
        .map_err(wrap)?;
    if times.len() > MAX_KEYS {
        return Err(ClipError::TooManyKeys {
            clip: t.clip.to_string(),
            count: times.len(),
            max: MAX_KEYS,
        }
        .into());
    }
    let transitions = match field("transitions") {
        Some(v) => at.float_array(v, ".transitions").map_err(wrap)?,
        None => vec![1.0; times.len()],
    };
    let update = field("update").and_then(Value::as_f64).unwrap_or(0.0);
    let values = match field("values") {
        Some(Value::Array(v)) => v,
        Some(v) => {
            return Err(t.err(format!(
                "keys.values: expected an array, found {}",
                v.kind()
            )))
        }
        None => return Err(t.err("keys has no \"values\"".into())),
    };
    if values.len() != times.len() || transitions.len() != times.len() {
        return Err(t.err(format!(
            "{} times, {} transitions and {} values: expected as many of each",
            times.len(),
            transitions.len(),
            values.len()
        )));
    }
    let mut raw: Vec<[f64; 2]> = Vec::with_capacity(values.len());
    for (k, v) in values.iter().enumerate() {
        let in_key = |e: Error| wrap(e).with_suffix(&format!(" (key {k})"));
        let x = match prop {
            Prop::Position(None) | Prop::Scale(None) => at.vector2(v).map_err(in_key)?,
            _ => {
                let x = at.number(v).map_err(in_key)?;
                [x, x]
            }
        };
        raw.push(x);
    }
    Ok(KeyDict {
        times,
        transitions,
        update,
        values: raw,
    })
}

/// Angles (first component) unwrapped so that each step goes the short way round a `turn`.
fn unwrap_turns(values: &mut [[f64; 2]], turn: f64) {
    for k in 1..values.len() {
        let d = values[k][0] - values[k - 1][0];
        let d = d - turn * (d / turn).round();
        values[k] = [values[k - 1][0] + d; 2];
    }
}

/// The keys with their curves: stepped (nearest / discrete or transition 0), linear,
/// Godot's ease, or marked cubic ([`CUBIC_MARK`], made a Catmull-Rom Bézier per channel).
fn key_curves(t: &TrackAt, dict: &KeyDict, stepped: bool, cubic: bool) -> Result<Vec<RawKey>> {
    let mut keys = Vec::with_capacity(dict.values.len());
    for (k, (&time, &c)) in dict.times.iter().zip(&dict.transitions).enumerate() {
        if !c.is_finite() {
            return Err(t.err(format!("transition {c} of key {k} is not finite")));
        }
        let curve = if stepped || c == 0.0 {
            Curve::Stepped
        } else if cubic {
            if c != 1.0 {
                return Err(t.err(format!(
                    "key {k}: a cubic track with transition {c}: only transition 1 is read on cubic tracks"
                )));
            }
            // Marks the track cubic for add_track.
            CUBIC_MARK
        } else if c == 1.0 {
            Curve::Linear
        } else {
            Curve::GodotEase(c)
        };
        keys.push(RawKey {
            time,
            value: dict.values[k],
            curve,
        });
    }
    Ok(keys)
}

/// Placeholder curve for keys of a cubic track until the channel values are known.
const CUBIC_MARK: Curve = Curve::Bezier {
    x1: -1.0,
    y1: 0.0,
    x2: -1.0,
    y2: 0.0,
};

trait WithSuffix {
    fn with_suffix(self, s: &str) -> Self;
}

impl WithSuffix for Error {
    fn with_suffix(self, s: &str) -> Self {
        match self {
            Error::Format(FormatError::Godot {
                line,
                field,
                message,
            }) => Error::Format(FormatError::Godot {
                line,
                field,
                message: format!("{message}{s}"),
            }),
            e => e,
        }
    }
}

/// The uniform Catmull-Rom segment from `v1` to `v2` (neighbours `v0`, `v3`) as a Bézier
/// timing curve: `x1 = 1/3, x2 = 2/3` make `x(s) = s`, and `y1 = f'(0)/3`,
/// `y2 = 1 - f'(1)/3` give the segment's cubic exactly. A flat segment (`v1 = v2`) has no
/// normalized form: linear (exact when its tangents vanish too).
fn catmull_rom(v0: f64, v1: f64, v2: f64, v3: f64) -> (Curve, bool) {
    let dv = v2 - v1;
    if dv == 0.0 {
        return (Curve::Linear, v0 == v1 && v3 == v2);
    }
    let d0 = 0.5 * (v2 - v0) / dv;
    let d1 = 0.5 * (v3 - v1) / dv;
    (
        Curve::Bezier {
            x1: 1.0 / 3.0,
            y1: d0 / 3.0,
            x2: 2.0 / 3.0,
            y2: 1.0 - d1 / 3.0,
        },
        true,
    )
}

/// A channel of offsets from the rest, one value per key.
struct OffsetChannel {
    kind: ChannelKind,
    values: Vec<f64>,
}

/// Converts a track's absolute keys into offset channels of its bone.
fn add_track(
    clip: &mut Clip,
    skeleton: &Skeleton,
    bones: &[BoneFrame],
    track: RawTrack,
    name: &str,
    index: usize,
) -> Result<()> {
    let j = track.bone;
    let what = TrackOf {
        clip: name,
        index,
        bone: &skeleton.bones()[j].name,
    };
    let channels = match track.prop {
        Prop::Rotation { degrees } => vec![rotation_offsets(&bones[j], &track.keys, degrees)],
        Prop::Position(component) => {
            let parent_alpha = skeleton.bones()[j]
                .parent
                .and_then(|p| bones[p].alpha)
                .unwrap_or(0.0);
            position_offsets(&bones[j], &track.keys, component, parent_alpha, &what)?
        }
        Prop::Scale(component) => scale_offsets(&bones[j], &track.keys, component, &what)?,
    };
    let bone = what.bone.to_string();
    let ti = match clip.tracks.iter().position(|t| t.bone == bone) {
        Some(i) => i,
        None => {
            clip.tracks.push(BoneTrack::new(bone.clone()));
            clip.tracks.len() - 1
        }
    };
    let keys = &track.keys;
    for OffsetChannel { kind, values } in channels {
        let n = values.len();
        let ks: Vec<Key> = (0..n)
            .map(|k| {
                let curve = if keys[k].curve == CUBIC_MARK {
                    let v = |i: isize| values[i.clamp(0, n as isize - 1) as usize];
                    let i = k as isize;
                    catmull_rom(v(i - 1), v(i), v(i + 1), v(i + 2)).0
                } else {
                    keys[k].curve
                };
                Key::new(keys[k].time, values[k]).with_curve(curve)
            })
            .collect();
        let slot = clip.tracks[ti].channels.get_mut(kind);
        if slot.is_some() {
            return Err(what.error(format!(
                "bone {bone:?} {} is keyed by two tracks",
                kind.name()
            )));
        }
        *slot = Some(Channel::new(ks));
    }
    Ok(())
}

/// The track a conversion error names.
struct TrackOf<'a> {
    clip: &'a str,
    index: usize,
    bone: &'a str,
}

impl TrackOf<'_> {
    fn error(&self, message: String) -> Error {
        Error::Clip(ClipError::InvalidClip {
            clip: self.clip.to_string(),
            message: format!("track {}: {message}", self.index),
        })
    }
}

/// Rotation keys (radians, or degrees) as offsets from the rest, degrees y-up.
fn rotation_offsets(b: &BoneFrame, keys: &[RawKey], degrees: bool) -> OffsetChannel {
    let (_, rest_rot, _) = parts(&b.rest);
    let values = keys
        .iter()
        .map(|k| {
            let r = if degrees {
                k.value[0].to_radians()
            } else {
                k.value[0]
            };
            -(r - rest_rot).to_degrees()
        })
        .collect();
    OffsetChannel {
        kind: ChannelKind::Rotation,
        values,
    }
}

/// Position keys (both axes, or the one `component`) as translation offsets from the rest,
/// turned by the parent's frame angle `parent_alpha` (a single axis needs a multiple of
/// 90°).
fn position_offsets(
    b: &BoneFrame,
    keys: &[RawKey],
    component: Option<usize>,
    parent_alpha: f64,
    what: &TrackOf,
) -> Result<Vec<OffsetChannel>> {
    use ChannelKind as K;
    let (rest_pos, _, _) = parts(&b.rest);
    let (s, c) = (-parent_alpha).sin_cos();
    let offset = |p: [f64; 2]| {
        let d = [p[0] - rest_pos[0], -(p[1] - rest_pos[1])];
        [c * d[0] - s * d[1], s * d[0] + c * d[1]]
    };
    let channel = |kind: K, o: &[[f64; 2]], axis: usize| OffsetChannel {
        kind,
        values: o.iter().map(|v| v[axis]).collect(),
    };
    let Some(axis) = component else {
        let o: Vec<[f64; 2]> = keys.iter().map(|k| offset(k.value)).collect();
        return Ok(vec![
            channel(K::TranslateX, &o, 0),
            channel(K::TranslateY, &o, 1),
        ]);
    };
    if (s.abs() > 1e-12) && (c.abs() > 1e-12) {
        return Err(what.error(format!(
            "position:{} on bone {:?}, whose parent's frame is turned {:.3}° from its bone: the other axis is unknown",
            ["x", "y"][axis],
            what.bone,
            parent_alpha.to_degrees()
        )));
    }
    // Only the keyed axis moves; the parent frame is a multiple of 90°.
    let o: Vec<[f64; 2]> = keys
        .iter()
        .map(|k| {
            let mut p = rest_pos;
            p[axis] = k.value[0];
            offset(p)
        })
        .collect();
    let turned = s.abs() > 0.5;
    let out = if turned { 1 - axis } else { axis };
    Ok(vec![channel([K::TranslateX, K::TranslateY][out], &o, out)])
}

/// Scale keys (both axes, or the one `component`) as factors of the rest scale; a bone
/// whose Godot frame is turned from its bone by other than a multiple of 90° takes only
/// uniform scale.
fn scale_offsets(
    b: &BoneFrame,
    keys: &[RawKey],
    component: Option<usize>,
    what: &TrackOf,
) -> Result<Vec<OffsetChannel>> {
    use std::f64::consts::FRAC_PI_2;
    let (_, _, rest_scale) = parts(&b.rest);
    let alpha = b.alpha.unwrap_or(0.0);
    let q = alpha.rem_euclid(FRAC_PI_2);
    let aligned = q < 1e-9 || FRAC_PI_2 - q < 1e-9;
    let swap = aligned && (alpha / FRAC_PI_2).round().rem_euclid(2.0) == 1.0;
    let same = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
    let uniform = component.is_none()
        && keys.iter().all(|k| same(k.value[0], k.value[1]))
        && same(rest_scale[0], rest_scale[1]);
    if !aligned && !uniform {
        return Err(what.error(format!(
            "non-uniform scale on bone {:?}, whose Godot frame is turned {:.3}° from its bone: not a scale of the bone",
            what.bone,
            alpha.to_degrees()
        )));
    }
    let axes: Vec<usize> = match component {
        None => vec![0, 1],
        Some(a) => vec![a],
    };
    Ok(axes
        .into_iter()
        .map(|a| {
            let values = keys
                .iter()
                .map(|k| {
                    let value = if component.is_some() {
                        k.value[0]
                    } else {
                        k.value[a]
                    };
                    value / rest_scale[a]
                })
                .collect();
            let out = if swap && !uniform { 1 - a } else { a };
            OffsetChannel {
                kind: [ChannelKind::ScaleX, ChannelKind::ScaleY][out],
                values,
            }
        })
        .collect())
}

/// Unkeyed properties of bones saved away from their rest hold the saved value (Godot
/// leaves a property no track sets as the node has it).
fn fill_saved(clip: &mut Clip, skeleton: &Skeleton, bones: &[BoneFrame]) -> Result<()> {
    for (j, b) in bones.iter().enumerate() {
        if b.saved.max_difference(&b.rest) <= 1e-9 || b.alpha.is_none() {
            continue;
        }
        let (pos, rot, scale) = parts(&b.saved);
        let name = skeleton.bones()[j].name.clone();
        let keyed = |clip: &Clip, kind: ChannelKind| {
            clip.tracks
                .iter()
                .find(|t| t.bone == name)
                .is_some_and(|t| t.channels.get(kind).is_some())
        };
        // A track of one key at time 0 holding the saved value.
        let saved = |prop: Prop, value: [f64; 2]| RawTrack {
            bone: j,
            prop,
            keys: vec![RawKey {
                time: 0.0,
                value,
                curve: Curve::Linear,
            }],
        };
        use ChannelKind as K;
        let (p0, r0, s0) = parts(&b.rest);
        let clip_name = clip.name.clone();
        if (rot - r0).abs() > 1e-12 && !keyed(clip, K::Rotation) {
            let track = saved(Prop::Rotation { degrees: false }, [rot; 2]);
            add_track(clip, skeleton, bones, track, &clip_name, usize::MAX)?;
        }
        if (pos[0] - p0[0]).hypot(pos[1] - p0[1]) > 1e-9
            && !keyed(clip, K::TranslateX)
            && !keyed(clip, K::TranslateY)
        {
            let track = saved(Prop::Position(None), pos);
            add_track(clip, skeleton, bones, track, &clip_name, usize::MAX)?;
        }
        if ((scale[0] - s0[0]).abs() > 1e-9 || (scale[1] - s0[1]).abs() > 1e-9)
            && !keyed(clip, K::ScaleX)
            && !keyed(clip, K::ScaleY)
        {
            // A saved scale that cannot be expressed is left at rest rather than refused.
            let track = saved(Prop::Scale(None), scale);
            let _ = add_track(clip, skeleton, bones, track, &clip_name, usize::MAX);
        }
    }
    Ok(())
}

/// Godot's transition for a curve, when it has one (exactly Godot's `ease`).
fn transition(curve: &Curve) -> Option<f64> {
    match *curve {
        Curve::Linear => Some(1.0),
        Curve::Stepped => Some(0.0),
        Curve::GodotEase(c) => Some(c),
        Curve::Easing(Easing::EaseIn) => Some(2.0),
        Curve::Easing(Easing::EaseOut) => Some(0.5),
        Curve::Easing(Easing::EaseInOut) => Some(-2.0),
        _ => None,
    }
}

/// Keys of one or two channels as `(time, values, transition)`: the keys themselves when
/// every curve has a transition and the channels share key times, else samples at the
/// union of key times and the clip's frames, linear between.
fn track_keys(
    clip: &Clip,
    channels: &[&Channel],
    rest: &[f64],
) -> Result<Vec<(f64, Vec<f64>, f64)>> {
    let first = channels[0];
    let same_times = channels.iter().all(|c| {
        c.keys.len() == first.keys.len()
            && c.keys
                .iter()
                .zip(&first.keys)
                .all(|(a, b)| a.time == b.time && a.curve == b.curve)
    });
    if same_times && first.keys.iter().all(|k| transition(&k.curve).is_some()) {
        return Ok(first
            .keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let v = channels.iter().map(|c| c.keys[i].value).collect();
                (k.time, v, transition(&k.curve).unwrap_or(1.0))
            })
            .collect());
    }
    let mut times = clip.frame_times(DEFAULT_FPS)?;
    times.extend(channels.iter().flat_map(|c| c.keys.iter().map(|k| k.time)));
    times.sort_by(f64::total_cmp);
    times.dedup();
    Ok(times
        .into_iter()
        .map(|t| {
            let v = channels
                .iter()
                .zip(rest)
                .map(|(c, &r)| c.sample(t).unwrap_or(r))
                .collect();
            (t, v, 1.0)
        })
        .collect())
}

/// The scene's clips as Godot `Animation` sub-resources (returned as text, ids
/// `anim_1`... in Godot 4, `1`... in Godot 3 after `first_id`) and the AnimationPlayer
/// entries. `paths[j]` is bone `j`'s node path from the scene root, `rest[j]` its written
/// rest (position y-down, rotation radians).
pub(super) fn write_clips(
    clips: &[Clip],
    skeleton: &Skeleton,
    paths: &[String],
    rest: &[([f64; 2], f64)],
    g4: bool,
    first_id: usize,
) -> Result<(String, Vec<(String, String)>)> {
    let num = super::export::num;
    let mut w = ClipWriter {
        out: String::new(),
        skeleton,
        paths,
        rest,
        g4,
        n: 0,
    };
    let mut entries = Vec::new();
    for (c, clip) in clips.iter().enumerate() {
        clip.check(skeleton)?;
        let id = if g4 {
            format!("\"anim_{}\"", c + 1)
        } else {
            format!("{}", first_id + c)
        };
        let _ = writeln!(w.out, "[sub_resource type=\"Animation\" id={id}]");
        if g4 {
            let _ = writeln!(
                w.out,
                "resource_name = {}",
                super::export::quoted(&clip.name)
            );
        }
        let _ = writeln!(w.out, "length = {}", num(clip.duration));
        w.n = 0;
        for track in &clip.tracks {
            w.bone_track(clip, track)?;
        }
        w.out.push('\n');
        entries.push((clip.name.clone(), id));
    }
    Ok((w.out, entries))
}

/// A key as written: its time, the value as Godot text, the transition to the next key.
struct WrittenKey {
    time: f64,
    value: String,
    transition: f64,
}

/// The Animation resources being written.
struct ClipWriter<'a> {
    out: String,
    skeleton: &'a Skeleton,
    /// Node path of every bone from the player's root.
    paths: &'a [String],
    /// Every bone's rest position and rotation (Godot's frame).
    rest: &'a [([f64; 2], f64)],
    g4: bool,
    /// Tracks written in the current clip.
    n: usize,
}

impl ClipWriter<'_> {
    /// The value tracks of one bone: rotation, position, scale (an x/y pair keyed on one
    /// axis only holds the other at its rest value at the same keys).
    fn bone_track(&mut self, clip: &Clip, track: &BoneTrack) -> Result<()> {
        use ChannelKind as K;
        let num = super::export::num;
        let j = self.skeleton.index_of(&track.bone).unwrap_or(0);
        let ch = &track.channels;
        if ch.shear_x.is_some() || ch.shear_y.is_some() {
            return Err(ClipError::InvalidClip {
                clip: clip.name.clone(),
                message: format!(
                    "bone {:?}: shear channels have no Godot Bone2D property",
                    track.bone
                ),
            }
            .into());
        }
        let (pos0, rot0) = self.rest[j];
        let g4 = self.g4;
        let vec2 = |x: f64, y: f64| {
            if g4 {
                format!("Vector2({}, {})", num(x), num(y))
            } else {
                format!("Vector2( {}, {} )", num(x), num(y))
            }
        };
        if let Some(r) = ch.get(K::Rotation) {
            let keys = written(track_keys(clip, &[r], &[0.0])?, |v| {
                let rad = rot0 - v[0].to_radians();
                if g4 {
                    num(rad)
                } else {
                    num(rad.to_degrees())
                }
            });
            let prop = if g4 { "rotation" } else { "rotation_degrees" };
            self.value_track(j, prop, keys);
        }
        let pair = |x: K, y: K| -> Option<Vec<Channel>> {
            match (ch.get(x), ch.get(y)) {
                (None, None) => None,
                (Some(a), Some(b)) => Some(vec![a.clone(), b.clone()]),
                (Some(a), None) => Some(vec![a.clone(), held(a, y.rest_value())]),
                (None, Some(b)) => Some(vec![held(b, x.rest_value()), b.clone()]),
            }
        };
        if let Some(cs) = pair(K::TranslateX, K::TranslateY) {
            let cs: Vec<&Channel> = cs.iter().collect();
            let keys = written(track_keys(clip, &cs, &[0.0, 0.0])?, |v| {
                vec2(pos0[0] + v[0], pos0[1] - v[1])
            });
            self.value_track(j, "position", keys);
        }
        if let Some(cs) = pair(K::ScaleX, K::ScaleY) {
            let cs: Vec<&Channel> = cs.iter().collect();
            let keys = written(track_keys(clip, &cs, &[1.0, 1.0])?, |v| vec2(v[0], v[1]));
            self.value_track(j, "scale", keys);
        }
        Ok(())
    }

    /// One value track setting `prop` of bone `j`. A track whose first key is after 0 gets
    /// a copy of that key at 0: a clip holds its first value from the start, but Godot 3
    /// applies a value track only from its first key (measured in Godot 3.2.3: gBot's
    /// `fall` and `idle`, keyed from 0.5 s, played up to 111 px from the clip at 0.25 s).
    fn value_track(&mut self, j: usize, prop: &str, mut keys: Vec<WrittenKey>) {
        let num = super::export::num;
        if let Some(first) = keys.first().filter(|k| k.time > 0.0) {
            let at_zero = WrittenKey {
                time: 0.0,
                value: first.value.clone(),
                transition: 1.0,
            };
            keys.insert(0, at_zero);
        }
        let (float_array, lb, rb) = if self.g4 {
            ("PackedFloat32Array", "(", ")")
        } else {
            ("PoolRealArray", "( ", " )")
        };
        let times: Vec<String> = keys.iter().map(|k| num(k.time)).collect();
        let trans: Vec<String> = keys.iter().map(|k| num(k.transition)).collect();
        let values: Vec<String> = keys.iter().map(|k| k.value.clone()).collect();
        let (out, n) = (&mut self.out, self.n);
        let _ = writeln!(out, "tracks/{n}/type = \"value\"");
        let _ = writeln!(
            out,
            "tracks/{n}/path = NodePath(\"{}:{prop}\")",
            self.paths[j]
        );
        let _ = writeln!(out, "tracks/{n}/interp = 1");
        let _ = writeln!(out, "tracks/{n}/loop_wrap = true");
        let _ = writeln!(out, "tracks/{n}/imported = false");
        let _ = writeln!(out, "tracks/{n}/enabled = true");
        let _ = writeln!(
            out,
            "tracks/{n}/keys = {{\n\"times\": {float_array}{lb}{}{rb},\n\"transitions\": {float_array}{lb}{}{rb},\n\"update\": 0,\n\"values\": [ {} ]\n}}",
            times.join(", "),
            trans.join(", "),
            values.join(", ")
        );
        self.n += 1;
    }
}

/// [`track_keys`]' keys with their values written by `value`.
fn written(keys: Vec<(f64, Vec<f64>, f64)>, value: impl Fn(&[f64]) -> String) -> Vec<WrittenKey> {
    keys.into_iter()
        .map(|(time, v, transition)| WrittenKey {
            time,
            value: value(&v),
            transition,
        })
        .collect()
}

/// `like`'s keys (times and curves) all holding `value`.
fn held(like: &Channel, value: f64) -> Channel {
    Channel::new(
        like.keys
            .iter()
            .map(|k| Key::new(k.time, value).with_curve(k.curve))
            .collect(),
    )
}
