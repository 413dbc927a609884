//! Built-in scenes and outline meshing: geometry, quality, symmetry and bad input.

use nalgebra::Point2;
use skinweights::mesh::{mesh_outline, MeshingOptions, Outline};
use skinweights::scene::{
    arms_down_outline, mirror_vertex_map, mirror_vertex_map_about, MirrorAxis, BUILTIN_SCENES,
};
use skinweights::{
    mesh::Mesh, scene::builtin_scene, scene::BuiltinOptions, scene::Scene, skeleton::Pose, Error,
};
use skinweights::{
    ArgumentError, MeshError, MeshingProblem, OutlinePlace, SceneError, SkeletonError,
};

fn p(x: f64, y: f64) -> Point2<f64> {
    Point2::new(x, y)
}

fn scene(name: &str, vertices: usize, gap: Option<f64>) -> Scene {
    builtin_scene(
        name,
        &BuiltinOptions::default()
            .with_gap(gap)
            .with_vertices(vertices),
    )
    .unwrap()
}

/// Area of every built-in scene, computed by hand from its outline.
fn expected_area(name: &str, gap: f64) -> f64 {
    match name {
        // Torso 100 x 200, two arms 30 x 180, two shoulder bridges g x 20 over the gaps.
        "arms-down" => 100.0 * 200.0 + 2.0 * 30.0 * 180.0 + 2.0 * gap * 20.0,
        "arms-touching" => 100.0 * 200.0 + 2.0 * 30.0 * 180.0,
        // Torso plus two L-shaped arms (30 x 180 and (10 + g) x 20 reaching over the torso).
        "layered-arms" => 100.0 * 200.0 + 2.0 * (30.0 * 180.0 + (10.0 + gap) * 20.0),
        "bar" => 200.0 * 40.0,
        // Upper arm 100 x 40, forearm tapering from 40 to 32 over 100.
        "layered-elbow" => 100.0 * 40.0 + 100.0 * 36.0,
        // Per side: leg 7200, foot 400, torso 11275, arm 5550, armpit bridge 300, neck 300,
        // head 2100 minus chamfers 25 and 50.
        "figure" => 2.0 * 27_050.0,
        _ => unreachable!(),
    }
}

fn check_quality(name: &str, mesh: &Mesh) {
    mesh.sanity_check().unwrap();
    for t in 0..mesh.triangle_count() {
        assert!(mesh.triangle_area2(t) > 0.0, "{name}: triangle {t} not CCW");
        let a = mesh.min_angle_deg(t);
        assert!(a >= 20.0, "{name}: triangle {t} has min angle {a}");
    }
}

/// Every bone segment is the union of collinear mesh edges lying on it.
fn check_bones_covered(scene: &Scene) {
    let mesh = scene.mesh();
    let v = mesh.vertices();
    for b in scene.skeleton().bones() {
        let d = b.tail - b.head;
        let len2 = d.norm_squared();
        let on = |q: Point2<f64>| {
            let t = (q - b.head).dot(&d) / len2;
            let dist = (q - b.head).perp(&d).abs() / len2.sqrt();
            (dist < 1e-9 && (-1e-12..=1.0 + 1e-12).contains(&t)).then_some(t)
        };
        let mut spans: Vec<(f64, f64)> = mesh
            .topology()
            .edges()
            .iter()
            .filter_map(|&[i, j]| {
                let (a, c) = (on(v[i])?, on(v[j])?);
                Some((a.min(c), a.max(c)))
            })
            .collect();
        spans.sort_by(|x, y| x.0.total_cmp(&y.0));
        let mut reach = 0.0_f64;
        for (lo, hi) in spans {
            assert!(
                lo <= reach + 1e-12,
                "bone {} not covered at t = {reach}",
                b.name
            );
            reach = reach.max(hi);
        }
        assert!(
            reach >= 1.0 - 1e-12,
            "bone {} covered only to {reach}",
            b.name
        );
    }
}

