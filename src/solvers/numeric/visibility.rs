//! 2D visibility inside the shape: does the straight segment from a mesh vertex to a point
//! (its closest point on a bone) stay inside the vertex's own connected component, i.e. never
//! cross that component's boundary?
//!
//! The boundary edges of each component are held in a bounding-volume hierarchy (median
//! split, four edges per leaf), so a query only looks at the few edges near the segment.
//! Only the vertex's **own** component blocks: in a layered character (separate overlapping
//! components) the arm layer's outline does not hide the spine from the torso layer.
//!
//! The shape is treated as a closed set: running along the boundary or touching it is
//! allowed, leaving it is not. Cases where the segment meets the boundary exactly:
//! - a proper crossing of a boundary edge (endpoints strictly on both sides): blocked;
//! - passing through a boundary vertex: blocked if the segment, on either side of that
//!   vertex, points out of the interior angle there;
//! - starting at a boundary vertex (a vertex on the outline): blocked if it starts outwards;
//! - ending on the boundary (a bone touching the outline): blocked if it arrives from outside.
//!
//! Every decision is made with orientation signs that flip exactly under a mirror (x -> -x),
//! so visibility is exactly mirror-symmetric on a mirror-symmetric mesh.

use crate::mesh::Mesh;
use nalgebra::{Point2, Vector2};

/// Edges per BVH leaf.
const LEAF_SIZE: usize = 4;

use crate::geometry::signed_area2 as orient;

#[inline]
fn cross(u: &Vector2<f64>, v: &Vector2<f64>) -> f64 {
    u.perp(v)
}

#[derive(Debug, Clone, Copy)]
struct Node {
    lo: Point2<f64>,
    hi: Point2<f64>,
    /// Leaf: first edge; inner: index of the left child (the right child follows the left
    /// subtree, at `right`).
    first: u32,
    /// Leaf: number of edges (> 0); inner: 0.
    count: u32,
    /// Inner: index of the right child.
    right: u32,
}

/// The interior angle at a boundary vertex: from `out` counter-clockwise to `back`
/// (`out` = direction of the outgoing boundary edge, `back` = direction back along the
/// incoming one). The interior is on the left of the directed boundary.
#[derive(Debug, Clone, Copy)]
struct Sector {
    out: Vector2<f64>,
    back: Vector2<f64>,
}

impl Sector {
    /// Whether direction `d` lies in the closed interior angle.
    #[inline]
    fn contains(&self, d: &Vector2<f64>) -> bool {
        if cross(&self.out, &self.back) >= 0.0 {
            // Convex (or straight) corner: inside both edges' left half-planes.
            cross(&self.out, d) >= 0.0 && cross(d, &self.back) >= 0.0
        } else {
            // Reflex corner: everything except the open exterior wedge from back to out.
            !(cross(&self.back, d) > 0.0 && cross(d, &self.out) > 0.0)
        }
    }
}

/// Visibility queries over one mesh's boundary.
#[derive(Debug, Clone)]
pub struct Visibility {
    nodes: Vec<Node>,
    /// Boundary edges in leaf order, as (start, end) vertices with the interior on the left.
    edges: Vec<[u32; 2]>,
    /// Root node of each component (`u32::MAX` for none; never happens for a valid mesh).
    roots: Vec<u32>,
    /// Per vertex: first index into `sectors` (and `sector_start[v + 1]` ends it).
    sector_start: Vec<u32>,
    sectors: Vec<Sector>,
    points: Vec<Point2<f64>>,
    component_of: Vec<u32>,
}

impl Visibility {
    /// Builds the per-component BVHs and the interior angle of every boundary vertex.
    pub fn new(mesh: &Mesh) -> Self {
        let topo = mesh.topology();
        let pts = mesh.vertices();
        let n = mesh.vertex_count();
        let component_of: Vec<u32> = topo.component_of().iter().map(|&c| c as u32).collect();
        let boundary = topo.boundary_edges();
        let (sector_start, sectors) = interior_sectors(pts, boundary, n);
        let (nodes, edges, roots) =
            component_bvhs(pts, boundary, &component_of, topo.component_count());
        Visibility {
            nodes,
            edges,
            roots,
            sector_start,
            sectors,
            points: pts.to_vec(),
            component_of,
        }
    }

    fn sectors_of(&self, v: usize) -> &[Sector] {
        &self.sectors[self.sector_start[v] as usize..self.sector_start[v + 1] as usize]
    }

