//! # artist_study: where the solvers and the artists disagree, and what an artist's weights
//! look like
//!
//! Protocol (a) of the benchmark (each artist mesh solved alone with the bones its artist
//! bound it to), on the same rigs and folds ([`common::rigs`]). Every (mesh, bone) pair is
//! put in one class by where the bone lies relative to the art (the mesh's triangles), in
//! units of the mesh's bounding-box diagonal `D`:
//! - `inside`: the bone's segment crosses the art;
//! - `handle inside`: a handle (a bone no longer than 0.04 of the mesh's height, `best`'s
//!   `HANDLE_LENGTH`) that touches the art;
//! - `outside near`: the segment misses the art, its nearest vertex is at most 0.25 `D` away;
//! - `outside far`: farther.
//!
//! Per class and solver: the pairs, the bones' mean weight over the mesh (the artist's next to
//! each solver's), the one-bone deviation of those bones (40 degrees, % of `D`, as the
//! benchmark), and the dominant-bone agreement on the vertices whose artist-dominant bone is
//! of that class. Then what the weights look like: the share of one-hot rows (largest weight
//! at least 0.99), influences per vertex (weights over 0.01), and the falloff: a bone's mean
//! weight at a vertex against the ratio of the vertex's distance to that bone over its
//! distance to the nearest other bone of the mesh (1 is the Voronoi border a nearest-bone
//! solver cuts at).
//!
//! Writes `results/artist_study/`: `study.md` and `study.json`.
//!
//! ```text
//! cargo run --release --bin artist_study [-- RIG ...] [--solvers LIST] [--mesh RIG/PART]
//! ```

mod common;

use clap::Parser;
use common::rigs::{cut_meshes, rigs_and_solvers, solve_per_mesh_each, Rig};
use common::{main_with, write_json, write_text, Res};
use nalgebra::Point2;
use serde::Serialize;
use skinweights::geometry::Segment;
use skinweights::metrics::artist::{
    diagonal_of, dominant_agrees, score_against_artist, ArtistMesh, ArtistScoreOptions,
};
use skinweights::scene::SubScene;
use skinweights::Weights;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Parser)]
#[command(about = "Where each solver and the artists disagree, by where the bone lies")]
struct Cli {
    /// Rig files (Spine JSON, DragonBones `_ske.json`, Godot `.tscn`). Default: the rigs the
    /// benchmark scores.
    rigs: Vec<PathBuf>,
    /// Comma-separated solvers (default: linear, euclidean, geodesic, heat, bbw, best).
    #[arg(long, value_delimiter = ',')]
    solvers: Option<Vec<String>>,
    /// Also print one mesh vertex by vertex (`RIG/PART`, e.g. `owl/R_wing`).
    #[arg(long, value_name = "RIG/PART")]
    mesh: Option<String>,
    #[command(flatten)]
    common: common::CommonArgs,
}

const DEFAULT_SOLVERS: [&str; 6] = ["linear", "euclidean", "geodesic", "heat", "bbw", "best"];
/// The classes of (mesh, bone) pairs, in table order.
const CLASSES: [&str; 4] = ["inside", "handle inside", "outside near", "outside far"];
/// A bone no longer than this fraction of the mesh's height is a handle (`best`'s rule).
const HANDLE_LENGTH: f64 = 0.04;
/// Outside the art but within this fraction of the diagonal: `outside near`.
const NEAR: f64 = 0.25;
/// Upper ends of the falloff bins (distance to the bone / distance to the nearest other).
const RATIO_BINS: [f64; 7] = [0.25, 0.5, 0.8, 1.0, 1.25, 2.0, f64::INFINITY];
/// Rows whose largest weight is at least this are one-hot.
const ONE_HOT: f64 = 0.99;
/// Weights above this count as an influence.
const INFLUENCE: f64 = 0.01;
/// The rig groups summarised, in order (`all` pools them): painted weights, and weights that
/// look computed by a tool.
const GROUPS: [&str; 3] = ["painted", "computed?", "all"];

