//! Creature JSON text → checked values: points, regions with their triangles and weights,
//! bones with their rest world start and end points, and clips' per-frame bone points. Every
//! error names the region, bone, clip or frame, the field and, for points, the vertex.

use super::{creature_error, MAX_COORDINATE, MAX_SCALE, MIN_BONE_LENGTH};
use crate::animation::MAX_KEYS;
use crate::error::{ClipError, Result};
use crate::io::json_path::parse_json;
use crate::io::tolerance::{MAX_ROUNDED_WEIGHT, MIN_ROUNDED_WEIGHT};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};

/// Most points × bones the import holds: the artist's weights are a dense matrix of that
/// size (a large character has a few thousand points and a hundred bones).
const MAX_WEIGHT_ENTRIES: usize = 100_000_000;

/// Channels a bone may key per frame (rotation, translation x/y, scale x/y, shear y): the
/// frames × bones × this bound is checked against [`MAX_KEYS`] before any key is built.
const CHANNELS_PER_BONE: usize = 6;

/// Largest |frame number| read: frames are integers, and past 2^53 they are no longer exact.
const MAX_FRAME: f64 = 1e9;

/// One bone: its rest world start and end points.
#[derive(Debug, Clone)]
pub(super) struct FileBone {
    pub name: String,
    pub id: i64,
    pub parent: Option<usize>,
    pub start: [f64; 2],
    pub end: [f64; 2],
}

/// One region: a contiguous run of points, its triangles (region-local indices) and its
/// weights (bone index, one weight per point).
#[derive(Debug, Clone)]
pub(super) struct FileRegion {
    pub name: String,
    pub first_point: usize,
    pub points: usize,
    pub triangles: Vec<[usize; 3]>,
    pub weights: Vec<(usize, Vec<f64>)>,
    /// Bones whose weights were left out, with why (wrong length, unknown bone).
    pub skipped: Vec<(String, String)>,
    /// Weights just below 0 (rounding) read as 0: (point index in the file, bone, value).
    pub clamped: Vec<(usize, String, f64)>,
}

/// One clip: frame numbers in order and, per frame, each bone's world `[start, end]`.
#[derive(Debug, Clone)]
pub(super) struct FileClip {
    pub name: String,
    pub frames: Vec<f64>,
    pub poses: Vec<Vec<[[f64; 2]; 2]>>,
    /// What the clip keys that the import does not apply (mesh displacements, uv swaps,
    /// opacities).
    pub unapplied: Vec<&'static str>,
}

/// A whole file, checked.
#[derive(Debug, Clone)]
pub(super) struct FileCreature {
    pub points: Vec<[f64; 2]>,
    pub bones: Vec<FileBone>,
    /// Sorted by first point.
    pub regions: Vec<FileRegion>,
    pub clips: Vec<FileClip>,
    pub notes: Vec<String>,
}

/// A field's value or a typed error.
fn get<'v>(obj: &'v Map<String, Value>, ctx: &str, field: &str) -> Result<&'v Value> {
    obj.get(field)
        .ok_or_else(|| creature_error(ctx, field, None, "missing"))
}

fn object<'v>(v: &'v Value, ctx: &str, field: &str) -> Result<&'v Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| creature_error(ctx, field, None, "expected a JSON object"))
}

fn array<'v>(v: &'v Value, ctx: &str, field: &str) -> Result<&'v Vec<Value>> {
    v.as_array()
        .ok_or_else(|| creature_error(ctx, field, None, "expected an array"))
}

/// Finite numbers within ±`limit`.
fn numbers(v: &Value, ctx: &str, field: &str, limit: f64) -> Result<Vec<f64>> {
    array(v, ctx, field)?
        .iter()
        .enumerate()
        .map(|(i, x)| match x.as_f64() {
            Some(f) if f.is_finite() && f.abs() <= limit => Ok(f),
            _ => Err(creature_error(
                ctx,
                field,
                None,
                format!("entry {i} is {x}, expected a finite number within ±{limit:e}"),
            )),
        })
        .collect()
}

