//! A Godot `.tscn` with a Skeleton2D and Polygon2D nodes → one [`Scene`] with a part per
//! Polygon2D, its art, and the painted weights.

use super::clips::{BoneFrame, NodeRef};
use super::triangulate::{ear_clip, insert_points};
use super::tscn::{parse_tscn, section_name, Section, Value};
use super::values::{
    affine_from_parts, apply, each_resource_ref, inverse_by_cofactors, resource_id, resource_ref,
    At,
};
use crate::error::{Error, FormatError, Result};
use crate::io::mesh_parts::ZERO_LENGTH_TAIL;
use crate::io::scene_builder::SceneBuilder;
use crate::mesh::Mesh;
use crate::scene::{AlphaMode, ArtImage, Scene};
use crate::skeleton::{Affine2, Bone, Skeleton};
use nalgebra::Point2;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Largest coordinate (px) accepted for a vertex or bone after placing it in the skeleton's
/// frame (as for DragonBones: beyond it a number is a corrupt file).
const MAX_COORDINATE: f64 = 1e6;

/// Bone length Godot uses when nothing else gives one (`Bone2D.length` / Godot 3
/// `default_length` default).
const GODOT_DEFAULT_BONE_LENGTH: f64 = 16.0;

/// A row whose weights sum to within this of 1 is left as it is (not counted as
/// renormalized).
const ROW_SUM_TOLERANCE: f64 = 1e-9;

/// Most vertices × bones the import holds (the dense weight matrix).
const MAX_WEIGHT_ENTRIES: usize = 100_000_000;

/// What [`import_godot`] produced: the scene, the artist's weights and the report.
pub type GodotImport = crate::io::Imported<ImportReport>;

/// The import report.
#[derive(Debug, Clone, Default)]
pub struct ImportReport {
    /// Godot version the file is written for: 3 (`format=2`) or 4 (`format=3`).
    pub godot: u32,
    /// Path of the Skeleton2D node (from the scene root).
    pub skeleton: String,
    /// One entry per Polygon2D, in part order.
    pub meshes: Vec<MeshReport>,
    /// Bones whose saved pose (`position`/`rotation`/`scale`) differs from their `rest`.
    pub posed_bones: Vec<String>,
    /// Every repair and skipped item, in words.
    pub notes: Vec<String>,
    /// Animations read into the scene's clips.
    pub clips: usize,
    /// Keys over all of them.
    pub clip_keys: usize,
}

/// Scored: every polygon.
impl crate::io::RigReport for ImportReport {
    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn scored_meshes(&self) -> Vec<(String, Vec<String>)> {
        self.meshes
            .iter()
            .map(|m| (m.part.clone(), m.bones.clone()))
            .collect()
    }

    fn godot(&self) -> Option<crate::io::GodotVersion> {
        crate::io::GodotVersion::from_number(self.godot)
    }
}

/// One imported Polygon2D.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshReport {
    /// Part name in the scene.
    pub part: String,
    /// Node path from the scene root.
    pub node: String,
    /// Vertices imported.
    pub vertices: usize,
    /// Triangles imported.
    pub triangles: usize,
    /// Entries of `polygons` (n-gons) read; 0 when the outline was triangulated.
    pub polygons: usize,
    /// `internal_vertex_count`.
    pub internal_vertices: usize,
    /// Whether `polygons` was empty and the outline was triangulated here.
    pub outline_triangulated: bool,
    /// Index in the scene's mesh of the first vertex (a part's vertices are contiguous).
    pub first_vertex: usize,
    /// Bones with weight on this polygon (after repairs), in skeleton order: the bones to
    /// give a solver when scoring it against the artist.
    pub bones: Vec<String>,
    /// Vertices with no weight in the file, given to a bone by the repair.
    pub unweighted_vertices: usize,
    /// Rows whose sum was not 1 (within 1e-9) and were divided by it.
    pub renormalized_rows: usize,
    /// Largest `|row sum - 1|` over the weighted rows before renormalizing.
    pub max_row_sum_error: f64,
    /// `bones` entries whose path names no bone of the skeleton (all their weights are 0).
    pub missing_bone_paths: Vec<String>,
    /// Vertices no triangle uses (dropped).
    pub dropped_vertices: usize,
}

impl MeshReport {
    /// Scene vertex indices of this polygon.
    pub fn vertex_range(&self) -> std::ops::Range<usize> {
        self.first_vertex..self.first_vertex + self.vertices
    }
}

impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Godot {} scene, skeleton {:?}: {} polygons",
            self.godot,
            self.skeleton,
            self.meshes.len()
        )?;
        for m in &self.meshes {
            writeln!(
                f,
                "  {:<12} {:>4} vertices {:>4} triangles ({})  weighted: {}",
                m.part,
                m.vertices,
                m.triangles,
                if m.outline_triangulated {
                    "outline triangulated".to_string()
                } else {
                    format!("{} polygons", m.polygons)
                },
                m.bones.join(", ")
            )?;
        }
        if !self.posed_bones.is_empty() {
            writeln!(
                f,
                "{} bones are saved posed away from their rest; the scene uses rest (the pose the weights were painted in): {}",
                self.posed_bones.len(),
                self.posed_bones.join(", ")
            )?;
        }
        for n in &self.notes {
            writeln!(f, "note: {n}")?;
        }
        Ok(())
    }
}

/// Reads a `.tscn` file (see [`import_godot`]); textures resolve against its project.
pub fn load_godot(path: impl AsRef<Path>) -> Result<GodotImport> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    import_godot(&text, path.parent())
}

/// A node of the scene tree.
struct Node {
    name: String,
    kind: String,
    /// Path from the root (`.` for the root).
    path: String,
    parent: Option<usize>,
    section: usize,
    /// Transform relative to the parent (identity for nodes that are not 2D).
    local: Affine2,
}

