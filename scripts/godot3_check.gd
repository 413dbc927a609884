# Loads res://scene.tscn in Godot 3 and compares its Skeleton2D and Polygon2D nodes with
# res://expected.json (written by skinweights' test `godot3_loads_the_exported_player`):
# bone paths and rest transforms, and per Polygon2D its points, internal_vertex_count,
# polygons, skeleton path, bone paths and weights. Prints what it read; exits 1 on any
# difference, 2 when it cannot read its inputs.
extends SceneTree

const POINT_TOLERANCE = 1e-3   # px: Godot stores Vector2 as 32-bit floats
const WEIGHT_TOLERANCE = 1e-6  # PoolRealArray is 32-bit
const REST_TOLERANCE = 1e-4

var mismatches = 0
var scene_root = null
var expected = null

func mismatch(msg):
	mismatches += 1
	if mismatches <= 20:
		printerr("MISMATCH: ", msg)

func _init():
	var f = File.new()
	if f.open("res://expected.json", File.READ) != OK:
		printerr("cannot read res://expected.json")
		quit(2)
		return
	var parsed = JSON.parse(f.get_as_text())
	f.close()
	if parsed.error != OK:
		printerr("expected.json: ", parsed.error_string)
		quit(2)
		return
	expected = parsed.result
	var packed = load("res://scene.tscn")
	if packed == null:
		printerr("Godot could not load res://scene.tscn")
		quit(2)
		return
	scene_root = packed.instance()
	get_root().add_child(scene_root)

var checked = false

func _idle(_delta):
	if checked:
		return false
	checked = true
	check()
	print("godot3 check: ", mismatches, " mismatches")
	quit(1 if mismatches > 0 else 0)
	return false

func check():
	var skel = scene_root.get_node_or_null("Skeleton2D")
	if skel == null or not (skel is Skeleton2D):
		mismatch("no Skeleton2D child of the root")
		return
	var bones = expected["bones"]
	print("skeleton: ", skel.get_bone_count(), " bones (expected ", bones.size(), ")")
	if skel.get_bone_count() != bones.size():
		mismatch("bone count %d, expected %d" % [skel.get_bone_count(), bones.size()])
	var max_rest = 0.0
	for i in range(bones.size()):
		var b = skel.get_node_or_null(bones[i]["path"])
		if b == null or not (b is Bone2D):
			mismatch("no Bone2D at Skeleton2D/" + bones[i]["path"])
			continue
		if i < skel.get_bone_count() and skel.get_bone(i) != b:
			mismatch("skeleton bone %d is %s, expected %s" % [i, skel.get_bone(i).name, bones[i]["path"]])
		var r = b.rest
		var e = bones[i]["rest"]
		var got = [r.x.x, r.x.y, r.y.x, r.y.y, r.origin.x, r.origin.y]
		for k in range(6):
			max_rest = max(max_rest, abs(got[k] - e[k]))
	print("bone rest transforms: max difference ", max_rest)
	if max_rest > REST_TOLERANCE:
		mismatch("rest transforms differ by %f" % max_rest)

	var total_points = 0
	var total_weights = 0
	var max_point = 0.0
	var max_weight = 0.0
	for e in expected["polygons"]:
		var p = scene_root.get_node_or_null(e["name"])
		if p == null or not (p is Polygon2D):
			mismatch("no Polygon2D " + e["name"])
			continue
		var pts = p.polygon
		var want = e["points"]
		if pts.size() != want.size():
			mismatch("%s: %d points, expected %d" % [e["name"], pts.size(), want.size()])
			continue
		for i in range(pts.size()):
			max_point = max(max_point, max(abs(pts[i].x - want[i][0]), abs(pts[i].y - want[i][1])))
		total_points += pts.size()
		if p.internal_vertex_count != int(e["internal"]):
			mismatch("%s: internal_vertex_count %d, expected %d" % [e["name"], p.internal_vertex_count, e["internal"]])
		if p.polygons.size() != int(e["triangles"]):
			mismatch("%s: %d polygons, expected %d" % [e["name"], p.polygons.size(), e["triangles"]])
		if p.skeleton != NodePath("../Skeleton2D"):
			mismatch("%s: skeleton %s" % [e["name"], p.skeleton])
		if e["texture"] and p.texture == null:
			mismatch("%s: no texture" % e["name"])
		var wb = e["bones"]
		if p.get_bone_count() != wb.size():
			mismatch("%s: %d bones, expected %d" % [e["name"], p.get_bone_count(), wb.size()])
			continue
		for j in range(wb.size()):
			if String(p.get_bone_path(j)) != wb[j]:
				mismatch("%s: bone %d is %s, expected %s" % [e["name"], j, p.get_bone_path(j), wb[j]])
			var w = p.get_bone_weights(j)
			var ww = e["weights"][j]
			if w.size() != ww.size():
				mismatch("%s: bone %s has %d weights, expected %d" % [e["name"], wb[j], w.size(), ww.size()])
				continue
			for i in range(w.size()):
				max_weight = max(max_weight, abs(w[i] - ww[i]))
			total_weights += w.size()
		print("%s: %d points (%d internal), %d triangles, %d bones, texture %s" % [e["name"], pts.size(), p.internal_vertex_count, p.polygons.size(), p.get_bone_count(), p.texture.resource_path if p.texture else "none"])
	print("polygons: ", expected["polygons"].size(), ", points: ", total_points, ", weights: ", total_weights)
	print("max point difference: ", max_point, " px, max weight difference: ", max_weight)
	if max_point > POINT_TOLERANCE:
		mismatch("points differ by %f px" % max_point)
	if max_weight > WEIGHT_TOLERANCE:
		mismatch("weights differ by %f" % max_weight)
