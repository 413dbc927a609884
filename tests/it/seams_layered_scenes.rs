//! Seam repairs on layered scenes the other tests have not seen (issue 12): a seeded
//! generator writes scene files of an upper arm and a forearm drawn as separate layers, each
//! meshed at its own density and driven by its own bone, either touching along the elbow or
//! overlapping there, plus a third layer touching the forearm with no joint to it. Each
//! file is read back with the scene loader, bent 15-150 degrees and measured: each layer
//! solved alone opens the elbow; `repair` + seam-consistent weights close it.

use nalgebra::Point2;
use skinweights::io::scene_from_json;
use skinweights::lint::{lint, LintOptions};
use skinweights::mesh::{mesh_outline, MeshingOptions, Outline};
use skinweights::seams::measure::{find_contacts, find_seams, measure_seams, SeamOptions};
use skinweights::seams::repair::{
    repair, repaired_weights, seam_weight_difference, silhouette_change, RepairOptions,
};
use skinweights::solvers::Heat;
use skinweights::{
    scene::Scene, skeleton::Pose, skinning::linear_blend_skinning, weights::Weights,
};

/// splitmix64: a fixed stream of numbers in [0, 1) per seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
}

/// What a generated scene looks like.
struct Layout {
    /// The forearm starts this far left of the upper arm's end (0: the layers touch).
    overlap: f64,
    /// End of the upper arm = the elbow joint, px.
    elbow: f64,
}

/// A rectangle meshed with a constrained segment along its middle (the bone line).
fn rect(x0: f64, x1: f64, y0: f64, y1: f64, max_area: f64) -> (Vec<[f64; 2]>, Vec<[usize; 3]>) {
    let ym = (y0 + y1) / 2.0;
    let outline = Outline {
        loops: vec![vec![
            Point2::new(x0, y0),
            Point2::new(x1, y0),
            Point2::new(x1, y1),
            Point2::new(x0, y1),
        ]],
        segments: vec![[Point2::new(x0, ym), Point2::new(x1, ym)]],
    };
    let options = MeshingOptions::default()
        .with_max_area(Some(max_area))
        .with_min_angle_deg(28.0);
    let (v, t, _) = mesh_outline(&outline, &options).unwrap();
    (v.iter().map(|p| [p.x, p.y]).collect(), t)
}

/// The scene file (JSON text) of seed `seed`: layers "upper", "forearm" (in front of it)
/// and "sleeve" (a flat layer lying against the forearm's top edge, with a root bone of its
/// own: a contact, not a seam).
fn scene_file(seed: u64, overlapping: bool) -> (String, Layout) {
    let mut rng = Rng(seed);
    let (l1, l2) = (rng.range(60.0, 110.0), rng.range(60.0, 110.0));
    let h = rng.range(20.0, 36.0);
    let overlap = if overlapping {
        rng.range(3.0, 0.4 * h)
    } else {
        0.0
    };
    let layers = [
        rect(0.0, l1, 0.0, h, rng.range(4.0, 20.0)),
        rect(l1 - overlap, l1 + l2, 0.0, h, rng.range(4.0, 20.0)),
        rect(l1 + 10.0, l1 + l2 - 10.0, h, h + 12.0, rng.range(6.0, 20.0)),
    ];
    let (mut vertices, mut triangles, mut vertex_parts) = (Vec::new(), Vec::new(), Vec::new());
    for (part, (v, t)) in layers.iter().enumerate() {
        let base = vertices.len();
        vertices.extend(v.iter().copied());
        triangles.extend(t.iter().map(|tri| tri.map(|i| i + base)));
        vertex_parts.extend(std::iter::repeat_n(part, v.len()));
    }
    let json = serde_json::json!({
        "format": "skinweights.scene/2",
        "name": format!("layered-{seed}"),
        "vertices": vertices,
        "triangles": triangles,
        "parts": ["upper", "forearm", "sleeve"],
        "vertex_parts": vertex_parts,
        "bones": [
            {"name": "upper", "parent": null, "head": [0.0, h / 2.0], "tail": [l1, h / 2.0],
             "part": "upper"},
            {"name": "forearm", "parent": "upper", "head": [l1, h / 2.0],
             "tail": [l1 + l2, h / 2.0], "part": "forearm"},
            {"name": "sleeve", "parent": null, "head": [l1 + 12.0, h + 6.0],
             "tail": [l1 + l2 - 12.0, h + 6.0], "part": "sleeve"}
        ],
        "art": {"images": [], "uvs": vertices,
                "layers": [{"part": "upper", "image": null}, {"part": "forearm", "image": null},
                           {"part": "sleeve", "image": null}]}
    });
    (json.to_string(), Layout { overlap, elbow: l1 })
}

