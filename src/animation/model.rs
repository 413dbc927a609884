//! The clip model: named clips of keyed per-bone channels, and their validation.

use super::curves::Curve;
use crate::error::{ClipError, Error, Result, SkeletonError};
use crate::skeleton::Skeleton;

/// Memory the keys of a scene's clips may take in all: 256 MiB. Creature bakes every frame,
/// and real exports hold 2 030 208 keys (34 MB file); docs/formats/creature.md has the measurement.
pub const KEY_MEMORY_BUDGET: usize = 256 << 20;

/// Most keys a scene's clips may hold in all (checked before sampling or storing): the
/// keys that fit in [`KEY_MEMORY_BUDGET`].
pub const MAX_KEYS: usize = KEY_MEMORY_BUDGET / std::mem::size_of::<Key>();

/// One key: a value at a time, and the curve from this key to the next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key {
    /// Time in seconds from the clip's start.
    pub time: f64,
    /// The channel's value (an offset from the setup pose, see [`ChannelKind`]).
    pub value: f64,
    /// Interpolation to the next key (ignored on the last key).
    pub curve: Curve,
}

impl Key {
    /// A key with a linear curve to the next.
    pub fn new(time: f64, value: f64) -> Self {
        Key {
            time,
            value,
            curve: Curve::Linear,
        }
    }
    /// Sets the curve to the next key.
    pub fn with_curve(mut self, curve: Curve) -> Self {
        self.curve = curve;
        self
    }
}

/// Keys of one scalar channel, in time order (equal times allowed: a jump, the later key
/// holds from that time on).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Channel {
    /// The keys.
    pub keys: Vec<Key>,
}

impl Channel {
    /// A channel of these keys.
    pub fn new(keys: Vec<Key>) -> Self {
        Channel { keys }
    }
}

/// The seven scalar channels of a bone, each an offset from the setup transform exactly
/// like [`crate::skeleton::Pose`]: rotation, translation and shear added, scale multiplied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChannelKind {
    /// Degrees added to the rotation.
    Rotation,
    /// Added to x in the parent's frame.
    TranslateX,
    /// Added to y in the parent's frame.
    TranslateY,
    /// Multiplies the setup x scale.
    ScaleX,
    /// Multiplies the setup y scale.
    ScaleY,
    /// Degrees added to the x shear.
    ShearX,
    /// Degrees added to the y shear.
    ShearY,
}

impl ChannelKind {
    /// Every channel, in file order.
    pub const ALL: [ChannelKind; 7] = [
        ChannelKind::Rotation,
        ChannelKind::TranslateX,
        ChannelKind::TranslateY,
        ChannelKind::ScaleX,
        ChannelKind::ScaleY,
        ChannelKind::ShearX,
        ChannelKind::ShearY,
    ];
    /// The channel's name in scene files.
    pub fn name(self) -> &'static str {
        match self {
            ChannelKind::Rotation => "rotation",
            ChannelKind::TranslateX => "translate_x",
            ChannelKind::TranslateY => "translate_y",
            ChannelKind::ScaleX => "scale_x",
            ChannelKind::ScaleY => "scale_y",
            ChannelKind::ShearX => "shear_x",
            ChannelKind::ShearY => "shear_y",
        }
    }
    /// The value of a bone with no key on this channel (1 for scales, else 0).
    pub fn rest_value(self) -> f64 {
        match self {
            ChannelKind::ScaleX | ChannelKind::ScaleY => 1.0,
            _ => 0.0,
        }
    }
}

/// The keyed channels of one bone (absent = not animated).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoneChannels {
    /// Degrees added to the setup rotation.
    pub rotation: Option<Channel>,
    /// Added to the setup x, in the parent's frame.
    pub translate_x: Option<Channel>,
    /// Added to the setup y, in the parent's frame.
    pub translate_y: Option<Channel>,
    /// Multiplies the setup x scale.
    pub scale_x: Option<Channel>,
    /// Multiplies the setup y scale.
    pub scale_y: Option<Channel>,
    /// Degrees added to the setup x shear.
    pub shear_x: Option<Channel>,
    /// Degrees added to the setup y shear.
    pub shear_y: Option<Channel>,
}

