//! Artist meshes (issue 25): folded, mixed-orientation, bow-tie, unused-vertex and
//! non-manifold meshes load through `Mesh::from_artist` and the scene loader, and every solver
//! gives finite weights, `>= 0`, rows summing to 1 on them, with bones of length 0 and bones
//! outside the mesh. Seeded, so every run builds the same meshes.

use crate::common;

use common::Rng;
use nalgebra::Point2;
use skinweights::io::{scene_from_json, scene_to_json};
use skinweights::{
    mesh::Mesh, scene::Scene, skeleton::Bone, skeleton::Skeleton, solvers::solver_by_name,
    weights::Weights,
};

/// Every solver of the registry and the two wrappers.
fn solvers(n: usize) -> Vec<(&'static str, Vec<(String, String)>)> {
    let opt = |k: &str, v: String| vec![(k.to_string(), v)];
    vec![
        ("linear", vec![]),
        ("euclidean", vec![]),
        ("geodesic", vec![]),
        ("heat", vec![]),
        ("mask", vec![]),
        ("heat+mask", vec![]),
        ("bbw", vec![]),
        ("best", vec![]),
        ("geodesic+mask", vec![]),
        ("bbw+mask", vec![]),
        ("heat", opt("limit", "0.05:0.1".into())),
        ("best", opt("limit", "0.05:0.1".into())),
        ("heat", opt("refine", (3 * n).to_string())),
        ("bbw", opt("refine", (3 * n).to_string())),
    ]
}

/// Solves `scene` with every solver and checks the invariants every solver promises.
fn assert_every_solver(scene: &Scene, what: &str) {
    scene
        .sanity_check()
        .unwrap_or_else(|e| panic!("{what}: sanity_check: {e}"));
    let n = scene.mesh().vertex_count();
    for (name, options) in solvers(n) {
        let solver = solver_by_name(name, &options).unwrap();
        let solution = solver
            .solve(scene)
            .unwrap_or_else(|e| panic!("{what}: {name} {options:?} failed: {e}"));
        assert_weights(
            &solution.weights,
            scene,
            &format!("{what}: {name} {options:?}"),
        );
    }
}

fn assert_weights(w: &Weights, scene: &Scene, what: &str) {
    assert_eq!(w.vertex_count(), scene.mesh().vertex_count(), "{what}");
    assert_eq!(w.bone_count(), scene.skeleton().len(), "{what}");
    for (v, row) in w.rows().enumerate() {
        assert!(
            row.iter().all(|x| x.is_finite() && *x >= 0.0),
            "{what}: vertex {v}: {row:?}"
        );
        let sum: f64 = row.iter().sum();
        assert!((sum - 1.0).abs() < 1e-9, "{what}: vertex {v} sums to {sum}");
    }
}

// ---------------------------------------------------------------- the frozen 36-vertex case

/// The frozen case: a strip of 2 x 18 vertices folded over itself three times (a zigzag in
/// x), each triangle then made counter-clockwise, so the folds' six boundary vertices are
/// bow-ties where two boundary edges arrive and none leaves (or two leave and none arrives).
/// With a sink numbered last it panicked the scene loader at `src/mesh/topology.rs:385`
/// (index out of bounds tracing the boundary loops). Bones: two across it, one of length 0,
/// one outside it.
const FOLDED_STRIP: &str =
    include_str!("../fuzz_regressions/scene-json/folded-strip-36-vertices.json");

#[test]
fn folded_36_vertex_strip_loads_with_notes_and_solves() {
    let (scene, notes) = scene_from_json(FOLDED_STRIP, None).unwrap();
    assert_eq!(scene.mesh().vertex_count(), 36);
    assert_eq!(scene.mesh().triangle_count(), 34);
    let a = scene.mesh().artist_notes().expect("an artist mesh");
    // Three folds, each along one interior edge of the strip.
    assert_eq!(a.folded_edges, 3, "{notes:?}");
    assert_eq!(
        a.pinched_vertices, 0,
        "a bow-tie of the boundary, not of the fans"
    );
    assert_eq!(
        a.reoriented, 0,
        "the file's triangles were all made counter-clockwise"
    );
    assert!(a.unused_vertices.is_empty() && a.non_manifold_edges == 0);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("folds over itself at 3 edges")),
        "{notes:?}"
    );
    // One boundary loop through every boundary edge: 2 x 17 long sides and the 2 ends.
    let topo = scene.mesh().topology();
    assert_eq!(topo.boundary_edges().len(), 36);
    assert_eq!(topo.boundary_loops().len(), 1);
    assert_eq!(topo.boundary_loops()[0].len(), 36);
    assert_eq!(topo.component_count(), 1);
    assert_every_solver(&scene, "folded strip");
    // Written and read back: the same mesh.
    let text = scene_to_json(&scene, None).unwrap();
    let (again, _) = scene_from_json(&text, None).unwrap();
    assert_eq!(again.mesh().triangles(), scene.mesh().triangles());
}

