//! `skinweights view`: the interactive demo for any scene and solver, in the browser.
//!
//! A loopback HTTP server ([`server`]) answers the page's requests with the library
//! ([`api`]); the page (`page.html`, `view.js`, `view.css`, embedded with `include_str!`, no
//! CDN, no build step) draws on a canvas. `--html` writes the same page as one file with
//! every solver's weights inside: pose, colouring and the live metrics then run in the page
//! itself (`view.js` ports the library's forward kinematics, LBS, DQS, helper bones and pose
//! metrics; `tests/it/view_browser.rs` checks them against the library).

pub mod api;
mod server;
mod transfer;

use super::bones::{chosen_binding, BindArg, BonesArg};
use super::{check_outputs, load_weights_for, resolve_scene, BuiltinArgs, SceneArg};
use crate::cli::error::Result;
use api::{scene_json, solvers_json, Viewer};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use skinweights::binding::Binding;
use skinweights::metrics::{evaluate, Metrics};
use skinweights::pipeline;
use skinweights::scene::Scene;
use skinweights::solvers::solver_by_name;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use transfer::TransferView;

const PAGE: &str = include_str!("page.html");
const SCRIPT: &str = include_str!("view.js");
const STYLE: &str = include_str!("view.css");

/// The two-bone demo: the two-bone bar, linear falloff, blend width 48, joint angle 55.
const SEEDS_SCENE: &str = "bar";