impl BoneChannels {
    /// The channel of a kind.
    pub fn get(&self, kind: ChannelKind) -> Option<&Channel> {
        match kind {
            ChannelKind::Rotation => self.rotation.as_ref(),
            ChannelKind::TranslateX => self.translate_x.as_ref(),
            ChannelKind::TranslateY => self.translate_y.as_ref(),
            ChannelKind::ScaleX => self.scale_x.as_ref(),
            ChannelKind::ScaleY => self.scale_y.as_ref(),
            ChannelKind::ShearX => self.shear_x.as_ref(),
            ChannelKind::ShearY => self.shear_y.as_ref(),
        }
    }
    /// The channel slot of a kind.
    pub fn get_mut(&mut self, kind: ChannelKind) -> &mut Option<Channel> {
        match kind {
            ChannelKind::Rotation => &mut self.rotation,
            ChannelKind::TranslateX => &mut self.translate_x,
            ChannelKind::TranslateY => &mut self.translate_y,
            ChannelKind::ScaleX => &mut self.scale_x,
            ChannelKind::ScaleY => &mut self.scale_y,
            ChannelKind::ShearX => &mut self.shear_x,
            ChannelKind::ShearY => &mut self.shear_y,
        }
    }
    /// The present channels with their kinds.
    pub fn iter(&self) -> impl Iterator<Item = (ChannelKind, &Channel)> {
        ChannelKind::ALL
            .into_iter()
            .filter_map(|k| self.get(k).map(|c| (k, c)))
    }
}

/// The animation of one bone in a clip.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoneTrack {
    /// The bone's name.
    pub bone: String,
    /// Its keyed channels.
    pub channels: BoneChannels,
}

impl BoneTrack {
    /// An empty track for a bone.
    pub fn new(bone: impl Into<String>) -> Self {
        BoneTrack {
            bone: bone.into(),
            channels: BoneChannels::default(),
        }
    }
    /// Sets one channel.
    pub fn with(mut self, kind: ChannelKind, keys: Vec<Key>) -> Self {
        *self.channels.get_mut(kind) = Some(Channel::new(keys));
        self
    }
}

/// One key of an IK timeline: the constraint's values from this time on. Unlike bone
/// channels these are absolute (a keyed mix replaces the constraint's mix), as Spine keys
/// them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IkKey {
    /// Time in seconds from the clip's start.
    pub time: f64,
    /// Blend of the solved rotations, in `[0, 1]`. Default: 1.
    pub mix: f64,
    /// Spine's softness (px), kept but not applied (see [`crate::animation::apply_ik`]).
    /// Default: 0.
    pub softness: f64,
    /// Bend direction of a two-bone chain, held until the next key. Default: true.
    pub bend_positive: bool,
    /// Spine's `compress` (one-bone chains scale to a near target), kept, not applied.
    /// Default: false.
    pub compress: bool,
    /// Spine's `stretch` (the chain scales to a far target), kept, not applied.
    /// Default: false.
    pub stretch: bool,
    /// Interpolation of `mix` to the next key. Default: linear.
    pub mix_curve: Curve,
    /// Interpolation of `softness` to the next key. Default: linear.
    pub softness_curve: Curve,
}

impl IkKey {
    /// A key of this mix, softness 0, bending positive, linear to the next key.
    pub fn new(time: f64, mix: f64) -> Self {
        IkKey {
            time,
            mix,
            softness: 0.0,
            bend_positive: true,
            compress: false,
            stretch: false,
            mix_curve: Curve::Linear,
            softness_curve: Curve::Linear,
        }
    }
    /// Sets [`IkKey::bend_positive`].
    pub fn with_bend_positive(mut self, bend_positive: bool) -> Self {
        self.bend_positive = bend_positive;
        self
    }
    /// Sets [`IkKey::softness`].
    pub fn with_softness(mut self, softness: f64) -> Self {
        self.softness = softness;
        self
    }
    /// Sets both curves ([`IkKey::mix_curve`], [`IkKey::softness_curve`]).
    pub fn with_curve(mut self, curve: Curve) -> Self {
        self.mix_curve = curve;
        self.softness_curve = curve;
        self
    }
}

