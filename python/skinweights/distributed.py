"""The Dask back end of :func:`skinweights.batch` (docs/batch.md, "Past one machine").

Every file of the batch becomes one Dask task that runs the library's batch on that one
file with the batch's output folder (:func:`run_item`): the worker writes the file's
outputs and its done records (``OUT/.batch/KEY.json``) on the shared filesystem, exactly
as the one-machine batch does. When every task is done, the batch runs once more here, on
the client, over all the files: it finds every record, computes nothing, and writes
``report.csv`` / ``report.json`` exactly as ``skinweights batch`` does. So the report and
the resume rule are the one-machine batch's by construction: a re-run (or a run after a
killed one) computes only the rows without a record.

Dask is imported when this back end is used, not with ``skinweights``; it is an optional
dependency: ``pip install "dask[distributed]"``.
"""

import functools
import os
import threading
import time
from typing import Any, Callable, Dict, List, Optional

from . import _native
from ._batch import BatchReport

INSTALL_HINT = 'the Dask back end of skinweights.batch needs dask.distributed: pip install "dask[distributed]"'


def _distributed():
    try:
        import distributed
    except ImportError as e:
        raise ImportError(INSTALL_HINT) from e
    return distributed


_cwd_lock = threading.Lock()


def _version() -> str:
    return _native.__version__


def run_item(item: Dict[str, Any], out: str, cwd: str, threads: int, options: Dict[str, Any]) -> Dict[str, Any]:
    """One file of a batch, on a worker: :func:`skinweights._native.batch_item` of one entry
    of ``expand_inputs``. Relative paths are the client's: a worker in another folder
    changes into the client's folder ``cwd`` first (every task of a batch names the same
    one; with absolute ``out`` and inputs nothing changes)."""
    if not (os.path.isabs(item["path"]) and os.path.isabs(out)):
        with _cwd_lock:
            if os.getcwd() != cwd:
                os.chdir(cwd)
    return _native.batch_item(item["input"], item["path"], item["explicit"], out, threads=threads, **options)


def batch(
    items: List[str],
    out: str,
    client: Any = None,
    progress: Optional[Callable[[int, int, int], Any]] = None,
    threads_per_item: int = 1,
    **options: Any,
) -> BatchReport:
    """:func:`skinweights.batch` with ``backend="dask"``: ``items`` expanded here, one task
    per file on ``client`` (None: the default client, else a new ``LocalCluster`` of worker
    processes, closed at the end), the report written here from the done records.

    ``out`` must be on a filesystem every worker and the client share, at the same path (and
    relative inputs relative to the client's folder, at the same path on the workers).
    ``progress(done, total, failed)`` is called here as tasks finish. A task that fails as a
    task (a worker lost more often than Dask retries, ``KilledWorker``) raises
    ``RuntimeError`` naming the files after every other task has finished; their records are
    kept, so a re-run computes only what is missing. Returns the report's rows with a
    ``summary`` (``computed`` counts the rows the workers and the client computed,
    ``computed_on_client`` the client's share: 0 unless a row failed with an I/O error,
    which is never recorded and so tried again).
    """
    distributed = _distributed()
    started = time.perf_counter()
    _native.check_batch_options(**options)
    candidates = _native.expand_inputs(items, out)
    todo = [c for c in candidates if c["error"] is None]

    cluster = None
    if client is None:
        try:
            client = distributed.get_client()
        except ValueError:
            cluster = distributed.LocalCluster(processes=True, threads_per_worker=1)
            client = distributed.Client(cluster)
    try:
        try:
            versions = set(client.run(_version).values())
        except Exception as e:  # noqa: BLE001 - any failure to import on a worker
            raise RuntimeError(f"skinweights is not importable on every Dask worker ({e!r}): "
                               "install the same skinweights wheel on the workers") from e
        if versions - {_native.__version__}:
            raise RuntimeError(f"the Dask workers run skinweights {sorted(versions)}, this client "
                               f"{_native.__version__}: their records would not be reused")
        workers = len(client.nthreads())
        task = functools.partial(run_item, out=out, cwd=os.getcwd(), threads=threads_per_item,
                                 options=options)
        futures = client.map(task, todo, pure=False)
        by_key = {f.key: c for f, c in zip(futures, todo)}
        lost = []
        done = failed = computed = reused = 0
        seconds = 0.0
        try:
            for f in distributed.as_completed(futures):
                try:
                    result = f.result()
                except _native.SkinweightsError:
                    raise
                except Exception as e:  # noqa: BLE001 - a task lost as a task, not a row
                    lost.append((by_key[f.key]["input"], e))
                else:
                    rows = result["rows"]
                    failed += sum(r["status"] == "error" for r in rows)
                    reused += result["reused"]
                    computed += len(rows) - result["reused"]
                    seconds += result["computed_seconds"]
                done += 1
                if progress is not None:
                    progress(done, len(todo), failed)
        except BaseException:
            client.cancel(futures)
            raise
        if lost:
            names = ", ".join(i for i, _ in lost[:5]) + (" ..." if len(lost) > 5 else "")
            raise RuntimeError(f"{len(lost)} Dask tasks failed ({names}): {lost[0][1]!r}; the other "
                               "files are done and recorded, a re-run computes only these")
    finally:
        if cluster is not None:
            client.close()
            cluster.close()

    # The report, here: every row from the records the workers wrote.
    local = dict(options, fresh=False)
    rows, summary = _native.batch(items, out, progress=None, **local)
    summary = dict(summary)
    summary["computed_on_client"] = summary["computed"]
    summary["computed"] = computed + summary["computed"]
    summary["computed_seconds"] = seconds + summary["computed_seconds"]
    summary["reused"] = reused
    summary["workers"] = workers
    summary["tasks"] = len(todo)
    summary["wall_seconds"] = time.perf_counter() - started
    summary.pop("jobs", None)
    summary.pop("threads", None)
    return BatchReport(rows, summary)
