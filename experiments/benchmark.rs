//! # benchmark: every solver against every artist-weighted rig
//!
//! Each rig is a character whose weights an artist painted (Spine, DragonBones, Godot; any
//! such file can be given). Spine rigs are read with every attachment of every skin, and
//! their weighted meshes with two or more bones are scored. Three protocols:
//! - **(a) the artist's workflow** (`per mesh`): each mesh is solved alone with the bones its
//!   artist bound it to ([`skinweights::scene::SubScene`]), and the per-mesh weights are
//!   assembled into whole-character weights;
//! - **(b) whole** (`whole`): the whole character is solved once with all its deforming bones
//!   (the bones some mesh is bound to);
//! - **(c) automatic binding** (`auto`): no artist data at all. The library's binder
//!   ([`skinweights::binding::bind`], [`Bind::Auto`], default options) sees the non-IK-target
//!   bones and each part's slot bone (what an unweighted mesh of the format carries), chooses
//!   each mesh's bones and solves it over them. Its bone sets are also scored against the
//!   artist's (precision and recall per rig, with `best`'s whole solve when `best` runs).
//!
//! All are scored against the artist with [`skinweights::metrics::artist`], mesh by mesh:
//! dominant-bone agreement (ties in the artist's row count for every tied bone), the
//! total-variation weight distance, and the one-bone deviation (each bone of the mesh rotated
//! by 40 degrees in turn on the whole rig: the worst vertex's distance from where the
//! artist's weights put it, % of the mesh's diagonal; mean and 95th percentile over
//! (mesh, bone) pairs); over the rig's own clips (sampled at `--fps`, IK applied) the clip
//! deviation (per mesh and frame the worst vertex's distance from where the artist's
//! weights put it, % of the mesh's diagonal; mean, 95th percentile and max over every
//! (mesh, frame) of every clip) and the flips over clips (% of (triangle, frame) pairs
//! flipped, next to the artist's own); plus solve time and failures.
//!
//! **Rigs are the unit.** Rigs vary far more than vertices within a rig, so the first table
//! is per rig and the headline figures are **means over rigs** (each rig counts once) with a
//! 95% bootstrap interval over rigs and the number of rigs each solver wins; figures pooled
//! over vertices come second. Rigs whose weights look computed by a tool
//! ([`skinweights::metrics::weight_style`]) are reported apart (group `computed?`) from the
//! painted ones (`painted`). A rig that fails to load is listed with its error.
//!
//! The default rigs are the manifest `data/rigs.json`: the shipped rigs, plus the artist-rig
//! corpus when its folder is present (`SKINWEIGHTS_ARTIST_RIGS`, default
//! `../shared/data/artist-rigs` beside the crate).
//!
//! Writes `results/benchmark/`: `benchmark.json` (every score per rig, mesh and solver),
//! `leaderboard.md` (means over rigs: protocol (a), then (a), (b), (c) side by side with the
//! rigs (c) wins against (b); per rig (a) and (c); the binder's precision and recall per rig;
//! then pooled per group and protocol), `leaderboard.csv` (pooled per group and protocol),
//! `rigs.csv` (protocol (a) per rig and solver), `rigs.png/svg` (protocol (a) per rig) and
//! `protocols.png/svg` ((a), (b), (c) per rig, a row per solver and protocol).
//!
//! ```text
//! cargo run --release --bin benchmark [-- RIG ...] [--solvers LIST] [--json] [--out DIR]
//! ```

mod common;

use clap::Parser;
use common::rig_chart::{MeasurePanel, RigScoresChart, SolverScores};
use common::rigs::{
    cut_meshes, load_rig, precision_recall, solve_per_mesh, solve_spec, solver_of_spec,
    solver_specs, sources, uniform, Rig, RigSource,
};
use common::stats::{mean_interval, percentile, SplitMix};
use common::{csv_num, json_num, main_with, progress, save_png_svg, write_json, write_text, Res};
use serde::Serialize;
use skinweights::binding::{
    auto_bones, bind, solve_with_bones, whole_bones, Bind, BindOptions, FileBindings,
};
use skinweights::metrics::artist::{
    score_against_artist, ArtistClipFrames, ArtistMesh, ArtistScoreOptions, ClipScore,
};
use skinweights::scene::SubScene;
use skinweights::weights::Weights;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Parser)]
#[command(about = "Score every solver against artist-weighted rigs, mesh by mesh and whole")]
struct Cli {
    /// Rig files (Spine JSON, DragonBones `_ske.json`, Godot `.tscn`, Creature JSON).
    /// Default: every rig of data/rigs.json (the shipped ones, and the artist-rig corpus
    /// when SKINWEIGHTS_ARTIST_RIGS or ../shared/data/artist-rigs is present).
    rigs: Vec<PathBuf>,
    /// Comma-separated solvers (default: linear, euclidean, geodesic, heat, bbw, best).
    #[arg(long, value_delimiter = ',')]
    solvers: Option<Vec<String>>,
    /// Print the results as JSON on standard output instead of the table.
    #[arg(long)]
    json: bool,
    /// Frames per second the rigs' clips are played at for the clip scores.
    #[arg(long, default_value_t = 30.0)]
    fps: f64,
    #[command(flatten)]
    common: common::CommonArgs,
}

/// The solvers scored by default. The masks are left out: solving a mesh with its own bones
/// already is a per-part mask, so in protocol (a) they would repeat their base solver.
const DEFAULT_SOLVERS: [&str; 6] = ["linear", "euclidean", "geodesic", "heat", "bbw", "best"];

#[derive(Serialize, Clone)]
struct MeshRow {
    rig: String,
    fold: String,
    protocol: &'static str,
    solver: String,
    mesh: String,
    vertices: usize,
    bones: usize,
    agreeing: usize,
    weight_distance_sum: f64,
    one_bone_deviation_pct: Vec<f64>,
    /// Over the rig's clips: frames, and the mean, max of the per-frame worst deviation
    /// (% of the mesh diagonal); flipped (triangle, frame) pairs, and with the artist's.
    clip_frames: usize,
    clip_deviation_mean_pct: Option<f64>,
    clip_deviation_max_pct: Option<f64>,
    clip_flipped: usize,
    clip_artist_flipped: usize,
    clip_triangle_frames: usize,
    #[serde(skip)]
    clip_deviation_pct: Vec<f64>,
    failed: Option<String>,
}

#[derive(Serialize, Clone)]
struct Leader {
    fold: String,
    protocol: &'static str,
    solver: String,
    rigs: usize,
    meshes: usize,
    vertices: usize,
    agreement_pct: f64,
    agreement_small_pct: Option<f64>,
    weight_distance: f64,
    one_bone_mean_pct: f64,
    one_bone_p95_pct: f64,
    clip_frames: usize,
    clip_deviation_mean_pct: Option<f64>,
    clip_deviation_p95_pct: Option<f64>,
    clip_deviation_max_pct: Option<f64>,
    clip_flipped_pct: Option<f64>,
    clip_artist_flipped_pct: Option<f64>,
    failed_meshes: usize,
    time_s: f64,
}

#[derive(Serialize)]
struct Output {
    experiment: &'static str,
    rigs: Vec<RigInfo>,
    solvers: Vec<String>,
    leaderboard: Vec<Leader>,
    meshes: Vec<MeshRow>,
    seconds: f64,
}