/// The keyed values of one IK constraint (of the scene's [`crate::scene::Scene::ik`]) in a clip.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IkTrack {
    /// The constraint's name.
    pub constraint: String,
    /// Its keys in time order (equal times allowed, as in [`Channel`]).
    pub keys: Vec<IkKey>,
}

impl IkTrack {
    /// A track of these keys.
    pub fn new(constraint: impl Into<String>, keys: Vec<IkKey>) -> Self {
        IkTrack {
            constraint: constraint.into(),
            keys,
        }
    }
}

/// One key of an attachment timeline: from `time` on, the slot shows `attachment`.
#[derive(Debug, Clone, PartialEq)]
pub struct AttachmentKey {
    /// Time in seconds from the clip's start.
    pub time: f64,
    /// The attachment's name in the slot ([`crate::scene::SlotAttachment::attachment`]);
    /// `None`: the slot shows nothing.
    pub attachment: Option<String>,
}

impl AttachmentKey {
    /// A key showing `attachment` (`None`: nothing) from `time` on.
    pub fn new(time: f64, attachment: Option<&str>) -> Self {
        AttachmentKey {
            time,
            attachment: attachment.map(str::to_string),
        }
    }
}

/// The attachment keys of one slot in a clip: step keys (each holds until the next); before
/// the first key the slot shows its setup attachment, as Spine applies them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AttachmentTrack {
    /// The slot's name ([`crate::scene::SlotAttachment::slot`]).
    pub slot: String,
    /// Its keys in time order (equal times allowed: the later key holds).
    pub keys: Vec<AttachmentKey>,
}

impl AttachmentTrack {
    /// A track of these keys.
    pub fn new(slot: impl Into<String>, keys: Vec<AttachmentKey>) -> Self {
        AttachmentTrack {
            slot: slot.into(),
            keys,
        }
    }
}

/// A named animation: a duration, per-bone keyed channels, keyed IK constraints and keyed
/// slot attachments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Clip {
    /// Unique name within the scene.
    pub name: String,
    /// Length in seconds (sampling clamps time to `[0, duration]`).
    pub duration: f64,
    /// One track per animated bone.
    pub tracks: Vec<BoneTrack>,
    /// One track per keyed IK constraint (constraints without one keep their own values).
    pub ik: Vec<IkTrack>,
    /// One track per slot whose attachment the clip changes (which layers are drawn,
    /// [`Clip::attachments_at`]; the pose does not depend on them).
    pub attachments: Vec<AttachmentTrack>,
}

impl Clip {
    /// A clip with no tracks.
    pub fn new(name: impl Into<String>, duration: f64) -> Self {
        Clip {
            name: name.into(),
            duration,
            tracks: Vec::new(),
            ik: Vec::new(),
            attachments: Vec::new(),
        }
    }
    /// Adds a track.
    pub fn with_track(mut self, track: BoneTrack) -> Self {
        self.tracks.push(track);
        self
    }
    /// Adds an IK track.
    pub fn with_ik_track(mut self, track: IkTrack) -> Self {
        self.ik.push(track);
        self
    }

    /// Adds an attachment track.
    pub fn with_attachment_track(mut self, track: AttachmentTrack) -> Self {
        self.attachments.push(track);
        self
    }

    /// Number of attachment keys over all attachment tracks.
    pub fn attachment_key_count(&self) -> usize {
        self.attachments.iter().map(|t| t.keys.len()).sum()
    }

    /// Number of IK keys over all IK tracks.
    pub fn ik_key_count(&self) -> usize {
        self.ik.iter().map(|t| t.keys.len()).sum()
    }

    /// Number of keys over all bone channels (IK keys: [`Clip::ik_key_count`]).
    pub fn key_count(&self) -> usize {
        self.tracks
            .iter()
            .flat_map(|t| t.channels.iter())
            .map(|(_, c)| c.keys.len())
            .sum()
    }

