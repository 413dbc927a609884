//! Reading a Spine JSON project into checked values (no scene is built here).

use super::animation::boolean;
use super::{spine_error, MAX_ANGLE_DEG, MAX_COORDINATE, MAX_SCALE};
use crate::error::{Error, Result, SkeletonError};
use crate::io::json_path::{kind, parse_json, shown, JsonAt};
use crate::skeleton::{Bone, Inherit, LocalTransform, Skeleton};
use nalgebra::Point2;
use serde_json::Value;
use std::collections::HashMap;

/// Largest weight accepted: weights are fractions of 1, written rounded.
use crate::io::tolerance::{MAX_ROUNDED_WEIGHT as MAX_WEIGHT, MIN_ROUNDED_WEIGHT as MIN_WEIGHT};

/// A bone as the file gives it.
#[derive(Debug, Clone)]
pub(super) struct FileBone {
    pub name: String,
    pub parent: Option<usize>,
    pub length: f64,
    pub local: LocalTransform,
}

/// A slot: its bone and setup attachment. Slots are in draw order (back to front).
#[derive(Debug, Clone)]
pub(super) struct FileSlot {
    pub name: String,
    pub bone: usize,
    pub attachment: Option<String>,
    /// Spine 4.3's `visible` (default true): false hides the slot in the setup pose.
    pub visible: bool,
}

/// A mesh's vertices: weighted (`(bone, bind, weight)` per influence) or rigid to the slot.
#[derive(Debug, Clone)]
pub(super) enum Geometry {
    Weighted(Vec<Vec<(usize, [f64; 2], f64)>>),
    Rigid(Vec<[f64; 2]>),
}

/// A mesh attachment's geometry.
#[derive(Debug, Clone)]
pub(super) struct FileMesh {
    pub uvs: Vec<[f64; 2]>,
    pub triangles: Vec<[usize; 3]>,
    pub geometry: Geometry,
}

/// A region attachment: the image's rectangle placed in the slot's bone frame.
#[derive(Debug, Clone, Copy)]
pub(super) struct FileRegion {
    pub x: f64,
    pub y: f64,
    pub rotation: f64,
    pub scale_x: f64,
    pub scale_y: f64,
    pub width: f64,
    pub height: f64,
}

/// What an attachment is.
#[derive(Debug, Clone)]
pub(super) enum Kind {
    Region(FileRegion),
    Mesh(FileMesh),
    /// A linked mesh: its parent's name and skin (`None`: the default skin).
    Linked {
        parent: String,
        skin: Option<String>,
    },
    /// Clipping, bounding box, path, point: not imported (the type's name).
    Skipped(String),
}

/// One attachment of one skin.
#[derive(Debug, Clone)]
pub(super) struct FileAttachment {
    pub skin: usize,
    pub slot: usize,
    /// The attachment's key in the skin.
    pub name: String,
    /// The atlas region's name: `path`, else `name`, else the key.
    pub path: String,
    /// Whether it has a `sequence` (frames `path` + index): the first frame is drawn.
    pub sequence: bool,
    pub kind: Kind,
}

/// Everything the importer reads, checked.
#[derive(Debug, Clone)]
pub(super) struct FileSkeleton {
    pub version: String,
    pub bones: Vec<FileBone>,
    /// Bones parents-first.
    pub order: Vec<usize>,
    pub slots: Vec<FileSlot>,
    pub skins: Vec<String>,
    pub attachments: Vec<FileAttachment>,
    pub animations: Vec<String>,
    /// The animations as clips, the IK constraints, and what is not applied.
    pub animation: super::animation::FileAnimation,
    /// Constraint counts: ik, transform, path, physics.
    pub constraints: [usize; 4],
    /// Spine 4.3 slider constraints (not applied).
    pub sliders: usize,
}

/// An integer index in `0..n` from a number in an array.
fn index(x: f64, n: usize) -> Option<usize> {
    (x >= 0.0 && x.fract() == 0.0 && x < n as f64).then_some(x as usize)
}

