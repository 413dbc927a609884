//! The corrective-shape model a scene carries: [`Corrective`] (a joint's offsets per key
//! angle), checking correctives against a skeleton and mesh, and adding them after skinning.
//! It lives below [`Scene`](super::Scene), which holds correctives, and is re-exported (its
//! one public path) by [`crate::correctives`], where the concept is documented and where
//! fitting them to a scene is.
use crate::error::{CorrectiveError, Error, Result, SkeletonError};
use crate::skeleton::{Pose, Skeleton};
use crate::skinning::linear_blend_skinning;
use crate::weights::Weights;
use nalgebra::{Point2, Vector2};

/// How offsets are blended between two key angles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Interpolation {
    /// Piecewise linear in the angle. The default.
    #[default]
    Linear,
    /// Smoothstep `t² (3 - 2t)` between keys: zero slope at every key.
    Smooth,
}

impl Interpolation {
    /// The name used in files and on the command line (`linear`, `smooth`).
    pub fn name(self) -> &'static str {
        match self {
            Interpolation::Linear => "linear",
            Interpolation::Smooth => "smooth",
        }
    }

    /// Parses [`Interpolation::name`]'s output.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "linear" => Some(Interpolation::Linear),
            "smooth" => Some(Interpolation::Smooth),
            _ => None,
        }
    }

    /// The blend `s` in `[0, 1]` at the fraction `t` in `[0, 1]` between two keys.
    fn blend(self, t: f64) -> f64 {
        match self {
            Interpolation::Linear => t,
            Interpolation::Smooth => t * t * (3.0 - 2.0 * t),
        }
    }
}

/// The offsets of a corrective at one key angle.
#[derive(Debug, Clone, PartialEq)]
pub struct CorrectiveKey {
    /// Joint angle, degrees.
    pub angle: f64,
    /// One offset per vertex of [`Corrective::vertices`] (same order), rest-pose world
    /// units (px), carried by the parent bone's rotation.
    pub offsets: Vec<Vector2<f64>>,
}

/// Corrective offsets for one joint at key angles (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Corrective {
    /// The joint: the child bone whose local rotation is the joint angle.
    pub joint: String,
    /// The vertices it moves (the joint's band), each once.
    pub vertices: Vec<usize>,
    /// The keys, in strictly increasing angle order.
    pub keys: Vec<CorrectiveKey>,
    /// How keys are blended.
    pub interpolation: Interpolation,
}

/// A corrective resolved against a skeleton: bone indices found once.
#[derive(Debug, Clone, Copy)]
struct Resolved {
    joint: usize,
    parent: usize,
}

impl Corrective {
    /// Checks the corrective against a skeleton and a mesh of `vertex_count` vertices: the
    /// joint is a bone with a parent, the vertices exist and are listed once, every key has
    /// one finite offset per vertex and a finite angle, and angles strictly increase.
    ///
    /// Errors: [`SkeletonError::UnknownBone`], [`CorrectiveError::NotAJoint`], [`CorrectiveError::EmptyCorrective`],
    /// [`CorrectiveError::CorrectiveVertex`], [`CorrectiveError::DuplicateCorrectiveVertex`],
    /// [`CorrectiveError::CorrectiveOffsets`], [`CorrectiveError::NonFiniteCorrective`],
    /// [`CorrectiveError::CorrectiveAngleOrder`].
    pub fn check(&self, skeleton: &Skeleton, vertex_count: usize) -> Result<()> {
        self.resolve(skeleton)?;
        let joint = || self.joint.clone();
        if self.keys.is_empty() {
            return Err(CorrectiveError::EmptyCorrective { joint: joint() }.into());
        }
        let mut seen = vec![false; vertex_count];
        for &v in &self.vertices {
            if v >= vertex_count {
                return Err(CorrectiveError::CorrectiveVertex {
                    joint: joint(),
                    vertex: v,
                    vertices: vertex_count,
                }
                .into());
            }
            if std::mem::replace(&mut seen[v], true) {
                return Err(CorrectiveError::DuplicateCorrectiveVertex {
                    joint: joint(),
                    vertex: v,
                }
                .into());
            }
        }
        for (k, key) in self.keys.iter().enumerate() {
            if !key.angle.is_finite() {
                return Err(CorrectiveError::NonFiniteCorrective {
                    joint: joint(),
                    key: k,
                    what: format!("the angle ({})", key.angle),
                }
                .into());
            }
            if key.offsets.len() != self.vertices.len() {
                return Err(CorrectiveError::CorrectiveOffsets {
                    joint: joint(),
                    key: k,
                    given: key.offsets.len(),
                    vertices: self.vertices.len(),
                }
                .into());
            }
            if let Some(i) = key
                .offsets
                .iter()
                .position(|o| !o.x.is_finite() || !o.y.is_finite())
            {
                return Err(CorrectiveError::NonFiniteCorrective {
                    joint: joint(),
                    key: k,
                    what: format!(
                        "the offset of vertex {} ({}, {})",
                        self.vertices[i], key.offsets[i].x, key.offsets[i].y
                    ),
                }
                .into());
            }
            if k > 0 && key.angle <= self.keys[k - 1].angle {
                return Err(CorrectiveError::CorrectiveAngleOrder {
                    joint: joint(),
                    key: k,
                    angle: key.angle,
                    previous: self.keys[k - 1].angle,
                }
                .into());
            }
        }
        Ok(())
    }

