//! The solvers' promised behaviour (issue 3): invariants on every built-in scene and solver,
//! pinning, mirror symmetry, geodesic vs Euclidean, masking, the seed's leakage story,
//! components, and awkward skeletons.

use nalgebra::Point2;
use skinweights::scene::{mirror_vertex_map, mirror_vertex_map_about, MirrorAxis, BUILTIN_SCENES};
use skinweights::solvers::allowed_parts;
use skinweights::solvers::{Heat, HeatOptions, SolverOptions};
use skinweights::SolverError;
use skinweights::{
    mesh::Mesh, scene::builtin_scene, scene::BuiltinOptions, scene::Scene, skeleton::Bone,
    skeleton::Skeleton, skinning::linear_blend_skinning, solvers::solver_by_name, solvers::Solver,
    weights::Weights, Error,
};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Every registry name the tests run.
const ALL: &[&str] = &[
    "linear",
    "euclidean",
    "geodesic",
    "heat",
    "mask",
    "linear+mask",
    "geodesic+mask",
    "heat+mask",
];

fn opts(vertices: usize) -> BuiltinOptions {
    BuiltinOptions::default()
        .with_gap(None)
        .with_vertices(vertices)
}

/// Built-in scenes at a test size, built once.
fn scene(name: &str) -> Scene {
    static CACHE: OnceLock<Mutex<HashMap<String, Scene>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(s) = cache.lock().unwrap().get(name) {
        return s.clone();
    }
    let s = builtin_scene(name, &opts(4000)).unwrap();
    cache.lock().unwrap().insert(name.to_string(), s.clone());
    s
}

fn weights(scene: &Scene, solver: &str) -> Weights {
    let solution = solver_by_name(solver, skinweights::solvers::NO_OPTIONS)
        .unwrap()
        .solve(scene)
        .unwrap();
    let expected = if solver == "mask" {
        "euclidean+mask"
    } else {
        solver
    };
    assert_eq!(solution.report.solver, expected);
    solution.weights
}

/// Checks what every solver promises.
fn assert_valid(w: &Weights, n: usize, nb: usize, what: &str) {
    assert_eq!((w.vertex_count(), w.bone_count()), (n, nb), "{what}: shape");
    for (v, row) in w.rows().enumerate() {
        let mut s = 0.0;
        for &x in row {
            assert!(
                x.is_finite() && x >= 0.0,
                "{what}: vertex {v} has weight {x}"
            );
            s += x;
        }
        assert!((s - 1.0).abs() <= 1e-9, "{what}: vertex {v} sums to {s}");
    }
}

#[test]
fn every_solver_on_every_builtin_scene_gives_valid_weights_and_top4_sorts_then_truncates() {
    for &name in BUILTIN_SCENES {
        let s = scene(name);
        let (n, nb) = (s.mesh().vertex_count(), s.skeleton().len());
        for &solver in ALL {
            let what = format!("{solver} on {name}");
            let w = weights(&s, solver);
            assert_valid(&w, n, nb, &what);
            let t = w.top_k(4);
            assert_valid(&t, n, nb, &format!("{what}, top 4"));
            for v in 0..n {
                let (orig, kept) = (w.row(v), t.row(v));
                assert!(
                    kept.iter().filter(|&&x| x != 0.0).count() <= 4,
                    "{what}: vertex {v}"
                );
                // Sort then truncate: every kept bone weighed at least as much as any dropped.
                let min_kept = (0..nb)
                    .filter(|&j| kept[j] > 0.0)
                    .map(|j| orig[j])
                    .fold(f64::INFINITY, f64::min);
                let max_dropped = (0..nb)
                    .filter(|&j| kept[j] == 0.0)
                    .map(|j| orig[j])
                    .fold(0.0, f64::max);
                assert!(
                    min_kept >= max_dropped,
                    "{what}: vertex {v} dropped a larger weight"
                );
            }
        }
    }
}

