//! Corrective shapes: the automatic corrective restores the bar's joint at 90 and 150
//! degrees (LBS: 71 % and 26 % of the rest width), bulges no more than 2 % of the width and
//! flips nothing, on the built-in bar and on a bar of other proportions at other angles, both
//! bend directions, linear and heat weights; hostile correctives and options are typed errors.

use nalgebra::{Point2, Rotation2, Vector2};
use skinweights::correctives::{
    auto_corrective, check_correctives, skin_with_correctives, AutoCorrectiveOptions, Corrective,
    CorrectiveKey, Interpolation,
};
use skinweights::metrics::flipped_triangles;
use skinweights::skinning::linear_blend_skinning;
use skinweights::{
    mesh::Mesh, scene::builtin_scene, scene::BuiltinOptions, scene::Scene, skeleton::Bone,
    skeleton::Pose, skeleton::Skeleton, weights::Weights, Error,
};
use skinweights::{CorrectiveError, SkeletonError, SolverError};

/// A straight two-bone bar along x: joint at (`joint`, 0), limbs of length `joint`, half
/// height `half`, and its joint's columns (rest vertex indices, top and bottom).
struct Bar {
    scene: Scene,
    joint: f64,
    half: f64,
    columns: Vec<[usize; 2]>,
}

/// The built-in bar (200 x 40, 3000 vertices) stretched by `sx` along and `sy` across.
fn bar(sx: f64, sy: f64) -> Bar {
    let base = builtin_scene("bar", &BuiltinOptions::default().with_vertices(3000)).unwrap();
    let v = base.mesh().vertices();
    // Each top boundary vertex (x, 20) with its mirror (x, -20): the bar's mesh is exactly
    // mirror symmetric.
    let columns: Vec<[usize; 2]> = (0..v.len())
        .filter(|&i| v[i].y == 20.0)
        .filter_map(|i| {
            (0..v.len())
                .find(|&j| v[j].y == -20.0 && v[j].x == v[i].x)
                .map(|j| [i, j])
        })
        .collect();
    let scene = if (sx, sy) == (1.0, 1.0) {
        base
    } else {
        let points = v.iter().map(|p| Point2::new(p.x * sx, p.y * sy)).collect();
        let mesh = Mesh::new(points, base.mesh().triangles().to_vec()).unwrap();
        let (j, e) = (100.0 * sx, 200.0 * sx);
        let skeleton = Skeleton::new(vec![
            Bone::new("upper", Point2::new(0.0, 0.0), Point2::new(j, 0.0)),
            Bone::new("lower", Point2::new(j, 0.0), Point2::new(e, 0.0)).with_parent(0),
        ])
        .unwrap();
        Scene::from_mesh(mesh, skeleton).unwrap()
    };
    Bar {
        scene,
        joint: 100.0 * sx,
        half: 20.0 * sy,
        columns,
    }
}

impl Bar {
    /// Narrowest and widest posed column over the rest width, over every column of the bar.
    fn widths(&self, posed: &[Point2<f64>]) -> (f64, f64) {
        self.columns
            .iter()
            .map(|&[a, b]| (posed[a] - posed[b]).norm() / (2.0 * self.half))
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), w| {
                (lo.min(w), hi.max(w))
            })
    }

    /// How far a point lies outside the ideal bent bar: the upper limb at rest, the lower
    /// limb turned rigidly by θ about the joint, and the round joint (the disc of the
    /// half-width about the joint), px.
    fn outside_ideal(&self, p: Point2<f64>, theta: f64) -> f64 {
        let rect = |q: Vector2<f64>| {
            // Distance from q (joint frame, limb along +x from 0 to its length) to the limb.
            let dx = (-q.x).max(q.x - self.joint).max(0.0);
            let dy = (q.y.abs() - self.half).max(0.0);
            dx.hypot(dy)
        };
        let q = p - Point2::new(self.joint, 0.0);
        let upper = rect(Vector2::new(-q.x, -q.y));
        let lower = rect(Rotation2::new(-theta.to_radians()) * q);
        let disc = (q.norm() - self.half).max(0.0);
        upper.min(lower).min(disc)
    }

    /// Narrowest and widest width, largest bulge over the width, flipped triangles of the
    /// bar bent by `theta` with LBS plus `c`, printed.
    fn measure(&self, w: &Weights, c: &[Corrective], theta: f64) -> (f64, f64, f64, usize) {
        let s = &self.scene;
        let pose = Pose::rest().rotate("lower", theta);
        let fixed = skin_with_correctives(s.mesh().vertices(), s.skeleton(), w, &pose, c).unwrap();
        let (lo, hi) = self.widths(&fixed);
        let bulge = fixed
            .iter()
            .map(|&p| self.outside_ideal(p, theta))
            .fold(0.0, f64::max)
            / (2.0 * self.half);
        let flipped = flipped_triangles(s.mesh(), &fixed);
        let lbs = linear_blend_skinning(s.mesh().vertices(), s.skeleton(), w, &pose).unwrap();
        println!(
            "{} x {}, θ = {theta}: corrective narrowest {lo:.4}, widest {hi:.4}, bulge {:.3}% of the width, {flipped} flipped; LBS narrowest {:.4}, {} flipped",
            2.0 * self.joint,
            2.0 * self.half,
            bulge * 100.0,
            self.widths(&lbs).0,
            flipped_triangles(s.mesh(), &lbs)
        );
        (lo, hi, bulge, flipped)
    }
}

