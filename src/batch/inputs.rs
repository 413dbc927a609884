//! A batch's inputs: folders walked, globs expanded, manifests read, each file classified as
//! a scene, a rig or a sprite (or as no item).

use super::key::normalized;
use crate::error::RigFormat;
use crate::error::{BatchError, Error, Result};
use crate::io::binary::{SCENE_MAGIC, WEIGHTS_MAGIC};
use crate::io::{extension, parse_json, Format};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Extensions a folder walk (or a glob) picks up; other files are never items there.
pub const ITEM_EXTENSIONS: [&str; 7] = ["json", "spinejson", "tscn", "gltf", "glb", "png", "swb"];

/// Extensions of a text manifest (one input a line).
pub const MANIFEST_EXTENSIONS: [&str; 3] = ["txt", "lst", "list"];

/// One file (or pattern) the batch will look at.
#[derive(Debug)]
pub struct Candidate {
    /// The input as the report names it: the path as given, or found under a given folder.
    pub input: String,
    /// The file.
    pub path: PathBuf,
    /// Named by the user (an argument or a manifest line), not found by a walk: a file that
    /// is no item is then an error row instead of being passed over.
    pub explicit: bool,
    /// Why the input cannot even be read (a glob matching nothing, a manifest that does not
    /// parse): the item is a row with this error.
    pub error: Option<Error>,
}

impl Candidate {
    fn file(path: PathBuf, explicit: bool) -> Self {
        Candidate {
            input: path.display().to_string(),
            path,
            explicit,
            error: None,
        }
    }

    fn failed(input: &str, error: Error) -> Self {
        Candidate {
            input: input.to_string(),
            path: PathBuf::from(input),
            explicit: true,
            error: Some(error),
        }
    }
}

/// What an item is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemKind {
    /// A scene file (JSON or binary).
    Scene,
    /// A rig in another tool's format.
    Rig(RigFormat),
    /// A PNG sprite and its bones file.
    Sprite {
        /// The bones file beside it.
        bones: PathBuf,
    },
}

impl ItemKind {
    /// The report's `kind`: `scene`, `sprite` or the rig format's name.
    pub fn name(&self) -> &'static str {
        match self {
            ItemKind::Scene => "scene",
            ItemKind::Rig(f) => f.name(),
            ItemKind::Sprite { .. } => "sprite",
        }
    }
}

/// Every candidate of `inputs` (folders walked, globs expanded, manifests read), once each
/// (the first spelling of a file wins), `out` and every other batch output folder (one
/// holding `.batch`) left out of walks.
pub fn expand_inputs(inputs: &[String], out: &Path) -> Vec<Candidate> {
    let mut found = Vec::new();
    let out = normalized(out);
    for input in inputs {
        expand(input, &out, true, &mut found);
    }
    let mut seen = HashSet::new();
    found.retain(|c| c.error.is_some() || seen.insert(normalized(&c.path)));
    found
}

fn has_meta(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

fn expand(input: &str, out: &Path, top: bool, found: &mut Vec<Candidate>) {
    let path = Path::new(input);
    if path.is_dir() {
        walk(path, out, found);
    } else if has_meta(input) && !path.exists() {
        let before = found.len();
        for p in glob(input) {
            if p.is_dir() {
                walk(&p, out, found);
            } else if p.is_file() && wanted(&p) {
                found.push(Candidate::file(p, false));
            }
        }
        if found.len() == before {
            found.push(Candidate::failed(
                input,
                Error::Batch(BatchError::NoMatch {
                    pattern: input.to_string(),
                }),
            ));
        }
    } else if top && path.is_file() && is_manifest(path) {
        match read_manifest(path) {
            Ok(entries) => {
                for e in entries {
                    expand(&e, out, false, found);
                }
            }
            Err(e) => found.push(Candidate::failed(input, e)),
        }
    } else {
        found.push(Candidate::file(path.to_path_buf(), true));
    }
}

/// Whether a walked file is looked at (by extension).
fn wanted(path: &Path) -> bool {
    ITEM_EXTENSIONS.contains(&extension(path).as_str())
}

/// Files under `dir` with an [`ITEM_EXTENSIONS`] extension, in name order; hidden entries,
/// `out` and batch output folders skipped.
fn walk(dir: &Path, out: &Path, found: &mut Vec<Candidate>) {
    if normalized(dir) == out || dir.join(".batch").is_dir() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        found.push(Candidate::file(dir.to_path_buf(), true));
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            walk(&p, out, found);
        } else if p.is_file() && wanted(&p) {
            found.push(Candidate::file(p, false));
        }
    }
}

/// A text manifest by extension, or a JSON file holding a list.
fn is_manifest(path: &Path) -> bool {
    let ext = extension(path);
    if MANIFEST_EXTENSIONS.contains(&ext.as_str()) {
        return true;
    }
    ext == "json"
        && std::fs::read(path)
            .ok()
            .is_some_and(|b| b.trim_ascii_start().starts_with(b"["))
}

