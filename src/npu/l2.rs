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
    capacity_lines: usize,
    clock: u64,
    /// Per tensor, per line: the stamp of its last use, 0 when not resident (stamps start at 1).
    /// Dense: a line lookup is an index, not a hash (the simulator does one per line of every copy).
    stamps: Vec<Vec<u64>>,
    /// Lines resident (non-zero stamps).
    resident: usize,
    /// Uses in order as (stamp, tensor, line); an entry whose stamp is older than the line's is
    /// stale and skipped. Kept only once the cache has been full (`ordered`): until then nothing is
    /// evicted, and the first eviction rebuilds it from the stamps (the same live entries in the
    /// same order), so a kernel whose data fits L2 never pays for a queue entry per line.
    order: VecDeque<(u64, u32, u64)>,
    ordered: bool,
    /// Per tensor, per line: written since it was fetched or last written back (write-back state,
    /// kept by `l2_write_back.rs`).
    dirty: Vec<Vec<bool>>,
    /// Dirty bytes evicted by the access in progress (taken into its `L2Traffic` when it ends).
    evicted_dirty_bytes: u64,
}

#[path = "l2_write_back.rs"]
mod write_back;

impl L2Cache {
    /// An empty cache of `capacity` bytes in lines of `line_bytes`.
    pub fn new(capacity: u64, line_bytes: u64) -> Self {
        let line_bytes = line_bytes.max(1);
        L2Cache { line_bytes, capacity_lines: (capacity / line_bytes).max(1) as usize, ..Default::default() }
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
        let slot = tensor as usize;
        if self.stamps.len() <= slot {
            self.stamps.resize_with(slot + 1, Vec::new);
        }
        for &(start, end) in ranges {
            if end <= start {
                continue;
            }
            let (first, last) = (start / self.line_bytes, (end - 1) / self.line_bytes);
            if self.stamps[slot].len() <= last as usize {
                self.stamps[slot].resize(last as usize + 1, 0);
            }
            for line in first..=last {
                let line_start = line * self.line_bytes;
                let requested = end.min(line_start + self.line_bytes) - start.max(line_start);
                self.clock += 1;
                let stamp = &mut self.stamps[slot][line as usize];
                if *stamp != 0 {
                    traffic.hit_bytes += requested;
                } else {
                    self.resident += 1;
                    if !write {
                        traffic.fetched_bytes += self.line_bytes;
                    }
                }
                *stamp = self.clock;
                if write {
                    self.mark_dirty(slot, line);
                }
                if self.ordered {
                    self.order.push_back((self.clock, tensor, line));
                }
                if self.resident > self.capacity_lines {
                    self.evict_beyond_capacity();
                }
            }
        }
        if self.order.len() > 4 * self.capacity_lines.max(1024) {
            // Drop stale entries so the queue stays proportional to the resident lines.
            let stamps = &self.stamps;
            self.order.retain(|&(stamp, tensor, line)| stamps[tensor as usize][line as usize] == stamp);
        }
        traffic.written_back_bytes = std::mem::take(&mut self.evicted_dirty_bytes);
        traffic
    }

    /// Evicts least recently used lines until the capacity holds.
    fn evict_beyond_capacity(&mut self) {
        if !self.ordered {
            let mut live: Vec<(u64, u32, u64)> = Vec::with_capacity(self.resident);
            for (tensor, stamps) in self.stamps.iter().enumerate() {
                let resident = stamps.iter().enumerate().filter(|(_, &stamp)| stamp != 0);
                live.extend(resident.map(|(line, &stamp)| (stamp, tensor as u32, line as u64)));
            }
            live.sort_unstable();
            self.order = live.into();
            self.ordered = true;
        }
        while self.resident > self.capacity_lines {
            let Some((stamp, tensor, line)) = self.order.pop_front() else { break };
            let current = &mut self.stamps[tensor as usize][line as usize];
            if *current == stamp {
                *current = 0;
                self.resident -= 1;
                self.write_back_evicted(tensor as usize, line);
            }
        }
    }
}

/// The contiguous byte ranges (row-major addresses) of a region of a tensor, adjacent rows merged.
pub fn region_ranges(
    tensor_shape: &[usize],
    element_bytes: u64,
    offsets: &[usize],
    shape: &[usize],
) -> Vec<(u64, u64)> {
    let rank = tensor_shape.len();
    if rank == 0 || shape.contains(&0) {
        return Vec::new();
    }
    let mut strides = vec![1u64; rank];
    for dim in (0..rank - 1).rev() {
        strides[dim] = strides[dim + 1] * tensor_shape[dim + 1] as u64;
    }
    let row = shape[rank - 1] as u64 * element_bytes;
    let mut ranges: Vec<(u64, u64)> = Vec::with_capacity(shape[..rank - 1].iter().product());
    let mut index = vec![0usize; rank - 1];
    // The first element of the current row, moved by the odometer below (no sum over dims per row).
    let mut element: u64 = (0..rank).map(|dim| offsets[dim] as u64 * strides[dim]).sum();
    loop {
        let start = element * element_bytes;
        match ranges.last_mut() {
            Some(last) if last.1 == start => last.1 += row,
            _ => ranges.push((start, start + row)),
        }
        // The next row of the region (odometer over every dim but the last).
        let mut dim = rank - 1;
        loop {
            if dim == 0 {
                return ranges;
            }
            dim -= 1;
            index[dim] += 1;
            element += strides[dim];
            if index[dim] < shape[dim] {
                break;
            }
            element -= strides[dim] * shape[dim] as u64;
            index[dim] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
