//! How close a solver's weights come to an artist's on the same mesh and bones: the scores
//! of the `benchmark` experiment, defined once for the library, the experiments and Python.
//!
//! - **Dominant-bone agreement**: the share of vertices whose largest weight is on a bone
//!   that carries the artist's largest weight. Where the artist's row ties (a 50/50 vertex,
//!   common on 4-vertex meshes), every tied bone counts: which of two equal bones is "first"
//!   is an accident of the file's bone order, not the artist's intent.
//! - **Weight distance**: per vertex, the total-variation distance between the two rows,
//!   `0.5 * sum_j |w_j - a_j|` (the least weight that must move between bones to turn one row
//!   into the other, 0 to 1), averaged over vertices.
//! - **One-bone deviation**: each of the mesh's bones in turn is rotated by
//!   [`ArtistScoreOptions::angle_deg`] about its head (its children follow); the score is the
//!   worst vertex's distance between where the solver's weights and where the artist's
//!   weights put it, as % of the mesh's bounding-box diagonal. One value per bone, so a
//!   benchmark can average over (mesh, bone) pairs and take percentiles.
//! - **Clip deviation**: the artist's own clips played ([`ArtistClipFrames`], sampled at a
//!   frame rate, IK applied): per frame, the worst vertex's distance between where the
//!   solver's and the artist's weights put it, % of the mesh's diagonal; one value per
//!   (mesh, frame), so a benchmark can take mean, 95th percentile and max over every frame
//!   of every clip. Alongside, the mesh's **flips over clips**: (triangle, frame) pairs whose
//!   posed signed area is 0 or of the other sign than at rest, with the solver's weights and
//!   with the artist's (the artist's own rig flips too: the baseline).

use crate::animation::Clip;
use crate::error::{Result, WeightsError, WeightsShapeProblem};
use crate::geometry::signed_area2;
use crate::scene::Scene;
use crate::skeleton::{Affine2, Pose};
use crate::skinning::SparseRows;
use crate::weights::Weights;
use nalgebra::Point2;
use rayon::prelude::*;

/// Two weights this close are a tie in the artist's row.
pub const TIE_TOLERANCE: f64 = 1e-9;

/// Options of [`score_against_artist`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ArtistScoreOptions {
    /// Rotation of each bone for the one-bone deviation, in degrees.
    /// Default: [`ArtistScoreOptions::DEFAULT_ANGLE_DEG`] (40).
    pub angle_deg: f64,
}

impl ArtistScoreOptions {
    /// The default one-bone rotation: 40 degrees, a strong but ordinary bend.
    pub const DEFAULT_ANGLE_DEG: f64 = 40.0;

    /// Sets [`ArtistScoreOptions::angle_deg`].
    pub fn with_angle_deg(mut self, angle_deg: f64) -> Self {
        self.angle_deg = angle_deg;
        self
    }
}

impl Default for ArtistScoreOptions {
    fn default() -> Self {
        ArtistScoreOptions {
            angle_deg: Self::DEFAULT_ANGLE_DEG,
        }
    }
}

/// One mesh's scores against its artist.
#[derive(Debug, Clone, PartialEq)]
pub struct ArtistScore {
    /// Vertices scored.
    pub vertices: usize,
    /// Vertices whose dominant bone agrees with the artist's (ties counted as above).
    pub agreeing: usize,
    /// Sum over vertices of the total-variation distance (divide by `vertices` for the mean).
    pub weight_distance_sum: f64,
    /// Per bone of the scene, the one-bone deviation in % of the mesh diagonal.
    pub one_bone_deviation_pct: Vec<f64>,
}

impl ArtistScore {
    /// Dominant-bone agreement in %.
    pub fn agreement_pct(&self) -> f64 {
        100.0 * self.agreeing as f64 / self.vertices.max(1) as f64
    }
    /// Mean total-variation distance per vertex (0 to 1).
    pub fn weight_distance(&self) -> f64 {
        self.weight_distance_sum / self.vertices.max(1) as f64
    }
}

/// Whether bone `b`, the largest of `row`, is one of the artist's largest in `artist`.
pub fn dominant_agrees(row: &[f64], artist: &[f64]) -> bool {
    let mut best = 0;
    for j in 1..row.len() {
        if row[j] > row[best] {
            best = j;
        }
    }
    let top = artist.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    artist.get(best).is_some_and(|&a| a >= top - TIE_TOLERANCE)
}

