//! The `pypto` operations that add a dim or work with indices, as pypto's operation docs define
//! them: `unsqueeze`, `index_select`, `argmax`, `argmin`, `one_hot` and `scatter_update`. Each is
//! built from ops TileLab has (reshape, broadcast copy, gather, scatter, topk, compare, cast), so
//! its gradient is theirs, and inside a kernel each step is captured as the tile op it is.

use super::super::capture::{Arg, CapturedOp, TensorRef};
use crate::autograd::Var;
use crate::error::TensorError;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{
    ArgumentDetail, BoundsDetail, CompilerReason, LibraryKernelMessage, LibraryMessage, ShapeDetail,
};
use crate::tensor::{normalize_dim, CompareOp, DType, Tensor};
use crate::tile::VectorOp;

/// The names this file binds.
pub(super) const NAMES: [&str; 6] = ["unsqueeze", "index_select", "argmax", "argmin", "one_hot", "scatter_update"];

/// Calls `pypto.name` for one of `NAMES`.
pub(super) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("pypto.{name}");
    match name {
        "unsqueeze" => {
            let bound = interpreter.bind(&full, &["input", "dim"], arguments, false, span)?;
            let (input, dim) = (bound.tensor(0)?, bound.int(1, None)?);
            // The new dim may go anywhere in [-rank - 1, rank], as pypto's doc says.
            let axis = normalize_dim("unsqueeze", dim as isize, input.shape().len() + 1)
                .map_err(|error| interpreter.tensor_error(error, bound.span_of(1)))?;
            let mut shape = input.shape().to_vec();
            shape.insert(axis, 1);
            let result = interpreter.tensor_result(input.reshape(&shape), span)?;
            interpreter.capture(Some(&result), || CapturedOp::Reshape { x: TensorRef::of(input.tensor()) });
            Ok(result)
        }
        "index_select" => {
            let bound = interpreter.bind(&full, &["input", "dim", "index"], arguments, false, span)?;
            let (input, dim, index) = (bound.tensor(0)?, bound.int(1, None)?, bound.tensor(2)?);
            index_select(interpreter, &input, dim, &index, span)
        }
        "argmax" | "argmin" => {
            let bound = interpreter.bind(&full, &["input", "dim", "keepdim"], arguments, false, span)?;
            let (input, dim, keepdim) = (bound.tensor(0)?, bound.int(1, None)?, bound.flag(2, false)?);
            let op = if name == "argmax" { "argmax" } else { "argmin" };
            arg_extreme(interpreter, (op, true), &input, dim, keepdim, span)
        }
        "one_hot" => {
            let bound = interpreter.bind(&full, &["input", "num_classes"], arguments, false, span)?;
            let (input, classes) = (bound.tensor(0)?, bound.int(1, None)?);
            let classes = usize::try_from(classes).ok().filter(|&classes| classes > 0).ok_or_else(|| {
                let message = LibraryKernelMessage::MustBePositive {
                    function: full.clone(),
                    parameter: "num_classes".into(),
                    got: Some(classes),
                };
                interpreter.error(ErrorKind::Value, "", bound.span_of(1)).with_message(message)
            })?;
            one_hot(interpreter, &input, classes, span)
        }
        _ => super::indices_update::scatter_update(interpreter, &full, arguments, span),
    }
}

/// Captures `make` for `result` (a step of a composite op) and returns it as a value.
pub(super) fn step(interpreter: &Interpreter, result: Var, make: impl FnOnce() -> CapturedOp) -> Value {
    let value = TensorObject::value(result);
    interpreter.capture(Some(&value), make);
    value
}

/// The tensor of a value made by `step`.
pub(super) fn var_of(value: &Value) -> Var {
    match value {
        Value::Tensor(object) => object.get(),
        _ => unreachable!("step returns a tensor"),
    }
}

