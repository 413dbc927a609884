//! Line charts, linear or log-log, with title, labelled axes and a legend.

use super::{plot_err, Figure};
use crate::error::Result;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::Shift;
use plotters::prelude::*;

/// How a series is drawn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SeriesStyle {
    /// A solid line with a dot at every point (the default).
    #[default]
    LineAndMarkers,
    /// A solid line only.
    Line,
    /// A dashed line only (e.g. an analytic reference curve).
    Dashed,
    /// Markers only, no line (e.g. measurements drawn over an analytic curve).
    Markers,
}

/// One named line of (x, y) points.
#[derive(Debug, Clone, Default)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// Points in drawing order.
    pub points: Vec<(f64, f64)>,
    /// How the series is drawn (default: line and markers).
    pub style: SeriesStyle,
    /// Colour as RGB; `None` takes the next palette colour (by series index).
    pub color: Option<(u8, u8, u8)>,
}

impl Series {
    /// A series drawn as a line with markers, in the palette colour of its index.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            name: name.into(),
            points,
            ..Series::default()
        }
    }
    /// The same series drawn with `style`.
    pub fn with_style(mut self, style: SeriesStyle) -> Self {
        self.style = style;
        self
    }
    /// The same series in colour `rgb`.
    pub fn with_color(mut self, rgb: (u8, u8, u8)) -> Self {
        self.color = Some(rgb);
        self
    }
    /// The same series drawn as a dashed line (e.g. an analytic reference curve).
    pub fn dashed(self) -> Self {
        self.with_style(SeriesStyle::Dashed)
    }
    /// The same series drawn as open markers only (e.g. measurements over a curve).
    pub fn markers(self) -> Self {
        self.with_style(SeriesStyle::Markers)
    }
    /// The same series drawn as a solid line without markers.
    pub fn line(self) -> Self {
        self.with_style(SeriesStyle::Line)
    }
}

/// Where the legend box goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LegendPosition {
    /// Top left inside the plot (the default).
    #[default]
    UpperLeft,
    /// Top right inside the plot.
    UpperRight,
    /// Bottom left inside the plot.
    LowerLeft,
    /// Bottom right inside the plot.
    LowerRight,
    /// Middle of the right edge inside the plot.
    MiddleRight,
}

/// A line chart. Every field is drawn: title, axis labels (with units), legend.
#[derive(Debug, Clone, Default)]
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
    /// Logarithmic y axis only (non-positive y are skipped); ignored when `log_log` is set.
    pub log_y: bool,
    /// Horizontal reference lines `(y, label)`, drawn dashed grey.
    pub reference_lines: Vec<(f64, String)>,
    /// Where the legend goes (default: upper left).
    pub legend_position: LegendPosition,
    /// Fixed x range; `None` fits the data.
    pub x_range: Option<(f64, f64)>,
    /// Fixed y range; `None` fits the data.
    pub y_range: Option<(f64, f64)>,
}

/// The colours series take in order (Tableau 10).
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

