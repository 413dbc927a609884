//! Clip metrics: weights judged the way animators judge them, by playing the clips.
//!
//! Each clip is sampled at `fps` frames per second from 0 plus its last frame
//! ([`Clip::frame_times`]); each frame's pose is the clip sampled and the scene's IK applied
//! ([`Scene::clip_pose`]), skinned with linear blend skinning on the affine path. Per frame:
//!
//! - with reference weights (the artist's): each vertex's **deviation**, the distance from
//!   its position skinned with the weights to its position skinned with the reference, and
//!   the frame's max, 95th percentile (nearest rank) and mean in px and % of the character
//!   height (the rest mesh's bounding-box height);
//! - always: **flipped** triangles (posed signed area 0 or of the other sign than at rest)
//!   and the **area change** (posed total |area| vs rest, %).
//!
//! Over a clip: max, p95 and mean over every (frame, vertex) deviation, the frame with the
//! largest deviation named by index and time, the most flipped triangles in a frame and the
//! largest |area change|. Over several clips ([`summarize`]) the same pooled over all their
//! frames. The CLI (`skinweights eval --clip`), the view and Python use these functions and
//! the JSON keys of [`ClipMetrics`].

use super::percentile;
use crate::animation::{Clip, DEFAULT_FPS};
use crate::error::Result;
use crate::mesh::{signed_area2, Mesh};
use crate::scene::Scene;
use crate::skinning::{check_shape, lbs_with_affines};
use crate::weights::Weights;
use nalgebra::Point2;
use serde::Serialize;

/// Options of the clip metrics.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ClipOptions {
    /// Frames per second the clip is sampled at (plus its last frame). Default:
    /// [`DEFAULT_FPS`] (30).
    pub fps: f64,
}

impl Default for ClipOptions {
    fn default() -> Self {
        ClipOptions { fps: DEFAULT_FPS }
    }
}

impl ClipOptions {
    /// Sets the frame rate.
    pub fn with_fps(mut self, fps: f64) -> Self {
        self.fps = fps;
        self
    }
}

/// One frame's numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrameMetrics {
    /// Time in seconds.
    pub time: f64,
    /// Largest vertex deviation from the reference, px (`None` without reference).
    pub deviation_max_px: Option<f64>,
    /// 95th percentile of the deviations, px.
    pub deviation_p95_px: Option<f64>,
    /// Mean deviation, px.
    pub deviation_mean_px: Option<f64>,
    /// Triangles flipped relative to rest.
    pub flipped: usize,
    /// Posed total area vs rest, %.
    pub area_change_pct: f64,
}

/// A clip's (or several clips') numbers; field names are the `--json` keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClipMetrics {
    /// Clip name (`"all"` for a summary).
    pub clip: String,
    /// Frames measured.
    pub frames: usize,
    /// Character height the percentages use.
    pub height: f64,
    /// Largest deviation over all frames and vertices, px.
    pub deviation_max_px: Option<f64>,
    /// 95th percentile over all frames and vertices, px.
    pub deviation_p95_px: Option<f64>,
    /// Mean over all frames and vertices, px.
    pub deviation_mean_px: Option<f64>,
    /// `deviation_max_px` as % of the height.
    pub deviation_max_pct: Option<f64>,
    /// `deviation_p95_px` as % of the height.
    pub deviation_p95_pct: Option<f64>,
    /// `deviation_mean_px` as % of the height.
    pub deviation_mean_pct: Option<f64>,
    /// Clip and time of the frame with the largest deviation.
    pub worst_frame: Option<WorstFrame>,
    /// Most triangles flipped in one frame.
    pub flipped_max: usize,
    /// Frames with at least one flipped triangle.
    pub flipped_frames: usize,
    /// Largest |area change| of a frame, % (signed as measured).
    pub area_change_max_pct: f64,
    /// Per-frame numbers (empty in summaries).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_frame: Vec<FrameMetrics>,
    #[serde(skip)]
    pooled: Vec<f64>,
}

/// The frame with the largest deviation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorstFrame {
    /// Clip name.
    pub clip: String,
    /// Frame index in the clip.
    pub frame: usize,
    /// Frame time, s.
    pub time: f64,
}

/// Positions of every vertex in frame `time` of `clip` (IK applied), skinned with `weights`.
pub fn clip_frame_positions(
    scene: &Scene,
    weights: &Weights,
    clip: &Clip,
    time: f64,
) -> Result<Vec<Point2<f64>>> {
    let pose = scene.clip_pose(clip, time)?;
    let s = scene.skeleton.skinning_affines(&pose)?;
    lbs_with_affines(scene.mesh.vertices(), weights, &s)
}

