//! torch's creation functions: `randn rand randperm zeros ones empty full tensor arange manual_seed` and the
//! `*_like` family, with torch's signatures (sizes as varargs or one tuple/list, `dtype=`,
//! `device=` sets the device the tensor reports).

use super::{dtype_argument, shape_of};
use crate::autograd::Var;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::LibraryTorchMessage;
use crate::tensor::{manual_seed, DType, Tensor};

/// Calls the creation function `name` (without `torch.`).
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("torch.{name}");
    let tensor_error = |error| interpreter.tensor_error(error, span);
    let (tensor, requires_grad) = match name {
        "randn" | "rand" | "zeros" | "ones" | "empty" => {
            // `*size` then keywords: positionals are the size, never a dtype (or `size=` by keyword).
            let keywords = Arguments { positional: Vec::new(), keywords: arguments.keywords };
            let bound =
                interpreter.bind(&full, &["dtype", "device", "requires_grad", "size"], keywords, false, span)?;
            let shape = match (bound.optional(3), arguments.positional.is_empty()) {
                (Some(_), true) => bound.shape(3)?,
                (Some(_), false) => {
                    let message = crate::messages::RuntimeMessage::MultipleValues {
                        function: full.clone(),
                        parameter: "size".into(),
                    };
                    return Err(interpreter.error(ErrorKind::Type, "", bound.span_of(3)).with_message(message));
                }
                (None, _) => shape_of(interpreter, &full, &arguments.positional, span)?,
            };
            interpreter.check_elements(&shape, span)?;
            let dtype = dtype_argument(interpreter, &full, bound.optional(0), DType::F32, bound.span_of(0))?;
            let tensor = match name {
                "randn" => Tensor::randn(&shape, dtype, None),
                "rand" => Tensor::rand(&shape, dtype, None),
                "ones" => Tensor::full(&shape, 1.0, dtype),
                // torch leaves `empty` uninitialised; zeros make a kernel that forgets to write an
                // output fail its check deterministically.
                _ => Tensor::full(&shape, 0.0, dtype),
            };
            (tensor.map_err(tensor_error)?, bound.flag(2, false)?)
        }
        "eye" => {
            let names = ["n", "m", "dtype", "device", "requires_grad"];
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            let size = |index: usize| -> Result<usize> {
                let given = bound.int(index, None)?;
                usize::try_from(given).map_err(|_| {
                    let message = crate::messages::LibraryKernelMessage::MustBePositive {
                        function: full.clone(),
                        parameter: names[index].into(),
                        got: Some(given),
                    };
                    interpreter.error(ErrorKind::Value, "", bound.span_of(index)).with_message(message)
                })
            };
            let rows = size(0)?;
            let columns = match bound.optional(1) {
                None | Some(Value::None) => rows,
                Some(_) => size(1)?,
            };
            interpreter.check_elements(&[rows, columns], span)?;
            let dtype = dtype_argument(interpreter, &full, bound.optional(2), DType::F32, bound.span_of(2))?;
            let values =
                (0..rows * columns).map(|flat| f64::from(u8::from(flat / columns == flat % columns))).collect();
            (Tensor::from_f64(values, &[rows, columns], dtype).map_err(tensor_error)?, bound.flag(4, false)?)
        }
        "randint" => {
            // torch's two forms: `randint(high, size)` and `randint(low, high, size)`.
            // `randint(high, size)` or `randint(low, high, size)`: two positionals are (high, size)
            // unless `size=` comes by keyword, as in `randint(0, 128, size=(m, n))`.
            let size_by_keyword = arguments.keywords.iter().any(|(key, _, _)| key == "size");
            let (low_high, rest) = match arguments.positional.len() {
                2 if !size_by_keyword => (1, 1),
                _ => (2, 2),
            };
            let names: &[&str] = if low_high == 1 {
                &["high", "size", "dtype", "device", "requires_grad"]
            } else {
                &["low", "high", "size", "dtype", "device", "requires_grad"]
            };
            let bound = interpreter.bind(&full, names, arguments, false, span)?;
            let low = if low_high == 2 { bound.int(0, None)? } else { 0 };
            let high = bound.int(low_high - 1, None)?;
            let shape = bound.shape(rest)?;
            interpreter.check_elements(&shape, span)?;
            let dtype =
                dtype_argument(interpreter, &full, bound.optional(rest + 1), DType::I64, bound.span_of(rest + 1))?;
            if high <= low {
                let message = LibraryTorchMessage::EmptyRandomRange { low, high };
                return Err(interpreter.error(ErrorKind::Value, "", span).with_message(message));
            }
            let uniform = Tensor::rand(&shape, DType::F32, None).map_err(tensor_error)?;
            let width = (high - low) as f64;
            let values = uniform
                .to_f64_vec()
                .into_iter()
                .map(|u| (low as f64 + (u * width).floor()).min(high as f64 - 1.0))
                .collect();
            (Tensor::from_f64(values, &shape, dtype).map_err(tensor_error)?, false)
        }
        "randperm" => {
            let names = ["n", "dtype", "device", "requires_grad"];
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            let count = bound.int(0, None)?;
            let Ok(count) = usize::try_from(count) else {
                let message = crate::messages::OperationMessage::NegativeSize { function: full.clone(), size: count };
                return Err(interpreter.error(ErrorKind::Value, "", bound.span_of(0)).with_message(message));
            };
            interpreter.check_elements(&[count], span)?;
            let dtype = dtype_argument(interpreter, &full, bound.optional(1), DType::I64, bound.span_of(1))?;
            // Fisher–Yates over 0..n with the seeded uniform draws: every order equally likely.
            let draws = Tensor::rand(&[count], DType::F64, None).map_err(tensor_error)?.to_f64_vec();
            let mut order: Vec<f64> = (0..count).map(|index| index as f64).collect();
            for last in (1..count).rev() {
                let chosen = ((draws[last] * (last + 1) as f64) as usize).min(last);
                order.swap(last, chosen);
            }
            (Tensor::from_f64(order, &[count], dtype).map_err(tensor_error)?, bound.flag(3, false)?)
        }
        "full" => {
            let names = ["size", "fill_value", "dtype", "device", "requires_grad"];
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            let shape = bound.shape(0)?;
            interpreter.check_elements(&shape, span)?;
            let dtype = dtype_argument(interpreter, &full, bound.optional(2), DType::F32, bound.span_of(2))?;
            (Tensor::full(&shape, bound.float(1, None)?, dtype).map_err(tensor_error)?, bound.flag(4, false)?)
        }
        "tensor" => {
            let bound =
                interpreter.bind(&full, &["data", "dtype", "device", "requires_grad"], arguments, false, span)?;
            let data = bound.required(0)?;
            let dtype = match bound.optional(1) {
                Some(_) => dtype_argument(interpreter, &full, bound.optional(1), DType::F32, bound.span_of(1))?,
                None => inferred_dtype(interpreter, data, bound.span_of(0))?,
            };
            (interpreter.tensor_from_data(data, dtype, bound.span_of(0))?, bound.flag(3, false)?)
        }
        // `torch.Tensor(data)`: the float32 tensor of `data` (also the type `isinstance` tests against).
        "Tensor" => {
            let bound = interpreter.bind(&full, &["data"], arguments, false, span)?;
            (interpreter.tensor_from_data(bound.required(0)?, DType::F32, bound.span_of(0))?, false)
        }
        "arange" => {
            let names = ["start", "end", "step", "dtype", "device", "requires_grad"];
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            let (start, end, step) =
                crate::lang::interp::pypto::creation::arange_range(interpreter, &bound, "torch", span)?;
            let dtype = match bound.optional(3) {
                Some(_) => dtype_argument(interpreter, &full, bound.optional(3), DType::F32, bound.span_of(3))?,
                None => {
                    let bounds: Vec<Value> = (0..3).filter_map(|index| bound.optional(index).cloned()).collect();
                    inferred_dtype(interpreter, &Value::list(bounds), span)?
                }
            };
            (Tensor::arange(start, end, step, dtype).map_err(tensor_error)?, bound.flag(5, false)?)
        }
        "manual_seed" => {
            let bound = interpreter.bind(&full, &["seed"], arguments, false, span)?;
            manual_seed(bound.int(0, None)? as u64);
            return Ok(Value::None);
        }
        "full_like" => {
            let bound = interpreter.bind(&full, &["input", "fill_value", "dtype", "device"], arguments, false, span)?;
            let like = bound.tensor(0)?;
            let dtype = dtype_argument(interpreter, &full, bound.optional(2), like.dtype(), bound.span_of(2))?;
            (Tensor::full(like.shape(), bound.float(1, None)?, dtype).map_err(tensor_error)?, false)
        }
        _ => {
            // zeros_like ones_like empty_like randn_like rand_like
            let bound = interpreter.bind(&full, &["input", "dtype", "device"], arguments, false, span)?;
            let like = bound.tensor(0)?;
            let dtype = dtype_argument(interpreter, &full, bound.optional(1), like.dtype(), bound.span_of(1))?;
            let shape = like.shape().to_vec();
            let tensor = match name {
                "ones_like" => Tensor::full(&shape, 1.0, dtype),
                "randn_like" => Tensor::randn(&shape, dtype, None),
                "rand_like" => Tensor::rand(&shape, dtype, None),
                _ => Tensor::full(&shape, 0.0, dtype),
            };
            (tensor.map_err(tensor_error)?, false)
        }
    };
    Ok(TensorObject::value(Var::new(tensor, requires_grad)))
}

