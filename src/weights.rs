//! Skinning weights: a dense vertices × bones matrix.
//!
//! Weights built by the checked constructors ([`Weights::from_rows`],
//! [`Weights::from_row_major`]) hold finite entries; every solver's are also >= 0 with rows
//! summing to 1 ([`Weights::validate`]). The only ways around those checks say so in their
//! names (`*_unchecked`): an all-zero start to fill in, and writes into rows; whoever uses them
//! finishes with rows that validate (a solver's `finish` checks).

use crate::error::{Result, WeightsError, WeightsShapeProblem};

/// Tolerance on row sums that solvers guarantee (docs/solvers.md: 1e-9).
pub const SOLVER_ROW_SUM_TOLERANCE: f64 = 1e-9;

/// Rows of weights handed to an exporter must sum to 1 within this: loose enough for a
/// weights file written by another tool (or rounded to f32), tight enough not to hide
/// unnormalized weights.
pub const EXPORT_ROW_SUM_TOLERANCE: f64 = 1e-6;

/// Largest row sum [`Weights::check_scorable`] accepts. Lint scores unnormalized weights (its
/// normalization check reports them), but a row summing past a million is no weight anyone
/// exported, and the smoothness energy squares it.
pub const MAX_SCORABLE_ROW_SUM: f64 = 1e6;

/// Dense skinning weights, row-major: row `v` holds the weight of every bone on vertex `v`.
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    n_bones: usize,
    data: Vec<f64>,
}

impl Weights {
    /// All-zero weights, to be filled in: rows summing to 0 are not valid weights.
    pub fn zeros_unchecked(n_vertices: usize, n_bones: usize) -> Self {
        Weights {
            n_bones,
            data: vec![0.0; n_vertices * n_bones],
        }
    }

    /// Weights from rows (one `Vec` per vertex, one entry per bone).
    pub fn from_rows(rows: &[Vec<f64>], n_bones: usize) -> Result<Self> {
        let mut data = Vec::with_capacity(rows.len() * n_bones);
        for (v, r) in rows.iter().enumerate() {
            if r.len() != n_bones {
                return Err(WeightsError::WeightsShape {
                    problem: WeightsShapeProblem::RowLength {
                        row: v,
                        entries: r.len(),
                        bones: n_bones,
                    },
                }
                .into());
            }
            data.extend_from_slice(r);
        }
        Ok(Weights { n_bones, data })
    }

    /// Weights from a row-major buffer of `n_vertices * n_bones` entries.
    pub fn from_row_major(data: Vec<f64>, n_bones: usize) -> Result<Self> {
        if n_bones == 0 || data.len() % n_bones != 0 {
            return Err(WeightsError::WeightsShape {
                problem: WeightsShapeProblem::NotAMultiple {
                    entries: data.len(),
                    bones: n_bones,
                },
            }
            .into());
        }
        Ok(Weights { n_bones, data })
    }

