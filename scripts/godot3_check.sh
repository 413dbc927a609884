#!/bin/sh
# Loads a Godot 3 scene exported by `skinweights export godot ... --godot 3` in the real
# engine (Debian's godot3, headless under Xvfb) and compares it with EXPECTED.json (see
# scripts/godot3_check.gd). Exit status: 0 when everything matches, 1 on a difference,
# 2 when Godot cannot load the inputs, 77 when godot3 is not installed.
#
#   scripts/godot3_check.sh SCENE.tscn EXPECTED.json
#
# Textures the scene names as res://FILE are copied from SCENE.tscn's folder.
set -eu
if [ $# -ne 2 ]; then
    echo "usage: $0 SCENE.tscn EXPECTED.json" >&2
    exit 2
fi
GODOT=${GODOT3:-godot3}
if ! command -v "$GODOT" >/dev/null 2>&1; then
    echo "godot3 is not installed (apt-get install godot3 xvfb): skipped" >&2
    exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
scene_dir=$(cd "$(dirname "$1")" && pwd)
project=$(mktemp -d)
trap 'rm -rf "$project"' EXIT
printf 'config_version=4\n\n[application]\n\nconfig/name="skinweights godot3 check"\n' > "$project/project.godot"
cp "$1" "$project/scene.tscn"
cp "$2" "$project/expected.json"
cp "$here/godot3_check.gd" "$project/check.gd"
grep -o 'path="res://[^"]*"' "$1" | sed 's|path="res://||; s|"$||' | while read -r f; do
    [ -f "$scene_dir/$f" ] && cp "$scene_dir/$f" "$project/$f"
done
# GLES2: the editor starts in a third of GLES3's time under Xvfb's software rendering, and
# nothing here draws.
run() {
    if command -v xvfb-run >/dev/null 2>&1; then
        xvfb-run -a "$GODOT" --no-window --video-driver GLES2 --path "$project" "$@"
    else
        "$GODOT" --no-window --video-driver GLES2 --path "$project" "$@"
    fi
}
# Godot imports the textures in an editor run (writes .import files), then runs the check;
# a scene with no texture needs no import.
if [ -n "$(find "$project" -type f ! -name project.godot ! -name scene.tscn ! -name expected.json ! -name check.gd)" ]; then
    run --editor --quit >/dev/null 2>&1 || true
fi
run -s res://check.gd 2>&1
