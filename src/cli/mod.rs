//! The `skinweights` command line: one file per command, each a thin driver over the
//! library; this file holds the command list and what several commands share (scene
//! arguments, output checks, progress spinners).

mod batch;
mod bleed;
mod bones;
mod compare;
mod correct;
mod error;
mod eval;
mod export;
mod format_arg;
mod import;
mod lint;
mod mesh;
mod plot;
mod pose;
mod render;
mod repair;
mod scene;
mod sigpipe;
mod solve;
mod transfer;
mod view;
mod warnings;
mod wrong_file;

use crate::cli::error::{CliError, Result};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use skinweights::io::{is_stdout, load_scene, output_kind, OutputKind, WeightsFile};
use skinweights::scene::Scene;
use skinweights::scene::{builtin_scene, BuiltinOptions, BUILTIN_SCENES};
use skinweights::weights::Weights;
use skinweights::Error;
use skinweights::{ArgumentError, OutputError};
use std::path::Path;
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
    /// With no arguments: built-in arms-down (~10k vertices), every solver listed below (the
    /// registry's; `best` is the recommended one, `bbw` the optimum reference), probe lift_l.
    /// Prints a Markdown table and writes compare.md, compare.csv, compare.json and
    /// overview.png/.svg (weight maps and probe poses, one column per solver) to --out, which
    /// must not hold them already unless --force is given.
    #[command(after_long_help = skinweights::solvers::solvers_help())]
    Compare(compare::CompareArgs),
    /// Compute weights with one solver and write a weights file.
    ///
    /// Without --solver it runs `best`, the recommended solver. Example: `skinweights solve
    /// arms-down --max-influences 4 -o w.json` (`-o -` prints the file).
    #[command(after_long_help = format!(
        "{}\n{}",
        skinweights::solvers::solvers_help(),
        skinweights::solvers::options_help()
    ))]
    Solve(solve::SolveArgs),
    /// Score weights made by any tool: every metric on a probe of the scene.
    ///
    /// Example: `skinweights eval arms.json blender_weights.json --probe lift_l --json`
    Eval(eval::EvalArgs),
    /// Print every bone's local and world transform in a frame of a clip (or the setup pose).
    ///
    /// Example: `skinweights pose hero.json --clip walk --time 0.5 --json`
    Pose(pose::PoseArgs),
    /// Run the table of checks (bind identity, normalization, continuity, extreme poses; the
    /// pixel edge of the art when the scene has art).
    ///
    /// Prints PASS/FAIL per check with the measured number and what to inspect first. Exit
    /// code 1 when a check of the weights fails; 4 when the weights pass and only a
    /// pixel-edge check of the art fails.
    Lint(lint::LintArgs),
    /// Draw the weight map and the probe pose of a weights file (PNG or SVG by extension).
    Plot(plot::PlotArgs),
    /// Generate a built-in scene and write it as a scene file.
    ///
    /// Example: `skinweights scene arms-down --gap 12 --vertices 20000 -o arms.json`
    Scene(scene::SceneArgs),
    /// Write a scene and its weights in another tool's format.
    ///
    /// gltf: a .gltf file with an embedded buffer, or binary glTF for `-o X.glb` (mesh at
    /// z = 0, one node per bone, a skin, the 4 largest influences per vertex, sorted then
    /// renormalized) for Blender, three.js and Godot.
    /// dragonbones: DragonBones 5.5 JSON, the armature in the rest pose and one weighted mesh
    /// display per part.
    /// godot: a Godot .tscn (--godot 4, the default, or 3): Skeleton2D with Bone2D rest poses,
    /// one Polygon2D per part (outline + internal vertices, triangles as polygons, every
    /// bone's weights, texture and UVs when the scene has art; put the image beside the file).
    ///
    /// Examples: `skinweights export gltf figure.json heat.json -o figure.gltf --scale 0.01`,
    /// `skinweights export dragonbones body.json heat.json -o body_heat_ske.json`,
    /// `skinweights export godot gbot.json heat.json -o gbot_heat.tscn --godot 3`
    Export(export::ExportArgs),
    /// Read a skinned mesh made by another tool into a scene file (and its weights).
    ///
    /// gltf: the first node with a mesh and a skin; the mesh must lie in a plane z = const.
    /// dragonbones: the armature (bind pose as rest skeleton), one part per mesh display, the
    /// artist's weights (written to SCENE.artist.json unless --weights says otherwise), and
    /// `lift_l` / `lift_r` probes; prints what was imported and repaired.
    /// godot: a Godot 3 or 4 .tscn: the Skeleton2D's bones at rest, one part per Polygon2D,
    /// the texture and UVs, the painted weights (written to SCENE.artist.json unless
    /// --weights says otherwise); prints what was imported and repaired.
    ///
    /// Examples: `skinweights import gltf data/khronos-simpleskin/SimpleSkin.gltf -o skin.json --weights skin_w.json`,
    /// `skinweights import dragonbones data/dragonbones-you-xin/body_ske.json -o body.json`,
    /// `skinweights import godot data/godot-gbot/player.tscn -o gbot.json`
    Import(import::ImportArgs),
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
    Mesh(mesh::MeshArgs),
    /// Pose a scene with its weights and draw it with its art; print the fringe numbers.
    ///
    /// A CPU rasterizer that draws as a GPU does (top-left fill rule, N x N samples, bilinear
    /// textures, layers blended 'over'). The fringe numbers compare the render over black and
    /// white with a premultiplied 8 x 8 reference (triangulation matting): bias S (negative:
    /// dark fringe, positive: bright), F (worst edge colour error) and gap G (background
    /// showing through); the red check compares the render over red with what black and white
    /// predict. --matting DIR writes the renders they come from.
    ///
    /// Example: `skinweights render robot.json robot_heat.json --probe lift_l --scale 4
    /// --background white --alpha straight -o robot.png`
    Render(render::RenderArgs),
    /// Alpha repairs for a PNG: bleed colour into the fully transparent texels (ring by ring
    /// from the visible ones; alpha and visible texels unchanged), optionally premultiply.
    ///
    /// Example: `skinweights bleed arm.png -o arm_bled.png --rings 4`
    Bleed(bleed::BleedArgs),
    /// The interactive demo in the browser: pose any scene, switch solver and skinning,
    /// read compare's metrics live (a server on 127.0.0.1; --html writes one shareable file).
    ///
    /// Examples: `skinweights view` (the two-bone bar, linear falloff, blend width 48, joint
    /// angle 55), `skinweights view arms-down --port 8080`,
    /// `skinweights view arms-down --html arms.html`
    View(view::ViewArgs),
    /// Seam repairs for layered art (the crack at the elbow), in the production order, and
    /// seam-consistent weights.
    ///
    /// Steps (each prints what it changed): --merge-islands AREA (islands under AREA px^2 join
    /// the neighbour with the closest colour, small holes close), --weld TOL (layer boundaries
    /// that meet become coincident seam vertices, T-junctions resolved), --overlap PX (back
    /// layers extend PX under the front layer along each seam; the silhouette stays put).
    /// With --solver NAME --weights OUT.json: weights solved on the layers joined at their
    /// seams, so seam vertices get identical weights (and --smooth-seams smooths them in a
    /// band around the seams). Alpha repairs are the `bleed` command.
    ///
    /// Example: `skinweights repair elbow.json --weld 0.5 --overlap 1.5 --solver heat
    /// --weights elbow_w.json --smooth-seams -o elbow_fixed.json && skinweights lint
    /// elbow_fixed.json elbow_w.json`
    Repair(repair::RepairArgs),
    /// Fit automatic corrective shapes for joints and write them into the scene file.
    ///
    /// For each key angle the joint is bent (every other bone at rest) and the band around it
    /// is fitted as rigidly as possible to the rest shape, the rest held where linear blend
    /// skinning puts it; the offsets from LBS are stored in the scene's `correctives`
    /// (docs/correctives.md). `render`, `eval --clip`, `view` and `export` (Spine deform,
    /// DragonBones FFD, glTF morph targets) then use them with the same weights.
    ///
    /// Example: `skinweights correct bar.json --weights bar_w.json --joint lower --angles
    /// 90,150 -o bar_corrected.json`
    Correct(correct::CorrectArgs),
    /// Weights for many characters: folders, globs or manifests of scene files, rigs
    /// (Spine, Creature, DragonBones, Godot, glTF) and sprites with bones, on every core.
    ///
    /// Per item and solver: solve (the same weights as `solve`), write the weights to --out,
    /// optionally export the rig with them (--export), lint, score against the artist
    /// (--reference artist). One row each in OUT/report.csv and OUT/report.json; a bad item
    /// is a row with its error and the batch goes on. A re-run (even after a kill) reuses
    /// the rows done (OUT/.batch). Exit code 0 when every row is ok, 3 when some failed
    /// (docs/batch.md).
    ///
    /// Example: `skinweights batch data/spine data/kenney-toon --out weights --export
    /// --reference artist`
    Batch(batch::BatchArgs),
    /// Carry an artist's weights to the costumes of a rig: each target part (by default every
    /// unweighted attachment beside a weighted one in its slot) gets the weights of its
    /// sources at its vertices.
    ///
    /// Methods: `nearest` (the closest source point, barycentric interpolation; the default,
    /// chosen by leaving one source out) and `robust` (copy only where the target matches a
    /// source, Laplacian fill elsewhere). Source bones the target is not bound to are mapped
    /// to its bones; what no source covers is weighted from scratch by --solver, with a note.
    ///
    /// Examples: `skinweights transfer hero.json -o hero_dressed.json`, `skinweights transfer
    /// hero.json --to-skin winter --from skin:summer --weights winter.weights.json`
    Transfer(transfer::TransferArgs),
}

