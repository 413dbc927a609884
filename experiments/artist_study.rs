//! # artist_study: where the solvers and the artists disagree, and what an artist's weights
//! look like
//!
//! Protocol (a) of the benchmark (each artist mesh solved alone with the bones its artist
//! bound it to), on the same rigs and groups ([`common::rigs`]). Every (mesh, bone) pair is
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
//! **By kind of mesh** (issue 46, item 4): every mesh is given one kind, `limb` (limbs and
//! the body: arms, legs, torso, neck, tail, wings), `hair/cloth` (hair, cloth and other
//! secondary motion: capes, straps, flames, dangles), `face` (the head and its features),
//! `prop` (weapons, held items, worn accessories, vehicle parts, plants) or `other`, by the
//! first rule that applies ([`kind_of`]): a keyword of its part name ([`KEYWORDS`], several
//! languages), else of its root bones' names, else `limb` when a parent-child pair of
//! non-handle bones crosses the art, else `other`. Per group (the rigs' `painted` /
//! `computed?` fold, and all) and kind: meshes, vertices, rigs, sources; each solver's
//! dominant-bone agreement and one-bone deviation, as a mean over the rigs that have the kind
//! and pooled; where the focus solver (`best`) disagrees, what the artist did instead: its
//! dominant bone a control bone (a handle, or named control/ctrl/target/ik), an ancestor or
//! descendant of the solver's, outside the art, a one-hot row, a near tie, on the paint grid;
//! the same per rig, and per pattern the rigs and sources that lean each way (a pattern held
//! by many rigs of many sources is something a solver could learn; one carried by one rig is
//! that artist's taste). `--list` prints every mesh's kind and rule without solving.
//!
//! Writes `results/artist_study/`: `study.md` and `study.json`.
//!
//! ```text
//! cargo run --release --bin artist_study [-- RIG ...] [--solvers LIST] [--mesh RIG/PART] [--list]
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
use skinweights::metrics::weight_style::PAINT_STEP;
use skinweights::scene::SubScene;
use skinweights::weights::Weights;
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
    /// Only list every mesh with its kind, the rule that put it there and its bones (length
    /// over the mesh's height, class), then stop without solving.
    #[arg(long)]
    list: bool,
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
/// The kinds of mesh, in table order (see [`kind_of`]).
const KINDS: [&str; 5] = ["limb", "hair/cloth", "face", "prop", "other"];
/// The artist's weight on the solver's dominant bone within this of the artist's largest: a
/// near miss.
const NEAR_MISS: f64 = 0.2;
/// Name keywords per kind ([`KINDS`] order, `other` has none). An ASCII keyword of four or
/// more letters matches a word of the name that starts with it; a shorter one the word itself
/// or its plural; a CJK keyword anywhere in the name. Words: the name split at anything but
/// letters and digits, at lower-to-upper case changes and between letters and digits.
const KEYWORDS: [&[&str]; 4] = [
    &[
        "arm", "forearm", "upperarm", "humerus", "radius", "hand", "finger", "paw", "claw", "leg",
        "hindleg", "foreleg", "thigh", "shin", "calf", "knee", "tibia", "femur", "foot", "feet",
        "toe", "tail", "wing", "neck", "body", "torso", "chest", "belly", "pelvis", "hip", "spine",
        "shoulder", "elbow", "bozi", "weiba", "chibang", "shou", "tui", "brazo", "pierna", "bras",
        "jambe", "pied", "queue", "aile", "corps", "bein", "fuss", "schwanz", "flugel", "手", "臂",
        "腿", "脚", "足", "尾", "翅", "身", "胸", "脖", "腕",
    ],
    &[
        "hair", "bang", "fringe", "pony", "braid", "pigtail", "plait", "mane", "cloth", "skirt",
        "dress", "cape", "cloak", "scarf", "sleeve", "coat", "jacket", "shirt", "robe", "ribbon",
        "strap", "belt", "collar", "tassel", "flame", "dangle", "pelo", "cabello", "cheveu",
        "haar", "toufa", "qunzi", "yifu", "xiuzi", "falda", "jupe", "capa", "manto", "发", "髪",
        "裙", "衣", "袖", "披", "带",
    ],
    &[
        "face", "head", "eye", "iris", "pupil", "lid", "eyelid", "lash", "brow", "mouth", "lip",
        "teeth", "tooth", "tongue", "jaw", "chin", "cheek", "nose", "ear", "beak", "horn", "crest",
        "blush", "beard", "tou", "lian", "zui", "cabeza", "cara", "ojo", "boca", "tete", "visage",
        "oeil", "bouche", "kopf", "gesicht", "auge", "mund", "头", "脸", "眼", "嘴", "眉", "鼻",
        "耳", "顔", "目", "口",
    ],
    &[
        "weapon", "sword", "blade", "spear", "lance", "axe", "gun", "rifle", "pistol", "arrow",
        "shield", "staff", "wand", "item", "cannon", "wheel", "antenna", "goggle", "glasses",
        "hat", "helmet", "mask", "crown", "bag", "pot", "wood", "branch", "stem", "leaf", "flower",
        "vine", "tree", "arma", "espada", "epee", "schwert", "waffe", "jian", "武器", "剑", "刀",
        "枪", "盾",
    ],
];
/// Words naming a control bone (matched as [`KEYWORDS`]).
const CONTROL_WORDS: [&str; 6] = ["control", "ctrl", "ctl", "target", "ik", "handle"];

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
    /// The solver whose disagreements are broken down (`best`, else the last solver).
    focus: String,
    /// The kinds of mesh, in table order.
    kinds: Vec<&'static str>,
    /// Per rig and kind of mesh: sums.
    rigs: Vec<RigKinds>,
    /// Every mesh with its kind and the rule that gave it.
    meshes: Vec<MeshKind>,
}

