//! Why a generated backward did not run on the NPU, typed: the retry with a smaller vec tile
//! asks whether the chip refused the tiles for UB capacity, not what the message says.

use crate::messages::Message;
use crate::npu::NpuError;
use crate::tile::Memory;

/// Why a generated backward did not run on the NPU: the chip refused its tiles (typed, so the
/// caller can retry with smaller ones), or it could not be built or lowered.
#[derive(Debug)]
pub(crate) enum BackwardFailure {
    /// The chip refused the tiles (capacity, alignment, bounds).
    Chip(NpuError),
    /// The backward could not be built, lowered or executed.
    Refused(Message),
}

impl BackwardFailure {
    /// Whether the tiles overflowed UB (a smaller vec tile may fit).
    pub(crate) fn is_ub_overflow(&self) -> bool {
        matches!(self, BackwardFailure::Chip(NpuError::CapacityExceeded { memory, .. }) if *memory == Memory::Ub.name())
    }
}

impl BackwardFailure {
    /// Why, as a message for the page.
    pub(crate) fn message(&self) -> Message {
        match self {
            // The warning sits at the call; the chip's message without the line it would take.
            BackwardFailure::Chip(error) => error.without_source_line().message(),
            BackwardFailure::Refused(reason) => reason.clone(),
        }
    }
}

impl From<Message> for BackwardFailure {
    fn from(reason: Message) -> BackwardFailure {
        BackwardFailure::Refused(reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overflow(memory: &'static str) -> BackwardFailure {
        BackwardFailure::Chip(NpuError::CapacityExceeded {
            memory,
            bytes: 300_000,
            capacity: 196_608,
            buffer: "x".into(),
            tile: vec![64, 512],
            largest_tile: Some(vec![32, 512]),
            source_line: Some(4),
        })
    }

    #[test]
    fn only_a_ub_capacity_error_asks_for_a_smaller_tile() {
        assert!(overflow("UB").is_ub_overflow());
        assert!(!overflow("L1").is_ub_overflow());
        // A refusal that merely mentions UB in its text is not an overflow.
        let text = Message::Text { text: "cannot run on the NPU yet: UB overflow in a workspace".into() };
        assert!(!BackwardFailure::Refused(text).is_ub_overflow());
        let misaligned = NpuError::Misaligned {
            memory: "UB",
            buffer: "x".into(),
            detail: crate::messages::AlignmentDetail::TooManyDims { dims: 5 },
            source_line: None,
        };
        assert!(!BackwardFailure::Chip(misaligned).is_ub_overflow());
    }
}
