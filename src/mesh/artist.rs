//! Artist meshes: what Spine, DragonBones and Godot accept, not what a mesher makes.
//!
//! An artist draws triangles in either order, folds a mesh over itself in the setup pose,
//! leaves vertices no triangle uses, repeats triangles and hangs three triangles on one edge.
//! [`Mesh::from_artist`] keeps all of it (the solvers work on connectivity, not on the
//! embedding) and reports what it met as [`ArtistMeshNotes`] instead of failing:
//!
//! - every triangle is stored counter-clockwise (the model's convention): a clockwise one has
//!   its last two corners swapped, and is counted;
//! - a zero-area triangle (a repeated corner, or three collinear corners by the same rule as
//!   [`Mesh::new`]) is **dropped**: it covers no pixel, and its cotangents are infinite. The
//!   other triangles keep their input order;
//! - every vertex is kept, used or not (weights files are per vertex);
//! - folded edges (two triangles on the same side of their shared edge: they overlap),
//!   edges of three or more triangles, repeated triangles and pinched (bow-tie) vertices are
//!   kept and counted.
//!
//! A mesh that turns out clean (only re-oriented triangles) is an ordinary [`Mesh`]; any other
//! is marked as an artist mesh ([`Mesh::artist_notes`]) and checked by the artist invariants.

use super::topology::{Irregularities, Topology};
use super::{signed_area2, validate_parts, zero_area_tolerance, Mesh};
use crate::error::{Error, MeshError, MeshingProblem, Result};
use nalgebra::Point2;

/// What [`Mesh::from_artist`] met while reading an artist mesh. Triangle indices are those of
/// the **input** list (before zero-area triangles were dropped); vertex indices are unchanged.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ArtistMeshNotes {
    /// Number of triangles given.
    pub input_triangles: usize,
    /// Triangles given clockwise, stored counter-clockwise (corners 1 and 2 swapped).
    pub reoriented: usize,
    /// The first of them.
    pub first_reoriented: Option<usize>,
    /// Zero-area triangles dropped (a repeated corner or collinear corners), ascending.
    pub dropped_degenerate: Vec<usize>,
    /// Edges where the mesh folds over itself: their two triangles lie on the same side of
    /// them (after re-orientation), so they overlap.
    pub folded_edges: usize,
    /// The first folded edge `[a, b]`, `a < b`.
    pub first_folded_edge: Option<[usize; 2]>,
    /// Edges used by three or more triangles (non-manifold).
    pub non_manifold_edges: usize,
    /// The first of them and its triangle count.
    pub first_non_manifold_edge: Option<([usize; 2], usize)>,
    /// Triangles repeating an earlier triangle's three vertices (kept).
    pub repeated_triangles: usize,
    /// The first `(later, earlier)` pair.
    pub first_repeated: Option<(usize, usize)>,
    /// Vertices where separate fans of triangles meet (bow-ties, pinches).
    pub pinched_vertices: usize,
    /// The first of them and its number of fans.
    pub first_pinched: Option<(usize, usize)>,
    /// Vertices no triangle uses, ascending (kept; solvers give them the nearest bone's
    /// weights).
    pub unused_vertices: Vec<usize>,
}

impl ArtistMeshNotes {
    /// Whether the stored mesh is a clean manifold [`Mesh::new`] would accept (re-oriented
    /// triangles aside).
    pub fn is_manifold(&self) -> bool {
        self.dropped_degenerate.is_empty()
            && self.folded_edges == 0
            && self.non_manifold_edges == 0
            && self.repeated_triangles == 0
            && self.pinched_vertices == 0
            && self.unused_vertices.is_empty()
    }

    /// Whether nothing at all was met (not even a re-oriented triangle).
    pub fn is_empty(&self) -> bool {
        self.reoriented == 0 && self.is_manifold()
    }

