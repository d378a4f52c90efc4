//! The traces of the kernels the cells called, kept for the page to ask for one when its reader
//! opens it (question `trace`). A cell's result names each kernel's trace by a key instead of
//! carrying its Chrome trace JSON: for large kernels that JSON is megabytes, which a run-all built,
//! posted to the page and saved with the notebook for every cell while the reader opens few of them
//! (example 14 in headless Chromium: 27 MB over two cells, about 200 ms of its 1.25 s run).

use std::cell::Cell;
use std::collections::VecDeque;
use std::rc::Rc;

use crate::npu::Simulation;

/// The last traces a session handed keys out for, oldest first, within an event budget.
pub(crate) struct KeptTraces {
    /// Unique to this session, so a key of an earlier session (a page's output from before a
    /// restart) finds nothing instead of another trace of the same number.
    session: String,
    next: u64,
    budget: usize,
    kept: VecDeque<(u64, Rc<Simulation>)>,
    events: usize,
}

thread_local! {
    static SESSIONS: Cell<u64> = const { Cell::new(0) };
}

impl KeptTraces {
    /// Events kept at most (about 64 bytes each in the wasm build: 26 MB): a cell's whole list
    /// (8 kernels of up to `KernelSchedule::MAX_TRACE_EVENTS`); older traces leave first.
    pub const MAX_EVENTS: usize = 400_000;

    /// An empty store with a fresh session part (`started_ms`: when the session started).
    pub fn new(started_ms: f64) -> KeptTraces {
        KeptTraces::with_budget(started_ms, Self::MAX_EVENTS)
    }

    /// As [`KeptTraces::new`], keeping at most `budget` events.
    fn with_budget(started_ms: f64, budget: usize) -> KeptTraces {
        let number = SESSIONS.with(|sessions| {
            sessions.set(sessions.get() + 1);
            sessions.get()
        });
        let session = format!("{}.{number}", started_ms as u64);
        KeptTraces { session, next: 0, budget, kept: VecDeque::new(), events: 0 }
    }

    /// Keeps `simulation`'s trace and returns its key.
    pub fn keep(&mut self, simulation: Rc<Simulation>) -> String {
        self.next += 1;
        self.events += simulation.trace.events.len();
        self.kept.push_back((self.next, simulation));
        while self.events > self.budget && self.kept.len() > 1 {
            if let Some((_, oldest)) = self.kept.pop_front() {
                self.events -= oldest.trace.events.len();
            }
        }
        format!("{}:{}", self.session, self.next)
    }

    /// The Chrome trace JSON of the trace kept under `key`; None for a key of another session or a
    /// trace no longer kept.
    pub fn trace_json(&self, key: &str) -> Option<String> {
        let (session, number) = key.rsplit_once(':')?;
        let number: u64 = number.parse().ok()?;
        if session != self.session {
            return None;
        }
        let index = self.kept.binary_search_by_key(&number, |(kept, _)| *kept).ok()?;
        Some(self.kept[index].1.trace.to_chrome_json())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;

    /// The schedules of a cell of `calls` calls of a small kernel (each a trace of a few events).
    fn simulations(calls: usize) -> Vec<Rc<Simulation>> {
        let mut session = Session::new();
        let code = format!(
            "import pypto as pt\n@pt.kernel\ndef double(x):\n    pt.set_vec_tile_shapes(8, 64)\n    return x * 2.0\n\
             x = pt.ones([16, 64])\nfor _ in range({calls}):\n    x = double(x)\n"
        );
        assert!(session.run_cell(&code).is_ok());
        session.take_schedules().into_iter().map(|(_, simulation)| simulation).collect()
    }

    /// A key finds its trace; the oldest traces leave once the budget is spent (a trace larger than
    /// the budget alone stays, as the only one); a key of another session, a malformed key or an
    /// unknown number finds nothing.
    #[test]
    fn keys_find_their_traces_within_the_budget() {
        let calls = simulations(4);
        let events = calls[0].trace.events.len();
        assert!(events > 0);
        let mut store = KeptTraces::with_budget(5.0, 2 * events);
        let first = store.keep(calls[0].clone());
        let second = store.keep(calls[1].clone());
        let json = store.trace_json(&second).expect("kept");
        assert_eq!(json, calls[1].trace.to_chrome_json());
        assert!(store.trace_json(&first).is_some());
        let third = store.keep(calls[2].clone());
        assert!(store.trace_json(&first).is_none(), "the oldest left");
        assert!(store.trace_json(&second).is_some() && store.trace_json(&third).is_some());
        let mut small = KeptTraces::with_budget(5.0, events / 2);
        let alone = small.keep(calls[3].clone());
        assert!(small.trace_json(&alone).is_some(), "a trace over the budget stays alone");
        let later = small.keep(calls[0].clone());
        assert!(small.trace_json(&alone).is_none() && small.trace_json(&later).is_some());
        let other = KeptTraces::new(5.0);
        assert!(other.trace_json(&first).is_none() && other.trace_json(&third).is_none(), "another session's key");
        for key in ["", "x", "5.1:", "5.1:zz", ":1", &format!("{third}0")] {
            assert!(store.trace_json(key).is_none(), "{key:?}");
        }
    }
}
