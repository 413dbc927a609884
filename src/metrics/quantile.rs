//! Exact nearest-rank quantiles (as [`super::percentile`]) of many values without sorting or
//! keeping them all: a histogram of the values' order-preserving bit keys, then a selection
//! inside the one bin that holds the rank.
//!
//! [`Histogram`] counts one slice (a frame's deviations). [`StreamQuantile`] takes a stream
//! whose length is known in advance (every frame of a clip, or of several): after each
//! slice it knows the lowest bin that can still hold the rank (the values seen below it
//! would stay below the rank even if every value still to come were larger) and keeps only
//! the values at or above that bin, about the top `1 - q` of the stream plus one slice,
//! instead of every value.

use rayon::prelude::*;

/// Bins: the top 16 bits of a value's order-preserving key (sign, exponent, 4 mantissa
/// bits), so bin order is [`f64::total_cmp`] order and a bin spans 1/16 of an octave.
pub(crate) const BINS: usize = 1 << 16;

/// The bin of `x`: `x`'s bits with the sign bit flipped for `x >= +0`, all bits flipped for
/// the negative ones (and negative NaNs), as [`f64::total_cmp`] orders them; top 16 bits.
#[inline]
pub(crate) fn bin(x: f64) -> usize {
    let b = x.to_bits();
    let key = if b >> 63 == 1 { !b } else { b | 1 << 63 };
    (key >> 48) as usize
}

/// The nearest rank (1-based) of quantile `q` among `count > 0` values, as
/// [`super::percentile`] takes it.
fn nearest_rank(q: f64, count: u64) -> u64 {
    ((q * count as f64).ceil() as u64).clamp(1, count)
}

/// Counts of values per [`bin`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Histogram {
    counts: Vec<u64>,
}

impl Histogram {
    pub(crate) fn new() -> Self {
        Histogram {
            counts: vec![0; BINS],
        }
    }

    /// Replaces the counts by the sum of `parts` (per-task counts of one slice) and `zeros`
    /// values `+0.0` counted by number.
    pub(crate) fn set_sum<'a>(&mut self, parts: impl Iterator<Item = &'a [u32]>, zeros: u64) {
        self.counts.fill(0);
        self.counts[bin(0.0)] = zeros;
        for p in parts {
            for (c, &x) in self.counts.iter_mut().zip(p) {
                *c += u64::from(x);
            }
        }
    }

    /// The histogram of `values` (replacing what it held), counted sequentially.
    #[cfg(test)]
    pub(crate) fn fill(&mut self, values: &[f64]) {
        self.counts.fill(0);
        for &x in values {
            self.counts[bin(x)] += 1;
        }
    }

    fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The bin holding the `rank`-th smallest value (1-based) and how many values lie in the
    /// bins below it.
    fn rank_bin(&self, rank: u64) -> (usize, u64) {
        let mut below = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            if below + c >= rank {
                return (b, below);
            }
            below += c;
        }
        (BINS - 1, below)
    }

    /// The `q` quantile (nearest rank) of `values` and `zeros` more values `+0.0` left out of
    /// the slice, which this histogram counts exactly.
    #[cfg(test)]
    pub(crate) fn quantile(&self, values: &[f64], zeros: u64, q: f64) -> f64 {
        let total = self.total();
        if total == 0 {
            return 0.0;
        }
        let (b, below) = self.rank_bin(nearest_rank(q, total));
        select_in_bin(values, zeros, b, nearest_rank(q, total) - below - 1)
    }
}

