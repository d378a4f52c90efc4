//! A box of rows walked as a box once the cache evicts: when the box's stride is a whole number of
//! lines, every row lies at the same offset in its lines, so row i uses lines first + i·step … +
//! width − 1 and the box's uses are one run of the queue (`l2_recency.rs`), recorded once instead
//! of row by row from a list of byte ranges. The SwiGLU b kernel of the benchmark accesses 25 472
//! such boxes per run, 3.2 M line uses, every row one line or half of one.
//!
//! The walk is the range walk's (`L2Cache::access_evicting`) line for line: the same uses at the
//! same stamps, so the same hits, fetches and evictions. Its uses are queued before the walk, as a
//! range's are: an eviction during the walk takes the oldest live use, and of the capacity + 1
//! lines then resident one besides the line just stamped has its last use before the box's uses
//! still to come, so the queue never reaches those. A box of more uses than the cache has lines still goes the
//! range walk's way (each range queued line by line past that size), as before.

use super::box_slots::RowBytes;
use super::{L2Cache, L2Traffic, RowBox, DIRTY};

impl L2Cache {
    /// Reads or writes `rows` of tensor `slot` as a box while the cache evicts; `None` (nothing
    /// done) when the box is not of that form: its stride not a whole number of lines, fewer than
    /// two rows, rows whose bytes touch (one range), or more uses than the cache has lines.
    #[inline(never)]
    pub(super) fn access_box_evicting(&mut self, slot: usize, rows: RowBox, write: bool) -> Option<L2Traffic> {
        let RowBox { start, row, stride, rows: count } = rows;
        let line_bytes = self.line_bytes;
        if count < 2 || row == 0 || row >= stride || stride % line_bytes != 0 {
            return None;
        }
        let first = self.line_of(start);
        let width = self.line_of(start + row - 1) - first + 1;
        let step = stride / line_bytes;
        let last = first + (count - 1) * step + width - 1;
        if width * count > self.capacity_lines as u64 || last > u64::from(u32::MAX) {
            return None;
        }
        if self.stamps.get(slot).map_or(0, Vec::len) <= last as usize {
            self.size_lines(slot, last as usize + 1);
        }
        // The bytes a row asks of each of its lines: the first and last may be partial.
        let offset = start - first * line_bytes;
        let requested = |column: u64| (offset + row).min((column + 1) * line_bytes) - offset.max(column * line_bytes);
        let (first_bytes, last_bytes) = (requested(0), requested(width - 1));
        // Rows of distinct lines can be owned whole (`l2_box_slots.rs`).
        let key = (slot as u32, first, width, step, count);
        let owned = width <= step;
        if owned {
            if let Some(&id) = self.slot_ids.get(&key) {
                let bytes = RowBytes { first: first_bytes, last: last_bytes, row };
                if let Some(traffic) = self.access_slot(id, bytes, write) {
                    return Some(traffic);
                }
            } else if let Some(traffic) = self.access_absent_box(key, write) {
                return Some(traffic);
            }
        }
        self.record_box(slot, first, width, step, count, self.clock + 1);
        let mut traffic = L2Traffic::default();
        // The walk position of the first dirty line, and whether every later one is dirty too.
        let (mut dirty_from, mut dirty_suffix) = (if write { 0 } else { width * count }, true);
        for index in 0..count {
            let row_first = first + index * step;
            // The stamps are tens of MB, a row's a cache line or more apart: waiting for each was
            // most of the walk's time (SwiGLU b: 40 runs in 1.68 s without, 1.20 s with).
            if index + AHEAD < count {
                prefetch(&self.stamps[slot], row_first + AHEAD * step);
            }
            for column in 0..width {
                self.clock += 1;
                let requested = match column {
                    0 => first_bytes,
                    _ if column == width - 1 => last_bytes,
                    _ => line_bytes,
                };
                self.use_line(slot, row_first + column, requested, write, &mut traffic);
                if !write {
                    let dirty = self.stamps[slot][(row_first + column) as usize] & DIRTY != 0;
                    let position = index * width + column;
                    if dirty && dirty_from > position {
                        dirty_from = position;
                    }
                    dirty_suffix &= dirty || dirty_from > position;
                }
            }
        }
        if owned && dirty_suffix {
            self.make_slot(key, dirty_from);
        }
        traffic.written_back_bytes = std::mem::take(&mut self.evicted_dirty_bytes);
        Some(traffic)
    }
}

/// Rows ahead of the walk whose first stamp is asked for.
const AHEAD: u64 = 8;

/// A hint that `stamps[line]` is read soon (x86-64; elsewhere, and past the table, nothing).
#[inline]
fn prefetch(stamps: &[u64], line: u64) {
    #[cfg(target_arch = "x86_64")]
    if let Some(stamp) = stamps.get(line as usize) {
        // SAFETY: a prefetch only hints the cache; the address is that of an element.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>((stamp as *const u64).cast())
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (stamps, line);
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::box_memo::tests::Model;
    use super::super::{L2Cache, RowBox};

    #[test]
    fn boxes_walked_as_boxes_match_a_plain_least_recently_used_model() {
        // 64 B lines, 37 of them, two tensors of 96 lines sized up front (the cache evicts from
        // the start). Pseudo-random boxes: strides of 1–4 lines (the box walk) and of 40–100 bytes
        // (the range walk), rows of 1–150 bytes at any offset (half lines that share a line with
        // the next box, whole lines, rows over two or three lines), 1–20 rows: some make more uses
        // than the cache has lines and go through the range walk too.
        let (line_bytes, capacity) = (64u64, 37usize);
        let mut cache = L2Cache::new(capacity as u64 * line_bytes, line_bytes);
        for tensor in 0..2 {
            cache.size_tensor(tensor, 96 * line_bytes);
        }
        let mut model = Model { lines: HashMap::new(), clock: 0, line_bytes, capacity };
        let mut state = 987_654_321u64;
        let mut next = |bound: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % bound
        };
        let mut walked_as_boxes = 0;
        for _ in 0..4000 {
            let tensor = next(2) as u32;
            let write = next(4) == 0;
            let stride = if next(3) == 0 { 40 + next(61) } else { line_bytes * (1 + next(4)) };
            let row = 1 + next(150.min(stride - 1));
            let rows = 1 + next(20);
            let start = next(96 * line_bytes - (rows - 1) * stride - row + 1);
            let rows = RowBox { start, row, stride, rows };
            let wanted = model.access(tensor, rows, write);
            let got = match cache.access_box_evicting(tensor as usize, rows, write) {
                Some(traffic) => {
                    walked_as_boxes += 1;
                    traffic
                }
                None if write => cache.write_box(tensor, rows),
                None => cache.read_box(tensor, rows),
            };
            assert_eq!(got, wanted, "{rows:?} of tensor {tensor}, write {write}");
            assert_eq!(cache.resident, model.lines.len());
        }
        assert!(walked_as_boxes > 1500, "only {walked_as_boxes} of 4000 boxes walked as boxes");
    }
}
