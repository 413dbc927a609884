//! **heat**: bone heat (Baran & Popović 2007; Blender's Automatic Weights) with a 2D
//! visibility test.
//!
//! For every bone `j`, solve `(L + M H) w_j = M H p_j`, where `L` is the cotangent Laplacian,
//! `M` the lumped mass, `H_vv = k / d_v^2` with `d_v` the distance from `v` to its nearest
//! *visible* bone ([`Visibility`]) and `k` the number of bones tied for nearest, and
//! `p_j(v) = 1/k` for those bones (0 otherwise). One sparse Cholesky factorization (faer,
//! AMD ordering) serves every bone: all right-hand sides are solved in one call, or in column
//! blocks on rayon threads. Negative values are clamped, then rows are normalized.
//!
//! - A vertex on a bone (`d_v = 0`) would make `H` infinite: `d_v` is floored at
//!   `distance_floor` times the scene size, which pins the vertex to that bone (weight
//!   `1 - O(1e-6)`) while keeping the matrix finite.
//! - A connected component in which no vertex sees any bone would make the system singular
//!   there (Blender then fails every bone): inside such a component visibility is ignored,
//!   and the report names the component.
//! - A vertex that sees no bone (while its component does) has `H_vv = 0`: it gets its
//!   weights by diffusion alone, which is the point of the method.

use super::distance::{bone_segments, nearest_segment};
use super::nearest::{nearest_visible_bones, NearestBones};
use super::ordering::nested_dissection;
use super::visibility::Visibility;
use super::{
    blind_warnings, check_number, finish, parse_number, scene_extent, OptionKey, Solution, Solver,
    SolverOptions,
};
use crate::error::{Error, LinearAlgebraProblem, Result, SolverError};
use crate::mesh::CotanLaplacian;
use crate::scene::Scene;
use crate::weights::Weights;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::LltRegularization;
use faer::perm::PermRef;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, SymbolicCholesky, SymmetricOrdering,
};
use faer::sparse::SparseColMat;
use faer::{Conj, Mat, MatMut, Par, Side};
use rayon::prelude::*;
use std::time::Instant;

/// Fill-reducing ordering for the heat system's Cholesky factorization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ordering {
    /// Geometric nested dissection of the mesh ([`nested_dissection`]).
    NestedDissection,
    /// faer's approximate minimum degree.
    Amd,
}

/// Options of [`Heat`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HeatOptions {
    /// Bones whose distances to a vertex differ by less than this fraction are tied for
    /// nearest and share its heat (key `tie_tolerance`).
    ///
    /// Default: [`HeatOptions::DEFAULT_TIE_TOLERANCE`] (1e-6).
    pub tie_tolerance: f64,
    /// Distances to the nearest bone are floored at this fraction of the scene size, so a
    /// vertex on a bone gets a huge but finite `H` (key `distance_floor`).
    ///
    /// Default: [`HeatOptions::DEFAULT_DISTANCE_FLOOR`] (1e-6).
    pub distance_floor: f64,
    /// Whether the 2D visibility test is used (key `visibility`). Without it every bone
    /// counts as visible, as in a 3D tool applied to a flat mesh.
    ///
    /// Default: [`HeatOptions::DEFAULT_VISIBILITY`] (true).
    pub visibility: bool,
    /// Fill-reducing ordering of the sparse Cholesky (key `ordering`: `nd` or `amd`; `nd`,
    /// geometric nested dissection, measured faster than faer's AMD on these meshes).
    ///
    /// Default: [`HeatOptions::DEFAULT_ORDERING`] (`nd`).
    pub ordering: Ordering,
    /// Solve the bones in column blocks on rayon threads (key `parallel_bones`; true:
    /// measured faster than one sequential call on 2 cores).
    ///
    /// Default: [`HeatOptions::DEFAULT_PARALLEL_BONES`] (true).
    pub parallel_bones: bool,
}

impl HeatOptions {
    /// Default of [`HeatOptions::tie_tolerance`].
    pub const DEFAULT_TIE_TOLERANCE: f64 = 1e-6;
    /// Default of [`HeatOptions::distance_floor`].
    pub const DEFAULT_DISTANCE_FLOOR: f64 = 1e-6;
    /// Default of [`HeatOptions::visibility`].
    pub const DEFAULT_VISIBILITY: bool = true;
    /// Default of [`HeatOptions::ordering`].
    pub const DEFAULT_ORDERING: Ordering = Ordering::NestedDissection;
    /// Default of [`HeatOptions::parallel_bones`].
    pub const DEFAULT_PARALLEL_BONES: bool = true;

