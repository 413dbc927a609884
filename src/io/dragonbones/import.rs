//! DragonBones JSON → one [`Scene`] with a part per mesh display, plus the artist's weights.

use super::atlas::{atlas_art, Atlas};
use super::parse::{parse_armature, FileArmature, FileBone, FileMesh};
use super::{to_scene, DragonBonesAffine, MAX_COORDINATE, MAX_SCALE};
use crate::error::{Error, FormatError, MeshError, Result, RigFormat};
use crate::io::angles::wrap_degrees;
use crate::io::scene_builder::{overlapping_edges, SceneBuilder};
use crate::mesh::{signed_area2, Mesh};
use crate::scene::Scene;
use crate::skeleton::{Affine2, Bone, Inherit, LocalTransform, Skeleton};
use nalgebra::{Isometry2, Point2, Vector2};
use std::fmt;
use std::path::Path;

use crate::io::mesh_parts::ZERO_LENGTH_TAIL;

/// Position (px) and angle (degrees) tolerances under which a bone's bind pose counts as equal
/// to its setup transform.
const SAME_POSE_PX: f64 = 1e-3;
const SAME_POSE_DEG: f64 = 1e-3;

/// Largest deviation of a bonePose/slotPose from a rotation that is reported as rigid.
const RIGID_TOLERANCE: f64 = 1e-6;

/// A triangle whose doubled area is at most this times the square of the scene's largest
/// coordinate has zero area: at least as strict as [`Mesh::with_parts`]'s per-triangle rule,
/// checked here first so that the error names the mesh display.
const ZERO_AREA_REL: f64 = 1e-14;

/// Most vertices × bones the import holds: the artist's weights (and the bones' part
/// scores) are dense matrices of that size (1e8 entries is 800 MB; a large character has
/// a few thousand vertices and a few hundred bones, 1e6).
const MAX_WEIGHT_ENTRIES: usize = 100_000_000;

/// What [`import_dragonbones`] produced: the scene, the artist's weights and the report.
pub type DragonBonesImport = crate::io::Imported<ImportReport>;

/// The import report: meshes, bones whose setup transform differs from their bind pose, and
/// notes on every repair.
#[derive(Debug, Clone, Default)]
pub struct ImportReport {
    /// Armature name.
    pub armature: String,
    /// The file's `version`.
    pub version: String,
    /// One entry per imported mesh display, in part order.
    pub meshes: Vec<MeshReport>,
    /// Bones bound by some mesh whose setup world transform differs from their bind pose.
    pub bind_differs: Vec<BindDifference>,
    /// Repairs and things skipped (reoriented triangles, normalized rows, other armatures).
    pub notes: Vec<String>,
}

/// Scored: every mesh; the slots are the meshes'.
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

    fn slots(&self) -> Vec<crate::transfer::SlotPart> {
        self.meshes
            .iter()
            .map(|m| {
                crate::transfer::SlotPart::new(&m.part, &m.slot, m.weighted)
                    .on_bone(m.slot_bone.as_deref())
            })
            .collect()
    }
}

/// One imported mesh display.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshReport {
    /// Part name in the scene (the slot's name).
    pub part: String,
    /// Slot name.
    pub slot: String,
    /// Display name (texture path).
    pub display: String,
    /// Vertices imported.
    pub vertices: usize,
    /// Triangles imported.
    pub triangles: usize,
    /// Whether the file gives weights (false: attached to the slot's bone).
    pub weighted: bool,
    /// Index in the scene's mesh of this display's first vertex (its vertices are contiguous).
    pub first_vertex: usize,
    /// Bones the artist's weights use on this mesh, in skeleton order: the bones to give a
    /// solver when scoring it against the artist.
    pub bones: Vec<String>,
    /// The slot's parent bone (what an unweighted mesh hangs on), when the file names one.
    pub slot_bone: Option<String>,
    /// Triangles whose winding was reversed to make them counter-clockwise.
    pub reoriented_triangles: usize,
    /// Largest `|row sum - 1|` in the file's weights before normalizing.
    pub max_row_sum_error: f64,
}

