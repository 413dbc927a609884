//! Inward overlap (the seeds' second repair): a layer extends a pixel or two under the layer
//! in front of it along their welded seam, so a sub-pixel opening shows the layer behind
//! instead of the background.

use super::layers::{
    barycentric, check_amount, rebuild, silhouette_change, Layers, TriangleLocator,
};
use crate::error::Result;
use crate::geometry::signed_area2;
use crate::mesh::zero_area_tolerance;
use crate::scene::Scene;
use nalgebra::{Point2, Vector2};
use std::collections::{HashMap, HashSet};

/// What [`inward_overlap`] changed.
#[derive(Debug, Clone, PartialEq)]
pub struct OverlapReport {
    /// The overlap width asked for, px.
    pub px: f64,
    /// Seam chains that got a strip (a chain is a run of welded boundary edges between one
    /// back layer and one front layer).
    pub seams: usize,
    /// Vertices added (the strips' outer edges).
    pub vertices_added: usize,
    /// Triangles added.
    pub triangles_added: usize,
    /// Area the back layers gained under the front layers, px^2.
    pub area_added: f64,
    /// Existing vertices moved: always 0 (the strips are new vertices, so the seam stays
    /// welded and the silhouette's vertices stay where they were).
    pub vertices_moved: usize,
    /// How far the outer silhouette strays from the input's (see
    /// [`super::silhouette_change`]), px: at most `px`.
    pub silhouette_change: f64,
}

