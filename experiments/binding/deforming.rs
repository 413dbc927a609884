//! `BINDING_MODE=deforming`: which bones deform anything, chosen per rig before the whole
//! solve. Protocol (b) solves the whole character over the bones some artist mesh is bound to
//! and the binder over (b)'s whole solve scores well past (b) (`probe`), so this mode fits a
//! classifier of those bones (boosted trees over the skeleton and a first whole solve; no
//! artist weight of the rig), held out by source, and scores the pipeline: first whole solve
//! over D0, the classifier's bones, a second whole solve over them, the shipped trees per mesh,
//! each mesh re-solved.
use super::common::boost;
use super::common::rigs::Rig;
use super::common::Res;
use super::{mean, scores, three_cells, Scores, FPS};
use skinweights::binding::{
    auto_bones, pair_features, solve_bound, solve_with_bones, BindOptions, MeshBones,
    RIGID_VERTICES,
};
use skinweights::metrics::artist::ArtistClipFrames;
use skinweights::weights::Weights;

/// The classifier's thresholds tried (a bone is kept from this probability).
const THRESHOLDS: [f64; 4] = [0.2, 0.35, 0.5, 0.65];

/// Names of [`bone_features`]' columns.
const NAMES: [&str; 27] = [
    "max mean whole weight over meshes",
    "share of all mesh vertices' weight",
    "share of mesh vertices it leads",
    "max points of segment inside a mesh",
    "meshes passing the rule (log)",
    "share of meshes passing the rule",
    "is heaviest of some mesh",
    "is root",
    "children",
    "descendants (log)",
    "depth",
    "log length over longest",
    "zero length",
    "home of a mesh",
    "home of rigid art only",
    "home of anything",
    "in an IK chain",
    "parent of an IK target",
    "bones of the rig (log)",
    "name says ik/target/ctrl/control",
    "children that pass the rule somewhere",
    "parent passes the rule somewhere",
    "rig has clips",
    "log(1 + rotation range over clips, degrees)",
    "translation range over clips over the longest bone",
    "scale range over clips",
    "rotated in no clip but translated",
];

