//! `skinweights import`: a skinned mesh made by another tool, as a scene file and weights.

use super::check_outputs;
use super::format_arg::ImportFormat;
use crate::cli::error::{CliError, Result};
use crate::cli::wrong_file::explain;
use clap::Args;
use skinweights::io::spine::SkinSelection;
use skinweights::io::{save_scene, sniff_file, ImportOptions, WeightsFile};
use skinweights::scene::Scene;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `import`.
#[derive(Args)]
pub struct ImportArgs {
    /// Input format.
    format: ImportFormat,
    /// Input file.
    file: PathBuf,
    /// Output scene file (JSON).
    #[arg(short, long)]
    output: PathBuf,
    /// Also write the file's weights (skinweights.weights/1 JSON); Creature, DragonBones,
    /// Godot and Spine default: SCENE.artist.json next to the scene.
    #[arg(long)]
    weights: Option<PathBuf>,
    /// Spine only: the atlas (libgdx text .atlas); default: NAME.atlas beside the file
    /// (`-pro`/`-ess` dropped) when it exists.
    #[arg(long)]
    atlas: Option<PathBuf>,
    /// Spine only: the skin to merge over the default one (each slot's setup attachment), or
    /// `all` for every attachment of every skin, each its own layer.
    #[arg(long)]
    skin: Option<String>,
    /// Overwrite the output files if they exist.
    #[arg(long)]
    force: bool,
}

/// Runs `import`.
pub fn run(a: ImportArgs) -> Result<ExitCode> {
    let weights = weights_output(&a);
    check_spine_only(&a)?;
    let mut outputs: Vec<&Path> = vec![&a.output];
    outputs.extend(weights.as_deref());
    check_outputs(&[&a.file], &outputs, a.force)?;
    let no_weights = || CliError::NoFileWeights {
        path: a.file.clone(),
    };
    let (scene, file_weights) = read_input(&a, weights.is_some())?;
    // Check before writing anything, so a failed import leaves no half output.
    let weights_out = match (&weights, &file_weights) {
        (Some(path), Some(w)) => Some((path, w)),
        (Some(_), None) => return Err(no_weights()),
        (None, _) => None,
    };
    save_scene(&scene, &a.output)?;
    println!(
        "wrote {}: {} vertices, {} triangles, {} bones",
        a.output.display(),
        scene.mesh().vertex_count(),
        scene.mesh().triangle_count(),
        scene.skeleton().len()
    );
    if let Some((path, w)) = weights_out {
        if let Err(e) = w.save(path) {
            // Leave no half import behind: the scene alone is not what was asked for.
            let _ = std::fs::remove_file(&a.output);
            return Err(e.into());
        }
        println!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The weights file to write: `--weights`, else `SCENE.artist.json` for the formats that
/// always carry the artist's weights (Creature, DragonBones, Godot and Spine).
fn weights_output(a: &ImportArgs) -> Option<PathBuf> {
    match &a.weights {
        Some(w) => Some(w.clone()),
        None if a.format.0.always_weighted => Some(a.output.with_extension("artist.json")),
        None => None,
    }
}

/// Rejects `--atlas` and `--skin` for a format other than Spine.
fn check_spine_only(a: &ImportArgs) -> Result<()> {
    if !a.format.0.skins && (a.atlas.is_some() || a.skin.is_some()) {
        return Err(CliError::ConflictingArguments {
            argument: if a.atlas.is_some() {
                "--atlas"
            } else {
                "--skin"
            },
            reason: "only Spine imports take an atlas file or a skin".into(),
        });
    }
    Ok(())
}

/// The input file read as a scene and the weights it carries, its report printed and the
/// images it embeds written beside the scene file. `want_weights`: a weights file is to be
/// written, so a file without weights (a glTF's) is an error.
fn read_input(a: &ImportArgs, want_weights: bool) -> Result<(Scene, Option<WeightsFile>)> {
    let format = a.format.0;
    let options = ImportOptions::default()
        .with_skin(
            a.skin
                .as_deref()
                .map_or(SkinSelection::Default, SkinSelection::from_arg),
        )
        .with_atlas(a.atlas.clone());
    let mut imported = format
        .import(&a.file, &options)
        .map_err(|e| explain(&a.file, format.expected_kind(sniff_file(&a.file)), e))?;
    print!("{}", imported.report);
    for n in imported.report.unshown_notes() {
        eprintln!("note: {}: {n}", a.file.display());
    }
    if want_weights && imported.artist.is_none() {
        return Err(CliError::NoFileWeights {
            path: a.file.clone(),
        });
    }
    // Embedded textures become image files beside the scene file.
    let dir = match a.output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    for p in imported.write_embedded_images(dir, a.force)? {
        println!("wrote {}", p.display());
    }
    let weights = imported.artist.as_ref().map(|w| {
        WeightsFile::new(
            imported.scene.name(),
            format.weights_solver,
            imported.scene.skeleton().names(),
            w,
        )
    });
    Ok((imported.scene, weights))
}
