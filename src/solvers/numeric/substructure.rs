//! One SPD matrix solved on many principal submatrices (`best`'s free sets: the heat
//! system with each bone group's locked vertices dropped) by substructuring, so that the
//! vertices the sets share are factored once.
//!
//! The vertices fall into *atoms*: the classes of vertices that lie in the same sets, so
//! every set is a union of atoms. An *interface* covers every matrix entry between two
//! atoms (of each such pair of vertices, the one in the smaller atom); an atom's other
//! vertices are its *interior*, coupled only to its own interior and to the interface.
//! Each interior is factored once, with its *border* (the interface vertices it touches)
//! eliminated last: the factor's trailing block `L_BB` gives the interior's Schur
//! complement onto its border, `A_BB - L_BB L_BB^T`. A set's system then reduces to its
//! interface vertices, a small sparse system (the interface matrix minus the Schur
//! complements of the set's atoms, restricted to the set) factored per set; its
//! right-hand side and the interiors' values come from one forward and one backward
//! solve per atom, all of the atom's columns at once.

use crate::error::Result;
use crate::solvers::heat::Factorization;
use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::sparse::{SparseColMat, SymbolicSparseColMat};
use faer::{Accum, Mat, MatMut, MatRef, Par};
use rayon::prelude::*;
use std::collections::HashMap;

/// An atom's interior factored with its border eliminated last.
struct Atom {
    /// The sets that contain the atom, ascending.
    sets: Vec<usize>,
    /// The interior's vertices, then the border's, in elimination order.
    elim: Vec<usize>,
    /// How many of `elim`'s vertices are the interior's (the rest are its border).
    interior: usize,
    factor: Factorization,
    /// The factor's border block, `L_BB` (dense lower triangle).
    l_bb: Mat<f64>,
    /// The interior's Schur complement onto its border, `A_BB - L_BB L_BB^T` (dense).
    schur: Mat<f64>,
}

impl Atom {
    /// Factors `interior` (ascending) with `border` (the interface vertices it is coupled
    /// to, with repeats) eliminated last, each in the order of `rank`, and takes the
    /// interior's Schur complement onto the border.
    fn new(
        lower: &SparseColMat<usize, f64>,
        rank: &[usize],
        mut interior: Vec<usize>,
        mut border: Vec<usize>,
        sets: Vec<usize>,
    ) -> Result<Self> {
        border.sort_unstable();
        border.dedup();
        let b = border.len();
        let mut region: Vec<usize> = interior.iter().chain(&border).copied().collect();
        region.sort_unstable();
        let (sub, index) = restricted(lower, &region);
        interior.sort_unstable_by_key(|&v| rank[v]);
        border.sort_unstable_by_key(|&v| rank[v]);
        let inner = interior.len();
        let mut elim = interior;
        elim.extend(border);
        let order: Vec<usize> = elim.iter().map(|&v| index[v]).collect();
        let factor = Factorization::new(&sub, Some(&order))?;
        let l_bb = factor.trailing_block(b);
        // -L_BB L_BB^T's lower triangle (a sixth of the full product's work), then A_BB
        // added and the upper triangle mirrored.
        let mut schur = Mat::<f64>::zeros(b, b);
        triangular::matmul(
            schur.as_mut(),
            BlockStructure::TriangularLower,
            Accum::Replace,
            &l_bb,
            BlockStructure::TriangularLower,
            l_bb.transpose(),
            BlockStructure::TriangularUpper,
            -1.0,
            Par::Seq,
        );
        let mut at = vec![usize::MAX; sub.nrows()];
        for (p, &v) in elim[inner..].iter().enumerate() {
            at[index[v]] = p;
        }
        for_each_entry(&sub, |r, c, a| {
            if at[r] != usize::MAX && at[c] != usize::MAX {
                let (p, q) = (at[r].max(at[c]), at[r].min(at[c]));
                schur[(p, q)] += a;
            }
        });
        for p in 0..b {
            for q in 0..p {
                schur[(q, p)] = schur[(p, q)];
            }
        }
        Ok(Atom {
            sets,
            elim,
            interior: inner,
            factor,
            l_bb,
            schur,
        })
    }
}

