//! Creature files as real exports write them: weights rounded just below 0, and clips baked
//! at every frame (large files) within the keys' memory budget.

use crate::common;
use skinweights::io::creature::import_creature;

/// The tiny rig with its first body point's weights rounded to `[b0, b1]`.
fn tiny_with_first_row(b0: &str, b1: &str) -> String {
    common::TINY_CREATURE.replace(
        r#""Bone_0": [1, 0.5, 0, 0, 0.5, 1], "Bone_1": [0, 0.5, 1, 1, 0.5, 0]"#,
        &format!(r#""Bone_0": [{b0}, 0.5, 0, 0, 0.5, 1], "Bone_1": [{b1}, 0.5, 1, 1, 0.5, 0]"#),
    )
}

#[test]
fn weight_just_below_zero_is_clamped_renormalised_and_noted() {
    let text = tiny_with_first_row("1.00135", "-0.00135");
    assert_ne!(text, common::TINY_CREATURE);
    let imp = import_creature(&text).unwrap();
    let row = imp.artist.row(0);
    assert_eq!(row[1], 0.0);
    assert!((row[0] - 1.0).abs() < 1e-15, "{row:?}");
    let note = imp
        .report
        .notes
        .iter()
        .find(|n| n.contains("just below 0"))
        .expect("a note on the clamped weight");
    assert!(
        note.contains("1 weights") && note.contains("-0.00135") && note.contains("\"Bone_1\""),
        "{note}"
    );
    assert!(note.contains("point 0"), "{note}");
}

#[test]
fn weight_below_the_rounding_bound_is_still_an_error() {
    let e = import_creature(&tiny_with_first_row("1", "-0.06")).unwrap_err();
    match e {
        skinweights::Error::Format(skinweights::FormatError::Rig {
            field,
            vertex,
            message,
            ..
        }) => {
            assert_eq!(field, "weights.Bone_1");
            assert_eq!(vertex, Some(0));
            assert_eq!(message, "-0.06 is not a weight in [-0.05, 1.05]");
        }
        e => panic!("not a rig error: {e:?}"),
    }
}
