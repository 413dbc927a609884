use super::*;
use crate::error::SkeletonError;

fn close(a: &Affine2, b: &Affine2, tol: f64) -> bool {
    a.max_difference(b) <= tol
}

#[test]
fn from_local_places_heads_and_tails() {
    let sk = Skeleton::from_local(vec![
        LocalBone {
            name: "root".into(),
            parent: None,
            local: LocalTransform::new(10.0, 5.0, 90.0).with_scale(2.0, 1.0),
            length: 3.0,
        },
        LocalBone {
            name: "child".into(),
            parent: Some(0),
            local: LocalTransform::new(4.0, 0.0, 0.0),
            length: 1.0,
        },
        LocalBone {
            name: "ctrl".into(),
            parent: Some(1),
            local: LocalTransform::new(1.0, 1.0, 30.0),
            length: 0.0,
        },
    ])
    .unwrap();
    let b = sk.bones();
    // Root x axis points up with length 2: the tail is 6 above the head.
    assert!((b[0].head - Point2::new(10.0, 5.0)).norm() < 1e-12);
    assert!((b[0].tail - Point2::new(10.0, 11.0)).norm() < 1e-12);
    // Child at local (4, 0): 8 up in world (scaled), its length 1 scaled to 2.
    assert!((b[1].head - Point2::new(10.0, 13.0)).norm() < 1e-12);
    assert!((b[1].tail - Point2::new(10.0, 15.0)).norm() < 1e-12);
    // A zero-length control bone: head == tail, local (1, 1) -> world (-1, 2) from child.
    assert_eq!(b[2].head, b[2].tail);
    assert!((b[2].head - Point2::new(9.0, 15.0)).norm() < 1e-12);
    // Rest skinning transforms are the identity.
    let s = sk.skinning_affines(&Pose::rest()).unwrap();
    for m in &s {
        assert!(close(m, &Affine2::IDENTITY, 1e-12), "{m:?}");
    }
}

#[test]
fn inherit_modes_follow_their_definitions() {
    // Parent rotated 90 and scaled (2, 3); child local rotation 0, at (1, 0).
    let parent = LocalTransform::new(0.0, 0.0, 90.0).with_scale(2.0, 3.0);
    let mk = |inherit| {
        Skeleton::from_local(vec![
            LocalBone {
                name: "p".into(),
                parent: None,
                local: parent,
                length: 1.0,
            },
            LocalBone {
                name: "c".into(),
                parent: Some(0),
                local: LocalTransform::new(1.0, 0.0, 0.0).with_inherit(inherit),
                length: 1.0,
            },
        ])
        .unwrap()
    };
    let expect = [
        (Inherit::Normal, [0.0, -3.0, 2.0, 0.0]),
        (Inherit::OnlyTranslation, [1.0, 0.0, 0.0, 1.0]),
        // The parent's scale stays on its own (rotated) axes: 2 along world y, 3 along x.
        (Inherit::NoRotationOrReflection, [3.0, 0.0, 0.0, 2.0]),
        (Inherit::NoScale, [0.0, -1.0, 1.0, 0.0]),
        (Inherit::NoScaleOrReflection, [0.0, -1.0, 1.0, 0.0]),
        (Inherit::ParentAngleOnly, [0.0, -1.0, 1.0, 0.0]),
    ];
    for (mode, lin) in expect {
        let w = mk(mode).world_affines(&Pose::rest()).unwrap()[1];
        let got = [w.a, w.b, w.c, w.d];
        for (g, e) in got.iter().zip(lin) {
            assert!((g - e).abs() < 1e-12, "{mode:?}: {got:?} vs {lin:?}");
        }
        // Translation is always inherited: (1, 0) in the parent frame is (0, 2).
        assert!((w.tx - 0.0).abs() < 1e-12 && (w.ty - 2.0).abs() < 1e-12);
    }
    // A reflected parent: noScale keeps the flip, noScaleOrReflection drops it.
    let flipped = LocalTransform::new(0.0, 0.0, 0.0).with_scale(-2.0, 1.0);
    let p = Affine2::new(-2.0, 0.0, 0.0, 1.0, 0.0, 0.0);
    assert_eq!(flipped.matrix().max_difference(&p), 0.0);
    let l = LocalTransform::new(0.0, 0.0, 0.0);
    let ns = Inherit::NoScale.compose(&p, &l);
    assert!(ns.determinant() < 0.0);
    let nsr = Inherit::NoScaleOrReflection.compose(&p, &l);
    assert!((nsr.determinant() - 1.0).abs() < 1e-12);
    let nrr = Inherit::NoRotationOrReflection.compose(&p, &l);
    assert!(nrr.determinant() > 0.0 && (nrr.determinant() - 2.0).abs() < 1e-12);
    // Under a non-uniformly scaled parent (2 along x) a bone turned 45 degrees: DragonBones'
    // inheritScale false adds the parent's angle (0) to 45; Spine's noScaleOrReflection turns
    // the direction through the parent, (2, 1), at atan(1/2) = 26.57 degrees.
    let p = Affine2::new(2.0, 0.0, 0.0, 1.0, 0.0, 0.0);
    let l = LocalTransform::new(0.0, 0.0, 45.0);
    let angle = |m: Affine2| m.c.atan2(m.a).to_degrees();
    let dragonbones = Inherit::ParentAngleOnly.compose(&p, &l);
    assert!((angle(dragonbones) - 45.0).abs() < 1e-12);
    assert!((dragonbones.determinant() - 1.0).abs() < 1e-12);
    let spine = Inherit::NoScaleOrReflection.compose(&p, &l);
    assert!((angle(spine) - 0.5f64.atan().to_degrees()).abs() < 1e-12);
    assert_eq!(Inherit::from_spine_name("parentAngleOnly"), None);
    assert_eq!(
        Inherit::from_scene_name("parentAngleOnly"),
        Some(Inherit::ParentAngleOnly)
    );
}