/// Per bone of `d0`, its features ([`NAMES`]).
fn bone_features(rig: &Rig, whole: &Weights, d0: &[usize]) -> Res<Vec<Vec<f64>>> {
    let scene = &rig.scene;
    let bones = scene.skeleton().bones();
    let nb = bones.len();
    let home = rig.homes();
    let parts = scene.mesh().parts();
    let vertex_parts = scene.mesh().vertex_parts();
    let mut count = vec![0usize; parts.len()];
    for &p in vertex_parts {
        count[p] += 1;
    }
    let meshy = |p: usize| count[p] > RIGID_VERTICES;
    let (mut total, mut lead, mut nverts) = (vec![0.0; nb], vec![0.0; nb], 0.0);
    for (v, &p) in vertex_parts.iter().enumerate() {
        if !meshy(p) {
            continue;
        }
        nverts += 1.0;
        let row = whole.row(v);
        let mut top = 0;
        for j in 0..nb {
            total[j] += row[j];
            if row[j] > row[top] {
                top = j;
            }
        }
        lead[top] += 1.0;
    }
    let features = pair_features(scene, whole, &home)?;
    let (mut max_mean, mut max_inside, mut passes, mut heaviest) =
        (vec![0.0; nb], vec![0.0; nb], vec![0.0; nb], vec![0.0; nb]);
    let mut meshes = 0.0;
    for pf in &features {
        let Some(p) = scene.mesh().part_index(&pf.part) else {
            continue;
        };
        if !meshy(p) {
            continue;
        }
        meshes += 1.0;
        for (k, &j) in pf.bones.iter().enumerate() {
            let f = &pf.features[k];
            max_mean[j] = f64::max(max_mean[j], f[0]);
            max_inside[j] = f64::max(max_inside[j], f[4]);
            passes[j] += f[19];
            heaviest[j] = f64::max(heaviest[j], f[11]);
        }
    }
    let (mut home_mesh, mut home_rigid) = (vec![false; nb], vec![false; nb]);
    for h in &home {
        let Some(p) = scene.mesh().part_index(&h.part) else {
            continue;
        };
        for &j in &h.bones {
            if meshy(p) {
                home_mesh[j] = true;
            } else {
                home_rigid[j] = true;
            }
        }
    }
    let (mut in_chain, mut target_parent) = (vec![false; nb], vec![false; nb]);
    for c in scene.ik() {
        for b in &c.bones {
            if let Some(j) = scene.skeleton().index_of(b) {
                in_chain[j] = true;
            }
        }
        if let Some(t) = scene.skeleton().index_of(&c.target) {
            if let Some(p) = bones[t].parent {
                target_parent[p] = true;
            }
        }
    }
    let longest = bones.iter().map(|b| b.length()).fold(1e-9, f64::max);
    let children = |j: usize| bones.iter().filter(|b| b.parent == Some(j)).count();
    let depth = |mut j: usize| {
        let mut d = 0;
        while let Some(p) = bones[j].parent {
            d += 1;
            j = p;
        }
        d
    };
    // Per bone, the range of its keyed rotation, translation and scale over the clips.
    let (mut turn, mut shift, mut scale) = (vec![0.0; nb], vec![0.0; nb], vec![0.0; nb]);
    let range = |c: Option<&skinweights::animation::Channel>, zero: f64| {
        c.map_or(0.0, |c| {
            let lo = c.keys.iter().map(|k| k.value).fold(zero, f64::min);
            let hi = c.keys.iter().map(|k| k.value).fold(zero, f64::max);
            hi - lo
        })
    };
    for clip in scene.clips() {
        for t in &clip.tracks {
            let Some(j) = scene.skeleton().index_of(&t.bone) else {
                continue;
            };
            let ch = &t.channels;
            turn[j] = f64::max(turn[j], range(ch.rotation.as_ref(), 0.0));
            shift[j] = f64::max(
                shift[j],
                range(ch.translate_x.as_ref(), 0.0).hypot(range(ch.translate_y.as_ref(), 0.0)),
            );
            scale[j] = f64::max(
                scale[j],
                range(ch.scale_x.as_ref(), 1.0).max(range(ch.scale_y.as_ref(), 1.0)),
            );
        }
    }
    let clips = f64::from(u8::from(!scene.clips().is_empty()));
    let descendants = |j: usize| {
        (0..nb)
            .filter(|&k| k != j && is_ancestor(bones, j, k))
            .count()
    };
    let rows: Vec<Vec<f64>> = d0
        .iter()
        .map(|&j| {
            let b = &bones[j];
            let name = b.name.to_lowercase();
            let control = ["ik", "target", "ctrl", "control"]
                .iter()
                .any(|w| name.split(|c: char| !c.is_alphanumeric()).any(|t| t == *w))
                || name.contains("target")
                || name.contains("ctrl");
            let child_pass = (0..nb)
                .filter(|&k| bones[k].parent == Some(j) && passes[k] > 0.0)
                .count();
            let parent_pass = b.parent.is_some_and(|p| passes[p] > 0.0);
            vec![
                max_mean[j],
                total[j] / f64::max(nverts, 1.0),
                lead[j] / f64::max(nverts, 1.0),
                max_inside[j],
                (1.0 + passes[j]).ln(),
                passes[j] / f64::max(meshes, 1.0),
                heaviest[j],
                f64::from(u8::from(b.parent.is_none())),
                children(j) as f64,
                (1.0 + descendants(j) as f64).ln(),
                depth(j) as f64,
                (f64::max(b.length(), 1e-9 * longest) / longest).ln(),
                f64::from(u8::from(b.length() < 1e-3 * longest)),
                f64::from(u8::from(home_mesh[j])),
                f64::from(u8::from(home_rigid[j] && !home_mesh[j])),
                f64::from(u8::from(home_rigid[j] || home_mesh[j])),
                f64::from(u8::from(in_chain[j])),
                f64::from(u8::from(target_parent[j])),
                (nb as f64).ln(),
                f64::from(u8::from(control)),
                child_pass as f64,
                f64::from(u8::from(parent_pass)),
                clips,
                turn[j].ln_1p(),
                shift[j] / longest,
                scale[j],
                f64::from(u8::from(turn[j] < 1.0 && shift[j] > 1e-3 * longest)),
            ]
        })
        .collect();
    debug_assert!(rows.iter().all(|r| r.len() == NAMES.len()));
    Ok(rows)
}

fn is_ancestor(bones: &[skinweights::skeleton::Bone], a: usize, mut k: usize) -> bool {
    while let Some(p) = bones[k].parent {
        if p == a {
            return true;
        }
        k = p;
    }
    false
}

/// Names of [`colour_features`]' columns.
const COLOUR_NAMES: [&str; 7] = [
    "has a colour of its own (not the editor's default)",
    "has an icon",
    "share of the rig's bones in its colour group",
    "peers in its colour group passing the rule somewhere (share, -1 alone)",
    "peers in its colour group heaviest of some mesh (share, -1 alone)",
    "peers' mean of the max mean whole weight (-1 alone)",
    "hue / 360 (-1 grey)",
];