/// One rig's sums per kind of mesh.
#[derive(Serialize)]
struct RigKinds {
    rig: String,
    group: String,
    /// Where the rig comes from (the manifest's author up to its first parenthesis; the rig's
    /// name for a rig given on the command line).
    source: String,
    /// kind -> sums.
    kinds: BTreeMap<String, KindCell>,
}

/// A mesh, its kind and the rule that gave it.
#[derive(Serialize)]
struct MeshKind {
    rig: String,
    part: String,
    kind: String,
    rule: String,
    vertices: usize,
    bones: usize,
}

/// Sums over one rig's meshes of one kind. Per-solver vectors follow `Output::solvers`. "A"
/// is the artist's dominant bone (the first of its largest weights), "S" the focus solver's.
#[derive(Serialize, Clone)]
struct KindCell {
    meshes: usize,
    /// Meshes bound to one bone (every solver agrees on all of their vertices).
    one_bone_meshes: usize,
    /// Meshes with a control bone (a handle, or a bone named as a control).
    control_meshes: usize,
    /// Meshes with a bone outside the art (`outside near` or `outside far`).
    outside_meshes: usize,
    vertices: usize,
    /// (mesh, bone) pairs.
    pairs: usize,
    /// Per solver: vertices whose dominant bone agrees with the artist's.
    agree: Vec<usize>,
    /// Per solver: the one-bone deviations summed over the pairs.
    deviation_sum: Vec<f64>,
    /// Every vertex: the artist's row is one-hot (largest weight >= [`ONE_HOT`]), and the
    /// focus solver's.
    artist_one_hot: usize,
    focus_one_hot: usize,
    /// Every vertex: the artist's row is on the 0.05 paint grid, on the 0.25 grid.
    on_grid: usize,
    on_coarse_grid: usize,
    /// Every vertex: influences (weights > [`INFLUENCE`]), the artist's and the focus solver's.
    artist_influences: usize,
    focus_influences: usize,
    /// Every vertex: A is a control bone; S is one.
    artist_control: usize,
    focus_control: usize,
    /// Every vertex: A lies outside the art; S does.
    artist_outside: usize,
    focus_outside: usize,
    /// Vertices where no solver's dominant bone agrees with the artist's.
    none_agree: usize,
    /// Vertices where the focus solver disagrees, and of those:
    disagree: usize,
    /// A is a control bone and S is not; S is one and A is not.
    a_control_only: usize,
    s_control_only: usize,
    /// A is an ancestor of S (up the chain, towards the root), a descendant, a sibling (same
    /// parent, or both roots), or none of these.
    a_ancestor: usize,
    a_descendant: usize,
    a_sibling: usize,
    a_unrelated: usize,
    /// A lies outside the art and S does not; S outside and A not.
    a_outside_only: usize,
    s_outside_only: usize,
    /// The artist's row is one-hot.
    disagree_one_hot: usize,
    /// The artist's weight on S is within [`NEAR_MISS`] of its largest (a near tie).
    near_miss: usize,
    /// The artist's row is on the 0.05 paint grid.
    disagree_on_grid: usize,
}

impl KindCell {
    fn new(solvers: usize) -> KindCell {
        KindCell {
            meshes: 0,
            one_bone_meshes: 0,
            control_meshes: 0,
            outside_meshes: 0,
            vertices: 0,
            pairs: 0,
            agree: vec![0; solvers],
            deviation_sum: vec![0.0; solvers],
            artist_one_hot: 0,
            focus_one_hot: 0,
            on_grid: 0,
            on_coarse_grid: 0,
            artist_influences: 0,
            focus_influences: 0,
            artist_control: 0,
            focus_control: 0,
            artist_outside: 0,
            focus_outside: 0,
            none_agree: 0,
            disagree: 0,
            a_control_only: 0,
            s_control_only: 0,
            a_ancestor: 0,
            a_descendant: 0,
            a_sibling: 0,
            a_unrelated: 0,
            a_outside_only: 0,
            s_outside_only: 0,
            disagree_one_hot: 0,
            near_miss: 0,
            disagree_on_grid: 0,
        }
    }

