//! The shared L2 as a cache of lines: a GM region is the set of `line_bytes` lines its bytes fall in
//! (row-major addresses of its tensor), so a differently shaped read of resident data hits. A read
//! of a missing line fetches the whole line from HBM; a write makes its lines resident (the engine
//! writes through to HBM); the least recently used lines beyond the capacity are evicted.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// Bytes a read serves from L2 and fetches from HBM.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct L2Traffic {
    /// Requested bytes that were resident.
    pub hit_bytes: u64,
    /// Bytes fetched from HBM: whole lines of the requested bytes that were not resident.
    pub fetched_bytes: u64,
}

/// A multiplicative hash for the (tensor, line) keys: they are dense integers, SipHash is wasted on them.
#[derive(Default)]
struct LineHasher(u64);

impl Hasher for LineHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ *byte as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, value: u64) {
        self.0 = (value ^ (value >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// LRU residency of L2 lines keyed by (tensor, line index).
#[derive(Debug, Default)]
pub struct L2Cache {
    line_bytes: u64,
    capacity_lines: usize,
    clock: u64,
    /// Resident line → its last use stamp.
    lines: HashMap<u64, u64, BuildHasherDefault<LineHasher>>,
    /// Uses in order; an entry whose stamp is older than the line's is stale and skipped.
    order: VecDeque<(u64, u64)>,
}

fn line_key(tensor: u32, line: u64) -> u64 {
    ((tensor as u64) << 44) | line
}

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

    /// Writes the byte ranges of `tensor`: their lines become resident (write-allocate without a
    /// fetch: the DMA writes whole bursts with byte masks).
    pub fn write(&mut self, tensor: u32, ranges: &[(u64, u64)]) {
        self.access(tensor, ranges, true);
    }

    fn access(&mut self, tensor: u32, ranges: &[(u64, u64)], write: bool) -> L2Traffic {
        let mut traffic = L2Traffic::default();
        for &(start, end) in ranges {
            if end <= start {
                continue;
            }
            for line in start / self.line_bytes..=(end - 1) / self.line_bytes {
                let line_start = line * self.line_bytes;
                let requested = end.min(line_start + self.line_bytes) - start.max(line_start);
                self.clock += 1;
                let key = line_key(tensor, line);
                match self.lines.get_mut(&key) {
                    Some(stamp) => {
                        *stamp = self.clock;
                        traffic.hit_bytes += requested;
                    }
                    None => {
                        self.lines.insert(key, self.clock);
                        if !write {
                            traffic.fetched_bytes += self.line_bytes;
                        }
                    }
                }
                self.order.push_back((self.clock, key));
                self.evict_beyond_capacity();
            }
        }
        traffic
    }

    /// Evicts least recently used lines until the capacity holds.
    fn evict_beyond_capacity(&mut self) {
        while self.lines.len() > self.capacity_lines {
            let Some((stamp, key)) = self.order.pop_front() else { break };
            if self.lines.get(&key) == Some(&stamp) {
                self.lines.remove(&key);
            }
        }
        if self.order.len() > 4 * self.capacity_lines.max(1024) {
            // Drop stale entries so the queue stays proportional to the resident lines.
            let lines = &self.lines;
            self.order.retain(|(stamp, key)| lines.get(key) == Some(stamp));
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
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    let mut index = vec![0usize; rank - 1];
    loop {
        let element: u64 =
            (0..rank).map(|dim| (offsets[dim] + index.get(dim).copied().unwrap_or(0)) as u64 * strides[dim]).sum();
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
            if index[dim] < shape[dim] {
                break;
            }
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
        assert_eq!(cache.read(0, &whole), L2Traffic { hit_bytes: 0, fetched_bytes: 1024 });
        let block = region_ranges(&[4, 256], 2, &[0, 128], &[2, 128]);
        assert_eq!(block, vec![(256, 512), (768, 1024)]);
        assert_eq!(cache.read(0, &block), L2Traffic { hit_bytes: 512, fetched_bytes: 0 });
    }

    #[test]
    fn capacity_evicts_the_least_recently_used_line() {
        // Two 512 B lines fit. Write line 0, read line 1 (fetched), touch line 0 again, then read
        // line 2: line 1 is the least recent and leaves; line 0 is still a hit, line 1 a miss again.
        let mut cache = L2Cache::new(1024, 512);
        cache.write(7, &[(0, 512)]);
        assert_eq!(cache.read(7, &[(512, 1024)]).fetched_bytes, 512);
        assert_eq!(cache.read(7, &[(0, 512)]).hit_bytes, 512);
        assert_eq!(cache.read(7, &[(1024, 1536)]), L2Traffic { hit_bytes: 0, fetched_bytes: 512 });
        assert_eq!(cache.read(7, &[(0, 512)]).hit_bytes, 512);
        assert_eq!(cache.read(7, &[(512, 1024)]).fetched_bytes, 512);
    }
}