    /// Every key time of the clip (bone channels and IK tracks), sorted and deduplicated.
    pub fn key_times(&self) -> Vec<f64> {
        let mut t: Vec<f64> = self
            .tracks
            .iter()
            .flat_map(|t| t.channels.iter())
            .flat_map(|(_, c)| c.keys.iter().map(|k| k.time))
            .chain(self.ik.iter().flat_map(|t| t.keys.iter().map(|k| k.time)))
            .collect();
        t.sort_by(f64::total_cmp);
        t.dedup();
        t
    }

    /// Checks the clip against a skeleton: a finite duration >= 0 ([`ClipError::InvalidClip`]),
    /// tracks naming known bones ([`SkeletonError::UnknownBone`]) once each, at most [`MAX_KEYS`]
    /// keys ([`ClipError::TooManyKeys`]), and per key ([`ClipError::InvalidKey`]): finite time and
    /// value, times in `[0, duration]` and never decreasing, Bézier control times in
    /// `[0, 1]` and finite control values, finite Godot exponents. IK tracks
    /// ([`SkeletonError::InvalidIk`]): one per constraint, keys with finite times in order within
    /// the clip, mix finite with `|mix|` <= 1000, softness finite and >= 0, curves as above (the names are
    /// checked against the scene's constraints by [`Clip::check_ik_names`]).
    pub fn check(&self, skeleton: &Skeleton) -> Result<()> {
        if !self.duration.is_finite() || self.duration < 0.0 {
            return Err(ClipError::InvalidClip {
                clip: self.name.clone(),
                message: format!("duration {} must be finite and >= 0", self.duration),
            }
            .into());
        }
        let keys = self
            .key_count()
            .saturating_add(self.ik_key_count())
            .saturating_add(self.attachment_key_count());
        if keys > MAX_KEYS {
            return Err(ClipError::TooManyKeys {
                clip: self.name.clone(),
                count: keys,
                max: MAX_KEYS,
            }
            .into());
        }
        for (i, t) in self.tracks.iter().enumerate() {
            if skeleton.index_of(&t.bone).is_none() {
                return Err(SkeletonError::UnknownBone {
                    context: format!("clip {:?} track {i}", self.name),
                    bone: t.bone.clone(),
                }
                .into());
            }
            if let Some(first) = self.tracks[..i].iter().position(|o| o.bone == t.bone) {
                return Err(ClipError::InvalidClip {
                    clip: self.name.clone(),
                    message: format!(
                        "bone {:?} has two tracks ({first} and {i}); merge their channels",
                        t.bone
                    ),
                }
                .into());
            }
            for (kind, channel) in t.channels.iter() {
                self.check_channel(&t.bone, kind, channel)?;
            }
        }
        for (i, t) in self.ik.iter().enumerate() {
            self.check_ik_track(i, t)?;
        }
        for (i, t) in self.attachments.iter().enumerate() {
            self.check_attachment_track(i, t)?;
        }
        Ok(())
    }

    /// One attachment track per slot, keys with finite times in order within the clip
    /// ([`ClipError::InvalidClip`]).
    fn check_attachment_track(&self, i: usize, track: &AttachmentTrack) -> Result<()> {
        let bad = |message: String| -> Error {
            ClipError::InvalidClip {
                clip: self.name.clone(),
                message: format!("attachments[{i}] (slot {:?}): {message}", track.slot),
            }
            .into()
        };
        if let Some(first) = self.attachments[..i]
            .iter()
            .position(|o| o.slot == track.slot)
        {
            return Err(bad(format!(
                "two attachment tracks ({first} and {i}) key this slot; merge them"
            )));
        }
        let mut previous = f64::NEG_INFINITY;
        for (k, key) in track.keys.iter().enumerate() {
            if let Some(problem) = self.key_time_problem(k, key.time, previous) {
                return Err(bad(problem));
            }
            previous = key.time;
        }
        Ok(())
    }

    /// Checks that every IK track names one of `constraints` ([`SkeletonError::InvalidIk`]).
    pub fn check_ik_names(&self, constraints: &[super::IkConstraint]) -> Result<()> {
        match self
            .ik
            .iter()
            .find(|t| !constraints.iter().any(|c| c.name == t.constraint))
        {
            Some(t) => Err(SkeletonError::InvalidIk {
                constraint: t.constraint.clone(),
                message: format!(
                    "clip {:?} keys it, but the scene has no IK constraint of that name (it has {:?})",
                    self.name,
                    constraints.iter().map(|c| c.name.as_str()).collect::<Vec<_>>()
                ),
            }.into()),
            None => Ok(()),
        }
    }

