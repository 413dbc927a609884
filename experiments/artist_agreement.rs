//! # artist_agreement: how close does each solver come to an artist's hand-painted weights?
//!
//! The DragonBones character in `data/dragonbones-you-xin/body_ske.json` (MIT) is drawn as 7
//! layered meshes (arms, legs, body, head, face) whose weights an artist painted by hand, up
//! to 4 bones per vertex. It is imported with `skinweights::io::dragonbones::load_dragonbones`: one
//! scene with one part per mesh, the bind pose as rest skeleton, and the artist's weights.
//!
//! For each mesh, every solver runs on that mesh alone with exactly the bones the artist
//! used on it ([`skinweights::scene::SubScene`]); the per-mesh results are assembled into
//! full-character weights. Solving each mesh with its own bone list *is* a per-part mask, so
//! `mask` and `heat+mask` would repeat `euclidean` and `heat` here and are not run.
//!
//! Scores against the artist, per mesh and over all 330 vertices:
//! - **dominant-bone agreement**: % of vertices whose largest weight is on the same bone;
//! - **weight distance**: per vertex, half the L1 distance between the two rows over all
//!   bones (the total-variation distance: the least weight that must move between bones to
//!   turn one row into the other; 0 to 1), averaged;
//! - **off the artist's bones**: per vertex, the weight on bones the artist did not use on
//!   that mesh (0 by construction when solving mesh by mesh), averaged;
//! - **mean absolute weight error**: mean over vertices and over the artist's bones on the
//!   mesh of `|w_solver - w_artist|`.
//!
//! And the leak the weights cause, next to the artist's: the drag of each of the scene's
//! arm-lift probes (see docs/metrics.md: displacement of the watched body vertices from where their
//! own bone alone would put them, % of the character's height).
//!
//! Writes `results/artist_agreement/`: `agreement.csv` (solver x mesh), `drag.csv` (solver x
//! probe), `artist_agreement.json` (both, plus the import report), and `weights.png|svg`
//! (weight maps and the first lift probe: artist, then each solver).
//!
//! ```text
//! cargo run --release --bin artist_agreement [-- --out DIR]
//! ```
//!
//! The same scores for the Godot 4 rig `data/godot-gbot/player.tscn` (MIT: 7 Polygon2D
//! layers, 110 points, 16 bones, weights painted in Godot's editor), imported with
//! `skinweights::io::godot::load_godot`, go to `results/artist_agreement/gbot/`. Its bones
//! have no upper-arm names, so the importer makes no lift probes: no drag rows and no
//! figure for it.
//!
//! The characters are small (330 and 110 vertices), so `--quick` changes nothing.

mod common;

use clap::Parser;
use common::{csv_num, main_with, progress, save_png_svg, write_json, write_text, Res};
use serde::Serialize;
use skinweights::compare::probe_view;
use skinweights::io::dragonbones::load_dragonbones;
use skinweights::io::godot::load_godot;
use skinweights::metrics::drag;
use skinweights::plot::{figure_panels, Grid};
use skinweights::scene::SubScene;
use skinweights::{scene::Scene, weights::Weights};
use std::path::Path;

#[derive(Parser)]
#[command(about = "Score every solver against an artist's hand-painted weights (DragonBones)")]
struct Cli {
    #[command(flatten)]
    common: common::CommonArgs,
}

/// Solvers run mesh by mesh with the artist's bones (see the module docs for why the masks
/// are not).
const PER_MESH_SOLVERS: [&str; 5] = ["linear", "euclidean", "geodesic", "heat", "best"];
/// Solvers run once on the whole character with all its bones: the registry's baselines,
/// then these.
fn whole_solvers() -> Vec<&'static str> {
    skinweights::solvers::with_role(skinweights::solvers::Role::Baseline)
}
/// Run on the whole character after the baselines: the recommended solver.
const WHOLE_EXTRA: &[&str] = &[skinweights::solvers::RECOMMENDED_SOLVER];
/// Label suffixes of the two set-ups.
const PER_MESH: &str = "per mesh";
const WHOLE: &str = "whole";
/// The weight sets drawn in the figure, in column order.
const FIGURE: [&str; 5] = [
    "artist",
    "heat (per mesh)",
    "geodesic (per mesh)",
    "heat (whole)",
    "euclidean (whole)",
];
/// The DragonBones character, relative to the crate root.
const CHARACTER: &str = "data/dragonbones-you-xin/body_ske.json";
/// The Godot rig, relative to the crate root.
const GBOT: &str = "data/godot-gbot/player.tscn";

