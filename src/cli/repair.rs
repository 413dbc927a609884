//! `skinweights repair`: the seam repairs on a layered scene (tiny components, weld, inward
//! overlap) and, with a solver, seam-consistent weights with optional limited smoothing.

use super::{check_outputs, parse_options, resolve_scene, spinner, BuiltinArgs};
use crate::cli::error::Result;
use clap::Args;
use skinweights::io::{save_scene, WeightsFile};
use skinweights::render::vertex_colours;
use skinweights::scene::Scene;
use skinweights::seams::repair::{
    repair, repaired_weights, RepairOptions, RepairReport, SmoothOptions,
};
use skinweights::solvers::solver_by_name;
use skinweights::ArgumentError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `repair`.
#[derive(Args)]
pub struct RepairArgs {
    /// Scene file or built-in name (e.g. layered-arms).
    scene: String,
    /// Step 1, shared boundary: weld boundaries of different layers that meet within TOL px
    /// into coincident seam vertices (T-junctions get a vertex on the other side). 0 welds
    /// only boundaries that already touch exactly.
    #[arg(long, value_name = "TOL")]
    weld: Option<f64>,
    /// Step 2, inward overlap: extend each back layer PX (1-2 is usual) under the layer
    /// in front along every welded seam; the outer silhouette does not move.
    #[arg(long, value_name = "PX")]
    overlap: Option<f64>,
    /// Asset Lab: merge islands smaller than AREA px^2 into the neighbour with the closest
    /// colour and close holes smaller than AREA (runs before the weld).
    #[arg(long, value_name = "AREA")]
    merge_islands: Option<f64>,
    /// Smooth the written weights in a band around the seams (outer silhouette untouched).
    #[arg(long, requires = "weights")]
    smooth_seams: bool,
    /// Last weight step: where layers a joint links overlap (an arm drawn over the body),
    /// blend both layers' weights in the overlap so they move together.
    #[arg(long, requires = "weights")]
    blend_overlaps: bool,
    /// Spine's Weld, recorded in the scene: every vertex of a layer under a layer in front
    /// of it that a joint links follows that layer's weights at its position, whichever
    /// solver solves the written scene later (docs/seams-model.md).
    #[arg(long)]
    weld_overlaps: bool,
    /// Width of the smoothing band, px.
    #[arg(long, value_name = "PX", default_value_t = SmoothOptions::default().band)]
    smooth_band: f64,
    /// Solver for the seam-consistent weights (solved on the layers joined at their seams).
    #[arg(long, requires = "weights")]
    solver: Option<String>,
    /// Solver option as key=value (repeatable).
    #[arg(long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Write seam-consistent weights of the repaired scene here (needs --solver).
    #[arg(long, value_name = "OUT.json", requires = "solver")]
    weights: Option<PathBuf>,
    /// Output scene file (image paths are rewritten relative to its folder).
    #[arg(short, long)]
    output: PathBuf,
    /// Overwrite output files that exist.
    #[arg(long)]
    force: bool,
    /// Built-in scenes: gap between arm and torso in px (arms-down, layered-arms).
    #[arg(long)]
    gap: Option<f64>,
    /// Built-in scenes: approximate vertex count (default 10000).
    #[arg(long)]
    vertices: Option<usize>,
    /// Built-in layered-elbow: how far the forearm layer reaches under the upper arm in px
    /// (the scene's own overlap; `--overlap` is the repair step, which other commands'
    /// `--overlap` is not).
    #[arg(long, value_name = "PX")]
    scene_overlap: Option<f64>,
}

impl RepairArgs {
    /// The built-in scene's options (`--scene-overlap` is the generators' `--overlap`).
    fn builtin(&self) -> BuiltinArgs {
        BuiltinArgs {
            gap: self.gap,
            vertices: self.vertices,
            overlap: self.scene_overlap,
        }
    }