impl MeshReport {
    /// Scene vertex indices of this mesh.
    pub fn vertex_range(&self) -> std::ops::Range<usize> {
        self.first_vertex..self.first_vertex + self.vertices
    }
}

/// A bone whose setup transform (what DragonBones shows when the file opens) differs from
/// the bind pose its meshes were skinned in. The importer's rest skeleton is the bind pose.
#[derive(Debug, Clone, PartialEq)]
pub struct BindDifference {
    /// Bone name.
    pub bone: String,
    /// Distance between the setup and bind positions of the bone's origin, px.
    pub position: f64,
    /// Bind angle minus setup angle, degrees, counter-clockwise (y-up).
    pub angle_deg: f64,
    /// Whether the bone's own transform relative to its parent differs too (false: it only
    /// follows a parent that moved).
    pub local: bool,
}

impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "armature {:?} (DragonBones {}): {} meshes",
            self.armature,
            self.version,
            self.meshes.len()
        )?;
        for m in &self.meshes {
            writeln!(
                f,
                "  {:<12} {:<20} {:>4} vertices {:>4} triangles  {}",
                m.part,
                m.display,
                m.vertices,
                m.triangles,
                if m.weighted {
                    format!("weighted: {}", m.bones.join(", "))
                } else {
                    format!("attached to {}", m.bones.join(", "))
                }
            )?;
        }
        if !self.bind_differs.is_empty() {
            writeln!(
                f,
                "{} bones have a setup transform that differs from their bind pose (the scene uses the bind pose):",
                self.bind_differs.len()
            )?;
            // What rounds to 0 prints as 0, not -0.000.
            let shown = |x: f64| if x.abs() < 5e-4 { 0.0 } else { x };
            for d in &self.bind_differs {
                writeln!(
                    f,
                    "  {:<12} moved {:8.3} px, turned {:8.3} deg{}",
                    d.bone,
                    shown(d.position),
                    shown(d.angle_deg),
                    if d.local { "" } else { " (follows its parent)" }
                )?;
            }
        }
        for n in &self.notes {
            writeln!(f, "note: {n}")?;
        }
        Ok(())
    }
}

/// Reads a DragonBones JSON file (see [`import_dragonbones`]). When a texture atlas sits
/// beside it (`NAME_ske.json` -> `NAME_tex.json` and the image it names), the scene carries
/// the art (see [`import_dragonbones_with_atlas`]); a missing or unreadable atlas image is an
/// error naming the file.
pub fn load_dragonbones(path: impl AsRef<Path>) -> Result<DragonBonesImport> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let atlas = Atlas::beside(path).map(Atlas::load).transpose()?;
    import(&text, atlas.as_ref()).map_err(|e| e.in_file(path))
}

/// [`import_dragonbones`], plus the art: the atlas image, each mesh display's `uvs` mapped
/// into its atlas region (named by the display's `path`, else its `name`), layers in the
/// armature's slot order. A display whose region is not in the atlas is an error.
pub fn import_dragonbones_with_atlas(text: &str, atlas: &Atlas) -> Result<DragonBonesImport> {
    import(text, Some(atlas))
}

