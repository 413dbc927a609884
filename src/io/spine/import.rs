//! Spine JSON → one [`Scene`] with a part per imported attachment, plus the artist's weights.

use super::atlas::{Atlas, AtlasRegion};
use super::parse::{parse_skeleton, FileAttachment, FileRegion, FileSkeleton, Geometry, Kind};
use super::{spine_error, MAX_COORDINATE, MAX_SCALE};
use crate::error::{Error, Result};
use crate::io::rig::weighted_bones;
use crate::io::scene_builder::{overlapping_edges, SceneBuilder};
use crate::io::{RigReport, ZERO_LENGTH_TAIL};
use crate::mesh::{signed_area2, Mesh};
use crate::scene::{ArtImage, Scene, SlotAttachment};
use crate::skeleton::{Affine2, Bone, LocalBone, Skeleton};
use crate::transfer::SlotPart;
use nalgebra::{Point2, Vector2};
use std::fmt;
use std::path::Path;

/// Most vertices × bones the import holds (the artist's weights are a dense matrix).
const MAX_WEIGHT_ENTRIES: usize = 100_000_000;

/// Which skin's attachments to import.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SkinSelection {
    /// The default skin: each slot's setup attachment. The default.
    #[default]
    Default,
    /// The named skin merged over the default one, as the runtimes do: each slot's setup
    /// attachment, taken from the named skin when it has one, else from the default skin.
    Named(String),
    /// Every attachment of every skin, each its own part (what a benchmark needs).
    All,
}

impl SkinSelection {
    /// `all` is [`SkinSelection::All`], `default` the default skin, any other name that skin.
    pub fn from_arg(s: &str) -> Self {
        match s {
            "all" => SkinSelection::All,
            "default" => SkinSelection::Default,
            name => SkinSelection::Named(name.to_string()),
        }
    }
}

/// Options of [`import_spine`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct SpineImportOptions {
    /// Which attachments to import. Default: [`SkinSelection::Default`].
    pub skin: SkinSelection,
    /// Scene name. Default: `None` (the file stem, or `"spine"`).
    pub name: Option<String>,
}

impl SpineImportOptions {
    /// Sets [`SpineImportOptions::skin`].
    pub fn with_skin(mut self, skin: SkinSelection) -> Self {
        self.skin = skin;
        self
    }
    /// Sets [`SpineImportOptions::name`].
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// What [`import_spine`] produced: the scene, the artist's weights and the report.
pub type SpineImport = crate::io::Imported<SpineReport>;

/// The import report.
#[derive(Debug, Clone, Default)]
pub struct SpineReport {
    /// The file's `skeleton.spine` version.
    pub version: String,
    /// Bones in the file.
    pub bones: usize,
    /// Slots in the file.
    pub slots: usize,
    /// Skin names in file order.
    pub skins: Vec<String>,
    /// Animation names (each imported as the scene's clip of that name).
    pub animations: Vec<String>,
    /// Keys over all imported clip channels.
    pub keys: usize,
    /// IK constraints imported (applied after sampling a clip).
    pub ik: usize,
    /// IK timelines imported (the clips' [`crate::animation::IkTrack`]s).
    pub ik_timelines: usize,
    /// Keys over those IK timelines.
    pub ik_keys: usize,
    /// One entry per imported attachment, in part order.
    pub attachments: Vec<AttachmentReport>,
    /// Things skipped and repaired.
    pub notes: Vec<String>,
    /// The weighted attachments whose artist weights use two or more bones, each with those
    /// bones ([`RigReport::scored_meshes`]; rigid and one-bone meshes score 100% for
    /// every solver and are left out).
    pub scored: Vec<(String, Vec<String>)>,
}

impl RigReport for SpineReport {
    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn scored_meshes(&self) -> Vec<(String, Vec<String>)> {
        self.scored.clone()
    }

    fn slots(&self) -> Vec<SlotPart> {
        self.attachments
            .iter()
            .map(|a| {
                SlotPart::new(&a.part, &a.slot, a.weighted)
                    .in_skin(&a.skin)
                    .on_bone(Some(&a.slot_bone))
            })
            .collect()
    }
}

impl SpineReport {
    /// Imported mesh and linked-mesh attachments.
    pub fn meshes(&self) -> usize {
        self.attachments
            .iter()
            .filter(|a| a.kind != "region")
            .count()
    }
    /// Vertices of imported weighted meshes.
    pub fn weighted_vertices(&self) -> usize {
        self.attachments
            .iter()
            .filter(|a| a.weighted)
            .map(|a| a.vertices)
            .sum()
    }
}

/// One imported attachment.
#[derive(Debug, Clone, PartialEq)]
pub struct AttachmentReport {
    /// Part name in the scene.
    pub part: String,
    /// Skin it comes from.
    pub skin: String,
    /// Slot.
    pub slot: String,
    /// The slot's bone (what an unweighted attachment hangs on).
    pub slot_bone: String,
    /// Attachment key in the skin.
    pub attachment: String,
    /// `mesh`, `linkedmesh` or `region`.
    pub kind: &'static str,
    /// Vertices imported.
    pub vertices: usize,
    /// Triangles imported.
    pub triangles: usize,
    /// Whether the file weights its vertices (false: rigid to the slot's bone).
    pub weighted: bool,
    /// Scene index of its first vertex (its vertices are contiguous, in file order).
    pub first_vertex: usize,
    /// Triangles turned to make them counter-clockwise.
    pub reoriented_triangles: usize,
    /// Largest `|row sum - 1|` of the file's weights before normalizing.
    pub max_row_sum_error: f64,
}

impl AttachmentReport {
    /// Scene vertex indices of this attachment.
    pub fn vertex_range(&self) -> std::ops::Range<usize> {
        self.first_vertex..self.first_vertex + self.vertices
    }
}

impl fmt::Display for SpineReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Spine {}: {} bones, {} slots, {} skins, {} animations ({} keys, {} IK{}); imported {} attachments ({} meshes, {} weighted vertices)",
            self.version,
            self.bones,
            self.slots,
            self.skins.len(),
            self.animations.len(),
            self.keys,
            self.ik,
            if self.ik_timelines > 0 {
                format!(", {} IK timelines of {} keys", self.ik_timelines, self.ik_keys)
            } else {
                String::new()
            },
            self.attachments.len(),
            self.meshes(),
            self.weighted_vertices()
        )?;
        for a in &self.attachments {
            writeln!(
                f,
                "  {:<32} {:<10} {:>4} vertices {:>4} triangles{}",
                a.part,
                a.kind,
                a.vertices,
                a.triangles,
                if a.weighted { "  weighted" } else { "" }
            )?;
        }
        for n in &self.notes {
            writeln!(f, "note: {n}")?;
        }
        Ok(())
    }
}

