//! Weight solvers: the [`Solver`] trait, the registry by name, and the shared pieces.
//!
//! ```no_run
//! # fn main() -> skinweights::Result<()> {
//! use skinweights::solvers::{Heat, Solver};
//! let scene = skinweights::scene::builtin_scene("arms-down", &Default::default())?;
//! let weights = skinweights::solvers::solve(&scene, "heat+mask")?; // by name, as the CLI does
//! let solution = Heat::default().solve(&scene)?;          // or typed, with a report
//! println!("{} took {:.3} s", solution.report.solver, solution.report.seconds);
//! # Ok(()) }
//! ```
//!
//! Names: `linear`, `euclidean`, `geodesic`, `heat`, `mask` (= `euclidean+mask`) and
//! `SOLVER+mask` for any solver. Every solver returns dense weights with every entry finite,
//! `>= 0` and every row summing to 1 within 1e-9 (checked before returning), plus a
//! [`SolveReport`].
//!
//! This folder holds the solvers (`linear`, `euclidean`, `geodesic`, `heat`, `bbw`, `best`),
//! the wrappers (`mask`, `refine`, `limit`, `unused`), the registry and the report's
//! warnings; the numeric pieces they share, written once and private to the crate, are in
//! `numeric/` (distance kernel, visibility, Dijkstra, nearest bones, orderings, subdomains).
//! The feature `internals` re-exports some as `solvers::internals` for the back-end benches. The cotangent Laplacian lives with the mesh:
//! [`crate::mesh::CotanLaplacian`]; segment geometry in [`crate::geometry`].
//!
//! Options from the command line (`--option key=value`) go through [`solver_by_name`]; each
//! options struct ([`LinearOptions`], [`EuclideanOptions`], [`GeodesicOptions`],
//! [`HeatOptions`]) documents its keys and defaults. For `SOLVER+mask` the options go to the
//! base solver (masking has none).

mod bbw;
mod best;
mod coarse_start;
mod euclidean;
mod geodesic;
mod heat;
mod limit;
mod linear;
mod mask;
mod numeric;
mod refine;
mod registry;
mod unused;
mod warning;

pub use bbw::{Bbw, BbwOptions};
pub use best::{Best, BestOptions, ARTIST_MESH, RIGID_PART_VERTICES};
pub use distance::FalloffOptions;
pub use euclidean::{Euclidean, EuclideanOptions};
pub use geodesic::{Geodesic, GeodesicOptions};
pub use heat::{Heat, HeatOptions};
pub use limit::{Limited, WeightLimit};
pub use linear::{Linear, LinearOptions};
pub use mask::{allowed_parts, Masked};
pub(crate) use refine::compute_refined;
pub use refine::Refined;
// The shared numeric pieces, reachable from every solver as `super::distance` and so on.
use numeric::{dijkstra, distance, nearest, ordering, subdomain, substructure, visibility};
pub use warning::SolveWarning;

/// The sparse Cholesky the heat solver factors with, for the transfer's Laplacian fill.
pub(crate) use heat::Factorization;

/// Solver internals for the back-end benches (feature `internals`; not a stable API).
#[cfg(feature = "internals")]
pub mod internals {
    pub use super::bbw::{BiharmonicSystem, BoneQp};
    pub use super::best::Recipe as BestRecipe;
    pub use super::dijkstra::multi_source_dijkstra;
    pub use super::geodesic::{bone_seeds, geodesic_distances};
    pub use super::heat::{Factorization, HeatSystem};
    pub use super::nearest::{nearest_visible_bones, NearestBones};
    pub use super::ordering::nested_dissection;
    pub use super::visibility::Visibility;
}

use crate::error::SolverError;
use crate::error::{Error, Result};
use crate::scene::Scene;
use crate::weights::Weights;
use std::time::Instant;

/// The solver this crate recommends: [`Best`] (see its module for the measurements).
pub const RECOMMENDED_SOLVER: &str = "best";

/// The recommended solver with its default options.
pub fn recommended() -> Box<dyn Solver> {
    Box::new(Best::default())
}

