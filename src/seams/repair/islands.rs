//! Tiny components (the asset lab's repair): mesh islands under an area threshold join the
//! neighbour with the closest colour, and holes under it are closed.

use super::layers::check_amount;
use crate::error::Result;
use crate::geometry::loop_area;
use crate::mesh::{mesh_outline, Mesh, MeshingOptions, Outline};
use crate::scene::Scene;
use nalgebra::Point2;
use std::collections::HashMap;

/// What [`merge_tiny_components`] changed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IslandReport {
    /// The area threshold, px^2.
    pub area: f64,
    /// Islands relabelled into a neighbour's part.
    pub merged: Vec<MergedIsland>,
    /// Islands under the threshold already labelled with their chosen neighbour's part
    /// (nothing to relabel).
    pub already_same_part: usize,
    /// Islands under the threshold left alone: the only piece of their part (merging would
    /// drop a part label), or no neighbour drawn with the same image.
    pub kept: Vec<String>,
    /// Holes under the threshold closed with triangles over their own boundary vertices.
    pub holes_closed: usize,
    /// Their total area, px^2.
    pub hole_area_closed: f64,
}

/// One merged island.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedIsland {
    /// Its vertices.
    pub vertices: usize,
    /// Its area, px^2.
    pub area: f64,
    /// The part it had.
    pub from: String,
    /// The part it joined.
    pub into: String,
    /// Distance to that neighbour, px.
    pub distance: f64,
    /// Colour distance to that neighbour (RGB in 0..1, Euclidean), when the art was read.
    pub colour_distance: Option<f64>,
}

/// Merges mesh islands (connected components) smaller than `area` (px^2) into the
/// neighbouring component with the closest colour, and closes holes smaller than `area`.
/// `colours` is the colour (RGBA in 0..1) of every vertex, or none: then the nearest
/// neighbour wins. The art's colours (the layers' texture colours at the vertices' texture
/// coordinates) are [`crate::render::vertex_colours`] (feature `io`); the `repair` command
/// passes them.
///
/// - An island is a connected component with area below `area`. Its neighbours are the other
///   components (islands merged in this call excluded) drawn with the same image (so its
///   texture coordinates stay meaningful); among those within `sqrt(area)` of the nearest,
///   the one whose mean colour is closest to the island's wins (the nearest without colours).
///   The island's vertices take that neighbour's part, so it is drawn in that layer and
///   skinned with it. An island that is the only piece of its part is kept (no layer loses
///   its part label).
/// - A hole is a boundary loop turning clockwise (interior outside) enclosing less than
///   `area`; it is closed by a constrained triangulation of its own vertices (no new
///   vertices, texture coordinates untouched).
///
/// Errors: `area` negative or not finite; colours of the wrong length.
pub fn merge_tiny_components(
    scene: &Scene,
    area: f64,
    colours: Option<&[[f64; 4]]>,
) -> Result<(Scene, IslandReport)> {
    let threshold = check_amount("island area", area)?;
    let mesh = &scene.mesh;
    let n = mesh.vertex_count();
    if let Some(c) = colours {
        if c.len() != n {
            return Err(crate::ArtError::VertexColours {
                given: c.len(),
                vertices: n,
            }
            .into());
        }
    }
    let comps = Components::of(scene, colours);
    let mut report = IslandReport {
        area: threshold,
        ..IslandReport::default()
    };
    let mut vertex_parts = mesh.vertex_parts().to_vec();
    let mut merged = vec![false; comps.count()];
    let mut order: Vec<usize> = (0..comps.count())
        .filter(|&c| comps.area[c] < threshold)
        .collect();
    order.sort_by(|&a, &b| comps.area[a].total_cmp(&comps.area[b]));
    for &c in &order {
        let Some((best, distance)) = comps.neighbour(c, &merged, threshold, &mut report.kept)
        else {
            continue;
        };
        merged[c] = true;
        if comps.parts[best] == comps.parts[c] {
            report.already_same_part += 1;
            continue;
        }
        for &v in &comps.members[c] {
            vertex_parts[v] = comps.parts[best];
        }
        report.merged.push(MergedIsland {
            vertices: comps.members[c].len(),
            area: comps.area[c],
            from: mesh.parts()[comps.parts[c]].clone(),
            into: mesh.parts()[comps.parts[best]].clone(),
            distance,
            colour_distance: comps.colour_distance(comps.mean_colour(c), best),
        });
    }
    let mut triangles = mesh.triangles().to_vec();
    close_holes(mesh, threshold, &mut triangles, &mut report);
    let pts = mesh.vertices();
    let out = super::layers::rebuild(scene, pts.to_vec(), triangles, vertex_parts, None)?;
    Ok((out, report))
}

