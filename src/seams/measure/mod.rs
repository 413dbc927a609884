//! Finding the seams of a layered scene and measuring their opening in a pose.
//!
//! **Layers and their boundaries.** Every triangle belongs to one layer: the part of its
//! corner drawn first ([`Scene::triangle_parts`], the renderer's rule; without art, the lowest
//! part index). A layer's
//! *boundary edges* are the triangle edges with no triangle of the same layer across them:
//! the outline of a separately drawn layer, and also the line where two parts of one
//! welded mesh meet.
//!
//! **Seams at rest** ([`find_seams`]). A boundary edge of layer A is in *contact* with layer
//! B when both its ends lie within [`SeamOptions::tolerance`] of B's triangles (touching,
//! or inside B when the layers overlap) and B lies across it (the point two tolerances
//! outside its middle is in B: where both layers' outlines run together with both layers
//! on the same side, they share silhouette, not a seam). Each pair of layers in contact forms one seam,
//! assigned to its *joint*: the head of the bone that crosses between the two layers (a
//! bone whose part is one layer while its parent's part is the other), the one nearest the
//! contact. Layers also touch where they should not stay together (an arm hanging against
//! the torso separates when the arm lifts, and must), so contact edges count only within
//! [`SeamOptions::joint_radius`] half-widths of the joint: the half-width is the distance
//! from the joint to the nearest boundary of the two layers that is not in contact (at an
//! elbow, half the arm's thickness). Layers in contact with no such bone between them (two
//! legs side by side) are *contacts*, not seams ([`find_contacts`]): nothing ties them, so
//! they may separate, and no repair welds or blends them.
//!
//! Along every contact edge, sample points at most [`SeamOptions::spacing`] apart each get
//! a *partner*: the closest point of the other layer at rest (itself when inside it),
//! stored as a triangle and barycentric coordinates, so that it moves with that layer's
//! material.
//!
//! **Opening in a pose** ([`measure_seams`]). With posed vertex positions (LBS, DQS, any
//! deformation), a sample point and its partner should still coincide. The *chord* between
//! them is what opened; the parts of it covered by some layer (any layer: what is drawn)
//! are not a crack. Per seam:
//!
//! - **widest opening** (px): the longest uncovered length of a chord;
//! - **open area** (px^2): the area of the quads spanned by consecutive chords (the region
//!   between the two posed seam curves) that no triangle covers, counted on a grid of
//!   [`SeamOptions::area_samples`] points a px side.
//!
//! At rest every chord has length 0: opening and area are exactly 0. For two rectangles of
//! half-width r touching along a straight end, one rotated rigidly by θ about the end's
//! middle, the widest opening is `2 r sin(θ/2)` (the outer corners' chord) and the open
//! area `r² sin(θ) / 2` (the triangle between the two ends on the outside of the bend; on the
//! inside the rotated end passes over the other layer, which covers it). When the layers
//! overlap by `o` px, a chord is covered by the extension under the other layer until the
//! bend moves the corner more than `o`: the seam reads closed up to `sin θ = o / r`.
//!
//! The fringe metric's gap G restricted to each seam, which needs a render, is in
//! `render::seam_gaps` (feature `io`): this module only measures geometry.

use crate::error::{MeshError, Result, SeamError};
use crate::geometry::Segment;
pub(crate) use crate::mesh::triangle_grid::TriangleGrid;
use crate::scene::Scene;
use nalgebra::Point2;
use std::collections::HashMap;

/// Settings of [`find_seams`] and [`measure_seams`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SeamOptions {
    /// Distance (px) within which a boundary edge's ends count as touching another layer
    /// (default [`Self::DEFAULT_TOLERANCE`], 0.5: touching layers whose outlines were drawn
    /// to the same line).
    pub tolerance: f64,
    /// Contact counts within this many half-widths of the seam's joint (default
    /// [`Self::DEFAULT_JOINT_RADIUS`], 3; see the module docs). `f64::INFINITY` keeps every
    /// contact.
    pub joint_radius: f64,
    /// Largest distance between sample points along a contact edge, rest px (default
    /// [`Self::DEFAULT_SPACING`], 0.5).
    pub spacing: f64,
    /// Sample points per px side for the open area (one jittered point per cell of a
    /// lattice; default [`Self::DEFAULT_AREA_SAMPLES`], 16: within 1% of the exact area of
    /// a 10-degree wedge 20 px long and 3.5 px wide at its mouth).
    pub area_samples: u32,
}