/// Parses a Godot 3 or 4 text scene and builds one scene (see the module docs for the
/// coordinate rules).
///
/// - The skeleton is the Skeleton2D the Polygon2D nodes name in `skeleton` (or the first
///   Skeleton2D). Its bones are the Bone2D nodes under it, in file order, named after their
///   node (their path below the skeleton when names repeat). Rest pose = each bone's `rest`
///   composed down the hierarchy, in the Skeleton2D's frame; a bone points at its first
///   Bone2D child's rest position (Godot's auto length and angle), or along `bone_angle`
///   (degrees) for `length` when `auto_calculate_length_and_angle = false` or it has no
///   Bone2D child (Godot 3: along its x axis for `default_length`). A length of 0 becomes
///   [`ZERO_LENGTH_TAIL`].
/// - Every Polygon2D becomes a part named after its node: its `polygon` (plus `offset`)
///   placed by its global transform into the skeleton's frame, each `polygons` n-gon
///   ear-clipped as Godot draws it (an empty `polygons` triangulates the outline, the first
///   `len - internal_vertex_count` points, and inserts the internal points), vertices no
///   triangle uses dropped.
/// - Weights: `bones` pairs a path (relative to the skeleton) with one weight per vertex.
///   Paths naming no bone are reported when their weights are all 0 and are an error
///   otherwise. Rows are divided by their sum; a row with no weight goes to the bone with the
///   most weight on its polygon (a polygon with none: its nearest Bone2D ancestor, else the
///   bone nearest its centre). Every repair is counted in the report.
/// - Art: each texture `ExtResource` is an image (`res://` resolved against the folder
///   holding `project.godot` above `base_dir`, else `base_dir`; when that file does not
///   exist, the file of the same name in `base_dir`), `uv` (after `texture_offset`,
///   `texture_scale`, `texture_rotation`) the texture coordinates, draw order = tree order
///   sorted by `z_index`.
///
/// Errors ([`FormatError::Godot`], naming the line and the node and property): syntax errors
/// (unbalanced brackets, unterminated strings), unknown `ExtResource`/`SubResource` ids,
/// parents that are not defined before their children (including a node that is its own
/// parent), a skeleton path that names no Skeleton2D, values of the wrong type, weights
/// arrays whose length is not the vertex count, negative weights, weight on a bone path
/// that does not exist, n-gons that cannot be triangulated, and invalid meshes.
pub fn import_godot(text: &str, base_dir: Option<&Path>) -> Result<GodotImport> {
    let sections = parse_tscn(text)?;
    let mut report = ImportReport::default();
    report.godot = godot_version(&sections, &mut report.notes)?;
    let resources = check_resources(&sections)?;
    let nodes = build_tree(&sections)?;
    let global = global_transforms(&nodes);
    let skel = find_skeleton(&sections, &nodes, &mut report)?;
    report.skeleton = nodes[skel].path.clone();
    let bones = read_bones(&sections, &nodes, skel, &mut report)?;
    let to_skeleton = inverse_by_cofactors(&global[skel]).ok_or_else(|| {
        Error::Format(FormatError::Godot {
            line: sections[nodes[skel].section].line,
            field: section_name(&sections[nodes[skel].section]),
            message:
                "the Skeleton2D's global transform is singular (a scale of 0 on it or a parent)"
                    .into(),
        })
    })?;
    let tree = Tree {
        sections: &sections,
        nodes: &nodes,
        bones: &bones,
        skel,
    };
    let textures = Textures {
        resources: &resources,
        root_dir: base_dir.map(project_root),
        base_dir,
        image_of_resource: HashMap::new(),
    };
    let builder = add_polygons(&tree, &global, &to_skeleton, textures, &mut report)?;
    let scene_bones: Vec<Bone> = bones.iter().map(|b| b.bone.clone()).collect();
    // File order is parents first (Godot writes parents before children).
    let order: Vec<usize> = (0..scene_bones.len()).collect();
    let built = builder.finish(scene_bones, &order, &mut report.notes)?;
    let clips = read_clips(
        &sections,
        &nodes,
        &bones,
        &built.skeleton,
        &mut report.notes,
    )?;
    report.clips = clips.len();
    report.clip_keys = clips.iter().map(|c| c.key_count()).sum();
    let scene = Scene::new(
        nodes[0].name.clone(),
        built.mesh,
        built.skeleton,
        built.probes,
    )?
    .with_animation(clips, Vec::new())?;
    let scene = match built.art {
        Some(art) => scene.with_art(art)?,
        None => scene,
    };
    Ok(GodotImport {
        scene,
        artist: built.artist,
        report,
    })
}

/// The Godot version of the `[gd_scene]` header's `format`: 3 (`format=2`), 4 (`format=3`
/// or another format, noted).
fn godot_version(sections: &[Section], notes: &mut Vec<String>) -> Result<u32> {
    let first = sections.first().ok_or_else(|| {
        Error::Format(FormatError::Godot {
            line: 1,
            field: "file".into(),
            message: "empty: expected a [gd_scene ...] header".into(),
        })
    })?;
    if first.tag != "gd_scene" {
        return Err(FormatError::Godot {
            line: first.line,
            field: section_name(first),
            message: format!(
                "expected a [gd_scene ...] header first, found [{}]",
                first.tag
            ),
        }
        .into());
    }
    match first.attr("format") {
        Some(Value::Int(2)) => Ok(3),
        Some(Value::Int(3)) => Ok(4),
        Some(Value::Int(1)) => Err(FormatError::Godot {
            line: first.line,
            field: "gd_scene format".into(),
            message: "format=1 is Godot 2, which has no Skeleton2D".into(),
        }
        .into()),
        other => {
            notes.push(format!(
                "gd_scene format {other:?} is not 2 (Godot 3) or 3 (Godot 4): read as Godot 4"
            ));
            Ok(4)
        }
    }
}

/// The parsed file as the polygons read it.
struct Tree<'a> {
    sections: &'a [Section],
    nodes: &'a [Node],
    bones: &'a [ReadBone],
    /// Node index of the Skeleton2D.
    skel: usize,
}

/// Texture resources turned into art images, each once.
struct Textures<'a> {
    /// `ExtResource` paths by id.
    resources: &'a HashMap<String, String>,
    /// The folder holding `project.godot` (what `res://` names).
    root_dir: Option<PathBuf>,
    base_dir: Option<&'a Path>,
    /// Art image index by `ExtResource` id.
    image_of_resource: HashMap<String, usize>,
}

impl Textures<'_> {
    /// The art image of texture resource `id`, added to `builder` the first time.
    fn image(&mut self, id: &str, builder: &mut SceneBuilder, notes: &mut Vec<String>) -> usize {
        if let Some(&k) = self.image_of_resource.get(id) {
            return k;
        }
        let path = &self.resources[id];
        let resolved = resolve_res_path(path, self.root_dir.as_deref(), self.base_dir, notes);
        let k = builder.add_image(ArtImage {
            name: Path::new(path)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.clone()),
            path: resolved,
            alpha: AlphaMode::Straight,
        });
        self.image_of_resource.insert(id.to_string(), k);
        k
    }
}

/// Every Polygon2D as a part (see [`add_polygon`]); none is an error, and so are more
/// weights than the import holds.
fn add_polygons(
    tree: &Tree,
    global: &[Affine2],
    to_skeleton: &Affine2,
    mut textures: Textures,
    report: &mut ImportReport,
) -> Result<SceneBuilder> {
    let polygon_nodes: Vec<usize> = (0..tree.nodes.len())
        .filter(|&i| tree.nodes[i].kind == "Polygon2D")
        .collect();
    if polygon_nodes.is_empty() {
        return Err(FormatError::Godot {
            line: 1,
            field: "file".into(),
            message: "no Polygon2D node: nothing to import".into(),
        }
        .into());
    }
    let n_bones = tree.bones.len();
    let mut builder = SceneBuilder::new(n_bones);
    for &n in &polygon_nodes {
        let place = *to_skeleton * global[n];
        add_polygon(tree, n, &place, &mut textures, &mut builder, report)?;
    }
    let n_vertices = builder.vertex_count();
    if n_vertices.saturating_mul(n_bones) > MAX_WEIGHT_ENTRIES {
        return Err(FormatError::Godot {
            line: 1,
            field: "file".into(),
            message: format!(
                "{n_vertices} vertices × {n_bones} bones is more than the {MAX_WEIGHT_ENTRIES} weights the import holds"
            ),
        }.into());
    }
    Ok(builder)
}

