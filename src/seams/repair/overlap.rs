//! Inward overlap (the second repair): a layer extends a pixel or two under the layer
//! in front of it along their welded seam, so a sub-pixel opening shows the layer behind
//! instead of the background.

use super::layers::{
    barycentric, check_amount, rebuild, silhouette_change, Layers, TriangleLocator,
};
use crate::error::Result;
use crate::geometry::signed_area2;
use crate::mesh::{zero_area_tolerance, Mesh};
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
    let seams = Seams::new(&layers, mesh);
    let mut strips = Strips {
        seams: &seams,
        mesh,
        px,
        locator: TriangleLocator::new(mesh.vertices(), mesh.triangles()),
        tri_of_edge: mesh
            .triangles()
            .iter()
            .enumerate()
            .flat_map(|(t, tri)| (0..3).map(move |k| ((tri[k], tri[(k + 1) % 3]), t)))
            .collect(),
        vertices: mesh.vertices().to_vec(),
        parts: mesh.vertex_parts().to_vec(),
        uvs: scene.art.as_ref().map(|a| a.uvs.clone()),
        triangles: mesh.triangles().to_vec(),
        area_added: 0.0,
    };
    let mut chains_with_strip = 0;
    for chain in &seams.chains() {
        chains_with_strip += usize::from(strips.add(chain));
    }
    let area_added = strips.area_added;
    let Strips {
        mut vertices,
        mut parts,
        mut uvs,
        mut triangles,
        ..
    } = strips;
    let n0 = mesh.vertex_count();
    drop_unused_offsets(n0, &mut vertices, &mut parts, &mut uvs, &mut triangles);
    let added_vertices = vertices.len() - n0;
    let added_triangles = triangles.len() - mesh.triangle_count();
    let out = rebuild(scene, vertices, triangles, parts, uvs)?;
    let report = OverlapReport {
        px,
        seams: chains_with_strip,
        vertices_added: added_vertices,
        triangles_added: added_triangles,
        area_added,
        vertices_moved: 0,
        silhouette_change: silhouette_change(scene, &out)?,
    };
    Ok((out, report))
}

/// The welded seams of a scene: boundary edges of a back layer whose ends coincide with
/// the ends of a front layer's boundary edge.
struct Seams<'a> {
    layers: &'a Layers,
    pts: &'a [Point2<f64>],
    /// Vertices at one position.
    groups: Vec<Vec<usize>>,
    group_of: Vec<Option<usize>>,
    /// Boundary edges leaving / entering each vertex (their other ends).
    out_of: HashMap<usize, Vec<usize>>,
    in_of: HashMap<usize, Vec<usize>>,
}

/// A run of seam edges of one back layer against one front layer.
struct Chain {
    front: usize,
    /// The back layer's vertices along the seam.
    vertices: Vec<usize>,
    /// Whether the last vertex joins the first.
    closed: bool,
}

impl<'a> Seams<'a> {
    fn new(layers: &'a Layers, mesh: &'a Mesh) -> Self {
        let pts = mesh.vertices();
        let groups = layers.coincident_groups(mesh);
        let mut group_of: Vec<Option<usize>> = vec![None; pts.len()];
        for (g, m) in groups.iter().enumerate() {
            m.iter().for_each(|&v| group_of[v] = Some(g));
        }
        let mut out_of: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut in_of: HashMap<usize, Vec<usize>> = HashMap::new();
        for &[a, b] in &layers.boundary {
            out_of.entry(a).or_default().push(b);
            in_of.entry(b).or_default().push(a);
        }
        Seams {
            layers,
            pts,
            groups,
            group_of,
            out_of,
            in_of,
        }
    }

    /// The vertex of layer `l` at `v`'s position.
    fn twin(&self, v: usize, l: usize) -> Option<usize> {
        self.group_of[v].and_then(|g| {
            self.groups[g]
                .iter()
                .copied()
                .find(|&w| self.layers.layer[w] == l)
        })
    }

