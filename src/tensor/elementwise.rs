//! Element-wise ops: one fieldless enum per arity (the unary one in `unary.rs`), numpy broadcasting,
//! f32 compute (f64 for the reference dtype; exact i64 for integers), results rounded to the output
//! dtype.

use serde::{Deserialize, Serialize};

use super::dtype::DType;
use super::handle::Tensor;
use super::integer::{integer_binary, integer_unary};
use super::real::Real;
use super::reuse;
use super::shape::{broadcast_shapes, broadcast_strides, element_count, for_each_offset};
use super::simd;
use super::storage::{check_allocation, Storage};
use super::strided::coalesce;
pub use super::unary::{sigmoid, UnaryOp};
use crate::error::Result;

/// Ops of two broadcast inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`
    Div,
    /// `a ** b`
    Pow,
    /// larger of the two (NaN propagates)
    Maximum,
    /// smaller of the two (NaN propagates)
    Minimum,
    /// `a // b`: numpy's `floor_divide` (the floor of the quotient; `x // 0` is ±inf or NaN)
    FloorDivide,
    /// `a % b`: numpy's `remainder` (the sign of the divisor; `x % 0` is NaN)
    Remainder,
}

impl BinaryOp {
    /// Every binary op, in declaration order.
    pub const ALL: [BinaryOp; 9] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Pow,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::FloorDivide,
        BinaryOp::Remainder,
    ];

    /// The op with this pypto name (`add`, `maximum` …).
    pub fn from_name(name: &str) -> Option<BinaryOp> {
        BinaryOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// The pypto name of the op.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Pow => "pow",
            BinaryOp::Maximum => "maximum",
            BinaryOp::Minimum => "minimum",
            BinaryOp::FloorDivide => "floor_divide",
            BinaryOp::Remainder => "remainder",
        }
    }

    /// Applies the op to one pair.
    pub fn apply<T: Real>(self, a: T, b: T) -> T {
        match self {
            BinaryOp::Add => a + b,
            BinaryOp::Sub => a - b,
            BinaryOp::Mul => a * b,
            BinaryOp::Div => a / b,
            BinaryOp::Pow => a.powf(b),
            BinaryOp::Maximum => {
                if a.is_nan() || b.is_nan() {
                    T::nan()
                } else {
                    a.max(b)
                }
            }
            BinaryOp::Minimum => {
                if a.is_nan() || b.is_nan() {
                    T::nan()
                } else {
                    a.min(b)
                }
            }
            BinaryOp::FloorDivide => super::floor_division::floor_divide(a, b),
            BinaryOp::Remainder => super::floor_division::remainder(a, b),
        }
    }
}

impl Tensor {
    /// Applies a unary op to every element; keeps the valid shape, and the dtype except that an
    /// integer input of an op that does not keep integers (`exp`, `sin` …) gives f32, as torch.
    pub fn unary(&self, op: UnaryOp) -> Result<Tensor> {
        let dtype = self.dtype();
        let storage = match dtype {
            DType::F64 => Storage::F64(self.to_f64_vec().into_iter().map(|x| op.apply(x)).collect()),
            _ if !dtype.is_float() && op.keeps_integers() => integer_unary(op, self)?,
            DType::F32 => match &*self.storage() {
                Storage::F32(values) => Storage::F32(simd::unary_to_vec(op, values)),
                _ => unreachable!("an f32 tensor stores f32"),
            },
            _ => {
                let mut values = self.to_f32_vec();
                simd::unary_in_place(op, &mut values);
                Storage::from_f32(values, if dtype.is_float() { dtype } else { DType::F32 })
            }
        };
        Ok(Tensor::from_storage(storage, self.shape())?.with_valid_shape(self.valid_shape().map(<[usize]>::to_vec)))
    }