#[test]
fn hostile_local_bones_are_typed_errors() {
    let one = |local: LocalTransform, length: f64| {
        Skeleton::from_local(vec![LocalBone {
            name: "b".into(),
            parent: None,
            local,
            length,
        }])
    };
    assert!(matches!(
        one(LocalTransform::default().with_scale(0.0, 1.0), 1.0),
        Err(Error::Skeleton(SkeletonError::SingularTransform { ref context, .. })) if context.contains("\"b\"")
    ));
    assert!(matches!(
        one(LocalTransform::new(f64::NAN, 0.0, 0.0), 1.0),
        Err(Error::Skeleton(SkeletonError::NonFiniteBone {
            field: "local.x",
            ..
        }))
    ));
    assert!(matches!(
        one(LocalTransform::default(), f64::INFINITY),
        Err(Error::Skeleton(SkeletonError::NonFiniteBone {
            field: "length",
            ..
        }))
    ));
    assert!(matches!(
        one(LocalTransform::default(), -1.0),
        Err(Error::Skeleton(SkeletonError::NegativeBoneLength { .. }))
    ));
    // 1e308 scales overflow down a chain.
    let big = LocalTransform::new(1.0, 0.0, 0.0).with_scale(1e308, 1e308);
    let r = Skeleton::from_local(vec![
        LocalBone {
            name: "a".into(),
            parent: None,
            local: big,
            length: 1.0,
        },
        LocalBone {
            name: "b".into(),
            parent: Some(0),
            local: big,
            length: 1.0,
        },
    ]);
    assert!(
        matches!(r, Err(Error::Skeleton(SkeletonError::TransformOverflow { ref bone })) if bone == "b"),
        "{r:?}"
    );
    // A pose that overflows is an error too.
    let sk = one(LocalTransform::default(), 1.0).unwrap();
    let chain = Skeleton::new(vec![
        Bone::new("a", Point2::new(0.0, 0.0), Point2::new(1.0, 0.0)),
        Bone::new("c", Point2::new(1.0, 0.0), Point2::new(2.0, 0.0)).with_parent(0),
    ])
    .unwrap();
    let p = Pose::rest()
        .scale("a", Vector2::new(1e308, 1e308))
        .scale("c", Vector2::new(1e308, 1e308));
    assert!(matches!(
        chain.world_affines(&p),
        Err(Error::Skeleton(SkeletonError::TransformOverflow { ref bone })) if bone == "c"
    ));
    assert!(matches!(
        sk.world_affines(&Pose::rest().scale("b", Vector2::new(f64::NAN, 1.0))),
        Err(Error::Skeleton(SkeletonError::NonFinitePose {
            field: "scale",
            ..
        }))
    ));
}