/// Parses a Spine JSON project (4.x; 3.8's object-of-skins layout too).
pub(super) fn parse_skeleton(text: &str) -> Result<FileSkeleton> {
    let mut root = parse_json(text.as_bytes(), "Spine")?;
    let top = JsonAt::spine("skeleton");
    top.object(&root, "(root)")?;
    let sliders = split_constraints(&mut root)?;
    let version = match root.get("skeleton") {
        Some(s) => {
            top.object(s, "skeleton")?;
            JsonAt::spine("skeleton")
                .opt_string(s, "spine")?
                .unwrap_or_default()
        }
        None => String::new(),
    };
    let bones = parse_bones(&root)?;
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
    let slots = parse_slots(&root, &bones)?;
    let (skins, attachments) = parse_skins(&root, &bones, &slots)?;
    let animations = match root.get("animations") {
        None => Vec::new(),
        Some(a) => top.object(a, "animations")?.keys().cloned().collect(),
    };
    let count = |key: &str| -> Result<usize> {
        match root.get(key) {
            None => Ok(0),
            Some(v) => v
                .as_array()
                .map(Vec::len)
                .ok_or_else(|| top.error(key, format!("expected an array, found {}", kind(v)))),
        }
    };
    let animation = super::animation::parse_animation(&root, &bones, &slots, &version)?;
    let constraints = [
        count("ik")?,
        count("transform")?,
        count("path")?,
        count("physics")?,
    ];
    Ok(FileSkeleton {
        version,
        bones,
        order,
        slots,
        skins,
        attachments,
        animations,
        animation,
        constraints,
        sliders,
    })
}

/// Spine 4.3 writes every constraint in one `constraints` list, each with a `type`, in the
/// order they apply. Each goes to the 4.2 list of its type (`ik`, `transform`, `path`,
/// `physics`) with its list position as `order`, where the rest of the reader finds it; the
/// animations already key constraints by name per type. Returns how many `slider`
/// constraints (4.3's, not applied) the list held.
fn split_constraints(root: &mut Value) -> Result<usize> {
    let Some(list) = root.as_object_mut().and_then(|o| o.remove("constraints")) else {
        return Ok(0);
    };
    let top = JsonAt::spine("skeleton");
    let list = match list {
        Value::Array(a) => a,
        v => {
            return Err(top.error(
                "constraints",
                format!("expected an array, found {}", kind(&v)),
            ))
        }
    };
    let mut sliders = 0;
    for (i, mut c) in list.into_iter().enumerate() {
        let ctx = format!("constraints[{i}]");
        let at = JsonAt::spine(&ctx);
        at.object(&c, "constraints")?;
        let ty = at.string(&c, "type")?;
        let key = match ty.as_str() {
            "ik" | "transform" | "path" | "physics" => ty,
            "slider" => {
                sliders += 1;
                continue;
            }
            other => {
                return Err(at.error(
                    "type",
                    format!(
                        "{other:?} is not a constraint type (ik, transform, path, physics, slider)"
                    ),
                ))
            }
        };
        if let Some(o) = c.as_object_mut() {
            o.remove("type");
            o.entry("order").or_insert(Value::from(i));
        }
        let Some(object) = root.as_object_mut() else {
            return Err(top.error("(root)", "expected an object"));
        };
        let entry = object
            .entry(key.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
        match entry {
            Value::Array(a) => a.push(c),
            v => return Err(top.error(&key, format!("expected an array, found {}", kind(v)))),
        }
    }
    Ok(sliders)
}

fn parse_bones(root: &Value) -> Result<Vec<FileBone>> {
    let top = JsonAt::spine("skeleton");
    let raw = top.array(root, "bones")?;
    if raw.is_empty() {
        return Err(top.error("bones", "no bones"));
    }
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::with_capacity(raw.len());
    for (i, b) in raw.iter().enumerate() {
        let ctx = format!("bones[{i}]");
        let at = JsonAt::spine(&ctx);
        at.object(b, "bones")?;
        let name = at.string(b, "name")?;
        let ctx = format!("bone {name:?}");
        let at = JsonAt::spine(&ctx);
        if let Some(&first) = names.get(&name) {
            return Err(SkeletonError::DuplicateBone {
                name,
                first,
                second: i,
            }
            .into());
        }
        // Spine lists parents before children; a later parent is refused like an unknown one.
        let parent = match at.opt_string(b, "parent")? {
            None => None,
            Some(p) => Some(*names.get(&p).ok_or_else(|| {
                Error::Skeleton(SkeletonError::UnknownParent {
                    bone: name.clone(),
                    parent: p.clone(),
                })
            })?),
        };
        let length = at.number(b, "length", 0.0, MAX_COORDINATE)?;
        if length < 0.0 {
            return Err(at.error("length", format!("{} is negative", shown(length))));
        }
        let inherit_field = if b.get("inherit").is_some() {
            "inherit"
        } else {
            "transform"
        };
        let inherit = match at.opt_string(b, inherit_field)? {
            None => Inherit::Normal,
            Some(s) => Inherit::from_spine_name(&s).ok_or_else(|| {
                at.error(
                    inherit_field,
                    format!("{s:?} is not normal, onlyTranslation, noRotationOrReflection, noScale or noScaleOrReflection"),
                )
            })?,
        };
        let local = LocalTransform {
            x: at.number(b, "x", 0.0, MAX_COORDINATE)?,
            y: at.number(b, "y", 0.0, MAX_COORDINATE)?,
            rotation: at.number(b, "rotation", 0.0, MAX_ANGLE_DEG)?,
            scale_x: at.number(b, "scaleX", 1.0, MAX_SCALE)?,
            scale_y: at.number(b, "scaleY", 1.0, MAX_SCALE)?,
            shear_x: at.number(b, "shearX", 0.0, MAX_ANGLE_DEG)?,
            shear_y: at.number(b, "shearY", 0.0, MAX_ANGLE_DEG)?,
            inherit,
        };
        names.insert(name.clone(), i);
        out.push(FileBone {
            name,
            parent,
            length,
            local,
        });
    }
    Ok(out)
}

fn parse_slots(root: &Value, bones: &[FileBone]) -> Result<Vec<FileSlot>> {
    let top = JsonAt::spine("skeleton");
    let Some(raw) = root.get("slots") else {
        return Ok(Vec::new());
    };
    let raw = raw
        .as_array()
        .ok_or_else(|| top.error("slots", format!("expected an array, found {}", kind(raw))))?;
    let bone_index: HashMap<&str, usize> = bones
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.as_str(), i))
        .collect();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::with_capacity(raw.len());
    for (i, s) in raw.iter().enumerate() {
        let ctx = format!("slots[{i}]");
        let at = JsonAt::spine(&ctx);
        at.object(s, "slots")?;
        let name = at.string(s, "name")?;
        let ctx = format!("slot {name:?}");
        let at = JsonAt::spine(&ctx);
        if let Some(first) = seen.insert(name.clone(), i) {
            return Err(at.error("name", format!("slots {first} and {i} have this name")));
        }
        let bone = at.string(s, "bone")?;
        let bone = *bone_index
            .get(bone.as_str())
            .ok_or_else(|| at.error("bone", format!("no bone is called {bone:?}")))?;
        out.push(FileSlot {
            name,
            bone,
            attachment: at.opt_string(s, "attachment")?,
            visible: boolean(&at, s, "visible", true)?,
        });
    }
    Ok(out)
}

