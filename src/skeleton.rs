//! Bones, skeletons, poses and forward kinematics.
//!
//! A bone's **bind transform** `B_j` maps bone-local coordinates (origin at the head, x axis
//! along head → tail) to world coordinates in the rest pose. A [`Pose`] gives each bone a local
//! rotation about its head (degrees, counter-clockwise positive) and optionally a translation;
//! children follow their parents. The skinning transform of bone `j` is `M_j B_j^-1`: it takes
//! a rest-pose world point to its posed position as if rigidly attached to bone `j`.

use crate::error::{Error, Result};
use nalgebra::{Isometry2, Point2, Vector2};
use std::collections::BTreeMap;

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
}

impl Bone {
    /// The bone as a segment from head to tail (for distance queries).
    pub fn segment(&self) -> crate::geometry::Segment {
        crate::geometry::Segment::new(self.head, self.tail)
    }

    /// A bone with no parent, part or influences.
    pub fn new(name: impl Into<String>, head: Point2<f64>, tail: Point2<f64>) -> Self {
        Bone {
            name: name.into(),
            parent: None,
            head,
            tail,
            part: None,
            influences: None,
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

/// A validated bone hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    bones: Vec<Bone>,
    /// Bones ordered so that every parent comes before its children.
    order: Vec<usize>,
}

impl Skeleton {
    /// Validates names (unique), parents (in range, no cycles), coordinates (finite) and
    /// lengths: a bone whose finite head and tail are so far apart that `tail - head` or the
    /// length overflows (e.g. x from 1e308 to -1e308) is an [`Error::BoneTooLong`], since
    /// every distance to it would be infinite.
    pub fn new(bones: Vec<Bone>) -> Result<Self> {
        if bones.is_empty() {
            return Err(Error::EmptySkeleton);
        }
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, b) in bones.iter().enumerate() {
            if let Some(&first) = seen.get(b.name.as_str()) {
                return Err(Error::DuplicateBone {
                    name: b.name.clone(),
                    first,
                    second: i,
                });
            }
            seen.insert(&b.name, i);
            for (field, p) in [("head", b.head), ("tail", b.tail)] {
                if !p.x.is_finite() || !p.y.is_finite() {
                    return Err(Error::NonFiniteBone {
                        bone: b.name.clone(),
                        field,
                    });
                }
            }
            // The norm of `tail - head` overflows when the difference does or its square does.
            if !b.length().is_finite() {
                return Err(Error::BoneTooLong {
                    bone: b.name.clone(),
                    head: [b.head.x, b.head.y],
                    tail: [b.tail.x, b.tail.y],
                });
            }
            if let Some(p) = b.parent {
                if p >= bones.len() {
                    return Err(Error::UnknownParent {
                        bone: b.name.clone(),
                        parent: format!("#{p}"),
                    });
                }
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
                        return Err(Error::ParentCycle {
                            bone: bones[b].name.clone(),
                            cycle: names.join(" -> "),
                        });
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
        Ok(Skeleton { bones, order })
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
        self.bones.iter().position(|b| b.name == name)
    }
    /// Bone names in order.
    pub fn names(&self) -> Vec<String> {
        self.bones.iter().map(|b| b.name.clone()).collect()
    }
    /// Bones ordered parents-first.
    pub fn topological_order(&self) -> &[usize] {
        &self.order
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

    /// Posed world transforms `M_j` (forward kinematics).
    ///
    /// `M_j = M_parent · (B_parent^-1 B_j) · T(t_j) · R(θ_j)` for a child, and
    /// `M_j = T(t_j) · B_j · R(θ_j)` for a root, where `θ_j` is the pose's rotation of bone
    /// `j` about its own head and `t_j` its translation, given in the parent's rest frame
    /// (world axes for a root).
    pub fn world_transforms(&self, pose: &Pose) -> Result<Vec<Isometry2<f64>>> {
        let local = pose.resolve(self)?;
        let bind = self.bind_transforms();
        let mut world = vec![Isometry2::identity(); self.bones.len()];
        for &j in &self.order {
            let (theta, t) = local[j];
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

    /// Posed bone segments `[head, tail]` in world coordinates (for drawing).
    pub fn posed_segments(&self, pose: &Pose) -> Result<Vec<[Point2<f64>; 2]>> {
        let world = self.world_transforms(pose)?;
        Ok(self
            .bones
            .iter()
            .zip(&world)
            .map(|(b, m)| [m * Point2::origin(), m * Point2::new(b.length(), 0.0)])
            .collect())
    }

    /// Skinning transforms `S_j = M_j B_j^-1` for a pose.
    pub fn skinning_transforms(&self, pose: &Pose) -> Result<Vec<Isometry2<f64>>> {
        let world = self.world_transforms(pose)?;
        Ok(world
            .iter()
            .zip(self.inverse_bind_transforms())
            .map(|(m, bi)| m * bi)
            .collect())
    }
}

/// Local bone motions: rotation (degrees, CCW, about the bone's head) and translation.
/// Bones not named stay at rest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pose {
    /// Rotation in degrees per bone name.
    pub rotations: BTreeMap<String, f64>,
    /// Translation per bone name, in the parent's rest frame (world axes for a root).
    pub translations: BTreeMap<String, Vector2<f64>>,
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
    /// Names of bones that the pose moves (non-zero rotation or translation).
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
        r.chain(t)
    }

    /// Per-bone `(degrees, translation)`, checking that every named bone exists.
    pub fn resolve(&self, skeleton: &Skeleton) -> Result<Vec<(f64, Vector2<f64>)>> {
        let mut out = vec![(0.0, Vector2::zeros()); skeleton.len()];
        for (name, &deg) in &self.rotations {
            let j = skeleton.index_of(name).ok_or_else(|| Error::UnknownBone {
                context: "pose rotation".into(),
                bone: name.clone(),
            })?;
            if !deg.is_finite() {
                return Err(Error::NonFinitePose {
                    bone: name.clone(),
                    field: "rotation",
                });
            }
            out[j].0 = deg;
        }
        for (name, t) in &self.translations {
            let j = skeleton.index_of(name).ok_or_else(|| Error::UnknownBone {
                context: "pose translation".into(),
                bone: name.clone(),
            })?;
            if !t.x.is_finite() || !t.y.is_finite() {
                return Err(Error::NonFinitePose {
                    bone: name.clone(),
                    field: "translation",
                });
            }
            out[j].1 = *t;
        }
        Ok(out)
    }
}
