//! The recency list of the L2 lines (`L2Cache::nodes`): a doubly linked list through the resident
//! lines, least recently used first. A use moves a line to the newest end, an eviction takes the
//! oldest: constant time each, where a queue of uses grew by one entry per line used (the SwiGLU
//! kernel's 2.6 M per run) and had to be compacted.

use super::{L2Cache, LineKey, Node, ABSENT, NO_LINE};

impl L2Cache {
    fn node(&mut self, key: LineKey) -> &mut Node {
        &mut self.nodes[(key >> 32) as usize][key as u32 as usize]
    }

    /// Takes a resident line out of the recency list (it stays marked resident by its links'
    /// replacement in `append_newest`, or becomes `ABSENT` in `evict_oldest`).
    pub(super) fn unlink(&mut self, key: LineKey) {
        let Node { older, newer } = *self.node(key);
        match older {
            NO_LINE => self.oldest = newer,
            older => self.node(older).newer = newer,
        }
        match newer {
            NO_LINE => self.newest = older,
            newer => self.node(newer).older = older,
        }
    }

    /// Puts a line at the most recently used end of the list.
    pub(super) fn append_newest(&mut self, key: LineKey) {
        let older = self.newest;
        *self.node(key) = Node { older, newer: NO_LINE };
        match older {
            NO_LINE => self.oldest = key,
            older => self.node(older).newer = key,
        }
        self.newest = key;
    }

    /// Evicts the least recently used line (a dirty one is written back whole).
    pub(super) fn evict_oldest(&mut self) {
        let key = self.oldest;
        if key == NO_LINE {
            return;
        }
        self.unlink(key);
        *self.node(key) = ABSENT;
        self.resident -= 1;
        self.write_back_evicted((key >> 32) as usize, key & u64::from(u32::MAX));
    }
}
