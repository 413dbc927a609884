//! Spine import and export on the ten shipped Spine 4.2 examples (`data/spine/`), checked
//! against an independent reading of the documented JSON format written here (nalgebra
//! matrices over the raw JSON, no code shared with the importer).

use crate::common;
use skinweights::io::ExportOptions;
use skinweights::RigFormat;

use common::data;
use nalgebra::{Matrix2, Vector2};
use serde_json::Value;
use skinweights::io::spine::{
    import_spine, load_spine, Atlas, SkinSelection, SpineImport, SpineImportOptions,
};
use skinweights::io::WeightsFile;
use skinweights::weights::Weights;
use std::collections::HashMap;

/// (folder, JSON file, mesh attachments, weighted vertices, bones, animations) with
/// `--skin all`.
const EXAMPLES: [(&str, &str, usize, usize, usize, usize); 10] = [
    ("alien", "alien-pro.json", 10, 96, 28, 4),
    ("cloud-pot", "cloud-pot.json", 2, 34, 29, 3),
    ("goblins", "goblins-pro.json", 23, 14, 21, 1),
    ("owl", "owl-pro.json", 15, 197, 20, 6),
    ("powerup", "powerup-pro.json", 3, 74, 21, 1),
    ("raptor", "raptor-pro.json", 15, 523, 76, 5),
    ("spineboy", "spineboy-pro.json", 12, 196, 67, 11),
    ("stretchyman", "stretchyman-pro.json", 4, 198, 55, 2),
    ("tank", "tank-pro.json", 4, 55, 115, 2),
    ("vine", "vine-pro.json", 1, 81, 18, 1),
];

fn path(folder: &str, file: &str) -> std::path::PathBuf {
    data(&format!("spine/{folder}/{file}"))
}

fn raw(folder: &str, file: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path(folder, file)).unwrap()).unwrap()
}

fn import(folder: &str, file: &str, skin: SkinSelection) -> SpineImport {
    load_spine(
        path(folder, file),
        None,
        &SpineImportOptions::default().with_skin(skin),
    )
    .unwrap()
}

// ------------------------------------------------------------ the independent reading

fn num(v: &Value, key: &str, default: f64) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(default)
}

/// A 2x2 matrix whose columns are unit vectors at `ax` and `ay` degrees, scaled.
fn columns(ax: f64, ay: f64, sx: f64, sy: f64) -> Matrix2<f64> {
    let (ax, ay) = (ax.to_radians(), ay.to_radians());
    Matrix2::new(ax.cos() * sx, ay.cos() * sy, ax.sin() * sx, ay.sin() * sy)
}

fn rot(deg: f64) -> Matrix2<f64> {
    columns(deg, deg + 90.0, 1.0, 1.0)
}

/// Setup world (linear, origin) of every bone, by the user guide's description of bone
/// transforms and inherit modes.
fn bone_worlds(doc: &Value) -> Vec<(Matrix2<f64>, Vector2<f64>)> {
    let bones = doc["bones"].as_array().unwrap();
    let index: HashMap<&str, usize> = bones
        .iter()
        .enumerate()
        .map(|(i, b)| (b["name"].as_str().unwrap(), i))
        .collect();
    let mut out: Vec<(Matrix2<f64>, Vector2<f64>)> = Vec::new();
    for b in bones {
        let r = num(b, "rotation", 0.0);
        let (sx, sy) = (num(b, "scaleX", 1.0), num(b, "scaleY", 1.0));
        let (hx, hy) = (num(b, "shearX", 0.0), num(b, "shearY", 0.0));
        let t = Vector2::new(num(b, "x", 0.0), num(b, "y", 0.0));
        let local = columns(r + hx, r + 90.0 + hy, sx, sy);
        let mode = b
            .get("inherit")
            .or(b.get("transform"))
            .and_then(Value::as_str)
            .unwrap_or("normal");
        let w = match b.get("parent").and_then(Value::as_str) {
            None => (local, t),
            Some(p) => {
                let (pm, pt) = out[index[p]];
                let origin = pm * t + pt;
                let linear = match mode {
                    "normal" => pm * local,
                    "onlyTranslation" => local,
                    "noRotationOrReflection" => {
                        // The parent's scale along its own rotated axes, no rotation, no mirror.
                        let x_axis = pm.column(0).into_owned();
                        let theta = x_axis.y.atan2(x_axis.x).to_degrees();
                        let sx_p = x_axis.norm();
                        let sy_p = pm.determinant().abs() / sx_p;
                        rot(theta) * Matrix2::new(sx_p, 0.0, 0.0, sy_p) * rot(-theta) * local
                    }
                    "noScale" | "noScaleOrReflection" => {
                        // The parent's direction of the bone's rotation, unit length.
                        let dir = (pm * Vector2::new(r.to_radians().cos(), r.to_radians().sin()))
                            .normalize();
                        let mut perp = Vector2::new(-dir.y, dir.x);
                        if mode == "noScale" && pm.determinant() < 0.0 {
                            perp = -perp;
                        }
                        Matrix2::from_columns(&[dir, perp]) * columns(hx, 90.0 + hy, sx, sy)
                    }
                    m => panic!("inherit {m}"),
                };
                (linear, origin)
            }
        };
        out.push(w);
    }
    out
}

