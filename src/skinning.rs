//! Deforming a mesh with its weights: linear blend skinning (the reference CPU loop).

use crate::error::{Error, Result, SkeletonError, WeightsError, WeightsShapeProblem};
use crate::skeleton::{Affine2, Pose, Skeleton};
use crate::weights::Weights;
use nalgebra::{Isometry2, Point2};
use rayon::prelude::*;

/// Smallest weight sum the blend divides by (the reference loop's `epsilon`).
pub const WEIGHT_SUM_EPSILON: f64 = 1e-12;

/// Blends already-transformed positions `(weight, position)` **without** normalizing:
/// `sum_j w_j p_j`. With weights summing to less than 1 the result shrinks toward the origin;
/// this is what an engine that skips normalization computes.
pub fn blend_raw(influences: &[(f64, Point2<f64>)]) -> Point2<f64> {
    let mut out = Point2::origin();
    for &(w, p) in influences {
        out.coords += w * p.coords;
    }
    out
}

/// Blends transformed positions as the reference loop does: negative weights are
/// clamped to 0 and the sum is divided by `max(weight sum, epsilon)`.
pub fn blend(influences: &[(f64, Point2<f64>)]) -> Point2<f64> {
    let mut out = Point2::origin();
    let mut sum = 0.0;
    for &(w, p) in influences {
        let w = w.max(0.0);
        out.coords += w * p.coords;
        sum += w;
    }
    Point2::from(out.coords / sum.max(WEIGHT_SUM_EPSILON))
}

/// Linear blend skinning of every rest position with per-bone skinning transforms
/// `S_j = M_j B_j^-1` given as isometries (converted exactly to [`Affine2`]; see
/// [`lbs_with_affines`]).
pub fn lbs_with_transforms(
    rest: &[Point2<f64>],
    weights: &Weights,
    transforms: &[Isometry2<f64>],
) -> Result<Vec<Point2<f64>>> {
    let affines: Vec<Affine2> = transforms.iter().map(Affine2::from_isometry).collect();
    lbs_with_affines(rest, weights, &affines)
}

/// Linear blend skinning of every rest position with per-bone affine skinning transforms
/// `S_j = W_j(pose) W_j(rest)^-1`:
/// `v' = sum_j max(w_j, 0) S_j v / max(sum_j max(w_j, 0), epsilon)`.
pub fn lbs_with_affines(
    rest: &[Point2<f64>],
    weights: &Weights,
    transforms: &[Affine2],
) -> Result<Vec<Point2<f64>>> {
    let mut out = Vec::new();
    lbs_with_affines_into(rest, weights, transforms, &mut out)?;
    Ok(out)
}

/// [`lbs_with_affines`] into `out` (resized to one position per vertex), so a caller posing
/// many frames reuses one buffer.
pub fn lbs_with_affines_into(
    rest: &[Point2<f64>],
    weights: &Weights,
    transforms: &[Affine2],
    out: &mut Vec<Point2<f64>>,
) -> Result<()> {
    check_shape(rest.len(), weights, transforms.len())?;
    out.resize(rest.len(), Point2::origin());
    let nb = transforms.len().max(1);
    out.par_chunks_mut(LBS_CHUNK)
        .zip(rest.par_chunks(LBS_CHUNK))
        .zip(weights.as_slice().par_chunks(LBS_CHUNK * nb))
        .for_each(|((out, rest), rows)| {
            for ((o, v), row) in out.iter_mut().zip(rest).zip(rows.chunks_exact(nb)) {
                *o = lbs_vertex(*v, row, transforms);
            }
        });
    Ok(())
}

/// Vertices per parallel task of the LBS loops (large enough that task overhead is noise).
pub(crate) const LBS_CHUNK: usize = 4096;

/// One vertex of [`lbs_with_affines`]: the one place its arithmetic is written for dense rows
/// (the clip metrics' fused loop does the same sums over a row's nonzero entries, in the
/// same order, so its positions are bit-identical).
#[inline]
pub(crate) fn lbs_vertex(v: Point2<f64>, row: &[f64], transforms: &[Affine2]) -> Point2<f64> {
    let mut out = nalgebra::Vector2::zeros();
    let mut sum = 0.0;
    for (j, &w) in row.iter().enumerate() {
        let w = w.max(0.0);
        if w == 0.0 {
            continue;
        }
        out += w * transforms[j].apply(v).coords;
        sum += w;
    }
    Point2::from(out / sum.max(WEIGHT_SUM_EPSILON))
}

