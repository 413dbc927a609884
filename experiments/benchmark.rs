//! # benchmark: every solver against every artist-weighted rig
//!
//! Each rig is a character whose weights an artist painted (Spine, DragonBones, Godot; any
//! such file can be given). Spine rigs are read with every attachment of every skin, and
//! their weighted meshes with two or more bones are scored. Two protocols:
//! - **(a) the artist's workflow** (`per mesh`): each mesh is solved alone with the bones its
//!   artist bound it to ([`skinweights::scene::SubScene`]), and the per-mesh weights are
//!   assembled into whole-character weights;
//! - **(b) fully automatic** (`whole`): the whole character is solved once with all its
//!   deforming bones (the bones some mesh is bound to).
//!
//! Both are scored against the artist with [`skinweights::metrics::artist`], mesh by mesh:
//! dominant-bone agreement (ties in the artist's row count for every tied bone), the
//! total-variation weight distance, and the one-bone deviation (each bone of the mesh rotated
//! by 40 degrees in turn on the whole rig: the worst vertex's distance from where the
//! artist's weights put it, % of the mesh's diagonal; mean and 95th percentile over
//! (mesh, bone) pairs), plus solve time and failures.
//!
//! **Folds.** The shipped rigs are split once, by name, into a *tuning* fold and a
//! *held-out* fold ([`FOLDS`]). Defaults are chosen on the tuning fold; the held-out fold's
//! figures are the ones to quote. Rigs given on the command line form their own `given`
//! fold.
//!
//! Writes `results/benchmark/`: `benchmark.json` (every score per rig, mesh and solver),
//! `leaderboard.md` and `leaderboard.csv` (per fold and protocol).
//!
//! ```text
//! cargo run --release --bin benchmark [-- RIG ...] [--solvers LIST] [--json] [--out DIR]
//! ```

mod common;

use clap::Parser;
use common::{csv_num, json_num, main_with, progress, write_json, write_text, Res};
use serde::Serialize;
use skinweights::io::dragonbones::load_dragonbones;
use skinweights::io::godot::load_godot;
use skinweights::io::spine::{load_spine, SkinSelection, SpineImport, SpineImportOptions};
use skinweights::metrics::artist::{score_against_artist, ArtistMesh, ArtistScoreOptions};
use skinweights::scene::SubScene;
use skinweights::{Scene, Weights};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Parser)]
#[command(about = "Score every solver against artist-weighted rigs, mesh by mesh and whole")]
struct Cli {
    /// Rig files (Spine JSON, DragonBones `_ske.json`, Godot `.tscn`). Default: every
    /// artist-weighted rig the project ships.
    rigs: Vec<PathBuf>,
    /// Comma-separated solvers (default: linear, euclidean, geodesic, heat, bbw, best).
    #[arg(long, value_delimiter = ',')]
    solvers: Option<Vec<String>>,
    /// Print the results as JSON on standard output instead of the table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    common: common::CommonArgs,
}

/// The solvers scored by default. The masks are left out: solving a mesh with its own bones
/// already is a per-part mask, so in protocol (a) they would repeat their base solver.
const DEFAULT_SOLVERS: [&str; 6] = ["linear", "euclidean", "geodesic", "heat", "bbw", "best"];

/// The fixed split of the shipped rigs (by rig name): decide on `tune`, report `held-out`.
/// Chosen once so the two folds have similar vertex counts and both mix formats and sizes.
pub const FOLDS: &[(&str, &str)] = &[
    ("dragonbones-you-xin", "tune"),
    ("spineboy", "tune"),
    ("stretchyman", "tune"),
    ("owl", "tune"),
    ("alien", "tune"),
    ("cloud-pot", "tune"),
    ("gbot", "held-out"),
    ("raptor", "held-out"),
    ("tank", "held-out"),
    ("vine", "held-out"),
    ("powerup", "held-out"),
    ("goblins", "held-out"),
];

