//! A scene and its weights → Spine JSON: a source project with its meshes' weighted vertices
//! rewritten, or a minimal project (bones, a slot and a mesh per layer, the atlas).

use super::import::{apply, part_name, place, setup_skeleton, Chosen};
use super::parse::{parse_skeleton, FileAttachment, FileRegion, FileSkeleton, Geometry, Kind};
use super::spine_error;
use crate::error::{Error, FormatError, Result};
use crate::io::mesh_parts::{triangles_by_part, vertices_of};
use crate::io::png_dimensions;
use crate::io::ZERO_LENGTH_TAIL;
use crate::scene::Scene;
use crate::skeleton::Affine2;
use crate::skinning::check_shape;
use crate::weights::{Weights, EXPORT_ROW_SUM_TOLERANCE};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Default of [`ExportOptions::max_influences`](crate::io::ExportOptions::max_influences): no limit (Spine has none).
pub const DEFAULT_MAX_INFLUENCES: Option<usize> = None;

/// How far (px) a scene part's vertices may be from a source mesh's setup positions for the
/// part to be taken as that mesh.
const MATCH_TOLERANCE_PX: f64 = 1e-3;

/// Default of [`ExportOptions::regions_to_meshes`](crate::io::ExportOptions::regions_to_meshes): region attachments stay regions.
pub const DEFAULT_REGIONS_TO_MESHES: bool = false;

/// How far (in 0..1 image units) a region part's recovered corner may be from its image's
/// rectangle for the part to be taken as that region.
const REGION_UV_TOLERANCE: f64 = 1e-6;

/// Names a note lists before "and N more" (a 10-skin project bends hundreds of regions).
const NAMES_SHOWN: usize = 12;

/// Options of the Spine writer ([`crate::io::ExportOptions::max_influences`] and
/// [`crate::io::ExportOptions::regions_to_meshes`] set them).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SpineExportOptions {
    /// Keep at most this many influences per vertex (the largest, renormalized).
    /// Default: [`DEFAULT_MAX_INFLUENCES`] (all).
    pub max_influences: Option<usize>,
    /// With a source project: write each region attachment whose new weights are not rigid
    /// to its slot's bone (several bones, or another bone) as a weighted `mesh` attachment of
    /// the same name and image (a quad: `uvs` across its image, `triangles`, `hull` 4,
    /// `width`/`height`); when false such regions stay as they are and a note names each.
    /// Default: [`DEFAULT_REGIONS_TO_MESHES`] (false).
    pub regions_to_meshes: bool,
}

impl Default for SpineExportOptions {
    fn default() -> Self {
        SpineExportOptions {
            max_influences: DEFAULT_MAX_INFLUENCES,
            regions_to_meshes: DEFAULT_REGIONS_TO_MESHES,
        }
    }
}

impl SpineExportOptions {
    /// Sets [`SpineExportOptions::max_influences`].
    pub fn with_max_influences(mut self, k: Option<usize>) -> Self {
        self.max_influences = k;
        self
    }
    /// Sets [`SpineExportOptions::regions_to_meshes`].
    pub fn with_regions_to_meshes(mut self, on: bool) -> Self {
        self.regions_to_meshes = on;
        self
    }
}

/// What the Spine writer produced ([`crate::io::Exported`] carries its counts).
#[derive(Debug, Clone)]
pub struct SpineExport {
    /// The skeleton JSON.
    pub json: Value,
    /// The atlas text (minimal projects whose scene has art), to be written beside the JSON.
    pub atlas: Option<String>,
    /// Mesh attachments whose vertices were written (converted regions included).
    pub meshes: usize,
    /// Region attachments written as weighted meshes
    /// ([`SpineExportOptions::regions_to_meshes`]).
    pub regions_to_meshes: usize,
    /// Region attachments (part names) the new weights bend, kept rigid because
    /// [`SpineExportOptions::regions_to_meshes`] is off.
    pub bent_regions: Vec<String>,
    /// What was left out or changed.
    pub notes: Vec<String>,
}

/// Each vertex's influences, largest first, zeros dropped, at most `k` ([`Weights::top_k`]),
/// renormalized.
fn influence_rows(weights: &Weights, k: Option<usize>) -> Vec<Vec<(usize, f64)>> {
    let truncated;
    let kept = match k {
        Some(k) => {
            truncated = weights.top_k(k.max(1));
            &truncated
        }
        None => weights,
    };
    kept.influences()
        .into_iter()
        .map(|mut row| {
            // Each written row sums to 1 in the order it is written.
            row.retain(|&(_, w)| w > 0.0);
            let s: f64 = row.iter().map(|r| r.1).sum();
            row.iter_mut().for_each(|r| r.1 /= s);
            row
        })
        .collect()
}

