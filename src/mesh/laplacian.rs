//! Cotangent Laplacian and lumped mass matrix of a 2D triangle mesh (faer sparse).
//!
//! `L` is the positive semi-definite cotangent Laplacian: for an edge `(i, j)` with opposite
//! angles `α` and `β`, `L_ij = -(cot α + cot β) / 2`, and `L_ii = -Σ_j L_ij`. Its rows sum to
//! zero, so constants are in its null space (one per connected component). `M` is the lumped
//! (diagonal) mass: a third of the area of every triangle around a vertex.
//!
//! The off-diagonal weights are stored aligned with the mesh's CSR adjacency, so building a
//! faer matrix (full, or the lower triangle plus an extra diagonal, as the heat solver needs)
//! is a single linear pass with no sorting.

use super::{Mesh, Topology};
use crate::error::{LinearAlgebraProblem, Result, SolverError};
use faer::sparse::{SparseColMat, SymbolicSparseColMat};

/// Largest half cotangent a triangle contributes (an angle of about 5e-7 rad): quality meshes
/// never come near it (their smallest angles are above 20 degrees, half cotangents under 1.4).
const MAX_HALF_COT: f64 = 1e6;

/// Cotangent Laplacian and lumped mass of one mesh, assembled once.
#[derive(Debug, Clone)]
pub struct CotanLaplacian<'m> {
    topology: &'m Topology,
    /// `(cot α + cot β) / 2` for each CSR slot (neighbour `csr_neighbors[k]` of its row).
    edge_weights: Vec<f64>,
    /// `L_ii`: the sum of the row's edge weights.
    diagonal: Vec<f64>,
    /// Lumped mass: a third of the area of each incident triangle.
    mass: Vec<f64>,
}

