//! `skinweights export`: a scene and its weights in another tool's format.

use super::{check_outputs, load_weights_for, resolve_scene, BuiltinArgs};
use crate::cli::error::{CliError, Result};
use clap::{Args, ValueEnum};
use skinweights::io::creature::save_creature;
use skinweights::io::dragonbones::save_dragonbones;
use skinweights::io::godot::save_godot;
use skinweights::io::spine::{save_spine, SpineExportOptions};
use skinweights::io::{
    gltf::export_glb, gltf::export_gltf, gltf::truncation_note, gltf::GltfOptions,
};
use skinweights::scene::Scene;
use skinweights::weights::Weights;
use skinweights::ArgumentError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Formats `skinweights export` writes.
#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
    /// glTF 2.0 (.gltf with an embedded buffer, or binary glTF when the output ends in .glb;
    /// the scene's art as embedded PNG images, one material per image and one primitive per
    /// layer).
    Gltf,
    /// Creature JSON: the `--source` file (required) with each region's weights rewritten,
    /// everything else kept as in the source.
    Creature,
    /// DragonBones 5.5 JSON: one weighted mesh display per part.
    Dragonbones,
    /// Godot .tscn (text scene): a Skeleton2D and one skinned Polygon2D per part.
    Godot,
    /// Spine 4.2 JSON: with `--source`, that project with its meshes' weighted vertices
    /// rewritten; without, a minimal project (bones, a slot and mesh per part, the atlas).
    Spine,
}

/// Arguments of `export`.
#[derive(Args)]
pub struct ExportArgs {
    /// Output format.
    format: ExportFormat,
    /// Scene file or built-in name.
    scene: String,
    /// Weights file (skinweights.weights/1 JSON) for that scene.
    weights: PathBuf,
    /// Output file.
    #[arg(short, long)]
    output: PathBuf,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    force: bool,
    /// glTF only: multiply every coordinate (glTF units are metres: 0.01 makes 200 px 2 m).
    #[arg(long, default_value_t = GltfOptions::default().scale)]
    scale: f64,
    /// Godot only: the Godot version to write for, 3 (format=2, Pool*Array) or 4 (format=3,
    /// Packed*Array).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(3..=4))]
    godot: u32,
    /// Spine: the project the scene was imported from; only its meshes' vertices are
    /// rewritten. Creature (required): the file the scene was imported from; only its
    /// regions' weights are rewritten.
    #[arg(long)]
    source: Option<PathBuf>,
    /// Spine only: keep at most K influences per vertex (the largest, renormalized);
    /// default: all.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    max_influences: Option<u32>,
    /// Spine with --source only: write each region attachment the new weights bend (more
    /// than one bone, or a bone other than its slot's) as a weighted mesh attachment of the
    /// same name and image (a 4-vertex quad); without it such regions stay rigid and a
    /// note names each.
    #[arg(long)]
    regions_to_meshes: bool,
    #[command(flatten)]
    builtin: BuiltinArgs,
}

