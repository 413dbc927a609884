//! **best**: the recommended solver. Bone heat whose sources know the character's parts and
//! blend across joints, with a *continuous* part constraint, then a soft weight limit.
//!
//! Why each step (measurements: docs/best.md, "The recipe, step by step"):
//! - **Part constraint.** Bone `j`'s weight is fixed to 0 on the vertices of parts it may not
//!   influence ([`super::mask::allowed_parts`]) that lie farther than `band` from every vertex
//!   it may influence, measured along the mesh. Heat alone drags 2-30% of an arm into the
//!   torso where they touch; cutting that afterwards (`+mask`) creases the border.
//! - **Part sources.** A vertex's heat source is its nearest visible bone among those that may
//!   influence its part: the torso is sourced by torso bones, so the armpit does not fold.
//! - **Blended sources.** Each source is a linear row across the joint (half-width
//!   `source_blend`), widened away from the bone axis and faded along the parent, so the
//!   joint's blend is not squeezed between one-hot pins (`BLEND_WIDEN`, `BLEND_FADE`,
//!   `CUT_FADE`).
//! - **Handles** (`HANDLE_LENGTH`). A joint between two bones of length 0-1 (artists' control
//!   bones) gets no blend: its axis says nothing.
//! - **Far sources** (`FAR_SOURCES`). Far from every bone, sources follow the inverse-distance
//!   row of the bones rather than the nearest bone.
//! - **Lock fade** (`LOCK_SOURCE_FADE`). Next to the locked vertices a bone's share in the
//!   sources fades to 0, its ancestor taking it up, so the field meets the lock smoothly.
//! - **Soft limit** (`limit`). Small far-field weights are removed smoothly
//!   ([`WeightLimit`]).
//! - **Artists' meshes** ([`ARTIST_MESH`]). A mesh under 2000 vertices gets the narrow blend
//!   (`ARTIST_MESH_SEED_BLEND`, `ARTIST_MESH_SOURCE_BLEND`) on its own vertices, or on a subdivided copy
//!   with `coarse_refine`; it is solved on a one-thread pool, where rayon's joins would cost
//!   more than the solve.
//! - **Rigid small parts** ([`RIGID_PART_VERTICES`]). A part of at most 4 vertices (an
//!   image attachment's quad) gets one row, its vertices' mean: with nothing to bend around,
//!   differing corners shear the image.
//! - **Speed.** Bones with the same locked set are solved together, and the sets' systems are
//!   factored by substructuring ([`Substructured`]): the vertices the sets share are factored
//!   once.
//!
//! Four options ([`BestOptions`]): `band`, `limit`, `source_blend`, `coarse_refine`. The other
//! values are constants of the [`Recipe`]; the feature `internals` exposes it so that
//! experiments can replay variants.

use super::dijkstra::multi_source_dijkstra_within;
use super::distance::{bone_segments, nearest_segment};
use super::heat::{
    distance_floor, rows_from_columns, Factorization, HeatOptions, HeatSystem, Ordering,
};
use super::limit::WeightLimit;
use super::nearest::{nearest_visible_bones, nearest_visible_bones_under, NearestBones};
use super::ordering::nested_dissection;
use super::substructure::Substructured;
use super::visibility::Visibility;
use super::{check_number, finish, parse_number, OptionKey, Solution, Solver, SolverOptions};
use crate::error::{Error, Result, SolverError};
use crate::scene::Scene;
use faer::sparse::SparseColMat;
use faer::Mat;
use nalgebra::Point2;
use rayon::prelude::*;
use std::time::Instant;

/// The blended sources' half-width (fraction of the height) on meshes solved through
/// `coarse_refine` (`ARTIST_MESH_SEED_BLEND`): 0.12 drops the DragonBones agreement to 87.6%.
const ARTIST_MESH_SOURCE_BLEND: f64 = 0.05;

/// Each vertex's heat source is its nearest visible bone among those that may influence its
/// part, not its nearest visible bone of all (module docs, "Part sources": flips on
/// arms-down gap 2 6 -> 2, femaleAdventurer 8 -> 3, robot 16 -> 6 at 10k, drag unchanged).
const PART_SOURCES: bool = true;

/// The blend's half-width at a vertex `l` away from the bone's axis line is
/// `max(r, BLEND_WIDEN x l)` (module docs, "Joint folds": no fold at `figure`'s outer hip,
/// where 2 and 2.5 leave one; 0 would be a constant half-width).
const BLEND_WIDEN: f64 = 3.0;

/// A child's share in its parent's sources keeps its full value up to `A x r` from the
/// child's head and fades linearly to 0 at `B x r` (module docs, "Joint folds" and "Wider
/// ramp"): 0:0.6 with half-width 0.12 ends the share at 7.2% of the height, as 0:1.5 did
/// with 0.05; a longer reach lets a thigh's share reach the other leg (0.08 with 0:1.5 drags
/// `figure`'s kicks by 0.46% at 30k); 1:1 is a hard stop at `r`.
const BLEND_FADE: (f64, f64) = (0.0, 0.6);

/// A bone's share in a blended source fades linearly to 0 over this many half-widths `r`
/// beyond the parts where it may be a source, along the mesh (module docs, "Cut shares
/// fade"): the hard cut (0) folded one triangle per lift on `figure`'s clavicle at 20k, 25k
/// and 35k vertices; 0.25, 0.5 and 1 remove the fold and leave every `best_check` figure at
/// 3k, 10k and 30k vertices unchanged.
const CUT_FADE: f64 = 0.5;

/// An artist's mesh ([`ARTIST_MESH`]) uses the narrow linear joint blend
/// (widen 0, fade 1:1, half-width `ARTIST_MESH_SOURCE_BLEND`): dominant-bone agreement with the
/// artists 88.2% on gBot and 90.0% on DragonBones, where the widened blend of half-width
/// 0.05 gets 87.3% and 88.8%, and the fine meshes' blend 88.2% and 87.6%.
const ARTIST_MESH_SEED_BLEND: bool = true;

/// The band is measured from the allowed vertices around the joint a bone's part hangs
/// from, not from all of them: an arm drawn against the torso below the shoulder gets no
/// band there (module docs, "Joint band").
const JOINT_BAND: bool = false;

/// A vertex of a part a bone may not influence stays reachable by its nearest bone only
/// where that bone's segment runs through the part (a thigh whose head sits in the
/// pelvis), not wherever the bone is nearest (a torso strip beside a hanging arm).
const OWN_ON_BONE: bool = true;

/// Next to the vertices where a bone is fixed to 0, its heat pins fade out over this
/// fraction of the height (module docs, "Lock fade"; 0: pinned up to the lock).
const LOCK_FADE: f64 = 0.0;

/// Next to the vertices where a bone is fixed to 0, its share in the heat sources fades to
/// 0 over this fraction of the height, its nearest ancestor not fading there taking it up
/// (module docs, "Locked from the part border"; 0: the sources keep their blend up to the
/// lock).
const LOCK_SOURCE_FADE: f64 = 0.1;

