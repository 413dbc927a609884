//! The recommended solver against the issue's acceptance targets, on the scenes where they
//! hold; the misses are measured in `experiments/pareto.rs` and reported in docs/best.md.

#![cfg(feature = "io")]

mod common;
use common::Rng;

use skinweights::io::{sprite_scene, BonesFile, Sprite, SpriteOptions};
use skinweights::metrics::{evaluate, Metrics};
use skinweights::solvers::{recommended, RECOMMENDED_SOLVER};
use skinweights::{builtin_scene, solver_by_name, BuiltinOptions, Scene};
use std::path::Path;

fn metrics(scene: &Scene, solver: &str) -> Metrics {
    worst(scene, solver, &[])
}

/// Over every probe of `scene`: the largest drag and the most flips (the other fields are
/// the first probe's; the Dirichlet energy does not depend on the probe).
fn worst(scene: &Scene, solver: &str, options: &[(String, String)]) -> Metrics {
    let w = solver_by_name(solver, options)
        .unwrap()
        .solve(scene)
        .unwrap()
        .weights;
    assert!(w.normalization_error() < 1e-9);
    assert!(w.as_slice().iter().all(|x| x.is_finite() && *x >= 0.0));
    let mut all = scene
        .probes
        .iter()
        .map(|p| evaluate(scene, &w, p, None).unwrap());
    let mut m = all.next().unwrap();
    for n in all {
        m.drag_max_pct = m.drag_max_pct.max(n.drag_max_pct);
        m.flipped = m.flipped.max(n.flipped);
    }
    m
}

/// The issue's acceptance check for `best` against heat on one scene (`case` names it in
/// the failure): drag at most 0.1% of the height, no more flipped triangles than heat, a
/// Dirichlet energy at most 1.5x heat's.
fn assert_best_meets_the_targets(case: &str, heat: &Metrics, best: &Metrics) {
    assert!(
        best.drag_max_pct <= 0.1,
        "{case}: drag {}",
        best.drag_max_pct
    );
    assert!(
        best.flipped <= heat.flipped,
        "{case}: {} flips vs heat's {}",
        best.flipped,
        heat.flipped
    );
    assert!(
        best.dirichlet <= 1.5 * heat.dirichlet,
        "{case}: Dirichlet {} vs heat's {}",
        best.dirichlet,
        heat.dirichlet
    );
}

fn arms_down(gap: f64) -> Scene {
    builtin_scene(
        "arms-down",
        &BuiltinOptions {
            gap: Some(gap),
            ..Default::default()
        },
    )
    .unwrap()
}

#[test]
fn the_recommended_solver_is_best() {
    assert_eq!(RECOMMENDED_SOLVER, "best");
    assert_eq!(recommended().name(), "best");
}

#[test]
fn best_stops_the_drag_on_an_arms_down_gap_sweep_with_no_more_flips_than_heat() {
    for gap in [2.0, 4.0, 8.0, 12.0, 24.0, 48.0] {
        let scene = arms_down(gap);
        let (heat, best) = (metrics(&scene, "heat"), metrics(&scene, "best"));
        // Measured (10k vertices): best drags 0.000% at every gap with 0 flips and
        // 0.65-0.67x heat's Dirichlet energy; heat drags 0.69-1.45% with 2-3 flips.
        assert_best_meets_the_targets(&format!("gap {gap}"), &heat, &best);
        assert!(heat.drag_max_pct > 0.5, "gap {gap}: {}", heat.drag_max_pct);
        assert_eq!(best.discontinuities, 0, "gap {gap}");
    }
}

#[test]
fn best_stops_the_drag_on_two_kenney_sprites_with_no_more_flips_than_heat() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/kenney-toon");
    for stem in ["robot", "femaleAdventurer"] {
        let sprite = Sprite::load(data.join(format!("{stem}_idle.png"))).unwrap();
        let bones = BonesFile::load(data.join(format!("{stem}_idle_bones.json"))).unwrap();
        let (scene, _, _) = sprite_scene(&sprite, bones, &SpriteOptions::default()).unwrap();
        let (heat, best) = (metrics(&scene, "heat"), metrics(&scene, "best"));
        // Measured: robot 0.000% (heat 2.12%), 0 flips (heat 4), Dirichlet 0.47x;
        // femaleAdventurer 0.000% (heat 1.90%), 0 flips (heat 2), 0.46x.
        assert_best_meets_the_targets(stem, &heat, &best);
        assert!(heat.drag_max_pct > 1.0, "{stem}: {}", heat.drag_max_pct);
    }
}