    /// What is wrong with key `k`'s `time` on a step or IK track, if anything: outside the
    /// clip, or before the `previous` key's time.
    fn key_time_problem(&self, k: usize, time: f64, previous: f64) -> Option<String> {
        if !time.is_finite() || time < 0.0 || time > self.duration {
            return Some(format!(
                "key {k}: time {time} is outside the clip [0, {}]",
                self.duration
            ));
        }
        (time < previous).then(|| {
            format!("key {k}: time {time} comes before the previous key's {previous}: keys out of order")
        })
    }

    fn check_ik_track(&self, i: usize, track: &IkTrack) -> Result<()> {
        let bad = |message: String| {
            Error::Skeleton(SkeletonError::InvalidIk {
                constraint: track.constraint.clone(),
                message: format!("clip {:?}: {message}", self.name),
            })
        };
        if let Some(first) = self.ik[..i]
            .iter()
            .position(|o| o.constraint == track.constraint)
        {
            return Err(bad(format!(
                "two IK tracks ({first} and {i}) key this constraint; merge them"
            )));
        }
        let mut previous = f64::NEG_INFINITY;
        for (k, key) in track.keys.iter().enumerate() {
            if let Some(problem) = self.key_time_problem(k, key.time, previous) {
                return Err(bad(problem));
            }
            previous = key.time;
            if let Some(problem) = crate::animation::ik::mix_problem(key.mix) {
                return Err(bad(format!("key {k}: {problem}")));
            }
            if !key.softness.is_finite() || key.softness < 0.0 {
                return Err(bad(format!(
                    "key {k}: softness {} must be finite and >= 0",
                    key.softness
                )));
            }
            for (what, curve) in [("mix", key.mix_curve), ("softness", key.softness_curve)] {
                if let Some(problem) = curve_problem(&curve) {
                    return Err(bad(format!("key {k}: {what} curve: {problem}")));
                }
            }
        }
        Ok(())
    }

    fn check_channel(&self, bone: &str, kind: ChannelKind, channel: &Channel) -> Result<()> {
        let bad = |key: usize, message: String| {
            Error::Clip(ClipError::InvalidKey {
                clip: self.name.clone(),
                bone: bone.to_string(),
                channel: kind.name(),
                key,
                message,
            })
        };
        let mut previous = f64::NEG_INFINITY;
        for (i, k) in channel.keys.iter().enumerate() {
            if !k.time.is_finite() || !k.value.is_finite() {
                return Err(bad(
                    i,
                    format!("time {} and value {} must be finite", k.time, k.value),
                ));
            }
            if k.time < 0.0 || k.time > self.duration {
                return Err(bad(
                    i,
                    format!("time {} is outside the clip [0, {}]", k.time, self.duration),
                ));
            }
            if k.time < previous {
                return Err(bad(
                    i,
                    format!(
                        "time {} comes before the previous key's {previous}: keys out of order",
                        k.time
                    ),
                ));
            }
            previous = k.time;
            if let Some(problem) = curve_problem(&k.curve) {
                return Err(bad(i, problem));
            }
        }
        Ok(())
    }
}

/// What makes a curve invalid: Bézier control times outside `[0, 1]` or non-finite control
/// values, a non-finite Godot exponent.
fn curve_problem(curve: &Curve) -> Option<String> {
    match *curve {
        Curve::Bezier { x1, y1, x2, y2 } => {
            if !(0.0..=1.0).contains(&x1) || !(0.0..=1.0).contains(&x2) {
                Some(format!(
                    "Bezier control times {x1} and {x2} must lie in [0, 1] (time would run backwards)"
                ))
            } else if !y1.is_finite() || !y2.is_finite() {
                Some(format!(
                    "Bezier control values {y1} and {y2} must be finite"
                ))
            } else {
                None
            }
        }
        Curve::GodotEase(c) if !c.is_finite() => {
            Some(format!("Godot transition {c} must be finite"))
        }
        _ => None,
    }
}
