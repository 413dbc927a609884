//! Built-in scene generators: `arms-down`, `arms-touching`, `layered-arms`, `layered-elbow`,
//! `bar`, `figure`.
//!
//! Every scene is left-right (or, for `bar`, top-bottom) symmetric, and its mesh is *exactly*
//! symmetric: we mesh the half on the non-negative side of the mirror axis, with the axis as
//! part of its outline, and add the mirror image with reversed winding, sharing the vertices on
//! the axis. So every vertex (x, y) has a partner at exactly (-x, y), mirrored vertices carry
//! mirrored part labels and mirrored bones, and symmetric solvers can be tested for symmetric
//! weights to the last bit (see [`mirror_vertex_map`]).
//!
//! Bones are inserted as constraint segments, so vertices lie on every bone and the bone is
//! covered by mesh edges. Bones on the axis (spine, bar bones) lie along the half's seam edge.

use super::{Probe, Scene, Watch};
use crate::error::{ArgumentError, MeshError, MeshingProblem, Result, SceneError};
use crate::mesh::{calibrate_max_area, mesh_outline, Mesh, MeshArrays, MeshingOptions, Outline};
use crate::skeleton::{Bone, Pose, Skeleton};
use nalgebra::Point2;
use std::collections::HashMap;

/// Names of the built-in scenes.
pub const BUILTIN_SCENES: &[&str] = &[
    "arms-down",
    "arms-touching",
    "layered-arms",
    "layered-elbow",
    "bar",
    "figure",
];

/// Default gap between arms and torso in `arms-down` and `layered-arms`.
pub const DEFAULT_GAP: f64 = 12.0;

/// Minimum angle (degrees) the built-in meshes are refined to.
pub const BUILTIN_MIN_ANGLE_DEG: f64 = 28.0;

/// Smallest and largest accepted [`BuiltinOptions::vertices`].
const VERTEX_RANGE: (usize, usize) = (500, 5_000_000);
/// Largest accepted gap: far beyond any useful scene, small enough to keep the mesh sane.
const MAX_GAP: f64 = 1000.0;
/// Largest accepted `layered-elbow` overlap: half the upper arm.
const MAX_OVERLAP: f64 = 50.0;

/// Options of the built-in generators.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BuiltinOptions {
    /// Gap between arms and torso (default `None`: [`DEFAULT_GAP`] for arms-down and
    /// layered-arms). `arms-touching` is the gap-0 scene and rejects any other value; `bar`
    /// and `figure` ignore it.
    pub gap: Option<f64>,
    /// Approximate vertex count of the whole mesh (default [`Self::DEFAULT_VERTICES`],
    /// 10 000; accepted 500 to 5 000 000, what meshing, topology and a solve fit in memory:
    /// 20 000 000 ran out of memory after 34 s). The result is within 10% (measured: within
    /// 4% from 500 up) unless the scene's thinnest feature needs more vertices for a
    /// 28-degree quality mesh: a gap of 0.5 needs about 5000.
    pub vertices: usize,
    /// How far (px) the forearm layer of `layered-elbow` reaches under the upper arm
    /// (default `None`: 0, the layers' contours touch exactly, the crack at the elbow;
    /// accepted 0..=50). The other scenes reject any other value than 0.
    pub overlap: Option<f64>,
}

impl Default for BuiltinOptions {
    fn default() -> Self {
        BuiltinOptions {
            gap: None,
            vertices: Self::DEFAULT_VERTICES,
            overlap: None,
        }
    }
}

impl BuiltinOptions {
    /// Default [`Self::vertices`]: 10 000.
    pub const DEFAULT_VERTICES: usize = 10_000;

    /// These options with the gap `gap` between arms and torso (`None`: the scene's own).
    pub fn with_gap(mut self, gap: Option<f64>) -> Self {
        self.gap = gap;
        self
    }

    /// These options with about `vertices` vertices in the whole mesh.
    pub fn with_vertices(mut self, vertices: usize) -> Self {
        self.vertices = vertices;
        self
    }

