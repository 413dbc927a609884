//! Bones, skeletons, poses and forward kinematics.
//!
//! Two kinds of bone share one hierarchy:
//!
//! - A **rigid** bone (`local: None`) is a segment from head to tail. Its **bind transform**
//!   `B_j` maps bone-local coordinates (origin at the head, x axis along head → tail) to world
//!   coordinates in the rest pose; it is an isometry. Its local transform is derived from the
//!   segment relative to its parent's bind frame: scale 1, shear 0, [`Inherit::Normal`].
//! - A bone with a [`LocalTransform`] (`local: Some`, e.g. imported from Spine) carries its
//!   setup transform relative to its parent in Spine's model (translation, rotation, scale,
//!   shear, inheritance; see [`LocalTransform`] for the matrices and every inherit mode). Its rest
//!   world transform `W_j(rest)` is affine; head and tail are the world images of the origin
//!   and of `(length, 0)`.
//!
//! A [`Pose`] gives each bone offsets from its setup transform: a rotation about its origin
//! (degrees, counter-clockwise positive, added), a translation in the parent's frame
//! (added), a scale (multiplied) and a shear (degrees, added); children follow their
//! parents. [`Skeleton::world_affines`] is this forward kinematics;
//! [`Skeleton::skinning_affines`] gives `S_j = W_j(pose) W_j(rest)^-1`, which takes a
//! rest-pose world point to its posed position as if rigidly attached to bone `j`.
//!
//! For a skeleton of rigid bones, rotations and translations only, the affine path equals
//! the isometry path ([`Skeleton::world_transforms`], kept for dual-quaternion skinning, which
//! blends rigid transforms only): `M_j = M_parent · T(t_j) · (B_parent^-1 B_j) · R(θ_j)`.
//! On bones with a local transform or a pose with scale or shear, the isometry path uses the
//! bind isometries from head and tail and ignores scale and shear (an approximation).
//!
//! A rigid bone whose parent has a local transform follows the parent's skinning transform:
//! `W_j = S_parent · B_parent · L_j` with `L_j` its derived local transform posed, so its rest
//! world is its bind isometry whatever the parent's scale.

mod affine;
mod local;

pub use affine::Affine2;
pub use local::{BoneOffset, Inherit, LocalTransform};

use crate::error::{Error, Result, SkeletonError};
use nalgebra::{Isometry2, Point2, Vector2};
use std::collections::BTreeMap;

/// Relative tolerance on a bone's head against the world origin of its local transform
/// (`Skeleton::new` refuses bones whose two descriptions disagree by more).
pub const LOCAL_HEAD_TOLERANCE: f64 = 1e-6;

/// One bone: a segment from `head` to `tail` in rest-pose world coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// Unique name.
    pub name: String,
    /// Index of the parent bone, if any.
    pub parent: Option<usize>,
    /// Rest position of the joint the bone rotates about.
    pub head: Point2<f64>,
    /// Rest position of the bone's end.
    pub tail: Point2<f64>,
    /// Name of the mesh part this bone drives (used by masking and the drag metric).
    pub part: Option<String>,
    /// Parts this bone may influence under masking; `None` = its own part and its
    /// descendants' parts.
    pub influences: Option<Vec<String>>,
    /// The setup transform relative to the parent (Spine's model), or `None` for a rigid
    /// bone whose transform follows from head and tail (see the module documentation).
    pub local: Option<LocalTransform>,
}

impl Bone {
    /// The bone as a segment from head to tail (for distance queries).
    pub fn segment(&self) -> crate::geometry::Segment {
        crate::geometry::Segment::new(self.head, self.tail)
    }

    /// A rigid bone with no parent, part or influences.
    pub fn new(name: impl Into<String>, head: Point2<f64>, tail: Point2<f64>) -> Self {
        Bone {
            name: name.into(),
            parent: None,
            head,
            tail,
            part: None,
            influences: None,
            local: None,
        }
    }
    /// Sets the parent index.
    pub fn with_parent(mut self, parent: usize) -> Self {
        self.parent = Some(parent);
        self
    }
    /// Sets the driven part.
    pub fn with_part(mut self, part: impl Into<String>) -> Self {
        self.part = Some(part.into());
        self
    }
    /// Bone length.
    pub fn length(&self) -> f64 {
        (self.tail - self.head).norm()
    }
    /// Rest-pose bind transform: origin at the head, x axis towards the tail (a zero-length
    /// bone keeps the world x axis).
    pub fn bind_transform(&self) -> Isometry2<f64> {
        let d = self.tail - self.head;
        let angle = if d.norm() > 0.0 { d.y.atan2(d.x) } else { 0.0 };
        Isometry2::new(self.head.coords, angle)
    }
}