/// A point `[x, y]`.
fn point(v: &Value, ctx: &str, field: &str) -> Result<[f64; 2]> {
    let n = numbers(v, ctx, field, MAX_COORDINATE)?;
    n.try_into().map_err(|n: Vec<f64>| {
        creature_error(ctx, field, None, format!("{} numbers, expected 2", n.len()))
    })
}

/// A non-negative integer index.
fn index(obj: &Map<String, Value>, ctx: &str, field: &str) -> Result<usize> {
    let v = get(obj, ctx, field)?;
    match v.as_f64() {
        Some(x) if x >= 0.0 && x.fract() == 0.0 && x < 1e15 => Ok(x as usize),
        _ => Err(creature_error(
            ctx,
            field,
            None,
            format!("{v} is not an index (an integer >= 0)"),
        )),
    }
}

/// Parses a Creature JSON file (see the module documentation).
pub(super) fn parse_creature(text: &str) -> Result<FileCreature> {
    let root = parse_json(text.as_bytes(), "Creature")?;
    let root = object(&root, "file", "(root)")?;
    let mesh = object(get(root, "file", "mesh")?, "file", "mesh")?;
    let points = read_points(mesh)?;
    let bones = read_bones(object(get(root, "file", "skeleton")?, "file", "skeleton")?)?;
    let mut notes = Vec::new();
    let regions = read_regions(mesh, &points, &bones, &mut notes)?;
    let clips = match root.get("animation") {
        None | Some(Value::Null) => Vec::new(),
        Some(a) => read_clips(object(a, "file", "animation")?, &bones)?,
    };
    Ok(FileCreature {
        points,
        bones,
        regions,
        clips,
        notes,
    })
}

fn read_points(mesh: &Map<String, Value>) -> Result<Vec<[f64; 2]>> {
    let flat = numbers(
        get(mesh, "mesh", "points")?,
        "mesh",
        "points",
        MAX_COORDINATE,
    )?;
    if flat.len() % 2 != 0 {
        return Err(creature_error(
            "mesh",
            "points",
            None,
            format!("{} numbers: expected x, y pairs", flat.len()),
        ));
    }
    Ok(flat.chunks_exact(2).map(|p| [p[0], p[1]]).collect())
}

/// The bones in id order, each with its parent (from the `children` ids) and its rest world
/// start and end points (`restParentMat · local`).
fn read_bones(skeleton: &Map<String, Value>) -> Result<Vec<FileBone>> {
    if skeleton.is_empty() {
        return Err(creature_error("skeleton", "(bones)", None, "no bones"));
    }
    let mut bones = Vec::with_capacity(skeleton.len());
    let mut children = Vec::with_capacity(skeleton.len());
    for (key, b) in skeleton {
        let ctx = format!("bone {key:?}");
        let b = object(b, &ctx, "(bone)")?;
        if let Some(name) = b.get("name") {
            if name.as_str() != Some(key.as_str()) {
                return Err(creature_error(
                    &ctx,
                    "name",
                    None,
                    format!("{name} differs from the bone's key"),
                ));
            }
        }
        let id = match get(b, &ctx, "id")?.as_i64() {
            Some(i) => i,
            None => return Err(creature_error(&ctx, "id", None, "expected an integer")),
        };
        let (start, end) = rest_points(b, &ctx)?;
        let kids = match b.get("children") {
            None | Some(Value::Null) => Vec::new(),
            Some(c) => array(c, &ctx, "children")?
                .iter()
                .map(|k| {
                    k.as_i64().ok_or_else(|| {
                        creature_error(&ctx, "children", None, format!("{k} is not a bone id"))
                    })
                })
                .collect::<Result<Vec<i64>>>()?,
        };
        bones.push(FileBone {
            name: key.clone(),
            id,
            parent: None,
            start,
            end,
        });
        children.push(kids);
    }
    link_parents(&mut bones, &children)?;
    Ok(bones)
}

