//! The nearest **visible** bones of every vertex (with ties), and the connected components
//! that see no bone at all. Heat uses the first for its `H` and `p` terms; heat and geodesic
//! both use the component helpers for their fallback.

use super::distance::Segment;
use super::visibility::Visibility;
use crate::mesh::Mesh;
use rayon::prelude::*;

/// Vertices per parallel work item.
const CHUNK: usize = 4096;

/// For every vertex: the distance to its nearest visible bone and the bones tied for it.
#[derive(Debug, Clone)]
pub struct NearestBones {
    /// Distance to the nearest visible bone (`f64::INFINITY` when no bone is visible).
    pub distance: Vec<f64>,
    /// CSR offsets into `bones` (length = vertices + 1).
    pub offsets: Vec<usize>,
    /// The tied nearest bones of every vertex, in bone order.
    pub bones: Vec<u32>,
    /// Components in which no vertex saw any bone: there, visibility was ignored.
    pub blind_components: Vec<usize>,
}

impl NearestBones {
    /// The tied nearest bones of vertex `v`.
    pub fn of(&self, v: usize) -> &[u32] {
        &self.bones[self.offsets[v]..self.offsets[v + 1]]
    }
}

/// Finds, for every vertex, the nearest bone whose closest point it can see (see
/// [`Visibility`]; `None` = every bone is visible) and every other visible bone within
/// `tie_tolerance` (relative) of it.
/// In a component where no vertex sees any bone, visibility is ignored (the fallback) and the
/// component is listed in [`NearestBones::blind_components`].
pub fn nearest_visible_bones(
    mesh: &Mesh,
    segments: &[Segment],
    visibility: Option<&Visibility>,
    tie_tolerance: f64,
    pin_distance: f64,
) -> NearestBones {
    nearest_visible_allowed_bones(
        mesh,
        segments,
        visibility,
        tie_tolerance,
        pin_distance,
        &|_, _| true,
    )
}

/// [`nearest_visible_bones`] among the bones `allowed(vertex, bone)` lets each vertex have
/// (a vertex with no allowed visible bone gets an infinite distance and no bone).
pub fn nearest_visible_allowed_bones(
    mesh: &Mesh,
    segments: &[Segment],
    visibility: Option<&Visibility>,
    tie_tolerance: f64,
    pin_distance: f64,
    allowed: &(dyn Fn(usize, usize) -> bool + Sync),
) -> NearestBones {
    let [nearest] = nearest_visible_bones_under(
        mesh,
        segments,
        visibility,
        tie_tolerance,
        pin_distance,
        [allowed],
    );
    nearest
}

/// [`nearest_visible_allowed_bones`] for several filters in one pass over the vertices:
/// each vertex's bone distances and visibility tests are made once and shared (`best`
/// needs the nearest bones of all and those its parts allow: one pass instead of two).
/// The results are the same as one call per filter.
pub fn nearest_visible_bones_under<const K: usize>(
    mesh: &Mesh,
    segments: &[Segment],
    visibility: Option<&Visibility>,
    tie_tolerance: f64,
    pin_distance: f64,
    filters: [&(dyn Fn(usize, usize) -> bool + Sync); K],
) -> [NearestBones; K] {
    let n = mesh.vertex_count();
    let all: Vec<usize> = (0..n).collect();
    let search = Search {
        segments,
        tie_tolerance,
        pin_distance,
    };
    let firsts = search.run(mesh, visibility, &all, &filters);
    let mut k = 0;
    firsts.map(|first| {
        let allowed = filters[k];
        k += 1;
        with_blind_fallback(mesh, &search, first, allowed)
    })
}

/// `first` (every vertex, with visibility) as [`NearestBones`], its blind components (no
/// vertex saw an allowed bone) recomputed without visibility.
fn with_blind_fallback(
    mesh: &Mesh,
    search: &Search,
    first: Partial,
    allowed: &(dyn Fn(usize, usize) -> bool + Sync),
) -> NearestBones {
    let n = mesh.vertex_count();
    let blind_components = components_where_none(mesh, |v| first.distance[v].is_finite());
    if blind_components.is_empty() {
        return first.into_nearest(blind_components);
    }
    // Fallback: recompute the blind components' vertices without visibility, then merge.
    let comp = mesh.topology().component_of();
    let is_blind = |v: usize| blind_components.binary_search(&comp[v]).is_ok();
    let blind: Vec<usize> = (0..n).filter(|&v| is_blind(v)).collect();
    let [redo] = search.run(mesh, None, &blind, &[allowed]);
    let mut merged = Partial::default();
    let mut k = 0;
    for v in 0..n {
        let (src, i) = if is_blind(v) {
            k += 1;
            (&redo, k - 1)
        } else {
            (&first, v)
        };
        merged.distance.push(src.distance[i]);
        merged.counts.push(src.counts[i]);
    }
    // Bone lists, in vertex order.
    let starts = |p: &Partial| {
        let mut s = Vec::with_capacity(p.counts.len() + 1);
        s.push(0usize);
        for &c in &p.counts {
            s.push(s.last().copied().unwrap_or(0) + c as usize);
        }
        s
    };
    let (s1, s2) = (starts(&first), starts(&redo));
    k = 0;
    for v in 0..n {
        if is_blind(v) {
            merged
                .bones
                .extend_from_slice(&redo.bones[s2[k]..s2[k + 1]]);
            k += 1;
        } else {
            merged
                .bones
                .extend_from_slice(&first.bones[s1[v]..s1[v + 1]]);
        }
    }
    merged.into_nearest(blind_components)
}