    /// Whether `d` points into the shape at boundary vertex `v` (always true off the boundary).
    fn points_inside(&self, v: usize, d: &Vector2<f64>) -> bool {
        let s = self.sectors_of(v);
        s.is_empty() || s.iter().any(|s| s.contains(d))
    }

    /// Whether the segment from mesh vertex `v` to point `q` stays inside `v`'s component.
    pub fn visible(&self, v: usize, q: &Point2<f64>) -> bool {
        let p = self.points[v];
        let d = q - p;
        if d.x == 0.0 && d.y == 0.0 {
            return true;
        }
        if !self.points_inside(v, &d) {
            return false;
        }
        let root = self.roots[self.component_of[v] as usize];
        if root == u32::MAX {
            return true;
        }
        let len2 = d.dot(&d);
        let (lo, hi) = (p.inf(q), p.sup(q));
        let mut stack = [0u32; 64];
        let mut top = 1usize;
        stack[0] = root;
        while top > 0 {
            top -= 1;
            let node = &self.nodes[stack[top] as usize];
            // Conservative box test: bounding boxes overlap and the box straddles the line.
            if node.hi.x < lo.x || node.lo.x > hi.x || node.hi.y < lo.y || node.lo.y > hi.y {
                continue;
            }
            let c = nalgebra::center(&node.lo, &node.hi);
            let h = (node.hi - node.lo) * 0.5;
            if cross(&d, &(c - p)).abs() > d.y.abs() * h.x + d.x.abs() * h.y {
                continue;
            }
            if node.count == 0 {
                // Inner node; the stack cannot overflow for a tree built by median split
                // (depth <= log2(edges) < 64).
                stack[top] = node.first;
                stack[top + 1] = node.right;
                top += 2;
                continue;
            }
            let (s, e) = (node.first as usize, (node.first + node.count) as usize);
            for &[a, b] in &self.edges[s..e] {
                if self.edge_blocks(&p, q, &d, len2, a as usize, b as usize) {
                    return false;
                }
            }
        }
        true
    }

    /// Whether boundary edge a -> b blocks the segment p -> q (see the module docs).
    #[inline]
    fn edge_blocks(
        &self,
        p: &Point2<f64>,
        q: &Point2<f64>,
        d: &Vector2<f64>,
        len2: f64,
        ia: usize,
        ib: usize,
    ) -> bool {
        let (a, b) = (&self.points[ia], &self.points[ib]);
        let o1 = orient(p, q, a);
        let o2 = orient(p, q, b);
        if (o1 > 0.0 && o2 > 0.0) || (o1 < 0.0 && o2 < 0.0) {
            return false;
        }
        if o1 == 0.0 {
            // The edge's start lies on the segment's line: a vertex hit if within the segment.
            // (Each boundary vertex starts exactly one edge of an ordinary outline, so every
            // vertex is examined once; its end `b` is examined with the next edge.)
            if *a == *p {
                return false; // the start vertex: checked once by the caller
            }
            let t = (a - p).dot(d);
            if t > 0.0 && t <= len2 {
                let back = -d;
                let arrive_ok = self.points_inside(ia, &back);
                let leave_ok = *a == *q || self.points_inside(ia, d);
                if !(arrive_ok && leave_ok) {
                    return true;
                }
            }
            return false;
        }
        if o2 == 0.0 {
            return false; // handled as the start of the next edge
        }
        let o3 = orient(a, b, p);
        let o4 = orient(a, b, q);
        if (o3 > 0.0 && o4 > 0.0) || (o3 < 0.0 && o4 < 0.0) {
            return false;
        }
        if o3 != 0.0 && o4 != 0.0 {
            return true; // proper crossing
        }
        if o4 == 0.0 {
            // q lies inside the edge: fine when arriving from the interior (left) side.
            return o3 < 0.0;
        }
        // p lies inside an edge of its own component (only in a degenerate mesh): blocked
        // when leaving towards the exterior.
        o4 < 0.0
    }
}

