//! `skinweights transfer`: an artist's weights carried to the costumes of a rig.

use super::check_outputs;
use crate::cli::error::{CliError, Result};
use clap::Args;
use skinweights::io::spine::SkinSelection;
use skinweights::io::ExportOptions;
use skinweights::io::WeightsFile;
use skinweights::pipeline::{self, Item};
use skinweights::plot::{save_figure, Grid, Panel, WeightMap};
use skinweights::scene::{Scene, SubScene};
use skinweights::solvers::{solver_by_name, Solver};
use skinweights::transfer::{
    default_targets, skin_parts, transfer, transfer_parts, SourceSet, TransferMethod,
    TransferOptions, TransferSource, TransferTarget,
};
use skinweights::transfer::{SlotPart, Transferred};
use skinweights::weights::Weights;
use skinweights::ArgumentError;
use skinweights::RigFormat;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `transfer`.
#[derive(Args)]
pub struct TransferArgs {
    /// The rig: Spine JSON, DragonBones `_ske.json`, Creature JSON, Godot `.tscn` or glTF
    /// (every skin is read; parts are named as `skinweights import spine --skin all` names
    /// them).
    file: PathBuf,
    /// A part to weight (repeatable). Default: every attachment the file does not weight
    /// whose slot holds a weighted one.
    #[arg(long = "to", value_name = "PART")]
    to: Vec<String>,
    /// Weight every part of this skin (Spine, DragonBones).
    #[arg(long, value_name = "SKIN", conflicts_with = "to")]
    to_skin: Option<String>,
    /// Where each target takes its weights from: `slot` (the weighted attachments of its
    /// own slot), `all` (every other part), or `skin:NAME` (the parts of a skin).
    #[arg(long, default_value = "slot", value_name = "SOURCES")]
    from: String,
    /// Take the weights from every part of another scene instead (a scene file, e.g. the
    /// character an artist weighted, imported with `skinweights import`); its bones are
    /// mapped onto the rig's by name, hierarchy and rest transform. Needs `--to` or
    /// `--to-skin`.
    #[arg(long, value_name = "SCENE.json", conflicts_with = "from")]
    from_scene: Option<PathBuf>,
    /// The weights of `--from-scene` (skinweights.weights/1). Default: the SCENE.artist.json
    /// an import wrote beside it.
    #[arg(long, value_name = "WEIGHTS.json", requires = "from_scene")]
    from_weights: Option<PathBuf>,
    /// `nearest` (the closest source point, interpolated) or `robust` (copy where the
    /// target matches a source, Laplacian fill elsewhere); see docs/transfer.md.
    #[arg(long, default_value = "nearest")]
    method: String,
    /// `robust`'s match radius as a fraction of the target's diagonal.
    #[arg(long, default_value_t = TransferOptions::default().max_distance)]
    max_distance: f64,
    /// A target with no vertex within this fraction of its diagonal of a source is weighted
    /// from scratch, with a note.
    #[arg(long, default_value_t = TransferOptions::default().far_distance)]
    far_distance: f64,
    /// The solver for what the sources do not cover.
    #[arg(long, default_value = skinweights::solvers::RECOMMENDED_SOLVER)]
    solver: String,
    /// The rig with the transferred weights written into the target attachments, in the
    /// input's format (Spine, DragonBones).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Also (or instead) write the weights of the whole character (skinweights.weights/1).
    #[arg(long, value_name = "WEIGHTS")]
    weights: Option<PathBuf>,
    /// Also draw each target beside a source (one of its slot when there is one), as weight
    /// maps (bone colours shared; one row per target, the first 8): `.png` or `.svg`.
    #[arg(long, value_name = "FILE")]
    figure: Option<PathBuf>,
    /// Overwrite output files that exist.
    #[arg(long)]
    force: bool,
}

/// Rows of the `--figure`: targets drawn beside a source.
const FIGURE_ROWS: usize = 8;

/// The `--figure`: per target (the first [`FIGURE_ROWS`]), the first of `sources` with the
/// artist's weights and the target with the transferred ones, side by side.
fn write_figure(
    scene: &Scene,
    artist: &Weights,
    weights: &Weights,
    sources: impl Fn(&str) -> Vec<String>,
    done: &[Transferred],
    path: &Path,
) -> Result<()> {
    let names = scene.skeleton().names();
    let map = |part: &str, w: &Weights, label: &str| -> Result<Panel> {
        let cut = SubScene::new(scene, part, &names)?;
        Ok(Panel::Weights(WeightMap::new(
            &cut.scene,
            &cut.restrict(w)?,
            format!("{label} {part}"),
        )))
    };
    let mut panels = Vec::new();
    for t in done.iter().take(FIGURE_ROWS) {
        match sources(&t.part).first() {
            Some(source) => panels.push(map(source, artist, "source")?),
            None => panels.push(map(&t.part, artist, "before:")?),
        }
        panels.push(map(&t.part, weights, "target")?);
    }
    let rows = panels.len().div_ceil(2) as u32;
    let grid = Grid {
        panels: &panels,
        columns: 2,
    };
    save_figure(&grid, path, (1000, 420 * rows.max(1)))?;
    Ok(())
}

