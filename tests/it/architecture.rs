//! ARCHITECTURE.md's import rule, held: "imports go downwards only". Every `crate::` path in
//! the library's sources (`src/**/*.rs`, but not `src/cli/` and `src/main.rs`, the top) is
//! read, and an import of a top-level module on the same level or above the importing one
//! fails, as does a cycle between top-level modules. Test code (`#[cfg(test)]` items and the
//! files they declare), comments and strings are not imports.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The top-level modules, bottom to top: a module imports only modules on lower levels
/// (ARCHITECTURE.md, "Imports go downwards only"; keep the two in step). Modules on one level
/// import none of each other.
const LAYERS: &[&[&str]] = &[
    &["geometry"],
    &["mesh", "skeleton", "weights"],
    &["animation", "skinning"],
    &["scene"],
    &["solvers", "correctives"],
    &["binding", "seams", "metrics", "transfer"],
    &["lint", "compare"],
    &["io", "plot"],
    &["render"],
    &["pipeline"],
    &["batch"],
    &["cli"],
];

/// What the crate root holds besides the modules (ARCHITECTURE.md, "One path per public
/// item"): `Error`, `Result`, the domain errors (the `error` module) and the nalgebra
/// re-exports. Every module may name them.
fn is_root_item(name: &str) -> bool {
    name == "error" || name == "nalgebra" || name.starts_with(|c: char| c.is_ascii_uppercase())
}

