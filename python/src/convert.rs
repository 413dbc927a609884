//! Python values in, the crate's model types out: every check that keeps bad input from the
//! solvers happens here or in the crate's own validation (which names the vertex, triangle or
//! bone). Wrong Python types and dtypes raise `TypeError`; wrong shapes, values and names
//! raise `SkinweightsError` (a `ValueError`).

use crate::SkinweightsError;
use nalgebra::{Point2, Vector2};
use numpy::prelude::*;
use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArray};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use skinweights::binding::{Bind, Binding, FileBindings, MeshBones};
use skinweights::{
    mesh::Mesh, scene::Probe, scene::Scene, scene::Watch, skeleton::Bone, skeleton::Pose,
    skeleton::Skeleton, weights::Weights,
};

/// A `SkinweightsError` with `message`.
pub(crate) fn value_error(message: impl Into<String>) -> PyErr {
    SkinweightsError::new_err(message.into())
}

/// `obj` as a NumPy array (lists and tuples go through `numpy.asarray`).
fn as_ndarray<'py>(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyUntypedArray>> {
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        return Ok(a.clone());
    }
    let np = obj.py().import("numpy")?;
    let a = np
        .call_method1("asarray", (obj,))
        .map_err(|e| PyTypeError::new_err(format!("{name}: not an array ({e})")))?;
    a.cast_into::<PyUntypedArray>()
        .map_err(|e| PyTypeError::new_err(format!("{name}: not an array ({e})")))
}

/// Checks `ndim` (2 for matrices, 1 for vectors) and, where given, the number of columns;
/// returns the shape.
fn check_shape(
    a: &Bound<'_, PyUntypedArray>,
    name: &str,
    want: &str,
    ndim: usize,
    cols: Option<usize>,
) -> PyResult<Vec<usize>> {
    let shape = a.shape().to_vec();
    if shape.len() != ndim || cols.is_some_and(|c| shape[1] != c) {
        return Err(value_error(format!(
            "{name} must have shape {want}, got {}",
            shape_text(&shape)
        )));
    }
    Ok(shape)
}

