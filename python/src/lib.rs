//! The `skinweights` Python module (PyO3, stable ABI): the crate's solvers, metrics and LBS
//! with NumPy arrays in and out, its scene / weights file loaders, and batches (`batch.rs`).
//!
//! Errors of the crate become `skinweights.SkinweightsError` (a `ValueError`) carrying the
//! crate's message; wrong Python types become `TypeError`. Solves and scene generation run
//! with the interpreter detached (the GIL released), so other Python threads keep running.

mod batch;
mod convert;
mod scene;

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use scene::PyScene;
use skinweights::binding::Bind;
use skinweights::compare::{MetricValue, METRIC_COLUMNS};
use skinweights::io::WeightsFile;
use skinweights::{metrics, scene::BuiltinOptions};
use std::path::PathBuf;

pyo3::create_exception!(
    skinweights,
    SkinweightsError,
    pyo3::exceptions::PyValueError,
    "Bad input or a failed solve; the message names the vertex, triangle, bone or field."
);

/// The crate's error as a Python exception with its message.
pub(crate) fn to_py(e: skinweights::Error) -> PyErr {
    SkinweightsError::new_err(e.to_string())
}

/// The solver the module uses when none is named: the crate's recommended solver.
const DEFAULT_SOLVER: &str = skinweights::solvers::RECOMMENDED_SOLVER;

fn weights_array<'py>(
    py: Python<'py>,
    w: &skinweights::weights::Weights,
) -> Bound<'py, PyArray2<f64>> {
    Array2::from_shape_vec((w.vertex_count(), w.bone_count()), w.as_slice().to_vec())
        .expect("rows x bones values")
        .into_pyarray(py)
}

/// (n, 2) float64 array of points.
pub(crate) fn points_array<'py>(
    py: Python<'py>,
    p: &[nalgebra::Point2<f64>],
) -> Bound<'py, PyArray2<f64>> {
    let flat: Vec<f64> = p.iter().flat_map(|q| [q.x, q.y]).collect();
    Array2::from_shape_vec((p.len(), 2), flat)
        .expect("n x 2 values")
        .into_pyarray(py)
}

/// Skinning weights for a 2D mesh.
///
/// vertices: (n, 2) float array. triangles: (m, 3) integer array of vertex indices
/// (counter-clockwise; an all-clockwise mesh is flipped and the report says so).
/// bones: list of (name, parent, head, tail, part[, influences]) with parent and part names
/// or None. solver: a registry name ("best", "heat", "heat+mask", "geodesic", ...).
/// options: dict of solver options, as the CLI's --option key=value.
/// parts: None (one part) or (part_names, vertex_parts) with vertex_parts an (n,) integer
/// array of indices into part_names; masks and the drag metric use them.
///
/// bind: how each part's bones are chosen, as the CLI's --bind: "artist" (each part of
/// `bindings` with two or more bones over them, the others by the binder), "auto" (the
/// binder for every part) or "all" (the whole solve);
/// None: "artist" when `bindings` lists a part with two or more bones, else "all".
/// bindings: None, or a dict from part name to the bone names its file binds it to (a part
/// with one bone is an unweighted mesh hanging on that bone: the binder keeps it).
///
/// Returns (weights, report): weights an (n, b) float64 array, rows summing to 1, columns
/// in bone order; report a dict with "solver", "seconds", "warnings", "bones" and "bind".
/// The solve runs with the GIL released.
#[pyfunction]
#[pyo3(signature = (vertices, triangles, bones, solver=DEFAULT_SOLVER, options=None, parts=None,
    bind=None, bindings=None))]
