//! The recommended solver against the acceptance targets, on the scenes where they
//! hold; the misses are measured in `experiments/pareto.rs` and reported in README.

#![cfg(feature = "io")]

use skinweights::io::{sprite_scene, BonesFile, Sprite, SpriteOptions};
use skinweights::metrics::{evaluate, Metrics};
use skinweights::solvers::{recommended, RECOMMENDED_SOLVER};
use skinweights::{builtin_scene, solver_by_name, BuiltinOptions, Scene};
use std::path::Path;

fn metrics(scene: &Scene, solver: &str) -> Metrics {
    let w = solver_by_name(solver, &[])
        .unwrap()
        .solve(scene)
        .unwrap()
        .weights;
    assert!(w.normalization_error() < 1e-9);
    evaluate(scene, &w, scene.probe(Some("lift_l")).unwrap(), None).unwrap()
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
fn best_stops_the_drag_on_arms_down_at_heat_like_smoothness() {
    for gap in [2.0, 12.0, 48.0] {
        let scene = arms_down(gap);
        let (heat, best) = (metrics(&scene, "heat"), metrics(&scene, "best"));
        // Measured: drag 0.000% at every gap (heat 1.45 / 1.10 / 0.69%); Dirichlet 1.12 /
        // 1.09 / 1.05x heat's; flips 6 / 2 / 0 (heat 3 / 2 / 2).
        assert!(best.drag_max_pct <= 0.1, "gap {gap}: {}", best.drag_max_pct);
        assert!(heat.drag_max_pct > 0.5);
        assert!(
            best.dirichlet <= 1.5 * heat.dirichlet,
            "gap {gap}: {} vs {}",
            best.dirichlet,
            heat.dirichlet
        );
        assert!(best.discontinuities == 0);
        if gap >= 12.0 {
            assert!(
                best.flipped <= heat.flipped,
                "gap {gap}: {} vs {}",
                best.flipped,
                heat.flipped
            );
        }
    }
}

#[test]
fn best_stops_the_drag_on_two_kenney_sprites() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/kenney-toon");
    for stem in ["robot", "femaleAdventurer"] {
        let sprite = Sprite::load(data.join(format!("{stem}_idle.png"))).unwrap();
        let bones = BonesFile::load(data.join(format!("{stem}_idle_bones.json"))).unwrap();
        let (scene, _, _) = sprite_scene(&sprite, bones, &SpriteOptions::default()).unwrap();
        let (heat, best) = (metrics(&scene, "heat"), metrics(&scene, "best"));
        // Measured: robot 0.02% (heat 2.12%), Dirichlet 1.13x; femaleAdventurer 0.00%
        // (heat 1.90%), 1.12x. Flips are the miss: 16 and 8 against heat's 4 and 2.
        assert!(best.drag_max_pct <= 0.1, "{stem}: {}", best.drag_max_pct);
        assert!(heat.drag_max_pct > 1.0, "{stem}: {}", heat.drag_max_pct);
        assert!(best.dirichlet <= 1.5 * heat.dirichlet, "{stem}");
    }
}
