//! What the authoring tools accept and the readers accept with them: booleans written as
//! 0/1, a byte order mark, weights rounded a little past 1. Each format's policy is in
//! docs/formats.md; a file the tool itself would refuse stays a typed error.

use serde_json::Value;

/// Largest single weight read as rounding of 1: exporters write weights rounded, and a
/// real Spine 4.2 export holds 1.00135. The row is renormalised and a note names it.
pub const MAX_ROUNDED_WEIGHT: f64 = 1.05;
/// Smallest single weight read as rounding of 0: the row is clamped, renormalised and noted.
pub const MIN_ROUNDED_WEIGHT: f64 = -0.05;

/// A JSON boolean as the tools read it: `true`/`false`, or the integers 0 and 1 (DragonBones
/// 5.0 writes `inheritRotation: 0`; Spine's runtimes read any number as `!= 0`, we take 0
/// and 1 only). The second value is true when the file wrote a number. `None` for anything
/// else.
pub fn json_flag(v: &Value) -> Option<(bool, bool)> {
    match v {
        Value::Bool(b) => Some((*b, false)),
        Value::Number(n) => match n.as_f64() {
            Some(0.0) => Some((false, true)),
            Some(1.0) => Some((true, true)),
            _ => None,
        },
        _ => None,
    }
}

/// The bytes after a UTF-8 byte order mark, which Windows editors write and serde_json
/// refuses (`U+FEFF` at the start of a file is read as that mark, nowhere else).
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes)
}

/// The first `shown` of `items` joined by `separator`, then " and N more" for the rest: a note
/// that names what it is about without printing thousands of names.
pub(crate) fn listed(items: &[String], shown: usize, separator: &str) -> String {
    let mut list = items[..items.len().min(shown)].join(separator);
    if items.len() > shown {
        list.push_str(&format!(" and {} more", items.len() - shown));
    }
    list
}

/// One note for the fields that wrote a boolean as 0/1, `fields` as `what field` phrases.
pub fn numeric_flags_note(fields: &[String]) -> Option<String> {
    if fields.is_empty() {
        return None;
    }
    let list = listed(fields, 6, ", ");
    Some(format!(
        "{} boolean fields written as 0/1 read as false/true, as the authoring tool reads them: {list}",
        fields.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flags_accept_booleans_and_zero_one_only() {
        assert_eq!(json_flag(&json!(true)), Some((true, false)));
        assert_eq!(json_flag(&json!(0)), Some((false, true)));
        assert_eq!(json_flag(&json!(1.0)), Some((true, true)));
        assert_eq!(json_flag(&json!(2)), None);
        assert_eq!(json_flag(&json!("true")), None);
        assert_eq!(json_flag(&json!(0.5)), None);
    }

    #[test]
    fn note_lists_at_most_six_fields() {
        let f: Vec<String> = (0..8).map(|i| format!("bone {i} x")).collect();
        let n = numeric_flags_note(&f).unwrap();
        assert!(n.starts_with("8 boolean fields"), "{n}");
        assert!(n.ends_with("and 2 more"), "{n}");
        assert_eq!(numeric_flags_note(&[]), None);
    }
}
