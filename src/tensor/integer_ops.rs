//! The element-wise ops that exist only for integers: pypto's `bitwise_and/or/xor/not`,
//! `bitwise_left_shift`, `bitwise_right_shift` and `gcd`. Computed exactly in i64 on the values of
//! the promoted dtype and wrapped back to it; shifts follow torch at the edges (a shift by a negative
//! amount or by the width or more gives 0 to the left, the sign fill to the right).

use serde::Serialize;

use super::dtype::DType;
use super::elementwise::combined_valid_shape;
use super::handle::Tensor;
use super::shape::{broadcast_shapes, broadcast_strides, element_count, for_each_offset};
use super::storage::{check_allocation, Storage};
use crate::error::{Result, TensorError};
use crate::messages::ArgumentDetail;

/// An integer-only element-wise op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum IntegerOp {
    /// `a & b`
    BitwiseAnd,
    /// `a | b`
    BitwiseOr,
    /// `a ^ b`
    BitwiseXor,
    /// `~a` (one operand)
    BitwiseNot,
    /// `a << b`
    LeftShift,
    /// `a >> b` (arithmetic for signed dtypes)
    RightShift,
    /// The greatest common divisor of `|a|` and `|b|` (`gcd(0, 0) = 0`)
    Gcd,
}

impl IntegerOp {
    /// Every op, in declaration order.
    pub const ALL: [IntegerOp; 7] = [
        IntegerOp::BitwiseAnd,
        IntegerOp::BitwiseOr,
        IntegerOp::BitwiseXor,
        IntegerOp::BitwiseNot,
        IntegerOp::LeftShift,
        IntegerOp::RightShift,
        IntegerOp::Gcd,
    ];

    /// The pypto (and torch) name.
    pub fn name(self) -> &'static str {
        match self {
            IntegerOp::BitwiseAnd => "bitwise_and",
            IntegerOp::BitwiseOr => "bitwise_or",
            IntegerOp::BitwiseXor => "bitwise_xor",
            IntegerOp::BitwiseNot => "bitwise_not",
            IntegerOp::LeftShift => "bitwise_left_shift",
            IntegerOp::RightShift => "bitwise_right_shift",
            IntegerOp::Gcd => "gcd",
        }
    }

    /// The op named `name`.
    pub fn from_name(name: &str) -> Option<IntegerOp> {
        IntegerOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// How many operands the op takes (1 for `bitwise_not`, else 2).
    pub fn arity(self) -> usize {
        if self == IntegerOp::BitwiseNot {
            1
        } else {
            2
        }
    }

    /// Whether DT_BOOL operands are accepted (the logical ops are; shifts and gcd are not, as torch).
    fn takes_bool(self) -> bool {
        matches!(self, IntegerOp::BitwiseAnd | IntegerOp::BitwiseOr | IntegerOp::BitwiseXor | IntegerOp::BitwiseNot)
    }

    /// `op(a, b)` of two values of `dtype` (`b` unused by `bitwise_not`), before wrapping to it.
    pub fn apply(self, a: i64, b: i64, dtype: DType) -> i64 {
        let bits = dtype.size_in_bytes() as i64 * 8;
        let signed = dtype != DType::U8;
        match self {
            IntegerOp::BitwiseAnd => a & b,
            IntegerOp::BitwiseOr => a | b,
            IntegerOp::BitwiseXor => a ^ b,
            IntegerOp::BitwiseNot if dtype == DType::Bool => i64::from(a == 0),
            IntegerOp::BitwiseNot => !a,
            IntegerOp::LeftShift if !(0..bits).contains(&b) => 0,
            IntegerOp::LeftShift => a.wrapping_shl(b as u32),
            IntegerOp::RightShift => {
                // A signed value keeps its sign bit: shifts past width − 1 give the sign fill.
                let widest = if signed { bits - 1 } else { bits };
                a >> if (0..widest).contains(&b) { b } else { widest.min(63) }
            }
            IntegerOp::Gcd => {
                let (mut x, mut y) = (a.unsigned_abs(), b.unsigned_abs());
                while y != 0 {
                    (x, y) = (y, x % y);
                }
                x as i64
            }
        }
    }
}

impl Tensor {
    /// `op(self, other)` element-wise with numpy broadcasting (`other` is `None` for
    /// `bitwise_not`): the operands' promoted dtype, which must be an integer one (or DT_BOOL for
    /// the logical bitwise ops).
    pub fn integer_op(&self, op: IntegerOp, other: Option<&Tensor>) -> Result<Tensor> {
        let name = op.name();
        let other = other.unwrap_or(self);
        let shape = broadcast_shapes(name, self.shape(), other.shape())?;
        let count = element_count(name, &shape)?;
        let dtype = self.dtype().promote(other.dtype());
        if dtype.is_float() || (dtype == DType::Bool && !op.takes_bool()) {
            return Err(TensorError::BadArgument {
                op: name,
                detail: ArgumentDetail::NeedsInteger { dtype: dtype.pypto_name().into() },
            });
        }
        check_allocation(name, count, dtype)?;
        let (left, right) = (self.storage().to_i64_vec(), other.storage().to_i64_vec());
        let (left_strides, right_strides) =
            (broadcast_strides(self.shape(), &shape), broadcast_strides(other.shape(), &shape));
        let mut out = Vec::with_capacity(count);
        for_each_offset(&shape, [&left_strides, &right_strides], |[i, j]| out.push(op.apply(left[i], right[j], dtype)));
        let valid = combined_valid_shape(&shape, &[self, other]);
        Ok(Tensor::from_storage(Storage::from_i64(out, dtype), &shape)?.with_valid_shape(valid))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_follow_torch_at_the_edges() {
        // int16: 3 << 15 wraps to i16::MIN; a negative or too-wide left shift is 0; a right shift
        // by 15 or more (or a negative amount) is the sign fill.
        let shift = |op: IntegerOp, a: i64, b: i64| Storage::from_i64(vec![op.apply(a, b, DType::I16)], DType::I16);
        assert_eq!(shift(IntegerOp::LeftShift, 3, 15).to_i64_vec(), vec![-32768]);
        assert_eq!(shift(IntegerOp::LeftShift, 3, 16).to_i64_vec(), vec![0]);
        assert_eq!(shift(IntegerOp::LeftShift, 3, -1).to_i64_vec(), vec![0]);
        assert_eq!(shift(IntegerOp::RightShift, -100, 40).to_i64_vec(), vec![-1]);
        assert_eq!(shift(IntegerOp::RightShift, 100, -3).to_i64_vec(), vec![0]);
        assert_eq!(shift(IntegerOp::RightShift, -100, 2).to_i64_vec(), vec![-25]);
        assert_eq!(IntegerOp::RightShift.apply(200, 8, DType::U8), 0);
        assert_eq!(IntegerOp::Gcd.apply(-12, 18, DType::I32), 6);
        assert_eq!(IntegerOp::Gcd.apply(0, 0, DType::I32), 0);
    }
}
