//! Seam-consistent weights: solve once on the layers joined at their seams, then give every
//! layer's vertex the weights of its place in the joined mesh, so vertices that share a
//! position get the same weights and linear blend skinning moves them together.
//!
//! Solving each layer alone (the scene as drawn: separate components) gives the two sides of
//! a seam different weights, one of the seeds' four causes of the crack at the elbow.

use super::layers::{Layers, TriangleLocator};
use crate::error::{Error, Result};
use crate::mesh::Mesh;
use crate::scene::Scene;
use crate::solvers::Solver;
use crate::weights::Weights;
use nalgebra::Point2;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// What [`seam_consistent_weights`] did and measured.
#[derive(Debug, Clone, PartialEq)]
pub struct SeamWeightsReport {
    /// Registry name of the solver.
    pub solver: String,
    /// Seam positions: groups of coincident vertices from different layers.
    pub seam_positions: usize,
    /// Seam positions joined into one vertex of the solved mesh (the others, where joining
    /// would pinch the mesh at a single point, get their members' mean weights).
    pub joined: usize,
    /// Vertices of an overlap strip (inside another layer next to a seam) that took the
    /// weights of the joined mesh at their position.
    pub overlap_vertices: usize,
    /// Vertices and triangles of the joined mesh that was solved.
    pub union_size: [usize; 2],
    /// Largest weight difference (any bone) between vertices at one seam position when each
    /// layer is solved alone (the scene as drawn).
    pub alone_max_difference: f64,
    /// The same after the transfer (0 up to rounding).
    pub consistent_max_difference: f64,
    /// Wall time of both solves and the transfer, seconds.
    pub seconds: f64,
}

/// The layers joined at their seams, ready to solve: coincident vertices of different
/// layers become one vertex; overlap-strip vertices (and any vertex the join leaves without
/// a triangle) are left out and read their weights back by interpolation.
pub(crate) struct Union {
    /// The joined mesh with the scene's skeleton (no art, no probes).
    pub scene: Scene,
    /// Union vertex of every original vertex (`None`: left out).
    pub of: Vec<Option<usize>>,
    /// Original layer of every union triangle.
    pub triangle_layer: Vec<usize>,
    /// Coincident groups (seam positions) of the original scene.
    pub groups: Vec<Vec<usize>>,
    /// Union vertices that are seam positions.
    pub seam: Vec<bool>,
    /// Original vertices left out as overlap-strip vertices.
    pub overlap: Vec<usize>,
}

