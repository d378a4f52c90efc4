//! `pypto.allclose` and `pypto.assert_allclose`: numpy semantics `|a − d| ≤ atol + rtol·|d|`, with
//! broadcasting in `allclose` and equal shapes (or a 0-d side) in `assert_allclose`, as in numpy;
//! the assertion lists the worst mismatches.

use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::format::format_float;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::tensor::{BinaryOp, DType, Storage, Tensor};

/// Calls `allclose` or `assert_allclose`.
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let (names, default_rtol, default_atol): (&[&str], f64, f64) = if name == "allclose" {
        (&["a", "b", "rtol", "atol"], 1e-5, 1e-8)
    } else {
        (&["actual", "desired", "rtol", "atol"], 1e-7, 0.0)
    };
    let bound = interpreter.bind(&format!("pypto.{name}"), names, arguments, false, span)?;
    let actual = interpreter.comparison_tensor(bound.required(0)?, bound.span_of(0))?;
    let desired = interpreter.comparison_tensor(bound.required(1)?, bound.span_of(1))?;
    let rtol = bound.float(2, Some(default_rtol))?;
    let atol = bound.float(3, Some(default_atol))?;
    // numpy.testing.assert_allclose compares shapes strictly (only a 0-d side broadcasts): a
    // [1, 3] result checked against a [5, 3] reference is a mismatch, not five passing rows.
    // `allclose` broadcasts, as numpy.allclose does.
    if name == "assert_allclose"
        && actual.shape() != desired.shape()
        && !actual.shape().is_empty()
        && !desired.shape().is_empty()
    {
        let message = crate::messages::RuntimeMessage::AllcloseShapes {
            actual: actual.shape().to_vec(),
            desired: desired.shape().to_vec(),
        };
        return Err(interpreter
            .error(ErrorKind::Assertion, "", span)
            .with_message(message)
            .with_help_message(crate::messages::RuntimeMessage::CompareSameShape));
    }
    // Broadcast both sides to a common shape by adding f64 zeros (not needed when the shapes
    // agree: a gradient check of a large tensor compares millions of values, read in place).
    let (a, d) = if actual.shape() == desired.shape() {
        (actual, desired)
    } else {
        let zero_a = Tensor::zeros(desired.shape(), DType::F64).map_err(|e| interpreter.tensor_error(e, span))?;
        let zero_d = Tensor::zeros(actual.shape(), DType::F64).map_err(|e| interpreter.tensor_error(e, span))?;
        let a = actual.binary(BinaryOp::Add, &zero_a).map_err(|e| interpreter.tensor_error(e, span))?;
        let d = desired.binary(BinaryOp::Add, &zero_d).map_err(|e| interpreter.tensor_error(e, span))?;
        (a, d)
    };
    let shape = a.shape().to_vec();
    let count = a.numel();
    let mut mismatches = mismatches(&a.storage(), &d.storage(), rtol, atol);
    if name == "allclose" {
        return Ok(Value::Bool(mismatches.is_empty()));
    }
    if mismatches.is_empty() {
        return Ok(Value::None);
    }
    mismatches.sort_by(|p, q| q.3.partial_cmp(&p.3).unwrap_or(std::cmp::Ordering::Less));
    let worst_abs = mismatches.first().map_or(0.0, |m| m.3);
    let message = crate::messages::RuntimeMessage::AllcloseFailed {
        differ: mismatches.len(),
        count,
        rtol: format_float(rtol),
        atol: format_float(atol),
        largest: format_float(worst_abs),
    };
    let worst: Vec<crate::messages::Mismatch> = mismatches
        .iter()
        .take(5)
        .map(|(flat, x, y, difference)| crate::messages::Mismatch::At {
            index: crate::tensor::unravel_index(*flat, &shape),
            actual: format_float(*x),
            desired: format_float(*y),
            difference: format_float(*difference),
        })
        .collect();
    Err(interpreter
        .error(ErrorKind::Assertion, "", span)
        .with_message(message)
        .with_note_message(crate::messages::RuntimeMessage::WorstMismatches { mismatches: worst }))
}

/// (flat index, actual, desired, |difference|) of every pair not within `atol + rtol·|desired|`,
/// both sides widened to f64 a window at a time (no f64 copy of a whole large tensor).
fn mismatches(actual: &Storage, desired: &Storage, rtol: f64, atol: f64) -> Vec<(usize, f64, f64, f64)> {
    const WINDOW: usize = 4096;
    let mut mismatches = Vec::new();
    let (mut left, mut right) = (vec![0.0; WINDOW], vec![0.0; WINDOW]);
    for start in (0..actual.len()).step_by(WINDOW) {
        let length = WINDOW.min(actual.len() - start);
        actual.f64_range_into(start, &mut left[..length]);
        desired.f64_range_into(start, &mut right[..length]);
        for (offset, (&x, &y)) in left[..length].iter().zip(&right[..length]).enumerate() {
            let close = if x.is_nan() || y.is_nan() {
                false
            } else if x == y {
                true
            } else {
                (x - y).abs() <= atol + rtol * y.abs()
            };
            if !close {
                mismatches.push((start + offset, x, y, (x - y).abs()));
            }
        }
    }
    mismatches
}

impl Interpreter {
    /// A tensor as it is (any dtype: the comparison widens it to f64 a window at a time), or a
    /// number or nested list as an f64 tensor.
    fn comparison_tensor(&self, value: &Value, span: Span) -> Result<Tensor> {
        match value {
            Value::Tensor(object) => Ok(object.get().tensor().clone()),
            other => self.tensor_from_data(other, DType::F64, span),
        }
    }
}