/// A character with painted weights, and per mesh the bones the artist painted on it.
struct Character {
    file: &'static str,
    scene: Scene,
    artist: Weights,
    meshes: Vec<(String, Vec<String>)>,
}

#[derive(Serialize, Clone)]
struct Agreement {
    weights: String,
    mesh: String,
    vertices: usize,
    bones: usize,
    mean_abs_error: f64,
    weight_distance: f64,
    off_artist_bones: f64,
    dominant_agreement_pct: f64,
    time_s: Option<f64>,
}

#[derive(Serialize, Clone)]
struct DragRow {
    weights: String,
    probe: String,
    drag_max_pct: f64,
    drag_mean_pct: f64,
}

#[derive(Serialize)]
struct Output {
    experiment: &'static str,
    character: &'static str,
    meshes: Vec<MeshInfo>,
    solvers: Vec<String>,
    agreement: Vec<Agreement>,
    drag: Vec<DragRow>,
    seconds: f64,
}

#[derive(Serialize)]
struct MeshInfo {
    mesh: String,
    vertices: usize,
    bones: Vec<String>,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    main_with(|| run(&cli))
}

fn run(cli: &Cli) -> Res<()> {
    let dir = cli.common.out_dir("artist_agreement")?;
    let root = common::repo_root();
    let db = load_dragonbones(root.join(CHARACTER))?;
    let dragonbones = Character {
        file: CHARACTER,
        meshes: db
            .report
            .meshes
            .iter()
            .map(|m| (m.part.clone(), m.bones.clone()))
            .collect(),
        scene: db.scene,
        artist: db.artist,
    };
    evaluate(&dragonbones, &dir)?;
    let gb = load_godot(root.join(GBOT))?;
    let gbot = Character {
        file: GBOT,
        meshes: gb
            .report
            .meshes
            .iter()
            .map(|m| (m.part.clone(), m.bones.clone()))
            .collect(),
        scene: gb.scene,
        artist: gb.artist,
    };
    let gbot_dir = dir.join("gbot");
    std::fs::create_dir_all(&gbot_dir)?;
    evaluate(&gbot, &gbot_dir)
}

