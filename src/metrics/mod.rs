//! Metrics: how good a set of weights is, measured on a scene with a probe.
//!
//! [`interpenetration()`] (`interpenetration.rs`): where a posed mesh covers the plane more than once.
//! [`clip`]: the same weights judged over whole animation clips.
//!
//! Every function takes plain values (scene, weights, probe) and returns numbers; nothing here
//! solves or draws. Distances are reported as a percentage of the character height (the rest
//! mesh's bounding-box height) so results compare across scenes.

pub mod artist;
pub mod clip;
mod interpenetration;
mod quantile;
pub mod weight_style;

pub use interpenetration::{
    interpenetration, EdgeCrossing, Interpenetration, InterpenetrationReport, LayerOverlap,
};

use crate::error::{Error, MeshError, Result, SceneError, SkeletonError};
use crate::mesh::{signed_area2, Mesh};
use crate::scene::{Probe, Scene};
use crate::skeleton::Pose;
use crate::skinning::{check_shape, lbs_with_affines};
use crate::weights::Weights;
use nalgebra::{Matrix2, Point2};
use serde::{Deserialize, Serialize};

/// Default L1 jump between a vertex's weight row and a neighbour's above which the two count
/// as discontinuous (half of the largest possible jump, 2).
pub const DEFAULT_JUMP_THRESHOLD: f64 = 0.5;

/// All metrics of one weights set on one probe; field names are the `--json` keys of
/// docs/metrics.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Largest drag of a watched vertex, % of character height ([`drag`]).
    pub drag_max_pct: f64,
    /// Mean drag of the watched vertices, % of character height.
    pub drag_mean_pct: f64,
    /// Mean total weight of the moved bones on the watched vertices ([`leaked_weight`]).
    pub leaked_weight: f64,
    /// Triangles with signed area <= 0 in the probe pose ([`flipped_triangles`]).
    pub flipped: usize,
    /// Largest singular-value ratio of a triangle's deformation gradient ([`distortion`]).
    /// `null` in JSON when a triangle collapsed to zero area (infinite ratio).
    #[serde(with = "finite_or_null")]
    pub distortion_max: f64,
    /// 99th percentile (nearest rank) of the same ratio.
    #[serde(with = "finite_or_null")]
    pub distortion_p99: f64,
    /// Posed total signed area vs rest, % ([`area_change_pct`]).
    pub area_change_pct: f64,
    /// Max over vertices of |row sum - 1| ([`Weights::normalization_error`]).
    pub norm_err: f64,
    /// Max displacement when skinning the rest pose ([`bind_identity_error`]).
    pub bind_err: f64,
    /// Isolated weight discontinuities ([`isolated_discontinuities`]).
    pub discontinuities: usize,
    /// Dirichlet energy `sum_j w_j' L w_j` ([`dirichlet_energy`]).
    pub dirichlet: f64,
    /// Solver wall time in seconds (`null` for weights from a file).
    pub time_s: Option<f64>,
}

mod finite_or_null {
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            s.serialize_f64(*v)
        } else {
            s.serialize_none()
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
    }
}

/// Per-vertex drag of a probe's watched vertices.
#[derive(Debug, Clone, PartialEq)]
pub struct Drag {
    /// Watched vertex indices.
    pub vertices: Vec<usize>,
    /// Displacement of each watched vertex, in scene units.
    pub displacement: Vec<f64>,
    /// Character height used for percentages.
    pub height: f64,
}

impl Drag {
    /// Largest displacement, % of height (0 when nothing is watched).
    pub fn max_pct(&self) -> f64 {
        self.displacement.iter().copied().fold(0.0, f64::max) / self.height * 100.0
    }
    /// Mean displacement, % of height (0 when nothing is watched).
    pub fn mean_pct(&self) -> f64 {
        if self.displacement.is_empty() {
            return 0.0;
        }
        self.displacement.iter().sum::<f64>() / self.displacement.len() as f64 / self.height * 100.0
    }
}

/// Posed positions of every vertex for a pose (linear blend skinning).
pub fn posed_positions(scene: &Scene, weights: &Weights, pose: &Pose) -> Result<Vec<Point2<f64>>> {
    let transforms = scene.skeleton.skinning_affines(pose)?;
    lbs_with_affines(scene.mesh.vertices(), weights, &transforms)
}

/// The bone that "owns" each vertex: the nearest (at rest) among the bones driving the
/// vertex's part; `None` when no bone names that part.
pub fn owning_bones(scene: &Scene) -> Vec<Option<usize>> {
    let bones = scene.skeleton.bones();
    let bone_parts = scene.bone_parts();
    scene
        .mesh
        .vertices()
        .iter()
        .zip(scene.mesh.vertex_parts())
        .map(|(p, &part)| {
            let mut best: Option<(f64, usize)> = None;
            for (j, b) in bones.iter().enumerate() {
                if bone_parts[j] != Some(part) {
                    continue;
                }
                let d = b.segment().distance(p);
                if best.is_none_or(|(bd, _)| d < bd) {
                    best = Some((d, j));
                }
            }
            best.map(|(_, j)| j)
        })
        .collect()
}

