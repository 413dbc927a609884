#!/usr/bin/env python3
"""Hostile inputs through every command of the `skinweights` binary (issue 28's check).

Usage: python3 scripts/hostile_cli.py [--bin target/release/skinweights] [--seed 7] [--per-kind 24] [--timeout 30]

Builds valid inputs with the binary itself (a built-in scene, its weights, a sprite, and the
shipped Spine / DragonBones / Godot / glTF / Creature files), derives hostile variants of each
(empty, truncated, byte damage, numbers replaced by 1e308 / -1 / 0 / NaN-like text / strings,
fields deleted, deep nesting, a directory, /dev/null, a missing path), each real file cut at
every tenth of its length, and every file given to the reader of every other format; runs
every command that reads that kind of input on each, with a time limit, and counts:

- panics: exit status 101 or "panicked" on standard error;
- hangs: the time limit per case (`--timeout`, default 30 s) reached;
- silent: a file of one format given where another is read, a real rig cut at a tenth of
  its length (10% .. 90%), or a bones file listing vertex indices, accepted with exit
  status 0 and no note or warning on standard error;
- NaN: an output file written with exit status 0 that contains "NaN" or "inf";
- lost inputs: an input file whose bytes changed, or /dev/null no longer a character device.

Every other outcome (exit 0, or a typed error with exit status 1 or 2) is fine. Prints one line
per failure and the totals; exits 1 if any failure. Standard library only.
"""

import argparse
import base64
import hashlib
import json
import math
import os
import random
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = 30


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(cmd, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=TIMEOUT)
        return p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", ""


def finite_numbers(x):
    """Whether every number in a parsed JSON value is finite (Python's json reads NaN and
    Infinity tokens as floats)."""
    if isinstance(x, float):
        return math.isfinite(x)
    if isinstance(x, dict):
        return all(finite_numbers(v) for v in x.values())
    if isinstance(x, list):
        return all(finite_numbers(v) for v in x)
    return True


def gltf_floats_finite(doc):
    """Whether every float accessor of a .gltf with embedded (data URI) buffers is finite."""
    buffers = []
    for b in doc.get("buffers", []):
        uri = b.get("uri", "")
        buffers.append(base64.b64decode(uri.split(",", 1)[1]) if uri.startswith("data:") else None)
    for acc in doc.get("accessors", []):
        if acc.get("componentType") != 5126 or "bufferView" not in acc:
            continue
        view = doc["bufferViews"][acc["bufferView"]]
        data = buffers[view.get("buffer", 0)]
        if data is None:
            continue
        width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}[acc["type"]]
        start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        stride = view.get("byteStride", 4 * width)
        for i in range(acc["count"]):
            values = struct.unpack_from(f"<{width}f", data, start + i * stride)
            if not all(math.isfinite(v) for v in values):
                return False
    return True


def finite_output(path):
    """Whether an output file holds only finite numbers (JSON and glTF parsed; Godot's text
    scanned for nan and inf tokens)."""
    text = open(path, "rb").read().decode("utf-8", "replace")
    if path.endswith(".tscn"):
        return re.search(r"(?<![A-Za-z_])-?(nan|inf)(?![A-Za-z_])", text, re.I) is None
    doc = json.loads(text)
    if not finite_numbers(doc):
        return False
    return gltf_floats_finite(doc) if path.endswith(".gltf") else True


def json_mutations(doc, rng, count):
    """Variants of a JSON document: one number or field changed or removed at a random path."""
    paths = []

    def walk(x, path, depth):
        if depth > 12 or len(paths) > 20000:
            return
        paths.append(path)
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, path + [k], depth + 1)
        elif isinstance(x, list):
            for i, v in enumerate(x[:50]):
                walk(v, path + [i], depth + 1)

    walk(doc, [], 0)
    replacements = [1e308, -1e308, -1, 0, 1e-320, 2**64, "x", None, [], {}, True, 1e9]
    out = []
    for _ in range(count):
        d = json.loads(json.dumps(doc))
        path = rng.choice(paths[1:]) if len(paths) > 1 else []
        parent, key = d, None
        for k in path[:-1]:
            parent = parent[k]
        key = path[-1] if path else None
        if key is None:
            continue
        if rng.random() < 0.25 and isinstance(parent, dict):
            del parent[key]
        elif rng.random() < 0.2 and isinstance(parent, list) and len(parent) > 1:
            del parent[key]
        else:
            parent[key] = rng.choice(replacements)
        out.append(json.dumps(d).encode())
    return out