/// The shipped rigs, relative to the crate root.
const SHIPPED: &[(&str, &str)] = &[
    (
        "dragonbones-you-xin",
        "data/dragonbones-you-xin/body_ske.json",
    ),
    ("gbot", "data/godot-gbot/player.tscn"),
    ("spineboy", "data/spine/spineboy/spineboy-pro.json"),
    ("stretchyman", "data/spine/stretchyman/stretchyman-pro.json"),
    ("owl", "data/spine/owl/owl-pro.json"),
    ("alien", "data/spine/alien/alien-pro.json"),
    ("cloud-pot", "data/spine/cloud-pot/cloud-pot.json"),
    ("raptor", "data/spine/raptor/raptor-pro.json"),
    ("tank", "data/spine/tank/tank-pro.json"),
    ("vine", "data/spine/vine/vine-pro.json"),
    ("powerup", "data/spine/powerup/powerup-pro.json"),
    ("goblins", "data/spine/goblins/goblins-pro.json"),
];

/// A character with painted weights, and per mesh the bones the artist bound it to.
struct Rig {
    name: String,
    fold: String,
    scene: Scene,
    artist: Weights,
    /// Per mesh: its part name and the artist's bone names.
    meshes: Vec<(String, Vec<String>)>,
}

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
    vertices: usize,
    bones: usize,
    meshes: usize,
}

/// Meshes under this many vertices are also scored apart: most artist meshes are this small.
const SMALL_MESH: usize = 60;

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    main_with(|| run(&cli))
}

