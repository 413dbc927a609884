//! Protocol (c) of issue 60: each mesh bound to bones chosen without any artist weight, then
//! solved over them, scored beside (a) (the artist's bones per mesh) and (b) (the whole
//! character). The binder ([`skinweights::binding::auto_bones`]) keeps, per mesh, the bones the
//! whole solve over the non-IK-target bones weights on it with a mean weight of at least a
//! threshold; the threshold is chosen by leaving one source out. Writes
//! `results/binding/binding.md`. `cargo run --release --bin binding`.

mod common;

use common::rigs::{cut_meshes, default_sources, load_rig, solve_per_mesh, Rig};
use common::Res;
use skinweights::binding::{auto_bones, solve_bound, solve_with_bones, BindOptions};
use skinweights::metrics::artist::{
    score_against_artist, ArtistClipFrames, ArtistMesh, ArtistScoreOptions,
};
use skinweights::scene::SubScene;
use skinweights::weights::Weights;
use std::time::Instant;

const SOLVER: &str = "best";
const THRESHOLDS: [f64; 6] = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2];
const FPS: f64 = 30.0;

/// One rig's three means: agreement %, one-bone % diag, clip % diag.
type Scores = [f64; 3];

struct RigResult {
    name: String,
    source: String,
    a: Scores,
    b: Scores,
    b_no_artist: Scores,
    c: Vec<Scores>,
    /// Per threshold: precision and recall of the chosen bone sets (pooled over meshes).
    pr: Vec<(f64, f64)>,
    meshes: usize,
    heat_s: f64,
    c_s: Vec<f64>,
}

fn main() -> std::process::ExitCode {
    common::main_with(run)
}

fn run() -> Res<()> {
    let mut results = Vec::new();
    for src in default_sources()? {
        match score_rig(&src.name, &src.file) {
            Ok(Some(mut r)) => {
                r.source = src.source.clone();
                eprintln!("{}: a {:?} b {:?} c {:?}", r.name, r.a, r.b, r.c[3]);
                results.push(r);
            }
            Ok(None) => {}
            Err(e) => eprintln!("warning: rig {} left out: {e}", src.name),
        }
    }
    let text = report(&results);
    print!("{text}");
    let dir = common::repo_root().join("results/binding");
    std::fs::create_dir_all(&dir)?;
    common::write_text(&dir, "binding.md", &text)?;
    Ok(())
}

/// `None` for a rig whose weights look computed (reported apart in the benchmark).
fn score_rig(name: &str, file: &std::path::Path) -> Res<Option<RigResult>> {
    let rig = load_rig(file, name)?;
    if rig.fold != "painted" {
        return Ok(None);
    }
    let frames = ArtistClipFrames::new(&rig.scene, &rig.artist, rig.scene.clips(), FPS)?;
    let cuts = cut_meshes(&rig)?;
    let (a, _) = solve_per_mesh(&rig, &cuts, SOLVER, |_| {})?;
    let t = Instant::now();
    solve_per_mesh(&rig, &cuts, "heat", |_| {})?;
    let heat_s = t.elapsed().as_secs_f64();
    let solver = common::rigs::solver_of_spec(SOLVER)?;
    let b = solve_with_bones(solver.as_ref(), &rig.scene, &rig.artist_bones())?.weights;
    let t = Instant::now();
    // Nothing from the artist's weights: only IK targets are left out.
    let deforming = rig.scene.deforming_bones(None)?.kept;
    let b0 = solve_with_bones(solver.as_ref(), &rig.scene, &deforming)?.weights;
    let whole_s = t.elapsed().as_secs_f64();
    let (mut c, mut pr, mut c_s) = (Vec::new(), Vec::new(), Vec::new());
    for &min_mass in &THRESHOLDS {
        let t = Instant::now();
        let mut chosen = auto_bones(&rig.scene, &b0, &[], &BindOptions { min_mass })?;
        chosen.retain(|mb| cuts.iter().any(|(p, _)| *p == mb.part));
        let w = solve_bound(solver.as_ref(), &rig.scene, &chosen, b0.clone())?;
        c_s.push(whole_s + t.elapsed().as_secs_f64());
        pr.push(precision_recall(&cuts, &chosen));
        c.push(scores(&rig, &frames, &cuts, &w)?);
    }
    Ok(Some(RigResult {
        name: name.to_string(),
        source: String::new(),
        a: scores(&rig, &frames, &cuts, &a)?,
        b: scores(&rig, &frames, &cuts, &b)?,
        b_no_artist: scores(&rig, &frames, &cuts, &b0)?,
        c,
        pr,
        meshes: cuts.len(),
        heat_s,
        c_s,
    }))
}

