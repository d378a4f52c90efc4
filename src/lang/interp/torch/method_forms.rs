//! torch's tensor methods beyond `methods`: a torch function called as a method with the tensor
//! first (`x.clamp(0, 1)` is `torch.clamp(x, 0, 1)`, `x.chunk(2)`, `x.sort()` …), the in-place form
//! of any method or function (`x.add_(y)` writes `x + y` into `x`, `x.clamp_(0, 1)`), the random
//! fills `uniform_` and `normal_`, `repeat`, and the functions `square`, `std` and `tile`. The writes go
//! through `x[...] = value`, so they broadcast, round to `x`'s dtype, and are refused on a leaf
//! that requires grad, as torch refuses them.

use std::rc::Rc;

use crate::autograd::Var;
use crate::lang::interp::api_table::{self, ApiKind};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::LibraryTorchMessage;
use crate::tensor::{DType, Tensor};

/// The methods of this file besides the function and in-place forms.
const OWN: [&str; 3] = ["uniform_", "normal_", "repeat"];

/// torch functions that make tensors rather than take one: never a method.
const NOT_METHODS: [&str; 8] =
    ["manual_seed", "tensor", "from_numpy", "is_tensor", "allclose", "equal", "cat", "stack"];

/// Whether `x.name` is a method of this file.
pub(crate) fn is_method(name: &str) -> bool {
    OWN.contains(&name) || function_form(name) || in_place_form(name).is_some()
}

/// Whether `torch.name` is a documented function that takes a tensor first.
fn function_form(name: &str) -> bool {
    !NOT_METHODS.contains(&name)
        && !name.contains('.')
        && api_table::lookup(&format!("torch.{name}")).is_some_and(|entry| {
            // torch names the tensor `input`, and `tensor` in `torch.split`.
            let takes_tensor = |first: &api_table::ApiParameter| matches!(first.name.as_str(), "input" | "tensor");
            entry.kind == ApiKind::Function && entry.parameters.first().is_some_and(takes_tensor)
        })
}

/// The method `x.name_` writes the result of: `name` when it is a method or function form.
fn in_place_form(name: &str) -> Option<&str> {
    let base = name.strip_suffix('_').filter(|base| !base.is_empty() && !base.ends_with('_'))?;
    let known = super::methods::is_torch_method(base)
        || function_form(base)
        || super::methods::is_pypto_function(base)
        || OWN.contains(&base);
    known.then_some(base)
}

/// Calls the method `name` (one `is_method` accepts) of `object`.
pub(crate) fn call(
    interpreter: &Interpreter,
    object: &Rc<TensorObject>,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    let full = format!("Tensor.{name}");
    let same = Value::Tensor(object.clone());
    let var = object.get();
    match name {
        "uniform_" | "normal_" => {
            let names = if name == "uniform_" { ["from", "to", "generator"] } else { ["mean", "std", "generator"] };
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            // Both default to 0 and 1: [0, 1) for uniform_, N(0, 1) for normal_.
            let (first, second) = (bound.float(0, Some(0.0))?, bound.float(1, Some(1.0))?);
            let random = match name {
                "uniform_" => Tensor::rand(var.shape(), DType::F32, None),
                _ => Tensor::randn(var.shape(), DType::F32, None),
            }
            .map_err(|error| interpreter.tensor_error(error, span))?;
            // uniform_: from + (to - from)·U[0, 1); normal_: mean + std·N(0, 1).
            let (scale, offset) = if name == "uniform_" { (second - first, first) } else { (second, first) };
            let value = Var::constant(random)
                .scale(scale)
                .and_then(|scaled| scaled.add_scalar(offset))
                .map_err(|error| interpreter.autograd_error(error, span))?;
            interpreter.set_item(&same, &Value::Ellipsis, TensorObject::value(value), span)?;
            Ok(same)
        }
        "repeat" => {
            let bound = interpreter.bind(&full, &[], arguments, true, span)?;
            let sizes = match bound.rest.as_slice() {
                [(value @ (Value::List(_) | Value::Tuple(_)), _)] => interpreter.iterate(value, span)?,
                rest => rest.iter().map(|(value, _)| value.clone()).collect(),
            };
            let sizes = repeat_sizes(interpreter, &sizes, span)?;
            repeat(interpreter, &var, &sizes, span)
        }
        _ if function_form(name) => {
            let mut positional = vec![(same, span)];
            positional.extend(arguments.positional);
            super::call(
                interpreter,
                &format!("torch.{name}"),
                Arguments { positional, keywords: arguments.keywords },
                span,
            )
        }
        _ => {
            let base = in_place_form(name).unwrap_or(name);
            let result = interpreter.call_method(&same, base, arguments, span)?;
            interpreter.set_item(&same, &Value::Ellipsis, result, span)?;
            Ok(same)
        }
    }
}

