"""By-hand check (not CI) that Blender sees the art `skinweights export gltf` writes.

    blender -b --python scripts/blender_gltf_art_check.py -- FILE.gltf SCENE.json

Imports FILE.gltf with Blender's own glTF importer and prints, per textured material, its
blend mode and image texture nodes (image, size, interpolation, extension); per mesh, its
vertex / face counts; and for every face corner whose vertex matches a vertex of SCENE.json
(the scene that was exported, by position to 1e-3), the largest difference between
Blender's UV and the scene's art coordinate in Blender's convention (u / W, 1 - v / H:
Blender puts the UV origin at the bottom-left) and whether the texel Blender samples (its
pixels run bottom-up) is the texel the scene's art names (PNG rows, top-down). Corners
within 1e-3 px of a texel boundary are skipped (either texel is right there).
"""

import json
import os
import sys

import bpy

gltf, scene_json = sys.argv[-2], sys.argv[-1]
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
bpy.ops.import_scene.gltf(filepath=gltf)

scene = json.load(open(scene_json))
art = scene["art"]
image_path = os.path.join(os.path.dirname(os.path.abspath(scene_json)), art["images"][0]["path"])
original = bpy.data.images.load(image_path)
W, H = original.size
original_pixels = list(original.pixels)

for m in bpy.data.materials:
    if not (m.users and m.use_nodes):
        continue
    nodes = [n for n in m.node_tree.nodes if n.type == "TEX_IMAGE"]
    if nodes:
        print("MAT", m.name, "blend", m.blend_method, "image nodes",
              [(n.image.name, tuple(n.image.size), n.interpolation, n.extension) for n in nodes])

art_uv = {(round(x, 3), round(y, 3)): tuple(uv) for (x, y), uv in zip(scene["vertices"], art["uvs"])}
for o in bpy.data.objects:
    if o.type != "MESH":
        continue
    me = o.data
    print("MESH", o.name, len(me.vertices), "verts", len(me.polygons), "faces",
          "materials", [s.material.name for s in o.material_slots if s.material])
    image = [n for n in o.material_slots[0].material.node_tree.nodes if n.type == "TEX_IMAGE"][0].image
    pixels = list(image.pixels)
    tw, th = image.size
    uv_data = me.uv_layers.active.data
    worst, same, compared, unmatched = 0.0, 0, 0, 0
    for i, loop in enumerate(me.loops):
        co = me.vertices[loop.vertex_index].co  # glTF (x, y, 0) is Blender (x, 0, y)
        key = (round(co.x, 3), round(co.z, 3))
        if key not in art_uv:
            unmatched += 1
            continue
        u, v = art_uv[key]
        bu, bv = uv_data[i].uv
        worst = max(worst, abs(bu - u / W), abs(bv - (1 - v / H)))
        if min(abs(u - round(u)), abs(v - round(v))) < 1e-3:
            continue
        c, r = min(int(bu * tw), tw - 1), min(int(bv * th), th - 1)
        ca, ra = min(int(u), W - 1), min(int(v), H - 1)
        seen = pixels[4 * (r * tw + c):4 * (r * tw + c) + 4]
        rb = H - 1 - ra
        wanted = original_pixels[4 * (rb * W + ca):4 * (rb * W + ca) + 4]
        compared += 1
        same += all(abs(x - y) < 1e-6 for x, y in zip(seen, wanted))
    print("UV corners", len(me.loops), "unmatched", unmatched,
          "max |blender uv - (u/W, 1 - v/H)|", worst, "same texel", same, "of", compared)
