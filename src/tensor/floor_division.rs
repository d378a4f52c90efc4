//! numpy's float `//` and `%` (`floor_divide`, `remainder`), the element functions behind
//! `BinaryOp::FloorDivide` and `BinaryOp::Remainder`.

use super::real::Real;

/// numpy's `floor_divide` for floats (its `npy_divmod`): the quotient is computed from the exact
/// `fmod` remainder, not as `floor(a / b)`, so that `a == b·(a // b) + a % b` holds as closely as
/// the format allows (`floor(1 / 0.1)` is 10, numpy's `1 // 0.1` is 9).
pub(crate) fn floor_divide<T: Real>(a: T, b: T) -> T {
    if b == T::zero() {
        return a / b;
    }
    let modulo = a % b;
    let mut quotient = (a - modulo) / b;
    if modulo != T::zero() && ((b < T::zero()) != (modulo < T::zero())) {
        quotient = quotient - T::one();
    }
    if quotient == T::zero() {
        return T::zero().copysign(a / b);
    }
    let floored = quotient.floor();
    if quotient - floored > T::of(0.5) {
        floored + T::one()
    } else {
        floored
    }
}

/// numpy's `remainder` for floats: `fmod` moved to the sign of the divisor; a zero result takes
/// the divisor's sign, and `x % 0` is NaN.
pub(crate) fn remainder<T: Real>(a: T, b: T) -> T {
    if b == T::zero() {
        return T::nan();
    }
    let modulo = a % b;
    if modulo == T::zero() {
        T::zero().copysign(b)
    } else if (b < T::zero()) != (modulo < T::zero()) {
        modulo + b
    } else {
        modulo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values numpy 1.26 prints for `np.floor_divide` / `np.remainder` on float64.
    #[test]
    fn match_numpy() {
        let cases: [(f64, f64, f64, f64); 8] = [
            (7.0, 2.0, 3.0, 1.0),
            (-7.0, 2.0, -4.0, 1.0),
            (7.0, -2.0, -4.0, -1.0),
            (-7.0, -2.0, 3.0, -1.0),
            (1.0, 0.1, 9.0, 0.09999999999999995),
            (5.5, 1.5, 3.0, 1.0),
            (-0.5, 1.0, -1.0, 0.5),
            (6.0, 3.0, 2.0, 0.0),
        ];
        for (a, b, quotient, rest) in cases {
            assert_eq!(floor_divide(a, b), quotient, "{a} // {b}");
            assert_eq!(remainder(a, b), rest, "{a} % {b}");
        }
        // Signs of zeros and division by zero: 0 % -3 is -0.0; x // 0 is ±inf (0 // 0 NaN); x % 0 NaN.
        assert!(remainder(0.0f64, -3.0).is_sign_negative());
        assert!(remainder(3.0f64, -3.0).is_sign_negative());
        assert!(floor_divide(-0.5f64, 3.0) == -1.0);
        assert_eq!(floor_divide(1.0f64, 0.0), f64::INFINITY);
        assert_eq!(floor_divide(-1.0f64, 0.0), f64::NEG_INFINITY);
        assert!(floor_divide(0.0f64, 0.0).is_nan() && remainder(1.0f64, 0.0).is_nan());
        assert_eq!(floor_divide(7.0f32, 2.0), 3.0f32);
    }
}
