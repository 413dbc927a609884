//! `skinweights scene`: a built-in scene written as a scene file.

use super::{check_output, check_outputs, resolve_scene, BuiltinArgs};
use crate::cli::error::Result;
use clap::Args;
use skinweights::io::save_scene;
use skinweights::render::parse_colour;
use skinweights::render::Texture;
use skinweights::render::{paint_layers, PaintOptions};
use skinweights::scene::BUILTIN_SCENES;
use skinweights::SceneError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Built-in scenes written with painted layer images next to the scene file.
const PAINTED: &[&str] = &["layered-elbow"];

/// Arguments of `scene`.
#[derive(Args)]
#[command(
    after_help = "Scenes: arms-down (the leakage scene, --gap), arms-touching (gap 0), \
layered-arms (torso and arms as separate overlapping layers), layered-elbow (upper arm and \
forearm as two separate textured layers touching at the elbow (the crack at the elbow); --overlap PX \
puts the forearm that far under the upper arm; writes one PNG per layer next to the scene \
file, SCENE_upper.png and SCENE_forearm.png for -o SCENE.json, transparent texels in --transparent), bar (the \
candy-wrapper limb), figure (a full character)."
)]
pub struct SceneArgs {
    /// Built-in scene: arms-down, arms-touching, layered-arms, layered-elbow, bar, figure.
    name: String,
    #[command(flatten)]
    builtin: BuiltinArgs,
    /// Output scene file (JSON).
    #[arg(short, long)]
    output: PathBuf,
    /// RGB of the transparent texels of painted layers (layered-elbow): black, white, red
    /// or #RRGGBB.
    #[arg(long, default_value = "white")]
    transparent: String,
    /// Overwrite the output files if they exist.
    #[arg(long)]
    force: bool,
}

/// Runs `scene`.
pub fn run(a: SceneArgs) -> Result<ExitCode> {
    check_output(&a.output, a.force)?;
    if !BUILTIN_SCENES.contains(&a.name.as_str()) {
        return Err(SceneError::UnknownBuiltin {
            name: a.name.clone(),
            known: BUILTIN_SCENES.join(", "),
        }
        .into());
    }
    let transparent = parse_colour(&a.transparent)?;
    let mut scene = resolve_scene(Some(&a.name), &a.builtin)?;
    let mut images = Vec::new();
    if PAINTED.contains(&a.name.as_str()) {
        let stem = a.output.with_extension("");
        let options = PaintOptions::default().with_transparent(transparent);
        let (painted, textures) = paint_layers(&scene, &stem, &options)?;
        let paths: Vec<PathBuf> = textures.iter().map(|t| PathBuf::from(&t.name)).collect();
        let outputs: Vec<&Path> = std::iter::once(a.output.as_path())
            .chain(paths.iter().map(|p| p.as_path()))
            .collect();
        check_outputs(&[], &outputs, a.force)?;
        save_textures(&textures)?;
        images = paths;
        scene = painted;
    }
    save_scene(&scene, &a.output)?;
    super::status(
        &a.output,
        format_args!(
            "wrote {}: {} vertices, {} triangles, {} bones, {} probes",
            a.output.display(),
            scene.mesh().vertex_count(),
            scene.mesh().triangle_count(),
            scene.skeleton().len(),
            scene.probes().len()
        ),
    );
    for p in images {
        println!("wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes every texture of `textures` as a PNG at its name (the path `paint_layers` gave it),
/// whole or not at all per file.
fn save_textures(textures: &[Texture]) -> Result<()> {
    for t in textures {
        let path = Path::new(&t.name);
        skinweights::io::write_atomic(path, skinweights::io::encode_png(&t.image, path)?)?;
    }
    Ok(())
}
