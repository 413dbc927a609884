//! **linear**: the 1D linear falloff, generalized to a skeleton.
//!
//! Each vertex belongs to its nearest bone `j` (bones tied within `tie_tolerance` share the
//! vertex: their rows are averaged). Near a joint the weight is split linearly along the
//! bone axis, exactly as `w_child = clamp((x - (pivot - r)) / (2r), 0, 1)`,
//! `w_parent = 1 - w_child`, with `x - pivot` the signed distance along the child's axis from
//! the child's head:
//! - with `j`'s parent across `j`'s own head (any vertex nearest to `j`);
//! - with each child `c` whose head lies within `r` of the vertex's closest point on `j`
//!   (children elsewhere along `j`, like arms hanging off a spine, are not blended). When
//!   several children overlap, their shares are scaled so that they never exceed the total.
//!
//! Zero-length bones have no axis and are never blended.

use super::distance::{bone_segments, Segment};
use super::{check_number, finish, parse_number, OptionKey, Solution, Solver, SolverOptions};
use crate::error::{Result, SolverError};
use crate::scene::Scene;
use crate::skeleton::Bone;
use crate::weights::Weights;
use nalgebra::{Point2, Vector2};
use rayon::prelude::*;
use std::time::Instant;

/// Options of [`Linear`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LinearOptions {
    /// Blend radius `r` in scene units (key `blend_radius`); `None` means `blend_fraction`
    /// times the character height.
    ///
    /// Default: [`LinearOptions::DEFAULT_BLEND_RADIUS`] (`None`).
    pub blend_radius: Option<f64>,
    /// Blend radius as a fraction of the character height when `blend_radius` is `None`
    /// (key `blend_fraction`; 0.1: 20 px on a 200 px character).
    ///
    /// Default: [`LinearOptions::DEFAULT_BLEND_FRACTION`] (0.1).
    pub blend_fraction: f64,
    /// Bones whose distances differ by less than this fraction count as equally near and
    /// share the vertex (key `tie_tolerance`).
    ///
    /// Default: [`LinearOptions::DEFAULT_TIE_TOLERANCE`] (1e-9).
    pub tie_tolerance: f64,
}

impl LinearOptions {
    /// Default of [`LinearOptions::blend_radius`].
    pub const DEFAULT_BLEND_RADIUS: Option<f64> = None;
    /// Default of [`LinearOptions::blend_fraction`].
    pub const DEFAULT_BLEND_FRACTION: f64 = 0.1;
    /// Default of [`LinearOptions::tie_tolerance`].
    pub const DEFAULT_TIE_TOLERANCE: f64 = 1e-9;

    /// With [`LinearOptions::blend_radius`] set (`None`: `blend_fraction` x height).
    pub fn with_blend_radius(mut self, blend_radius: Option<f64>) -> Self {
        self.blend_radius = blend_radius;
        self
    }
    /// With [`LinearOptions::blend_fraction`] set.
    pub fn with_blend_fraction(mut self, blend_fraction: f64) -> Self {
        self.blend_fraction = blend_fraction;
        self
    }
    /// With [`LinearOptions::tie_tolerance`] set.
    pub fn with_tie_tolerance(mut self, tie_tolerance: f64) -> Self {
        self.tie_tolerance = tie_tolerance;
        self
    }
}

impl Default for LinearOptions {
    fn default() -> Self {
        LinearOptions {
            blend_radius: Self::DEFAULT_BLEND_RADIUS,
            blend_fraction: Self::DEFAULT_BLEND_FRACTION,
            tie_tolerance: Self::DEFAULT_TIE_TOLERANCE,
        }
    }
}

impl SolverOptions for LinearOptions {
    const SOLVER: &'static str = "linear";
    const OPTIONS: &'static [OptionKey<Self>] = &[
        OptionKey {
            key: "blend_radius",
            value: "R",
            doc: "half-width of the joint blend in px (unset: blend_fraction x height)",
            aliases: &[],
            get: |o| o.blend_radius.map(|r| r.to_string()),
            set: |o, k, v| {
                o.blend_radius = Some(parse_number(k, v, |x| x > 0.0, "> 0")?);
                Ok(())
            },
        },
        OptionKey {
            key: "blend_fraction",
            value: "F",
            doc: "blend radius as a fraction of the character height",
            aliases: &[],
            get: |o| Some(o.blend_fraction.to_string()),
            set: |o, k, v| {
                o.blend_fraction = parse_number(k, v, |x| x > 0.0, "> 0")?;
                Ok(())
            },
        },
        OptionKey {
            key: "tie_tolerance",
            value: "T",
            doc: "relative distance under which bones tie for nearest",
            aliases: &[],
            get: |o| Some(o.tie_tolerance.to_string()),
            set: |o, k, v| {
                o.tie_tolerance = parse_number(k, v, |x| x >= 0.0, ">= 0")?;
                Ok(())
            },
        },
    ];
}

