//! The `.tscn` / `.tres` text format (Godot 3 `format=2`, Godot 4 `format=3`) as a syntax
//! tree: sections (`[gd_scene ...]`, `[ext_resource ...]`, `[sub_resource ...]`,
//! `[node ...]`, `[connection ...]`) with their header attributes and `key = value`
//! properties. Values are Godot's Variant text syntax: numbers, strings with escapes,
//! `true`/`false`/`null`, arrays, dictionaries, `&"StringName"`, `^"NodePath"` and
//! constructors (`Vector2(...)`, `Transform2D(...)`, `PackedVector2Array(...)`,
//! `PoolRealArray(...)`, `NodePath("...")`, `ExtResource(id)`, `SubResource(id)`,
//! `Array[int]([...])`...). Comments start with `;` and run to the end of the line.
//!
//! Every section and property keeps its 1-based line number so that the importer's errors can
//! name where a value came from.

use crate::error::{Error, FormatError, Result};

/// Deepest nesting of arrays, dictionaries and constructors accepted (a scene nests a few
/// levels; the limit keeps a malicious file from overflowing the stack).
const MAX_DEPTH: usize = 64;

/// A Variant value as written in the text.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null` (Godot 4) or `nil`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number written without a fraction or exponent.
    Int(i64),
    /// Any other number (including `inf`, `-inf`, `nan`).
    Float(f64),
    /// A quoted string, escapes resolved.
    Str(String),
    /// `&"name"` (Godot 4 StringName).
    StringName(String),
    /// `NodePath("a/b")` or `^"a/b"`.
    NodePath(String),
    /// `[a, b, ...]` (also the payload of `Array[T]([...])`).
    Array(Vec<Value>),
    /// `{key: value, ...}`.
    Dict(Vec<(Value, Value)>),
    /// `Name(args...)`: vectors, transforms, packed arrays, resource references...
    Call {
        /// The constructor name, e.g. `PackedVector2Array` or `ExtResource`.
        name: String,
        /// Its arguments.
        args: Vec<Value>,
    },
}

impl Value {
    /// The number, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Int(i) => Some(i as f64),
            Value::Float(x) => Some(x),
            _ => None,
        }
    }

    /// What kind of value this is, for error messages.
    pub fn kind(&self) -> String {
        match self {
            Value::Null => "null".into(),
            Value::Bool(_) => "a boolean".into(),
            Value::Int(_) | Value::Float(_) => "a number".into(),
            Value::Str(_) => "a string".into(),
            Value::StringName(_) => "a StringName".into(),
            Value::NodePath(_) => "a NodePath".into(),
            Value::Array(_) => "an array".into(),
            Value::Dict(_) => "a dictionary".into(),
            Value::Call { name, .. } => format!("{name}(...)"),
        }
    }
}

/// One `key = value` line (the value may span lines).
#[derive(Debug, Clone)]
pub struct Property {
    /// The key, e.g. `polygon` or `tracks/0/keys`.
    pub key: String,
    /// The value.
    pub value: Value,
    /// Line of the key.
    pub line: usize,
}

/// A `[tag attr=value ...]` header and the properties under it.
#[derive(Debug, Clone)]
pub struct Section {
    /// `gd_scene`, `ext_resource`, `sub_resource`, `node`, `connection`...
    pub tag: String,
    /// Header attributes in file order.
    pub attrs: Vec<(String, Value)>,
    /// Properties in file order.
    pub properties: Vec<Property>,
    /// Line of the header.
    pub line: usize,
}

impl Section {
    /// A header attribute.
    pub fn attr(&self, name: &str) -> Option<&Value> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// A header attribute that must be a string (`name="Hip"`).
    pub fn attr_str(&self, name: &str) -> Option<&str> {
        match self.attr(name) {
            Some(Value::Str(s)) | Some(Value::StringName(s)) => Some(s),
            _ => None,
        }
    }

    /// A property (the last one when the key repeats, as Godot reads it).
    pub fn get(&self, key: &str) -> Option<&Property> {
        self.properties.iter().rev().find(|p| p.key == key)
    }
}

