//! One fixture per diagnostic kind: `tests/fixtures/syntax/<kind>.py` is parsed, every diagnostic
//! rendered as the CLI shows it, and the text compared with `<kind>.expected`, which was written
//! by hand from the rules (line/column counted in characters, carets in display columns).
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;
use tilelab::lang::syntax::{parse, LineIndex, SyntaxErrorKind};

fn fixture_directory() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/syntax")
}

fn render_all(file_name: &str, source: &str) -> String {
    let output = parse(source);
    let index = LineIndex::new(source);
    output.diagnostics.iter().map(|diagnostic| index.render(source, file_name, diagnostic)).collect()
}

#[test]
fn every_kind_has_a_fixture_that_renders_as_expected() {
    let mut failures = Vec::new();
    for kind in SyntaxErrorKind::ALL {
        let name = kind.code().trim_start_matches("syntax/");
        let source_path = fixture_directory().join(format!("{name}.py"));
        let expected_path = fixture_directory().join(format!("{name}.expected"));
        let source = std::fs::read_to_string(&source_path).unwrap_or_else(|error| panic!("{source_path:?}: {error}"));
        let expected =
            std::fs::read_to_string(&expected_path).unwrap_or_else(|error| panic!("{expected_path:?}: {error}"));
        let output = parse(&source);
        assert!(
            output.diagnostics.iter().any(|diagnostic| diagnostic.code == kind.code()),
            "{name}.py produces no {} diagnostic: {:#?}",
            kind.code(),
            output.diagnostics
        );
        let rendered = render_all(&format!("{name}.py"), &source);
        if rendered != expected {
            failures.push(format!("--- {name}.expected\n{expected}+++ actual\n{rendered}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fixtures_have_no_orphans() {
    let known: Vec<String> =
        SyntaxErrorKind::ALL.iter().map(|kind| kind.code().trim_start_matches("syntax/").to_string()).collect();
    for entry in std::fs::read_dir(fixture_directory()).expect("fixture directory") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            continue;
        }
        let stem = path.file_stem().and_then(|stem| stem.to_str()).unwrap_or_default().to_string();
        assert!(known.contains(&stem), "fixture {path:?} names no diagnostic kind");
    }
}
