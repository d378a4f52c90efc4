//! `SliceSpec`: one dim of a strided slice, resolved from Python's `start:stop:step`.

use crate::error::{Result, TensorError};

/// One dim of a strided slice, already resolved against the dim's size: the indices
/// `start, start + step, …` (`count` of them). `step` may be negative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceSpec {
    /// First index.
    pub start: usize,
    /// Distance between indices.
    pub step: isize,
    /// Number of indices.
    pub count: usize,
}

impl SliceSpec {
    /// The whole dim of size `size`.
    pub fn full(size: usize) -> SliceSpec {
        SliceSpec { start: 0, step: 1, count: size }
    }

    /// Resolves Python's `start:stop:step` (each optional, negatives from the end) against `size`.
    pub fn from_python(start: Option<i64>, stop: Option<i64>, step: Option<i64>, size: usize) -> Result<SliceSpec> {
        let step = step.unwrap_or(1);
        if step == 0 {
            return Err(TensorError::BadArgument { op: "slice", detail: crate::messages::ArgumentDetail::ZeroStep });
        }
        let size = size as i64;
        let clamp = |value: i64, low: i64, high: i64| value.clamp(low, high);
        let resolve = |value: i64| if value < 0 { value + size } else { value };
        let (start, stop) = if step > 0 {
            (clamp(start.map_or(0, resolve), 0, size), clamp(stop.map_or(size, resolve), 0, size))
        } else {
            (
                clamp(start.map_or(size - 1, resolve), -1, size - 1),
                clamp(stop.map_or(-1, |v| if v < 0 { v + size } else { v }), -1, size - 1),
            )
        };
        // ⌈distance / |step|⌉ written so that no step (up to ±2^63) overflows.
        let distance = if step > 0 { stop - start } else { start - stop };
        let count = if distance > 0 { (distance - 1) as u64 / step.unsigned_abs() + 1 } else { 0 };
        // With at most one index the step is never used; 1 keeps stride arithmetic (and a 32-bit isize)
        // from overflowing on huge steps. With two or more, |step| < size fits in isize.
        let step = if count <= 1 { 1 } else { step as isize };
        Ok(SliceSpec { start: start.max(0) as usize, step, count: count as usize })
    }
}