/// Every vertex has an exact mirror partner, triangles map to triangles, parts map to the
/// mirrored part names.
fn check_mirror(scene: &Scene, axis: MirrorAxis) {
    let mesh = scene.mesh();
    let m = mirror_vertex_map_about(mesh, axis).expect("mesh is exactly symmetric");
    for (i, &j) in m.iter().enumerate() {
        assert_eq!(m[j], i);
        assert_eq!(axis.apply(mesh.vertices()[i]), mesh.vertices()[j]);
        let swap = |s: &str| {
            s.strip_suffix("_l")
                .map(|b| format!("{b}_r"))
                .or_else(|| s.strip_suffix("_r").map(|b| format!("{b}_l")))
                .unwrap_or_else(|| s.to_string())
        };
        let part = |v: usize| mesh.parts()[mesh.vertex_parts()[v]].clone();
        if axis == MirrorAxis::X {
            assert_eq!(swap(&part(i)), part(j), "part of vertex {i} vs mirror {j}");
        }
    }
    let key = |t: [usize; 3]| {
        let mut k = t;
        k.sort_unstable();
        k
    };
    let mut tris: Vec<[usize; 3]> = mesh.triangles().iter().map(|&t| key(t)).collect();
    let mut mirrored: Vec<[usize; 3]> = mesh
        .triangles()
        .iter()
        .map(|t| key(t.map(|i| m[i])))
        .collect();
    tris.sort_unstable();
    mirrored.sort_unstable();
    assert_eq!(tris, mirrored);
}

#[test]
fn every_builtin_is_a_valid_quality_scene() {
    for &name in BUILTIN_SCENES {
        let s = scene(name, 4000, None);
        s.sanity_check().unwrap();
        check_quality(name, s.mesh());
        let area = expected_area(name, 12.0);
        assert!(
            (s.mesh().area() - area).abs() <= 1e-6 * area,
            "{name}: area {} vs {area}",
            s.mesh().area()
        );
        check_bones_covered(&s);
        let axis = if name == "bar" || name == "layered-elbow" {
            MirrorAxis::Y
        } else {
            MirrorAxis::X
        };
        // layered-elbow's two layers have vertices at the same positions along the elbow
        // line (they touch there), so mirror partners are ambiguous.
        if name != "layered-elbow" {
            check_mirror(&s, axis);
        }
        for probe in s.probes() {
            let watched = probe.watched_vertices(&s).unwrap();
            assert!(
                !watched.is_empty(),
                "{name}: probe {} watches nothing",
                probe.name
            );
        }
        for b in s.skeleton().bones() {
            assert!(b.part.is_some(), "{name}: bone {} has no part", b.name);
        }
    }
}

#[test]
fn vertex_count_follows_the_target() {
    for &name in BUILTIN_SCENES {
        for n in [2000, 20_000] {
            let s = scene(name, n, None);
            let got = s.mesh().vertex_count() as f64;
            assert!(
                (got - n as f64).abs() <= 0.1 * n as f64,
                "{name}: {got} vertices for target {n}"
            );
        }
    }
}

#[test]
fn arms_down_matches_the_design_geometry() {
    for g in [12.0, 5.0, 30.0] {
        let s = scene("arms-down", 3000, Some(g));
        let area = expected_area("arms-down", g);
        assert!((s.mesh().area() - area).abs() <= 1e-6 * area);
        assert!((arms_down_outline(g).area() - area).abs() <= 1e-9 * area);
        let x = 65.0 + g;
        let expect = [
            ("spine", None, p(0., 10.), p(0., 190.), "torso"),
            ("upper_arm_l", Some(0), p(-x, 190.), p(-x, 105.), "arm_l"),
            ("forearm_l", Some(1), p(-x, 105.), p(-x, 25.), "arm_l"),
            ("upper_arm_r", Some(0), p(x, 190.), p(x, 105.), "arm_r"),
            ("forearm_r", Some(3), p(x, 105.), p(x, 25.), "arm_r"),
        ];
        let bones = s.skeleton().bones();
        assert_eq!(bones.len(), expect.len());
        for (b, (name, parent, head, tail, part)) in bones.iter().zip(expect) {
            assert_eq!(
                (b.name.as_str(), b.parent, b.head, b.tail, b.part.as_deref()),
                (name, parent, head, tail, Some(part))
            );
        }
        // Parts: torso |x| <= 50, arm_l x < -50, arm_r x > 50.
        for (i, q) in s.mesh().vertices().iter().enumerate() {
            let want = if q.x < -50.0 {
                "arm_l"
            } else if q.x > 50.0 {
                "arm_r"
            } else {
                "torso"
            };
            assert_eq!(s.mesh().parts()[s.mesh().vertex_parts()[i]], want);
            // Nothing strictly inside the gaps between arms and torso.
            assert!(
                !(q.x.abs() > 50.0 && q.x.abs() < 50.0 + g && q.y < 180.0),
                "vertex {i} at {q} is in the gap"
            );
        }
        let lift = s.probe(Some("lift_l")).unwrap();
        assert_eq!(lift.pose.rotations.get("upper_arm_l"), Some(&-90.0));
        assert_eq!(lift.watch.part.as_deref(), Some("torso"));
        assert_eq!(lift.watch.below_y, Some(120.0));
        let lift_r = s.probe(Some("lift_r")).unwrap();
        assert_eq!(lift_r.pose.rotations.get("upper_arm_r"), Some(&90.0));
        // The public helper finds the exact x-mirror.
        assert!(mirror_vertex_map(s.mesh()).is_some());
    }
}

