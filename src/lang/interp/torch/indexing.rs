//! torch's indexing by a tensor, on the host (goldens and checks: `x[mask]`, `x[mask] = 0`,
//! `x[indices]`): a bool tensor of `x`'s leading shape selects elements (a 1-d result), an integer
//! tensor selects rows along dim 0 (its shape, then `x`'s other dims). A kernel indexes tiles with
//! ints and slices only; there the error stays the one that says so.

use crate::autograd::{is_grad_enabled, Var};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{LibraryTorchMessage, RuntimeMessage};
use crate::tensor::{DType, Tensor};

/// How a tensor index picks elements: flat element positions of `x`, and the result's shape.
struct Selection {
    /// For each result row, the flat offset of its first element in `x`.
    starts: Vec<usize>,
    /// Elements per row (the product of the dims the index does not cover).
    row: usize,
    /// The result's shape.
    shape: Vec<usize>,
}

/// Whether `index` is a tensor index this file reads (on the host). A 0-d integer tensor is not:
/// torch indexes by it as by an int, so `cache[index][:] = row` writes through the view into `cache`.
pub(crate) fn applies(interpreter: &Interpreter, index: &Value) -> bool {
    matches!(index, Value::Tensor(_)) && !is_zero_d_integer(index) && !interpreter.in_kernel()
}

/// Whether `value` is a 0-d integer tensor (not bool), which torch indexes by as by an int.
pub(crate) fn is_zero_d_integer(value: &Value) -> bool {
    let Value::Tensor(object) = value else { return false };
    let var = object.get();
    var.shape().is_empty() && !var.dtype().is_float() && var.dtype() != DType::Bool
}

/// The int an index stands for (Python's `__index__`): an int or bool, or a one-element integer
/// tensor, as torch's `Tensor.__index__` gives (a slice bound of a list or a tensor).
pub(crate) fn as_index(value: &Value) -> Option<i64> {
    match value {
        Value::Tensor(tensor) => {
            let var = tensor.get();
            // torch's rule: integral dtypes, bool among them.
            let values = var.tensor().to_f64_vec();
            match values.as_slice() {
                [only] if !var.dtype().is_float() => Some(*only as i64),
                _ => None,
            }
        }
        other => other.as_int(),
    }
}

/// `x[index]` for a tensor `index`.
pub(crate) fn get(interpreter: &Interpreter, var: &Var, index: &Value, span: Span) -> Result<Value> {
    refuse_grad(interpreter, var, span)?;
    let selection = select(interpreter, var.shape(), index, span)?;
    let values = var.tensor().to_f64_vec();
    let picked: Vec<f64> =
        selection.starts.iter().flat_map(|&start| values[start..start + selection.row].iter().copied()).collect();
    let tensor = Tensor::from_f64(picked, &selection.shape, var.dtype())
        .map_err(|error| interpreter.tensor_error(error, span))?;
    Ok(TensorObject::value(Var::constant(tensor)))
}

/// `x[index] = value` for a tensor `index`: `value` broadcast to the selection's shape.
pub(crate) fn set(
    interpreter: &Interpreter,
    object: &TensorObject,
    index: &Value,
    value: &Value,
    span: Span,
) -> Result<()> {
    let var = object.get();
    refuse_grad(interpreter, &var, span)?;
    let selection = select(interpreter, var.shape(), index, span)?;
    let source = interpreter.operand(value, var.dtype(), span)?;
    // Broadcast onto the selection's shape by adding to zeros of it.
    let zeros = Tensor::zeros(&selection.shape, var.dtype()).map_err(|error| interpreter.tensor_error(error, span))?;
    let spread = Var::constant(zeros).add(&source).ok().filter(|spread| spread.shape() == selection.shape.as_slice());
    let Some(spread) = spread else {
        let message =
            LibraryTorchMessage::IndexValueShape { value: source.shape().to_vec(), selection: selection.shape };
        return Err(interpreter.coded(ErrorKind::Value, message, span));
    };
    let source = spread.tensor().to_f64_vec();
    let mut values = var.tensor().to_f64_vec();
    for (row, &start) in selection.starts.iter().enumerate() {
        values[start..start + selection.row].copy_from_slice(&source[row * selection.row..(row + 1) * selection.row]);
    }
    let tensor =
        Tensor::from_f64(values, var.shape(), var.dtype()).map_err(|error| interpreter.tensor_error(error, span))?;
    *object.var.borrow_mut() = Var::constant(tensor);
    Ok(())
}