/// Parses a DragonBones 5.5 `_ske.json` and builds one scene (see the module docs).
///
/// - The first armature with a mesh display is imported (others are named in the notes).
/// - Every mesh display of every skin becomes a part named after its slot (`skin:slot`
///   outside the default skin), the default skin's first; all parts share one mesh as
///   separate components. A `share` mesh takes the geometry and weights of the mesh it names
///   (one naming none is left out, noted). Image and other displays are skipped (noted).
/// - Transforms are relative to the parent bone; `isGlobal: 1` data is refused.
/// - Rest skeleton: a bone bound by a mesh takes its `bonePose` (head = translation,
///   direction = the matrix's x axis, tail = head + `length` · direction, a zero length
///   becoming [`ZERO_LENGTH_TAIL`]); other bones take their setup transform relative to
///   their parent's rest transform. Bones whose setup differs from the bind pose are listed
///   in [`ImportReport::bind_differs`].
/// - Weighted vertices are placed at `slotPose · v` (their bind position); unweighted meshes
///   at their slot bone's rest transform, weight 1 on that bone.
/// - Artist rows are normalized to sum to 1 (the file rounds weights; the largest deviation
///   is in [`MeshReport::max_row_sum_error`]).
/// - A bone's `part` is the part where the artist gives it the largest mean weight per
///   vertex; a bone with no weight takes its nearest ancestor's part; a bone with neither
///   (armature roots, IK targets) gets no part and `influences: []`, so masking never
///   hands it a vertex.
/// - Probes `lift_l` / `lift_r` (when upper-arm bones are found, see
///   [`ImportReport::notes`]) rotate each upper arm by 90° outward and watch the part of the
///   upper arm's parent bone, beyond one upper-arm length from the shoulder.
///
/// Errors: [`FormatError::Json`] for text that is not JSON; [`FormatError::Rig`] naming the
/// context (armature, bone, slot or mesh), the field and, for weights and vertices, the
/// vertex: numbers out of range (coordinates beyond ±1e6 px, scales beyond ±1000, a vertex's
/// bone count beyond its mesh's `bonePose`), singular `slotPose`/`bonePose` matrices, a
/// world transform that compounds out of range (the first such bone, parents first),
/// repeated slot names, and a display with no triangle of nonzero area. Zero-area triangles
/// are left out and repeated triangles, folds and unused vertices kept, as in artist meshes
/// anywhere (noted); [`SkeletonError::UnknownParent`](crate::error::SkeletonError::UnknownParent),
/// [`SkeletonError::DuplicateBone`](crate::error::SkeletonError::DuplicateBone), [`SkeletonError::ParentCycle`](crate::error::SkeletonError::ParentCycle) for the bone hierarchy.
pub fn import_dragonbones(text: &str) -> Result<DragonBonesImport> {
    import(text, None)
}

fn import(text: &str, atlas: Option<&Atlas>) -> Result<DragonBonesImport> {
    let FileArmature {
        bones,
        order,
        meshes,
        mut report,
        clips,
    } = parse_armature(text)?;
    let n_vertices: usize = meshes.iter().map(|m| m.vertices.len()).sum();
    if n_vertices.saturating_mul(bones.len()) > MAX_WEIGHT_ENTRIES {
        return Err(FormatError::Rig { format: RigFormat::DRAGONBONES,
            context: "armature".into(),
            field: "bone".into(),
            vertex: None,
            message: format!(
                "{n_vertices} mesh vertices × {} bones is more than the {MAX_WEIGHT_ENTRIES} weights the import holds",
                bones.len()
            ),
        }.into());
    }
    let setup_world = forward_kinematics(&bones, &order, &[]);
    check_world(&bones, &order, &setup_world, "setup")?;
    let bind = bind_poses(&bones, &meshes, &mut report.notes);
    let rest = forward_kinematics(&bones, &order, &bind);
    check_world(&bones, &order, &rest, "rest")?;
    report.bind_differs = bind_differences(&bones, &setup_world, &rest, &bind);
    let scene_bones = rest_bones(&bones, &rest, &mut report.notes);

    let placed = meshes
        .iter()
        .map(|m| place_display(m, &rest))
        .collect::<Result<Vec<_>>>()?;
    let scale = placed.iter().map(|p| p.scale).fold(0.0, f64::max);
    let mut builder = SceneBuilder::for_artist_meshes(bones.len());
    for (m, p) in meshes.iter().zip(placed) {
        let added = add_display(&mut builder, m, p, scale, &mut report.notes)?;
        report.meshes.push(MeshReport {
            bones: added.used.iter().map(|&j| bones[j].name.clone()).collect(),
            slot_bone: m
                .slot_bone
                .and_then(|j| bones.get(j))
                .map(|b| b.name.clone()),
            ..added.report
        });
    }
    let max_err = report
        .meshes
        .iter()
        .map(|m| m.max_row_sum_error)
        .fold(0.0, f64::max);
    // Below 1e-9 is float noise (e.g. our own export), not worth a note.
    if max_err > 1e-9 {
        report.notes.push(format!(
            "artist weight rows summed to 1 within {max_err:.1e} (rounded in the file): normalized"
        ));
    }
    // Rows were checked to have a positive sum while parsing.
    builder.normalize_weights();
    let built = builder.finish(scene_bones, &order, &mut report.notes)?;
    let name = if report.armature.is_empty() {
        "dragonbones".to_string()
    } else {
        report.armature.clone()
    };
    let clips = rebased_clips(clips, &bones, &built.skeleton, &mut report.notes)?;
    let art = atlas
        .map(|a| atlas_art(a, &meshes, built.mesh.parts(), &mut report.notes))
        .transpose()?;
    let mut scene = Scene::new(name, built.mesh, built.skeleton, built.probes)?
        .with_animation(clips, Vec::new())?;
    if let Some(art) = art {
        scene = scene.with_art(art)?;
    }
    Ok(DragonBonesImport {
        scene,
        artist: built.artist,
        report,
    })
}

