//! `--bind` on an imported rig (issue 60): by default each weighted mesh is solved over the
//! bones its artist bound it to, which halves the clip deviation from the artist on the raptor.

use crate::common::{skinweights, text};
use skinweights::binding::{Binding, FileBindings};
use skinweights::io::{load_scene, WeightsFile};
use skinweights::weights::Weights;
use std::path::Path;

fn p(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

fn weights(path: &str, bones: usize) -> Weights {
    let f = WeightsFile::load(path).unwrap();
    Weights::from_rows(&f.weights, bones).unwrap()
}

fn mean_deviation(dir: &Path, scene: &str, bind: &str) -> f64 {
    let out = p(dir, &format!("cmp-{bind}"));
    let o = skinweights(&[
        "compare",
        scene,
        "--solvers",
        "best",
        "--bind",
        bind,
        "--json",
        "--out",
        &out,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    doc["solvers"][0]["all"]["deviation_mean_px"]
        .as_f64()
        .unwrap()
}

#[test]
fn an_imported_rig_keeps_its_artists_bones_unless_bind_says_otherwise() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let scene = p(dir, "raptor.json");
    let source = format!(
        "{}/data/spine/raptor/raptor-pro.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let o = skinweights(&["import", "spine", &source, "-o", &scene]);
    assert!(o.status.success(), "{}", text(&o));
    let (loaded, _) = load_scene(&scene).unwrap();
    let nb = loaded.skeleton().len();
    let artist = weights(&p(dir, "raptor.artist.json"), nb);
    let file = FileBindings::from_weights(&loaded, &artist).unwrap();
    assert_eq!((file.artist.len(), file.home.len()), (13, 22));

    let default = skinweights(&["solve", &scene, "-o", &p(dir, "default.json")]);
    let out = text(&default);
    assert!(default.status.success(), "{out}");
    assert!(
        out.contains("13 mesh(es) solved over the bones") && out.contains("22 it does not weight"),
        "{out}"
    );
    for bind in ["artist", "all", "auto"] {
        let o = skinweights(&[
            "solve",
            &scene,
            "--bind",
            bind,
            "-o",
            &p(dir, &format!("{bind}.json")),
        ]);
        assert!(o.status.success(), "{}", text(&o));
    }
    let default = weights(&p(dir, "default.json"), nb);
    assert_eq!(default, weights(&p(dir, "artist.json"), nb));
    let all = weights(&p(dir, "all.json"), nb);
    assert_ne!(default, all);
    // Each weighted mesh: no weight outside the bones its artist bound it to.
    let parts = loaded.mesh().vertex_parts();
    let names = loaded.mesh().parts();
    for mb in &file.artist {
        let part = names.iter().position(|n| *n == mb.part).unwrap();
        for v in (0..parts.len()).filter(|&v| parts[v] == part) {
            let row = default.row(v);
            let outside: f64 = (0..nb)
                .filter(|j| !mb.bones.contains(j))
                .map(|j| row[j])
                .sum();
            assert_eq!(outside, 0.0, "{} vertex {v}", mb.part);
        }
    }
    // A part the file does not weight gets the binder, row for row as under --bind auto: an
    // image quad stays rigid on its home bone.
    let auto = weights(&p(dir, "auto.json"), nb);
    let mut quads = 0;
    for mb in &file.home {
        let part = names.iter().position(|n| *n == mb.part).unwrap();
        let vertices: Vec<usize> = (0..parts.len()).filter(|&v| parts[v] == part).collect();
        for &v in &vertices {
            assert_eq!(default.row(v), auto.row(v), "{} vertex {v}", mb.part);
        }
        if vertices.len() <= 4 {
            quads += 1;
            for &v in &vertices {
                assert_eq!(default.row(v)[mb.bones[0]], 1.0, "{} vertex {v}", mb.part);
            }
        }
    }
    assert!(quads > 10, "{quads} image quads");
    assert!(default.normalization_error() < 1e-9);
    // The same binding from the library.
    let bones = loaded.deforming_bones(Some(&artist)).unwrap().kept;
    let binding = Binding::for_scene(&loaded, None, bones, Some(&artist), false).unwrap();
    let solver = skinweights::solvers::recommended();
    assert_eq!(
        binding.solve(solver.as_ref(), &loaded).unwrap().weights,
        default
    );

    // The artist's bones keep the clips close to the artist's: 7.6 px mean deviation against
    // 13.7 px for the whole solve on the raptor's clips.
    let (bound, whole) = (
        mean_deviation(dir, &scene, "artist"),
        mean_deviation(dir, &scene, "all"),
    );
    assert!(
        bound < 0.7 * whole,
        "artist {bound:.2} px, all {whole:.2} px"
    );

    let o = skinweights(&["solve", &scene, "--bind", "some", "-o", &p(dir, "x.json")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("artist, auto, all"), "{}", text(&o));
}

/// The rig's own weights a scene file read back: its artist file's rows.
fn artist_rows(dir: &Path, stem: &str) -> Weights {
    let (scene, _) = load_scene(p(dir, &format!("{stem}.json"))).unwrap();
    weights(
        &p(dir, &format!("{stem}.artist.json")),
        scene.skeleton().len(),
    )
}

fn run(args: &[&str]) -> String {
    let o = skinweights(args);
    assert!(o.status.success(), "{args:?}\n{}", text(&o));
    text(&o)
}

/// Largest difference between two weights of the same shape.
fn worst(a: &Weights, b: &Weights) -> f64 {
    assert_eq!(
        (a.vertex_count(), a.bone_count()),
        (b.vertex_count(), b.bone_count())
    );
    (0..a.vertex_count())
        .flat_map(|v| a.row(v).iter().zip(b.row(v)).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max)
}

/// Issue 60, item 5: a Spine project with unweighted meshes (the goblins: 20 of 21) is weighted
/// by `solve` and exported as weighted meshes, and importing that export gives the weights back.
#[test]
fn unweighted_spine_meshes_come_back_weighted_with_the_same_weights() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let source = format!(
        "{}/data/spine/goblins/goblins-pro.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let scene = p(dir, "goblins.json");
    run(&["import", "spine", &source, "--skin", "goblin", "-o", &scene]);
    let (loaded, _) = load_scene(&scene).unwrap();
    let file = FileBindings::from_weights(&loaded, &artist_rows(dir, "goblins")).unwrap();
    assert!(file.home.len() >= 10, "{} unweighted", file.home.len());
    let solved = p(dir, "solved.json");
    run(&["solve", &scene, "-o", &solved]);
    let spine = p(dir, "weighted.json");
    run(&[
        "export",
        "spine",
        &scene,
        &solved,
        "--source",
        &source,
        "--regions-to-meshes",
        "-o",
        &spine,
    ]);
    // The meshes the binder binds to more than one bone are weighted now (those it keeps on
    // their slot's bone, such as the head and the torso, stay unweighted, as Spine writes
    // them): 8 of the 20.
    let text = std::fs::read_to_string(&spine).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let weighted = doc["skins"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|skin| skin["name"] == "goblin")
        .flat_map(|skin| skin["attachments"].as_object().unwrap().values())
        .flat_map(|atts| atts.as_object().unwrap().values())
        .filter(|a| {
            a["type"] == "mesh"
                && a["vertices"].as_array().unwrap().len() > a["uvs"].as_array().unwrap().len()
        })
        .count();
    // Exactly the unweighted meshes the solve bends (rows on two or more bones) are written
    // weighted (the file's weighted mesh, the spear, is in the default skin).
    let solved_rows = weights(&solved, loaded.skeleton().len());
    let vertex_parts = loaded.mesh().vertex_parts();
    let names = loaded.mesh().parts();
    let bent = (0..names.len())
        .filter(|&part| !file.artist.iter().any(|mb| mb.part == names[part]))
        .filter(|&part| {
            let mut bones = (0..vertex_parts.len())
                .filter(|&v| vertex_parts[v] == part)
                .flat_map(|v| {
                    let row = solved_rows.row(v).to_vec();
                    (0..row.len()).filter(move |&j| row[j] > 0.0)
                })
                .collect::<Vec<_>>();
            bones.sort_unstable();
            bones.dedup();
            bones.len() > 1
        })
        .count();
    assert_eq!(
        weighted, bent,
        "{weighted} weighted meshes, {bent} bent parts"
    );
    assert!(weighted >= 6, "{weighted} weighted meshes");
    let back = p(dir, "back.json");
    run(&["import", "spine", &spine, "--skin", "goblin", "-o", &back]);
    let (reloaded, _) = load_scene(&back).unwrap();
    assert_eq!(reloaded.mesh().vertex_count(), loaded.mesh().vertex_count());
    let solved = weights(&solved, loaded.skeleton().len());
    let read = artist_rows(dir, "back");
    let diff = worst(&solved, &read);
    assert!(diff < 1e-5, "weights off by {diff} after the round trip");
}

/// The same for DragonBones: a mesh display without `weights` (its vertices in its slot bone's
/// frame) is weighted by `solve`, exported weighted, and read back with the same weights.
#[test]
fn unweighted_dragonbones_meshes_come_back_weighted_with_the_same_weights() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // A 100 x 20 strip on two bones, the mesh hanging on the root bone, unweighted.
    let (mut vertices, mut uvs, mut triangles) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..3 {
        for i in 0..11 {
            vertices.extend([i as f64 * 10.0, j as f64 * 10.0 - 10.0]);
            uvs.extend([i as f64 / 10.0, j as f64 / 2.0]);
        }
    }
    for j in 0..2 {
        for i in 0..10 {
            let a = j * 11 + i;
            triangles.extend([a, a + 1, a + 12, a, a + 12, a + 11]);
        }
    }
    let ske = serde_json::json!({
        "frameRate": 24, "name": "strip", "version": "5.5", "compatibleVersion": "5.5",
        "armature": [{
            "type": "Armature", "frameRate": 24, "name": "strip",
            "bone": [
                {"name": "root", "length": 50},
                {"name": "tip", "parent": "root", "length": 50, "transform": {"x": 50}}
            ],
            "slot": [{"name": "strip", "parent": "root"}],
            "skin": [{"slot": [{"name": "strip", "display": [{
                "type": "mesh", "name": "strip", "width": 100, "height": 20,
                "vertices": vertices, "uvs": uvs, "triangles": triangles
            }]}]}],
            "animation": [{"duration": 0, "name": "idle"}]
        }]
    });
    let ske_path = p(dir, "strip_ske.json");
    std::fs::write(&ske_path, ske.to_string()).unwrap();
    let scene = p(dir, "strip.json");
    run(&["import", "dragonbones", &ske_path, "-o", &scene]);
    let (loaded, _) = load_scene(&scene).unwrap();
    let file = FileBindings::from_weights(&loaded, &artist_rows(dir, "strip")).unwrap();
    assert_eq!((file.artist.len(), file.home.len()), (0, 1));
    let solved = p(dir, "solved.json");
    run(&["solve", &scene, "-o", &solved]);
    let solved_w = weights(&solved, loaded.skeleton().len());
    // Weighted now: the tip bone carries the far end.
    let tip = loaded.skeleton().index_of("tip").unwrap();
    assert!(solved_w.row(10)[tip] > 0.5, "{:?}", solved_w.row(10));
    let out = p(dir, "weighted_ske.json");
    run(&["export", "dragonbones", &scene, &solved, "-o", &out]);
    let back = p(dir, "back.json");
    run(&["import", "dragonbones", &out, "-o", &back]);
    let diff = worst(&solved_w, &artist_rows(dir, "back"));
    assert!(diff < 1e-5, "weights off by {diff} after the round trip");
}
