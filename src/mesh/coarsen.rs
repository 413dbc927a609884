//! A coarser copy of a mesh with the same shape, and the transfer of vertex values from it
//! back to the original vertices.
//!
//! Each connected component is meshed again ([`mesh_outline`]) from its own boundary loops,
//! simplified: a loop keeps a vertex only where the chord from the last kept one would
//! stray farther than a tenth of the coarse edge length from the original boundary, so
//! corners, slits and holes keep their shape (and a loop that would cross another makes
//! meshing fail, which callers treat as "no coarse copy").
//! Components are meshed one at a time so that overlapping layers stay separate, and the
//! parts of the coarse vertices are those of the closest original vertex of the same
//! component. The bbw solver solves its QP on such a copy to predict the active set of the
//! full-resolution QP (option `coarse`).

use super::meshing::{estimate_max_area, mesh_outline, MeshingOptions, Outline};
use super::triangle_grid::TriangleGrid;
use super::Mesh;
use crate::error::Result;
use crate::geometry::Segment;
use nalgebra::Point2;
use rayon::prelude::*;

/// Components with fewer vertices than this in the coarse copy are copied unchanged.
const MIN_COMPONENT_VERTICES: usize = 64;
/// A simplified loop strays at most this fraction of the coarse edge length from the original.
const DEVIATION: f64 = 0.1;

/// A coarse copy of a mesh with the map back to the original.
#[derive(Debug, Clone)]
pub struct CoarseMesh {
    /// The coarse mesh (the original's part names; components in the original's order).
    pub mesh: Mesh,
    /// Component (of the original mesh) of every coarse triangle.
    triangle_component: Vec<usize>,
    /// How far an original vertex may lie outside the coarse mesh.
    reach: f64,
}

impl CoarseMesh {
    /// Meshes `mesh` again with about `target_vertices` vertices (see the module docs),
    /// with `segments` (for example the bones) as constrained edges of the components that
    /// contain them whole; a component where they cannot be meshed is meshed without them.
    /// Errors ([`MeshError::Meshing`](crate::error::MeshError::Meshing)) when a component's simplified loops cannot be meshed.
    pub fn new(mesh: &Mesh, segments: &[Segment], target_vertices: usize) -> Result<Self> {
        let n = mesh.vertex_count();
        let topology = mesh.topology();
        let components = topology.component_count();
        let points = mesh.vertices();
        let Components {
            loops_of,
            vertices_of,
            triangles_of,
            area,
        } = Components::of(mesh);
        let mut vertices: Vec<Point2<f64>> = Vec::new();
        let mut triangles: Vec<[usize; 3]> = Vec::new();
        let mut triangle_component = Vec::new();
        // Original vertices copied unchanged (`usize::MAX`: a new vertex).
        let mut copied_from: Vec<usize> = Vec::new();
        let mut reach: f64 = 0.0;
        let ratio = target_vertices as f64 / n.max(1) as f64;
        let all_loops: Vec<&Vec<usize>> = topology.boundary_loops().iter().collect();
        let shared = shared_loop_vertices(&all_loops, n);
        let mut index = vec![usize::MAX; n];
        for c in 0..components {
            let target = (vertices_of[c].len() as f64 * ratio).round() as usize;
            let base = vertices.len();
            if target < MIN_COMPONENT_VERTICES || 2 * target > vertices_of[c].len() {
                for &v in &vertices_of[c] {
                    index[v] = vertices.len();
                    vertices.push(points[v]);
                    copied_from.push(v);
                }
                copy_triangles(mesh, &triangles_of[c], &index, &mut triangles);
                triangle_component.extend(std::iter::repeat_n(c, triangles_of[c].len()));
                continue;
            }
            let perimeter = loop_length(points, &loops_of[c]);
            let max_area = estimate_max_area(area[c], perimeter, target);
            // The edge of an equilateral triangle of that area.
            let edge = (4.0 * max_area / 3f64.sqrt()).sqrt();
            let tolerance = DEVIATION * edge;
            let mut outline =
                simplified_outline(points, &loops_of[c], &shared, tolerance, segments);
            let options = MeshingOptions::default()
                .with_target_vertices(target.max(3))
                .with_max_area(Some(max_area));
            let meshed = match mesh_outline(&outline, &options) {
                Ok(m) => m,
                Err(_) if !outline.segments.is_empty() => {
                    outline.segments.clear();
                    mesh_outline(&outline, &options)?
                }
                Err(e) => return Err(e),
            };
            let (pts, tris, _) = meshed;
            reach = reach.max(tolerance);
            copied_from.extend(std::iter::repeat_n(usize::MAX, pts.len()));
            vertices.extend(pts);
            for t in tris {
                triangles.push(t.map(|v| v + base));
                triangle_component.push(c);
            }
        }
        let vertex_parts = coarse_parts(
            mesh,
            &vertices,
            &triangles,
            &triangle_component,
            &copied_from,
            reach,
        );
        let mesh = Mesh::with_parts(vertices, triangles, mesh.parts().to_vec(), vertex_parts)?;
        Ok(CoarseMesh {
            mesh,
            triangle_component,
            // Round-off of the points on the chords.
            reach: reach * 1.01 + 1e-9 * mesh_scale(points),
        })
    }

