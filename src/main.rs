//! The `skinweights` command line: thin drivers over the library.

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use skinweights::compare::{
    compare_solved, figure_panels, solve_all, CompareRow, Comparison, DEFAULT_SOLVERS,
};
use skinweights::io::dragonbones::{load_dragonbones, save_dragonbones};
use skinweights::io::{
    export_gltf, import_gltf, load_scene, save_scene, sprite_scene, BonesFile, GltfOptions, Sprite,
    SpriteOptions, TraceOptions, DEFAULT_MIN_AREA, DEFAULT_THRESHOLD, DEFAULT_TOLERANCE,
    GLTF_INFLUENCES,
};
use skinweights::lint::{lint, LintOptions};
use skinweights::mesh::MeshingOptions;
use skinweights::metrics::evaluate;
use skinweights::plot::{save_figure, Grid};
use skinweights::scene::{builtin_scene, BuiltinOptions, BUILTIN_SCENES};
use skinweights::solvers::solver_by_name;
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
    ///
    /// With no arguments: built-in arms-down (~10k vertices), solvers linear, euclidean,
    /// geodesic, heat, mask, heat+mask, probe lift_l. Prints a Markdown table and writes
    /// compare.md, compare.csv, compare.json and overview.png/.svg (weight maps and probe
    /// poses, one column per solver) to --out.
    Compare {
        #[command(flatten)]
        scene: SceneArg,
        /// Comma-separated solver names.
        #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_SOLVERS.iter().map(|s| s.to_string()))]
        solvers: Vec<String>,
        /// Probe to measure (default: the scene's first probe).
        #[arg(long)]
        probe: Option<String>,
        /// Directory for the table files and figures.
        #[arg(long, default_value = "results/compare")]
        out: PathBuf,
        /// Print JSON instead of the Markdown table.
        #[arg(long)]
        json: bool,
        /// Skip the figures (tables only).
        #[arg(long)]
        no_figures: bool,
    },
    /// Compute weights with one solver and write a weights file.
    ///
    /// Example: `skinweights solve arms-down --solver heat+mask --max-influences 4 -o w.json`
    #[command(after_long_help = SOLVER_OPTIONS_HELP)]
    Solve {
        #[command(flatten)]
        scene: SceneArg,
        /// Solver: linear, euclidean, geodesic, heat, mask, or SOLVER+mask.
        #[arg(long)]
        solver: String,
        /// Solver option as key=value (repeatable), e.g. --option falloff_power=2.
        #[arg(long = "option", value_name = "KEY=VALUE")]
        options: Vec<String>,
        /// Keep at most K influences per vertex (largest first, then renormalize).
        #[arg(long)]
        max_influences: Option<usize>,
        /// Output weights file (JSON).
        #[arg(short, long)]
        output: PathBuf,
        /// Overwrite the output file if it exists.
        #[arg(long)]
        force: bool,
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
    /// Write a scene and its weights in another tool's format.
    ///
    /// gltf: a .gltf file with an embedded buffer (mesh at z = 0, one node per bone, a skin,
    /// the 4 largest influences per vertex, sorted then renormalized) for Blender, three.js
    /// and Godot.
    /// dragonbones: DragonBones 5.5 JSON, the armature in the rest pose and one weighted mesh
    /// display per part.
    ///
    /// Examples: `skinweights export gltf figure.json heat.json -o figure.gltf --scale 0.01`,
    /// `skinweights export dragonbones body.json heat.json -o body_heat_ske.json`
    Export {
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
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        #[command(flatten)]
        builtin: BuiltinArgs,
    },
    /// Read a skinned mesh made by another tool into a scene file (and its weights).
    ///
    /// gltf: the first node with a mesh and a skin; the mesh must lie in a plane z = const.
    /// dragonbones: the armature (bind pose as rest skeleton), one part per mesh display, the
    /// artist's weights (written to SCENE.artist.json unless --weights says otherwise), and
    /// `lift_l` / `lift_r` probes; prints what was imported and repaired.
    ///
    /// Examples: `skinweights import gltf data/khronos-simpleskin/SimpleSkin.gltf -o skin.json --weights skin_w.json`,
    /// `skinweights import dragonbones data/dragonbones-you-xin/body_ske.json -o body.json`
    Import {
        /// Input format.
        format: ImportFormat,
        /// Input file.
        file: PathBuf,
        /// Output scene file (JSON).
        #[arg(short, long)]
        output: PathBuf,
        /// Also write the file's weights (skinweights.weights/1 JSON); DragonBones default:
        /// SCENE.artist.json next to the scene.
        #[arg(long)]
        weights: Option<PathBuf>,
        /// Overwrite the output files if they exist.
        #[arg(long)]
        force: bool,
    },
    /// Trace a sprite's alpha channel and mesh it around its bones into a scene file.
    ///
    /// Marching squares on the alpha channel, Douglas-Peucker simplification, then the
    /// mesher with the bones as constraint edges. Holes and separate islands are kept.
    /// Coordinates: 1 unit = 1 pixel, y up, origin at the image's bottom-left corner; the
    /// bones file uses the same frame. BONES.json holds the scene file's `bones` list and
    /// optionally `parts` ([{"part": NAME, "polygon": [[x, y], ...]}], first match wins)
    /// and `probes`. Bones that run outside the traced shape are reported.
    ///
    /// Example: `skinweights mesh data/kenney-toon/robot_idle.png --bones
    /// data/kenney-toon/robot_idle_bones.json -o robot.json && skinweights compare robot.json`
    Mesh {
        /// Sprite image (PNG with an alpha channel).
        sprite: PathBuf,
        /// Bones file (JSON): bones, optional parts and probes.
        #[arg(long)]
        bones: PathBuf,
        /// Output scene file (JSON).
        #[arg(short, long)]
        output: PathBuf,
        /// A pixel is opaque when its alpha is at least this (1-255).
        #[arg(long, default_value_t = DEFAULT_THRESHOLD)]
        threshold: u8,
        /// Outline simplification tolerance in pixels (0 keeps every traced point).
        #[arg(long, default_value_t = DEFAULT_TOLERANCE)]
        tolerance: f64,
        /// Islands and holes whose traced area is under this many square pixels are dropped
        /// (marching squares traces n pixels as n - 1/2 px², so 2 x 2 pixels = 3.5).
        #[arg(long, default_value_t = DEFAULT_MIN_AREA)]
        min_area: f64,
        /// Approximate vertex count of the mesh.
        #[arg(long, default_value_t = 10_000)]
        vertices: usize,
        /// Overwrite the output file if it exists.
        #[arg(long)]
        force: bool,
    },
}

