//! **euclidean**: the straight-line distance from a vertex to each bone segment, through the
//! shared inverse-power falloff ([`Falloff`](super::distance::Falloff)), normalized. Fast, and blind to gaps: it is the
//! baseline that leaks across the gap between an arm and the torso.

use super::distance::{bone_segments, FalloffOptions};
use super::{finish, Solution, Solver};
use crate::error::Result;
use crate::scene::Scene;
use crate::weights::Weights;
use std::time::Instant;

/// Options of [`Euclidean`]: the shared falloff options ([`FalloffOptions`]).
pub type EuclideanOptions = FalloffOptions;

/// The euclidean solver.
#[derive(Debug, Clone, Default)]
pub struct Euclidean {
    /// Its options.
    pub options: EuclideanOptions,
}

impl Euclidean {
    /// A solver with these options.
    pub fn new(options: EuclideanOptions) -> Self {
        Euclidean { options }
    }
}

impl Solver for Euclidean {
    fn name(&self) -> String {
        "euclidean".into()
    }

    fn solve(&self, scene: &Scene) -> Result<Solution> {
        let started = Instant::now();
        let falloff = self.options.falloff(scene)?;
        let segments = bone_segments(scene.skeleton.bones());
        let pts = scene.mesh.vertices();
        // Straight-line distances are finite, so no row can come back empty.
        let (data, _) = falloff.weights_from(pts.len(), segments.len(), |v, row| {
            for (d, s) in row.iter_mut().zip(&segments) {
                *d = s.distance(&pts[v]);
            }
        });
        let weights = Weights::from_row_major(data, segments.len())?;
        finish(self.name(), started, weights, Vec::new())
    }
}