    /// These options with the forearm layer of `layered-elbow` reaching `overlap` px under
    /// the upper arm (`None`: 0).
    pub fn with_overlap(mut self, overlap: Option<f64>) -> Self {
        self.overlap = overlap;
        self
    }
}

/// The line a built-in scene is mirrored about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MirrorAxis {
    /// Mirror x -> -x (about the line x = 0): the characters.
    X,
    /// Mirror y -> -y (about the line y = 0): the bar.
    Y,
}

impl MirrorAxis {
    /// The mirror image of `p` (exact: only a sign changes).
    pub fn apply(self, p: Point2<f64>) -> Point2<f64> {
        match self {
            MirrorAxis::X => Point2::new(-p.x, p.y),
            MirrorAxis::Y => Point2::new(p.x, -p.y),
        }
    }

    /// The coordinate the mirror negates.
    fn coord(self, p: Point2<f64>) -> f64 {
        match self {
            MirrorAxis::X => p.x,
            MirrorAxis::Y => p.y,
        }
    }
}

/// For a mesh symmetric about x = 0: the index of each vertex's mirror image (a vertex on the
/// axis is its own mirror). `None` when some vertex has no exact mirror partner or two vertices
/// share a position (then partners are ambiguous).
pub fn mirror_vertex_map(mesh: &Mesh) -> Option<Vec<usize>> {
    mirror_vertex_map_about(mesh, MirrorAxis::X)
}

/// Like [`mirror_vertex_map`], about the given axis (`bar` is symmetric about y = 0).
pub fn mirror_vertex_map_about(mesh: &Mesh, axis: MirrorAxis) -> Option<Vec<usize>> {
    // Adding +0.0 turns -0.0 into +0.0, so the two zeros hash alike.
    let key = |p: Point2<f64>| ((p.x + 0.0).to_bits(), (p.y + 0.0).to_bits());
    let mut at: HashMap<(u64, u64), usize> = HashMap::with_capacity(mesh.vertex_count());
    for (i, &p) in mesh.vertices().iter().enumerate() {
        if at.insert(key(p), i).is_some() {
            return None;
        }
    }
    mesh.vertices()
        .iter()
        .map(|&p| at.get(&key(axis.apply(p))).copied())
        .collect()
}

/// Generates the built-in scene `name` (one of [`BUILTIN_SCENES`]).
///
/// Errors: unknown name, a vertex count outside 500..=5 000 000, a gap that is negative,
/// non-finite or above 1000 (or non-zero for `arms-touching`), and meshing failures.
pub fn builtin_scene(name: &str, options: &BuiltinOptions) -> Result<Scene> {
    let (lo, hi) = VERTEX_RANGE;
    if !(lo..=hi).contains(&options.vertices) {
        return Err(ArgumentError::InvalidArgument {
            argument: "vertices",
            value: options.vertices.to_string(),
            reason: format!("{} is outside {lo}..={hi}", options.vertices),
        }
        .into());
    }
    if let Some(g) = options.gap {
        if !g.is_finite() || !(0.0..=MAX_GAP).contains(&g) {
            return Err(ArgumentError::InvalidArgument {
                argument: "gap",
                value: g.to_string(),
                reason: format!("{g} must be finite and in 0..={MAX_GAP}"),
            }
            .into());
        }
    }
    let gap = options.gap.unwrap_or(DEFAULT_GAP);
    let overlap = options.overlap.unwrap_or(0.0);
    if !overlap.is_finite() || !(0.0..=MAX_OVERLAP).contains(&overlap) {
        return Err(ArgumentError::InvalidArgument {
            argument: "overlap",
            value: overlap.to_string(),
            reason: format!("{overlap} must be finite and in 0..={MAX_OVERLAP}"),
        }
        .into());
    }
    if overlap != 0.0 && name != "layered-elbow" {
        return Err(ArgumentError::InvalidArgument {
            argument: "overlap",
            value: overlap.to_string(),
            reason: format!("only layered-elbow has an overlap, not {name:?}"),
        }
        .into());
    }
    let spec = match name {
        "arms-down" => arms_down(gap),
        "arms-touching" => {
            if options.gap.is_some_and(|g| g != 0.0) {
                return Err(ArgumentError::InvalidArgument {
                    argument: "gap",
                    value: gap.to_string(),
                    reason: "arms-touching is the gap-0 scene; use arms-down for other gaps".into(),
                }
                .into());
            }
            arms_down(0.0)
        }
        "layered-arms" => layered_arms(gap),
        "layered-elbow" => layered_elbow(overlap),
        "bar" => bar(),
        "figure" => figure(),
        _ => {
            return Err(SceneError::UnknownBuiltin {
                name: name.to_string(),
                known: BUILTIN_SCENES.join(", "),
            }
            .into())
        }
    };
    build(name, spec, options.vertices)
}