/// Parses a whole `.tscn` / `.tres` text into sections. Text before the first header (other
/// than blank lines and comments) is an error.
pub fn parse_tscn(text: &str) -> Result<Vec<Section>> {
    let mut p = Parser {
        src: text.as_bytes(),
        pos: 0,
        line: 1,
        depth: 0,
        field: String::new(),
    };
    let mut sections: Vec<Section> = Vec::new();
    loop {
        p.skip_space(true);
        let Some(c) = p.peek() else { break };
        if c == b'[' {
            sections.push(p.header()?);
            continue;
        }
        let line = p.line;
        let key = p.key()?;
        let Some(section) = sections.last_mut() else {
            return Err(p.error_at(
                line,
                format!("property {key:?} comes before any [section] header"),
            ));
        };
        p.field = format!("{} property {key:?}", section_name(section));
        p.skip_space(false);
        p.expect(b'=', "'=' after the property name")?;
        let value = p.value()?;
        p.end_of_line()?;
        section.properties.push(Property { key, value, line });
    }
    Ok(sections)
}

/// A section for messages: `node "Body"`, `sub_resource id="3"`, `gd_scene`.
pub fn section_name(s: &Section) -> String {
    match (s.attr_str("name"), s.attr("id")) {
        (Some(n), _) => format!("{} {n:?}", s.tag),
        (None, Some(Value::Int(i))) => format!("{} id={i}", s.tag),
        (None, Some(Value::Str(i))) => format!("{} id={i:?}", s.tag),
        _ => s.tag.clone(),
    }
}

struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
    line: usize,
    depth: usize,
    /// What is being read, for errors (`node "Body" property "polygon"`).
    field: String,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.pos += 1;
        if c == b'\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn error_at(&self, line: usize, message: impl Into<String>) -> Error {
        Error::Format(FormatError::Godot {
            line,
            field: if self.field.is_empty() {
                "file".into()
            } else {
                self.field.clone()
            },
            message: message.into(),
        })
    }

    fn error(&self, message: impl Into<String>) -> Error {
        self.error_at(self.line, message)
    }

    /// What is at the cursor, for "found ..." in messages.
    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the file".into(),
            Some(b'\n') => "the end of the line".into(),
            Some(_) => {
                let rest = &self.src[self.pos..];
                let end = rest
                    .iter()
                    .position(|&c| c == b'\n')
                    .unwrap_or(rest.len())
                    .min(24);
                format!("`{}`", String::from_utf8_lossy(&rest[..end]).trim_end())
            }
        }
    }

    /// Skips spaces, tabs, carriage returns and comments; newlines too when `newlines`.
    fn skip_space(&mut self, newlines: bool) {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' => {
                    self.bump();
                }
                b'\n' if newlines => {
                    self.bump();
                }
                b';' => {
                    while self.peek().is_some_and(|c| c != b'\n') {
                        self.bump();
                    }
                }
                _ => break,
            }
        }
    }

    fn expect(&mut self, c: u8, what: &str) -> Result<()> {
        if self.peek() == Some(c) {
            self.bump();
            Ok(())
        } else {
            Err(self.error(format!("expected {what}, found {}", self.found())))
        }
    }

    /// After a property value: only spaces and a comment before the line ends.
    fn end_of_line(&mut self) -> Result<()> {
        self.skip_space(false);
        match self.peek() {
            None | Some(b'\n') => Ok(()),
            _ => Err(self.error(format!(
                "unexpected {} after the value (one property per line)",
                self.found()
            ))),
        }
    }

    fn is_ident_char(c: u8) -> bool {
        c.is_ascii_alphanumeric() || c == b'_'
    }

    fn ident(&mut self) -> Result<String> {
        let start = self.pos;
        while self.peek().is_some_and(Self::is_ident_char) {
            self.bump();
        }
        if start == self.pos {
            return Err(self.error(format!("expected a name, found {}", self.found())));
        }
        Ok(String::from_utf8_lossy(&self.src[start..self.pos]).into_owned())
    }

    /// A property key: a quoted string, or everything up to `=` (keys hold `/`, `:`, `.`).
    fn key(&mut self) -> Result<String> {
        if self.peek() == Some(b'"') {
            return self.string();
        }
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c == b'=' || c == b'\n' {
                break;
            }
            self.bump();
        }
        let key = String::from_utf8_lossy(&self.src[start..self.pos])
            .trim()
            .to_string();
        if key.is_empty() || self.peek() != Some(b'=') {
            return Err(self.error_at(
                self.line,
                format!(
                    "expected `key = value` or a [section] header, found {}",
                    if key.is_empty() {
                        self.found()
                    } else {
                        format!("`{key}`")
                    }
                ),
            ));
        }
        Ok(key)
    }

    /// `[tag attr=value ...]`.
    fn header(&mut self) -> Result<Section> {
        let line = self.line;
        self.field = "section header".into();
        self.bump(); // '['
        self.skip_space(false);
        let tag = self.ident()?;
        self.field = format!("[{tag}] header");
        let mut attrs = Vec::new();
        loop {
            self.skip_space(false);
            match self.peek() {
                Some(b']') => {
                    self.bump();
                    break;
                }
                Some(b'\n') | None => {
                    return Err(self.error_at(
                        line,
                        format!(
                            "the [{tag} ...] header opened here is not closed with ']' on its line"
                        ),
                    ))
                }
                _ => {}
            }
            let name = self.ident()?;
            self.skip_space(false);
            self.expect(b'=', &format!("'=' after header attribute {name:?}"))?;
            self.skip_space(false);
            let value = self.value()?;
            attrs.push((name, value));
        }
        let section = Section {
            tag,
            attrs,
            properties: Vec::new(),
            line,
        };
        self.field = section_name(&section);
        self.end_of_line()?;
        Ok(section)
    }

    fn value(&mut self) -> Result<Value> {
        self.skip_space(true);
        let Some(c) = self.peek() else {
            return Err(self.error("expected a value, found the end of the file"));
        };
        match c {
            b'"' => Ok(Value::Str(self.string()?)),
            b'&' | b'^' if self.src.get(self.pos + 1) == Some(&b'"') => {
                self.bump();
                let s = self.string()?;
                Ok(if c == b'&' {
                    Value::StringName(s)
                } else {
                    Value::NodePath(s)
                })
            }
            b'[' => {
                let items = self.list(b'[', b']')?;
                Ok(Value::Array(items))
            }
            b'{' => self.dict(),
            b'-' | b'+' | b'.' | b'0'..=b'9' => self.number(),
            c if c.is_ascii_alphabetic() || c == b'_' => self.word(),
            _ => Err(self.error(format!("expected a value, found {}", self.found()))),
        }
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(format!("values nest deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    /// `open value, value, ... close` (a trailing comma is allowed, as Godot writes them).
    fn list(&mut self, open: u8, close: u8) -> Result<Vec<Value>> {
        let opened = self.line;
        self.enter()?;
        self.expect(open, &format!("'{}'", open as char))?;
        let mut items = Vec::new();
        loop {
            self.skip_space(true);
            if self.peek() == Some(close) {
                self.bump();
                break;
            }
            items.push(self.value().map_err(|e| self.unclosed(e, open, opened))?);
            self.skip_space(true);
            match self.peek() {
                Some(b',') => {
                    self.bump();
                }
                Some(c) if c == close => {}
                _ => {
                    return Err(self.unbalanced(open, close, opened));
                }
            }
        }
        self.depth -= 1;
        Ok(items)
    }

    /// The error for a bracket opened on line `opened` that is followed by something other
    /// than `,` or its closing bracket.
    fn unbalanced(&self, open: u8, close: u8, opened: usize) -> Error {
        self.error_at(
            opened,
            format!(
                "'{}' opened on line {opened} is not closed: expected ',' or '{}', found {} on line {}",
                open as char,
                close as char,
                self.found(),
                self.line
            ),
        )
    }

    /// An error inside a bracket that hit the end of the file: say where it opened.
    fn unclosed(&self, e: Error, open: u8, opened: usize) -> Error {
        if self.peek().is_none() {
            self.error_at(
                opened,
                format!(
                    "'{}' opened on line {opened} is never closed (the file ends)",
                    open as char
                ),
            )
        } else {
            e
        }
    }

    fn dict(&mut self) -> Result<Value> {
        let opened = self.line;
        self.enter()?;
        self.bump(); // '{'
        let mut entries = Vec::new();
        loop {
            self.skip_space(true);
            if self.peek() == Some(b'}') {
                self.bump();
                break;
            }
            let key = self.value().map_err(|e| self.unclosed(e, b'{', opened))?;
            self.skip_space(true);
            self.expect(b':', "':' after a dictionary key")
                .map_err(|e| self.unclosed(e, b'{', opened))?;
            let value = self.value().map_err(|e| self.unclosed(e, b'{', opened))?;
            entries.push((key, value));
            self.skip_space(true);
            match self.peek() {
                Some(b',') => {
                    self.bump();
                }
                Some(b'}') => {}
                _ => return Err(self.unbalanced(b'{', b'}', opened)),
            }
        }
        self.depth -= 1;
        Ok(Value::Dict(entries))
    }

    fn number(&mut self) -> Result<Value> {
        let start = self.pos;
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.bump();
            // `-inf`
            if self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                let w = self.ident()?;
                return match w.as_str() {
                    "inf" | "inf_neg" => Ok(Value::Float(
                        if self.src[start] == b'-' { -1.0 } else { 1.0 } * f64::INFINITY,
                    )),
                    _ => Err(self.error(format!("expected a number, found `-{w}`"))),
                };
            }
        }
        let mut float = false;
        while let Some(c) = self.peek() {
            match c {
                b'0'..=b'9' => {}
                b'.' => float = true,
                b'e' | b'E' => {
                    float = true;
                    if matches!(self.src.get(self.pos + 1), Some(b'-' | b'+')) {
                        self.bump();
                    }
                }
                _ => break,
            }
            self.bump();
        }
        let text = std::str::from_utf8(&self.src[start..self.pos]).unwrap_or("");
        let bad = || self.error(format!("`{text}` is not a number"));
        if float {
            text.parse::<f64>().map(Value::Float).map_err(|_| bad())
        } else {
            match text.parse::<i64>() {
                Ok(i) => Ok(Value::Int(i)),
                // Too long for i64: still a number.
                Err(_) => text.parse::<f64>().map(Value::Float).map_err(|_| bad()),
            }
        }
    }

    /// A keyword (`true`, `null`, `inf`...) or a constructor call `Name(...)`, including
    /// `Array[T]([...])` and `Dictionary[K, V]({...})`.
    fn word(&mut self) -> Result<Value> {
        let name = self.ident()?;
        self.skip_space(false);
        if self.peek() == Some(b'[') {
            // A typed container: skip the type parameters.
            let opened = self.line;
            let mut depth = 0usize;
            while let Some(c) = self.bump() {
                match c {
                    b'[' => depth += 1,
                    b']' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    b'\n' | b'(' | b'=' => {
                        return Err(self.error_at(
                            opened,
                            format!("the type parameters of {name}[...] are not closed"),
                        ))
                    }
                    _ => {}
                }
            }
            self.skip_space(false);
        }
        if self.peek() != Some(b'(') {
            return match name.as_str() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                "null" | "nil" => Ok(Value::Null),
                "inf" => Ok(Value::Float(f64::INFINITY)),
                "nan" => Ok(Value::Float(f64::NAN)),
                _ => Err(self.error(format!(
                    "`{name}` is not a value (expected a number, string, true/false/null or Name(...))"
                ))),
            };
        }
        let args = self.list(b'(', b')')?;
        Ok(match (name.as_str(), args.as_slice()) {
            ("NodePath", [Value::Str(s)]) => Value::NodePath(s.clone()),
            ("StringName", [Value::Str(s)]) => Value::StringName(s.clone()),
            // `Array[int]([1, 2])` is the array itself.
            ("Array", [Value::Array(a)]) => Value::Array(a.clone()),
            ("Dictionary", [d @ Value::Dict(_)]) => d.clone(),
            _ => Value::Call { name, args },
        })
    }

    /// A double-quoted string with Godot's escapes (`\n`, `\t`, `\"`, `\\`, `\uXXXX`...).
    /// Strings may span lines.
    fn string(&mut self) -> Result<String> {
        let opened = self.line;
        self.bump(); // '"'
        let mut out = Vec::new();
        loop {
            let Some(c) = self.bump() else {
                return Err(self.error_at(
                    opened,
                    format!("the string opened on line {opened} is never closed"),
                ));
            };
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(e) = self.bump() else { continue };
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' | b'U' => {
                            let digits = if e == b'u' { 4 } else { 6 };
                            let start = self.pos;
                            for _ in 0..digits {
                                self.bump();
                            }
                            let hex =
                                std::str::from_utf8(&self.src[start..self.pos.min(self.src.len())])
                                    .unwrap_or("");
                            let ch = u32::from_str_radix(hex, 16)
                                .ok()
                                .and_then(char::from_u32)
                                .ok_or_else(|| {
                                    self.error(format!(
                                        "bad escape \\{}{hex} in a string",
                                        e as char
                                    ))
                                })?;
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                _ => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| self.error("a string is not valid UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_godot_3_and_4_syntax() {
        let text = r#"[gd_scene load_steps=3 format=2]
; a comment
[ext_resource path="res://a.png" type="Texture" id=1]
[ext_resource type="Texture2D" path="res://b.png" id="2_x"]

[node name="P" type="Polygon2D" parent="."]
texture = ExtResource( 1 )
polygon = PoolVector2Array( 1, 2, 3.5, -4e2 )
bones = [ NodePath("Hip"), PoolRealArray( 0.5, 1 ), "Chest", PackedFloat32Array() ]
name = "a \"quoted\"\n\u00e9" ; trailing comment
d = {
&"fall": SubResource("1"),
"k": [1, 2,],
}
t = Array[int]([1, 2])
n = ^"a/b"
x = -inf
"#;
        let s = parse_tscn(text).unwrap();
        assert_eq!(s.len(), 4);
        assert_eq!(s[1].attr("id"), Some(&Value::Int(1)));
        assert_eq!(s[2].attr("id"), Some(&Value::Str("2_x".into())));
        let node = &s[3];
        assert_eq!(node.line, 6);
        assert_eq!(node.get("polygon").unwrap().line, 8);
        match &node.get("polygon").unwrap().value {
            Value::Call { name, args } => {
                assert_eq!(name, "PoolVector2Array");
                assert_eq!(args[3], Value::Float(-400.0));
            }
            v => panic!("{v:?}"),
        }
        match &node.get("bones").unwrap().value {
            Value::Array(a) => {
                assert_eq!(a[0], Value::NodePath("Hip".into()));
                assert_eq!(a[2], Value::Str("Chest".into()));
            }
            v => panic!("{v:?}"),
        }
        assert_eq!(
            node.get("name").unwrap().value,
            Value::Str("a \"quoted\"\né".into())
        );
        assert_eq!(
            node.get("t").unwrap().value,
            Value::Array(vec![Value::Int(1), Value::Int(2)])
        );
        assert_eq!(node.get("n").unwrap().value, Value::NodePath("a/b".into()));
        assert_eq!(
            node.get("x").unwrap().value,
            Value::Float(f64::NEG_INFINITY)
        );
        match &node.get("d").unwrap().value {
            Value::Dict(d) => assert_eq!(d.len(), 2),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn errors_name_line_and_field() {
        let e = parse_tscn("[node name=\"A\" type=\"Node2D\"]\npolygon = PackedVector2Array(1, 2\nuv = PackedVector2Array()\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 2")
                && e.contains("node \"A\" property \"polygon\"")
                && e.contains("not closed"),
            "{e}"
        );
        let e = parse_tscn("[node name=\"A\"]\nx = [1, 2\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("line 2") && e.contains("not closed") && e.contains("end of the file"),
            "{e}"
        );
        let e = parse_tscn("[node name=\"A\"]\nx = [1, \n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("never closed"), "{e}");
        let e = parse_tscn("[node name=\"A\"\nx = 1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1") && e.contains("not closed"), "{e}");
        let e = parse_tscn("x = 1\n").unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("before any"), "{e}");
        let e = parse_tscn("[a]\nx = \"abc\n").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("never closed"), "{e}");
        let e = parse_tscn("[a]\nx = bogus\n").unwrap_err().to_string();
        assert!(e.contains("`bogus` is not a value"), "{e}");
    }
}
