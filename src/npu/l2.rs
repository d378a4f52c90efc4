//! The shared L2 as a cache of lines: a GM region is the set of `line_bytes` lines its bytes fall in
//! (row-major addresses of its tensor), so a differently shaped read of resident data hits. A read
//! of a missing line fetches the whole line from HBM; a write makes its lines resident and dirty
//! (write-back: `l2_write_back.rs`); the least recently used lines beyond the capacity are evicted,
//! a dirty one written back to HBM whole.

use std::collections::VecDeque;

/// Bytes a read serves from L2 and fetches from HBM.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct L2Traffic {
    /// Requested bytes that were resident.
    pub hit_bytes: u64,
    /// Bytes fetched from HBM: whole lines of the requested bytes that were not resident.
    pub fetched_bytes: u64,
    /// Bytes written back to HBM: whole dirty lines this access evicted.
    pub written_back_bytes: u64,
}

/// LRU residency of L2 lines keyed by (tensor, line index).
#[derive(Debug, Default)]
pub struct L2Cache {
    line_bytes: u64,
    /// log2 of `line_bytes` when it is a power of two (every preset's is): a line index is then a
    /// shift, not a 64-bit division (two per range, and the simulator walks millions of ranges).
    line_shift: Option<u32>,
    capacity_lines: usize,
    /// Per tensor, per line: the stamp of its last use, 0 when not resident, and `DIRTY` when it
    /// was written since it was fetched (write-back state, kept by `l2_write_back.rs`). Dense: a
    /// line lookup is an index, not a hash; the flag beside the stamp: one cache line, not two.
    stamps: Vec<Vec<u64>>,
    /// Whether lines are evicted: from the moment the sized tables no longer fit the capacity
    /// (`l2_resident.rs`). Until then nothing leaves and no order of use is kept but the stamps.
    evicting: bool,
    /// Once `evicting`: the uses of the lines, oldest first (`l2_recency.rs`).
    runs: VecDeque<recency::Run>,
    /// Uses so far (stamps start at 1).
    clock: u64,
    /// Lines resident.
    resident: usize,
    /// Lines whose stamp is dirty (kept as stamps change: `dirty_bytes` reads it, not the tables).
    dirty_lines: usize,
    /// Lines of the sized tables (allocated or not yet).
    sized_lines: usize,
    /// Per tensor, the lines `size_tensor` sized its table for (allocated at its first access).
    planned: Vec<usize>,
    /// While the sized tables fit: the boxes of rows accessed whole (`l2_box_memo.rs`).
    seen_boxes: box_memo::SeenBoxes,
    /// The ranges of the box being accessed (reused: no allocation per access).
    box_ranges: Vec<(u64, u64)>,
    /// Dirty bytes evicted by the access in progress (taken into its `L2Traffic` when it ends).
    evicted_dirty_bytes: u64,
    /// Boxes of lines owned whole, by index (`l2_box_slots.rs`): dissolved ones stay, so that the
    /// runs naming them can tell.
    slots: Vec<box_slots::Slot>,
    /// The live slots by their lines.
    slot_ids: box_slots::SlotIds,
}

/// The flag of a line's stamp that says the line is dirty (a stamp never reaches 2⁶³ uses).
const DIRTY: u64 = 1 << 63;

#[path = "l2_box_memo.rs"]
mod box_memo;
#[path = "l2_box_slots.rs"]
mod box_slots;
#[path = "l2_box_walk.rs"]
mod box_walk;
#[path = "l2_ranges.rs"]
mod ranges;
pub use ranges::{region_ranges_into, RowBox};
#[path = "l2_recency.rs"]
mod recency;
#[path = "l2_resident.rs"]
mod resident;
#[path = "l2_write_back.rs"]
mod write_back;

