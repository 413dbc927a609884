//! Mesh figures: weight maps and posed meshes coloured by displacement.

use super::raster::{rasterize_triangles, RasterView};
use super::{plot_err, viridis, Figure};
use crate::error::Result;
use crate::geometry::Bounds;
use crate::scene::Scene;
use crate::weights::Weights;
use nalgebra::Point2;
use plotters::coord::Shift;
use plotters::element::BitMapElement;
use plotters::prelude::*;

/// Distinct colours for bones (Tableau 10, then 10 lighter variants, repeating).
pub fn bone_colors(n: usize) -> Vec<[f64; 3]> {
    const BASE: [(u8, u8, u8); 20] = [
        (31, 119, 180),
        (255, 127, 14),
        (44, 160, 44),
        (214, 39, 40),
        (148, 103, 189),
        (140, 86, 75),
        (227, 119, 194),
        (127, 127, 127),
        (188, 189, 34),
        (23, 190, 207),
        (174, 199, 232),
        (255, 187, 120),
        (152, 223, 138),
        (255, 152, 150),
        (197, 176, 213),
        (196, 156, 148),
        (247, 182, 210),
        (199, 199, 199),
        (219, 219, 141),
        (158, 218, 229),
    ];
    (0..n)
        .map(|i| {
            let (r, g, b) = BASE[i % BASE.len()];
            [r as f64 / 255.0, g as f64 / 255.0, b as f64 / 255.0]
        })
        .collect()
}

fn rgb(c: [f64; 3]) -> RGBColor {
    RGBColor(
        (c[0] * 255.0).round() as u8,
        (c[1] * 255.0).round() as u8,
        (c[2] * 255.0).round() as u8,
    )
}

/// Space (pixels) reserved around the mesh panel for axes.
const MARGIN: u32 = 8;
const X_LABELS: u32 = 40;
const Y_LABELS: u32 = 56;

/// A titled mesh with a colour per vertex: what weight maps and pose maps share.
struct ColouredMesh {
    title: String,
    positions: Vec<Point2<f64>>,
    triangles: Vec<[usize; 3]>,
    colors: Vec<[f64; 3]>,
}

impl ColouredMesh {
    /// Draws the mesh smoothly coloured, `segments` on top, axes in scene units (the view
    /// fits the mesh and the segments), and returns the drawing area left over on the right
    /// (`side_width` pixels, for a legend or colour bar).
    fn draw_panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        segments: &[([Point2<f64>; 2], RGBColor)],
        side_width: u32,
    ) -> Result<DrawingArea<DB, Shift>> {
        let seg_points: Vec<Point2<f64>> = segments.iter().flat_map(|(s, _)| *s).collect();
        let b = Bounds::of(self.positions.iter().chain(&seg_points));
        draw_mesh_panel(area, self, segments, side_width, (b.lo, b.hi))
    }
}