/// Parses the command line and runs the command; errors print as `error: ...` with exit code 2.
pub fn main() -> ExitCode {
    sigpipe::die_quietly_on_broken_pipe();
    match run(Cli::parse().command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs one parsed command.
fn run(command: Command) -> Result<ExitCode> {
    match command {
        Command::Compare(a) => compare::run(a),
        Command::Solve(a) => solve::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Pose(a) => pose::run(a),
        Command::Lint(a) => lint::run(a),
        Command::Plot(a) => plot::run(a),
        Command::Scene(a) => scene::run(a),
        Command::Export(a) => export::run(a),
        Command::Import(a) => import::run(a),
        Command::Mesh(a) => mesh::run(a),
        Command::Render(a) => render::run(a),
        Command::Bleed(a) => bleed::run(a),
        Command::View(a) => view::run(a),
        Command::Repair(a) => repair::run(a),
        Command::Correct(a) => correct::run(a),
        Command::Batch(a) => batch::run(a),
        Command::Transfer(a) => transfer::run(a),
    }
}

/// Options of the built-in scene generators.
#[derive(Args, Clone)]
pub struct BuiltinArgs {
    /// Gap between arm and torso in px (arms-down, layered-arms; default 12).
    #[arg(long)]
    pub gap: Option<f64>,
    /// Approximate vertex count of the generated mesh (default 10000).
    #[arg(long)]
    pub vertices: Option<usize>,
    /// How far the forearm layer reaches under the upper arm in px (layered-elbow; default
    /// 0: the contours touch exactly, the crack at the elbow).
    #[arg(long, value_name = "PX")]
    pub overlap: Option<f64>,
}

impl BuiltinArgs {
    /// Vertex count of a built-in scene when `--vertices` is not given.
    pub const DEFAULT_VERTICES: usize = 10_000;

    /// The vertex count asked for, or the default.
    pub fn vertices(&self) -> usize {
        self.vertices.unwrap_or(Self::DEFAULT_VERTICES)
    }

    /// The first generator option given, for the error when a scene file is read instead.
    fn given(&self) -> Option<&'static str> {
        if self.gap.is_some() {
            Some("--gap")
        } else if self.vertices.is_some() {
            Some("--vertices")
        } else if self.overlap.is_some() {
            Some("--overlap")
        } else {
            None
        }
    }
}

/// A scene given as a file or a built-in name.
#[derive(Args, Clone)]
pub struct SceneArg {
    /// Scene file (JSON) or built-in name (default: arms-down).
    pub scene: Option<String>,
    #[command(flatten)]
    pub builtin: BuiltinArgs,
}

/// A [`spinner`] that shows only once the work has taken [`SPINNER_DELAY`]: quick runs
/// print nothing, slow ones say what they are doing. Finish it with `finish_and_clear`.
pub fn spinner_after_delay(message: impl Into<String>) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::hidden());
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"),
    );
    pb.set_message(message.into());
    pb.enable_steady_tick(Duration::from_millis(120));
    let shown = pb.clone();
    std::thread::spawn(move || {
        std::thread::sleep(SPINNER_DELAY);
        if !shown.is_finished() {
            shown.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    });
    pb
}