/// DragonBones animates from the setup transform; the scene's rest is the bind pose: the
/// clips rebased so that a sampled pose is DragonBones' (setup + animation), noted.
fn rebased_clips(
    mut clips: Vec<crate::animation::Clip>,
    bones: &[FileBone],
    skeleton: &Skeleton,
    notes: &mut Vec<String>,
) -> Result<Vec<crate::animation::Clip>> {
    let setup: Vec<_> = bones.iter().map(|b| setup_local(b.setup_local)).collect();
    let rebased = super::clips::rebase_clips(&mut clips, skeleton, &setup)?;
    if !clips.is_empty() && !rebased.is_empty() {
        notes.push(format!(
            "{} bones' bind pose (the scene's rest) differs from their setup transform ({}): every clip holds them at setup + animation, as DragonBones plays it",
            rebased.len(),
            rebased.join(", ")
        ));
    }
    Ok(clips)
}

/// A display's vertices in armature space (y-down) and their weight rows.
struct PlacedDisplay {
    points: Vec<[f64; 2]>,
    /// `(bone, weight)` pairs per vertex, as the file gives them.
    rows: Vec<Vec<(usize, f64)>>,
    /// Largest |coordinate|.
    scale: f64,
}

/// Mesh display `m` placed in armature space: weighted vertices at `slotPose · v` (their bind
/// position), an unweighted mesh at its slot bone's rest transform (`rest`), weight 1 on that
/// bone. A coordinate beyond [`MAX_COORDINATE`] is an error naming the vertex.
fn place_display(m: &FileMesh, rest: &[Affine2]) -> Result<PlacedDisplay> {
    let (points, rows) = match &m.skin {
        Some(s) => (
            m.vertices
                .iter()
                .map(|&v| s.slot_pose.apply_xy(v))
                .collect::<Vec<_>>(),
            s.influences.clone(),
        ),
        None => {
            let j = m.slot_bone.ok_or_else(|| {
                Error::Format(FormatError::Rig {
                    format: RigFormat::DRAGONBONES,
                    context: mesh_context(m),
                    field: "slot.parent".into(),
                    vertex: None,
                    message: "an unweighted mesh needs its slot's bone".into(),
                })
            })?;
            let to_world = rest[j] * m.display_transform;
            (
                m.vertices.iter().map(|&v| to_world.apply_xy(v)).collect(),
                vec![vec![(j, 1.0)]; m.vertices.len()],
            )
        }
    };
    let mut scale: f64 = 0.0;
    for (v, p) in points.iter().enumerate() {
        // Negated so that NaN fails too.
        if !(p[0].abs() <= MAX_COORDINATE && p[1].abs() <= MAX_COORDINATE) {
            let by = if m.skin.is_some() {
                "slotPose"
            } else {
                "its slot bone's rest matrix and the display's transform"
            };
            return Err(FormatError::Rig {
                format: RigFormat::DRAGONBONES,
                context: mesh_context(m),
                field: "vertices".into(),
                vertex: Some(v),
                message: format!(
                    "{by} places it at ({:e}, {:e}), beyond ±{MAX_COORDINATE:e} px",
                    p[0], p[1]
                ),
            }
            .into());
        }
        scale = scale.max(p[0].abs()).max(p[1].abs());
    }
    Ok(PlacedDisplay {
        points,
        rows,
        scale,
    })
}

