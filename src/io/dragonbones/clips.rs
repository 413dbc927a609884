//! DragonBones 5.5 animations ↔ [`Clip`]s (the armature's `animation` list, bone timelines).
//!
//! Read as DragonBones' format documentation describes them:
//!
//! - Times are frames at the armature's `frameRate` (the file's top-level `frameRate`, else
//!   24); an animation's `duration` and every frame's `duration` count frames. A frame's key
//!   time is the sum of the earlier frames' durations.
//! - `translateFrame` `{x, y}` (default 0) adds to the bone's setup position in its parent's
//!   frame; `rotateFrame` `{rotate, skew}` (degrees, default 0) adds to its rotation and skew;
//!   `scaleFrame` `{x, y}` (default 1) multiplies its scale. The older `frame` list holds a
//!   whole `transform` `{x, y, skX, skY, scX, scY}` per frame (rotation `skY`, skew
//!   `skX - skY`) and fills every channel.
//! - y-down to y-up: `translate_y = -y`, `rotation = -rotate`, `shear_y = -skew`; scales keep
//!   their values.
//! - Consecutive rotation keys take the short way round (DragonBones normalizes each
//!   difference to ±180°), so the importer unwraps them; `tweenRotate` (extra turns) is
//!   refused.
//! - `curve: [x1, y1, x2, y2]` is a cubic Bézier timing curve already normalized to the
//!   segment → [`Curve::Bezier`]; longer `curve` arrays (several joined Bézier pieces) are
//!   refused. Else `tweenEasing`: absent or `null` → [`Curve::Stepped`], `0` → linear,
//!   `e` in `[-1, 1]` → DragonBones' quadratic blend `u + e·u(1-u)` (ease out for `e > 0`,
//!   ease in for `e < 0`), which is exactly the Bézier `(1/3, (1+e)/3, 2/3, (2+e)/3)`;
//!   `e > 1` (a sine in-out blend no clip curve holds) is refused.

use super::At;
use crate::animation::{BoneTrack, Channel, ChannelKind, Clip, Curve, Easing, Key, MAX_KEYS};
use crate::error::{Error, Result};
use crate::skeleton::{LocalTransform, Skeleton};
use serde_json::{json, Value};

/// The frame rate DragonBones assumes when a file gives none.
pub const DEFAULT_FRAME_RATE: f64 = 24.0;

/// Frame rates the exporter tries, in order, for clips whose key times must land on frames.
pub const EXPORT_FRAME_RATES: [f64; 8] = [24.0, 25.0, 30.0, 48.0, 50.0, 60.0, 120.0, 240.0];

/// Parses every animation's bone timelines into clips (not yet checked against the skeleton).
pub(super) fn parse_clips(root: &Value, armature: &Value) -> Result<Vec<Clip>> {
    let top = At {
        context: "armature",
    };
    let rate = match armature.get("frameRate") {
        Some(v) if !v.is_null() => top.number_or(armature, "frameRate", DEFAULT_FRAME_RATE)?,
        _ => At { context: "file" }.number_or(root, "frameRate", DEFAULT_FRAME_RATE)?,
    };
    if !(rate > 0.0 && rate <= 1e4) {
        return Err(top.error("frameRate", None, format!("{rate} must be in (0, 10000]")));
    }
    let Some(list) = armature.get("animation") else {
        return Ok(Vec::new());
    };
    let list = list
        .as_array()
        .ok_or_else(|| top.error("animation", None, "expected an array"))?;
    let mut keys = 0usize;
    let mut clips = Vec::with_capacity(list.len());
    for (i, a) in list.iter().enumerate() {
        let ctx = format!("animation {i}");
        let at = At { context: &ctx };
        at.object(a, "animation")?;
        let name = at.string(a, "name")?;
        let ctx = format!("animation {name:?}");
        let at = At { context: &ctx };
        let frames = at.number_or(a, "duration", 0.0)?;
        if frames < 0.0 {
            return Err(at.error("duration", None, format!("{frames} frames is negative")));
        }
        let mut clip = Clip::new(name.clone(), frames / rate);
        if let Some(bones) = a.get("bone") {
            let bones = bones
                .as_array()
                .ok_or_else(|| at.error("bone", None, "expected an array"))?;
            for (b, timeline) in bones.iter().enumerate() {
                let bone = at.string(timeline, "name").map_err(|e| {
                    super::parse::with_context(e, format!("animation {name:?} bone timeline {b}"))
                })?;
                let ctx = format!("animation {name:?} bone {bone:?}");
                let at = At { context: &ctx };
                let track = parse_track(&at, timeline, bone, rate, &name, &mut keys)?;
                clip.tracks.push(track);
            }
        }
        clips.push(clip);
    }
    Ok(clips)
}