/// A bone no longer than this fraction of the height is a handle, not a segment of the art;
/// a joint between two handles (or a handle and no parent) gets no linear blend, so its
/// sources stay heat's nearest-bone ones (module docs, "Handles"). On the benchmark's tune
/// fold the bones of the artists' meshes are either at most 0.026 of their mesh's height
/// (Spine control bones of length 0-1, DragonBones' pelvis) or at least 0.050.
const HANDLE_LENGTH: f64 = 0.04;

/// A vertex farther than `A x height` from every bone gets a heat source that blends, up to
/// fully at `B x height`, into the inverse-distance row of the bones (euclidean's kernel,
/// power 4): far from every bone, which bone is nearest says little, the distance ratios
/// more (module docs, "Far sources"; chosen on the benchmark's tune fold: one-bone deviation
/// 5.60 -> 4.99% of the diagonal, agreement unchanged at 74.0%, the 28 leakage scenes
/// unchanged).
const FAR_SOURCES: Option<(f64, f64)> = Some((0.5, 1.0));

/// A mesh with fewer vertices than this is an artist's mesh (module docs, "Artists'
/// meshes"): its sources get the narrow linear joint blend (`ARTIST_MESH_SEED_BLEND`), and it is
/// subdivided first only when [`BestOptions::coarse_refine`] asks. The benchmark's artists'
/// meshes have 4-679 vertices; the sprites and built-in scenes are meshed at 3 000 or more.
pub const ARTIST_MESH: usize = 2000;

/// Options of [`Best`]: the four a user may change. The recipe's other values are
/// constants whose measured reasons are in the module docs.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct BestOptions {
    /// Width of the band, as a fraction of the character height, inside which a bone's
    /// weight may still reach into a part it may not influence before it is fixed to 0 (key
    /// `band`; see the pareto experiment for the measurements behind it: 0.1 adds drag where
    /// the parts lie close: 3.37% on malePerson at 0.05; with 0 the bone's share fades out
    /// before the part border instead, module docs "Locked from the part border").
    ///
    /// Default: [`BestOptions::DEFAULT_BAND`] (0).
    pub band: f64,
    /// The soft weight limit applied last (key `limit`, alias `soft_limit`, as `LOW:HIGH`, or
    /// `none`; the generic `limit=` option of [`super::solver_by_name`] sets this one, so
    /// `best` never applies two; 0.02:0.05: on arms-down as few flips as heat where 0.05:0.1
    /// added one, and it takes the robot sprite's residual drag from 0.43% to 0.02%).
    ///
    /// Default: [`BestOptions::DEFAULT_LIMIT`] (0.02:0.05).
    pub limit: Option<WeightLimit>,
    /// Half-width of the linear joint blend applied to the heat sources, as a fraction
    /// of the height (key `source_blend`, `F` or `none`; 0.12: no fold at `figure`'s outer
    /// hip at 3k-100k vertices, where 0.05 folds one triangle per kick at 15k and 25k-100k;
    /// zero flips on arms-down gaps 2-48, femaleAdventurer and robot at 3k and 10k, where
    /// none leaves 0-6, and the DragonBones agreement 75.5% without. Artists' meshes
    /// ([`ARTIST_MESH`]) use 0.05 instead, unless this is none).
    ///
    /// Default: [`BestOptions::DEFAULT_SOURCE_BLEND`] (0.12).
    pub source_blend: Option<f64>,
    /// An artist's mesh (under [`ARTIST_MESH`] vertices) is solved on a uniformly subdivided
    /// copy with at least this many vertices and read back at its own vertices
    /// ([`super::refine::Refined`]; key `coarse_refine`, `N` or `none`). Off by default:
    /// over 20 artists' rigs, left out one at a time, 2000 adds 1.2 points of agreement
    /// and takes 0.3 and 0.1 off the one-bone and clip deviations (% of the diagonal), at
    /// 35-47x heat's time (docs/benchmark.md, "The recipe on artists' meshes").
    ///
    /// Default: [`BestOptions::DEFAULT_COARSE_REFINE`] (none).
    pub coarse_refine: Option<usize>,
}

impl BestOptions {
    /// Default of [`BestOptions::band`].
    pub const DEFAULT_BAND: f64 = 0.0;
    /// Default of [`BestOptions::limit`].
    pub const DEFAULT_LIMIT: Option<WeightLimit> = Some(WeightLimit {
        low: 0.02,
        high: 0.05,
    });
    /// Default of [`BestOptions::source_blend`].
    pub const DEFAULT_SOURCE_BLEND: Option<f64> = Some(0.12);
    /// Default of [`BestOptions::coarse_refine`].
    pub const DEFAULT_COARSE_REFINE: Option<usize> = None;

    /// With [`BestOptions::band`] set.
    pub fn with_band(mut self, band: f64) -> Self {
        self.band = band;
        self
    }
    /// With [`BestOptions::limit`] set (`None`: no soft limit).
    pub fn with_limit(mut self, limit: Option<WeightLimit>) -> Self {
        self.limit = limit;
        self
    }
    /// With [`BestOptions::source_blend`] set.
    pub fn with_source_blend(mut self, half_width: Option<f64>) -> Self {
        self.source_blend = half_width;
        self
    }
    /// With [`BestOptions::coarse_refine`] set.
    pub fn with_coarse_refine(mut self, vertices: Option<usize>) -> Self {
        self.coarse_refine = vertices;
        self
    }
}

impl Default for BestOptions {
    fn default() -> Self {
        BestOptions {
            band: Self::DEFAULT_BAND,
            limit: Self::DEFAULT_LIMIT,
            source_blend: Self::DEFAULT_SOURCE_BLEND,
            coarse_refine: Self::DEFAULT_COARSE_REFINE,
        }
    }
}

impl SolverOptions for BestOptions {
    const SOLVER: &'static str = "best";
    const OPTIONS: &'static [OptionKey<Self>] = &[
        OptionKey {
            key: "band",
            value: "F",
            doc: "band (fraction of the height) a bone may reach into parts it may not influence",
            aliases: &[],
            get: |o| Some(o.band.to_string()),
            set: |o, k, v| {
                o.band = parse_number(k, v, |x| x >= 0.0, ">= 0")?;
                Ok(())
            },
        },
        OptionKey {
            key: "limit",
            value: "LOW:HIGH|none",
            doc: "the soft weight limit applied last (alias soft_limit)",
            aliases: &["soft_limit"],
            get: |o| {
                Some(match o.limit {
                    Some(l) => format!("{}:{}", l.low, l.high),
                    None => "none".into(),
                })
            },
            set: |o, k, v| {
                o.limit = match v.trim() {
                    "none" => None,
                    v => Some(WeightLimit::parse(v).map_err(|e| renamed_option(e, k))?),
                };
                Ok(())
            },
        },
        OptionKey {
            key: "source_blend",
            value: "F|none",
            doc:
                "blend each heat source with its parent along the bone axis (half-width F x height)",
            aliases: &[],
            get: |o| Some(o.source_blend.map_or("none".into(), |f| f.to_string())),
            set: |o, k, v| {
                o.source_blend = match v.trim() {
                    "none" => None,
                    v => Some(parse_number(k, v, |x| x > 0.0, "> 0 or none")?),
                };
                Ok(())
            },
        },
        OptionKey {
            key: "coarse_refine",
            value: "N|none",
            doc: "artists' meshes (under 2000 vertices) are solved on a subdivided copy of at least N vertices",
            aliases: &[],
            get: |o| Some(o.coarse_refine.map_or("none".into(), |n| n.to_string())),
            set: |o, k, v| {
                o.coarse_refine = match v.trim() {
                    "none" => None,
                    v => Some(super::refine::parse_target(v).map_err(|e| renamed_option(e, k))?),
                };
                Ok(())
            },
        },
    ];
}