/// Chosen rows of a weights matrix as their nonzero entries (clamped at 0 as
/// [`lbs_vertex`] clamps), in bone order: skinning a few vertices of a rig with many bones
/// then reads a handful of entries per vertex instead of a whole row, with the same sums in
/// the same order (bit-identical positions).
#[derive(Debug, Clone)]
pub(crate) struct SparseRows {
    /// Per chosen vertex (and one past the last), the index of its first entry.
    start: Vec<usize>,
    bone: Vec<u32>,
    w: Vec<f64>,
}

impl SparseRows {
    /// The rows of `vertices` (in that order) of `weights`.
    pub(crate) fn new(weights: &Weights, vertices: impl IntoIterator<Item = usize>) -> Self {
        let mut rows = SparseRows {
            start: vec![0],
            bone: Vec::new(),
            w: Vec::new(),
        };
        for v in vertices {
            for (j, &w) in weights.row(v).iter().enumerate() {
                let w = w.max(0.0);
                if w != 0.0 {
                    rows.bone.push(j as u32);
                    rows.w.push(w);
                }
            }
            rows.start.push(rows.bone.len());
        }
        rows
    }

    /// The `k`-th chosen vertex, at rest position `v`, skinned with `transforms` (as
    /// [`lbs_vertex`] computes it).
    #[inline]
    pub(crate) fn skin(&self, k: usize, v: Point2<f64>, transforms: &[Affine2]) -> Point2<f64> {
        let e = self.start[k]..self.start[k + 1];
        let mut out = nalgebra::Vector2::zeros();
        let mut sum = 0.0;
        for (&j, &w) in self.bone[e.clone()].iter().zip(&self.w[e]) {
            out += w * transforms[j as usize].apply(v).coords;
            sum += w;
        }
        Point2::from(out / sum.max(WEIGHT_SUM_EPSILON))
    }
}

/// Linear blend skinning of `rest` positions for a pose of `skeleton` (the affine path:
/// rotation, translation, scale, shear and every inherit mode).
pub fn linear_blend_skinning(
    rest: &[Point2<f64>],
    skeleton: &Skeleton,
    weights: &Weights,
    pose: &Pose,
) -> Result<Vec<Point2<f64>>> {
    let transforms = skeleton.skinning_affines(pose)?;
    lbs_with_affines(rest, weights, &transforms)
}

pub(crate) fn check_shape(n_vertices: usize, weights: &Weights, n_bones: usize) -> Result<()> {
    if weights.vertex_count() != n_vertices || weights.bone_count() != n_bones {
        return Err(WeightsError::WeightsShape {
            problem: WeightsShapeProblem::Dimensions {
                context: "scene".into(),
                found: (weights.vertex_count(), weights.bone_count()),
                expected: (n_vertices, n_bones),
            },
        }
        .into());
    }
    Ok(())
}

/// 2D dual-quaternion skinning: blends the bones' rigid transforms on the group of rigid
/// motions instead of averaging matrices, so a joint keeps its width at any bend (no
/// candy-wrapper collapse), at the cost of slight bulging outside the joint.
///
/// Each planar transform is a unit dual quaternion rotating about z; quaternions are
/// sign-aligned with the vertex's heaviest bone (shortest path), blended with the clamped
/// weights, normalized, and applied. Negative weights are clamped to 0 as in LBS.
pub fn dual_quaternion_skinning(
    rest: &[Point2<f64>],
    skeleton: &Skeleton,
    weights: &Weights,
    pose: &Pose,
) -> Result<Vec<Point2<f64>>> {
    let transforms = skeleton.skinning_transforms(pose)?;
    dqs_with_transforms(rest, weights, &transforms)
}

