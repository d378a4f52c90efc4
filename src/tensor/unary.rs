//! `UnaryOp`: the element-wise ops of one input, their pypto names and their element functions
//! (f32 for kernels, f64 for the reference).

use serde::{Deserialize, Serialize};

use super::real::Real;

/// Ops of one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `|x|`
    Abs,
    /// `e^x`
    Exp,
    /// natural log
    Log,
    /// `√x`
    Sqrt,
    /// `1/√x`
    Rsqrt,
    /// `1/x`
    Reciprocal,
    /// sine
    Sin,
    /// cosine
    Cos,
    /// hyperbolic tangent
    Tanh,
    /// `1/(1+e^-x)`
    Sigmoid,
    /// `max(x, 0)`
    Relu,
    /// `x·σ(x)`
    Silu,
    /// `x·Φ(x) = ½x(1+erf(x/√2))`
    GeluErf,
    /// `½x(1+tanh(√(2/π)(x+0.044715x³)))`
    GeluTanh,
    /// `2^x`
    Exp2,
    /// the error function
    Erf,
    /// `1 − erf(x)`
    Erfc,
    /// smallest integer ≥ x
    Ceil,
    /// largest integer ≤ x
    Floor,
    /// integer part (toward zero)
    Trunc,
    /// nearest integer, ties to even (`round(x, decimals=0)`)
    Round,
    /// −1, 0 or 1 (0 for NaN, as torch)
    Sign,
    /// `e^x − 1`, accurate near 0
    Expm1,
    /// `ln(1 + x)`, accurate near 0
    Log1p,
    /// `sinh x`
    Sinh,
    /// `cosh x`
    Cosh,
    /// `atan x`
    Atan,
    /// `asinh x`
    Asinh,
    /// `log₂ x`
    Log2,
    /// `log₁₀ x`
    Log10,
    /// `tan x`
    Tan,
    /// `acosh x` (NaN below 1)
    Acosh,
    /// `atanh x` (NaN outside [−1, 1], ±∞ at ±1)
    Atanh,
    /// the real cube root `∛x` (negative for negative x)
    Cbrt,
}

impl UnaryOp {
    /// Every unary op, in declaration order.
    pub const ALL: [UnaryOp; 35] = [
        UnaryOp::Neg,
        UnaryOp::Abs,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sqrt,
        UnaryOp::Rsqrt,
        UnaryOp::Reciprocal,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tanh,
        UnaryOp::Sigmoid,
        UnaryOp::Relu,
        UnaryOp::Silu,
        UnaryOp::GeluErf,
        UnaryOp::GeluTanh,
        UnaryOp::Exp2,
        UnaryOp::Erf,
        UnaryOp::Erfc,
        UnaryOp::Ceil,
        UnaryOp::Floor,
        UnaryOp::Trunc,
        UnaryOp::Round,
        UnaryOp::Sign,
        UnaryOp::Expm1,
        UnaryOp::Log1p,
        UnaryOp::Sinh,
        UnaryOp::Cosh,
        UnaryOp::Atan,
        UnaryOp::Asinh,
        UnaryOp::Log2,
        UnaryOp::Log10,
        UnaryOp::Tan,
        UnaryOp::Acosh,
        UnaryOp::Atanh,
        UnaryOp::Cbrt,
    ];

    /// The op whose pypto name is `name` (`"gelu"` is the erf form). `round` is not found by name:
    /// pypto's `round(x, decimals)` carries a parameter the name alone does not, so callers that
    /// only see names (the kernel compiler) must not take it for `Round` (decimals 0).
    pub fn from_name(name: &str) -> Option<UnaryOp> {
        UnaryOp::ALL.into_iter().filter(|&op| op != UnaryOp::Round).find(|op| op.name() == name)
    }

    /// Whether the op maps integers to integers (and so keeps an integer dtype, computed exactly);
    /// the others compute an integer input in f32 and return f32, as torch.
    pub fn keeps_integers(self) -> bool {
        matches!(
            self,
            UnaryOp::Neg
                | UnaryOp::Abs
                | UnaryOp::Relu
                | UnaryOp::Ceil
                | UnaryOp::Floor
                | UnaryOp::Trunc
                | UnaryOp::Round
                | UnaryOp::Sign
        )
    }