/// Reads a Spine JSON file (see [`import_spine`]). The atlas is `atlas` when given, else
/// the `.atlas` beside the file ([`Atlas::beside`]) when there is one.
pub fn load_spine(
    path: impl AsRef<Path>,
    atlas: Option<&Path>,
    options: &SpineImportOptions,
) -> Result<SpineImport> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let atlas_path = atlas.map(Path::to_path_buf).or_else(|| Atlas::beside(path));
    let atlas = atlas_path.map(Atlas::load).transpose()?;
    let mut options = options.clone();
    if options.name.is_none() {
        options.name = path
            .file_stem()
            .map(|s| s.to_string_lossy().trim_end_matches("-pro").to_string());
    }
    let mut imported =
        import_spine(&text, atlas.as_ref(), &options).map_err(|e| e.in_file(path))?;
    match &atlas {
        None => imported.report.notes.push(format!(
            "no atlas beside {} (looked for the file's stem, without -pro/-ess, + .atlas): imported without art, so `render` draws flat colours; give the atlas with --atlas FILE",
            path.display()
        )),
        Some(a) => {
            let missing: Vec<String> = a
                .pages
                .iter()
                .filter(|p| !p.image.is_file())
                .map(|p| p.image.display().to_string())
                .collect();
            if !missing.is_empty() {
                imported.report.notes.push(format!(
                    "the atlas's page images are missing ({}): `render` and `view` need them beside the atlas",
                    missing.join(", ")
                ));
            }
        }
    }
    Ok(imported)
}

/// An attachment ready to place: where its geometry comes from and its image.
pub(super) struct Chosen<'a> {
    pub att: &'a FileAttachment,
    /// The mesh whose geometry it uses (itself, or a linked mesh's parent); `None`: a region.
    pub mesh: Option<&'a FileAttachment>,
}

/// Part name of an attachment: the slot's name when the attachment is named after its slot,
/// else `slot/attachment`; `skin:` in front for a skin other than the default one when every
/// skin is imported.
pub(super) fn part_name(file: &FileSkeleton, att: &FileAttachment, all: bool) -> String {
    let slot = &file.slots[att.slot].name;
    let base = if &att.name == slot {
        slot.clone()
    } else {
        format!("{slot}/{}", att.name)
    };
    if all && file.skins[att.skin] != "default" {
        format!("{}:{base}", file.skins[att.skin])
    } else {
        base
    }
}

/// Stands in for a setup scale of exactly 0, which has no inverse (the skinning transform
/// needs one); vertices move by at most `1e-9 · |bind|` px.
const ZERO_SCALE: f64 = 1e-9;

/// The file's bones as a skeleton in Spine's transform model ([`Skeleton::from_local`]: the
/// bones' [`crate::skeleton::LocalTransform`]s with their inherit modes), checked: the first
/// bone (parents first) whose setup world matrix scales beyond [`MAX_SCALE`]² or whose origin
/// is beyond [`MAX_COORDINATE`] is an error, as are the skeleton's own checks (overflow,
/// singular matrices). Setup scales of exactly 0 become [`ZERO_SCALE`] (noted). Heads sit at
/// the bones' world origins; tails at `(length, 0)` (the caller may move them).
pub(super) fn setup_skeleton(file: &FileSkeleton, notes: &mut Vec<String>) -> Result<Skeleton> {
    let mut zero = Vec::new();
    let bones = file
        .bones
        .iter()
        .map(|b| {
            let mut local = b.local;
            for s in [&mut local.scale_x, &mut local.scale_y] {
                if *s == 0.0 {
                    *s = ZERO_SCALE;
                    zero.push(b.name.clone());
                }
            }
            LocalBone {
                name: b.name.clone(),
                parent: b.parent,
                local,
                length: b.length,
            }
        })
        .collect();
    zero.dedup();
    if !zero.is_empty() {
        notes.push(format!(
            "bones with a setup scale of 0 were given scale {ZERO_SCALE:e} (a skinning transform needs an inverse): {}",
            zero.join(", ")
        ));
    }
    let skeleton = Skeleton::from_local(bones)?;
    let world = skeleton.rest_affines();
    for &j in &file.order {
        let w = &world[j];
        let linear = [w.a, w.b, w.c, w.d];
        let problem = if !linear.iter().all(|x| x.abs() <= MAX_SCALE * MAX_SCALE) {
            Some(format!(
                "its setup world matrix scales beyond {} ([a, b, c, d] = {linear:?}; its own scale times its ancestors')",
                MAX_SCALE * MAX_SCALE
            ))
        } else if !(w.tx.abs() <= MAX_COORDINATE && w.ty.abs() <= MAX_COORDINATE) {
            Some(format!(
                "its setup position ({:e}, {:e}) is beyond ±{MAX_COORDINATE:e} px",
                w.tx, w.ty
            ))
        } else {
            None
        };
        if let Some(p) = problem {
            return Err(spine_error(
                format!("bone {:?}", file.bones[j].name),
                "transform",
                None,
                p,
            ));
        }
    }
    Ok(skeleton)
}