#[allow(clippy::too_many_arguments)]
fn solve<'py>(
    py: Python<'py>,
    vertices: &Bound<'py, PyAny>,
    triangles: &Bound<'py, PyAny>,
    bones: &Bound<'py, PyAny>,
    solver: &str,
    options: Option<&Bound<'py, PyAny>>,
    parts: Option<&Bound<'py, PyAny>>,
    bind: Option<&str>,
    bindings: Option<std::collections::BTreeMap<String, Vec<String>>>,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyDict>)> {
    let (scene, note) = convert::scene(vertices, triangles, bones, parts, Vec::new())?;
    let options = convert::options(options)?;
    let solver = skinweights::solvers::solver_by_name(solver, &options).map_err(to_py)?;
    let binding = convert::binding(&scene, bind, bindings)?;
    let solution = py
        .detach(|| binding.solve(solver.as_ref(), &scene))
        .map_err(to_py)?;
    let report = PyDict::new(py);
    report.set_item("solver", &solution.report.solver)?;
    report.set_item("seconds", solution.report.seconds)?;
    let warnings: Vec<String> = note
        .into_iter()
        .chain(solution.report.warnings.iter().map(|w| w.to_string()))
        .collect();
    report.set_item("warnings", warnings)?;
    report.set_item("bones", scene.skeleton().names())?;
    report.set_item("bind", Bind::NAMES[binding.bind as usize])?;
    Ok((weights_array(py, &solution.weights), report))
}

/// Weights for a new drawing (the target mesh) carried from a weighted source mesh: the
/// crate's costume transfer (docs/transfer.md).
///
/// vertices, triangles: the target mesh; bones: the skeleton (as `solve` takes it), shared by
/// source and target. source_vertices, source_triangles, source_weights: the weighted source,
/// source_weights an (s, b) array with columns in bone order. method: "nearest" (default) or
/// "robust". target_bones: None, or the bone names the target is bound to (a target whose
/// bones the source does not reach is weighted from scratch). solver: the solver for what
/// the source does not cover. max_distance / far_distance: `robust`'s match radius and the
/// far-target radius, fractions of the target's diagonal.
///
/// Returns (weights, report): weights an (n, b) float64 array, rows summing to 1; report a
/// dict with "copied", "inpainted", "from_scratch", "farthest" and "notes".
/// Runs with the GIL released.
#[pyfunction]
#[pyo3(signature = (vertices, triangles, bones, source_vertices, source_triangles, source_weights,
    method="nearest", target_bones=None, solver=DEFAULT_SOLVER, max_distance=None,
    far_distance=None))]
#[allow(clippy::too_many_arguments)]
fn transfer<'py>(
    py: Python<'py>,
    vertices: &Bound<'py, PyAny>,
    triangles: &Bound<'py, PyAny>,
    bones: &Bound<'py, PyAny>,
    source_vertices: &Bound<'py, PyAny>,
    source_triangles: &Bound<'py, PyAny>,
    source_weights: &Bound<'py, PyAny>,
    method: &str,
    target_bones: Option<Vec<String>>,
    solver: &str,
    max_distance: Option<f64>,
    far_distance: Option<f64>,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyDict>)> {
    use skinweights::transfer::{TransferOptions, TransferSource, TransferTarget};
    let (scene, _) = convert::scene(vertices, triangles, bones, None, Vec::new())?;
    let points = convert::points(source_vertices, "source_vertices")?;
    let tris = convert::triangles(source_triangles)?;
    let nb = scene.skeleton().len();
    let w = convert::weights(source_weights, points.len(), nb)?;
    let source = TransferSource::new(
        scene.skeleton(),
        points,
        tris,
        w,
        "the source arrays".into(),
    )
    .map_err(to_py)?;
    let bones = match target_bones {
        None => None,
        Some(names) => Some(
            names
                .iter()
                .map(|n| {
                    scene.skeleton().index_of(n).ok_or_else(|| {
                        convert::value_error(format!("target_bones: no bone {n:?} in bones"))
                    })
                })
                .collect::<PyResult<Vec<usize>>>()?,
        ),
    };
    let defaults = TransferOptions::default();
    let options = TransferOptions {
        method: method.parse().map_err(to_py)?,
        max_distance: max_distance.unwrap_or(defaults.max_distance),
        far_distance: far_distance.unwrap_or(defaults.far_distance),
        ..defaults
    };
    let solver =
        skinweights::solvers::solver_by_name(solver, std::iter::empty::<(String, String)>())
            .map_err(to_py)?;
    let target = TransferTarget {
        part: scene.mesh().parts()[0].clone(),
        bones,
    };
    let out = py
        .detach(|| {
            skinweights::transfer::transfer(&scene, &target, &source, &options, solver.as_ref())
        })
        .map_err(to_py)?;
    let report = PyDict::new(py);
    report.set_item("copied", out.report.copied)?;
    report.set_item("inpainted", out.report.inpainted)?;
    report.set_item("from_scratch", out.report.from_scratch)?;
    report.set_item("farthest", out.report.farthest)?;
    report.set_item("notes", &out.report.notes)?;
    Ok((weights_array(py, &out.weights), report))
}

