//! Shared boundary (the first repair): boundaries of different layers that meet are
//! welded so both sides have the same seam vertices at the same positions.
//!
//! A scene has one texture coordinate per vertex and layers may sample different images, so
//! two layers cannot literally share a vertex: each layer keeps its own vertices, and the
//! welded ones sit at bit-identical positions. Those coincident vertices are the seam that
//! [`super::seam_consistent_weights`] joins when it solves.

use super::layers::{check_amount, rebuild, silhouette_change, Layers, PointGrid};
use crate::error::{RepairProblem, Result, SeamError};
use crate::geometry::{signed_area2, Segment};
use crate::mesh::{zero_area_tolerance, Mesh};
use crate::scene::Scene;
use nalgebra::Point2;
use std::collections::HashMap;

/// What [`weld_seams`] changed.
#[derive(Debug, Clone, PartialEq)]
pub struct WeldReport {
    /// The tolerance used, px.
    pub tolerance: f64,
    /// The seams found: each pair of layers that now share welded vertices, with how many
    /// positions they share.
    pub seams: Vec<WeldedPair>,
    /// Vertices of the input moved onto a seam position.
    pub vertices_moved: usize,
    /// Vertices inserted into the other layer's boundary edges (T-junctions resolved), plus
    /// any centre vertices a triangle split needed.
    pub vertices_inserted: usize,
    /// Largest distance a vertex moved, px.
    pub max_displacement: f64,
    /// How far the outer silhouette strays from the input's (see
    /// [`super::silhouette_change`]), px: at most the tolerance.
    pub silhouette_change: f64,
}

/// Two layers whose boundaries share welded positions (a seam of
/// [`crate::seams::measure::Seam`]'s kind, counted by the weld).
#[derive(Debug, Clone, PartialEq)]
pub struct WeldedPair {
    /// The two layers' part names, back layer first.
    pub layers: [String; 2],
    /// Positions they share.
    pub shared_positions: usize,
}

/// Welds the boundaries of different layers that meet within `tolerance` (px):
///
/// Only boundaries that meet are welded: running antiparallel within 60 degrees (interiors
/// on opposite sides); layers that overlap or cross keep their vertices.
///
/// 1. boundary vertices of different layers within `tolerance` are paired, nearest first
///    (one vertex per layer at a position), and moved to their mean position;
/// 2. a boundary vertex that lies within `tolerance` of another layer's boundary edge (not
///    near its ends) is moved onto the edge and a vertex is inserted into that edge at the
///    same point (T-junction resolved), so both boundaries are conforming.
///
/// Only layers a joint links are welded (a bone of one layer whose parent drives the other,
/// [`crate::seams::measure::joint_links`]; every pair when no bone names a part): two legs
/// that touch are contacts, free to part, not seams.
///
/// Each layer keeps its own vertices, texture coordinates (inserted vertices interpolate
/// them along their edge) and part labels; vertices are only appended, so indices stay
/// valid. `tolerance = 0` welds only boundaries that already touch exactly.
///
/// Errors: `tolerance` negative or not finite; more than half a layer's thickness, or a
/// weld that would move more than half a layer's vertices (it would weld the whole layer);
/// a move that would fold a triangle; a scene with fewer than two layers.
pub fn weld_seams(scene: &Scene, tolerance: f64) -> Result<(Scene, WeldReport)> {
    let tol = check_amount("weld tolerance", tolerance)?;
    let layers = Layers::of(scene)?;
    let mesh = &scene.mesh;
    layers.check_amount_against_thickness(mesh, "weld tolerance", tol)?;
    let original = mesh.vertices().to_vec();
    let n = original.len();
    let linked = layers.linked(scene);
    let weld = Weld::new(&layers, &linked, &original, tol);

    // 1. Vertex pairs, nearest first, into groups with one vertex per layer.
    let mut groups = Groups::of_pairs(&weld.pairs(), &layers.layer, n);
    let mut pts = original.clone();
    groups.move_to_mean(&original, &mut pts);
    // 2. T-junctions: a boundary vertex near the inside of another layer's boundary edge.
    let mut junctions = weld.junctions(&pts, &groups);
    // 3. Only welds that form a seam edge stay.
    keep_seam_welds(&layers, &mut groups, &mut junctions, &original, &mut pts);

    let mut verts = NewVertices {
        pts,
        parts: mesh.vertex_parts().to_vec(),
        uvs: scene.art.as_ref().map(|a| a.uvs.clone()),
    };
    let inserted = insert_junctions(&layers, mesh, &mut junctions, &groups, &mut verts);
    let (triangles, centres) = split_triangles(mesh, inserted, &mut verts);
    let NewVertices { pts, parts, uvs } = verts;
    check_folds(&triangles, &pts, &original, &layers, tol)?;
    let moved: Vec<usize> = (0..n).filter(|&v| pts[v] != original[v]).collect();
    check_layer_share(&layers, &moved, tol)?;
    let max_displacement = moved
        .iter()
        .map(|&v| (pts[v] - original[v]).norm())
        .fold(0.0, f64::max);
    let out = rebuild(scene, pts, triangles, parts, uvs)?;
    let out_layers = Layers::of(&out)?;
    let seams = count_seams(&out_layers, &out.mesh);
    let report = WeldReport {
        tolerance: tol,
        seams,
        vertices_moved: moved.len(),
        vertices_inserted: junctions.len() + centres,
        max_displacement,
        silhouette_change: silhouette_change(scene, &out)?,
    };
    Ok((out, report))
}

