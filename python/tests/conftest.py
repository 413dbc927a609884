"""Shared fixtures: the CLI binary the module is checked against, and a scene file it wrote."""

import json
import os
import subprocess
from pathlib import Path

import pytest

import skinweights as sw

REPO = Path(__file__).resolve().parents[2]
# A small arms-down keeps the suite fast; the numbers do not depend on the size.
VERTICES = 3000


def cli_path() -> Path:
    p = Path(os.environ.get("SKINWEIGHTS_CLI", REPO / "target" / "release" / "skinweights"))
    if not p.exists():
        pytest.fail(f"the skinweights CLI is not built at {p} (cargo build --release, or set SKINWEIGHTS_CLI)")
    return p


def run_cli(*args) -> str:
    out = subprocess.run([str(cli_path()), *map(str, args)], capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError(f"skinweights {' '.join(map(str, args))} failed:\n{out.stderr}")
    return out.stdout


@pytest.fixture(scope="session")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("sw")


@pytest.fixture(scope="session")
def scene_file(workdir) -> Path:
    """arms-down written by `skinweights scene`."""
    path = workdir / "arms-down.json"
    run_cli("scene", "arms-down", "--vertices", VERTICES, "-o", path)
    return path


@pytest.fixture(scope="session")
def scene(scene_file) -> "sw.Scene":
    return sw.load_scene(scene_file)


def cli_weights(workdir: Path, scene_file: Path, solver: str):
    """Weights of `skinweights solve` as a (n, b) array, via the module's loader."""
    out = workdir / f"w-{solver.replace('+', '_')}.json"
    run_cli("solve", scene_file, "--solver", solver, "-o", out, "--force")
    return sw.load_weights(out)


def cli_compare(workdir: Path, scene_file: Path, solvers):
    text = run_cli("compare", scene_file, "--solvers", ",".join(solvers), "--json",
                   "--no-figures", "--out", workdir / "compare")
    return json.loads(text)


def solver_known(name: str) -> bool:
    """Whether the registry knows `name` (the recommended "best" is being added)."""
    tri = [[0, 1, 2]]
    try:
        sw.solve([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], tri, [("b", None, (0, 0), (1, 0), None)], solver=name)
    except sw.SkinweightsError as e:
        return "unknown solver" not in str(e)
    return True
