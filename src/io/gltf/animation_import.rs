//! glTF animations on the skin's joint nodes read into the scene's clips.
//!
//! Each animation becomes a clip (named after it, `animation<i>` without a name) lasting
//! until its last key (or `extras.skinweights.duration` when that is longer, as the export
//! writes it). A channel on a joint node gives the bone's channels as offsets from
//! its setup pose (the bind pose of the inverse bind matrices), exactly as the scene's clips
//! hold them: `translation` the node translation moved into the parent bone's frame minus
//! the setup translation, `rotation` the quaternion's angle about z minus the setup angle
//! (degrees), `scale` the node scale's x and y. Samplers:
//!
//! - `LINEAR`: linear keys (glTF's slerp of quaternions about z turns at a constant rate the
//!   short way, which is a linear angle unwrapped to steps within ±180°: exact);
//! - `STEP`: stepped keys (exact);
//! - `CUBICSPLINE` (the spec's cubic Hermite with in / out tangents): translation and scale
//!   segments become Bézier curves with control points at 1/3 and 2/3 of the segment, the
//!   same cubic exactly (a segment whose ends are equal is split where the curve leaves that
//!   value, since the scene's Bézier is normalized to the change); rotation (the quaternion's
//!   components interpolated and normalized) is sampled into linear keys until every segment
//!   midpoint and quarter point lies within [`ROTATION_SAMPLING_TOLERANCE`] degrees.
//!
//! Malformed input is an error naming the animation and its channel or sampler: a target
//! node that does not exist, a sampler that does not exist, two channels on one property,
//! an unknown interpolation or path, input times that are negative, not finite or not
//! increasing ([`ClipError::InvalidKey`]), accessors of the wrong type or count (three per key
//! for `CUBICSPLINE`) or outside their buffers, non-finite values, zero quaternions. What is
//! valid glTF but has no 2D reading drops that clip with a note: a rotation about an axis
//! other than z, a node between joints (or above the root joint) that scales or turns out of
//! the plane. Channels on nodes that are not joints (`weights` paths, props) are left out
//! with a note.

use super::json::{AnimationJson, Doc, NodeJson, SamplerJson, SkinJson};
use super::reader::{Reader, Values, Want};
use super::{BYTE, FLOAT, SHORT, UNSIGNED_BYTE, UNSIGNED_SHORT};
use crate::animation::{BoneTrack, Channel, ChannelKind, Clip, Curve, Key, MAX_KEYS};
use crate::error::{ClipError, Error, Result};
use crate::io::angles::wrap_degrees_euclid;
use crate::skeleton::Skeleton;
use nalgebra::Vector2;
use serde_json::Value;
use std::collections::BTreeMap;

/// Largest distance (degrees) between a `CUBICSPLINE` rotation and its linear resampling at
/// the checked points of every segment.
pub const ROTATION_SAMPLING_TOLERANCE: f64 = 1e-4;

/// Most halvings of one `CUBICSPLINE` rotation segment while resampling (2^14 keys).
const MAX_SPLIT_DEPTH: u32 = 14;

/// A unit quaternion whose x or y exceeds this turns out of the plane.
const AXIS_TOLERANCE: f64 = 1e-6;

/// A node's static TRS further than this from the bind pose (translation relative to the
/// mesh size, angle in radians, scale) is held by constant channels.
const STATIC_TOLERANCE: f64 = 1e-5;

/// A node transform in the plane: translation, angle about z (radians), scale.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Planar {
    t: Vector2<f64>,
    angle: f64,
    s: Vector2<f64>,
}

impl Planar {
    const IDENTITY: Planar = Planar {
        t: Vector2::new(0.0, 0.0),
        angle: 0.0,
        s: Vector2::new(1.0, 1.0),
    };

    /// The node's static transform (`translation` / `rotation` / `scale` or `matrix`);
    /// `Err(message)` when it has no planar reading (the clip is dropped with a note).
    fn of_node(node: &NodeJson, index: usize) -> Result<std::result::Result<Planar, String>> {
        let at = |f: &str| format!("nodes[{index}].{f}");
        if let Some(m) = &node.matrix {
            let m: [f64; 16] = numbers(m, &at("matrix"))?;
            return Ok(planar_matrix(&m).ok_or_else(|| {
                format!("nodes[{index}].matrix is not a translation, rotation about z and scale")
            }));
        }
        let t: [f64; 3] = match &node.translation {
            Some(v) => numbers(v, &at("translation"))?,
            None => [0.0; 3],
        };
        let s: [f64; 3] = match &node.scale {
            Some(v) => numbers(v, &at("scale"))?,
            None => [1.0; 3],
        };
        let angle = match &node.rotation {
            Some(v) => {
                let q: [f64; 4] = numbers(v, &at("rotation"))?;
                match z_angle(q) {
                    Some(Ok(a)) => a,
                    Some(Err(())) => {
                        return Ok(Err(format!(
                            "nodes[{index}].rotation {q:?} turns about an axis other than z"
                        )))
                    }
                    None => return Err(Error::field(at("rotation"), "is a zero quaternion")),
                }
            }
            None => 0.0,
        };
        Ok(Ok(Planar {
            t: Vector2::new(t[0], t[1]),
            angle,
            s: Vector2::new(s[0], s[1]),
        }))
    }

