//! Progress of a gradient check: a counter of work units (one backward pass or one perturbed input
//! element each) that calls the caller's callback at most about `STEPS` times per check, so a
//! check over thousands of elements does not flood a browser worker with messages.

use std::cell::Cell;

/// A progress callback: `(done, total)` work units.
pub type ProgressCallback<'a> = &'a dyn Fn(usize, usize);

/// About how many updates one check reports (plus the first and the last).
const STEPS: usize = 100;

/// Counts work units and reports the throttled count.
pub(super) struct Ticker<'a> {
    callback: Option<ProgressCallback<'a>>,
    total: usize,
    done: Cell<usize>,
    /// The count at which the next update is due.
    next: Cell<usize>,
}

impl<'a> Ticker<'a> {
    /// A ticker over `total` units; reports `(0, total)` at once.
    pub fn new(callback: Option<ProgressCallback<'a>>, total: usize) -> Ticker<'a> {
        let ticker = Ticker { callback, total, done: Cell::new(0), next: Cell::new(0) };
        ticker.report();
        ticker
    }

    /// One more unit done.
    pub fn advance(&self) {
        // Units past the total (a refinement the count did not foresee) change nothing.
        if self.done.get() >= self.total {
            return;
        }
        self.done.set(self.done.get() + 1);
        if self.done.get() >= self.next.get() {
            self.report();
        }
    }

    fn report(&self) {
        let done = self.done.get();
        // The last unit is always reported, even when it falls between two steps.
        self.next.set((done + (self.total / STEPS).max(1)).min(self.total));
        if let Some(callback) = self.callback {
            callback(done, self.total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// 1000 units with STEPS = 100 give an update every 10 units: 0, 10, …, 1000 (101 updates),
    /// strictly increasing and ending at the total.
    #[test]
    fn a_thousand_units_report_every_tenth() {
        let seen = RefCell::new(Vec::new());
        let record = |done: usize, total: usize| seen.borrow_mut().push((done, total));
        let ticker = Ticker::new(Some(&record), 1000);
        for _ in 0..1000 {
            ticker.advance();
        }
        let seen = seen.into_inner();
        assert_eq!(seen.len(), 101);
        assert_eq!(seen.first(), Some(&(0, 1000)));
        assert_eq!(seen.last(), Some(&(1000, 1000)));
        assert!(seen.windows(2).all(|pair| pair[1].0 == pair[0].0 + 10));
    }

    /// Fewer units than steps report every unit; extra advances are ignored; a total that is not a
    /// multiple of the step still ends with its last unit (1005 units: 0, 10, …, 1000, 1005).
    #[test]
    fn small_totals_report_every_unit_and_clamp() {
        let seen = RefCell::new(Vec::new());
        let record = |done: usize, _total: usize| seen.borrow_mut().push(done);
        let ticker = Ticker::new(Some(&record), 3);
        for _ in 0..5 {
            ticker.advance();
        }
        assert_eq!(seen.into_inner(), vec![0, 1, 2, 3]);
        let last = RefCell::new(Vec::new());
        let record = |done: usize, _total: usize| last.borrow_mut().push(done);
        let ticker = Ticker::new(Some(&record), 1005);
        (0..1005).for_each(|_| ticker.advance());
        let last = last.into_inner();
        assert_eq!(last.len(), 102);
        assert_eq!(&last[last.len() - 2..], &[1000, 1005]);
    }
}
