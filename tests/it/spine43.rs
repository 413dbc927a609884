//! Spine 4.3's one `constraints` list: a shipped 4.2 rig rewritten in the 4.3 layout imports
//! to the same scene, and an export onto the 4.3 source stays 4.3.

use crate::common;
use skinweights::io::ExportOptions;

use common::data;
use serde_json::Value;
use skinweights::io::spine::{import_spine, SpineImportOptions};

/// `doc` with its `ik`, `transform`, `path` and `physics` lists moved into one `constraints`
/// list in their `order`, each with its `type`, as Spine 4.3 writes them (plus one slider).
fn as_spine_43(mut doc: Value) -> Value {
    let mut list: Vec<(f64, Value)> = Vec::new();
    for ty in ["ik", "transform", "path", "physics"] {
        if let Some(Value::Array(cs)) = doc.as_object_mut().unwrap().remove(ty) {
            for mut c in cs {
                let order = c.get("order").and_then(Value::as_f64).unwrap_or(0.0);
                let o = c.as_object_mut().unwrap();
                o.remove("order");
                o.insert("type".into(), ty.into());
                list.push((order, c));
            }
        }
    }
    list.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut list: Vec<Value> = list.into_iter().map(|(_, c)| c).collect();
    list.push(serde_json::json!({"type": "slider", "name": "dial"}));
    doc["constraints"] = Value::Array(list);
    doc["skeleton"]["spine"] = "4.3.23".into();
    doc
}

#[test]
fn a_spine_43_constraints_list_imports_as_its_42_lists_do() {
    let text = std::fs::read_to_string(data("spine/spineboy/spineboy-pro.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let ik_count = doc["ik"].as_array().unwrap().len();
    let doc43 = as_spine_43(doc);
    let listed = doc43["constraints"].as_array().unwrap().len();
    let text43 = doc43.to_string();
    assert!(!text43.contains(r#""ik":["#), "the 4.3 file has no ik list");

    let options = SpineImportOptions::default();
    let old = import_spine(&text, None, &options).unwrap();
    let new = import_spine(&text43, None, &options).unwrap();
    assert_eq!(new.scene.ik().len(), ik_count);
    // Debug prints every bone, vertex, IK constraint and clip key to the last bit.
    assert_eq!(
        format!("{:?}", new.scene),
        format!("{:?}", old.scene),
        "the same bones, meshes, IK and clips"
    );
    assert!(
        new.report
            .notes
            .iter()
            .any(|n| n == "1 slider constraints not applied"),
        "{:?}",
        new.report.notes
    );

    // Written back onto the 4.3 source: still one constraints list, still 4.3.
    let out_json = common::export_json(
        "spine",
        &new.scene,
        &new.artist,
        &ExportOptions::default().with_source_text(&text43),
    )
    .unwrap();
    assert!(out_json.get("ik").is_none());
    assert_eq!(out_json["constraints"].as_array().unwrap().len(), listed);
    assert_eq!(out_json["skeleton"]["spine"], "4.3.23");
    let again = import_spine(&out_json.to_string(), None, &options).unwrap();
    assert_eq!(again.scene.ik().len(), ik_count);
}

#[test]
fn an_unknown_constraint_type_is_named() {
    let text = r#"{"skeleton":{"spine":"4.3.23"},"bones":[{"name":"root"}],
        "constraints":[{"type":"wobble","name":"w"}]}"#;
    let Err(e) = import_spine(text, None, &SpineImportOptions::default()) else {
        panic!("an unknown constraint type was accepted");
    };
    let m = e.to_string();
    assert!(m.contains("constraints[0]") && m.contains("wobble"), "{m}");
}

/// What the 4.3 runtime's reader reads and the import does not apply is said: an IK
/// constraint's `scaleY` mode (4.2's `uniform`), a slot hidden in the setup pose, and slider
/// timelines.
#[test]
fn what_43_adds_and_the_import_does_not_apply_is_noted() {
    let text = std::fs::read_to_string(data("spine/spineboy/spineboy-pro.json")).unwrap();
    let mut doc = as_spine_43(serde_json::from_str(&text).unwrap());
    let ik = doc["constraints"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["type"] == "ik")
        .unwrap();
    ik["scaleY"] = "uniform".into();
    let ik_name = ik["name"].as_str().unwrap().to_string();
    doc["slots"][0]["visible"] = false.into();
    let slot = doc["slots"][0]["name"].as_str().unwrap().to_string();
    let (_, anim) = doc["animations"]
        .as_object_mut()
        .unwrap()
        .iter_mut()
        .next()
        .unwrap();
    anim["slider"] = serde_json::json!({"dial": {"time": [{"time": 0, "value": 0.5}]}});
    let new = import_spine(&doc.to_string(), None, &SpineImportOptions::default()).unwrap();
    let notes = new.report.notes.join("\n");
    for needle in [
        format!("{ik_name} scaleY uniform"),
        format!("1 slots are hidden in the setup pose (visible: false), drawn anyway: {slot}"),
        "slider constraint timelines".to_string(),
    ] {
        assert!(notes.contains(&needle), "no {needle:?} in\n{notes}");
    }
    // A `visible` that is not a boolean is refused, naming the slot and field.
    doc["slots"][0]["visible"] = "no".into();
    let Err(e) = import_spine(&doc.to_string(), None, &SpineImportOptions::default()) else {
        panic!("a string visible was accepted");
    };
    let m = e.to_string();
    assert!(m.contains(&slot) && m.contains("visible"), "{m}");
}
