//! What the `view` page may ask, checked into library values, and the answers as JSON: the
//! scene's geometry, a solver's weights, and a pose's positions with its live metrics.
//!
//! Everything numeric is the library's: solvers through the registry ([`solver_by_name`]),
//! posing through [`skinweights::skinning`], metrics through [`skinweights::metrics`] (the
//! same functions `compare` runs, so a probe's pose shows `compare`'s numbers).

use crate::cli::error::{CliError, Result};
use base64::Engine;
use nalgebra::Point2;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use skinweights::binding::Binding;
use skinweights::metrics::clip::{clip_metrics, ClipOptions, FrameMetrics};
use skinweights::metrics::{owning_bones, pose_metrics, PoseMetrics};
use skinweights::pipeline;
use skinweights::scene::{builtin_scene, ArtImage, BuiltinOptions, Probe, Scene, BUILTIN_SCENES};
use skinweights::skeleton::Pose;
use skinweights::skinning::{dqs_with_transforms, lbs_with_transforms, HalfAngleHelper};
use skinweights::solvers::{solver_by_name, SolverEntry, SOLVERS, SOLVER_NAMES};
use skinweights::weights::Weights;
use skinweights::Error;
use skinweights::{ArgumentError, FormatError, SkeletonError, SolverError};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Largest mesh the page is offered (vertices): beyond it a pose no longer redraws at
/// interactive rates and the page's arrays run to tens of MB.
pub const MAX_VIEW_VERTICES: usize = 200_000;

/// Bytes of solved weights kept per server (oldest dropped first), so switching back to a
/// solver is instant: 24 solves of a 10k-vertex, 5-bone scene take 10 MB.
const WEIGHTS_CACHE_BYTES: usize = 256 << 20;
/// Scenes kept besides the one given on the command line.
const SCENE_CACHE: usize = 4;

/// How the mesh is posed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SkinMode {
    /// Linear blend skinning (what `compare` measures).
    #[default]
    Lbs,
    /// 2D dual-quaternion skinning.
    Dqs,
    /// LBS with a half-angle helper bone at every joint.
    Helper,
}

/// One request from the page: which scene, solver and options, and (for `/api/pose`) the
/// pose. Unknown fields are refused so a typo does not pass silently.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewRequest {
    /// Scene: the one given on the command line (by its name, or empty) or a built-in name.
    #[serde(default)]
    pub scene: String,
    /// Vertex count for a built-in scene (default: the command line's, or 10 000).
    #[serde(default)]
    pub vertices: Option<usize>,
    /// Solver registry name, e.g. `heat+mask`.
    #[serde(default)]
    pub solver: String,
    /// Solver options as `key: value` (strings, numbers or booleans; `null` = unset).
    #[serde(default)]
    pub options: BTreeMap<String, Value>,
    /// Rotation in degrees per bone name.
    #[serde(default)]
    pub pose: BTreeMap<String, Value>,
    /// Skinning used to pose.
    #[serde(default)]
    pub skinning: SkinMode,
    /// Probe whose watched vertices the metrics measure (default: the scene's first).
    #[serde(default)]
    pub probe: Option<String>,
    /// Clip to play (`/api/clip`).
    #[serde(default)]
    pub clip: Option<String>,
    /// Frames per second the clip is sampled at (`/api/clip`; default
    /// [`skinweights::animation::DEFAULT_FPS`]).
    #[serde(default)]
    pub fps: Option<f64>,
}

/// Most vertex positions (frames x vertices) one `/api/clip` answer carries: 20M f32 pairs
/// are 160 MB of base64, about what a browser tab decodes without stalling for seconds.
pub const MAX_CLIP_POSITIONS: usize = 20_000_000;

/// A solve kept in the cache.
pub struct Solved {
    /// The weights.
    pub weights: Weights,
    /// Solver wall time, seconds.
    pub seconds: f64,
    /// Warnings from the solver's report.
    pub warnings: Vec<String>,
}

type SceneKey = (String, Option<usize>);

/// The server's state: the command line's scene, and caches of generated scenes and solves.
pub struct Viewer {
    /// The command line's scene: its name, and its vertex count when it is a built-in.
    startup: SceneKey,
    /// Whether the command line named no scene (the two-bone demo state applies).
    seeds: bool,
    scenes: Mutex<Vec<(SceneKey, Arc<Scene>)>>,
    weights: Mutex<Vec<(String, Arc<Solved>)>>,
    builtin_vertices: usize,
    /// Reference weights of the command line's scene (`--reference`): clip frames then
    /// show the deviation from them.
    reference: Option<Weights>,
    /// How solves of the command line's scene bind its meshes (`--bones`, `--bind`); `None`:
    /// the whole solve over every bone.
    startup_binding: Option<Binding>,
    /// The skin the command line's scene shows (`--skin`); `None`: the default skin.
    skin: Option<String>,
    /// A costume transfer of the command line's scene (`--transfer-from`): its weights are
    /// the transfer's, and the page draws the sources beside the targets.
    transfer: Option<super::transfer::TransferView>,
}

/// Parses a request body; the error says what is wrong with the JSON.
pub fn parse_request(body: &[u8]) -> Result<ViewRequest> {
    serde_json::from_slice(body).map_err(|e| {
        FormatError::Json {
            context: "request".into(),
            message: e.to_string(),
        }
        .into()
    })
}