/// Per bone of `d0`, features of the editor's display of it (Spine's bone `color` and
/// `icon`): artists colour control bones apart from deforming ones, so a bone's colour group
/// shares its fate. The group's evidence is the first whole solve's (no artist weight).
fn colour_features(
    file: &std::path::Path,
    rig: &Rig,
    base: &[Vec<f64>],
    d0: &[usize],
) -> Res<Vec<Vec<f64>>> {
    let bones = rig.scene.skeleton().bones();
    let SpineMarks { colour, icon, .. } = spine_marks(file, rig)?;
    // Evidence per bone of d0: passes the rule somewhere, heaviest somewhere, max mean.
    let row_of = |j: usize| d0.iter().position(|&d| d == j);
    let hue = |c: &str| -> f64 {
        let v = u32::from_str_radix(&c[..6.min(c.len())], 16).unwrap_or(0x98_98_98);
        let (r, g, b) = (
            f64::from((v >> 16) & 255) / 255.0,
            f64::from((v >> 8) & 255) / 255.0,
            f64::from(v & 255) / 255.0,
        );
        let (hi, lo) = (r.max(g).max(b), r.min(g).min(b));
        if hi - lo < 0.1 {
            return -1.0;
        }
        let h = if hi == r {
            ((g - b) / (hi - lo)).rem_euclid(6.0)
        } else if hi == g {
            (b - r) / (hi - lo) + 2.0
        } else {
            (r - g) / (hi - lo) + 4.0
        };
        h / 6.0
    };
    Ok(d0
        .iter()
        .map(|&j| {
            let peers: Vec<usize> = (0..bones.len())
                .filter(|&k| k != j && colour[k] == colour[j])
                .filter_map(row_of)
                .collect();
            let share = |f: &dyn Fn(usize) -> f64| {
                if peers.is_empty() {
                    -1.0
                } else {
                    peers.iter().map(|&r| f(r)).sum::<f64>() / peers.len() as f64
                }
            };
            vec![
                f64::from(u8::from(colour[j] != "989898ff")),
                f64::from(u8::from(icon[j])),
                (peers.len() + 1) as f64 / bones.len() as f64,
                share(&|r| f64::from(u8::from(base[r][4] > 0.0))),
                share(&|r| base[r][6]),
                share(&|r| base[r][0]),
                hue(&colour[j]),
            ]
        })
        .collect())
}

/// Per bone, what a Spine file says of it beyond the skeleton the scene keeps: the editor's
/// colour (`989898ff`, the default, where none is given) and icon, and whether a path
/// constraint drives it. Other formats: defaults.
struct SpineMarks {
    colour: Vec<String>,
    icon: Vec<bool>,
    path: Vec<bool>,
}

fn spine_marks(file: &std::path::Path, rig: &Rig) -> Res<SpineMarks> {
    let sk = rig.scene.skeleton();
    let n = sk.bones().len();
    let mut marks = SpineMarks {
        colour: vec![String::from("989898ff"); n],
        icon: vec![false; n],
        path: vec![false; n],
    };
    if file.extension().is_none_or(|e| e != "json") {
        return Ok(marks);
    }
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file)?)?;
    let index = |v: &serde_json::Value| v.as_str().and_then(|name| sk.index_of(name));
    for b in json
        .get("bones")
        .and_then(|b| b.as_array())
        .into_iter()
        .flatten()
    {
        let Some(j) = b.get("name").and_then(index) else {
            continue;
        };
        if let Some(c) = b.get("color").and_then(|c| c.as_str()) {
            marks.colour[j] = c.to_lowercase();
        }
        marks.icon[j] = b.get("icon").is_some();
    }
    // Spine 4.2 and earlier list path constraints under `path`; 4.3 lists every constraint
    // under `constraints` with a `type`.
    let listed = json
        .get("path")
        .and_then(|p| p.as_array())
        .into_iter()
        .flatten();
    let typed = json
        .get("constraints")
        .and_then(|p| p.as_array())
        .into_iter()
        .flatten()
        .filter(|c| c.get("type").and_then(|t| t.as_str()) == Some("path"));
    for c in listed.chain(typed) {
        for b in c
            .get("bones")
            .and_then(|b| b.as_array())
            .into_iter()
            .flatten()
        {
            if let Some(j) = index(b) {
                marks.path[j] = true;
            }
        }
    }
    Ok(marks)
}

