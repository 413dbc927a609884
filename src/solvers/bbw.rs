//! **bbw**: bounded biharmonic weights (Jacobson, Baran, Popović & Sorkine 2011).
//!
//! For every bone `j`, minimize the Laplacian energy `w' Q w` with `Q = L M^-1 L` (`L` the
//! cotangent Laplacian, `M` the lumped mass) subject to `0 <= w <= 1`, `w = 1` on the bone's
//! own *handle* vertices and `w = 0` on every other bone's handles; then, as libigl does,
//! normalize the rows to sum to 1.
//!
//! **Handles.** The built-in scenes insert bones as constrained edges, so vertices lie on the
//! bones: a vertex within `handle_tolerance` (relative to the scene size) of a bone is a handle
//! of that bone (of every bone tied for it, at `1/k` each, as at a joint). A bone no vertex
//! lies on (sprites and artist meshes need not contain their bones) takes the vertices that
//! see it as nearest and lie within one mean edge length of its closest vertex; a connected
//! component with no handle at all gets its closest vertices the same way. Both fallbacks are
//! named in the report's warnings.
//!
//! **The QP.** All bones share the same free set (every vertex that is no handle), so one
//! sparse Cholesky factorization of `Q_FF` (faer, AMD ordering, sequential) gives every
//! bone's *unconstrained* biharmonic solution in one multi-column solve. Each bone then runs
//! a primal-dual active set iteration (semi-smooth Newton) from that start, on rayon
//! threads: vertices outside `[0, 1]` are fixed at the bound they crossed, the rest are solved
//! again with `Q` restricted to them, and a fixed vertex whose multiplier `(Qw - b)_v` has the
//! wrong sign is released. It stops when the active set no longer changes (violations and
//! multipliers below `tolerance` are ignored), which is the exact optimum of the QP.
//! Each released vertex also releases the vertices fixed at the same bound one stencil step
//! around it (option `release_rings`; each vertex at most once, so this cannot cycle), so the
//! active region's border recedes several rings per pass instead of about one: 2-4 passes
//! instead of 6-7 at 10k vertices, 5-6 instead of 11-18 at 50k (`benches/bbw.rs`).
//!
//! **Local passes** (option `local_reach`). Even so the border creeps: at 500k vertices
//! each bone took 14-20 whole passes, the later ones releasing 2-50 vertices each. Between
//! whole passes the active set is now iterated on the rows around the vertices that just
//! changed (a band of `local_reach x sqrt(n)` stencil steps, the rest of the mesh held at
//! its current values, a small factorization per pass) until nothing there changes; the
//! next whole pass solves with that active set and its stopping test covers every vertex,
//! so the result is still the exact optimum of the QP, reached in 1-2 whole passes per
//! bone. Whole-set factors reuse one pool of storage (0.7 GB each at 500k) instead of
//! being allocated per pass.
//!
//! **Subdomains** (option `subdomain`). A bone whose weight is off its bounds on a small
//! part of the mesh (with `parts=true`, where it is locked to 0 on the parts it may not
//! influence) is solved on that part plus a margin of `region_rings` stencil steps: the
//! principal submatrix of `Q` gets its own symbolic analysis (in the whole free set's AMD
//! order restricted to it) and every other vertex stays at its bound. The multipliers of
//! the vertices outside are checked too (where a whole stencil is at one bound the
//! multiplier is 0, so only the region's neighbours can change; the stopping test looks at
//! every vertex): one of the wrong sign grows the region around it, so the result is the
//! plain iteration's optimum. A bone whose region covers more than the `subdomain`
//! fraction of the free set uses the whole free set and the shared symbolic analysis.
//!
//! **Coarse start** (option `coarse`). With at least [`COARSE_MIN_FREE`] free vertices the
//! QP is first solved on a copy of the mesh meshed again with 8 times fewer vertices
//! ([`crate::mesh::CoarseMesh`], itself solved the same way while large enough: 496k ->
//! 62k -> 7.9k vertices on arms-down), while the whole free set's symbolic analysis runs
//! beside it; no unconstrained solution is factored. Each bone's active set starts where
//! the interpolated coarse solution is 0 or 1, on a region without margin (its border is
//! a few rings from the optimum's), and takes 2 whole passes with local passes between
//! (half as wide: `COARSE_START_REACH`). The stopping test is unchanged, so the optimum
//! is the same (unit test `the_coarse_start_reaches_the_unconstrained_start_optimum`:
//! objectives within 1e-9 relative at 25k vertices). Against the previous default (the
//! unconstrained start at tolerance 1e-3), `solver_timing -- SCENE N
//! bbw:coarse=0:tolerance=0.001,bbw` in one process: arms-down 50k 0.65-0.70 s -> 0.31-0.33
//! s, 496k 15.6 s -> 7.0-7.1 s (peak memory 2.41 GB -> 1.24 GB); `figure` 50k (19 bones)
//! 1.91 s -> 0.89-0.91 s.

use super::coarse_start::{coarse_applies, coarse_solution};
use super::distance::{bone_segments, nearest_segment};
use super::heat::parse_bool;
use super::heat::{rows_from_columns, Factorization};
use super::nearest::{components_where_none, nearest_visible_bones, NearestBones};
use super::subdomain::Symmetric;
use super::visibility::Visibility;
use super::{
    blind_warnings, check_number, finish, parse_number, scene_extent, OptionKey, Solution,
    SolveWarning, Solver, SolverOptions,
};
use crate::error::{Result, SolverError};
use crate::mesh::{CotanLaplacian, Mesh};
use crate::scene::Scene;
use faer::sparse::{SparseColMat, SymbolicSparseColMat};
use faer::Mat;
use rayon::prelude::*;
use std::time::Instant;

