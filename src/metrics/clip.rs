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
//!   and the **area change** (posed total |area| vs rest, %), of the positions with the
//!   scene's correctives added ([`Scene::apply_correctives`]; both skinnings get the same
//!   offsets, so the deviations do not change).
//!
//! Over a clip: max, p95 and mean over every (frame, vertex) deviation, the frame with the
//! largest deviation named by index and time, the most flipped triangles in a frame and the
//! largest |area change|. Over several clips ([`clips_metrics`]) the same pooled over all their
//! frames. The CLI (`skinweights eval --clip`), the view and Python use these functions and
//! the JSON keys of [`ClipMetrics`].

use super::quantile::{bin, Histogram, StreamQuantile, BINS};
use crate::animation::{Clip, DEFAULT_FPS};
use crate::error::{Error, Result};
use crate::mesh::signed_area2;
use crate::scene::Scene;
use crate::skeleton::{Affine2, Pose};
use crate::skinning::{check_shape, LBS_CHUNK, WEIGHT_SUM_EPSILON};
use crate::weights::Weights;
use nalgebra::{Point2, Vector2};
use rayon::prelude::*;
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

/// Positions of every vertex in frame `time` of `clip` (IK applied), skinned with `weights`
/// and the scene's correctives added ([`crate::correctives::skin_scene`]).
pub fn clip_frame_positions(
    scene: &Scene,
    weights: &Weights,
    clip: &Clip,
    time: f64,
) -> Result<Vec<Point2<f64>>> {
    let pose = scene.clip_pose(clip, time)?;
    crate::correctives::skin_scene(scene, weights, &pose)
}

/// The quantile the metrics report (the 95th percentile, nearest rank).
const Q: f64 = 0.95;

/// The metrics of `weights` over `clip` (see the module documentation), with deviations when
/// `reference` weights are given: [`clips_metrics`] of one clip.
pub fn clip_metrics(
    scene: &Scene,
    weights: &Weights,
    reference: Option<&Weights>,
    clip: &Clip,
    options: &ClipOptions,
) -> Result<ClipMetrics> {
    let mut set = clips_metrics(scene, weights, reference, &[clip], options)?;
    Ok(set.clips.swap_remove(0))
}

/// The metrics of several clips: each clip's, and over all of them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClipSetMetrics {
    /// Per clip, in the order given.
    pub clips: Vec<ClipMetrics>,
    /// Over all the clips (`"all"`): deviations pooled over every frame of every clip, the
    /// worst frame of them all, the most flips and the largest area change; no per-frame
    /// numbers.
    pub all: ClipMetrics,
}