/// A display's report before its bones are named: `used` the bones its rows weigh.
struct DisplayReport {
    report: MeshReport,
    used: Vec<usize>,
}

/// Display `m` (placed) as a part of `builder`: triangles made counter-clockwise in the y-up
/// frame (noted), its own mesh checked (an error names the display), its weight rows.
/// `scale` is the largest coordinate of the scene (the zero-area tolerance).
fn add_display(
    builder: &mut SceneBuilder,
    m: &FileMesh,
    placed: PlacedDisplay,
    scale: f64,
    notes: &mut Vec<String>,
) -> Result<DisplayReport> {
    let part = builder.unique_name(&m.part_name());
    let ctx = mesh_context(m);
    let Oriented {
        triangles: oriented,
        reoriented,
        dropped,
    } = orient_triangles(m, &placed.points, scale);
    let scene_placed: Vec<Point2<f64>> = placed.points.iter().map(|&p| to_scene(p)).collect();
    // Artist meshes repeat triangles, fold and leave vertices unused: the artist entry point
    // keeps them (noted when the scene is built), as the Spine import does; what no mesh can
    // hold (no triangle of any area left) is an error naming the display.
    Mesh::from_artist(
        scene_placed.clone(),
        oriented.clone(),
        vec![part.clone()],
        vec![0; scene_placed.len()],
    )
    .map_err(|e| in_display(&ctx, e))?;
    if !dropped.is_empty() {
        notes.push(format!(
            "{part}: {} triangles of zero area left out (the first: display triangle {})",
            dropped.len(),
            dropped[0]
        ));
    }
    if reoriented > 0 {
        notes.push(format!(
            "{part}: {reoriented} of {} triangles were clockwise after the y flip (DragonBones does not fix a winding): reversed",
            m.triangles.len()
        ));
    }
    let folds = overlapping_edges(&oriented);
    if folds > 0 {
        notes.push(format!(
            "{part}: {folds} interior edges have both triangles on the same side (the mesh folds over itself there)"
        ));
    }
    let added = builder.add_part(part, scene_placed, &oriented);
    for (v, row) in added.vertices.clone().zip(&placed.rows) {
        for &(j, w) in row {
            builder.add_weight(v, j, w);
        }
    }
    let mut used: Vec<usize> = placed
        .rows
        .iter()
        .flat_map(|r| r.iter().filter(|(_, w)| *w > 0.0).map(|&(j, _)| j))
        .collect();
    used.sort_unstable();
    used.dedup();
    Ok(DisplayReport {
        report: MeshReport {
            part: added.name,
            slot: m.slot.clone(),
            display: m.display.clone(),
            vertices: placed.points.len(),
            triangles: oriented.len(),
            weighted: m.skin.is_some(),
            first_vertex: added.vertices.start,
            bones: Vec::new(),
            slot_bone: None,
            reoriented_triangles: reoriented,
            max_row_sum_error: m.skin.as_ref().map_or(0.0, |s| s.max_row_sum_error),
        },
        used,
    })
}

