//! The buffer behind a tensor, kept in its dtype, and the allocation cap that guards every buffer.

use std::cell::Cell;

use half::{bf16, f16};

use super::dtype::DType;
use crate::error::{Result, TensorError};

/// Elements of one dtype, contiguous and row-major.
#[derive(Clone, Debug, PartialEq)]
pub enum Storage {
    /// binary32 values.
    F32(Vec<f32>),
    /// binary16 values.
    F16(Vec<f16>),
    /// bfloat16 values.
    Bf16(Vec<bf16>),
    /// binary64 reference values.
    F64(Vec<f64>),
}

/// The default cap on one tensor allocation: 256 MiB.
pub const DEFAULT_ALLOCATION_LIMIT: usize = 256 << 20;

thread_local! {
    static ALLOCATION_LIMIT: Cell<usize> = const { Cell::new(DEFAULT_ALLOCATION_LIMIT) };
}

/// Sets the largest allocation (in bytes) a tensor op may make on this thread; larger ones are errors.
pub fn set_allocation_limit(bytes: usize) {
    ALLOCATION_LIMIT.with(|limit| limit.set(bytes));
}

/// The current allocation cap in bytes.
pub fn allocation_limit() -> usize {
    ALLOCATION_LIMIT.with(|limit| limit.get())
}

/// Checks that `count` elements of `dtype` may be allocated, before anything is allocated.
pub fn check_allocation(op: &'static str, count: usize, dtype: DType) -> Result<()> {
    let bytes = count as u128 * dtype.size_in_bytes() as u128;
    let limit = allocation_limit();
    if bytes > limit as u128 {
        return Err(TensorError::AllocationTooLarge { op, bytes, limit });
    }
    Ok(())
}

impl Storage {
    /// Rounds f32 values into a new buffer of `dtype`.
    pub fn from_f32(values: Vec<f32>, dtype: DType) -> Storage {
        match dtype {
            DType::F32 => Storage::F32(values),
            DType::F16 => Storage::F16(values.iter().map(|&v| f16::from_f32(v)).collect()),
            DType::Bf16 => Storage::Bf16(values.iter().map(|&v| bf16::from_f32(v)).collect()),
            DType::F64 => Storage::F64(values.iter().map(|&v| v as f64).collect()),
        }
    }

    /// Rounds f64 values into a new buffer of `dtype`, once (correctly rounded, the same on every
    /// platform).
    pub fn from_f64(values: Vec<f64>, dtype: DType) -> Storage {
        match dtype {
            DType::F64 => Storage::F64(values),
            DType::F32 => Storage::F32(values.iter().map(|&v| v as f32).collect()),
            DType::F16 => Storage::F16(values.iter().map(|&v| f16::from_f32(round_to_odd_f32(v))).collect()),
            DType::Bf16 => Storage::Bf16(values.iter().map(|&v| bf16::from_f32(round_to_odd_f32(v))).collect()),
        }
    }

