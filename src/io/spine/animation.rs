//! Spine animations and IK constraints ↔ the scene's clips ([`Clip`]) and IK
//! ([`IkConstraint`]).
//!
//! Read as the user guide's "JSON export format" page documents them:
//!
//! - `animations.NAME.bones.BONE.TIMELINE` is an array of keys. `rotate` (`value`, 3.x
//!   `angle`), `translatex`, `translatey`, `scalex`, `scaley`, `shearx`, `sheary` key one
//!   channel (`value`); `translate`, `scale`, `shear` key two (`x`, `y`). `time` defaults to
//!   0, values to 0 (scales to 1). Rotation, translation and shear are added to the setup
//!   pose and scale multiplies it, exactly as the clip model stores its channels, so a value
//!   is copied unchanged.
//! - A key's `curve` shapes the segment to the next key: absent = linear, `"stepped"`, or (4.x)
//!   4 numbers per channel, `cx1, cy1, cx2, cy2` in absolute time and value
//!   ([`Curve::from_absolute_bezier`]); 3.x writes `curve: c1, c2: .., c3: .., c4: ..` (or an
//!   array of 4) already normalized to the segment.
//! - Before a timeline's first key Spine shows the setup pose: a timeline whose first key is
//!   after 0 gets a stepped key at 0 holding the setup value (0, scale 1), so the bone jumps
//!   to the first key at its time as in Spine.
//! - A clip lasts until the last key of any of its timelines (drawn or not).
//! - `ik`: `name`, `order`, `bones` (1 or 2), `target`, `mix` (default 1), `bendPositive`
//!   (default true), `softness`; applied in `order`.
//! - `animations.NAME.ik.CONSTRAINT` (IK timelines) become the clip's [`IkTrack`]s: per key
//!   `time`, `mix` (default 1), `softness` (0), `bendPositive` (true), `compress`, `stretch`
//!   (false), and one `curve` for `mix` and `softness` (4.x: 8 numbers). Their values are
//!   absolute, replacing the constraint's while the clip plays; mix and bend are applied,
//!   softness, compress and stretch kept but not applied (noted).
//!
//! - `animations.NAME.slots.SLOT.attachment` (attachment timelines) become the clip's
//!   [`AttachmentTrack`]s: per key `time` (default 0) and `name` (absent or `null`: the slot
//!   is empty), held until the next key; before the first key the slot shows its setup
//!   attachment. They decide which layers are drawn, not the pose.
//!
//! Other slot timelines (colours, sequences), deform, draw-order, event, transform, path and
//! physics timelines are not applied (the report's notes name each kind and its animations).

use super::parse::{FileBone, FileSlot};
use super::{MAX_ANGLE_DEG, MAX_COORDINATE, MAX_SCALE};
use crate::animation::{
    AttachmentKey, AttachmentTrack, BoneTrack, Channel, ChannelKind, Clip, Curve, Easing,
    IkConstraint, IkKey, IkTrack, Key, MAX_IK_MIX, MAX_KEYS,
};
use crate::error::{ClipError, Result};
use crate::io::json_path::{kind, shown, JsonAt};
use crate::scene::Scene;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};

/// Largest key time (s) accepted.
const MAX_TIME: f64 = 1e6;

/// The animations and IK read from a file.
#[derive(Debug, Clone, Default)]
pub(super) struct FileAnimation {
    pub clips: Vec<Clip>,
    pub ik: Vec<IkConstraint>,
    /// What is read but not applied.
    pub notes: Vec<String>,
}

/// One bone timeline: its channels, each `(kind, key field, default value, limit)`.
fn timeline_channels(
    name: &str,
    angle: bool,
) -> Option<Vec<(ChannelKind, &'static str, f64, f64)>> {
    use ChannelKind as K;
    let one = |k, d, l| vec![(k, "value", d, l)];
    let two = |x, y, d, l| vec![(x, "x", d, l), (y, "y", d, l)];
    Some(match name {
        "rotate" => vec![(
            K::Rotation,
            if angle { "angle" } else { "value" },
            0.0,
            MAX_ANGLE_DEG,
        )],
        "translate" => two(K::TranslateX, K::TranslateY, 0.0, MAX_COORDINATE),
        "translatex" => one(K::TranslateX, 0.0, MAX_COORDINATE),
        "translatey" => one(K::TranslateY, 0.0, MAX_COORDINATE),
        "scale" => two(K::ScaleX, K::ScaleY, 1.0, MAX_SCALE),
        "scalex" => one(K::ScaleX, 1.0, MAX_SCALE),
        "scaley" => one(K::ScaleY, 1.0, MAX_SCALE),
        "shear" => two(K::ShearX, K::ShearY, 0.0, MAX_ANGLE_DEG),
        "shearx" => one(K::ShearX, 0.0, MAX_ANGLE_DEG),
        "sheary" => one(K::ShearY, 0.0, MAX_ANGLE_DEG),
        _ => return None,
    })
}