/// The interior angles of the `n` vertices `pts`: per vertex, the first index of its
/// sectors (one more entry ends the last), and the sectors. Every outgoing boundary edge is
/// paired with the incoming one that comes first counter-clockwise from it (one pair at an
/// ordinary outline vertex; several where two loops touch at a vertex).
fn interior_sectors(
    pts: &[Point2<f64>],
    boundary: &[[usize; 2]],
    n: usize,
) -> (Vec<u32>, Vec<Sector>) {
    let (slot, outs, ins) = boundary_edges_at_vertices(boundary, n);
    let mut sector_start = Vec::with_capacity(n + 1);
    let mut sectors = Vec::new();
    for (v, &s) in slot.iter().enumerate() {
        sector_start.push(sectors.len() as u32);
        if s == u32::MAX {
            continue;
        }
        let (o, i) = (&outs[s as usize], &ins[s as usize]);
        let w = pts[v];
        let backs: Vec<Vector2<f64>> = i.iter().map(|&e| pts[boundary[e][0]] - w).collect();
        for &e in o {
            let out = pts[boundary[e][1]] - w;
            let a0 = out.y.atan2(out.x);
            let ccw = |b: &Vector2<f64>| (b.y.atan2(b.x) - a0).rem_euclid(std::f64::consts::TAU);
            let back = if backs.len() == 1 {
                backs[0]
            } else {
                *backs
                    .iter()
                    .min_by(|x, y| ccw(x).total_cmp(&ccw(y)))
                    .unwrap_or(&out)
            };
            sectors.push(Sector { out, back });
        }
    }
    sector_start.push(sectors.len() as u32);
    (sector_start, sectors)
}

/// The boundary edges at each of `n` vertices: per vertex, its slot (`u32::MAX` off the
/// boundary), and per slot the indices of the edges leaving and of those entering it.
fn boundary_edges_at_vertices(
    boundary: &[[usize; 2]],
    n: usize,
) -> (Vec<u32>, Vec<Vec<usize>>, Vec<Vec<usize>>) {
    let mut outs: Vec<Vec<usize>> = Vec::new();
    let mut ins: Vec<Vec<usize>> = Vec::new();
    let mut slot = vec![u32::MAX; n];
    for (i, e) in boundary.iter().enumerate() {
        for (k, list) in [(e[0], 0), (e[1], 1)] {
            if slot[k] == u32::MAX {
                slot[k] = outs.len() as u32;
                outs.push(Vec::new());
                ins.push(Vec::new());
            }
            let s = slot[k] as usize;
            if list == 0 {
                outs[s].push(i);
            } else {
                ins[s].push(i);
            }
        }
    }
    (slot, outs, ins)
}

/// One BVH per component over its boundary edges, all in the same node array: the nodes,
/// the edges in leaf order and each component's root (`u32::MAX` for a component without
/// boundary edges).
fn component_bvhs(
    pts: &[Point2<f64>],
    boundary: &[[usize; 2]],
    component_of: &[u32],
    n_comp: usize,
) -> (Vec<Node>, Vec<[u32; 2]>, Vec<u32>) {
    let mut per_comp: Vec<Vec<[u32; 2]>> = vec![Vec::new(); n_comp];
    for e in boundary {
        per_comp[component_of[e[0]] as usize].push([e[0] as u32, e[1] as u32]);
    }
    let mut nodes = Vec::new();
    let mut edges = Vec::with_capacity(boundary.len());
    let mut roots = Vec::with_capacity(n_comp);
    for mut list in per_comp {
        if list.is_empty() {
            roots.push(u32::MAX);
            continue;
        }
        roots.push(nodes.len() as u32);
        build(&mut nodes, &mut edges, &mut list, pts);
    }
    (nodes, edges, roots)
}