/// Writes `scene` and `weights` as Spine 4.2 JSON.
///
/// With `source` (the project the scene was imported from, its text), the result is that
/// project with only the `vertices` of the mesh attachments matching the scene's parts
/// rewritten as weighted vertices: each influence's bind position is the vertex's setup
/// position in that bone's setup world frame, influences largest first, zeros dropped. A part
/// matches the mesh whose part name (see `import_spine`) and setup-pose vertices it has
/// (within 1e-3 px); a linked mesh's part writes its parent's vertices when the parent is not
/// in the scene. Unweighted meshes whose new weights are 1 on their slot's bone, region
/// attachments and everything else stay as they are.
///
/// Without `source`, a minimal project: the scene's bones (parents first) at their rest
/// transforms, one slot (on the first root bone) with one weighted mesh per part in layer
/// order, named after the part, and with art an atlas with one page per image and one region
/// per part spanning its page.
///
/// Errors: weights of the wrong shape or not valid; [`FormatError::Rig`] when the source's bones
/// differ from the scene's (names in order), or a vertex's only influences are bones whose
/// setup matrix is singular.
pub(crate) fn export_spine(
    scene: &Scene,
    weights: &Weights,
    source: Option<&str>,
    options: &SpineExportOptions,
) -> Result<SpineExport> {
    check_shape(scene.mesh.vertex_count(), weights, scene.skeleton.len())?;
    weights.validate_with_tolerance(EXPORT_ROW_SUM_TOLERANCE)?;
    let rows = influence_rows(weights, options.max_influences);
    match source {
        Some(text) => with_source(scene, &rows, text, options),
        None => minimal(scene, &rows),
    }
}

/// The part's base name: without the `#N` a repeated name gets.
fn base_name(part: &str) -> &str {
    match part.rsplit_once('#') {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => part,
    }
}

fn with_source(
    scene: &Scene,
    rows: &[Vec<(usize, f64)>],
    text: &str,
    options: &SpineExportOptions,
) -> Result<SpineExport> {
    let file = parse_skeleton(text)?;
    let root: Value = serde_json::from_str(text).map_err(|e| {
        Error::Format(FormatError::Json {
            context: "Spine source".into(),
            message: e.to_string(),
        })
    })?;
    check_same_bones(scene, &file)?;
    let setup = setup_skeleton(&file, &mut Vec::new())?;
    let world = setup.rest_affines();
    let mut part_vertices: Vec<Vec<usize>> = vec![Vec::new(); scene.mesh.parts().len()];
    for (v, &p) in scene.mesh.vertex_parts().iter().enumerate() {
        part_vertices[p].push(v);
    }
    let mut out = SourceWriter {
        scene,
        rows,
        file: &file,
        world,
        inverse: world.iter().map(|w| w.inverse().ok()).collect(),
        part_vertices,
        options,
        root,
        written: HashSet::new(),
        singular: HashSet::new(),
        regions_kept: 0,
        converted: 0,
        bent: Vec::new(),
        unmatched: Vec::new(),
    };
    let parts = scene.mesh.parts().len();
    let mut region_parts = vec![false; parts];
    for (p, is_region) in region_parts.iter_mut().enumerate() {
        *is_region = out.region_part(p)?;
    }
    // Direct meshes first, then linked meshes for parents no part wrote.
    for pass in [Pass::Meshes, Pass::Linked] {
        for p in (0..parts).filter(|&p| !region_parts[p]) {
            out.mesh_part(p, pass)?;
        }
    }
    let mut export = out.finish();
    if !scene.correctives.is_empty() {
        export.notes.push(format!(
            "the scene's {} correctives are not baked into a source project (its animations are kept as they are); export without --source for deform timelines",
            scene.correctives.len()
        ));
    }
    Ok(export)
}

/// [`FormatError::Rig`] unless the scene's bones are the source's (names, in order).
fn check_same_bones(scene: &Scene, file: &FileSkeleton) -> Result<()> {
    let names = scene.skeleton.names();
    if names.len() == file.bones.len() && names.iter().zip(&file.bones).all(|(a, b)| *a == b.name) {
        return Ok(());
    }
    let at = names
        .iter()
        .zip(&file.bones)
        .position(|(a, b)| *a != b.name)
        .unwrap_or(names.len().min(file.bones.len()));
    Err(spine_error(
        "skeleton",
        "bones",
        None,
        format!(
            "the scene's {} bones differ from the source's {} at index {at} ({:?} vs {:?}): export to the project the scene was imported from",
            names.len(),
            file.bones.len(),
            names.get(at),
            file.bones.get(at).map(|b| &b.name)
        ),
    ))
}

