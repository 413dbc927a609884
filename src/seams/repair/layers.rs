//! The layer view every repair shares: which layer each vertex is drawn in, each layer's
//! boundary, vertices of different layers at one position (the seams), point location in
//! triangles, the outer silhouette, and rebuilding a scene with the same art and labels.

use crate::error::{RepairProblem, Result, SeamError};
use crate::geometry::{signed_area2, Bounds, Segment};
use crate::mesh::Mesh;
use crate::scene::Scene;
use nalgebra::{Point2, Vector2};
use std::collections::HashMap;

/// Two vertices at most this far apart, relative to the scene's size, count as one position
/// (welding makes them bit-identical; this only absorbs a file round trip).
pub(crate) const COINCIDENT_REL: f64 = 1e-9;

/// Which layer each vertex is drawn in.
///
/// A layer is a part of the mesh: with art, its draw position (0 = back); without art, the
/// part index. Parts glued into one mesh (shared triangles) are layers too, but their shared
/// border is no mesh boundary, so no repair sees a seam there.
#[derive(Debug, Clone)]
pub(crate) struct Layers {
    /// Layer (draw position) of every vertex.
    pub layer: Vec<usize>,
    /// Part name of every layer, in draw order.
    pub names: Vec<String>,
    /// Same-layer mesh boundary edges, directed with their layer's interior on the left.
    pub boundary: Vec<[usize; 2]>,
    /// The distance under which two points are one position.
    pub eps: f64,
    /// Unit directions of the boundary edges at every vertex (empty off the boundary).
    pub dirs: Vec<Vec<Vector2<f64>>>,
}

/// Boundaries of two layers meet where they run antiparallel within 60 degrees (interiors on
/// opposite sides): the cosine of that angle. Layers that overlap along an edge (boundaries
/// parallel, interiors on the same side) or cross have no seam there.
pub(crate) const FACING_COS: f64 = 0.5;

impl Layers {
    /// The layer view of `scene`; fails when the scene has fewer than two layers (parts).
    pub fn of(scene: &Scene) -> Result<Layers> {
        let mesh = &scene.mesh;
        let parts = mesh.parts();
        let (of_part, names): (Vec<usize>, Vec<String>) = match &scene.art {
            Some(art) => (
                art.layer_of_part(parts),
                art.layers.iter().map(|l| l.part.clone()).collect(),
            ),
            None => ((0..parts.len()).collect(), parts.to_vec()),
        };
        if names.len() < 2 {
            return Err(SeamError::SingleLayer {
                scene: scene.name.clone(),
                part: names.first().cloned().unwrap_or_default(),
            }
            .into());
        }
        let layer: Vec<usize> = mesh.vertex_parts().iter().map(|&p| of_part[p]).collect();
        let boundary: Vec<[usize; 2]> = mesh
            .topology()
            .boundary_edges()
            .iter()
            .copied()
            .filter(|&[a, b]| layer[a] == layer[b])
            .collect();
        let b = Bounds::of(mesh.vertices());
        let eps = COINCIDENT_REL * (b.hi - b.lo).norm().max(1.0);
        let pts = mesh.vertices();
        let mut dirs: Vec<Vec<Vector2<f64>>> = vec![Vec::new(); pts.len()];
        for &[a, b] in &boundary {
            let d = pts[b] - pts[a];
            if d.norm() > 0.0 {
                dirs[a].push(d.normalize());
                dirs[b].push(d.normalize());
            }
        }
        Ok(Layers {
            layer,
            names,
            boundary,
            eps,
            dirs,
        })
    }

    /// Number of layers.
    pub fn count(&self) -> usize {
        self.names.len()
    }

    /// Which layer pairs a joint links ([`crate::seams::measure::joint_links`]): only those
    /// are welded and given shared weights; layers merely in contact (two legs) stay free.
    /// When no bone links two parts at all (bones without parts), every pair counts as
    /// linked: nothing tells the layers apart.
    pub fn linked(&self, scene: &Scene) -> Vec<Vec<bool>> {
        let count = self.count();
        let mesh = &scene.mesh;
        let mut layer_of_part = vec![usize::MAX; mesh.parts().len()];
        for (v, &p) in mesh.vertex_parts().iter().enumerate() {
            layer_of_part[p] = self.layer[v];
        }
        let links = crate::seams::measure::joint_links(scene);
        let mut linked = vec![vec![links.is_empty(); count]; count];
        for link in links {
            let [a, b] = link.parts.map(|p| layer_of_part[p]);
            if a < count && b < count {
                linked[a][b] = true;
                linked[b][a] = true;
            }
        }
        linked
    }

