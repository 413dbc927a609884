//! Scenes, the model only: a mesh, its skeleton and the probes that measure leakage; the
//! built-in scene generators; one part of a scene as a scene of its own. File formats live in
//! [`crate::io`] (feature `io`).

mod art;
mod builtin;
pub(crate) mod correctives;
mod deforming;
mod seams;
mod subscene;

pub use art::{triangle_layers, AlphaMode, Art, ArtImage, Layer, SlotAttachment, DEFAULT_SKIN};
pub use builtin::{
    arms_down_outline, builtin_scene, mirror_vertex_map, mirror_vertex_map_about, BuiltinOptions,
    MirrorAxis, BUILTIN_MIN_ANGLE_DEG, BUILTIN_SCENES, DEFAULT_GAP, ELBOW_BENDS,
};
pub use deforming::{DeformingBones, LeftOut};
pub use seams::{Seams, Weld, BARYCENTRIC_TOLERANCE, JOINT_TOLERANCE};
pub use subscene::{MeshParts, SubScene};

use correctives::{apply_correctives, check_correctives, Corrective};

use crate::animation::{Clip, IkConstraint, MAX_KEYS};
use crate::error::{ClipError, Error, Result, SceneError, SkeletonError};
use crate::mesh::Mesh;
use crate::skeleton::{Pose, Skeleton};
use nalgebra::Point2;

/// A mesh, a skeleton over it, and named probes.
///
/// The fields are private so that a scene stays valid: build one with [`Scene::new`] or
/// [`Scene::from_mesh`] (or a loader in [`crate::io`]), change it with the `with_*` and
/// `without_*` methods, which check what they are given, and read it with the accessors
/// ([`Scene::mesh`], [`Scene::skeleton`], ...). [`Scene::sanity_check`] re-checks it all.
#[derive(Debug, Clone)]
pub struct Scene {
    /// Scene name (built-in name or the file's `name`).
    pub(crate) name: String,
    /// The rest mesh.
    pub(crate) mesh: Mesh,
    /// The bones.
    pub(crate) skeleton: Skeleton,
    /// Poses with the vertices that must not move.
    pub(crate) probes: Vec<Probe>,
    /// The art it is drawn with (images, texture coordinates, layer order), if any. Set it
    /// with [`Scene::with_art`], which checks it against the mesh.
    pub(crate) art: Option<Art>,
    /// Animation clips (see [`crate::animation`]). Set them with
    /// [`Scene::with_animation`], which checks them against the skeleton.
    pub(crate) clips: Vec<Clip>,
    /// IK constraints applied after sampling a clip, in order.
    pub(crate) ik: Vec<IkConstraint>,
    /// Vertices of different layers that move together (see [`Seams`]); every registry
    /// solver joins its result at them. Set them with [`Scene::with_seams`], which checks
    /// them against the mesh.
    pub(crate) seams: Seams,
    /// Corrective shapes, at most one per joint, added after linear blend skinning
    /// wherever the character is drawn with it (see [`crate::correctives`] and
    /// [`Scene::apply_correctives`]). Set them with [`Scene::with_correctives`], which
    /// checks them against the skeleton and the mesh.
    pub(crate) correctives: Vec<Corrective>,
}

/// Which vertices a probe watches. Every given criterion must hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Watch {
    /// Only vertices of this part.
    pub part: Option<String>,
    /// Only vertices with `y < below_y`.
    pub below_y: Option<f64>,
    /// Only vertices at least this far from the rest head of the first bone the pose moves.
    pub min_distance: Option<f64>,
    /// Only these vertices.
    pub vertices: Option<Vec<usize>>,
}

/// A pose plus the vertices that must **not** move in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// Probe name, e.g. `lift_l`.
    pub name: String,
    /// The pose to skin.
    pub pose: Pose,
    /// The watched vertices.
    pub watch: Watch,
}

impl Scene {
    /// Builds a scene and checks that bones, parts and probes refer to things that exist.
    pub fn new(
        name: impl Into<String>,
        mesh: Mesh,
        skeleton: Skeleton,
        probes: Vec<Probe>,
    ) -> Result<Self> {
        let scene = Scene {
            name: name.into(),
            mesh,
            skeleton,
            probes,
            art: None,
            clips: Vec::new(),
            ik: Vec::new(),
            seams: Seams::default(),
            correctives: Vec::new(),
        };
        scene.check_references()?;
        Ok(scene)
    }

