//! Element types. Narrow floats are stored rounded and computed in f32 ("store narrow, compute f32");
//! integers and booleans are stored as themselves and computed exactly in i64 (see `storage.rs`).

use half::{bf16, f16};
use serde::{Deserialize, Serialize};

/// The element type of a tensor.
///
/// `F32`, `F16` and `Bf16` are the pypto float dtypes (`DT_FP32`, `DT_FP16`, `DT_BF16`); `I8` …
/// `Bool` are its index and mask dtypes (`DT_INT8` … `DT_BOOL`). `F64` is the CPU reference type used
/// by gradient checks and golden comparisons; it is never produced by a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub enum DType {
    /// IEEE binary32.
    F32,
    /// IEEE binary16 (5-bit exponent, 10-bit mantissa).
    F16,
    /// bfloat16 (8-bit exponent, 7-bit mantissa).
    Bf16,
    /// IEEE binary64, the reference type.
    F64,
    /// Signed 8-bit integer.
    I8,
    /// Signed 16-bit integer.
    I16,
    /// Signed 32-bit integer.
    I32,
    /// Signed 64-bit integer.
    I64,
    /// Unsigned 8-bit integer.
    U8,
    /// Boolean (one byte, 0 or 1).
    Bool,
}

/// The three kinds of dtype, in promotion order: an operation mixing kinds computes in the higher one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DTypeKind {
    /// `Bool`.
    Bool,
    /// The integer types.
    Integer,
    /// The float types.
    Float,
}

impl DType {
    /// Every dtype, floats first.
    pub const ALL: [DType; 10] = [
        DType::F32,
        DType::F16,
        DType::Bf16,
        DType::F64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::Bool,
    ];

    /// Bytes per element.
    pub fn size_in_bytes(self) -> usize {
        match self {
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::F16 | DType::Bf16 | DType::I16 => 2,
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 => 8,
        }
    }

    /// Float, integer or bool.
    pub fn kind(self) -> DTypeKind {
        match self {
            DType::F32 | DType::F16 | DType::Bf16 | DType::F64 => DTypeKind::Float,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::U8 => DTypeKind::Integer,
            DType::Bool => DTypeKind::Bool,
        }
    }

    /// True for the float types (the only ones that can require grad).
    pub fn is_float(self) -> bool {
        self.kind() == DTypeKind::Float
    }

    /// The range of an integer type (bool: 0..=1), `None` for floats.
    pub fn integer_range(self) -> Option<(i64, i64)> {
        match self {
            DType::I8 => Some((i8::MIN as i64, i8::MAX as i64)),
            DType::I16 => Some((i16::MIN as i64, i16::MAX as i64)),
            DType::I32 => Some((i32::MIN as i64, i32::MAX as i64)),
            DType::I64 => Some((i64::MIN, i64::MAX)),
            DType::U8 => Some((0, u8::MAX as i64)),
            DType::Bool => Some((0, 1)),
            DType::F32 | DType::F16 | DType::Bf16 | DType::F64 => None,
        }
    }