    /// With [`HeatOptions::tie_tolerance`] set.
    pub fn with_tie_tolerance(mut self, tie_tolerance: f64) -> Self {
        self.tie_tolerance = tie_tolerance;
        self
    }
    /// With [`HeatOptions::distance_floor`] set.
    pub fn with_distance_floor(mut self, distance_floor: f64) -> Self {
        self.distance_floor = distance_floor;
        self
    }
    /// With [`HeatOptions::visibility`] set.
    pub fn with_visibility(mut self, visibility: bool) -> Self {
        self.visibility = visibility;
        self
    }
    /// With [`HeatOptions::ordering`] set.
    pub fn with_ordering(mut self, ordering: Ordering) -> Self {
        self.ordering = ordering;
        self
    }
    /// With [`HeatOptions::parallel_bones`] set.
    pub fn with_parallel_bones(mut self, parallel_bones: bool) -> Self {
        self.parallel_bones = parallel_bones;
        self
    }
}

impl Default for HeatOptions {
    fn default() -> Self {
        HeatOptions {
            tie_tolerance: Self::DEFAULT_TIE_TOLERANCE,
            distance_floor: Self::DEFAULT_DISTANCE_FLOOR,
            visibility: Self::DEFAULT_VISIBILITY,
            ordering: Self::DEFAULT_ORDERING,
            parallel_bones: Self::DEFAULT_PARALLEL_BONES,
        }
    }
}

pub(crate) fn parse_bool(key: &str, value: &str) -> Result<bool> {
    match value.trim() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(SolverError::InvalidOption {
            option: key.to_string(),
            message: format!("{value:?} is not a boolean (true/false)"),
        }
        .into()),
    }
}

impl SolverOptions for HeatOptions {
    const SOLVER: &'static str = "heat";
    const OPTIONS: &'static [OptionKey<Self>] = &[
        OptionKey {
            key: "tie_tolerance",
            value: "T",
            doc: "bones within this fraction of the nearest distance share the heat",
            aliases: &[],
            get: |o| Some(o.tie_tolerance.to_string()),
            set: |o, k, v| {
                o.tie_tolerance = parse_number(k, v, |x| x >= 0.0, ">= 0")?;
                Ok(())
            },
        },
        OptionKey {
            key: "distance_floor",
            value: "F",
            doc: "nearest-bone distances floored at F x scene size",
            aliases: &[],
            get: |o| Some(o.distance_floor.to_string()),
            set: |o, k, v| {
                o.distance_floor = parse_number(k, v, floor_ok, FLOOR_RANGE)?;
                Ok(())
            },
        },
        OptionKey {
            key: "visibility",
            value: "BOOL",
            doc: "2D visibility test; false = every bone visible, as a 3D tool on a flat mesh",
            aliases: &[],
            get: |o| Some(o.visibility.to_string()),
            set: |o, k, v| {
                o.visibility = parse_bool(k, v)?;
                Ok(())
            },
        },
        OptionKey {
            key: "ordering",
            value: "nd|amd",
            doc: "Cholesky ordering: nested dissection or faer's AMD",
            aliases: &[],
            get: |o| {
                Some(
                    match o.ordering {
                        Ordering::NestedDissection => "nd",
                        Ordering::Amd => "amd",
                    }
                    .to_string(),
                )
            },
            set: |o, k, v| {
                o.ordering = match v.trim() {
                    "nd" => Ordering::NestedDissection,
                    "amd" => Ordering::Amd,
                    _ => {
                        return Err(SolverError::InvalidOption {
                            option: k.to_string(),
                            message: format!("{v:?} is not an ordering (nd, amd)"),
                        }
                        .into())
                    }
                };
                Ok(())
            },
        },
        OptionKey {
            key: "parallel_bones",
            value: "BOOL",
            doc: "solve bones in blocks on threads",
            aliases: &[],
            get: |o| Some(o.parallel_bones.to_string()),
            set: |o, k, v| {
                o.parallel_bones = parse_bool(k, v)?;
                Ok(())
            },
        },
    ];
}

/// The bone heat solver.
#[derive(Debug, Clone, Default)]
pub struct Heat {
    /// Its options.
    pub options: HeatOptions,
}

impl Heat {
    /// A solver with these options.
    pub fn new(options: HeatOptions) -> Self {
        Heat { options }
    }
}