/// Every metric of `weights` on one probe: the numbers of `skinweights eval --json` and
/// `skinweights compare --json`.
///
/// probe: {"pose": {bone: degrees}, "watch": {"part": ..., "below_y": ..., "min_distance":
/// ..., "vertices": [...]}} (the scene file's form; Scene.probe(name) returns one).
/// Returns a dict with drag_max_pct, drag_mean_pct, leaked_weight, flipped, distortion_max,
/// distortion_p99, area_change_pct, norm_err, bind_err, discontinuities, dirichlet, time_s.
#[pyfunction]
#[pyo3(signature = (vertices, triangles, bones, weights, probe, parts=None, time_s=None))]
#[allow(clippy::too_many_arguments)]
fn evaluate<'py>(
    py: Python<'py>,
    vertices: &Bound<'py, PyAny>,
    triangles: &Bound<'py, PyAny>,
    bones: &Bound<'py, PyAny>,
    weights: &Bound<'py, PyAny>,
    probe: &Bound<'py, PyAny>,
    parts: Option<&Bound<'py, PyAny>>,
    time_s: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let probe = convert::probe(probe)?;
    let (scene, _) = convert::scene(vertices, triangles, bones, parts, vec![probe])?;
    let w = convert::weights(weights, scene.mesh().vertex_count(), scene.skeleton().len())?;
    let m = py
        .detach(|| metrics::evaluate(&scene, &w, &scene.probes()[0]))
        .map_err(to_py)?;
    // The caller's solve time, reported as given: metrics never time a solve.
    let m = metrics::Metrics { time_s, ..m };
    // One key per column of `compare`'s table, in its order.
    let d = PyDict::new(py);
    for column in METRIC_COLUMNS {
        match column.value(&m) {
            MetricValue::Real(v) => d.set_item(column.key, v)?,
            MetricValue::Count(n) => d.set_item(column.key, n)?,
            MetricValue::Maybe(v) => d.set_item(column.key, v)?,
        }
    }
    Ok(d)
}

/// The drag metric for positions deformed by anything else (e.g. Blender's armature
/// modifier in the probe's pose): how far each watched vertex is from where its own part's
/// bone alone would put it.
///
/// posed: (n, 2) float array, one position per vertex. Returns a dict with drag_max_pct,
/// drag_mean_pct (percent of the character height), height, vertices (watched indices) and
/// displacement (scene units, one per watched vertex).
#[pyfunction]
#[pyo3(signature = (vertices, triangles, bones, posed, probe, parts=None))]
fn measure_drag<'py>(
    py: Python<'py>,
    vertices: &Bound<'py, PyAny>,
    triangles: &Bound<'py, PyAny>,
    bones: &Bound<'py, PyAny>,
    posed: &Bound<'py, PyAny>,
    probe: &Bound<'py, PyAny>,
    parts: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let probe = convert::probe(probe)?;
    let (scene, _) = convert::scene(vertices, triangles, bones, parts, vec![probe])?;
    let posed = convert::points(posed, "posed")?;
    if let Some(v) = posed
        .iter()
        .position(|p| !p.x.is_finite() || !p.y.is_finite())
    {
        return Err(convert::value_error(format!("posed[{v}] is not finite")));
    }
    let drag = metrics::drag_of_positions(&scene, &scene.probes()[0], &posed).map_err(to_py)?;
    let d = PyDict::new(py);
    d.set_item("drag_max_pct", drag.max_pct())?;
    d.set_item("drag_mean_pct", drag.mean_pct())?;
    d.set_item("height", drag.height)?;
    let watched: Vec<i64> = drag.vertices.iter().map(|&v| v as i64).collect();
    d.set_item("vertices", watched.into_pyarray(py))?;
    d.set_item("displacement", drag.displacement.into_pyarray(py))?;
    Ok(d)
}