/// Runs `transfer`.
pub fn run(a: TransferArgs) -> Result<ExitCode> {
    check_outputs_asked(&a)?;
    let method: TransferMethod = a.method.parse()?;
    let from: SourceSet = a.from.parse()?;
    let solver = solver_by_name(&a.solver, std::iter::empty::<(String, String)>())?;
    let format = written_format(&a)?;
    let rig = Item::rig(&a.file, format, SkinSelection::All)?;
    let (slots, meshes) = (rig.slots, rig.scored_meshes);
    let artist = source_weights(&a, rig.artist, &rig.scene, solver.as_ref())?;
    let targets = targets_of(&a, &rig.scene, &slots, &meshes)?;
    let options = TransferOptions {
        method,
        max_distance: a.max_distance,
        far_distance: a.far_distance,
        ..TransferOptions::default()
    };
    let (weights, done) = match &a.from_scene {
        Some(path) => from_scene(
            &rig.scene,
            &artist,
            &targets,
            path,
            a.from_weights.as_deref(),
            &options,
            solver.as_ref(),
        )?,
        None => transfer_parts(
            &rig.scene,
            &artist,
            &slots,
            &targets,
            &from,
            &options,
            solver.as_ref(),
        )?,
    };
    print_done(&done);
    if let Some(path) = &a.weights {
        WeightsFile::save_weights(
            path,
            rig.scene.name(),
            &format!("transfer-{}", method.name()),
            &rig.scene.skeleton().names(),
            &weights,
        )?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &a.figure {
        // The source drawn beside a target: one of its own slot when there is one.
        let slot_of = |part: &str| {
            slots
                .iter()
                .find(|s| s.part == part)
                .map(|s| s.slot.clone())
        };
        let sources = |part: &str| {
            if a.from_scene.is_some() {
                // The sources are another scene's: the target is drawn before and after.
                return Vec::new();
            }
            let mut all = from.parts(&rig.scene, &slots, part);
            let slot = slot_of(part);
            all.sort_by_key(|p| slot.is_none() || slot_of(p) != slot);
            all
        };
        write_figure(&rig.scene, &artist, &weights, sources, &done, path)?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &a.output {
        write_rig(format, &a.file, &rig.scene, &weights, path)?;
        println!(
            "wrote {} ({} parts transferred)",
            path.display(),
            done.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Some output asked for, and none overwritten without `--force`.
fn check_outputs_asked(a: &TransferArgs) -> Result<()> {
    if a.output.is_none() && a.weights.is_none() && a.figure.is_none() {
        return Err(ArgumentError::InvalidArgument {
            argument: "--output",
            value: String::new(),
            reason:
                "give -o RIG (the rig with the new weights), --weights FILE and/or --figure FILE"
                    .into(),
        }
        .into());
    }
    let outputs: Vec<&Path> = a
        .output
        .iter()
        .chain(&a.weights)
        .chain(&a.figure)
        .map(|p| p.as_path())
        .collect();
    check_outputs(&[a.file.as_path()], &outputs, a.force)
}

/// The rig's format, read from its name and content; `-o` only for the formats transfer
/// writes.
fn written_format(a: &TransferArgs) -> Result<RigFormat> {
    let bytes = std::fs::read(&a.file).map_err(|e| skinweights::Error::io(&a.file, e))?;
    let format = RigFormat::of_file(&a.file, &bytes)?.unwrap_or(RigFormat::DRAGONBONES);
    if a.output.is_some() && !format.format().transfer_writes {
        let written: Vec<String> = skinweights::io::FORMATS
            .iter()
            .filter(|f| f.transfer_writes)
            .map(|f| f.kind.to_string())
            .collect();
        return Err(ArgumentError::InvalidArgument {
            argument: "--output",
            value: a.file.display().to_string(),
            reason: format!(
                "transfer writes {} rigs; for {} use --weights FILE (and `skinweights export` to write it)",
                written.join(" and "),
                format.name()
            ),
        }
        .into());
    }
    Ok(format)
}

/// The weights transferred from: the rig's own, or (with `--from-scene` and a rig without
/// weights) a whole solve, since the parts the other scene does not reach are weighted from
/// scratch.
fn source_weights(
    a: &TransferArgs,
    artist: Option<Weights>,
    scene: &Scene,
    solver: &dyn Solver,
) -> Result<Weights> {
    if a.from_scene.is_some() && a.to.is_empty() && a.to_skin.is_none() {
        return Err(ArgumentError::InvalidArgument {
            argument: "--to",
            value: String::new(),
            reason:
                "--from-scene needs the parts to weight: --to PART (repeatable) or --to-skin SKIN"
                    .into(),
        }
        .into());
    }
    match (artist, &a.from_scene) {
        (Some(w), _) => Ok(w),
        (None, Some(_)) => {
            let every: Vec<usize> = (0..scene.skeleton().len()).collect();
            Ok(skinweights::binding::solve_with_bones(solver, scene, &every)?.weights)
        }
        (None, None) => Err(ArgumentError::InvalidArgument {
            argument: "FILE",
            value: a.file.display().to_string(),
            reason:
                "the file has no weights to transfer (--from-scene takes them from another scene)"
                    .into(),
        }
        .into()),
    }
}

/// The parts to weight (`--to`, `--to-skin`, or the unweighted attachments beside a weighted
/// one in their slot), each with the bones its file binds it to when it has any.
fn targets_of(
    a: &TransferArgs,
    scene: &Scene,
    slots: &[SlotPart],
    meshes: &[(String, Vec<String>)],
) -> Result<Vec<TransferTarget>> {
    let parts = match (&a.to_skin, a.to.is_empty()) {
        (Some(skin), _) => skin_parts(slots, skin),
        (None, false) => a.to.clone(),
        (None, true) => default_targets(slots),
    };
    if parts.is_empty() {
        return Err(CliError::Lib(skinweights::Error::from(ArgumentError::InvalidArgument {
            argument: "--to",
            value: a.to_skin.clone().unwrap_or_default(),
            reason: "no part to weight: the file has no unweighted attachment beside a weighted one in its slot; name parts with --to PART or a skin with --to-skin SKIN".into(),
        })));
    }
    let bound = |part: &str| meshes.iter().find(|(p, _)| p == part).map(|(_, b)| b);
    Ok(parts
        .iter()
        .map(|part| TransferTarget {
            part: part.clone(),
            bones: bound(part).map(|names| {
                names
                    .iter()
                    .filter_map(|n| scene.skeleton().index_of(n))
                    .collect()
            }),
        })
        .collect())
}

/// One line per transferred part: how its vertices were weighted, and its notes.
fn print_done(done: &[Transferred]) {
    for t in done {
        let r = &t.report;
        println!(
            "{}: {} vertices, {} copied, {} inpainted, {} partly from scratch (farthest {:.2} from a source)",
            t.part,
            t.vertices.len(),
            r.copied,
            r.inpainted,
            r.from_scratch,
            r.farthest
        );
        for n in &r.notes {
            println!("  note: {n}");
        }
    }
}

/// `--from-scene`: every target transferred from every part of the scene in `path` with
/// its weights (`weights_path`, default `SCENE.artist.json` beside it), written into a copy
/// of `base`.
///
/// Errors: an unreadable scene or weights file (naming `--from-weights` when it is missing),
/// and those of [`transfer`].
fn from_scene(
    scene: &Scene,
    base: &Weights,
    targets: &[TransferTarget],
    path: &Path,
    weights_path: Option<&Path>,
    options: &TransferOptions,
    solver: &dyn skinweights::solvers::Solver,
) -> Result<(Weights, Vec<Transferred>)> {
    let (source_scene, notes) = skinweights::io::load_scene(path)
        .map_err(|e| super::wrong_file::explain(path, skinweights::io::FileKind::Scene, e))?;
    for n in notes {
        eprintln!("note: {}: {n}", path.display());
    }
    let weights_path = weights_path
        .map(Path::to_path_buf)
        .unwrap_or_else(|| path.with_extension("artist.json"));
    if !weights_path.is_file() {
        return Err(ArgumentError::InvalidArgument {
            argument: "--from-weights",
            value: weights_path.display().to_string(),
            reason: format!(
                "no weights for {}: give them with --from-weights WEIGHTS.json (`skinweights import` writes SCENE.artist.json beside the scene)",
                path.display()
            ),
        }
        .into());
    }
    let source_weights = super::load_weights_for(&source_scene, &weights_path)?;
    let parts = source_scene.mesh().parts().to_vec();
    let source = TransferSource::from_parts(&source_scene, &source_weights, &parts)?;
    let mut out = base.clone();
    let mut done = Vec::with_capacity(targets.len());
    for t in targets {
        let moved = transfer(scene, t, &source, options, solver)?;
        moved.scatter(&mut out)?;
        done.push(moved);
    }
    Ok((out, done))
}

fn write_rig(
    format: RigFormat,
    source: &Path,
    scene: &skinweights::scene::Scene,
    weights: &skinweights::weights::Weights,
    path: &Path,
) -> Result<()> {
    // Spine rewrites the input project; its regions the weights now bend become meshes.
    let options = ExportOptions::default()
        .with_source(Some(source))
        .with_regions_to_meshes(true)
        .with_output(path);
    let out = pipeline::export(format.format(), scene, weights, &options, path)?;
    for n in &out.notes {
        println!("  note: {n}");
    }
    Ok(())
}