def byte_mutations(data, rng, count):
    out = [b"", data[: len(data) // 2], data[:17]]
    for _ in range(count):
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
        out.append(bytes(b))
    return out


def text_hostiles():
    return [
        b"",
        b"{",
        b"null",
        b"[]",
        b"\xff\xfe\x00garbage",
        b"[" * 100000 + b"]" * 100000,
        b'{"a": ' + b"9" * 100000 + b"}",
        b'{"vertices": NaN}',
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/skinweights"))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--per-kind", type=int, default=24)
    ap.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per case before it counts as a hang")
    args = ap.parse_args()
    globals()["TIMEOUT"] = args.timeout
    rng = random.Random(args.seed)
    exe = os.path.abspath(args.bin)
    work = tempfile.mkdtemp(prefix="hostile_cli_")
    failures = []
    cases = 0

    def sw(*a):
        code, err = run([exe, *a], work)
        if code != 0:
            sys.exit(f"setup failed: skinweights {' '.join(a)}: {err}")

    # Valid inputs.
    sw("scene", "bar", "-o", "bar.json", "--force")
    sw("solve", "bar.json", "-o", "bar_w.json", "--solver", "heat", "--force")
    sw("scene", "layered-elbow", "-o", "elbow.json", "--force")
    sw("solve", "elbow.json", "-o", "elbow_w.json", "--solver", "heat", "--force")
    sprite = os.path.join(work, "robot.png")
    shutil.copy(os.path.join(ROOT, "data/kenney-toon/robot_idle.png"), sprite)
    bones = os.path.join(work, "robot_bones.json")
    shutil.copy(os.path.join(ROOT, "data/kenney-toon/robot_idle_bones.json"), bones)
    foreign = {
        "spine": os.path.join(ROOT, "data/spine/owl/owl-pro.json"),
        "dragonbones": os.path.join(ROOT, "data/dragonbones-you-xin/body_ske.json"),
        "godot": os.path.join(ROOT, "data/godot-gbot/player.tscn"),
        "gltf": os.path.join(ROOT, "data/khronos-simpleskin/SimpleSkin.gltf"),
        "creature": os.path.join(ROOT, "data/creature/creature-bat.json"),
    }

    def hostile_files(kind, valid_path, is_json):
        data = open(valid_path, "rb").read()
        variants = byte_mutations(data, rng, args.per_kind // 2)
        if is_json:
            variants += json_mutations(json.loads(data), rng, args.per_kind)
            variants += text_hostiles()
        paths = []
        for i, v in enumerate(variants):
            ext = os.path.splitext(valid_path)[1]
            p = os.path.join(work, f"h_{kind}_{i}{ext}")
            with open(p, "wb") as f:
                f.write(v)
            paths.append(p)
        os.makedirs(os.path.join(work, "adir"), exist_ok=True)
        return paths + [os.path.join(work, "adir"), "/dev/null", os.path.join(work, "missing.json")]

    scenes = hostile_files("scene", os.path.join(work, "bar.json"), True)
    weights = hostile_files("weights", os.path.join(work, "bar_w.json"), True)
    pngs = hostile_files("png", sprite, False)
    bone_files = hostile_files("bones", bones, True)
    foreign_files = {k: hostile_files(k, p, k != "godot") for k, p in foreign.items()}

    S, W = os.path.join(work, "bar.json"), os.path.join(work, "bar_w.json")
    E, EW = os.path.join(work, "elbow.json"), os.path.join(work, "elbow_w.json")
    runs = []
    for s in scenes:
        runs += [
            ["solve", s, "-o", "out.json", "--force"],
            ["solve", s, "--solver", "bbw", "-o", "out.json", "--force"],
            ["eval", s, W],
            ["lint", s, W],
            ["pose", s],
            ["plot", s, W, "-o", "out.png", "--force"],
            ["render", s, W, "-o", "out.png", "--force"],
            ["repair", s, "-o", "out.json", "--force"],
            ["correct", s, "--weights", W, "--joint", "lower", "--angles", "90", "-o", "out.json", "--force"],
            ["compare", s, "--out", "cmp", "--force", "--solvers", "heat,best"],
            ["export", "gltf", s, W, "-o", "out.gltf", "--force"],
            ["export", "godot", s, W, "-o", "out.tscn", "--force"],
            ["view", s, "--html", "out.html", "--solvers", "heat,best", "--force"],
        ]
    for w in weights:
        runs += [
            ["eval", S, w],
            ["lint", S, w],
            ["plot", S, w, "-o", "out.png", "--force"],
            ["render", S, w, "-o", "out.png", "--force"],
            ["correct", S, "--weights", w, "--joint", "lower", "--angles", "90", "-o", "out.json", "--force"],
            ["export", "gltf", S, w, "-o", "out.gltf", "--force"],
            ["export", "dragonbones", S, w, "-o", "out_ske.json", "--force"],
            ["export", "godot", S, w, "-o", "out.tscn", "--force"],
            ["export", "spine", S, w, "-o", "out_spine.json", "--force"],
            ["view", S, "--html", "out.html", "--solvers", "heat", "--reference", w, "--force"],
        ]
    for p in pngs:
        runs += [
            ["mesh", p, "--bones", bones, "-o", "out.json", "--force"],
            ["bleed", p, "-o", "out.png", "--force"],
        ]
    for b in bone_files:
        runs += [["mesh", sprite, "--bones", b, "-o", "out.json", "--force"]]
    for kind, files in foreign_files.items():
        for f in files:
            runs += [["import", kind, f, "-o", "out.json", "--weights", "out_w.json", "--force"]]
    # Every file given where each other format is read: an error naming what the file is,
    # never a silent exit 0.
    real = dict(foreign)
    real.update({
        "scene": os.path.join(work, "bar.json"),
        "weights": os.path.join(work, "bar_w.json"),
        "bones": bones,
        "png": sprite,
        "atlas": os.path.join(ROOT, "data/spine/owl/owl.atlas"),
    })

    def reader(kind, f):
        if kind in foreign:
            return ["import", kind, f, "-o", "out.json", "--weights", "out_w.json", "--force"]
        return {
            "scene": ["solve", f, "-o", "out.json", "--force"],
            "weights": ["eval", S, f],
            "bones": ["mesh", sprite, "--bones", f, "-o", "out.json", "--force"],
            "png": ["mesh", f, "--bones", bones, "-o", "out.json", "--force"],
        }.get(kind)

    strict = set()
    for file_kind, f in real.items():
        for read_kind in real:
            cmd = reader(read_kind, f)
            if cmd is not None and read_kind != file_kind:
                runs.append(cmd)
                strict.add(len(runs) - 1)
    # A bones file whose probe lists vertex indices (a bones file comes before the mesh).
    doc = json.load(open(bones))
    doc["probes"] = [{"name": "p", "pose": {doc["bones"][0]["name"]: 30}, "watch": {"vertices": [0, 1]}}]
    indexed = os.path.join(work, "indexed_bones.json")
    with open(indexed, "w") as out:
        json.dump(doc, out)
    runs.append(reader("bones", indexed))
    strict.add(len(runs) - 1)
    # Real files cut at every tenth of their length, read as their own format.
    for kind, f in real.items():
        if reader(kind, f) is None:
            continue
        data = open(f, "rb").read()
        for k in range(1, 10):
            p = os.path.join(work, f"cut{k}0_{kind}{os.path.splitext(f)[1]}")
            with open(p, "wb") as out:
                out.write(data[: len(data) * k // 10])
            runs.append(reader(kind, p))
            strict.add(len(runs) - 1)
    # Hostile numbers on the command line.
    for bad in ["nan", "inf", "-1", "0", "1e308", "abc", ""]:
        runs += [
            ["solve", S, "-o", "out.json", "--force", "--option", f"band={bad}"],
            ["scene", "arms-down", "--vertices", bad, "-o", "out.json", "--force"],
            ["scene", "layered-elbow", "--overlap", bad, "-o", "out.json", "--force"],
            ["correct", S, "--weights", W, "--joint", "lower", "--angles", bad, "-o", "out.json", "--force"],
            ["render", E, EW, "-o", "out.png", "--force", "--scale", bad],
            ["mesh", sprite, "--bones", bones, "-o", "out.json", "--force", "--tolerance", bad],
        ]

    protected = [S, W, E, EW, sprite, bones] + list(foreign.values())
    before = {p: sha(p) for p in protected}
    for i, r in enumerate(runs):
        cases += 1
        for out in ["out.json", "out.png", "out.gltf", "out.tscn", "out_ske.json", "out_spine.json", "out.html"]:
            p = os.path.join(work, out)
            if os.path.exists(p):
                os.remove(p)
        code, err = run([exe, *r], work)
        label = "skinweights " + " ".join(os.path.relpath(a, work) if a.startswith(work) else a for a in r)
        if code == "timeout":
            failures.append(("hang", label))
        elif code == 101 or "panicked" in err:
            lines = err.strip().splitlines() or [""]
            where = next((l for l in lines if "panicked" in l), lines[-1])
            failures.append(("panic", label + " :: " + where[:200]))
        elif code == 0:
            said = any(l.startswith(("note", "warning")) for l in err.splitlines())
            if i in strict and not said:
                failures.append(("silent", label))
            for out in ["out.json", "out.gltf", "out.tscn", "out_ske.json", "out_spine.json"]:
                p = os.path.join(work, out)
                if os.path.isfile(p):
                    if not finite_output(p):
                        failures.append(("nan", label + " -> " + out))
        if (i + 1) % 100 == 0:
            print(f"{i + 1} / {len(runs)} cases", file=sys.stderr)
    for p, h in before.items():
        if sha(p) != h:
            failures.append(("lost input", p))
    if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
        failures.append(("lost device", "/dev/null"))
    for kind, label in failures:
        print(f"{kind}: {label}")
    kinds = {k: sum(1 for f in failures if f[0] == k) for k in ["panic", "hang", "nan", "silent", "lost input", "lost device"]}
    print(f"{cases} cases: " + ", ".join(f"{v} {k}" for k, v in kinds.items()))
    if not failures:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"inputs kept in {work}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