impl Viewer {
    /// A viewer serving `scene` first. `seeds`: the command line named no scene, so the page
    /// opens on the two-bone demo. `builtin_vertices` is the vertex count of built-in scenes
    /// (the command line's `--vertices`).
    pub fn new(scene: Scene, seeds: bool, builtin_vertices: usize) -> Result<Self> {
        check_size(&scene)?;
        let builtin = BUILTIN_SCENES.contains(&scene.name());
        let key = (
            scene.name().to_string(),
            builtin.then_some(builtin_vertices),
        );
        Ok(Viewer {
            startup: key.clone(),
            seeds,
            scenes: Mutex::new(vec![(key, Arc::new(scene))]),
            weights: Mutex::new(Vec::new()),
            builtin_vertices,
            reference: None,
            startup_binding: None,
            skin: None,
            transfer: None,
        })
    }

    /// The command line's scene shows skin `skin` (a rig imported with `--skin all`).
    /// Errors: a skin its art does not name ([`skinweights::scene::Art::check_skin`]).
    pub fn with_skin(mut self, skin: Option<String>) -> Result<Self> {
        if let Some(k) = &skin {
            let scene = lock(&self.scenes)[0].1.clone();
            drawn_layers(&scene, Some(k), &BTreeMap::new())?;
        }
        self.skin = skin;
        Ok(self)
    }

    /// The skin a scene shows: `--skin` for the command line's scene, the default for others.
    fn skin_of(&self, key: &SceneKey) -> Option<&str> {
        self.skin.as_deref().filter(|_| *key == self.startup)
    }

    /// Clip frames of the command line's scene measure their deviation from `reference`
    /// (whose shape the caller checked against that scene).
    pub fn with_reference(mut self, reference: Option<Weights>) -> Self {
        self.reference = reference;
        self
    }

    /// Solves of the command line's scene use `binding` (its bones and how meshes are bound).
    pub fn with_binding(mut self, binding: Binding) -> Self {
        self.startup_binding = Some(binding);
        self
    }

    /// Solves of the command line's scene are `transfer`'s: the artist's weights with its
    /// targets transferred (the solver weights only what the sources do not cover).
    pub fn with_transfer(mut self, transfer: Option<super::transfer::TransferView>) -> Self {
        self.transfer = transfer;
        self
    }

    /// The scene a request names (empty: the command line's), with its cache key: the
    /// startup scene, or a built-in generated once and cached.
    pub fn scene(&self, req: &ViewRequest) -> Result<(SceneKey, Arc<Scene>)> {
        let startup = req.scene.is_empty()
            || (req.scene == self.startup.0
                && (req.vertices.is_none() || req.vertices == self.startup.1));
        let key: SceneKey = if startup {
            self.startup.clone()
        } else {
            (
                req.scene.clone(),
                Some(req.vertices.unwrap_or(self.builtin_vertices)),
            )
        };
        if let Some(s) = lock(&self.scenes).iter().find(|(k, _)| *k == key) {
            return Ok((key, s.1.clone()));
        }
        if !BUILTIN_SCENES.contains(&req.scene.as_str()) {
            return Err(CliError::UnknownScene {
                name: req.scene.clone(),
                known: BUILTIN_SCENES.join(", "),
                server: Some(self.startup.0.clone()),
            });
        }
        let vertices = key.1.unwrap_or(self.builtin_vertices);
        if vertices > MAX_VIEW_VERTICES {
            return Err(too_large(&req.scene, vertices));
        }
        let scene = Arc::new(builtin_scene(
            &req.scene,
            &BuiltinOptions::default().with_vertices(vertices),
        )?);
        check_size(&scene)?;
        let mut scenes = lock(&self.scenes);
        if scenes.len() > SCENE_CACHE {
            // Keep the startup scene (index 0), drop the oldest generated one.
            scenes.remove(1);
        }
        scenes.push((key.clone(), scene.clone()));
        Ok((key, scene))
    }

    /// Everything the page draws and offers for a scene: geometry, bones, probes (with their
    /// watched vertices), the solvers with their options, and the initial state.
    pub fn scene_info(&self, req: &ViewRequest) -> Result<Value> {
        let (key, scene) = self.scene(req)?;
        let mut info = scene_json(&scene)?;
        // Which layers are drawn at rest and in poses: one attachment per slot.
        set_drawn(&mut info, &scene, self.skin_of(&key))?;
        info["solvers"] = solvers_json();
        info["default_state"] = default_state(&scene, self.seeds && key == self.startup, key.1);
        // A rig with the artist's weights and clips but no probe opens on its first clip,
        // measured against the artist: the deviation is what there is to see.
        if key == self.startup && self.reference.is_some() && scene.probes().is_empty() {
            if let Some(clip) = scene.clips().first() {
                info["default_state"]["clip"] = json!(clip.name);
            }
        }
        if let Some(t) = self.transfer.as_ref().filter(|_| key == self.startup) {
            info["transfer"] = t.page_json(&scene);
            // Weight colours show what was carried over; the art would hide it.
            if info["default_state"]["colour"] == "art" {
                info["default_state"]["colour"] = json!("blend");
            }
        }
        Ok(info)
    }