/// An option error of a value parser, renamed to the key the user wrote.
fn renamed_option(e: Error, key: &str) -> Error {
    match e {
        Error::Solver(SolverError::InvalidOption { message, .. }) => {
            Error::Solver(SolverError::InvalidOption {
                option: key.to_string(),
                message,
            })
        }
        e => e,
    }
}

/// The recipe's fixed values: not options (the module docs give each one's measured
/// reason). The feature `internals` exposes it as `solvers::internals::BestRecipe`, with
/// [`Best::with_recipe`], so that the experiments can solve with variants of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Recipe {
    /// The heat system's options: [`HeatOptions::default()`].
    pub heat: HeatOptions,
    /// Shipped: `PART_SOURCES`.
    pub part_sources: bool,
    /// Shipped: `BLEND_WIDEN`.
    pub blend_widen: f64,
    /// Shipped: `BLEND_FADE`.
    pub blend_fade: (f64, f64),
    /// Shipped: `CUT_FADE`.
    pub cut_fade: f64,
    /// Shipped: `ARTIST_MESH_SEED_BLEND`.
    pub artist_mesh_seed_blend: bool,
    /// Shipped: `JOINT_BAND`.
    pub joint_band: bool,
    /// Shipped: `OWN_ON_BONE`.
    pub own_on_bone: bool,
    /// Shipped: `LOCK_FADE`.
    pub lock_fade: f64,
    /// Shipped: `LOCK_SOURCE_FADE`.
    pub lock_source_fade: f64,
    /// Shipped: `HANDLE_LENGTH`.
    pub handle_length: f64,
    /// Shipped: `ARTIST_MESH_SOURCE_BLEND`.
    pub artist_mesh_source_blend: f64,
    /// Shipped: `FAR_SOURCES` (`None`: off).
    pub far_sources: Option<(f64, f64)>,
}

impl Default for Recipe {
    fn default() -> Self {
        Recipe {
            heat: HeatOptions::default(),
            part_sources: PART_SOURCES,
            blend_widen: BLEND_WIDEN,
            blend_fade: BLEND_FADE,
            cut_fade: CUT_FADE,
            artist_mesh_seed_blend: ARTIST_MESH_SEED_BLEND,
            joint_band: JOINT_BAND,
            own_on_bone: OWN_ON_BONE,
            lock_fade: LOCK_FADE,
            lock_source_fade: LOCK_SOURCE_FADE,
            handle_length: HANDLE_LENGTH,
            artist_mesh_source_blend: ARTIST_MESH_SOURCE_BLEND,
            far_sources: FAR_SOURCES,
        }
    }
}

/// The recommended solver (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct Best {
    /// Its options.
    pub options: BestOptions,
    /// The fixed values (always [`Recipe::default()`] outside [`Best::with_recipe`]).
    recipe: Recipe,
}

impl Best {
    /// A solver with these options.
    pub fn new(options: BestOptions) -> Self {
        Best {
            options,
            recipe: Recipe::default(),
        }
    }
}

#[cfg(any(test, feature = "internals"))]
impl Best {
    /// `best` with the recipe's fixed values replaced (feature `internals`): for the
    /// experiments that solve with variants of the recipe; not a user option.
    pub fn with_recipe(options: BestOptions, recipe: Recipe) -> Self {
        Best { options, recipe }
    }
}

/// `reach[j][v]`: 0 on the vertices bone `j` may influence (and on those whose nearest
/// visible bone is `j` in a connected component that has vertices of a part it may
/// influence, so a bone that runs into a neighbouring part, such as a thigh whose head sits
/// in the pelvis, keeps the vertices around it, while a separate layer drawn under an arm,
/// with no arm vertex, stays out of reach), else the distance along the mesh to the nearest
/// such vertex (infinite in components it cannot reach, and beyond `limit`: the search stops
/// there, which leaves the distances up to it exact). `None` for a bone that may influence
/// every vertex. A part no bone may influence is reachable by every bone
/// ([`super::mask::open_to_every_bone`]).
pub fn reach_distances(
    scene: &Scene,
    nearest: &NearestBones,
    limit: f64,
    joint_anchor: bool,
    own_parts: Option<&[Vec<bool>]>,
) -> Vec<Option<Vec<f64>>> {
    let allowed = super::mask::allowed_parts(scene);
    let anchors = joint_anchors(scene);
    let points = scene.mesh.vertices();
    let parts = scene.mesh.vertex_parts();
    let component = scene.mesh.topology().component_of();
    let n_comp = scene.mesh.topology().component_count();
    let nb = scene.skeleton.len();
    let may = super::mask::open_to_every_bone(&allowed, scene.mesh.parts().len());
    (0..nb)
        .into_par_iter()
        .map(|j| {
            let allowed_here = |v: usize| may[j][parts[v]];
            if (0..parts.len()).all(allowed_here) {
                return None;
            }
            let mut reachable = vec![false; n_comp];
            for v in (0..parts.len()).filter(|&v| allowed[j][parts[v]]) {
                reachable[component[v]] = true;
            }
            // With the joint anchor, the bone reaches into other parts only inside the disk
            // around the joint its part hangs from that passes `limit` beyond the nearest
            // vertex it may not influence.
            let head = anchors[j];
            let disk = if joint_anchor {
                (0..parts.len())
                    .filter(|&v| !allowed_here(v))
                    .map(|v| (points[v] - head).norm())
                    .fold(f64::INFINITY, f64::min)
                    + limit
            } else {
                f64::INFINITY
            };
            let seeds: Vec<f64> = (0..parts.len())
                .map(|v| {
                    let own = reachable[component[v]]
                        && own_parts.is_none_or(|o| o[j][parts[v]])
                        && nearest.of(v).contains(&(j as u32));
                    if allowed_here(v) || own {
                        0.0
                    } else {
                        f64::INFINITY
                    }
                })
                .collect();
            let mut reach = multi_source_dijkstra_within(&scene.mesh, &seeds, limit);
            if joint_anchor {
                for (v, d) in reach.iter_mut().enumerate() {
                    if !allowed_here(v) && (points[v] - head).norm() > disk {
                        *d = f64::INFINITY;
                    }
                }
            }
            Some(reach)
        })
        .collect()
}

/// Per bone, the joint its part hangs from: the head of its topmost ancestor-or-self whose
/// own part is the bone's (the shoulder for a forearm and an upper arm).
fn joint_anchors(scene: &Scene) -> Vec<Point2<f64>> {
    let bones = scene.skeleton.bones();
    let own = scene.bone_parts();
    (0..bones.len())
        .map(|j| {
            let mut k = j;
            while let Some(p) = bones[k].parent {
                if own[p] != own[j] || own[j].is_none() {
                    break;
                }
                k = p;
            }
            bones[k].head
        })
        .collect()
}