/// The linear solver.
#[derive(Debug, Clone, Default)]
pub struct Linear {
    /// Its options.
    pub options: LinearOptions,
}

impl Linear {
    /// A solver with these options.
    pub fn new(options: LinearOptions) -> Self {
        Linear { options }
    }
}

/// A bone's joint frame: head and unit axis (`None` for a zero-length bone).
pub(crate) struct Axis {
    head: Point2<f64>,
    dir: Option<Vector2<f64>>,
}

impl Axis {
    /// The frame of `bone`.
    pub(crate) fn of(bone: &Bone) -> Self {
        let d = bone.tail - bone.head;
        let len = d.norm();
        Axis {
            head: bone.head,
            dir: (len > 0.0).then(|| d / len),
        }
    }
    /// The linear falloff's child weight at `p` for a joint at this bone's head.
    fn child_share(&self, p: &Point2<f64>, r: f64) -> Option<f64> {
        self.dir
            .map(|u| (((p - self.head).dot(&u) + r) / (2.0 * r)).clamp(0.0, 1.0))
    }
}

impl Solver for Linear {
    fn name(&self) -> String {
        "linear".into()
    }

    fn compute(&self, scene: &Scene) -> Result<Solution> {
        let started = Instant::now();
        let o = &self.options;
        let r = match o.blend_radius {
            Some(r) => check_number("blend_radius", r, |x| x > 0.0, "> 0")?,
            None => {
                check_number("blend_fraction", o.blend_fraction, |x| x > 0.0, "> 0")?
                    * scene.mesh.height().max(f64::MIN_POSITIVE)
            }
        };
        if !(2.0 * r).is_finite() {
            // The blend divides by 2r: infinite, every weight would be NaN.
            return Err(SolverError::InvalidOption {
                option: if o.blend_radius.is_some() {
                    "blend_radius"
                } else {
                    "blend_fraction"
                }
                .into(),
                message: format!(
                    "the blend half-width comes out {r:e} px, too wide to compute (2r overflows)"
                ),
            }
            .into());
        }
        let bones = scene.skeleton.bones();
        let nb = bones.len();
        let segments = bone_segments(bones);
        let axes: Vec<Axis> = bones.iter().map(Axis::of).collect();
        let mut children = vec![Vec::new(); nb];
        for (j, b) in bones.iter().enumerate() {
            if let Some(p) = b.parent {
                children[p].push(j);
            }
        }
        let pts = scene.mesh.vertices();
        let mut data = vec![0.0; pts.len() * nb];
        data.par_chunks_mut(nb).enumerate().for_each(|(v, row)| {
            let p = pts[v];
            let mut d_min = f64::INFINITY;
            for s in &segments {
                d_min = d_min.min(s.distance(&p));
            }
            let limit = d_min * (1.0 + o.tie_tolerance);
            let tied: Vec<usize> = (0..nb)
                .filter(|&j| segments[j].distance(&p) <= limit)
                .collect();
            let share = 1.0 / tied.len() as f64;
            for &j in &tied {
                add_row(row, j, &p, share, r, bones, &axes, &children, &segments[j]);
            }
        });
        let weights = Weights::from_row_major(data, nb)?;
        finish(self.name(), started, weights, Vec::new())
    }
}

/// Adds `scale` times the linear row of a vertex at `p` owned by bone `j`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn add_row(
    row: &mut [f64],
    j: usize,
    p: &Point2<f64>,
    scale: f64,
    r: f64,
    bones: &[Bone],
    axes: &[Axis],
    children: &[Vec<usize>],
    segment: &Segment,
) {
    let mut own = scale;
    if let Some(parent) = bones[j].parent {
        if let Some(t) = axes[j].child_share(p, r) {
            row[parent] += own * (1.0 - t);
            own *= t;
        }
    }
    let q = segment.closest_point(p);
    let shares: Vec<(usize, f64)> = children[j]
        .iter()
        .filter(|&&c| (bones[c].head - q).norm() <= r)
        .filter_map(|&c| axes[c].child_share(p, r).map(|f| (c, f)))
        .collect();
    split_among_children(row, j, own, &shares);
}

/// Adds `own` to bone `j`'s entry of `row`, minus what its children take: each child `c`
/// gets `own * f_c`, scaled down together when the shares sum past 1 so the row keeps its sum.
pub(crate) fn split_among_children(row: &mut [f64], j: usize, own: f64, shares: &[(usize, f64)]) {
    let total: f64 = shares.iter().map(|&(_, f)| f).sum();
    let norm = total.max(1.0);
    for &(c, f) in shares {
        row[c] += own * f / norm;
    }
    row[j] += own * (1.0 - total / norm);
}
