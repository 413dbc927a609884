//! Reading a format's JSON file with every error naming where the value is: the context
//! (`bone "hip"`, `mesh "a_body"`), the field and, for vertices, the vertex. The Spine and
//! DragonBones readers share it; [`Wording`] picks the error variant and the wording a
//! format's messages use, so each format's errors read as its documentation shows them.
//!
//! [`parse_json`] is the one place a JSON file is parsed from text: a UTF-8 byte order mark
//! (see [`crate::io::tolerance::strip_bom`]) is skipped first.

use crate::error::{Error, FormatError, Result, RigFormat};
use serde_json::{Map, Value};

/// Parses `bytes` as JSON after skipping a byte order mark; a syntax error is an
/// [`FormatError::Json`] naming `context` (the format, or the file).
pub(crate) fn parse_json(bytes: &[u8], context: &str) -> Result<Value> {
    serde_json::from_slice(crate::io::tolerance::strip_bom(bytes)).map_err(|e| {
        Error::Format(FormatError::Json {
            context: context.to_string(),
            message: e.to_string(),
        })
    })
}

/// How a format's errors read: the [`RigFormat`] they name, and whether a value of the wrong
/// type is named in the message (`expected a string, found a number`) or not (`expected a
/// string`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Wording {
    format: RigFormat,
    names_found: bool,
}

/// Spine's errors: wrong types are named.
pub(crate) const SPINE: Wording = Wording {
    format: RigFormat::SPINE,
    names_found: true,
};

/// DragonBones' errors: wrong types are not named.
pub(crate) const DRAGONBONES: Wording = Wording {
    format: RigFormat::DRAGONBONES,
    names_found: false,
};

impl Wording {
    /// The format's error for `context`, `field` and `vertex`.
    pub(crate) fn error(
        self,
        context: impl Into<String>,
        field: impl Into<String>,
        vertex: Option<usize>,
        message: impl Into<String>,
    ) -> Error {
        Error::Format(FormatError::Rig {
            format: self.format,
            context: context.into(),
            field: field.into(),
            vertex,
            message: message.into(),
        })
    }

    /// "expected `what`", with the kind of `found` when the format names it.
    fn expected(self, what: &str, found: &Value) -> String {
        if self.names_found {
            format!("expected {what}, found {}", kind(found))
        } else {
            format!("expected {what}")
        }
    }
}

/// Where a value of a JSON file is: the format and the context inside the file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JsonAt<'a> {
    /// The format the file is read for.
    pub format: Wording,
    /// What holds the value (`skeleton`, `bone "hip"`, `mesh "a_body"`).
    pub context: &'a str,
}

impl<'a> JsonAt<'a> {
    /// A place in a Spine file.
    pub(crate) fn spine(context: &'a str) -> Self {
        JsonAt {
            format: SPINE,
            context,
        }
    }

    /// A place in a DragonBones file.
    pub(crate) fn dragonbones(context: &'a str) -> Self {
        JsonAt {
            format: DRAGONBONES,
            context,
        }
    }

    /// The error for `field` here.
    pub(crate) fn error(&self, field: &str, message: impl Into<String>) -> Error {
        self.format.error(self.context, field, None, message)
    }

    /// The error for `field` of vertex `vertex` here.
    pub(crate) fn vertex_error(
        &self,
        field: &str,
        vertex: usize,
        message: impl Into<String>,
    ) -> Error {
        self.format
            .error(self.context, field, Some(vertex), message)
    }