/// A bone given by its transform relative to its parent, for [`Skeleton::from_local`].
#[derive(Debug, Clone, PartialEq)]
pub struct LocalBone {
    /// Unique name.
    pub name: String,
    /// Index of the parent bone in the same list, if any.
    pub parent: Option<usize>,
    /// Setup transform relative to the parent.
    pub local: LocalTransform,
    /// Length along the bone's local x axis (0 is valid: control bones, IK targets).
    pub length: f64,
}

/// A validated bone hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    bones: Vec<Bone>,
    /// Bones ordered so that every parent comes before its children.
    order: Vec<usize>,
    /// Rest world transforms `W_j(rest)` (the bind isometry for rigid bones).
    rest: Vec<Affine2>,
    /// Their inverses.
    rest_inverse: Vec<Affine2>,
    /// Bone index by name ([`Skeleton::index_of`]): poses name their bones, and resolving a
    /// pose of B bones by a linear search was O(B²) name comparisons (most of a clip
    /// frame's cost on a 245-bone rig).
    by_name: BTreeMap<String, usize>,
}

impl Skeleton {
    /// Validates names (unique), parents (in range, no cycles), coordinates (finite) and
    /// lengths: a bone whose finite head and tail are so far apart that `tail - head` or the
    /// length overflows (e.g. x from 1e308 to -1e308) is an [`SkeletonError::BoneTooLong`], since
    /// every distance to it would be infinite. Bones with a local transform must have finite
    /// fields, a rest world transform that neither overflows ([`SkeletonError::TransformOverflow`])
    /// nor is singular ([`SkeletonError::SingularTransform`]), and a head at its world origin
    /// (within [`LOCAL_HEAD_TOLERANCE`] relative, [`SkeletonError::LocalHeadMismatch`]).
    pub fn new(bones: Vec<Bone>) -> Result<Self> {
        let order = validate_and_order(&bones)?;
        for b in &bones {
            for (field, p) in [("head", b.head), ("tail", b.tail)] {
                if !p.x.is_finite() || !p.y.is_finite() {
                    return Err(SkeletonError::NonFiniteBone {
                        bone: b.name.clone(),
                        field,
                    }
                    .into());
                }
            }
            // The norm of `tail - head` overflows when the difference does or its square does.
            if !b.length().is_finite() {
                return Err(SkeletonError::BoneTooLong {
                    bone: b.name.clone(),
                    head: [b.head.x, b.head.y],
                    tail: [b.tail.x, b.tail.y],
                }
                .into());
            }
        }
        let rest = rest_affines(&bones, &order)?;
        let rest_inverse = rest_inverses(&bones, &rest)?;
        for (b, w) in bones.iter().zip(&rest) {
            if b.local.is_some() {
                let origin = Point2::new(w.tx, w.ty);
                let off = (origin - b.head).norm();
                if off > LOCAL_HEAD_TOLERANCE * (1.0 + origin.coords.norm()) {
                    return Err(SkeletonError::LocalHeadMismatch {
                        bone: b.name.clone(),
                        head: [b.head.x, b.head.y],
                        origin: [origin.x, origin.y],
                    }
                    .into());
                }
            }
        }
        let by_name = bones
            .iter()
            .enumerate()
            .map(|(j, b)| (b.name.clone(), j))
            .collect();
        Ok(Skeleton {
            bones,
            order,
            rest,
            rest_inverse,
            by_name,
        })
    }