    /// Number of vertices (rows).
    pub fn vertex_count(&self) -> usize {
        self.data.len().checked_div(self.n_bones).unwrap_or(0)
    }
    /// Number of bones (columns).
    pub fn bone_count(&self) -> usize {
        self.n_bones
    }
    /// Row of vertex `v`.
    pub fn row(&self, v: usize) -> &[f64] {
        &self.data[v * self.n_bones..(v + 1) * self.n_bones]
    }
    /// Mutable row of vertex `v`, written without any check.
    pub fn row_mut_unchecked(&mut self, v: usize) -> &mut [f64] {
        &mut self.data[v * self.n_bones..(v + 1) * self.n_bones]
    }
    /// Iterator over rows.
    pub fn rows(&self) -> std::slice::ChunksExact<'_, f64> {
        self.data.chunks_exact(self.n_bones)
    }
    /// Mutable iterator over rows, written without any check.
    pub fn rows_mut_unchecked(&mut self) -> std::slice::ChunksExactMut<'_, f64> {
        self.data.chunks_exact_mut(self.n_bones)
    }
    /// [`Weights::rows_mut_unchecked`] on rayon's threads.
    pub(crate) fn par_rows_mut_unchecked(&mut self) -> rayon::slice::ChunksExactMut<'_, f64> {
        use rayon::slice::ParallelSliceMut;
        self.data.par_chunks_exact_mut(self.n_bones)
    }
    /// Weight of bone `b` on vertex `v`.
    pub fn get(&self, v: usize, b: usize) -> f64 {
        self.data[v * self.n_bones + b]
    }
    /// Sets the weight of bone `b` on vertex `v`, without any check.
    pub fn set_unchecked(&mut self, v: usize, b: usize, w: f64) {
        self.data[v * self.n_bones + b] = w;
    }
    /// The row-major buffer.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }
    /// Column of bone `b` (one value per vertex).
    pub fn column(&self, b: usize) -> Vec<f64> {
        self.rows().map(|r| r[b]).collect()
    }

    /// Clamps negatives to 0 and divides each row by its sum. A row whose sum is 0 (or not
    /// finite) is left as is and reported: its vertex index is returned.
    pub fn normalize(&mut self) -> Vec<usize> {
        let mut bad = Vec::new();
        for (v, row) in self.rows_mut_unchecked().enumerate() {
            for w in row.iter_mut() {
                if *w < 0.0 {
                    *w = 0.0;
                }
            }
            let s: f64 = row.iter().sum();
            if s > 0.0 && s.is_finite() {
                row.iter_mut().for_each(|w| *w /= s);
            } else {
                bad.push(v);
            }
        }
        bad
    }

    /// Largest `|sum of row - 1|` over all vertices.
    pub fn normalization_error(&self) -> f64 {
        self.rows()
            .map(|r| (r.iter().sum::<f64>() - 1.0).abs())
            .fold(0.0, f64::max)
    }

    /// Checks every weight is finite and >= 0 and every row sums to 1 within `tolerance`;
    /// the error names the first offending vertex (and bone).
    pub fn validate_with_tolerance(&self, tolerance: f64) -> Result<()> {
        for (v, row) in self.rows().enumerate() {
            let s = checked_row_sum(v, row)?;
            if (s - 1.0).abs() > tolerance {
                return Err(WeightsError::RowSum {
                    vertex: v,
                    sum: s,
                    tolerance,
                }
                .into());
            }
        }
        Ok(())
    }

    /// Checks that the weights can be scored (metrics, lint) even when they are not normalized:
    /// every entry finite and >= 0 ([`WeightsError::InvalidWeight`]), every row's sum positive and at
    /// most [`MAX_SCORABLE_ROW_SUM`] ([`WeightsError::UnscorableRow`]: an all-zero row places its
    /// vertex nowhere; sums that overflow, or entries so large that the smoothness energy
    /// squares them past f64, would turn metrics into NaN or infinity).
    pub fn check_scorable(&self) -> Result<()> {
        for (v, row) in self.rows().enumerate() {
            let s = checked_row_sum(v, row)?;
            if !(s > 0.0 && s <= MAX_SCORABLE_ROW_SUM) {
                return Err(WeightsError::UnscorableRow { vertex: v, sum: s }.into());
            }
        }
        Ok(())
    }

    /// [`Weights::validate_with_tolerance`] with the solvers' tolerance, 1e-9.
    pub fn validate(&self) -> Result<()> {
        self.validate_with_tolerance(SOLVER_ROW_SUM_TOLERANCE)
    }

    /// Keeps the `k` **largest** weights of every row and renormalizes: sort, then truncate,
    /// then renormalize (sort before truncating). Ties keep the lower bone index.
    pub fn top_k(&self, k: usize) -> Weights {
        self.truncated(k, true)
    }

    /// The truncation bug (the first `k`, not the largest), kept for experiments: keeps the **first** `k` non-zero influences in
    /// bone order, whatever their size, and renormalizes. Do not use for real export.
    pub fn first_k_then_normalize(&self, k: usize) -> Weights {
        self.truncated(k, false)
    }

    /// The weight [`Weights::top_k`] drops from each row, before it renormalizes: what an
    /// exporter limited to `k` influences per vertex (glTF: 4) loses. 0 for rows with at most
    /// `k` influences.
    pub fn top_k_dropped(&self, k: usize) -> Vec<f64> {
        let mut idx = Vec::with_capacity(self.n_bones);
        self.rows()
            .map(|row| {
                ranked_influences(row, true, &mut idx);
                idx.iter().skip(k).map(|&b| row[b]).sum()
            })
            .collect()
    }

    fn truncated(&self, k: usize, sort: bool) -> Weights {
        let mut out = self.clone();
        let mut idx: Vec<usize> = Vec::with_capacity(self.n_bones);
        for row in out.rows_mut_unchecked() {
            ranked_influences(row, sort, &mut idx);
            if idx.len() <= k {
                continue;
            }
            for &b in &idx[k..] {
                row[b] = 0.0;
            }
            let s: f64 = row.iter().sum();
            if s > 0.0 {
                row.iter_mut().for_each(|w| *w /= s);
            }
        }
        out
    }

    /// Number of non-zero weights on each vertex.
    pub fn influence_counts(&self) -> Vec<usize> {
        self.rows()
            .map(|r| r.iter().filter(|&&w| w != 0.0).count())
            .collect()
    }

    /// Sparse influence lists (bone index, weight) of non-zero weights, largest first: the
    /// layout engines and exporters use.
    pub fn influences(&self) -> Vec<Vec<(usize, f64)>> {
        self.rows()
            .map(|r| {
                let mut l: Vec<(usize, f64)> = r
                    .iter()
                    .copied()
                    .enumerate()
                    .filter(|&(_, w)| w != 0.0)
                    .collect();
                l.sort_by(|a, b| b.1.total_cmp(&a.1));
                l
            })
            .collect()
    }

    /// Bone with the largest weight on each vertex.
    pub fn dominant_bones(&self) -> Vec<usize> {
        self.rows()
            .map(|r| {
                let mut best = 0;
                for b in 1..r.len() {
                    if r[b] > r[best] {
                        best = b;
                    }
                }
                best
            })
            .collect()
    }
}

/// The sum of vertex `v`'s `row`, after checking every entry is finite and >= 0 (the error
/// names the vertex and the bone).
fn checked_row_sum(v: usize, row: &[f64]) -> Result<f64> {
    let mut s = 0.0;
    for (b, &w) in row.iter().enumerate() {
        if !w.is_finite() || w < 0.0 {
            return Err(WeightsError::InvalidWeight {
                vertex: v,
                bone: b,
                value: w,
            }
            .into());
        }
        s += w;
    }
    Ok(s)
}

/// Fills `idx` with the bones of `row` that have weight, largest first when `sort` (a stable
/// sort: equal weights keep bone order), else in bone order.
fn ranked_influences(row: &[f64], sort: bool, idx: &mut Vec<usize>) {
    idx.clear();
    idx.extend((0..row.len()).filter(|&b| row[b] > 0.0));
    if sort {
        idx.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
    }
}
