//! Meshing of outlines with spade (constrained Delaunay + quality refinement).
//!
//! An [`Outline`] is a set of closed loops plus constraint segments (bones). [`mesh_outline`]
//! cleans the loops, rejects self-overlapping input with [`MeshError::Meshing`], triangulates with
//! every loop edge and segment as a constraint, refines to a minimum angle and a maximum
//! triangle area, and keeps the triangles inside the outline (even-odd rule).
//!
//! Why we classify inside/outside ourselves: spade's `exclude_outer_faces` decides by the
//! parity of constraint crossings, so an interior bone constraint (an open segment, crossed
//! from both sides) flips that parity and corrupts the classification. We therefore let spade
//! refine the whole convex hull when there are segments, then flood-fill regions bounded by
//! constraint edges and test one point of each region against the loops.

use crate::error::{Error, MeshError, MeshingProblem, OutlinePlace, Result, VertexPartsProblem};
use crate::geometry::{
    even_odd_contains, loop_area, loop_edges, signed_area2, touching_edge_pairs, EvenOddIndex,
    Segment,
};
use nalgebra::Point2;
use spade::{
    handles::FixedVertexHandle, AngleLimit, ConstrainedDelaunayTriangulation, RefinementParameters,
    Triangulation,
};
use std::collections::VecDeque;

/// Polygonal outline to mesh: closed loops (outer boundaries counter-clockwise, holes
/// clockwise; several outer loops make several components) plus extra constraint segments
/// (e.g. bones) that the mesh must contain as edges.
///
/// Inside is decided by the even-odd rule over all loops, so the orientation of a loop only
/// matters for [`Outline::area`]. Loops may touch each other only at shared vertices; consecutive
/// duplicate points and zero-width spikes (a point where the loop turns back on itself) are
/// removed. Segments may end on loop edges or lie along them, but must not cross them.
#[derive(Debug, Clone, Default)]
pub struct Outline {
    /// Closed loops (the last point connects back to the first).
    pub loops: Vec<Vec<Point2<f64>>>,
    /// Segments that must appear as (chains of) mesh edges.
    pub segments: Vec<[Point2<f64>; 2]>,
}

impl Outline {
    /// Signed area: the sum of the loops' shoelace areas (outer loops counter-clockwise count
    /// positive, clockwise holes negative). Equals the meshed area for well-formed outlines.
    pub fn area(&self) -> f64 {
        self.loops.iter().map(|l| loop_area(l)).sum()
    }

    /// Whether `p` is inside the outline's loops (even-odd rule; points on a loop edge may go
    /// either way).
    pub fn contains(&self, p: Point2<f64>) -> bool {
        even_odd_contains(&self.loops, p)
    }

    /// Total length of the loops and segments: the constrained edges along which refinement
    /// puts extra vertices (used to estimate the vertex count).
    pub fn perimeter(&self) -> f64 {
        let loops: f64 = self
            .loops
            .iter()
            .flat_map(|l| loop_edges(l))
            .map(|(a, b)| (b - a).norm())
            .sum();
        let segments: f64 = self.segments.iter().map(|s| (s[1] - s[0]).norm()).sum();
        loops + segments
    }
}

/// Meshing options.
///
/// ```
/// use skinweights::mesh::MeshingOptions;
/// let options = MeshingOptions::default().with_target_vertices(3_000);
/// assert_eq!(options.target_vertices, 3_000);
/// assert_eq!(options.min_angle_deg, MeshingOptions::DEFAULT_MIN_ANGLE_DEG);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MeshingOptions {
    /// Target vertex count. The result lands within a few percent of it (a calibration pass
    /// re-meshes when the first guess is off). Ignored when `max_area` is set.
    ///
    /// Default: [`MeshingOptions::DEFAULT_TARGET_VERTICES`] (10 000).
    pub target_vertices: usize,
    /// Maximum triangle area; `None`: derived from `target_vertices` and the outline area.
    ///
    /// Default: `None`.
    pub max_area: Option<f64>,
    /// Minimum angle refinement aims for, degrees (allowed 0 to 34: spade cannot guarantee
    /// termination much above 30).
    ///
    /// Default: [`MeshingOptions::DEFAULT_MIN_ANGLE_DEG`] (25).
    pub min_angle_deg: f64,
}

