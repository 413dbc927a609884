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

use super::quantile::{bin, quantile_and_add, Histogram, StreamQuantile, BINS};
use crate::animation::{Clip, DEFAULT_FPS};
use crate::error::{Error, Result, WeightsError, WeightsShapeProblem};
use crate::mesh::signed_area2;
use crate::scene::Scene;
use crate::skeleton::{Affine2, Pose};
use crate::skinning::{check_shape, WEIGHT_SUM_EPSILON};
use crate::weights::Weights;
use nalgebra::{Point2, Vector2};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::Mutex;

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
/// are equal has deviation 0 without its reference skinning, and one that follows a single
/// bone and only rigid triangles use is skipped) and one over the triangles (those whose
/// vertices all follow one bone scored at once by its determinant), into buffers allocated
/// once. Percentiles are exact (nearest rank, as
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
        let pool = reference.map(|_| StreamQuantile::new(Q, values(times.len())));
        let (m, sum) = score_clip(scene, &mut eval, clip, times, height, pool, &mut all_pool)?;
        all_sum += sum;
        per_clip.push(m);
    }
    let deviations = (reference.is_some() && !clips.is_empty())
        .then(|| pooled_deviations(&per_clip, all_pool.as_ref(), n * frames_total, all_sum));
    let all = summary(&per_clip, height, deviations);
    Ok(ClipSetMetrics {
        clips: per_clip,
        all,
    })
}

/// Scores one clip of [`clips_metrics`] at the frame `times`: its metrics (with the worst
/// frame) and the sum of its deviations. With a reference (`pool` is `Some`), each frame's
/// deviations are added to `pool` and `all_pool`.
fn score_clip(
    scene: &Scene,
    eval: &mut Evaluator,
    clip: &Clip,
    times: &[f64],
    height: f64,
    mut pool: Option<StreamQuantile>,
    all_pool: &mut Option<StreamQuantile>,
) -> Result<(ClipMetrics, f64)> {
    let n = scene.mesh.vertex_count();
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
            let mut streams = vec![pool];
            streams.extend(all_pool.as_mut());
            dp95 = Some(quantile_and_add(
                &eval.hist,
                &eval.dev,
                eval.zeros,
                Q,
                &mut streams,
            ));
            dmean = Some(if n == 0 { 0.0 } else { f.sum / n as f64 });
        }
        per_frame.push(FrameMetrics {
            time: t,
            deviation_max_px: dmax,
            deviation_p95_px: dp95,
            deviation_mean_px: dmean,
            flipped: f.flipped,
            area_change_pct: (f.area / eval.rest_area() - 1.0) * 100.0,
        });
    }
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
    Ok((m, sum))
}