/// The source's attachments a part may come from (by part name, with or without the skin).
fn candidates<'f>(file: &'f FileSkeleton, part: &str) -> Vec<&'f FileAttachment> {
    let base = base_name(part);
    file.attachments
        .iter()
        .filter(|a| part_name(file, a, true) == base || part_name(file, a, false) == base)
        .collect()
}

/// Whether a vertex's influences are exactly 1 on `bone`.
fn rigid_to(row: &[(usize, f64)], bone: usize) -> bool {
    row.len() == 1 && row[0].0 == bone && (row[0].1 - 1.0).abs() < 1e-12
}

/// The two passes over the parts: meshes of their own, then linked meshes whose parent no
/// part wrote.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Meshes,
    Linked,
}

/// The source project being rewritten, and what has been written.
struct SourceWriter<'a> {
    scene: &'a Scene,
    rows: &'a [Vec<(usize, f64)>],
    file: &'a FileSkeleton,
    /// Setup world matrices of the source's bones, and their inverses.
    world: &'a [Affine2],
    inverse: Vec<Option<Affine2>>,
    /// Scene vertices of each part, in order.
    part_vertices: Vec<Vec<usize>>,
    options: &'a SpineExportOptions,
    /// The source's JSON, rewritten in place.
    root: Value,
    /// `(skin, slot, attachment)` written (or kept as they are).
    written: HashSet<(usize, usize, String)>,
    /// Bones with a singular setup matrix whose weights were dropped.
    singular: HashSet<String>,
    regions_kept: usize,
    converted: usize,
    /// Regions the new weights bend, kept rigid.
    bent: Vec<String>,
    unmatched: Vec<String>,
}

impl<'a> SourceWriter<'a> {
    /// A part that is one of the source's region attachments: kept, or (with
    /// [`SpineExportOptions::regions_to_meshes`] and weights that bend it) written as a
    /// weighted mesh. False when no region carries the part's name.
    fn region_part(&mut self, p: usize) -> Result<bool> {
        let file = self.file;
        let part = &self.scene.mesh.parts()[p];
        let regions: Vec<(&FileAttachment, &FileRegion)> = candidates(file, part)
            .into_iter()
            .filter_map(|a| match &a.kind {
                Kind::Region(r) => Some((a, r)),
                _ => None,
            })
            .collect();
        if regions.is_empty() {
            return Ok(false);
        }
        let verts = &self.part_vertices[p];
        let found = regions
            .iter()
            .find_map(|&(a, r)| self.region_uvs(a, r, verts).map(|uvs| (a, r, uvs)));
        let Some((a, r, uvs)) = found else {
            // A mesh of another skin by the same name is the part, not a region it does not fit.
            let mesh = candidates(file, part)
                .iter()
                .any(|a| !matches!(a.kind, Kind::Region(_)));
            if mesh {
                return Ok(false);
            }
            self.regions_kept += 1;
            return Ok(true);
        };
        let slot_bone = file.slots[a.slot].bone;
        if verts.iter().all(|&v| rigid_to(&self.rows[v], slot_bone)) {
            self.regions_kept += 1;
            return Ok(true);
        }
        if !self.options.regions_to_meshes {
            self.bent.push(part.clone());
            return Ok(true);
        }
        let key = (a.skin, a.slot, a.name.clone());
        if self.written.contains(&key) {
            return Ok(true);
        }
        let vertices = self.weighted_vertices(a, p)?;
        let node = self.node(a)?;
        region_to_mesh(node, r, &uvs, vertices);
        self.written.insert(key);
        self.converted += 1;
        Ok(true)
    }