impl MeshingOptions {
    /// Default of [`MeshingOptions::target_vertices`].
    pub const DEFAULT_TARGET_VERTICES: usize = 10_000;
    /// Default of [`MeshingOptions::min_angle_deg`].
    pub const DEFAULT_MIN_ANGLE_DEG: f64 = 25.0;

    /// With [`MeshingOptions::target_vertices`] set.
    pub fn with_target_vertices(mut self, target_vertices: usize) -> Self {
        self.target_vertices = target_vertices;
        self
    }
    /// With [`MeshingOptions::max_area`] set (`None`: derived from the target vertex count).
    pub fn with_max_area(mut self, max_area: Option<f64>) -> Self {
        self.max_area = max_area;
        self
    }
    /// With [`MeshingOptions::min_angle_deg`] set.
    pub fn with_min_angle_deg(mut self, min_angle_deg: f64) -> Self {
        self.min_angle_deg = min_angle_deg;
        self
    }
}

impl Default for MeshingOptions {
    fn default() -> Self {
        MeshingOptions {
            target_vertices: Self::DEFAULT_TARGET_VERTICES,
            max_area: None,
            min_angle_deg: Self::DEFAULT_MIN_ANGLE_DEG,
        }
    }
}

/// What meshing did.
#[derive(Debug, Clone, Default)]
pub struct MeshingReport {
    /// Vertices in the result.
    pub vertices: usize,
    /// Triangles in the result.
    pub triangles: usize,
    /// The maximum triangle area of the last refinement.
    pub max_area: f64,
    /// Smallest interior angle of any output triangle, degrees.
    pub min_angle_deg: f64,
    /// Number of triangulations run (more than 1 when the vertex count was calibrated).
    pub passes: usize,
}

/// Raw mesh arrays: vertex positions and counter-clockwise triangles (vertex indices).
pub type MeshArrays = (Vec<Point2<f64>>, Vec<[usize; 3]>);

/// What [`mesh_outline`] returns: vertices, counter-clockwise triangles and a report.
pub type MeshedOutline = (Vec<Point2<f64>>, Vec<[usize; 3]>, MeshingReport);

/// Refuse requests beyond this many vertices (spade needs roughly 1 GB per 5M vertices, and
/// the mesh, its topology and a solve several times that).
pub const MAX_VERTICES: usize = 5_000_000;

/// Upper bound accepted for [`MeshingOptions::min_angle_deg`].
const MAX_MIN_ANGLE_DEG: f64 = 34.0;

/// Meshes an outline into vertices and counter-clockwise triangles.
///
/// Every output vertex is used by a triangle; every loop edge and segment is covered by a chain
/// of mesh edges. Errors ([`MeshError::Meshing`]): empty outline, non-finite or out-of-range
/// coordinates, degenerate or self-overlapping loops, segments crossing the outline or each
/// other, bad options, and refinement that could not complete.
pub fn mesh_outline(outline: &Outline, options: &MeshingOptions) -> Result<MeshedOutline> {
    let prepared = prepare(outline)?;
    check_angle(options.min_angle_deg)?;
    let run = |max_area: f64| -> Result<(MeshArrays, usize)> {
        let (v, t) = triangulate(&prepared, max_area, options.min_angle_deg)?;
        let n = v.len();
        Ok(((v, t), n))
    };
    let ((vertices, triangles), max_area, passes) = match options.max_area {
        Some(a) => {
            check_max_area(a)?;
            (run(a)?.0, a, 1)
        }
        None => {
            let area = prepared.area();
            let perimeter = outline.perimeter();
            calibrate_max_area(options.target_vertices, area, perimeter, run)?
        }
    };
    let min_angle_deg = min_angle_of(&vertices, &triangles);
    let report = MeshingReport {
        vertices: vertices.len(),
        triangles: triangles.len(),
        max_area,
        min_angle_deg,
        passes,
    };
    Ok((vertices, triangles, report))
}

