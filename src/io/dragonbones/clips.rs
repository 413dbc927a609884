//! DragonBones 5.5 animations ↔ [`Clip`]s (the armature's `animation` list, bone timelines).
//!
//! Read as DragonBones' format documentation describes them:
//!
//! - Times are frames at the armature's `frameRate` (the file's top-level `frameRate`, else
//!   24; a rate of 0 reads as 24, as DragonBones plays it); an animation's `duration` and every frame's `duration` count frames. A frame's key
//!   time is the sum of the earlier frames' durations.
//! - `translateFrame` `{x, y}` (default 0) adds to the bone's setup position in its parent's
//!   frame; `rotateFrame` `{rotate, skew}` (degrees, default 0) adds to its rotation and skew;
//!   `scaleFrame` `{x, y}` (default 1) multiplies its scale. The older `frame` list holds a
//!   whole `transform` `{x, y, skX, skY, scX, scY}` per frame (rotation `skY`, skew
//!   `skX - skY`) and fills every channel.
//! - y-down to y-up: `translate_y = -y`, `rotation = -rotate`, `shear_y = -skew`; scales keep
//!   their values.
//! - Consecutive rotation keys take the short way round (DragonBones normalizes each
//!   difference to ±180°), so the importer unwraps them; a key's `clockwise` (5.5) or
//!   `tweenRotate` (the `frame` list) `n ≠ 0` turns to the next key in n's direction instead
//!   (positive: clockwise on the y-down screen), with up to |n| - 1 extra full turns
//!   (see `unwrap_turns`).
//! - `curve` is a cubic Bézier timing curve already normalized to the segment: `[x1, y1, x2,
//!   y2]` → [`Curve::Bezier`]; a longer array joins several pieces (`4 + 6k` numbers: per
//!   further piece its start point, then its two control points), and the segment is split
//!   into one key per piece, each piece's Bézier normalized to its own span (exact). Else
//!   `tweenEasing`: absent or `null` → [`Curve::Stepped`], `0` → linear, `e ≤ 1` →
//!   DragonBones' quadratic blend `u + e·u(1-u)` (ease out for `e > 0`, ease in for
//!   `e < 0`), which is exactly the Bézier `(1/3, (1+e)/3, 2/3, (2+e)/3)`; `e` in `(1, 2]`
//!   blends in a sine in-out, `u + (e-1)(½(1 - cos πu) - u)`, approximated by a Bézier
//!   within 0.3% of the segment (noted).
//! - Slot (display, colour), mesh deform (`ffd`), draw order (`zOrder`), IK, surface and
//!   5.6+ value (`timeline`) timelines and event frames are not applied (noted), nor are IK
//!   constraints.

use crate::animation::{BoneTrack, Channel, ChannelKind, Clip, Curve, Easing, Key, MAX_KEYS};
use crate::error::{ClipError, Error, FormatError, Result, RigFormat};
use crate::io::angles::wrap_degrees;
use crate::io::json_path::JsonAt;
use crate::skeleton::{LocalTransform, Skeleton};
use serde_json::{json, Value};

/// The frame rate DragonBones assumes when a file gives none.
pub const DEFAULT_FRAME_RATE: f64 = 24.0;

/// Frame rates the exporter tries, in order, for clips whose key times must land on frames.
pub const EXPORT_FRAME_RATES: [f64; 8] = [24.0, 25.0, 30.0, 48.0, 50.0, 60.0, 120.0, 240.0];