/// The full arms-down outline of docs/scenes.md with the five bones as segments (the generator
/// meshes half of it; this is for users and tests that want the whole shape, e.g. its area
/// `100*200 + 2*30*180 + 2*g*20`: torso, arms, and the shoulder bridges over the gaps).
pub fn arms_down_outline(gap: f64) -> Outline {
    let g = gap;
    let right = arms_down_right_side(g);
    // docs/scenes.md's loop, counter-clockwise: the right side, then its mirror image walked back.
    let mut outline = right.clone();
    outline.extend(right.iter().rev().map(|&(x, y)| (-x, y)));
    Outline {
        loops: vec![pts(&outline)],
        segments: arms_down_bones(g)
            .iter()
            .map(|b| [b.head, b.tail])
            .collect(),
    }
}

/// The right side (x >= 50) of docs/scenes.md's arms-down outline, bottom of the torso to the top
/// of the arm: shared by the full outline and the meshed half.
fn arms_down_right_side(g: f64) -> Vec<(f64, f64)> {
    vec![
        (50.0, 0.0),
        (50.0, 180.0),
        (50.0 + g, 180.0),
        (50.0 + g, 20.0),
        (80.0 + g, 20.0),
        (80.0 + g, 200.0),
    ]
}

// ---------------------------------------------------------------------------------------------
// The generic part: a scene is a few mirrored pieces plus bones, parts and probes.

/// A region meshed on the non-negative side of `axis` and mirrored.
struct Piece {
    /// The half: loops on the non-negative side (touching the axis along a seam edge, or
    /// not at all) and the bone segments inside it.
    half: Outline,
    axis: MirrorAxis,
    /// Part index of a vertex of this piece (either half), from its position.
    label: Box<dyn Fn(Point2<f64>) -> usize>,
}

struct Spec {
    parts: Vec<&'static str>,
    pieces: Vec<Piece>,
    bones: Vec<Bone>,
    probes: Vec<Probe>,
}

fn build(name: &str, spec: Spec, target_vertices: usize) -> Result<Scene> {
    let total_area: f64 = spec.pieces.iter().map(|p| 2.0 * p.half.area()).sum();
    let perimeter: f64 = spec.pieces.iter().map(|p| 2.0 * p.half.perimeter()).sum();
    // One area bound for every piece, so the density is uniform across the scene; calibrated
    // on the vertex count of the final (mirrored, merged) mesh.
    let run = |max_area: f64| -> Result<(MeshParts, usize)> {
        let mut out = MeshParts::default();
        for piece in &spec.pieces {
            let options = MeshingOptions::default()
                .with_max_area(Some(max_area))
                .with_min_angle_deg(BUILTIN_MIN_ANGLE_DEG);
            let (v, t, _) = mesh_outline(&piece.half, &options)?;
            let (v, t) = mirror_half(v, t, piece.axis)?;
            out.append(v, t, &piece.label);
        }
        let n = out.vertices.len();
        Ok((out, n))
    };
    let (mesh, _, _) = calibrate_max_area(target_vertices, total_area, perimeter, run)?;
    let parts = spec.parts.iter().map(|s| s.to_string()).collect();
    let mesh = Mesh::with_parts(mesh.vertices, mesh.triangles, parts, mesh.labels)?;
    let skeleton = Skeleton::new(spec.bones)?;
    Scene::new(name, mesh, skeleton, spec.probes)
}