/// Vertex count model `N = INTERIOR * area / a + BOUNDARY * perimeter / sqrt(a)` for the
/// maximum triangle area `a`, fitted on spade's refinement at 28 degrees (arms-down and a bar,
/// 1k to 300k vertices: the interior ratio falls from 0.94 to 0.78 as the boundary term
/// fades).
const INTERIOR: f64 = 0.78;
/// See [`INTERIOR`]: extra vertices per unit of constrained length, in units of sqrt(a).
const BOUNDARY: f64 = 0.3;
/// Calibration stops once the count is within this relative distance of the target.
const CALIBRATION_TOLERANCE: f64 = 0.04;
/// At most this many triangulations are run while calibrating.
const CALIBRATION_PASSES: usize = 4;

/// First guess of the maximum triangle area that gives about `target_vertices` vertices on a
/// region of the given area whose loops and segments have the given total length.
pub fn estimate_max_area(area: f64, perimeter: f64, target_vertices: usize) -> f64 {
    // Solve INTERIOR * A * s^2 + BOUNDARY * P * s = N for s = 1 / sqrt(a).
    let (a, p, n) = (
        INTERIOR * area.abs(),
        BOUNDARY * perimeter.abs(),
        target_vertices.max(1) as f64,
    );
    let s = (-p + (p * p + 4.0 * a * n).sqrt()) / (2.0 * a);
    1.0 / (s * s)
}

/// Finds a maximum triangle area whose mesh has about `target_vertices` vertices.
///
/// `run(max_area)` meshes and returns its result with the vertex count that should match the
/// target (callers that post-process, e.g. mirror a half, count the final mesh). The count
/// scales like `1 / max_area`, so each pass rescales the area by `count / target`. Returns the
/// closest result, the area used and the number of passes.
pub fn calibrate_max_area<T>(
    target_vertices: usize,
    area: f64,
    perimeter: f64,
    mut run: impl FnMut(f64) -> Result<(T, usize)>,
) -> Result<(T, f64, usize)> {
    if !(3..=MAX_VERTICES).contains(&target_vertices) {
        return Err(MeshError::Meshing {
            problem: MeshingProblem::TargetVertices {
                target: target_vertices,
                max: MAX_VERTICES,
            },
        }
        .into());
    }
    if !area.is_finite() || area.abs() <= 0.0 || !perimeter.is_finite() {
        return Err(MeshError::Meshing {
            problem: MeshingProblem::OutlineArea { area },
        }
        .into());
    }
    let target = target_vertices as f64;
    let mut max_area = estimate_max_area(area, perimeter, target_vertices);
    let mut best: Option<(T, f64, f64)> = None; // (result, max_area, relative error)
    let mut passes = 0;
    while passes < CALIBRATION_PASSES {
        passes += 1;
        let (result, count) = run(max_area)?;
        let rel = (count as f64 - target).abs() / target;
        let used = max_area;
        // The count scales like 1 / max_area; the clamp keeps one wild pass (e.g. a tiny
        // target dominated by fixed input vertices) from overshooting.
        max_area *= (count.max(1) as f64 / target).clamp(0.1, 10.0);
        if best.as_ref().is_none_or(|b| rel < b.2) {
            best = Some((result, used, rel));
        }
        if rel <= CALIBRATION_TOLERANCE {
            break;
        }
    }
    let (result, used, _) = best.ok_or(Error::Mesh(MeshError::Meshing {
        problem: MeshingProblem::NoCalibrationPass,
    }))?;
    Ok((result, used, passes))
}

fn check_angle(deg: f64) -> Result<()> {
    if !(0.0..=MAX_MIN_ANGLE_DEG).contains(&deg) {
        return Err(MeshError::Meshing {
            problem: MeshingProblem::MinAngle {
                degrees: deg,
                max: MAX_MIN_ANGLE_DEG,
            },
        }
        .into());
    }
    Ok(())
}

fn check_max_area(a: f64) -> Result<()> {
    if !a.is_finite() || a <= 0.0 {
        return Err(MeshError::Meshing {
            problem: MeshingProblem::MaxArea { max_area: a },
        }
        .into());
    }
    Ok(())
}

/// An outline after cleaning and validation.
#[derive(Debug)]
struct Prepared {
    loops: Vec<Vec<Point2<f64>>>,
    segments: Vec<[Point2<f64>; 2]>,
}

