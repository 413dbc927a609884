#!/usr/bin/env python3
"""Scale of `skinweights batch` (issue 45): a benchmark batch of N items, synthetic sprites with
bones plus the shipped rigs repeated, run with /usr/bin/time -v.

    python3 scripts/batch_scale.py [--items 1000 100] [--work /tmp/batch_scale] [--bin PATH]

Builds WORK/items/ once (deterministic: a seeded generator), writes one manifest per size
(the first N lines of one shuffled list, so every size has the same mix), runs
`skinweights batch MANIFEST --out WORK/out-N --fresh` per size and prints, per size: items,
rows failed, wall time, items/s, the summed row time, wall / summed (the parallel speed-up's
inverse; 1/cores is ideal) and the peak resident memory. Standard library only (the PNGs are
written with zlib).

    python/.venv/bin/python scripts/batch_scale.py --items 100 --dask 2

also runs each size through the Python module's Dask back end (`skinweights.batch(...,
backend="dask")`) on a `LocalCluster` of N worker processes with 1 thread each, started
before the clock: wall time from submitting to the written report, and the peak of the
summed resident memory of the client and every worker process (sampled every 50 ms with
psutil, which dask.distributed installs). Needs the wheel and dask in that interpreter.
"""

import argparse
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Shipped rigs repeated in the batch (each copy in its own folder: a distinct item).
RIG_FOLDERS = [
    "data/spine/alien", "data/spine/cloud-pot", "data/spine/goblins", "data/spine/owl",
    "data/spine/powerup", "data/spine/raptor", "data/spine/spineboy", "data/spine/stretchyman",
    "data/spine/vine", "data/dragonbones-you-xin", "data/creature", "data/khronos-simpleskin",
]
RIG_FILES = {
    "data/spine/alien": ["alien-pro.json"], "data/spine/cloud-pot": ["cloud-pot.json"],
    "data/spine/goblins": ["goblins-pro.json"], "data/spine/owl": ["owl-pro.json"],
    "data/spine/powerup": ["powerup-pro.json"], "data/spine/raptor": ["raptor-pro.json"],
    "data/spine/spineboy": ["spineboy-pro.json"], "data/spine/stretchyman": ["stretchyman-pro.json"],
    "data/spine/vine": ["vine-pro.json"], "data/dragonbones-you-xin": ["body_ske.json"],
    "data/creature": ["creature-bat.json", "creature-fox.json", "creature-icedemon.json"],
    "data/khronos-simpleskin": ["SimpleSkin.gltf"],
}


def png(path, width, height, alpha):
    """An RGBA PNG: white where alpha[y][x] (rows top to bottom) is set, transparent elsewhere."""
    raw = bytearray()
    for row in alpha:
        raw.append(0)
        for a in row:
            raw += bytes((200, 180, 160, 255)) if a else bytes((0, 0, 0, 0))

    def chunk(kind, data):
        c = kind + data
        return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(bytes(raw), 6)))
        f.write(chunk(b"IEND", b""))


def seg_dist(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy or 1.0)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def sprite(rng, path_png, path_bones, size=128):
    """A stick figure of capsules (torso, head, two 2-bone arms, two legs) with its bones."""
    cx = size / 2 + rng.uniform(-6, 6)
    hip = (cx, size * 0.32)
    neck = (cx + rng.uniform(-4, 4), size * 0.66)
    head = (neck[0], size * 0.84)
    caps = [(hip, neck, rng.uniform(9, 14)), (neck, head, rng.uniform(8, 11))]
    bones = [
        {"name": "spine", "parent": None, "head": list(hip), "tail": list(neck)},
        {"name": "head", "parent": "spine", "head": list(neck), "tail": list(head)},
    ]
    for side, sgn in (("l", -1), ("r", 1)):
        shoulder = (neck[0] + sgn * 8, neck[1] - 4)
        a1 = math.radians(rng.uniform(200, 250) if sgn < 0 else rng.uniform(-70, -20))
        l1, l2 = rng.uniform(16, 22), rng.uniform(14, 20)
        elbow = (shoulder[0] + l1 * math.cos(a1), shoulder[1] + l1 * math.sin(a1))
        a2 = a1 + math.radians(rng.uniform(-30, 30))
        hand = (elbow[0] + l2 * math.cos(a2), elbow[1] + l2 * math.sin(a2))
        w = rng.uniform(4, 6)
        caps += [(shoulder, elbow, w), (elbow, hand, w * 0.9)]
        bones += [
            {"name": f"upper_arm_{side}", "parent": "spine", "head": list(shoulder), "tail": list(elbow)},
            {"name": f"forearm_{side}", "parent": f"upper_arm_{side}", "head": list(elbow), "tail": list(hand)},
        ]
        foot = (hip[0] + sgn * rng.uniform(6, 14), size * 0.06)
        thigh = (hip[0] + sgn * 5, hip[1])
        caps.append((thigh, foot, rng.uniform(5, 7)))
        bones.append({"name": f"leg_{side}", "parent": "spine", "head": list(thigh), "tail": list(foot)})
    # Image rows top to bottom; bone coordinates are y up from the bottom-left corner.
    alpha = [
        [any(seg_dist(x + 0.5, size - y - 0.5, *a, *b) <= r for a, b, r in caps) for x in range(size)]
        for y in range(size)
    ]
    png(path_png, size, size, alpha)
    with open(path_bones, "w") as f:
        json.dump({"bones": bones}, f)


