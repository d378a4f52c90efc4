//! torch functions and tensor methods that pypto-gym's goldens call beyond the common ones:
//! `all any chunk split cumsum eq ne lt le gt ge logical_not linspace norm repeat_interleave topk
//! sort roll unravel_index`, `torch.nn.functional.glu layer_norm linear`, and the methods `argmax argmin expand
//! masked_fill type_as mul_` (a method is its function with the tensor as first argument). Each is
//! a composite of the tensor core's ops, with torch's meaning.

use std::rc::Rc;

use crate::autograd::Var;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{LibraryMessage, LibraryTensorMessage};
use crate::tensor::{BinaryOp, CompareOp, DType, ReduceOp, Tensor, UnaryOp};

/// The torch functions of this file (without `torch.`).
pub(crate) const FUNCTIONS: [&str; 15] = [
    "all",
    "any",
    "chunk",
    "split",
    "cumsum",
    "linspace",
    "norm",
    "repeat_interleave",
    "topk",
    "sort",
    "roll",
    "unravel_index",
    "nn.functional.glu",
    "nn.functional.layer_norm",
    "nn.functional.linear",
];

/// The tensor methods of this file.
pub(crate) const METHODS: [&str; 6] = ["argmax", "argmin", "expand", "masked_fill", "type_as", "mul_"];

/// `dim` of a tensor of `rank` dims as an index (negative counts from the end), or the error
/// naming `function`'s dim out of range.
pub(super) fn axis(interpreter: &Interpreter, function: &str, dim: i64, rank: usize, span: Span) -> Result<usize> {
    let index = if dim < 0 { dim + rank as i64 } else { dim };
    if (0..rank as i64).contains(&index) {
        return Ok(index as usize);
    }
    let message = crate::messages::AutogradMessage::DimOutOfRange {
        op: function.to_string(),
        dim,
        rank,
        low: -(rank as i64),
        high: rank as i64 - 1,
    };
    Err(interpreter.error(ErrorKind::Value, "", span).with_message(message))
}

/// `count` elements of `x` along `dim` from `start`.
fn narrow(x: &Var, dim: usize, start: usize, count: usize) -> crate::autograd::Result<Var> {
    let mut shape = x.shape().to_vec();
    shape[dim] = count;
    let mut offsets = vec![0; shape.len()];
    offsets[dim] = start;
    x.view(&shape, &offsets, None)
}

