"""Type stubs of the compiled module (re-exported by ``skinweights``)."""

from os import PathLike
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str
DEFAULT_SOLVER: str
SOLVER_NAMES: List[str]
BUILTIN_SCENES: List[str]

_Point = Union[Tuple[float, float], Sequence[float], npt.ArrayLike]
# (name, parent, head, tail, part) or with a sixth field, influences (part names).
Bone = Union[
    Tuple[str, Optional[str], _Point, _Point, Optional[str]],
    Tuple[str, Optional[str], _Point, _Point, Optional[str], Optional[Sequence[str]]],
]
# (part_names, vertex_parts): vertex_parts[v] indexes part_names.
Parts = Tuple[Sequence[str], npt.ArrayLike]
# {bone: degrees} or {bone: {"rotate": degrees, "translate": (x, y)}}.
Pose = Mapping[str, Union[float, Mapping[str, Any]]]
# {"name": str (optional), "pose": Pose, "watch": {"part", "below_y", "min_distance", "vertices"}}.
Probe = Mapping[str, Any]
_Path = Union[str, "PathLike[str]"]

class SkinweightsError(ValueError):
    """Bad input or a failed solve; the message names the vertex, triangle, bone or field."""

class SolveReport(TypedDict):
    solver: str
    seconds: float
    warnings: List[str]
    bones: List[str]
    bind: str

class TransferReport(TypedDict):
    copied: int
    inpainted: int
    from_scratch: int
    farthest: float
    notes: List[str]

class Metrics(TypedDict):
    drag_max_pct: float
    drag_mean_pct: float
    leaked_weight: float
    flipped: int
    distortion_max: float
    distortion_p99: float
    area_change_pct: float
    norm_err: float
    bind_err: float
    discontinuities: int
    dirichlet: float
    time_s: Optional[float]

class DragReport(TypedDict):
    drag_max_pct: float
    drag_mean_pct: float
    height: float
    vertices: npt.NDArray[np.int64]
    displacement: npt.NDArray[np.float64]

class WeightsInfo(TypedDict):
    scene: str
    solver: str
    bones: List[str]

class Scene:
    """A scene: mesh (vertices, triangles, parts), bones and probes, in the form the
    functions take: ``solve(s.vertices, s.triangles, s.bones, parts=s.parts)``."""

    @property
    def name(self) -> str: ...
    @property
    def vertices(self) -> npt.NDArray[np.float64]:
        """(n, 2) vertex positions."""
    @property
    def triangles(self) -> npt.NDArray[np.int64]:
        """(m, 3) counter-clockwise triangles."""
    @property
    def bones(self) -> List[Bone]: ...
    @property
    def bone_names(self) -> List[str]: ...
    @property
    def parts(self) -> Tuple[List[str], npt.NDArray[np.int64]]: ...
    @property
    def probes(self) -> List[Dict[str, Any]]: ...
    def probe(self, name: Optional[str] = None) -> Dict[str, Any]:
        """The probe called ``name`` (the first when None)."""
    @property
    def height(self) -> float:
        """Bounding-box height of the rest mesh (drag percentages refer to it)."""
    @property
    def notes(self) -> List[str]:
        """Notes from loading (e.g. a clockwise file flipped)."""

def solve(
    vertices: npt.ArrayLike,
    triangles: npt.ArrayLike,
    bones: Sequence[Bone],
    solver: str = "best",
    options: Optional[Mapping[str, Union[str, float, int, bool]]] = None,
    parts: Optional[Parts] = None,
    bind: Optional[str] = None,
    bindings: Optional[Mapping[str, Sequence[str]]] = None,
) -> Tuple[npt.NDArray[np.float64], SolveReport]:
    """Skinning weights (n, b) for a 2D mesh, rows summing to 1, and the solve report.
    bind: "artist", "auto" or "all" (None: "artist" when bindings lists a part with two or
    more bones, else "all"); bindings: part name -> bone names its file binds it to.
    Runs with the GIL released."""

def transfer(
    vertices: npt.ArrayLike,
    triangles: npt.ArrayLike,
    bones: Sequence[Bone],
    source_vertices: npt.ArrayLike,
    source_triangles: npt.ArrayLike,
    source_weights: npt.ArrayLike,
    method: str = "nearest",
    target_bones: Optional[Sequence[str]] = None,
    solver: str = "best",
    max_distance: Optional[float] = None,
    far_distance: Optional[float] = None,
) -> Tuple[npt.NDArray[np.float64], TransferReport]:
    """Weights (n, b) for the target mesh carried from the weighted source mesh (costume
    transfer, docs/transfer.md), rows summing to 1, and the transfer report. Runs with the
    GIL released."""

