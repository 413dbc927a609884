"""Skinweights for Blender: 2D skinning weights for flat (cut-out) meshes.

Blender's Automatic Weights (bone heat) tests bone visibility with 3D rays: on a flat mesh
every bone is "visible" from every vertex, so torso vertices next to an arm go to the arm bone
and the torso is dragged when the arm moves (measured on the arms-down character: 28% of its
height). This add-on projects the selected flat mesh and its armature onto the mesh's plane,
solves the weights in 2D with the `skinweights` module (visibility tested inside the 2D
shape), writes them as vertex groups, and reports the drag of the watched vertices for a
chosen bone rotation, measured both by the module (LBS) and by Blender's own armature
deformation.

Install the `skinweights` wheel into Blender's Python first (see python/README.md), then
install this file (Edit > Preferences > Add-ons > Install...). The panel is in the 3D view's
sidebar (N), tab "Skinweights".

Conventions the add-on reads from the scene (all optional):
- mesh parts: vertex groups named ``part:NAME`` (used by the ``+mask`` solvers and by the
  drag measure: a watched vertex should follow the bone of its own part);
- a bone's part: the bone's custom property ``skinweights_part``.
"""

import math

import bpy
from mathutils import Quaternion, Vector

bl_info = {
    "name": "Skinweights: 2D weights for flat meshes",
    "author": "skinweights",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "View3D > Sidebar > Skinweights",
    "description": "Skinning weights for flat cut-out meshes with 2D visibility, and the drag they cause",
    "category": "Rigging",
}

PART_PREFIX = "part:"
BONE_PART_PROPERTY = "skinweights_part"
# A mesh is flat when every vertex is this close to its plane, relative to the mesh size.
FLATNESS = 1e-4
SOLVERS = ["best", "heat", "heat+mask", "geodesic", "geodesic+mask", "euclidean", "mask", "linear"]


class SkinweightsAddonError(Exception):
    """A problem with the selection or the mesh, reported to the user."""


def module():
    """The `skinweights` module, or a clear error saying how to install it."""
    try:
        import skinweights
    except ImportError as e:
        raise SkinweightsAddonError(
            "the skinweights Python module is not installed in Blender's Python "
            f"({e}); see python/README.md, 'Blender'"
        ) from e
    return skinweights


# ---- the mesh plane and the 2D projection ----


class Plane:
    """The plane of a flat mesh: 2D axes u, v with u x v = n (so counter-clockwise in 2D is
    counter-clockwise about the mesh normal), through the projection of the world origin, so
    a mesh drawn in the XZ plane keeps its x and z as its 2D coordinates."""

    def __init__(self, normal):
        n = normal.normalized()
        up = Vector((0.0, 0.0, 1.0)) if abs(n.z) < 0.9 else Vector((0.0, 1.0, 0.0))
        v = (up - n * up.dot(n)).normalized()
        self.n, self.v, self.u = n, v, v.cross(n)

    def to_2d(self, p):
        return (p.dot(self.u), p.dot(self.v))


def mesh_plane(obj):
    """The plane of `obj`'s mesh (world space), checking that the mesh is flat."""
    mw = obj.matrix_world
    normal = Vector((0.0, 0.0, 0.0))
    for poly in obj.data.polygons:
        normal += (mw.to_3x3() @ poly.normal) * poly.area
    if normal.length == 0.0:
        raise SkinweightsAddonError(f"mesh {obj.name!r} has no faces with area")
    plane = Plane(normal)
    points = [mw @ v.co for v in obj.data.vertices]
    offsets = [p.dot(plane.n) for p in points]
    size = max((p - points[0]).length for p in points) or 1.0
    spread = max(offsets) - min(offsets)
    if spread > FLATNESS * size:
        raise SkinweightsAddonError(
            f"mesh {obj.name!r} is not flat: its vertices lie up to {spread:.4g} apart across its "
            f"plane (size {size:.4g}); this add-on weights flat cut-out meshes"
        )
    return plane


def flat_mesh(obj, plane):
    """2D vertices and triangles of `obj`, and the Blender indices of the vertices used by a
    face (loose vertices are left out: they get no weights)."""
    mesh = obj.data
    mesh.calc_loop_triangles()
    used = sorted({i for t in mesh.loop_triangles for i in t.vertices})
    index = {b: k for k, b in enumerate(used)}
    mw = obj.matrix_world
    vertices = [plane.to_2d(mw @ mesh.vertices[b].co) for b in used]
    triangles = [[index[i] for i in t.vertices] for t in mesh.loop_triangles]
    return vertices, triangles, used