/// Total-variation distance between two rows.
pub fn weight_distance(row: &[f64], artist: &[f64]) -> f64 {
    0.5 * row
        .iter()
        .zip(artist)
        .map(|(a, b)| (a - b).abs())
        .sum::<f64>()
}

/// One artist mesh inside a scene: its vertices and the bones its artist bound it to (scene
/// indices), as an importer's report lists them.
#[derive(Debug, Clone, Copy)]
pub struct ArtistMesh<'a> {
    /// Scene indices of the mesh's vertices.
    pub vertices: &'a [usize],
    /// Scene indices of the bones the artist bound the mesh to.
    pub bones: &'a [usize],
}

/// Scores `weights` against `artist` on one artist mesh of `scene` (whole-scene weights, so
/// a bone's rotation moves what it moves in the artist's rig, children included).
///
/// Errors: weights of the wrong shape, or a vertex or bone of `mesh` out of range
/// ([`WeightsError::WeightsShape`]); a non-finite angle
/// ([`SkeletonError::NonFinitePose`](crate::error::SkeletonError::NonFinitePose), naming the bone).
pub fn score_against_artist(
    scene: &Scene,
    weights: &Weights,
    artist: &Weights,
    mesh: ArtistMesh<'_>,
    options: &ArtistScoreOptions,
) -> Result<ArtistScore> {
    check_shapes(scene, &[weights, artist], &[mesh])?;
    let mut agreeing = 0;
    let mut weight_distance_sum = 0.0;
    for &v in mesh.vertices {
        let (row, art) = (weights.row(v), artist.row(v));
        agreeing += usize::from(dominant_agrees(row, art));
        weight_distance_sum += weight_distance(row, art);
    }
    let points: Vec<_> = mesh
        .vertices
        .iter()
        .map(|&v| scene.mesh.vertices()[v])
        .collect();
    let diagonal = diagonal_of(&points).max(f64::MIN_POSITIVE);
    // Only the mesh's vertices are compared: skin those alone, from their nonzero entries.
    let ours = SparseRows::new(weights, mesh.vertices.iter().copied());
    let theirs = SparseRows::new(artist, mesh.vertices.iter().copied());
    let mut one_bone_deviation_pct = Vec::with_capacity(mesh.bones.len());
    for &b in mesh.bones {
        let name = scene.skeleton.bones()[b].name.clone();
        let pose = Pose::rest().rotate(name, options.angle_deg);
        let affines = scene.skeleton.skinning_affines(&pose)?;
        let worst = points
            .iter()
            .enumerate()
            .map(|(k, &p)| (ours.skin(k, p, &affines) - theirs.skin(k, p, &affines)).norm())
            .fold(0.0, f64::max);
        one_bone_deviation_pct.push(100.0 * worst / diagonal);
    }
    Ok(ArtistScore {
        vertices: mesh.vertices.len(),
        agreeing,
        weight_distance_sum,
        one_bone_deviation_pct,
    })
}

