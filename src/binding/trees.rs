//! Boosted trees over [`pair_features`](super::pair_features): the learned binder the library
//! ships ([`FITTED_TREES`], written by `BINDING_MODE=learned cargo run --release --bin binding`).

use super::{choose_by, MeshBones, PartFeatures, FEATURES};

/// One tree of depth 2: a split at the root, one under each side, four leaves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairTree {
    /// (feature, threshold) at the root, then under its left and right sides; a value at most
    /// the threshold goes left.
    pub splits: [(usize, f64); 3],
    /// Log-odds added by the leaves: left-left, left-right, right-left, right-right.
    pub leaves: [f64; 4],
}

impl PairTree {
    /// The log-odds this tree adds for features `x`.
    fn value(&self, x: &[f64; FEATURES]) -> f64 {
        let left = x[self.splits[0].0] <= self.splits[0].1;
        let (f, v) = self.splits[if left { 1 } else { 2 }];
        self.leaves[usize::from(!left) * 2 + usize::from(x[f] > v)]
    }
}

/// Gradient-boosted trees on the log loss: the probability that an artist binds a (mesh,
/// bone) pair is the logistic of `bias` plus every tree's leaf.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BinderTrees {
    /// The log-odds before any tree (the training pairs' prior).
    pub bias: f64,
    /// The trees, summed.
    pub trees: &'static [PairTree],
    /// The probability from which any bone is bound.
    pub threshold: f64,
    /// The probability from which a bone of the base set (the hand-made rule's bones and the
    /// heaviest) stays bound. Equal to `threshold` when the trees decide alone.
    pub keep: f64,
}

impl BinderTrees {
    /// The probability that an artist binds the pair with features `x`.
    pub fn probability(&self, x: &[f64; FEATURES]) -> f64 {
        let z = self.bias + self.trees.iter().map(|t| t.value(x)).sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }

    /// Per part of `features`, the bones with a probability of at least `threshold`, those of
    /// the base set with at least `keep`, and always the most probable one.
    pub fn choose(&self, features: &[PartFeatures]) -> Vec<MeshBones> {
        choose_by(features, |x| self.probability(x), self.threshold, self.keep)
    }

    /// Every split names a feature of [`FEATURES`] and every value is finite but for a split
    /// that sends everything left (threshold +inf).
    pub fn sanity_check(&self) -> bool {
        self.bias.is_finite()
            && self.threshold.is_finite()
            && self.keep.is_finite()
            && self.trees.iter().all(|t| {
                t.splits.iter().all(|&(f, v)| f < FEATURES && !v.is_nan())
                    && t.leaves.iter().all(|l| l.is_finite())
            })
    }
}

pub use super::fitted_trees::FITTED_TREES;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_trees_are_sane_and_give_probabilities() {
        assert!(FITTED_TREES.sanity_check());
        assert!(!FITTED_TREES.trees.is_empty());
        for x in [[0.0; FEATURES], [1.0; FEATURES]] {
            let p = FITTED_TREES.probability(&x);
            assert!((0.0..=1.0).contains(&p), "{p}");
        }
    }

    #[test]
    fn a_tree_sends_a_value_at_its_threshold_left() {
        static ONE: [PairTree; 1] = [PairTree {
            splits: [(0, 0.5), (1, 0.5), (1, 0.5)],
            leaves: [-1.0, 0.0, 1.0, 2.0],
        }];
        let trees = BinderTrees {
            bias: 0.0,
            trees: &ONE,
            threshold: 0.5,
            keep: 0.5,
        };
        let mut x = [0.0; FEATURES];
        x[0] = 0.5;
        assert!((trees.probability(&x) - 1.0 / (1.0 + 1f64.exp())).abs() < 1e-12);
        x[0] = 0.6;
        x[1] = 0.7;
        assert!((trees.probability(&x) - 1.0 / (1.0 + (-2f64).exp())).abs() < 1e-12);
    }
}
