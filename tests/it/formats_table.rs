//! The format table ([`skinweights::io::FORMATS`]), every row through the one interface:
//! the smallest file of `data/` in its format is imported, exported with the file as its
//! source, told to be the same format again and imported back, as the solver registry's
//! test runs every solver. A format with no file in `data/` starts from a built-in scene.

use skinweights::io::{ExportOptions, Format, Source, FORMATS};
use skinweights::RigFormat;
use std::path::{Path, PathBuf};

/// Every file under `dir`, recursively, smallest first.
fn files_by_size(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort_by_key(|p| (std::fs::metadata(p).map_or(0, |m| m.len()), p.clone()));
    out
}

/// The format of the file at `path`, `None` for anything else (images, non-rig JSON).
fn format_of(path: &Path) -> Option<RigFormat> {
    let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
    if !["json", "spinejson", "tscn", "gltf", "glb"].contains(&ext.as_str()) {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    RigFormat::of_file(path, &bytes).ok().flatten()
}

/// A built-in scene with solved weights written in `row`'s format, for a format with no
/// file in `data/` (one whose export needs no source).
fn built_in_as(row: &Format, dir: &Path) -> PathBuf {
    assert!(
        row.source != Source::Required,
        "{}: no file of data/ is in this format, and its export needs one",
        row.name
    );
    let options = skinweights::scene::BuiltinOptions::default().with_vertices(500);
    let scene = skinweights::scene::builtin_scene("arms-down", &options).unwrap();
    let weights =
        skinweights::solvers::solver_by_name("euclidean", skinweights::solvers::NO_OPTIONS)
            .unwrap()
            .solve(&scene)
            .unwrap()
            .weights;
    let path = dir.join(format!("built-in{}", row.batch_suffix));
    let options = ExportOptions::default().with_output(&path);
    row.export(&scene, &weights, &options)
        .unwrap()
        .save(&path)
        .unwrap();
    path
}

#[test]
fn every_format_imports_exports_and_imports_back() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let files: Vec<(PathBuf, RigFormat)> = files_by_size(&data)
        .into_iter()
        .filter_map(|p| format_of(&p).map(|f| (p, f)))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    for row in FORMATS {
        assert_eq!(row.kind.format().name, row.name);
        assert_eq!(Format::by_name(row.name).map(|f| f.kind), Some(row.kind));
        let file = match files.iter().find(|(_, f)| *f == row.kind) {
            Some((file, _)) => file.clone(),
            None => built_in_as(row, dir.path()),
        };
        let file = &file;
        let first = row.import(file, &Default::default()).unwrap();
        let Some(artist) = &first.artist else {
            panic!("{}: {} has no weights", row.name, file.display());
        };
        let out = dir.path().join(format!("roundtrip{}", row.batch_suffix));
        let options = ExportOptions::default()
            .with_source(Some(file))
            .with_output(&out);
        let exported = row.export(&first.scene, artist, &options).unwrap();
        assert!(!exported.summary.is_empty(), "{}", row.name);
        exported.save(&out).unwrap();
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(
            RigFormat::of_file(&out, &bytes).unwrap(),
            Some(row.kind),
            "{}: the export is not told to be the format",
            row.name
        );
        let again = row.import(&out, &Default::default()).unwrap();
        let (a, b) = (&first.scene, &again.scene);
        assert_eq!(b.skeleton().names(), a.skeleton().names(), "{}", row.name);
        assert_eq!(
            b.mesh().vertex_count(),
            a.mesh().vertex_count(),
            "{}",
            row.name
        );
        let back = again.artist.as_ref().unwrap();
        back.validate().unwrap();
        // Where the vertices come back in order, so do their weights.
        let same_order = (0..a.mesh().vertex_count())
            .all(|v| (a.mesh().vertices()[v] - b.mesh().vertices()[v]).norm() < 1e-3);
        if same_order {
            for v in 0..a.mesh().vertex_count() {
                for (x, y) in artist.row(v).iter().zip(back.row(v)) {
                    assert!((x - y).abs() < 1e-4, "{} vertex {v}: {x} vs {y}", row.name);
                }
            }
        }
        assert_eq!(
            first.report.scored_meshes().is_empty(),
            again.report.scored_meshes().is_empty(),
            "{}",
            row.name
        );
    }
}

/// Every `RigFormat` constant a folder of `src/io/` defines names a row of the table, so
/// `RigFormat::format` (which looks the row up) finds one for every value a caller can hold.
#[test]
fn every_format_constant_has_its_row() {
    let io = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/io");
    let mut constants = Vec::new();
    for entry in std::fs::read_dir(&io).unwrap() {
        let module = entry.unwrap().path().join("mod.rs");
        let Ok(text) = std::fs::read_to_string(&module) else {
            continue;
        };
        let mut at = 0;
        while let Some(i) = text[at..].find("Self::named(\"") {
            let start = at + i + "Self::named(\"".len();
            let end = start + text[start..].find('"').unwrap();
            constants.push((module.clone(), text[start..end].to_string()));
            at = end;
        }
    }
    assert_eq!(constants.len(), FORMATS.len(), "{constants:?}");
    for (module, name) in &constants {
        assert!(
            FORMATS.iter().any(|row| row.kind.to_string() == *name),
            "{}: RigFormat {name:?} has no row in FORMATS",
            module.display()
        );
    }
}