/// Builds a BVH over `list` (consumed in any order), appending nodes and leaf edges.
fn build(
    nodes: &mut Vec<Node>,
    edges: &mut Vec<[u32; 2]>,
    list: &mut [[u32; 2]],
    pts: &[Point2<f64>],
) {
    let mut lo = Point2::new(f64::INFINITY, f64::INFINITY);
    let mut hi = Point2::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
    for &[a, b] in list.iter() {
        lo = lo.inf(&pts[a as usize]).inf(&pts[b as usize]);
        hi = hi.sup(&pts[a as usize]).sup(&pts[b as usize]);
    }
    let me = nodes.len();
    nodes.push(Node {
        lo,
        hi,
        first: 0,
        count: 0,
        right: 0,
    });
    if list.len() <= LEAF_SIZE {
        nodes[me].first = edges.len() as u32;
        nodes[me].count = list.len() as u32;
        edges.extend_from_slice(list);
        return;
    }
    let axis = if hi.x - lo.x >= hi.y - lo.y { 0 } else { 1 };
    let mid = list.len() / 2;
    let c = |e: &[u32; 2]| pts[e[0] as usize][axis] + pts[e[1] as usize][axis];
    list.select_nth_unstable_by(mid, |e, f| c(e).total_cmp(&c(f)));
    let (left, right) = list.split_at_mut(mid);
    nodes[me].first = nodes.len() as u32;
    build(nodes, edges, left, pts);
    nodes[me].right = nodes.len() as u32;
    build(nodes, edges, right, pts);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A U: a 3 x 3 block of 10-unit cells with the bottom-middle cell (the notch, x in
    /// 10..20, y in 0..10) missing. `flip` mirrors it (x -> -x).
    fn u_shape(flip: bool) -> Mesh {
        let s = if flip { -1.0 } else { 1.0 };
        let mut v = Vec::new();
        for j in 0..4 {
            for i in 0..4 {
                v.push(Point2::new(s * 10.0 * i as f64, 10.0 * j as f64));
            }
        }
        let mut t = Vec::new();
        for j in 0..3 {
            for i in 0..3 {
                if (i, j) == (1, 0) {
                    continue;
                }
                let a = j * 4 + i;
                let (t1, t2) = ([a, a + 1, a + 5], [a, a + 5, a + 4]);
                if flip {
                    t.push([t1[0], t1[2], t1[1]]);
                    t.push([t2[0], t2[2], t2[1]]);
                } else {
                    t.push(t1);
                    t.push(t2);
                }
            }
        }
        Mesh::new(v, t).unwrap()
    }

    fn at(m: &Mesh, x: f64, y: f64) -> usize {
        m.vertices()
            .iter()
            .position(|p| p.x == x && p.y == y)
            .unwrap()
    }

    #[test]
    fn segments_that_cross_touch_or_graze_the_boundary() {
        let m = u_shape(false);
        let vis = Visibility::new(&m);
        let q = |x: f64, y: f64| Point2::new(x, y);
        // Across the notch: blocked by a proper crossing.
        assert!(!vis.visible(at(&m, 0.0, 0.0), &q(25.0, 5.0)));
        // Inside the left leg and the top: visible.
        assert!(vis.visible(at(&m, 0.0, 0.0), &q(5.0, 25.0)));
        // Starting on the outline and heading into the notch: blocked at the start.
        assert!(!vis.visible(at(&m, 10.0, 0.0), &q(20.0, 5.0)));
        // Along the notch's ceiling (a boundary edge): grazing the closed shape, visible.
        assert!(vis.visible(at(&m, 10.0, 10.0), &q(20.0, 10.0)));
        // Exactly through the reflex corner (10, 10) and on into the notch: blocked.
        assert!(!vis.visible(at(&m, 0.0, 20.0), &q(18.0, 2.0)));
        // Exactly through the reflex corner and on into the top row: visible.
        assert!(vis.visible(at(&m, 0.0, 0.0), &q(15.0, 15.0)));
        // Ending on the notch's wall, arriving from inside: visible.
        assert!(vis.visible(at(&m, 0.0, 0.0), &q(10.0, 5.0)));
        // Ending on the notch's wall from across the notch (through the other wall): blocked.
        assert!(!vis.visible(at(&m, 30.0, 0.0), &q(10.0, 5.0)));
        // Ending exactly at a boundary vertex, arriving from outside (through the notch).
        assert!(!vis.visible(at(&m, 20.0, 0.0), &q(10.0, 0.0)));
        // Zero-length segment.
        assert!(vis.visible(at(&m, 0.0, 0.0), &q(0.0, 0.0)));
    }

    #[test]
    fn visibility_is_exactly_mirror_symmetric() {
        let (m, mm) = (u_shape(false), u_shape(true));
        let (vis, vism) = (Visibility::new(&m), Visibility::new(&mm));
        let mut targets = Vec::new();
        for j in 0..=12 {
            for i in 0..=12 {
                targets.push(Point2::new(2.5 * i as f64, 2.5 * j as f64));
            }
        }
        let mut blocked = 0;
        for (v, p) in m.vertices().iter().enumerate() {
            let w = at(&mm, -p.x, p.y);
            for q in &targets {
                let a = vis.visible(v, q);
                assert_eq!(a, vism.visible(w, &Point2::new(-q.x, q.y)), "{p} -> {q}");
                blocked += usize::from(!a);
            }
        }
        assert!(blocked > 100, "{blocked}");
    }
}
