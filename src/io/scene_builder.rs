//! The scene an importer builds part by part: each part's vertices, triangles, painted
//! weights and art appended to one mesh, then the skeleton, the bones' parts and the
//! `lift_*` probes made once at the end. Written once for every importer that assembles
//! parts (Godot, DragonBones and Spine use it), instead of each keeping parallel vectors of
//! vertices, triangles, parts, weight rows and texture coordinates in step.

use crate::error::Result;
use crate::mesh::Mesh;
use crate::scene::{Art, ArtImage, Layer, Probe, SlotAttachment, Watch};
use crate::skeleton::{Bone, Pose, Skeleton};
use crate::weights::Weights;
use nalgebra::Point2;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;

/// Part names not used yet: `name`, or `name#2`, `name#3`... (a slot with several mesh
/// displays), in time linear in the number of parts.
#[derive(Default)]
pub(crate) struct UniqueNames {
    taken: HashSet<String>,
    /// Next suffix to try per name.
    next: HashMap<String, usize>,
}

impl UniqueNames {
    pub(crate) fn take(&mut self, name: &str) -> String {
        let k = self.next.entry(name.to_string()).or_insert(1);
        loop {
            let candidate = if *k == 1 {
                name.to_string()
            } else {
                format!("{name}#{k}")
            };
            *k += 1;
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
        }
    }
}

/// A part just added by [`SceneBuilder::add_part`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AddedPart {
    /// Index of the part in the mesh's parts.
    pub index: usize,
    /// Its name, made unique among the parts.
    pub name: String,
    /// Scene vertex indices of its vertices.
    pub vertices: Range<usize>,
}

/// A layer of the art before the layers are put in draw order.
struct PendingLayer {
    /// Draw order key: lower is drawn first; equal keys keep the parts' order.
    order: i64,
    part: usize,
    image: Option<usize>,
    slot: Option<SlotAttachment>,
}

/// How [`SceneBuilder::finish`] checks the assembled mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MeshCheck {
    /// [`Mesh::with_parts`]: a mesh that folds, repeats a triangle or leaves a vertex unused
    /// is an error (Godot and DragonBones meshes are drawn flat, so they must not).
    Strict,
    /// [`Mesh::from_artist`]: artist meshes that fold, overlap or leave vertices unused are
    /// kept (solvers use connectivity), what was repaired going to the notes.
    Artist,
}

/// One mesh made of parts (each a separate component), the painted weights of its vertices
/// (a dense vertices × bones matrix; entries start at 0) and, optionally, art.
pub(crate) struct SceneBuilder {
    n_bones: usize,
    check: MeshCheck,
    /// Whether the scene has art (set by [`SceneBuilder::add_image`] and
    /// [`SceneBuilder::with_art`]).
    has_art: bool,
    names: UniqueNames,
    vertices: Vec<Point2<f64>>,
    triangles: Vec<[usize; 3]>,
    vertex_parts: Vec<usize>,
    parts: Vec<String>,
    /// Row-major, `n_bones` entries per vertex.
    weights: Vec<f64>,
    images: Vec<ArtImage>,
    uvs: Vec<Point2<f64>>,
    layers: Vec<PendingLayer>,
}

/// What [`SceneBuilder::finish`] made: everything a [`crate::scene::Scene`] is built from.
pub(crate) struct BuiltScene {
    /// The parts as one mesh.
    pub mesh: Mesh,
    /// The bones, each given the part it weighs most ([`assign_parts`]).
    pub skeleton: Skeleton,
    /// `lift_*` probes where upper-arm bones are found by name ([`lift_probes`]).
    pub probes: Vec<Probe>,
    /// The painted weights, columns in the skeleton's bone order.
    pub artist: Weights,
    /// The art, when an image was added.
    pub art: Option<Art>,
}

impl SceneBuilder {
    /// An empty scene whose weights have `n_bones` columns; its mesh is checked strictly
    /// ([`Mesh::with_parts`]).
    pub(crate) fn new(n_bones: usize) -> Self {
        SceneBuilder {
            n_bones,
            check: MeshCheck::Strict,
            has_art: false,
            names: UniqueNames::default(),
            vertices: Vec::new(),
            triangles: Vec::new(),
            vertex_parts: Vec::new(),
            parts: Vec::new(),
            weights: Vec::new(),
            images: Vec::new(),
            uvs: Vec::new(),
            layers: Vec::new(),
        }
    }

