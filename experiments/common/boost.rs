//! Gradient-boosted trees of depth 2 on the log loss, over binned features: the second model
//! the learned binder of issue 60 tries (`experiments/binding.rs`), after the logit
//! ([`super::logit`]).

/// Bins per feature (quantiles of the training rows).
const BINS: usize = 16;

/// One tree: a split at the root, one under each side, four leaves.
#[derive(Debug, Clone)]
struct Tree {
    /// (feature, threshold) at the root, then under its left and right sides.
    splits: [(usize, f64); 3],
    /// Leaf values: left-left, left-right, right-left, right-right.
    leaves: [f64; 4],
}

/// A boosted ensemble: the sum of its trees' leaves is the log-odds.
#[derive(Debug, Clone)]
pub struct Boost {
    bias: f64,
    trees: Vec<Tree>,
}

impl Boost {
    /// The probability of the positive class for features `x`.
    pub fn probability(&self, x: &[f64]) -> f64 {
        let z = self.bias
            + self
                .trees
                .iter()
                .map(|t| {
                    let left = x[t.splits[0].0] <= t.splits[0].1;
                    let (f, v) = t.splits[if left { 1 } else { 2 }];
                    let leaf = usize::from(!left) * 2 + usize::from(x[f] > v);
                    t.leaves[leaf]
                })
                .sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }
}

/// Fits `rounds` trees with shrinkage `rate` and L2 `lambda` on the leaves, each row counted
/// `weight` times.
pub fn fit(x: &[Vec<f64>], labels: &[bool], weight: &[f64], rounds: usize, rate: f64) -> Boost {
    let n = x.len();
    let d = x.first().map_or(0, Vec::len);
    // Per feature, the thresholds between bins (distinct quantiles).
    let cuts: Vec<Vec<f64>> = (0..d)
        .map(|k| {
            let mut v: Vec<f64> = x.iter().map(|r| r[k]).collect();
            v.sort_by(f64::total_cmp);
            let mut c: Vec<f64> = (1..BINS).map(|b| v[(b * n / BINS).min(n - 1)]).collect();
            c.dedup();
            c
        })
        .collect();
    let bin: Vec<Vec<u8>> = x
        .iter()
        .map(|r| {
            (0..d)
                .map(|k| cuts[k].partition_point(|&c| c < r[k]) as u8)
                .collect()
        })
        .collect();
    let total: f64 = weight.iter().sum::<f64>().max(1e-12);
    let positive: f64 = labels
        .iter()
        .zip(weight)
        .filter(|(y, _)| **y)
        .map(|(_, w)| w)
        .sum();
    let prior = (positive / total).clamp(1e-6, 1.0 - 1e-6);
    let bias = (prior / (1.0 - prior)).ln();
    let lambda = 1e-3 * total;
    let mut z = vec![bias; n];
    let mut trees = Vec::new();
    for _ in 0..rounds {
        let (g, h): (Vec<f64>, Vec<f64>) = (0..n)
            .map(|i| {
                let p = 1.0 / (1.0 + (-z[i]).exp());
                let t = if labels[i] { 1.0 } else { 0.0 };
                (weight[i] * (p - t), weight[i] * (p * (1.0 - p)).max(1e-9))
            })
            .unzip();
        let all: Vec<usize> = (0..n).collect();
        let root = best_split(&all, &bin, &g, &h, d, lambda);
        let (l, r): (Vec<usize>, Vec<usize>) = all
            .iter()
            .partition(|&&i| usize::from(bin[i][root.0]) <= root.1);
        let sl = best_split(&l, &bin, &g, &h, d, lambda);
        let sr = best_split(&r, &bin, &g, &h, d, lambda);
        let leaf = |rows: &[usize], s: (usize, usize), right: bool| {
            let (gs, hs) = rows
                .iter()
                .filter(|&&i| (usize::from(bin[i][s.0]) > s.1) == right)
                .fold((0.0, 0.0), |(a, b), &i| (a + g[i], b + h[i]));
            -rate * gs / (hs + lambda)
        };
        let leaves = [
            leaf(&l, sl, false),
            leaf(&l, sl, true),
            leaf(&r, sr, false),
            leaf(&r, sr, true),
        ];
        // A bin index b keeps values up to cuts[b] (the last bin: everything above).
        let value = |s: (usize, usize)| cuts[s.0].get(s.1).copied().unwrap_or(f64::INFINITY);
        let tree = Tree {
            splits: [(root.0, value(root)), (sl.0, value(sl)), (sr.0, value(sr))],
            leaves,
        };
        for i in 0..n {
            let left = usize::from(bin[i][root.0]) <= root.1;
            let s = if left { sl } else { sr };
            z[i] += leaves[usize::from(!left) * 2 + usize::from(usize::from(bin[i][s.0]) > s.1)];
        }
        trees.push(tree);
    }
    Boost { bias, trees }
}

