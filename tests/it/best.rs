//! The recommended solver against the acceptance targets, on the scenes where they
//! hold; the misses are measured in `experiments/pareto.rs` and reported in docs/best.md.

use crate::common;
use crate::common::synthetic_sprite::{synthetic_sprite, synthetic_sprite_with, Limbs};

use skinweights::io::{sprite_scene, BonesFile, Sprite, SpriteOptions};
use skinweights::metrics::{evaluate, Metrics};
use skinweights::solvers::{recommended, RECOMMENDED_SOLVER};
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Scene, solvers::solver_by_name,
};
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
        .probes()
        .iter()
        .map(|p| evaluate(scene, &w, p).unwrap());
    let mut m = all.next().unwrap();
    for n in all {
        m.drag_max_pct = m.drag_max_pct.max(n.drag_max_pct);
        m.flipped = m.flipped.max(n.flipped);
    }
    m
}

/// The acceptance check for `best` against heat on one scene (`case` names it in
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
    builtin_scene("arms-down", &BuiltinOptions::default().with_gap(Some(gap))).unwrap()
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
fn best_stops_the_drag_on_kenney_sprites_with_no_more_flips_than_heat() {
    // Each sprite with its own bones file, and (the issue's own case) the pack's other
    // characters traced with malePerson's bones file (its bones, parts and lift probe).
    // Measured (10k vertices), best drags 0.000% everywhere: robot (heat 2.12%), 0 flips
    // (heat 4), Dirichlet 0.47x; femaleAdventurer (heat 1.90%), 0 flips (heat 2), 0.46x;
    // with malePerson's bones femaleAdventurer (heat 1.82%) and robot (heat 2.56%), 0 flips
    // (heat 3 and 1), 0.35x and 0.42x.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/kenney-toon");
    for (art, rig) in [
        ("robot", "robot"),
        ("femaleAdventurer", "femaleAdventurer"),
        ("femaleAdventurer", "malePerson"),
        ("robot", "malePerson"),
    ] {
        let sprite = Sprite::load(data.join(format!("{art}_idle.png"))).unwrap();
        let bones = BonesFile::load(data.join(format!("{rig}_idle_bones.json"))).unwrap();
        let (scene, _, _) = sprite_scene(&sprite, bones, &SpriteOptions::default()).unwrap();
        let (heat, best) = (metrics(&scene, "heat"), metrics(&scene, "best"));
        let case = format!("{art} with {rig}'s bones");
        assert_best_meets_the_targets(&case, &heat, &best);
        assert!(heat.drag_max_pct > 1.0, "{case}: {}", heat.drag_max_pct);
    }
}

#[test]
fn best_on_parts_assigned_vertex_by_vertex_gives_valid_weights() {
    // Parts that interleave (every vertex's part taken from its index, as a scene file may
    // say): every bone's locked set is scattered over the mesh, so substructuring the free
    // sets would need dense blocks as large as the mesh; best factors each set on its own.
    let base = arms_down(12.0);
    let mesh = base.mesh();
    let parts = mesh.parts().to_vec();
    let scattered: Vec<usize> = (0..mesh.vertex_count()).map(|v| v % parts.len()).collect();
    let mesh = skinweights::mesh::Mesh::with_parts(
        mesh.vertices().to_vec(),
        mesh.triangles().to_vec(),
        parts,
        scattered,
    )
    .unwrap();
    let scene = Scene::new(
        "scattered parts",
        mesh,
        base.skeleton().clone(),
        base.probes().to_vec(),
    )
    .unwrap();
    let w = solver_by_name("best", &[] as &[(&str, &str)])
        .unwrap()
        .solve(&scene)
        .unwrap()
        .weights;
    assert!(w.normalization_error() < 1e-9);
    assert!(w.as_slice().iter().all(|x| x.is_finite() && *x >= 0.0));
}

#[test]
fn best_on_unseen_traced_sprites_drags_nothing_with_no_more_flips_than_heat() {
    for seed in [1, 2, 3] {
        for gap in [2.0, 4.0, 8.0] {
            let scene = synthetic_sprite(seed, gap).unwrap();
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
        let scene = synthetic_sprite_with(seed, gap, &limbs).unwrap();
        let (heat, best) = (metrics(&scene, "heat"), metrics(&scene, "best"));
        let case = format!(
            "seed {seed} gap {gap} arm bottom {} tilt {} lifts {:?} ({} vertices)",
            limbs.arm_bottom,
            limbs.tilt_deg,
            limbs.lifts,
            scene.mesh().vertex_count()
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