    fn resolve(&self, skeleton: &Skeleton) -> Result<Resolved> {
        let joint = skeleton.index_of(&self.joint).ok_or_else(|| {
            Error::Skeleton(SkeletonError::UnknownBone {
                context: "corrective joint".into(),
                bone: self.joint.clone(),
            })
        })?;
        let parent = skeleton.bones()[joint].parent.ok_or_else(|| {
            Error::Corrective(CorrectiveError::NotAJoint {
                bone: self.joint.clone(),
            })
        })?;
        Ok(Resolved { joint, parent })
    }

    /// The keys around joint angle `angle`: `(k0, k1, s)` with the offsets
    /// `(1 - s) o_k0 + s o_k1`, `None` naming the implicit zero key at 0 and `k0 == k1`,
    /// `s = 0` when the angle lies past the first or last key (held). Assumes
    /// [`Corrective::check`] passed.
    fn bracket(&self, angle: f64) -> (Option<usize>, Option<usize>, f64) {
        // The keys with the implicit zero key at 0 where none is given.
        let mut keys: Vec<(f64, Option<usize>)> = self
            .keys
            .iter()
            .enumerate()
            .map(|(k, key)| (key.angle, Some(k)))
            .collect();
        if !self.keys.iter().any(|k| k.angle == 0.0) {
            let at = keys.partition_point(|k| k.0 < 0.0);
            keys.insert(at, (0.0, None));
        }
        let last = keys.len() - 1;
        if angle <= keys[0].0 {
            return (keys[0].1, keys[0].1, 0.0);
        }
        if angle >= keys[last].0 {
            return (keys[last].1, keys[last].1, 0.0);
        }
        let k = keys.partition_point(|k| k.0 <= angle) - 1;
        let ((a0, k0), (a1, k1)) = (keys[k], keys[k + 1]);
        let t = (angle - a0) / (a1 - a0);
        (k0, k1, self.interpolation.blend(t))
    }

    /// The interpolated offsets at joint angle `angle` (degrees), one per vertex, in the
    /// rest frame (before the parent's rotation). Assumes [`Corrective::check`] passed.
    pub fn offsets_at(&self, angle: f64) -> Vec<Vector2<f64>> {
        let zero = vec![Vector2::zeros(); self.vertices.len()];
        let of = |k: Option<usize>| k.map_or(zero.as_slice(), |k| self.keys[k].offsets.as_slice());
        let (k0, k1, s) = self.bracket(angle);
        if k0 == k1 {
            return of(k0).to_vec();
        }
        of(k0)
            .iter()
            .zip(of(k1))
            .map(|(p, q)| p * (1.0 - s) + q * s)
            .collect()
    }

    /// The weight of each key at joint angle `angle`: [`Corrective::offsets_at`] is
    /// `sum_k w_k keys[k].offsets` (the implicit zero key has no weight). What a format that
    /// blends fixed shapes with animated weights (glTF morph targets) stores per frame.
    pub fn key_weights(&self, angle: f64) -> Vec<f64> {
        let mut w = vec![0.0; self.keys.len()];
        let (k0, k1, s) = self.bracket(angle);
        if let Some(k) = k0 {
            w[k] += 1.0 - s;
        }
        if let (Some(k), true) = (k1, k0 != k1) {
            w[k] += s;
        }
        w
    }

