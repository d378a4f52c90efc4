//! torch's tensor functions that goldens call: element-wise (`exp sigmoid relu …`, `add mul
//! maximum …`), reductions (`sum mean amax amin var max min`), `softmax`, `matmul`, shape ops
//! (`transpose reshape permute unsqueeze squeeze cat stack`), `clamp`, and `torch.nn.functional`'s
//! activations. Each maps onto the tensor core's op of the same meaning.

use crate::autograd::Var;
use crate::lang::interp::call::Bound;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::pypto::functions::unary::gelu_op;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::messages::{AutogradMessage, Kind, LibraryMessage, LibraryTensorMessage, LibraryTorchMessage};
use crate::tensor::{BinaryOp, DType, ReduceOp, SoftmaxOp, UnaryOp};

/// The unary functions, by torch name, with their op (`nn.functional.*` included).
fn unary_op(name: &str) -> Option<UnaryOp> {
    let short = name.strip_prefix("nn.functional.").unwrap_or(name);
    match short {
        "abs" | "neg" | "exp" | "log" | "sqrt" | "rsqrt" | "reciprocal" | "sin" | "cos" | "tanh" | "sigmoid"
        | "relu" | "silu" | "erf" | "ceil" | "floor" | "exp2" | "trunc" | "expm1" | "log1p" | "sinh" | "cosh"
        | "atan" | "asinh" | "sign" | "log2" | "log10" | "tan" | "acosh" | "atanh" | "cbrt" | "_prims.cbrt" => {
            UnaryOp::from_name(short.trim_start_matches("_prims."))
        }
        "erfc" => Some(UnaryOp::Erfc),
        "negative" => Some(UnaryOp::Neg),
        _ => None,
    }
}

