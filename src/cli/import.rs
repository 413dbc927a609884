//! `skinweights import`: a skinned mesh made by another tool, as a scene file and weights.

use super::check_outputs;
use crate::cli::error::{CliError, Result};
use crate::cli::wrong_file::explain;
use clap::{Args, ValueEnum};
use skinweights::io::creature::load_creature;
use skinweights::io::dragonbones::load_dragonbones;
use skinweights::io::godot::load_godot;
use skinweights::io::spine::{load_spine, SkinSelection, SpineImportOptions};
use skinweights::io::{gltf::import_gltf, save_scene, FileKind, WeightsFile};
use skinweights::scene::Scene;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Formats `skinweights import` reads.
#[derive(Clone, Copy, ValueEnum)]
enum ImportFormat {
    /// glTF 2.0 (.gltf; buffers embedded or beside it).
    Gltf,
    /// Creature JSON (Kestrel Moon's "Game Engines" export): mesh regions as parts, the
    /// skeleton, artist weights and clips (frames at 60 fps).
    Creature,
    /// DragonBones 5.5 JSON (`*_ske.json`): armature, mesh displays, artist weights.
    Dragonbones,
    /// Godot 3 or 4 text scene (.tscn): Skeleton2D, Polygon2D layers, painted weights.
    Godot,
    /// Spine 4.x JSON: bones in the setup pose, mesh and region attachments, artist weights,
    /// the atlas (`--atlas`, default NAME.atlas beside the file).
    Spine,
}

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
    match (a.format, &a.weights) {
        (_, Some(w)) => Some(w.clone()),
        (
            ImportFormat::Creature
            | ImportFormat::Dragonbones
            | ImportFormat::Godot
            | ImportFormat::Spine,
            None,
        ) => Some(a.output.with_extension("artist.json")),
        (ImportFormat::Gltf, None) => None,
    }
}

/// Rejects `--atlas` and `--skin` for a format other than Spine.
fn check_spine_only(a: &ImportArgs) -> Result<()> {
    if !matches!(a.format, ImportFormat::Spine) && (a.atlas.is_some() || a.skin.is_some()) {
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

/// The input file read as a scene and the weights it carries, its report printed.
/// `want_weights`: a weights file is to be written, so a glTF without weights is an error.
fn read_input(a: &ImportArgs, want_weights: bool) -> Result<(Scene, Option<WeightsFile>)> {
    Ok(match a.format {
        ImportFormat::Gltf => read_gltf(a, want_weights)?,
        ImportFormat::Creature => {
            let imported =
                load_creature(&a.file).map_err(|e| explain(&a.file, FileKind::Creature, e))?;
            print!("{}", imported.report);
            let artist = imported.artist_file();
            (imported.scene, Some(artist))
        }
        ImportFormat::Dragonbones => {
            let imported = load_dragonbones(&a.file)
                .map_err(|e| explain(&a.file, FileKind::DragonBones, e))?;
            print!("{}", imported.report);
            let artist = imported.artist_file();
            (imported.scene, Some(artist))
        }
        ImportFormat::Spine => {
            let options = SpineImportOptions::default().with_skin(
                a.skin
                    .as_deref()
                    .map_or(SkinSelection::Default, SkinSelection::from_arg),
            );
            let imported = load_spine(&a.file, a.atlas.as_deref(), &options)
                .map_err(|e| explain(&a.file, FileKind::SpineJson, e))?;
            print!("{}", imported.report);
            let artist = imported.artist_file();
            (imported.scene, Some(artist))
        }
        ImportFormat::Godot => {
            let imported =
                load_godot(&a.file).map_err(|e| explain(&a.file, FileKind::GodotScene, e))?;
            print!("{}", imported.report);
            let artist = imported.artist_file();
            (imported.scene, Some(artist))
        }
    })
}

/// A glTF file read as a scene and its weights, its embedded images written beside the
/// scene file.
fn read_gltf(a: &ImportArgs, want_weights: bool) -> Result<(Scene, Option<WeightsFile>)> {
    let expected = if skinweights::io::sniff_file(&a.file) == FileKind::Glb {
        FileKind::Glb
    } else {
        FileKind::Gltf
    };
    let mut imported = import_gltf(&a.file).map_err(|e| explain(&a.file, expected, e))?;
    for n in &imported.report.notes {
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
    let weights = imported.weights_file();
    Ok((imported.scene, weights))
}
