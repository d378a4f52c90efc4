//! Element-wise ops that write their result into an operand's buffer when the caller gives up the
//! only handle onto it (the temporary of an expression: in `dy * s * (1 + x * (1 - s))` only
//! `1 - s` needs a new buffer), and the scalar-first forms (`1 - s`, `2 * x`) without a broadcast.
//! Every result has the bits [`Tensor::binary`] would give.

use super::dtype::DType;
use super::elementwise::{combined_valid_shape, BinaryOp};
use super::handle::Tensor;
use super::shape::broadcast_shapes;
use super::simd;
use super::storage::Storage;
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
    /// of f32 tensors, when one operand is the only handle onto a buffer of the result's shape,
    /// the result is written into that buffer (it becomes a new tensor, with a buffer id of its
    /// own); otherwise this is `binary`.
    pub fn binary_owned(self, op: BinaryOp, other: Tensor) -> Result<Tensor> {
        let arithmetic = matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div);
        if !arithmetic || self.dtype() != DType::F32 || other.dtype() != DType::F32 {
            return self.binary(op, &other);
        }
        let shape = broadcast_shapes(op.name(), self.shape(), other.shape())?;
        let valid = combined_valid_shape(&shape, &[&self, &other]);
        let fills = |tensor: &Tensor| tensor.shape() == shape.as_slice();
        let commutes = matches!(op, BinaryOp::Add | BinaryOp::Mul);
        let values = if fills(&self) && self.is_sole_handle() && (fills(&other) || other.numel() == 1) {
            let mut values = take_values(self);
            match &*other.storage() {
                Storage::F32(right) if right.len() == values.len() => simd::binary_assign(op, &mut values, right),
                Storage::F32(right) => simd::binary_scalar(op, &mut values, right[0]),
                _ => unreachable!("checked f32 above"),
            }
            values
        } else if fills(&other) && other.is_sole_handle() && fills(&self) && commutes {
            let mut values = take_values(other);
            match &*self.storage() {
                Storage::F32(left) => simd::binary_assign(op, &mut values, left),
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
}

#[cfg(test)]
#[path = "reuse_tests.rs"]
mod tests;
