//! Shared boundary (the seeds' first repair): boundaries of different layers that meet are
//! welded so both sides have the same seam vertices at the same positions.
//!
//! A scene has one texture coordinate per vertex and layers may sample different images, so
//! two layers cannot literally share a vertex: each layer keeps its own vertices, and the
//! welded ones sit at bit-identical positions. Those coincident vertices are the seam that
//! [`super::seam_consistent_weights`] joins when it solves.

use super::layers::{check_amount, rebuild, silhouette_change, Layers, PointGrid};
use crate::error::{Error, Result};
use crate::geometry::{signed_area2, Segment};
use crate::mesh::zero_area_tolerance;
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
    pub seams: Vec<Seam>,
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

/// One seam: two layers whose boundaries share welded positions.
#[derive(Debug, Clone, PartialEq)]
pub struct Seam {
    /// The two layers' part names, back layer first.
    pub layers: [String; 2],
    /// Positions they share.
    pub vertices: usize,
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
    let n = mesh.vertex_count();
    let mut pts = mesh.vertices().to_vec();
    let original = pts.clone();
    let layer = &layers.layer;

    let mut on_boundary = vec![false; n];
    let mut edge_length = 0.0;
    for &[a, b] in &layers.boundary {
        on_boundary[a] = true;
        on_boundary[b] = true;
        edge_length += (pts[b] - pts[a]).norm();
    }
    let bverts: Vec<usize> = (0..n).filter(|&v| on_boundary[v]).collect();
    // Two layers meet (rather than overlap or cross) where their boundaries run antiparallel.
    let dirs = &layers.dirs;
    let facing = |v: usize, others: &[nalgebra::Vector2<f64>]| layers.facing(v, others);
    // Only layers a joint links are welded (two legs touching stay free to part).
    let linked = layers.linked(scene);
    let mean_edge = edge_length / layers.boundary.len().max(1) as f64;
    let reach = tol.max(layers.eps);
    let grid = PointGrid::new(&original, &bverts, reach.max(mean_edge));

