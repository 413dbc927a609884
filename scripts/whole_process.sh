#!/usr/bin/env bash
# Whole-process time of `skinweights solve` against the solve itself, at 500k vertices, for
# the JSON and the binary (.swb) scene and weights files. docs/performance.md shows its table.
#
#   bash scripts/whole_process.sh [VERTICES]     (default 500000; builds the release binary)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-500000}"
cargo build --release --quiet --bin skinweights
bin=target/release/skinweights
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
"$bin" scene arms-down --vertices "$n" -o "$dir/scene.json" >/dev/null
"$bin" scene arms-down --vertices "$n" -o "$dir/scene.swb" >/dev/null
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# Wall time depends on what else runs on the machine; CPU time (user + system) much less so.
printf '| solver | files | whole command, wall (s) | whole command, CPU (s) | solve, wall (s) | whole / solve (wall) |\n'
printf '|---|---|---|---|---|---|\n'
TIMEFORMAT='%R %U %S'
for solver in euclidean geodesic heat; do
  for ext in json swb; do
    { times=$( { time "$bin" solve "$dir/scene.$ext" --solver "$solver" -o "$dir/w.$ext" --force >"$dir/out" ; } 2>&1 ); }
    solve=$(sed -E 's/.* in ([0-9.]+) s$/\1/' "$dir/out")
    read -r wall user sys <<<"$times"
    awk -v s="$solver" -v e="$ext" -v w="$wall" -v u="$user" -v y="$sys" -v t="$solve" \
      'BEGIN { printf "| %s | %s | %.2f | %.2f | %.2f | %.2f |\n", s, e, w, u + y, t, w / t }'
  done
done