impl Default for SeamOptions {
    fn default() -> Self {
        SeamOptions {
            tolerance: Self::DEFAULT_TOLERANCE,
            joint_radius: Self::DEFAULT_JOINT_RADIUS,
            spacing: Self::DEFAULT_SPACING,
            area_samples: Self::DEFAULT_AREA_SAMPLES,
        }
    }
}

impl SeamOptions {
    /// Default [`Self::tolerance`]: 0.5 px.
    pub const DEFAULT_TOLERANCE: f64 = 0.5;
    /// Default [`Self::joint_radius`]: 3 half-widths.
    pub const DEFAULT_JOINT_RADIUS: f64 = 3.0;
    /// Default [`Self::spacing`]: 0.5 px.
    pub const DEFAULT_SPACING: f64 = 0.5;
    /// Default [`Self::area_samples`]: 16 per px side.
    pub const DEFAULT_AREA_SAMPLES: u32 = 16;

    /// These options counting a boundary edge as touching within `tolerance` px.
    pub fn with_tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }
}

impl SeamOptions {
    fn check(&self) -> Result<()> {
        for (field, v) in [
            ("tolerance", self.tolerance),
            ("spacing", self.spacing),
            ("joint_radius", self.joint_radius),
        ] {
            if v.is_nan() || v <= 0.0 || (field != "joint_radius" && !v.is_finite()) {
                return Err(SeamError::InvalidAmount {
                    option: field.to_string(),
                    value: v,
                    expected: "finite and > 0 (joint_radius may be infinite)",
                }
                .into());
            }
        }
        if !(1..=64).contains(&self.area_samples) {
            return Err(SeamError::InvalidAmount {
                option: "area_samples".into(),
                value: self.area_samples as f64,
                expected: "in 1..=64",
            }
            .into());
        }
        Ok(())
    }
}

/// Where a seam sample's partner lives: a rest triangle of the other layer and barycentric
/// coordinates in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Partner {
    pub(crate) triangle: usize,
    pub(crate) bary: [f64; 3],
}

/// One contact edge: a boundary edge of one layer, sampled, with partners in the other.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ContactEdge {
    /// The edge's vertices (in its triangle's order).
    pub(crate) ends: [usize; 2],
    /// Sample positions along the edge (0 at `ends[0]`) and their partners; a sample with
    /// no partner within the tolerance breaks the chain of quads.
    pub(crate) samples: Vec<(f64, Option<Partner>)>,
}

/// A seam: two layers that meet at rest and should stay together.
#[derive(Debug, Clone, PartialEq)]
pub struct Seam {
    /// The two layers' part indices (lower first).
    pub parts: [usize; 2],
    /// Their part names.
    pub names: [String; 2],
    /// The boundary vertices of each layer in contact with the other, sorted.
    pub vertices: [Vec<usize>; 2],
    /// The bone whose head is the seam's joint (it crosses between the layers), if any.
    pub joint: Option<usize>,
    /// That bone's name.
    pub joint_name: Option<String>,
    /// Rest length of the contact (mean of the two sides' contact edge lengths), px.
    pub length: f64,
    /// The contact radius used around the joint, px (infinite without a joint).
    pub radius: f64,
    /// The contact edges, sampled (the pixel gap reads the art along them).
    pub(crate) edges: Vec<ContactEdge>,
}

impl Seam {
    /// `"upper|forearm @ forearm"`: the layers and the joint, for reports.
    pub fn label(&self) -> String {
        match &self.joint_name {
            Some(j) => format!("{}|{} @ {j}", self.names[0], self.names[1]),
            None => format!("{}|{}", self.names[0], self.names[1]),
        }
    }

    /// Number of sample points (chords) along the seam.
    pub fn sample_count(&self) -> usize {
        self.edges.iter().map(|e| e.samples.len()).sum()
    }
}

/// A seam's opening in one pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeamOpening {
    /// Longest uncovered part of a chord (sample to partner), px (stretches within the
    /// tolerance of a layer do not count).
    pub widest: f64,
    /// Uncovered area between the two posed seam curves, px^2.
    pub open_area: f64,
    /// Chords with an uncovered part longer than 1e-9 px.
    pub open_chords: usize,
}