/// Polygon2D node `n` as a part of `builder`: placed by `place` into the skeleton's frame
/// (y flipped), triangulated, unused vertices dropped, weights repaired, its art.
fn add_polygon(
    tree: &Tree,
    n: usize,
    place: &Affine2,
    textures: &mut Textures,
    builder: &mut SceneBuilder,
    report: &mut ImportReport,
) -> Result<()> {
    let node = &tree.nodes[n];
    let poly = read_polygon(
        &tree.sections[node.section],
        tree.nodes,
        tree.bones,
        tree.skel,
    )?;
    let placed = place_points(&poly, place)?;
    let part = builder.unique_name(&node.name);
    let mut mesh_report = MeshReport {
        part: part.clone(),
        node: node.path.clone(),
        polygons: poly.polygons.len(),
        internal_vertices: poly.internal,
        missing_bone_paths: poly.missing.clone(),
        outline_triangulated: poly.polygons.is_empty(),
        ..MeshReport::default()
    };
    let tris = if poly.polygons.is_empty() {
        triangulate_outline(&poly, &placed, &part, &mut report.notes)?
    } else {
        clip_ngons(&poly, &placed, &part, &mut report.notes)?
    };
    let (kept, tris) = drop_unused(placed.len(), &tris);
    mesh_report.dropped_vertices = placed.len() - kept.len();
    if mesh_report.dropped_vertices > 0 {
        report.notes.push(format!(
            "{part}: {} vertices are in no polygon: dropped",
            mesh_report.dropped_vertices
        ));
    }
    let local_points: Vec<Point2<f64>> = kept.iter().map(|&v| placed[v]).collect();
    Mesh::new(local_points.clone(), tris.clone()).map_err(|e| {
        let at = poly.at_polygons.as_ref().unwrap_or(&poly.at_polygon);
        at.error("", format!("{e} (indices after dropping unused vertices)"))
    })?;

    let mut rows: Vec<Vec<f64>> = kept.iter().map(|&v| poly.weights[v].clone()).collect();
    let fallback = repair_rows(&mut rows, tree, n, &local_points, &mut mesh_report);
    weight_notes(&mesh_report, &poly, tree.bones, fallback, &mut report.notes);
    mesh_report.bones = (0..tree.bones.len())
        .filter(|&j| rows.iter().any(|r| r[j] > 0.0))
        .map(|j| tree.bones[j].name.clone())
        .collect();

    let image = poly
        .texture
        .as_ref()
        .map(|id| textures.image(id, builder, &mut report.notes));
    mesh_report.vertices = local_points.len();
    mesh_report.triangles = tris.len();
    let added = builder.add_part(part, local_points, &tris);
    mesh_report.first_vertex = added.vertices.start;
    for (v, row) in added.vertices.clone().zip(&rows) {
        builder.set_row(v, row);
    }
    let uvs = kept
        .iter()
        .map(|&v| Point2::new(poly.uvs[v][0], poly.uvs[v][1]));
    builder.add_layer(added.index, uvs, image, poly.z_index);
    report.meshes.push(mesh_report);
    Ok(())
}

/// The polygon's points (plus `offset`) by `place`, y flipped: the scene's frame. A point
/// beyond [`MAX_COORDINATE`] is an error naming it.
fn place_points(poly: &Polygon, place: &Affine2) -> Result<Vec<Point2<f64>>> {
    let placed: Vec<Point2<f64>> = poly
        .points
        .iter()
        .map(|&p| {
            let [x, y] = apply(place, [p[0] + poly.offset[0], p[1] + poly.offset[1]]);
            Point2::new(x, -y)
        })
        .collect();
    if let Some((v, p)) = placed
        .iter()
        .enumerate()
        .find(|(_, p)| !(p.x.abs() <= MAX_COORDINATE && p.y.abs() <= MAX_COORDINATE))
    {
        return Err(poly.at_polygon.error(
            &format!("[{v}]"),
            format!(
                "placed at ({:e}, {:e}) in the skeleton's frame, beyond ±{MAX_COORDINATE:e} px",
                p.x, p.y
            ),
        ));
    }
    Ok(placed)
}

/// Triangles of a polygon with an empty `polygons`: its outline ear-clipped, the internal
/// points inserted (counter-clockwise in the scene's y-up frame; noted).
fn triangulate_outline(
    poly: &Polygon,
    placed: &[Point2<f64>],
    part: &str,
    notes: &mut Vec<String>,
) -> Result<Vec<[usize; 3]>> {
    let outline_len = poly.points.len() - poly.internal;
    let mut tris = ear_clip(&placed[..outline_len]).ok_or_else(|| {
        poly.at_polygon.error(
            "",
            "polygons is empty and the outline cannot be triangulated (it crosses itself)",
        )
    })?;
    let internal: Vec<usize> = (outline_len..placed.len()).collect();
    insert_points(placed, &mut tris, &internal).map_err(|v| {
        poly.at_polygon.error(
            &format!("[{v}]"),
            "an internal vertex lies outside the outline",
        )
    })?;
    notes.push(format!(
        "{part}: polygons is empty: triangulated the {outline_len}-point outline{} into {} triangles",
        if internal.is_empty() {
            String::new()
        } else {
            format!(" with {} internal vertices", internal.len())
        },
        tris.len()
    ));
    Ok(tris)
}

/// Triangles of each `polygons` n-gon, ear-clipped as Godot draws it (counter-clockwise in
/// the scene's y-up frame); n-gons of fewer than 3 vertices are skipped (noted).
fn clip_ngons(
    poly: &Polygon,
    placed: &[Point2<f64>],
    part: &str,
    notes: &mut Vec<String>,
) -> Result<Vec<[usize; 3]>> {
    let at = poly
        .at_polygons
        .as_ref()
        .expect("polygons were read from a property");
    let mut tris = Vec::new();
    for (k, ngon) in poly.polygons.iter().enumerate() {
        if ngon.len() < 3 {
            notes.push(format!(
                "{part}: polygons[{k}] has {} vertices: skipped (Godot skips it too)",
                ngon.len()
            ));
            continue;
        }
        let pts: Vec<Point2<f64>> = ngon.iter().map(|&i| placed[i]).collect();
        let local = ear_clip(&pts).ok_or_else(|| {
            at.error(
                &format!("[{k}]"),
                "this polygon cannot be triangulated (it crosses itself)",
            )
        })?;
        tris.extend(local.iter().map(|t| t.map(|i| ngon[i])));
    }
    Ok(tris)
}