#[test]
fn a_vertex_on_a_bone_away_from_its_joints_belongs_to_that_bone() {
    for name in ["arms-down", "figure", "bar"] {
        let s = scene(name);
        let bones = s.skeleton().bones();
        // (vertex, bone) pairs: on the segment, at least 5% of the bone length from each end.
        let mut on_bone = Vec::new();
        for (v, p) in s.mesh().vertices().iter().enumerate() {
            for (j, b) in bones.iter().enumerate() {
                let seg = b.segment();
                let margin = 0.05 * b.length();
                if seg.distance(p) < 1e-9 * b.length()
                    && (p - b.head).norm() > margin
                    && (p - b.tail).norm() > margin
                {
                    on_bone.push((v, j));
                }
            }
        }
        assert!(
            on_bone.len() > 20,
            "{name}: only {} vertices on bones",
            on_bone.len()
        );
        for solver in ["euclidean", "geodesic", "heat"] {
            let w = weights(&s, solver);
            for &(v, j) in &on_bone {
                assert!(
                    w.get(v, j) > 0.99,
                    "{solver} on {name}: vertex {v} on bone {} has weight {}",
                    bones[j].name,
                    w.get(v, j)
                );
            }
        }
    }
}

/// Index of each bone's mirror image (`_l` <-> `_r`; others map to themselves).
fn bone_mirror(s: &Scene) -> Vec<usize> {
    s.skeleton()
        .bones()
        .iter()
        .map(|b| {
            let twin = if let Some(stem) = b.name.strip_suffix("_l") {
                format!("{stem}_r")
            } else if let Some(stem) = b.name.strip_suffix("_r") {
                format!("{stem}_l")
            } else {
                b.name.clone()
            };
            s.skeleton().index_of(&twin).unwrap()
        })
        .collect()
}

#[test]
fn weights_are_mirror_symmetric_for_every_solver() {
    for (name, axis) in [
        ("arms-down", MirrorAxis::X),
        ("arms-touching", MirrorAxis::X),
        ("layered-arms", MirrorAxis::X),
        ("figure", MirrorAxis::X),
        ("bar", MirrorAxis::Y),
    ] {
        let s = scene(name);
        let vm = mirror_vertex_map_about(s.mesh(), axis).expect("mesh is mirror-symmetric");
        let bm = bone_mirror(&s);
        for &solver in ALL {
            let w = weights(&s, solver);
            let mut worst = 0.0f64;
            for (v, &mv) in vm.iter().enumerate() {
                for (j, &mj) in bm.iter().enumerate() {
                    worst = worst.max((w.get(v, j) - w.get(mv, mj)).abs());
                }
            }
            eprintln!("{solver} on {name}: asymmetry {worst:e}");
            assert!(worst <= 1e-6, "{solver} on {name}: asymmetry {worst:e}");
        }
    }
    assert!(mirror_vertex_map(scene("arms-down").mesh()).is_some());
}

#[test]
fn mask_keeps_bones_in_their_allowed_parts() {
    for name in ["arms-down", "figure", "layered-arms"] {
        let s = scene(name);
        let allowed = allowed_parts(&s);
        for solver in ["mask", "linear+mask", "geodesic+mask", "heat+mask"] {
            let w = weights(&s, solver);
            for (v, &part) in s.mesh().vertex_parts().iter().enumerate() {
                for (j, allowed_j) in allowed.iter().enumerate() {
                    if !allowed_j[part] {
                        assert_eq!(w.get(v, j), 0.0, "{solver} on {name}: vertex {v} bone {j}");
                    }
                }
            }
        }
    }
    let s = scene("arms-down");
    let torso = s.mesh().part_index("torso").unwrap();
    let spine = s.skeleton().index_of("spine").unwrap();
    for solver in ["mask", "heat+mask"] {
        let w = weights(&s, solver);
        let mut count = 0;
        for (v, &part) in s.mesh().vertex_parts().iter().enumerate() {
            if part == torso {
                assert_eq!(w.get(v, spine), 1.0, "{solver}: torso vertex {v}");
                count += 1;
            }
        }
        assert!(count > 1000);
    }
    // Plain `mask` is `euclidean+mask`.
    assert_eq!(weights(&s, "mask"), weights(&s, "euclidean+mask"));
}

/// Largest displacement of the lift_l probe's watched vertices under LBS, as a fraction of
/// the character height. Watched vertices are torso vertices, whose own bone (spine) does not
/// move in this pose, so the displacement is measured from the rest position.
fn lift_l_drag(s: &Scene, w: &Weights) -> (f64, f64) {
    let probe = s.probe(Some("lift_l")).unwrap();
    let watched = probe.watched_vertices(s).unwrap();
    assert!(watched.len() > 200, "{} watched", watched.len());
    let posed = linear_blend_skinning(s.mesh().vertices(), s.skeleton(), w, &probe.pose).unwrap();
    let h = s.mesh().height();
    let d: Vec<f64> = watched
        .iter()
        .map(|&v| (posed[v] - s.mesh().vertices()[v]).norm() / h)
        .collect();
    (
        d.iter().copied().fold(0.0, f64::max),
        d.iter().sum::<f64>() / d.len() as f64,
    )
}

