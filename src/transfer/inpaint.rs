//! The Laplacian fill of `robust`: the unmatched vertices' rows as the harmonic extension of
//! the matched ones over the target mesh (one Cholesky, every column at once).

use crate::error::Result;
use crate::mesh::{CotanLaplacian, Mesh};
use crate::solvers::Factorization;
use faer::Mat;

/// How strongly a matched vertex is held to its copied row, relative to the Laplacian's
/// largest diagonal entry: exact to about 1e-9 after the solve.
const PIN: f64 = 1e9;
/// The tiny pull to zero of unmatched vertices that keeps a mesh part without any matched
/// vertex solvable (its rows are replaced afterwards), relative to the largest diagonal.
const LEAK: f64 = 1e-12;

/// Replaces the rows (`width` entries each) of unmatched vertices with the harmonic
/// extension of the matched ones. Returns the vertices of mesh components with no matched
/// vertex, whose rows are left as they were.
pub(super) fn fill(
    mesh: &Mesh,
    matched: &[bool],
    rows: &mut [f64],
    width: usize,
) -> Result<Vec<usize>> {
    let n = mesh.vertex_count();
    let topology = mesh.topology();
    let mut has_match = vec![false; topology.component_count()];
    for v in (0..n).filter(|&v| matched[v]) {
        has_match[topology.component_of()[v]] = true;
    }
    let orphans: Vec<usize> = (0..n)
        .filter(|&v| !has_match[topology.component_of()[v]])
        .collect();
    if matched.iter().all(|&m| m) || matched.iter().all(|&m| !m) {
        return Ok(orphans);
    }
    let laplacian = CotanLaplacian::new(mesh);
    let scale = laplacian
        .diagonal()
        .iter()
        .fold(1e-300, |m: f64, d| m.max(*d));
    let extra: Vec<f64> = matched
        .iter()
        .map(|&m| if m { PIN * scale } else { LEAK * scale })
        .collect();
    let lower = laplacian.lower_plus_diagonal(&extra)?;
    let factor = Factorization::new(&lower, None)?;
    let columns: Vec<usize> = (0..width)
        .filter(|&c| (0..n).any(|v| matched[v] && rows[v * width + c] != 0.0))
        .collect();
    let mut rhs = Mat::<f64>::zeros(n, columns.len());
    for v in (0..n).filter(|&v| matched[v]) {
        for (k, &c) in columns.iter().enumerate() {
            rhs[(v, k)] = extra[v] * rows[v * width + c];
        }
    }
    factor.solve_in_place(rhs.as_mut(), 1);
    for v in (0..n).filter(|&v| !matched[v] && has_match[topology.component_of()[v]]) {
        let row = &mut rows[v * width..(v + 1) * width];
        row.fill(0.0);
        for (k, &c) in columns.iter().enumerate() {
            row[c] = rhs[(v, k)].max(0.0);
        }
    }
    Ok(orphans)
}