/// `locked[j][v]`: [`reach_distances`] farther than `band` (see there; the search stops at
/// `band`: arms-down 200k 0.15 s -> 0.03 s, `figure` 50k 0.13 s -> 0.05 s).
pub fn locked_beyond_band(
    scene: &Scene,
    nearest: &NearestBones,
    band: f64,
    joint_anchor: bool,
    own_parts: Option<&[Vec<bool>]>,
) -> Vec<Vec<bool>> {
    let n = scene.mesh.vertex_count();
    let topology = scene.mesh.topology();
    reach_distances(scene, nearest, band, joint_anchor, own_parts)
        .into_par_iter()
        .map(|d| match d {
            Some(d) => without_lone_vertices(topology, d.iter().map(|&x| x > band).collect()),
            None => vec![false; n],
        })
        .collect()
}

/// `lock` with every vertex whose neighbours are all on the other side of it (all free
/// around a locked vertex, or all locked around a free one) moved to their side: a lone
/// vertex of another part inside a limb (a part label that follows a traced outline's
/// corner) would otherwise hold a row no neighbour shares, an isolated spike (2 on the
/// synthetic sprites of `tests/it/best.rs` with a band of 0).
fn without_lone_vertices(topology: &crate::mesh::Topology, mut lock: Vec<bool>) -> Vec<bool> {
    let lone: Vec<usize> = (0..lock.len())
        .filter(|&v| {
            let around = topology.neighbors(v);
            !around.is_empty() && around.iter().all(|&u| lock[u] != lock[v])
        })
        .collect();
    for v in lone {
        lock[v] = !lock[v];
    }
    lock
}

/// `sources[j][part]`: bone `j` may be the heat source of vertices of `part`: it may
/// influence the part ([`super::mask::allowed_parts`]), or one of the part's vertices lies on
/// its segment (within `on_bone`): where bones are mesh edges, a thigh whose head sits in
/// the pelvis stays the source of the vertices around its head, as in plain heat.
fn source_parts(
    scene: &Scene,
    segments: &[crate::geometry::Segment],
    on_bone: f64,
) -> Vec<Vec<bool>> {
    let mut allowed = super::mask::allowed_parts(scene);
    let reach = on_bone;
    let parts = scene.mesh.vertex_parts();
    let pts = scene.mesh.vertices();
    let near: Vec<Vec<bool>> = segments
        .par_iter()
        .map(|s| {
            let mut hit = vec![false; scene.mesh.parts().len()];
            for (v, p) in pts.iter().enumerate() {
                if !hit[parts[v]] && s.distance(p) <= reach {
                    hit[parts[v]] = true;
                }
            }
            hit
        })
        .collect();
    for (a, n) in allowed.iter_mut().zip(near) {
        a.iter_mut().zip(n).for_each(|(x, y)| *x |= y);
    }
    allowed
}

/// The shape of the blended sources' joint blend (see [`BestOptions::source_blend`]).
#[derive(Debug, Clone, Copy)]
struct JointBlend {
    /// Half-width along the bone axis.
    r: f64,
    /// The half-width is at least this times the distance from the axis line.
    widen: f64,
    /// A child's share fades out between `fade_from x r` and `fade_to x r` from its head.
    fade_from: f64,
    fade_to: f64,
    /// A bone at most this long is a handle: no ramp at its joint (`HANDLE_LENGTH`).
    handle: f64,
}

impl JointBlend {
    /// The child's weight at `p` for the joint at `bone`'s head (`None` for a handle, a bone
    /// no longer than `handle`): the linear joint ramp along the bone's axis, of half-width `r` widened to
    /// `widen` x the distance from the axis line.
    fn child_share(
        &self,
        bone: &crate::skeleton::Bone,
        bones: &[crate::skeleton::Bone],
        p: &Point2<f64>,
    ) -> Option<f64> {
        let d = bone.tail - bone.head;
        let len = d.norm();
        let is_handle = |b: &crate::skeleton::Bone| (b.tail - b.head).norm() <= self.handle;
        let between_handles = is_handle(bone) && bone.parent.is_none_or(|q| is_handle(&bones[q]));
        (len > 0.0 && !between_handles).then(|| {
            let (u, v) = (d / len, p - bone.head);
            let r = self.r.max(self.widen * v.perp(&u).abs());
            ((v.dot(&u) + r) / (2.0 * r)).clamp(0.0, 1.0)
        })
    }

    /// How much of a child's share a vertex whose closest point on the parent is `s` from
    /// the child's head keeps: 1 within `r`, fading linearly to 0 at `(1 + fade) r`.
    fn reach(&self, s: f64) -> f64 {
        let (a, b) = (self.fade_from * self.r, self.fade_to * self.r);
        if s <= a {
            1.0
        } else if s > b || b <= a {
            0.0
        } else {
            (b - s) / (b - a)
        }
    }

    /// Adds `scale` times the blended row of a vertex at `p` whose source is bone `j`
    /// (shared with its parent, and with its children near `p`'s closest point on `j`).
    fn add_row(
        &self,
        row: &mut [f64],
        j: usize,
        p: &Point2<f64>,
        scale: f64,
        bones: &[crate::skeleton::Bone],
        children: &[Vec<usize>],
    ) {
        let mut own = scale;
        if let Some(parent) = bones[j].parent {
            if let Some(t) = self.child_share(&bones[j], bones, p) {
                row[parent] += own * (1.0 - t);
                own *= t;
            }
        }
        let q = bones[j].segment().closest_point(p);
        let shares: Vec<(usize, f64)> = children[j]
            .iter()
            .filter_map(|&c| {
                let keep = self.reach((bones[c].head - q).norm());
                (keep > 0.0)
                    .then(|| self.child_share(&bones[c], bones, p).map(|f| (c, keep * f)))
                    .flatten()
            })
            .collect();
        super::linear::split_among_children(row, j, own, &shares);
    }
}

/// `(keep, index)`: `keep[index[j]][v]` is the fraction of bone `j`'s share a vertex's
/// blended source keeps: 1 in the parts where `j` may be a source (`ok`), falling linearly
/// to 0 at `fade` along the mesh from the nearest such vertex (0: a hard cut at the part
/// border). Bones with the same `ok` row share one search and one row.
fn source_keep(scene: &Scene, ok: &[Vec<bool>], fade: f64) -> (Vec<Vec<f64>>, Vec<usize>) {
    let parts = scene.mesh.vertex_parts();
    let mut distinct: Vec<&Vec<bool>> = Vec::new();
    let index: Vec<usize> = ok
        .iter()
        .map(|row| match distinct.iter().position(|d| *d == row) {
            Some(i) => i,
            None => {
                distinct.push(row);
                distinct.len() - 1
            }
        })
        .collect();
    let keep = distinct
        .par_iter()
        .map(|ok| {
            let seeds: Vec<f64> = parts
                .iter()
                .map(|&p| if ok[p] { 0.0 } else { f64::INFINITY })
                .collect();
            if fade <= 0.0 || seeds.iter().all(|&x| x == 0.0) {
                return parts.iter().map(|&p| f64::from(u8::from(ok[p]))).collect();
            }
            // Beyond `fade` the share is 0: the search stops there.
            multi_source_dijkstra_within(&scene.mesh, &seeds, fade)
                .into_iter()
                .map(|d| (1.0 - d / fade).max(0.0))
                .collect()
        })
        .collect();
    (keep, index)
}

