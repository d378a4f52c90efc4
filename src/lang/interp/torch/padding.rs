//! `torch.nn.functional.pad(input, pad, mode="constant", value=None)`: pads (or, with negative
//! pads, crops) the last dims of a tensor. `pad` runs from the last dim backwards, a pair per dim:
//! `(left, right)` of the last dim, then `(top, bottom)` of the one before, and so on. Only the
//! constant mode is available here; the others are a located error naming the mode.

use crate::autograd::Var;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage, LibraryTorchMessage};
use crate::tensor::Tensor;

/// The functions of this file (without `torch.`).
pub(crate) const FUNCTIONS: [&str; 1] = ["nn.functional.pad"];

/// Calls `torch.nn.functional.pad`.
pub(crate) fn call(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let function = "torch.nn.functional.pad";
    let bound = interpreter.bind(function, &["input", "pad", "mode", "value"], arguments, false, span)?;
    let input = bound.tensor(0)?;
    // Each pad is an int or, through `__index__`, a one-element integer tensor (a length computed
    // from a tensor of sequence lengths).
    let items = interpreter.iterate(bound.required(1)?, bound.span_of(1))?;
    let pads: Vec<i64> = match items.iter().map(super::indexing::as_index).collect::<Option<Vec<i64>>>() {
        Some(pads) => pads,
        None => bound.dims(1)?.unwrap_or_default().into_iter().map(|pad| pad as i64).collect(),
    };
    let refuse =
        |message: LibraryTorchMessage, at: Span| Err(interpreter.error(ErrorKind::Value, "", at).with_message(message));
    match bound.optional(2) {
        None | Some(Value::None) => {}
        Some(Value::Str(mode)) if &**mode == "constant" => {}
        Some(Value::Str(mode)) => {
            return refuse(LibraryTorchMessage::PadMode { mode: mode.to_string() }, bound.span_of(2))
        }
        Some(other) => {
            let message = LibraryMessage::ArgumentType {
                function: function.to_string(),
                parameter: "mode".to_string(),
                expected: Kind::Str,
                got: other.type_name().to_string(),
            };
            return Err(interpreter.error(ErrorKind::Type, "", bound.span_of(2)).with_message(message));
        }
    }
    let value = match bound.optional(3) {
        None | Some(Value::None) => 0.0,
        Some(_) => bound.float(3, None)?,
    };
    let rank = input.shape().len();
    if pads.len() % 2 != 0 {
        return refuse(LibraryTorchMessage::PadOdd, bound.span_of(1));
    }
    if pads.len() > 2 * rank {
        return refuse(LibraryTorchMessage::PadTooLong { length: pads.len(), rank }, bound.span_of(1));
    }
    let mut padded = input;
    for (pair, sides) in pads.chunks(2).enumerate() {
        let dim = rank - 1 - pair;
        let (before, after) = (sides[0], sides[1]);
        let size = padded.shape()[dim];
        if size as i64 + before + after < 0 {
            return refuse(LibraryTorchMessage::PadNegativeSize { size, before, after, dim }, bound.span_of(1));
        }
        padded =
            pad_dim(&padded, dim, before, after, value).map_err(|error| interpreter.autograd_error(error, span))?;
    }
    interpreter.tensor_result(Ok(padded), span)
}

/// `x` with `before` elements of `value` put before it along `dim` and `after` after it (a
/// negative count removes elements from that side instead).
fn pad_dim(x: &Var, dim: usize, before: i64, after: i64, value: f64) -> crate::autograd::Result<Var> {
    let size = x.shape()[dim] as i64;
    let (start, end) = (before.min(0).unsigned_abs() as usize, (size + after.min(0)) as usize);
    let mut shape = x.shape().to_vec();
    shape[dim] = end.saturating_sub(start);
    let mut offsets = vec![0; shape.len()];
    offsets[dim] = start;
    let kept = if start == 0 && end == size as usize { x.clone() } else { x.view(&shape, &offsets, None)? };
    let filler = |count: i64| -> crate::autograd::Result<Option<Var>> {
        if count <= 0 {
            return Ok(None);
        }
        let mut shape = kept.shape().to_vec();
        shape[dim] = count as usize;
        Ok(Some(Var::constant(Tensor::full(&shape, value, x.dtype())?)))
    };
    let parts: Vec<Var> = [filler(before)?, Some(kept.clone()), filler(after)?].into_iter().flatten().collect();
    if parts.len() == 1 {
        return Ok(kept);
    }
    Var::concat(&parts, dim as isize)
}
