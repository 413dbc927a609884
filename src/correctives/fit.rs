//! Automatic correctives: for each key angle, offsets in the joint's band that restore the
//! rest shape as far as possible while the bones hold everything outside the band.
//!
//! **Band.** The vertices within [`AutoCorrectiveOptions::band_radius`] of the joint (the
//! child bone's head) at rest, in the mesh component that holds the joint and, when the two
//! bones name parts, in the parent's or the child's part. The default radius is 3 joint
//! half-widths, the half-width being the distance from the joint to the nearest mesh
//! boundary (20 px on the 40 px bar, so the band spans 120 px of it): long enough that the
//! bend can spread over more than the bar's width and the inner side need not fold.
//!
//! **Fit.** As-rigid-as-possible (Sorkine and Alexa 2007) with the cotangent weights `w_ij`
//! of [`crate::mesh::CotanLaplacian`]: the band's posed positions `x` minimise
//!
//! ```text
//! E(x) = sum over vertices i, neighbours j of  w_ij |(x_i - x_j) - R_i (p_i - p_j)|²
//! ```
//!
//! (`p` the rest positions, `R_i` a rotation per vertex), with every vertex outside the band
//! held where linear blend skinning puts it for the key's pose (the joint rotated by the key
//! angle, every other bone at rest). The band starts from dual-quaternion skinning. Local step: each `R_i` is the rotation that best maps the
//! rest edges around `i` onto the current ones (`atan2(S_01 - S_10, S_00 + S_11)` of
//! `S = sum_j w_ij (p_i - p_j)(x_i - x_j)^T`). Global step: `L_FF x_F = b_F + w_FC x_C`,
//! `b_i = sum_j w_ij (R_i + R_j)(p_i - p_j) / 2`, one sparse Cholesky factorization of the
//! band's Laplacian (faer, as the heat solver) reused for every iteration and key.
//! Iterations stop when no vertex moves more than
//! [`AutoCorrectiveOptions::tolerance`]. The offsets are the fitted minus the LBS positions.

use super::{Corrective, CorrectiveKey, Interpolation};
use crate::error::{Error, Result};
use crate::geometry::Segment;
use crate::mesh::CotanLaplacian;
use crate::scene::Scene;
use crate::skeleton::Pose;
use crate::skinning::{check_shape, dqs_with_transforms, lbs_with_transforms};
use crate::solvers::Factorization;
use crate::weights::Weights;
use faer::sparse::{SparseColMat, SymbolicSparseColMat};
use faer::Mat;
use nalgebra::{Point2, Vector2};

/// Settings of [`auto_corrective`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AutoCorrectiveOptions {
    /// Radius of the band around the joint, px. Default: `None`, [`DEFAULT_BAND_HALF_WIDTHS`]
    /// joint half-widths.
    pub band_radius: Option<f64>,
    /// Most local/global iterations per key. Default: [`DEFAULT_ITERATIONS`].
    pub iterations: usize,
    /// Stop when no band vertex moved more than this in an iteration, px. Default:
    /// [`DEFAULT_TOLERANCE`].
    pub tolerance: f64,
    /// Interpolation of the resulting corrective. Default: [`Interpolation::Smooth`].
    pub interpolation: Interpolation,
}

/// Default band radius in joint half-widths.
pub const DEFAULT_BAND_HALF_WIDTHS: f64 = 3.0;
/// Default iteration limit.
pub const DEFAULT_ITERATIONS: usize = 1000;
/// Default convergence tolerance, px.
pub const DEFAULT_TOLERANCE: f64 = 1e-6;

impl Default for AutoCorrectiveOptions {
    fn default() -> Self {
        AutoCorrectiveOptions {
            band_radius: None,
            iterations: DEFAULT_ITERATIONS,
            tolerance: DEFAULT_TOLERANCE,
            interpolation: Interpolation::Smooth,
        }
    }
}

