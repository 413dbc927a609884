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

/// The keys' memory budget admits the largest real export (2 030 208 keys) with room to spare.
#[test]
fn key_budget_is_memory_and_admits_real_exports() {
    use skinweights::animation::{Key, KEY_MEMORY_BUDGET, MAX_KEYS};
    assert_eq!(KEY_MEMORY_BUDGET, 256 << 20);
    assert_eq!(MAX_KEYS, KEY_MEMORY_BUDGET / std::mem::size_of::<Key>());
    const { assert!(MAX_KEYS > 2_030_208) };
}

/// A file whose frames hold more keys than the budget is refused before its frames are read.
#[test]
fn clips_over_the_budget_are_a_typed_error() {
    use skinweights::animation::MAX_KEYS;
    // The tiny rig: 2 bones of 6 channels each.
    let frames = MAX_KEYS / 12 + 1;
    let body: Vec<String> = (0..frames).map(|i| format!("\"{i}\":{{}}")).collect();
    let text = common::TINY_CREATURE.replacen(
        r#""bones": {"#,
        &format!("\"bones\": {{{},", body.join(",")),
        1,
    );
    match import_creature(&text).unwrap_err() {
        skinweights::Error::Clip(skinweights::ClipError::TooManyKeys { count, max, .. }) => {
            assert_eq!(max, MAX_KEYS);
            // The rig's own frames 0, 10 and 20 are among the generated ones.
            assert_eq!(count, frames * 12);
        }
        e => panic!("not TooManyKeys: {e:?}"),
    }
}

/// The utahraptor's clips four times over (31 MB, 2 273 496 keys, more than the 34 MB export
/// that a key count of 1 000 000 refused) imports with every clip.
#[test]
fn enlarged_utahraptor_imports() {
    let path = "../shared/data/artist-rigs-2/creature-utahraptor.json";
    let Ok(text) = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))) else {
        eprintln!("{path} not present: skipped");
        return;
    };
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let clips = doc["animation"].as_object().unwrap().clone();
    let mut big = serde_json::Map::new();
    for i in 0..4 {
        for (k, v) in &clips {
            big.insert(format!("{k}_{i}"), v.clone());
        }
    }
    doc["animation"] = serde_json::Value::Object(big);
    let imp = import_creature(&doc.to_string()).unwrap();
    assert_eq!(imp.report.clips.len(), 12);
    let frames: usize = imp.report.clips.iter().map(|c| c.1).sum();
    assert_eq!(frames, 4 * (1001 + 101 + 1101));
}