impl Prepared {
    fn area(&self) -> f64 {
        // Even-odd inside, so a hole counts negative whatever its stored orientation when it
        // lies inside an outer loop; for calibration the absolute sum is a good enough size.
        self.loops.iter().map(|l| loop_area(l)).sum::<f64>().abs()
    }
}

/// spade rejects coordinates whose magnitude is outside this range (besides exact zero).
const COORD_LIMIT: f64 = 1e50;

fn check_point(p: Point2<f64>, place: impl Fn() -> OutlinePlace) -> Result<()> {
    if !p.x.is_finite() || !p.y.is_finite() || p.x.abs() > COORD_LIMIT || p.y.abs() > COORD_LIMIT {
        return Err(MeshError::Meshing {
            problem: MeshingProblem::BadCoordinate {
                place: place(),
                x: p.x,
                y: p.y,
            },
        }
        .into());
    }
    Ok(())
}

/// Validates and cleans an outline.
fn prepare(outline: &Outline) -> Result<Prepared> {
    if outline.loops.is_empty() {
        return Err(MeshError::Meshing {
            problem: MeshingProblem::NoLoops,
        }
        .into());
    }
    let mut loops = Vec::with_capacity(outline.loops.len());
    for (li, l) in outline.loops.iter().enumerate() {
        for (pi, p) in l.iter().enumerate() {
            check_point(*p, || OutlinePlace::LoopPoint {
                loop_index: li,
                point: pi,
            })?;
        }
        let cleaned = clean_loop(l);
        if cleaned.len() < 3 || loop_area(&cleaned) == 0.0 {
            return Err(MeshError::Meshing {
                problem: MeshingProblem::DegenerateLoop {
                    loop_index: li,
                    points: cleaned.len(),
                },
            }
            .into());
        }
        loops.push(cleaned);
    }
    for (si, s) in outline.segments.iter().enumerate() {
        for p in s {
            check_point(*p, || OutlinePlace::Segment { segment: si })?;
        }
    }
    check_loop_intersections(&loops)?;
    Ok(Prepared {
        loops,
        segments: outline.segments.clone(),
    })
}

/// Removes consecutive duplicates (including last == first) and zero-width spikes, e.g. the
/// arm edge that runs up and straight back down when the gap beside it is 0.
fn clean_loop(l: &[Point2<f64>]) -> Vec<Point2<f64>> {
    let mut out: Vec<Point2<f64>> = Vec::with_capacity(l.len());
    for &p in l {
        out.push(p);
        // Pop while the last three points are a duplicate or a spike.
        loop {
            let n = out.len();
            if n >= 2 && out[n - 1] == out[n - 2] {
                out.pop();
                continue;
            }
            if n >= 3 && is_spike(out[n - 3], out[n - 2], out[n - 1]) {
                out.remove(n - 2);
                continue;
            }
            break;
        }
    }
    // The same at the wrap-around, until stable.
    loop {
        let n = out.len();
        if n < 3 {
            break;
        }
        if out[n - 1] == out[0] || is_spike(out[n - 2], out[n - 1], out[0]) {
            out.pop();
        } else if is_spike(out[n - 1], out[0], out[1]) {
            out.remove(0);
        } else {
            break;
        }
    }
    out
}

fn is_spike(a: Point2<f64>, b: Point2<f64>, c: Point2<f64>) -> bool {
    a == c || (signed_area2(&a, &b, &c) == 0.0 && (b - a).dot(&(c - b)) < 0.0)
}

/// Rejects loop edges that touch anywhere except at a shared endpoint.
fn check_loop_intersections(loops: &[Vec<Point2<f64>>]) -> Result<()> {
    let mut edges = Vec::new();
    let mut ids = Vec::new();
    for (li, l) in loops.iter().enumerate() {
        for (ei, (a, b)) in loop_edges(l).enumerate() {
            edges.push([a, b]);
            ids.push((li, ei));
        }
    }
    if let Some(&(i, j)) = touching_edge_pairs(&edges, true).first() {
        let (e, f) = (ids[i], ids[j]);
        return Err(MeshError::Meshing {
            problem: MeshingProblem::OverlappingOutline {
                loop_index: e.0,
                edge: e.1,
                other_loop: f.0,
                other_edge: f.1,
            },
        }
        .into());
    }
    Ok(())
}