/// Bézier segments the clip model takes only approximately.
#[derive(Debug, Default)]
struct CurveCounts {
    /// Control times outside the segment, clamped to it.
    clamped: usize,
    /// Between two equal values, with control values off that value: made flat.
    flat: usize,
}

/// How a key's `curve` was written.
enum RawCurve {
    Linear,
    Stepped,
    /// 4.x: absolute control points, 4 per channel.
    Absolute(Vec<f64>),
    /// 3.x: one normalized Bézier for every channel.
    Normalized([f64; 4]),
}

/// The largest `time` anywhere in a value (keys of every timeline kind).
fn last_time(v: &Value) -> f64 {
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, x)| match (k.as_str(), x.as_f64()) {
                ("time", Some(t)) if t.is_finite() => t,
                _ => last_time(x),
            })
            .fold(0.0, f64::max),
        Value::Array(a) => a.iter().map(last_time).fold(0.0, f64::max),
        _ => 0.0,
    }
}

/// Timeline kinds that are read but not applied, per animation: `(kind, animation, count)`.
fn unapplied(name: &str, anim: &Map<String, Value>, out: &mut BTreeMap<String, Vec<String>>) {
    let count = |v: &Value| -> usize {
        match v {
            Value::Object(m) => m.len(),
            Value::Array(a) => usize::from(!a.is_empty()),
            _ => 1,
        }
    };
    for (k, v) in anim {
        let label = match k.as_str() {
            "bones" | "ik" => continue,
            "slots" => {
                // Slot timelines by kind (attachment, rgba, rgba2, rgb, alpha, sequence, ...).
                let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
                if let Some(slots) = v.as_object() {
                    for tl in slots.values().filter_map(Value::as_object) {
                        for t in tl.keys() {
                            *kinds.entry(t.as_str()).or_default() += 1;
                        }
                    }
                }
                for (t, n) in kinds {
                    // Attachment timelines become the clip's attachment tracks.
                    if t == "attachment" {
                        continue;
                    }
                    out.entry(format!("slot {t} timelines"))
                        .or_default()
                        .push(format!("{name} ({n})"));
                }
                continue;
            }
            "attachments" | "deform" => "deform/sequence (attachment) timelines".to_string(),
            "drawOrder" | "draworder" => "draw order timelines".to_string(),
            "events" => "event timelines".to_string(),
            "transform" => "transform constraint timelines".to_string(),
            "path" => "path constraint timelines".to_string(),
            "physics" => "physics constraint timelines".to_string(),
            "slider" => "slider constraint timelines".to_string(),
            other => format!("{other:?} timelines"),
        };
        out.entry(label)
            .or_default()
            .push(format!("{name} ({})", count(v)));
    }
}