impl AutoCorrectiveOptions {
    /// Sets the band radius (px).
    pub fn with_band_radius(mut self, radius: f64) -> Self {
        self.band_radius = Some(radius);
        self
    }
    /// Sets the iteration limit.
    pub fn with_iterations(mut self, iterations: usize) -> Self {
        self.iterations = iterations;
        self
    }
    /// Sets the convergence tolerance (px).
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }
    /// Sets the interpolation of the result.
    pub fn with_interpolation(mut self, interpolation: Interpolation) -> Self {
        self.interpolation = interpolation;
        self
    }

    fn check(&self) -> Result<()> {
        if let Some(r) = self.band_radius {
            if !(r.is_finite() && r > 0.0) {
                return Err(Error::InvalidOption {
                    option: "band_radius".into(),
                    message: format!("{r} is not a finite number > 0"),
                });
            }
        }
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            return Err(Error::InvalidOption {
                option: "tolerance".into(),
                message: format!("{} is not a finite number > 0", self.tolerance),
            });
        }
        if self.iterations == 0 {
            return Err(Error::InvalidOption {
                option: "iterations".into(),
                message: "must be at least 1".into(),
            });
        }
        Ok(())
    }
}

/// An automatic corrective and how it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoCorrective {
    /// The corrective (keys at the requested angles).
    pub corrective: Corrective,
    /// The joint's half-width: distance from the joint to the nearest mesh boundary, px.
    pub half_width: f64,
    /// The band radius used, px.
    pub band_radius: f64,
    /// Iterations each key took.
    pub iterations: Vec<usize>,
    /// The largest offset of each key, px.
    pub max_offset: Vec<f64>,
}

/// Fits an automatic corrective for the joint at bone `joint` (which must have a parent) of
/// `scene` skinned with `weights`, one key per angle of `angles` (degrees, strictly
/// increasing): see the module docs.
///
/// Errors: the corrective's own ([`Error::UnknownBone`], [`Error::NotAJoint`],
/// [`Error::NonFiniteCorrective`], [`Error::CorrectiveAngleOrder`],
/// [`Error::EmptyCorrective`]), bad options ([`Error::InvalidOption`]), a weights shape that
/// does not fit, a joint on the boundary or a band that nothing outside it holds
/// ([`Error::InvalidOption`] naming `band_radius`).
pub fn auto_corrective(
    scene: &Scene,
    weights: &Weights,
    joint: &str,
    angles: &[f64],
    options: &AutoCorrectiveOptions,
) -> Result<AutoCorrective> {
    options.check()?;
    let mesh = &scene.mesh;
    let skeleton = &scene.skeleton;
    check_shape(mesh.vertex_count(), weights, skeleton.len())?;
    // Validate joint and angles before any work: a corrective with empty offsets checks both.
    let probe = Corrective {
        joint: joint.to_string(),
        vertices: Vec::new(),
        keys: angles
            .iter()
            .map(|&angle| CorrectiveKey {
                angle,
                offsets: Vec::new(),
            })
            .collect(),
        interpolation: options.interpolation,
    };
    probe.check(skeleton, mesh.vertex_count())?;
    let j = skeleton.index_of(joint).unwrap_or(0);
    let bone = &skeleton.bones()[j];
    let parent = bone.parent.unwrap_or(0);
    let center = bone.head;
    let rest = mesh.vertices();

    let half_width = mesh
        .topology()
        .boundary_edges()
        .iter()
        .map(|&[a, b]| Segment::new(rest[a], rest[b]).distance(&center))
        .fold(f64::INFINITY, f64::min);
    if !(half_width > 0.0 && half_width.is_finite()) {
        return Err(Error::InvalidOption {
            option: "band_radius".into(),
            message: format!(
                "joint {joint:?} at ({}, {}) lies on the mesh boundary: it has no width to restore",
                center.x, center.y
            ),
        });
    }
    let band_radius = options
        .band_radius
        .unwrap_or(DEFAULT_BAND_HALF_WIDTHS * half_width);
    let band = band_vertices(scene, j, parent, band_radius);
    if band.is_empty() {
        return Err(Error::InvalidOption {
            option: "band_radius".into(),
            message: format!(
                "no vertex of the joint's parts lies within {band_radius} px of joint {joint:?}"
            ),
        });
    }
    let system = ArapSystem::new(scene, &band)?;

    let mut keys = Vec::with_capacity(angles.len());
    let mut iterations = Vec::with_capacity(angles.len());
    let mut max_offset = Vec::with_capacity(angles.len());
    for &angle in angles {
        let pose = Pose::rest().rotate(joint, angle);
        let transforms = skeleton.skinning_transforms(&pose)?;
        let lbs = lbs_with_transforms(rest, weights, &transforms)?;
        // Start the band from dual quaternions (no collapse, no fold: ARAP started from the
        // folded LBS joint stays folded), every other vertex held where LBS puts it.
        let mut start = dqs_with_transforms(rest, weights, &transforms)?;
        for (v, p) in start.iter_mut().enumerate() {
            if system.slot[v] == usize::MAX {
                *p = lbs[v];
            }
        }
        let (fitted, its) = system.fit(&start, options.iterations, options.tolerance)?;
        let offsets: Vec<Vector2<f64>> = band.iter().map(|&v| fitted[v] - lbs[v]).collect();
        max_offset.push(offsets.iter().map(|o| o.norm()).fold(0.0, f64::max));
        iterations.push(its);
        // The parent is at rest in the key's pose: world offsets are its frame's offsets.
        keys.push(CorrectiveKey { angle, offsets });
    }
    let corrective = Corrective {
        joint: joint.to_string(),
        vertices: band,
        keys,
        interpolation: options.interpolation,
    };
    corrective.check(skeleton, mesh.vertex_count())?;
    Ok(AutoCorrective {
        corrective,
        half_width,
        band_radius,
        iterations,
        max_offset,
    })
}