/// `x.repeat(*sizes)`: `x` tiled `sizes[d]` times along each dim (leading dims of one added when
/// `sizes` is longer than the rank; shorter is torch's error).
/// Counts of `repeat` and `tile`: whole numbers (ints or one-element integer tensors).
fn repeat_sizes(interpreter: &Interpreter, sizes: &[Value], span: Span) -> Result<Vec<usize>> {
    sizes
        .iter()
        .map(|size| crate::lang::interp::sizes::index_of(size).and_then(|size| usize::try_from(size).ok()))
        .collect::<Option<_>>()
        .ok_or_else(|| interpreter.coded(ErrorKind::Type, LibraryTorchMessage::RepeatSizes, span))
}

fn repeat(interpreter: &Interpreter, var: &Var, sizes: &[usize], span: Span) -> Result<Value> {
    let rank = var.shape().len();
    if sizes.len() < rank {
        let message = LibraryTorchMessage::RepeatRank { sizes: sizes.len(), rank };
        return Err(interpreter.coded(ErrorKind::Value, message, span));
    }
    let mut shape = vec![1; sizes.len() - rank];
    shape.extend_from_slice(var.shape());
    let result_shape: Vec<usize> = shape.iter().zip(sizes).map(|(size, count)| size * count).collect();
    interpreter.check_elements(&result_shape, span)?;
    if result_shape.contains(&0) {
        let empty = Tensor::zeros(&result_shape, var.dtype()).map_err(|error| interpreter.tensor_error(error, span))?;
        return Ok(TensorObject::value(Var::constant(empty)));
    }
    let wrap = |result: crate::autograd::Result<Var>| result.map_err(|error| interpreter.autograd_error(error, span));
    let mut result = wrap(var.reshape(&shape))?;
    for (dim, &count) in sizes.iter().enumerate() {
        if count > 1 {
            result = wrap(Var::concat(&vec![result.clone(); count], dim as isize))?;
        }
    }
    Ok(TensorObject::value(result))
}

/// `torch.square(input)` and `torch.std(input, dim, unbiased, keepdim, correction)`.
pub(crate) fn function(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("torch.{name}");
    match name {
        // torch's tile is repeat with `dims` padded by leading 1s up to the tensor's rank.
        "tile" => {
            let bound = interpreter.bind(&full, &["input", "dims"], arguments, false, span)?;
            let var = bound.tensor(0)?;
            let dims = match bound.required(1)? {
                dims @ (Value::List(_) | Value::Tuple(_)) => interpreter.iterate(dims, bound.span_of(1))?,
                dims => vec![dims.clone()],
            };
            let mut sizes = repeat_sizes(interpreter, &dims, bound.span_of(1))?;
            let rank = var.shape().len();
            if sizes.len() < rank {
                sizes.splice(0..0, std::iter::repeat_n(1, rank - sizes.len()));
            }
            repeat(interpreter, &var, &sizes, span)
        }
        "square" => {
            let bound = interpreter.bind(&full, &["input"], arguments, false, span)?;
            let x = bound.tensor(0)?;
            interpreter.tensor_result(x.mul(&x), span)
        }
        _ => {
            let names = ["input", "dim", "unbiased", "keepdim", "correction"];
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            let variance = super::ops::variance(interpreter, &bound.tensor(0)?, &bound, [1, 2, 3, 4], span)?;
            super::call(
                interpreter,
                "torch.sqrt",
                Arguments { positional: vec![(variance, span)], keywords: Vec::new() },
                span,
            )
        }
    }
}