    /// `v` as an object (`field` names it in the error).
    pub(crate) fn object<'v>(&self, v: &'v Value, field: &str) -> Result<&'v Map<String, Value>> {
        v.as_object()
            .ok_or_else(|| self.error(field, self.format.expected("a JSON object", v)))
    }

    /// `o[field]`, which must be present.
    pub(crate) fn required<'v>(&self, o: &'v Value, field: &str) -> Result<&'v Value> {
        o.get(field).ok_or_else(|| self.error(field, "missing"))
    }

    /// `o[field]` as a string, which must be present.
    pub(crate) fn string(&self, o: &Value, field: &str) -> Result<String> {
        let v = self.required(o, field)?;
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| self.error(field, self.format.expected("a string", v)))
    }

    /// `o[field]` as a string, `None` when absent or null.
    pub(crate) fn opt_string(&self, o: &Value, field: &str) -> Result<Option<String>> {
        match o.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_str()
                .map(|s| Some(s.to_string()))
                .ok_or_else(|| self.error(field, self.format.expected("a string", v))),
        }
    }

    /// `o[field]` as an array, which must be present.
    pub(crate) fn array<'v>(&self, o: &'v Value, field: &str) -> Result<&'v Vec<Value>> {
        let v = self.required(o, field)?;
        v.as_array()
            .ok_or_else(|| self.error(field, self.format.expected("an array", v)))
    }

    /// `o[field]` as a finite number, or `default` when absent or null.
    pub(crate) fn number_or(&self, o: &Value, field: &str, default: f64) -> Result<f64> {
        match o.get(field) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => match v.as_f64() {
                Some(x) if x.is_finite() => Ok(x),
                _ => Err(self.error(field, format!("expected a finite number, found {v}"))),
            },
        }
    }

    /// `o[field]` as a finite number within ±`limit`, or `default` when absent or null.
    pub(crate) fn number(&self, o: &Value, field: &str, default: f64, limit: f64) -> Result<f64> {
        match o.get(field) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => match v.as_f64() {
                Some(x) if x.is_finite() && x.abs() <= limit => Ok(x),
                Some(x) => {
                    Err(self.error(field, format!("{} is beyond ±{}", shown(x), shown(limit))))
                }
                None => Err(self.error(field, format!("expected a number, found {}", kind(v)))),
            },
        }
    }

    /// `o[field]` as an array of finite numbers.
    pub(crate) fn numbers(&self, o: &Value, field: &str) -> Result<Vec<f64>> {
        self.array(o, field)?
            .iter()
            .enumerate()
            .map(|(i, v)| match v.as_f64() {
                Some(x) if x.is_finite() => Ok(x),
                _ => Err(self.error(field, format!("entry {i} is {v}, expected a finite number"))),
            })
            .collect()
    }

    /// `o[field]` as an array of finite numbers within ±`limit`.
    pub(crate) fn numbers_within(&self, o: &Value, field: &str, limit: f64) -> Result<Vec<f64>> {
        self.array(o, field)?
            .iter()
            .enumerate()
            .map(|(i, v)| match v.as_f64() {
                Some(x) if x.is_finite() && x.abs() <= limit => Ok(x),
                _ => Err(self.error(
                    field,
                    format!(
                        "entry {i} is {}, expected a number within ±{}",
                        short(v),
                        shown(limit)
                    ),
                )),
            })
            .collect()
    }

    /// `o[field]` as a boolean, or `default` when absent or null; 0 and 1 are read as the
    /// authoring tools read them ([`crate::io::tolerance::json_flag`]), and `context field`
    /// is added to `numeric` for the report's note.
    pub(crate) fn bool_or(
        &self,
        o: &Value,
        field: &str,
        default: bool,
        numeric: &mut Vec<String>,
    ) -> Result<bool> {
        match o.get(field) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => match crate::io::tolerance::json_flag(v) {
                Some((b, was_number)) => {
                    if was_number {
                        numeric.push(format!("{} {field}", self.context));
                    }
                    Ok(b)
                }
                None => Err(self.error(field, format!("expected true/false (or 0/1), found {v}"))),
            },
        }
    }
}

/// A JSON value's kind, for "expected X, found Y".
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value for a message, cut to 40 characters.
pub(crate) fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 40 {
        format!(
            "{}...",
            &s[..s.char_indices().nth(40).map_or(s.len(), |(i, _)| i)]
        )
    } else {
        s
    }
}

/// A number for a message: as written when it is an ordinary size, in exponent form when
/// it is huge (`1e300`, not 301 digits).
pub(crate) fn shown(x: f64) -> String {
    if x.abs() < 1e9 {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}