/// The metrics of `weights` over each of `clips` and over all of them (see the module
/// documentation), with deviations when `reference` weights are given.
///
/// One pass per frame over the vertices (both skinnings, the deviation and its histogram
/// fused, in parallel, reading the two weights' nonzero entries only; a vertex whose two rows
/// are equal has deviation 0 without its reference skinning) and one over the triangles, into
/// buffers allocated once. Percentiles are exact (nearest rank, as
/// [`super::percentile`]): a frame's from the histogram of its deviations and a selection
/// inside the bin holding the rank; a clip's (and all clips') from the frames' histograms,
/// keeping only the deviations that can still hold the rank (about the largest 5 %) rather
/// than every (frame, vertex) value.
pub fn clips_metrics(
    scene: &Scene,
    weights: &Weights,
    reference: Option<&Weights>,
    clips: &[&Clip],
    options: &ClipOptions,
) -> Result<ClipSetMetrics> {
    let n = scene.mesh.vertex_count();
    check_shape(n, weights, scene.skeleton.len())?;
    if let Some(r) = reference {
        check_shape(n, r, scene.skeleton.len())?;
    }
    let mut frame_times = Vec::with_capacity(clips.len());
    for clip in clips {
        clip.check(&scene.skeleton)?;
        frame_times.push(clip.frame_times(options.fps)?);
    }
    let height = scene.mesh.height();
    let mut eval = Evaluator::new(scene, weights, reference)?;
    let values = |frames: usize| (n as u64).saturating_mul(frames as u64);
    let frames_total: usize = frame_times.iter().map(Vec::len).sum();
    let mut all_pool = (reference.is_some() && clips.len() > 1)
        .then(|| StreamQuantile::new(Q, values(frames_total)));
    let mut all_sum = 0.0;
    let mut per_clip = Vec::with_capacity(clips.len());
    for (clip, times) in clips.iter().zip(&frame_times) {
        let mut pool = reference.map(|_| StreamQuantile::new(Q, values(times.len())));
        let mut per_frame = Vec::with_capacity(times.len());
        let mut worst: Option<(f64, usize)> = None;
        let mut sum = 0.0;
        for (fi, &t) in times.iter().enumerate() {
            let pose = scene.clip_pose(clip, t)?;
            let f = eval.frame(&scene.skeleton.skinning_affines(&pose)?, scene, &pose)?;
            let (mut dmax, mut dp95, mut dmean) = (None, None, None);
            if let Some(pool) = pool.as_mut() {
                sum += f.sum;
                if worst.is_none_or(|(w, _)| f.max > w) {
                    worst = Some((f.max, fi));
                }
                dmax = Some(f.max);
                dp95 = Some(eval.hist.quantile(&eval.dev, Q));
                dmean = Some(if n == 0 { 0.0 } else { f.sum / n as f64 });
                pool.add(&eval.hist, &eval.dev);
                if let Some(all) = all_pool.as_mut() {
                    all.add(&eval.hist, &eval.dev);
                }
            }
            per_frame.push(FrameMetrics {
                time: t,
                deviation_max_px: dmax,
                deviation_p95_px: dp95,
                deviation_mean_px: dmean,
                flipped: f.flipped,
                area_change_pct: (f.area / eval.rest_area - 1.0) * 100.0,
            });
        }
        all_sum += sum;
        let count = n * times.len();
        let deviations = pool.map(|p| {
            let mean = if count == 0 { 0.0 } else { sum / count as f64 };
            (worst.map_or(0.0, |w| w.0), p.quantile(), mean)
        });
        let mut m = finish(clip.name.clone(), height, per_frame, deviations);
        m.worst_frame = worst.map(|(_, fi)| WorstFrame {
            clip: clip.name.clone(),
            frame: fi,
            time: times[fi],
        });
        per_clip.push(m);
    }
    let deviations = (reference.is_some() && !clips.is_empty()).then(|| {
        let max = per_clip
            .iter()
            .filter_map(|c| c.deviation_max_px)
            .fold(0.0, f64::max);
        match (&all_pool, per_clip.as_slice()) {
            (Some(pool), _) => {
                let count = n * frames_total;
                let mean = if count == 0 {
                    0.0
                } else {
                    all_sum / count as f64
                };
                (max, pool.quantile(), mean)
            }
            // One clip: its own numbers.
            (None, [one, ..]) => (
                max,
                one.deviation_p95_px.unwrap_or(0.0),
                one.deviation_mean_px.unwrap_or(0.0),
            ),
            (None, []) => (0.0, 0.0, 0.0),
        }
    });
    let all = summary(&per_clip, height, deviations);
    Ok(ClipSetMetrics {
        clips: per_clip,
        all,
    })
}