/// The `--option` keys of every solver, with their defaults (`SOLVER+mask` takes the base
/// solver's keys).
const SOLVER_OPTIONS_HELP: &str = "Solver options (--option KEY=VALUE):
  linear     blend_radius=R      half-width of the joint blend in px (default: blend_fraction x height)
             blend_fraction=F    blend radius as a fraction of the character height (default 0.1)
             tie_tolerance=T     relative distance under which bones tie for nearest (default 1e-9)
  euclidean  falloff_power=P     w ~ 1/d^P (default 4)
  geodesic   falloff_power=P     w ~ 1/d^P on the distance inside the shape (default 4)
  heat       tie_tolerance=T     bones within this fraction of the nearest distance share the heat (default 1e-6)
             distance_floor=F    nearest-bone distances floored at F x scene size (default 1e-6)
             visibility=BOOL     2D visibility test; false = every bone visible, as a 3D tool on a flat mesh (default true)
             ordering=nd|amd     Cholesky ordering: nested dissection or faer's AMD (default nd)
             parallel_bones=BOOL solve bones in blocks on threads (default true)
  SOLVER+mask                    the base solver's keys; mask = euclidean+mask";

/// Formats `skinweights export` writes.
#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
    /// glTF 2.0 (.gltf with an embedded buffer).
    Gltf,
    /// DragonBones 5.5 JSON: one weighted mesh display per part.
    Dragonbones,
}