/// One frame's parsed timing: start time (s) and curve to the next frame.
fn frames<'v>(
    at: &At,
    timeline: &'v Value,
    field: &str,
    rate: f64,
    clip: &str,
    keys: &mut usize,
) -> Result<Vec<(f64, Curve, &'v Value)>> {
    let Some(list) = timeline.get(field) else {
        return Ok(Vec::new());
    };
    let list = list
        .as_array()
        .ok_or_else(|| at.error(field, None, "expected an array"))?;
    *keys = keys.saturating_add(list.len());
    if *keys > MAX_KEYS {
        return Err(Error::TooManyKeys {
            clip: clip.to_string(),
            count: *keys,
            max: MAX_KEYS,
        });
    }
    let mut start = 0.0_f64;
    let mut out = Vec::with_capacity(list.len());
    for (i, f) in list.iter().enumerate() {
        let fld = format!("{field}[{i}]");
        at.object(f, &fld)?;
        let d = at
            .number_or(f, "duration", 1.0)
            .map_err(|_| at.error(&format!("{fld}.duration"), None, "expected a number"))?;
        if d < 0.0 {
            return Err(at.error(
                &format!("{fld}.duration"),
                None,
                format!("{d} frames is negative"),
            ));
        }
        out.push((start / rate, frame_curve(at, f, &fld)?, f));
        start += d;
    }
    Ok(out)
}

/// A frame's curve to the next frame (see the module documentation).
fn frame_curve(at: &At, f: &Value, fld: &str) -> Result<Curve> {
    if let Some(c) = f.get("curve").filter(|c| !c.is_null()) {
        let field = format!("{fld}.curve");
        let arr = c
            .as_array()
            .ok_or_else(|| at.error(&field, None, "expected an array"))?;
        let n: Vec<f64> = arr.iter().filter_map(Value::as_f64).collect();
        if n.len() != arr.len() || n.len() != 4 || n.iter().any(|x| !x.is_finite()) {
            return Err(at.error(
                &field,
                None,
                format!(
                    "{} entries: only one Bézier piece [x1, y1, x2, y2] of finite numbers is read",
                    arr.len()
                ),
            ));
        }
        if !(0.0..=1.0).contains(&n[0]) || !(0.0..=1.0).contains(&n[2]) {
            return Err(at.error(
                &field,
                None,
                format!("control times {} and {} must lie in [0, 1]", n[0], n[2]),
            ));
        }
        return Ok(Curve::Bezier {
            x1: n[0],
            y1: n[1],
            x2: n[2],
            y2: n[3],
        });
    }
    let field = format!("{fld}.tweenEasing");
    match f.get("tweenEasing") {
        None | Some(Value::Null) => Ok(Curve::Stepped),
        Some(v) => {
            let e = v
                .as_f64()
                .filter(|e| e.is_finite())
                .ok_or_else(|| at.error(&field, None, format!("expected a number, found {v}")))?;
            Ok(if e == 0.0 {
                Curve::Linear
            } else if e == 1.0 {
                Curve::Easing(Easing::EaseOut)
            } else if e == -1.0 {
                Curve::Easing(Easing::EaseIn)
            } else if (-1.0..=1.0).contains(&e) {
                Curve::Bezier {
                    x1: 1.0 / 3.0,
                    y1: (1.0 + e) / 3.0,
                    x2: 2.0 / 3.0,
                    y2: (2.0 + e) / 3.0,
                }
            } else {
                return Err(at.error(
                    &field,
                    None,
                    format!("{e}: only easings in [-1, 1] (quadratic) are read"),
                ));
            })
        }
    }
}

