//! `BINDING_MODE=refine`: each mesh's re-solve on a subdivided copy of it. The binder
//! re-solves every mesh over the bones it keeps; artists' meshes have 20-150 vertices, too
//! few for a diffusion to resolve, and `best` on a subdivided copy is closer to the artists
//! (`artist_fit`). This mode scores (a) and (c) (the shipped trees' sets over D0's whole
//! solve) with each mesh under `target` vertices solved on a copy subdivided to at least
//! `target`, for each of [`TARGETS`], the target chosen per rig by leaving its source out, and
//! times each re-solve against heat's per-mesh time. `WHOLE_SPEC=SPEC` solves the whole
//! character the binder reads with another solver spec, `WHOLE_NEAR=F` replaces that solve by
//! each part solved alone over the bones near it, `REFINE_BINDER=rule` binds with the
//! hand-made rule, and `REFINE_OPTIONS=KEY=VALUE;...` adds options of `best` to every re-solve.
use super::common::rigs::Rig;
use super::common::Res;
use super::{mean, scores, three_cells, Scores, FPS};
use skinweights::binding::{auto_bones, solve_bound, solve_with_bones, BindOptions, MeshBones};
use skinweights::metrics::artist::ArtistClipFrames;
use skinweights::scene::SubScene;
use skinweights::solvers::Solver;
use skinweights::weights::Weights;
use std::time::Instant;

/// The subdivision targets tried (`None`: each mesh on its own vertices, as today).
const TARGETS: [Option<usize>; 6] = [None, Some(50), Some(100), Some(150), Some(500), Some(2000)];

/// One rig's scores and times per target.
struct RigRow {
    name: String,
    source: String,
    b: Scores,
    /// Per target: (a), (c).
    scores: Vec<[Scores; 2]>,
    /// Per target: the (c) re-solve's time over heat's on the artist's bones.
    ratio: Vec<f64>,
}

/// The sets re-solved with `solver` over `whole`; the time of the re-solve.
fn resolve(
    rig: &Rig,
    solver: &dyn Solver,
    sets: &[MeshBones],
    whole: &Weights,
) -> Res<(Weights, f64)> {
    let t = Instant::now();
    let w = solve_bound(solver, &rig.scene, sets, whole.clone())?;
    Ok((w, t.elapsed().as_secs_f64()))
}

/// `best` with each mesh subdivided to `target`; `REFINE_OPTIONS=KEY=VALUE;...` adds options
/// of `best` to every target's solver.
fn solver_for(target: Option<usize>) -> Res<Box<dyn Solver>> {
    let mut options: Vec<String> = std::env::var("REFINE_OPTIONS")
        .ok()
        .into_iter()
        .filter(|o| !o.is_empty())
        .collect();
    options.extend(target.map(|n| format!("refine={n}")));
    if options.is_empty() {
        return Ok(super::common::rigs::solver_of_spec("best")?);
    }
    Ok(super::common::rigs::solver_of_spec(&format!(
        "best:{}",
        options.join(";")
    ))?)
}