/// Replaces each vertex's one-hot heat source by the blended row of its source bones
/// ([`JointBlend`]), keeping the shares of bones that may be a source in the vertex's part
/// and fading the others out over `cut_fade x r` beyond that part ([`source_keep`]; `ok`:
/// [`source_parts`]).
fn blend_sources(
    scene: &Scene,
    rhs: &mut Mat<f64>,
    sources: &NearestBones,
    blend: JointBlend,
    ok: &[Vec<bool>],
    cut_fade: f64,
) {
    let bones = scene.skeleton.bones();
    let nb = bones.len();
    let mut children = vec![Vec::new(); nb];
    for (j, b) in bones.iter().enumerate() {
        if let Some(p) = b.parent {
            children[p].push(j);
        }
    }
    let pts = scene.mesh.vertices();
    let (keep, keep_of) = source_keep(scene, ok, cut_fade * blend.r);
    let keep: Vec<&[f64]> = keep_of.iter().map(|&i| keep[i].as_slice()).collect();
    let mut row = vec![0.0; nb];
    for v in 0..scene.mesh.vertex_count() {
        let tied = sources.of(v);
        if tied.is_empty() {
            continue;
        }
        let total: f64 = (0..nb).map(|j| rhs[(v, j)]).sum();
        row.iter_mut().for_each(|x| *x = 0.0);
        for &j in tied {
            let j = j as usize;
            blend.add_row(
                &mut row,
                j,
                &pts[v],
                1.0 / tied.len() as f64,
                bones,
                &children,
            );
        }
        let kept: f64 = (0..nb).map(|j| keep[j][v] * row[j]).sum();
        if kept <= 0.0 {
            continue;
        }
        for j in 0..nb {
            rhs[(v, j)] = total * keep[j][v] * row[j] / kept;
        }
    }
}

/// Blends the heat sources of the vertices far from every bone into the bones'
/// inverse-distance row (`FAR_SOURCES`): weight 0 up to `start x height` from the nearest
/// bone, 1 from `end x height`, linear between; each row keeps its sum (the vertex's pin).
fn blend_far_sources(
    scene: &Scene,
    rhs: &mut Mat<f64>,
    segments: &[crate::geometry::Segment],
    start: f64,
    end: f64,
) {
    let h = scene.mesh.height();
    let falloff = super::distance::Falloff {
        power: 4.0,
        pin_distance: super::distance::pin_distance(h),
    };
    let mut row = vec![0.0; segments.len()];
    for (v, p) in scene.mesh.vertices().iter().enumerate() {
        row.iter_mut()
            .zip(segments)
            .for_each(|(d, s)| *d = s.distance(p));
        let nearest = row.iter().copied().fold(f64::INFINITY, f64::min) / h;
        let a = ((nearest - start) / (end - start)).clamp(0.0, 1.0);
        if a <= 0.0 || !falloff.weights_in_place(&mut row) {
            continue;
        }
        let total: f64 = (0..segments.len()).map(|j| rhs[(v, j)]).sum();
        for (j, w) in row.iter().enumerate() {
            rhs[(v, j)] = (1.0 - a) * rhs[(v, j)] + a * total * w;
        }
    }
}

/// The bones with some vertex locked, grouped by identical locked sets (each group shares
/// one factorization).
fn lock_groups(locked: &[Vec<bool>]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (j, l) in locked.iter().enumerate() {
        if !l.contains(&true) {
            continue;
        }
        match groups.iter_mut().find(|g| locked[g[0]] == *l) {
            Some(g) => g.push(j),
            None => groups.push(vec![j]),
        }
    }
    groups
}

/// Solves the heat system with every vertex outside `free` fixed to 0, for the right-hand
/// sides `rhs[.., j]` of `bones`: the fixed rows and columns drop out, so this is the
/// system restricted to the free vertices (`lower`'s rows and columns in `free`, ascending),
/// factored on its own in the elimination order `order` restricted to them. Returns one
/// column per bone, over `free`.
fn solve_free(
    lower: &SparseColMat<usize, f64>,
    order: Option<&[usize]>,
    free: &[usize],
    rhs: &Mat<f64>,
    bones: &[usize],
    pin_scale: Option<&[f64]>,
) -> Result<Vec<Vec<f64>>> {
    // A vertex's pin (`M H` on the diagonal) is its right-hand sides' sum: the sources of
    // a vertex sum to 1.
    let scale = |v: usize| pin_scale.map_or(1.0, |s| s[v]);
    let pin = |v: usize| (0..rhs.ncols()).map(|j| rhs[(v, j)]).sum::<f64>();
    let (sub, index) = restricted(lower, free, |v| {
        if scale(v) < 1.0 {
            (1.0 - scale(v)) * pin(v)
        } else {
            0.0
        }
    });
    let sub_order: Option<Vec<usize>> = order.map(|o| {
        o.iter()
            .filter(|&&v| index[v] != usize::MAX)
            .map(|&v| index[v])
            .collect()
    });
    let factor = Factorization::new(&sub, sub_order.as_deref())?;
    let nf = free.len();
    let mut block = Mat::<f64>::zeros(nf, bones.len());
    for (c, &j) in bones.iter().enumerate() {
        for (i, &v) in free.iter().enumerate() {
            block[(i, c)] = rhs[(v, j)] * scale(v);
        }
    }
    factor.solve_in_place(block.as_mut(), 1);
    Ok((0..bones.len())
        .map(|c| block.col_as_slice(c).to_vec())
        .collect())
}

/// `lower`'s rows and columns in `free` (ascending), with `unpin(v)` taken off vertex
/// `v`'s diagonal, and each vertex's index in it (`usize::MAX` outside `free`).
fn restricted(
    lower: &SparseColMat<usize, f64>,
    free: &[usize],
    unpin: impl Fn(usize) -> f64,
) -> (SparseColMat<usize, f64>, Vec<usize>) {
    let (mut sub, index) = super::substructure::restricted(lower, free);
    let ptr = sub.symbolic().col_ptr().to_vec();
    let rows = sub.symbolic().row_idx().to_vec();
    let vals = sub.val_mut();
    for (i, &v) in free.iter().enumerate() {
        for p in ptr[i]..ptr[i + 1] {
            if rows[p] == i {
                vals[p] -= unpin(v);
            }
        }
    }
    (sub, index)
}

