//! `pypto.scatter_update(input, dim=-2, index, src)`: rows of `src` written in place into the rows
//! of `input` that `index` names (pypto's KV-cache update). 2-D: `input[index[i][j]] = src[i·s + j]`;
//! 4-D `[blockNum, blockSize, 1, d]`: row `index[i][j]` of the blocks laid end to end takes
//! `src[i][j][0]`. Built as a scatter along the rows of the 2-D form.

use super::indices::{no_tile_form, one_of, spread_index, step, var_of};
use crate::autograd::Var;
use crate::error::TensorError;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::pypto::capture::{Arg, CapturedOp, TensorRef};
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::messages::{ArgumentDetail, ShapeDetail};
use crate::tensor::ScatterMode;
use crate::tile::VectorOp;

/// Writes the update into `input` and returns `input`.
pub(super) fn scatter_update(interpreter: &Interpreter, full: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind(full, &["input", "dim", "index", "src"], arguments, false, span)?;
    let (input, index, source) = (bound.tensor(0)?, bound.tensor(2)?, bound.tensor(3)?);
    let rank = input.shape().len();
    let dim = bound.int(1, Some(-2))?;
    // pypto's doc: "keep the default -2" (the rows of the 2-D form).
    if dim != -2 && dim != rank as i64 - 2 {
        let message = one_of(full, "dim", &["-2"], dim.to_string());
        return Err(interpreter.error(ErrorKind::Value, "", bound.span_of(1)).with_message(message));
    }
    if !super::indices::is_index(index.dtype()) {
        let detail = ArgumentDetail::IndexDtype { dtype: index.dtype().pypto_name().into() };
        return Err(
            interpreter.tensor_error(TensorError::BadArgument { op: "scatter_update", detail }, bound.span_of(2))
        );
    }
    let mismatch = |lhs: &[usize], rhs: &[usize], detail| {
        let error = TensorError::ShapeMismatch { op: "scatter_update", lhs: lhs.to_vec(), rhs: rhs.to_vec(), detail };
        interpreter.tensor_error(error, span)
    };
    let updates: usize = index.shape().iter().product();
    let width = input.shape().last().copied().unwrap_or(0);
    let four = rank == 4 && input.shape()[2] == 1 && source.shape().len() == 4 && source.shape()[2] == 1;
    let expected_source = match rank {
        2 => vec![updates, width],
        _ => vec![index.shape()[0], index.shape().get(1).copied().unwrap_or(1), 1, width],
    };
    if !(rank == 2 || four) || index.shape().len() != 2 {
        return Err(mismatch(input.shape(), index.shape(), ShapeDetail::IndexShape { dim: 0 }));
    }
    if source.shape() != expected_source.as_slice() {
        return Err(mismatch(source.shape(), &expected_source, ShapeDetail::ScatterSource));
    }
    let rows = input.shape()[..rank - 1].iter().product::<usize>();
    let result = if rank == 2 {
        // In a kernel the scatter's result becomes `input` (stored back when `input` is in GM).
        let spread = var_of(&spread_index(interpreter, &index, 0, &[updates, width], span)?);
        interpreter.capture(None, || CapturedOp::InPlace { target: TensorRef::of(input.tensor()) });
        let written = interpreter.autograd_result(input.scatter(0, &spread, &source, ScatterMode::Replace), span)?;
        var_of(&step(interpreter, written, || CapturedOp::Vector {
            op: VectorOp::Scatter { dim: 0, mode: ScatterMode::Replace },
            args: vec![Arg::var(&input), Arg::var(&spread), Arg::var(&source)],
        }))
    } else {
        let flat = |var: &Var, shape: &[usize]| interpreter.autograd_result(var.reshape(shape), span);
        let spread = index.reshape(&[updates, 1]).and_then(|column| column.add(&zeros_like_rows(&column, width)?));
        let spread = interpreter.autograd_result(spread, span)?;
        let written =
            flat(&input, &[rows, width])?.scatter(0, &spread, &flat(&source, &[updates, width])?, ScatterMode::Replace);
        let written = interpreter.autograd_result(written.and_then(|written| written.reshape(input.shape())), span)?;
        // The 4-D form's in-place write through a reshape has no tile program yet.
        var_of(&step(interpreter, written, || no_tile_form("scatter_update of 4-D tensors")))
    };
    let Value::Tensor(object) = bound.required(0)? else { unreachable!("bound.tensor(0) succeeded") };
    interpreter.write_tensor_object(object, result, span)?;
    Ok(Value::Tensor(object.clone()))
}

/// Zeros of `[rows of column, width]` in the column's dtype (spreads an index column over a row).
fn zeros_like_rows(column: &Var, width: usize) -> crate::autograd::Result<Var> {
    let rows = column.shape()[0];
    Ok(Var::constant(crate::tensor::Tensor::full(&[rows, width], 0.0, column.dtype())?))
}
