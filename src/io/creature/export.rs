//! A scene's weights → a copy of the Creature file it came from, with only each region's
//! `weights` rewritten. The rest of the text is kept byte for byte (key order, number
//! spelling, whitespace): the new `weights` objects are spliced into the source text.

use super::creature_error;
use super::parse::{parse_creature, FileCreature};
use crate::error::{Error, Result};
use crate::scene::Scene;
use crate::weights::{Weights, EXPORT_ROW_SUM_TOLERANCE};
use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

/// How far a scene vertex may be from its source point for the scene to be taken as the
/// source's mesh.
const MATCH_TOLERANCE: f64 = 1e-3;

/// `source_text` (a Creature JSON file) with every region's `weights` replaced by `weights`
/// (one array per scene bone, one weight per region point). The scene must be the source's:
/// its vertices the source regions' points in point order (as [`super::import_creature`]
/// builds it), each within 1e-3 of the file's position, and its bones named as the source's.
///
/// Errors: the source's own parse errors; [`WeightsError::WeightsShape`](crate::error::WeightsError::WeightsShape) when the weights do not
/// fit the scene; weights that are not finite, negative or rows not summing to 1
/// ([`Weights::validate_with_tolerance`]); [`FormatError::Rig`](crate::error::FormatError::Rig) (context `export`) when the
/// vertex count or a position differs from the source's (naming the point), or a scene bone
/// is not in the source's skeleton.
pub(crate) fn export_creature(
    source_text: &str,
    scene: &Scene,
    weights: &Weights,
) -> Result<String> {
    crate::skinning::check_shape(scene.mesh().vertex_count(), weights, scene.skeleton().len())?;
    weights.validate_with_tolerance(EXPORT_ROW_SUM_TOLERANCE)?;
    let file = parse_creature(source_text)?;
    check_match(&file, scene)?;
    let names = scene.skeleton().names();
    let mut replacements: HashMap<String, String> = HashMap::with_capacity(file.regions.len());
    let mut first_vertex = 0;
    for r in &file.regions {
        let rows = first_vertex..first_vertex + r.points;
        replacements.insert(r.name.clone(), weights_json(&names, weights, rows));
        first_vertex += r.points;
    }
    let spans = weights_spans(source_text)?;
    let mut edits: Vec<(Range<usize>, &str)> = Vec::with_capacity(spans.len());
    for (region, span) in &spans {
        let Some(text) = replacements.get(region) else {
            continue;
        };
        edits.push((span.clone(), text.as_str()));
    }
    edits.sort_by_key(|(span, _)| span.start);
    let mut out = String::with_capacity(source_text.len());
    let mut at = 0;
    for (span, text) in edits {
        out.push_str(&source_text[at..span.start]);
        out.push_str(text);
        at = span.end;
    }
    out.push_str(&source_text[at..]);
    Ok(out)
}

/// [`export_creature`] with the source read from its file (its errors name it).
pub(crate) fn creature_file(scene: &Scene, weights: &Weights, source: &Path) -> Result<String> {
    let text = std::fs::read_to_string(source).map_err(|e| Error::io(source, e))?;
    export_creature(&text, scene, weights).map_err(|e| e.in_file(source))
}

/// The scene's vertices are the source regions' points, in order, within
/// [`MATCH_TOLERANCE`]; its bones are the source's.
fn check_match(file: &FileCreature, scene: &Scene) -> Result<()> {
    let n: usize = file.regions.iter().map(|r| r.points).sum();
    let vertices = scene.mesh().vertices();
    if vertices.len() != n {
        return Err(creature_error(
            "export",
            "mesh.points",
            None,
            format!(
                "the scene has {} vertices, the source's regions {n} points: not the scene imported from this file",
                vertices.len()
            ),
        ));
    }
    let mut v = 0;
    for r in &file.regions {
        for (k, p) in file.points[r.first_point..r.first_point + r.points]
            .iter()
            .enumerate()
        {
            let q = vertices[v];
            let d = (q.x - p[0]).hypot(q.y - p[1]);
            if d.is_nan() || d > MATCH_TOLERANCE {
                return Err(creature_error(
                    "export",
                    "mesh.points",
                    Some(r.first_point + k),
                    format!(
                        "scene vertex {v} is at ({}, {}), {d:e} from the source's ({}, {}) in region {:?} (at most {MATCH_TOLERANCE})",
                        q.x, q.y, p[0], p[1], r.name
                    ),
                ));
            }
            v += 1;
        }
    }
    for b in scene.skeleton().bones() {
        if !file.bones.iter().any(|f| f.name == b.name) {
            return Err(creature_error(
                "export",
                "skeleton",
                None,
                format!(
                    "the scene's bone {:?} is not in the source's skeleton",
                    b.name
                ),
            ));
        }
    }
    Ok(())
}