/// The band of the joint at bone `j` (parent `p`), sorted: see the module docs.
fn band_vertices(scene: &Scene, j: usize, p: usize, radius: f64) -> Vec<usize> {
    let mesh = &scene.mesh;
    let rest = mesh.vertices();
    let center = scene.skeleton.bones()[j].head;
    let parts = scene.bone_parts();
    let allowed: Vec<usize> = [parts[j], parts[p]].into_iter().flatten().collect();
    let component = mesh.topology().component_of();
    let nearest = (0..rest.len())
        .min_by(|&a, &b| {
            (rest[a] - center)
                .norm()
                .total_cmp(&(rest[b] - center).norm())
        })
        .unwrap_or(0);
    (0..rest.len())
        .filter(|&v| {
            (rest[v] - center).norm() < radius
                && component[v] == component[nearest]
                && (allowed.is_empty() || allowed.contains(&mesh.vertex_parts()[v]))
        })
        .collect()
}

/// The ARAP system of one band: neighbour weights, the band's factorized Laplacian.
struct ArapSystem<'s> {
    rest: &'s [Point2<f64>],
    /// Band vertices (sorted) and each vertex's position in the band (`usize::MAX` outside).
    band: Vec<usize>,
    slot: Vec<usize>,
    /// Vertices whose rotation the global step needs: the band and its neighbours.
    active: Vec<usize>,
    /// Neighbours and cotangent weights `w_ij` of every vertex (full symmetric matrix).
    ptr: Vec<usize>,
    rows: Vec<usize>,
    vals: Vec<f64>,
    factor: Factorization,
}

