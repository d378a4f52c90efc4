//! Boxes of rows the L2 has seen, while its sized tables fit (`l2_resident.rs`): nothing is evicted
//! then, so once a box has been read or written every line of it stays resident, and once written
//! every line stays dirty. Reading such a box again is all hits (its bytes), fetches nothing and
//! changes no line's state but its last use: the 4096³ GEMM reads each tile of A and B 16 to 32
//! times, 384 lines a k-step, and walked 3.3 M lines a run to learn that they were all resident.
//!
//! The last use of the lines is what the queue of uses needs should the tables ever outgrow the
//! capacity (a tensor sized late): an access served here keeps, instead of a stamp per line, the
//! clock it started at; the lines' stamps are that clock plus their position in the walk, and
//! `fold_into_stamps` writes them (the newer of the two) before the list is built from the stamps.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::{L2Cache, L2Traffic, RowBox, DIRTY};

/// What is known of a box that has been accessed whole since the tables fit.
#[derive(Clone, Copy, Debug)]
pub(super) struct SeenBox {
    /// Line uses of one access (a line shared by two rows counts twice, as the walk counts it).
    uses: u64,
    /// Its bytes: what a read of it hits.
    bytes: u64,
    /// Every line of it is dirty (it has been written).
    written: bool,
    /// The clock before its latest access served here (no stamps written), if any.
    served_at: Option<u64>,
}

/// The seen boxes by (tensor, box).
pub(super) type SeenBoxes = HashMap<(u32, RowBox), SeenBox, BuildHasherDefault<BoxHasher>>;

/// A multiplicative hash of the box's words (the keys are a handful of u64s, not attacker input).
#[derive(Default)]
pub(super) struct BoxHasher(u64);

