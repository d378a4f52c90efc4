//! The `pypto` functions of masks and indices, with pypto's own parameter names: comparisons
//! (`lt le gt ge eq ne`), `logical_and`, `logical_not`, `where`, `gather`, `scatter`, `topk`,
//! `cumsum`, `round(input, decimals)`, `clip` with number or tensor bounds and `fillpad`.

use super::super::capture::{Arg, CapturedOp};
use crate::autograd::Var;
use crate::lang::interp::call::Bound;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{LibraryKernelMessage, LibraryMessage};
use crate::tensor::{CompareOp, DType, LogicalOp, ScatterMode, Tensor};
use crate::tile::VectorOp;

/// Dim `dim` of a tensor of `rank` dims (negative counts from the end; the reference op has
/// already refused a dim out of range).
fn axis(dim: i64, rank: usize) -> usize {
    if dim < 0 {
        (dim + rank as i64).max(0) as usize
    } else {
        dim as usize
    }
}

/// The names this file binds.
pub(super) const NAMES: [&str; 17] = [
    "lt",
    "le",
    "gt",
    "ge",
    "eq",
    "ne",
    "logical_and",
    "logical_not",
    "where",
    "gather",
    "scatter",
    "topk",
    "cumsum",
    "round",
    "clip",
    "scatter_",
    "fillpad",
];

/// Calls `module.name` (`pypto`, or `torch` on the host) for one of `NAMES`.
pub(super) fn call(
    interpreter: &Interpreter,
    module: &str,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    let full = format!("{module}.{name}");
    let wrap = |result: crate::autograd::Result<Var>| interpreter.tensor_result(result, span);
    if let Some(op) = CompareOp::from_name(name) {
        let bound = interpreter.bind(&full, &["input", "other"], arguments, false, span)?;
        let input = bound.tensor(0)?;
        let other = interpreter.operand(bound.required(1)?, input.dtype(), bound.span_of(1))?;
        let result = wrap(input.compare(op, &other))?;
        let operands = [bound.required(0)?, bound.required(1)?];
        interpreter.capture(Some(&result), || CapturedOp::vector(VectorOp::Compare(op), &operands));
        return Ok(result);
    }
    match name {
        "logical_and" => {
            let bound = interpreter.bind(&full, &["input", "other"], arguments, false, span)?;
            wrap(bound.tensor(0)?.logical(LogicalOp::And, &bound.tensor(1)?))
        }
        "logical_not" => {
            let bound = interpreter.bind(&full, &["input"], arguments, false, span)?;
            let result = wrap(bound.tensor(0)?.logical_not())?;
            // In a kernel: the elements equal to 0 (a compare with the scalar 0 into a DT_BOOL mask).
            let operands = [bound.required(0)?, &Value::Int(0)];
            interpreter.capture(Some(&result), || CapturedOp::vector(VectorOp::Compare(CompareOp::Eq), &operands));
            Ok(result)
        }
        "where" => {
            let bound = interpreter.bind(&full, &["condition", "input", "other"], arguments, false, span)?;
            let condition = bound.tensor(0)?;
            // A number takes the other branch's dtype (both numbers: DT_FP32, as pypto's Element).
            let like = [bound.required(1)?, bound.required(2)?].into_iter().find_map(|value| match value {
                Value::Tensor(object) => Some(object.get().dtype()),
                _ => None,
            });
            let input = interpreter.operand(bound.required(1)?, like.unwrap_or(DType::F32), bound.span_of(1))?;
            let other = interpreter.operand(bound.required(2)?, like.unwrap_or(DType::F32), bound.span_of(2))?;
            let result = wrap(Var::select(&condition, &input, &other))?;
            let operands = [bound.required(0)?, bound.required(1)?, bound.required(2)?];
            interpreter.capture(Some(&result), || CapturedOp::vector(VectorOp::Select, &operands));
            Ok(result)
        }
        "gather" => {
            let bound = interpreter.bind(&full, &["input", "dim", "index"], arguments, false, span)?;
            let (input, dim, index) = (bound.tensor(0)?, bound.int(1, None)?, bound.tensor(2)?);
            let result = wrap(input.gather(dim as isize, &index))?;
            interpreter.capture(Some(&result), || CapturedOp::Vector {
                op: VectorOp::Gather { dim: axis(dim, input.shape().len()) },
                args: vec![Arg::var(&input), Arg::var(&index)],
            });
            Ok(result)
        }
        "scatter" | "scatter_" => scatter(interpreter, &full, arguments, span),
        "fillpad" => fillpad(interpreter, &full, arguments, span),
        "topk" => {
            let bound = interpreter.bind(&full, &["input", "k", "dim", "largest"], arguments, false, span)?;
            let k = bound.int(1, None)?;
            let input = bound.tensor(0)?;
            let k = usize::try_from(k).map_err(|_| {
                let message = LibraryKernelMessage::MustBePositive {
                    function: "pypto.topk".into(),
                    parameter: "k".into(),
                    got: Some(k),
                };
                interpreter.error(ErrorKind::Value, "", bound.span_of(1)).with_message(message)
            })?;
            let (dim, largest) = (bound.int(2, Some(-1))?, bound.flag(3, true)?);
            let (values, indices) =
                input.topk(k, dim as isize, largest).map_err(|error| interpreter.autograd_error(error, span))?;
            let (values, indices) = (TensorObject::value(values), TensorObject::value(indices));
            // Two results: a kernel sees the indices (a sort), then the values as their gather.
            let dim = axis(dim, input.shape().len());
            interpreter.capture(Some(&indices), || CapturedOp::Vector {
                op: VectorOp::TopK { k, dim, largest },
                args: vec![Arg::var(&input)],
            });
            interpreter.capture(Some(&values), || match Arg::of(&indices) {
                Some(index) => CapturedOp::Vector { op: VectorOp::Gather { dim }, args: vec![Arg::var(&input), index] },
                None => CapturedOp::Unsupported { what: crate::messages::CompilerReason::Op { op: "topk".into() } },
            });
            Ok(Value::tuple(vec![values, indices]))
        }
        "cumsum" => {
            let bound = interpreter.bind(&full, &["input", "dim"], arguments, false, span)?;
            let (input, dim) = (bound.tensor(0)?, bound.int(1, None)?);
            let result = wrap(input.cumsum(dim as isize))?;
            let dim = axis(dim, input.shape().len());
            interpreter.capture(Some(&result), || CapturedOp::Vector {
                op: VectorOp::CumSum { dim },
                args: vec![Arg::var(&input)],
            });
            Ok(result)
        }
        "round" => {
            let bound = interpreter.bind(&full, &["input", "decimals"], arguments, false, span)?;
            let (input, decimals) = (bound.tensor(0)?, bound.int(1, Some(0))?);
            let result = wrap(input.round_decimals(decimals))?;
            interpreter.capture(Some(&result), || CapturedOp::Vector {
                op: VectorOp::Round { decimals },
                args: vec![Arg::var(&input)],
            });
            Ok(result)
        }
        _ => clip(interpreter, interpreter.bind(&full, &["input", "min", "max"], arguments, false, span)?, span),
    }
}