/// The attachments to import, in draw order.
fn choose<'a>(
    file: &'a FileSkeleton,
    skin: &SkinSelection,
    notes: &mut Vec<String>,
) -> Result<Vec<Chosen<'a>>> {
    let default = skin_index(file, "default");
    let picked = pick(file, skin, notes)?;
    let mut skipped: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for a in picked {
        let mesh = match &a.kind {
            Kind::Region(_) => None,
            Kind::Mesh(_) => Some(a),
            Kind::Linked { parent, skin } => Some(linked_parent(file, a, parent, skin, default)?),
            Kind::Skipped(ty) => {
                skipped.push(format!("{ty} {}/{}", file.slots[a.slot].name, a.name));
                continue;
            }
        };
        out.push(Chosen { att: a, mesh });
    }
    if !skipped.is_empty() {
        notes.push(format!(
            "{} attachments are not drawn art and were skipped: {}",
            skipped.len(),
            skipped.join(", ")
        ));
    }
    Ok(out)
}

/// The index of the skin called `name`.
fn skin_index(file: &FileSkeleton, name: &str) -> Option<usize> {
    file.skins.iter().position(|s| s == name)
}

/// The attachment `name` of `slot` in skin `skin` (none when the skin is none).
fn find_attachment<'a>(
    file: &'a FileSkeleton,
    skin: Option<usize>,
    slot: usize,
    name: &str,
) -> Option<&'a FileAttachment> {
    skin.and_then(|k| {
        file.attachments
            .iter()
            .find(|a| a.skin == k && a.slot == slot && a.name == name)
    })
}

/// The attachments `skin` selects, in slot order, before linked meshes are resolved.
fn pick<'a>(
    file: &'a FileSkeleton,
    skin: &SkinSelection,
    notes: &mut Vec<String>,
) -> Result<Vec<&'a FileAttachment>> {
    let mut picked: Vec<&FileAttachment> = Vec::new();
    if *skin == SkinSelection::All {
        for slot in 0..file.slots.len() {
            for k in 0..file.skins.len() {
                picked.extend(
                    file.attachments
                        .iter()
                        .filter(|a| a.slot == slot && a.skin == k),
                );
            }
        }
        return Ok(picked);
    }
    let default = skin_index(file, "default");
    let named = match skin {
        SkinSelection::Named(n) => Some(skin_index(file, n).ok_or_else(|| {
            spine_error(
                "skeleton",
                "skins",
                None,
                format!(
                    "no skin is called {n:?} (the file has {:?}; `all` imports every skin)",
                    file.skins
                ),
            )
        })?),
        _ => None,
    };
    let mut missing = Vec::new();
    for (s, slot) in file.slots.iter().enumerate() {
        let Some(name) = &slot.attachment else {
            continue;
        };
        match find_attachment(file, named, s, name)
            .or_else(|| find_attachment(file, default, s, name))
        {
            Some(a) => picked.push(a),
            None => missing.push(format!("{}/{name}", slot.name)),
        }
    }
    if !missing.is_empty() {
        notes.push(format!(
            "{} setup attachments are in no selected skin: {}",
            missing.len(),
            missing.join(", ")
        ));
    }
    Ok(picked)
}

/// The mesh attachment a linked mesh `a` takes its geometry from.
fn linked_parent<'a>(
    file: &'a FileSkeleton,
    a: &FileAttachment,
    parent: &str,
    skin: &Option<String>,
    default: Option<usize>,
) -> Result<&'a FileAttachment> {
    let k = match skin {
        Some(s) => skin_index(file, s),
        None => default,
    };
    let ctx = || {
        format!(
            "attachment {:?} (skin {:?}, slot {:?})",
            a.name, file.skins[a.skin], file.slots[a.slot].name
        )
    };
    let p = find_attachment(file, k, a.slot, parent).ok_or_else(|| {
        spine_error(
            ctx(),
            "parent",
            None,
            format!(
                "no mesh {parent:?} in slot {:?} of skin {:?}",
                file.slots[a.slot].name,
                skin.as_deref().unwrap_or("default")
            ),
        )
    })?;
    if !matches!(p.kind, Kind::Mesh(_)) {
        return Err(spine_error(
            ctx(),
            "parent",
            None,
            format!("{parent:?} is not a mesh attachment (a linked mesh's parent must be one)"),
        ));
    }
    Ok(p)
}

/// The geometry of one chosen attachment in the setup pose.
pub(super) struct Placed {
    pub points: Vec<[f64; 2]>,
    pub triangles: Vec<[usize; 3]>,
    /// Weight rows (file bone indices), not normalized.
    pub rows: Vec<Vec<(usize, f64)>>,
    /// Page pixel of each vertex and the page, when the atlas has the region.
    pub uvs: Option<(usize, Vec<[f64; 2]>)>,
    pub weighted: bool,
}

