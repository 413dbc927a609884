//! Protocol (c) of issue 60: each mesh bound to bones chosen without any artist weight, then
//! weighted over them, scored beside (a) (the artist's bones per mesh) and (b) (the whole
//! character). The binder sees only the skeleton and each part's slot bone (its home). Every
//! variant starts from one whole solve per rig (cached): over the non-IK-target bones (D0) or
//! over [`skinweights::binding::whole_bones`] of them (D1: without roots, points and holders
//! of rigid art), then pruned per mesh ([`skinweights::binding::prune`]) to the bones
//! [`skinweights::binding::auto_bones`] keeps (a mean-weight threshold, optionally within k
//! hierarchy steps of the mesh's heaviest or home bone). The variant is chosen by leaving one
//! source out. Rigs with more than [`MAX_MESHES`] scored meshes are scored on an even
//! subsample of them. Writes `results/binding/binding.md`. `cargo run --release --bin binding`
//! (`BINDING_RIGS=a,b` scores only those rigs).

mod common;

use common::rigs::{cut_meshes, default_sources, load_rig, solve_per_mesh, Rig};
use common::Res;
use skinweights::binding::{
    auto_bones, prune, solve_with_bones, whole_bones, BindOptions, MeshBones,
};
use skinweights::metrics::artist::{
    score_against_artist, ArtistClipFrames, ArtistMesh, ArtistScoreOptions,
};
use skinweights::scene::SubScene;
use skinweights::weights::Weights;
use std::time::Instant;

const SOLVER: &str = "best";
const THRESHOLDS: [f64; 5] = [0.0, 0.01, 0.02, 0.05, 0.1];
const HOPS: [Option<usize>; 4] = [None, Some(1), Some(2), Some(3)];
const FPS: f64 = 30.0;
/// Rigs with more scored meshes are scored on every k-th of them (ggx-character: 652).
const MAX_MESHES: usize = 160;

/// One binder variant: the whole solve's bones (D1 when `skip`), threshold, hops.
#[derive(Clone, Copy)]
struct Variant {
    skip: bool,
    min_mass: f64,
    max_hops: Option<usize>,
}

impl Variant {
    fn all() -> Vec<Variant> {
        let mut out = Vec::new();
        for skip in [false, true] {
            for &min_mass in &THRESHOLDS {
                for &max_hops in &HOPS {
                    out.push(Variant {
                        skip,
                        min_mass,
                        max_hops,
                    });
                }
            }
        }
        out
    }

    fn name(&self) -> String {
        format!(
            "{} min_mass {}{}",
            if self.skip { "D1" } else { "D0" },
            self.min_mass,
            self.max_hops
                .map_or(String::new(), |k| format!(" hops {k}"))
        )
    }
}

/// One rig's three means: agreement %, one-bone % diag, clip % diag.
type Scores = [f64; 3];

struct RigResult {
    name: String,
    source: String,
    a: Scores,
    b: Scores,
    b_no_artist: Scores,
    /// Per variant ([`Variant::all`]).
    c: Vec<Scores>,
    /// Per variant: precision and recall of the chosen bone sets (pooled over meshes).
    pr: Vec<(f64, f64)>,
    meshes: usize,
    heat_s: f64,
    /// Per variant: the whole solve's time (pruning is negligible).
    c_s: Vec<f64>,
}

fn main() -> std::process::ExitCode {
    common::main_with(run)
}