/// Options of [`Bbw`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct BbwOptions {
    /// A vertex within this fraction of the scene size of a bone is one of its handles (key
    /// `handle_tolerance`; 1e-6: vertices exactly on the bone, up to round-off).
    ///
    /// Default: [`BbwOptions::DEFAULT_HANDLE_TOLERANCE`] (1e-6).
    pub handle_tolerance: f64,
    /// Bound violations and wrong-sign multipliers smaller than this are ignored by the
    /// active-set iteration (key `tolerance`; the weights are clipped to
    /// `[0, 1]` at the end). `Q`'s flat directions make a loose tolerance leave vertices
    /// fixed whose release would move the weights visibly, and where depends on the start:
    /// at 1e-3, `figure` 10k folded 58-62 triangles in its kick probes from the coarse start
    /// and 31 from the unconstrained one, against 29-30 from either at 1e-4 and 29 at 1e-5
    /// (the optimum). Arms-down lift_l drag at 1e-3 / 1e-4 / 1e-5: 0.42% / 0.43% / 0.49% at
    /// 10k (0.37% / 0.42% / 0.49% from the unconstrained start); time with the coarse start
    /// 10k 0.046 / 0.051 / 0.058 s, 50k 0.23 / 0.30-0.33 / 0.49-0.51 s, 496k 4.2 / 6.6 /
    /// 11.3 s.
    ///
    /// Default: [`BbwOptions::DEFAULT_TOLERANCE`] (1e-4).
    pub tolerance: f64,
    /// Give up after this many active-set iterations per bone, keeping the clipped iterate
    /// and warning (key `max_iterations`).
    ///
    /// Default: [`BbwOptions::DEFAULT_MAX_ITERATIONS`] (50).
    pub max_iterations: usize,
    /// When an active-set pass releases a vertex, it also releases the vertices fixed at the
    /// same bound within this many steps of `Q`'s stencil (two mesh rings each) around it
    /// (key `release_rings`; 0 is the plain primal-dual active set). Releasing
    /// lets the active region's border recede several rings per pass instead of about one;
    /// a vertex released too early goes out of bounds and is fixed again on the next pass
    /// (and is never bulk-released again, so this cannot cycle), and the stopping rule is
    /// unchanged, so the result is the same optimum.
    ///
    /// Default: [`BbwOptions::DEFAULT_RELEASE_RINGS`] (1).
    pub release_rings: usize,
    /// Between passes on the whole free set, the active set is iterated *locally*: the rows
    /// within `local_reach x sqrt(free vertices)` steps of `Q`'s stencil (two mesh rings
    /// each; at least 2) of the vertices that last changed bound are solved with every
    /// other row held at its current value (a small factorization of their own), until no
    /// vertex there changes (key `local_reach`; 0.1: 10 steps at 10k vertices, 22 at
    /// 50k, 70 at 500k; 0: every pass is a whole-set pass). The active region's border
    /// creeps a few rings per pass; the local passes let it creep cheaply, and the
    /// whole-set pass that follows, with its stopping test over every vertex, keeps the
    /// result the exact optimum. Also before the first whole pass when the unconstrained
    /// start is out of bounds on at most a tenth of the free vertices (a larger change
    /// moves the far field, which the local passes hold fixed). With the coarse start
    /// (option `coarse`) the band is half as wide. Measured in `benches/bbw.rs`.
    ///
    /// Default: [`BbwOptions::DEFAULT_LOCAL_REACH`] (0.1).
    pub local_reach: f64,
    /// A bone whose subdomain (the vertices where its weight is not at a bound, plus
    /// `region_rings` stencil steps around them) covers at most this fraction of the free
    /// vertices is solved on the subdomain alone, every other vertex fixed at its bound,
    /// with its own (smaller) symbolic analysis; larger ones factor the whole free set
    /// every pass, reusing one shared symbolic analysis (key `subdomain`; 0:
    /// never, 1: always). A vertex outside the subdomain whose multiplier asks to release
    /// it grows the subdomain, and the stopping test covers the whole mesh, so the optimum
    /// is the same. A fresh symbolic analysis (in the shared order, no new AMD) costs about
    /// 2.4 numeric factorizations at 10k vertices but a third of one at 500k, and with the
    /// local passes a region is analysed once or twice: 0.7 pays on arms-down's forearms
    /// (free on 55% of the mesh) while plain BBW leaves most bones strictly inside `(0, 1)`
    /// on 80-97% of arms-down and `figure`; `parts=true` locks most of the mesh (measured
    /// in `benches/bbw.rs`).
    ///
    /// Default: [`BbwOptions::DEFAULT_SUBDOMAIN`] (0.7).
    pub subdomain: f64,
    /// Margin of the subdomain, in steps of `Q`'s stencil (two mesh rings each) around
    /// the vertices not at a bound, and around any vertex that later grows it (key
    /// `region_rings`). Not used with the coarse start (option `coarse`), whose
    /// active set is close to the optimum's from the first pass: there a margin only adds
    /// rows fixed at their bound to every factorization (496k: the torso's first pass
    /// 2.7 s with 2 steps, 0.9 s with none).
    ///
    /// Default: [`BbwOptions::DEFAULT_REGION_RINGS`] (2).
    pub region_rings: usize,
    /// Whether each bone's weight is constrained to 0 on the parts it may not influence (the
    /// parts `mask` allows, [`super::mask::allowed_parts`]) inside the QP, so it falls to 0
    /// smoothly (value and slope) at the part border instead of being cut afterwards (key
    /// `parts`; false: plain BBW).
    ///
    /// Default: [`BbwOptions::DEFAULT_PARTS`] (false).
    pub parts: bool,
    /// Whether handle fallbacks use the 2D visibility test when choosing the nearest bone
    /// (key `visibility`).
    ///
    /// Default: [`BbwOptions::DEFAULT_VISIBILITY`] (true).
    pub visibility: bool,
    /// Coarse-to-fine start: with at least `COARSE_MIN_FREE` (2 000) free vertices, the QP is
    /// first solved on a copy of the mesh meshed again with this many times fewer vertices
    /// ([`crate::mesh::CoarseMesh`]; itself solved the same way while it is large enough),
    /// and every bone's active set starts from that solution interpolated, instead of from
    /// the unconstrained solution (key `coarse`; 0: off). The active set starts
    /// where the coarse solution is 0 or 1, so its border is a few rings from the optimum's
    /// instead of creeping there pass by pass; the stopping test is unchanged, so the
    /// result is the same optimum. A copy that cannot be meshed (a loop that would cross
    /// another once simplified) falls back to the unconstrained start, and so does a copy
    /// not at least twice as small. Measured in the module docs: arms-down 50k 0.89-0.90 s
    /// -> 0.31-0.33 s, 496k 37.2 s -> 7.0-7.1 s (both at tolerance 1e-4).
    ///
    /// Default: [`BbwOptions::DEFAULT_COARSE`] (8).
    pub coarse: f64,
}

/// Fewer free vertices than this are solved without the coarse start (option `coarse`):
/// a coarse copy would have a few hundred vertices. Above it the coarse start paid at every
/// size measured (`solver_timing -- SCENE N bbw:coarse=0,bbw`, tolerance 1e-3): arms-down
/// 2.5k 0.018 s -> 0.009 s, 3k 0.026-0.028 s -> 0.012-0.013 s, 10k 0.067-0.076 s -> 0.045
/// s, 20k 0.15-0.18 s -> 0.074 s; `figure` 10k 0.30-0.31 s -> 0.13 s; at 1.5k the two were
/// within noise (0.008-0.014 s).
pub const COARSE_MIN_FREE: usize = 2_000;

impl BbwOptions {
    /// Default of [`BbwOptions::handle_tolerance`].
    pub const DEFAULT_HANDLE_TOLERANCE: f64 = 1e-6;
    /// Default of [`BbwOptions::tolerance`].
    pub const DEFAULT_TOLERANCE: f64 = 1e-4;
    /// Default of [`BbwOptions::max_iterations`].
    pub const DEFAULT_MAX_ITERATIONS: usize = 50;
    /// Default of [`BbwOptions::release_rings`].
    pub const DEFAULT_RELEASE_RINGS: usize = 1;
    /// Default of [`BbwOptions::local_reach`].
    pub const DEFAULT_LOCAL_REACH: f64 = 0.1;
    /// Default of [`BbwOptions::subdomain`].
    pub const DEFAULT_SUBDOMAIN: f64 = 0.7;
    /// Default of [`BbwOptions::region_rings`].
    pub const DEFAULT_REGION_RINGS: usize = 2;
    /// Default of [`BbwOptions::parts`].
    pub const DEFAULT_PARTS: bool = false;
    /// Default of [`BbwOptions::visibility`].
    pub const DEFAULT_VISIBILITY: bool = true;
    /// Default of [`BbwOptions::coarse`].
    pub const DEFAULT_COARSE: f64 = 8.0;

    /// With [`BbwOptions::handle_tolerance`] set.
    pub fn with_handle_tolerance(mut self, handle_tolerance: f64) -> Self {
        self.handle_tolerance = handle_tolerance;
        self
    }
    /// With [`BbwOptions::tolerance`] set.
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }
    /// With [`BbwOptions::max_iterations`] set.
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Self {
        self.max_iterations = max_iterations;
        self
    }
    /// With [`BbwOptions::release_rings`] set.
    pub fn with_release_rings(mut self, release_rings: usize) -> Self {
        self.release_rings = release_rings;
        self
    }
    /// With [`BbwOptions::local_reach`] set.
    pub fn with_local_reach(mut self, local_reach: f64) -> Self {
        self.local_reach = local_reach;
        self
    }
    /// With [`BbwOptions::subdomain`] set.
    pub fn with_subdomain(mut self, subdomain: f64) -> Self {
        self.subdomain = subdomain;
        self
    }
    /// With [`BbwOptions::region_rings`] set.
    pub fn with_region_rings(mut self, region_rings: usize) -> Self {
        self.region_rings = region_rings;
        self
    }
    /// With [`BbwOptions::parts`] set.
    pub fn with_parts(mut self, parts: bool) -> Self {
        self.parts = parts;
        self
    }
    /// With [`BbwOptions::visibility`] set.
    pub fn with_visibility(mut self, visibility: bool) -> Self {
        self.visibility = visibility;
        self
    }
    /// With [`BbwOptions::coarse`] set.
    pub fn with_coarse(mut self, coarse: f64) -> Self {
        self.coarse = coarse;
        self
    }
}