    /// One line per finding, for a loader's or importer's notes (empty when
    /// [`ArtistMeshNotes::is_empty`]).
    pub fn messages(&self) -> Vec<String> {
        let mut out = Vec::new();
        let eg = |x: Option<String>| x.map(|s| format!(", e.g. {s}")).unwrap_or_default();
        if self.reoriented > 0 && self.reoriented == self.input_triangles {
            out.push(format!(
                "all {} triangles were clockwise (y-down file?): flipped to counter-clockwise",
                self.reoriented
            ));
        } else if self.reoriented > 0 {
            out.push(format!(
                "{} of {} triangles were clockwise: stored counter-clockwise{}",
                self.reoriented,
                self.input_triangles,
                eg(self.first_reoriented.map(|t| format!("triangle {t}")))
            ));
        }
        if let Some(&t) = self.dropped_degenerate.first() {
            out.push(format!(
                "{} zero-area triangles dropped (a repeated corner or collinear corners), e.g. triangle {t}",
                self.dropped_degenerate.len()
            ));
        }
        if self.folded_edges > 0 {
            out.push(format!(
                "the mesh folds over itself at {} edges (their two triangles overlap; solvers use connectivity){}",
                self.folded_edges,
                eg(self.first_folded_edge.map(|[a, b]| format!("edge ({a}, {b})")))
            ));
        }
        if self.non_manifold_edges > 0 {
            out.push(format!(
                "{} edges are shared by three or more triangles{}",
                self.non_manifold_edges,
                eg(self
                    .first_non_manifold_edge
                    .map(|([a, b], k)| format!("edge ({a}, {b}) by {k}")))
            ));
        }
        if self.repeated_triangles > 0 {
            out.push(format!(
                "{} triangles repeat another's three vertices (kept){}",
                self.repeated_triangles,
                eg(self
                    .first_repeated
                    .map(|(t, u)| format!("triangle {t} repeats triangle {u}")))
            ));
        }
        if self.pinched_vertices > 0 {
            out.push(format!(
                "{} vertices join separate fans of triangles (bow-ties){}",
                self.pinched_vertices,
                eg(self
                    .first_pinched
                    .map(|(v, k)| format!("vertex {v} with {k} fans")))
            ));
        }
        if let Some(&v) = self.unused_vertices.first() {
            out.push(format!(
                "{} vertices are used by no triangle (kept; solvers give them the nearest bone's weights), e.g. vertex {v}",
                self.unused_vertices.len()
            ));
        }
        out
    }
}

impl Mesh {
    /// Builds a mesh from an artist's triangles (Spine, DragonBones, Godot), keeping what
    /// [`Mesh::with_parts`] rejects and reporting it (see the module docs and
    /// `docs/artist-meshes.md`): triangles of either orientation (stored counter-clockwise),
    /// folds, overlaps, unused vertices, repeated triangles, edges of three or more triangles,
    /// bow-tie vertices. Zero-area triangles are dropped and listed.
    ///
    /// ```
    /// use nalgebra::Point2;
    /// use skinweights::mesh::Mesh;
    /// let p = |x, y| Point2::new(x, y);
    /// // A square with one clockwise triangle, and a vertex no triangle uses.
    /// let points = vec![p(0.0, 0.0), p(1.0, 0.0), p(1.0, 1.0), p(0.0, 1.0), p(5.0, 5.0)];
    /// let (mesh, notes) =
    ///     Mesh::from_artist(points, vec![[0, 1, 2], [0, 3, 2]], vec!["body".into()], vec![0; 5])?;
    /// assert_eq!((notes.reoriented, notes.unused_vertices.clone()), (1, vec![4]));
    /// assert_eq!(mesh.triangles()[1], [0, 2, 3]);
    /// mesh.sanity_check()?;
    /// # Ok::<(), skinweights::Error>(())
    /// ```
    ///
    /// Errors: [`MeshError::EmptyMesh`] (fewer than 3 vertices, or no triangle of non-zero area),
    /// [`MeshError::NonFiniteCoordinate`], [`MeshError::IndexOutOfRange`], [`MeshError::VertexParts`].
    pub fn from_artist(
        vertices: Vec<Point2<f64>>,
        triangles: Vec<[usize; 3]>,
        parts: Vec<String>,
        vertex_parts: Vec<usize>,
    ) -> Result<(Mesh, ArtistMeshNotes)> {
        let n = vertices.len();
        if n < 3 || triangles.is_empty() {
            return Err(MeshError::EmptyMesh {
                vertices: n,
                triangles: triangles.len(),
            }
            .into());
        }
        check_points(&vertices)?;
        let mut notes = ArtistMeshNotes {
            input_triangles: triangles.len(),
            ..Default::default()
        };
        let KeptTriangles {
            triangles: kept,
            input_index,
        } = orient_and_drop_degenerate(&vertices, triangles, &mut notes)?;
        if kept.is_empty() {
            return Err(MeshError::EmptyMesh {
                vertices: n,
                triangles: 0,
            }
            .into());
        }
        validate_parts(n, &parts, &vertex_parts)?;
        let (topology, found) = Topology::build_lenient(n, &kept)?;
        let input = |t: usize| input_index.as_ref().map_or(t, |m| m[t]);
        record_irregularities(&mut notes, found, input);
        let artist = (!notes.is_manifold()).then(|| Box::new(notes.clone()));
        Ok((
            Mesh {
                vertices,
                triangles: kept,
                parts,
                vertex_parts,
                topology,
                artist,
            },
            notes,
        ))
    }

    /// A mesh derived from this one (refined, re-labelled): validated strictly when this one
    /// is an ordinary mesh, read as an artist mesh (notes dropped) when this one is.
    pub(crate) fn with_parts_like(
        &self,
        vertices: Vec<Point2<f64>>,
        triangles: Vec<[usize; 3]>,
        parts: Vec<String>,
        vertex_parts: Vec<usize>,
    ) -> Result<Mesh> {
        match self.artist {
            None => Mesh::with_parts(vertices, triangles, parts, vertex_parts),
            Some(_) => Ok(Mesh::from_artist(vertices, triangles, parts, vertex_parts)?.0),
        }
    }
}

