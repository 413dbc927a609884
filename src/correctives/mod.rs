//! Corrective shapes: the third remedy for linear blend skinning's collapse, "draw
//! the correct cross-section at a few key angles and interpolate between them".
//!
//! A [`Corrective`] belongs to one **joint**, named by its child bone: the joint angle is the
//! child's local rotation in the pose (degrees, counter-clockwise, relative to its parent).
//! It moves a fixed list of vertices (the joint's band) by an offset per **key angle**. In a
//! pose, the offsets of the two keys around the joint angle are interpolated
//! ([`Interpolation`]) and added **after skinning**:
//!
//! ```text
//! v'' = v' + R_parent * o(θ)
//! o(θ) = (1 - s) o_k + s o_(k+1),  t = (θ - θ_k) / (θ_(k+1) - θ_k),  s = t (linear) or t² (3 - 2t) (smooth)
//! ```
//!
//! where `v'` is the skinned position, `θ_k <= θ <= θ_(k+1)` the keys around the joint
//! angle and `R_parent` the rotation of the parent bone's skinning transform `M_p B_p^-1`, so
//! that the corrective turns with the limb when the whole character moves (offsets are
//! stored as rest-pose world vectors, i.e. in the parent's frame when the parent is at
//! rest). The rest angle 0 is a key with zero offsets unless a key is given there; beyond the
//! first or last key the nearest key's offsets are held. Both interpolations are convex
//! blends of two keys, so a corrective never goes beyond what was drawn; the smooth one has
//! zero slope at every key (no kink when the angle passes a key).
//!
//! Hand-made correctives are plain values (a scene file carries them, `Scene::correctives`);
//! [`auto_corrective`] computes automatic ones: per key angle, the joint's corner replaced by a circular
//! bend that keeps every cross-section at its rest width, with the limbs beyond it where the
//! bones put them ([`fit::auto_corrective`]).

mod fit;

pub use crate::scene::correctives::{
    apply_correctives, check_correctives, skin_with_correctives, Corrective, CorrectiveKey,
    Interpolation,
};
pub use fit::{
    auto_corrective, AutoCorrective, AutoCorrectiveOptions, BendShape, DEFAULT_KEY_STEP,
    DEFAULT_MARGIN, DEFAULT_MAX_REACH, MAX_KEY_ANGLE,
};

use crate::error::Result;
use crate::scene::Scene;
use crate::skeleton::Pose;
use crate::skinning::linear_blend_skinning;
use crate::weights::Weights;
use nalgebra::Point2;

/// The scene's vertices drawn in `pose`: linear blend skinning on the affine path
/// ([`linear_blend_skinning`]), then the scene's correctives ([`Scene::apply_correctives`]).
/// What `render`, the clip metrics and the view draw; without correctives it is
/// [`linear_blend_skinning`] exactly.
pub fn skin_scene(scene: &Scene, weights: &Weights, pose: &Pose) -> Result<Vec<Point2<f64>>> {
    let mut posed = linear_blend_skinning(scene.mesh.vertices(), &scene.skeleton, weights, pose)?;
    scene.apply_correctives(pose, &mut posed)?;
    Ok(posed)
}
