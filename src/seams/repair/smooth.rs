//! Limited smoothing of weights near seams (the fifth repair): a few Laplacian steps in
//! a band around the welded seams, on the layers joined at their seams, leaving the outer
//! silhouette's vertices bit for bit as they were.

use super::layers::{check_amount, Layers};
use super::transfer::Union;
use crate::error::{Result, SeamError};
use crate::mesh::{CotanLaplacian, Mesh};
use crate::scene::Scene;
use crate::weights::Weights;

/// Options of [`smooth_seam_weights`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SmoothOptions {
    /// Only vertices within this distance (px) of a seam position move (default
    /// [`Self::DEFAULT_BAND`], 6).
    pub band: f64,
    /// Smoothing steps (default [`Self::DEFAULT_ITERATIONS`], 10).
    pub iterations: usize,
    /// How far each step moves a row toward its neighbours' cotangent-weighted mean, in
    /// (0, 1] (default [`Self::DEFAULT_STRENGTH`], 0.5).
    pub strength: f64,
}

impl Default for SmoothOptions {
    fn default() -> Self {
        SmoothOptions {
            band: Self::DEFAULT_BAND,
            iterations: Self::DEFAULT_ITERATIONS,
            strength: Self::DEFAULT_STRENGTH,
        }
    }
}

impl SmoothOptions {
    /// Default [`Self::band`]: 6 px.
    pub const DEFAULT_BAND: f64 = 6.0;
    /// Default [`Self::iterations`]: 10.
    pub const DEFAULT_ITERATIONS: usize = 10;
    /// Default [`Self::strength`]: 0.5.
    pub const DEFAULT_STRENGTH: f64 = 0.5;

    /// These options moving only vertices within `band` px of a seam position.
    pub fn with_band(mut self, band: f64) -> Self {
        self.band = band;
        self
    }

    /// These options with `iterations` smoothing steps.
    pub fn with_iterations(mut self, iterations: usize) -> Self {
        self.iterations = iterations;
        self
    }

    /// These options moving each row by `strength` toward its neighbours' mean per step.
    pub fn with_strength(mut self, strength: f64) -> Self {
        self.strength = strength;
        self
    }
}

/// What [`smooth_seam_weights`] changed.
#[derive(Debug, Clone, PartialEq)]
pub struct SmoothReport {
    /// Vertices of the joined mesh inside the band (seam positions count once).
    pub band_vertices: usize,
    /// Original vertices whose row changed.
    pub vertices_changed: usize,
    /// Outer-silhouette vertices held fixed (bit for bit).
    pub silhouette_vertices: usize,
    /// Largest change of any weight, any vertex.
    pub max_change: f64,
    /// Largest weight difference across a seam position before and after.
    pub seam_difference: [f64; 2],
}

/// Smooths `weights` in a band around the welded seams of `scene`.
///
/// The layers are joined at their seams as for [`super::seam_consistent_weights`]; a seam
/// position starts from its members' mean row. Each step moves every band vertex's row
/// toward the mean of its neighbours weighted by the cotangent Laplacian
/// ([`CotanLaplacian`]: `(d_i w_i - (L w)_i) / d_i`), clamps negatives (obtuse triangles) and
/// renormalizes. The outer silhouette (boundary vertices of the joined mesh that are not
/// seam positions) and everything outside the band keep their rows bit for bit; the seam
/// positions (also where a seam meets the outline, and those the join keeps apart off the
/// outline) end with one row for all their members, and overlap-strip vertices re-read
/// theirs from the joined mesh. Rows stay finite, >= 0 and sum to 1.
///
/// Errors: options out of range (negative or non-finite band, strength outside (0, 1]);
/// weights of the wrong shape; a scene with fewer than two layers.
pub fn smooth_seam_weights(
    scene: &Scene,
    weights: &Weights,
    options: &SmoothOptions,
) -> Result<(Weights, SmoothReport)> {
    let band = check_amount("smooth band", options.band)?;
    if !(options.strength > 0.0 && options.strength <= 1.0) {
        return Err(SeamError::InvalidAmount {
            option: "smooth strength".into(),
            value: options.strength,
            expected: "in (0, 1]",
        }
        .into());
    }
    crate::skinning::check_shape(scene.mesh.vertex_count(), weights, scene.skeleton.len())?;
    weights.check_scorable()?;
    let layers = Layers::of(scene)?;
    let union = Union::build(scene, &layers)?;
    let bones = weights.bone_count();
    let mut w = joined_rows(&union, weights);
    let before = seam_gap(&union.groups, weights);
    let region = BandRegion::of(&union, band.max(layers.eps), band);
    smooth_rows(&union.scene.mesh, &mut w, bones, &region.in_band, options);

    // Back to the scene: band vertices (and seam positions) take the joined row, the rest
    // keep theirs; overlap-strip vertices re-read theirs from the joined mesh.
    let joined = Weights::from_row_major(w, bones)?;
    let transferred = union.transfer(scene, &layers, &joined);
    let out = take_band_rows(&union, &region, weights, &transferred);
    let (changed, max_change) = row_changes(weights, &out);
    out.validate()?;
    let report = SmoothReport {
        band_vertices: region.in_band.iter().filter(|&&b| b).count(),
        vertices_changed: changed,
        silhouette_vertices: region.silhouette.iter().filter(|&&s| s).count(),
        max_change,
        seam_difference: [before, seam_gap(&union.groups, &out)],
    };
    Ok((out, report))
}