#[test]
fn lift_l_leakage_story() {
    let s = scene("arms-down");
    let (euclid, _) = lift_l_drag(&s, &weights(&s, "euclidean"));
    let (heat, _) = lift_l_drag(&s, &weights(&s, "heat"));
    let (masked, _) = lift_l_drag(&s, &weights(&s, "euclidean+mask"));
    eprintln!("lift_l drag max: euclidean {euclid:.4}, heat {heat:.4}, euclidean+mask {masked}");
    assert!(
        euclid > 0.20,
        "euclidean drags only {:.1}% of height",
        euclid * 100.0
    );
    assert!(heat < 0.02, "heat drags {:.2}% of height", heat * 100.0);
    assert_eq!(masked, 0.0, "euclidean+mask moves a watched vertex");
    // Without 2D visibility (a 3D tool on a flat mesh) heat hands torso to the arm.
    let blind_heat = Heat::new(HeatOptions::default().with_visibility(false))
        .solve(&s)
        .unwrap();
    let (no_vis, _) = lift_l_drag(&s, &blind_heat.weights);
    eprintln!("heat without visibility: {no_vis:.4}");
    assert!(
        no_vis > 5.0 * heat.max(1e-3),
        "heat without visibility drags {no_vis}"
    );
}

#[test]
fn layered_arms_every_component_gets_weights() {
    let s = scene("layered-arms");
    let topo = s.mesh().topology();
    assert!(topo.component_count() >= 3);
    for &solver in ALL {
        let sol = solver_by_name(solver, skinweights::solvers::NO_OPTIONS)
            .unwrap()
            .solve(&s)
            .unwrap();
        assert_valid(
            &sol.weights,
            s.mesh().vertex_count(),
            s.skeleton().len(),
            solver,
        );
        // Every bone sees its own layer: no fallback needed.
        assert!(
            sol.report.warnings.is_empty(),
            "{solver}: {:?}",
            sol.report.warnings
        );
    }
    // Each arm layer is driven by its own arm bones under heat.
    let w = weights(&s, "heat");
    let arm_l = s.mesh().part_index("arm_l").unwrap();
    let ua = s.skeleton().index_of("upper_arm_l").unwrap();
    let fa = s.skeleton().index_of("forearm_l").unwrap();
    for (v, &part) in s.mesh().vertex_parts().iter().enumerate() {
        if part == arm_l && s.mesh().vertices()[v].y < 170.0 {
            assert!(w.get(v, ua) + w.get(v, fa) > 0.9, "arm vertex {v}");
        }
    }
}

/// Two unit-ish squares 10 apart, each 2 triangles split into 8 for some interior.
fn two_squares() -> Mesh {
    let mut v = Vec::new();
    let mut t = Vec::new();
    for &ox in &[0.0, 20.0] {
        let b = v.len();
        for j in 0..3 {
            for i in 0..3 {
                v.push(Point2::new(ox + 5.0 * i as f64, 5.0 * j as f64));
            }
        }
        for j in 0..2 {
            for i in 0..2 {
                let a = b + j * 3 + i;
                t.push([a, a + 1, a + 4]);
                t.push([a, a + 4, a + 3]);
            }
        }
    }
    Mesh::new(v, t).unwrap()
}

fn scene_with(mesh: Mesh, bones: Vec<Bone>) -> Scene {
    Scene::new("test", mesh, Skeleton::new(bones).unwrap(), vec![]).unwrap()
}

#[test]
fn a_component_no_bone_can_see_falls_back_and_is_named() {
    // The bone lies inside the left square only; the right square (component 1) sees nothing.
    let s = scene_with(
        two_squares(),
        vec![
            Bone::new("a", Point2::new(2.0, 2.0), Point2::new(2.0, 8.0)),
            Bone::new("b", Point2::new(7.0, 2.0), Point2::new(8.0, 8.0)),
        ],
    );
    for solver in ["geodesic", "heat", "heat+mask"] {
        let sol = solver_by_name(solver, skinweights::solvers::NO_OPTIONS)
            .unwrap()
            .solve(&s)
            .unwrap();
        assert_valid(&sol.weights, 18, 2, solver);
        assert_eq!(
            sol.report.warnings.len(),
            1,
            "{solver}: {:?}",
            sol.report.warnings
        );
        assert!(
            sol.report.warnings[0].to_string().contains("component 1"),
            "{solver}"
        );
        assert_eq!(sol.report.warnings[0].kind(), "blind component", "{solver}");
        // Issue 47: the warning names the part, not only the component's number.
        let part = &s.mesh().parts()[s.mesh().vertex_parts()[17]];
        assert!(
            sol.report.warnings[0]
                .to_string()
                .contains(&format!("part {part:?} (component 1, ")),
            "{solver}: {:?}",
            sol.report.warnings
        );
    }
}

