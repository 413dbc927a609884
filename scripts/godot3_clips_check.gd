# Plays every animation of res://scene.tscn's AnimationPlayer in Godot 3 at the times listed
# in res://times.json ({"clips": {NAME: [t, ...]}, "bones": [PATH, ...]}) and prints each
# bone's transform relative to the Skeleton2D as one JSON line "CLIPS {...}" (written by
# skinweights' test `godot3_plays_the_exported_clips`, which compares it with the library).
extends SceneTree

var done = false
var scene_root = null
var req = null

func _init():
	var f = File.new()
	if f.open("res://times.json", File.READ) != OK:
		printerr("cannot read res://times.json")
		quit(2)
		return
	req = parse_json(f.get_as_text())
	f.close()
	var packed = load("res://scene.tscn")
	if packed == null:
		printerr("Godot could not load res://scene.tscn")
		quit(2)
		return
	scene_root = packed.instance()
	get_root().add_child(scene_root)

func _idle(_delta):
	if done:
		return false
	done = true
	var player = scene_root.get_node("AnimationPlayer")
	var skel = scene_root.get_node("Skeleton2D")
	var out = {}
	for name in req["clips"].keys():
		player.play(name)
		var rows = []
		for t in req["clips"][name]:
			player.seek(t, true)
			var row = []
			for path in req["bones"]:
				var g = skel.get_global_transform().affine_inverse() * skel.get_node(path).get_global_transform()
				row.append([g.x.x, g.x.y, g.y.x, g.y.y, g.origin.x, g.origin.y])
			rows.append(row)
		out[name] = rows
	print("CLIPS ", to_json(out))
	quit(0)