    /// Applies a binary op with numpy broadcasting; the result has the promoted dtype.
    pub fn binary(&self, op: BinaryOp, other: &Tensor) -> Result<Tensor> {
        let name = op.name();
        let shape = broadcast_shapes(name, self.shape(), other.shape())?;
        let count = element_count(name, &shape)?;
        let promoted = self.dtype().promote(other.dtype());
        // True division of integers is a float, as torch: f32.
        let dtype = if op == BinaryOp::Div && !promoted.is_float() { DType::F32 } else { promoted };
        check_allocation(name, count, dtype)?;
        let storage = if !dtype.is_float() {
            integer_binary(op, self, other, &shape, dtype)?
        } else if dtype == DType::F64 {
            Storage::F64(broadcast_map(&shape, self, other, &self.to_f64_vec(), &other.to_f64_vec(), |a, b| {
                op.apply(a, b)
            }))
        } else if let (Storage::F32(left), Storage::F32(right), true) =
            (&*self.storage(), &*other.storage(), self.shape() == other.shape())
        {
            // Both f32 and the same shape: read the buffers in place, write the result once.
            Storage::F32(simd::binary_to_vec(op, left, right))
        } else {
            // f32 buffers are read in place; other dtypes widen into a copy.
            let (left_storage, right_storage) = (self.storage(), other.storage());
            let (left, right) = (f32_values(&left_storage), f32_values(&right_storage));
            let values = if self.shape() == other.shape() {
                let mut out = vec![0.0; count];
                simd::binary(op, &left, &right, &mut out);
                out
            } else if other.numel() == 1 {
                match left {
                    std::borrow::Cow::Borrowed(values) => simd::binary_scalar_to_vec(op, values, right[0]),
                    std::borrow::Cow::Owned(mut values) => {
                        simd::binary_scalar(op, &mut values, right[0]);
                        values
                    }
                }
            } else if self.numel() == 1 && other.shape() == shape.as_slice() && reuse::has_scalar_first_form(op) {
                match right {
                    std::borrow::Cow::Borrowed(values) => reuse::scalar_first_to_vec(op, left[0], values),
                    std::borrow::Cow::Owned(mut values) => {
                        reuse::scalar_first_in_place(op, left[0], &mut values);
                        values
                    }
                }
            } else {
                broadcast_f32(&shape, self, other, &left, &right, op)
            };
            Storage::from_f32(values, dtype)
        };
        let valid = combined_valid_shape(&shape, &[self, other]);
        Ok(Tensor::from_storage(storage, &shape)?.with_valid_shape(valid))
    }
}

/// The values of a storage as f32: borrowed when they are f32, else widened.
fn f32_values(storage: &Storage) -> std::borrow::Cow<'_, [f32]> {
    match storage {
        Storage::F32(values) => std::borrow::Cow::Borrowed(values),
        other => std::borrow::Cow::Owned(other.to_f32_vec()),
    }
}

fn broadcast_map<T: Real>(
    shape: &[usize],
    a: &Tensor,
    b: &Tensor,
    left: &[T],
    right: &[T],
    f: impl Fn(T, T) -> T,
) -> Vec<T> {
    let mut out = Vec::with_capacity(shape.iter().product());
    if shape.contains(&0) {
        return out;
    }
    let (left_strides, right_strides) = (broadcast_strides(a.shape(), shape), broadcast_strides(b.shape(), shape));
    // Whole runs of the innermost (merged) dim at a time, so a row broadcast against a column
    // is a tight loop per row rather than an index walk per element.
    let (shape, left_strides, right_strides) = coalesce(shape, &left_strides, &right_strides);
    let Some((&count, outer)) = shape.split_last() else {
        out.push(f(left[0], right[0]));
        return out;
    };
    let inner = shape.len() - 1;
    let (left_step, right_step) = (left_strides[inner], right_strides[inner]);
    for_each_offset(outer, [&left_strides[..inner], &right_strides[..inner]], |[i, j]| match (left_step, right_step) {
        (1, 1) => out.extend(left[i..i + count].iter().zip(&right[j..j + count]).map(|(&x, &y)| f(x, y))),
        (1, 0) => out.extend(left[i..i + count].iter().map(|&x| f(x, right[j]))),
        (0, 1) => out.extend(right[j..j + count].iter().map(|&y| f(left[i], y))),
        _ => out.extend((0..count).map(|index| f(left[i + index * left_step], right[j + index * right_step]))),
    });
    out
}