    /// The repair steps the flags ask for.
    fn repair_options(&self) -> RepairOptions {
        RepairOptions::default()
            .with_weld(self.weld)
            .with_overlap(self.overlap)
            .with_merge_islands(self.merge_islands)
            .with_smooth_seams(self.smooth_seams)
            .with_smooth(SmoothOptions::default().with_band(self.smooth_band))
            .with_blend_overlaps(self.blend_overlaps)
            .with_weld_overlaps(self.weld_overlaps)
    }
}

/// `options` with the art's vertex colours when islands are merged in a scene with art (the
/// merge then joins each island to the neighbour of the closest colour).
fn with_art_colours(scene: &Scene, options: RepairOptions) -> skinweights::Result<RepairOptions> {
    match (options.merge_islands, scene.art()) {
        (Some(_), Some(art)) => {
            let colours = vertex_colours(scene, art)?;
            Ok(options.with_vertex_colours(Some(colours)))
        }
        _ => Ok(options),
    }
}

/// Runs `repair`.
pub fn run(a: RepairArgs) -> Result<ExitCode> {
    let input = Path::new(&a.scene);
    let inputs: Vec<&Path> = if input.exists() { vec![input] } else { vec![] };
    let mut outputs = vec![a.output.as_path()];
    outputs.extend(a.weights.as_deref());
    check_outputs(&inputs, &outputs, a.force)?;
    if a.weld.is_none()
        && a.overlap.is_none()
        && a.merge_islands.is_none()
        && a.weights.is_none()
        && !a.weld_overlaps
    {
        return Err(ArgumentError::MissingArgument {
            argument: "repair",
            reason: "nothing to do: give --weld TOL, --overlap PX, --merge-islands AREA or \
                     --weld-overlaps or --solver NAME --weights OUT.json (see skinweights \
                     repair --help)"
                .into(),
        }
        .into());
    }
    let scene = resolve_scene(Some(&a.scene), &a.builtin())?;
    let options = a.repair_options();
    let pb = spinner(format!(
        "repairing {} ({} vertices)",
        scene.name(),
        scene.mesh().vertex_count()
    ));
    let repaired = with_art_colours(&scene, options.clone()).and_then(|o| repair(&scene, &o));
    pb.finish_and_clear();
    let (fixed, report) = repaired?;
    if report != RepairReport::default() {
        println!("{report}");
    }
    if !fixed.seams().is_empty() {
        println!(
            "seams recorded in the scene: {} joints ({} vertices), {} welds; every solver joins \
             them (docs/seams-model.md)",
            fixed.seams().joints.len(),
            fixed.seams().joints.iter().map(Vec::len).sum::<usize>(),
            fixed.seams().welds.len()
        );
    }
    save_scene(&fixed, &a.output)?;
    println!(
        "wrote {}: {} vertices, {} triangles",
        a.output.display(),
        fixed.mesh().vertex_count(),
        fixed.mesh().triangle_count()
    );
    if let (Some(name), Some(path)) = (&a.solver, &a.weights) {
        write_weights(&a, &fixed, &options, name, path)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Solves the seam-consistent weights of the repaired scene with solver `name` (and the
/// weight steps `options` asks for), prints what they did and writes them to `path`.
fn write_weights(
    a: &RepairArgs,
    fixed: &Scene,
    options: &RepairOptions,
    name: &str,
    path: &Path,
) -> Result<()> {
    let solver = solver_by_name(name, &parse_options(&a.options)?)?;
    let pb = spinner(format!(
        "{name}: each layer alone and on the layers joined at their seams"
    ));
    let solved = repaired_weights(fixed, options, solver.as_ref());
    pb.finish_and_clear();
    let (weights, r) = solved?;
    println!("seam-consistent weights ({name}): {}", r.consistent);
    if let Some(s) = &r.smooth {
        println!("smoothing (band {} px): {s}", options.smooth.band);
    }
    if let Some(o) = &r.consistent.overlap {
        println!("{o}");
    }
    WeightsFile::new(fixed.name(), name, fixed.skeleton().names(), &weights).save(path)?;
    println!(
        "wrote {}; check it with: skinweights lint {} {}",
        path.display(),
        a.output.display(),
        path.display()
    );
    Ok(())
}
