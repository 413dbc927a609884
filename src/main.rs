//! The `skinweights` command line: thin drivers over the library.

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use skinweights::compare::{figure_panels, CompareRow, Comparison};
use skinweights::lint::{lint, LintOptions};
use skinweights::metrics::evaluate;
use skinweights::plot::{save_figure, Grid};
use skinweights::scene::{builtin_scene, load_scene, save_scene, BuiltinOptions, BUILTIN_SCENES};
use skinweights::{Error, Scene, Weights, WeightsFile};
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
    /// Score weights made by any tool: every metric on a probe of the scene.
    ///
    /// Example: `skinweights eval arms.json blender_weights.json --probe lift_l --json`
    Eval {
        /// Scene file or built-in name.
        scene: String,
        /// Weights file (skinweights.weights/1 JSON).
        weights: PathBuf,
        /// Probe to measure (default: the scene's first probe).
        #[arg(long)]
        probe: Option<String>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        builtin: BuiltinArgs,
    },
    /// Run the seed's check table (bind identity, normalization, continuity, extreme poses).
    ///
    /// Prints PASS/FAIL per check with the measured number and what to inspect first; exits
    /// with code 1 when any check fails.
    Lint {
        /// Scene file or built-in name.
        scene: String,
        /// Weights file (skinweights.weights/1 JSON).
        weights: PathBuf,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Largest acceptable area loss in an extreme pose, percent.
        #[arg(long, default_value_t = 10.0)]
        max_area_loss: f64,
        #[command(flatten)]
        builtin: BuiltinArgs,
    },
    /// Draw the weight map and the probe pose of a weights file (PNG or SVG by extension).
    Plot {
        /// Scene file or built-in name.
        scene: String,
        /// Weights file (skinweights.weights/1 JSON).
        weights: PathBuf,
        /// Probe to pose (default: the scene's first probe).
        #[arg(long)]
        probe: Option<String>,
        /// Output figure, .png or .svg.
        #[arg(short, long)]
        output: PathBuf,
        /// Overwrite the output file if it exists.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        builtin: BuiltinArgs,
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

/// Loads a weights file and matches its bones to the scene's.
fn load_weights_for(scene: &Scene, path: &Path) -> Result<Weights, Error> {
    let file = WeightsFile::load(path)?;
    if file.scene != scene.name {
        eprintln!(
            "note: {} was made for scene {:?}, scoring it on {:?}",
            path.display(),
            file.scene,
            scene.name
        );
    }
    file.to_weights_for(&scene.skeleton.names(), scene.mesh.vertex_count())
}

fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        Command::Eval {
            scene,
            weights,
            probe,
            json,
            builtin,
        } => {
            let scene = resolve_scene(Some(&scene), &builtin)?;
            let w = load_weights_for(&scene, &weights)?;
            let probe = scene.probe(probe.as_deref())?;
            let metrics = evaluate(&scene, &w, probe, None)?;
            let row = CompareRow {
                solver: weights.display().to_string(),
                metrics,
                warnings: vec![],
            };
            let table = Comparison {
                scene: scene.name.clone(),
                probe: probe.name.clone(),
                rows: vec![row],
            };
            if json {
                println!("{}", table.to_json()?);
            } else {
                print!("{}", table.to_markdown());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Lint {
            scene,
            weights,
            json,
            max_area_loss,
            builtin,
        } => {
            let scene = resolve_scene(Some(&scene), &builtin)?;
            let w = load_weights_for(&scene, &weights)?;
            let options = LintOptions {
                max_area_loss_pct: max_area_loss,
                ..LintOptions::default()
            };
            let checks = lint(&scene, &w, &options)?;
            if json {
                let text = serde_json::to_string_pretty(&checks).map_err(|e| Error::Json {
                    context: "lint".into(),
                    message: e.to_string(),
                })?;
                println!("{text}");
            } else {
                for c in &checks {
                    println!(
                        "{} {:<28} {}  (pass: {})",
                        if c.pass { "PASS" } else { "FAIL" },
                        c.check,
                        c.measured,
                        c.condition
                    );
                    if !c.pass {
                        println!("     inspect first: {}", c.inspect_first);
                    }
                }
                println!("skipped: pixel-edge check (needs a renderer and the textures)");
            }
            Ok(if checks.iter().all(|c| c.pass) {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Plot {
            scene,
            weights,
            probe,
            output,
            force,
            builtin,
        } => {
            check_output(&output, force)?;
            let scene = resolve_scene(Some(&scene), &builtin)?;
            let w = load_weights_for(&scene, &weights)?;
            let probe = scene.probe(probe.as_deref())?;
            let label = weights
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_default();
            let drag_scale = skinweights::metrics::drag(&scene, &w, probe)?
                .max_pct()
                .max(1.0);
            let panels = figure_panels(&scene, &w, &label, probe, drag_scale)?;
            save_figure(
                &Grid {
                    panels: &panels,
                    columns: 2,
                },
                &output,
                (1400, 700),
            )?;
            println!("wrote {}", output.display());
            Ok(ExitCode::SUCCESS)
        }
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