    /// A skeleton from setup transforms relative to the parents (Spine's model): computes
    /// each bone's rest world transform, puts the head at its origin and the tail at the
    /// image of `(length, 0)`, and keeps the local transform. Parts and influences are
    /// unset. Errors name the bone: non-finite fields or length ([`SkeletonError::NonFiniteBone`]),
    /// a negative length ([`SkeletonError::NegativeBoneLength`]), a world transform that overflows
    /// (scales of 1e308, [`SkeletonError::TransformOverflow`]) or is singular (a scale of 0,
    /// [`SkeletonError::SingularTransform`]), and the checks of [`Skeleton::new`].
    pub fn from_local(bones: Vec<LocalBone>) -> Result<Skeleton> {
        for b in &bones {
            if !b.length.is_finite() {
                return Err(SkeletonError::NonFiniteBone {
                    bone: b.name.clone(),
                    field: "length",
                }
                .into());
            }
            if b.length < 0.0 {
                return Err(SkeletonError::NegativeBoneLength {
                    bone: b.name.clone(),
                    length: b.length,
                }
                .into());
            }
        }
        let mut out: Vec<Bone> = bones
            .iter()
            .map(|b| Bone {
                name: b.name.clone(),
                parent: b.parent,
                head: Point2::origin(),
                tail: Point2::origin(),
                part: None,
                influences: None,
                local: Some(b.local),
            })
            .collect();
        let order = validate_and_order(&out)?;
        let rest = rest_affines(&out, &order)?;
        for ((bone, src), w) in out.iter_mut().zip(&bones).zip(&rest) {
            bone.head = w.apply(Point2::origin());
            bone.tail = w.apply(Point2::new(src.length, 0.0));
            if !bone.tail.x.is_finite() || !bone.tail.y.is_finite() {
                return Err(SkeletonError::TransformOverflow {
                    bone: bone.name.clone(),
                }
                .into());
            }
        }
        Skeleton::new(out)
    }

    /// The bones, in file order.
    pub fn bones(&self) -> &[Bone] {
        &self.bones
    }
    /// Number of bones.
    pub fn len(&self) -> usize {
        self.bones.len()
    }
    /// Always false: a skeleton has at least one bone.
    pub fn is_empty(&self) -> bool {
        self.bones.is_empty()
    }
    /// Index of the bone called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }
    /// Bone names in order.
    pub fn names(&self) -> Vec<String> {
        self.bones.iter().map(|b| b.name.clone()).collect()
    }
    /// Bones ordered parents-first.
    pub fn topological_order(&self) -> &[usize] {
        &self.order
    }
    /// Whether any bone carries a local transform (the scene file then needs version 3).
    pub fn has_local_transforms(&self) -> bool {
        self.bones.iter().any(|b| b.local.is_some())
    }
    /// Whether `ancestor` is `bone` or one of its ancestors.
    pub fn is_ancestor_or_self(&self, ancestor: usize, bone: usize) -> bool {
        let mut b = Some(bone);
        while let Some(i) = b {
            if i == ancestor {
                return true;
            }
            b = self.bones[i].parent;
        }
        false
    }

    /// Rest-pose bind transforms `B_j`.
    pub fn bind_transforms(&self) -> Vec<Isometry2<f64>> {
        self.bones.iter().map(Bone::bind_transform).collect()
    }
    /// Inverse bind transforms `B_j^-1`.
    pub fn inverse_bind_transforms(&self) -> Vec<Isometry2<f64>> {
        self.bones
            .iter()
            .map(|b| b.bind_transform().inverse())
            .collect()
    }
    /// Rest world transforms `W_j(rest)` (for rigid bones, `B_j` as an affine transform).
    pub fn rest_affines(&self) -> &[Affine2] {
        &self.rest
    }

    /// The local transform bone `j` is posed from: its own, or for a rigid bone the one
    /// derived from its segment relative to its parent's bind frame (unit scale, no shear,
    /// `Normal`).
    pub fn setup_local(&self, j: usize) -> LocalTransform {
        let b = &self.bones[j];
        if let Some(l) = b.local {
            return l;
        }
        let rel = match b.parent {
            Some(p) => self.bones[p].bind_transform().inverse() * b.bind_transform(),
            None => b.bind_transform(),
        };
        LocalTransform::new(
            rel.translation.x,
            rel.translation.y,
            rel.rotation.angle().to_degrees(),
        )
    }

    /// Posed world transforms `M_j` as isometries (forward kinematics of rotations and
    /// translations; dual-quaternion skinning blends these).
    ///
    /// `M_j = M_parent · (B_parent^-1 B_j) · T(t_j) · R(θ_j)` for a child, and
    /// `M_j = T(t_j) · B_j · R(θ_j)` for a root, where `θ_j` is the pose's rotation of bone
    /// `j` about its own head and `t_j` its translation, given in the parent's rest frame
    /// (world axes for a root). Scale, shear and local transforms are ignored: use
    /// [`Skeleton::world_affines`] for those.
    pub fn world_transforms(&self, pose: &Pose) -> Result<Vec<Isometry2<f64>>> {
        let local = pose.resolve(self)?;
        let bind = self.bind_transforms();
        let mut world = vec![Isometry2::identity(); self.bones.len()];
        for &j in &self.order {
            let (theta, t) = (local[j].rotation, local[j].translation);
            let rot = Isometry2::rotation(theta.to_radians());
            world[j] = match self.bones[j].parent {
                Some(p) => {
                    // Translation expressed in the parent's rest frame.
                    let rel = bind[p].inverse() * bind[j];
                    let shift = Isometry2::translation(t.x, t.y);
                    world[p] * shift * rel * rot
                }
                None => Isometry2::translation(t.x, t.y) * bind[j] * rot,
            };
        }
        Ok(world)
    }