/// A joint between two parts: a bone that drives one part while its parent drives the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JointLink {
    /// The bone (its head is the joint).
    pub bone: usize,
    /// The bone's part and its parent's part.
    pub parts: [usize; 2],
}

/// Every joint between two different parts of `scene` (see [`JointLink`]), in bone order.
/// Layers linked this way should stay together when the joint bends; layers in contact
/// without such a bone (two legs side by side) should be free to separate.
pub fn joint_links(scene: &Scene) -> Vec<JointLink> {
    let bones = scene.skeleton.bones();
    let bone_parts = scene.bone_parts();
    (0..bones.len())
        .filter_map(|j| {
            let parent = bones[j].parent.and_then(|p| bone_parts[p]);
            match (bone_parts[j], parent) {
                (Some(x), Some(y)) if x != y => Some(JointLink {
                    bone: j,
                    parts: [x, y],
                }),
                _ => None,
            }
        })
        .collect()
}

/// Boundary edges of every layer: `(layer, [a, b])`, directed as in their triangle (the
/// layer lies to the left).
fn layer_boundary_edges(scene: &Scene, layers: &[usize]) -> Vec<(usize, [usize; 2])> {
    let tris = scene.mesh.triangles();
    let mut by_edge: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
    for (t, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            by_edge.entry((a.min(b), a.max(b))).or_default().push(t);
        }
    }
    let mut out = Vec::new();
    for (t, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            let others = &by_edge[&(a.min(b), a.max(b))];
            if !others.iter().any(|&o| o != t && layers[o] == layers[t]) {
                out.push((layers[t], [a, b]));
            }
        }
    }
    out
}

/// The seams of `scene` at rest (see the module docs), ordered by their part pair: layers
/// in contact that a joint links (a bone of one layer whose parent drives the other), which
/// should stay together when it bends. Contacts between layers no joint links are not
/// seams: see [`find_contacts`]. Errors: bad options.
pub fn find_seams(scene: &Scene, options: &SeamOptions) -> Result<Vec<Seam>> {
    Ok(all_contacts(scene, options)?
        .into_iter()
        .filter(|s| s.joint.is_some())
        .collect())
}

/// Contacts at rest between layers that no joint links (two legs side by side, an arm
/// hanging against the other leg): found the way [`find_seams`] finds seams, with
/// [`Seam::joint`] `None` and the contact kept whole (no joint radius). Such layers may
/// separate in a pose, so they are reported, not measured as cracks, and the weight repairs
/// leave them apart. Errors: bad options.
pub fn find_contacts(scene: &Scene, options: &SeamOptions) -> Result<Vec<Seam>> {
    Ok(all_contacts(scene, options)?
        .into_iter()
        .filter(|s| s.joint.is_none())
        .collect())
}

/// Seams and contacts together, ordered by part pair.
fn all_contacts(scene: &Scene, options: &SeamOptions) -> Result<Vec<Seam>> {
    options.check()?;
    let mesh = &scene.mesh;
    let points = mesh.vertices();
    let layers = scene.triangle_parts();
    let rest = RestLayers {
        points,
        grid: TriangleGrid::new(
            mesh.triangles()
                .iter()
                .enumerate()
                .map(|(t, tri)| (t, tri.map(|v| points[v])))
                .collect(),
            options.tolerance,
        ),
        layers,
        tol: options.tolerance,
    };
    let boundary = layer_boundary_edges(scene, &rest.layers);
    let edges = rest.contact_edges(&boundary);
    let links = joint_links(scene);
    let mut pairs: Vec<(usize, usize)> = edges
        .contact
        .keys()
        .map(|&(a, b)| (a.min(b), a.max(b)))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    Ok(pairs
        .into_iter()
        .filter_map(|pair| rest.seam(scene, options, &edges, &links, pair))
        .collect())
}

/// The rest mesh as the contact search reads it: triangles in a grid, each one's layer.
struct RestLayers<'a> {
    points: &'a [Point2<f64>],
    grid: TriangleGrid,
    /// Layer of every triangle.
    layers: Vec<usize>,
    /// Contact distance, px.
    tol: f64,
}