impl LineChart {
    /// An empty linear chart with a title and axis labels.
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Self {
        LineChart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            ..LineChart::default()
        }
    }

    /// The same chart with the legend at `position`.
    pub fn with_legend(mut self, position: LegendPosition) -> Self {
        self.legend_position = position;
        self
    }
    /// The same chart with the legend at the top right.
    pub fn legend_upper_right(self) -> Self {
        self.with_legend(LegendPosition::UpperRight)
    }
    /// The same chart with the legend at the bottom left.
    pub fn legend_lower_left(self) -> Self {
        self.with_legend(LegendPosition::LowerLeft)
    }
    /// The same chart with the legend at the bottom right.
    pub fn legend_lower_right(self) -> Self {
        self.with_legend(LegendPosition::LowerRight)
    }
    /// The same chart with the legend in the middle of the right edge.
    pub fn legend_middle_right(self) -> Self {
        self.with_legend(LegendPosition::MiddleRight)
    }

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
                x.is_finite()
                    && y.is_finite()
                    && (!self.log_log || (*x > 0.0 && *y > 0.0))
                    && (!self.log_y || *y > 0.0)
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
            return (
                self.x_range.unwrap_or((0.0, 1.0)),
                self.y_range.unwrap_or((0.0, 1.0)),
            );
        }
        let widen = |a: f64, b: f64, log: bool| -> (f64, f64) {
            if log {
                let (a, b) = if a == b { (a / 2.0, b * 2.0) } else { (a, b) };
                (a / 1.3, b * 1.3)
            } else {
                let span = if b > a { b - a } else { a.abs().max(1.0) };
                (a - 0.05 * span, b + 0.05 * span)
            }
        };
        (
            self.x_range.unwrap_or_else(|| widen(x0, x1, self.log_log)),
            self.y_range
                .unwrap_or_else(|| widen(y0, y1, self.log_log || self.log_y)),
        )
    }

    fn draw_on<'a, DB: DrawingBackend + 'a, X, Y>(
        &self,
        mut chart: ChartContext<'a, DB, Cartesian2d<X, Y>>,
    ) -> Result<()>
    where
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let fmt = |v: &f64| short_number(*v);
        chart
            .configure_mesh()
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .x_label_formatter(&fmt)
            .y_label_formatter(&fmt)
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 15))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(plot_err)?;
        let ((x0, x1), (y0, y1)) = self.ranges();
        let clip = Clip {
            lo: (x0.min(x1), y0.min(y1)),
            hi: (x0.max(x1), y0.max(y1)),
            log_x: self.log_log,
            log_y: self.log_log || self.log_y,
        };
        for (i, s) in self.series.iter().enumerate() {
            let color = s
                .color
                .map(|(r, g, b)| RGBColor(r, g, b))
                .unwrap_or(PALETTE[i % PALETTE.len()]);
            self.draw_series(&mut chart, s, color, &clip)?;
        }
        for (y, label) in &self.reference_lines {
            let grey = RGBColor(120, 120, 120);
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(x0, *y), (x1, *y)],
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
        let position = match self.legend_position {
            LegendPosition::UpperLeft => SeriesLabelPosition::UpperLeft,
            LegendPosition::UpperRight => SeriesLabelPosition::UpperRight,
            LegendPosition::LowerLeft => SeriesLabelPosition::LowerLeft,
            LegendPosition::LowerRight => SeriesLabelPosition::LowerRight,
            LegendPosition::MiddleRight => SeriesLabelPosition::MiddleRight,
        };
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 13))
            .position(position)
            .draw()
            .map_err(plot_err)?;
        Ok(())
    }

    /// Draws one series with its legend entry: lines clipped to the plot (a fixed range may
    /// cut them), markers outside it dropped, points an axis cannot show (not finite, or
    /// not positive on a log axis) left out.
    fn draw_series<'a, DB: DrawingBackend + 'a, X, Y>(
        &self,
        chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
        s: &Series,
        color: RGBColor,
        clip: &Clip,
    ) -> Result<()>
    where
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let valid = |p: &(f64, f64)| {
            p.0.is_finite()
                && p.1.is_finite()
                && (!self.log_log || (p.0 > 0.0 && p.1 > 0.0))
                && (!self.log_y || p.1 > 0.0)
        };
        let inside = |p: &(f64, f64)| {
            p.0 >= clip.lo.0 && p.0 <= clip.hi.0 && p.1 >= clip.lo.1 && p.1 <= clip.hi.1
        };
        let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(valid).collect();
        let pieces = clip.polyline(&pts);
        let marks: Vec<(f64, f64)> = pts.iter().copied().filter(inside).collect();
        let name = s.name.clone();
        if s.style == SeriesStyle::Markers {
            chart
                .draw_series(
                    marks
                        .iter()
                        .map(|&p| Circle::new(p, 4, color.stroke_width(2))),
                )
                .map_err(plot_err)?
                .label(name)
                .legend(move |(x, y)| Circle::new((x + 9, y), 4, color.stroke_width(2)));
            return Ok(());
        }
        let dashed = s.style == SeriesStyle::Dashed;
        let mut first = true;
        for piece in pieces.into_iter().chain(std::iter::once(Vec::new())) {
            // The trailing empty piece carries the legend entry if nothing else did.
            if piece.is_empty() && !first {
                continue;
            }
            let ann = if dashed {
                chart
                    .draw_series(DashedLineSeries::new(piece, 7, 5, color.stroke_width(2)))
                    .map_err(plot_err)?
            } else {
                chart
                    .draw_series(LineSeries::new(piece, color.stroke_width(2)))
                    .map_err(plot_err)?
            };
            if first {
                let dash = if dashed { 7 } else { 18 };
                ann.label(name.clone()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + dash, y)], color.stroke_width(2))
                });
                first = false;
            }
        }
        if s.style == SeriesStyle::LineAndMarkers {
            chart
                .draw_series(marks.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(plot_err)?;
        }
        Ok(())
    }
}

/// Clips polylines to the plot rectangle, in the axes' own (linear or log) coordinates.
struct Clip {
    lo: (f64, f64),
    hi: (f64, f64),
    log_x: bool,
    log_y: bool,
}

impl Clip {
    fn to_axes(&self, p: (f64, f64)) -> (f64, f64) {
        let f = |v: f64, log: bool| if log { v.ln() } else { v };
        (f(p.0, self.log_x), f(p.1, self.log_y))
    }
    fn to_data(&self, p: (f64, f64)) -> (f64, f64) {
        let f = |v: f64, log: bool| if log { v.exp() } else { v };
        (f(p.0, self.log_x), f(p.1, self.log_y))
    }