    /// Posed world transforms `W_j(pose)` (Spine's forward kinematics with every inherit
    /// mode; see the module documentation). A result that overflows is an
    /// [`SkeletonError::TransformOverflow`] naming the bone.
    pub fn world_affines(&self, pose: &Pose) -> Result<Vec<Affine2>> {
        let offsets = pose.resolve(self)?;
        self.world_affines_with(&offsets)
    }

    /// [`Skeleton::world_affines`] from already resolved per-bone offsets (in bone order).
    pub fn world_affines_with(&self, offsets: &[BoneOffset]) -> Result<Vec<Affine2>> {
        if offsets.len() != self.bones.len() {
            return Err(SkeletonError::PoseOffsets {
                given: offsets.len(),
                bones: self.bones.len(),
            }
            .into());
        }
        let world = posed_affines(&self.bones, &self.order, offsets, Some(&self.rest_inverse));
        check_finite(&self.bones, &world)?;
        Ok(world)
    }

    /// Skinning transforms `S_j = W_j(pose) W_j(rest)^-1` for a pose (affine).
    pub fn skinning_affines(&self, pose: &Pose) -> Result<Vec<Affine2>> {
        let world = self.world_affines(pose)?;
        Ok(self.skinning_from_world(&world))
    }

    /// `W_j W_j(rest)^-1` for given world transforms (e.g. after an IK step).
    pub fn skinning_from_world(&self, world: &[Affine2]) -> Vec<Affine2> {
        world
            .iter()
            .zip(&self.rest_inverse)
            .map(|(w, ri)| *w * *ri)
            .collect()
    }

    /// Posed bone segments `[head, tail]` in world coordinates (for drawing): the rest head
    /// and tail moved by each bone's skinning transform.
    pub fn posed_segments(&self, pose: &Pose) -> Result<Vec<[Point2<f64>; 2]>> {
        let s = self.skinning_affines(pose)?;
        Ok(self
            .bones
            .iter()
            .zip(&s)
            .map(|(b, m)| [m.apply(b.head), m.apply(b.tail)])
            .collect())
    }

    /// Skinning transforms `S_j = M_j B_j^-1` for a pose, as isometries (the rigid
    /// approximation of [`Skeleton::skinning_affines`]; dual-quaternion skinning uses it).
    pub fn skinning_transforms(&self, pose: &Pose) -> Result<Vec<Isometry2<f64>>> {
        let world = self.world_transforms(pose)?;
        Ok(world
            .iter()
            .zip(self.inverse_bind_transforms())
            .map(|(m, bi)| m * bi)
            .collect())
    }
}

/// Names unique, parents in range and acyclic; returns the parents-first order.
fn validate_and_order(bones: &[Bone]) -> Result<Vec<usize>> {
    if bones.is_empty() {
        return Err(SkeletonError::EmptySkeleton.into());
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, b) in bones.iter().enumerate() {
        if let Some(&first) = seen.get(b.name.as_str()) {
            return Err(SkeletonError::DuplicateBone {
                name: b.name.clone(),
                first,
                second: i,
            }
            .into());
        }
        seen.insert(&b.name, i);
        if let Some(p) = b.parent {
            if p >= bones.len() {
                return Err(SkeletonError::UnknownParent {
                    bone: b.name.clone(),
                    parent: format!("#{p}"),
                }
                .into());
            }
        }
        if let Some(field) = b.local.as_ref().and_then(LocalTransform::non_finite_field) {
            return Err(SkeletonError::NonFiniteBone {
                bone: b.name.clone(),
                field: local_field_name(field),
            }
            .into());
        }
    }
    // Depth-first ordering, detecting cycles.
    let mut state = vec![0u8; bones.len()]; // 0 new, 1 on path, 2 done
    let mut order = Vec::with_capacity(bones.len());
    for start in 0..bones.len() {
        let mut path = Vec::new();
        let mut b = start;
        loop {
            match state[b] {
                2 => break,
                1 => {
                    let names: Vec<&str> = path
                        .iter()
                        .map(|&i: &usize| bones[i].name.as_str())
                        .collect();
                    return Err(SkeletonError::ParentCycle {
                        bone: bones[b].name.clone(),
                        cycle: names.join(" -> "),
                    }
                    .into());
                }
                _ => {}
            }
            state[b] = 1;
            path.push(b);
            match bones[b].parent {
                Some(p) => b = p,
                None => break,
            }
        }
        for &i in path.iter().rev() {
            state[i] = 2;
            order.push(i);
        }
    }
    Ok(order)
}

