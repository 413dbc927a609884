//! Deforming a mesh with its weights: linear blend skinning (the seed's CPU reference loop).

use crate::error::{Error, Result};
use crate::skeleton::{Pose, Skeleton};
use crate::weights::Weights;
use nalgebra::{Isometry2, Point2};
use rayon::prelude::*;

/// Smallest weight sum the blend divides by (the seed's `epsilon`).
pub const WEIGHT_SUM_EPSILON: f64 = 1e-12;

/// Blends already-transformed positions `(weight, position)` **without** normalizing:
/// `sum_j w_j p_j`. With weights summing to less than 1 the result shrinks toward the origin;
/// this is what an engine that skips normalization computes.
pub fn blend_raw(influences: &[(f64, Point2<f64>)]) -> Point2<f64> {
    let mut out = Point2::origin();
    for &(w, p) in influences {
        out.coords += w * p.coords;
    }
    out
}

/// Blends transformed positions as the seed's reference loop does: negative weights are
/// clamped to 0 and the sum is divided by `max(weight sum, epsilon)`.
pub fn blend(influences: &[(f64, Point2<f64>)]) -> Point2<f64> {
    let mut out = Point2::origin();
    let mut sum = 0.0;
    for &(w, p) in influences {
        let w = w.max(0.0);
        out.coords += w * p.coords;
        sum += w;
    }
    Point2::from(out.coords / sum.max(WEIGHT_SUM_EPSILON))
}

/// Linear blend skinning of every rest position with per-bone skinning transforms
/// `S_j = M_j B_j^-1`: `v' = sum_j max(w_j, 0) S_j v / max(sum_j max(w_j, 0), epsilon)`.
pub fn lbs_with_transforms(
    rest: &[Point2<f64>],
    weights: &Weights,
    transforms: &[Isometry2<f64>],
) -> Result<Vec<Point2<f64>>> {
    check_shape(rest.len(), weights, transforms.len())?;
    Ok(rest
        .par_iter()
        .zip(weights.rows().collect::<Vec<_>>().into_par_iter())
        .map(|(v, row)| {
            let mut out = nalgebra::Vector2::zeros();
            let mut sum = 0.0;
            for (j, &w) in row.iter().enumerate() {
                let w = w.max(0.0);
                if w == 0.0 {
                    continue;
                }
                out += w * (transforms[j] * v).coords;
                sum += w;
            }
            Point2::from(out / sum.max(WEIGHT_SUM_EPSILON))
        })
        .collect())
}

/// Linear blend skinning of `rest` positions for a pose of `skeleton`.
pub fn linear_blend_skinning(
    rest: &[Point2<f64>],
    skeleton: &Skeleton,
    weights: &Weights,
    pose: &Pose,
) -> Result<Vec<Point2<f64>>> {
    let transforms = skeleton.skinning_transforms(pose)?;
    lbs_with_transforms(rest, weights, &transforms)
}

pub(crate) fn check_shape(n_vertices: usize, weights: &Weights, n_bones: usize) -> Result<()> {
    if weights.vertex_count() != n_vertices || weights.bone_count() != n_bones {
        return Err(Error::WeightsShape {
            message: format!(
                "weights are {} vertices x {} bones, the scene has {} vertices x {} bones",
                weights.vertex_count(),
                weights.bone_count(),
                n_vertices,
                n_bones
            ),
        });
    }
    Ok(())
}