/// Runs `export`.
pub fn run(a: ExportArgs) -> Result<ExitCode> {
    check_flags(&a)?;
    let mut inputs = vec![Path::new(&a.scene), a.weights.as_path()];
    inputs.extend(a.source.as_deref());
    let atlas_out = a.output.with_extension("atlas");
    let mut outputs = vec![a.output.as_path()];
    if matches!(a.format, ExportFormat::Spine) && a.source.is_none() {
        outputs.push(&atlas_out);
    }
    check_outputs(&inputs, &outputs, a.force)?;
    let scene = resolve_scene(Some(&a.scene), &a.builtin)?;
    let w = load_weights_for(&scene, &a.weights)?;
    match a.format {
        ExportFormat::Gltf => write_gltf(&a, &scene, &w)?,
        ExportFormat::Creature => write_creature(&a, &scene, &w)?,
        ExportFormat::Dragonbones => write_dragonbones(&a, &scene, &w)?,
        ExportFormat::Spine => write_spine(&a, &scene, &w, &atlas_out)?,
        ExportFormat::Godot => write_godot(&a, &scene, &w)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses flags the chosen format does not take, before anything is read.
fn check_flags(a: &ExportArgs) -> Result<()> {
    let conflict = |argument: &'static str, reason: &str| {
        Err(CliError::ConflictingArguments {
            argument,
            reason: reason.to_string(),
        })
    };
    let spine = matches!(a.format, ExportFormat::Spine);
    let creature = matches!(a.format, ExportFormat::Creature);
    if creature && a.source.is_none() {
        return Err(ArgumentError::MissingArgument {
            argument: "--source",
            reason: "a Creature export writes the weights into a copy of the file the scene was imported from: give it with --source FILE.json".into(),
        }.into());
    }
    if !spine && !creature && a.source.is_some() {
        return conflict(
            "--source",
            "only Spine and Creature exports take a source file",
        );
    }
    if !spine && a.max_influences.is_some() {
        return conflict(
            "--max-influences",
            "only Spine exports take a source project or an influence limit",
        );
    }
    if a.regions_to_meshes && a.source.is_none() {
        return conflict(
            "--regions-to-meshes",
            "only an export with --source has region attachments to turn into meshes",
        );
    }
    let keeps_pixels = match a.format {
        ExportFormat::Gltf => None,
        ExportFormat::Creature => Some("Creature"),
        ExportFormat::Dragonbones => Some("DragonBones"),
        ExportFormat::Spine => Some("Spine"),
        ExportFormat::Godot => Some("Godot"),
    };
    if let (Some(tool), true) = (keeps_pixels, a.scale != 1.0) {
        return conflict(
            "--scale",
            &format!("only glTF export scales coordinates ({tool} keeps pixels)"),
        );
    }
    Ok(())
}

/// `export gltf`: the scene, its weights and its art in one .gltf (JSON, embedded buffer),
/// or binary glTF when the output ends in `.glb`.
fn write_gltf(a: &ExportArgs, scene: &Scene, w: &Weights) -> Result<()> {
    let options = GltfOptions::default().with_scale(a.scale);
    let binary = a
        .output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    if binary {
        skinweights::io::write_atomic(&a.output, export_glb(scene, w, &options)?)?;
    } else {
        skinweights::io::write_atomic(&a.output, export_gltf(scene, w, &options)?)?;
    }
    if let Some(note) = truncation_note(w) {
        eprintln!("note: {note}");
    }
    let art = scene.art().map_or(String::new(), |art| {
        format!(
            ", {} images embedded, {} layers as primitives",
            art.images.len(),
            art.layers.len()
        )
    });
    println!(
        "wrote {}: {} vertices, {} triangles, {} joints{art}",
        a.output.display(),
        scene.mesh().vertex_count(),
        scene.mesh().triangle_count(),
        scene.skeleton().len()
    );
    Ok(())
}

/// `export creature`: the weights into a copy of the `--source` file.
fn write_creature(a: &ExportArgs, scene: &Scene, w: &Weights) -> Result<()> {
    let Some(source) = a.source.as_deref() else {
        return Err(ArgumentError::MissingArgument {
            argument: "--source",
            reason: "a Creature export needs the file the scene was imported from".into(),
        }
        .into());
    };
    save_creature(scene, w, source, &a.output)?;
    println!(
        "wrote {}: {} with the weights of {} vertices on {} bones",
        a.output.display(),
        source.display(),
        scene.mesh().vertex_count(),
        scene.skeleton().len()
    );
    Ok(())
}

/// `export dragonbones`: one weighted mesh display per part.
fn write_dragonbones(a: &ExportArgs, scene: &Scene, w: &Weights) -> Result<()> {
    save_dragonbones(scene, w, &a.output)?;
    println!(
        "wrote {}: {} parts as weighted mesh displays, {} bones",
        a.output.display(),
        scene.mesh().parts().len(),
        scene.skeleton().len()
    );
    Ok(())
}

/// `export spine`: the weights into the source project's meshes, or a new project and its
/// atlas at `atlas_out`.
fn write_spine(a: &ExportArgs, scene: &Scene, w: &Weights, atlas_out: &Path) -> Result<()> {
    let options = SpineExportOptions::default()
        .with_max_influences(a.max_influences.map(|k| k as usize))
        .with_regions_to_meshes(a.regions_to_meshes);
    let out = save_spine(scene, w, a.source.as_deref(), &options, &a.output)?;
    for n in &out.notes {
        eprintln!("note: {n}");
    }
    println!(
        "wrote {}: {} mesh attachments with weighted vertices{}, {} bones{}",
        a.output.display(),
        out.meshes,
        if out.regions_to_meshes > 0 {
            format!(" ({} of them regions before)", out.regions_to_meshes)
        } else {
            String::new()
        },
        scene.skeleton().len(),
        if out.atlas.is_some() {
            format!(" (and {})", atlas_out.display())
        } else {
            String::new()
        }
    );
    Ok(())
}

/// `export godot`: one Polygon2D per part; notes a texture not beside the output.
fn write_godot(a: &ExportArgs, scene: &Scene, w: &Weights) -> Result<()> {
    save_godot(scene, w, a.godot, &a.output)?;
    println!(
        "wrote {} (Godot {}): {} parts as Polygon2D nodes, {} bones",
        a.output.display(),
        a.godot,
        scene.mesh().parts().len(),
        scene.skeleton().len()
    );
    let out_dir = a.output.parent().unwrap_or(Path::new("."));
    for image in scene.art().iter().flat_map(|art| &art.images) {
        if let Some(file) = image.path.file_name() {
            if !out_dir.join(file).exists() {
                eprintln!(
                    "note: the scene's texture is res://{}: copy {} beside {}",
                    file.to_string_lossy(),
                    image.path.display(),
                    a.output.display()
                );
            }
        }
    }
    Ok(())
}
