//! Seeded random inputs: whatever the input, the library returns valid weights or a typed
//! error, never a panic and never NaN.

use nalgebra::Point2;
use skinweights::io::{scene_from_json, scene_to_json};
use skinweights::lint::{lint, LintOptions};
use skinweights::metrics::evaluate;
use skinweights::{
    scene::builtin_scene, scene::BuiltinOptions, scene::Probe, scene::Scene, scene::Watch,
    skeleton::Bone, skeleton::Skeleton, solvers::solver_by_name, weights::Weights, Error,
};
use skinweights::{SolverError, WeightsError};

/// xorshift64*: a tiny deterministic generator, so failures replay exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random skeleton over the bar: bones anywhere (inside, outside, crossing, zero length),
/// random parents (earlier bones only, so no cycles), random parts.
fn random_scene(base: &Scene, rng: &mut Rng) -> Scene {
    let n = 1 + rng.below(7);
    let parts = base.mesh().parts().to_vec();
    let mut bones = Vec::new();
    for i in 0..n {
        let head = Point2::new(rng.range(-50.0, 250.0), rng.range(-60.0, 60.0));
        let tail = if rng.below(6) == 0 {
            head
        } else {
            Point2::new(rng.range(-50.0, 250.0), rng.range(-60.0, 60.0))
        };
        let mut b = Bone::new(format!("b{i}"), head, tail);
        if i > 0 && rng.below(2) == 0 {
            b.parent = Some(rng.below(i));
        }
        if rng.below(3) > 0 {
            b.part = Some(parts[rng.below(parts.len())].clone());
        }
        bones.push(b);
    }
    let skeleton = Skeleton::new(bones).unwrap();
    let probe = Probe {
        name: "p".into(),
        pose: skinweights::skeleton::Pose::rest()
            .rotate(format!("b{}", rng.below(n)), rng.range(-180.0, 180.0)),
        watch: Watch::default(),
    };
    Scene::new("random", base.mesh().clone(), skeleton, vec![probe]).unwrap()
}

#[test]
fn random_skeletons_give_valid_weights_or_typed_errors() {
    let base = builtin_scene(
        "bar",
        &BuiltinOptions::default().with_gap(None).with_vertices(600),
    )
    .unwrap();
    let mut rng = Rng(0x5eed_0001);
    // compare's solvers plus one more mask combination.
    let solvers = skinweights::solvers::COMPARE_DEFAULTS
        .iter()
        .copied()
        .chain(["geodesic+mask"])
        .collect::<Vec<_>>();
    for case in 0..40 {
        let scene = random_scene(&base, &mut rng);
        for &name in &solvers {
            let solver = solver_by_name(name, skinweights::solvers::NO_OPTIONS).unwrap();
            match solver.solve(&scene) {
                Ok(solution) => {
                    solution
                        .weights
                        .validate()
                        .unwrap_or_else(|e| panic!("case {case}, {name}: {e}"));
                    let m = evaluate(&scene, &solution.weights, &scene.probes()[0]).unwrap();
                    assert!(
                        m.drag_max_pct.is_finite() && m.area_change_pct.is_finite(),
                        "case {case}, {name}"
                    );
                }
                // A typed error is an acceptable answer; its message must say something.
                Err(e) => assert!(!e.to_string().is_empty(), "case {case}, {name}"),
            }
        }
    }
}

