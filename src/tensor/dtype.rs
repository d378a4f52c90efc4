//! Element types. Narrow types are stored rounded and computed in f32 ("store narrow, compute f32").

use half::{bf16, f16};
use serde::{Deserialize, Serialize};

/// The element type of a tensor.
///
/// `F32`, `F16` and `Bf16` are the pypto dtypes (`DT_FP32`, `DT_FP16`, `DT_BF16`). `F64` is the CPU
/// reference type used by gradient checks and golden comparisons; it is never produced by a kernel.
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
}

impl DType {
    /// Bytes per element.
    pub fn size_in_bytes(self) -> usize {
        match self {
            DType::F32 => 4,
            DType::F16 | DType::Bf16 => 2,
            DType::F64 => 8,
        }
    }

    /// The pypto name (`DT_FP32` …).
    pub fn pypto_name(self) -> &'static str {
        match self {
            DType::F32 => "DT_FP32",
            DType::F16 => "DT_FP16",
            DType::Bf16 => "DT_BF16",
            DType::F64 => "DT_FP64",
        }
    }

    /// The short name (`f32`, `f16`, `bf16`, `f64`).
    pub fn short_name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::Bf16 => "bf16",
            DType::F64 => "f64",
        }
    }

    /// Parses a short or pypto name.
    pub fn parse(name: &str) -> Option<DType> {
        match name {
            "f32" | "float32" | "DT_FP32" => Some(DType::F32),
            "f16" | "float16" | "DT_FP16" => Some(DType::F16),
            "bf16" | "bfloat16" | "DT_BF16" => Some(DType::Bf16),
            "f64" | "float64" | "DT_FP64" => Some(DType::F64),
            _ => None,
        }
    }

    /// The type two operands are computed and stored in: equal types stay, mixed types widen to f32
    /// (f16 with bf16 has no common narrow type), and anything with f64 is f64.
    pub fn promote(self, other: DType) -> DType {
        match (self, other) {
            (a, b) if a == b => a,
            (DType::F64, _) | (_, DType::F64) => DType::F64,
            _ => DType::F32,
        }
    }

    /// Rounds an f32 to the nearest value representable in this type (round-to-nearest-even).
    pub fn round_f32(self, value: f32) -> f32 {
        match self {
            DType::F32 | DType::F64 => value,
            DType::F16 => f16::from_f32(value).to_f32(),
            DType::Bf16 => bf16::from_f32(value).to_f32(),
        }
    }

    /// Machine epsilon of the type (distance from 1 to the next representable value).
    pub fn epsilon(self) -> f64 {
        match self {
            DType::F32 => f32::EPSILON as f64,
            DType::F16 => 2f64.powi(-10),
            DType::Bf16 => 2f64.powi(-7),
            DType::F64 => f64::EPSILON,
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
    fn promotion_widens_mixed_types() {
        assert_eq!(DType::F16.promote(DType::F16), DType::F16);
        assert_eq!(DType::F16.promote(DType::Bf16), DType::F32);
        assert_eq!(DType::Bf16.promote(DType::F32), DType::F32);
        assert_eq!(DType::F32.promote(DType::F64), DType::F64);
    }

    #[test]
    fn names_round_trip() {
        for dtype in [DType::F32, DType::F16, DType::Bf16, DType::F64] {
            assert_eq!(DType::parse(dtype.pypto_name()), Some(dtype));
            assert_eq!(DType::parse(dtype.short_name()), Some(dtype));
        }
    }
}
