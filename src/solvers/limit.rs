//! The **soft weight limit**: a post-process any solver can use (`--option limit=LOW:HIGH`).
//!
//! Far-field leakage comes from many small weights (2-10%), not from the joint: a weight
//! below `LOW` is set to 0, a weight in `[LOW, HIGH]` is remapped by the cubic Hermite curve
//! that leaves 0 with slope 0 at `LOW` and joins the identity with slope 1 at `HIGH` (so the
//! map is C1 and increasing), weights above `HIGH` are kept, and rows are renormalized. The
//! map is continuous in the weights, so continuous weights stay continuous (no mask-style
//! jump); rows stay `>= 0` and sum to 1. A row whose every weight is below `LOW` (possible
//! only when `LOW >= 1 / bones`) keeps its largest weight alone.

use super::{finish, Solution, Solver};
use crate::error::{Error, Result, SolverError};
use crate::scene::Scene;
use crate::weights::Weights;
use rayon::prelude::*;
use std::time::Instant;

/// The remapping `[0, 1] -> [0, 1]` of one weight before renormalization.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightLimit {
    /// Weights below this become 0.
    pub low: f64,
    /// Weights above this are kept as they are.
    pub high: f64,
}

impl WeightLimit {
    /// A limit with `0 <= low < high <= 1`; the error names the option `limit`.
    pub fn new(low: f64, high: f64) -> Result<Self> {
        if !(low.is_finite() && high.is_finite() && 0.0 <= low && low < high && high <= 1.0) {
            return Err(SolverError::InvalidOption {
                option: "limit".into(),
                message: format!("needs 0 <= LOW < HIGH <= 1, got LOW = {low}, HIGH = {high}"),
            }
            .into());
        }
        Ok(WeightLimit { low, high })
    }

    /// Parses `LOW:HIGH`, e.g. `0.05:0.1`.
    pub fn parse(text: &str) -> Result<Self> {
        let bad = || {
            Error::Solver(SolverError::InvalidOption {
                option: "limit".into(),
                message: format!("{text:?} is not LOW:HIGH (two numbers, e.g. 0.05:0.1)"),
            })
        };
        let (a, b) = text.split_once(':').ok_or_else(bad)?;
        let low: f64 = a.trim().parse().map_err(|_| bad())?;
        let high: f64 = b.trim().parse().map_err(|_| bad())?;
        WeightLimit::new(low, high)
    }

    /// The remapped weight: 0 below `low`, the C1 Hermite ramp on `[low, high]`, identity
    /// above.
    pub fn remap(&self, w: f64) -> f64 {
        if w <= self.low {
            return 0.0;
        }
        if w >= self.high {
            return w;
        }
        let d = self.high - self.low;
        let t = (w - self.low) / d;
        // Hermite basis: value 0 and slope 0 at t = 0; value `high`, slope 1 (d in t) at 1.
        let (t2, t3) = (t * t, t * t * t);
        self.high * (3.0 * t2 - 2.0 * t3) + d * (t3 - t2)
    }

    /// Remaps every weight and renormalizes the rows.
    pub fn apply(&self, weights: &mut Weights) {
        let nb = weights.bone_count();
        if nb == 0 {
            return;
        }
        // In place: a copy of the rows costs as much as the remap on a large scene.
        weights.par_rows_mut_unchecked().for_each(|row| {
            let largest = (0..nb).fold(0, |b, j| if row[j] > row[b] { j } else { b });
            let mut sum = 0.0;
            for w in row.iter_mut() {
                *w = self.remap(*w);
                sum += *w;
            }
            if sum > 0.0 {
                row.iter_mut().for_each(|w| *w /= sum);
            } else {
                row.iter_mut().for_each(|w| *w = 0.0);
                row[largest] = 1.0;
            }
        });
    }
}

/// An inner solver followed by a [`WeightLimit`].
pub struct Limited {
    inner: Box<dyn Solver>,
    limit: WeightLimit,
}

impl Limited {
    /// Applies `limit` to the output of `inner`.
    pub fn new(inner: Box<dyn Solver>, limit: WeightLimit) -> Self {
        Limited { inner, limit }
    }
}

impl Solver for Limited {
    fn name(&self) -> String {
        format!(
            "{}+limit({}:{})",
            self.inner.name(),
            self.limit.low,
            self.limit.high
        )
    }

    fn compute(&self, scene: &Scene) -> Result<Solution> {
        let started = Instant::now();
        let inner = self.inner.compute(scene)?;
        let mut weights = inner.weights;
        self.limit.apply(&mut weights);
        finish(self.name(), started, weights, inner.report.warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remap_is_c1_increasing_and_fixes_the_ends() {
        let l = WeightLimit::new(0.05, 0.1).unwrap();
        assert_eq!(l.remap(0.0), 0.0);
        assert_eq!(l.remap(0.05), 0.0);
        assert!((l.remap(0.1) - 0.1).abs() < 1e-15);
        assert_eq!(l.remap(0.7), 0.7);
        let h = 1e-7;
        let slope = |w: f64| (l.remap(w + h) - l.remap(w - h)) / (2.0 * h);
        assert!(slope(0.05).abs() < 1e-5, "{}", slope(0.05));
        assert!((slope(0.1) - 1.0).abs() < 1e-5, "{}", slope(0.1));
        let mut prev = 0.0;
        for k in 0..=1000 {
            let w = k as f64 / 1000.0;
            let r = l.remap(w);
            assert!(r >= prev && r >= 0.0 && r <= w + 1e-15, "{w}: {r}");
            prev = r;
        }
    }

    #[test]
    fn rows_stay_normalized_and_small_weights_go() {
        let mut w = Weights::from_rows(
            &[
                vec![0.9, 0.07, 0.03],
                vec![0.5, 0.5, 0.0],
                vec![1.0 / 3.0; 3],
            ],
            3,
        )
        .unwrap();
        WeightLimit::new(0.05, 0.1).unwrap().apply(&mut w);
        assert_eq!(w.row(0)[2], 0.0);
        assert!(w.row(0)[1] > 0.0 && w.row(0)[1] < 0.07);
        assert_eq!(w.row(1), &[0.5, 0.5, 0.0]);
        assert!(w.normalization_error() < 1e-12);
        // Every weight below LOW: the largest is kept.
        let mut w = Weights::from_rows(&[vec![0.3, 0.35, 0.35]], 3).unwrap();
        WeightLimit::new(0.4, 0.5).unwrap().apply(&mut w);
        assert_eq!(w.row(0), &[0.0, 1.0, 0.0]);
    }

    #[test]
    fn bad_limits_are_typed_errors() {
        for bad in ["0.1", "0.2:0.1", "a:b", "-0.1:0.1", "0.1:1.5", "NaN:0.2"] {
            assert!(
                matches!(WeightLimit::parse(bad), Err(Error::Solver(SolverError::InvalidOption { ref option, .. })) if option == "limit"),
                "{bad}"
            );
        }
    }
}