fn precision_recall(
    cuts: &[(String, SubScene)],
    chosen: &[skinweights::binding::MeshBones],
) -> (f64, f64) {
    let (mut hit, mut picked, mut truth) = (0usize, 0usize, 0usize);
    for (part, cut) in cuts {
        let Some(mb) = chosen.iter().find(|mb| &mb.part == part) else {
            continue;
        };
        hit += mb.bones.iter().filter(|j| cut.bones.contains(j)).count();
        picked += mb.bones.len();
        truth += cut.bones.len();
    }
    (
        100.0 * hit as f64 / picked.max(1) as f64,
        100.0 * hit as f64 / truth.max(1) as f64,
    )
}

/// The benchmark's per-rig means: agreement over the scored vertices, one-bone deviation over
/// (mesh, bone) pairs, clip deviation over (mesh, frame) pairs (0 without clips).
fn scores(
    rig: &Rig,
    frames: &ArtistClipFrames,
    cuts: &[(String, SubScene)],
    w: &Weights,
) -> Res<Scores> {
    let meshes: Vec<ArtistMesh> = cuts
        .iter()
        .map(|(_, c)| ArtistMesh {
            vertices: &c.vertices,
            bones: &c.bones,
        })
        .collect();
    let options = ArtistScoreOptions::default();
    let (mut agree, mut verts, mut dev) = (0usize, 0usize, Vec::new());
    for m in &meshes {
        let s = score_against_artist(&rig.scene, w, &rig.artist, *m, &options)?;
        agree += s.agreeing;
        verts += s.vertices;
        dev.extend(s.one_bone_deviation_pct);
    }
    let clip: Vec<f64> = frames
        .score(&rig.scene, w, &meshes)?
        .into_iter()
        .flat_map(|c| c.frame_deviation_pct)
        .collect();
    Ok([
        100.0 * agree as f64 / verts.max(1) as f64,
        mean(&dev),
        mean(&clip),
    ])
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Sum over the three measures of the rank of each threshold's mean over `rigs` (lower wins).
fn rank_sum(rigs: &[&RigResult]) -> Vec<usize> {
    let means: Vec<Scores> = (0..THRESHOLDS.len())
        .map(|k| {
            let col = |m: usize| mean(&rigs.iter().map(|r| r.c[k][m]).collect::<Vec<_>>());
            [-col(0), col(1), col(2)]
        })
        .collect();
    (0..THRESHOLDS.len())
        .map(|k| {
            (0..3)
                .map(|m| means.iter().filter(|o| o[m] < means[k][m]).count())
                .sum()
        })
        .collect()
}

fn best_threshold(rigs: &[&RigResult]) -> usize {
    let ranks = rank_sum(rigs);
    (0..THRESHOLDS.len()).min_by_key(|&k| ranks[k]).unwrap_or(0)
}

struct SplitMix(u64);
impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (((z ^ (z >> 31)) % n as u64) as usize).min(n - 1)
    }
}