/// Drag: after skinning the probe pose with LBS, the displacement of each watched vertex from
/// where its own part's bone alone would put it (`|v' - S_own v|`; a vertex whose part has no
/// bone is compared with its rest position).
pub fn drag(scene: &Scene, weights: &Weights, probe: &Probe) -> Result<Drag> {
    check_shape(scene.mesh.vertex_count(), weights, scene.skeleton.len())?;
    let transforms = scene.skeleton.skinning_affines(&probe.pose)?;
    let posed = lbs_with_affines(scene.mesh.vertices(), weights, &transforms)?;
    drag_of_positions(scene, probe, &posed)
}

/// The same drag for positions deformed by anything (e.g. another tool's armature
/// deformation of the probe pose): `posed` has one position per mesh vertex.
pub fn drag_of_positions(scene: &Scene, probe: &Probe, posed: &[Point2<f64>]) -> Result<Drag> {
    let rest = scene.mesh.vertices();
    if posed.len() != rest.len() {
        return Err(MeshError::PosedPositions {
            given: posed.len(),
            vertices: rest.len(),
        }
        .into());
    }
    let transforms = scene.skeleton.skinning_affines(&probe.pose)?;
    let watched = probe.watched_vertices(scene)?;
    if watched.is_empty() {
        // Nothing watched would measure a drag of 0: a pass that tested nothing.
        return Err(SceneError::ProbeWatchesNothing {
            probe: probe.name.clone(),
        }
        .into());
    }
    let owners = owning_bones(scene);
    let displacement = watched
        .iter()
        .map(|&v| {
            let target = match owners[v] {
                Some(j) => transforms[j] * rest[v],
                None => rest[v],
            };
            (posed[v] - target).norm()
        })
        .collect();
    Ok(Drag {
        vertices: watched,
        displacement,
        height: scene.mesh.height(),
    })
}

/// Bones a pose moves: those it rotates or translates, and their descendants.
pub fn moved_bones(scene: &Scene, pose: &Pose) -> Result<Vec<bool>> {
    let skeleton = &scene.skeleton;
    let mut direct = vec![false; skeleton.len()];
    for name in pose.moved_bones() {
        let j = skeleton.index_of(name).ok_or_else(|| {
            Error::Skeleton(SkeletonError::UnknownBone {
                context: "pose".into(),
                bone: name.to_string(),
            })
        })?;
        direct[j] = true;
    }
    Ok((0..skeleton.len())
        .map(|b| (0..skeleton.len()).any(|a| direct[a] && skeleton.is_ancestor_or_self(a, b)))
        .collect())
}

/// Leaked weight: mean over watched vertices of the total weight of the bones the probe moves.
pub fn leaked_weight(scene: &Scene, weights: &Weights, probe: &Probe) -> Result<f64> {
    check_shape(scene.mesh.vertex_count(), weights, scene.skeleton.len())?;
    let moved = moved_bones(scene, &probe.pose)?;
    let watched = probe.watched_vertices(scene)?;
    if watched.is_empty() {
        return Ok(0.0);
    }
    let total: f64 = watched
        .iter()
        .map(|&v| {
            weights
                .row(v)
                .iter()
                .zip(&moved)
                .filter(|(_, &m)| m)
                .map(|(w, _)| w)
                .sum::<f64>()
        })
        .sum();
    Ok(total / watched.len() as f64)
}

/// Number of triangles whose signed area is <= 0 at the posed positions.
pub fn flipped_triangles(mesh: &Mesh, posed: &[Point2<f64>]) -> usize {
    mesh.triangles()
        .iter()
        .filter(|t| signed_area2(&posed[t[0]], &posed[t[1]], &posed[t[2]]) <= 0.0)
        .count()
}

/// Per triangle, the ratio of the singular values (largest / smallest) of the 2x2
/// deformation gradient `F` that maps its rest edges onto its posed edges: 1 means a rigid
/// motion or uniform scale, larger means shear. Infinite for a triangle collapsed to a line.
pub fn distortion(mesh: &Mesh, posed: &[Point2<f64>]) -> Vec<f64> {
    let rest = mesh.vertices();
    mesh.triangles()
        .iter()
        .map(|&[a, b, c]| {
            let r = Matrix2::from_columns(&[rest[b] - rest[a], rest[c] - rest[a]]);
            let p = Matrix2::from_columns(&[posed[b] - posed[a], posed[c] - posed[a]]);
            // Validated meshes have no zero-area rest triangle, so r is invertible.
            let f = p * r.try_inverse().unwrap_or_else(Matrix2::zeros);
            let (s1, s2) = singular_values_2x2(&f);
            if s2 > 0.0 {
                s1 / s2
            } else {
                f64::INFINITY
            }
        })
        .collect()
}