/// The widest seam opening (px) at the elbow over bends of 15, 30, ..., 150 degrees.
fn widest_opening(scene: &Scene, weights: &Weights) -> f64 {
    let options = SeamOptions::default();
    let seams = find_seams(scene, &options).unwrap();
    assert_eq!(
        seams.len(),
        1,
        "{:?}",
        seams.iter().map(|s| s.label()).collect::<Vec<_>>()
    );
    assert_eq!(seams[0].label(), "upper|forearm @ forearm");
    let mut widest: f64 = 0.0;
    for k in 1..=10 {
        let pose = Pose::rest().rotate("forearm", 15.0 * k as f64);
        let posed =
            linear_blend_skinning(scene.mesh().vertices(), scene.skeleton(), weights, &pose)
                .unwrap();
        let o = measure_seams(scene, &seams, &posed, &options).unwrap();
        widest = widest.max(o[0].widest);
    }
    widest
}

fn check_rows(w: &Weights) {
    for (v, row) in w.rows().enumerate() {
        assert!(row.iter().all(|x| x.is_finite() && *x >= 0.0), "row {v}");
        assert!((row.iter().sum::<f64>() - 1.0).abs() <= 1e-9, "row {v}");
    }
}

/// Generates, loads, measures and repairs one scene; returns (alone, repaired) openings.
fn run(seed: u64, overlapping: bool) -> (f64, f64) {
    let (json, layout) = scene_file(seed, overlapping);
    let (scene, _) = scene_from_json(&json, None).unwrap();
    let options = SeamOptions::default();
    // The sleeve touches the forearm with no joint between them: a contact, not a seam.
    let contacts = find_contacts(&scene, &options).unwrap();
    let labels: Vec<String> = contacts.iter().map(|s| s.label()).collect();
    assert_eq!(labels, ["forearm|sleeve"], "seed {seed}");

    let alone = skinweights::solvers::solve(&scene, "heat").unwrap();
    let opened = widest_opening(&scene, &alone);

    let repair_options = RepairOptions::default()
        .with_weld(Some(0.5))
        .with_overlap(Some(1.5))
        .with_smooth_seams(true)
        .with_blend_overlaps(true);
    let (fixed, report) = repair(&scene, &repair_options).unwrap();
    fixed.sanity_check().unwrap();
    let weld = report.weld.as_ref().unwrap();
    // Only the elbow is welded (touching layers); the sleeve contact never is.
    for s in &weld.seams {
        assert!(
            !s.layers.contains(&"sleeve".to_string()),
            "seed {seed}: {s:?}"
        );
    }
    assert_eq!(
        weld.seams.len(),
        usize::from(layout.overlap == 0.0),
        "seed {seed}"
    );
    let moved = silhouette_change(&scene, &fixed).unwrap();
    assert!(moved <= 1.5 + 1e-9, "seed {seed}: silhouette moved {moved}");
    let (w, wr) = repaired_weights(&fixed, &repair_options, &Heat::default()).unwrap();
    check_rows(&w);
    assert!(seam_weight_difference(&fixed, &w).unwrap() < 1e-12);
    let blend = wr.consistent.overlap.as_ref().unwrap();
    assert_eq!(blend.linked, [["upper".to_string(), "forearm".to_string()]]);
    if layout.overlap > 0.0 {
        assert!(blend.vertices_blended > 0, "seed {seed}");
    }
    let closed = widest_opening(&fixed, &w);
    let failed: Vec<String> = lint(&fixed, &w, &LintOptions::default())
        .unwrap()
        .into_iter()
        .filter(|c| !c.pass)
        .map(|c| format!("{}: {}", c.check, c.measured))
        .collect();
    assert!(failed.is_empty(), "seed {seed}: lint {failed:?}");
    println!(
        "seed {seed} ({}, overlap {:.2} px at x = {:.1}): widest opening alone {opened:.3} px, \
         repaired {closed:.3} px; {} vertices blended, overlap weight difference {:.3} -> {:.3}",
        if overlapping {
            "overlapping"
        } else {
            "touching"
        },
        layout.overlap,
        layout.elbow,
        blend.vertices_blended,
        blend.overlap_difference[0],
        blend.overlap_difference[1],
    );
    (opened, closed)
}