fn interval(v: &[f64]) -> String {
    let n = v.len().max(1);
    let mut rng = SplitMix(60);
    let mut means: Vec<f64> = (0..2000)
        .map(|_| (0..n).map(|_| v[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(f64::total_cmp);
    format!("{:.2} [{:.2}, {:.2}]", mean(v), means[50], means[1949])
}

fn report(results: &[RigResult]) -> String {
    // Held out: each rig scored at the threshold chosen on the rigs of the other sources.
    let held: Vec<(Scores, (f64, f64), usize)> = results
        .iter()
        .map(|r| {
            let others: Vec<&RigResult> = results.iter().filter(|o| o.source != r.source).collect();
            let k = best_threshold(&others);
            (r.c[k], r.pr[k], k)
        })
        .collect();
    let mut s = format!(
        "# Protocol (c): the binder, {} painted rigs, solver {SOLVER}\n\n\
         | protocol | agreement % | one-bone % diag | clip % diag | rigs won vs (b) (agr / one-bone / clip) |\n|---|---|---|---|---|\n",
        results.len()
    );
    let mut row = |name: String, get: &dyn Fn(usize) -> Scores| {
        let col = |m: usize| (0..results.len()).map(|i| get(i)[m]).collect::<Vec<_>>();
        let won = |m: usize| {
            (0..results.len())
                .filter(|&i| {
                    let (x, y) = (get(i)[m], results[i].b[m]);
                    if m == 0 {
                        x > y
                    } else {
                        x < y
                    }
                })
                .count()
        };
        s += &format!(
            "| {name} | {} | {} | {} | {} / {} / {} |\n",
            interval(&col(0)),
            interval(&col(1)),
            interval(&col(2)),
            won(0),
            won(1),
            won(2)
        );
    };
    row("(a) artist's bones per mesh".into(), &|i| results[i].a);
    row("(b) whole, artist-bound bones".into(), &|i| results[i].b);
    row("(b0) whole, non-IK bones (no artist data)".into(), &|i| {
        results[i].b_no_artist
    });
    for (k, t) in THRESHOLDS.iter().enumerate() {
        row(format!("(c) min_mass {t} (all rigs)"), &|i| results[i].c[k]);
    }
    row("(c) held out (leave one source out)".into(), &|i| held[i].0);
    let all: Vec<&RigResult> = results.iter().collect();
    s += &format!(
        "\nThreshold chosen on all rigs: {}; held-out choices: {:?}\n\n\
         ## Per rig (held out)\n\n| rig | source | meshes | threshold | precision % | recall % | (a) | (b) | (c) | (c) time / heat time |\n|---|---|---|---|---|---|---|---|---|---|\n",
        THRESHOLDS[best_threshold(&all)],
        held.iter().map(|h| THRESHOLDS[h.2]).collect::<Vec<_>>()
    );
    let f = |x: Scores| format!("{:.1} / {:.2} / {:.2}", x[0], x[1], x[2]);
    let mut ratio = Vec::new();
    for (r, (c, (p, rc), k)) in results.iter().zip(&held) {
        ratio.push(r.c_s[*k] / r.heat_s.max(1e-9));
        s += &format!(
            "| {} | {} | {} | {} | {p:.1} | {rc:.1} | {} | {} | {} | {:.2} |\n",
            r.name,
            r.source,
            r.meshes,
            THRESHOLDS[*k],
            f(r.a),
            f(r.b),
            f(*c),
            ratio.last().copied().unwrap_or(0.0)
        );
    }
    let (p, rc): (Vec<f64>, Vec<f64>) = held.iter().map(|h| h.1).unzip();
    s += &format!(
        "\nMean precision {:.1}%, recall {:.1}% (held out). (c)'s time (whole solve + per-mesh solves) over heat's per-mesh time: median {:.2}x.\n",
        mean(&p),
        mean(&rc),
        {
            ratio.sort_by(f64::total_cmp);
            ratio.get(ratio.len() / 2).copied().unwrap_or(0.0)
        }
    );
    s
}