    /// Liang-Barsky clip of segment a-b (axes coordinates): the visible part and whether its
    /// start and end were cut; `None` when it misses the box.
    #[allow(clippy::type_complexity)]
    fn segment(
        &self,
        a: (f64, f64),
        b: (f64, f64),
    ) -> Option<((f64, f64), (f64, f64), bool, bool)> {
        let (lo, hi) = (self.to_axes(self.lo), self.to_axes(self.hi));
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (p, q) in [
            (-dx, a.0 - lo.0),
            (dx, hi.0 - a.0),
            (-dy, a.1 - lo.1),
            (dy, hi.1 - a.1),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return None;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
            }
        }
        (t0 <= t1).then_some((
            (a.0 + t0 * dx, a.1 + t0 * dy),
            (a.0 + t1 * dx, a.1 + t1 * dy),
            t0 > 0.0,
            t1 < 1.0,
        ))
    }

    /// The visible pieces of a polyline (data coordinates).
    fn polyline(&self, pts: &[(f64, f64)]) -> Vec<Vec<(f64, f64)>> {
        let mut pieces: Vec<Vec<(f64, f64)>> = Vec::new();
        let mut current: Vec<(f64, f64)> = Vec::new();
        if pts.len() == 1 {
            let p = self.to_axes(pts[0]);
            if self.segment(p, p).is_some() {
                pieces.push(pts.to_vec());
            }
            return pieces;
        }
        for w in pts.windows(2) {
            match self.segment(self.to_axes(w[0]), self.to_axes(w[1])) {
                Some((a, b, cut_start, cut_end)) => {
                    if cut_start || current.is_empty() {
                        if !current.is_empty() {
                            pieces.push(std::mem::take(&mut current));
                        }
                        current.push(if cut_start { self.to_data(a) } else { w[0] });
                    }
                    current.push(if cut_end { self.to_data(b) } else { w[1] });
                    if cut_end {
                        pieces.push(std::mem::take(&mut current));
                    }
                }
                None => {
                    if !current.is_empty() {
                        pieces.push(std::mem::take(&mut current));
                    }
                }
            }
        }
        if !current.is_empty() {
            pieces.push(current);
        }
        pieces
    }
}

/// Axis tick text: plain numbers with few digits, `3e4` style from 10^4 up.
pub(crate) fn short_number(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        return "0".into();
    }
    if !(1e-3..1e4).contains(&a) {
        let e = a.log10().floor();
        let m = v / 10f64.powf(e);
        if (m.round() - m).abs() < 1e-9 {
            return format!("{}e{}", m.round(), e);
        }
        return format!("{m:.1}e{e}");
    }
    let s = if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

impl Figure for LineChart {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()> {
        let ((x0, x1), (y0, y1)) = self.ranges();
        let mut builder = ChartBuilder::on(area);
        builder
            .caption(self.title.as_str(), ("sans-serif", 19))
            .margin(14)
            .x_label_area_size(48)
            .y_label_area_size(72);
        if self.log_log {
            let chart = builder
                .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
                .map_err(plot_err)?;
            self.draw_on(chart)
        } else if self.log_y {
            let chart = builder
                .build_cartesian_2d(x0..x1, (y0..y1).log_scale())
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

#[cfg(test)]
mod tests {
    use super::short_number;

    #[test]
    fn lines_are_clipped_to_the_plot() {
        let clip = super::Clip {
            lo: (0.0, 0.0),
            hi: (10.0, 5.0),
            log_x: false,
            log_y: false,
        };
        // Up out of the box and back in: two pieces, cut at y = 5.
        let pieces = clip.polyline(&[(0.0, 0.0), (4.0, 10.0), (8.0, 0.0)]);
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[0], vec![(0.0, 0.0), (2.0, 5.0)]);
        assert_eq!(pieces[1], vec![(6.0, 5.0), (8.0, 0.0)]);
        assert!(clip.polyline(&[(20.0, 0.0), (30.0, 1.0)]).is_empty());
    }

    #[test]
    fn tick_text_is_short() {
        assert_eq!(short_number(0.0), "0");
        assert_eq!(short_number(1_000_000.0), "1e6");
        assert_eq!(short_number(300_000.0), "3e5");
        assert_eq!(short_number(30_000.0), "3e4");
        assert_eq!(short_number(5000.0), "5000");
        assert_eq!(short_number(0.5), "0.5");
        assert_eq!(short_number(12.0), "12");
        assert_eq!(short_number(1.25), "1.25");
    }
}