    /// Interpolates `values` (`columns` per coarse vertex, row-major) at the vertices `at`
    /// of the original mesh `original` (linearly in the coarse triangle of the same
    /// component that is closest): `columns` values per entry of `at`, row-major. `None`
    /// when one of them lies farther from every such triangle than the simplified loops allow
    /// (`original` is not the mesh this copy was made from).
    pub fn interpolate(
        &self,
        original: &Mesh,
        at: &[usize],
        values: &[f64],
        columns: usize,
    ) -> Option<Vec<f64>> {
        let coarse = &self.mesh;
        if values.len() != coarse.vertex_count() * columns {
            return None;
        }
        let corners = |t: usize| coarse.triangles()[t].map(|v| coarse.vertices()[v]);
        let grid = TriangleGrid::new(
            (0..coarse.triangle_count())
                .map(|t| (t, corners(t)))
                .collect(),
            self.reach,
        );
        let component_of = original.topology().component_of();
        let rows: Option<Vec<Vec<f64>>> = at
            .par_iter()
            .map(|&v| {
                let c = *component_of.get(v)?;
                let p = *original.vertices().get(v)?;
                let hit = grid.closest(p, self.reach, |t| self.triangle_component[t] == c)?;
                let tri = coarse.triangles()[hit.id];
                let mut row = vec![0.0; columns];
                for (k, &cv) in tri.iter().enumerate() {
                    let from = &values[cv * columns..(cv + 1) * columns];
                    row.iter_mut()
                        .zip(from)
                        .for_each(|(r, &x)| *r += hit.bary[k] * x);
                }
                Some(row)
            })
            .collect();
        Some(rows?.concat())
    }
}

/// Total length of `loops`.
fn loop_length(points: &[Point2<f64>], loops: &[&Vec<usize>]) -> f64 {
    loops
        .iter()
        .flat_map(|l| {
            (0..l.len()).map(move |i| (points[l[(i + 1) % l.len()]] - points[l[i]]).norm())
        })
        .sum()
}

/// Vertices that appear more than once on the loops (where the boundary touches itself):
/// every loop keeps them, so simplified loops still meet only there.
fn shared_loop_vertices(loops: &[&Vec<usize>], n: usize) -> Vec<bool> {
    let mut seen = vec![0u8; n];
    for l in loops {
        for &v in l.iter() {
            seen[v] = seen[v].saturating_add(1);
        }
    }
    seen.into_iter().map(|s| s > 1).collect()
}