/// What the weld searches: the layers' boundary vertices near one another.
struct Weld<'a> {
    layers: &'a Layers,
    /// Whether a joint links two layers (only those are welded).
    linked: &'a [Vec<bool>],
    original: &'a [Point2<f64>],
    /// Vertices on a layer boundary.
    bverts: Vec<usize>,
    /// How far apart welded vertices may be: the tolerance, at least one position.
    reach: f64,
    /// Grid cell size: the reach, at least the mean boundary edge.
    cell: f64,
}

/// Two boundary vertices of different linked layers within reach.
struct Pair {
    distance: f64,
    v: usize,
    w: usize,
}

/// A boundary vertex to move onto another layer's boundary edge, with a vertex inserted
/// into the edge there.
#[derive(Clone, Copy)]
struct Junction {
    /// Index in [`Layers::boundary`].
    edge: usize,
    vertex: usize,
    /// Parameter along the edge, 0 at its start.
    t: f64,
}

impl<'a> Weld<'a> {
    fn new(
        layers: &'a Layers,
        linked: &'a [Vec<bool>],
        original: &'a [Point2<f64>],
        tol: f64,
    ) -> Self {
        let n = original.len();
        let mut on_boundary = vec![false; n];
        let mut edge_length = 0.0;
        for &[a, b] in &layers.boundary {
            on_boundary[a] = true;
            on_boundary[b] = true;
            edge_length += (original[b] - original[a]).norm();
        }
        let mean_edge = edge_length / layers.boundary.len().max(1) as f64;
        let reach = tol.max(layers.eps);
        Weld {
            layers,
            linked,
            original,
            bverts: (0..n).filter(|&v| on_boundary[v]).collect(),
            reach,
            cell: reach.max(mean_edge),
        }
    }

    /// Pairs of boundary vertices of linked layers within reach whose boundaries meet
    /// (antiparallel), nearest first.
    fn pairs(&self) -> Vec<Pair> {
        let (layer, original) = (&self.layers.layer, self.original);
        let grid = PointGrid::new(original, &self.bverts, self.cell);
        let mut pairs = Vec::new();
        for &v in &self.bverts {
            for w in grid.near(original[v], self.reach) {
                if w > v
                    && layer[w] != layer[v]
                    && self.linked[layer[v]][layer[w]]
                    && self.layers.facing(v, &self.layers.dirs[w])
                {
                    let distance = (original[w] - original[v]).norm();
                    pairs.push(Pair { distance, v, w });
                }
            }
        }
        pairs.sort_by(|a, b| {
            a.distance
                .total_cmp(&b.distance)
                .then((a.v, a.w).cmp(&(b.v, b.w)))
        });
        pairs
    }

    /// Boundary vertices (at `pts`, after the pairing) near the inside of another linked
    /// layer's boundary edge they face and not grouped with that layer yet: the nearest edge
    /// per vertex and layer, one move per vertex (the first edge in edge order wins).
    fn junctions(&self, pts: &[Point2<f64>], groups: &Groups) -> Vec<Junction> {
        let (layers, layer, reach) = (self.layers, &self.layers.layer, self.reach);
        // (vertex, layer) -> (distance, the junction).
        let mut best: HashMap<(usize, usize), (f64, Junction)> = HashMap::new();
        let moved_grid = PointGrid::new(pts, &self.bverts, self.cell);
        for (e, &[a, b]) in layers.boundary.iter().enumerate() {
            let seg = Segment::new(pts[a], pts[b]);
            let l = layer[a];
            for v in moved_grid.in_box(pts[a], pts[b], reach) {
                if layer[v] == l || !self.linked[layer[v]][l] || groups.has_layer(v, l, layer) {
                    continue;
                }
                let p = pts[v];
                let along = [(pts[b] - pts[a]).normalize()];
                if !layers.facing(v, &along) {
                    continue;
                }
                let t = seg.closest_parameter(&p);
                let q = seg.closest_point(&p);
                let d = (q - p).norm();
                // Near an end of the edge, the vertex pairing above decides.
                if d > reach || (q - pts[a]).norm() <= reach || (q - pts[b]).norm() <= reach {
                    continue;
                }
                let junction = Junction {
                    edge: e,
                    vertex: v,
                    t,
                };
                let slot = best.entry((v, l)).or_insert((f64::INFINITY, junction));
                if d < slot.0 {
                    *slot = (d, junction);
                }
            }
        }
        let mut junctions: Vec<Junction> = best.into_values().map(|(_, j)| j).collect();
        junctions.sort_by_key(|j| (j.edge, j.vertex));
        let mut junction_moved = vec![false; pts.len()];
        junctions.retain(|j| !std::mem::replace(&mut junction_moved[j.vertex], true));
        junctions
    }
}

