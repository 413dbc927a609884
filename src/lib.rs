//! # skinweights
//!
//! Automatic skinning weights for 2D characters, and honest measurements of how good they are.
//!
//! The data flow is one line (see `ARCHITECTURE.md`):
//!
//! ```text
//! Scene (Mesh + Skeleton + Probes) --Solver--> Weights --Pose + Skinning--> deformed Mesh --> Metrics
//! ```
//!
//! Every stage is a plain value you can save, load and inspect.
//!
//! ## Example: a two-bone strip, skinned
//!
//! ```
//! use nalgebra::Point2;
//! use skinweights::mesh::Mesh;
//! use skinweights::skeleton::{Bone, Pose, Skeleton};
//! use skinweights::skinning::linear_blend_skinning;
//! use skinweights::weights::Weights;
//!
//! // A 2 x 1 strip of four triangles, counter-clockwise.
//! let vertices = vec![
//!     Point2::new(0.0, 0.0), Point2::new(1.0, 0.0), Point2::new(2.0, 0.0),
//!     Point2::new(0.0, 1.0), Point2::new(1.0, 1.0), Point2::new(2.0, 1.0),
//! ];
//! let triangles = vec![[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4]];
//! let mesh = Mesh::new(vertices, triangles)?;
//! mesh.sanity_check()?;
//!
//! // Two bones along the strip's axis; the second is a child of the first.
//! let skeleton = Skeleton::new(vec![
//!     Bone::new("upper", Point2::new(0.0, 0.5), Point2::new(1.0, 0.5)),
//!     Bone::new("lower", Point2::new(1.0, 0.5), Point2::new(2.0, 0.5)).with_parent(0),
//! ])?;
//!
//! // Left column on `upper`, middle column blended, right column on `lower`.
//! let rows = [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [0.0, 1.0]];
//! let weights = Weights::from_rows(&rows.map(|r| r.to_vec()), 2)?;
//! weights.validate()?;
//!
//! // Bend the lower bone by 90 degrees about its head (1, 0.5).
//! let pose = Pose::rest().rotate("lower", 90.0);
//! let posed = linear_blend_skinning(mesh.vertices(), &skeleton, &weights, &pose)?;
//! // The tip (2, 0) swings around the joint to (1.5, 1.5).
//! assert!((posed[2] - Point2::new(1.5, 1.5)).norm() < 1e-12);
//! // The rest pose moves nothing (the bind-identity check).
//! let rest = linear_blend_skinning(mesh.vertices(), &skeleton, &weights, &Pose::rest())?;
//! assert!(rest.iter().zip(mesh.vertices()).all(|(a, b)| (a - b).norm() < 1e-12));
//! # Ok::<(), skinweights::Error>(())
//! ```
//!
//! ## Example: solve weights for a built-in character and measure leakage
//!
//! ```
//! use skinweights::metrics;
//! use skinweights::scene::{builtin_scene, BuiltinOptions};
//!
//! let scene = builtin_scene("arms-down", &BuiltinOptions::default().with_vertices(2000))?;
//! let lift = scene.probe(Some("lift_l"))?;
//! for solver in ["euclidean", "heat", "heat+mask"] {
//!     let weights = skinweights::solvers::solve(&scene, solver)?;
//!     weights.validate()?; // finite, >= 0, rows sum to 1
//!     let m = metrics::evaluate(&scene, &weights, lift)?;
//!     match solver {
//!         "euclidean" => assert!(m.drag_max_pct > 20.0), // drags the torso with the arm
//!         "heat" => assert!(m.drag_max_pct < 2.0),       // heat with 2D visibility does not
//!         _ => assert_eq!(m.drag_max_pct, 0.0),          // masks cut the leak completely
//!     }
//! }
//! # Ok::<(), skinweights::Error>(())
//! ```

#![warn(missing_docs)]

pub mod animation;
#[cfg(feature = "io")]
pub mod batch;
pub mod binding;
pub mod compare;
pub mod correctives;
mod error;
pub mod geometry;
#[cfg(feature = "io")]
pub mod io;
pub mod lint;
pub mod mesh;
pub mod metrics;
#[cfg(feature = "io")]
pub mod pipeline;
#[cfg(feature = "plot")]
pub mod plot;
#[cfg(feature = "io")]
pub mod render;
pub mod scene;
pub mod seams;
pub mod skeleton;
pub mod skinning;
pub mod solvers;
pub mod transfer;
pub mod weights;

// README's and docs/library.md's Rust examples run as doctests, so they cannot drift from the API.
#[cfg(all(doctest, feature = "cli"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
#[cfg(all(doctest, feature = "cli"))]
#[doc = include_str!("../docs/library.md")]
struct LibraryDocDoctests;

pub use error::{
    ArgumentError, ArtError, BatchError, ClipError, CorrectiveError, Error, FormatError,
    LinearAlgebraProblem, MeshError, MeshingProblem, OutlinePlace, OutputError, RepairProblem,
    Result, RigFormat, SceneError, SeamError, SeamProblem, SkeletonError, SolverError,
    TriangleLayersProblem, VertexPartsProblem, WeightsError, WeightsShapeProblem,
};

/// The nalgebra version this crate is built with.
pub use nalgebra;
/// The nalgebra types the API takes and returns (always with `f64`), re-exported so callers
/// need no nalgebra dependency of their own, nor one of the same version:
/// `skinweights::Point2::new(0.0, 1.0)`. The crate itself: [`nalgebra`].
pub use nalgebra::{Isometry2, Matrix2, Point2, Vector2};
