//! Inverse kinematics as a pose step: after a clip is sampled, constraints turn bones toward
//! targets by adjusting their rotation offsets.
//!
//! - **One bone**: the bone's x axis is turned toward the target bone's world origin.
//! - **Two bones** (parent, child; the two-bone pointer): the child's tip (the world
//!   image of its rest tail) reaches the target when it can. With `a` the world distance
//!   from the parent's origin to the child's origin, `b` from the child's origin to its tip
//!   and `d` from the parent's origin to the target (clamped to `[|a - b|, a + b]`), the
//!   parent turns so the child's origin lies at angle `±acos((a² + d² - b²) / (2 a d))`
//!   from the target direction (`+` = counter-clockwise when `bend_positive`), then the
//!   child turns its tip toward the target.
//!
//! `mix` blends each rotation change (0 = the sampled pose, 1 = fully solved). Like Spine's
//! runtimes it is a lerp factor applied unclamped: exporters write 1.0207 and the runtime
//! overshoots by 2%. Beyond [`MAX_IK_MIX`] in magnitude it is refused as hostile.
//! A world rotation becomes a local rotation offset through the bone's parent frame (its
//! sign flips under a reflecting parent); this is exact when the parents' transforms are
//! rotations with uniform scale, as Spine requires of bones an IK constraint moves (they
//! may not disable transform inheritance). Spine's `softness`, `compress`, `stretch` and
//! `uniform` are not applied: [`IkConstraint::softness`] is kept so a file round-trips, and
//! [`IkConstraint::notes`] says it was left out.

use crate::error::{Error, Result, SkeletonError};
use crate::skeleton::{Affine2, Pose, Skeleton};
use nalgebra::Point2;

/// Largest `|mix|` accepted: no tool writes more, and it keeps rotations finite.
pub const MAX_IK_MIX: f64 = 1000.0;

/// The problem with a mix, if any: not finite or `|mix|` above [`MAX_IK_MIX`].
pub fn mix_problem(mix: f64) -> Option<String> {
    (!mix.is_finite() || mix.abs() > MAX_IK_MIX)
        .then(|| format!("mix {mix} must be finite with |mix| <= {MAX_IK_MIX}"))
}

/// An IK constraint: `bones` (1, or 2 = parent and child) aim at `target`'s origin.
#[derive(Debug, Clone, PartialEq)]
pub struct IkConstraint {
    /// Unique name.
    pub name: String,
    /// The constrained bones: one bone, or a parent and its child.
    pub bones: Vec<String>,
    /// The bone whose world origin is the target.
    pub target: String,
    /// Blend of the solved rotations, usually in `[0, 1]`; applied unclamped. Default: 1.
    pub mix: f64,
    /// Bend direction of a two-bone chain (counter-clockwise when true). Default: true.
    pub bend_positive: bool,
    /// Spine's softness (distance before full extension where the chain slows). Kept but
    /// not applied. Default: 0.
    pub softness: f64,
}

impl IkConstraint {
    /// A constraint with mix 1, positive bend, no softness.
    pub fn new(name: impl Into<String>, bones: Vec<String>, target: impl Into<String>) -> Self {
        IkConstraint {
            name: name.into(),
            bones,
            target: target.into(),
            mix: 1.0,
            bend_positive: true,
            softness: 0.0,
        }
    }

    /// Notes about what is not applied (softness) and a mix outside `[0, 1]`.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.softness != 0.0 {
            notes.push(format!(
                "IK constraint {:?}: softness {} is not applied (the chain reaches fully)",
                self.name, self.softness
            ));
        }
        if !(0.0..=1.0).contains(&self.mix) {
            notes.push(format!(
                "IK constraint {:?}: mix {} is outside [0, 1]; applied unclamped, as Spine's runtime does",
                self.name, self.mix
            ));
        }
        notes
    }

    /// Checks the constraint against a skeleton ([`SkeletonError::InvalidIk`]): one or two bones
    /// that exist (a second bone must be the first's child), a known target that is none of
    /// them nor their descendant, finite `mix` with `|mix|` <= [`MAX_IK_MIX`] and finite `softness` >= 0.
    pub fn check(&self, skeleton: &Skeleton) -> Result<()> {
        let bad = |message: String| {
            Error::Skeleton(SkeletonError::InvalidIk {
                constraint: self.name.clone(),
                message,
            })
        };
        if self.bones.is_empty() || self.bones.len() > 2 {
            return Err(bad(format!(
                "{} bones: an IK constraint moves 1 or 2 bones",
                self.bones.len()
            )));
        }
        let index = |name: &String| {
            skeleton.index_of(name).ok_or_else(|| {
                Error::Skeleton(SkeletonError::UnknownBone {
                    context: format!("IK constraint {:?}", self.name),
                    bone: name.clone(),
                })
            })
        };
        let bones: Vec<usize> = self.bones.iter().map(index).collect::<Result<_>>()?;
        let target = index(&self.target)?;
        if bones.len() == 2 && skeleton.bones()[bones[1]].parent != Some(bones[0]) {
            return Err(bad(format!(
                "bone {:?} is not a child of {:?}",
                self.bones[1], self.bones[0]
            )));
        }
        if skeleton.is_ancestor_or_self(bones[0], target) {
            return Err(bad(format!(
                "target {:?} moves with the chain it drives (it is {:?} or below it)",
                self.target, self.bones[0]
            )));
        }
        if let Some(problem) = mix_problem(self.mix) {
            return Err(bad(problem));
        }
        if !self.softness.is_finite() || self.softness < 0.0 {
            return Err(bad(format!(
                "softness {} must be finite and >= 0",
                self.softness
            )));
        }
        Ok(())
    }
}

