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
//! (`BINDING_RIGS=a,b` scores only those rigs). `BINDING_MODE=learned` runs the learned binder
//! instead (module [`learned`], `results/binding/learned.md`); `timing` times `bind(Auto)`
//! against heat per mesh, `explain` lists each mesh's artist bones against the binder's with
//! their features, `probe` scores the rule and the shipped trees against edits of their sets
//! (stdout only), `deforming` a per-rig classifier of the deforming bones before the whole
//! solve, `chains` how often the trees' IK-chain bones are the artist's, `refine` each
//! mesh's re-solve on subdivided copies of it (`DROP_APART=1`: the sets without the bones
//! animated apart from the mesh's heaviest), `second` a second pass dropping the bones that
//! lead few vertices in that re-solve, `targets` which IK targets the artists bind, and
//! `shown` two clip signals against the artist's bones (all stdout only).

mod common;
#[path = "binding/deforming.rs"]
mod deforming;
#[path = "binding/refine.rs"]
mod refine;
#[path = "binding/second.rs"]
mod second;

use common::rigs::{cut_meshes, default_sources, load_rig, precision_recall, solve_per_mesh, Rig};
use common::Res;
use skinweights::binding::{
    auto_bones, bind, geometric_bones, masked, prune, solve_bound, solve_with_bones, whole_bones,
    Bind, BindOptions, FileBindings,
};
use skinweights::metrics::artist::{
    score_against_artist, ArtistClipFrames, ArtistMesh, ArtistScoreOptions,
};
use skinweights::scene::SubScene;
use skinweights::weights::Weights;
use std::time::Instant;

const SOLVER: &str = "best";
const THRESHOLDS: [f64; 3] = [0.0, 0.01, 0.02];
const INSIDE: [usize; 3] = [0, 1, 3];
const FPS: f64 = 30.0;
/// Rigs with more scored meshes are scored on every k-th of them (ggx-character: 652).
const MAX_MESHES: usize = 160;
/// The whole solve's bones: D0 the non-IK-target bones; D1 without roots, points and holders
/// of rigid art; D2 also without bones outside every mesh.
const WHOLES: [&str; 5] = ["D0", "D1", "D2", "D0 by heat", "D0 by euclidean"];
/// The solver of each whole solve of [`WHOLES`].
const WHOLE_SOLVERS: [&str; 5] = [SOLVER, SOLVER, SOLVER, "heat", "euclidean"];
/// The whole solves the variants use (D1 is reported as a whole solve only).
const VARIANT_WHOLES: [usize; 2] = [0, 2];

/// One binder variant: the whole solve's bones (index in [`WHOLES`]), threshold, how many
/// points of a bone's segment must lie in a mesh to keep it (0: no condition), and whether each mesh is solved again over its bones.
#[derive(Clone, Copy)]
struct Variant {
    whole: usize,
    min_mass: f64,
    min_inside: usize,
    resolve: bool,
    keep_home: bool,
}

impl Variant {
    /// The whole solve `whole` alone: nothing pruned.
    fn plain(whole: usize) -> Variant {
        Variant {
            whole,
            min_mass: 0.0,
            min_inside: 0,
            resolve: false,
            keep_home: true,
        }
    }

    fn all() -> Vec<Variant> {
        let mut out: Vec<Variant> = (0..WHOLES.len()).map(Variant::plain).collect();
        for (resolve, keep_home) in [(false, true), (false, false), (true, true), (true, false)] {
            for whole in VARIANT_WHOLES {
                for &min_mass in &THRESHOLDS {
                    for &min_inside in &INSIDE {
                        let v = Variant {
                            whole,
                            min_mass,
                            min_inside,
                            resolve,
                            keep_home,
                        };
                        let plain = min_mass == 0.0 && min_inside == 0;
                        if !plain || resolve || !keep_home {
                            out.push(v);
                        }
                    }
                }
            }
        }
        for whole in [3, 4] {
            for &min_mass in &THRESHOLDS {
                out.push(Variant {
                    whole,
                    min_mass,
                    min_inside: 3,
                    resolve: true,
                    keep_home: false,
                });
            }
        }
        out
    }

    fn name(&self) -> String {
        format!(
            "{} min_mass {}{}{}{}",
            WHOLES[self.whole],
            self.min_mass,
            if self.min_inside > 0 {
                format!(" inside {}", self.min_inside)
            } else {
                String::new()
            },
            if self.resolve { " re-solved" } else { "" },
            if self.keep_home { "" } else { " home not kept" }
        )
    }