    /// `self` followed by the rigid `child` (`self` must not scale).
    fn then(&self, child: &Planar) -> Planar {
        let (s, c) = self.angle.sin_cos();
        let r = Vector2::new(c * child.t.x - s * child.t.y, s * child.t.x + c * child.t.y);
        Planar {
            t: self.t + r,
            angle: self.angle + child.angle,
            s: child.s,
        }
    }

    fn is_rigid(&self) -> bool {
        (self.s.x - 1.0).abs() <= STATIC_TOLERANCE && (self.s.y - 1.0).abs() <= STATIC_TOLERANCE
    }
}

/// `N` finite numbers from a JSON array, or an error naming `field`.
fn numbers<const N: usize>(v: &Value, field: &str) -> Result<[f64; N]> {
    let bad = || Error::field(field, format!("{v} is not an array of {N} finite numbers"));
    let a = v.as_array().filter(|a| a.len() == N).ok_or_else(bad)?;
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(a) {
        *o = x.as_f64().filter(|x| x.is_finite()).ok_or_else(bad)?;
    }
    Ok(out)
}

/// A column-major 4x4 matrix as a planar TRS, when it is one (no z coupling, no shear).
fn planar_matrix(m: &[f64; 16]) -> Option<Planar> {
    let (a, c, b, d) = (m[0], m[1], m[4], m[5]);
    let off = [m[2], m[6], m[8], m[9], m[3], m[7], m[11]];
    let sx = a.hypot(c);
    if off.iter().any(|x| x.abs() > AXIS_TOLERANCE) || sx == 0.0 || (m[15] - 1.0).abs() > 1e-9 {
        return None;
    }
    let sy = (a * d - b * c) / sx;
    // No shear: the y column is the x column turned by 90 degrees and scaled.
    if (a * b + c * d).abs() > AXIS_TOLERANCE * sx * sy.abs().max(1e-300) {
        return None;
    }
    Some(Planar {
        t: Vector2::new(m[12], m[13]),
        angle: c.atan2(a),
        s: Vector2::new(sx, sy),
    })
}

/// The angle about z (radians, in (-2π, 2π]) of a quaternion `(x, y, z, w)`: `None` for a
/// zero quaternion, `Some(Err)` when it turns about another axis.
fn z_angle(q: [f64; 4]) -> Option<std::result::Result<f64, ()>> {
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    if n == 0.0 || !n.is_finite() {
        return None;
    }
    if q[0].abs() > AXIS_TOLERANCE * n || q[1].abs() > AXIS_TOLERANCE * n {
        return Some(Err(()));
    }
    Some(Ok(2.0 * q[2].atan2(q[3])))
}

/// What every clip's offsets are measured against, per joint.
struct JointRest {
    /// Per node, its joint index.
    joint_of_node: Vec<Option<usize>>,
    /// Per joint: the static transform of the non-joint nodes between its parent joint (or
    /// the scene root) and it, when it has a planar rigid reading.
    chain: Vec<std::result::Result<Planar, String>>,
    /// Per joint: its node's static transform.
    node: Vec<std::result::Result<Planar, String>>,
    /// Per joint: the setup translation (parent bone frame) and angle (degrees).
    setup: Vec<(Vector2<f64>, f64)>,
    /// Tolerance on translations: [`STATIC_TOLERANCE`] of the mesh size.
    length_tolerance: f64,
}