fn local_field_name(field: &str) -> &'static str {
    match field {
        "x" => "local.x",
        "y" => "local.y",
        "rotation" => "local.rotation",
        "scale_x" => "local.scale_x",
        "scale_y" => "local.scale_y",
        "shear_x" => "local.shear_x",
        _ => "local.shear_y",
    }
}

/// The rest world transforms: the bind isometry for rigid bones, Spine's forward kinematics
/// of the setup transforms for the others; overflow and singular transforms are errors.
fn rest_affines(bones: &[Bone], order: &[usize]) -> Result<Vec<Affine2>> {
    let offsets = vec![BoneOffset::default(); bones.len()];
    // At rest a rigid child of a local parent sits at its own bind frame: no inverse needed.
    let world = posed_affines(bones, order, &offsets, None);
    check_finite(bones, &world)?;
    Ok(world)
}

fn rest_inverses(bones: &[Bone], rest: &[Affine2]) -> Result<Vec<Affine2>> {
    bones
        .iter()
        .zip(rest)
        .map(|(b, w)| {
            if b.local.is_none() {
                // Exactly the isometry inverse, so rigid skeletons skin as before.
                return Ok(Affine2::from_isometry(&b.bind_transform().inverse()));
            }
            w.inverse().map_err(|_| {
                Error::Skeleton(SkeletonError::SingularTransform {
                    context: format!("bone {:?} setup world transform", b.name),
                    determinant: w.determinant(),
                })
            })
        })
        .collect()
}

fn check_finite(bones: &[Bone], world: &[Affine2]) -> Result<()> {
    match world.iter().position(|w| !w.is_finite()) {
        Some(j) => Err(SkeletonError::TransformOverflow {
            bone: bones[j].name.clone(),
        }
        .into()),
        None => Ok(()),
    }
}

/// Forward kinematics over `order`. `rest_inverse: None` means the rest pose, where a rigid
/// child of a local parent is placed at its bind frame directly.
fn posed_affines(
    bones: &[Bone],
    order: &[usize],
    offsets: &[BoneOffset],
    rest_inverse: Option<&[Affine2]>,
) -> Vec<Affine2> {
    let mut world = vec![Affine2::IDENTITY; bones.len()];
    for &j in order {
        let b = &bones[j];
        let off = &offsets[j];
        world[j] = match (&b.local, b.parent) {
            (Some(l), parent) => {
                let posed = l.offset(off);
                match parent {
                    Some(p) => l.inherit.compose(&world[p], &posed),
                    // A root's world transform is its local one, whatever its mode.
                    None => posed.matrix(),
                }
            }
            (None, parent) => {
                // T(t) · rel · R(θ) · scale/shear, rel = B_parent^-1 B_j (B_j for a root).
                let rel = match parent {
                    Some(p) => bones[p].bind_transform().inverse() * b.bind_transform(),
                    None => b.bind_transform(),
                };
                let mut own = local::linear_part(off.rotation, off.scale, off.shear);
                own.tx = 0.0;
                own.ty = 0.0;
                let rigid = Affine2::translation(off.translation.x, off.translation.y)
                    * Affine2::from_isometry(&rel)
                    * own;
                match parent {
                    None => rigid,
                    Some(p) => {
                        let frame = match (&bones[p].local, rest_inverse) {
                            (None, _) => world[p],
                            // S_p B_p = W_p(pose) W_p(rest)^-1 B_p.
                            (Some(_), Some(ri)) => {
                                world[p]
                                    * ri[p]
                                    * Affine2::from_isometry(&bones[p].bind_transform())
                            }
                            (Some(_), None) => Affine2::from_isometry(&bones[p].bind_transform()),
                        };
                        frame * rigid
                    }
                }
            }
        };
    }
    world
}