// ---------------------------------------------------------------- generators

/// A `cols` x `rows` grid of unit quads, counter-clockwise.
fn grid(cols: usize, rows: usize) -> (Vec<Point2<f64>>, Vec<[usize; 3]>) {
    let id = |i: usize, j: usize| j * (cols + 1) + i;
    let mut v = Vec::new();
    for j in 0..=rows {
        for i in 0..=cols {
            v.push(Point2::new(i as f64, j as f64));
        }
    }
    let mut t = Vec::new();
    for j in 0..rows {
        for i in 0..cols {
            t.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            t.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    (v, t)
}

/// Folds the plane at `x = at` (the part beyond it mirrored back over, a little lower).
fn fold(v: &mut [Point2<f64>], at: f64) {
    for p in v {
        if p.x > at {
            p.x = 2.0 * at - p.x;
            p.y -= 0.1;
        }
    }
}

/// Swaps two corners of about one triangle in `one_in`.
fn flip_some(rng: &mut Rng, t: &mut [[usize; 3]], one_in: u64) {
    for tri in t {
        if rng.next() % one_in == 0 {
            tri.swap(0, 1);
        }
    }
}

/// One random artist mesh of the given kind (0..6), with its description.
fn artist_mesh(kind: usize, rng: &mut Rng) -> (Vec<Point2<f64>>, Vec<[usize; 3]>, String) {
    let cols = 3 + (rng.next() % 8) as usize;
    let rows = 1 + (rng.next() % 5) as usize;
    let (mut v, mut t) = grid(cols, rows);
    let what = match kind {
        0 => {
            // Folded once or twice, triangles then in either orientation.
            fold(&mut v, rng.range(1.0, cols as f64 - 0.5).floor() + 0.3);
            if rng.next() % 2 == 0 {
                fold(&mut v, rng.range(0.0, 2.0));
            }
            flip_some(rng, &mut t, 2);
            "folded"
        }
        1 => {
            flip_some(rng, &mut t, 3);
            "mixed orientation"
        }
        2 => {
            // Two grids sharing one corner: a bow-tie vertex.
            let (v2, t2) = grid(cols, rows);
            let shared = v.len() - 1; // top right corner of the first grid
            let off = v.len();
            let shift = v[shared] - v2[0];
            v.extend(v2.iter().skip(1).map(|p| p + shift));
            t.extend(
                t2.iter()
                    .map(|tri| tri.map(|i| if i == 0 { shared } else { off + i - 1 })),
            );
            flip_some(rng, &mut t, 4);
            "bow-tie"
        }
        3 => {
            // Unused vertices inside, outside and on top of others.
            for _ in 0..1 + rng.next() % 4 {
                v.push(Point2::new(
                    rng.range(-3.0, cols as f64 + 3.0),
                    rng.range(-3.0, rows as f64 + 3.0),
                ));
            }
            v.push(v[0]);
            "unused vertices"
        }
        4 => {
            // Fins on random edges (three or more triangles per edge), a repeated triangle,
            // degenerate ones (a repeated corner, three collinear corners).
            for _ in 0..1 + rng.next() % 3 {
                let tri = t[(rng.next() % t.len() as u64) as usize];
                let apex = v.len();
                v.push(Point2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)) + v[tri[0]].coords);
                t.push([tri[0], tri[1], apex]);
            }
            let r = t[0];
            t.push([r[2], r[0], r[1]]);
            t.push([0, 0, 1]);
            t.push([0, 1, 2]); // (0, 0), (1, 0), (2, 0): collinear
            flip_some(rng, &mut t, 3);
            "non-manifold"
        }
        _ => {
            // A soup: random triangles over random points.
            let n = 5 + (rng.next() % 30) as usize;
            v = (0..n)
                .map(|_| Point2::new(rng.range(0.0, 8.0), rng.range(0.0, 8.0)))
                .collect();
            t = (0..1 + rng.next() % 40)
                .map(|_| [0, 0, 0].map(|_: usize| (rng.next() % n as u64) as usize))
                .collect();
            t.push([0, 1, 2]);
            v[2] = Point2::new(v[0].x + 1.0, v[1].y + 1.3); // one triangle surely has area
            v[1] = Point2::new(v[0].x + 1.0, v[0].y);
            "soup"
        }
    };
    (v, t, what.to_string())
}