/// Applies constraints in order to a pose, returning the pose with adjusted rotation
/// offsets (see the module documentation). Each constraint is checked first.
pub fn apply_ik(skeleton: &Skeleton, pose: &Pose, constraints: &[IkConstraint]) -> Result<Pose> {
    let mut pose = pose.clone();
    for c in constraints {
        c.check(skeleton)?;
        let idx: Vec<usize> = c
            .bones
            .iter()
            .map(|n| skeleton.index_of(n).expect("checked"))
            .collect();
        let target = skeleton.index_of(&c.target).expect("checked");
        let world = skeleton.world_affines(&pose)?;
        let goal = origin(&world[target]);
        match idx[..] {
            [one] => {
                let tip = aim_tip(skeleton, one);
                let delta = aim(&world[one], tip, goal);
                add_rotation(skeleton, &mut pose, &world, one, delta * c.mix);
            }
            [parent, child] => {
                let o1 = origin(&world[parent]);
                let o2 = origin(&world[child]);
                let tip_world = world[child].apply(aim_tip(skeleton, child));
                let a = (o2 - o1).norm();
                let b = (tip_world - o2).norm();
                let to_goal = goal - o1;
                let d = to_goal.norm().clamp((a - b).abs(), a + b);
                let mut delta1 = 0.0;
                if a > 0.0 && d > 0.0 {
                    let cos = ((a * a + d * d - b * b) / (2.0 * a * d)).clamp(-1.0, 1.0);
                    let bend = if c.bend_positive { 1.0 } else { -1.0 };
                    let want = to_goal.y.atan2(to_goal.x) + bend * cos.acos();
                    let have = (o2 - o1).y.atan2((o2 - o1).x);
                    delta1 = wrap(want - have);
                }
                add_rotation(skeleton, &mut pose, &world, parent, delta1 * c.mix);
                let world = skeleton.world_affines(&pose)?;
                let delta2 = aim(&world[child], aim_tip(skeleton, child), goal);
                add_rotation(skeleton, &mut pose, &world, child, delta2 * c.mix);
            }
            _ => unreachable!("checked: 1 or 2 bones"),
        }
    }
    Ok(pose)
}

fn origin(m: &Affine2) -> Point2<f64> {
    Point2::new(m.tx, m.ty)
}

/// The point in bone `j`'s frame the chain aims with: its rest tail, or its x axis when
/// the bone has no length.
fn aim_tip(skeleton: &Skeleton, j: usize) -> Point2<f64> {
    let b = &skeleton.bones()[j];
    let local = skeleton.rest_affines()[j]
        .inverse()
        .map(|inv| inv.apply(b.tail))
        .unwrap_or(Point2::new(1.0, 0.0));
    if local.coords.norm() > 0.0 {
        local
    } else {
        Point2::new(1.0, 0.0)
    }
}

/// World rotation (radians) that turns `tip` (in the frame of `m`) about `m`'s origin toward
/// `goal`.
fn aim(m: &Affine2, tip: Point2<f64>, goal: Point2<f64>) -> f64 {
    let o = origin(m);
    let t = m.apply(tip) - o;
    let g = goal - o;
    if t.norm() == 0.0 || g.norm() == 0.0 {
        return 0.0;
    }
    wrap(g.y.atan2(g.x) - t.y.atan2(t.x))
}

fn wrap(a: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    let r = (a + std::f64::consts::PI).rem_euclid(tau) - std::f64::consts::PI;
    if r.is_finite() {
        r
    } else {
        0.0
    }
}

/// Adds a world rotation (radians) to bone `j`'s rotation offset. A local rotation turns
/// the bone's whole frame within the frame its inherit mode gives it; that frame reflects
/// exactly when the parent's does and the mode inherits reflection (`Normal`, `NoScale`,
/// rigid bones), and then local rotations turn the other way in the world.
fn add_rotation(skeleton: &Skeleton, pose: &mut Pose, world: &[Affine2], j: usize, delta: f64) {
    use crate::skeleton::Inherit;
    let b = &skeleton.bones()[j];
    let inherits_reflection = b
        .local
        .is_none_or(|l| matches!(l.inherit, Inherit::Normal | Inherit::NoScale));
    let reflected = inherits_reflection && b.parent.is_some_and(|p| world[p].determinant() < 0.0);
    let deg = if reflected { -delta } else { delta }.to_degrees();
    *pose.rotations.entry(b.name.clone()).or_insert(0.0) += deg;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_past_one_is_accepted_and_noted_hostile_mix_refused() {
        assert_eq!(mix_problem(1.0206613571016943), None);
        assert_eq!(mix_problem(-0.5), None);
        assert!(mix_problem(1000.5).unwrap().contains("|mix| <= 1000"));
        assert!(mix_problem(f64::NAN).is_some());
        let mut c = IkConstraint::new("IK_right_hand", vec!["a".into()], "t");
        c.mix = 1.0206613571016943;
        let notes = c.notes();
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("\"IK_right_hand\"") && notes[0].contains("unclamped"));
        c.mix = 1.0;
        assert!(c.notes().is_empty());
    }
}
