//! Seams recorded in the scene: which vertices of separately drawn layers move together.
//!
//! A shared boundary vertex is a property of the scene, not of one weights file, so the scene
//! keeps it (the scene file's optional `seams` key, format version 3) and every solver
//! honours it by construction: [`crate::solvers::Solver::solve`] applies [`Seams::join`] to
//! every result, however the solver was built, so `solve`, `compare`, `view`, Python and the
//! experiments all give seam-consistent weights on a repaired scene.
//!
//! - A **joint** is a group of vertices (of different layers, welded to one rest position)
//!   that move together: the join gives every member the group's mean row (count-weighted),
//!   so linear blend skinning moves them to one posed position and the opening is 0.
//! - A **weld** (Spine 4.2.43's Weld: copy weights onto an overlapping mesh) is a vertex of
//!   one layer that lies over a triangle of another: the join gives it the weights of that
//!   triangle at its position (barycentric `at`), so the overlapping layer follows the one
//!   under it. `repair --weld-overlaps` records these; `--blend-overlaps` is the symmetric
//!   blend of the same overlaps and is recorded the same way after its blend.
//!
//! [`Seams::check`] (run by [`crate::scene::Scene::with_seams`] and so by every loader) rejects
//! hostile seams with typed errors naming the seam and vertex: indices out of range,
//! non-finite or non-barycentric coordinates, members at different rest positions, a vertex
//! in two groups.

use crate::error::{Error, Result, SeamError, SeamProblem};
use crate::weights::Weights;
use nalgebra::Point2;

/// How far apart (px) the members of one joint may be at rest: a joint is one shared
/// position written twice (bit-identical after `repair --weld`), so any real spread is an
/// error in the file, not something to average away.
pub const JOINT_TOLERANCE: f64 = 1e-6;

/// How far outside `[0, 1]` a weld's barycentric coordinate may be, and how far their sum
/// may be from 1 (rounding of a point on a triangle edge).
pub const BARYCENTRIC_TOLERANCE: f64 = 1e-6;

/// One vertex that takes the weights of a point on a triangle of another layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Weld {
    /// The vertex that follows.
    pub vertex: usize,
    /// The corners of the triangle it lies over (of another layer).
    pub from: [usize; 3],
    /// Its barycentric coordinates in that triangle (sum 1).
    pub at: [f64; 3],
}

/// The seams of a scene. Default: none.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Seams {
    /// Groups of vertices that share one rest position and move together (two or more each).
    pub joints: Vec<Vec<usize>>,
    /// Vertices that copy the weights of the layer they overlap (Spine's Weld).
    pub welds: Vec<Weld>,
}

impl Seams {
    /// Whether no seam is recorded.
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty() && self.welds.is_empty()
    }

    /// Checks the seams against the rest positions of a mesh. Errors name the seam
    /// (`joints[i]` or `welds[i]`) and vertex: [`SeamError::SeamVertexOutOfRange`],
    /// [`SeamError::SeamVertexRepeated`] (a vertex in two groups, or twice in one),
    /// [`SeamError::SeamSpread`], [`SeamError::InvalidSeam`] (fewer than two members, coordinates
    /// not finite or not barycentric, a weld onto itself).
    pub fn check(&self, rest: &[Point2<f64>]) -> Result<()> {
        let n = rest.len();
        // Where each vertex was first used, so a second use names both seams.
        let mut used: Vec<Option<String>> = vec![None; n];
        for (i, group) in self.joints.iter().enumerate() {
            check_joint(format!("joints[{i}]"), group, rest, &mut used)?;
        }
        // Weld targets are claimed first so that a source which is itself a target (a
        // chain, whose result would depend on the order) is caught below.
        for (i, w) in self.welds.iter().enumerate() {
            claim(&format!("welds[{i}]"), w.vertex, &mut used)?;
        }
        for (i, w) in self.welds.iter().enumerate() {
            self.check_weld(format!("welds[{i}]"), w, n)?;
        }
        Ok(())
    }

    /// Checks one weld (named `seam`) of `self` on a mesh of `n` vertices: its sources in
    /// range and none a weld target, its coordinates finite and barycentric. Its target
    /// was claimed by [`Seams::check`].
    fn check_weld(&self, seam: String, w: &Weld, n: usize) -> Result<()> {
        for &s in &w.from {
            if s >= n {
                return Err(SeamError::SeamVertexOutOfRange {
                    seam,
                    vertex: s,
                    vertex_count: n,
                }
                .into());
            }
            if self.welds.iter().any(|o| o.vertex == s) {
                return Err(SeamError::InvalidSeam {
                    seam,
                    problem: SeamProblem::ChainedWeld { vertex: s },
                }
                .into());
            }
        }
        if !w.at.iter().all(|a| a.is_finite()) {
            return Err(SeamError::InvalidSeam {
                seam,
                problem: SeamProblem::NonFiniteBarycentric {
                    vertex: w.vertex,
                    at: w.at,
                },
            }
            .into());
        }
        let sum: f64 = w.at.iter().sum();
        if w.at.iter().any(|&a| a < -BARYCENTRIC_TOLERANCE)
            || (sum - 1.0).abs() > BARYCENTRIC_TOLERANCE
        {
            return Err(SeamError::InvalidSeam {
                seam,
                problem: SeamProblem::NotBarycentric {
                    vertex: w.vertex,
                    at: w.at,
                },
            }
            .into());
        }
        Ok(())
    }

    /// Applies the seams to `weights` (one row per vertex): every joint's members get their
    /// mean row, then every weld target the interpolated row of its source triangle. Rows stay
    /// non-negative and sum to 1 (means and convex combinations of such rows). Errors:
    /// [`SeamError::SeamVertexOutOfRange`] for weights of fewer vertices than a seam names.
    pub fn join(&self, weights: &mut Weights) -> Result<()> {
        let n = weights.vertex_count();
        let bones = weights.bone_count();
        let out_of_range = |seam: String, v: usize| {
            Error::Seam(SeamError::SeamVertexOutOfRange {
                seam,
                vertex: v,
                vertex_count: n,
            })
        };
        let mut mean = vec![0.0; bones];
        for (i, group) in self.joints.iter().enumerate() {
            mean.iter_mut().for_each(|m| *m = 0.0);
            for &v in group {
                if v >= n {
                    return Err(out_of_range(format!("joints[{i}]"), v));
                }
                mean.iter_mut()
                    .zip(weights.row(v))
                    .for_each(|(m, w)| *m += w);
            }
            let k = group.len() as f64;
            mean.iter_mut().for_each(|m| *m /= k);
            for &v in group {
                weights.row_mut_unchecked(v).copy_from_slice(&mean);
            }
        }
        for (i, w) in self.welds.iter().enumerate() {
            if let Some(&v) = std::iter::once(&w.vertex).chain(&w.from).find(|&&v| v >= n) {
                return Err(out_of_range(format!("welds[{i}]"), v));
            }
            mean.iter_mut().for_each(|m| *m = 0.0);
            for (&s, &a) in w.from.iter().zip(&w.at) {
                mean.iter_mut()
                    .zip(weights.row(s))
                    .for_each(|(m, x)| *m += a * x);
            }
            let sum: f64 = mean.iter().sum();
            weights
                .row_mut_unchecked(w.vertex)
                .iter_mut()
                .zip(&mean)
                .for_each(|(x, m)| *x = m / sum);
        }
        Ok(())
    }

    /// The largest weight difference (any bone) across a seam: between members of a joint,
    /// and between a weld target and its interpolated source row. 0 after [`Seams::join`]
    /// up to rounding.
    pub fn max_weight_difference(&self, weights: &Weights) -> f64 {
        let mut worst: f64 = 0.0;
        for group in &self.joints {
            let r0 = weights.row(group[0]);
            for &v in &group[1..] {
                for (a, b) in r0.iter().zip(weights.row(v)) {
                    worst = worst.max((a - b).abs());
                }
            }
        }
        for w in &self.welds {
            for b in 0..weights.bone_count() {
                let src: f64 = w
                    .from
                    .iter()
                    .zip(&w.at)
                    .map(|(&s, a)| a * weights.get(s, b))
                    .sum();
                worst = worst.max((weights.get(w.vertex, b) - src).abs());
            }
        }
        worst
    }

    /// The largest opening in posed positions: the distance between members of a joint (the
    /// crack at the elbow). Welds are not openings (an overlap that follows
    /// the layer under it is not a crack) and are left out.
    pub fn max_opening(&self, posed: &[Point2<f64>]) -> f64 {
        self.joints
            .iter()
            .flat_map(|g| g[1..].iter().map(move |&v| (posed[v] - posed[g[0]]).norm()))
            .fold(0.0, f64::max)
    }
}