#[derive(Serialize)]
struct RigInfo {
    name: String,
    fold: String,
    /// The repository the rig came from (the manifest's `source`; the path for a given file).
    source: String,
    file: String,
    vertices: usize,
    bones: usize,
    meshes: usize,
    clips: usize,
    clip_frames: usize,
    /// Share of the scored vertices blending two or more bones, and on the paint grid.
    blend_share: f64,
    grid_share: f64,
    /// The stage a failed rig stopped at, and its error.
    stage: Option<&'static str>,
    error: Option<String>,
    /// Wall-clock seconds per stage (every solver's solves and scores summed).
    seconds: StageSeconds,
    /// Protocol (c)'s bone sets against the artist's, with [`binder_solver`]'s whole solve.
    binder: Option<BinderScore>,
}

/// How well protocol (c)'s binder chose each scored mesh's bones: precision and recall (%) of
/// its bone sets against the artist's, pooled over the rig's scored meshes, and the mean set
/// sizes.
#[derive(Serialize, Clone)]
struct BinderScore {
    solver: String,
    precision_pct: f64,
    recall_pct: f64,
    chosen_bones_mean: f64,
    artist_bones_mean: f64,
}

/// Where a rig's time goes, in wall-clock seconds.
#[derive(Serialize, Default, Clone, Copy)]
struct StageSeconds {
    load: f64,
    /// Sampling the clips' frames and skinning them with the artist's weights.
    clips: f64,
    solve: f64,
    /// Agreement and one-bone deviation, and replaying the frames with the solver's weights.
    score: f64,
}

impl StageSeconds {
    fn total(&self) -> f64 {
        self.load + self.clips + self.solve + self.score
    }
}

impl RigInfo {
    fn failed(source: &RigSource, failure: RigFailure) -> Self {
        RigInfo {
            name: source.name.clone(),
            fold: "failed".into(),
            source: source.source.clone(),
            file: source.file.display().to_string(),
            vertices: 0,
            bones: 0,
            meshes: 0,
            clips: 0,
            clip_frames: 0,
            blend_share: 0.0,
            grid_share: 0.0,
            stage: Some(failure.stage),
            error: Some(failure.error),
            seconds: StageSeconds::default(),
            binder: None,
        }
    }
}

/// Meshes under this many vertices are also scored apart: most artist meshes are this small.
const SMALL_MESH: usize = 60;

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    main_with(|| run(&cli, &mut std::io::stdout().lock()))
}

