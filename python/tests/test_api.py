"""Invariants of the module's results and of its scene objects."""

import threading
import time

import numpy as np
import pytest

import skinweights as sw
from conftest import VERTICES


def test_builtin_equals_loaded_file(scene):
    b = sw.builtin_scene("arms-down", vertices=VERTICES)
    assert b.name == scene.name == "arms-down"
    # serde_json parses floats to within an ulp (no float_roundtrip feature).
    assert np.max(np.abs(b.vertices - scene.vertices)) < 1e-12
    assert np.array_equal(b.triangles, scene.triangles)
    assert b.bones == scene.bones and b.probes == scene.probes
    names, vp = b.parts
    assert names == ["torso", "arm_l", "arm_r"] and vp.shape == (len(b.vertices),)
    assert b.height == pytest.approx(200.0)
    assert "arms-down" in repr(b)


@pytest.mark.parametrize("solver", ["heat", "geodesic+mask"])
def test_weights_are_valid(scene, solver):
    w, report = sw.solve(scene.vertices, scene.triangles, scene.bones, solver=solver, parts=scene.parts)
    assert w.dtype == np.float64 and w.shape == (len(scene.vertices), len(scene.bones))
    assert np.all(np.isfinite(w)) and np.all(w >= 0)
    assert np.max(np.abs(w.sum(axis=1) - 1)) < 1e-9
    assert report["warnings"] == []


def test_lbs_rest_identity_and_lift(scene):
    w, _ = sw.solve(scene.vertices, scene.triangles, scene.bones, solver="heat+mask", parts=scene.parts)
    rest = sw.lbs(scene.vertices, scene.bones, w, {})
    assert np.max(np.abs(rest - scene.vertices)) < 1e-9  # the seed's bind-identity check
    probe = scene.probe("lift_l")
    posed = sw.lbs(scene.vertices, scene.bones, w, probe["pose"])
    # The left arm swings out: its lowest vertex rises by most of the arm's length.
    arm = scene.parts[1] == scene.parts[0].index("arm_l")
    assert posed[arm, 1].min() - scene.vertices[arm, 1].min() > 100
    # measure_drag of the module's own LBS equals evaluate's drag.
    d = sw.measure_drag(scene.vertices, scene.triangles, scene.bones, posed, probe, parts=scene.parts)
    m = sw.evaluate(scene.vertices, scene.triangles, scene.bones, w, probe, parts=scene.parts)
    assert d["drag_max_pct"] == pytest.approx(m["drag_max_pct"], abs=1e-12)
    assert d["height"] == pytest.approx(200.0) and len(d["vertices"]) == len(d["displacement"]) > 100


def test_measure_drag_sees_a_dragged_torso(scene):
    probe = scene.probe("lift_l")
    # heat+mask does not drag at all, so the push below is the whole drag.
    w, _ = sw.solve(scene.vertices, scene.triangles, scene.bones, solver="heat+mask", parts=scene.parts)
    posed = sw.lbs(scene.vertices, scene.bones, w, probe["pose"])
    moved = posed.copy()
    v = int(sw.measure_drag(scene.vertices, scene.triangles, scene.bones, posed, probe,
                            parts=scene.parts)["vertices"][0])
    moved[v, 0] += 20.0  # push one watched torso vertex 20 units (10% of the height)
    d = sw.measure_drag(scene.vertices, scene.triangles, scene.bones, moved, probe, parts=scene.parts)
    assert d["drag_max_pct"] == pytest.approx(10.0, abs=1e-9)


def test_clockwise_mesh_is_flipped_with_a_warning(scene):
    w, _ = sw.solve(scene.vertices, scene.triangles, scene.bones, solver="heat", parts=scene.parts)
    cw_tris = scene.triangles[:, [0, 2, 1]]
    w2, report = sw.solve(scene.vertices, cw_tris, scene.bones, solver="heat", parts=scene.parts)
    assert np.max(np.abs(w - w2)) <= 1e-12
    assert any("clockwise" in m for m in report["warnings"])


def test_lists_and_int_arrays_are_accepted():
    v = [[0, 0], [2, 0], [2, 1], [0, 1]]  # ints: converted to float64
    t = np.array([[0, 1, 2], [0, 2, 3]], dtype=np.uint32)
    bones = [["a", None, [0, 0.5], [1, 0.5], None], ("b", "a", np.array([1, 0.5]), (2, 0.5), None)]
    w, report = sw.solve(v, t, bones, solver="linear")
    assert w.shape == (4, 2) and report["bones"] == ["a", "b"]