/// Records that `seam` uses vertex `v` of a mesh of `used.len()` vertices, for
/// [`Seams::check`]: an error if `v` is out of range or already used (naming the seam that
/// used it first).
fn claim(seam: &str, v: usize, used: &mut [Option<String>]) -> Result<()> {
    let n = used.len();
    if v >= n {
        return Err(SeamError::SeamVertexOutOfRange {
            seam: seam.to_string(),
            vertex: v,
            vertex_count: n,
        }
        .into());
    }
    if let Some(first) = &used[v] {
        return Err(SeamError::SeamVertexRepeated {
            seam: seam.to_string(),
            vertex: v,
            first: first.clone(),
        }
        .into());
    }
    used[v] = Some(seam.to_string());
    Ok(())
}

/// Checks one joint (named `seam`) for [`Seams::check`]: two or more members, each
/// claimed in `used`, all within [`JOINT_TOLERANCE`] of the first at rest.
fn check_joint(
    seam: String,
    group: &[usize],
    rest: &[Point2<f64>],
    used: &mut [Option<String>],
) -> Result<()> {
    if group.len() < 2 {
        return Err(SeamError::InvalidSeam {
            seam,
            problem: SeamProblem::TooFewMembers {
                members: group.len(),
            },
        }
        .into());
    }
    for &v in group {
        claim(&seam, v, used)?;
    }
    let p0 = rest[group[0]];
    for &v in &group[1..] {
        let d = (rest[v] - p0).norm();
        if d.is_nan() || d > JOINT_TOLERANCE {
            return Err(SeamError::SeamSpread {
                seam,
                vertex: v,
                other: group[0],
                distance: d,
            }
            .into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_averages_joints_and_interpolates_welds() {
        let rows = vec![
            vec![1.0, 0.0],
            vec![0.0, 1.0],
            vec![0.5, 0.5],
            vec![1.0, 0.0],
            vec![0.0, 1.0],
            vec![0.3, 0.7],
        ];
        let mut w = Weights::from_rows(&rows, 2).unwrap();
        let seams = Seams {
            joints: vec![vec![0, 1]],
            welds: vec![Weld {
                vertex: 5,
                from: [2, 3, 4],
                at: [0.5, 0.25, 0.25],
            }],
        };
        assert!(seams.max_weight_difference(&w) > 0.9);
        seams.join(&mut w).unwrap();
        assert_eq!(w.row(0), &[0.5, 0.5]);
        assert_eq!(w.row(1), &[0.5, 0.5]);
        assert_eq!(w.row(5), &[0.5, 0.5]);
        assert_eq!(seams.max_weight_difference(&w), 0.0);
    }
}