/// [`dual_quaternion_skinning`] with precomputed skinning transforms `S_j = M_j B_j^-1`.
pub fn dqs_with_transforms(
    rest: &[Point2<f64>],
    weights: &Weights,
    transforms: &[Isometry2<f64>],
) -> Result<Vec<Point2<f64>>> {
    use nalgebra::{
        DualQuaternion, Isometry3, Point3, UnitDualQuaternion, UnitQuaternion, Vector3,
    };
    check_shape(rest.len(), weights, transforms.len())?;
    let dqs: Vec<DualQuaternion<f64>> = transforms
        .iter()
        .map(|t| {
            let iso3 = Isometry3::from_parts(
                Vector3::new(t.translation.x, t.translation.y, 0.0).into(),
                UnitQuaternion::from_axis_angle(&Vector3::z_axis(), t.rotation.angle()),
            );
            *UnitDualQuaternion::from_isometry(&iso3).dual_quaternion()
        })
        .collect();
    let rows: Vec<&[f64]> = weights.rows().collect();
    Ok(rest
        .par_iter()
        .zip(rows.into_par_iter())
        .map(|(v, row)| {
            let pivot = (0..row.len())
                .max_by(|&a, &b| row[a].total_cmp(&row[b]))
                .unwrap_or(0);
            let mut sum = DualQuaternion::from_real_and_dual(
                nalgebra::Quaternion::new(0.0, 0.0, 0.0, 0.0),
                nalgebra::Quaternion::new(0.0, 0.0, 0.0, 0.0),
            );
            for (j, &w) in row.iter().enumerate() {
                let w = w.max(0.0);
                if w == 0.0 {
                    continue;
                }
                let q = dqs[j];
                // Antipodal quaternions are the same rotation; blend along the short way.
                let s = if q.real.coords.dot(&dqs[pivot].real.coords) < 0.0 {
                    -w
                } else {
                    w
                };
                sum += q * s;
            }
            if sum.real.norm() < WEIGHT_SUM_EPSILON {
                // All-zero weights: the LBS loop would send the vertex to the origin too.
                return Point2::origin();
            }
            let unit = UnitDualQuaternion::new_normalize(sum);
            let p = unit.transform_point(&Point3::new(v.x, v.y, 0.0));
            Point2::new(p.x, p.y)
        })
        .collect())
}

/// A half-angle helper bone at a joint: it sits on the child's head, follows the parent, and
/// always holds half the parent-child angle. Weights where parent and child blend are moved
/// onto it so no two weighted bones are more than half the bend apart: an equal blend then
/// loses cos(θ/4) of its width instead of cos(θ/2).
#[derive(Debug, Clone, PartialEq)]
pub struct HalfAngleHelper {
    /// Index of the parent bone.
    pub parent: usize,
    /// Index of the child bone.
    pub child: usize,
    /// Index of the helper bone in the extended skeleton.
    pub helper: usize,
    /// Name of the helper bone.
    pub name: String,
}

impl HalfAngleHelper {
    /// Adds a helper at the joint of bone `child` (which must have a parent) and moves the
    /// blend onto it. For a vertex with parent weight `1 - c` and child weight `c` (their
    /// sum `s` and other bones are kept): `c <= s/2` gives parent `s - 2c`, helper `2c`;
    /// otherwise helper `2(s - c)`, child `2c - s`.
    pub fn add(
        skeleton: &Skeleton,
        weights: &Weights,
        child: &str,
    ) -> Result<(Skeleton, Weights, Self)> {
        let c = skeleton.index_of(child).ok_or_else(|| {
            Error::Skeleton(SkeletonError::UnknownBone {
                context: "half-angle helper".into(),
                bone: child.to_string(),
            })
        })?;
        let p = skeleton.bones()[c].parent.ok_or_else(|| {
            Error::Skeleton(SkeletonError::HelperWithoutJoint {
                bone: child.to_string(),
            })
        })?;
        check_shape(weights.vertex_count(), weights, skeleton.len())?;
        let name = format!("{child}_half");
        let mut bones = skeleton.bones().to_vec();
        let cb = &bones[c];
        let mut helper = crate::skeleton::Bone::new(name.clone(), cb.head, cb.tail).with_parent(p);
        helper.part = cb.part.clone();
        bones.push(helper);
        let extended = Skeleton::new(bones)?;
        let h = extended.len() - 1;
        let mut out = Weights::zeros_unchecked(weights.vertex_count(), extended.len());
        for (v, row) in weights.rows().enumerate() {
            let dst = out.row_mut_unchecked(v);
            dst[..row.len()].copy_from_slice(row);
            let (wp, wc) = (row[p].max(0.0), row[c].max(0.0));
            let s = wp + wc;
            if wp > 0.0 && wc > 0.0 {
                if wc <= s / 2.0 {
                    dst[p] = s - 2.0 * wc;
                    dst[h] = 2.0 * wc;
                    dst[c] = 0.0;
                } else {
                    dst[p] = 0.0;
                    dst[h] = 2.0 * (s - wc);
                    dst[c] = 2.0 * wc - s;
                }
            }
        }
        Ok((
            extended,
            out,
            HalfAngleHelper {
                parent: p,
                child: c,
                helper: h,
                name,
            },
        ))
    }

    /// The pose for the extended skeleton: `pose` plus the helper's rotation, half the
    /// child's.
    pub fn drive(&self, skeleton: &Skeleton, pose: &Pose) -> Pose {
        let child = &skeleton.bones()[self.child].name;
        let theta = pose.rotations.get(child).copied().unwrap_or(0.0);
        let mut out = pose.clone();
        out.rotations.insert(self.name.clone(), theta / 2.0);
        out
    }
}