/// A few bones: one across the mesh, one of length 0 inside it, one outside it, and sometimes
/// a zero-length bone outside it too.
fn bones(rng: &mut Rng, v: &[Point2<f64>]) -> Vec<Bone> {
    let pick = |rng: &mut Rng| v[(rng.next() % v.len() as u64) as usize];
    let (a, b) = (pick(rng), pick(rng));
    let c = pick(rng);
    let mut out = vec![
        Bone::new("across", a, b).with_part("a"),
        Bone::new("control", c, c).with_parent(0),
        Bone::new(
            "outside",
            Point2::new(40.0, rng.range(-5.0, 5.0)),
            Point2::new(45.0, 3.0),
        )
        .with_part("b"),
    ];
    if rng.next() % 2 == 0 {
        out.push(Bone::new(
            "far-control",
            Point2::new(-30.0, -30.0),
            Point2::new(-30.0, -30.0),
        ));
    }
    out
}

#[test]
fn seeded_artist_meshes_solve_with_every_solver() {
    let mut rng = Rng(0x5eed_a271);
    let mut loaded = 0;
    for case in 0..36 {
        let kind = case % 6;
        let (v, t, what) = artist_mesh(kind, &mut rng);
        let n = v.len();
        // Two parts, so masking has something to do.
        let vertex_parts: Vec<usize> = (0..n).map(|i| usize::from(v[i].x > 2.0)).collect();
        let mesh = match Mesh::from_artist(v.clone(), t, vec!["a".into(), "b".into()], vertex_parts)
        {
            Ok((mesh, _)) => mesh,
            Err(e) => panic!("case {case} ({what}): {e}"),
        };
        let skeleton = Skeleton::new(bones(&mut rng, &v)).unwrap();
        let scene = Scene::from_mesh(mesh, skeleton).unwrap();
        assert_every_solver(&scene, &format!("case {case} ({what})"));
        loaded += 1;
    }
    assert_eq!(loaded, 36);
}

#[test]
fn notes_count_what_the_mesh_has() {
    let (mut v, mut t) = grid(2, 1);
    // vertices: 0 1 2 / 3 4 5; triangles 0..4
    t[1].swap(1, 2); // clockwise
    v.push(Point2::new(9.0, 9.0)); // 6: unused
    v.push(Point2::new(1.0, -1.0)); // 7: the apex of a triangle under edge (0, 1)
    v.push(Point2::new(0.5, 2.0)); // 8: the apex of a fin over it
    t.push([0, 7, 1]); // edge (0, 1) now has two triangles on opposite sides: fine
    t.push([0, 1, 8]); // a third triangle on edge (0, 1)
    t.push([3, 3, 4]); // degenerate
    let (mesh, notes) = Mesh::from_artist(v, t, vec!["body".into()], vec![0; 9]).expect("loads");
    assert_eq!(notes.reoriented, 1);
    assert_eq!(notes.first_reoriented, Some(1));
    assert_eq!(notes.dropped_degenerate, vec![6]);
    assert_eq!(notes.unused_vertices, vec![6]);
    assert_eq!(notes.non_manifold_edges, 1);
    assert_eq!(notes.first_non_manifold_edge, Some(([0, 1], 3)));
    assert_eq!(mesh.triangle_count(), 6);
    assert!(mesh
        .triangles()
        .iter()
        .enumerate()
        .all(|(i, _)| mesh.triangle_area2(i) > 0.0));
    assert_eq!(mesh.unused_vertices(), &[6]);
    assert_eq!(notes.messages().len(), 4, "{:?}", notes.messages());
    mesh.sanity_check().unwrap();
}

#[test]
fn a_clean_mesh_in_either_orientation_is_an_ordinary_mesh() {
    let (v, mut t) = grid(4, 3);
    for (i, tri) in t.iter_mut().enumerate() {
        if i % 3 == 0 {
            tri.swap(0, 2);
        }
    }
    let (mesh, notes) = Mesh::from_artist(v, t, vec!["body".into()], vec![0; 20]).unwrap();
    assert_eq!(notes.reoriented, 8);
    assert!(notes.is_manifold());
    assert!(
        mesh.artist_notes().is_none(),
        "clean after re-orientation: strict invariants"
    );
    mesh.sanity_check().unwrap();
}

#[test]
fn broken_input_is_still_an_error() {
    let (mut v, t) = grid(1, 1);
    assert!(matches!(
        Mesh::from_artist(v.clone(), vec![[0, 1, 9]], vec!["a".into()], vec![0; 4]),
        Err(skinweights::Error::Mesh(
            skinweights::MeshError::IndexOutOfRange {
                triangle: 0,
                index: 9,
                ..
            }
        ))
    ));
    assert!(matches!(
        Mesh::from_artist(v.clone(), vec![[0, 0, 1]], vec!["a".into()], vec![0; 4]),
        Err(skinweights::Error::Mesh(
            skinweights::MeshError::EmptyMesh { triangles: 0, .. }
        ))
    ));
    v[3].x = f64::NAN;
    assert!(matches!(
        Mesh::from_artist(v, t, vec!["a".into()], vec![0; 4]),
        Err(skinweights::Error::Mesh(
            skinweights::MeshError::NonFiniteCoordinate { vertex: 3, .. }
        ))
    ));
}
