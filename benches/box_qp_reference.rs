//! A reference solver for the bounded biharmonic QP, `min 1/2 x'Qx - b'x` subject to
//! `0 <= x <= upper`, by an independent method: Clarabel's interior point (a
//! dependency of this crate only). `bbw_qp_methods.rs` times it against the active set and
//! compares their optima. Not part of the library.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus,
};
use faer::sparse::SparseColMat;

/// What the interior point returned.
pub struct BoxQpSolution {
    /// The minimizer (0 where `upper` is 0).
    pub x: Vec<f64>,
    /// Interior-point iterations (read by the timing example, not by the tests).
    #[allow(dead_code)]
    pub iterations: u32,
    /// Whether Clarabel reported `Solved`.
    pub solved: bool,
}

/// `1/2 x'Qx - b'x` for the symmetric `Q` whose lower triangle is `lower`.
pub fn objective(lower: &SparseColMat<usize, f64>, b: &[f64], x: &[f64]) -> f64 {
    let (ptr, rows, vals) = (
        lower.symbolic().col_ptr(),
        lower.symbolic().row_idx(),
        lower.val(),
    );
    let mut quad = 0.0;
    for k in 0..x.len() {
        for p in ptr[k]..ptr[k + 1] {
            let r = rows[p];
            let term = vals[p] * x[r] * x[k];
            quad += if r == k { term } else { 2.0 * term };
        }
    }
    0.5 * quad - b.iter().zip(x).map(|(b, x)| b * x).sum::<f64>()
}

/// Solves `min 1/2 x'Qx - b'x, 0 <= x <= upper` (`lower`: the lower triangle of `Q`).
/// Variables with `upper == 0` are fixed at 0 and taken out (an interior point needs a
/// feasible set with an interior).
pub fn solve_box_qp(lower: &SparseColMat<usize, f64>, b: &[f64], upper: &[f64]) -> BoxQpSolution {
    let n = b.len();
    let kept: Vec<usize> = (0..n).filter(|&i| upper[i] > 0.0).collect();
    let mut index = vec![usize::MAX; n];
    kept.iter().enumerate().for_each(|(k, &i)| index[i] = k);
    let m = kept.len();
    // Clarabel takes the upper triangle: lower's entry (r, k), r >= k, is upper's (k, r).
    let (ptr, rows, vals) = (
        lower.symbolic().col_ptr(),
        lower.symbolic().row_idx(),
        lower.val(),
    );
    let (mut pr, mut pc, mut pv) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..n {
        for p in ptr[k]..ptr[k + 1] {
            let r = rows[p];
            if index[k] != usize::MAX && index[r] != usize::MAX {
                pr.push(index[k]);
                pc.push(index[r]);
                pv.push(vals[p]);
            }
        }
    }
    let p = CscMatrix::new_from_triplets(m, m, pr, pc, pv);
    // Rows of A x + s = c, s >= 0: x <= upper, then -x <= 0.
    let (mut ar, mut ac, mut av) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..m {
        ar.extend([k, m + k]);
        ac.extend([k, k]);
        av.extend([1.0, -1.0]);
    }
    let a = CscMatrix::new_from_triplets(2 * m, m, ar, ac, av);
    let mut c: Vec<f64> = kept.iter().map(|&i| upper[i]).collect();
    c.extend(std::iter::repeat_n(0.0, m));
    let q: Vec<f64> = kept.iter().map(|&i| -b[i]).collect();
    let settings = DefaultSettingsBuilder::default()
        .verbose(false)
        .build()
        .expect("default Clarabel settings");
    let cones = [NonnegativeConeT(2 * m)];
    let mut solver =
        DefaultSolver::new(&p, &q, &a, &c, &cones, settings).expect("a well-formed box QP");
    solver.solve();
    let mut x = vec![0.0; n];
    for (k, &i) in kept.iter().enumerate() {
        x[i] = solver.solution.x[k];
    }
    BoxQpSolution {
        x,
        iterations: solver.solution.iterations,
        solved: solver.solution.status == SolverStatus::Solved,
    }
}
