"""``skinweights.batch``: many characters in, weights and one report out (docs/batch.md)."""

import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from . import _native

_Path = Union[str, "os.PathLike[str]"]


class BatchReport(list):
    """The report's rows (a list of dicts, the objects of ``report.json``, sorted by input
    then solver) with the run's ``summary`` dict: items, skipped, rows, computed, reused,
    failed, wall_seconds, computed_seconds, report_csv, report_json (and jobs/threads for
    the local back end, workers for Dask)."""

    summary: Dict[str, Any]

    def __init__(self, rows, summary):
        super().__init__(rows)
        self.summary = summary


def _paths(items: Union[_Path, Sequence[_Path]]) -> List[str]:
    if isinstance(items, (str, bytes, os.PathLike)):
        items = [items]
    return [os.fsdecode(os.fspath(i)) for i in items]


def _lint_name(lint: Union[str, bool, None]) -> str:
    if lint is None or lint is False:
        return "none"
    if lint is True:
        return "geometry"
    return lint


def expand_inputs(items: Union[_Path, Sequence[_Path]], out: _Path) -> List[Dict[str, Any]]:
    """The files a batch of ``items`` looks at, as :func:`batch` expands them (folders
    walked, globs expanded, manifests read; ``out`` and other batch output folders left out):
    dicts with ``input`` (as the report names it), ``path``, ``explicit`` (named, not found by
    a walk), and ``error`` / ``error_kind`` (an input that cannot be read at all, e.g. a glob
    matching nothing; None otherwise). Which of them are items is told when they are read."""
    return _native.expand_inputs(_paths(items), os.fsdecode(os.fspath(out)))


def batch(
    items: Union[_Path, Sequence[_Path]],
    out: _Path,
    solvers: Optional[Union[str, Sequence[str]]] = None,
    options: Optional[Mapping[str, Union[str, float, int, bool]]] = None,
    max_influences: Optional[int] = None,
    export: bool = False,
    lint: Union[str, bool, None] = "geometry",
    reference: Optional[str] = None,
    vertices: int = 10000,
    skin: str = "all",
    jobs: Optional[int] = None,
    fresh: bool = False,
    progress: Optional[Callable[[int, int, int], Any]] = None,
    backend: str = "local",
    client: Any = None,
    threads_per_item: int = 1,
) -> BatchReport:
    """Weights a batch of characters, as ``skinweights batch ITEMS... --out OUT`` does.

    items: files, folders, globs or manifests (one path or a list). out: the output folder.
    The keywords are the CLI's flags: solvers (``--solver``, a name or a list; default the
    recommended one), options (``--option``, a dict), max_influences, export, lint
    (``"none"``, ``"geometry"``, ``"full"``), reference (None or ``"artist"``), vertices
    (sprites' mesh size), skin (Spine: ``"all"``, ``"default"`` or a skin name), jobs
    (items at a time; default one per core), fresh (ignore the done records).

    Writes the same outputs, done records (``OUT/.batch``) and ``report.csv`` /
    ``report.json`` as the CLI, and returns the report's rows (a :class:`BatchReport`, a
    list of dicts with a ``summary``). A bad item is a row with ``status == "error"``, not
    an exception; :class:`SkinweightsError` is raised only when the batch cannot run (an
    unknown solver, a bad option, an output folder that cannot be made).

    progress: ``progress(done, total, failed)`` after each file (files done, files, failed
    rows so far). backend: ``"local"`` (this process, every core, the GIL released) or
    ``"dask"``: one Dask task per file on ``client`` (a ``dask.distributed.Client``; None:
    the current default client, else a new ``LocalCluster``), each solving with
    ``threads_per_item`` threads, then the report written here from the done records (see
    :func:`skinweights.distributed.batch`). ``jobs`` does not apply to Dask: the cluster's
    worker threads are the parallelism.
    """
    if isinstance(solvers, str):
        solvers = [solvers]
    kwargs = dict(
        solvers=list(solvers) if solvers is not None else None,
        options=dict(options) if options is not None else None,
        max_influences=max_influences,
        export=export,
        lint=_lint_name(lint),
        reference=reference,
        vertices=vertices,
        skin=skin,
        fresh=fresh,
    )
    paths = _paths(items)
    out = os.fsdecode(os.fspath(out))
    if backend == "local":
        rows, summary = _native.batch(paths, out, jobs=jobs, progress=progress, **kwargs)
        return BatchReport(rows, summary)
    if backend == "dask":
        from . import distributed

        return distributed.batch(paths, out, client=client, progress=progress,
                                 threads_per_item=threads_per_item, **kwargs)
    raise ValueError(f'backend must be "local" or "dask", got {backend!r}')