    /// A scene of just a mesh and its skeleton, named `scene`, with no probes: all a solver
    /// needs. Bones' `part` and `influences` must name parts of the mesh.
    ///
    /// ```
    /// use nalgebra::Point2;
    /// use skinweights::solvers;
    /// use skinweights::mesh::Mesh;
    /// use skinweights::scene::Scene;
    /// use skinweights::skeleton::{Bone, Skeleton};
    /// // A 2 x 1 strip of two squares (a lone quad would move rigidly: nothing to bend around).
    /// let corners = [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (0.0, 1.0)];
    /// let mesh = Mesh::new(
    ///     corners.iter().map(|&(x, y)| Point2::new(x, y)).collect(),
    ///     vec![[0, 1, 4], [0, 4, 5], [1, 2, 3], [1, 3, 4]],
    /// )?;
    /// let skeleton = Skeleton::new(vec![
    ///     Bone::new("a", Point2::new(0.0, 0.5), Point2::new(1.0, 0.5)),
    ///     Bone::new("b", Point2::new(1.0, 0.5), Point2::new(2.0, 0.5)).with_parent(0),
    /// ])?;
    /// let scene = Scene::from_mesh(mesh, skeleton)?;
    /// let weights = solvers::recommended().solve(&scene)?.weights;
    /// weights.validate()?; // finite, >= 0, rows sum to 1
    /// // The left corner follows bone a, the right corner bone b.
    /// assert!(weights.get(0, 0) > weights.get(0, 1) && weights.get(2, 1) > weights.get(2, 0));
    /// # Ok::<(), skinweights::Error>(())
    /// ```
    pub fn from_mesh(mesh: Mesh, skeleton: Skeleton) -> Result<Self> {
        Scene::new("scene", mesh, skeleton, Vec::new())
    }