    /// Adds `o`'s sums to this cell's.
    fn add(&mut self, o: &KindCell) {
        macro_rules! add {
            ($($f:ident),*) => { $( self.$f += o.$f; )* };
        }
        add!(
            meshes,
            one_bone_meshes,
            control_meshes,
            outside_meshes,
            vertices,
            pairs,
            artist_one_hot,
            focus_one_hot,
            on_grid,
            on_coarse_grid,
            artist_influences,
            focus_influences,
            artist_control,
            focus_control,
            artist_outside,
            focus_outside,
            none_agree,
            disagree,
            a_control_only,
            s_control_only,
            a_ancestor,
            a_descendant,
            a_sibling,
            a_unrelated,
            a_outside_only,
            s_outside_only,
            disagree_one_hot,
            near_miss,
            disagree_on_grid
        );
        for (a, b) in self.agree.iter_mut().zip(&o.agree) {
            *a += b;
        }
        for (a, b) in self.deviation_sum.iter_mut().zip(&o.deviation_sum) {
            *a += b;
        }
    }
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    main_with(|| run(&cli))
}

fn run(cli: &Cli) -> Res<()> {
    let (rigs, solvers, bar) = rigs_and_solvers(&cli.rigs, &cli.solvers, &DEFAULT_SOLVERS)?;
    if cli.list {
        bar.finish_and_clear();
        return list_meshes(&rigs);
    }
    let sources = manifest_sources();
    let focus = solvers
        .iter()
        .position(|n| n == "best")
        .unwrap_or(solvers.len() - 1);
    let mut out = Output {
        experiment: "artist_study",
        solvers: solvers.clone(),
        classes: BTreeMap::new(),
        shapes: BTreeMap::new(),
        ratio_bins: RATIO_BINS.to_vec(),
        focus: solvers[focus].clone(),
        kinds: KINDS.to_vec(),
        rigs: Vec::new(),
        meshes: Vec::new(),
    };
    for rig in &rigs {
        let cuts = cut_meshes(rig)?;
        let geometry: Vec<MeshGeometry> = cuts.iter().map(|(_, c)| MeshGeometry::of(c)).collect();
        let mut solved: Vec<(String, Weights)> = vec![("artist".into(), rig.artist.clone())];
        let each = solve_per_mesh_each(rig, &cuts, &solvers, &bar)?;
        solved.extend(solvers.iter().cloned().zip(each));
        let source = sources
            .get(&rig.name)
            .cloned()
            .unwrap_or_else(|| rig.name.clone());
        let mut rig_kinds = RigKinds {
            rig: rig.name.clone(),
            group: rig.fold.clone(),
            source,
            kinds: BTreeMap::new(),
        };
        for ((part, cut), geo) in cuts.iter().zip(&geometry) {
            let (kind, rule) = kind_of(part, cut, geo);
            out.meshes.push(MeshKind {
                rig: rig.name.clone(),
                part: part.clone(),
                kind: KINDS[kind].into(),
                rule: rule.into(),
                vertices: cut.vertices.len(),
                bones: cut.bones.len(),
            });
            // One-bone deviation per solver and bone of the cut (the artist's own: 0).
            let mut deviations = Vec::with_capacity(solved.len());
            for (name, weights) in &solved {
                deviations.push(if name == "artist" {
                    vec![0.0; cut.bones.len()]
                } else {
                    let mesh = ArtistMesh {
                        vertices: &cut.vertices,
                        bones: &cut.bones,
                    };
                    let options = ArtistScoreOptions::default();
                    score_against_artist(&rig.scene, weights, &rig.artist, mesh, &options)?
                        .one_bone_deviation_pct
                });
            }
            for ((name, weights), deviation) in solved.iter().zip(&deviations) {
                accumulate(&mut out, rig, cut, geo, name, weights, deviation);
            }
            let cell = rig_kinds
                .kinds
                .entry(KINDS[kind].into())
                .or_insert_with(|| KindCell::new(solvers.len()));
            accumulate_kind(cell, rig, cut, geo, &solved[1..], &deviations[1..], focus);
            if cli.mesh.as_deref() == Some(&format!("{}/{part}", rig.name)) {
                print_mesh(rig, cut, geo, &solved);
            }
        }
        out.rigs.push(rig_kinds);
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
    /// Per bone of the cut: a control bone (a handle, or named with a [`CONTROL_WORDS`] word).
    control: Vec<bool>,
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
        let control = bones
            .iter()
            .zip(&class)
            .map(|(bone, &(_, handle))| {
                handle || CONTROL_WORDS.iter().any(|k| matches_word(&bone.name, k))
            })
            .collect();
        MeshGeometry {
            class,
            control,
            distance,
        }
    }

    /// Whether a bone lies outside the art (`outside near` or `outside far`).
    fn outside(&self, b: usize) -> bool {
        self.class[b].0 >= 2
    }
}

