//! Automatic correctives: for each key angle, offsets that bend the joint like a round
//! ("fillet") bend of the limb instead of linear blend skinning's collapse.
//!
//! **Frame.** The joint `J` is the child bone's head; its axis `a` is the bisector of the
//! parent's and the child's rest directions (head to tail), `n` the axis turned by +90
//! degrees. A rest point `p` has an along-axis offset `d = (p - J)·a` and a signed distance
//! `y = (p - J)·n` from the axis. For a key angle `θ` (the child's local rotation, every other
//! bone at rest) the inner side of the bend is `y' = sign(θ) y > 0`.
//!
//! **Bend.** The corner of the axis is replaced by a circular arc tangent to both limbs at
//! distance `t` (the bend's reach) from the joint, of radius `ρ = t / tan(|θ|/2)` about the
//! centre `C = J - t a + ρ sign(θ) n`. A point with `|d| <= t` goes to polar coordinates about
//! `C`: angle `|θ| (d + t) / (2t)` from the parent's side, radius `r = ρ - y'`; a point with
//! `d < -t` stays with the parent, one with `d > t` turns rigidly with the child by `θ` about
//! `J`. The map is continuous, columns (constant `d`) stay straight and keep their rest width,
//! and the outer side becomes an arc of radius `ρ + h_out` that lies inside the round joint
//! (the disc of the half-width about `J`). It folds nothing while every radius is positive,
//! i.e. `ρ > h_in`, the largest inner distance `y'` of the joint's vertices with `|d| <= t`;
//! the fit takes `ρ = (1 + m) h_in` ([`AutoCorrectiveOptions::margin`] `m`), the smallest
//! radius that does not fold, because the arc leaves `(ρ - h_in)(1 - cos(θ/2))` of material
//! in the crook of the joint. Since `h_in` is measured over `|d| <= t`, `t` and `h_in` are
//! found together (a few fixed-point steps: `h_in` only grows with `t`).
//!
//! **Reach cap.** `t` grows as `tan(|θ|/2)`: 20 px at 90 degrees and 76 px at 150 on the
//! 40 px bar, 233 px at 170. It is capped at [`AutoCorrectiveOptions::max_reach`] times the
//! shorter of the two bones; then `ρ < (1 + m) h_in` and the inner half of each column in the
//! arc is compressed, `r = ρ - y' (1 - m) ρ / h_in` (the outer half keeps `r = ρ - y'`), which
//! folds nothing in the arc but narrows the joint, and where the mesh goes on past the reach
//! (past a bone's tail) the limbs held rigid there overlap: a bent bar that short cannot keep
//! both its width and its rigid limbs.
//!
//! **Keys.** The offsets blend linearly between keys while the bend and LBS do not, so the
//! fit adds keys between the requested angles (and between 0 and the nearest one) no more
//! than [`AutoCorrectiveOptions::key_step`] apart: keys at 90 and 150 alone leave the bar 11 %
//! narrow with 32 folded triangles at 120 degrees.
//!
//! **Band.** The corrective moves the vertices of the joint's piece (the mesh component
//! that holds the joint and, when the two bones name parts, the parent's or the child's part)
//! whose bent position differs from where LBS puts them in the key's pose: the arc, and every
//! vertex whose weights blend the two limbs, however far from the joint (heat weights reach
//! far). Vertices outside the piece keep their LBS positions. The offsets are the bent minus
//! the LBS positions; a vertex that one key moves and another does not has zero offsets in
//! the other.

use super::{Corrective, CorrectiveKey, Interpolation};
use crate::error::{Result, SolverError};
use crate::geometry::Segment;
use crate::mesh::Mesh;
use crate::scene::Scene;
use crate::skeleton::Pose;
use crate::skinning::{check_shape, linear_blend_skinning};
use crate::weights::Weights;
use nalgebra::{Point2, Rotation2, Vector2};

