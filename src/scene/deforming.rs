//! Which bones an automatic solve weights by default: the **deforming** bones. Control bones
//! (IK targets, bones that only drive constraints) and bones the source rig binds no mesh
//! to move the character through other bones; weighting vertices to them makes those
//! vertices follow the controller (issue 47, item 2).
//!
//! The scene format records IK constraints, so IK targets are known from the scene. Whether
//! the source binds a mesh to a bone is known from the rig's own weights (the
//! `SCENE.artist.json` an import writes): a bone with no weight on any vertex there is bound
//! to no mesh. Without those weights only IK targets are left out; a scene without IK
//! constraints (every built-in scene) keeps every bone.

use super::Scene;
use crate::error::{ArgumentError, Result};
use crate::weights::Weights;

/// Why a bone is left out of an automatic solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeftOut {
    /// The target of an IK constraint, bound to no mesh.
    IkTarget,
    /// The source rig binds no vertex to it.
    Unbound,
}

impl LeftOut {
    /// A few words for messages: `IK target`, `bound to no mesh`.
    pub fn describe(self) -> &'static str {
        match self {
            LeftOut::IkTarget => "IK target",
            LeftOut::Unbound => "bound to no mesh",
        }
    }
}

/// The bones of a scene split into those an automatic solve weights and those it leaves
/// out (with the reason), both as scene bone indices in scene order.
#[derive(Debug, Clone, PartialEq)]
pub struct DeformingBones {
    /// Bones the solve weights.
    pub kept: Vec<usize>,
    /// Bones that get weight 0, and why.
    pub left_out: Vec<(usize, LeftOut)>,
}

impl Scene {
    /// The deforming bones: every bone but IK targets and, when `binding` (the source rig's
    /// own weights, columns in the scene's bone order) is given, the bones it puts no weight
    /// on. A bone the binding weights is kept even when it is an IK target.
    ///
    /// Errors: [`WeightsError::WeightsShape`](crate::error::WeightsError::WeightsShape) when `binding` does not fit the scene;
    /// [`ArgumentError::InvalidArgument`] (`--bones`) when the rule would leave no bone.
    pub fn deforming_bones(&self, binding: Option<&Weights>) -> Result<DeformingBones> {
        let nb = self.skeleton.len();
        if let Some(w) = binding {
            crate::skinning::check_shape(self.mesh.vertex_count(), w, nb)?;
        }
        let targets: Vec<&str> = self.ik.iter().map(|c| c.target.as_str()).collect();
        let mut kept = Vec::with_capacity(nb);
        let mut left_out = Vec::new();
        for (j, bone) in self.skeleton.bones().iter().enumerate() {
            let bound = binding.map(|w| (0..w.vertex_count()).any(|v| w.get(v, j) > 0.0));
            let reason = match (bound, targets.contains(&bone.name.as_str())) {
                (Some(true), _) => None,
                (_, true) => Some(LeftOut::IkTarget),
                (Some(false), false) => Some(LeftOut::Unbound),
                (None, false) => None,
            };
            match reason {
                Some(r) => left_out.push((j, r)),
                None => kept.push(j),
            }
        }
        if kept.is_empty() {
            return Err(ArgumentError::InvalidArgument {
                argument: "--bones",
                value: "deforming".into(),
                reason: format!(
                    "scene {:?}: every bone is an IK target or bound to no mesh; give --bones all \
                     or a list",
                    self.name
                ),
            }
            .into());
        }
        Ok(DeformingBones { kept, left_out })
    }
}