/// Raw mesh arrays being assembled from pieces.
#[derive(Default)]
struct MeshParts {
    vertices: Vec<Point2<f64>>,
    triangles: Vec<[usize; 3]>,
    labels: Vec<usize>,
}

impl MeshParts {
    fn append(
        &mut self,
        v: Vec<Point2<f64>>,
        t: Vec<[usize; 3]>,
        label: &dyn Fn(Point2<f64>) -> usize,
    ) {
        let off = self.vertices.len();
        self.labels.extend(v.iter().map(|&p| label(p)));
        self.vertices.extend(v);
        self.triangles
            .extend(t.into_iter().map(|tri| tri.map(|i| i + off)));
    }
}

/// Adds the mirror image of a half mesh: vertices on the axis are shared, the others copied
/// with the mirrored coordinate negated, and mirrored triangles get reversed winding so they
/// stay counter-clockwise.
fn mirror_half(
    mut vertices: Vec<Point2<f64>>,
    triangles: Vec<[usize; 3]>,
    axis: MirrorAxis,
) -> Result<MeshArrays> {
    let n = vertices.len();
    let mut partner = Vec::with_capacity(n);
    for i in 0..n {
        let c = axis.coord(vertices[i]);
        if c == 0.0 {
            // Normalise -0.0 so the seam vertex is bit-identical to its own mirror.
            match axis {
                MirrorAxis::X => vertices[i].x = 0.0,
                MirrorAxis::Y => vertices[i].y = 0.0,
            }
            partner.push(i);
        } else if c > 0.0 {
            partner.push(vertices.len());
            vertices.push(axis.apply(vertices[i]));
        } else {
            return Err(MeshError::Meshing {
                problem: MeshingProblem::MirrorWrongSide {
                    vertex: i,
                    x: vertices[i].x,
                    y: vertices[i].y,
                },
            }
            .into());
        }
    }
    let mut out = Vec::with_capacity(2 * triangles.len());
    out.extend_from_slice(&triangles);
    out.extend(
        triangles
            .iter()
            .map(|&[a, b, c]| [partner[a], partner[c], partner[b]]),
    );
    Ok((vertices, out))
}

fn pts(list: &[(f64, f64)]) -> Vec<Point2<f64>> {
    list.iter().map(|&(x, y)| Point2::new(x, y)).collect()
}

fn bone(name: &str, head: (f64, f64), tail: (f64, f64), part: &str) -> Bone {
    Bone::new(
        name,
        Point2::new(head.0, head.1),
        Point2::new(tail.0, tail.1),
    )
    .with_part(part)
}

/// Segments of the bones lying in the closed half-plane on the non-negative side of `axis`.
fn half_segments(bones: &[Bone], axis: MirrorAxis) -> Vec<[Point2<f64>; 2]> {
    bones
        .iter()
        .filter(|b| axis.coord(b.head) >= 0.0 && axis.coord(b.tail) >= 0.0)
        .map(|b| [b.head, b.tail])
        .collect()
}

fn watch_part(part: &str) -> Watch {
    Watch {
        part: Some(part.into()),
        ..Watch::default()
    }
}

fn probe(name: &str, bone: &str, degrees: f64, watch: Watch) -> Probe {
    Probe {
        name: name.into(),
        pose: Pose::rest().rotate(bone, degrees),
        watch,
    }
}

// ---------------------------------------------------------------------------------------------
// The scenes.

/// arms-down bones in file order: spine, upper_arm_l, forearm_l, upper_arm_r, forearm_r.
fn arms_down_bones(g: f64) -> Vec<Bone> {
    let x = 65.0 + g;
    vec![
        bone("spine", (0.0, 10.0), (0.0, 190.0), "torso"),
        bone("upper_arm_l", (-x, 190.0), (-x, 105.0), "arm_l").with_parent(0),
        bone("forearm_l", (-x, 105.0), (-x, 25.0), "arm_l").with_parent(1),
        bone("upper_arm_r", (x, 190.0), (x, 105.0), "arm_r").with_parent(0),
        bone("forearm_r", (x, 105.0), (x, 25.0), "arm_r").with_parent(3),
    ]
}