/// Parses every animation's bone timelines into clips (not yet checked against the skeleton);
/// what is approximated or not applied goes to `notes`.
pub(super) fn parse_clips(
    root: &Value,
    armature: &Value,
    notes: &mut Vec<String>,
) -> Result<Vec<Clip>> {
    let top = JsonAt::dragonbones("armature");
    let mut rate = match armature.get("frameRate") {
        Some(v) if !v.is_null() => top.number_or(armature, "frameRate", DEFAULT_FRAME_RATE)?,
        _ => JsonAt::dragonbones("file").number_or(root, "frameRate", DEFAULT_FRAME_RATE)?,
    };
    // Exports with a frame rate of 0 exist; DragonBones plays them at its default rate.
    if rate == 0.0 {
        notes.push(format!(
            "frameRate 0 read as {DEFAULT_FRAME_RATE}, as DragonBones plays it"
        ));
        rate = DEFAULT_FRAME_RATE;
    }
    if !(rate > 0.0 && rate <= 1e4) {
        return Err(top.error("frameRate", format!("{rate} must be in (0, 10000]")));
    }
    let Some(list) = armature.get("animation") else {
        return Ok(Vec::new());
    };
    let list = list
        .as_array()
        .ok_or_else(|| top.error("animation", "expected an array"))?;
    let mut reader = Reader::default();
    let mut clips = Vec::with_capacity(list.len());
    for (i, a) in list.iter().enumerate() {
        let ctx = format!("animation {i}");
        let at = JsonAt::dragonbones(&ctx);
        at.object(a, "animation")?;
        let name = at.string(a, "name")?;
        let ctx = format!("animation {name:?}");
        let at = JsonAt::dragonbones(&ctx);
        let frames = at.number_or(a, "duration", 0.0)?;
        if frames < 0.0 {
            return Err(at.error("duration", format!("{frames} frames is negative")));
        }
        reader.unapplied(&name, a);
        let mut clip = Clip::new(name.clone(), frames / rate);
        if let Some(bones) = a.get("bone") {
            let bones = bones
                .as_array()
                .ok_or_else(|| at.error("bone", "expected an array"))?;
            for (b, timeline) in bones.iter().enumerate() {
                let bone = at.string(timeline, "name").map_err(|e| {
                    super::parse::with_context(e, format!("animation {name:?} bone timeline {b}"))
                })?;
                let ctx = format!("animation {name:?} bone {bone:?}");
                let at = JsonAt::dragonbones(&ctx);
                let track = reader.track(&at, timeline, bone, rate, &name)?;
                clip.tracks.push(track);
            }
        }
        clips.push(clip);
    }
    reader.notes(armature, notes);
    Ok(clips)
}

/// A quadratic-to-sine in-out blend DragonBones applies for `tweenEasing` in `(1, 2]`,
/// `u + k·(½(1 - cos πu) - u)`, is no cubic Bézier; `½(1 - cos πu)` is within 0.003 of the
/// Bézier with control values `SINE_IN_OUT` and `1 - SINE_IN_OUT` at times 1/3 and 2/3 (the
/// best such value, found by a scan of the maximum error), and the blend of it with the
/// straight line is then exact in the Bézier's control values.
const SINE_IN_OUT: f64 = -0.0288;

/// What reading the timelines carries from one to the next: the key count (against
/// [`MAX_KEYS`]), and what was approximated or not applied, for the notes.
#[derive(Default)]
struct Reader {
    keys: usize,
    /// Segments with a sine in-out `tweenEasing` (approximated by a Bézier).
    sine: usize,
    /// Pieces of several-piece `curve`s whose control times left their piece (clamped), or
    /// that bulge between two equal values (made flat).
    approximated_pieces: usize,
    /// Segments split at the joins of several-piece `curve`s.
    split: usize,
    /// Timeline kinds not applied: label -> animations.
    not_applied: std::collections::BTreeMap<String, Vec<String>>,
}

/// One frame: its start time (s), its tween to the next frame, and the raw frame.
struct Frame<'v> {
    time: f64,
    tween: Tween,
    raw: &'v Value,
}

/// A frame's tween to the next frame: one clip curve from the frame, then (several-piece
/// `curve`s) each join `(time, value)` (fractions of the segment) with the curve of the
/// piece that starts there.
#[derive(Clone)]
struct Tween {
    first: Curve,
    joins: Vec<([f64; 2], Curve)>,
}

impl From<Curve> for Tween {
    fn from(first: Curve) -> Self {
        Tween {
            first,
            joins: Vec::new(),
        }
    }
}