/// Reads `animations` and `ik` of a project (bones already read).
pub(super) fn parse_animation(
    root: &Value,
    bones: &[FileBone],
    slots: &[FileSlot],
    version: &str,
) -> Result<FileAnimation> {
    let mut out = FileAnimation::default();
    let mut reader = AnimationReader {
        legacy: version.starts_with("3.") || version.starts_with("2."),
        bone_index: bones
            .iter()
            .enumerate()
            .map(|(i, b)| (b.name.as_str(), i))
            .collect(),
        not_applied: BTreeMap::new(),
        counts: CurveCounts::default(),
        keys_total: 0,
    };
    out.ik = parse_ik(root, &reader.bone_index, &mut out.notes)?;
    if let Some(anims) = root.get("animations") {
        let anims = JsonAt::spine("skeleton").object(anims, "animations")?;
        for (name, anim) in anims {
            let ctx = format!("animation {name:?}");
            let at = JsonAt::spine(&ctx);
            let anim = at.object(anim, "animations")?;
            unapplied(name, anim, &mut reader.not_applied);
            let mut clip = Clip::new(name.clone(), last_time(&Value::Object(anim.clone())));
            if let Some(bt) = anim.get("bones") {
                for (bone, timelines) in at.object(bt, "bones")? {
                    if !reader.bone_index.contains_key(bone.as_str()) {
                        return Err(at.error("bones", format!("no bone is called {bone:?}")));
                    }
                    let track = reader.bone_track(name, bone, timelines)?;
                    if track.channels.iter().next().is_some() {
                        clip.tracks.push(track);
                    }
                }
            }
            if let Some(st) = anim.get("slots") {
                for (slot, timelines) in at.object(st, "slots")? {
                    if !slots.iter().any(|s| &s.name == slot) {
                        return Err(at.error("slots", format!("no slot is called {slot:?}")));
                    }
                    if let Some(track) = reader.attachment_track(name, slot, timelines)? {
                        clip.attachments.push(track);
                    }
                }
            }
            if let Some(timelines) = anim.get("ik") {
                for (constraint, keys) in at.object(timelines, "ik")? {
                    if !out.ik.iter().any(|c| &c.name == constraint) {
                        return Err(
                            at.error("ik", format!("no IK constraint is called {constraint:?}"))
                        );
                    }
                    clip.ik.push(reader.ik_track(&at, name, constraint, keys)?);
                }
            }
            out.clips.push(clip);
        }
    }
    reader.notes(&mut out.notes);
    Ok(out)
}

/// What [`parse_animation`] carries from one timeline to the next.
struct AnimationReader<'a> {
    /// A 3.x (or 2.x) file: normalized Bézier curves.
    legacy: bool,
    bone_index: HashMap<&'a str, usize>,
    /// Timelines read but not applied: label → animations.
    not_applied: BTreeMap<String, Vec<String>>,
    counts: CurveCounts,
    /// Keys read so far, every channel counted, against [`MAX_KEYS`].
    keys_total: usize,
}