/// Sets each bone's parent from its parent's `children` ids, then orders the bones by id
/// (children's parent indices remapped).
fn link_parents(bones: &mut Vec<FileBone>, children: &[Vec<i64>]) -> Result<()> {
    let mut by_id: HashMap<i64, usize> = HashMap::with_capacity(bones.len());
    for (i, b) in bones.iter().enumerate() {
        if let Some(first) = by_id.insert(b.id, i) {
            return Err(creature_error(
                format!("bone {:?}", b.name),
                "id",
                None,
                format!("id {} is also bone {:?}'s", b.id, bones[first].name),
            ));
        }
    }
    for (p, kids) in children.iter().enumerate() {
        for id in kids {
            let ctx = format!("bone {:?}", bones[p].name);
            let Some(&c) = by_id.get(id) else {
                return Err(creature_error(
                    ctx,
                    "children",
                    None,
                    format!("no bone has id {id}"),
                ));
            };
            if let Some(other) = bones[c].parent.filter(|&o| o != p) {
                return Err(creature_error(
                    ctx,
                    "children",
                    None,
                    format!(
                        "bone {:?} is also a child of {:?}",
                        bones[c].name, bones[other].name
                    ),
                ));
            }
            bones[c].parent = Some(p);
        }
    }
    // Id order: stable whatever order the JSON object's keys come in.
    let mut order: Vec<usize> = (0..bones.len()).collect();
    order.sort_by_key(|&i| bones[i].id);
    let mut new_index = vec![0; bones.len()];
    for (n, &i) in order.iter().enumerate() {
        new_index[i] = n;
    }
    let mut sorted: Vec<FileBone> = order.iter().map(|&i| bones[i].clone()).collect();
    for b in &mut sorted {
        b.parent = b.parent.map(|p| new_index[p]);
    }
    *bones = sorted;
    Ok(())
}

/// A bone's rest world start and end: `restParentMat` (4×4, column major; its 2D affine part)
/// applied to `localRestStartPt` and `localRestEndPt`.
fn rest_points(b: &Map<String, Value>, ctx: &str) -> Result<([f64; 2], [f64; 2])> {
    let m = numbers(
        get(b, ctx, "restParentMat")?,
        ctx,
        "restParentMat",
        MAX_COORDINATE,
    )?;
    if m.len() != 16 {
        return Err(creature_error(
            ctx,
            "restParentMat",
            None,
            format!("{} numbers, expected 16 (4x4)", m.len()),
        ));
    }
    // Column major: x axis (m0, m1), y axis (m4, m5), translation (m12, m13).
    if let Some(x) = [m[0], m[1], m[4], m[5]]
        .into_iter()
        .find(|x| x.abs() > MAX_SCALE)
    {
        return Err(creature_error(
            ctx,
            "restParentMat",
            None,
            format!("linear entry {x:e} is beyond ±{MAX_SCALE}"),
        ));
    }
    let apply = |p: [f64; 2]| {
        [
            m[0] * p[0] + m[4] * p[1] + m[12],
            m[1] * p[0] + m[5] * p[1] + m[13],
        ]
    };
    let start = apply(point(
        get(b, ctx, "localRestStartPt")?,
        ctx,
        "localRestStartPt",
    )?);
    let end = apply(point(
        get(b, ctx, "localRestEndPt")?,
        ctx,
        "localRestEndPt",
    )?);
    for (field, p) in [("localRestStartPt", start), ("localRestEndPt", end)] {
        if !(p[0].abs() <= MAX_COORDINATE && p[1].abs() <= MAX_COORDINATE) {
            return Err(creature_error(
                ctx,
                field,
                None,
                format!(
                    "restParentMat places it at ({:e}, {:e}), beyond ±{MAX_COORDINATE:e}",
                    p[0], p[1]
                ),
            ));
        }
    }
    let length = (end[0] - start[0]).hypot(end[1] - start[1]);
    if length < MIN_BONE_LENGTH {
        return Err(creature_error(
            ctx,
            "localRestEndPt",
            None,
            format!("the rest bone has length {length:e}: its start and end points coincide"),
        ));
    }
    Ok((start, end))
}

