//! Seam repairs, in the production order; each returns the repaired value and what it changed.
//!
//! The production order for separately drawn layers that crack at a joint:
//!
//! 1. shared boundary vertices: [`weld_seams`] (layer boundaries that meet get the same seam
//!    vertices at bit-identical positions, T-junctions resolved);
//! 2. a 1-2 px inward overlap: [`inward_overlap`] (the back layer extends under the front
//!    one along each welded seam, the outer silhouette stays put);
//! 3. alpha dilation and 4. premultiplied alpha: [`crate::render::bleed`] and [`crate::render::premultiply`] (feature `io`;
//!    the `bleed` command) — image repairs, not geometry;
//! 5. normalized, seam-consistent weights with limited smoothing:
//!    [`seam_consistent_weights`] (solve on the layers joined at their seams and transfer
//!    back) and [`smooth_seam_weights`] (a few Laplacian steps in a band around the seams,
//!    the outer silhouette untouched).
//!
//! The browser Asset Lab's tiny-component repair is [`merge_tiny_components`] (islands join
//! the neighbour with the closest colour, small holes are closed). [`repair`] runs the scene
//! repairs in order (tiny components, weld, overlap) and [`repaired_weights`] the weight
//! steps.
//!
//! A layer is a part of the mesh (with art: its layer, back to front; without: the parts in
//! order). Vertices are only ever appended, so vertex indices (probes) stay valid, and every
//! layer keeps its texture, texture coordinates and part label.
//!
//! ```
//! use nalgebra::Point2;
//! use skinweights::seams::repair::{repair, repaired_weights, seam_weight_difference, RepairOptions};
//! use skinweights::mesh::Mesh;
//! use skinweights::scene::Scene;
//! use skinweights::skeleton::{Bone, Skeleton};
//! use skinweights::solvers::Heat;
//! // Two touching 10 x 10 layers meshed separately: no shared vertex, and the right one has
//! // a vertex at (10, 5) in the middle of the left one's edge (a T-junction).
//! let p = |x: f64, y: f64| Point2::new(x, y);
//! let mesh = Mesh::with_parts(
//!     vec![p(0., 0.), p(10., 0.), p(10., 10.), p(0., 10.),
//!          p(10., 0.), p(20., 0.), p(20., 10.), p(10., 10.), p(10., 5.)],
//!     vec![[0, 1, 2], [0, 2, 3], [4, 5, 8], [5, 6, 8], [6, 7, 8]],
//!     vec!["upper".into(), "lower".into()],
//!     vec![0, 0, 0, 0, 1, 1, 1, 1, 1],
//! )?;
//! let skeleton = Skeleton::new(vec![
//!     Bone::new("a", p(0., 5.), p(10., 5.)).with_part("upper"),
//!     Bone::new("b", p(10., 5.), p(20., 5.)).with_parent(0).with_part("lower"),
//! ])?;
//! let scene = Scene::from_mesh(mesh, skeleton)?;
//! let options = RepairOptions::default().with_weld(Some(0.25)).with_overlap(Some(1.0));
//! let (fixed, report) = repair(&scene, &options)?;
//! assert_eq!(report.weld.as_ref().unwrap().vertices_inserted, 1); // (10, 5) on the left
//! assert!((report.overlap.as_ref().unwrap().area_added - 10.0).abs() < 1e-9); // 1 x 10 px
//! let (weights, _) = repaired_weights(&fixed, &options, &Heat::default())?;
//! assert!(seam_weight_difference(&fixed, &weights)? < 1e-12); // the seam moves as one
//! # Ok::<(), skinweights::Error>(())
//! ```

mod islands;
mod layers;
mod overlap;
mod overlap_weights;
mod record;
mod report;
mod smooth;
mod transfer;
mod weld;

pub use islands::{merge_tiny_components, IslandReport, MergedIsland};
pub use layers::silhouette_change;
pub use overlap::{inward_overlap, OverlapReport};
pub use overlap_weights::{
    overlap_consistent_weights, overlap_consistent_weights_with, OverlapWeightsReport,
    DEFAULT_BAND as OVERLAP_BLEND_BAND,
};
pub use record::recorded_seams;
pub use smooth::{smooth_seam_weights, SmoothOptions, SmoothReport};
pub use transfer::{seam_consistent_weights, seam_weight_difference, SeamWeightsReport};
pub use weld::{weld_seams, WeldReport, WeldedPair};

use crate::error::Result;
use crate::scene::Scene;
use crate::solvers::Solver;
use crate::weights::Weights;

/// Which repairs [`repair`] and [`repaired_weights`] run. The default runs none.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct RepairOptions {
    /// Weld layer boundaries that meet within this distance, px (default `None`: no weld;
    /// "shared boundary vertices"). See [`weld_seams`].
    pub weld: Option<f64>,
    /// Extend back layers this far under the front layers along welded seams, px (default
    /// `None`: no overlap; 1 to 2 is usual). Without `weld`, [`repair`] first welds
    /// with tolerance 0 (boundaries that already touch exactly). See [`inward_overlap`].
    pub overlap: Option<f64>,
    /// Merge islands and close holes smaller than this area, px^2 (default `None`: off).
    /// See [`merge_tiny_components`].
    pub merge_islands: Option<f64>,
    /// The colour (RGBA in 0..1) of every vertex of the scene [`repair`] is given, for
    /// merging islands into the neighbour with the closest colour (default `None`: the
    /// nearest neighbour). See [`merge_tiny_components`].
    pub vertex_colours: Option<Vec<[f64; 4]>>,
    /// Smooth the weights in a band around the seams after the seam-consistent solve
    /// (default `false`). See [`smooth_seam_weights`].
    pub smooth_seams: bool,
    /// Options of that smoothing (default [`SmoothOptions::default`]).
    pub smooth: SmoothOptions,
    /// Last weight step: where layers linked by a joint overlap instead of touching (real
    /// layered art: an arm drawn over the body), give both layers' vertices in the overlap
    /// one blended weight field (default `false`). See [`overlap_consistent_weights`]: it
    /// closes such a shoulder, but a narrow overlap far from its joint folds in extreme
    /// poses.
    pub blend_overlaps: bool,
    /// Record Spine's Weld in the repaired scene (default `false`): every vertex of a layer
    /// under a triangle of a layer in front of it that a joint links follows that layer's
    /// weights at its position, whichever solver solves the scene later. See
    /// [`recorded_seams`]. `blend_overlaps` records the same welds.
    pub weld_overlaps: bool,
}

