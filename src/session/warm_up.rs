//! The engine's warm-up: `warm_up.py` run in a throwaway session, three times, in a worker of its
//! own (`www/warm-up-worker.js`) once the page's engine worker has started; V8 shares the module's
//! optimised code between the workers. A browser runs WebAssembly first through a baseline compiler
//! and optimises a function only once it has been busy, and a call already running keeps its code:
//! a notebook's first large kernel call ran its compile loops in baseline code (measured in
//! headless Chromium: a generated backward of a [2048, 3136] FP16 Swish took 1233 ms as the page's
//! first kernel call, 449 ms under another policy right after it, 676 ms after a small warm-up
//! cell). The warm-up makes those paths hot on small shapes before the reader's first run.

use super::run::Session;
use super::CellStatus;
use crate::autograd::{node_id_mark, restore_node_ids};
use crate::lang::interp::progress::set_progress_reporter;

/// The warm-up notebook cell.
pub const WARM_UP_SCRIPT: &str = include_str!("warm_up.py");

/// Runs [`WARM_UP_SCRIPT`] in a session of its own and returns its milliseconds. What a reader
/// could see stays as it was: no progress is reported and autograd's node ids (shown in graphs)
/// continue where they were. The script uses no unseeded randomness, and its kernels' names
/// (`tilelab_warm_up_*`) are its own. An error is the cell's first diagnostic (a bug: the tests
/// run the script).
pub fn warm_up() -> Result<f64, String> {
    let reporter = set_progress_reporter(None);
    let node_ids = node_id_mark();
    let result = Session::new().run_cell(WARM_UP_SCRIPT);
    restore_node_ids(node_ids);
    set_progress_reporter(reporter);
    match result.status {
        CellStatus::Ok => Ok(result.duration_ms),
        _ => Err(result.diagnostics.first().map(|diagnostic| diagnostic.message.clone()).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The warm-up runs (its kernels compile, simulate and differentiate) and leaves the node ids
    /// a session's graphs show where they were, though the same cell in a session moves them.
    #[test]
    fn the_warm_up_runs_and_leaves_node_ids_as_they_were() {
        let mark = node_id_mark();
        let milliseconds = warm_up().expect("the warm-up script runs");
        assert!(milliseconds > 0.0);
        assert_eq!(node_id_mark(), mark);
        assert_eq!(Session::new().run_cell(WARM_UP_SCRIPT).status, CellStatus::Ok);
        assert!(node_id_mark() > mark, "the script makes autograd nodes");
    }

    /// A reader's progress reporter hears nothing of the warm-up and is still installed after it.
    #[test]
    fn the_warm_up_reports_no_progress() {
        use std::cell::Cell;
        use std::rc::Rc;
        let heard = Rc::new(Cell::new(0));
        let counter = heard.clone();
        set_progress_reporter(Some(Rc::new(
            move |_: &str, _: usize, _: usize, _: Option<&crate::messages::Message>| counter.set(counter.get() + 1),
        )));
        warm_up().expect("the warm-up script runs");
        assert_eq!(heard.get(), 0);
        let mut session = Session::new();
        session.run_cell(WARM_UP_SCRIPT);
        assert!(heard.get() > 0, "the reporter is still installed and the script's kernel calls report");
        set_progress_reporter(None);
    }
}