impl JointRest {
    fn new(doc: &Doc, skin: &SkinJson, skeleton: &Skeleton, size: f64) -> Result<Self> {
        let mut joint_of_node = vec![None; doc.nodes.len()];
        for (k, &n) in skin.joints.iter().enumerate() {
            joint_of_node[n] = Some(k);
        }
        // The hierarchy was checked to be a forest when the skeleton was read.
        let mut parent_of = vec![None; doc.nodes.len()];
        for (p, node) in doc.nodes.iter().enumerate() {
            for &c in &node.children {
                parent_of[c] = Some(p);
            }
        }
        let statics: Vec<_> = doc
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| Planar::of_node(n, i))
            .collect::<Result<_>>()?;
        let chain = skin
            .joints
            .iter()
            .map(|&n| {
                let mut at = parent_of[n];
                let mut m = Planar::IDENTITY;
                while let Some(p) = at.filter(|&p| joint_of_node[p].is_none()) {
                    let s = statics[p].clone()?;
                    if !s.is_rigid() {
                        return Err(format!(
                            "nodes[{p}] above joint node {n} scales by ({}, {})",
                            s.s.x, s.s.y
                        ));
                    }
                    m = s.then(&m);
                    at = parent_of[p];
                }
                Ok(m)
            })
            .collect();
        let setup = (0..skeleton.len())
            .map(|k| {
                let l = skeleton.setup_local(k);
                (Vector2::new(l.x, l.y), l.rotation)
            })
            .collect();
        let node = skin.joints.iter().map(|&n| statics[n].clone()).collect();
        Ok(JointRest {
            joint_of_node,
            chain,
            node,
            setup,
            length_tolerance: STATIC_TOLERANCE * size,
        })
    }

    /// Joint `k`'s translation offset for a node translation `t`, and the linear map of a
    /// tangent (the chain's rotation).
    fn translation_offset(&self, chain: &Planar, k: usize, t: Vector2<f64>) -> Vector2<f64> {
        chain
            .then(&Planar {
                t,
                ..Planar::IDENTITY
            })
            .t
            - self.setup[k].0
    }

    /// Joint `k`'s rotation offset (degrees, not wrapped) for a node angle (radians).
    fn rotation_offset(&self, chain: &Planar, k: usize, angle: f64) -> f64 {
        (chain.angle + angle).to_degrees() - self.setup[k].1
    }

    /// The constant channels that hold joint `k`'s static node values where they differ
    /// from the bind pose: (kind, value) pairs, for the groups (translation, rotation,
    /// scale) that `animated` does not cover.
    fn static_offsets(&self, k: usize, animated: [bool; 3]) -> Vec<(ChannelKind, f64)> {
        let (Ok(chain), Ok(node)) = (&self.chain[k], &self.node[k]) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let t = self.translation_offset(chain, k, node.t);
        if !animated[0] && t.norm() > self.length_tolerance {
            out.extend([
                (ChannelKind::TranslateX, t.x),
                (ChannelKind::TranslateY, t.y),
            ]);
        }
        let r = wrap_degrees_euclid(self.rotation_offset(chain, k, node.angle));
        if !animated[1] && r.to_radians().abs() > STATIC_TOLERANCE {
            out.push((ChannelKind::Rotation, r));
        }
        let s = node.s;
        if !animated[2]
            && ((s.x - 1.0).abs() > STATIC_TOLERANCE || (s.y - 1.0).abs() > STATIC_TOLERANCE)
        {
            out.extend([(ChannelKind::ScaleX, s.x), (ChannelKind::ScaleY, s.y)]);
        }
        out
    }
}

/// A channel's target property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Path {
    Translation,
    Rotation,
    Scale,
}

impl Path {
    fn name(self) -> &'static str {
        match self {
            Path::Translation => "translation",
            Path::Rotation => "rotation",
            Path::Scale => "scale",
        }
    }
}

/// A sampler's interpolation.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Interpolation {
    Linear,
    Step,
    CubicSpline,
}

/// A sampler's keys read and checked: times, and per key the value (and for
/// `CUBICSPLINE` the in and out tangents), `width` numbers each.
struct Samples {
    times: Vec<f64>,
    interpolation: Interpolation,
    /// Per key: [in-tangent, value, out-tangent] for `CUBICSPLINE`, [value] otherwise.
    output: Values,
}

impl Samples {
    fn value(&self, k: usize) -> &[f64] {
        match self.interpolation {
            Interpolation::CubicSpline => self.output.element(3 * k + 1),
            _ => self.output.element(k),
        }
    }
    fn in_tangent(&self, k: usize) -> &[f64] {
        self.output.element(3 * k)
    }
    fn out_tangent(&self, k: usize) -> &[f64] {
        self.output.element(3 * k + 2)
    }
}

/// Names an animation and a channel in errors and notes.
struct ChannelAt<'a> {
    clip: &'a str,
    animation: usize,
    channel: usize,
    sampler: usize,
    bone: &'a str,
    path: Path,
}

impl ChannelAt<'_> {
    fn invalid(&self, message: String) -> Error {
        Error::Clip(ClipError::InvalidClip {
            clip: self.clip.to_string(),
            message: format!(
                "animations[{}].channels[{}] ({} of bone {:?}): {message}",
                self.animation,
                self.channel,
                self.path.name(),
                self.bone
            ),
        })
    }
    fn key(&self, key: usize, message: String) -> Error {
        Error::Clip(ClipError::InvalidKey {
            clip: self.clip.to_string(),
            bone: self.bone.to_string(),
            channel: self.path.name(),
            key,
            message: format!(
                "animations[{}].samplers[{}]: {message}",
                self.animation, self.sampler
            ),
        })
    }
}