/// How long work runs before [`spinner_after_delay`] shows.
pub const SPINNER_DELAY: Duration = Duration::from_secs(1);

pub fn spinner(message: impl Into<String>) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("valid template"),
    );
    pb.set_message(message.into());
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

/// Whether a scene argument means the built-in scene of that name: it is one, and no regular
/// file of that name is here (a folder of that name, such as `compare figure --out figure`
/// leaves, does not hide the built-in).
pub fn means_builtin(name: &str) -> bool {
    BUILTIN_SCENES.contains(&name) && !Path::new(name).is_file()
}

/// Loads a scene file, or generates a built-in scene by name. A name that is both a built-in
/// and a path here is resolved with a note: a file is read (the built-in is not used), a
/// folder is ignored (the built-in is used).
pub fn resolve_scene(name: Option<&str>, builtin: &BuiltinArgs) -> Result<Scene> {
    let name = name.unwrap_or("arms-down");
    let path = Path::new(name);
    let is_builtin = BUILTIN_SCENES.contains(&name);
    if is_builtin && path.is_dir() {
        eprintln!(
            "note: using the built-in scene {name:?}; the folder ./{name} is ignored (a scene \
             file inside it is {name}/SCENE.json)"
        );
    } else if path.is_dir() {
        return Err(CliError::InputIsDirectory {
            path: path.to_path_buf(),
            known: BUILTIN_SCENES.join(", "),
        });
    } else if path.exists() || name.ends_with(".json") {
        if let Some(argument) = builtin.given() {
            return Err(CliError::ConflictingArguments {
                argument,
                reason: format!(
                    "shapes a built-in scene, but {} is a scene file (it would be ignored)",
                    path.display()
                ),
            });
        }
        if is_builtin {
            eprintln!(
                "note: reading the scene file ./{name}, not the built-in scene {name:?} (rename \
                 the file to use the built-in)"
            );
        }
        let (scene, notes) = load_scene(path)
            .map_err(|e| wrong_file::explain(path, skinweights::io::FileKind::Scene, e))?;
        for n in notes {
            eprintln!("note: {}: {n}", path.display());
        }
        return Ok(scene);
    } else if !is_builtin {
        return Err(CliError::UnknownScene {
            name: name.to_string(),
            known: BUILTIN_SCENES.join(", "),
            server: None,
        });
    }
    let pb = spinner(format!("meshing {name} (~{} vertices)", builtin.vertices()));
    let scene = builtin_scene(
        name,
        &BuiltinOptions::default()
            .with_gap(builtin.gap)
            .with_vertices(builtin.vertices())
            .with_overlap(builtin.overlap),
    );
    pb.finish_and_clear();
    Ok(scene?)
}