/// Calls the torch function `name` (without `torch.`).
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("torch.{name}");
    let wrap = |result: crate::autograd::Result<Var>| interpreter.tensor_result(result, span);
    if let Some(op) = unary_op(name) {
        let mut bound = interpreter.bind(&full, &["input"], arguments, false, span)?;
        bound.tensor(0)?;
        // A temporary argument (`torch.sigmoid(x @ w)`) lends its buffer to the result.
        let (argument, argument_span) = bound.values[0].take().expect("bound above");
        return wrap(interpreter.owned_operand(argument, DType::F32, argument_span)?.unary_owned(op));
    }
    match name {
        "nn.functional.gelu" => {
            let bound = interpreter.bind(&full, &["input", "approximate"], arguments, false, span)?;
            let op = gelu_op(interpreter, &full, bound.optional(1), bound.span_of(1))?;
            wrap(bound.tensor(0)?.unary(op))
        }
        "add" | "sub" | "subtract" => {
            let bound = interpreter.bind(&full, &["input", "other", "alpha"], arguments, false, span)?;
            let (a, b) = pair(interpreter, &bound)?;
            let alpha = bound.float(2, Some(1.0))?;
            let b = if alpha == 1.0 { b } else { b.scale(alpha).map_err(|e| interpreter.autograd_error(e, span))? };
            wrap(a.binary(if name == "add" { BinaryOp::Add } else { BinaryOp::Sub }, &b))
        }
        "mul" | "multiply" | "div" | "divide" | "true_divide" | "maximum" | "minimum" | "remainder" => {
            let bound = interpreter.bind(&full, &["input", "other"], arguments, false, span)?;
            let (a, b) = pair(interpreter, &bound)?;
            let op = match name {
                "mul" | "multiply" => BinaryOp::Mul,
                "maximum" => BinaryOp::Maximum,
                "minimum" => BinaryOp::Minimum,
                "remainder" => BinaryOp::Remainder,
                _ => BinaryOp::Div,
            };
            wrap(a.binary(op, &b))
        }
        "pow" => {
            let bound = interpreter.bind(&full, &["input", "exponent"], arguments, false, span)?;
            let (a, b) = pair(interpreter, &bound)?;
            wrap(a.binary(BinaryOp::Pow, &b))
        }
        "sum" | "mean" => {
            let bound = interpreter.bind(&full, &["input", "dim", "keepdim", "dtype"], arguments, false, span)?;
            let x = cast_to(interpreter, &full, bound.tensor(0)?, bound.optional(3), bound.span_of(3))?;
            let op = if name == "sum" { ReduceOp::Sum } else { ReduceOp::Mean };
            wrap(x.reduce(op, bound.dims(1)?.as_deref(), bound.flag(2, false)?))
        }
        "amax" | "amin" => {
            let bound = interpreter.bind(&full, &["input", "dim", "keepdim"], arguments, false, span)?;
            let op = if name == "amax" { ReduceOp::Amax } else { ReduceOp::Amin };
            wrap(bound.tensor(0)?.reduce(op, bound.dims(1)?.as_deref(), bound.flag(2, false)?))
        }
        "var" => {
            let names = ["input", "dim", "unbiased", "keepdim", "correction"];
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            variance(interpreter, &bound.tensor(0)?, &bound, [1, 2, 3, 4], span)
        }
        "max" | "min" => {
            let bound = interpreter.bind(&full, &["input", "dim", "keepdim", "other"], arguments, false, span)?;
            let (slot, keepdim) = (if bound.optional(3).is_some() { 3 } else { 1 }, bound.flag(2, false)?);
            match bound.optional(slot) {
                Some(Value::Int(dim)) => {
                    super::golden_functions::extreme_along(interpreter, name, &bound.tensor(0)?, (*dim, keepdim), span)
                }
                other => extreme(interpreter, name, &bound.tensor(0)?, other, bound.span_of(slot), span),
            }
        }
        "softmax" | "log_softmax" | "nn.functional.softmax" | "nn.functional.log_softmax" => {
            let bound = interpreter.bind(&full, &["input", "dim", "dtype"], arguments, false, span)?;
            let x = cast_to(interpreter, &full, bound.tensor(0)?, bound.optional(2), bound.span_of(2))?;
            let op = if name.ends_with("log_softmax") { SoftmaxOp::LogSoftmax } else { SoftmaxOp::Softmax };
            wrap(x.softmax_like(op, bound.int(1, Some(-1))? as isize))
        }
        "matmul" | "mm" | "bmm" => {
            let bound = interpreter.bind(&full, &["input", "other"], arguments, false, span)?;
            let (a, b) = (bound.tensor(0)?, bound.tensor(1)?);
            let rank = if name == "mm" {
                Some(2)
            } else if name == "bmm" {
                Some(3)
            } else {
                None
            };
            if let Some(rank) = rank.filter(|&rank| a.shape().len() != rank || b.shape().len() != rank) {
                let message = LibraryTorchMessage::RankRequired {
                    function: full.clone(),
                    rank,
                    lhs: a.shape().to_vec(),
                    rhs: b.shape().to_vec(),
                };
                return Err(interpreter
                    .error(ErrorKind::Value, "", span)
                    .with_message(message)
                    .with_help_message(LibraryTorchMessage::MatmulBroadcasts));
            }
            wrap(vector_matmul(&a, &b))
        }
        "transpose" | "swapaxes" => {
            let bound = interpreter.bind(&full, &["input", "dim0", "dim1"], arguments, false, span)?;
            wrap(bound.tensor(0)?.transpose(bound.int(1, None)? as isize, bound.int(2, None)? as isize))
        }
        "reshape" => {
            let bound = interpreter.bind(&full, &["input", "shape"], arguments, false, span)?;
            let x = bound.tensor(0)?;
            let shape = interpreter.resolve_shape(&x, bound.required(1)?, bound.span_of(1))?;
            wrap(x.reshape(&shape))
        }
        "permute" => {
            let bound = interpreter.bind(&full, &["input", "dims"], arguments, false, span)?;
            let x = bound.tensor(0)?;
            let order = permutation(interpreter, &x, bound.required(1)?, bound.span_of(1))?;
            wrap(x.permute(&order))
        }
        "unsqueeze" | "squeeze" => {
            let bound = interpreter.bind(&full, &["input", "dim"], arguments, false, span)?;
            let x = bound.tensor(0)?;
            let dim = bound.optional(1).map(|_| bound.int(1, None)).transpose()?;
            let shape = squeezed_shape(interpreter, name, x.shape(), dim, bound.span_of(1))?;
            wrap(x.reshape(&shape))
        }
        "cat" | "concat" | "concatenate" | "stack" => {
            let bound = interpreter.bind(&full, &["tensors", "dim"], arguments, false, span)?;
            let dim = bound.int(1, Some(0))?;
            let mut parts = tensors_of(interpreter, &full, bound.required(0)?, bound.span_of(0))?;
            if name == "stack" {
                let rank = parts.first().map_or(0, |part| part.shape().len());
                let axis = if dim < 0 { dim + rank as i64 + 1 } else { dim };
                parts = parts
                    .iter()
                    .map(|part| {
                        let shape = squeezed_shape(interpreter, "unsqueeze", part.shape(), Some(axis), span)?;
                        part.reshape(&shape).map_err(|error| interpreter.autograd_error(error, span))
                    })
                    .collect::<Result<Vec<_>>>()?;
            }
            wrap(Var::concat(&parts, dim as isize))
        }
        "gather" | "scatter" | "where" | "round" | "eq" | "ne" | "lt" | "le" | "gt" | "ge" | "greater" | "less"
        | "greater_equal" | "less_equal" | "not_equal" | "logical_not" | "logical_and" => {
            crate::lang::interp::pypto::functions::torch_selection(interpreter, name, arguments, span)
        }
        "bitwise_and"
        | "bitwise_or"
        | "bitwise_xor"
        | "bitwise_not"
        | "bitwise_left_shift"
        | "bitwise_right_shift"
        | "gcd" => crate::lang::interp::pypto::functions::torch_integer(interpreter, name, arguments, span),
        "argmax" | "argmin" => crate::lang::interp::pypto::functions::torch_indices(interpreter, name, arguments, span),
        "hypot" => crate::lang::interp::pypto::functions::composites::call(interpreter, &full, arguments, span),
        "nn.functional.leaky_relu" => {
            crate::lang::interp::pypto::functions::activations::leaky_relu(interpreter, &full, arguments, span)
        }
        "clamp" | "clip" => {
            let bound = interpreter.bind(&full, &["input", "min", "max"], arguments, false, span)?;
            let low = bound.optional(1).map(|_| bound.float(1, None)).transpose()?;
            let high = bound.optional(2).map(|_| bound.float(2, None)).transpose()?;
            wrap(bound.tensor(0)?.clip(low, high))
        }
        _ => Err(interpreter
            .error(ErrorKind::Attribute, "", span)
            .with_message(LibraryMessage::NotInTileScripts { name: full.clone() })
            .with_help_message(LibraryMessage::TorchListing)),
    }
}