impl Default for BbwOptions {
    fn default() -> Self {
        BbwOptions {
            handle_tolerance: Self::DEFAULT_HANDLE_TOLERANCE,
            tolerance: Self::DEFAULT_TOLERANCE,
            max_iterations: Self::DEFAULT_MAX_ITERATIONS,
            release_rings: Self::DEFAULT_RELEASE_RINGS,
            local_reach: Self::DEFAULT_LOCAL_REACH,
            subdomain: Self::DEFAULT_SUBDOMAIN,
            region_rings: Self::DEFAULT_REGION_RINGS,
            parts: Self::DEFAULT_PARTS,
            visibility: Self::DEFAULT_VISIBILITY,
            coarse: Self::DEFAULT_COARSE,
        }
    }
}

impl SolverOptions for BbwOptions {
    const SOLVER: &'static str = "bbw";
    const OPTIONS: &'static [OptionKey<Self>] = &[
        OptionKey {
            key: "handle_tolerance",
            value: "F",
            doc: "vertices within F x scene size of a bone are its handles",
            aliases: &[],
            get: |o| Some(o.handle_tolerance.to_string()),
            set: |o, k, v| {
                o.handle_tolerance = parse_number(k, v, |x| x > 0.0, "> 0")?;
                Ok(())
            },
        },
        OptionKey {
            key: "tolerance",
            value: "T",
            doc: "active-set tolerance on bound violations and multipliers",
            aliases: &[],
            get: |o| Some(o.tolerance.to_string()),
            set: |o, k, v| {
                o.tolerance = parse_number(k, v, |x| x > 0.0, "> 0")?;
                Ok(())
            },
        },
        OptionKey {
            key: "max_iterations",
            value: "N",
            doc: "active-set iterations per bone before giving up with a warning",
            aliases: &[],
            get: |o| Some(o.max_iterations.to_string()),
            set: |o, k, v| {
                o.max_iterations = parse_number(k, v, |x| x >= 1.0 && x.fract() == 0.0, "a whole number >= 1")? as usize;
                Ok(())
            },
        },
        OptionKey {
            key: "release_rings",
            value: "N",
            doc: "a released vertex also releases same-bound vertices N stencil steps around it",
            aliases: &[],
            get: |o| Some(o.release_rings.to_string()),
            set: |o, k, v| {
                o.release_rings = parse_number(k, v, |x| x >= 0.0 && x.fract() == 0.0, "a whole number >= 0")? as usize;
                Ok(())
            },
        },
        OptionKey {
            key: "local_reach",
            value: "F",
            doc: "iterate the active set locally, F x sqrt(free vertices) stencil steps around changes",
            aliases: &[],
            get: |o| Some(o.local_reach.to_string()),
            set: |o, k, v| {
                o.local_reach = parse_number(k, v, |x| x >= 0.0, ">= 0")?;
                Ok(())
            },
        },
        OptionKey {
            key: "subdomain",
            value: "F",
            doc: "solve a bone only where its weight is off its bounds if that is <= F of the mesh",
            aliases: &[],
            get: |o| Some(o.subdomain.to_string()),
            set: |o, k, v| {
                o.subdomain = parse_number(k, v, |x| (0.0..=1.0).contains(&x), "in [0, 1]")?;
                Ok(())
            },
        },
        OptionKey {
            key: "region_rings",
            value: "N",
            doc: "margin of the subdomain, in stencil steps (two mesh rings each)",
            aliases: &[],
            get: |o| Some(o.region_rings.to_string()),
            set: |o, k, v| {
                o.region_rings = parse_number(k, v, |x| x >= 0.0 && x.fract() == 0.0, "a whole number >= 0")? as usize;
                Ok(())
            },
        },
        OptionKey {
            key: "parts",
            value: "BOOL",
            doc: "fix each bone to 0 inside the QP on parts it may not influence",
            aliases: &[],
            get: |o| Some(o.parts.to_string()),
            set: |o, k, v| {
                o.parts = parse_bool(k, v)?;
                Ok(())
            },
        },
        OptionKey {
            key: "visibility",
            value: "BOOL",
            doc: "2D visibility when a handle falls back to the nearest bone",
            aliases: &[],
            get: |o| Some(o.visibility.to_string()),
            set: |o, k, v| {
                o.visibility = parse_bool(k, v)?;
                Ok(())
            },
        },
        OptionKey {
            key: "coarse",
            value: "F",
            doc: "start the active set from a copy with F times fewer vertices (0: off)",
            aliases: &[],
            get: |o| Some(o.coarse.to_string()),
            set: |o, k, v| {
                o.coarse = parse_number(k, v, |x| x == 0.0 || x > 1.0, "0 or > 1")?;
                Ok(())
            },
        },
    ];
}

/// The bounded biharmonic weights solver.
#[derive(Debug, Clone, Default)]
pub struct Bbw {
    /// Its options.
    pub options: BbwOptions,
}

impl Bbw {
    /// A solver with these options.
    pub fn new(options: BbwOptions) -> Self {
        Bbw { options }
    }
}

/// The handle vertices of every bone and the values they are fixed at.
#[derive(Debug, Clone)]
pub struct Handles {
    /// Whether each vertex is a handle (of some bone).
    pub fixed: Vec<bool>,
    /// Row-major `vertices x bones` fixed values (rows of free vertices are zero).
    pub values: Vec<f64>,
    /// What the fallbacks did, for the report.
    pub warnings: Vec<SolveWarning>,
    /// Nearest visible bones of every vertex (reused for the row fallback).
    pub nearest: NearestBones,
}

impl Handles {
    /// Finds the handles of `scene` (see the module docs).
    pub fn find(scene: &Scene, tolerance: f64, visibility: bool) -> Self {
        let mesh = &scene.mesh;
        let n = mesh.vertex_count();
        let segments = bone_segments(scene.skeleton.bones());
        let nb = segments.len();
        let pin = tolerance * scene_extent(scene).max(f64::MIN_POSITIVE);
        let vis = visibility.then(|| Visibility::new(mesh));
        let nearest = nearest_visible_bones(mesh, &segments, vis.as_ref(), 1e-6, pin);
        drop(vis);
        let mut fixed = vec![false; n];
        let mut values = vec![0.0; n * nb];
        let mut warnings = blind_warnings(scene, &nearest.blind_components);
        let mut fix = |v: usize, bones: &[u32], fixed: &mut [bool]| {
            fix_handle(v, bones, nb, fixed, &mut values)
        };
        let mut has = vec![false; nb];
        for v in 0..n {
            if nearest.distance[v] <= pin {
                fix(v, nearest.of(v), &mut fixed);
                nearest.of(v).iter().for_each(|&j| has[j as usize] = true);
            }
        }
        let step = mean_edge_length(mesh);
        // Bones no vertex lies on: their closest vertices (among those that see them first).
        for j in (0..nb).filter(|&j| !has[j]) {
            let mine = |v: &usize| !fixed[*v] && nearest.of(*v) == [j as u32];
            let closest = (0..n)
                .filter(mine)
                .map(|v| nearest.distance[v])
                .fold(f64::INFINITY, f64::min);
            if !closest.is_finite() {
                warnings.push(SolveWarning::BoneWithoutHandle {
                    bone: scene.skeleton.bones()[j].name.clone(),
                });
                continue;
            }
            let chosen: Vec<usize> = (0..n)
                .filter(|v| mine(v) && nearest.distance[*v] <= closest + step)
                .collect();
            for &v in &chosen {
                fix(v, &[j as u32], &mut fixed);
            }
            warnings.push(SolveWarning::HandlesNearBone {
                bone: scene.skeleton.bones()[j].name.clone(),
                handles: chosen.len(),
                step,
                closest,
            });
        }
        // Components with no handle would leave the energy's null space free there.
        fix_bare_components(
            mesh,
            &nearest,
            step,
            nb,
            &mut fixed,
            &mut values,
            &mut warnings,
        );
        Handles {
            fixed,
            values,
            warnings,
            nearest,
        }
    }
}

fn mean_edge_length(mesh: &Mesh) -> f64 {
    let pts = mesh.vertices();
    let edges = mesh.topology().edges();
    edges
        .iter()
        .map(|[a, b]| (pts[*a] - pts[*b]).norm())
        .sum::<f64>()
        / edges.len().max(1) as f64
}

