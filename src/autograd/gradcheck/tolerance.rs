//! The per-dtype step and tolerances of the gradient check.
//!
//! The numerical side always runs in f64, so the step is not limited by the dtype's rounding; it is
//! scaled to the dtype's resolution so that a kink closer than a few ulps of the point (which the
//! narrow forward cannot resolve) is seen by the one-sided differences. The analytic side runs in
//! the inputs' dtype, so the tolerances follow the dtype's machine epsilon ε:
//!
//! | dtype | step h | rtol            | atol (× scale) |
//! |-------|--------|-----------------|----------------|
//! | f64   | 1e-6   | 1e-7            | 1e-9           |
//! | f32   | 1e-4   | 1e-4 (≈ 2^10 ε) | 1e-5           |
//! | f16   | 4e-3   | 2^-8 (4 ε)      | 2^-9           |
//! | bf16  | 3e-2   | 2^-7 (1 ε)      | 2^-8           |
//!
//! An entry passes when `|analytic − numerical| ≤ atol·scale + rtol·|numerical|`; `scale` is the
//! size of the gradient being checked, at least 1 (the largest |entry| of the input's Jacobian
//! block, or Σ|gᵢuᵢ| for a projection vᵀJu), so that cancellation inside a correct rule (gelu' =
//! Φ + xφ at x < 0 in bf16) is not a false alarm while large gradients get a proportional slack.

use serde::{Deserialize, Serialize};

use crate::tensor::DType;

/// Step and tolerances of one check.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Tolerance {
    /// Central-difference step (multiplied by max(1, |x|) per element).
    pub step: f64,
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance, relative to the scale of the gradient.
    pub atol: f64,
}

impl Tolerance {
    /// The table above.
    pub fn for_dtype(dtype: DType) -> Tolerance {
        match dtype {
            DType::F64 => Tolerance { step: 1e-6, rtol: 1e-7, atol: 1e-9 },
            DType::F32 => Tolerance { step: 1e-4, rtol: 1e-4, atol: 1e-5 },
            DType::F16 => Tolerance { step: 4e-3, rtol: 2f64.powi(-8), atol: 2f64.powi(-9) },
            DType::Bf16 => Tolerance { step: 3e-2, rtol: 2f64.powi(-7), atol: 2f64.powi(-8) },
            // Integer and bool tensors are never differentiated (they cannot require grad); the
            // f32 row keeps the function total.
            DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::U8 | DType::Bool => {
                Tolerance::for_dtype(DType::F32)
            }
        }
    }

    /// Whether `analytic` agrees with `numerical` at this tolerance, for a gradient of size `scale`.
    pub fn accepts(&self, analytic: f64, numerical: f64, scale: f64) -> bool {
        (analytic - numerical).abs() <= self.atol * scale + self.rtol * numerical.abs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_relative_tolerance_is_two_to_the_minus_seven() {
        assert_eq!(Tolerance::for_dtype(DType::Bf16).rtol, 2f64.powi(-7));
        // 1 + 2^-8 is within 2^-7 of 1 (plus atol); 1.02 is not.
        let tolerance = Tolerance::for_dtype(DType::Bf16);
        assert!(tolerance.accepts(1.0 + 2f64.powi(-8), 1.0, 1.0));
        assert!(!tolerance.accepts(1.02, 1.0, 1.0));
        assert!(!Tolerance::for_dtype(DType::F32).accepts(1.001, 1.0, 1.0));
    }
}