/// Sums for one (group, class, solver) cell.
#[derive(Default, Clone, Serialize)]
struct ClassCell {
    pairs: usize,
    handles: usize,
    weight_sum: f64,
    artist_weight_sum: f64,
    vertex_bone_pairs: usize,
    deviation_sum: f64,
    dominant_vertices: usize,
    dominant_agreeing: usize,
}

/// Sums for one (group, solver) row of the "what the weights look like" table.
#[derive(Default, Clone, Serialize)]
struct ShapeCell {
    vertices: usize,
    one_hot: usize,
    influences: usize,
    bin_weight: Vec<f64>,
    bin_count: Vec<usize>,
}

#[derive(Serialize)]
struct Output {
    experiment: &'static str,
    solvers: Vec<String>,
    /// group -> class -> solver (and `artist`) -> sums.
    classes: BTreeMap<String, BTreeMap<String, BTreeMap<String, ClassCell>>>,
    /// group -> solver (and `artist`) -> sums.
    shapes: BTreeMap<String, BTreeMap<String, ShapeCell>>,
    ratio_bins: Vec<f64>,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    main_with(|| run(&cli))
}

fn run(cli: &Cli) -> Res<()> {
    let (rigs, solvers, bar) = rigs_and_solvers(&cli.rigs, &cli.solvers, &DEFAULT_SOLVERS)?;
    let mut out = Output {
        experiment: "artist_study",
        solvers: solvers.clone(),
        classes: BTreeMap::new(),
        shapes: BTreeMap::new(),
        ratio_bins: RATIO_BINS.to_vec(),
    };
    for rig in &rigs {
        let cuts = cut_meshes(rig)?;
        let geometry: Vec<MeshGeometry> = cuts.iter().map(|(_, c)| MeshGeometry::of(c)).collect();
        let mut solved: Vec<(String, Weights)> = vec![("artist".into(), rig.artist.clone())];
        let each = solve_per_mesh_each(rig, &cuts, &solvers, &bar)?;
        solved.extend(solvers.iter().cloned().zip(each));
        for ((part, cut), geo) in cuts.iter().zip(&geometry) {
            for (name, weights) in &solved {
                accumulate(&mut out, rig, cut, geo, name, weights)?;
            }
            if cli.mesh.as_deref() == Some(&format!("{}/{part}", rig.name)) {
                print_mesh(rig, cut, geo, &solved);
            }
        }
    }
    bar.finish_and_clear();
    let md = study_md(&out);
    println!("{md}");
    let dir = cli.common.out_dir("artist_study")?;
    write_text(&dir, "study.md", &md)?;
    write_json(&dir, "study.json", &out)?;
    eprintln!("wrote {}", dir.display());
    Ok(())
}

/// Where each of a mesh's bones lies relative to its art, and per vertex the distances.
struct MeshGeometry {
    /// Per bone of the cut: its class (index into [`CLASSES`]) and whether it is a handle.
    class: Vec<(usize, bool)>,
    /// `distance[v][b]`: vertex `v`'s distance to bone `b`'s segment.
    distance: Vec<Vec<f64>>,
}

impl MeshGeometry {
    fn of(cut: &SubScene) -> MeshGeometry {
        let mesh = cut.scene.mesh();
        let points = mesh.vertices();
        let diagonal = diagonal_of(points).max(f64::MIN_POSITIVE);
        let inside = |p: Point2<f64>| {
            mesh.triangles().iter().any(|t| {
                let [a, b, c] = t.map(|i| points[i]);
                let s = |u: Point2<f64>, w: Point2<f64>| {
                    skinweights::geometry::signed_area2(&u, &w, &p)
                };
                let (x, y, z) = (s(a, b), s(b, c), s(c, a));
                (x >= 0.0 && y >= 0.0 && z >= 0.0) || (x <= 0.0 && y <= 0.0 && z <= 0.0)
            })
        };
        let bones = cut.scene.skeleton().bones();
        let class = bones
            .iter()
            .map(|bone| {
                let handle = (bone.tail - bone.head).norm() <= HANDLE_LENGTH * mesh.height();
                let crosses = (0..=32).any(|k| {
                    let t = k as f64 / 32.0;
                    inside(bone.head + (bone.tail - bone.head) * t)
                });
                let gap = points
                    .iter()
                    .map(|p| bone.segment().distance(p))
                    .fold(f64::INFINITY, f64::min);
                let class = match (crosses, handle) {
                    (true, false) => 0,
                    (true, true) => 1,
                    (false, _) if gap <= NEAR * diagonal => 2,
                    _ => 3,
                };
                (class, handle)
            })
            .collect();
        let segments: Vec<Segment> = bones.iter().map(|b| b.segment()).collect();
        let distance = points
            .iter()
            .map(|p| segments.iter().map(|s| s.distance(p)).collect())
            .collect();
        MeshGeometry { class, distance }
    }
}