/// Reads sampler `s` of animation `a` for a channel on `at.path`.
fn read_samples(reader: &Reader, sampler: &SamplerJson, at: &ChannelAt) -> Result<Samples> {
    let role = format!(
        "animations[{}] {:?} samplers[{}]",
        at.animation, at.clip, at.sampler
    );
    let interpolation = match sampler.interpolation.as_str() {
        "LINEAR" => Interpolation::Linear,
        "STEP" => Interpolation::Step,
        "CUBICSPLINE" => Interpolation::CubicSpline,
        other => {
            return Err(at.invalid(format!(
                "samplers[{}].interpolation {other:?} (LINEAR, STEP or CUBICSPLINE)",
                at.sampler
            )))
        }
    };
    let times = reader
        .read(
            sampler.input,
            &Want {
                role: &format!("{role}.input"),
                kinds: &["SCALAR"],
                component_types: &[FLOAT],
                count: None,
                indices: false,
            },
        )?
        .data;
    // Refused before the outputs are read or any key is built (10^7 keys would otherwise
    // take gigabytes first).
    if times.len() > MAX_KEYS {
        return Err(ClipError::TooManyKeys {
            clip: at.clip.to_string(),
            count: times.len(),
            max: MAX_KEYS,
        }
        .into());
    }
    check_times(&times, at)?;
    let (per_key, why) = match interpolation {
        Interpolation::CubicSpline => (3, "in-tangent, value, out-tangent per input key"),
        _ => (1, "one per input key"),
    };
    let (kinds, types): (&[&str], &[u32]) = match at.path {
        Path::Rotation => (
            &["VEC4"],
            &[FLOAT, BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT],
        ),
        _ => (&["VEC3"], &[FLOAT]),
    };
    let output_role = format!("{role}.output");
    let output = reader.read(
        sampler.output,
        &Want {
            role: &output_role,
            kinds,
            component_types: types,
            count: Some((per_key * times.len(), why)),
            indices: false,
        },
    )?;
    if output.component_type != FLOAT && !reader.doc.accessors[sampler.output].normalized {
        return Err(Error::field(
            format!("accessors[{}].normalized", sampler.output),
            format!("false, but integer rotations ({output_role}) must be normalized"),
        ));
    }
    Ok(Samples {
        times,
        interpolation,
        output,
    })
}

/// Input times: at least one, >= 0 and strictly increasing, as the spec says.
fn check_times(times: &[f64], at: &ChannelAt) -> Result<()> {
    if times.is_empty() {
        return Err(at.invalid(format!("samplers[{}].input has no keys", at.sampler)));
    }
    if times[0] < 0.0 {
        return Err(at.key(0, format!("time {} is negative", times[0])));
    }
    if let Some(k) = (1..times.len()).find(|&k| times[k] <= times[k - 1]) {
        return Err(at.key(
            k,
            format!(
                "time {} does not come after the previous key's {} (input times must increase)",
                times[k],
                times[k - 1]
            ),
        ));
    }
    Ok(())
}

/// The scene channels of one glTF channel: `Err(message)` when it has no 2D reading.
type Converted = std::result::Result<Vec<(ChannelKind, Channel)>, String>;

/// Converts the samples of a channel on joint `k` into the scene's channels.
fn convert(samples: &Samples, k: usize, rest: &JointRest, at: &ChannelAt) -> Result<Converted> {
    let chain = match &rest.chain[k] {
        Ok(c) => *c,
        Err(m) => return Ok(Err(m.clone())),
    };
    match at.path {
        Path::Translation => Ok(Ok(vector_channels(
            samples,
            [ChannelKind::TranslateX, ChannelKind::TranslateY],
            |v| rest.translation_offset(&chain, k, Vector2::new(v[0], v[1])),
            |d| {
                chain
                    .then(&Planar {
                        t: Vector2::new(d[0], d[1]),
                        ..Planar::IDENTITY
                    })
                    .t
                    - chain.t
            },
        ))),
        Path::Scale => Ok(Ok(vector_channels(
            samples,
            [ChannelKind::ScaleX, ChannelKind::ScaleY],
            |v| Vector2::new(v[0], v[1]),
            |d| Vector2::new(d[0], d[1]),
        ))),
        Path::Rotation => rotation_channel(samples, k, &chain, rest, at),
    }
}

