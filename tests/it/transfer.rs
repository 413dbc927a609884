//! Issue 57, costume transfer: exact copies where the target lies on a source, a far source
//! and a missing bone weighted from scratch with a note, typed errors, and the command writing
//! the weights into a Spine project's target attachments.

use crate::common::{data, skinweights, text};
use nalgebra::Point2;
use skinweights::io::rig::load_rig;
use skinweights::io::spine::SkinSelection;
use skinweights::mesh::Mesh;
use skinweights::scene::Scene;
use skinweights::skeleton::{Bone, Skeleton};
use skinweights::transfer::{
    transfer, SourceSet, TransferMethod, TransferOptions, TransferSource, TransferTarget,
};
use skinweights::weights::Weights;
use skinweights::RigFormat;

/// A grid of `nx` x `ny` vertices over the box `lo`-`hi`, its vertex indices from `first`.
fn grid(
    lo: (f64, f64),
    hi: (f64, f64),
    nx: usize,
    ny: usize,
    first: usize,
) -> (Vec<Point2<f64>>, Vec<[usize; 3]>) {
    let mut v = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            let x = lo.0 + (hi.0 - lo.0) * i as f64 / (nx - 1) as f64;
            let y = lo.1 + (hi.1 - lo.1) * j as f64 / (ny - 1) as f64;
            v.push(Point2::new(x, y));
        }
    }
    let mut t = Vec::new();
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let a = first + j * nx + i;
            t.push([a, a + 1, a + nx + 1]);
            t.push([a, a + nx + 1, a + nx]);
        }
    }
    (v, t)
}

/// Parts `source` (a 100 x 20 strip, shifted by `shift` in x) and `target` (the box
/// `target_lo`-`target_hi` at another resolution), bones a, b and c (a tail bone no weight
/// uses); the source's weights blend a to b linearly in x.
fn costume(shift: f64, target_lo: (f64, f64), target_hi: (f64, f64)) -> (Scene, Weights) {
    let (mut vertices, mut triangles) = grid((shift, 0.0), (100.0 + shift, 20.0), 21, 5, 0);
    let n = vertices.len();
    let (tv, tt) = grid(target_lo, target_hi, 13, 4, n);
    vertices.extend(tv);
    triangles.extend(tt);
    let parts = (0..vertices.len()).map(|v| usize::from(v >= n)).collect();
    let mesh = Mesh::with_parts(
        vertices,
        triangles,
        vec!["source".into(), "target".into()],
        parts,
    )
    .unwrap();
    let skeleton = Skeleton::new(vec![
        Bone::new("a", Point2::new(0.0, 10.0), Point2::new(50.0, 10.0)),
        Bone::new("b", Point2::new(50.0, 10.0), Point2::new(100.0, 10.0)).with_parent(0),
        Bone::new("c", Point2::new(100.0, 10.0), Point2::new(120.0, 10.0)).with_parent(1),
    ])
    .unwrap();
    let scene = Scene::from_mesh(mesh, skeleton).unwrap();
    let rows: Vec<Vec<f64>> = scene
        .mesh()
        .vertices()
        .iter()
        .map(|p| {
            let b = ((p.x - shift) / 100.0).clamp(0.0, 1.0);
            vec![1.0 - b, b, 0.0]
        })
        .collect();
    (scene, Weights::from_rows(&rows, 3).unwrap())
}

fn assert_valid(w: &Weights) {
    for (v, row) in w.rows().enumerate() {
        assert!(
            row.iter().all(|x| x.is_finite() && *x >= 0.0),
            "row {v}: {row:?}"
        );
        assert!(
            (row.iter().sum::<f64>() - 1.0).abs() < 1e-9,
            "row {v}: {row:?}"
        );
    }
}

fn target(bones: Option<Vec<usize>>) -> TransferTarget {
    TransferTarget {
        part: "target".into(),
        bones,
    }
}

#[test]
fn nearest_copies_weights_exactly_where_the_target_lies_on_the_source() {
    let (scene, artist) = costume(0.0, (2.0, 1.0), (98.0, 19.0));
    let source = TransferSource::from_parts(&scene, &artist, &["source".into()]).unwrap();
    let solver = skinweights::solvers::recommended();
    let out = transfer(
        &scene,
        &target(None),
        &source,
        &TransferOptions::default(),
        solver.as_ref(),
    )
    .unwrap();
    assert_eq!(out.vertices.len(), 52);
    assert_valid(&out.weights);
    // Barycentric interpolation reproduces a weight linear in x.
    for (i, &v) in out.vertices.iter().enumerate() {
        let x = scene.mesh().vertices()[v].x;
        assert!(
            (out.weights.get(i, 1) - x / 100.0).abs() < 1e-12,
            "vertex {v}"
        );
    }
    assert_eq!((out.report.copied, out.report.from_scratch), (52, 0));
    assert!(out.report.notes.is_empty(), "{:?}", out.report.notes);
}