/// Per vertex, how much of its heat pin a bone's system keeps next to the vertices where
/// the bone is fixed to 0: 0 on them, rising linearly to 1 at `reach` along the mesh, so
/// the weight leaves the pinned interior harmonically instead of dropping in one ring.
fn pin_fade(scene: &Scene, lock: &[bool], reach: f64) -> Vec<f64> {
    let seeds: Vec<f64> = lock
        .iter()
        .map(|&l| if l { 0.0 } else { f64::INFINITY })
        .collect();
    multi_source_dijkstra_within(&scene.mesh, &seeds, reach)
        .into_iter()
        .map(|d| (d / reach).min(1.0))
        .collect()
}

/// Fades each bone's share in the heat sources `rhs` to 0 at the vertices where it is
/// locked ([`pin_fade`]'s ramp over `reach`), handing what it loses to its nearest
/// ancestor that is not fading there (the torso bone an arm hangs from; a bone without one
/// keeps its share): the field then reaches the lock continuously instead of dropping
/// from the blend to 0 in one ring.
fn fade_sources_at_locks(scene: &Scene, rhs: &mut Mat<f64>, locked: &[Vec<bool>], reach: f64) {
    let nb = rhs.ncols();
    // One ramp per locked set (bones with the same set share it).
    let groups = lock_groups(locked);
    let ramps: Vec<Vec<f64>> = groups
        .par_iter()
        .map(|g| pin_fade(scene, &locked[g[0]], reach))
        .collect();
    let mut keep: Vec<Option<&[f64]>> = vec![None; nb];
    for (g, ramp) in groups.iter().zip(&ramps) {
        g.iter().for_each(|&j| keep[j] = Some(ramp));
    }
    let bones = scene.skeleton.bones();
    let keeps = |j: usize, v: usize| keep[j].map_or(1.0, |k| k[v]);
    for v in 0..rhs.nrows() {
        for j in 0..nb {
            let k = keeps(j, v);
            let share = rhs[(v, j)];
            if k >= 1.0 || share == 0.0 {
                continue;
            }
            let mut a = bones[j].parent;
            while let Some(p) = a.filter(|&p| keeps(p, v) < 1.0) {
                a = bones[p].parent;
            }
            if let Some(a) = a {
                rhs[(v, a)] += share * (1.0 - k);
                rhs[(v, j)] = share * k;
            }
        }
    }
}

impl Solver for Best {
    fn name(&self) -> String {
        "best".into()
    }

    fn compute(&self, scene: &Scene) -> Result<Solution> {
        // Unused vertices (artist meshes) would make the system singular.
        if let Some(s) = super::unused::solve_on_used(scene, self.name(), |s| self.compute(s))? {
            return Ok(s);
        }
        check_number("band", self.options.band, |x| x >= 0.0, ">= 0")?;
        let started = Instant::now();
        let mut solution = match self.solve_artist_mesh(scene)? {
            Some(solved) => finish(self.name(), started, solved.weights, solved.report.warnings)?,
            None => self.compute_recipe(scene)?,
        };
        rigid_small_parts(scene, &mut solution.weights);
        Ok(solution)
    }
}

/// A part with at most this many vertices (a quad or a triangle, the shape of an image
/// attachment) moves rigidly: every vertex gets the mean of the part's rows.
pub const RIGID_PART_VERTICES: usize = 4;

/// Gives every vertex of a part of at most [`RIGID_PART_VERTICES`] vertices the mean of the
/// part's rows. Such a part has no vertex to bend around: corners on different rows shear
/// the whole image (a 4-vertex piece of the tank's tread lands a thousand pixels from where
/// its neighbours' rows put it), and artists bind these pieces to one bone.
fn rigid_small_parts(scene: &Scene, weights: &mut crate::weights::Weights) {
    let parts = scene.mesh.vertex_parts();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); scene.mesh.parts().len()];
    for (v, &p) in parts.iter().enumerate() {
        members[p].push(v);
    }
    for vertices in members
        .iter()
        .filter(|m| m.len() > 1 && m.len() <= RIGID_PART_VERTICES)
    {
        let n = vertices.len() as f64;
        let mean: Vec<f64> = (0..weights.bone_count())
            .map(|j| vertices.iter().map(|&v| weights.row(v)[j]).sum::<f64>() / n)
            .collect();
        for &v in vertices {
            weights.row_mut_unchecked(v).copy_from_slice(&mean);
        }
    }
}

impl Best {
    /// The recipe on the scene's own mesh, whatever its size.
    fn compute_recipe(&self, scene: &Scene) -> Result<Solution> {
        let started = Instant::now();
        let o = &self.options;
        // The elimination order depends on the mesh alone: found beside the sources.
        let (order, sources) = rayon::join(
            || match self.recipe.heat.ordering {
                Ordering::NestedDissection => Some(nested_dissection(&scene.mesh)),
                Ordering::Amd => None,
            },
            || self.heat_sources(scene),
        );
        let (mut system, sourced) = sources?;
        // The adjusted sources are right-hand sides only: made beside the factorizations.
        let adjust = |rhs: &mut Mat<f64>, sources: &NearestBones| {
            self.adjust_sources(scene, rhs, sources, &sourced)
        };
        let x = self.solve_columns(
            scene,
            &mut system,
            &sourced.locked,
            order.as_deref(),
            adjust,
        )?;
        let pts = scene.mesh.vertices();
        let mut weights = rows_from_columns(&x, &system.nearest, |v| {
            nearest_segment(&sourced.segments, &pts[v]).unwrap_or(0)
        })?;
        if let Some(limit) = o.limit {
            limit.apply(&mut weights);
        }
        let warnings = super::blind_warnings(scene, &system.nearest.blind_components);
        finish(self.name(), started, weights, warnings)
    }
}

/// `f` on a one-thread pool of the calling thread's own: an artist's mesh solves in a few
/// tenths of a millisecond, less than rayon's joins cost when each hands work to the global
/// pool (measured over the benchmark's 124 artists' meshes: 1.5x heat's time on the pool,
/// docs/benchmark.md). Run in place on a thread of a rayon pool (the binder's meshes solved
/// side by side): its joins stay on that thread unless another is idle, and a worker waiting
/// for a pool of its own would take up further meshes meanwhile, nesting them on its stack.
fn on_one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if rayon::current_thread_index().is_some() {
        return f();
    }
    thread_local! {
        static POOL: Option<rayon::ThreadPool> =
            rayon::ThreadPoolBuilder::new().num_threads(1).build().ok();
    }
    POOL.with(|pool| match pool {
        Some(pool) => pool.install(f),
        None => f(),
    })
}

/// What the later steps need from the heat system's assembly ([`Best::heat_sources`]).
struct Sourced {
    segments: Vec<crate::geometry::Segment>,
    /// [`Best::locked`]: per bone, the vertices where its weight is fixed to 0.
    locked: Vec<Vec<bool>>,
    /// [`source_parts`]: the parts where each bone may be a heat source (computed once
    /// for the part sources, the blend's cut and the locks).
    source_parts: Vec<Vec<bool>>,
}