fn shape_text(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        s => format!(
            "({})",
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn dtype_error(a: &Bound<'_, PyUntypedArray>, name: &str, expected: &str) -> PyErr {
    let dtype = a
        .dtype()
        .str()
        .map(|s| s.to_string())
        .unwrap_or_else(|_| "?".into());
    PyTypeError::new_err(format!("{name} must be {expected}, got dtype {dtype}"))
}

/// A 2-D numeric array as row-major `f64` values with its shape, `(n, cols)` when `cols` is
/// given. Integer arrays are converted; bool, complex, string and object arrays are not.
pub(crate) fn float_matrix(
    obj: &Bound<'_, PyAny>,
    name: &str,
    cols: Option<usize>,
) -> PyResult<(usize, usize, Vec<f64>)> {
    let a = as_ndarray(obj, name)?;
    let want = cols.map_or("(n, b)".to_string(), |c| format!("(n, {c})"));
    let shape = check_shape(&a, name, &want, 2, cols)?;
    if !matches!(a.dtype().kind(), b'f' | b'i' | b'u') {
        return Err(dtype_error(&a, name, "a float array"));
    }
    let f = a.call_method1("astype", ("float64",))?;
    let ro: PyReadonlyArray2<f64> = f.extract()?;
    Ok((shape[0], shape[1], ro.as_array().iter().copied().collect()))
}

/// A numeric array of indices (non-negative integers): `(m, cols)` or 1-D when `cols` is None.
fn index_array(
    obj: &Bound<'_, PyAny>,
    name: &str,
    cols: Option<usize>,
) -> PyResult<(Vec<usize>, Vec<usize>)> {
    let a = as_ndarray(obj, name)?;
    let want = cols.map_or("(n,)".to_string(), |c| format!("(m, {c})"));
    let shape = check_shape(&a, name, &want, if cols.is_some() { 2 } else { 1 }, cols)?;
    let kind = a.dtype().kind();
    if !matches!(kind, b'i' | b'u') {
        return Err(dtype_error(&a, name, "an integer array"));
    }
    let values: Vec<i128> = if kind == b'u' {
        let u = a.call_method1("astype", ("uint64",))?;
        flat_values::<u64>(&u, cols.is_some())?
            .into_iter()
            .map(i128::from)
            .collect()
    } else {
        let i = a.call_method1("astype", ("int64",))?;
        flat_values::<i64>(&i, cols.is_some())?
            .into_iter()
            .map(i128::from)
            .collect()
    };
    let width = cols.unwrap_or(1);
    let out = values
        .iter()
        .enumerate()
        .map(|(k, &x)| {
            usize::try_from(x).map_err(|_| {
                let at = if cols.is_some() {
                    format!("[{}, {}]", k / width, k % width)
                } else {
                    format!("[{k}]")
                };
                value_error(format!(
                    "{name}{at} = {x} is not a valid index (must be >= 0)"
                ))
            })
        })
        .collect::<PyResult<Vec<usize>>>()?;
    Ok((shape, out))
}

fn flat_values<T: numpy::Element + Copy>(a: &Bound<'_, PyAny>, two_d: bool) -> PyResult<Vec<T>> {
    Ok(if two_d {
        let ro: PyReadonlyArray2<T> = a.extract()?;
        ro.as_array().iter().copied().collect()
    } else {
        let ro: PyReadonlyArray1<T> = a.extract()?;
        ro.as_array().iter().copied().collect()
    })
}

/// `(n, 2)` vertex positions. Finiteness is checked by the mesh (naming the vertex).
pub(crate) fn points(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<Point2<f64>>> {
    let (_, _, v) = float_matrix(obj, name, Some(2))?;
    Ok(v.chunks_exact(2).map(|c| Point2::new(c[0], c[1])).collect())
}

/// `(m, 3)` triangle vertex indices.
pub(crate) fn triangles(obj: &Bound<'_, PyAny>) -> PyResult<Vec<[usize; 3]>> {
    let (_, v) = index_array(obj, "triangles", Some(3))?;
    Ok(v.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect())
}

/// `(n, b)` weights, every entry finite (rows are not required to sum to 1, so that broken
/// weights can be measured).
pub(crate) fn weights(
    obj: &Bound<'_, PyAny>,
    n_vertices: usize,
    n_bones: usize,
) -> PyResult<Weights> {
    let (n, b, data) = float_matrix(obj, "weights", None)?;
    if n != n_vertices || b != n_bones {
        return Err(value_error(format!(
            "weights must have shape ({n_vertices}, {n_bones}) (vertices x bones), got ({n}, {b})"
        )));
    }
    if let Some(k) = data.iter().position(|x| !x.is_finite()) {
        return Err(value_error(format!(
            "weights[{}, {}] is {} (must be finite)",
            k / b,
            k % b,
            data[k]
        )));
    }
    Weights::from_row_major(data, b).map_err(crate::to_py)
}

/// A 2-vector from any sequence of two numbers (tuple, list, NumPy array, Blender Vector).
fn vec2(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<[f64; 2]> {
    let v: Vec<f64> = obj
        .extract()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a pair of numbers (x, y)")))?;
    match v[..] {
        [x, y] => Ok([x, y]),
        _ => Err(value_error(format!(
            "{what} must have 2 coordinates, got {}",
            v.len()
        ))),
    }
}

fn opt_string(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<String>> {
    if obj.is_none() {
        return Ok(None);
    }
    obj.extract::<String>()
        .map(Some)
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a string or None")))
}

/// Bones as `(name, parent, head, tail, part[, influences])` tuples; parents by name.
pub(crate) fn skeleton(obj: &Bound<'_, PyAny>) -> PyResult<Skeleton> {
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "bones must be a list of (name, parent, head, tail, part) tuples",
        ));
    }
    let items: Vec<Bound<'_, PyAny>> = obj
        .try_iter()
        .map_err(|_| {
            PyTypeError::new_err("bones must be a list of (name, parent, head, tail, part) tuples")
        })?
        .collect::<PyResult<_>>()?;
    let mut bones = Vec::with_capacity(items.len());
    let mut parents = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let fields: Vec<Bound<'_, PyAny>> = match item.cast::<PyTuple>() {
            Ok(t) => t.iter().collect(),
            Err(_) => match item.cast::<PyList>() {
                Ok(l) => l.iter().collect(),
                Err(_) => {
                    return Err(PyTypeError::new_err(format!(
                        "bones[{i}] must be a tuple (name, parent, head, tail, part[, influences])"
                    )))
                }
            },
        };
        if !(5..=6).contains(&fields.len()) {
            return Err(value_error(format!(
                "bones[{i}] has {} fields; expected (name, parent, head, tail, part[, influences])",
                fields.len()
            )));
        }
        let name: String = fields[0]
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("bones[{i}] name must be a string")))?;
        let what = |f: &str| format!("bone {name:?} {f}");
        let [hx, hy] = vec2(&fields[2], &what("head"))?;
        let [tx, ty] = vec2(&fields[3], &what("tail"))?;
        let mut bone = Bone::new(name.clone(), Point2::new(hx, hy), Point2::new(tx, ty));
        bone.part = opt_string(&fields[4], &what("part"))?;
        if let Some(inf) = fields.get(5).filter(|f| !f.is_none()) {
            bone.influences = Some(inf.extract::<Vec<String>>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{} must be a list of part names",
                    what("influences")
                ))
            })?);
        }
        parents.push(opt_string(&fields[1], &what("parent"))?);
        bones.push(bone);
    }
    for i in 0..bones.len() {
        if let Some(p) = &parents[i] {
            let j = bones.iter().position(|b| &b.name == p).ok_or_else(|| {
                crate::to_py(skinweights::Error::Skeleton(
                    skinweights::SkeletonError::UnknownParent {
                        bone: bones[i].name.clone(),
                        parent: p.clone(),
                    },
                ))
            })?;
            bones[i].parent = Some(j);
        }
    }
    Skeleton::new(bones).map_err(crate::to_py)
}