/// `fillpad(input, mode="constant", value=0)`: `input` with `value` past its valid region (a
/// number, or "inf"/"-inf" as pypto spells them), valid in whole.
fn fillpad(interpreter: &Interpreter, full: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind(full, &["input", "mode", "value"], arguments, false, span)?;
    let input = bound.tensor(0)?;
    let one_of = |parameter: &str, choices: &[&str], got: String, index: usize| {
        let message = LibraryMessage::OneOf {
            function: full.to_string(),
            parameter: parameter.into(),
            choices: choices.iter().map(|choice| choice.to_string()).collect(),
            got: Some(got),
        };
        interpreter.error(ErrorKind::Value, "", bound.span_of(index)).with_message(message)
    };
    match bound.optional(1) {
        None => {}
        Some(Value::Str(mode)) if &**mode == "constant" => {}
        Some(other) => return Err(one_of("mode", &["\"constant\""], crate::lang::interp::format::repr(other), 1)),
    }
    let value = match bound.optional(2) {
        None => 0.0,
        Some(Value::Str(text)) => match text.trim().to_ascii_lowercase().as_str() {
            "inf" | "+inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            _ => return Err(one_of("value", &["a number", "\"inf\"", "\"-inf\""], format!("{text:?}"), 2)),
        },
        Some(_) => bound.float(2, None)?,
    };
    let origin = vec![0; input.shape().len()];
    let padded = Tensor::full(input.shape(), value, input.dtype())
        .map_err(Into::into)
        .and_then(|filled| Var::constant(filled).assemble(&input, &origin));
    let result = interpreter.tensor_result(padded, span)?;
    interpreter.capture(Some(&result), || CapturedOp::Vector {
        op: VectorOp::FillPad { value },
        args: vec![Arg::var(&input)],
    });
    Ok(result)
}

