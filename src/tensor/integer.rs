//! Integer and bool element-wise arithmetic: exact, computed in i64 and wrapped to the result dtype
//! (two's complement, as torch and numpy), so an int64 index above 2^53 keeps every bit.

use super::dtype::DType;
use super::elementwise::{BinaryOp, UnaryOp};
use super::handle::Tensor;
use super::shape::{broadcast_strides, for_each_offset};
use super::storage::Storage;
use crate::error::{Result, TensorError};
use crate::messages::ArgumentDetail;

/// `op(a, b)` of two broadcast integer (or bool) tensors into `dtype`, an integer or bool type.
/// `/` never gets here: it promotes integers to f32 first.
pub(crate) fn integer_binary(op: BinaryOp, a: &Tensor, b: &Tensor, shape: &[usize], dtype: DType) -> Result<Storage> {
    if dtype == DType::Bool && op == BinaryOp::Sub {
        return Err(TensorError::BadArgument { op: "sub", detail: ArgumentDetail::BoolSubtract });
    }
    let (left, right) = (a.storage().to_i64_vec(), b.storage().to_i64_vec());
    let left_strides = broadcast_strides(a.shape(), shape);
    let right_strides = broadcast_strides(b.shape(), shape);
    let mut out = Vec::with_capacity(shape.iter().product());
    let mut failure = None;
    for_each_offset(shape, [&left_strides, &right_strides], |[i, j]| match apply(op, left[i], right[j]) {
        Ok(value) => out.push(value),
        Err(detail) => {
            failure.get_or_insert(detail);
            out.push(0);
        }
    });
    if let Some(detail) = failure {
        return Err(TensorError::BadArgument { op: op.name(), detail });
    }
    Ok(Storage::from_i64(out, dtype))
}

/// One integer op; the error says why it has no integer result.
fn apply(op: BinaryOp, a: i64, b: i64) -> std::result::Result<i64, ArgumentDetail> {
    Ok(match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::Maximum => a.max(b),
        BinaryOp::Minimum => a.min(b),
        BinaryOp::Pow => {
            if b < 0 {
                return Err(ArgumentDetail::NegativePower);
            }
            wrapping_power(a, b as u64)
        }
        BinaryOp::FloorDivide | BinaryOp::Remainder if b == 0 => {
            return Err(ArgumentDetail::IntegerDivisionByZero);
        }
        // Python's floor division and the remainder with the divisor's sign.
        BinaryOp::FloorDivide => {
            let (quotient, rest) = (a.wrapping_div(b), a.wrapping_rem(b));
            if rest != 0 && ((rest < 0) != (b < 0)) {
                quotient.wrapping_sub(1)
            } else {
                quotient
            }
        }
        BinaryOp::Remainder => {
            let rest = a.wrapping_rem(b);
            if rest != 0 && ((rest < 0) != (b < 0)) {
                rest.wrapping_add(b)
            } else {
                rest
            }
        }
        BinaryOp::Div => return Err(ArgumentDetail::IntegerTrueDivision),
    })
}

/// `base^exponent` modulo 2^64 (square and multiply).
fn wrapping_power(mut base: i64, mut exponent: u64) -> i64 {
    let mut result: i64 = 1;
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exponent >>= 1;
    }
    result
}

/// `op(x)` of an integer (or bool) tensor for an op that keeps integers (`UnaryOp::keeps_integers`).
pub(crate) fn integer_unary(op: UnaryOp, x: &Tensor) -> Result<Storage> {
    let dtype = x.dtype();
    if dtype == DType::Bool && op == UnaryOp::Neg {
        return Err(TensorError::BadArgument { op: "neg", detail: ArgumentDetail::BoolNegate });
    }
    let values = x.storage().to_i64_vec();
    let out = values
        .into_iter()
        .map(|v| match op {
            UnaryOp::Neg => v.wrapping_neg(),
            UnaryOp::Abs => v.wrapping_abs(),
            UnaryOp::Relu => v.max(0),
            UnaryOp::Sign => v.signum(),
            // ceil, floor, trunc and round of an integer are the integer.
            _ => v,
        })
        .collect();
    Ok(Storage::from_i64(out, dtype))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(values: &[i64], dtype: DType) -> Tensor {
        Tensor::from_storage(Storage::from_i64(values.to_vec(), dtype), &[values.len()]).unwrap()
    }

    #[test]
    fn floor_division_and_remainder_follow_python() {
        // Python: 7 // -2 = -4, 7 % -2 = -1, -7 // 2 = -4, -7 % 2 = 1.
        let a = ints(&[7, -7, 7, -7], DType::I32);
        let b = ints(&[2, 2, -2, -2], DType::I32);
        let shape = [4];
        let quotient = integer_binary(BinaryOp::FloorDivide, &a, &b, &shape, DType::I32).unwrap();
        assert_eq!(quotient.to_i64_vec(), vec![3, -4, -4, 3]);
        let rest = integer_binary(BinaryOp::Remainder, &a, &b, &shape, DType::I32).unwrap();
        assert_eq!(rest.to_i64_vec(), vec![1, 1, -1, -1]);
        let zero = ints(&[0, 1, 1, 1], DType::I32);
        assert!(integer_binary(BinaryOp::FloorDivide, &a, &zero, &shape, DType::I32).is_err());
    }

    #[test]
    fn results_wrap_to_the_dtype_and_int64_is_exact() {
        // int8: 100 + 100 = 200 wraps to -56; int64: (2^53 + 1) + 1 is exact.
        let a = ints(&[100], DType::I8);
        assert_eq!(integer_binary(BinaryOp::Add, &a, &a, &[1], DType::I8).unwrap().to_i64_vec(), vec![-56]);
        let big = ints(&[(1 << 53) + 1], DType::I64);
        let one = ints(&[1], DType::I64);
        let sum = integer_binary(BinaryOp::Add, &big, &one, &[1], DType::I64).unwrap();
        assert_eq!(sum.to_i64_vec(), vec![(1 << 53) + 2]);
        assert_eq!(wrapping_power(3, 4), 81);
        assert!(apply(BinaryOp::Pow, 2, -1).is_err());
    }

    #[test]
    fn bool_negation_and_subtraction_are_refused() {
        let mask = ints(&[1, 0], DType::Bool);
        assert!(integer_unary(UnaryOp::Neg, &mask).is_err());
        assert!(integer_binary(BinaryOp::Sub, &mask, &mask, &[2], DType::Bool).is_err());
        assert_eq!(integer_unary(UnaryOp::Sign, &ints(&[-5, 0, 9], DType::I16)).unwrap().to_i64_vec(), vec![-1, 0, 1]);
    }
}