/// Setup world positions of a mesh attachment's vertices (weighted or not).
fn mesh_positions(doc: &Value, mesh: &Value, slot_bone: usize) -> Vec<Vector2<f64>> {
    let world = bone_worlds(doc);
    let uvs = mesh["uvs"].as_array().unwrap().len();
    let v: Vec<f64> = mesh["vertices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    if v.len() == uvs {
        let (m, t) = world[slot_bone];
        return v
            .chunks(2)
            .map(|c| m * Vector2::new(c[0], c[1]) + t)
            .collect();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let n = v[i] as usize;
        i += 1;
        let mut p = Vector2::zeros();
        for _ in 0..n {
            let (m, t) = world[v[i] as usize];
            p += v[i + 3] * (m * Vector2::new(v[i + 1], v[i + 2]) + t);
            i += 4;
        }
        out.push(p);
    }
    out
}

/// Normalized weights of a weighted mesh, per vertex `bone -> weight`.
fn mesh_weights(mesh: &Value) -> Option<Vec<HashMap<usize, f64>>> {
    let v: Vec<f64> = mesh["vertices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    if v.len() == mesh["uvs"].as_array().unwrap().len() {
        return None;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let n = v[i] as usize;
        i += 1;
        let mut row: HashMap<usize, f64> = HashMap::new();
        for _ in 0..n {
            *row.entry(v[i] as usize).or_default() += v[i + 3];
            i += 4;
        }
        let s: f64 = row.values().sum();
        row.values_mut().for_each(|w| *w /= s);
        out.push(row);
    }
    Some(out)
}

/// The JSON of an attachment and its slot's bone index.
fn attachment<'a>(doc: &'a Value, skin: &str, slot: &str, name: &str) -> (&'a Value, usize) {
    let s = doc["skins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == skin)
        .unwrap();
    let a = &s["attachments"][slot][name];
    let slot_bone = doc["slots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == slot)
        .unwrap()["bone"]
        .as_str()
        .unwrap();
    let bone = doc["bones"]
        .as_array()
        .unwrap()
        .iter()
        .position(|b| b["name"] == slot_bone)
        .unwrap();
    (a, bone)
}

/// The mesh an attachment's geometry comes from (a linked mesh's parent).
fn geometry<'a>(doc: &'a Value, skin: &str, slot: &str, name: &str) -> (&'a Value, usize) {
    let (a, bone) = attachment(doc, skin, slot, name);
    if a["type"] == "linkedmesh" {
        let parent_skin = a.get("skin").and_then(Value::as_str).unwrap_or("default");
        return attachment(doc, parent_skin, slot, a["parent"].as_str().unwrap());
    }
    (a, bone)
}

// ------------------------------------------------------------------------------ tests

/// Asserts two imports give the same mesh (positions within 1e-9 px) and weights (1e-12).
fn assert_same_import(first: &SpineImport, again: &SpineImport, what: &str) {
    let (m1, m2) = (first.scene.mesh(), again.scene.mesh());
    assert_eq!(m1.parts(), m2.parts(), "{what}");
    assert_eq!(m1.triangles(), m2.triangles(), "{what}");
    let d = max_distance(m1.vertices(), m2.vertices());
    assert!(d <= 1e-9, "{what}: {d}");
    let dw = common::max_abs_diff(first.artist.as_slice(), again.artist.as_slice());
    assert!(dw <= 1e-12, "{what}: {dw}");
}

fn max_distance(a: &[nalgebra::Point2<f64>], b: &[nalgebra::Point2<f64>]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q).norm())
        .fold(0.0, f64::max)
}