/// Two scalar channels from a VEC3 sampler: `value` maps a key's value to the offsets,
/// `tangent` a tangent (the linear part of `value`).
fn vector_channels(
    samples: &Samples,
    kinds: [ChannelKind; 2],
    value: impl Fn(&[f64]) -> Vector2<f64>,
    tangent: impl Fn(&[f64]) -> Vector2<f64>,
) -> Vec<(ChannelKind, Channel)> {
    let n = samples.times.len();
    let values: Vec<Vector2<f64>> = (0..n).map(|k| value(samples.value(k))).collect();
    kinds
        .iter()
        .enumerate()
        .map(|(c, &kind)| {
            let v: Vec<f64> = values.iter().map(|x| x[c]).collect();
            let keys = match samples.interpolation {
                Interpolation::Linear => plain_keys(&samples.times, &v, Curve::Linear),
                Interpolation::Step => plain_keys(&samples.times, &v, Curve::Stepped),
                Interpolation::CubicSpline => {
                    let a: Vec<f64> = (0..n).map(|k| tangent(samples.in_tangent(k))[c]).collect();
                    let b: Vec<f64> = (0..n).map(|k| tangent(samples.out_tangent(k))[c]).collect();
                    hermite_keys(&samples.times, &v, &a, &b)
                }
            };
            (kind, Channel::new(keys))
        })
        .collect()
}

fn plain_keys(times: &[f64], values: &[f64], curve: Curve) -> Vec<Key> {
    times
        .iter()
        .zip(values)
        .map(|(&t, &v)| Key::new(t, v).with_curve(curve))
        .collect()
}

/// Keys holding the glTF cubic Hermite spline exactly: per segment the Bézier with control
/// values `v_k + b_k td / 3` and `v_{k+1} - a_{k+1} td / 3` at times 1/3 and 2/3 (the
/// Hermite cubic in Bézier form; its time is linear in the curve parameter).
fn hermite_keys(times: &[f64], v: &[f64], a: &[f64], b: &[f64]) -> Vec<Key> {
    let mut keys = Vec::with_capacity(times.len());
    for k in 0..times.len().saturating_sub(1) {
        let (t0, t1) = (times[k], times[k + 1]);
        let td = t1 - t0;
        let p = [
            v[k],
            v[k] + b[k] * td / 3.0,
            v[k + 1] - a[k + 1] * td / 3.0,
            v[k + 1],
        ];
        bezier_keys(t0, t1, p, 0, &mut keys);
    }
    let last = times.len() - 1;
    keys.push(Key::new(times[last], v[last]));
    keys
}

/// Pushes the key at `t0` of the cubic with control values `p` over `[t0, t1]` (control
/// times evenly spaced), splitting it where its end values are equal (the scene's Bézier is
/// a fraction of the change, which is then 0).
fn bezier_keys(t0: f64, t1: f64, p: [f64; 4], depth: u32, keys: &mut Vec<Key>) {
    let change = p[3] - p[0];
    let reach = (p[1] - p[0]).abs().max((p[2] - p[0]).abs());
    if reach == 0.0 && change == 0.0 {
        keys.push(Key::new(t0, p[0]));
        return;
    }
    if change.abs() > 1e-6 * reach || depth >= 4 {
        let curve = if change == 0.0 {
            Curve::Linear
        } else {
            Curve::Bezier {
                x1: 1.0 / 3.0,
                y1: (p[1] - p[0]) / change,
                x2: 2.0 / 3.0,
                y2: (p[2] - p[0]) / change,
            }
        };
        keys.push(Key::new(t0, p[0]).with_curve(curve));
        return;
    }
    // Split where the curve is furthest from its (equal) end values among a few points: a
    // cubic that is not constant leaves p[0] at one of any three interior points.
    let at = |s: f64| bezier(p, s);
    let s = [0.5, 0.25, 0.75]
        .into_iter()
        .max_by(|&x, &y| (at(x) - p[0]).abs().total_cmp(&(at(y) - p[0]).abs()))
        .unwrap_or(0.5);
    let (left, right) = split_bezier(p, s);
    let tm = t0 + s * (t1 - t0);
    bezier_keys(t0, tm, left, depth + 1, keys);
    bezier_keys(tm, t1, right, depth + 1, keys);
}

fn bezier(p: [f64; 4], s: f64) -> f64 {
    let r = 1.0 - s;
    r * r * r * p[0] + 3.0 * r * r * s * p[1] + 3.0 * r * s * s * p[2] + s * s * s * p[3]
}