/// Local bone motions relative to the setup pose: rotation (degrees, CCW, about the bone's
/// origin, added), translation (parent frame, added), scale (multiplied) and shear (degrees,
/// added). Bones not named stay at their setup transform.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pose {
    /// Rotation in degrees per bone name.
    pub rotations: BTreeMap<String, f64>,
    /// Translation per bone name, in the parent's rest frame (world axes for a root).
    pub translations: BTreeMap<String, Vector2<f64>>,
    /// Scale factors per bone name, multiplied with the setup scale (absent = 1).
    pub scales: BTreeMap<String, Vector2<f64>>,
    /// Shear in degrees per bone name (x axis, y axis), added to the setup shear.
    pub shears: BTreeMap<String, Vector2<f64>>,
}

impl Pose {
    /// The rest pose.
    pub fn rest() -> Self {
        Pose::default()
    }
    /// Adds a rotation (degrees) for a bone.
    pub fn rotate(mut self, bone: impl Into<String>, degrees: f64) -> Self {
        self.rotations.insert(bone.into(), degrees);
        self
    }
    /// Adds a translation for a bone.
    pub fn translate(mut self, bone: impl Into<String>, by: Vector2<f64>) -> Self {
        self.translations.insert(bone.into(), by);
        self
    }
    /// Adds a scale (multiplying the setup scale) for a bone.
    pub fn scale(mut self, bone: impl Into<String>, by: Vector2<f64>) -> Self {
        self.scales.insert(bone.into(), by);
        self
    }
    /// Adds a shear (degrees, added to the setup shear) for a bone.
    pub fn shear(mut self, bone: impl Into<String>, by: Vector2<f64>) -> Self {
        self.shears.insert(bone.into(), by);
        self
    }
    /// Names of bones that the pose moves (non-zero rotation, translation or shear, or a
    /// scale other than 1).
    pub fn moved_bones(&self) -> impl Iterator<Item = &str> {
        let r = self
            .rotations
            .iter()
            .filter(|(_, &d)| d != 0.0)
            .map(|(n, _)| n.as_str());
        let t = self
            .translations
            .iter()
            .filter(|(_, v)| v.norm() != 0.0)
            .map(|(n, _)| n.as_str());
        let s = self
            .scales
            .iter()
            .filter(|(_, v)| v.x != 1.0 || v.y != 1.0)
            .map(|(n, _)| n.as_str());
        let h = self
            .shears
            .iter()
            .filter(|(_, v)| v.norm() != 0.0)
            .map(|(n, _)| n.as_str());
        r.chain(t).chain(s).chain(h)
    }

    /// Per-bone offsets in bone order, checking that every named bone exists
    /// ([`SkeletonError::UnknownBone`]) and every value is finite ([`SkeletonError::NonFinitePose`]).
    pub fn resolve(&self, skeleton: &Skeleton) -> Result<Vec<BoneOffset>> {
        let mut out = vec![BoneOffset::default(); skeleton.len()];
        let index = |name: &String, context: &str| {
            skeleton.index_of(name).ok_or_else(|| {
                Error::Skeleton(SkeletonError::UnknownBone {
                    context: context.into(),
                    bone: name.clone(),
                })
            })
        };
        let non_finite = |name: &String, field| {
            Error::Skeleton(SkeletonError::NonFinitePose {
                bone: name.clone(),
                field,
            })
        };
        for (name, &deg) in &self.rotations {
            let j = index(name, "pose rotation")?;
            if !deg.is_finite() {
                return Err(non_finite(name, "rotation"));
            }
            out[j].rotation = deg;
        }
        for (name, t) in &self.translations {
            let j = index(name, "pose translation")?;
            if !t.x.is_finite() || !t.y.is_finite() {
                return Err(non_finite(name, "translation"));
            }
            out[j].translation = *t;
        }
        for (name, s) in &self.scales {
            let j = index(name, "pose scale")?;
            if !s.x.is_finite() || !s.y.is_finite() {
                return Err(non_finite(name, "scale"));
            }
            out[j].scale = *s;
        }
        for (name, h) in &self.shears {
            let j = index(name, "pose shear")?;
            if !h.x.is_finite() || !h.y.is_finite() {
                return Err(non_finite(name, "shear"));
            }
            out[j].shear = *h;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