/// Boundary edges sorted by contact.
struct ContactEdges {
    /// Edges of a layer in contact with another, per (layer, other layer).
    contact: HashMap<(usize, usize), Vec<[usize; 2]>>,
    /// The other boundary edges, per layer.
    free: HashMap<usize, Vec<[usize; 2]>>,
}

/// The contact edges of one seam kept within the joint radius, both sides.
struct SeamSides {
    edges: Vec<ContactEdge>,
    vertices: [Vec<usize>; 2],
    /// Length of each side's edges, px.
    lengths: [f64; 2],
}

impl RestLayers<'_> {
    /// The layers within the tolerance of every vertex of a boundary edge.
    fn near_layers(&self, boundary: &[(usize, [usize; 2])]) -> HashMap<usize, Vec<usize>> {
        let mut near: HashMap<usize, Vec<usize>> = HashMap::new();
        for &(_, [a, b]) in boundary {
            for v in [a, b] {
                near.entry(v).or_insert_with(|| {
                    let mut found: Vec<usize> = Vec::new();
                    while let Some(c) = self.grid.closest(self.points[v], self.tol, |t| {
                        !found.contains(&self.layers[t])
                    }) {
                        found.push(self.layers[c.id]);
                    }
                    found
                });
            }
        }
        near
    }

    /// Sorts the boundary edges: an edge both of whose ends are near another layer that
    /// lies just outside it (facing it, not on the same side) is in contact with it.
    fn contact_edges(&self, boundary: &[(usize, [usize; 2])]) -> ContactEdges {
        let (points, tol) = (self.points, self.tol);
        let near = self.near_layers(boundary);
        let mut edges = ContactEdges {
            contact: HashMap::new(),
            free: HashMap::new(),
        };
        for &(layer, [a, b]) in boundary {
            let mut touched = false;
            // The point just outside the edge (the layer lies to its left).
            let d = points[b] - points[a];
            let outside = nalgebra::center(&points[a], &points[b])
                + nalgebra::Vector2::new(d.y, -d.x) * (2.0 * tol / d.norm().max(f64::MIN_POSITIVE));
            for &other in &near[&a] {
                // Both layers on the same side: a shared stretch of silhouette, not a seam.
                let facing = || {
                    self.grid
                        .closest(outside, 0.0, |t| self.layers[t] == other)
                        .is_some()
                };
                if other != layer && near[&b].contains(&other) && facing() {
                    edges
                        .contact
                        .entry((layer, other))
                        .or_default()
                        .push([a, b]);
                    touched = true;
                }
            }
            if !touched {
                edges.free.entry(layer).or_default().push([a, b]);
            }
        }
        edges
    }

    /// The seam (or contact) between layers `pa < pb`, when an edge is left within the
    /// joint radius.
    fn seam(
        &self,
        scene: &Scene,
        options: &SeamOptions,
        edges: &ContactEdges,
        links: &[JointLink],
        (pa, pb): (usize, usize),
    ) -> Option<Seam> {
        let (points, bones) = (self.points, scene.skeleton.bones());
        let empty = Vec::new();
        let sides = [
            edges.contact.get(&(pa, pb)).unwrap_or(&empty),
            edges.contact.get(&(pb, pa)).unwrap_or(&empty),
        ];
        let midpoints: Vec<Point2<f64>> = sides
            .iter()
            .flat_map(|s| s.iter())
            .map(|&[a, b]| nalgebra::center(&points[a], &points[b]))
            .collect();
        let joint = nearest_joint(links, bones, [pa, pb], &midpoints);
        let radius = match joint {
            Some(j) if options.joint_radius.is_finite() => {
                let head = bones[j].head;
                let half_width = [pa, pb]
                    .iter()
                    .flat_map(|l| edges.free.get(l).into_iter().flatten())
                    .map(|&[a, b]| Segment::new(points[a], points[b]).distance(&head))
                    .fold(f64::INFINITY, f64::min);
                options.joint_radius * half_width
            }
            _ => f64::INFINITY,
        };
        let within = |v: usize| joint.is_none_or(|j| (points[v] - bones[j].head).norm() <= radius);
        let mut kept = self.sample_sides(options, sides, [pb, pa], within);
        if kept.edges.is_empty() {
            return None;
        }
        for v in &mut kept.vertices {
            v.sort_unstable();
            v.dedup();
        }
        let parts = scene.mesh.parts();
        Some(Seam {
            parts: [pa, pb],
            names: [parts[pa].clone(), parts[pb].clone()],
            vertices: kept.vertices,
            joint,
            joint_name: joint.map(|j| bones[j].name.clone()),
            length: (kept.lengths[0] + kept.lengths[1]) / 2.0,
            radius,
            edges: kept.edges,
        })
    }

    /// The contact edges of both sides with both ends `within` the joint radius, sampled
    /// every `options.spacing` px with their partners on the other side's layer (`others`).
    fn sample_sides(
        &self,
        options: &SeamOptions,
        sides: [&Vec<[usize; 2]>; 2],
        others: [usize; 2],
        within: impl Fn(usize) -> bool,
    ) -> SeamSides {
        let mut kept = SeamSides {
            edges: Vec::new(),
            vertices: [Vec::new(), Vec::new()],
            lengths: [0.0; 2],
        };
        for (side, list) in sides.iter().enumerate() {
            let other = others[side];
            for &[a, b] in list.iter() {
                if !(within(a) && within(b)) {
                    continue;
                }
                let (p, q) = (self.points[a], self.points[b]);
                let length = (q - p).norm();
                kept.lengths[side] += length;
                let n = ((length / options.spacing).ceil() as usize).max(1);
                let samples = (0..=n)
                    .map(|i| {
                        let t = i as f64 / n as f64;
                        let x = p + (q - p) * t;
                        let partner = self
                            .grid
                            .closest(x, self.tol, |tri| self.layers[tri] == other)
                            .map(|c| Partner {
                                triangle: c.id,
                                bary: c.bary,
                            });
                        (t, partner)
                    })
                    .collect();
                kept.edges.push(ContactEdge {
                    ends: [a, b],
                    samples,
                });
                kept.vertices[side].extend([a, b]);
            }
        }
        kept
    }
}

