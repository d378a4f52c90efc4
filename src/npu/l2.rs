//! The shared L2 as a least-recently-used set of GM regions: a read of a resident region is a hit
//! (served at the core's path bandwidth without touching HBM); reads and writes make a region
//! resident and evict the oldest regions beyond the capacity.

use std::collections::{BTreeMap, HashMap};

/// LRU residency of GM regions keyed by a region hash.
#[derive(Debug, Default)]
pub struct L2Cache {
    capacity: u64,
    resident_bytes: u64,
    clock: u64,
    regions: HashMap<u64, (u64, u64)>,
    order: BTreeMap<u64, u64>,
}

impl L2Cache {
    /// An empty cache of `capacity` bytes.
    pub fn new(capacity: u64) -> Self {
        L2Cache { capacity, ..Default::default() }
    }

    /// Touches a region of `bytes`; true when it was resident (a hit).
    pub fn access(&mut self, key: u64, bytes: u64) -> bool {
        self.clock += 1;
        let hit = match self.regions.get_mut(&key) {
            Some((stamp, _)) => {
                self.order.remove(stamp);
                *stamp = self.clock;
                true
            }
            None => {
                self.regions.insert(key, (self.clock, bytes));
                self.resident_bytes += bytes;
                false
            }
        };
        self.order.insert(self.clock, key);
        while self.resident_bytes > self.capacity {
            let Some((_, oldest)) = self.order.pop_first() else { break };
            if let Some((_, size)) = self.regions.remove(&oldest) {
                self.resident_bytes -= size;
            }
        }
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_recently_used_region_is_evicted() {
        // Capacity for two 10-byte regions: touching 1, 2, 1, 3 evicts 2 (the least recent), keeps 1.
        let mut cache = L2Cache::new(20);
        assert!(!cache.access(1, 10));
        assert!(!cache.access(2, 10));
        assert!(cache.access(1, 10));
        assert!(!cache.access(3, 10));
        assert!(cache.access(1, 10));
        assert!(!cache.access(2, 10));
    }
}
