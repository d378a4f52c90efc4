//! The Chrome traces of the schedules a script simulates, collected while a front end asks for
//! them (`tilelab run --trace-out DIR`). The interpreter runs on one thread, so the collector is
//! per thread: sessions on other threads (parallel tests) never see each other's traces.

use std::cell::RefCell;

use crate::npu::Simulation;

/// The Chrome trace of one simulated kernel call.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelTrace {
    /// The kernel's name, with the vec tile for a sweep row (`softmax-vec8x64`).
    pub label: String,
    /// Chrome Trace Event JSON.
    pub chrome_json: String,
}

thread_local! {
    static COLLECTED: RefCell<Option<Vec<KernelTrace>>> = const { RefCell::new(None) };
}

/// Starts (or stops, dropping what was kept) collecting traces on this thread.
pub fn collect_traces(enabled: bool) {
    COLLECTED.with(|collected| *collected.borrow_mut() = if enabled { Some(Vec::new()) } else { None });
}

/// The traces collected since the last call, in simulation order.
pub fn take_traces() -> Vec<KernelTrace> {
    COLLECTED.with(|collected| collected.borrow_mut().as_mut().map(std::mem::take).unwrap_or_default())
}

/// Keeps the trace of a simulation when collecting.
pub(crate) fn record_trace(label: &str, simulation: &Simulation) {
    COLLECTED.with(|collected| {
        if let Some(traces) = collected.borrow_mut().as_mut() {
            traces.push(KernelTrace { label: label.to_string(), chrome_json: simulation.trace.to_chrome_json() });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_kept_unless_collecting() {
        collect_traces(false);
        assert!(take_traces().is_empty());
        collect_traces(true);
        assert!(take_traces().is_empty());
        collect_traces(false);
    }
}