/// The mesh with its parts: `parts` is `None` (one part, "body") or `(names, vertex_parts)`.
/// A mesh whose triangles are all clockwise is flipped; the returned note says so.
pub(crate) fn mesh(
    vertices: &Bound<'_, PyAny>,
    tris: &Bound<'_, PyAny>,
    parts: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Mesh, Option<String>)> {
    let v = points(vertices, "vertices")?;
    let t = triangles(tris)?;
    let (names, vertex_parts) = match parts.filter(|p| !p.is_none()) {
        None => (
            vec![skinweights::mesh::DEFAULT_PART.to_string()],
            vec![0; v.len()],
        ),
        Some(p) => {
            let pair: (Bound<'_, PyAny>, Bound<'_, PyAny>) = p.extract().map_err(|_| {
                PyTypeError::new_err("parts must be None or a pair (part_names, vertex_parts)")
            })?;
            let names: Vec<String> = pair
                .0
                .extract()
                .map_err(|_| PyTypeError::new_err("parts[0] must be a list of part names"))?;
            let (_, vp) = index_array(&pair.1, "vertex_parts", None)?;
            (names, vp)
        }
    };
    let (mesh, flipped) =
        Mesh::with_parts_fix_winding(v, t, names, vertex_parts).map_err(crate::to_py)?;
    let note = flipped.then(|| {
        "every triangle was clockwise (y-down coordinates?): flipped to counter-clockwise"
            .to_string()
    });
    Ok((mesh, note))
}

/// A pose: `{bone: degrees}` or `{bone: {"rotate": degrees, "translate": (x, y)}}`, the
/// scene file's form.
pub(crate) fn pose(obj: &Bound<'_, PyAny>) -> PyResult<Pose> {
    let d = obj
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err("pose must be a dict {bone name: degrees}"))?;
    let mut pose = Pose::rest();
    for (k, v) in d.iter() {
        let bone: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err("pose keys must be bone names (strings)"))?;
        if let Ok(full) = v.cast::<PyDict>() {
            for (fk, fv) in full.iter() {
                match fk.extract::<String>().as_deref() {
                    Ok("rotate") => {
                        pose = pose.rotate(
                            bone.clone(),
                            number(&fv, &format!("pose[{bone:?}].rotate"))?,
                        )
                    }
                    Ok("translate") => {
                        let [x, y] = vec2(&fv, &format!("pose[{bone:?}].translate"))?;
                        pose = pose.translate(bone.clone(), Vector2::new(x, y));
                    }
                    _ => {
                        return Err(value_error(format!(
                            "pose[{bone:?}]: unknown key {fk} (expected rotate, translate)"
                        )))
                    }
                }
            }
        } else {
            pose = pose.rotate(bone.clone(), number(&v, &format!("pose[{bone:?}]"))?);
        }
    }
    Ok(pose)
}

