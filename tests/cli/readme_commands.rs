#![cfg(not(target_arch = "wasm32"))]
//! Every command and code block of README.md, checked by running it (issue 20): `tilelab` commands
//! run with the test build of the binary and must succeed (with `--json`, one JSON object per
//! non-empty code cell; with `--trace-out`, trace files written); `<tile-lab>` cells and Python
//! blocks run in a session and must not fail; commands that cannot run inside a test (`make …`,
//! `cargo bench`, `cargo fuzz`) must name targets and paths that exist. A command of a form this
//! test does not know fails it, so a new README command cannot go unchecked.

use std::path::{Path, PathBuf};
use std::process::Command;

use tilelab::session::{CellKind, Notebook, Session};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The fenced blocks of the README as (language, body).
fn blocks() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let mut blocks = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        match (line.strip_prefix("```"), current.take()) {
            (Some(language), None) => current = Some((language.trim().to_string(), String::new())),
            (Some(_), Some(block)) => blocks.push(block),
            (None, Some((language, mut body))) => {
                body.push_str(line);
                body.push('\n');
                current = Some((language, body));
            }
            (None, None) => {}
        }
    }
    assert!(current.is_none(), "an unclosed code block in README.md");
    blocks
}

/// A shell line without its trailing ` # comment`.
fn command_of(line: &str) -> &str {
    line.find(" # ").map_or(line, |at| &line[..at]).trim()
}

fn words(command: &str) -> Vec<String> {
    command.split_whitespace().map(str::to_string).collect()
}

/// The code cells of a notebook file that have code in them.
fn non_empty_code_cells(path: &Path) -> usize {
    let notebook = Notebook::from_py(&std::fs::read_to_string(path).expect("notebook")).expect("a notebook");
    notebook.cells.iter().filter(|cell| cell.kind == CellKind::Code && !cell.source.trim().is_empty()).count()
}

/// `cargo run --release --bin tilelab -- ARGS`: the test build of the same binary with ARGS.
fn run_tilelab(arguments: &[String]) {
    let scratch = std::env::temp_dir().join(format!("tilelab-readme-{}", std::process::id()));
    let arguments: Vec<String> = arguments.to_vec();
    let mut trace_dir = None;
    let mut resolved = Vec::new();
    let mut iterator = arguments.iter();
    while let Some(argument) = iterator.next() {
        resolved.push(argument.clone());
        if argument == "--trace-out" {
            let directory = scratch.join(iterator.next().expect("--trace-out DIR"));
            resolved.push(directory.display().to_string());
            trace_dir = Some(directory);
        }
    }
    let output = Command::new(env!("CARGO_BIN_EXE_tilelab")).args(&resolved).current_dir(root()).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "tilelab {resolved:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    if resolved.iter().any(|argument| argument == "--json") {
        let file = resolved.iter().find(|argument| argument.ends_with(".py")).expect("a notebook argument");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), non_empty_code_cells(&root().join(file)), "one JSON object per non-empty code cell");
        for line in lines {
            serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|error| panic!("{error}: {line}"));
        }
    }
    if let Some(directory) = trace_dir {
        let traces = std::fs::read_dir(&directory).map(|entries| entries.count()).unwrap_or(0);
        assert!(traces > 0, "--trace-out wrote no trace into {}", directory.display());
        std::fs::remove_dir_all(&scratch).ok();
    }
}

/// `make TARGET`: the Makefile has the rule (running it would build, serve or test everything).
fn check_make(target: &str) {
    let makefile = std::fs::read_to_string(root().join("Makefile")).expect("Makefile");
    assert!(makefile.lines().any(|line| line.starts_with(&format!("{target}:"))), "no Makefile rule `{target}`");
}

/// `cargo bench --bench NAME`: the bench is declared and its file exists.
fn check_bench(name: &str) {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    assert!(manifest.contains(&format!("[[bench]]\nname = \"{name}\"")), "no [[bench]] {name}");
    assert!(root().join("benches").join(format!("{name}.rs")).is_file(), "benches/{name}.rs");
}

