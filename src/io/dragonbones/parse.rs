//! Reading a DragonBones file into checked values (no geometry is built here).

use super::import::ImportReport;
use super::{DragonBonesAffine, ReadTransform, MAX_COORDINATE};
use crate::animation::MAX_KEYS;
use crate::error::{Error, FormatError, Result, RigFormat, SkeletonError};
use crate::io::json_path::{parse_json, shown, JsonAt};
use crate::skeleton::Affine2;
use crate::skeleton::{Bone, Skeleton};
use nalgebra::Point2;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Largest weight accepted: weights are fractions of 1, written rounded.
const MAX_WEIGHT: f64 = 1.001;
use crate::io::tolerance::MIN_ROUNDED_WEIGHT;

/// Most JSON objects (`{` bytes, counted before parsing) a file may hold. Every animation
/// key is one frame object and a file holds at most [`MAX_KEYS`] of them; the quarter more
/// is room for bones, slots and displays (the sample body has 1,906 objects in all). Checked
/// first because the parsed document costs about 650 bytes per one-field object: 10^7 frames
/// took 7 GB and 44 s before the key cap could refuse them.
const MAX_OBJECTS: usize = MAX_KEYS + MAX_KEYS / 4;

/// A bone as the file gives it (y-down).
pub(super) struct FileBone {
    pub name: String,
    pub parent: Option<usize>,
    pub length: f64,
    pub setup_local: Affine2,
    pub inherit_translation: bool,
    pub inherit_rotation: bool,
    pub inherit_scale: bool,
}

/// The skinning data of a weighted mesh (bone indices into the armature's bone list).
#[derive(Clone)]
pub(super) struct FileSkin {
    pub slot_pose: Affine2,
    pub bone_poses: Vec<(usize, Affine2)>,
    pub influences: Vec<Vec<(usize, f64)>>,
    pub max_row_sum_error: f64,
    /// Weights below 0 (rounding in the export) clamped to 0, as `vertex v bone "B": w`.
    pub below_zero: Vec<String>,
}

/// A mesh display as the file gives it.
#[derive(Clone)]
pub(super) struct FileMesh {
    /// The skin it belongs to: `None` for the default skin (named `""` or `"default"`).
    pub skin_name: Option<String>,
    pub slot: String,
    pub slot_bone: Option<usize>,
    pub display: String,
    pub display_transform: Affine2,
    pub vertices: Vec<[f64; 2]>,
    pub triangles: Vec<[usize; 3]>,
    pub skin: Option<FileSkin>,
    /// Texture coordinates (`uvs`), 0..1 across the display's atlas region, if given.
    pub uvs: Option<Vec<[f64; 2]>>,
    /// The atlas region's name: the display's `path`, else its `name`.
    pub texture: String,
    /// The slot's place in the armature's `slot` list (draw order, back to front).
    pub draw_order: usize,
}

impl FileMesh {
    /// Its part's name: the slot's, with `skin:` in front for a skin other than the default
    /// one (as the Spine import names every skin's attachments).
    pub fn part_name(&self) -> String {
        match &self.skin_name {
            None => self.slot.clone(),
            Some(skin) => format!("{skin}:{}", self.slot),
        }
    }
}

/// Everything the importer reads from the file, checked.
pub(super) struct FileArmature {
    pub bones: Vec<FileBone>,
    /// Bones parents-first.
    pub order: Vec<usize>,
    pub meshes: Vec<FileMesh>,
    /// Armature name, version and notes on what was skipped.
    pub report: ImportReport,
    /// The armature's animations (bone timelines), not yet checked against the skeleton.
    pub clips: Vec<crate::animation::Clip>,
}