fn run(cli: &Cli) -> Res<()> {
    let started = Instant::now();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rigs: Vec<Rig> = if cli.rigs.is_empty() {
        SHIPPED
            .iter()
            .map(|(name, file)| load_rig(&root.join(file), name, fold_of(name)))
            .collect::<Res<_>>()?
    } else {
        cli.rigs
            .iter()
            .map(|path| {
                let name = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| path.display().to_string());
                load_rig(path, &name, "given")
            })
            .collect::<Res<_>>()?
    };
    let solvers: Vec<String> = cli
        .solvers
        .clone()
        .unwrap_or_else(|| DEFAULT_SOLVERS.iter().map(|s| s.to_string()).collect());
    for s in &solvers {
        skinweights::solvers::solver_by_name(s, skinweights::solvers::NO_OPTIONS)?;
    }

    let jobs: usize = rigs.iter().map(|r| r.meshes.len() + 1).sum::<usize>() * solvers.len();
    let bar = progress(jobs as u64, "solving");
    let mut rows = Vec::new();
    let mut times: Vec<(String, &'static str, String, f64)> = Vec::new();
    for rig in &rigs {
        let cuts: Vec<(String, SubScene)> = rig
            .meshes
            .iter()
            .map(|(part, bones)| Ok((part.clone(), SubScene::new(&rig.scene, part, bones)?)))
            .collect::<Res<_>>()?;
        let deforming = deforming_bones(rig);
        for solver in &solvers {
            // (a) mesh by mesh with the artist's bones.
            let mut full = Weights::zeros(rig.scene.mesh.vertex_count(), rig.scene.skeleton.len());
            let mut failed = vec![None; cuts.len()];
            let t = Instant::now();
            for (k, (part, cut)) in cuts.iter().enumerate() {
                bar.set_message(format!("{} {solver} on {part}", rig.name));
                let sub = match skinweights::solve(&cut.scene, solver) {
                    Ok(w) => w,
                    Err(e) => {
                        failed[k] = Some(e.to_string());
                        uniform(cut.vertices.len(), cut.bones.len())
                    }
                };
                cut.scatter(&sub, &mut full)?;
                bar.inc(1);
            }
            times.push((
                rig.fold.clone(),
                "per mesh",
                solver.clone(),
                t.elapsed().as_secs_f64(),
            ));
            rows.extend(score_rig(rig, &cuts, &full, solver, "per mesh", &failed)?);

            // (b) the whole character with its deforming bones.
            bar.set_message(format!("{} {solver} on the whole character", rig.name));
            let t = Instant::now();
            let (whole, failure) = solve_whole(rig, &deforming, solver)?;
            times.push((
                rig.fold.clone(),
                "whole",
                solver.clone(),
                t.elapsed().as_secs_f64(),
            ));
            let failed = vec![failure; cuts.len()];
            rows.extend(score_rig(rig, &cuts, &whole, solver, "whole", &failed)?);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();

    let leaderboard = leaderboard(&rows, &times, &solvers);
    let output = Output {
        experiment: "benchmark",
        rigs: rigs
            .iter()
            .map(|r| RigInfo {
                name: r.name.clone(),
                fold: r.fold.clone(),
                vertices: r.scene.mesh.vertex_count(),
                bones: r.scene.skeleton.len(),
                meshes: r.meshes.len(),
            })
            .collect(),
        solvers: solvers.clone(),
        leaderboard: leaderboard.clone(),
        meshes: rows,
        seconds: started.elapsed().as_secs_f64(),
    };
    if cli.json {
        println!("{}", serde_json::to_string_pretty(&output)?);
    } else {
        println!("{}", leaderboard_md(&leaderboard));
    }
    if cli.rigs.is_empty() || cli.common.out.is_some() {
        let dir = cli.common.out_dir("benchmark")?;
        write_text(&dir, "leaderboard.md", &leaderboard_md(&leaderboard))?;
        write_text(&dir, "leaderboard.csv", &leaderboard_csv(&leaderboard))?;
        write_json(&dir, "benchmark.json", &output)?;
        eprintln!("wrote {} in {:.1} s", dir.display(), output.seconds);
    }
    Ok(())
}

fn fold_of(name: &str) -> &'static str {
    FOLDS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
        .unwrap_or("given")
}

/// Reads a rig by its extension and content: Godot `.tscn`, Spine JSON (a `skeleton.spine`
/// version; every attachment of every skin), or DragonBones JSON.
fn load_rig(path: &Path, name: &str, fold: &str) -> Res<Rig> {
    let is_tscn = path.extension().is_some_and(|e| e == "tscn");
    let (scene, artist, meshes) = if !is_tscn && is_spine(path)? {
        let options = SpineImportOptions::default().with_skin(SkinSelection::All);
        let s = load_spine(path, None, &options)?;
        let meshes = spine_meshes(&s);
        (s.scene, s.artist, meshes)
    } else if is_tscn {
        let g = load_godot(path)?;
        let meshes = g
            .report
            .meshes
            .iter()
            .map(|m| (m.part.clone(), m.bones.clone()));
        (g.scene, g.artist, meshes.collect())
    } else {
        let d = load_dragonbones(path)?;
        let meshes = d
            .report
            .meshes
            .iter()
            .map(|m| (m.part.clone(), m.bones.clone()));
        (d.scene, d.artist, meshes.collect())
    };
    Ok(Rig {
        name: name.to_string(),
        fold: fold.to_string(),
        scene,
        artist,
        meshes,
    })
}

/// Whether a JSON file is a Spine export (its `skeleton` object names a `spine` version).
fn is_spine(path: &Path) -> Res<bool> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    Ok(json["skeleton"]["spine"].is_string())
}

/// A Spine rig's weighted meshes with at least two bones, each with the bones its artist
/// weighted it to (rigid and one-bone meshes score 100% for every solver and are left out).
fn spine_meshes(s: &SpineImport) -> Vec<(String, Vec<String>)> {
    let names = s.scene.skeleton.names();
    s.report
        .attachments
        .iter()
        .filter(|a| a.weighted)
        .filter_map(|a| {
            let bones: Vec<String> = (0..names.len())
                .filter(|&b| a.vertex_range().any(|v| s.artist.get(v, b) > 0.0))
                .map(|b| names[b].clone())
                .collect();
            (bones.len() >= 2).then(|| (a.part.clone(), bones))
        })
        .collect()
}

