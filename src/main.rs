//! The `skinweights` command line: thin drivers over the library.

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use skinweights::scene::{builtin_scene, load_scene, save_scene, BuiltinOptions, BUILTIN_SCENES};
use skinweights::{Error, Scene};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Automatic skinning weights for 2D characters, and measurements of how good they are.
///
/// Start with `skinweights compare`: it builds the arms-down character, runs every solver and
/// prints leakage and joint-quality numbers side by side.
#[derive(Parser)]
#[command(name = "skinweights", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run solvers on a scene and compare their metrics (the main job).
    Compare {
        #[command(flatten)]
        scene: SceneArg,
    },
    /// Generate a built-in scene and write it as a scene file.
    ///
    /// Example: `skinweights scene arms-down --gap 12 --vertices 20000 -o arms.json`
    Scene {
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
    },
}

/// Options of the built-in scene generators.
#[derive(Args, Clone)]
struct BuiltinArgs {
    /// Gap between arm and torso in px (arms-down, layered-arms; default 12).
    #[arg(long)]
    gap: Option<f64>,
    /// Approximate vertex count of the generated mesh.
    #[arg(long, default_value_t = 10_000)]
    vertices: usize,
}

/// A scene given as a file or a built-in name.
#[derive(Args, Clone)]
struct SceneArg {
    /// Scene file (JSON) or built-in name (default: arms-down).
    scene: Option<String>,
    #[command(flatten)]
    builtin: BuiltinArgs,
}

fn spinner(message: impl Into<String>) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"),
    );
    pb.set_message(message.into());
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

/// Loads a scene file, or generates a built-in scene by name.
fn resolve_scene(name: Option<&str>, builtin: &BuiltinArgs) -> Result<Scene, Error> {
    let name = name.unwrap_or("arms-down");
    let path = Path::new(name);
    if path.exists() || name.ends_with(".json") {
        let (scene, notes) = load_scene(path)?;
        for n in notes {
            eprintln!("note: {}: {n}", path.display());
        }
        return Ok(scene);
    }
    if !BUILTIN_SCENES.contains(&name) {
        return Err(Error::field(
            "scene",
            format!(
                "{name:?} is neither a file nor a built-in scene ({})",
                BUILTIN_SCENES.join(", ")
            ),
        ));
    }
    let pb = spinner(format!("meshing {name} (~{} vertices)", builtin.vertices));
    let scene = builtin_scene(
        name,
        &BuiltinOptions {
            gap: builtin.gap,
            vertices: builtin.vertices,
        },
    );
    pb.finish_and_clear();
    scene
}

/// Refuses to overwrite a file unless `force`.
fn check_output(path: &Path, force: bool) -> Result<(), Error> {
    if path.exists() && !force {
        return Err(Error::WouldOverwrite {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        Command::Compare { scene: _ } => {
            println!(
                "compare: not yet available (the solvers and metrics land in the next issues)"
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Scene {
            name,
            builtin,
            output,
            force,
        } => {
            check_output(&output, force)?;
            if !BUILTIN_SCENES.contains(&name.as_str()) {
                return Err(Error::field(
                    "scene",
                    format!(
                        "unknown built-in scene {name:?} (known: {})",
                        BUILTIN_SCENES.join(", ")
                    ),
                ));
            }
            let scene = resolve_scene(Some(&name), &builtin)?;
            save_scene(&scene, &output)?;
            println!(
                "wrote {}: {} vertices, {} triangles, {} bones, {} probes",
                output.display(),
                scene.mesh.vertex_count(),
                scene.mesh.triangle_count(),
                scene.skeleton.len(),
                scene.probes.len()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