#[test]
fn robust_inpaints_past_the_source_and_keeps_the_copies_inside() {
    let (scene, artist) = costume(0.0, (-30.0, 1.0), (130.0, 19.0));
    let source = TransferSource::from_parts(&scene, &artist, &["source".into()]).unwrap();
    let options = TransferOptions {
        method: TransferMethod::Robust,
        ..TransferOptions::default()
    };
    let solver = skinweights::solvers::recommended();
    let out = transfer(&scene, &target(None), &source, &options, solver.as_ref()).unwrap();
    assert_valid(&out.weights);
    assert!(
        out.report.inpainted > 0 && out.report.copied > 0,
        "{:?}",
        out.report
    );
    assert_eq!(out.report.copied + out.report.inpainted, 52);
    for (i, &v) in out.vertices.iter().enumerate() {
        let x = scene.mesh().vertices()[v].x;
        if (0.0..=100.0).contains(&x) {
            assert!(
                (out.weights.get(i, 1) - x / 100.0).abs() < 1e-6,
                "vertex {v}"
            );
        }
    }
}

#[test]
fn a_source_moved_away_gives_weights_from_scratch_with_a_note() {
    let (scene, artist) = costume(5000.0, (2.0, 1.0), (98.0, 19.0));
    let source = TransferSource::from_parts(&scene, &artist, &["source".into()]).unwrap();
    let solver = skinweights::solvers::recommended();
    for method in [TransferMethod::Nearest, TransferMethod::Robust] {
        let options = TransferOptions {
            method,
            ..TransferOptions::default()
        };
        let out = transfer(&scene, &target(None), &source, &options, solver.as_ref()).unwrap();
        assert_valid(&out.weights);
        assert_eq!(out.report.from_scratch, 52);
        assert!(
            out.report
                .notes
                .iter()
                .any(|n| n.contains("farther than") && n.contains("target")),
            "{:?}",
            out.report.notes
        );
    }
}

#[test]
fn a_target_bound_to_a_bone_no_source_uses_is_weighted_from_scratch_and_says_so() {
    let (scene, artist) = costume(0.0, (2.0, 1.0), (98.0, 19.0));
    let source = TransferSource::from_parts(&scene, &artist, &["source".into()]).unwrap();
    let solver = skinweights::solvers::recommended();
    let bound = target(Some(vec![1, 2]));
    let out = transfer(
        &scene,
        &bound,
        &source,
        &TransferOptions::default(),
        solver.as_ref(),
    )
    .unwrap();
    assert_valid(&out.weights);
    assert_eq!(out.report.from_scratch, 52);
    assert!(
        out.report
            .notes
            .iter()
            .any(|n| n.contains("reach 1 of its 2 bones")),
        "{:?}",
        out.report.notes
    );
    // Only the target's bones carry weight.
    assert!(out.weights.rows().all(|r| r[0] == 0.0));
    // With coverage not required, bone a's share goes to the from-scratch solve over b and c.
    let loose = TransferOptions {
        min_coverage: 0.0,
        ..TransferOptions::default()
    };
    let out = transfer(&scene, &bound, &source, &loose, solver.as_ref()).unwrap();
    assert_valid(&out.weights);
    assert!(out.weights.rows().all(|r| r[0] == 0.0));
    assert!(
        out.report.unmapped == vec!["a".to_string()],
        "{:?}",
        out.report
    );
}

