//! # artist_fit: a small model fitted on the artists' weights, cross-validated by rig
//!
//! Issue 27 lists, among the candidates for `best`, "a model fitted on the folds' artist
//! weights (per-vertex features such as each solver's weights, bone distances and chain
//! position, combined by a small regression) if it wins on held-out rigs". This experiment
//! fits such models and scores them exactly as the benchmark's protocol (a) does (each artist
//! mesh solved alone with its artist's bones; dominant-bone agreement, agreement on meshes
//! under 60 vertices, one-bone deviation at 40 degrees, clip deviation over the rig's own
//! clips), next to the solvers they are built from.
//!
//! The models, each over a mesh's bones `b` at a vertex `v`:
//! - **`mix`**: a convex combination of the solvers' rows, `w = sum_s a_s w_s`, the `a_s`
//!   fitted by EM to maximise the likelihood of the artist's rows (linear pooling);
//! - **`logit solvers`**: `w_b = softmax_b(sum_s t_s ln max(w_s(v, b), 1e-3))` (a weighted
//!   geometric pooling of the solvers; multinomial logistic regression with one coefficient
//!   per solver shared by every bone);
//! - **`logit all`**: the same with the bone's geometry added: `ln` of the vertex's distance
//!   to the bone's segment over its distance to the nearest bone of the mesh, whether the bone
//!   is a handle (no longer than 0.04 of the mesh's height, `best`'s rule) and that ratio for
//!   handles, and the bone's depth in the mesh's chain (0 for the mesh's root-most bone).
//!
//! The logits are fitted by Newton's method on the cross-entropy to the artist's rows (each
//! row normalised over the mesh's bones; a ridge of 1e-3 per vertex), and scored leaving one
//! rig out: each rig predicted by the model fitted on all the others, pooled. (No fixed
//! split: rigs are the unit that varies, and one split of a few rigs is decided by its
//! largest rig.)
//!
//! Writes `results/artist_fit/`: `fit.md` and `fit.json`.
//!
//! ```text
//! cargo run --release --bin artist_fit [-- RIG ...] [--solvers LIST]
//! ```

mod common;

use clap::Parser;
use common::rigs::{cut_meshes, rigs_and_solvers, solve_per_mesh_each, Rig};
use common::{main_with, write_json, write_text, Res};
use nalgebra::{DMatrix, DVector};
use serde::Serialize;
use skinweights::metrics::artist::{
    diagonal_of, score_against_artist, ArtistClipFrames, ArtistMesh, ArtistScoreOptions,
};
use skinweights::scene::SubScene;
use skinweights::Weights;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Parser)]
#[command(about = "Fit small models on the artists' weights and score them on held-out rigs")]
struct Cli {
    /// Rig files (Spine JSON, DragonBones `_ske.json`, Godot `.tscn`). Default: the rigs the
    /// benchmark scores, with its folds.
    rigs: Vec<PathBuf>,
    /// Comma-separated solvers the models combine (default: linear, euclidean, geodesic,
    /// heat, bbw, best).
    #[arg(long, value_delimiter = ',')]
    solvers: Option<Vec<String>>,
    /// Frames per second the rigs' clips are played at for the clip scores.
    #[arg(long, default_value_t = 30.0)]
    fps: f64,
    #[command(flatten)]
    common: common::CommonArgs,
}

const DEFAULT_SOLVERS: [&str; 6] = ["linear", "euclidean", "geodesic", "heat", "bbw", "best"];
/// Weights are floored at this before their logarithm is a feature.
const LOG_FLOOR: f64 = 1e-3;
/// Ridge on the logit coefficients, per fitted vertex.
const RIDGE: f64 = 1e-3;
/// A bone no longer than this fraction of the mesh's height is a handle (`best`'s rule).
const HANDLE_LENGTH: f64 = 0.04;
/// Meshes under this many vertices are also scored apart (as the benchmark).
const SMALL_MESH: usize = 60;

/// The models fitted, in table order.
#[derive(Clone, Copy, PartialEq, Serialize)]
enum Model {
    Mix,
    LogitSolvers,
    LogitAll,
}

const MODELS: [Model; 3] = [Model::Mix, Model::LogitSolvers, Model::LogitAll];

impl Model {
    fn name(self) -> &'static str {
        match self {
            Model::Mix => "mix",
            Model::LogitSolvers => "logit solvers",
            Model::LogitAll => "logit all",
        }
    }
}