/// The mesh's connected components as the merge sees them.
struct Components<'a> {
    pts: &'a [Point2<f64>],
    /// Area of each, px^2.
    area: Vec<f64>,
    /// Vertices of each.
    members: Vec<Vec<usize>>,
    /// Majority part of each.
    parts: Vec<usize>,
    /// Image of each part (none without art).
    images: Option<Vec<Option<usize>>>,
    /// Boundary-loop vertices of each.
    boundary_of: Vec<Vec<usize>>,
    colours: Option<&'a [[f64; 4]]>,
    /// The mesh's part names.
    part_names: &'a [String],
}

impl<'a> Components<'a> {
    fn of(scene: &'a Scene, colours: Option<&'a [[f64; 4]]>) -> Self {
        let mesh = &scene.mesh;
        let topo = mesh.topology();
        let comp = topo.component_of();
        let count = topo.component_count();
        let mut area = vec![0.0; count];
        for (t, tri) in mesh.triangles().iter().enumerate() {
            area[comp[tri[0]]] += 0.5 * mesh.triangle_area2(t);
        }
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); count];
        for v in 0..mesh.vertex_count() {
            members[comp[v]].push(v);
        }
        let parts = (0..count)
            .map(|c| majority(members[c].iter().map(|&v| mesh.vertex_parts()[v])))
            .collect();
        let mut boundary_of: Vec<Vec<usize>> = vec![Vec::new(); count];
        for lp in topo.boundary_loops() {
            for &v in lp {
                boundary_of[comp[v]].push(v);
            }
        }
        Components {
            pts: mesh.vertices(),
            area,
            members,
            parts,
            images: scene.art.as_ref().map(|a| a.image_of_part(mesh.parts())),
            boundary_of,
            colours,
            part_names: mesh.parts(),
        }
    }

    fn count(&self) -> usize {
        self.area.len()
    }

    fn image_of(&self, p: usize) -> Option<Option<usize>> {
        self.images.as_ref().map(|i| i[p])
    }

    /// Alpha-weighted mean colour (RGB) of component `c`, when colours were given.
    fn mean_colour(&self, c: usize) -> Option<[f64; 3]> {
        let cs = self.colours?;
        let (mut sum, mut weight) = ([0.0; 3], 0.0);
        for &v in &self.members[c] {
            let a = cs[v][3].max(1e-6);
            for k in 0..3 {
                sum[k] += a * cs[v][k];
            }
            weight += a;
        }
        Some(sum.map(|s| s / weight))
    }

    /// Distance from colour `own` (a component's mean) to component `d`'s mean colour.
    fn colour_distance(&self, own: Option<[f64; 3]>, d: usize) -> Option<f64> {
        let (a, b) = (own?, self.mean_colour(d)?);
        Some((0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt())
    }

    /// The neighbour island `c` joins and its distance: among the components not merged
    /// yet drawn with the same image, those within `sqrt(threshold)` of the nearest, the
    /// closest colour (then the nearest). `None` (with the reason in `kept`) when `c` is the
    /// only piece of its part or has no such neighbour.
    fn neighbour(
        &self,
        c: usize,
        merged: &[bool],
        threshold: f64,
        kept: &mut Vec<String>,
    ) -> Option<(usize, f64)> {
        let count = self.count();
        let others_of_part = (0..count)
            .filter(|&d| d != c && !merged[d] && self.parts[d] == self.parts[c])
            .count();
        let island = |what: String| {
            format!(
                "island of {} vertices ({:.2} px^2) {what}",
                self.members[c].len(),
                self.area[c]
            )
        };
        if others_of_part == 0 {
            kept.push(island(format!(
                "is the only piece of part {:?}",
                self.name(c)
            )));
            return None;
        }
        let candidates: Vec<(usize, f64)> = (0..count)
            .filter(|&d| {
                d != c && !merged[d] && self.image_of(self.parts[d]) == self.image_of(self.parts[c])
            })
            .map(|d| (d, self.distance(c, d)))
            .collect();
        let Some(nearest) = candidates.iter().map(|c| c.1).reduce(f64::min) else {
            kept.push(island(format!(
                "of part {:?} has no neighbour drawn with the same image",
                self.name(c)
            )));
            return None;
        };
        let reach = nearest + threshold.sqrt();
        let own = self.mean_colour(c);
        let colour_distance = |d: usize| self.colour_distance(own, d);
        let &best = candidates
            .iter()
            .filter(|&&(_, dist)| dist <= reach)
            .min_by(|x, y| {
                let key = |&(d, dist): &(usize, f64)| (colour_distance(d).unwrap_or(0.0), dist);
                let (a, b) = (key(x), key(y));
                a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1))
            })
            .expect("the nearest candidate is within reach");
        Some(best)
    }

    /// Part name of component `c`.
    fn name(&self, c: usize) -> &str {
        &self.part_names[self.parts[c]]
    }

    /// Distance from component `c`'s vertices to component `d`'s boundary.
    fn distance(&self, c: usize, d: usize) -> f64 {
        self.members[c]
            .iter()
            .flat_map(|&v| {
                self.boundary_of[d]
                    .iter()
                    .map(move |&w| (self.pts[v] - self.pts[w]).norm())
            })
            .fold(f64::INFINITY, f64::min)
    }
}