/// Welded vertex groups, one vertex per layer in each.
struct Groups {
    /// Group of every vertex.
    of: Vec<Option<usize>>,
    /// Members of every group (emptied when merged into another or dropped).
    members: Vec<Vec<usize>>,
}

impl Groups {
    /// Groups from `pairs` in order: a pair joins two vertices, or adds a vertex to a
    /// group, or merges two groups, where that keeps one vertex per layer.
    fn of_pairs(pairs: &[Pair], layer: &[usize], n: usize) -> Self {
        let mut of: Vec<Option<usize>> = vec![None; n];
        let mut members: Vec<Vec<usize>> = Vec::new();
        let has_layer = |g: &Vec<usize>, l: usize| g.iter().any(|&u| layer[u] == l);
        for &Pair { v, w, .. } in pairs {
            match (of[v], of[w]) {
                (None, None) => {
                    of[v] = Some(members.len());
                    of[w] = Some(members.len());
                    members.push(vec![v, w]);
                }
                (Some(g), None) | (None, Some(g)) => {
                    let u = if of[v].is_none() { v } else { w };
                    if !has_layer(&members[g], layer[u]) {
                        members[g].push(u);
                        of[u] = Some(g);
                    }
                }
                (Some(g), Some(h))
                    if g != h
                        && members[h]
                            .iter()
                            .all(|&u| !has_layer(&members[g], layer[u])) =>
                {
                    let moved = std::mem::take(&mut members[h]);
                    for &u in &moved {
                        of[u] = Some(g);
                    }
                    members[g].extend(moved);
                }
                _ => {}
            }
        }
        Groups { of, members }
    }

    /// Whether vertex `v`'s group holds a vertex of layer `l`.
    fn has_layer(&self, v: usize, l: usize, layer: &[usize]) -> bool {
        self.of[v].is_some_and(|g| self.members[g].iter().any(|&u| layer[u] == l))
    }

    /// Moves each group's vertices to their mean position (unless all already coincide).
    fn move_to_mean(&self, original: &[Point2<f64>], pts: &mut [Point2<f64>]) {
        for g in self.members.iter().filter(|g| !g.is_empty()) {
            let first = original[g[0]];
            if g.iter().all(|&u| original[u] == first) {
                continue;
            }
            let mean = g
                .iter()
                .fold(nalgebra::Vector2::zeros(), |s, &u| s + original[u].coords)
                / g.len() as f64;
            for &u in g {
                pts[u] = Point2::from(mean);
            }
        }
    }
}