/// De Casteljau's split of a cubic at `s`.
fn split_bezier(p: [f64; 4], s: f64) -> ([f64; 4], [f64; 4]) {
    let l = |a: f64, b: f64| a + (b - a) * s;
    let (q0, q1, q2) = (l(p[0], p[1]), l(p[1], p[2]), l(p[2], p[3]));
    let (r0, r1) = (l(q0, q1), l(q1, q2));
    let m = l(r0, r1);
    ([p[0], q0, r0, m], [m, r1, q2, p[3]])
}

/// The rotation channel of a quaternion sampler (see the module documentation).
fn rotation_channel(
    samples: &Samples,
    k: usize,
    chain: &Planar,
    rest: &JointRest,
    at: &ChannelAt,
) -> Result<Converted> {
    let n = samples.times.len();
    let quaternion = |q: &[f64], key: usize| -> Result<std::result::Result<f64, String>> {
        match z_angle([q[0], q[1], q[2], q[3]]) {
            None => Err(at.key(key, "the rotation is a zero quaternion".into())),
            Some(Err(())) => Ok(Err(format!(
                "animations[{}].channels[{}] key {key}: rotation {q:?} turns bone {:?} about an axis other than z",
                at.animation, at.channel, at.bone
            ))),
            Some(Ok(a)) => Ok(Ok(a)),
        }
    };
    let mut angles = Vec::with_capacity(n);
    for key in 0..n {
        match quaternion(samples.value(key), key)? {
            Ok(a) => angles.push(rest.rotation_offset(chain, k, a)),
            Err(m) => return Ok(Err(m)),
        }
    }
    unwrap_angles(&mut angles);
    let keys = match samples.interpolation {
        Interpolation::Linear => plain_keys(&samples.times, &angles, Curve::Linear),
        Interpolation::Step => plain_keys(&samples.times, &angles, Curve::Stepped),
        Interpolation::CubicSpline => {
            for key in 0..n {
                for t in [samples.in_tangent(key), samples.out_tangent(key)] {
                    if t[0].abs() > AXIS_TOLERANCE || t[1].abs() > AXIS_TOLERANCE {
                        return Ok(Err(format!(
                            "animations[{}].channels[{}] key {key}: a rotation tangent {t:?} of bone {:?} leaves the z axis",
                            at.animation, at.channel, at.bone
                        )));
                    }
                }
            }
            let offset = |angle: f64| rest.rotation_offset(chain, k, angle);
            match cubic_rotation_keys(samples, &angles, offset) {
                Some(keys) => keys,
                None => {
                    return Err(ClipError::TooManyKeys {
                        clip: at.clip.to_string(),
                        count: MAX_KEYS + 1,
                        max: MAX_KEYS,
                    }
                    .into())
                }
            }
        }
    };
    Ok(Ok(vec![(ChannelKind::Rotation, Channel::new(keys))]))
}

/// Each angle (degrees) moved by whole turns to within 180 degrees of the previous one (the
/// first into (-180, 180]): glTF interpolates quaternions the short way.
fn unwrap_angles(angles: &mut [f64]) {
    let Some(first) = angles.first_mut() else {
        return;
    };
    *first = wrap_degrees_euclid(*first);
    for k in 1..angles.len() {
        angles[k] = angles[k - 1] + wrap_degrees_euclid(angles[k] - angles[k - 1]);
    }
}

/// Linear keys sampling a `CUBICSPLINE` rotation; `angles` are the keys' unwrapped offsets,
/// `offset` turns a node angle (radians) into an offset. `None` past [`MAX_KEYS`].
fn cubic_rotation_keys(
    samples: &Samples,
    angles: &[f64],
    offset: impl Fn(f64) -> f64,
) -> Option<Vec<Key>> {
    let times = &samples.times;
    let mut keys = Vec::new();
    for k in 0..times.len() - 1 {
        let td = times[k + 1] - times[k];
        let (v0, v1) = (samples.value(k), samples.value(k + 1));
        let (b0, a1) = (samples.out_tangent(k), samples.in_tangent(k + 1));
        // The segment's angle offset at parameter s, unwrapped near `near`.
        let at = |s: f64, near: f64| {
            let h = hermite_basis(s);
            let c = |i: usize| h[0] * v0[i] + h[1] * td * b0[i] + h[2] * v1[i] + h[3] * td * a1[i];
            let a = offset(2.0 * c(2).atan2(c(3)));
            near + wrap_degrees_euclid(a - near)
        };
        let mut segment = vec![(0.0, angles[k]), (1.0, angles[k + 1])];
        refine(&mut segment, &at, 0);
        if keys.len() + segment.len() > MAX_KEYS {
            return None;
        }
        segment.pop();
        keys.extend(
            segment
                .into_iter()
                .map(|(s, a)| Key::new(times[k] + s * td, a)),
        );
    }
    keys.push(Key::new(times[times.len() - 1], angles[angles.len() - 1]));
    Some(keys)
}