#[test]
fn every_example_imports_with_its_counts() {
    let mut total = 0;
    for (folder, file, meshes, weighted, bones, clips) in EXAMPLES {
        let all = import(folder, file, SkinSelection::All);
        // Two artist meshes fold over themselves in the setup pose (alien's eye, stretchyman's
        // back leg): the mesh takes them, its Euler-characteristic check does not yet.
        let folds = all
            .report
            .notes
            .iter()
            .any(|n| n.contains("fold over themselves"));
        assert_eq!(
            folds,
            ["alien", "stretchyman"].contains(&folder),
            "{folder}"
        );
        if !folds {
            all.scene.sanity_check().unwrap();
        }
        all.artist.validate().unwrap();
        let r = &all.report;
        assert_eq!(
            (
                r.meshes(),
                r.weighted_vertices(),
                r.bones,
                r.animations.len()
            ),
            (meshes, weighted, bones, clips),
            "{folder}"
        );
        assert!(
            all.scene.art().is_some(),
            "{folder}: the atlas beside it gives art"
        );
        // Every attachment its own layer, in draw order.
        let art = all.scene.art().unwrap();
        assert_eq!(art.layers.len(), r.attachments.len(), "{folder}");
        total += weighted;
        let default = import(folder, file, SkinSelection::Default);
        if !folds {
            default.scene.sanity_check().unwrap();
        }
    }
    assert_eq!(total, 1468);
}

#[test]
fn setup_positions_match_an_independent_reading() {
    let mut checked = 0;
    for (folder, file, ..) in EXAMPLES {
        let doc = raw(folder, file);
        let imported = import(folder, file, SkinSelection::All);
        let verts = imported.scene.mesh().vertices();
        for a in &imported.report.attachments {
            if a.kind == "region" {
                continue;
            }
            let (mesh, bone) = geometry(&doc, &a.skin, &a.slot, &a.attachment);
            let expected = mesh_positions(&doc, mesh, bone);
            assert_eq!(expected.len(), a.vertices, "{folder} {}", a.part);
            for (i, e) in expected.iter().enumerate() {
                let got = verts[a.first_vertex + i];
                let d = (got.x - e.x).hypot(got.y - e.y);
                assert!(d <= 1e-6, "{folder} {} vertex {i}: {d} px", a.part);
                checked += 1;
            }
        }
    }
    assert!(checked > 1468, "{checked}");
}

#[test]
fn artist_weights_are_reproduced_through_the_weights_file() {
    for (folder, file, ..) in EXAMPLES {
        let doc = raw(folder, file);
        let imported = import(folder, file, SkinSelection::All);
        let text = serde_json::to_string(&imported.artist_file()).unwrap();
        let w: Weights = WeightsFile::from_json(&text)
            .unwrap()
            .to_weights_for(
                &imported.scene.skeleton().names(),
                imported.scene.mesh().vertex_count(),
            )
            .unwrap();
        for a in &imported.report.attachments {
            let (mesh, bone) = geometry(&doc, &a.skin, &a.slot, &a.attachment);
            let rows = if a.kind == "region" {
                None
            } else {
                mesh_weights(mesh)
            };
            for v in 0..a.vertices {
                let row = w.row(a.first_vertex + v);
                let expected: HashMap<usize, f64> = match &rows {
                    Some(r) => r[v].clone(),
                    None => HashMap::from([(bone, 1.0)]),
                };
                for (j, &got) in row.iter().enumerate() {
                    let e = expected.get(&j).copied().unwrap_or(0.0);
                    assert!(
                        (got - e).abs() <= 1e-6,
                        "{folder} {} vertex {v} bone {j}: {got} vs {e}",
                        a.part
                    );
                }
            }
        }
    }
}