def build(work, largest, rng):
    items = os.path.join(work, "items")
    if os.path.isdir(items):
        shutil.rmtree(items)
    os.makedirs(items)
    paths = []
    rigs = [(folder, name) for folder in RIG_FOLDERS for name in RIG_FILES[folder]]
    n_rigs = largest // 4  # a quarter rigs, three quarters sprites
    for k in range(n_rigs):
        folder, name = rigs[k % len(rigs)]
        dest = os.path.join(items, f"rig{k:04d}")
        os.makedirs(dest)
        for f in os.listdir(os.path.join(ROOT, folder)):
            if f.endswith((".json", ".atlas", ".gltf", ".png", ".tscn")):
                shutil.copy(os.path.join(ROOT, folder, f), dest)
        paths.append(os.path.join(dest, name))
    for k in range(largest - n_rigs):
        dest = os.path.join(items, f"sprite{k:04d}")
        os.makedirs(dest)
        sprite(rng, os.path.join(dest, "figure.png"), os.path.join(dest, "figure_bones.json"))
        paths.append(os.path.join(dest, "figure.png"))
    rng.shuffle(paths)
    return paths


def peak_kb(stderr):
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    return int(m.group(1)) if m else None


def run_dask(manifest, out, n, workers, vertices):
    """One size through skinweights.batch(backend="dask") on a fresh LocalCluster."""
    import threading
    import time

    import psutil
    from distributed import Client, LocalCluster

    import skinweights as sw

    shutil.rmtree(out, ignore_errors=True)
    with LocalCluster(n_workers=workers, processes=True, threads_per_worker=1,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        me = psutil.Process()
        peak = [0]
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                total = 0
                for p in [me] + me.children(recursive=True):
                    try:
                        total += p.memory_info().rss
                    except psutil.Error:
                        pass
                peak[0] = max(peak[0], total)
                time.sleep(0.05)

        t = threading.Thread(target=sample, daemon=True)
        t.start()
        start = time.perf_counter()
        rows = sw.batch(manifest, out, backend="dask", client=client, vertices=vertices, fresh=True)
        wall = time.perf_counter() - start
        stop.set()
        t.join()
    summed = sum(r["seconds"] for r in rows)
    return {
        "backend": f"dask LocalCluster {workers} workers x 1 thread", "items": n, "rows": len(rows),
        "failed": rows.summary["failed"], "computed_on_client": rows.summary["computed_on_client"],
        "wall_s": round(wall, 2), "items_per_s": round(n / wall, 2), "summed_row_s": round(summed, 2),
        "wall_over_summed": round(wall / summed, 3),
        "peak_rss_mb_client_and_workers": round(peak[0] / 2**20, 1),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, nargs="+", default=[1000, 100])
    ap.add_argument("--work", default="/tmp/batch_scale")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/skinweights"))
    ap.add_argument("--vertices", default="2000", help="sprite mesh size")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--dask", type=int, metavar="N", default=0,
                    help="also run each size on a Dask LocalCluster of N worker processes")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    list_path = os.path.join(args.work, "all.txt")
    if args.rebuild or not os.path.exists(list_path):
        paths = build(args.work, max(args.items), random.Random(45))
        with open(list_path, "w") as f:
            f.write("\n".join(paths) + "\n")
    paths = open(list_path).read().split()
    results = []
    for n in args.items:
        manifest = os.path.join(args.work, f"items{n}.txt")
        with open(manifest, "w") as f:
            f.write("\n".join(paths[:n]) + "\n")
        out = os.path.join(args.work, f"out-{n}")
        shutil.rmtree(out, ignore_errors=True)
        cmd = ["/usr/bin/time", "-v", args.bin, "batch", manifest, "--out", out,
               "--vertices", args.vertices, "--fresh"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        summary = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
        rows = json.load(open(os.path.join(out, "report.json")))
        wall = float(re.search(r"([\d.]+) s wall", summary).group(1))
        summed = sum(r["seconds"] for r in rows)
        failed = sum(r["status"] == "error" for r in rows)
        results.append({
            "items": n, "rows": len(rows), "failed": failed, "exit": p.returncode,
            "wall_s": round(wall, 2), "items_per_s": round(n / wall, 2),
            "summed_row_s": round(summed, 2), "wall_over_summed": round(wall / summed, 3),
            "peak_rss_mb": round(peak_kb(p.stderr) / 1024, 1),
        })
        print(json.dumps(results[-1]), flush=True)
        print("  " + summary, flush=True)
        if args.dask:
            print(json.dumps(run_dask(manifest, os.path.join(args.work, f"out-dask-{n}"), n,
                                      args.dask, int(args.vertices))), flush=True)
    if len(results) >= 2:
        a, b = results[0], results[-1]
        print(f"peak memory {a['items']} items / {b['items']} items: "
              f"{a['peak_rss_mb'] / b['peak_rss_mb']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