    /// The texture coordinates (0..1 across the region's whole image, v down) of a region
    /// part's four corners, recovered from their setup positions: the corners in the slot
    /// bone's frame, moved and turned back by the attachment's `x, y, rotation` and divided
    /// by its scaled `width × height`. `None` unless they are a rectangle of that image
    /// (BL, BR, TR, TL) within [`REGION_UV_TOLERANCE`]: the part is not this region.
    fn region_uvs(
        &self,
        a: &FileAttachment,
        r: &FileRegion,
        verts: &[usize],
    ) -> Option<[[f64; 2]; 4]> {
        if verts.len() != 4 {
            return None;
        }
        let inv = self.inverse[self.file.slots[a.slot].bone].as_ref()?;
        let (w, h) = (r.width * r.scale_x, r.height * r.scale_y);
        if w == 0.0 || h == 0.0 {
            return None;
        }
        let (sin, cos) = r.rotation.to_radians().sin_cos();
        let mut uv = [[0.0; 2]; 4];
        for (c, &v) in uv.iter_mut().zip(verts) {
            let q = self.scene.mesh.vertices()[v];
            let [x, y] = apply(inv, [q.x, q.y]);
            let (dx, dy) = (x - r.x, y - r.y);
            let (lx, ly) = (cos * dx + sin * dy, -sin * dx + cos * dy);
            *c = [lx / w + 0.5, 0.5 - ly / h];
        }
        let tol = REGION_UV_TOLERANCE;
        let near = |a: f64, b: f64| (a - b).abs() <= tol;
        let inside = uv
            .iter()
            .flatten()
            .all(|&x| x.is_finite() && (-tol..=1.0 + tol).contains(&x));
        let rectangle = near(uv[0][0], uv[3][0])
            && near(uv[1][0], uv[2][0])
            && near(uv[0][1], uv[1][1])
            && near(uv[2][1], uv[3][1])
            && uv[1][0] > uv[0][0]
            && uv[0][1] > uv[3][1];
        (inside && rectangle).then(|| uv.map(|c| c.map(|x| x.clamp(0.0, 1.0))))
    }

    /// A part that is one of the source's meshes (or, in the second pass, a linked mesh's
    /// parent): its weighted vertices written. Rigid meshes whose weights stay rigid are
    /// left as they are.
    fn mesh_part(&mut self, p: usize, pass: Pass) -> Result<()> {
        let part = &self.scene.mesh.parts()[p];
        let Some(target) = self.matching_mesh(p, pass) else {
            if pass == Pass::Linked && !written_part(&self.written, self.file, part) {
                self.unmatched.push(part.clone());
            }
            return Ok(());
        };
        let key = (target.skin, target.slot, target.name.clone());
        if self.written.contains(&key) {
            return Ok(());
        }
        let slot_bone = self.file.slots[target.slot].bone;
        let rigid =
            matches!(&target.kind, Kind::Mesh(m) if matches!(m.geometry, Geometry::Rigid(_)));
        let verts = &self.part_vertices[p];
        if rigid && verts.iter().all(|&v| rigid_to(&self.rows[v], slot_bone)) {
            self.written.insert(key);
            return Ok(());
        }
        let vertices = self.weighted_vertices(target, p)?;
        self.node(target)?["vertices"] = Value::Array(vertices);
        self.written.insert(key);
        Ok(())
    }

    /// The mesh whose setup vertices the part has (within [`MATCH_TOLERANCE_PX`]): of the
    /// candidates by name, the closest. In [`Pass::Linked`], a linked mesh's parent.
    fn matching_mesh(&self, p: usize, pass: Pass) -> Option<&'a FileAttachment> {
        let file = self.file;
        let verts = &self.part_vertices[p];
        let mut best: Option<(&'a FileAttachment, f64)> = None;
        for a in candidates(file, &self.scene.mesh.parts()[p]) {
            let target = match (&a.kind, pass) {
                (Kind::Mesh(_), Pass::Meshes) => a,
                (Kind::Linked { parent, skin }, Pass::Linked) => {
                    let k = file
                        .skins
                        .iter()
                        .position(|s| s == skin.as_deref().unwrap_or("default"));
                    match file
                        .attachments
                        .iter()
                        .find(|t| Some(t.skin) == k && t.slot == a.slot && &t.name == parent)
                    {
                        Some(t) if matches!(t.kind, Kind::Mesh(_)) => t,
                        _ => continue,
                    }
                }
                _ => continue,
            };
            let chosen = Chosen {
                att: a,
                mesh: Some(target),
            };
            let placed = place(file, self.world, &chosen, None);
            if placed.points.len() != verts.len() {
                continue;
            }
            let d = placed
                .points
                .iter()
                .zip(verts)
                .map(|(q, &v)| {
                    let s = self.scene.mesh.vertices()[v];
                    (q[0] - s.x).hypot(q[1] - s.y)
                })
                .fold(0.0, f64::max);
            if best.is_none_or(|b| d < b.1) {
                best = Some((target, d));
            }
        }
        best.filter(|b| b.1 <= MATCH_TOLERANCE_PX).map(|b| b.0)
    }