/// The biharmonic QP of a scene restricted to the free vertices, before factorization
/// (public so that benches can time its parts).
pub struct BiharmonicSystem {
    /// Free vertex of each free index.
    pub free: Vec<usize>,
    /// Lower triangle of `Q_FF = (L M^-1 L)_FF` in free indices.
    pub q_lower: SparseColMat<usize, f64>,
    /// `-Q_FH w_H`, one column per bone.
    pub rhs: Mat<f64>,
    /// The handles.
    pub handles: Handles,
}

impl BiharmonicSystem {
    /// Builds `Q_FF` and the right-hand sides.
    pub fn assemble(scene: &Scene, o: &BbwOptions) -> Result<Self> {
        check_number("handle_tolerance", o.handle_tolerance, |x| x > 0.0, "> 0")?;
        let mesh = &scene.mesh;
        let n = mesh.vertex_count();
        let nb = scene.skeleton.len();
        let handles = Handles::find(scene, o.handle_tolerance, o.visibility);
        let lap = CotanLaplacian::new(mesh);
        let mass_all = lap.mass().to_vec();
        if let Some(v) = mass_all.iter().position(|&m| m <= 0.0 || !m.is_finite()) {
            return Err(SolverError::Solver {
                solver: "bbw".into(),
                message: format!(
                    "vertex {v} has no area around it (lumped mass {})",
                    mass_all[v]
                ),
            }
            .into());
        }
        let free: Vec<usize> = (0..n).filter(|&v| !handles.fixed[v]).collect();
        let mut index = vec![usize::MAX; n];
        for (f, &v) in free.iter().enumerate() {
            index[v] = f;
        }
        let l = lap.matrix()?;
        let q_lower = bilaplacian_lower(&l, &mass_all, &free, &index)?;
        // b = -(Q w_H)_F = -(L M^-1 L w_H)_F.
        let mut rhs = Mat::<f64>::zeros(free.len(), nb);
        for j in 0..nb {
            let w: Vec<f64> = (0..n).map(|v| handles.values[v * nb + j]).collect();
            if w.iter().all(|&x| x == 0.0) {
                continue;
            }
            let lw: Vec<f64> = lap
                .apply(&w)
                .iter()
                .zip(&mass_all)
                .map(|(a, m)| a / m)
                .collect();
            let q = lap.apply(&lw);
            let col = rhs.col_as_slice_mut(j);
            for (f, &v) in free.iter().enumerate() {
                col[f] = -q[v];
            }
        }
        Ok(BiharmonicSystem {
            free,
            q_lower,
            rhs,
            handles,
        })
    }
    /// Solves every bone's bound-constrained QP (`min w' Q w`, `0 <= w <= 1`, the handles
    /// fixed) with the active-set iteration, bones in parallel: one [`BoneQp`] per bone, on
    /// the free vertices, before the rows are normalized. `scene` must be the one the
    /// system was assembled from (its parts give option `parts`' locks).
    pub fn bone_solutions(&self, scene: &Scene, o: &BbwOptions) -> Result<Vec<BoneQp>> {
        check_number("tolerance", o.tolerance, |x| x > 0.0, "> 0")?;
        let nb = scene.skeleton.len();
        let nf = self.free.len();
        // The coarse solution and the symbolic analysis of the whole free set at once (each
        // mostly runs on one core).
        let (coarse, analysis) = match nf > 0 && coarse_applies(o, nf) {
            true => {
                let (coarse, analysis) = rayon::join(
                    || coarse_solution(scene, self, o),
                    || Factorization::analyze(&self.q_lower),
                );
                (coarse, Some(analysis?))
            }
            false => (None, None),
        };
        let pool = FactorPool::default();
        // The start: the coarse solution, or the unconstrained biharmonic solution of every
        // bone (one factorization for all); only the symbolic analysis is shared from here on.
        let (start, factor) = match (&coarse, nf) {
            (_, 0) => (self.rhs.clone(), None),
            (Some(values), _) => (Mat::from_fn(nf, nb, |f, j| values[f * nb + j]), analysis),
            (None, _) => {
                let mut start = self.rhs.clone();
                let mut factor = match analysis {
                    Some(a) => a.refactor(&self.q_lower)?,
                    None => Factorization::new(&self.q_lower, None)?,
                };
                factor.solve_in_place(start.as_mut(), rayon::current_num_threads());
                pool.give(factor.take_values());
                (start, Some(factor))
            }
        };
        let predicted = coarse.is_some();
        let locked = locked_outside_parts(scene, &self.free, o.parts);
        let q = Symmetric::from_lower(&self.q_lower);
        let order = factor.as_ref().map_or_else(Vec::new, Factorization::order);
        // Longest first, one bone per task, so that the threads finish together: a bone
        // whose unconstrained weight leaves [0, 1] on more vertices takes more passes, and
        // one whose coarse weight is off its bounds on more vertices has a larger system.
        let eps = o.tolerance;
        let cost = |j: usize| {
            let col = start.col_as_slice(j);
            match predicted {
                true => col.iter().filter(|&&v| v > 0.0 && v < 1.0).count(),
                false => col.iter().filter(|&&v| v < -eps || v > 1.0 + eps).count(),
            }
        };
        let mut schedule: Vec<(usize, usize)> = (0..nb).map(|j| (cost(j), j)).collect();
        schedule.sort_unstable_by(|a, b| b.cmp(a));
        let mut per_bone: Vec<(usize, BoneQp)> = schedule
            .into_par_iter()
            .with_max_len(1)
            .map(|(_, j)| {
                let Some(factor) = &factor else {
                    let empty = BoneQp {
                        x: Vec::new(),
                        iterations: 0,
                        converged: true,
                    };
                    return Ok((j, empty));
                };
                let qp = active_set(
                    &q,
                    factor,
                    &pool,
                    &order,
                    self.rhs.col_as_slice(j),
                    start.col_as_slice(j).to_vec(),
                    predicted,
                    &locked[j],
                    o,
                )?;
                Ok((j, qp))
            })
            .collect::<Result<_>>()?;
        per_bone.sort_unstable_by_key(|(j, _)| *j);
        Ok(per_bone.into_iter().map(|(_, qp)| qp).collect())
    }
}

/// Lower triangle of `(L M^-1 L)` restricted to `free` (`index[v]` = free index or MAX):
/// column `k` is `sum_j L[:, j] L[j, k] / m_j` over the neighbours `j` of `k`.
fn bilaplacian_lower(
    l: &SparseColMat<usize, f64>,
    mass: &[f64],
    free: &[usize],
    index: &[usize],
) -> Result<SparseColMat<usize, f64>> {
    let n = l.nrows();
    let (ptr, rows, vals) = (l.symbolic().col_ptr(), l.symbolic().row_idx(), l.val());
    const CHUNK: usize = 2048;
    let chunks: Vec<(Vec<usize>, Vec<usize>, Vec<f64>)> = free
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, cols)| {
            let mut acc = vec![0.0; n];
            let mut seen = vec![false; n];
            let mut touched: Vec<usize> = Vec::new();
            let (mut lens, mut out_rows, mut out_vals) = (Vec::new(), Vec::new(), Vec::new());
            for (i, &k) in cols.iter().enumerate() {
                let fk = c * CHUNK + i;
                for s in ptr[k]..ptr[k + 1] {
                    let (j, ljk) = (rows[s], vals[s] / mass[rows[s]]);
                    for t in ptr[j]..ptr[j + 1] {
                        let r = rows[t];
                        if index[r] == usize::MAX || index[r] < fk {
                            continue;
                        }
                        if !seen[r] {
                            seen[r] = true;
                            touched.push(index[r]);
                        }
                        acc[r] += vals[t] * ljk;
                    }
                }
                touched.sort_unstable();
                lens.push(touched.len());
                for &fr in &touched {
                    let r = free[fr];
                    out_rows.push(fr);
                    out_vals.push(acc[r]);
                    acc[r] = 0.0;
                    seen[r] = false;
                }
                touched.clear();
            }
            (lens, out_rows, out_vals)
        })
        .collect();
    let mut col_ptr = Vec::with_capacity(free.len() + 1);
    col_ptr.push(0);
    let total: usize = chunks.iter().map(|c| c.1.len()).sum();
    let (mut row_idx, mut values) = (Vec::with_capacity(total), Vec::with_capacity(total));
    for (lens, r, v) in chunks {
        for len in lens {
            col_ptr.push(col_ptr.last().copied().unwrap_or(0) + len);
        }
        row_idx.extend(r);
        values.extend(v);
    }
    let nf = free.len();
    let symbolic = SymbolicSparseColMat::new_checked(nf, nf, col_ptr, None, row_idx);
    Ok(SparseColMat::new(symbolic, values))
}