fn level(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// One `crate::` path in a source file.
#[derive(Debug, Clone, PartialEq)]
struct Import {
    /// 1-based line.
    line: usize,
    /// The top-level module it names.
    module: String,
    /// The source line, trimmed.
    text: String,
}

/// Blanks comments, string and character literals (newlines kept), so that what is left is
/// code and line numbers still hold.
fn blank_comments_and_strings(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(c.len());
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    let at = |i: usize, k: usize| c.get(i + k).copied();
    let mut i = 0;
    while i < c.len() {
        if c[i] == '/' && at(i, 1) == Some('/') {
            while i < c.len() && c[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c[i] == '/' && at(i, 1) == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i, 1) == Some('*') {
                    depth += 1;
                    out.extend([' ', ' ']);
                    i += 2;
                } else if c[i] == '*' && at(i, 1) == Some('/') {
                    depth -= 1;
                    out.extend([' ', ' ']);
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
        } else if c[i] == 'r' && matches!(at(i, 1), Some('"') | Some('#')) && !ident_before(&c, i) {
            let hashes = c[i + 1..].iter().take_while(|&&h| h == '#').count();
            if c.get(i + 1 + hashes) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            let end: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let body_start = i + 2 + hashes;
            let body: String = c[body_start..].iter().collect();
            let len = body.find(&end).map_or(c.len() - body_start, |k| {
                body[..k].chars().count() + end.len()
            });
            for &ch in &c[i..(body_start + len).min(c.len())] {
                out.push(blank(ch));
            }
            i = body_start + len;
        } else if c[i] == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                let skip = if c[i] == '\\' { 2 } else { 1 };
                for _ in 0..skip.min(c.len() - i) {
                    out.push(blank(c[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c[i] == '\'' && (at(i, 1) == Some('\\') || at(i, 2) == Some('\'')) {
            // A character literal ('a', '\n', '\u{..}'); a lifetime ('a) has no closing quote.
            let close = c[i + 2..]
                .iter()
                .position(|&ch| ch == '\'')
                .map(|k| i + 2 + k);
            let end = close.map_or(i + 1, |k| k + 1);
            out.extend(std::iter::repeat_n(' ', end - i));
            i = end;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out.into_iter().collect()
}

fn ident_before(c: &[char], i: usize) -> bool {
    i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_')
}

/// Blanks every item under `#[cfg(test)]` (a `mod tests { .. }`, a `use`, a function) and
/// returns the names of the `#[cfg(test)] mod NAME;` files it declares.
fn blank_test_items(code: &str) -> (String, Vec<String>) {
    let mut c: Vec<char> = code.chars().collect();
    let mut test_files = Vec::new();
    let marker: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + marker.len() <= c.len() {
        if c[i..i + marker.len()] != marker[..] {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + marker.len();
        let mut depth = 0usize;
        let mut end = c.len();
        while j < c.len() {
            match c[j] {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = j + 1;
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        let item: String = c[start..end].iter().collect();
        let words: Vec<&str> = item
            .split(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == ';'))
            .filter(|w| !w.is_empty())
            .collect();
        if let Some(k) = words.iter().position(|&w| w == "mod") {
            if let Some(name) = words.get(k + 1).and_then(|w| w.strip_suffix(';')) {
                test_files.push(name.to_string());
            }
        }
        for ch in &mut c[start..end] {
            if *ch != '\n' {
                *ch = ' ';
            }
        }
        i = end;
    }
    (c.into_iter().collect(), test_files)
}

/// The `crate::` paths (and `super::` paths that leave the top-level module) in one source
/// file of module `module_path` (`["solvers", "bbw"]` for `src/solvers/bbw.rs`), with the
/// top-level module each names. Root items ([`is_root_item`]) are left out.
fn imports_of(text: &str, module_path: &[&str]) -> Vec<Import> {
    let code = blank_test_items(&blank_comments_and_strings(text)).0;
    let source: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    // Inline modules (`pub mod internals { .. }`) deepen `super::`: the brace depth each
    // opened at.
    let (mut depth, mut inline): (usize, Vec<usize>) = (0, Vec::new());
    for (n, line) in code.lines().enumerate() {
        let deep = module_path.len() + inline.len();
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(k) = words.iter().position(|&w| w == "mod") {
            if words.get(k + 2) == Some(&"{") || words.get(k + 1).is_some_and(|w| w.ends_with('{'))
            {
                inline.push(depth);
            }
        }
        depth += line.matches('{').count();
        depth = depth.saturating_sub(line.matches('}').count());
        inline.retain(|&d| d < depth);
        let mut names = Vec::new();
        for (k, _) in line.match_indices(['c', 's']) {
            if line[..k].ends_with(|ch: char| ch.is_alphanumeric() || ch == '_') {
                continue;
            }
            let mut tail = &line[k..];
            if let Some(path) = tail.strip_prefix("crate::") {
                names.extend(first_segments(path, line, &code, n));
                continue;
            }
            let mut supers = 0;
            while let Some(t) = tail.strip_prefix("super::") {
                supers += 1;
                tail = t;
            }
            // `super::` as many times as the file is deep names the crate root.
            if supers > 0 && supers >= deep {
                names.extend(first_segments(tail, line, &code, n));
            }
        }
        for name in names {
            if !is_root_item(&name) && name != module_path[0] {
                found.push(Import {
                    line: n + 1,
                    module: name,
                    text: source.get(n).map_or("", |s| s.trim()).to_string(),
                });
            }
        }
    }
    found.dedup();
    found
}

/// The first segment of a path (`scene` of `scene::Scene`), or of each path of a group
/// (`{scene::Scene, weights::Weights}`, which may run over several lines).
fn first_segments(path: &str, line: &str, code: &str, n: usize) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|ch| ch.is_alphanumeric() || *ch == '_')
            .collect()
    };
    if !path.trim_start().starts_with('{') {
        return vec![ident(path)];
    }
    // The group, from this line on, to its closing brace.
    let offset = line.len() - path.len();
    let from_here: String = std::iter::once(&line[offset..])
        .chain(code.lines().skip(n + 1))
        .collect::<Vec<_>>()
        .join("\n");
    let body = from_here.trim_start().strip_prefix('{').unwrap_or("");
    let (mut depth, mut start, mut names) = (0usize, 0usize, Vec::new());
    for (k, ch) in body.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' if depth == 0 => {
                names.push(ident(&body[start..k]));
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                names.push(ident(&body[start..k]));
                start = k + 1;
            }
            _ => {}
        }
    }
    names.retain(|s| !s.is_empty() && s != "self");
    names
}

/// An import breaking the rule, as a line of the failure message.
fn check_file(file: &str, text: &str, module_path: &[&str]) -> Vec<String> {
    let from = module_path[0];
    let mut broken = Vec::new();
    let Some(own) = level(from) else {
        return vec![format!(
            "{file}: module `{from}` is not in the layer table (tests/it/architecture.rs \
             LAYERS and ARCHITECTURE.md's rule): add it on its level"
        )];
    };
    for i in imports_of(text, module_path) {
        let why = match level(&i.module) {
            None => format!("`{}` is not in the layer table", i.module),
            Some(l) if l > own => format!("`{from}` is below `{}`: an upward import", i.module),
            Some(l) if l == own => format!("`{from}` and `{}` are on one level", i.module),
            Some(_) => continue,
        };
        broken.push(format!("{file}:{}: {} ({why})", i.line, i.text));
    }
    broken
}

/// Every library source file with its module path, test-only files left out.
fn library_files(src: &Path) -> Vec<(String, PathBuf, Vec<String>)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(src, &mut paths);
    paths.sort();
    let mut test_only = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let (_, names) = blank_test_items(&blank_comments_and_strings(&text));
        let dir = match path.file_name().and_then(|f| f.to_str()) {
            Some("mod.rs") | Some("lib.rs") | Some("main.rs") => {
                path.parent().unwrap().to_path_buf()
            }
            _ => path.with_extension(""),
        };
        for name in names {
            test_only.push(dir.join(format!("{name}.rs")));
            test_only.push(dir.join(name).join("mod.rs"));
        }
    }
    paths
        .into_iter()
        .filter(|p| !test_only.contains(p))
        .filter_map(|p| {
            let rel = p.strip_prefix(src).unwrap().to_path_buf();
            let mut segments: Vec<String> = rel
                .iter()
                .map(|s| s.to_str().unwrap().trim_end_matches(".rs").to_string())
                .collect();
            if segments.last().is_some_and(|s| s == "mod") {
                segments.pop();
            }
            let top = segments.first()?.clone();
            // The top (`cli`, `main.rs`) and the root (`lib.rs`, `error.rs`: what every module
            // may name).
            if ["cli", "main", "lib", "error"].contains(&top.as_str()) {
                return None;
            }
            Some((format!("src/{}", rel.display()), p, segments))
        })
        .collect()
}

/// The cycles between top-level modules of `edges` (module -> modules it imports, each with
/// where), one line each: `a -> b (src/a.rs:3) -> a (src/b.rs:9)`.
fn cycles(edges: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<String> {
    let mut found = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for start in edges.keys() {
        // Depth-first from `start`, only through modules after it (each cycle once, from its
        // smallest module).
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        while let Some((at, path)) = stack.pop() {
            for next in edges.get(&at).into_iter().flat_map(|m| m.keys()) {
                if next == start {
                    let mut ring = path.clone();
                    ring.push(start.clone());
                    let key = ring.clone();
                    if seen.insert(key) {
                        let mut line = start.clone();
                        for w in ring.windows(2) {
                            line += &format!(" -> {} ({})", w[1], edges[&w[0]][&w[1]]);
                        }
                        found.push(line);
                    }
                } else if next > start && !path.contains(next) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    found
}

#[test]
fn imports_go_downwards_only_and_modules_form_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut broken = Vec::new();
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (file, path, segments) in library_files(&src) {
        let text = std::fs::read_to_string(&path).unwrap();
        let module_path: Vec<&str> = segments.iter().map(String::as_str).collect();
        broken.extend(check_file(&file, &text, &module_path));
        for i in imports_of(&text, &module_path) {
            edges
                .entry(module_path[0].to_string())
                .or_default()
                .entry(i.module)
                .or_insert(format!("{file}:{}", i.line));
        }
    }
    for cycle in cycles(&edges) {
        broken.push(format!("cycle between modules: {cycle}"));
    }
    assert!(
        broken.is_empty(),
        "imports against ARCHITECTURE.md's rule (imports go downwards only; the order is \
         LAYERS in tests/it/architecture.rs):\n{}",
        broken.join("\n")
    );
    // The table names the modules that exist (a renamed module must be renamed here too).
    for module in LAYERS.iter().flat_map(|l| l.iter()) {
        let exists = src.join(module).is_dir() || src.join(format!("{module}.rs")).is_file();
        assert!(exists, "LAYERS names `{module}`, which is not in src/");
    }
}

#[test]
fn a_planted_upward_import_is_named_with_its_file_and_line() {
    let text = "//! A scene module.\n\
                use crate::mesh::Mesh;\n\
                use crate::solvers::Solver;\n\
                pub fn f() {}\n";
    let broken = check_file("src/scene/planted.rs", text, &["scene", "planted"]);
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert!(
        broken[0].starts_with("src/scene/planted.rs:3: use crate::solvers::Solver;"),
        "{}",
        broken[0]
    );
    assert!(broken[0].contains("upward"), "{}", broken[0]);
}

#[test]
fn groups_paths_in_code_and_super_paths_are_read_and_tests_comments_strings_are_not() {
    let text = "use crate::{\n    geometry::Segment,\n    metrics::{evaluate, Metrics},\n};\n\
                // use crate::lint::Check;\n\
                /// [`crate::io::Sprite`]\n\
                fn f() -> usize { let s = \"crate::plot\"; crate::compare::count(s) }\n\
                fn g() { super::super::render::draw(); }\n\
                #[cfg(test)]\nmod tests {\n    use crate::batch::Batch;\n}\n\
                #[cfg(test)]\nuse crate::cli::Args;\n\
                fn h(x: &crate::Error) -> crate::error::Result<()> { let c = '{'; Ok(()) }\n";
    let modules: Vec<(usize, String)> = imports_of(text, &["mesh", "inner"])
        .into_iter()
        .map(|i| (i.line, i.module))
        .collect();
    assert_eq!(
        modules,
        [
            (1, "geometry".to_string()),
            (1, "metrics".to_string()),
            (7, "compare".to_string()),
            (8, "render".to_string()),
        ]
    );
    let broken = check_file("src/mesh/inner.rs", text, &["mesh", "inner"]);
    assert_eq!(broken.len(), 3, "{broken:?}");
    assert!(
        broken[0].starts_with("src/mesh/inner.rs:1: use crate::{"),
        "{}",
        broken[0]
    );
}

#[test]
fn a_cycle_between_modules_is_named_with_where_each_import_is() {
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    edges
        .entry("scene".into())
        .or_default()
        .insert("correctives".into(), "src/scene/mod.rs:24".into());
    edges
        .entry("correctives".into())
        .or_default()
        .insert("scene".into(), "src/correctives/mod.rs:37".into());
    edges
        .entry("correctives".into())
        .or_default()
        .insert("mesh".into(), "src/correctives/fit.rs:48".into());
    assert_eq!(
        cycles(&edges),
        ["correctives -> scene (src/correctives/mod.rs:37) -> correctives (src/scene/mod.rs:24)"]
    );
}