/// `cd fuzz && mkdir -p CORPUS && cargo +nightly fuzz run TARGET DIRS… -- OPTIONS`: the target
/// exists and every input directory exists once `mkdir -p` made the corpus.
fn check_fuzz(command: &str) {
    let steps: Vec<&str> = command.split("&&").map(str::trim).collect();
    assert_eq!(steps.first(), Some(&"cd fuzz"), "{command}");
    let fuzz = root().join("fuzz");
    let mut made = Vec::new();
    for step in &steps[1..] {
        let parts = words(step);
        match parts.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            ["mkdir", "-p", directories @ ..] => made.extend(directories.iter().map(|d| d.to_string())),
            ["cargo", "+nightly", "fuzz", "run", target, rest @ ..] => {
                assert!(fuzz.join("fuzz_targets").join(format!("{target}.rs")).is_file(), "fuzz target {target}");
                let inputs = rest.iter().take_while(|word| **word != "--");
                for directory in inputs {
                    let exists = fuzz.join(directory).is_dir() || made.iter().any(|made| made == directory);
                    assert!(exists, "`{directory}` is neither in the checkout nor made by the command: {command}");
                }
                assert!(made.iter().any(|made| rest.first() == Some(&made.as_str())), "the corpus dir is made first");
            }
            other => panic!("an unknown step in a fuzz command: {other:?}"),
        }
    }
}

fn check_shell_line(line: &str) {
    let command = command_of(line);
    if command.is_empty() {
        return;
    }
    let parts = words(command);
    let as_str: Vec<&str> = parts.iter().map(String::as_str).collect();
    match as_str.as_slice() {
        ["cargo", "run", "--release", "--bin", "tilelab", "--", arguments @ ..] => {
            run_tilelab(&arguments.iter().map(|a| a.to_string()).collect::<Vec<_>>())
        }
        ["make", target] => check_make(target),
        ["cargo", "bench", "--bench", name] => check_bench(name),
        ["cd", "fuzz", ..] => check_fuzz(command),
        other => panic!("README command of a form tests/readme_commands.rs does not check: {other:?}"),
    }
}

/// The cells of the html block: each `<tile-lab>` with text is one code cell, run in a session;
/// `src` and `cell` name a bundled example and a cell it has.
fn check_html(body: &str) {
    let mut ran = 0;
    for element in body.split("<tile-lab").skip(1) {
        let (attributes, rest) = element.split_once('>').expect("a <tile-lab> tag");
        if let Some(source) = attributes.split("src=\"").nth(1).and_then(|tail| tail.split('"').next()) {
            let path = root().join(source);
            let cell: usize = attributes
                .split("cell=\"")
                .nth(1)
                .and_then(|tail| tail.split('"').next())
                .unwrap_or("1")
                .parse()
                .unwrap();
            let notebook = Notebook::from_py(&std::fs::read_to_string(&path).expect("the src notebook")).unwrap();
            assert!(cell >= 1 && cell <= notebook.cells.len(), "cell {cell} of {source}");
        }
        let code = rest.split("</tile-lab>").next().unwrap_or("");
        if code.trim().is_empty() {
            continue;
        }
        let indent =
            code.lines().filter(|line| !line.trim().is_empty()).map(|line| line.len() - line.trim_start().len()).min();
        let code: String =
            code.lines().map(|line| line.get(indent.unwrap_or(0)..).unwrap_or("").to_string() + "\n").collect();
        let mut session = Session::new();
        let result = session.run_cell(&code);
        assert!(result.is_ok(), "the inline <tile-lab> cell fails:\n{code}\n{:?}", result.error());
        ran += 1;
    }
    assert!(ran > 0, "the html block has no inline cell to run");
}

#[test]
fn every_readme_command_and_code_block_runs() {
    let blocks = blocks();
    assert!(blocks.len() >= 5, "README.md code blocks: {}", blocks.len());
    for (language, body) in blocks {
        match language.as_str() {
            "sh" => body.lines().for_each(check_shell_line),
            "html" => check_html(&body),
            "python" | "py" => {
                let result = Session::new().run_cell(&body);
                assert!(result.is_ok(), "a Python block of the README fails:\n{body}\n{:?}", result.error());
            }
            other => panic!("a README code block in `{other}`: teach tests/readme_commands.rs to run it"),
        }
    }
}

#[test]
fn the_checks_reject_broken_commands() {
    // The minimal wrong inputs each check exists for.
    let panics = |f: fn()| std::panic::catch_unwind(f).is_err();
    assert!(panics(|| check_shell_line("make no-such-target")));
    assert!(panics(|| check_shell_line("cargo bench --bench no_such_bench")));
    assert!(panics(|| check_shell_line(
        "cd fuzz && cargo +nightly fuzz run parse corpus/absent seeds -- -max_total_time=1"
    )));
    assert!(panics(|| check_shell_line("cargo run --release --bin tilelab -- run examples/no_such_notebook.py")));
    assert!(panics(|| check_shell_line("rm -rf /tmp/nothing")));
    assert!(panics(|| check_html("<tile-lab>\n  x = pt.as_tensor([1.0])\n  x.sum()\n</tile-lab>")));
}