/// Parses the first armature: bones, slots and the default skin's mesh displays.
pub(super) fn parse_armature(text: &str) -> Result<FileArmature> {
    let objects = text.bytes().filter(|&b| b == b'{').count();
    if objects > MAX_OBJECTS {
        return Err(JsonAt::dragonbones("file").error("(root)", format!(
                "{objects} JSON objects, more than the {MAX_OBJECTS} the import reads (at most {MAX_KEYS} animation keys)"
            ),
        ));
    }
    let root = parse_json(text.as_bytes(), "DragonBones")?;
    let top = JsonAt::dragonbones("file");
    top.object(&root, "(root)")?;
    let armatures = top.array(&root, "armature")?;
    if armatures.is_empty() {
        return Err(top.error("armature", "no armature in the file"));
    }
    let version = top.opt_string(&root, "version")?.unwrap_or_default();
    refuse_global(&root, &version)?;
    let mut report = ImportReport {
        version,
        ..ImportReport::default()
    };
    let armature = choose_armature(armatures, &mut report.notes)?;
    let at = JsonAt::dragonbones("armature");
    report.armature = at.opt_string(armature, "name")?.unwrap_or_default();

    let bones = parse_bones(armature, &mut report.notes)?;
    // 5.7 surface bones deform the meshes bound to them by a lattice; here they are read as
    // bones like any other (at their transform), so that a file with them still loads.
    let surfaces: Vec<&str> = at
        .array(armature, "bone")?
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("surface"))
        .filter_map(|b| b.get("name").and_then(Value::as_str))
        .collect();
    if !surfaces.is_empty() {
        report.notes.push(format!(
            "{} surface bones read as plain bones (their lattice deformation is not applied): {}",
            surfaces.len(),
            surfaces.join(", ")
        ));
    }
    // Validates names and parents and gives a parents-first order.
    let order = Skeleton::new(
        bones
            .iter()
            .map(|b| Bone {
                parent: b.parent,
                ..Bone::new(b.name.clone(), Point2::origin(), Point2::origin())
            })
            .collect(),
    )?
    .topological_order()
    .to_vec();
    let slots = parse_slots(armature, &bones)?;
    let meshes = parse_meshes(armature, &bones, &slots, &mut report.notes)?;
    if meshes.is_empty() {
        return Err(at.error("skin", "no mesh display to import"));
    }

    let clips = super::clips::parse_clips(&root, armature, &mut report.notes)?;
    Ok(FileArmature {
        bones,
        order,
        meshes,
        report,
        clips,
    })
}