    /// The thickness of every layer: twice its area over its boundary length (a w x h
    /// rectangle with h >> w gives w, a disc of radius r gives r). Layers with no boundary
    /// get infinity.
    pub fn thickness(&self, mesh: &Mesh) -> Vec<f64> {
        let mut area = vec![0.0; self.count()];
        let mut perimeter = vec![0.0; self.count()];
        for (t, tri) in mesh.triangles().iter().enumerate() {
            area[self.layer[tri[0]]] += 0.5 * mesh.triangle_area2(t);
        }
        let pts = mesh.vertices();
        for &[a, b] in &self.boundary {
            perimeter[self.layer[a]] += (pts[b] - pts[a]).norm();
        }
        area.iter()
            .zip(&perimeter)
            .map(|(&a, &p)| if p > 0.0 { 2.0 * a / p } else { f64::INFINITY })
            .collect()
    }

    /// Fails when `amount` (called `what`) reaches across half of some layer's thickness:
    /// such a weld or overlap would swallow the layer rather than repair its edge.
    pub fn check_amount_against_thickness(
        &self,
        mesh: &Mesh,
        what: &str,
        amount: f64,
    ) -> Result<()> {
        for (l, t) in self.thickness(mesh).into_iter().enumerate() {
            if amount > 0.5 * t {
                return Err(SeamError::RepairTooLarge {
                    option: what.to_string(),
                    layer: self.names[l].clone(),
                    problem: RepairProblem::HalfTheThickness {
                        amount,
                        thickness: t,
                    },
                }
                .into());
            }
        }
        Ok(())
    }

    /// Whether vertex `v` has a boundary edge antiparallel (within 60 degrees) to one of
    /// the directions `others`: its layer meets theirs there.
    pub fn facing(&self, v: usize, others: &[Vector2<f64>]) -> bool {
        self.dirs[v]
            .iter()
            .any(|d| others.iter().any(|e| d.dot(e) < -FACING_COS))
    }

    /// Groups of two or more vertices of different layers at one position (within
    /// [`Layers::eps`]) where the layers meet across a seam edge: a boundary edge x -> y of
    /// one layer whose ends coincide with the ends of a triangle edge y' -> x' of the other
    /// (that triangle lies on the far side). Layers that merely overlap or cross at a shared
    /// position, or touch at a lone point, form no group. Sorted by first member.
    pub fn coincident_groups(&self, mesh: &Mesh) -> Vec<Vec<usize>> {
        let points = mesh.vertices();
        let n = points.len();
        let all: Vec<usize> = (0..n).collect();
        let grid = PointGrid::new(points, &all, self.eps.max(f64::MIN_POSITIVE));
        // Every vertex of another layer at the same position.
        let mut same_place: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (v, &p) in points.iter().enumerate() {
            for w in grid.near(p, self.eps) {
                if w != v && self.layer[w] != self.layer[v] {
                    same_place[v].push(w);
                }
            }
        }
        let directed: std::collections::HashSet<(usize, usize)> = mesh
            .triangles()
            .iter()
            .flat_map(|t| (0..3).map(move |k| (t[k], t[(k + 1) % 3])))
            .collect();
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut v: usize) -> usize {
            while parent[v] != v {
                parent[v] = parent[parent[v]];
                v = parent[v];
            }
            v
        }
        let join = |parent: &mut Vec<usize>, v: usize, w: usize| {
            let (a, b) = (root(parent, v), root(parent, w));
            if a != b {
                parent[a.max(b)] = a.min(b);
            }
        };
        for &[x, y] in &self.boundary {
            for &a in &same_place[x] {
                for &b in &same_place[y] {
                    if self.layer[a] == self.layer[b] && directed.contains(&(b, a)) {
                        join(&mut parent, x, a);
                        join(&mut parent, y, b);
                    }
                }
            }
        }
        let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
        for v in 0..n {
            let r = root(&mut parent, v);
            groups.entry(r).or_default().push(v);
        }
        let mut out: Vec<Vec<usize>> = groups.into_values().filter(|g| g.len() > 1).collect();
        out.sort_unstable_by_key(|g| g[0]);
        out
    }
}

/// Bucket grid over a set of points for "which points lie within r of p" queries.
pub(crate) struct PointGrid<'a> {
    points: &'a [Point2<f64>],
    cell: f64,
    cells: HashMap<(i64, i64), Vec<usize>>,
}

impl<'a> PointGrid<'a> {
    /// A grid of the points `ids` with square cells of side `cell` (> 0).
    pub fn new(points: &'a [Point2<f64>], ids: &[usize], cell: f64) -> Self {
        let mut cells: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
        for &i in ids {
            cells.entry(key(points[i], cell)).or_default().push(i);
        }
        PointGrid {
            points,
            cell,
            cells,
        }
    }

