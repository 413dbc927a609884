//! `skinweights scene`: a built-in scene written as a scene file.

use super::{check_output, resolve_scene, BuiltinArgs};
use clap::Args;
use skinweights::io::save_scene;
use skinweights::scene::BUILTIN_SCENES;
use skinweights::{Error, Result};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `scene`.
#[derive(Args)]
pub struct SceneArgs {
    /// Built-in scene: arms-down, arms-touching, layered-arms, bar, figure.
    name: String,
    #[command(flatten)]
    builtin: BuiltinArgs,
    /// Output scene file (JSON).
    #[arg(short, long)]
    output: PathBuf,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    force: bool,
}

/// Runs `scene`.
pub fn run(a: SceneArgs) -> Result<ExitCode> {
    check_output(&a.output, a.force)?;
    if !BUILTIN_SCENES.contains(&a.name.as_str()) {
        return Err(Error::field(
            "scene",
            format!(
                "unknown built-in scene {:?} (known: {})",
                a.name,
                BUILTIN_SCENES.join(", ")
            ),
        ));
    }
    let scene = resolve_scene(Some(&a.name), &a.builtin)?;
    save_scene(&scene, &a.output)?;
    println!(
        "wrote {}: {} vertices, {} triangles, {} bones, {} probes",
        a.output.display(),
        scene.mesh.vertex_count(),
        scene.mesh.triangle_count(),
        scene.skeleton.len(),
        scene.probes.len()
    );
    Ok(ExitCode::SUCCESS)
}
