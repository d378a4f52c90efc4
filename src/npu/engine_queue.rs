//! The engine's queue of timed events: earliest first, and among events at the same time, the one
//! scheduled first: the time's bits (times are non-negative), then a sequence number.

use std::collections::BinaryHeap;

/// What happens to an instruction at an event's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EventKind {
    /// It finishes.
    Finish,
    /// Its GM transfer's start-up is over: it joins the transfers sharing L2 and HBM.
    JoinPool,
}

/// An event of one pipe of one core.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Event {
    /// The time (non-negative: its bits order as the times do).
    pub time: f64,
    pub core: u32,
    pub pipe: u8,
    pub kind: EventKind,
}

#[derive(PartialEq, Eq)]
struct Entry {
    /// The time's bits.
    time: u64,
    /// The order of scheduling.
    sequence: u64,
    core: u32,
    pipe: u8,
    kind: EventKind,
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // `BinaryHeap` pops the greatest: the smallest key is the greatest entry.
        (other.time, other.sequence).cmp(&(self.time, self.sequence))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The events not reached yet.
#[derive(Default)]
pub(super) struct EventQueue {
    heap: BinaryHeap<Entry>,
    sequence: u64,
}

impl EventQueue {
    /// Schedules `kind` for `pipe` of `core` at `time` (≥ 0).
    pub fn schedule(&mut self, time: f64, core: usize, pipe: usize, kind: EventKind) {
        self.sequence += 1;
        let sequence = self.sequence;
        self.heap.push(Entry { time: time.to_bits(), sequence, core: core as u32, pipe: pipe as u8, kind });
    }

    /// The earliest event's time.
    pub fn next_time(&self) -> Option<f64> {
        self.heap.peek().map(|entry| f64::from_bits(entry.time))
    }

    /// Takes the earliest event if it is due by `time`.
    pub fn pop_due(&mut self, time: f64) -> Option<Event> {
        let entry = self.heap.peek()?;
        let at = f64::from_bits(entry.time);
        if at > time {
            return None;
        }
        let (core, pipe, kind) = (entry.core, entry.pipe, entry.kind);
        self.heap.pop();
        Some(Event { time: at, core, pipe, kind })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_earliest_first_and_in_scheduling_order_at_equal_times() {
        let mut queue = EventQueue::default();
        for (time, core) in [(5.0, 0), (1.5, 1), (5.0, 2), (0.0, 3), (1.5, 4)] {
            queue.schedule(time, core, 1, EventKind::Finish);
        }
        queue.schedule(1.5, 5, 2, EventKind::JoinPool);
        assert_eq!(queue.next_time(), Some(0.0));
        assert_eq!(queue.pop_due(-1.0), None);
        let mut order = Vec::new();
        while let Some(event) = queue.pop_due(4.0) {
            order.push((event.time, event.core, event.kind));
        }
        let (finish, join) = (EventKind::Finish, EventKind::JoinPool);
        assert_eq!(order, vec![(0.0, 3, finish), (1.5, 1, finish), (1.5, 4, finish), (1.5, 5, join)]);
        assert_eq!(queue.next_time(), Some(5.0));
        assert_eq!(queue.pop_due(5.0).map(|event| event.core), Some(0));
        assert_eq!(queue.pop_due(5.0).map(|event| event.core), Some(2));
        assert_eq!(queue.next_time(), None);
    }
}
