//! Sampling: a channel at a time, a clip at a time as a [`Pose`].

use super::ik::IkConstraint;
use super::model::{BoneChannels, Channel, ChannelKind, Clip, IkKey, IkTrack};
use crate::error::{ClipError, Result, SolverError};
use crate::skeleton::{Pose, Skeleton};
use nalgebra::Vector2;
use std::collections::BTreeMap;

impl Channel {
    /// The value at time `t`: the first key's value before it, the last key's after it;
    /// between keys `i` and `i + 1` (`t_i <= t < t_{i+1}`),
    /// `v_i + (v_{i+1} - v_i) f_i(u)` with `u = (t - t_i) / (t_{i+1} - t_i)` and `f_i`
    /// key `i`'s curve. At a key's time the value is that key's exactly (of several keys at
    /// one time, the last). `None` for a channel with no keys.
    pub fn sample(&self, t: f64) -> Option<f64> {
        let keys = &self.keys;
        Some(match locate(keys.len(), |i| keys[i].time, t)? {
            Segment::At(i) => keys[i].value,
            Segment::Between(i, u) => {
                let (k, next) = (&keys[i], &keys[i + 1]);
                k.value + (next.value - k.value) * k.curve.eval(u)
            }
        })
    }
}

/// Where a time falls among keys.
enum Segment {
    /// Key `i`'s values hold (before the first key, at a key, after the last).
    At(usize),
    /// Between keys `i` and `i + 1`, at fraction `u` in `(0, 1)` of the segment.
    Between(usize, f64),
}