def mesh_parts(obj, used):
    """`(names, vertex_parts)` from the ``part:NAME`` vertex groups, or None when there are
    none. Vertices in no part group go to a part called ``body``."""
    groups = {g.index: g.name[len(PART_PREFIX):] for g in obj.vertex_groups if g.name.startswith(PART_PREFIX)}
    if not groups:
        return None
    names = sorted(set(groups.values()))
    vertex_parts = []
    for b in used:
        part = next((groups[g.group] for g in obj.data.vertices[b].groups if g.group in groups and g.weight > 0), None)
        if part is None:
            if "body" not in names:
                names.append("body")
            part = "body"
        vertex_parts.append(names.index(part))
    return names, vertex_parts


def deform_bones(arm):
    """The armature's deforming bones, in order."""
    return [b for b in arm.data.bones if b.use_deform]


def flat_bones(arm, plane):
    """Bones as the module takes them, projected onto the mesh plane: (name, parent, head,
    tail, part); the parent is the nearest deforming ancestor."""
    mw = arm.matrix_world
    out = []
    for b in deform_bones(arm):
        parent = b.parent
        while parent is not None and not parent.use_deform:
            parent = parent.parent
        part = b.get(BONE_PART_PROPERTY)
        out.append((
            b.name,
            parent.name if parent else None,
            plane.to_2d(mw @ b.head_local),
            plane.to_2d(mw @ b.tail_local),
            str(part) if part is not None else None,
        ))
    return out


def find_armature(context, obj):
    """The armature `obj` is deformed by (modifier, then parent), or a selected armature."""
    for m in obj.modifiers:
        if m.type == "ARMATURE" and m.object is not None:
            return m.object
    if obj.parent is not None and obj.parent.type == "ARMATURE":
        return obj.parent
    for o in context.selected_objects:
        if o.type == "ARMATURE":
            return o
    raise SkinweightsAddonError(
        f"no armature for {obj.name!r}: select the armature too, or give the mesh an Armature modifier"
    )


class FlatRig:
    """A flat mesh and its armature in the mesh plane: what the module needs."""

    def __init__(self, obj, arm):
        self.obj, self.arm = obj, arm
        self.plane = mesh_plane(obj)
        self.vertices, self.triangles, self.used = flat_mesh(obj, self.plane)
        self.bones = flat_bones(arm, self.plane)
        if not self.bones:
            raise SkinweightsAddonError(f"armature {arm.name!r} has no deforming bones")
        self.parts = mesh_parts(obj, self.used)

    def solve(self, solver, options=None):
        """Weights (n, b) for the used vertices, and the module's report."""
        sw = module()
        return sw.solve(self.vertices, self.triangles, self.bones, solver=solver, options=options, parts=self.parts)

    def probe(self, bone, angle, watch_part=None, below_y=None):
        """A probe: `bone` rotated by `angle` degrees (counter-clockwise about the mesh
        normal), watching the vertices of `watch_part` (all when None) below `below_y`."""
        watch = {}
        if watch_part:
            watch["part"] = watch_part
        if below_y is not None:
            watch["below_y"] = below_y
        return {"name": "addon", "pose": {bone: angle}, "watch": watch}

    def module_drag(self, weights, probe):
        """The drag of `weights` by the module's linear blend skinning."""
        sw = module()
        return sw.evaluate(self.vertices, self.triangles, self.bones, weights, probe, parts=self.parts)

    def blender_drag(self, context, probe):
        """The drag of the mesh's current vertex groups, deformed by Blender's own armature
        modifier in the probe's pose (evaluated depsgraph)."""
        sw = module()
        posed = self.blender_posed(context, probe["pose"])
        return sw.measure_drag(self.vertices, self.triangles, self.bones, posed, probe, parts=self.parts)

    def blender_posed(self, context, pose):
        """2D positions of the used vertices after Blender deforms the mesh in `pose`
        ({bone: degrees about the mesh normal}); the pose is restored afterwards."""
        arm = self.arm
        saved = {}
        for name, degrees in pose.items():
            pb = arm.pose.bones[name]
            saved[name] = (pb.rotation_mode, pb.rotation_quaternion.copy(), pb.rotation_euler.copy())
            rest = arm.matrix_world.to_3x3() @ pb.bone.matrix_local.to_3x3()
            axis = (rest.inverted() @ self.plane.n).normalized()
            pb.rotation_mode = "QUATERNION"
            pb.rotation_quaternion = Quaternion(axis, math.radians(degrees))
        try:
            context.view_layer.update()
            depsgraph = context.evaluated_depsgraph_get()
            evaluated = self.obj.evaluated_get(depsgraph)
            mesh = evaluated.to_mesh()
            mw = evaluated.matrix_world
            posed = [self.plane.to_2d(mw @ mesh.vertices[b].co) for b in self.used]
            evaluated.to_mesh_clear()
        finally:
            for name, (mode, q, e) in saved.items():
                pb = arm.pose.bones[name]
                pb.rotation_mode, pb.rotation_quaternion, pb.rotation_euler = mode, q, e
            context.view_layer.update()
        return posed

    def write_vertex_groups(self, weights):
        """One vertex group per bone (replacing its contents), weights > 0 only, and an
        Armature modifier on the mesh if it has none."""
        obj = self.obj
        every = list(range(len(obj.data.vertices)))
        for j, (name, *_rest) in enumerate(self.bones):
            group = obj.vertex_groups.get(name) or obj.vertex_groups.new(name=name)
            group.remove(every)
            column = weights[:, j]
            for k, b in enumerate(self.used):
                w = float(column[k])
                if w > 0.0:
                    group.add([b], w, "REPLACE")
        if not any(m.type == "ARMATURE" and m.object == self.arm for m in obj.modifiers):
            m = obj.modifiers.new(name="Armature", type="ARMATURE")
            m.object = self.arm


