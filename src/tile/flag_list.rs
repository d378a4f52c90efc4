//! The flags of one kind an instruction waits for or sets: almost always none, one or two, so they
//! are kept in the instruction itself, and only a longer list on the heap. The simulator prepares
//! every instruction of a plan: with each list a `Vec`, reading an instruction's flags was a cache
//! miss of its own (the 4096³ GEMM's preparation spent most of its time on those reads).

use std::ops::Deref;

use serde::{Serialize, Serializer};

use super::program::Flag;

/// Flags kept in the list itself.
const INLINE: usize = 2;

/// A list of flags (a slice by `Deref`).
#[derive(Clone)]
pub enum FlagList {
    /// Up to `INLINE` flags: the count and the flags (unused places hold `Flag(0)`).
    Inline(u8, [Flag; INLINE]),
    /// More.
    Heap(Vec<Flag>),
}

impl FlagList {
    /// An empty list.
    pub const fn new() -> Self {
        FlagList::Inline(0, [Flag(0); INLINE])
    }

    /// Appends a flag.
    pub fn push(&mut self, flag: Flag) {
        match self {
            FlagList::Inline(count, flags) if (*count as usize) < INLINE => {
                flags[*count as usize] = flag;
                *count += 1;
            }
            FlagList::Inline(_, flags) => {
                let mut spilled = flags.to_vec();
                spilled.push(flag);
                *self = FlagList::Heap(spilled);
            }
            FlagList::Heap(flags) => flags.push(flag),
        }
    }
}

impl Default for FlagList {
    fn default() -> Self {
        FlagList::new()
    }
}

impl Deref for FlagList {
    type Target = [Flag];

    // Inlined wherever it is read (the simulator reads four lists per instruction twice): left to
    // the codegen units, a change elsewhere in the crate could turn it into a call per list.
    #[inline]
    fn deref(&self) -> &[Flag] {
        match self {
            FlagList::Inline(count, flags) => &flags[..*count as usize],
            FlagList::Heap(flags) => flags,
        }
    }
}

impl<'a> IntoIterator for &'a FlagList {
    type Item = &'a Flag;
    type IntoIter = std::slice::Iter<'a, Flag>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl From<Vec<Flag>> for FlagList {
    #[inline]
    fn from(flags: Vec<Flag>) -> Self {
        if flags.is_empty() {
            FlagList::new()
        } else if flags.len() <= INLINE {
            let mut list = FlagList::new();
            flags.into_iter().for_each(|flag| list.push(flag));
            list
        } else {
            FlagList::Heap(flags)
        }
    }
}

impl FromIterator<Flag> for FlagList {
    fn from_iter<I: IntoIterator<Item = Flag>>(flags: I) -> Self {
        let mut list = FlagList::new();
        flags.into_iter().for_each(|flag| list.push(flag));
        list
    }
}

impl PartialEq for FlagList {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for FlagList {}

impl std::fmt::Debug for FlagList {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for FlagList {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_grows_past_its_inline_places_and_keeps_its_order() {
        let mut list = FlagList::new();
        assert!(list.is_empty());
        for id in 0..5 {
            list.push(Flag(id * 3));
            assert_eq!(&*list, (0..=id).map(|id| Flag(id * 3)).collect::<Vec<_>>().as_slice());
        }
        assert!(matches!(list, FlagList::Heap(_)));
        // Equal lists are equal whichever way they are kept.
        let inline: FlagList = vec![Flag(7)].into();
        assert!(matches!(inline, FlagList::Inline(1, _)));
        assert_eq!(inline, FlagList::Heap(vec![Flag(7)]));
        assert_ne!(inline, FlagList::new());
        assert_eq!(serde_json::to_string(&list).expect("serializes"), "[0,3,6,9,12]");
        assert_eq!(format!("{inline:?}"), "[Flag(7)]");
    }
}