fn draw_mesh_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    mesh: &ColouredMesh,
    segments: &[([Point2<f64>; 2], RGBColor)],
    side_width: u32,
    bounds: (Point2<f64>, Point2<f64>),
) -> Result<DrawingArea<DB, Shift>> {
    let area = area
        .titled(&mesh.title, ("sans-serif", 18).into_font())
        .map_err(plot_err)?;
    let (w, _) = area.dim_in_pixel();
    let (plot, side) = area.split_horizontally(w.saturating_sub(side_width));
    let (pw, ph) = plot.dim_in_pixel();
    let inner_w = pw.saturating_sub(2 * MARGIN + Y_LABELS).max(10);
    let inner_h = ph.saturating_sub(2 * MARGIN + X_LABELS).max(10);
    let (lo, hi) = bounds;
    let pad = 0.03 * (hi.x - lo.x).max(hi.y - lo.y);
    let view = RasterView::fit(
        Point2::new(lo.x - pad, lo.y - pad),
        Point2::new(hi.x + pad, hi.y + pad),
        inner_w,
        inner_h,
    );
    let (x0, x1) = view.x_range();
    let (y0, y1) = view.y_range();
    let mut chart = ChartBuilder::on(&plot)
        .margin(MARGIN)
        .x_label_area_size(X_LABELS)
        .y_label_area_size(Y_LABELS)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(plot_err)?;
    let ticks = |v: &f64| super::charts::short_number(*v);
    chart
        .configure_mesh()
        .disable_mesh()
        .label_style(("sans-serif", 11))
        .axis_desc_style(("sans-serif", 11))
        .x_desc("x, scene units")
        .y_desc("y, scene units")
        .x_label_formatter(&ticks)
        .y_label_formatter(&ticks)
        .x_labels(5)
        .y_labels(5)
        .draw()
        .map_err(plot_err)?;
    // Rasterize at the plotting area's real pixel size so the image maps 1:1.
    let (rw, rh) = chart.plotting_area().dim_in_pixel();
    let view = RasterView {
        scale: rw as f64 / (x1 - x0),
        width: rw,
        height: rh,
        ..view
    };
    let pixels = rasterize_triangles(&mesh.positions, &mesh.triangles, &mesh.colors, &view);
    if let Some(img) = BitMapElement::with_owned_buffer((x0, y1), (rw, rh), pixels) {
        chart.draw_series(std::iter::once(img)).map_err(plot_err)?;
    }
    for (seg, color) in segments {
        chart
            .draw_series(LineSeries::new(
                seg.iter().map(|p| (p.x, p.y)),
                color.stroke_width(3),
            ))
            .map_err(plot_err)?;
        chart
            .draw_series(std::iter::once(Circle::new(
                (seg[0].x, seg[0].y),
                3,
                BLACK.filled(),
            )))
            .map_err(plot_err)?;
    }
    Ok(side)
}

/// A weight map: every vertex coloured by the weight-blended colours of its bones
/// (interpolated smoothly across triangles), bones drawn on top, with a legend.
pub struct WeightMap {
    mesh: ColouredMesh,
    bones: Vec<(String, [Point2<f64>; 2], [f64; 3])>,
    /// Whether each bone carries weight somewhere: only those get a legend entry, so a rig
    /// with many helper bones (70 in the DragonBones character) keeps a readable legend.
    weighted: Vec<bool>,
}

impl WeightMap {
    /// A weight map of `weights` on the rest mesh of `scene`.
    pub fn new(scene: &Scene, weights: &Weights, title: impl Into<String>) -> Self {
        let palette = bone_colors(scene.skeleton.len());
        let mut weighted = vec![false; scene.skeleton.len()];
        for row in weights.rows() {
            for (seen, &w) in weighted.iter_mut().zip(row) {
                *seen |= w > 0.0;
            }
        }
        let colors = weights
            .rows()
            .map(|row| {
                let mut c = [0.0; 3];
                for (w, pc) in row.iter().zip(&palette) {
                    for k in 0..3 {
                        c[k] += w.max(0.0) * pc[k];
                    }
                }
                c
            })
            .collect();
        WeightMap {
            mesh: ColouredMesh {
                title: title.into(),
                positions: scene.mesh.vertices().to_vec(),
                triangles: scene.mesh.triangles().to_vec(),
                colors,
            },
            bones: scene
                .skeleton
                .bones()
                .iter()
                .zip(&palette)
                .map(|(b, &c)| (b.name.clone(), [b.head, b.tail], c))
                .collect(),
            weighted,
        }
    }
}