/// One bone's bounded biharmonic QP solved: what the active-set iteration did.
#[derive(Debug, Clone)]
pub struct BoneQp {
    /// The solution on the free vertices (in [`BiharmonicSystem::free`] order), clipped to
    /// `[0, 1]`, before the rows are normalized.
    pub x: Vec<f64>,
    /// Active-set iterations (whole passes; 0: the unconstrained solution was already
    /// feasible).
    pub iterations: usize,
    /// Whether the active set stopped changing within `max_iterations`.
    pub converged: bool,
}

/// `lower` with the rows and columns of the vertices where `fixed[i]` replaced by the
/// identity, keeping the sparsity pattern (zeros stay stored), so the symbolic factorization
/// of `lower` can be reused.
pub(crate) fn with_fixed_rows(
    lower: &SparseColMat<usize, f64>,
    fixed: &[bool],
) -> SparseColMat<usize, f64> {
    let mut out = lower.clone();
    let ptr = lower.symbolic().col_ptr().to_vec();
    let rows = lower.symbolic().row_idx().to_vec();
    let vals = out.val_mut();
    for k in 0..fixed.len() {
        for p in ptr[k]..ptr[k + 1] {
            let r = rows[p];
            if fixed[k] || fixed[r] {
                vals[p] = if r == k { 1.0 } else { 0.0 };
            }
        }
    }
    out
}

/// Where a free vertex is in the active-set iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    Free,
    Zero,
    One,
    /// Zero for good: a part the bone may not influence (option `parts`).
    Locked,
}

/// Storage of whole-free-set factors, handed from bone to bone: at 500k vertices a factor
/// is 0.7 GB, and allocating (and page-faulting) a fresh one per bone cost more than a
/// second each.
#[derive(Default)]
struct FactorPool(std::sync::Mutex<Vec<Vec<f64>>>);

impl FactorPool {
    fn take(&self) -> Vec<f64> {
        self.0
            .lock()
            .map(|mut p| p.pop())
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    fn give(&self, values: Vec<f64>) {
        if let Ok(mut p) = self.0.lock() {
            p.push(values);
        }
    }
}

/// The rows one bone's QP is solved on (option `subdomain`): the vertices not at a bound
/// plus a margin, with the bound vertices inside it fixed by identity rows so that its
/// symbolic analysis serves every pass until the region grows.
struct Region<'a> {
    /// Its rows, ascending.
    rows: Vec<usize>,
    /// The rows and their stencil neighbours: outside them, every row's stencil is at a
    /// bound, so its multiplier cannot change while the region stays.
    watch: Vec<usize>,
    /// Lower triangle of `Q` on `rows`.
    lower: SparseColMat<usize, f64>,
    /// The latest factorization made on the region, whose symbolic analysis the next
    /// passes reuse.
    latest: Option<Factorization>,
    /// The whole free set's factorization, whose symbolic analysis it uses instead when
    /// the region is the whole free set.
    shared: Option<&'a Factorization>,
    /// The whole free set's elimination order restricted to the region, which spares the
    /// region its own AMD analysis.
    order: Vec<usize>,
}

impl<'a> Region<'a> {
    /// The region of the rows where `inside`, factored in the order `order` of the whole
    /// free set; or, when it covers more than `fraction` of the rows, the whole free set
    /// (all of `inside` set) with the `shared` factorization's symbolic analysis.
    fn new(
        q: &Symmetric,
        inside: &mut [bool],
        order: &[usize],
        shared: &'a Factorization,
        fraction: f64,
    ) -> Self {
        let count = inside.iter().filter(|&&i| i).count();
        let shared = (count as f64 > fraction * inside.len() as f64).then(|| {
            inside.iter_mut().for_each(|i| *i = true);
            shared
        });
        let rows: Vec<usize> = (0..inside.len()).filter(|&i| inside[i]).collect();
        let mut local = vec![usize::MAX; inside.len()];
        rows.iter().enumerate().for_each(|(k, &i)| local[i] = k);
        let order = match shared {
            Some(_) => Vec::new(),
            None => order
                .iter()
                .filter(|&&i| local[i] != usize::MAX)
                .map(|&i| local[i])
                .collect(),
        };
        let mut watched = inside.to_vec();
        let mut watch = rows.clone();
        watch.extend(q.dilate(&mut watched, &rows, 1));
        Region {
            lower: q.lower_submatrix(&rows, &local),
            rows,
            watch,
            latest: None,
            shared,
            order,
        }
    }

    /// Factorizes `Q` on the region with the rows where `fixed` replaced by the identity.
    fn factor(&mut self, fixed: &[bool], pool: &FactorPool) -> Result<&Factorization> {
        let matrix = with_fixed_rows(&self.lower, fixed);
        // The pattern never changes while the region stays: refactor into the last
        // factor's storage.
        let next = match self.latest.take() {
            Some(mut latest) => {
                latest.refactor_in_place(&matrix)?;
                latest
            }
            None => match self.shared {
                Some(f) => f.refactor_into(&matrix, pool.take())?,
                None => Factorization::new(&matrix, Some(&self.order))?,
            },
        };
        Ok(self.latest.insert(next))
    }

    /// Hands a whole-free-set factor's storage back to `pool`.
    fn release(self, pool: &FactorPool) {
        if let (Some(mut f), Some(_)) = (self.latest, self.shared) {
            pool.give(f.take_values());
        }
    }
}

/// The next state of vertex `i` in the active-set iteration, if it changes: a free vertex
/// out of `[0, 1]` is fixed at the bound it crossed, a fixed one whose multiplier
/// `(Qx - b)_i` has the wrong sign is released.
fn next_bound(
    q: &Symmetric,
    b: &[f64],
    eps: f64,
    i: usize,
    state: &[Bound],
    x: &[f64],
) -> Option<Bound> {
    let next = match state[i] {
        Bound::Free if x[i] < -eps => Bound::Zero,
        Bound::Free if x[i] > 1.0 + eps => Bound::One,
        Bound::Zero if q.row_product(i, x) - b[i] < -eps => Bound::Free,
        Bound::One if q.row_product(i, x) - b[i] > eps => Bound::Free,
        s => s,
    };
    (next != state[i]).then_some(next)
}

/// Applies `changes` to `state`, with the bulk release around released vertices (option
/// `release_rings`; each vertex at most once, so it cannot cycle). Returns every vertex
/// whose state changed and, separately, the released ones.
fn apply_changes(
    q: &Symmetric,
    state: &mut [Bound],
    bulk_released: &mut [bool],
    changes: Vec<(usize, Bound)>,
    release_rings: usize,
) -> (Vec<usize>, Vec<usize>) {
    let mut changed = Vec::with_capacity(changes.len());
    let mut released = Vec::new();
    for (i, next) in changes {
        if next == Bound::Free {
            released.push((i, state[i]));
        }
        state[i] = next;
        changed.push(i);
    }
    let mut freed: Vec<usize> = released.iter().map(|&(i, _)| i).collect();
    for _ in 0..release_rings {
        let mut next_ring = Vec::new();
        for &(i, bound) in &released {
            for &r in q.row(i).0 {
                if state[r] == bound && !bulk_released[r] {
                    bulk_released[r] = true;
                    state[r] = Bound::Free;
                    next_ring.push((r, bound));
                    freed.push(r);
                    changed.push(r);
                }
            }
        }
        released = next_ring;
    }
    (changed, freed)
}