/// The rectangle of a region attachment in its bone's frame (BL, BR, TR, TL) and the trimmed
/// region's corners' texture coordinates (0..1 across the trimmed region, v down).
fn region_quad(r: &FileRegion, atlas: Option<&AtlasRegion>) -> [[f64; 2]; 4] {
    let (w, h, ox, oy, ow, oh) = match atlas {
        Some(a) => (
            a.bounds[2],
            a.bounds[3],
            a.offsets[0],
            a.offsets[1],
            a.offsets[2],
            a.offsets[3],
        ),
        None => (r.width, r.height, 0.0, 0.0, r.width, r.height),
    };
    // Skeleton units per original-image pixel.
    let sx = if ow > 0.0 {
        r.width / ow * r.scale_x
    } else {
        r.scale_x
    };
    let sy = if oh > 0.0 {
        r.height / oh * r.scale_y
    } else {
        r.scale_y
    };
    let x0 = -r.width / 2.0 * r.scale_x + ox * sx;
    let y0 = -r.height / 2.0 * r.scale_y + oy * sy;
    let (x1, y1) = (x0 + w * sx, y0 + h * sy);
    let (sin, cos) = r.rotation.to_radians().sin_cos();
    [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
        .map(|[x, y]| [cos * x - sin * y + r.x, sin * x + cos * y + r.y])
}

/// `m` applied to a point given as `[x, y]`.
pub(super) fn apply(m: &Affine2, [x, y]: [f64; 2]) -> [f64; 2] {
    let q = m.apply(Point2::new(x, y));
    [q.x, q.y]
}

pub(super) fn place(
    file: &FileSkeleton,
    world: &[Affine2],
    c: &Chosen,
    atlas: Option<&Atlas>,
) -> Placed {
    let slot_bone = file.slots[c.att.slot].bone;
    let region = atlas.and_then(|a| a.region(&c.att.path).map(|r| (a, r)));
    match (&c.att.kind, c.mesh.map(|m| &m.kind)) {
        (Kind::Region(r), _) => {
            let quad = region_quad(r, region.map(|(_, r)| r));
            let bw = &world[slot_bone];
            Placed {
                points: quad.iter().map(|&p| apply(bw, p)).collect(),
                triangles: vec![[0, 1, 2], [0, 2, 3]],
                rows: vec![vec![(slot_bone, 1.0)]; 4],
                uvs: region.map(|(_, reg)| {
                    (
                        reg.page,
                        [[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]]
                            .iter()
                            .map(|&[u, v]| reg.trimmed_pixel(u, v))
                            .collect(),
                    )
                }),
                weighted: false,
            }
        }
        (_, Some(Kind::Mesh(m))) => {
            let (points, rows, weighted) = match &m.geometry {
                Geometry::Weighted(vs) => (
                    vs.iter()
                        .map(|row| {
                            let mut p = [0.0, 0.0];
                            for &(j, bind, w) in row {
                                let q = apply(&world[j], bind);
                                p[0] += w * q[0];
                                p[1] += w * q[1];
                            }
                            p
                        })
                        .collect(),
                    vs.iter()
                        .map(|row| row.iter().map(|&(j, _, w)| (j, w)).collect())
                        .collect(),
                    true,
                ),
                Geometry::Rigid(vs) => (
                    vs.iter().map(|&p| apply(&world[slot_bone], p)).collect(),
                    vec![vec![(slot_bone, 1.0)]; vs.len()],
                    false,
                ),
            };
            Placed {
                points,
                triangles: m.triangles.clone(),
                rows,
                uvs: region.map(|(_, reg)| {
                    (
                        reg.page,
                        m.uvs.iter().map(|&[u, v]| reg.page_pixel(u, v)).collect(),
                    )
                }),
                weighted,
            }
        }
        _ => unreachable!("choose() gives every mesh and linked mesh its mesh"),
    }
}

/// Parses a Spine JSON project and builds one scene (see the module docs for the format).
///
/// - Bones: every bone of the file, in file order, at its setup world transform: head = the
///   bone's origin, tail along its world x axis at its `length` (a length of 0 becomes
///   [`ZERO_LENGTH_TAIL`]). Scale and shear stay in the vertex positions, not the bones.
/// - Parts: one per imported attachment (see [`SkinSelection`]), named by
///   `slot`, `slot/attachment` or `skin:slot/attachment`, in draw order; every vertex at
///   its setup-pose world position. Region attachments become two-triangle quads rigid to
///   their slot's bone; clipping, bounding box, path and point attachments are skipped (noted).
/// - Triangles are made counter-clockwise (counted in the report); triangles of zero area
///   are dropped (noted); an attachment whose mesh `Mesh::new` still rejects (vertices no
///   triangle uses, edges shared by three triangles) is skipped with a note naming it.
/// - With an atlas the scene carries the art: one image per page, each vertex's page
///   pixel, layers in draw order. An attachment whose region is missing is drawn flat (noted).
///   Each layer records its slot, attachment name, whether it is the slot's setup
///   attachment and (with [`SkinSelection::All`]) its skin, so renders draw one attachment
///   per slot ([`crate::scene::Art::drawn_layers`]).
/// - Animations become the scene's clips and IK constraints its IK (see the `animation`
///   module), slot attachment timelines the clips' attachment tracks; transform, path and
///   physics constraints and the timelines the clip model has no channel for (slot colours,
///   deform, draw order, events, constraint timelines) are listed in the notes, not applied.
///
/// Errors: [`FormatError::Json`](crate::error::FormatError::Json) for text that is not JSON; [`FormatError::Rig`](crate::error::FormatError::Rig) naming the bone, slot,
/// skin or attachment, the field and the vertex (wrong types, numbers beyond ±1e6 px or
/// scales beyond ±1000, bone indices out of range, a `boneCount` overrunning `vertices`,
/// unknown skins, linked meshes without a parent mesh); [`SkeletonError::UnknownParent`](crate::error::SkeletonError::UnknownParent),
/// [`SkeletonError::DuplicateBone`](crate::error::SkeletonError::DuplicateBone) for the hierarchy.
pub fn import_spine(
    text: &str,
    atlas: Option<&Atlas>,
    options: &SpineImportOptions,
) -> Result<SpineImport> {
    let file = parse_skeleton(text)?;
    let mut report = SpineReport {
        version: file.version.clone(),
        bones: file.bones.len(),
        slots: file.slots.len(),
        skins: file.skins.clone(),
        animations: file.animations.clone(),
        ..SpineReport::default()
    };
    let setup = setup_skeleton(&file, &mut report.notes)?;
    let world = setup.rest_affines();
    let chosen = choose(&file, &options.skin, &mut report.notes)?;
    let all = options.skin == SkinSelection::All;

    let placed_all = place_all(&file, world, &chosen, atlas)?;
    let mut parts = Assembly::new(file.bones.len(), atlas);
    for (c, p) in chosen.iter().zip(placed_all) {
        parts.add(&file, c, p, atlas, all, &mut report.attachments);
    }
    if parts.builder.part_count() == 0 {
        return Err(no_attachment_error(&file, &options.skin, &parts.rejected));
    }
    assembly_notes(&file, &chosen, &parts, &mut report);

    let mut builder = parts.builder;
    builder.normalize_weights();
    let bones = scene_bones(&file, world, &setup, &mut report.notes);
    let built = builder.finish(bones, &file.order, &mut report.notes)?;
    let name = options.name.clone().unwrap_or_else(|| "spine".into());
    let mut scene = Scene::new(name, built.mesh, built.skeleton, built.probes)?;
    if let Some(art) = built.art {
        scene = scene.with_art(art)?;
    }
    let artist = built.artist;
    let scene = attach_animation(&file, scene, &mut report)?;
    report.scored = report
        .attachments
        .iter()
        .filter(|a| a.weighted)
        .filter_map(|a| {
            let bones = weighted_bones(&scene, &artist, a.vertex_range());
            (bones.len() >= 2).then(|| (a.part.clone(), bones))
        })
        .collect();
    Ok(SpineImport {
        scene,
        artist,
        report,
    })
}

/// Places every chosen attachment in the setup pose, rejecting coordinates beyond
/// [`MAX_COORDINATE`] and more weights than [`MAX_WEIGHT_ENTRIES`].
fn place_all(
    file: &FileSkeleton,
    world: &[Affine2],
    chosen: &[Chosen],
    atlas: Option<&Atlas>,
) -> Result<Vec<Placed>> {
    let mut placed_all = Vec::with_capacity(chosen.len());
    let mut n_vertices = 0usize;
    for c in chosen {
        let p = place(file, world, c, atlas);
        for (v, q) in p.points.iter().enumerate() {
            if !(q[0].abs() <= MAX_COORDINATE && q[1].abs() <= MAX_COORDINATE) {
                return Err(spine_error(
                    attachment_context(file, c.att),
                    "vertices",
                    Some(v),
                    format!(
                        "its setup position ({:e}, {:e}) is beyond ±{MAX_COORDINATE:e} px",
                        q[0], q[1]
                    ),
                ));
            }
        }
        n_vertices += p.points.len();
        if n_vertices.saturating_mul(file.bones.len()) > MAX_WEIGHT_ENTRIES {
            return Err(spine_error(
                "skeleton",
                "skins",
                None,
                format!(
                    "more than {MAX_WEIGHT_ENTRIES} vertices × bones ({} bones): more weights than the import holds",
                    file.bones.len()
                ),
            ));
        }
        placed_all.push(p);
    }
    Ok(placed_all)
}

/// One attachment's triangles made counter-clockwise, with zero-area ones left out.
struct Oriented {
    triangles: Vec<[usize; 3]>,
    /// Triangles that were clockwise and were reversed.
    reoriented: usize,
    /// Triangles of zero area (or repeated corners) left out.
    dropped: usize,
}

/// Orients `triangles` counter-clockwise over `points`, dropping the degenerate ones.
fn orient(points: &[Point2<f64>], triangles: &[[usize; 3]]) -> Oriented {
    let mut reoriented = 0;
    let mut dropped = 0;
    let mut oriented = Vec::with_capacity(triangles.len());
    for &t in triangles {
        let [a, b, cc] = t.map(|i| points[i]);
        let area2 = signed_area2(&a, &b, &cc);
        let scale = [a, b, cc]
            .iter()
            .map(|q| q.x.abs().max(q.y.abs()))
            .fold(1.0, f64::max);
        if area2.abs() <= 1e-12 * scale * scale || t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
            dropped += 1;
            continue;
        }
        if area2 > 0.0 {
            oriented.push(t);
        } else {
            reoriented += 1;
            oriented.push([t[0], t[2], t[1]]);
        }
    }
    Oriented {
        triangles: oriented,
        reoriented,
        dropped,
    }
}

