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
        // Indices are stored as u32 in the scratch arrays (the binary format's limit too):
        // at 500k vertices these arrays are most of the build's memory traffic and page faults.
        if triangles.len() * 3 > (u32::MAX >> 1) as usize || n > u32::MAX as usize {
            return Err(Error::Meshing {
                message: format!(
                    "{} vertices and {} triangles exceed the indices topology supports (2^32 vertices, 2^31 corners)",
                    n,
                    triangles.len()
                ),
            });
        }
        // Half-edges bucketed by their lower vertex (a counting sort), then each small bucket
        // sorted by the upper vertex: twins end up adjacent and edges come out sorted by
        // (lo, hi), in O(n) instead of one global sort of every half-edge.
        let mut bucket = vec![0u32; n + 1];
        for tri in triangles {
            for k in 0..3 {
                bucket[tri[k].min(tri[(k + 1) % 3]) + 1] += 1;
            }
        }
        for v in 0..n {
            bucket[v + 1] += bucket[v];
        }
        let mut fill = bucket[..n].to_vec();
        // (upper vertex, 2 x half-edge id + 1 if it runs downwards), half-edge id = 3 x
        // triangle + corner: the low bit keeps the ids' order and tells twins apart.
        let mut half = vec![(0u32, 0u32); triangles.len() * 3];
        for (t, tri) in triangles.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (tri[k], tri[(k + 1) % 3]);
                let lo = a.min(b);
                half[fill[lo] as usize] =
                    (a.max(b) as u32, ((t * 3 + k) * 2 + (a > b) as usize) as u32);
                fill[lo] += 1;
            }
        }
        let mut edges = Vec::with_capacity(half.len() / 2 + 16);
        let mut boundary_edges = Vec::new();
        let mut degree = vec![0u32; n];
        for a in 0..n {
            let group = &mut half[bucket[a] as usize..bucket[a + 1] as usize];
            if group.len() > 1 {
                group.sort_unstable();
            }
            let mut i = 0;
            while i < group.len() {
                let b = group[i].0 as usize;
                let mut j = i + 1;
                while j < group.len() && group[j].0 as usize == b {
                    j += 1;
                }
                let count = j - i;
                // Two counter-clockwise triangles (validation made them all so) with the same
                // three vertices have the same cyclic order, so they run along a shared edge in
                // the same direction: twins running opposite ways cannot repeat a triangle.
                if count > 2 || (count == 2 && (group[i].1 ^ group[i + 1].1) & 1 == 0) {
                    repeated_triangle(triangles, &group[i..j])?;
                }
                if count > 2 {
                    return Err(Error::NonManifoldEdge {
                        a,
                        b,
                        count,
                        triangle: (group[i].1 >> 1) as usize / 3,
                    });
                }
                if count == 1 {
                    let h = (group[i].1 >> 1) as usize;
                    let tri = triangles[h / 3];
                    boundary_edges.push([tri[h % 3], tri[(h % 3 + 1) % 3]]);
                }
                edges.push([a, b]);
                degree[a] += 1;
                degree[b] += 1;
                i = j;
            }
        }
        if let Some(v) = degree.iter().position(|&d| d == 0) {
            return Err(Error::UnreferencedVertex { vertex: v });
        }
        // The fan check reuses the half-edge array (one entry per triangle corner, as there
        // is one per half-edge) and the bucket array for its per-vertex starts.
        if let Some((vertex, fans)) = first_multi_fan_vertex(triangles, &mut bucket, &mut half) {
            return Err(Error::NonManifoldVertex { vertex, fans });
        }
        drop(half);
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        for &d in &degree {
            offsets.push(offsets.last().unwrap() + d as usize);
        }
        // Per-vertex write cursors, in the (no longer needed) bucket array.
        let mut fill = bucket;
        for v in 0..n {
            fill[v] = offsets[v] as u32;
        }
        let mut neighbors = vec![0usize; offsets[n]];
        for &[a, b] in &edges {
            neighbors[fill[a] as usize] = b;
            fill[a] += 1;
            neighbors[fill[b] as usize] = a;
            fill[b] += 1;
        }
        // Edges are visited in (a, b) order, so each vertex's higher neighbours arrive sorted
        // and after its lower ones, which arrive sorted too: every list is already sorted.
        debug_assert!((0..n).all(|v| neighbors[offsets[v]..offsets[v + 1]]
            .windows(2)
            .all(|w| w[0] < w[1])));
        let boundary_loops = trace_loops(&boundary_edges);
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
/// half-edge entries of [`Topology::build`], ascending) have the same three vertices, whatever
/// their rotation.
fn repeated_triangle(triangles: &[[usize; 3]], group: &[(u32, u32)]) -> Result<()> {
    let key = |h: u32| {
        let mut k = triangles[h as usize / 3];
        k.sort_unstable();
        k
    };
    let ids = group.iter().map(|&(_, h)| h >> 1);
    for (i, h) in ids.clone().enumerate() {
        for g in ids.clone().take(i) {
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
///
/// `start` (length vertices + 1) and `links` (length 3 x triangles) are scratch space.
fn first_multi_fan_vertex(
    triangles: &[[usize; 3]],
    start: &mut [u32],
    links: &mut [(u32, u32)],
) -> Option<(usize, usize)> {
    let n = start.len() - 1;
    start.fill(0);
    for t in triangles {
        for &v in t {
            start[v + 1] += 1;
        }
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    // Fill from the back so that `start` ends up holding each vertex's first slot.
    for t in triangles.iter().rev() {
        for k in (0..3).rev() {
            let v = t[k] + 1;
            start[v] -= 1;
            links[start[v] as usize] = (t[(k + 1) % 3] as u32, t[(k + 2) % 3] as u32);
        }
    }
    // Now start[v + 1] is v's first slot; v's last slot ends at v + 1's first slot.
    start.rotate_left(1);
    start[n] = links.len() as u32;
    for v in 0..n {
        let fan = &links[start[v] as usize..start[v + 1] as usize];
        if fan.len() <= 1 || one_fan_by_walk(fan) {
            continue;
        }
        let fans = count_fans(fan);
        if fans > 1 {
            return Some((v, fans));
        }
    }
    None
}

/// Whether the link edges `fan` (each `(a, b)` from a counter-clockwise triangle (v, a, b))
/// form one fan, shown by a directed walk through all of them: forward from the first edge
/// (a -> b, then b -> c, ...) until it closes or stops, then backward. In a consistently
/// oriented fan every node has at most one edge out and one in, so the walk covers the whole
/// fan in O(len^2) without sorting or marking. `false` means "not shown" (several fans, or an
/// orientation the walk cannot follow); [`count_fans`] then decides. Each step takes a
/// different edge (link nodes have degree <= 2 and no edge repeats, both checked before), so
/// reaching `fan.len()` steps proves connectivity.
fn one_fan_by_walk(fan: &[(u32, u32)]) -> bool {
    let (a0, b0) = fan[0];
    let mut steps = 1;
    let mut to = b0;
    loop {
        if to == a0 {
            return steps == fan.len();
        }
        match fan.iter().find(|e| e.0 == to) {
            Some(e) if steps < fan.len() => {
                steps += 1;
                to = e.1;
            }
            Some(_) => return false,
            None => break,
        }
    }
    let mut from = a0;
    while let Some(e) = fan.iter().find(|e| e.1 == from) {
        if steps == fan.len() {
            return false;
        }
        steps += 1;
        from = e.0;
    }
    steps == fan.len()
}

/// Number of connected components of the link edges `fan` (undirected).
fn count_fans(fan: &[(u32, u32)]) -> usize {
    let mut nodes: Vec<u32> = fan.iter().flat_map(|&(a, b)| [a, b]).collect();
    nodes.sort_unstable();
    nodes.dedup();
    // Components over link nodes; the fan is small, so linear scans are fine.
    let mut seen = vec![false; nodes.len()];
    let mut stack = Vec::new();
    let mut components = 0;
    for root in 0..nodes.len() {
        if seen[root] {
            continue;
        }
        components += 1;
        seen[root] = true;
        stack.push(nodes[root]);
        while let Some(w) = stack.pop() {
            for &(a, b) in fan {
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
    components
}

/// Chains directed boundary edges into closed loops. At a vertex where the boundary touches
/// itself (two loops share a corner) any unused outgoing edge is taken, which still yields
/// closed loops covering every edge.
fn trace_loops(boundary: &[[usize; 2]]) -> Vec<Vec<usize>> {
    // Outgoing edges grouped by their start vertex (by index within a vertex), found by
    // binary search: the boundary is small, so no arrays as long as the vertex list.
    let mut out_edge: Vec<usize> = (0..boundary.len()).collect();
    out_edge.sort_by_key(|&i| boundary[i][0]);
    let group = |v: usize| out_edge.partition_point(|&i| boundary[i][0] < v);
    // next_unused[g]: the next candidate of the group starting at position g.
    let mut next_unused: Vec<usize> = (0..boundary.len()).collect();
    let mut used = vec![false; boundary.len()];
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
            let g = group(to);
            let mut found = None;
            while next_unused[g] < out_edge.len() && boundary[out_edge[next_unused[g]]][0] == to {
                let cand = out_edge[next_unused[g]];
                next_unused[g] += 1;
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