    /// The request's solver on its scene, from the cache or solved now.
    pub fn solved(
        &self,
        (scene_key, scene): &(SceneKey, Arc<Scene>),
        req: &ViewRequest,
    ) -> Result<Arc<Solved>> {
        let options = option_pairs(&req.options)?;
        let solver = solver_by_name(&req.solver, &options)?;
        let key = format!("{scene_key:?}|{}|{options:?}", req.solver);
        if let Some(s) = lock(&self.weights).iter().find(|(k, _)| *k == key) {
            return Ok(s.1.clone());
        }
        // A solver bug must come back as an error on the page, not kill the request thread
        // silently (the other requests keep being served either way).
        let every: Binding;
        let binding = match (&self.startup_binding, *scene_key == self.startup) {
            (Some(b), true) => b,
            _ => {
                every = Binding::whole((0..scene.skeleton().len()).collect());
                &every
            }
        };
        let transfer = self
            .transfer
            .as_ref()
            .filter(|_| *scene_key == self.startup);
        let solved = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match transfer {
            Some(t) => {
                let started = std::time::Instant::now();
                let (weights, warnings) = t.weights(scene, solver.as_ref())?;
                Ok::<_, CliError>(Solved {
                    weights,
                    seconds: started.elapsed().as_secs_f64(),
                    warnings,
                })
            }
            None => {
                let solution = pipeline::solve(scene, solver.as_ref(), binding, None)?;
                Ok(Solved {
                    weights: solution.weights,
                    seconds: solution.report.seconds,
                    warnings: solution
                        .report
                        .warnings
                        .iter()
                        .map(|w| w.to_string())
                        .collect(),
                })
            }
        }))
        .map_err(|_| {
            Error::Solver(SolverError::Solver {
                solver: req.solver.clone(),
                message: format!("panicked on {}; please report it", scene.name()),
            })
        })??;
        let solved = Arc::new(solved);
        let mut cache = lock(&self.weights);
        cache.push((key, solved.clone()));
        let bytes = |c: &[(String, Arc<Solved>)]| -> usize {
            c.iter().map(|(_, s)| s.weights.as_slice().len() * 8).sum()
        };
        while cache.len() > 1 && bytes(&cache) > WEIGHTS_CACHE_BYTES {
            cache.remove(0);
        }
        Ok(solved)
    }

    /// `/api/solve`: the weights (base64 f32, vertex-major), time and warnings.
    pub fn solve(&self, req: &ViewRequest) -> Result<Value> {
        let solved = self.solved(&self.scene(req)?, req)?;
        Ok(json!({
            "solver": req.solver,
            "bones": solved.weights.bone_count(),
            "weights": floats_base64(solved.weights.as_slice().iter().copied(), false),
            "seconds": solved.seconds,
            "warnings": solved.warnings,
        }))
    }

    /// `/api/pose`: posed positions, posed bones, live metrics and per-vertex drag.
    pub fn pose(&self, req: &ViewRequest) -> Result<Value> {
        let keyed = self.scene(req)?;
        let scene = &keyed.1;
        let pose = parse_pose(&req.pose)?;
        // Check the pose before a possibly long solve.
        let segments = scene.skeleton().posed_segments(&pose)?;
        let solved = self.solved(&keyed, req)?;
        let posed = posed_positions(scene, &solved.weights, &pose, req.skinning)?;
        let probe = match scene.probes().is_empty() {
            true => None,
            false => Some(scene.probe(req.probe.as_deref())?),
        };
        let (metrics, drag) = match probe {
            Some(p) => {
                let (m, d) = live_metrics(scene, &solved.weights, &posed, p, &pose)?;
                (json!(m), json!(d))
            }
            None => (Value::Null, Value::Null),
        };
        Ok(json!({
            "positions": floats_base64(posed.iter().flat_map(|p| [p.x, p.y]), false),
            "bones": segments.iter().map(|[h, t]| [h.x, h.y, t.x, t.y]).collect::<Vec<_>>(),
            "metrics": metrics,
            "drag": drag,
            "seconds": solved.seconds,
            "warnings": solved.warnings,
        }))
    }
}

impl Viewer {
    /// `/api/clip`: the request's clip sampled at its fps, every frame's posed positions
    /// (base64 f32, one string a frame) and posed bones, and the clip's metrics from
    /// [`clip_metrics`] (what `eval --clip` prints): per frame flipped triangles, area
    /// change and, with `--reference` weights, the deviation max / p95 / mean; over the clip
    /// the same summary `eval --clip --json` gives. The metrics are LBS's whatever skinning
    /// the page draws with.
    pub fn clip(&self, req: &ViewRequest) -> Result<Value> {
        let keyed = self.scene(req)?;
        let scene = &keyed.1;
        let name = req.clip.as_deref().ok_or_else(|| {
            Error::Argument(ArgumentError::MissingArgument {
                argument: "clip",
                reason: "name the clip to play".into(),
            })
        })?;
        let clip = scene.clip(name)?;
        clip.check(scene.skeleton())?;
        let fps = req.fps.unwrap_or(skinweights::animation::DEFAULT_FPS);
        let times = clip.frame_times(fps)?;
        let count = times.len().saturating_mul(scene.mesh().vertex_count());
        if count > MAX_CLIP_POSITIONS {
            return Err(SolverError::InvalidOption {
                option: "fps".into(),
                message: format!(
                    "{} frames x {} vertices is over the {MAX_CLIP_POSITIONS} positions the \
                     page is sent; lower the fps",
                    times.len(),
                    scene.mesh().vertex_count()
                ),
            }
            .into());
        }
        let solved = self.solved(&keyed, req)?;
        let reference = self.reference.as_ref().filter(|_| keyed.0 == self.startup);
        let mut metrics = clip_metrics(
            scene,
            &solved.weights,
            reference,
            clip,
            &ClipOptions::default().with_fps(fps),
        )?;
        let per_frame = std::mem::take(&mut metrics.per_frame);
        let (mut positions, mut bones) = (Vec::new(), Vec::new());
        // Per frame, which layers are drawn (the attachments the clip's keys select);
        // `null` for a scene whose art has no slots.
        let skin = self.skin_of(&keyed.0);
        let drawn = times
            .iter()
            .map(|&t| drawn_layers(scene, skin, &clip.attachments_at(t)))
            .collect::<Result<Option<Vec<_>>>>()?;
        for &t in &times {
            let pose = scene.clip_pose(clip, t)?;
            let posed = posed_positions(scene, &solved.weights, &pose, req.skinning)?;
            let segments = scene.skeleton().posed_segments(&pose)?;
            positions.push(floats_base64(posed.iter().flat_map(|p| [p.x, p.y]), false));
            bones.push(
                segments
                    .iter()
                    .map(|[h, t]| [h.x, h.y, t.x, t.y])
                    .collect::<Vec<_>>(),
            );
        }
        let column = |f: fn(&FrameMetrics) -> Value| per_frame.iter().map(f).collect::<Vec<_>>();
        Ok(json!({
            "clip": clip.name,
            "duration": clip.duration,
            "fps": fps,
            "times": times,
            "positions": positions,
            "bones": bones,
            "drawn": drawn,
            "metrics": {
                "flipped": column(|f| json!(f.flipped)),
                "area_change_pct": column(|f| json!(f.area_change_pct)),
                "deviation_max_px": column(|f| json!(f.deviation_max_px)),
                "deviation_p95_px": column(|f| json!(f.deviation_p95_px)),
                "deviation_mean_px": column(|f| json!(f.deviation_mean_px)),
            },
            "summary": metrics,
            "reference": reference.is_some(),
            "seconds": solved.seconds,
            "warnings": solved.warnings,
        }))
    }
}