type Cdt = ConstrainedDelaunayTriangulation<spade::Point2<f64>>;

fn insert(cdt: &mut Cdt, p: Point2<f64>) -> Result<FixedVertexHandle> {
    cdt.insert(spade::Point2::new(p.x, p.y)).map_err(|e| {
        Error::Mesh(MeshError::Meshing {
            problem: MeshingProblem::PointRejected {
                x: p.x,
                y: p.y,
                detail: format!("{e:?}"),
            },
        })
    })
}

/// One constrained Delaunay triangulation + refinement with a fixed area bound.
fn triangulate(prepared: &Prepared, max_area: f64, min_angle_deg: f64) -> Result<MeshArrays> {
    let mut cdt = Cdt::new();
    let (lo, hi) = insert_constraints(&mut cdt, prepared)?;
    let budget = refinement_budget(&cdt, max_area, lo, hi)?;
    refine(&mut cdt, prepared, max_area, min_angle_deg, budget)?;
    let (vertices, triangles) = extract_inside(&cdt, prepared);
    check_no_slivers(&vertices, &triangles)?;
    Ok(spatial_order(vertices, triangles))
}

/// Inserts the outline loops and the segments into `cdt` as constraints; returns the
/// bounding box (low and high corners) of the loops' points. Errors: a loop edge or segment
/// that crosses another constraint.
fn insert_constraints(cdt: &mut Cdt, prepared: &Prepared) -> Result<(Point2<f64>, Point2<f64>)> {
    // Segment endpoints first: a loop edge inserted later through such a point is split there,
    // so a bone lying along the outline (e.g. on a symmetry seam) gets its end vertices.
    let mut seg_handles = Vec::with_capacity(prepared.segments.len());
    for s in &prepared.segments {
        seg_handles.push([insert(cdt, s[0])?, insert(cdt, s[1])?]);
    }
    let mut lo = Point2::new(f64::INFINITY, f64::INFINITY);
    let mut hi = Point2::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
    for (li, l) in prepared.loops.iter().enumerate() {
        let handles = l
            .iter()
            .map(|&p| {
                lo = lo.inf(&p);
                hi = hi.sup(&p);
                insert(cdt, p)
            })
            .collect::<Result<Vec<_>>>()?;
        for i in 0..handles.len() {
            let (a, b) = (handles[i], handles[(i + 1) % handles.len()]);
            if !cdt.can_add_constraint(a, b) {
                return Err(MeshError::Meshing {
                    problem: MeshingProblem::LoopEdgeCrosses {
                        loop_index: li,
                        edge: i,
                    },
                }
                .into());
            }
            cdt.add_constraint(a, b);
        }
    }
    for (si, &[a, b]) in seg_handles.iter().enumerate() {
        if a == b {
            continue; // a zero-length segment is just its vertex
        }
        if !cdt.can_add_constraint(a, b) {
            return Err(MeshError::Meshing {
                problem: MeshingProblem::SegmentCrosses { segment: si },
            }
            .into());
        }
        cdt.add_constraint(a, b);
    }
    Ok((lo, hi))
}

/// How many vertices refinement may add to `cdt` for triangles of at most `max_area` in the
/// box `lo`..`hi`. Errors: an area bound that would need more than [`MAX_VERTICES`].
fn refinement_budget(cdt: &Cdt, max_area: f64, lo: Point2<f64>, hi: Point2<f64>) -> Result<usize> {
    // Budget: the whole bounding box may be refined (see the module docs), with generous
    // slack for angle-driven refinement around small features.
    let box_area = ((hi.x - lo.x) * (hi.y - lo.y)).max(max_area);
    if INTERIOR * box_area / max_area > MAX_VERTICES as f64 {
        return Err(MeshError::Meshing {
            problem: MeshingProblem::TooManyVertices {
                max_area,
                max: MAX_VERTICES,
                width: hi.x - lo.x,
                height: hi.y - lo.y,
            },
        }
        .into());
    }
    Ok((4.0 * box_area / max_area).min(1e9) as usize + 20 * cdt.num_vertices() + 10_000)
}

