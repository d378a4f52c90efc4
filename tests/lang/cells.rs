//! Running cells in the lang tests: the stdout of a cell that must succeed, the result of one that
//! must fail, and the text an error's span covers.

use tilelab::session::{CellResult, Session};

/// Runs `code`, which must succeed; returns what it printed.
pub fn run_ok(session: &mut Session, code: &str) -> String {
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}\n{:?}", result.error());
    result.stdout
}

/// Runs `code`, which must fail; returns the result.
pub fn run_err(session: &mut Session, code: &str) -> CellResult {
    let result = session.run_cell(code);
    assert!(!result.is_ok(), "expected an error from:\n{code}\nprinted: {}", result.stdout);
    result
}

/// The text `span` covers in `code` (the cell that failed).
pub fn spanned<'a>(code: &'a str, result: &CellResult) -> &'a str {
    let error = result.error().expect("an error");
    &code[error.span.start..error.span.end]
}
