//! Interpenetration: the bar bent past 180 degrees against its exact overlap, every built-in
//! scene clean at rest, the sprites measured at their probes, and the lint row.

use nalgebra::{Point2, Rotation2};
use skinweights::lint::{lint, LintOptions};
use skinweights::metrics::{posed_positions, Interpenetration};
use skinweights::scene::BUILTIN_SCENES;
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Scene, skeleton::Pose, weights::Weights,
};

fn bar(vertices: usize) -> Scene {
    builtin_scene("bar", &BuiltinOptions::default().with_vertices(vertices)).unwrap()
}

/// Every vertex fully on its own part's bone (the bar's parts and bones are both
/// upper, lower): each limb moves rigidly.
fn rigid_weights(scene: &Scene) -> Weights {
    let rows: Vec<Vec<f64>> = scene
        .mesh()
        .vertex_parts()
        .iter()
        .map(|&p| {
            let mut r = vec![0.0; 2];
            r[p] = 1.0;
            r
        })
        .collect();
    Weights::from_rows(&rows, 2).unwrap()
}

/// The bar (upper limb U = [0, 100] x [-r, r], r = 20, lower limb [100, 200] x [-r, r], joint
/// P = (100, 0)) with each limb rigid and the lower one turned by θ in (180, 360) degrees
/// about P. With φ = θ - 180 the lower limb L' lies back over U, turned by φ about the middle
/// P of U's end.
///
/// Exact covered-more-than-once area. Both limbs are half-strips of half-width r starting at
/// the line through P perpendicular to them. Their intersection near P is a kite: vertices P,
/// the two points at distance r from P where each limb's end line meets the other limb's
/// side (right angles there), and the far crossing of the two sides at distance
/// r / sin(φ/2) from P. The angle of the kite at P is 180 - φ, so its area is two right
/// triangles with legs r and r tan((180 - φ)/2):
///
/// ```text
/// area(U ∩ L') = r² cot(φ/2)        (θ = 225: 400 (1 + √2) = 965.69;  θ = 240: 400 √3 = 692.82)
/// ```
///
/// valid while the far vertex lies within both limbs' length 100 (φ > 2 asin(r/100) = 23
/// degrees). The triangles straddling the line x = 100 (corners on both limbs) become, as
/// the mesh gets finer, the fan `T± = (P, P ± r u, P ± r v)` with u = (0, 1), v = R_θ u
/// (the segments joining each end point of U to the rotated end point of the lower limb).
/// `T-` lies inside the kite and `T+` outside both limbs, so the area where the upper and
/// the lower layer (parts) both cover is exactly the kite's.
///
/// The mesh is not cut along x = 100: U's triangles end up to an edge length h short of it
/// and so do the lower limb's, and the fan reaches only from one ragged end to the other.
/// Two strips of width about h/2 along the kite's two sides at P are covered by one layer
/// only, so the pair's area is below the kite's by about r h: measured -1.2 % at 50 000
/// vertices (h = 0.43 px) and -0.4 % to -0.7 % at 200 000 (h = 0.21 px), inside 1 %.
///
/// The total interpenetrating area also counts the upper layer covering itself: T- (inside
/// the kite, so adding nothing) and the folds of the straddling triangles, slivers from one
/// rigid limb to the other that overlap their neighbours. Their area does not vanish as the
/// mesh gets finer (more, thinner slivers): 14-28 px² over the kite at 225-250 degrees and
/// 50 000 to 200 000 vertices. Rigid limbs joined by one row of triangles fold there; that
/// is what a blended joint avoids.
///
/// Crossings: of the limbs' outlines only the two far sides cross, once, at the kite's far
/// vertex (100 - r cot(φ/2), -r). The discrete fan's long edges meet the rotated end at a
/// shallow angle near their tips `P ± r v` and may cross a few of its edges there; those are
/// reported too, and are checked to lie within 3 px of a tip. (A crossing exactly through a
/// vertex, as at θ = 270 where the sides cross at the mesh vertex (80, -20), is not a proper
/// crossing of any edge pair and is not counted; the area still is.)
#[test]
fn the_bar_bent_past_180_degrees_covers_the_exact_kite_once_more() {
    let scene = bar(200_000);
    let w = rigid_weights(&scene);
    let contour = Interpenetration::for_scene(&scene).unwrap();
    assert!(contour.rest_overlaps().is_empty());
    let r = 20.0f64;
    for theta in [225.0f64, 240.0, 250.0] {
        let phi = (theta - 180.0).to_radians();
        let far = Point2::new(100.0 - r / (phi / 2.0).tan(), -r);
        let exact = r * r / (phi / 2.0).tan();
        let posed = posed_positions(&scene, &w, &Pose::rest().rotate("lower", theta)).unwrap();
        let report = contour.measure(&posed).unwrap();
        // Upper and lower limbs are the two layers.
        let pair = report
            .pairs
            .iter()
            .find(|p| p.layers == ["upper".to_string(), "lower".to_string()])
            .unwrap();
        let err = (pair.area - exact).abs() / exact;
        println!(
            "bar at {theta}: upper|lower {:.3} px² (exact {exact:.3}, error {:.3}%), total {:.3} px², {} self + {} layer crossings",
            pair.area,
            err * 100.0,
            report.area_px2,
            report.self_crossings,
            report.layer_crossings
        );
        assert!(err < 0.01, "θ = {theta}: {} vs {exact}", pair.area);
        assert!(report.area_px2 >= pair.area && report.area_px2 < exact + 40.0);
        let crossings = contour.crossings(&posed).unwrap();
        assert_eq!(crossings.len(), report.crossings());
        let rot = Rotation2::new(theta.to_radians());
        let joint = Point2::new(100.0, 0.0);
        let tips = [1.0, -1.0].map(|s| joint + rot * nalgebra::Vector2::new(0.0, s * r));
        let at = |c: &skinweights::metrics::EdgeCrossing| Point2::new(c.point[0], c.point[1]);
        let far_ones: Vec<_> = crossings
            .iter()
            .filter(|c| tips.iter().all(|t| (at(c) - t).norm() > 3.0))
            .collect();
        assert_eq!(far_ones.len(), 1, "θ = {theta}: {far_ones:?}");
        assert!((at(far_ones[0]) - far).norm() < 1e-6, "{:?}", far_ones[0]);
        assert_eq!(
            far_ones[0].layers,
            ["upper".to_string(), "lower".to_string()]
        );
    }
}