impl Hasher for BoxHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.write_u64(u64::from(*byte));
        }
    }

    fn write_u32(&mut self, word: u32) {
        self.write_u64(u64::from(word));
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(26) ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

impl L2Cache {
    /// Reads a box of rows of `tensor` (as `read` of its ranges).
    pub fn read_box(&mut self, tensor: u32, rows: RowBox) -> L2Traffic {
        self.access_box(tensor, rows, false)
    }

    /// Writes a box of rows of `tensor` (as `write` of its ranges).
    pub fn write_box(&mut self, tensor: u32, rows: RowBox) -> L2Traffic {
        self.access_box(tensor, rows, true)
    }

    fn access_box(&mut self, tensor: u32, rows: RowBox, write: bool) -> L2Traffic {
        if self.evicting {
            if let Some(traffic) = self.access_box_evicting(tensor as usize, rows, write) {
                return traffic;
            }
        } else if let Some(seen) = self.seen_boxes.get_mut(&(tensor, rows)) {
            if !write || seen.written {
                seen.served_at = Some(self.clock);
                self.clock += seen.uses;
                // Every line is resident: a write hits too (`access` counts it the same way).
                return L2Traffic { hit_bytes: seen.bytes, ..Default::default() };
            }
        }
        let mut ranges = std::mem::take(&mut self.box_ranges);
        rows.ranges_into(&mut ranges);
        let traffic = self.access(tensor, &ranges, write);
        if !self.evicting {
            let uses = ranges
                .iter()
                .filter(|(start, end)| end > start)
                .map(|&(start, end)| self.line_of(end - 1) - self.line_of(start) + 1);
            let uses = uses.sum();
            let bytes = ranges.iter().map(|&(start, end)| end.saturating_sub(start)).sum();
            let seen = self.seen_boxes.entry((tensor, rows)).or_insert(SeenBox {
                uses,
                bytes,
                written: false,
                served_at: None,
            });
            seen.written |= write;
        }
        self.box_ranges = ranges;
        traffic
    }

    /// Writes the last uses of the accesses served without stamps into the stamps (the newer of
    /// the two per line), and forgets the boxes: called as the queue of uses takes over.
    pub(super) fn fold_into_stamps(&mut self) {
        let mut ranges = std::mem::take(&mut self.box_ranges);
        for ((tensor, rows), seen) in std::mem::take(&mut self.seen_boxes) {
            let Some(mut clock) = seen.served_at else { continue };
            rows.ranges_into(&mut ranges);
            for &(start, end) in ranges.iter().filter(|(start, end)| end > start) {
                for line in self.line_of(start)..=self.line_of(end - 1) {
                    clock += 1;
                    let stamp = &mut self.stamps[tensor as usize][line as usize];
                    *stamp = (*stamp & !DIRTY).max(clock) | (*stamp & DIRTY);
                }
            }
        }
        self.box_ranges = ranges;
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{L2Cache, L2Traffic, RowBox};
    use std::collections::HashMap;

    /// The plain model: resident lines with their last use and whether written; over capacity the
    /// line with the oldest use leaves (written back whole when written). One use per line a row
    /// touches, row after row (also the reference of `l2_box_walk.rs`).
    pub(in super::super) struct Model {
        pub(in super::super) lines: HashMap<(u32, u64), (u64, bool)>,
        pub(in super::super) clock: u64,
        pub(in super::super) line_bytes: u64,
        pub(in super::super) capacity: usize,
    }

    impl Model {
        pub(in super::super) fn access(&mut self, tensor: u32, rows: RowBox, write: bool) -> L2Traffic {
            let mut traffic = L2Traffic::default();
            for index in 0..rows.rows {
                let (start, end) = (rows.start + index * rows.stride, rows.start + index * rows.stride + rows.row);
                for line in start / self.line_bytes..=(end - 1) / self.line_bytes {
                    let line_start = line * self.line_bytes;
                    let requested = end.min(line_start + self.line_bytes) - start.max(line_start);
                    self.clock += 1;
                    let was_written = self.lines.get(&(tensor, line)).is_some_and(|&(_, written)| written);
                    if self.lines.insert((tensor, line), (self.clock, write || was_written)).is_some() {
                        traffic.hit_bytes += requested;
                    } else if !write {
                        traffic.fetched_bytes += self.line_bytes;
                    }
                    if self.lines.len() > self.capacity {
                        let oldest = *self.lines.iter().min_by_key(|(_, &(used, _))| used).expect("lines").0;
                        if self.lines.remove(&oldest).is_some_and(|(_, written)| written) {
                            traffic.written_back_bytes += self.line_bytes;
                        }
                    }
                }
            }
            traffic
        }
    }

    #[test]
    fn boxes_seen_whole_keep_the_traffic_and_the_order_of_use_of_a_plain_model() {
        // 64 B lines, 40 lines of capacity; tensors 0 and 1 of 10 rows × 128 B (20 lines each)
        // fit exactly. Boxes of 1 to 4 rows of 16 to 128 B (rows sharing lines, boxes repeated:
        // drawn from a small set) are read and written; then a third tensor is sized (the tables
        // outgrow L2: the queue of uses takes over, its order from the stamps and the boxes served
        // without them) and the same kind of accesses go on over three tensors, evicting.
        let (line_bytes, capacity) = (64u64, 40usize);
        let mut cache = L2Cache::new(capacity as u64 * line_bytes, line_bytes);
        let mut model = Model { lines: HashMap::new(), clock: 0, line_bytes, capacity };
        cache.size_tensor(0, 1280);
        cache.size_tensor(1, 1280);
        let mut state = 99u64;
        let mut next = |bound: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % bound
        };
        let boxes: Vec<RowBox> = (0..12)
            .map(|_| {
                let (rows, row) = (1 + next(4), 16 * (1 + next(8)));
                let start = next(10 - rows + 1) * 128 + next(128 - row + 1);
                RowBox { start, row, stride: 128, rows }
            })
            .collect();
        for round in 0..4000 {
            if round == 2000 {
                cache.size_tensor(2, 1280);
                assert!(cache.evicting);
            }
            let tensor = next(if round < 2000 { 2 } else { 3 }) as u32;
            let rows = boxes[next(boxes.len() as u64) as usize];
            let write = next(5) == 0;
            let wanted = model.access(tensor, rows, write);
            let traffic = if write { cache.write_box(tensor, rows) } else { cache.read_box(tensor, rows) };
            assert_eq!(traffic, wanted, "round {round}: {rows:?} of tensor {tensor}");
            assert_eq!(cache.resident, model.lines.len());
        }
        let written = model.lines.values().filter(|&&(_, written)| written).count() as u64;
        assert_eq!(cache.dirty_bytes(), written * line_bytes);
    }
}