/// Refines `cdt` to triangles of at most `max_area` and angles of at least
/// `min_angle_deg`, adding at most `budget` vertices. Errors: spade panicking, or the
/// budget running out first.
fn refine(
    cdt: &mut Cdt,
    prepared: &Prepared,
    max_area: f64,
    min_angle_deg: f64,
    budget: usize,
) -> Result<()> {
    let params = RefinementParameters::<f64>::new()
        .with_angle_limit(AngleLimit::from_deg(min_angle_deg))
        .with_max_allowed_area(max_area)
        .with_max_additional_vertices(budget)
        // Spade's own inside test is correct only when every constraint is a loop edge.
        .exclude_outer_faces(prepared.segments.is_empty());
    // spade 2.15's refinement can panic ("Failed to locate position. This is a bug in
    // spade.") on outlines with long runs of nearly collinear points (found by the fuzzer on
    // small traced sprites with tolerance 0): the triangulation is dropped and the panic
    // becomes a typed error.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cdt.refine(params)))
        .map_err(|panic| {
            Error::Mesh(MeshError::Meshing {
                problem: MeshingProblem::RefinementFailed {
                    detail: panic
                        .downcast_ref::<&str>()
                        .copied()
                        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                        .unwrap_or("panic")
                        .to_string(),
                },
            })
        })?;
    if !result.refinement_complete {
        return Err(MeshError::Meshing {
            problem: MeshingProblem::RefinementIncomplete {
                budget,
                max_area,
                min_angle_deg,
            },
        }
        .into());
    }
    Ok(())
}

/// Refuses a triangulation with a degenerate triangle: near-coincident constraint points
/// (bone ends, outline points far from the origin) can leave slivers the mesh validation
/// would reject naming a triangle the user never gave.
fn check_no_slivers(vertices: &[Point2<f64>], triangles: &[[usize; 3]]) -> Result<()> {
    for tri in triangles {
        let [a, b, c] = tri.map(|i| &vertices[i]);
        if signed_area2(a, b, c).abs() <= super::zero_area_tolerance(a, b, c) {
            return Err(MeshError::Meshing {
                problem: MeshingProblem::DegenerateTriangle {
                    corners: [[a.x, a.y], [b.x, b.y], [c.x, c.y]],
                },
            }
            .into());
        }
    }
    Ok(())
}

/// Keeps the faces inside the outline; returns compact vertices and CCW triangles.
fn extract_inside(cdt: &Cdt, prepared: &Prepared) -> MeshArrays {
    const UNSEEN: u32 = u32::MAX;
    let nf = cdt.num_all_faces();
    // Region id of every face; regions are maximal sets of faces connected across
    // non-constraint edges, so each lies wholly inside or wholly outside the outline.
    let mut region = vec![UNSEEN; nf];
    let mut region_inside: Vec<bool> = Vec::new();
    let mut queue = VecDeque::new();
    let inside = EvenOddIndex::new(&prepared.loops);
    for face in cdt.inner_faces() {
        let fi = face.fix().index();
        if region[fi] != UNSEEN {
            continue;
        }
        let id = region_inside.len() as u32;
        region[fi] = id;
        queue.push_back(face.fix());
        // Representative: the largest face, whose centroid is farthest from any edge.
        let mut best = (f64::NEG_INFINITY, Point2::origin());
        while let Some(f) = queue.pop_front() {
            let f = cdt.face(f);
            let area = f.area();
            if area > best.0 {
                let c = f.center();
                best = (area, Point2::new(c.x, c.y));
            }
            for e in f.adjacent_edges() {
                if e.is_constraint_edge() {
                    continue;
                }
                if let Some(g) = e.rev().face().as_inner() {
                    let gi = g.fix().index();
                    if region[gi] == UNSEEN {
                        region[gi] = id;
                        queue.push_back(g.fix());
                    }
                }
            }
        }
        region_inside.push(inside.contains(best.1));
    }

    let mut index = vec![usize::MAX; cdt.num_vertices()];
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for face in cdt.inner_faces() {
        if !region_inside[region[face.fix().index()] as usize] {
            continue;
        }
        let tri = face.vertices().map(|v| {
            let i = v.fix().index();
            if index[i] == usize::MAX {
                index[i] = vertices.len();
                let p = v.position();
                vertices.push(Point2::new(p.x, p.y));
            }
            index[i]
        });
        triangles.push(tri);
    }
    (vertices, triangles)
}

