//! Progress of long work (gradient checks, sweeps, kernel calls, steps): a thread-local reporter
//! that the host sets (the browser worker turns each update into a `progress` message; the native
//! CLI sets none, so reporting costs one thread-local read). Updates are `(label, done, total,
//! message)`; the reporter is throttled here to whole-percent steps so a caller may report every
//! unit of work. A kernel call reports its stages (computing the values, compiling, simulating) as
//! a [`Message::KernelProgress`] naming the kernel and which call of the cell it is.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::messages::{KernelStage, Message};

/// What the host does with an update: `(label, done, total, message)`; `message` says what the
/// work is doing, when the label alone does not (a kernel call's stage).
pub type ProgressReporter = Rc<dyn Fn(&str, usize, usize, Option<&Message>)>;

/// The reporter and the last percent sent per label (so repeats of a percent are dropped).
struct State {
    reporter: ProgressReporter,
    last: Option<(String, usize)>,
}

thread_local! {
    static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
    /// Kernel calls that reported progress since the cell started.
    static KERNEL_CALLS: Cell<usize> = const { Cell::new(0) };
}

/// Starts counting kernel calls afresh (a new cell).
pub fn reset_kernel_calls() {
    KERNEL_CALLS.with(|calls| calls.set(0));
}

/// The number the next kernel call will report (1-based), counting it.
pub fn next_kernel_call() -> usize {
    KERNEL_CALLS.with(|calls| {
        calls.set(calls.get() + 1);
        calls.get()
    })
}

/// Reports that kernel call `call` of `kernel` started `stage` (label `kernel`, done = the stages
/// already finished, of three). Never throttled: a call has three updates.
pub fn report_kernel_stage(kernel: &str, call: usize, stage: KernelStage) {
    let Some(reporter) = STATE.with(|state| state.borrow().as_ref().map(|state| state.reporter.clone())) else {
        return;
    };
    let message = Message::KernelProgress { kernel: kernel.to_string(), call, stage };
    reporter("kernel", stage.position() - 1, KernelStage::ALL.len(), Some(&message));
}

/// Installs `reporter` (or removes it with `None`) for this thread; returns the previous one.
pub fn set_progress_reporter(reporter: Option<ProgressReporter>) -> Option<ProgressReporter> {
    STATE.with(|state| {
        let previous = state.borrow_mut().take().map(|old| old.reporter);
        *state.borrow_mut() = reporter.map(|reporter| State { reporter, last: None });
        previous
    })
}

/// Whether a reporter is installed (work may skip preparing updates when not).
pub fn progress_enabled() -> bool {
    STATE.with(|state| state.borrow().is_some())
}

/// Reports that `done` of `total` units of `label` are finished. Only the first update of each
/// whole percent reaches the reporter (the start and the end always do).
pub fn report_progress(label: &str, done: usize, total: usize) {
    let reporter = STATE.with(|state| {
        let mut state = state.borrow_mut();
        let state = state.as_mut()?;
        let percent = (done.min(total) * 100).checked_div(total).unwrap_or(100);
        let repeated =
            matches!(&state.last, Some((last_label, last_percent)) if last_label == label && *last_percent == percent);
        if repeated && done != 0 && done != total {
            return None;
        }
        state.last = Some((label.to_string(), percent));
        Some(state.reporter.clone())
    });
    // Called outside the borrow so a reporter may itself report or replace the reporter.
    if let Some(reporter) = reporter {
        reporter(label, done, total, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// 1000 units reported one by one reach the reporter once per percent: 0, 10, 20, …, 1000
    /// (101 updates); without a reporter nothing happens, and removing it returns it.
    #[test]
    fn reports_once_per_percent_and_only_when_installed() {
        report_progress("nothing installed", 1, 2);
        let seen: Rc<RefCell<Vec<(String, usize, usize)>>> = Rc::default();
        let sink = seen.clone();
        let reporter: ProgressReporter =
            Rc::new(move |label: &str, done, total, _| sink.borrow_mut().push((label.to_string(), done, total)));
        assert!(set_progress_reporter(Some(reporter)).is_none());
        assert!(progress_enabled());
        for done in 0..=1000 {
            report_progress("gradient check", done, 1000);
        }
        assert!(set_progress_reporter(None).is_some());
        assert!(!progress_enabled());
        report_progress("gradient check", 5, 10);
        let seen = seen.borrow();
        assert_eq!(seen.len(), 101);
        assert_eq!(seen[0], ("gradient check".to_string(), 0, 1000));
        assert_eq!(seen[100], ("gradient check".to_string(), 1000, 1000));
        assert!(seen.windows(2).all(|pair| pair[1].1 == pair[0].1 + 10));
    }
}
