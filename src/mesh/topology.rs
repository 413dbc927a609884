//! Mesh connectivity: unique edges, CSR vertex adjacency, boundary loops, components.

use crate::error::{Error, Result};
use nalgebra::Point2;

/// Connectivity of a validated mesh, built once by [`crate::Mesh::new`].
#[derive(Debug, Clone, Default)]
pub struct Topology {
    /// Unique undirected edges `[a, b]` with `a < b`, sorted.
    edges: Vec<[usize; 2]>,
    /// CSR adjacency: the neighbours of `v` are `neighbors[offsets[v]..offsets[v + 1]]`, sorted.
    offsets: Vec<usize>,
    neighbors: Vec<usize>,
    /// Boundary edges directed as in their triangle (the interior lies to their left).
    boundary_edges: Vec<[usize; 2]>,
    /// Closed boundary loops, each a vertex cycle with the interior on the left (outer loops
    /// counter-clockwise, holes clockwise).
    boundary_loops: Vec<Vec<usize>>,
    /// Connected component of every vertex.
    component_of: Vec<usize>,
    component_count: usize,
}

impl Topology {
    /// Builds the topology; fails with [`Error::NonManifoldEdge`] when an edge has more than
    /// two triangles, or [`Error::UnreferencedVertex`] when a vertex has none.
    pub(crate) fn build(vertices: &[Point2<f64>], triangles: &[[usize; 3]]) -> Result<Self> {
        let n = vertices.len();
        // Half-edges bucketed by their lower vertex (a counting sort), then each small bucket
        // sorted by the upper vertex: twins end up adjacent and edges come out sorted by
        // (lo, hi), in O(n) instead of one global sort of every half-edge.
        let mut bucket = vec![0usize; n + 1];
        for tri in triangles {
            for k in 0..3 {
                bucket[tri[k].min(tri[(k + 1) % 3]) + 1] += 1;
            }
        }
        for v in 0..n {
            bucket[v + 1] += bucket[v];
        }
        let mut fill = bucket[..n].to_vec();
        // (upper vertex, half-edge id = 3 * triangle + corner)
        let mut half = vec![(0u32, 0u32); triangles.len() * 3];
        for (t, tri) in triangles.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                let lo = a.min(b);
                half[fill[lo]] = (a.max(b) as u32, (t * 3 + k) as u32);
                fill[lo] += 1;
            }
        }
        drop(fill);
        let mut edges = Vec::with_capacity(half.len() / 2 + 16);
        let mut boundary_edges = Vec::new();
        let mut degree = vec![0usize; n];
        for a in 0..n {
            let group = &mut half[bucket[a]..bucket[a + 1]];
            group.sort_unstable();
            let mut i = 0;
            while i < group.len() {
                let b = group[i].0 as usize;
                let mut j = i + 1;
                while j < group.len() && group[j].0 as usize == b {
                    j += 1;
                }
                let count = j - i;
                if count > 1 {
                    repeated_triangle(triangles, &group[i..j])?;
                }
                if count > 2 {
                    return Err(Error::NonManifoldEdge {
                        a,
                        b,
                        count,
                        triangle: group[i].1 as usize / 3,
                    });
                }
                if count == 1 {
                    let h = group[i].1 as usize;
                    let tri = triangles[h / 3];
                    boundary_edges.push([tri[h % 3], tri[(h % 3 + 1) % 3]]);
                }
                edges.push([a, b]);
                degree[a] += 1;
                degree[b] += 1;
                i = j;
            }
        }
        drop(half);
        if let Some(v) = degree.iter().position(|&d| d == 0) {
            return Err(Error::UnreferencedVertex { vertex: v });
        }
        if let Some((vertex, fans)) = first_multi_fan_vertex(n, triangles) {
            return Err(Error::NonManifoldVertex { vertex, fans });
        }
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        for d in &degree {
            offsets.push(offsets.last().unwrap() + d);
        }
        let mut fill = offsets[..n].to_vec();
        let mut neighbors = vec![0usize; offsets[n]];
        for &[a, b] in &edges {
            neighbors[fill[a]] = b;
            fill[a] += 1;
            neighbors[fill[b]] = a;
            fill[b] += 1;
        }
        for v in 0..n {
            neighbors[offsets[v]..offsets[v + 1]].sort_unstable();
        }
        let boundary_loops = trace_loops(n, &boundary_edges);
        let (component_of, component_count) = components(n, &offsets, &neighbors);
        Ok(Topology {
            edges,
            offsets,
            neighbors,
            boundary_edges,
            boundary_loops,
            component_of,
            component_count,
        })
    }

    /// Unique undirected edges `[a, b]`, `a < b`, sorted.
    pub fn edges(&self) -> &[[usize; 2]] {
        &self.edges
    }
    /// Neighbours of vertex `v` (sorted).
    pub fn neighbors(&self, v: usize) -> &[usize] {
        &self.neighbors[self.offsets[v]..self.offsets[v + 1]]
    }
    /// CSR offsets (length = vertex count + 1).
    pub fn csr_offsets(&self) -> &[usize] {
        &self.offsets
    }
    /// CSR neighbour array.
    pub fn csr_neighbors(&self) -> &[usize] {
        &self.neighbors
    }
    /// Boundary edges, directed with the interior on their left.
    pub fn boundary_edges(&self) -> &[[usize; 2]] {
        &self.boundary_edges
    }
    /// Closed boundary loops (interior on the left).
    pub fn boundary_loops(&self) -> &[Vec<usize>] {
        &self.boundary_loops
    }
    /// Component index of every vertex.
    pub fn component_of(&self) -> &[usize] {
        &self.component_of
    }
    /// Number of connected components.
    pub fn component_count(&self) -> usize {
        self.component_count
    }

    pub(crate) fn sanity_check(
        &self,
        vertices: &[Point2<f64>],
        triangles: &[[usize; 3]],
    ) -> Result<()> {
        let rebuilt = Topology::build(vertices, triangles)?;
        let broken = |what: &str| Error::Meshing {
            message: format!("topology sanity check failed: {what}"),
        };
        if rebuilt.edges != self.edges || rebuilt.neighbors != self.neighbors {
            return Err(broken("edges or adjacency differ from a rebuild"));
        }
        // Euler characteristic per mesh: V - E + F = components - holes.
        let v = vertices.len() as i64;
        let e = self.edges.len() as i64;
        let f = triangles.len() as i64;
        let loops = self.boundary_loops.len() as i64;
        let holes = loops - self.component_count as i64;
        if v - e + f != self.component_count as i64 - holes {
            return Err(broken(
                "Euler characteristic does not match components and holes",
            ));
        }
        let in_loops: usize = self.boundary_loops.iter().map(Vec::len).sum();
        if in_loops != self.boundary_edges.len() {
            return Err(broken("boundary loops do not cover every boundary edge"));
        }
        Ok(())
    }
}