fn accumulate(
    out: &mut Output,
    rig: &Rig,
    cut: &SubScene,
    geo: &MeshGeometry,
    name: &str,
    weights: &Weights,
) -> Res<()> {
    let deviation = if name == "artist" {
        vec![0.0; cut.bones.len()]
    } else {
        let mesh = ArtistMesh {
            vertices: &cut.vertices,
            bones: &cut.bones,
        };
        let options = ArtistScoreOptions::default();
        score_against_artist(&rig.scene, weights, &rig.artist, mesh, &options)?
            .one_bone_deviation_pct
    };
    for group in [rig.fold.as_str(), "all"] {
        for (b, &full_b) in cut.bones.iter().enumerate() {
            let (class, handle) = geo.class[b];
            let cell = out
                .classes
                .entry(group.into())
                .or_default()
                .entry(CLASSES[class].into())
                .or_default()
                .entry(name.into())
                .or_default();
            cell.pairs += 1;
            cell.handles += usize::from(handle);
            cell.deviation_sum += deviation[b];
            for &v in &cut.vertices {
                cell.weight_sum += weights.get(v, full_b);
                cell.artist_weight_sum += rig.artist.get(v, full_b);
                cell.vertex_bone_pairs += 1;
            }
        }
        let shape = out
            .shapes
            .entry(group.into())
            .or_default()
            .entry(name.into())
            .or_insert_with(|| ShapeCell {
                bin_weight: vec![0.0; RATIO_BINS.len()],
                bin_count: vec![0; RATIO_BINS.len()],
                ..ShapeCell::default()
            });
        for (i, &v) in cut.vertices.iter().enumerate() {
            let row: Vec<f64> = cut.bones.iter().map(|&b| weights.get(v, b)).collect();
            let art: Vec<f64> = cut.bones.iter().map(|&b| rig.artist.get(v, b)).collect();
            shape.vertices += 1;
            shape.one_hot += usize::from(row.iter().any(|&w| w >= ONE_HOT));
            shape.influences += row.iter().filter(|&&w| w > INFLUENCE).count();
            let top = art.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            for (b, &w) in row.iter().enumerate() {
                let d = geo.distance[i][b];
                let other = (0..row.len())
                    .filter(|&k| k != b)
                    .map(|k| geo.distance[i][k])
                    .fold(f64::INFINITY, f64::min);
                let ratio = if other > 0.0 {
                    d / other
                } else if d > 0.0 {
                    f64::INFINITY
                } else {
                    1.0
                };
                let bin = RATIO_BINS.iter().position(|&hi| ratio < hi).unwrap_or(0);
                shape.bin_weight[bin] += w;
                shape.bin_count[bin] += 1;
            }
            // Agreement, attributed to the class of the artist's dominant bone.
            let dominant = (0..art.len()).find(|&b| art[b] >= top).unwrap_or(0);
            let cell = out
                .classes
                .entry(group.into())
                .or_default()
                .entry(CLASSES[geo.class[dominant].0].into())
                .or_default()
                .entry(name.into())
                .or_default();
            cell.dominant_vertices += 1;
            cell.dominant_agreeing += usize::from(dominant_agrees(&row, &art));
        }
    }
    Ok(())
}