impl AnimationReader<'_> {
    /// Counts `n` more keys of clip `clip`: [`ClipError::TooManyKeys`] past [`MAX_KEYS`].
    fn add_keys(&mut self, clip: &str, n: usize) -> Result<()> {
        self.keys_total = self.keys_total.saturating_add(n);
        if self.keys_total > MAX_KEYS {
            return Err(ClipError::TooManyKeys {
                clip: clip.to_string(),
                count: self.keys_total,
                max: MAX_KEYS,
            }
            .into());
        }
        Ok(())
    }

    /// The track of `bone` in animation `name` from its timelines object.
    fn bone_track(&mut self, name: &str, bone: &str, timelines: &Value) -> Result<BoneTrack> {
        let bctx = format!("animation {name:?} bone {bone:?}");
        let bat = JsonAt::spine(&bctx);
        let mut track = BoneTrack::new(bone.to_string());
        for (tl, keys) in bat.object(timelines, "bones")? {
            let keys = keys.as_array().ok_or_else(|| {
                bat.error(
                    tl,
                    format!("expected an array of keys, found {}", kind(keys)),
                )
            })?;
            let angle = keys.first().is_some_and(|k| k.get("angle").is_some());
            let Some(channels) = timeline_channels(tl, angle) else {
                self.not_applied
                    .entry(format!("bone {tl} timelines"))
                    .or_default()
                    .push(format!("{name} ({bone})"));
                continue;
            };
            self.add_keys(name, keys.len() * channels.len())?;
            let fields: Vec<_> = channels.iter().map(|&(_, f, d, l)| (f, d, l)).collect();
            let read = read_timeline(&bat, tl, keys, &fields, self.legacy, &mut self.counts)?;
            for (&(kind, _, setup, _), mut channel) in channels.iter().zip(read) {
                // Before a timeline's first key Spine shows the setup pose, and jumps to the
                // first key at its time.
                if channel.keys.first().is_some_and(|k| k.time > 0.0) {
                    let hold = Key::new(0.0, setup).with_curve(Curve::Stepped);
                    channel.keys.insert(0, hold);
                }
                let slot = track.channels.get_mut(kind);
                if slot.is_some() {
                    self.not_applied
                        .entry(format!(
                            "second timelines of one channel ({}; the first is kept)",
                            kind.name()
                        ))
                        .or_default()
                        .push(format!("{name} ({bone} {tl})"));
                    continue;
                }
                *slot = Some(channel);
            }
        }
        Ok(track)
    }

    /// The attachment track of `slot` in animation `name` from its timelines object (its
    /// `attachment` timeline: per key `time`, default 0, and `name`, absent or `null` for
    /// an empty slot); `None` when the slot has no attachment timeline.
    fn attachment_track(
        &mut self,
        name: &str,
        slot: &str,
        timelines: &Value,
    ) -> Result<Option<AttachmentTrack>> {
        let sctx = format!("animation {name:?} slot {slot:?}");
        let sat = JsonAt::spine(&sctx);
        let Some(keys) = sat.object(timelines, "slots")?.get("attachment") else {
            return Ok(None);
        };
        let keys = keys.as_array().ok_or_else(|| {
            sat.error(
                "attachment",
                format!("expected an array of keys, found {}", kind(keys)),
            )
        })?;
        self.add_keys(name, keys.len())?;
        let mut out: Vec<AttachmentKey> = Vec::with_capacity(keys.len());
        for (k, key) in keys.iter().enumerate() {
            let field = || format!("attachment[{k}]");
            let key = key.as_object().ok_or_else(|| {
                sat.error(
                    &field(),
                    format!("expected a key object, found {}", kind(key)),
                )
            })?;
            let time = match key.get("time") {
                None => 0.0,
                Some(t) => t
                    .as_f64()
                    .filter(|t| t.is_finite() && (0.0..=MAX_TIME).contains(t))
                    .ok_or_else(|| {
                        sat.error(
                            &format!("{}.time", field()),
                            format!("{t} is not a time in [0, {MAX_TIME:e}] s"),
                        )
                    })?,
            };
            if let Some(previous) = out.last().map(|p| p.time).filter(|&p| time < p) {
                return Err(sat.error(
                    &format!("{}.time", field()),
                    format!("{time} comes before the previous key's {previous}: keys out of order"),
                ));
            }
            let attachment = match key.get("name") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(v) => {
                    return Err(sat.error(
                        &format!("{}.name", field()),
                        format!("expected an attachment name or null, found {}", kind(v)),
                    ))
                }
            };
            out.push(AttachmentKey { time, attachment });
        }
        Ok(Some(AttachmentTrack::new(slot, out)))
    }

    /// The IK track of `constraint` in animation `name`.
    fn ik_track(
        &mut self,
        at: &JsonAt,
        name: &str,
        constraint: &str,
        keys: &Value,
    ) -> Result<IkTrack> {
        let field = format!("ik.{constraint}");
        let keys = keys.as_array().ok_or_else(|| {
            at.error(
                &field,
                format!("expected an array of keys, found {}", kind(keys)),
            )
        })?;
        self.add_keys(name, keys.len() * 2)?;
        let track = read_ik_timeline(at, constraint, keys, self.legacy, &mut self.counts)?;
        for (what, keyed) in [
            ("softness", track.keys.iter().any(|k| k.softness != 0.0)),
            ("compress", track.keys.iter().any(|k| k.compress)),
            ("stretch", track.keys.iter().any(|k| k.stretch)),
        ] {
            if keyed {
                self.not_applied
                    .entry(format!("IK timeline {what} keys (kept in the clip)"))
                    .or_default()
                    .push(format!("{name} ({constraint})"));
            }
        }
        Ok(track)
    }

    /// The notes of what was approximated or not applied.
    fn notes(self, notes: &mut Vec<String>) {
        if self.counts.clamped > 0 {
            notes.push(format!(
                "{} Bézier segments have a control point before or after their segment in time (Spine allows it): clamped to the segment",
                self.counts.clamped
            ));
        }
        if self.counts.flat > 0 {
            notes.push(format!(
                "{} Bézier segments between two equal values bulge in Spine; the clip model has no such curve, they are linear (flat)",
                self.counts.flat
            ));
        }
        for (label, anims) in self.not_applied {
            notes.push(format!("{label} not applied: {}", anims.join(", ")));
        }
    }
}