    fn options(&self) -> BindOptions {
        BindOptions {
            min_mass: self.min_mass,
            resolve: self.resolve,
            skip_holders: (1..=2).contains(&self.whole),
            skip_outside: self.whole == 2,
            model: None,
            min_inside: self.min_inside,
            keep_home: self.keep_home,
            refine: None,
        }
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
    /// Per variant ([`Variant::all`]), then the masked solves (named in `extra`).
    c: Vec<Scores>,
    extra: Vec<String>,
    /// Per variant: precision and recall of the chosen bone sets (pooled over meshes).
    pr: Vec<(f64, f64)>,
    meshes: usize,
    heat_s: f64,
    /// Per variant: the whole solve's time and the binder's.
    c_s: Vec<f64>,
}

fn main() -> std::process::ExitCode {
    common::main_with(run)
}

fn run() -> Res<()> {
    let only: Option<Vec<String>> = std::env::var("BINDING_RIGS")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    match std::env::var("BINDING_MODE").as_deref() {
        Ok("learned") => return learned::run(only),
        Ok("timing") => return timing::run(only),
        Ok("explain") => return explain::run(only),
        Ok("probe") => return probe::run(only),
        Ok("deforming") => return deforming::run(only),
        Ok("chains") => return deforming::chains(only),
        Ok("targets") => return deforming::targets(only),
        Ok("shown") => return deforming::shown(only),
        Ok("refine") => return refine::run(only),
        Ok("second") => return second::run(only),
        _ => {}
    }
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
    let home = rig.homes();
    let d0 = rig.scene.deforming_bones(None)?.kept;
    let mut wholes = Vec::new();
    for (k, spec) in WHOLE_SOLVERS.iter().enumerate() {
        let t = Instant::now();
        let bones = whole_bones(&rig.scene, &d0, &home, &Variant::plain(k).options());
        let by = common::rigs::solver_of_spec(spec)?;
        let w = solve_with_bones(by.as_ref(), &rig.scene, &bones)?.weights;
        wholes.push((w, t.elapsed().as_secs_f64()));
    }
    let (mut c, mut pr, mut c_s) = (Vec::new(), Vec::new(), Vec::new());
    let mut extra = Vec::new();
    for v in Variant::all() {
        let (whole, secs) = &wholes[v.whole];
        let options = v.options();
        let t = Instant::now();
        let mut chosen = auto_bones(&rig.scene, whole, &home, &options)?;
        chosen.retain(|mb| cuts.iter().any(|(p, _)| *p == mb.part));
        let w = if v.resolve {
            solve_bound(solver.as_ref(), &rig.scene, &chosen, whole.clone())?
        } else {
            prune(&rig.scene, whole, &chosen)?
        };
        c_s.push(secs + t.elapsed().as_secs_f64());
        pr.push(precision_recall(&cuts, &chosen));
        c.push(scores(&rig, &frames, &cuts, &w)?);
    }
    // Masked whole solves: each mesh allowed only its bones (the binder's from the D0 whole
    // solve, or the bones lying in it), then optionally pruned to them.
    let mass_sets = auto_bones(
        &rig.scene,
        &wholes[0].0,
        &home,
        &Variant {
            whole: 0,
            min_mass: 0.0,
            min_inside: 3,
            resolve: false,
            keep_home: true,
        }
        .options(),
    )?;
    let mut sets = vec![(
        "mass inside 3".to_string(),
        mass_sets,
        wholes[0].1,
        d0.clone(),
    )];
    for k in [1, 3, 5] {
        for w in [0, 2] {
            let bones = whole_bones(&rig.scene, &d0, &home, &Variant::plain(w).options());
            sets.push((
                format!("{} geometric inside {k}", WHOLES[w]),
                geometric_bones(&rig.scene, &bones, &home, k),
                0.0,
                bones,
            ));
        }
    }
    for (name, set, before, bones) in sets {
        let t = Instant::now();
        let scene = masked(&rig.scene, &set)?;
        let mut used: Vec<usize> = set.iter().flat_map(|mb| mb.bones.iter().copied()).collect();
        used.retain(|j| bones.contains(j));
        used.sort_unstable();
        used.dedup();
        let w = solve_with_bones(solver.as_ref(), &scene, &used)?.weights;
        let secs = before + t.elapsed().as_secs_f64();
        let mut chosen = set.clone();
        chosen.retain(|mb| cuts.iter().any(|(p, _)| *p == mb.part));
        let pruned = prune(&rig.scene, &w, &chosen)?;
        for (tag, w) in [("masked", &w), ("masked pruned", &pruned)] {
            extra.push(format!("{name} {tag}"));
            c_s.push(secs);
            pr.push(precision_recall(&cuts, &chosen));
            c.push(scores(&rig, &frames, &cuts, w)?);
        }
    }
    // The library's own path with its defaults, as the command line calls it.
    let t = Instant::now();
    let file = FileBindings {
        artist: Vec::new(),
        home: home.clone(),
    };
    let w = bind(
        solver.as_ref(),
        &rig.scene,
        Bind::Auto,
        &d0,
        &file,
        &BindOptions::rule(),
    )?
    .weights;
    c_s.push(t.elapsed().as_secs_f64());
    let mut chosen = auto_bones(&rig.scene, &wholes[0].0, &home, &BindOptions::rule())?;
    chosen.retain(|mb| cuts.iter().any(|(p, _)| *p == mb.part));
    pr.push(precision_recall(&cuts, &chosen));
    c.push(scores(&rig, &frames, &cuts, &w)?);
    extra.push("bind(Auto, BindOptions::rule())".to_string());
    Ok(Some(RigResult {
        name: name.to_string(),
        source: String::new(),
        a: scores(&rig, &frames, &cuts, &a)?,
        b: scores(&rig, &frames, &cuts, &b)?,
        b_no_artist: c[0],
        extra,
        c,
        pr,
        meshes: cuts.len(),
        heat_s,
        c_s,
    }))
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

/// The painted rigs of the corpus that load (only those `only` names, when given), each with
/// its source.
fn painted_rigs(
    only: Option<&[String]>,
) -> Res<impl Iterator<Item = (common::rigs::RigSource, Rig)>> {
    let only = only.map(<[String]>::to_vec);
    Ok(default_sources()?.into_iter().filter_map(move |src| {
        if only.as_ref().is_some_and(|o| !o.contains(&src.name)) {
            return None;
        }
        let rig = load_rig(&src.file, &src.name).ok()?;
        (rig.fold == "painted").then_some((src, rig))
    }))
}

/// The artist meshes of `rig` that are scored: all of them, or an even subsample of
/// [`MAX_MESHES`].
fn scored_cuts(rig: &Rig) -> Res<Vec<(String, SubScene)>> {
    let mut cuts = cut_meshes(rig)?;
    if cuts.len() > MAX_MESHES {
        let step = cuts.len().div_ceil(MAX_MESHES);
        cuts = cuts.into_iter().step_by(step).collect();
    }
    Ok(cuts)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// The variants' names: [`Variant::all`], then the masked solves.
fn names(results: &[RigResult]) -> Vec<String> {
    Variant::all()
        .iter()
        .map(Variant::name)
        .chain(results.first().map_or(Vec::new(), |r| r.extra.clone()))
        .collect()
}

/// Sum over the three measures of the rank of each variant's mean over `rigs` (lower wins).
fn rank_sum(rigs: &[&RigResult]) -> Vec<usize> {
    let means: Vec<Scores> = (0..rigs.first().map_or(0, |r| r.c.len()))
        .map(|k| {
            let col = |m: usize| mean(&rigs.iter().map(|r| r.c[k][m]).collect::<Vec<_>>());
            [col(0), col(1), col(2)]
        })
        .collect();
    rank_sum_of(&means)
}

/// Per candidate, the sum over the three measures of how many candidates' means are better
/// (agreement higher, the deviations lower): the leave-one-source-out choices take the lowest.
fn rank_sum_of(means: &[Scores]) -> Vec<usize> {
    let better = |o: &Scores, k: &Scores, m: usize| if m == 0 { o[m] > k[m] } else { o[m] < k[m] };
    means
        .iter()
        .map(|k| {
            (0..3)
                .map(|m| means.iter().filter(|o| better(o, k, m)).count())
                .sum()
        })
        .collect()
}

fn best_threshold(rigs: &[&RigResult]) -> usize {
    let ranks = rank_sum(rigs);
    (0..rigs.first().map_or(0, |r| r.c.len()))
        .min_by_key(|&k| ranks[k])
        .unwrap_or(0)
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

/// The three measures' cells of a table row (`interval` of each), `col(m)` the column of
/// measure `m` over rigs.
fn three_cells(col: impl Fn(usize) -> Vec<f64>) -> String {
    format!(
        "{} | {} | {}",
        interval(&col(0)),
        interval(&col(1)),
        interval(&col(2))
    )
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
        let won = |m: usize| rigs_won(results.len(), get, &|i| results[i].b, m);
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
    for (k, v) in names(results).iter().enumerate() {
        row(format!("(c) {v} (all rigs)"), &|i| results[i].c[k]);
    }
    row("(c) held out (leave one source out)".into(), &|i| held[i].0);
    let all: Vec<&RigResult> = results.iter().collect();
    s += &format!(
        "\nVariant chosen on all rigs: {}; held-out choices: {:?}\n\n\
         ## Per rig (held out)\n\n| rig | source | meshes | variant | precision % | recall % | (a) | (b) | (c) | (c) time / heat time |\n|---|---|---|---|---|---|---|---|---|---|\n",
        names(results)[best_threshold(&all)],
        held.iter()
            .map(|h| names(results)[h.2].clone())
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
            names(results)[*k],
            f(r.a),
            f(r.b),
            f(*c),
            ratio.last().copied().unwrap_or(0.0)
        );
    }
    let (p, rc): (Vec<f64>, Vec<f64>) = held.iter().map(|h| h.1).unzip();
    s += &format!(
        "\nMean precision {:.1}%, recall {:.1}% (held out). (c)'s time (whole solve + binder) over heat's per-mesh time: median {:.2}x.\n",
        mean(&p),
        mean(&rc),
        {
            ratio.sort_by(f64::total_cmp);
            ratio.get(ratio.len() / 2).copied().unwrap_or(0.0)
        }
    );
    s
}

/// `bound` with each vertex's weight on bone `j` of its part's set times `p^power`, `p` the
/// model's probability of (part, `j`), renormalised: the bones the model doubts cede their
/// vertices to the ones it is sure of.
fn by_probability(
    scene: &skinweights::scene::Scene,
    bound: &skinweights::weights::Weights,
    features: &[skinweights::binding::PartFeatures],
    sets: &[skinweights::binding::MeshBones],
    probability: impl Fn(&[f64; skinweights::binding::FEATURES]) -> f64,
    power: i32,
) -> common::Res<skinweights::weights::Weights> {
    let nb = bound.bone_count();
    let names = scene.mesh().parts();
    let mut factor = vec![vec![1.0; nb]; names.len()];
    for pf in features {
        let (Some(p), Some(set)) = (
            names.iter().position(|n| *n == pf.part),
            sets.iter().find(|s| s.part == pf.part),
        ) else {
            continue;
        };
        for (j, x) in pf.bones.iter().zip(&pf.features) {
            if set.bones.contains(j) {
                factor[p][*j] = probability(x).powi(power);
            }
        }
    }
    let mut data = Vec::with_capacity(bound.as_slice().len());
    for (v, &p) in scene.mesh().vertex_parts().iter().enumerate() {
        let row: Vec<f64> = bound
            .row(v)
            .iter()
            .zip(&factor[p])
            .map(|(w, f)| w * f)
            .collect();
        let sum: f64 = row.iter().sum();
        if sum > 0.0 {
            data.extend(row.iter().map(|w| w / sum));
        } else {
            data.extend_from_slice(bound.row(v));
        }
    }
    Ok(skinweights::weights::Weights::from_row_major(data, nb)?)
}

/// The learned binder (`BINDING_MODE=learned`): a logit per (mesh, bone) pair over
/// [`skinweights::binding::pair_features`] of a whole solve, fitted on the rigs of the other
/// sources, its threshold chosen by the scores of the other sources' rigs; each mesh re-solved
/// with [`SOLVER`] over the bones it binds. Writes `results/binding/learned.md`.
mod learned {
    use super::common::logit::{fit, Logit};
    use super::common::rigs::{cut_meshes, default_sources, load_rig, precision_recall, Rig};
    use super::common::Res;
    use super::{interval, mean, scores, Scores, MAX_MESHES, SOLVER};
    use skinweights::binding::{
        auto_bones, bind, choose_by, pair_features, prune, solve_with_bones, Bind, BindOptions,
        FileBindings, MeshBones, PartFeatures, FEATURES, FEATURE_NAMES,
    };
    use skinweights::metrics::artist::ArtistClipFrames;
    use skinweights::scene::SubScene;
    use skinweights::weights::Weights;
    use std::collections::HashMap;
    use std::time::Instant;

    /// Probability thresholds of a plain logit (fixed before any run).
    pub const THRESHOLDS: [f64; 5] = [0.2, 0.3, 0.4, 0.5, 0.6];
    /// The model editing the hand-made rule: probabilities from which a rule bone stays, and
    /// from which any other bone is added (above 1: none added).
    const KEEPS: [f64; 4] = [0.0, 0.05, 0.1, 0.2];
    const ADDS: [f64; 4] = [0.5, 0.7, 0.9, 1.1];
    /// Per-mesh fallbacks of the current binder: to the whole solve pruned to the mesh's bones
    /// or to the whole solve itself, when the re-solve moves the leading bone of more than
    /// this share of the mesh's vertices (fixed before the run).
    const FALLBACKS: [(&str, f64); 8] = [
        ("prune", 0.1),
        ("prune", 0.2),
        ("prune", 0.3),
        ("prune", 0.5),
        ("whole", 0.1),
        ("whole", 0.2),
        ("whole", 0.3),
        ("whole", 0.5),
    ];
    /// The L2 penalty of the logit per unit of training weight.
    const LAMBDA: f64 = 1e-3;
    /// The whole solves the features are read from: [`SOLVER`]'s and heat's (cheaper).
    const FEATURE_SOLVERS: [&str; 2] = [SOLVER, "heat"];
    /// How training pairs are weighted: every mesh alike, or every rig alike.
    /// `by cost`: every rig alike, and within it each pair by what a wrong call costs: a bound
    /// bone by the artist's mean weight on the mesh, an unbound one by the whole solve's.
    /// The last two fit boosted trees of depth 2 ([`super::common::boost`]; 100 rounds, rate
    /// 0.1) on the first two weightings instead of a logit.
    /// The last two fit 300 trees at rate 0.05 instead (added after the first trees run).
    const WEIGHTINGS: [&str; 7] = [
        "per mesh",
        "per rig",
        "by cost",
        "per mesh, trees",
        "per rig, trees",
        "per mesh, 300 rounds at 0.05, trees",
        "per rig, 300 rounds at 0.05, trees",
    ];
    /// Per weighting from [`TREES`] on: the pairs' weighting, rounds and rate of the trees.
    const TREE_FITS: [(usize, usize, f64); 4] =
        [(0, 100, 0.1), (1, 100, 0.1), (0, 300, 0.05), (1, 300, 0.05)];
    /// The first of [`WEIGHTINGS`] that fits trees.
    const TREES: usize = 3;

    /// A fitted pair model.
    enum Fitted {
        Logit(Logit),
        Trees(super::common::boost::Boost),
    }

    impl Fitted {
        fn probability(&self, x: &[f64]) -> f64 {
            match self {
                Fitted::Logit(l) => l.probability(x),
                Fitted::Trees(t) => t.probability(x),
            }
        }
    }

    /// One rig: everything solved once, and each mesh solve cached by its bone set.
    struct Case {
        name: String,
        source: String,
        rig: Rig,
        frames: ArtistClipFrames,
        cuts: Vec<(String, SubScene)>,
        a: Scores,
        b: Scores,
        /// The current default binder (`auto_bones` defaults over the best whole solve).
        current: Scores,
        current_pr: (f64, f64),
        current_s: f64,
        /// The library's own `bind(Auto, default)` on the whole rig (every part re-solved):
        /// seconds, and whether its weights on the scored meshes are the current binder's.
        library_s: f64,
        library_same: bool,
        /// The current binder's sets, each mesh falling back (per [`FALLBACKS`]) when its
        /// re-solve moves the leading bone of more than a share of its vertices.
        hybrid: Vec<Scores>,
        /// Two passes: the whole solve again over the bones the rule binds some part to, then
        /// (scores) that solve alone and the rule on it re-solved; precision and recall of
        /// that bone set against the artist-bound bones; seconds of the second whole solve.
        two_pass: [Scores; 2],
        two_pass_pr: [(f64, f64); 2],
        second_s: f64,
        /// Oracles (they read the artist's weights; bounds, not binders): the artist's bones
        /// that are candidates, and those the whole solve weights on the mesh.
        oracle: [Scores; 2],
        /// Per feature solver: the whole solve's weights and seconds, then the cuts' features.
        wholes: Vec<(Weights, f64)>,
        features: Vec<Vec<PartFeatures>>,
        feature_s: f64,
        heat_s: f64,
        a_s: f64,
        /// Each mesh solve by (solver, part, bones): its weights on the cut and seconds.
        cache: SolveCache,
    }

    type SolveCache = HashMap<(String, String, Vec<usize>), (SubScene, Weights, f64)>;

    /// The binder's re-solve of each mesh: [`SOLVER`] with the library default binder's
    /// subdivision ([`BindOptions::DEFAULT_REFINE`]), or `BINDING_REFINE=N|none`.
    fn refine() -> Res<Option<usize>> {
        match std::env::var("BINDING_REFINE") {
            Err(_) => Ok(Some(BindOptions::DEFAULT_REFINE)),
            Ok(v) if v == "none" => Ok(None),
            Ok(v) => Ok(Some(
                v.parse().map_err(|e| format!("BINDING_REFINE={v}: {e}"))?,
            )),
        }
    }

    fn resolve_spec() -> Res<String> {
        Ok(refine()?.map_or(SOLVER.to_string(), |n| format!("{SOLVER}:refine={n}")))
    }

    impl Case {
        /// The cuts solved over the binder's `sets` with its re-solve ([`resolve_spec`]).
        fn solve_sets(&mut self, sets: &[MeshBones], base: &Weights) -> Res<(Weights, f64)> {
            self.solve_sets_by(&resolve_spec()?, sets, base)
        }

        /// The cuts solved by `spec` over `sets` (from the cache when solved before), scattered
        /// into `base`; with the seconds the solves took when first solved.
        fn solve_sets_by(
            &mut self,
            spec: &str,
            sets: &[MeshBones],
            base: &Weights,
        ) -> Res<(Weights, f64)> {
            let solver = super::common::rigs::solver_of_spec(spec)?;
            let mut w = base.clone();
            let mut secs = 0.0;
            for (part, _) in &self.cuts {
                let Some(mb) = sets.iter().find(|mb| &mb.part == part) else {
                    continue;
                };
                let key = (spec.to_string(), part.clone(), mb.bones.clone());
                if !self.cache.contains_key(&key) {
                    let names: Vec<String> = mb
                        .bones
                        .iter()
                        .map(|&j| self.rig.scene.skeleton().bones()[j].name.clone())
                        .collect();
                    let cut = SubScene::new(&self.rig.scene, part, &names)?;
                    let t = Instant::now();
                    let sub = solver.solve(&cut.scene)?.weights;
                    let s = t.elapsed().as_secs_f64();
                    self.cache.insert(key.clone(), (cut, sub, s));
                }
                let (cut, sub, s) = &self.cache[&key];
                cut.scatter(sub, &mut w)?;
                secs += s;
            }
            Ok((w, secs))
        }

        fn score(&self, w: &Weights) -> Res<Scores> {
            scores(&self.rig, &self.frames, &self.cuts, w)
        }

        /// Per scored mesh's candidate pair: features, whether the artist bound it, and its
        /// training weight by `weighting` ([`WEIGHTINGS`]).
        fn pairs(&self, by: usize, weighting: usize) -> Vec<(&[f64; FEATURES], bool, f64)> {
            let mut out = Vec::new();
            let per_rig = 1.0 / self.cuts.len().max(1) as f64;
            for pf in &self.features[by] {
                let Some((_, cut)) = self.cuts.iter().find(|(p, _)| *p == pf.part) else {
                    continue;
                };
                for (x, j) in pf.features.iter().zip(&pf.bones) {
                    let bound = cut.bones.contains(j);
                    let w = match weighting {
                        0 => 1.0,
                        1 => per_rig,
                        _ => {
                            let n = cut.vertices.len().max(1) as f64;
                            let artist: f64 = cut
                                .vertices
                                .iter()
                                .map(|&v| self.rig.artist.get(v, *j))
                                .sum();
                            let cost = if bound { artist / n } else { x[0] };
                            per_rig * (0.02 + cost)
                        }
                    };
                    out.push((x, bound, w));
                }
            }
            out
        }
    }

    fn collect(name: &str, source: &str, file: &std::path::Path) -> Res<Option<Case>> {
        let rig = load_rig(file, name)?;
        if rig.fold != "painted" {
            return Ok(None);
        }
        let frames = ArtistClipFrames::new(&rig.scene, &rig.artist, rig.scene.clips(), super::FPS)?;
        let mut cuts = cut_meshes(&rig)?;
        if cuts.len() > MAX_MESHES {
            let step = cuts.len().div_ceil(MAX_MESHES);
            cuts = cuts.into_iter().step_by(step).collect();
        }
        let solver = super::common::rigs::solver_of_spec(SOLVER)?;
        let heat = super::common::rigs::solver_of_spec("heat")?;
        let t = Instant::now();
        for (_, cut) in &cuts {
            heat.solve(&cut.scene)?;
        }
        let heat_s = t.elapsed().as_secs_f64();
        let b = solve_with_bones(solver.as_ref(), &rig.scene, &rig.artist_bones())?.weights;
        let home = rig.homes();
        let d0 = rig.scene.deforming_bones(None)?.kept;
        let mut wholes = Vec::new();
        let mut features = Vec::new();
        let mut feature_s = 0.0;
        for spec in FEATURE_SOLVERS {
            let by = super::common::rigs::solver_of_spec(spec)?;
            let t = Instant::now();
            let w = solve_with_bones(by.as_ref(), &rig.scene, &d0)?.weights;
            let whole_s = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let mut f = pair_features(&rig.scene, &w, &home)?;
            feature_s = t.elapsed().as_secs_f64();
            f.retain(|pf| cuts.iter().any(|(p, _)| *p == pf.part));
            features.push(f);
            wholes.push((w, whole_s));
        }
        let mut case = Case {
            name: name.to_string(),
            source: source.to_string(),
            a: [0.0; 3],
            b: [0.0; 3],
            current: [0.0; 3],
            current_pr: (0.0, 0.0),
            current_s: 0.0,
            library_s: 0.0,
            library_same: false,
            hybrid: Vec::new(),
            two_pass: [[0.0; 3]; 2],
            two_pass_pr: [(0.0, 0.0); 2],
            second_s: 0.0,
            oracle: [[0.0; 3]; 2],
            frames,
            cuts,
            wholes,
            features,
            feature_s,
            heat_s,
            a_s: 0.0,
            cache: HashMap::new(),
            rig,
        };
        case.b = case.score(&b)?;
        let artist_sets: Vec<MeshBones> = case
            .cuts
            .iter()
            .map(|(p, c)| MeshBones {
                part: p.clone(),
                bones: c.bones.clone(),
            })
            .collect();
        let base = case.wholes[0].0.clone();
        // (a) as the library's `Bind::Artist`: each mesh on its own vertices.
        let (a, a_s) = case.solve_sets_by(SOLVER, &artist_sets, &base)?;
        case.a = case.score(&a)?;
        case.a_s = a_s;
        let mut current = auto_bones(&case.rig.scene, &base, &home, &BindOptions::rule())?;
        current.retain(|mb| case.cuts.iter().any(|(p, _)| *p == mb.part));
        let (w, s) = case.solve_sets(&current, &base)?;
        case.current = case.score(&w)?;
        case.current_pr = precision_recall(&case.cuts, &current);
        case.current_s = case.wholes[0].1 + s;
        let file = FileBindings {
            artist: Vec::new(),
            home: home.clone(),
        };
        let t = Instant::now();
        let lib = bind(
            solver.as_ref(),
            &case.rig.scene,
            Bind::Auto,
            &d0,
            &file,
            &BindOptions {
                refine: refine()?,
                ..BindOptions::rule()
            },
        )?
        .weights;
        case.library_s = t.elapsed().as_secs_f64();
        case.library_same = case.score(&lib)? == case.current;
        // Second pass over the bones the rule binds some part (any part, not only the scored
        // ones) to: the binder's estimate of the artist-bound bones of (b).
        let every = auto_bones(&case.rig.scene, &base, &home, &BindOptions::rule())?;
        let mut union: Vec<usize> = every.iter().flat_map(|mb| mb.bones.clone()).collect();
        union.sort_unstable();
        union.dedup();
        let truth = case.rig.artist_bones();
        let hit = union.iter().filter(|j| truth.contains(j)).count();
        let set_pr = (
            100.0 * hit as f64 / union.len().max(1) as f64,
            100.0 * hit as f64 / truth.len().max(1) as f64,
        );
        let t = Instant::now();
        let second = solve_with_bones(solver.as_ref(), &case.rig.scene, &union)?.weights;
        case.second_s = t.elapsed().as_secs_f64();
        let mut sets = auto_bones(&case.rig.scene, &second, &home, &BindOptions::rule())?;
        sets.retain(|mb| case.cuts.iter().any(|(p, _)| *p == mb.part));
        let (w2, _) = case.solve_sets(&sets, &second)?;
        case.two_pass = [case.score(&second)?, case.score(&w2)?];
        for (k, weighted) in [false, true].into_iter().enumerate() {
            let sets: Vec<MeshBones> = case.features[0]
                .iter()
                .filter_map(|pf| {
                    let (_, cut) = case.cuts.iter().find(|(p, _)| *p == pf.part)?;
                    let mut bones: Vec<usize> = (0..pf.bones.len())
                        .filter(|&k| {
                            cut.bones.contains(&pf.bones[k])
                                && (!weighted || pf.features[k][0] > 0.0)
                        })
                        .map(|k| pf.bones[k])
                        .collect();
                    if bones.is_empty() {
                        // The heaviest, as every binder keeps.
                        bones.extend(
                            (0..pf.bones.len())
                                .find(|&k| pf.features[k][11] > 0.5)
                                .map(|k| pf.bones[k]),
                        );
                    }
                    Some(MeshBones {
                        part: pf.part.clone(),
                        bones,
                    })
                })
                .collect();
            let (w, _) = case.solve_sets(&sets, &base)?;
            case.oracle[k] = case.score(&w)?;
        }
        case.two_pass_pr = [set_pr, precision_recall(&case.cuts, &sets)];
        let pruned = prune(&case.rig.scene, &base, &current)?;
        for (fallback, share) in FALLBACKS {
            let mut h = w.clone();
            let to = if fallback == "prune" { &pruned } else { &base };
            for (_, cut) in &case.cuts {
                let lead = |m: &Weights, v: usize| {
                    let r = m.row(v);
                    (0..r.len()).max_by(|&a, &b| r[a].total_cmp(&r[b]))
                };
                let moved = cut
                    .vertices
                    .iter()
                    .filter(|&&v| lead(&w, v) != lead(&base, v))
                    .count();
                if moved as f64 > share * cut.vertices.len() as f64 {
                    for &v in &cut.vertices {
                        h.row_mut_unchecked(v).copy_from_slice(to.row(v));
                    }
                }
            }
            case.hybrid.push(case.score(&h)?);
        }
        Ok(Some(case))
    }

    /// A model's key: feature solver, weighting.
    type Key = (usize, usize);

    /// Per rig and variant (key, threshold): scores, precision/recall, seconds of (c).
    struct Scored {
        scores: Vec<Scores>,
        pr: Vec<(f64, f64)>,
        secs: Vec<f64>,
    }

    /// A variant: the model's key, its threshold and keep probability.
    type Variant = (Key, f64, f64);

    fn variants() -> Vec<Variant> {
        let mut out = Vec::new();
        for weighting in 0..WEIGHTINGS.len() {
            for t in THRESHOLDS {
                out.push(((0, weighting), t, t));
            }
            for keep in KEEPS {
                for add in ADDS {
                    out.push(((0, weighting), add, keep));
                }
            }
        }
        // Heat's whole solve (cheaper) with a plain logit only: far behind in the first run.
        for t in [0.4, 0.5] {
            out.push(((1, 1), t, t));
        }
        out
    }

    fn variant_name(v: &Variant) -> String {
        let ((by, weighting), t, keep) = v;
        let what = if t == keep {
            format!("p >= {t}")
        } else {
            format!("rule bones kept from p >= {keep}, others added from p >= {t}")
        };
        let model = if *weighting >= TREES {
            "trees"
        } else {
            "logit"
        };
        let weighting = WEIGHTINGS[*weighting].trim_end_matches(", trees");
        format!(
            "{model} on {} whole, {weighting}, {what}",
            FEATURE_SOLVERS[*by]
        )
    }

    pub fn run(only: Option<Vec<String>>) -> Res<()> {
        let mut cases = Vec::new();
        for src in default_sources()? {
            if only.as_ref().is_some_and(|o| !o.contains(&src.name)) {
                continue;
            }
            let t = Instant::now();
            match collect(&src.name, &src.source, &src.file) {
                Ok(Some(c)) => {
                    eprintln!(
                        "{}: a {:?} b {:?} current {:?} ({:.0} s)",
                        c.name,
                        c.a,
                        c.b,
                        c.current,
                        t.elapsed().as_secs_f64()
                    );
                    cases.push(c);
                }
                Ok(None) => {}
                Err(e) => eprintln!("warning: rig {} left out: {e}", src.name),
            }
        }
        let vars = variants();
        let mut scored: Vec<Scored> = Vec::new();
        let sources: Vec<String> = cases.iter().map(|c| c.source.clone()).collect();
        let mut held_models: HashMap<(String, Key), Fitted> = HashMap::new();
        for i in 0..cases.len() {
            let t = Instant::now();
            let mut s = Scored {
                scores: Vec::new(),
                pr: Vec::new(),
                secs: Vec::new(),
            };
            // The first trees run's variants again, each bone's weight times its held-out
            // probability to the power 1, then 2 (appended after `vars`' scores).
            let mut weighted: [Scored; 2] = std::array::from_fn(|_| Scored {
                scores: Vec::new(),
                pr: Vec::new(),
                secs: Vec::new(),
            });
            for v in &vars {
                let (key, threshold, keep) = *v;
                let src = sources[i].clone();
                let l = held_models.entry((src.clone(), key)).or_insert_with(|| {
                    let train_on: Vec<&Case> = cases.iter().filter(|c| c.source != src).collect();
                    train_refs(&train_on, key.0, key.1)
                });
                let c = &mut cases[i];
                let mut sets = choose_by(&c.features[key.0], |x| l.probability(x), threshold, keep);
                sets.retain(|mb| c.cuts.iter().any(|(p, _)| *p == mb.part));
                let base = c.wholes[key.0].0.clone();
                let (w, secs) = c.solve_sets(&sets, &base)?;
                s.scores.push(c.score(&w)?);
                s.pr.push(precision_recall(&c.cuts, &sets));
                s.secs.push(c.wholes[key.0].1 + c.feature_s + secs);
                if (TREES..TREES + 2).contains(&key.1) {
                    for (power, out) in [1, 2].into_iter().zip(weighted.iter_mut()) {
                        let pw = super::by_probability(
                            &c.rig.scene,
                            &w,
                            &c.features[key.0],
                            &sets,
                            |x| l.probability(x),
                            power,
                        )?;
                        out.scores.push(c.score(&pw)?);
                        out.pr.push(precision_recall(&c.cuts, &sets));
                        out.secs.push(c.wholes[key.0].1 + c.feature_s + secs);
                    }
                }
            }
            for w in weighted {
                s.scores.extend(w.scores);
                s.pr.extend(w.pr);
                s.secs.extend(w.secs);
            }
            eprintln!(
                "{} scored ({:.0} s): best-whole p >= 0.4 {:?}",
                cases[i].name,
                t.elapsed().as_secs_f64(),
                s.scores[2]
            );
            scored.push(s);
        }
        let mut text = report(&cases, &scored, &vars);
        if only.is_none() {
            text += &ship_trees(&cases, &scored, &vars)?;
        }
        print!("{text}");
        let dir = super::common::repo_root().join("results/binding");
        std::fs::create_dir_all(&dir)?;
        super::common::write_text(&dir, "learned.md", &text)?;
        Ok(())
    }

    /// The trees the library ships: the variant among the trees' chosen by the rank sum over
    /// every rig, fitted on every rig, written to `src/binding/fitted_trees.rs` once the
    /// library's evaluation of them is checked against the fit's on every pair.
    fn ship_trees(cases: &[Case], scored: &[Scored], vars: &[Variant]) -> Res<String> {
        // The 100-round family, declared before its first run; the 300-round one, added after,
        // loses held out (`docs/binding.md`).
        let trees: Vec<usize> = (0..vars.len())
            .filter(|&k| (TREES..TREES + 2).contains(&vars[k].0 .1))
            .collect();
        let rows: Vec<Vec<Scores>> = scored
            .iter()
            .map(|s| trees.iter().map(|&k| s.scores[k]).collect())
            .collect();
        let pick = trees[choose(&rows.iter().collect::<Vec<_>>())];
        let ((by, weighting), threshold, keep) = vars[pick];
        let all: Vec<&Case> = cases.iter().collect();
        let Fitted::Trees(fitted) = train_refs(&all, by, weighting) else {
            return Err("a trees variant fitted a logit".into());
        };
        let library = fitted.to_library(threshold, keep);
        let mut worst = 0.0f64;
        for c in cases {
            for pf in &c.features[by] {
                for x in &pf.features {
                    worst = worst.max((library.probability(x) - fitted.probability(x)).abs());
                }
            }
        }
        if worst > 1e-12 {
            return Err(format!("the library's trees differ from the fit by {worst}").into());
        }
        let name = variant_name(&vars[pick]);
        let what = format!(
            "{} trees of depth 2, {name}, fitted on the {} painted rigs: the trees' variant chosen by \
             the rank sum of the three means over every rig (`results/binding/learned.md`).",
            fitted.len(),
            cases.len()
        );
        let path = super::common::repo_root().join("src/binding/fitted_trees.rs");
        std::fs::write(&path, fitted.to_rust(threshold, keep, &what))?;
        // Formatted as `cargo fmt` would, so CI's format check holds after a run.
        let formatted = std::process::Command::new("rustfmt")
            .args(["--edition", "2021"])
            .arg(&path)
            .status();
        if !formatted.is_ok_and(|s| s.success()) {
            eprintln!("warning: rustfmt did not format {}", path.display());
        }
        Ok(format!(
            "\nShipped (`src/binding/fitted_trees.rs`, `BindOptions::default()`): {name}, fitted \
             on all {} rigs; the library's probabilities match the fit's within {worst:.1e}. \
             Held out, the family scores the row \"(c) learned with 100 trees, held out\" (variant \
             and model chosen without the rig's source), and this variant the row \"(c) {name} \
             (model held out)\".\n",
            cases.len()
        ))
    }

    fn train_refs(cases: &[&Case], by: usize, weighting: usize) -> Fitted {
        let trees = weighting >= TREES;
        let (pairs_by, rounds, rate) = if trees {
            TREE_FITS[weighting - TREES]
        } else {
            (weighting, 0, 0.0)
        };
        let (mut x, mut y, mut w) = (Vec::new(), Vec::new(), Vec::new());
        for c in cases {
            for (f, label, weight) in c.pairs(by, pairs_by) {
                x.push(f.to_vec());
                y.push(label);
                w.push(weight);
            }
        }
        if trees {
            Fitted::Trees(super::common::boost::fit(&x, &y, &w, rounds, rate))
        } else {
            Fitted::Logit(fit(&x, &y, &w, LAMBDA))
        }
    }

    /// Sum over the three measures of each variant's rank by its mean over `rows` (lower wins).
    fn choose(rows: &[&Vec<Scores>]) -> usize {
        let n = rows.first().map_or(0, |r| r.len());
        let means: Vec<[f64; 3]> = (0..n)
            .map(|k| {
                let col = |m: usize| mean(&rows.iter().map(|r| r[k][m]).collect::<Vec<_>>());
                [-col(0), col(1), col(2)]
            })
            .collect();
        (0..n)
            .min_by_key(|&k| {
                (0..3)
                    .map(|m| means.iter().filter(|o| o[m] < means[k][m]).count())
                    .sum::<usize>()
            })
            .unwrap_or(0)
    }

    fn report(cases: &[Case], scored: &[Scored], vars: &[Variant]) -> String {
        let n = cases.len();
        let resolve = resolve_spec().unwrap_or_else(|e| e.to_string());
        let mut s = format!(
            "# Protocol (c) with a learned binder, {n} painted rigs, solver {SOLVER}\n\n\
             Each rig is scored with the logit fitted on the rigs of the other sources; the \
             held-out row takes each rig's variant (feature solve, weighting, threshold) by the \
             rank sum of the means of the other sources' rigs. Every (c) row re-solves each mesh \
             with `{resolve}` (the default binder's re-solve; `BINDING_REFINE=none`: on its own \
             vertices); (a) solves each mesh on its own vertices, as `--bind artist` does.\n\n\
             | protocol | agreement % | one-bone % diag | clip % diag | rigs won vs (b) (agr / one-bone / clip) | precision % | recall % |\n|---|---|---|---|---|---|---|\n"
        );
        let mut row = |name: String,
                       get: &dyn Fn(usize) -> Scores,
                       pr: Option<&dyn Fn(usize) -> (f64, f64)>| {
            let col = |m: usize| (0..n).map(|i| get(i)[m]).collect::<Vec<_>>();
            let won = |m: usize| crate::rigs_won(n, get, &|i| cases[i].b, m);
            let (p, r) = pr.map_or((String::from("-"), String::from("-")), |f| {
                let (p, r): (Vec<f64>, Vec<f64>) = (0..n).map(f).unzip();
                (format!("{:.1}", mean(&p)), format!("{:.1}", mean(&r)))
            });
            s += &format!(
                "| {name} | {} | {} | {} | {} / {} / {} | {p} | {r} |\n",
                interval(&col(0)),
                interval(&col(1)),
                interval(&col(2)),
                won(0),
                won(1),
                won(2)
            );
        };
        row("(a) artist's bones per mesh".into(), &|i| cases[i].a, None);
        row(
            "(b) whole, artist-bound bones".into(),
            &|i| cases[i].b,
            None,
        );
        row(
            "(c) current binder (min_mass 0.02, inside 3, re-solved)".into(),
            &|i| cases[i].current,
            Some(&|i| cases[i].current_pr),
        );
        for (k, (fallback, share)) in FALLBACKS.iter().enumerate() {
            row(
                format!("(c) current binder, a mesh whose re-solve moves the leading bone of more than {share} of its vertices takes the {fallback}"),
                &|i| cases[i].hybrid[k],
                Some(&|i| cases[i].current_pr),
            );
        }
        // The fallback chosen by leaving one source out (none among the choices).
        let held_fallback: Vec<Scores> = (0..n)
            .map(|i| {
                let rows: Vec<Vec<Scores>> = (0..n)
                    .filter(|&o| cases[o].source != cases[i].source)
                    .map(|o| {
                        std::iter::once(cases[o].current)
                            .chain(cases[o].hybrid.iter().copied())
                            .collect()
                    })
                    .collect();
                match choose(&rows.iter().collect::<Vec<_>>()) {
                    0 => cases[i].current,
                    k => cases[i].hybrid[k - 1],
                }
            })
            .collect();
        row(
            "(c) current binder with the fallback held out".into(),
            &|i| held_fallback[i],
            Some(&|i| cases[i].current_pr),
        );
        row(
            "(c) second whole solve over the bones the rule binds some part to (precision / recall: of that set against (b)'s bones)".into(),
            &|i| cases[i].two_pass[0],
            Some(&|i| cases[i].two_pass_pr[0]),
        );
        row(
            "oracle: the artist's bones among the candidates (reads the artist's weights)".into(),
            &|i| cases[i].oracle[0],
            None,
        );
        row(
            "oracle: the artist's bones the whole solve weights on the mesh".into(),
            &|i| cases[i].oracle[1],
            None,
        );
        row(
            "(c) the rule on that second whole solve, re-solved".into(),
            &|i| cases[i].two_pass[1],
            Some(&|i| cases[i].two_pass_pr[1]),
        );
        for (k, v) in vars.iter().enumerate() {
            row(
                format!("(c) {} (model held out)", variant_name(v)),
                &|i| scored[i].scores[k],
                Some(&|i| scored[i].pr[k]),
            );
        }
        // Per rig, the variant of `family` chosen on the other sources' rigs.
        let held_in = |family: &[usize]| -> Vec<usize> {
            (0..n)
                .map(|i| {
                    let rows: Vec<Vec<Scores>> = (0..n)
                        .filter(|&o| cases[o].source != cases[i].source)
                        .map(|o| family.iter().map(|&k| scored[o].scores[k]).collect())
                        .collect();
                    family[choose(&rows.iter().collect::<Vec<_>>())]
                })
                .collect()
        };
        let held = held_in(&(0..vars.len()).collect::<Vec<_>>());
        row(
            "**(c) learned, held out** (variant by leaving one source out)".into(),
            &|i| scored[i].scores[held[i]],
            Some(&|i| scored[i].pr[held[i]]),
        );
        // Only the model editing the rule: a family picked after the first runs (post hoc).
        let edits: Vec<usize> = (0..vars.len())
            .filter(|&k| vars[k].0 .0 == 0 && vars[k].0 .1 < TREES && vars[k].1 != vars[k].2)
            .collect();
        let held_edit = held_in(&edits);
        row(
            "(c) learned editing the rule, held out (family chosen post hoc)".into(),
            &|i| scored[i].scores[held_edit[i]],
            Some(&|i| scored[i].pr[held_edit[i]]),
        );
        // Trees only (100 rounds declared before their first run; 300 added after it).
        let trees: Vec<usize> = (0..vars.len()).filter(|&k| vars[k].0 .1 >= TREES).collect();
        let held_trees = held_in(&trees);
        row(
            "(c) learned with trees, held out (variant among the trees')".into(),
            &|i| scored[i].scores[held_trees[i]],
            Some(&|i| scored[i].pr[held_trees[i]]),
        );
        let first_trees: Vec<usize> = trees
            .iter()
            .copied()
            .filter(|&k| vars[k].0 .1 < TREES + 2)
            .collect();
        let held_first = held_in(&first_trees);
        row(
            "(c) learned with 100 trees, held out (variant among the first trees run's)".into(),
            &|i| scored[i].scores[held_first[i]],
            Some(&|i| scored[i].pr[held_first[i]]),
        );
        // The same trees with each bone's weight times its probability (power 1, 2), and
        // with the power chosen held out too (0, 1 or 2); added after the trees shipped.
        let weighted = |power: usize| -> Vec<usize> {
            (0..first_trees.len())
                .map(|m| vars.len() + (power - 1) * first_trees.len() + m)
                .collect()
        };
        for power in [1, 2] {
            let held_power = held_in(&weighted(power));
            row(
                format!(
                    "(c) learned with 100 trees, held out, each bone's weight times its \
                     probability^{power}, renormalised"
                ),
                &|i| scored[i].scores[held_power[i]],
                Some(&|i| scored[i].pr[held_power[i]]),
            );
        }
        let with_power: Vec<usize> = first_trees
            .iter()
            .copied()
            .chain(weighted(1))
            .chain(weighted(2))
            .collect();
        let held_with_power = held_in(&with_power);
        row(
            "(c) learned with 100 trees, held out, the power (0, 1, 2) held out too".into(),
            &|i| scored[i].scores[held_with_power[i]],
            Some(&|i| scored[i].pr[held_with_power[i]]),
        );
        // The same, the feature solve fixed to heat (the cheaper one).
        let heat_vars: Vec<usize> = (0..vars.len()).filter(|&k| vars[k].0 .0 == 1).collect();
        let held_heat = held_in(&heat_vars);
        row(
            "(c) learned on heat's whole solve, held out".into(),
            &|i| scored[i].scores[held_heat[i]],
            Some(&|i| scored[i].pr[held_heat[i]]),
        );
        // Among the variants (the weighted columns after them are not variants).
        let all_rows: Vec<Vec<Scores>> = scored
            .iter()
            .map(|s| s.scores[..vars.len()].to_vec())
            .collect();
        let chosen = choose(&all_rows.iter().collect::<Vec<_>>());
        s += &format!(
            "\nVariant chosen on all rigs: {}. Held-out choices: {}.\n",
            variant_name(&vars[chosen]),
            {
                let mut counts: Vec<(String, usize)> = Vec::new();
                for &k in &held {
                    let name = variant_name(&vars[k]);
                    match counts.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, c)) => *c += 1,
                        None => counts.push((name, 1)),
                    }
                }
                counts
                    .iter()
                    .map(|(n, c)| format!("{n} ({c} rigs)"))
                    .collect::<Vec<_>>()
                    .join("; ")
            }
        );
        // Where the artist's pairs stand before any model: the binder's recall ceiling.
        let (mut total, mut candidate, mut weighted, mut rule) = (0usize, 0usize, 0usize, 0usize);
        for c in cases {
            for (part, cut) in &c.cuts {
                let pf = c.features[0].iter().find(|pf| pf.part == *part);
                for j in &cut.bones {
                    total += 1;
                    let Some(k) = pf.and_then(|pf| pf.bones.iter().position(|b| b == j)) else {
                        continue;
                    };
                    let x = &pf.map_or([0.0; FEATURES], |pf| pf.features[k]);
                    candidate += 1;
                    weighted += usize::from(x[0] > 0.0);
                    rule += usize::from(x[19] > 0.5 || x[11] > 0.5);
                }
            }
        }
        let pct = |k: usize| 100.0 * k as f64 / total.max(1) as f64;
        s += &format!(
            "\nOf the artist's {total} (scored mesh, bone) pairs, {:.1}% are candidates (the whole \
             solve weights the bone somewhere), {:.1}% get whole-solve weight on the mesh, {:.1}% \
             pass the rule (or are the heaviest).\n",
            pct(candidate),
            pct(weighted),
            pct(rule)
        );
        let ratio = |secs: &dyn Fn(usize) -> f64| {
            let mut r: Vec<f64> = (0..n)
                .map(|i| secs(i) / cases[i].heat_s.max(1e-9))
                .collect();
            r.sort_by(f64::total_cmp);
            r.get(n / 2).copied().unwrap_or(0.0)
        };
        s += &format!(
            "\nTime per rig over heat's per-mesh time (scored meshes), median over rigs: \
             (a) with {SOLVER} {:.2}x; current binder {:.2}x; learned held out {:.2}x; learned on heat's whole solve {:.2}x; \
             {SOLVER}'s whole solve alone {:.2}x, heat's {:.2}x; the library's `bind(Auto)` \
             (every part of the rig re-solved) {:.2}x, its weights the current binder's on {} of {n} rigs.\n",
            ratio(&|i| cases[i].a_s),
            ratio(&|i| cases[i].current_s),
            ratio(&|i| scored[i].secs[held[i]]),
            ratio(&|i| scored[i].secs[held_heat[i]]),
            ratio(&|i| cases[i].wholes[0].1),
            ratio(&|i| cases[i].wholes[1].1),
            ratio(&|i| cases[i].library_s),
            cases.iter().filter(|c| c.library_same).count(),
        );
        s += "\n## Per rig (held out)\n\n| rig | source | meshes | variant | precision % | recall % | (a) | (b) | current (c) | learned (c) | time / heat |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
        let f = |x: Scores| format!("{:.1} / {:.2} / {:.2}", x[0], x[1], x[2]);
        for (i, c) in cases.iter().enumerate() {
            let k = held[i];
            let (p, r) = scored[i].pr[k];
            s += &format!(
                "| {} | {} | {} | {} | {p:.1} | {r:.1} | {} | {} | {} | {} | {:.2} |\n",
                c.name,
                c.source,
                c.cuts.len(),
                variant_name(&vars[k]),
                f(c.a),
                f(c.b),
                f(c.current),
                f(scored[i].scores[k]),
                scored[i].secs[k] / c.heat_s.max(1e-9)
            );
        }
        // The model fitted on every rig at the chosen variant, as the library's table.
        let ((by, weighting), threshold, keep) = vars[chosen];
        let all: Vec<&Case> = cases.iter().collect();
        let Fitted::Logit(l) = train_refs(&all, by, weighting) else {
            return s + "\nThe variant chosen on all rigs fits trees: no table.\n";
        };
        s += &format!(
            "\n## The model fitted on all rigs ({})\n\n| feature | mean | scale | coefficient |\n|---|---|---|---|\n",
            variant_name(&vars[chosen])
        );
        for (k, name) in FEATURE_NAMES.iter().enumerate() {
            s += &format!(
                "| {name} | {:.6} | {:.6} | {:.6} |\n",
                l.mean[k], l.scale[k], l.coef[k]
            );
        }
        s += &format!(
            "\n```rust\npub const LEARNED: BinderLogit = BinderLogit {{\n    mean: {:?},\n    scale: {:?},\n    coef: {:?},\n    bias: {:?},\n    threshold: {threshold:?},\n    keep: {keep:?},\n}};\n```\n",
            l.mean, l.scale, l.coef, l.bias
        );
        s
    }
}