#[test]
fn every_builtin_scene_is_clean_at_rest() {
    for name in BUILTIN_SCENES {
        let scene = builtin_scene(name, &BuiltinOptions::default().with_vertices(3000)).unwrap();
        let contour = Interpenetration::for_scene(&scene).unwrap();
        let report = contour.measure(scene.mesh().vertices()).unwrap();
        assert!(report.is_clean(), "{name}: {report:?}");
        // Only the layered character is drawn overlapping on purpose (arms over the torso
        // at the shoulders); the welded meshes and the touching elbow layers do not overlap.
        let overlaps = contour.rest_overlaps();
        if *name == "layered-arms" {
            assert!(!overlaps.is_empty(), "{name}");
        } else {
            assert!(overlaps.is_empty(), "{name}: {overlaps:?}");
        }
        // And the recommended weights skin the rest pose onto itself: still 0.
        let w = skinweights::solvers::solve(&scene, "linear").unwrap();
        let posed = posed_positions(&scene, &w, &Pose::rest()).unwrap();
        assert!(contour.measure(&posed).unwrap().is_clean(), "{name}");
    }
}

#[test]
fn lint_has_an_interpenetration_row_per_probe() {
    let scene = bar(3000);
    let w = skinweights::solvers::solve(&scene, "linear").unwrap();
    let checks = lint(&scene, &w, &LintOptions::default()).unwrap();
    let row = checks
        .iter()
        .find(|c| c.check == "interpenetration \"bend\"")
        .expect("an interpenetration row for the bar's probe");
    // The bar's probe bends 90 degrees: with the seed's ramp, LBS folds the joint's inner
    // side back onto itself (the top edge's posed curve retraces itself: the points at ramp
    // weights w and 1 - w land on the same spot), so material covers twice there although
    // no two boundary edges properly cross.
    assert!(!row.pass, "{row:?}");
    assert_eq!(
        row.values["self_crossings"] + row.values["layer_crossings"],
        0.0
    );
    assert!(row.values["area_px2"] > 10.0, "{row:?}");
    // At rest the same row passes.
    let mut probes = scene.probes().to_vec();
    probes[0].pose = Pose::rest();
    let rest = scene.clone().with_probes(probes).unwrap();
    let checks = lint(&rest, &w, &LintOptions::default()).unwrap();
    let row = checks
        .iter()
        .find(|c| c.check.starts_with("interpenetration"))
        .unwrap();
    assert!(row.pass && row.values["area_px2"] == 0.0, "{row:?}");
    // Bent to 250 degrees the lower limb lies over the upper one: edges cross.
    let mut probes = scene.probes().to_vec();
    probes[0].pose = Pose::rest().rotate("lower", 250.0);
    let bent = scene.clone().with_probes(probes).unwrap();
    let checks = lint(&bent, &w, &LintOptions::default()).unwrap();
    let row = checks
        .iter()
        .find(|c| c.check.starts_with("interpenetration"))
        .unwrap();
    assert!(!row.pass, "{row:?}");
    assert!(row.values["area_px2"] > 100.0, "{row:?}");
    assert!(row.values["self_crossings"] + row.values["layer_crossings"] > 0.0);
    #[cfg(feature = "io")]
    {
        let json = serde_json::to_string(row).unwrap();
        assert!(
            json.contains("\"values\":{") && json.contains("\"area_px2\""),
            "{json}"
        );
    }
}