/// Refuses to overwrite a file unless `force`.
/// Like [`check_output`] for every output, and also refuses two outputs on one path or an
/// output on one of the command's inputs (even with --force: the input would be lost while
/// the command still needs it).
pub fn check_outputs(inputs: &[&Path], outputs: &[&Path], force: bool) -> Result<()> {
    for (i, out) in outputs.iter().enumerate() {
        if is_stdout(out) {
            if outputs[..i].iter().any(|o| is_stdout(o)) {
                return Err(CliError::DuplicateOutput {
                    path: out.to_path_buf(),
                });
            }
            continue;
        }
        if inputs.iter().any(|input| same_path(input, out)) {
            return Err(CliError::OutputIsInput {
                path: out.to_path_buf(),
            });
        }
        if outputs[..i].iter().any(|other| same_path(other, out)) {
            return Err(CliError::DuplicateOutput {
                path: out.to_path_buf(),
            });
        }
        check_output(out, force)?;
    }
    Ok(())
}

/// Whether two paths name the same file (resolved through the file system when both exist;
/// two hard links to one file are the same file).
pub fn same_path(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return (x.dev(), x.ino()) == (y.dev(), y.ino());
        }
    }
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => match (std::path::absolute(a), std::path::absolute(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        },
    }
}

/// Refuses to write over data without `--force`: a regular file (also through a symlink) or
/// a block device. Standard output (`-`), a character device and a FIFO are written
/// through, replacing nothing, so they need no `--force`; a folder is refused.
pub fn check_output(path: &Path, force: bool) -> Result<()> {
    let kind = output_kind(path)?;
    if kind == OutputKind::Directory {
        return Err(OutputError::OutputIsDirectory {
            path: path.to_path_buf(),
        }
        .into());
    }
    if kind.holds_data() && !force {
        return Err(OutputError::WouldOverwrite {
            path: path.to_path_buf(),
        }
        .into());
    }
    Ok(())
}