/// The two operands of a binary function: the tensor's dtype is the scalar's.
fn pair(interpreter: &Interpreter, bound: &Bound<'_>) -> Result<(Var, Var)> {
    let (first, second) = (bound.required(0)?, bound.required(1)?);
    let dtype = match (first, second) {
        (Value::Tensor(object), _) | (_, Value::Tensor(object)) => object.get().dtype(),
        _ => DType::F32,
    };
    Ok((interpreter.operand(first, dtype, bound.span_of(0))?, interpreter.operand(second, dtype, bound.span_of(1))?))
}

/// `x` cast to the `dtype=` argument when one is given (torch casts before reducing).
fn cast_to(interpreter: &Interpreter, function: &str, x: Var, dtype: Option<&Value>, span: Span) -> Result<Var> {
    match dtype {
        None => Ok(x),
        Some(_) => {
            let dtype = super::dtype_argument(interpreter, function, dtype, x.dtype(), span)?;
            x.cast(dtype).map_err(|error| interpreter.autograd_error(error, span))
        }
    }
}

/// torch's variance: Bessel-corrected unless `unbiased=False` / `correction=0`. `slots` are the
/// indices of dim, unbiased, keepdim, correction in `bound`.
pub(crate) fn variance(
    interpreter: &Interpreter,
    x: &Var,
    bound: &Bound<'_>,
    slots: [usize; 4],
    span: Span,
) -> Result<Value> {
    let [dim_slot, unbiased_slot, keepdim_slot, correction_slot] = slots;
    let dims = bound.dims(dim_slot)?;
    let correction = match bound.optional(correction_slot) {
        Some(_) => bound.float(correction_slot, None)?,
        None => f64::from(u8::from(bound.flag(unbiased_slot, true)?)),
    };
    let count: usize = match &dims {
        None => x.shape().iter().product(),
        Some(dims) => dims
            .iter()
            .map(|&dim| {
                let rank = x.shape().len() as isize;
                let axis = if dim < 0 { dim + rank } else { dim };
                x.shape().get(axis as usize).copied().unwrap_or(1)
            })
            .product(),
    };
    let population = x.reduce(ReduceOp::Var, dims.as_deref(), bound.flag(keepdim_slot, false)?);
    let scaled = population.and_then(|variance| {
        if correction == 0.0 {
            return Ok(variance);
        }
        // n / (n − correction) turns the population variance into the corrected one (inf at n = 1, as in torch).
        variance.scale(count as f64 / (count as f64 - correction))
    });
    interpreter.tensor_result(scaled, span)
}

/// `max(x)` / `min(x)`: the extreme element; with a tensor `other`, the element-wise extreme. The
/// `(values, indices)` form (`max(x, dim)`) is not available.
pub(crate) fn extreme(
    interpreter: &Interpreter,
    name: &str,
    x: &Var,
    other: Option<&Value>,
    other_span: Span,
    span: Span,
) -> Result<Value> {
    let (reduce, binary) =
        if name == "max" { (ReduceOp::Amax, BinaryOp::Maximum) } else { (ReduceOp::Amin, BinaryOp::Minimum) };
    match other {
        None => interpreter.tensor_result(x.reduce(reduce, None, false), span),
        Some(Value::Tensor(object)) => interpreter.tensor_result(x.binary(binary, &object.get()), span),
        Some(_) => Err(interpreter
            .error(ErrorKind::Unsupported, "", other_span)
            .with_message(LibraryTorchMessage::NoIndices { function: name.to_string() })
            .with_help_message(LibraryTorchMessage::UseAmax { function: name.to_string() })),
    }
}

