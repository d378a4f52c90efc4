//! What a cell prints: the helpers the language tests share.

use tilelab::session::{CellResult, Session};

/// What the cell `code` prints in a fresh session (it must run without an error).
pub fn printed(code: &str) -> String {
    let mut session = Session::new();
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}: {:?}", result.error());
    result.stdout
}

/// Runs `code` in `session`; it must run without an error.
pub fn run(session: &mut Session, code: &str) -> CellResult {
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}\n{:?}", result.error());
    result
}

/// What `code` prints in `session`, without the trailing newline.
pub fn stdout(session: &mut Session, code: &str) -> String {
    run(session, code).stdout.trim_end().to_string()
}