fn score_rig(source: &str, rig: &Rig) -> Res<RigRow> {
    let best = solver_for(None)?;
    let heat = super::common::rigs::solver_of_spec("heat")?;
    let frames = ArtistClipFrames::new(&rig.scene, &rig.artist, rig.scene.clips(), FPS)?;
    let cuts: Vec<(String, SubScene)> = super::scored_cuts(rig)?;
    let d0 = rig.scene.deforming_bones(None)?.kept;
    // `WHOLE_SPEC`: the solver of the whole solve the binder reads (default `best`);
    // `REFINE_BINDER=rule`: the hand-made rule instead of the shipped trees.
    let whole_solver = match std::env::var("WHOLE_SPEC") {
        Ok(spec) => super::common::rigs::solver_of_spec(&spec)?,
        Err(_) => solver_for(None)?,
    };
    let t = Instant::now();
    let mut whole = solve_with_bones(whole_solver.as_ref(), &rig.scene, &d0)?.weights;
    let whole_s = t.elapsed().as_secs_f64();
    // `WHOLE_NEAR=F`: the whole solve replaced by each part solved alone over the bones of D0
    // within F times its bounding box's diagonal of it.
    if let Some(f) = std::env::var("WHOLE_NEAR")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
    {
        let sets = near_bones(&rig.scene, &d0, f);
        let t = Instant::now();
        let zeros =
            Weights::zeros_unchecked(rig.scene.mesh().vertex_count(), rig.scene.skeleton().len());
        whole = solve_bound(whole_solver.as_ref(), &rig.scene, &sets, zeros)?;
        let near_s = t.elapsed().as_secs_f64();
        let mean_bones =
            sets.iter().map(|m| m.bones.len()).sum::<usize>() as f64 / sets.len().max(1) as f64;
        eprintln!(
            "{}: whole {whole_s:.4} s, near {near_s:.4} s ({:.2}x), {mean_bones:.1} of {} bones per part",
            rig.name,
            near_s / whole_s.max(1e-9),
            d0.len()
        );
    }
    let b = solve_with_bones(best.as_ref(), &rig.scene, &rig.artist_bones())?.weights;
    let options = match std::env::var("REFINE_BINDER").as_deref() {
        Ok("rule") => BindOptions::rule(),
        _ => BindOptions::default(),
    };
    let mut sets = auto_bones(&rig.scene, &whole, &rig.homes(), &options)?;
    sets.retain(|mb| cuts.iter().any(|(p, _)| *p == mb.part));
    // `DROP_APART=1`: each set without the bones never keyed in a clip with its heaviest.
    if std::env::var("DROP_APART").is_ok_and(|v| v == "1") {
        super::deforming::without_apart(rig, &whole, &mut sets);
    }
    let artist: Vec<MeshBones> = cuts
        .iter()
        .map(|(p, c)| MeshBones {
            part: p.clone(),
            bones: c.bones.clone(),
        })
        .collect();
    // Heat's per-mesh time on the artist's bones, the unit (best of three).
    let mut heat_s = f64::INFINITY;
    for _ in 0..3 {
        let t = Instant::now();
        for (_, cut) in &cuts {
            heat.solve(&cut.scene)?;
        }
        heat_s = heat_s.min(t.elapsed().as_secs_f64());
    }
    let mut out = RigRow {
        name: rig.name.clone(),
        source: source.to_string(),
        b: scores(rig, &frames, &cuts, &b)?,
        scores: Vec::new(),
        ratio: Vec::new(),
    };
    for target in TARGETS {
        let solver = solver_for(target)?;
        let (a, _) = resolve(rig, solver.as_ref(), &artist, &whole)?;
        let mut c_s = f64::INFINITY;
        let mut c = whole.clone();
        for _ in 0..3 {
            let (w, s) = resolve(rig, solver.as_ref(), &sets, &whole)?;
            c = w;
            c_s = c_s.min(s);
        }
        out.scores.push([
            scores(rig, &frames, &cuts, &a)?,
            scores(rig, &frames, &cuts, &c)?,
        ]);
        out.ratio.push(c_s / heat_s.max(1e-9));
    }
    Ok(out)
}

/// Sum over the three measures of the rank of each target's mean over `rows` in protocol
/// `protocol` (0: (a), 1: (c)).
fn rank_sum(rows: &[&RigRow], protocol: usize) -> Vec<usize> {
    let means: Vec<Scores> = (0..TARGETS.len())
        .map(|k| {
            let col = |m: usize| {
                mean(
                    &rows
                        .iter()
                        .map(|r| r.scores[k][protocol][m])
                        .collect::<Vec<_>>(),
                )
            };
            [col(0), col(1), col(2)]
        })
        .collect();
    super::rank_sum_of(&means)
}

