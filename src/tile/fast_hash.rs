//! A fast hash for the compiler's own maps (keys are small integers, shapes and ids it made, never
//! untrusted input, so SipHash's protection against chosen collisions buys nothing): per word,
//! rotate, xor and multiply by an odd constant, as rustc's own FxHash does.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`WordHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// A `HashSet` with [`WordHasher`].
pub(crate) type FastSet<K> = HashSet<K, BuildHasherDefault<WordHasher>>;

/// The hasher of [`FastMap`]: one rotate, xor and multiply per word written.
#[derive(Default, Clone, Copy)]
pub(crate) struct WordHasher(u64);

/// An odd 64-bit multiplier with well-spread bits (2⁶⁴ / φ).
const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

impl WordHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(MULTIPLIER);
    }
}

impl Hasher for WordHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // The high bits are the well-mixed ones; hashbrown takes its control byte from the top.
        self.0.rotate_left(26)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("chunks of 8")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, value: u8) {
        self.add(value as u64);
    }

    #[inline]
    fn write_u32(&mut self, value: u32) {
        self.add(value as u64);
    }

    #[inline]
    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }

    #[inline]
    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_hash_equal_and_near_keys_apart() {
        let mut map: FastMap<(Vec<usize>, u32), usize> = FastMap::default();
        for rows in 0..64 {
            for columns in 0..64 {
                map.insert((vec![rows, columns], 7), rows * 64 + columns);
            }
        }
        assert_eq!(map.len(), 64 * 64);
        assert_eq!(map[&(vec![3, 5], 7)], 3 * 64 + 5);
        assert!(!map.contains_key(&(vec![3, 5], 8)));
        // Shapes that differ in one small coordinate land in different buckets' control bytes.
        let hash = |key: &(Vec<usize>, u32)| {
            use std::hash::BuildHasher;
            map.hasher().hash_one(key)
        };
        let tops: FastSet<u64> = (0..64).map(|rows| hash(&(vec![rows, 8], 7)) >> 57).collect();
        assert!(tops.len() > 32, "{} distinct top-7-bit values of 64", tops.len());
    }
}