impl<'s> ArapSystem<'s> {
    fn new(scene: &'s Scene, band: &[usize]) -> Result<Self> {
        let mesh = &scene.mesh;
        let n = mesh.vertex_count();
        let full: SparseColMat<usize, f64> = CotanLaplacian::new(mesh).matrix()?;
        let (ptr, rows, vals) = (
            full.symbolic().col_ptr().to_vec(),
            full.symbolic().row_idx().to_vec(),
            full.val().to_vec(),
        );
        let mut slot = vec![usize::MAX; n];
        for (k, &v) in band.iter().enumerate() {
            slot[v] = k;
        }
        // Every connected piece of the band needs a held neighbour, or the Laplacian of the
        // band is singular (the piece could move anywhere).
        let mut seen = vec![false; band.len()];
        for start in 0..band.len() {
            if seen[start] {
                continue;
            }
            seen[start] = true;
            let mut stack = vec![start];
            let mut held = false;
            while let Some(k) = stack.pop() {
                let v = band[k];
                for &u in &rows[ptr[v]..ptr[v + 1]] {
                    if u == v {
                        continue;
                    }
                    match slot[u] {
                        usize::MAX => held = true,
                        s if !seen[s] => {
                            seen[s] = true;
                            stack.push(s);
                        }
                        _ => {}
                    }
                }
            }
            if !held {
                return Err(Error::InvalidOption {
                    option: "band_radius".into(),
                    message: format!(
                        "the band around the joint contains a whole piece of the mesh (vertex {}): nothing outside the band holds it, so shrink the radius",
                        band[start]
                    ),
                });
            }
        }
        let mut active: Vec<usize> = band.to_vec();
        for &v in band {
            active.extend(rows[ptr[v]..ptr[v + 1]].iter().copied());
        }
        active.sort_unstable();
        active.dedup();
        // Lower triangle of L_FF in band order (band sorted, so rows stay sorted).
        let nf = band.len();
        let mut col_ptr = Vec::with_capacity(nf + 1);
        let mut row_idx = Vec::new();
        let mut values = Vec::new();
        col_ptr.push(0);
        for &v in band {
            for p in ptr[v]..ptr[v + 1] {
                let s = slot[rows[p]];
                if s != usize::MAX && s >= slot[v] {
                    row_idx.push(s);
                    values.push(vals[p]);
                }
            }
            col_ptr.push(row_idx.len());
        }
        let lower = SparseColMat::new(
            SymbolicSparseColMat::new_checked(nf, nf, col_ptr, None, row_idx),
            values,
        );
        let factor = Factorization::new(&lower, None)?;
        Ok(ArapSystem {
            rest: mesh.vertices(),
            band: band.to_vec(),
            slot,
            active,
            ptr,
            rows,
            vals,
            factor,
        })
    }

    /// Neighbours of `v` with their weights `w_vu = -L_vu`.
    fn neighbours(&self, v: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        (self.ptr[v]..self.ptr[v + 1])
            .filter(move |&p| self.rows[p] != v)
            .map(move |p| (self.rows[p], -self.vals[p]))
    }

    /// ARAP from the start `start` (every vertex; those outside the band are held): the
    /// fitted positions and the iterations taken.
    fn fit(
        &self,
        start: &[Point2<f64>],
        max_iterations: usize,
        tolerance: f64,
    ) -> Result<(Vec<Point2<f64>>, usize)> {
        let p = self.rest;
        let mut x = start.to_vec();
        // Rotation (cos, sin) per active vertex, indexed like `x`.
        let mut rot = vec![(1.0, 0.0); x.len()];
        let nf = self.band.len();
        let mut rhs = Mat::<f64>::zeros(nf, 2);
        for it in 1..=max_iterations {
            for &i in &self.active {
                let (mut a, mut b) = (0.0, 0.0);
                for (j, w) in self.neighbours(i) {
                    let e = p[i] - p[j];
                    let f = x[i] - x[j];
                    // S = sum w e f^T; tr(R S) is maximal at atan2(S01 - S10, S00 + S11).
                    a += w * (e.x * f.x + e.y * f.y);
                    b += w * (e.x * f.y - e.y * f.x);
                }
                let r = a.hypot(b);
                rot[i] = if r > 0.0 { (a / r, b / r) } else { (1.0, 0.0) };
            }
            for (k, &i) in self.band.iter().enumerate() {
                let mut s = Vector2::zeros();
                for (j, w) in self.neighbours(i) {
                    let e = p[i] - p[j];
                    let (c, sn) = (rot[i].0 + rot[j].0, rot[i].1 + rot[j].1);
                    s += 0.5 * w * Vector2::new(c * e.x - sn * e.y, sn * e.x + c * e.y);
                    if self.slot[j] == usize::MAX {
                        s += w * x[j].coords;
                    }
                }
                rhs[(k, 0)] = s.x;
                rhs[(k, 1)] = s.y;
            }
            self.factor.solve_in_place(rhs.as_mut(), 1);
            let mut moved = 0.0f64;
            for (k, &i) in self.band.iter().enumerate() {
                let q = Point2::new(rhs[(k, 0)], rhs[(k, 1)]);
                if !(q.x.is_finite() && q.y.is_finite()) {
                    return Err(Error::LinearAlgebra {
                        message: format!("the corrective fit diverged at vertex {i}"),
                    });
                }
                moved = moved.max((q - x[i]).norm());
                x[i] = q;
            }
            if moved <= tolerance {
                return Ok((x, it));
            }
        }
        Ok((x, max_iterations))
    }
}