/// One rig's data: its first whole solve's bones and features, and the label.
struct Case {
    name: String,
    source: String,
    rig: Rig,
    frames: ArtistClipFrames,
    cuts: Vec<(String, skinweights::scene::SubScene)>,
    d0: Vec<usize>,
    x: Vec<Vec<f64>>,
    label: Vec<bool>,
    /// (b) and (c) with the shipped trees over the first whole solve.
    base: [Scores; 2],
    /// The first whole solve.
    whole: Weights,
}

pub fn run(only: Option<Vec<String>>) -> Res<()> {
    let solver = super::common::rigs::solver_of_spec("best")?;
    // The solver of each mesh's re-solve (`RESOLVE=SPEC`; default `best`, the whole solves'.
    let resolve = super::common::rigs::solver_of_spec(
        &std::env::var("RESOLVE").unwrap_or_else(|_| "best".into()),
    )?;
    let mut cases = Vec::new();
    for (src, rig) in super::painted_rigs(only.as_deref())? {
        let frames = ArtistClipFrames::new(&rig.scene, &rig.artist, rig.scene.clips(), FPS)?;
        let cuts = super::scored_cuts(&rig)?;
        let d0 = rig.scene.deforming_bones(None)?.kept;
        let whole = solve_with_bones(solver.as_ref(), &rig.scene, &d0)?.weights;
        let mut x = bone_features(&rig, &whole, &d0)?;
        let extra = std::env::var("DEFORMING_FEATURES").unwrap_or_default();
        if extra == "colour" || extra == "hue" {
            eprintln!(
                "extra features: {:?}",
                &COLOUR_NAMES[..if extra == "hue" { 7 } else { 6 }]
            );
            let cols = if extra == "hue" { 7 } else { 6 };
            let c = colour_features(&src.file, &rig, &x, &d0)?;
            for (r, c) in x.iter_mut().zip(c) {
                r.extend_from_slice(&c[..cols]);
            }
        }
        let bound = rig.artist_bones();
        let label = d0.iter().map(|j| bound.contains(j)).collect();
        let b = solve_with_bones(solver.as_ref(), &rig.scene, &bound)?.weights;
        let c = c_over(&rig, &whole, &cuts, resolve.as_ref())?;
        let base = [
            scores(&rig, &frames, &cuts, &b)?,
            scores(&rig, &frames, &cuts, &c)?,
        ];
        eprintln!("{}: {} bones, {} bound", src.name, d0.len(), bound.len());
        cases.push(Case {
            name: src.name.clone(),
            source: src.source.clone(),
            rig,
            frames,
            cuts,
            d0,
            x,
            label,
            base,
            whole,
        });
    }
    // Held out by source: per rig, the probabilities of the model fitted without its source.
    let mut rows: Vec<Vec<Scores>> = Vec::new();
    let mut pr: Vec<Vec<[f64; 2]>> = Vec::new();
    for case in &cases {
        let (mut x, mut y, mut w) = (Vec::new(), Vec::new(), Vec::new());
        for other in cases.iter().filter(|o| o.source != case.source) {
            // Each rig counts alike.
            let n = other.x.len().max(1) as f64;
            x.extend(other.x.iter().cloned());
            y.extend(other.label.iter().copied());
            w.extend(std::iter::repeat_n(1.0 / n, other.x.len()));
        }
        let model = boost::fit(&x, &y, &w, 100, 0.1);
        let p: Vec<f64> = case.x.iter().map(|r| model.probability(r)).collect();
        let mut out = vec![case.base[0], case.base[1]];
        let mut acc = Vec::new();
        for t in THRESHOLDS {
            let kept: Vec<usize> = case
                .d0
                .iter()
                .zip(&p)
                .filter(|(_, &q)| q >= t)
                .map(|(&j, _)| j)
                .collect();
            let kept = if kept.is_empty() {
                case.d0.clone()
            } else {
                kept
            };
            let tp = kept
                .iter()
                .filter(|j| case.label[case.d0.iter().position(|d| d == *j).unwrap_or(0)])
                .count() as f64;
            let positives = case.label.iter().filter(|&&l| l).count() as f64;
            acc.push([tp / kept.len() as f64, tp / positives.max(1.0)]);
            let whole = solve_with_bones(solver.as_ref(), &case.rig.scene, &kept)?.weights;
            out.push(scores(&case.rig, &case.frames, &case.cuts, &whole)?);
            let c = c_over(&case.rig, &whole, &case.cuts, resolve.as_ref())?;
            out.push(scores(&case.rig, &case.frames, &case.cuts, &c)?);
        }
        // The classifier as a filter of each mesh's set instead: the whole solve keeps every
        // bone, a mesh drops the bones the classifier doubts (the oracle: those no artist
        // mesh is bound to).
        let bound = case.rig.artist_bones();
        let oracle = filtered(case, resolve.as_ref(), |j| bound.contains(&j))?;
        out.push(scores(&case.rig, &case.frames, &case.cuts, &oracle)?);
        for t in FILTERS {
            let w = filtered(case, resolve.as_ref(), |j| {
                case.d0
                    .iter()
                    .position(|&d| d == j)
                    .is_none_or(|k| p[k] >= t)
            })?;
            out.push(scores(&case.rig, &case.frames, &case.cuts, &w)?);
        }
        eprintln!(
            "{}: {:?}",
            case.name,
            out.iter().map(|s| s[0].round()).collect::<Vec<_>>()
        );
        rows.push(out);
        pr.push(acc);
    }
    let mut names = vec!["(b)".to_string(), "(c) shipped trees over D0".to_string()];
    for t in THRESHOLDS {
        names.push(format!("whole over the classifier's bones (p >= {t})"));
        names.push(format!("(c) shipped trees over it (p >= {t})"));
    }
    names.push("(c) each mesh's set without the bones no artist mesh is bound to (oracle)".into());
    for t in FILTERS {
        names.push(format!(
            "(c) each mesh's set without the bones of classifier p < {t}"
        ));
    }
    println!("| variant | agreement % | one-bone % | clip % |\n|---|---|---|---|");
    for (k, name) in names.iter().enumerate() {
        let cells = three_cells(|m| rows.iter().map(|r| r[k][m]).collect());
        println!("| {name} | {cells} |");
    }
    for (i, t) in THRESHOLDS.iter().enumerate() {
        println!(
            "classifier p >= {t}: precision {:.1}%, recall {:.1}% (mean over rigs)",
            100.0 * mean(&pr.iter().map(|a| a[i][0]).collect::<Vec<_>>()),
            100.0 * mean(&pr.iter().map(|a| a[i][1]).collect::<Vec<_>>())
        );
    }
    Ok(())
}