fn parse_track(
    at: &At,
    timeline: &Value,
    bone: String,
    rate: f64,
    clip: &str,
    keys: &mut usize,
) -> Result<BoneTrack> {
    let mut track = BoneTrack::new(bone);
    let num = |f: &Value, fld: &str, name: &str, default: f64| -> Result<f64> {
        at.number_or(f, name, default)
            .map_err(|_| at.error(&format!("{fld}.{name}"), None, "expected a finite number"))
    };
    use ChannelKind as K;
    let mut set = |kind: K, ks: Vec<Key>| {
        if !ks.is_empty() {
            *track.channels.get_mut(kind) = Some(Channel::new(ks));
        }
    };
    let mk = |t: f64, v: f64, c: Curve| Key::new(t, v).with_curve(c);
    let tr = frames(at, timeline, "translateFrame", rate, clip, keys)?;
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (i, &(t, c, f)) in tr.iter().enumerate() {
        let fld = format!("translateFrame[{i}]");
        x.push(mk(t, num(f, &fld, "x", 0.0)?, c));
        y.push(mk(t, -num(f, &fld, "y", 0.0)?, c));
    }
    let ro = frames(at, timeline, "rotateFrame", rate, clip, keys)?;
    let (mut r, mut s) = (Vec::new(), Vec::new());
    let mut previous: Option<f64> = None;
    let mut any_skew = false;
    for (i, &(t, c, f)) in ro.iter().enumerate() {
        let fld = format!("rotateFrame[{i}]");
        let turns = num(f, &fld, "tweenRotate", 0.0)?;
        if turns != 0.0 {
            return Err(at.error(
                &format!("{fld}.tweenRotate"),
                None,
                format!("{turns} extra turns are not read"),
            ));
        }
        let mut deg = num(f, &fld, "rotate", 0.0)?;
        if let Some(p) = previous {
            deg = p + wrap_degrees(deg - p);
        }
        previous = Some(deg);
        let skew = num(f, &fld, "skew", 0.0)?;
        any_skew |= skew != 0.0;
        r.push(mk(t, -deg, c));
        s.push(mk(t, -skew, c));
    }
    let sc = frames(at, timeline, "scaleFrame", rate, clip, keys)?;
    let (mut sx, mut sy) = (Vec::new(), Vec::new());
    for (i, &(t, c, f)) in sc.iter().enumerate() {
        let fld = format!("scaleFrame[{i}]");
        sx.push(mk(t, num(f, &fld, "x", 1.0)?, c));
        sy.push(mk(t, num(f, &fld, "y", 1.0)?, c));
    }
    // The older whole-transform frames.
    let old = frames(at, timeline, "frame", rate, clip, keys)?;
    let newer = !(tr.is_empty() && ro.is_empty() && sc.is_empty());
    if !old.is_empty() && newer {
        return Err(at.error(
            "frame",
            None,
            "both a `frame` list and translate/rotate/scale frames",
        ));
    }
    let mut previous: Option<f64> = None;
    for (i, &(t, c, f)) in old.iter().enumerate() {
        let fld = format!("frame[{i}].transform");
        let empty = json!({});
        let tf = f.get("transform").unwrap_or(&empty);
        let sky = num(tf, &fld, "skY", 0.0)?;
        let skx = num(tf, &fld, "skX", 0.0)?;
        let mut deg = sky;
        if let Some(p) = previous {
            deg = p + wrap_degrees(deg - p);
        }
        previous = Some(deg);
        any_skew |= skx != sky;
        x.push(mk(t, num(tf, &fld, "x", 0.0)?, c));
        y.push(mk(t, -num(tf, &fld, "y", 0.0)?, c));
        r.push(mk(t, -deg, c));
        s.push(mk(t, -(skx - sky), c));
        sx.push(mk(t, num(tf, &fld, "scX", 1.0)?, c));
        sy.push(mk(t, num(tf, &fld, "scY", 1.0)?, c));
    }
    set(K::TranslateX, x);
    set(K::TranslateY, y);
    set(K::Rotation, r);
    if any_skew {
        set(K::ShearY, s);
    }
    set(K::ScaleX, sx);
    set(K::ScaleY, sy);
    Ok(track)
}

/// Below this (px, degrees, or relative scale) a setup transform equals the bind local one.
const SAME_LOCAL: f64 = 1e-9;

