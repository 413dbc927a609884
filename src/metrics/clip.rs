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
//! largest |area change|. Over several clips ([`summarize`]) the same pooled over all their
//! frames. The CLI (`skinweights eval --clip`), the view and Python use these functions and
//! the JSON keys of [`ClipMetrics`].

use super::percentile;
use crate::animation::{Clip, DEFAULT_FPS};
use crate::error::Result;
use crate::mesh::{signed_area2, Mesh};
use crate::scene::Scene;
use crate::skinning::{check_shape, lbs_vertex_pair, lbs_with_affines_into, LBS_CHUNK};
use crate::weights::Weights;
use nalgebra::Point2;
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
    #[serde(skip)]
    pooled: Pooled,
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

/// The metrics of `weights` over `clip` (see the module documentation), with deviations when
/// `reference` weights are given.
///
/// One pass per frame over the vertices (both skinnings and the deviation fused, in
/// parallel) and one over the triangles, into buffers allocated once per clip; percentiles
/// are exact (nearest rank) by a histogram of the values' bit patterns and a selection
/// inside the one bin that holds the rank.
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
    let mesh = &scene.mesh;
    let rest = mesh.vertices();
    let rest_signs = rest_signs(mesh);
    let rest_area = triangle_stats(mesh, &rest_signs, rest, &mut Vec::new()).1;
    let nb = scene.skeleton.len().max(1);
    let chunks = n.div_ceil(LBS_CHUNK);
    let mut posed = vec![Point2::origin(); n];
    let mut dev = vec![0.0; if reference.is_some() { n } else { 0 }];
    let mut chunk_stats = vec![(0.0, 0.0); chunks];
    let mut tri_stats = Vec::new();
    let mut hist = Histogram::new();
    let mut pooled_hist = Histogram::new();
    let mut pooled = Vec::with_capacity(if reference.is_some() {
        n * times.len()
    } else {
        0
    });
    let mut per_frame = Vec::with_capacity(times.len());
    let mut worst: Option<(f64, usize)> = None;
    let mut total = 0.0;
    for (fi, &t) in times.iter().enumerate() {
        let pose = scene.clip_pose(clip, t)?;
        let s = scene.skeleton.skinning_affines(&pose)?;
        let (mut dmax, mut dp95, mut dmean) = (None, None, None);
        match reference {
            Some(r) => {
                // Both skinnings and the deviation in one pass (the weights are the memory
                // traffic); per-chunk max and sum, combined in chunk order (deterministic).
                posed
                    .par_chunks_mut(LBS_CHUNK)
                    .zip(dev.par_chunks_mut(LBS_CHUNK))
                    .zip(rest.par_chunks(LBS_CHUNK))
                    .zip(weights.as_slice().par_chunks(LBS_CHUNK * nb))
                    .zip(r.as_slice().par_chunks(LBS_CHUNK * nb))
                    .zip(chunk_stats.par_iter_mut())
                    .for_each(|(((((p, d), v), w), r), st)| {
                        let (mut mx, mut sum) = (0.0f64, 0.0);
                        for ((((p, d), v), w), r) in p
                            .iter_mut()
                            .zip(d.iter_mut())
                            .zip(v)
                            .zip(w.chunks_exact(nb))
                            .zip(r.chunks_exact(nb))
                        {
                            let (pw, pr) = lbs_vertex_pair(*v, w, r, &s);
                            *p = pw;
                            *d = (pw - pr).norm();
                            mx = mx.max(*d);
                            sum += *d;
                        }
                        *st = (mx, sum);
                    });
                let m = chunk_stats.iter().fold(0.0, |a: f64, s| a.max(s.0));
                let sum: f64 = chunk_stats.iter().map(|s| s.1).sum();
                total += sum;
                if worst.is_none_or(|(w, _)| m > w) {
                    worst = Some((m, fi));
                }
                hist.fill(&dev);
                pooled_hist.add(&hist);
                dmax = Some(m);
                dp95 = Some(hist.quantile(&[&dev], 0.95));
                dmean = Some(if n == 0 { 0.0 } else { sum / n as f64 });
                pooled.extend_from_slice(&dev);
            }
            None => lbs_with_affines_into(rest, weights, &s, &mut posed)?,
        }
        // The same offsets move both skinnings, so deviations are unchanged; the flips and
        // the area are those of the drawn character.
        scene.apply_correctives(&pose, &mut posed)?;
        let (flipped, area) = triangle_stats(mesh, &rest_signs, &posed, &mut tri_stats);
        per_frame.push(FrameMetrics {
            time: t,
            deviation_max_px: dmax,
            deviation_p95_px: dp95,
            deviation_mean_px: dmean,
            flipped,
            area_change_pct: (area / rest_area - 1.0) * 100.0,
        });
    }
    let deviations = reference.map(|_| {
        let count = pooled.len();
        (
            worst.map_or(0.0, |w| w.0),
            pooled_hist.quantile(&[&pooled], 0.95),
            if count == 0 {
                0.0
            } else {
                total / count as f64
            },
        )
    });
    let pooled = Pooled {
        values: pooled,
        hist: pooled_hist,
    };
    let mut m = finish(
        clip.name.clone(),
        scene.mesh.height(),
        per_frame,
        pooled,
        deviations,
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
    let frames = clips.iter().map(|c| c.frames).sum();
    let mut hist = Histogram::new();
    for c in clips {
        hist.add(&c.pooled.hist);
    }
    let values: Vec<&[f64]> = clips.iter().map(|c| c.pooled.values.as_slice()).collect();
    let deviations = with_reference.then(|| {
        let count: usize = values.iter().map(|v| v.len()).sum();
        let sum: f64 = clips
            .iter()
            .map(|c| c.deviation_mean_px.unwrap_or(0.0) * c.pooled.values.len() as f64)
            .sum();
        (
            clips
                .iter()
                .filter_map(|c| c.deviation_max_px)
                .fold(0.0, f64::max),
            hist.quantile(&values, 0.95),
            if count == 0 { 0.0 } else { sum / count as f64 },
        )
    });
    let mut m = finish(
        "all".into(),
        height,
        Vec::new(),
        Pooled::default(),
        deviations,
    );
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

/// Every (frame, vertex) deviation of a clip and their histogram, kept for [`summarize`].
#[derive(Debug, Clone, Default, PartialEq)]
struct Pooled {
    values: Vec<f64>,
    hist: Histogram,
}

/// Bins of [`Histogram`]: the top 16 bits of an `f64` (sign, exponent, 4 mantissa bits), so
/// for values >= 0 bin order is value order and a bin spans 1/16 of an octave.
const BINS: usize = 1 << 16;
/// Values per parallel task of [`Histogram::fill`].
const HIST_CHUNK: usize = 1 << 18;

/// Counts of values per bin of their bit pattern, for exact nearest-rank percentiles of many
/// non-negative values without sorting them: find the bin holding the rank, select inside it.
#[derive(Debug, Clone, PartialEq)]
struct Histogram {
    counts: Vec<u64>,
    locals: Vec<Vec<u32>>,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

impl Histogram {
    fn new() -> Self {
        Histogram {
            counts: vec![0; BINS],
            locals: Vec::new(),
        }
    }

    fn bin(x: f64) -> usize {
        (x.to_bits() >> 48) as usize
    }

    /// The histogram of `values` (replacing what it held).
    fn fill(&mut self, values: &[f64]) {
        let chunks = values.len().div_ceil(HIST_CHUNK);
        self.locals.resize_with(chunks, || vec![0; BINS]);
        self.locals
            .par_iter_mut()
            .zip(values.par_chunks(HIST_CHUNK))
            .for_each(|(h, c)| {
                h.fill(0);
                for &x in c {
                    h[Self::bin(x)] += 1;
                }
            });
        self.counts.fill(0);
        for h in &self.locals[..chunks] {
            for (c, &l) in self.counts.iter_mut().zip(h) {
                *c += u64::from(l);
            }
        }
    }

    fn add(&mut self, other: &Histogram) {
        for (c, &o) in self.counts.iter_mut().zip(&other.counts) {
            *c += o;
        }
    }

    /// The `q` quantile (nearest rank, as [`percentile`]) of the values in `slices`, which
    /// this histogram counts.
    fn quantile(&self, slices: &[&[f64]], q: f64) -> f64 {
        let total: u64 = self.counts.iter().sum();
        if total == 0 {
            return 0.0;
        }
        if self.counts[BINS / 2..].iter().any(|&c| c > 0) {
            // A value with the sign bit set (-0.0 or a NaN): bit order is not value order,
            // so take the general path.
            let all: Vec<f64> = slices.iter().flat_map(|s| s.iter().copied()).collect();
            return percentile(&all, q);
        }
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let (mut below, mut bin) = (0, 0);
        for (b, &c) in self.counts.iter().enumerate() {
            if below + c >= rank {
                bin = b;
                break;
            }
            below += c;
        }
        let mut inside: Vec<f64> = slices
            .par_iter()
            .flat_map(|s| s.par_iter().copied().filter(|&x| Self::bin(x) == bin))
            .collect();
        let (_, x, _) = inside.select_nth_unstable_by((rank - below - 1) as usize, f64::total_cmp);
        *x
    }
}

fn finish(
    clip: String,
    height: f64,
    per_frame: Vec<FrameMetrics>,
    pooled: Pooled,
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
            .fold(0.0, |a: f64, b| if b.abs() > a.abs() { b } else { a }),
        per_frame,
        pooled,
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

fn rest_signs(mesh: &Mesh) -> Vec<f64> {
    let r = mesh.vertices();
    mesh.triangles()
        .iter()
        .map(|t| signed_area2(&r[t[0]], &r[t[1]], &r[t[2]]).signum())
        .collect()
}

/// Triangles flipped relative to rest (posed signed area 0 or of the other sign) and the
/// posed total |area|, in parallel over chunks combined in chunk order (deterministic).
fn triangle_stats(
    mesh: &Mesh,
    rest_signs: &[f64],
    posed: &[Point2<f64>],
    stats: &mut Vec<(usize, f64)>,
) -> (usize, f64) {
    const CHUNK: usize = 8192;
    let tris = mesh.triangles();
    stats.resize(tris.len().div_ceil(CHUNK), (0, 0.0));
    stats
        .par_iter_mut()
        .zip(tris.par_chunks(CHUNK))
        .zip(rest_signs.par_chunks(CHUNK))
        .for_each(|((st, tris), signs)| {
            let (mut flipped, mut area) = (0, 0.0);
            for (t, &s) in tris.iter().zip(signs) {
                let a = signed_area2(&posed[t[0]], &posed[t[1]], &posed[t[2]]);
                flipped += usize::from(a * s <= 0.0);
                area += a.abs();
            }
            *st = (flipped, area);
        });
    let flipped = stats.iter().map(|s| s.0).sum();
    let area = stats.iter().map(|s| s.1).sum::<f64>() * 0.5;
    (flipped, area)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantile_equals_the_sorting_percentile() {
        // Ties, zeros, values spread over many octaves, and more than one slice and chunk.
        let a: Vec<f64> = (0..600_001u64)
            .map(|i| ((i * 7919) % 1000) as f64 * 0.013)
            .collect();
        let b: Vec<f64> = (0..1000).map(|i| (i as f64).powi(3) * 1e-6).collect();
        let all: Vec<f64> = a.iter().chain(&b).copied().collect();
        let mut h = Histogram::new();
        h.fill(&a);
        let mut hb = Histogram::new();
        hb.fill(&b);
        h.add(&hb);
        for q in [0.0, 0.01, 0.5, 0.95, 0.999, 1.0] {
            assert_eq!(h.quantile(&[&a, &b], q), percentile(&all, q), "q = {q}");
        }
        hb.fill(&b);
        assert_eq!(hb.quantile(&[&b], 0.95), percentile(&b, 0.95));
        // A negative zero (sign bit set) takes the general path.
        let c = [0.5, -0.0, 2.0, 1.0];
        let mut hc = Histogram::new();
        hc.fill(&c);
        assert_eq!(hc.quantile(&[&c], 0.5), percentile(&c, 0.5));
        assert_eq!(Histogram::new().quantile(&[], 0.95), 0.0);
    }
}
