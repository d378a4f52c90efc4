//! A small `numpy` for the golden checks of pypto's examples, which compare a kernel's output
//! with a torch reference through numpy: `np.abs(out.cpu().numpy() - golden.cpu().numpy()).max()`
//! and `assert_allclose(np.array(out.cpu()), np.array(golden.cpu()), rtol=…, atol=…)`. An ndarray
//! is a TileLab tensor (so its methods, `.max()`, `.tolist()`, `.shape`, are the tensor's):
//! `np.array`/`np.asarray` of a tensor keep its dtype, of numbers and lists make float64 as numpy
//! does; `np.arange` (numpy's dtypes: int64, or float64 for float bounds); `np.abs`, `np.allclose`, `np.testing.assert_allclose` (numpy's defaults) and the dtypes
//! `np.float32`/`float16`/`float64`. Anything else is an error that names what exists.

use std::rc::Rc;

use super::api_table::{self, ApiKind};
use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::interpreter::Interpreter;
use super::value::{DTypeFamily, TensorObject, Value};
use crate::autograd::Var;
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage, Message};
use crate::tensor::DType;

/// `module.name` for `numpy` and `numpy.testing`, through the API table.
pub(crate) fn module_attribute(interpreter: &Interpreter, module: &str, name: &str, span: Span) -> Result<Value> {
    let qualified = format!("{module}.{name}");
    match api_table::lookup(&qualified).map(|entry| entry.kind) {
        Some(ApiKind::Function) => Ok(Value::Builtin(Rc::from(qualified.as_str()))),
        Some(ApiKind::Module) => Ok(Value::Module(Rc::from(qualified.as_str()))),
        Some(ApiKind::Constant) => match super::torch::dtype_named(name) {
            Some(Ok(dtype)) => Ok(Value::DType(dtype, DTypeFamily::Numpy)),
            Some(Err(pypto_name)) => {
                Ok(Value::DType(super::torch::pypto_dtype(interpreter, pypto_name, span)?, DTypeFamily::Numpy))
            }
            _ => Err(interpreter
                .error(ErrorKind::Attribute, "", span)
                .with_message(LibraryMessage::NoValueHere { name: qualified.clone() })),
        },
        _ => {
            let known: Vec<&str> = api_table::members(module).map(|entry| entry.short_name()).collect();
            let help = LibraryMessage::NumpyCovers { names: code_list(&known) };
            Err(super::pypto::missing_attribute(interpreter, module, name, help.into(), span))
        }
    }
}

/// Calls `numpy.<name>`: the arrays it makes are numpy's (`a.size` is their element count).
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let result = call_unmarked(interpreter, name, arguments, span)?;
    if let Value::Tensor(object) = &result {
        // A new array (not an argument handed back by `asarray`) is numpy's even where torch computed it.
        if Rc::strong_count(object) == 1 {
            object.torch.set(false);
        }
        object.numpy.set(true);
    }
    Ok(result)
}