/// Singular values (largest, smallest) of a 2x2 matrix in closed form.
pub fn singular_values_2x2(m: &Matrix2<f64>) -> (f64, f64) {
    let e = (m[(0, 0)] + m[(1, 1)]) * 0.5;
    let f = (m[(0, 0)] - m[(1, 1)]) * 0.5;
    let g = (m[(1, 0)] + m[(0, 1)]) * 0.5;
    let h = (m[(1, 0)] - m[(0, 1)]) * 0.5;
    let q = e.hypot(h);
    let r = f.hypot(g);
    (q + r, (q - r).abs())
}

/// Largest value and 99th percentile (nearest rank: the value at index ceil(0.99 n) - 1 of the
/// sorted list) of a list; `(0, 0)` for an empty one.
pub fn max_and_p99(values: &[f64]) -> (f64, f64) {
    match values.iter().copied().max_by(f64::total_cmp) {
        Some(max) => (max, percentile(values, 0.99)),
        None => (0.0, 0.0),
    }
}

/// The `q` quantile by nearest rank: the value at index `ceil(q n) - 1` of the sorted list
/// (0 for an empty list).
pub fn percentile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    let (_, x, _) = v.select_nth_unstable_by(rank - 1, f64::total_cmp);
    *x
}

/// Posed total signed area relative to rest, in percent (negative: area lost).
pub fn area_change_pct(mesh: &Mesh, posed: &[Point2<f64>]) -> f64 {
    let posed_area: f64 = mesh
        .triangles()
        .iter()
        .map(|t| signed_area2(&posed[t[0]], &posed[t[1]], &posed[t[2]]))
        .sum::<f64>()
        * 0.5;
    (posed_area / mesh.area() - 1.0) * 100.0
}

/// Bind identity: the largest displacement when the full skinning path runs with the rest
/// pose (the bind-identity check: below 1e-6).
pub fn bind_identity_error(scene: &Scene, weights: &Weights) -> Result<f64> {
    let posed = posed_positions(scene, weights, &Pose::rest())?;
    Ok(posed
        .iter()
        .zip(scene.mesh.vertices())
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max))
}

/// Isolated discontinuities (the neighbourhood-continuity check): vertices whose
/// weight row differs from **every** neighbour's by more than `threshold` in L1 norm — a spike
/// no neighbour shares, as left by a bad automatic radius or a hard-edge label. Returns the
/// vertex indices.
pub fn isolated_discontinuities(mesh: &Mesh, weights: &Weights, threshold: f64) -> Vec<usize> {
    let topo = mesh.topology();
    (0..mesh.vertex_count())
        .filter(|&v| {
            let wv = weights.row(v);
            topo.neighbors(v).iter().all(|&u| {
                let l1: f64 = wv
                    .iter()
                    .zip(weights.row(u))
                    .map(|(a, b)| (a - b).abs())
                    .sum();
                l1 > threshold
            })
        })
        .collect()
}

/// Dirichlet energy of the weights, `sum_j w_j' L w_j` with `L` the cotangent Laplacian.
/// Computed per triangle as the exact integral of the squared gradient of the piecewise
/// linear weight field, `sum_T area_T |grad w_j|^2`, which equals the cotangent form.
pub fn dirichlet_energy(mesh: &Mesh, weights: &Weights) -> f64 {
    let p = mesh.vertices();
    let nb = weights.bone_count();
    mesh.triangles()
        .iter()
        .map(|&[a, b, c]| {
            let area2 = signed_area2(&p[a], &p[b], &p[c]);
            // Gradients of the barycentric hat functions: perp(opposite edge) / (2 area).
            let ga = (p[c] - p[b])
                .yx()
                .component_mul(&nalgebra::Vector2::new(-1.0, 1.0));
            let gb = (p[a] - p[c])
                .yx()
                .component_mul(&nalgebra::Vector2::new(-1.0, 1.0));
            let gc = (p[b] - p[a])
                .yx()
                .component_mul(&nalgebra::Vector2::new(-1.0, 1.0));
            let (wa, wb, wc) = (weights.row(a), weights.row(b), weights.row(c));
            let mut e = 0.0;
            for j in 0..nb {
                let g = (ga * wa[j] + gb * wb[j] + gc * wc[j]) / area2;
                e += g.norm_squared();
            }
            e * area2 * 0.5
        })
        .sum()
}