/// Weights of the scene's shape, and meshes whose vertices and bones are in range
/// ([`WeightsError::WeightsShape`] naming what is not).
fn check_shapes(scene: &Scene, weights: &[&Weights], meshes: &[ArtistMesh<'_>]) -> Result<()> {
    let (n, bones) = (scene.mesh.vertex_count(), scene.skeleton.len());
    for w in weights {
        if w.vertex_count() != n || w.bone_count() != bones {
            return Err(WeightsError::WeightsShape {
                problem: WeightsShapeProblem::Dimensions {
                    context: "scene".into(),
                    found: (w.vertex_count(), w.bone_count()),
                    expected: (n, bones),
                },
            }
            .into());
        }
    }
    for mesh in meshes {
        if let Some(&v) = mesh.vertices.iter().find(|&&v| v >= n) {
            return Err(WeightsError::WeightsShape {
                problem: WeightsShapeProblem::ArtistVertex {
                    vertex: v,
                    vertices: n,
                },
            }
            .into());
        }
        if let Some(&b) = mesh.bones.iter().find(|&&b| b >= bones) {
            return Err(WeightsError::WeightsShape {
                problem: WeightsShapeProblem::ArtistBone { bone: b, bones },
            }
            .into());
        }
    }
    Ok(())
}

/// An artist rig's clips sampled once, to score many weights on them: per frame the bones'
/// skinning transforms and where the artist's weights put every vertex.
#[derive(Debug, Clone)]
pub struct ArtistClipFrames {
    frames: Vec<SampledFrame>,
}

#[derive(Debug, Clone)]
struct SampledFrame {
    affines: Vec<Affine2>,
    artist: Vec<Point2<f64>>,
}

/// One mesh's scores over the clips of an [`ArtistClipFrames`].
#[derive(Debug, Clone, PartialEq)]
pub struct ClipScore {
    /// Per frame (every frame of every clip, in order), the worst vertex's distance from
    /// where the artist's weights put it, % of the mesh's diagonal.
    pub frame_deviation_pct: Vec<f64>,
    /// (triangle, frame) pairs of the mesh flipped relative to rest with the weights.
    pub flipped: usize,
    /// The same with the artist's weights.
    pub artist_flipped: usize,
    /// Triangles of the mesh times frames: what `flipped` counts out of.
    pub triangle_frames: usize,
}

impl ArtistClipFrames {
    /// Samples every clip at `fps` frames per second ([`Clip::frame_times`]; the scene's IK
    /// applied, [`Scene::clip_pose`]) and skins the rest mesh with `artist`.
    ///
    /// Errors: `artist` of the wrong shape ([`WeightsError::WeightsShape`]); a clip naming a bone
    /// the skeleton lacks or a bad frame rate (the clip's and [`Clip::frame_times`]' errors).
    pub fn new(scene: &Scene, artist: &Weights, clips: &[Clip], fps: f64) -> Result<Self> {
        check_shapes(scene, &[artist], &[])?;
        let mut times = Vec::new();
        for clip in clips {
            clip.check(&scene.skeleton)?;
            times.extend(clip.frame_times(fps)?.into_iter().map(|t| (clip, t)));
        }
        let rest = scene.mesh.vertices();
        let rows = SparseRows::new(artist, 0..rest.len());
        // Frames are independent: sampled in parallel, kept in clip and time order.
        let frames = times
            .par_iter()
            .map(|&(clip, t)| {
                let pose = scene.clip_pose(clip, t)?;
                let affines = scene.skeleton.skinning_affines(&pose)?;
                let artist = (0..rest.len())
                    .map(|v| rows.skin(v, rest[v], &affines))
                    .collect();
                Ok(SampledFrame { affines, artist })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(ArtistClipFrames { frames })
    }

    /// Frames sampled over all clips.
    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }

    /// The clip scores of `weights` on each of `meshes` (whole-scene weights, as for
    /// [`score_against_artist`]).
    ///
    /// Errors: weights of the wrong shape or a mesh out of range ([`WeightsError::WeightsShape`]).
    pub fn score(
        &self,
        scene: &Scene,
        weights: &Weights,
        meshes: &[ArtistMesh<'_>],
    ) -> Result<Vec<ClipScore>> {
        check_shapes(scene, &[weights], meshes)?;
        let rest = scene.mesh.vertices();
        let triangles = mesh_triangles(scene, meshes);
        let diagonals = mesh_diagonals(rest, meshes);
        let rest_signs: Vec<Vec<f64>> = triangles
            .iter()
            .map(|ts| ts.iter().map(|t| area2(rest, t).signum()).collect())
            .collect();
        // The meshes' vertices, each skinned once per frame from its nonzero entries.
        let order: Vec<usize> = meshes
            .iter()
            .flat_map(|m| m.vertices.iter().copied())
            .collect();
        let rows = SparseRows::new(weights, order.iter().copied());
        let mut offsets = vec![0];
        for m in meshes {
            offsets.push(offsets[offsets.len() - 1] + m.vertices.len());
        }
        let local_triangles = local_triangles(&triangles, meshes, &offsets, rest.len());
        // Per frame and mesh: the worst deviation, the flips with the weights and the artist's.
        let per_frame: Vec<Vec<(f64, usize, usize)>> = self
            .frames
            .par_iter()
            .map_init(Vec::new, |ours, frame| {
                ours.clear();
                ours.extend(
                    order
                        .iter()
                        .enumerate()
                        .map(|(k, &v)| rows.skin(k, rest[v], &frame.affines)),
                );
                meshes
                    .iter()
                    .enumerate()
                    .map(|(k, mesh)| {
                        let o = offsets[k];
                        let worst = mesh
                            .vertices
                            .iter()
                            .enumerate()
                            .map(|(i, &v)| (ours[o + i] - frame.artist[v]).norm())
                            .fold(0.0, f64::max);
                        let mut flipped = 0;
                        let mut artist_flipped = 0;
                        for ((t, lt), &sign) in triangles[k]
                            .iter()
                            .zip(&local_triangles[k])
                            .zip(&rest_signs[k])
                        {
                            flipped += usize::from(area2(ours, lt) * sign <= 0.0);
                            artist_flipped += usize::from(area2(&frame.artist, t) * sign <= 0.0);
                        }
                        (100.0 * worst / diagonals[k], flipped, artist_flipped)
                    })
                    .collect()
            })
            .collect();
        let scores = triangles
            .iter()
            .enumerate()
            .map(|(k, ts)| ClipScore {
                frame_deviation_pct: per_frame.iter().map(|f| f[k].0).collect(),
                flipped: per_frame.iter().map(|f| f[k].1).sum(),
                artist_flipped: per_frame.iter().map(|f| f[k].2).sum(),
                triangle_frames: ts.len() * self.frames.len(),
            })
            .collect();
        Ok(scores)
    }
}

/// Per mesh, the diagonal of its rest bounding box (never 0).
fn mesh_diagonals(rest: &[Point2<f64>], meshes: &[ArtistMesh<'_>]) -> Vec<f64> {
    meshes
        .iter()
        .map(|m| {
            let points: Vec<_> = m.vertices.iter().map(|&v| rest[v]).collect();
            diagonal_of(&points).max(f64::MIN_POSITIVE)
        })
        .collect()
}

/// Per mesh, its `triangles` renumbered into the meshes' vertices laid end to end (mesh `k`
/// from `offsets[k]`), as [`ArtistClipFrames::score`] skins them; `n` scene vertices.
fn local_triangles(
    triangles: &[Vec<[usize; 3]>],
    meshes: &[ArtistMesh<'_>],
    offsets: &[usize],
    n: usize,
) -> Vec<Vec<[usize; 3]>> {
    triangles
        .iter()
        .zip(meshes)
        .zip(offsets)
        .map(|((ts, m), &o)| {
            let mut local = vec![usize::MAX; n];
            m.vertices
                .iter()
                .enumerate()
                .for_each(|(k, &v)| local[v] = o + k);
            ts.iter().map(|t| t.map(|v| local[v])).collect()
        })
        .collect()
}

/// Per mesh, the scene triangles whose three corners are vertices of the mesh.
fn mesh_triangles(scene: &Scene, meshes: &[ArtistMesh<'_>]) -> Vec<Vec<[usize; 3]>> {
    let mut owner = vec![usize::MAX; scene.mesh.vertex_count()];
    let mut out = vec![Vec::new(); meshes.len()];
    for (k, m) in meshes.iter().enumerate() {
        m.vertices.iter().for_each(|&v| owner[v] = k);
        out[k] = scene
            .mesh
            .triangles()
            .iter()
            .filter(|t| t.iter().all(|&v| owner[v] == k))
            .copied()
            .collect();
    }
    out
}

fn area2(points: &[Point2<f64>], t: &[usize; 3]) -> f64 {
    signed_area2(&points[t[0]], &points[t[1]], &points[t[2]])
}

/// The length of the bounding-box diagonal of `points` (0 for none).
pub fn diagonal_of(points: &[Point2<f64>]) -> f64 {
    let mut lo = Point2::new(f64::INFINITY, f64::INFINITY);
    let mut hi = Point2::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
    for p in points {
        lo = Point2::new(lo.x.min(p.x), lo.y.min(p.y));
        hi = Point2::new(hi.x.max(p.x), hi.y.max(p.y));
    }
    if points.is_empty() {
        0.0
    } else {
        (hi - lo).norm()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::Mesh;
    use crate::skeleton::{Bone, Skeleton};
    use crate::Error;

    fn strip() -> Scene {
        let mesh = Mesh::new(
            vec![
                Point2::new(0.0, 0.0),
                Point2::new(2.0, 0.0),
                Point2::new(2.0, 1.0),
                Point2::new(0.0, 1.0),
            ],
            vec![[0, 1, 2], [0, 2, 3]],
        )
        .unwrap();
        let skeleton = Skeleton::new(vec![
            Bone::new("a", Point2::new(0.0, 0.5), Point2::new(1.0, 0.5)),
            Bone::new("b", Point2::new(1.0, 0.5), Point2::new(2.0, 0.5)).with_parent(0),
        ])
        .unwrap();
        Scene::from_mesh(mesh, skeleton).unwrap()
    }

    /// The artist's weights on the strip: the right end on bone b.
    fn artist_weights() -> Weights {
        let rows = [[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [1.0, 0.0]].map(|r| r.to_vec());
        Weights::from_rows(&rows, 2).unwrap()
    }

    /// The artist's weights with vertex 1 (2, 0) given to bone a instead of b.
    fn vertex_1_on_a() -> Weights {
        let rows = [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]].map(|r| r.to_vec());
        Weights::from_rows(&rows, 2).unwrap()
    }

    fn whole() -> ArtistMesh<'static> {
        ArtistMesh {
            vertices: &[0, 1, 2, 3],
            bones: &[0, 1],
        }
    }

    #[test]
    fn a_tie_in_the_artists_row_accepts_either_bone() {
        assert!(dominant_agrees(&[0.2, 0.8], &[0.5, 0.5]));
        assert!(dominant_agrees(&[0.8, 0.2], &[0.5, 0.5]));
        assert!(!dominant_agrees(&[0.8, 0.2], &[0.4, 0.6]));
        assert!((weight_distance(&[0.8, 0.2], &[0.4, 0.6]) - 0.4).abs() < 1e-15);
    }

    #[test]
    fn the_artists_own_weights_score_perfectly_and_others_do_not() {
        let scene = strip();
        let artist = artist_weights();
        let own =
            score_against_artist(&scene, &artist, &artist, whole(), &Default::default()).unwrap();
        assert_eq!(own.agreeing, 4);
        assert_eq!(own.weight_distance(), 0.0);
        assert!(own.one_bone_deviation_pct.iter().all(|&d| d == 0.0));

        // Vertex 1 (2, 0) given to bone a instead of b: rotating a by 40 degrees about
        // (0, 0.5) moves it with a, while the artist's weights move it with b, whose head is
        // carried by a as well; rotating b moves only the artist's copy.
        let other = vertex_1_on_a();
        let s =
            score_against_artist(&scene, &other, &artist, whole(), &Default::default()).unwrap();
        assert_eq!(s.agreeing, 3);
        assert!((s.weight_distance() - 0.25).abs() < 1e-15);
        // Rotating a moves b rigidly with it: both copies of vertex 1 agree.
        assert!(s.one_bone_deviation_pct[0] < 1e-12);
        // Rotating b by 40 degrees about (1, 0.5) moves (2, 0) by 2 |sin 20| |(1, -0.5)|.
        let expected = 2.0 * (20f64).to_radians().sin() * (1.25f64).sqrt();
        let diagonal = 5f64.sqrt();
        assert!((s.one_bone_deviation_pct[1] - 100.0 * expected / diagonal).abs() < 1e-9);
    }

    #[test]
    fn clip_deviation_is_zero_for_the_artist_and_the_one_bone_figure_at_the_key() {
        use crate::animation::{BoneTrack, ChannelKind, Key};
        let scene = strip();
        let artist = artist_weights();
        let other = vertex_1_on_a();
        // Bone b swings 0 -> 40 degrees over one second: frames at 0, 0.5 and 1 s.
        let clip = Clip::new("swing", 1.0).with_track(BoneTrack::new("b").with(
            ChannelKind::Rotation,
            vec![Key::new(0.0, 0.0), Key::new(1.0, 40.0)],
        ));
        let frames = ArtistClipFrames::new(&scene, &artist, &[clip], 2.0).unwrap();
        assert_eq!(frames.frame_count(), 3);
        let own = frames.score(&scene, &artist, &[whole()]).unwrap();
        assert_eq!(own[0].frame_deviation_pct, vec![0.0; 3]);
        assert_eq!(own[0].flipped, own[0].artist_flipped);
        assert_eq!(own[0].triangle_frames, 6);
        let s = frames.score(&scene, &other, &[whole()]).unwrap();
        let d = &s[0].frame_deviation_pct;
        assert_eq!(d[0], 0.0);
        // At 1 s the pose is the one-bone 40-degree rotation of b.
        let one = score_against_artist(&scene, &other, &artist, whole(), &Default::default())
            .unwrap()
            .one_bone_deviation_pct[1];
        assert!((d[2] - one).abs() < 1e-12, "{} vs {one}", d[2]);
        // Halfway, 20 degrees: 2 |sin 10| |(1, -0.5)| over the diagonal.
        let expected = 2.0 * (10f64).to_radians().sin() * (1.25f64).sqrt() / 5f64.sqrt();
        assert!((d[1] - 100.0 * expected).abs() < 1e-9);
        // Out-of-range meshes are typed errors.
        let bad = ArtistMesh {
            vertices: &[7],
            bones: &[0],
        };
        assert!(matches!(
            frames.score(&scene, &artist, &[bad]),
            Err(Error::Weights(WeightsError::WeightsShape { .. }))
        ));
    }
}