/// The lift probes shared by arms-down and layered-arms: the upper arm swings out to
/// horizontal; torso vertices more than two arm widths below the armpit must stay put.
fn lift_probes() -> Vec<Probe> {
    let watch = Watch {
        part: Some("torso".into()),
        below_y: Some(120.0),
        ..Watch::default()
    };
    vec![
        probe("lift_l", "upper_arm_l", -90.0, watch.clone()),
        probe("lift_r", "upper_arm_r", 90.0, watch),
    ]
}

/// torso |x| <= 50, arm_l x < -50, arm_r x > 50.
fn arms_label(p: Point2<f64>) -> usize {
    if p.x < -50.0 {
        1
    } else if p.x > 50.0 {
        2
    } else {
        0
    }
}

const ARMS_PARTS: [&str; 3] = ["torso", "arm_l", "arm_r"];

fn arms_down(g: f64) -> Spec {
    let bones = arms_down_bones(g);
    // The right half (x >= 0) of docs/scenes.md's outline; x = 0 is the seam and carries the spine.
    // With g = 0 the arm edge runs up and back down x = 50: mesh_outline removes that spike,
    // which glues the arm to the torso.
    let half = Outline {
        loops: vec![pts(&[(0.0, 0.0)]
            .into_iter()
            .chain(arms_down_right_side(g))
            .chain([(0.0, 200.0)])
            .collect::<Vec<_>>())],
        segments: half_segments(&bones, MirrorAxis::X),
    };
    Spec {
        parts: ARMS_PARTS.to_vec(),
        pieces: vec![Piece {
            half,
            axis: MirrorAxis::X,
            label: Box::new(arms_label),
        }],
        bones,
        probes: lift_probes(),
    }
}

fn layered_arms(g: f64) -> Spec {
    let bones = arms_down_bones(g);
    let torso = Outline {
        loops: vec![pts(&[(0.0, 0.0), (50.0, 0.0), (50.0, 200.0), (0.0, 200.0)])],
        segments: vec![[bones[0].head, bones[0].tail]],
    };
    // arm_r as a separate layer: an L whose top reaches over the torso's shoulder (x in
    // [40, 50+g], y in [180, 200]); its mirror image is arm_l. No vertex is shared with the
    // torso: the pieces are meshed separately.
    let arm_r = Outline {
        loops: vec![pts(&[
            (50.0 + g, 20.0),
            (80.0 + g, 20.0),
            (80.0 + g, 200.0),
            (40.0, 200.0),
            (40.0, 180.0),
            (50.0 + g, 180.0),
        ])],
        segments: vec![
            [bones[3].head, bones[3].tail],
            [bones[4].head, bones[4].tail],
        ],
    };
    Spec {
        parts: ARMS_PARTS.to_vec(),
        pieces: vec![
            Piece {
                half: torso,
                axis: MirrorAxis::X,
                label: Box::new(|_| 0),
            },
            Piece {
                half: arm_r,
                axis: MirrorAxis::X,
                label: Box::new(|p| if p.x < 0.0 { 1 } else { 2 }),
            },
        ],
        bones,
        probes: lift_probes(),
    }
}

/// Bend angles (degrees) of the `layered-elbow` probes `bend_30` .. `bend_150`.
pub const ELBOW_BENDS: [f64; 5] = [30.0, 60.0, 90.0, 120.0, 150.0];