/// Calls the torch function `name` (one of `FUNCTIONS`).
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("torch.{name}");
    let wrap = |result: crate::autograd::Result<Var>| interpreter.tensor_result(result, span);
    let fail = |error| interpreter.autograd_error(error, span);
    match name {
        "cumsum" | "topk" => {
            // pypto's functions of the same meaning; torch's `sorted=` of topk is always true here.
            let mut arguments = arguments;
            arguments.keywords.retain(|(keyword, _, _)| keyword != "sorted");
            crate::lang::interp::pypto::functions::torch_selection(interpreter, name, arguments, span)
        }
        "all" | "any" => {
            let bound = interpreter.bind(&full, &["input", "dim", "keepdim"], arguments, false, span)?;
            let truth = bound.tensor(0)?.cast(DType::F32).and_then(|x| x.compare(CompareOp::Ne, &zero_like(&x)?));
            let ones = truth.and_then(|t| t.cast(DType::F32)).map_err(fail)?;
            let op = if name == "all" { ReduceOp::Amin } else { ReduceOp::Amax };
            let reduced = ones.reduce(op, bound.dims(1)?.as_deref(), bound.flag(2, false)?).map_err(fail)?;
            wrap(reduced.compare(CompareOp::Gt, &Var::constant(Tensor::scalar(0.5, DType::F32))))
        }
        "chunk" | "split" => {
            let names =
                if name == "chunk" { ["input", "chunks", "dim"] } else { ["tensor", "split_size_or_sections", "dim"] };
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            let x = bound.tensor(0)?;
            let dim = axis(interpreter, &full, bound.int(2, Some(0))?, x.shape().len(), bound.span_of(2))?;
            let size = x.shape()[dim];
            let sizes: Vec<usize> = match (name, bound.required(1)?) {
                ("split", Value::List(_) | Value::Tuple(_)) => {
                    interpreter.to_shape(bound.required(1)?, bound.span_of(1), &full)?
                }
                (_, _) => {
                    let number = bound.int(1, None)?.max(1) as usize;
                    // chunk: `chunks` pieces of ceil(size / chunks); split: pieces of the given size.
                    let piece = if name == "chunk" { size.div_ceil(number) } else { number }.max(1);
                    (0..size.div_ceil(piece)).map(|index| piece.min(size - index * piece)).collect()
                }
            };
            if sizes.iter().sum::<usize>() != size {
                // Sections that do not add up to the dim's size: the sizes are not a shape of it.
                let message = LibraryTensorMessage::InvalidShape {
                    function: full.clone(),
                    dims: sizes.iter().map(|&count| count as i64).collect(),
                };
                return Err(interpreter.error(ErrorKind::Value, "", bound.span_of(1)).with_message(message));
            }
            let mut start = 0;
            let mut pieces = Vec::new();
            for count in sizes {
                pieces.push(TensorObject::value(narrow(&x, dim, start, count).map_err(fail)?));
                start += count;
            }
            Ok(Value::tuple(pieces))
        }
        "linspace" => {
            let names = ["start", "end", "steps", "dtype", "device", "requires_grad"];
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            let (start, end, steps) =
                (bound.float(0, None)?, bound.float(1, None)?, bound.int(2, None)?.max(0) as usize);
            let dtype = super::dtype_argument(interpreter, &full, bound.optional(3), DType::F32, bound.span_of(3))?;
            let step = if steps > 1 { (end - start) / (steps - 1) as f64 } else { 0.0 };
            // torch fills the second half from the end so that the last value is exactly `end`.
            let values = (0..steps)
                .map(|index| {
                    if index < steps / 2 {
                        start + step * index as f64
                    } else {
                        end - step * (steps - 1 - index) as f64
                    }
                })
                .collect();
            wrap(Tensor::from_f64(values, &[steps], dtype).map(Var::constant).map_err(Into::into))
        }
        "norm" => {
            let bound = interpreter.bind(&full, &["input", "p", "dim", "keepdim", "dtype"], arguments, false, span)?;
            match bound.optional(1) {
                None | Some(Value::Int(2)) | Some(Value::Str(_)) => {}
                Some(Value::Float(p)) if *p == 2.0 => {}
                Some(other) => {
                    let message = LibraryMessage::OneOf {
                        function: full.clone(),
                        parameter: "p".into(),
                        choices: vec!["2".into(), "\"fro\"".into()],
                        got: Some(crate::lang::interp::format::repr(other)),
                    };
                    return Err(interpreter.error(ErrorKind::Value, "", bound.span_of(1)).with_message(message));
                }
            }
            let x = bound.tensor(0)?;
            let squares = x.binary(BinaryOp::Mul, &x).map_err(fail)?;
            let sum = squares.reduce(ReduceOp::Sum, bound.dims(2)?.as_deref(), bound.flag(3, false)?).map_err(fail)?;
            wrap(sum.unary(UnaryOp::Sqrt))
        }
        "repeat_interleave" => {
            let bound = interpreter.bind(&full, &["input", "repeats", "dim"], arguments, false, span)?;
            let x = bound.tensor(0)?;
            let repeats = bound.int(1, None)?.max(0) as usize;
            let (x, dim) = match bound.optional(2) {
                None | Some(Value::None) => (x.reshape(&[x.tensor().numel()]).map_err(fail)?, 0),
                Some(_) => {
                    let dim = axis(interpreter, &full, bound.int(2, None)?, x.shape().len(), bound.span_of(2))?;
                    (x, dim)
                }
            };
            let mut parts = Vec::new();
            for index in 0..x.shape()[dim] {
                let row = narrow(&x, dim, index, 1).map_err(fail)?;
                parts.extend(std::iter::repeat_n(row, repeats));
            }
            wrap(Var::concat(&parts, dim as isize))
        }
        "sort" => {
            let bound = interpreter.bind(&full, &["input", "dim", "descending", "stable"], arguments, false, span)?;
            let x = bound.tensor(0)?;
            let dim = bound.int(1, Some(-1))?;
            let size = x.shape()[axis(interpreter, &full, dim, x.shape().len(), bound.span_of(1))?];
            let (values, indices) = x.topk(size, dim as isize, bound.flag(2, false)?).map_err(fail)?;
            let indices = indices.cast(DType::I64).map_err(fail)?;
            Ok(super::return_types::values_and_indices(interpreter, "sort", values, indices))
        }
        "roll" => {
            let bound = interpreter.bind(&full, &["input", "shifts", "dims"], arguments, false, span)?;
            let x = bound.tensor(0)?;
            let (x, dim, restore) = match bound.optional(2) {
                None | Some(Value::None) => {
                    (x.reshape(&[x.tensor().numel()]).map_err(fail)?, 0, Some(x.shape().to_vec()))
                }
                Some(_) => {
                    (x.clone(), axis(interpreter, &full, bound.int(2, None)?, x.shape().len(), bound.span_of(2))?, None)
                }
            };
            let size = x.shape()[dim] as i64;
            let shift = if size == 0 { 0 } else { bound.int(1, None)?.rem_euclid(size) as usize };
            let rolled = if shift == 0 {
                Ok(x.clone())
            } else {
                let cut = size as usize - shift;
                narrow(&x, dim, cut, shift)
                    .and_then(|head| Ok((head, narrow(&x, dim, 0, cut)?)))
                    .and_then(|(head, tail)| Var::concat(&[head, tail], dim as isize))
            };
            wrap(rolled.and_then(|rolled| match restore {
                Some(shape) => rolled.reshape(&shape),
                None => Ok(rolled),
            }))
        }
        "unravel_index" => {
            // The coordinates of flat indices in `shape` (row-major): one int64 tensor per dim.
            let bound = interpreter.bind(&full, &["indices", "shape"], arguments, false, span)?;
            let (indices, shape) = (bound.tensor(0)?, bound.shape(1)?);
            let total: usize = shape.iter().product();
            let flat = indices.tensor().to_f64_vec();
            if let Some(&outside) = flat.iter().find(|&&index| index < 0.0 || index >= total as f64) {
                let message = crate::messages::RuntimeMessage::TensorIndexOutOfRange {
                    index: outside as i64,
                    dim: 0,
                    size: total,
                };
                return Err(interpreter.error(ErrorKind::Index, "", bound.span_of(0)).with_message(message));
            }
            let mut coordinates = Vec::with_capacity(shape.len());
            let mut stride = total;
            for &size in &shape {
                stride /= size.max(1);
                let along = flat.iter().map(|&index| ((index as usize / stride.max(1)) % size.max(1)) as f64).collect();
                let tensor = Tensor::from_f64(along, indices.shape(), DType::I64)
                    .map_err(|error| interpreter.tensor_error(error, span))?;
                coordinates.push(TensorObject::value(Var::constant(tensor)));
            }
            Ok(Value::tuple(coordinates))
        }
        "nn.functional.glu" => {
            let bound = interpreter.bind(&full, &["input", "dim"], arguments, false, span)?;
            let x = bound.tensor(0)?;
            let dim = axis(interpreter, &full, bound.int(1, Some(-1))?, x.shape().len(), bound.span_of(1))?;
            let half = x.shape()[dim] / 2;
            if x.shape()[dim] % 2 != 0 {
                let message = LibraryTensorMessage::InvalidShape {
                    function: full.clone(),
                    dims: x.shape().iter().map(|&size| size as i64).collect(),
                };
                return Err(interpreter.error(ErrorKind::Value, "", span).with_message(message));
            }
            let gated = narrow(&x, dim, 0, half)
                .and_then(|first| Ok((first, narrow(&x, dim, half, half)?.unary(UnaryOp::Sigmoid)?)))
                .and_then(|(first, gate)| first.binary(BinaryOp::Mul, &gate));
            wrap(gated)
        }
        "nn.functional.layer_norm" => {
            let names = ["input", "normalized_shape", "weight", "bias", "eps"];
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            let x = bound.tensor(0)?;
            let count = interpreter.to_shape(bound.required(1)?, bound.span_of(1), &full)?.len();
            let dims: Vec<isize> = (1..=count as isize).map(|back| -back).collect();
            let eps = bound.float(4, Some(1e-5))?;
            let normed = x
                .reduce(ReduceOp::Mean, Some(&dims), true)
                .and_then(|mean| x.binary(BinaryOp::Sub, &mean))
                .and_then(|centered| {
                    let deviation =
                        x.reduce(ReduceOp::Var, Some(&dims), true)?.add_scalar(eps)?.unary(UnaryOp::Sqrt)?;
                    centered.binary(BinaryOp::Div, &deviation)
                })
                .map_err(fail)?;
            let scaled = match bound.optional(2) {
                None | Some(Value::None) => normed,
                Some(_) => normed.binary(BinaryOp::Mul, &bound.tensor(2)?).map_err(fail)?,
            };
            match bound.optional(3) {
                None | Some(Value::None) => Ok(TensorObject::value(scaled)),
                Some(_) => wrap(scaled.binary(BinaryOp::Add, &bound.tensor(3)?)),
            }
        }
        _ => {
            // nn.functional.linear(input, weight, bias=None): input @ weightᵀ + bias.
            let bound = interpreter.bind(&full, &["input", "weight", "bias"], arguments, false, span)?;
            let (x, weight) = (bound.tensor(0)?, bound.tensor(1)?);
            let product = weight.transpose(-2, -1).and_then(|weight_t| x.matmul(&weight_t, false, false, None));
            match bound.optional(2) {
                None | Some(Value::None) => wrap(product),
                Some(_) => {
                    let bias = bound.tensor(2)?;
                    wrap(product.and_then(|product| product.binary(BinaryOp::Add, &bias)))
                }
            }
        }
    }
}