# ---- user interface ----


# Blender keeps only references to the enum items' strings: they must outlive the callback.
_SOLVER_ITEMS = []


def solver_names():
    """The module's recommended solver first, then its other solvers; the static list when
    the module is not installed (the panel says how to install it)."""
    try:
        sw = module()
    except SkinweightsAddonError:
        return SOLVERS
    names = [sw.DEFAULT_SOLVER] + [s for s in SOLVERS if s != sw.DEFAULT_SOLVER]
    return names + [s for s in sw.SOLVER_NAMES if s not in names]


def solver_items(_self, _context):
    _SOLVER_ITEMS[:] = [(s, s, f"skinweights solver {s}") for s in solver_names()]
    return _SOLVER_ITEMS


class SkinweightsSettings(bpy.types.PropertyGroup):
    solver: bpy.props.EnumProperty(name="Solver", items=solver_items, description="Weight solver (2D)")
    probe_bone: bpy.props.StringProperty(name="Bone", description="Bone the drag probe rotates")
    probe_angle: bpy.props.FloatProperty(
        name="Angle", default=-90.0, description="Rotation in degrees, counter-clockwise about the mesh normal"
    )
    watch_part: bpy.props.StringProperty(
        name="Watch part", description="Part whose vertices must not move (vertex group part:NAME); empty: all"
    )
    use_below: bpy.props.BoolProperty(name="Only below", default=False)
    below_y: bpy.props.FloatProperty(name="Below", default=0.0, description="Watch only vertices below this 2D height")


class SKINWEIGHTS_OT_solve(bpy.types.Operator):
    """Compute 2D skinning weights for the selected flat mesh and write them as vertex groups"""

    bl_idname = "object.skinweights_solve"
    bl_label = "Skinweights: Solve Flat Mesh"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return context.active_object is not None and context.active_object.type == "MESH"

    def execute(self, context):
        s = context.scene.skinweights
        obj = context.active_object
        try:
            rig = FlatRig(obj, find_armature(context, obj))
            weights, report = rig.solve(s.solver)
            rig.write_vertex_groups(weights)
            message = f"{report['solver']}: {len(rig.used)} vertices x {len(rig.bones)} bones in {report['seconds']:.3f} s"
            for w in report["warnings"]:
                self.report({"WARNING"}, w)
            if s.probe_bone:
                probe = rig.probe(s.probe_bone, s.probe_angle, s.watch_part or None, s.below_y if s.use_below else None)
                module_drag = rig.module_drag(weights, probe)["drag_max_pct"]
                blender_drag = rig.blender_drag(context, probe)["drag_max_pct"]
                message += (
                    f"; drag for {s.probe_bone} {s.probe_angle:+g} deg: {module_drag:.3f}% of the height "
                    f"(Blender's deformation: {blender_drag:.3f}%)"
                )
                obj["skinweights_drag_pct"] = blender_drag
        except (SkinweightsAddonError, ValueError, TypeError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        self.report({"INFO"}, message)
        return {"FINISHED"}


class SKINWEIGHTS_PT_panel(bpy.types.Panel):
    bl_label = "Skinweights"
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Skinweights"

    def draw(self, context):
        s = context.scene.skinweights
        col = self.layout.column()
        col.prop(s, "solver")
        col.label(text="Drag probe")
        col.prop(s, "probe_bone")
        col.prop(s, "probe_angle")
        col.prop(s, "watch_part")
        row = col.row()
        row.prop(s, "use_below")
        row.prop(s, "below_y")
        col.operator(SKINWEIGHTS_OT_solve.bl_idname)


CLASSES = (SkinweightsSettings, SKINWEIGHTS_OT_solve, SKINWEIGHTS_PT_panel)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.Scene.skinweights = bpy.props.PointerProperty(type=SkinweightsSettings)


def unregister():
    del bpy.types.Scene.skinweights
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)


if __name__ == "__main__":
    register()