#[test]
fn pose_scale_and_shear_apply_in_the_bone_frame() {
    let sk = Skeleton::new(vec![
        Bone::new("a", Point2::new(1.0, 1.0), Point2::new(1.0, 3.0)),
        Bone::new("b", Point2::new(1.0, 3.0), Point2::new(1.0, 5.0)).with_parent(0),
    ])
    .unwrap();
    // Scaling `a` by 2 along its axis (world y) stretches a and moves b's head to (1, 5).
    let pose = Pose::rest().scale("a", Vector2::new(2.0, 1.0));
    let seg = sk.posed_segments(&pose).unwrap();
    assert!((seg[0][1] - Point2::new(1.0, 5.0)).norm() < 1e-12);
    assert!((seg[1][0] - Point2::new(1.0, 5.0)).norm() < 1e-12);
    assert!((seg[1][1] - Point2::new(1.0, 9.0)).norm() < 1e-12);
    // Rigid skeletons: the affine path equals the isometry path.
    let pose = Pose::rest()
        .rotate("a", 33.0)
        .rotate("b", -71.0)
        .translate("b", Vector2::new(0.5, -0.25));
    let iso = sk.world_transforms(&pose).unwrap();
    let aff = sk.world_affines(&pose).unwrap();
    for (i, a) in iso.iter().zip(&aff) {
        assert!(close(&Affine2::from_isometry(i), a, 1e-12));
    }
}

#[test]
fn rigid_child_of_a_scaled_local_parent_follows_it() {
    let sk = Skeleton::from_local(vec![LocalBone {
        name: "p".into(),
        parent: None,
        local: LocalTransform::new(0.0, 0.0, 0.0).with_scale(2.0, 1.0),
        length: 5.0,
    }])
    .unwrap();
    let mut bones = sk.bones().to_vec();
    bones.push(Bone::new("r", Point2::new(10.0, 0.0), Point2::new(10.0, 2.0)).with_parent(0));
    let sk = Skeleton::new(bones).unwrap();
    let rest = sk.skinning_affines(&Pose::rest()).unwrap();
    assert!(close(&rest[1], &Affine2::IDENTITY, 1e-12));
    // Rotating the parent 90 degrees carries the rigid child's head (10, 0) to (0, 10).
    let seg = sk.posed_segments(&Pose::rest().rotate("p", 90.0)).unwrap();
    assert!(
        (seg[1][0] - Point2::new(0.0, 10.0)).norm() < 1e-12,
        "{seg:?}"
    );
    assert!(
        (seg[1][1] - Point2::new(-2.0, 10.0)).norm() < 1e-12,
        "{seg:?}"
    );
}

#[test]
fn local_head_must_match() {
    let sk = Skeleton::from_local(vec![LocalBone {
        name: "p".into(),
        parent: None,
        local: LocalTransform::new(3.0, 4.0, 0.0),
        length: 5.0,
    }])
    .unwrap();
    let mut bones = sk.bones().to_vec();
    bones[0].head = Point2::new(0.0, 0.0);
    assert!(matches!(
        Skeleton::new(bones),
        Err(Error::Skeleton(SkeletonError::LocalHeadMismatch { .. }))
    ));
}
