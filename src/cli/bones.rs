//! `--bones`: which bones the solving commands weight. By default the deforming bones
//! ([`Scene::deforming_bones`]), with the rig's own weights (`SCENE.artist.json`, which an
//! import writes beside the scene) as the record of which bones the source binds to a mesh;
//! a note names the bones left out. `--bones all` weights every bone, `--bones A,B` those.

use super::{load_weights_for, means_builtin};
use crate::cli::error::Result;
use clap::Args;
use skinweights::binding::{Bind, Binding};
use skinweights::pipeline;
use skinweights::scene::LeftOut;
use skinweights::scene::Scene;
use skinweights::weights::Weights;
use skinweights::SkeletonError;
use std::path::{Path, PathBuf};

/// The `--bones` option of the commands that solve.
#[derive(Args, Clone, Default)]
pub struct BonesArg {
    /// Bones the solver weights: `all`, or a comma-separated list of bone names; the others
    /// get weight 0 [default: the deforming bones: every bone but IK targets and, when
    /// SCENE.artist.json is beside the scene file, the bones it binds no vertex to; a note
    /// names the bones left out].
    #[arg(long, value_name = "all|NAME,...")]
    pub bones: Option<String>,
}

/// The rig's own weights an import writes beside a scene file: `SCENE.artist.json` for
/// `SCENE.json` (or `SCENE.swb`), when the scene argument is a file and that file exists.
pub fn binding_path(scene_arg: Option<&str>) -> Option<PathBuf> {
    let name = scene_arg?;
    if means_builtin(name) {
        return None;
    }
    let path = Path::new(name).with_extension("artist.json");
    path.is_file().then_some(path)
}

/// The rig's own weights for `scene`, or `None` (with a note) when they do not fit it.
fn binding(scene: &Scene, scene_arg: Option<&str>) -> Option<(PathBuf, Weights)> {
    let path = binding_path(scene_arg)?;
    match load_weights_for(scene, &path) {
        Ok(w) => Some((path, w)),
        Err(e) => {
            eprintln!(
                "note: {} does not fit the scene ({e}); only IK targets are left out",
                path.display()
            );
            None
        }
    }
}

/// The bones to solve with (scene indices) for `--bones` on `scene` given as `scene_arg`;
/// prints a note naming the bones the default leaves out.
///
/// Errors: [`SkeletonError::UnknownBone`] for a listed name the skeleton lacks, and those of
/// [`Scene::deforming_bones`].
pub fn chosen_bones(scene: &Scene, scene_arg: Option<&str>, arg: &BonesArg) -> Result<Vec<usize>> {
    match listed_bones(scene, arg)? {
        Some(bones) => Ok(bones),
        None => deforming_bones(scene, binding(scene, scene_arg).as_ref(), true),
    }
}

/// The bones `--bones` lists (`all`: every bone), `None` when it is not given.
fn listed_bones(scene: &Scene, arg: &BonesArg) -> Result<Option<Vec<usize>>> {
    let skeleton = scene.skeleton();
    match arg.bones.as_deref().map(str::trim) {
        Some("all") => Ok(Some((0..skeleton.len()).collect())),
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(|n| {
                skeleton.index_of(n).ok_or_else(|| {
                    SkeletonError::UnknownBone {
                        context: "--bones".into(),
                        bone: n.to_string(),
                    }
                    .into()
                })
            })
            .collect::<Result<Vec<usize>>>()
            .map(Some),
        None => Ok(None),
    }
}

/// The deforming bones ([`Scene::deforming_bones`]), with a note naming those left out.
/// `every_mesh`: the bones are every mesh's (the whole solve); otherwise only the meshes the
/// artist did not bind are solved over them, which the note says.
fn deforming_bones(
    scene: &Scene,
    binding: Option<&(PathBuf, Weights)>,
    every_mesh: bool,
) -> Result<Vec<usize>> {
    let skeleton = scene.skeleton();
    let split = scene.deforming_bones(binding.map(|b| &b.1))?;
    if !split.left_out.is_empty() {
        let names = |reason: LeftOut| {
            split
                .left_out
                .iter()
                .filter(|(_, r)| *r == reason)
                .map(|(j, _)| skeleton.bones()[*j].name.as_str())
                .collect::<Vec<_>>()
        };
        let mut groups = Vec::new();
        let targets = names(LeftOut::IkTarget);
        if !targets.is_empty() {
            groups.push(format!("IK targets: {}", targets.join(", ")));
        }
        let unbound = names(LeftOut::Unbound);
        if let (false, Some((path, _))) = (unbound.is_empty(), binding) {
            groups.push(format!(
                "bound to no mesh in {}: {}",
                path.display(),
                unbound.join(", ")
            ));
        }
        let whom = if every_mesh {
            ""
        } else {
            " on the meshes the artist did not bind (the others keep their artist's bones)"
        };
        eprintln!(
            "note: {} of {} bones get weight 0{whom} (--bones all weights them): {}",
            split.left_out.len(),
            skeleton.len(),
            groups.join("; ")
        );
    }
    Ok(split.kept)
}