#[test]
fn awkward_skeletons_give_valid_weights() {
    let base = scene("arms-down");
    let mut bones = base.skeleton().bones().to_vec();
    // A bone entirely outside the mesh, and a zero-length bone inside it.
    bones.push(Bone::new(
        "outside",
        Point2::new(500.0, 500.0),
        Point2::new(600.0, 520.0),
    ));
    bones.push(Bone::new(
        "dot",
        Point2::new(0.0, 100.0),
        Point2::new(0.0, 100.0),
    ));
    let s = scene_with(base.mesh().clone(), bones);
    for &solver in ALL {
        let w = weights(&s, solver);
        assert_valid(&w, s.mesh().vertex_count(), s.skeleton().len(), solver);
    }
    // Only a bone outside the mesh: every component is blind; visibility is ignored there.
    let s = scene_with(
        base.mesh().clone(),
        vec![Bone::new(
            "far",
            Point2::new(500.0, 0.0),
            Point2::new(500.0, 100.0),
        )],
    );
    for &solver in ALL {
        let sol = solver_by_name(solver, skinweights::solvers::NO_OPTIONS)
            .unwrap()
            .solve(&s)
            .unwrap();
        assert!(sol.weights.as_slice().iter().all(|&w| w == 1.0), "{solver}");
        if solver.starts_with("heat") || solver.starts_with("geodesic") {
            assert!(sol
                .report
                .warnings
                .iter()
                .any(|w| w.to_string().contains("component 0")));
        }
    }
    // One bone: everything weighs 1 on it.
    let s = scene_with(
        base.mesh().clone(),
        vec![Bone::new(
            "only",
            Point2::new(0.0, 10.0),
            Point2::new(0.0, 190.0),
        )],
    );
    for &solver in ALL {
        assert!(
            weights(&s, solver).as_slice().iter().all(|&w| w == 1.0),
            "{solver}"
        );
    }
}

#[test]
fn sixty_four_bones() {
    let s = scene("bar");
    let mut bones = Vec::new();
    for i in 0..64 {
        let x0 = 200.0 * i as f64 / 64.0;
        let x1 = 200.0 * (i + 1) as f64 / 64.0;
        let mut b = Bone::new(format!("b{i}"), Point2::new(x0, 0.0), Point2::new(x1, 0.0));
        if i > 0 {
            b = b.with_parent(i - 1);
        }
        bones.push(b);
    }
    let s = scene_with(s.mesh().clone(), bones);
    for &solver in ALL {
        let w = weights(&s, solver);
        assert_valid(&w, s.mesh().vertex_count(), 64, solver);
        // Heat and the kernels keep each vertex near its own bone.
        if solver != "linear" {
            let dom = w.dominant_bones();
            for (v, p) in s.mesh().vertices().iter().enumerate() {
                let own = ((p.x / 200.0 * 64.0) as usize).min(63);
                assert!(
                    dom[v].abs_diff(own) <= 2,
                    "{solver}: vertex {v} at {p} -> bone {}",
                    dom[v]
                );
            }
        }
    }
}

