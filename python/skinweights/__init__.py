"""Skinning weights for 2D character meshes.

The skinweights Rust solvers, metrics and linear blend skinning with NumPy arrays in and out,
plus its scene and weights file loaders::

    import skinweights as sw
    s = sw.builtin_scene("arms-down")
    w, report = sw.solve(s.vertices, s.triangles, s.bones, solver="heat", parts=s.parts)
    m = sw.evaluate(s.vertices, s.triangles, s.bones, w, s.probe("lift_l"), parts=s.parts)
    print(m["drag_max_pct"])

Batches of files (rigs, sprites, scene files) go through :func:`batch`, the library's
``skinweights batch``: the same outputs and report, on this machine or on a Dask cluster
(``backend="dask"``, see :mod:`skinweights.distributed`)::

    rows = sw.batch(["characters/"], "weights", solvers=["best", "heat"])
    print(rows.summary["failed"], rows[0]["weights"])

Errors from bad input or a failed solve raise :class:`SkinweightsError` (a ``ValueError``)
with the message naming the vertex, triangle, bone or field; wrong Python types or array
dtypes raise ``TypeError``.
"""

from ._native import (
    BUILTIN_SCENES,
    DEFAULT_SOLVER,
    SOLVER_NAMES,
    Scene,
    SkinweightsError,
    __version__,
    builtin_scene,
    evaluate,
    lbs,
    load_scene,
    load_weights,
    measure_drag,
    solve,
    transfer,
)
from ._batch import BatchReport, batch, expand_inputs

__all__ = [
    "BUILTIN_SCENES",
    "BatchReport",
    "DEFAULT_SOLVER",
    "SOLVER_NAMES",
    "Scene",
    "SkinweightsError",
    "__version__",
    "batch",
    "builtin_scene",
    "evaluate",
    "expand_inputs",
    "lbs",
    "load_scene",
    "load_weights",
    "measure_drag",
    "solve",
    "transfer",
]