/// The joint of two layers: a bone of one whose parent drives the other, nearest the
/// contact (its edges' `midpoints`).
fn nearest_joint(
    links: &[JointLink],
    bones: &[crate::skeleton::Bone],
    [pa, pb]: [usize; 2],
    midpoints: &[Point2<f64>],
) -> Option<usize> {
    links
        .iter()
        .filter(|l| l.parts == [pa, pb] || l.parts == [pb, pa])
        .map(|l| l.bone)
        .min_by(|&i, &j| {
            let d = |k: usize| {
                midpoints
                    .iter()
                    .map(|m| (m - bones[k].head).norm())
                    .fold(f64::INFINITY, f64::min)
            };
            d(i).total_cmp(&d(j))
        })
}

/// A seam's chords in a pose: for every edge, the posed sample points and partners (a
/// missing partner is `None`).
pub(crate) type Chords = Vec<Vec<(Point2<f64>, Option<Point2<f64>>)>>;

pub(crate) fn posed_chords(scene: &Scene, seam: &Seam, posed: &[Point2<f64>]) -> Chords {
    let tris = scene.mesh.triangles();
    seam.edges
        .iter()
        .map(|e| {
            let (p, q) = (posed[e.ends[0]], posed[e.ends[1]]);
            e.samples
                .iter()
                .map(|&(t, partner)| {
                    let x = p + (q - p) * t;
                    let y = partner.map(|pt| {
                        let c = tris[pt.triangle];
                        let mut y = Point2::origin();
                        for k in 0..3 {
                            y += posed[c[k]].coords * pt.bary[k];
                        }
                        y
                    });
                    (x, y)
                })
                .collect()
        })
        .collect()
}

/// The quads between consecutive chords, each as two triangles.
pub(crate) fn chord_quads(chords: &Chords) -> Vec<[Point2<f64>; 3]> {
    let mut out = Vec::new();
    for edge in chords {
        for w in edge.windows(2) {
            if let ((a, Some(pa)), (b, Some(pb))) = (w[0], w[1]) {
                out.push([a, b, pb]);
                out.push([a, pb, pa]);
            }
        }
    }
    out
}

