//! A sparse symmetric matrix stored with both triangles, so that row products, stencil
//! neighbourhoods and principal submatrices of a subset of its rows are cheap: what `bbw`
//! needs to solve each bone's bound-constrained QP on a subdomain of the mesh (the part
//! where the bone's weight is not at a bound) instead of on the whole free set.

use faer::sparse::{SparseColMat, SymbolicSparseColMat};

/// A symmetric `n x n` matrix with both triangles stored by column (so column `i` is row
/// `i`), built from its lower triangle.
pub struct Symmetric {
    ptr: Vec<usize>,
    rows: Vec<usize>,
    vals: Vec<f64>,
}

impl Symmetric {
    /// The full matrix whose lower triangle is `lower` (sorted row indices per column, as
    /// faer stores them).
    pub fn from_lower(lower: &SparseColMat<usize, f64>) -> Self {
        let n = lower.ncols();
        let (lp, lr, lv) = (
            lower.symbolic().col_ptr(),
            lower.symbolic().row_idx(),
            lower.val(),
        );
        let mut count = vec![0usize; n];
        for k in 0..n {
            for &r in &lr[lp[k]..lp[k + 1]] {
                count[k] += 1;
                if r != k {
                    count[r] += 1;
                }
            }
        }
        let mut ptr = Vec::with_capacity(n + 1);
        ptr.push(0);
        for c in &count {
            ptr.push(ptr.last().copied().unwrap_or(0) + c);
        }
        let mut next = ptr[..n].to_vec();
        let mut rows = vec![0; ptr[n]];
        let mut vals = vec![0.0; ptr[n]];
        // Column k receives the upper entries (rows < k) while the columns before it are
        // visited, then its own lower entries: rows stay sorted.
        for k in 0..n {
            for p in lp[k]..lp[k + 1] {
                let (r, v) = (lr[p], lv[p]);
                rows[next[k]] = r;
                vals[next[k]] = v;
                next[k] += 1;
                if r != k {
                    rows[next[r]] = k;
                    vals[next[r]] = v;
                    next[r] += 1;
                }
            }
        }
        Symmetric { ptr, rows, vals }
    }

    /// Row `i`'s stencil (column indices, `i` included) and values.
    pub fn row(&self, i: usize) -> (&[usize], &[f64]) {
        let range = self.ptr[i]..self.ptr[i + 1];
        (&self.rows[range.clone()], &self.vals[range])
    }

    /// `(A x)_i`.
    pub fn row_product(&self, i: usize, x: &[f64]) -> f64 {
        let (cols, vals) = self.row(i);
        cols.iter().zip(vals).map(|(&c, &v)| v * x[c]).sum()
    }

    /// Marks (in `inside`) the rows within `steps` stencil steps of `seeds`, and returns
    /// the newly marked ones (the seeds included if they were not marked yet).
    pub fn dilate(&self, inside: &mut [bool], seeds: &[usize], steps: usize) -> Vec<usize> {
        let mut added: Vec<usize> = Vec::new();
        let mut front: Vec<usize> = Vec::new();
        for &s in seeds {
            if !inside[s] {
                inside[s] = true;
                added.push(s);
            }
            front.push(s);
        }
        for _ in 0..steps {
            let mut next = Vec::new();
            for &i in &front {
                for &c in self.row(i).0 {
                    if !inside[c] {
                        inside[c] = true;
                        added.push(c);
                        next.push(c);
                    }
                }
            }
            front = next;
        }
        added
    }

    /// The lower triangle of the principal submatrix on `region` (ascending row indices;
    /// `local[i]` must be `i`'s position in `region` and `usize::MAX` outside it).
    pub fn lower_submatrix(&self, region: &[usize], local: &[usize]) -> SparseColMat<usize, f64> {
        let m = region.len();
        let mut col_ptr = Vec::with_capacity(m + 1);
        col_ptr.push(0);
        let (mut row_idx, mut values) = (Vec::new(), Vec::new());
        for (k, &i) in region.iter().enumerate() {
            let (cols, vals) = self.row(i);
            for (&c, &v) in cols.iter().zip(vals) {
                if local[c] != usize::MAX && local[c] >= k {
                    row_idx.push(local[c]);
                    values.push(v);
                }
            }
            col_ptr.push(row_idx.len());
        }
        let symbolic = SymbolicSparseColMat::new_checked(m, m, col_ptr, None, row_idx);
        SparseColMat::new(symbolic, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::sparse::Triplet;

    /// The lower triangle of the 1D second-difference matrix (plus the identity) of size n.
    fn chain(n: usize) -> SparseColMat<usize, f64> {
        let mut t = Vec::new();
        for i in 0..n {
            t.push(Triplet::new(i, i, 3.0 + i as f64));
            if i + 1 < n {
                t.push(Triplet::new(i + 1, i, -1.0 - i as f64));
            }
        }
        SparseColMat::try_new_from_triplets(n, n, &t).expect("valid triplets")
    }

    #[test]
    fn both_triangles_give_the_symmetric_product() {
        let s = Symmetric::from_lower(&chain(5));
        let x = [1.0, 2.0, -1.0, 0.5, 3.0];
        // Row 2: -2 x1 + 5 x2 - 3 x3.
        assert!((s.row_product(2, &x) - (-4.0 - 5.0 - 1.5)).abs() < 1e-12);
        assert_eq!(s.row(0).0, &[0, 1]);
        assert_eq!(s.row(4).0, &[3, 4]);
    }

    #[test]
    fn dilation_and_submatrix_follow_the_stencil() {
        let s = Symmetric::from_lower(&chain(8));
        let mut inside = vec![false; 8];
        let mut added = s.dilate(&mut inside, &[3], 2);
        added.sort_unstable();
        assert_eq!(added, vec![1, 2, 3, 4, 5]);
        let region: Vec<usize> = (0..8).filter(|&i| inside[i]).collect();
        let mut local = vec![usize::MAX; 8];
        region.iter().enumerate().for_each(|(k, &i)| local[i] = k);
        let sub = s.lower_submatrix(&region, &local);
        assert_eq!(sub.nrows(), 5);
        // Column 0 of the submatrix is row 1 of the chain: diagonal 4, below it -2.
        let col0: Vec<(usize, f64)> = sub.symbolic().row_idx()[0..2]
            .iter()
            .copied()
            .zip(sub.val()[0..2].iter().copied())
            .collect();
        assert_eq!(col0, vec![(0, 4.0), (1, -2.0)]);
        assert_eq!(sub.symbolic().col_ptr()[5], 9);
    }
}