#[test]
fn arms_touching_is_one_glued_shape() {
    let s = scene("arms-touching", 3000, None);
    assert_eq!(s.mesh().topology().component_count(), 1);
    // Gluing leaves one outer boundary loop and no slit: every boundary vertex is on the
    // outline of the union shape.
    assert_eq!(s.mesh().topology().boundary_loops().len(), 1);
    let zero_gap = builtin_scene(
        "arms-down",
        &BuiltinOptions::default()
            .with_gap(Some(0.0))
            .with_vertices(3000),
    )
    .unwrap();
    assert_eq!(zero_gap.mesh().vertex_count(), s.mesh().vertex_count());
    assert!(matches!(
        builtin_scene(
            "arms-touching",
            &BuiltinOptions::default().with_gap(Some(4.0)).with_vertices(3000)
        ),
        Err(Error::Argument(ArgumentError::InvalidArgument { argument: "gap", ref value, .. })) if value == "4"
    ));
}

#[test]
fn layered_arms_are_separate_overlapping_components() {
    let s = scene("layered-arms", 4000, None);
    let mesh = s.mesh();
    let topo = mesh.topology();
    assert_eq!(topo.component_count(), 3);
    // Each component carries a single part, and the three parts differ.
    let mut part_of_component = vec![None; 3];
    for v in 0..mesh.vertex_count() {
        let c = topo.component_of()[v];
        let part = mesh.vertex_parts()[v];
        assert!(part_of_component[c].is_none_or(|q| q == part));
        part_of_component[c] = Some(part);
    }
    let mut parts: Vec<_> = part_of_component.into_iter().flatten().collect();
    parts.sort_unstable();
    assert_eq!(parts, vec![0, 1, 2]);
    // The arm layer reaches over the torso's shoulder: an arm vertex lies inside the torso.
    let overlap = mesh
        .vertices()
        .iter()
        .zip(mesh.vertex_parts())
        .any(|(q, &part)| part != 0 && q.x.abs() < 50.0 && q.y > 180.0 && q.y < 200.0);
    assert!(overlap);
}

#[test]
fn figure_has_about_twenty_bones_and_limb_parts() {
    let s = scene("figure", 4000, None);
    assert!((18..=22).contains(&s.skeleton().len()));
    for part in ["torso", "head", "arm_l", "arm_r", "leg_l", "leg_r"] {
        assert!(s.mesh().part_index(part).is_some(), "missing part {part}");
    }
    for probe in ["lift_l", "lift_r", "kick_l", "kick_r"] {
        assert!(s.probe(Some(probe)).is_ok());
    }
    // Gaps between the legs and between arms and torso stay empty.
    for q in s.mesh().vertices() {
        assert!(!(q.x.abs() < 8.0 && q.y < 180.0), "{q} between the legs");
        assert!(
            !(q.x.abs() > 55.0 && q.x.abs() < 65.0 && q.y > 20.0 && q.y < 355.0),
            "{q} between arm and torso"
        );
    }
}

#[test]
fn generation_is_deterministic() {
    let a = scene("arms-down", 2000, None);
    let b = scene("arms-down", 2000, None);
    assert_eq!(a.mesh().vertices(), b.mesh().vertices());
    assert_eq!(a.mesh().triangles(), b.mesh().triangles());
}

#[test]
fn bad_builtin_options_are_typed_errors() {
    let bad = |name: &str, gap: Option<f64>, vertices: usize| {
        let r = builtin_scene(
            name,
            &BuiltinOptions::default()
                .with_gap(gap)
                .with_vertices(vertices),
        );
        assert!(
            matches!(
                r,
                Err(Error::Argument(ArgumentError::InvalidArgument { .. })
                    | Error::Scene(SceneError::UnknownBuiltin { .. }))
            ),
            "{name} {gap:?} {vertices}"
        );
    };
    bad("no-such-scene", None, 1000);
    bad("arms-down", None, 0);
    bad("arms-down", Some(f64::NAN), 1000);
    bad("arms-down", Some(-1.0), 1000);
    bad("layered-arms", Some(f64::INFINITY), 1000);
}

