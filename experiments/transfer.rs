//! Protocol (t) of issue 57: costume transfer. For every ordered pair (A, B) of artist-weighted
//! meshes drawn in one slot, A's artist weights are transferred to B (B's bones known, as in
//! protocol (a)) and scored against B's artist weights; beside them, B weighted from scratch by
//! protocol (a) (the artist's bones) and (c) (the binder). Pairs whose source bones cover the
//! target's ("bones match") are reported apart from the others. The default method is chosen
//! by leaving one source out. Writes `results/transfer/transfer.md`.
//! `cargo run --release --bin transfer [-- RIG.json ...]`.

mod common;

use common::rigs::{cut_meshes, default_sources, load_rig, solve_per_mesh, RigSource};
use common::stats::{mean_interval, SplitMix};
use common::Res;
use skinweights::binding::{auto_bones, solve_bound, solve_with_bones, BindOptions};
use skinweights::metrics::artist::{
    score_against_artist, ArtistClipFrames, ArtistMesh, ArtistScoreOptions,
};
use skinweights::scene::SubScene;
use skinweights::transfer::{
    slot_partners, transfer, TransferMethod, TransferOptions, TransferSource, TransferTarget,
};
use skinweights::weights::Weights;
use std::path::PathBuf;
use std::time::Instant;

const SOLVER: &str = "best";
const FPS: f64 = 30.0;

/// Agreement %, one-bone % diag, clip % diag.
type Scores = [f64; 3];

/// The transfer variants measured; the default is chosen among them.
fn variants() -> Vec<(String, TransferOptions)> {
    let base = TransferOptions::default();
    let mut out = Vec::new();
    let methods = [
        (TransferMethod::Nearest, base.max_distance),
        (TransferMethod::Robust, 0.05),
        (TransferMethod::Robust, 0.1),
    ];
    for (method, r) in methods {
        for cover in [0.0, 0.5, 1.0] {
            let o = TransferOptions {
                method,
                max_distance: r,
                min_coverage: cover,
                ..base
            };
            let mut name = method.name().to_string();
            if method == TransferMethod::Robust {
                name += &format!(" r={r}");
            }
            out.push((format!("{name}, coverage >= {cover}"), o));
        }
    }
    // What bone mapping and the from-scratch share of uncovered target bones are worth.
    let loose = TransferOptions {
        min_coverage: 0.0,
        ..base
    };
    for map in [0.25, 1.0] {
        out.push((
            format!("nearest, coverage >= 0, map <= {map}"),
            TransferOptions {
                max_map_cost: map,
                ..loose
            },
        ));
    }
    out.push((
        "nearest, coverage >= 0, uncovered left".into(),
        TransferOptions {
            uncovered_from_scratch: false,
            ..loose
        },
    ));
    out
}

/// Most pairs scored per rig (evenly spaced in the pair list): a rig with thousands of
/// outfits would otherwise take most of the run.
const MAX_PAIRS: usize = 1500;

struct Pair {
    matched: bool,
    transfer: Vec<Scores>,
    a: Scores,
    c: Scores,
    fallback_share: f64,
}

struct RigResult {
    name: String,
    source: String,
    pairs: Vec<Pair>,
    transfer_s: f64,
    transfers: usize,
    /// Pairs in the rig before sampling ([`MAX_PAIRS`]).
    all_pairs: usize,
}

fn main() -> std::process::ExitCode {
    common::main_with(run)
}

fn run() -> Res<()> {
    let given: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let sources = if given.is_empty() {
        default_sources()?
    } else {
        given
            .iter()
            .map(|f| RigSource {
                name: f.file_stem().unwrap_or_default().to_string_lossy().into(),
                file: f.clone(),
                source: f.display().to_string(),
            })
            .collect()
    };
    let mut results = Vec::new();
    for src in &sources {
        let t = Instant::now();
        match score_rig(&src.name, &src.file) {
            Ok(Some(mut r)) => {
                r.source = src.source.clone();
                eprintln!(
                    "{}: {} pairs in {:.1} s",
                    r.name,
                    r.pairs.len(),
                    t.elapsed().as_secs_f64()
                );
                results.push(r);
            }
            Ok(None) => {}
            Err(e) => eprintln!("warning: rig {} left out: {e}", src.name),
        }
    }
    let text = report(&results);
    print!("{text}");
    let dir = common::repo_root().join("results/transfer");
    std::fs::create_dir_all(&dir)?;
    common::write_text(&dir, "transfer.md", &text)?;
    Ok(())
}

