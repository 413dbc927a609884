"""Headless check of the Blender add-on against Blender's Automatic Weights.

    skinweights scene arms-down -o /tmp/arms-down.json
    blender -b --python-exit-code 1 --python python/blender/check_blender.py -- \
        --scene /tmp/arms-down.json [--solver heat] [--out result.json]

Builds the scene's mesh in Blender (in the XZ plane, as a front-view cut-out) with one vertex
group ``part:NAME`` per part and its armature, then:

1. runs the add-on's operator (2D solve, vertex groups, drag report) and measures the probe's
   drag with Blender's own armature deformation (evaluated depsgraph);
2. parents a copy of the mesh with Automatic Weights (``parent_set(type='ARMATURE_AUTO')``)
   and measures the same drag the same way.

It prints both next to the module's number for the scene file itself (what
``skinweights compare`` reports) and exits non-zero if the add-on's Blender drag differs from
the module's by more than 0.1% of the height.
"""

import argparse
import json
import os
import sys
import time

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skinweights_addon as addon  # noqa: E402

TOLERANCE_PCT = 0.1


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="check_blender.py")
    p.add_argument("--scene", required=True, help="scene file written by `skinweights scene`")
    p.add_argument("--solver", default="heat", help="solver for the add-on (default heat)")
    p.add_argument("--probe", default=None, help="probe of the scene (default: its first)")
    p.add_argument("--out", default=None, help="write the numbers as JSON here")
    return p.parse_args(argv)


def select_only(objects, active):
    for o in bpy.context.view_layer.objects:
        o.select_set(o in objects)
    bpy.context.view_layer.objects.active = active


def build_mesh(scene, name):
    """The scene's mesh in the XZ plane (2D (x, y) -> 3D (x, 0, y)), with part groups."""
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([(float(x), 0.0, float(y)) for x, y in scene.vertices], [], [list(map(int, t)) for t in scene.triangles])
    mesh.validate()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.collection.objects.link(obj)
    names, vertex_parts = scene.parts
    groups = [obj.vertex_groups.new(name=addon.PART_PREFIX + n) for n in names]
    for v, p in enumerate(vertex_parts):
        groups[int(p)].add([v], 1.0, "REPLACE")
    return obj


def build_armature(scene):
    data = bpy.data.armatures.new("rig")
    arm = bpy.data.objects.new("rig", data)
    bpy.context.collection.objects.link(arm)
    select_only([arm], arm)
    bpy.ops.object.mode_set(mode="EDIT")
    for name, _parent, head, tail, *_ in scene.bones:
        b = data.edit_bones.new(name)
        b.head = (head[0], 0.0, head[1])
        b.tail = (tail[0], 0.0, tail[1])
    for name, parent, *_ in scene.bones:
        if parent is not None:
            data.edit_bones[name].parent = data.edit_bones[parent]
    bpy.ops.object.mode_set(mode="OBJECT")
    for name, _parent, _head, _tail, part, *_ in scene.bones:
        if part is not None:
            data.bones[name][addon.BONE_PART_PROPERTY] = part
    return arm


def unweighted(obj, bone_names):
    """Vertices with no weight on any bone (Blender leaves them where they are)."""
    ids = {obj.vertex_groups[n].index for n in bone_names if n in obj.vertex_groups}
    return sum(1 for v in obj.data.vertices if not any(g.group in ids and g.weight > 0 for g in v.groups))


def main():
    args = parse_args()
    sw = addon.module()
    scene = sw.load_scene(args.scene)
    probe = scene.probe(args.probe)
    (bone, angle), = probe["pose"].items()
    watch = probe["watch"]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    addon.register()
    ctx = bpy.context

    # The module on the scene file itself: what `skinweights compare` reports.
    w, report = sw.solve(scene.vertices, scene.triangles, scene.bones, solver=args.solver, parts=scene.parts)
    module_pct = sw.evaluate(scene.vertices, scene.triangles, scene.bones, w, probe, parts=scene.parts)["drag_max_pct"]

    arm = build_armature(scene)
    mesh = build_mesh(scene, "addon")
    select_only([mesh, arm], mesh)
    s = ctx.scene.skinweights
    s.solver, s.probe_bone, s.probe_angle = args.solver, bone, angle
    s.watch_part = watch.get("part", "")
    s.use_below, s.below_y = "below_y" in watch, watch.get("below_y", 0.0)
    t0 = time.perf_counter()
    result = bpy.ops.object.skinweights_solve()
    addon_seconds = time.perf_counter() - t0
    if result != {"FINISHED"}:
        sys.exit(f"the add-on's operator failed: {result}")
    rig = addon.FlatRig(mesh, arm)
    addon_weights, _ = rig.solve(args.solver)
    addon_module = rig.module_drag(addon_weights, probe)["drag_max_pct"]
    addon_blender = rig.blender_drag(ctx, probe)["drag_max_pct"]

    auto = build_mesh(scene, "automatic")
    select_only([auto, arm], arm)
    t0 = time.perf_counter()
    bpy.ops.object.parent_set(type="ARMATURE_AUTO")
    auto_seconds = time.perf_counter() - t0
    auto_rig = addon.FlatRig(auto, arm)
    auto_blender = auto_rig.blender_drag(ctx, probe)["drag_max_pct"]
    names = [b[0] for b in scene.bones]

    numbers = {
        "scene": scene.name,
        "vertices": len(scene.vertices),
        "probe": probe["name"],
        "solver": args.solver,
        "blender": bpy.app.version_string,
        "module_drag_max_pct": module_pct,
        "addon_module_drag_max_pct": addon_module,
        "addon_blender_drag_max_pct": addon_blender,
        "addon_seconds": addon_seconds,
        "addon_unweighted_vertices": unweighted(mesh, names),
        "automatic_blender_drag_max_pct": auto_blender,
        "automatic_seconds": auto_seconds,
        "automatic_unweighted_vertices": unweighted(auto, names),
    }
    print(json.dumps(numbers, indent=2))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(numbers, f, indent=2)
            f.write("\n")
    diff = abs(addon_blender - module_pct)
    print(f"add-on ({args.solver}) in Blender: drag {addon_blender:.4f}% of the height; module: {module_pct:.4f}% "
          f"(|diff| {diff:.2e}); Automatic Weights: {auto_blender:.4f}%")
    if diff > TOLERANCE_PCT:
        sys.exit(f"FAIL: the add-on's drag in Blender differs from the module's by {diff:.4f}% > {TOLERANCE_PCT}%")


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except BaseException:
        import traceback

        traceback.print_exc()
        sys.exit(1)