/// Scores every solver against `character`'s painted weights and writes the results to `dir`.
fn evaluate(character: &Character, dir: &Path) -> Res<()> {
    let started = std::time::Instant::now();
    let dir = dir.to_path_buf();
    println!("## {}\n", character.file);
    let scene = &character.scene;
    let names = scene.skeleton().names();
    let artist = &character.artist;

    // Each mesh with the bones the artist used on it.
    let mut parts = Vec::new();
    for (part, bones) in &character.meshes {
        let cut = SubScene::new(scene, part, bones)?;
        parts.push((part.clone(), cut));
    }
    let meshes = parts
        .iter()
        .map(|(name, cut)| MeshInfo {
            mesh: name.clone(),
            vertices: cut.vertices.len(),
            bones: cut.bones.iter().map(|&b| names[b].clone()).collect(),
        })
        .collect();

    let jobs = PER_MESH_SOLVERS.len() * parts.len() + whole_solvers().len() + WHOLE_EXTRA.len();
    let bar = progress(jobs as u64, "solving");
    let mut agreement = Vec::new();
    let mut assembled = Vec::new();
    for solver in PER_MESH_SOLVERS {
        let mut full =
            Weights::zeros_unchecked(scene.mesh().vertex_count(), scene.skeleton().len());
        let mut total_time = 0.0;
        for (name, cut) in &parts {
            bar.set_message(format!("{solver} on {name}"));
            let t = std::time::Instant::now();
            let sub = skinweights::solvers::solve(&cut.scene, solver)?;
            total_time += t.elapsed().as_secs_f64();
            cut.scatter(&sub, &mut full)?;
            bar.inc(1);
        }
        full.validate()?;
        assembled.push((format!("{solver} ({PER_MESH})"), full, total_time));
    }
    for &solver in whole_solvers().iter().chain(WHOLE_EXTRA) {
        bar.set_message(format!("{solver} on the whole character"));
        let t = std::time::Instant::now();
        let full = skinweights::solvers::solve(scene, solver)?;
        assembled.push((
            format!("{solver} ({WHOLE})"),
            full,
            t.elapsed().as_secs_f64(),
        ));
        bar.inc(1);
    }
    bar.finish_and_clear();

    for (label, full, time_s) in &assembled {
        let mut per_mesh = Vec::new();
        for (name, cut) in &parts {
            per_mesh.push(score(label, name, &cut.vertices, &cut.bones, full, artist));
        }
        let mut overall = combine(label, &per_mesh);
        overall.time_s = Some(*time_s);
        agreement.extend(per_mesh);
        agreement.push(overall);
    }

    let mut drag_rows = Vec::new();
    let labelled: Vec<(String, &Weights)> = std::iter::once(("artist".to_string(), artist))
        .chain(assembled.iter().map(|(n, w, _)| (n.clone(), w)))
        .collect();
    for probe in scene.probes() {
        for (label, w) in &labelled {
            let d = drag(scene, w, probe)?;
            drag_rows.push(DragRow {
                weights: label.clone(),
                probe: probe.name.clone(),
                drag_max_pct: d.max_pct(),
                drag_mean_pct: d.mean_pct(),
            });
        }
    }

    write_text(&dir, "agreement.csv", &agreement_csv(&agreement))?;
    write_text(&dir, "drag.csv", &drag_csv(&drag_rows))?;
    print_summary(&agreement, &drag_rows);

    if let Some(probe) = scene.probes().first() {
        let scale = drag_rows
            .iter()
            .filter(|r| r.probe == probe.name)
            .map(|r| r.drag_max_pct)
            .fold(0.0, f64::max)
            .max(1.0);
        let mut weight_maps = Vec::new();
        let mut poses = Vec::new();
        for (label, w) in labelled
            .iter()
            .filter(|(l, _)| FIGURE.contains(&l.as_str()))
        {
            let view = probe_view(scene, w, probe)?;
            let [map, pose] = figure_panels(scene, w, label, &probe.name, view, scale, "drag");
            weight_maps.push(map);
            poses.push(pose);
        }
        let columns = weight_maps.len();
        weight_maps.extend(poses);
        save_png_svg(
            &Grid {
                panels: &weight_maps,
                columns,
            },
            &dir,
            "weights",
            (420 * columns as u32, 1000),
        )?;
    }

    write_json(
        &dir,
        "artist_agreement.json",
        &Output {
            experiment: "artist_agreement",
            character: character.file,
            meshes,
            solvers: assembled.iter().map(|(l, _, _)| l.clone()).collect(),
            agreement,
            drag: drag_rows,
            seconds: started.elapsed().as_secs_f64(),
        },
    )?;
    eprintln!("wrote {}", dir.display());
    Ok(())
}

/// Agreement of `full` with `artist` on one mesh's `vertices`; `artist_bones` are the
/// bones the artist used on that mesh (full-skeleton indices).
fn score(
    label: &str,
    mesh: &str,
    vertices: &[usize],
    artist_bones: &[usize],
    full: &Weights,
    artist: &Weights,
) -> Agreement {
    let dominant_full = full.dominant_bones();
    let dominant_artist = artist.dominant_bones();
    let mut on_artist_bones = 0.0;
    let mut distance = 0.0;
    let mut off_list = 0.0;
    let mut same_dominant = 0usize;
    let listed = |b: usize| artist_bones.contains(&b);
    for &v in vertices {
        let (row, art) = (full.row(v), artist.row(v));
        on_artist_bones += artist_bones
            .iter()
            .map(|&b| (row[b] - art[b]).abs())
            .sum::<f64>();
        distance += 0.5 * row.iter().zip(art).map(|(a, b)| (a - b).abs()).sum::<f64>();
        off_list += row
            .iter()
            .enumerate()
            .filter(|&(b, _)| !listed(b))
            .map(|(_, w)| w)
            .sum::<f64>();
        same_dominant += usize::from(dominant_full[v] == dominant_artist[v]);
    }
    let n = vertices.len().max(1) as f64;
    Agreement {
        weights: label.to_string(),
        mesh: mesh.to_string(),
        vertices: vertices.len(),
        bones: artist_bones.len(),
        mean_abs_error: on_artist_bones / (n * artist_bones.len().max(1) as f64),
        weight_distance: distance / n,
        off_artist_bones: off_list / n,
        dominant_agreement_pct: 100.0 * same_dominant as f64 / n,
        time_s: None,
    }
}