/// `index` (DT_INT32 or DT_INT64) broadcast to `shape` along `axis`: reshaped to `[1…, I, …1]`
/// and copied to every position of the other dims (a gather/scatter index of the result's shape).
pub(super) fn spread_index(
    interpreter: &Interpreter,
    index: &Var,
    axis: usize,
    shape: &[usize],
    span: Span,
) -> Result<Value> {
    let mut line = vec![1; shape.len()];
    line[axis] = index.shape().iter().product();
    let lined = interpreter.autograd_result(index.reshape(&line), span)?;
    let lined = step(interpreter, lined, || CapturedOp::Reshape { x: TensorRef::of(index.tensor()) });
    let zeros = Tensor::full(shape, 0.0, index.dtype()).map_err(|error| interpreter.tensor_error(error, span))?;
    let spread = interpreter.autograd_result(var_of(&lined).add(&Var::constant(zeros)), span)?;
    let source = var_of(&lined);
    Ok(step(interpreter, spread, || CapturedOp::Vector { op: VectorOp::Expand, args: vec![Arg::var(&source)] }))
}

/// `index_select(input, dim, index)`: `input` indexed along `dim` by the 1-D `index`; a gather
/// by the index spread over the result's shape, so the gradient flows back to the selected rows.
fn index_select(interpreter: &Interpreter, input: &Var, dim: i64, index: &Var, span: Span) -> Result<Value> {
    let rank = input.shape().len();
    let axis =
        normalize_dim("index_select", dim as isize, rank).map_err(|error| interpreter.tensor_error(error, span))?;
    if !is_index(index.dtype()) {
        let detail = ArgumentDetail::IndexDtype { dtype: index.dtype().pypto_name().into() };
        return Err(interpreter.tensor_error(TensorError::BadArgument { op: "index_select", detail }, span));
    }
    if index.shape().len() != 1 {
        let error = TensorError::ShapeMismatch {
            op: "index_select",
            lhs: input.shape().to_vec(),
            rhs: index.shape().to_vec(),
            detail: ShapeDetail::IndexShape { dim: axis },
        };
        return Err(interpreter.tensor_error(error, span));
    }
    let mut shape = input.shape().to_vec();
    shape[axis] = index.shape()[0];
    let spread = var_of(&spread_index(interpreter, index, axis, &shape, span)?);
    let result = interpreter.autograd_result(input.gather(axis as isize, &spread), span)?;
    Ok(step(interpreter, result, || CapturedOp::Vector {
        op: VectorOp::Gather { dim: axis },
        args: vec![Arg::var(input), Arg::var(&spread)],
    }))
}

/// torch's `argmax`/`argmin(input, dim=None, keepdim=False)`: DT_INT64 indices of any real
/// dtype; without `dim`, the index into the flattened input.
pub(super) fn torch_arg_extreme(
    interpreter: &Interpreter,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    let op = if name == "argmax" { "argmax" } else { "argmin" };
    let bound = interpreter.bind(&format!("torch.{name}"), &["input", "dim", "keepdim"], arguments, false, span)?;
    let (input, keepdim) = (bound.tensor(0)?, bound.flag(2, false)?);
    let value = match bound.optional(1) {
        None | Some(Value::None) => {
            let flat = interpreter.autograd_result(input.reshape(&[input.tensor().numel()]), span)?;
            let index = var_of(&arg_extreme(interpreter, (op, false), &flat, 0, false, span)?);
            let shape = if keepdim { vec![1; input.shape().len()] } else { Vec::new() };
            interpreter.autograd_result(index.reshape(&shape), span)?
        }
        Some(_) => var_of(&arg_extreme(interpreter, (op, false), &input, bound.int(1, None)?, keepdim, span)?),
    };
    Ok(TensorObject::value(interpreter.autograd_result(value.cast(DType::I64), span)?))
}

