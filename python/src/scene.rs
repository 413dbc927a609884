//! `skinweights.Scene`: a loaded or built-in scene, read-only, whose attributes are in the
//! exact form `solve`, `evaluate` and `lbs` take (`vertices`, `triangles`, `bones`, `parts`,
//! `probes`), so a scene's arrays can be passed straight back.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use skinweights::{scene::Probe, scene::Scene};

/// A scene: mesh (vertices, triangles, parts), bones and probes.
///
/// Made by `load_scene` or `builtin_scene`. Its attributes are in the form `solve`,
/// `evaluate` and `lbs` take, e.g.
/// `solve(s.vertices, s.triangles, s.bones, parts=s.parts)` and
/// `evaluate(s.vertices, s.triangles, s.bones, w, s.probe("lift_l"), parts=s.parts)`.
#[pyclass(frozen, name = "Scene", module = "skinweights")]
pub struct PyScene {
    pub(crate) inner: Scene,
    pub(crate) notes: Vec<String>,
}

#[pymethods]
impl PyScene {
    /// Scene name (built-in name or the file's `name`).
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// Vertex positions, float64 array of shape (n, 2).
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        crate::points_array(py, self.inner.mesh().vertices())
    }

    /// Triangles (counter-clockwise vertex indices), int64 array of shape (m, 3).
    #[getter]
    fn triangles<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i64>> {
        let t = self.inner.mesh().triangles();
        let flat: Vec<i64> = t.iter().flatten().map(|&i| i as i64).collect();
        Array2::from_shape_vec((t.len(), 3), flat)
            .expect("m x 3 values")
            .into_pyarray(py)
    }

    /// Bones as (name, parent, head, tail, part) tuples, with a sixth field (influences)
    /// when the bone restricts them.
    #[getter]
    fn bones<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let bones = self.inner.skeleton().bones();
        let items = bones
            .iter()
            .map(|b| {
                let parent = b.parent.map(|p| bones[p].name.clone());
                let mut fields: Vec<Bound<'py, PyAny>> = vec![
                    b.name.clone().into_pyobject(py)?.into_any(),
                    parent.into_pyobject(py)?.into_any(),
                    (b.head.x, b.head.y).into_pyobject(py)?.into_any(),
                    (b.tail.x, b.tail.y).into_pyobject(py)?.into_any(),
                    b.part.clone().into_pyobject(py)?.into_any(),
                ];
                if let Some(inf) = &b.influences {
                    fields.push(inf.clone().into_pyobject(py)?.into_any());
                }
                PyTuple::new(py, fields)
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }

    /// Bone names, in column order of the weights.
    #[getter]
    fn bone_names(&self) -> Vec<String> {
        self.inner.skeleton().names()
    }

    /// `(part_names, vertex_parts)`: the part names and each vertex's part index (int64).
    #[getter]
    fn parts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let names = self.inner.mesh().parts().to_vec();
        let vp: Vec<i64> = self
            .inner
            .mesh()
            .vertex_parts()
            .iter()
            .map(|&p| p as i64)
            .collect();
        let vp: Bound<'py, PyArray1<i64>> = vp.into_pyarray(py);
        PyTuple::new(py, [names.into_pyobject(py)?.into_any(), vp.into_any()])
    }

    /// Probes as dicts {"name", "pose": {bone: degrees}, "watch": {...}}.
    #[getter]
    fn probes<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.inner
            .probes()
            .iter()
            .map(|p| probe_dict(py, p))
            .collect()
    }

    /// The probe called `name` (the first probe when None) as a dict.
    #[pyo3(signature = (name=None))]
    fn probe<'py>(&self, py: Python<'py>, name: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
        probe_dict(py, self.inner.probe(name).map_err(crate::to_py)?)
    }

    /// Character height: the rest mesh's bounding-box height (drag percentages refer to it).
    #[getter]
    fn height(&self) -> f64 {
        self.inner.mesh().height()
    }

    /// Notes from loading, e.g. a clockwise (y-down) file flipped to counter-clockwise.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "<skinweights.Scene {:?}: {} vertices, {} triangles, {} bones, {} probes>",
            self.inner.name(),
            self.inner.mesh().vertex_count(),
            self.inner.mesh().triangle_count(),
            self.inner.skeleton().len(),
            self.inner.probes().len()
        )
    }
}

/// A probe in the form `evaluate` takes (the scene file's form).
fn probe_dict<'py>(py: Python<'py>, p: &Probe) -> PyResult<Bound<'py, PyDict>> {
    let pose = PyDict::new(py);
    for (bone, deg) in &p.pose.rotations {
        pose.set_item(bone, deg)?;
    }
    for (bone, t) in &p.pose.translations {
        let full = PyDict::new(py);
        if let Some(deg) = p.pose.rotations.get(bone) {
            full.set_item("rotate", deg)?;
        }
        full.set_item("translate", (t.x, t.y))?;
        pose.set_item(bone, full)?;
    }
    let watch = PyDict::new(py);
    let w = &p.watch;
    if let Some(part) = &w.part {
        watch.set_item("part", part)?;
    }
    if let Some(y) = w.below_y {
        watch.set_item("below_y", y)?;
    }
    if let Some(d) = w.min_distance {
        watch.set_item("min_distance", d)?;
    }
    if let Some(v) = &w.vertices {
        watch.set_item("vertices", v.clone())?;
    }
    let d = PyDict::new(py);
    d.set_item("name", &p.name)?;
    d.set_item("pose", pose)?;
    d.set_item("watch", watch)?;
    Ok(d)
}