/// The classifier's thresholds as a filter of each mesh's set.
const FILTERS: [f64; 3] = [0.1, 0.2, 0.35];

/// The shipped trees' sets over the case's first whole solve, each without the bones `keep`
/// refuses (a set left empty keeps its bones), the scored meshes re-solved.
fn filtered(
    case: &Case,
    solver: &dyn skinweights::solvers::Solver,
    keep: impl Fn(usize) -> bool,
) -> Res<Weights> {
    let rig = &case.rig;
    let mut sets: Vec<MeshBones> = auto_bones(
        &rig.scene,
        &case.whole,
        &rig.homes(),
        &BindOptions::default(),
    )?;
    sets.retain(|mb| case.cuts.iter().any(|(p, _)| *p == mb.part));
    for mb in &mut sets {
        let kept: Vec<usize> = mb.bones.iter().copied().filter(|&j| keep(j)).collect();
        if !kept.is_empty() {
            mb.bones = kept;
        }
    }
    Ok(solve_bound(solver, &rig.scene, &sets, case.whole.clone())?)
}

/// The shipped trees' sets over `whole`, the scored meshes re-solved.
fn c_over(
    rig: &Rig,
    whole: &Weights,
    cuts: &[(String, skinweights::scene::SubScene)],
    solver: &dyn skinweights::solvers::Solver,
) -> Res<Weights> {
    let mut sets: Vec<MeshBones> =
        auto_bones(&rig.scene, whole, &rig.homes(), &BindOptions::default())?;
    sets.retain(|mb| cuts.iter().any(|(p, _)| *p == mb.part));
    Ok(solve_bound(solver, &rig.scene, &sets, whole.clone())?)
}

/// Properties of a bone chosen for a mesh, each a question `chains` counts the artist's
/// answer to.
const PROPERTIES: [&str; 14] = [
    "in an IK chain",
    "home of some part",
    "home of no part",
    "a point (under 1e-3 of the longest bone)",
    "a point with children, home of no part",
    "an ancestor of another bone chosen for the mesh",
    "driven by a path constraint (Spine)",
    "coloured apart from the editor's default (Spine)",
    "shown with an icon (Spine)",
    "the mesh's home (its slot's bone)",
    "a descendant of the mesh's home",
    "an ancestor of the mesh's home",
    "on another branch than the mesh's home",
    "of a mesh with no home",
];