/// Of `n` rigs, how many score better on measure `m` by `get` than by `b` (agreement, `m` 0:
/// higher is better; the deviations: lower).
fn rigs_won(
    n: usize,
    get: &dyn Fn(usize) -> Scores,
    b: &dyn Fn(usize) -> Scores,
    m: usize,
) -> usize {
    (0..n)
        .filter(|&i| {
            let (x, y) = (get(i)[m], b(i)[m]);
            if m == 0 {
                x > y
            } else {
                x < y
            }
        })
        .count()
}

/// `BINDING_MODE=timing`: per rig, the time of protocol (c)'s steps against heat per mesh.
mod timing {
    use super::common::rigs::{cut_meshes, default_sources, load_rig, solve_per_mesh};
    use super::common::Res;
    use skinweights::binding::{bind, Bind, BindOptions, FileBindings};
    use std::time::Instant;

    pub fn run(only: Option<Vec<String>>) -> Res<()> {
        let mut ratios = Vec::new();
        for src in default_sources()? {
            if only.as_ref().is_some_and(|o| !o.contains(&src.name)) {
                continue;
            }
            let rig = match load_rig(&src.file, &src.name) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("{}: {e}", src.name);
                    continue;
                }
            };
            if rig.fold != "painted" {
                continue;
            }
            let cuts = cut_meshes(&rig)?;
            let t = Instant::now();
            solve_per_mesh(&rig, &cuts, "heat", |_| {})?;
            let heat = t.elapsed().as_secs_f64();
            let solver = super::common::rigs::solver_of_spec("best")?;
            let d0 = rig.scene.deforming_bones(None)?.kept;
            let file = FileBindings {
                artist: Vec::new(),
                home: rig.homes(),
            };
            let t = Instant::now();
            let whole = skinweights::binding::solve_with_bones(solver.as_ref(), &rig.scene, &d0)?;
            let whole_s = t.elapsed().as_secs_f64();
            let heat_solver = super::common::rigs::solver_of_spec("heat")?;
            let t = Instant::now();
            skinweights::binding::solve_with_bones(heat_solver.as_ref(), &rig.scene, &d0)?;
            let whole_heat_s = t.elapsed().as_secs_f64();
            let t = Instant::now();
            bind(
                solver.as_ref(),
                &rig.scene,
                Bind::Auto,
                &d0,
                &file,
                &BindOptions::default(),
            )?;
            let c = t.elapsed().as_secs_f64();
            // The binder's own step: features and the trees over the whole solve.
            let t = Instant::now();
            skinweights::binding::auto_bones(
                &rig.scene,
                &whole.weights,
                &file.home,
                &BindOptions::default(),
            )?;
            let binder_s = t.elapsed().as_secs_f64();
            println!(
                "{:<28} v {:>6} meshes {:>4} heat {:>7.3} whole {:>7.3} whole heat {:>7.3} binder {:>7.3} c {:>7.3} ratio {:>6.2}",
                src.name,
                rig.scene.mesh().vertex_count(),
                cuts.len(),
                heat,
                whole_s,
                whole_heat_s,
                binder_s,
                c,
                c / heat
            );
            ratios.push(c / heat);
        }
        let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
        println!("mean ratio {mean:.2} over {} rigs", ratios.len());
        Ok(())
    }
}