/// Closes holes: clockwise boundary loops enclosing less than `threshold`, filled over
/// their own vertices (counted in the report).
fn close_holes(
    mesh: &Mesh,
    threshold: f64,
    triangles: &mut Vec<[usize; 3]>,
    report: &mut IslandReport,
) {
    let pts = mesh.vertices();
    for lp in mesh.topology().boundary_loops() {
        let ring: Vec<Point2<f64>> = lp.iter().map(|&v| pts[v]).collect();
        let a = loop_area(&ring);
        if a >= 0.0 || -a >= threshold {
            continue;
        }
        if let Some(fill) = fill_hole(lp, pts) {
            triangles.extend(fill);
            report.holes_closed += 1;
            report.hole_area_closed += -a;
        }
    }
}

/// Triangles (counter-clockwise, over the loop's own vertices) covering a hole loop, or
/// `None` when the triangulation needed new vertices or failed.
fn fill_hole(lp: &[usize], pts: &[Point2<f64>]) -> Option<Vec<[usize; 3]>> {
    let ring: Vec<Point2<f64>> = lp.iter().map(|&v| pts[v]).collect();
    let options = MeshingOptions::default()
        .with_max_area(Some(f64::MAX / 4.0))
        .with_min_angle_deg(0.0);
    let outline = Outline {
        loops: vec![ring.clone()],
        segments: Vec::new(),
    };
    let (v, t, _) = mesh_outline(&outline, &options).ok()?;
    let index: HashMap<(u64, u64), usize> = ring
        .iter()
        .zip(lp)
        .map(|(p, &i)| ((p.x.to_bits(), p.y.to_bits()), i))
        .collect();
    let map: Option<Vec<usize>> = v
        .iter()
        .map(|p| index.get(&(p.x.to_bits(), p.y.to_bits())).copied())
        .collect();
    let map = map?;
    Some(t.into_iter().map(|tri| tri.map(|i| map[i])).collect())
}

fn majority(values: impl Iterator<Item = usize>) -> usize {
    let mut count: HashMap<usize, usize> = HashMap::new();
    for v in values {
        *count.entry(v).or_default() += 1;
    }
    count
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map_or(0, |(v, _)| v)
}
