//! Arithmetic on the temporaries of an expression. In `dy * s * (1 + x * (1 - s))` every product
//! and sum but `1 - s` can be written into the buffer of an operand no one else holds: the
//! evaluator gives its operand values up, and a tensor whose value object and buffer have no other
//! holder (not a variable, a list item, a view, a value saved for backward or kept by a kernel's
//! capture) lends its buffer to the result. On arrays of millions of values that is one buffer
//! allocated (and, in a browser, first touched) instead of one per operator.

use std::rc::Rc;

use super::capture::CapturedOp;
use super::tensor_ops::{elementwise_op, operand_dtype};
use crate::autograd::Var;
use crate::lang::interp::error::Result;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::ast::BinaryOp;
use crate::lang::syntax::Span;
use crate::tensor::{BinaryOp as TensorBinary, DType, Tensor};

/// The tensor op of an arithmetic operator that can write into an operand: + − × ÷.
fn arithmetic(op: BinaryOp) -> Option<TensorBinary> {
    match op {
        BinaryOp::Add | BinaryOp::Subtract | BinaryOp::Multiply | BinaryOp::Divide => elementwise_op(op),
        _ => None,
    }
}

/// Whether `value` is a tensor whose value object only the caller holds.
fn sole_tensor(value: &Value) -> bool {
    matches!(value, Value::Tensor(object) if Rc::strong_count(object) == 1)
}

impl Interpreter {
    /// `left op right` for operands the caller gives up (the evaluator's temporaries): the same
    /// value as [`Interpreter::binary`], computed in an operand's buffer where it can be.
    pub(crate) fn binary_owned(&self, op: BinaryOp, left: Value, right: Value, span: Span) -> Result<Value> {
        let Some(tensor_op) = arithmetic(op).filter(|_| sole_tensor(&left) || sole_tensor(&right)) else {
            return self.binary(op, &left, &right, span);
        };
        let dtype = operand_dtype(&left, &right);
        let torch = [&left, &right].iter().any(|value| matches!(value, Value::Tensor(object) if object.torch.get()));
        let device = [&left, &right].iter().find_map(|value| match value {
            Value::Tensor(object) => object.device.get(),
            _ => None,
        });
        let captured = self.in_kernel().then(|| CapturedOp::binary(tensor_op, &left, &right));
        let a = self.owned_operand(left, dtype, span)?;
        let b = self.owned_operand(right, dtype, span)?;
        let value = self.tensor_result(a.binary_owned(tensor_op, b), span)?;
        self.charge_result(&value, span)?;
        if let Some(captured) = captured {
            self.capture(Some(&value), || captured);
        }
        if torch {
            TensorObject::mark_torch(&value);
        }
        if let Some(device) = device {
            crate::lang::interp::torch::device::place(&value, device);
        }
        Ok(value)
    }

    /// The operand of a value the caller gives up: the value object's own `Var` when no one else
    /// holds the object (a placeholder takes its place in the object, which is dropped next),
    /// a copy of the handle otherwise.
    pub(crate) fn owned_operand(&self, mut value: Value, dtype: DType, span: Span) -> Result<Var> {
        if let Value::Tensor(object) = &mut value {
            return Ok(match Rc::get_mut(object) {
                Some(object) => std::mem::replace(object.var.get_mut(), Var::constant(Tensor::scalar(0.0, DType::F32))),
                None => object.get(),
            });
        }
        self.operand(&value, dtype, span)
    }
}

#[cfg(test)]
#[path = "tensor_ops_owned_tests.rs"]
mod tests;