/// One artist mesh ready to fit on and predict: per vertex and bone of the mesh, every
/// solver's weight and the geometric features, and the artist's row.
struct MeshSample {
    /// The cut's vertices (scene indices) and bones (scene indices).
    vertices: Vec<usize>,
    bones: Vec<usize>,
    /// `solver_rows[s][v][b]`: solver `s`'s weight (over the mesh's bones).
    solver_rows: Vec<Vec<Vec<f64>>>,
    /// `geometry[v][b]`: the geometric features of bone `b` at vertex `v`.
    geometry: Vec<Vec<[f64; GEOMETRY]>>,
    /// `artist[v][b]`: the artist's row over the mesh's bones, normalised.
    artist: Vec<Vec<f64>>,
}

/// Geometric features per (vertex, bone): log distance ratio, handle, handle x ratio, depth.
const GEOMETRY: usize = 4;

/// A rig with its meshes sampled and its clips sampled.
struct RigSamples<'a> {
    rig: &'a Rig,
    cuts: Vec<(String, SubScene)>,
    meshes: Vec<MeshSample>,
    frames: ArtistClipFrames,
    /// Every solver's protocol (a) weights on the whole rig.
    solved: Vec<Weights>,
}

/// A fitted model: the mixture's or the logit's coefficients.
#[derive(Clone, Serialize)]
struct Fitted {
    model: Model,
    coefficients: Vec<f64>,
}

/// The pooled protocol (a) scores of one method on a set of rigs.
#[derive(Default, Clone, Serialize)]
struct Pooled {
    vertices: usize,
    agreeing: usize,
    small_vertices: usize,
    small_agreeing: usize,
    one_bone: Vec<f64>,
    clip: Vec<f64>,
}

impl Pooled {
    fn add(&mut self, other: &Pooled) {
        self.vertices += other.vertices;
        self.agreeing += other.agreeing;
        self.small_vertices += other.small_vertices;
        self.small_agreeing += other.small_agreeing;
        self.one_bone.extend(&other.one_bone);
        self.clip.extend(&other.clip);
    }
    fn summary(&self) -> [f64; 4] {
        let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len().max(1) as f64;
        [
            100.0 * self.agreeing as f64 / self.vertices.max(1) as f64,
            100.0 * self.small_agreeing as f64 / self.small_vertices.max(1) as f64,
            mean(&self.one_bone),
            mean(&self.clip),
        ]
    }
}

#[derive(Serialize)]
struct SplitResult {
    split: String,
    /// Per method (solvers, then models): agreement %, agreement under 60 %, one-bone mean
    /// %, clip mean %.
    scores: Vec<(String, [f64; 4])>,
    /// The models fitted for this split, each with what it was fitted on.
    fitted: Vec<(String, Fitted)>,
}

#[derive(Serialize)]
struct Output {
    experiment: &'static str,
    solvers: Vec<String>,
    splits: Vec<SplitResult>,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    main_with(|| run(&cli))
}

fn run(cli: &Cli) -> Res<()> {
    let (rigs, solvers, bar) = rigs_and_solvers(&cli.rigs, &cli.solvers, &DEFAULT_SOLVERS)?;
    let mut samples = Vec::new();
    for rig in &rigs {
        let cuts = cut_meshes(rig)?;
        let solved = solve_per_mesh_each(rig, &cuts, &solvers, &bar)?;
        let meshes = cuts
            .iter()
            .map(|(_, cut)| mesh_sample(rig, cut, &solved))
            .collect();
        let frames = ArtistClipFrames::new(&rig.scene, &rig.artist, rig.scene.clips(), cli.fps)
            .map_err(|e| format!("{}: {e}", rig.name))?;
        samples.push(RigSamples {
            rig,
            cuts,
            meshes,
            frames,
            solved,
        });
    }
    bar.finish_and_clear();

    let mut splits = Vec::new();
    if samples.len() >= 3 {
        let samples = &samples;
        let all: Vec<usize> = (0..samples.len()).collect();
        let per_rig: Vec<Vec<Fitted>> = all
            .iter()
            .map(|&r| {
                let train: Vec<usize> = all.iter().copied().filter(|&o| o != r).collect();
                fit_models(samples, &train, solvers.len())
            })
            .collect::<Res<_>>()?;
        let scores = score_split(samples, &all, &solvers, |r| per_rig[r].clone())?;
        splits.push(SplitResult {
            split: "leave one rig out (each rig fitted on the others), all rigs".into(),
            scores,
            fitted: all
                .iter()
                .flat_map(|&r| {
                    per_rig[r]
                        .iter()
                        .map(move |f| (format!("without {}", samples[r].rig.name), f.clone()))
                })
                .collect(),
        });
    }
    let out = Output {
        experiment: "artist_fit",
        solvers: solvers.clone(),
        splits,
    };
    let md = fit_md(&out);
    println!("{md}");
    let dir = cli.common.out_dir("artist_fit")?;
    write_text(&dir, "fit.md", &md)?;
    write_json(&dir, "fit.json", &out)?;
    eprintln!("wrote {}", dir.display());
    Ok(())
}