fn parse_bones(armature: &Value, notes: &mut Vec<String>) -> Result<Vec<FileBone>> {
    let mut numeric = Vec::new();
    let at = JsonAt::dragonbones("armature");
    let raw = at.array(armature, "bone")?;
    let mut names: HashMap<String, usize> = HashMap::new();
    for (i, b) in raw.iter().enumerate() {
        let name = at
            .string(b, "name")
            .map_err(|e| with_context(e, format!("bone {i}")))?;
        names.entry(name).or_insert(i);
    }
    let bones = raw
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let ctx = format!("bone {i}");
            let at = JsonAt::dragonbones(&ctx);
            let name = at.string(b, "name")?;
            let ctx = format!("bone {name:?}");
            let at = JsonAt::dragonbones(&ctx);
            let parent = match at.opt_string(b, "parent")? {
                None => None,
                Some(p) => Some(*names.get(&p).ok_or_else(|| {
                    Error::Skeleton(SkeletonError::UnknownParent {
                        bone: name.clone(),
                        parent: p.clone(),
                    })
                })?),
            };
            let length = at.number_or(b, "length", 0.0)?;
            if !(0.0..=MAX_COORDINATE).contains(&length) {
                return Err(at.error(
                    "length",
                    format!("{length:e} is outside 0..={MAX_COORDINATE:e} px"),
                ));
            }
            Ok(FileBone {
                parent,
                length,
                setup_local: at.transform(b)?,
                inherit_translation: at.bool_or(b, "inheritTranslation", true, &mut numeric)?,
                inherit_rotation: at.bool_or(b, "inheritRotation", true, &mut numeric)?,
                inherit_scale: at.bool_or(b, "inheritScale", true, &mut numeric)?,
                name,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    notes.extend(crate::io::tolerance::numeric_flags_note(&numeric));
    Ok(bones)
}

pub(super) fn with_context(e: Error, context: String) -> Error {
    match e {
        Error::Format(FormatError::Rig {
            format: RigFormat::DRAGONBONES,
            field,
            vertex,
            message,
            ..
        }) => Error::Format(FormatError::Rig {
            format: RigFormat::DRAGONBONES,
            context,
            field,
            vertex,
            message,
        }),
        e => e,
    }
}

/// Slot name → index of its parent bone.
/// Every slot's bone and its place in the draw order (the armature's `slot` list, back to
/// front).
fn parse_slots(
    armature: &Value,
    bones: &[FileBone],
) -> Result<HashMap<String, (Option<usize>, usize)>> {
    let at = JsonAt::dragonbones("armature");
    let Some(raw) = armature.get("slot") else {
        return Ok(HashMap::new());
    };
    let raw = raw
        .as_array()
        .ok_or_else(|| at.error("slot", "expected an array"))?;
    let bone_index: HashMap<&str, usize> = bones
        .iter()
        .enumerate()
        .map(|(j, b)| (b.name.as_str(), j))
        .collect();
    let mut slots = HashMap::new();
    let mut first_index: HashMap<String, usize> = HashMap::new();
    for (i, s) in raw.iter().enumerate() {
        let ctx = format!("slot {i}");
        let at = JsonAt::dragonbones(&ctx);
        let name = at.string(s, "name")?;
        if let Some(first) = first_index.insert(name.clone(), i) {
            return Err(at.error(
                "name",
                format!(
                    "{name:?} is also the name of slot {first} (a skin could not tell them apart)"
                ),
            ));
        }
        let bone = match at.opt_string(s, "parent")? {
            None => None,
            Some(p) => Some(bone_index.get(p.as_str()).copied().ok_or_else(|| {
                Error::Format(FormatError::Rig {
                    format: RigFormat::DRAGONBONES,
                    context: format!("slot {name:?}"),
                    field: "parent".into(),
                    vertex: None,
                    message: format!("bone {p:?} does not exist"),
                })
            })?),
        };
        slots.insert(name, (bone, i));
    }
    Ok(slots)
}

fn is_mesh(display: &Value) -> bool {
    match display.get("type") {
        Some(Value::String(s)) => s == "mesh",
        // DisplayType.Mesh in the binary enum.
        Some(Value::Number(n)) => n.as_u64() == Some(2),
        _ => false,
    }
}

/// Refuses global transforms: DragonBones 4.x and older could write every bone transform in
/// armature space (`isGlobal` 1). The importer reads transforms relative to the parent bone
/// (what 5.x writes, and 4.5 with `isGlobal: 0`; an absent flag reads as relative, as the 5.x
/// runtimes read it), so global data is an error rather than a misplaced skeleton.
fn refuse_global(root: &Value, version: &str) -> Result<()> {
    let at = JsonAt::dragonbones("file");
    let global = match root.get("isGlobal") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(Value::String(s)) => !matches!(s.as_str(), "" | "0" | "false"),
        Some(v) => {
            return Err(at.error("isGlobal", format!("expected 0 or 1, found {v}")));
        }
    };
    if global {
        return Err(at.error("isGlobal", format!("global (armature-space) bone transforms of DragonBones {version} data are not read: export with isGlobal 0 (DragonBones 4.5 or later)"),
        ));
    }
    Ok(())
}

/// The armature to import: the first whose skins hold a mesh display. Files also carry
/// armatures of images only (effects, props, sub-armatures shown in a slot), often listed
/// before the character; the others are named in the notes with their mesh displays.
fn choose_armature<'v>(armatures: &'v [Value], notes: &mut Vec<String>) -> Result<&'v Value> {
    for (i, a) in armatures.iter().enumerate() {
        JsonAt::dragonbones("armature").object(a, &format!("armature[{i}]"))?;
    }
    let counts: Vec<usize> = armatures.iter().map(mesh_display_count).collect();
    let chosen = counts.iter().position(|&n| n > 0).unwrap_or(0);
    if armatures.len() > 1 {
        let name = |a: &Value| {
            a.get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let others: Vec<String> = armatures
            .iter()
            .zip(&counts)
            .enumerate()
            .filter(|&(i, _)| i != chosen)
            .map(|(_, (a, n))| format!("{:?} ({n} mesh displays)", name(a)))
            .collect();
        notes.push(format!(
            "the file has {} armatures; imported {:?}, the first with a mesh display; not {}",
            armatures.len(),
            name(&armatures[chosen]),
            others.join(", ")
        ));
    }
    Ok(&armatures[chosen])
}

/// Mesh displays over every skin of an armature (what does not have the expected layout
/// counts nothing here: the parser names it if that armature is chosen).
fn mesh_display_count(armature: &Value) -> usize {
    armature
        .get("skin")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|skin| skin.get("slot").and_then(Value::as_array))
        .flatten()
        .filter_map(|slot| slot.get("display").and_then(Value::as_array))
        .flatten()
        .filter(|d| is_mesh(d))
        .count()
}