/// The triangles an artist mesh keeps.
struct KeptTriangles {
    /// The triangles of non-zero area, each counter-clockwise, in input order.
    triangles: Vec<[usize; 3]>,
    /// Stored index -> input index, only once a triangle has been dropped.
    input_index: Option<Vec<usize>>,
}

/// The triangles of non-zero area, each counter-clockwise; dropped and re-oriented
/// triangles are noted in `notes`.
fn orient_and_drop_degenerate(
    vertices: &[Point2<f64>],
    triangles: Vec<[usize; 3]>,
    notes: &mut ArtistMeshNotes,
) -> Result<KeptTriangles> {
    let mut kept = triangles;
    // Stored index -> input index, only once a triangle has been dropped.
    let mut input_index: Option<Vec<usize>> = None;
    let mut w = 0;
    for t in 0..kept.len() {
        let mut tri = kept[t];
        let a2 = checked_area2(vertices, &tri, t)?;
        if a2 == 0.0 {
            notes.dropped_degenerate.push(t);
            input_index.get_or_insert_with(|| (0..w).collect());
            continue;
        }
        if a2 < 0.0 {
            tri.swap(1, 2);
            notes.reoriented += 1;
            notes.first_reoriented.get_or_insert(t);
        }
        kept[w] = tri;
        if let Some(map) = &mut input_index {
            map.push(t);
        }
        w += 1;
    }
    kept.truncate(w);
    Ok(KeptTriangles {
        triangles: kept,
        input_index,
    })
}

/// Copies what the topology `found` into `notes`, triangle indices mapped back to the input
/// list with `input`.
fn record_irregularities(
    notes: &mut ArtistMeshNotes,
    found: Irregularities,
    input: impl Fn(usize) -> usize,
) {
    let Irregularities {
        non_manifold_edges,
        first_non_manifold_edge,
        folded_edges,
        first_folded_edge,
        repeated_triangles,
        first_repeated,
        unused_vertices,
        pinched_vertices,
        first_pinched,
    } = found;
    notes.non_manifold_edges = non_manifold_edges;
    notes.first_non_manifold_edge = first_non_manifold_edge;
    notes.folded_edges = folded_edges;
    notes.first_folded_edge = first_folded_edge;
    notes.repeated_triangles = repeated_triangles;
    notes.first_repeated = first_repeated.map(|(t, u)| (input(t), input(u)));
    notes.unused_vertices = unused_vertices;
    notes.pinched_vertices = pinched_vertices;
    notes.first_pinched = first_pinched;
}

fn check_points(vertices: &[Point2<f64>]) -> Result<()> {
    match vertices
        .iter()
        .position(|p| !p.x.is_finite() || !p.y.is_finite())
    {
        Some(v) => Err(MeshError::NonFiniteCoordinate {
            vertex: v,
            x: vertices[v].x,
            y: vertices[v].y,
        }
        .into()),
        None => Ok(()),
    }
}

/// Twice the signed area of triangle `t`, 0 when it counts as zero area (a repeated corner,
/// or under [`zero_area_tolerance`]); [`MeshError::IndexOutOfRange`] for a corner past the list.
fn checked_area2(vertices: &[Point2<f64>], tri: &[usize; 3], t: usize) -> Result<f64> {
    if let Some(&i) = tri.iter().find(|&&i| i >= vertices.len()) {
        return Err(MeshError::IndexOutOfRange {
            triangle: t,
            index: i,
            vertex_count: vertices.len(),
        }
        .into());
    }
    let [a, b, c] = tri.map(|i| &vertices[i]);
    let a2 = signed_area2(a, b, c);
    let repeated = tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2];
    Ok(if repeated || a2.abs() <= zero_area_tolerance(a, b, c) {
        0.0
    } else {
        a2
    })
}

/// The artist invariants of a stored mesh ([`Mesh::sanity_check`]): finite points, indices in
/// range, at least one triangle, every triangle counter-clockwise with non-zero area.
pub(super) fn validate_stored(vertices: &[Point2<f64>], triangles: &[[usize; 3]]) -> Result<()> {
    if vertices.len() < 3 || triangles.is_empty() {
        return Err(MeshError::EmptyMesh {
            vertices: vertices.len(),
            triangles: triangles.len(),
        }
        .into());
    }
    check_points(vertices)?;
    for (t, tri) in triangles.iter().enumerate() {
        let a2 = checked_area2(vertices, tri, t)?;
        if a2 <= 0.0 {
            return Err(if a2 == 0.0 {
                Error::Mesh(MeshError::ZeroAreaTriangle {
                    triangle: t,
                    corners: *tri,
                    area: 0.0,
                })
            } else {
                Error::Mesh(MeshError::Meshing {
                    problem: MeshingProblem::ClockwiseArtistTriangle {
                        triangle: t,
                        corners: *tri,
                    },
                })
            });
        }
    }
    Ok(())
}
