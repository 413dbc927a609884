//! What a solve tells the user besides its weights, typed: each warning has a kind, the names
//! it concerns, and the sentence the command line prints (`Display`).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// One warning of a solve ([`super::SolveReport::warnings`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SolveWarning {
    /// Vertices no triangle uses: solved without them, each weighted to its nearest bone.
    UnusedVertices {
        /// How many.
        count: usize,
        /// The first of them.
        first: usize,
    },
    /// `euclidean`: vertices so far out that every bone distance overflows get equal weights.
    DistancesOverflow {
        /// How many.
        count: usize,
        /// The first of them.
        first: usize,
    },
    /// A connected component that sees no bone from inside: visibility is ignored in it.
    BlindComponent {
        /// The component as [`crate::mesh::Mesh::component_name`] names it.
        component: String,
    },
    /// `bbw`: a bone that is no vertex's nearest bone has no handle and gets weight 0.
    BoneWithoutHandle {
        /// The bone.
        bone: String,
    },
    /// `bbw`: no vertex lies on the bone; its handles are the vertices within one mean edge
    /// length of its closest vertex.
    HandlesNearBone {
        /// The bone.
        bone: String,
        /// How many vertices became its handles.
        handles: usize,
        /// The mean edge length.
        step: f64,
        /// How far its closest vertex is.
        closest: f64,
    },
    /// `bbw`: a bone's active set still changed at the iteration limit.
    NotConverged {
        /// The bone.
        bone: String,
        /// The iterations run.
        iterations: usize,
    },
    /// `bbw`: a component with no vertex on a bone; its vertices closest to a bone are fixed.
    ComponentOffBones {
        /// The component as [`crate::mesh::Mesh::component_name`] names it.
        component: String,
        /// How many vertices were fixed.
        handles: usize,
    },
    /// A masked solver: a part no bone may influence keeps the unmasked weights.
    UnmaskablePart {
        /// The part.
        part: String,
    },
    /// A warning of the solve of one mesh (a binding solves meshes apart).
    InMesh {
        /// The mesh (its part).
        mesh: String,
        /// What its solve said.
        warning: Box<SolveWarning>,
    },
    /// The solve on a subdivided copy of the mesh failed (the binder's re-solve,
    /// [`crate::binding::BindOptions::refine`]): the mesh was solved on its own vertices.
    RefineFailed {
        /// The subdivision target (vertices).
        target: usize,
        /// Why the subdivided solve failed.
        error: String,
    },
    /// A warning read back from a file (`compare.json`), as its text.
    Recorded(String),
}

impl SolveWarning {
    /// The kind: warnings of one kind differ only in their names and numbers (a mesh's
    /// warning has the kind of what its solve said).
    pub fn kind(&self) -> &'static str {
        match self {
            SolveWarning::UnusedVertices { .. } => "unused vertices",
            SolveWarning::DistancesOverflow { .. } => "distances overflow",
            SolveWarning::BlindComponent { .. } => "blind component",
            SolveWarning::BoneWithoutHandle { .. } => "bone without handle",
            SolveWarning::HandlesNearBone { .. } => "handles near bone",
            SolveWarning::NotConverged { .. } => "not converged",
            SolveWarning::ComponentOffBones { .. } => "component off bones",
            SolveWarning::UnmaskablePart { .. } => "unmaskable part",
            SolveWarning::RefineFailed { .. } => "refine failed",
            SolveWarning::InMesh { warning, .. } => warning.kind(),
            SolveWarning::Recorded(_) => "recorded",
        }
    }

    /// This warning as one of the solve of mesh `mesh`.
    pub fn in_mesh(self, mesh: &str) -> SolveWarning {
        SolveWarning::InMesh {
            mesh: mesh.to_string(),
            warning: Box::new(self),
        }
    }
}

impl fmt::Display for SolveWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveWarning::UnusedVertices { count, first } => write!(
                f,
                "{count} vertices are used by no triangle (e.g. vertex {first}): solved without \
                 them, each weighted to its nearest bone"
            ),
            SolveWarning::DistancesOverflow { count, first } => write!(
                f,
                "{count} vertices (e.g. vertex {first}) are so far away that every bone distance \
                 overflows: equal weights"
            ),
            SolveWarning::BlindComponent { component } => write!(
                f,
                "{component} sees no bone from inside the shape: visibility was ignored inside \
                 it (straight-line distances)"
            ),
            SolveWarning::BoneWithoutHandle { bone } => write!(
                f,
                "bone {bone:?} is no vertex's nearest bone: it has no handle and gets weight 0"
            ),
            SolveWarning::HandlesNearBone {
                bone,
                handles,
                step,
                closest,
            } => write!(
                f,
                "no vertex lies on bone {bone:?}: its handles are the {handles} vertices within \
                 one mean edge length ({step:.3}) of its closest vertex ({closest:.3} away)"
            ),
            SolveWarning::NotConverged { bone, iterations } => write!(
                f,
                "bone {bone:?}: the active set still changed after {iterations} iterations; its \
                 weights are clipped to [0, 1] but not the exact optimum"
            ),
            SolveWarning::ComponentOffBones { component, handles } => write!(
                f,
                "{component} has no vertex on a bone: its {handles} vertices closest to a bone \
                 are fixed to their nearest bones"
            ),
            SolveWarning::UnmaskablePart { part } => write!(
                f,
                "no bone may influence part {part:?}: its vertices keep the unmasked weights"
            ),
            SolveWarning::RefineFailed { target, error } => write!(
                f,
                "the solve on a copy subdivided to {target} vertices failed ({error}): solved \
                 on the mesh's own vertices"
            ),
            SolveWarning::InMesh { mesh, warning } => write!(f, "mesh {mesh:?}: {warning}"),
            SolveWarning::Recorded(text) => f.write_str(text),
        }
    }
}

/// As its sentence, so files written before warnings were typed read the same.
impl Serialize for SolveWarning {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A sentence read back is [`SolveWarning::Recorded`].
impl<'de> Deserialize<'de> for SolveWarning {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(SolveWarning::Recorded(String::deserialize(d)?))
    }
}

#[cfg(test)]
mod tests {
    use super::SolveWarning;

    #[test]
    fn a_mesh_warning_keeps_its_kind_and_says_the_mesh() {
        let w = SolveWarning::UnmaskablePart { part: "arm".into() }.in_mesh("body");
        assert_eq!(w.kind(), "unmaskable part");
        assert_eq!(
            w.to_string(),
            "mesh \"body\": no bone may influence part \"arm\": its vertices keep the unmasked weights"
        );
    }
}