/// A factorized SPD sparse matrix: the symbolic analysis and the numeric `L` values.
pub struct Factorization {
    /// Shared with refactorizations of the same pattern ([`Factorization::refactor`]).
    symbolic: std::sync::Arc<SymbolicCholesky<usize>>,
    values: Vec<f64>,
}

impl Factorization {
    /// Factorizes the SPD matrix whose **lower triangle** is `lower` (faer's supernodal
    /// Cholesky, sequential) with the fill-reducing elimination order `order` (`order[k]` =
    /// the row eliminated `k`-th), or faer's AMD ordering when `order` is `None`.
    pub fn new(lower: &SparseColMat<usize, f64>, order: Option<&[usize]>) -> Result<Self> {
        Self::new_into(lower, order, Vec::new())
    }

    /// [`Factorization::new`] into the storage `values` (of an earlier factor, taken with
    /// [`Factorization::take_values`]), for many factorizations made in turn.
    pub fn new_into(
        lower: &SparseColMat<usize, f64>,
        order: Option<&[usize]>,
        values: Vec<f64>,
    ) -> Result<Self> {
        let n = lower.nrows();
        let inverse: Vec<usize> = match order {
            Some(fwd) => {
                if fwd.len() != n {
                    return Err(SolverError::LinearAlgebra {
                        problem: LinearAlgebraProblem::OrderingLength {
                            given: fwd.len(),
                            rows: n,
                        },
                    }
                    .into());
                }
                let mut inv = vec![usize::MAX; n];
                for (k, &v) in fwd.iter().enumerate() {
                    if v >= n || inv[v] != usize::MAX {
                        return Err(SolverError::LinearAlgebra {
                            problem: LinearAlgebraProblem::NotAPermutation { row: v },
                        }
                        .into());
                    }
                    inv[v] = k;
                }
                inv
            }
            None => Vec::new(),
        };
        let ordering = match order {
            Some(fwd) => SymmetricOrdering::Custom(PermRef::new_checked(fwd, &inverse, n)),
            None => SymmetricOrdering::Amd,
        };
        let symbolic = factorize_symbolic_cholesky(
            lower.symbolic(),
            Side::Lower,
            ordering,
            Default::default(),
        )
        .map_err(|e| {
            Error::Solver(SolverError::LinearAlgebra {
                problem: LinearAlgebraProblem::Symbolic {
                    detail: format!("{e:?}"),
                },
            })
        })?;
        Self::numeric(std::sync::Arc::new(symbolic), lower, values)
    }

    /// The symbolic analysis alone (faer's AMD ordering and the factor's structure) of the
    /// matrix whose lower triangle is `lower`: like a factorization after
    /// [`Factorization::take_values`], it gives [`Factorization::order`] and
    /// [`Factorization::refactor_into`] but cannot solve.
    pub fn analyze(lower: &SparseColMat<usize, f64>) -> Result<Self> {
        let symbolic = factorize_symbolic_cholesky(
            lower.symbolic(),
            Side::Lower,
            SymmetricOrdering::Amd,
            Default::default(),
        )
        .map_err(|e| {
            Error::Solver(SolverError::LinearAlgebra {
                problem: LinearAlgebraProblem::Symbolic {
                    detail: format!("{e:?}"),
                },
            })
        })?;
        Ok(Factorization {
            symbolic: std::sync::Arc::new(symbolic),
            values: Vec::new(),
        })
    }