/// Writes an image as a PNG through [`skinweights::io::write_atomic`] (so `-`, devices,
/// FIFOs and symlinks behave as for every other output). A path whose extension names
/// another image format (`.jpg`, `.bmp`, ...) is refused rather than written as a PNG under
/// a misleading name.
pub fn save_image<P>(im: &image::ImageBuffer<P, Vec<P::Subpixel>>, path: &Path) -> Result<()>
where
    P: image::PixelWithColorType,
    [P::Subpixel]: image::EncodableLayout,
{
    if let Ok(format) = image::ImageFormat::from_path(path) {
        if format != image::ImageFormat::Png {
            return Err(Error::from(OutputError::UnsupportedOutput {
                path: path.into(),
                extension: path
                    .extension()
                    .map(|e| e.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                supported: ".png".into(),
            })
            .into());
        }
    }
    let bytes = skinweights::io::encode_png(im, path)?;
    Ok(skinweights::io::write_atomic(path, bytes)?)
}

/// Prints a status line (`wrote ...`) on standard output, or on standard error when the
/// command's output goes to standard output (`-o -`), so the written file stays clean.
pub fn status(output: &Path, line: impl std::fmt::Display) {
    if is_stdout(output) {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
}

/// Loads a weights file and matches its bones to the scene's.
pub fn load_weights_for(scene: &Scene, path: &Path) -> Result<Weights> {
    let file = WeightsFile::load(path)
        .map_err(|e| wrong_file::explain(path, skinweights::io::FileKind::Weights, e))?;
    if file.scene != scene.name() {
        eprintln!(
            "note: {} was made for scene {:?}, scoring it on {:?}",
            path.display(),
            file.scene,
            scene.name()
        );
    }
    Ok(file.to_weights_for(&scene.skeleton().names(), scene.mesh().vertex_count())?)
}

/// Splits `key=value` solver options.
pub fn parse_options(raw: &[String]) -> Result<Vec<(String, String)>> {
    raw.iter()
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                Ok((k.trim().to_string(), v.trim().to_string()))
            }
            _ => Err(ArgumentError::InvalidArgument {
                argument: "--option",
                value: kv.clone(),
                reason: format!("{kv:?} is not KEY=VALUE"),
            }
            .into()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::error::CliError;
    use super::Cli;
    use clap::{CommandFactory, Parser};
    use skinweights::Error;
    use skinweights::{ArgumentError, SceneError};

    /// clap's own consistency checks (a debug build panics on them at parse time; release
    /// builds do not check): no flag defined twice.
    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// Runs `skinweights ARGS` in-process, returning the command's error.
    fn refusal(args: &[&str]) -> CliError {
        let cli = Cli::try_parse_from(std::iter::once("skinweights").chain(args.iter().copied()))
            .expect("the arguments parse");
        super::run(cli.command).expect_err("the command must be refused")
    }

    #[test]
    fn command_refusals_are_typed_variants_naming_the_value() {
        let dir = tempfile::tempdir().unwrap();
        let out = |name: &str| dir.path().join(name).display().to_string();
        match refusal(&["scene", "dragon", "-o", &out("x.json")]) {
            CliError::Lib(Error::Scene(SceneError::UnknownBuiltin { name, .. })) => {
                assert_eq!(name, "dragon")
            }
            e => panic!("{e:?}"),
        }
        match refusal(&["solve", "no-such-file", "-o", &out("w.json")]) {
            CliError::UnknownScene { name, server, .. } => {
                assert_eq!((name.as_str(), server), ("no-such-file", None))
            }
            e => panic!("{e:?}"),
        }
        let bar = ["--vertices", "500"];
        let solve = [
            "solve",
            "bar",
            "-o",
            &out("w.json"),
            "--max-influences",
            "0",
        ];
        match refusal(&[&solve[..], &bar[..]].concat()) {
            CliError::Lib(Error::Argument(ArgumentError::InvalidArgument {
                argument,
                value,
                ..
            })) => assert_eq!((argument, value.as_str()), ("--max-influences", "0")),
            e => panic!("{e:?}"),
        }
        let option = ["solve", "bar", "-o", &out("w.json"), "--option", "radius"];
        match refusal(&[&option[..], &bar[..]].concat()) {
            CliError::Lib(Error::Argument(ArgumentError::InvalidArgument {
                argument,
                value,
                ..
            })) => assert_eq!((argument, value.as_str()), ("--option", "radius")),
            e => panic!("{e:?}"),
        }
        match refusal(&["repair", "bar", "-o", &out("r.json")]) {
            CliError::Lib(Error::Argument(ArgumentError::MissingArgument { argument, .. })) => {
                assert_eq!(argument, "repair")
            }
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn every_clip_of_a_scene_without_clips_is_no_clips() {
        let options = skinweights::scene::BuiltinOptions::default().with_vertices(500);
        let scene = skinweights::scene::builtin_scene("bar", &options).unwrap();
        assert!(scene.clips().is_empty());
        match super::compare::chosen_clips(&scene, "all") {
            Err(CliError::NoClips { scene }) => assert_eq!(scene, "bar"),
            other => panic!("{:?}", other.map(|c| c.len())),
        }
    }

    #[test]
    fn import_weights_from_a_gltf_without_weights_is_no_file_weights() {
        use skinweights::io::{ExportOptions, Format};
        let dir = tempfile::tempdir().unwrap();
        let scene = skinweights::scene::builtin_scene(
            "bar",
            &skinweights::scene::BuiltinOptions::default().with_vertices(500),
        )
        .unwrap();
        let w = skinweights::solvers::solver_by_name("euclidean", skinweights::solvers::NO_OPTIONS)
            .unwrap()
            .solve(&scene)
            .unwrap()
            .weights;
        let gltf = Format::by_name("gltf").unwrap();
        let exported = gltf.export(&scene, &w, &ExportOptions::default()).unwrap();
        let mut doc: serde_json::Value = serde_json::from_slice(&exported.bytes).unwrap();
        for mesh in doc["meshes"].as_array_mut().unwrap() {
            for prim in mesh["primitives"].as_array_mut().unwrap() {
                let attributes = prim["attributes"].as_object_mut().unwrap();
                attributes.remove("JOINTS_0");
                attributes.remove("WEIGHTS_0");
            }
        }
        let file = dir.path().join("bare.gltf");
        std::fs::write(&file, doc.to_string()).unwrap();
        let args = [
            "import",
            "gltf",
            &file.display().to_string(),
            "-o",
            &dir.path().join("s.json").display().to_string(),
            "--weights",
            &dir.path().join("w.json").display().to_string(),
        ]
        .map(String::from);
        match refusal(&args.iter().map(String::as_str).collect::<Vec<_>>()) {
            CliError::NoFileWeights { path } => assert_eq!(path, file),
            e => panic!("{e:?}"),
        }
    }
}