/// Per part with vertices, the bones of `d0` whose segment comes within `f` times the part's
/// bounding-box diagonal of the box (the nearest one when none does).
fn near_bones(scene: &skinweights::scene::Scene, d0: &[usize], f: f64) -> Vec<MeshBones> {
    let mesh = scene.mesh();
    let np = mesh.parts().len();
    let mut lo = vec![[f64::INFINITY; 2]; np];
    let mut hi = vec![[f64::NEG_INFINITY; 2]; np];
    for (v, &p) in mesh.vertex_parts().iter().enumerate() {
        let q = mesh.vertices()[v];
        for k in 0..2 {
            lo[p][k] = lo[p][k].min(q[k]);
            hi[p][k] = hi[p][k].max(q[k]);
        }
    }
    let bones = scene.skeleton().bones();
    (0..np)
        .filter(|&p| lo[p][0].is_finite())
        .map(|p| {
            let diag = ((hi[p][0] - lo[p][0]).powi(2) + (hi[p][1] - lo[p][1]).powi(2)).sqrt();
            let to_box = |j: usize| {
                let (a, b) = (bones[j].head, bones[j].tail);
                (0..=10)
                    .map(|i| {
                        let t = f64::from(i) / 10.0;
                        let x = a.x + (b.x - a.x) * t;
                        let y = a.y + (b.y - a.y) * t;
                        let dx = (lo[p][0] - x).max(x - hi[p][0]).max(0.0);
                        let dy = (lo[p][1] - y).max(y - hi[p][1]).max(0.0);
                        (dx * dx + dy * dy).sqrt()
                    })
                    .fold(f64::INFINITY, f64::min)
            };
            let mut near: Vec<usize> = d0
                .iter()
                .copied()
                .filter(|&j| to_box(j) <= f * diag)
                .collect();
            if near.is_empty() {
                near.extend(
                    d0.iter()
                        .copied()
                        .min_by(|&a, &b| to_box(a).total_cmp(&to_box(b))),
                );
            }
            MeshBones {
                part: mesh.parts()[p].clone(),
                bones: near,
            }
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

pub fn run(only: Option<Vec<String>>) -> Res<()> {
    let mut rows = Vec::new();
    for (src, rig) in super::painted_rigs(only.as_deref())? {
        let row = score_rig(&src.source, &rig)?;
        eprintln!(
            "{}: (c) agreement per target {:?}",
            row.name,
            row.scores
                .iter()
                .map(|s| (s[1][0] * 10.0).round() / 10.0)
                .collect::<Vec<_>>()
        );
        rows.push(row);
    }
    let label = |t: Option<usize>| {
        t.map_or("own vertices (today)".to_string(), |n| {
            format!("subdivided to {n}")
        })
    };
    println!("| re-solve of each mesh | (a) agreement % | (a) one-bone % | (a) clip % | (c) agreement % | (c) one-bone % | (c) clip % | (c) re-solve time / heat, median over rigs |");
    println!("|---|---|---|---|---|---|---|---|");
    let b = three_cells(|m| rows.iter().map(|r| r.b[m]).collect());
    println!("| (b) whole, artist-bound bones | - | - | - | {b} | - |");
    for (k, t) in TARGETS.iter().enumerate() {
        let cells = |p: usize| three_cells(|m| rows.iter().map(|r| r.scores[k][p][m]).collect());
        println!(
            "| {} | {} | {} | {:.2}x |",
            label(*t),
            cells(0),
            cells(1),
            median(rows.iter().map(|r| r.ratio[k]).collect())
        );
    }
    // The target chosen per rig on the other sources' rigs (rank sum of the three means), for
    // (a) (the artist's bones, `Bind::Artist`) and for (c).
    let mut chosen = [
        std::collections::BTreeMap::<String, usize>::new(),
        std::collections::BTreeMap::<String, usize>::new(),
    ];
    for protocol in [0, 1] {
        let mut held = Vec::new();
        for r in &rows {
            let others: Vec<&RigRow> = rows.iter().filter(|o| o.source != r.source).collect();
            let sums = rank_sum(&others, protocol);
            let k = (0..TARGETS.len()).min_by_key(|&k| sums[k]).unwrap_or(0);
            *chosen[protocol].entry(label(TARGETS[k])).or_default() += 1;
            held.push((r.scores[k][protocol], r.ratio[k]));
        }
        let cells = three_cells(|m| held.iter().map(|x| x.0[m]).collect());
        if protocol == 0 {
            println!(
                "| (a) target chosen leaving the rig's source out | {cells} | - | - | - | - |"
            );
        } else {
            println!(
                "| (c) target chosen leaving the rig's source out | - | - | - | {cells} | {:.2}x |",
                median(held.iter().map(|x| x.1).collect())
            );
        }
    }
    let chosen_a = &chosen[0];
    let chosen = &chosen[1];
    let all: Vec<&RigRow> = rows.iter().collect();
    let sums = rank_sum(&all, 1);
    let sums_a = rank_sum(&all, 0);
    println!(
        "\nChosen held out (rigs): (a) {chosen_a:?}, (c) {chosen:?}; on all rigs: (a) {}, (c) {}. \
         (c)'s sets are the shipped trees' (in-sample); rigs won by (c) against (b) per target \
         (agreement / one-bone / clip):",
        label(TARGETS[(0..TARGETS.len()).min_by_key(|&k| sums_a[k]).unwrap_or(0)]),
        label(TARGETS[(0..TARGETS.len()).min_by_key(|&k| sums[k]).unwrap_or(0)])
    );
    for (k, t) in TARGETS.iter().enumerate() {
        let won = |m| super::rigs_won(rows.len(), &|i| rows[i].scores[k][1], &|i| rows[i].b, m);
        println!("- {}: {} / {} / {}", label(*t), won(0), won(1), won(2));
    }
    println!(
        "\nRigs won by (a) per target against (a) on own vertices (agreement / one-bone / clip):"
    );
    for (k, t) in TARGETS.iter().enumerate().skip(1) {
        let won = |m| {
            let own = |i: usize| rows[i].scores[0][0];
            super::rigs_won(rows.len(), &|i| rows[i].scores[k][0], &own, m)
        };
        println!("- {}: {} / {} / {}", label(*t), won(0), won(1), won(2));
    }
    Ok(())
}