/// Results for a list of vertices, in list order: distance, tie count, and the tied bones
/// concatenated.
#[derive(Debug, Default)]
struct Partial {
    distance: Vec<f64>,
    counts: Vec<u32>,
    bones: Vec<u32>,
}

impl Partial {
    fn into_nearest(self, blind_components: Vec<usize>) -> NearestBones {
        let mut offsets = Vec::with_capacity(self.counts.len() + 1);
        offsets.push(0);
        for &c in &self.counts {
            offsets.push(offsets.last().copied().unwrap_or(0) + c as usize);
        }
        NearestBones {
            distance: self.distance,
            offsets,
            bones: self.bones,
            blind_components,
        }
    }

    fn append(&mut self, other: Partial) {
        self.distance.extend(other.distance);
        self.counts.extend(other.counts);
        self.bones.extend(other.bones);
    }
}

/// The bones and the tie rule of a nearest-bone search.
struct Search<'a> {
    segments: &'a [Segment],
    tie_tolerance: f64,
    pin_distance: f64,
}

impl Search<'_> {
    /// Nearest (visible, if `visibility` is given) bones of the listed vertices, one result
    /// per filter (a bone a filter refuses a vertex counts as already tried).
    fn run<const K: usize>(
        &self,
        mesh: &Mesh,
        visibility: Option<&Visibility>,
        vertices: &[usize],
        filters: &[&(dyn Fn(usize, usize) -> bool + Sync); K],
    ) -> [Partial; K] {
        let (segments, pts) = (self.segments, mesh.vertices());
        let chunks: Vec<[Partial; K]> = vertices
            .par_chunks(CHUNK)
            .map(|chunk| {
                let nb = segments.len();
                let mut dist = vec![0.0; nb];
                let mut tried = vec![false; nb];
                // Per bone, the vertex's visibility test once made (shared by the filters).
                let mut seen: Vec<Option<bool>> = vec![None; nb];
                let mut out: [Partial; K] = std::array::from_fn(|_| Partial::default());
                for &v in chunk {
                    let p = pts[v];
                    for (j, s) in segments.iter().enumerate() {
                        dist[j] = s.distance(&p);
                    }
                    seen.iter_mut().for_each(|x| *x = None);
                    let mut sees = |j: usize| -> bool {
                        *seen[j].get_or_insert_with(|| {
                            dist[j] <= self.pin_distance
                                || visibility.is_none_or(|vis| {
                                    vis.visible(v, &segments[j].closest_point(&p))
                                })
                        })
                    };
                    for (allowed, out) in filters.iter().zip(out.iter_mut()) {
                        for (j, t) in tried.iter_mut().enumerate() {
                            *t = !allowed(v, j);
                        }
                        self.nearest_of(&dist, &mut tried, &mut sees, out);
                    }
                }
                out
            })
            .collect();
        let mut all: [Partial; K] = std::array::from_fn(|_| Partial::default());
        for chunk in chunks {
            for (a, c) in all.iter_mut().zip(chunk) {
                a.append(c);
            }
        }
        all
    }

    /// Pushes one vertex's nearest visible bone and the visible bones tied with it (of
    /// those not yet `tried`) onto `out`.
    fn nearest_of(
        &self,
        dist: &[f64],
        tried: &mut [bool],
        sees: &mut impl FnMut(usize) -> bool,
        out: &mut Partial,
    ) {
        let nb = dist.len();
        // Try bones nearest first until one is visible (usually the very first).
        let mut found = None;
        loop {
            let mut best: Option<usize> = None;
            for j in 0..nb {
                if !tried[j] && best.is_none_or(|b| dist[j] < dist[b]) {
                    best = Some(j);
                }
            }
            let Some(j) = best else { break };
            tried[j] = true;
            if sees(j) {
                found = Some(j);
                break;
            }
        }
        let before = out.bones.len();
        let d = match found {
            Some(j) => {
                let limit = dist[j] * (1.0 + self.tie_tolerance) + self.pin_distance;
                for k in 0..nb {
                    if k == j || (dist[k] <= limit && !tried[k] && sees(k)) {
                        out.bones.push(k as u32);
                    }
                }
                dist[j]
            }
            None => f64::INFINITY,
        };
        out.distance.push(d);
        out.counts.push((out.bones.len() - before) as u32);
    }
}

/// Components (sorted) in which `has(v)` holds for no vertex.
pub fn components_where_none(mesh: &Mesh, has: impl Fn(usize) -> bool) -> Vec<usize> {
    let topo = mesh.topology();
    let mut seen = vec![false; topo.component_count()];
    for (v, &c) in topo.component_of().iter().enumerate() {
        if !seen[c] && has(v) {
            seen[c] = true;
        }
    }
    (0..seen.len()).filter(|&c| !seen[c]).collect()
}
