//! The L2 of a kernel whose data fits it: while the lines of every sized tensor fit the capacity at
//! once, no line is evicted, so no order of use is needed beyond each line's stamp (its last use),
//! and no queue of uses is kept (`l2_recency.rs`): the 4096³ GEMM touches 6.4 M lines per run and
//! none of them is ever evicted. Should the sized tables outgrow the capacity, the stamps give the
//! queue its order.

use super::{L2Cache, L2Traffic, DIRTY};

impl L2Cache {
    /// An access while the sized tables fit: resident lines hit, the others become resident
    /// (fetched whole when read), written lines become dirty; nothing is evicted. Returns how many
    /// ranges it took: it stops at a range whose lines outgrow the capacity (the list takes over).
    pub(super) fn access_fitting(
        &mut self,
        slot: usize,
        ranges: &[(u64, u64)],
        write: bool,
        traffic: &mut L2Traffic,
    ) -> usize {
        let table = self.stamps.get(slot).map_or(0, Vec::len) as u64;
        let beyond = ranges.iter().any(|&(start, end)| end > start && self.line_of(end - 1) >= table);
        if !beyond {
            self.access_fitting_sized(slot, ranges, write, traffic);
            return ranges.len();
        }
        for (index, &(start, end)) in ranges.iter().enumerate() {
            if end <= start {
                continue;
            }
            let (first, last) = (self.line_of(start), self.line_of(end - 1));
            if self.stamps.get(slot).map_or(0, Vec::len) <= last as usize {
                self.size_lines(slot, last as usize + 1);
                if self.evicting {
                    return index;
                }
            }
            for line in first..last + 1 {
                self.clock += 1;
                let stamp = &mut self.stamps[slot][line as usize];
                if *stamp != 0 {
                    let line_start = line * self.line_bytes;
                    traffic.hit_bytes += end.min(line_start + self.line_bytes) - start.max(line_start);
                } else {
                    self.resident += 1;
                    if !write {
                        traffic.fetched_bytes += self.line_bytes;
                    }
                }
                self.dirty_lines += usize::from(write && *stamp & DIRTY == 0);
                *stamp = self.clock | (*stamp & DIRTY) | if write { DIRTY } else { 0 };
            }
        }
        ranges.len()
    }

    /// `access_fitting` when every line of `ranges` is in the sized table: nothing grows, nothing
    /// links mid-way, so the loop keeps its counts in locals (the 4096³ GEMM walks 3 M lines a run).
    fn access_fitting_sized(&mut self, slot: usize, ranges: &[(u64, u64)], write: bool, traffic: &mut L2Traffic) {
        let (line_bytes, shift) = (self.line_bytes, self.line_shift);
        let line_of = |byte: u64| match shift {
            Some(shift) => byte >> shift,
            None => byte / line_bytes,
        };
        let Some(stamps) = self.stamps.get_mut(slot) else {
            // No table: every range was empty.
            return;
        };
        let (mut clock, mut resident, mut hit_bytes, mut fetched_bytes, mut dirtied) = (self.clock, 0, 0, 0, 0);
        for &(start, end) in ranges {
            if end <= start {
                continue;
            }
            for line in line_of(start)..line_of(end - 1) + 1 {
                clock += 1;
                let stamp = &mut stamps[line as usize];
                if *stamp != 0 {
                    let line_start = line * line_bytes;
                    hit_bytes += end.min(line_start + line_bytes) - start.max(line_start);
                } else {
                    resident += 1;
                    if !write {
                        fetched_bytes += line_bytes;
                    }
                }
                dirtied += usize::from(write && *stamp & DIRTY == 0);
                *stamp = clock | (*stamp & DIRTY) | if write { DIRTY } else { 0 };
            }
        }
        self.clock = clock;
        self.resident += resident;
        self.dirty_lines += dirtied;
        traffic.hit_bytes += hit_bytes;
        traffic.fetched_bytes += fetched_bytes;
    }

    /// Starts evicting once the sized tables no longer fit: the resident lines join the queue of
    /// uses in the order of their stamps.
    pub(super) fn start_evicting(&mut self) {
        self.fold_into_stamps();
        self.runs_from_stamps();
        self.evicting = true;
    }
}
#[cfg(test)]
mod tests {
    use super::super::{L2Cache, L2Traffic};

    #[test]
    fn a_cache_its_tensors_fit_counts_hits_and_fetches_per_line() {
        // 64 B lines, 8 lines of capacity; two tensors of 192 B (3 lines) and 320 B (5 lines) fit
        // exactly. Reading [10, 100) of tensor 0 fetches lines 0 and 1 (128 B); reading [60, 130)
        // then hits 4 B of line 0 and 64 B of line 1 and fetches line 2.
        let mut cache = L2Cache::new(8 * 64, 64);
        cache.size_tensor(0, 192);
        cache.size_tensor(1, 320);
        assert!(!cache.evicting);
        assert_eq!(cache.read(0, &[(10, 100)]), L2Traffic { fetched_bytes: 128, ..Default::default() });
        assert_eq!(cache.read(0, &[(60, 130)]), L2Traffic { hit_bytes: 68, fetched_bytes: 64, ..Default::default() });
        // Writing all of tensor 1 fetches nothing and evicts nothing; reading it back hits 320 B;
        // its 5 lines are dirty (320 B to drain), tensor 0's 3 lines are clean.
        assert_eq!(cache.write(1, &[(0, 320)]), L2Traffic::default());
        assert_eq!(cache.read(1, &[(0, 320)]), L2Traffic { hit_bytes: 320, ..Default::default() });
        assert_eq!(cache.dirty_bytes(), 320);
        assert_eq!(cache.resident, 8);
        assert!(!cache.evicting);
    }

    #[test]
    fn a_tensor_sized_late_keeps_the_order_of_use() {
        // Two lines of capacity; tensor 0 (2 lines) fits. Line 1 then line 0 are read; sizing a
        // second tensor breaks the fit and the lines join the list in the order of their use, so
        // the next fetch evicts line 1 (the least recent) and line 0 still hits.
        let mut cache = L2Cache::new(2 * 64, 64);
        cache.size_tensor(0, 128);
        cache.read(0, &[(64, 128)]);
        cache.read(0, &[(0, 64)]);
        cache.size_tensor(1, 64);
        assert!(cache.evicting);
        assert_eq!(cache.read(1, &[(0, 64)]).fetched_bytes, 64);
        assert_eq!(cache.read(0, &[(0, 64)]).hit_bytes, 64);
        assert_eq!(cache.read(0, &[(64, 128)]).fetched_bytes, 64);
    }

    #[test]
    fn an_access_that_outgrows_the_capacity_switches_to_the_list_mid_way() {
        // Three lines of capacity, nothing sized. Tensor 0's lines 0 and 1 are read (they fit);
        // one access then reads line 2 (still fits) and line 3 of tensor 0 (4 lines: the list
        // takes over at that range): line 0, the least recent, leaves; lines 1 to 3 hit.
        let mut cache = L2Cache::new(3 * 64, 64);
        cache.read(0, &[(0, 128)]);
        let traffic = cache.read(0, &[(128, 192), (192, 256)]);
        assert_eq!(traffic, L2Traffic { fetched_bytes: 128, ..Default::default() });
        assert!(cache.evicting);
        assert_eq!(cache.read(0, &[(64, 256)]).hit_bytes, 192);
        assert_eq!(cache.read(0, &[(0, 64)]).fetched_bytes, 64);
    }
}