/// The target: keys at 90 and 150 degrees on the built-in bar with the `linear`
/// ramp; each key restores every column to within 2 % of the rest width.
#[test]
fn the_automatic_corrective_restores_the_bar_at_90_and_150_degrees() {
    let bar = bar(1.0, 1.0);
    let scene = &bar.scene;
    let w = skinweights::solvers::solve(scene, "linear").unwrap();
    let auto = auto_corrective(
        scene,
        &w,
        "lower",
        &[90.0, 150.0],
        &AutoCorrectiveOptions::default(),
    )
    .unwrap();
    println!(
        "bends {:#?}, band {} vertices",
        auto.bends,
        auto.corrective.vertices.len()
    );
    assert_eq!(auto.half_width, bar.half);
    // Keys every 5 degrees up to 150; the reach is (1 + 2 %) h tan(θ/2): 20.4 px at 90
    // degrees, 76.1 px at 150.
    let key = |angle: f64| auto.bends.iter().find(|b| b.angle == angle).unwrap();
    assert_eq!(auto.bends.len(), 30);
    assert!((key(90.0).reach - 20.4).abs() < 1e-9, "{:?}", auto.bends);
    assert!((key(150.0).reach - 20.4 * 75f64.to_radians().tan()).abs() < 1e-9);
    assert!(auto.bends.iter().all(|b| !b.capped));
    let c = std::slice::from_ref(&auto.corrective);
    check_correctives(c, scene.skeleton(), scene.mesh().vertex_count()).unwrap();
    assert!(bar.columns.len() > 100, "{}", bar.columns.len());
    for theta in [90.0f64, 150.0] {
        let pose = Pose::rest().rotate("lower", theta);
        let lbs =
            linear_blend_skinning(scene.mesh().vertices(), scene.skeleton(), &w, &pose).unwrap();
        // LBS collapses to about cos(θ/2) at the equal-weight column.
        let lbs_lo = bar.widths(&lbs).0;
        assert!(
            (lbs_lo - (theta.to_radians() / 2.0).cos()).abs() < 0.03,
            "{lbs_lo}"
        );
        let (lo, hi, bulge, flipped) = bar.measure(&w, c, theta);
        assert!(lo >= 0.98 && hi <= 1.02, "θ = {theta}: {lo} .. {hi}");
        assert!(bulge <= 0.02, "θ = {theta}: bulge {bulge}");
        assert_eq!(flipped, 0, "θ = {theta}");
    }
    // Between the keys the linear blend keeps the joint open too.
    for theta in [3.0, 37.0, 97.0, 127.0, 147.5] {
        let (lo, hi, bulge, flipped) = bar.measure(&w, c, theta);
        assert!(lo > 0.98 && hi < 1.02, "θ = {theta}: {lo} .. {hi}");
        assert!(bulge <= 0.02, "θ = {theta}: bulge {bulge}");
        assert_eq!(flipped, 0, "θ = {theta}");
    }
    // At rest the corrective adds nothing.
    let rest = skin_with_correctives(
        scene.mesh().vertices(),
        scene.skeleton(),
        &w,
        &Pose::rest(),
        c,
    )
    .unwrap();
    assert!(rest
        .iter()
        .zip(scene.mesh().vertices())
        .all(|(a, b)| (a - b).norm() < 1e-9));
}