/// `scatter(input, dim, index, src, reduce=None)`; `scatter_` also writes the result into `input`.
fn scatter(interpreter: &Interpreter, full: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind(full, &["input", "dim", "index", "src", "reduce"], arguments, false, span)?;
    let input = bound.tensor(0)?;
    let source = interpreter.operand(bound.required(3)?, input.dtype(), bound.span_of(3))?;
    let reduce = match bound.optional(4) {
        None => None,
        Some(Value::Str(text)) => Some(text.to_string()),
        Some(other) => {
            let message = LibraryMessage::OneOf {
                function: full.to_string(),
                parameter: "reduce".into(),
                choices: reduce_choices(),
                got: Some(other.type_name().to_string()),
            };
            return Err(interpreter.error(ErrorKind::Type, "", bound.span_of(4)).with_message(message));
        }
    };
    let mode = ScatterMode::from_reduce(reduce.as_deref()).ok_or_else(|| {
        let message = LibraryMessage::OneOf {
            function: full.to_string(),
            parameter: "reduce".into(),
            choices: reduce_choices(),
            got: Some(format!("{:?}", reduce.unwrap_or_default())),
        };
        interpreter.error(ErrorKind::Value, "", bound.span_of(4)).with_message(message)
    })?;
    let dim = bound.int(1, None)?;
    let result = input
        .scatter(dim as isize, &bound.tensor(2)?, &source, mode)
        .map_err(|error| interpreter.autograd_error(error, span))?;
    if !full.ends_with('_') {
        let result = TensorObject::value(result);
        let operands = [bound.required(0)?, bound.required(2)?, bound.required(3)?];
        let op = VectorOp::Scatter { dim: axis(dim, input.shape().len()), mode };
        interpreter.capture(Some(&result), || CapturedOp::vector(op, &operands));
        return Ok(result);
    }
    // In place, as pypto's scatter_: the input object takes the result.
    let Value::Tensor(object) = bound.required(0)? else { unreachable!("bound.tensor(0) succeeded") };
    interpreter.write_tensor_object(object, result, span)?;
    Ok(Value::Tensor(object.clone()))
}

/// `clip(input, min=None, max=None)`: number bounds stay numbers, tensor bounds broadcast.
fn clip(interpreter: &Interpreter, bound: Bound<'_>, span: Span) -> Result<Value> {
    let input = bound.tensor(0)?;
    let is_tensor = |index| matches!(bound.optional(index), Some(Value::Tensor(_)));
    if !is_tensor(1) && !is_tensor(2) {
        let low = bound.optional(1).map(|_| bound.float(1, None)).transpose()?;
        let high = bound.optional(2).map(|_| bound.float(2, None)).transpose()?;
        let result = interpreter.tensor_result(input.clip(low, high), span)?;
        let x = super::super::capture::TensorRef::of(input.tensor());
        interpreter.capture(Some(&result), || CapturedOp::Clip { x, low, high });
        return Ok(result);
    }
    let bound_var = |index: usize| -> Result<Option<Var>> {
        bound.optional(index).map(|value| interpreter.operand(value, input.dtype(), bound.span_of(index))).transpose()
    };
    let (low, high) = (bound_var(1)?, bound_var(2)?);
    let result = interpreter.tensor_result(input.clip_tensors(low.as_ref(), high.as_ref()), span)?;
    // A bound is a tensor or a number (the reference op refused anything else).
    let bound_arg = |index: usize| bound.optional(index).and_then(Arg::of);
    let (low, high) = (bound_arg(1), bound_arg(2));
    interpreter.capture(Some(&result), || CapturedOp::ClipBounds { x: Arg::var_ref(&input), low, high });
    Ok(result)
}

/// The modes of `scatter`'s `reduce=`, quoted as a message shows them.
fn reduce_choices() -> Vec<String> {
    vec!["\"add\"".into(), "\"multiply\"".into()]
}