fn run() -> Res<()> {
    let only: Option<Vec<String>> = std::env::var("BINDING_RIGS")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let mut results = Vec::new();
    for src in default_sources()? {
        if only.as_ref().is_some_and(|o| !o.contains(&src.name)) {
            continue;
        }
        let t = Instant::now();
        match score_rig(&src.name, &src.file) {
            Ok(Some(mut r)) => {
                r.source = src.source.clone();
                eprintln!(
                    "{}: a {:?} b {:?} c {:?} ({:.0} s)",
                    r.name,
                    r.a,
                    r.b,
                    r.c[0],
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
    let dir = common::repo_root().join("results/binding");
    std::fs::create_dir_all(&dir)?;
    common::write_text(&dir, "binding.md", &text)?;
    Ok(())
}

/// Each part's home: its slot's bone (Spine: the slot's bone; DragonBones: the slot's
/// parent), what an unweighted mesh of the format carries; every part with a slot.
fn homes(rig: &Rig) -> Vec<MeshBones> {
    rig.slots
        .iter()
        .filter_map(|s| {
            let j = rig.scene.skeleton().index_of(s.bone.as_deref()?)?;
            Some(MeshBones {
                part: s.part.clone(),
                bones: vec![j],
            })
        })
        .collect()
}

/// `None` for a rig whose weights look computed (reported apart in the benchmark).
fn score_rig(name: &str, file: &std::path::Path) -> Res<Option<RigResult>> {
    let rig = load_rig(file, name)?;
    if rig.fold != "painted" {
        return Ok(None);
    }
    let frames = ArtistClipFrames::new(&rig.scene, &rig.artist, rig.scene.clips(), FPS)?;
    let mut cuts = cut_meshes(&rig)?;
    if cuts.len() > MAX_MESHES {
        let step = cuts.len().div_ceil(MAX_MESHES);
        cuts = cuts.into_iter().step_by(step).collect();
    }
    let (a, _) = solve_per_mesh(&rig, &cuts, SOLVER, |_| {})?;
    let t = Instant::now();
    solve_per_mesh(&rig, &cuts, "heat", |_| {})?;
    let heat_s = t.elapsed().as_secs_f64();
    let solver = common::rigs::solver_of_spec(SOLVER)?;
    let b = solve_with_bones(solver.as_ref(), &rig.scene, &rig.artist_bones())?.weights;
    // Nothing from the artist's weights: the skeleton and the slots' bones.
    let home = homes(&rig);
    let d0 = rig.scene.deforming_bones(None)?.kept;
    let d1 = whole_bones(&rig.scene, &d0, &home);
    let mut wholes = Vec::new();
    for bones in [&d0, &d1] {
        let t = Instant::now();
        let w = solve_with_bones(solver.as_ref(), &rig.scene, bones)?.weights;
        wholes.push((w, t.elapsed().as_secs_f64()));
    }
    let (mut c, mut pr, mut c_s) = (Vec::new(), Vec::new(), Vec::new());
    for v in Variant::all() {
        let (whole, secs) = &wholes[v.skip as usize];
        let options = BindOptions {
            min_mass: v.min_mass,
            max_hops: v.max_hops,
            ..BindOptions::default()
        };
        let mut chosen = auto_bones(&rig.scene, whole, &home, &options)?;
        chosen.retain(|mb| cuts.iter().any(|(p, _)| *p == mb.part));
        let w = prune(&rig.scene, whole, &chosen)?;
        c_s.push(*secs);
        pr.push(precision_recall(&cuts, &chosen));
        c.push(scores(&rig, &frames, &cuts, &w)?);
    }
    Ok(Some(RigResult {
        name: name.to_string(),
        source: String::new(),
        a: scores(&rig, &frames, &cuts, &a)?,
        b: scores(&rig, &frames, &cuts, &b)?,
        b_no_artist: c[0],
        c,
        pr,
        meshes: cuts.len(),
        heat_s,
        c_s,
    }))
}

fn precision_recall(
    cuts: &[(String, SubScene)],
    chosen: &[MeshBones],
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

fn n_variants() -> usize {
    Variant::all().len()
}

/// Sum over the three measures of the rank of each variant's mean over `rigs` (lower wins).
fn rank_sum(rigs: &[&RigResult]) -> Vec<usize> {
    let means: Vec<Scores> = (0..n_variants())
        .map(|k| {
            let col = |m: usize| mean(&rigs.iter().map(|r| r.c[k][m]).collect::<Vec<_>>());
            [-col(0), col(1), col(2)]
        })
        .collect();
    (0..n_variants())
        .map(|k| {
            (0..3)
                .map(|m| means.iter().filter(|o| o[m] < means[k][m]).count())
                .sum()
        })
        .collect()
}

fn best_threshold(rigs: &[&RigResult]) -> usize {
    let ranks = rank_sum(rigs);
    (0..n_variants()).min_by_key(|&k| ranks[k]).unwrap_or(0)
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
    for (k, v) in Variant::all().iter().enumerate() {
        row(format!("(c) {} (all rigs)", v.name()), &|i| results[i].c[k]);
    }
    row("(c) held out (leave one source out)".into(), &|i| held[i].0);
    let all: Vec<&RigResult> = results.iter().collect();
    s += &format!(
        "\nVariant chosen on all rigs: {}; held-out choices: {:?}\n\n\
         ## Per rig (held out)\n\n| rig | source | meshes | variant | precision % | recall % | (a) | (b) | (c) | (c) time / heat time |\n|---|---|---|---|---|---|---|---|---|---|\n",
        Variant::all()[best_threshold(&all)].name(),
        held.iter()
            .map(|h| Variant::all()[h.2].name())
            .collect::<Vec<_>>()
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
            Variant::all()[*k].name(),
            f(r.a),
            f(r.b),
            f(*c),
            ratio.last().copied().unwrap_or(0.0)
        );
    }
    let (p, rc): (Vec<f64>, Vec<f64>) = held.iter().map(|h| h.1).unzip();
    s += &format!(
        "\nMean precision {:.1}%, recall {:.1}% (held out). (c)'s time (the whole solve; pruning is negligible) over heat's per-mesh time: median {:.2}x.\n",
        mean(&p),
        mean(&rc),
        {
            ratio.sort_by(f64::total_cmp);
            ratio.get(ratio.len() / 2).copied().unwrap_or(0.0)
        }
    );
    s
}