/// The regions sorted by first point: inside the points, not overlapping, triangles inside
/// their region, weights checked (bones whose array is not one weight per point skipped and
/// noted, as Creature-like tolerance).
fn read_regions(
    mesh: &Map<String, Value>,
    points: &[[f64; 2]],
    bones: &[FileBone],
    notes: &mut Vec<String>,
) -> Result<Vec<FileRegion>> {
    let indices = array(get(mesh, "mesh", "indices")?, "mesh", "indices")?;
    let regions = object(get(mesh, "mesh", "regions")?, "mesh", "regions")?;
    if points.len().saturating_mul(bones.len()) > MAX_WEIGHT_ENTRIES {
        return Err(creature_error(
            "mesh",
            "points",
            None,
            format!("{} points × {} bones is more than the {MAX_WEIGHT_ENTRIES} weights the import holds", points.len(), bones.len()),
        ));
    }
    let by_name: HashMap<&str, usize> = bones
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.as_str(), i))
        .collect();
    let mut out = Vec::with_capacity(regions.len());
    for (name, r) in regions {
        out.push(read_region(name, r, points.len(), indices, &by_name)?);
    }
    if out.is_empty() {
        return Err(creature_error("mesh", "regions", None, "no regions"));
    }
    out.sort_by_key(|r| r.first_point);
    for w in out.windows(2) {
        if w[1].first_point < w[0].first_point + w[0].points {
            return Err(creature_error(
                format!("region {:?}", w[1].name),
                "start_pt_index",
                Some(w[1].first_point),
                format!(
                    "overlaps region {:?} (points {}..={})",
                    w[0].name,
                    w[0].first_point,
                    w[0].first_point + w[0].points - 1
                ),
            ));
        }
    }
    let covered: usize = out.iter().map(|r| r.points).sum();
    if covered < points.len() {
        notes.push(format!(
            "{} of {} points belong to no region: left out",
            points.len() - covered,
            points.len()
        ));
    }
    Ok(out)
}

fn read_region(
    name: &str,
    r: &Value,
    n_points: usize,
    indices: &[Value],
    bones: &HashMap<&str, usize>,
) -> Result<FileRegion> {
    let ctx = format!("region {name:?}");
    let r = object(r, &ctx, "(region)")?;
    let (first, last) = (
        index(r, &ctx, "start_pt_index")?,
        index(r, &ctx, "end_pt_index")?,
    );
    if first > last || last >= n_points {
        return Err(creature_error(
            &ctx,
            "end_pt_index",
            None,
            format!("points {first}..={last} are not inside the mesh's {n_points} points"),
        ));
    }
    let (i0, i1) = (index(r, &ctx, "start_index")?, index(r, &ctx, "end_index")?);
    if i0 > i1 || i1 >= indices.len() || (i1 - i0 + 1) % 3 != 0 {
        return Err(creature_error(
            &ctx,
            "end_index",
            None,
            format!(
                "indices {i0}..={i1} are not whole triangles inside the mesh's {} indices",
                indices.len()
            ),
        ));
    }
    let count = last - first + 1;
    let mut triangles = Vec::with_capacity((i1 - i0 + 1) / 3);
    for (t, tri) in indices[i0..=i1].chunks_exact(3).enumerate() {
        let mut out = [0usize; 3];
        for (k, v) in tri.iter().enumerate() {
            match v.as_f64() {
                Some(x) if x.fract() == 0.0 && x >= first as f64 && x <= last as f64 => {
                    out[k] = x as usize - first
                }
                _ => {
                    return Err(creature_error(
                        &ctx,
                        format!("indices[{}]", i0 + 3 * t + k),
                        None,
                        format!("{v} is not a point of the region ({first}..={last})"),
                    ))
                }
            }
        }
        triangles.push(out);
    }
    let (weights, skipped, clamped) =
        read_weights(get(r, &ctx, "weights")?, &ctx, first, count, bones)?;
    Ok(FileRegion {
        name: name.to_string(),
        first_point: first,
        points: count,
        triangles,
        weights,
        skipped,
        clamped,
    })
}