/// Whether a skin name is the default skin's (`""`, `"default"`, or none).
fn is_default_skin(name: Option<&str>) -> bool {
    matches!(name, None | Some("" | "default"))
}

/// A mesh display that takes its geometry from another (`share`), resolved once every skin is
/// read: its own name, image and transform, the geometry of the mesh `share` names in the
/// same slot of skin `skin` (the display's `skin` field, default the default skin).
struct Shared {
    /// Where it goes among the parts (file order).
    index: usize,
    skin: Option<String>,
    slot: String,
    share: String,
    from_skin: Option<String>,
    display: String,
    texture: String,
    display_transform: Affine2,
}

/// Every mesh display of every skin, the default skin first (each skin's in file order):
/// meshes with their own geometry, and `share` meshes given the geometry they name.
fn parse_meshes(
    armature: &Value,
    bones: &[FileBone],
    slots: &HashMap<String, (Option<usize>, usize)>,
    notes: &mut Vec<String>,
) -> Result<Vec<FileMesh>> {
    let at = JsonAt::dragonbones("armature");
    let skins = match armature.get("skin") {
        None => return Ok(Vec::new()),
        Some(s) => s
            .as_array()
            .ok_or_else(|| at.error("skin", "expected an array"))?,
    };
    if skins.is_empty() {
        return Ok(Vec::new());
    }
    let skin_name = |s: &Value| s.get("name").and_then(Value::as_str).map(str::to_string);
    // The default skin is the one named "" or "default", else the first.
    let default = skins
        .iter()
        .position(|s| is_default_skin(skin_name(s).as_deref()))
        .unwrap_or(0);
    let order = std::iter::once(default).chain((0..skins.len()).filter(|&k| k != default));
    let mut read = SkinMeshes {
        bones,
        slots,
        meshes: Vec::new(),
        shared: Vec::new(),
        skipped: 0,
        below_zero: Vec::new(),
    };
    for k in order {
        let skin = &skins[k];
        let name = skin_name(skin).filter(|n| k != default && !is_default_skin(Some(n)));
        let Some(slot_list) = skin.get("slot") else {
            continue;
        };
        let slot_list = slot_list
            .as_array()
            .ok_or_else(|| at.error("skin.slot", "expected an array"))?;
        for (i, s) in slot_list.iter().enumerate() {
            read.read_slot(s, i, name.as_ref())?;
        }
    }
    let SkinMeshes {
        mut meshes,
        shared,
        skipped,
        below_zero,
        ..
    } = read;
    if !below_zero.is_empty() {
        notes.push(format!(
            "{} weights below 0 (rounding in the export; clamped to 0, their rows renormalized): {}",
            below_zero.len(),
            crate::io::tolerance::listed(&below_zero, 4, "; ")
        ));
    }
    resolve_shared(&mut meshes, shared, notes);
    if skipped > 0 {
        notes.push(format!(
            "{skipped} non-mesh displays (images, armatures, bounding boxes) skipped"
        ));
    }
    Ok(meshes.into_iter().flatten().collect())
}

/// The mesh displays of the skins read so far, with what reading them needs.
struct SkinMeshes<'a> {
    bones: &'a [FileBone],
    /// Each armature slot's bone and draw order, by name.
    slots: &'a HashMap<String, (Option<usize>, usize)>,
    /// In part order; `None` holds the place of a `share` mesh until it is resolved.
    meshes: Vec<Option<FileMesh>>,
    shared: Vec<Shared>,
    /// Non-mesh displays passed over.
    skipped: usize,
    /// Weights below 0 clamped to 0, as `display: vertex v bone "B": w`.
    below_zero: Vec<String>,
}