// ---- mesh_outline directly ----

fn square(x0: f64, y0: f64, s: f64) -> Vec<Point2<f64>> {
    vec![p(x0, y0), p(x0 + s, y0), p(x0 + s, y0 + s), p(x0, y0 + s)]
}

fn area_of(v: &[Point2<f64>], t: &[[usize; 3]]) -> f64 {
    Mesh::new(v.to_vec(), t.to_vec()).unwrap().area()
}

#[test]
fn holes_and_several_components() {
    let mut hole = square(3.0, 3.0, 4.0);
    hole.reverse(); // clockwise
    let outline = Outline {
        loops: vec![square(0.0, 0.0, 10.0), hole, square(20.0, 0.0, 5.0)],
        segments: vec![[p(1.0, 1.0), p(1.0, 9.0)], [p(21.0, 2.5), p(24.0, 2.5)]],
    };
    let (v, t, r) = mesh_outline(
        &outline,
        &MeshingOptions::default().with_target_vertices(3000),
    )
    .unwrap();
    let mesh = Mesh::new(v.clone(), t.clone()).unwrap();
    check_quality("holes", &mesh);
    let want = 100.0 - 16.0 + 25.0;
    assert!((area_of(&v, &t) - want).abs() < 1e-9 * want);
    assert!((outline.area() - want).abs() < 1e-12);
    assert_eq!(mesh.topology().component_count(), 2);
    assert_eq!(mesh.topology().boundary_loops().len(), 3);
    assert!(v
        .iter()
        .all(|q| !(q.x > 3.0 && q.x < 7.0 && q.y > 3.0 && q.y < 7.0)));
    assert!((r.vertices as f64 - 3000.0).abs() < 300.0, "{r:?}");
    assert!(r.min_angle_deg >= 20.0);
}

#[test]
fn bad_outlines_are_meshing_errors() {
    let opts = MeshingOptions::default().with_target_vertices(500);
    let bad = |outline: Outline, what: &str| match mesh_outline(&outline, &opts) {
        Err(Error::Mesh(MeshError::Meshing { problem })) => problem,
        r => panic!("{what}: {r:?}"),
    };
    assert_eq!(bad(Outline::default(), "empty"), MeshingProblem::NoLoops);
    bad(
        Outline {
            loops: vec![vec![]],
            segments: vec![],
        },
        "empty loop",
    );
    bad(
        Outline {
            loops: vec![vec![p(0., 0.), p(1., 1.)]],
            segments: vec![],
        },
        "two points",
    );
    assert_eq!(
        bad(
            Outline {
                loops: vec![vec![p(0., 0.), p(1., 0.), p(2., 0.)]],
                segments: vec![],
            },
            "collinear",
        ),
        MeshingProblem::DegenerateLoop {
            loop_index: 0,
            points: 2
        }
    );
    bad(
        Outline {
            loops: vec![vec![p(0., 0.), p(1., 1.), p(1., 0.), p(0., 1.)]],
            segments: vec![],
        },
        "bowtie",
    );
    bad(
        Outline {
            loops: vec![square(0., 0., 10.), square(5., 5., 10.)],
            segments: vec![],
        },
        "overlapping loops",
    );
    bad(
        Outline {
            loops: vec![vec![
                p(0., 0.),
                p(10., 0.),
                p(10., 10.),
                p(5., 0.),
                p(0., 10.),
            ]],
            segments: vec![],
        },
        "touching itself mid-edge",
    );
    bad(
        Outline {
            loops: vec![vec![p(0., 0.), p(f64::NAN, 0.), p(0., 1.)]],
            segments: vec![],
        },
        "NaN",
    );
    let infinite = bad(
        Outline {
            loops: vec![vec![p(0., 0.), p(f64::INFINITY, 0.), p(0., 1.)]],
            segments: vec![],
        },
        "infinite",
    );
    assert_eq!(
        infinite,
        MeshingProblem::BadCoordinate {
            place: OutlinePlace::LoopPoint {
                loop_index: 0,
                point: 1
            },
            x: f64::INFINITY,
            y: 0.0
        }
    );
    assert_eq!(
        infinite.to_string(),
        "loop 0 point 1 has a non-finite or out-of-range coordinate (inf, 0)"
    );
    assert_eq!(
        bad(
            Outline {
                loops: vec![square(0., 0., 10.)],
                segments: vec![[p(5., 5.), p(15., 5.)]],
            },
            "segment crossing the outline",
        ),
        MeshingProblem::SegmentCrosses { segment: 0 }
    );
    bad(
        Outline {
            loops: vec![square(0., 0., 10.)],
            segments: vec![[p(2., 5.), p(8., 5.)], [p(5., 2.), p(5., 8.)]],
        },
        "crossing segments",
    );
    bad(
        Outline {
            loops: vec![square(0., 0., 10.)],
            segments: vec![[p(2., f64::NAN), p(8., 5.)]],
        },
        "NaN segment",
    );
    for (max_area, angle) in [(Some(0.0), 25.0), (Some(f64::NAN), 25.0), (None, 50.0)] {
        let r = mesh_outline(
            &Outline {
                loops: vec![square(0., 0., 10.)],
                segments: vec![],
            },
            &MeshingOptions::default()
                .with_max_area(max_area)
                .with_min_angle_deg(angle),
        );
        assert!(
            matches!(r, Err(Error::Mesh(MeshError::Meshing { .. }))),
            "{max_area:?} {angle}"
        );
    }
}

