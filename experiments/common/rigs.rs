//! The artist-weighted rigs the benchmark and the artist study score solvers on: loading,
//! the fixed split into folds, and the per-mesh solve of protocol (a).

use super::Res;
use skinweights::binding::MeshBones;
use skinweights::io::spine::SkinSelection;
use skinweights::metrics::weight_style::WeightStyle;
use skinweights::pipeline::Item;
use skinweights::scene::{MeshParts, SubScene};
use skinweights::RigFormat;
use skinweights::{scene::Scene, weights::Weights};
use std::path::{Path, PathBuf};

/// The manifest of every rig scored by default (crate-relative): name, format, file,
/// author and licence, and whether it ships.
pub const MANIFEST: &str = "data/rigs.json";

/// Environment variable naming the artist-rig corpus folder (rigs that may not ship); default
/// `../shared/data/artist-rigs` beside the crate.
pub const CORPUS_ENV: &str = "SKINWEIGHTS_ARTIST_RIGS";

/// Environment variable naming the second corpus folder; default
/// `../shared/data/artist-rigs-2` beside the crate.
pub const CORPUS_2_ENV: &str = "SKINWEIGHTS_ARTIST_RIGS_2";

/// A character with painted weights, and per mesh the bones the artist bound it to.
pub struct Rig {
    /// Its name (the manifest's, or the file stem for a given file).
    pub name: String,
    /// `painted`, or `computed?` when its weights look made by a tool
    /// ([`WeightStyle::looks_computed`]): reported apart.
    pub fold: String,
    /// The whole character.
    pub scene: Scene,
    /// The artist's weights on the whole character.
    pub artist: Weights,
    /// Per mesh: its part name and the artist's bone names.
    pub meshes: Vec<(String, Vec<String>)>,
    /// How the scored meshes' weights are spread over bones.
    pub style: WeightStyle,
    /// Per attachment of a format with slots: its part, slot and whether it is weighted.
    pub slots: Vec<skinweights::transfer::SlotPart>,
}

impl Rig {
    /// Each part's home: its slot's bone (Spine: the slot's bone; DragonBones: the slot's
    /// parent), what an unweighted mesh of the format carries; every part with a slot. Nothing
    /// from the artist's weights: protocol (c)'s only per-mesh input.
    pub fn homes(&self) -> Vec<MeshBones> {
        self.slots
            .iter()
            .filter_map(|s| {
                let j = self.scene.skeleton().index_of(s.bone.as_deref()?)?;
                Some(MeshBones {
                    part: s.part.clone(),
                    bones: vec![j],
                })
            })
            .collect()
    }