/// A character sprite none of the solvers was tuned on, drawn into a 96 x 128 alpha image
/// the way the Kenney sprites are laid out (y up, origin at the bottom): legs, a torso, a
/// head on a neck, and arms hanging beside the torso separated from it by a slit `gap`
/// pixels wide up to the shoulder block. Sizes and the outline's pixel noise come from
/// `seed`. Returns the traced scene (`skinweights mesh` with a bones file) and its height.
fn synthetic_sprite(seed: u64, gap: f64) -> Scene {
    synthetic_sprite_with(seed, gap, &Limbs::default())
}

/// The arms of a synthetic sprite: where they end and how far they spread.
struct Limbs {
    /// Lowest y of the arms (default 8: they reach below the torso's bottom at 18).
    arm_bottom: f64,
    /// The arms spread outward by this many degrees from hanging straight down (default 0).
    tilt_deg: f64,
    /// Image resolution multiplier for the traced mesh's vertex target (default 10 000).
    vertices: usize,
    /// The probe's lift angles (degrees, applied to the left upper arm; default -90).
    lifts: Vec<f64>,
}

impl Default for Limbs {
    fn default() -> Self {
        Limbs {
            arm_bottom: 8.0,
            tilt_deg: 0.0,
            vertices: 10_000,
            lifts: vec![-90.0],
        }
    }
}