#[test]
fn corrupted_scene_files_never_panic() {
    let scene = builtin_scene(
        "arms-down",
        &BuiltinOptions::default().with_gap(None).with_vertices(600),
    )
    .unwrap();
    let json = scene_to_json(&scene, None).unwrap();
    let bytes = json.as_bytes();
    let mut rng = Rng(0x5eed_0002);
    let replacements = [
        "-1", "1e308", "0", "99999999", "\"x\"", "null", "[]", "-0.0", "3",
    ];
    let mut loaded = 0;
    for _ in 0..300 {
        // Replace one number somewhere in the file with something else.
        let mut at = rng.below(bytes.len());
        while at < bytes.len() && !bytes[at].is_ascii_digit() {
            at += 1;
        }
        if at >= bytes.len() {
            continue;
        }
        let mut end = at;
        while end < bytes.len()
            && (bytes[end].is_ascii_digit() || bytes[end] == b'.' || bytes[end] == b'e')
        {
            end += 1;
        }
        let start = if at > 0 && bytes[at - 1] == b'-' {
            at - 1
        } else {
            at
        };
        let text = format!(
            "{}{}{}",
            &json[..start],
            replacements[rng.below(replacements.len())],
            &json[end..]
        );
        match scene_from_json(&text, None) {
            Ok((s, _)) => {
                s.sanity_check().unwrap_or_else(|e| {
                    let kept =
                        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad_scene.json");
                    std::fs::write(&kept, &text).unwrap();
                    panic!("{e} (input kept in {})", kept.display())
                });
                loaded += 1;
            }
            // A corrupted file is the input's fault: never a solver or linear-algebra error,
            // never a message admitting a bug, always more than a bare variant name.
            Err(e) => {
                assert!(
                    !matches!(
                        e,
                        Error::Solver(SolverError::LinearAlgebra { .. })
                            | Error::Solver(SolverError::Solver { .. })
                    ),
                    "{e}"
                );
                let msg = e.to_string();
                assert!(!msg.contains("bug") && msg.len() > 20, "{msg}");
            }
        }
    }
    // Most corruptions are harmless coordinate changes; some must be caught.
    assert!(loaded > 0 && loaded < 300, "{loaded}");
}

#[test]
fn garbage_weights_are_measured_not_trusted() {
    let scene = builtin_scene(
        "bar",
        &BuiltinOptions::default().with_gap(None).with_vertices(600),
    )
    .unwrap();
    let n = scene.mesh().vertex_count();
    let mut rng = Rng(0x5eed_0003);
    for _ in 0..20 {
        let mut data: Vec<f64> = (0..n * 2)
            .map(|_| match rng.below(10) {
                1 => 0.0,
                // Large but scorable (rows up to 1e6, MAX_SCORABLE_ROW_SUM).
                2 => rng.range(0.0, 4e5),
                _ => rng.unit(),
            })
            .collect();
        // No all-zero row (those are unscorable, below).
        for row in data.chunks_mut(2) {
            if row[0] + row[1] == 0.0 {
                row[0] = 0.5;
            }
        }
        let w = Weights::from_row_major(data, 2).unwrap();
        let m = evaluate(&scene, &w, &scene.probes()[0]).unwrap();
        assert!(m.norm_err.is_finite() && m.bind_err.is_finite() && m.drag_max_pct.is_finite());
        let checks = lint(&scene, &w, &LintOptions::default()).unwrap();
        let norm = checks
            .iter()
            .find(|c| c.check == "weight normalization")
            .unwrap();
        assert!(!norm.pass, "random rows cannot all sum to 1");
    }
    // A negative weight is not measured but named (vertex and bone).
    let mut w = Weights::from_rows(&vec![vec![1.0, 0.0]; n], 2).unwrap();
    w.set_unchecked(4, 1, -0.5);
    match evaluate(&scene, &w, &scene.probes()[0]) {
        Err(Error::Weights(WeightsError::InvalidWeight {
            vertex: 4,
            bone: 1,
            value,
        })) => assert_eq!(value, -0.5),
        other => panic!("{other:?}"),
    }
    // NaN weights are reported by validation, with the vertex.
    let mut w = Weights::from_rows(&vec![vec![1.0, 0.0]; n], 2).unwrap();
    w.set_unchecked(3, 1, f64::NAN);
    assert!(matches!(
        w.validate(),
        Err(Error::Weights(WeightsError::InvalidWeight {
            vertex: 3,
            ..
        }))
    ));
}