/// A set's system reduced to its interface vertices.
struct Reduced {
    /// The set's interface vertices, ascending.
    vertices: Vec<usize>,
    /// Each of them with its row.
    index: HashMap<usize, usize>,
    /// The reduced matrix's factorization (`None` without interface vertices).
    factor: Option<Factorization>,
}

/// The most dense border entries (the sum over atoms of the border's size squared) worth
/// substructuring for: each atom keeps two dense border blocks and factors one, so a mesh
/// whose atoms interleave (parts assigned vertex by vertex) would need memory and time
/// quadratic in the mesh. 4M entries: 64 MB for both blocks, a border of 2 048 at worst
/// (`figure` has 1 097 at 500k vertices); past it the caller factors each set on its own.
const MAX_DENSE_BORDER_ENTRIES: usize = 1 << 22;

/// Every set's system, factored by substructuring (module docs).
pub(crate) struct Substructured {
    atoms: Vec<Atom>,
    sets: Vec<Reduced>,
}

impl Substructured {
    /// Factors the principal submatrices of the SPD matrix whose lower triangle is
    /// `lower` on each of `sets` (vertex lists, ascending). `rank[v]`: `v`'s position in
    /// a fill-reducing order of the whole matrix, which each interior and border follows.
    /// `None` when the borders would hold more than [`MAX_DENSE_BORDER_ENTRIES`] dense
    /// entries (atoms that interleave): factoring each set on its own is cheaper then.
    pub(crate) fn new(
        lower: &SparseColMat<usize, f64>,
        sets: &[&[usize]],
        rank: &[usize],
    ) -> Result<Option<Self>> {
        let n = lower.nrows();
        let (atom_of, atom_sets) = atoms(n, sets);
        let mut size = vec![0usize; atom_sets.len()];
        atom_of.iter().for_each(|&a| size[a] += 1);
        // Of two coupled vertices in different atoms, the one in the smaller atom (then
        // the lower-numbered) joins the interface: the large atoms keep whole interiors.
        let key = |v: usize| (size[atom_of[v]], atom_of[v]);
        let mut on_interface = vec![false; n];
        for_each_entry(lower, |r, c, _| {
            if atom_of[r] != atom_of[c] {
                on_interface[if key(r) < key(c) { r } else { c }] = true;
            }
        });
        let mut interiors = vec![Vec::new(); atom_sets.len()];
        let mut borders = vec![Vec::new(); atom_sets.len()];
        for v in (0..n).filter(|&v| !on_interface[v]) {
            interiors[atom_of[v]].push(v);
        }
        for_each_entry(lower, |r, c, _| {
            if on_interface[r] != on_interface[c] {
                let (inside, border) = if on_interface[r] { (c, r) } else { (r, c) };
                borders[atom_of[inside]].push(border);
            }
        });
        let mut parts: Vec<(Vec<usize>, Vec<usize>, Vec<usize>)> = (interiors.into_iter())
            .zip(borders)
            .zip(atom_sets)
            .filter(|((interior, _), sets)| !interior.is_empty() && !sets.is_empty())
            .map(|((interior, mut border), sets)| {
                border.sort_unstable();
                border.dedup();
                (interior, border, sets)
            })
            .collect();
        let dense: usize = parts.iter().map(|(_, b, _)| b.len() * b.len()).sum();
        if dense > MAX_DENSE_BORDER_ENTRIES {
            return Ok(None);
        }
        // The largest first: the threads then finish the factorizations and solves
        // together.
        parts.sort_by_key(|(interior, _, _)| std::cmp::Reverse(interior.len()));
        let atoms = parts
            .into_par_iter()
            .map(|(interior, border, sets)| Atom::new(lower, rank, interior, border, sets))
            .collect::<Result<Vec<_>>>()?;
        let sets = sets
            .par_iter()
            .enumerate()
            .map(|(s, set)| reduce(lower, &atoms, s, set, &on_interface))
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(Substructured { atoms, sets }))
    }

    /// For each `(s, j)` of `columns`, solves set `s`'s system for the right-hand side
    /// `rhs[.., j]` into `x[.., j]` (whole-mesh rows; left as they are outside the set).
    pub(crate) fn solve(
        &self,
        rhs: MatRef<'_, f64>,
        columns: &[(usize, usize)],
        x: MatMut<'_, f64>,
    ) {
        let columns = SolveColumns::new(columns);
        let forward = self.forward(rhs, &columns);
        let interface = self.interface(rhs, &columns, &forward);
        let interiors = self.backward(&columns, forward, &interface);
        self.write_solution(&columns, &interface, &interiors, x);
    }

    /// Forward: the interiors' L y = b; L_BB y_B is their Schur term on the border. Per
    /// atom, its columns, y and the term.
    fn forward(&self, rhs: MatRef<'_, f64>, columns: &SolveColumns) -> Vec<ForwardSolve> {
        self.atoms
            .par_iter()
            .map(|atom| {
                let cols = columns.of_atom(atom);
                let mut y = Mat::<f64>::zeros(atom.elim.len(), cols.len());
                for (t, &c) in cols.iter().enumerate() {
                    for (i, &v) in atom.elim[..atom.interior].iter().enumerate() {
                        y[(i, t)] = rhs[(v, columns.rhs_col(c))];
                    }
                }
                atom.factor.forward_in_place(y.as_mut());
                let term = &atom.l_bb * y.subrows(atom.interior, atom.l_bb.nrows());
                (cols, y, term)
            })
            .collect()
    }

    /// Each set's interface: b_F - A_FI A_II^-1 b_I, solved with its reduced matrix. Per
    /// set, its interface vertices' values, one column per column of the set.
    fn interface(
        &self,
        rhs: MatRef<'_, f64>,
        columns: &SolveColumns,
        forward: &[ForwardSolve],
    ) -> Vec<Mat<f64>> {
        self.sets
            .par_iter()
            .enumerate()
            .map(|(s, set)| {
                let cols: Vec<usize> = (0..columns.len())
                    .filter(|&c| columns.sets[c] == s)
                    .collect();
                let mut x = Mat::<f64>::zeros(set.vertices.len(), cols.len());
                let Some(factor) = &set.factor else {
                    return x;
                };
                for (t, &c) in cols.iter().enumerate() {
                    for (i, &v) in set.vertices.iter().enumerate() {
                        x[(i, t)] = rhs[(v, columns.rhs_col(c))];
                    }
                }
                for (atom, (atom_cols, _, term)) in self.atoms.iter().zip(forward) {
                    if atom.sets.binary_search(&s).is_err() {
                        continue;
                    }
                    let border = &atom.elim[atom.interior..];
                    for (t, &c) in cols.iter().enumerate() {
                        let a = atom_cols
                            .binary_search(&c)
                            .expect("the atom serves the set");
                        for (b, v) in border.iter().enumerate() {
                            if let Some(&i) = set.index.get(v) {
                                x[(i, t)] += term[(b, a)];
                            }
                        }
                    }
                }
                factor.solve_in_place(x.as_mut(), 1);
                x
            })
            .collect()
    }

    /// Backward: with the border's values x_B in place of y_B (as L_BB^T x_B), L^T x = y
    /// gives the interiors' values. Per atom, its interior's values, one column per column
    /// of the atom.
    fn backward(
        &self,
        columns: &SolveColumns,
        forward: Vec<ForwardSolve>,
        interface: &[Mat<f64>],
    ) -> Vec<Mat<f64>> {
        let column_sets = &columns.sets;
        self.atoms
            .par_iter()
            .zip(forward)
            .map(|(atom, (cols, mut y, _))| {
                let border = &atom.elim[atom.interior..];
                let mut x_b = Mat::<f64>::zeros(border.len(), cols.len());
                for (t, &c) in cols.iter().enumerate() {
                    let set = &self.sets[column_sets[c]];
                    let s_col = (0..c).filter(|&d| column_sets[d] == column_sets[c]).count();
                    for (b, v) in border.iter().enumerate() {
                        if let Some(&i) = set.index.get(v) {
                            x_b[(b, t)] = interface[column_sets[c]][(i, s_col)];
                        }
                    }
                }
                let y_b = atom.l_bb.transpose() * &x_b;
                y.subrows_mut(atom.interior, border.len()).copy_from(&y_b);
                atom.factor.backward_in_place(y.as_mut());
                y
            })
            .collect()
    }

    /// Writes the sets' interface values and the atoms' interior values into their
    /// whole-mesh rows of `x`, each column into its right-hand side's column.
    fn write_solution(
        &self,
        columns: &SolveColumns,
        interface: &[Mat<f64>],
        interiors: &[Mat<f64>],
        mut x: MatMut<'_, f64>,
    ) {
        for (s, set) in self.sets.iter().enumerate() {
            let cols = (0..columns.len()).filter(|&c| columns.sets[c] == s);
            for (t, c) in cols.enumerate() {
                for (i, &v) in set.vertices.iter().enumerate() {
                    x[(v, columns.rhs_col(c))] = interface[s][(i, t)];
                }
            }
        }
        for (atom, y) in self.atoms.iter().zip(interiors) {
            for (t, c) in columns.of_atom(atom).into_iter().enumerate() {
                for (i, &v) in atom.elim[..atom.interior].iter().enumerate() {
                    x[(v, columns.rhs_col(c))] = y[(i, t)];
                }
            }
        }
    }
}

