//! `skinweights correct`: automatic corrective shapes fitted for joints of a scene and
//! written into the scene file, where `render`, `eval --clip`, `view` and `export` use them.

use super::bones::{chosen_bones, BonesArg};
use super::{check_outputs, load_weights_for, parse_options, resolve_scene, spinner, SceneArg};
use crate::cli::error::Result;
use clap::Args;
use skinweights::binding::solve_with_bones;
use skinweights::correctives::{auto_corrective, AutoCorrectiveOptions, Interpolation};
use skinweights::io::save_scene;
use skinweights::solvers::solver_by_name;
use skinweights::ArgumentError;
use skinweights::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `correct`.
#[derive(Args)]
pub struct CorrectArgs {
    #[command(flatten)]
    scene: SceneArg,
    #[command(flatten)]
    bones: BonesArg,
    /// The joint, named by its child bone (repeatable: one corrective per joint, each with
    /// the keys of --angles). A corrective the scene already has for the joint is replaced.
    #[arg(long = "joint", value_name = "BONE", required = true)]
    joints: Vec<String>,
    /// Key angles in degrees, strictly increasing, comma-separated (e.g. 90,150): the joint's
    /// local rotation at which each key restores the rest shape.
    #[arg(
        long,
        value_name = "DEG,...",
        value_delimiter = ',',
        required = true,
        allow_hyphen_values = true
    )]
    angles: Vec<f64>,
    /// Weights the correctives are fitted against (a weights file); without it the scene is
    /// solved with --solver.
    #[arg(long, value_name = "W.json", conflicts_with_all = ["solver", "options"])]
    weights: Option<PathBuf>,
    /// Solver for the weights when --weights is not given (default: best, the recommended
    /// one). Export or render with the same weights: a corrective is fitted to them.
    #[arg(long)]
    solver: Option<String>,
    /// Solver option as key=value (repeatable).
    #[arg(long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Blend between keys: linear (the default: the fit adds keys every --key-step degrees,
    /// where smoothstep's zero slope at each key costs more than it gains) or smooth.
    #[arg(long, default_value = "linear", value_parser = ["smooth", "linear"])]
    interpolation: String,
    /// The bend's reach at most this fraction of the shorter of the joint's two bones
    /// (0 < F <= 1; default 1). Past it the joint's inner side is compressed and narrows.
    #[arg(long, value_name = "F")]
    max_reach: Option<f64>,
    /// Extra keys so that no two are more than this many degrees apart (default 5; 0: only
    /// the --angles keys).
    #[arg(long, value_name = "DEG")]
    key_step: Option<f64>,
    /// Output scene file (JSON; `.swb` for the binary form; `-` for standard output).
    #[arg(short, long)]
    output: PathBuf,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    force: bool,
}

/// Runs `correct`.
pub fn run(a: CorrectArgs) -> Result<ExitCode> {
    let mut inputs: Vec<&Path> = a.scene.scene.iter().map(Path::new).collect();
    inputs.extend(a.weights.as_deref());
    check_outputs(&inputs, &[&a.output], a.force)?;
    let scene = resolve_scene(a.scene.scene.as_deref(), &a.scene.builtin)?;
    let weights = match &a.weights {
        Some(path) => load_weights_for(&scene, path)?,
        None => {
            let name = a
                .solver
                .as_deref()
                .unwrap_or(skinweights::solvers::RECOMMENDED_SOLVER);
            let solver = solver_by_name(name, &parse_options(&a.options)?)?;
            let bones = chosen_bones(&scene, a.scene.scene.as_deref(), &a.bones)?;
            let pb = spinner(format!("{name} on {}", scene.name()));
            let solution = solve_with_bones(solver.as_ref(), &scene, &bones);
            pb.finish_and_clear();
            solution?.weights
        }
    };
    let interpolation = Interpolation::from_name(&a.interpolation).ok_or_else(|| {
        Error::Argument(ArgumentError::InvalidArgument {
            argument: "--interpolation",
            value: a.interpolation.clone(),
            reason: format!("{:?} is not linear or smooth", a.interpolation),
        })
    })?;
    let mut options = AutoCorrectiveOptions::default().with_interpolation(interpolation);
    if let Some(f) = a.max_reach {
        options = options.with_max_reach(f);
    }
    if let Some(step) = a.key_step {
        options = options.with_key_step((step != 0.0).then_some(step));
    }
    let mut correctives = scene.correctives().to_vec();
    for joint in &a.joints {
        let pb = spinner(format!("fitting the corrective of joint {joint}"));
        let fitted = auto_corrective(&scene, &weights, joint, &a.angles, &options);
        pb.finish_and_clear();
        let fitted = fitted?;
        super::status(
            &a.output,
            format_args!(
                "joint {joint}: {} vertices, {} keys ({:?} deg asked), largest offset {:.3} px, reach {:.1} px at the last key",
                fitted.corrective.vertices.len(),
                fitted.corrective.keys.len(),
                a.angles,
                fitted.bends.iter().map(|b| b.max_offset).fold(0.0, f64::max),
                fitted.bends.last().map_or(0.0, |b| b.reach)
            ),
        );
        match correctives.iter().position(|c| &c.joint == joint) {
            Some(i) => correctives[i] = fitted.corrective,
            None => correctives.push(fitted.corrective),
        }
    }
    let scene = scene.with_correctives(correctives)?;
    save_scene(&scene, &a.output)?;
    super::status(
        &a.output,
        format_args!(
            "wrote {}: {} correctives",
            a.output.display(),
            scene.correctives().len()
        ),
    );
    Ok(ExitCode::SUCCESS)
}