/// `BINDING_MODE=chains`: of the shipped trees' bones per scored mesh, for each of
/// [`PROPERTIES`], how many bones with it the artist bound, how many not, and how many of the
/// artist's bones with it the trees missed.
pub fn chains(only: Option<Vec<String>>) -> Res<()> {
    let solver = super::common::rigs::solver_of_spec("best")?;
    // Per property: [chosen and bound, chosen not bound, missed], pooled; and per rig the
    // share of the chosen bones with it that are bound.
    let mut n = [[0usize; 3]; PROPERTIES.len()];
    let mut shares: Vec<Vec<f64>> = vec![Vec::new(); PROPERTIES.len()];
    let mut purity = Vec::new();
    for (src, rig) in super::painted_rigs(only.as_deref())? {
        let sk = rig.scene.skeleton();
        let bones = sk.bones();
        let chain: Vec<usize> = rig
            .scene
            .ik()
            .iter()
            .flat_map(|c| c.bones.iter().filter_map(|b| sk.index_of(b)))
            .collect();
        let homes: Vec<usize> = rig.homes().iter().flat_map(|h| h.bones.clone()).collect();
        let marks = spine_marks(&src.file, &rig)?;
        if let Some(p) = colour_purity(&rig, &marks) {
            purity.push(p);
        }
        let longest = bones.iter().map(|b| b.length()).fold(0.0, f64::max);
        let d0 = rig.scene.deforming_bones(None)?.kept;
        let whole = solve_with_bones(solver.as_ref(), &rig.scene, &d0)?.weights;
        let sets = auto_bones(&rig.scene, &whole, &rig.homes(), &BindOptions::default())?;
        let mut local = [[0usize; 3]; PROPERTIES.len()];
        for (part, names) in &rig.meshes {
            let artist: Vec<usize> = names.iter().filter_map(|b| sk.index_of(b)).collect();
            let Some(mb) = sets.iter().find(|m| m.part == *part) else {
                continue;
            };
            let home = rig
                .homes()
                .into_iter()
                .find(|h| h.part == *part)
                .and_then(|h| h.bones.first().copied());
            let has = |j: usize| {
                let point = bones[j].length() < 1e-3 * longest;
                let (below, above) = home.map_or((false, false), |h| {
                    (is_ancestor(bones, h, j), is_ancestor(bones, j, h))
                });
                let children = bones.iter().any(|b| b.parent == Some(j));
                [
                    chain.contains(&j),
                    homes.contains(&j),
                    !homes.contains(&j),
                    point,
                    point && children && !homes.contains(&j),
                    mb.bones.iter().any(|&k| k != j && is_ancestor(bones, j, k)),
                    marks.path[j],
                    marks.colour[j] != "989898ff",
                    marks.icon[j],
                    home == Some(j),
                    below,
                    above,
                    home.is_some_and(|h| h != j) && !below && !above,
                    home.is_none(),
                ]
            };
            for &j in &mb.bones {
                let m = usize::from(!artist.contains(&j));
                has(j)
                    .iter()
                    .zip(&mut local)
                    .for_each(|(h, l)| l[m] += usize::from(*h));
            }
            for &j in artist.iter().filter(|j| !mb.bones.contains(j)) {
                has(j)
                    .iter()
                    .zip(&mut local)
                    .for_each(|(h, l)| l[2] += usize::from(*h));
            }
        }
        eprintln!("{}: {:?}", src.name, local);
        for (k, l) in local.iter().enumerate() {
            if l[0] + l[1] > 0 {
                shares[k].push(l[0] as f64 / (l[0] + l[1]) as f64);
            }
            for m in 0..3 {
                n[k][m] += l[m];
            }
        }
    }
    println!("| bone chosen by the trees | bound by the artist | not bound | missed | share bound, mean over rigs (rigs) |\n|---|---|---|---|---|");
    for (k, name) in PROPERTIES.iter().enumerate() {
        println!(
            "| {name} | {} | {} | {} | {:.1}% ({}) |",
            n[k][0],
            n[k][1],
            n[k][2],
            100.0 * mean(&shares[k]),
            shares[k].len()
        );
    }
    println!(
        "\nColour groups (rigs colouring some bone: {}): bones whose group's majority (bound by some \
         artist mesh or not) is their own, mean over rigs {:.1}%, against {:.1}% for the rig's \
         majority alone.",
        purity.len(),
        100.0 * mean(&purity.iter().map(|p| p[0]).collect::<Vec<_>>()),
        100.0 * mean(&purity.iter().map(|p| p[1]).collect::<Vec<_>>())
    );
    Ok(())
}