/// Which art layers are drawn (indexed like the art's layers) when the scene shows skin
/// `skin` and a clip's keys set the slots in `keyed`
/// ([`skinweights::scene::Art::drawn_layers`]); `None` when its art has no slots (every
/// layer drawn). Errors: a skin the art does not name.
pub fn drawn_layers(
    scene: &Scene,
    skin: Option<&str>,
    keyed: &BTreeMap<String, Option<String>>,
) -> Result<Option<Vec<bool>>> {
    // The same rule and errors as `render` (drawn_parts checks the skin).
    skinweights::render::drawn_parts(scene, skin, keyed)?;
    Ok(scene
        .art()
        .filter(|a| a.has_slots())
        .map(|a| a.drawn_layers(skin, keyed)))
}

/// Adds to a scene's page data which art layers are drawn at rest (`art.drawn`, one flag a
/// layer) and the rest bounds of what is drawn (`art.drawn_bounds`, the page's first
/// frame), when its art puts layers in slots.
pub fn set_drawn(info: &mut Value, scene: &Scene, skin: Option<&str>) -> Result<()> {
    let Some(drawn) = drawn_layers(scene, skin, &BTreeMap::new())? else {
        return Ok(());
    };
    let mesh = scene.mesh();
    let parts = scene
        .art()
        .map(|a| a.drawn_parts(mesh.parts(), &drawn))
        .unwrap_or_default();
    let kept = skinweights::render::drawn_positions(mesh, mesh.vertices(), &parts);
    let (lo, hi) = kept.iter().fold(
        ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]),
        |(lo, hi), p| {
            (
                [lo[0].min(p.x), lo[1].min(p.y)],
                [hi[0].max(p.x), hi[1].max(p.y)],
            )
        },
    );
    info["art"]["drawn"] = json!(drawn);
    info["art"]["drawn_bounds"] = json!([lo[0], lo[1], hi[0], hi[1]]);
    Ok(())
}

/// The page's initial state (what Reset returns to): the two-bone demo (`seeds`: the two-bone
/// bar, linear falloff, blend width 48, joint angle 55, parent blue / child red, point grid),
/// else the recommended solver ([`skinweights::solvers::RECOMMENDED_SOLVER`]) at the scene's first probe pose, its textured art when it has some, bones
/// coloured by weight otherwise. `vertices`: the
/// built-in's vertex count, so a shared link rebuilds the same mesh.
pub fn default_state(scene: &Scene, seeds: bool, vertices: Option<usize>) -> Value {
    let probe = scene.probes().first().map(|p| p.name.clone());
    if seeds {
        return json!({
            "scene": scene.name(), "vertices": vertices, "solver": "linear",
            "options": {"blend_radius": "48"}, "pose": {"lower": 55.0}, "skinning": "lbs",
            "colour": "joint", "bone": "lower", "grid": true, "probe": probe,
        });
    }
    let joint = scene
        .skeleton()
        .bones()
        .iter()
        .find(|b| b.parent.is_some())
        .or(scene.skeleton().bones().first())
        .map(|b| b.name.clone());
    let pose = scene.probes().first().map(|p| p.pose.rotations.clone());
    let colour = if scene.art().is_some() {
        "art"
    } else {
        "blend"
    };
    json!({
        "scene": scene.name(), "vertices": vertices, "solver": skinweights::solvers::RECOMMENDED_SOLVER, "options": {},
        "pose": pose.unwrap_or_default(), "skinning": "lbs", "colour": colour, "bone": joint,
        "grid": false, "probe": probe,
    })
}

/// The page's metrics for the current pose: `compare`'s pose metrics, measured on the watched
/// vertices of `probe` with the pose replaced by the current one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveMetrics {
    /// Probe whose watched vertices are measured.
    pub probe: String,
    /// The library's pose metrics, flattened into this object.
    #[serde(flatten)]
    pub metrics: PoseMetrics,
}

