//! Weight solvers: the [`Solver`] trait, the registry by name, and the shared pieces.
//! (Placeholder until the solvers land.)

use crate::error::{Error, Result};
use crate::scene::Scene;
use crate::weights::Weights;

/// What a solver reports besides the weights.
#[derive(Debug, Clone, Default)]
pub struct SolveReport {
    /// Solver name.
    pub solver: String,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Warnings.
    pub warnings: Vec<String>,
}

/// Weights plus report.
#[derive(Debug, Clone)]
pub struct Solution {
    /// The weights.
    pub weights: Weights,
    /// The report.
    pub report: SolveReport,
}

/// A weight solver.
pub trait Solver: Send + Sync {
    /// Name.
    fn name(&self) -> String;
    /// Solves.
    fn solve(&self, scene: &Scene) -> Result<Solution>;
}

/// Looks a solver up by name.
pub fn solver_by_name(name: &str, _options: &[(String, String)]) -> Result<Box<dyn Solver>> {
    Err(Error::UnknownSolver {
        name: name.to_string(),
        known: String::new(),
    })
}