/// The rows a bool mask or an integer index picks from a tensor of `shape`.
fn select(interpreter: &Interpreter, shape: &[usize], index: &Value, span: Span) -> Result<Selection> {
    let Value::Tensor(index) = index else { unreachable!("applies() checked for a tensor index") };
    let index = index.get();
    let index_shape = index.shape().to_vec();
    let flags = index.tensor().to_f64_vec();
    if index.dtype() == DType::Bool {
        if index_shape.len() > shape.len() || shape[..index_shape.len()] != index_shape[..] {
            let message = LibraryTorchMessage::MaskShape { mask: index_shape, shape: shape.to_vec() };
            return Err(interpreter.coded(ErrorKind::Index, message, span));
        }
        let row: usize = shape[index_shape.len()..].iter().product();
        let starts: Vec<usize> =
            flags.iter().enumerate().filter(|(_, flag)| **flag != 0.0).map(|(position, _)| position * row).collect();
        let mut result = vec![starts.len()];
        result.extend_from_slice(&shape[index_shape.len()..]);
        return Ok(Selection { starts, row, shape: result });
    }
    if index.dtype().is_float() || shape.is_empty() {
        let message = LibraryTorchMessage::IndexTensorType { dtype: index.dtype().torch_name().to_string() };
        return Err(interpreter.coded(ErrorKind::Index, message, span));
    }
    let row: usize = shape[1..].iter().product();
    let starts = flags
        .iter()
        .map(|&position| {
            let position = position as i64;
            let resolved = if position < 0 { position + shape[0] as i64 } else { position };
            usize::try_from(resolved)
                .ok()
                .filter(|&resolved| resolved < shape[0])
                .map(|resolved| resolved * row)
                .ok_or_else(|| {
                    let message = RuntimeMessage::TensorIndexOutOfRange { index: position, dim: 0, size: shape[0] };
                    interpreter.coded(ErrorKind::Index, message, span)
                })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut result = index_shape;
    result.extend_from_slice(&shape[1..]);
    Ok(Selection { starts, row, shape: result })
}

/// Indexing by a tensor copies values: it is not recorded for backward here.
fn refuse_grad(interpreter: &Interpreter, var: &Var, span: Span) -> Result<()> {
    if var.requires_grad() && is_grad_enabled() {
        return Err(interpreter.coded(ErrorKind::Autograd, LibraryTorchMessage::IndexWithGrad, span));
    }
    Ok(())
}

/// `torch.nonzero(input, *, as_tuple=False)`: the positions of the non-zero elements in row-major
/// order, as an int64 tensor of one row per element and one column per dim, or with `as_tuple` one
/// 1-d tensor per dim (`torch.where(cond)`'s form).
pub(crate) fn nonzero(
    interpreter: &Interpreter,
    arguments: crate::lang::interp::eval::Arguments,
    span: Span,
) -> Result<Value> {
    let bound = interpreter.bind("torch.nonzero", &["input", "as_tuple"], arguments, false, span)?;
    let var = bound.tensor(0)?;
    let shape = var.shape().to_vec();
    let values = var.tensor().to_f64_vec();
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for (flat, value) in values.iter().enumerate() {
        if *value == 0.0 {
            continue;
        }
        let mut rest = flat;
        let mut position = vec![0.0; shape.len()];
        for (axis, &size) in shape.iter().enumerate().rev() {
            position[axis] = (rest % size) as f64;
            rest /= size;
        }
        rows.push(position);
    }
    let tensor = |data: Vec<f64>, dims: &[usize]| -> Result<Value> {
        let tensor = Tensor::from_f64(data, dims, DType::I64).map_err(|error| interpreter.tensor_error(error, span))?;
        Ok(TensorObject::value(Var::constant(tensor)))
    };
    if bound.flag(1, false)? {
        let columns = (0..shape.len())
            .map(|axis| tensor(rows.iter().map(|row| row[axis]).collect(), &[rows.len()]))
            .collect::<Result<Vec<_>>>()?;
        return Ok(Value::tuple(columns));
    }
    let count = rows.len();
    tensor(rows.concat(), &[count, shape.len()])
}