    /// Number of stored values of the Cholesky factor (its fill, for the timing example).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn stored_values(&self) -> usize {
        self.symbolic.len_val()
    }

    /// The elimination order it uses (`order[k]` = the row eliminated `k`-th), so that a
    /// principal submatrix can be factored in the same order without a new AMD analysis.
    pub fn order(&self) -> Vec<usize> {
        match self.symbolic.perm() {
            Some(p) => p.arrays().0.to_vec(),
            None => (0..self.symbolic.nrows()).collect(),
        }
    }

    /// Factorizes `lower`, which must have the sparsity pattern of the matrix this
    /// factorization was made from, reusing its symbolic analysis (ordering and structure).
    pub fn refactor(&self, lower: &SparseColMat<usize, f64>) -> Result<Self> {
        Self::numeric(self.symbolic.clone(), lower, Vec::new())
    }

    /// [`Factorization::refactor`] into the storage `values` (of an earlier factor, taken
    /// with [`Factorization::take_values`]), so that a large factor's memory is reused
    /// instead of allocated and page-faulted again.
    pub fn refactor_into(
        &self,
        lower: &SparseColMat<usize, f64>,
        values: Vec<f64>,
    ) -> Result<Self> {
        Self::numeric(self.symbolic.clone(), lower, values)
    }

    /// Takes the numeric factor's storage out for [`Factorization::refactor_into`]; this
    /// factorization keeps its symbolic analysis (for [`Factorization::refactor`] and
    /// [`Factorization::order`]) but can no longer solve until refactored.
    pub fn take_values(&mut self) -> Vec<f64> {
        std::mem::take(&mut self.values)
    }

    /// Factorizes `lower` (same sparsity pattern as this factorization's matrix) into this
    /// factorization's own storage: refactoring many matrices of one pattern in turn then
    /// costs no fresh allocation (at 50k vertices the page faults of a new factor were a
    /// sixth of `bbw`'s time).
    pub fn refactor_in_place(&mut self, lower: &SparseColMat<usize, f64>) -> Result<()> {
        // faer zeroes the factor itself.
        self.values.resize(self.symbolic.len_val(), 0.0);
        Self::numeric_into(&self.symbolic, lower, &mut self.values)
    }

    fn numeric(
        symbolic: std::sync::Arc<SymbolicCholesky<usize>>,
        lower: &SparseColMat<usize, f64>,
        mut values: Vec<f64>,
    ) -> Result<Self> {
        // faer zeroes the factor itself: only new length needs initializing.
        values.resize(symbolic.len_val(), 0.0);
        Self::numeric_into(&symbolic, lower, &mut values)?;
        Ok(Factorization { symbolic, values })
    }

    fn numeric_into(
        symbolic: &SymbolicCholesky<usize>,
        lower: &SparseColMat<usize, f64>,
        values: &mut [f64],
    ) -> Result<()> {
        let mut buf = MemBuffer::new(
            symbolic.factorize_numeric_llt_scratch::<f64>(Par::Seq, Default::default()),
        );
        symbolic
            .factorize_numeric_llt(
                values,
                lower.as_ref(),
                Side::Lower,
                LltRegularization::default(),
                Par::Seq,
                MemStack::new(&mut buf),
                Default::default(),
            )
            .map_err(|e| {
                Error::Solver(SolverError::LinearAlgebra {
                    problem: LinearAlgebraProblem::NotPositiveDefinite {
                        detail: format!("{e:?}"),
                    },
                })
            })?;
        Ok(())
    }

    /// Solves in place for every column of `rhs`, in `blocks` column blocks run on rayon
    /// threads (1 = a single sequential call).
    pub fn solve_in_place(&self, rhs: MatMut<'_, f64>, blocks: usize) {
        let blocks = blocks.clamp(1, rhs.ncols().max(1));
        if blocks == 1 {
            self.solve_block(rhs);
            return;
        }
        let mut rest = rhs;
        let mut parts = Vec::with_capacity(blocks);
        for b in 0..blocks {
            let take = rest.ncols() / (blocks - b);
            let (head, tail) = rest.split_at_col_mut(take);
            parts.push(head);
            rest = tail;
        }
        parts.into_par_iter().for_each(|p| self.solve_block(p));
    }

    /// Solves `L y = x` in place for every column of `x`, whose rows are in elimination
    /// order (row `k` is row `order()[k]` of the factored matrix): the first half of a
    /// solve, for callers that change the trailing rows between the two halves
    /// ([`Factorization::backward_in_place`]).
    pub fn forward_in_place(&self, x: MatMut<'_, f64>) {
        self.triangular_in_place(x, false);
    }

    /// Solves `L^T x = y` in place for every column of `y` (rows in elimination order):
    /// the second half of a solve ([`Factorization::forward_in_place`]).
    pub fn backward_in_place(&self, y: MatMut<'_, f64>) {
        self.triangular_in_place(y, true);
    }

    fn triangular_in_place(&self, x: MatMut<'_, f64>, transpose: bool) {
        use faer::sparse::linalg::cholesky::{supernodal, SymbolicCholeskyRaw};
        use faer::sparse::linalg::triangular_solve::{
            solve_lower_triangular_in_place, solve_lower_triangular_transpose_in_place,
        };
        if x.ncols() == 0 {
            return;
        }
        match self.symbolic.raw() {
            SymbolicCholeskyRaw::Simplicial(s) => {
                let l = faer::sparse::SparseColMatRef::new(s.factor(), &self.values);
                if transpose {
                    solve_lower_triangular_transpose_in_place(l, Conj::No, x, Par::Seq);
                } else {
                    solve_lower_triangular_in_place(l, Conj::No, x, Par::Seq);
                }
            }
            SymbolicCholeskyRaw::Supernodal(s) => {
                let mut buf = MemBuffer::new(
                    self.symbolic
                        .solve_in_place_scratch::<f64>(x.ncols(), Par::Seq),
                );
                let stack = MemStack::new(&mut buf);
                let llt = supernodal::SupernodalLltRef::new(s, &self.values);
                if transpose {
                    llt.l_transpose_solve_with_conj(Conj::No, x, Par::Seq, stack);
                } else {
                    llt.l_solve_with_conj(Conj::No, x, Par::Seq, stack);
                }
            }
        }
    }

    /// The factor's last `b` rows and columns in elimination order, as a dense lower
    /// triangle (`L_BB`, whose `L_BB L_BB^T` is the Schur complement of the rows before
    /// them onto them).
    pub fn trailing_block(&self, b: usize) -> Mat<f64> {
        use faer::sparse::linalg::cholesky::{supernodal, SymbolicCholeskyRaw};
        let n = self.symbolic.nrows();
        let first = n - b.min(n);
        let mut block = Mat::<f64>::zeros(n - first, n - first);
        match self.symbolic.raw() {
            SymbolicCholeskyRaw::Simplicial(s) => {
                let l = faer::sparse::SparseColMatRef::new(s.factor(), &self.values);
                for c in first..n {
                    for (r, &v) in l.row_idx_of_col(c).zip(l.val_of_col(c)) {
                        block[(r - first, c - first)] = v;
                    }
                }
            }
            SymbolicCholeskyRaw::Supernodal(s) => {
                let llt = supernodal::SupernodalLltRef::new(s, &self.values);
                for k in 0..s.n_supernodes() {
                    let (begin, end) = (s.supernode_begin()[k], s.supernode_end()[k]);
                    if end <= first {
                        continue;
                    }
                    let node = llt.supernode(k);
                    let (values, pattern) = (node.val(), node.pattern());
                    let width = end - begin;
                    // Column `c`'s rows are its diagonal block's from `c` down, then the
                    // pattern's (all after the supernode): every one at or after `first`.
                    for c in begin.max(first)..end {
                        let j = c - begin;
                        for i in j..width {
                            block[(begin + i - first, c - first)] = values[(i, j)];
                        }
                        for (t, &r) in pattern.iter().enumerate() {
                            block[(r - first, c - first)] = values[(width + t, j)];
                        }
                    }
                }
            }
        }
        block
    }

    fn solve_block(&self, rhs: MatMut<'_, f64>) {
        if rhs.ncols() == 0 {
            return;
        }
        let llt = faer::sparse::linalg::cholesky::LltRef::new(&*self.symbolic, &self.values);
        let mut buf = MemBuffer::new(
            self.symbolic
                .solve_in_place_scratch::<f64>(rhs.ncols(), Par::Seq),
        );
        llt.solve_in_place_with_conj(Conj::No, rhs, Par::Seq, MemStack::new(&mut buf));
    }
}