/// The keys of one timeline, one channel per `channels` entry `(key field, default value,
/// limit)` (bone timelines; IK timelines' `mix` and `softness`).
fn read_timeline(
    at: &JsonAt,
    tl: &str,
    keys: &[Value],
    channels: &[(&'static str, f64, f64)],
    legacy: bool,
    counts: &mut CurveCounts,
) -> Result<Vec<Channel>> {
    let n = channels.len();
    let mut times = Vec::with_capacity(keys.len());
    let mut values: Vec<Vec<f64>> = vec![Vec::with_capacity(keys.len()); n];
    let mut curves = Vec::with_capacity(keys.len());
    for (i, k) in keys.iter().enumerate() {
        let field = format!("{tl}[{i}]");
        at.object(k, &field)?;
        let kctx = format!("{} {tl} key {i}", at.context);
        let key_at = JsonAt::spine(&kctx);
        let t = key_at.number(k, "time", 0.0, MAX_TIME)?;
        if t < 0.0 {
            return Err(at.error(&field, format!("time {} is negative", shown(t))));
        }
        times.push(t);
        for (c, &(f, d, l)) in channels.iter().enumerate() {
            values[c].push(key_at.number(k, f, d, l)?);
        }
        curves.push(read_curve(at, &key_at, k, tl, &field, n, legacy)?);
    }
    let mut out = Vec::with_capacity(n);
    for (c, vals) in values.iter().enumerate() {
        let mut ch = Vec::with_capacity(keys.len() + 1);
        for i in 0..keys.len() {
            let next = (i + 1 < keys.len()).then(|| (times[i + 1], vals[i + 1]));
            let curve = segment_curve(&curves[i], c, (times[i], vals[i]), next, counts);
            ch.push(Key {
                time: times[i],
                value: vals[i],
                curve,
            });
        }
        out.push(Channel::new(ch));
    }
    Ok(out)
}

/// The `curve` of key `k` (`field`, `tl[i]`) of a timeline of `n` channels; `key_at`
/// names the key in errors of its numbers.
fn read_curve(
    at: &JsonAt,
    key_at: &JsonAt,
    k: &Value,
    tl: &str,
    field: &str,
    n: usize,
    legacy: bool,
) -> Result<RawCurve> {
    Ok(match k.get("curve") {
        None | Some(Value::Null) => RawCurve::Linear,
        Some(Value::String(s)) if s == "stepped" => RawCurve::Stepped,
        Some(Value::String(s)) if s == "linear" => RawCurve::Linear,
        Some(Value::Number(c1)) => {
            let c1 = c1.as_f64().unwrap_or(f64::NAN);
            RawCurve::Normalized([
                c1,
                key_at.number(k, "c2", 0.0, MAX_TIME)?,
                key_at.number(k, "c3", 1.0, MAX_TIME)?,
                key_at.number(k, "c4", 1.0, MAX_TIME)?,
            ])
        }
        Some(Value::Array(a)) => {
            let c: Vec<f64> = a
                .iter()
                .map(|x| {
                    x.as_f64()
                        .filter(|x| x.is_finite() && x.abs() <= MAX_TIME.max(MAX_COORDINATE))
                })
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    at.error(&format!("{field}.curve"), "expected numbers within ±1e6")
                })?;
            if legacy && c.len() == 4 {
                RawCurve::Normalized([c[0], c[1], c[2], c[3]])
            } else if c.len() == 4 * n {
                RawCurve::Absolute(c)
            } else {
                return Err(at.error(
                    &format!("{field}.curve"),
                    format!(
                        "{} numbers; a {tl} key's Bézier has {} (4 per channel)",
                        c.len(),
                        4 * n
                    ),
                ));
            }
        }
        Some(v) => {
            return Err(at.error(
                &format!("{field}.curve"),
                format!(
                    "expected \"stepped\" or an array of numbers, found {}",
                    kind(v)
                ),
            ))
        }
    })
}