/// Formats `skinweights import` reads.
#[derive(Clone, Copy, ValueEnum)]
enum ImportFormat {
    /// glTF 2.0 (.gltf; buffers embedded or beside it).
    Gltf,
    /// DragonBones 5.5 JSON (`*_ske.json`): armature, mesh displays, artist weights.
    Dragonbones,
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
/// Like [`check_output`] for every output, and also refuses two outputs on one path or an
/// output on one of the command's inputs (even with --force: the input would be lost while
/// the command still needs it).
fn check_outputs(inputs: &[&Path], outputs: &[&Path], force: bool) -> Result<(), Error> {
    for (i, out) in outputs.iter().enumerate() {
        if inputs.iter().any(|input| same_path(input, out)) {
            return Err(Error::field(
                "output",
                format!(
                    "{} is also an input of this command; write to another path",
                    out.display()
                ),
            ));
        }
        if outputs[..i].iter().any(|other| same_path(other, out)) {
            return Err(Error::field(
                "output",
                format!("two outputs of this command go to {}", out.display()),
            ));
        }
        check_output(out, force)?;
    }
    Ok(())
}

/// Whether two paths name the same file (resolved through the file system when both exist).
fn same_path(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => match (std::path::absolute(a), std::path::absolute(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        },
    }
}

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

/// Splits `key=value` solver options.
fn parse_options(raw: &[String]) -> Result<Vec<(String, String)>, Error> {
    raw.iter()
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                Ok((k.trim().to_string(), v.trim().to_string()))
            }
            _ => Err(Error::field("--option", format!("{kv:?} is not KEY=VALUE"))),
        })
        .collect()
}