/// A manifest's entries, relative ones resolved against its folder: a text manifest's
/// non-empty lines (`#` starts a comment line), or a JSON list of strings.
pub fn read_manifest(path: &Path) -> Result<Vec<String>> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let entries: Vec<String> = if extension(path) == "json" {
        let json = parse_json(path, &bytes)?;
        let list = json.as_array().ok_or_else(|| {
            Error::Batch(BatchError::NotAnItem {
                path: path.to_path_buf(),
                reason: "a JSON manifest must be a list of paths".into(),
            })
        })?;
        list.iter()
            .map(|v| {
                v.as_str().map(str::to_string).ok_or_else(|| {
                    Error::Batch(BatchError::NotAnItem {
                        path: path.to_path_buf(),
                        reason: format!("manifest entry {v} is not a path string"),
                    })
                })
            })
            .collect::<Result<_>>()?
    } else {
        String::from_utf8_lossy(&bytes)
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    let base = path.parent().unwrap_or(Path::new(""));
    Ok(entries
        .into_iter()
        .map(|e| {
            if Path::new(&e).is_absolute() {
                e
            } else {
                base.join(e).display().to_string()
            }
        })
        .collect())
}

/// Paths matching a glob (`*` and `?` within a name, `[abc]`/`[a-z]` classes, `**` any
/// number of folders), in name order. Hidden names match only a pattern starting with `.`.
pub fn glob(pattern: &str) -> Vec<PathBuf> {
    let parts: Vec<&str> = pattern.split('/').collect();
    let first = parts
        .iter()
        .position(|p| has_meta(p))
        .unwrap_or(parts.len());
    let base = if pattern.starts_with('/') {
        PathBuf::from("/").join(parts[1..first].join("/"))
    } else {
        PathBuf::from(parts[..first].join("/"))
    };
    let mut out = Vec::new();
    glob_in(&base, &parts[first..], &mut out);
    out.sort();
    out.dedup();
    out
}