/// `BINDING_MODE=explain`: per scored mesh, the artist's bones against the binder's, with the
/// features of every bone either names.
mod explain {
    use super::common::rigs::{default_sources, load_rig};
    use super::common::Res;
    use skinweights::binding::{auto_bones, pair_features, solve_with_bones, BindOptions};

    pub fn run(only: Option<Vec<String>>) -> Res<()> {
        for src in default_sources()? {
            if only.as_ref().is_some_and(|o| !o.contains(&src.name)) {
                continue;
            }
            let rig = load_rig(&src.file, &src.name)?;
            let solver = super::common::rigs::solver_of_spec("best")?;
            let d0 = rig.scene.deforming_bones(None)?.kept;
            let home = rig.homes();
            let whole = solve_with_bones(solver.as_ref(), &rig.scene, &d0)?.weights;
            // The shipped binder's sets (`EXPLAIN=rule`: the hand-made rule's).
            let options = if std::env::var("EXPLAIN").is_ok_and(|e| e == "rule") {
                BindOptions::rule()
            } else {
                BindOptions::default()
            };
            let chosen = auto_bones(&rig.scene, &whole, &home, &options)?;
            let feats = pair_features(&rig.scene, &whole, &home)?;
            let names: Vec<String> = rig
                .scene
                .skeleton()
                .bones()
                .iter()
                .map(|b| b.name.clone())
                .collect();
            println!("# {}", src.name);
            for (part, artist) in &rig.meshes {
                let ch = chosen.iter().find(|m| &m.part == part);
                let pf = feats.iter().find(|f| &f.part == part);
                let (Some(ch), Some(pf)) = (ch, pf) else {
                    continue;
                };
                let home_of = home
                    .iter()
                    .find(|h| &h.part == part)
                    .map(|h| h.bones.clone());
                println!(
                    "## {part} home {:?}",
                    home_of.map(|b| b.iter().map(|&j| names[j].clone()).collect::<Vec<_>>())
                );
                let mut all: Vec<usize> = ch.bones.clone();
                for a in artist {
                    if let Some(j) = names.iter().position(|n| n == a) {
                        all.push(j);
                    }
                }
                all.sort_unstable();
                all.dedup();
                for j in all {
                    let in_a = artist.contains(&names[j]);
                    let in_c = ch.bones.contains(&j);
                    let f = pf
                        .bones
                        .iter()
                        .position(|&b| b == j)
                        .map(|k| pf.features[k]);
                    let tag = match (in_a, in_c) {
                        (true, true) => "  ok ",
                        (true, false) => "MISS ",
                        (false, true) => "EXTRA",
                        _ => "",
                    };
                    match f {
                        Some(x) => println!(
                            "  {tag} {:<24} mass {:.3} max {:.2} lead {:.2} inside {:.1} dist {:.2} steps_home {:.2} heaviest {} len {:.2} children {}",
                            names[j], x[0], x[2], x[3], x[4], x[5], x[8], x[11], x[12], x[13]
                        ),
                        None => println!("  {tag} {:<24} (no whole weight)", names[j]),
                    }
                }
            }
        }
        Ok(())
    }
}