/// Sets the fixed vertices of `x` to their bounds.
fn fix_at_bounds(x: &mut [f64], state: &[Bound], rows: impl Iterator<Item = usize>) {
    for i in rows {
        match state[i] {
            Bound::Free => {}
            Bound::Zero | Bound::Locked => x[i] = 0.0,
            Bound::One => x[i] = 1.0,
        }
    }
}

/// The local passes (option `local_reach`): starting from the vertices in `seeds` (those
/// whose state last changed), solves the free rows within `steps` stencil steps of
/// them with every other row held at its current value, updates the state where that can
/// change it (the rows and their stencil neighbours), and repeats around the vertices
/// that changed, until none does. Returns the vertices it released (which the caller's
/// subdomain must contain).
#[allow(clippy::too_many_arguments)]
fn local_passes(
    q: &Symmetric,
    b: &[f64],
    x: &mut [f64],
    state: &mut [Bound],
    bulk_released: &mut [bool],
    mut seeds: Vec<usize>,
    steps: usize,
    order: &[usize],
    o: &BbwOptions,
) -> Result<Vec<usize>> {
    let n = x.len();
    let mut inside = vec![false; n];
    let mut local = vec![usize::MAX; n];
    let mut freed_all = Vec::new();
    // One storage for the passes' factors.
    let mut storage = Vec::new();
    for _ in 0..o.max_iterations {
        // A vertex fixed with its whole stencil cannot move anything: only the changes on
        // the border between free and fixed vertices need the rows around them.
        seeds.retain(|&i| {
            state[i] == Bound::Free || q.row(i).0.iter().any(|&c| state[c] == Bound::Free)
        });
        if seeds.is_empty() {
            break;
        }
        let mut region = q.dilate(&mut inside, &seeds, steps);
        region.sort_unstable();
        fix_at_bounds(x, state, region.iter().copied());
        let rows: Vec<usize> = region
            .iter()
            .copied()
            .filter(|&i| state[i] == Bound::Free)
            .collect();
        rows.iter().enumerate().for_each(|(k, &i)| local[i] = k);
        if !rows.is_empty() {
            // rhs = b_I - Q_IO x_O, O: every row held (outside or at a bound).
            let mut rhs = Mat::<f64>::zeros(rows.len(), 1);
            for (k, &i) in rows.iter().enumerate() {
                let (cols, vals) = q.row(i);
                let held: f64 = cols
                    .iter()
                    .zip(vals)
                    .filter(|(&c, _)| local[c] == usize::MAX)
                    .map(|(&c, &v)| v * x[c])
                    .sum();
                rhs[(k, 0)] = b[i] - held;
            }
            let lower = q.lower_submatrix(&rows, &local);
            // The whole free set's elimination order restricted to the rows: no AMD pass.
            let sub_order: Vec<usize> = order
                .iter()
                .filter(|&&i| local[i] != usize::MAX)
                .map(|&i| local[i])
                .collect();
            let mut factor = Factorization::new_into(&lower, Some(&sub_order), storage)?;
            factor.solve_in_place(rhs.as_mut(), 1);
            storage = factor.take_values();
            for (k, &i) in rows.iter().enumerate() {
                x[i] = rhs[(k, 0)];
            }
        }
        let mut watch = region.clone();
        watch.extend(q.dilate(&mut inside, &region, 1));
        let changes: Vec<(usize, Bound)> = watch
            .iter()
            .filter_map(|&i| Some((i, next_bound(q, b, o.tolerance, i, state, x)?)))
            .collect();
        watch.iter().for_each(|&i| inside[i] = false);
        rows.iter().for_each(|&i| local[i] = usize::MAX);
        let (changed, freed) = apply_changes(q, state, bulk_released, changes, o.release_rings);
        freed_all.extend(freed);
        seeds = changed;
    }
    Ok(freed_all)
}

/// With the coarse start (option `coarse`) the local passes reach this fraction of
/// `local_reach`: its active set starts a few rings from the optimum's, and the narrower
/// band measured faster at 50k-500k (at tolerance 1e-3: arms-down 496k 4.89 s -> 4.09 s,
/// the robot sprite at 60k 2.81-2.90 s -> 2.32-2.38 s; 0.4 and 0.7 were slower than 0.5,
/// 0 much slower).
const COARSE_START_REACH: f64 = 0.5;

/// Local passes run before the first whole pass only if at most `1 / LOCAL_START` of the
/// free vertices start out of bounds (see [`BbwOptions::local_reach`]).
const LOCAL_START: usize = 10;

/// Primal-dual active set (semi-smooth Newton; Hintermüller, Ito & Kunisch 2002) for
/// `min 1/2 x'Qx - b'x, 0 <= x <= 1`, started from the unconstrained solution `x`. Each
/// iteration fixes the active vertices at their bound, solves the free ones with a fresh
/// Cholesky factorization of `Q` restricted to them, and recomputes the multipliers
/// `mu = Qx - b` on the active ones.
///
/// Before each such whole pass, [`local_passes`] move the active set where it just
/// changed (option `local_reach`); they only choose the next active set, the whole pass
/// solves with it.
///
/// The solve is restricted to a [`Region`] (option `subdomain`); the vertices
/// outside it stay at their bound, which is what the plain iteration does as long as none
/// of them is released. One that is (its multiplier has the wrong sign) grows the region
/// around it, and the iteration only stops once every multiplier on the whole free set has
/// the right sign, so the result is the same optimum.
#[allow(clippy::too_many_arguments)]
fn active_set(
    q: &Symmetric,
    shared: &Factorization,
    pool: &FactorPool,
    order: &[usize],
    b: &[f64],
    mut x: Vec<f64>,
    predicted: bool,
    locked: &[bool],
    o: &BbwOptions,
) -> Result<BoneQp> {
    let n = x.len();
    let eps = o.tolerance;
    let mut state = starting_bounds(&x, locked, predicted, eps);
    // The unconstrained solution inside the bounds is the optimum.
    if !predicted && state.iter().all(|&s| s == Bound::Free) {
        return Ok(BoneQp::clamped(x, 0, true));
    }
    // Each vertex is bulk-released at most once, so the bulk releases cannot cycle.
    let mut bulk_released = vec![false; n];
    let seeds: Vec<usize> = (0..n)
        .filter(|&i| matches!(state[i], Bound::Zero | Bound::One))
        .collect();
    let steps = local_pass_steps(o, predicted, n);
    let local = |x: &mut [f64], state: &mut [Bound], bulk: &mut [bool], seeds| match steps {
        0 => Ok(Vec::new()),
        _ => local_passes(q, b, x, state, bulk, seeds, steps, order, o),
    };
    if seeds.len() * LOCAL_START <= n {
        local(&mut x, &mut state, &mut bulk_released, seeds)?;
    }
    let mut inside = vec![false; n];
    let free: Vec<usize> = (0..n).filter(|&i| state[i] == Bound::Free).collect();
    // A predicted active set is close to the optimum's from the first pass: a margin
    // would only add rows fixed at their bound to every factorization.
    let margin = if predicted { 0 } else { o.region_rings };
    q.dilate(&mut inside, &free, margin);
    let mut region = Region::new(q, &mut inside, order, shared, o.subdomain);
    for it in 1..=o.max_iterations {
        fix_at_bounds(&mut x, &state, 0..n);
        solve_region(q, b, &mut region, &state, &mut x, pool)?;
        let update = |i: usize| Some((i, next_bound(q, b, eps, i, &state, &x)?));
        let mut changes: Vec<(usize, Bound)> =
            region.watch.iter().filter_map(|&i| update(i)).collect();
        if changes.is_empty() && region.watch.len() < n {
            // The stopping test covers the whole free set: outside the watched rows the
            // multipliers were not looked at since the region was made.
            changes = (0..n).filter_map(update).collect();
        }
        if changes.is_empty() {
            region.release(pool);
            return Ok(BoneQp::clamped(x, it, true));
        }
        let (changed, mut grow) =
            apply_changes(q, &mut state, &mut bulk_released, changes, o.release_rings);
        grow.extend(local(&mut x, &mut state, &mut bulk_released, changed)?);
        grow.retain(|&i| !inside[i]);
        if !grow.is_empty() {
            q.dilate(&mut inside, &grow, margin);
            let grown = Region::new(q, &mut inside, order, shared, o.subdomain);
            std::mem::replace(&mut region, grown).release(pool);
        }
    }
    region.release(pool);
    Ok(BoneQp::clamped(x, o.max_iterations, false))
}