    /// The seam edges joined into chains: from each edge without a predecessor, then the
    /// closed loops left.
    fn chains(&self) -> Vec<Chain> {
        let (layers, layer) = (self.layers, &self.layers.layer);
        let boundary: HashSet<(usize, usize)> =
            layers.boundary.iter().map(|&[a, b]| (a, b)).collect();
        // Seam edges of each back layer, keyed by (front layer, start vertex).
        let mut seam_next: HashMap<(usize, usize), usize> = HashMap::new();
        let mut seam_starts: Vec<(usize, usize)> = Vec::new(); // (front, a)
        let mut has_prev: HashSet<(usize, usize)> = HashSet::new();
        for &[a, b] in &layers.boundary {
            for front in layer[a] + 1..layers.count() {
                if let (Some(ta), Some(tb)) = (self.twin(a, front), self.twin(b, front)) {
                    if boundary.contains(&(tb, ta)) {
                        seam_next.insert((front, a), b);
                        seam_starts.push((front, a));
                        has_prev.insert((front, b));
                    }
                }
            }
        }
        let mut used: HashSet<(usize, usize)> = HashSet::new();
        let mut chains = Vec::new();
        let starts = seam_starts
            .iter()
            .filter(|s| !has_prev.contains(s))
            .chain(seam_starts.iter());
        for &(front, a) in starts {
            if used.contains(&(front, a)) {
                continue;
            }
            let mut vertices = vec![a];
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
                vertices.push(w);
                v = w;
            }
            chains.push(Chain {
                front,
                vertices,
                closed,
            });
        }
        chains
    }

    /// Unit normal to the right of edge `a → b` (into the front layer for a back layer's
    /// boundary edge).
    fn right(&self, a: usize, b: usize) -> Vector2<f64> {
        let d = (self.pts[b] - self.pts[a]).normalize();
        Vector2::new(d.y, -d.x)
    }
}

/// The strips added so far: the mesh's arrays with new vertices and triangles appended.
struct Strips<'a> {
    seams: &'a Seams<'a>,
    mesh: &'a Mesh,
    px: f64,
    locator: TriangleLocator<'a>,
    /// Triangle of each directed edge.
    tri_of_edge: HashMap<(usize, usize), usize>,
    vertices: Vec<Point2<f64>>,
    parts: Vec<usize>,
    uvs: Option<Vec<Point2<f64>>>,
    triangles: Vec<[usize; 3]>,
    area_added: f64,
}

