//! A small triangle rasterizer with smooth per-vertex colour interpolation. plotters fills
//! polygons with one flat colour; weight maps need colours blended across each triangle.

use nalgebra::Point2;

/// Maps scene coordinates (y up) onto a `width` x `height` pixel grid (y down).
#[derive(Debug, Clone, Copy)]
pub struct RasterView {
    /// Scene x at the left edge.
    pub x_min: f64,
    /// Scene y at the top edge.
    pub y_max: f64,
    /// Pixels per scene unit.
    pub scale: f64,
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
}

impl RasterView {
    /// A view that fits the box `[lo, hi]` into `width` x `height` pixels with equal aspect,
    /// centred.
    pub fn fit(lo: Point2<f64>, hi: Point2<f64>, width: u32, height: u32) -> Self {
        let w = (hi.x - lo.x).max(1e-12);
        let h = (hi.y - lo.y).max(1e-12);
        let scale = (width as f64 / w).min(height as f64 / h);
        let cx = (lo.x + hi.x) * 0.5;
        let cy = (lo.y + hi.y) * 0.5;
        RasterView {
            x_min: cx - width as f64 / scale * 0.5,
            y_max: cy + height as f64 / scale * 0.5,
            scale,
            width,
            height,
        }
    }

    /// Pixel coordinates (continuous) of a scene point.
    pub fn to_pixel(&self, p: Point2<f64>) -> (f64, f64) {
        (
            (p.x - self.x_min) * self.scale,
            (self.y_max - p.y) * self.scale,
        )
    }

    /// Scene x range covered by the image.
    pub fn x_range(&self) -> (f64, f64) {
        (self.x_min, self.x_min + self.width as f64 / self.scale)
    }

    /// Scene y range covered by the image.
    pub fn y_range(&self) -> (f64, f64) {
        (self.y_max - self.height as f64 / self.scale, self.y_max)
    }
}

/// Rasterizes triangles into an RGB buffer (row-major, 3 bytes a pixel, white background),
/// interpolating vertex colours barycentrically inside each triangle. Pixel centres decide
/// coverage; triangles of either winding are drawn (posed meshes may fold).
pub fn rasterize_triangles(
    positions: &[Point2<f64>],
    triangles: &[[usize; 3]],
    colors: &[[f64; 3]],
    view: &RasterView,
) -> Vec<u8> {
    let (w, h) = (view.width as usize, view.height as usize);
    let mut buf = vec![255u8; w * h * 3];
    for tri in triangles {
        let p = tri.map(|i| view.to_pixel(positions[i]));
        let c = tri.map(|i| colors[i]);
        let det = (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[1].1 - p[0].1) * (p[2].0 - p[0].0);
        if det == 0.0 || !det.is_finite() {
            continue;
        }
        let min_x = p
            .iter()
            .map(|q| q.0)
            .fold(f64::INFINITY, f64::min)
            .floor()
            .max(0.0) as usize;
        let max_x = p
            .iter()
            .map(|q| q.0)
            .fold(f64::NEG_INFINITY, f64::max)
            .ceil()
            .min(w as f64) as usize;
        let min_y = p
            .iter()
            .map(|q| q.1)
            .fold(f64::INFINITY, f64::min)
            .floor()
            .max(0.0) as usize;
        let max_y = p
            .iter()
            .map(|q| q.1)
            .fold(f64::NEG_INFINITY, f64::max)
            .ceil()
            .min(h as f64) as usize;
        for py in min_y..max_y {
            let y = py as f64 + 0.5;
            for px in min_x..max_x {
                let x = px as f64 + 0.5;
                let l1 =
                    ((p[2].0 - p[1].0) * (y - p[1].1) - (p[2].1 - p[1].1) * (x - p[1].0)) / det;
                let l2 =
                    ((p[0].0 - p[2].0) * (y - p[2].1) - (p[0].1 - p[2].1) * (x - p[2].0)) / det;
                let l3 = 1.0 - l1 - l2;
                // A small negative slack closes hairline cracks between neighbours.
                const SLACK: f64 = -1e-9;
                if l1 < SLACK || l2 < SLACK || l3 < SLACK {
                    continue;
                }
                let o = (py * w + px) * 3;
                for k in 0..3 {
                    let v = l1 * c[0][k] + l2 * c[1][k] + l3 * c[2][k];
                    buf[o + k] = (v.clamp(0.0, 1.0) * 255.0).round() as u8;
                }
            }
        }
    }
    buf
}