    // 1. Vertex pairs, nearest first, into groups with one vertex per layer.
    let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
    for &v in &bverts {
        for w in grid.near(original[v], reach) {
            if w > v && layer[w] != layer[v] && linked[layer[v]][layer[w]] && facing(v, &dirs[w]) {
                pairs.push(((original[w] - original[v]).norm(), v, w));
            }
        }
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    let mut group_of: Vec<Option<usize>> = vec![None; n];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &(_, v, w) in &pairs {
        let has_layer = |g: &Vec<usize>, l: usize| g.iter().any(|&u| layer[u] == l);
        match (group_of[v], group_of[w]) {
            (None, None) => {
                group_of[v] = Some(groups.len());
                group_of[w] = Some(groups.len());
                groups.push(vec![v, w]);
            }
            (Some(g), None) | (None, Some(g)) => {
                let u = if group_of[v].is_none() { v } else { w };
                if !has_layer(&groups[g], layer[u]) {
                    groups[g].push(u);
                    group_of[u] = Some(g);
                }
            }
            (Some(g), Some(h))
                if g != h && groups[h].iter().all(|&u| !has_layer(&groups[g], layer[u])) =>
            {
                let moved = std::mem::take(&mut groups[h]);
                for &u in &moved {
                    group_of[u] = Some(g);
                }
                groups[g].extend(moved);
            }
            _ => {}
        }
    }
    for g in groups.iter().filter(|g| !g.is_empty()) {
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

    // 2. T-junctions: a boundary vertex near the inside of another layer's boundary edge.
    let mut best: HashMap<(usize, usize), (f64, usize, f64)> = HashMap::new(); // (v, layer) -> (d, edge, t)
    let moved_grid = PointGrid::new(&pts, &bverts, reach.max(mean_edge));
    for (e, &[a, b]) in layers.boundary.iter().enumerate() {
        let seg = Segment::new(pts[a], pts[b]);
        let l = layer[a];
        for v in moved_grid.in_box(pts[a], pts[b], reach) {
            if layer[v] == l
                || !linked[layer[v]][l]
                || group_of[v].is_some_and(|g| groups[g].iter().any(|&u| layer[u] == l))
            {
                continue;
            }
            let p = pts[v];
            let along = [(pts[b] - pts[a]).normalize()];
            if !facing(v, &along) {
                continue;
            }
            let t = seg.closest_parameter(&p);
            let q = seg.closest_point(&p);
            let d = (q - p).norm();
            // Near an end of the edge, the vertex pairing above decides.
            if d > reach || (q - pts[a]).norm() <= reach || (q - pts[b]).norm() <= reach {
                continue;
            }
            let slot = best.entry((v, l)).or_insert((f64::INFINITY, e, t));
            if d < slot.0 {
                *slot = (d, e, t);
            }
        }
    }
    let mut junctions: Vec<(usize, usize, usize, f64)> = best
        .into_iter()
        .map(|((v, _), (_, e, t))| (e, v, 0, t))
        .collect();
    junctions.sort_by_key(|x| (x.0, x.1));
    // One move per vertex: the first edge (in edge order) wins.
    let mut junction_moved = vec![false; n];
    junctions.retain(|&(_, v, _, _)| !std::mem::replace(&mut junction_moved[v], true));

    // 3. Only welds that form a seam edge stay: a welded vertex needs a boundary neighbour
    //    (same layer) welded to the same other layer. A lone contact point is no seam, and
    //    welding it would only pull one vertex toward another layer's bones.
    let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &[a, b] in &layers.boundary {
        neighbours[a].push(b);
        neighbours[b].push(a);
    }
    let edge_layer = |e: usize| layer[layers.boundary[e][0]];
    let mut group_alive: Vec<bool> = groups.iter().map(|g| !g.is_empty()).collect();
    let mut junction_alive = vec![true; junctions.len()];
    loop {
        let mut welded_to: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (_, m) in groups.iter().enumerate().filter(|(g, _)| group_alive[*g]) {
            for &v in m {
                welded_to[v].extend(m.iter().map(|&u| layer[u]).filter(|&l| l != layer[v]));
            }
        }
        for (j, &(e, v, _, _)) in junctions.iter().enumerate() {
            if junction_alive[j] {
                welded_to[v].push(edge_layer(e));
            }
        }
        let supported =
            |v: usize, l: usize| neighbours[v].iter().any(|&u| welded_to[u].contains(&l));
        let mut changed = false;
        for (g, m) in groups.iter().enumerate() {
            let keep = m
                .iter()
                .any(|&v| welded_to[v].iter().any(|&l| supported(v, l)));
            if group_alive[g] && !keep {
                group_alive[g] = false;
                changed = true;
            }
        }
        for (j, &(e, v, _, _)) in junctions.iter().enumerate() {
            if junction_alive[j] && !supported(v, edge_layer(e)) {
                junction_alive[j] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (g, m) in groups.iter_mut().enumerate() {
        if !group_alive[g] {
            for &u in m.iter() {
                pts[u] = original[u];
                group_of[u] = None;
            }
            m.clear();
        }
    }
    let mut alive = junction_alive.into_iter();
    junctions.retain(|_| alive.next().unwrap_or(false));

    let mut parts = mesh.vertex_parts().to_vec();
    let mut uvs = scene.art.as_ref().map(|a| a.uvs.clone());
    // Inserted vertices per triangle edge: (triangle, corner k of edge k -> k+1) -> [(t, id)].
    let tri_of_edge: HashMap<(usize, usize), (usize, usize)> = mesh
        .triangles()
        .iter()
        .enumerate()
        .flat_map(|(t, tri)| (0..3).map(move |k| ((tri[k], tri[(k + 1) % 3]), (t, k))))
        .collect();
    let mut inserted: HashMap<usize, [Vec<(f64, usize)>; 3]> = HashMap::new();
    // The edges' ends may have moved back (dropped welds): project onto the final edge.
    junctions.retain_mut(|j| {
        let [a, b] = layers.boundary[j.0];
        j.3 = Segment::new(pts[a], pts[b]).closest_parameter(&pts[j.1]);
        j.3 > 1e-6 && j.3 < 1.0 - 1e-6
    });
    for j in junctions.iter_mut() {
        let (e, v, _, t) = *j;
        let [a, b] = layers.boundary[e];
        let q = pts[a] + (pts[b] - pts[a]) * t;
        let id = pts.len();
        pts.push(q);
        parts.push(parts[a]);
        if let Some(uv) = uvs.as_mut() {
            let w = uv[a] + (uv[b] - uv[a]) * t;
            uv.push(w);
        }
        // The vertex and its group follow onto the edge.
        match group_of[v] {
            Some(g) => groups[g].iter().for_each(|&u| pts[u] = q),
            None => pts[v] = q,
        }
        j.2 = id;
        let (tri, k) = tri_of_edge[&(a, b)];
        inserted.entry(tri).or_default()[k].push((t, id));
    }

    // Split the triangles whose edges received vertices.
    let mut triangles = Vec::with_capacity(mesh.triangle_count() + 2 * junctions.len());
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
            let c = Point2::from(
                tri.iter()
                    .fold(nalgebra::Vector2::zeros(), |s, &v| s + pts[v].coords)
                    / 3.0,
            );
            let id = pts.len();
            pts.push(c);
            parts.push(parts[tri[0]]);
            if let Some(uv) = uvs.as_mut() {
                let w = tri
                    .iter()
                    .fold(nalgebra::Vector2::zeros(), |s, &v| s + uv[v].coords)
                    / 3.0;
                uv.push(Point2::from(w));
            }
            centres += 1;
            for i in 0..ring.len() {
                triangles.push([ring[i], ring[(i + 1) % ring.len()], id]);
            }
        }
    }

    // Refuse welds that fold a triangle or swallow a layer.
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
            return Err(Error::InvalidField {
                field: "weld tolerance".into(),
                message: format!(
                    "{tol} px is too large here: welding moves vertex {v} of layer {:?} by \
                     {:.4} px and folds triangle {t}; use a smaller tolerance",
                    layers.names[layer[v.min(n - 1)]],
                    (pts[v] - original[v]).norm()
                ),
            });
        }
    }
    let moved: Vec<usize> = (0..n).filter(|&v| pts[v] != original[v]).collect();
    let mut per_layer = vec![(0usize, 0usize); layers.count()];
    for v in 0..n {
        per_layer[layer[v]].1 += 1;
    }
    for &v in &moved {
        per_layer[layer[v]].0 += 1;
    }
    if let Some(l) = (0..layers.count()).find(|&l| 2 * per_layer[l].0 > per_layer[l].1) {
        return Err(Error::InvalidField {
            field: "weld tolerance".into(),
            message: format!(
                "{tol} px would move {} of the {} vertices of layer {:?} (more than half): \
                 that welds the whole layer, not its edge; use a smaller tolerance",
                per_layer[l].0, per_layer[l].1, layers.names[l]
            ),
        });
    }
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

/// The seams of a scene: per pair of layers, the positions where they have coincident
/// vertices.
pub(crate) fn count_seams(layers: &Layers, mesh: &crate::mesh::Mesh) -> Vec<Seam> {
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
        .map(|((a, b), vertices)| Seam {
            layers: [layers.names[a].clone(), layers.names[b].clone()],
            vertices,
        })
        .collect()
}