    /// Like [`SceneBuilder::new`], for artist meshes: [`SceneBuilder::finish`] keeps meshes
    /// that fold, overlap or leave vertices unused ([`Mesh::from_artist`]) and notes what it
    /// repaired.
    pub(crate) fn for_artist_meshes(n_bones: usize) -> Self {
        SceneBuilder {
            check: MeshCheck::Artist,
            ..SceneBuilder::new(n_bones)
        }
    }

    /// The scene has art even if no image is added (an atlas without pages): every layer is
    /// then drawn flat.
    pub(crate) fn with_art(mut self) -> Self {
        self.has_art = true;
        self
    }

    /// Vertices added so far.
    pub(crate) fn vertex_count(&self) -> usize {
        self.vertices.len()
    }

    /// Parts added so far.
    pub(crate) fn part_count(&self) -> usize {
        self.parts.len()
    }

    /// `name`, or `name#2`, `name#3`... when a part has it: the name to give
    /// [`SceneBuilder::add_part`] (taken now, so that notes can name the part before it is
    /// added).
    pub(crate) fn unique_name(&mut self, name: &str) -> String {
        self.names.take(name)
    }

    /// Appends a part named `name` (from [`SceneBuilder::unique_name`]): `points` in the
    /// scene's frame and `triangles` indexing them (counter-clockwise; the mesh checks them
    /// in [`SceneBuilder::finish`]). Its weights start at 0.
    pub(crate) fn add_part(
        &mut self,
        name: String,
        points: Vec<Point2<f64>>,
        triangles: &[[usize; 3]],
    ) -> AddedPart {
        let index = self.parts.len();
        let first = self.vertices.len();
        self.triangles
            .extend(triangles.iter().map(|t| t.map(|v| v + first)));
        self.vertex_parts
            .extend(std::iter::repeat_n(index, points.len()));
        self.weights
            .extend(std::iter::repeat_n(0.0, points.len() * self.n_bones));
        self.vertices.extend(points);
        self.parts.push(name.clone());
        AddedPart {
            index,
            name,
            vertices: first..self.vertices.len(),
        }
    }

    /// Sets the weights of scene vertex `v` (one entry per bone).
    pub(crate) fn set_row(&mut self, v: usize, row: &[f64]) {
        self.weights[v * self.n_bones..(v + 1) * self.n_bones].copy_from_slice(row);
    }

    /// Adds `w` to the weight of scene vertex `v` on bone `bone` (a file may list a bone
    /// twice for one vertex).
    pub(crate) fn add_weight(&mut self, v: usize, bone: usize, w: f64) {
        self.weights[v * self.n_bones + bone] += w;
    }

    /// Adds an image to the art; returns its index for [`SceneBuilder::add_layer`].
    pub(crate) fn add_image(&mut self, image: ArtImage) -> usize {
        self.has_art = true;
        self.images.push(image);
        self.images.len() - 1
    }

    /// The art of part `part`: its vertices' texture coordinates (pixels of `image`, in the
    /// part's vertex order) and its place in the draw order (lower `order` drawn first, equal
    /// ones in the parts' order). Call once per part, in the parts' order.
    pub(crate) fn add_layer(
        &mut self,
        part: usize,
        uvs: impl IntoIterator<Item = Point2<f64>>,
        image: Option<usize>,
        order: i64,
    ) {
        self.uvs.extend(uvs);
        self.layers.push(PendingLayer {
            order,
            part,
            image,
            slot: None,
        });
    }

    /// Puts the layer last added ([`SceneBuilder::add_layer`]) in a rig's slot.
    pub(crate) fn set_layer_slot(&mut self, slot: SlotAttachment) {
        if let Some(l) = self.layers.last_mut() {
            l.slot = Some(slot);
        }
    }

    /// Divides every weight row by its sum ([`Weights::normalize`]).
    pub(crate) fn normalize_weights(&mut self) {
        if self.n_bones == 0 {
            return;
        }
        let mut w = Weights::from_row_major(std::mem::take(&mut self.weights), self.n_bones)
            .expect("one row of n_bones entries per vertex");
        w.normalize();
        self.weights = w.as_slice().to_vec();
    }

