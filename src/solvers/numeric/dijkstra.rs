//! Multi-source Dijkstra over the mesh's own CSR adjacency, with Euclidean edge lengths.
//!
//! Every vertex may start with a finite distance (its seed, e.g. the straight-line distance
//! to a bone when that segment stays inside the shape); the result is, for every vertex, the
//! smallest seed-plus-path-length over all vertices. No graph is built: the mesh already owns
//! a CSR adjacency, and edge lengths are computed on the fly.

use crate::mesh::Mesh;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Shortest distances from the seeds along mesh edges. `seeds[v]` is the starting distance of
/// vertex `v` (`f64::INFINITY` for none; NaN and negative values are treated as no seed).
/// Vertices no seed can reach keep `f64::INFINITY`.
pub fn multi_source_dijkstra(mesh: &Mesh, seeds: &[f64]) -> Vec<f64> {
    multi_source_dijkstra_within(mesh, seeds, f64::INFINITY)
}

/// [`multi_source_dijkstra`] that stops at `limit`: the distances up to `limit` are the same
/// (bit for bit: a path through a vertex farther than `limit` is longer than `limit`), the
/// vertices farther stay infinite (or at their seed). For callers that only threshold the
/// distances (`best`'s band and fades), so the far side of a part is never searched.
pub fn multi_source_dijkstra_within(mesh: &Mesh, seeds: &[f64], limit: f64) -> Vec<f64> {
    let topo = mesh.topology();
    let offsets = topo.csr_offsets();
    let neighbors = topo.csr_neighbors();
    let pts = mesh.vertices();
    let mut dist: Vec<f64> = seeds
        .iter()
        .map(|&s| if s >= 0.0 { s } else { f64::INFINITY })
        .collect();
    if limit <= 0.0 {
        // No edge can be relaxed (a valid mesh has no zero-length edge): the seeds are the
        // answer, without the sort and the scan (`best`'s band of 0, once per bone).
        return dist;
    }
    // Non-negative f64 order equals the order of their bit patterns, so keys are plain
    // integers: cheaper to compare than floats, and no NaN question.
    // Seeds are sorted once and consumed in order; the heap only holds distances improved by
    // relaxation. Most vertices of a mesh see the bone directly and are never improved, so
    // the heap stays small (measured 1.5-2x faster than putting every seed in the heap).
    let mut sorted: Vec<(u64, u32)> = dist
        .iter()
        .enumerate()
        .filter(|(_, d)| d.is_finite())
        .map(|(v, d)| (d.to_bits(), v as u32))
        .collect();
    sorted.sort_unstable();
    let mut next = 0;
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
    loop {
        let take_seed = match (sorted.get(next), heap.peek()) {
            (Some(s), Some(Reverse(h))) => s <= h,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        let (bits, v) = if take_seed {
            next += 1;
            sorted[next - 1]
        } else {
            match heap.pop() {
                Some(Reverse(e)) => e,
                None => break,
            }
        };
        let v = v as usize;
        let dv = f64::from_bits(bits);
        if dv > dist[v] {
            continue; // stale: improved since this entry was made
        }
        let pv = pts[v];
        for &w in &neighbors[offsets[v]..offsets[v + 1]] {
            // No edge improves a neighbour already as close (the interior of a seeded
            // region): the same result without its square root.
            if dist[w] <= dv {
                continue;
            }
            let nd = dv + (pts[w] - pv).norm();
            if nd < dist[w] && nd <= limit {
                dist[w] = nd;
                heap.push(Reverse((nd.to_bits(), w as u32)));
            }
        }
    }
    dist
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Point2;

    #[test]
    fn distances_follow_edges() {
        // A strip of two triangles: 0-1-2-3 square.
        let v = vec![
            Point2::new(0.0, 0.0),
            Point2::new(3.0, 0.0),
            Point2::new(3.0, 4.0),
            Point2::new(0.0, 4.0),
        ];
        let m = Mesh::new(v, vec![[0, 1, 2], [0, 2, 3]]).unwrap();
        let d = multi_source_dijkstra(&m, &[0.0, f64::INFINITY, f64::INFINITY, 1.0]);
        // Vertex 2: 5 straight from 0, but 1 + 3 from the seed at 3.
        assert_eq!(d, vec![0.0, 3.0, 4.0, 1.0]);
        // Stopped at 3.5: the distances up to it unchanged, vertex 2 (4) left infinite.
        let d = multi_source_dijkstra_within(&m, &[0.0, f64::INFINITY, f64::INFINITY, 1.0], 3.5);
        assert_eq!(d, vec![0.0, 3.0, f64::INFINITY, 1.0]);
        // Stopped at 0: the seeds alone.
        let d = multi_source_dijkstra_within(&m, &[0.0, f64::INFINITY, -1.0, 1.0], 0.0);
        assert_eq!(d, vec![0.0, f64::INFINITY, f64::INFINITY, 1.0]);
        let d = multi_source_dijkstra(&m, &[f64::INFINITY; 4]);
        assert!(d.iter().all(|x| x.is_infinite()));
    }
}