#[test]
fn bad_sources_and_options_are_typed_errors() {
    let (scene, artist) = costume(0.0, (2.0, 1.0), (98.0, 19.0));
    let none = TransferSource::new(
        scene.skeleton(),
        vec![Point2::new(0.0, 0.0)],
        Vec::new(),
        Weights::from_rows(&[vec![1.0, 0.0, 0.0]], 3).unwrap(),
        "an empty file".into(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        none.contains("no weighted source mesh in an empty file"),
        "{none}"
    );
    let e = TransferSource::from_parts(&scene, &artist, &["cape".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("cape"), "{e}");
    let source = TransferSource::from_parts(&scene, &artist, &["source".into()]).unwrap();
    let solver = skinweights::solvers::recommended();
    let nan = TransferOptions {
        far_distance: f64::NAN,
        ..TransferOptions::default()
    };
    let e = transfer(&scene, &target(None), &source, &nan, solver.as_ref())
        .unwrap_err()
        .to_string();
    assert!(e.contains("far_distance"), "{e}");
    let e = "skin".parse::<SourceSet>().unwrap_err().to_string();
    assert!(e.contains("--from") && e.contains("skin:NAME"), "{e}");
    let e = "closest".parse::<TransferMethod>().unwrap_err().to_string();
    assert!(e.contains("nearest, robust"), "{e}");
}

#[test]
fn the_command_writes_a_skins_transferred_weights_into_its_attachments() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("girl.json");
    let weights = dir.path().join("girl.weights.json");
    let goblins = data("spine/goblins/goblins-pro.json");
    let args = [
        "transfer",
        goblins.to_str().unwrap(),
        "--to-skin",
        "goblingirl",
        "--from",
        "skin:goblin",
        "-o",
        out.to_str().unwrap(),
        "--weights",
        weights.to_str().unwrap(),
    ];
    let o = skinweights(&args);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("goblingirl:head: 4 vertices, 4 copied"), "{t}");
    // The written project reads back with the girl's regions weighted as meshes.
    let rig = load_rig(&out, RigFormat::SPINE, SkinSelection::All).unwrap();
    let slots = rig.report.slots();
    let weighted: Vec<&str> = slots
        .iter()
        .filter(|s| s.weighted && s.skin.as_deref() == Some("goblingirl"))
        .map(|s| s.part.as_str())
        .collect();
    assert!(weighted.contains(&"goblingirl:head"), "{weighted:?}");
    assert!(rig.artist.unwrap().validate().is_ok());
    // Nothing is overwritten without --force.
    let again = skinweights(&args);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(text(&again).contains("--force"), "{}", text(&again));
}

#[test]
fn batch_gives_every_rig_a_transfer_row() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("b");
    let goblins = data("spine/goblins");
    let sprite = data("kenney-toon/robot_idle.png");
    let o = skinweights(&[
        "batch",
        goblins.to_str().unwrap(),
        sprite.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--transfer-from",
        "slot",
        "--lint",
        "none",
    ]);
    let t = text(&o);
    let report = std::fs::read_to_string(out.join("report.csv")).unwrap();
    let row = report
        .lines()
        .find(|l| l.contains("goblins-pro.json") && l.contains(",transfer:slot,"))
        .unwrap_or_else(|| panic!("{report}\n{t}"));
    assert!(row.contains(",ok,"), "{row}");
    let weights = row
        .split(',')
        .find(|c| c.ends_with("transfer_slot.weights.json"))
        .unwrap();
    let file = skinweights::io::WeightsFile::load(weights).unwrap();
    assert_eq!(file.solver, "transfer:slot");
    // The sprite has no artist weights: its transfer row fails at the solve stage and says why.
    let sprite_row = report
        .lines()
        .find(|l| l.contains("robot_idle.png") && l.contains(",transfer:slot,"))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(
        sprite_row.contains("no artist weights to transfer"),
        "{sprite_row}"
    );
    assert_eq!(o.status.code(), Some(3), "{t}"); // some rows failed
}

/// A DragonBones rig written by `transfer -o` reads back with the transferred weights, exactly.
#[test]
fn a_dragonbones_transfer_reads_back_with_the_weights_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("body_ske.json");
    let weights = dir.path().join("body.weights.json");
    let body = data("dragonbones-you-xin/body_ske.json");
    let o = skinweights(&[
        "transfer",
        body.to_str().unwrap(),
        "--to",
        "a_arm_L",
        "--from",
        "all",
        "-o",
        out.to_str().unwrap(),
        "--weights",
        weights.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("(1 parts transferred)"), "{t}");
    let written = skinweights::io::WeightsFile::load(&weights).unwrap();
    let before = load_rig(&body, RigFormat::DRAGONBONES, SkinSelection::All).unwrap();
    let after = load_rig(&out, RigFormat::DRAGONBONES, SkinSelection::All).unwrap();
    assert_eq!(after.scene.mesh().parts(), before.scene.mesh().parts());
    assert_eq!(
        after.scene.mesh().vertices(),
        before.scene.mesh().vertices()
    );
    let read = after.artist.unwrap();
    let worst = written
        .weights
        .iter()
        .enumerate()
        .flat_map(|(v, row)| row.iter().zip(read.row(v)).map(|(a, b)| (a - b).abs()))
        .fold(0.0, f64::max);
    assert!(worst < 1e-12, "{worst}");
    let part = after
        .scene
        .mesh()
        .parts()
        .iter()
        .position(|p| p == "a_arm_L");
    let part = part.unwrap();
    let original = before.artist.unwrap();
    let changed = (0..read.vertex_count())
        .filter(|&v| after.scene.mesh().vertex_parts()[v] == part)
        .any(|v| read.row(v) != original.row(v));
    assert!(
        changed,
        "the arm's weights are the transferred ones, not the file's"
    );
}