/// Rebases clips read relative to each bone's DragonBones setup transform (`setup`, in bone
/// order, y-up) onto the skeleton's rest (the bind pose, [`Skeleton::setup_local`]): every
/// channel of a bone whose setup differs gets the constant difference (added; scales
/// multiplied by the ratio), and a missing channel a single key at 0 holding it, so that
/// `rest ⊕ offset = setup ⊕ animation` field by field and a sampled pose is the one
/// DragonBones plays. Returns the rebased bones' names.
pub(super) fn rebase_clips(
    clips: &mut [Clip],
    skeleton: &Skeleton,
    setup: &[LocalTransform],
) -> Result<Vec<String>> {
    use ChannelKind as K;
    let mut rebased = Vec::new();
    for (j, s) in setup.iter().enumerate() {
        let b = skeleton.setup_local(j);
        let ratio = |num: f64, den: f64| if den != 0.0 { num / den } else { 1.0 };
        let deltas = [
            (K::TranslateX, s.x - b.x),
            (K::TranslateY, s.y - b.y),
            (K::Rotation, wrap_degrees(s.rotation - b.rotation)),
            (K::ScaleX, ratio(s.scale_x, b.scale_x)),
            (K::ScaleY, ratio(s.scale_y, b.scale_y)),
            (K::ShearX, s.shear_x - b.shear_x),
            (K::ShearY, s.shear_y - b.shear_y),
        ];
        let moved: Vec<(K, f64)> = deltas
            .into_iter()
            .filter(|&(k, d)| (d - k.rest_value()).abs() > SAME_LOCAL)
            .collect();
        if moved.is_empty() {
            continue;
        }
        let name = &skeleton.bones()[j].name;
        rebased.push(name.clone());
        for clip in clips.iter_mut() {
            let i = match clip.tracks.iter().position(|t| &t.bone == name) {
                Some(i) => i,
                None => {
                    clip.tracks.push(BoneTrack::new(name.clone()));
                    clip.tracks.len() - 1
                }
            };
            let channels = &mut clip.tracks[i].channels;
            for &(kind, d) in &moved {
                let slot = channels.get_mut(kind);
                let channel = slot
                    .get_or_insert_with(|| Channel::new(vec![Key::new(0.0, kind.rest_value())]));
                for k in &mut channel.keys {
                    match kind {
                        K::ScaleX | K::ScaleY => k.value *= d,
                        _ => k.value += d,
                    }
                }
            }
        }
    }
    Ok(rebased)
}

/// `d` in degrees brought into `(-180, 180]`.
fn wrap_degrees(d: f64) -> f64 {
    let w = d - 360.0 * (d / 360.0).round();
    if w <= -180.0 {
        w + 360.0
    } else {
        w
    }
}

/// The frame rate at which every key time and duration of `clips` lands on a whole frame
/// (within 1e-6 frames), from [`EXPORT_FRAME_RATES`]; `preferred` first when given.
pub(super) fn export_rate(clips: &[Clip], preferred: Option<f64>) -> Result<f64> {
    let on_frames = |rate: f64| {
        clips.iter().all(|c| {
            std::iter::once(c.duration)
                .chain(c.key_times())
                .all(|t| ((t * rate) - (t * rate).round()).abs() < 1e-6)
        })
    };
    preferred
        .into_iter()
        .chain(EXPORT_FRAME_RATES)
        .find(|&r| on_frames(r))
        .ok_or_else(|| Error::DragonBones {
            context: "export".into(),
            field: "animation".into(),
            vertex: None,
            message: format!(
                "the clips' key times do not all land on frames at any of {EXPORT_FRAME_RATES:?} fps"
            ),
        })
}

/// The clips as DragonBones animations at `rate` frames per second.
pub(super) fn write_clips(clips: &[Clip], rate: f64) -> Result<Vec<Value>> {
    clips.iter().map(|c| write_clip(c, rate)).collect()
}

