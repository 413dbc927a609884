//! Limited smoothing of weights near seams (the seeds' fifth repair): a few Laplacian steps in
//! a band around the welded seams, on the layers joined at their seams, leaving the outer
//! silhouette's vertices bit for bit as they were.

use super::layers::{check_amount, Layers};
use super::transfer::Union;
use crate::error::{Error, Result};
use crate::mesh::CotanLaplacian;
use crate::scene::Scene;
use crate::weights::Weights;

/// Options of [`smooth_seam_weights`].
#[derive(Debug, Clone, PartialEq)]
pub struct SmoothOptions {
    /// Only vertices within this distance (px) of a seam position move (default 6).
    pub band: f64,
    /// Smoothing steps (default 10).
    pub iterations: usize,
    /// How far each step moves a row toward its neighbours' cotangent-weighted mean, in
    /// (0, 1] (default 0.5).
    pub strength: f64,
}

impl Default for SmoothOptions {
    fn default() -> Self {
        SmoothOptions {
            band: 6.0,
            iterations: 10,
            strength: 0.5,
        }
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
/// positions (also where a seam meets the outline) end with one row for all their members,
/// and overlap-strip vertices re-read theirs from the joined mesh. Rows stay finite, >= 0
/// and sum to 1.
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
        return Err(Error::InvalidField {
            field: "smooth strength".into(),
            message: format!("must be in (0, 1], got {}", options.strength),
        });
    }
    crate::skinning::check_shape(scene.mesh.vertex_count(), weights, scene.skeleton.len())?;
    weights.check_scorable()?;
    let layers = Layers::of(scene)?;
    let union = Union::build(scene, &layers)?;
    let umesh = &union.scene.mesh;
    let m = umesh.vertex_count();
    let bones = weights.bone_count();
    let n = scene.mesh.vertex_count();

    // Starting rows on the joined mesh: the mean of the members.
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); m];
    for v in 0..n {
        if let Some(u) = union.of[v] {
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
    let before = seam_gap(&union.groups, weights);

    // The band: union vertices within `band` of a seam position, off the outer silhouette.
    let upts = umesh.vertices();
    let seam_points: Vec<usize> = (0..m).filter(|&u| union.seam[u]).collect();
    let mut on_boundary = vec![false; m];
    for &[a, b] in umesh.topology().boundary_edges() {
        on_boundary[a] = true;
        on_boundary[b] = true;
    }
    let silhouette: Vec<bool> = (0..m).map(|u| on_boundary[u] && !union.seam[u]).collect();
    let grid = super::layers::PointGrid::new(upts, &seam_points, band.max(layers.eps));
    let in_band: Vec<bool> = (0..m)
        .map(|u| !silhouette[u] && !grid.near(upts[u], band).is_empty())
        .collect();

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
        w = next;
    }

    // Back to the scene: band vertices (and seam positions) take the joined row, the rest
    // keep theirs; overlap-strip vertices re-read theirs from the joined mesh.
    let joined = Weights::from_row_major(w, bones)?;
    let transferred = union.transfer(scene, &layers, &joined);
    let mut out = weights.clone();
    for v in 0..n {
        let take = match union.of[v] {
            Some(u) => in_band[u] || (union.seam[u] && !silhouette[u]),
            None => true,
        };
        if take {
            out.row_mut(v).copy_from_slice(transferred.row(v));
        }
    }
    let mut changed = 0;
    let mut max_change: f64 = 0.0;
    for v in 0..n {
        let d = out
            .row(v)
            .iter()
            .zip(weights.row(v))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        if out.row(v) != weights.row(v) {
            changed += 1;
        }
        max_change = max_change.max(d);
    }
    out.validate()?;
    let report = SmoothReport {
        band_vertices: in_band.iter().filter(|&&b| b).count(),
        vertices_changed: changed,
        silhouette_vertices: silhouette.iter().filter(|&&s| s).count(),
        max_change,
        seam_difference: [before, seam_gap(&union.groups, &out)],
    };
    Ok((out, report))
}

fn seam_gap(groups: &[Vec<usize>], weights: &Weights) -> f64 {
    super::transfer::group_difference(groups, weights)
}