    /// The joint angle in `pose`: the joint bone's local rotation, degrees. Errors: the
    /// joint's ([`SkeletonError::UnknownBone`], [`CorrectiveError::NotAJoint`]) and the pose's.
    pub fn joint_angle(&self, skeleton: &Skeleton, pose: &Pose) -> Result<f64> {
        let r = self.resolve(skeleton)?;
        Ok(pose.resolve(skeleton)?[r.joint].rotation)
    }

    /// The parent bone's index and rotation (radians) of its rigid skinning transform in
    /// `pose`: what turns the offsets from the rest frame into the posed one.
    pub fn parent_rotation(&self, skeleton: &Skeleton, pose: &Pose) -> Result<(usize, f64)> {
        let r = self.resolve(skeleton)?;
        let transforms = skeleton.skinning_transforms(pose)?;
        Ok((r.parent, transforms[r.parent].rotation.angle()))
    }
}

/// Checks a list of correctives ([`Corrective::check`] each) and that no joint has two.
pub fn check_correctives(
    correctives: &[Corrective],
    skeleton: &Skeleton,
    vertex_count: usize,
) -> Result<()> {
    for (i, c) in correctives.iter().enumerate() {
        c.check(skeleton, vertex_count)?;
        if let Some(first) = correctives[..i].iter().position(|o| o.joint == c.joint) {
            return Err(CorrectiveError::DuplicateCorrective {
                joint: c.joint.clone(),
                first,
                second: i,
            }
            .into());
        }
    }
    Ok(())
}

/// Adds the correctives' offsets for `pose` to skinned positions `posed` (one per mesh
/// vertex), after checking them ([`check_correctives`]).
pub fn apply_correctives(
    correctives: &[Corrective],
    skeleton: &Skeleton,
    pose: &Pose,
    posed: &mut [Point2<f64>],
) -> Result<()> {
    check_correctives(correctives, skeleton, posed.len())?;
    if correctives.is_empty() {
        return Ok(());
    }
    let transforms = skeleton.skinning_transforms(pose)?;
    let local = pose.resolve(skeleton)?;
    for c in correctives {
        let r = c.resolve(skeleton)?;
        let rotation = transforms[r.parent].rotation;
        let offsets = c.offsets_at(local[r.joint].rotation);
        for (&v, o) in c.vertices.iter().zip(&offsets) {
            posed[v] += rotation * o;
        }
    }
    Ok(())
}