    /// Spine's weighted `vertices` of part `p` written into attachment `a`: per vertex the
    /// influence count, then `bone, bindX, bindY, weight`, the bind position the vertex's
    /// setup position in that bone's setup frame. Influences on bones with a singular setup
    /// matrix are dropped (remembered for a note) and the row renormalized.
    fn weighted_vertices(&mut self, a: &FileAttachment, p: usize) -> Result<Vec<Value>> {
        let file = self.file;
        let mut out: Vec<Value> = Vec::new();
        for (i, &v) in self.part_vertices[p].iter().enumerate() {
            let q = self.scene.mesh.vertices()[v];
            let mut row: Vec<(usize, f64)> = Vec::with_capacity(self.rows[v].len());
            for &(j, w) in &self.rows[v] {
                if self.inverse[j].is_some() {
                    row.push((j, w));
                } else {
                    self.singular.insert(file.bones[j].name.clone());
                }
            }
            let s: f64 = row.iter().map(|r| r.1).sum();
            if row.is_empty() || s <= 0.0 {
                return Err(spine_error(
                    format!("attachment {:?} (slot {:?})", a.name, file.slots[a.slot].name),
                    "vertices",
                    Some(i),
                    "every bone weighting it has a singular setup matrix (scale 0): no bind position",
                ));
            }
            out.push(json!(row.len()));
            for (j, w) in row {
                let inv = self.inverse[j]
                    .as_ref()
                    .expect("kept only invertible bones");
                let [bx, by] = apply(inv, [q.x, q.y]);
                out.extend([json!(j), json!(bx), json!(by), json!(w / s)]);
            }
        }
        Ok(out)
    }

    /// The JSON object of attachment `a` in the source.
    fn node(&mut self, a: &FileAttachment) -> Result<&mut Value> {
        let slot = &self.file.slots[a.slot].name;
        let skin = &self.file.skins[a.skin];
        attachment_json(&mut self.root, skin, slot, &a.name).ok_or_else(|| {
            spine_error(
                format!("attachment {:?} (skin {skin:?}, slot {slot:?})", a.name),
                "vertices",
                None,
                "not found in the source's JSON",
            )
        })
    }

    /// The rewritten project and the notes on what was kept or left out.
    fn finish(self) -> SpineExport {
        let mut notes = Vec::new();
        if self.regions_kept > 0 {
            notes.push(format!(
                "{} region attachments kept as they are (their new weights are rigid to their slot's bone)",
                self.regions_kept
            ));
        }
        if !self.bent.is_empty() {
            notes.push(format!(
                "{} region attachments are bent by the new weights but were kept rigid (--regions-to-meshes writes them as weighted meshes): {}",
                self.bent.len(),
                crate::io::tolerance::listed(&self.bent, NAMES_SHOWN, ", ")
            ));
        }
        if self.converted > 0 {
            notes.push(format!(
                "{} region attachments written as weighted mesh attachments",
                self.converted
            ));
        }
        if !self.unmatched.is_empty() {
            notes.push(format!(
                "{} parts match no mesh of the source (name and setup vertices): not written: {}",
                self.unmatched.len(),
                crate::io::tolerance::listed(&self.unmatched, NAMES_SHOWN, ", ")
            ));
        }
        if !self.singular.is_empty() {
            let mut s: Vec<String> = self.singular.into_iter().collect();
            s.sort();
            notes.push(format!(
                "weights on bones with a singular setup matrix were dropped and rows renormalized: {}",
                crate::io::tolerance::listed(&s, NAMES_SHOWN, ", ")
            ));
        }
        SpineExport {
            json: self.root,
            atlas: None,
            meshes: self.written.len(),
            regions_to_meshes: self.converted,
            bent_regions: self.bent,
            notes,
        }
    }
}

/// A region attachment's JSON turned into a weighted mesh of the same image: its placement
/// (`x, y, rotation, scaleX, scaleY`) is in the vertices now; `path`, `color` and the rest
/// stay, so the atlas lookup is the same.
fn region_to_mesh(node: &mut Value, r: &FileRegion, uvs: &[[f64; 2]; 4], vertices: Vec<Value>) {
    let Some(o) = node.as_object_mut() else {
        return;
    };
    for k in ["x", "y", "rotation", "scaleX", "scaleY"] {
        o.remove(k);
    }
    o.insert("type".into(), json!("mesh"));
    o.insert(
        "uvs".into(),
        json!(uvs.iter().flatten().copied().collect::<Vec<f64>>()),
    );
    o.insert("triangles".into(), json!([0, 1, 2, 0, 2, 3]));
    o.insert("hull".into(), json!(4));
    o.insert("vertices".into(), Value::Array(vertices));
    o.insert("width".into(), json!(r.width));
    o.insert("height".into(), json!(r.height));
}

