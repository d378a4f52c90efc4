//! Snapshot tests: one fixture per diagnostic kind under `tests/fixtures/interp/`. Each `NAME.py`
//! notebook runs cell by cell until a cell fails; every diagnostic is rendered as `tilelab run`
//! prints it (`[code]` then `FILE:LINE:COL: severity: message`, source line, caret, help,
//! traceback) and compared with `NAME.expected`. Set `UPDATE_SNAPSHOTS=1` to rewrite the expected
//! files (then review the diff). Every span must lie on character boundaries inside its cell.

use std::path::Path;

use tilelab::session::{render_diagnostic, CellOrigin, Limits, Notebook, Session};

/// The code each fixture must produce (the fixture's name, unless it shows another facet).
fn expected_code(stem: &str) -> String {
    match stem {
        "assert_allclose" => "runtime/assertion-failed".into(),
        "unicode_span" => "runtime/name-error".into(),
        "jit_output_rebound" | "unknown_option" => format!("lang/{}", stem.replace('_', "-")),
        other => format!("runtime/{}", other.replace('_', "-")),
    }
}

fn render_fixture(path: &Path) -> (String, Vec<String>) {
    let text = std::fs::read_to_string(path).expect("fixture readable");
    let notebook = Notebook::from_py(&text).expect("fixture is a notebook");
    let file = path.file_name().and_then(|name| name.to_str()).unwrap_or("fixture.py").to_string();
    // A smaller step budget than the default keeps the infinite-loop fixture quick.
    let mut session =
        Session::with_limits(Limits { step_budget: 2_000_000, stack_bytes: 128 << 20, ..Limits::default() });
    let mut executed = Vec::new();
    let mut out = String::new();
    let mut codes = Vec::new();
    for cell in &notebook.cells {
        executed.push(cell.first_line);
        let result = session.run_cell(&cell.source);
        out.push_str(&result.stdout);
        for diagnostic in &result.diagnostics {
            let source = session.source_of(diagnostic.cell).expect("the diagnostic's cell exists");
            assert!(
                diagnostic.span.start <= diagnostic.span.end && diagnostic.span.end <= source.len(),
                "{file}: span {:?} outside the cell",
                diagnostic.span
            );
            assert!(
                source.is_char_boundary(diagnostic.span.start) && source.is_char_boundary(diagnostic.span.end),
                "{file}: span off a char boundary"
            );
            let origin_of = |cell: usize| {
                executed.get(cell.checked_sub(1)?).map(|&first_line| CellOrigin { file: &file, first_line })
            };
            let origin = origin_of(diagnostic.cell).expect("origin");
            out.push_str(&format!("[{}]\n", diagnostic.code));
            out.push_str(&render_diagnostic(diagnostic, source, origin, &origin_of));
            codes.push(diagnostic.code.clone());
        }
        if !result.is_ok() {
            break;
        }
    }
    (out, codes)
}

#[test]
fn every_fixture_matches_its_snapshot() {
    // Recursion to the call-depth limit needs more stack than a test thread's default in debug builds.
    let handle = std::thread::Builder::new().stack_size(256 << 20).spawn(run_all).expect("thread");
    handle.join().expect("fixtures ran");
}

fn run_all() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/interp");
    let mut fixtures: Vec<_> = std::fs::read_dir(&directory)
        .expect("fixture dir")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "py"))
        .collect();
    fixtures.sort();
    assert!(fixtures.len() >= 20, "one fixture per diagnostic kind");
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut failures = Vec::new();
    for path in &fixtures {
        let stem = path.file_stem().and_then(|stem| stem.to_str()).unwrap_or_default().to_string();
        let (rendered, codes) = render_fixture(path);
        let code = expected_code(&stem);
        assert!(codes.contains(&code), "{stem}: expected a {code} diagnostic, got {codes:?}");
        let expected_path = path.with_extension("expected");
        if update {
            std::fs::write(&expected_path, &rendered).expect("write snapshot");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != rendered {
            failures.push(format!("--- {stem}: expected\n{expected}--- got\n{rendered}"));
        }
    }
    assert!(failures.is_empty(), "snapshots differ:\n{}", failures.join("\n"));
}
