//! Seams between separately drawn layers (the crack at the elbow): where layers that
//! should meet separate once a joint bends, how wide the opening gets, and the repairs in
//! the production order (shared boundary vertices, a small inward overlap, alpha dilation,
//! premultiplied alpha, seam-consistent weights with limited smoothing).
//!
//! The seam model (which vertices a scene records as moving together) is
//! [`crate::scene::Seams`]; [`crate::solvers::Solver::solve`] applies its join.
//!
//! - [`measure`]: finding the seams of a layered scene ([`measure::Seam`]) and measuring them
//!   in a pose.
//! - Painted layer images for model-only layered scenes (the built-in `layered-elbow`) and
//!   the seams' pixel gap, which draw, are in `render::paint` and `render::seam_gaps`
//!   (feature `io`).
//! - [`repair`]: the repairs, each a function that returns the repaired value and a report of
//!   what it changed.

pub mod measure;
pub mod repair;
