//! The pypto corpus (tests/fixtures/pypto_corpus): notebooks written in the style of real pypto
//! code, each with a golden check, run through a session cell by cell as the CLI runs them. A
//! notebook runs unchanged when no cell fails and every kernel ran on the simulated NPU (a CPU
//! reference fallback is not the NPU). EXPECTED.txt lists each file's outcome; a file marked
//! `pass` that fails, and a file marked `fail` that now passes, both fail the test, so the list
//! stays honest. `CORPUS_BLESS=1` rewrites the list from this run.
#![cfg(not(target_arch = "wasm32"))] // reads the corpus from disk and sets a time limit: native only

use std::path::{Path, PathBuf};
use std::time::Duration;

use tilelab::lang::syntax::Severity;
use tilelab::session::{CellKind, Limits, Notebook, Session};

const CORPUS: &str = "tests/fixtures/pypto_corpus";
/// The CLI's script stack (src/bin/tilelab.rs), and a thread stack with room above it.
const SCRIPT_STACK_BYTES: usize = 128 << 20;
const THREAD_STACK_BYTES: usize = 256 << 20;
/// The longest one notebook may run before it counts as failed.
const TIME_LIMIT: Duration = Duration::from_secs(300);
/// The longest error text kept in EXPECTED.txt.
const SHORT: usize = 110;

/// The outcome of one notebook: `None` when it ran unchanged, else its first problem.
fn run_notebook(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let notebook = match Notebook::from_py(&text) {
        Ok(notebook) => notebook,
        Err(error) => return Some(format!("notebook: {error}")),
    };
    let mut session = Session::with_limits(Limits { stack_bytes: SCRIPT_STACK_BYTES, ..Limits::default() });
    session.set_time_limit(Some(TIME_LIMIT));
    for cell in notebook.cells.iter().filter(|cell| cell.kind == CellKind::Code && !cell.source.trim().is_empty()) {
        let result = session.run_cell(&cell.source);
        if let Some(error) = result.error() {
            return Some(format!("line {}: {}", cell.first_line + error.line - 1, first_line(&error.message)));
        }
        let fallback = result
            .diagnostics
            .iter()
            .find(|diagnostic| diagnostic.severity == Severity::Warning && diagnostic.code == "npu/cpu-fallback");
        if let Some(warning) = fallback {
            let reason = warning.message.split_once(": ").map_or(warning.message.as_str(), |(_, reason)| reason);
            return Some(format!("cpu fallback: {}", first_line(reason)));
        }
    }
    None
}

fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default().trim();
    let mut short: String = line.chars().take(SHORT).collect();
    if line.chars().count() > SHORT {
        short.push('…');
    }
    short
}

/// The corpus files in name order.
fn corpus_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(CORPUS)
        .expect("the corpus directory")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "py"))
        .collect();
    files.sort();
    files
}

/// EXPECTED.txt: `name: pass` or `name: fail: reason` per line (`#` starts a comment).
fn expectations() -> Vec<(String, Option<String>)> {
    let text = std::fs::read_to_string(Path::new(CORPUS).join("EXPECTED.txt")).expect("EXPECTED.txt");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (name, outcome) = line.split_once(": ").unwrap_or_else(|| panic!("EXPECTED.txt: bad line {line:?}"));
            let failure = match outcome.trim() {
                "pass" => None,
                other => Some(other.strip_prefix("fail: ").unwrap_or(other).to_string()),
            };
            (name.trim().to_string(), failure)
        })
        .collect()
}

#[test]
fn the_corpus_runs_as_expected() {
    let files = corpus_files();
    assert!(files.len() >= 35, "the corpus holds {} notebooks", files.len());
    let outcomes: Vec<(String, Option<String>)> = std::thread::Builder::new()
        .stack_size(THREAD_STACK_BYTES)
        .spawn(move || {
            files
                .iter()
                .map(|path| (path.file_name().unwrap().to_string_lossy().into_owned(), run_notebook(path)))
                .collect()
        })
        .expect("a runner thread")
        .join()
        .expect("the corpus runner panicked");
    let passed = outcomes.iter().filter(|(_, failure)| failure.is_none()).count();
    for (name, failure) in &outcomes {
        println!("{name}: {}", failure.as_ref().map_or("pass".to_string(), |reason| format!("fail: {reason}")));
    }
    println!("{passed} of {} run unchanged", outcomes.len());
    if std::env::var_os("CORPUS_BLESS").is_some() {
        let mut text = String::from(
            "# Outcome of each corpus notebook (tests/lang/pypto_corpus.rs checks it; CORPUS_BLESS=1 rewrites it).\n",
        );
        for (name, failure) in &outcomes {
            let outcome = failure.as_ref().map_or("pass".to_string(), |reason| format!("fail: {reason}"));
            text.push_str(&format!("{name}: {outcome}\n"));
        }
        std::fs::write(Path::new(CORPUS).join("EXPECTED.txt"), text).expect("write EXPECTED.txt");
        return;
    }
    let expected = expectations();
    let mut problems = Vec::new();
    for (name, failure) in &outcomes {
        match expected.iter().find(|(listed, _)| listed == name) {
            None => problems.push(format!("{name} is not listed in EXPECTED.txt")),
            Some((_, None)) if failure.is_some() => {
                problems.push(format!("{name} is marked pass but fails: {}", failure.as_deref().unwrap_or_default()))
            }
            Some((_, Some(_))) if failure.is_none() => {
                problems.push(format!("{name} is marked fail but now passes: mark it pass in EXPECTED.txt"))
            }
            Some((_, Some(listed))) if failure.as_deref() != Some(listed.as_str()) => {
                // Still failing, for another reason: worth knowing, not a regression.
                println!(
                    "note: {name} now fails with {:?} (listed: {listed:?})",
                    failure.as_deref().unwrap_or_default()
                );
            }
            _ => {}
        }
    }
    for (listed, _) in &expected {
        if !outcomes.iter().any(|(name, _)| name == listed) {
            problems.push(format!("EXPECTED.txt lists {listed}, which is not in the corpus"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