impl Strips<'_> {
    /// The strip along `chain`: an offset vertex per chain vertex where one fits inside the
    /// front layer, joined to the seam by triangles of the back layer (those of zero area
    /// left out). Whether any triangle was added.
    fn add(&mut self, chain: &Chain) -> bool {
        let k = chain.vertices.len();
        let edge_count = if chain.closed { k } else { k - 1 };
        if edge_count == 0 {
            return false;
        }
        let offset: Vec<Option<usize>> = (0..k)
            .map(|i| {
                let (q, e) = self.offset_point(chain, i)?;
                Some(self.push_offset(chain.vertices[i], q, e))
            })
            .collect();
        let mut added = false;
        for i in 0..edge_count {
            let (a, b) = (i % k, (i + 1) % k);
            let (va, vb) = (chain.vertices[a], chain.vertices[b]);
            let tris: &[[usize; 3]] = match (offset[a], offset[b]) {
                (Some(oa), Some(ob)) => &[[va, oa, ob], [va, ob, vb]],
                (None, Some(ob)) => &[[va, ob, vb]],
                (Some(oa), None) => &[[va, oa, vb]],
                (None, None) => &[],
            };
            for &t in tris {
                let [p, q, r] = t.map(|v| self.vertices[v]);
                let a2 = signed_area2(&p, &q, &r);
                if a2 > zero_area_tolerance(&p, &q, &r) {
                    self.triangles.push(t);
                    self.area_added += 0.5 * a2;
                    added = true;
                }
            }
        }
        added
    }

    /// Where chain vertex `i`'s offset goes: along the mean normal of its two seam edges
    /// (at a chain end, along the front layer's outline), `px` (halved up to twice until it
    /// lies in the front layer); with the chain edge whose triangle maps its texture.
    fn offset_point(&self, chain: &Chain, i: usize) -> Option<(Point2<f64>, (usize, usize))> {
        let (c, k) = (&chain.vertices, chain.vertices.len());
        let edge = |i: usize| (c[i % k], c[(i + 1) % k]);
        let v = c[i];
        let (prev, next) = match (chain.closed, i) {
            (true, _) => (Some((i + k - 1) % k), Some(i)),
            (false, 0) => (None, Some(0)),
            (false, i) if i == k - 1 => (Some(i - 1), None),
            (false, i) => (Some(i - 1), Some(i)),
        };
        let (dir, len) = match (prev, next) {
            (Some(p), Some(q)) => {
                let (r0, r1) = (
                    self.seams.right(edge(p).0, edge(p).1),
                    self.seams.right(edge(q).0, edge(q).1),
                );
                let s = r0 + r1;
                if s.norm() < 1e-12 {
                    return None;
                }
                let nrm = s.normalize();
                (nrm, self.px / nrm.dot(&r1).max(0.5))
            }
            (None, Some(q)) | (Some(q), None) => self.end_direction(chain, v, prev.is_none(), q)?,
            (None, None) => return None,
        };
        if len <= 0.0 {
            return None;
        }
        let q = (0..3)
            .map(|halving| self.seams.pts[v] + dir * (len / f64::powi(2.0, halving)))
            .find(|&q| self.inside_front(q, chain.front))?;
        Some((q, edge(next.or(prev).unwrap_or(0))))
    }

    /// A chain end `v` (the first vertex when `first`, its edge `q`): slide along the front
    /// layer's outline where it leaves the seam, at most half that outline edge.
    fn end_direction(
        &self,
        chain: &Chain,
        v: usize,
        first: bool,
        q: usize,
    ) -> Option<(Vector2<f64>, f64)> {
        let (seams, c, k) = (self.seams, &chain.vertices, chain.vertices.len());
        let tv = seams.twin(v, chain.front)?;
        let (edges, skip) = if first {
            (&seams.out_of, seams.twin(c[1], chain.front))
        } else {
            (&seams.in_of, seams.twin(c[k - 2], chain.front))
        };
        let x = edges
            .get(&tv)
            .into_iter()
            .flatten()
            .copied()
            .find(|&x| Some(x) != skip)?;
        let d = seams.pts[x] - seams.pts[tv];
        let r = seams.right(c[q % k], c[(q + 1) % k]);
        if d.norm() == 0.0 || d.normalize().dot(&r) < -1e-9 {
            return None;
        }
        Some((d.normalize(), self.px.min(0.5 * d.norm())))
    }

    /// Whether `q` lies in a triangle of layer `front`.
    fn inside_front(&self, q: Point2<f64>, front: usize) -> bool {
        let layers = self.seams.layers;
        self.locator
            .containing(q, layers.eps)
            .iter()
            .any(|&(t, _)| layers.layer[self.mesh.triangles()[t][0]] == front)
    }

    /// Appends the offset vertex `q` of seam vertex `v` (its part; its texture coordinate
    /// extrapolating the back layer's mapping from the triangle at seam edge `e`); its id.
    fn push_offset(&mut self, v: usize, q: Point2<f64>, e: (usize, usize)) -> usize {
        let id = self.vertices.len();
        self.vertices.push(q);
        self.parts.push(self.parts[v]);
        if let Some(uv) = self.uvs.as_mut() {
            let corners = self.mesh.triangles()[self.tri_of_edge[&e]];
            let l = barycentric(&corners.map(|c| self.seams.pts[c]), q);
            let w = corners
                .iter()
                .zip(l)
                .fold(Vector2::zeros(), |s, (&c, l)| s + uv[c].coords * l);
            uv.push(Point2::from(w));
        }
        id
    }
}

/// Drops the offset vertices (from `n0` on) whose triangles were all dropped: they would be
/// unused vertices.
fn drop_unused_offsets(
    n0: usize,
    vertices: &mut Vec<Point2<f64>>,
    parts: &mut Vec<usize>,
    uvs: &mut Option<Vec<Point2<f64>>>,
    triangles: &mut [[usize; 3]],
) {
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
}