/// The document with every mesh attachment's `vertices` taken out.
fn without_vertices(mut doc: Value) -> Value {
    for s in doc["skins"].as_array_mut().unwrap() {
        for (_, atts) in s["attachments"].as_object_mut().unwrap() {
            for (_, a) in atts.as_object_mut().unwrap() {
                if a["type"] == "mesh" {
                    a.as_object_mut().unwrap().remove("vertices");
                }
            }
        }
    }
    doc
}

#[test]
fn export_with_source_reproduces_the_source_and_round_trips() {
    for (folder, file, ..) in EXAMPLES {
        let text = std::fs::read_to_string(path(folder, file)).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        let atlas = Atlas::load(Atlas::beside(&path(folder, file)).unwrap()).unwrap();
        let options = SpineImportOptions::default().with_skin(SkinSelection::All);
        let first = import_spine(&text, Some(&atlas), &options).unwrap();
        let (out, out_json) = common::export_with_json(
            "spine",
            &first.scene,
            &first.artist,
            &ExportOptions::default().with_source_text(&text),
        )
        .unwrap();
        assert!(
            out.notes.iter().all(|n| !n.contains("match no mesh")),
            "{folder}: {:?}",
            out.notes
        );
        // Everything but the meshes' vertices is unchanged.
        assert_eq!(
            without_vertices(out_json.clone()),
            without_vertices(doc.clone()),
            "{folder}"
        );
        // Every weighted vertex where the source had it.
        for a in &first.report.attachments {
            if a.kind != "mesh" || !a.weighted {
                continue;
            }
            let (old, bone) = attachment(&doc, &a.skin, &a.slot, &a.attachment);
            let (new, _) = attachment(&out_json, &a.skin, &a.slot, &a.attachment);
            let (p, q) = (
                mesh_positions(&doc, old, bone),
                mesh_positions(&out_json, new, bone),
            );
            let d = p
                .iter()
                .zip(&q)
                .map(|(a, b)| (a - b).norm())
                .fold(0.0, f64::max);
            assert!(d <= 1e-4, "{folder} {}: {d} px", a.part);
        }
        // Import again: the same scene and weights.
        let again_text = serde_json::to_string(&out_json).unwrap();
        let again = import_spine(&again_text, Some(&atlas), &options).unwrap();
        assert_same_import(&first, &again, folder);
        assert_eq!(first.scene.skeleton(), again.scene.skeleton(), "{folder}");
    }
}

#[test]
fn export_of_best_weights_reimports_with_rows_summing_to_one() {
    let (folder, file) = ("vine", "vine-pro.json");
    let text = std::fs::read_to_string(path(folder, file)).unwrap();
    let first = import_spine(&text, None, &SpineImportOptions::default()).unwrap();
    let best = skinweights::solvers::solve(&first.scene, "best").unwrap();
    for k in [None, Some(4)] {
        let (out, out_json) = common::export_with_json(
            "spine",
            &first.scene,
            &best,
            &ExportOptions::default()
                .with_max_influences(k)
                .with_source_text(&text),
        )
        .unwrap();
        assert_eq!(out.meshes, 1);
        let again = import_spine(
            &serde_json::to_string(&out_json).unwrap(),
            None,
            &SpineImportOptions::default(),
        )
        .unwrap();
        let w = &again.artist;
        assert!(
            w.normalization_error() <= 1e-12,
            "{}",
            w.normalization_error()
        );
        w.validate().unwrap();
        let d = common::max_abs_diff(w.as_slice(), best.as_slice());
        match k {
            None => assert!(d <= 1e-12, "{d}"),
            Some(k) => assert!(w.influence_counts().iter().all(|&c| c <= k)),
        }
        let moved = max_distance(first.scene.mesh().vertices(), again.scene.mesh().vertices());
        assert!(moved <= 1e-9, "{moved}");
    }
}

