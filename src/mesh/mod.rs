//! 2D triangle meshes: the [`Mesh`] type, its validation and topology, meshing of outlines,
//! and the cotangent Laplacian.
//!
//! A mesh is a list of 2D points (f64, y up), counter-clockwise triangles and a part label per
//! vertex. [`Mesh::new`] validates everything and builds the [`Topology`] once, so every later
//! stage (solvers, metrics, plots) can rely on a clean 2-manifold with consistent orientation.
//!
//! Artist meshes (Spine, DragonBones, Godot: folded, either orientation, unused vertices,
//! edges of three triangles) come in through [`Mesh::from_artist`] instead, which keeps them
//! and reports what it met as [`ArtistMeshNotes`]; see `docs/artist-meshes.md`.

mod artist;
mod coarsen;
mod laplacian;
mod meshing;
mod subdivide;
mod topology;
pub(crate) mod triangle_grid;

pub(crate) use crate::geometry::signed_area2;
pub use artist::ArtistMeshNotes;
pub use coarsen::CoarseMesh;
pub use laplacian::CotanLaplacian;
pub use meshing::{
    assign_parts, calibrate_max_area, estimate_max_area, mesh_outline, LabelledRegion, MeshArrays,
    MeshedOutline, MeshingOptions, MeshingReport, Outline, MAX_VERTICES,
};
pub(crate) use subdivide::subdivide;
pub use topology::Topology;

use crate::error::{Error, MeshError, Result, VertexPartsProblem};
use nalgebra::Point2;

/// Name of the single part a mesh gets when none are given.
pub const DEFAULT_PART: &str = "body";

/// A validated 2D triangle mesh with per-vertex part labels.
#[derive(Debug, Clone)]
pub struct Mesh {
    vertices: Vec<Point2<f64>>,
    triangles: Vec<[usize; 3]>,
    parts: Vec<String>,
    vertex_parts: Vec<usize>,
    topology: Topology,
    /// `Some` for a mesh built by [`Mesh::from_artist`] that is not a clean manifold: the
    /// invariants are then the artist ones (see [`Mesh::sanity_check`]).
    artist: Option<Box<ArtistMeshNotes>>,
}

impl Mesh {
    /// Builds a mesh with one part ([`DEFAULT_PART`]) and validates it.
    pub fn new(vertices: Vec<Point2<f64>>, triangles: Vec<[usize; 3]>) -> Result<Self> {
        let n = vertices.len();
        Self::with_parts(
            vertices,
            triangles,
            vec![DEFAULT_PART.to_string()],
            vec![0; n],
        )
    }

    /// Builds a mesh with named parts (`vertex_parts[v]` indexes `parts`) and validates it.
    ///
    /// Errors (each names the offending vertex / triangle / edge): [`MeshError::EmptyMesh`],
    /// [`MeshError::NonFiniteCoordinate`], [`MeshError::IndexOutOfRange`], [`MeshError::ZeroAreaTriangle`],
    /// [`MeshError::RepeatedTriangle`], [`MeshError::NonManifoldEdge`], [`MeshError::MixedOrientation`],
    /// [`MeshError::ClockwiseMesh`], [`MeshError::UnreferencedVertex`], [`MeshError::VertexParts`].
    pub fn with_parts(
        vertices: Vec<Point2<f64>>,
        triangles: Vec<[usize; 3]>,
        parts: Vec<String>,
        vertex_parts: Vec<usize>,
    ) -> Result<Self> {
        validate_geometry(&vertices, &triangles)?;
        Self::from_valid_geometry(vertices, triangles, parts, vertex_parts)
    }

    /// The rest of [`Mesh::with_parts`] once `validate_geometry` has passed.
    fn from_valid_geometry(
        vertices: Vec<Point2<f64>>,
        triangles: Vec<[usize; 3]>,
        parts: Vec<String>,
        vertex_parts: Vec<usize>,
    ) -> Result<Self> {
        validate_parts(vertices.len(), &parts, &vertex_parts)?;
        let topology = Topology::build(&vertices, &triangles)?;
        Ok(Mesh {
            vertices,
            triangles,
            parts,
            vertex_parts,
            topology,
            artist: None,
        })
    }

    /// Like [`Mesh::with_parts`], but a mesh whose triangles are *all* clockwise (a y-down
    /// file) is flipped to counter-clockwise instead of rejected. Returns whether it flipped.
    pub fn with_parts_fix_winding(
        vertices: Vec<Point2<f64>>,
        mut triangles: Vec<[usize; 3]>,
        parts: Vec<String>,
        vertex_parts: Vec<usize>,
    ) -> Result<(Self, bool)> {
        match validate_geometry(&vertices, &triangles) {
            Err(Error::Mesh(MeshError::ClockwiseMesh { .. })) => {
                for t in &mut triangles {
                    t.swap(1, 2);
                }
                Ok((
                    Self::with_parts(vertices, triangles, parts, vertex_parts)?,
                    true,
                ))
            }
            Err(e) => Err(e),
            Ok(()) => Ok((
                Self::from_valid_geometry(vertices, triangles, parts, vertex_parts)?,
                false,
            )),
        }
    }