/// The clip model's curve of channel `c` from key `(t0, v0)` to the `next` key (none for
/// the last key) as `raw` shapes it.
fn segment_curve(
    raw: &RawCurve,
    c: usize,
    (t0, v0): (f64, f64),
    next: Option<(f64, f64)>,
    counts: &mut CurveCounts,
) -> Curve {
    match (raw, next) {
        (_, None) | (RawCurve::Linear, _) => Curve::Linear,
        (RawCurve::Stepped, _) => Curve::Stepped,
        (RawCurve::Normalized([x1, y1, x2, y2]), _) => clamp_bezier(*x1, *y1, *x2, *y2, counts),
        (RawCurve::Absolute(a), Some((t1, v1))) => {
            let b = [a[4 * c], a[4 * c + 1], a[4 * c + 2], a[4 * c + 3]];
            match Curve::from_absolute_bezier(t0, v0, t1, v1, b) {
                // Spine lets a handle reach past its segment in time; the clip
                // model's timing curve must not run backwards: clamped (counted).
                Some((Curve::Bezier { x1, y1, x2, y2 }, true)) => {
                    clamp_bezier(x1, y1, x2, y2, counts)
                }
                Some((curve, true)) => curve,
                Some((curve, false)) => {
                    if b[1] != v0 || b[3] != v0 {
                        counts.flat += 1;
                    }
                    curve
                }
                // A segment without length in time: no curve to shape.
                None => Curve::Linear,
            }
        }
    }
}

/// A Bézier with its control times clamped to [0, 1] (counted when they were not).
fn clamp_bezier(x1: f64, y1: f64, x2: f64, y2: f64, counts: &mut CurveCounts) -> Curve {
    let (c1, c2) = (x1.clamp(0.0, 1.0), x2.clamp(0.0, 1.0));
    if c1 != x1 || c2 != x2 {
        counts.clamped += 1;
    }
    Curve::Bezier {
        x1: c1,
        y1,
        x2: c2,
        y2,
    }
}

/// One IK timeline (`animations.NAME.ik.CONSTRAINT`): per key `time`, `mix` (default 1),
/// `softness` (0), `bendPositive` (true), `compress` and `stretch` (false), and a `curve`
/// for `mix` and `softness` (4.x: 8 numbers, 4 per channel), as [`read_timeline`] reads
/// bone timelines. Values are absolute: they replace the constraint's own.
fn read_ik_timeline(
    at: &JsonAt,
    constraint: &str,
    keys: &[Value],
    legacy: bool,
    counts: &mut CurveCounts,
) -> Result<IkTrack> {
    let tl = format!("ik.{constraint}");
    let channels = [("mix", 1.0, MAX_IK_MIX), ("softness", 0.0, MAX_COORDINATE)];
    let read = read_timeline(at, &tl, keys, &channels, legacy, counts)?;
    let (mix, softness) = (&read[0].keys, &read[1].keys);
    let mut out = Vec::with_capacity(keys.len());
    for (i, k) in keys.iter().enumerate() {
        let kctx = format!("{} {tl} key {i}", at.context);
        let kat = JsonAt::spine(&kctx);
        // A keyed mix outside [0, 1] is applied unclamped, as the runtime does.
        if softness[i].value < 0.0 {
            return Err(kat.error(
                "softness",
                format!("softness {} must not be negative", shown(softness[i].value)),
            ));
        }
        out.push(IkKey {
            time: mix[i].time,
            mix: mix[i].value,
            softness: softness[i].value,
            bend_positive: boolean(&kat, k, "bendPositive", true)?,
            compress: boolean(&kat, k, "compress", false)?,
            stretch: boolean(&kat, k, "stretch", false)?,
            mix_curve: mix[i].curve,
            softness_curve: softness[i].curve,
        });
    }
    Ok(IkTrack::new(constraint, out))
}

/// A `true`/`false` field, `default` when absent.
pub(super) fn boolean(at: &JsonAt, v: &Value, field: &str, default: bool) -> Result<bool> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(x) => Err(at.error(field, format!("expected true or false, found {}", kind(x)))),
    }
}

