//! Mesh connectivity: unique edges, CSR vertex adjacency, boundary loops, components.

use crate::error::{Error, MeshError, MeshingProblem, Result};
use nalgebra::Point2;

/// Connectivity of a mesh, built once by [`crate::mesh::Mesh::new`] (a validated manifold) or
/// [`crate::mesh::Mesh::from_artist`] (any triangle soup: folds, edges of three or more triangles,
/// unused vertices, each of which is then a component of its own).
#[derive(Debug, Clone, Default)]
pub struct Topology {
    /// Unique undirected edges `[a, b]` with `a < b`, sorted.
    edges: Vec<[usize; 2]>,
    /// CSR adjacency: the neighbours of `v` are `neighbors[offsets[v]..offsets[v + 1]]`, sorted.
    offsets: Vec<usize>,
    neighbors: Vec<usize>,
    /// Boundary edges (those of exactly one triangle) directed as in their triangle, which lies
    /// to their left.
    boundary_edges: Vec<[usize; 2]>,
    /// Closed boundary loops, each a vertex cycle with the interior on the left (outer loops
    /// counter-clockwise, holes clockwise). In an artist mesh a loop walks backwards through
    /// a fold, and at an edge of three or more triangles it may be an open chain
    /// (see `trace_loops`).
    boundary_loops: Vec<Vec<usize>>,
    /// Connected component of every vertex.
    component_of: Vec<usize>,
    component_count: usize,
}

/// What a lenient build ([`Topology::build_lenient`], for artist meshes) met where the strict
/// one fails. Counts, plus the first example of each for the notes.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Irregularities {
    /// Edges used by more than two triangles, and the first one with its triangle count.
    pub non_manifold_edges: usize,
    pub first_non_manifold_edge: Option<([usize; 2], usize)>,
    /// Edges whose two triangles run along them in the same direction: both lie on the same
    /// side (each is counter-clockwise), so the mesh folds over itself there.
    pub folded_edges: usize,
    pub first_folded_edge: Option<[usize; 2]>,
    /// Triangles repeating the three vertices of an earlier one, and the first `(later,
    /// earlier)` pair.
    pub repeated_triangles: usize,
    pub first_repeated: Option<(usize, usize)>,
    /// Vertices no triangle uses, ascending.
    pub unused_vertices: Vec<usize>,
    /// Vertices whose triangles form several fans (bow-ties, pinches), and the first with its
    /// fan count.
    pub pinched_vertices: usize,
    pub first_pinched: Option<(usize, usize)>,
}

/// Fans longer than this skip the walk of [`one_fan_by_walk`] (quadratic in the fan's length)
/// for the sort-based count (a hostile vertex used by 10^5 triangles).
const WALK_MAX_FAN: usize = 64;

impl Topology {
    /// Builds the topology of a validated (counter-clockwise, non-degenerate) mesh; fails with
    /// [`MeshError::RepeatedTriangle`], [`MeshError::NonManifoldEdge`] when an edge has more than two
    /// triangles, [`MeshError::FoldedEdge`] when two triangles lie on the same side of their
    /// shared edge, [`MeshError::UnreferencedVertex`] when a vertex has none, or
    /// [`MeshError::NonManifoldVertex`] when a vertex's triangles form several fans.
    pub(crate) fn build(vertices: &[Point2<f64>], triangles: &[[usize; 3]]) -> Result<Self> {
        Ok(Self::build_with(vertices.len(), triangles, true)?.0)
    }

    /// Builds the topology of any triangle soup over `n` vertices (indices in range): every
    /// condition [`Topology::build`] rejects is counted in the [`Irregularities`] instead.
    /// Edges are undirected keys; boundary edges are those of one triangle; loops are traced
    /// through bow-tie vertices and folds ([`trace_loops`]). Fails only on sizes past the
    /// index limits.
    pub(crate) fn build_lenient(
        n: usize,
        triangles: &[[usize; 3]],
    ) -> Result<(Self, Irregularities)> {
        Self::build_with(n, triangles, false)
    }