/// Whether some written mesh carries this part's name (a linked part whose parent was
/// written from its own part is not unmatched).
fn written_part(
    written: &HashSet<(usize, usize, String)>,
    file: &FileSkeleton,
    part: &str,
) -> bool {
    let base = base_name(part);
    file.attachments.iter().any(|a| {
        (part_name(file, a, true) == base || part_name(file, a, false) == base)
            && match &a.kind {
                Kind::Linked { parent, skin } => written.iter().any(|(k, s, n)| {
                    *s == a.slot
                        && n == parent
                        && file.skins[*k] == skin.as_deref().unwrap_or("default")
                }),
                _ => written.contains(&(a.skin, a.slot, a.name.clone())),
            }
    })
}

/// The JSON object of one attachment (4.x skins array, or 3.x skins object).
fn attachment_json<'v>(
    root: &'v mut Value,
    skin: &str,
    slot: &str,
    name: &str,
) -> Option<&'v mut Value> {
    let skins = root.get_mut("skins")?;
    let slots = match skins {
        Value::Array(list) => list
            .iter_mut()
            .find(|s| s.get("name").and_then(Value::as_str) == Some(skin))?
            .get_mut("attachments")?,
        Value::Object(map) => map.get_mut(skin)?,
        _ => return None,
    };
    slots.get_mut(slot)?.get_mut(name)
}

/// A minimal project (see [`export_spine`]): the bones, one slot and weighted mesh per part
/// in layer order, the clips (with the correctives as deform timelines), the atlas.
fn minimal(scene: &Scene, rows: &[Vec<(usize, f64)>]) -> Result<SpineExport> {
    let mut notes = Vec::new();
    let bones = minimal_bones(scene, &mut notes);
    let meshes = MinimalMeshes::build(scene, rows, &bones.new_index, &mut notes)?;
    let (mut animations, ik) = super::animation::animation_json(scene, &mut notes);
    super::deform::add_deforms(scene, rows, &meshes.written, &mut animations, &mut notes)?;
    let atlas = scene
        .art
        .as_ref()
        .map(|art| atlas_text(art, &meshes.page_sizes, &meshes.regions_by_page));
    let (lo, hi) = scene.mesh.bounds();
    let mut json = json!({
        "skeleton": {
            "spine": "4.2.00",
            "x": lo.x,
            "y": lo.y,
            "width": hi.x - lo.x,
            "height": hi.y - lo.y,
            "images": "",
        },
        "bones": bones.json,
        "slots": meshes.slots,
        "skins": [{"name": "default", "attachments": meshes.attachments}],
    });
    if !scene.ik.is_empty() {
        json["ik"] = ik;
    }
    if !scene.clips.is_empty() {
        json["animations"] = animations;
    }
    Ok(SpineExport {
        json,
        atlas: atlas.filter(|t| !t.is_empty()),
        meshes: meshes.count,
        regions_to_meshes: 0,
        bent_regions: Vec::new(),
        notes,
    })
}

/// The minimal project's bones: their JSON (parents first) and each scene bone's index in it.
struct MinimalBones {
    json: Vec<Value>,
    new_index: Vec<usize>,
}

fn minimal_bones(scene: &Scene, notes: &mut Vec<String>) -> MinimalBones {
    let skeleton = &scene.skeleton;
    let bones = skeleton.bones();
    // Spine lists parents before children.
    let parents_first = bones
        .iter()
        .enumerate()
        .all(|(j, b)| b.parent.is_none_or(|p| p < j));
    let order: Vec<usize> = if parents_first {
        (0..bones.len()).collect()
    } else {
        skeleton.topological_order().to_vec()
    };
    let mut new_index = vec![0; bones.len()];
    for (k, &j) in order.iter().enumerate() {
        new_index[j] = k;
    }
    let bind = skeleton.bind_transforms();
    let mut json = Vec::with_capacity(bones.len());
    let mut rigid_under_local = Vec::new();
    for &j in &order {
        let b = &bones[j];
        let mut o = match b.local {
            // The setup transform as Spine writes it: the scene's clips pose it the same way.
            Some(l) => local_bone_json(b, &l),
            None => {
                if b.parent.is_some_and(|p| bones[p].local.is_some()) {
                    rigid_under_local.push(b.name.clone());
                }
                let local = match b.parent {
                    Some(p) => bind[p].inverse() * bind[j],
                    None => bind[j],
                };
                json!({
                    "name": b.name,
                    "x": local.translation.x,
                    "y": local.translation.y,
                    "rotation": local.rotation.angle().to_degrees(),
                    "length": b.length(),
                })
            }
        };
        if let Some(p) = b.parent {
            o["parent"] = json!(bones[p].name);
        }
        json.push(o);
    }
    if !rigid_under_local.is_empty() {
        notes.push(format!(
            "rigid bones under bones with a local transform were written relative to their parent's bind frame (the parent's scale and shear are not undone): {}",
            rigid_under_local.join(", ")
        ));
    }
    MinimalBones { json, new_index }
}

