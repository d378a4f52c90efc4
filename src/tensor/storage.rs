//! The buffer behind a tensor, kept in its dtype, and the allocation cap that guards every buffer.

use std::cell::Cell;

use half::{bf16, f16};

use super::dtype::DType;
use crate::error::{Result, TensorError};

/// Elements of one dtype, contiguous and row-major. Integers and booleans are stored as
/// themselves, so an int64 index above 2^53 stays exact; the f32/f64 views of them are conversions.
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
    /// int8 values.
    I8(Vec<i8>),
    /// int16 values.
    I16(Vec<i16>),
    /// int32 values.
    I32(Vec<i32>),
    /// int64 values.
    I64(Vec<i64>),
    /// uint8 values.
    U8(Vec<u8>),
    /// booleans.
    Bool(Vec<bool>),
}

/// Runs `$body` with `$values` bound to the vector of whichever variant `$storage` is, wrapping the
/// result in the same variant (`$body` must keep the element type).
macro_rules! map_storage {
    ($storage:expr, $values:ident => $body:expr) => {
        match $storage {
            Storage::F32($values) => Storage::F32($body),
            Storage::F16($values) => Storage::F16($body),
            Storage::Bf16($values) => Storage::Bf16($body),
            Storage::F64($values) => Storage::F64($body),
            Storage::I8($values) => Storage::I8($body),
            Storage::I16($values) => Storage::I16($body),
            Storage::I32($values) => Storage::I32($body),
            Storage::I64($values) => Storage::I64($body),
            Storage::U8($values) => Storage::U8($body),
            Storage::Bool($values) => Storage::Bool($body),
        }
    };
}
pub(crate) use map_storage;