/// Drops the welds that form no seam edge: a welded vertex needs a boundary neighbour (same
/// layer) welded to the same other layer. A lone contact point is no seam, and welding it
/// would only pull one vertex toward another layer's bones. Dropped groups' vertices go back
/// to `original`.
fn keep_seam_welds(
    layers: &Layers,
    groups: &mut Groups,
    junctions: &mut Vec<Junction>,
    original: &[Point2<f64>],
    pts: &mut [Point2<f64>],
) {
    let (n, layer) = (original.len(), &layers.layer);
    let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &[a, b] in &layers.boundary {
        neighbours[a].push(b);
        neighbours[b].push(a);
    }
    let edge_layer = |e: usize| layer[layers.boundary[e][0]];
    let mut group_alive: Vec<bool> = groups.members.iter().map(|g| !g.is_empty()).collect();
    let mut junction_alive = vec![true; junctions.len()];
    loop {
        let mut welded_to: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (_, m) in groups
            .members
            .iter()
            .enumerate()
            .filter(|(g, _)| group_alive[*g])
        {
            for &v in m {
                welded_to[v].extend(m.iter().map(|&u| layer[u]).filter(|&l| l != layer[v]));
            }
        }
        for (j, junction) in junctions.iter().enumerate() {
            if junction_alive[j] {
                welded_to[junction.vertex].push(edge_layer(junction.edge));
            }
        }
        let supported =
            |v: usize, l: usize| neighbours[v].iter().any(|&u| welded_to[u].contains(&l));
        let mut changed = false;
        for (g, m) in groups.members.iter().enumerate() {
            let keep = m
                .iter()
                .any(|&v| welded_to[v].iter().any(|&l| supported(v, l)));
            if group_alive[g] && !keep {
                group_alive[g] = false;
                changed = true;
            }
        }
        for (j, junction) in junctions.iter().enumerate() {
            if junction_alive[j] && !supported(junction.vertex, edge_layer(junction.edge)) {
                junction_alive[j] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (g, m) in groups.members.iter_mut().enumerate() {
        if !group_alive[g] {
            for &u in m.iter() {
                pts[u] = original[u];
                groups.of[u] = None;
            }
            m.clear();
        }
    }
    let mut alive = junction_alive.into_iter();
    junctions.retain(|_| alive.next().unwrap_or(false));
}

/// The vertex arrays of the welded scene, growing as vertices are inserted.
struct NewVertices {
    pts: Vec<Point2<f64>>,
    parts: Vec<usize>,
    uvs: Option<Vec<Point2<f64>>>,
}

impl NewVertices {
    /// Appends a vertex at `p` in part `part` with texture coordinate `uv(uvs)`; its id.
    fn push(
        &mut self,
        p: Point2<f64>,
        part: usize,
        uv: impl FnOnce(&[Point2<f64>]) -> Point2<f64>,
    ) -> usize {
        let id = self.pts.len();
        self.pts.push(p);
        self.parts.push(part);
        if let Some(uvs) = self.uvs.as_mut() {
            let w = uv(uvs);
            uvs.push(w);
        }
        id
    }
}

/// Vertices inserted into a triangle's edges: per edge k (corner k to k+1), (parameter, id).
type EdgeInsertions = [Vec<(f64, usize)>; 3];

/// Inserts each junction's vertex into its edge (projected onto the edge as it ends up:
/// its ends may have moved back with dropped welds; junctions at an end are dropped) and
/// moves the junction's vertex and its group onto it. Returns the insertions per triangle.
fn insert_junctions(
    layers: &Layers,
    mesh: &Mesh,
    junctions: &mut Vec<Junction>,
    groups: &Groups,
    verts: &mut NewVertices,
) -> HashMap<usize, EdgeInsertions> {
    let tri_of_edge: HashMap<(usize, usize), (usize, usize)> = mesh
        .triangles()
        .iter()
        .enumerate()
        .flat_map(|(t, tri)| (0..3).map(move |k| ((tri[k], tri[(k + 1) % 3]), (t, k))))
        .collect();
    let mut inserted: HashMap<usize, EdgeInsertions> = HashMap::new();
    junctions.retain_mut(|j| {
        let [a, b] = layers.boundary[j.edge];
        j.t = Segment::new(verts.pts[a], verts.pts[b]).closest_parameter(&verts.pts[j.vertex]);
        j.t > 1e-6 && j.t < 1.0 - 1e-6
    });
    for j in junctions.iter() {
        let [a, b] = layers.boundary[j.edge];
        let t = j.t;
        let q = verts.pts[a] + (verts.pts[b] - verts.pts[a]) * t;
        let id = verts.push(q, verts.parts[a], |uv| uv[a] + (uv[b] - uv[a]) * t);
        // The vertex and its group follow onto the edge.
        match groups.of[j.vertex] {
            Some(g) => groups.members[g].iter().for_each(|&u| verts.pts[u] = q),
            None => verts.pts[j.vertex] = q,
        }
        let (tri, k) = tri_of_edge[&(a, b)];
        inserted.entry(tri).or_default()[k].push((t, id));
    }
    inserted
}

/// The mesh's triangles with those that received vertices split: a fan from the opposite
/// corner when one edge was split, else from a new centre vertex. Returns the triangles and
/// the centre vertices added.
fn split_triangles(
    mesh: &Mesh,
    mut inserted: HashMap<usize, EdgeInsertions>,
    verts: &mut NewVertices,
) -> (Vec<[usize; 3]>, usize) {
    let mut triangles = Vec::with_capacity(mesh.triangle_count() + 2 * inserted.len());
    let mut centres = 0;
    for (t, tri) in mesh.triangles().iter().enumerate() {
        let Some(ins) = inserted.get_mut(&t) else {
            triangles.push(*tri);
            continue;
        };
        // The polygon around the triangle with the inserted vertices in order.
        let mut ring = Vec::new();
        for k in 0..3 {
            ring.push(tri[k]);
            ins[k].sort_by(|x, y| x.0.total_cmp(&y.0));
            ring.extend(ins[k].iter().map(|&(_, id)| id));
        }
        let split: Vec<usize> = (0..3).filter(|&k| !ins[k].is_empty()).collect();
        if split.len() == 1 {
            // Fan from the corner opposite the split edge.
            let k = split[0];
            let apex = tri[(k + 2) % 3];
            let mut chain = vec![tri[k]];
            chain.extend(ins[k].iter().map(|&(_, id)| id));
            chain.push(tri[(k + 1) % 3]);
            for w in chain.windows(2) {
                triangles.push([w[0], w[1], apex]);
            }
        } else {
            // Several edges split: fan from a new centre vertex (the polygon is star-shaped
            // from the centroid of the triangle).
            let centroid = |p: &[Point2<f64>]| {
                Point2::from(
                    tri.iter()
                        .fold(nalgebra::Vector2::zeros(), |s, &v| s + p[v].coords)
                        / 3.0,
                )
            };
            let c = centroid(&verts.pts);
            let id = verts.push(c, verts.parts[tri[0]], centroid);
            centres += 1;
            for i in 0..ring.len() {
                triangles.push([ring[i], ring[(i + 1) % ring.len()], id]);
            }
        }
    }
    (triangles, centres)
}

/// Refuses welds that fold a triangle, naming the input vertex of it that moved most.
fn check_folds(
    triangles: &[[usize; 3]],
    pts: &[Point2<f64>],
    original: &[Point2<f64>],
    layers: &Layers,
    tol: f64,
) -> Result<()> {
    let n = original.len();
    for (t, tri) in triangles.iter().enumerate() {
        let [a, b, c] = tri.map(|v| pts[v]);
        if signed_area2(&a, &b, &c) <= zero_area_tolerance(&a, &b, &c) {
            let v = tri
                .iter()
                .copied()
                .filter(|&v| v < n)
                .max_by(|&x, &y| {
                    (pts[x] - original[x])
                        .norm()
                        .total_cmp(&(pts[y] - original[y]).norm())
                })
                .unwrap_or(tri[0]);
            return Err(SeamError::RepairTooLarge {
                option: "weld tolerance".into(),
                layer: layers.names[layers.layer[v.min(n - 1)]].clone(),
                problem: RepairProblem::FoldsTriangle {
                    tolerance: tol,
                    vertex: v,
                    moved: (pts[v] - original[v]).norm(),
                    triangle: t,
                },
            }
            .into());
        }
    }
    Ok(())
}

/// Refuses welds that move more than half a layer's vertices (`moved`): that welds the whole
/// layer, not its edge.
fn check_layer_share(layers: &Layers, moved: &[usize], tol: f64) -> Result<()> {
    let mut total = vec![0usize; layers.count()];
    let mut moved_in = vec![0usize; layers.count()];
    layers.layer.iter().for_each(|&l| total[l] += 1);
    moved.iter().for_each(|&v| moved_in[layers.layer[v]] += 1);
    if let Some(l) = (0..layers.count()).find(|&l| 2 * moved_in[l] > total[l]) {
        return Err(SeamError::RepairTooLarge {
            option: "weld tolerance".into(),
            layer: layers.names[l].clone(),
            problem: RepairProblem::MovesMostOfLayer {
                tolerance: tol,
                moved: moved_in[l],
                total: total[l],
            },
        }
        .into());
    }
    Ok(())
}

/// The seams of a scene: per pair of layers, the positions where they have coincident
/// vertices.
pub(crate) fn count_seams(layers: &Layers, mesh: &Mesh) -> Vec<WeldedPair> {
    let mut count: HashMap<(usize, usize), usize> = HashMap::new();
    for g in layers.coincident_groups(mesh) {
        let mut ls: Vec<usize> = g.iter().map(|&v| layers.layer[v]).collect();
        ls.sort_unstable();
        ls.dedup();
        for i in 0..ls.len() {
            for j in i + 1..ls.len() {
                *count.entry((ls[i], ls[j])).or_default() += 1;
            }
        }
    }
    let mut seams: Vec<((usize, usize), usize)> = count.into_iter().collect();
    seams.sort_unstable();
    seams
        .into_iter()
        .map(|((a, b), shared_positions)| WeldedPair {
            layers: [layers.names[a].clone(), layers.names[b].clone()],
            shared_positions,
        })
        .collect()
}