/// A region's `weights` object: each bone's weights over `rows`, in the scene's bone order.
fn weights_json(names: &[String], weights: &Weights, rows: Range<usize>) -> String {
    let mut obj = serde_json::Map::with_capacity(names.len());
    for (j, name) in names.iter().enumerate() {
        let column: Vec<serde_json::Value> = rows
            .clone()
            .map(|v| serde_json::Value::from(weights.get(v, j)))
            .collect();
        obj.insert(name.clone(), serde_json::Value::Array(column));
    }
    serde_json::Value::Object(obj).to_string()
}

/// Byte spans of every `mesh.regions.<name>.weights` value in the text, by region name (a
/// key written twice: the last, as serde_json reads it). The text has already parsed as JSON.
fn weights_spans(text: &str) -> Result<HashMap<String, Range<usize>>> {
    let mut s = Scanner {
        b: text.as_bytes(),
        at: 0,
    };
    let mut out = HashMap::new();
    let broken = || {
        creature_error(
            "export",
            "(source)",
            None,
            "the source text is not the JSON it parsed as",
        )
    };
    s.ws();
    let root = s.members().ok_or_else(broken)?;
    for (_, span) in root.iter().filter(|(k, _)| k == "mesh") {
        let mut mesh = Scanner {
            b: text.as_bytes(),
            at: span.start,
        };
        for (_, span) in mesh
            .members()
            .ok_or_else(broken)?
            .iter()
            .filter(|(k, _)| k == "regions")
        {
            let mut regions = Scanner {
                b: text.as_bytes(),
                at: span.start,
            };
            for (name, span) in regions.members().ok_or_else(broken)? {
                let mut region = Scanner {
                    b: text.as_bytes(),
                    at: span.start,
                };
                for (k, span) in region.members().ok_or_else(broken)? {
                    if k == "weights" {
                        out.insert(name.clone(), span);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// A minimal JSON scanner over text that is known to be JSON: finds the members of an
/// object and their value spans, skipping values without building them.
struct Scanner<'a> {
    b: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self.at < self.b.len() && self.b[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    /// At a `{`: each member's decoded key and the byte span of its value; `None` when the
    /// value here is not an object.
    fn members(&mut self) -> Option<Vec<(String, Range<usize>)>> {
        self.ws();
        if self.b.get(self.at) != Some(&b'{') {
            return None;
        }
        self.at += 1;
        let mut out = Vec::new();
        loop {
            self.ws();
            match self.b.get(self.at)? {
                b'}' => return Some(out),
                b',' => {
                    self.at += 1;
                    continue;
                }
                _ => {}
            }
            let k0 = self.at;
            self.string()?;
            let key: String = serde_json::from_slice(&self.b[k0..self.at]).ok()?;
            self.ws();
            if self.b.get(self.at) != Some(&b':') {
                return None;
            }
            self.at += 1;
            self.ws();
            let v0 = self.at;
            self.value()?;
            out.push((key, v0..self.at));
        }
    }

    /// Past a string starting at `self.at`.
    fn string(&mut self) -> Option<()> {
        if self.b.get(self.at) != Some(&b'"') {
            return None;
        }
        self.at += 1;
        while let Some(&c) = self.b.get(self.at) {
            self.at += 1;
            match c {
                b'\\' => self.at += 1,
                b'"' => return Some(()),
                _ => {}
            }
        }
        None
    }

    /// Past one value (iteratively: nesting depth is a counter, not recursion).
    fn value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            self.ws();
            let c = *self.b.get(self.at)?;
            match c {
                b'"' => self.string()?,
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    self.at += 1;
                }
                b',' | b':' if depth > 0 => self.at += 1,
                _ => {
                    // A number or literal: up to the next delimiter.
                    let start = self.at;
                    while self.at < self.b.len()
                        && !matches!(self.b[self.at], b',' | b'}' | b']' | b':')
                        && !self.b[self.at].is_ascii_whitespace()
                    {
                        self.at += 1;
                    }
                    if self.at == start {
                        return None;
                    }
                }
            }
            if depth == 0 {
                return Some(());
            }
        }
    }
}
