//! The order of use of the L2 lines once they outgrow the capacity: a queue of runs, oldest first.
//! An access uses lines in order (a range's lines one after another, each one clock tick later),
//! so the uses it makes are a run: (tensor, first line, count, stamp of the first). Every line
//! keeps the stamp of its last use (`L2Cache::stamps`); a run's line whose stamp is still the one
//! the run gave it is that line's last use, otherwise the line was used again later and this entry
//! is stale. The least recently used line is the first live line of the oldest runs.
//!
//! Everything the simulator touches is then sequential (the stamps of the lines walked, the back
//! of the queue, its front when evicting), where a linked list through the lines moved two
//! neighbours' links in a table of 16 B per line, a cache miss each: the SwiGLU kernel of the
//! benchmark uses 2.6 M lines per run in a table of 42 MB.

use super::box_slots::NO_SLOT;
use super::{L2Cache, DIRTY};

/// Uses of a box of lines of one tensor at consecutive stamps: `rows` rows of `width` consecutive
/// lines, `stride` lines apart, used row after row; the uses before row `taken_row`, column
/// `taken_column` are already off the queue (kept as a row and a column: the next use's line and
/// stamp without a division). A run of a slot's lines (`l2_box_slots.rs`) names it in `owner`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Run {
    slot: u32,
    pub(super) owner: u32,
    first_line: u32,
    width: u32,
    stride: u32,
    rows: u32,
    taken_row: u32,
    taken_column: u32,
    pub(super) first_stamp: u64,
}

/// What a run of the queue holds.
enum Holds {
    /// The latest uses of a live slot: evicted a prefix at a time.
    Slot(u32),
    /// Uses whose lines have stamps: each use is live when its line's stamp is still its own.
    Lines,
    /// No live use.
    Nothing,
}

impl Run {
    /// The line and stamp of the run's first use still on the queue.
    fn next_use(&self) -> (u64, u64) {
        let (row, column) = (u64::from(self.taken_row), u64::from(self.taken_column));
        let line = u64::from(self.first_line) + row * u64::from(self.stride) + column;
        (line, self.first_stamp + row * u64::from(self.width) + column)
    }

    /// Takes the next use off the queue; true when none is left.
    fn take(&mut self) -> bool {
        self.taken_column += 1;
        if self.taken_column == self.width {
            self.taken_column = 0;
            self.taken_row += 1;
        }
        self.exhausted()
    }

    fn exhausted(&self) -> bool {
        self.taken_row == self.rows
    }

    /// Sets the uses taken off the queue to the first `taken` in walk order.
    fn set_taken(&mut self, taken: u64) {
        (self.taken_row, self.taken_column) = match u64::from(self.width) {
            1 => (taken as u32, 0),
            width => ((taken / width) as u32, (taken % width) as u32),
        };
    }
}

impl L2Cache {
    /// Records the uses of `width` consecutive lines of `slot` from `first_line`, stamped from
    /// `first_stamp` on: a row more of the newest run when they continue its box.
    #[inline]
    pub(super) fn record_uses(&mut self, slot: usize, first_line: u64, width: u64, first_stamp: u64) {
        if let Some(newest) = self.runs.back_mut() {
            let lines = u64::from(newest.width) * u64::from(newest.rows);
            let next_row = u64::from(newest.first_line) + u64::from(newest.rows) * u64::from(newest.stride);
            let continues = newest.owner == NO_SLOT
                && newest.slot as usize == slot
                && u64::from(newest.width) == width
                && newest.first_stamp + lines == first_stamp
                && lines + width <= u64::from(u32::MAX);
            // The common case first: one more row of a box of two rows or more.
            if continues && newest.rows > 1 && first_line == next_row {
                newest.rows += 1;
                return;
            }
            if continues && newest.rows == 1 && first_line >= next_row {
                newest.stride = (first_line - u64::from(newest.first_line)) as u32;
                newest.rows = 2;
                return;
            }
        }
        self.push_run(slot, first_line, width, first_stamp);
    }

    /// Records the uses of a box walked row after row: `rows` rows of `width` consecutive lines of
    /// `slot`, `stride` lines apart from `first_line`, stamped from `first_stamp` on (one run;
    /// every count below 2^32: `l2_box_walk.rs` checks).
    pub(super) fn record_box(
        &mut self,
        slot: usize,
        first_line: u64,
        width: u64,
        stride: u64,
        rows: u64,
        first_stamp: u64,
    ) {
        self.compact_runs_if_stale();
        let (first_line, width, stride, rows) = (first_line as u32, width as u32, stride as u32, rows as u32);
        let (slot, owner, taken_row, taken_column) = (slot as u32, NO_SLOT, 0, 0);
        let run = Run { slot, owner, first_line, width, stride, rows, taken_row, taken_column, first_stamp };
        self.runs.push_back(run);
    }

    #[cold]
    fn push_run(&mut self, slot: usize, first_line: u64, width: u64, first_stamp: u64) {
        self.record_box(slot, first_line, width, width, 1, first_stamp);
    }

    /// Evicts the least recently used line (a dirty one is written back whole).
    pub(super) fn evict_oldest(&mut self) {
        self.evict_oldest_lines(1, NO_SLOT);
    }