/// The vertices (of `n`) some triangle uses, in order, and the triangles renumbered to
/// index them (a mesh has no unused vertices).
fn drop_unused(n: usize, tris: &[[usize; 3]]) -> (Vec<usize>, Vec<[usize; 3]>) {
    let mut used = vec![false; n];
    tris.iter().flatten().for_each(|&v| used[v] = true);
    let mut new_index = vec![usize::MAX; n];
    let mut kept = Vec::new();
    for v in 0..n {
        if used[v] {
            new_index[v] = kept.len();
            kept.push(v);
        }
    }
    let tris = tris.iter().map(|t| t.map(|v| new_index[v])).collect();
    (kept, tris)
}

/// Repairs polygon `n`'s weight rows in place: a row without weight goes to the fallback
/// bone (returned: the bone with the most weight on the polygon, else its nearest Bone2D
/// ancestor, else the bone nearest its centre), a row not summing to 1 is divided by its
/// sum. Counts go into `mesh_report`.
fn repair_rows(
    rows: &mut [Vec<f64>],
    tree: &Tree,
    n: usize,
    points: &[Point2<f64>],
    mesh_report: &mut MeshReport,
) -> Fallback {
    let bones = tree.bones;
    let totals: Vec<f64> = (0..bones.len())
        .map(|j| rows.iter().map(|r| r[j]).sum())
        .collect();
    let dominant = (0..bones.len())
        .filter(|&j| totals[j] > 0.0)
        .max_by(|&a, &b| totals[a].total_cmp(&totals[b]));
    let bone = dominant
        .or_else(|| ancestor_bone(tree.nodes, n, bones))
        .unwrap_or_else(|| nearest_bone(bones, points));
    for row in rows {
        let sum: f64 = row.iter().sum();
        if sum <= 0.0 {
            mesh_report.unweighted_vertices += 1;
            row[bone] = 1.0;
            continue;
        }
        let err = (sum - 1.0).abs();
        mesh_report.max_row_sum_error = mesh_report.max_row_sum_error.max(err);
        if err > ROW_SUM_TOLERANCE {
            mesh_report.renormalized_rows += 1;
            row.iter_mut().for_each(|w| *w /= sum);
        }
    }
    Fallback {
        bone,
        dominant: dominant.is_some(),
    }
}

/// The bone [`repair_rows`] gave the rows without weight.
struct Fallback {
    bone: usize,
    /// Whether it is the bone with the most weight on the polygon (else the polygon has
    /// none).
    dominant: bool,
}

/// The notes on a polygon's weight repairs and ignored bone paths.
fn weight_notes(
    m: &MeshReport,
    poly: &Polygon,
    bones: &[ReadBone],
    fallback: Fallback,
    notes: &mut Vec<String>,
) {
    let part = &m.part;
    if m.unweighted_vertices > 0 {
        notes.push(format!(
            "{part}: {} vertices have no weight: given to {} ({})",
            m.unweighted_vertices,
            bones[fallback.bone].name,
            if fallback.dominant {
                "the bone with the most weight on this polygon"
            } else {
                "the polygon has no weights at all"
            }
        ));
    }
    if m.renormalized_rows > 0 {
        notes.push(format!(
            "{part}: {} rows did not sum to 1 (largest deviation {:.3}): divided by their sum",
            m.renormalized_rows, m.max_row_sum_error
        ));
    }
    for (path, len) in &poly.skipped {
        notes.push(format!(
            "{part}: the weights of bone {path:?} are {len} numbers for a polygon of {} points: skipped, as Godot skips them",
            poly.points.len()
        ));
    }
    if !poly.missing.is_empty() {
        notes.push(format!(
            "{part}: bones lists {} paths that name no bone below the skeleton, all with weight 0: ignored ({})",
            poly.missing.len(),
            poly.missing.join(", ")
        ));
    }
}

/// Checks every `ExtResource` / `SubResource` reference against the declared ids; returns
/// the external resources' `path` by id.
fn check_resources(sections: &[Section]) -> Result<HashMap<String, String>> {
    let (ext, sub) = declared_resources(sections)?;
    for s in sections {
        let check = |attr: &str, line: usize, v: &Value| -> Result<()> {
            match bad_reference(v, &ext, &sub) {
                Some(message) => Err(FormatError::Godot {
                    line,
                    field: format!("{} {attr}", section_name(s)),
                    message,
                }
                .into()),
                None => Ok(()),
            }
        };
        for (k, v) in &s.attrs {
            check(k, s.line, v)?;
        }
        for p in &s.properties {
            check(&format!("property {}", p.key), p.line, &p.value)?;
        }
    }
    Ok(ext)
}

/// The declared resources: each `[ext_resource]`'s `path` and each `[sub_resource]`'s line,
/// by id. Errors: an id missing or declared twice.
fn declared_resources(
    sections: &[Section],
) -> Result<(HashMap<String, String>, HashMap<String, usize>)> {
    let mut ext: HashMap<String, String> = HashMap::new();
    let mut sub: HashMap<String, usize> = HashMap::new();
    for s in sections {
        let (map_has, kind) = match s.tag.as_str() {
            "ext_resource" => (
                ext.contains_key(&resource_id(s).unwrap_or_default()),
                "ext_resource",
            ),
            "sub_resource" => (
                sub.contains_key(&resource_id(s).unwrap_or_default()),
                "sub_resource",
            ),
            _ => continue,
        };
        let id = resource_id(s).ok_or_else(|| {
            Error::Format(FormatError::Godot {
                line: s.line,
                field: format!("[{kind}] id"),
                message: "missing or not an integer or string".into(),
            })
        })?;
        if map_has {
            return Err(FormatError::Godot {
                line: s.line,
                field: format!("[{kind}] id"),
                message: format!("id {id:?} is declared twice"),
            }
            .into());
        }
        if kind == "ext_resource" {
            let path = s.attr_str("path").unwrap_or_default().to_string();
            ext.insert(id, path);
        } else {
            sub.insert(id, s.line);
        }
    }
    Ok((ext, sub))
}

/// Why the first `ExtResource` / `SubResource` reference in `v` is wrong (not one id, or an
/// id not declared in `ext` / `sub`); `None` when every one is right.
fn bad_reference(
    v: &Value,
    ext: &HashMap<String, String>,
    sub: &HashMap<String, usize>,
) -> Option<String> {
    let mut bad: Option<String> = None;
    each_resource_ref(v, &mut |r| {
        if bad.is_some() {
            return;
        }
        match r {
            None => {
                bad = Some("ExtResource/SubResource takes one id (an integer or a string)".into())
            }
            Some(("ExtResource", id)) if !ext.contains_key(&id) => {
                bad = Some(format!(
                    "ExtResource({id:?}) names no [ext_resource] (declared ids: {})",
                    ids(ext.keys())
                ))
            }
            Some(("SubResource", id)) if !sub.contains_key(&id) => {
                bad = Some(format!(
                    "SubResource({id:?}) names no [sub_resource] (declared ids: {})",
                    ids(sub.keys())
                ))
            }
            _ => {}
        }
    });
    bad
}