fn run_compare(
    scene_arg: &SceneArg,
    solvers: &[String],
    probe: Option<&str>,
    out: &Path,
    json: bool,
    no_figures: bool,
) -> Result<ExitCode, Error> {
    let scene = resolve_scene(scene_arg.scene.as_deref(), &scene_arg.builtin)?;
    // Validate names and the probe before spending time on solves.
    for name in solvers {
        solver_by_name(name, &[])?;
    }
    let probe_ref = scene.probe(probe)?;
    let steps = solvers.len() as u64 + if no_figures { 0 } else { 1 };
    let pb = ProgressBar::new(steps);
    pb.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} ({elapsed})")
            .expect("valid template"),
    );
    let solved = solve_all(&scene, solvers, |i, name| {
        pb.set_position(i as u64);
        pb.set_message(format!("solving {name}"));
    })?;
    pb.set_position(solvers.len() as u64);
    let table = compare_solved(&scene, &solved, Some(&probe_ref.name))?;
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let write = |name: &str, text: String| -> Result<(), Error> {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| Error::io(path, e))
    };
    write("compare.md", table.to_markdown())?;
    write("compare.csv", table.to_csv())?;
    write("compare.json", table.to_json()?)?;
    if !no_figures {
        pb.set_message("drawing figures");
        // One colour scale for every pose panel, so the panels compare at a glance.
        let scale = table
            .rows
            .iter()
            .map(|r| r.metrics.drag_max_pct)
            .fold(1.0, f64::max);
        let mut weight_row = Vec::new();
        let mut pose_row = Vec::new();
        for s in &solved {
            let [w, p] = figure_panels(&scene, &s.weights, &s.solver, probe_ref, scale)?;
            weight_row.push(w);
            pose_row.push(p);
        }
        let n = solved.len();
        let panels: Vec<_> = weight_row.into_iter().chain(pose_row).collect();
        let grid = Grid {
            panels: &panels,
            columns: n.max(1),
        };
        let size = (440 * n.max(1) as u32, 900);
        save_figure(&grid, out.join("overview.png"), size)?;
        save_figure(&grid, out.join("overview.svg"), size)?;
        pb.inc(1);
    }
    pb.finish_and_clear();
    for r in &table.rows {
        for w in &r.warnings {
            eprintln!("warning: {}: {w}", r.solver);
        }
    }
    if json {
        println!("{}", table.to_json()?);
    } else {
        print!("{}", table.to_markdown());
        println!(
            "\nwrote {}/compare.{{md,csv,json}}{}",
            out.display(),
            if no_figures {
                ""
            } else {
                " and overview.{png,svg}"
            }
        );
    }
    Ok(ExitCode::SUCCESS)
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
            check_outputs(&[Path::new(&scene), &weights], &[&output], force)?;
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
        Command::Compare {
            scene,
            solvers,
            probe,
            out,
            json,
            no_figures,
        } => run_compare(&scene, &solvers, probe.as_deref(), &out, json, no_figures),
        Command::Solve {
            scene,
            solver,
            options,
            max_influences,
            output,
            force,
        } => {
            let input: Vec<&Path> = scene.scene.iter().map(Path::new).collect();
            check_outputs(&input, &[&output], force)?;
            let scene = resolve_scene(scene.scene.as_deref(), &scene.builtin)?;
            let options = parse_options(&options)?;
            let solver_impl = solver_by_name(&solver, &options)?;
            let pb = spinner(format!(
                "{solver} on {} ({} vertices)",
                scene.name,
                scene.mesh.vertex_count()
            ));
            let solution = solver_impl.solve(&scene);
            pb.finish_and_clear();
            let solution = solution?;
            let mut weights = solution.weights;
            if let Some(k) = max_influences {
                if k == 0 {
                    return Err(Error::field("--max-influences", "must be at least 1"));
                }
                weights = weights.top_k(k);
            }
            for w in &solution.report.warnings {
                eprintln!("warning: {w}");
            }
            WeightsFile::new(&scene.name, &solver, scene.skeleton.names(), &weights)
                .save(&output)?;
            println!(
                "wrote {}: {} vertices x {} bones, {solver} in {:.3} s",
                output.display(),
                weights.vertex_count(),
                weights.bone_count(),
                solution.report.seconds
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Export {
            format,
            scene,
            weights,
            output,
            force,
            scale,
            builtin,
        } => {
            check_outputs(&[Path::new(&scene), &weights], &[&output], force)?;
            let scene = resolve_scene(Some(&scene), &builtin)?;
            let w = load_weights_for(&scene, &weights)?;
            match format {
                ExportFormat::Gltf => {
                    let options = GltfOptions {
                        scale,
                        ..Default::default()
                    };
                    let text = export_gltf(&scene, &w, &options)?;
                    std::fs::write(&output, text).map_err(|e| Error::io(&output, e))?;
                    // glTF holds 4 influences per vertex: say what the truncation cost.
                    let dropped = w.top_k_dropped(GLTF_INFLUENCES);
                    let cut: Vec<(usize, f64)> = dropped
                        .iter()
                        .copied()
                        .enumerate()
                        .filter(|&(_, d)| d > 0.0)
                        .collect();
                    if let Some(&(worst, most)) = cut.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
                        let mean = cut.iter().map(|c| c.1).sum::<f64>() / cut.len() as f64;
                        eprintln!(
                            "note: glTF keeps {GLTF_INFLUENCES} influences per vertex: {} vertices had more; \
                             the weight dropped before renormalizing is {:.1}% on average over them, \
                             at most {:.1}% (vertex {worst}). Solve with --max-influences {GLTF_INFLUENCES} \
                             to eval and plot exactly what the file holds.",
                            cut.len(),
                            100.0 * mean,
                            100.0 * most
                        );
                    }
                    println!(
                        "wrote {}: {} vertices, {} triangles, {} joints",
                        output.display(),
                        scene.mesh.vertex_count(),
                        scene.mesh.triangle_count(),
                        scene.skeleton.len()
                    );
                }
                ExportFormat::Dragonbones => {
                    if scale != 1.0 {
                        return Err(Error::field(
                            "--scale",
                            "only glTF export scales coordinates (DragonBones keeps pixels)",
                        ));
                    }
                    save_dragonbones(&scene, &w, &output)?;
                    println!(
                        "wrote {}: {} parts as weighted mesh displays, {} bones",
                        output.display(),
                        scene.mesh.parts().len(),
                        scene.skeleton.len()
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Import {
            format,
            file,
            output,
            weights,
            force,
        } => {
            // A DragonBones file always carries the artist's weights: write them by default.
            let weights = match (format, weights) {
                (_, Some(w)) => Some(w),
                (ImportFormat::Dragonbones, None) => Some(output.with_extension("artist.json")),
                (ImportFormat::Gltf, None) => None,
            };
            let mut outputs: Vec<&Path> = vec![&output];
            outputs.extend(weights.as_deref());
            check_outputs(&[&file], &outputs, force)?;
            let (scene, file_weights) = match format {
                ImportFormat::Gltf => {
                    let imported = import_gltf(&file)?;
                    for n in &imported.notes {
                        eprintln!("note: {}: {n}", file.display());
                    }
                    (imported.scene, imported.weights)
                }
                ImportFormat::Dragonbones => {
                    let imported = load_dragonbones(&file)?;
                    print!("{}", imported.report);
                    let artist = imported.artist_file();
                    (imported.scene, Some(artist))
                }
            };
            // Check before writing anything, so a failed import leaves no half output.
            let weights_out = match (&weights, &file_weights) {
                (Some(path), Some(w)) => Some((path, w)),
                (Some(_), None) => {
                    return Err(Error::field(
                        "--weights",
                        format!("{} has no JOINTS_0 / WEIGHTS_0", file.display()),
                    ))
                }
                (None, _) => None,
            };
            save_scene(&scene, &output)?;
            println!(
                "wrote {}: {} vertices, {} triangles, {} bones",
                output.display(),
                scene.mesh.vertex_count(),
                scene.mesh.triangle_count(),
                scene.skeleton.len()
            );
            if let Some((path, w)) = weights_out {
                w.save(path)?;
                println!("wrote {}", path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Mesh {
            sprite,
            bones,
            output,
            threshold,
            tolerance,
            min_area,
            vertices,
            force,
        } => {
            check_outputs(&[&sprite, &bones], &[&output], force)?;
            let image = Sprite::load(&sprite)?;
            let bones = BonesFile::load(&bones)?;
            let options = SpriteOptions {
                trace: TraceOptions {
                    threshold,
                    tolerance,
                    min_area,
                },
                meshing: MeshingOptions {
                    target_vertices: vertices,
                    ..MeshingOptions::default()
                },
                name: None,
            };
            let pb = spinner(format!("tracing and meshing {}", sprite.display()));
            let result = sprite_scene(&image, bones, &options);
            pb.finish_and_clear();
            let (scene, trace, notes) = result?;
            for n in notes {
                eprintln!("note: {}: {n}", sprite.display());
            }
            save_scene(&scene, &output)?;
            println!(
                "wrote {}: {} vertices, {} triangles, {} components, {} bones, {} probes; \
                 outline: {} loops, {} of {} traced points kept, area {:.1} px² ({:.1} traced) \
                 for {} opaque pixels",
                output.display(),
                scene.mesh.vertex_count(),
                scene.mesh.triangle_count(),
                scene.mesh.topology().component_count(),
                scene.skeleton.len(),
                scene.probes.len(),
                trace.outline.loops.len(),
                trace.kept_points(),
                trace.traced_points,
                trace.outline.area(),
                trace.traced_area,
                trace.opaque_pixels
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
