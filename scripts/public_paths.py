#!/usr/bin/env python3
"""Lists every public item of the `skinweights` library with the paths a user can name it by,
and exits 1 if any item has more than one (the API keeps one path per item).

It reads the crate's rustdoc JSON (nightly rustdoc, all features), walks the public modules
from the crate root and follows `pub use` re-exports, globs included:

    scripts/public_paths.py            # builds the JSON, prints items with 2+ paths, exits 1 if any
    scripts/public_paths.py --all      # prints every item and its path(s)
    scripts/public_paths.py --json F   # reads an existing rustdoc JSON file instead

Items re-exported from other crates (`nalgebra`'s `Point2`, ...) are listed under their
skinweights path only. Methods and fields are not items here: they are reached through their
type.
"""
import json
import os
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_json():
    target = os.path.join(ROOT, "target", "nightly")
    subprocess.run(
        ["cargo", "+nightly", "rustdoc", "--lib", "--all-features", "--quiet", "--",
         "-Z", "unstable-options", "--output-format", "json"],
        cwd=ROOT, check=True, env=dict(os.environ, CARGO_TARGET_DIR=target),
    )
    return os.path.join(target, "doc", "skinweights.json")


def kind_of(item):
    inner = item.get("inner", {})
    return next(iter(inner)) if isinstance(inner, dict) and inner else str(inner)


def walk(doc):
    index = doc["index"]
    paths = defaultdict(set)  # item id -> set of paths
    kinds = {}
    seen_modules = set()

    def visit_module(mid, prefix):
        key = (mid, prefix)
        if key in seen_modules:
            return
        seen_modules.add(key)
        module = index[str(mid)]["inner"]["module"]
        for cid in module["items"]:
            item = index.get(str(cid))
            if item is None or item.get("visibility") != "public":
                continue
            kind = kind_of(item)
            if kind == "use":
                use = item["inner"]["use"]
                target = use.get("id")
                if use.get("is_glob"):
                    if target is not None and str(target) in index:
                        visit_module(target, prefix)
                    continue
                name = use["name"]
                path = f"{prefix}::{name}"
                tid = str(target) if target is not None else f"extern:{use['source']}"
                titem = index.get(tid)
                tkind = kind_of(titem) if titem else "extern"
                if tkind == "module":
                    paths[tid].add(path)
                    kinds[tid] = "module"
                    visit_module(target, path)
                else:
                    paths[tid].add(path)
                    kinds[tid] = tkind
            elif kind == "module":
                path = f"{prefix}::{item['name']}"
                paths[str(cid)].add(path)
                kinds[str(cid)] = "module"
                visit_module(cid, path)
            elif kind in ("impl",):
                continue
            else:
                if item.get("name") is None:
                    continue
                paths[str(cid)].add(f"{prefix}::{item['name']}")
                kinds[str(cid)] = kind

    visit_module(doc["root"], "skinweights")
    return paths, kinds


def main():
    args = sys.argv[1:]
    show_all = "--all" in args
    if "--json" in args:
        path = args[args.index("--json") + 1]
    else:
        path = build_json()
    with open(path) as f:
        doc = json.load(f)
    paths, kinds = walk(doc)
    rows = sorted((sorted(p), kinds[i]) for i, p in paths.items())
    several = [(p, k) for p, k in rows if len(p) > 1]
    for p, k in rows if show_all else several:
        print(f"{k:<10} " + "  ".join(p))
    print(f"{len(rows)} public items, {len(several)} with more than one path", file=sys.stderr)
    sys.exit(1 if several else 0)


if __name__ == "__main__":
    main()