/// The `"all"` metrics of `clips` with the pooled `deviations`.
fn summary(clips: &[ClipMetrics], height: f64, deviations: Option<(f64, f64, f64)>) -> ClipMetrics {
    let mut m = finish("all".into(), height, Vec::new(), deviations);
    m.frames = clips.iter().map(|c| c.frames).sum();
    m.flipped_max = clips.iter().map(|c| c.flipped_max).max().unwrap_or(0);
    m.flipped_frames = clips.iter().map(|c| c.flipped_frames).sum();
    m.area_change_max_pct = clips
        .iter()
        .map(|c| c.area_change_max_pct)
        .fold(0.0, largest_magnitude);
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

/// Of two signed values the one of larger magnitude (the first on a tie).
fn largest_magnitude(a: f64, b: f64) -> f64 {
    if b.abs() > a.abs() {
        b
    } else {
        a
    }
}

fn finish(
    clip: String,
    height: f64,
    per_frame: Vec<FrameMetrics>,
    deviations: Option<(f64, f64, f64)>,
) -> ClipMetrics {
    let mut m = ClipMetrics {
        clip,
        frames: per_frame.len(),
        height,
        deviation_max_px: None,
        deviation_p95_px: None,
        deviation_mean_px: None,
        deviation_max_pct: None,
        deviation_p95_pct: None,
        deviation_mean_pct: None,
        worst_frame: None,
        flipped_max: per_frame.iter().map(|f| f.flipped).max().unwrap_or(0),
        flipped_frames: per_frame.iter().filter(|f| f.flipped > 0).count(),
        area_change_max_pct: per_frame
            .iter()
            .map(|f| f.area_change_pct)
            .fold(0.0, largest_magnitude),
        per_frame,
    };
    if let Some((max, p95, mean)) = deviations {
        m.set_deviations(max, p95, mean);
    }
    m
}

impl ClipMetrics {
    fn set_deviations(&mut self, max: f64, p95: f64, mean: f64) {
        let height = self.height;
        let pct = |x: f64| Some(x / height * 100.0);
        self.deviation_max_pct = pct(max);
        self.deviation_p95_pct = pct(p95);
        self.deviation_mean_pct = pct(mean);
        self.deviation_max_px = Some(max);
        self.deviation_p95_px = Some(p95);
        self.deviation_mean_px = Some(mean);
    }
}

/// Vertices per parallel task of the fused vertex pass; each task counts its own histogram.
const BLOCK: usize = 1 << 17;
/// Triangles per parallel task of the triangle pass.
const TRI_CHUNK: usize = 8192;

/// One frame's sums as [`Evaluator::frame`] returns them.
struct FrameSums {
    /// Largest deviation (0 without reference).
    max: f64,
    /// Sum of the deviations.
    sum: f64,
    flipped: usize,
    /// Posed total |area|.
    area: f64,
}

/// A vertex block's part of a frame: largest and summed deviation, counts per bin.
struct BlockSums {
    max: f64,
    sum: f64,
    counts: Vec<u32>,
}

/// What stays the same over every frame of the clips (the rows, the triangles as 32-bit
/// indices, their rest orientation and area) and the buffers each frame writes.
struct Evaluator<'a> {
    rest: &'a [Point2<f64>],
    rows: PairRows,
    with_reference: bool,
    triangles: Vec<[u32; 3]>,
    rest_signs: Vec<i8>,
    rest_area: f64,
    posed: Vec<Point2<f64>>,
    /// The frame's deviations (empty without reference).
    dev: Vec<f64>,
    /// Their histogram.
    hist: Histogram,
    blocks: Vec<BlockSums>,
    tri_sums: Vec<(usize, f64)>,
}

impl<'a> Evaluator<'a> {
    fn new(scene: &'a Scene, weights: &Weights, reference: Option<&Weights>) -> Result<Self> {
        let mesh = &scene.mesh;
        let rest = mesh.vertices();
        let n = rest.len();
        let index = |i: usize| u32::try_from(i).map_err(|_| too_large(n));
        let triangles = mesh
            .triangles()
            .iter()
            .map(|t| Ok([index(t[0])?, index(t[1])?, index(t[2])?]))
            .collect::<Result<Vec<_>>>()?;
        let rest_signs: Vec<i8> = mesh
            .triangles()
            .iter()
            .map(|t| {
                if signed_area2(&rest[t[0]], &rest[t[1]], &rest[t[2]]).is_sign_negative() {
                    -1
                } else {
                    1
                }
            })
            .collect();
        let mut tri_sums = Vec::new();
        let rest_area = triangle_sums(&triangles, &rest_signs, rest, &mut tri_sums).1;
        let with_reference = reference.is_some();
        Ok(Evaluator {
            rest,
            rows: PairRows::new(weights, reference)?,
            with_reference,
            triangles,
            rest_signs,
            rest_area,
            posed: vec![Point2::origin(); n],
            dev: vec![0.0; if with_reference { n } else { 0 }],
            hist: Histogram::new(),
            blocks: Vec::new(),
            tri_sums,
        })
    }