def evaluate(
    vertices: npt.ArrayLike,
    triangles: npt.ArrayLike,
    bones: Sequence[Bone],
    weights: npt.ArrayLike,
    probe: Probe,
    parts: Optional[Parts] = None,
    time_s: Optional[float] = None,
) -> Metrics:
    """Every metric of ``weights`` on one probe (the numbers of ``skinweights compare --json``)."""

def measure_drag(
    vertices: npt.ArrayLike,
    triangles: npt.ArrayLike,
    bones: Sequence[Bone],
    posed: npt.ArrayLike,
    probe: Probe,
    parts: Optional[Parts] = None,
) -> DragReport:
    """The drag metric for positions deformed by another tool (e.g. Blender) in the probe's pose."""

def lbs(
    vertices: npt.ArrayLike,
    bones: Sequence[Bone],
    weights: npt.ArrayLike,
    pose: Pose,
) -> npt.NDArray[np.float64]:
    """Linear blend skinning: (n, 2) posed positions."""

def load_scene(path: _Path) -> Scene:
    """Reads a scene file (skinweights.scene/1 or /2)."""

def load_weights(path: _Path) -> Tuple[npt.NDArray[np.float64], WeightsInfo]:
    """Reads a weights file (skinweights.weights/1): (weights, {"scene", "solver", "bones"})."""

def builtin_scene(name: str, vertices: int = 10000, gap: Optional[float] = None) -> Scene:
    """Generates a built-in scene (arms-down, arms-touching, layered-arms, bar, figure, ...)."""

# ---- batches (docs/batch.md); skinweights.batch wraps these ----

class ReportRow(TypedDict):
    """One row of report.json / report.csv: an item and a solver."""

    input: str
    kind: str
    solver: str
    status: str
    error: str
    error_kind: str
    weights: str
    scene: str
    export: str
    seconds: float
    vertices: Optional[int]
    triangles: Optional[int]
    bones: Optional[int]
    warnings: int
    lint: str
    lint_failed: str
    artist_meshes: Optional[int]
    artist_agreement_pct: Optional[float]
    artist_weight_distance: Optional[float]
    artist_one_bone_mean_pct: Optional[float]
    artist_one_bone_p95_pct: Optional[float]
    key: str
    stage: Optional[str]

class Candidate(TypedDict):
    input: str
    path: str
    explicit: bool
    error: Optional[str]
    error_kind: Optional[str]

class ItemResult(TypedDict):
    rows: List[ReportRow]
    reused: int
    skipped: bool
    computed_seconds: float

_Options = Optional[Mapping[str, Union[str, float, int, bool]]]

def batch(
    items: List[str],
    out: _Path,
    solvers: Optional[List[str]] = None,
    options: _Options = None,
    max_influences: Optional[int] = None,
    export: bool = False,
    lint: str = "geometry",
    reference: Optional[str] = None,
    vertices: int = 10000,
    skin: str = "all",
    jobs: Optional[int] = None,
    fresh: bool = False,
    progress: Optional[Callable[[int, int, int], Any]] = None,
) -> Tuple[List[ReportRow], Dict[str, Any]]:
    """The CLI's ``skinweights batch``: (rows, summary). Runs with the GIL released."""

def expand_inputs(items: List[str], out: _Path) -> List[Candidate]:
    """The files a batch of ``items`` looks at (folders walked, globs and manifests expanded)."""

def batch_item(
    input: str,
    path: _Path,
    explicit: bool,
    out: _Path,
    solvers: Optional[List[str]] = None,
    options: _Options = None,
    max_influences: Optional[int] = None,
    export: bool = False,
    lint: str = "geometry",
    reference: Optional[str] = None,
    vertices: int = 10000,
    skin: str = "all",
    fresh: bool = False,
    threads: int = 1,
) -> ItemResult:
    """One file of a batch through every solver (outputs and done records, no report): a Dask task."""

def check_batch_options(
    solvers: Optional[List[str]] = None,
    options: _Options = None,
    max_influences: Optional[int] = None,
    export: bool = False,
    lint: str = "geometry",
    reference: Optional[str] = None,
    vertices: int = 10000,
    skin: str = "all",
    fresh: bool = False,
) -> None:
    """Raises SkinweightsError for options a batch refuses (unknown solver, bad option, ...)."""
