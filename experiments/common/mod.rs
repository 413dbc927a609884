//! Shared plumbing of the experiment binaries: arguments, output files, figures, progress.
//! Each experiment includes it with `mod common;`; not every binary uses every helper.
#![allow(dead_code)]

use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use skinweights::plot::{save_figure, Figure};
use std::path::{Path, PathBuf};

/// An experiment's error: a message for the user (binaries print it and exit with 1).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
/// Result of an experiment step.
pub type Res<T> = std::result::Result<T, BoxError>;

/// Command-line options every experiment accepts.
#[derive(Debug, Clone, clap::Args)]
pub struct CommonArgs {
    /// Output directory (default: results/NAME under the repository root).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// A fast, small run (coarser meshes, fewer points) to check the pipeline; its numbers
    /// are not the published ones.
    #[arg(long)]
    pub quick: bool,
}

impl CommonArgs {
    /// The output directory, created if missing.
    pub fn out_dir(&self, name: &str) -> Res<PathBuf> {
        let dir = self
            .out
            .clone()
            .unwrap_or_else(|| repo_root().join("results").join(name));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create output directory {}: {e}", dir.display()))?;
        Ok(dir)
    }
}

/// The repository root (the workspace's, where `data/` and `results/` are): this crate's
/// manifest is `experiments/Cargo.toml`, one folder below.
pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("experiments/ has a parent folder")
}

/// Writes `text` to `dir/file`.
pub fn write_text(dir: &Path, file: &str, text: &str) -> Res<PathBuf> {
    let path = dir.join(file);
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// Writes `value` as pretty JSON to `dir/file`.
pub fn write_json<T: Serialize>(dir: &Path, file: &str, value: &T) -> Res<PathBuf> {
    let text = serde_json::to_string_pretty(value)?;
    write_text(dir, file, &(text + "\n"))
}

/// Draws `figure` to `dir/stem.png` and `dir/stem.svg` at `size` pixels.
pub fn save_png_svg<F: Figure>(figure: &F, dir: &Path, stem: &str, size: (u32, u32)) -> Res<()> {
    for ext in ["png", "svg"] {
        let path = dir.join(format!("{stem}.{ext}"));
        save_figure(figure, &path, size)
            .map_err(|e| format!("cannot draw {}: {e}", path.display()))?;
    }
    Ok(())
}

/// A progress bar with a message, on stderr.
pub fn progress(len: u64, message: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:<28} [{bar:30}] {pos}/{len} {elapsed_precise} {wide_msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_message(message.to_string());
    bar
}

/// A number for CSV: plain `Display` for finite values, `inf`/`nan` spelled out.
pub fn csv_num(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else if v.is_nan() {
        "nan".into()
    } else if v > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

/// JSON-safe number: `None` (null) for non-finite values.
pub fn json_num(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

pub mod boost;
pub mod logit;
#[cfg(feature = "internals")]
pub mod recipe;
pub mod rig_chart;
pub mod rigs;
#[path = "../../src/cli/sigpipe.rs"]
mod sigpipe;
pub mod stats;

/// Runs an experiment's body and turns an error into a message and exit code 1.
pub fn main_with(run: impl FnOnce() -> Res<()>) -> std::process::ExitCode {
    sigpipe::die_quietly_on_broken_pipe();
    let started = std::time::Instant::now();
    match run() {
        Ok(()) => {
            eprintln!("done in {:.1} s", started.elapsed().as_secs_f64());
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(1)
        }
    }
}

/// A chart or a mesh panel, so both can share one [`skinweights::plot::Grid`].
pub enum AnyFigure {
    /// A line chart.
    Chart(skinweights::plot::LineChart),
    /// A weight map or posed mesh.
    Mesh(skinweights::plot::Panel),
}

impl Figure for AnyFigure {
    fn draw<DB: plotters::prelude::DrawingBackend>(
        &self,
        area: &plotters::drawing::DrawingArea<DB, plotters::coord::Shift>,
    ) -> skinweights::Result<()> {
        match self {
            AnyFigure::Chart(c) => c.draw(area),
            AnyFigure::Mesh(p) => p.draw(area),
        }
    }
}

/// The arms-down scene with gap `gap` and about `vertices` vertices.
pub fn arms_down(gap: f64, vertices: usize) -> Res<skinweights::scene::Scene> {
    Ok(skinweights::scene::builtin_scene(
        "arms-down",
        &skinweights::scene::BuiltinOptions::default()
            .with_gap(Some(gap))
            .with_vertices(vertices),
    )?)
}

/// The solvers the sweeps run, in table order: the registry's baselines (the sweeps measure
/// the seeds' methods; `best` and `bbw` have experiments of their own, pareto and scaling).
pub fn all_solvers() -> Vec<String> {
    skinweights::solvers::with_role(skinweights::solvers::Role::Baseline)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// One solver's line in a chart. `heat+mask` is dashed: it lies on top of `mask` (leakage, both
/// 0) or of `heat` (timings), and a dashed line lets both show.
pub fn solver_series(solver: &str, points: Vec<(f64, f64)>) -> skinweights::plot::Series {
    let line = skinweights::plot::Series::new(solver, points);
    if solver == "heat+mask" {
        line.dashed()
    } else {
        line
    }
}

/// The shipped sprites the experiments trace: (scene label, PNG, bones file), relative to
/// `data/`.
pub const SPRITES: [(&str, &str, &str); 4] = [
    (
        "femaleAdventurer",
        "kenney-toon/femaleAdventurer_idle.png",
        "kenney-toon/femaleAdventurer_idle_bones.json",
    ),
    (
        "malePerson",
        "kenney-toon/malePerson_idle.png",
        "kenney-toon/malePerson_idle_bones.json",
    ),
    (
        "robot",
        "kenney-toon/robot_idle.png",
        "kenney-toon/robot_idle_bones.json",
    ),
    ("gBot", "godot-gbot/gBot.png", "godot-gbot/gBot_bones.json"),
];

/// Every sprite of [`SPRITES`] traced as `skinweights mesh` does, at about `vertices`
/// vertices, with its bones file's bones, parts and probes; named by its label.
pub fn traced_sprites(vertices: usize) -> Res<Vec<skinweights::scene::Scene>> {
    SPRITES
        .iter()
        .map(|(label, png, bones)| traced_sprite(label, png, bones, vertices))
        .collect()
}

/// The sprite `png` traced as `skinweights mesh` does with the bones file `bones` (both
/// relative to `data/`), at about `vertices` vertices, named `label`.
pub fn traced_sprite(
    label: &str,
    png: &str,
    bones: &str,
    vertices: usize,
) -> Res<skinweights::scene::Scene> {
    use skinweights::io::{sprite_scene, BonesFile, Sprite, SpriteOptions};
    let data = repo_root().join("data");
    let sprite = Sprite::load(data.join(png))?;
    let mut options = SpriteOptions::default();
    options.meshing.target_vertices = vertices;
    options.name = Some(label.to_string());
    let (scene, _, _) = sprite_scene(&sprite, BonesFile::load(data.join(bones))?, &options)?;
    Ok(scene)
}
