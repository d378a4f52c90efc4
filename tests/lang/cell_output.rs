//! What a cell prints: the helper the host-library tests share.

use tilelab::session::Session;

/// What the cell `code` prints in a fresh session (it must run without an error).
pub fn printed(code: &str) -> String {
    let mut session = Session::new();
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}: {:?}", result.error());
    result.stdout
}
