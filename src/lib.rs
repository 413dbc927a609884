//! # skinweights
//!
//! Automatic skinning weights for 2D characters, and honest measurements of how good they are.

#![warn(missing_docs)]

pub mod error;
pub mod mesh;
pub mod scene;
pub mod skeleton;
pub mod skinning;
pub mod solvers;
pub mod weights;

pub use error::{Error, Result};
pub use mesh::{Mesh, Topology};
pub use scene::{builtin_scene, load_scene, save_scene, BuiltinOptions, Probe, Scene, Watch};
pub use skeleton::{Bone, Pose, Skeleton};
pub use skinning::linear_blend_skinning;
pub use solvers::{solve, solver_by_name, Solution, SolveReport, Solver, SOLVER_NAMES};
pub use weights::{Weights, WeightsFile};