/// Live metrics of `posed` (positions of every vertex in `pose`) and the drag of each of
/// `probe`'s watched vertices, % of height (in the order of `probe.watched_vertices`). With
/// LBS positions these are exactly `metrics::evaluate`'s numbers for the same pose.
pub fn live_metrics(
    scene: &Scene,
    weights: &Weights,
    posed: &[Point2<f64>],
    probe: &Probe,
    pose: &Pose,
) -> Result<(LiveMetrics, Vec<f64>)> {
    let probe = Probe {
        name: probe.name.clone(),
        pose: pose.clone(),
        watch: probe.watch.clone(),
    };
    let (metrics, drag) = pose_metrics(scene, weights, &probe, posed)?;
    let m = LiveMetrics {
        probe: probe.name,
        metrics,
    };
    let pct = 100.0 / drag.height;
    Ok((m, drag.displacement.iter().map(|d| d * pct).collect()))
}

/// Every vertex of `scene` posed with `weights` by `mode`.
pub fn posed_positions(
    scene: &Scene,
    weights: &Weights,
    pose: &Pose,
    mode: SkinMode,
) -> skinweights::Result<Vec<Point2<f64>>> {
    let rest = scene.mesh().vertices();
    match mode {
        SkinMode::Lbs => {
            // The drawn character: LBS plus the scene's correctives (none: LBS exactly).
            let mut posed =
                lbs_with_transforms(rest, weights, &scene.skeleton().skinning_transforms(pose)?)?;
            scene.apply_correctives(pose, &mut posed)?;
            Ok(posed)
        }
        SkinMode::Dqs => {
            dqs_with_transforms(rest, weights, &scene.skeleton().skinning_transforms(pose)?)
        }
        SkinMode::Helper => {
            // One helper per joint, added in bone order; each moves that joint's blend.
            let (mut skeleton, mut w, mut driven) =
                (scene.skeleton().clone(), weights.clone(), pose.clone());
            for bone in scene
                .skeleton()
                .bones()
                .iter()
                .filter(|b| b.parent.is_some())
            {
                let (ext, ext_w, helper) = HalfAngleHelper::add(&skeleton, &w, &bone.name)?;
                driven = helper.drive(&ext, &driven);
                (skeleton, w) = (ext, ext_w);
            }
            lbs_with_transforms(rest, &w, &skeleton.skinning_transforms(&driven)?)
        }
    }
}

/// A pose from the page: every value a finite number of degrees (bones are checked when the
/// pose is used).
pub fn parse_pose(raw: &BTreeMap<String, Value>) -> Result<Pose> {
    let mut pose = Pose::rest();
    for (bone, v) in raw {
        match v.as_f64() {
            Some(d) if d.is_finite() => pose = pose.rotate(bone.clone(), d),
            _ => {
                return Err(SkeletonError::NonFinitePose {
                    bone: bone.clone(),
                    field: "rotation",
                }
                .into())
            }
        }
    }
    Ok(pose)
}

/// Options as the registry's `key=value` text pairs; `null` leaves an option unset.
pub fn option_pairs(raw: &BTreeMap<String, Value>) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (k, v) in raw {
        let text = match v {
            Value::Null => continue,
            Value::String(s) if s.trim().is_empty() => continue,
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            other => {
                return Err(SolverError::InvalidOption {
                    option: k.clone(),
                    message: format!("{other} is not a number, text or true/false"),
                }
                .into())
            }
        };
        out.push((k.clone(), text));
    }
    Ok(out)
}

/// The scene as the page needs it: rest geometry (full precision: the page recomputes
/// positions from it when it runs without the server), parts, bones, probes with their
/// watched vertices, the owning bone of every vertex (for drag), height and area.
pub fn scene_json(scene: &Scene) -> Result<Value> {
    let mesh = scene.mesh();
    let bones = scene.skeleton().bones();
    let probes = scene
        .probes()
        .iter()
        .map(|p| {
            Ok(json!({
                "name": p.name,
                "pose": p.pose.rotations,
                "watched": p.watched_vertices(scene)?,
            }))
        })
        .collect::<Result<Vec<_>>>()?;
    let owners: Vec<i64> = owning_bones(scene)
        .iter()
        .map(|o| o.map_or(-1, |j| j as i64))
        .collect();
    let (lo, hi) = mesh.bounds();
    let art = scene.art().map(|art| {
        let images: Vec<Value> = art.images.iter().map(image_data_url).collect();
        json!({
            "images": images,
            "uvs": art.uvs.iter().flat_map(|p| [p.x, p.y]).collect::<Vec<_>>(),
            "layers": art.layers.iter().map(|l| json!({
                "part": mesh.part_index(&l.part),
                "image": l.image,
            })).collect::<Vec<_>>(),
        })
    });
    Ok(json!({
        "art": art,
        "name": scene.name(),
        "vertices": mesh.vertices().iter().flat_map(|p| [p.x, p.y]).collect::<Vec<_>>(),
        "triangles": mesh.triangles().iter().flatten().collect::<Vec<_>>(),
        "parts": mesh.parts(),
        "vertex_parts": mesh.vertex_parts(),
        "bones": bones.iter().map(|b| json!({
            "name": b.name,
            "parent": b.parent,
            "head": [b.head.x, b.head.y],
            "tail": [b.tail.x, b.tail.y],
            "part": b.part,
        })).collect::<Vec<_>>(),
        "probes": probes,
        "clips": scene.clips().iter().map(|c| json!({
            "name": c.name, "duration": c.duration,
        })).collect::<Vec<_>>(),
        "owners": owners,
        "height": mesh.height(),
        "area": mesh.area(),
        "bounds": [lo.x, lo.y, hi.x, hi.y],
    }))
}

/// Largest art image inlined into the page, bytes.
const MAX_IMAGE_BYTES: u64 = 16 << 20;

