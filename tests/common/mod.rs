//! Shared helpers of the tensor-core feature tests, used natively and by the wasm-bindgen browser and
//! worker tests: an independent f64 reference of every op (`reference`), the checks that compare the
//! tensor core against it (`checks` for arithmetic, `matmul_checks` for matmul and creation,
//! `layout_checks` for ops that move values, `error_checks` for bad input), and the committed RNG
//! constants (`rng_golden`). Each check panics with the case and element on failure.
//!
//! Nothing here calls the code under test to produce an expected value: the rounding to f16/bf16, the
//! broadcasting rule and every op are re-derived in f64 from their definitions.

#![allow(dead_code)]

#[macro_use]
pub mod browser_suite;
pub mod checks;
pub mod error_checks;
pub mod layout_checks;
pub mod matmul_checks;
pub mod reference;
pub mod rng_golden;

use tilelab::tensor::{DType, Tensor};

/// The dtypes a kernel produces, plus the f64 reference dtype.
pub const ALL_DTYPES: [DType; 4] = [DType::F32, DType::F16, DType::Bf16, DType::F64];

/// (stored significand bits after the leading one, smallest normal exponent, largest exponent) of a
/// dtype, from the IEEE 754 / bfloat16 definitions.
fn format_of(dtype: DType) -> (i32, i32, i32) {
    match dtype {
        DType::F64 => (52, -1022, 1023),
        DType::F32 => (23, -126, 127),
        DType::F16 => (10, -14, 15),
        DType::Bf16 => (7, -126, 127),
        other => unreachable!("{other} is an integer dtype: it has no float format"),
    }
}

/// Distance between adjacent representable values of `dtype` around `value` (the spacing of the
/// binade of |value|; subnormals share the spacing of the smallest normal binade).
pub fn ulp(dtype: DType, value: f64) -> f64 {
    let (bits, min_exponent, _) = format_of(dtype);
    let exponent = if value == 0.0 || !value.is_finite() {
        min_exponent
    } else {
        (value.abs().log2().floor() as i32).max(min_exponent)
    };
    2f64.powi(exponent - bits)
}

/// `value` rounded to the nearest value of `dtype`, ties to even; beyond the largest finite value it
/// becomes ±∞ (IEEE round-to-nearest overflows once the value reaches max + ulp/2).
///
/// Derivation: in the binade [2^e, 2^(e+1)) the representable values are the multiples of
/// ulp = 2^(e − bits); rounding is `round_ties_even(value / ulp) · ulp`, exact in f64 because the
/// quotient has at most 53 significant bits and scaling by a power of two is exact.
pub fn round_to(dtype: DType, value: f64) -> f64 {
    if dtype == DType::F64 || !value.is_finite() || value == 0.0 {
        return value;
    }
    let (bits, _, max_exponent) = format_of(dtype);
    let spacing = ulp(dtype, value);
    let rounded = (value / spacing).round_ties_even() * spacing;
    let largest = (2.0 - 2f64.powi(-bits)) * 2f64.powi(max_exponent);
    if rounded.abs() > largest {
        f64::INFINITY.copysign(value)
    } else {
        rounded
    }
}

/// A small deterministic generator (a 64-bit LCG, Knuth's MMIX constants) so that test inputs do not
/// depend on the tensor core's own RNG.
pub struct Inputs {
    state: u64,
}

impl Inputs {
    /// A stream for `seed`.
    pub fn new(seed: u64) -> Inputs {
        Inputs { state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03 }
    }

    /// Uniform in [0, 1) from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        self.state = self.state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.state >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [low, high), rounded to `dtype` so the value is stored exactly.
    pub fn value(&mut self, low: f64, high: f64, dtype: DType) -> f64 {
        round_to(dtype, low + (high - low) * self.unit())
    }

    /// `count` values in [low, high), each representable in `dtype`.
    pub fn values(&mut self, count: usize, low: f64, high: f64, dtype: DType) -> Vec<f64> {
        (0..count).map(|_| self.value(low, high, dtype)).collect()
    }

    /// A random index below `bound`.
    pub fn below(&mut self, bound: usize) -> usize {
        (self.unit() * bound as f64) as usize % bound.max(1)
    }
}

/// A tensor of `shape` with values in [low, high) that `dtype` represents exactly, and those values.
pub fn random_tensor(inputs: &mut Inputs, shape: &[usize], low: f64, high: f64, dtype: DType) -> (Tensor, Vec<f64>) {
    let values = inputs.values(shape.iter().product(), low, high, dtype);
    let tensor = Tensor::from_f64(values.clone(), shape, dtype).expect("test tensor");
    (tensor, values)
}

/// Asserts that every `got[i]` lies within `tolerance(i, expected[i])` of `expected[i]`; NaN must match
/// NaN and infinities must match exactly. `context` names the case in the failure message.
pub fn assert_close(context: &str, got: &[f64], expected: &[f64], tolerance: impl Fn(usize, f64) -> f64) {
    assert_eq!(got.len(), expected.len(), "{context}: {} values, expected {}", got.len(), expected.len());
    for (index, (&g, &e)) in got.iter().zip(expected).enumerate() {
        let ok = if e.is_nan() {
            g.is_nan()
        } else if e.is_infinite() {
            g == e
        } else {
            (g - e).abs() <= tolerance(index, e)
        };
        assert!(ok, "{context}: element {index} is {g:e}, expected {e:e} (tolerance {:e})", tolerance(index, e));
    }
}

/// Asserts exact equality of two f64 slices, NaN equal to NaN.
pub fn assert_exact(context: &str, got: &[f64], expected: &[f64]) {
    assert_close(context, got, expected, |_, _| 0.0);
}

/// Machine epsilon of the precision a kernel computes in for `dtype`: f64 for the reference dtype,
/// f32 for everything else ("store narrow, compute f32").
pub fn compute_epsilon(dtype: DType) -> f64 {
    if dtype == DType::F64 {
        f64::EPSILON
    } else {
        f32::EPSILON as f64
    }
}

/// One ulp of `dtype` at `value` for the narrow dtypes, 0 for f32/f64: the slack of rounding the f32
/// result once more, which may land on the other neighbour of the exact value.
pub fn narrow_slack(dtype: DType, value: f64) -> f64 {
    match dtype {
        DType::F16 | DType::Bf16 => ulp(dtype, value),
        DType::F32 | DType::F64 => 0.0,
        // Integer results are exact.
        _ => 0.0,
    }
}