/// The solvers' rows, the geometric features and the artist's rows of one artist mesh.
fn mesh_sample(rig: &Rig, cut: &SubScene, solved: &[Weights]) -> MeshSample {
    let restrict = |w: &Weights, v: usize| -> Vec<f64> {
        let row: Vec<f64> = cut.bones.iter().map(|&b| w.get(v, b)).collect();
        let sum: f64 = row.iter().sum();
        if sum > 0.0 {
            row.iter().map(|x| x / sum).collect()
        } else {
            vec![1.0 / row.len() as f64; row.len()]
        }
    };
    let solver_rows = solved
        .iter()
        .map(|w| cut.vertices.iter().map(|&v| restrict(w, v)).collect())
        .collect();
    let artist = cut
        .vertices
        .iter()
        .map(|&v| restrict(&rig.artist, v))
        .collect();
    MeshSample {
        vertices: cut.vertices.clone(),
        bones: cut.bones.clone(),
        solver_rows,
        geometry: mesh_geometry(rig, cut),
        artist,
    }
}

/// Per vertex and bone of the cut: `ln((d_b + e) / (min_b' d_b' + e))` with `e` 1% of the
/// mesh's diagonal, the handle flag, handle times that ratio, and the bone's depth below the
/// mesh's root-most bone in the rig's skeleton.
fn mesh_geometry(rig: &Rig, cut: &SubScene) -> Vec<Vec<[f64; GEOMETRY]>> {
    let mesh = cut.scene.mesh();
    let points = mesh.vertices();
    let eps = 0.01 * diagonal_of(points).max(f64::MIN_POSITIVE);
    let bones = cut.scene.skeleton().bones();
    let handle: Vec<f64> = bones
        .iter()
        .map(|b| {
            f64::from(u8::from(
                (b.tail - b.head).norm() <= HANDLE_LENGTH * mesh.height(),
            ))
        })
        .collect();
    let all = rig.scene.skeleton().bones();
    let depth: Vec<f64> = cut
        .bones
        .iter()
        .map(|&b| {
            let (mut d, mut at) = (0.0, b);
            while let Some(p) = all[at].parent {
                d += 1.0;
                at = p;
            }
            d
        })
        .collect();
    let min_depth = depth.iter().copied().fold(f64::INFINITY, f64::min);
    points
        .iter()
        .map(|p| {
            let d: Vec<f64> = bones.iter().map(|b| b.segment().distance(p)).collect();
            let nearest = d.iter().copied().fold(f64::INFINITY, f64::min);
            d.iter()
                .enumerate()
                .map(|(b, &db)| {
                    let ratio = ((db + eps) / (nearest + eps)).ln();
                    [ratio, handle[b], handle[b] * ratio, depth[b] - min_depth]
                })
                .collect()
        })
        .collect()
}

/// The features of bone `b` at vertex `v` for a logit model.
fn features(model: Model, m: &MeshSample, v: usize, b: usize, out: &mut Vec<f64>) {
    out.clear();
    out.extend(
        m.solver_rows
            .iter()
            .map(|rows| rows[v][b].max(LOG_FLOOR).ln()),
    );
    if model == Model::LogitAll {
        out.extend(m.geometry[v][b]);
    }
}

/// A model's rows on one mesh.
fn predict(fitted: &Fitted, m: &MeshSample) -> Vec<Vec<f64>> {
    let nb = m.bones.len();
    let mut f = Vec::new();
    (0..m.vertices.len())
        .map(|v| match fitted.model {
            Model::Mix => (0..nb)
                .map(|b| {
                    fitted
                        .coefficients
                        .iter()
                        .zip(&m.solver_rows)
                        .map(|(a, rows)| a * rows[v][b])
                        .sum()
                })
                .collect(),
            model => {
                let scores: Vec<f64> = (0..nb)
                    .map(|b| {
                        features(model, m, v, b, &mut f);
                        f.iter().zip(&fitted.coefficients).map(|(x, t)| x * t).sum()
                    })
                    .collect();
                softmax(&scores)
            }
        })
        .collect()
}