/// Scores the rigs, prints the JSON (`--json`) or the report to `printed`, then writes the
/// results folder when asked. A rig that fails at any stage (loading, clip sampling with its
/// IK, cutting its meshes, a solver, a score; a panic too) is a row with its stage and error:
/// one rig never stops the run.
fn run(cli: &Cli, printed: &mut dyn std::io::Write) -> Res<()> {
    let started = Instant::now();
    let sources = sources(&cli.rigs)?;
    let solvers = solver_specs(&cli.solvers, &DEFAULT_SOLVERS)?;
    let bar = progress(sources.len() as u64, "rigs");
    let mut rows = Vec::new();
    let mut times: Vec<(String, &'static str, String, f64)> = Vec::new();
    let mut infos = Vec::new();
    for source in &sources {
        bar.set_message(source.name.clone());
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            score_source(source, &solvers, cli.fps, &bar)
        }))
        .unwrap_or_else(|panic| Err(RigFailure::panicked(panic)));
        match outcome {
            Ok(scored) => {
                rows.extend(scored.rows);
                times.extend(scored.times);
                infos.push(scored.info);
            }
            Err(failure) => {
                bar.suspend(|| {
                    eprintln!(
                        "error: rig {} ({}) at {}: {}",
                        source.name,
                        source.file.display(),
                        failure.stage,
                        failure.error
                    )
                });
                infos.push(RigInfo::failed(source, failure));
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    // Rigs that scored first, then the failed ones, as before.
    infos.sort_by_key(|i| i.error.is_some());

    let leaderboard = leaderboard(&rows, &times, &solvers);
    let output = Output {
        experiment: "benchmark",
        rigs: infos,
        solvers: solvers.clone(),
        leaderboard: leaderboard.clone(),
        meshes: rows,
        seconds: started.elapsed().as_secs_f64(),
    };
    let report = rigs_md(&output.rigs)
        + &time_md(&output.rigs)
        + &rig_means_md(&output.meshes, &solvers)
        + &protocols_md(&output.meshes, &solvers)
        + &per_rig_md(&output.meshes, &solvers, "per mesh")
        + &per_rig_md(&output.meshes, &solvers, "auto")
        + &binder_md(&output.rigs)
        + "\n## pooled over vertices (each rig weighted by its size)\n"
        + &leaderboard_md(&leaderboard);
    if cli.json {
        writeln!(printed, "{}", serde_json::to_string_pretty(&output)?)?;
    } else {
        writeln!(printed, "{report}")?;
    }
    if cli.rigs.is_empty() || cli.common.out.is_some() {
        let dir = cli.common.out_dir("benchmark")?;
        write_text(&dir, "leaderboard.md", &report)?;
        write_text(&dir, "leaderboard.csv", &leaderboard_csv(&leaderboard))?;
        write_text(&dir, "rigs.csv", &rigs_csv(&output.meshes, &solvers))?;
        write_json(&dir, "benchmark.json", &output)?;
        if let Some(chart) = rig_chart(&output.meshes, &solvers, "painted") {
            save_png_svg(&chart, &dir, "rigs", (1500, 520))?;
        }
        if let Some(chart) = protocol_chart(&output.meshes, &solvers, "painted") {
            let rows = 3 * solvers.len() as u32;
            save_png_svg(&chart, &dir, "protocols", (1500, 140 + 34 * rows))?;
        }
        eprintln!("wrote {} in {:.1} s", dir.display(), output.seconds);
    }
    Ok(())
}

/// Where a rig failed (`load`, `clips`, `cut`, `solve`, `score`, or `panic`) and why.
struct RigFailure {
    stage: &'static str,
    error: String,
}

impl RigFailure {
    fn panicked(panic: Box<dyn std::any::Any + Send>) -> Self {
        let error = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic without a message".into());
        RigFailure {
            stage: "panic",
            error,
        }
    }
}

// Tests make one rig fail at one stage (`(rig, stage)`; `panic` panics) to check that the
// run goes on; compiled out of the binary.
#[cfg(test)]
thread_local! {
    static FAIL_AT: std::cell::RefCell<Option<(String, &'static str)>> =
        const { std::cell::RefCell::new(None) };
}

/// Passes, except where a test asked rig `rig` to fail at `stage`.
fn checkpoint(rig: &str, stage: &'static str) -> std::result::Result<(), RigFailure> {
    #[cfg(test)]
    if let Some((name, at)) = FAIL_AT.with(|f| f.borrow().clone()) {
        if name == rig && (at == stage || (at == "panic" && stage == "score")) {
            if at == "panic" {
                panic!("a planted panic in {rig}");
            }
            return Err(RigFailure {
                stage,
                error: format!("a planted failure at {stage}"),
            });
        }
    }
    let _ = (rig, stage);
    Ok(())
}

/// Tags an error with the stage it happened at.
fn at<E: std::fmt::Display>(stage: &'static str) -> impl Fn(E) -> RigFailure {
    move |e| RigFailure {
        stage,
        error: e.to_string(),
    }
}

/// One rig's rows, solve times and description.
struct ScoredRig {
    rows: Vec<MeshRow>,
    times: Vec<(String, &'static str, String, f64)>,
    info: RigInfo,
}

/// Loads one rig, samples its clips, and scores every solver on it by every protocol.
fn score_source(
    source: &RigSource,
    solvers: &[String],
    fps: f64,
    bar: &indicatif::ProgressBar,
) -> std::result::Result<ScoredRig, RigFailure> {
    let name = source.name.as_str();
    let mut seconds = StageSeconds::default();
    let t = Instant::now();
    checkpoint(name, "load")?;
    let rig = load_rig(&source.file, name).map_err(at("load"))?;
    seconds.load = t.elapsed().as_secs_f64();
    checkpoint(name, "clips")?;
    let t = Instant::now();
    let frames = ArtistClipFrames::new(&rig.scene, &rig.artist, rig.scene.clips(), fps)
        .map_err(at("clips"))?;
    seconds.clips = t.elapsed().as_secs_f64();
    checkpoint(name, "cut")?;
    let cuts = cut_meshes(&rig).map_err(at("cut"))?;
    let deforming = rig.artist_bones();
    // Protocol (c) sees no artist data: the non-IK-target bones and each part's slot bone.
    let home = rig.homes();
    let non_ik = rig.scene.deforming_bones(None).map_err(at("cut"))?.kept;
    let file = FileBindings {
        artist: Vec::new(),
        home,
    };
    let binder_solver = binder_solver(solvers);
    let mut binder = None;
    let mut rows = Vec::new();
    let mut times = Vec::new();
    for solver in solvers {
        // (a) mesh by mesh with the artist's bones.
        bar.set_message(format!("{} {solver} per mesh", rig.name));
        let t = Instant::now();
        checkpoint(name, "solve")?;
        let (full, failed) = solve_per_mesh(&rig, &cuts, solver, |_| {}).map_err(at("solve"))?;
        let solved = t.elapsed().as_secs_f64();
        seconds.solve += solved;
        times.push((rig.fold.clone(), "per mesh", solver.clone(), solved));
        checkpoint(name, "score")?;
        let t = Instant::now();
        rows.extend(
            score_rig(&rig, &frames, &cuts, &full, solver, "per mesh", &failed)
                .map_err(at("score"))?,
        );
        seconds.score += t.elapsed().as_secs_f64();

        // (b) the whole character with its deforming bones.
        bar.set_message(format!("{} {solver} whole", rig.name));
        let t = Instant::now();
        let (whole, failure) = solve_whole(&rig, &deforming, solver).map_err(at("solve"))?;
        let solved = t.elapsed().as_secs_f64();
        seconds.solve += solved;
        times.push((rig.fold.clone(), "whole", solver.clone(), solved));
        let failed = vec![failure; cuts.len()];
        let t = Instant::now();
        rows.extend(
            score_rig(&rig, &frames, &cuts, &whole, solver, "whole", &failed)
                .map_err(at("score"))?,
        );
        seconds.score += t.elapsed().as_secs_f64();

        // (c) the binder's bones per mesh, chosen without the artist's data.
        bar.set_message(format!("{} {solver} auto", rig.name));
        let t = Instant::now();
        let (auto, failure) = solve_auto(&rig, &non_ik, &file, solver).map_err(at("solve"))?;
        let solved = t.elapsed().as_secs_f64();
        seconds.solve += solved;
        times.push((rig.fold.clone(), "auto", solver.clone(), solved));
        let failed = vec![failure; cuts.len()];
        let t = Instant::now();
        rows.extend(
            score_rig(&rig, &frames, &cuts, &auto, solver, "auto", &failed).map_err(at("score"))?,
        );
        if Some(solver) == binder_solver {
            binder = Some(binder_score(&rig, &cuts, &non_ik, &file, solver).map_err(at("score"))?);
        }
        seconds.score += t.elapsed().as_secs_f64();
    }
    let info = RigInfo {
        name: rig.name.clone(),
        fold: rig.fold.clone(),
        source: source.source.clone(),
        file: source.file.display().to_string(),
        vertices: rig.scene.mesh().vertex_count(),
        bones: rig.scene.skeleton().len(),
        meshes: rig.meshes.len(),
        clips: rig.scene.clips().len(),
        clip_frames: frames.frame_count(),
        blend_share: rig.style.blend_share(),
        grid_share: rig.style.grid_share(),
        stage: None,
        error: None,
        seconds,
        binder,
    };
    Ok(ScoredRig { rows, times, info })
}

/// Protocol (b): the whole mesh with the deforming bones only, scattered back to the rig.
fn solve_whole(rig: &Rig, deforming: &[usize], solver: &str) -> Res<(Weights, Option<String>)> {
    let cut = whole_cut(rig, deforming)?;
    let (solved, failure) = match solve_spec(&cut.scene, solver) {
        Ok(w) => (w, None),
        Err(e) => (
            uniform(cut.vertices.len(), cut.bones.len()),
            Some(e.to_string()),
        ),
    };
    let mut full =
        Weights::zeros_unchecked(rig.scene.mesh().vertex_count(), rig.scene.skeleton().len());
    cut.scatter(&solved, &mut full)?;
    Ok((full, failure))
}

/// The whole character cut to `bones`.
fn whole_cut(rig: &Rig, bones: &[usize]) -> Res<SubScene> {
    let names: Vec<String> = bones
        .iter()
        .map(|&b| rig.scene.skeleton().bones()[b].name.clone())
        .collect();
    Ok(SubScene::with_bones(&rig.scene, &names)?)
}

/// Protocol (c): the library's binder ([`bind`] with [`Bind::Auto`] and the default options)
/// over the non-IK-target bones `non_ik`, given only each part's home bone (`file`). A failed
/// bind is scored with equal weights on `non_ik`, its error returned.
fn solve_auto(
    rig: &Rig,
    non_ik: &[usize],
    file: &FileBindings,
    solver: &str,
) -> Res<(Weights, Option<String>)> {
    let by = solver_of_spec(solver)?;
    let options = BindOptions::default();
    match bind(by.as_ref(), &rig.scene, Bind::Auto, non_ik, file, &options) {
        Ok(solution) => Ok((solution.weights, None)),
        Err(e) => {
            let cut = whole_cut(rig, non_ik)?;
            let mut full = Weights::zeros_unchecked(
                rig.scene.mesh().vertex_count(),
                rig.scene.skeleton().len(),
            );
            cut.scatter(&uniform(cut.vertices.len(), cut.bones.len()), &mut full)?;
            Ok((full, Some(e.to_string())))
        }
    }
}

/// The solver whose binder bone sets are scored against the artist's: `best` (the
/// recommended solver, the command line's default) when run, else the first solver.
fn binder_solver(solvers: &[String]) -> Option<&String> {
    solvers
        .iter()
        .find(|s| s.as_str() == "best")
        .or(solvers.first())
}

/// The bone sets [`bind`] chooses for the scored meshes (the same steps: the whole solve over
/// [`whole_bones`], then [`auto_bones`], default options), against the artist's.
fn binder_score(
    rig: &Rig,
    cuts: &[(String, SubScene)],
    non_ik: &[usize],
    file: &FileBindings,
    solver: &str,
) -> Res<BinderScore> {
    let by = solver_of_spec(solver)?;
    let options = BindOptions::default();
    let bones = whole_bones(&rig.scene, non_ik, &file.home, &options);
    let whole = solve_with_bones(by.as_ref(), &rig.scene, &bones)?.weights;
    let mut chosen = auto_bones(&rig.scene, &whole, &file.home, &options)?;
    chosen.retain(|mb| cuts.iter().any(|(p, _)| *p == mb.part));
    let (precision_pct, recall_pct) = precision_recall(cuts, &chosen);
    let n = cuts.len().max(1) as f64;
    Ok(BinderScore {
        solver: solver.to_string(),
        precision_pct,
        recall_pct,
        chosen_bones_mean: chosen.iter().map(|mb| mb.bones.len()).sum::<usize>() as f64 / n,
        artist_bones_mean: cuts.iter().map(|(_, c)| c.bones.len()).sum::<usize>() as f64 / n,
    })
}

fn score_rig(
    rig: &Rig,
    frames: &ArtistClipFrames,
    cuts: &[(String, SubScene)],
    weights: &Weights,
    solver: &str,
    protocol: &'static str,
    failed: &[Option<String>],
) -> Res<Vec<MeshRow>> {
    let options = ArtistScoreOptions::default();
    let meshes: Vec<ArtistMesh> = cuts
        .iter()
        .map(|(_, cut)| ArtistMesh {
            vertices: &cut.vertices,
            bones: &cut.bones,
        })
        .collect();
    let clip_scores = frames.score(&rig.scene, weights, &meshes)?;
    let mut rows = Vec::new();
    for (((part, cut), failed), (mesh, clip)) in
        cuts.iter().zip(failed).zip(meshes.iter().zip(clip_scores))
    {
        let s = score_against_artist(&rig.scene, weights, &rig.artist, *mesh, &options)?;
        let ClipScore {
            frame_deviation_pct,
            flipped,
            artist_flipped,
            triangle_frames,
        } = clip;
        let n = frame_deviation_pct.len();
        rows.push(MeshRow {
            rig: rig.name.clone(),
            fold: rig.fold.clone(),
            protocol,
            solver: solver.to_string(),
            mesh: part.clone(),
            vertices: s.vertices,
            bones: cut.bones.len(),
            agreeing: s.agreeing,
            weight_distance_sum: s.weight_distance_sum,
            one_bone_deviation_pct: s.one_bone_deviation_pct,
            clip_frames: n,
            clip_deviation_mean_pct: (n > 0)
                .then(|| frame_deviation_pct.iter().sum::<f64>() / n as f64),
            clip_deviation_max_pct: (n > 0)
                .then(|| frame_deviation_pct.iter().copied().fold(0.0, f64::max)),
            clip_flipped: flipped,
            clip_artist_flipped: artist_flipped,
            clip_triangle_frames: triangle_frames,
            clip_deviation_pct: frame_deviation_pct,
            failed: failed.clone(),
        });
    }
    Ok(rows)
}

/// Per fold, protocol and solver: agreement over all vertices, weight distance per vertex,
/// one-bone deviation over (mesh, bone) pairs.
fn leaderboard(
    rows: &[MeshRow],
    times: &[(String, &'static str, String, f64)],
    solvers: &[String],
) -> Vec<Leader> {
    let mut folds: Vec<String> = rows.iter().map(|r| r.fold.clone()).collect();
    folds.sort();
    folds.dedup();
    let mut out = Vec::new();
    for fold in &folds {
        for (protocol, _) in PROTOCOLS {
            for solver in solvers {
                let mine: Vec<&MeshRow> = rows
                    .iter()
                    .filter(|r| &r.fold == fold && r.protocol == protocol && &r.solver == solver)
                    .collect();
                if mine.is_empty() {
                    continue;
                }
                let vertices: usize = mine.iter().map(|r| r.vertices).sum();
                let agreeing: usize = mine.iter().map(|r| r.agreeing).sum();
                let small: Vec<&&MeshRow> =
                    mine.iter().filter(|r| r.vertices < SMALL_MESH).collect();
                let small_v: usize = small.iter().map(|r| r.vertices).sum();
                let small_a: usize = small.iter().map(|r| r.agreeing).sum();
                let mut dev: Vec<f64> = mine
                    .iter()
                    .flat_map(|r| r.one_bone_deviation_pct.iter().copied())
                    .collect();
                dev.sort_by(f64::total_cmp);
                let mut clip: Vec<f64> = mine
                    .iter()
                    .flat_map(|r| r.clip_deviation_pct.iter().copied())
                    .collect();
                clip.sort_by(f64::total_cmp);
                let has_clips = !clip.is_empty();
                let triangle_frames: usize = mine.iter().map(|r| r.clip_triangle_frames).sum();
                let flips_pct = |f: fn(&MeshRow) -> usize| {
                    (triangle_frames > 0).then(|| {
                        100.0 * mine.iter().map(|r| f(r)).sum::<usize>() as f64
                            / triangle_frames as f64
                    })
                };
                let mut rigs: Vec<&str> = mine.iter().map(|r| r.rig.as_str()).collect();
                rigs.dedup();
                out.push(Leader {
                    fold: fold.clone(),
                    protocol,
                    solver: solver.clone(),
                    rigs: rigs.len(),
                    meshes: mine.len(),
                    vertices,
                    agreement_pct: 100.0 * agreeing as f64 / vertices.max(1) as f64,
                    agreement_small_pct: (small_v > 0)
                        .then(|| 100.0 * small_a as f64 / small_v as f64),
                    weight_distance: mine.iter().map(|r| r.weight_distance_sum).sum::<f64>()
                        / vertices.max(1) as f64,
                    one_bone_mean_pct: dev.iter().sum::<f64>() / dev.len().max(1) as f64,
                    one_bone_p95_pct: percentile(&dev, 0.95),
                    clip_frames: clip.len(),
                    clip_deviation_mean_pct: has_clips
                        .then(|| clip.iter().sum::<f64>() / clip.len() as f64),
                    clip_deviation_p95_pct: has_clips.then(|| percentile(&clip, 0.95)),
                    clip_deviation_max_pct: clip.last().copied(),
                    clip_flipped_pct: flips_pct(|r| r.clip_flipped),
                    clip_artist_flipped_pct: flips_pct(|r| r.clip_artist_flipped),
                    failed_meshes: mine.iter().filter(|r| r.failed.is_some()).count(),
                    time_s: times
                        .iter()
                        .filter(|t| &t.0 == fold && t.1 == protocol && &t.2 == solver)
                        .map(|t| t.3)
                        .sum(),
                });
            }
        }
    }
    out
}

/// The protocols, as the rows name them, and as the report does.
const PROTOCOLS: [(&str, &str); 3] = [
    ("per mesh", "(a) per mesh"),
    ("whole", "(b) whole"),
    ("auto", "(c) auto"),
];

/// The report's name of `protocol` (a row's).
fn protocol_label(protocol: &str) -> &'static str {
    PROTOCOLS
        .iter()
        .find(|(p, _)| *p == protocol)
        .map_or("?", |(_, label)| label)
}

/// One protocol's totals of one solver on one rig.
#[derive(Clone, Copy, Default)]
struct RigTotals {
    agreeing: usize,
    vertices: usize,
    one_bone_sum: f64,
    one_bone_pairs: usize,
    clip_sum: f64,
    clip_frames: usize,
}

impl RigTotals {
    fn add(&mut self, o: &RigTotals) {
        self.agreeing += o.agreeing;
        self.vertices += o.vertices;
        self.one_bone_sum += o.one_bone_sum;
        self.one_bone_pairs += o.one_bone_pairs;
        self.clip_sum += o.clip_sum;
        self.clip_frames += o.clip_frames;
    }
    fn agreement_pct(&self) -> f64 {
        100.0 * self.agreeing as f64 / self.vertices.max(1) as f64
    }
    fn one_bone_mean(&self) -> f64 {
        self.one_bone_sum / self.one_bone_pairs.max(1) as f64
    }
    fn clip_mean(&self) -> Option<f64> {
        (self.clip_frames > 0).then(|| self.clip_sum / self.clip_frames as f64)
    }
}

/// A rig's name and each solver's totals on it in one protocol.
type RigRow = (String, Vec<RigTotals>);

/// Per group: its rigs (in name order) and, per rig, each solver's totals in `protocol` in
/// the order of `solvers`.
fn rig_totals(rows: &[MeshRow], solvers: &[String], protocol: &str) -> Vec<(String, Vec<RigRow>)> {
    let mut folds: Vec<(String, Vec<RigRow>)> = Vec::new();
    for r in rows.iter().filter(|r| r.protocol == protocol) {
        let Some(k) = solvers.iter().position(|s| s == &r.solver) else {
            continue;
        };
        let f = match folds.iter().position(|(f, _)| f == &r.fold) {
            Some(f) => f,
            None => {
                folds.push((r.fold.clone(), Vec::new()));
                folds.len() - 1
            }
        };
        let rigs = &mut folds[f].1;
        let g = match rigs.iter().position(|(g, _)| g == &r.rig) {
            Some(g) => g,
            None => {
                rigs.push((r.rig.clone(), vec![RigTotals::default(); solvers.len()]));
                rigs.len() - 1
            }
        };
        let clip = r
            .clip_deviation_mean_pct
            .map_or(0.0, |m| m * r.clip_frames as f64);
        rigs[g].1[k].add(&RigTotals {
            agreeing: r.agreeing,
            vertices: r.vertices,
            one_bone_sum: r.one_bone_deviation_pct.iter().sum(),
            one_bone_pairs: r.one_bone_deviation_pct.len(),
            clip_sum: clip,
            clip_frames: r.clip_frames,
        });
    }
    folds.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, rigs) in &mut folds {
        rigs.sort_by(|a, b| a.0.cmp(&b.0));
    }
    folds
}

/// The three protocol (a) measures of one solver on one rig, `None` where undefined:
/// agreement (%, higher is better), one-bone and clip deviation (% diag, lower is better).
fn measures(t: &RigTotals) -> [Option<f64>; 3] {
    [
        (t.vertices > 0).then(|| t.agreement_pct()),
        (t.one_bone_pairs > 0).then(|| t.one_bone_mean()),
        t.clip_mean(),
    ]
}

/// Measure names, and whether higher is better.
const MEASURES: [(&str, bool); 3] = [
    ("agreement (%)", true),
    ("one-bone deviation (% diag)", false),
    ("clip deviation (% diag)", false),
];

/// The solvers (indices) best on measure `m` among `totals`; ties share the win. Empty when
/// the measure is undefined on the rig.
fn winners(totals: &[RigTotals], m: usize) -> Vec<usize> {
    let values: Vec<Option<f64>> = totals.iter().map(|t| measures(t)[m]).collect();
    let better = |a: f64, b: f64| if MEASURES[m].1 { a > b } else { a < b };
    let Some(top) = values
        .iter()
        .flatten()
        .copied()
        .reduce(|a, b| if better(b, a) { b } else { a })
    else {
        return Vec::new();
    };
    (0..totals.len())
        .filter(|&k| values[k].is_some_and(|v| (v - top).abs() <= 1e-9 * top.abs().max(1.0)))
        .collect()
}

/// The chart of per-rig scores of the rigs of `group` (`None`: no such rigs).
fn rig_chart(rows: &[MeshRow], solvers: &[String], group: &str) -> Option<RigScoresChart> {
    let (_, rigs) = rig_totals(rows, solvers, "per mesh")
        .into_iter()
        .find(|(g, _)| g == group)?;
    let series: Vec<(String, [Vec<f64>; 3])> = solvers
        .iter()
        .enumerate()
        .map(|(k, solver)| (solver.clone(), rig_values(&rigs, k)))
        .collect();
    Some(RigScoresChart {
        title: format!(
            "protocol (a) on the {} {group} rigs: one dot per rig, mean over rigs (triangle) \
             and its 95% bootstrap interval (bar)",
            rigs.len()
        ),
        panels: chart_panels(&series),
    })
}

/// The chart of per-rig scores of the rigs of `group` in protocols (a), (b) and (c), a row per
/// solver and protocol (`None`: no such rigs).
fn protocol_chart(rows: &[MeshRow], solvers: &[String], group: &str) -> Option<RigScoresChart> {
    let by_protocol = group_protocols(rows, solvers, group)?;
    let mut series = Vec::new();
    for (k, solver) in solvers.iter().enumerate() {
        for ((_, label), rigs) in PROTOCOLS.iter().zip(&by_protocol) {
            let short = &label[..3];
            series.push((format!("{solver} {short}"), rig_values(rigs, k)));
        }
    }
    Some(RigScoresChart {
        title: format!(
            "(a) per mesh, (b) whole, (c) auto on the {} {group} rigs: one dot per rig, mean \
             over rigs (triangle) and its 95% bootstrap interval (bar)",
            by_protocol[0].len()
        ),
        panels: chart_panels(&series),
    })
}

/// Per measure, the values of solver `k` on `rigs` (rigs where it is undefined left out).
fn rig_values(rigs: &[RigRow], k: usize) -> [Vec<f64>; 3] {
    std::array::from_fn(|m| {
        rigs.iter()
            .filter_map(|(_, t)| measures(&t[k])[m])
            .collect()
    })
}

/// A panel per measure, a row per named series of per-rig values.
fn chart_panels(series: &[(String, [Vec<f64>; 3])]) -> Vec<MeasurePanel> {
    MEASURES
        .iter()
        .enumerate()
        .map(|(m, &(name, higher))| MeasurePanel {
            measure: name.to_string(),
            higher_is_better: higher,
            solvers: series
                .iter()
                .map(|(row, values)| {
                    let (mean, low, high) = if values[m].is_empty() {
                        (f64::NAN, f64::NAN, f64::NAN)
                    } else {
                        interval(&values[m], m)
                    };
                    let scores = SolverScores {
                        rigs: values[m].clone(),
                        mean,
                        low,
                        high,
                    };
                    (row.clone(), scores)
                })
                .collect(),
        })
        .collect()
}

/// The mean of measure `m` over rigs (`values`, not empty) and its 95% bootstrap interval:
/// the same draws for every table and chart.
fn interval(values: &[f64], m: usize) -> (f64, f64, f64) {
    let mut rng = SplitMix(0x5EED ^ (m as u64) << 8);
    mean_interval(values, &mut rng)
}

/// The rigs of `group` in each protocol of [`PROTOCOLS`] (`None`: no such rigs), each with
/// every solver's totals; a rig missing from a protocol has empty totals there.
fn group_protocols(rows: &[MeshRow], solvers: &[String], group: &str) -> Option<[Vec<RigRow>; 3]> {
    let mut out: [Vec<RigRow>; 3] = Default::default();
    for (k, (protocol, _)) in PROTOCOLS.iter().enumerate() {
        out[k] = rig_totals(rows, solvers, protocol)
            .into_iter()
            .find(|(g, _)| g == group)
            .map_or(Vec::new(), |(_, rigs)| rigs);
    }
    (!out[0].is_empty()).then_some(out)
}

/// Per group, protocols (a), (b) and (c) side by side: each solver's mean over rigs (each rig
/// once) of the three measures with the 95% bootstrap interval over rigs, and the rigs where
/// (c) beats (b), and where they tie.
fn protocols_md(rows: &[MeshRow], solvers: &[String]) -> String {
    let mut s = String::from(
        "\n## protocols (a) per mesh, (b) whole, (c) auto side by side: mean over rigs (each rig counts once), 95% bootstrap interval over rigs, rigs (c) wins against (b)\n\n\
         (a) solves each mesh over its artist's bones; (b) the whole character over the bones some mesh is bound to; (c) binds each mesh with the library's binder (`bind`, `Bind::Auto`, default options) from the non-IK-target bones and each mesh's slot bone alone, then solves it over the bones chosen: no artist data.\n",
    );
    let groups: Vec<String> = rig_totals(rows, solvers, "per mesh")
        .into_iter()
        .map(|(g, _)| g)
        .collect();
    for group in groups {
        let Some(by) = group_protocols(rows, solvers, &group) else {
            continue;
        };
        s += &format!(
            "\n### group `{group}` ({} rigs)\n\n| solver | protocol |",
            by[0].len()
        );
        for (name, _) in MEASURES {
            s += &format!(" {name}: mean [95% interval] |");
        }
        for (name, _) in MEASURES {
            s += &format!(" (c) beats (b): {name} |");
        }
        s += "\n|---|---|";
        s += &"---|---|".repeat(MEASURES.len());
        s += "\n";
        for (k, solver) in solvers.iter().enumerate() {
            for (p, (_, label)) in PROTOCOLS.iter().enumerate() {
                s += &format!("| {solver} | {label} |");
                for (m, values) in rig_values(&by[p], k).iter().enumerate() {
                    if values.is_empty() {
                        s += " - |";
                        continue;
                    }
                    let (mean, lo, hi) = interval(values, m);
                    s += &format!(" {mean:.2} [{lo:.2}, {hi:.2}] |");
                }
                for m in 0..MEASURES.len() {
                    if p != 2 {
                        s += " |";
                        continue;
                    }
                    let (mut won, mut tied, mut rated) = (0, 0, 0);
                    for (rig, c) in &by[2] {
                        let Some((_, b)) = by[1].iter().find(|(r, _)| r == rig) else {
                            continue;
                        };
                        let w = winners(&[b[k], c[k]], m);
                        rated += usize::from(!w.is_empty());
                        won += usize::from(w == [1]);
                        tied += usize::from(w.len() == 2);
                    }
                    s += &format!(" {won} (+{tied} tied) of {rated} |");
                }
                s += "\n";
            }
        }
    }
    s
}

/// Per rig, protocol (c)'s binder: its bone sets against the artist's (precision, recall,
/// mean set sizes), then per group the means over rigs with their 95% bootstrap intervals.
fn binder_md(rigs: &[RigInfo]) -> String {
    let scored: Vec<(&RigInfo, &BinderScore)> = rigs
        .iter()
        .filter_map(|r| Some((r, r.binder.as_ref()?)))
        .collect();
    let Some((_, first)) = scored.first() else {
        return String::new();
    };
    let mut s = format!(
        "\n## protocol (c)'s binder per rig: its bone sets against the artist's (the whole solve by `{}`), pooled over the rig's scored meshes\n\n\
         | group | rig | scored meshes | artist's bones per mesh | binder's bones per mesh | precision (%) | recall (%) |\n|---|---|---|---|---|---|---|\n",
        first.solver
    );
    let mut groups: Vec<&str> = scored.iter().map(|(r, _)| r.fold.as_str()).collect();
    groups.sort_unstable();
    groups.dedup();
    for group in &groups {
        let mut mine: Vec<&(&RigInfo, &BinderScore)> =
            scored.iter().filter(|(r, _)| r.fold == *group).collect();
        mine.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        let mean = |f: fn(&BinderScore) -> f64, m: usize| {
            let values: Vec<f64> = mine.iter().map(|(_, b)| f(b)).collect();
            let (mean, lo, hi) = interval(&values, m);
            format!("**{mean:.1}** [{lo:.1}, {hi:.1}]")
        };
        s += &format!(
            "| {group} | **mean over {} rigs** [95% interval] | | {} | {} | {} | {} |\n",
            mine.len(),
            mean(|b| b.artist_bones_mean, 0),
            mean(|b| b.chosen_bones_mean, 0),
            mean(|b| b.precision_pct, 0),
            mean(|b| b.recall_pct, 0)
        );
        for (r, b) in mine {
            s += &format!(
                "| {group} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} |\n",
                r.name,
                r.meshes,
                b.artist_bones_mean,
                b.chosen_bones_mean,
                b.precision_pct,
                b.recall_pct
            );
        }
    }
    s
}

/// Per group, protocol (a): each solver's mean over rigs (each rig once) of the three
/// measures, with the 95% bootstrap interval over rigs and the rigs it wins (ties shared).
fn rig_means_md(rows: &[MeshRow], solvers: &[String]) -> String {
    let mut s = String::from(
        "\n## protocol (a), mean over rigs (each rig counts once), 95% bootstrap interval over rigs, rigs won\n",
    );
    for (group, rigs) in rig_totals(rows, solvers, "per mesh") {
        s += &format!("\n### group `{group}` ({} rigs)\n\n| solver |", rigs.len());
        for (name, _) in MEASURES {
            s += &format!(" {name}: mean [95% interval] | rigs won |");
        }
        s += "\n|---|";
        s += &"---|---|".repeat(MEASURES.len());
        s += "\n";
        for (k, solver) in solvers.iter().enumerate() {
            s += &format!("| {solver} |");
            for m in 0..MEASURES.len() {
                let values: Vec<f64> = rigs
                    .iter()
                    .filter_map(|(_, t)| measures(&t[k])[m])
                    .collect();
                let rated = rigs
                    .iter()
                    .filter(|(_, t)| !winners(t, m).is_empty())
                    .count();
                let won = rigs
                    .iter()
                    .filter(|(_, t)| winners(t, m).contains(&k))
                    .count();
                if values.is_empty() {
                    s += " - | - |";
                    continue;
                }
                let (mean, lo, hi) = interval(&values, m);
                s += &format!(" {mean:.2} [{lo:.2}, {hi:.2}] | {won} of {rated} |");
            }
            s += "\n";
        }
    }
    s
}

/// The rigs scored and the ones that failed to load.
fn rigs_md(rigs: &[RigInfo]) -> String {
    let mut s = String::from(
        "## rigs\n\n| rig | source | group | vertices | bones | scored meshes | clips | blend 2+ bones (%) | on the 0.05 grid (%) | error |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rigs {
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.0} | {:.0} | {} |\n",
            r.name,
            r.source,
            r.fold,
            r.vertices,
            r.bones,
            r.meshes,
            r.clips,
            100.0 * r.blend_share,
            100.0 * r.grid_share,
            match (r.stage, &r.error) {
                (Some(stage), Some(e)) => format!("{stage}: {}", e.replace('|', "\\|")),
                _ => String::new(),
            }
        );
    }
    s
}

/// Where the run's time went: each stage summed over rigs, and the slowest rigs.
fn time_md(rigs: &[RigInfo]) -> String {
    let mut total = StageSeconds::default();
    for r in rigs {
        total.load += r.seconds.load;
        total.clips += r.seconds.clips;
        total.solve += r.seconds.solve;
        total.score += r.seconds.score;
    }
    let mut s = String::from(
        "\n## where the time goes (wall-clock seconds on the machine that ran it)\n\n| rig | frames | load | clips | solve | score | total |\n|---|---|---|---|---|---|---|\n",
    );
    let row = |name: &str, frames: usize, t: &StageSeconds| {
        format!(
            "| {name} | {frames} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |\n",
            t.load,
            t.clips,
            t.solve,
            t.score,
            t.total()
        )
    };
    let frames: usize = rigs.iter().map(|r| r.clip_frames).sum();
    s += &row("**all rigs**", frames, &total);
    let mut slow: Vec<&RigInfo> = rigs.iter().filter(|r| r.error.is_none()).collect();
    slow.sort_by(|a, b| b.seconds.total().total_cmp(&a.seconds.total()));
    for r in slow.iter().take(5) {
        s += &row(&r.name, r.clip_frames, &r.seconds);
    }
    s
}

/// Protocol (a) per rig and solver, as CSV.
fn rigs_csv(rows: &[MeshRow], solvers: &[String]) -> String {
    let mut s = String::from(
        "group,rig,solver,vertices,agreement_pct,one_bone_mean_pct,clip_deviation_mean_pct\n",
    );
    for (group, rigs) in rig_totals(rows, solvers, "per mesh") {
        for (rig, totals) in rigs {
            for (solver, t) in solvers.iter().zip(&totals) {
                let [a, o, c] = measures(t).map(|m| m.map_or(String::new(), csv_num));
                s += &format!("{group},{rig},{solver},{},{a},{o},{c}\n", t.vertices);
            }
        }
    }
    s
}

/// Protocol (a) per rig: agreement / one-bone / clip deviation per solver, and which solvers
/// lead each measure on that rig.
fn per_rig_md(rows: &[MeshRow], solvers: &[String], protocol: &str) -> String {
    let mut s = format!(
        "\n## protocol {} per rig: agreement (%) / one-bone deviation / clip deviation (% diag)\n\n| group | rig | vertices |",
        &protocol_label(protocol)[..3]
    );
    for solver in solvers {
        s += &format!(" {solver} |");
    }
    s += " leads agreement | leads one-bone | leads clip |\n|---|---|---|";
    s += &"---|".repeat(solvers.len() + 3);
    s += "\n";
    for (group, rigs) in rig_totals(rows, solvers, protocol) {
        for (rig, totals) in &rigs {
            s += &format!("| {group} | {rig} | {} |", totals[0].vertices);
            for t in totals {
                let clip = t.clip_mean().map_or("-".into(), |c| format!("{c:.2}"));
                s += &format!(
                    " {:.1} / {:.2} / {clip} |",
                    t.agreement_pct(),
                    t.one_bone_mean()
                );
            }
            for m in 0..MEASURES.len() {
                let w: Vec<&str> = winners(totals, m)
                    .into_iter()
                    .map(|k| solvers[k].as_str())
                    .collect();
                s += &format!(
                    " {} |",
                    if w.is_empty() {
                        "-".into()
                    } else {
                        w.join(", ")
                    }
                );
            }
            s += "\n";
        }
    }
    s
}

fn leaderboard_md(rows: &[Leader]) -> String {
    let mut s = String::new();
    let mut last = (String::new(), "");
    for r in rows {
        if (r.fold.clone(), r.protocol) != last {
            last = (r.fold.clone(), r.protocol);
            s += &format!(
                "\n### fold `{}`, protocol {} ({} rigs, {} meshes, {} vertices)\n\n",
                r.fold,
                protocol_label(r.protocol),
                r.rigs,
                r.meshes,
                r.vertices
            );
            if let Some(a) = r.clip_artist_flipped_pct {
                s += &format!(
                    "clips: {} (mesh, frame) pairs; the artist's own weights flip {a:.2}% of (triangle, frame) pairs.\n\n",
                    r.clip_frames
                );
            }
            s += "| solver | dominant bone agrees (%) | on meshes < 60 vertices (%) | weight distance | one-bone deviation mean (% diag) | p95 | clip deviation mean (% diag) | p95 | max | clip flips (%) | failed meshes | time (s) |\n";
            s += "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
        }
        let opt = |v: Option<f64>| v.map_or("-".into(), |a| format!("{a:.2}"));
        s += &format!(
            "| {} | {:.1} | {} | {:.3} | {:.2} | {:.2} | {} | {} | {} | {} | {} | {:.2} |\n",
            r.solver,
            r.agreement_pct,
            r.agreement_small_pct
                .map_or("-".into(), |a| format!("{a:.1}")),
            r.weight_distance,
            r.one_bone_mean_pct,
            r.one_bone_p95_pct,
            opt(r.clip_deviation_mean_pct),
            opt(r.clip_deviation_p95_pct),
            opt(r.clip_deviation_max_pct),
            opt(r.clip_flipped_pct),
            r.failed_meshes,
            r.time_s
        );
    }
    s
}

fn leaderboard_csv(rows: &[Leader]) -> String {
    let mut s = String::from(
        "fold,protocol,solver,rigs,meshes,vertices,agreement_pct,agreement_small_pct,weight_distance,one_bone_mean_pct,one_bone_p95_pct,clip_frames,clip_deviation_mean_pct,clip_deviation_p95_pct,clip_deviation_max_pct,clip_flipped_pct,clip_artist_flipped_pct,failed_meshes,time_s\n",
    );
    for r in rows {
        s += &format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.fold,
            r.protocol,
            r.solver,
            r.rigs,
            r.meshes,
            r.vertices,
            csv_num(r.agreement_pct),
            r.agreement_small_pct.map_or(String::new(), csv_num),
            csv_num(r.weight_distance),
            csv_num(r.one_bone_mean_pct),
            csv_num(r.one_bone_p95_pct),
            r.clip_frames,
            r.clip_deviation_mean_pct.map_or(String::new(), csv_num),
            r.clip_deviation_p95_pct.map_or(String::new(), csv_num),
            r.clip_deviation_max_pct.map_or(String::new(), csv_num),
            r.clip_flipped_pct.map_or(String::new(), csv_num),
            r.clip_artist_flipped_pct.map_or(String::new(), csv_num),
            r.failed_meshes,
            json_num(r.time_s).map_or(String::new(), csv_num)
        );
    }
    s
}