impl<'m> CotanLaplacian<'m> {
    /// Assembles `L` and `M` for `mesh`.
    pub fn new(mesh: &'m Mesh) -> Self {
        let topology = mesh.topology();
        let offsets = topology.csr_offsets();
        let neighbors = topology.csr_neighbors();
        let pts = mesh.vertices();
        let n = mesh.vertex_count();
        let mut edge_weights = vec![0.0; neighbors.len()];
        let mut mass = vec![0.0; n];
        // Slot of neighbour `j` in row `i` (rows are sorted; the mesh guarantees the edge).
        let slot = |i: usize, j: usize| -> usize {
            let row = &neighbors[offsets[i]..offsets[i + 1]];
            offsets[i] + row.binary_search(&j).unwrap_or(0)
        };
        for tri in mesh.triangles() {
            let p = tri.map(|v| pts[v]);
            let area2 = super::signed_area2(&p[0], &p[1], &p[2]);
            // cot of the angle at c = dot / |cross|, and |cross| = twice the area.
            let mut half_cot = [0usize, 1, 2].map(|k| {
                let (u, v) = (p[k] - p[(k + 2) % 3], p[(k + 1) % 3] - p[(k + 2) % 3]);
                0.5 * u.dot(&v) / area2
            });
            // A sliver (artist meshes have them) is scaled down as a whole so that no
            // cotangent passes MAX_HALF_COT: the triangle's stiffness stays positive
            // semi-definite (a scaled copy) and the Cholesky keeps its pivots.
            let largest = half_cot.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            if largest > MAX_HALF_COT {
                half_cot = half_cot.map(|x| x * (MAX_HALF_COT / largest));
            }
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                edge_weights[slot(a, b)] += half_cot[k];
                edge_weights[slot(b, a)] += half_cot[k];
                mass[a] += area2 / 6.0;
            }
        }
        let diagonal = (0..n)
            .map(|i| edge_weights[offsets[i]..offsets[i + 1]].iter().sum())
            .collect();
        CotanLaplacian {
            topology,
            edge_weights,
            diagonal,
            mass,
        }
    }

    /// Number of rows (vertices).
    pub fn size(&self) -> usize {
        self.diagonal.len()
    }

    /// Lumped mass of every vertex.
    pub fn mass(&self) -> &[f64] {
        &self.mass
    }

    /// Diagonal `L_ii` of the Laplacian.
    pub fn diagonal(&self) -> &[f64] {
        &self.diagonal
    }

    /// `L x` (used for Dirichlet energies `x' L x`).
    pub fn apply(&self, x: &[f64]) -> Vec<f64> {
        let offsets = self.topology.csr_offsets();
        let neighbors = self.topology.csr_neighbors();
        (0..self.size())
            .map(|i| {
                let mut s = self.diagonal[i] * x[i];
                for k in offsets[i]..offsets[i + 1] {
                    s -= self.edge_weights[k] * x[neighbors[k]];
                }
                s
            })
            .collect()
    }

    /// The full symmetric Laplacian as a faer sparse matrix.
    pub fn matrix(&self) -> Result<SparseColMat<usize, f64>> {
        self.assemble(None, false)
    }

    /// The **lower triangle** (diagonal included) of `L + diag(extra)`: what a symmetric
    /// factorization reading `Side::Lower` needs, at half the memory of the full matrix.
    /// Fails with [`SolverError::LinearAlgebra`] if `extra` has the wrong length.
    pub fn lower_plus_diagonal(&self, extra: &[f64]) -> Result<SparseColMat<usize, f64>> {
        self.assemble(Some(extra), true)
    }

    fn assemble(&self, extra: Option<&[f64]>, lower: bool) -> Result<SparseColMat<usize, f64>> {
        let n = self.size();
        if let Some(e) = extra {
            if e.len() != n {
                return Err(SolverError::LinearAlgebra {
                    problem: LinearAlgebraProblem::DiagonalLength {
                        given: e.len(),
                        vertices: n,
                    },
                }
                .into());
            }
        }
        let offsets = self.topology.csr_offsets();
        let neighbors = self.topology.csr_neighbors();
        let mut col_ptr = Vec::with_capacity(n + 1);
        let cap = if lower {
            n + neighbors.len() / 2
        } else {
            n + neighbors.len()
        };
        let mut row_idx = Vec::with_capacity(cap);
        let mut values = Vec::with_capacity(cap);
        col_ptr.push(0);
        for j in 0..n {
            let row = &neighbors[offsets[j]..offsets[j + 1]];
            // Rows are sorted: entries above the diagonal come first, then the diagonal.
            let split = row.partition_point(|&i| i < j);
            if !lower {
                for (k, &i) in row[..split].iter().enumerate() {
                    row_idx.push(i);
                    values.push(-self.edge_weights[offsets[j] + k]);
                }
            }
            row_idx.push(j);
            values.push(self.diagonal[j] + extra.map_or(0.0, |e| e[j]));
            for (k, &i) in row[split..].iter().enumerate() {
                row_idx.push(i);
                values.push(-self.edge_weights[offsets[j] + split + k]);
            }
            col_ptr.push(row_idx.len());
        }
        let symbolic = SymbolicSparseColMat::new_checked(n, n, col_ptr, None, row_idx);
        Ok(SparseColMat::new(symbolic, values))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Point2;

    fn square() -> Mesh {
        let v = vec![
            Point2::new(0.0, 0.0),
            Point2::new(1.0, 0.0),
            Point2::new(1.0, 1.0),
            Point2::new(0.0, 1.0),
        ];
        Mesh::new(v, vec![[0, 1, 2], [0, 2, 3]]).unwrap()
    }

    #[test]
    fn rows_sum_to_zero_and_mass_is_area() {
        let m = square();
        let l = CotanLaplacian::new(&m);
        let ones = vec![1.0; 4];
        assert!(l.apply(&ones).iter().all(|r| r.abs() < 1e-14));
        assert!((l.mass().iter().sum::<f64>() - 1.0).abs() < 1e-14);
        let x = [0.0, 1.0, 1.0, 0.0];
        // Dirichlet energy of a linear function x on the unit square = area * |grad|^2 = 1.
        let lx = l.apply(&x);
        let e: f64 = x.iter().zip(&lx).map(|(a, b)| a * b).sum();
        assert!((e - 1.0).abs() < 1e-14, "{e}");
    }

    #[test]
    fn lower_triangle_has_half_the_off_diagonals() {
        let m = square();
        let l = CotanLaplacian::new(&m);
        let full = l.matrix().unwrap();
        let low = l.lower_plus_diagonal(&[1.0; 4]).unwrap();
        assert_eq!(full.compute_nnz(), 4 + 2 * 5);
        assert_eq!(low.compute_nnz(), 4 + 5);
        assert!(l.lower_plus_diagonal(&[1.0; 3]).is_err());
    }
}