/// `None` for a rig with no costume pair or whose weights look computed.
fn score_rig(name: &str, file: &std::path::Path) -> Res<Option<RigResult>> {
    let rig = load_rig(file, name)?;
    if rig.fold != "painted" {
        return Ok(None);
    }
    let cuts = cut_meshes(&rig)?;
    let index = |part: &str| cuts.iter().position(|(p, _)| p == part);
    let pairs: Vec<(usize, usize)> = (0..cuts.len())
        .flat_map(|b| {
            slot_partners(&rig.slots, &cuts[b].0)
                .into_iter()
                .filter_map(|a| index(&a))
                .map(move |a| (a, b))
                .collect::<Vec<_>>()
        })
        .collect();
    if pairs.is_empty() {
        return Ok(None);
    }
    let all_pairs = pairs.len();
    let pairs: Vec<(usize, usize)> = if all_pairs > MAX_PAIRS {
        (0..MAX_PAIRS)
            .map(|i| pairs[i * all_pairs / MAX_PAIRS])
            .collect()
    } else {
        pairs
    };
    let mut targets: Vec<usize> = pairs.iter().map(|p| p.1).collect();
    targets.sort_unstable();
    targets.dedup();
    let target_cuts: Vec<(String, SubScene)> = targets.iter().map(|&b| cuts[b].clone()).collect();
    let frames = ArtistClipFrames::new(&rig.scene, &rig.artist, rig.scene.clips(), FPS)?;
    let (wa, _) = solve_per_mesh(&rig, &target_cuts, SOLVER, |_| {})?;
    let solver = common::rigs::solver_of_spec(SOLVER)?;
    let deforming = rig.scene.deforming_bones(None)?.kept;
    let b0 = solve_with_bones(solver.as_ref(), &rig.scene, &deforming)?.weights;
    let mut chosen = auto_bones(&rig.scene, &b0, &[], &BindOptions::rule())?;
    chosen.retain(|mb| target_cuts.iter().any(|(p, _)| *p == mb.part));
    let wc = solve_bound(solver.as_ref(), &rig.scene, &chosen, b0)?;
    let mut work = rig.artist.clone();
    let (mut out, mut transfer_s, mut transfers) = (Vec::new(), 0.0, 0);
    for &(a, b) in &pairs {
        let (ca, cb) = (&cuts[a].1, &cuts[b].1);
        let source = TransferSource::from_parts(&rig.scene, &rig.artist, &[cuts[a].0.clone()])?;
        let target = TransferTarget {
            part: cuts[b].0.clone(),
            bones: Some(cb.bones.clone()),
        };
        let mut scores = Vec::new();
        let mut share = 0.0;
        for (k, (_, options)) in variants().iter().enumerate() {
            let t = Instant::now();
            let moved = transfer(&rig.scene, &target, &source, options, solver.as_ref())?;
            transfer_s += t.elapsed().as_secs_f64();
            transfers += 1;
            if k == 0 {
                share = moved.report.from_scratch as f64 / moved.vertices.len().max(1) as f64;
            }
            moved.scatter(&mut work)?;
            scores.push(score_mesh(&rig.scene, &frames, &rig.artist, cb, &work)?);
        }
        out.push(Pair {
            matched: cb.bones.iter().all(|j| ca.bones.contains(j)),
            transfer: scores,
            a: score_mesh(&rig.scene, &frames, &rig.artist, cb, &wa)?,
            c: score_mesh(&rig.scene, &frames, &rig.artist, cb, &wc)?,
            fallback_share: share,
        });
    }
    Ok(Some(RigResult {
        name: name.to_string(),
        source: String::new(),
        pairs: out,
        transfer_s,
        transfers,
        all_pairs,
    }))
}

