//! The engine's queue of timed events: earliest first, and among events at the same time, the one
//! scheduled first. Simulated time never goes back (an event is scheduled at or after the time of
//! the last one taken), so the queue is a radix heap on the bits of the times (non-negative: their
//! bits order as they do): bucket `b` holds the events whose time first differs from the last time
//! taken at bit `b - 1`, bucket 0 those at that very time. Scheduling is a shift and a push; taking
//! moves the events of the lowest bucket down only when bucket 0 is empty, each event a few times
//! in all. (A binary heap compared two keys per level on every push and pop.) Every bucket keeps
//! the order of scheduling among equal times: events join a bucket at its back, and a bucket is
//! spread only into empty ones.

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

#[derive(Clone, Copy)]
struct Entry {
    /// The time's bits.
    time: u64,
    core: u32,
    pipe: u8,
    kind: EventKind,
}

/// The events not reached yet.
pub(super) struct EventQueue {
    /// Bucket 0 (the events at `last`), taken from `taken` on.
    now: Vec<Entry>,
    taken: usize,
    /// Buckets 1 to 64 (index `b - 1`).
    later: [Vec<Entry>; 64],
    /// The buckets of `later` that hold events (bit `b - 1`).
    occupied: u64,
    /// The bits of the time of the last event taken (of the earliest event once `now` is refilled).
    last: u64,
    /// Per bucket of `later` that holds events: the earliest of their times (kept as events join,
    /// so the earliest pending time is a lookup, not a pass over a bucket).
    earliest: [u64; 64],
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            now: Vec::new(),
            taken: 0,
            later: std::array::from_fn(|_| Vec::new()),
            occupied: 0,
            last: 0,
            earliest: [0; 64],
        }
    }
}

impl EventQueue {
    /// Schedules `kind` for `pipe` of `core` at `time`: non-negative, and not before the time of
    /// the last event taken.
    pub fn schedule(&mut self, time: f64, core: usize, pipe: usize, kind: EventKind) {
        let entry = Entry { time: time.to_bits(), core: core as u32, pipe: pipe as u8, kind };
        assert!(entry.time >= self.last, "an event scheduled at {time} before the queue's time");
        self.place(entry);
    }

    fn place(&mut self, entry: Entry) {
        match entry.time ^ self.last {
            0 => self.now.push(entry),
            differing => {
                let bucket = 63 - differing.leading_zeros() as usize;
                self.later[bucket].push(entry);
                if self.occupied & 1 << bucket == 0 || entry.time < self.earliest[bucket] {
                    self.earliest[bucket] = entry.time;
                }
                self.occupied |= 1 << bucket;
            }
        }
    }

    /// The earliest event's time.
    pub fn next_time(&self) -> Option<f64> {
        if self.taken < self.now.len() {
            return Some(f64::from_bits(self.last));
        }
        if self.occupied == 0 {
            return None;
        }
        Some(f64::from_bits(self.earliest[self.occupied.trailing_zeros() as usize]))
    }

    /// Takes the earliest event if it is due by `time`.
    pub fn pop_due(&mut self, time: f64) -> Option<Event> {
        if self.taken == self.now.len() {
            let earliest = self.next_time()?;
            if earliest > time {
                return None;
            }
            self.refill();
        } else if f64::from_bits(self.last) > time {
            return None;
        }
        let entry = self.now[self.taken];
        self.taken += 1;
        Some(Event { time: f64::from_bits(entry.time), core: entry.core, pipe: entry.pipe, kind: entry.kind })
    }

    /// Moves on to the earliest time in `later` (`now` is empty): the lowest occupied bucket is
    /// spread by the new `last`, its earliest events into `now` in their order.
    fn refill(&mut self) {
        self.now.clear();
        self.taken = 0;
        let bucket = self.occupied.trailing_zeros() as usize;
        self.occupied &= !(1 << bucket);
        let entries = std::mem::take(&mut self.later[bucket]);
        self.last = self.earliest[bucket];
        for &entry in &entries {
            self.place(entry);
        }
        // Keep the bucket's allocation for its next events.
        let mut entries = entries;
        entries.clear();
        self.later[bucket] = entries;
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

    #[test]
    fn matches_a_sorted_list_as_events_are_taken_and_scheduled_in_between() {
        // The reference: every pending (time, scheduling order); the earliest taken first. Events
        // are scheduled at the time of the last one taken plus a pseudo-random delay (zero often,
        // so that many share a time), a few at a time, and taken one or several at a time.
        let mut queue = EventQueue::default();
        let mut pending: Vec<(f64, u64, usize)> = Vec::new();
        let (mut sequence, mut state, mut now) = (0u64, 7u64, 0.0f64);
        let mut next = |bound: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % bound
        };
        for round in 0..20_000 {
            for _ in 0..next(3) {
                let delay = match next(4) {
                    0 => 0.0,
                    1 => next(8) as f64,
                    2 => next(1000) as f64 * 0.37,
                    _ => next(1 << 20) as f64 / 3.0,
                };
                sequence += 1;
                let core = (round * 3 + sequence as usize) % 97;
                queue.schedule(now + delay, core, 0, EventKind::Finish);
                pending.push((now + delay, sequence, core));
            }
            let due = now + next(50) as f64;
            let earliest = pending.iter().map(|&(time, _, _)| time).fold(f64::INFINITY, f64::min);
            assert_eq!(queue.next_time(), (!pending.is_empty()).then_some(earliest));
            while let Some(event) = queue.pop_due(due) {
                let position = (0..pending.len())
                    .min_by(|&a, &b| pending[a].0.total_cmp(&pending[b].0).then(pending[a].1.cmp(&pending[b].1)))
                    .expect("the reference has the event");
                let (time, _, core) = pending.remove(position);
                assert_eq!((event.time, event.core as usize), (time, core), "round {round}");
                now = now.max(time);
            }
            assert!(pending.iter().all(|&(time, _, _)| time > due));
            now = now.max(due.min(earliest));
        }
    }
}