impl Best {
    /// An artist's mesh (under [`ARTIST_MESH`] vertices) solved with the artist-mesh recipe
    /// (module docs, "Artists' meshes"), on a subdivided copy when `coarse_refine` asks for
    /// one; `None` for any other mesh.
    fn solve_artist_mesh(&self, scene: &Scene) -> Result<Option<Solution>> {
        let (o, r) = (&self.options, &self.recipe);
        if scene.mesh.vertex_count() >= ARTIST_MESH {
            return Ok(None);
        }
        let mut fine = self.clone();
        fine.options.coarse_refine = None;
        if r.artist_mesh_seed_blend {
            fine.recipe.blend_widen = 0.0;
            fine.recipe.blend_fade = (1.0, 1.0);
            fine.options.source_blend = o.source_blend.map(|_| r.artist_mesh_source_blend);
        }
        match o.coarse_refine {
            Some(target) if super::refine::subdivision_factor(&scene.mesh, target) > 1 => {
                super::refine::Refined::new(Box::new(fine), target)
                    .compute(scene)
                    .map(Some)
            }
            _ => on_one_thread(|| fine.compute_recipe(scene)).map(Some),
        }
    }

    /// Visibility, nearest bones, part sources and the heat system with heat's one-hot
    /// sources (module docs, "Part sources"; [`Best::adjust_sources`] blends them), and
    /// the locked vertices, found beside the system's assembly.
    fn heat_sources(&self, scene: &Scene) -> Result<(HeatSystem, Sourced)> {
        let r = &self.recipe;
        let segments = bone_segments(scene.skeleton.bones());
        let visibility = r.heat.visibility.then(|| Visibility::new(&scene.mesh));
        let floor = distance_floor(scene, &r.heat);
        let allowed = source_parts(scene, &segments, floor);
        let (nearest, sources) = if r.part_sources {
            let parts = scene.mesh.vertex_parts();
            let may = super::mask::open_to_every_bone(&allowed, scene.mesh.parts().len());
            // The nearest bones of all and of the vertex's part, in one pass.
            let [nearest, sources] = nearest_visible_bones_under(
                &scene.mesh,
                &segments,
                visibility.as_ref(),
                r.heat.tie_tolerance,
                floor,
                [&|_, _| true, &|v, j| may[j][parts[v]]],
            );
            (nearest, sources)
        } else {
            let nearest = nearest_visible_bones(
                &scene.mesh,
                &segments,
                visibility.as_ref(),
                r.heat.tie_tolerance,
                floor,
            );
            (nearest.clone(), nearest)
        };
        drop(visibility);
        let (system, locked) = rayon::join(
            || HeatSystem::assemble_with(scene, &r.heat, sources),
            || self.locked(scene, &nearest, &allowed),
        );
        let sourced = Sourced {
            segments,
            locked,
            source_parts: allowed,
        };
        Ok((system?, sourced))
    }

    /// Per bone, the vertices where its weight is fixed to 0 (module docs, "Locked from the
    /// part border"), from the nearest visible bones of all and [`source_parts`].
    fn locked(
        &self,
        scene: &Scene,
        nearest: &NearestBones,
        source_parts: &[Vec<bool>],
    ) -> Vec<Vec<bool>> {
        let (o, r) = (&self.options, &self.recipe);
        locked_beyond_band(
            scene,
            nearest,
            o.band * scene.mesh.height(),
            r.joint_band,
            r.own_on_bone.then_some(source_parts),
        )
    }

    /// The blended sources, the far sources and the sources' fade next to the locks, in
    /// this order (module docs, "Blended sources", "Far sources", "Locked from the part
    /// border"): right-hand sides only (`sources`: each vertex's source bones), so they
    /// are made beside the factorizations.
    fn adjust_sources(
        &self,
        scene: &Scene,
        rhs: &mut Mat<f64>,
        sources: &NearestBones,
        s: &Sourced,
    ) {
        let (o, r) = (&self.options, &self.recipe);
        if let Some(f) = o.source_blend {
            let blend = JointBlend {
                r: f * scene.mesh.height(),
                widen: r.blend_widen,
                fade_from: r.blend_fade.0,
                fade_to: r.blend_fade.1,
                handle: r.handle_length * scene.mesh.height(),
            };
            blend_sources(scene, rhs, sources, blend, &s.source_parts, r.cut_fade);
        }
        let (segments, locked) = (&s.segments, &s.locked);
        if let Some((start, end)) = r.far_sources {
            blend_far_sources(scene, rhs, segments, start, end);
        }
        if r.lock_source_fade > 0.0 {
            let reach = r.lock_source_fade * scene.mesh.height();
            fade_sources_at_locks(scene, rhs, locked, reach);
        }
    }

    /// Every bone's column of the solution: the bones with the same locked set (or with
    /// nothing locked) are solved together, and the free sets' systems are factored by
    /// substructuring ([`factor_sets`]: the vertices the sets share factored once), on
    /// rayon threads (module docs, "Speed"). `order`: the whole mesh's elimination order
    /// (`None`: faer's). `adjust` finishes the right-hand sides (given each vertex's source
    /// bones); on the substructured path it runs beside the factorizations, which need only
    /// the matrix.
    fn solve_columns(
        &self,
        scene: &Scene,
        system: &mut HeatSystem,
        locked: &[Vec<bool>],
        order: Option<&[usize]>,
        adjust: impl FnOnce(&mut Mat<f64>, &NearestBones) + Send,
    ) -> Result<Mat<f64>> {
        let (n, nb) = (scene.mesh.vertex_count(), scene.skeleton.len());
        let plain: Vec<usize> = (0..nb).filter(|&j| !locked[j].contains(&true)).collect();
        let columns = {
            let mut sets: Vec<FreeSet> = lock_groups(locked)
                .into_iter()
                .map(|bones| FreeSet {
                    free: (0..n).filter(|&v| !locked[bones[0]][v]).collect(),
                    bones,
                })
                .collect();
            if !plain.is_empty() {
                sets.push(FreeSet {
                    free: (0..n).collect(),
                    bones: plain,
                });
            }
            let lock_fade = self.recipe.lock_fade * scene.mesh.height();
            // Each set's own pins (`lock_fade`), or faer's own ordering: one factorization
            // per set.
            match order.filter(|_| lock_fade <= 0.0) {
                Some(order) => {
                    let HeatSystem {
                        lower,
                        rhs,
                        nearest,
                    } = &mut *system;
                    let ((), factored) =
                        rayon::join(|| adjust(rhs, nearest), || factor_sets(lower, order, &sets));
                    match factored? {
                        Some(factored) => {
                            let columns: Vec<(usize, usize)> = (sets.iter().enumerate())
                                .flat_map(|(s, set)| set.bones.iter().map(move |&j| (s, j)))
                                .collect();
                            let mut x = Mat::<f64>::zeros(n, nb);
                            factored.solve(rhs.as_ref(), &columns, x.as_mut());
                            return Ok(x);
                        }
                        // Interleaved parts: the sets' shared pieces are not worth it.
                        None => solve_sets_apart(scene, system, Some(order), &sets, 0.0)?,
                    }
                }
                None => {
                    adjust(&mut system.rhs, &system.nearest);
                    solve_sets_apart(scene, system, order, &sets, lock_fade)?
                }
            }
        };
        let mut x = Mat::<f64>::zeros(n, nb);
        for (j, col) in columns {
            x.col_as_slice_mut(j).copy_from_slice(&col);
        }
        Ok(x)
    }
}