/// Display `m`'s triangles, each made counter-clockwise in the y-up frame.
struct Oriented {
    triangles: Vec<[usize; 3]>,
    /// Triangles that were clockwise and were reversed.
    reoriented: usize,
    /// Display indices of the triangles of zero area (under [`ZERO_AREA_REL`] · `scale`²)
    /// left out: artist meshes have them (a vertex placed on an edge, two vertices at one
    /// point), and they carry no area to draw or to skin.
    dropped: Vec<usize>,
}

fn orient_triangles(m: &FileMesh, placed: &[[f64; 2]], scale: f64) -> Oriented {
    let zero_area = ZERO_AREA_REL * scale * scale;
    let mut out = Oriented {
        triangles: Vec::with_capacity(m.triangles.len()),
        reoriented: 0,
        dropped: Vec::new(),
    };
    for (t, &tri) in m.triangles.iter().enumerate() {
        let [a, b, c] = tri.map(|i| to_scene(placed[i]));
        let area2 = signed_area2(&a, &b, &c);
        if area2.abs() <= zero_area {
            out.dropped.push(t);
        } else if area2 > 0.0 {
            out.triangles.push(tri);
        } else {
            out.reoriented += 1;
            out.triangles.push([tri[0], tri[2], tri[1]]);
        }
    }
    out
}

/// `mesh "NAME" (slot "SLOT")`, the context of a display's errors.
fn mesh_context(m: &FileMesh) -> String {
    format!("mesh {:?} (slot {:?})", m.display, m.slot)
}

/// A mesh validation error of one display (display vertex and triangle indices) as a
/// DragonBones error naming the display.
fn in_display(ctx: &str, e: Error) -> Error {
    let vertex = match e {
        Error::Mesh(MeshError::UnreferencedVertex { vertex })
        | Error::Mesh(MeshError::NonManifoldVertex { vertex, .. }) => Some(vertex),
        _ => None,
    };
    Error::Format(FormatError::Rig {
        format: RigFormat::DRAGONBONES,
        context: ctx.to_string(),
        field: "triangles".into(),
        vertex,
        message: e.to_string(),
    })
}

/// Checks world matrices parents first and names the first bone whose matrix is not finite,
/// scales beyond [`MAX_SCALE`], puts its head beyond [`MAX_COORDINATE`] or (rest pose: the
/// scene's bone points along it) has no x axis: its parent's matrix is fine, so its own
/// transform (on that parent) made it so. `pose` is "setup" or "rest".
fn check_world(bones: &[FileBone], order: &[usize], world: &[Affine2], pose: &str) -> Result<()> {
    for &j in order {
        let m = world[j];
        let [a, b, c, d, _, _] = m.db_array();
        let linear = [a, b, c, d];
        let problem = if !linear.iter().all(|x| x.abs() <= MAX_SCALE) {
            format!(
                "its {pose} matrix scales by more than {MAX_SCALE} ([a, b, c, d] = {linear:?}; its own scale times its ancestors')"
            )
        } else if !(m.tx.abs() <= MAX_COORDINATE && m.ty.abs() <= MAX_COORDINATE) {
            format!(
                "its {pose} position ({:e}, {:e}) is beyond ±{MAX_COORDINATE:e} px",
                m.tx, m.ty
            )
        } else if pose == "rest" && a.hypot(b) < 1e-12 {
            "its rest matrix has no x axis (zero scale)".to_string()
        } else {
            continue;
        };
        let b = &bones[j];
        return Err(FormatError::Rig {
            format: RigFormat::DRAGONBONES,
            context: format!("bone {:?}", b.name),
            field: "transform".into(),
            vertex: None,
            message: match b.parent {
                Some(p) => format!("{problem}, on the frame of its parent {:?}", bones[p].name),
                None => problem,
            },
        }
        .into());
    }
    Ok(())
}