/// `BINDING_MODE=probe`: the rule binder and the shipped trees against edits of their bone
/// sets, every painted rig.
mod probe {
    use super::common::Res;
    use super::{interval, scores, Scores, FPS};
    use skinweights::binding::{
        add_lying_in, auto_bones, pair_features, solve_bound, solve_with_bones, BindOptions,
        MeshBones, FITTED_TREES,
    };
    use skinweights::metrics::artist::ArtistClipFrames;
    use skinweights::weights::Weights;

    const NAMES: [&str; 15] = [
        "(b)",
        "(c) the rule",
        "+ inside 5",
        "+ inside 4",
        "+ inside 3",
        "(c) the rule blended 3:1 with the whole solve",
        "(c) the rule blended 1:1 with the whole solve",
        "(c) the shipped trees (in-sample)",
        "the trees' sets without the bones the artist did not bind (misses left)",
        "the trees' sets with the artist's bones they missed (extras left)",
        "the artist's bones, re-solved over the same whole solve",
        "(c) the trees, each bone's weight times its probability, renormalised",
        "(c) the trees, each bone's weight times its probability squared, renormalised",
        "the trees over the whole solve of (b) (the artist-bound bones; reads artist weights)",
        "the rule over the whole solve of (b) (reads artist weights)",
    ];