fn ids<'a>(keys: impl Iterator<Item = &'a String>) -> String {
    let mut k: Vec<&String> = keys.collect();
    k.sort();
    if k.is_empty() {
        "none".into()
    } else {
        k.iter()
            .map(|s| format!("{s:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The node tree, in file order: every `[node]` has a `name`, the first has no `parent`, and
/// every other node's parent is defined before it.
fn build_tree(sections: &[Section]) -> Result<Vec<Node>> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut by_path: HashMap<String, usize> = HashMap::new();
    for (si, s) in sections.iter().enumerate() {
        if s.tag != "node" {
            continue;
        }
        let err = |field: &str, message: String| {
            Error::Format(FormatError::Godot {
                line: s.line,
                field: format!("{} {field}", section_name(s)),
                message,
            })
        };
        let name = s
            .attr_str("name")
            .ok_or_else(|| err("name", "missing: every [node] has a name".into()))?
            .to_string();
        if name.is_empty() || name.contains('/') {
            return Err(err("name", format!("{name:?} is not a node name")));
        }
        let kind = s.attr_str("type").unwrap_or("").to_string();
        let (parent, path) = match s.attr("parent") {
            None => {
                if !nodes.is_empty() {
                    return Err(err(
                        "parent",
                        format!(
                            "missing: only the first node is the root (the root is {:?})",
                            nodes[0].name
                        ),
                    ));
                }
                (None, ".".to_string())
            }
            Some(Value::Str(p)) | Some(Value::NodePath(p)) => {
                if nodes.is_empty() {
                    return Err(err(
                        "parent",
                        "the first node is the root and has no parent".into(),
                    ));
                }
                let (pi, own) = find_parent(&sections[si + 1..], &by_path, &name, p)
                    .map_err(|m| err("parent", m))?;
                (Some(pi), own)
            }
            Some(v) => {
                return Err(err(
                    "parent",
                    format!("expected a string, found {}", v.kind()),
                ))
            }
        };
        if by_path.contains_key(&path) {
            return Err(err("name", format!("a node {path:?} already exists")));
        }
        let local = node_transform(s)?;
        by_path.insert(path.clone(), nodes.len());
        nodes.push(Node {
            name,
            kind,
            path,
            parent,
            section: si,
            local,
        });
    }
    if nodes.is_empty() {
        return Err(FormatError::Godot {
            line: 1,
            field: "file".into(),
            message: "no [node] sections".into(),
        }
        .into());
    }
    Ok(nodes)
}

/// The parent of a node named `name` whose `parent` is `p`: its index (in `by_path`, the
/// nodes defined so far) and the node's own path; else why not (`later`: the sections after
/// this one, to tell a parent defined too late).
fn find_parent(
    later: &[Section],
    by_path: &HashMap<String, usize>,
    name: &str,
    p: &str,
) -> std::result::Result<(usize, String), String> {
    let p = p.trim_end_matches('/');
    let parent_path = if p.is_empty() { "." } else { p };
    let own = if parent_path == "." {
        name.to_string()
    } else {
        format!("{parent_path}/{name}")
    };
    if parent_path == own || parent_path.starts_with(&format!("{own}/")) {
        return Err(format!(
            "{p:?} is the node itself or below it: a parent cycle"
        ));
    }
    let Some(&pi) = by_path.get(parent_path) else {
        let last = parent_path.rsplit('/').next().unwrap_or(parent_path);
        let later = later
            .iter()
            .any(|t| t.tag == "node" && t.attr_str("name") == Some(last));
        return Err(if last == name {
            format!("{p:?} names this node itself: a parent cycle")
        } else if later {
            format!("{p:?} names no node defined before this one (a node named {last:?} comes later: parents must come first, so a cycle of parents cannot be written)")
        } else {
            format!("{p:?} names no node defined before this one")
        });
    };
    Ok((pi, own))
}

/// A node's transform relative to its parent: `transform`, else `position`, `rotation`
/// (radians; or `rotation_degrees`), `scale` and `skew`.
fn node_transform(s: &Section) -> Result<Affine2> {
    if let Some(p) = s.get("transform") {
        return At::property(s, p).transform(&p.value);
    }
    let vec = |key: &str, default: [f64; 2]| -> Result<[f64; 2]> {
        match s.get(key) {
            Some(p) => At::property(s, p).vector2(&p.value),
            None => Ok(default),
        }
    };
    let num = |key: &str| -> Result<Option<f64>> {
        s.get(key)
            .map(|p| At::property(s, p).number(&p.value))
            .transpose()
    };
    let rotation = match num("rotation")? {
        Some(r) => r,
        None => num("rotation_degrees")?.unwrap_or(0.0).to_radians(),
    };
    Ok(affine_from_parts(
        vec("position", [0.0, 0.0])?,
        rotation,
        vec("scale", [1.0, 1.0])?,
        num("skew")?.unwrap_or(0.0),
    ))
}

fn global_transforms(nodes: &[Node]) -> Vec<Affine2> {
    let mut global: Vec<Affine2> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let g = match n.parent {
            Some(p) => global[p] * n.local,
            None => n.local,
        };
        global.push(g);
    }
    global
}

/// Resolves a NodePath written on node `from` to a node index.
fn resolve_path(nodes: &[Node], from: usize, path: &str) -> Option<usize> {
    let mut at = from;
    for part in path.split('/').filter(|p| !p.is_empty() && *p != ".") {
        if part == ".." {
            at = nodes[at].parent?;
        } else {
            at =
                (0..nodes.len()).find(|&i| nodes[i].parent == Some(at) && nodes[i].name == part)?;
        }
    }
    Some(at)
}

/// The Skeleton2D the polygons name (all must name the same one), else the first.
fn find_skeleton(sections: &[Section], nodes: &[Node], report: &mut ImportReport) -> Result<usize> {
    let mut found: Option<usize> = None;
    for (i, n) in nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.kind == "Polygon2D")
    {
        let s = &sections[n.section];
        let Some(p) = s.get("skeleton") else { continue };
        let at = At::property(s, p);
        let path = match &p.value {
            Value::NodePath(x) | Value::Str(x) => x.clone(),
            v => {
                return Err(at.error(
                    "",
                    format!("expected NodePath(\"...\"), found {}", v.kind()),
                ))
            }
        };
        if path.is_empty() {
            continue;
        }
        let k = resolve_path(nodes, i, &path)
            .ok_or_else(|| at.error("", format!("NodePath({path:?}) names no node")))?;
        if nodes[k].kind != "Skeleton2D" {
            return Err(at.error(
                "",
                format!(
                    "NodePath({path:?}) names {:?}, a {}, not a Skeleton2D",
                    nodes[k].path, nodes[k].kind
                ),
            ));
        }
        match found {
            None => found = Some(k),
            Some(f) if f != k => {
                return Err(at.error(
                    "",
                    format!(
                    "names skeleton {:?} but another polygon names {:?}: one skeleton per import",
                    nodes[k].path, nodes[f].path
                ),
                ))
            }
            _ => {}
        }
    }
    if let Some(f) = found {
        return Ok(f);
    }
    let first = nodes
        .iter()
        .position(|n| n.kind == "Skeleton2D")
        .ok_or_else(|| {
            Error::Format(FormatError::Godot {
                line: 1,
                field: "file".into(),
                message: "no Skeleton2D node".into(),
            })
        })?;
    report.notes.push(format!(
        "no Polygon2D names a skeleton: using the first Skeleton2D, {:?}",
        nodes[first].path
    ));
    Ok(first)
}

/// A bone as read: the scene bone (y-up, skeleton frame) and what maps paths to it.
struct ReadBone {
    bone: Bone,
    node: usize,
    name: String,
    /// Path below the skeleton, e.g. `Hip/Chest`.
    rel_path: String,
    /// Index of the parent bone (none: a child of the skeleton).
    parent: Option<usize>,
    /// `rest` relative to the parent bone (y-down).
    rest_local: Affine2,
    /// `rest` composed down to the skeleton (y-down).
    rest_world: Affine2,
}

fn read_bones(
    sections: &[Section],
    nodes: &[Node],
    skel: usize,
    report: &mut ImportReport,
) -> Result<Vec<ReadBone>> {
    let mut bones = collect_bones(sections, nodes, skel, report)?;
    if bones.is_empty() {
        return Err(FormatError::Godot {
            line: sections[nodes[skel].section].line,
            field: section_name(&sections[nodes[skel].section]),
            message: "the Skeleton2D has no Bone2D children".into(),
        }
        .into());
    }
    name_repeated_by_path(&mut bones, &mut report.notes);
    for j in 0..bones.len() {
        let s = &sections[nodes[bones[j].node].section];
        let (length, angle) = bone_direction(s, &bones, j)?;
        let length = if length > 0.0 {
            length
        } else {
            ZERO_LENGTH_TAIL
        };
        let (head, tail) = head_and_tail(s, &bones[j].rest_world, length, angle)?;
        let mut bone = Bone::new(bones[j].name.clone(), head, tail);
        bone.parent = bones[j].parent;
        bones[j].bone = bone;
    }
    Ok(bones)
}

/// The Bone2D nodes whose chain up to the skeleton is all Bone2D, in file order (parents
/// first), with their rest transforms; their scene bones are placeholders. Bones saved
/// posed away from their rest are listed in the report.
fn collect_bones(
    sections: &[Section],
    nodes: &[Node],
    skel: usize,
    report: &mut ImportReport,
) -> Result<Vec<ReadBone>> {
    let mut index_of_node: HashMap<usize, usize> = HashMap::new();
    let mut bones: Vec<ReadBone> = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        if n.kind != "Bone2D" {
            continue;
        }
        let Some(p) = n.parent else { continue };
        let parent_bone = if p == skel {
            None
        } else if let Some(&pb) = index_of_node.get(&p) {
            Some(pb)
        } else {
            continue;
        };
        let s = &sections[n.section];
        let rest = match s.get("rest") {
            Some(r) => At::property(s, r).transform(&r.value)?,
            None => Affine2::IDENTITY,
        };
        let world = match parent_bone {
            Some(pb) => bones[pb].rest_world * rest,
            None => rest,
        };
        if n.local.max_difference(&rest) > 1e-4 {
            report.posed_bones.push(n.name.clone());
        }
        index_of_node.insert(i, bones.len());
        bones.push(ReadBone {
            bone: Bone::new(n.name.clone(), Point2::origin(), Point2::origin()),
            node: i,
            name: n.name.clone(),
            rel_path: n.path[nodes[skel].path.len() + 1..].to_string(),
            parent: parent_bone,
            rest_local: rest,
            rest_world: world,
        });
    }
    Ok(bones)
}