/// Linear blend skinning: the (n, 2) positions of `vertices` in `pose`.
///
/// pose: {bone: degrees} (counter-clockwise, about the bone's head; children follow) or
/// {bone: {"rotate": degrees, "translate": (x, y)}}. weights: (n, b) float array.
#[pyfunction]
fn lbs<'py>(
    py: Python<'py>,
    vertices: &Bound<'py, PyAny>,
    bones: &Bound<'py, PyAny>,
    weights: &Bound<'py, PyAny>,
    pose: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let rest = convert::points(vertices, "vertices")?;
    if let Some(v) = rest
        .iter()
        .position(|p| !p.x.is_finite() || !p.y.is_finite())
    {
        return Err(to_py(skinweights::Error::Mesh(
            skinweights::MeshError::NonFiniteCoordinate {
                vertex: v,
                x: rest[v].x,
                y: rest[v].y,
            },
        )));
    }
    let skeleton = convert::skeleton(bones)?;
    let w = convert::weights(weights, rest.len(), skeleton.len())?;
    let pose = convert::pose(pose)?;
    let posed =
        skinweights::skinning::linear_blend_skinning(&rest, &skeleton, &w, &pose).map_err(to_py)?;
    Ok(points_array(py, &posed))
}

/// Reads a scene file (skinweights.scene/1 or /2 JSON) into a Scene.
#[pyfunction]
fn load_scene(py: Python<'_>, path: PathBuf) -> PyResult<PyScene> {
    let (inner, notes) = py
        .detach(|| skinweights::io::load_scene(&path))
        .map_err(to_py)?;
    Ok(PyScene { inner, notes })
}

/// Reads a weights file (skinweights.weights/1 JSON).
///
/// Returns (weights, info): weights an (n, b) float64 array (as stored: not re-validated, so
/// broken weights can be measured); info a dict with "scene", "solver" and "bones".
#[pyfunction]
fn load_weights<'py>(
    py: Python<'py>,
    path: PathBuf,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyDict>)> {
    let file = py.detach(|| WeightsFile::load(&path)).map_err(to_py)?;
    let w =
        skinweights::weights::Weights::from_rows(&file.weights, file.bones.len()).map_err(to_py)?;
    let info = PyDict::new(py);
    info.set_item("scene", &file.scene)?;
    info.set_item("solver", &file.solver)?;
    info.set_item("bones", &file.bones)?;
    Ok((weights_array(py, &w), info))
}

/// Generates a built-in scene ("arms-down", "arms-touching", "layered-arms", "bar",
/// "figure", ...): `vertices` is the approximate vertex count, `gap` the arm-torso gap
/// (None: the scene's default, 12 for arms-down).
#[pyfunction]
#[pyo3(signature = (name, vertices=10_000, gap=None))]
fn builtin_scene(
    py: Python<'_>,
    name: &str,
    vertices: usize,
    gap: Option<f64>,
) -> PyResult<PyScene> {
    let options = BuiltinOptions::default()
        .with_gap(gap)
        .with_vertices(vertices);
    let inner = py
        .detach(|| skinweights::scene::builtin_scene(name, &options))
        .map_err(to_py)?;
    Ok(PyScene {
        inner,
        notes: Vec::new(),
    })
}

/// Skinning weights for 2D character meshes: the skinweights solvers, metrics and linear
/// blend skinning with NumPy arrays, and its scene / weights file loaders.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("SkinweightsError", py.get_type::<SkinweightsError>())?;
    m.add("DEFAULT_SOLVER", DEFAULT_SOLVER)?;
    m.add("SOLVER_NAMES", skinweights::solvers::SOLVER_NAMES.to_vec())?;
    m.add(
        "BUILTIN_SCENES",
        skinweights::scene::BUILTIN_SCENES.to_vec(),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<PyScene>()?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(measure_drag, m)?)?;
    m.add_function(wrap_pyfunction!(lbs, m)?)?;
    m.add_function(wrap_pyfunction!(load_scene, m)?)?;
    m.add_function(wrap_pyfunction!(load_weights, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_scene, m)?)?;
    m.add_function(wrap_pyfunction!(transfer, m)?)?;
    m.add_function(wrap_pyfunction!(batch::batch, m)?)?;
    m.add_function(wrap_pyfunction!(batch::expand_inputs, m)?)?;
    m.add_function(wrap_pyfunction!(batch::batch_item, m)?)?;
    m.add_function(wrap_pyfunction!(batch::check_batch_options, m)?)?;
    Ok(())
}