/// The split (feature, last bin on the left) of `rows` with the largest loss reduction.
fn best_split(
    rows: &[usize],
    bin: &[Vec<u8>],
    g: &[f64],
    h: &[f64],
    d: usize,
    lambda: f64,
) -> (usize, usize) {
    let mut hist = vec![[0.0f64; 2]; d * BINS];
    for &i in rows {
        for (k, &b) in bin[i].iter().enumerate() {
            let c = &mut hist[k * BINS + usize::from(b)];
            c[0] += g[i];
            c[1] += h[i];
        }
    }
    let (gt, ht) = rows
        .iter()
        .fold((0.0, 0.0), |(a, b), &i| (a + g[i], b + h[i]));
    let score = |g: f64, h: f64| g * g / (h + lambda);
    let mut best = (0, BINS, f64::NEG_INFINITY);
    for k in 0..d {
        let (mut gl, mut hl) = (0.0, 0.0);
        for b in 0..BINS - 1 {
            gl += hist[k * BINS + b][0];
            hl += hist[k * BINS + b][1];
            let gain = score(gl, hl) + score(gt - gl, ht - hl);
            if gain > best.2 {
                best = (k, b, gain);
            }
        }
    }
    (best.0, best.1)
}

impl Boost {
    /// How many trees.
    pub fn len(&self) -> usize {
        self.trees.len()
    }

    /// The library's form of these trees ([`skinweights::binding::BinderTrees`]), binding from
    /// probability `threshold` (rule bones from `keep`). The trees are leaked: an experiment
    /// fits a few dozen models once.
    pub fn to_library(&self, threshold: f64, keep: f64) -> skinweights::binding::BinderTrees {
        let trees: Vec<skinweights::binding::PairTree> = self
            .trees
            .iter()
            .map(|t| skinweights::binding::PairTree {
                splits: t.splits,
                leaves: t.leaves,
            })
            .collect();
        skinweights::binding::BinderTrees {
            bias: self.bias,
            trees: Box::leak(trees.into_boxed_slice()),
            threshold,
            keep,
        }
    }

    /// These trees as the Rust source of `src/binding/fitted_trees.rs`, `what` saying how they
    /// were chosen.
    pub fn to_rust(&self, threshold: f64, keep: f64, what: &str) -> String {
        let num = |v: f64| {
            if v == f64::INFINITY {
                "f64::INFINITY".to_string()
            } else {
                format!("{v:?}")
            }
        };
        let mut s = format!(
            "//! Written by `BINDING_MODE=learned cargo run --release --bin binding`; do not edit.\n\n\
             // Fitted thresholds, such as log(1 + 1), not spelled constants.\n\
             #![allow(clippy::approx_constant)]\n\n\
             use super::trees::{{BinderTrees, PairTree}};\n\n\
             /// {what}\n\
             pub const FITTED_TREES: BinderTrees = BinderTrees {{\n    bias: {},\n    trees: &[\n",
            num(self.bias)
        );
        for t in &self.trees {
            let splits: Vec<String> = t
                .splits
                .iter()
                .map(|&(f, v)| format!("({f}, {})", num(v)))
                .collect();
            let leaves: Vec<String> = t.leaves.iter().map(|&v| num(v)).collect();
            s += &format!(
                "        PairTree {{\n            splits: [{}],\n            leaves: [{}],\n        }},\n",
                splits.join(", "),
                leaves.join(", ")
            );
        }
        s += &format!(
            "    ],\n    threshold: {},\n    keep: {},\n}};\n",
            num(threshold),
            num(keep)
        );
        s
    }
}