/// The loop `l` of `points` with only the vertices needed to stay within `tolerance` of
/// it: greedily, the farthest next vertex whose chord from the last kept one passes within
/// `tolerance` of every vertex it skips (vertices in `keep` are always kept). Long straight
/// runs become one edge, which the mesher splits as it refines (their intermediate
/// vertices, nearly collinear, would leave slivers it cannot refine away).
fn simplify_loop(
    points: &[Point2<f64>],
    l: &[usize],
    keep: &[bool],
    tolerance: f64,
) -> Vec<Point2<f64>> {
    let m = l.len();
    // Start at a kept vertex when there is one, so that it is never skipped.
    let start = (0..m).find(|&i| keep[l[i]]).unwrap_or(0);
    let at = |i: usize| points[l[(start + i) % m]];
    let mut out = vec![at(0)];
    let mut last = 0;
    while last < m {
        let mut next = last + 1;
        while next < m {
            let candidate = next + 1;
            let chord = Segment::new(at(last), at(candidate % m));
            let fits = !keep[l[(start + next) % m]]
                && (last + 1..candidate).all(|k| chord.distance(&at(k)) <= tolerance);
            if !fits {
                break;
            }
            next = candidate;
        }
        if next < m {
            out.push(at(next));
        }
        last = next;
    }
    // A loop within the tolerance of a segment (a small hole) keeps its shape.
    match out.len() < 4 {
        true => (0..m).map(at).collect(),
        false => out,
    }
}

/// Largest absolute coordinate (at least 1), for round-off margins.
fn mesh_scale(points: &[Point2<f64>]) -> f64 {
    points
        .iter()
        .fold(1.0f64, |s, p| s.max(p.x.abs()).max(p.y.abs()))
}

/// Part of every coarse vertex: the copied vertex's own part, else that of the corner
/// nearest to it of the closest original triangle of the same component.
fn coarse_parts(
    mesh: &Mesh,
    vertices: &[Point2<f64>],
    triangles: &[[usize; 3]],
    triangle_component: &[usize],
    copied_from: &[usize],
    reach: f64,
) -> Vec<usize> {
    let parts = mesh.vertex_parts();
    if mesh.parts().len() <= 1 {
        return vec![0; vertices.len()];
    }
    let component_of = mesh.topology().component_of();
    let mut component = vec![0; vertices.len()];
    for (t, tri) in triangles.iter().enumerate() {
        tri.iter()
            .for_each(|&v| component[v] = triangle_component[t]);
    }
    let originals = mesh.triangles();
    let corners = |t: usize| originals[t].map(|v| mesh.vertices()[v]);
    let pad = reach * 1.01 + 1e-9 * mesh_scale(mesh.vertices());
    let grid = TriangleGrid::new((0..originals.len()).map(|t| (t, corners(t))).collect(), pad);
    (0..vertices.len())
        .into_par_iter()
        .map(|v| {
            if copied_from[v] != usize::MAX {
                return parts[copied_from[v]];
            }
            let c = component[v];
            let hit = grid.closest(vertices[v], pad, |t| component_of[originals[t][0]] == c);
            hit.map_or(0, |h| {
                let k = (0..3)
                    .max_by(|&a, &b| h.bary[a].total_cmp(&h.bary[b]))
                    .unwrap_or(0);
                parts[originals[h.id][k]]
            })
        })
        .collect()
}

/// The pieces of each connected component of a mesh that [`CoarseMesh::new`] meshes
/// apart, gathered in one pass each.
struct Components<'a> {
    /// Each component's boundary loops.
    loops_of: Vec<Vec<&'a Vec<usize>>>,
    /// Each component's vertices, in increasing order.
    vertices_of: Vec<Vec<usize>>,
    /// Each component's triangles, in increasing order.
    triangles_of: Vec<Vec<usize>>,
    /// Each component's area.
    area: Vec<f64>,
}

impl<'a> Components<'a> {
    /// Gathers the components of `mesh`.
    fn of(mesh: &'a Mesh) -> Self {
        let topology = mesh.topology();
        let component_of = topology.component_of();
        let components = topology.component_count();
        let mut loops_of: Vec<Vec<&Vec<usize>>> = vec![Vec::new(); components];
        for l in topology.boundary_loops() {
            if let Some(&v) = l.first() {
                loops_of[component_of[v]].push(l);
            }
        }
        let mut vertices_of: Vec<Vec<usize>> = vec![Vec::new(); components];
        (0..mesh.vertex_count()).for_each(|v| vertices_of[component_of[v]].push(v));
        let mut triangles_of: Vec<Vec<usize>> = vec![Vec::new(); components];
        let mut area = vec![0.0; components];
        for (t, tri) in mesh.triangles().iter().enumerate() {
            triangles_of[component_of[tri[0]]].push(t);
            area[component_of[tri[0]]] += mesh.triangle_area2(t) / 2.0;
        }
        Components {
            loops_of,
            vertices_of,
            triangles_of,
            area,
        }
    }
}