/// Like `map_storage!` over two storages of the same variant (the caller casts first); `$mismatch`
/// is the value when the variants differ.
macro_rules! zip_storage {
    ($first:expr, $second:expr, ($a:ident, $b:ident) => $body:expr, $mismatch:expr) => {
        match ($first, $second) {
            (Storage::F32($a), Storage::F32($b)) => Storage::F32($body),
            (Storage::F16($a), Storage::F16($b)) => Storage::F16($body),
            (Storage::Bf16($a), Storage::Bf16($b)) => Storage::Bf16($body),
            (Storage::F64($a), Storage::F64($b)) => Storage::F64($body),
            (Storage::I8($a), Storage::I8($b)) => Storage::I8($body),
            (Storage::I16($a), Storage::I16($b)) => Storage::I16($body),
            (Storage::I32($a), Storage::I32($b)) => Storage::I32($body),
            (Storage::I64($a), Storage::I64($b)) => Storage::I64($body),
            (Storage::U8($a), Storage::U8($b)) => Storage::U8($body),
            (Storage::Bool($a), Storage::Bool($b)) => Storage::Bool($body),
            _ => $mismatch,
        }
    };
}
pub(crate) use zip_storage;

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
    /// Rounds f32 values into a new buffer of `dtype` (integers truncate toward zero and saturate,
    /// NaN becomes 0; bool is `value != 0`, as pypto's default `CAST_TRUNC` and torch's cast).
    pub fn from_f32(values: Vec<f32>, dtype: DType) -> Storage {
        match dtype {
            DType::F32 => Storage::F32(values),
            _ => Storage::from_f32_slice(&values, dtype),
        }
    }

    /// [`Storage::from_f32`] read from borrowed values (a cast of an f32 buffer reads it in place).
    pub fn from_f32_slice(values: &[f32], dtype: DType) -> Storage {
        match dtype {
            DType::F32 => Storage::F32(values.to_vec()),
            DType::F16 => Storage::F16(super::half_convert::f32_to_f16(values)),
            DType::Bf16 => Storage::Bf16(super::half_convert::f32_to_bf16(values)),
            DType::F64 => Storage::F64(values.iter().map(|&v| v as f64).collect()),
            _ => Storage::from_f64(values.iter().map(|&v| f64::from(v)).collect(), dtype),
        }
    }

    /// Rounds f64 values into a new buffer of `dtype`, once (correctly rounded, the same on every
    /// platform); integer and bool targets as in `from_f32`.
    pub fn from_f64(values: Vec<f64>, dtype: DType) -> Storage {
        match dtype {
            DType::F64 => Storage::F64(values),
            DType::F32 => Storage::F32(values.iter().map(|&v| v as f32).collect()),
            DType::F16 => Storage::F16(values.iter().map(|&v| f16::from_f32(round_to_odd_f32(v))).collect()),
            DType::Bf16 => Storage::Bf16(values.iter().map(|&v| bf16::from_f32(round_to_odd_f32(v))).collect()),
            // Rust's float-to-int `as` truncates toward zero, saturates and maps NaN to 0.
            DType::I8 => Storage::I8(values.iter().map(|&v| v as i8).collect()),
            DType::I16 => Storage::I16(values.iter().map(|&v| v as i16).collect()),
            DType::I32 => Storage::I32(values.iter().map(|&v| v as i32).collect()),
            DType::I64 => Storage::I64(values.iter().map(|&v| v as i64).collect()),
            DType::U8 => Storage::U8(values.iter().map(|&v| v as u8).collect()),
            DType::Bool => Storage::Bool(values.iter().map(|&v| v != 0.0).collect()),
        }
    }

    /// Integer values into a new buffer of `dtype`: narrower integers wrap (two's complement, as
    /// torch and numpy), bool is `value != 0`, floats round to nearest.
    pub fn from_i64(values: Vec<i64>, dtype: DType) -> Storage {
        match dtype {
            DType::I8 => Storage::I8(values.iter().map(|&v| v as i8).collect()),
            DType::I16 => Storage::I16(values.iter().map(|&v| v as i16).collect()),
            DType::I32 => Storage::I32(values.iter().map(|&v| v as i32).collect()),
            DType::I64 => Storage::I64(values),
            DType::U8 => Storage::U8(values.iter().map(|&v| v as u8).collect()),
            DType::Bool => Storage::Bool(values.iter().map(|&v| v != 0).collect()),
            _ => Storage::from_f64(values.into_iter().map(|v| v as f64).collect(), dtype),
        }
    }

    /// The dtype of the elements.
    pub fn dtype(&self) -> DType {
        match self {
            Storage::F32(_) => DType::F32,
            Storage::F16(_) => DType::F16,
            Storage::Bf16(_) => DType::Bf16,
            Storage::F64(_) => DType::F64,
            Storage::I8(_) => DType::I8,
            Storage::I16(_) => DType::I16,
            Storage::I32(_) => DType::I32,
            Storage::I64(_) => DType::I64,
            Storage::U8(_) => DType::U8,
            Storage::Bool(_) => DType::Bool,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Storage::F32(v) => v.len(),
            Storage::F16(v) => v.len(),
            Storage::Bf16(v) => v.len(),
            Storage::F64(v) => v.len(),
            Storage::I8(v) => v.len(),
            Storage::I16(v) => v.len(),
            Storage::I32(v) => v.len(),
            Storage::I64(v) => v.len(),
            Storage::U8(v) => v.len(),
            Storage::Bool(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values widened to f32 (f64 is narrowed; integers above 2^24 round).
    pub fn to_f32_vec(&self) -> Vec<f32> {
        match self {
            Storage::F32(v) => v.clone(),
            Storage::F16(v) => super::half_convert::f16_to_f32(v),
            Storage::Bf16(v) => super::half_convert::bf16_to_f32(v),
            Storage::F64(v) => v.iter().map(|&x| x as f32).collect(),
            Storage::I64(v) => v.iter().map(|&x| x as f32).collect(),
            Storage::I32(v) => v.iter().map(|&x| x as f32).collect(),
            _ => self.to_i64_vec().into_iter().map(|x| x as f32).collect(),
        }
    }

    /// The values widened to f64 (integers above 2^53 round).
    pub fn to_f64_vec(&self) -> Vec<f64> {
        match self {
            Storage::F64(v) => v.clone(),
            _ => {
                let mut values = vec![0.0; self.len()];
                self.f64_range_into(0, &mut values);
                values
            }
        }
    }

    /// Elements `start .. start + out.len()` widened to f64 into `out` (a window of a large buffer
    /// read without widening all of it).
    pub fn f64_range_into(&self, start: usize, out: &mut [f64]) {
        use super::half_convert::{bf16_bits_to_f32, f16_bits_to_f32};
        let range = start..start + out.len();
        match self {
            Storage::F32(v) => out.iter_mut().zip(&v[range]).for_each(|(o, &x)| *o = x as f64),
            Storage::F16(v) => {
                out.iter_mut().zip(&v[range]).for_each(|(o, x)| *o = f16_bits_to_f32(x.to_bits()) as f64)
            }
            Storage::Bf16(v) => {
                out.iter_mut().zip(&v[range]).for_each(|(o, x)| *o = bf16_bits_to_f32(x.to_bits()) as f64)
            }
            Storage::F64(v) => out.copy_from_slice(&v[range]),
            _ => out.iter_mut().zip(range).for_each(|(o, index)| *o = self.get_i64(index) as f64),
        }
    }

    /// The values as i64: integers and bools exactly, floats truncated toward zero (saturating,
    /// NaN as 0).
    pub fn to_i64_vec(&self) -> Vec<i64> {
        match self {
            Storage::I8(v) => v.iter().map(|&x| x as i64).collect(),
            Storage::I16(v) => v.iter().map(|&x| x as i64).collect(),
            Storage::I32(v) => v.iter().map(|&x| x as i64).collect(),
            Storage::I64(v) => v.clone(),
            Storage::U8(v) => v.iter().map(|&x| x as i64).collect(),
            Storage::Bool(v) => v.iter().map(|&x| i64::from(x)).collect(),
            _ => self.to_f64_vec().into_iter().map(|x| x as i64).collect(),
        }
    }

    /// One element as f64.
    pub fn get_f64(&self, index: usize) -> f64 {
        match self {
            Storage::F32(v) => v[index] as f64,
            Storage::F16(v) => v[index].to_f64(),
            Storage::Bf16(v) => v[index].to_f64(),
            Storage::F64(v) => v[index],
            _ => self.get_i64(index) as f64,
        }
    }

    /// One element as i64 (floats truncated toward zero).
    pub fn get_i64(&self, index: usize) -> i64 {
        match self {
            Storage::I8(v) => v[index] as i64,
            Storage::I16(v) => v[index] as i64,
            Storage::I32(v) => v[index] as i64,
            Storage::I64(v) => v[index],
            Storage::U8(v) => v[index] as i64,
            Storage::Bool(v) => i64::from(v[index]),
            _ => self.get_f64(index) as i64,
        }
    }

    /// Stores one element, rounded to the storage dtype (integers truncate and saturate).
    pub fn set_f64(&mut self, index: usize, value: f64) {
        match self {
            Storage::F32(v) => v[index] = value as f32,
            Storage::F16(v) => v[index] = f16::from_f32(round_to_odd_f32(value)),
            Storage::Bf16(v) => v[index] = bf16::from_f32(round_to_odd_f32(value)),
            Storage::F64(v) => v[index] = value,
            Storage::I8(v) => v[index] = value as i8,
            Storage::I16(v) => v[index] = value as i16,
            Storage::I32(v) => v[index] = value as i32,
            Storage::I64(v) => v[index] = value as i64,
            Storage::U8(v) => v[index] = value as u8,
            Storage::Bool(v) => v[index] = value != 0.0,
        }
    }

    /// Stores one integer element (wrapping to a narrower integer; floats round; bool is nonzero).
    pub fn set_i64(&mut self, index: usize, value: i64) {
        match self {
            Storage::I8(v) => v[index] = value as i8,
            Storage::I16(v) => v[index] = value as i16,
            Storage::I32(v) => v[index] = value as i32,
            Storage::I64(v) => v[index] = value,
            Storage::U8(v) => v[index] = value as u8,
            Storage::Bool(v) => v[index] = value != 0,
            _ => self.set_f64(index, value as f64),
        }
    }

    /// Copies element `from` of `source` to element `to`: exactly when the dtypes match (the
    /// caller casts first), else through f64.
    pub(crate) fn copy_element(&mut self, to: usize, source: &Storage, from: usize) {
        match (&mut *self, source) {
            (Storage::F32(t), Storage::F32(s)) => t[to] = s[from],
            (Storage::F16(t), Storage::F16(s)) => t[to] = s[from],
            (Storage::Bf16(t), Storage::Bf16(s)) => t[to] = s[from],
            (Storage::F64(t), Storage::F64(s)) => t[to] = s[from],
            (Storage::I8(t), Storage::I8(s)) => t[to] = s[from],
            (Storage::I16(t), Storage::I16(s)) => t[to] = s[from],
            (Storage::I32(t), Storage::I32(s)) => t[to] = s[from],
            (Storage::I64(t), Storage::I64(s)) => t[to] = s[from],
            (Storage::U8(t), Storage::U8(s)) => t[to] = s[from],
            (Storage::Bool(t), Storage::Bool(s)) => t[to] = s[from],
            _ => {
                let value = source.get_f64(from);
                self.set_f64(to, value);
            }
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
    fn integers_are_exact_and_casts_truncate() {
        // 2^53 + 1 is not an f64; as int64 it survives storage.
        let big = (1i64 << 53) + 1;
        assert_eq!(Storage::from_i64(vec![big, -3], DType::I64).to_i64_vec(), vec![big, -3]);
        // Floats into integers truncate toward zero and saturate; NaN is 0; bool is nonzero.
        assert_eq!(
            Storage::from_f64(vec![-2.9, 2.9, 1e10, f64::NAN], DType::I32).to_i64_vec(),
            vec![-2, 2, i32::MAX as i64, 0]
        );
        assert_eq!(Storage::from_f64(vec![-0.5, 0.0, f64::NAN], DType::Bool).to_i64_vec(), vec![1, 0, 1]);
        // Integers into narrower integers wrap: 300 as int8 is 44, -1 as uint8 is 255.
        assert_eq!(Storage::from_i64(vec![300, -1], DType::I8).to_i64_vec(), vec![44, -1]);
        assert_eq!(Storage::from_i64(vec![-1], DType::U8).to_i64_vec(), vec![255]);
        assert_eq!(Storage::from_i64(vec![1, 2], DType::Bool).size_in_bytes(), 2);
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
