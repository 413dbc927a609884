//! The binary `.swb` scene and weights files: exact round trips, the same scene as JSON, and
//! corrupt files as typed errors.

use skinweights::io::{load_scene, save_scene, scene_from_binary, scene_to_binary, WeightsFile};
use skinweights::MeshError;
use skinweights::{scene::builtin_scene, scene::BuiltinOptions, Error};

fn arms() -> skinweights::scene::Scene {
    builtin_scene("arms-down", &BuiltinOptions::default().with_vertices(3000)).unwrap()
}

#[test]
fn binary_scene_and_weights_round_trip_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let scene = arms();
    let bin = dir.path().join("arms.swb");
    let json = dir.path().join("arms.json");
    save_scene(&scene, &bin).unwrap();
    save_scene(&scene, &json).unwrap();
    let (b, _) = load_scene(&bin).unwrap();
    let (j, _) = load_scene(&json).unwrap();
    b.sanity_check().unwrap();
    // Binary keeps every bit; JSON text keeps the same mesh (within its float printing).
    assert_eq!(b.mesh().vertices(), scene.mesh().vertices());
    assert_eq!(b.mesh().triangles(), scene.mesh().triangles());
    assert_eq!(b.mesh().vertex_parts(), scene.mesh().vertex_parts());
    assert_eq!(b.mesh().parts(), j.mesh().parts());
    assert_eq!(b.skeleton().names(), j.skeleton().names());
    assert_eq!(b.probes(), j.probes());
    let size = |p: &std::path::Path| std::fs::metadata(p).unwrap().len();
    assert!(
        size(&bin) < size(&json),
        "{} vs {}",
        size(&bin),
        size(&json)
    );

    let w = skinweights::solvers::solve(&scene, "heat").unwrap();
    let file = WeightsFile::new(scene.name(), "heat", scene.skeleton().names(), &w);
    let wb = dir.path().join("heat.swb");
    file.save(&wb).unwrap();
    let back = WeightsFile::load(&wb).unwrap();
    assert_eq!(back.weights, file.weights);
    assert_eq!(
        (back.scene, back.solver, back.bones),
        (file.scene, file.solver, file.bones)
    );
}

#[test]
fn corrupt_binary_files_are_typed_errors() {
    let scene = arms();
    let bytes = scene_to_binary(&scene, None).unwrap();
    let err = |b: &[u8]| scene_from_binary(b, None).unwrap_err();
    // Truncated arrays.
    let e = err(&bytes[..bytes.len() - 5]);
    let (field, message) = crate::common::invalid_field(&e);
    assert!(
        field == "vertex_parts" && message.contains("do not fit"),
        "{e}"
    );
    // Trailing garbage.
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 3]);
    let e = err(&longer);
    assert!(
        crate::common::invalid_field(&e)
            .1
            .contains("3 unexpected bytes"),
        "{e}"
    );
    // A header claiming far more vertices than the file holds allocates nothing.
    let text = String::from_utf8_lossy(&bytes[24..200]).to_string();
    let n = scene.mesh().vertex_count();
    let huge = bytes_with_header(
        &bytes,
        &format!("\"counts\":[{n},"),
        "\"counts\":[4000000000000,",
    );
    let e = err(&huge);
    let (field, message) = crate::common::invalid_field(&e);
    assert!(
        field.contains("vertices") && message.contains("do not fit"),
        "{e} / {text}"
    );
    // A triangle index out of range is the usual mesh error, naming the triangle.
    let mut bad = bytes.clone();
    let tri_start = bytes.len() - n * 4 - scene.mesh().triangle_count() * 12;
    bad[tri_start..tri_start + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(
        matches!(
            err(&bad),
            Error::Mesh(MeshError::IndexOutOfRange { triangle: 0, .. })
        ),
        "{:?}",
        err(&bad)
    );
    // A weights file whose rows name a bone it does not list.
    let w = skinweights::weights::Weights::from_rows(&vec![vec![1.0, 0.0]; 3], 2).unwrap();
    let file = WeightsFile::new("s", "x", vec!["a".into(), "b".into()], &w);
    let mut wb = file.to_binary().unwrap();
    let at = wb.len() - 3 * 8 - 3 * 4; // first bone index
    wb[at..at + 4].copy_from_slice(&7u32.to_le_bytes());
    let e = WeightsFile::from_binary(&wb).unwrap_err();
    assert!(
        crate::common::invalid_field(&e)
            .1
            .contains("row 0 names bone 7"),
        "{e}"
    );
}

/// `bytes` with one substring of its JSON header replaced (the header length updated).
fn bytes_with_header(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    let len = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    let header = std::str::from_utf8(&bytes[24..24 + len]).unwrap();
    assert!(header.contains(from), "{header}");
    let header = header.replacen(from, to, 1);
    let mut out = bytes[..16].to_vec();
    out.extend_from_slice(&(header.len() as u64).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&bytes[24 + len..]);
    out
}