impl Reader {
    /// Records the timeline kinds of animation `a` that the clip model does not apply.
    fn unapplied(&mut self, name: &str, a: &Value) {
        for (key, label) in [
            ("slot", "slot (display, colour) timelines"),
            ("ffd", "mesh deform (ffd) timelines"),
            ("deform", "mesh deform timelines"),
            ("zOrder", "draw order (zOrder) timelines"),
            ("ik", "IK timelines"),
            ("frame", "event and sound frames"),
            ("surface", "surface timelines"),
            ("timeline", "value timelines (5.6 and later)"),
        ] {
            if a.get(key).is_some_and(|v| !v.is_null()) {
                self.not_applied
                    .entry(label.to_string())
                    .or_default()
                    .push(name.to_string());
            }
        }
    }

    /// The notes of what was approximated or not applied.
    fn notes(self, armature: &Value, notes: &mut Vec<String>) {
        if self.split > 0 {
            notes.push(format!(
                "{} segments with a several-piece Bézier curve were split into one key per piece",
                self.split
            ));
        }
        if self.approximated_pieces > 0 {
            notes.push(format!(
                "{} Bézier pieces had control times outside their piece (clamped) or bulged between equal values (made flat)",
                self.approximated_pieces
            ));
        }
        if self.sine > 0 {
            notes.push(format!(
                "{} segments ease with DragonBones' sine in-out blend (tweenEasing above 1): approximated by a Bézier within 0.3% of the segment",
                self.sine
            ));
        }
        let ik = armature
            .get("ik")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if ik > 0 {
            notes.push(format!("{ik} IK constraints not applied"));
        }
        for (label, anims) in self.not_applied {
            notes.push(format!("{label} not applied: {}", anims.join(", ")));
        }
    }