/// The words of a name, lower case: split at anything but letters and digits, at
/// lower-to-upper case changes and between letters and digits.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut last: Option<char> = None;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            last = None;
            continue;
        }
        if let Some(l) = last {
            let case_change = l.is_lowercase() && c.is_uppercase();
            let digit_change = l.is_ascii_digit() != c.is_ascii_digit();
            if (case_change || digit_change) && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
        }
        word.extend(c.to_lowercase());
        last = Some(c);
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Whether `keyword` names `name` (the rule of [`KEYWORDS`]).
fn matches_word(name: &str, keyword: &str) -> bool {
    if !keyword.is_ascii() {
        return name.contains(keyword);
    }
    words(name).iter().any(|w| {
        if keyword.len() >= 4 {
            w.starts_with(keyword)
        } else {
            w == keyword || w.strip_suffix('s') == Some(keyword)
        }
    })
}

/// The kind a name gives ([`KEYWORDS`]), trying hair/cloth, face, prop, then limb.
fn kind_of_name(name: &str) -> Option<usize> {
    [1, 2, 3, 0]
        .into_iter()
        .find(|&k| KEYWORDS[k].iter().any(|w| matches_word(name, w)))
}

/// A mesh's kind (index into [`KINDS`]) and the rule that gave it, the first that applies:
/// 1. `part name`: its part name's keywords ([`kind_of_name`]);
/// 2. `root bone`: else the names of its root bones (bones with no ancestor among the mesh's);
/// 3. `chain`: else `limb` when two of its bones, a parent and its child, both non-handles,
///    cross the art (a chain running through it);
/// 4. `none`: else `other`.
fn kind_of(part: &str, cut: &SubScene, geo: &MeshGeometry) -> (usize, &'static str) {
    if let Some(k) = kind_of_name(part) {
        return (k, "part name");
    }
    let bones = cut.scene.skeleton().bones();
    let roots = bones
        .iter()
        .filter(|b| b.parent.is_none())
        .filter_map(|b| kind_of_name(&b.name))
        .min_by_key(|k| [1, 2, 3, 0].iter().position(|o| o == k));
    if let Some(k) = roots {
        return (k, "root bone");
    }
    let crossing = |b: usize| geo.class[b] == (0, false);
    let chain = bones
        .iter()
        .enumerate()
        .any(|(b, bone)| crossing(b) && bone.parent.is_some_and(crossing));
    if chain {
        (0, "chain")
    } else {
        (4, "none")
    }
}