#[test]
fn touching_layers_from_scene_files_open_alone_and_close_repaired() {
    for seed in [11, 12, 13] {
        let (alone, repaired) = run(seed, false);
        assert!(alone > 5.0, "seed {seed}: {alone}");
        assert!(repaired < 1e-9, "seed {seed}: {repaired}");
    }
}

#[test]
fn overlapping_layers_from_scene_files_open_alone_and_close_repaired() {
    // An overlap hides the elbow until the bend exceeds it, so not every seed opens alone
    // within 150 degrees; every seed is closed repaired.
    let mut widest_alone: f64 = 0.0;
    for seed in [21, 22, 23, 24] {
        let (alone, repaired) = run(seed, true);
        widest_alone = widest_alone.max(alone);
        assert!(repaired < 1e-9, "seed {seed}: {repaired}");
    }
    assert!(widest_alone > 5.0, "{widest_alone}");
}

/// The built-in layered-arms: its arms overlap the torso 6 px at the shoulder, 27 px from
/// the shoulder joint. The blend closes the shoulder seam, and the lift probe shows its
/// cost: a narrow overlap far from its joint folds when the arm lifts 90 degrees (the
/// reason `blend_overlaps` is an option, off by default).
#[test]
fn layered_arms_blend_closes_the_shoulder_and_folds_in_the_lift() {
    let scene = skinweights::scene::builtin_scene(
        "layered-arms",
        &skinweights::scene::BuiltinOptions::default().with_vertices(1500),
    )
    .unwrap();
    let options = SeamOptions::default();
    let seams = find_seams(&scene, &options).unwrap();
    let probe = scene.probes().iter().find(|p| p.name == "lift_l").unwrap();
    let measure = |w: &Weights| {
        let posed =
            linear_blend_skinning(scene.mesh().vertices(), scene.skeleton(), w, &probe.pose)
                .unwrap();
        let widest = measure_seams(&scene, &seams, &posed, &options)
            .unwrap()
            .iter()
            .map(|o| o.widest)
            .fold(0.0, f64::max);
        let flipped = scene
            .mesh()
            .triangles()
            .iter()
            .filter(|c| (posed[c[1]] - posed[c[0]]).perp(&(posed[c[2]] - posed[c[0]])) <= 0.0)
            .count();
        (widest, flipped)
    };
    let alone = skinweights::solvers::solve(&scene, "heat").unwrap();
    let blend = RepairOptions::default().with_blend_overlaps(true);
    let (w, _) = repaired_weights(&scene, &blend, &Heat::default()).unwrap();
    check_rows(&w);
    let (open_alone, flips_alone) = measure(&alone);
    let (open_blend, flips_blend) = measure(&w);
    println!(
        "layered-arms lift_l: widest shoulder opening alone {open_alone:.3} px ({flips_alone} \
         flipped), blended {open_blend:.3} px ({flips_blend} flipped)"
    );
    assert!(open_blend < open_alone, "{open_blend} vs {open_alone}");
    assert!(open_blend < 1e-9, "{open_blend}");
}