/// Renumbers vertices along a Hilbert curve and sorts triangles by their first vertex, so
/// that mesh neighbours are near each other in memory. Spade hands vertices out in refinement
/// order, which scatters neighbours across the whole array and makes every per-edge pass
/// (Laplacian assembly, Dijkstra, the sparse factorization) cache-hostile.
fn spatial_order(vertices: Vec<Point2<f64>>, triangles: Vec<[usize; 3]>) -> MeshArrays {
    const BITS: u32 = 16;
    let (mut lo, mut hi) = (
        Point2::new(f64::INFINITY, f64::INFINITY),
        Point2::new(f64::NEG_INFINITY, f64::NEG_INFINITY),
    );
    for p in &vertices {
        lo = Point2::new(lo.x.min(p.x), lo.y.min(p.y));
        hi = Point2::new(hi.x.max(p.x), hi.y.max(p.y));
    }
    let span = (hi.x - lo.x).max(hi.y - lo.y).max(f64::MIN_POSITIVE);
    let cells = ((1u32 << BITS) - 1) as f64;
    let mut order: Vec<(u64, usize)> = vertices
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let x = ((p.x - lo.x) / span * cells) as u32;
            let y = ((p.y - lo.y) / span * cells) as u32;
            (hilbert_index(BITS, x, y), i)
        })
        .collect();
    order.sort_unstable();
    let mut new_index = vec![0usize; vertices.len()];
    for (new, &(_, old)) in order.iter().enumerate() {
        new_index[old] = new;
    }
    let sorted: Vec<Point2<f64>> = order.iter().map(|&(_, old)| vertices[old]).collect();
    let mut tris: Vec<[usize; 3]> = triangles
        .iter()
        .map(|t| {
            let t = t.map(|i| new_index[i]);
            // Rotate (keeping the winding) so the smallest index comes first.
            let k = (0..3).min_by_key(|&k| t[k]).unwrap_or(0);
            [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
        })
        .collect();
    tris.sort_unstable();
    (sorted, tris)
}

/// Position of cell (x, y) along the Hilbert curve filling a 2^bits x 2^bits grid.
fn hilbert_index(bits: u32, mut x: u32, mut y: u32) -> u64 {
    let mut d: u64 = 0;
    let mut s = 1u32 << (bits - 1);
    while s > 0 {
        let rx = u32::from(x & s > 0);
        let ry = u32::from(y & s > 0);
        d += (s as u64) * (s as u64) * ((3 * rx) ^ ry) as u64;
        // Rotate the quadrant so the curve stays continuous.
        if ry == 0 {
            if rx == 1 {
                x = s.wrapping_mul(2).wrapping_sub(1).wrapping_sub(x) & ((1u32 << bits) - 1);
                y = s.wrapping_mul(2).wrapping_sub(1).wrapping_sub(y) & ((1u32 << bits) - 1);
            }
            std::mem::swap(&mut x, &mut y);
        }
        s >>= 1;
    }
    d
}