fn call_unmarked(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let short = name.strip_prefix("numpy.").unwrap_or(name);
    // Arithmetic on numbers (`int(np.ceil(n / 16))` as a loop count) is fine in a kernel; arrays are
    // host data a kernel cannot read.
    let numbers_only = arguments.positional.iter().all(|(value, _)| value.as_number().is_some());
    if interpreter.in_kernel() && !(matches!(short, "ceil" | "floor" | "abs") && numbers_only) {
        return Err(interpreter
            .error(ErrorKind::Unsupported, "", span)
            .with_message(LibraryMessage::HostCode { name: name.to_string() })
            .with_help_message(LibraryMessage::NumpyAfterCall));
    }
    if let Some(function) = short.strip_prefix("random.") {
        return super::numpy_random::call(interpreter, function, arguments, span);
    }
    if short == "set_printoptions" {
        // Arrays print as TileLab's tensors whatever the options: accepted, so the scripts that
        // set them at their top run.
        let names = [
            "precision",
            "threshold",
            "edgeitems",
            "linewidth",
            "suppress",
            "nanstr",
            "infstr",
            "formatter",
            "sign",
            "floatmode",
            "legacy",
        ];
        interpreter.bind(name, &names, arguments, false, span)?;
        return Ok(Value::None);
    }
    match short {
        "array" | "asarray" => {
            let bound = interpreter.bind(name, &["object", "dtype"], arguments, false, span)?;
            let data = bound.required(0)?;
            let dtype = match (bound.optional(1), data) {
                (Some(Value::DType(dtype, _)), _) => *dtype,
                (Some(other), _) => {
                    let message = LibraryMessage::ArgumentType {
                        function: name.to_string(),
                        parameter: "dtype".into(),
                        expected: Kind::NumpyDtype,
                        got: other.type_name().to_string(),
                    };
                    return Err(interpreter.error(ErrorKind::Type, "", bound.span_of(1)).with_message(message));
                }
                (None, Value::Tensor(object)) => object.get().dtype(),
                (None, _) => DType::F64,
            };
            // `asarray` of a tensor already of that dtype is the same array, as in numpy.
            if let (Value::Tensor(object), "asarray") = (data, short) {
                if object.get().dtype() == dtype {
                    return Ok(data.clone());
                }
            }
            let tensor = interpreter.tensor_from_data(data, dtype, bound.span_of(0))?;
            // A copy: writing into the array leaves the tensor it came from as it was.
            Ok(TensorObject::value(Var::constant(tensor.deep_copy())))
        }
        "abs" => {
            let bound = interpreter.bind(name, &["x"], arguments, false, span)?;
            match bound.required(0)? {
                Value::Tensor(_) => {
                    let forwarded =
                        Arguments { positional: bound.values[0].iter().cloned().collect(), keywords: Vec::new() };
                    super::torch::call(interpreter, "torch.abs", forwarded, span)
                }
                Value::Int(value) => Ok(Value::Int(value.checked_abs().ok_or_else(|| {
                    let message = LibraryMessage::IntOutOfRange { function: "numpy.abs".into() };
                    interpreter.error(ErrorKind::Overflow, "", span).with_message(message)
                })?)),
                other => match other.as_number() {
                    Some(value) => Ok(Value::Float(value.abs())),
                    None => Err(interpreter.error(ErrorKind::Type, "", bound.span_of(0)).with_message(
                        LibraryMessage::ArgumentType {
                            function: "numpy.abs".into(),
                            parameter: "x".into(),
                            expected: Kind::ArrayOrNumber,
                            got: other.type_name().to_string(),
                        },
                    )),
                },
            }
        }
        // A number's class is a bool, an array's a mask (numpy's rule; torch computes the mask).
        "isnan" | "isinf" | "isfinite" => {
            let bound = interpreter.bind(name, &["x"], arguments, false, span)?;
            let value = bound.required(0)?;
            match value.as_number() {
                Some(number) if !matches!(value, Value::Tensor(_)) => Ok(Value::Bool(match short {
                    "isnan" => number.is_nan(),
                    "isinf" => number.is_infinite(),
                    _ => number.is_finite(),
                })),
                _ => {
                    let forwarded =
                        Arguments { positional: bound.values[0].iter().cloned().collect(), keywords: Vec::new() };
                    super::torch::call(interpreter, &format!("torch.{short}"), forwarded, span)
                }
            }
        }
        "ceil" | "floor" => {
            let bound = interpreter.bind(name, &["x"], arguments, false, span)?;
            match bound.required(0)? {
                Value::Tensor(_) => {
                    let forwarded =
                        Arguments { positional: bound.values[0].iter().cloned().collect(), keywords: Vec::new() };
                    super::torch::call(interpreter, &format!("torch.{short}"), forwarded, span)
                }
                // numpy rounds a number to a float (`int(np.ceil(n / 16))` is pypto tests' loop count).
                other => match other.as_number() {
                    Some(value) => Ok(Value::Float(if short == "ceil" { value.ceil() } else { value.floor() })),
                    None => Err(interpreter.error(ErrorKind::Type, "", bound.span_of(0)).with_message(
                        LibraryMessage::ArgumentType {
                            function: name.to_string(),
                            parameter: "x".into(),
                            expected: Kind::ArrayOrNumber,
                            got: other.type_name().to_string(),
                        },
                    )),
                },
            }
        }
        // numpy's dtype rule: int64 for int bounds, float64 once one is a float (torch's is float32).
        "arange" => {
            let bound = interpreter.bind(name, &["start", "stop", "step", "dtype"], arguments, false, span)?;
            let (start, stop, step) = super::pypto::creation::arange_range(interpreter, &bound, "numpy", span)?;
            let dtype = match bound.optional(3) {
                Some(Value::DType(dtype, _)) => *dtype,
                Some(other) => {
                    let message = LibraryMessage::ArgumentType {
                        function: name.to_string(),
                        parameter: "dtype".into(),
                        expected: Kind::NumpyDtype,
                        got: other.type_name().to_string(),
                    };
                    return Err(interpreter.error(ErrorKind::Type, "", bound.span_of(3)).with_message(message));
                }
                None if (0..3).any(|index| matches!(bound.optional(index), Some(Value::Float(_)))) => DType::F64,
                None => DType::I64,
            };
            let range = crate::tensor::Tensor::arange(start, stop, step, dtype)
                .map_err(|error| interpreter.tensor_error(error, span))?;
            Ok(TensorObject::value(Var::constant(range)))
        }
        // numpy's tile is torch's repeat once `reps` covers every dim (missing leading reps are 1).
        "tile" => {
            let bound = interpreter.bind(name, &["A", "reps"], arguments, false, span)?;
            // A list is an array first, as numpy's asarray makes it.
            let array = match bound.required(0)? {
                array @ Value::Tensor(_) => array.clone(),
                data => {
                    let data = Arguments { positional: vec![(data.clone(), bound.span_of(0))], keywords: Vec::new() };
                    call(interpreter, "array", data, span)?
                }
            };
            let mut reps = match bound.required(1)? {
                reps @ (Value::List(_) | Value::Tuple(_)) => interpreter.iterate(reps, bound.span_of(1))?,
                reps => vec![reps.clone()],
            };
            let rank = match &array {
                Value::Tensor(object) => object.get().shape().len(),
                _ => 0,
            };
            while reps.len() < rank {
                reps.insert(0, Value::Int(1));
            }
            let sizes = Arguments { positional: vec![(Value::tuple(reps), bound.span_of(1))], keywords: Vec::new() };
            interpreter.call_method(&array, "repeat", sizes, span)
        }
        "ndarray" => {
            let bound = interpreter.bind(name, &["shape", "dtype"], arguments, false, span)?;
            let dtype = bound.optional(1).cloned().unwrap_or(Value::DType(DType::F64, DTypeFamily::Numpy));
            let forwarded = Arguments {
                positional: vec![(bound.required(0)?.clone(), bound.span_of(0))],
                keywords: vec![("dtype".to_string(), dtype, span)],
            };
            super::torch::call(interpreter, "torch.zeros", forwarded, span)
        }
        "allclose" => super::pypto::check::call(interpreter, "allclose", arguments, span),
        "testing.assert_allclose" => {
            let names = ["actual", "desired", "rtol", "atol", "err_msg", "verbose"];
            let bound = interpreter.bind(name, &names, arguments, false, span)?;
            let message = match bound.optional(4) {
                Some(Value::Str(text)) => text.to_string(),
                _ => String::new(),
            };
            let keyword = |index: usize, default: f64| -> Result<(String, Value, Span)> {
                Ok((names[index].to_string(), Value::Float(bound.float(index, Some(default))?), bound.span_of(index)))
            };
            let forwarded = Arguments {
                positional: bound.values[..2]
                    .iter()
                    .map(|value| value.clone().unwrap_or((Value::None, span)))
                    .collect(),
                keywords: vec![keyword(2, 1e-7)?, keyword(3, 0.0)?],
            };
            bound.required(0)?;
            bound.required(1)?;
            super::pypto::check::call(interpreter, "assert_allclose", forwarded, span).map_err(|error| {
                if message.is_empty() {
                    return error;
                }
                // The script's text first, then the check's own message (coded when it is).
                let check = error.message_code.clone().unwrap_or_else(|| Message::Text { text: error.message.clone() });
                error.with_message(LibraryMessage::WithUserText { text: message.clone(), message: Box::new(check) })
            })
        }
        _ => Err(interpreter
            .error(ErrorKind::Attribute, "", span)
            .with_message(LibraryMessage::NotAvailableHere { name: name.to_string() })),
    }
}

/// Names as code in a message: each in backticks, comma-separated (any language reads them as code).
pub(crate) fn code_list(names: &[&str]) -> String {
    names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
}
