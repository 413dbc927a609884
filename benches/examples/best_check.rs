//! `best` variants against heat on the shipped scenes, worst over each scene's probes:
//! `cargo run --release -p skinweights-benches --example best_check -- VERTICES VARIANT...` where a variant is
//! `default` or `key=value,key=value` (options of `best`). Prints drag % / flips /
//! Dirichlet energy relative to heat's / seconds, so option changes are compared in one
//! process.

use skinweights::io::dragonbones::load_dragonbones;
use skinweights::io::{sprite_scene, BonesFile, Sprite, SpriteOptions};
use skinweights::metrics::evaluate;
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Scene, solvers::solver_by_name,
};
use std::path::Path;
use std::time::Instant;

/// Worst drag, most flips, Dirichlet energy and seconds of `solver` with `options`.
fn measure(scene: &Scene, solver: &str, options: &[(String, String)]) -> (f64, usize, f64, f64) {
    let t = Instant::now();
    let w = solver_by_name(solver, options)
        .and_then(|s| s.solve(scene))
        .expect("solve")
        .weights;
    let secs = t.elapsed().as_secs_f64();
    let (mut drag, mut flips, mut dirichlet) = (0.0f64, 0, 0.0);
    for probe in scene.probes() {
        let m = evaluate(scene, &w, probe).expect("evaluate");
        drag = drag.max(m.drag_max_pct);
        flips = flips.max(m.flipped);
        dirichlet = m.dirichlet;
    }
    (drag, flips, dirichlet, secs)
}

fn main() -> skinweights::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let vertices: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let variants: Vec<Vec<(String, String)>> = args
        .iter()
        .skip(1)
        .map(|a| {
            a.split(',')
                .filter_map(|kv| kv.split_once('=').map(|(k, v)| (k.into(), v.into())))
                .collect()
        })
        .collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let mut scenes: Vec<Scene> = Vec::new();
    for gap in [0.0, 2.0, 12.0, 48.0] {
        let s = builtin_scene(
            "arms-down",
            &BuiltinOptions::default()
                .with_gap(Some(gap))
                .with_vertices(vertices),
        )?
        .with_name(format!("arms-down {gap}"));
        scenes.push(s);
    }
    scenes.push(builtin_scene(
        "figure",
        &BuiltinOptions::default().with_vertices(vertices),
    )?);
    for (label, png, bones) in [
        (
            "femaleAdventurer",
            "kenney-toon/femaleAdventurer_idle.png",
            "kenney-toon/femaleAdventurer_idle_bones.json",
        ),
        (
            "malePerson",
            "kenney-toon/malePerson_idle.png",
            "kenney-toon/malePerson_idle_bones.json",
        ),
        (
            "robot",
            "kenney-toon/robot_idle.png",
            "kenney-toon/robot_idle_bones.json",
        ),
        ("gBot", "godot-gbot/gBot.png", "godot-gbot/gBot_bones.json"),
    ] {
        let mut options = SpriteOptions::default();
        options.meshing.target_vertices = vertices;
        options.name = Some(label.to_string());
        let (s, _, _) = sprite_scene(
            &Sprite::load(root.join(png))?,
            BonesFile::load(root.join(bones))?,
            &options,
        )?;
        scenes.push(s);
    }
    let db = load_dragonbones(root.join("dragonbones-you-xin/body_ske.json"))?
        .scene
        .with_name("DragonBones");
    scenes.push(db);
    for scene in &scenes {
        let (hd, hf, he, ht) = measure(scene, "heat", &[]);
        print!(
            "{:>18} {:>6}v heat {hd:.3}/{hf}/{ht:.2}s |",
            scene.name(),
            scene.mesh().vertex_count()
        );
        for v in &variants {
            let (d, f, e, t) = measure(scene, "best", v);
            print!(" {d:.3}/{f}/{:.2}/{t:.2}s |", e / he);
        }
        println!();
    }
    Ok(())
}