/// The imported attachments as the parts of one scene, with what the report notes about
/// them.
struct Assembly {
    /// Parts, weight rows (file bone order, summed where a bone repeats) and the art's
    /// layers in draw order.
    builder: SceneBuilder,
    /// Notes: attachments whose region the atlas lacks, rejected meshes, folded meshes.
    missing_regions: Vec<String>,
    rejected: Vec<String>,
    folded: Vec<String>,
    /// Largest deviation of an artist weight row's sum from 1.
    max_err_all: f64,
    /// Weights past 1 (rounding in the export), as `attachment vertex k: w`.
    past_one: Vec<String>,
    /// Weights below 0 (rounding in the export, clamped to 0), as `attachment vertex k: w`.
    below_zero: Vec<String>,
    /// Notes of zero-area triangles dropped, per attachment.
    dropped_notes: Vec<String>,
}

impl Assembly {
    /// No parts yet; with an atlas, one image per page.
    fn new(n_bones: usize, atlas: Option<&Atlas>) -> Self {
        let mut builder = SceneBuilder::for_artist_meshes(n_bones);
        if let Some(atlas) = atlas {
            builder = builder.with_art();
            for (k, p) in atlas.pages.iter().enumerate() {
                builder.add_image(ArtImage {
                    name: p.name.clone(),
                    path: p.image.clone(),
                    alpha: atlas.alpha(k),
                });
            }
        }
        Assembly {
            builder,
            missing_regions: Vec::new(),
            rejected: Vec::new(),
            folded: Vec::new(),
            max_err_all: 0.0,
            past_one: Vec::new(),
            below_zero: Vec::new(),
            dropped_notes: Vec::new(),
        }
    }

