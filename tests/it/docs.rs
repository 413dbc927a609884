//! The documentation a newcomer navigates: every relative link in README, ARCHITECTURE and
//! `docs/` names a file (and heading) that exists, every `docs/` page is reachable from
//! README in at most two clicks (README or `docs/README.md` links it; a format's page is
//! in the folder `docs/formats/` README links), each row of the format table has its page
//! there and each page there is a row's, and no page names a repository path
//! (`src/...rs`, `docs/...md`, ...) the repository lacks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The format pages' folder, relative to the root: one page per row of the format table.
const FORMAT_PAGES: &str = "docs/formats";

/// README, ARCHITECTURE, python/README, every `docs/*.md` and every format page, relative to
/// the root.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "python/README.md"]
        .iter()
        .map(PathBuf::from)
        .collect();
    pages.extend(markdown_in("docs"));
    pages.extend(markdown_in(FORMAT_PAGES));
    pages
}

/// The `.md` files in the folder `dir` (relative to the root), sorted.
fn markdown_in(dir: &str) -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| {
            p.strip_prefix(root())
                .expect("under the root")
                .to_path_buf()
        })
        .collect();
    pages.sort();
    pages
}

fn read(page: &Path) -> String {
    std::fs::read_to_string(root().join(page)).unwrap_or_else(|e| panic!("{page:?}: {e}"))
}

/// The text with fenced code blocks blanked out (a code sample's `[a](b)` is no link).
fn without_code_blocks(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The text with inline code spans (`` `...` ``) removed as well.
fn without_code(text: &str) -> String {
    without_code_blocks(text)
        .split('`')
        .step_by(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `(target, anchor)` of every Markdown link `[text](target#anchor)` that is not a URL.
fn relative_links(text: &str) -> Vec<(String, Option<String>)> {
    let text = without_code(text);
    let mut links = Vec::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let Some(end) = rest.find(')') else { break };
        let link = &rest[..end];
        rest = &rest[end..];
        if link.contains("://") || link.starts_with("mailto:") || link.contains(char::is_whitespace)
        {
            continue;
        }
        let (target, anchor) = match link.split_once('#') {
            Some((t, a)) => (t.to_string(), Some(a.to_string())),
            None => (link.to_string(), None),
        };
        links.push((target, anchor));
    }
    links
}

/// GitHub's heading anchors: lower case, punctuation other than `-` and `_` dropped, spaces
/// to `-`.
fn anchors(markdown: &str) -> BTreeSet<String> {
    without_code_blocks(markdown)
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| {
            l.trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

#[test]
fn every_relative_link_names_an_existing_file_and_heading() {
    let mut broken = Vec::new();
    for page in pages() {
        let dir = page.parent().unwrap_or(Path::new(""));
        for (target, anchor) in relative_links(&read(&page)) {
            let file = if target.is_empty() {
                page.clone()
            } else {
                dir.join(&target)
            };
            if !root().join(&file).exists() {
                broken.push(format!("{}: {target} does not exist", page.display()));
                continue;
            }
            if let (Some(anchor), true) = (anchor, file.extension().is_some_and(|e| e == "md")) {
                if !anchors(&read(&file)).contains(&anchor) {
                    broken.push(format!(
                        "{}: {target}#{anchor}: no such heading",
                        page.display()
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_docs_page_is_linked_from_readme_or_the_docs_index() {
    let readme = read(Path::new("README.md"));
    let index = read(Path::new("docs/README.md"));
    assert!(
        readme.contains("(docs/README.md)"),
        "README links the docs index"
    );
    assert!(
        readme.contains(&format!("({FORMAT_PAGES}/)")) && index.contains("(formats/)"),
        "README and the docs index link the format pages' folder"
    );
    let unlinked: Vec<String> = pages()
        .into_iter()
        .filter(|p| p.parent() == Some(Path::new("docs")) && p != Path::new("docs/README.md"))
        .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
        .filter(|name| {
            !readme.contains(&format!("(docs/{name}")) && !index.contains(&format!("({name}"))
        })
        .collect();
    assert!(unlinked.is_empty(), "pages no index links: {unlinked:?}");
}

/// A format's page is `docs/formats/NAME.md`, NAME its row's name in the format table, so
/// that a new format needs no link to its page anywhere else.
#[cfg(feature = "io")]
#[test]
fn every_format_has_its_page_and_every_format_page_is_a_format() {
    let rows: BTreeSet<String> = skinweights::io::FORMATS
        .iter()
        .map(|f| format!("{FORMAT_PAGES}/{}.md", f.name))
        .collect();
    let pages: BTreeSet<String> = markdown_in(FORMAT_PAGES)
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let without_page: Vec<_> = rows.difference(&pages).collect();
    let without_row: Vec<_> = pages.difference(&rows).collect();
    assert!(
        without_page.is_empty() && without_row.is_empty(),
        "format pages missing: {without_page:?}; pages of no format: {without_row:?}"
    );
}

#[test]
fn the_scene_format_cli_reference_and_solver_table_are_one_click_from_readme() {
    let readme = read(Path::new("README.md"));
    for page in ["docs/formats.md", "docs/cli.md", "docs/solvers.md"] {
        assert!(readme.contains(&format!("({page}")), "README links {page}");
    }
    assert!(anchors(&read(Path::new("docs/formats.md")))
        .iter()
        .any(|a| a.contains("scene")));
}

/// Repository paths in backticks or links (`src/solvers/best.rs`, `docs/cli.md`): each
/// must exist, from the root or from the page's folder.
#[test]
fn no_page_names_a_repository_file_that_does_not_exist() {
    const TOP: [&str; 10] = [
        "src/",
        "docs/",
        "tests/",
        "experiments/",
        "examples/",
        "benches/",
        "scripts/",
        "python/",
        "data/",
        ".ci/",
    ];
    let mut missing = Vec::new();
    for page in pages() {
        let text = read(&page);
        let dir = page.parent().unwrap_or(Path::new(""));
        for word in text.split(|c: char| {
            c.is_whitespace()
                || matches!(c, '`' | '(' | ')' | '[' | ']' | ',' | ';' | '"' | '<' | '>')
        }) {
            let word = word.trim_end_matches(['.', ':']);
            let word = word.split(['#', ':']).next().unwrap_or(word);
            let named_file = TOP.iter().any(|t| word.starts_with(t))
                && Path::new(word).extension().is_some()
                && !word.contains(['*', '{', '$', '…'])
                && !word.contains("...");
            if named_file && !root().join(word).exists() && !root().join(dir).join(word).exists() {
                missing.push(format!("{}: {word}", page.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "named files missing:\n{}",
        missing.join("\n")
    );
}
