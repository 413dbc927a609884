//! The benchmark's chart of per-rig scores: one panel per measure, one row per solver, a
//! dot per rig, and the mean over rigs with its 95% bootstrap interval.

use plotters::coord::Shift;
use plotters::prelude::*;
use skinweights::plot::Figure;
use skinweights::OutputError;
use skinweights::{Error, Result};

/// One solver's scores on one measure.
pub struct SolverScores {
    /// One value per rig.
    pub rigs: Vec<f64>,
    /// Mean over rigs and its 95% interval.
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

/// One panel: a measure's name (with units), whether higher is better, and per solver its
/// scores.
pub struct MeasurePanel {
    pub measure: String,
    pub higher_is_better: bool,
    pub solvers: Vec<(String, SolverScores)>,
}

/// The whole figure: a title and the panels side by side.
pub struct RigScoresChart {
    pub title: String,
    pub panels: Vec<MeasurePanel>,
}

fn plot_err<E: std::fmt::Debug>(e: E) -> Error {
    Error::Output(OutputError::Plot {
        message: format!("{e:?}"),
    })
}

impl Figure for RigScoresChart {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()> {
        let (top, body) = area.split_vertically(40);
        top.titled(&self.title, ("sans-serif", 22))
            .map_err(plot_err)?;
        let cells = body.split_evenly((1, self.panels.len().max(1)));
        for (panel, cell) in self.panels.iter().zip(cells) {
            draw_panel(panel, &cell)?;
        }
        Ok(())
    }
}

fn draw_panel<DB: DrawingBackend>(p: &MeasurePanel, area: &DrawingArea<DB, Shift>) -> Result<()> {
    let values = p.solvers.iter().flat_map(|(_, s)| s.rigs.iter().copied());
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let pad = 0.05 * (hi - lo).max(1e-9);
    let digits = if hi - lo < 10.0 { 1 } else { 0 };
    let n = p.solvers.len();
    let names: Vec<String> = p.solvers.iter().map(|(s, _)| s.clone()).collect();
    let better = if p.higher_is_better {
        "higher is better"
    } else {
        "lower is better"
    };
    let mut chart = ChartBuilder::on(area)
        .caption(format!("{} ({better})", p.measure), ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d((lo - pad)..(hi + pad), -0.5..(n as f64 - 0.5))
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n)
        .y_label_formatter(&|y| {
            let k = y.round();
            if (y - k).abs() < 1e-6 && k >= 0.0 && (k as usize) < names.len() {
                names[k as usize].clone()
            } else {
                String::new()
            }
        })
        .x_label_formatter(&|x| format!("{x:.digits$}"))
        .x_desc(p.measure.as_str())
        .draw()
        .map_err(plot_err)?;
    for (k, (_, s)) in p.solvers.iter().enumerate() {
        let y = k as f64;
        let dots = s
            .rigs
            .iter()
            .map(|&v| Circle::new((v, y), 3, BLUE.mix(0.35).filled()));
        chart.draw_series(dots).map_err(plot_err)?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(s.low, y + 0.25), (s.high, y + 0.25)],
                BLACK.stroke_width(2),
            )))
            .map_err(plot_err)?;
        chart
            .draw_series(std::iter::once(TriangleMarker::new(
                (s.mean, y + 0.25),
                6,
                RED.filled(),
            )))
            .map_err(plot_err)?;
    }
    Ok(())
}