/// Names bones by their path below the skeleton where node names repeat (noted).
fn name_repeated_by_path(bones: &mut [ReadBone], notes: &mut Vec<String>) {
    let mut count: HashMap<&str, usize> = HashMap::new();
    bones
        .iter()
        .for_each(|b| *count.entry(b.name.as_str()).or_default() += 1);
    let unique: Vec<bool> = bones.iter().map(|b| count[b.name.as_str()] == 1).collect();
    if unique.iter().any(|u| !u) {
        notes.push(
            "some Bone2D names repeat: those bones are named by their path below the skeleton"
                .into(),
        );
    }
    for (j, u) in unique.into_iter().enumerate() {
        if !u {
            bones[j].name = bones[j].rel_path.clone();
        }
    }
}

/// Bone `j`'s length and angle (radians, in its rest frame): towards its first Bone2D
/// child's rest position (Godot's auto length and angle), else `length` (Godot 3:
/// `default_length`) along `bone_angle`.
fn bone_direction(s: &Section, bones: &[ReadBone], j: usize) -> Result<(f64, f64)> {
    let get = |key: &str| s.get(key).map(|p| (At::property(s, p), &p.value));
    let auto = match get("auto_calculate_length_and_angle") {
        Some((at, v)) => at.boolean(v)?,
        None => true,
    };
    match bones.iter().find(|c| c.parent == Some(j)) {
        Some(c) if auto => {
            let o = [c.rest_local.tx, c.rest_local.ty];
            Ok((o[0].hypot(o[1]), o[1].atan2(o[0])))
        }
        _ => {
            let length = match get("length").or_else(|| get("default_length")) {
                Some((at, v)) => at.number(v)?,
                None => GODOT_DEFAULT_BONE_LENGTH,
            };
            let angle = match get("bone_angle") {
                Some((at, v)) => at.number(v)?.to_radians(),
                None => 0.0,
            };
            Ok((length, angle))
        }
    }
}

/// A bone's head and tail in the scene's frame (y-up) from its rest transform composed to
/// the skeleton (`world`, y-down); beyond [`MAX_COORDINATE`] or of no direction is an error.
fn head_and_tail(
    s: &Section,
    world: &Affine2,
    length: f64,
    angle: f64,
) -> Result<(Point2<f64>, Point2<f64>)> {
    let head = apply(world, [0.0, 0.0]);
    let tail = apply(world, [length * angle.cos(), length * angle.sin()]);
    for (what, p) in [("head", head), ("tail", tail)] {
        if !(p[0].abs() <= MAX_COORDINATE && p[1].abs() <= MAX_COORDINATE) {
            return Err(FormatError::Godot {
                line: s.line,
                field: format!("{} rest", section_name(s)),
                message: format!(
                    "the bone's {what} lands at ({:e}, {:e}), beyond ±{MAX_COORDINATE:e} px",
                    p[0], p[1]
                ),
            }
            .into());
        }
    }
    let (head, tail) = (
        Point2::new(head[0], -head[1]),
        Point2::new(tail[0], -tail[1]),
    );
    if (tail - head).norm() == 0.0 {
        return Err(FormatError::Godot {
            line: s.line,
            field: format!("{} rest", section_name(s)),
            message: "the rest transform has a scale of 0: the bone has no direction".into(),
        }
        .into());
    }
    Ok((head, tail))
}