/// The (max, p95, mean) deviations over all clips of [`clips_metrics`] (with a reference
/// and at least one clip): from `all_pool` when several clips were pooled into it, else
/// the one clip's own numbers. `count` is the number of (frame, vertex) values and `sum`
/// their total.
fn pooled_deviations(
    per_clip: &[ClipMetrics],
    all_pool: Option<&StreamQuantile>,
    count: usize,
    sum: f64,
) -> (f64, f64, f64) {
    let max = per_clip
        .iter()
        .filter_map(|c| c.deviation_max_px)
        .fold(0.0, f64::max);
    match (all_pool, per_clip) {
        (Some(pool), _) => {
            let mean = if count == 0 { 0.0 } else { sum / count as f64 };
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

/// Vertices per parallel task of the vertex pass.
const VERTEX_CHUNK: usize = 1 << 14;
const _: () = assert!(VERTEX_CHUNK <= 1 << 16);
/// Triangles per parallel task of the triangle pass.
const TRI_CHUNK: usize = 8192;
/// A vertex of a general triangle: its position is computed each frame.
const POSED: u8 = 1;
/// A vertex whose weights row differs from its reference row: its deviation is computed each
/// frame (every other vertex's deviation is +0).
const DIFFERS: u8 = 2;

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

/// What stays the same over every frame of the clips (the rows, which vertices a frame must
/// compute, the triangles) and the buffers each frame writes.
struct Evaluator<'a> {
    rest: &'a [Point2<f64>],
    rows: PairRows,
    /// Per vertex chunk, in vertex order, the offsets in the chunk of the vertices a frame
    /// computes ([`POSED`] or [`DIFFERS`]): the others follow one bone, only rigid triangles
    /// use them and their deviation is +0.
    active: Vec<u16>,
    /// Per vertex chunk, the index in `active` of its first vertex (and one past the last).
    active_start: Vec<usize>,
    /// Per vertex chunk, the index in `dev` of its first vertex that [`DIFFERS`] (and one
    /// past the last chunk).
    dev_start: Vec<usize>,
    triangles: Triangles,
    posed: Vec<Point2<f64>>,
    /// The frame's deviations of the vertices that [`DIFFERS`], in vertex order.
    dev: Vec<f64>,
    /// The vertices whose deviation is +0 without being computed (0 without reference).
    zeros: u64,
    /// The frame's deviations counted per bin, `zeros` included.
    hist: Histogram,
    /// Per worker thread, the counts per bin of the deviations its chunks computed.
    thread_counts: Vec<Mutex<Vec<u32>>>,
    /// Per vertex chunk, the largest and the summed deviation (summed in chunk order, so the
    /// mean does not depend on the scheduling).
    chunk_sums: Vec<(f64, f64)>,
    tri_sums: Vec<(usize, f64)>,
}

impl<'a> Evaluator<'a> {
    fn new(scene: &'a Scene, weights: &Weights, reference: Option<&Weights>) -> Result<Self> {
        let rest = scene.mesh.vertices();
        let n = rest.len();
        let rows = PairRows::new(weights, reference)?;
        // Correctives move vertices off their bones' transforms: then no triangle is rigid.
        let rigid_allowed = scene.correctives.is_empty();
        let triangles = Triangles::new(scene, &rows, rigid_allowed)?;
        let mut kind: Vec<u8> = (0..n)
            .map(|i| DIFFERS * u8::from(rows.differs(i)))
            .collect();
        for t in &triangles.general {
            for &v in t {
                kind[v as usize] |= POSED;
            }
        }
        let (mut dev_start, mut active, mut active_start) = (vec![0], Vec::new(), vec![0]);
        for chunk in kind.chunks(VERTEX_CHUNK) {
            let differ = chunk.iter().filter(|&&k| k & DIFFERS != 0).count();
            dev_start.push(dev_start.last().copied().unwrap_or(0) + differ);
            // VERTEX_CHUNK is at most 2^16, so an offset fits 16 bits.
            active.extend((0..chunk.len() as u16).filter(|&k| chunk[usize::from(k)] != 0));
            active_start.push(active.len());
        }
        let computed = dev_start.last().copied().unwrap_or(0);
        let threads = rayon::current_num_threads().max(1);
        Ok(Evaluator {
            rest,
            rows,
            active,
            active_start,
            dev_start,
            triangles,
            posed: vec![Point2::origin(); n],
            dev: vec![0.0; computed],
            zeros: if reference.is_some() {
                (n - computed) as u64
            } else {
                0
            },
            hist: Histogram::new(),
            thread_counts: (0..threads).map(|_| Mutex::new(vec![0; BINS])).collect(),
            chunk_sums: Vec::new(),
            tri_sums: Vec::new(),
        })
    }

    /// Rest total |area|.
    fn rest_area(&self) -> f64 {
        self.triangles.rest_area
    }

    /// Skins one frame with the skinning transforms `s` into `posed` (and `dev`, `hist`),
    /// then adds the scene's correctives for `pose`: the same offsets move both skinnings,
    /// so the deviations are unchanged, and the flips and the area are those of the drawn
    /// character.
    fn frame(&mut self, s: &[Affine2], scene: &Scene, pose: &Pose) -> Result<FrameSums> {
        let (rows, rest) = (&self.rows, self.rest);
        let (active, active_start) = (&self.active, &self.active_start);
        let chunks = rest.len().div_ceil(VERTEX_CHUNK);
        self.chunk_sums.resize(chunks, (0.0, 0.0));
        // Without deviations to compute (no reference, or no row differs) no chunk counts.
        let counting = !self.dev.is_empty();
        if counting {
            for c in &self.thread_counts {
                lock(c).fill(0);
            }
        }
        // Each chunk's part of `dev`.
        let mut devs = Vec::with_capacity(chunks);
        let mut tail = self.dev.as_mut_slice();
        for c in 0..chunks {
            let (head, t) = tail.split_at_mut(self.dev_start[c + 1] - self.dev_start[c]);
            devs.push(head);
            tail = t;
        }
        let thread_counts = &self.thread_counts;
        self.posed
            .par_chunks_mut(VERTEX_CHUNK)
            .zip(devs)
            .zip(self.chunk_sums.par_iter_mut())
            .enumerate()
            .for_each(|(c, ((posed, dev), sums))| {
                let first = c * VERTEX_CHUNK;
                let offsets = &active[active_start[c]..active_start[c + 1]];
                if dev.is_empty() {
                    for &k in offsets {
                        let i = first + usize::from(k);
                        posed[usize::from(k)] = rows.vertex(i, rest[i], s).0;
                    }
                    *sums = (0.0, 0.0);
                    return;
                }
                let slot = rayon::current_thread_index().unwrap_or(0) % thread_counts.len();
                let mut counts = lock(&thread_counts[slot]);
                let (mut mx, mut total, mut j) = (0.0f64, 0.0, 0);
                for &k in offsets {
                    let i = first + usize::from(k);
                    let (pw, d) = rows.vertex(i, rest[i], s);
                    posed[usize::from(k)] = pw;
                    if rows.differs(i) {
                        dev[j] = d;
                        j += 1;
                        mx = mx.max(d);
                        total += d;
                        counts[bin(d)] += 1;
                    }
                }
                *sums = (mx, total);
            });
        let max = self.chunk_sums.iter().fold(0.0, |a: f64, b| a.max(b.0));
        let sum = self.chunk_sums.iter().map(|b| b.1).sum();
        if counting {
            let guards: Vec<_> = self.thread_counts.iter().map(lock).collect();
            self.hist
                .set_sum(guards.iter().map(|g| g.as_slice()), self.zeros);
        } else {
            self.hist.set_sum(std::iter::empty(), self.zeros);
        }
        scene.apply_correctives(pose, &mut self.posed)?;
        let (flipped, area) = self.triangles.sums(s, &self.posed, &mut self.tri_sums);
        Ok(FrameSums {
            max,
            sum,
            flipped,
            area,
        })
    }
}

/// The lock of a per-thread histogram (a poisoned one is still a plain vector of counts).
fn lock(m: &Mutex<Vec<u32>>) -> std::sync::MutexGuard<'_, Vec<u32>> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The mesh's triangles as the triangle pass reads them: the general ones as 32-bit indices
/// with their rest orientation, and the rigid ones by the bone they follow.
struct Triangles {
    general: Vec<[u32; 3]>,
    /// Rest orientation of each general triangle (-1 or 1).
    signs: Vec<i8>,
    rigid: Vec<RigidGroup>,
    /// Rest total |area|.
    rest_area: f64,
}

/// The triangles whose three vertices follow one bone alone (one-hot weights rows on the same
/// bone, that weight at least [`WEIGHT_SUM_EPSILON`]), none degenerate at rest: posed by
/// that bone's affine transform, each signed area is its rest area times the transform's
/// determinant, so a frame needs only the determinant. This is what makes rigidly bound
/// parts (about a third of the rows artists paint are one-hot) cost nothing per frame.
struct RigidGroup {
    bone: usize,
    count: usize,
    /// Sum of twice their rest |area|.
    area2: f64,
}

impl Triangles {
    fn new(scene: &Scene, rows: &PairRows, rigid_allowed: bool) -> Result<Self> {
        let mesh = &scene.mesh;
        let rest = mesh.vertices();
        let n = rest.len();
        let index = |i: usize| u32::try_from(i).map_err(|_| too_large(n));
        let all = mesh
            .triangles()
            .iter()
            .map(|t| Ok([index(t[0])?, index(t[1])?, index(t[2])?]))
            .collect::<Result<Vec<_>>>()?;
        let area2: Vec<f64> = mesh
            .triangles()
            .iter()
            .map(|t| signed_area2(&rest[t[0]], &rest[t[1]], &rest[t[2]]))
            .collect();
        let signs: Vec<i8> = area2
            .iter()
            .map(|a| if a.is_sign_negative() { -1 } else { 1 })
            .collect();
        let rest_area = general_sums(&all, &signs, rest, &mut Vec::new()).1;
        let single: Vec<Option<u32>> = (0..n)
            .map(|i| rigid_allowed.then(|| rows.single_bone(i)).flatten())
            .collect();
        let mut tris = Triangles {
            general: Vec::new(),
            signs: Vec::new(),
            rigid: Vec::new(),
            rest_area,
        };
        let mut group_of = vec![usize::MAX; scene.skeleton.len()];
        for ((t, &a), &sign) in all.iter().zip(&area2).zip(&signs) {
            let bone = single[t[0] as usize];
            let rigid = bone.is_some()
                && t[1..].iter().all(|&v| single[v as usize] == bone)
                && a != 0.0
                && a.is_finite();
            match bone {
                Some(j) if rigid => {
                    let j = j as usize;
                    if group_of[j] == usize::MAX {
                        group_of[j] = tris.rigid.len();
                        tris.rigid.push(RigidGroup {
                            bone: j,
                            count: 0,
                            area2: 0.0,
                        });
                    }
                    let g = &mut tris.rigid[group_of[j]];
                    g.count += 1;
                    g.area2 += a.abs();
                }
                _ => {
                    tris.general.push(*t);
                    tris.signs.push(sign);
                }
            }
        }
        Ok(tris)
    }

    /// Triangles flipped relative to rest and the posed total |area| (see [`general_sums`]),
    /// the rigid groups' from the determinants of the skinning transforms `s`.
    fn sums(
        &self,
        s: &[Affine2],
        posed: &[Point2<f64>],
        sums: &mut Vec<(usize, f64)>,
    ) -> (usize, f64) {
        let (mut flipped, mut area) = general_sums(&self.general, &self.signs, posed, sums);
        for g in &self.rigid {
            let det = s[g.bone].determinant();
            // det * |rest area| has the rest orientation's sign iff det > 0.
            flipped += if det <= 0.0 { g.count } else { 0 };
            area += 0.5 * det.abs() * g.area2;
        }
        (flipped, area)
    }
}

/// The error of a mesh or weights too large for the 32-bit indices of the fused passes.
fn too_large(n: usize) -> Error {
    Error::Weights(WeightsError::WeightsShape {
        problem: WeightsShapeProblem::TooManyVertices { vertices: n },
    })
}

/// The nonzero entries of the weights' rows and the reference's, as the vertex pass reads
/// them: per vertex the bones either weights (clamped at 0 as `lbs_vertex` clamps), in bone
/// order, each with its weight and the difference of its normalized weight (divided by the
/// row's sum, as `lbs_vertex` divides, by at least [`WEIGHT_SUM_EPSILON`]) and the
/// reference's. The position is computed as `lbs_vertex` computes it (bit-identical to
/// [`crate::skinning::lbs_with_affines`]', so flips of nearly collapsed triangles agree),
/// the deviation as `|sum c_j S_j v|` without the reference's skinning and its division
/// (equal to the distance of the two skinnings up to rounding; the tests hold it to 1e-12).
struct PairRows {
    /// Per vertex (and one past the last): 2 × the index of its first entry, + 1 when its
    /// reference row differs from its weights row.
    head: Vec<u32>,
    bone: Vec<u32>,
    /// The weight of each entry.
    w: Vec<f64>,
    /// Its normalized weight minus the reference's (read only for rows that differ).
    c: Vec<f64>,
}

impl PairRows {
    fn new(weights: &Weights, reference: Option<&Weights>) -> Result<Self> {
        let (n, nb) = (weights.vertex_count(), weights.bone_count());
        fn row(w: &Weights, i: usize, nb: usize) -> &[f64] {
            &w.as_slice()[i * nb..(i + 1) * nb]
        }
        // The divisor `lbs_vertex` uses for a row.
        fn divisor(row: &[f64]) -> f64 {
            row.iter()
                .map(|w| w.max(0.0))
                .sum::<f64>()
                .max(WEIGHT_SUM_EPSILON)
        }
        let mut rows = PairRows {
            head: Vec::with_capacity(n + 1),
            bone: Vec::with_capacity(n),
            w: Vec::with_capacity(n),
            c: Vec::with_capacity(n),
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
            let sa = divisor(a);
            let sb = b.map_or(1.0, divisor);
            for j in 0..nb {
                let w = a[j].max(0.0);
                let r = b.map_or(0.0, |b| b[j].max(0.0));
                if w != 0.0 || (differs && r != 0.0) {
                    rows.bone.push(j as u32);
                    rows.w.push(w);
                    rows.c.push(w / sa - r / sb);
                }
            }
        }
        rows.head.push(head(rows.bone.len(), false)?);
        Ok(rows)
    }

    /// Whether vertex `i`'s reference row differs from its weights row.
    fn differs(&self, i: usize) -> bool {
        self.head[i] & 1 == 1
    }

    /// The bone vertex `i` follows alone: its weights row's one nonzero entry, when that is
    /// at least [`WEIGHT_SUM_EPSILON`] (so the skinned position is the bone's transform of
    /// the rest position).
    fn single_bone(&self, i: usize) -> Option<u32> {
        let e = (self.head[i] >> 1) as usize..(self.head[i + 1] >> 1) as usize;
        let mut nonzero = self.bone[e.clone()]
            .iter()
            .zip(&self.w[e])
            .filter(|(_, &w)| w != 0.0);
        match (nonzero.next(), nonzero.next()) {
            (Some((&j, &w)), None) if w >= WEIGHT_SUM_EPSILON => Some(j),
            _ => None,
        }
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
        let mut diff = Vector2::zeros();
        for ((&j, &w), &c) in bones.iter().zip(ws).zip(&self.c[e]) {
            let p = s[j as usize].apply(v).coords;
            if w != 0.0 {
                out += w * p;
                sum += w;
            }
            diff += c * p;
        }
        (Point2::from(out / sum.max(WEIGHT_SUM_EPSILON)), diff.norm())
    }
}

/// Triangles flipped relative to rest (posed signed area 0 or of the other sign than
/// `rest_signs`) and the posed total |area|, in parallel over chunks combined in chunk order
/// (deterministic).
fn general_sums(
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