fn print_mesh(rig: &Rig, cut: &SubScene, geo: &MeshGeometry, solved: &[(String, Weights)]) {
    let bones = cut.scene.skeleton().bones();
    println!("{} mesh, {} vertices", rig.name, cut.vertices.len());
    for (b, bone) in bones.iter().enumerate() {
        println!(
            "  bone {b} {}: head ({:.1}, {:.1}) tail ({:.1}, {:.1}), {}",
            bone.name, bone.head.x, bone.head.y, bone.tail.x, bone.tail.y, CLASSES[geo.class[b].0]
        );
    }
    for (i, &v) in cut.vertices.iter().enumerate() {
        let p = cut.scene.mesh().vertices()[i];
        let mut line = format!("  v{i} ({:.1}, {:.1})", p.x, p.y);
        for (name, w) in solved {
            let row: Vec<String> = cut
                .bones
                .iter()
                .map(|&b| format!("{:.2}", w.get(v, b)))
                .collect();
            let _ = write!(line, " {name} [{}]", row.join(" "));
        }
        println!("{line}");
    }
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "-".into()
    } else {
        format!("{:.1}", 100.0 * a as f64 / b as f64)
    }
}

fn study_md(out: &Output) -> String {
    let mut s = String::from("# Artist study (protocol (a))\n");
    let names: Vec<String> = std::iter::once("artist".to_string())
        .chain(out.solvers.iter().cloned())
        .collect();
    for group in GROUPS {
        let Some(classes) = out.classes.get(group) else {
            continue;
        };
        let _ = writeln!(s, "\n## {group}\n\nBy where the bone lies (pairs: (mesh, bone); weight: the bone's mean weight over its mesh; deviation: one-bone, % of the mesh diagonal; agreement: on the vertices whose artist-dominant bone is of the class):\n");
        let _ = writeln!(
            s,
            "| class | pairs (handles) | vertices | weight: artist | {} |",
            out.solvers
                .iter()
                .map(|n| format!("{n}: weight / deviation / agreement"))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        let _ = writeln!(s, "|---|---|---|---|{}", "---|".repeat(out.solvers.len()));
        for class in CLASSES {
            let Some(cells) = classes.get(class) else {
                continue;
            };
            let art = &cells["artist"];
            if art.pairs == 0 {
                continue;
            }
            let mean = |c: &ClassCell| c.weight_sum / c.vertex_bone_pairs.max(1) as f64;
            let _ = write!(
                s,
                "| {class} | {} ({}) | {} | {:.3} |",
                art.pairs,
                art.handles,
                art.dominant_vertices,
                mean(art)
            );
            for n in &out.solvers {
                let c = &cells[n];
                let _ = write!(
                    s,
                    " {:.3} / {:.2} / {} |",
                    mean(c),
                    c.deviation_sum / c.pairs.max(1) as f64,
                    pct(c.dominant_agreeing, c.dominant_vertices)
                );
            }
            s.push('\n');
        }
        let shapes = &out.shapes[group];
        let _ = writeln!(s, "\nWhat the weights look like (one-hot: rows with a weight >= {ONE_HOT}; influences: weights > {INFLUENCE} per vertex; then a bone's mean weight at a vertex by the ratio of its distance to the bone over its distance to the nearest other bone of the mesh):\n");
        let bins: Vec<String> = RATIO_BINS
            .iter()
            .scan(0.0, |lo, &hi| {
                let label = if hi.is_finite() {
                    format!("{lo}-{hi}")
                } else {
                    format!(">= {lo}")
                };
                *lo = hi;
                Some(label)
            })
            .collect();
        let _ = writeln!(
            s,
            "| weights | one-hot (%) | influences | {} |",
            bins.join(" | ")
        );
        let _ = writeln!(s, "|---|---|---|{}", "---|".repeat(bins.len()));
        for n in &names {
            let c = &shapes[n];
            let _ = write!(
                s,
                "| {n} | {} | {:.2} |",
                pct(c.one_hot, c.vertices),
                c.influences as f64 / c.vertices.max(1) as f64
            );
            for (w, k) in c.bin_weight.iter().zip(&c.bin_count) {
                let _ = write!(s, " {:.2} |", w / (*k).max(1) as f64);
            }
            s.push('\n');
        }
        let counts = &shapes["artist"].bin_count;
        let _ = writeln!(
            s,
            "| (vertex, bone) pairs | | | {} |",
            counts
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
    s
}
