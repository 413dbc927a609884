"""skinweights.batch: the CLI's `skinweights batch` from Python, on this machine and on a Dask
cluster of 2 worker processes: the same rows, the same report.csv (timings aside), the same
weights files, and a second run computes nothing."""

import csv
import shutil
import subprocess
import sys

import pytest

import skinweights as sw
from conftest import REPO, cli_path, run_cli

SHIPPED = REPO / "data" / "khronos-simpleskin" / "SimpleSkin.gltf"
HOSTILE = '{"skeleton": {"spine": "4.1"}, "bones": [{"name": "root", "parent": "nope"'


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A shipped rig, a scene file written by `skinweights scene` and a hostile file."""
    d = tmp_path_factory.mktemp("batch") / "in"
    d.mkdir()
    shutil.copy(SHIPPED, d / SHIPPED.name)
    run_cli("scene", "arms-down", "--vertices", 1500, "-o", d / "arms-down.json")
    (d / "broken.json").write_text(HOSTILE)
    return d


def cli_batch(inputs, out):
    p = subprocess.run([str(cli_path()), "batch", *map(str, inputs), "--out", str(out)],
                       capture_output=True, text=True)
    # 3: some rows failed (the hostile file), every other row done.
    assert p.returncode == 3, p.stderr
    return p.stdout


@pytest.fixture(scope="module")
def cli_out(folder):
    out = folder.parent / "out-cli"
    cli_batch([folder], out)
    return out


def report(out):
    """report.csv as dicts without `seconds`, the output folder's name replaced by OUT."""
    with open(out / "report.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        del r["seconds"]
        for k, v in r.items():
            r[k] = v.replace(str(out), "OUT")
    return rows


def weights_files(out):
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.weights.json"))}


def check_rows(rows, folder):
    by_input = {r["input"]: r for r in rows}
    assert sorted(by_input) == sorted(str(folder / n) for n in ["SimpleSkin.gltf", "arms-down.json", "broken.json"])
    assert len(rows) == 3
    ok = [r for r in rows if r["status"] == "ok"]
    assert {r["kind"] for r in ok} == {"gltf", "scene"}
    for r in ok:
        assert r["solver"] == sw.DEFAULT_SOLVER and r["weights"] and r["lint"] in ("pass", "fail")
    bad = by_input[str(folder / "broken.json")]
    assert bad["status"] == "error" and bad["error_kind"] and "broken.json" in bad["error"]


def test_batch_equals_cli(folder, cli_out):
    out = folder.parent / "out-py"
    calls = []
    rows = sw.batch(folder, out, progress=lambda done, total, failed: calls.append((done, total, failed)))
    check_rows(rows, folder)
    assert rows.summary["computed"] == 3 and rows.summary["failed"] == 1
    assert calls[-1] == (3, 3, 1)
    assert report(out) == report(cli_out)
    assert weights_files(out) == weights_files(cli_out) != {}
    # The rows returned are report.json's.
    import json
    assert json.loads((out / "report.json").read_text()) == list(rows)

    # Resume: nothing computed again, the same report byte for byte (timings kept).
    first = (out / "report.csv").read_bytes()
    again = sw.batch([folder], out)
    assert again.summary["computed"] == 0 and again.summary["reused"] == 3
    assert (out / "report.csv").read_bytes() == first
    # fresh: everything again.
    assert sw.batch([folder], out, fresh=True).summary["computed"] == 3


def test_options_reach_the_batch(folder, tmp_path):
    scene = folder / "arms-down.json"
    rows = sw.batch([scene], tmp_path / "o", solvers=["heat", "euclidean"], max_influences=2, lint=None)
    assert [r["solver"] for r in rows] == ["euclidean", "heat"]
    assert all(r["status"] == "ok" and r["lint"] == "" for r in rows)
    w, _ = sw.load_weights(rows[0]["weights"])
    assert ((w > 0).sum(axis=1) <= 2).all()
    # A solver option: the weights are `solve --option`'s, byte for byte.
    (row,) = sw.batch(scene, tmp_path / "p", solvers="euclidean", options={"falloff_power": 2})
    run_cli("solve", scene, "--solver", "euclidean", "--option", "falloff_power=2", "-o", tmp_path / "w.json")
    assert open(row["weights"], "rb").read() == (tmp_path / "w.json").read_bytes()


def test_bad_options_raise(folder, tmp_path):
    with pytest.raises(sw.SkinweightsError, match="nope"):
        sw.batch([folder], tmp_path / "o", solvers=["nope"])
    with pytest.raises(sw.SkinweightsError, match="lint"):
        sw.batch([folder], tmp_path / "o", lint="some")
    with pytest.raises(ValueError, match="backend"):
        sw.batch([folder], tmp_path / "o", backend="spark")


def test_expand_inputs(folder):
    found = sw.expand_inputs([folder, str(folder / "*.nothing")], folder.parent / "o")
    assert [c["input"] for c in found[:3]] == sorted(str(p) for p in folder.iterdir())
    assert found[-1]["error_kind"] == "NoMatch"


def test_missing_dask_names_the_install(folder, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r'pip install "dask\[distributed\]"'):
        sw.batch([folder], tmp_path / "o", backend="dask")


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_dask_backend_equals_cli(folder, cli_out, dask_client):
    out = folder.parent / "out-dask"
    calls = []
    rows = sw.batch([folder], out, backend="dask", client=dask_client,
                    progress=lambda *a: calls.append(a))
    check_rows(rows, folder)
    s = rows.summary
    assert s["workers"] == 2 and s["tasks"] == 3
    # Every row computed on the workers; the client only gathered their records.
    assert s["computed"] == 3 and s["computed_on_client"] == 0 and s["failed"] == 1
    assert calls[-1] == (3, 3, 1)
    assert report(out) == report(cli_out)
    assert weights_files(out) == weights_files(cli_out)
    assert not (out / "report.running.csv").exists()

    # The same resume rule: a second run computes nothing, the report is unchanged.
    first = (out / "report.csv").read_bytes()
    again = sw.batch([folder], out, backend="dask", client=dask_client)
    assert again.summary["computed"] == 0 and again.summary["reused"] == 3
    assert (out / "report.csv").read_bytes() == first


def test_dask_resumes_a_local_batch(folder, dask_client, tmp_path):
    """Records are records: a batch started here and finished on the cluster redoes nothing."""
    out = tmp_path / "o"
    sw.batch([folder / "arms-down.json"], out)
    rows = sw.batch([folder], out, backend="dask", client=dask_client)
    assert rows.summary["computed"] == 2 and rows.summary["reused"] == 1