/// The crack at the elbow: an arm along x drawn as two separate layers, upper arm [0, 100] x
/// [-20, 20] and a forearm tapering from half-width 20 at x = 100 to 16 at x = 200. The
/// forearm starts at x = 100 - `overlap`, under the upper arm (0: the contours touch
/// exactly along the elbow line x = 100). Bones upper (0,0)->(100,0) and forearm
/// (100,0)->(200,0), the joint at (100, 0); probes bend the forearm counter-clockwise by
/// [`ELBOW_BENDS`], which opens the outside (y < 0) of the elbow. Symmetric about y = 0.
fn layered_elbow(overlap: f64) -> Spec {
    let bones = vec![
        bone("upper", (0.0, 0.0), (100.0, 0.0), "upper"),
        bone("forearm", (100.0, 0.0), (200.0, 0.0), "forearm").with_parent(0),
    ];
    let upper = Outline {
        loops: vec![pts(&[(0.0, 0.0), (100.0, 0.0), (100.0, 20.0), (0.0, 20.0)])],
        segments: vec![[bones[0].head, bones[0].tail]],
    };
    let start = 100.0 - overlap;
    let mut forearm_loop = vec![(start, 0.0), (200.0, 0.0), (200.0, 16.0), (100.0, 20.0)];
    if overlap > 0.0 {
        forearm_loop.push((start, 20.0));
    }
    let forearm = Outline {
        loops: vec![pts(&forearm_loop)],
        segments: vec![[bones[1].head, bones[1].tail]],
    };
    // The upper arm's part nearer the shoulder than one arm width from the joint must not
    // follow the forearm.
    let watch = Watch {
        part: Some("upper".into()),
        min_distance: Some(40.0),
        ..Watch::default()
    };
    Spec {
        parts: vec!["upper", "forearm"],
        pieces: vec![
            Piece {
                half: upper,
                axis: MirrorAxis::Y,
                label: Box::new(|_| 0),
            },
            Piece {
                half: forearm,
                axis: MirrorAxis::Y,
                label: Box::new(|_| 1),
            },
        ],
        bones,
        probes: ELBOW_BENDS
            .iter()
            .map(|&d| probe(&format!("bend_{d}"), "forearm", d, watch.clone()))
            .collect(),
    }
}

fn bar() -> Spec {
    let bones = vec![
        bone("upper", (0.0, 0.0), (100.0, 0.0), "upper"),
        bone("lower", (100.0, 0.0), (200.0, 0.0), "lower").with_parent(0),
    ];
    // The top half (y >= 0); both bones lie on the seam y = 0.
    let half = Outline {
        loops: vec![pts(&[(0.0, 0.0), (200.0, 0.0), (200.0, 20.0), (0.0, 20.0)])],
        segments: half_segments(&bones, MirrorAxis::Y),
    };
    // The part of the upper limb at least one bar width from the joint must not follow the
    // lower bone.
    let watch = Watch {
        part: Some("upper".into()),
        min_distance: Some(40.0),
        ..Watch::default()
    };
    Spec {
        parts: vec!["upper", "lower"],
        pieces: vec![Piece {
            half,
            axis: MirrorAxis::Y,
            label: Box::new(|p| usize::from(p.x >= 100.0)),
        }],
        bones,
        probes: vec![probe("bend", "lower", 90.0, watch)],
    }
}

/// Figure geometry (character's height 470, feet at y = 0, symmetric about x = 0).
mod fig {
    /// Half width of the torso.
    pub const TORSO: f64 = 55.0;
    /// Bottom of the torso (the crotch line); legs are below.
    pub const HIP_Y: f64 = 180.0;
    /// Bottom of the neck; neck and head are above.
    pub const NECK_Y: f64 = 385.0;
    /// Armpit height.
    pub const ARMPIT_Y: f64 = 355.0;
    /// Width of an arm (the lift watch stops two arm widths below the armpit).
    pub const ARM_W: f64 = 30.0;
}

/// Parts: torso, head (neck and head), arm_l/arm_r (|x| beyond the torso), leg_l/leg_r (below
/// the crotch line).
fn figure_label(p: Point2<f64>) -> usize {
    let side = usize::from(p.x > 0.0);
    if p.y >= fig::NECK_Y {
        1
    } else if p.y < fig::HIP_Y {
        4 + side
    } else if p.x.abs() > fig::TORSO {
        2 + side
    } else {
        0
    }
}

