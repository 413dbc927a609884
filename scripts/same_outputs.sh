#!/usr/bin/env bash
# Writes the outputs of the file formats into one folder, so that two builds can be
# compared byte for byte with `diff -r`: every shipped rig imported (and every rig of the
# artist-rig corpus when present), imported rigs exported to every format, `compare`,
# `eval` and `lint` on built-in and imported scenes, and the `benchmark`, `leakage_folds`
# and `pareto` experiments. Timings (seconds, milliseconds) are replaced by `T` so
# that two runs of the same build agree.
#
#   scripts/same_outputs.sh OUT_DIR      (made in target/same-outputs, then copied)
#   scripts/same_outputs.sh /tmp/before && (edit) && scripts/same_outputs.sh /tmp/after
#   diff -r /tmp/before /tmp/after        # empty: the outputs are the same
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 OUT_DIR" >&2
    exit 2
fi
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$1"
DEST="$(cd "$1" && pwd)"
# Scenes name their images by a path relative to the scene file: the outputs are made in a
# fixed folder of the checkout, so that they do not depend on where DEST is, then copied.
OUT="$ROOT/target/same-outputs"
rm -rf "$OUT"
mkdir -p "$OUT"
CORPUS="${SKINWEIGHTS_ARTIST_RIGS:-$ROOT/../shared/data/artist-rigs}"

cd "$ROOT"
cargo build --release --locked --features internals \
    --bin skinweights --bin benchmark --bin leakage_folds --bin pareto
BIN="$ROOT/target/release"
SW="$BIN/skinweights"

# Runs a command, keeping its standard output, standard error and exit code in NAME.log.
run() {
    local name="$1"
    shift
    local code=0
    "$@" >"$OUT/$name.log" 2>&1 || code=$?
    echo "exit $code" >>"$OUT/$name.log"
}