#[test]
fn minimal_export_round_trips() {
    for (folder, file) in [
        ("powerup", "powerup-pro.json"),
        ("raptor", "raptor-pro.json"),
    ] {
        let first = import(folder, file, SkinSelection::All);
        let (out, out_json) = common::export_with_json(
            "spine",
            &first.scene,
            &first.artist,
            &ExportOptions::default(),
        )
        .unwrap();
        let atlas_text = out.atlas.clone().expect("art gives an atlas");
        let dir = path(folder, "");
        let atlas = Atlas::parse(&atlas_text, &dir, "minimal.atlas").unwrap();
        let again = import_spine(
            &serde_json::to_string(&out_json).unwrap(),
            Some(&atlas),
            &SpineImportOptions::default(),
        )
        .unwrap();
        assert_same_import(&first, &again, folder);
        let (a1, a2) = (first.scene.art().unwrap(), again.scene.art().unwrap());
        let du = max_distance(&a1.uvs, &a2.uvs);
        assert!(du <= 1e-9, "{folder}: uv {du}");
        // Parts, images and draw order come back; the minimal project writes one slot per
        // part, so each layer comes back as its own slot's setup attachment (the slot
        // fields are not written back).
        let plain = |a: &skinweights::scene::Art| -> Vec<(String, Option<usize>)> {
            a.layers.iter().map(|l| (l.part.clone(), l.image)).collect()
        };
        assert_eq!(plain(a1), plain(a2));
        assert!(a2
            .layers
            .iter()
            .all(|l| l.slot.as_ref().is_some_and(|s| s.slot == l.part && s.setup)));
    }
}

#[test]
fn skins_merge_over_the_default_one() {
    let (folder, file) = ("goblins", "goblins-pro.json");
    let default = import(folder, file, SkinSelection::Default);
    let goblin = import(folder, file, SkinSelection::Named("goblin".into()));
    let girl = import(folder, file, SkinSelection::Named("goblingirl".into()));
    let all = import(folder, file, SkinSelection::All);
    let n = |i: &SpineImport| i.report.attachments.len();
    assert!(n(&default) < n(&goblin), "{} {}", n(&default), n(&goblin));
    assert_eq!(n(&goblin), n(&girl));
    // The named skin's attachment replaces nothing of the default skin's: the union.
    assert!(n(&all) >= n(&goblin) + n(&girl) - n(&default));
    assert!(goblin.report.attachments.iter().any(|a| a.skin == "goblin"));
    assert!(girl
        .report
        .attachments
        .iter()
        .any(|a| a.kind == "linkedmesh" || a.skin == "goblingirl"));
    let e = load_spine(
        path(folder, file),
        None,
        &SpineImportOptions::default().with_skin(SkinSelection::Named("elf".into())),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("no skin is called \"elf\""), "{e}");
}

/// Raptor (`--skin all`) with every region attachment's four corners given 20%, 35%, 50%
/// and 65% on a second bone (the slot bone's parent): weights no region can hold.
fn raptor_with_bent_regions() -> (String, Atlas, SpineImport, Weights, Vec<String>) {
    let (folder, file) = ("raptor", "raptor-pro.json");
    let text = std::fs::read_to_string(path(folder, file)).unwrap();
    let atlas = Atlas::load(Atlas::beside(&path(folder, file)).unwrap()).unwrap();
    let options = SpineImportOptions::default().with_skin(SkinSelection::All);
    let first = import_spine(&text, Some(&atlas), &options).unwrap();
    let bones = first.scene.skeleton().bones();
    let mut w = first.artist.clone();
    let mut regions = Vec::new();
    for a in first
        .report
        .attachments
        .iter()
        .filter(|a| a.kind == "region")
    {
        for (i, v) in a.vertex_range().enumerate() {
            let j = (0..bones.len()).find(|&j| w.get(v, j) == 1.0).unwrap();
            let other = bones[j].parent.unwrap_or(1);
            let f = 0.2 + 0.15 * i as f64;
            w.set_unchecked(v, j, 1.0 - f);
            w.set_unchecked(v, other, f);
        }
        regions.push(a.part.clone());
    }
    (text, atlas, first, w, regions)
}