    /// Evicts up to `count` lines, least recently used first (a dirty one is written back whole);
    /// returns how many (fewer when the queue runs out, or reaches the run of live slot
    /// `stop_at`). A live slot's run gives its lines a prefix at a time, a run of a slot's earlier
    /// uses is dropped whole.
    pub(super) fn evict_oldest_lines(&mut self, count: usize, stop_at: u32) -> usize {
        let mut evicted = 0;
        while evicted < count {
            let Some(oldest) = self.runs.front() else { break };
            match self.holds(oldest) {
                Holds::Lines => {}
                Holds::Nothing => {
                    self.runs.pop_front();
                    continue;
                }
                Holds::Slot(id) if id == stop_at => break,
                Holds::Slot(id) => {
                    evicted += self.evict_slot_lines(id, count - evicted);
                    let evicted_prefix = self.slots[id as usize].evicted;
                    let oldest = self.runs.front_mut().expect("the slot's run");
                    oldest.set_taken(evicted_prefix);
                    if oldest.exhausted() {
                        self.runs.pop_front();
                    }
                    continue;
                }
            }
            let oldest = self.runs.front_mut().expect("the run just read");
            let slot = oldest.slot as usize;
            let (line, stamp) = oldest.next_use();
            if oldest.take() {
                self.runs.pop_front();
            }
            let last_use = &mut self.stamps[slot][line as usize];
            if *last_use & !DIRTY == stamp {
                let dirty = *last_use & DIRTY != 0;
                *last_use = 0;
                self.resident -= 1;
                if dirty {
                    self.write_back_evicted();
                }
                evicted += 1;
            }
        }
        evicted
    }

    /// What `run` holds (`Holds`).
    #[inline]
    fn holds(&self, run: &Run) -> Holds {
        if run.owner == NO_SLOT {
            return Holds::Lines;
        }
        let slot = &self.slots[run.owner as usize];
        match (slot.run_stamp == run.first_stamp, slot.alive) {
            (true, true) => Holds::Slot(run.owner),
            (true, false) => Holds::Lines,
            (false, _) => Holds::Nothing,
        }
    }

    /// Drops the stale uses from the queue once it holds twice as many runs as there are resident
    /// lines (each resident line has its last use in exactly one run, so at most `resident` runs
    /// stay, trimmed to their first and last live line): the queue stays within a few times the
    /// resident lines however long the cache only hits, at a cost spread over the runs recorded
    /// since the last compaction.
    fn compact_runs_if_stale(&mut self) {
        if self.runs.len() <= 2 * self.resident.max(1024) {
            return;
        }
        let mut runs = std::mem::take(&mut self.runs);
        runs.retain_mut(|run| match self.holds(run) {
            Holds::Slot(_) => true,
            Holds::Nothing => false,
            Holds::Lines => {
                let live = |run: &Run| {
                    let (line, stamp) = run.next_use();
                    self.stamps[run.slot as usize][line as usize] & !DIRTY == stamp
                };
                while !run.exhausted() && !live(run) {
                    run.take();
                }
                !run.exhausted()
            }
        });
        self.runs = runs;
    }

    /// The queue of the resident lines from their stamps, oldest first (as the cache starts to evict).
    pub(super) fn runs_from_stamps(&mut self) {
        let mut used = Vec::with_capacity(self.resident);
        for (slot, lines) in self.stamps.iter().enumerate() {
            let resident = lines.iter().enumerate().filter(|(_, &stamp)| stamp != 0);
            used.extend(resident.map(|(line, &stamp)| (stamp & !DIRTY, slot, line as u64)));
        }
        used.sort_unstable();
        self.runs.clear();
        for (stamp, slot, line) in used {
            self.record_uses(slot, line, 1, stamp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{L2Cache, L2Traffic};

    #[test]
    fn a_cache_that_only_hits_keeps_its_queue_short_and_its_order() {
        // Four 64 B lines of capacity, two tensors sized beyond it (the queue is kept). Lines 0 to 3
        // of tensor 0 are read, then 5000 times line by line in the order 1, 2, 3, 0: all hits, each
        // a run of its own (the lines are not in box order), so the queue is compacted over and
        // over. Line 1 is then the least recent: a read of tensor 1 evicts it, and line 2 next.
        let mut cache = L2Cache::new(4 * 64, 64);
        cache.size_tensor(0, 8 * 64);
        cache.size_tensor(1, 8 * 64);
        assert_eq!(cache.read(0, &[(0, 256)]).fetched_bytes, 256);
        for _ in 0..5000 {
            for line in [1u64, 2, 3, 0] {
                assert_eq!(
                    cache.read(0, &[(line * 64, line * 64 + 64)]),
                    L2Traffic { hit_bytes: 64, ..Default::default() }
                );
            }
        }
        assert!(cache.runs.len() <= 2 * 1024 + 1, "{} runs queued for 4 resident lines", cache.runs.len());
        assert_eq!(cache.read(1, &[(0, 64)]).fetched_bytes, 64);
        assert_eq!(cache.read(0, &[(64, 128)]).fetched_bytes, 64, "line 1 was evicted");
        assert_eq!(cache.read(0, &[(0, 64)]).hit_bytes, 64, "line 0 stayed");
        assert_eq!(cache.read(0, &[(192, 256)]).hit_bytes, 64, "line 3 stayed");
        assert_eq!(cache.read(0, &[(128, 192)]).fetched_bytes, 64, "line 2 was evicted by line 1's return");
    }

    #[test]
    fn a_range_longer_than_the_cache_evicts_its_own_first_lines() {
        // Three 64 B lines of capacity: reading 5 lines at once keeps the last three; its first two
        // were evicted by the walk itself.
        let mut cache = L2Cache::new(3 * 64, 64);
        cache.size_tensor(0, 8 * 64);
        assert_eq!(cache.read(0, &[(0, 320)]).fetched_bytes, 320);
        assert_eq!(cache.resident, 3);
        assert_eq!(cache.read(0, &[(128, 320)]).hit_bytes, 192);
        assert_eq!(cache.read(0, &[(0, 64)]).fetched_bytes, 64);
    }
}