#[test]
fn loops_without_segments_use_spade_exclusion_correctly() {
    // With no segments spade may skip refining outside faces; the result must be the same
    // shape: the square minus its hole, quality everywhere inside.
    let mut hole = square(2.0, 2.0, 6.0);
    hole.reverse();
    let outline = Outline {
        loops: vec![square(0.0, 0.0, 10.0), hole],
        segments: vec![],
    };
    let (v, t, r) = mesh_outline(
        &outline,
        &MeshingOptions::default().with_target_vertices(2000),
    )
    .unwrap();
    let mesh = Mesh::new(v.clone(), t.clone()).unwrap();
    check_quality("ring", &mesh);
    assert!((area_of(&v, &t) - 64.0).abs() < 1e-9 * 64.0);
    assert_eq!(mesh.topology().boundary_loops().len(), 2);
    assert!((r.vertices as f64 - 2000.0).abs() < 200.0, "{r:?}");
}

/// A scene is changed only through methods that check what they are given: `with_probes`
/// refuses what `Scene::new` refuses, `with_name` changes the name alone, and the result
/// passes `sanity_check`.
#[test]
fn probes_and_name_change_through_checking_methods() {
    let s = scene("arms-down", 500, None);
    let probes = s.probes().to_vec();
    assert!(!probes.is_empty());
    let renamed = s.clone().with_name("renamed");
    assert_eq!(renamed.name(), "renamed");
    assert_eq!(renamed.probes(), s.probes());
    assert_eq!(renamed.mesh().vertices(), s.mesh().vertices());
    let mut unknown_bone = probes.clone();
    unknown_bone[0].pose = Pose::rest().rotate("no_such_bone", 10.0);
    assert!(matches!(
        s.clone().with_probes(unknown_bone),
        Err(Error::Skeleton(SkeletonError::UnknownBone { ref bone, .. })) if bone == "no_such_bone"
    ));
    let mut twice = probes.clone();
    twice.push(probes[0].clone());
    assert!(matches!(
        s.clone().with_probes(twice),
        Err(Error::Scene(SceneError::DuplicateProbe { first: 0, second, .. })) if second == probes.len()
    ));
    let mut out_of_range = probes.clone();
    out_of_range[0].watch.vertices = Some(vec![s.mesh().vertex_count()]);
    assert!(matches!(
        s.clone().with_probes(out_of_range),
        Err(Error::Scene(SceneError::ProbeVertex { vertex, vertex_count, .. }))
            if vertex == vertex_count && vertex_count == s.mesh().vertex_count()
    ));
    let mut unknown_part = probes.clone();
    unknown_part[0].watch.part = Some("no_such_part".into());
    assert!(matches!(
        s.clone().with_probes(unknown_part),
        Err(Error::Skeleton(SkeletonError::UnknownPart { .. }))
    ));
    let one = s.clone().with_probes(probes[..1].to_vec()).unwrap();
    assert_eq!(one.probes(), &probes[..1]);
    one.sanity_check().unwrap();
    let none = s.with_probes(Vec::new()).unwrap();
    assert!(none.probes().is_empty() && none.probe(None).is_err());
}