/// torch's dtype for data given without `dtype=`: float32 when any element is a float; integer
/// data would be int64 (and bools bool), which the tensor core does not hold yet.
fn inferred_dtype(interpreter: &Interpreter, data: &Value, span: Span) -> Result<DType> {
    /// The widest kind of number in `value`: 0 bool, 1 int, 2 float (`None`: no numbers).
    fn widest(value: &Value, interpreter: &Interpreter, span: Span) -> Result<Option<u8>> {
        match value {
            Value::Bool(_) => Ok(Some(0)),
            Value::Float(_) | Value::Tensor(_) => Ok(Some(2)),
            Value::List(_) | Value::Tuple(_) => {
                let mut any = None;
                for item in interpreter.iterate(value, span)? {
                    match widest(&item, interpreter, span)? {
                        Some(2) => return Ok(Some(2)),
                        Some(kind) => any = Some(any.map_or(kind, |seen: u8| seen.max(kind))),
                        None => {}
                    }
                }
                Ok(any)
            }
            _ => Ok(Some(1)),
        }
    }
    if let Value::Tensor(object) = data {
        return Ok(object.get().dtype());
    }
    match widest(data, interpreter, span)? {
        Some(2) => Ok(DType::F32),
        // An empty list is float32 in torch too.
        None => Ok(DType::F32),
        // Only bools make a bool tensor, as in torch.
        Some(0) => Ok(DType::Bool),
        // Integer data makes an int64 tensor in torch, once pypto has DT_INT64.
        Some(_) => super::pypto_dtype(interpreter, "DT_INT64", span).map_err(|_| {
            interpreter
                .error(ErrorKind::Unsupported, "", span)
                .with_message(LibraryTorchMessage::IntegerData)
                .with_help_message(LibraryTorchMessage::FloatData)
        }),
    }
}