/// A bone with a setup transform, as Spine writes it.
fn local_bone_json(b: &crate::skeleton::Bone, l: &crate::skeleton::LocalTransform) -> Value {
    // The importer draws a bone `length` px along its world x axis, and gives bones of
    // length 0 a ZERO_LENGTH_TAIL.
    let length = if (b.length() - ZERO_LENGTH_TAIL).abs() < 1e-12 {
        0.0
    } else {
        b.length()
    };
    let mut o = json!({
        "name": b.name,
        "x": l.x,
        "y": l.y,
        "rotation": l.rotation,
        "length": length,
    });
    for (key, v, d) in [
        ("scaleX", l.scale_x, 1.0),
        ("scaleY", l.scale_y, 1.0),
        ("shearX", l.shear_x, 0.0),
        ("shearY", l.shear_y, 0.0),
    ] {
        if v != d {
            o[key] = json!(v);
        }
    }
    // Spine has no `parentAngleOnly` (DragonBones' inheritScale false): its nearest mode,
    // equal under uniformly scaled parents.
    let inherit = match l.inherit {
        crate::skeleton::Inherit::ParentAngleOnly => crate::skeleton::Inherit::NoScaleOrReflection,
        other => other,
    };
    if inherit != crate::skeleton::Inherit::Normal {
        o["inherit"] = json!(inherit.spine_name());
    }
    o
}

/// The minimal project's slots and mesh attachments, one per part with triangles.
struct MinimalMeshes {
    slots: Vec<Value>,
    attachments: serde_json::Map<String, Value>,
    count: usize,
    /// Per written mesh: its part (slot and attachment name) and its vertices in order.
    written: Vec<(String, Vec<usize>)>,
    /// Each art image's size, once a part used it.
    page_sizes: Vec<Option<(u32, u32)>>,
    /// The parts drawn from each image.
    regions_by_page: Vec<Vec<String>>,
}

impl MinimalMeshes {
    fn build(
        scene: &Scene,
        rows: &[Vec<(usize, f64)>],
        new_index: &[usize],
        notes: &mut Vec<String>,
    ) -> Result<Self> {
        let mesh = &scene.mesh;
        let parts = mesh.parts();
        let skeleton = &scene.skeleton;
        let root_bone = skeleton.bones()[new_index.iter().position(|&k| k == 0).unwrap_or(0)]
            .name
            .clone();
        let part_triangles = triangles_by_part(mesh);
        let layer_order: Vec<usize> = match &scene.art {
            Some(art) => art
                .layers
                .iter()
                .filter_map(|l| mesh.part_index(&l.part))
                .collect(),
            None => (0..parts.len()).collect(),
        };
        // Bind positions are in each bone's rest world frame (its bind isometry for a rigid
        // bone, its setup affine for one with a local transform).
        let rest_inverse: Vec<Option<Affine2>> = skeleton
            .rest_affines()
            .iter()
            .map(|w| w.inverse().ok())
            .collect();
        let images = scene.art.as_ref().map_or(0, |a| a.images.len());
        let image_of_part = scene.art.as_ref().map(|a| a.image_of_part(parts));
        let mut out = MinimalMeshes {
            slots: Vec::new(),
            attachments: serde_json::Map::new(),
            count: 0,
            written: Vec::new(),
            page_sizes: vec![None; images],
            regions_by_page: vec![Vec::new(); images],
        };
        for &p in &layer_order {
            let tris = &part_triangles[p];
            if tris.is_empty() {
                notes.push(format!(
                    "part {:?} has no triangles of its own: left out",
                    parts[p]
                ));
                continue;
            }
            let used = vertices_of(tris);
            let local: std::collections::HashMap<usize, usize> =
                used.iter().enumerate().map(|(i, &v)| (v, i)).collect();
            let image = image_of_part.as_ref().and_then(|i| i[p]);
            let uvs = out.part_uvs(scene, image, p, &used)?;
            let vertices = weighted_json(scene, rows, new_index, &rest_inverse, &used)?;
            let mut att = serde_json::Map::new();
            att.insert(
                parts[p].clone(),
                json!({
                    "type": "mesh",
                    "uvs": uvs,
                    "triangles": tris.iter().flatten().map(|v| local[v]).collect::<Vec<_>>(),
                    "vertices": vertices,
                }),
            );
            out.attachments.insert(parts[p].clone(), Value::Object(att));
            out.slots
                .push(json!({"name": parts[p], "bone": root_bone, "attachment": parts[p]}));
            out.written.push((parts[p].clone(), used));
            out.count += 1;
        }
        Ok(out)
    }