impl Union {
    /// Joins the layers of `scene` at their seams.
    pub fn build(scene: &Scene, layers: &Layers) -> Result<Union> {
        let mesh = &scene.mesh;
        let pts = mesh.vertices();
        let n = pts.len();
        let layer = &layers.layer;
        let groups = layers.coincident_groups(pts);
        let mut group_of: Vec<Option<usize>> = vec![None; n];
        for (g, members) in groups.iter().enumerate() {
            for &v in members {
                group_of[v] = Some(g);
            }
        }
        // Overlap strip: a vertex next to one of its layer's seam vertices, inside another
        // layer that the seam joins it to.
        let locator = TriangleLocator::new(pts, mesh.triangles());
        let topo = mesh.topology();
        let overlap: Vec<usize> = (0..n)
            .filter(|&v| group_of[v].is_none())
            .filter(|&v| {
                let partners: HashSet<usize> = topo
                    .neighbors(v)
                    .iter()
                    .filter_map(|&u| group_of[u])
                    .flat_map(|g| groups[g].iter().map(|&w| layer[w]))
                    .filter(|&l| l != layer[v])
                    .collect();
                !partners.is_empty()
                    && locator
                        .containing(pts[v], layers.eps)
                        .iter()
                        .any(|&(t, _)| partners.contains(&layer[mesh.triangles()[t][0]]))
            })
            .collect();
        let mut left_out = vec![false; n];
        overlap.iter().for_each(|&v| left_out[v] = true);

        let mut split = vec![false; groups.len()];
        for _attempt in 0..=groups.len() {
            let key = |v: usize| match group_of[v] {
                Some(g) if !split[g] => n + g,
                _ => v,
            };
            let mut edge_count: HashMap<(usize, usize), u8> = HashMap::new();
            let mut seen: HashSet<[usize; 3]> = HashSet::new();
            let mut kept: Vec<([usize; 3], usize)> = Vec::new();
            for tri in mesh.triangles() {
                if tri.iter().any(|&v| left_out[v]) {
                    continue;
                }
                let k = tri.map(key);
                if k[0] == k[1] || k[1] == k[2] || k[0] == k[2] {
                    continue;
                }
                let mut sorted = k;
                sorted.sort_unstable();
                let edges =
                    [(k[0], k[1]), (k[1], k[2]), (k[2], k[0])].map(|(a, b)| (a.min(b), a.max(b)));
                if seen.contains(&sorted)
                    || edges
                        .iter()
                        .any(|e| edge_count.get(e).copied().unwrap_or(0) >= 2)
                {
                    continue;
                }
                seen.insert(sorted);
                for e in edges {
                    *edge_count.entry(e).or_default() += 1;
                }
                kept.push((k, layer[tri[0]]));
            }
            // Compact the referenced keys into union vertices.
            let mut index: HashMap<usize, usize> = HashMap::new();
            let mut points = Vec::new();
            let mut parts = Vec::new();
            let mut seam = Vec::new();
            let mut of = vec![None; n];
            let mut triangles = Vec::with_capacity(kept.len());
            let mut triangle_layer = Vec::with_capacity(kept.len());
            for (k, l) in &kept {
                let t = k.map(|key| {
                    *index.entry(key).or_insert_with(|| {
                        let v = if key >= n { groups[key - n][0] } else { key };
                        points.push(pts[v]);
                        parts.push(mesh.vertex_parts()[v]);
                        seam.push(key >= n);
                        points.len() - 1
                    })
                });
                triangles.push(t);
                triangle_layer.push(*l);
            }
            for v in 0..n {
                if !left_out[v] {
                    of[v] = index.get(&key(v)).copied();
                }
            }
            match Mesh::with_parts(points, triangles, mesh.parts().to_vec(), parts) {
                Ok(m) => {
                    let scene = Scene::new(
                        format!("{} (layers joined)", scene.name),
                        m,
                        scene.skeleton.clone(),
                        Vec::new(),
                    )?;
                    return Ok(Union {
                        scene,
                        of,
                        triangle_layer,
                        groups,
                        seam,
                        overlap,
                    });
                }
                Err(Error::NonManifoldVertex { vertex, .. }) => {
                    // A seam position where the layers touch at a single point: keep its
                    // vertices apart and try again.
                    let Some(key) = index.iter().find(|(_, &u)| u == vertex).map(|(&k, _)| k)
                    else {
                        break;
                    };
                    if key < n {
                        break;
                    }
                    split[key - n] = true;
                }
                Err(e) => {
                    return Err(Error::Solver {
                        solver: "seam-consistent".into(),
                        message: format!("joining the layers at their seams failed: {e}"),
                    })
                }
            }
        }
        Err(Error::Solver {
            solver: "seam-consistent".into(),
            message: "joining the layers at their seams left a non-manifold vertex".into(),
        })
    }

    /// Weights for every original vertex from weights on the union: joined vertices copy
    /// their union vertex's row, left-out vertices interpolate the union triangle of another
    /// layer that contains them (else of any layer, else the nearest union vertex), and the
    /// members of every seam position end with their mean row.
    pub fn transfer(&self, original: &Scene, layers: &Layers, union: &Weights) -> Weights {
        let pts = original.mesh.vertices();
        let bones = union.bone_count();
        let mut out = Weights::zeros(pts.len(), bones);
        let umesh = &self.scene.mesh;
        let locator = TriangleLocator::new(umesh.vertices(), umesh.triangles());
        for v in 0..pts.len() {
            match self.of[v] {
                Some(u) => out.row_mut(v).copy_from_slice(union.row(u)),
                None => {
                    let hits = locator.containing(pts[v], layers.eps);
                    let pick = hits
                        .iter()
                        .find(|&&(t, _)| self.triangle_layer[t] != layers.layer[v])
                        .or_else(|| hits.first());
                    let row = out.row_mut(v);
                    match pick {
                        Some(&(t, l)) => {
                            for (k, &c) in umesh.triangles()[t].iter().enumerate() {
                                for (b, w) in row.iter_mut().enumerate() {
                                    *w += l[k] * union.get(c, b);
                                }
                            }
                        }
                        None => {
                            let u = nearest(umesh.vertices(), pts[v]);
                            row.copy_from_slice(union.row(u));
                        }
                    }
                }
            }
        }
        for g in &self.groups {
            average_rows(&mut out, g);
        }
        out.normalize();
        out
    }
}

