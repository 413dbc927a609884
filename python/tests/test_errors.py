"""Bad input raises a clear Python exception (never a crash); messages name the problem."""

import json

import numpy as np
import pytest

import skinweights as sw

V = np.array([[0, 0], [2, 0], [2, 1], [0, 1]], dtype=float)
T = np.array([[0, 1, 2], [0, 2, 3]])
B = [("a", None, (0, 0.5), (1, 0.5), None), ("b", "a", (1, 0.5), (2, 0.5), None)]


def err(match, fn, *args, exc=sw.SkinweightsError, **kw):
    with pytest.raises(exc, match=match):
        fn(*args, **kw)


def test_error_class_is_a_value_error():
    assert issubclass(sw.SkinweightsError, ValueError)


def test_shapes():
    err(r"vertices must have shape \(n, 2\), got \(4, 3\)", sw.solve, np.zeros((4, 3)), T, B)
    err(r"vertices must have shape \(n, 2\), got \(8,\)", sw.solve, V.ravel(), T, B)
    err(r"triangles must have shape \(m, 3\), got \(2, 4\)", sw.solve, V, np.zeros((2, 4), int), B)
    w = np.full((4, 2), 0.5)
    err(r"weights must have shape \(4, 2\).*got \(3, 2\)", sw.lbs, V, B, w[:3], {})
    err(r"posed: 3 positions for a mesh of 4", sw.measure_drag, V, T, B, V[:3], {"pose": {}})


def test_dtypes():
    err(r"vertices must be a float array, got dtype <U1", sw.solve, np.array([["a", "b"]] * 4), T, B, exc=TypeError)
    err(r"vertices must be a float array, got dtype bool", sw.solve, np.ones((4, 2), bool), T, B, exc=TypeError)
    err(r"vertices must be a float array, got dtype complex128", sw.solve, V.astype(complex), T, B, exc=TypeError)
    err(r"triangles must be an integer array, got dtype float64", sw.solve, V, T.astype(float), B, exc=TypeError)
    err(r"vertices: not an array", sw.solve, [[0, 0], [1]], T, B, exc=TypeError)


def test_non_finite_values():
    bad = V.copy()
    bad[2, 1] = np.nan
    err(r"vertex 2 has a non-finite coordinate", sw.solve, bad, T, B)
    err(r"vertex 2 has a non-finite coordinate", sw.lbs, bad, B, np.full((4, 2), 0.5), {})
    w = np.full((4, 2), 0.5)
    w[1, 0] = np.inf
    err(r"weights\[1, 0\] is inf", sw.lbs, V, B, w, {})
    err(r'bone "a": head is not finite', sw.solve, V, T, [("a", None, (np.nan, 0), (1, 0), None)])
    err(r'non-finite rotation', sw.lbs, V, B, np.full((4, 2), 0.5), {"b": float("nan")})


def test_indices():
    err(r"triangle 1 refers to vertex 7, but the mesh has only 4 vertices", sw.solve, V, [[0, 1, 2], [0, 2, 7]], B)
    err(r"triangles\[1, 2\] = -1 is not a valid index", sw.solve, V, [[0, 1, 2], [0, 2, -1]], B)
    err(r"vertex_parts", sw.solve, V, T, B, parts=(["x"], [0, 0, 1, 0]))
    err(r"watch vertices\[0\] = -3", sw.evaluate, V, T, B, np.full((4, 2), 0.5), {"pose": {}, "watch": {"vertices": [-3]}})


def test_mesh_errors_from_the_crate():
    err(r"zero area", sw.solve, V, [[0, 1, 2], [0, 1, 1]], B)
    err(r"mixed orientation", sw.solve, V, [[0, 1, 2], [0, 3, 2]], B)
    err(r"repeats triangle 0", sw.solve, V, [[0, 1, 2], [1, 2, 0]], B)


def test_bones_and_names():
    err(r'bone "b" names parent "zz"', sw.solve, V, T, [B[0], ("b", "zz", (1, 0.5), (2, 0.5), None)])
    err(r"parent cycle", sw.solve, V, T, [("a", "b", (0, 0), (1, 0), None), ("b", "a", (1, 0), (2, 0), None)])
    err(r'bone name "a" is used by bones 0 and 1', sw.solve, V, T, [B[0], B[0]])
    err(r"the skeleton has no bones", sw.solve, V, T, [])
    err(r"bones\[0\] has 3 fields", sw.solve, V, T, [("a", None, (0, 0))])
    err(r"bones must be a list", sw.solve, V, T, "abc", exc=TypeError)
    err(r'bone "a" head must have 2 coordinates, got 3', sw.solve, V, T, [("a", None, (0, 0, 0), (1, 0), None)])
    err(r'unknown part "arm"', sw.solve, V, T, [("a", None, (0, 0.5), (2, 0.5), "arm")])


def test_solver_and_options():
    err(r'unknown solver "nope"', sw.solve, V, T, B, solver="nope")
    err(r"solver option colour: unknown option for solver heat", sw.solve, V, T, B, solver="heat", options={"colour": 1})
    err(r"solver option falloff_power", sw.solve, V, T, B, solver="euclidean", options={"falloff_power": -1.0})
    err(r"options must be a dict", sw.solve, V, T, B, solver="heat", options=[1], exc=TypeError)


def test_probes_and_poses():
    w = np.full((4, 2), 0.5)
    err(r'unknown bone "zz"', sw.evaluate, V, T, B, w, {"pose": {"zz": 10}})
    err(r"probe: unknown key colour", sw.evaluate, V, T, B, w, {"pose": {}, "colour": 1})
    err(r"probe watch: unknown key below", sw.evaluate, V, T, B, w, {"pose": {"b": 10}, "watch": {"below": 1}})
    err(r"pose must be a dict", sw.lbs, V, B, w, [("b", 10)], exc=TypeError)
    err(r"must be a number", sw.lbs, V, B, w, {"b": "ten"}, exc=TypeError)


def test_files(tmp_path):
    err(r"nothing.json", sw.load_scene, tmp_path / "nothing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    err(r"bad.json", sw.load_scene, bad)
    wf = tmp_path / "w.json"
    wf.write_text(json.dumps({"format": "skinweights.weights/1", "scene": "s", "solver": "x",
                              "bones": ["a", "b"], "weights": [[1, 0], [0.5]]}))
    err(r"row 1 has 1 entries, expected 2", sw.load_weights, wf)
    err(r'unknown built-in scene|unknown', sw.builtin_scene, "nope", vertices=1000)
    err(r"vertices", sw.builtin_scene, "arms-down", vertices=10)