/// The metrics of `weights` over `clip` (see the module documentation), with deviations when
/// `reference` weights are given.
pub fn clip_metrics(
    scene: &Scene,
    weights: &Weights,
    reference: Option<&Weights>,
    clip: &Clip,
    options: &ClipOptions,
) -> Result<ClipMetrics> {
    let n = scene.mesh.vertex_count();
    check_shape(n, weights, scene.skeleton.len())?;
    if let Some(r) = reference {
        check_shape(n, r, scene.skeleton.len())?;
    }
    clip.check(&scene.skeleton)?;
    let times = clip.frame_times(options.fps)?;
    let rest_signs = rest_signs(&scene.mesh);
    let rest_area = abs_area(&scene.mesh, scene.mesh.vertices());
    let mut per_frame = Vec::with_capacity(times.len());
    let mut pooled = Vec::new();
    let mut worst: Option<(f64, usize)> = None;
    for (fi, &t) in times.iter().enumerate() {
        let pose = scene.clip_pose(clip, t)?;
        let s = scene.skeleton.skinning_affines(&pose)?;
        let posed = lbs_with_affines(scene.mesh.vertices(), weights, &s)?;
        let (mut dmax, mut dp95, mut dmean) = (None, None, None);
        if let Some(r) = reference {
            let refd = lbs_with_affines(scene.mesh.vertices(), r, &s)?;
            let d: Vec<f64> = posed
                .iter()
                .zip(&refd)
                .map(|(p, q)| (p - q).norm())
                .collect();
            let m = d.iter().copied().fold(0.0, f64::max);
            if worst.is_none_or(|(w, _)| m > w) {
                worst = Some((m, fi));
            }
            dmax = Some(m);
            dp95 = Some(percentile(&d, 0.95));
            dmean = Some(mean(&d));
            pooled.extend(d);
        }
        per_frame.push(FrameMetrics {
            time: t,
            deviation_max_px: dmax,
            deviation_p95_px: dp95,
            deviation_mean_px: dmean,
            flipped: flipped_vs_rest(&scene.mesh, &rest_signs, &posed),
            area_change_pct: (abs_area(&scene.mesh, &posed) / rest_area - 1.0) * 100.0,
        });
    }
    let mut m = finish(
        clip.name.clone(),
        scene.mesh.height(),
        per_frame,
        pooled,
        reference.is_some(),
    );
    m.worst_frame = worst.map(|(_, fi)| WorstFrame {
        clip: clip.name.clone(),
        frame: fi,
        time: times[fi],
    });
    Ok(m)
}

/// The metrics over several clips (`"all"`): deviations pooled over every frame of every
/// clip, the worst frame of them all, the most flips and largest area change.
pub fn summarize(clips: &[ClipMetrics]) -> ClipMetrics {
    let height = clips.first().map_or(1.0, |c| c.height);
    let with_reference = clips.iter().any(|c| c.deviation_max_px.is_some());
    let pooled: Vec<f64> = clips
        .iter()
        .flat_map(|c| c.pooled.iter().copied())
        .collect();
    let frames = clips.iter().map(|c| c.frames).sum();
    let mut m = finish("all".into(), height, Vec::new(), pooled, with_reference);
    m.frames = frames;
    m.flipped_max = clips.iter().map(|c| c.flipped_max).max().unwrap_or(0);
    m.flipped_frames = clips.iter().map(|c| c.flipped_frames).sum();
    m.area_change_max_pct = clips
        .iter()
        .map(|c| c.area_change_max_pct)
        .fold(0.0, |a: f64, b| if b.abs() > a.abs() { b } else { a });
    m.worst_frame = clips
        .iter()
        .filter_map(|c| Some((c.deviation_max_px?, c.worst_frame.clone()?)))
        .fold(None, |best: Option<(f64, WorstFrame)>, (d, w)| match best {
            Some((bd, _)) if bd >= d => best,
            _ => Some((d, w)),
        })
        .map(|(_, w)| w);
    m
}

fn finish(
    clip: String,
    height: f64,
    per_frame: Vec<FrameMetrics>,
    pooled: Vec<f64>,
    with_reference: bool,
) -> ClipMetrics {
    let pct = |v: Option<f64>| v.map(|x| x / height * 100.0);
    let (max, p95, avg) = if with_reference {
        (
            Some(pooled.iter().copied().fold(0.0, f64::max)),
            Some(percentile(&pooled, 0.95)),
            Some(mean(&pooled)),
        )
    } else {
        (None, None, None)
    };
    ClipMetrics {
        clip,
        frames: per_frame.len(),
        height,
        deviation_max_px: max,
        deviation_p95_px: p95,
        deviation_mean_px: avg,
        deviation_max_pct: pct(max),
        deviation_p95_pct: pct(p95),
        deviation_mean_pct: pct(avg),
        worst_frame: None,
        flipped_max: per_frame.iter().map(|f| f.flipped).max().unwrap_or(0),
        flipped_frames: per_frame.iter().filter(|f| f.flipped > 0).count(),
        area_change_max_pct: per_frame
            .iter()
            .map(|f| f.area_change_pct)
            .fold(0.0, |a: f64, b| if b.abs() > a.abs() { b } else { a }),
        per_frame,
        pooled,
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn rest_signs(mesh: &Mesh) -> Vec<f64> {
    let r = mesh.vertices();
    mesh.triangles()
        .iter()
        .map(|t| signed_area2(&r[t[0]], &r[t[1]], &r[t[2]]).signum())
        .collect()
}

fn flipped_vs_rest(mesh: &Mesh, rest_signs: &[f64], posed: &[Point2<f64>]) -> usize {
    mesh.triangles()
        .iter()
        .zip(rest_signs)
        .filter(|(t, &s)| signed_area2(&posed[t[0]], &posed[t[1]], &posed[t[2]]) * s <= 0.0)
        .count()
}

fn abs_area(mesh: &Mesh, posed: &[Point2<f64>]) -> f64 {
    mesh.triangles()
        .iter()
        .map(|t| signed_area2(&posed[t[0]], &posed[t[1]], &posed[t[2]]).abs())
        .sum::<f64>()
        * 0.5
}