/// Equal weights on every bone: what a failed mesh is scored with.
fn uniform(vertices: usize, bones: usize) -> Weights {
    let mut w = Weights::zeros(vertices, bones);
    for v in 0..vertices {
        w.row_mut(v)
            .iter_mut()
            .for_each(|x| *x = 1.0 / bones as f64);
    }
    w
}

/// Scene indices of the bones some mesh of the rig is bound to, in scene order.
fn deforming_bones(rig: &Rig) -> Vec<usize> {
    let mut out: Vec<usize> = rig
        .meshes
        .iter()
        .flat_map(|(_, bones)| bones.iter())
        .filter_map(|b| rig.scene.skeleton.index_of(b))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Protocol (b): the whole mesh with the deforming bones only, scattered back to the rig.
fn solve_whole(rig: &Rig, deforming: &[usize], solver: &str) -> Res<(Weights, Option<String>)> {
    let names: Vec<String> = deforming
        .iter()
        .map(|&b| rig.scene.skeleton.bones()[b].name.clone())
        .collect();
    let cut = SubScene::with_bones(&rig.scene, &names)?;
    let (solved, failure) = match skinweights::solve(&cut.scene, solver) {
        Ok(w) => (w, None),
        Err(e) => (
            uniform(cut.vertices.len(), cut.bones.len()),
            Some(e.to_string()),
        ),
    };
    let mut full = Weights::zeros(rig.scene.mesh.vertex_count(), rig.scene.skeleton.len());
    cut.scatter(&solved, &mut full)?;
    Ok((full, failure))
}

fn score_rig(
    rig: &Rig,
    cuts: &[(String, SubScene)],
    weights: &Weights,
    solver: &str,
    protocol: &'static str,
    failed: &[Option<String>],
) -> Res<Vec<MeshRow>> {
    let options = ArtistScoreOptions::default();
    let mut rows = Vec::new();
    for ((part, cut), failed) in cuts.iter().zip(failed) {
        let mesh = ArtistMesh {
            vertices: &cut.vertices,
            bones: &cut.bones,
        };
        let s = score_against_artist(&rig.scene, weights, &rig.artist, mesh, &options)?;
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
        for protocol in ["per mesh", "whole"] {
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

/// Nearest-rank percentile of sorted `values` (0 for none).
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
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
                if r.protocol == "per mesh" {
                    "(a) per mesh"
                } else {
                    "(b) whole"
                },
                r.rigs,
                r.meshes,
                r.vertices
            );
            s += "| solver | dominant bone agrees (%) | on meshes < 60 vertices (%) | weight distance | one-bone deviation mean (% diag) | p95 | failed meshes | time (s) |\n";
            s += "|---|---|---|---|---|---|---|---|\n";
        }
        s += &format!(
            "| {} | {:.1} | {} | {:.3} | {:.2} | {:.2} | {} | {:.2} |\n",
            r.solver,
            r.agreement_pct,
            r.agreement_small_pct
                .map_or("-".into(), |a| format!("{a:.1}")),
            r.weight_distance,
            r.one_bone_mean_pct,
            r.one_bone_p95_pct,
            r.failed_meshes,
            r.time_s
        );
    }
    s
}

fn leaderboard_csv(rows: &[Leader]) -> String {
    let mut s = String::from(
        "fold,protocol,solver,rigs,meshes,vertices,agreement_pct,agreement_small_pct,weight_distance,one_bone_mean_pct,one_bone_p95_pct,failed_meshes,time_s\n",
    );
    for r in rows {
        s += &format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
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
            r.failed_meshes,
            json_num(r.time_s).map_or(String::new(), csv_num)
        );
    }
    s
}