impl Figure for WeightMap {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()> {
        // Bones are drawn darker than their colour so they stand out on their own area.
        let segments: Vec<_> = self
            .bones
            .iter()
            .map(|(_, s, c)| (*s, rgb([c[0] * 0.5, c[1] * 0.5, c[2] * 0.5])))
            .collect();
        let side = self.mesh.draw_panel(area, &segments, 130)?;
        let legend: Vec<_> = self
            .bones
            .iter()
            .zip(&self.weighted)
            .filter(|(_, &w)| w)
            .map(|(b, _)| b)
            .collect();
        // Entries that fit below the title; the rest are counted on the last line.
        let (_, height) = side.dim_in_pixel();
        let room = ((height as i32 - 40) / 18).max(1) as usize;
        let shown = if legend.len() > room {
            room - 1
        } else {
            legend.len()
        };
        if shown < legend.len() {
            side.draw(&Text::new(
                format!("+{} more bones", legend.len() - shown),
                (4, 30 + shown as i32 * 18),
                ("sans-serif", 12).into_font(),
            ))
            .map_err(plot_err)?;
        }
        for (i, (name, _, c)) in legend.into_iter().take(shown).enumerate() {
            let y = 30 + i as i32 * 18;
            side.draw(&Rectangle::new([(4, y), (18, y + 12)], rgb(*c).filled()))
                .map_err(plot_err)?;
            side.draw(&Text::new(
                name.clone(),
                (24, y),
                ("sans-serif", 12).into_font(),
            ))
            .map_err(plot_err)?;
        }
        Ok(())
    }
}

/// A posed mesh: watched vertices coloured by their displacement (viridis from 0 to
/// `scale_max`), the rest of the mesh light grey, posed bones on top, and a colour bar.
pub struct PoseMap {
    mesh: ColouredMesh,
    bones: Vec<[Point2<f64>; 2]>,
    scale_max: f64,
    scale_label: String,
}

impl PoseMap {
    /// `posed`: the posed vertex positions; `value`: the quantity to colour by per vertex
    /// (`None` = not watched, drawn grey); `scale_max`: the value at the top of the colour
    /// bar (share it between panels that are compared); `bones`: posed bone segments.
    pub fn new(
        title: impl Into<String>,
        scene: &Scene,
        posed: Vec<Point2<f64>>,
        bones: Vec<[Point2<f64>; 2]>,
        value: &[Option<f64>],
        scale_max: f64,
        scale_label: impl Into<String>,
    ) -> Self {
        let scale_max = if scale_max > 0.0 && scale_max.is_finite() {
            scale_max
        } else {
            1.0
        };
        let colors = value
            .iter()
            .map(|v| match v {
                Some(d) => {
                    let c = viridis(d / scale_max);
                    [c.0 as f64 / 255.0, c.1 as f64 / 255.0, c.2 as f64 / 255.0]
                }
                None => [0.83, 0.83, 0.83],
            })
            .collect();
        PoseMap {
            mesh: ColouredMesh {
                title: title.into(),
                positions: posed,
                triangles: scene.mesh.triangles().to_vec(),
                colors,
            },
            bones,
            scale_max,
            scale_label: scale_label.into(),
        }
    }

    /// Bounding box of the posed mesh.
    pub fn bounds(&self) -> (Point2<f64>, Point2<f64>) {
        let b = Bounds::of(&self.mesh.positions);
        (b.lo, b.hi)
    }
}

impl Figure for PoseMap {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<()> {
        let segments: Vec<_> = self
            .bones
            .iter()
            .map(|s| (*s, RGBColor(200, 30, 30)))
            .collect();
        let side = self.mesh.draw_panel(area, &segments, 90)?;
        // Colour bar: 0 at the bottom, scale_max at the top.
        let (_, h) = side.dim_in_pixel();
        let top = 30i32;
        let bottom = (h as i32 - 40).max(top + 20);
        let steps = 64;
        for s in 0..steps {
            let t0 = s as f64 / steps as f64;
            let y0 = bottom - ((bottom - top) as f64 * t0) as i32;
            let y1 = bottom - ((bottom - top) as f64 * (s + 1) as f64 / steps as f64) as i32;
            side.draw(&Rectangle::new([(8, y1), (24, y0)], viridis(t0).filled()))
                .map_err(plot_err)?;
        }
        let font = ("sans-serif", 11).into_font();
        for k in 0..=4 {
            let t = k as f64 / 4.0;
            let y = bottom - ((bottom - top) as f64 * t) as i32;
            side.draw(&Text::new(
                format!("{:.3}", t * self.scale_max),
                (28, y - 6),
                font.clone(),
            ))
            .map_err(plot_err)?;
        }
        side.draw(&Text::new(self.scale_label.clone(), (4, top - 20), font))
            .map_err(plot_err)?;
        Ok(())
    }
}