    /// The pypto name (`DT_FP32` …).
    pub fn pypto_name(self) -> &'static str {
        match self {
            DType::F32 => "DT_FP32",
            DType::F16 => "DT_FP16",
            DType::Bf16 => "DT_BF16",
            DType::F64 => "DT_FP64",
            DType::I8 => "DT_INT8",
            DType::I16 => "DT_INT16",
            DType::I32 => "DT_INT32",
            DType::I64 => "DT_INT64",
            DType::U8 => "DT_UINT8",
            DType::Bool => "DT_BOOL",
        }
    }

    /// torch's (and numpy's) name: `float32`, `float16`, `bfloat16`, `float64`, `int8` … `uint8`, `bool`.
    pub fn torch_name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F16 => "float16",
            DType::Bf16 => "bfloat16",
            DType::F64 => "float64",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::Bool => "bool",
        }
    }

    /// The short name (`f32`, `f16`, `bf16`, `f64`, `i8` … `u8`, `bool`).
    pub fn short_name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::Bf16 => "bf16",
            DType::F64 => "f64",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::Bool => "bool",
        }
    }

    /// Parses a short, numpy or pypto name.
    pub fn parse(name: &str) -> Option<DType> {
        match name {
            "f32" | "float32" | "DT_FP32" => Some(DType::F32),
            "f16" | "float16" | "DT_FP16" => Some(DType::F16),
            "bf16" | "bfloat16" | "DT_BF16" => Some(DType::Bf16),
            "f64" | "float64" | "DT_FP64" => Some(DType::F64),
            "i8" | "int8" | "DT_INT8" => Some(DType::I8),
            "i16" | "int16" | "DT_INT16" => Some(DType::I16),
            "i32" | "int32" | "DT_INT32" => Some(DType::I32),
            "i64" | "int64" | "DT_INT64" => Some(DType::I64),
            "u8" | "uint8" | "DT_UINT8" => Some(DType::U8),
            "bool" | "DT_BOOL" => Some(DType::Bool),
            _ => None,
        }
    }

    /// The type two operands are computed and stored in, as torch promotes tensors: a higher kind
    /// wins (bool < integer < float: `int32 + fp16` is fp16); equal types stay; mixed floats widen
    /// to f32 (f16 with bf16 has no common narrow type) and anything with f64 is f64; mixed integers
    /// take the narrowest type holding both ranges (`uint8` with `int8` is `int16`).
    pub fn promote(self, other: DType) -> DType {
        if self == other {
            return self;
        }
        match self.kind().cmp(&other.kind()) {
            std::cmp::Ordering::Greater => return self,
            std::cmp::Ordering::Less => return other,
            std::cmp::Ordering::Equal => {}
        }
        if self.is_float() {
            return if self == DType::F64 || other == DType::F64 { DType::F64 } else { DType::F32 };
        }
        let (low, high) = {
            let (a, b) = (self.integer_range().unwrap_or((0, 0)), other.integer_range().unwrap_or((0, 0)));
            (a.0.min(b.0), a.1.max(b.1))
        };
        [DType::U8, DType::I8, DType::I16, DType::I32, DType::I64]
            .into_iter()
            .find(|dtype| dtype.integer_range().is_some_and(|(min, max)| min <= low && high <= max))
            .unwrap_or(DType::I64)
    }

    /// Rounds an f32 to the nearest value representable in this type (round-to-nearest-even); an
    /// integer type truncates toward zero and saturates (NaN is 0), bool is `value != 0`.
    pub fn round_f32(self, value: f32) -> f32 {
        match self {
            DType::F32 | DType::F64 => value,
            DType::F16 => f16::from_f32(value).to_f32(),
            DType::Bf16 => bf16::from_f32(value).to_f32(),
            DType::I8 => value as i8 as f32,
            DType::I16 => value as i16 as f32,
            DType::I32 => value as i32 as f32,
            DType::I64 => value as i64 as f32,
            DType::U8 => value as u8 as f32,
            DType::Bool => f32::from(u8::from(value != 0.0)),
        }
    }

    /// Machine epsilon of the type (distance from 1 to the next representable value; 1 for the
    /// integer types, whose step is 1).
    pub fn epsilon(self) -> f64 {
        match self {
            DType::F32 => f32::EPSILON as f64,
            DType::F16 => 2f64.powi(-10),
            DType::Bf16 => 2f64.powi(-7),
            DType::F64 => f64::EPSILON,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::U8 | DType::Bool => 1.0,
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.short_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_round_to_nearest_even() {
        // bf16 keeps 8 significant bits: 1 + 2^-8 lies halfway between 1 and 1 + 2^-7 and rounds to
        // the even mantissa, 1.
        assert_eq!(DType::Bf16.round_f32(1.0 + 2f32.powi(-8)), 1.0);
        assert_eq!(DType::Bf16.round_f32(1.0 + 3.0 * 2f32.powi(-9)), 1.0 + 2f32.powi(-7));
        // f16 keeps 11 significant bits; 65520 is halfway to infinity and overflows.
        assert_eq!(DType::F16.round_f32(2049.0), 2048.0);
        assert!(DType::F16.round_f32(65520.0).is_infinite());
        assert_eq!(DType::F32.round_f32(0.1), 0.1);
    }

    #[test]
    fn integers_truncate_toward_zero_and_saturate() {
        assert_eq!(DType::I32.round_f32(-2.7), -2.0);
        assert_eq!(DType::I8.round_f32(300.0), 127.0);
        assert_eq!(DType::U8.round_f32(-1.0), 0.0);
        assert_eq!(DType::I16.round_f32(f32::NAN), 0.0);
        assert_eq!(DType::Bool.round_f32(-0.5), 1.0);
    }

    #[test]
    fn promotion_widens_mixed_types() {
        assert_eq!(DType::F16.promote(DType::F16), DType::F16);
        assert_eq!(DType::F16.promote(DType::Bf16), DType::F32);
        assert_eq!(DType::Bf16.promote(DType::F32), DType::F32);
        assert_eq!(DType::F32.promote(DType::F64), DType::F64);
    }

    #[test]
    fn promotion_follows_torch_across_kinds() {
        // torch.promote_types: (int32, float16) → float16; (bool, int8) → int8; (uint8, int8) →
        // int16; (uint8, int64) → int64; (int16, int32) → int32; (bool, bfloat16) → bfloat16.
        assert_eq!(DType::I32.promote(DType::F16), DType::F16);
        assert_eq!(DType::Bool.promote(DType::I8), DType::I8);
        assert_eq!(DType::U8.promote(DType::I8), DType::I16);
        assert_eq!(DType::U8.promote(DType::I64), DType::I64);
        assert_eq!(DType::I16.promote(DType::I32), DType::I32);
        assert_eq!(DType::Bf16.promote(DType::Bool), DType::Bf16);
        assert_eq!(DType::I64.promote(DType::F64), DType::F64);
    }

    #[test]
    fn names_round_trip() {
        for dtype in DType::ALL {
            assert_eq!(DType::parse(dtype.pypto_name()), Some(dtype));
            assert_eq!(DType::parse(dtype.short_name()), Some(dtype));
        }
    }
}