/// The permutation `dims` (a list/tuple of ints, negatives counted from the end).
pub(crate) fn permutation(interpreter: &Interpreter, x: &Var, dims: &Value, span: Span) -> Result<Vec<usize>> {
    let rank = x.shape().len() as i64;
    let items = interpreter.iterate(dims, span)?;
    let order = items
        .iter()
        .map(|item| match item.as_int() {
            Some(dim) if (-rank..rank).contains(&dim) => Ok(if dim < 0 { dim + rank } else { dim } as usize),
            _ => {
                let message = LibraryTensorMessage::NotADim {
                    function: "permute".into(),
                    item: crate::lang::interp::format::repr(item),
                    rank: rank as usize,
                };
                Err(interpreter.error(ErrorKind::Value, "", span).with_message(message))
            }
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(order)
}

/// The shape after `unsqueeze(dim)` or `squeeze(dim)` (`squeeze()` drops every size-1 dim).
pub(crate) fn squeezed_shape(
    interpreter: &Interpreter,
    name: &str,
    shape: &[usize],
    dim: Option<i64>,
    span: Span,
) -> Result<Vec<usize>> {
    let mut shape = shape.to_vec();
    let rank = shape.len() as i64;
    // unsqueeze inserts a dim, so its range reaches one past the last.
    let top = if name == "unsqueeze" { rank } else { rank - 1 };
    let out_of_range = |dim: i64| {
        let low = -top - 1;
        let message = AutogradMessage::DimOutOfRange { op: name.to_string(), dim, rank: rank as usize, low, high: top };
        interpreter.error(ErrorKind::Value, "", span).with_message(message)
    };
    match (name, dim) {
        ("unsqueeze", Some(dim)) => {
            let axis = if dim < 0 { dim + rank + 1 } else { dim };
            if !(0..=rank).contains(&axis) {
                return Err(out_of_range(dim));
            }
            shape.insert(axis as usize, 1);
        }
        ("unsqueeze", None) => {
            let message = LibraryMessage::Needs { function: "unsqueeze()".into(), what: Kind::Dim };
            return Err(interpreter.error(ErrorKind::Type, "", span).with_message(message));
        }
        (_, Some(dim)) => {
            let axis = if dim < 0 { dim + rank } else { dim };
            if !(0..rank).contains(&axis) {
                return Err(out_of_range(dim));
            }
            if shape[axis as usize] == 1 {
                shape.remove(axis as usize);
            }
        }
        (_, None) => shape.retain(|&size| size != 1),
    }
    Ok(shape)
}

/// The tensors of a list or tuple argument.
fn tensors_of(interpreter: &Interpreter, function: &str, value: &Value, span: Span) -> Result<Vec<Var>> {
    interpreter
        .iterate(value, span)?
        .iter()
        .map(|item| match item {
            Value::Tensor(object) => Ok(object.get()),
            other => {
                let message = LibraryMessage::Expected {
                    function: function.to_string(),
                    expected: Kind::Tensors,
                    got: other.type_name().to_string(),
                };
                Err(interpreter.error(ErrorKind::Type, "", span).with_message(message))
            }
        })
        .collect()
}

/// torch.matmul's rule for a 1-D operand: a vector on the left is a row (`[n] @ [.., n, m]`), on the
/// right a column (`[.., m, n] @ [n]`), and that dim is dropped from the result (two vectors give
/// their dot product, a 0-d tensor).
pub(crate) fn vector_matmul(a: &Var, b: &Var) -> crate::autograd::Result<Var> {
    let (a_vector, b_vector) = (a.shape().len() == 1, b.shape().len() == 1);
    let a = if a_vector { a.reshape(&[1, a.shape()[0]])? } else { a.clone() };
    let b = if b_vector { b.reshape(&[b.shape()[0], 1])? } else { b.clone() };
    let product = a.matmul(&b, false, false, None)?;
    let mut shape = product.shape().to_vec();
    let rank = shape.len();
    if b_vector {
        shape.remove(rank - 1);
    }
    if a_vector {
        shape.remove(rank - 2);
    }
    if a_vector || b_vector {
        product.reshape(&shape)
    } else {
        Ok(product)
    }
}
