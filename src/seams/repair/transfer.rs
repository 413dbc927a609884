//! Seam-consistent weights: solve once on the layers joined at their seams, then give every
//! layer's vertex the weights of its place in the joined mesh, so vertices that share a
//! position get the same weights and linear blend skinning moves them together.
//!
//! Solving each layer alone (the scene as drawn: separate components) gives the two sides of
//! a seam different weights, one of the four causes of the crack at the elbow.

use super::layers::{Layers, TriangleLocator};
use super::overlap_weights::OverlapWeightsReport;
use crate::error::{Error, MeshError, Result, SolverError};
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
    /// The blend where layers linked by a joint overlap, when [`super::repaired_weights`]
    /// ran it (see [`super::overlap_consistent_weights`]).
    pub overlap: Option<OverlapWeightsReport>,
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
    ///
    /// Only the seam positions at an end of a seam edge the two layers meet across are
    /// joined (a boundary edge of one layer running backwards along a boundary edge of the
    /// other): layers touching at a single point, or overlapping along an edge on the same
    /// side, would pinch or fold the joined mesh, so those keep their vertices apart (and get
    /// their members' mean weights in [`Union::transfer`]). Should a join still pinch the
    /// mesh, the joins around the pinch are undone; as a last resort nothing is joined.
    pub fn build(scene: &Scene, layers: &Layers) -> Result<Union> {
        let mesh = &scene.mesh;
        let pts = mesh.vertices();
        let n = pts.len();
        let groups = layers.coincident_groups(mesh);
        let mut group_of: Vec<Option<usize>> = vec![None; n];
        for (g, members) in groups.iter().enumerate() {
            for &v in members {
                group_of[v] = Some(g);
            }
        }
        let mut split = Self::seam_splits(mesh, layers, &groups, &group_of);
        let topo = mesh.topology();
        let overlap = Self::overlap_strip(mesh, layers, &groups, &group_of, &split);
        let mut left_out = vec![false; n];
        overlap.iter().for_each(|&v| left_out[v] = true);

        let assemble = |split: &[bool], left_out: &[bool]| {
            assemble(scene, layers, &groups, &group_of, split, left_out)
        };
        for _attempt in 0..=groups.len() {
            let a = assemble(&split, &left_out);
            match &a.mesh {
                Ok(_) => return Union::new(scene, a, groups.clone(), overlap),
                Err(Error::Mesh(MeshError::NonManifoldVertex { vertex, .. })) => {
                    let key = a.keys[*vertex];
                    if key >= n {
                        split[key - n] = true;
                    } else {
                        // An ordinary vertex pinched by joins next to it: undo those.
                        let mut any = false;
                        for &w in topo.neighbors(key) {
                            if let Some(g) = group_of[w].filter(|&g| !split[g]) {
                                split[g] = true;
                                any = true;
                            }
                        }
                        if !any {
                            break;
                        }
                    }
                }
                Err(_) => break,
            }
        }
        // Nothing joined, nothing left out: the scene's own (valid) mesh.
        let a = assemble(&vec![true; groups.len()], &vec![false; n]);
        Union::new(scene, a, groups, Vec::new())
    }

    /// Which coincident `groups` [`Union::build`] starts with apart (`true`): all but those
    /// at an end of a seam edge the two layers meet across.
    fn seam_splits(
        mesh: &Mesh,
        layers: &Layers,
        groups: &[Vec<usize>],
        group_of: &[Option<usize>],
    ) -> Vec<bool> {
        let layer = &layers.layer;
        // Directed triangle edges: a boundary edge x -> y of one layer has its interior on the
        // left; the layers meet across it when the other layer has a triangle edge y -> x.
        let directed: HashSet<(usize, usize)> = mesh
            .triangles()
            .iter()
            .flat_map(|t| (0..3).map(move |k| (t[k], t[(k + 1) % 3])))
            .collect();
        let twin = |v: usize, l: usize| {
            group_of[v].and_then(|g| groups[g].iter().copied().find(|&w| layer[w] == l))
        };
        let mut split = vec![true; groups.len()];
        for &[x, y] in &layers.boundary {
            let (Some(gx), Some(gy)) = (group_of[x], group_of[y]) else {
                continue;
            };
            let across = groups[gx].iter().any(|&a| {
                layer[a] != layer[x]
                    && twin(y, layer[a]).is_some_and(|b| directed.contains(&(b, a)))
            });
            if across {
                split[gx] = false;
                split[gy] = false;
            }
        }
        split
    }

    /// The vertices [`Union::build`] leaves out of the union, given which coincident
    /// `groups` are `split`.
    fn overlap_strip(
        mesh: &Mesh,
        layers: &Layers,
        groups: &[Vec<usize>],
        group_of: &[Option<usize>],
        split: &[bool],
    ) -> Vec<usize> {
        let pts = mesh.vertices();
        let layer = &layers.layer;
        // Overlap strip: a vertex on its layer's outline next to one of its layer's joined
        // seam vertices, inside a layer that the seam joins it to. (The front layer's own
        // vertices that the strip covers are interior to their layer and stay in the union:
        // leaving them out would pinch it and undo every join.)
        let locator = TriangleLocator::new(pts, mesh.triangles());
        let topo = mesh.topology();
        (0..pts.len())
            .filter(|&v| group_of[v].is_none() && !layers.dirs[v].is_empty())
            .filter(|&v| {
                let partners: HashSet<usize> = topo
                    .neighbors(v)
                    .iter()
                    .filter_map(|&u| group_of[u].filter(|&g| !split[g]))
                    .flat_map(|g| groups[g].iter().map(|&w| layer[w]))
                    .filter(|&l| l != layer[v])
                    .collect();
                !partners.is_empty()
                    && locator
                        .containing(pts[v], layers.eps)
                        .iter()
                        .any(|&(t, _)| partners.contains(&layer[mesh.triangles()[t][0]]))
            })
            .collect()
    }

    fn new(
        scene: &Scene,
        a: Assembled,
        groups: Vec<Vec<usize>>,
        overlap: Vec<usize>,
    ) -> Result<Union> {
        let out_scene = Scene::new(
            format!("{} (layers joined)", scene.name),
            a.mesh?,
            scene.skeleton.clone(),
            Vec::new(),
        )?;
        Ok(Union {
            scene: out_scene,
            of: a.of,
            triangle_layer: a.triangle_layer,
            groups,
            seam: a.seam,
            overlap: if a.kept_left_out { overlap } else { Vec::new() },
        })
    }

    /// Weights for every original vertex from weights on the union: joined vertices copy
    /// their union vertex's row, left-out vertices interpolate the union triangle of another
    /// layer that contains them (else of any layer, else the nearest union vertex), and the
    /// members of every seam position end with their mean row.
    pub fn transfer(&self, original: &Scene, layers: &Layers, union: &Weights) -> Weights {
        let pts = original.mesh.vertices();
        let bones = union.bone_count();
        let mut out = Weights::zeros_unchecked(pts.len(), bones);
        let umesh = &self.scene.mesh;
        let locator = TriangleLocator::new(umesh.vertices(), umesh.triangles());
        for (v, &p) in pts.iter().enumerate() {
            match self.of[v] {
                Some(u) => out.row_mut_unchecked(v).copy_from_slice(union.row(u)),
                None => {
                    let hits = locator.containing(p, layers.eps);
                    let pick = hits
                        .iter()
                        .find(|&&(t, _)| self.triangle_layer[t] != layers.layer[v])
                        .or_else(|| hits.first());
                    let row = out.row_mut_unchecked(v);
                    match pick {
                        Some(&(t, l)) => {
                            for (k, &c) in umesh.triangles()[t].iter().enumerate() {
                                for (b, w) in row.iter_mut().enumerate() {
                                    *w += l[k] * union.get(c, b);
                                }
                            }
                        }
                        None => {
                            let u = nearest(umesh.vertices(), p);
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

/// A joined mesh and its maps back to the scene.
struct Assembled {
    mesh: Result<Mesh>,
    /// Union key (see [`union_key`]) of every union vertex.
    keys: Vec<usize>,
    of: Vec<Option<usize>>,
    triangle_layer: Vec<usize>,
    seam: Vec<bool>,
    kept_left_out: bool,
}

/// The union vertex key of original vertex `v`: its group's (`n + g`) when joined, else `v`.
fn union_key(group_of: &[Option<usize>], split: &[bool], n: usize, v: usize) -> usize {
    match group_of[v] {
        Some(g) if !split[g] => n + g,
        _ => v,
    }
}

/// Builds the joined mesh: triangles without left-out corners, corners mapped to their union
/// keys, skipping triangles that collapse, repeat, or would put a third triangle on an edge.
fn assemble(
    scene: &Scene,
    layers: &Layers,
    groups: &[Vec<usize>],
    group_of: &[Option<usize>],
    split: &[bool],
    left_out: &[bool],
) -> Assembled {
    let mesh = &scene.mesh;
    let pts = mesh.vertices();
    let n = pts.len();
    let key = |v: usize| union_key(group_of, split, n, v);
    let mut edge_count: HashMap<(usize, usize), u8> = HashMap::new();
    let mut seen: HashSet<[usize; 3]> = HashSet::new();
    let mut index: HashMap<usize, usize> = HashMap::new();
    let (mut points, mut parts, mut seam) = (Vec::new(), Vec::new(), Vec::new());
    let mut keys = Vec::new();
    let mut triangles = Vec::new();
    let mut triangle_layer = Vec::new();
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
        let edges = [(k[0], k[1]), (k[1], k[2]), (k[2], k[0])].map(|(a, b)| (a.min(b), a.max(b)));
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
        triangles.push(k.map(|key| {
            *index.entry(key).or_insert_with(|| {
                let v = if key >= n { groups[key - n][0] } else { key };
                points.push(pts[v]);
                parts.push(mesh.vertex_parts()[v]);
                seam.push(key >= n);
                keys.push(key);
                points.len() - 1
            })
        }));
        triangle_layer.push(layers.layer[tri[0]]);
    }
    let of = (0..n)
        .map(|v| {
            if left_out[v] {
                None
            } else {
                index.get(&key(v)).copied()
            }
        })
        .collect();
    Assembled {
        mesh: Mesh::with_parts(points, triangles, mesh.parts().to_vec(), parts),
        keys,
        of,
        triangle_layer,
        seam,
        kept_left_out: left_out.iter().any(|&x| x),
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
        weights.row_mut_unchecked(v).copy_from_slice(&mean);
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
        &layers.coincident_groups(&scene.mesh),
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
/// solved as drawn). Layers that overlap instead of touching have no seam to join: see
/// [`super::overlap_consistent_weights`].
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
    weights.validate().map_err(|e| {
        Error::Solver(SolverError::Solver {
            solver: solver.name(),
            message: format!(
                "seam-consistent transfer produced invalid weights ({e}); this is a bug"
            ),
        })
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
        overlap: None,
        seconds: started.elapsed().as_secs_f64(),
    };
    Ok((weights, report))
}