/// An art image as a `data:` URL the page can draw, or `{"error": ...}` naming the file when
/// it cannot be read (the page then draws that layer flat and says why).
fn image_data_url(image: &ArtImage) -> Value {
    let path = &image.path;
    let read = || -> std::result::Result<Vec<u8>, String> {
        let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
        if size > MAX_IMAGE_BYTES {
            return Err(format!(
                "{size} bytes, the page inlines at most {MAX_IMAGE_BYTES}"
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Err("not a PNG file".into());
        }
        Ok(bytes)
    };
    match read() {
        Ok(bytes) => json!({
            "url": format!(
                "data:image/png;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(bytes)
            ),
            "alpha": image.alpha.name(),
        }),
        Err(e) => json!({"error": format!("art image {}: {e}", path.display())}),
    }
}

/// Every registered solver (each entry of the registry, then the `+mask` form of each
/// unmasked one the registry does not list) with its documented options and their defaults.
pub fn solvers_json() -> Value {
    let docs = |e: &SolverEntry| -> Vec<Value> {
        e.all_options()
            .into_iter()
            .map(|o| json!({"key": o.key, "value": o.value, "doc": o.doc, "default": o.default}))
            .collect()
    };
    let mut out: Vec<Value> = SOLVERS
        .iter()
        .map(|e| json!({"name": e.name, "options": docs(e)}))
        .collect();
    for e in SOLVERS.iter().filter(|e| !e.masked) {
        let name = format!("{}+mask", e.name);
        if !SOLVER_NAMES.contains(&name.as_str()) {
            out.push(json!({"name": name, "options": docs(e)}));
        }
    }
    Value::Array(out)
}

/// Values as base64 of little-endian floats, f64 when `exact` else f32 (the page decodes it
/// with a `Float64Array` / `Float32Array`). f32 is enough to draw; the `--html` page poses
/// and measures from f64 weights so its numbers match the library's.
pub fn floats_base64(values: impl Iterator<Item = f64>, exact: bool) -> String {
    let bytes: Vec<u8> = if exact {
        values.flat_map(f64::to_le_bytes).collect()
    } else {
        values.flat_map(|v| (v as f32).to_le_bytes()).collect()
    };
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Refuses a scene larger than [`MAX_VIEW_VERTICES`].
pub fn check_size(scene: &Scene) -> Result<()> {
    let n = scene.mesh().vertex_count();
    if n > MAX_VIEW_VERTICES {
        return Err(too_large(scene.name(), n));
    }
    Ok(())
}

fn too_large(name: &str, vertices: usize) -> CliError {
    CliError::ViewTooLarge {
        scene: name.to_string(),
        vertices,
        max: MAX_VIEW_VERTICES,
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding the lock only interrupted a cache update; the data is still whole.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A map for error bodies.
pub fn error_json(e: &CliError) -> Value {
    json!({ "error": e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use skinweights::metrics::{area_change_pct, evaluate};
    use skinweights::SceneError;

    fn viewer() -> Viewer {
        let bar = builtin_scene("bar", &BuiltinOptions::default().with_vertices(500)).unwrap();
        Viewer::new(bar, true, 500).unwrap()
    }

    fn req(v: Value) -> ViewRequest {
        parse_request(v.to_string().as_bytes()).unwrap()
    }

    fn error_of(r: Result<Value>) -> String {
        r.expect_err("must be refused").to_string()
    }

    #[test]
    fn options_and_pose_are_checked_into_library_values() {
        let pairs = option_pairs(
            &req(json!({"options": {"a": 1.5, "b": "x", "c": true, "d": null, "e": " "}})).options,
        )
        .unwrap();
        let want = [("a", "1.5"), ("b", "x"), ("c", "true")];
        assert_eq!(pairs.len(), 3);
        for ((k, v), (wk, wv)) in pairs.iter().zip(want) {
            assert_eq!((k.as_str(), v.as_str()), (wk, wv));
        }
        let e = option_pairs(&req(json!({"options": {"a": [1]}})).options).unwrap_err();
        assert!(
            matches!(&e, CliError::Lib(Error::Solver(SolverError::InvalidOption { option, .. })) if option == "a"),
            "{e:?}"
        );
        let pose = parse_pose(&req(json!({"pose": {"lower": -30.5}})).pose).unwrap();
        assert_eq!(pose.rotations["lower"], -30.5);
        for bad in [json!(null), json!("12"), json!([1])] {
            let e = parse_pose(&req(json!({"pose": {"lower": bad}})).pose).unwrap_err();
            assert!(
                matches!(
                    &e,
                    CliError::Lib(Error::Skeleton(SkeletonError::NonFinitePose {
                        bone,
                        field: "rotation"
                    })) if bone == "lower"
                ),
                "{e:?}"
            );
        }
        // JSON cannot carry inf or NaN; 1e999 is refused by the parser.
        assert!(parse_request(br#"{"pose": {"lower": 1e999}}"#).is_err());
        match parse_request(br#"{"solver": "heat", "colour": "red"}"#) {
            Err(CliError::Lib(Error::Format(FormatError::Json { message, .. }))) => {
                assert!(message.contains("unknown field `colour`"), "{message}")
            }
            other => panic!("{:?}", other.err()),
        }
    }

    #[test]
    fn bad_requests_get_errors_naming_the_problem() {
        let v = viewer();
        let base = json!({"scene": "bar", "solver": "linear", "pose": {"lower": 55}});
        let with = |k: &str, val: Value| {
            let mut b = base.clone();
            b[k] = val;
            req(b)
        };
        for (r, needle) in [
            (with("solver", json!("nope")), "unknown solver \"nope\""),
            (
                with("options", json!({"blend_radius": -1})),
                "blend_radius: must be finite and > 0",
            ),
            (with("options", json!({"radius": 3})), "unknown option"),
            (with("pose", json!({"elbow": 3})), "unknown bone \"elbow\""),
            (with("probe", json!("nope")), "nope"),
            (with("scene", json!("moon")), "neither this server's scene"),
        ] {
            let e = error_of(v.pose(&r));
            assert!(e.contains(needle), "{e:?} lacks {needle:?}");
        }
        let huge = req(json!({"scene": "arms-down", "vertices": MAX_VIEW_VERTICES + 1}));
        let e = error_of(v.scene_info(&huge));
        assert!(e.contains("at most 200000"), "{e}");
    }

    #[test]
    fn refusals_are_typed_variants_naming_the_value() {
        let v = viewer();
        match v.scene(&req(json!({"scene": "moon"}))) {
            Err(CliError::UnknownScene { name, server, .. }) => {
                assert_eq!((name.as_str(), server.as_deref()), ("moon", Some("bar")))
            }
            other => panic!("{:?}", other.map(|_| ())),
        }
        let huge = req(json!({"scene": "arms-down", "vertices": MAX_VIEW_VERTICES + 1}));
        match v.scene_info(&huge) {
            Err(CliError::ViewTooLarge { vertices, max, .. }) => {
                assert_eq!((vertices, max), (MAX_VIEW_VERTICES + 1, MAX_VIEW_VERTICES))
            }
            other => panic!("{other:?}"),
        }
        match v.clip(&req(json!({"scene": "bar"}))) {
            Err(CliError::Lib(Error::Argument(ArgumentError::MissingArgument {
                argument,
                ..
            }))) => assert_eq!(argument, "clip"),
            other => panic!("{other:?}"),
        }
        match v.clip(&req(json!({"scene": "bar", "clip": "walk"}))) {
            Err(CliError::Lib(Error::Scene(SceneError::UnknownClip { clip, .. }))) => {
                assert_eq!(clip, "walk")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn lbs_pose_metrics_are_compares_numbers() {
        let v = viewer();
        let r = req(
            json!({"scene": "bar", "solver": "linear", "options": {"blend_radius": 48},
                   "pose": {"lower": 55}}),
        );
        let answer = v.pose(&r).unwrap();
        let (_, scene) = v.scene(&r).unwrap();
        let w = solver_by_name("linear", [("blend_radius", "48")])
            .unwrap()
            .solve(&scene)
            .unwrap()
            .weights;
        let mut probe = scene.probe(Some("bend")).unwrap().clone();
        probe.pose = Pose::rest().rotate("lower", 55.0);
        let m = evaluate(&scene, &w, &probe).unwrap();
        let got = &answer["metrics"];
        assert_eq!(got["drag_max_pct"].as_f64(), Some(m.drag_max_pct));
        assert_eq!(got["drag_mean_pct"].as_f64(), Some(m.drag_mean_pct));
        assert_eq!(got["leaked_weight"].as_f64(), Some(m.leaked_weight));
        assert_eq!(got["flipped"].as_u64(), Some(m.flipped as u64));
        assert_eq!(got["distortion_p99"].as_f64(), Some(m.distortion_p99));
        assert_eq!(got["area_change_pct"].as_f64(), Some(m.area_change_pct));
        assert!(m.drag_max_pct > 0.0);
        // The lower bone is drawn at 55 degrees.
        let b = &answer["bones"][1];
        let angle = (b[3].as_f64().unwrap() - b[1].as_f64().unwrap())
            .atan2(b[2].as_f64().unwrap() - b[0].as_f64().unwrap())
            .to_degrees();
        assert!((angle - 55.0).abs() < 1e-9, "{angle}");
        // Second ask: from the cache, same numbers.
        assert_eq!(v.pose(&r).unwrap()["metrics"], answer["metrics"]);
    }

    #[test]
    fn every_skinning_keeps_the_rest_pose_and_differs_when_bent() {
        let v = viewer();
        let r = req(json!({"scene": "bar", "solver": "heat"}));
        let keyed = v.scene(&r).unwrap();
        let w = v.solved(&keyed, &r).unwrap();
        let scene = &keyed.1;
        let bent = Pose::rest().rotate("lower", 120.0);
        let mut at_bend = Vec::new();
        for mode in [SkinMode::Lbs, SkinMode::Dqs, SkinMode::Helper] {
            let rest = posed_positions(scene, &w.weights, &Pose::rest(), mode).unwrap();
            let err = rest
                .iter()
                .zip(scene.mesh().vertices())
                .map(|(a, b)| (a - b).norm())
                .fold(0.0, f64::max);
            assert!(err < 1e-9, "{mode:?} moves the rest pose by {err}");
            let p = posed_positions(scene, &w.weights, &bent, mode).unwrap();
            assert!(p.iter().all(|q| q.x.is_finite() && q.y.is_finite()));
            at_bend.push(area_change_pct(scene.mesh(), &p));
        }
        // LBS loses the most area at a 120-degree bend; DQS and helpers less (the
        // candy-wrapper).
        assert!(
            at_bend[0] < at_bend[1] && at_bend[0] < at_bend[2],
            "{at_bend:?}"
        );
    }

    #[test]
    fn seeds_state_and_solver_list() {
        let v = viewer();
        let info = v.scene_info(&req(json!({}))).unwrap();
        let s = &info["default_state"];
        assert_eq!(s["scene"], "bar");
        assert_eq!(s["solver"], "linear");
        assert_eq!(s["options"]["blend_radius"], "48");
        assert_eq!(s["pose"]["lower"], 55.0);
        assert_eq!(s["colour"], "joint");
        let names: Vec<&str> = info["solvers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        for n in [
            "linear",
            "euclidean",
            "heat",
            "mask",
            "heat+mask",
            "bbw",
            "best",
        ] {
            assert!(names.contains(&n), "{n} missing from {names:?}");
            assert!(solver_by_name(n, skinweights::solvers::NO_OPTIONS).is_ok());
        }
        let linear = &info["solvers"][0];
        assert_eq!(linear["options"][0]["key"], "blend_radius");
        assert_eq!(linear["options"][1]["default"], "0.1");
        // Another scene gets its own default state (its first probe's pose).
        let arms = v
            .scene_info(&req(json!({"scene": "arms-down", "vertices": 500})))
            .unwrap();
        assert_eq!(arms["default_state"]["pose"]["upper_arm_l"], -90.0);
        assert_eq!(arms["default_state"]["vertices"], 500);
    }

    /// A rig imported with every skin: the page is told which layers are drawn at rest (one
    /// attachment per slot) and per clip frame (the owl's blink draws its closed eyes at
    /// 0.5 s); an unknown `--skin` is refused naming the skins.
    #[test]
    fn slots_tell_the_page_which_layers_are_drawn() {
        use skinweights::io::spine::{load_spine, SkinSelection, SpineImportOptions};
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/spine/owl/owl-pro.json");
        let options = SpineImportOptions::default().with_skin(SkinSelection::All);
        let rig = load_spine(path, None, &options).unwrap();
        let v = Viewer::new(rig.scene.clone(), false, 500).unwrap();
        let info = v.scene_info(&req(json!({}))).unwrap();
        let flags = |v: &Value| -> Vec<bool> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_bool().unwrap())
                .collect()
        };
        let rest = flags(&info["art"]["drawn"]);
        assert_eq!((rest.len(), rest.iter().filter(|&&d| d).count()), (27, 25));
        assert_eq!(info["art"]["drawn_bounds"].as_array().unwrap().len(), 4);
        let closed: Vec<usize> = (0..27)
            .filter(|&i| {
                let part = info["art"]["layers"][i]["part"].as_u64().unwrap() as usize;
                info["parts"][part]
                    .as_str()
                    .unwrap()
                    .ends_with("eye-closed")
            })
            .collect();
        assert_eq!(closed.len(), 2);
        let clip = v
            .clip(&req(
                json!({"solver": "linear", "clip": "blink", "fps": 30}),
            ))
            .unwrap();
        let times = clip["times"].as_array().unwrap();
        let frame = times
            .iter()
            .position(|t| (t.as_f64().unwrap() - 0.5).abs() < 1e-9)
            .unwrap();
        let blink = flags(&clip["drawn"][frame]);
        assert!(closed.iter().all(|&i| blink[i] && !rest[i]));
        assert_eq!(flags(&clip["drawn"][0]), rest);
        match v.with_skin(Some("nope".into())) {
            Err(CliError::Lib(Error::Argument(ArgumentError::InvalidArgument {
                argument,
                reason,
                ..
            }))) => {
                assert_eq!(argument, "skin");
                assert!(reason.contains("[\"default\"]"), "{reason}");
            }
            _ => panic!("an unknown skin is refused"),
        }
        // A built-in scene has no art: no flags, every part drawn.
        let bar = viewer().scene_info(&req(json!({}))).unwrap();
        assert!(bar["art"].is_null());
    }

    /// A rig with the artist's weights and clips and no probe opens on its first clip, and
    /// the clip's frames carry the deviation from the artist's weights; without the
    /// reference it opens on the rest pose as before.
    #[test]
    fn a_rig_with_the_artists_weights_opens_on_its_clip_deviation() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/spine/owl/owl-pro.json");
        let rig = skinweights::io::spine::load_spine(path, None, &Default::default()).unwrap();
        assert!(rig.scene.probes().is_empty());
        let first = rig.scene.clips()[0].name.clone();
        let plain = Viewer::new(rig.scene.clone(), false, 500).unwrap();
        let info = plain.scene_info(&req(json!({}))).unwrap();
        assert!(info["default_state"].get("clip").is_none());
        let v = Viewer::new(rig.scene.clone(), false, 500)
            .unwrap()
            .with_reference(Some(rig.artist.clone()));
        let info = v.scene_info(&req(json!({}))).unwrap();
        assert_eq!(info["default_state"]["clip"], json!(first));
        let solver = skinweights::solvers::RECOMMENDED_SOLVER;
        let clip = v
            .clip(&req(json!({"solver": solver, "clip": first, "fps": 10})))
            .unwrap();
        let deviation = clip["metrics"]["deviation_max_px"].as_array().unwrap();
        assert!(!deviation.is_empty());
        assert!(deviation
            .iter()
            .all(|d| d.as_f64().is_some_and(f64::is_finite)));
        assert!(clip["summary"]["deviation_max_px"].as_f64().is_some());
    }

    #[test]
    fn floats_round_trip_through_base64() {
        use base64::Engine;
        let xs = [0.1, -2.5, 1e-7];
        for exact in [true, false] {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(floats_base64(xs.iter().copied(), exact))
                .unwrap();
            assert_eq!(bytes.len(), xs.len() * if exact { 8 } else { 4 });
            let first = if exact {
                f64::from_le_bytes(bytes[..8].try_into().unwrap())
            } else {
                f32::from_le_bytes(bytes[..4].try_into().unwrap()) as f64
            };
            assert!((first - 0.1).abs() < if exact { 0.0 } else { 1e-8 } + 1e-17);
        }
    }
}