/// `argmax`/`argmin(input, dim, keepdim=False)`: the DT_INT32 index of the largest (smallest)
/// element along `dim`, the first one on ties; a float input only when `float_only` (pypto's doc).
fn arg_extreme(
    interpreter: &Interpreter,
    (op, float_only): (&'static str, bool),
    input: &Var,
    dim: i64,
    keepdim: bool,
    span: Span,
) -> Result<Value> {
    if float_only && !input.dtype().is_float() {
        let detail = ArgumentDetail::NeedsFloat { dtype: input.dtype().pypto_name().into() };
        return Err(interpreter.tensor_error(TensorError::BadArgument { op, detail }, span));
    }
    let axis =
        normalize_dim(op, dim as isize, input.shape().len()).map_err(|error| interpreter.tensor_error(error, span))?;
    let largest = op == "argmax";
    // A top-1: its stable order keeps the lower index first among equal values.
    let indices = input
        .tensor()
        .topk_indices(1, axis as isize, largest)
        .map_err(|error| interpreter.tensor_error(error, span))?;
    let kept = step(interpreter, Var::constant(indices), || CapturedOp::Vector {
        op: VectorOp::TopK { k: 1, dim: axis, largest },
        args: vec![Arg::var(input)],
    });
    if keepdim {
        return Ok(kept);
    }
    let kept = var_of(&kept);
    let mut shape = input.shape().to_vec();
    shape.remove(axis);
    let result = interpreter.autograd_result(kept.reshape(&shape), span)?;
    Ok(step(interpreter, result, || CapturedOp::Reshape { x: TensorRef::of(kept.tensor()) }))
}

/// `one_hot(input, num_classes)`: a DT_INT64 tensor of `input`'s shape plus a last dim of
/// `num_classes`, 1 where the class is the element and 0 elsewhere (`input == arange(classes)`).
fn one_hot(interpreter: &Interpreter, input: &Var, classes: usize, span: Span) -> Result<Value> {
    if input.dtype().kind() != crate::tensor::DTypeKind::Integer {
        let detail = ArgumentDetail::IndexDtype { dtype: input.dtype().pypto_name().into() };
        return Err(interpreter.tensor_error(TensorError::BadArgument { op: "one_hot", detail }, span));
    }
    let rank = input.shape().len();
    // Every element must be a class: non-negative and below num_classes.
    if let Some(&bad) =
        input.tensor().storage().to_i64_vec().iter().find(|&&value| value < 0 || value >= classes as i64)
    {
        let detail = BoundsDetail::Index { index: bad, dim: rank, size: classes };
        return Err(interpreter.tensor_error(TensorError::OutOfBounds { op: "one_hot", detail }, span));
    }
    let mut shape = input.shape().to_vec();
    shape.push(1);
    let column = interpreter.autograd_result(input.reshape(&shape), span)?;
    let column = step(interpreter, column, || CapturedOp::Reshape { x: TensorRef::of(input.tensor()) });
    // The classes as a [1, …, 1, num_classes] tensor: the mask's shape along every dim of size > 1
    // of the column, so that in a kernel the comparison has a tile of the result's rank.
    let mut range_shape = vec![1; rank];
    range_shape.push(classes);
    let range = Tensor::arange(0.0, classes as f64, 1.0, input.dtype())
        .and_then(|range| range.reshape(&range_shape))
        .map_err(|error| interpreter.tensor_error(error, span))?;
    let range = step(interpreter, Var::constant(range), || CapturedOp::Constant { op: "arange" });
    let (column, range) = (var_of(&column), var_of(&range));
    let mask = interpreter.autograd_result(column.compare(CompareOp::Eq, &range), span)?;
    let mask = step(interpreter, mask, || CapturedOp::Vector {
        op: VectorOp::Compare(CompareOp::Eq),
        args: vec![Arg::var(&column), Arg::var(&range)],
    });
    let mask = var_of(&mask);
    let result = interpreter.autograd_result(mask.cast(DType::I64), span)?;
    Ok(step(interpreter, result, || CapturedOp::Cast { x: TensorRef::of(mask.tensor()) }))
}

/// DT_INT32 and DT_INT64, the dtypes of a gather or scatter index.
pub(super) fn is_index(dtype: DType) -> bool {
    matches!(dtype, DType::I32 | DType::I64)
}

/// The reason a kernel using `op` in a form with no tile program falls back to the CPU.
pub(super) fn no_tile_form(op: &str) -> CapturedOp {
    CapturedOp::Unsupported { what: CompilerReason::Op { op: op.into() } }
}

impl Interpreter {
    /// An autograd op's result, its error located at `span`.
    pub(crate) fn autograd_result(&self, result: crate::autograd::Result<Var>, span: Span) -> Result<Var> {
        result.map_err(|error| self.autograd_error(error, span))
    }
}

/// The `reduce=`-less message of a bad choice (shared with `scatter_update`'s `dim`).
pub(super) fn one_of(function: &str, parameter: &str, choices: &[&str], got: String) -> LibraryMessage {
    LibraryMessage::OneOf {
        function: function.into(),
        parameter: parameter.into(),
        choices: choices.iter().map(|choice| choice.to_string()).collect(),
        got: Some(got),
    }
}