    /// The part's texture coordinates: from its image (recording the page), or its bounding
    /// box mapped to the unit square without art.
    fn part_uvs(
        &mut self,
        scene: &Scene,
        image: Option<usize>,
        p: usize,
        used: &[usize],
    ) -> Result<Vec<f64>> {
        let mesh = &scene.mesh;
        if let (Some(k), Some(art)) = (image, &scene.art) {
            let size = match self.page_sizes[k] {
                Some(s) => s,
                None => {
                    let s = png_dimensions(&art.images[k].path)?;
                    self.page_sizes[k] = Some(s);
                    s
                }
            };
            self.regions_by_page[k].push(mesh.parts()[p].clone());
            return Ok(used
                .iter()
                .flat_map(|&v| [art.uvs[v].x / size.0 as f64, art.uvs[v].y / size.1 as f64])
                .collect());
        }
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for &v in used {
            let q = mesh.vertices()[v];
            for (k, x) in [q.x, q.y].into_iter().enumerate() {
                lo[k] = lo[k].min(x);
                hi[k] = hi[k].max(x);
            }
        }
        let size = [(hi[0] - lo[0]).max(1e-9), (hi[1] - lo[1]).max(1e-9)];
        Ok(used
            .iter()
            .flat_map(|&v| {
                let q = mesh.vertices()[v];
                [(q.x - lo[0]) / size[0], (hi[1] - q.y) / size[1]]
            })
            .collect())
    }
}

/// A weighted mesh's `vertices`: per vertex its influence count, then per influence the
/// bone's index, the bind position in the bone's rest world frame and the weight.
fn weighted_json(
    scene: &Scene,
    rows: &[Vec<(usize, f64)>],
    new_index: &[usize],
    rest_inverse: &[Option<Affine2>],
    used: &[usize],
) -> Result<Vec<Value>> {
    let bones = scene.skeleton.bones();
    let mut vertices = Vec::new();
    for &v in used {
        let q = scene.mesh.vertices()[v];
        vertices.push(json!(rows[v].len()));
        for &(j, w) in &rows[v] {
            let Some(inv) = &rest_inverse[j] else {
                return Err(spine_error(
                    format!("bone {:?}", bones[j].name),
                    "transform",
                    None,
                    "its rest world transform is singular: no bind position for the vertices it weights",
                ));
            };
            let [bx, by] = apply(inv, [q.x, q.y]);
            vertices.extend([json!(new_index[j]), json!(bx), json!(by), json!(w)]);
        }
    }
    Ok(vertices)
}

/// The atlas: one page per image a part used, one region per part spanning its page.
fn atlas_text(
    art: &crate::scene::Art,
    page_sizes: &[Option<(u32, u32)>],
    regions_by_page: &[Vec<String>],
) -> String {
    let mut text = String::new();
    for (k, image) in art.images.iter().enumerate() {
        let Some((w, h)) = page_sizes[k] else {
            continue;
        };
        let page = image
            .path
            .file_name()
            .map(|f| PathBuf::from(f).display().to_string())
            .unwrap_or_default();
        text.push_str(&format!(
            "\n{page}\n\tsize: {w}, {h}\n\tfilter: Linear, Linear\n"
        ));
        if image.alpha == crate::scene::AlphaMode::Premultiplied {
            text.push_str("\tpma: true\n");
        }
        for r in &regions_by_page[k] {
            text.push_str(&format!("{r}\n\tbounds: 0, 0, {w}, {h}\n"));
        }
    }
    text
}

/// [`export_spine`] with `source` read from its file (its errors name it), unless
/// `source_text` gives its text, and the project as JSON text; `context` names the output
/// in a serialization error.
pub(crate) fn spine_file(
    scene: &Scene,
    weights: &Weights,
    source: Option<&Path>,
    source_text: Option<&str>,
    options: &SpineExportOptions,
    context: &str,
) -> Result<(SpineExport, String)> {
    let text = match (source_text, source) {
        (Some(t), _) => Some(t.to_string()),
        (None, Some(s)) => Some(std::fs::read_to_string(s).map_err(|e| Error::io(s, e))?),
        (None, None) => None,
    };
    let out = export_spine(scene, weights, text.as_deref(), options).map_err(|e| match source {
        Some(s) => e.in_file(s),
        None => e,
    })?;
    let json = serde_json::to_string_pretty(&out.json).map_err(|e| {
        Error::Format(FormatError::Json {
            context: context.to_string(),
            message: e.to_string(),
        })
    })?;
    Ok((out, json))
}
