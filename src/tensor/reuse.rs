//! Element-wise ops that write their result into an operand's buffer when the caller gives up the
//! only handle onto it (the temporary of an expression: in `dy * s * (1 + x * (1 - s))` only
//! `1 - s` needs a new buffer; in `(x - mean) * rstd` with mean and rstd of shape [N, 1] only
//! `x - mean` does), and the scalar-first forms (`1 - s`, `2 * x`) without a broadcast.
//! Every result has the bits [`Tensor::binary`] would give.

use super::dtype::DType;
use super::elementwise::{combined_valid_shape, BinaryOp, UnaryOp};
use super::handle::Tensor;
use super::shape::{broadcast_shapes, broadcast_strides, contiguous_strides, for_each_offset};
use super::simd;
use super::storage::Storage;
use super::strided::coalesce;
use crate::error::Result;

/// Whether `scalar op values[i]` has a form without a broadcast: + and × commute, and
/// `s − v` is `(−v) + s` exactly (IEEE subtraction is the addition of the negation).
pub(super) fn has_scalar_first_form(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul)
}

/// `values[i] = scalar op values[i]` for an op of [`has_scalar_first_form`].
pub(super) fn scalar_first_in_place(op: BinaryOp, scalar: f32, values: &mut [f32]) {
    if op == BinaryOp::Sub {
        simd::binary_scalar(BinaryOp::Mul, values, -1.0);
        simd::binary_scalar(BinaryOp::Add, values, scalar);
    } else {
        simd::binary_scalar(op, values, scalar);
    }
}

/// `scalar op values[i]` into a new vector, for an op of [`has_scalar_first_form`].
pub(super) fn scalar_first_to_vec(op: BinaryOp, scalar: f32, values: &[f32]) -> Vec<f32> {
    if op == BinaryOp::Sub {
        let mut out = simd::binary_scalar_to_vec(BinaryOp::Mul, values, -1.0);
        simd::binary_scalar(BinaryOp::Add, &mut out, scalar);
        out
    } else {
        simd::binary_scalar_to_vec(op, values, scalar)
    }
}

/// `values[i] = values[i] op other[j]`, `values` of the broadcast `shape` and `other` (of
/// `other_shape`) broadcast to it: run by run along the merged last dim, a run against a run of
/// `other` or against one of its values (the kernels of `Tensor::binary`'s broadcast: same bits).
fn broadcast_assign(op: BinaryOp, shape: &[usize], values: &mut [f32], other_shape: &[usize], other: &[f32]) {
    let (own_strides, other_strides) = (contiguous_strides(shape), broadcast_strides(other_shape, shape));
    let (merged, own_strides, other_strides) = coalesce(shape, &own_strides, &other_strides);
    let Some((&count, outer)) = merged.split_last() else {
        // Every dim 1: one element (the same-shape and one-value cases of the caller take it first).
        values[0] = op.apply(values[0], other[0]);
        return;
    };
    let inner = merged.len() - 1;
    // Along the merged last dim (never of extent 1) the buffer of `shape` is contiguous, and the
    // other operand either too or broadcast: the strides there are 1, and 1 or 0.
    debug_assert!(own_strides[inner] == 1 && other_strides[inner] <= 1);
    for_each_offset(outer, [&own_strides[..inner], &other_strides[..inner]], |[i, j]| {
        let run = &mut values[i..i + count];
        if other_strides[inner] == 0 {
            simd::binary_scalar(op, run, other[j]);
        } else {
            simd::binary_assign(op, run, &other[j..j + count]);
        }
    });
}

/// The f32 values of a sole handle's storage (the caller checked both).
fn take_values(tensor: Tensor) -> Vec<f32> {
    match tensor.into_sole_storage() {
        Ok(Storage::F32(values)) => values,
        _ => unreachable!("the caller checked an f32 tensor with no other handle"),
    }
}

/// The only f32 value of a one-element tensor.
fn only_value(tensor: &Tensor) -> f32 {
    match &*tensor.storage() {
        Storage::F32(values) => values[0],
        _ => unreachable!("the caller checked an f32 tensor"),
    }
}

impl Tensor {
    /// `self op other`, as [`Tensor::binary`], for a caller that gives up both handles. For + − × ÷
    /// of f32 tensors, when one operand is the only handle onto a buffer of the result's shape
    /// (the other of the same shape, one value or broadcast), the result is written into that
    /// buffer (it becomes a new tensor, with a buffer id of its own); otherwise this is `binary`.
    pub fn binary_owned(self, op: BinaryOp, other: Tensor) -> Result<Tensor> {
        let arithmetic = matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div);
        if !arithmetic || self.dtype() != DType::F32 || other.dtype() != DType::F32 {
            return self.binary(op, &other);
        }
        let shape = broadcast_shapes(op.name(), self.shape(), other.shape())?;
        let valid = combined_valid_shape(&shape, &[&self, &other]);
        let fills = |tensor: &Tensor| tensor.shape() == shape.as_slice();
        let commutes = matches!(op, BinaryOp::Add | BinaryOp::Mul);
        // A sole operand of the result's shape takes the result, the left one first, the right
        // one for + and × (they commute). The other operand is read in place: of the same shape,
        // one value, or broadcast (`h + b` with b of shape [1, N], `x - mean` with mean [N, 1]).
        let left_takes = fills(&self) && self.is_sole_handle();
        let right_takes = !left_takes && commutes && fills(&other) && other.is_sole_handle();
        let values = if left_takes || right_takes {
            let (owned, read) = if left_takes { (self, other) } else { (other, self) };
            let mut values = take_values(owned);
            match &*read.storage() {
                Storage::F32(right) if read.shape() == shape.as_slice() => simd::binary_assign(op, &mut values, right),
                Storage::F32(right) if right.len() == 1 => simd::binary_scalar(op, &mut values, right[0]),
                Storage::F32(right) => broadcast_assign(op, &shape, &mut values, read.shape(), right),
                _ => unreachable!("checked f32 above"),
            }
            values
        } else if fills(&other) && other.is_sole_handle() && self.numel() == 1 && has_scalar_first_form(op) {
            let scalar = only_value(&self);
            let mut values = take_values(other);
            scalar_first_in_place(op, scalar, &mut values);
            values
        } else {
            return self.binary(op, &other);
        };
        Ok(Tensor::from_storage(Storage::F32(values), &shape)?.with_valid_shape(valid))
    }

    /// `op(self)`, as [`Tensor::unary`], for a caller that gives up its handle: an f32 tensor that
    /// is the only handle onto its buffer gets the result written into it (`pypto.sin(x * 0.37)`
    /// allocates, and in a browser first touches, no second buffer). Same bits as `unary`.
    pub fn unary_owned(self, op: UnaryOp) -> Result<Tensor> {
        if self.dtype() != DType::F32 || !self.is_sole_handle() {
            return self.unary(op);
        }
        let (shape, valid) = (self.shape().to_vec(), self.valid_shape().map(<[usize]>::to_vec));
        let mut values = take_values(self);
        simd::unary_in_place(op, &mut values);
        Ok(Tensor::from_storage(Storage::F32(values), &shape)?.with_valid_shape(valid))
    }
}

#[cfg(test)]
#[path = "reuse_tests.rs"]
mod tests;