    /// Vertex positions.
    pub fn vertices(&self) -> &[Point2<f64>] {
        &self.vertices
    }
    /// Counter-clockwise triangles (vertex indices).
    pub fn triangles(&self) -> &[[usize; 3]] {
        &self.triangles
    }
    /// Part names.
    pub fn parts(&self) -> &[String] {
        &self.parts
    }
    /// Part index of every vertex.
    pub fn vertex_parts(&self) -> &[usize] {
        &self.vertex_parts
    }
    /// How messages name connected component `c`: by the part (or parts, at most three named)
    /// its vertices belong to, e.g. `part "a_leg_R" (component 5, 39 vertices)`.
    pub fn component_name(&self, c: usize) -> String {
        self.component_names(&[c]).remove(0)
    }
    /// [`Mesh::component_name`] of each of `components`, in one pass over the vertices (a
    /// scene of hundreds of meshes may have hundreds of blind components to name).
    pub fn component_names(&self, components: &[usize]) -> Vec<String> {
        let comp = self.topology.component_of();
        let mut slot = vec![usize::MAX; self.topology.component_count()];
        for (k, &c) in components.iter().enumerate() {
            if let Some(s) = slot.get_mut(c) {
                *s = k;
            }
        }
        let mut parts: Vec<Vec<usize>> = vec![Vec::new(); components.len()];
        for (v, &c) in comp.iter().enumerate() {
            if let Some(&k) = slot.get(c).filter(|&&k| k != usize::MAX) {
                parts[k].push(self.vertex_parts[v]);
            }
        }
        components
            .iter()
            .enumerate()
            .map(|(k, &c)| {
                // A component listed twice was gathered in its last slot.
                let mut parts = parts[slot.get(c).map_or(k, |&s| s)].clone();
                let size = parts.len();
                parts.sort_unstable();
                parts.dedup();
                let names: Vec<String> = parts
                    .iter()
                    .take(3)
                    .map(|&p| format!("{:?}", self.parts[p]))
                    .collect();
                let more = match parts.len() {
                    0..=3 => String::new(),
                    k => format!(" and {} more", k - 3),
                };
                let label = if parts.len() == 1 { "part" } else { "parts" };
                format!(
                    "{label} {}{more} (component {c}, {size} vertices)",
                    names.join(", ")
                )
            })
            .collect()
    }
    /// Index of the part called `name`.
    pub fn part_index(&self, name: &str) -> Option<usize> {
        self.parts.iter().position(|p| p == name)
    }
    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.vertices.len()
    }
    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }
    /// Edges, adjacency, boundary loops and components.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// Twice the signed area of triangle `t` (positive: counter-clockwise).
    pub fn triangle_area2(&self, t: usize) -> f64 {
        let [a, b, c] = self.triangles[t];
        signed_area2(&self.vertices[a], &self.vertices[b], &self.vertices[c])
    }

    /// Total area of the mesh.
    pub fn area(&self) -> f64 {
        (0..self.triangles.len())
            .map(|t| self.triangle_area2(t))
            .sum::<f64>()
            * 0.5
    }

    /// Axis-aligned bounding box `(min, max)`.
    pub fn bounds(&self) -> (Point2<f64>, Point2<f64>) {
        let b = crate::geometry::Bounds::of(&self.vertices);
        (b.lo, b.hi)
    }

    /// Character height: the rest mesh's bounding-box height. Reported distances are also
    /// given as a percentage of it.
    pub fn height(&self) -> f64 {
        let (lo, hi) = self.bounds();
        hi.y - lo.y
    }

    /// Smallest interior angle of triangle `t`, in degrees.
    pub fn min_angle_deg(&self, t: usize) -> f64 {
        let [a, b, c] = self.triangles[t].map(|i| self.vertices[i]);
        let ang = |p: Point2<f64>, q: Point2<f64>, r: Point2<f64>| {
            let u = q - p;
            let v = r - p;
            u.perp(&v).abs().atan2(u.dot(&v)).to_degrees()
        };
        ang(a, b, c).min(ang(b, c, a)).min(ang(c, a, b))
    }

    /// What [`Mesh::from_artist`] met in this mesh, when it is not a clean manifold (`None`
    /// for meshes [`Mesh::new`] accepts).
    pub fn artist_notes(&self) -> Option<&ArtistMeshNotes> {
        self.artist.as_deref()
    }

    /// Vertices no triangle uses (only artist meshes have them), ascending.
    pub fn unused_vertices(&self) -> &[usize] {
        self.artist
            .as_ref()
            .map_or(&[][..], |a| &a.unused_vertices[..])
    }

    /// Re-checks every invariant [`Mesh::new`] established (used by tests and fuzzers):
    /// finite points, CCW non-degenerate triangles, manifold edges, consistent topology. For
    /// an artist mesh ([`Mesh::artist_notes`] is `Some`): finite points, indices in range,
    /// every triangle counter-clockwise with non-zero area, the topology equal to a rebuild.
    pub fn sanity_check(&self) -> Result<()> {
        match &self.artist {
            None => validate_geometry(&self.vertices, &self.triangles)?,
            Some(_) => artist::validate_stored(&self.vertices, &self.triangles)?,
        }
        validate_parts(self.vertices.len(), &self.parts, &self.vertex_parts)?;
        self.topology
            .sanity_check(&self.vertices, &self.triangles, self.artist.is_none())
    }
}