/// Adds one mesh to its rig's cell of its kind: `solved` and `deviation` per solver (the
/// artist left out), `focus` the solver whose disagreements are broken down.
fn accumulate_kind(
    cell: &mut KindCell,
    rig: &Rig,
    cut: &SubScene,
    geo: &MeshGeometry,
    solved: &[(String, Weights)],
    deviation: &[Vec<f64>],
    focus: usize,
) {
    let skeleton = cut.scene.skeleton();
    let n = cut.bones.len();
    cell.meshes += 1;
    cell.one_bone_meshes += usize::from(n == 1);
    cell.control_meshes += usize::from(geo.control.iter().any(|&c| c));
    cell.outside_meshes += usize::from((0..n).any(|b| geo.outside(b)));
    cell.vertices += cut.vertices.len();
    cell.pairs += n;
    for (sum, d) in cell.deviation_sum.iter_mut().zip(deviation) {
        *sum += d.iter().sum::<f64>();
    }
    let argmax =
        |row: &[f64]| (0..row.len()).fold(0, |best, j| if row[j] > row[best] { j } else { best });
    let step = |w: f64, s: f64| (w / s - (w / s).round()).abs() < 1e-3;
    for &v in &cut.vertices {
        let art: Vec<f64> = cut.bones.iter().map(|&b| rig.artist.get(v, b)).collect();
        let rows: Vec<Vec<f64>> = solved
            .iter()
            .map(|(_, w)| cut.bones.iter().map(|&b| w.get(v, b)).collect())
            .collect();
        let mut any = false;
        for (k, row) in rows.iter().enumerate() {
            let agrees = dominant_agrees(row, &art);
            cell.agree[k] += usize::from(agrees);
            any |= agrees;
        }
        cell.none_agree += usize::from(!any);
        let row = &rows[focus];
        let top = art.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let a = (0..n).find(|&b| art[b] >= top).unwrap_or(0);
        let s = argmax(row);
        let one_hot = top >= ONE_HOT;
        let on_grid = art.iter().all(|&w| step(w, PAINT_STEP));
        cell.artist_one_hot += usize::from(one_hot);
        cell.focus_one_hot += usize::from(row[s] >= ONE_HOT);
        cell.on_grid += usize::from(on_grid);
        cell.on_coarse_grid += usize::from(art.iter().all(|&w| step(w, 0.25)));
        cell.artist_influences += art.iter().filter(|&&w| w > INFLUENCE).count();
        cell.focus_influences += row.iter().filter(|&&w| w > INFLUENCE).count();
        cell.artist_control += usize::from(geo.control[a]);
        cell.focus_control += usize::from(geo.control[s]);
        cell.artist_outside += usize::from(geo.outside(a));
        cell.focus_outside += usize::from(geo.outside(s));
        if dominant_agrees(row, &art) {
            continue;
        }
        cell.disagree += 1;
        cell.a_control_only += usize::from(geo.control[a] && !geo.control[s]);
        cell.s_control_only += usize::from(geo.control[s] && !geo.control[a]);
        let bones = skeleton.bones();
        if skeleton.is_ancestor_or_self(a, s) {
            cell.a_ancestor += 1;
        } else if skeleton.is_ancestor_or_self(s, a) {
            cell.a_descendant += 1;
        } else if bones[a].parent == bones[s].parent {
            cell.a_sibling += 1;
        } else {
            cell.a_unrelated += 1;
        }
        cell.a_outside_only += usize::from(geo.outside(a) && !geo.outside(s));
        cell.s_outside_only += usize::from(geo.outside(s) && !geo.outside(a));
        cell.disagree_one_hot += usize::from(one_hot);
        cell.near_miss += usize::from(art[s] >= top - NEAR_MISS);
        cell.disagree_on_grid += usize::from(on_grid);
    }
}

/// `--list`: every mesh with its kind, rule, vertices and bones (name, length over the
/// mesh's height, class; `c` marks a control bone).
fn list_meshes(rigs: &[Rig]) -> Res<()> {
    for rig in rigs {
        for (part, cut) in cut_meshes(rig)? {
            let geo = MeshGeometry::of(&cut);
            let (kind, rule) = kind_of(&part, &cut, &geo);
            let h = cut.scene.mesh().height().max(f64::MIN_POSITIVE);
            let bones: Vec<String> = cut
                .scene
                .skeleton()
                .bones()
                .iter()
                .enumerate()
                .map(|(b, bone)| {
                    format!(
                        "{} {:.2} {}{}",
                        bone.name,
                        bone.length() / h,
                        CLASSES[geo.class[b].0],
                        if geo.control[b] { " c" } else { "" }
                    )
                })
                .collect();
            println!(
                "{}\t{}\t{}\t{} ({})\t{} vertices\t{}",
                rig.name,
                rig.fold,
                part,
                KINDS[kind],
                rule,
                cut.vertices.len(),
                bones.join(", ")
            );
        }
    }
    Ok(())
}

/// Rig name -> source (the manifest's author up to its first parenthesis); empty when the
/// manifest cannot be read.
fn manifest_sources() -> BTreeMap<String, String> {
    let path = common::repo_root().join(common::rigs::MANIFEST);
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeMap::new();
    };
    let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
        return BTreeMap::new();
    };
    json["rigs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| {
            let name = r["name"].as_str()?;
            let author = r["author"].as_str()?;
            let source = author.split(" (").next().unwrap_or(author).trim();
            Some((name.to_string(), source.to_string()))
        })
        .collect()
}