/// An atom's forward solve: its columns (ascending), `y` from `L y = b` on its interior,
/// and the Schur term `L_BB y_B` on its border.
type ForwardSolve = (Vec<usize>, Mat<f64>, Mat<f64>);

/// The columns of one [`Substructured::solve`]: `(set, right-hand side column)` pairs.
struct SolveColumns<'a> {
    columns: &'a [(usize, usize)],
    /// Each column's set.
    sets: Vec<usize>,
}

impl<'a> SolveColumns<'a> {
    /// The columns `columns`, `(set, right-hand side column)` each.
    fn new(columns: &'a [(usize, usize)]) -> Self {
        SolveColumns {
            columns,
            sets: columns.iter().map(|&(s, _)| s).collect(),
        }
    }

    /// How many columns there are.
    fn len(&self) -> usize {
        self.columns.len()
    }

    /// Column `c`'s column of the right-hand side (and of the solution).
    fn rhs_col(&self, c: usize) -> usize {
        self.columns[c].1
    }

    /// The columns of the sets `atom` lies in, ascending.
    fn of_atom(&self, atom: &Atom) -> Vec<usize> {
        (0..self.len())
            .filter(|&c| atom.sets.binary_search(&self.sets[c]).is_ok())
            .collect()
    }
}

/// Each vertex's atom, and each atom's sets (ascending): vertices in the same sets share
/// an atom. The atoms are refined one set at a time (each splits in its members and the
/// others), without hashing each vertex's membership.
fn atoms(n: usize, sets: &[&[usize]]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut atom_of = vec![0usize; n];
    let mut atom_sets: Vec<Vec<usize>> = vec![Vec::new()];
    for (s, set) in sets.iter().enumerate() {
        // split[a]: the atom that `a`'s members of `s` move to.
        let mut split = vec![usize::MAX; atom_sets.len()];
        for &v in *set {
            let a = atom_of[v];
            if split[a] == usize::MAX {
                let mut with = atom_sets[a].clone();
                with.push(s);
                atom_sets.push(with);
                split[a] = atom_sets.len() - 1;
            }
            atom_of[v] = split[a];
        }
    }
    // Atoms left without vertices (every vertex of an atom joined a set) are dropped.
    let mut used = vec![usize::MAX; atom_sets.len()];
    let mut kept = Vec::new();
    for a in atom_of.iter_mut() {
        if used[*a] == usize::MAX {
            used[*a] = kept.len();
            kept.push(std::mem::take(&mut atom_sets[*a]));
        }
        *a = used[*a];
    }
    (atom_of, kept)
}