/// Smallest interior angle over all triangles, degrees.
pub(crate) fn min_angle_of(vertices: &[Point2<f64>], triangles: &[[usize; 3]]) -> f64 {
    triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| vertices[i]);
            let ang = |p: Point2<f64>, q: Point2<f64>, r: Point2<f64>| {
                let (u, v) = (q - p, r - p);
                u.perp(&v).abs().atan2(u.dot(&v)).to_degrees()
            };
            ang(a, b, c).min(ang(b, c, a)).min(ang(c, a, b))
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: f64, y: f64) -> Point2<f64> {
        Point2::new(x, y)
    }

    #[test]
    fn square_with_interior_segment() {
        let outline = Outline {
            loops: vec![vec![p(0., 0.), p(10., 0.), p(10., 10.), p(0., 10.)]],
            segments: vec![[p(5., 2.), p(5., 8.)]],
        };
        let opts = MeshingOptions::default().with_target_vertices(500);
        let (v, t, r) = mesh_outline(&outline, &opts).unwrap();
        let area: f64 = t
            .iter()
            .map(|t| signed_area2(&v[t[0]], &v[t[1]], &v[t[2]]) * 0.5)
            .sum();
        assert!((area - 100.0).abs() < 1e-9, "area {area}");
        assert!(t
            .iter()
            .all(|t| signed_area2(&v[t[0]], &v[t[1]], &v[t[2]]) > 0.0));
        assert!(r.min_angle_deg >= 20.0, "{r:?}");
        assert!((r.vertices as f64 - 500.0).abs() < 50.0, "{r:?}");
    }

    #[test]
    fn spikes_and_duplicates_are_removed() {
        let l = clean_loop(&[
            p(0., 0.),
            p(1., 0.),
            p(1., 2.),
            p(1., 2.),
            p(1., 1.),
            p(2., 1.),
            p(2., 3.),
            p(0., 3.),
            p(0., 0.),
        ]);
        assert_eq!(
            l,
            vec![
                p(0., 0.),
                p(1., 0.),
                p(1., 1.),
                p(2., 1.),
                p(2., 3.),
                p(0., 3.)
            ]
        );
    }

    #[test]
    fn bowtie_is_rejected() {
        let outline = Outline {
            loops: vec![vec![p(0., 0.), p(1., 1.), p(1., 0.), p(0., 1.)]],
            segments: vec![],
        };
        assert!(matches!(
            mesh_outline(&outline, &MeshingOptions::default()),
            Err(Error::Mesh(MeshError::Meshing { .. }))
        ));
    }
}

/// A named region of the drawing: vertices inside `polygon` belong to part `part`.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledRegion {
    /// Part name.
    pub part: String,
    /// Closed polygon (either orientation; the last point connects back to the first).
    pub polygon: Vec<Point2<f64>>,
}

/// Assigns every vertex the part of the first region that contains it (points on a region's
/// boundary, within `1e-9` of the drawing's size, count as inside: shared borders go to the
/// region listed first). Returns the part names (in region order, duplicates merged) and
/// each vertex's part index; a vertex inside no region is an [`MeshError::VertexParts`] naming it.
pub fn assign_parts(
    vertices: &[Point2<f64>],
    regions: &[LabelledRegion],
) -> Result<(Vec<String>, Vec<usize>)> {
    if regions.is_empty() {
        return Err(MeshError::VertexParts {
            problem: VertexPartsProblem::NoRegions,
        }
        .into());
    }
    let mut names: Vec<String> = Vec::new();
    let mut region_part = Vec::with_capacity(regions.len());
    let mut scale: f64 = 0.0;
    for r in regions {
        if r.polygon.len() < 3 {
            return Err(MeshError::VertexParts {
                problem: VertexPartsProblem::RegionTooSmall {
                    part: r.part.clone(),
                    points: r.polygon.len(),
                },
            }
            .into());
        }
        for &p in &r.polygon {
            check_point(p, || OutlinePlace::Region {
                part: r.part.clone(),
            })?;
            scale = scale.max(p.x.abs()).max(p.y.abs());
        }
        let idx = match names.iter().position(|n| n == &r.part) {
            Some(i) => i,
            None => {
                names.push(r.part.clone());
                names.len() - 1
            }
        };
        region_part.push(idx);
    }
    let tol = 1e-9 * scale.max(1.0);
    let labels = vertices
        .iter()
        .enumerate()
        .map(|(v, &p)| {
            regions
                .iter()
                .position(|r| polygon_contains(&r.polygon, p, tol))
                .map(|i| region_part[i])
                .ok_or_else(|| {
                    Error::Mesh(MeshError::VertexParts {
                        problem: VertexPartsProblem::OutsideRegions {
                            vertex: v,
                            x: p.x,
                            y: p.y,
                        },
                    })
                })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((names, labels))
}

/// Even-odd point-in-polygon test that counts points within `tol` of an edge as inside.
fn polygon_contains(polygon: &[Point2<f64>], p: Point2<f64>, tol: f64) -> bool {
    let mut inside = false;
    for (a, b) in loop_edges(polygon) {
        if Segment::new(a, b).distance(&p) <= tol {
            return true;
        }
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
            if p.x < x {
                inside = !inside;
            }
        }
    }
    inside
}
