//! `Dims`: one number per dimension (a shape, offsets, reduced dims) held inline up to
//! [`INLINE`] dimensions and on the heap beyond. Tile programs hold several per task value and per
//! instruction; as vectors, each clone was an allocation and each read a pointer to follow (the
//! compiler spent a third of its instructions in the allocator, the simulator's check and preparation
//! waited on their cache misses). It reads as a slice (`Deref<Target = [usize]>`), compares, hashes
//! and serialises as one, so the two kinds of storage are never distinguishable.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

use serde::{Serialize, Serializer};

/// Dimensions held without an allocation.
pub const INLINE: usize = 4;

/// One number per dimension; see the module documentation.
#[derive(Clone)]
pub struct Dims(Storage);

#[derive(Clone)]
enum Storage {
    /// The first `length` values are the dims (the others are 0).
    Inline { length: u8, values: [usize; INLINE] },
    /// More than [`INLINE`] dims.
    Heap(Vec<usize>),
}

impl Dims {
    /// No dimensions (a scalar's shape).
    pub const fn new() -> Self {
        Dims(Storage::Inline { length: 0, values: [0; INLINE] })
    }

    /// `count` dims of `value`.
    pub fn filled(value: usize, count: usize) -> Self {
        std::iter::repeat_n(value, count).collect()
    }

    /// The dims as a slice. Inlined in the wasm build, where V8 does not inline the call: the
    /// simulator reads dims per instruction (4096³ GEMM simulate in node, relaxed build, five
    /// alternations: median 4.51 → 4.85 M events/s). Natively the hint measured slower (GEMM 4.1
    /// → 3.9 M events/s, SwiGLU b 1.27–1.33 → 1.32–1.44 s for 40 runs), so it stays the compiler's
    /// choice there.
    #[cfg_attr(target_arch = "wasm32", inline)]
    pub fn as_slice(&self) -> &[usize] {
        match &self.0 {
            Storage::Inline { length, values } => &values[..*length as usize],
            Storage::Heap(values) => values,
        }
    }

    /// The dims as a mutable slice.
    pub fn as_mut_slice(&mut self) -> &mut [usize] {
        match &mut self.0 {
            Storage::Inline { length, values } => &mut values[..*length as usize],
            Storage::Heap(values) => values,
        }
    }

    /// Appends a dimension.
    pub fn push(&mut self, value: usize) {
        match &mut self.0 {
            Storage::Inline { length, values } if (*length as usize) < INLINE => {
                values[*length as usize] = value;
                *length += 1;
            }
            Storage::Inline { length, values } => {
                let mut spilled = Vec::with_capacity(INLINE * 2);
                spilled.extend_from_slice(&values[..*length as usize]);
                spilled.push(value);
                self.0 = Storage::Heap(spilled);
            }
            Storage::Heap(values) => values.push(value),
        }
    }
}

impl Default for Dims {
    fn default() -> Self {
        Dims::new()
    }
}

impl From<&[usize]> for Dims {
    fn from(values: &[usize]) -> Self {
        if values.len() <= INLINE {
            let mut inline = [0; INLINE];
            inline[..values.len()].copy_from_slice(values);
            Dims(Storage::Inline { length: values.len() as u8, values: inline })
        } else {
            Dims(Storage::Heap(values.to_vec()))
        }
    }
}

impl From<&Vec<usize>> for Dims {
    fn from(values: &Vec<usize>) -> Self {
        Dims::from(values.as_slice())
    }
}

impl From<Vec<usize>> for Dims {
    fn from(values: Vec<usize>) -> Self {
        if values.len() <= INLINE {
            Dims::from(values.as_slice())
        } else {
            Dims(Storage::Heap(values))
        }
    }
}

impl<const N: usize> From<[usize; N]> for Dims {
    fn from(values: [usize; N]) -> Self {
        Dims::from(&values[..])
    }
}

impl From<Dims> for Vec<usize> {
    fn from(dims: Dims) -> Self {
        match dims.0 {
            Storage::Heap(values) => values,
            inline => Dims(inline).as_slice().to_vec(),
        }
    }
}

impl FromIterator<usize> for Dims {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> Self {
        let mut dims = Dims::new();
        for value in iter {
            dims.push(value);
        }
        dims
    }
}

impl<'a> IntoIterator for &'a Dims {
    type Item = &'a usize;
    type IntoIter = std::slice::Iter<'a, usize>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl Deref for Dims {
    type Target = [usize];

    #[cfg_attr(target_arch = "wasm32", inline)]
    fn deref(&self) -> &[usize] {
        self.as_slice()
    }
}

impl DerefMut for Dims {
    fn deref_mut(&mut self) -> &mut [usize] {
        self.as_mut_slice()
    }
}

impl PartialEq for Dims {
    fn eq(&self, other: &Dims) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Dims {}

impl PartialEq<[usize]> for Dims {
    fn eq(&self, other: &[usize]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<Vec<usize>> for Dims {
    fn eq(&self, other: &Vec<usize>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialEq<Dims> for Vec<usize> {
    fn eq(&self, other: &Dims) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<const N: usize> PartialEq<[usize; N]> for Dims {
    fn eq(&self, other: &[usize; N]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Hash for Dims {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl fmt::Debug for Dims {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(formatter)
    }
}

impl Serialize for Dims {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash_of(value: &impl Hash) -> u64 {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        value.hash(&mut hasher);
        hasher.finish()
    }

    /// Inline and heap dims read, compare, hash, print and serialise as the slice they hold,
    /// however they were built; growing past the inline capacity keeps every value.
    #[test]
    fn dims_behave_as_their_slice() {
        for length in 0..=INLINE + 3 {
            let values: Vec<usize> = (0..length).map(|index| index * 7 + 1).collect();
            let pushed: Dims = values.iter().copied().collect();
            let converted = Dims::from(values.clone());
            assert_eq!(pushed.as_slice(), values.as_slice());
            assert_eq!(pushed, converted);
            assert_eq!(pushed, values);
            assert_eq!(hash_of(&pushed), hash_of(&values.as_slice()));
            assert_eq!(hash_of(&pushed), hash_of(&converted));
            assert_eq!(format!("{pushed:?}"), format!("{values:?}"));
            assert_eq!(serde_json::to_string(&pushed).unwrap(), serde_json::to_string(&values).unwrap());
            assert_eq!(Vec::from(pushed.clone()), values);
            if let Some((_, shorter)) = values.split_last() {
                assert_ne!(pushed, Dims::from(shorter), "length {length}");
            }
        }
        let mut changed = Dims::from([2, 3]);
        changed[1] = 5;
        assert_eq!(changed, [2, 5]);
    }
}
