#!/usr/bin/env bash
# Builds the Python wheel with maturin, installs it into a virtualenv and runs the pytest
# suite. Fast to rerun: the venv (python/.venv) and cargo's python/target are reused.
# Exits non-zero when the build or a test fails; the last line is pytest's summary.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
py="${PYTHON:-python3}"
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
    "$py" -m venv "$venv"
fi
# Pinned below the next major so a rerun does not pull a breaking release. Dask (calendar
# versions) for the distributed back end of skinweights.batch, which the tests run on a
# LocalCluster of 2 worker processes.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "maturin>=1.5,<2" "numpy>=1.21" "pytest>=7" "dask[distributed]>=2024,<2027"
rm -rf "$here/dist"
# The CLI the tests compare against: the main crate's release binary.
(cd "$here/.." && cargo build --release --quiet --bin skinweights)
"$venv/bin/maturin" build --release --quiet --out "$here/dist" --interpreter "$venv/bin/python"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$here"/dist/skinweights-*.whl
# Run from tests/ so `import skinweights` finds the installed wheel, not the source folder.
cd "$here/tests"
SKINWEIGHTS_CLI="$here/../target/release/skinweights" "$venv/bin/python" -m pytest -q -p no:cacheprovider .