    /// Scene indices of the bones some mesh of the rig is bound to, in scene order: protocol
    /// (b)'s deforming bones.
    pub fn artist_bones(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .meshes
            .iter()
            .flat_map(|(_, bones)| bones.iter())
            .filter_map(|b| self.scene.skeleton().index_of(b))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A rig that did not load: its name, file and the error.
pub struct FailedRig {
    pub name: String,
    pub file: PathBuf,
    pub error: String,
}

/// One rig to load: a name, a file and the repository it came from (the group left out
/// together when something is chosen on the rigs).
pub struct RigSource {
    pub name: String,
    pub file: PathBuf,
    pub source: String,
}

/// Reads a Spine JSON, Creature JSON, DragonBones `_ske.json` or Godot `.tscn` rig with its
/// artist's weights, by its extension and content ([`RigFormat::of_file`]; any other JSON is
/// read as DragonBones), Spine with every attachment of every skin; the scored meshes are
/// [`skinweights::io::rig::load_rig`]'s.
pub fn load_rig(path: &Path, name: &str) -> Res<Rig> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let format = RigFormat::of_file(path, &bytes)?.unwrap_or(RigFormat::DRAGONBONES);
    let item = Item::rig(path, format, SkinSelection::All)?;
    let artist = item
        .artist
        .ok_or_else(|| format!("{}: the file has no weights", path.display()))?;
    let (meshes, slots) = (item.scored_meshes, item.slots);
    let scene = item.scene;
    let scored_parts: Vec<usize> = meshes
        .iter()
        .filter_map(|(part, _)| scene.mesh().part_index(part))
        .collect();
    let scored = (0..scene.mesh().vertex_count())
        .filter(|&v| scored_parts.contains(&scene.mesh().vertex_parts()[v]));
    let style = WeightStyle::of(&artist, scored);
    let fold = if style.looks_computed() {
        "computed?"
    } else {
        "painted"
    };
    Ok(Rig {
        name: name.to_string(),
        fold: fold.to_string(),
        scene,
        artist,
        meshes,
        style,
        slots,
    })
}

/// The corpus folder `corpus` of the manifest (`artist-rigs` or `artist-rigs-2`): its
/// environment variable ([`CORPUS_ENV`], [`CORPUS_2_ENV`]), else `../shared/data/CORPUS`
/// beside the crate; `None` when it does not exist.
pub fn corpus_dir(corpus: &str) -> Option<PathBuf> {
    let env = match corpus {
        "artist-rigs" => Some(CORPUS_ENV),
        "artist-rigs-2" => Some(CORPUS_2_ENV),
        _ => None,
    };
    let dir = match env.and_then(std::env::var_os) {
        Some(d) => PathBuf::from(d),
        None => super::repo_root().join("../shared/data").join(corpus),
    };
    dir.is_dir().then_some(dir)
}

/// The rigs of the manifest ([`MANIFEST`]): the shipped ones, and the corpus ones whose
/// corpus folder is present (a note on standard error for those that are not).
pub fn default_sources() -> Res<Vec<RigSource>> {
    let root = super::repo_root();
    let text = std::fs::read_to_string(root.join(MANIFEST))
        .map_err(|e| format!("cannot read {MANIFEST}: {e}"))?;
    let manifest: serde_json::Value = serde_json::from_str(&text)?;
    let mut out = Vec::new();
    let mut skipped: Vec<(String, String)> = Vec::new();
    for r in manifest["rigs"]
        .as_array()
        .ok_or("rigs.json: no rigs array")?
    {
        let name = r["name"]
            .as_str()
            .ok_or("rigs.json: a rig without a name")?;
        let corpus = r["corpus"].as_str().unwrap_or("artist-rigs");
        let file = match (r["file"].as_str(), r["corpus_file"].as_str()) {
            (Some(f), _) => root.join(f),
            (None, Some(f)) => match corpus_dir(corpus) {
                Some(dir) => dir.join(f),
                None => {
                    skipped.push((name.to_string(), corpus.to_string()));
                    continue;
                }
            },
            (None, None) => return Err(format!("rigs.json: rig {name} has no file").into()),
        };
        out.push(RigSource {
            name: name.to_string(),
            file,
            source: r["source"].as_str().unwrap_or(name).to_string(),
        });
    }
    if !skipped.is_empty() {
        let mut folders: Vec<&str> = skipped.iter().map(|(_, c)| c.as_str()).collect();
        folders.dedup();
        eprintln!(
            "note: corpus folder(s) {} absent (set {CORPUS_ENV} / {CORPUS_2_ENV}): {} rigs not scored ({})",
            folders.join(", "),
            skipped.len(),
            skipped.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")
        );
    }
    Ok(out)
}

/// The given files (named by their stem), else the manifest's rigs.
pub fn sources(given: &[PathBuf]) -> Res<Vec<RigSource>> {
    if given.is_empty() {
        return default_sources();
    }
    Ok(given
        .iter()
        .map(|path| RigSource {
            name: path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string()),
            file: path.clone(),
            source: path.display().to_string(),
        })
        .collect())
}

/// Every source loaded: the rigs, and the ones that failed with their errors (a failed rig
/// never stops a run).
pub fn load_sources(sources: &[RigSource]) -> (Vec<Rig>, Vec<FailedRig>) {
    let mut rigs = Vec::new();
    let mut failed = Vec::new();
    for s in sources {
        match load_rig(&s.file, &s.name) {
            Ok(r) => rigs.push(r),
            Err(e) => failed.push(FailedRig {
                name: s.name.clone(),
                file: s.file.clone(),
                error: e.to_string(),
            }),
        }
    }
    (rigs, failed)
}

/// Equal weights on every bone: what a failed mesh is scored with.
pub fn uniform(vertices: usize, bones: usize) -> Weights {
    let mut w = Weights::zeros_unchecked(vertices, bones);
    for v in 0..vertices {
        w.row_mut_unchecked(v)
            .iter_mut()
            .for_each(|x| *x = 1.0 / bones as f64);
    }
    w
}

/// The given files, else the manifest's rigs, loaded; a rig that fails is named on standard
/// error and left out.
pub fn load_rigs(given: &[PathBuf]) -> Res<Vec<Rig>> {
    let (rigs, failed) = load_sources(&sources(given)?);
    for f in &failed {
        eprintln!(
            "warning: rig {} ({}) not loaded: {}",
            f.name,
            f.file.display(),
            f.error
        );
    }
    Ok(rigs)
}

/// Precision and recall (%) of the `chosen` bone sets against the artist's (each cut's
/// bones), pooled over the cut meshes; a cut without a chosen set is left out.
pub fn precision_recall(cuts: &[(String, SubScene)], chosen: &[MeshBones]) -> (f64, f64) {
    let (mut hit, mut picked, mut truth) = (0usize, 0usize, 0usize);
    for (part, cut) in cuts {
        let Some(mb) = chosen.iter().find(|mb| &mb.part == part) else {
            continue;
        };
        hit += mb.bones.iter().filter(|j| cut.bones.contains(j)).count();
        picked += mb.bones.len();
        truth += cut.bones.len();
    }
    (
        100.0 * hit as f64 / picked.max(1) as f64,
        100.0 * hit as f64 / truth.max(1) as f64,
    )
}

