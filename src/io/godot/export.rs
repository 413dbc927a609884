//! A scene and its weights → a Godot 3 or 4 `.tscn`: a Skeleton2D with Bone2D rest poses and
//! one skinned Polygon2D per part.

use super::values::{affine_columns, affine_from_parts, inverse_by_cofactors};
use crate::error::{Error, Result, SolverError};
use crate::scene::Scene;
use crate::skeleton::{Affine2, Bone};
use crate::skinning::check_shape;
use crate::weights::{Weights, EXPORT_ROW_SUM_TOLERANCE};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// One Polygon2D of the export: the part and the scene vertices it holds, in the order
/// written (outline first, then the other vertices), with its triangles in that numbering.
#[derive(Debug, Clone, PartialEq)]
pub struct PolygonOrder {
    /// Part index in the scene's mesh.
    pub part: usize,
    /// Scene vertex index of each written point.
    pub vertices: Vec<usize>,
    /// Points of the outline (the first `outline` entries of `vertices`); the rest are
    /// written as internal vertices.
    pub outline: usize,
    /// Triangles in point indices.
    pub triangles: Vec<[usize; 3]>,
}

/// How the Godot export lays out the polygons: one per part with triangles, in draw order
/// (the art's layers back to front, else part order).
///
/// A triangle goes to the part most of its corners belong to (ties: the first corner's), and
/// a polygon holds the vertices its triangles use, so a vertex on a seam between parts is
/// written once per polygon that uses it. The outline is the longest boundary loop of the
/// polygon's triangles; other vertices (inside, or on other loops) follow in scene order.
pub fn godot_vertex_order(scene: &Scene) -> Vec<PolygonOrder> {
    let mesh = &scene.mesh;
    let vp = mesh.vertex_parts();
    let mut part_triangles: Vec<Vec<[usize; 3]>> = vec![Vec::new(); mesh.parts().len()];
    for &t in mesh.triangles() {
        let [a, b, c] = t.map(|v| vp[v]);
        part_triangles[if b == c { b } else { a }].push(t);
    }
    let order: Vec<usize> = match &scene.art {
        Some(art) => art
            .layers
            .iter()
            .filter_map(|l| mesh.part_index(&l.part))
            .collect(),
        None => (0..mesh.parts().len()).collect(),
    };
    let mut out = Vec::new();
    for p in order {
        let tris = &part_triangles[p];
        if tris.is_empty() {
            continue;
        }
        let outline = longest_boundary_loop(tris);
        let on_outline: HashSet<usize> = outline.iter().copied().collect();
        let mut rest: Vec<usize> = tris
            .iter()
            .flatten()
            .copied()
            .filter(|v| !on_outline.contains(v))
            .collect();
        rest.sort_unstable();
        rest.dedup();
        let mut vertices = outline.clone();
        vertices.extend(rest);
        let index: HashMap<usize, usize> =
            vertices.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        out.push(PolygonOrder {
            part: p,
            outline: outline.len(),
            triangles: tris.iter().map(|t| t.map(|v| index[&v])).collect(),
            vertices,
        });
    }
    out
}

/// The longest closed chain of boundary edges (edges used by one triangle), following the
/// triangles' counter-clockwise direction.
fn longest_boundary_loop(tris: &[[usize; 3]]) -> Vec<usize> {
    let mut directed: HashSet<(usize, usize)> = HashSet::new();
    for &[a, b, c] in tris {
        directed.extend([(a, b), (b, c), (c, a)]);
    }
    let mut next: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut starts: Vec<usize> = Vec::new();
    for &(a, b) in &directed {
        if !directed.contains(&(b, a)) {
            next.entry(a).or_default().push(b);
            starts.push(a);
        }
    }
    starts.sort_unstable();
    next.values_mut().for_each(|v| v.sort_unstable());
    let mut best: Vec<usize> = Vec::new();
    for s in starts {
        let mut chain = vec![s];
        let mut at = s;
        while let Some(n) = next.get_mut(&at).and_then(|v| v.pop()) {
            if n == s {
                break;
            }
            chain.push(n);
            at = n;
        }
        if chain.len() > best.len() {
            best = chain;
        }
    }
    best
}

/// Characters Godot does not allow in node names.
const INVALID_NAME_CHARS: &[char] = &['.', ':', '@', '/', '"', '%'];

fn node_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if INVALID_NAME_CHARS.contains(&c) {
                '_'
            } else {
                c
            }
        })
        .collect();
    if s.is_empty() {
        "_".into()
    } else {
        s
    }
}

