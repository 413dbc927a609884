//! A scene and its weights → DragonBones 5.5 JSON with one weighted mesh display per part.

use super::DragonBonesAffine;
use crate::error::{Error, FormatError, Result};
use crate::io::mesh_parts::{triangles_by_part, vertices_of};
use crate::mesh::Mesh;
use crate::scene::Scene;
use crate::skeleton::Affine2;
use crate::skeleton::{Bone, Inherit};
use crate::skinning::check_shape;
use crate::weights::{Weights, EXPORT_ROW_SUM_TOLERANCE};
use serde_json::{json, Value};

/// Writes `scene` and `weights` as a DragonBones 5.5 `_ske.json` document.
///
/// - Armature: the scene's bones in scene order, setup transform = the rest skeleton (each
///   bone's frame relative to its parent's, y-down), `length` = the bone's length.
/// - One slot per part (parented to the first root bone) holding one weighted mesh display
///   named after the part: `vertices` in armature space (y-down) with `slotPose` the
///   identity, `triangles`, `weights` (`[count, boneIndex, w, ...]` per vertex, largest
///   first, zero weights left out), `bonePose` (rest matrix of every bone the display uses)
///   and placeholder `uvs` spanning the display's bounding box (there is no texture).
/// - A triangle goes to the display of the part most of its corners belong to (ties: the
///   first corner's); a display holds the vertices its triangles use, so a vertex on a seam
///   between parts appears in each display that uses it. Scenes whose parts are separate
///   components (layered art, every DragonBones import) keep their vertex order exactly.
///
/// - Animations: the scene's clips (see the `clips` module: bone timelines at the first
///   frame rate of [`super::EXPORT_FRAME_RATES`] on which every key time lands), else one
///   empty `setup` animation; the scene's correctives as `ffd` timelines, one frame per
///   frame of each clip (see the `ffd` module).
///
/// Errors: weights of the wrong shape ([`WeightsError::WeightsShape`](crate::error::WeightsError::WeightsShape)) or not valid
/// ([`WeightsError::InvalidWeight`](crate::error::WeightsError::InvalidWeight), [`WeightsError::RowSum`](crate::error::WeightsError::RowSum) beyond 1e-6).
pub(crate) fn export_dragonbones(scene: &Scene, weights: &Weights) -> Result<Value> {
    let mesh = &scene.mesh;
    let bones = scene.skeleton.bones();
    check_shape(mesh.vertex_count(), weights, bones.len())?;
    weights.validate_with_tolerance(EXPORT_ROW_SUM_TOLERANCE)?;

    // Rest matrices, y-down.
    let world: Vec<Affine2> = scene
        .skeleton
        .bind_transforms()
        .iter()
        .map(|m| Affine2::from_isometry_angle(m).flip_y())
        .collect();
    let bone_json: Vec<Value> = (0..bones.len())
        .map(|j| bone_entry(bones, &world, j))
        .collect();
    let root = bones
        .iter()
        .find(|b| b.parent.is_none())
        .map(|b| b.name.clone())
        .unwrap_or_default();

    let parts = mesh.parts();
    let influences = weights.influences();
    let mut slots = Vec::new();
    let mut displays = Vec::new();
    let mut written = Vec::new();
    for (p, tris) in triangles_by_part(mesh).iter().enumerate() {
        if tris.is_empty() {
            continue;
        }
        let used = vertices_of(tris);
        displays.push(mesh_display(
            &parts[p],
            tris,
            &used,
            mesh,
            &influences,
            &world,
        ));
        slots.push(json!({"name": parts[p], "parent": root}));
        written.push((parts[p].clone(), used));
    }

    let (rate, mut animations) = animations(scene)?;
    super::ffd::add_ffd(scene, &influences, &written, rate, &mut animations)?;
    let first = animations[0]["name"].clone();
    let (lo, hi) = mesh.bounds();
    Ok(json!({
        "frameRate": rate,
        "name": scene.name,
        "version": "5.5",
        "compatibleVersion": "5.5",
        "armature": [{
            "type": "Armature",
            "frameRate": rate,
            "name": scene.name,
            "aabb": {"x": lo.x, "y": -hi.y, "width": hi.x - lo.x, "height": hi.y - lo.y},
            "bone": bone_json,
            "slot": slots,
            "skin": [{"name": "", "slot": displays}],
            "animation": animations,
            "defaultActions": [{"gotoAndPlay": first}],
        }],
    }))
}