/// Linear blend skinning of `rest` for `pose` ([`linear_blend_skinning`]: the affine path,
/// so scale and shear are followed), then the correctives: what a runtime that supports
/// corrective shapes (deform keys, morph targets) draws.
pub fn skin_with_correctives(
    rest: &[Point2<f64>],
    skeleton: &Skeleton,
    weights: &Weights,
    pose: &Pose,
    correctives: &[Corrective],
) -> Result<Vec<Point2<f64>>> {
    let mut posed = linear_blend_skinning(rest, skeleton, weights, pose)?;
    apply_correctives(correctives, skeleton, pose, &mut posed)?;
    Ok(posed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::Bone;

    fn skeleton() -> Skeleton {
        Skeleton::new(vec![
            Bone::new("upper", Point2::new(0.0, 0.0), Point2::new(1.0, 0.0)),
            Bone::new("lower", Point2::new(1.0, 0.0), Point2::new(2.0, 0.0)).with_parent(0),
        ])
        .unwrap()
    }

    fn corrective(interpolation: Interpolation) -> Corrective {
        Corrective {
            joint: "lower".into(),
            vertices: vec![1, 3],
            keys: vec![
                CorrectiveKey {
                    angle: 90.0,
                    offsets: vec![Vector2::new(1.0, 0.0), Vector2::new(0.0, 2.0)],
                },
                CorrectiveKey {
                    angle: 150.0,
                    offsets: vec![Vector2::new(3.0, 0.0), Vector2::new(0.0, -2.0)],
                },
            ],
            interpolation,
        }
    }

    #[test]
    fn offsets_interpolate_from_the_implicit_rest_key_and_hold_past_the_last() {
        let c = corrective(Interpolation::Linear);
        c.check(&skeleton(), 4).unwrap();
        assert_eq!(c.offsets_at(0.0), vec![Vector2::zeros(); 2]);
        assert_eq!(c.offsets_at(-30.0), vec![Vector2::zeros(); 2]);
        assert_eq!(c.offsets_at(45.0)[0], Vector2::new(0.5, 0.0));
        assert_eq!(c.offsets_at(120.0)[0], Vector2::new(2.0, 0.0));
        assert_eq!(c.offsets_at(120.0)[1], Vector2::new(0.0, 0.0));
        assert_eq!(c.offsets_at(200.0)[0], Vector2::new(3.0, 0.0));
        let s = corrective(Interpolation::Smooth);
        // t = 0.25: smoothstep 0.15625.
        assert!((s.offsets_at(22.5)[0].x - 0.15625).abs() < 1e-15);
        assert_eq!(s.offsets_at(120.0)[0], Vector2::new(2.0, 0.0));
        assert_eq!(s.offsets_at(90.0)[1], Vector2::new(0.0, 2.0));
    }

    #[test]
    fn key_weights_reproduce_the_offsets() {
        for interpolation in [Interpolation::Linear, Interpolation::Smooth] {
            let c = corrective(interpolation);
            for angle in [-30.0, 0.0, 22.5, 45.0, 90.0, 100.0, 120.0, 150.0, 200.0] {
                let w = c.key_weights(angle);
                let o = c.offsets_at(angle);
                for (i, oi) in o.iter().enumerate() {
                    let sum: Vector2<f64> =
                        c.keys.iter().zip(&w).map(|(k, w)| k.offsets[i] * *w).sum();
                    assert!((sum - oi).norm() < 1e-12, "{angle}: {sum} vs {oi}");
                }
            }
        }
        let c = corrective(Interpolation::Linear);
        assert_eq!(c.key_weights(120.0), vec![0.5, 0.5]);
        assert_eq!(c.key_weights(45.0), vec![0.5, 0.0]);
        assert_eq!(c.key_weights(-10.0), vec![0.0, 0.0]);
        assert_eq!(c.key_weights(170.0), vec![0.0, 1.0]);
    }

    #[test]
    fn offsets_turn_with_the_parent() {
        let sk = skeleton();
        let c = corrective(Interpolation::Linear);
        let mut posed = vec![Point2::origin(); 4];
        let pose = Pose::rest().rotate("upper", 90.0).rotate("lower", 90.0);
        apply_correctives(std::slice::from_ref(&c), &sk, &pose, &mut posed).unwrap();
        // (1, 0) turned by the parent's 90 degrees is (0, 1).
        assert!((posed[1] - Point2::new(0.0, 1.0)).norm() < 1e-12);
        assert!((posed[3] - Point2::new(-2.0, 0.0)).norm() < 1e-12);
        assert_eq!(posed[0], Point2::origin());
    }

    #[test]
    fn hostile_correctives_are_typed_errors() {
        let sk = skeleton();
        let mut c = corrective(Interpolation::Linear);
        c.keys[1].offsets[1].y = f64::NAN;
        assert!(matches!(
            c.check(&sk, 4),
            Err(Error::Corrective(CorrectiveError::NonFiniteCorrective {
                key: 1,
                ..
            }))
        ));
        let mut c = corrective(Interpolation::Linear);
        c.keys[1].angle = 60.0;
        assert!(matches!(
            c.check(&sk, 4),
            Err(Error::Corrective(CorrectiveError::CorrectiveAngleOrder {
                key: 1,
                ..
            }))
        ));
        let mut c = corrective(Interpolation::Linear);
        c.joint = "elbow".into();
        assert!(matches!(
            c.check(&sk, 4),
            Err(Error::Skeleton(SkeletonError::UnknownBone { .. }))
        ));
        c.joint = "upper".into();
        assert!(matches!(
            c.check(&sk, 4),
            Err(Error::Corrective(CorrectiveError::NotAJoint { .. }))
        ));
        let c = corrective(Interpolation::Linear);
        assert!(matches!(
            c.check(&sk, 3),
            Err(Error::Corrective(CorrectiveError::CorrectiveVertex {
                vertex: 3,
                ..
            }))
        ));
        assert!(matches!(
            check_correctives(&[c.clone(), c], &sk, 4),
            Err(Error::Corrective(CorrectiveError::DuplicateCorrective {
                first: 0,
                second: 1,
                ..
            }))
        ));
    }
}
