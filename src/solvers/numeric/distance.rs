//! Point-to-bone distances and the falloff kernel shared by the euclidean and geodesic solvers.
//!
//! Every formula here is written so that mirroring the scene (x -> -x) mirrors the result
//! exactly, bit for bit: the mirror-symmetry tests rely on it.

use crate::error::{Result, SolverError};
pub use crate::geometry::Segment;
use crate::skeleton::Bone;
use nalgebra::Point2;
use rayon::prelude::*;

/// Segments of all bones of a skeleton, in bone order.
pub fn bone_segments(bones: &[Bone]) -> Vec<Segment> {
    bones.iter().map(Bone::segment).collect()
}

/// Index of the bone whose segment is nearest to `p` (lowest index on exact ties).
pub fn nearest_segment(segments: &[Segment], p: &Point2<f64>) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (j, s) in segments.iter().enumerate() {
        let d = s.distance(p);
        if best.is_none_or(|(_, bd)| d < bd) {
            best = Some((j, d));
        }
    }
    best.map(|(j, _)| j)
}

/// Options of the solvers built on the falloff kernel (euclidean and geodesic).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FalloffOptions {
    /// Exponent of the inverse-power falloff `w ~ 1 / d^p` on the solver's distance (key
    /// `falloff_power`).
    ///
    /// Default: [`FalloffOptions::DEFAULT_FALLOFF_POWER`] (4).
    pub falloff_power: f64,
}

impl Default for FalloffOptions {
    fn default() -> Self {
        FalloffOptions {
            falloff_power: Self::DEFAULT_FALLOFF_POWER,
        }
    }
}

impl FalloffOptions {
    /// Default of [`FalloffOptions::falloff_power`].
    pub const DEFAULT_FALLOFF_POWER: f64 = 4.0;

    /// With [`FalloffOptions::falloff_power`] set.
    pub fn with_falloff_power(mut self, falloff_power: f64) -> Self {
        self.falloff_power = falloff_power;
        self
    }

    /// The checked kernel for `scene` (vertices on a bone are pinned at a scale-relative
    /// distance).
    pub fn falloff(&self, scene: &crate::scene::Scene) -> Result<Falloff> {
        Falloff::check(self.falloff_power)?;
        Ok(Falloff {
            power: self.falloff_power,
            pin_distance: pin_distance(crate::solvers::scene_extent(scene)),
        })
    }
}

impl crate::solvers::SolverOptions for FalloffOptions {
    const SOLVER: &'static str = "euclidean/geodesic";
    const OPTIONS: &'static [crate::solvers::OptionKey<Self>] = &[crate::solvers::OptionKey {
        key: "falloff_power",
        value: "P",
        doc: "w ~ 1/d^P on the solver's distance",
        aliases: &[],
        get: |o| Some(o.falloff_power.to_string()),
        set: |o, k, v| {
            o.falloff_power = crate::solvers::parse_number(k, v, |x| x > 0.0, "> 0")?;
            Ok(())
        },
    }];
}

/// The inverse-power falloff `w_j ~ 1 / d_j^power`, shared by euclidean and geodesic.
///
/// A row is computed as `(d_min / d_j)^power` and then normalized, which never overflows even
/// for tiny distances. Distances at or below `pin_distance` count as zero: those bones share
/// the whole weight equally (a vertex lying on a bone gets weight 1 on it). Infinite distances
/// (unreachable bones) get weight 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Falloff {
    /// Exponent of the inverse power (default 4).
    pub power: f64,
    /// Distances at or below this count as "on the bone" (absolute, scene units).
    pub pin_distance: f64,
}

impl Falloff {
    /// Checks that the exponent is finite and positive.
    pub fn check(power: f64) -> Result<()> {
        if !(power.is_finite() && power > 0.0) {
            return Err(SolverError::InvalidOption {
                option: "falloff_power".into(),
                message: format!("must be finite and > 0, got {power}"),
            }
            .into());
        }
        Ok(())
    }