/// The starting rows on the joined mesh (row-major): each union vertex the mean of its
/// members' rows.
fn joined_rows(union: &Union, weights: &Weights) -> Vec<f64> {
    let m = union.scene.mesh.vertex_count();
    let bones = weights.bone_count();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); m];
    for (v, of) in union.of.iter().enumerate() {
        if let Some(u) = *of {
            members[u].push(v);
        }
    }
    let mut w = vec![0.0; m * bones];
    for (u, ms) in members.iter().enumerate() {
        for &v in ms {
            for (b, x) in weights.row(v).iter().enumerate() {
                w[u * bones + b] += x / ms.len() as f64;
            }
        }
    }
    w
}

/// Which union vertices are smoothed: within the band of a seam position, off the outer
/// silhouette.
struct BandRegion {
    in_band: Vec<bool>,
    /// Boundary vertices of the joined mesh that are not seam positions.
    silhouette: Vec<bool>,
}

impl BandRegion {
    fn of(union: &Union, cell: f64, band: f64) -> Self {
        let umesh = &union.scene.mesh;
        let m = umesh.vertex_count();
        let upts = umesh.vertices();
        let seam_points: Vec<usize> = (0..m).filter(|&u| union.seam[u]).collect();
        let mut on_boundary = vec![false; m];
        for &[a, b] in umesh.topology().boundary_edges() {
            on_boundary[a] = true;
            on_boundary[b] = true;
        }
        let silhouette: Vec<bool> = (0..m).map(|u| on_boundary[u] && !union.seam[u]).collect();
        let grid = super::layers::PointGrid::new(upts, &seam_points, cell);
        let in_band = (0..m)
            .map(|u| !silhouette[u] && !grid.near(upts[u], band).is_empty())
            .collect();
        BandRegion {
            in_band,
            silhouette,
        }
    }
}

/// `options.iterations` steps of cotangent-Laplacian smoothing of the band rows of `w`
/// (row-major, `bones` a row), each clamped to >= 0 and renormalized.
fn smooth_rows(
    umesh: &Mesh,
    w: &mut Vec<f64>,
    bones: usize,
    in_band: &[bool],
    options: &SmoothOptions,
) {
    let m = umesh.vertex_count();
    let laplacian = CotanLaplacian::new(umesh);
    let diag = laplacian.diagonal();
    let lambda = options.strength;
    for _ in 0..options.iterations {
        let mut next = w.clone();
        for b in 0..bones {
            let col: Vec<f64> = (0..m).map(|u| w[u * bones + b]).collect();
            let lw = laplacian.apply(&col);
            for u in (0..m).filter(|&u| in_band[u] && diag[u] > 0.0) {
                let mean = (diag[u] * col[u] - lw[u]) / diag[u];
                next[u * bones + b] = (1.0 - lambda) * col[u] + lambda * mean;
            }
        }
        for u in (0..m).filter(|&u| in_band[u]) {
            let row = &mut next[u * bones..(u + 1) * bones];
            row.iter_mut().for_each(|x| *x = x.max(0.0));
            let s: f64 = row.iter().sum();
            if s > 0.0 && s.is_finite() {
                row.iter_mut().for_each(|x| *x /= s);
            }
        }
        *w = next;
    }
}

/// `weights` with the rows of band vertices, seam positions off the silhouette (the join
/// may keep them apart: they still end with one row) and vertices left out of the join
/// taken from `transferred`.
fn take_band_rows(
    union: &Union,
    region: &BandRegion,
    weights: &Weights,
    transferred: &Weights,
) -> Weights {
    let mut out = weights.clone();
    let mut at_seam = vec![false; weights.vertex_count()];
    union
        .groups
        .iter()
        .flatten()
        .for_each(|&v| at_seam[v] = true);
    for (v, (&of, &seam)) in union.of.iter().zip(&at_seam).enumerate() {
        let take = match of {
            Some(u) => region.in_band[u] || (seam && !region.silhouette[u]),
            None => true,
        };
        if take {
            out.row_mut_unchecked(v).copy_from_slice(transferred.row(v));
        }
    }
    out
}

/// Rows of `after` that differ from `before`, and the largest change of any weight.
fn row_changes(before: &Weights, after: &Weights) -> (usize, f64) {
    let mut changed = 0;
    let mut max_change: f64 = 0.0;
    for v in 0..before.vertex_count() {
        let d = after
            .row(v)
            .iter()
            .zip(before.row(v))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        if after.row(v) != before.row(v) {
            changed += 1;
        }
        max_change = max_change.max(d);
    }
    (changed, max_change)
}

fn seam_gap(groups: &[Vec<usize>], weights: &Weights) -> f64 {
    super::transfer::group_difference(groups, weights)
}