    /// The pypto name of the op.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Abs => "abs",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Reciprocal => "reciprocal",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Relu => "relu",
            UnaryOp::Silu => "silu",
            UnaryOp::GeluErf => "gelu",
            UnaryOp::GeluTanh => "gelu_tanh",
            UnaryOp::Exp2 => "exp2",
            UnaryOp::Erf => "erf",
            UnaryOp::Erfc => "erfc",
            UnaryOp::Ceil => "ceil",
            UnaryOp::Floor => "floor",
            UnaryOp::Trunc => "trunc",
            UnaryOp::Round => "round",
            UnaryOp::Sign => "sign",
            UnaryOp::Expm1 => "expm1",
            UnaryOp::Log1p => "log1p",
            UnaryOp::Sinh => "sinh",
            UnaryOp::Cosh => "cosh",
            UnaryOp::Atan => "atan",
            UnaryOp::Asinh => "asinh",
            UnaryOp::Log2 => "log2",
            UnaryOp::Log10 => "log10",
            UnaryOp::Tan => "tan",
            UnaryOp::Acosh => "acosh",
            UnaryOp::Atanh => "atanh",
            UnaryOp::Cbrt => "cbrt",
        }
    }

    /// Applies the op to one value.
    #[inline]
    pub fn apply<T: Real>(self, x: T) -> T {
        let one = T::one();
        let half = T::of(0.5);
        match self {
            UnaryOp::Neg => -x,
            UnaryOp::Abs => x.abs(),
            UnaryOp::Exp => x.exp(),
            UnaryOp::Log => x.ln(),
            UnaryOp::Sqrt => x.sqrt(),
            UnaryOp::Rsqrt => one / x.sqrt(),
            UnaryOp::Reciprocal => one / x,
            UnaryOp::Sin => x.sin(),
            UnaryOp::Cos => x.cos(),
            UnaryOp::Tanh => x.tanh(),
            UnaryOp::Sigmoid => sigmoid(x),
            // NaN stays NaN (as in PyTorch), so it is kept like a positive value.
            UnaryOp::Relu => {
                if x > T::zero() || x.is_nan() {
                    x
                } else {
                    T::zero()
                }
            }
            UnaryOp::Silu => x * sigmoid(x),
            UnaryOp::GeluErf => half * x * (one + (x * T::of(std::f64::consts::FRAC_1_SQRT_2)).erf()),
            UnaryOp::GeluTanh => {
                let inner = T::of(0.797_884_560_802_865_4) * (x + T::of(0.044715) * x * x * x);
                half * x * (one + inner.tanh())
            }
            UnaryOp::Exp2 => x.exp2(),
            UnaryOp::Erf => x.erf(),
            UnaryOp::Erfc => x.erfc(),
            UnaryOp::Ceil => x.ceil(),
            UnaryOp::Floor => x.floor(),
            UnaryOp::Trunc => x.trunc(),
            UnaryOp::Round => round_half_even(x),
            UnaryOp::Sign => {
                if x > T::zero() {
                    one
                } else if x < T::zero() {
                    -one
                } else {
                    T::zero()
                }
            }
            UnaryOp::Expm1 => x.exp_m1(),
            UnaryOp::Log1p => x.ln_1p(),
            UnaryOp::Sinh => x.sinh(),
            UnaryOp::Cosh => x.cosh(),
            UnaryOp::Atan => x.atan(),
            UnaryOp::Asinh => x.asinh(),
            UnaryOp::Log2 => x.log2(),
            UnaryOp::Log10 => x.log10(),
            UnaryOp::Tan => x.tan(),
            // Near 1 (acosh) and ±1 (atanh) their f32 formulas lose several bits to cancellation:
            // computed in f64 and rounded once instead.
            UnaryOp::Acosh => T::of(x.to_f64().unwrap_or(f64::NAN).acosh()),
            UnaryOp::Atanh => T::of(x.to_f64().unwrap_or(f64::NAN).atanh()),
            UnaryOp::Cbrt => x.cbrt(),
        }
    }
}

/// The nearest integer, ties to the even one (IEEE `roundeven`, numpy's and torch's `round`).
fn round_half_even<T: Real>(x: T) -> T {
    let nearest = x.round();
    if (nearest - x).abs() == T::of(0.5) {
        T::of(2.0) * (x * T::of(0.5)).round()
    } else {
        nearest
    }
}

/// σ(x) computed without overflow for large |x|.
pub fn sigmoid<T: Real>(x: T) -> T {
    // One exp of −|x| (never overflows): e^−x for x ≥ 0, e^x below; the division picks the side.
    // Computed once, not per branch: a compiler that flattens the branches would call exp twice.
    let e = (-x.abs()).exp();
    if x >= T::zero() {
        T::one() / (T::one() + e)
    } else {
        e / (T::one() + e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigmoid_does_not_overflow() {
        assert_eq!(UnaryOp::Sigmoid.apply(-1e4f32), 0.0);
        assert_eq!(UnaryOp::Sigmoid.apply(1e4f32), 1.0);
        // gelu(1) = Φ(1) = 0.841344746…
        assert!((UnaryOp::GeluErf.apply(1.0f64) - 0.841_344_746_068_542_9).abs() < 1e-12);
    }

    #[test]
    fn names_round_trip() {
        for op in UnaryOp::ALL.into_iter().filter(|&op| op != UnaryOp::Round) {
            assert_eq!(UnaryOp::from_name(op.name()), Some(op));
        }
        // `round` takes `decimals`: the name alone must not select decimals 0.
        assert_eq!(UnaryOp::from_name("round"), None);
        assert_eq!(UnaryOp::from_name("gelu"), Some(UnaryOp::GeluErf));
        assert_eq!(UnaryOp::from_name("concat"), None);
    }
}