/// Settings of [`auto_corrective`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AutoCorrectiveOptions {
    /// The bend's inner radius margin `m`: the arc radius is `(1 + m)` times the joint's inner
    /// half-width (see the module docs). Larger leaves more material in the crook of the
    /// joint, `m h_in (1 - cos(θ/2))`; smaller squeezes the inner side's triangles thinner.
    /// Accepted: `0 < m <= 1`. Default: [`DEFAULT_MARGIN`].
    pub margin: f64,
    /// The bend's reach at most this fraction of the shorter of the joint's two bones.
    /// Accepted: `0 < f <= 1`. Default: [`DEFAULT_MAX_REACH`].
    pub max_reach: f64,
    /// Keys are added between the requested angles (and between the rest angle 0 and the
    /// nearest requested one) so that no two consecutive keys are more than this many degrees
    /// apart: offsets blend linearly between keys while the bend and LBS do not, so one wide
    /// gap (90 to 150 degrees) leaves the joint 11 % narrow and folded in the middle. `None`:
    /// the requested keys only. Accepted: a finite number > 0. Default:
    /// `Some(`[`DEFAULT_KEY_STEP`]`)`.
    pub key_step: Option<f64>,
    /// Interpolation of the resulting corrective. Default: [`Interpolation::Linear`] (with
    /// dense keys the smooth blend's zero slope at every key costs more than it gains).
    pub interpolation: Interpolation,
}

/// Default inner radius margin: 2 % of the inner half-width (at most 0.8 % of the width
/// left in the crook, at 180 degrees).
pub const DEFAULT_MARGIN: f64 = 0.02;
/// Default reach cap: the shorter bone.
pub const DEFAULT_MAX_REACH: f64 = 1.0;
/// Default largest gap between consecutive keys, degrees.
pub const DEFAULT_KEY_STEP: f64 = 5.0;
/// Key angles are at most this far from the rest angle either way, degrees: at a half turn
/// the arc radius is 0 and the limbs lie on each other.
pub const MAX_KEY_ANGLE: f64 = 179.0;

impl Default for AutoCorrectiveOptions {
    fn default() -> Self {
        AutoCorrectiveOptions {
            margin: DEFAULT_MARGIN,
            max_reach: DEFAULT_MAX_REACH,
            key_step: Some(DEFAULT_KEY_STEP),
            interpolation: Interpolation::Linear,
        }
    }
}

impl AutoCorrectiveOptions {
    /// Sets the inner radius margin.
    pub fn with_margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }
    /// Sets the reach cap (fraction of the shorter bone).
    pub fn with_max_reach(mut self, fraction: f64) -> Self {
        self.max_reach = fraction;
        self
    }
    /// Sets the largest gap between keys (degrees), or `None` for the requested keys only.
    pub fn with_key_step(mut self, step: Option<f64>) -> Self {
        self.key_step = step;
        self
    }
    /// Sets the interpolation of the result.
    pub fn with_interpolation(mut self, interpolation: Interpolation) -> Self {
        self.interpolation = interpolation;
        self
    }

    fn check(&self) -> Result<()> {
        for (option, value) in [("margin", self.margin), ("max_reach", self.max_reach)] {
            if !(value.is_finite() && value > 0.0 && value <= 1.0) {
                return Err(SolverError::InvalidOption {
                    option: option.into(),
                    message: format!("{value} is not a number in (0, 1]"),
                }
                .into());
            }
        }
        if let Some(step) = self.key_step {
            if !(step.is_finite() && step > 0.0) {
                return Err(SolverError::InvalidOption {
                    option: "key_step".into(),
                    message: format!("{step} is not a finite number > 0"),
                }
                .into());
            }
        }
        Ok(())
    }

    /// The key angles: `angles` with keys added so that no gap exceeds the key step.
    fn key_angles(&self, angles: &[f64]) -> Vec<f64> {
        let Some(step) = self.key_step else {
            return angles.to_vec();
        };
        // The implicit rest key at 0 (unless a key is given there) bounds a gap too.
        let mut stops = angles.to_vec();
        if !stops.contains(&0.0) {
            stops.insert(stops.partition_point(|&a| a < 0.0), 0.0);
        }
        let mut out = Vec::new();
        for pair in stops.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let n = ((b - a) / step).ceil().max(1.0) as usize;
            out.extend((0..n).map(|i| a + (b - a) * i as f64 / n as f64));
        }
        out.push(stops[stops.len() - 1]);
        // The rest key stays implicit (zero offsets), as without added keys.
        if !angles.contains(&0.0) {
            out.retain(|&a| a != 0.0);
        }
        out
    }
}