/// Calls `f(row, column, value)` for every stored entry of `lower` (each off-diagonal
/// pair once).
fn for_each_entry(lower: &SparseColMat<usize, f64>, mut f: impl FnMut(usize, usize, f64)) {
    let (ptr, rows, vals) = (
        lower.symbolic().col_ptr(),
        lower.symbolic().row_idx(),
        lower.val(),
    );
    for c in 0..lower.ncols() {
        for p in ptr[c]..ptr[c + 1] {
            f(rows[p], c, vals[p]);
        }
    }
}

/// `lower`'s rows and columns in `region` (ascending): the lower triangle of that
/// principal submatrix, and each vertex's index in it (`usize::MAX` outside `region`).
pub(crate) fn restricted(
    lower: &SparseColMat<usize, f64>,
    region: &[usize],
) -> (SparseColMat<usize, f64>, Vec<usize>) {
    let mut index = vec![usize::MAX; lower.nrows()];
    for (i, &v) in region.iter().enumerate() {
        index[v] = i;
    }
    let (ptr, rows, vals) = (
        lower.symbolic().col_ptr(),
        lower.symbolic().row_idx(),
        lower.val(),
    );
    let mut col_ptr = Vec::with_capacity(region.len() + 1);
    col_ptr.push(0);
    let (mut row_idx, mut values) = (Vec::new(), Vec::new());
    for &k in region {
        for p in ptr[k]..ptr[k + 1] {
            if index[rows[p]] != usize::MAX {
                row_idx.push(index[rows[p]]);
                values.push(vals[p]);
            }
        }
        col_ptr.push(row_idx.len());
    }
    let m = region.len();
    let sub = SparseColMat::new(
        SymbolicSparseColMat::new_checked(m, m, col_ptr, None, row_idx),
        values,
    );
    (sub, index)
}