/// The all-meshes row: entry-wise error averaged over every mesh's (vertex, artist bone)
/// entries, the other two over all vertices.
fn combine(label: &str, per_mesh: &[Agreement]) -> Agreement {
    let entries: f64 = per_mesh.iter().map(|a| (a.vertices * a.bones) as f64).sum();
    let vertices: usize = per_mesh.iter().map(|a| a.vertices).sum();
    let by_vertex = |f: fn(&Agreement) -> f64| {
        per_mesh
            .iter()
            .map(|a| f(a) * a.vertices as f64)
            .sum::<f64>()
            / vertices.max(1) as f64
    };
    Agreement {
        weights: label.to_string(),
        mesh: "all".into(),
        vertices,
        bones: per_mesh.iter().map(|a| a.bones).sum(),
        mean_abs_error: per_mesh
            .iter()
            .map(|a| a.mean_abs_error * (a.vertices * a.bones) as f64)
            .sum::<f64>()
            / entries.max(1.0),
        weight_distance: by_vertex(|a| a.weight_distance),
        off_artist_bones: by_vertex(|a| a.off_artist_bones),
        dominant_agreement_pct: by_vertex(|a| a.dominant_agreement_pct),
        time_s: None,
    }
}

fn agreement_csv(rows: &[Agreement]) -> String {
    let mut s = String::from(
        "weights,mesh,vertices,bones,mean_abs_error,weight_distance,off_artist_bones,dominant_agreement_pct,time_s\n",
    );
    for r in rows {
        s += &format!(
            "{},{},{},{},{},{},{},{},{}\n",
            r.weights,
            r.mesh,
            r.vertices,
            r.bones,
            csv_num(r.mean_abs_error),
            csv_num(r.weight_distance),
            csv_num(r.off_artist_bones),
            csv_num(r.dominant_agreement_pct),
            r.time_s.map(csv_num).unwrap_or_default()
        );
    }
    s
}

fn drag_csv(rows: &[DragRow]) -> String {
    let mut s = String::from("weights,probe,drag_max_pct,drag_mean_pct\n");
    for r in rows {
        s += &format!(
            "{},{},{},{}\n",
            r.weights,
            r.probe,
            csv_num(r.drag_max_pct),
            csv_num(r.drag_mean_pct)
        );
    }
    s
}

fn print_summary(agreement: &[Agreement], drag_rows: &[DragRow]) {
    println!(
        "| weights | dominant bone agrees | weight distance | off the artist's bones | mean abs error | time (s) |"
    );
    println!("|---|---|---|---|---|---|");
    for a in agreement.iter().filter(|a| a.mesh == "all") {
        println!(
            "| {} | {:.1}% | {:.3} | {:.3} | {:.3} | {:.3} |",
            a.weights,
            a.dominant_agreement_pct,
            a.weight_distance,
            a.off_artist_bones,
            a.mean_abs_error,
            a.time_s.unwrap_or(0.0)
        );
    }
    println!();
    println!("| weights | probe | drag max (% h) | drag mean (% h) |");
    println!("|---|---|---|---|");
    for r in drag_rows {
        println!(
            "| {} | {} | {:.2} | {:.2} |",
            r.weights, r.probe, r.drag_max_pct, r.drag_mean_pct
        );
    }
}