/// The cubic Hermite basis `[h00, h10, h01, h11]` at `s` (the glTF spec's order: value,
/// out-tangent, next value, next in-tangent).
fn hermite_basis(s: f64) -> [f64; 4] {
    let (s2, s3) = (s * s, s * s * s);
    [
        2.0 * s3 - 3.0 * s2 + 1.0,
        s3 - 2.0 * s2 + s,
        -2.0 * s3 + 3.0 * s2,
        s3 - s2,
    ]
}

/// Halves the last span of `points` (parameter, angle) until its midpoint and quarter points
/// lie within [`ROTATION_SAMPLING_TOLERANCE`] of the line, recursively.
fn refine(points: &mut Vec<(f64, f64)>, at: &impl Fn(f64, f64) -> f64, depth: u32) {
    let (s1, a1) = points.pop().unwrap_or((1.0, 0.0));
    let &(s0, a0) = points.last().unwrap_or(&(0.0, 0.0));
    let line = |s: f64| a0 + (a1 - a0) * (s - s0) / (s1 - s0);
    let sm = 0.5 * (s0 + s1);
    let am = at(sm, 0.5 * (a0 + a1));
    let close = [0.25, 0.5, 0.75].into_iter().all(|f| {
        let s = s0 + f * (s1 - s0);
        (at(s, line(s)) - line(s)).abs() <= ROTATION_SAMPLING_TOLERANCE
    });
    if close || depth >= MAX_SPLIT_DEPTH {
        points.push((s1, a1));
        return;
    }
    points.push((sm, am));
    refine(points, at, depth + 1);
    points.push((s1, a1));
    refine(points, at, depth + 1);
}

/// The scene's clips from the document's animations; `size` is the mesh size. Notes say
/// what was left out or assumed.
pub(super) fn read_clips(
    reader: &Reader,
    skin: &SkinJson,
    skeleton: &Skeleton,
    size: f64,
    notes: &mut Vec<String>,
) -> Result<Vec<Clip>> {
    let doc = reader.doc;
    if doc.animations.is_empty() {
        return Ok(Vec::new());
    }
    let rest = JointRest::new(doc, skin, skeleton, size)?;
    let mut clips: Vec<Clip> = Vec::new();
    let mut total_keys = 0usize;
    for (a, anim) in doc.animations.iter().enumerate() {
        let name = clip_name(anim, a, &clips);
        match read_clip(reader, anim, a, &name, skeleton, &rest, notes)? {
            Ok(clip) => {
                total_keys += clip.key_count();
                if total_keys > MAX_KEYS {
                    return Err(ClipError::TooManyKeys {
                        clip: name,
                        count: total_keys,
                        max: MAX_KEYS,
                    }
                    .into());
                }
                clips.push(clip);
            }
            Err(why) => notes.push(format!("animation {name:?} left out: {why}")),
        }
    }
    let held = (0..skeleton.len())
        .filter(|&k| !rest.static_offsets(k, [false; 3]).is_empty())
        .count();
    if held > 0 && !clips.is_empty() {
        notes.push(format!(
            "{held} joint nodes' own transforms differ from the bind pose of the inverse bind \
             matrices: every clip holds those node values where no channel animates them (as \
             glTF viewers play them)"
        ));
    }
    Ok(clips)
}

/// The animation's name, `animation<i>` without one, with `#<i>` appended when an earlier
/// clip has it.
fn clip_name(anim: &AnimationJson, a: usize, clips: &[Clip]) -> String {
    let name = anim
        .name
        .clone()
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| format!("animation{a}"));
    if clips.iter().any(|c| c.name == name) {
        format!("{name}#{a}")
    } else {
        name
    }
}