    /// The points within distance `r` of `p`.
    pub fn near(&self, p: Point2<f64>, r: f64) -> Vec<usize> {
        self.in_box(p, p, r)
            .into_iter()
            .filter(|&i| (self.points[i] - p).norm() <= r)
            .collect()
    }

    /// The points in the box spanned by `a` and `b`, grown by `r` (a superset: whole cells).
    pub fn in_box(&self, a: Point2<f64>, b: Point2<f64>, r: f64) -> Vec<usize> {
        let lo = key(Point2::new(a.x.min(b.x) - r, a.y.min(b.y) - r), self.cell);
        let hi = key(Point2::new(a.x.max(b.x) + r, a.y.max(b.y) + r), self.cell);
        let mut out = Vec::new();
        for x in lo.0..=hi.0 {
            for y in lo.1..=hi.1 {
                if let Some(c) = self.cells.get(&(x, y)) {
                    out.extend_from_slice(c);
                }
            }
        }
        out
    }
}

fn key(p: Point2<f64>, cell: f64) -> (i64, i64) {
    ((p.x / cell).floor() as i64, (p.y / cell).floor() as i64)
}

/// Finds the triangles that contain a point (within a tolerance), through a bucket grid.
pub(crate) struct TriangleLocator<'a> {
    points: &'a [Point2<f64>],
    triangles: &'a [[usize; 3]],
    cell: f64,
    cells: HashMap<(i64, i64), Vec<usize>>,
}

impl<'a> TriangleLocator<'a> {
    /// A locator over `triangles` of `points`.
    pub fn new(points: &'a [Point2<f64>], triangles: &'a [[usize; 3]]) -> Self {
        let b = Bounds::of(points);
        let area = (b.hi - b.lo).x.max(f64::MIN_POSITIVE) * (b.hi - b.lo).y.max(f64::MIN_POSITIVE);
        // About two triangles per cell.
        let cell = (2.0 * area / triangles.len().max(1) as f64)
            .sqrt()
            .max(f64::MIN_POSITIVE);
        let mut cells: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
        for (t, tri) in triangles.iter().enumerate() {
            let tb = Bounds::of(tri.iter().map(|&v| &points[v]));
            let (lo, hi) = (key(tb.lo, cell), key(tb.hi, cell));
            for x in lo.0..=hi.0 {
                for y in lo.1..=hi.1 {
                    cells.entry((x, y)).or_default().push(t);
                }
            }
        }
        TriangleLocator {
            points,
            triangles,
            cell,
            cells,
        }
    }

    /// The triangles containing `p` (on an edge within distance `eps` counts), each with the
    /// barycentric coordinates of `p` in it.
    pub fn containing(&self, p: Point2<f64>, eps: f64) -> Vec<(usize, [f64; 3])> {
        let lo = key(Point2::new(p.x - eps, p.y - eps), self.cell);
        let hi = key(Point2::new(p.x + eps, p.y + eps), self.cell);
        let mut out: Vec<(usize, [f64; 3])> = Vec::new();
        for x in lo.0..=hi.0 {
            for y in lo.1..=hi.1 {
                for &t in self.cells.get(&(x, y)).into_iter().flatten() {
                    if out.iter().any(|&(s, _)| s == t) {
                        continue;
                    }
                    let c = self.triangles[t].map(|v| self.points[v]);
                    if let Some(l) = inside(&c, p, eps) {
                        out.push((t, l));
                    }
                }
            }
        }
        out
    }
}

/// Barycentric coordinates of `p` in triangle `c` (any sign: extrapolates outside).
pub(crate) fn barycentric(c: &[Point2<f64>; 3], p: Point2<f64>) -> [f64; 3] {
    let a2 = signed_area2(&c[0], &c[1], &c[2]);
    let l0 = signed_area2(&p, &c[1], &c[2]) / a2;
    let l1 = signed_area2(&c[0], &p, &c[2]) / a2;
    [l0, l1, 1.0 - l0 - l1]
}

/// Barycentric coordinates of `p` if it lies in triangle `c` or within `eps` of its edges.
fn inside(c: &[Point2<f64>; 3], p: Point2<f64>, eps: f64) -> Option<[f64; 3]> {
    let l = barycentric(c, p);
    if l.iter().all(|&x| x >= 0.0) {
        return Some(l);
    }
    let near_edge = (0..3).any(|k| Segment::new(c[k], c[(k + 1) % 3]).distance(&p) <= eps);
    near_edge.then(|| {
        let l = l.map(|x| x.max(0.0));
        let s: f64 = l.iter().sum();
        l.map(|x| x / s)
    })
}

/// Pieces each boundary edge is cut into when the silhouette is classified.
const SILHOUETTE_PIECES: usize = 8;