impl Solver for Heat {
    fn name(&self) -> String {
        "heat".into()
    }

    fn compute(&self, scene: &Scene) -> Result<Solution> {
        // Unused vertices (artist meshes) would make the system singular.
        if let Some(s) = super::unused::solve_on_used(scene, self.name(), |s| self.compute(s))? {
            return Ok(s);
        }
        let started = Instant::now();
        let system = HeatSystem::assemble(scene, &self.options)?;
        let order = match self.options.ordering {
            Ordering::NestedDissection => Some(nested_dissection(&scene.mesh)),
            Ordering::Amd => None,
        };
        let factor = Factorization::new(&system.lower, order.as_deref())?;
        drop(order);
        let HeatSystem {
            lower,
            mut rhs,
            nearest,
        } = system;
        drop(lower);
        let blocks = if self.options.parallel_bones {
            rayon::current_num_threads()
        } else {
            1
        };
        factor.solve_in_place(rhs.as_mut(), blocks);
        drop(factor);

        let segments = bone_segments(scene.skeleton.bones());
        let pts = scene.mesh.vertices();
        let weights = rows_from_columns(&rhs, &nearest, |v| {
            nearest_segment(&segments, &pts[v]).unwrap_or(0)
        })?;
        let warnings = blind_warnings(scene, &nearest.blind_components);
        finish(self.name(), started, weights, warnings)
    }
}

/// `distance_floor` is a fraction of the scene size: above 1 it floors every distance, and
/// far above (1e300) `H` underflows to 0 and the system to a singular Laplacian.
const FLOOR_RANGE: &str = "in (0, 1] (a fraction of the scene size)";

