//! Solvers × metrics on one scene → a table (Markdown, CSV; JSON through the serde derive,
//! written by the `io` layer), and the probe view its figures draw.

use crate::binding::Binding;
use crate::error::Result;
use crate::metrics::{evaluate, Metrics};
use crate::scene::{Probe, Scene};
use crate::solvers::{solver_by_name, NO_OPTIONS};
use crate::weights::Weights;
use nalgebra::Point2;
use serde::{Deserialize, Serialize};

/// One row of the table: a solver and its metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareRow {
    /// Solver name.
    pub solver: String,
    /// Its metrics (flattened into the row in JSON, with docs/metrics.md's keys).
    #[serde(flatten)]
    pub metrics: Metrics,
    /// Warnings from the solver's report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A comparison: `{"scene": NAME, "probe": NAME, "rows": [...]}` in JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Scene name.
    pub scene: String,
    /// Probe name.
    pub probe: String,
    /// One row per solver.
    pub rows: Vec<CompareRow>,
}

/// A solved row before metrics: what `compare` keeps for the figures.
#[derive(Debug, Clone)]
pub struct Solved {
    /// Solver name.
    pub solver: String,
    /// Its weights.
    pub weights: Weights,
    /// Wall time of the solve, seconds.
    pub seconds: f64,
    /// Warnings from the solver's report.
    pub warnings: Vec<String>,
}

/// Runs each named solver on `scene` (one after another, so every timing has the machine to
/// itself), calling `progress(i, name)` before solver `i`.
pub fn solve_all(
    scene: &Scene,
    solvers: &[String],
    progress: impl FnMut(usize, &str),
) -> Result<Vec<Solved>> {
    let every = Binding::whole((0..scene.skeleton().len()).collect());
    solve_all_bound(scene, solvers, &every, progress)
}

/// [`solve_all`] under `binding` (which bones each mesh is solved over; see
/// [`Binding::solve`]).
pub fn solve_all_bound(
    scene: &Scene,
    solvers: &[String],
    binding: &Binding,
    mut progress: impl FnMut(usize, &str),
) -> Result<Vec<Solved>> {
    let mut out = Vec::with_capacity(solvers.len());
    for (i, name) in solvers.iter().enumerate() {
        progress(i, name);
        let solver = solver_by_name(name, NO_OPTIONS)?;
        let solution = binding.solve(solver.as_ref(), scene)?;
        out.push(Solved {
            solver: name.clone(),
            weights: solution.weights,
            seconds: solution.report.seconds,
            warnings: solution.report.warnings,
        });
    }
    Ok(out)
}

/// Measures every metric of each solved row with `probe` (the scene's first probe when
/// `None`).
pub fn compare_solved(scene: &Scene, solved: &[Solved], probe: Option<&str>) -> Result<Comparison> {
    let probe = scene.probe(probe)?;
    let rows = solved
        .iter()
        .map(|s| {
            Ok(CompareRow {
                solver: s.solver.clone(),
                metrics: Metrics {
                    time_s: Some(s.seconds),
                    ..evaluate(scene, &s.weights, probe)?
                },
                warnings: s.warnings.clone(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Comparison {
        scene: scene.name.clone(),
        probe: probe.name.clone(),
        rows,
    })
}

/// Column headers with units, and how to print each metric.
const COLUMNS: &[&str] = &[
    "solver",
    "drag max (% h)",
    "drag mean (% h)",
    "leaked weight",
    "flipped",
    "distortion max",
    "distortion p99",
    "area change (%)",
    "norm err",
    "bind err (px)",
    "discontinuities",
    "Dirichlet",
    "time (s)",
];

fn cells(row: &CompareRow) -> Vec<String> {
    let m = &row.metrics;
    let num = |v: f64, digits: usize| {
        if v.is_finite() {
            format!("{v:.digits$}")
        } else {
            "inf".to_string()
        }
    };
    vec![
        row.solver.clone(),
        num(m.drag_max_pct, 3),
        num(m.drag_mean_pct, 3),
        num(m.leaked_weight, 4),
        m.flipped.to_string(),
        num(m.distortion_max, 2),
        num(m.distortion_p99, 3),
        num(m.area_change_pct, 3),
        format!("{:.1e}", m.norm_err),
        format!("{:.1e}", m.bind_err),
        m.discontinuities.to_string(),
        num(m.dirichlet, 3),
        m.time_s
            .map(|t| format!("{t:.3}"))
            .unwrap_or_else(|| "-".into()),
    ]
}

impl Comparison {
    /// The table as Markdown (solver rows, metric columns, units in the header).
    pub fn to_markdown(&self) -> String {
        let mut s = format!("Scene `{}`, probe `{}`\n\n", self.scene, self.probe);
        s += &format!("| {} |\n", COLUMNS.join(" | "));
        s += &format!("|{}\n", "---|".repeat(COLUMNS.len()));
        for r in &self.rows {
            s += &format!("| {} |\n", cells(r).join(" | "));
        }
        s
    }

    /// The table as CSV, with the JSON keys as header.
    pub fn to_csv(&self) -> String {
        let mut s = String::from(
            "solver,drag_max_pct,drag_mean_pct,leaked_weight,flipped,distortion_max,distortion_p99,area_change_pct,norm_err,bind_err,discontinuities,dirichlet,time_s\n",
        );
        for r in &self.rows {
            let m = &r.metrics;
            s += &format!(
                "{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                r.solver,
                m.drag_max_pct,
                m.drag_mean_pct,
                m.leaked_weight,
                m.flipped,
                m.distortion_max,
                m.distortion_p99,
                m.area_change_pct,
                m.norm_err,
                m.bind_err,
                m.discontinuities,
                m.dirichlet,
                m.time_s.map(|t| t.to_string()).unwrap_or_default()
            );
        }
        s
    }
}

/// What the figures show of one weights set on a probe, measured here so that plotting only
/// draws: the posed vertices and bones, and each watched vertex's drag.
#[derive(Debug, Clone)]
pub struct ProbeView {
    /// Vertex positions in the probe pose.
    pub posed: Vec<Point2<f64>>,
    /// Each bone's head and tail in the probe pose.
    pub bones: Vec<[Point2<f64>; 2]>,
    /// Per vertex: its drag in % of the character's height if watched, else `None`.
    pub drag_pct: Vec<Option<f64>>,
    /// The largest drag, % of height.
    pub max_drag_pct: f64,
}

/// Measures the [`ProbeView`] of `weights` on `probe`.
/// Errors: weights that cannot be scored ([`Weights::check_scorable`]: a weight that is not
/// finite or negative, a row whose sum is 0 or past 10^6, which would pose vertices at infinity).
pub fn probe_view(scene: &Scene, weights: &Weights, probe: &Probe) -> Result<ProbeView> {
    weights.check_scorable()?;
    let drag = crate::metrics::drag(scene, weights, probe)?;
    let posed = crate::metrics::posed_positions(scene, weights, &probe.pose)?;
    let mut drag_pct = vec![None; scene.mesh.vertex_count()];
    for (&v, &d) in drag.vertices.iter().zip(&drag.displacement) {
        drag_pct[v] = Some(d / drag.height * 100.0);
    }
    Ok(ProbeView {
        posed,
        bones: scene.skeleton.posed_segments(&probe.pose)?,
        drag_pct,
        max_drag_pct: drag.max_pct(),
    })
}