/// How one key's bend was shaped (see the module docs), px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BendShape {
    /// Key angle, degrees.
    pub angle: f64,
    /// Reach `t`: the arc spans `|d| <= t`.
    pub reach: f64,
    /// Arc radius `ρ` of the axis.
    pub radius: f64,
    /// Largest inner distance `h_in` of the joint's vertices within the reach.
    pub inner_half_width: f64,
    /// Whether the reach hit [`AutoCorrectiveOptions::max_reach`] (the inner side is then
    /// compressed and the joint narrows).
    pub capped: bool,
    /// Largest offset of the key.
    pub max_offset: f64,
}

/// An automatic corrective and how it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoCorrective {
    /// The corrective (keys at the requested angles and those [`AutoCorrectiveOptions::key_step`]
    /// adds).
    pub corrective: Corrective,
    /// The joint's half-width: distance from the joint to the nearest mesh boundary, px.
    pub half_width: f64,
    /// Each key's bend, in the corrective's key order.
    pub bends: Vec<BendShape>,
}

/// Fits an automatic corrective for the joint at bone `joint` (which must have a parent) of
/// `scene` skinned with `weights`, one key per angle of `angles` (degrees, strictly
/// increasing, each within [`MAX_KEY_ANGLE`] of 0): see the module docs.
///
/// Errors: the corrective's own ([`SkeletonError::UnknownBone`](crate::error::SkeletonError::UnknownBone), [`CorrectiveError::NotAJoint`](crate::error::CorrectiveError::NotAJoint),
/// [`CorrectiveError::NonFiniteCorrective`](crate::error::CorrectiveError::NonFiniteCorrective), [`CorrectiveError::CorrectiveAngleOrder`](crate::error::CorrectiveError::CorrectiveAngleOrder),
/// [`CorrectiveError::EmptyCorrective`](crate::error::CorrectiveError::EmptyCorrective)), bad options or a key angle past [`MAX_KEY_ANGLE`]
/// ([`SolverError::InvalidOption`] naming `margin`, `max_reach` or `angles`), a weights shape that
/// does not fit, a joint on the mesh boundary ([`SolverError::InvalidOption`] naming `joint`).
pub fn auto_corrective(
    scene: &Scene,
    weights: &Weights,
    joint: &str,
    angles: &[f64],
    options: &AutoCorrectiveOptions,
) -> Result<AutoCorrective> {
    check_request(scene, weights, joint, angles, options)?;
    let angles = &options.key_angles(angles)[..];
    let mesh = &scene.mesh;
    let skeleton = &scene.skeleton;
    let j = skeleton.index_of(joint).unwrap_or(0);
    let bone = &skeleton.bones()[j];
    let parent_bone = &skeleton.bones()[bone.parent.unwrap_or(0)];
    let rest = mesh.vertices();
    let half_width = joint_half_width(mesh, joint, bone.head)?;
    let frame = JointFrame::new(
        bone.head,
        parent_bone.tail - parent_bone.head,
        bone.tail - bone.head,
    );
    let fit = KeyFit {
        frame: &frame,
        piece: &joint_piece(scene, j, bone.parent.unwrap_or(0)),
        half_width,
        longest_reach: options.max_reach
            * (parent_bone.tail - parent_bone.head)
                .norm()
                .min((bone.tail - bone.head).norm()),
        options,
    };

    // Per key: the offsets from the LBS positions to the bent ones.
    let mut bent_keys = Vec::with_capacity(angles.len());
    let mut bends = Vec::with_capacity(angles.len());
    for &angle in angles {
        let (offsets, bend) = fit.key(scene, weights, joint, angle)?;
        bent_keys.push(offsets);
        bends.push(bend);
    }
    let band: Vec<usize> = (0..rest.len())
        .filter(|&v| bent_keys.iter().any(|k| k[v] != Vector2::zeros()))
        .collect();
    // The parent is at rest in the key's pose: world offsets are its frame's offsets.
    let keys = angles
        .iter()
        .zip(&bent_keys)
        .map(|(&angle, all)| CorrectiveKey {
            angle,
            offsets: band.iter().map(|&v| all[v]).collect(),
        })
        .collect();
    let corrective = Corrective {
        joint: joint.to_string(),
        vertices: band,
        keys,
        interpolation: options.interpolation,
    };
    corrective.check(skeleton, mesh.vertex_count())?;
    Ok(AutoCorrective {
        corrective,
        half_width,
        bends,
    })
}

