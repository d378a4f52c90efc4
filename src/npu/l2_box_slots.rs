//! Boxes of lines owned whole, so that accessing one again costs the same whatever its size. A
//! box walked as a box (`l2_box_walk.rs`) whose rows use distinct lines becomes a slot once walked:
//! its lines' stamps name the slot instead of a use (`OWNED`), and the slot keeps what the lines'
//! stamps would: the first stamp of its latest access (the lines' stamps follow it in walk order),
//! how many of those uses the queue has evicted since (always a prefix in walk order: the queue
//! evicts a run's uses in order), and from which position in walk order its lines are dirty (a
//! suffix: a write dirties all, a read fetches the evicted prefix clean).
//!
//! An access of the same lines again (the same tensor, first line, width, step and rows, whatever
//! the bytes within the lines) then needs no line: the evicted prefix misses, the rest hits, the
//! evictions it causes come from older runs (a slot's run evicts its prefix in one step), and the
//! new uses are one run. Exactly as the line walk, with one exception handled by walking: when the
//! evictions would reach the slot's own run, the walk's misses evict its lines not yet walked, so
//! the slot is dissolved (its lines get their stamps back) and the box is walked line by line. Any
//! other access touching an owned line dissolves its slot first (`L2Cache::use_line`). A first
//! access of lines none of which is resident or owned needs no walk either (`access_absent_box`):
//! all miss. The SwiGLU b kernel of the benchmark accesses 25 472 boxes of 128 rows per run, each
//! of its boxes of lines two to eight times (its [128, 128] BF16 tiles are half a line wide: two
//! tiles share a box of lines), most of them first while none of their lines is resident.

use std::collections::HashMap;

use super::box_memo::BoxHasher;
use super::{L2Cache, L2Traffic, DIRTY};
use std::hash::BuildHasherDefault;

/// The flag of a stamp that holds a slot's index instead of a use (stamps stay below 2⁶²).
pub(super) const OWNED: u64 = 1 << 62;

/// A run of the queue that is no slot's.
pub(super) const NO_SLOT: u32 = u32::MAX;

/// The lines of a box: tensor, first line, width, step and rows (all lines).
pub(super) type SlotKey = (u32, u64, u64, u64, u64);

/// The live slots by their lines.
pub(super) type SlotIds = HashMap<SlotKey, u32, BuildHasherDefault<BoxHasher>>;

/// A box of lines owned whole (module doc).
#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    key: SlotKey,
    /// The stamp of the first use of its latest access: the run in the queue that is its lines'.
    pub(super) run_stamp: u64,
    /// Uses of that run evicted: the lines before this position in walk order are not resident.
    pub(super) evicted: u64,
    /// The lines from this position in walk order on are dirty.
    dirty_from: u64,
    /// Lines (width × rows).
    uses: u64,
    /// False once dissolved: its lines have their stamps back, and `run_stamp` names the run that
    /// was its latest (the only run of it that can still hold live uses).
    pub(super) alive: bool,
}

/// The bytes an access asks of a box's lines, by column (the first and last may be partial).
#[derive(Clone, Copy, Debug)]
pub(super) struct RowBytes {
    pub(super) first: u64,
    pub(super) last: u64,
    pub(super) row: u64,
}

impl L2Cache {
    /// The line at position `position` of a slot's walk.
    fn slot_line(key: SlotKey, position: u64) -> u64 {
        let (_, first, width, step, _) = key;
        first + position / width * step + position % width
    }

    /// Accesses the lines of live slot `id` again; `None` when the evictions would reach the
    /// slot's own run (the slot is then dissolved, the evictions before it made, and the caller
    /// walks the box line by line).
    pub(super) fn access_slot(&mut self, id: u32, bytes: RowBytes, write: bool) -> Option<L2Traffic> {
        let slot = self.slots[id as usize];
        let missing = slot.evicted;
        let needed = (self.resident + missing as usize).saturating_sub(self.capacity_lines);
        if self.evict_oldest_lines(needed, id) < needed {
            self.dissolve(id);
            return None;
        }
        let (_, first, width, step, rows) = slot.key;
        let mut traffic = L2Traffic::default();
        // Bytes of the positions before `missing`: whole rows, then the first columns of one.
        let column_bytes = |column: u64| match column {
            0 => bytes.first,
            _ if column == width - 1 => bytes.last,
            _ => self.line_bytes,
        };
        let partial: u64 = (0..missing % width).map(column_bytes).sum();
        let missed_bytes = missing / width * bytes.row + partial;
        traffic.hit_bytes = rows * bytes.row - missed_bytes;
        if !write {
            traffic.fetched_bytes = missing * self.line_bytes;
        }
        self.resident += missing as usize;
        let run_stamp = self.clock + 1;
        self.record_box(slot.key.0 as usize, first, width, step, rows, run_stamp);
        self.runs.back_mut().expect("just recorded").owner = id;
        self.clock += slot.uses;
        let slot = &mut self.slots[id as usize];
        slot.run_stamp = run_stamp;
        slot.evicted = 0;
        slot.dirty_from = if write { 0 } else { slot.dirty_from.max(missing) };
        traffic.written_back_bytes = std::mem::take(&mut self.evicted_dirty_bytes);
        Some(traffic)
    }