/// Each bone's bind pose: the first mesh that binds it defines it; a different pose in
/// another mesh is noted (the runtime keeps one local frame per mesh; we keep one per bone).
fn bind_poses(
    bones: &[FileBone],
    meshes: &[FileMesh],
    notes: &mut Vec<String>,
) -> Vec<Option<Affine2>> {
    let mut bind: Vec<Option<Affine2>> = vec![None; bones.len()];
    for m in meshes {
        for &(j, pose) in m.skin.iter().flat_map(|s| &s.bone_poses) {
            match bind[j] {
                None => bind[j] = Some(pose),
                Some(first) => {
                    let diff = first
                        .db_array()
                        .iter()
                        .zip(pose.db_array())
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0, f64::max);
                    if diff > 1e-6 {
                        notes.push(format!(
                            "bone {:?} has a different bonePose in mesh {:?} (max entry difference {diff:.3e}); kept the first",
                            bones[j].name, m.slot
                        ));
                    }
                }
            }
        }
    }
    bind
}

/// The rest skeleton, y-up, from each bone's rest matrix (y-down; checked by
/// [`check_world`]).
fn rest_bones(bones: &[FileBone], rest: &[Affine2], notes: &mut Vec<String>) -> Vec<Bone> {
    let mut scene_bones = Vec::with_capacity(bones.len());
    for (j, b) in bones.iter().enumerate() {
        let m = rest[j].flip_y();
        if m.rigidity_error() > RIGID_TOLERANCE {
            notes.push(format!(
                "bone {:?}: its rest matrix scales, skews or mirrors (deviation {:.3e} from a rotation); kept its position and x direction",
                b.name,
                m.rigidity_error()
            ));
        }
        let axis = Vector2::new(m.a, m.c);
        let head = Point2::new(m.tx, m.ty);
        let length = if b.length > 0.0 {
            b.length
        } else {
            ZERO_LENGTH_TAIL
        };
        let mut bone = Bone {
            parent: b.parent,
            ..Bone::new(b.name.clone(), head, head + axis.normalize() * length)
        };
        // DragonBones' inheritance flags as the skeleton's inherit modes, so a clip moves the
        // bone as DragonBones does (a foot that keeps its world angle while the leg turns).
        if let (Some(p), Some(inherit)) = (b.parent, inherit_mode(b, notes)) {
            // Relative to the parent's bind frame as the skeleton builds it (an isometry from
            // head and tail), so that the bone's world origin is its head exactly.
            let pm = rest[p].flip_y();
            let parent_bind = Isometry2::new(Vector2::new(pm.tx, pm.ty), pm.angle());
            let parent_angle = parent_bind.rotation.angle();
            let q = parent_bind.inverse_transform_point(&head);
            let local = [q.x, q.y];
            let rotation = match inherit {
                Inherit::OnlyTranslation => m.angle(),
                _ => m.angle() - parent_angle,
            };
            bone.local = Some(
                LocalTransform::new(local[0], local[1], rotation.to_degrees())
                    .with_inherit(inherit),
            );
        }
        scene_bones.push(bone);
    }
    scene_bones
}

/// The inherit mode of a bone whose flags are not all set: `inheritRotation: false` →
/// [`Inherit::OnlyTranslation`], `inheritScale: false` → [`Inherit::ParentAngleOnly`]
/// (DragonBones then keeps the parent's rotation only). `inheritTranslation: false` has no
/// skeleton form (every mode inherits the parent's translation): noted, read as inherited.
fn inherit_mode(b: &FileBone, notes: &mut Vec<String>) -> Option<Inherit> {
    if !b.inherit_translation {
        notes.push(format!(
            "bone {:?}: inheritTranslation false is read as true (the skeleton always inherits translation)",
            b.name
        ));
    }
    match (b.inherit_rotation, b.inherit_scale) {
        (false, _) => Some(Inherit::OnlyTranslation),
        (true, false) => Some(Inherit::ParentAngleOnly),
        (true, true) => None,
    }
}