/// A zero of `x`'s dtype (a scalar that broadcasts).
fn zero_like(x: &Var) -> crate::autograd::Result<Var> {
    Ok(Var::constant(Tensor::scalar(0.0, x.dtype())))
}

/// Calls the tensor method `name` (one of `METHODS`) of `object`.
pub(crate) fn method(
    interpreter: &Interpreter,
    object: &Rc<TensorObject>,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    let full = format!("Tensor.{name}");
    let var = object.get();
    let wrap = |result: crate::autograd::Result<Var>| interpreter.tensor_result(result, span);
    match name {
        "argmax" | "argmin" => {
            let bound = interpreter.bind(&full, &["dim", "keepdim"], arguments, false, span)?;
            let mut forwarded = Arguments::empty();
            forwarded.positional.push((Value::Tensor(object.clone()), span));
            for (index, keyword) in ["dim", "keepdim"].into_iter().enumerate() {
                if let Some(value) = bound.optional(index) {
                    forwarded.keywords.push((keyword.to_string(), value.clone(), bound.span_of(index)));
                }
            }
            crate::lang::interp::pypto::functions::torch_indices(interpreter, name, forwarded, span)
        }
        "expand" => {
            let bound = interpreter.bind(&full, &[], arguments, true, span)?;
            let dims = match bound.rest.as_slice() {
                [(value @ (Value::List(_) | Value::Tuple(_)), _)] => interpreter.iterate(value, span)?,
                items => items.iter().map(|(value, _)| value.clone()).collect(),
            };
            // -1 keeps the dim's size (counted from the end, as torch aligns shapes).
            let rank = var.shape().len();
            let shape = dims
                .iter()
                .enumerate()
                .map(|(index, dim)| match dim.as_int() {
                    Some(-1) => (index + rank).checked_sub(dims.len()).map_or(1, |own| var.shape()[own]),
                    Some(size) => size.max(0) as usize,
                    None => 1,
                })
                .collect::<Vec<_>>();
            let zeros = Tensor::full(&shape, 0.0, var.dtype()).map(Var::constant);
            wrap(zeros.map_err(Into::into).and_then(|zeros| var.binary(BinaryOp::Add, &zeros)))
        }
        "masked_fill" => {
            let bound = interpreter.bind(&full, &["mask", "value"], arguments, false, span)?;
            let fill = interpreter.operand(bound.required(1)?, var.dtype(), bound.span_of(1))?;
            wrap(Var::select(&bound.tensor(0)?, &fill, &var))
        }
        "type_as" => {
            let bound = interpreter.bind(&full, &["other"], arguments, false, span)?;
            let dtype = bound.tensor(0)?.dtype();
            if dtype == var.dtype() {
                return Ok(Value::Tensor(object.clone()));
            }
            wrap(var.cast(dtype))
        }
        _ => {
            // mul_: the product written into the tensor (aliases see it), which is also returned.
            let bound = interpreter.bind(&full, &["other"], arguments, false, span)?;
            let other = interpreter.operand(bound.required(0)?, var.dtype(), bound.span_of(0))?;
            let product = var.binary(BinaryOp::Mul, &other).and_then(|product| product.cast(var.dtype()));
            let product = product.map_err(|error| interpreter.autograd_error(error, span))?;
            *object.var.borrow_mut() = product;
            Ok(Value::Tensor(object.clone()))
        }
    }
}

/// `torch.max(x, dim, keepdim=False)` / `min`: the `(values, indices)` pair along `dim` (indices
/// DT_INT64, the first extreme on ties as the tensor core's topk orders them).
pub(crate) fn extreme_along(
    interpreter: &Interpreter,
    name: &str,
    x: &Var,
    (dim, keepdim): (i64, bool),
    span: Span,
) -> Result<Value> {
    let fail = |error| interpreter.autograd_error(error, span);
    let rank = x.shape().len();
    let index = axis(interpreter, &format!("torch.{name}"), dim, rank, span)?;
    let (values, indices) = x.topk(1, index as isize, name == "max").map_err(fail)?;
    let indices = indices.cast(DType::I64).map_err(fail)?;
    let (values, indices) = if keepdim {
        (values, indices)
    } else {
        let mut shape = x.shape().to_vec();
        shape.remove(index);
        (values.reshape(&shape).map_err(fail)?, indices.reshape(&shape).map_err(fail)?)
    };
    Ok(super::return_types::values_and_indices(interpreter, name, values, indices))
}