    /// Accesses a box of distinct lines none of which is resident or owned (a first access, or
    /// one after all of them were evicted from stamps): all miss, the evictions they cause come
    /// from older runs (the box has no line resident to lose: at most capacity lines, so older
    /// ones are there), and the box becomes a slot. `None` (nothing done) when a line is resident
    /// or owned.
    pub(super) fn access_absent_box(&mut self, key: SlotKey, write: bool) -> Option<L2Traffic> {
        let (tensor, first, width, step, rows) = key;
        let id = self.slots.len() as u32;
        // Checked and marked in one pass: the marks go where the check just read. (A stale use of
        // the queue never matches a mark, as it never matched the 0 before: the evictions below
        // read the marked lines as they read absent ones.)
        if !claim_absent(box_span_mut(&mut self.stamps[tensor as usize], key), width, step, rows, id) {
            return None;
        }
        let uses = width * rows;
        let needed = (self.resident + uses as usize).saturating_sub(self.capacity_lines);
        self.evict_oldest_lines(needed, NO_SLOT);
        self.resident += uses as usize;
        self.record_box(tensor as usize, first, width, step, rows, self.clock + 1);
        self.clock += uses;
        self.own_newest_run(key, id, if write { 0 } else { uses });
        let fetched_bytes = if write { 0 } else { uses * self.line_bytes };
        let written_back_bytes = std::mem::take(&mut self.evicted_dirty_bytes);
        Some(L2Traffic { hit_bytes: 0, fetched_bytes, written_back_bytes })
    }

    /// Makes the box just walked (the newest run, all its lines resident) slot of `key`, its
    /// lines dirty from walk position `dirty_from` on.
    pub(super) fn make_slot(&mut self, key: SlotKey, dirty_from: u64) {
        let id = self.slots.len() as u32;
        let (tensor, _, width, step, rows) = key;
        let span = box_span_mut(&mut self.stamps[tensor as usize], key);
        fill_rows(span, width, step, rows, OWNED | u64::from(id));
        // Its dirty lines are the slot's to count now.
        self.dirty_lines -= (width * rows - dirty_from) as usize;
        self.own_newest_run(key, id, dirty_from);
    }

    /// Slot `id` (next to be made) of `key`, whose lines are marked: the newest run is its uses.
    fn own_newest_run(&mut self, key: SlotKey, id: u32, dirty_from: u64) {
        let newest = self.runs.back_mut().expect("the box's run");
        newest.owner = id;
        let run_stamp = newest.first_stamp;
        let (_, _, width, _, rows) = key;
        let uses = width * rows;
        self.slots.push(Slot { key, run_stamp, evicted: 0, dirty_from, uses, alive: true });
        self.slot_ids.insert(key, id);
    }

    /// Gives slot `id`'s lines their stamps back (the slot's run then reads them as any run).
    #[cold]
    pub(super) fn dissolve(&mut self, id: u32) {
        let slot = &mut self.slots[id as usize];
        slot.alive = false;
        let slot = *slot;
        self.slot_ids.remove(&slot.key);
        self.dirty_lines += slot.uses.saturating_sub(slot.dirty_from.max(slot.evicted)) as usize;
        let table = &mut self.stamps[slot.key.0 as usize];
        for position in 0..slot.uses {
            let line = Self::slot_line(slot.key, position) as usize;
            table[line] = match position {
                _ if position < slot.evicted => 0,
                _ if position >= slot.dirty_from => (slot.run_stamp + position) | DIRTY,
                _ => slot.run_stamp + position,
            };
        }
    }

    /// Evicts up to `count` lines of live slot `id`'s run at the front of the queue (its uses
    /// in walk order); returns how many.
    pub(super) fn evict_slot_lines(&mut self, id: u32, count: usize) -> usize {
        let slot = &mut self.slots[id as usize];
        let taken = (slot.uses - slot.evicted).min(count as u64);
        let dirty = (slot.evicted + taken).saturating_sub(slot.dirty_from.max(slot.evicted));
        slot.evicted += taken;
        self.resident -= taken as usize;
        self.evicted_dirty_bytes += dirty * self.line_bytes;
        taken as usize
    }

    /// Bytes of the dirty lines the live slots own.
    pub(super) fn slot_dirty_bytes(&self) -> u64 {
        let live = self.slots.iter().filter(|slot| slot.alive);
        let lines: u64 = live.map(|slot| slot.uses.saturating_sub(slot.dirty_from.max(slot.evicted))).sum();
        lines * self.line_bytes
    }
}