/// Checks the options, the weights' shape, the joint and the key angles before any work (a
/// corrective with empty offsets checks the joint and the angles' order).
fn check_request(
    scene: &Scene,
    weights: &Weights,
    joint: &str,
    angles: &[f64],
    options: &AutoCorrectiveOptions,
) -> Result<()> {
    options.check()?;
    let mesh = &scene.mesh;
    check_shape(mesh.vertex_count(), weights, scene.skeleton.len())?;
    let probe = Corrective {
        joint: joint.to_string(),
        vertices: Vec::new(),
        keys: angles
            .iter()
            .map(|&angle| CorrectiveKey {
                angle,
                offsets: Vec::new(),
            })
            .collect(),
        interpolation: options.interpolation,
    };
    probe.check(&scene.skeleton, mesh.vertex_count())?;
    if let Some((k, &angle)) = angles
        .iter()
        .enumerate()
        .find(|(_, a)| a.abs() > MAX_KEY_ANGLE)
    {
        return Err(SolverError::InvalidOption {
            option: "angles".into(),
            message: format!(
                "key {k} ({angle} degrees) bends more than {MAX_KEY_ANGLE} degrees: the limbs would lie on each other"
            ),
        }.into());
    }
    Ok(())
}

/// The distance from the joint at `center` to the mesh boundary: the limb's half width
/// there. A joint on the boundary has none to restore (an error naming it).
fn joint_half_width(mesh: &Mesh, joint: &str, center: Point2<f64>) -> Result<f64> {
    let rest = mesh.vertices();
    let half_width = mesh
        .topology()
        .boundary_edges()
        .iter()
        .map(|&[a, b]| Segment::new(rest[a], rest[b]).distance(&center))
        .fold(f64::INFINITY, f64::min);
    if !(half_width > 0.0 && half_width.is_finite()) {
        return Err(SolverError::InvalidOption {
            option: "joint".into(),
            message: format!(
                "joint {joint:?} at ({}, {}) lies on the mesh boundary: it has no width to restore",
                center.x, center.y
            ),
        }
        .into());
    }
    Ok(half_width)
}

/// What every key of one joint's corrective is fitted with.
struct KeyFit<'a> {
    frame: &'a JointFrame,
    /// The vertices the bend may move (the joint's piece of the mesh).
    piece: &'a [usize],
    half_width: f64,
    /// The longest reach along the limbs, px.
    longest_reach: f64,
    options: &'a AutoCorrectiveOptions,
}

impl KeyFit<'_> {
    /// The key at `angle`: per mesh vertex, the offset from its LBS position to the bent one
    /// (0 where it is below 1e-9 of the half width), and the bend's shape.
    fn key(
        &self,
        scene: &Scene,
        weights: &Weights,
        joint: &str,
        angle: f64,
    ) -> Result<(Vec<Vector2<f64>>, BendShape)> {
        let rest = scene.mesh.vertices();
        // The LBS that `skin_with_correctives` adds the offsets to.
        let pose = Pose::rest().rotate(joint, angle);
        let lbs = linear_blend_skinning(rest, &scene.skeleton, weights, &pose)?;
        let bend = Bend::fit(
            self.frame,
            rest,
            self.piece,
            angle,
            self.half_width,
            self.longest_reach,
            self.options,
        );
        let tiny = 1e-9 * self.half_width;
        let mut offsets = vec![Vector2::zeros(); rest.len()];
        let mut max_offset = 0.0f64;
        for &v in self.piece {
            let o = bend.apply(self.frame, rest[v]) - lbs[v];
            if o.norm() > tiny {
                offsets[v] = o;
                max_offset = max_offset.max(o.norm());
            }
        }
        let shape = BendShape {
            angle,
            reach: bend.reach,
            radius: bend.radius,
            inner_half_width: bend.inner,
            capped: bend.capped,
            max_offset,
        };
        Ok((offsets, shape))
    }
}

/// The joint's frame: origin `J`, bisector axis `a`, normal `n` (see the module docs).
struct JointFrame {
    origin: Point2<f64>,
    axis: Vector2<f64>,
    normal: Vector2<f64>,
}