pub use registry::{
    entry, known_names, options_help, solvers_help, with_role, OptionHelp, Role, SolverEntry,
    COMPARE_DEFAULTS, GENERIC_OPTIONS, SOLVERS, SOLVER_NAMES,
};

/// What a solver reports besides the weights.
#[derive(Debug, Clone, PartialEq)]
pub struct SolveReport {
    /// Registry name of the solver, e.g. `heat+mask`.
    pub solver: String,
    /// Wall time of the whole solve, in seconds.
    pub seconds: f64,
    /// Things the user should know, e.g. that a component sees no bone and visibility was
    /// ignored in it.
    pub warnings: Vec<SolveWarning>,
}

/// Weights plus the report of the solve that made them.
#[derive(Debug, Clone)]
pub struct Solution {
    /// Dense weights: finite, `>= 0`, rows summing to 1 within 1e-9.
    pub weights: Weights,
    /// Time and warnings.
    pub report: SolveReport,
}

/// A weight solver.
///
/// A solver implements [`Solver::compute`]; users call [`Solver::solve`], which gives the
/// scene's recorded seams ([`crate::scene::Seams`]) their joined rows after the computation,
/// so a repaired scene stays repaired however the solver was built (a typed struct,
/// [`solver_by_name`] or [`recommended`]). A scene without seams gets `compute`'s weights
/// bit for bit.
pub trait Solver: Send + Sync {
    /// Registry name (`heat`, `euclidean+mask`, ...).
    fn name(&self) -> String;
    /// Computes weights for every vertex and bone of `scene`, before the seams are joined.
    /// Wrappers (mask, limit, refine) call their inner solver's `compute`, so the join runs
    /// once, on the outermost result.
    fn compute(&self, scene: &Scene) -> Result<Solution>;
    /// Weights for every vertex and bone of `scene`, its seams joined.
    fn solve(&self, scene: &Scene) -> Result<Solution> {
        let mut solution = self.compute(scene)?;
        if !scene.seams.is_empty() {
            scene.seams.join(&mut solution.weights)?;
        }
        Ok(solution)
    }
}

/// One option key of a solver's options struct `T`: what `--option KEY=VALUE` accepts,
/// documented, and how it is read and written. Each solver spells its keys once, in
/// [`SolverOptions::OPTIONS`]: `set`, `get`, `help` and the registry's docs all read that
/// table. The default is not written here: it is read from the struct's `Default` through
/// `get`, so it is stated in one place only.
pub struct OptionKey<T> {
    /// The key, e.g. `tie_tolerance`.
    pub key: &'static str,
    /// What the value looks like, e.g. `F` or `nd|amd`.
    pub value: &'static str,
    /// One line on what it does.
    pub doc: &'static str,
    /// Other names `set` accepts for the same key.
    pub aliases: &'static [&'static str],
    /// The current value as text (`None`: an unset optional).
    pub get: fn(&T) -> Option<String>,
    /// Sets it from text, given the key as written and the value; the error names the key.
    pub set: fn(&mut T, &str, &str) -> Result<()>,
}

