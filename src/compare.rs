//! Solvers × metrics on one scene → a table (Markdown, CSV; JSON through the serde derive,
//! written by the `io` layer), and the probe view its figures draw.

use crate::binding::Binding;
use crate::error::Result;
use crate::metrics::{evaluate, Metrics};
use crate::scene::{Probe, Scene};
use crate::solvers::{solver_by_name, SolveWarning, NO_OPTIONS};
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
    pub warnings: Vec<SolveWarning>,
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
    pub warnings: Vec<SolveWarning>,
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

/// How the Markdown table prints a metric's value (CSV always prints it in full).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shown {
    /// A real with this many decimals; `inf` when not finite.
    Fixed(usize),
    /// A real in scientific notation with one decimal (`1.2e-5`).
    Sci,
    /// A count.
    Count,
    /// Seconds with three decimals; `-` when unknown.
    Seconds,
}

/// A metric's value as a column reads it ([`MetricColumn::value`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MetricValue {
    /// A real number.
    Real(f64),
    /// A count.
    Count(usize),
    /// A real that may be unknown (the solve time of weights read from a file).
    Maybe(Option<f64>),
}

/// One metric column of the table: its JSON and CSV key, its Markdown header with the unit,
/// how Markdown prints it, and where its value is in [`Metrics`].
#[derive(Clone, Copy)]
pub struct MetricColumn {
    /// The key: the CSV header and the JSON key (docs/metrics.md).
    pub key: &'static str,
    /// The Markdown header, with the unit.
    pub header: &'static str,
    /// How Markdown prints it.
    pub shown: Shown,
    value: fn(&Metrics) -> MetricValue,
}

impl std::fmt::Debug for MetricColumn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricColumn")
            .field("key", &self.key)
            .field("header", &self.header)
            .field("shown", &self.shown)
            .finish_non_exhaustive()
    }
}

impl MetricColumn {
    /// Its value in `m`.
    pub fn value(&self, m: &Metrics) -> MetricValue {
        (self.value)(m)
    }

    /// Its value in `m` as a CSV cell: in full (`Display`), empty when unknown.
    pub fn csv(&self, m: &Metrics) -> String {
        match (self.value)(m) {
            MetricValue::Real(v) => v.to_string(),
            MetricValue::Count(n) => n.to_string(),
            MetricValue::Maybe(v) => v.map(|v| v.to_string()).unwrap_or_default(),
        }
    }

    /// Its value in `m` as a Markdown cell, printed as [`Self::shown`] says.
    pub fn markdown(&self, m: &Metrics) -> String {
        match ((self.value)(m), self.shown) {
            (MetricValue::Real(v), Shown::Fixed(digits)) if v.is_finite() => {
                format!("{v:.digits$}")
            }
            (MetricValue::Real(_), Shown::Fixed(_)) => "inf".to_string(),
            (MetricValue::Real(v), _) => format!("{v:.1e}"),
            (MetricValue::Count(n), _) => n.to_string(),
            (MetricValue::Maybe(v), _) => {
                v.map(|t| format!("{t:.3}")).unwrap_or_else(|| "-".into())
            }
        }
    }
}

/// The metric columns of the table, in order (after the solver's name): the one list that
/// the Markdown and CSV writers read. JSON writes [`Metrics`]' fields, with the same keys in
/// the same order.
pub const METRIC_COLUMNS: &[MetricColumn] = &[
    MetricColumn {
        key: "drag_max_pct",
        header: "drag max (% h)",
        shown: Shown::Fixed(3),
        value: |m| MetricValue::Real(m.drag_max_pct),
    },
    MetricColumn {
        key: "drag_mean_pct",
        header: "drag mean (% h)",
        shown: Shown::Fixed(3),
        value: |m| MetricValue::Real(m.drag_mean_pct),
    },
    MetricColumn {
        key: "leaked_weight",
        header: "leaked weight",
        shown: Shown::Fixed(4),
        value: |m| MetricValue::Real(m.leaked_weight),
    },
    MetricColumn {
        key: "flipped",
        header: "flipped",
        shown: Shown::Count,
        value: |m| MetricValue::Count(m.flipped),
    },
    MetricColumn {
        key: "distortion_max",
        header: "distortion max",
        shown: Shown::Fixed(2),
        value: |m| MetricValue::Real(m.distortion_max),
    },
    MetricColumn {
        key: "distortion_p99",
        header: "distortion p99",
        shown: Shown::Fixed(3),
        value: |m| MetricValue::Real(m.distortion_p99),
    },
    MetricColumn {
        key: "area_change_pct",
        header: "area change (%)",
        shown: Shown::Fixed(3),
        value: |m| MetricValue::Real(m.area_change_pct),
    },
    MetricColumn {
        key: "norm_err",
        header: "norm err",
        shown: Shown::Sci,
        value: |m| MetricValue::Real(m.norm_err),
    },
    MetricColumn {
        key: "bind_err",
        header: "bind err (px)",
        shown: Shown::Sci,
        value: |m| MetricValue::Real(m.bind_err),
    },
    MetricColumn {
        key: "discontinuities",
        header: "discontinuities",
        shown: Shown::Count,
        value: |m| MetricValue::Count(m.discontinuities),
    },
    MetricColumn {
        key: "dirichlet",
        header: "Dirichlet",
        shown: Shown::Fixed(3),
        value: |m| MetricValue::Real(m.dirichlet),
    },
    MetricColumn {
        key: "time_s",
        header: "time (s)",
        shown: Shown::Seconds,
        value: |m| MetricValue::Maybe(m.time_s),
    },
];

/// One table line: the solver's cell, then one cell per metric column.
fn line(solver: &str, cell: impl Fn(&MetricColumn) -> String) -> Vec<String> {
    std::iter::once(solver.to_string())
        .chain(METRIC_COLUMNS.iter().map(cell))
        .collect()
}

impl Comparison {
    /// The table as Markdown (solver rows, metric columns, units in the header).
    pub fn to_markdown(&self) -> String {
        let mut s = format!("Scene `{}`, probe `{}`\n\n", self.scene, self.probe);
        let header = line("solver", |c| c.header.to_string());
        s += &format!("| {} |\n", header.join(" | "));
        s += &format!("|{}\n", "---|".repeat(header.len()));
        for r in &self.rows {
            s += &format!(
                "| {} |\n",
                line(&r.solver, |c| c.markdown(&r.metrics)).join(" | ")
            );
        }
        s
    }

    /// The table as CSV, with the JSON keys as header.
    pub fn to_csv(&self) -> String {
        let mut s = line("solver", |c| c.key.to_string()).join(",") + "\n";
        for r in &self.rows {
            s += &line(&r.solver, |c| c.csv(&r.metrics)).join(",");
            s += "\n";
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
