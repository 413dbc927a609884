//! **geodesic**: the shared falloff kernel on the shortest distance *inside the mesh*.
//!
//! For every bone, each vertex is seeded with its straight-line distance to the bone when
//! that segment stays inside the shape ([`Visibility`]) and with infinity otherwise; a
//! multi-source Dijkstra over the mesh edges then propagates the distance to every vertex.
//! Where the straight segment is inside the shape the geodesic distance *is* the Euclidean
//! one; elsewhere it goes around (a torso vertex reaches an arm bone only via the shoulder).
//!
//! Fallback: in a connected component where no vertex sees any bone, visibility is ignored
//! (every vertex seeded with its straight-line distance) and the report says so.

use super::dijkstra::multi_source_dijkstra;
use super::distance::{bone_segments, pin_distance, FalloffOptions};
use super::nearest::components_where_none;
use super::visibility::Visibility;
use super::{blind_warnings, finish, scene_extent, Solution, Solver};
use crate::error::Result;
use crate::scene::Scene;
use crate::weights::Weights;
use rayon::prelude::*;
use std::time::Instant;

/// Options of [`Geodesic`]: the shared falloff options ([`FalloffOptions`]).
pub type GeodesicOptions = FalloffOptions;

/// The geodesic solver.
#[derive(Debug, Clone, Default)]
pub struct Geodesic {
    /// Its options.
    pub options: GeodesicOptions,
}

impl Geodesic {
    /// A solver with these options.
    pub fn new(options: GeodesicOptions) -> Self {
        Geodesic { options }
    }
}

/// Seeds of bone `bone` for the multi-source Dijkstra: each vertex's straight-line distance
/// to the bone where that segment stays inside the shape, infinity elsewhere.
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn bone_seeds(scene: &Scene, visibility: &Visibility, bone: usize) -> Vec<f64> {
    let pts = scene.mesh.vertices();
    let s = scene.skeleton.bones()[bone].segment();
    let pin = pin_distance(scene_extent(scene));
    (0..pts.len())
        .into_par_iter()
        .map(|v| {
            let q = s.closest_point(&pts[v]);
            let d = (pts[v] - q).norm();
            if d <= pin || visibility.visible(v, &q) {
                d
            } else {
                f64::INFINITY
            }
        })
        .collect()
}

/// Geodesic distance from every vertex to every bone, one `Vec` per bone, and the
/// components where visibility had to be ignored.
pub fn geodesic_distances(scene: &Scene, visibility: &Visibility) -> (Vec<Vec<f64>>, Vec<usize>) {
    let mesh = &scene.mesh;
    let segments = bone_segments(scene.skeleton.bones());
    let pts = mesh.vertices();
    let comp = mesh.topology().component_of();
    let pin = pin_distance(scene_extent(scene));
    let column = |j: usize,
                  ignore: &(dyn Fn(usize) -> bool + Sync),
                  only: &(dyn Fn(usize) -> bool + Sync)| {
        let s = &segments[j];
        let seeds: Vec<f64> = (0..pts.len())
            .into_par_iter()
            .map(|v| {
                if !only(v) {
                    return f64::INFINITY;
                }
                let q = s.closest_point(&pts[v]);
                let d = (pts[v] - q).norm();
                if d <= pin || ignore(v) || visibility.visible(v, &q) {
                    d
                } else {
                    f64::INFINITY
                }
            })
            .collect();
        multi_source_dijkstra(mesh, &seeds)
    };
    let mut columns: Vec<Vec<f64>> = (0..segments.len())
        .into_par_iter()
        .map(|j| column(j, &|_| false, &|_| true))
        .collect();
    let blind = components_where_none(mesh, |v| columns.iter().any(|c| c[v].is_finite()));
    if !blind.is_empty() {
        let is_blind = |v: usize| blind.binary_search(&comp[v]).is_ok();
        let redo: Vec<Vec<f64>> = (0..segments.len())
            .into_par_iter()
            .map(|j| column(j, &|_| true, &is_blind))
            .collect();
        for (c, r) in columns.iter_mut().zip(redo) {
            for (v, d) in r.into_iter().enumerate() {
                if is_blind(v) {
                    c[v] = d;
                }
            }
        }
    }
    (columns, blind)
}

impl Solver for Geodesic {
    fn name(&self) -> String {
        "geodesic".into()
    }

    fn compute(&self, scene: &Scene) -> Result<Solution> {
        let started = Instant::now();
        let falloff = self.options.falloff(scene)?;
        let visibility = Visibility::new(&scene.mesh);
        let (columns, blind) = geodesic_distances(scene, &visibility);
        let nb = columns.len();
        // Every component reaches some bone (through the fallback), so no row is empty.
        let (data, _) = falloff.weights_from(scene.mesh.vertex_count(), nb, |v, row| {
            for (d, c) in row.iter_mut().zip(&columns) {
                *d = c[v];
            }
        });
        let weights = Weights::from_row_major(data, nb)?;
        finish(self.name(), started, weights, blind_warnings(scene, &blind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{builtin_scene, BuiltinOptions};

    #[test]
    fn geodesic_equals_euclidean_where_the_segment_stays_inside() {
        // Convex bar: every vertex sees every bone, so geodesic = Euclidean (within 3%).
        let s = builtin_scene("bar", &BuiltinOptions::default()).unwrap();
        let vis = Visibility::new(&s.mesh);
        let (geo, blind) = geodesic_distances(&s, &vis);
        assert!(blind.is_empty());
        for (j, b) in s.skeleton.bones().iter().enumerate() {
            let seg = b.segment();
            for (v, p) in s.mesh.vertices().iter().enumerate() {
                let e = seg.distance(p);
                assert!(
                    (geo[j][v] - e).abs() <= 0.03 * e.max(1e-9),
                    "bar: vertex {v} bone {j}: geodesic {} vs euclidean {e}",
                    geo[j][v]
                );
            }
        }
        // Arms-down: a torso vertex beside the arm must go round by the shoulder.
        let s = builtin_scene("arms-down", &BuiltinOptions::default()).unwrap();
        let vis = Visibility::new(&s.mesh);
        let (geo, _) = geodesic_distances(&s, &vis);
        let arm = s.skeleton.index_of("upper_arm_l").unwrap();
        let seg = s.skeleton.bones()[arm].segment();
        let torso = s.mesh.part_index("torso").unwrap();
        let (mut inside_equal, mut detours) = (0, 0);
        for (v, p) in s.mesh.vertices().iter().enumerate() {
            let e = seg.distance(p);
            if vis.visible(v, &seg.closest_point(p)) {
                assert!((geo[arm][v] - e).abs() <= 1e-9 * e.max(1.0), "vertex {v}");
                inside_equal += 1;
            }
            if s.mesh.vertex_parts()[v] == torso && p.x < -30.0 && p.y < 150.0 {
                // Beside the arm, below the shoulder: straight line crosses the gap.
                assert!(
                    !vis.visible(v, &seg.closest_point(p)),
                    "vertex {v} sees across the gap"
                );
                assert!(geo[arm][v] > e + 15.0, "vertex {v}: {} vs {e}", geo[arm][v]);
                detours += 1;
            }
        }
        assert!(
            inside_equal > 100 && detours > 50,
            "{inside_equal} {detours}"
        );
    }
}
