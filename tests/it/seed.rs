//! The seed document's numeric facts, reproduced exactly.

use nalgebra::{Isometry2, Point2, Vector2};
use skinweights::skinning::{blend, blend_raw, lbs_with_transforms, linear_blend_skinning};
use skinweights::{
    mesh::Mesh, skeleton::Bone, skeleton::Pose, skeleton::Skeleton, weights::Weights,
};

fn close(a: Point2<f64>, b: Point2<f64>, tol: f64) -> bool {
    (a - b).norm() <= tol
}

#[test]
fn two_bone_example_blends_to_7_6() {
    // Parent puts the vertex at p = (10, 0), child at c = (6, 8); weights 0.25 / 0.75.
    let p = Point2::new(10.0, 0.0);
    let c = Point2::new(6.0, 8.0);
    let v = blend(&[(0.25, p), (0.75, c)]);
    assert!(close(v, Point2::new(7.0, 6.0), 1e-12), "{v}");
    assert!(close(
        blend_raw(&[(0.25, p), (0.75, c)]),
        Point2::new(7.0, 6.0),
        1e-12
    ));
}

#[test]
fn two_bone_example_through_the_full_skinning_path() {
    // Two bones at the origin; the vertex (10, 0) is rotated by the child's transform so that
    // it lands on (6, 8): the rotation by atan2(8, 6) - 0 keeps |v| = 10.
    let rest = [Point2::new(10.0, 0.0)];
    let angle = 8f64.atan2(6.0);
    let transforms = [
        Isometry2::identity(),
        Isometry2::new(Vector2::zeros(), angle),
    ];
    let w = Weights::from_rows(&[vec![0.25, 0.75]], 2).unwrap();
    let out = lbs_with_transforms(&rest, &w, &transforms).unwrap();
    assert!(close(out[0], Point2::new(7.0, 6.0), 1e-12), "{}", out[0]);
}

#[test]
fn weights_summing_to_085_shrink_toward_origin_and_normalizing_fixes_it() {
    let p = Point2::new(10.0, 0.0);
    let c = Point2::new(6.0, 8.0);
    let shrunk = blend_raw(&[(0.25, p), (0.60, c)]);
    assert!(close(shrunk, Point2::new(6.1, 4.8), 1e-12), "{shrunk}");
    // Normalized: the same direction, scaled back by 1 / 0.85.
    let fixed = blend(&[(0.25, p), (0.60, c)]);
    assert!(close(fixed, Point2::new(6.1 / 0.85, 4.8 / 0.85), 1e-12));
    assert!(shrunk.coords.norm() < fixed.coords.norm());
    let mut w = Weights::from_rows(&[vec![0.25, 0.60]], 2).unwrap();
    assert!((w.normalization_error() - 0.15).abs() < 1e-12);
    w.normalize();
    assert!(w.normalization_error() < 1e-15);
    assert!((w.get(0, 0) - 0.25 / 0.85).abs() < 1e-15);
}

/// Equal weights on two bones whose relative rotation is `theta` scale the cross-section by
/// cos(theta / 2): the candy-wrapper collapse.
fn joint_cross_section_scale(theta_deg: f64) -> f64 {
    // A bar along x: parent bone (0,0)->(1,0), child (1,0)->(2,0). Two vertices above and
    // below the joint, each weighted 0.5 / 0.5.
    let bones = vec![
        Bone::new("parent", Point2::new(0.0, 0.0), Point2::new(1.0, 0.0)),
        Bone::new("child", Point2::new(1.0, 0.0), Point2::new(2.0, 0.0)).with_parent(0),
    ];
    let skeleton = Skeleton::new(bones).unwrap();
    let rest = [Point2::new(1.0, 0.5), Point2::new(1.0, -0.5)];
    let w = Weights::from_rows(&[vec![0.5, 0.5], vec![0.5, 0.5]], 2).unwrap();
    let pose = Pose::rest().rotate("child", theta_deg);
    let out = linear_blend_skinning(&rest, &skeleton, &w, &pose).unwrap();
    (out[0] - out[1]).norm() / (rest[0] - rest[1]).norm()
}

#[test]
fn equal_weights_collapse_by_cos_half_angle() {
    for (theta, expected) in [
        (90.0, std::f64::consts::FRAC_1_SQRT_2),
        (120.0, 0.5),
        (180.0, 0.0),
    ] {
        let s = joint_cross_section_scale(theta);
        assert!(
            (s - expected).abs() < 1e-9,
            "theta {theta}: scale {s}, expected {expected}"
        );
        let analytic = (f64::to_radians(theta) / 2.0).cos();
        assert!((s - analytic).abs() < 1e-9);
    }
    // The seed's printed figures: 71% at 90 degrees, 50% at 120.
    assert_eq!(format!("{:.4}", joint_cross_section_scale(90.0)), "0.7071");
    assert!((joint_cross_section_scale(0.0) - 1.0).abs() < 1e-12);
}