impl SkinMeshes<'_> {
    /// Reads the mesh displays of slot entry `i` (`s`) of skin `skin` (`None`: the default
    /// skin).
    fn read_slot(&mut self, s: &Value, i: usize, skin: Option<&String>) -> Result<()> {
        let ctx = format!("skin slot {i}");
        let at = JsonAt::dragonbones(&ctx);
        let slot = at.string(s, "name")?;
        let (slot_bone, draw_order) = *self.slots.get(&slot).ok_or_else(|| {
            Error::Format(FormatError::Rig {
                format: RigFormat::DRAGONBONES,
                context: format!("skin slot {slot:?}"),
                field: "name".into(),
                vertex: None,
                message: "no armature slot has this name".into(),
            })
        })?;
        let displays = match s.get("display") {
            None => return Ok(()),
            Some(d) => d
                .as_array()
                .ok_or_else(|| at.error("display", "expected an array"))?,
        };
        for d in displays {
            if !is_mesh(d) {
                self.skipped += 1;
                continue;
            }
            let dctx = format!("slot {slot:?} display");
            let dat = JsonAt::dragonbones(&dctx);
            let display = dat.string(d, "name")?;
            let texture = dat
                .opt_string(d, "path")?
                .unwrap_or_else(|| display.clone());
            if let Some(share) = dat.opt_string(d, "share")? {
                let from_skin = dat.opt_string(d, "skin")?;
                self.shared.push(Shared {
                    index: self.meshes.len(),
                    skin: skin.cloned(),
                    slot: slot.clone(),
                    share,
                    from_skin: from_skin.filter(|n| !is_default_skin(Some(n))),
                    display_transform: dat.transform(d)?,
                    display,
                    texture,
                });
                self.meshes.push(None);
                continue;
            }
            let mut mesh = parse_mesh(d, self.bones, slot.clone(), slot_bone, display.clone())?;
            if let Some(skin) = &mesh.skin {
                let clamped = skin.below_zero.iter().map(|w| format!("{display} {w}"));
                self.below_zero.extend(clamped);
            }
            mesh.skin_name = skin.cloned();
            mesh.texture = texture;
            mesh.draw_order = draw_order;
            self.meshes.push(Some(mesh));
        }
        Ok(())
    }
}

/// Gives each `share` mesh the geometry (vertices, triangles, uvs, weights) of the mesh it
/// names. A name no mesh of that skin and slot has leaves nothing for DragonBones to draw:
/// such a display is left out, named in the notes.
fn resolve_shared(meshes: &mut [Option<FileMesh>], shared: Vec<Shared>, notes: &mut Vec<String>) {
    let mut unresolved = Vec::new();
    let count = shared.len();
    for s in shared {
        let source = meshes
            .iter()
            .flatten()
            .find(|m| m.skin_name == s.from_skin && m.slot == s.slot && m.display == s.share);
        match source {
            Some(m) => {
                meshes[s.index] = Some(FileMesh {
                    skin_name: s.skin,
                    display: s.display,
                    texture: s.texture,
                    display_transform: s.display_transform,
                    ..m.clone()
                });
            }
            None => unresolved.push(format!(
                "{:?} (slot {:?}, share {:?} of skin {:?})",
                s.display,
                s.slot,
                s.share,
                s.from_skin.as_deref().unwrap_or("default")
            )),
        }
    }
    if count > unresolved.len() {
        notes.push(format!(
            "{} meshes share another mesh's geometry (\"share\"): imported with it",
            count - unresolved.len()
        ));
    }
    if !unresolved.is_empty() {
        notes.push(format!(
            "{} shared meshes name no mesh of their slot (DragonBones draws nothing for them), left out: {}",
            unresolved.len(),
            unresolved.join(", ")
        ));
    }
}

fn parse_mesh(
    d: &Value,
    bones: &[FileBone],
    slot: String,
    slot_bone: Option<usize>,
    display: String,
) -> Result<FileMesh> {
    let ctx = format!("mesh {display:?} (slot {slot:?})");
    let at = JsonAt::dragonbones(&ctx);
    let raw = at.numbers(d, "vertices")?;
    if raw.len() % 2 != 0 || raw.len() < 6 {
        return Err(at.error(
            "vertices",
            format!(
                "{} numbers: need x, y pairs for at least 3 vertices",
                raw.len()
            ),
        ));
    }
    let vertices: Vec<[f64; 2]> = raw.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
    if let Some((v, p)) = vertices
        .iter()
        .enumerate()
        .find(|(_, p)| p[0].abs() > MAX_COORDINATE || p[1].abs() > MAX_COORDINATE)
    {
        return Err(at.vertex_error(
            "vertices",
            v,
            format!("({:e}, {:e}) is beyond ±{MAX_COORDINATE:e} px", p[0], p[1]),
        ));
    }
    let n = vertices.len();
    let triangles = parse_triangles(&at, d, n)?;
    let uvs = parse_uvs(&at, d, n)?;
    let texture = display.clone();
    let skin = if d.get("weights").is_some() {
        Some(parse_skin(&at, d, bones, n)?)
    } else {
        None
    };
    Ok(FileMesh {
        display_transform: at.transform(d)?,
        skin_name: None,
        slot,
        slot_bone,
        display,
        vertices,
        triangles,
        skin,
        uvs,
        texture,
        draw_order: 0,
    })
}

