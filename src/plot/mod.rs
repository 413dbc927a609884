//! Drawing with plotters: weight maps, posed meshes with a displacement colour map, and
//! charts. Plotting never computes metrics: callers pass the numbers to draw.
//!
//! Figures render with no system font or graphics library: DejaVu Sans is embedded (the
//! `dejavu` crate) and registered with plotters' `ab_glyph` text renderer on first use. The
//! output format follows the file extension: `.png` or `.svg`.

mod caption;
mod charts;
mod maps;
mod raster;

pub use caption::{caption, caption_at, caption_layout, caption_rows, caption_size};
pub use charts::{LegendPosition, LineChart, Series, SeriesStyle};
pub use maps::{bone_colors, PoseMap, WeightMap};
pub use raster::{rasterize_triangles, RasterView};

use crate::compare::ProbeView;
use crate::error::{Error, OutputError, Result};
use crate::scene::Scene;
use crate::weights::Weights;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// Something that can draw itself into a plotters drawing area of any backend.
pub trait Figure {
    /// Draws the figure, filling `area`.
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()>;
}

/// Registers the embedded DejaVu Sans as plotters' "sans-serif" (idempotent).
pub fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TTF shipped by the `dejavu` crate; failure would be a build bug.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            dejavu::sans::regular(),
        );
        let _ = plotters::style::register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold());
    });
}

/// Converts a plotters drawing error into the crate's error.
pub(crate) fn plot_err<E: std::fmt::Debug>(e: E) -> Error {
    Error::Output(OutputError::Plot {
        message: format!("{e:?}"),
    })
}

/// Draws `figure` into `path` (`.png` or `.svg`, chosen by extension) at `size` pixels.
pub fn save_figure<F: Figure>(figure: &F, path: impl AsRef<Path>, size: (u32, u32)) -> Result<()> {
    register_fonts();
    let path = path.as_ref();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("png") => {
            let root = BitMapBackend::new(path, size).into_drawing_area();
            root.fill(&WHITE).map_err(plot_err)?;
            figure.draw(&root)?;
            root.present().map_err(|e| {
                Error::Output(OutputError::Plot {
                    message: format!("{}: {e:?}", path.display()),
                })
            })
        }
        Some("svg") => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            root.fill(&WHITE).map_err(plot_err)?;
            figure.draw(&root)?;
            root.present().map_err(|e| {
                Error::Output(OutputError::Plot {
                    message: format!("{}: {e:?}", path.display()),
                })
            })
        }
        other => Err(OutputError::UnsupportedOutput {
            path: path.to_path_buf(),
            extension: other.unwrap_or("").to_string(),
            supported: ".png or .svg".into(),
        }
        .into()),
    }
}

/// Several figures side by side in a grid of `columns` columns.
pub struct Grid<'a, F: Figure> {
    /// The panels, row-major.
    pub panels: &'a [F],
    /// Number of columns (default in callers: up to 3).
    pub columns: usize,
}

impl<F: Figure> Figure for Grid<'_, F> {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()> {
        let cols = self.columns.max(1);
        let rows = self.panels.len().div_ceil(cols).max(1);
        for (panel, cell) in self.panels.iter().zip(area.split_evenly((rows, cols))) {
            panel.draw(&cell)?;
        }
        Ok(())
    }
}

/// A perceptual colour map (viridis, 9 stops, linearly interpolated) for `t` in [0, 1].
pub fn viridis(t: f64) -> RGBColor {
    const STOPS: [(u8, u8, u8); 9] = [
        (68, 1, 84),
        (71, 44, 122),
        (59, 81, 139),
        (44, 113, 142),
        (33, 144, 141),
        (39, 173, 129),
        (92, 200, 99),
        (170, 220, 50),
        (253, 231, 37),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        1.0
    };
    let x = t * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let f = x - i as f64;
    let lerp = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    RGBColor(lerp(a.0, b.0), lerp(a.1, b.1), lerp(a.2, b.2))
}

/// Either kind of mesh figure, so that weight maps and posed meshes can share one grid.
pub enum Panel {
    /// A weight map.
    Weights(WeightMap),
    /// A posed mesh.
    Pose(PoseMap),
}

impl Figure for Panel {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()> {
        match self {
            Panel::Weights(w) => w.draw(area),
            Panel::Pose(p) => p.draw(area),
        }
    }
}

/// The two figure panels of one weights set: its weight map, and the posed mesh of `probe`
/// (its name) with the watched vertices coloured by the displacement measured in `view` (% of
/// height, colour bar up to `drag_scale_pct`), named `measure`: "drag" for a probe's watched
/// vertices, "movement" for a clip frame's every vertex.
pub fn figure_panels(
    scene: &Scene,
    weights: &Weights,
    label: &str,
    probe: &str,
    view: ProbeView,
    drag_scale_pct: f64,
    measure: &str,
) -> [Panel; 2] {
    [
        Panel::Weights(WeightMap::new(scene, weights, format!("{label}: weights"))),
        Panel::Pose(PoseMap::new(
            format!(
                "{label}: {probe} (max {measure} {:.2}% h)",
                view.max_drag_pct
            ),
            scene,
            view.posed,
            view.bones,
            &view.drag_pct,
            drag_scale_pct,
            format!("{measure} % h"),
        )),
    ]
}