fn glob_in(base: &Path, parts: &[&str], out: &mut Vec<PathBuf>) {
    let Some((&part, rest)) = parts.split_first() else {
        if base.exists() {
            out.push(base.to_path_buf());
        }
        return;
    };
    if part.is_empty() {
        return glob_in(base, rest, out);
    }
    let dir = if base.as_os_str().is_empty() {
        Path::new(".")
    } else {
        base
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    if part == "**" {
        glob_in(base, rest, out);
        for n in names.iter().filter(|n| !n.starts_with('.')) {
            let p = base.join(n);
            if p.is_dir() {
                glob_in(&p, parts, out);
            }
        }
        return;
    }
    for n in names {
        if (n.starts_with('.') && !part.starts_with('.')) || !wildcard(part, &n) {
            continue;
        }
        glob_in(&base.join(n), rest, out);
    }
}

/// Whether `name` matches `pattern` (`*`, `?`, `[...]` with ranges and `!`/`^` negation).
fn wildcard(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        let step = match p.get(i) {
            Some('*') => {
                star = Some((i, j));
                i += 1;
                continue;
            }
            Some('?') => Some(i + 1),
            Some('[') => class(&p, i, n[j]),
            Some(&c) if c == n[j] => Some(i + 1),
            _ => None,
        };
        match (step, star) {
            (Some(next), _) => {
                i = next;
                j += 1;
            }
            (None, Some((si, sj))) => {
                i = si + 1;
                j = sj + 1;
                star = Some((si, sj + 1));
            }
            (None, None) => return false,
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// A `[...]` class at `p[i]` against `c`: the index after the class when it matches.
fn class(p: &[char], i: usize, c: char) -> Option<usize> {
    let mut k = i + 1;
    let negate = matches!(p.get(k), Some('!' | '^'));
    if negate {
        k += 1;
    }
    let mut hit = false;
    let mut first = true;
    while k < p.len() && (first || p[k] != ']') {
        first = false;
        if k + 2 < p.len() && p[k + 1] == '-' && p[k + 2] != ']' {
            hit |= p[k] <= c && c <= p[k + 2];
            k += 3;
        } else {
            hit |= p[k] == c;
            k += 1;
        }
    }
    // An unclosed class is a literal `[`.
    if k >= p.len() {
        return (c == '[').then_some(i + 1);
    }
    (hit != negate).then_some(k + 1)
}

/// The bones file of a sprite: `STEM_bones.json` or `STEM.bones.json` beside it.
pub fn bones_beside(sprite: &Path) -> std::result::Result<PathBuf, Vec<PathBuf>> {
    let stem = sprite
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tried: Vec<PathBuf> = [format!("{stem}_bones.json"), format!("{stem}.bones.json")]
        .iter()
        .map(|n| sprite.with_file_name(n))
        .collect();
    match tried.iter().find(|p| p.is_file()) {
        Some(p) => Ok(p.clone()),
        None => Err(tried),
    }
}

/// The bones files (JSON holding a `bones` list, neither a scene, a weights file nor a rig)
/// beside `sprite` that no PNG beside them claims by name ([`bones_beside`]): a sprite's
/// bones file under another name (`hero-bones.json`, `bones.json`), which a batch would
/// otherwise pass over with the sprite in silence.
pub fn unclaimed_bones_files(sprite: &Path) -> Vec<PathBuf> {
    let dir = match sprite.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    files.sort();
    let claimed: HashSet<PathBuf> = files
        .iter()
        .filter(|p| extension(p) == "png")
        .filter_map(|p| bones_beside(p).ok())
        .collect();
    files
        .into_iter()
        .filter(|p| extension(p) == "json" && p.is_file() && !claimed.contains(p))
        .filter(|p| {
            // Bones files are small; a large JSON is a rig or a scene.
            let small = std::fs::metadata(p).is_ok_and(|m| m.len() <= 4 << 20);
            small
                && std::fs::read(p).is_ok_and(|bytes| {
                    parse_json(p, &bytes).is_ok_and(|json| {
                        json["format"].is_null()
                            && RigFormat::of_json(&json).is_none()
                            && json["bones"].is_array()
                    })
                })
        })
        .collect()
}

/// What the file `path` holding `bytes` is. `Ok(None)`: a walked file that is no item (a
/// weights, bones or texture-atlas file, a PNG without a bones file), passed over; the same
/// file named by the user ([`Candidate::explicit`]) is an error. Errors: JSON that does not
/// parse, JSON that is nothing the toolkit reads ([`BatchError::NotAnItem`]), a named sprite
/// without bones ([`BatchError::SpriteWithoutBones`]).
pub fn classify(path: &Path, bytes: &[u8], explicit: bool) -> Result<Option<ItemKind>> {
    let not_item = |reason: &str| {
        if explicit {
            Err(BatchError::NotAnItem {
                path: path.to_path_buf(),
                reason: reason.to_string(),
            }
            .into())
        } else {
            Ok(None)
        }
    };
    match extension(path).as_str() {
        "png" => return sprite_kind(path, explicit),
        ext => {
            if let Some(f) = Format::by_extension(ext) {
                return Ok(Some(ItemKind::Rig(f.kind)));
            }
        }
    }
    if bytes.starts_with(SCENE_MAGIC) {
        return Ok(Some(ItemKind::Scene));
    }
    if bytes.starts_with(WEIGHTS_MAGIC) {
        return not_item("a binary weights file");
    }
    let json = parse_json(path, bytes)?;
    if let Some(format) = json["format"].as_str() {
        if format.starts_with("skinweights.scene") {
            return Ok(Some(ItemKind::Scene));
        }
        return not_item(&format!("a {format} file"));
    }
    if let Some(f) = RigFormat::of_json(&json) {
        return Ok(Some(ItemKind::Rig(f)));
    }
    if json["SubTexture"].is_array() {
        return not_item("a DragonBones texture atlas");
    }
    if json["bones"].is_array() {
        return not_item("a bones file (give the sprite it belongs to)");
    }
    Err(BatchError::NotAnItem {
        path: path.to_path_buf(),
        reason: if json.is_array() {
            "a JSON list (give a manifest as an argument of its own)".into()
        } else {
            "JSON that is no scene file, Spine, Creature or DragonBones rig, nor bones file".into()
        },
    }
    .into())
}

/// A PNG's kind: a sprite when a bones file is beside it; else no item (a texture) when
/// walked and no unclaimed bones file is beside it, or an error naming the files tried.
fn sprite_kind(path: &Path, explicit: bool) -> Result<Option<ItemKind>> {
    match bones_beside(path) {
        Ok(bones) => Ok(Some(ItemKind::Sprite { bones })),
        Err(tried) => {
            let unclaimed = unclaimed_bones_files(path);
            if !explicit && unclaimed.is_empty() {
                // A texture (an atlas page, a background): no item.
                return Ok(None);
            }
            let mut tried = tried
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ");
            if !unclaimed.is_empty() {
                let stem = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                tried += &format!(
                    " ({} beside it {} no sprite's name matches: rename the one for \
                     this sprite {stem}_bones.json)",
                    crate::io::listed(
                        &unclaimed
                            .iter()
                            .map(|p| p.display().to_string())
                            .collect::<Vec<_>>(),
                        5,
                        ", "
                    ),
                    if unclaimed.len() == 1 {
                        "is a bones file"
                    } else {
                        "are bones files"
                    }
                );
            }
            Err(BatchError::SpriteWithoutBones {
                path: path.to_path_buf(),
                tried,
            }
            .into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::wildcard;

    #[test]
    fn wildcards_match_as_a_shell_does() {
        assert!(wildcard("*.json", "a.json"));
        assert!(!wildcard("*.json", "a.json.bak"));
        assert!(wildcard("a?c", "abc"));
        assert!(wildcard("*_ske.*", "body_ske.json"));
        assert!(wildcard("[a-c]x", "bx"));
        assert!(!wildcard("[!a-c]x", "bx"));
        assert!(wildcard("*", ""));
        assert!(!wildcard("?", ""));
        assert!(wildcard("*a*b", "xxaYYb"));
    }
}