/// `--figure`: one row per target, its source beside it.
#[test]
fn the_figure_draws_each_target_beside_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let figure = dir.path().join("girl.png");
    let goblins = data("spine/goblins/goblins-pro.json");
    let o = skinweights(&[
        "transfer",
        goblins.to_str().unwrap(),
        "--to",
        "goblingirl:head",
        "--to",
        "goblingirl:torso",
        "--from",
        "skin:goblin",
        "--figure",
        figure.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let png = image::open(&figure).unwrap();
    assert_eq!((png.width(), png.height()), (1000, 840));
    // Both halves are drawn: neither column is blank.
    let rgb = png.to_rgb8();
    for x0 in [0, 500] {
        let coloured = (x0..x0 + 500)
            .flat_map(|x| (0..840).map(move |y| (x, y)))
            .filter(|&(x, y)| {
                let p = rgb.get_pixel(x, y);
                p[0] != p[1] || p[1] != p[2]
            })
            .count();
        assert!(
            coloured > 1000,
            "column at {x0}: {coloured} coloured pixels"
        );
    }
}

/// `--from-scene`: the weights come from another scene, an artist's character imported on
/// its own; its bones map onto the rig's by name. The goblin imported alone dresses the
/// goblingirl skin as `--from skin:goblin` does, apart from the vertices nearest the goblin's
/// default-skin items (dagger, spear, shield), which that scene also holds.
#[test]
fn weights_come_from_another_scene() {
    let dir = tempfile::tempdir().unwrap();
    let goblins = data("spine/goblins/goblins-pro.json");
    let goblin = dir.path().join("goblin.json");
    let o = skinweights(&[
        "import",
        "spine",
        goblins.to_str().unwrap(),
        "--skin",
        "goblin",
        "-o",
        goblin.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let read = |p: &std::path::Path| -> skinweights::io::WeightsFile {
        skinweights::io::WeightsFile::load(p).unwrap()
    };
    let mut rows = Vec::new();
    for (name, from) in [
        ("scene", ["--from-scene", goblin.to_str().unwrap()]),
        ("skin", ["--from", "skin:goblin"]),
    ] {
        let w = dir.path().join(format!("{name}.weights.json"));
        let mut args = vec![
            "transfer",
            goblins.to_str().unwrap(),
            "--to-skin",
            "goblingirl",
        ];
        args.extend(from);
        args.extend(["--weights", w.to_str().unwrap()]);
        let o = skinweights(&args);
        assert!(o.status.success(), "{}", text(&o));
        rows.push(read(&w).weights);
    }
    let dominant = |r: &[f64]| (0..r.len()).max_by(|&a, &b| r[a].total_cmp(&r[b])).unwrap();
    let n = rows[0].len();
    let agree = (0..n)
        .filter(|&v| dominant(&rows[0][v]) == dominant(&rows[1][v]))
        .count();
    assert!(
        agree * 100 >= 95 * n,
        "{agree} of {n} vertices on the same bone"
    );
    for r in &rows[0] {
        assert!(r.iter().all(|w| w.is_finite() && *w >= 0.0));
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
    // Without targets, and without the source's weights, the errors name the flag to give.
    let copy = dir.path().join("alone.json");
    std::fs::copy(&goblin, &copy).unwrap();
    let out = dir.path().join("x.json");
    for (args, needle) in [
        (vec!["--from-scene", goblin.to_str().unwrap()], "--to"),
        (
            vec![
                "--to-skin",
                "goblingirl",
                "--from-scene",
                copy.to_str().unwrap(),
            ],
            "--from-weights",
        ),
    ] {
        let mut all = vec![
            "transfer",
            goblins.to_str().unwrap(),
            "--weights",
            out.to_str().unwrap(),
        ];
        all.extend(args);
        let o = skinweights(&all);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains(needle), "{}", text(&o));
    }
}
