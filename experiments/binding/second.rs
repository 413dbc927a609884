//! `BINDING_MODE=second`: a second pass over the binder's own re-solve. The shipped trees'
//! sets (in-sample) are re-solved as the library does (each mesh under 150 vertices on a
//! subdivided copy); a bone that then leads few of the mesh's vertices, or carries little of
//! its weight, is dropped and the mesh solved again. Scores each cut-off, chooses one per rig
//! by leaving its source out, and says how well the re-solve's own figures tell the artist's
//! bones from the binder's extras.
use super::common::rigs::Rig;
use super::common::Res;
use super::{mean, scores, three_cells, Scores, FPS};
use skinweights::binding::{auto_bones, solve_bound, solve_with_bones, BindOptions, MeshBones};
use skinweights::metrics::artist::ArtistClipFrames;
use skinweights::scene::SubScene;
use skinweights::weights::Weights;

/// A bone is dropped from a mesh's set when, in the first re-solve, it leads fewer than
/// `lead` of the mesh's vertices or its mean weight over them is under `mass`.
#[derive(Clone, Copy)]
struct Cut {
    lead: f64,
    mass: f64,
}

const CUTS: [Cut; 7] = [
    Cut {
        lead: 0.0,
        mass: 0.0,
    },
    Cut {
        lead: 1e-9,
        mass: 0.0,
    },
    Cut {
        lead: 0.05,
        mass: 0.0,
    },
    Cut {
        lead: 0.1,
        mass: 0.0,
    },
    Cut {
        lead: 0.0,
        mass: 0.05,
    },
    Cut {
        lead: 0.0,
        mass: 0.1,
    },
    Cut {
        lead: 0.0,
        mass: 0.15,
    },
];

fn label(c: Cut) -> String {
    match (c.lead > 0.0, c.mass > 0.0) {
        (false, false) => "(c) the shipped trees, re-solved once (today)".into(),
        (true, _) if c.lead < 1e-6 => "drop a bone leading no vertex".into(),
        (true, _) => format!(
            "drop a bone leading under {:.0}% of the vertices",
            c.lead * 100.0
        ),
        (false, true) => format!("drop a bone of mean weight under {}", c.mass),
    }
}

/// Per (mesh, bone) of `sets`: the share of the mesh's vertices the bone leads in `w` and
/// its mean weight there.
fn figures(cut: &SubScene, w: &Weights, bones: &[usize]) -> Vec<(f64, f64)> {
    let n = cut.vertices.len().max(1) as f64;
    bones
        .iter()
        .map(|&j| {
            let mut lead = 0.0;
            let mut mass = 0.0;
            for &v in &cut.vertices {
                let row = w.row(v);
                mass += row[j];
                let top = row
                    .iter()
                    .enumerate()
                    .max_by(|a, b| a.1.total_cmp(b.1))
                    .map_or(usize::MAX, |x| x.0);
                if top == j {
                    lead += 1.0;
                }
            }
            (lead / n, mass / n)
        })
        .collect()
}

struct RigRow {
    source: String,
    b: Scores,
    scores: Vec<Scores>,
    /// Per cut: bones dropped that the artist bound, and that the artist did not.
    dropped: Vec<[usize; 2]>,
    /// The trees' bones the artist bound, and did not.
    chosen: [usize; 2],
}