    /// Scene name (built-in name or the file's `name`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The rest mesh.
    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }

    /// The bones.
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }

    /// Poses with the vertices that must not move, in order (see [`Scene::probe`] to find
    /// one by name, [`Scene::with_probes`] to replace them).
    pub fn probes(&self) -> &[Probe] {
        &self.probes
    }

    /// The art it is drawn with (images, texture coordinates, layer order), if any (set by
    /// [`Scene::with_art`]).
    pub fn art(&self) -> Option<&Art> {
        self.art.as_ref()
    }

    /// Animation clips (see [`crate::animation`] and [`Scene::clip`]; set by
    /// [`Scene::with_animation`]).
    pub fn clips(&self) -> &[Clip] {
        &self.clips
    }

    /// IK constraints applied after sampling a clip, in order (set by
    /// [`Scene::with_animation`], dropped by [`Scene::without_ik`]).
    pub fn ik(&self) -> &[IkConstraint] {
        &self.ik
    }

    /// Vertices of different layers that move together (see [`Seams`]); every registry
    /// solver joins its result at them (set by [`Scene::with_seams`]).
    pub fn seams(&self) -> &Seams {
        &self.seams
    }

    /// Corrective shapes, at most one per joint, added after linear blend skinning
    /// wherever the character is drawn with it (see [`crate::correctives`] and
    /// [`Scene::apply_correctives`]; set by [`Scene::with_correctives`], dropped by
    /// [`Scene::without_correctives`]).
    pub fn correctives(&self) -> &[Corrective] {
        &self.correctives
    }

    /// The scene renamed `name` (nothing else changes).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The scene with these probes instead of its own, after checking them as
    /// [`Scene::new`] does: unique names, poses that name bones of the skeleton, watched
    /// parts of the mesh and vertices in range.
    pub fn with_probes(mut self, probes: Vec<Probe>) -> Result<Self> {
        self.probes = probes;
        self.check_references()?;
        Ok(self)
    }

    /// The scene drawn with `art`, after checking it against the mesh (one texture
    /// coordinate per vertex, every part drawn once).
    pub fn with_art(mut self, art: Art) -> Result<Self> {
        art.check(self.mesh.vertex_count(), self.mesh.parts())?;
        self.art = Some(art);
        Ok(self)
    }

    /// The scene with clips and IK constraints, after checking them against the skeleton:
    /// unique clip names ([`ClipError::InvalidClip`]) and constraint names
    /// ([`SkeletonError::InvalidIk`]), every clip ([`Clip::check`]), at most [`MAX_KEYS`] keys over
    /// all clips ([`ClipError::TooManyKeys`]), every constraint ([`IkConstraint::check`]).
    pub fn with_animation(mut self, clips: Vec<Clip>, ik: Vec<IkConstraint>) -> Result<Self> {
        check_animation(&self.skeleton, &clips, &ik)?;
        self.clips = clips;
        self.ik = ik;
        Ok(self)
    }

    /// The scene without IK constraints: its constraints and every clip's IK tracks are
    /// dropped (the clips keep their bone tracks), so [`Scene::clip_pose`] gives the
    /// sampled poses as they are.
    pub fn without_ik(mut self) -> Self {
        self.ik.clear();
        for c in &mut self.clips {
            c.ik.clear();
        }
        self
    }

    /// The clip called `name`.
    pub fn clip(&self, name: &str) -> Result<&Clip> {
        self.clips.iter().find(|c| c.name == name).ok_or_else(|| {
            Error::Scene(SceneError::UnknownClip {
                scene: self.name.clone(),
                clip: name.to_string(),
                known: self.clips.iter().map(|c| c.name.clone()).collect(),
            })
        })
    }

    /// The pose of `clip` at `time` seconds: sampled ([`Clip::sample`]), then the scene's
    /// IK constraints applied ([`crate::animation::apply_ik`]) with the mix and bend the
    /// clip keys for them at that time ([`Clip::ik_at`]).
    pub fn clip_pose(&self, clip: &Clip, time: f64) -> Result<Pose> {
        let pose = clip.sample_checked(time)?;
        if self.ik.is_empty() {
            return Ok(pose);
        }
        crate::animation::apply_ik(&self.skeleton, &pose, &clip.ik_at(&self.ik, time))
    }

    fn check_references(&self) -> Result<()> {
        let known = self.mesh.parts().to_vec();
        let check_part = |context: String, part: &str| -> Result<()> {
            if self.mesh.part_index(part).is_none() {
                return Err(SkeletonError::UnknownPart {
                    context,
                    part: part.to_string(),
                    known: known.clone(),
                }
                .into());
            }
            Ok(())
        };
        for b in self.skeleton.bones() {
            if let Some(p) = &b.part {
                check_part(format!("bone {:?} part", b.name), p)?;
            }
            for p in b.influences.iter().flatten() {
                check_part(format!("bone {:?} influences", b.name), p)?;
            }
        }
        for (i, probe) in self.probes.iter().enumerate() {
            if let Some(first) = self.probes[..i].iter().position(|p| p.name == probe.name) {
                return Err(SceneError::DuplicateProbe {
                    name: probe.name.clone(),
                    first,
                    second: i,
                }
                .into());
            }
            probe.pose.resolve(&self.skeleton).map_err(|e| match e {
                Error::Skeleton(SkeletonError::UnknownBone { bone, .. }) => {
                    Error::Skeleton(SkeletonError::UnknownBone {
                        context: format!("probe {:?} pose", probe.name),
                        bone,
                    })
                }
                e => e,
            })?;
            if let Some(p) = &probe.watch.part {
                check_part(format!("probe {:?} watch", probe.name), p)?;
            }
            for &v in probe.watch.vertices.iter().flatten() {
                if v >= self.mesh.vertex_count() {
                    return Err(SceneError::ProbeVertex {
                        probe: probe.name.clone(),
                        vertex: v,
                        vertex_count: self.mesh.vertex_count(),
                    }
                    .into());
                }
            }
        }
        Ok(())
    }

    /// The probe called `name`, or the first probe when `name` is `None`.
    pub fn probe(&self, name: Option<&str>) -> Result<&Probe> {
        match name {
            Some(n) => self.probes.iter().find(|p| p.name == n).ok_or_else(|| {
                Error::Scene(SceneError::UnknownProbe {
                    scene: self.name.clone(),
                    probe: n.to_string(),
                    known: self.probes.iter().map(|p| p.name.clone()).collect(),
                })
            }),
            None => self.probes.first().ok_or_else(|| {
                Error::Scene(SceneError::NoProbes {
                    scene: self.name.clone(),
                })
            }),
        }
    }

    /// Part index each bone drives (`None` when the bone names no part).
    pub fn bone_parts(&self) -> Vec<Option<usize>> {
        self.skeleton
            .bones()
            .iter()
            .map(|b| b.part.as_deref().and_then(|p| self.mesh.part_index(p)))
            .collect()
    }

    /// The part every triangle is drawn with: the part of its corner drawn first (art layer
    /// order; without art, the lowest part index). The layer rule of
    /// [`triangle_layers`], giving the part rather than its layer.
    pub fn triangle_parts(&self) -> Vec<usize> {
        let mesh = &self.mesh;
        let layer_of_part: Vec<usize> = match &self.art {
            Some(art) => art.layer_of_part(mesh.parts()),
            None => (0..mesh.parts().len()).collect(),
        };
        let vertex_parts = mesh.vertex_parts();
        art::first_drawn_corners(mesh, &layer_of_part)
            .map(|v| vertex_parts[v])
            .collect()
    }

    /// Re-checks mesh invariants and references (used by tests).
    pub fn sanity_check(&self) -> Result<()> {
        self.mesh.sanity_check()?;
        if let Some(art) = &self.art {
            art.check(self.mesh.vertex_count(), self.mesh.parts())?;
        }
        self.check_references()?;
        self.seams.check(self.mesh.vertices())?;
        check_correctives(&self.correctives, &self.skeleton, self.mesh.vertex_count())?;
        check_animation(&self.skeleton, &self.clips, &self.ik)
    }

    /// The scene with these seams, after checking them against the mesh ([`Seams::check`]).
    pub fn with_seams(mut self, seams: Seams) -> Result<Self> {
        seams.check(self.mesh.vertices())?;
        self.seams = seams;
        Ok(self)
    }

    /// The scene with these correctives, after checking them against the skeleton and the
    /// mesh ([`check_correctives`]: known joints with a parent, vertices in range, finite
    /// offsets, one per vertex, angles strictly increasing, one corrective per joint).
    pub fn with_correctives(mut self, correctives: Vec<Corrective>) -> Result<Self> {
        check_correctives(&correctives, &self.skeleton, self.mesh.vertex_count())?;
        self.correctives = correctives;
        Ok(self)
    }

    /// The scene without correctives (drawn with linear blend skinning alone).
    pub fn without_correctives(mut self) -> Self {
        self.correctives.clear();
        self
    }

    /// Per vertex, whether a corrective of the scene moves it (what the exports bake).
    pub fn corrected_vertices(&self) -> Vec<bool> {
        let mut corrected = vec![false; self.mesh.vertex_count()];
        for c in &self.correctives {
            for &v in &c.vertices {
                corrected[v] = true;
            }
        }
        corrected
    }

    /// Adds the scene's correctives for `pose` to skinned positions `posed` (one per
    /// vertex; [`apply_correctives`]). Leaves `posed` untouched when the scene has none.
    pub fn apply_correctives(&self, pose: &Pose, posed: &mut [Point2<f64>]) -> Result<()> {
        if self.correctives.is_empty() {
            return Ok(());
        }
        apply_correctives(&self.correctives, &self.skeleton, pose, posed)
    }
}