/// A region's `weights`: bone name → one weight per point. An array of another length is
/// skipped (noted by the importer); a bone not in the skeleton is skipped when all its
/// weights are 0 and an error otherwise (its weight would be lost). A weight in
/// `[MIN_ROUNDED_WEIGHT, 0)` is rounding of 0: read as 0 and listed (the row is renormalised).
#[allow(clippy::type_complexity)]
fn read_weights(
    w: &Value,
    ctx: &str,
    first: usize,
    count: usize,
    bones: &HashMap<&str, usize>,
) -> Result<(
    Vec<(usize, Vec<f64>)>,
    Vec<(String, String)>,
    Vec<(usize, String, f64)>,
)> {
    let w = object(w, ctx, "weights")?;
    let mut out = Vec::with_capacity(w.len());
    let mut skipped = Vec::new();
    let mut clamped = Vec::new();
    for (bone, arr) in w {
        let field = format!("weights.{bone}");
        let values = array(arr, ctx, &field)?;
        if values.len() != count {
            skipped.push((
                bone.clone(),
                format!("{} weights for {count} points", values.len()),
            ));
            continue;
        }
        let mut row = Vec::with_capacity(count);
        for (i, v) in values.iter().enumerate() {
            match v.as_f64() {
                Some(x) if (0.0..=MAX_ROUNDED_WEIGHT).contains(&x) => row.push(x),
                Some(x) if (MIN_ROUNDED_WEIGHT..0.0).contains(&x) => {
                    clamped.push((first + i, bone.clone(), x));
                    row.push(0.0);
                }
                _ => {
                    return Err(creature_error(
                        ctx,
                        &field,
                        Some(first + i),
                        format!(
                            "{v} is not a weight in [{MIN_ROUNDED_WEIGHT}, {MAX_ROUNDED_WEIGHT}]"
                        ),
                    ))
                }
            }
        }
        match bones.get(bone.as_str()) {
            Some(&j) => out.push((j, row)),
            None => match row.iter().position(|&x| x > 0.0) {
                Some(i) => {
                    return Err(creature_error(
                        ctx,
                        &field,
                        Some(first + i),
                        format!(
                            "no bone is called {bone:?}, yet the point has weight {} on it",
                            row[i]
                        ),
                    ))
                }
                None => skipped.push((
                    bone.clone(),
                    "not a bone of the skeleton (all weights 0)".into(),
                )),
            },
        }
    }
    Ok((out, skipped, clamped))
}

/// Every clip's frames: each frame must give every bone's start and end point.
fn read_clips(animation: &Map<String, Value>, bones: &[FileBone]) -> Result<Vec<FileClip>> {
    let total_frames: usize = animation
        .values()
        .map(|c| {
            c.get("bones")
                .and_then(Value::as_object)
                .map_or(0, Map::len)
        })
        .fold(0, usize::saturating_add);
    let keys = total_frames
        .saturating_mul(bones.len())
        .saturating_mul(CHANNELS_PER_BONE);
    if keys > MAX_KEYS {
        return Err(ClipError::TooManyKeys {
            clip: "(all clips)".into(),
            count: keys,
            max: MAX_KEYS,
        }
        .into());
    }
    let by_name: HashMap<&str, usize> = bones
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.as_str(), i))
        .collect();
    animation
        .iter()
        .map(|(name, c)| read_clip(name, c, &by_name))
        .collect()
}