fn validate_parts(n: usize, parts: &[String], vertex_parts: &[usize]) -> Result<()> {
    if parts.is_empty() {
        return Err(MeshError::VertexParts {
            problem: VertexPartsProblem::NoParts,
        }
        .into());
    }
    for (i, name) in parts.iter().enumerate() {
        if let Some(first) = parts[..i].iter().position(|p| p == name) {
            return Err(MeshError::VertexParts {
                problem: VertexPartsProblem::DuplicatePart {
                    name: name.clone(),
                    first,
                    second: i,
                },
            }
            .into());
        }
    }
    if vertex_parts.len() != n {
        return Err(MeshError::VertexParts {
            problem: VertexPartsProblem::LabelCount {
                labels: vertex_parts.len(),
                vertices: n,
            },
        }
        .into());
    }
    if let Some((v, &p)) = vertex_parts
        .iter()
        .enumerate()
        .find(|(_, &p)| p >= parts.len())
    {
        return Err(MeshError::VertexParts {
            problem: VertexPartsProblem::PartOutOfRange {
                vertex: v,
                part: p,
                parts: parts.len(),
            },
        }
        .into());
    }
    Ok(())
}

/// Relative tolerance under which a triangle counts as having zero area.
const ZERO_AREA_REL: f64 = 1e-14;

/// Twice the area at or under which triangle (a, b, c) counts as zero: the larger of the
/// rounding error of its signed area (a few ulps of its largest coordinate times its longest
/// edge) and a sliver of [`ZERO_AREA_REL`] times its half longest edge squared. Relative to the
/// triangle itself, so a mesh far from the origin (shifted by 1e9) or with fine features keeps
/// its good triangles; never above the older whole-mesh rule (1e-14 times the square of the
/// largest coordinate), which the DragonBones importer still applies first.
pub(crate) fn zero_area_tolerance(a: &Point2<f64>, b: &Point2<f64>, c: &Point2<f64>) -> f64 {
    let m = [a, b, c]
        .iter()
        .fold(0.0f64, |m, p| m.max(p.x.abs()).max(p.y.abs()));
    let l2 = (b - a)
        .norm_squared()
        .max((c - b).norm_squared())
        .max((a - c).norm_squared());
    (8.0 * f64::EPSILON * m * l2.sqrt()).max(ZERO_AREA_REL * 0.25 * l2)
}

fn validate_geometry(vertices: &[Point2<f64>], triangles: &[[usize; 3]]) -> Result<()> {
    if vertices.len() < 3 || triangles.is_empty() {
        return Err(MeshError::EmptyMesh {
            vertices: vertices.len(),
            triangles: triangles.len(),
        }
        .into());
    }
    for (v, p) in vertices.iter().enumerate() {
        if !p.x.is_finite() || !p.y.is_finite() {
            return Err(MeshError::NonFiniteCoordinate {
                vertex: v,
                x: p.x,
                y: p.y,
            }
            .into());
        }
    }
    let n = vertices.len();
    let mut ccw = 0usize;
    let mut first_cw = None;
    let mut first_ccw = None;
    for (t, tri) in triangles.iter().enumerate() {
        for &i in tri {
            if i >= n {
                return Err(MeshError::IndexOutOfRange {
                    triangle: t,
                    index: i,
                    vertex_count: n,
                }
                .into());
            }
        }
        let [a, b, c] = tri.map(|i| &vertices[i]);
        let a2 = signed_area2(a, b, c);
        if tri[0] == tri[1]
            || tri[1] == tri[2]
            || tri[0] == tri[2]
            || a2.abs() <= zero_area_tolerance(a, b, c)
        {
            return Err(MeshError::ZeroAreaTriangle {
                triangle: t,
                corners: *tri,
                area: a2 * 0.5,
            }
            .into());
        }
        if a2 > 0.0 {
            ccw += 1;
            first_ccw.get_or_insert(t);
        } else {
            first_cw.get_or_insert(t);
        }
    }
    if ccw == 0 {
        return Err(MeshError::ClockwiseMesh {
            total: triangles.len(),
        }
        .into());
    }
    if ccw < triangles.len() {
        // Name a triangle of the minority orientation: that is the one most likely wrong.
        let cw = triangles.len() - ccw;
        let t = if cw <= ccw {
            first_cw.unwrap_or(0)
        } else {
            first_ccw.unwrap_or(0)
        };
        return Err(MeshError::MixedOrientation {
            triangle: t,
            corners: triangles[t],
            ccw,
            total: triangles.len(),
        }
        .into());
    }
    // Repeated triangles (same vertex set) are found by the topology pass: they share edges.
    Ok(())
}