    /// Appends one placed attachment as a part (or records why it was rejected) and its
    /// entry in `reports`.
    fn add(
        &mut self,
        file: &FileSkeleton,
        c: &Chosen,
        p: Placed,
        atlas: Option<&Atlas>,
        all: bool,
        reports: &mut Vec<AttachmentReport>,
    ) {
        let name = part_name(file, c.att, all);
        let ctx = attachment_context(file, c.att);
        let points: Vec<Point2<f64>> = p.points.iter().map(|&[x, y]| Point2::new(x, y)).collect();
        let Oriented {
            triangles: oriented,
            reoriented,
            dropped,
        } = orient(&points, &p.triangles);
        if dropped > 0 {
            self.dropped_notes.push(format!(
                "{ctx}: {dropped} triangles of zero area in the setup pose dropped"
            ));
        }
        // Artist meshes fold, overlap and leave vertices unused: the artist entry point
        // keeps them (solvers use connectivity); only what no mesh can hold is rejected.
        if let Err(e) = Mesh::from_artist(
            points.clone(),
            oriented.clone(),
            vec![name.clone()],
            vec![0; points.len()],
        ) {
            self.rejected.push(format!("{ctx} ({e})"));
            return;
        }
        let folds = overlapping_edges(&oriented);
        if folds > 0 {
            self.folded.push(format!("{name} ({folds} edges)"));
        }
        let n = points.len();
        let name = self.builder.unique_name(&name);
        let added = self.builder.add_part(name, points, &oriented);
        let first = added.vertices.start;
        let max_err = self.add_weights(&ctx, first, &p.rows);
        self.max_err_all = self.max_err_all.max(max_err);
        let (uvs, image) = self.layer_art(c, p.uvs, n, atlas);
        // Layers keep the parts' (draw) order.
        self.builder
            .add_layer(added.index, uvs, image, added.index as i64);
        self.set_slot(file, c, all);
        reports.push(AttachmentReport {
            part: added.name,
            skin: file.skins[c.att.skin].clone(),
            slot: file.slots[c.att.slot].name.clone(),
            slot_bone: file.bones[file.slots[c.att.slot].bone].name.clone(),
            attachment: c.att.name.clone(),
            kind: match c.att.kind {
                Kind::Region(_) => "region",
                Kind::Linked { .. } => "linkedmesh",
                _ => "mesh",
            },
            vertices: n,
            triangles: oriented.len(),
            weighted: p.weighted,
            first_vertex: first,
            reoriented_triangles: reoriented,
            max_row_sum_error: max_err,
        });
    }

    /// Adds the weight rows of a part whose first vertex is `first` (weights past 1 noted,
    /// named by `ctx`); the largest distance of a row's sum from 1.
    fn add_weights(&mut self, ctx: &str, first: usize, rows: &[Vec<(usize, f64)>]) -> f64 {
        let mut max_err: f64 = 0.0;
        for (k, row) in rows.iter().enumerate() {
            let s: f64 = row.iter().map(|r| r.1.max(0.0)).sum();
            max_err = max_err.max((s - 1.0).abs());
            for &(j, w) in row {
                if w > 1.0 {
                    self.past_one.push(format!("{ctx} vertex {k}: {w}"));
                }
                if w < 0.0 {
                    self.below_zero.push(format!("{ctx} vertex {k}: {w}"));
                    continue;
                }
                self.builder.add_weight(first + k, j, w);
            }
        }
        max_err
    }

    /// Records the slot the last layer's attachment is in. The slot shows it at rest when it
    /// is the slot's setup attachment; with every skin imported (`all`), the skin decides
    /// among attachments of one name.
    fn set_slot(&mut self, file: &FileSkeleton, c: &Chosen, all: bool) {
        let slot = &file.slots[c.att.slot];
        self.builder.set_layer_slot(SlotAttachment {
            slot: slot.name.clone(),
            attachment: c.att.name.clone(),
            skin: all.then(|| file.skins[c.att.skin].clone()),
            setup: slot.attachment.as_deref() == Some(c.att.name.as_str()),
        });
    }