/// A number as Godot reads it back exactly: the shortest decimal that round-trips, with an
/// exponent for tiny values (no 300-digit fractions), and zero always as `0` (never `-0`).
pub(super) fn num(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x.abs() < 1e-4 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

pub(super) fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Writes `scene` and `weights` as a Godot `.tscn` for Godot 3 (`godot = 3`: `format=2`,
/// `PoolVector2Array`, integer resource ids) or Godot 4 (`godot = 4`: `format=3`,
/// `PackedVector2Array`, string ids).
///
/// - Root `Node2D` named after the scene; under it a `Skeleton2D` (identity transform) with
///   the bones as nested `Bone2D` nodes: `rest` = the rest skeleton (each bone's frame, x
///   axis along the bone, relative to its parent's, y-down), `position`/`rotation` the same
///   so that the scene opens in its rest pose; Godot 4 bones also get
///   `auto_calculate_length_and_angle = false`, `length` and `bone_angle = 0`, Godot 3 bones
///   `default_length` (Godot 3 points a bone with children at its first child).
/// - One `Polygon2D` per part ([`godot_vertex_order`]), a sibling of the Skeleton2D with an
///   identity transform: `polygon` (outline first, then `internal_vertex_count` other
///   points), `polygons` (one triangle each), `bones` (every bone, as Godot expects: its
///   path below the skeleton and one weight per point), `skeleton = NodePath("../Skeleton2D")`,
///   and, when the scene has art, `texture` (an `ext_resource` `res://FILE`, the image's
///   file name: put the image beside the scene) and `uv`.
/// - Node names have Godot's forbidden characters (`. : @ / " %`) replaced by `_`.
///
/// Errors: `godot` other than 3 or 4 ([`SolverError::InvalidOption`]), weights of the wrong shape
/// ([`WeightsError::WeightsShape`](crate::error::WeightsError::WeightsShape)) or invalid ([`WeightsError::InvalidWeight`](crate::error::WeightsError::InvalidWeight), [`WeightsError::RowSum`](crate::error::WeightsError::RowSum) beyond
/// 1e-6), two bones or parts whose names collide after replacing those characters.
pub(crate) fn export_godot(scene: &Scene, weights: &Weights, godot: u32) -> Result<String> {
    if godot != 3 && godot != 4 {
        return Err(SolverError::InvalidOption {
            option: "godot".into(),
            message: format!("{godot}: expected 3 or 4"),
        }
        .into());
    }
    let bones = scene.skeleton.bones();
    check_shape(scene.mesh.vertex_count(), weights, bones.len())?;
    weights.validate_with_tolerance(EXPORT_ROW_SUM_TOLERANCE)?;
    let paths = bone_paths(bones)?;
    // Rest frames in the y-down skeleton frame.
    let world: Vec<Affine2> = bones
        .iter()
        .map(|b| {
            let d = b.tail - b.head;
            affine_from_parts([b.head.x, -b.head.y], -d.y.atan2(d.x), [1.0, 1.0], 0.0)
        })
        .collect();
    let polygons = godot_vertex_order(scene);
    let mut w = TscnWriter {
        s: String::new(),
        scene,
        weights,
        g4: godot == 4,
        images: texture_images(scene, &polygons),
        paths,
        world,
    };
    // Clips: Animation sub-resources (and a Godot 4 AnimationLibrary) before the nodes.
    let rests: Vec<([f64; 2], f64)> = (0..bones.len())
        .map(|j| {
            let [xx, xy, _, _, ox, oy] = affine_columns(&w.local_rest(j));
            ([ox, oy], xy.atan2(xx))
        })
        .collect();
    let player_paths: Vec<String> = w.paths.iter().map(|p| format!("Skeleton2D/{p}")).collect();
    let (animations, entries) = super::clips::write_clips(
        &scene.clips,
        &scene.skeleton,
        &player_paths,
        &rests,
        w.g4,
        1,
    )?;
    w.header(&entries);
    w.s.push_str(&animations);
    w.library(&entries);
    w.skeleton_nodes();
    let mut part_names: HashSet<String> = HashSet::new();
    part_names.insert("Skeleton2D".into());
    if !entries.is_empty() {
        part_names.insert("AnimationPlayer".into());
    }
    for poly in &polygons {
        w.polygon_node(poly, &mut part_names)?;
    }
    w.animation_player(&entries);
    Ok(w.s)
}

/// Each bone's node path below the skeleton; two bones whose paths collide (names that
/// differ only in characters Godot replaces) are an error.
fn bone_paths(bones: &[Bone]) -> Result<Vec<String>> {
    let mut paths: Vec<String> = Vec::with_capacity(bones.len());
    let mut taken: HashSet<String> = HashSet::new();
    for b in bones {
        let own = node_name(&b.name);
        let path = match b.parent {
            Some(p) => format!("{}/{own}", paths[p]),
            None => own,
        };
        if !taken.insert(path.clone()) {
            return Err(Error::field(
                format!("bone {:?}", b.name),
                format!("its Godot node path {path:?} is taken by another bone (names differ only in . : @ / \" %)"),
            ));
        }
        paths.push(path);
    }
    Ok(paths)
}

/// The image of each part's layer (none without art).
fn layer_image(scene: &Scene, part: &str) -> Option<usize> {
    let art = scene.art.as_ref()?;
    art.layers
        .iter()
        .find(|l| l.part == part)
        .and_then(|l| l.image)
}

/// The art images the polygons use, in the order first used (each an `ext_resource`).
fn texture_images(scene: &Scene, polygons: &[PolygonOrder]) -> Vec<usize> {
    let mut images: Vec<usize> = Vec::new();
    for poly in polygons {
        if let Some(k) = layer_image(scene, &scene.mesh.parts()[poly.part]) {
            if !images.contains(&k) {
                images.push(k);
            }
        }
    }
    images
}

/// The `.tscn` text being written, and what its sections share.
struct TscnWriter<'a> {
    s: String,
    scene: &'a Scene,
    weights: &'a Weights,
    /// Godot 4 (else 3).
    g4: bool,
    /// Art images written as `ext_resource`s, in id order.
    images: Vec<usize>,
    /// Bone node paths below the skeleton.
    paths: Vec<String>,
    /// Bone rest frames in the skeleton's y-down frame.
    world: Vec<Affine2>,
}

impl TscnWriter<'_> {
    /// The resource id of art image `k`.
    fn res_id(&self, k: usize) -> String {
        let i = self.images.iter().position(|&x| x == k).unwrap_or(0) + 1;
        if self.g4 {
            format!("\"{i}\"")
        } else {
            i.to_string()
        }
    }

    /// The packed array type names: vectors, integers, floats.
    fn arrays(&self) -> (&'static str, &'static str, &'static str) {
        if self.g4 {
            (
                "PackedVector2Array",
                "PackedInt32Array",
                "PackedFloat32Array",
            )
        } else {
            ("PoolVector2Array", "PoolIntArray", "PoolRealArray")
        }
    }

    /// Bone `j`'s rest frame relative to its parent's.
    fn local_rest(&self, j: usize) -> Affine2 {
        match self.scene.skeleton.bones()[j].parent {
            // Rest frames are rotations: always invertible.
            Some(p) => {
                inverse_by_cofactors(&self.world[p]).unwrap_or(Affine2::IDENTITY) * self.world[j]
            }
            None => self.world[j],
        }
    }

    /// `[gd_scene]` and the texture `ext_resource`s.
    fn header(&mut self, entries: &[(String, String)]) {
        let library = self.g4 && !entries.is_empty();
        let _ = writeln!(
            self.s,
            "[gd_scene load_steps={} format={}]\n",
            self.images.len() + 1 + entries.len() + usize::from(library),
            if self.g4 { 3 } else { 2 }
        );
        let Some(art) = &self.scene.art else { return };
        for &k in &self.images {
            let file = art.images[k]
                .path
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| art.images[k].name.clone());
            let path = quoted(&format!("res://{file}"));
            let id = self.res_id(k);
            let _ = if self.g4 {
                writeln!(
                    self.s,
                    "[ext_resource type=\"Texture2D\" path={path} id={id}]"
                )
            } else {
                writeln!(
                    self.s,
                    "[ext_resource path={path} type=\"Texture\" id={id}]"
                )
            };
        }
        if !self.images.is_empty() {
            self.s.push('\n');
        }
    }

    /// Godot 4's AnimationLibrary of the clips (`entries`: name, sub-resource id).
    fn library(&mut self, entries: &[(String, String)]) {
        if !self.g4 || entries.is_empty() {
            return;
        }
        let data: Vec<String> = entries
            .iter()
            .map(|(name, id)| format!("{}: SubResource({id})", quoted(name)))
            .collect();
        let _ = writeln!(
            self.s,
            "[sub_resource type=\"AnimationLibrary\" id=\"library\"]\n_data = {{\n{}\n}}\n",
            data.join(",\n")
        );
    }

    /// The root node, the Skeleton2D and a Bone2D per bone in its rest pose.
    fn skeleton_nodes(&mut self) {
        let _ = writeln!(
            self.s,
            "[node name={} type=\"Node2D\"]\n",
            quoted(&node_name(&self.scene.name))
        );
        let _ = writeln!(
            self.s,
            "[node name=\"Skeleton2D\" type=\"Skeleton2D\" parent=\".\"]\n"
        );
        for (j, b) in self.scene.skeleton.bones().iter().enumerate() {
            let parent = match b.parent {
                Some(p) => format!("Skeleton2D/{}", self.paths[p]),
                None => "Skeleton2D".into(),
            };
            let [xx, xy, yx, yy, ox, oy] = affine_columns(&self.local_rest(j));
            let s = &mut self.s;
            let _ = writeln!(
                s,
                "[node name={} type=\"Bone2D\" parent={}]",
                quoted(&node_name(&b.name)),
                quoted(&parent)
            );
            let _ = writeln!(s, "position = Vector2({}, {})", num(ox), num(oy));
            let _ = writeln!(s, "rotation = {}", num(xy.atan2(xx)));
            let _ = writeln!(
                s,
                "rest = Transform2D({}, {}, {}, {}, {}, {})",
                num(xx),
                num(xy),
                num(yx),
                num(yy),
                num(ox),
                num(oy)
            );
            if self.g4 {
                let _ = writeln!(s, "auto_calculate_length_and_angle = false");
                let _ = writeln!(s, "length = {}", num(b.length()));
                let _ = writeln!(s, "bone_angle = 0.0");
            } else {
                let _ = writeln!(s, "default_length = {}", num(b.length()));
            }
            s.push('\n');
        }
    }

    /// One Polygon2D; its node name must not be in `taken` (then it is).
    fn polygon_node(&mut self, poly: &PolygonOrder, taken: &mut HashSet<String>) -> Result<()> {
        let (scene, mesh) = (self.scene, &self.scene.mesh);
        let part = &mesh.parts()[poly.part];
        let name = node_name(part);
        if !taken.insert(name.clone()) {
            return Err(Error::field(
                format!("part {part:?}"),
                format!("its Godot node name {name:?} is taken (by the skeleton or another part)"),
            ));
        }
        let (vec_array, int_array, _) = self.arrays();
        let texture = layer_image(scene, part).map(|k| self.res_id(k));
        let s = &mut self.s;
        let _ = writeln!(
            s,
            "[node name={} type=\"Polygon2D\" parent=\".\"]",
            quoted(&name)
        );
        if let Some(id) = texture {
            let _ = if self.g4 {
                writeln!(s, "texture = ExtResource({id})")
            } else {
                writeln!(s, "texture = ExtResource( {id} )")
            };
        }
        let _ = writeln!(s, "skeleton = NodePath(\"../Skeleton2D\")");
        let points: Vec<String> = poly
            .vertices
            .iter()
            .map(|&v| {
                let p = mesh.vertices()[v];
                format!("{}, {}", num(p.x), num(-p.y))
            })
            .collect();
        let _ = writeln!(s, "polygon = {vec_array}({})", points.join(", "));
        if let Some(art) = &scene.art {
            let uvs: Vec<String> = poly
                .vertices
                .iter()
                .map(|&v| format!("{}, {}", num(art.uvs[v].x), num(art.uvs[v].y)))
                .collect();
            let _ = writeln!(s, "uv = {vec_array}({})", uvs.join(", "));
        }
        let tris: Vec<String> = poly
            .triangles
            .iter()
            .map(|[a, b, c]| format!("{int_array}({a}, {b}, {c})"))
            .collect();
        let _ = writeln!(s, "polygons = [{}]", tris.join(", "));
        let bones = self.bone_weights(poly);
        let _ = writeln!(self.s, "bones = [{bones}]");
        let _ = writeln!(
            self.s,
            "internal_vertex_count = {}\n",
            poly.vertices.len() - poly.outline
        );
        Ok(())
    }

    /// A polygon's `bones` entries: every bone's path and one weight per point.
    fn bone_weights(&self, poly: &PolygonOrder) -> String {
        let (_, _, float_array) = self.arrays();
        let entries: Vec<String> = (0..self.paths.len())
            .map(|j| {
                let w: Vec<String> = poly
                    .vertices
                    .iter()
                    .map(|&v| num(self.weights.get(v, j)))
                    .collect();
                let path = if self.g4 {
                    quoted(&self.paths[j])
                } else {
                    format!("NodePath({})", quoted(&self.paths[j]))
                };
                format!("{path}, {float_array}({})", w.join(", "))
            })
            .collect();
        entries.join(", ")
    }

    /// The AnimationPlayer holding the clips (none without clips).
    fn animation_player(&mut self, entries: &[(String, String)]) {
        if entries.is_empty() {
            return;
        }
        let s = &mut self.s;
        let _ = writeln!(
            s,
            "[node name=\"AnimationPlayer\" type=\"AnimationPlayer\" parent=\".\"]"
        );
        if self.g4 {
            let _ = writeln!(s, "libraries = {{\n\"\": SubResource(\"library\")\n}}");
        } else {
            for (name, id) in entries {
                let _ = writeln!(s, "anims/{name} = SubResource( {id} )");
            }
        }
        s.push('\n');
    }
}