/// Options a solver accepts as `key=value` strings (the CLI's `--option key=value`).
pub trait SolverOptions: Default + 'static {
    /// The solver an unknown key's error names (`heat`, `euclidean/geodesic`).
    const SOLVER: &'static str;
    /// Every key, documented, in documentation order.
    const OPTIONS: &'static [OptionKey<Self>];

    /// The entry of `key` (or of one of its aliases).
    fn option(key: &str) -> Option<&'static OptionKey<Self>> {
        Self::OPTIONS
            .iter()
            .find(|o| o.key == key || o.aliases.contains(&key))
    }

    /// Sets one option from text; the error names the key and says what is wrong. A key not
    /// in [`SolverOptions::OPTIONS`] is an error.
    fn set(&mut self, key: &str, value: &str) -> Result<()> {
        match Self::option(key) {
            Some(o) => (o.set)(self, key, value),
            None => Err(unknown_option(Self::SOLVER, key, &Self::keys())),
        }
    }

    /// The current value of `key` as text (`None` for an unknown key or an unset optional).
    fn get(&self, key: &str) -> Option<String> {
        Self::option(key).and_then(|o| (o.get)(self))
    }

    /// The keys, in documentation order.
    fn keys() -> Vec<&'static str> {
        Self::OPTIONS.iter().map(|o| o.key).collect()
    }

    /// Defaults overridden by `options`, in order.
    fn from_pairs(solver: &str, options: &[(String, String)]) -> Result<Self> {
        let mut o = Self::default();
        for (k, v) in options {
            o.set(k, v).map_err(|e| match e {
                Error::Solver(SolverError::InvalidOption { option, .. })
                    if !Self::keys().contains(&k.as_str()) =>
                {
                    unknown_option(solver, &option, &Self::keys())
                }
                e => e,
            })?;
        }
        Ok(o)
    }

    /// One line per key: `key=VALUE  doc (default: X)`, the default read from `Default`.
    fn help() -> Vec<String> {
        let defaults = Self::default();
        Self::OPTIONS
            .iter()
            .map(|o| {
                let d = defaults.get(o.key).unwrap_or_else(|| "unset".into());
                format!(
                    "{:<20} {} (default {d})",
                    format!("{}={}", o.key, o.value),
                    o.doc
                )
            })
            .collect()
    }
}

/// The error for a key no option of `solver` has.
pub(crate) fn unknown_option(solver: &str, key: &str, keys: &[&str]) -> Error {
    Error::Solver(SolverError::InvalidOption {
        option: key.to_string(),
        message: format!(
            "unknown option for solver {solver}; it accepts: {}",
            if keys.is_empty() {
                "none".to_string()
            } else {
                keys.join(", ")
            }
        ),
    })
}

/// Parses option `key` as a number satisfying `ok` (described by `expect`, e.g. "> 0").
pub(crate) fn parse_number(
    key: &str,
    value: &str,
    ok: impl Fn(f64) -> bool,
    expect: &str,
) -> Result<f64> {
    let x: f64 = value.trim().parse().map_err(|_| {
        Error::Solver(SolverError::InvalidOption {
            option: key.to_string(),
            message: format!("{value:?} is not a number"),
        })
    })?;
    check_number(key, x, ok, expect)
}

/// Checks that option `key` is finite and satisfies `ok` (described by `expect`).
pub(crate) fn check_number(
    key: &str,
    x: f64,
    ok: impl Fn(f64) -> bool,
    expect: &str,
) -> Result<f64> {
    if !x.is_finite() || !ok(x) {
        return Err(SolverError::InvalidOption {
            option: key.to_string(),
            message: format!("must be finite and {expect}, got {x}"),
        }
        .into());
    }
    Ok(x)
}

/// One `key=value` solver option: `(&str, &str)`, `(String, String)`, references to either,
/// or any pair of `AsRef<str>`.
pub trait OptionPair {
    /// The key.
    fn key(&self) -> &str;
    /// The value as text.
    fn value(&self) -> &str;
}

impl<K: AsRef<str>, V: AsRef<str>> OptionPair for (K, V) {
    fn key(&self) -> &str {
        self.0.as_ref()
    }
    fn value(&self) -> &str {
        self.1.as_ref()
    }
}

impl<P: OptionPair + ?Sized> OptionPair for &P {
    fn key(&self) -> &str {
        (**self).key()
    }
    fn value(&self) -> &str {
        (**self).value()
    }
}

/// No options, for [`solver_by_name`] (an empty `&[]` cannot name its item type).
pub const NO_OPTIONS: [(&str, &str); 0] = [];

