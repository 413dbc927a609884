//! The affine bone model: on rigid skeletons it equals the isometry path; local (Spine-style)
//! skeletons round-trip through the scene file (version 3) and skin with W(pose) W(rest)^-1.

use crate::common;

use common::{small_scene, Rng};
use nalgebra::{Point2, Vector2};
use skinweights::io::{scene_from_json, scene_to_json};
use skinweights::scene::BUILTIN_SCENES;
use skinweights::skinning::{lbs_with_transforms, linear_blend_skinning};
use skinweights::{
    scene::Scene, skeleton::Affine2, skeleton::Bone, skeleton::Inherit, skeleton::LocalBone,
    skeleton::LocalTransform, skeleton::Pose, skeleton::Skeleton,
};

fn random_pose(sk: &Skeleton, rng: &mut Rng) -> Pose {
    let mut pose = Pose::rest();
    for b in sk.bones() {
        if rng.unit() < 0.7 {
            pose = pose.rotate(b.name.clone(), rng.range(-180.0, 180.0));
        }
        if rng.unit() < 0.3 {
            pose = pose.translate(
                b.name.clone(),
                Vector2::new(rng.range(-20.0, 20.0), rng.range(-20.0, 20.0)),
            );
        }
    }
    pose
}

#[test]
fn world_affines_equal_world_transforms_on_every_builtin_scene() {
    let mut rng = Rng(0x5eed_a1f1);
    let mut checked = 0;
    for name in BUILTIN_SCENES {
        let scene = small_scene(name);
        let sk = scene.skeleton();
        assert!(!sk.has_local_transforms());
        for _ in 0..20 {
            let pose = random_pose(sk, &mut rng);
            let iso = sk.world_transforms(&pose).unwrap();
            let aff = sk.world_affines(&pose).unwrap();
            for (i, a) in iso.iter().zip(&aff) {
                let d = Affine2::from_isometry(i).max_difference(a);
                assert!(d <= 1e-12, "{name}: {d:e}");
            }
            // LBS through the affine path equals LBS through the isometry path.
            let w = uniform_nearest(&scene);
            let a = linear_blend_skinning(scene.mesh().vertices(), sk, &w, &pose).unwrap();
            let b = lbs_with_transforms(
                scene.mesh().vertices(),
                &w,
                &sk.skinning_transforms(&pose).unwrap(),
            )
            .unwrap();
            let d = a
                .iter()
                .zip(&b)
                .map(|(p, q)| (p - q).norm())
                .fold(0.0, f64::max);
            assert!(d <= 1e-12, "{name}: LBS differs by {d:e}");
            checked += 1;
        }
    }
    assert_eq!(checked, 20 * BUILTIN_SCENES.len());
}

/// Each vertex split between its two nearest bones (so every vertex blends).
fn uniform_nearest(scene: &Scene) -> skinweights::weights::Weights {
    let sk = scene.skeleton();
    let rows: Vec<Vec<f64>> = scene
        .mesh()
        .vertices()
        .iter()
        .map(|p| {
            let mut d: Vec<(f64, usize)> = sk
                .bones()
                .iter()
                .enumerate()
                .map(|(j, b)| (b.segment().distance(p), j))
                .collect();
            d.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut row = vec![0.0; sk.len()];
            row[d[0].1] += 0.6;
            row[d.get(1).unwrap_or(&d[0]).1] += 0.4;
            row
        })
        .collect();
    skinweights::weights::Weights::from_rows(&rows, sk.len()).unwrap()
}

