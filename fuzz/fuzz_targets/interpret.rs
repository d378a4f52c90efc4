//! Fuzz the interpreter through a notebook session with small limits: any input (made UTF-8
//! lossily) runs as a cell without a panic, every diagnostic span (and traceback span) lies inside
//! the source on character boundaries, and the session still runs a cell afterwards.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tilelab::session::{CellStatus, Limits, Session};

fn check(source: &str, start: usize, end: usize) {
    assert!(start <= end && end <= source.len(), "span {start}..{end} outside {} bytes", source.len());
    assert!(source.is_char_boundary(start) && source.is_char_boundary(end), "span {start}..{end} splits a char");
}

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    // Small budgets keep each run short; the limits themselves are part of what is fuzzed.
    let limits = Limits {
        step_budget: 20_000,
        call_depth: 30,
        tensor_elements: 1 << 14,
        tensor_bytes: 1 << 16,
        list_items: 1 << 12,
        string_bytes: 1 << 14,
        ..Limits::default()
    };
    let mut session = Session::with_limits(limits);
    let result = session.run_cell(&source);
    for diagnostic in &result.diagnostics {
        check(&source, diagnostic.span.start, diagnostic.span.end);
        for line in &diagnostic.traceback {
            check(&source, line.span.start, line.span.end);
        }
    }
    // Names (even `print`) may have been rebound by the input, as in Python; arithmetic on
    // literals cannot be, so it must still run and display its value.
    let after = session.run_cell("(1 + 1) * 3");
    assert!(after.status == CellStatus::Ok && after.displays.len() == 1, "the session must stay usable after any cell");
});