    /// One attachment's page pixels (the origin for its `n` vertices without a region) and
    /// its layer's image.
    fn layer_art(
        &mut self,
        c: &Chosen,
        uvs: Option<(usize, Vec<[f64; 2]>)>,
        n: usize,
        atlas: Option<&Atlas>,
    ) -> (Vec<Point2<f64>>, Option<usize>) {
        match uvs {
            Some((page, pixels)) => (
                pixels.iter().map(|&[u, v]| Point2::new(u, v)).collect(),
                Some(page),
            ),
            None => {
                if atlas.is_some() {
                    self.missing_regions.push(c.att.path.clone());
                }
                (vec![Point2::origin(); n], None)
            }
        }
    }
}

/// Most skins the no-attachment error lists by name.
const LISTED_SKINS: usize = 8;

/// The error when `skin` selects nothing to import: the rejections, else the skins that hold
/// slots' setup attachments (name and count, most first, at most [`LISTED_SKINS`]) and the
/// `--skin` argument that imports them (`import` and `batch` take it).
fn no_attachment_error(file: &FileSkeleton, skin: &SkinSelection, rejected: &[String]) -> Error {
    let selected = match skin {
        SkinSelection::Default => "the default skin".to_string(),
        SkinSelection::Named(n) => format!("skin {n:?}"),
        SkinSelection::All => "every skin".to_string(),
    };
    let why = if rejected.is_empty() {
        "no slot's setup attachment is drawable art in it".to_string()
    } else {
        format!("rejected: {}", rejected.join("; "))
    };
    let hint = if *skin == SkinSelection::All {
        String::new()
    } else {
        other_skins_hint(file, skin)
    };
    spine_error(
        "skeleton",
        "skins",
        None,
        format!("no attachment to import with {selected} ({why}){hint}"),
    )
}

/// Where else the art is, for [`no_attachment_error`]: the skins other than `skin` and the
/// default holding drawable setup attachments, with `--skin NAME` / `--skin all`; when none
/// does, the skins holding any drawable attachment, with `--skin all`.
fn other_skins_hint(file: &FileSkeleton, skin: &SkinSelection) -> String {
    let tried = |k: usize| {
        file.skins[k] == "default" || matches!(skin, SkinSelection::Named(n) if *n == file.skins[k])
    };
    let mut setup = vec![0usize; file.skins.len()];
    let mut drawable = vec![0usize; file.skins.len()];
    for a in &file.attachments {
        if tried(a.skin) || matches!(a.kind, Kind::Skipped(_)) {
            continue;
        }
        drawable[a.skin] += 1;
        if file.slots[a.slot].attachment.as_deref() == Some(a.name.as_str()) {
            setup[a.skin] += 1;
        }
    }
    let listed = |counts: &[usize], unit: &str| {
        let mut skins: Vec<usize> = (0..counts.len()).filter(|&k| counts[k] > 0).collect();
        skins.sort_by_key(|&k| std::cmp::Reverse(counts[k]));
        let mut names: Vec<String> = skins
            .iter()
            .take(LISTED_SKINS)
            .enumerate()
            .map(|(i, &k)| match i {
                0 => format!("{:?} ({} {unit})", file.skins[k], counts[k]),
                _ => format!("{:?} ({})", file.skins[k], counts[k]),
            })
            .collect();
        if skins.len() > LISTED_SKINS {
            names.push(format!("and {} more", skins.len() - LISTED_SKINS));
        }
        (
            skins.first().map(|&k| file.skins[k].clone()),
            names.join(", "),
        )
    };
    match listed(&setup, "setup attachments") {
        (Some(first), names) => format!(
            "; skins with setup attachments: {names}; import one with `--skin NAME` \
             (e.g. `--skin {first}`) or every skin's attachments with `--skin all`"
        ),
        (None, _) => match listed(&drawable, "attachments") {
            (Some(_), names) => format!(
                "; no other skin holds a slot's setup attachment either; skins with attachments: \
                 {names}; import every skin's attachments with `--skin all`"
            ),
            (None, _) => "; no skin holds drawable art".to_string(),
        },
    }
}

/// The report's notes about the assembled attachments, the animations and the
/// constraints not applied.
fn assembly_notes(
    file: &FileSkeleton,
    chosen: &[Chosen],
    parts: &Assembly,
    report: &mut SpineReport,
) {
    mesh_notes(parts, report);
    file_notes(file, chosen, report);
}