/// The skins in file order and every attachment of every skin.
fn parse_skins(
    root: &Value,
    bones: &[FileBone],
    slots: &[FileSlot],
) -> Result<(Vec<String>, Vec<FileAttachment>)> {
    let top = JsonAt::spine("skeleton");
    let slot_index: HashMap<&str, usize> = slots
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    // (skin name, {slot: {attachment: value}})
    let mut skins: Vec<(String, &Value)> = Vec::new();
    match root.get("skins") {
        None => {}
        Some(Value::Array(list)) => {
            for (i, s) in list.iter().enumerate() {
                let ctx = format!("skins[{i}]");
                let at = JsonAt::spine(&ctx);
                at.object(s, "skins")?;
                let name = at.string(s, "name")?;
                match s.get("attachments") {
                    Some(a) => skins.push((name, a)),
                    None => skins.push((name, &Value::Null)),
                }
            }
        }
        Some(Value::Object(map)) => skins.extend(map.iter().map(|(k, v)| (k.clone(), v))),
        Some(v) => return Err(top.error("skins", format!("expected an array, found {}", kind(v)))),
    }
    for (i, (name, _)) in skins.iter().enumerate() {
        if let Some(first) = skins[..i].iter().position(|(n, _)| n == name) {
            return Err(spine_error(
                format!("skin {name:?}"),
                "name",
                None,
                format!("skins {first} and {i} have this name"),
            ));
        }
    }
    let mut out = Vec::new();
    for (k, (skin, value)) in skins.iter().enumerate() {
        if value.is_null() {
            continue;
        }
        let ctx = format!("skin {skin:?}");
        let at = JsonAt::spine(&ctx);
        for (slot_name, atts) in at.object(value, "attachments")? {
            let slot = *slot_index.get(slot_name.as_str()).ok_or_else(|| {
                at.error("attachments", format!("no slot is called {slot_name:?}"))
            })?;
            let ctx = format!("skin {skin:?} slot {slot_name:?}");
            let at = JsonAt::spine(&ctx);
            for (name, a) in at.object(atts, "attachments")? {
                out.push(parse_attachment(
                    skin,
                    k,
                    slot,
                    slot_name,
                    name,
                    a,
                    bones.len(),
                )?);
            }
        }
    }
    Ok((skins.into_iter().map(|(n, _)| n).collect(), out))
}