    fn build_with(
        n: usize,
        triangles: &[[usize; 3]],
        strict: bool,
    ) -> Result<(Self, Irregularities)> {
        let mut found = Irregularities::default();
        // Indices are stored as u32 in the scratch arrays (the binary format's limit too):
        // at 500k vertices these arrays are most of the build's memory traffic and page faults.
        if triangles.len() * 3 > (u32::MAX >> 1) as usize || n > u32::MAX as usize {
            return Err(MeshError::Meshing {
                problem: MeshingProblem::TooLargeForTopology {
                    vertices: n,
                    triangles: triangles.len(),
                },
            }
            .into());
        }
        let HalfEdges {
            mut bucket,
            mut half,
        } = HalfEdges::bucketed(n, triangles);
        let scan = scan_edges(n, triangles, &bucket, &mut half, strict, &mut found)?;
        if strict {
            if let Some(v) = scan.degree.iter().position(|&d| d == 0) {
                return Err(MeshError::UnreferencedVertex { vertex: v }.into());
            }
        } else {
            found.unused_vertices = (0..n).filter(|&v| scan.degree[v] == 0).collect();
        }
        // The fan check reuses the half-edge array (one entry per triangle corner, as there
        // is one per half-edge) and the bucket array for its per-vertex starts.
        let pinched = multi_fan_vertices(triangles, &mut bucket, &mut half, strict);
        if let Some(&(vertex, fans)) = pinched.first() {
            if strict {
                return Err(MeshError::NonManifoldVertex { vertex, fans }.into());
            }
            found.pinched_vertices = pinched.len();
            found.first_pinched = Some((vertex, fans));
        }
        drop(half);
        let (offsets, neighbors) = csr_adjacency(n, &scan.degree, &scan.edges, bucket);
        let boundary_loops = trace_loops(&scan.boundary_edges);
        let (component_of, component_count) = components(n, &offsets, &neighbors);
        Ok((
            Topology {
                edges: scan.edges,
                offsets,
                neighbors,
                boundary_edges: scan.boundary_edges,
                boundary_loops,
                component_of,
                component_count,
            },
            found,
        ))
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
    /// Boundary edges (of one triangle each), directed with their triangle on their left.
    pub fn boundary_edges(&self) -> &[[usize; 2]] {
        &self.boundary_edges
    }
    /// Boundary loops: closed, interior on the left, for a manifold; see `docs/artist-meshes.md`
    /// for folded and non-manifold artist meshes.
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

    /// Re-checks the topology against a rebuild. `strict`: the mesh came through
    /// [`Topology::build`], so the Euler characteristic must match too and every loop closes.
    pub(crate) fn sanity_check(
        &self,
        vertices: &[Point2<f64>],
        triangles: &[[usize; 3]],
        strict: bool,
    ) -> Result<()> {
        let rebuilt = if strict {
            Topology::build(vertices, triangles)?
        } else {
            Topology::build_lenient(vertices.len(), triangles)?.0
        };
        let broken = |check: &'static str| {
            Error::Mesh(MeshError::Meshing {
                problem: MeshingProblem::TopologyBroken { check },
            })
        };
        if rebuilt.edges != self.edges || rebuilt.neighbors != self.neighbors {
            return Err(broken("edges or adjacency differ from a rebuild"));
        }
        let in_loops: usize = self.boundary_loops.iter().map(Vec::len).sum();
        if !strict {
            // An open chain (at an edge of three or more triangles) lists one vertex more
            // than it has edges.
            let (e, l) = (self.boundary_edges.len(), self.boundary_loops.len());
            if in_loops < e || in_loops > e + l {
                return Err(broken("boundary loops do not cover every boundary edge"));
            }
            return Ok(());
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
        if in_loops != self.boundary_edges.len() {
            return Err(broken("boundary loops do not cover every boundary edge"));
        }
        Ok(())
    }
}

/// Repeated triangles among those sharing edge `(a, b)` (given as half-edge entries of
/// [`Topology::build_with`]): the number of triangles repeating an earlier one's three vertices
/// (whatever their rotation), and the first `(later, earlier)` pair. Only counted at a
/// triangle's lowest edge, so each repeat counts once; sorted, so 10^5 triangles on one edge
/// cost `O(k log k)`.
fn repeated_triangles(
    triangles: &[[usize; 3]],
    a: usize,
    b: usize,
    group: &[(u32, u32)],
) -> (usize, Option<(usize, usize)>) {
    let mut keys: Vec<([usize; 3], usize)> = group
        .iter()
        .filter_map(|&(_, h)| {
            let t = (h >> 1) as usize / 3;
            let mut k = triangles[t];
            k.sort_unstable();
            (k[0] == a && k[1] == b).then_some((k, t))
        })
        .collect();
    keys.sort_unstable();
    let mut repeats = 0;
    let mut first: Option<(usize, usize)> = None;
    for w in keys.windows(2) {
        if w[0].0 == w[1].0 {
            repeats += 1;
            // The earliest pair: the smallest later triangle of any run.
            let pair = (w[1].1, w[0].1);
            if first.is_none_or(|f| pair.0 < f.0) {
                first = Some(pair);
            }
        }
    }
    (repeats, first)
}

/// The vertices whose triangles form more than one fan, with their number of fans (only the
/// first when `first_only`).
///
/// The fans around `v` are the connected components of its *link*: the graph on `v`'s
/// neighbours with an edge (a, b) for each triangle (v, a, b). In a manifold every link node
/// has degree at most 2, so a component is a path (an open fan) or a cycle (a closed fan).
/// Counting needs a walk: a closed fan plus a stray triangle has the same vertex, edge and
/// triangle counts as one open fan.
///
/// `start` (length vertices + 1) and `links` (length 3 x triangles) are scratch space.
fn multi_fan_vertices(
    triangles: &[[usize; 3]],
    start: &mut [u32],
    links: &mut [(u32, u32)],
    first_only: bool,
) -> Vec<(usize, usize)> {
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
    let mut found = Vec::new();
    for v in 0..n {
        let fan = &links[start[v] as usize..start[v + 1] as usize];
        if fan.len() <= 1 || (fan.len() <= WALK_MAX_FAN && one_fan_by_walk(fan)) {
            continue;
        }
        let fans = count_fans(fan);
        if fans > 1 {
            found.push((v, fans));
            if first_only {
                break;
            }
        }
    }
    found
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

/// Number of connected components of the link edges `fan` (undirected): union-find over
/// its sorted nodes, `O(k log k)` whatever the fan's shape (a folded or non-manifold fan
/// has link nodes of any degree).
fn count_fans(fan: &[(u32, u32)]) -> usize {
    let mut nodes: Vec<u32> = fan.iter().flat_map(|&(a, b)| [a, b]).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let mut parent: Vec<usize> = (0..nodes.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let index = |x: u32| nodes.binary_search(&x).unwrap_or(0);
    let mut components = nodes.len();
    for &(a, b) in fan {
        let (ra, rb) = (root(&mut parent, index(a)), root(&mut parent, index(b)));
        if ra != rb {
            parent[ra] = rb;
            components -= 1;
        }
    }
    components
}

/// Chains boundary edges (each directed as in its triangle) into loops, robustly: from each
/// vertex the walk takes an unused edge starting there (so consistently oriented boundaries
/// come out with the interior on the left, and a boundary touching itself at a corner still
/// closes), else an unused edge ending there, walked backwards (a fold or a bow-tie vertex
/// where two boundary edges arrive and none leaves). Every vertex has an even number of
/// boundary edges when no edge has three or more triangles, so every walk closes; otherwise
/// a walk that stops is extended backwards from its start and kept as an open chain (its
/// last vertex is then not joined to its first). Every boundary edge is in exactly one loop.
fn trace_loops(boundary: &[[usize; 2]]) -> Vec<Vec<usize>> {
    // Both ends of every edge, grouped by vertex, edges starting there first: (vertex,
    // 1 if the edge ends there, edge). Binary search finds a vertex's group: the boundary
    // is small, so no arrays as long as the vertex list.
    let mut ends: Vec<(usize, usize, usize)> = (0..boundary.len())
        .flat_map(|e| [(boundary[e][0], 0, e), (boundary[e][1], 1, e)])
        .collect();
    ends.sort_unstable();
    let group = |v: usize| ends.partition_point(|&(w, _, _)| w < v);
    // cursor[g]: the next candidate of the group starting at position g.
    let mut cursor: Vec<usize> = (0..ends.len()).collect();
    let mut used = vec![false; boundary.len()];
    // The next unused edge at `v` and the vertex it leads to.
    let mut step = |v: usize, used: &mut [bool]| -> Option<usize> {
        let g = group(v);
        if g >= ends.len() {
            return None;
        }
        while cursor[g] < ends.len() && ends[cursor[g]].0 == v {
            let (_, at_end, e) = ends[cursor[g]];
            cursor[g] += 1;
            if !used[e] {
                used[e] = true;
                return Some(boundary[e][1 - at_end]);
            }
        }
        None
    };
    let mut loops = Vec::new();
    for start in 0..boundary.len() {
        if used[start] {
            continue;
        }
        used[start] = true;
        let mut lp = vec![boundary[start][0]];
        let mut to = boundary[start][1];
        while let Some(next) = step(to, &mut used) {
            lp.push(to);
            to = next;
        }
        if to != lp[0] {
            // Open: the walk ended at `to`, which joins the chain; then backwards from the
            // start as far as it goes.
            lp.push(to);
            let mut back = Vec::new();
            let mut from = lp[0];
            while let Some(prev) = step(from, &mut used) {
                back.push(prev);
                from = prev;
            }
            back.reverse();
            back.extend(lp);
            lp = back;
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

/// Half-edges bucketed by their lower vertex (a counting sort): twins end up in one bucket,
/// and sorting each small bucket by the upper vertex puts them side by side with the edges
/// in (lo, hi) order, in O(n) instead of one global sort of every half-edge.
struct HalfEdges {
    /// Bucket of vertex `v`: `half[bucket[v]..bucket[v + 1]]`.
    bucket: Vec<u32>,
    /// (upper vertex, 2 x half-edge id + 1 if it runs downwards), half-edge id = 3 x
    /// triangle + corner: the low bit keeps the ids' order and tells twins apart.
    half: Vec<(u32, u32)>,
}

impl HalfEdges {
    fn bucketed(n: usize, triangles: &[[usize; 3]]) -> Self {
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
        HalfEdges { bucket, half }
    }
}

/// The unique edges found by [`scan_edges`].
struct EdgeScan {
    /// Undirected, sorted.
    edges: Vec<[usize; 2]>,
    /// Edges of one triangle, directed as in it.
    boundary_edges: Vec<[usize; 2]>,
    /// Edges at every vertex.
    degree: Vec<u32>,
}

/// Walks the bucketed half-edges ([`HalfEdges`]) edge by edge: the unique edges, the
/// boundary, the degrees; repeated triangles, edges of three or more triangles and folded
/// edges fail a strict build and are counted in `found` otherwise.
fn scan_edges(
    n: usize,
    triangles: &[[usize; 3]],
    bucket: &[u32],
    half: &mut [(u32, u32)],
    strict: bool,
    found: &mut Irregularities,
) -> Result<EdgeScan> {
    let mut scan = EdgeScan {
        edges: Vec::with_capacity(half.len() / 2 + 16),
        boundary_edges: Vec::new(),
        degree: vec![0u32; n],
    };
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
            check_edge(triangles, [a, b], &group[i..j], strict, found)?;
            if j - i == 1 {
                let h = (group[i].1 >> 1) as usize;
                let tri = triangles[h / 3];
                scan.boundary_edges.push([tri[h % 3], tri[(h % 3 + 1) % 3]]);
            }
            scan.edges.push([a, b]);
            scan.degree[a] += 1;
            scan.degree[b] += 1;
            i = j;
        }
    }
    Ok(scan)
}

/// Checks edge `[a, b]` (`a < b`) against its half-edges `group`: repeated triangles, more
/// than two triangles, two triangles on the same side (a fold).
fn check_edge(
    triangles: &[[usize; 3]],
    [a, b]: [usize; 2],
    group: &[(u32, u32)],
    strict: bool,
    found: &mut Irregularities,
) -> Result<()> {
    let count = group.len();
    // Two counter-clockwise triangles (every stored triangle is) with the same three
    // vertices have the same cyclic order, so they run along a shared edge in the same
    // direction: twins running opposite ways cannot repeat a triangle, and cannot overlap
    // either (their third corners lie on opposite sides).
    let same_way = count == 2 && (group[0].1 ^ group[1].1) & 1 == 0;
    if count > 2 || same_way {
        let (repeats, first) = repeated_triangles(triangles, a, b, group);
        if let Some((t, earlier)) = first {
            if strict {
                return Err(MeshError::RepeatedTriangle {
                    triangle: t,
                    first: earlier,
                    corners: triangles[t],
                }
                .into());
            }
            found.first_repeated.get_or_insert((t, earlier));
        }
        found.repeated_triangles += repeats;
    }
    let first_triangle = (group[0].1 >> 1) as usize / 3;
    if count > 2 {
        if strict {
            return Err(MeshError::NonManifoldEdge {
                a,
                b,
                count,
                triangle: first_triangle,
            }
            .into());
        }
        found.non_manifold_edges += 1;
        found.first_non_manifold_edge.get_or_insert(([a, b], count));
    } else if same_way {
        if strict {
            return Err(MeshError::FoldedEdge {
                a,
                b,
                first: first_triangle,
                second: (group[1].1 >> 1) as usize / 3,
            }
            .into());
        }
        found.folded_edges += 1;
        found.first_folded_edge.get_or_insert([a, b]);
    }
    Ok(())
}

/// CSR adjacency (offsets, neighbours) from the sorted unique edges; `scratch` (the bucket
/// array, no longer needed, of at least `n` entries) holds the write cursors.
fn csr_adjacency(
    n: usize,
    degree: &[u32],
    edges: &[[usize; 2]],
    scratch: Vec<u32>,
) -> (Vec<usize>, Vec<usize>) {
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0);
    for &d in degree {
        offsets.push(offsets.last().unwrap() + d as usize);
    }
    let mut fill = scratch;
    for v in 0..n {
        fill[v] = offsets[v] as u32;
    }
    let mut neighbors = vec![0usize; offsets[n]];
    for &[a, b] in edges {
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
    (offsets, neighbors)
}