fn synthetic_sprite_with(seed: u64, gap: f64, limbs: &Limbs) -> Scene {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
    let (w, h) = (96u32, 128u32);
    let cx = 48.0;
    let tw = rng.range(12.0, 16.0); // torso half-width
    let aw = rng.range(9.0, 13.0); // arm width
    let armpit = rng.range(34.0, 38.0); // top of the slit
    let head_r = rng.range(17.0, 21.0);
    let noise: Vec<f64> = (0..(w * h)).map(|_| rng.unit()).collect();
    let arm_out = tw + gap + aw; // outer edge of an arm, from the centre line
    let inside = |x: f64, y: f64| -> bool {
        let dx = (x - cx).abs();
        let legs = (2.0..=20.0).contains(&y) && (2.0..=14.0).contains(&dx);
        let torso = (18.0..=48.0).contains(&y) && dx <= tw;
        let neck = (46.0..=54.0).contains(&y) && dx <= 5.0;
        let head = (x - cx).powi(2) + (y - 70.0).powi(2) <= head_r * head_r;
        // A tilted arm shifts outward by `tan(tilt)` per pixel below the shoulder block.
        let shift = (armpit - y).max(0.0) * limbs.tilt_deg.to_radians().tan();
        let arm = (limbs.arm_bottom..=48.0).contains(&y)
            && dx >= tw + gap + shift
            && dx <= arm_out + shift;
        let shoulder = (armpit..=48.0).contains(&y) && dx <= arm_out;
        legs || torso || neck || head || arm || shoulder
    };
    let mut image = image::RgbaImage::new(w, h);
    for row in 0..h {
        for col in 0..w {
            let (x, y) = (col as f64 + 0.5, (h - 1 - row) as f64 + 0.5);
            // Pixel noise on the outline: an opaque pixel on the edge is cleared with
            // probability 0.2 (clearing only, so a slit never closes).
            let here = inside(x, y);
            let edge = [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]
                .iter()
                .any(|(a, b)| inside(x + a, y + b) != here);
            let flip = edge && here && noise[(row * w + col) as usize] < 0.2;
            let alpha = if here != flip { 255 } else { 0 };
            image.put_pixel(col, row, image::Rgba([90, 120, 200, alpha]));
        }
    }
    let sprite = Sprite::from_rgba(image, format!("synthetic-{seed}-gap{gap}"));
    let (l, r) = (cx - tw - gap - aw / 2.0, cx + tw + gap + aw / 2.0);
    let elbow_y = (limbs.arm_bottom + (armpit + 2.0)) / 2.0;
    let hand_y = limbs.arm_bottom + 2.0;
    let tan = limbs.tilt_deg.to_radians().tan();
    let (el, er) = (l - (armpit - elbow_y) * tan, r + (armpit - elbow_y) * tan);
    let (hl, hr) = (l - (armpit - hand_y) * tan, r + (armpit - hand_y) * tan);
    let probes: Vec<String> = limbs
        .lifts
        .iter()
        .map(|a| {
            format!(
                r#"{{"name": "lift_l {a}", "pose": {{"upper_arm_l": {a}}}, "watch": {{"part": "torso", "below_y": {}}}}}"#,
                armpit - 7.0
            )
        })
        .collect();
    let slit_l = cx - tw - gap / 2.0;
    let slit_r = cx + tw + gap / 2.0;
    let top = armpit + 2.0;
    let bones = format!(
        r#"{{"bones": [
  {{"name": "spine", "parent": null, "head": [48, 18], "tail": [48, 46], "part": "torso"}},
  {{"name": "neck", "parent": "spine", "head": [48, 46], "tail": [48, 54], "part": "head"}},
  {{"name": "head", "parent": "neck", "head": [48, 54], "tail": [48, 88], "part": "head"}},
  {{"name": "upper_arm_l", "parent": "spine", "head": [{l}, {top}], "tail": [{el}, {elbow_y}], "part": "arm_l"}},
  {{"name": "forearm_l", "parent": "upper_arm_l", "head": [{el}, {elbow_y}], "tail": [{hl}, {hand_y}], "part": "arm_l"}},
  {{"name": "upper_arm_r", "parent": "spine", "head": [{r}, {top}], "tail": [{er}, {elbow_y}], "part": "arm_r"}},
  {{"name": "forearm_r", "parent": "upper_arm_r", "head": [{er}, {elbow_y}], "tail": [{hr}, {hand_y}], "part": "arm_r"}},
  {{"name": "thigh_l", "parent": "spine", "head": [40, 18], "tail": [40, 10], "part": "leg_l"}},
  {{"name": "shin_l", "parent": "thigh_l", "head": [40, 10], "tail": [40, 2], "part": "leg_l"}},
  {{"name": "thigh_r", "parent": "spine", "head": [56, 18], "tail": [56, 10], "part": "leg_r"}},
  {{"name": "shin_r", "parent": "thigh_r", "head": [56, 10], "tail": [56, 2], "part": "leg_r"}}
 ],
 "parts": [
  {{"part": "head", "polygon": [[0, 48.5], [96, 48.5], [96, 128], [0, 128]]}},
  {{"part": "arm_l", "polygon": [[0, 0], [{slit_l}, 0], [{slit_l}, 48.5], [0, 48.5]]}},
  {{"part": "arm_r", "polygon": [[{slit_r}, 0], [96, 0], [96, 48.5], [{slit_r}, 48.5]]}},
  {{"part": "leg_l", "polygon": [[0, 0], [48, 0], [48, 18.5], [0, 18.5]]}},
  {{"part": "leg_r", "polygon": [[48, 0], [96, 0], [96, 18.5], [48, 18.5]]}},
  {{"part": "torso", "polygon": [[0, 0], [96, 0], [96, 128], [0, 128]]}}
 ],
 "probes": [{probes}]}}"#,
        probes = probes.join(",")
    );
    let bones = BonesFile::from_json(&bones).unwrap();
    let mut options = SpriteOptions::default();
    options.meshing.target_vertices = limbs.vertices;
    let (scene, _, _) = sprite_scene(&sprite, bones, &options).unwrap();
    scene.sanity_check().unwrap();
    scene
}