/// [`broadcast_map`] of f32 operands with whole runs through the SIMD kernels: a run of one
/// operand against a value of the other is a scalar op, or the value spread along the run.
fn broadcast_f32(shape: &[usize], a: &Tensor, b: &Tensor, left: &[f32], right: &[f32], op: BinaryOp) -> Vec<f32> {
    /// Runs shorter than this go element by element (a kernel call per run would cost more).
    const SHORTEST_RUN: usize = 16;
    /// Elements of a spread value per kernel call.
    const SPREAD_BLOCK: usize = 2048;
    let (left_strides, right_strides) = (broadcast_strides(a.shape(), shape), broadcast_strides(b.shape(), shape));
    let (merged, left_strides, right_strides) = coalesce(shape, &left_strides, &right_strides);
    let Some((&count, outer)) = merged.split_last().filter(|(&count, _)| count >= SHORTEST_RUN) else {
        return broadcast_map(shape, a, b, left, right, |x, y| op.apply(x, y));
    };
    let mut out = Vec::with_capacity(shape.iter().product());
    let inner = merged.len() - 1;
    let mut spread = Vec::new();
    for_each_offset(outer, [&left_strides[..inner], &right_strides[..inner]], |[i, j]| {
        let start = out.len();
        match (left_strides[inner], right_strides[inner]) {
            (1, 1) => {
                out.resize(start + count, 0.0);
                simd::binary(op, &left[i..i + count], &right[j..j + count], &mut out[start..]);
            }
            (1, 0) => simd::binary_scalar_extend(op, &mut out, &left[i..i + count], right[j]),
            (0, 1) => {
                // The value spread over one block at a time (it stays in the L1 cache).
                spread.clear();
                spread.resize(count.min(SPREAD_BLOCK), left[i]);
                out.resize(start + count, 0.0);
                for (results, operands) in
                    out[start..].chunks_mut(SPREAD_BLOCK).zip(right[j..j + count].chunks(SPREAD_BLOCK))
                {
                    simd::binary(op, &spread[..operands.len()], operands, results);
                }
            }
            (left_step, right_step) => {
                out.extend((0..count).map(|index| op.apply(left[i + index * left_step], right[j + index * right_step])))
            }
        }
    });
    out
}

