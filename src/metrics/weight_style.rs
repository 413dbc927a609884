//! Whether a rig's weights look painted by a person or computed by a tool. Authoring tools
//! can auto-skin (Spine, Creature and Unity all can), and a file cannot say which happened;
//! scoring a solver against another tool's solver as if it were an artist would be wrong.
//!
//! Painted weights are sparse and coarse: most vertices follow one or two bones, and the
//! values sit on the few steps an artist's brush or slider gives (0.25, 0.5, 1). Computed
//! weights blend several bones almost everywhere with values on no grid. A rig is flagged
//! when both hold: [`WeightStyle::looks_computed`].

use crate::weights::Weights;

/// A weight at or above this counts as an influence.
pub const INFLUENCE_FLOOR: f64 = 0.01;

/// Steps of a painted value: a row is "on the grid" when every weight is a multiple of this
/// (within 1e-3 of a step).
pub const PAINT_STEP: f64 = 0.05;

/// Share of weighted vertices blending two or more bones at or above which weights look
/// computed (painted rigs here: 1% to 88%; vine and the Ice Demon 99% and 100%).
pub const COMPUTED_BLEND_SHARE: f64 = 0.95;

/// Share of rows on the paint grid below which weights look computed.
pub const COMPUTED_GRID_SHARE: f64 = 0.1;

/// How a set of weighted vertices' rows are spread over bones.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightStyle {
    /// Vertices with some weight (rows that are all zero are skipped).
    pub vertices: usize,
    /// Of those, vertices with two or more influences of at least [`INFLUENCE_FLOOR`].
    pub blended: usize,
    /// Of those, vertices whose every weight is a multiple of [`PAINT_STEP`].
    pub on_grid: usize,
}

impl WeightStyle {
    /// The style of `weights`' rows `vertices`.
    pub fn of(weights: &Weights, vertices: impl IntoIterator<Item = usize>) -> WeightStyle {
        let mut s = WeightStyle {
            vertices: 0,
            blended: 0,
            on_grid: 0,
        };
        for v in vertices {
            let row = weights.row(v);
            if !row.iter().any(|&w| w > 0.0) {
                continue;
            }
            s.vertices += 1;
            if row.iter().filter(|&&w| w >= INFLUENCE_FLOOR).count() >= 2 {
                s.blended += 1;
            }
            let on_step = |w: f64| (w / PAINT_STEP - (w / PAINT_STEP).round()).abs() < 1e-3;
            if row.iter().all(|&w| on_step(w)) {
                s.on_grid += 1;
            }
        }
        s
    }

    /// Share of weighted vertices blending two or more bones (0 with no vertices).
    pub fn blend_share(&self) -> f64 {
        share(self.blended, self.vertices)
    }

    /// Share of weighted vertices on the paint grid (0 with no vertices).
    pub fn grid_share(&self) -> f64 {
        share(self.on_grid, self.vertices)
    }

    /// Nearly every vertex blends several bones and almost no row is on the paint grid.
    pub fn looks_computed(&self) -> bool {
        self.vertices > 0
            && self.blend_share() >= COMPUTED_BLEND_SHARE
            && self.grid_share() <= COMPUTED_GRID_SHARE
    }
}

fn share(k: usize, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        k as f64 / n as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights(rows: &[[f64; 4]]) -> Weights {
        let mut w = Weights::zeros_unchecked(rows.len(), 4);
        for (v, r) in rows.iter().enumerate() {
            w.row_mut_unchecked(v).copy_from_slice(r);
        }
        w
    }

    #[test]
    fn painted_rows_are_not_flagged() {
        let w = weights(&[
            [1.0, 0.0, 0.0, 0.0],
            [0.5, 0.5, 0.0, 0.0],
            [0.25, 0.25, 0.5, 0.0],
            [0.0, 0.0, 0.0, 0.0],
        ]);
        let s = WeightStyle::of(&w, 0..4);
        assert_eq!((s.vertices, s.blended, s.on_grid), (3, 2, 3));
        assert!(!s.looks_computed());
    }

    #[test]
    fn smooth_three_bone_rows_are_flagged() {
        let rows: Vec<[f64; 4]> = (0..10)
            .map(|i| {
                let a = 0.3 + 0.0137 * i as f64;
                [a, 0.5 - a / 2.0, 0.5 - a / 2.0 - 0.0213, 0.0213]
            })
            .collect();
        let s = WeightStyle::of(&weights(&rows), 0..10);
        assert_eq!(s.blended, 10);
        assert!(s.looks_computed(), "{s:?}");
    }
}