impl L2Cache {
    /// An empty cache of `capacity` bytes in lines of `line_bytes`.
    pub fn new(capacity: u64, line_bytes: u64) -> Self {
        let line_bytes = line_bytes.max(1);
        let line_shift = line_bytes.is_power_of_two().then(|| line_bytes.trailing_zeros());
        L2Cache {
            line_bytes,
            line_shift,
            capacity_lines: (capacity / line_bytes).max(1) as usize,
            ..Default::default()
        }
    }

    /// The index of the line holding byte `byte`.
    fn line_of(&self, byte: u64) -> u64 {
        match self.line_shift {
            Some(shift) => byte >> shift,
            None => byte / self.line_bytes,
        }
    }

    /// Sizes the line table of `tensor` for its `bytes` up front (the simulator does this for every
    /// tensor of a plan), so that accesses never grow it piece by piece. The table is allocated
    /// at the tensor's first access, whole (`size_lines`): zeroed then, its stamps are still in
    /// the host's cache for the accesses that follow (the SwiGLU b kernel's 132 workspace tensors
    /// have 8 MB of tables; zeroed all at the start, the first accesses of each read them back from
    /// memory).
    pub fn size_tensor(&mut self, tensor: u32, bytes: u64) {
        let (slot, lines) = (tensor as usize, bytes.div_ceil(self.line_bytes) as usize);
        // A line key holds the line index in 32 bits: 2 TB of one tensor in 512 B lines.
        assert!(lines <= u32::MAX as usize, "an L2 line table beyond 2^32 lines");
        if self.planned.len() <= slot {
            self.planned.resize(slot + 1, 0);
        }
        let known = self.planned[slot].max(self.stamps.get(slot).map_or(0, Vec::len));
        if lines > known {
            self.planned[slot] = lines;
            self.count_sized(lines - known);
        }
    }

    /// Makes the table of tensor `slot` hold `lines` lines at least (all it was sized for).
    fn size_lines(&mut self, slot: usize, lines: usize) {
        let sized = self.stamps.get(slot).map_or(0, Vec::len);
        if sized >= lines {
            return;
        }
        assert!(lines <= u32::MAX as usize, "an L2 line table beyond 2^32 lines");
        let planned = self.planned.get(slot).copied().unwrap_or(0);
        if self.stamps.len() <= slot {
            self.stamps.resize_with(slot + 1, Vec::new);
        }
        grow_zeroed(&mut self.stamps[slot], lines.max(planned));
        self.count_sized(lines.saturating_sub(planned.max(sized)));
    }

    /// Counts `lines` more lines of sized tables: once they no longer fit, lines are evicted.
    fn count_sized(&mut self, lines: usize) {
        self.sized_lines += lines;
        if !self.evicting && self.sized_lines > self.capacity_lines {
            self.start_evicting();
        }
    }

    /// Reads the byte ranges `[start, end)` of `tensor`: resident lines are hits, the others are
    /// fetched whole and become resident.
    pub fn read(&mut self, tensor: u32, ranges: &[(u64, u64)]) -> L2Traffic {
        self.access(tensor, ranges, false)
    }

    /// Writes the byte ranges of `tensor`: their lines become resident and dirty (write-allocate
    /// without a fetch: the DMA writes whole bursts with byte masks); nothing reaches HBM unless
    /// the write evicts dirty lines (`written_back_bytes`).
    pub fn write(&mut self, tensor: u32, ranges: &[(u64, u64)]) -> L2Traffic {
        self.access(tensor, ranges, true)
    }

    fn access(&mut self, tensor: u32, ranges: &[(u64, u64)], write: bool) -> L2Traffic {
        let mut traffic = L2Traffic::default();
        let done = if self.evicting { 0 } else { self.access_fitting(tensor as usize, ranges, write, &mut traffic) };
        self.access_evicting(tensor, &ranges[done..], write, &mut traffic);
        traffic.written_back_bytes = std::mem::take(&mut self.evicted_dirty_bytes);
        traffic
    }