/// The metrics of one pose ([`Metrics`]' first seven): what moving the bones does to the
/// mesh, measured on positions posed by anything. Serializes with [`Metrics`]' keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoseMetrics {
    /// Largest drag of a watched vertex, % of character height ([`drag`]).
    pub drag_max_pct: f64,
    /// Mean drag of the watched vertices, % of character height.
    pub drag_mean_pct: f64,
    /// Mean total weight of the moved bones on the watched vertices ([`leaked_weight`]).
    pub leaked_weight: f64,
    /// Triangles with signed area <= 0 in the pose ([`flipped_triangles`]).
    pub flipped: usize,
    /// Largest singular-value ratio of a triangle's deformation gradient ([`distortion`]);
    /// `null` in JSON when a triangle collapsed to zero area.
    #[serde(with = "finite_or_null")]
    pub distortion_max: f64,
    /// 99th percentile (nearest rank) of the same ratio.
    #[serde(with = "finite_or_null")]
    pub distortion_p99: f64,
    /// Posed total signed area vs rest, % ([`area_change_pct`]).
    pub area_change_pct: f64,
}

/// The [`PoseMetrics`] of `posed` (one position per mesh vertex, in `probe`'s pose, e.g. LBS
/// of `weights` or any other skinning), with the drag they were measured from.
pub fn pose_metrics(
    scene: &Scene,
    weights: &Weights,
    probe: &Probe,
    posed: &[Point2<f64>],
) -> Result<(PoseMetrics, Drag)> {
    let drag = drag_of_positions(scene, probe, posed)?;
    let (distortion_max, distortion_p99) = max_and_p99(&distortion(&scene.mesh, posed));
    let metrics = PoseMetrics {
        drag_max_pct: drag.max_pct(),
        drag_mean_pct: drag.mean_pct(),
        leaked_weight: leaked_weight(scene, weights, probe)?,
        flipped: flipped_triangles(&scene.mesh, posed),
        distortion_max,
        distortion_p99,
        area_change_pct: area_change_pct(&scene.mesh, posed),
    };
    Ok((metrics, drag))
}

/// Every metric for one probe. `time_s` is left `None`: the solve time is the caller's to
/// record (a compare row sets it), metrics never solve.
pub fn evaluate(scene: &Scene, weights: &Weights, probe: &Probe) -> Result<Metrics> {
    check_shape(scene.mesh.vertex_count(), weights, scene.skeleton.len())?;
    weights.check_scorable()?;
    let transforms = scene.skeleton.skinning_affines(&probe.pose)?;
    let posed = lbs_with_affines(scene.mesh.vertices(), weights, &transforms)?;
    let (pose, _) = pose_metrics(scene, weights, probe, &posed)?;
    let metrics = Metrics {
        drag_max_pct: pose.drag_max_pct,
        drag_mean_pct: pose.drag_mean_pct,
        leaked_weight: pose.leaked_weight,
        flipped: pose.flipped,
        distortion_max: pose.distortion_max,
        distortion_p99: pose.distortion_p99,
        area_change_pct: pose.area_change_pct,
        norm_err: weights.normalization_error(),
        bind_err: bind_identity_error(scene, weights)?,
        discontinuities: isolated_discontinuities(&scene.mesh, weights, DEFAULT_JUMP_THRESHOLD)
            .len(),
        dirichlet: dirichlet_energy(&scene.mesh, weights),
        time_s: None,
    };
    metrics.check_finite(probe)?;
    Ok(metrics)
}

impl Metrics {
    /// Every metric except distortion (infinite for a collapsed triangle, written as `null`)
    /// must be finite; otherwise the probe's pose moved vertices too far for f64 (e.g. a
    /// translation of 1e308): an [`SceneError::UnmeasurablePose`] naming the probe and the metric.
    pub fn check_finite(&self, probe: &Probe) -> Result<()> {
        for (name, value) in [
            ("drag_max_pct", self.drag_max_pct),
            ("drag_mean_pct", self.drag_mean_pct),
            ("leaked_weight", self.leaked_weight),
            ("area_change_pct", self.area_change_pct),
            ("norm_err", self.norm_err),
            ("bind_err", self.bind_err),
            ("dirichlet", self.dirichlet),
        ] {
            if !value.is_finite() {
                return Err(SceneError::UnmeasurablePose {
                    probe: probe.name.clone(),
                    measure: name,
                    value,
                }
                .into());
            }
        }
        if self.distortion_max.is_nan() || self.distortion_p99.is_nan() {
            return Err(SceneError::UnmeasurablePose {
                probe: probe.name.clone(),
                measure: "distortion",
                value: f64::NAN,
            }
            .into());
        }
        Ok(())
    }
}