/// One mesh's agreement %, mean one-bone deviation and mean clip deviation (0 without clips).
fn score_mesh(
    scene: &skinweights::scene::Scene,
    frames: &ArtistClipFrames,
    artist: &Weights,
    cut: &SubScene,
    w: &Weights,
) -> Res<Scores> {
    let mesh = ArtistMesh {
        vertices: &cut.vertices,
        bones: &cut.bones,
    };
    let s = score_against_artist(scene, w, artist, mesh, &ArtistScoreOptions::default())?;
    let clip: Vec<f64> = frames
        .score(scene, w, &[mesh])?
        .into_iter()
        .flat_map(|c| c.frame_deviation_pct)
        .collect();
    Ok([
        100.0 * s.agreeing as f64 / s.vertices.max(1) as f64,
        mean(&s.one_bone_deviation_pct),
        mean(&clip),
    ])
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Which pairs a table takes.
#[derive(Clone, Copy, PartialEq)]
enum Subset {
    All,
    Matched,
    Unmatched,
}

impl Subset {
    fn takes(self, p: &Pair) -> bool {
        match self {
            Subset::All => true,
            Subset::Matched => p.matched,
            Subset::Unmatched => !p.matched,
        }
    }
}

/// Per rig, the mean over its pairs in `subset` of what `get` picks; `None` without pairs.
fn rig_mean(r: &RigResult, subset: Subset, get: &dyn Fn(&Pair) -> Scores) -> Option<Scores> {
    let pairs: Vec<&Pair> = r.pairs.iter().filter(|p| subset.takes(p)).collect();
    if pairs.is_empty() {
        return None;
    }
    let m = |k: usize| mean(&pairs.iter().map(|p| get(p)[k]).collect::<Vec<_>>());
    Some([m(0), m(1), m(2)])
}

/// The variant with the lowest sum of ranks over the three means over `rigs` (all pairs).
fn best_variant(rigs: &[&RigResult]) -> usize {
    let n = variants().len();
    let means: Vec<Scores> = (0..n)
        .map(|k| {
            let per: Vec<Scores> = rigs
                .iter()
                .filter_map(|r| rig_mean(r, Subset::All, &|p| p.transfer[k]))
                .collect();
            let m = |i: usize| mean(&per.iter().map(|s| s[i]).collect::<Vec<_>>());
            [-m(0), m(1), m(2)]
        })
        .collect();
    let rank = |k: usize| -> usize {
        (0..3)
            .map(|m| means.iter().filter(|o| o[m] < means[k][m]).count())
            .sum()
    };
    (0..n).min_by_key(|&k| rank(k)).unwrap_or(0)
}

fn report(results: &[RigResult]) -> String {
    let all: Vec<&RigResult> = results.iter().collect();
    let chosen_all = best_variant(&all);
    // Held out: each rig scored with the variant chosen on the rigs of the other sources.
    let held: Vec<usize> = results
        .iter()
        .map(|r| {
            let others: Vec<&RigResult> = results.iter().filter(|o| o.source != r.source).collect();
            best_variant(&others)
        })
        .collect();
    let names: Vec<String> = variants().into_iter().map(|v| v.0).collect();
    let pairs: usize = results.iter().map(|r| r.pairs.len()).sum();
    let matched: usize = results
        .iter()
        .map(|r| r.pairs.iter().filter(|p| p.matched).count())
        .sum();
    let mut s = format!(
        "# Protocol (t): costume transfer, {} painted rigs with costume pairs, {pairs} ordered pairs ({matched} whose source bones cover the target's)\n\n\
         Means over rigs of each rig's mean over its pairs, [95% bootstrap interval over rigs]. \
         Agreement: % of target vertices whose dominant bone is the artist's (higher is better); \
         one-bone and clip deviation: % of the mesh diagonal (lower is better). (a) and (c) weight \
         the target from scratch with `{SOLVER}` (the artist's bones; the binder's).\n",
        results.len()
    );
    for (subset, title) in [
        (Subset::All, "All pairs"),
        (Subset::Matched, "Pairs whose bones match"),
        (Subset::Unmatched, "Pairs whose bones do not match"),
    ] {
        let rigs = results
            .iter()
            .filter(|r| r.pairs.iter().any(|p| subset.takes(p)))
            .count();
        s += &format!(
            "\n## {title} ({rigs} rigs)\n\n| weights | agreement % | one-bone % diag | clip % diag |\n|---|---|---|---|\n"
        );
        let mut row = |label: String, get: &dyn Fn(usize, &Pair) -> Scores| {
            let per: Vec<Scores> = results
                .iter()
                .enumerate()
                .filter_map(|(i, r)| rig_mean(r, subset, &|p| get(i, p)))
                .collect();
            if per.is_empty() {
                return;
            }
            let cell = |m: usize| {
                let v: Vec<f64> = per.iter().map(|x| x[m]).collect();
                let (mean, lo, hi) = mean_interval(&v, &mut SplitMix(0x7A5F ^ (m as u64) << 8));
                format!("{mean:.2} [{lo:.2}, {hi:.2}]")
            };
            s += &format!("| {label} | {} | {} | {} |\n", cell(0), cell(1), cell(2));
        };
        row(
            "transfer, default held out (leave one source out)".into(),
            &|i, p| p.transfer[held[i]],
        );
        for (k, n) in names.iter().enumerate() {
            row(format!("transfer `{n}`"), &|_, p| p.transfer[k]);
        }
        row("(a) from scratch, artist's bones".into(), &|_, p| p.a);
        row("(c) from scratch, binder's bones".into(), &|_, p| p.c);
    }
    let secs: f64 = results.iter().map(|r| r.transfer_s).sum();
    let count: usize = results.iter().map(|r| r.transfers).sum();
    s += &format!(
        "\nVariant chosen on all rigs: `{}`; held-out choices: {:?}. Mean transfer time {:.2} ms ({count} transfers).\n\n\
         ## Per rig (transfer with the held-out variant)\n\n| rig | source | pairs (scored of all) | matched | variant | transfer | (a) | (c) | share from scratch % |\n|---|---|---|---|---|---|---|---|---|\n",
        names[chosen_all],
        held.iter().map(|&k| names[k].as_str()).collect::<Vec<_>>(),
        1000.0 * secs / count.max(1) as f64
    );
    let f = |x: Option<Scores>| {
        x.map(|x| format!("{:.1} / {:.2} / {:.2}", x[0], x[1], x[2]))
            .unwrap_or_default()
    };
    for (r, &k) in results.iter().zip(&held) {
        s += &format!(
            "| {} | {} | {} of {} | {} | {} | {} | {} | {} | {:.1} |\n",
            r.name,
            r.source,
            r.pairs.len(),
            r.all_pairs,
            r.pairs.iter().filter(|p| p.matched).count(),
            names[k],
            f(rig_mean(r, Subset::All, &|p| p.transfer[k])),
            f(rig_mean(r, Subset::All, &|p| p.a)),
            f(rig_mean(r, Subset::All, &|p| p.c)),
            100.0 * mean(&r.pairs.iter().map(|p| p.fallback_share).collect::<Vec<_>>())
        );
    }
    s
}