/// Marks the lines of a box (`span` from its first line to its last) as slot `id`'s if none holds
/// a stamp; else leaves them as they were and returns false.
fn claim_absent(span: &mut [u64], width: u64, step: u64, rows: u64, id: u32) -> bool {
    let mark = OWNED | u64::from(id);
    let claimed = |span: &mut [u64], row: u64| {
        let start = (row * step) as usize;
        let lines = &mut span[start..start + width as usize];
        let absent = lines.iter().all(|&stamp| stamp == 0);
        if absent {
            lines.fill(mark);
        }
        absent
    };
    // Most boxes are one line wide (a row of a tile within a line): a load and a store per row.
    let claimed_rows = match width {
        1 => (0..rows).take_while(|&row| claimed_one(span, (row * step) as usize, mark)).count(),
        _ => (0..rows).take_while(|&row| claimed(span, row)).count(),
    } as u64;
    if claimed_rows < rows {
        fill_rows(span, width, step, claimed_rows, 0);
    }
    claimed_rows == rows
}

/// Sets the stamps of the first `rows` rows of a box (`span` from its first line) to `value`.
fn fill_rows(span: &mut [u64], width: u64, step: u64, rows: u64, value: u64) {
    for row in 0..rows {
        let start = (row * step) as usize;
        span[start..start + width as usize].fill(value);
    }
}

/// Marks line `line` of `span` if it holds no stamp.
#[inline(always)]
fn claimed_one(span: &mut [u64], line: usize, mark: u64) -> bool {
    let absent = span[line] == 0;
    if absent {
        span[line] = mark;
    }
    absent
}

/// The stamps from a box's first line to its last.
fn box_span_mut(table: &mut [u64], key: SlotKey) -> &mut [u64] {
    let (_, first, width, step, rows) = key;
    &mut table[first as usize..(first + (rows - 1) * step + width) as usize]
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::box_memo::tests::Model;
    use super::super::{L2Cache, RowBox};

    #[test]
    fn boxes_owned_whole_match_a_plain_least_recently_used_model() {
        // 64 B lines, 40 of them, three tensors of 8 rows × 256 B sized up front (the cache evicts
        // from the start). Accesses are drawn from 16 boxes of 2–8 rows, 1–4 lines apart, rows of
        // 16–150 B at any offset (so boxes of the same lines with different bytes, boxes whose
        // rows share lines, boxes overlapping others), read or written, with a single-row access
        // now and then (the range walk, which dissolves a slot it touches). Every traffic and the
        // resident and dirty lines must be the model's, and every path of the slots must be taken:
        // a first access making a slot, an access served by its slot, one whose evictions reach
        // its own run (walked again), and a slot dissolved by another access.
        let (line_bytes, capacity) = (64u64, 40usize);
        let mut cache = L2Cache::new(capacity as u64 * line_bytes, line_bytes);
        for tensor in 0..3 {
            cache.size_tensor(tensor, 8 * 256);
        }
        let mut model = Model { lines: HashMap::new(), clock: 0, line_bytes, capacity };
        let mut state = 2024u64;
        let mut next = |bound: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % bound
        };
        let boxes: Vec<(u32, RowBox)> = (0..16)
            .map(|_| {
                let stride = line_bytes * (1 + next(4));
                let rows = 2 + next(7.min(8 * 256 / stride - 1));
                let row = 16 + next(135.min(stride - 16));
                let start = next(8 * 256 - (rows - 1) * stride - row + 1);
                (next(3) as u32, RowBox { start, row, stride, rows })
            })
            .collect();
        let (mut served, mut made, mut walked_again) = (0, 0, 0);
        for round in 0..6000 {
            let (tensor, mut rows) = boxes[next(boxes.len() as u64) as usize];
            if next(10) == 0 {
                rows.rows = 1;
            }
            let write = next(4) == 0;
            let first = rows.start / line_bytes;
            let width = (rows.start + rows.row - 1) / line_bytes - first + 1;
            let key = (tensor, first, width, rows.stride / line_bytes, rows.rows);
            let before = cache.slot_ids.get(&key).copied();
            let slots_before = cache.slots.len();
            let wanted = model.access(tensor, rows, write);
            let traffic = if write { cache.write_box(tensor, rows) } else { cache.read_box(tensor, rows) };
            assert_eq!(traffic, wanted, "round {round}: {rows:?} of tensor {tensor}, write {write}");
            assert_eq!(cache.resident, model.lines.len(), "round {round}");
            let written = model.lines.values().filter(|&&(_, written)| written).count() as u64;
            assert_eq!(cache.dirty_bytes(), written * line_bytes, "round {round}");
            match (before, cache.slot_ids.get(&key).copied()) {
                (Some(id), Some(after)) if id == after => served += 1,
                (Some(_), Some(_)) => walked_again += 1,
                (None, Some(_)) if cache.slots.len() > slots_before => made += 1,
                _ => {}
            }
        }
        let dissolved = cache.slots.iter().filter(|slot| !slot.alive).count();
        assert!(served > 500 && made > 100, "{served} served by a slot, {made} made");
        assert!(walked_again > 5 && dissolved > 100, "{walked_again} walked again, {dissolved} dissolved");
    }
}