/// The `k`-th smallest (0-based) of the values in bin `b` of `values` and of `zeros` values
/// `+0.0` not in the slice (the smallest of bin `bin(0.0)`: deviations are never negative).
fn select_in_bin(values: &[f64], zeros: u64, b: usize, k: u64) -> f64 {
    let k = if b == bin(0.0) {
        match k.checked_sub(zeros) {
            Some(k) => k,
            None => return 0.0,
        }
    } else {
        k
    };
    let mut inside: Vec<f64> = values
        .par_iter()
        .copied()
        .filter(|&x| bin(x) == b)
        .collect();
    let k = (k as usize).min(inside.len().saturating_sub(1));
    match inside.get(k) {
        Some(_) => *inside.select_nth_unstable_by(k, f64::total_cmp).1,
        None => 0.0,
    }
}

/// A slice's `q` quantile (nearest rank, of `values` and `zeros` more values `+0.0`
/// left out of it, `hist` their histogram), after adding the slice to each of `streams`.
pub(crate) fn quantile_and_add(
    hist: &Histogram,
    values: &[f64],
    zeros: u64,
    q: f64,
    streams: &mut [&mut StreamQuantile],
) -> f64 {
    let total = hist.total();
    let len = values.len() as u64 + zeros;
    let floors: Vec<usize> = streams
        .iter_mut()
        .map(|s| s.count(hist, len, zeros))
        .collect();
    // Without values the slice's quantile is 0 and no bin is wanted (BINS is no bin).
    let (b, k) = if total == 0 {
        (BINS, 0)
    } else {
        let rank = nearest_rank(q, total);
        let (b, below) = hist.rank_bin(rank);
        (b, rank - below - 1)
    };
    // A filtered parallel collect per stream and one for the rank bin: measured faster than
    // one parallel fold filling all the vectors at once (0.44 s against about 0.3 s over the
    // clip_eval bench's 100 frames).
    for (s, &floor) in streams.iter_mut().zip(&floors) {
        let kept: Vec<f64> = values
            .par_iter()
            .copied()
            .filter(|&x| bin(x) >= floor)
            .collect();
        s.keep(kept);
    }
    if total == 0 {
        return 0.0;
    }
    select_in_bin(values, zeros, b, k)
}

/// The exact `q` quantile (nearest rank) of a stream of `total` values given slice by slice,
/// keeping only the values that can still hold the rank (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct StreamQuantile {
    rank: u64,
    /// Values still to come.
    remaining: u64,
    counts: Histogram,
    /// Lowest bin that can still hold the rank: it only rises.
    floor: usize,
    kept: Vec<f64>,
    /// Values `+0.0` kept by count rather than in `kept` (0 once the floor is above their bin).
    kept_zeros: u64,
    /// `kept.len()` after the last time values under `floor` were dropped from it.
    compacted: usize,
}

impl StreamQuantile {
    /// A stream of `total` values.
    pub(crate) fn new(q: f64, total: u64) -> Self {
        StreamQuantile {
            rank: if total == 0 {
                0
            } else {
                nearest_rank(q, total)
            },
            remaining: total,
            counts: Histogram::new(),
            floor: 0,
            kept: Vec::new(),
            kept_zeros: 0,
            compacted: 0,
        }
    }

    /// Adds the next slice, `values` and `zeros` more values `+0.0` left out of it, whose
    /// histogram is `hist`.
    #[cfg(test)]
    pub(crate) fn add(&mut self, hist: &Histogram, values: &[f64], zeros: u64) {
        let floor = self.count(hist, values.len() as u64 + zeros, zeros);
        self.keep(values.iter().copied().filter(|&x| bin(x) >= floor));
    }

    /// Counts the next slice of `len` values, `zeros` of them `+0.0` left out of the values
    /// [`StreamQuantile::keep`] is then given, whose histogram is `hist`; returns the floor:
    /// the lowest bin whose values must be kept.
    fn count(&mut self, hist: &Histogram, len: u64, zeros: u64) -> usize {
        for (c, &h) in self.counts.counts.iter_mut().zip(&hist.counts) {
            *c += h;
        }
        self.remaining = self.remaining.saturating_sub(len);
        // The final count at or below bin b is at most what is counted now plus every value
        // still to come: the rank lies in the first bin where that reaches it, or above.
        let need = self.rank.saturating_sub(self.remaining);
        if need > 0 {
            self.floor = self.counts.rank_bin(need).0;
        }
        if self.floor <= bin(0.0) {
            self.kept_zeros += zeros;
        } else {
            self.kept_zeros = 0;
        }
        self.floor
    }