/// Sets every row of `group` to the group's mean row.
pub(crate) fn average_rows(weights: &mut Weights, group: &[usize]) {
    let bones = weights.bone_count();
    let mut mean = vec![0.0; bones];
    for &v in group {
        for (m, w) in mean.iter_mut().zip(weights.row(v)) {
            *m += w / group.len() as f64;
        }
    }
    for &v in group {
        weights.row_mut(v).copy_from_slice(&mean);
    }
}

fn nearest(points: &[Point2<f64>], p: Point2<f64>) -> usize {
    (0..points.len())
        .min_by(|&a, &b| (points[a] - p).norm().total_cmp(&(points[b] - p).norm()))
        .unwrap_or(0)
}

/// The largest weight difference (any bone) between vertices of different layers at one
/// position (the welded seams) of `scene`: 0 means linear blend skinning moves every seam
/// position's vertices together in every pose.
pub fn seam_weight_difference(scene: &Scene, weights: &Weights) -> Result<f64> {
    let layers = Layers::of(scene)?;
    crate::skinning::check_shape(scene.mesh.vertex_count(), weights, scene.skeleton.len())?;
    Ok(group_difference(
        &layers.coincident_groups(scene.mesh.vertices()),
        weights,
    ))
}

pub(crate) fn group_difference(groups: &[Vec<usize>], weights: &Weights) -> f64 {
    let mut worst: f64 = 0.0;
    for g in groups {
        for b in 0..weights.bone_count() {
            let (lo, hi) = g
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                    let w = weights.get(v, b);
                    (lo.min(w), hi.max(w))
                });
            worst = worst.max(hi - lo);
        }
    }
    worst
}

/// Seam-consistent weights: joins the layers at their welded seams (coincident vertices of
/// different layers become one vertex), solves the joined mesh with `solver`, and transfers
/// the weights back, so vertices that share a position get the same row, and overlap-strip
/// vertices (inside another layer, next to a seam) the joined mesh's weights at their
/// position. The report compares the seam with each layer solved alone (the input scene
/// solved as drawn).
///
/// Weld first ([`super::weld_seams`]): layers that only touch without coincident vertices
/// have no seam to join. Under a masking solver a joined vertex keeps the part of its first
/// member, so the bones allowed there are that layer's.
///
/// Errors: the solver's errors; a scene with fewer than two layers.
pub fn seam_consistent_weights(
    scene: &Scene,
    solver: &dyn Solver,
) -> Result<(Weights, SeamWeightsReport)> {
    let started = Instant::now();
    let layers = Layers::of(scene)?;
    let union = Union::build(scene, &layers)?;
    let alone = solver.solve(scene)?.weights;
    let joined = solver.solve(&union.scene)?.weights;
    let weights = union.transfer(scene, &layers, &joined);
    weights.validate().map_err(|e| Error::Solver {
        solver: solver.name(),
        message: format!("seam-consistent transfer produced invalid weights ({e}); this is a bug"),
    })?;
    let report = SeamWeightsReport {
        solver: solver.name(),
        seam_positions: union.groups.len(),
        joined: union.seam.iter().filter(|&&s| s).count(),
        overlap_vertices: union.overlap.len(),
        union_size: [
            union.scene.mesh.vertex_count(),
            union.scene.mesh.triangle_count(),
        ],
        alone_max_difference: group_difference(&union.groups, &alone),
        consistent_max_difference: group_difference(&union.groups, &weights),
        seconds: started.elapsed().as_secs_f64(),
    };
    Ok((weights, report))
}