/// The experiment on a rig it is given: it scores every solver in every protocol, and the
/// artist's own weights would score perfectly (checked through the library's scores, which
/// the experiment uses). The data it reads is the repository's `data/`, one folder up.
#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::Parser;
    use skinweights::io::dragonbones::load_dragonbones;
    use skinweights::metrics::artist::{score_against_artist, ArtistMesh, ArtistScoreOptions};
    use skinweights::scene::SubScene;

    const BODY: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/dragonbones-you-xin/body_ske.json"
    );

    #[test]
    fn the_artists_weights_score_perfectly_on_every_mesh_of_the_dragonbones_body() {
        let rig = load_dragonbones(BODY).unwrap();
        for m in &rig.report.meshes {
            let cut = SubScene::new(&rig.scene, &m.part, &m.bones).unwrap();
            let mesh = ArtistMesh {
                vertices: &cut.vertices,
                bones: &cut.bones,
            };
            let s = score_against_artist(
                &rig.scene,
                &rig.artist,
                &rig.artist,
                mesh,
                &ArtistScoreOptions::default(),
            )
            .unwrap();
            assert_eq!(s.agreeing, s.vertices, "{}", m.part);
            assert_eq!(s.weight_distance(), 0.0, "{}", m.part);
            assert_eq!(s.one_bone_deviation_pct.len(), m.bones.len());
            assert!(
                s.one_bone_deviation_pct.iter().all(|&d| d == 0.0),
                "{}",
                m.part
            );
        }
    }

    /// Runs the benchmark with `args` (as the command line would give them) and returns what it
    /// prints.
    fn benchmark_prints(args: &[&str]) -> String {
        let cli = Cli::parse_from(std::iter::once("benchmark").chain(args.iter().copied()));
        let mut printed = Vec::new();
        super::run(&cli, &mut printed).unwrap();
        String::from_utf8(printed).unwrap()
    }

    /// Runs the benchmark with `args` and `--json`, and parses what it prints.
    fn benchmark_json(args: &[&str]) -> serde_json::Value {
        let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
        serde_json::from_str(&benchmark_prints(&args)).unwrap()
    }

    #[test]
    fn benchmark_scores_every_solver_in_every_protocol_on_a_given_rig() {
        let out = tempfile::tempdir().unwrap();
        let dir = out.path().to_str().unwrap();
        let json = benchmark_json(&[BODY, "--solvers", "euclidean,heat", "--out", dir]);
        let board = json["leaderboard"].as_array().unwrap();
        assert_eq!(
            board.len(),
            6,
            "2 solvers x 3 protocols in the `painted` group"
        );
        for row in board {
            assert_eq!(row["fold"], "painted");
            assert_eq!(row["meshes"], 7);
            assert_eq!(row["vertices"], 330);
            // The binder's euclidean weights agree on 36.4% of the body when measured.
            let floor = if row["protocol"] == "auto" {
                25.0
            } else {
                40.0
            };
            let agreement = row["agreement_pct"].as_f64().unwrap();
            assert!(agreement > floor && agreement < 100.0, "{row}");
            let deviation = row["one_bone_mean_pct"].as_f64().unwrap();
            assert!(deviation > 0.0 && deviation.is_finite(), "{row}");
            assert!(row["one_bone_p95_pct"].as_f64().unwrap() >= deviation);
        }
        // Protocol (a) gives each mesh only its artist's bones: euclidean agrees far more often
        // than with every deforming bone of the body (74.5% against 60.3% when measured).
        let agreement = |protocol: &str, solver: &str| {
            board
                .iter()
                .find(|r| r["protocol"] == protocol && r["solver"] == solver)
                .unwrap()["agreement_pct"]
                .as_f64()
                .unwrap()
        };
        assert!(agreement("per mesh", "euclidean") > agreement("whole", "euclidean") + 5.0);
        // Protocol (c)'s binder is scored against the artist's bone sets.
        let binder = &json["rigs"][0]["binder"];
        assert_eq!(
            binder["solver"], "euclidean",
            "best not run: the first solver"
        );
        for key in ["precision_pct", "recall_pct"] {
            let v = binder[key].as_f64().unwrap();
            assert!(v > 0.0 && v <= 100.0, "{binder}");
        }
        let report = std::fs::read_to_string(out.path().join("leaderboard.md")).unwrap();
        assert!(report.contains("| heat | (c) auto |"), "{report}");
        assert!(report.contains("(c) beats (b)"), "{report}");
        assert!(report.contains("precision (%)"), "{report}");
        assert!(out.path().join("protocols.png").exists());
        assert!(out.path().join("leaderboard.md").exists());
        assert!(out.path().join("benchmark.json").exists());
    }

    /// Alien's artist meshes fold over themselves (its eye): cut out one by one for protocol (a)
    /// they stay artist meshes, and every solver scores them.
    #[test]
    fn benchmark_scores_folded_artist_meshes_of_a_spine_rig() {
        let alien = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../data/spine/alien/alien-pro.json"
        );
        let json = benchmark_json(&[alien, "--solvers", "euclidean,heat,best"]);
        let rows = json["meshes"].as_array().unwrap();
        assert!(!rows.is_empty());
        for row in rows {
            assert!(row["failed"].is_null(), "{row}");
            assert!(row["agreeing"].as_u64().unwrap() <= row["vertices"].as_u64().unwrap());
        }
    }

    /// A rig that does not load is a row with its error; the other rigs are still scored, and
    /// the report's first tables are per rig and means over rigs.
    #[test]
    fn a_rig_that_fails_to_load_is_a_row_with_its_error() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("broken_ske.json");
        std::fs::write(&bad, "{\"armature\": 7}").unwrap();
        let json = benchmark_json(&[
            robot_path(),
            bad.to_str().unwrap(),
            "--solvers",
            "euclidean,heat",
        ]);
        let rigs = json["rigs"].as_array().unwrap();
        assert_eq!(rigs.len(), 2);
        let failed = rigs.iter().find(|r| r["name"] == "broken_ske").unwrap();
        assert_eq!(failed["fold"], "failed");
        assert!(
            failed["error"].as_str().unwrap().contains("armature"),
            "{failed}"
        );
        let robot = rigs
            .iter()
            .find(|r| r["name"] == "dragonbones-robot_ske")
            .unwrap();
        assert!(robot["error"].is_null());
        assert_eq!(robot["meshes"], 2);

        let text = benchmark_prints(&[robot_path(), "--solvers", "euclidean,heat"]);
        let means = text
            .find("mean over rigs")
            .expect("a means-over-rigs table");
        let pooled = text.find("pooled over vertices").expect("a pooled table");
        assert!(means < pooled, "means over rigs come first");
        assert!(text.contains("rigs won"), "{text}");
    }

    /// A rig that fails at any stage after loading (clip sampling, cutting, a solver, a
    /// score, or a panic) is a row with that stage and its error, and the other rig is scored.
    #[test]
    fn a_rig_that_fails_at_any_stage_is_a_row_and_the_run_goes_on() {
        for stage in ["load", "clips", "cut", "solve", "score", "panic"] {
            super::FAIL_AT
                .with(|f| *f.borrow_mut() = Some(("dragonbones-robot_ske".into(), stage)));
            let json = benchmark_json(&[robot_path(), BODY, "--solvers", "euclidean"]);
            super::FAIL_AT.with(|f| *f.borrow_mut() = None);
            let rigs = json["rigs"].as_array().unwrap();
            assert_eq!(rigs.len(), 2, "{stage}");
            let robot = rigs
                .iter()
                .find(|r| r["name"] == "dragonbones-robot_ske")
                .unwrap();
            assert_eq!(robot["fold"], "failed", "{stage}");
            assert_eq!(robot["stage"], stage, "{robot}");
            let planted = if stage == "panic" {
                "a planted panic in dragonbones-robot_ske".to_string()
            } else {
                format!("a planted failure at {stage}")
            };
            assert_eq!(robot["error"], planted.as_str(), "{robot}");
            let body = rigs.iter().find(|r| r["name"] == "body_ske").unwrap();
            assert!(body["error"].is_null(), "{stage}: {body}");
            assert_eq!(body["meshes"], 7, "{stage}");
            let rows = json["meshes"].as_array().unwrap();
            assert_eq!(
                rows.len(),
                21,
                "{stage}: the body's 7 meshes in 3 protocols"
            );
            assert!(rows.iter().all(|r| r["rig"] == "body_ske"), "{stage}");
        }
    }

    fn robot_path() -> &'static str {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../data/artist-rigs/dragonbones-robot_ske.json"
        )
    }
}
