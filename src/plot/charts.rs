//! Line charts, linear or log-log, with title, labelled axes and a legend.

use super::{plot_err, Figure};
use crate::error::Result;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::Shift;
use plotters::prelude::*;

/// One named line of (x, y) points.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// Points in drawing order.
    pub points: Vec<(f64, f64)>,
}

/// A line chart. Every field is drawn: title, axis labels (with units), legend.
#[derive(Debug, Clone)]
pub struct LineChart {
    /// Title above the chart.
    pub title: String,
    /// X axis label, with units.
    pub x_label: String,
    /// Y axis label, with units.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
    /// Logarithmic axes on both x and y (non-positive points are skipped). Default in
    /// callers: false.
    pub log_log: bool,
    /// Horizontal reference lines `(y, label)`, drawn dashed grey.
    pub reference_lines: Vec<(f64, String)>,
}

const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

impl LineChart {
    fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let pts = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .chain(self.reference_lines.iter().filter_map(|(y, _)| {
                self.series
                    .first()
                    .and_then(|s| s.points.first())
                    .map(|p| (p.0, *y))
            }))
            .filter(|(x, y)| {
                x.is_finite() && y.is_finite() && (!self.log_log || (*x > 0.0 && *y > 0.0))
            });
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for (x, y) in pts {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if !x0.is_finite() {
            return ((0.0, 1.0), (0.0, 1.0));
        }
        let widen = |a: f64, b: f64| -> (f64, f64) {
            if self.log_log {
                let (a, b) = if a == b { (a / 2.0, b * 2.0) } else { (a, b) };
                (a / 1.3, b * 1.3)
            } else {
                let span = if b > a { b - a } else { a.abs().max(1.0) };
                (a - 0.05 * span, b + 0.05 * span)
            }
        };
        (widen(x0, x1), widen(y0, y1))
    }

    fn draw_on<'a, DB: DrawingBackend + 'a, X, Y>(
        &self,
        mut chart: ChartContext<'a, DB, Cartesian2d<X, Y>>,
    ) -> Result<()>
    where
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        chart
            .configure_mesh()
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 14))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(plot_err)?;
        let ok = |p: &(f64, f64)| {
            p.0.is_finite() && p.1.is_finite() && (!self.log_log || (p.0 > 0.0 && p.1 > 0.0))
        };
        for (i, s) in self.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(ok).collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(plot_err)?
                .label(s.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                });
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(plot_err)?;
        }
        let (xr, _) = self.ranges();
        for (y, label) in &self.reference_lines {
            let grey = RGBColor(120, 120, 120);
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(xr.0, *y), (xr.1, *y)],
                    6,
                    4,
                    grey.stroke_width(1),
                ))
                .map_err(plot_err)?
                .label(label.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], grey.stroke_width(1))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 12))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(plot_err)?;
        Ok(())
    }
}

impl Figure for LineChart {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()> {
        let ((x0, x1), (y0, y1)) = self.ranges();
        let mut builder = ChartBuilder::on(area);
        builder
            .caption(self.title.as_str(), ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64);
        if self.log_log {
            let chart = builder
                .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
                .map_err(plot_err)?;
            self.draw_on(chart)
        } else {
            let chart = builder
                .build_cartesian_2d(x0..x1, y0..y1)
                .map_err(plot_err)?;
            self.draw_on(chart)
        }
    }
}
