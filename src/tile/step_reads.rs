//! The values one step reads, without an allocation: the compiler asks every step for them several
//! times per task (a large kernel expands to thousands of tasks), and a vector per question was a
//! tenth of the compiler's allocations.

use std::ops::Deref;

use super::work::ValueId;

/// How many reads are kept inline: every step but a wide vector op (a concat of many tiles).
const INLINE: usize = 3;

/// The values a step reads, in operand order; a slice of [`ValueId`]s.
#[derive(Clone, Debug, PartialEq)]
pub struct StepReads {
    inline: [ValueId; INLINE],
    length: usize,
    /// All of them when there are more than [`INLINE`].
    more: Vec<ValueId>,
}

impl StepReads {
    /// No reads.
    pub fn new() -> Self {
        StepReads { inline: [ValueId(0); INLINE], length: 0, more: Vec::new() }
    }

    /// Adds a read.
    pub fn push(&mut self, value: ValueId) {
        if self.length < INLINE {
            self.inline[self.length] = value;
        } else {
            if self.length == INLINE {
                self.more.extend_from_slice(&self.inline);
            }
            self.more.push(value);
        }
        self.length += 1;
    }
}

impl Default for StepReads {
    fn default() -> Self {
        StepReads::new()
    }
}

impl Deref for StepReads {
    type Target = [ValueId];

    fn deref(&self) -> &[ValueId] {
        if self.length <= INLINE {
            &self.inline[..self.length]
        } else {
            &self.more
        }
    }
}

impl FromIterator<ValueId> for StepReads {
    fn from_iter<I: IntoIterator<Item = ValueId>>(values: I) -> Self {
        let mut reads = StepReads::new();
        values.into_iter().for_each(|value| reads.push(value));
        reads
    }
}

impl<'a> IntoIterator for &'a StepReads {
    type Item = &'a ValueId;
    type IntoIter = std::slice::Iter<'a, ValueId>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The reads of a step by value.
pub struct IntoReads {
    reads: StepReads,
    next: usize,
}

impl Iterator for IntoReads {
    type Item = ValueId;

    fn next(&mut self) -> Option<ValueId> {
        let value = self.reads.get(self.next).copied();
        self.next += 1;
        value
    }
}

impl IntoIterator for StepReads {
    type Item = ValueId;
    type IntoIter = IntoReads;

    fn into_iter(self) -> IntoReads {
        IntoReads { reads: self, next: 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_past_the_inline_ones_keep_their_order() {
        for count in 0..8u32 {
            let reads: StepReads = (0..count).map(ValueId).collect();
            assert_eq!(&*reads, (0..count).map(ValueId).collect::<Vec<_>>().as_slice());
            assert_eq!(reads.clone().into_iter().collect::<Vec<_>>(), reads.to_vec());
        }
    }
}