fn softmax(scores: &[f64]) -> Vec<f64> {
    let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = scores.iter().map(|s| (s - top).exp()).collect();
    let sum: f64 = e.iter().sum();
    e.iter().map(|x| x / sum).collect()
}

/// Every model fitted on the meshes of rigs `train`.
fn fit_models(samples: &[RigSamples], train: &[usize], solvers: usize) -> Res<Vec<Fitted>> {
    let meshes: Vec<&MeshSample> = train
        .iter()
        .flat_map(|&r| samples[r].meshes.iter())
        .collect();
    MODELS
        .iter()
        .map(|&model| match model {
            Model::Mix => Ok(Fitted {
                model,
                coefficients: fit_mixture(&meshes, solvers),
            }),
            _ => Ok(Fitted {
                model,
                coefficients: fit_logit(&meshes, model)?,
            }),
        })
        .collect()
}

/// EM for the mixture weights of the solvers' rows, maximising `sum t_b ln sum_s a_s w_s`.
fn fit_mixture(meshes: &[&MeshSample], solvers: usize) -> Vec<f64> {
    let mut a = vec![1.0 / solvers as f64; solvers];
    for _ in 0..500 {
        let mut resp = vec![0.0; solvers];
        let mut total = 0.0;
        for m in meshes {
            for v in 0..m.vertices.len() {
                for (b, &t) in m.artist[v].iter().enumerate() {
                    if t <= 0.0 {
                        continue;
                    }
                    let parts: Vec<f64> = (0..solvers)
                        .map(|s| a[s] * m.solver_rows[s][v][b].max(1e-9))
                        .collect();
                    let sum: f64 = parts.iter().sum();
                    for s in 0..solvers {
                        resp[s] += t * parts[s] / sum;
                    }
                    total += t;
                }
            }
        }
        let next: Vec<f64> = resp
            .iter()
            .map(|r| r / total.max(f64::MIN_POSITIVE))
            .collect();
        let change: f64 = next.iter().zip(&a).map(|(x, y)| (x - y).abs()).sum();
        a = next;
        if change < 1e-9 {
            break;
        }
    }
    a
}

/// Newton's method on the ridge-regularised cross-entropy of the logit model.
fn fit_logit(meshes: &[&MeshSample], model: Model) -> Res<Vec<f64>> {
    let mut f = Vec::new();
    features(model, meshes[0], 0, 0, &mut f);
    let k = f.len();
    let n: usize = meshes.iter().map(|m| m.vertices.len()).sum();
    let ridge = RIDGE * n as f64;
    let mut theta = DVector::<f64>::zeros(k);
    let loss_at = |theta: &DVector<f64>| -> f64 {
        let mut f = Vec::new();
        let mut loss = 0.5 * ridge * theta.norm_squared();
        for m in meshes {
            for v in 0..m.vertices.len() {
                let scores: Vec<f64> = (0..m.bones.len())
                    .map(|b| {
                        features(model, m, v, b, &mut f);
                        f.iter().zip(theta.iter()).map(|(x, t)| x * t).sum()
                    })
                    .collect();
                let p = softmax(&scores);
                for (t, pb) in m.artist[v].iter().zip(&p) {
                    loss -= t * pb.max(1e-300).ln();
                }
            }
        }
        loss
    };
    let mut loss = loss_at(&theta);
    for _ in 0..50 {
        let mut grad = DVector::<f64>::zeros(k);
        let mut hess = DMatrix::<f64>::identity(k, k) * ridge;
        grad += &theta * ridge;
        for m in meshes {
            for v in 0..m.vertices.len() {
                let fs: Vec<DVector<f64>> = (0..m.bones.len())
                    .map(|b| {
                        features(model, m, v, b, &mut f);
                        DVector::from_column_slice(&f)
                    })
                    .collect();
                let scores: Vec<f64> = fs.iter().map(|x| x.dot(&theta)).collect();
                let p = softmax(&scores);
                let mean = fs
                    .iter()
                    .zip(&p)
                    .fold(DVector::zeros(k), |acc, (x, pb)| acc + x * *pb);
                for ((x, pb), t) in fs.iter().zip(&p).zip(&m.artist[v]) {
                    grad += x * (pb - t);
                    hess += x * x.transpose() * *pb;
                }
                hess -= &mean * mean.transpose();
            }
        }
        let step = hess
            .cholesky()
            .ok_or("the logit's Hessian is not positive definite")?
            .solve(&grad);
        let mut scale = 1.0;
        let mut improved = false;
        while scale > 1e-6 {
            let next = &theta - &step * scale;
            let next_loss = loss_at(&next);
            if next_loss <= loss {
                let gain = loss - next_loss;
                theta = next;
                loss = next_loss;
                improved = gain > 1e-9 * loss.abs().max(1.0);
                break;
            }
            scale *= 0.5;
        }
        if !improved {
            break;
        }
    }
    Ok(theta.iter().copied().collect())
}