/// `triangles`: a positive multiple of 3 indices, each a vertex of the `n`.
fn parse_triangles(at: &JsonAt, d: &Value, n: usize) -> Result<Vec<[usize; 3]>> {
    let raw = at.numbers(d, "triangles")?;
    if raw.len() % 3 != 0 || raw.is_empty() {
        return Err(at.error(
            "triangles",
            format!("{} indices: need a positive multiple of 3", raw.len()),
        ));
    }
    let mut triangles = Vec::with_capacity(raw.len() / 3);
    for (t, c) in raw.chunks_exact(3).enumerate() {
        let mut tri = [0; 3];
        for k in 0..3 {
            let x = c[k];
            if !(x >= 0.0 && x.fract() == 0.0) {
                return Err(at.error(
                    "triangles",
                    format!("triangle {t}: {} is not a vertex index", shown(x)),
                ));
            }
            // Compared as floats: a huge index must not saturate into a different number.
            if x >= n as f64 {
                return Err(at.error(
                    "triangles",
                    format!(
                        "triangle {t} uses vertex {}, but the mesh has {n}",
                        shown(x)
                    ),
                ));
            }
            tri[k] = x as usize;
        }
        triangles.push(tri);
    }
    Ok(triangles)
}

/// `uvs` when given: a u, v pair for each of the `n` vertices.
fn parse_uvs(at: &JsonAt, d: &Value, n: usize) -> Result<Option<Vec<[f64; 2]>>> {
    if d.get("uvs").is_none() {
        return Ok(None);
    }
    let raw = at.numbers(d, "uvs")?;
    if raw.len() != 2 * n {
        return Err(at.error(
            "uvs",
            format!(
                "{} numbers for {n} vertices (need a u, v pair each)",
                raw.len()
            ),
        ));
    }
    Ok(Some(raw.chunks_exact(2).map(|c| [c[0], c[1]]).collect()))
}

fn parse_skin(at: &JsonAt, d: &Value, bones: &[FileBone], n: usize) -> Result<FileSkin> {
    let slot_pose = at.matrix(d, "slotPose")?;
    let bone_poses = parse_bone_poses(at, d, bones)?;
    let mut reader = WeightReader {
        at,
        bones,
        // Bones of bonePose, for constant-time look-ups.
        posed: bone_poses.iter().map(|&(j, _)| j).collect(),
        w: at.numbers(d, "weights")?,
        i: 0,
        n,
        below_zero: Vec::new(),
    };
    let mut influences = Vec::with_capacity(n);
    let mut max_row_sum_error: f64 = 0.0;
    for v in 0..n {
        let (row, sum) = reader.row(v)?;
        max_row_sum_error = max_row_sum_error.max((sum - 1.0).abs());
        influences.push(row);
    }
    let (i, w) = (reader.i, &reader.w);
    if i != w.len() {
        return Err(at.error("weights", format!(
                "{} numbers left over after the {n} vertices' entries (weights for more vertices than the mesh has?)",
                w.len() - i
            ),
        ));
    }
    Ok(FileSkin {
        slot_pose,
        bone_poses,
        influences,
        max_row_sum_error,
        below_zero: reader.below_zero,
    })
}

/// `x` as an index into the armature's bones, else an error on `field` (and `vertex`).
fn bone_index(
    at: &JsonAt,
    bones: &[FileBone],
    x: f64,
    field: &str,
    vertex: Option<usize>,
) -> Result<usize> {
    if x >= 0.0 && x.fract() == 0.0 && x < bones.len() as f64 {
        Ok(x as usize)
    } else {
        Err(at.format.error(
            at.context,
            field,
            vertex,
            format!(
                "bone index {} is out of range (the armature has {} bones)",
                shown(x),
                bones.len()
            ),
        ))
    }
}