fn score_rig(source: &str, rig: &Rig) -> Res<RigRow> {
    let best = super::common::rigs::solver_of_spec("best")?;
    let refined = super::common::rigs::solver_of_spec(&format!(
        "best:refine={}",
        BindOptions::DEFAULT_REFINE
    ))?;
    let frames = ArtistClipFrames::new(&rig.scene, &rig.artist, rig.scene.clips(), FPS)?;
    let cuts: Vec<(String, SubScene)> = super::scored_cuts(rig)?;
    let d0 = rig.scene.deforming_bones(None)?.kept;
    let whole = solve_with_bones(best.as_ref(), &rig.scene, &d0)?.weights;
    let b = solve_with_bones(best.as_ref(), &rig.scene, &rig.artist_bones())?.weights;
    let mut sets = auto_bones(&rig.scene, &whole, &rig.homes(), &BindOptions::default())?;
    sets.retain(|mb| cuts.iter().any(|(p, _)| *p == mb.part));
    let first = solve_bound(refined.as_ref(), &rig.scene, &sets, whole.clone())?;
    let mut chosen = [0, 0];
    // Per set: its bones with (lead, mass) in the first re-solve and whether the artist bound it.
    let mut table: Vec<Vec<(usize, f64, f64, bool)>> = Vec::new();
    for mb in &sets {
        let Some((_, cut)) = cuts.iter().find(|(p, _)| *p == mb.part) else {
            table.push(Vec::new());
            continue;
        };
        let f = figures(cut, &first, &mb.bones);
        let rows: Vec<_> = mb
            .bones
            .iter()
            .zip(f)
            .map(|(&j, (lead, mass))| (j, lead, mass, cut.bones.contains(&j)))
            .collect();
        for r in &rows {
            chosen[usize::from(!r.3)] += 1;
        }
        table.push(rows);
    }
    let mut out = RigRow {
        source: source.to_string(),
        b: scores(rig, &frames, &cuts, &b)?,
        scores: Vec::new(),
        dropped: Vec::new(),
        chosen,
    };
    for c in CUTS {
        let mut dropped = [0, 0];
        let mut changed = false;
        let edited: Vec<MeshBones> = sets
            .iter()
            .zip(&table)
            .map(|(mb, rows)| {
                if rows.is_empty() {
                    return mb.clone();
                }
                let heaviest = rows
                    .iter()
                    .max_by(|x, y| x.2.total_cmp(&y.2))
                    .map_or(usize::MAX, |r| r.0);
                let mut bones = Vec::new();
                for &(j, lead, mass, bound) in rows {
                    if j == heaviest || (lead >= c.lead && mass >= c.mass) {
                        bones.push(j);
                    } else {
                        dropped[usize::from(!bound)] += 1;
                        changed = true;
                    }
                }
                MeshBones {
                    part: mb.part.clone(),
                    bones,
                }
            })
            .collect();
        let w = if changed {
            solve_bound(refined.as_ref(), &rig.scene, &edited, whole.clone())?
        } else {
            first.clone()
        };
        out.scores.push(scores(rig, &frames, &cuts, &w)?);
        out.dropped.push(dropped);
    }
    Ok(out)
}

/// Sum over the three measures of each cut's rank by its mean over `rows`.
fn rank_sum(rows: &[&RigRow]) -> Vec<usize> {
    let means: Vec<Scores> = (0..CUTS.len())
        .map(|k| {
            let col = |m: usize| mean(&rows.iter().map(|r| r.scores[k][m]).collect::<Vec<_>>());
            [col(0), col(1), col(2)]
        })
        .collect();
    super::rank_sum_of(&means)
}

pub fn run(only: Option<Vec<String>>) -> Res<()> {
    let mut rows = Vec::new();
    for (src, rig) in super::painted_rigs(only.as_deref())? {
        let row = score_rig(&src.source, &rig)?;
        eprintln!(
            "{}: agreement per cut {:?}",
            rig.name,
            row.scores
                .iter()
                .map(|s| (s[0] * 10.0).round() / 10.0)
                .collect::<Vec<_>>()
        );
        rows.push(row);
    }
    let bound: usize = rows.iter().map(|r| r.chosen[0]).sum();
    let extra: usize = rows.iter().map(|r| r.chosen[1]).sum();
    println!(
        "| second pass | agreement % | one-bone % | clip % | dropped: artist's / extras (of {bound} / {extra}) |"
    );
    println!("|---|---|---|---|---|");
    let b = three_cells(|m| rows.iter().map(|r| r.b[m]).collect());
    println!("| (b) whole, artist-bound bones | {b} | - |");
    for (k, c) in CUTS.iter().enumerate() {
        let cells = three_cells(|m| rows.iter().map(|r| r.scores[k][m]).collect());
        let d0: usize = rows.iter().map(|r| r.dropped[k][0]).sum();
        let d1: usize = rows.iter().map(|r| r.dropped[k][1]).sum();
        println!("| {} | {cells} | {d0} / {d1} |", label(*c));
    }
    let mut held = Vec::new();
    let mut chosen = std::collections::BTreeMap::<String, usize>::new();
    for r in &rows {
        let others: Vec<&RigRow> = rows.iter().filter(|o| o.source != r.source).collect();
        let sums = rank_sum(&others);
        let k = (0..CUTS.len()).min_by_key(|&k| sums[k]).unwrap_or(0);
        *chosen.entry(label(CUTS[k])).or_default() += 1;
        held.push(r.scores[k]);
    }
    println!(
        "| cut-off chosen leaving the rig's source out | {} | - |",
        three_cells(|m| held.iter().map(|x| x[m]).collect())
    );
    println!("\nChosen held out (rigs): {chosen:?}. The sets are the shipped trees' (in-sample).");
    Ok(())
}