/// What one Polygon2D holds, read and checked.
struct Polygon<'a> {
    points: Vec<[f64; 2]>,
    offset: [f64; 2],
    uvs: Vec<[f64; 2]>,
    polygons: Vec<Vec<usize>>,
    internal: usize,
    /// One row (all bones) per point.
    weights: Vec<Vec<f64>>,
    missing: Vec<String>,
    /// Bones whose weights array is not one weight per point, with its length: Godot skips
    /// such a bone's weights and draws the rest, and so does the import.
    skipped: Vec<(String, usize)>,
    /// `ExtResource` id of the texture.
    texture: Option<String>,
    z_index: i64,
    at_polygon: At<'a>,
    at_polygons: Option<At<'a>>,
}

fn read_polygon<'a>(
    s: &'a Section,
    nodes: &[Node],
    bones: &[ReadBone],
    skel: usize,
) -> Result<Polygon<'a>> {
    let (at_polygon, points) = read_points(s)?;
    let n = points.len();
    let offset = match prop(s, "offset") {
        Some((at, v)) => at.vector2(v)?,
        None => [0.0, 0.0],
    };
    let internal = read_internal_count(s, n)?;
    let (at_polygons, polygons) = read_ngons(s, n)?;
    if polygons.is_empty() && n - internal < 3 {
        return Err(section_error(
            s,
            "polygons",
            format!(
                "empty, and the outline has {} points (internal_vertex_count = {internal})",
                n - internal
            ),
        ));
    }
    let uvs = read_uvs(s, &points)?;
    let read = match prop(s, "bones") {
        Some((at, v)) => read_weights(&at, v, n, nodes, bones, skel)?,
        None => ReadWeights {
            rows: vec![vec![0.0; bones.len()]; n],
            missing: Vec::new(),
            skipped: Vec::new(),
        },
    };
    let texture = read_texture(s)?;
    // Own z_index only (parents' z_index and z_as_relative are not followed).
    let z_index = match prop(s, "z_index") {
        Some((at, v)) => at.number(v)? as i64,
        None => 0,
    };
    Ok(Polygon {
        points,
        offset,
        uvs,
        polygons,
        internal,
        weights: read.rows,
        missing: read.missing,
        skipped: read.skipped,
        texture,
        z_index,
        at_polygon,
        at_polygons,
    })
}

/// The polygon's points (`polygon`, at least 3) and where they were written.
fn read_points(s: &Section) -> Result<(At<'_>, Vec<[f64; 2]>)> {
    let (at_polygon, points) = match prop(s, "polygon") {
        Some((at, v)) => {
            let pts = at.vector2_array(v)?;
            (at, pts)
        }
        None => {
            return Err(section_error(
                s,
                "polygon",
                "missing: a Polygon2D needs its points".into(),
            ))
        }
    };
    if points.len() < 3 {
        return Err(at_polygon.error(
            "",
            format!("{} points: a polygon needs at least 3", points.len()),
        ));
    }
    Ok((at_polygon, points))
}

/// The `ExtResource` id of the polygon's `texture` (`None` without one, or for an embedded
/// `SubResource` texture, which has no file to point at).
fn read_texture(s: &Section) -> Result<Option<String>> {
    Ok(match prop(s, "texture") {
        Some((at, v)) => match resource_ref(v) {
            Some(("ExtResource", id)) => Some(id),
            Some(_) => None,
            None => {
                return Err(at.error("", format!("expected ExtResource(...), found {}", v.kind())))
            }
        },
        None => None,
    })
}

/// Property `key` of section `s` with where it was written.
fn prop<'a>(s: &'a Section, key: &str) -> Option<(At<'a>, &'a Value)> {
    s.get(key).map(|p| (At::property(s, p), &p.value))
}

/// An error on field `field` of section `s`, at the section's line.
fn section_error(s: &Section, field: &str, message: String) -> Error {
    Error::Format(FormatError::Godot {
        line: s.line,
        field: format!("{} {field}", section_name(s)),
        message,
    })
}

/// `internal_vertex_count`: a whole number from 0 to the `n` points (default 0).
fn read_internal_count(s: &Section, n: usize) -> Result<usize> {
    let Some((at, v)) = prop(s, "internal_vertex_count") else {
        return Ok(0);
    };
    let k = at.number(v)?;
    if k < 0.0 || k.fract() != 0.0 || k > n as f64 {
        return Err(at.error(
            "",
            format!("{k} is not a count between 0 and the {n} points"),
        ));
    }
    Ok(k as usize)
}

/// `polygons`: n-gons of indices below `n`, and where they were written (none when absent).
fn read_ngons(s: &Section, n: usize) -> Result<(Option<At<'_>>, Vec<Vec<usize>>)> {
    match prop(s, "polygons") {
        Some((at, Value::Array(items))) => {
            let polys = items
                .iter()
                .enumerate()
                .map(|(k, x)| at.index_array(x, &format!("[{k}]"), n))
                .collect::<Result<Vec<_>>>()?;
            Ok((Some(at), polys))
        }
        Some((at, v)) => Err(at.error(
            "",
            format!("expected an array of PackedInt32Array, found {}", v.kind()),
        )),
        None => Ok((None, Vec::new())),
    }
}

/// Texture coordinates (pixels): `uv` (the points when absent or of another size, as Godot
/// does) through `texture_offset`, `texture_rotation` and `texture_scale`.
fn read_uvs(s: &Section, points: &[[f64; 2]]) -> Result<Vec<[f64; 2]>> {
    let v2 = |k: &str, d: [f64; 2]| -> Result<[f64; 2]> {
        prop(s, k).map_or(Ok(d), |(at, v)| at.vector2(v))
    };
    let rot = match prop(s, "texture_rotation") {
        Some((at, v)) => at.number(v)?,
        None => match prop(s, "texture_rotation_degrees") {
            Some((at, v)) => at.number(v)?.to_radians(),
            None => 0.0,
        },
    };
    let texmat = affine_from_parts(
        v2("texture_offset", [0.0, 0.0])?,
        rot,
        v2("texture_scale", [1.0, 1.0])?,
        0.0,
    );
    let uv_source = match prop(s, "uv") {
        Some((at, v)) => {
            let uv = at.vector2_array(v)?;
            if uv.len() == points.len() {
                uv
            } else {
                // Godot falls back to the points when the sizes differ.
                points.to_vec()
            }
        }
        None => points.to_vec(),
    };
    Ok(uv_source.iter().map(|&p| apply(&texmat, p)).collect())
}

/// A Polygon2D's `bones` property, read.
struct ReadWeights {
    /// One row (all bones) per point.
    rows: Vec<Vec<f64>>,
    /// Paths that name no bone (all their weights 0).
    missing: Vec<String>,
    /// Bones skipped because their array is not one weight per point, with its length.
    skipped: Vec<(String, usize)>,
}