/// For a rig colouring some bone: the share of its bones on the side (bound by some artist
/// mesh or not) of their colour group's majority, and on the side of the rig's majority.
fn colour_purity(rig: &Rig, marks: &SpineMarks) -> Option<[f64; 2]> {
    if marks.colour.iter().all(|c| c == "989898ff") {
        return None;
    }
    let bound = rig.artist_bones();
    let mut groups: std::collections::BTreeMap<&str, [usize; 2]> = Default::default();
    for (j, c) in marks.colour.iter().enumerate() {
        groups.entry(c.as_str()).or_default()[usize::from(bound.contains(&j))] += 1;
    }
    let n = marks.colour.len() as f64;
    let by_group: usize = groups.values().map(|g| g[0].max(g[1])).sum();
    let yes = bound.len().min(marks.colour.len());
    Some([
        by_group as f64 / n,
        yes.max(marks.colour.len() - yes) as f64 / n,
    ])
}

/// `BINDING_MODE=targets`: per IK target, whether it is some part's home (a slot hangs on it)
/// and whether some artist mesh is bound to it (pooled counts, and the rigs with such bones).
pub fn targets(only: Option<Vec<String>>) -> Res<()> {
    // [home of a part, not a home] x [bound by some artist mesh, not bound]
    let mut n = [[0usize; 2]; 2];
    for (src, rig) in super::painted_rigs(only.as_deref())? {
        let sk = rig.scene.skeleton();
        let homes: Vec<usize> = rig.homes().iter().flat_map(|h| h.bones.clone()).collect();
        let bound: Vec<usize> = rig
            .meshes
            .iter()
            .flat_map(|(_, names)| names.iter().filter_map(|b| sk.index_of(b)))
            .collect();
        let mut targets: Vec<usize> = rig
            .scene
            .ik()
            .iter()
            .filter_map(|c| sk.index_of(&c.target))
            .collect();
        targets.sort_unstable();
        targets.dedup();
        for j in targets {
            let h = usize::from(!homes.contains(&j));
            let b = usize::from(!bound.contains(&j));
            n[h][b] += 1;
            let slot_meshes = rig.homes().iter().filter(|m| m.bones == [j]).count();
            let bound_meshes = rig
                .meshes
                .iter()
                .filter(|(_, names)| names.iter().any(|x| sk.index_of(x) == Some(j)))
                .count();
            println!(
                "{}\t{}\thome of {} parts\tbound by {} artist meshes",
                src.name,
                sk.bones()[j].name,
                slot_meshes,
                bound_meshes
            );
        }
    }
    println!("IK targets, pooled: home and bound {}, home not bound {}, not home but bound {}, neither {}", n[0][0], n[0][1], n[1][0], n[1][1]);
    Ok(())
}