/// The right half of the figure's outline, from which [`figure`] mirrors the whole.
fn figure_half_loop() -> Vec<Point2<f64>> {
    // Right half, counter-clockwise from the crotch on the seam: leg (x 8..48, foot to 68),
    // hips, torso side, armpit, arm (x 65..95, gap 10 to the torso) hanging to y = 200,
    // shoulder, neck (x < 12), head (x < 35, chamfered corners), back down the seam.
    pts(&[
        (0.0, 180.0),
        (8.0, 180.0),
        (8.0, 0.0),
        (68.0, 0.0),
        (68.0, 20.0),
        (48.0, 20.0),
        (48.0, 180.0),
        (55.0, 180.0),
        (55.0, 355.0),
        (65.0, 355.0),
        (65.0, 200.0),
        (95.0, 200.0),
        (95.0, 385.0),
        (12.0, 385.0),
        (12.0, 410.0),
        (30.0, 410.0),
        (35.0, 420.0),
        (35.0, 460.0),
        (25.0, 470.0),
        (0.0, 470.0),
    ])
}

/// The figure's skeleton: the spine to the head on the seam, then for each side (left
/// then right, mirrored in x) the clavicle and arm off the chest and the leg off the hips.
fn figure_bones() -> Vec<Bone> {
    let mut bones = vec![
        bone("hips", (0.0, 190.0), (0.0, 240.0), "torso"),
        bone("spine", (0.0, 240.0), (0.0, 300.0), "torso").with_parent(0),
        bone("chest", (0.0, 300.0), (0.0, 370.0), "torso").with_parent(1),
        bone("neck", (0.0, 370.0), (0.0, 410.0), "head").with_parent(2),
        bone("head", (0.0, 410.0), (0.0, 462.0), "head").with_parent(3),
    ];
    for (suffix, s) in [("l", -1.0), ("r", 1.0)] {
        let arm = format!("arm_{suffix}");
        let leg = format!("leg_{suffix}");
        let base = bones.len();
        let limb = [
            ("clavicle", (6.0, 370.0), (80.0, 370.0), "torso", 2),
            (
                "upper_arm",
                (80.0, 370.0),
                (80.0, 290.0),
                arm.as_str(),
                base,
            ),
            (
                "forearm",
                (80.0, 290.0),
                (80.0, 225.0),
                arm.as_str(),
                base + 1,
            ),
            ("hand", (80.0, 225.0), (80.0, 205.0), arm.as_str(), base + 2),
            ("thigh", (28.0, 185.0), (28.0, 100.0), leg.as_str(), 0),
            ("shin", (28.0, 100.0), (28.0, 12.0), leg.as_str(), base + 4),
            ("foot", (28.0, 12.0), (60.0, 12.0), leg.as_str(), base + 5),
        ];
        for (name, h, t, part, parent) in limb {
            bones.push(
                bone(
                    &format!("{name}_{suffix}"),
                    (s * h.0, h.1),
                    (s * t.0, t.1),
                    part,
                )
                .with_parent(parent),
            );
        }
    }
    bones
}

fn figure() -> Spec {
    let half_loop = figure_half_loop();
    let bones = figure_bones();
    let half = Outline {
        loops: vec![half_loop],
        segments: half_segments(&bones, MirrorAxis::X),
    };
    let torso_low = Watch {
        part: Some("torso".into()),
        below_y: Some(fig::ARMPIT_Y - 2.0 * fig::ARM_W),
        ..Watch::default()
    };
    Spec {
        parts: vec!["torso", "head", "arm_l", "arm_r", "leg_l", "leg_r"],
        pieces: vec![Piece {
            half,
            axis: MirrorAxis::X,
            label: Box::new(figure_label),
        }],
        bones,
        probes: vec![
            probe("lift_l", "upper_arm_l", -90.0, torso_low.clone()),
            probe("lift_r", "upper_arm_r", 90.0, torso_low),
            probe("kick_r", "thigh_r", 90.0, watch_part("leg_l")),
            probe("kick_l", "thigh_l", -90.0, watch_part("leg_r")),
        ],
    }
}