/// The valid region of a broadcast result: per dim, the smallest valid extent of the operands that
/// span that dim (an operand broadcast along a dim does not limit it).
pub(crate) fn combined_valid_shape(shape: &[usize], operands: &[&Tensor]) -> Option<Vec<usize>> {
    if operands.iter().all(|t| t.valid_shape().is_none()) {
        return None;
    }
    let mut valid = shape.to_vec();
    for operand in operands {
        let Some(own) = operand.valid_shape() else { continue };
        let offset = shape.len() - own.len();
        for (axis, &extent) in own.iter().enumerate() {
            if operand.shape()[axis] != 1 {
                valid[axis + offset] = valid[axis + offset].min(extent);
            }
        }
    }
    Some(valid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(values: &[f32], shape: &[usize]) -> Tensor {
        Tensor::from_f32(values.to_vec(), shape, DType::F32).unwrap()
    }

    #[test]
    fn broadcast_add_matches_hand_computation() {
        // [[1],[2]] + [10, 20, 30] = [[11, 21, 31], [12, 22, 32]]
        let sum = tensor(&[1.0, 2.0], &[2, 1]).binary(BinaryOp::Add, &tensor(&[10.0, 20.0, 30.0], &[3])).unwrap();
        assert_eq!(sum.shape(), &[2, 3]);
        assert_eq!(sum.to_f32_vec(), vec![11.0, 21.0, 31.0, 12.0, 22.0, 32.0]);
    }

    #[test]
    fn every_broadcast_layout_matches_an_index_loop() {
        // a[i, j, k] = 100·i + 10·j + k over odd sizes; each case's operand shapes broadcast to
        // [3, 5, 7] along different dims (rows, columns, scalars, the middle dim, lower rank).
        let values = |shape: &[usize]| -> Vec<f32> {
            let (rows, middle, columns) = (shape[0], shape[1], shape[2]);
            let mut out = Vec::new();
            for i in 0..rows {
                for j in 0..middle {
                    for k in 0..columns {
                        out.push((100 * i + 10 * j + k) as f32);
                    }
                }
            }
            out
        };
        // Each layout twice: with runs of 7 (element by element) and of 37 (through the kernels).
        let cases = |columns: usize| -> [([usize; 3], [usize; 3]); 6] {
            [
                ([3, 5, columns], [1, 1, columns]),
                ([3, 5, 1], [1, 1, columns]),
                ([1, 5, columns], [3, 1, columns]),
                ([3, 1, columns], [1, 5, 1]),
                ([1, 1, 1], [3, 5, columns]),
                ([3, 5, columns], [3, 5, 1]),
            ]
        };
        for (left_shape, right_shape) in cases(7).into_iter().chain(cases(37)) {
            let columns = left_shape[2].max(right_shape[2]);
            let (left, right) = (values(&left_shape), values(&right_shape));
            let result = tensor(&left, &left_shape).binary(BinaryOp::Sub, &tensor(&right, &right_shape)).unwrap();
            assert_eq!(result.shape(), &[3, 5, columns]);
            let at = |data: &[f32], shape: &[usize; 3], index: [usize; 3]| {
                let pick = |axis: usize| if shape[axis] == 1 { 0 } else { index[axis] };
                data[(pick(0) * shape[1] + pick(1)) * shape[2] + pick(2)]
            };
            let mut wanted = Vec::new();
            for i in 0..3 {
                for j in 0..5 {
                    for k in 0..columns {
                        wanted.push(at(&left, &left_shape, [i, j, k]) - at(&right, &right_shape, [i, j, k]));
                    }
                }
            }
            assert_eq!(result.to_f32_vec(), wanted, "{left_shape:?} - {right_shape:?}");
        }
        // Lower rank on the right: [2, 3] + [3].
        let sum =
            tensor(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).binary(BinaryOp::Add, &tensor(&[10.0, 20.0, 30.0], &[3]));
        assert_eq!(sum.unwrap().to_f32_vec(), vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    }

    #[test]
    fn narrow_results_are_rounded_to_the_dtype() {
        // In bf16, 1 + 2^-9 rounds back to 1.
        let one = Tensor::ones(&[1], DType::Bf16).unwrap();
        let tiny = Tensor::full(&[1], 2f64.powi(-9), DType::Bf16).unwrap();
        assert_eq!(one.binary(BinaryOp::Add, &tiny).unwrap().to_f32_vec(), vec![1.0]);
        assert_eq!(one.binary(BinaryOp::Add, &tiny).unwrap().dtype(), DType::Bf16);
    }

    #[test]
    fn valid_shape_survives_elementwise_and_broadcast() {
        let tile = Tensor::zeros(&[4, 8], DType::F32).unwrap().with_valid_shape(Some(vec![3, 8]));
        let row = Tensor::ones(&[1, 8], DType::F32).unwrap();
        assert_eq!(tile.binary(BinaryOp::Mul, &row).unwrap().valid_shape(), Some(&[3, 8][..]));
        assert_eq!(tile.unary(UnaryOp::Exp).unwrap().valid_shape(), Some(&[3, 8][..]));
    }
}