/// Bone `j`'s armature entry: its setup transform = its rest frame (`world`, y-down)
/// relative to its parent's, its length and inheritance flags.
fn bone_entry(bones: &[Bone], world: &[Affine2], j: usize) -> Value {
    let b = &bones[j];
    let local = match b.parent {
        // Rest transforms are rotations, always invertible.
        Some(p) => world[p].db_inverse().map_or(world[j], |inv| inv * world[j]),
        None => world[j],
    };
    let inherit = b.local.map(|l| l.inherit).unwrap_or_default();
    // A bone that inherits no rotation holds its world angle (DragonBones'
    // `inheritRotation: false`).
    let deg = match inherit {
        Inherit::OnlyTranslation => world[j].angle().to_degrees(),
        _ => local.angle().to_degrees(),
    };
    let mut o = json!({
        "name": b.name,
        "length": b.length(),
        "transform": {"x": local.tx, "y": local.ty, "skX": deg, "skY": deg},
    });
    match inherit {
        Inherit::Normal => {}
        Inherit::OnlyTranslation | Inherit::NoRotationOrReflection => {
            o["inheritRotation"] = json!(false)
        }
        Inherit::NoScale | Inherit::NoScaleOrReflection | Inherit::ParentAngleOnly => {
            o["inheritScale"] = json!(false)
        }
    }
    if let Some(p) = b.parent {
        o["parent"] = json!(bones[p].name);
    }
    o
}

/// The slot display of part `name`: a weighted mesh of the vertices `used` its triangles
/// `tris` use ([`vertices_of`]), in armature space (y-down), placeholder `uvs` over its bounding box, the rest
/// matrix of every bone it uses.
fn mesh_display(
    name: &str,
    tris: &[[usize; 3]],
    used: &[usize],
    mesh: &Mesh,
    influences: &[Vec<(usize, f64)>],
    world: &[Affine2],
) -> Value {
    let mut local_index = std::collections::HashMap::with_capacity(used.len());
    for (i, &v) in used.iter().enumerate() {
        local_index.insert(v, i);
    }
    let points: Vec<[f64; 2]> = used
        .iter()
        .map(|&v| {
            let q = mesh.vertices()[v];
            [q.x, -q.y]
        })
        .collect();
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for q in &points {
        for k in 0..2 {
            lo[k] = lo[k].min(q[k]);
            hi[k] = hi[k].max(q[k]);
        }
    }
    let size = [(hi[0] - lo[0]).max(1e-9), (hi[1] - lo[1]).max(1e-9)];
    let mut display_bones: Vec<usize> = Vec::new();
    let mut weight_list = Vec::new();
    for &v in used {
        let row = &influences[v];
        weight_list.push(json!(row.len()));
        for &(j, w) in row {
            weight_list.push(json!(j));
            weight_list.push(json!(w));
            if !display_bones.contains(&j) {
                display_bones.push(j);
            }
        }
    }
    display_bones.sort_unstable();
    let bone_pose: Vec<f64> = display_bones
        .iter()
        .flat_map(|&j| std::iter::once(j as f64).chain(world[j].db_array()))
        .collect();
    json!({
        "name": name,
        "display": [{
            "type": "mesh",
            "name": name,
            "width": size[0],
            "height": size[1],
            "vertices": points.iter().flatten().collect::<Vec<_>>(),
            "uvs": points.iter().flat_map(|q| [(q[0] - lo[0]) / size[0], (q[1] - lo[1]) / size[1]]).collect::<Vec<_>>(),
            "triangles": tris.iter().flatten().map(|v| local_index[v]).collect::<Vec<_>>(),
            "weights": weight_list,
            "slotPose": Affine2::IDENTITY.db_array(),
            "bonePose": bone_pose,
        }],
    })
}

/// The frame rate and the animations: the scene's clips, else one empty `setup`.
fn animations(scene: &Scene) -> Result<(f64, Vec<Value>)> {
    if scene.clips.is_empty() {
        return Ok((
            24.0,
            vec![json!({"name": "setup", "duration": 1, "playTimes": 0})],
        ));
    }
    for clip in &scene.clips {
        clip.check(&scene.skeleton)?;
    }
    let rate = super::clips::export_rate(&scene.clips, None)?;
    Ok((rate, super::clips::write_clips(&scene.clips, rate)?))
}

/// [`export_dragonbones`] as JSON text; `context` names the output in a serialization error.
pub(crate) fn dragonbones_text(scene: &Scene, weights: &Weights, context: &str) -> Result<String> {
    serde_json::to_string(&export_dragonbones(scene, weights)?).map_err(|e| {
        Error::Format(FormatError::Json {
            context: context.to_string(),
            message: e.to_string(),
        })
    })
}