fn spine_like() -> Skeleton {
    let l = |name: &str, parent, local, length| LocalBone {
        name: name.into(),
        parent,
        local,
        length,
    };
    Skeleton::from_local(vec![
        l("root", None, LocalTransform::new(0.0, 0.0, 0.0), 0.0),
        l(
            "hip",
            Some(0),
            LocalTransform::new(10.0, 50.0, 90.0).with_scale(1.5, 0.8),
            40.0,
        ),
        l(
            "arm",
            Some(1),
            LocalTransform::new(40.0, 0.0, -30.0).with_shear(10.0, -5.0),
            30.0,
        ),
        l(
            "hat",
            Some(1),
            LocalTransform::new(45.0, 5.0, 15.0).with_inherit(Inherit::NoScale),
            10.0,
        ),
        l(
            "badge",
            Some(2),
            LocalTransform::new(10.0, 3.0, 0.0).with_inherit(Inherit::OnlyTranslation),
            5.0,
        ),
        l(
            "ik_target",
            Some(0),
            LocalTransform::new(60.0, 20.0, 0.0).with_inherit(Inherit::NoRotationOrReflection),
            0.0,
        ),
        l(
            "cape",
            Some(1),
            LocalTransform::new(0.0, -5.0, 180.0)
                .with_scale(-1.0, 1.0)
                .with_inherit(Inherit::NoScaleOrReflection),
            20.0,
        ),
    ])
    .unwrap()
}

#[test]
fn local_skeleton_round_trips_through_scene_v3_and_skins_affinely() {
    let sk = spine_like();
    // A mesh around the bones: a grid from (-40, -20) to (80, 140).
    let (nx, ny) = (7, 9);
    let mut pts = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            pts.push(Point2::new(
                -40.0 + 120.0 * i as f64 / (nx - 1) as f64,
                -20.0 + 160.0 * j as f64 / (ny - 1) as f64,
            ));
        }
    }
    let mut tris = Vec::new();
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let a = j * nx + i;
            tris.push([a, a + 1, a + nx + 1]);
            tris.push([a, a + nx + 1, a + nx]);
        }
    }
    let mesh = skinweights::mesh::Mesh::new(pts, tris).unwrap();
    let scene = Scene::from_mesh(mesh, sk.clone()).unwrap();
    let text = scene_to_json(&scene, None).unwrap();
    assert!(text.contains("\"skinweights.scene/3\""));
    assert!(text.contains("\"noScale\""));
    let (back, _) = scene_from_json(&text, None).unwrap();
    assert_eq!(back.skeleton(), &sk);
    // Rest skinning is the identity; a pose moves vertices by W(pose) W(rest)^-1.
    let w = uniform_nearest(&scene);
    let rest = linear_blend_skinning(scene.mesh().vertices(), &sk, &w, &Pose::rest()).unwrap();
    for (p, q) in rest.iter().zip(scene.mesh().vertices()) {
        assert!((p - q).norm() < 1e-9);
    }
    let pose = Pose::rest()
        .rotate("hip", 25.0)
        .scale("arm", Vector2::new(1.3, 0.7))
        .shear("arm", Vector2::new(5.0, 0.0))
        .translate("hat", Vector2::new(2.0, -1.0));
    let posed = linear_blend_skinning(scene.mesh().vertices(), &sk, &w, &pose).unwrap();
    let world = sk.world_affines(&pose).unwrap();
    let rest_w = sk.rest_affines();
    for (v, (p, row)) in scene
        .mesh()
        .vertices()
        .iter()
        .zip(posed.iter().zip(w.rows()))
    {
        let mut expect = Vector2::zeros();
        for (j, &wj) in row.iter().enumerate() {
            if wj > 0.0 {
                let s = world[j] * rest_w[j].inverse().unwrap();
                expect += wj * s.apply(*v).coords;
            }
        }
        assert!((p.coords - expect).norm() < 1e-9);
    }
    // Version 1 and 2 files still read; a /1 file with "local" is refused.
    let v1 = text.replace("skinweights.scene/3", "skinweights.scene/1");
    assert!(scene_from_json(&v1, None).is_err());
}

#[test]
fn rigid_scene_files_stay_version_1() {
    let scene = small_scene("arms-down");
    let text = scene_to_json(&scene, None).unwrap();
    assert!(text.contains("\"skinweights.scene/1\""));
    assert!(!text.contains("\"local\""));
    let _ = Bone::new("x", Point2::origin(), Point2::new(1.0, 0.0));
}