# --- import ------------------------------------------------------------------------------
IMP="$OUT/import"
mkdir -p "$IMP"
import_rig() { # FORMAT FILE NAME [OPTIONS...]
    local format="$1" file="$2" name="$3"
    shift 3
    run "import/$name" "$SW" import "$format" "$file" -o "$IMP/$name.json" --force "$@"
}
for f in data/spine/*/*.json; do
    n="spine-$(basename "$f" .json)"
    import_rig spine "$f" "$n"
    import_rig spine "$f" "$n-all-skins" --skin all
done
import_rig dragonbones data/dragonbones-you-xin/body_ske.json dragonbones-body
import_rig godot data/godot-gbot/player.tscn godot-gbot
for f in data/creature/*.json; do
    import_rig creature "$f" "$(basename "$f" .json)"
done
import_rig gltf data/khronos-simpleskin/SimpleSkin.gltf gltf-simpleskin --weights "$IMP/gltf-simpleskin.weights.json"
import_rig spine data/artist-rigs/spine-squirrel.spinejson shipped-spine-squirrel
import_rig dragonbones data/artist-rigs/dragonbones-robot_ske.json shipped-dragonbones-robot
import_rig godot data/artist-rigs/godot-godotbot.tscn shipped-godot-godotbot
if [ -d "$CORPUS" ]; then
    for f in "$CORPUS"/*; do
        base="$(basename "$f")"
        case "$base" in
            spine-*) import_rig spine "$f" "corpus-${base%.*}" ;;
            dragonbones-*) import_rig dragonbones "$f" "corpus-${base%.*}" ;;
            godot-*) import_rig godot "$f" "corpus-${base%.*}" ;;
            creature-*) import_rig creature "$f" "corpus-${base%.*}" ;;
        esac
    done
fi

# --- export ------------------------------------------------------------------------------
EXP="$OUT/export"
mkdir -p "$EXP"
export_to() { # FORMAT SCENE_NAME OUTPUT [OPTIONS...]
    local format="$1" name="$2" output="$3"
    shift 3
    run "export/$output" "$SW" export "$format" "$IMP/$name.json" "$IMP/$name.artist.json" \
        -o "$EXP/$output" --force "$@"
}
for name in spine-spineboy-pro spine-owl-pro-all-skins dragonbones-body godot-gbot creature-fox \
    shipped-spine-squirrel shipped-dragonbones-robot shipped-godot-godotbot; do
    export_to gltf "$name" "$name.gltf"
    export_to gltf "$name" "$name.glb"
    export_to gltf "$name" "$name-scaled.gltf" --scale 0.01
    export_to dragonbones "$name" "${name}_ske.json"
    export_to godot "$name" "$name-4.tscn"
    export_to godot "$name" "$name-3.tscn" --godot 3
    export_to spine "$name" "$name-spine.json"
    export_to spine "$name" "$name-spine-k2.json" --max-influences 2
done
for rig in spineboy owl raptor stretchyman; do
    src="data/spine/$rig/$rig-pro.json"
    export_to spine "spine-$rig-pro" "spine-$rig-source.json" --source "$src"
    export_to spine "spine-$rig-pro" "spine-$rig-source-k3.json" --source "$src" --max-influences 3
    export_to spine "spine-$rig-pro" "spine-$rig-regions.json" --source "$src" --regions-to-meshes
done
for rig in fox bat icedemon; do
    export_to creature "creature-$rig" "creature-$rig-creature.json" --source "data/creature/creature-$rig.json"
done
# Solved (dense) weights through the exporters that truncate influences.
run solve-owl "$SW" solve "$IMP/spine-owl-pro.json" --solver euclidean --bones all -o "$EXP/owl-euclidean.json" --force
for k in 1 2 4; do
    run "export/owl-euclidean-k$k" "$SW" export spine "$IMP/spine-owl-pro.json" "$EXP/owl-euclidean.json" \
        --source data/spine/owl/owl-pro.json --max-influences "$k" --regions-to-meshes -o "$EXP/owl-euclidean-k$k.json" --force
done
run export/owl-euclidean-gltf "$SW" export gltf "$IMP/spine-owl-pro.json" "$EXP/owl-euclidean.json" -o "$EXP/owl-euclidean.gltf" --force
run export/owl-euclidean-db "$SW" export dragonbones "$IMP/spine-owl-pro.json" "$EXP/owl-euclidean.json" -o "$EXP/owl-euclidean_ske.json" --force

# Exported files read back.
REIMP="$OUT/reimport"
mkdir -p "$REIMP"
for name in spine-spineboy-pro dragonbones-body godot-gbot; do
    run "reimport/$name-spine" "$SW" import spine "$EXP/$name-spine.json" -o "$REIMP/$name-spine.json" --force
    run "reimport/$name-db" "$SW" import dragonbones "$EXP/${name}_ske.json" -o "$REIMP/$name-db.json" --force
    run "reimport/$name-godot4" "$SW" import godot "$EXP/$name-4.tscn" -o "$REIMP/$name-godot4.json" --force
    run "reimport/$name-godot3" "$SW" import godot "$EXP/$name-3.tscn" -o "$REIMP/$name-godot3.json" --force
    run "reimport/$name-gltf" "$SW" import gltf "$EXP/$name.gltf" -o "$REIMP/$name-gltf.json" \
        --weights "$REIMP/$name-gltf.weights.json" --force
    run "reimport/$name-glb" "$SW" import gltf "$EXP/$name.glb" -o "$REIMP/$name-glb.json" \
        --weights "$REIMP/$name-glb.weights.json" --force
done

# --- compare, eval, lint, pose -----------------------------------------------------------
run compare-arms-down "$SW" compare arms-down --out "$OUT/compare-arms-down" --force
run compare-arms-down-json "$SW" compare arms-down --json --no-figures --out "$OUT/compare-arms-down-json" --force
run compare-body "$SW" compare "$IMP/dragonbones-body.json" --clip all --solvers linear,euclidean \
    --reference "$IMP/dragonbones-body.artist.json" --bones all --out "$OUT/compare-body" --force
run compare-owl "$SW" compare "$IMP/spine-owl-pro.json" --solvers linear,euclidean,heat \
    --out "$OUT/compare-owl" --force
for name in dragonbones-body spine-spineboy-pro godot-gbot creature-fox; do
    run "eval-$name" "$SW" eval "$IMP/$name.json" "$IMP/$name.artist.json"
    run "eval-$name-json" "$SW" eval "$IMP/$name.json" "$IMP/$name.artist.json" --json
    run "lint-$name" "$SW" lint "$IMP/$name.json" "$IMP/$name.artist.json"
    run "lint-$name-json" "$SW" lint "$IMP/$name.json" "$IMP/$name.artist.json" --json
done
run pose-owl "$SW" pose "$IMP/spine-owl-pro.json" --clip blink --time 0.5 --json
run pose-body "$SW" pose "$IMP/dragonbones-body.json" --json
run pose-gbot "$SW" pose "$IMP/godot-gbot.json" --json

# --- images --------------------------------------------------------------------------------
# Every way an image is encoded: a still render with its art, a clip as an animated PNG and
# as a contact sheet, the matting passes (16 bits a channel), a bled sprite, and the layers
# a built-in scene paints.
IMG="$OUT/images"
mkdir -p "$IMG"
run images/solve-body "$SW" solve "$IMP/dragonbones-body.json" --solver heat -o "$IMG/body-heat.json" --force
run images/render-owl "$SW" render "$IMP/spine-owl-pro.json" "$IMP/spine-owl-pro.artist.json" \
    --clip blink --fps 4 --scale 0.25 -o "$IMG/owl-blink.png" --force
run images/render-owl-still "$SW" render "$IMP/spine-owl-pro.json" "$IMP/spine-owl-pro.artist.json" \
    --scale 0.25 --background white -o "$IMG/owl.png" --force
run images/render-body-apng "$SW" render "$IMP/dragonbones-body.json" "$IMG/body-heat.json" \
    --clip idle --fps 6 --scale 0.25 -o "$IMG/body.apng" --force
run images/render-body-sheet "$SW" render "$IMP/dragonbones-body.json" "$IMG/body-heat.json" \
    --clip idle --fps 6 --scale 0.25 --columns 4 -o "$IMG/body-sheet.png" --force
run images/render-body-matting "$SW" render "$IMP/dragonbones-body.json" "$IMG/body-heat.json" \
    --scale 0.25 --matting "$IMG/matting" -o "$IMG/body-matting.png" --force
run images/bleed "$SW" bleed data/kenney-toon/robot_idle.png -o "$IMG/robot-bled.png" --rings 4 --force
(cd "$IMG" && run images/scene-elbow "$SW" scene layered-elbow --overlap 2 -o elbow2.json --force)

# --- experiments -------------------------------------------------------------------------
run benchmark "$BIN/benchmark" --out "$OUT/benchmark"
run leakage_folds "$BIN/leakage_folds" --out "$OUT/leakage_folds"
# pareto prints its table with a time column: its files carry the same table, timings marked.
run pareto sh -c '"$1" --out "$2" >/dev/null' sh "$BIN/pareto" "$OUT/pareto"

# --- timings out -------------------------------------------------------------------------
# The output folder's own path, JSON keys holding seconds, Markdown and CSV columns headed
# by a time, and log lines ending in a duration.
strip_times() {
    OUT="$OUT" perl -i -ne '
        BEGIN { $out = $ENV{OUT}; }
        sub timed { $_[0] =~ /^ *(solve )?time( \(s\)| s)? *$|^ *time_s *$|^ *seconds *$/ }
        s/\Q$out\E/OUT/g;
        if ($ARGV =~ /\.csv$/) {
            my @c = split /,/, $_, -1;
            chomp $c[-1];
            if ($. == 1) { @ccol = map { timed($_) ? 1 : 0 } @c; }
            else { $_ = join(",", map { $ccol[$_] ? "T" : $c[$_] } 0 .. $#c) . "\n"; }
        } elsif (/^\|/) {
            my @c = split /\|/, $_, -1;
            if (!$intable) { @col = map { timed($_) ? 1 : 0 } @c; $intable = 1; }
            elsif (!/^\|[-| :]+$/) { $_ = join("|", map { $col[$_] ? " T " : $c[$_] } 0 .. $#c); }
        } else {
            $intable = 0;
            s/"(time_s|seconds|solve_seconds)": *[0-9.eE+-]+/"$1": T/g;
            s/\b([Dd]one|[a-z+]+) in [0-9.eE+-]+ s$/$1 in T s/;
        }
        print;
        close ARGV if eof;
    ' "$1"
}
find "$OUT" -type f \( -name '*.json' -o -name '*.md' -o -name '*.csv' -o -name '*.log' \) -print0 |
    while IFS= read -r -d '' f; do strip_times "$f"; done
cp -r "$OUT/." "$DEST/"
echo "outputs written to $DEST"