/// The `ik` constraints, in `order`.
fn parse_ik(
    root: &Value,
    bone_index: &HashMap<&str, usize>,
    notes: &mut Vec<String>,
) -> Result<Vec<IkConstraint>> {
    let top = JsonAt::spine("skeleton");
    let Some(raw) = root.get("ik") else {
        return Ok(Vec::new());
    };
    let raw = raw
        .as_array()
        .ok_or_else(|| top.error("ik", format!("expected an array, found {}", kind(raw))))?;
    let mut out: Vec<(f64, IkConstraint)> = Vec::with_capacity(raw.len());
    let mut left_out = Vec::new();
    for (i, c) in raw.iter().enumerate() {
        let ctx = format!("ik[{i}]");
        let at = JsonAt::spine(&ctx);
        at.object(c, "ik")?;
        let name = at.string(c, "name")?;
        let ctx = format!("IK constraint {name:?}");
        let at = JsonAt::spine(&ctx);
        let known = |b: String| -> Result<String> {
            if bone_index.contains_key(b.as_str()) {
                Ok(b)
            } else {
                Err(at.error("bones", format!("no bone is called {b:?}")))
            }
        };
        let bones = at
            .array(c, "bones")?
            .iter()
            .map(|b| {
                b.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| {
                        at.error("bones", format!("expected bone names, found {}", kind(b)))
                    })
                    .and_then(known)
            })
            .collect::<Result<Vec<String>>>()?;
        let target = known(at.string(c, "target")?)?;
        let mut ik = IkConstraint::new(name.clone(), bones, target);
        ik.mix = at.number(c, "mix", 1.0, MAX_IK_MIX)?;
        ik.softness = at.number(c, "softness", 0.0, MAX_COORDINATE)?;
        ik.bend_positive = boolean(&at, c, "bendPositive", true)?;
        for flag in ["compress", "stretch", "uniform"] {
            if c.get(flag).and_then(Value::as_bool) == Some(true) {
                left_out.push(format!("{name} {flag}"));
            }
        }
        // Spine 4.3 writes how the chain's y scale follows (`scaleY`) where 4.2 wrote `uniform`.
        if let Some(mode) = c.get("scaleY").and_then(Value::as_str) {
            left_out.push(format!("{name} scaleY {mode}"));
        }
        notes.extend(ik.notes());
        out.push((at.number(c, "order", 0.0, 1e9)?, ik));
    }
    if !left_out.is_empty() {
        notes.push(format!("IK options not applied: {}", left_out.join(", ")));
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(out.into_iter().map(|(_, c)| c).collect())
}

/// How a curve is written in Spine: `None` linear (no `curve`), `Some(None)` stepped,
/// `Some(Some(b))` the normalized Bézier `b`. Curves Spine has no form for are linear
/// (counted in `approximated` by name).
fn spine_curve(
    curve: &Curve,
    approximated: &mut BTreeMap<String, usize>,
) -> Option<Option<[f64; 4]>> {
    match *curve {
        Curve::Linear => None,
        Curve::Stepped => Some(None),
        Curve::Bezier { x1, y1, x2, y2 } => Some(Some([x1, y1, x2, y2])),
        // u² and 2u - u² are cubic Béziers with x(s) = s exactly.
        Curve::Easing(Easing::EaseIn) => Some(Some([1.0 / 3.0, 0.0, 2.0 / 3.0, 1.0 / 3.0])),
        Curve::Easing(Easing::EaseOut) => Some(Some([1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0, 1.0])),
        other => {
            let label = match other {
                Curve::Easing(e) => e.name().to_string(),
                _ => "godot_ease".to_string(),
            };
            *approximated.entry(label).or_default() += 1;
            None
        }
    }
}

/// A normalized Bézier in Spine 4's absolute form over the segment `(t0, v0)`–`(t1, v1)`.
fn absolute([x1, y1, x2, y2]: [f64; 4], (t0, v0, t1, v1): (f64, f64, f64, f64)) -> [f64; 4] {
    let (dt, dv) = (t1 - t0, v1 - v0);
    [t0 + x1 * dt, v0 + y1 * dv, t0 + x2 * dt, v0 + y2 * dv]
}