/// Set `s`'s system reduced to its interface vertices: `A_FF` minus the Schur complement
/// `A_BB - L_BB L_BB^T` of each of its atoms, restricted to the set; factored with faer's
/// ordering.
fn reduce(
    lower: &SparseColMat<usize, f64>,
    atoms: &[Atom],
    s: usize,
    set: &[usize],
    on_interface: &[bool],
) -> Result<Reduced> {
    let vertices: Vec<usize> = set.iter().copied().filter(|&v| on_interface[v]).collect();
    let index: HashMap<usize, usize> = vertices.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let m = vertices.len();
    if m == 0 {
        return Ok(Reduced {
            vertices,
            index,
            factor: None,
        });
    }
    // Dense accumulation: the reduced matrix is small (the interface) but its atoms'
    // terms are dense blocks.
    let mut c = Mat::<f64>::zeros(m, m);
    for (j, &v) in vertices.iter().enumerate() {
        let (ptr, rows, vals) = (
            lower.symbolic().col_ptr(),
            lower.symbolic().row_idx(),
            lower.val(),
        );
        for p in ptr[v]..ptr[v + 1] {
            if let Some(&i) = index.get(&rows[p]) {
                c[(i, j)] += vals[p];
                if i != j {
                    c[(j, i)] += vals[p];
                }
            }
        }
    }
    for atom in atoms.iter().filter(|a| a.sets.binary_search(&s).is_ok()) {
        let border = &atom.elim[atom.interior..];
        let rows: Vec<(usize, usize)> = border
            .iter()
            .enumerate()
            .filter_map(|(b, v)| index.get(v).map(|&i| (b, i)))
            .collect();
        for &(p, i) in &rows {
            for &(q, j) in &rows {
                c[(i, j)] -= atom.schur[(p, q)];
            }
        }
    }
    let mut col_ptr = vec![0];
    let (mut row_idx, mut values) = (Vec::new(), Vec::new());
    for j in 0..m {
        for i in j..m {
            if c[(i, j)] != 0.0 || i == j {
                row_idx.push(i);
                values.push(c[(i, j)]);
            }
        }
        col_ptr.push(row_idx.len());
    }
    let lower = SparseColMat::new(
        SymbolicSparseColMat::new_checked(m, m, col_ptr, None, row_idx),
        values,
    );
    Ok(Reduced {
        vertices,
        index,
        factor: Some(Factorization::new(&lower, None)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::sparse::Triplet;

    /// The lower triangle of a `w x w` grid's Laplacian plus a varying diagonal (SPD).
    fn grid(w: usize) -> SparseColMat<usize, f64> {
        let mut t = Vec::new();
        for v in 0..w * w {
            t.push(Triplet::new(v, v, 4.5 + (v % 7) as f64 * 0.1));
            if v % w + 1 < w {
                t.push(Triplet::new(v + 1, v, -1.0));
            }
            if v + w < w * w {
                t.push(Triplet::new(v + w, v, -1.0 - (v % 3) as f64 * 0.2));
            }
        }
        SparseColMat::try_new_from_triplets(w * w, w * w, &t).expect("valid triplets")
    }

    #[test]
    fn every_set_gets_the_solution_of_its_own_restricted_system() {
        let w = 14;
        let n = w * w;
        let lower = grid(w);
        // Overlapping sets, as bones' free sets overlap on the torso: the whole grid, its
        // left two thirds, its right two thirds, a band, and a corner with a disjoint spot.
        let col = |v: usize| v % w;
        let sets: Vec<Vec<usize>> = vec![
            (0..n).collect(),
            (0..n).filter(|&v| col(v) < 9).collect(),
            (0..n).filter(|&v| col(v) >= 5).collect(),
            (0..n).filter(|&v| (4..8).contains(&(v / w))).collect(),
            (0..n)
                .filter(|&v| (col(v) < 4 && v / w < 4) || (col(v) > 10 && v / w > 10))
                .collect(),
        ];
        let refs: Vec<&[usize]> = sets.iter().map(|s| s.as_slice()).collect();
        let rank: Vec<usize> = (0..n).collect();
        let solved = Substructured::new(&lower, &refs, &rank).unwrap().unwrap();
        let rhs = Mat::<f64>::from_fn(n, 7, |v, j| ((v * 31 + j * 17) % 11) as f64 - 4.0);
        let columns: Vec<(usize, usize)> = (0..7).map(|j| (j % sets.len(), j)).collect();
        let mut x = Mat::<f64>::zeros(n, 7);
        solved.solve(rhs.as_ref(), &columns, x.as_mut());
        for &(s, j) in &columns {
            let (sub, index) = restricted(&lower, &sets[s]);
            let factor = Factorization::new(&sub, None).unwrap();
            let mut b = Mat::<f64>::from_fn(sets[s].len(), 1, |i, _| rhs[(sets[s][i], j)]);
            factor.solve_in_place(b.as_mut(), 1);
            for v in 0..n {
                let expected = if index[v] == usize::MAX {
                    0.0
                } else {
                    b[(index[v], 0)]
                };
                assert!((x[(v, j)] - expected).abs() < 1e-12, "set {s} vertex {v}");
            }
        }
    }

    #[test]
    fn interleaved_atoms_are_left_to_the_caller() {
        // Two sets whose atoms interleave vertex by vertex (a checkerboard): every vertex
        // of one atom borders the other, so the dense border blocks would be 2 450^2.
        let w = 70;
        let n = w * w;
        let lower = grid(w);
        let all: Vec<usize> = (0..n).collect();
        let black: Vec<usize> = (0..n).filter(|&v| (v % w + v / w) % 2 == 0).collect();
        let rank: Vec<usize> = (0..n).collect();
        let refs: Vec<&[usize]> = vec![&all, &black];
        assert!(Substructured::new(&lower, &refs, &rank).unwrap().is_none());
        // A split into two halves has a border of one grid row: substructured.
        let left: Vec<usize> = (0..n).filter(|&v| v % w < w / 2).collect();
        let refs: Vec<&[usize]> = vec![&all, &left];
        assert!(Substructured::new(&lower, &refs, &rank).unwrap().is_some());
    }
}