fn number(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<f64> {
    obj.extract::<f64>()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a number")))
}

/// A probe: `{"name": ..., "pose": {...}, "watch": {"part", "below_y", "min_distance",
/// "vertices"}}` (the scene file's form; `name` optional).
pub(crate) fn probe(obj: &Bound<'_, PyAny>) -> PyResult<Probe> {
    let d = obj.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err("probe must be a dict {\"pose\": {...}, \"watch\": {...}}")
    })?;
    let mut probe = Probe {
        name: "probe".into(),
        pose: Pose::rest(),
        watch: Watch::default(),
    };
    for (k, v) in d.iter() {
        match k.extract::<String>().as_deref() {
            Ok("name") => {
                probe.name = v
                    .extract()
                    .map_err(|_| PyTypeError::new_err("probe name must be a string"))?
            }
            Ok("pose") => probe.pose = pose(&v)?,
            Ok("watch") => probe.watch = watch(&v)?,
            _ => {
                return Err(value_error(format!(
                    "probe: unknown key {k} (expected name, pose, watch)"
                )))
            }
        }
    }
    Ok(probe)
}

fn watch(obj: &Bound<'_, PyAny>) -> PyResult<Watch> {
    let d = obj
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err("probe watch must be a dict"))?;
    let mut w = Watch::default();
    for (k, v) in d.iter() {
        if v.is_none() {
            continue;
        }
        match k.extract::<String>().as_deref() {
            Ok("part") => w.part = opt_string(&v, "watch part")?,
            Ok("below_y") => w.below_y = Some(number(&v, "watch below_y")?),
            Ok("min_distance") => w.min_distance = Some(number(&v, "watch min_distance")?),
            Ok("vertices") => w.vertices = Some(index_array(&v, "watch vertices", None)?.1),
            _ => {
                return Err(value_error(format!(
                    "probe watch: unknown key {k} (expected part, below_y, min_distance, vertices)"
                )))
            }
        }
    }
    Ok(w)
}

/// Solver options: a dict of key -> value (numbers, strings, bools), as `--option key=value`.
pub(crate) fn options(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(String, String)>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Vec::new());
    };
    let d = obj
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err("options must be a dict {key: value}"))?;
    d.iter()
        .map(|(k, v)| {
            let key: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("option keys must be strings"))?;
            // bool before float: True is also an int. repr() of a float round-trips.
            let value = if let Ok(b) = v.extract::<bool>() {
                b.to_string()
            } else if v.is_instance_of::<PyString>() {
                v.extract::<String>()?
            } else {
                v.repr()?.to_string()
            };
            Ok((key, value))
        })
        .collect()
}

/// A scene from arrays (with probes, if any), as the solvers and metrics take it.
pub(crate) fn scene(
    vertices: &Bound<'_, PyAny>,
    tris: &Bound<'_, PyAny>,
    bones: &Bound<'_, PyAny>,
    parts: Option<&Bound<'_, PyAny>>,
    probes: Vec<Probe>,
) -> PyResult<(Scene, Option<String>)> {
    let (mesh, note) = mesh(vertices, tris, parts)?;
    let skeleton = skeleton(bones)?;
    let scene = Scene::new("python", mesh, skeleton, probes).map_err(crate::to_py)?;
    Ok((scene, note))
}

/// The binding `solve(bind=, bindings=)` asks for on `scene`: `bindings` maps a part to the
/// bone names its file binds it to (one bone: an unweighted part's home bone).
pub(crate) fn binding(
    scene: &Scene,
    bind: Option<&str>,
    bindings: Option<std::collections::BTreeMap<String, Vec<String>>>,
) -> PyResult<Binding> {
    let bind = bind
        .map(str::parse::<Bind>)
        .transpose()
        .map_err(crate::to_py)?;
    let mut file = FileBindings::default();
    for (part, names) in bindings.unwrap_or_default() {
        if !scene.mesh().parts().contains(&part) {
            return Err(value_error(format!("bindings: no part {part:?} in parts")));
        }
        let mut bones = names
            .iter()
            .map(|n| {
                scene.skeleton().index_of(n).ok_or_else(|| {
                    value_error(format!("bindings[{part:?}]: no bone {n:?} in bones"))
                })
            })
            .collect::<PyResult<Vec<usize>>>()?;
        bones.sort_unstable();
        bones.dedup();
        let entry = MeshBones { part, bones };
        match entry.bones.len() {
            0 => {}
            1 => file.home.push(entry),
            _ => file.artist.push(entry),
        }
    }
    let default = if file.artist.is_empty() {
        Bind::All
    } else {
        Bind::Artist
    };
    let mut binding = Binding::whole((0..scene.skeleton().len()).collect());
    binding.bind = bind.unwrap_or(default);
    binding.file = file;
    Ok(binding)
}