    /// The frames of `field` of a timeline: start times and tweens.
    fn frames<'v>(
        &mut self,
        at: &JsonAt,
        timeline: &'v Value,
        field: &str,
        rate: f64,
        clip: &str,
    ) -> Result<Vec<Frame<'v>>> {
        let Some(list) = timeline.get(field) else {
            return Ok(Vec::new());
        };
        let list = list
            .as_array()
            .ok_or_else(|| at.error(field, "expected an array"))?;
        self.keys = self.keys.saturating_add(list.len());
        if self.keys > MAX_KEYS {
            return Err(ClipError::TooManyKeys {
                clip: clip.to_string(),
                count: self.keys,
                max: MAX_KEYS,
            }
            .into());
        }
        let mut start = 0.0_f64;
        let mut out = Vec::with_capacity(list.len());
        for (i, f) in list.iter().enumerate() {
            let fld = format!("{field}[{i}]");
            at.object(f, &fld)?;
            let d = at
                .number_or(f, "duration", 1.0)
                .map_err(|_| at.error(&format!("{fld}.duration"), "expected a number"))?;
            if d < 0.0 {
                return Err(at.error(
                    &format!("{fld}.duration"),
                    format!("{d} frames is negative"),
                ));
            }
            out.push(Frame {
                time: start / rate,
                tween: self.tween(at, f, &fld)?,
                raw: f,
            });
            start += d;
        }
        Ok(out)
    }

    /// A frame's tween to the next frame (see the module documentation).
    fn tween(&mut self, at: &JsonAt, f: &Value, fld: &str) -> Result<Tween> {
        if let Some(c) = f.get("curve").filter(|c| !c.is_null()) {
            return self.curve(at, c, &format!("{fld}.curve"));
        }
        let field = format!("{fld}.tweenEasing");
        let e = match f.get("tweenEasing") {
            None | Some(Value::Null) => return Ok(Curve::Stepped.into()),
            Some(v) => v
                .as_f64()
                .filter(|e| e.is_finite())
                .ok_or_else(|| at.error(&field, format!("expected a number, found {v}")))?,
        };
        // Quadratic in and out (`e` in [-1, 1], and beyond -1, a stronger ease in) are the
        // Bézier `(1/3, (1+e)/3, 2/3, (2+e)/3)` exactly; above 1 the sine blend is not.
        let (y1, y2) = if e <= 1.0 {
            ((1.0 + e) / 3.0, (2.0 + e) / 3.0)
        } else if e <= 2.0 {
            self.sine += 1;
            let k = e - 1.0;
            (
                (1.0 - k) / 3.0 + k * SINE_IN_OUT,
                (1.0 - k) * 2.0 / 3.0 + k * (1.0 - SINE_IN_OUT),
            )
        } else {
            return Err(at.error(
                &field,
                format!("{e}: DragonBones' easings run from -1 (and below) to 2"),
            ));
        };
        Ok(if e == 0.0 {
            Curve::Linear
        } else if e == 1.0 {
            Curve::Easing(Easing::EaseOut)
        } else if e == -1.0 {
            Curve::Easing(Easing::EaseIn)
        } else {
            Curve::Bezier {
                x1: 1.0 / 3.0,
                y1,
                x2: 2.0 / 3.0,
                y2,
            }
        }
        .into())
    }

    /// A `curve`: Bézier pieces normalized to the segment, `[x1, y1, x2, y2]` then, per
    /// further piece, its start `x, y` and its controls (`4 + 6k` numbers; the first piece
    /// starts at (0, 0), the last ends at (1, 1)). Each piece becomes its own key segment.
    fn curve(&mut self, at: &JsonAt, c: &Value, field: &str) -> Result<Tween> {
        let arr = c
            .as_array()
            .ok_or_else(|| at.error(field, "expected an array"))?;
        let n: Vec<f64> = arr
            .iter()
            .filter_map(Value::as_f64)
            .filter(|x| x.is_finite())
            .collect();
        if n.len() != arr.len() || n.len() < 4 || (n.len() - 4) % 6 != 0 {
            return Err(at.error(
                field,
                format!(
                    "{} entries: expected Bézier pieces, 4 + 6k finite numbers",
                    arr.len()
                ),
            ));
        }
        // The pieces' end points: (0, 0), the joins, (1, 1).
        let mut points = vec![[0.0, 0.0]];
        points.extend(n[4..].chunks_exact(6).map(|p| [p[0], p[1]]));
        points.push([1.0, 1.0]);
        if points.windows(2).any(|w| w[1][0] <= w[0][0]) {
            return Err(at.error(
                field,
                "the pieces' joins must lie strictly inside the segment, in time order",
            ));
        }
        let controls = std::iter::once(&n[..4]).chain(n[4..].chunks_exact(6).map(|p| &p[2..]));
        let mut curves = Vec::with_capacity(points.len() - 1);
        for (w, c) in points.windows(2).zip(controls) {
            let ([x0, y0], [x3, y3]) = (w[0], w[1]);
            let (dx, dy) = (x3 - x0, y3 - y0);
            let (x1, x2) = ((c[0] - x0) / dx, (c[2] - x0) / dx);
            let curve = if dy == 0.0 {
                // A flat piece: DragonBones may bulge there; the clip model holds the value.
                if c[1] != y0 || c[3] != y0 {
                    self.approximated_pieces += 1;
                }
                Curve::Linear
            } else {
                if !(0.0..=1.0).contains(&x1) || !(0.0..=1.0).contains(&x2) {
                    if n.len() == 4 {
                        return Err(at.error(
                            field,
                            format!("control times {} and {} must lie in [0, 1]", n[0], n[2]),
                        ));
                    }
                    self.approximated_pieces += 1;
                }
                Curve::Bezier {
                    x1: x1.clamp(0.0, 1.0),
                    y1: (c[1] - y0) / dy,
                    x2: x2.clamp(0.0, 1.0),
                    y2: (c[3] - y0) / dy,
                }
            };
            curves.push(curve);
        }
        self.split += usize::from(curves.len() > 1);
        let mut curves = curves.into_iter();
        let first = curves.next().unwrap_or(Curve::Linear);
        Ok(Tween {
            first,
            joins: points[1..points.len() - 1]
                .iter()
                .copied()
                .zip(curves)
                .collect(),
        })
    }

    /// One bone's timelines as a track: `translateFrame`, `rotateFrame`, `scaleFrame`, or
    /// the older whole-transform `frame` list.
    fn track(
        &mut self,
        at: &JsonAt,
        timeline: &Value,
        bone: String,
        rate: f64,
        clip: &str,
    ) -> Result<BoneTrack> {
        use ChannelKind as K;
        let mut track = BoneTrack::new(bone);
        let values = |frames: &[Frame], list: &str, name: &str, default: f64, sign: f64| {
            frame_values(at, frames, list, name, default, sign)
        };
        let tr = self.frames(at, timeline, "translateFrame", rate, clip)?;
        let x = values(&tr, "translateFrame", "x", 0.0, 1.0)?;
        set_channel(&mut track, K::TranslateX, &tr, x);
        let y = values(&tr, "translateFrame", "y", 0.0, -1.0)?;
        set_channel(&mut track, K::TranslateY, &tr, y);
        let ro = self.frames(at, timeline, "rotateFrame", rate, clip)?;
        let turns = values(&ro, "rotateFrame", "clockwise", 0.0, 1.0)?;
        let rotate = values(&ro, "rotateFrame", "rotate", 0.0, 1.0)?;
        set_channel(
            &mut track,
            K::Rotation,
            &ro,
            unwrap_turns(&rotate, &turns, -1.0),
        );
        let skew = values(&ro, "rotateFrame", "skew", 0.0, -1.0)?;
        if skew.iter().any(|&s| s != 0.0) {
            set_channel(&mut track, K::ShearY, &ro, skew);
        }
        let sc = self.frames(at, timeline, "scaleFrame", rate, clip)?;
        let x = values(&sc, "scaleFrame", "x", 1.0, 1.0)?;
        set_channel(&mut track, K::ScaleX, &sc, x);
        let y = values(&sc, "scaleFrame", "y", 1.0, 1.0)?;
        set_channel(&mut track, K::ScaleY, &sc, y);
        let old = self.frames(at, timeline, "frame", rate, clip)?;
        if old.is_empty() {
            return Ok(track);
        }
        if !(tr.is_empty() && ro.is_empty() && sc.is_empty()) {
            return Err(at.error(
                "frame",
                "both a `frame` list and translate/rotate/scale frames",
            ));
        }
        set_transform_channels(&mut track, at, &old)?;
        Ok(track)
    }
}