    /// Turns one row of distances (one per bone) into normalized weights, in place.
    /// Returns `false` when every distance is infinite or NaN (the row is then left all zero).
    pub fn weights_in_place(&self, row: &mut [f64]) -> bool {
        let mut d_min = f64::INFINITY;
        for &d in row.iter() {
            if d < d_min {
                d_min = d;
            }
        }
        if !d_min.is_finite() {
            row.iter_mut().for_each(|w| *w = 0.0);
            return false;
        }
        if d_min <= self.pin_distance {
            let mut k = 0usize;
            for w in row.iter_mut() {
                if *w <= self.pin_distance {
                    *w = 1.0;
                    k += 1;
                } else {
                    *w = 0.0;
                }
            }
            let share = 1.0 / k as f64;
            row.iter_mut().for_each(|w| *w *= share);
            return true;
        }
        // Integer powers (the default 4) through `powi`: several times cheaper than `powf`.
        let int_power =
            (self.power.fract() == 0.0 && self.power <= 64.0).then_some(self.power as i32);
        let mut sum = 0.0;
        for w in row.iter_mut() {
            // NaN and infinity both fail `is_finite` and get no weight.
            *w = if w.is_finite() {
                let ratio = d_min / *w;
                match int_power {
                    Some(k) => ratio.powi(k),
                    None => ratio.powf(self.power),
                }
            } else {
                0.0
            };
            sum += *w;
        }
        row.iter_mut().for_each(|w| *w /= sum);
        true
    }
}

impl Falloff {
    /// Weights for `n` vertices and `n_bones` bones: `fill(v, row)` writes vertex `v`'s
    /// distance to every bone into `row`, which is then turned into weights (rows in
    /// parallel). Returns the weights and the vertices whose every distance was infinite
    /// (their rows are all zero; the caller decides what they get).
    pub fn weights_from(
        &self,
        n: usize,
        n_bones: usize,
        fill: impl Fn(usize, &mut [f64]) + Sync,
    ) -> (Vec<f64>, Vec<usize>) {
        let mut data = vec![0.0; n * n_bones];
        let empty: Vec<usize> = data
            .par_chunks_mut(n_bones * ROWS_PER_TASK)
            .enumerate()
            .flat_map_iter(|(c, block)| {
                let mut empty = Vec::new();
                for (i, row) in block.chunks_exact_mut(n_bones).enumerate() {
                    let v = c * ROWS_PER_TASK + i;
                    fill(v, row);
                    if !self.weights_in_place(row) {
                        empty.push(v);
                    }
                }
                empty
            })
            .collect();
        (data, empty)
    }
}

/// Rows per parallel task of [`Falloff::weights_from`].
const ROWS_PER_TASK: usize = 2048;

/// Absolute distance under which a vertex counts as lying on a bone: a tiny fraction of the
/// scene's size, so that it scales with the scene but never catches a real neighbour.
pub fn pin_distance(extent: f64) -> f64 {
    1e-9 * extent.max(f64::MIN_POSITIVE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_point_clamps_to_the_ends() {
        let s = Segment::new(Point2::new(0.0, 0.0), Point2::new(10.0, 0.0));
        assert_eq!(
            s.closest_point(&Point2::new(-5.0, 3.0)),
            Point2::new(0.0, 0.0)
        );
        assert_eq!(
            s.closest_point(&Point2::new(4.0, 3.0)),
            Point2::new(4.0, 0.0)
        );
        assert_eq!(s.distance(&Point2::new(13.0, 4.0)), 5.0);
    }

    #[test]
    fn zero_length_segment_is_a_point() {
        let s = Segment::new(Point2::new(1.0, 1.0), Point2::new(1.0, 1.0));
        assert_eq!(s.distance(&Point2::new(4.0, 5.0)), 5.0);
    }

    #[test]
    fn falloff_pins_and_normalizes() {
        let f = Falloff {
            power: 4.0,
            pin_distance: 1e-12,
        };
        let mut row = [0.0, 2.0, f64::INFINITY];
        assert!(f.weights_in_place(&mut row));
        assert_eq!(row, [1.0, 0.0, 0.0]);
        let mut row = [1.0, 2.0, f64::INFINITY];
        assert!(f.weights_in_place(&mut row));
        assert!((row[0] - 16.0 / 17.0).abs() < 1e-15);
        assert_eq!(row[2], 0.0);
        let mut row = [f64::INFINITY, f64::NAN];
        assert!(!f.weights_in_place(&mut row));
    }
}