impl BoneQp {
    /// The result `x` clipped to `[0, 1]` (the solves meet the bounds up to rounding).
    fn clamped(mut x: Vec<f64>, iterations: usize, converged: bool) -> Self {
        x.iter_mut().for_each(|v| *v = v.clamp(0.0, 1.0));
        BoneQp {
            x,
            iterations,
            converged,
        }
    }
}

/// The active set the iteration starts from: locked vertices stay locked; a predicted start
/// (the coarse start) is fixed where it is at a bound, an unconstrained one where it
/// crosses one by more than `eps`.
fn starting_bounds(x: &[f64], locked: &[bool], predicted: bool, eps: f64) -> Vec<Bound> {
    let at_zero = |v: f64| if predicted { v <= 0.0 } else { v < -eps };
    let at_one = |v: f64| if predicted { v >= 1.0 } else { v > 1.0 + eps };
    x.iter()
        .zip(locked)
        .map(|(&v, &lock)| {
            if lock {
                Bound::Locked
            } else if at_zero(v) {
                Bound::Zero
            } else if at_one(v) {
                Bound::One
            } else {
                Bound::Free
            }
        })
        .collect()
}

/// Stencil steps of the local passes for `n` free vertices (0: no local passes): option
/// `local_reach` of `sqrt(n)`, scaled by [`COARSE_START_REACH`] after a coarse start.
fn local_pass_steps(o: &BbwOptions, predicted: bool, n: usize) -> usize {
    let reach = match predicted {
        true => o.local_reach * COARSE_START_REACH,
        false => o.local_reach,
    };
    match reach > 0.0 {
        true => ((reach * (n as f64).sqrt()).round() as usize).max(2),
        false => 0,
    }
}

/// One whole pass: solves the region's free rows with every other row held where `x` has
/// it (`rhs = b_I - Q_IA x_A`; the fixed rows keep their bound), and writes the solution
/// into `x`.
fn solve_region(
    q: &Symmetric,
    b: &[f64],
    region: &mut Region,
    state: &[Bound],
    x: &mut [f64],
    pool: &FactorPool,
) -> Result<()> {
    let m = region.rows.len();
    let fixed: Vec<bool> = region
        .rows
        .iter()
        .map(|&i| state[i] != Bound::Free)
        .collect();
    let mut rhs = Mat::<f64>::zeros(m, 1);
    for (k, &i) in region.rows.iter().enumerate() {
        rhs[(k, 0)] = if fixed[k] {
            x[i]
        } else {
            let (cols, vals) = q.row(i);
            let qa: f64 = cols
                .iter()
                .zip(vals)
                .filter(|(&c, _)| state[c] != Bound::Free)
                .map(|(&c, &v)| v * x[c])
                .sum();
            b[i] - qa
        };
    }
    if m > 0 {
        region.factor(&fixed, pool)?.solve_in_place(rhs.as_mut(), 1);
    }
    for (k, &i) in region.rows.iter().enumerate() {
        x[i] = rhs[(k, 0)];
    }
    Ok(())
}

/// `locked[j][f]`: free vertex `f` is in a part bone `j` may not influence (all false
/// without the `parts` option; a part no bone may influence is open to every bone,
/// [`super::mask::open_to_every_bone`]).
fn locked_outside_parts(scene: &Scene, free: &[usize], parts: bool) -> Vec<Vec<bool>> {
    let nb = scene.skeleton.len();
    if !parts {
        return vec![vec![false; free.len()]; nb];
    }
    let allowed = super::mask::allowed_parts(scene);
    let may = super::mask::open_to_every_bone(&allowed, scene.mesh.parts().len());
    let vertex_parts = scene.mesh.vertex_parts();
    (0..nb)
        .map(|j| free.iter().map(|&v| !may[j][vertex_parts[v]]).collect())
        .collect()
}

impl Solver for Bbw {
    fn name(&self) -> String {
        "bbw".into()
    }

    fn compute(&self, scene: &Scene) -> Result<Solution> {
        // Unused vertices (artist meshes) would make the system singular.
        if let Some(s) = super::unused::solve_on_used(scene, self.name(), |s| self.compute(s))? {
            return Ok(s);
        }
        let started = Instant::now();
        let o = &self.options;
        let system = BiharmonicSystem::assemble(scene, o)?;
        let nb = scene.skeleton.len();
        let per_bone = system.bone_solutions(scene, o)?;
        let n = scene.mesh.vertex_count();
        let mut all = Mat::<f64>::zeros(n, nb);
        for v in 0..n {
            for j in 0..nb {
                all[(v, j)] = system.handles.values[v * nb + j];
            }
        }
        for (j, r) in per_bone.iter().enumerate() {
            for (f, &v) in system.free.iter().enumerate() {
                all[(v, j)] = r.x[f];
            }
        }
        let segments = bone_segments(scene.skeleton.bones());
        let pts = scene.mesh.vertices();
        let weights = rows_from_columns(&all, &system.handles.nearest, |v| {
            nearest_segment(&segments, &pts[v]).unwrap_or(0)
        })?;
        let mut warnings = system.handles.warnings;
        for (j, r) in per_bone.iter().enumerate().filter(|(_, r)| !r.converged) {
            warnings.push(SolveWarning::NotConverged {
                bone: scene.skeleton.bones()[j].name.clone(),
                iterations: r.iterations,
            });
        }
        finish(self.name(), started, weights, warnings)
    }
}

/// Fixes vertex `v` of [`Handles::find`] to the mean of `bones` (of `nb`): marks it in
/// `fixed` and writes its row of `values`.
#[inline]
fn fix_handle(v: usize, bones: &[u32], nb: usize, fixed: &mut [bool], values: &mut [f64]) {
    fixed[v] = true;
    for &j in bones {
        values[v * nb + j as usize] = 1.0 / bones.len() as f64;
    }
}