/// World matrices, parents first: a bone with a `fixed` matrix takes it, the others their
/// setup transform on top of their parent's world matrix ([`child_world`]).
fn forward_kinematics(
    bones: &[FileBone],
    order: &[usize],
    fixed: &[Option<Affine2>],
) -> Vec<Affine2> {
    let mut world = vec![Affine2::IDENTITY; bones.len()];
    for &j in order {
        world[j] = match fixed.get(j) {
            Some(Some(m)) => *m,
            _ => child_world(&bones[j], bones[j].parent.map(|p| world[p])),
        };
    }
    world
}

/// A bone's world matrix from its setup transform and its parent's world matrix, as
/// DragonBones composes them: `inheritRotation: false` keeps the local orientation,
/// `inheritScale: false` keeps the parent's rotation without its scale,
/// `inheritTranslation: false` ignores the parent's frame for the origin.
fn child_world(b: &FileBone, parent: Option<Affine2>) -> Affine2 {
    let l = b.setup_local;
    let Some(pw) = parent else { return l };
    let [tx, ty] = if b.inherit_translation {
        pw.apply_xy([l.tx, l.ty])
    } else {
        [l.tx, l.ty]
    };
    let linear = Affine2 {
        tx: 0.0,
        ty: 0.0,
        ..l
    };
    let parent_linear = match (b.inherit_rotation, b.inherit_scale) {
        (true, true) => Affine2 {
            tx: 0.0,
            ty: 0.0,
            ..pw
        },
        (true, false) => Affine2::from_transform(0.0, 0.0, pw.angle(), 0.0, 1.0, 1.0),
        (false, _) => Affine2::IDENTITY,
    };
    Affine2 {
        tx,
        ty,
        ..parent_linear * linear
    }
}

/// Bound bones whose setup world matrix differs from their bind pose.
fn bind_differences(
    bones: &[FileBone],
    setup_world: &[Affine2],
    rest: &[Affine2],
    bind: &[Option<Affine2>],
) -> Vec<BindDifference> {
    let angle_diff = |from: Affine2, to: Affine2| {
        // y-up angles are the negated y-down ones.
        let d = (-(to.angle() - from.angle())).to_degrees();
        // Into [-180, 180).
        -wrap_degrees(-d)
    };
    let pos_diff = |a: Affine2, b: Affine2| (a.tx - b.tx).hypot(a.ty - b.ty);
    let mut out = Vec::new();
    for (j, b) in bones.iter().enumerate() {
        let Some(bp) = bind[j] else { continue };
        let (position, angle_deg) = (pos_diff(setup_world[j], bp), angle_diff(setup_world[j], bp));
        if position <= SAME_POSE_PX && angle_deg.abs() <= SAME_POSE_DEG {
            continue;
        }
        // Where the setup transform would put the bone on its parent's rest (bind) frame.
        let expected = child_world(b, b.parent.map(|p| rest[p]));
        let local =
            pos_diff(expected, bp) > SAME_POSE_PX || angle_diff(expected, bp).abs() > SAME_POSE_DEG;
        out.push(BindDifference {
            bone: b.name.clone(),
            position,
            angle_deg,
            local,
        });
    }
    out
}

/// A DragonBones setup transform (y-down matrix) as a y-up [`LocalTransform`]: origin,
/// rotation of the x axis, axis lengths and the y axis' shear (a mirrored matrix gets a
/// negative y scale).
pub(super) fn setup_local(m: Affine2) -> LocalTransform {
    // DragonBones' layout: x axis (a, b), y axis (c, d).
    let [a, b, c, d, tx, ty] = m.flip_y().db_array();
    let rotation = b.atan2(a);
    let sx = a.hypot(b);
    let det = a * d - b * c;
    let (sy, y_angle) = if det < 0.0 {
        (-c.hypot(d), c.atan2(-d))
    } else {
        (c.hypot(d), (-c).atan2(d))
    };
    let shear = y_angle - rotation;
    let shear = shear - std::f64::consts::TAU * (shear / std::f64::consts::TAU).round();
    LocalTransform::new(tx, ty, rotation.to_degrees())
        .with_scale(sx, sy)
        .with_shear(0.0, shear.to_degrees())
}
