//! Means over rigs with their 95% percentile-bootstrap intervals (each value one rig).

/// Bootstrap resamples of the rigs for the intervals over rigs.
pub const BOOTSTRAP: usize = 4000;

/// A small seeded generator (splitmix64) for the bootstrap: the same draws on every run.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// A draw in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z % n as u64) as usize
    }
}

/// Mean of `values` and its 95% percentile-bootstrap interval over them.
pub fn mean_interval(values: &[f64], rng: &mut SplitMix) -> (f64, f64, f64) {
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n as f64;
    let mut means: Vec<f64> = (0..BOOTSTRAP)
        .map(|_| (0..n).map(|_| values[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    (mean, percentile(&means, 0.025), percentile(&means, 0.975))
}

/// The `q` quantile of sorted values (nearest rank); 0 when empty.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}