#[test]
fn registry_names_and_options() {
    let s = scene("bar");
    for &name in skinweights::solvers::SOLVER_NAMES {
        assert_eq!(
            solver_by_name(name, skinweights::solvers::NO_OPTIONS)
                .unwrap()
                .name(),
            if name == "mask" {
                "euclidean+mask"
            } else {
                name
            }
        );
    }
    assert!(matches!(
        solver_by_name("magic", skinweights::solvers::NO_OPTIONS),
        Err(Error::Solver(SolverError::UnknownSolver { .. }))
    ));
    assert!(matches!(
        solver_by_name("magic+mask", skinweights::solvers::NO_OPTIONS),
        Err(Error::Solver(SolverError::UnknownSolver { .. }))
    ));
    let kv = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
    match solver_by_name("heat", kv("falloff_power", "4")) {
        Err(Error::Solver(SolverError::InvalidOption { option, message })) => {
            assert_eq!(option, "falloff_power");
            assert!(message.contains("tie_tolerance"), "{message}");
        }
        other => panic!("expected InvalidOption, got {:?}", other.map(|s| s.name())),
    }
    for (solver, key, bad) in [
        ("euclidean", "falloff_power", "-1"),
        ("geodesic", "falloff_power", "abc"),
        ("linear", "blend_radius", "0"),
        ("heat", "visibility", "maybe"),
        ("heat", "ordering", "metis"),
        ("heat+mask", "distance_floor", "NaN"),
    ] {
        match solver_by_name(solver, kv(key, bad)) {
            Err(Error::Solver(SolverError::InvalidOption { option, .. })) => {
                assert_eq!(option, key)
            }
            other => panic!("{solver} {key}={bad}: {:?}", other.map(|s| s.name())),
        }
    }
    // Options take effect: a softer falloff spreads more weight across the joint.
    let sharp = weights(&s, "euclidean");
    let soft = solver_by_name("euclidean", kv("falloff_power", "1"))
        .unwrap()
        .solve(&s)
        .unwrap()
        .weights;
    // A corner of the bar's far end (off the bone, which pins its own vertices).
    let end = s
        .mesh()
        .vertices()
        .iter()
        .position(|p| p.x == 0.0 && p.y == 20.0)
        .unwrap();
    assert!(
        soft.get(end, 1) > 2.0 * sharp.get(end, 1),
        "{} vs {}",
        soft.get(end, 1),
        sharp.get(end, 1)
    );
    let o = skinweights::solvers::LinearOptions::from_pairs("linear", &kv("blend_radius", "7.5"))
        .unwrap();
    assert_eq!(o.blend_radius, Some(7.5));
    // Both fill-reducing orderings and both solve modes give the same heat weights.
    let nd = weights(&s, "heat");
    for (k, v) in [("ordering", "amd"), ("parallel_bones", "false")] {
        let other = solver_by_name("heat", kv(k, v))
            .unwrap()
            .solve(&s)
            .unwrap()
            .weights;
        let diff = nd
            .as_slice()
            .iter()
            .zip(other.as_slice())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(diff < 1e-9, "{k}={v}: differs by {diff:e}");
    }
    // The convenience function agrees with the typed solver.
    assert_eq!(
        skinweights::solvers::solve(&s, "heat").unwrap(),
        Heat::default().solve(&s).unwrap().weights
    );
}

#[test]
fn linear_follows_the_seed_formula_on_the_bar() {
    let s = scene("bar");
    let r = 0.1 * s.mesh().height();
    let w = weights(&s, "linear");
    for (v, p) in s.mesh().vertices().iter().enumerate() {
        // Along the axis near the joint at x = 100: w_child = clamp((x - (100 - r)) / 2r).
        if p.y.abs() < 1e-9 {
            let expect = ((p.x - (100.0 - r)) / (2.0 * r)).clamp(0.0, 1.0);
            assert!((w.get(v, 1) - expect).abs() < 1e-12, "vertex {v} at {p}");
        }
    }
}

#[test]
fn every_options_struct_rejects_unknown_keys_at_the_library_level() {
    use skinweights::solvers::{EuclideanOptions, GeodesicOptions, LinearOptions};
    let check = |e: skinweights::Error, key: &str| match e {
        skinweights::Error::Solver(skinweights::SolverError::InvalidOption { option, message }) => {
            assert_eq!(option, key);
            assert!(message.contains("unknown option"), "{message}");
        }
        e => panic!("{key}: {e:?}"),
    };
    check(
        HeatOptions::default()
            .set("paralel_bones", "true")
            .unwrap_err(),
        "paralel_bones",
    );
    check(
        LinearOptions::default().set("radius", "3").unwrap_err(),
        "radius",
    );
    check(
        EuclideanOptions::default().set("power", "2").unwrap_err(),
        "power",
    );
    check(
        GeodesicOptions::default().set("falloff", "2").unwrap_err(),
        "falloff",
    );
    // The same key through the registry names the solver and lists what it accepts.
    match skinweights::solvers::solver_by_name("heat+mask", [("visiblity", "false")]) {
        Err(Error::Solver(SolverError::InvalidOption { option, message })) => {
            assert_eq!(option, "visiblity");
            assert!(message.contains("visibility, ordering"), "{message}");
        }
        other => panic!("{:?}", other.err()),
    }
    // Known keys still set, and `get` reads back what `set` wrote.
    let mut h = HeatOptions::default();
    h.set("ordering", "amd").unwrap();
    assert_eq!(h.get("ordering").as_deref(), Some("amd"));
    assert_eq!(h.get("nope"), None);
}