/// The segment of `t` among `n` keys in time order (`time(i)`); `None` without keys. Of
/// several keys at one time, the last holds from it on.
fn locate(n: usize, time: impl Fn(usize) -> f64, t: f64) -> Option<Segment> {
    if n == 0 {
        return None;
    }
    if t < time(0) {
        return Some(Segment::At(0));
    }
    // The last key with time <= t: then t < the next key's time, so the segment has length.
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if time(mid) <= t {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let i = lo - 1;
    if i + 1 == n || t == time(i) {
        return Some(Segment::At(i));
    }
    Some(Segment::Between(i, (t - time(i)) / (time(i + 1) - time(i))))
}

impl IkTrack {
    /// The keyed values at time `t`: `mix` and `softness` interpolated as a [`Channel`]
    /// (each by its own curve), `bend_positive`, `compress` and `stretch` held from the key
    /// at or before `t` (the first key's before it). The returned key's `time` is `t`.
    /// `None` for a track with no keys.
    pub fn sample(&self, t: f64) -> Option<IkKey> {
        let keys = &self.keys;
        Some(match locate(keys.len(), |i| keys[i].time, t)? {
            Segment::At(i) => IkKey { time: t, ..keys[i] },
            Segment::Between(i, u) => {
                let (k, next) = (&keys[i], &keys[i + 1]);
                IkKey {
                    time: t,
                    mix: k.mix + (next.mix - k.mix) * k.mix_curve.eval(u),
                    softness: k.softness + (next.softness - k.softness) * k.softness_curve.eval(u),
                    ..*k
                }
            }
        })
    }
}

impl BoneChannels {
    /// The value of a channel at `t`, or its rest value when the channel is absent.
    pub fn value(&self, kind: ChannelKind, t: f64) -> f64 {
        self.get(kind)
            .and_then(|c| c.sample(t))
            .unwrap_or(kind.rest_value())
    }
}

impl Clip {
    /// The pose at `time` seconds (clamped to `[0, duration]`): each track's channels
    /// sampled (see [`Channel::sample`]) into the pose's offsets. Checks the clip first
    /// ([`Clip::check`]); a non-finite time is an [`ClipError::InvalidClip`].
    pub fn sample(&self, skeleton: &Skeleton, time: f64) -> Result<Pose> {
        self.check(skeleton)?;
        self.sample_checked(time)
    }

    /// [`Clip::sample`] without checking the clip again (for many frames of one checked
    /// clip).
    pub fn sample_checked(&self, time: f64) -> Result<Pose> {
        if !time.is_finite() {
            return Err(ClipError::InvalidClip {
                clip: self.name.clone(),
                message: format!("cannot sample at time {time}"),
            }
            .into());
        }
        let t = time.clamp(0.0, self.duration.max(0.0));
        let mut pose = Pose::rest();
        for track in &self.tracks {
            let c = &track.channels;
            let bone = &track.bone;
            if c.rotation.is_some() {
                pose.rotations
                    .insert(bone.clone(), c.value(ChannelKind::Rotation, t));
            }
            // A pair of channels sets the pose's vector when either is keyed.
            let pair = |x: ChannelKind, y: ChannelKind| {
                (c.get(x).is_some() || c.get(y).is_some())
                    .then(|| Vector2::new(c.value(x, t), c.value(y, t)))
            };
            use ChannelKind as K;
            let maps = [
                (&mut pose.translations, K::TranslateX, K::TranslateY),
                (&mut pose.scales, K::ScaleX, K::ScaleY),
                (&mut pose.shears, K::ShearX, K::ShearY),
            ];
            for (map, x, y) in maps {
                if let Some(v) = pair(x, y) {
                    map.insert(bone.clone(), v);
                }
            }
        }
        Ok(pose)
    }

    /// The attachment each keyed slot shows at `time` (clamped to `[0, duration]`): slot
    /// name → the attachment of the last key at or before `time` (`None`: the slot is
    /// empty). Slots whose first key comes after `time`, and slots the clip does not key,
    /// are left out: they show their setup attachment. The answer is what
    /// [`crate::scene::Art::drawn_layers`] takes.
    pub fn attachments_at(&self, time: f64) -> BTreeMap<String, Option<String>> {
        let t = if time.is_finite() {
            time.clamp(0.0, self.duration.max(0.0))
        } else {
            0.0
        };
        self.attachments
            .iter()
            .filter_map(|track| {
                let key = track.keys.iter().rev().find(|k| k.time <= t)?;
                Some((track.slot.clone(), key.attachment.clone()))
            })
            .collect()
    }

    /// The scene's IK `constraints` as this clip drives them at `time` (clamped to
    /// `[0, duration]`): each constraint with an IK track takes the track's sampled `mix`,
    /// `softness` and `bend_positive` ([`IkTrack::sample`]); the others are unchanged.
    /// Tracks naming no constraint of `constraints` are ignored (a scene checks them on
    /// load, [`Clip::check_ik_names`]).
    pub fn ik_at(&self, constraints: &[IkConstraint], time: f64) -> Vec<IkConstraint> {
        let t = time.clamp(0.0, self.duration.max(0.0));
        constraints
            .iter()
            .map(|c| {
                let keyed = self
                    .ik
                    .iter()
                    .find(|tr| tr.constraint == c.name)
                    .and_then(|tr| tr.sample(t));
                match keyed {
                    Some(k) => IkConstraint {
                        mix: k.mix,
                        softness: k.softness,
                        bend_positive: k.bend_positive,
                        ..c.clone()
                    },
                    None => c.clone(),
                }
            })
            .collect()
    }

    /// Frame times at `fps` frames per second from 0, plus the last frame at `duration`
    /// when the step does not land on it. `fps` must be finite and > 0, and the clip at
    /// most [`MAX_FRAMES`] frames long ([`SolverError::InvalidOption`]).
    pub fn frame_times(&self, fps: f64) -> Result<Vec<f64>> {
        if !fps.is_finite() || fps <= 0.0 {
            return Err(SolverError::InvalidOption {
                option: "fps".into(),
                message: format!("{fps} must be finite and > 0"),
            }
            .into());
        }
        let d = self.duration.max(0.0);
        let n = (d * fps + 1e-9).floor();
        if n.is_nan() || n >= MAX_FRAMES as f64 {
            return Err(SolverError::InvalidOption {
                option: "fps".into(),
                message: format!(
                    "clip {:?} of {d} s at {fps} fps is more than {MAX_FRAMES} frames",
                    self.name
                ),
            }
            .into());
        }
        let mut times: Vec<f64> = (0..=n as usize).map(|i| i as f64 / fps).collect();
        if times.last().is_some_and(|&t| d - t > 1e-9 * d.max(1.0)) {
            times.push(d);
        }
        Ok(times)
    }
}

/// Most frames [`Clip::frame_times`] gives.
pub const MAX_FRAMES: usize = 1_000_000;

/// The default frame rate clip metrics sample at.
pub const DEFAULT_FPS: f64 = 30.0;