#[test]
fn best_on_unseen_traced_sprites_drags_nothing_with_no_more_flips_than_heat() {
    for seed in [1, 2, 3] {
        for gap in [2.0, 4.0, 8.0] {
            let scene = synthetic_sprite(seed, gap);
            let (heat, best) = (metrics(&scene, "heat"), metrics(&scene, "best"));
            eprintln!(
                "seed {seed} gap {gap}: heat drag {:.3}% flips {}; best drag {:.3}% flips {} \
                 Dirichlet {:.2}x",
                heat.drag_max_pct,
                heat.flipped,
                best.drag_max_pct,
                best.flipped,
                best.dirichlet / heat.dirichlet
            );
            assert!(heat.drag_max_pct > 0.3, "seed {seed} gap {gap}: heat leaks");
            assert_best_meets_the_targets(&format!("seed {seed} gap {gap}"), &heat, &best);
            assert_eq!(best.discontinuities, 0);
        }
    }
}

#[test]
fn best_on_unseen_limbs_angles_and_resolutions_drags_nothing_with_no_more_flips_than_heat() {
    // Long arms (to y = 2), short arms (to y = 26), arms spread by 10 and 20 degrees, lifts
    // of 45, 90 and 135 degrees, and meshes of 3k and 30k vertices. Measured: best drags
    // 0.000% everywhere with 0 flips (20 over the three lifts, where heat folds 423), at
    // 0.40-0.54x heat's Dirichlet energy; heat drags 2.00-2.70% with 4-65 flips.
    let cases: Vec<(u64, f64, Limbs)> = vec![
        (
            4,
            2.0,
            Limbs {
                arm_bottom: 2.0,
                ..Limbs::default()
            },
        ),
        (
            5,
            3.0,
            Limbs {
                arm_bottom: 26.0,
                ..Limbs::default()
            },
        ),
        (
            6,
            4.0,
            Limbs {
                tilt_deg: 10.0,
                ..Limbs::default()
            },
        ),
        (
            7,
            2.0,
            Limbs {
                tilt_deg: 20.0,
                ..Limbs::default()
            },
        ),
        (
            8,
            3.0,
            Limbs {
                lifts: vec![-45.0, -90.0, -135.0],
                ..Limbs::default()
            },
        ),
        (
            9,
            2.0,
            Limbs {
                vertices: 3_000,
                ..Limbs::default()
            },
        ),
        (
            10,
            4.0,
            Limbs {
                vertices: 30_000,
                ..Limbs::default()
            },
        ),
        (
            11,
            2.0,
            Limbs {
                vertices: 30_000,
                arm_bottom: 2.0,
                ..Limbs::default()
            },
        ),
    ];
    for (seed, gap, limbs) in cases {
        let scene = synthetic_sprite_with(seed, gap, &limbs);
        let (heat, best) = (metrics(&scene, "heat"), metrics(&scene, "best"));
        let case = format!(
            "seed {seed} gap {gap} arm bottom {} tilt {} lifts {:?} ({} vertices)",
            limbs.arm_bottom,
            limbs.tilt_deg,
            limbs.lifts,
            scene.mesh.vertex_count()
        );
        assert!(heat.drag_max_pct > 0.3, "{case}: heat leaks");
        assert_best_meets_the_targets(&case, &heat, &best);
        assert_eq!(best.discontinuities, 0, "{case}");
    }
}

/// The resolutions at which `figure` is checked: the coarse and default meshes, and the
/// finer ones where earlier recipes folded (15k-35k vertices). That those recipes fold more
/// than heat on this sweep (what makes the test below able to fail) is a unit test in
/// `src/solvers/best.rs`, where the recipe's constants can be changed.
const FIGURE_SWEEP: [usize; 5] = [3_000, 10_000, 15_000, 20_000, 30_000];

#[test]
fn best_folds_no_more_than_heat_on_figure_from_3k_to_30k_vertices() {
    // Measured: 0 flips at every size of the sweep, no drag, energy under heat's.
    for vertices in FIGURE_SWEEP {
        let scene = common::scene_at("figure", vertices);
        let (heat, best) = (metrics(&scene, "heat"), metrics(&scene, "best"));
        assert_best_meets_the_targets(&format!("figure {vertices}"), &heat, &best);
    }
}