/// `bonePose`: `[boneIndex, a, b, c, d, tx, ty]` per bone, each bone once, each matrix
/// usable.
fn parse_bone_poses(at: &JsonAt, d: &Value, bones: &[FileBone]) -> Result<Vec<(usize, Affine2)>> {
    let raw = at.numbers(d, "bonePose")?;
    if raw.len() % 7 != 0 || raw.is_empty() {
        return Err(at.error(
            "bonePose",
            format!(
                "{} numbers: need [boneIndex, a, b, c, d, tx, ty] per bone",
                raw.len()
            ),
        ));
    }
    let mut bone_poses: Vec<(usize, Affine2)> = Vec::new();
    let mut posed: HashSet<usize> = HashSet::new();
    for c in raw.chunks_exact(7) {
        let j = bone_index(at, bones, c[0], "bonePose", None)?;
        let name = &bones[j].name;
        if !posed.insert(j) {
            return Err(at.error("bonePose", format!("bone {name:?} is listed twice")));
        }
        let m = Affine2::from_db_array([c[1], c[2], c[3], c[4], c[5], c[6]]);
        if let Some(p) = m.problem() {
            return Err(at.error("bonePose", format!("the matrix of bone {name:?} {p}")));
        }
        bone_poses.push((j, m));
    }
    Ok(bone_poses)
}

/// Reads `weights` (`[count, boneIndex, w, ...]` per vertex) one vertex at a time.
struct WeightReader<'a> {
    at: &'a JsonAt<'a>,
    bones: &'a [FileBone],
    /// Bones of `bonePose`.
    posed: HashSet<usize>,
    w: Vec<f64>,
    /// Next number to read.
    i: usize,
    /// Vertices of the mesh.
    n: usize,
    /// Weights below 0 clamped to 0, as `vertex v bone "B": w`.
    below_zero: Vec<String>,
}

impl WeightReader<'_> {
    /// The array ended inside vertex `v`'s entry.
    fn short(&self, v: usize) -> Error {
        self.at.vertex_error(
            "weights",
            v,
            format!(
                "the array ends inside this vertex's entry ({} numbers for {} vertices)",
                self.w.len(),
                self.n
            ),
        )
    }

    /// Vertex `v`'s `(bone, weight)` pairs and their sum (positive).
    fn row(&mut self, v: usize) -> Result<(Vec<(usize, f64)>, f64)> {
        let (at, bones) = (self.at, self.bones);
        let count = *self.w.get(self.i).ok_or_else(|| self.short(v))?;
        self.i += 1;
        // At most one entry per bone of bonePose (that also bounds the loop below).
        let most = self.posed.len();
        if !(count >= 1.0 && count.fract() == 0.0 && count <= most as f64) {
            return Err(at.vertex_error(
                "weights",
                v,
                format!(
                    "bone count {} is not an integer in 1..={most} (the bones in bonePose)",
                    shown(count)
                ),
            ));
        }
        let mut row = Vec::new();
        let mut sum = 0.0;
        for _ in 0..count as usize {
            let (Some(&bj), Some(&wv)) = (self.w.get(self.i), self.w.get(self.i + 1)) else {
                return Err(self.short(v));
            };
            self.i += 2;
            let j = bone_index(at, bones, bj, "weights", Some(v))?;
            if !self.posed.contains(&j) {
                return Err(at.vertex_error(
                    "weights",
                    v,
                    format!("bone {:?} is not listed in bonePose", bones[j].name),
                ));
            }
            // Weights are fractions; a little over 1 is rounding (rows are normalized).
            if !(MIN_ROUNDED_WEIGHT..=MAX_WEIGHT).contains(&wv) {
                return Err(at.vertex_error(
                    "weights",
                    v,
                    format!(
                        "weight {wv:e} of bone {:?} is outside {MIN_ROUNDED_WEIGHT}..={MAX_WEIGHT}",
                        bones[j].name
                    ),
                ));
            }
            if wv < 0.0 {
                // Rounding of 0: left out of the row, which is renormalised.
                let name = &bones[j].name;
                self.below_zero
                    .push(format!("vertex {v} bone {name:?}: {wv}"));
                continue;
            }
            sum += wv;
            row.push((j, wv));
        }
        if sum <= 0.0 {
            return Err(at.vertex_error("weights", v, "the weights sum to 0"));
        }
        Ok((row, sum))
    }
}