/// Gives handles to the components of `mesh` [`Handles::find`] left without one (their
/// vertices within `step` of their closest vertex to a bone, fixed to their nearest
/// bones), so the energy's null space is not free there, with a warning each.
fn fix_bare_components(
    mesh: &Mesh,
    nearest: &NearestBones,
    step: f64,
    nb: usize,
    fixed: &mut [bool],
    values: &mut [f64],
    warnings: &mut Vec<SolveWarning>,
) {
    let n = mesh.vertex_count();
    let comp = mesh.topology().component_of();
    for c in components_where_none(mesh, |v| fixed[v]) {
        let closest = (0..n)
            .filter(|&v| comp[v] == c)
            .map(|v| nearest.distance[v])
            .fold(f64::INFINITY, f64::min);
        let chosen: Vec<usize> = (0..n)
            .filter(|&v| comp[v] == c && nearest.distance[v] <= closest + step)
            .collect();
        for &v in &chosen {
            let bones = nearest.of(v).to_vec();
            fix_handle(v, &bones, nb, fixed, values);
        }
        warnings.push(SolveWarning::ComponentOffBones {
            component: mesh.component_name(c),
            handles: chosen.len(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{builtin_scene, BuiltinOptions};

    /// `1/2 x'Qx - b'x` and its gradient `Qx - b`, for the symmetric `Q` whose lower triangle
    /// is `lower`.
    fn objective_and_gradient(
        lower: &SparseColMat<usize, f64>,
        b: &[f64],
        x: &[f64],
    ) -> (f64, Vec<f64>) {
        let (ptr, rows, vals) = (
            lower.symbolic().col_ptr(),
            lower.symbolic().row_idx(),
            lower.val(),
        );
        let mut qx = vec![0.0; x.len()];
        for k in 0..x.len() {
            for p in ptr[k]..ptr[k + 1] {
                let r = rows[p];
                qx[r] += vals[p] * x[k];
                if r != k {
                    qx[k] += vals[p] * x[r];
                }
            }
        }
        let f = x
            .iter()
            .zip(&qx)
            .zip(b)
            .map(|((x, q), b)| 0.5 * x * q - b * x)
            .sum();
        let g = qx.iter().zip(b).map(|(q, b)| q - b).collect();
        (f, g)
    }

    /// A lower bound on `min 1/2 x'Qx - b'x, 0 <= x <= upper` by weak duality, from
    /// multipliers read off `x` (`factor`: the Cholesky factor of `Q`). With `mu, nu >= 0`
    /// on the bounds `x >= 0` and `x <= upper`, the dual function
    /// `-1/2 c'Q^-1 c - nu'upper`, `c = b + mu - nu`, is below the optimum. The multipliers
    /// are the gradient's parts at the bounds `x` sits on (zero on the free variables), so
    /// the bound meets the optimum as `x` does, quadratically.
    fn dual_lower_bound(
        lower: &SparseColMat<usize, f64>,
        factor: &Factorization,
        b: &[f64],
        upper: &[f64],
        x: &[f64],
    ) -> f64 {
        let p: Vec<f64> = x.iter().zip(upper).map(|(x, u)| x.clamp(0.0, *u)).collect();
        let (_, g) = objective_and_gradient(lower, b, &p);
        let n = p.len();
        let (mut mu, mut nu) = (vec![0.0; n], vec![0.0; n]);
        for i in 0..n {
            if p[i] <= 0.0 {
                mu[i] = g[i].max(0.0);
            }
            if p[i] >= upper[i] {
                nu[i] = (-g[i]).max(0.0);
            }
        }
        let c: Vec<f64> = (0..n).map(|i| b[i] + mu[i] - nu[i]).collect();
        let mut q_inv_c = Mat::<f64>::from_fn(n, 1, |i, _| c[i]);
        factor.solve_in_place(q_inv_c.as_mut(), 1);
        let quadratic: f64 = (0..n).map(|i| c[i] * q_inv_c[(i, 0)]).sum();
        -0.5 * quadratic - nu.iter().zip(upper).map(|(n, u)| n * u).sum::<f64>()
    }

    /// Every bone's active-set solution against a lower bound on its QP's optimum certified
    /// by duality: the largest relative gap `(f(x) - bound) / |bound|` over the bones, an
    /// upper bound on how far above the optimum the solver stopped.
    fn certified_objective_gap(
        scene: &str,
        vertices: usize,
        parts: bool,
        tolerance: f64,
        coarse: f64,
    ) -> f64 {
        let scene = builtin_scene(
            scene,
            &BuiltinOptions {
                vertices,
                ..Default::default()
            },
        )
        .unwrap();
        let o = BbwOptions {
            parts,
            tolerance,
            coarse,
            ..Default::default()
        };
        let system = BiharmonicSystem::assemble(&scene, &o).unwrap();
        let ours = system.bone_solutions(&scene, &o).unwrap();
        let locked = locked_outside_parts(&scene, &system.free, parts);
        let factor = Factorization::new(&system.q_lower, None).unwrap();
        let mut gap = 0.0f64;
        for (j, qp) in ours.iter().enumerate() {
            assert!(qp.converged, "bone {j}");
            let b = system.rhs.col_as_slice(j);
            let upper: Vec<f64> = locked[j]
                .iter()
                .map(|&l| if l { 0.0 } else { 1.0 })
                .collect();
            let bound = dual_lower_bound(&system.q_lower, &factor, b, &upper, &qp.x);
            let (f, _) = objective_and_gradient(&system.q_lower, b, &qp.x);
            gap = gap.max((f - bound) / bound.abs());
        }
        gap
    }

    #[test]
    fn the_active_set_reaches_the_certified_optimum() {
        // Both starts: the coarse one (the default at 3k) and the unconstrained one. The
        // bounds are about 3x the certified gaps measured (arms-down / figure): 1.9e-6 /
        // 8.4e-5 at tolerance 1e-3 (3.0e-6 / 1.0e-4 from the unconstrained start), 1.9e-7 /
        // 2.3e-6 at the default 1e-4, 6.2e-12 / 1.7e-12 at 1e-6.
        let coarse = BbwOptions::default().coarse;
        for (scene, parts, tolerance, start, max_gap) in [
            ("arms-down", false, 1e-3, coarse, 1e-5),
            ("arms-down", true, 1e-3, coarse, 1e-5),
            ("figure", false, 1e-3, coarse, 3e-4),
            ("arms-down", false, 1e-6, coarse, 2e-11),
            ("figure", false, 1e-6, coarse, 1e-11),
            ("arms-down", false, 1e-3, 0.0, 1e-5),
            ("arms-down", true, 1e-3, 0.0, 1e-5),
            ("figure", false, 1e-3, 0.0, 3e-4),
            ("arms-down", false, 1e-4, coarse, 1e-6),
            ("figure", false, 1e-4, coarse, 1e-5),
        ] {
            let gap = certified_objective_gap(scene, 3000, parts, tolerance, start);
            let case = format!("{scene} parts={parts} tolerance={tolerance} coarse={start}");
            println!("{case}: certified gap {gap:e}");
            assert!(
                gap <= max_gap,
                "{case}: objective {gap:e} above the certified optimum (relative)"
            );
        }
    }

    /// The coarse start (option `coarse`) is taken above [`COARSE_MIN_FREE`] free vertices
    /// and reaches the optimum the unconstrained start reaches: (largest relative objective
    /// difference, largest weight difference) over the bones, before normalization.
    fn coarse_against_unconstrained_start(scene: &str, parts: bool) -> (f64, f64) {
        let scene = builtin_scene(
            scene,
            &BuiltinOptions {
                vertices: 25_000,
                ..Default::default()
            },
        )
        .unwrap();
        let with = BbwOptions {
            parts,
            ..Default::default()
        };
        let without = BbwOptions {
            coarse: 0.0,
            ..with.clone()
        };
        let system = BiharmonicSystem::assemble(&scene, &with).unwrap();
        assert!(system.free.len() >= COARSE_MIN_FREE);
        let predicted = super::super::coarse_start::coarse_solution(&scene, &system, &with);
        assert!(predicted.is_some(), "no coarse start");
        let coarse = system.bone_solutions(&scene, &with).unwrap();
        let plain = system.bone_solutions(&scene, &without).unwrap();
        let (mut objective_gap, mut weight_gap) = (0.0f64, 0.0f64);
        for (j, (a, b)) in coarse.iter().zip(&plain).enumerate() {
            assert!(a.converged && b.converged, "bone {j}");
            let rhs = system.rhs.col_as_slice(j);
            let (fa, fb) = (
                objective_and_gradient(&system.q_lower, rhs, &a.x).0,
                objective_and_gradient(&system.q_lower, rhs, &b.x).0,
            );
            objective_gap = objective_gap.max((fa - fb).abs() / fb.abs());
            let diff = a.x.iter().zip(&b.x).map(|(p, q)| (p - q).abs());
            weight_gap = weight_gap.max(diff.fold(0.0, f64::max));
        }
        (objective_gap, weight_gap)
    }

    #[test]
    fn the_coarse_start_reaches_the_unconstrained_start_optimum() {
        // Measured at 25k vertices and the default tolerance: objective differences 4.2e-10
        // (arms-down), 1.3e-10 (layered-arms), 1.0e-9 (figure); weight differences 1.6e-3,
        // 9.1e-5, 1.7e-3 (at tolerance 1e-3: 1.1e-8 / 2.7e-8 / 1.7e-7 and up to 1.8e-2).
        for (scene, parts) in [
            ("arms-down", false),
            ("arms-down", true),
            ("layered-arms", false),
            ("figure", false),
            ("figure", true),
        ] {
            let (objective_gap, weight_gap) = coarse_against_unconstrained_start(scene, parts);
            let case = format!("{scene} parts={parts}");
            assert!(
                objective_gap <= 1e-8,
                "{case}: objective differs by {objective_gap:e}"
            );
            assert!(
                weight_gap <= 5e-3,
                "{case}: weights differ by {weight_gap:e}"
            );
        }
    }
}