/// Fails with [`Error::RepeatedTriangle`] when two of the triangles sharing one edge (given as
/// half-edge ids, ascending) have the same three vertices, whatever their rotation.
fn repeated_triangle(triangles: &[[usize; 3]], group: &[(u32, u32)]) -> Result<()> {
    let key = |h: u32| {
        let mut k = triangles[h as usize / 3];
        k.sort_unstable();
        k
    };
    for (i, &(_, h)) in group.iter().enumerate() {
        for &(_, g) in &group[..i] {
            if key(h) == key(g) {
                let (first, t) = ((g / 3).min(h / 3) as usize, (g / 3).max(h / 3) as usize);
                return Err(Error::RepeatedTriangle {
                    triangle: t,
                    first,
                    corners: triangles[t],
                });
            }
        }
    }
    Ok(())
}

/// The first vertex whose triangles form more than one fan, with the number of fans.
///
/// The fans around `v` are the connected components of its *link*: the graph on `v`'s
/// neighbours with an edge (a, b) for each triangle (v, a, b). Every link node has degree at
/// most 2 (an edge has at most two triangles), so a component is a path (an open fan) or a
/// cycle (a closed fan). Counting needs a walk: a closed fan plus a stray triangle has the
/// same vertex, edge and triangle counts as one open fan.
fn first_multi_fan_vertex(n: usize, triangles: &[[usize; 3]]) -> Option<(usize, usize)> {
    let mut start = vec![0usize; n + 1];
    for t in triangles {
        for &v in t {
            start[v + 1] += 1;
        }
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut links = vec![[0usize; 2]; start[n]];
    for t in triangles {
        for k in 0..3 {
            let v = t[k];
            links[fill[v]] = [t[(k + 1) % 3], t[(k + 2) % 3]];
            fill[v] += 1;
        }
    }
    let mut nodes: Vec<usize> = Vec::new();
    let mut seen: Vec<bool> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    for v in 0..n {
        let fan = &links[start[v]..start[v + 1]];
        if fan.len() <= 1 {
            continue;
        }
        nodes.clear();
        nodes.extend(fan.iter().flatten().copied());
        nodes.sort_unstable();
        nodes.dedup();
        // Components over link nodes; the fan is small, so linear scans are fine.
        seen.clear();
        seen.resize(nodes.len(), false);
        let mut components = 0;
        for root in 0..nodes.len() {
            if seen[root] {
                continue;
            }
            components += 1;
            seen[root] = true;
            stack.push(nodes[root]);
            while let Some(w) = stack.pop() {
                for &[a, b] in fan {
                    let other = if a == w {
                        b
                    } else if b == w {
                        a
                    } else {
                        continue;
                    };
                    if let Ok(i) = nodes.binary_search(&other) {
                        if !seen[i] {
                            seen[i] = true;
                            stack.push(other);
                        }
                    }
                }
            }
        }
        if components > 1 {
            return Some((v, components));
        }
    }
    None
}

/// Chains directed boundary edges into closed loops. At a vertex where the boundary touches
/// itself (two loops share a corner) any unused outgoing edge is taken, which still yields
/// closed loops covering every edge.
fn trace_loops(n: usize, boundary: &[[usize; 2]]) -> Vec<Vec<usize>> {
    let mut out_start = vec![0usize; n + 1];
    for e in boundary {
        out_start[e[0] + 1] += 1;
    }
    for v in 0..n {
        out_start[v + 1] += out_start[v];
    }
    let mut fill = out_start.clone();
    let mut out_edge = vec![0usize; boundary.len()];
    for (i, e) in boundary.iter().enumerate() {
        out_edge[fill[e[0]]] = i;
        fill[e[0]] += 1;
    }
    let mut used = vec![false; boundary.len()];
    let mut next_unused = out_start.clone();
    let mut loops = Vec::new();
    for start in 0..boundary.len() {
        if used[start] {
            continue;
        }
        let mut lp = Vec::new();
        let mut e = start;
        loop {
            used[e] = true;
            lp.push(boundary[e][0]);
            let to = boundary[e][1];
            let mut found = None;
            while next_unused[to] < out_start[to + 1] {
                let cand = out_edge[next_unused[to]];
                next_unused[to] += 1;
                if !used[cand] {
                    found = Some(cand);
                    break;
                }
            }
            match found {
                Some(c) => e = c,
                None => break,
            }
        }
        loops.push(lp);
    }
    loops
}

fn components(n: usize, offsets: &[usize], neighbors: &[usize]) -> (Vec<usize>, usize) {
    let mut comp = vec![usize::MAX; n];
    let mut count = 0;
    let mut stack = Vec::new();
    for s in 0..n {
        if comp[s] != usize::MAX {
            continue;
        }
        comp[s] = count;
        stack.push(s);
        while let Some(v) = stack.pop() {
            for &w in &neighbors[offsets[v]..offsets[v + 1]] {
                if comp[w] == usize::MAX {
                    comp[w] = count;
                    stack.push(w);
                }
            }
        }
        count += 1;
    }
    (comp, count)
}