/// The outer silhouette as segments: each same-layer boundary edge cut into
/// [`SILHOUETTE_PIECES`] pieces, keeping the pieces whose midpoint no other layer covers
/// (seams and edges tucked under another layer are not silhouette; an edge crossing into
/// another layer keeps its uncovered part, to an eighth of its length).
pub(crate) fn outer_silhouette(mesh: &Mesh, layers: &Layers) -> Vec<[Point2<f64>; 2]> {
    let pts = mesh.vertices();
    let locator = TriangleLocator::new(pts, mesh.triangles());
    let mut out = Vec::new();
    for &[a, b] in &layers.boundary {
        for k in 0..SILHOUETTE_PIECES {
            let at = |s: f64| pts[a] + (pts[b] - pts[a]) * (s / SILHOUETTE_PIECES as f64);
            let (p, q) = (at(k as f64), at(k as f64 + 1.0));
            let mid = Point2::from((p.coords + q.coords) * 0.5);
            let covered = locator
                .containing(mid, layers.eps)
                .iter()
                .any(|&(t, _)| layers.layer[mesh.triangles()[t][0]] != layers.layer[a]);
            if !covered {
                out.push([p, q]);
            }
        }
    }
    out
}

/// How far the outer silhouette of `after` strays from that of `before`: the largest
/// distance from a point of `after`'s silhouette (the ends and midpoints of its pieces, see
/// below) to `before`'s silhouette. One-sided: closing a gap removes silhouette edges, which
/// is no change of the outline. The silhouette is the layers' boundary edges cut in eighths,
/// keeping the pieces no other layer covers.
pub fn silhouette_change(before: &Scene, after: &Scene) -> Result<f64> {
    let (lb, la) = (Layers::of(before)?, Layers::of(after)?);
    let old = outer_silhouette(&before.mesh, &lb);
    let new = outer_silhouette(&after.mesh, &la);
    if old.is_empty() {
        return Ok(0.0);
    }
    let segments: Vec<Segment> = old.iter().map(|&[a, b]| Segment::new(a, b)).collect();
    let ends: Vec<Point2<f64>> = old.iter().flatten().copied().collect();
    let b = Bounds::of(&ends);
    let cell = ((b.hi - b.lo).norm() / (old.len() as f64).sqrt()).max(f64::MIN_POSITIVE);
    // Grid over segment midpoints; a query grows its radius until it finds a segment.
    let mids: Vec<Point2<f64>> = old
        .iter()
        .map(|&[a, b]| Point2::from((a.coords + b.coords) * 0.5))
        .collect();
    let ids: Vec<usize> = (0..mids.len()).collect();
    let grid = PointGrid::new(&mids, &ids, cell);
    let longest = old.iter().map(|&[a, b]| (b - a).norm()).fold(0.0, f64::max);
    let distance = |p: Point2<f64>| -> f64 {
        let mut r = cell;
        loop {
            let cand = grid.in_box(p, p, r + 0.5 * longest);
            let best = cand
                .iter()
                .map(|&s| segments[s].distance(&p))
                .fold(f64::INFINITY, f64::min);
            // Any segment closer than `best` has its midpoint within best + longest / 2.
            if best <= r || cand.len() == segments.len() {
                return best;
            }
            r = (2.0 * r).max(best);
        }
    };
    Ok(new
        .iter()
        .flat_map(|&[a, b]| [a, Point2::from((a.coords + b.coords) * 0.5)])
        .map(distance)
        .fold(0.0, f64::max))
}

/// A copy of `scene` with new arrays: positions, triangles, part labels and (with art) texture
/// coordinates. Vertices may only be appended, so probe vertex lists stay valid.
pub(crate) fn rebuild(
    scene: &Scene,
    vertices: Vec<Point2<f64>>,
    triangles: Vec<[usize; 3]>,
    vertex_parts: Vec<usize>,
    uvs: Option<Vec<Point2<f64>>>,
) -> Result<Scene> {
    let mesh = Mesh::with_parts(
        vertices,
        triangles,
        scene.mesh.parts().to_vec(),
        vertex_parts,
    )?;
    let mut out = Scene::new(
        scene.name.clone(),
        mesh,
        scene.skeleton.clone(),
        scene.probes.clone(),
    )?;
    if let Some(art) = &scene.art {
        let mut art = art.clone();
        if let Some(uvs) = uvs {
            art.uvs = uvs;
        }
        out = out.with_art(art)?;
    }
    Ok(out)
}

/// Checks a repair amount (tolerance, px, area): finite and >= 0.
pub(crate) fn check_amount(what: &str, value: f64) -> Result<f64> {
    if !(value.is_finite() && value >= 0.0) {
        return Err(SeamError::InvalidAmount {
            option: what.to_string(),
            value,
            expected: "a finite number >= 0",
        }
        .into());
    }
    Ok(value)
}