    /// The dtype of the elements.
    pub fn dtype(&self) -> DType {
        match self {
            Storage::F32(_) => DType::F32,
            Storage::F16(_) => DType::F16,
            Storage::Bf16(_) => DType::Bf16,
            Storage::F64(_) => DType::F64,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Storage::F32(v) => v.len(),
            Storage::F16(v) => v.len(),
            Storage::Bf16(v) => v.len(),
            Storage::F64(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values widened to f32 (f64 is narrowed).
    pub fn to_f32_vec(&self) -> Vec<f32> {
        match self {
            Storage::F32(v) => v.clone(),
            Storage::F16(v) => half::slice::HalfFloatSliceExt::to_f32_vec(v.as_slice()),
            Storage::Bf16(v) => half::slice::HalfFloatSliceExt::to_f32_vec(v.as_slice()),
            Storage::F64(v) => v.iter().map(|&x| x as f32).collect(),
        }
    }

    /// The values widened to f64.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        match self {
            Storage::F32(v) => v.iter().map(|&x| x as f64).collect(),
            Storage::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
            Storage::Bf16(v) => v.iter().map(|x| x.to_f64()).collect(),
            Storage::F64(v) => v.clone(),
        }
    }

    /// One element as f64.
    pub fn get_f64(&self, index: usize) -> f64 {
        match self {
            Storage::F32(v) => v[index] as f64,
            Storage::F16(v) => v[index].to_f64(),
            Storage::Bf16(v) => v[index].to_f64(),
            Storage::F64(v) => v[index],
        }
    }

    /// Stores one element, rounded to the storage dtype.
    pub fn set_f64(&mut self, index: usize, value: f64) {
        match self {
            Storage::F32(v) => v[index] = value as f32,
            Storage::F16(v) => v[index] = f16::from_f32(round_to_odd_f32(value)),
            Storage::Bf16(v) => v[index] = bf16::from_f32(round_to_odd_f32(value)),
            Storage::F64(v) => v[index] = value,
        }
    }

    /// Bytes held by the elements.
    pub fn size_in_bytes(&self) -> usize {
        self.len() * self.dtype().size_in_bytes()
    }
}

/// `value` rounded to f32 with round-to-odd (truncate, then set the last bit if anything was lost).
/// Rounding that to f16 or bf16, which keep at least 2 bits fewer, gives the correctly rounded result.
/// `half`'s own f64 conversions do not: on x86 with F16C `f16::from_f64` rounds through f32 to nearest
/// (twice, unlike its software path used in wasm), and `bf16::from_f64` drops the low 32 bits first.
fn round_to_odd_f32(value: f64) -> f32 {
    let nearest = value as f32;
    if !value.is_finite() || nearest as f64 == value {
        return nearest;
    }
    let mut bits = nearest.to_bits();
    if (nearest as f64).abs() > value.abs() {
        bits -= 1; // one step toward zero: the sign-magnitude encoding orders magnitudes like integers
    }
    f32::from_bits(bits | 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_storage_rounds_once() {
        let storage = Storage::from_f32(vec![1.0 + 2f32.powi(-9), 3.140625], DType::Bf16);
        // 1 + 2^-9 is below bf16's half-ulp at 1 (2^-8) and rounds down; 3.140625 = 0b11.001001 fits.
        assert_eq!(storage.to_f32_vec(), vec![1.0, 3.140625]);
        assert_eq!(storage.size_in_bytes(), 4);
    }

    #[test]
    fn f64_values_round_once_to_narrow_types() {
        // Just above the tie between 1 and its successor (f16: 1 + 2^-11, bf16: 1 + 2^-8) rounds up;
        // exactly on the tie rounds to even (1); the sticky 2^-40 must not be lost on the way.
        let above = Storage::from_f64(vec![1.0 + 2f64.powi(-11) + 2f64.powi(-40), 1.0 + 2f64.powi(-11)], DType::F16);
        assert_eq!(above.to_f64_vec(), vec![1.0 + 2f64.powi(-10), 1.0]);
        let above = Storage::from_f64(vec![1.0 + 2f64.powi(-8) + 2f64.powi(-40), -(1.0 + 2f64.powi(-8))], DType::Bf16);
        assert_eq!(above.to_f64_vec(), vec![1.0 + 2f64.powi(-7), -1.0]);
        // Overflow, underflow and NaN survive the detour through f32.
        let edges = Storage::from_f64(vec![65520.0, 1e-300, -1e300, f64::NAN], DType::F16).to_f64_vec();
        assert_eq!(&edges[..3], &[f64::INFINITY, 0.0, f64::NEG_INFINITY]);
        assert!(edges[3].is_nan());
    }

    #[test]
    fn allocation_cap_is_an_error() {
        set_allocation_limit(1024);
        assert!(check_allocation("zeros", 256, DType::F32).is_ok());
        let error = check_allocation("zeros", 257, DType::F32).unwrap_err();
        assert!(matches!(error, TensorError::AllocationTooLarge { bytes: 1028, limit: 1024, .. }));
        set_allocation_limit(DEFAULT_ALLOCATION_LIMIT);
    }
}