impl JointFrame {
    fn new(origin: Point2<f64>, parent: Vector2<f64>, child: Vector2<f64>) -> Self {
        let (p, c) = (parent.normalize(), child.normalize());
        // Bones folded back on each other at rest have no bisector: take the parent's axis.
        let sum = p + c;
        let axis = if sum.norm() > 1e-9 {
            sum.normalize()
        } else {
            p
        };
        JointFrame {
            origin,
            axis,
            normal: Vector2::new(-axis.y, axis.x),
        }
    }

    /// `(d, y)` of a rest point.
    fn coords(&self, p: Point2<f64>) -> (f64, f64) {
        let q = p - self.origin;
        (q.dot(&self.axis), q.dot(&self.normal))
    }
}

/// One key's bend: signed angle (radians), reach, radius, inner half-width.
struct Bend {
    theta: f64,
    reach: f64,
    radius: f64,
    inner: f64,
    margin: f64,
    capped: bool,
}

impl Bend {
    /// The smallest fold-free bend for `angle` (degrees) of the piece's rest points.
    fn fit(
        frame: &JointFrame,
        rest: &[Point2<f64>],
        piece: &[usize],
        angle: f64,
        half_width: f64,
        longest_reach: f64,
        options: &AutoCorrectiveOptions,
    ) -> Bend {
        let theta = angle.to_radians();
        let side = if theta < 0.0 { -1.0 } else { 1.0 };
        let tan = (theta.abs() / 2.0).tan();
        let m = options.margin;
        let coords: Vec<(f64, f64)> = piece.iter().map(|&v| frame.coords(rest[v])).collect();
        let inner_within = |t: f64| {
            coords
                .iter()
                .filter(|(d, _)| d.abs() <= t)
                .map(|&(_, y)| side * y)
                .fold(half_width, f64::max)
        };
        let mut reach = ((1.0 + m) * half_width * tan).min(longest_reach);
        let mut inner = inner_within(reach);
        // h_in grows with t and t with h_in: a few steps reach the fixed point (or the cap).
        for _ in 0..32 {
            let want = ((1.0 + m) * inner * tan).min(longest_reach);
            if want <= reach {
                break;
            }
            reach = want;
            inner = inner_within(reach);
        }
        let radius = if tan > 0.0 {
            reach / tan
        } else {
            f64::INFINITY
        };
        Bend {
            theta,
            reach,
            radius,
            inner,
            margin: m,
            capped: radius < (1.0 + m) * inner * (1.0 - 1e-12),
        }
    }

    /// The bent position of rest point `p`.
    fn apply(&self, frame: &JointFrame, p: Point2<f64>) -> Point2<f64> {
        let (d, y) = frame.coords(p);
        let t = self.reach;
        if self.theta == 0.0 || d < -t {
            return p;
        }
        if d > t {
            return frame.origin + Rotation2::new(self.theta) * (p - frame.origin);
        }
        let side = self.theta.signum();
        let yi = side * y;
        let rho = self.radius;
        let r = if self.capped && yi > 0.0 {
            rho - yi * (1.0 - self.margin) * rho / self.inner
        } else {
            rho - yi
        };
        let phi = self.theta.abs() * (d + t) / (2.0 * t);
        // In the bend's own frame (inner side +y): centre (-t, ρ), the point at angle φ.
        let (u, v) = (-t + r * phi.sin(), rho - r * phi.cos());
        frame.origin + frame.axis * u + frame.normal * (side * v)
    }
}

/// The joint's piece, sorted: the vertices of the mesh component that holds the joint and,
/// when the bones name parts, of the parent's or the child's part.
fn joint_piece(scene: &Scene, j: usize, p: usize) -> Vec<usize> {
    let mesh = &scene.mesh;
    let rest = mesh.vertices();
    let center = scene.skeleton.bones()[j].head;
    let parts = scene.bone_parts();
    let allowed: Vec<usize> = [parts[j], parts[p]].into_iter().flatten().collect();
    let component = mesh.topology().component_of();
    let nearest = (0..rest.len())
        .min_by(|&a, &b| {
            (rest[a] - center)
                .norm()
                .total_cmp(&(rest[b] - center).norm())
        })
        .unwrap_or(0);
    (0..rest.len())
        .filter(|&v| {
            component[v] == component[nearest]
                && (allowed.is_empty() || allowed.contains(&mesh.vertex_parts()[v]))
        })
        .collect()
}