fn check_animation(skeleton: &Skeleton, clips: &[Clip], ik: &[IkConstraint]) -> Result<()> {
    let mut total = 0usize;
    for (i, c) in clips.iter().enumerate() {
        if clips[..i].iter().any(|o| o.name == c.name) {
            return Err(ClipError::InvalidClip {
                clip: c.name.clone(),
                message: "two clips have this name".into(),
            }
            .into());
        }
        total = total.saturating_add(c.key_count() + c.ik_key_count());
        if total > MAX_KEYS {
            return Err(ClipError::TooManyKeys {
                clip: c.name.clone(),
                count: total,
                max: MAX_KEYS,
            }
            .into());
        }
        c.check(skeleton)?;
        c.check_ik_names(ik)?;
    }
    for (i, k) in ik.iter().enumerate() {
        if ik[..i].iter().any(|o| o.name == k.name) {
            return Err(SkeletonError::InvalidIk {
                constraint: k.name.clone(),
                message: "two IK constraints have this name".into(),
            }
            .into());
        }
        k.check(skeleton)?;
    }
    Ok(())
}

impl Probe {
    /// Indices of the vertices this probe watches in `scene`.
    pub fn watched_vertices(&self, scene: &Scene) -> Result<Vec<usize>> {
        let mesh = &scene.mesh;
        let part = match &self.watch.part {
            Some(p) => Some(mesh.part_index(p).ok_or_else(|| {
                Error::Skeleton(SkeletonError::UnknownPart {
                    context: format!("probe {:?} watch", self.name),
                    part: p.clone(),
                    known: mesh.parts().to_vec(),
                })
            })?),
            None => None,
        };
        let anchor = match self.watch.min_distance {
            Some(_) => {
                let first = self.pose.moved_bones().next().ok_or_else(|| {
                    Error::Scene(SceneError::ProbeMovesNoBone {
                        probe: self.name.clone(),
                    })
                })?;
                let j = scene.skeleton.index_of(first).ok_or_else(|| {
                    Error::Skeleton(SkeletonError::UnknownBone {
                        context: format!("probe {:?} pose", self.name),
                        bone: first.to_string(),
                    })
                })?;
                Some(scene.skeleton.bones()[j].head)
            }
            None => None,
        };
        let candidates: Box<dyn Iterator<Item = usize>> = match &self.watch.vertices {
            Some(list) => Box::new(list.iter().copied()),
            None => Box::new(0..mesh.vertex_count()),
        };
        Ok(candidates
            .filter(|&v| {
                let p = mesh.vertices()[v];
                part.is_none_or(|pi| mesh.vertex_parts()[v] == pi)
                    && self.watch.below_y.is_none_or(|y| p.y < y)
                    && match (anchor, self.watch.min_distance) {
                        (Some(a), Some(d)) => (p - a).norm() >= d,
                        _ => true,
                    }
            })
            .collect())
    }
}
