//! `skinweights export`: a scene and its weights in another tool's format.

use super::format_arg::ExportFormat;
use super::{check_outputs, load_weights_for, resolve_scene, BuiltinArgs};
use crate::cli::error::{CliError, Result};
use clap::Args;
use skinweights::io::{ExportOptions, GodotVersion, Source};
use skinweights::pipeline;
use skinweights::ArgumentError;
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;

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
    #[arg(long, default_value_t = ExportOptions::default().gltf_scale)]
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
    let format = a.format.0;
    let mut inputs = vec![Path::new(&a.scene), a.weights.as_path()];
    inputs.extend(a.source.as_deref());
    let atlas_out = a.output.with_extension("atlas");
    let mut outputs = vec![a.output.as_path()];
    if format.atlas_without_source && a.source.is_none() {
        outputs.push(&atlas_out);
    }
    check_outputs(&inputs, &outputs, a.force)?;
    let scene = resolve_scene(Some(&a.scene), &a.builtin)?;
    let w = load_weights_for(&scene, &a.weights)?;
    let options = ExportOptions::default()
        .with_source(a.source.as_deref())
        .with_max_influences(a.max_influences.map(|k| k as usize))
        .with_regions_to_meshes(a.regions_to_meshes)
        .with_godot(GodotVersion::from_number(a.godot).unwrap_or_default())
        .with_gltf_scale(a.scale)
        .with_output(&a.output);
    let exported = pipeline::export(format, &scene, &w, &options, &a.output)?;
    for n in &exported.notes {
        eprintln!("note: {n}");
    }
    println!("wrote {}{}", a.output.display(), exported.summary);
    for n in &exported.reminders {
        eprintln!("note: {n}");
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
    let format = a.format.0;
    if format.source == Source::Required && a.source.is_none() {
        return Err(ArgumentError::MissingArgument {
            argument: "--source",
            reason: "a Creature export writes the weights into a copy of the file the scene was imported from: give it with --source FILE.json".into(),
        }.into());
    }
    if format.source == Source::Never && a.source.is_some() {
        return conflict(
            "--source",
            "only Spine and Creature exports take a source file",
        );
    }
    if !format.influence_limit && a.max_influences.is_some() {
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
    if !format.scales && a.scale != 1.0 {
        return conflict(
            "--scale",
            &format!(
                "only glTF export scales coordinates ({} keeps pixels)",
                format.kind
            ),
        );
    }
    Ok(())
}