/// A case the fit was not tuned on: a 300 x 24 bar (limbs 150, half-width 12), keys at
/// angles of both signs up to 165 degrees, with the linear ramp and with heat weights (which
/// blend far from the joint): at each key every column within 2 %, bulge within 2 % of the
/// width, nothing flipped.
#[test]
fn the_automatic_corrective_meets_the_target_on_another_bar_both_ways() {
    let bar = bar(1.5, 0.6);
    let angles = [-165.0, -120.0, -60.0, 45.0, 100.0, 165.0];
    for solver in ["linear", "heat"] {
        let w = skinweights::solvers::solve(&bar.scene, solver).unwrap();
        let auto = auto_corrective(
            &bar.scene,
            &w,
            "lower",
            &angles,
            &AutoCorrectiveOptions::default(),
        )
        .unwrap();
        assert!((auto.half_width - 12.0).abs() < 1e-9, "{}", auto.half_width);
        let c = std::slice::from_ref(&auto.corrective);
        for theta in angles {
            let (lo, hi, bulge, flipped) = bar.measure(&w, c, theta);
            assert!(
                lo >= 0.98 && hi <= 1.02,
                "{solver} θ = {theta}: {lo} .. {hi}"
            );
            assert!(bulge <= 0.02, "{solver} θ = {theta}: bulge {bulge}");
            assert_eq!(flipped, 0, "{solver} θ = {theta}");
        }
    }
}

#[test]
fn hostile_correctives_are_typed_errors() {
    let scene = bar(1.0, 1.0).scene;
    let w = skinweights::solvers::solve(&scene, "linear").unwrap();
    let opts = AutoCorrectiveOptions::default();
    let fit = |joint: &str, angles: &[f64]| auto_corrective(&scene, &w, joint, angles, &opts);
    assert!(matches!(
        fit("lower", &[150.0, 90.0]),
        Err(Error::Corrective(CorrectiveError::CorrectiveAngleOrder {
            key: 1,
            ..
        }))
    ));
    assert!(matches!(
        fit("lower", &[90.0, 90.0]),
        Err(Error::Corrective(
            CorrectiveError::CorrectiveAngleOrder { .. }
        ))
    ));
    assert!(matches!(
        fit("lower", &[f64::NAN]),
        Err(Error::Corrective(CorrectiveError::NonFiniteCorrective {
            key: 0,
            ..
        }))
    ));
    assert!(matches!(
        fit("elbow", &[90.0]),
        Err(Error::Skeleton(SkeletonError::UnknownBone { .. }))
    ));
    assert!(matches!(
        fit("upper", &[90.0]),
        Err(Error::Corrective(CorrectiveError::NotAJoint { .. }))
    ));
    assert!(matches!(
        fit("lower", &[]),
        Err(Error::Corrective(CorrectiveError::EmptyCorrective { .. }))
    ));
    let option = |o: AutoCorrectiveOptions, angles: &[f64]| match auto_corrective(
        &scene, &w, "lower", angles, &o,
    ) {
        Err(Error::Solver(SolverError::InvalidOption { option, .. })) => option,
        other => panic!("{other:?}"),
    };
    let d = AutoCorrectiveOptions::default;
    assert_eq!(option(d().with_margin(f64::NAN), &[90.0]), "margin");
    assert_eq!(option(d().with_margin(0.0), &[90.0]), "margin");
    assert_eq!(option(d().with_margin(2.0), &[90.0]), "margin");
    assert_eq!(option(d().with_max_reach(-1.0), &[90.0]), "max_reach");
    assert_eq!(
        option(d().with_max_reach(f64::INFINITY), &[90.0]),
        "max_reach"
    );
    assert_eq!(option(d().with_key_step(Some(0.0)), &[90.0]), "key_step");
    assert_eq!(
        option(d().with_key_step(Some(f64::NAN)), &[90.0]),
        "key_step"
    );
    assert_eq!(option(d(), &[90.0, 180.0]), "angles");
    assert_eq!(option(d(), &[-200.0]), "angles");
    // A hand-made corrective with a NaN offset is refused before it moves anything.
    let bad = Corrective {
        joint: "lower".into(),
        vertices: vec![0, 1],
        keys: vec![CorrectiveKey {
            angle: 90.0,
            offsets: vec![Vector2::new(1.0, 0.0), Vector2::new(f64::NAN, 0.0)],
        }],
        interpolation: Interpolation::Linear,
    };
    let pose = Pose::rest().rotate("lower", 90.0);
    assert!(matches!(
        skin_with_correctives(scene.mesh().vertices(), scene.skeleton(), &w, &pose, &[bad]),
        Err(Error::Corrective(CorrectiveError::NonFiniteCorrective {
            key: 0,
            ..
        }))
    ));
}
