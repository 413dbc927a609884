//! Candy-wrapper remedies: the half-angle helper bone and 2D dual-quaternion skinning.

use nalgebra::Point2;
use skinweights::skinning::{dual_quaternion_skinning, linear_blend_skinning, HalfAngleHelper};
use skinweights::SkeletonError;
use skinweights::{skeleton::Bone, skeleton::Pose, skeleton::Skeleton, weights::Weights, Error};

/// A bar's joint region: pairs of vertices above and below the axis at x = 1, weighted
/// with child weight `c` for each c in `cs`.
fn joint_pairs(cs: &[f64]) -> (Skeleton, Vec<Point2<f64>>, Weights) {
    let skeleton = Skeleton::new(vec![
        Bone::new("parent", Point2::new(0.0, 0.0), Point2::new(1.0, 0.0)),
        Bone::new("child", Point2::new(1.0, 0.0), Point2::new(2.0, 0.0)).with_parent(0),
    ])
    .unwrap();
    let mut rest = Vec::new();
    let mut rows = Vec::new();
    for &c in cs {
        rest.push(Point2::new(1.0, 0.5));
        rest.push(Point2::new(1.0, -0.5));
        rows.push(vec![1.0 - c, c]);
        rows.push(vec![1.0 - c, c]);
    }
    (skeleton, rest, Weights::from_rows(&rows, 2).unwrap())
}

fn widths(posed: &[Point2<f64>]) -> Vec<f64> {
    posed.chunks(2).map(|p| (p[0] - p[1]).norm()).collect()
}

#[test]
fn helper_bone_limits_the_collapse_to_cos_quarter_angle() {
    let cs: Vec<f64> = (0..=40).map(|i| i as f64 / 40.0).collect();
    let (skeleton, rest, w) = joint_pairs(&cs);
    let (ext, ext_w, helper) = HalfAngleHelper::add(&skeleton, &w, "child").unwrap();
    ext_w.validate().unwrap();
    assert_eq!(ext.bones()[helper.helper].parent, Some(0));
    for theta in [0.0, 90.0, 120.0, 180.0] {
        let pose = Pose::rest().rotate("child", theta);
        let lbs = widths(&linear_blend_skinning(&rest, &skeleton, &w, &pose).unwrap());
        let min_lbs = lbs.iter().cloned().fold(f64::INFINITY, f64::min);
        let expected = (f64::to_radians(theta) / 2.0).cos();
        assert!(
            (min_lbs - expected).abs() < 1e-6,
            "LBS {theta}: {min_lbs} vs {expected}"
        );
        let helped =
            linear_blend_skinning(&rest, &ext, &ext_w, &helper.drive(&skeleton, &pose)).unwrap();
        let min_h = widths(&helped)
            .iter()
            .cloned()
            .fold(f64::INFINITY, f64::min);
        let expected = (f64::to_radians(theta) / 4.0).cos();
        assert!(
            (min_h - expected).abs() < 1e-6,
            "helper {theta}: {min_h} vs {expected}"
        );
    }
}

#[test]
fn dual_quaternions_keep_the_joint_width() {
    let cs: Vec<f64> = (0..=20).map(|i| i as f64 / 20.0).collect();
    let (skeleton, rest, w) = joint_pairs(&cs);
    for theta in [30.0, 90.0, 120.0, 170.0] {
        let pose = Pose::rest().rotate("child", theta);
        let dqs = widths(&dual_quaternion_skinning(&rest, &skeleton, &w, &pose).unwrap());
        for (c, width) in cs.iter().zip(&dqs) {
            assert!(
                (width - 1.0).abs() < 0.01,
                "theta {theta}, c {c}: width {width}"
            );
        }
    }
    // Rest pose is the identity, and a single bone is a rigid motion.
    let out = dual_quaternion_skinning(&rest, &skeleton, &w, &Pose::rest()).unwrap();
    assert!(out.iter().zip(&rest).all(|(a, b)| (a - b).norm() < 1e-12));
    let pose = Pose::rest().rotate("child", 90.0);
    let one = Weights::from_rows(&[vec![0.0, 1.0]], 2).unwrap();
    let p = dual_quaternion_skinning(&[Point2::new(2.0, 0.0)], &skeleton, &one, &pose).unwrap();
    assert!((p[0] - Point2::new(1.0, 1.0)).norm() < 1e-12, "{}", p[0]);
}

#[test]
fn helper_needs_a_joint() {
    let (skeleton, _, w) = joint_pairs(&[0.5]);
    match HalfAngleHelper::add(&skeleton, &w, "parent") {
        Err(Error::Skeleton(SkeletonError::HelperWithoutJoint { bone })) => {
            assert_eq!(bone, "parent")
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    match HalfAngleHelper::add(&skeleton, &w, "nope") {
        Err(Error::Skeleton(SkeletonError::UnknownBone { bone, .. })) => assert_eq!(bone, "nope"),
        other => panic!("{:?}", other.map(|_| ())),
    }
}