    /// Skins one frame with the skinning transforms `s` into `posed` (and `dev`, `hist`),
    /// then adds the scene's correctives for `pose`: the same offsets move both skinnings,
    /// so the deviations are unchanged, and the flips and the area are those of the drawn
    /// character.
    fn frame(&mut self, s: &[Affine2], scene: &Scene, pose: &Pose) -> Result<FrameSums> {
        let (rows, rest) = (&self.rows, self.rest);
        let (mut max, mut sum) = (0.0, 0.0);
        if self.with_reference {
            let blocks = rest.len().div_ceil(BLOCK);
            self.blocks.resize_with(blocks, || BlockSums {
                max: 0.0,
                sum: 0.0,
                counts: vec![0; BINS],
            });
            self.posed
                .par_chunks_mut(BLOCK)
                .zip(self.dev.par_chunks_mut(BLOCK))
                .zip(self.blocks.par_iter_mut())
                .enumerate()
                .for_each(|(b, ((p, d), st))| {
                    let first = b * BLOCK;
                    st.counts.fill(0);
                    let (mut mx, mut total, mut zeros) = (0.0f64, 0.0, 0u32);
                    for (k, (p, d)) in p.iter_mut().zip(d.iter_mut()).enumerate() {
                        let i = first + k;
                        let (pw, dev) = rows.vertex(i, rest[i], s);
                        *p = pw;
                        *d = dev;
                        mx = mx.max(dev);
                        total += dev;
                        // Equal rows (deviation +0) are counted in a register.
                        if dev.to_bits() == 0 {
                            zeros += 1;
                        } else {
                            st.counts[bin(dev)] += 1;
                        }
                    }
                    st.counts[bin(0.0)] += zeros;
                    (st.max, st.sum) = (mx, total);
                });
            let blocks = &self.blocks[..blocks];
            self.hist
                .set_sum(blocks.iter().map(|b| b.counts.as_slice()));
            max = blocks.iter().fold(0.0, |a: f64, b| a.max(b.max));
            sum = blocks.iter().map(|b| b.sum).sum();
        } else {
            self.posed
                .par_chunks_mut(LBS_CHUNK)
                .enumerate()
                .for_each(|(b, p)| {
                    let first = b * LBS_CHUNK;
                    for (k, p) in p.iter_mut().enumerate() {
                        *p = rows.vertex(first + k, rest[first + k], s).0;
                    }
                });
        }
        scene.apply_correctives(pose, &mut self.posed)?;
        let (flipped, area) = triangle_sums(
            &self.triangles,
            &self.rest_signs,
            &self.posed,
            &mut self.tri_sums,
        );
        Ok(FrameSums {
            max,
            sum,
            flipped,
            area,
        })
    }
}

/// The error of a mesh or weights too large for the 32-bit indices of the fused passes.
fn too_large(n: usize) -> Error {
    Error::WeightsShape {
        message: format!(
            "{n} vertices: the clip metrics index vertices and weight entries with 32 bits"
        ),
    }
}

/// The nonzero entries of the weights' rows and the reference's, as the fused loop reads
/// them: per vertex the bones either weights (clamped at 0 as `lbs_vertex` clamps), in bone
/// order, so each position is bit-identical to [`crate::skinning::lbs_with_affines`]'.
struct PairRows {
    /// Per vertex (and one past the last): 2 × the index of its first entry, + 1 when its
    /// reference row differs from its weights row.
    head: Vec<u32>,
    bone: Vec<u32>,
    w: Vec<f64>,
    /// The reference's weight of each entry (read only for rows that differ).
    r: Vec<f64>,
}