#[test]
fn top_k_keeps_the_dominant_bone_listed_last() {
    // Four minor bones at 0.05 listed before a dominant one at 0.7 (sum 0.9: unnormalized,
    // as an exporter may hand it over).
    let row = vec![0.05, 0.05, 0.05, 0.05, 0.7];
    let w = Weights::from_rows(&[row], 5).unwrap();
    let sorted = w.top_k(4);
    // Sort, truncate to four, renormalize: 0.7 / (0.7 + 3 * 0.05).
    let dominant = 0.7 / 0.85;
    assert!(
        (sorted.get(0, 4) - dominant).abs() < 1e-15,
        "{:?}",
        sorted.row(0)
    );
    assert_eq!(sorted.influence_counts()[0], 4);
    assert!((sorted.row(0).iter().sum::<f64>() - 1.0).abs() < 1e-15);
    // The dropped bone is the last of the tied minor ones.
    assert_eq!(sorted.get(0, 3), 0.0);

    // What the truncation drops before renormalizing: one minor bone.
    assert_eq!(w.top_k_dropped(4), vec![0.05]);
    assert_eq!(w.top_k_dropped(5), vec![0.0]);

    // The bug: first four, then normalize: every kept bone gets 0.25, the dominant one 0.
    let naive = w.first_k_then_normalize(4);
    assert_eq!(naive.row(0), &[0.25, 0.25, 0.25, 0.25, 0.0]);
}

#[test]
fn top_k_leaves_rows_with_few_influences_alone() {
    let w = Weights::from_rows(&[vec![0.2, 0.0, 0.8], vec![1.0, 0.0, 0.0]], 3).unwrap();
    assert_eq!(w.top_k(4), w);
    assert_eq!(w.top_k(1).row(0), &[0.0, 0.0, 1.0]);
}

#[test]
fn lbs_clamps_negative_weights_and_divides_by_the_sum() {
    let rest = [Point2::new(1.0, 2.0)];
    let transforms = [
        Isometry2::translation(1.0, 0.0),
        Isometry2::translation(0.0, 10.0),
    ];
    let w = Weights::from_rows(&[vec![2.0, -1.0]], 2).unwrap();
    let out = lbs_with_transforms(&rest, &w, &transforms).unwrap();
    assert!(close(out[0], Point2::new(2.0, 2.0), 1e-12));
    // All-zero weights: divided by epsilon, the vertex goes to the origin (the seed's loop).
    let zero = Weights::from_rows(&[vec![0.0, 0.0]], 2).unwrap();
    let out = lbs_with_transforms(&rest, &zero, &transforms).unwrap();
    assert_eq!(out[0], Point2::origin());
}

#[test]
fn bind_pose_skinning_is_identity_for_any_weights() {
    let bones = vec![
        Bone::new("a", Point2::new(-3.0, 1.0), Point2::new(5.0, 7.0)),
        Bone::new("b", Point2::new(5.0, 7.0), Point2::new(9.0, -2.0)).with_parent(0),
        Bone::new("c", Point2::new(0.0, 0.0), Point2::new(0.0, 0.0)),
    ];
    let skeleton = Skeleton::new(bones).unwrap();
    let rest: Vec<Point2<f64>> = (0..50)
        .map(|i| Point2::new(i as f64 * 1.37 - 20.0, (i as f64 * 0.7).sin() * 30.0))
        .collect();
    let rows: Vec<Vec<f64>> = (0..50)
        .map(|i| {
            let a = (i % 7) as f64 + 1.0;
            let b = (i % 3) as f64;
            let c = (i % 5) as f64;
            let s = a + b + c;
            vec![a / s, b / s, c / s]
        })
        .collect();
    let w = Weights::from_rows(&rows, 3).unwrap();
    let out = linear_blend_skinning(&rest, &skeleton, &w, &Pose::rest()).unwrap();
    let max = rest
        .iter()
        .zip(&out)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    assert!(max < 1e-12, "bind pose moved a vertex by {max}");
}

#[test]
fn children_follow_their_parents_about_the_heads() {
    let bones = vec![
        Bone::new("upper", Point2::new(0.0, 0.0), Point2::new(10.0, 0.0)),
        Bone::new("lower", Point2::new(10.0, 0.0), Point2::new(20.0, 0.0)).with_parent(0),
    ];
    let skeleton = Skeleton::new(bones).unwrap();
    let pose = Pose::rest().rotate("upper", 90.0).rotate("lower", 90.0);
    let s = skeleton.skinning_transforms(&pose).unwrap();
    // The elbow (10,0) goes up to (0,10); the hand (20,0) goes to (-10,10).
    assert!(close(
        s[0] * Point2::new(10.0, 0.0),
        Point2::new(0.0, 10.0),
        1e-12
    ));
    assert!(close(
        s[1] * Point2::new(20.0, 0.0),
        Point2::new(-10.0, 10.0),
        1e-12
    ));
    assert!(close(
        s[1] * Point2::new(10.0, 0.0),
        Point2::new(0.0, 10.0),
        1e-12
    ));
    // Translations are in the parent's rest frame (world axes for a root).
    let pose = Pose::rest().translate("upper", Vector2::new(1.0, 2.0));
    let s = skeleton.skinning_transforms(&pose).unwrap();
    assert!(close(
        s[1] * Point2::new(20.0, 0.0),
        Point2::new(21.0, 2.0),
        1e-12
    ));
}

#[test]
fn mesh_sanity_on_a_hand_built_square() {
    let v = vec![
        Point2::new(0.0, 0.0),
        Point2::new(1.0, 0.0),
        Point2::new(1.0, 1.0),
        Point2::new(0.0, 1.0),
    ];
    let m = Mesh::new(v, vec![[0, 1, 2], [0, 2, 3]]).unwrap();
    m.sanity_check().unwrap();
    assert_eq!(m.topology().edges().len(), 5);
    assert_eq!(m.topology().boundary_edges().len(), 4);
    assert_eq!(m.topology().boundary_loops().len(), 1);
    assert_eq!(m.topology().component_count(), 1);
    assert_eq!(m.topology().neighbors(0), &[1, 2, 3]);
    assert!((m.area() - 1.0).abs() < 1e-15);
}