    /// The full model: each line used becomes the most recent; over capacity, the least recent
    /// line is evicted.
    fn access_evicting(&mut self, tensor: u32, ranges: &[(u64, u64)], write: bool, traffic: &mut L2Traffic) {
        let slot = tensor as usize;
        for &(start, end) in ranges {
            if end <= start {
                continue;
            }
            let (first, last) = (self.line_of(start), self.line_of(end - 1));
            if self.stamps.get(slot).map_or(0, Vec::len) <= last as usize {
                self.size_lines(slot, last as usize + 1);
            }
            // The range's uses are queued before its lines are walked, so that an eviction on the
            // way finds them (as stale uses until walked); a range longer than the whole cache is
            // queued line by line as walked, so that it never evicts a use of its own not yet made.
            let queue_whole = last - first < self.capacity_lines as u64;
            if queue_whole {
                self.record_uses(slot, first, last - first + 1, self.clock + 1);
            }
            for line in first..last + 1 {
                self.clock += 1;
                if !queue_whole {
                    self.record_uses(slot, line, 1, self.clock);
                }
                let line_start = line * self.line_bytes;
                let requested = end.min(line_start + self.line_bytes) - start.max(line_start);
                self.use_line(slot, line, requested, write, traffic);
            }
        }
    }

    /// The use of `line` of `slot` at the current clock, `requested` of its bytes: a hit if it is
    /// resident, else it becomes resident (fetched whole when read); over capacity, the least
    /// recently used line is evicted.
    #[inline(always)]
    fn use_line(&mut self, slot: usize, line: u64, requested: u64, write: bool, traffic: &mut L2Traffic) {
        let owned = self.stamps[slot][line as usize];
        if owned & box_slots::OWNED != 0 {
            self.dissolve(owned as u32);
        }
        let stamp = &mut self.stamps[slot][line as usize];
        if *stamp != 0 {
            traffic.hit_bytes += requested;
        } else {
            self.resident += 1;
            if !write {
                traffic.fetched_bytes += self.line_bytes;
            }
        }
        self.dirty_lines += usize::from(write && *stamp & DIRTY == 0);
        *stamp = self.clock | (*stamp & DIRTY) | if write { DIRTY } else { 0 };
        if self.resident > self.capacity_lines {
            self.evict_oldest();
        }
    }
}

/// Grows `table` to `lines` zeros: a fresh table is allocated zeroed (no pass writing the zeros).
fn grow_zeroed<T: Clone + Default>(table: &mut Vec<T>, lines: usize) {
    if table.is_empty() {
        *table = vec![T::default(); lines];
    } else {
        table.resize(lines, T::default());
    }
}

#[cfg(test)]
mod tests {
    use super::ranges::tests::region_ranges;
    use super::*;

    #[test]
    fn lines_that_are_not_a_power_of_two_bytes_long_are_found_by_division() {
        // 48 B lines: bytes [0, 100) touch lines 0, 1, 2 (144 B fetched); byte 96 is then a hit.
        let mut cache = L2Cache::new(48 * 100, 48);
        assert_eq!(cache.read(0, &[(0, 100)]).fetched_bytes, 144);
        assert_eq!(cache.read(0, &[(96, 97)]).hit_bytes, 1);
        assert_eq!(cache.read(0, &[(144, 145)]).fetched_bytes, 48);
    }

    #[test]
    fn a_differently_shaped_read_of_resident_lines_hits() {
        // A [4, 256] f16 tensor has 512 B rows = one 512 B line each. Reading rows 0..2 whole fetches
        // lines 0 and 1 (1024 B from HBM); reading the [2, 128] block at column 128 then touches the
        // second halves of the same two lines: 2 × 256 B = 512 B, all hits, nothing fetched.
        let mut cache = L2Cache::new(1 << 20, 512);
        let whole = region_ranges(&[4, 256], 2, &[0, 0], &[2, 256]);
        assert_eq!(whole, vec![(0, 1024)]);
        assert_eq!(cache.read(0, &whole), L2Traffic { fetched_bytes: 1024, ..Default::default() });
        let block = region_ranges(&[4, 256], 2, &[0, 128], &[2, 128]);
        assert_eq!(block, vec![(256, 512), (768, 1024)]);
        assert_eq!(cache.read(0, &block), L2Traffic { hit_bytes: 512, ..Default::default() });
    }