/// The posed triangles of the whole scene, bucketed for coverage queries.
pub(crate) fn coverage_grid(
    scene: &Scene,
    posed: &[Point2<f64>],
    map: impl Fn(Point2<f64>) -> Point2<f64>,
    pad: f64,
) -> TriangleGrid {
    TriangleGrid::new(
        scene
            .mesh
            .triangles()
            .iter()
            .enumerate()
            .map(|(t, tri)| (t, tri.map(|v| map(posed[v]))))
            .collect(),
        pad,
    )
}

/// Largest grid of area samples per seam; a larger opening is counted on a coarser grid.
const MAX_AREA_SAMPLES: f64 = 16e6;

/// Each seam's opening with the scene's vertices at `posed` (see the module docs). Errors:
/// a position count that does not match the mesh, non-finite positions, bad options.
pub fn measure_seams(
    scene: &Scene,
    seams: &[Seam],
    posed: &[Point2<f64>],
    options: &SeamOptions,
) -> Result<Vec<SeamOpening>> {
    options.check()?;
    check_positions(scene, posed)?;
    let cover = coverage_grid(scene, posed, |p| p, options.tolerance);
    Ok(seams
        .iter()
        .map(|seam| {
            let chords = posed_chords(scene, seam, posed);
            let mut widest: f64 = 0.0;
            let mut open_chords = 0;
            for (x, y) in chords.iter().flatten() {
                if let Some(y) = y {
                    let open = cover.uncovered_length(*x, *y, options.tolerance);
                    widest = widest.max(open);
                    open_chords += usize::from(open > 1e-9);
                }
            }
            let quads = chord_quads(&chords);
            let open_area = uncovered_area(&quads, &cover, options.area_samples as f64);
            SeamOpening {
                widest,
                open_area,
                open_chords,
            }
        })
        .collect())
}

/// Area of the union of `quads` (triangles) that `cover` does not cover, counted on a grid
/// of `per_px` points a unit side (coarser if the region is huge).
fn uncovered_area(quads: &[[Point2<f64>; 3]], cover: &TriangleGrid, per_px: f64) -> f64 {
    let mut lo = Point2::new(f64::INFINITY, f64::INFINITY);
    let mut hi = Point2::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
    for q in quads {
        for p in q {
            lo = lo.inf(p);
            hi = hi.sup(p);
        }
    }
    if quads.is_empty() || !(hi.x > lo.x && hi.y > lo.y) {
        return 0.0;
    }
    let extent = (hi.x - lo.x) * (hi.y - lo.y);
    let h = (1.0 / per_px).max((extent / MAX_AREA_SAMPLES).sqrt());
    let region = TriangleGrid::new(quads.iter().copied().enumerate().collect(), 0.0);
    // One jittered point per cell of a lattice anchored at the origin: a regular grid is
    // biased by up to half a cell along every edge that lines up with it (the layers' own
    // straight edges do).
    let (i0, i1) = ((lo.x / h).floor() as i64, (hi.x / h).ceil() as i64);
    let (j0, j1) = ((lo.y / h).floor() as i64, (hi.y / h).ceil() as i64);
    let mut count = 0usize;
    for j in j0..j1 {
        for i in i0..i1 {
            let (u, v) = jitter(i, j);
            let p = Point2::new((i as f64 + u) * h, (j as f64 + v) * h);
            if region.covers(p) && !cover.covers(p) {
                count += 1;
            }
        }
    }
    count as f64 * h * h
}

/// A fixed pseudo-random point in `[0, 1)^2` for lattice cell `(i, j)` (splitmix64).
fn jitter(i: i64, j: i64) -> (f64, f64) {
    let mut z = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (j as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    let mut next = || {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut x = z;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^= x >> 31;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    (next(), next())
}

pub(crate) fn check_positions(scene: &Scene, posed: &[Point2<f64>]) -> Result<()> {
    let n = scene.mesh.vertex_count();
    if posed.len() != n {
        return Err(MeshError::PosedPositions {
            given: posed.len(),
            vertices: n,
        }
        .into());
    }
    if let Some(v) = posed
        .iter()
        .position(|p| !p.x.is_finite() || !p.y.is_finite())
    {
        return Err(MeshError::NonFinitePosition {
            vertex: v,
            x: posed[v].x,
            y: posed[v].y,
        }
        .into());
    }
    Ok(())
}