#[test]
fn export_turns_bent_regions_into_meshes_with_the_option() {
    let (text, atlas, first, w, regions) = raptor_with_bent_regions();
    assert_eq!(regions.len(), 24);
    let (out, out_json) = common::export_with_json(
        "spine",
        &first.scene,
        &w,
        &ExportOptions::default()
            .with_regions_to_meshes(true)
            .with_source_text(&text),
    )
    .unwrap();
    assert_eq!(out.regions_to_meshes, 24, "{:?}", out.notes);
    assert_eq!(out.meshes, 15 + 24);
    assert!(out.bent_regions.is_empty());
    let doc: Value = serde_json::from_str(&text).unwrap();
    let options = SpineImportOptions::default().with_skin(SkinSelection::All);
    let again = import_spine(
        &serde_json::to_string(&out_json).unwrap(),
        Some(&atlas),
        &options,
    )
    .unwrap();
    let (first_art, again_art) = (first.scene.art().unwrap(), again.scene.art().unwrap());
    let (mut moved, mut weight_err, mut pixel_err) = (0.0f64, 0.0f64, 0.0f64);
    for part in &regions {
        let old = first.report.attachments.iter().find(|a| &a.part == part);
        let new = again.report.attachments.iter().find(|a| &a.part == part);
        let (old, new) = (old.unwrap(), new.unwrap());
        assert_eq!(
            (new.kind, new.weighted, new.vertices),
            ("mesh", true, 4),
            "{part}"
        );
        // The same image: the mesh keeps the region's name and path.
        let (src, _) = attachment(&doc, &old.skin, &old.slot, &old.attachment);
        let (mesh, _) = attachment(&out_json, &old.skin, &old.slot, &old.attachment);
        assert_eq!(mesh["type"], "mesh");
        assert_eq!(mesh["hull"], 4);
        assert_eq!(mesh.get("path"), src.get("path"), "{part}");
        assert_eq!(mesh["width"].as_f64(), src["width"].as_f64(), "{part}");
        for (u, v) in old.vertex_range().zip(new.vertex_range()) {
            let (p, q) = (
                first.scene.mesh().vertices()[u],
                again.scene.mesh().vertices()[v],
            );
            moved = moved.max((p - q).norm());
            pixel_err = pixel_err.max((first_art.uvs[u] - again_art.uvs[v]).norm());
            for j in 0..first.scene.skeleton().len() {
                weight_err = weight_err.max((w.get(u, j) - again.artist.get(v, j)).abs());
            }
        }
    }
    println!("24 regions as meshes: moved {moved:e} px, weights {weight_err:e}, page pixels {pixel_err:e}");
    assert!(moved <= 1e-4, "setup positions moved {moved} px");
    assert!(weight_err <= 1e-6, "weights differ by {weight_err}");
    // uvs from the atlas region, rotation included: the same page pixels.
    assert!(pixel_err <= 1e-6, "page pixels differ by {pixel_err}");
}

#[test]
fn export_keeps_bent_regions_without_the_option_and_names_them() {
    let (text, _, first, w, regions) = raptor_with_bent_regions();
    let (out, out_json) = common::export_with_json(
        "spine",
        &first.scene,
        &w,
        &ExportOptions::default().with_source_text(&text),
    )
    .unwrap();
    assert_eq!(out.regions_to_meshes, 0);
    assert_eq!(out.bent_regions, regions);
    let note = out
        .notes
        .iter()
        .find(|n| n.contains("bent by the new weights"))
        .unwrap();
    // The note names the first 12 and counts the rest (`bent_regions` holds them all).
    assert!(
        note.starts_with(&format!("{} region attachments", regions.len())),
        "{note}"
    );
    assert!(
        regions.iter().take(12).all(|r| note.contains(r.as_str())),
        "{note}"
    );
    let rest = regions.len().saturating_sub(12);
    assert!(
        rest == 0 || note.ends_with(&format!(" and {rest} more")),
        "{note}"
    );
    let doc: Value = serde_json::from_str(&text).unwrap();
    for a in first
        .report
        .attachments
        .iter()
        .filter(|a| a.kind == "region")
    {
        let (old, _) = attachment(&doc, &a.skin, &a.slot, &a.attachment);
        let (new, _) = attachment(&out_json, &a.skin, &a.slot, &a.attachment);
        assert_eq!(old, new, "{}", a.part);
    }
    // The artist's own weights bend no region: no note.
    let (own, own_json) = common::export_with_json(
        "spine",
        &first.scene,
        &first.artist,
        &ExportOptions::default()
            .with_regions_to_meshes(true)
            .with_source_text(&text),
    )
    .unwrap();
    assert_eq!((own.regions_to_meshes, own.bent_regions.len()), (0, 0));
    assert_eq!(without_vertices(own_json), without_vertices(doc));
}

