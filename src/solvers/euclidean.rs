//! **euclidean**: the straight-line distance from a vertex to each bone segment, through the
//! shared inverse-power falloff ([`Falloff`](super::distance::Falloff)), normalized. Fast, and blind to gaps: it is the
//! baseline that leaks across the gap between an arm and the torso.

use super::distance::{bone_segments, FalloffOptions};
use super::{finish, Solution, SolveWarning, Solver};
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

    fn compute(&self, scene: &Scene) -> Result<Solution> {
        let started = Instant::now();
        let falloff = self.options.falloff(scene)?;
        let segments = bone_segments(scene.skeleton.bones());
        let pts = scene.mesh.vertices();
        let nb = segments.len();
        let (mut data, empty) = falloff.weights_from(pts.len(), nb, |v, row| {
            for (d, s) in row.iter_mut().zip(&segments) {
                *d = s.distance(&pts[v]);
            }
        });
        // Only a vertex so far out that every distance overflows (an artist mesh's unused
        // vertex at 1e301) comes back empty: it gets equal shares.
        for &v in &empty {
            data[v * nb..(v + 1) * nb].fill(1.0 / nb as f64);
        }
        let warnings = match empty.first() {
            Some(&first) => vec![SolveWarning::DistancesOverflow {
                count: empty.len(),
                first,
            }],
            None => Vec::new(),
        };
        let weights = Weights::from_row_major(data, nb)?;
        finish(self.name(), started, weights, warnings)
    }
}