/// Extends every back layer `px` (scene units = pixels) under the front layer along each
/// welded seam: a strip of new vertices offset from the seam into the front layer, joined to
/// the seam vertices by new triangles of the back layer.
///
/// - Existing vertices never move, so the seam stays welded and the outer silhouette's
///   vertices stay put; a strip's ends slide along the front layer's outline from the seam's
///   end points, so the union's outline is unchanged (an offset that would leave the front
///   layer is halved, up to twice, then dropped).
/// - New vertices keep the back layer's part; their texture coordinates extrapolate the back
///   layer's mapping (the affine map of the triangle at the seam edge), so the strip shows
///   the image just beyond the layer's drawn edge.
/// - Weld first ([`super::weld_seams`]): a seam here is a boundary edge of one layer whose
///   two ends coincide with the ends of a boundary edge of another layer. The back layer is
///   the one drawn first (without art: the part listed first).
///
/// Errors: `px` negative or not finite, more than half a layer's thickness; a scene with
/// fewer than two layers.
pub fn inward_overlap(scene: &Scene, px: f64) -> Result<(Scene, OverlapReport)> {
    let px = check_amount("overlap", px)?;
    let layers = Layers::of(scene)?;
    let mesh = &scene.mesh;
    layers.check_amount_against_thickness(mesh, "overlap", px)?;
    let pts = mesh.vertices();
    let layer = &layers.layer;
    let groups = layers.coincident_groups(pts);
    let mut group_of: Vec<Option<usize>> = vec![None; pts.len()];
    for (g, m) in groups.iter().enumerate() {
        m.iter().for_each(|&v| group_of[v] = Some(g));
    }
    let twin = |v: usize, l: usize| -> Option<usize> {
        group_of[v].and_then(|g| groups[g].iter().copied().find(|&w| layer[w] == l))
    };
    let boundary: HashSet<(usize, usize)> = layers.boundary.iter().map(|&[a, b]| (a, b)).collect();
    let mut out_of: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut in_of: HashMap<usize, Vec<usize>> = HashMap::new();
    for &[a, b] in &layers.boundary {
        out_of.entry(a).or_default().push(b);
        in_of.entry(b).or_default().push(a);
    }

    // Seam edges of each back layer, keyed by (front layer, start vertex).
    let mut seam_next: HashMap<(usize, usize), usize> = HashMap::new();
    let mut seam_edges: Vec<(usize, usize, usize)> = Vec::new(); // (front, a, b)
    for &[a, b] in &layers.boundary {
        for front in layer[a] + 1..layers.count() {
            if let (Some(ta), Some(tb)) = (twin(a, front), twin(b, front)) {
                if boundary.contains(&(tb, ta)) {
                    seam_next.insert((front, a), b);
                    seam_edges.push((front, a, b));
                }
            }
        }
    }
    let has_prev: HashSet<(usize, usize)> = seam_edges.iter().map(|&(f, _, b)| (f, b)).collect();
    let mut used: HashSet<(usize, usize)> = HashSet::new();
    let mut chains: Vec<(usize, Vec<usize>, bool)> = Vec::new(); // (front, vertices, closed)
    let starts = seam_edges
        .iter()
        .filter(|&&(f, a, _)| !has_prev.contains(&(f, a)))
        .chain(seam_edges.iter());
    for &(front, a, _) in starts {
        if used.contains(&(front, a)) {
            continue;
        }
        let mut chain = vec![a];
        let mut v = a;
        let mut closed = false;
        while let Some(&w) = seam_next.get(&(front, v)) {
            if !used.insert((front, v)) {
                break;
            }
            if w == a {
                closed = true;
                break;
            }
            chain.push(w);
            v = w;
        }
        chains.push((front, chain, closed));
    }

    let locator = TriangleLocator::new(pts, mesh.triangles());
    let inside_front = |q: Point2<f64>, front: usize| {
        locator
            .containing(q, layers.eps)
            .iter()
            .any(|&(t, _)| layer[mesh.triangles()[t][0]] == front)
    };
    let tri_of_edge: HashMap<(usize, usize), usize> = mesh
        .triangles()
        .iter()
        .enumerate()
        .flat_map(|(t, tri)| (0..3).map(move |k| ((tri[k], tri[(k + 1) % 3]), t)))
        .collect();
    let right = |a: usize, b: usize| {
        let d = (pts[b] - pts[a]).normalize();
        Vector2::new(d.y, -d.x)
    };

    let mut vertices = pts.to_vec();
    let mut parts = mesh.vertex_parts().to_vec();
    let mut uvs = scene.art.as_ref().map(|a| a.uvs.clone());
    let mut triangles = mesh.triangles().to_vec();
    let mut area_added = 0.0;
    let mut strips = 0;
    for (front, chain, closed) in &chains {
        let k = chain.len();
        let edge_count = if *closed { k } else { k - 1 };
        if edge_count == 0 {
            continue;
        }
        let edge = |i: usize| (chain[i % k], chain[(i + 1) % k]);
        let mut offset: Vec<Option<usize>> = vec![None; k];
        for i in 0..k {
            let v = chain[i];
            let (prev, next) = match (*closed, i) {
                (true, _) => (Some((i + k - 1) % k), Some(i)),
                (false, 0) => (None, Some(0)),
                (false, i) if i == k - 1 => (Some(i - 1), None),
                (false, i) => (Some(i - 1), Some(i)),
            };
            let (dir, len) = match (prev, next) {
                (Some(p), Some(q)) => {
                    let (r0, r1) = (right(edge(p).0, edge(p).1), right(edge(q).0, edge(q).1));
                    let s = r0 + r1;
                    if s.norm() < 1e-12 {
                        continue;
                    }
                    let nrm = s.normalize();
                    (nrm, px / nrm.dot(&r1).max(0.5))
                }
                // A chain end: slide along the front layer's outline where it leaves the seam.
                (None, Some(q)) | (Some(q), None) => {
                    let Some(tv) = twin(v, *front) else { continue };
                    let along = if prev.is_none() {
                        out_of
                            .get(&tv)
                            .into_iter()
                            .flatten()
                            .copied()
                            .find(|&x| Some(x) != twin(chain[1], *front))
                    } else {
                        in_of
                            .get(&tv)
                            .into_iter()
                            .flatten()
                            .copied()
                            .find(|&y| Some(y) != twin(chain[k - 2], *front))
                    };
                    let Some(x) = along else { continue };
                    let d = pts[x] - pts[tv];
                    let r = right(edge(q).0, edge(q).1);
                    if d.norm() == 0.0 || d.normalize().dot(&r) < -1e-9 {
                        continue;
                    }
                    (d.normalize(), px.min(0.5 * d.norm()))
                }
                (None, None) => continue,
            };
            if len <= 0.0 {
                continue;
            }
            let mut q = None;
            for halving in 0..3 {
                let c = pts[v] + dir * (len / f64::powi(2.0, halving));
                if inside_front(c, *front) {
                    q = Some(c);
                    break;
                }
            }
            let Some(q) = q else { continue };
            let id = vertices.len();
            vertices.push(q);
            parts.push(parts[v]);
            if let Some(uv) = uvs.as_mut() {
                // Extrapolate the back layer's texture mapping from the seam triangle.
                let e = edge(next.or(prev).unwrap_or(0));
                let t = tri_of_edge[&e];
                let corners = mesh.triangles()[t];
                let l = barycentric(&corners.map(|c| pts[c]), q);
                let w = corners
                    .iter()
                    .zip(l)
                    .fold(Vector2::zeros(), |s, (&c, l)| s + uv[c].coords * l);
                uv.push(Point2::from(w));
            }
            offset[i] = Some(id);
        }
        let mut added = false;
        for i in 0..edge_count {
            let (a, b) = (i % k, (i + 1) % k);
            let (va, vb) = (chain[a], chain[b]);
            let mut tris = Vec::new();
            match (offset[a], offset[b]) {
                (Some(oa), Some(ob)) => {
                    tris.push([va, oa, ob]);
                    tris.push([va, ob, vb]);
                }
                (None, Some(ob)) => tris.push([va, ob, vb]),
                (Some(oa), None) => tris.push([va, oa, vb]),
                (None, None) => {}
            }
            for t in tris {
                let [p, q, r] = t.map(|v| vertices[v]);
                let a2 = signed_area2(&p, &q, &r);
                if a2 > zero_area_tolerance(&p, &q, &r) {
                    triangles.push(t);
                    area_added += 0.5 * a2;
                    added = true;
                }
            }
        }
        strips += usize::from(added);
    }
    // Offsets whose triangles were all dropped would be unused vertices: drop them.
    let n0 = pts.len();
    let mut used_vertex = vec![false; vertices.len()];
    triangles
        .iter()
        .flatten()
        .for_each(|&v| used_vertex[v] = true);
    let mut remap: Vec<usize> = (0..vertices.len()).collect();
    let mut next = n0;
    for v in n0..vertices.len() {
        if used_vertex[v] {
            remap[v] = next;
            vertices[next] = vertices[v];
            parts[next] = parts[v];
            if let Some(uv) = uvs.as_mut() {
                uv[next] = uv[v];
            }
            next += 1;
        }
    }
    vertices.truncate(next);
    parts.truncate(next);
    if let Some(uv) = uvs.as_mut() {
        uv.truncate(next);
    }
    for t in triangles.iter_mut() {
        *t = t.map(|v| remap[v]);
    }
    let added_vertices = next - n0;
    let added_triangles = triangles.len() - mesh.triangle_count();
    let out = rebuild(scene, vertices, triangles, parts, uvs)?;
    let report = OverlapReport {
        px,
        seams: strips,
        vertices_added: added_vertices,
        triangles_added: added_triangles,
        area_added,
        vertices_moved: 0,
        silhouette_change: silhouette_change(scene, &out)?,
    };
    Ok((out, report))
}