/// `BINDING_MODE=shown`: per artist mesh and bone the shipped trees choose for it, two clip
/// signals against whether the artist binds it (pooled counts, and the rigs where they fire):
/// - drawn: the bone is keyed (its own track, or an IK chain whose target is keyed) in some
///   clip but in no clip that draws the mesh (its slot showing its attachment at the clip's
///   start or at one of its attachment keys); only scenes whose art keeps slots;
/// - apart: the bone and the mesh's heaviest bone in the whole solve are both keyed, never in
///   the same clip.
pub fn shown(only: Option<Vec<String>>) -> Res<()> {
    use std::collections::{BTreeMap, BTreeSet};
    let solver = super::common::rigs::solver_of_spec("best")?;
    // Per signal: [fires, does not] x [bound, not bound]
    let mut pooled = [[[0usize; 2]; 2]; 2];
    let mut without_slots = 0;
    for (_, rig) in super::painted_rigs(only.as_deref())? {
        let sk = rig.scene.skeleton();
        let keyed = keyed_per_clip(&rig);
        let animated: BTreeSet<usize> = keyed.iter().flatten().copied().collect();
        let art = rig.scene.art().filter(|a| a.has_slots());
        if art.is_none() {
            without_slots += 1;
        }
        let setup: BTreeMap<&str, &str> = art
            .iter()
            .flat_map(|a| a.layers.iter())
            .filter_map(|l| l.slot.as_ref())
            .filter(|s| s.setup)
            .map(|s| (s.slot.as_str(), s.attachment.as_str()))
            .collect();
        let d0 = rig.scene.deforming_bones(None)?.kept;
        let whole = solve_with_bones(solver.as_ref(), &rig.scene, &d0)?.weights;
        let sets = auto_bones(&rig.scene, &whole, &rig.homes(), &BindOptions::default())?;
        let mut local = [[[0usize; 2]; 2]; 2];
        for (part, names) in &rig.meshes {
            let Some(mb) = sets.iter().find(|m| m.part == *part) else {
                continue;
            };
            let heaviest = heaviest_of(&rig, &whole, mb);
            let slot = art.and_then(|a| {
                a.layers
                    .iter()
                    .find(|l| &l.part == part)
                    .and_then(|l| l.slot.as_ref())
            });
            let drawn_in = |c: &skinweights::animation::Clip| {
                let Some(slot) = slot else { return true };
                let times = std::iter::once(0.0).chain(
                    c.attachments
                        .iter()
                        .filter(|t| t.slot == slot.slot)
                        .flat_map(|t| t.keys.iter().map(|k| k.time)),
                );
                times.into_iter().any(|t| {
                    let at = c.attachments_at(t);
                    let shown = match at.get(&slot.slot) {
                        Some(a) => a.as_deref(),
                        None => setup.get(slot.slot.as_str()).copied(),
                    };
                    shown == Some(slot.attachment.as_str())
                })
            };
            let moving: BTreeSet<usize> = rig
                .scene
                .clips()
                .iter()
                .zip(&keyed)
                .filter(|(c, _)| drawn_in(c))
                .flat_map(|(_, k)| k.iter().copied())
                .collect();
            let artist: Vec<usize> = names.iter().filter_map(|b| sk.index_of(b)).collect();
            for &j in &mb.bones {
                let never = slot.is_some() && animated.contains(&j) && !moving.contains(&j);
                let apart = heaviest.is_some_and(|h| {
                    h != j
                        && animated.contains(&j)
                        && animated.contains(&h)
                        && !keyed.iter().any(|k| k.contains(&j) && k.contains(&h))
                });
                let bound = usize::from(!artist.contains(&j));
                local[0][usize::from(!never)][bound] += 1;
                local[1][usize::from(!apart)][bound] += 1;
            }
        }
        for (signal, name) in ["drawn", "apart"].iter().enumerate() {
            for f in 0..2 {
                for b in 0..2 {
                    pooled[signal][f][b] += local[signal][f][b];
                }
            }
            let l = local[signal];
            if l[0][0] + l[0][1] > 0 {
                println!(
                    "{} {name}: fires on bound {} not {}; the rest: bound {} not {}",
                    rig.name, l[0][0], l[0][1], l[1][0], l[1][1]
                );
            }
        }
    }
    for (signal, name) in ["drawn", "apart"].iter().enumerate() {
        let l = pooled[signal];
        println!(
            "pooled {name}: fires on bound {} not {}; the rest: bound {} not {}",
            l[0][0], l[0][1], l[1][0], l[1][1]
        );
    }
    println!("{without_slots} rigs whose scene keeps no slots (drawn cannot fire)");
    Ok(())
}

/// Per clip of `rig`, the bones it keys: its own tracks, and the chain of each IK constraint
/// whose target it keys.
pub fn keyed_per_clip(rig: &Rig) -> Vec<std::collections::BTreeSet<usize>> {
    let sk = rig.scene.skeleton();
    rig.scene
        .clips()
        .iter()
        .map(|c| {
            let mut set: std::collections::BTreeSet<usize> = c
                .tracks
                .iter()
                .filter_map(|t| sk.index_of(&t.bone))
                .collect();
            for k in rig.scene.ik() {
                if sk.index_of(&k.target).is_some_and(|t| set.contains(&t)) {
                    set.extend(k.bones.iter().filter_map(|b| sk.index_of(b)));
                }
            }
            set
        })
        .collect()
}

/// `sets` without the bones keyed in some clip of `rig` but never in one clip with the set's
/// heaviest bone in `whole` (itself keyed somewhere); a set keeps its heaviest bone.
pub fn without_apart(rig: &Rig, whole: &Weights, sets: &mut [MeshBones]) {
    let keyed = keyed_per_clip(rig);
    let animated = |j: usize| keyed.iter().any(|k| k.contains(&j));
    for mb in sets.iter_mut() {
        let Some(h) = heaviest_of(rig, whole, mb) else {
            continue;
        };
        if !animated(h) {
            continue;
        }
        mb.bones.retain(|&j| {
            j == h || !animated(j) || keyed.iter().any(|k| k.contains(&j) && k.contains(&h))
        });
    }
}

/// The bone of `mb` with the most weight in `whole` on its part's vertices.
fn heaviest_of(rig: &Rig, whole: &Weights, mb: &MeshBones) -> Option<usize> {
    let p = rig.scene.mesh().part_index(&mb.part)?;
    let parts = rig.scene.mesh().vertex_parts();
    let mass = |j: usize| -> f64 {
        (0..parts.len())
            .filter(|&v| parts[v] == p)
            .map(|v| whole.get(v, j))
            .sum()
    };
    mb.bones
        .iter()
        .copied()
        .max_by(|&a, &b| mass(a).total_cmp(&mass(b)))
}