    /// Keeps `values`, the slice's values at or above the floor [`StreamQuantile::count`]
    /// returned.
    fn keep(&mut self, values: impl IntoIterator<Item = f64>) {
        self.kept.extend(values);
        if self.kept.len() >= 2 * self.compacted.max(1 << 20) {
            let floor = self.floor;
            self.kept.retain(|&x| bin(x) >= floor);
            self.compacted = self.kept.len();
        }
    }

    /// The quantile of every value added (0 when none were).
    pub(crate) fn quantile(&self) -> f64 {
        if self.rank == 0 {
            return 0.0;
        }
        let (b, below) = self.counts.rank_bin(self.rank);
        select_in_bin(&self.kept, self.kept_zeros, b, self.rank - below - 1)
    }

    /// Values kept now (for the memory check of the tests).
    #[cfg(test)]
    fn kept_len(&self) -> usize {
        self.kept.len()
    }
}

#[cfg(test)]
mod tests {
    use super::super::percentile;
    use super::*;

    /// A seeded generator of uniform numbers in [0, 1).
    fn uniform(seed: u64) -> impl FnMut() -> f64 {
        let mut state = seed;
        move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn hist(values: &[f64]) -> Histogram {
        let mut h = Histogram::new();
        h.fill(values);
        h
    }

    #[test]
    fn bins_follow_total_order() {
        let mut v = vec![
            f64::NEG_INFINITY,
            -1e300,
            -2.0,
            -1.0,
            -1e-300,
            -0.0,
            0.0,
            1e-310,
            1e-300,
            0.5,
            1.0,
            1.03,
            2.0,
            1e300,
            f64::INFINITY,
            f64::NAN,
        ];
        let bins: Vec<usize> = v.iter().map(|&x| bin(x)).collect();
        assert!(bins.windows(2).all(|w| w[0] <= w[1]), "{bins:?}");
        v.sort_by(f64::total_cmp);
        assert!(v.iter().map(|&x| bin(x)).collect::<Vec<_>>() == bins);
        // 1 and 1.03 share a bin (1/16 octave), 1 and 2 do not.
        assert_eq!(bin(1.0), bin(1.03));
        assert_ne!(bin(1.0), bin(2.0));
    }

    #[test]
    fn histogram_quantile_equals_the_sorting_percentile() {
        // Ties, zeros, values spread over many octaves, negative values.
        let a: Vec<f64> = (0..600_001u64)
            .map(|i| ((i * 7919) % 1000) as f64 * 0.013 - if i % 17 == 0 { 3.0 } else { 0.0 })
            .collect();
        let h = hist(&a);
        for q in [0.0, 0.01, 0.5, 0.95, 0.999, 1.0] {
            assert_eq!(h.quantile(&a, 0, q), percentile(&a, q), "q = {q}");
        }
        let c = [0.5, -0.0, 2.0, 1.0];
        assert_eq!(hist(&c).quantile(&c, 0, 0.5), percentile(&c, 0.5));
        assert_eq!(Histogram::new().quantile(&[], 0, 0.95), 0.0);
    }

    #[test]
    fn stream_quantile_equals_the_sorting_percentile_and_keeps_a_fraction() {
        // Slices of random sizes and scales (some all zero, some far larger than the rest),
        // so the rank's bin moves between slices.
        let mut next = uniform(0x51ce);
        for case in 0..12 {
            let slices: Vec<Vec<f64>> = (0..1 + case * 7)
                .map(|s| {
                    let n = 1 + (next() * 30_000.0) as usize;
                    let scale = match s % 4 {
                        0 => 0.0,
                        1 => 1e3,
                        _ => 1.0 + next() * 10.0,
                    };
                    (0..n).map(|_| next() * next() * scale).collect()
                })
                .collect();
            let all: Vec<f64> = slices.iter().flatten().copied().collect();
            for q in [0.0, 0.5, 0.95, 1.0] {
                let mut s = StreamQuantile::new(q, all.len() as u64);
                for v in &slices {
                    s.add(&hist(v), v, 0);
                }
                assert_eq!(s.quantile(), percentile(&all, q), "case {case} q {q}");
            }
        }
        assert_eq!(StreamQuantile::new(0.95, 0).quantile(), 0.0);
        // 100 slices of 20 000 values: the p95 keeps a fraction of the 2M values.
        let slices: Vec<Vec<f64>> = (0..100)
            .map(|_| (0..20_000).map(|_| next()).collect())
            .collect();
        let all: Vec<f64> = slices.iter().flatten().copied().collect();
        let mut s = StreamQuantile::new(0.95, all.len() as u64);
        let mut most = 0;
        for v in &slices {
            s.add(&hist(v), v, 0);
            most = most.max(s.kept_len());
        }
        assert_eq!(s.quantile(), percentile(&all, 0.95));
        assert!(most < all.len() / 2, "kept {most} of {}", all.len());
    }

    #[test]
    fn zeros_left_out_of_the_slices_count_as_values() {
        // Slices whose +0.0 values are passed as a count (as the clip metrics pass the
        // deviations of vertices whose two rows are equal): the same quantiles as with every
        // value in the slice, whether the rank falls among the zeros or above them.
        let mut next = uniform(0x2e50);
        for zero_share in [0.0, 0.3, 0.9, 0.97, 1.0] {
            let slices: Vec<Vec<f64>> = (0..20)
                .map(|_| {
                    (0..1 + (next() * 5_000.0) as usize)
                        .map(|_| if next() < zero_share { 0.0 } else { next() })
                        .collect()
                })
                .collect();
            let all: Vec<f64> = slices.iter().flatten().copied().collect();
            for q in [0.0, 0.5, 0.95, 1.0] {
                let mut s = StreamQuantile::new(q, all.len() as u64);
                for v in &slices {
                    let nonzero: Vec<f64> = v.iter().copied().filter(|&x| x != 0.0).collect();
                    let zeros = (v.len() - nonzero.len()) as u64;
                    let h = hist(v);
                    assert_eq!(
                        h.quantile(&nonzero, zeros, q),
                        percentile(v, q),
                        "share {zero_share} q {q}"
                    );
                    s.add(&h, &nonzero, zeros);
                }
                assert_eq!(
                    s.quantile(),
                    percentile(&all, q),
                    "share {zero_share} q {q}"
                );
                // The one-pass form the clip metrics use: each slice's quantile and two
                // streams (a clip's and all clips') fed in the same pass.
                let mut both = StreamQuantile::new(q, 2 * all.len() as u64);
                for _ in 0..2 {
                    let mut one = StreamQuantile::new(q, all.len() as u64);
                    for v in &slices {
                        let nonzero: Vec<f64> = v.iter().copied().filter(|&x| x != 0.0).collect();
                        let zeros = (v.len() - nonzero.len()) as u64;
                        let got = quantile_and_add(
                            &hist(v),
                            &nonzero,
                            zeros,
                            q,
                            &mut [&mut one, &mut both],
                        );
                        assert_eq!(got, percentile(v, q), "share {zero_share} q {q}");
                    }
                    assert_eq!(
                        one.quantile(),
                        percentile(&all, q),
                        "share {zero_share} q {q}"
                    );
                }
                let twice: Vec<f64> = all.iter().chain(&all).copied().collect();
                assert_eq!(
                    both.quantile(),
                    percentile(&twice, q),
                    "share {zero_share} q {q}"
                );
            }
        }
    }
}