    #[test]
    fn matches_a_plain_least_recently_used_model() {
        // The reference: a map of resident lines to their last use and whether they were written;
        // over capacity, the line with the oldest use leaves (written back whole when written). Accesses: pseudo-random ranges over three tensors, reads and
        // writes, in a cache of 37 lines of 64 B, so lines are evicted, re-fetched and re-hit.
        let (line_bytes, capacity) = (64u64, 37usize);
        let mut cache = L2Cache::new(capacity as u64 * line_bytes, line_bytes);
        // Sized up front as the engine sizes a plan's tensors: 3 × 65 lines do not fit, so every
        // access goes through the queue of uses.
        for tensor in 0..3 {
            cache.size_tensor(tensor, 65 * line_bytes);
        }
        let mut model: std::collections::HashMap<(u32, u64), (u64, bool)> = Default::default();
        let mut clock = 0u64;
        let mut state = 12345u64;
        let mut next = |bound: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % bound
        };
        for _ in 0..3000 {
            let tensor = next(3) as u32;
            let write = next(4) == 0;
            let ranges: Vec<(u64, u64)> = (0..1 + next(3))
                .map(|_| {
                    let start = next(60 * line_bytes);
                    (start, start + 1 + next(5 * line_bytes))
                })
                .collect();
            let mut wanted = L2Traffic::default();
            for &(start, end) in &ranges {
                for line in start / line_bytes..=(end - 1) / line_bytes {
                    let requested = end.min((line + 1) * line_bytes) - start.max(line * line_bytes);
                    clock += 1;
                    let was_dirty = model.get(&(tensor, line)).is_some_and(|&(_, dirty)| dirty);
                    if model.insert((tensor, line), (clock, write || was_dirty)).is_some() {
                        wanted.hit_bytes += requested;
                    } else if !write {
                        wanted.fetched_bytes += line_bytes;
                    }
                    if model.len() > capacity {
                        let oldest = *model.iter().min_by_key(|(_, &(stamp, _))| stamp).expect("not empty").0;
                        if model.remove(&oldest).is_some_and(|(_, dirty)| dirty) {
                            wanted.written_back_bytes += line_bytes;
                        }
                    }
                }
            }
            let traffic = if write { cache.write(tensor, &ranges) } else { cache.read(tensor, &ranges) };
            assert_eq!(traffic, wanted, "ranges {ranges:?} of tensor {tensor}");
            assert_eq!(cache.resident, model.len());
            let dirty_lines = model.values().filter(|&&(_, dirty)| dirty).count() as u64;
            assert_eq!(cache.dirty_bytes(), dirty_lines * line_bytes);
        }
    }

    #[test]
    fn capacity_evicts_the_least_recently_used_line() {
        // Two 512 B lines fit. Write line 0, read line 1 (fetched), touch line 0 again, then read
        // line 2: line 1 is the least recent and leaves; line 0 is still a hit, line 1 a miss again.
        let mut cache = L2Cache::new(1024, 512);
        cache.write(7, &[(0, 512)]);
        assert_eq!(cache.read(7, &[(512, 1024)]).fetched_bytes, 512);
        assert_eq!(cache.read(7, &[(0, 512)]).hit_bytes, 512);
        let traffic = cache.read(7, &[(1024, 1536)]);
        assert_eq!(traffic, L2Traffic { hit_bytes: 0, fetched_bytes: 512, written_back_bytes: 0 });
        assert_eq!(cache.read(7, &[(0, 512)]).hit_bytes, 512);
        assert_eq!(cache.read(7, &[(512, 1024)]).fetched_bytes, 512);
    }
}