/// One animation as a clip: `Ok(Err(why))` when it has no 2D reading.
fn read_clip(
    reader: &Reader,
    anim: &AnimationJson,
    a: usize,
    name: &str,
    skeleton: &Skeleton,
    rest: &JointRest,
    notes: &mut Vec<String>,
) -> Result<std::result::Result<Clip, String>> {
    let mut tracks: BTreeMap<usize, (BoneTrack, [bool; 3])> = BTreeMap::new();
    let mut duration = 0.0f64;
    let mut skipped = Vec::new();
    for (c, channel) in anim.channels.iter().enumerate() {
        let (k, path, sampler) = match channel_target(reader.doc, anim, a, c, name, rest)? {
            ChannelTarget::Joint {
                joint,
                path,
                sampler,
            } => (joint, path, sampler),
            ChannelTarget::Skipped(why) => {
                skipped.push(why);
                continue;
            }
        };
        let bone = &skeleton.bones()[k].name;
        let at = ChannelAt {
            clip: name,
            animation: a,
            channel: c,
            sampler: channel.sampler,
            bone,
            path,
        };
        let (track, animated) = tracks
            .entry(k)
            .or_insert_with(|| (BoneTrack::new(bone.clone()), [false; 3]));
        let group = path as usize;
        if animated[group] {
            return Err(at.invalid("a second channel on this property".into()));
        }
        animated[group] = true;
        let samples = read_samples(reader, sampler, &at)?;
        duration = duration.max(samples.times[samples.times.len() - 1]);
        match convert(&samples, k, rest, &at)? {
            Ok(channels) => {
                for (kind, ch) in channels {
                    *track.channels.get_mut(kind) = Some(ch);
                }
            }
            Err(why) => return Ok(Err(why)),
        }
    }
    let duration = held_duration(anim, duration);
    if !skipped.is_empty() {
        notes.push(format!(
            "animation {name:?}: left out {}",
            skipped.join(", ")
        ));
    }
    Ok(Ok(finish_clip(name, duration, tracks, skeleton, rest)))
}

/// What a channel of an animation animates.
enum ChannelTarget<'a> {
    /// Property `path` of joint `joint`, sampled by `sampler`.
    Joint {
        joint: usize,
        path: Path,
        sampler: &'a SamplerJson,
    },
    /// Nothing a 2D clip holds: the reason the channel is left out.
    Skipped(String),
}

/// What channel `c` of animation `a` (clip `name`) animates. Errors: a target node, path or
/// sampler that does not exist.
fn channel_target<'a>(
    doc: &Doc,
    anim: &'a AnimationJson,
    a: usize,
    c: usize,
    name: &str,
    rest: &JointRest,
) -> Result<ChannelTarget<'a>> {
    let channel = &anim.channels[c];
    let invalid = |message: String| {
        Error::Clip(ClipError::InvalidClip {
            clip: name.to_string(),
            message: format!("animations[{a}].channels[{c}]: {message}"),
        })
    };
    let Some(node) = channel.target.node else {
        return Ok(ChannelTarget::Skipped(format!(
            "channels[{c}] (no target node)"
        )));
    };
    if node >= doc.nodes.len() {
        return Err(invalid(format!(
            "target node {node} does not exist (the file has {} nodes)",
            doc.nodes.len()
        )));
    }
    let path = match channel.target.path.as_str() {
        "translation" => Path::Translation,
        "rotation" => Path::Rotation,
        "scale" => Path::Scale,
        "weights" => {
            return Ok(ChannelTarget::Skipped(format!(
                "channels[{c}] (morph target weights)"
            )))
        }
        other => return Err(invalid(format!("unknown target path {other:?}"))),
    };
    let Some(joint) = rest.joint_of_node[node] else {
        return Ok(ChannelTarget::Skipped(format!(
            "channels[{c}] (node {node} is not a joint)"
        )));
    };
    let sampler = anim.samplers.get(channel.sampler).ok_or_else(|| {
        invalid(format!(
            "sampler {} does not exist (the animation has {} samplers)",
            channel.sampler,
            anim.samplers.len()
        ))
    })?;
    Ok(ChannelTarget::Joint {
        joint,
        path,
        sampler,
    })
}

/// The clip's length: the last key's time `duration`, or the longer length the file's
/// extras give (skinweights' export writes its length, for a clip that holds its last pose
/// longer).
fn held_duration(anim: &AnimationJson, duration: f64) -> f64 {
    anim.extras
        .as_ref()
        .and_then(|e| e.pointer("/skinweights/duration"))
        .and_then(Value::as_f64)
        .filter(|d| d.is_finite() && *d >= duration)
        .unwrap_or(duration)
}

/// The clip from its tracks, with constant channels where a joint's static node values
/// differ from the bind pose and no channel animates them.
fn finish_clip(
    name: &str,
    duration: f64,
    mut tracks: BTreeMap<usize, (BoneTrack, [bool; 3])>,
    skeleton: &Skeleton,
    rest: &JointRest,
) -> Clip {
    for k in 0..skeleton.len() {
        let animated = tracks.get(&k).map_or([false; 3], |t| t.1);
        let held = rest.static_offsets(k, animated);
        if held.is_empty() {
            continue;
        }
        let (track, _) = tracks
            .entry(k)
            .or_insert_with(|| (BoneTrack::new(skeleton.bones()[k].name.clone()), animated));
        for (kind, value) in held {
            *track.channels.get_mut(kind) = Some(Channel::new(vec![Key::new(0.0, value)]));
        }
    }
    let mut clip = Clip::new(name, duration);
    clip.tracks = tracks.into_values().map(|(t, _)| t).collect();
    clip
}