fn read_clip(name: &str, c: &Value, bones: &HashMap<&str, usize>) -> Result<FileClip> {
    let ctx = format!("clip {name:?}");
    let c = object(c, &ctx, "(clip)")?;
    let frames = object(get(c, &ctx, "bones")?, &ctx, "bones")?;
    if frames.is_empty() {
        return Err(creature_error(&ctx, "bones", None, "no frames"));
    }
    let mut by_frame: BTreeMap<i64, (&str, &Value)> = BTreeMap::new();
    for (key, f) in frames {
        let frame = key
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.fract() == 0.0 && x.abs() <= MAX_FRAME);
        let Some(frame) = frame else {
            return Err(creature_error(
                &ctx,
                format!("bones.{key}"),
                None,
                "a frame must be an integer number (as a string)",
            ));
        };
        if let Some((other, _)) = by_frame.insert(frame as i64, (key, f)) {
            return Err(creature_error(
                &ctx,
                format!("bones.{key}"),
                None,
                format!("frame {frame} is also keyed as {other:?}"),
            ));
        }
    }
    let mut out = FileClip {
        name: name.to_string(),
        frames: Vec::with_capacity(by_frame.len()),
        poses: Vec::with_capacity(by_frame.len()),
        unapplied: unapplied(c),
    };
    for (frame, (key, f)) in by_frame {
        out.frames.push(frame as f64);
        out.poses
            .push(read_frame(&format!("{ctx} frame {key}"), f, bones)?);
    }
    Ok(out)
}

/// One frame: every bone's `[start_pt, end_pt]`, in bone order.
fn read_frame(ctx: &str, f: &Value, bones: &HashMap<&str, usize>) -> Result<Vec<[[f64; 2]; 2]>> {
    let f = object(f, ctx, "bones")?;
    let mut pose: Vec<Option<[[f64; 2]; 2]>> = vec![None; bones.len()];
    for (bone, v) in f {
        let Some(&j) = bones.get(bone.as_str()) else {
            return Err(creature_error(
                ctx,
                bone,
                None,
                "no bone of the skeleton has this name",
            ));
        };
        let bctx = format!("{ctx} bone {bone:?}");
        let v = object(v, &bctx, "(bone)")?;
        let start = point(get(v, &bctx, "start_pt")?, &bctx, "start_pt")?;
        let end = point(get(v, &bctx, "end_pt")?, &bctx, "end_pt")?;
        pose[j] = Some([start, end]);
    }
    let by_index: Vec<&str> = {
        let mut names = vec![""; bones.len()];
        for (n, &j) in bones {
            names[j] = n;
        }
        names
    };
    pose.into_iter()
        .enumerate()
        .map(|(j, p)| {
            p.ok_or_else(|| {
                creature_error(ctx, by_index[j], None, "the frame does not key this bone")
            })
        })
        .collect()
}

/// What a clip keys beyond bone points that changes the drawing: mesh displacements (or
/// linear blend skinning instead of dual quaternions), enabled uv swaps, opacities below 100.
fn unapplied(c: &Map<String, Value>) -> Vec<&'static str> {
    let frames = |field: &str| {
        c.get(field)
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|m| m.values())
            .filter_map(Value::as_object)
            .flat_map(|m| m.values())
    };
    let mut out = Vec::new();
    let displaced = frames("meshes").any(|m| {
        let flag = |k: &str| m.get(k).and_then(Value::as_bool).unwrap_or(false);
        let nonzero = |k: &str| {
            m.get(k)
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|x| x.as_f64().is_some_and(|x| x != 0.0)))
        };
        flag("use_local_displacements")
            || flag("use_post_displacements")
            || nonzero("local_displacements")
            || nonzero("post_displacements")
    });
    if displaced {
        out.push("mesh displacements");
    }
    if frames("uv_swaps").any(|m| m.get("enabled").and_then(Value::as_bool) == Some(true)) {
        out.push("uv swaps");
    }
    if frames("mesh_opacities").any(|m| {
        m.get("opacity")
            .and_then(Value::as_f64)
            .is_some_and(|o| o != 100.0)
    }) {
        out.push("opacities");
    }
    out
}