def test_solve_releases_the_gil():
    s = sw.builtin_scene("arms-down", vertices=60000)
    done = threading.Event()
    seconds = []

    def work():
        try:
            # bbw, not heat: heat solves 60k vertices in about 0.1 s here, too short for the
            # ticks to tell anything (bbw takes about 0.4 s; at 20k, since its coarse start,
            # under 0.1 s).
            _, report = sw.solve(s.vertices, s.triangles, s.bones, solver="bbw", parts=s.parts)
            seconds.append(report["seconds"])
        finally:
            done.set()

    t = threading.Thread(target=work)
    t.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    # With the GIL held for the whole solve, this thread could not tick during it (a few
    # ticks at most, before the solve starts).
    assert seconds[0] > 0.05, seconds
    assert ticks >= 20, (ticks, seconds)


def _strip(x0, x1, nx, ny, y0=0.0, y1=20.0):
    xs, ys = np.meshgrid(np.linspace(x0, x1, nx), np.linspace(y0, y1, ny))
    v = np.stack([xs.ravel(), ys.ravel()], axis=1)
    t = []
    for j in range(ny - 1):
        for i in range(nx - 1):
            a = j * nx + i
            t += [[a, a + 1, a + nx + 1], [a, a + nx + 1, a + nx]]
    return v, np.array(t, dtype=np.int64)


TRANSFER_BONES = [("a", None, (0.0, 10.0), (50.0, 10.0), None), ("b", "a", (50.0, 10.0), (100.0, 10.0), None)]


def test_transfer_copies_linear_weights_exactly():
    sv, st = _strip(0.0, 100.0, 21, 5)
    sw_b = sv[:, 0] / 100.0
    source_w = np.stack([1 - sw_b, sw_b], axis=1)
    tv, tt = _strip(2.0, 98.0, 13, 4, 1.0, 19.0)
    w, report = sw.transfer(tv, tt, TRANSFER_BONES, sv, st, source_w)
    assert w.shape == (len(tv), 2)
    assert np.max(np.abs(w[:, 1] - tv[:, 0] / 100.0)) < 1e-12
    assert report["copied"] == len(tv) and report["from_scratch"] == 0 and report["notes"] == []
    # A source moved far away: weighted from scratch, with a note, still normalised.
    w, report = sw.transfer(tv, tt, TRANSFER_BONES, sv + [5000.0, 0.0], st, source_w, method="robust")
    assert np.all(np.isfinite(w)) and np.max(np.abs(w.sum(axis=1) - 1)) < 1e-9
    assert report["from_scratch"] == len(tv) and "farther than" in report["notes"][0]


def test_transfer_errors_name_the_problem():
    sv, st = _strip(0.0, 100.0, 3, 2)
    tv, tt = _strip(0.0, 100.0, 3, 2)
    with pytest.raises(sw.SkinweightsError, match="no weighted source mesh"):
        sw.transfer(tv, tt, TRANSFER_BONES, sv, st, np.zeros((len(sv), 2)))
    with pytest.raises(sw.SkinweightsError, match="nearest, robust"):
        sw.transfer(tv, tt, TRANSFER_BONES, sv, st, np.ones((len(sv), 2)) / 2, method="closest")
    with pytest.raises(ValueError, match="target_bones"):
        sw.transfer(tv, tt, TRANSFER_BONES, sv, st, np.ones((len(sv), 2)) / 2, target_bones=["c"])


def test_solve_binds_each_part_to_its_bones():
    s = sw.builtin_scene("arms-down", vertices=3000)
    names, vertex_parts = s.parts
    bone_names = [b[0] for b in s.bones]
    whole, report = sw.solve(s.vertices, s.triangles, s.bones, parts=s.parts)
    assert report["bind"] == "all"
    # The first part bound to the first two bones: the other columns are 0 on its vertices,
    # the rest of the character keeps the binder's bones, every row sums to 1.
    part = names[0]
    chosen = bone_names[:2]
    w, report = sw.solve(s.vertices, s.triangles, s.bones, parts=s.parts, bindings={part: chosen})
    assert report["bind"] == "artist"
    rows = w[np.asarray(vertex_parts) == 0]
    others = [j for j, n in enumerate(bone_names) if n not in chosen]
    assert len(rows) > 0 and np.max(rows[:, others]) == 0.0
    assert np.all(np.isfinite(w)) and np.min(w) >= 0 and np.max(np.abs(w.sum(axis=1) - 1)) < 1e-9
    same, report = sw.solve(s.vertices, s.triangles, s.bones, parts=s.parts, bindings={part: chosen}, bind="all")
    assert report["bind"] == "all" and np.array_equal(same, whole)
    with pytest.raises(ValueError, match="bindings"):
        sw.solve(s.vertices, s.triangles, s.bones, parts=s.parts, bindings={part: ["no-such-bone"]})
    with pytest.raises(sw.SkinweightsError, match="artist, auto, all"):
        sw.solve(s.vertices, s.triangles, s.bones, parts=s.parts, bind="some")