/// The outline [`CoarseMesh::new`] meshes for a component: its boundary `loops`
/// simplified within `tolerance` (keeping the `shared` vertices), with the `segments`
/// it contains whole as constrained edges.
fn simplified_outline(
    points: &[Point2<f64>],
    loops: &[&Vec<usize>],
    shared: &[bool],
    tolerance: f64,
    segments: &[Segment],
) -> Outline {
    let loops: Vec<Vec<Point2<f64>>> = loops
        .iter()
        .map(|l| simplify_loop(points, l, shared, tolerance))
        .collect();
    let mut outline = Outline {
        loops,
        segments: Vec::new(),
    };
    outline.segments = segments
        .iter()
        .filter(|s| outline.contains(s.a) && outline.contains(s.b))
        .map(|s| [s.a, s.b])
        .collect();
    outline
}

/// Appends the `chosen` triangles of `mesh` to `triangles`, their vertices renumbered by
/// `index`: a component [`CoarseMesh::new`] keeps as it is.
fn copy_triangles(mesh: &Mesh, chosen: &[usize], index: &[usize], triangles: &mut Vec<[usize; 3]>) {
    for &t in chosen {
        triangles.push(mesh.triangles()[t].map(|v| index[v]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{mesh_outline, MeshingOptions, Outline};
    use crate::scene::{builtin_scene, BuiltinOptions};

    fn scene_mesh(name: &str, vertices: usize) -> Mesh {
        let options = BuiltinOptions {
            vertices,
            ..Default::default()
        };
        builtin_scene(name, &options).unwrap().mesh
    }

    /// The mesh of the outline made of `loops`, with about `vertices` vertices.
    fn meshed_loops(loops: Vec<Vec<Point2<f64>>>, vertices: usize) -> Mesh {
        let outline = Outline {
            loops,
            segments: Vec::new(),
        };
        let options = MeshingOptions::default().with_target_vertices(vertices);
        let (points, triangles, _) = mesh_outline(&outline, &options).unwrap();
        Mesh::new(points, triangles).unwrap()
    }

    /// Area of every part (a third of each triangle to each corner's part).
    fn part_areas(mesh: &Mesh) -> Vec<f64> {
        let mut areas = vec![0.0; mesh.parts().len()];
        for (t, tri) in mesh.triangles().iter().enumerate() {
            for &v in tri {
                areas[mesh.vertex_parts()[v]] += mesh.triangle_area2(t) / 6.0;
            }
        }
        areas
    }

    #[test]
    fn the_copy_keeps_components_area_and_parts() {
        for name in ["arms-down", "layered-arms", "figure"] {
            let fine = scene_mesh(name, 20_000);
            let target = fine.vertex_count() / 8;
            let coarse = CoarseMesh::new(&fine, &[], target).unwrap().mesh;
            let (n, t) = (coarse.vertex_count() as f64, target as f64);
            assert!(n > 0.6 * t && n < 1.5 * t, "{name}: {n} vertices for {t}");
            let (tf, tc) = (fine.topology(), coarse.topology());
            assert_eq!(tf.component_count(), tc.component_count(), "{name}");
            assert_eq!(
                tf.boundary_loops().len(),
                tc.boundary_loops().len(),
                "{name}"
            );
            let relative = (coarse.area() - fine.area()).abs() / fine.area();
            assert!(relative < 1e-2, "{name}: area off by {relative}");
            assert_eq!(fine.parts(), coarse.parts());
            // A part's border moves by up to a coarse edge (measured: at most 7%, `figure`'s
            // smallest parts).
            for (p, (a, b)) in part_areas(&fine)
                .iter()
                .zip(part_areas(&coarse))
                .enumerate()
            {
                assert!((a - b).abs() <= 0.1 * a, "{name} part {p}: area {a} vs {b}");
            }
        }
    }

    #[test]
    fn interpolation_is_exact_on_linear_functions_and_stays_in_its_component() {
        let fine = scene_mesh("layered-arms", 20_000);
        assert!(fine.topology().component_count() > 1);
        let copy = CoarseMesh::new(&fine, &[], 2_500).unwrap();
        let linear = |p: &Point2<f64>| 2.0 * p.x - 3.0 * p.y + 1.0;
        let coarse_component = copy.mesh.topology().component_of();
        let values: Vec<f64> = copy
            .mesh
            .vertices()
            .iter()
            .zip(coarse_component)
            .flat_map(|(p, &c)| [linear(p), c as f64])
            .collect();
        let all: Vec<usize> = (0..fine.vertex_count()).collect();
        let at = copy.interpolate(&fine, &all, &values, 2).unwrap();
        let slope = 13f64.sqrt();
        let component_of = fine.topology().component_of();
        for (v, p) in fine.vertices().iter().enumerate() {
            // Original vertices outside the copy take the value of its closest point.
            let error = (at[2 * v] - linear(p)).abs();
            assert!(
                error <= slope * copy.reach + 1e-9,
                "vertex {v}: off by {error}"
            );
            assert!(
                (at[2 * v + 1] - component_of[v] as f64).abs() < 1e-12,
                "vertex {v}"
            );
        }
        assert!(copy.interpolate(&fine, &all, &values[1..], 2).is_none());
    }

    #[test]
    fn holes_stay_holes() {
        let square = |s: f64| {
            vec![
                Point2::new(-s, -s),
                Point2::new(s, -s),
                Point2::new(s, s),
                Point2::new(-s, s),
            ]
        };
        let fine = meshed_loops(vec![square(10.0), square(3.0)], 8_000);
        let coarse = CoarseMesh::new(&fine, &[], 1_000).unwrap().mesh;
        assert_eq!(coarse.topology().boundary_loops().len(), 2);
        assert!((coarse.area() - fine.area()).abs() < 1e-9 * fine.area());
    }

    /// Seeded random star outlines with deep spikes (slits a few coarse edges wide) and a
    /// hole: the copy either meshes, with the same components and loops and every original
    /// vertex within reach, or fails with an error (never a panic).
    #[test]
    fn random_spiky_outlines_mesh_or_fail_cleanly() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut meshed = 0;
        for case in 0..8 {
            let spikes = 12 + (random() * 30.0) as usize;
            let outer: Vec<Point2<f64>> = (0..2 * spikes)
                .map(|k| {
                    let angle = std::f64::consts::PI * k as f64 / spikes as f64;
                    let r = match k % 2 {
                        0 => 100.0 * (0.8 + 0.4 * random()),
                        _ => 100.0 * (0.2 + 0.3 * random()),
                    };
                    Point2::new(r * angle.cos(), r * angle.sin())
                })
                .collect();
            let hole: Vec<Point2<f64>> = (0..5)
                .map(|k| {
                    let angle = std::f64::consts::TAU * k as f64 / 5.0;
                    Point2::new(8.0 * angle.cos(), 8.0 * angle.sin())
                })
                .collect();
            let fine = meshed_loops(vec![outer, hole], 24_000);
            let Ok(copy) = CoarseMesh::new(&fine, &[], fine.vertex_count() / 8) else {
                continue;
            };
            meshed += 1;
            let (tf, tc) = (fine.topology(), copy.mesh.topology());
            assert_eq!(tf.component_count(), tc.component_count(), "case {case}");
            assert_eq!(
                tf.boundary_loops().len(),
                tc.boundary_loops().len(),
                "case {case}"
            );
            let all: Vec<usize> = (0..fine.vertex_count()).collect();
            let ones = vec![1.0; copy.mesh.vertex_count()];
            let at = copy.interpolate(&fine, &all, &ones, 1);
            assert!(at.is_some_and(|v| v.iter().all(|&x| (x - 1.0).abs() < 1e-12)));
        }
        // Measured: every case meshes.
        assert!(meshed >= 6, "{meshed} of 8 meshed");
    }
}