/// The notes about the assembled meshes: dropped, reoriented, folded, skipped, without an
/// atlas region, and the artist weights rounded in the file.
fn mesh_notes(parts: &Assembly, report: &mut SpineReport) {
    report.notes.extend(parts.dropped_notes.iter().cloned());
    let reoriented: usize = report
        .attachments
        .iter()
        .map(|a| a.reoriented_triangles)
        .sum();
    if reoriented > 0 {
        report.notes.push(format!(
            "{reoriented} triangles were clockwise in the setup pose (Spine draws both sides): reversed"
        ));
    }
    if !parts.folded.is_empty() {
        report.notes.push(format!(
            "{} meshes fold over themselves in the setup pose: {}",
            parts.folded.len(),
            parts.folded.join(", ")
        ));
    }
    if !parts.rejected.is_empty() {
        report.notes.push(format!(
            "{} attachments skipped (the mesh model does not take them yet): {}",
            parts.rejected.len(),
            parts.rejected.join("; ")
        ));
    }
    if !parts.missing_regions.is_empty() {
        report.notes.push(format!(
            "{} attachments have no atlas region and are drawn flat: {}",
            parts.missing_regions.len(),
            parts.missing_regions.join(", ")
        ));
    }
    for (list, what) in [
        (
            &parts.past_one,
            "past 1 (rounding in the export; their rows are renormalized)",
        ),
        (
            &parts.below_zero,
            "below 0 (rounding in the export; clamped to 0, their rows renormalized)",
        ),
    ] {
        if !list.is_empty() {
            let shown = crate::io::tolerance::listed(list, 4, "; ");
            report
                .notes
                .push(format!("{} weights {what}: {shown}", list.len()));
        }
    }
    if parts.max_err_all > 1e-9 {
        report.notes.push(format!(
            "artist weight rows summed to 1 within {:.1e} (rounded in the file): normalized",
            parts.max_err_all
        ));
    }
}

/// The notes about the file itself: sequences, animations, hidden slots and the constraints
/// not applied.
fn file_notes(file: &FileSkeleton, chosen: &[Chosen], report: &mut SpineReport) {
    let sequences = chosen.iter().filter(|c| c.att.sequence).count();
    if sequences > 0 {
        report.notes.push(format!(
            "{sequences} attachments are sequences: their setup frame is drawn"
        ));
    }
    report.notes.extend(file.animation.notes.iter().cloned());
    let hidden: Vec<&str> = file
        .slots
        .iter()
        .filter(|s| !s.visible)
        .map(|s| s.name.as_str())
        .collect();
    if !hidden.is_empty() {
        report.notes.push(format!(
            "{} slots are hidden in the setup pose (visible: false), drawn anyway: {}",
            hidden.len(),
            hidden.join(", ")
        ));
    }
    let [_, transform, path, physics] = file.constraints;
    for (n, what) in [
        (transform, "transform"),
        (path, "path"),
        (physics, "physics"),
        (file.sliders, "slider"),
    ] {
        if n > 0 {
            report
                .notes
                .push(format!("{n} {what} constraints not applied"));
        }
    }
}

/// The scene's bones: the setup transforms, each segment along its world x axis.
fn scene_bones(
    file: &FileSkeleton,
    world: &[Affine2],
    setup: &Skeleton,
    notes: &mut Vec<String>,
) -> Vec<Bone> {
    let mut bones = Vec::with_capacity(file.bones.len());
    let mut no_axis = Vec::new();
    for (j, b) in file.bones.iter().enumerate() {
        let w = &world[j];
        let head = Point2::new(w.tx, w.ty);
        let mut axis = Vector2::new(w.a, w.c);
        if axis.norm() <= 1e-12 || !axis.norm().is_finite() {
            // A bone scaled to 0 along x keeps its rotation's direction.
            no_axis.push(b.name.clone());
            let r = b.local.rotation.to_radians();
            axis = Vector2::new(r.cos(), r.sin());
        }
        let length = if b.length > 0.0 {
            b.length
        } else {
            ZERO_LENGTH_TAIL
        };
        // The scene bone keeps the setup transform (clips pose it in Spine's model); its
        // segment runs along the world x axis for `length` px, as the solvers expect.
        bones.push(Bone {
            parent: b.parent,
            local: setup.bones()[j].local,
            ..Bone::new(b.name.clone(), head, head + axis.normalize() * length)
        });
    }
    if !no_axis.is_empty() {
        notes.push(format!(
            "bones with a world x axis of length 0 point along their local rotation: {}",
            no_axis.join(", ")
        ));
    }
    bones
}

/// Adds the file's clips and the IK constraints the scene's model takes, noting the rest.
fn attach_animation(file: &FileSkeleton, scene: Scene, report: &mut SpineReport) -> Result<Scene> {
    // IK constraints the scene's model cannot take (a second bone that is not the first's
    // child, a mix beyond ±1000) are left out, named; clips are checked as they are.
    let mut ik = Vec::new();
    for c in &file.animation.ik {
        match c.check(&scene.skeleton) {
            Ok(()) => ik.push(c.clone()),
            Err(e) => report.notes.push(format!("IK constraint left out: {e}")),
        }
    }
    let mut clips = file.animation.clips.clone();
    let mut orphaned = Vec::new();
    for c in &mut clips {
        c.ik.retain(|t| {
            let kept = ik.iter().any(|k| k.name == t.constraint);
            if !kept {
                orphaned.push(format!("{} ({})", c.name, t.constraint));
            }
            kept
        });
    }
    if !orphaned.is_empty() {
        report.notes.push(format!(
            "IK timelines of left-out constraints dropped: {}",
            orphaned.join(", ")
        ));
    }
    report.keys = clips.iter().map(|c| c.key_count()).sum();
    report.ik = ik.len();
    report.ik_timelines = clips.iter().map(|c| c.ik.len()).sum();
    report.ik_keys = clips.iter().map(|c| c.ik_key_count()).sum();
    scene.with_animation(clips, ik)
}

/// `attachment "NAME" (skin "S", slot "SLOT")`, the context of an attachment's errors.
pub(super) fn attachment_context(file: &FileSkeleton, a: &FileAttachment) -> String {
    format!(
        "attachment {:?} (skin {:?}, slot {:?})",
        a.name, file.skins[a.skin], file.slots[a.slot].name
    )
}