/// A field of every frame (`default` when absent), `sign` applied (y down to y up); `list`
/// names the frames' list in errors.
fn frame_values(
    at: &JsonAt,
    frames: &[Frame],
    list: &str,
    name: &str,
    default: f64,
    sign: f64,
) -> Result<Vec<f64>> {
    frames
        .iter()
        .enumerate()
        .map(|(i, f)| {
            at.number_or(f.raw, name, default)
                .map(|x| sign * x)
                .map_err(|_| at.error(&format!("{list}[{i}].{name}"), "expected a finite number"))
        })
        .collect::<Result<Vec<f64>>>()
}

/// Sets channel `kind` of `track` to keys from `frames` and their `values` (none without
/// frames).
fn set_channel(track: &mut BoneTrack, kind: ChannelKind, frames: &[Frame], values: Vec<f64>) {
    if !frames.is_empty() {
        *track.channels.get_mut(kind) = Some(Channel::new(keys(frames, &values)));
    }
}

/// Sets the channels of the older whole-transform frames `old`: translation, rotation
/// `skY`, shear `skX - skY` (when not all zero) and scale.
fn set_transform_channels(track: &mut BoneTrack, at: &JsonAt, old: &[Frame]) -> Result<()> {
    use ChannelKind as K;
    let empty = json!({});
    let transforms: Vec<Frame> = old
        .iter()
        .map(|f| Frame {
            time: f.time,
            tween: f.tween.clone(),
            raw: f.raw.get("transform").unwrap_or(&empty),
        })
        .collect();
    let field = |name: &str, default: f64, sign: f64| {
        frame_values(at, &transforms, "frame.transform", name, default, sign)
    };
    let (sky, skx) = (field("skY", 0.0, 1.0)?, field("skX", 0.0, 1.0)?);
    let turns = frame_values(at, old, "frame", "tweenRotate", 0.0, 1.0)?;
    set_channel(track, K::TranslateX, old, field("x", 0.0, 1.0)?);
    set_channel(track, K::TranslateY, old, field("y", 0.0, -1.0)?);
    set_channel(track, K::Rotation, old, unwrap_turns(&sky, &turns, -1.0));
    let skew: Vec<f64> = skx.iter().zip(&sky).map(|(x, y)| -(x - y)).collect();
    if skew.iter().any(|&s| s != 0.0) {
        set_channel(track, K::ShearY, old, skew);
    }
    set_channel(track, K::ScaleX, old, field("scX", 1.0, 1.0)?);
    set_channel(track, K::ScaleY, old, field("scY", 1.0, 1.0)?);
    Ok(())
}