impl RepairOptions {
    /// These options welding boundaries that meet within `weld` px (`None`: no weld).
    pub fn with_weld(mut self, weld: Option<f64>) -> Self {
        self.weld = weld;
        self
    }

    /// These options extending back layers `overlap` px under the front layers (`None`:
    /// no overlap).
    pub fn with_overlap(mut self, overlap: Option<f64>) -> Self {
        self.overlap = overlap;
        self
    }

    /// These options merging islands and closing holes smaller than `merge_islands` px^2
    /// (`None`: off).
    pub fn with_merge_islands(mut self, merge_islands: Option<f64>) -> Self {
        self.merge_islands = merge_islands;
        self
    }

    /// These options merging islands by `vertex_colours` (`None`: by distance alone).
    pub fn with_vertex_colours(mut self, vertex_colours: Option<Vec<[f64; 4]>>) -> Self {
        self.vertex_colours = vertex_colours;
        self
    }

    /// These options smoothing the weights around the seams or not.
    pub fn with_smooth_seams(mut self, smooth_seams: bool) -> Self {
        self.smooth_seams = smooth_seams;
        self
    }

    /// These options with `smooth` as the options of that smoothing.
    pub fn with_smooth(mut self, smooth: SmoothOptions) -> Self {
        self.smooth = smooth;
        self
    }

    /// These options blending the weights of overlapping linked layers or not.
    pub fn with_blend_overlaps(mut self, blend_overlaps: bool) -> Self {
        self.blend_overlaps = blend_overlaps;
        self
    }

    /// These options recording Spine's Weld in the repaired scene or not.
    pub fn with_weld_overlaps(mut self, weld_overlaps: bool) -> Self {
        self.weld_overlaps = weld_overlaps;
        self
    }
}

/// What [`repair`] changed, step by step (`None`: the step did not run).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RepairReport {
    /// Tiny components.
    pub islands: Option<IslandReport>,
    /// Shared boundary.
    pub weld: Option<WeldReport>,
    /// Inward overlap.
    pub overlap: Option<OverlapReport>,
}

/// Runs the scene repairs `options` asks for, in the production order: tiny components, shared
/// boundary (weld), inward overlap. Errors are those of the steps (bad amounts name the
/// option; a scene with fewer than two layers cannot be welded or overlapped).
pub fn repair(scene: &Scene, options: &RepairOptions) -> Result<(Scene, RepairReport)> {
    let mut report = RepairReport::default();
    let mut current = scene.clone();
    if let Some(area) = options.merge_islands {
        let (s, r) = merge_tiny_components(&current, area, options.vertex_colours.as_deref())?;
        current = s;
        report.islands = Some(r);
    }
    let weld = options.weld.or(options.overlap.map(|_| 0.0));
    if let Some(tol) = weld {
        let (s, r) = weld_seams(&current, tol)?;
        current = s;
        report.weld = Some(r);
    }
    if let Some(px) = options.overlap {
        let (s, r) = inward_overlap(&current, px)?;
        current = s;
        report.overlap = Some(r);
    }
    // The scene remembers its seams, so any later solve joins them again (with fewer than
    // two layers there is nothing to record and the scene's own seams stay).
    let seams = recorded_seams(&current, options.weld_overlaps || options.blend_overlaps)?;
    if !seams.is_empty() {
        current = current.with_seams(seams)?;
    }
    Ok((current, report))
}

/// The weight steps for a (repaired) scene: seam-consistent weights with `solver`, then,
/// when `options.smooth_seams`, limited smoothing around the seams, and when
/// `options.blend_overlaps`, the blend of overlapping layers linked by a joint
/// ([`overlap_consistent_weights`]).
pub fn repaired_weights(
    scene: &Scene,
    options: &RepairOptions,
    solver: &dyn Solver,
) -> Result<(Weights, WeightsRepairReport)> {
    let (mut weights, mut consistent) = seam_consistent_weights(scene, solver)?;
    let mut smooth = None;
    if options.smooth_seams {
        let (w, r) = smooth_seam_weights(scene, &weights, &options.smooth)?;
        weights = w;
        smooth = Some(r);
    }
    if options.blend_overlaps {
        let (w, r) = overlap_consistent_weights(scene, &weights)?;
        weights = w;
        consistent.overlap = Some(r);
    }
    // Last: the scene's recorded seams (joints and welds), as every registry solve applies
    // them, so these weights are the ones a later `solve` of the scene gives at the seams.
    scene.seams.join(&mut weights)?;
    if options.blend_overlaps || !scene.seams.is_empty() {
        consistent.consistent_max_difference = seam_weight_difference(scene, &weights)?;
    }
    Ok((weights, WeightsRepairReport { consistent, smooth }))
}

/// What [`repaired_weights`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightsRepairReport {
    /// The seam-consistent solve.
    pub consistent: SeamWeightsReport,
    /// The smoothing, if it ran.
    pub smooth: Option<SmoothReport>,
}