    /// The mesh (what [`Mesh::from_artist`] repaired noted in `notes`), the skeleton of
    /// `bones` (`order`: parents first) with each bone's part, the probes (noted in `notes`),
    /// the weights and the art (when it has art: the layers sorted by their order).
    pub(crate) fn finish(
        self,
        mut bones: Vec<Bone>,
        order: &[usize],
        notes: &mut Vec<String>,
    ) -> Result<BuiltScene> {
        let artist = if self.n_bones == 0 {
            Weights::zeros_unchecked(self.vertices.len(), 0)
        } else {
            Weights::from_row_major(self.weights, self.n_bones)?
        };
        let art = if !self.has_art {
            None
        } else {
            let mut layers = self.layers;
            // Stable: equal orders keep the parts' order.
            layers.sort_by_key(|l| (l.order, l.part));
            Some(Art {
                images: self.images,
                uvs: self.uvs,
                layers: layers
                    .into_iter()
                    .map(|l| Layer {
                        part: self.parts[l.part].clone(),
                        image: l.image,
                        slot: l.slot,
                    })
                    .collect(),
            })
        };
        let mesh = match self.check {
            MeshCheck::Strict => {
                Mesh::with_parts(self.vertices, self.triangles, self.parts, self.vertex_parts)?
            }
            MeshCheck::Artist => {
                let (mesh, repaired) = Mesh::from_artist(
                    self.vertices,
                    self.triangles,
                    self.parts,
                    self.vertex_parts,
                )?;
                notes.extend(repaired.messages());
                mesh
            }
        };
        assign_parts(&mut bones, order, &artist, &mesh);
        let skeleton = Skeleton::new(bones)?;
        let probes = lift_probes(&skeleton, &mesh, notes);
        Ok(BuiltScene {
            mesh,
            skeleton,
            probes,
            artist,
            art,
        })
    }
}

/// Interior edges that two counter-clockwise triangles traverse in the same direction:
/// both lie on the same side of the edge, so the mesh folds over itself there.
pub(crate) fn overlapping_edges(oriented: &[[usize; 3]]) -> usize {
    let mut directed: HashMap<(usize, usize), usize> = HashMap::new();
    for &[i, j, k] in oriented {
        for e in [(i, j), (j, k), (k, i)] {
            *directed.entry(e).or_default() += 1;
        }
    }
    directed.values().filter(|&&c| c > 1).count()
}

/// Sets each bone's `part` (see [`crate::io::dragonbones::import_dragonbones`] for the rule); `order` is parents
/// first.
pub(crate) fn assign_parts(bones: &mut [Bone], order: &[usize], artist: &Weights, mesh: &Mesh) {
    let n_parts = mesh.parts().len();
    let mut sizes = vec![0usize; n_parts];
    mesh.vertex_parts().iter().for_each(|&p| sizes[p] += 1);
    // Mean weight per vertex of each part: a bone that drives a small part entirely (the
    // head) beats one it touches over many vertices (the face).
    let mut totals = vec![vec![0.0; n_parts]; bones.len()];
    for (v, row) in artist.rows().enumerate() {
        let p = mesh.vertex_parts()[v];
        for (j, &w) in row.iter().enumerate() {
            totals[j][p] += w / sizes[p] as f64;
        }
    }
    let own: Vec<Option<usize>> = totals
        .iter()
        .map(|t| {
            (0..n_parts)
                .filter(|&p| t[p] > 0.0)
                .max_by(|&a, &b| t[a].total_cmp(&t[b]))
        })
        .collect();
    // Parents first, so a bone without weight takes its parent's (already resolved) part:
    // linear even in a deep chain.
    let mut part_of: Vec<Option<usize>> = vec![None; bones.len()];
    for &j in order {
        let part = own[j].or_else(|| bones[j].parent.and_then(|p| part_of[p]));
        part_of[j] = part;
        match part {
            Some(p) => bones[j].part = Some(mesh.parts()[p].clone()),
            None => bones[j].influences = Some(Vec::new()),
        }
    }
}