/// One IK track as a Spine IK timeline: `time`, `mix`, and `softness`, `bendPositive`,
/// `compress`, `stretch` where they differ from Spine's defaults; one `curve` for both
/// channels (`"stepped"` when both are, else 8 numbers, a linear channel as the straight
/// Bézier; a stepped channel beside a Bézier one is written linear, counted).
fn ik_timeline_json(track: &IkTrack, approximated: &mut BTreeMap<String, usize>) -> Value {
    const STRAIGHT: [f64; 4] = [1.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0];
    let keys = &track.keys;
    let mut out = Vec::with_capacity(keys.len());
    for (i, k) in keys.iter().enumerate() {
        let mut key = json!({"time": k.time, "mix": k.mix});
        if k.softness != 0.0 {
            key["softness"] = json!(k.softness);
        }
        if !k.bend_positive {
            key["bendPositive"] = json!(false);
        }
        for (field, on) in [("compress", k.compress), ("stretch", k.stretch)] {
            if on {
                key[field] = json!(true);
            }
        }
        if let Some(next) = keys.get(i + 1) {
            let curves = [
                spine_curve(&k.mix_curve, approximated),
                spine_curve(&k.softness_curve, approximated),
            ];
            match curves {
                [None, None] => {}
                [Some(None), Some(None)] => key["curve"] = json!("stepped"),
                _ => {
                    let segments = [
                        (k.time, k.mix, next.time, next.mix),
                        (k.time, k.softness, next.time, next.softness),
                    ];
                    let mut numbers = Vec::with_capacity(8);
                    for (c, seg) in curves.into_iter().zip(segments) {
                        let b = match c {
                            Some(Some(b)) => b,
                            None => STRAIGHT,
                            Some(None) => {
                                *approximated
                                    .entry("stepped (beside a Bézier channel)".into())
                                    .or_default() += 1;
                                STRAIGHT
                            }
                        };
                        numbers.extend(absolute(b, seg));
                    }
                    key["curve"] = json!(numbers);
                }
            }
        }
        out.push(key);
    }
    Value::Array(out)
}

/// The scene's clips as Spine `animations` (single-channel timelines: `rotate`,
/// `translatex`, ... so every channel keeps its own keys) and its IK as `ik`, with notes on
/// curves Spine has no form for.
pub(super) fn animation_json(scene: &Scene, notes: &mut Vec<String>) -> (Value, Value) {
    let mut anims = Map::new();
    let mut approximated: BTreeMap<String, usize> = BTreeMap::new();
    for clip in &scene.clips {
        let mut bones = Map::new();
        for track in &clip.tracks {
            let mut timelines = Map::new();
            for (kind, channel) in track.channels.iter() {
                let name = match kind {
                    ChannelKind::Rotation => "rotate",
                    ChannelKind::TranslateX => "translatex",
                    ChannelKind::TranslateY => "translatey",
                    ChannelKind::ScaleX => "scalex",
                    ChannelKind::ScaleY => "scaley",
                    ChannelKind::ShearX => "shearx",
                    ChannelKind::ShearY => "sheary",
                };
                let keys = &channel.keys;
                let mut out = Vec::with_capacity(keys.len());
                for (i, k) in keys.iter().enumerate() {
                    let mut key = json!({"time": k.time, "value": k.value});
                    if let Some(next) = keys.get(i + 1) {
                        let segment = (k.time, k.value, next.time, next.value);
                        match spine_curve(&k.curve, &mut approximated) {
                            None => {}
                            Some(None) => key["curve"] = json!("stepped"),
                            Some(Some(b)) => key["curve"] = json!(absolute(b, segment)),
                        }
                    }
                    out.push(key);
                }
                timelines.insert(name.into(), Value::Array(out));
            }
            bones.insert(track.bone.clone(), Value::Object(timelines));
        }
        let mut anim = json!({"bones": bones});
        if !clip.ik.is_empty() {
            let ik: Map<String, Value> = clip
                .ik
                .iter()
                .map(|t| (t.constraint.clone(), ik_timeline_json(t, &mut approximated)))
                .collect();
            anim["ik"] = Value::Object(ik);
        }
        // Spine has no duration: a clip lasts to its last key. A draw-order key that keeps the
        // setup order marks a duration longer than the bone keys.
        let last = clip.key_times().last().copied().unwrap_or(0.0);
        if clip.duration > last {
            anim["drawOrder"] = json!([{"time": clip.duration}]);
        }
        anims.insert(clip.name.clone(), anim);
    }
    for (label, n) in approximated {
        notes.push(format!(
            "{n} {label} segments have no Spine curve: written linear"
        ));
    }
    let ik: Vec<Value> = scene
        .ik
        .iter()
        .enumerate()
        .map(|(order, c)| {
            let mut o = json!({
                "name": c.name,
                "order": order,
                "bones": c.bones,
                "target": c.target,
                "mix": c.mix,
                "bendPositive": c.bend_positive,
            });
            if c.softness != 0.0 {
                o["softness"] = json!(c.softness);
            }
            o
        })
        .collect();
    (Value::Object(anims), Value::Array(ik))
}