/// Pooled scores on rigs `test` of every solver and every model (`fitted_for(r)`: the models
/// to predict rig `r` with).
fn score_split(
    samples: &[RigSamples],
    test: &[usize],
    solvers: &[String],
    fitted_for: impl Fn(usize) -> Vec<Fitted>,
) -> Res<Vec<(String, [f64; 4])>> {
    let mut pooled: Vec<(String, Pooled)> = solvers
        .iter()
        .map(|s| (s.clone(), Pooled::default()))
        .chain(
            MODELS
                .iter()
                .map(|m| (m.name().to_string(), Pooled::default())),
        )
        .collect();
    for &r in test {
        let s = &samples[r];
        for (k, w) in s.solved.iter().enumerate() {
            pooled[k].1.add(&score_rig(s, w)?);
        }
        for (k, fitted) in fitted_for(r).iter().enumerate() {
            let mut w = Weights::zeros(
                s.rig.scene.mesh().vertex_count(),
                s.rig.scene.skeleton().len(),
            );
            for m in &s.meshes {
                for (row, &v) in predict(fitted, m).iter().zip(&m.vertices) {
                    for (x, &b) in row.iter().zip(&m.bones) {
                        w.set(v, b, *x);
                    }
                }
            }
            pooled[solvers.len() + k].1.add(&score_rig(s, &w)?);
        }
    }
    Ok(pooled.into_iter().map(|(n, p)| (n, p.summary())).collect())
}

/// Protocol (a) scores of whole-rig weights on one rig's meshes.
fn score_rig(s: &RigSamples, weights: &Weights) -> Res<Pooled> {
    let options = ArtistScoreOptions::default();
    let meshes: Vec<ArtistMesh> = s
        .cuts
        .iter()
        .map(|(_, cut)| ArtistMesh {
            vertices: &cut.vertices,
            bones: &cut.bones,
        })
        .collect();
    let mut p = Pooled::default();
    for (mesh, clip) in meshes
        .iter()
        .zip(s.frames.score(&s.rig.scene, weights, &meshes)?)
    {
        let score = score_against_artist(&s.rig.scene, weights, &s.rig.artist, *mesh, &options)?;
        p.vertices += score.vertices;
        p.agreeing += score.agreeing;
        if score.vertices < SMALL_MESH {
            p.small_vertices += score.vertices;
            p.small_agreeing += score.agreeing;
        }
        p.one_bone.extend(score.one_bone_deviation_pct);
        p.clip.extend(clip.frame_deviation_pct);
    }
    Ok(p)
}

fn fit_md(out: &Output) -> String {
    let mut md = String::from("# artist_fit: models fitted on the artists' weights\n\n");
    let _ = writeln!(
        md,
        "Protocol (a) of the benchmark. Models built from: {}.\n",
        out.solvers.join(", ")
    );
    for split in &out.splits {
        let _ = writeln!(md, "## {}\n", split.split);
        md.push_str(
            "| method | agreement % | agreement < 60 % | one-bone mean % | clip mean % |\n",
        );
        md.push_str("|---|---|---|---|---|\n");
        for (name, [a, s, o, c]) in &split.scores {
            let _ = writeln!(md, "| {name} | {a:.1} | {s:.1} | {o:.2} | {c:.2} |");
        }
        md.push('\n');
        for (on, f) in split.fitted.iter().take(MODELS.len()) {
            let coefficients: Vec<String> =
                f.coefficients.iter().map(|c| format!("{c:.3}")).collect();
            let _ = writeln!(
                md,
                "- `{}` (fitted {on}): {}",
                f.model.name(),
                coefficients.join(", ")
            );
        }
        md.push('\n');
    }
    md
}