/// Solvers precomputed into an `--html` file by default: every entry of the registry.
fn html_solvers() -> Vec<String> {
    skinweights::solvers::SOLVER_NAMES
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// Arguments of `view`.
#[derive(Args)]
pub struct ViewArgs {
    /// Scene file (JSON) or built-in name (default: the two-bone bar, linear falloff,
    /// blend width 48, joint angle 55).
    scene: Option<String>,
    #[command(flatten)]
    builtin: BuiltinArgs,
    /// Port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 8765)]
    port: u16,
    /// Write the page as one self-contained HTML file with every solver's weights instead of
    /// serving it (pose and colouring stay live; re-solving needs the server).
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// Solvers precomputed into the --html file (comma-separated).
    #[arg(long, value_delimiter = ',', default_values_t = html_solvers())]
    solvers: Vec<String>,
    /// Overwrite the --html file if it exists.
    #[arg(long)]
    force: bool,
    /// Reference weights (e.g. the artist's) of the scene: playing a clip then shows each
    /// frame's deviation from them (max and p95 px), as `eval --clip --reference` measures.
    #[arg(long, value_name = "REF.json", conflicts_with = "html")]
    reference: Option<PathBuf>,
    /// The skin a rig imported with `--skin all` shows in textured art (default: the
    /// `default` skin); an unknown name is an error listing the scene's skins.
    #[arg(long, value_name = "NAME")]
    skin: Option<String>,
    #[command(flatten)]
    bones: BonesArg,
    #[command(flatten)]
    bind: BindArg,
    /// Show a costume transfer: the artist's weights (the scene's SCENE.artist.json, or
    /// --reference) with each target's transferred from SOURCES (`slot`, `all` or
    /// `skin:NAME`, as `transfer --from`), the sources drawn beside the targets and posed
    /// together; the solver weights only what the sources do not cover.
    #[arg(long, value_name = "SOURCES", conflicts_with_all = ["html", "bones", "bind"])]
    transfer_from: Option<String>,
    /// The transfer's targets (repeatable): a part, or `skin:NAME` for every part of a skin.
    /// Default: every attachment the artist's weights leave on one bone whose slot holds
    /// one they weight.
    #[arg(long, value_name = "PART|skin:NAME", requires = "transfer_from")]
    transfer_to: Vec<String>,
}

/// Runs `view`.
pub fn run(a: ViewArgs) -> Result<ExitCode> {
    let seeds = a.scene.is_none();
    let scene_arg = SceneArg {
        scene: Some(a.scene.clone().unwrap_or_else(|| SEEDS_SCENE.into())),
        builtin: a.builtin.clone(),
    };
    if let Some(out) = &a.html {
        let inputs: Vec<&Path> = a.scene.iter().map(Path::new).collect();
        check_outputs(&inputs, &[out], a.force)?;
        for name in &a.solvers {
            solver_by_name(name, skinweights::solvers::NO_OPTIONS)?;
        }
    }
    let name = scene_arg.scene.as_deref().unwrap_or(SEEDS_SCENE);
    if super::means_builtin(name) && a.builtin.vertices() > api::MAX_VIEW_VERTICES {
        // Refuse before meshing, which would take a while at that size.
        return Err(skinweights::ArgumentError::InvalidArgument {
            argument: "--vertices",
            value: a.builtin.vertices().to_string(),
            reason: format!(
                "{} vertices: the view draws at most {}",
                a.builtin.vertices(),
                api::MAX_VIEW_VERTICES
            ),
        }
        .into());
    }
    let scene = resolve_scene(Some(name), &scene_arg.builtin)?;
    api::check_size(&scene)?;
    let builtin = skinweights::scene::BUILTIN_SCENES.contains(&scene.name());
    let state = api::default_state(&scene, seeds, builtin.then_some(a.builtin.vertices()));
    // A transfer's weights are the artist's and the transfer's: no binding note applies.
    let binding = match a.transfer_from {
        Some(_) => Binding::whole((0..scene.skeleton().len()).collect()),
        None => chosen_binding(&scene, a.scene.as_deref(), &a.bones, &a.bind)?,
    };
    // Refuses an unknown skin before solving or serving.
    api::drawn_layers(&scene, a.skin.as_deref(), &Default::default())?;
    match &a.html {
        Some(out) => write_html(&scene, state, &a.solvers, &binding, a.skin.as_deref(), out),
        None => {
            // Without --reference, the artist's weights an import wrote beside the scene.
            let reference_path = a.reference.clone().or_else(|| {
                let beside = super::bones::binding_path(a.scene.as_deref())?;
                eprintln!(
                    "note: clips show each frame's deviation from the artist's weights in {} \
                     (--reference to choose others)",
                    beside.display()
                );
                Some(beside)
            });
            let reference = reference_path
                .as_ref()
                .map(|p| load_weights_for(&scene, p))
                .transpose()?;
            let transfer = match &a.transfer_from {
                Some(from) => Some(transfer_view(
                    &scene,
                    reference.clone(),
                    from,
                    &a.transfer_to,
                )?),
                None => None,
            };
            let viewer = Arc::new(
                Viewer::new(scene, seeds, a.builtin.vertices())?
                    .with_reference(reference)
                    .with_binding(binding)
                    .with_skin(a.skin.clone())?
                    .with_transfer(transfer),
            );
            let (server, port) = server::bind(a.port)?;
            let page = Arc::new(page(&json!({"mode": "server"})));
            println!("skinweights view: http://127.0.0.1:{port}/  (Ctrl-C stops)");
            server::serve(server, port, viewer, page);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `--transfer-from`: the transfer of the scene's artist's weights, with a note naming
/// its targets. Errors: no artist's weights, and those of [`TransferView::new`].
fn transfer_view(
    scene: &Scene,
    artist: Option<skinweights::weights::Weights>,
    from: &str,
    to: &[String],
) -> Result<TransferView> {
    let artist = artist.ok_or_else(|| skinweights::ArgumentError::InvalidArgument {
        argument: "--transfer-from",
        value: from.to_string(),
        reason: "a transfer needs the artist's weights: import the rig with `skinweights \
                 import` (it writes SCENE.artist.json beside the scene) or give --reference"
            .into(),
    })?;
    let t = TransferView::new(scene, artist, from, to)?;
    let names = t.target_names();
    eprintln!(
        "note: {} target(s) transferred from {from} ({}{}); the page draws the sources (left) \
         beside the targets (right)",
        names.len(),
        names.iter().take(6).copied().collect::<Vec<_>>().join(", "),
        if names.len() > 6 { ", ..." } else { "" }
    );
    Ok(t)
}

/// The page with `embedded` (the mode, and for a file the scene and weights) inlined.
pub fn page(embedded: &Value) -> String {
    // `<` only occurs inside JSON strings, where \u003c means the same: no `</script>` can
    // end the data block early.
    let data = embedded.to_string().replace('<', "\\u003c");
    PAGE.replace("/*STYLE*/", STYLE)
        .replace("/*SCRIPT*/", SCRIPT)
        .replace("\"EMBEDDED\"", &data)
}

/// `--html`: every solver's weights and the library's metrics of every probe, in one page.
fn write_html(
    scene: &Scene,
    mut state: Value,
    solvers: &[String],
    binding: &Binding,
    skin: Option<&str>,
    out: &Path,
) -> Result<ExitCode> {
    let pb = ProgressBar::new(solvers.len() as u64);
    pb.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} ({elapsed})")
            .expect("valid template"),
    );
    let mut solved = Vec::new();
    for name in solvers {
        pb.set_message(format!("solving {name}"));
        let options = if state["solver"] == name.as_str() {
            api::option_pairs(
                &serde_json::from_value(state["options"].clone()).unwrap_or_default(),
            )?
        } else {
            Vec::new()
        };
        let solver = solver_by_name(name, &options)?;
        let solution = pipeline::solve(scene, solver.as_ref(), binding, None)?;
        let w = &solution.weights;
        // The library's numbers for each probe pose, shown beside the page's own.
        let mut metrics = serde_json::Map::new();
        for p in scene.probes() {
            let m = Metrics {
                time_s: Some(solution.report.seconds),
                ..evaluate(scene, w, p)?
            };
            metrics.insert(p.name.clone(), json!(m));
        }
        solved.push(json!({
            "name": name,
            "options": options.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
            "weights": api::floats_base64(w.as_slice().iter().copied(), true),
            "seconds": solution.report.seconds,
            "warnings": solution.report.warnings,
            "metrics": metrics,
        }));
        pb.inc(1);
    }
    pb.finish_and_clear();
    if !solvers.iter().any(|s| state["solver"] == s.as_str()) {
        state["solver"] = json!(solvers.first());
        state["options"] = json!({});
    }
    let mut info = scene_json(scene)?;
    api::set_drawn(&mut info, scene, skin)?;
    info["solvers"] = solvers_json();
    info["default_state"] = state;
    let html = page(&json!({"mode": "file", "scene": info, "solved": solved}));
    skinweights::io::write_atomic(out, &html)?;
    println!(
        "wrote {} ({:.1} MB): {} with {} solvers precomputed; open it in a browser",
        out.display(),
        html.len() as f64 / 1e6,
        scene.name(),
        solvers.len()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    #[test]
    fn page_inlines_assets_and_data_that_cannot_end_the_script() {
        let html = super::page(&serde_json::json!({"mode": "file", "name": "</script><b>"}));
        assert!(!html.contains("/*SCRIPT*/") && !html.contains("/*STYLE*/"));
        assert!(!html.contains("\"EMBEDDED\""));
        assert!(!html.contains("</script><b>"));
        assert!(html.contains(r"\u003c/script>\u003cb>"));
        assert!(
            !html.contains("http://") && !html.contains("https://"),
            "no CDN"
        );
    }
}