fn write_clip(clip: &Clip, rate: f64) -> Result<Value> {
    let err = |bone: &str, message: String| Error::DragonBones {
        context: format!("export clip {:?} bone {bone:?}", clip.name),
        field: "animation".into(),
        vertex: None,
        message,
    };
    let frame = |t: f64| (t * rate).round();
    let total = frame(clip.duration);
    let mut bones = Vec::new();
    for track in &clip.tracks {
        use ChannelKind as K;
        let ch = &track.channels;
        if ch.shear_x.is_some() {
            return Err(err(
                &track.bone,
                "a shear_x channel has no DragonBones timeline".into(),
            ));
        }
        let mut o = json!({"name": track.bone});
        let groups: [(&str, [K; 2], [&str; 2]); 3] = [
            ("translateFrame", [K::TranslateX, K::TranslateY], ["x", "y"]),
            ("rotateFrame", [K::Rotation, K::ShearY], ["rotate", "skew"]),
            ("scaleFrame", [K::ScaleX, K::ScaleY], ["x", "y"]),
        ];
        for (field, kinds, names) in groups {
            let a = ch.get(kinds[0]);
            let b = ch.get(kinds[1]);
            if a.is_none() && b.is_none() {
                continue;
            }
            let merged = merge(a, b, kinds).map_err(|m| err(&track.bone, m))?;
            let mut list = Vec::with_capacity(merged.len());
            let mut previous_rotate: Option<f64> = None;
            for (i, (t, [va, vb], curve)) in merged.iter().enumerate() {
                let next = merged.get(i + 1).map_or(total, |m| frame(m.0));
                let mut f = json!({"duration": (next - frame(*t)).max(0.0)});
                let (va, vb) = match field {
                    "translateFrame" => (*va, -*vb),
                    "rotateFrame" => (-*va, -*vb),
                    _ => (*va, *vb),
                };
                if field == "rotateFrame" {
                    if let Some(p) = previous_rotate {
                        if (va - p).abs() > 180.0 {
                            return Err(err(
                                &track.bone,
                                format!(
                                    "rotation keys at {t} s turn {}° from the previous: DragonBones takes the short way round",
                                    va - p
                                ),
                            ));
                        }
                    }
                    previous_rotate = Some(va);
                }
                f[names[0]] = json!(va);
                f[names[1]] = json!(vb);
                match curve {
                    Curve::Stepped => {}
                    Curve::Linear => f["tweenEasing"] = json!(0),
                    Curve::Easing(Easing::EaseOut) => f["tweenEasing"] = json!(1),
                    Curve::Easing(Easing::EaseIn) => f["tweenEasing"] = json!(-1),
                    Curve::Bezier { x1, y1, x2, y2 } => f["curve"] = json!([x1, y1, x2, y2]),
                    other => {
                        return Err(err(
                            &track.bone,
                            format!("curve {other:?} at {t} s has no DragonBones form"),
                        ))
                    }
                }
                list.push(f);
            }
            o[field] = Value::Array(list);
        }
        bones.push(o);
    }
    Ok(json!({"name": clip.name, "duration": total, "playTimes": 0, "bone": bones}))
}

/// Two channels written as one frame list. Channels with the same key times (every
/// DragonBones import) zip key by key and must share each key's curve; an absent channel
/// holds its rest value. Otherwise both must be all linear or all stepped (which split
/// exactly at the other's key times) and are sampled at the union of their times.
#[allow(clippy::type_complexity)]
fn merge(
    a: Option<&Channel>,
    b: Option<&Channel>,
    kinds: [ChannelKind; 2],
) -> std::result::Result<Vec<(f64, [f64; 2], Curve)>, String> {
    let (x, y) = match (a, b) {
        (Some(x), None) => {
            let r = kinds[1].rest_value();
            return Ok(x
                .keys
                .iter()
                .map(|k| (k.time, [k.value, r], k.curve))
                .collect());
        }
        (None, Some(y)) => {
            let r = kinds[0].rest_value();
            return Ok(y
                .keys
                .iter()
                .map(|k| (k.time, [r, k.value], k.curve))
                .collect());
        }
        (Some(x), Some(y)) => (x, y),
        (None, None) => return Ok(Vec::new()),
    };
    let same_times =
        x.keys.len() == y.keys.len() && x.keys.iter().zip(&y.keys).all(|(p, q)| p.time == q.time);
    if same_times {
        return x
            .keys
            .iter()
            .zip(&y.keys)
            .map(|(p, q)| {
                if p.curve == q.curve {
                    Ok((p.time, [p.value, q.value], p.curve))
                } else {
                    Err(format!(
                        "{} and {} keys at {} s have different curves ({:?}, {:?})",
                        kinds[0].name(),
                        kinds[1].name(),
                        p.time,
                        p.curve,
                        q.curve
                    ))
                }
            })
            .collect();
    }
    let all = |c: Curve| x.keys.iter().chain(&y.keys).all(|k| k.curve == c);
    let curve = [Curve::Linear, Curve::Stepped]
        .into_iter()
        .find(|&c| all(c))
        .ok_or_else(|| {
            format!(
                "{} and {} have keys at different times and curves other than all linear or all stepped",
                kinds[0].name(),
                kinds[1].name()
            )
        })?;
    let mut times: Vec<f64> = x.keys.iter().chain(&y.keys).map(|k| k.time).collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    let jumps = |c: &Channel| c.keys.windows(2).any(|w| w[0].time == w[1].time);
    if jumps(x) || jumps(y) {
        return Err(format!(
            "{} or {} jumps (two keys at one time) at times the other has no key",
            kinds[0].name(),
            kinds[1].name()
        ));
    }
    Ok(times
        .into_iter()
        .map(|t| {
            let v = [x.sample(t).unwrap_or(0.0), y.sample(t).unwrap_or(0.0)];
            (t, v, curve)
        })
        .collect())
}
