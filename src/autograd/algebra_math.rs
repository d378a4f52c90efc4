//! The gradient rules of the element-wise math ops added from pypto's operation docs (expm1,
//! log1p, sinh, cosh, atan, asinh, log2, log10, tan, acosh, atanh, cbrt), written once over a [`GradientAlgebra`] like the others.

use super::algebra::{mul, Built, GradientAlgebra};
use crate::tensor::{BinaryOp, UnaryOp};

/// `g · op'(x)` for one of the ops above.
pub(crate) fn gradient<A: GradientAlgebra>(algebra: &mut A, op: UnaryOp, x: &A::Value, g: &A::Value) -> Built<A> {
    match op {
        // (eˣ − 1)' = eˣ
        UnaryOp::Expm1 => {
            let exp = algebra.unary(UnaryOp::Exp, x)?;
            mul(algebra, g, &exp)
        }
        // ln(1 + x)' = 1/(1 + x)
        UnaryOp::Log1p => {
            let shifted = plus_number(algebra, x, 1.0)?;
            algebra.binary(BinaryOp::Div, g, &shifted)
        }
        UnaryOp::Sinh => {
            let cosh = algebra.unary(UnaryOp::Cosh, x)?;
            mul(algebra, g, &cosh)
        }
        UnaryOp::Cosh => {
            let sinh = algebra.unary(UnaryOp::Sinh, x)?;
            mul(algebra, g, &sinh)
        }
        // atan' = 1/(1 + x²)
        UnaryOp::Atan => {
            let square = mul(algebra, x, x)?;
            let shifted = plus_number(algebra, &square, 1.0)?;
            algebra.binary(BinaryOp::Div, g, &shifted)
        }
        // log₂' = 1/(x ln 2), log₁₀' = 1/(x ln 10)
        UnaryOp::Log2 | UnaryOp::Log10 => {
            let base = if op == UnaryOp::Log2 { std::f64::consts::LN_2 } else { std::f64::consts::LN_10 };
            let ln_base = algebra.number(base, x);
            let scaled = mul(algebra, x, &ln_base)?;
            algebra.binary(BinaryOp::Div, g, &scaled)
        }
        // tan' = 1 + tan²
        UnaryOp::Tan => {
            let tan = algebra.unary(UnaryOp::Tan, x)?;
            let square = mul(algebra, &tan, &tan)?;
            let slope = plus_number(algebra, &square, 1.0)?;
            mul(algebra, g, &slope)
        }
        // acosh' = 1/√(x² − 1)
        UnaryOp::Acosh => {
            let square = mul(algebra, x, x)?;
            let shifted = plus_number(algebra, &square, -1.0)?;
            let inverse_root = algebra.unary(UnaryOp::Rsqrt, &shifted)?;
            mul(algebra, g, &inverse_root)
        }
        // atanh' = 1/(1 − x²)
        UnaryOp::Atanh => {
            let square = mul(algebra, x, x)?;
            let one = algebra.number(1.0, x);
            let rest = algebra.binary(BinaryOp::Sub, &one, &square)?;
            algebra.binary(BinaryOp::Div, g, &rest)
        }
        // cbrt' = 1/(3 ∛x²) (∞ at 0, as torch)
        UnaryOp::Cbrt => {
            let root = algebra.unary(UnaryOp::Cbrt, x)?;
            let square = mul(algebra, &root, &root)?;
            let three = algebra.number(3.0, x);
            let scaled = mul(algebra, &square, &three)?;
            algebra.binary(BinaryOp::Div, g, &scaled)
        }
        // asinh' = 1/√(x² + 1)
        _ => {
            let square = mul(algebra, x, x)?;
            let shifted = plus_number(algebra, &square, 1.0)?;
            let inverse_root = algebra.unary(UnaryOp::Rsqrt, &shifted)?;
            mul(algebra, g, &inverse_root)
        }
    }
}

/// `x + value` for a number `value`.
fn plus_number<A: GradientAlgebra>(algebra: &mut A, x: &A::Value, value: f64) -> Built<A> {
    let number = algebra.number(value, x);
    algebra.binary(BinaryOp::Add, x, &number)
}
