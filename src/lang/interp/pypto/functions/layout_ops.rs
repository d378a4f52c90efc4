//! `pypto.permute`, `pypto.tril` and `pypto.triu` as pypto's operation docs define them. A permute
//! is done as a sequence of dim swaps (the tile form of a transpose of a computed tile); the
//! triangle mask of `tril`/`triu` depends only on the shape, so in a kernel it is a constant GM
//! tensor and the op is a select.

use super::indices::{step, var_of};
use crate::autograd::Var;
use crate::error::TensorError;
use crate::lang::interp::error::Result;
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::pypto::capture::{Arg, CapturedOp};
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::messages::ArgumentDetail;
use crate::tensor::{normalize_dim, Storage, Tensor};
use crate::tile::VectorOp;

/// The names this file binds.
pub(super) const NAMES: [&str; 3] = ["permute", "tril", "triu"];

/// Calls `pypto.name` for one of `NAMES`.
pub(super) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("pypto.{name}");
    if name == "permute" {
        let bound = interpreter.bind(&full, &["input", "perm"], arguments, false, span)?;
        let input = bound.tensor(0)?;
        let rank = input.shape().len();
        bound.required(1)?;
        let dims = bound.dims(1)?.unwrap_or_default();
        let order = dims
            .iter()
            .map(|&dim| normalize_dim("permute", dim, rank))
            .collect::<std::result::Result<Vec<usize>, TensorError>>()
            .map_err(|error| interpreter.tensor_error(error, bound.span_of(1)))?;
        let mut seen = vec![false; rank];
        if order.len() != rank || order.iter().any(|&dim| std::mem::replace(&mut seen[dim], true)) {
            let detail = ArgumentDetail::NotAPermutation { order, rank };
            return Err(interpreter.tensor_error(TensorError::BadArgument { op: "permute", detail }, bound.span_of(1)));
        }
        return permute(interpreter, input, &order, span);
    }
    let bound = interpreter.bind(&full, &["input", "diagonal"], arguments, false, span)?;
    let (input, diagonal) = (bound.tensor(0)?, bound.int(1, Some(0))?);
    triangle(interpreter, if name == "tril" { "tril" } else { "triu" }, &input, diagonal, span)
}

/// `input` with its dims in `order` (dim `i` of the result is dim `order[i]`): one swap per dim
/// not yet in place, each captured as a transpose.
fn permute(interpreter: &Interpreter, input: Var, order: &[usize], span: Span) -> Result<Value> {
    let mut current: Vec<usize> = (0..order.len()).collect();
    if current == order {
        // pypto returns the input itself; a copy captured as a reshape keeps the result a new value.
        let copy = interpreter.autograd_result(input.reshape(input.shape()), span)?;
        return Ok(step(interpreter, copy, || CapturedOp::Reshape { x: Arg::var_ref(&input) }));
    }
    let mut value = Value::None;
    let mut var = input;
    for position in 0..order.len() {
        if current[position] == order[position] {
            continue;
        }
        let from = (position..order.len()).find(|&dim| current[dim] == order[position]).unwrap_or(position);
        current.swap(position, from);
        let swapped = interpreter.autograd_result(var.transpose(position as isize, from as isize), span)?;
        let source = var.clone();
        value = step(interpreter, swapped, || CapturedOp::transpose(source.tensor(), position as i64, from as i64));
        var = var_of(&value);
    }
    Ok(value)
}

/// `tril`/`triu(input, diagonal=0)`: the elements of the last two dims on and below (above) the
/// `diagonal`-th diagonal, 0 elsewhere (`col − row ≤ diagonal` for tril, `≥` for triu).
fn triangle(interpreter: &Interpreter, name: &'static str, input: &Var, diagonal: i64, span: Span) -> Result<Value> {
    let rank = input.shape().len();
    if rank < 2 {
        let error = TensorError::BadDim { op: name, dim: -2, rank };
        return Err(interpreter.tensor_error(error, span));
    }
    let (rows, columns) = (input.shape()[rank - 2], input.shape()[rank - 1]);
    let keep = (0..rows * columns)
        .map(|flat| {
            let offset = (flat % columns) as i64 - (flat / columns) as i64;
            if name == "tril" {
                offset <= diagonal
            } else {
                offset >= diagonal
            }
        })
        .collect();
    let mask = Tensor::from_storage(Storage::Bool(keep), &[rows, columns])
        .map_err(|error| interpreter.tensor_error(error, span))?;
    let mask = step(interpreter, Var::constant(mask), || CapturedOp::Constant { op: name });
    let mask = var_of(&mask);
    let zero =
        Var::constant(Tensor::full(&[], 0.0, input.dtype()).map_err(|error| interpreter.tensor_error(error, span))?);
    let result = interpreter.autograd_result(Var::select(&mask, input, &zero), span)?;
    Ok(step(interpreter, result, || CapturedOp::Vector {
        op: VectorOp::Select,
        args: vec![Arg::var(&mask), Arg::var(input), Arg::Number(0.0)],
    }))
}

/// `pypto.view(input, dtype=…)`: the bytes of `input` read as `dtype`, the last dim (and its valid
/// size) scaled by the ratio of the element sizes. A kernel runs it on the CPU for now.
pub(super) fn view_as_dtype(
    interpreter: &Interpreter,
    x: &Var,
    dtype: crate::tensor::DType,
    span: Span,
) -> Result<Value> {
    let (from, to) = (x.dtype().size_in_bytes(), dtype.size_in_bytes());
    let Some(viewed) = x.tensor().bitcast(dtype) else {
        let message = crate::messages::LibraryTorchMessage::ViewDtypeSize {
            from: x.dtype().pypto_name().into(),
            to: dtype.pypto_name().into(),
            shape: x.shape().to_vec(),
        };
        return Err(interpreter.error(crate::lang::interp::error::ErrorKind::Value, "", span).with_message(message));
    };
    let valid = x.tensor().valid_shape().map(|valid| {
        let mut valid = valid.to_vec();
        if let Some(last) = valid.last_mut() {
            *last = *last * from / to;
        }
        valid
    });
    let result = crate::lang::interp::value::TensorObject::value(Var::constant(viewed.with_valid_shape(valid)));
    interpreter.capture(Some(&result), || super::indices::no_tile_form("view(dtype)"));
    Ok(result)
}