/// Each free set factored on its own ([`solve_free`]); whole-mesh columns.
fn solve_sets_apart(
    scene: &Scene,
    system: &HeatSystem,
    order: Option<&[usize]>,
    sets: &[FreeSet],
    lock_fade: f64,
) -> Result<Vec<(usize, Vec<f64>)>> {
    let n = scene.mesh.vertex_count();
    sets.par_iter()
        .map(|set| {
            let fade = (lock_fade > 0.0 && set.free.len() < n).then(|| {
                let mut lock = vec![true; n];
                set.free.iter().for_each(|&v| lock[v] = false);
                pin_fade(scene, &lock, lock_fade)
            });
            let cols = solve_free(
                &system.lower,
                order,
                &set.free,
                &system.rhs,
                &set.bones,
                fade.as_deref(),
            )?;
            Ok(spread_columns(set, cols, n))
        })
        .collect::<Result<Vec<_>>>()
        .map(|g| g.into_iter().flatten().collect())
}

/// Bones solved together on the vertices they are free on (ascending; every vertex for
/// the bones with nothing locked).
struct FreeSet {
    free: Vec<usize>,
    bones: Vec<usize>,
}

/// Columns over `set.free` as whole-mesh columns (0 on the locked vertices).
fn spread_columns(set: &FreeSet, cols: Vec<Vec<f64>>, n: usize) -> Vec<(usize, Vec<f64>)> {
    set.bones
        .iter()
        .zip(cols)
        .map(|(&j, c)| {
            let mut col = vec![0.0; n];
            for (&v, y) in set.free.iter().zip(c) {
                col[v] = y;
            }
            (j, col)
        })
        .collect()
}

/// Factors every free set's system by substructuring ([`Substructured`]), each part in
/// the whole mesh's elimination order `order` (`None` where the sets' atoms interleave).
/// Needs the matrix only, so it can run while the right-hand sides are finished.
fn factor_sets(
    lower: &SparseColMat<usize, f64>,
    order: &[usize],
    sets: &[FreeSet],
) -> Result<Option<Substructured>> {
    let mut rank = vec![0; order.len()];
    for (k, &v) in order.iter().enumerate() {
        rank[v] = k;
    }
    let free: Vec<&[usize]> = sets.iter().map(|s| s.free.as_slice()).collect();
    Substructured::new(lower, &free, &rank)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::evaluate;
    use crate::{scene::builtin_scene, scene::BuiltinOptions};

    fn figure(vertices: usize) -> Scene {
        builtin_scene(
            "figure",
            &BuiltinOptions {
                vertices,
                ..Default::default()
            },
        )
        .unwrap()
    }

    /// The most flipped triangles over `scene`'s probes.
    fn flips(scene: &Scene, solver: &dyn Solver) -> usize {
        let w = solver.solve(scene).unwrap().weights;
        scene
            .probes
            .iter()
            .map(|p| evaluate(scene, &w, p).unwrap().flipped)
            .max()
            .unwrap()
    }

    #[test]
    fn the_shipped_recipe_is_the_default_and_the_options_are_four() {
        assert_eq!(Best::default().recipe, Recipe::default());
        assert_eq!(Best::default().options, BestOptions::default());
        assert_eq!(
            BestOptions::keys(),
            ["band", "limit", "source_blend", "coarse_refine"]
        );
        // A former option is no user option any more, and the error names the four.
        let Err(e) = super::super::solver_by_name("best", [("cut_fade", "0")]) else {
            panic!("cut_fade is no option of best any more");
        };
        let message = e.to_string();
        assert!(message.contains("cut_fade"), "{message}");
        assert!(
            message.contains("band, limit, source_blend, coarse_refine"),
            "{message}"
        );
    }

    /// The resolutions at which `figure` is checked: the coarse and default meshes, and the
    /// finer ones where earlier recipes folded (15k-35k vertices).
    const FIGURE_SWEEP: [usize; 5] = [3_000, 10_000, 15_000, 20_000, 30_000];

    /// The recipe before the lock-fade change (band 0.05, own seeds wherever a bone is
    /// nearest, no source fade at the lock), which the earlier recipes below start from.
    fn before_lock_fade() -> (BestOptions, Recipe) {
        (
            BestOptions {
                band: 0.05,
                ..BestOptions::default()
            },
            Recipe {
                own_on_bone: false,
                lock_source_fade: 0.0,
                ..Recipe::default()
            },
        )
    }

    /// Changes one recipe into another.
    type Undo = fn(&mut BestOptions, &mut Recipe);

    /// Earlier recipes, each undone by one constant (see the module docs), with the fold it
    /// had at `figure`'s joints (heat: 0).
    const EARLIER_RECIPES: [(&str, Undo); 4] = [
        (
            // A constant-width blend with a hard stop: 1 fold per probe at the
            // clavicle and the outer hip.
            "unwidened blend",
            |o, r| {
                o.source_blend = Some(0.05);
                r.blend_widen = 0.0;
                r.blend_fade = (1.0, 1.0);
                r.cut_fade = 0.0;
            },
        ),
        (
            // The upper arm's share cut hard at the torso/arm border (CUT_FADE 0): 1 fold
            // per lift at the clavicle at 20k-35k.
            "hard cut",
            |_, r| r.cut_fade = 0.0,
        ),
        (
            // Half-width 0.05 (fade 0:1.5): 1 fold per kick at the outer hip from 15k up.
            "narrow ramp",
            |o, r| {
                o.source_blend = Some(0.05);
                r.blend_fade = (0.0, 1.5);
            },
        ),
        (
            // Band 0 without the source fade at the lock (LOCK_SOURCE_FADE 0): the shoulder's
            // top row, labelled head, is locked next to arm vertices holding 0.25 of the
            // upper arm: 1 fold per lift at 3k and 10k.
            "hard lock",
            |o, _| o.band = 0.0,
        ),
    ];

    #[test]
    fn each_earlier_recipe_folds_more_than_heat_somewhere_on_the_figure_sweep() {
        // What makes tests/it/best.rs's figure sweep able to fail, and the measured reason for
        // BLEND_WIDEN, BLEND_FADE and CUT_FADE: every recipe a constant replaced folds more
        // than heat at one size of the sweep at least (which size depends on the mesh, so
        // none is pinned).
        let scenes: Vec<Scene> = FIGURE_SWEEP.iter().map(|&n| figure(n)).collect();
        let heat = super::super::solver_by_name("heat", super::super::NO_OPTIONS).unwrap();
        let heat: Vec<usize> = scenes.iter().map(|s| flips(s, heat.as_ref())).collect();
        for (recipe, undo) in EARLIER_RECIPES {
            let (mut options, mut fixed) = before_lock_fade();
            undo(&mut options, &mut fixed);
            let solver = Best::with_recipe(options, fixed);
            let folds: Vec<usize> = scenes.iter().map(|s| flips(s, &solver)).collect();
            assert!(
                folds.iter().zip(&heat).any(|(f, h)| f > h),
                "{recipe}: folds {folds:?} vs heat {heat:?} at {FIGURE_SWEEP:?} vertices"
            );
        }
    }
}