/// Each artist mesh of the rig cut out with the bones its artist bound it to.
pub fn cut_meshes(rig: &Rig) -> Res<Vec<(String, SubScene)>> {
    let parts = MeshParts::new(&rig.scene);
    rig.meshes
        .iter()
        .map(|(part, bones)| {
            let cut = parts.cut(part, bones)?;
            Ok((part.clone(), cut))
        })
        .collect()
}

/// Protocol (a): every cut solved alone with `solver`, assembled into whole-character
/// weights. A failed solve is scored with equal weights on the mesh's bones; its error is
/// returned per mesh. `each` is called after every mesh (progress).
pub fn solve_per_mesh(
    rig: &Rig,
    cuts: &[(String, SubScene)],
    solver: &str,
    mut each: impl FnMut(&str),
) -> Res<(Weights, Vec<Option<String>>)> {
    let mut full =
        Weights::zeros_unchecked(rig.scene.mesh().vertex_count(), rig.scene.skeleton().len());
    let mut failed = vec![None; cuts.len()];
    for (k, (part, cut)) in cuts.iter().enumerate() {
        let sub = match solve_spec(&cut.scene, solver) {
            Ok(w) => w,
            Err(e) => {
                failed[k] = Some(e.to_string());
                uniform(cut.vertices.len(), cut.bones.len())
            }
        };
        cut.scatter(&sub, &mut full)?;
        each(part);
    }
    Ok((full, failed))
}

/// The rigs to score (`given`, else the shipped ones), the solver specs (`given`, else
/// `default`; checked) and a progress bar over one job per mesh and solver.
pub fn rigs_and_solvers(
    given_rigs: &[PathBuf],
    given_solvers: &Option<Vec<String>>,
    default: &[&str],
) -> Res<(Vec<Rig>, Vec<String>, indicatif::ProgressBar)> {
    let rigs = load_rigs(given_rigs)?;
    let solvers = solver_specs(given_solvers, default)?;
    let jobs: usize = rigs.iter().map(|r| r.meshes.len()).sum::<usize>() * solvers.len();
    let bar = super::progress(jobs as u64, "solving");
    Ok((rigs, solvers, bar))
}

/// Protocol (a) with every solver of `solvers` in turn ([`solve_per_mesh`]; failed meshes
/// scored with equal weights), advancing `bar` by one per mesh and solver.
pub fn solve_per_mesh_each(
    rig: &Rig,
    cuts: &[(String, SubScene)],
    solvers: &[String],
    bar: &indicatif::ProgressBar,
) -> Res<Vec<Weights>> {
    solvers
        .iter()
        .map(|solver| {
            let (w, _) = solve_per_mesh(rig, cuts, solver, |part| {
                bar.set_message(format!("{} {solver} on {part}", rig.name));
                bar.inc(1);
            })?;
            Ok(w)
        })
        .collect()
}

/// Solves with a registry name, a registry name with options (`NAME:KEY=VALUE;KEY=VALUE`), or (built with the feature `internals`) with `best` at a
/// recipe variant, `best@KEY=VALUE;KEY=VALUE` (the keys of
/// `common::recipe::KEYS`): the cross-validation of `best`'s
/// recipe runs the benchmark on such variants.
pub fn solve_spec(scene: &skinweights::scene::Scene, spec: &str) -> skinweights::Result<Weights> {
    Ok(solver_of_spec(spec)?.solve(scene)?.weights)
}

/// The solver `spec` names (see [`solve_spec`]): an error for an unknown name or recipe key,
/// so drivers check their specs before solving.
pub fn solver_of_spec(spec: &str) -> skinweights::Result<Box<dyn skinweights::solvers::Solver>> {
    match spec.split_once('@') {
        #[cfg(feature = "internals")]
        Some((_, recipe)) => {
            let pairs: Vec<(&str, &str)> = recipe
                .split(';')
                .filter(|p| !p.is_empty())
                .map(|p| p.split_once('=').unwrap_or((p, "")))
                .collect();
            Ok(Box::new(super::recipe::best_with_recipe(&pairs)?))
        }
        _ => match spec.split_once(':') {
            // `NAME:KEY=VALUE;KEY=VALUE`: a registered solver with options.
            Some((name, options)) => skinweights::solvers::solver_by_name(
                name,
                options
                    .split(';')
                    .map(|p| p.split_once('=').unwrap_or((p, "")))
                    .collect::<Vec<_>>(),
            ),
            None => skinweights::solvers::solver_by_name(spec, skinweights::solvers::NO_OPTIONS),
        },
    }
}

/// The solver specs to run: the given ones, else `default`; each checked with
/// [`solver_of_spec`] before any solve.
pub fn solver_specs(given: &Option<Vec<String>>, default: &[&str]) -> Res<Vec<String>> {
    let specs: Vec<String> = given
        .clone()
        .unwrap_or_else(|| default.iter().map(|s| s.to_string()).collect());
    for s in &specs {
        solver_of_spec(s)?;
    }
    Ok(specs)
}