    /// Per part of `sets`, its bones kept (`keep`) or joined (`!keep`) with the artist's.
    fn with_artist(sets: &[MeshBones], artist: &[MeshBones], keep: bool) -> Vec<MeshBones> {
        sets.iter()
            .map(|mb| {
                let theirs = artist
                    .iter()
                    .find(|a| a.part == mb.part)
                    .map_or(&[][..], |a| &a.bones[..]);
                let mut bones: Vec<usize> = if keep {
                    mb.bones
                        .iter()
                        .copied()
                        .filter(|b| theirs.contains(b))
                        .collect()
                } else {
                    mb.bones.iter().chain(theirs).copied().collect()
                };
                bones.sort_unstable();
                bones.dedup();
                if bones.is_empty() {
                    // Nothing in common: the artist's set, so the mesh is still solved.
                    bones = theirs.to_vec();
                }
                MeshBones {
                    part: mb.part.clone(),
                    bones,
                }
            })
            .collect()
    }

    /// `a` times `whole` plus `1 - a` times `bound`, row by row (both rows sum to 1).
    fn blend(whole: &Weights, bound: &Weights, a: f64) -> Res<Weights> {
        let data = whole
            .as_slice()
            .iter()
            .zip(bound.as_slice())
            .map(|(w, b)| a * w + (1.0 - a) * b)
            .collect();
        Ok(Weights::from_row_major(data, whole.bone_count())?)
    }