/// `bones` (value `v`, written at `at`): pairs of a path below the skeleton and `n` weights.
/// A pair whose array does not hold `n` weights is skipped, as Godot's Polygon2D skips it
/// when it draws.
fn read_weights(
    at: &At,
    v: &Value,
    n: usize,
    nodes: &[Node],
    bones: &[ReadBone],
    skel: usize,
) -> Result<ReadWeights> {
    let Value::Array(items) = v else {
        return Err(at.error(
            "",
            format!("expected an array of paths and weights, found {}", v.kind()),
        ));
    };
    if items.len() % 2 != 0 {
        return Err(at.error(
            "",
            format!(
                "{} entries: expected pairs of a bone path and its weights",
                items.len()
            ),
        ));
    }
    let mut weights = vec![vec![0.0; bones.len()]; n];
    let mut missing = Vec::new();
    let mut skipped = Vec::new();
    let mut seen: HashMap<usize, usize> = HashMap::new();
    for (k, pair) in items.chunks_exact(2).enumerate() {
        let (path, w) = read_weight_pair(at, k, pair)?;
        if w.len() != n {
            skipped.push((path, w.len()));
            continue;
        }
        let target =
            resolve_path(nodes, skel, &path).and_then(|i| bones.iter().position(|b| b.node == i));
        let Some(j) = target else {
            if let Some(v) = w.iter().position(|&x| x > 0.0) {
                return Err(at.error(
                    &format!("[{}]", 2 * k),
                    format!(
                        "bone path {path:?} names no Bone2D below the skeleton {:?}, yet vertex {v} has weight {} on it",
                        nodes[skel].path, w[v]
                    ),
                ));
            }
            missing.push(path);
            continue;
        };
        if let Some(prev) = seen.insert(j, k) {
            return Err(at.error(
                &format!("[{}]", 2 * k),
                format!(
                    "bone {:?} is listed twice (entries {} and {})",
                    bones[j].name,
                    2 * prev,
                    2 * k
                ),
            ));
        }
        for (row, x) in weights.iter_mut().zip(w) {
            row[j] = x;
        }
    }
    Ok(ReadWeights {
        rows: weights,
        missing,
        skipped,
    })
}

/// Pair `k` of `bones`: the bone path and its weights (none below 0).
fn read_weight_pair(at: &At, k: usize, pair: &[Value]) -> Result<(String, Vec<f64>)> {
    let path = match &pair[0] {
        Value::Str(p) | Value::NodePath(p) | Value::StringName(p) => p.clone(),
        x => {
            return Err(at.error(
                &format!("[{}]", 2 * k),
                format!("expected a bone path, found {}", x.kind()),
            ))
        }
    };
    let detail = format!("[{}] (weights of {path:?})", 2 * k + 1);
    let w = at.float_array(&pair[1], &detail)?;
    if let Some((v, x)) = w.iter().enumerate().find(|(_, x)| **x < 0.0) {
        return Err(at.error(&detail, format!("vertex {v} has weight {x}, below 0")));
    }
    Ok((path, w))
}

/// The nearest Bone2D of the skeleton at or above node `n`.
fn ancestor_bone(nodes: &[Node], n: usize, bones: &[ReadBone]) -> Option<usize> {
    let mut at = nodes[n].parent;
    while let Some(i) = at {
        if let Some(j) = bones.iter().position(|b| b.node == i) {
            return Some(j);
        }
        at = nodes[i].parent;
    }
    None
}

/// The bone whose segment is nearest the centre of `points`.
fn nearest_bone(bones: &[ReadBone], points: &[Point2<f64>]) -> usize {
    let c = points.iter().fold(Point2::origin(), |acc: Point2<f64>, p| {
        acc + p.coords / points.len() as f64
    });
    (0..bones.len())
        .min_by(|&a, &b| {
            bones[a]
                .bone
                .segment()
                .distance(&c)
                .total_cmp(&bones[b].bone.segment().distance(&c))
        })
        .unwrap_or(0)
}

/// The folder holding `project.godot` at or above `dir`, else `dir`.
fn project_root(dir: &Path) -> PathBuf {
    let mut at = Some(dir);
    while let Some(d) = at {
        if d.join("project.godot").is_file() {
            return d.to_path_buf();
        }
        at = d.parent();
    }
    dir.to_path_buf()
}

/// A resource path as a file path: `res://a/b.png` under the project root; a relative path
/// under `base_dir`. When that file does not exist but one of the same name sits in
/// `base_dir`, that one (noted).
fn resolve_res_path(
    path: &str,
    root: Option<&Path>,
    base_dir: Option<&Path>,
    notes: &mut Vec<String>,
) -> PathBuf {
    let (rel, under) = match path.strip_prefix("res://") {
        Some(r) => (r, root),
        None => (path, base_dir),
    };
    let resolved = match under {
        Some(d) => d.join(rel),
        None => PathBuf::from(rel),
    };
    if let (Some(dir), Some(file)) = (base_dir, Path::new(rel).file_name()) {
        if !resolved.exists() && dir.join(file).exists() {
            let beside = dir.join(file);
            notes.push(format!(
                "texture {path:?}: not found at {}, using {} beside the scene",
                resolved.display(),
                beside.display()
            ));
            return beside;
        }
    }
    if !resolved.exists() {
        notes.push(format!(
            "texture {path:?}: not found at {}; `render` needs it there (the import itself does not)",
            resolved.display()
        ));
    }
    resolved
}

/// The scene's clips from the file's Animation resources (see the `clips` module).
fn read_clips(
    sections: &[Section],
    nodes: &[Node],
    bones: &[ReadBone],
    skeleton: &Skeleton,
    notes: &mut Vec<String>,
) -> Result<Vec<crate::animation::Clip>> {
    let refs: Vec<NodeRef> = nodes
        .iter()
        .map(|n| NodeRef {
            kind: &n.kind,
            parent: n.parent,
            section: n.section,
        })
        .collect();
    let frames: Vec<BoneFrame> = bones
        .iter()
        .zip(skeleton.bones())
        .map(|(b, sb)| {
            let w = &b.rest_world;
            let (xx, xy, yx, yy) = (w.a, w.c, w.b, w.d);
            let rigid = (xx.hypot(xy) - 1.0).abs() < 1e-6
                && (yx.hypot(yy) - 1.0).abs() < 1e-6
                && (xx * yx + xy * yy).abs() < 1e-6
                && xx * yy - xy * yx > 0.0;
            // The Godot frame's x axis seen y-up, and the scene bone's direction.
            let godot = (-xy).atan2(xx);
            let d = sb.tail - sb.head;
            BoneFrame {
                node: b.node,
                rest: b.rest_local,
                saved: nodes[b.node].local,
                alpha: rigid.then(|| d.y.atan2(d.x) - godot),
            }
        })
        .collect();
    let resolve = |from: usize, path: &str| resolve_path(nodes, from, path);
    super::clips::read_clips(sections, &refs, &resolve, &frames, skeleton, notes)
}