impl PairRows {
    fn new(weights: &Weights, reference: Option<&Weights>) -> Result<Self> {
        let (n, nb) = (weights.vertex_count(), weights.bone_count());
        fn row(w: &Weights, i: usize, nb: usize) -> &[f64] {
            &w.as_slice()[i * nb..(i + 1) * nb]
        }
        let mut rows = PairRows {
            head: Vec::with_capacity(n + 1),
            bone: Vec::with_capacity(n),
            w: Vec::with_capacity(n),
            r: Vec::with_capacity(n),
        };
        let head = |entries: usize, differs: bool| -> Result<u32> {
            u32::try_from(entries)
                .ok()
                .and_then(|e| e.checked_mul(2))
                .map(|e| e + u32::from(differs))
                .ok_or_else(|| too_large(n))
        };
        for i in 0..n {
            let a = row(weights, i, nb);
            let b = reference.map(|r| row(r, i, nb));
            let differs = b.is_some_and(|b| a.iter().zip(b).any(|(x, y)| x.max(0.0) != y.max(0.0)));
            rows.head.push(head(rows.bone.len(), differs)?);
            for j in 0..nb {
                let w = a[j].max(0.0);
                let r = b.map_or(0.0, |b| b[j].max(0.0));
                if w != 0.0 || (differs && r != 0.0) {
                    rows.bone.push(j as u32);
                    rows.w.push(w);
                    rows.r.push(r);
                }
            }
        }
        rows.head.push(head(rows.bone.len(), false)?);
        Ok(rows)
    }

    /// Vertex `i` at rest position `v` skinned with the weights, and its deviation from the
    /// reference's skinning (0 when the rows are equal).
    #[inline(always)]
    fn vertex(&self, i: usize, v: Point2<f64>, s: &[Affine2]) -> (Point2<f64>, f64) {
        let (h0, h1) = (self.head[i], self.head[i + 1]);
        let e = (h0 >> 1) as usize..(h1 >> 1) as usize;
        let (bones, ws) = (&self.bone[e.clone()], &self.w[e.clone()]);
        let (mut out, mut sum) = (Vector2::zeros(), 0.0);
        if h0 & 1 == 0 {
            for (&j, &w) in bones.iter().zip(ws) {
                out += w * s[j as usize].apply(v).coords;
                sum += w;
            }
            return (Point2::from(out / sum.max(WEIGHT_SUM_EPSILON)), 0.0);
        }
        let (mut out2, mut sum2) = (Vector2::zeros(), 0.0);
        for ((&j, &w), &r) in bones.iter().zip(ws).zip(&self.r[e]) {
            let p = s[j as usize].apply(v).coords;
            if w != 0.0 {
                out += w * p;
                sum += w;
            }
            if r != 0.0 {
                out2 += r * p;
                sum2 += r;
            }
        }
        let (a, b) = (
            out / sum.max(WEIGHT_SUM_EPSILON),
            out2 / sum2.max(WEIGHT_SUM_EPSILON),
        );
        (Point2::from(a), (a - b).norm())
    }
}

/// Triangles flipped relative to rest (posed signed area 0 or of the other sign than
/// `rest_signs`) and the posed total |area|, in parallel over chunks combined in chunk order
/// (deterministic).
fn triangle_sums(
    triangles: &[[u32; 3]],
    rest_signs: &[i8],
    posed: &[Point2<f64>],
    sums: &mut Vec<(usize, f64)>,
) -> (usize, f64) {
    sums.resize(triangles.len().div_ceil(TRI_CHUNK), (0, 0.0));
    sums.par_iter_mut()
        .zip(triangles.par_chunks(TRI_CHUNK))
        .zip(rest_signs.par_chunks(TRI_CHUNK))
        .for_each(|((st, tris), signs)| {
            let (mut flipped, mut area) = (0, 0.0);
            for (t, &s) in tris.iter().zip(signs) {
                let p = |k: usize| &posed[t[k] as usize];
                let a = signed_area2(p(0), p(1), p(2));
                flipped += usize::from(a * f64::from(s) <= 0.0);
                area += a.abs();
            }
            *st = (flipped, area);
        });
    let flipped = sums.iter().map(|s| s.0).sum();
    let area = sums.iter().map(|s| s.1).sum::<f64>() * 0.5;
    (flipped, area)
}