    pub fn run(only: Option<Vec<String>>) -> Res<()> {
        let mut rows: Vec<(String, Vec<Scores>)> = Vec::new();
        for (src, rig) in super::painted_rigs(only.as_deref())? {
            let frames = ArtistClipFrames::new(&rig.scene, &rig.artist, rig.scene.clips(), FPS)?;
            let cuts = super::scored_cuts(&rig)?;
            let solver = super::common::rigs::solver_of_spec("best")?;
            let b = solve_with_bones(solver.as_ref(), &rig.scene, &rig.artist_bones())?.weights;
            let d0 = rig.scene.deforming_bones(None)?.kept;
            let home = rig.homes();
            let whole = solve_with_bones(solver.as_ref(), &rig.scene, &d0)?.weights;
            let mut base = auto_bones(&rig.scene, &whole, &home, &BindOptions::rule())?;
            base.retain(|mb| cuts.iter().any(|(p, _)| *p == mb.part));
            let mut sets: Vec<Vec<MeshBones>> = vec![base.clone()];
            for k in [5, 4, 3] {
                let mut s = base.clone();
                add_lying_in(&rig.scene, &mut s, &d0, k);
                sets.push(s);
            }
            let mut out = vec![scores(&rig, &frames, &cuts, &b)?];
            let mut default = None;
            for s in &sets {
                let w = solve_bound(solver.as_ref(), &rig.scene, s, whole.clone())?;
                out.push(scores(&rig, &frames, &cuts, &w)?);
                default.get_or_insert(w);
            }
            let default = default.expect("four sets");
            for a in [0.25, 0.5] {
                let w = blend(&whole, &default, a)?;
                out.push(scores(&rig, &frames, &cuts, &w)?);
            }
            // Which of the shipped trees' errors cost more: bones added or bones missed.
            let mut trees = auto_bones(&rig.scene, &whole, &home, &BindOptions::default())?;
            trees.retain(|mb| cuts.iter().any(|(p, _)| *p == mb.part));
            let artist: Vec<MeshBones> = rig
                .meshes
                .iter()
                .map(|(part, bones)| MeshBones {
                    part: part.clone(),
                    bones: bones
                        .iter()
                        .filter_map(|b| rig.scene.skeleton().index_of(b))
                        .collect(),
                })
                .collect();
            let artist_sets: Vec<MeshBones> = trees
                .iter()
                .filter_map(|mb| artist.iter().find(|a| a.part == mb.part).cloned())
                .collect();
            let mut trees_weights = None;
            for s in [
                trees.clone(),
                with_artist(&trees, &artist, true),
                with_artist(&trees, &artist, false),
                artist_sets,
            ] {
                let w = solve_bound(solver.as_ref(), &rig.scene, &s, whole.clone())?;
                out.push(scores(&rig, &frames, &cuts, &w)?);
                trees_weights.get_or_insert(w);
            }
            let trees_weights = trees_weights.expect("four sets");
            let features = pair_features(&rig.scene, &whole, &home)?;
            for power in [1, 2] {
                let w = super::by_probability(
                    &rig.scene,
                    &trees_weights,
                    &features,
                    &trees,
                    |x| FITTED_TREES.probability(x),
                    power,
                )?;
                out.push(scores(&rig, &frames, &cuts, &w)?);
            }
            // How much a rig-level choice of the deforming bones could give: the binders
            // over (b)'s whole solve.
            for options in [BindOptions::default(), BindOptions::rule()] {
                let mut s = auto_bones(&rig.scene, &b, &home, &options)?;
                s.retain(|mb| cuts.iter().any(|(p, _)| *p == mb.part));
                let w = solve_bound(solver.as_ref(), &rig.scene, &s, b.clone())?;
                out.push(scores(&rig, &frames, &cuts, &w)?);
            }
            eprintln!(
                "{}: {:?}",
                src.name,
                out.iter().map(|s| s[0].round()).collect::<Vec<_>>()
            );
            rows.push((src.source.clone(), out));
        }
        println!("| variant | agreement % | one-bone % | clip % |\n|---|---|---|---|");
        for (k, name) in NAMES.iter().enumerate() {
            let col = |m: usize| rows.iter().map(|r| r.1[k][m]).collect::<Vec<f64>>();
            println!(
                "| {name} | {} | {} | {} |",
                interval(&col(0)),
                interval(&col(1)),
                interval(&col(2))
            );
        }
        Ok(())
    }
}
