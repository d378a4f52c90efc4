//! `Real`: the arithmetic the element-wise kernels need, for f32 (kernels) and f64 (the reference).

use num_traits::Float;

/// A float type the tensor core computes in.
pub trait Real: Float + Default + Send + Sync + std::fmt::Debug + 'static {
    /// The error function.
    fn erf(self) -> Self;
    /// The complementary error function `1 − erf(x)`, accurate where erf is near 1.
    fn erfc(self) -> Self;
    /// Converts from f64 (rounding for f32).
    fn of(value: f64) -> Self;
}

impl Real for f32 {
    fn erf(self) -> f32 {
        libm::erff(self)
    }
    fn erfc(self) -> f32 {
        libm::erfcf(self)
    }
    fn of(value: f64) -> f32 {
        value as f32
    }
}

impl Real for f64 {
    fn erf(self) -> f64 {
        libm::erf(self)
    }
    fn erfc(self) -> f64 {
        libm::erfc(self)
    }
    fn of(value: f64) -> f64 {
        value
    }
}