fn parse_attachment(
    skin_name: &str,
    skin: usize,
    slot: usize,
    slot_name: &str,
    name: &str,
    a: &Value,
    n_bones: usize,
) -> Result<FileAttachment> {
    let ctx = format!("attachment {name:?} (skin {skin_name:?}, slot {slot_name:?})");
    let at = JsonAt::spine(&ctx);
    at.object(a, name)?;
    let ty = at.opt_string(a, "type")?.unwrap_or_else(|| "region".into());
    // The image: `path`, else the attachment's `name`, else its key.
    let mut path = match at.opt_string(a, "path")? {
        Some(p) => p,
        None => at
            .opt_string(a, "name")?
            .unwrap_or_else(|| name.to_string()),
    };
    let sequence = match a.get("sequence") {
        None => false,
        Some(seq) => {
            // The setup frame's region: `path` + (start + setup), zero-padded to `digits`.
            let sat = JsonAt::spine(&ctx);
            let start = sat.number(seq, "start", 1.0, 1e9)?;
            let setup = sat.number(seq, "setup", 0.0, 1e9)?;
            let digits = sat.number(seq, "digits", 0.0, 20.0)?;
            let frame = (start + setup).max(0.0) as u64;
            path = format!("{path}{frame:0width$}", width = digits as usize);
            true
        }
    };
    let kind = match ty.as_str() {
        "region" => Kind::Region(FileRegion {
            x: at.number(a, "x", 0.0, MAX_COORDINATE)?,
            y: at.number(a, "y", 0.0, MAX_COORDINATE)?,
            rotation: at.number(a, "rotation", 0.0, MAX_ANGLE_DEG)?,
            scale_x: at.number(a, "scaleX", 1.0, MAX_SCALE)?,
            scale_y: at.number(a, "scaleY", 1.0, MAX_SCALE)?,
            width: at.number(a, "width", 32.0, MAX_COORDINATE)?,
            height: at.number(a, "height", 32.0, MAX_COORDINATE)?,
        }),
        "mesh" | "skinnedmesh" | "weightedmesh" => Kind::Mesh(parse_mesh(&at, a, n_bones)?),
        "linkedmesh" => Kind::Linked {
            parent: at.string(a, "parent")?,
            skin: at.opt_string(a, "skin")?,
        },
        "boundingbox" | "path" | "point" | "clipping" => Kind::Skipped(ty),
        other => {
            return Err(at.error(
                "type",
                format!(
                "{other:?} is not region, mesh, linkedmesh, boundingbox, path, point or clipping"
            ),
            ))
        }
    };
    Ok(FileAttachment {
        skin,
        slot,
        name: name.to_string(),
        path,
        sequence,
        kind,
    })
}

/// One weighted vertex: `(bone, position in the bone, weight)` per bone.
type WeightRow = Vec<(usize, [f64; 2], f64)>;

/// A mesh attachment's `uvs`, `triangles` and `vertices` (rigid or weighted to bones).
fn parse_mesh(at: &JsonAt, a: &Value, n_bones: usize) -> Result<FileMesh> {
    let uvs = at.numbers_within(a, "uvs", MAX_COORDINATE)?;
    if uvs.len() % 2 != 0 {
        return Err(at.error("uvs", format!("{} numbers, not pairs", uvs.len())));
    }
    let n = uvs.len() / 2;
    if n < 3 {
        return Err(at.error("uvs", format!("{n} vertices (a mesh needs at least 3)")));
    }
    let uvs: Vec<[f64; 2]> = uvs.chunks_exact(2).map(|c| [c[0], c[1]]).collect();
    let triangles = parse_triangles(at, a, n)?;
    let v = at.numbers_within(a, "vertices", MAX_COORDINATE)?;
    let geometry = if v.len() == 2 * n {
        Geometry::Rigid(v.chunks_exact(2).map(|c| [c[0], c[1]]).collect())
    } else {
        Geometry::Weighted(weighted_vertices(at, &v, n, n_bones)?)
    };
    Ok(FileMesh {
        uvs,
        triangles,
        geometry,
    })
}