/// Every weighted vertex of `imported` against the independent reading of `doc`: placed
/// within 1e-6 px, weights within 1e-6 after renormalising. Returns the vertices checked.
fn check_against_reading(doc: &Value, imported: &SpineImport, what: &str) -> usize {
    let verts = imported.scene.mesh().vertices();
    let mut checked = 0;
    for a in imported.report.attachments.iter().filter(|a| a.weighted) {
        let (mesh, bone) = geometry(doc, &a.skin, &a.slot, &a.attachment);
        let expected = mesh_positions(doc, mesh, bone);
        let rows = mesh_weights(mesh).unwrap();
        for (i, (e, row)) in expected.iter().zip(&rows).enumerate() {
            let got = verts[a.first_vertex + i];
            let d = (got.x - e.x).hypot(got.y - e.y);
            assert!(d <= 1e-6, "{what} {} vertex {i}: {d} px", a.part);
            for (j, &w) in imported.artist.row(a.first_vertex + i).iter().enumerate() {
                let e = row.get(&j).copied().unwrap_or(0.0);
                assert!((w - e).abs() <= 1e-6, "{what} {} vertex {i}", a.part);
            }
            checked += 1;
        }
    }
    checked
}

/// The Defold squirrel (Spine 4.2, `.spinejson`, shipped in data/artist-rigs), and the same
/// file with one weight rounded past 1 as real exports do (1.00135): both load, placed and
/// weighted as the independent reading says, and the rounding is named in a note. A weight
/// that is no rounding of 1 stays a typed error naming the vertex.
#[test]
fn squirrel_loads_and_weights_rounded_past_one_are_renormalised_with_a_note() {
    let file = data("artist-rigs/spine-squirrel.spinejson");
    let text = std::fs::read_to_string(&file).unwrap();
    let options = SpineImportOptions::default().with_skin(SkinSelection::All);
    let doc: Value = serde_json::from_str(&text).unwrap();
    let imported = import_spine(&text, None, &options).unwrap();
    assert_eq!(check_against_reading(&doc, &imported, "squirrel"), 110);

    // Vertex 0 of the first weighted mesh: its first weight written as 1.00135.
    let mut bumped = doc.clone();
    let (skin, slot, name) = {
        let a = imported
            .report
            .attachments
            .iter()
            .find(|a| a.weighted)
            .unwrap();
        (a.skin.clone(), a.slot.clone(), a.attachment.clone())
    };
    vertices_weight(&mut bumped, &skin, &slot, &name, 1.00135);
    let bumped_text = serde_json::to_string(&bumped).unwrap();
    let again = import_spine(&bumped_text, None, &options).unwrap();
    assert_eq!(
        check_against_reading(&bumped, &again, "bumped squirrel"),
        110
    );
    let note = again
        .report
        .notes
        .iter()
        .find(|n| n.contains("past 1"))
        .unwrap_or_else(|| panic!("{:?}", again.report.notes));
    assert!(note.contains(&name) && note.contains("vertex 0"), "{note}");

    vertices_weight(&mut bumped, &skin, &slot, &name, 1.5);
    let e = import_spine(&serde_json::to_string(&bumped).unwrap(), None, &options).unwrap_err();
    assert!(
        matches!(
            e,
            skinweights::Error::Format(skinweights::FormatError::Rig {
                format: RigFormat::SPINE,
                vertex: Some(0),
                ..
            })
        ),
        "{e}"
    );
    assert!(e.to_string().contains("weight 1.5"), "{e}");
}

/// Sets the first weight of vertex 0 of attachment `name` to `w`.
fn vertices_weight(doc: &mut Value, skin: &str, slot: &str, name: &str, w: f64) {
    let skins = doc["skins"].as_array_mut().unwrap();
    let s = skins.iter_mut().find(|s| s["name"] == skin).unwrap();
    s["attachments"][slot][name]["vertices"][4] = serde_json::json!(w);
}