#[cfg(feature = "cli")]
#[test]
fn sprites_report_interpenetration_at_their_probes() {
    use skinweights::io::{sprite_scene, BonesFile, Sprite, SpriteOptions};
    use std::path::Path;
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/kenney-toon");
    for stem in ["femaleAdventurer_idle", "malePerson_idle", "robot_idle"] {
        let sprite = Sprite::load(data.join(format!("{stem}.png"))).unwrap();
        let bones = BonesFile::load(data.join(format!("{stem}_bones.json"))).unwrap();
        let mut options = SpriteOptions::default();
        options.meshing.target_vertices = 3000;
        let (scene, _, _) = sprite_scene(&sprite, bones, &options).unwrap();
        let contour = Interpenetration::for_scene(&scene).unwrap();
        assert!(
            contour.measure(scene.mesh().vertices()).unwrap().is_clean(),
            "{stem}"
        );
        let w = skinweights::solvers::solve(&scene, "heat").unwrap();
        assert!(!scene.probes().is_empty());
        for probe in scene.probes() {
            let posed = posed_positions(&scene, &w, &probe.pose).unwrap();
            let r = contour.measure(&posed).unwrap();
            println!(
                "{stem} {}: {} self + {} layer crossings, area {:.2} px² ({:.3}%), rest overlaps {:?}",
                probe.name,
                r.self_crossings,
                r.layer_crossings,
                r.area_px2,
                r.area_pct,
                contour.rest_overlaps()
            );
            assert!(r.area_px2.is_finite() && r.area_px2 >= 0.0);
            // The lint row reports the same numbers.
            let checks = lint(&scene, &w, &LintOptions::default()).unwrap();
            let row = checks
                .iter()
                .find(|c| c.check == format!("interpenetration {:?}", probe.name))
                .unwrap();
            assert_eq!(row.values["area_px2"], r.area_px2);
            assert_eq!(row.pass, r.is_clean());
        }
        // The arm swung all the way round over the torso interpenetrates.
        let posed =
            posed_positions(&scene, &w, &Pose::rest().rotate("upper_arm_l", 200.0)).unwrap();
        let r = contour.measure(&posed).unwrap();
        assert!(r.area_px2 > 10.0 && r.crossings() > 0, "{stem}: {r:?}");
    }
}