/// A channel's keys from its frames and their values: a key per frame, and a key at each
/// join of a several-piece curve (its time and value that fraction of the way to the next
/// frame's), each segment with its piece's curve.
fn keys(frames: &[Frame], values: &[f64]) -> Vec<Key> {
    let mut out = Vec::with_capacity(frames.len());
    for (i, f) in frames.iter().enumerate() {
        out.push(Key::new(f.time, values[i]).with_curve(f.tween.first));
        let Some(next) = frames.get(i + 1) else {
            continue;
        };
        let (dt, dv) = (next.time - f.time, values[i + 1] - values[i]);
        for &([x, y], curve) in &f.tween.joins {
            out.push(Key::new(f.time + x * dt, values[i] + y * dv).with_curve(curve));
        }
    }
    out
}

/// Rotation keys (degrees, y down) as DragonBones turns between them, then times `sign`: the
/// short way round (each difference brought into ±180°), or after a key with `turns` = n ≠ 0
/// (`clockwise` in 5.5, `tweenRotate` before) in n's direction (positive: clockwise on the
/// y-down screen, increasing angles), with |n| - 1 extra full turns when the next key already
/// lies that way and |n| otherwise. The first key is taken as written.
fn unwrap_turns(raw: &[f64], turns: &[f64], sign: f64) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::with_capacity(raw.len());
    for (i, &r) in raw.iter().enumerate() {
        let deg = match i.checked_sub(1) {
            None => r,
            Some(q) => {
                let (p, n) = (out[q], turns[q]);
                if n == 0.0 {
                    p + wrap_degrees(r - p)
                } else {
                    let ahead = if n > 0.0 { r >= p } else { r <= p };
                    r + 360.0 * if ahead { n - n.signum() } else { n }
                }
            }
        };
        out.push(deg);
    }
    out.iter_mut().for_each(|d| *d *= sign);
    out
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
        .ok_or_else(|| Error::Format(FormatError::Rig { format: RigFormat::DRAGONBONES,
            context: "export".into(),
            field: "animation".into(),
            vertex: None,
            message: format!(
                "the clips' key times do not all land on frames at any of {EXPORT_FRAME_RATES:?} fps"
            ),
        }))
}

/// The clips as DragonBones animations at `rate` frames per second.
pub(super) fn write_clips(clips: &[Clip], rate: f64) -> Result<Vec<Value>> {
    clips.iter().map(|c| write_clip(c, rate)).collect()
}

fn write_clip(clip: &Clip, rate: f64) -> Result<Value> {
    let err = |bone: &str, message: String| {
        Error::Format(FormatError::Rig {
            format: RigFormat::DRAGONBONES,
            context: format!("export clip {:?} bone {bone:?}", clip.name),
            field: "animation".into(),
            vertex: None,
            message,
        })
    };
    let total = frame_number(clip.duration, rate);
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
            let list = timeline_frames(&merged, field, names, rate, total)
                .map_err(|m| err(&track.bone, m))?;
            o[field] = Value::Array(list);
        }
        bones.push(o);
    }
    Ok(json!({"name": clip.name, "duration": total, "playTimes": 0, "bone": bones}))
}

/// The frame time `t` (seconds) falls on at `rate` frames per second.
fn frame_number(t: f64, rate: f64) -> f64 {
    (t * rate).round()
}

/// The frames of timeline `field` (its two values named `names`) from the merged keys, each
/// lasting until the next key (the last until frame `total`). `Err`: why a key has no
/// DragonBones form.
fn timeline_frames(
    merged: &[(f64, [f64; 2], Curve)],
    field: &str,
    names: [&str; 2],
    rate: f64,
    total: f64,
) -> std::result::Result<Vec<Value>, String> {
    let frame = |t: f64| frame_number(t, rate);
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
                    return Err(format!(
                        "rotation keys at {t} s turn {}° from the previous: DragonBones takes the short way round",
                        va - p
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
            other => return Err(format!("curve {other:?} at {t} s has no DragonBones form")),
        }
        list.push(f);
    }
    Ok(list)
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