fn floor_ok(x: f64) -> bool {
    x > 0.0 && x <= 1.0
}

/// The bone heat linear system of a scene, before factorization (public so that benches can
/// compare sparse back ends on the real matrix).
pub struct HeatSystem {
    /// Lower triangle (diagonal included) of `A = L + M H`.
    pub lower: SparseColMat<usize, f64>,
    /// Right-hand sides `M H p_j`, one column per bone.
    pub rhs: Mat<f64>,
    /// Nearest visible bones of every vertex (the `H` and `p` terms, and the fallback).
    pub nearest: NearestBones,
}

impl HeatSystem {
    /// Builds `A` and the right-hand sides: visibility, nearest visible bones (with the blind
    /// component fallback), cotangent Laplacian and lumped mass.
    pub fn assemble(scene: &Scene, o: &HeatOptions) -> Result<Self> {
        check_number("tie_tolerance", o.tie_tolerance, |x| x >= 0.0, ">= 0")?;
        check_number("distance_floor", o.distance_floor, floor_ok, FLOOR_RANGE)?;
        let mesh = &scene.mesh;
        let segments = bone_segments(scene.skeleton.bones());
        let floor = distance_floor(scene, o);
        let visibility = o.visibility.then(|| Visibility::new(mesh));
        let nearest =
            nearest_visible_bones(mesh, &segments, visibility.as_ref(), o.tie_tolerance, floor);
        drop(visibility);
        Self::assemble_with(scene, o, nearest)
    }

    /// Builds `A` and the right-hand sides from given nearest visible bones (the `H` and `p`
    /// terms; `best` passes bones restricted by part).
    pub fn assemble_with(scene: &Scene, o: &HeatOptions, nearest: NearestBones) -> Result<Self> {
        check_number("distance_floor", o.distance_floor, floor_ok, FLOOR_RANGE)?;
        let mesh = &scene.mesh;
        let n = mesh.vertex_count();
        let nb = scene.skeleton.len();
        let floor = distance_floor(scene, o);

        let laplacian = CotanLaplacian::new(mesh);
        let mass = laplacian.mass();
        // M_v / d_v^2: the diagonal term is k times it, the right-hand side once per tied bone.
        let heat: Vec<f64> = (0..n)
            .into_par_iter()
            .map(|v| {
                let d = nearest.distance[v];
                if d.is_finite() {
                    mass[v] / d.max(floor).powi(2)
                } else {
                    0.0
                }
            })
            .collect();
        let diagonal: Vec<f64> = (0..n)
            .map(|v| heat[v] * nearest.of(v).len() as f64)
            .collect();
        let lower = laplacian.lower_plus_diagonal(&diagonal)?;
        let mut rhs = Mat::<f64>::zeros(n, nb);
        for (v, &h) in heat.iter().enumerate() {
            for &j in nearest.of(v) {
                rhs[(v, j as usize)] = h;
            }
        }
        Ok(HeatSystem {
            lower,
            rhs,
            nearest,
        })
    }
}

/// Nearest-bone distances are floored at this (scene units).
pub(crate) fn distance_floor(scene: &Scene, o: &HeatOptions) -> f64 {
    o.distance_floor * scene_extent(scene).max(f64::MIN_POSITIVE)
}

/// Clamps negatives, normalizes each row; a row with no positive value (possible only
/// through round-off far from every bone) goes to the vertex's nearest bones.
pub(crate) fn rows_from_columns(
    x: &Mat<f64>,
    nearest: &NearestBones,
    nearest_any: impl Fn(usize) -> usize + Sync,
) -> Result<Weights> {
    let (n, nb) = (x.nrows(), x.ncols());
    let mut data = vec![0.0; n * nb];
    data.par_chunks_mut(nb).enumerate().for_each(|(v, row)| {
        let mut sum = 0.0;
        for (j, w) in row.iter_mut().enumerate() {
            let value = x[(v, j)];
            *w = if value > 0.0 && value.is_finite() {
                value
            } else {
                0.0
            };
            sum += *w;
        }
        if sum > 0.0 {
            row.iter_mut().for_each(|w| *w /= sum);
        } else if nearest.of(v).is_empty() {
            row[nearest_any(v)] = 1.0;
        } else {
            let tied = nearest.of(v);
            for &j in tied {
                row[j as usize] = 1.0 / tied.len() as f64;
            }
        }
    });
    Weights::from_row_major(data, nb)
}
