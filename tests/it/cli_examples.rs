//! README and every docs/ page as a newcomer uses them (issue 47, item 7): every concrete
//! `skinweights ...` line of their `sh` code blocks, run in the order a reader meets them in
//! an empty folder with `data/` and `docs/` beside it (one folder a page, pages independent),
//! exits as the page says (0, or the `# exit N` of its comment; `# not run` lines serve until
//! Ctrl-C and are skipped). Synopses with placeholders (`SCENE`, `[--flag]`) are in `text`
//! blocks, not `sh`, and are not run. Every flag `skinweights COMMAND --help` lists is in
//! docs/cli.md's section for that command.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The command-line reference.
fn page() -> String {
    read("docs/cli.md")
}

/// A page of the repository.
fn read(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// One command line of the page and what it should do.
#[derive(Debug)]
struct Example {
    /// The shell line, without its comment.
    line: String,
    /// The exit code the page gives it (`# exit N`), 0 otherwise.
    code: i32,
    /// `# not run`: a server that runs until Ctrl-C.
    skipped: bool,
}

/// Every line that starts with `skinweights ` inside a ```` ```sh ```` block, in page order.
fn examples(text: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut block: Option<&str> = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(info) = line.strip_prefix("```") {
            block = if block.is_some() { None } else { Some(info) };
            continue;
        }
        if block != Some("sh") || !line.starts_with("skinweights ") {
            continue;
        }
        let (command, comment) = match line.split_once(" #") {
            Some((c, comment)) => (c.trim(), comment.trim()),
            None => (line, ""),
        };
        let code = comment
            .strip_prefix("exit ")
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .map(|n| n.parse().expect("an exit code"))
            .unwrap_or(0);
        out.push(Example {
            line: command.to_string(),
            code,
            skipped: comment.starts_with("not run"),
        });
    }
    out
}

/// The folder holding the `skinweights` binary, to put first on `PATH`.
fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_skinweights"))
        .parent()
        .expect("the binary is in a folder")
        .to_path_buf()
}

#[test]
fn every_example_of_the_cli_reference_runs_as_the_page_says() {
    let examples = examples(&page());
    assert!(examples.len() >= 40, "{} examples", examples.len());
    assert_all_ran(&run_in_order(&examples));
}

#[test]
fn every_example_of_the_readme_runs_as_it_says() {
    let examples = examples(&read("README.md"));
    assert!(examples.len() >= 12, "{} examples", examples.len());
    assert!(
        examples.iter().any(|e| e.skipped),
        "the view line is marked"
    );
    assert_all_ran(&run_in_order(&examples));
}

#[test]
fn every_example_of_every_docs_page_runs_as_it_says() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    // The pages of docs/ and of its folder of format pages, relative to docs/.
    let mut pages: Vec<String> = ["", "formats/"]
        .into_iter()
        .flat_map(|folder| {
            std::fs::read_dir(docs.join(folder))
                .unwrap()
                .map(move |e| format!("{folder}{}", e.unwrap().file_name().to_string_lossy()))
        })
        .filter(|name| name.ends_with(".md") && name != "cli.md")
        .collect();
    pages.sort();
    let (mut run, mut wrong) = (0, Vec::new());
    for page in &pages {
        let examples = examples(&read(&format!("docs/{page}")));
        run += examples.iter().filter(|e| !e.skipped).count();
        wrong.extend(
            run_in_order(&examples)
                .into_iter()
                .map(|w| format!("docs/{page}: {w}")),
        );
    }
    assert!(run >= 55, "{run} examples run");
    assert_all_ran(&wrong);
}

/// Fails listing the lines that exited otherwise than their page says.
fn assert_all_ran(wrong: &[String]) {
    assert!(
        wrong.is_empty(),
        "examples that fail:\n{}",
        wrong.join("\n")
    );
}

/// Runs `examples` (but the skipped ones) in order in a new empty folder with `data/` and
/// `docs/` beside them and the built binary first on `PATH`; returns every line that exits otherwise
/// than its page says, with what it printed.
fn run_in_order(examples: &[Example]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    #[cfg(unix)]
    for folder in ["data", "docs"] {
        std::os::unix::fs::symlink(root.join(folder), dir.path().join(folder)).unwrap();
    }
    let path = std::env::join_paths(std::iter::once(bin_dir()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let mut wrong = Vec::new();
    for e in examples.iter().filter(|e| !e.skipped) {
        let o = Command::new("sh")
            .arg("-c")
            .arg(&e.line)
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .expect("sh runs");
        if o.status.code() != Some(e.code) {
            wrong.push(format!(
                "{}\n  exit {:?}, the page says {}: {}",
                e.line,
                o.status.code(),
                e.code,
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
    }
    wrong
}

/// The page's text for `## name`, with its subsections, up to the next `## ` heading.
fn section<'a>(text: &'a str, name: &str) -> &'a str {
    let heading = format!("\n## {name}\n");
    let start = text
        .find(&heading)
        .unwrap_or_else(|| panic!("docs/cli.md has no section `## {name}`"));
    let rest = &text[start + heading.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// The long flags `skinweights COMMAND --help` lists (without `--help`).
fn help_flags(command: &str) -> Vec<String> {
    let o = Command::new(env!("CARGO_BIN_EXE_skinweights"))
        .args([command, "--help"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{command} --help");
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l = l
                .strip_prefix("-")
                .map_or(l, |s| s.split_once(", ").map_or(l, |(_, long)| long));
            let flag: String = l
                .strip_prefix("--")?
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            (flag != "help" && !flag.is_empty()).then(|| format!("--{flag}"))
        })
        .collect()
}

#[test]
fn the_cli_reference_lists_every_flag_help_lists() {
    const COMMANDS: [&str; 15] = [
        "compare", "solve", "eval", "lint", "plot", "scene", "mesh", "import", "export", "pose",
        "render", "bleed", "view", "repair", "correct",
    ];
    let text = page();
    let conventions = section(&text, "Conventions");
    let mut missing = Vec::new();
    for command in COMMANDS {
        let own = section(&text, command);
        for flag in help_flags(command) {
            // The built-in scene options are documented once, under Conventions.
            let generator = ["--gap", "--vertices", "--overlap"].contains(&flag.as_str());
            let listed =
                |t: &str| t.contains(&format!("`{flag}")) || t.contains(&format!("{flag} "));
            let documented = listed(own) || (generator && listed(conventions));
            if !documented {
                missing.push(format!("{command} {flag}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "flags --help lists that docs/cli.md does not:\n{}",
        missing.join("\n")
    );
}

#[test]
fn examples_are_read_with_their_exit_codes() {
    let text = "```sh\nskinweights a  # exit 1: why\nskinweights b\nskinweights view # not run\n```\n```text\nskinweights c\n```\n";
    let e = examples(text);
    assert_eq!(e.len(), 3);
    assert_eq!((e[0].line.as_str(), e[0].code), ("skinweights a", 1));
    assert_eq!((e[1].code, e[1].skipped, e[2].skipped), (0, false, true));
}