/// The `--bind` option of the commands that solve.
#[derive(Args, Clone, Default)]
pub struct BindArg {
    /// How each mesh's bones are chosen. `artist`: the bones the rig's own weights
    /// (SCENE.artist.json) bind the mesh to, weights recomputed; a mesh they do not weight
    /// (every vertex on one bone) gets the binder, as with auto. `auto`: the binder for every
    /// mesh, from the whole solve, never from the artist's weights, each mesh then solved over
    /// its bones (under 150 vertices on a subdivided copy; an image quad stays rigid on its
    /// bone). `all`: the whole character at once over the --bones bones. --bones limits every choice: an artist mesh keeps only its
    /// listed bones [default: artist when SCENE.artist.json is beside the scene (an imported
    /// rig), else all].
    #[arg(long, value_name = "artist|auto|all")]
    pub bind: Option<Bind>,
}

/// The binding a solving command uses on `scene` given as `scene_arg`: `--bones` and
/// `--bind` together ([`Binding::for_scene`]); a note says how the meshes were bound.
///
/// Errors: those of [`chosen_bones`], and a rig's own weights that do not fit the scene.
pub fn chosen_binding(
    scene: &Scene,
    scene_arg: Option<&str>,
    bones: &BonesArg,
    bind: &BindArg,
) -> Result<Binding> {
    let file = binding(scene, scene_arg);
    // Only the whole solve leaves out the bones the file binds no vertex to.
    let resolved = bind.bind.unwrap_or(Bind::default_for(file.is_some()));
    let whole = resolved == Bind::All;
    let artist_meshes = file.is_some() && resolved == Bind::Artist;
    let listed = listed_bones(scene, bones)?;
    if listed.is_none() {
        // For the note; the binding picks the same bones.
        deforming_bones(scene, file.as_ref().filter(|_| whole), !artist_meshes)?;
    }
    let binding = pipeline::binding(scene, bind.bind, listed, file.as_ref().map(|f| &f.1))?;
    let (artist, binder) = binding.counts(scene);
    match (binding.bind, &file) {
        (Bind::Artist, Some((path, _))) => eprintln!(
            "note: {artist} mesh(es) solved over the bones {} binds them to, {binder} it \
             does not weight over the binder's bones (--bind all: every mesh by the whole \
             solve; --bind auto: every mesh by the binder's bones)",
            path.display()
        ),
        (Bind::Auto, _) => {
            eprintln!("note: {binder} mesh(es) solved over the binder's bones (--bind auto)")
        }
        (Bind::All, _) | (Bind::Artist, None) => {}
    }
    Ok(binding)
}

/// What a command measures over clips: which clip (`all` or a name) and against which
/// reference weights.
pub struct ClipMeasure {
    /// `all` or a clip's name.
    pub clip: String,
    /// The reference weights file for the deviation, if any.
    pub reference: Option<PathBuf>,
}

/// The clips a command measures: `--clip` when given, else every clip of a scene that has
/// clips but no probe (an imported rig; a note says so); `None`: measure a probe. The
/// reference is `--reference`, else the rig's own weights beside the scene file
/// ([`binding_path`], with a note).
pub fn clip_measure(
    scene: &Scene,
    scene_arg: Option<&str>,
    probe: Option<&str>,
    clip: Option<&str>,
    reference: Option<&Path>,
) -> Option<ClipMeasure> {
    let clip = match clip {
        Some(c) => c.to_string(),
        None if probe.is_none() && scene.probes().is_empty() && !scene.clips().is_empty() => {
            eprintln!(
                "note: scene {:?} has no probe: measuring its {} clip(s) instead (--clip all)",
                scene.name(),
                scene.clips().len()
            );
            "all".into()
        }
        None => return None,
    };
    let reference = reference.map(Path::to_path_buf).or_else(|| {
        let artist = binding_path(scene_arg)?;
        eprintln!(
            "note: deviation measured against {} (the rig's own weights; --reference to choose)",
            artist.display()
        );
        Some(artist)
    });
    Some(ClipMeasure { clip, reference })
}