/// Builds the solver called `name` (a [`SOLVERS`] entry, or `SOLVER+mask` for an unmasked
/// entry) with `key=value` options, e.g. `[("falloff_power", "2")]`, a `&Vec<(String,
/// String)>` or [`NO_OPTIONS`]. Every solver also accepts `refine=N` (solve on the mesh
/// subdivided to at least `N` vertices, [`Refined`]) and `limit=LOW:HIGH` (the soft weight
/// limit applied to its output, [`WeightLimit`]; `none` = no limit). A solver with a soft
/// limit of its own (`best`) takes `limit` as that limit, so only one limit is ever applied.
/// Errors: [`SolverError::UnknownSolver`], [`SolverError::InvalidOption`].
pub fn solver_by_name<I>(name: &str, options: I) -> Result<Box<dyn Solver>>
where
    I: IntoIterator,
    I::Item: OptionPair,
{
    let options: Vec<(String, String)> = options
        .into_iter()
        .map(|p| (p.key().to_string(), p.value().to_string()))
        .collect();
    let (entry, masked) = resolve(name)?;
    let (limit, mut options) = take_option(&options, "limit");
    let (refine, rest) = take_option(&options, "refine");
    options = rest;
    let mut limit = limit;
    if entry.takes("limit") {
        if let Some(l) = limit.take() {
            options.push(("limit".into(), l));
        }
    }
    let mut solver = entry.build(&options)?;
    if masked {
        solver = Box::new(Masked::new(solver));
    }
    if let Some(n) = refine {
        solver = Box::new(Refined::new(solver, refine::parse_target(&n)?));
    }
    if let Some(l) = limit.filter(|l| l.trim() != "none") {
        solver = Box::new(Limited::new(solver, WeightLimit::parse(&l)?));
    }
    Ok(solver)
}

/// The registry entry for `name` and whether `+mask` is to be added around it.
fn resolve(name: &str) -> Result<(&'static SolverEntry, bool)> {
    let unknown = || {
        Error::Solver(SolverError::UnknownSolver {
            name: name.to_string(),
            known: known_names(),
        })
    };
    if let Some(e) = entry(name) {
        return Ok((e, false));
    }
    let base = name.trim().strip_suffix("+mask").ok_or_else(unknown)?;
    match entry(base) {
        Some(e) if !e.masked => Ok((e, true)),
        _ => Err(unknown()),
    }
}

/// Splits option `key` (its last value) off a list of `key=value` options.
fn take_option(options: &[(String, String)], key: &str) -> (Option<String>, Vec<(String, String)>) {
    let mut value = None;
    let mut rest = Vec::with_capacity(options.len());
    for (k, v) in options {
        if k.trim() == key {
            value = Some(v.clone());
        } else {
            rest.push((k.clone(), v.clone()));
        }
    }
    (value, rest)
}

/// Solves `scene` with the solver called `name` (default options) and returns its weights.
pub fn solve(scene: &Scene, name: &str) -> Result<Weights> {
    Ok(solver_by_name(name, NO_OPTIONS)?.solve(scene)?.weights)
}

/// Checks the weights every solver promises and wraps them with their report.
pub(crate) fn finish(
    solver: String,
    started: Instant,
    weights: Weights,
    warnings: Vec<SolveWarning>,
) -> Result<Solution> {
    weights.validate().map_err(|e| {
        Error::Solver(SolverError::Solver {
            solver: solver.clone(),
            message: format!("produced invalid weights ({e}); this is a bug, please report it"),
        })
    })?;
    Ok(Solution {
        weights,
        report: SolveReport {
            solver,
            seconds: started.elapsed().as_secs_f64(),
            warnings,
        },
    })
}

/// Size of the scene (diagonal of the bounding box of mesh and bones): the scale for
/// relative tolerances.
pub(crate) fn scene_extent(scene: &Scene) -> f64 {
    let bones = scene.skeleton.bones().iter().flat_map(|b| [b.head, b.tail]);
    let b = crate::geometry::Bounds::of(
        scene
            .mesh
            .vertices()
            .iter()
            .chain(&bones.collect::<Vec<_>>()),
    );
    (b.hi - b.lo).norm()
}

/// Warnings for components where visibility had to be ignored.
pub(crate) fn blind_warnings(scene: &Scene, blind: &[usize]) -> Vec<SolveWarning> {
    (scene.mesh.component_names(blind).into_iter())
        .map(|component| SolveWarning::BlindComponent { component })
        .collect()
}
