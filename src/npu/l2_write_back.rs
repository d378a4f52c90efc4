//! Write-back state of the L2 lines: a written line stays in L2 dirty, reaches HBM whole when it is
//! evicted, and the lines still dirty when a kernel ends are its drain. The drain is not part of the
//! kernel's time (docs/npu-model.md, "Write-back and the drain", says why); the engine reports it.

use super::{L2Cache, DIRTY};

impl L2Cache {
    /// A dirty line evicted: it is written back whole, counted for the access that evicted it.
    pub(super) fn write_back_evicted(&mut self) {
        self.evicted_dirty_bytes += self.line_bytes;
        self.dirty_lines -= 1;
    }

    /// Bytes of the dirty lines resident now: what HBM still has to receive (the drain). (An
    /// owned line's stamp names its slot, never dirty: the slots count theirs.)
    pub fn dirty_bytes(&self) -> u64 {
        debug_assert_eq!(self.dirty_lines, self.dirty_stamps(), "the count of dirty stamps");
        self.dirty_lines as u64 * self.line_bytes + self.slot_dirty_bytes()
    }

    /// The dirty stamps, counted in the tables (what `dirty_lines` keeps).
    fn dirty_stamps(&self) -> usize {
        self.stamps.iter().map(|lines| lines.iter().filter(|&&stamp| stamp & DIRTY != 0).count()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{L2Cache, L2Traffic};

    #[test]
    fn written_lines_are_hits_and_stay_out_of_hbm_until_evicted() {
        // 512 B lines, 2 lines of capacity. Writing [0, 1024) of tensor 1 allocates lines 0 and 1
        // dirty: nothing is fetched, nothing written back. Reading them back: 1024 B of hits.
        let mut cache = L2Cache::new(1024, 512);
        assert_eq!(cache.write(1, &[(0, 1024)]), L2Traffic::default());
        assert_eq!(cache.read(1, &[(0, 1024)]), L2Traffic { hit_bytes: 1024, ..Default::default() });
        assert_eq!(cache.dirty_bytes(), 1024);
        // Reading line 0 of tensor 2 (a miss, 512 B fetched) evicts the least recent line, line 0
        // of tensor 1, dirty: one whole line (512 B) is written back by this read.
        assert_eq!(cache.read(2, &[(0, 100)]), L2Traffic { hit_bytes: 0, fetched_bytes: 512, written_back_bytes: 512 });
        // Line 1 of tensor 1 is still dirty; evicting it by a write of tensor 2 writes it back.
        assert_eq!(cache.dirty_bytes(), 512);
        assert_eq!(cache.write(2, &[(512, 1024)]).written_back_bytes, 512);
        // Tensor 2's line 0 was fetched clean; line 1 was written: only it is left to drain.
        assert_eq!(cache.dirty_bytes(), 512);
    }

    #[test]
    fn a_partly_written_line_writes_back_whole() {
        // One 512 B line of capacity: a 100-byte write makes line 0 dirty; evicting it moves the
        // whole line (512 B), as the DMA writes a line to HBM, not the bytes that changed.
        let mut cache = L2Cache::new(512, 512);
        cache.write(0, &[(0, 100)]);
        assert_eq!(cache.read(0, &[(512, 612)]).written_back_bytes, 512);
    }
}