/// `lift_l` / `lift_r`: each upper-arm bone (name containing "upperarm" or "upper_arm")
/// rotated 90° about its head in the direction that takes its tail away from the
/// character's vertical centre line, watching the part of the arm's parent bone beyond one
/// upper-arm length from the shoulder.
pub(crate) fn lift_probes(skeleton: &Skeleton, mesh: &Mesh, notes: &mut Vec<String>) -> Vec<Probe> {
    let (lo, hi) = mesh.bounds();
    let centre_x = 0.5 * (lo.x + hi.x);
    let bones = skeleton.bones();
    let mut probes = BTreeMap::new();
    for b in bones {
        let lower = b.name.to_lowercase();
        if !(lower.contains("upperarm") || lower.contains("upper_arm")) {
            continue;
        }
        let side = if lower.ends_with("_l") || lower.ends_with(".l") {
            "l"
        } else if lower.ends_with("_r") || lower.ends_with(".r") {
            "r"
        } else if b.head.x < centre_x {
            "l"
        } else {
            "r"
        };
        let outward = |deg: f64| {
            let r = nalgebra::Rotation2::new(deg.to_radians());
            (b.head + r * (b.tail - b.head) - Point2::new(centre_x, b.head.y))
                .x
                .abs()
        };
        let degrees = if outward(-90.0) >= outward(90.0) {
            -90.0
        } else {
            90.0
        };
        let watch_part = b
            .parent
            .and_then(|p| bones[p].part.clone())
            .or_else(|| b.part.clone());
        let name = format!("lift_{side}");
        if probes.contains_key(&name) {
            notes.push(format!(
                "bone {:?} looks like a second {name} upper arm: no probe for it",
                b.name
            ));
            continue;
        }
        probes.insert(
            name.clone(),
            Probe {
                name,
                pose: Pose::rest().rotate(b.name.clone(), degrees),
                watch: Watch {
                    part: watch_part,
                    min_distance: Some(b.length()),
                    ..Watch::default()
                },
            },
        );
    }
    if probes.is_empty() {
        notes.push("no upper-arm bone found by name: no lift probes".into());
    }
    probes.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_offset_and_weights_start_at_zero() {
        let mut b = SceneBuilder::new(2);
        let tri = [[0, 1, 2]];
        let pts = |x: f64| {
            vec![
                Point2::new(x, 0.0),
                Point2::new(x + 1.0, 0.0),
                Point2::new(x, 1.0),
            ]
        };
        let name = b.unique_name("arm");
        let a = b.add_part(name, pts(0.0), &tri);
        let name = b.unique_name("arm");
        let c = b.add_part(name, pts(5.0), &tri);
        assert_eq!((a.index, a.name.as_str(), a.vertices), (0, "arm", 0..3));
        assert_eq!((c.index, c.name.as_str(), c.vertices), (1, "arm#2", 3..6));
        b.set_row(0, &[0.25, 0.75]);
        b.add_weight(4, 1, 0.5);
        b.add_weight(4, 1, 0.25);
        let bones = vec![
            Bone::new("a", Point2::new(0.0, 0.0), Point2::new(1.0, 0.0)),
            Bone::new("b", Point2::new(5.0, 0.0), Point2::new(6.0, 0.0)),
        ];
        let built = b.finish(bones, &[0, 1], &mut Vec::new()).unwrap();
        assert_eq!(built.mesh.triangles()[1], [3, 4, 5]);
        assert_eq!(built.artist.row(0), &[0.25, 0.75]);
        assert_eq!(built.artist.row(4), &[0.0, 0.75]);
        assert_eq!(built.artist.row(1), &[0.0, 0.0]);
        assert!(built.art.is_none());
    }

    #[test]
    fn artist_meshes_keep_unused_vertices_with_a_note_and_strict_ones_refuse_them() {
        // A triangle and a vertex no triangle uses.
        let pts = vec![
            Point2::new(0.0, 0.0),
            Point2::new(1.0, 0.0),
            Point2::new(0.0, 1.0),
            Point2::new(5.0, 5.0),
        ];
        let bones = || vec![Bone::new("a", Point2::new(0.0, 0.0), Point2::new(1.0, 0.0))];
        let mut strict = SceneBuilder::new(1);
        let name = strict.unique_name("body");
        strict.add_part(name, pts.clone(), &[[0, 1, 2]]);
        assert!(strict.finish(bones(), &[0], &mut Vec::new()).is_err());

        let mut artist = SceneBuilder::for_artist_meshes(1).with_art();
        let name = artist.unique_name("body");
        let part = artist.add_part(name, pts, &[[0, 1, 2]]);
        artist.add_layer(part.index, vec![Point2::origin(); 4], None, 0);
        let mut notes = Vec::new();
        let built = artist.finish(bones(), &[0], &mut notes).unwrap();
        assert_eq!(built.mesh.vertex_count(), 4);
        assert!(
            notes
                .iter()
                .any(|n| n.contains("unused") || n.contains("no triangle")),
            "{notes:?}"
        );
        // Art without images: every layer drawn flat, none lost.
        let art = built.art.expect("with_art keeps the art without images");
        assert_eq!((art.images.len(), art.layers.len()), (0, 1));
    }
}