fn accumulate(
    out: &mut Output,
    rig: &Rig,
    cut: &SubScene,
    geo: &MeshGeometry,
    name: &str,
    weights: &Weights,
    deviation: &[f64],
) {
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
    s.push_str(&kinds_md(out));
    let names: Vec<String> = std::iter::once("artist".to_string())
        .chain(out.solvers.iter().cloned())
        .collect();
    for group in GROUPS {
        let Some(classes) = out.classes.get(group) else {
            continue;
        };
        let _ = writeln!(s, "\n## By where the bone lies: {group}\n\nBy where the bone lies (pairs: (mesh, bone); weight: the bone's mean weight over its mesh; deviation: one-bone, % of the mesh diagonal; agreement: on the vertices whose artist-dominant bone is of the class):\n");
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

/// The rigs of `group` (`all`: every rig).
fn rigs_of<'a>(out: &'a Output, group: &'a str) -> impl Iterator<Item = &'a RigKinds> + 'a {
    out.rigs
        .iter()
        .filter(move |r| group == "all" || r.group == group)
}

/// `a / b` as a percentage with one decimal, `-` when `b` is 0, for floats.
fn pctf(a: f64, b: f64) -> String {
    if b == 0.0 {
        "-".into()
    } else {
        format!("{:.1}", 100.0 * a / b)
    }
}

/// The mean of `values` with one decimal (`-` when empty).
fn mean_str(values: &[f64]) -> String {
    if values.is_empty() {
        "-".into()
    } else {
        format!("{:.1}", values.iter().sum::<f64>() / values.len() as f64)
    }
}

/// How many rigs (and sources) lean one way or the other on a pattern, from per-rig counts
/// `(this way, other way)`: `rigs this way / other way / even`, the sources this way / other
/// way, and the largest rig's share of the "this way" vertices.
fn direction(rigs: &[(&RigKinds, f64, f64)]) -> String {
    let (mut this, mut that, mut even) = (0, 0, 0);
    let mut this_sources = std::collections::BTreeSet::new();
    let mut that_sources = std::collections::BTreeSet::new();
    let total: f64 = rigs.iter().map(|r| r.1).sum();
    let top = rigs.iter().map(|r| r.1).fold(0.0, f64::max);
    let top_rig = rigs
        .iter()
        .find(|r| r.1 == top && top > 0.0)
        .map(|r| r.0.rig.as_str())
        .unwrap_or("-");
    for (r, a, b) in rigs {
        if a > b {
            this += 1;
            this_sources.insert(r.source.as_str());
        } else if b > a {
            that += 1;
            that_sources.insert(r.source.as_str());
        } else {
            even += 1;
        }
    }
    format!(
        "{this} / {that} / {even} | {} / {} | {} ({top_rig})",
        this_sources.len(),
        that_sources.len(),
        pctf(top, total)
    )
}

/// The per-kind part of the study: kinds, agreement and deviation per solver, what the artist
/// did where the focus solver disagrees, per rig, and the direction of each pattern across
/// rigs.
fn kinds_md(out: &Output) -> String {
    let mut s = String::new();
    let f = &out.focus;
    let _ = writeln!(s, "\n## By kind of mesh\n");
    let _ = writeln!(s, "A mesh's kind is the first rule that applies: (1) `part name`: a keyword of its part (attachment, slot, polygon or region) name: hair/cloth first, then face, prop, limb (keywords in `experiments/artist_study.rs`, `KEYWORDS`; several languages); (2) `root bone`: else the same keywords in the names of its root bones (those with no ancestor among its bones); (3) `chain`: else `limb` when a parent and its child, both longer than 0.04 of the mesh's height, cross the art; (4) else `other`. A control bone is a handle (no longer than 0.04 of the mesh's height) or a bone named with control, ctrl, ctl, target, ik or handle. A is the artist's dominant bone at a vertex, S the dominant bone of `{f}`.");
    for group in GROUPS {
        let rigs: Vec<&RigKinds> = rigs_of(out, group).collect();
        if rigs.is_empty() {
            continue;
        }
        let _ = writeln!(s, "\n### Group `{group}` ({} rigs)\n", rigs.len());
        let pooled = |kind: &str| {
            let mut c = KindCell::new(out.solvers.len());
            for r in &rigs {
                if let Some(k) = r.kinds.get(kind) {
                    c.add(k);
                }
            }
            c
        };
        let with = |kind: &str| -> Vec<&RigKinds> {
            rigs.iter()
                .copied()
                .filter(|r| r.kinds.get(kind).is_some_and(|c| c.vertices > 0))
                .collect()
        };
        // Kinds.
        let _ = writeln!(s, "Meshes per kind, and the rule that gave the kind:\n");
        let _ = writeln!(s, "| kind | meshes (one-bone) | by part name / root bone / chain / none | vertices | rigs | sources | meshes with a control bone | with a bone outside the art |");
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
        for kind in KINDS {
            let c = pooled(kind);
            if c.meshes == 0 {
                continue;
            }
            let rules: Vec<String> = ["part name", "root bone", "chain", "none"]
                .iter()
                .map(|rule| {
                    out.meshes
                        .iter()
                        .filter(|m| m.kind == kind && m.rule == *rule)
                        .filter(|m| rigs.iter().any(|r| r.rig == m.rig))
                        .count()
                        .to_string()
                })
                .collect();
            let k_rigs = with(kind);
            let sources: std::collections::BTreeSet<&str> =
                k_rigs.iter().map(|r| r.source.as_str()).collect();
            let _ = writeln!(
                s,
                "| {kind} | {} ({}) | {} | {} | {} | {} | {} | {} |",
                c.meshes,
                c.one_bone_meshes,
                rules.join(" / "),
                c.vertices,
                k_rigs.len(),
                sources.len(),
                c.control_meshes,
                c.outside_meshes
            );
        }
        // Agreement and deviation per solver.
        let header = &out.solvers;
        let _ = writeln!(s, "\nDominant-bone agreement (%), mean over the rigs that have the kind / pooled over vertices:\n");
        let _ = writeln!(s, "| kind | rigs | vertices | {} |", header.join(" | "));
        let _ = writeln!(s, "|---|---|---|{}", "---|".repeat(header.len()));
        for kind in KINDS {
            let c = pooled(kind);
            if c.vertices == 0 {
                continue;
            }
            let k_rigs = with(kind);
            let _ = write!(s, "| {kind} | {} | {} |", k_rigs.len(), c.vertices);
            for k in 0..out.solvers.len() {
                let per_rig: Vec<f64> = k_rigs
                    .iter()
                    .map(|r| {
                        let x = &r.kinds[kind];
                        100.0 * x.agree[k] as f64 / x.vertices as f64
                    })
                    .collect();
                let _ = write!(
                    s,
                    " {} / {} |",
                    mean_str(&per_rig),
                    pct(c.agree[k], c.vertices)
                );
            }
            s.push('\n');
        }
        let _ = writeln!(s, "\nOne-bone deviation (% of the mesh diagonal), mean over rigs (each rig's mean over its (mesh, bone) pairs) / pooled over pairs:\n");
        let _ = writeln!(s, "| kind | rigs | pairs | {} |", header.join(" | "));
        let _ = writeln!(s, "|---|---|---|{}", "---|".repeat(header.len()));
        for kind in KINDS {
            let c = pooled(kind);
            if c.pairs == 0 {
                continue;
            }
            let k_rigs = with(kind);
            let _ = write!(s, "| {kind} | {} | {} |", k_rigs.len(), c.pairs);
            for k in 0..out.solvers.len() {
                let per_rig: Vec<f64> = k_rigs
                    .iter()
                    .map(|r| {
                        let x = &r.kinds[kind];
                        x.deviation_sum[k] / x.pairs.max(1) as f64
                    })
                    .collect();
                let per_rig_mean = per_rig.iter().sum::<f64>() / per_rig.len().max(1) as f64;
                let _ = write!(
                    s,
                    " {per_rig_mean:.2} / {:.2} |",
                    c.deviation_sum[k] / c.pairs as f64
                );
            }
            s.push('\n');
        }
        // What the artist did instead.
        let _ = writeln!(s, "\nWhere `{f}` disagrees, what the artist did instead (pooled; % of the disagreeing vertices; near miss: the artist's weight on S is within {NEAR_MISS} of its largest):\n");
        let _ = writeln!(s, "| kind | disagreeing (% of the kind's vertices) | no solver agrees (% of the kind's vertices) | near miss | A control, S not / S control, A not | A ancestor / descendant / sibling / unrelated of S | A outside the art, S not / S outside, A not | artist's row one-hot | artist's row on the 0.05 grid |");
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
        for kind in KINDS {
            let c = pooled(kind);
            if c.vertices == 0 {
                continue;
            }
            let d = c.disagree;
            let _ = writeln!(
                s,
                "| {kind} | {d} ({}) | {} ({}) | {} | {} / {} | {} / {} / {} / {} | {} / {} | {} | {} |",
                pct(d, c.vertices),
                c.none_agree,
                pct(c.none_agree, c.vertices),
                pct(c.near_miss, d),
                pct(c.a_control_only, d),
                pct(c.s_control_only, d),
                pct(c.a_ancestor, d),
                pct(c.a_descendant, d),
                pct(c.a_sibling, d),
                pct(c.a_unrelated, d),
                pct(c.a_outside_only, d),
                pct(c.s_outside_only, d),
                pct(c.disagree_one_hot, d),
                pct(c.disagree_on_grid, d)
            );
        }
        let _ = writeln!(s, "\nThe artist's weights next to `{f}`'s on every vertex of the kind (one-hot: largest weight >= {ONE_HOT}; influences: weights > {INFLUENCE} per vertex):\n");
        let _ = writeln!(s, "| kind | one-hot %: artist / {f} | influences: artist / {f} | artist's rows on the 0.05 / 0.25 grid % | dominant bone a control bone %: artist / {f} | dominant bone outside the art %: artist / {f} |");
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        for kind in KINDS {
            let c = pooled(kind);
            if c.vertices == 0 {
                continue;
            }
            let v = c.vertices;
            let _ = writeln!(
                s,
                "| {kind} | {} / {} | {:.2} / {:.2} | {} / {} | {} / {} | {} / {} |",
                pct(c.artist_one_hot, v),
                pct(c.focus_one_hot, v),
                c.artist_influences as f64 / v as f64,
                c.focus_influences as f64 / v as f64,
                pct(c.on_grid, v),
                pct(c.on_coarse_grid, v),
                pct(c.artist_control, v),
                pct(c.focus_control, v),
                pct(c.artist_outside, v),
                pct(c.focus_outside, v)
            );
        }
        // Per rig.
        let fi = out.solvers.iter().position(|n| n == f).unwrap_or(0);
        let _ = writeln!(
            s,
            "\nPer rig and kind (`{f}`; counts of disagreeing vertices):\n"
        );
        let _ = writeln!(s, "| kind | rig | source | meshes | vertices | agreement % | disagreeing | A control, S not / S control, A not | A ancestor / descendant of S | A outside, S not / S outside, A not | one-hot %: artist / {f} | near misses | artist's rows on the 0.05 grid % |");
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for kind in KINDS {
            for r in with(kind) {
                let c = &r.kinds[kind];
                let _ = writeln!(
                    s,
                    "| {kind} | {} | {} | {} | {} | {} | {} | {} / {} | {} / {} | {} / {} | {} / {} | {} | {} |",
                    r.rig,
                    r.source,
                    c.meshes,
                    c.vertices,
                    pct(c.agree[fi], c.vertices),
                    c.disagree,
                    c.a_control_only,
                    c.s_control_only,
                    c.a_ancestor,
                    c.a_descendant,
                    c.a_outside_only,
                    c.s_outside_only,
                    pct(c.artist_one_hot, c.vertices),
                    pct(c.focus_one_hot, c.vertices),
                    c.near_miss,
                    pct(c.on_grid, c.vertices)
                );
            }
        }
        // Direction across rigs.
        let _ = writeln!(s, "\nDoes a pattern hold across rigs? Per kind, the rigs (and sources) where the artist leans the named way against `{f}`, the other way, or neither; and the largest rig's share of the named way's vertices (one rig carrying most of a pattern is one artist's choice):\n");
        let _ = writeln!(s, "| pattern | kind | rigs: this way / other way / even | sources: this way / other way | largest rig's share % |");
        let _ = writeln!(s, "|---|---|---|---|---|");
        type Pick = fn(&KindCell) -> (f64, f64);
        let patterns: [(&str, Pick); 5] = [
            (
                "where they disagree, A is a control bone (other way: S is)",
                |c| (c.a_control_only as f64, c.s_control_only as f64),
            ),
            (
                "where they disagree, A is an ancestor of S (other way: a descendant)",
                |c| (c.a_ancestor as f64, c.a_descendant as f64),
            ),
            (
                "where they disagree, A lies outside the art (other way: S does)",
                |c| (c.a_outside_only as f64, c.s_outside_only as f64),
            ),
            (
                "more one-hot rows than the solver (other way: fewer; even within 2 points)",
                |c| {
                    let v = c.vertices.max(1) as f64;
                    let d = (c.artist_one_hot as f64 - c.focus_one_hot as f64) / v;
                    if d.abs() < 0.02 {
                        (0.0, 0.0)
                    } else if d > 0.0 {
                        (c.artist_one_hot as f64 - c.focus_one_hot as f64, 0.0)
                    } else {
                        (0.0, c.focus_one_hot as f64 - c.artist_one_hot as f64)
                    }
                },
            ),
            (
                "fewer influences per vertex than the solver (other way: more; even within 0.1)",
                |c| {
                    let v = c.vertices.max(1) as f64;
                    let d = (c.focus_influences as f64 - c.artist_influences as f64) / v;
                    if d.abs() < 0.1 {
                        (0.0, 0.0)
                    } else if d > 0.0 {
                        (d * v, 0.0)
                    } else {
                        (0.0, -d * v)
                    }
                },
            ),
        ];
        for (name, pick) in patterns {
            for kind in KINDS {
                let rows: Vec<(&RigKinds, f64, f64)> = with(kind)
                    .into_iter()
                    .map(|r| {
                        let (a, b) = pick(&r.kinds[kind]);
                        (r, a, b)
                    })
                    .collect();
                if rows.is_empty() {
                    continue;
                }
                let _ = writeln!(s, "| {name} | {kind} | {} |", direction(&rows));
            }
        }
    }
    // The meshes per kind, to check the rule.
    let _ = writeln!(
        s,
        "\n### The meshes of each kind (rule other than the part name in brackets)\n"
    );
    for kind in KINDS {
        let names: Vec<String> = out
            .meshes
            .iter()
            .filter(|m| m.kind == kind)
            .map(|m| {
                if m.rule == "part name" {
                    format!("{}/{}", m.rig, m.part)
                } else {
                    format!("{}/{} ({})", m.rig, m.part, m.rule)
                }
            })
            .collect();
        if !names.is_empty() {
            let _ = writeln!(s, "- **{kind}** ({}): {}", names.len(), names.join(", "));
        }
    }
    s
}