/// A mesh's `triangles`, each index checked against its `n` vertices.
fn parse_triangles(at: &JsonAt, a: &Value, n: usize) -> Result<Vec<[usize; 3]>> {
    let tri = at.numbers_within(a, "triangles", f64::MAX)?;
    if tri.len() % 3 != 0 || tri.is_empty() {
        return Err(at.error(
            "triangles",
            format!("{} indices, not a positive multiple of 3", tri.len()),
        ));
    }
    let mut triangles = Vec::with_capacity(tri.len() / 3);
    for (t, c) in tri.chunks_exact(3).enumerate() {
        let mut out = [0; 3];
        for k in 0..3 {
            out[k] = index(c[k], n).ok_or_else(|| {
                at.error(
                    "triangles",
                    format!(
                        "triangle {t} refers to vertex {}, the mesh has {n}",
                        shown(c[k])
                    ),
                )
            })?;
        }
        triangles.push(out);
    }
    Ok(triangles)
}

/// The weighted `vertices` array `v` of a mesh of `n` vertices: per vertex a boneCount,
/// then `bone, x, y, weight` per bone.
fn weighted_vertices(at: &JsonAt, v: &[f64], n: usize, n_bones: usize) -> Result<Vec<WeightRow>> {
    let mut rows = Vec::with_capacity(n);
    let mut i = 0;
    let verr =
        |vertex: usize, message: String| spine_error(at.context, "vertices", Some(vertex), message);
    for vertex in 0..n {
        let count = *v.get(i).ok_or_else(|| {
            verr(
                vertex,
                format!("the array ends at entry {i}, before this vertex's boneCount"),
            )
        })?;
        let count = index(count, n_bones + 1).filter(|&c| c > 0).ok_or_else(|| {
            verr(
                vertex,
                format!("boneCount {} at entry {i} is not an integer in 1..={n_bones} (the skeleton's bones)", shown(count)),
            )
        })?;
        i += 1;
        if v.len() - i < 4 * count {
            return Err(verr(
                vertex,
                format!(
                    "boneCount {count} needs {} numbers from entry {i}, the array has {}",
                    4 * count,
                    v.len() - i
                ),
            ));
        }
        let mut row = Vec::with_capacity(count);
        for _ in 0..count {
            let bone = index(v[i], n_bones).ok_or_else(|| {
                verr(
                    vertex,
                    format!(
                        "bone index {} at entry {i} is not a bone (the skeleton has {n_bones})",
                        shown(v[i])
                    ),
                )
            })?;
            let w = v[i + 3];
            // Slightly below 0 or above 1 is the export's rounding: the import clamps and notes.
            if !(MIN_WEIGHT..=MAX_WEIGHT).contains(&w) {
                return Err(verr(
                    vertex,
                    format!(
                        "weight {} at entry {} is outside {MIN_WEIGHT}..={MAX_WEIGHT} (a fraction of 1, rounded)",
                        shown(w),
                        i + 3
                    ),
                ));
            }
            row.push((bone, [v[i + 1], v[i + 2]], w));
            i += 4;
        }
        if row.iter().map(|r| r.2).sum::<f64>() <= 0.0 {
            return Err(verr(vertex, "its weights sum to 0".into()));
        }
        rows.push(row);
    }
    if i != v.len() {
        return Err(at.error(
            "vertices",
            format!(
                "{} numbers left after the {n} vertices the uvs give",
                v.len() - i
            ),
        ));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_rounded_below_zero_is_read_beyond_it_refused() {
        let at = JsonAt::spine("mesh");
        // One vertex on bones 0 and 1: weights 1.00135 and -0.00135, as a 4.2 export writes.
        let v = [2.0, 0.0, 1.0, 2.0, 1.00135, 1.0, 3.0, 4.0, -0.00135];
        let rows = weighted_vertices(&at, &v, 1, 2).unwrap();
        assert_eq!(rows[0][1].2, -0.00135);
        let v = [2.0, 0.0, 1.0, 2.0, 1.0, 1.0, 3.0, 4.0, -0.06];
        let e = weighted_vertices(&at, &v, 1, 2).unwrap_err().to_string();
        assert!(
            e.contains("weight -0.06 at entry 8 is outside -0.05..=1.05"),
            "{e}"
        );
    }
}
