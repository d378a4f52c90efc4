//! torch's comparisons: `allclose` (same dtype, broadcasting, `|a − b| ≤ atol + rtol·|b|`), `equal`,
//! and `testing.assert_close` with torch's default tolerances per dtype, its strict shape and dtype
//! checks, and its mismatch report. Values are compared in f64, as torch promotes them to.

use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::format::{format_float, to_str};
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage, LibraryTorchMessage, Message};
use crate::tensor::{BinaryOp, DType, Tensor};

/// torch's default `(rtol, atol)` of `torch.testing.assert_close` for `dtype`.
pub(crate) fn default_tolerances(dtype: DType) -> (f64, f64) {
    match dtype {
        DType::F16 => (1e-3, 1e-5),
        DType::Bf16 => (1.6e-2, 1e-5),
        DType::F32 => (1.3e-6, 1e-5),
        // float64 (and, once they exist, the integer dtypes, which torch compares exactly).
        _ => (1e-7, 1e-7),
    }
}

/// Calls `allclose`, `equal` or `testing.assert_close`.
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("torch.{name}");
    match name {
        "allclose" => {
            let names = ["input", "other", "rtol", "atol", "equal_nan"];
            let bound = interpreter.bind(&full, &names, arguments, false, span)?;
            let (a, b) =
                (compared(interpreter, bound.required(0)?, span)?, compared(interpreter, bound.required(1)?, span)?);
            if a.1 != b.1 {
                let message = LibraryTorchMessage::DtypesDiffer {
                    function: full.clone(),
                    left: torch_name(a.1),
                    right: torch_name(b.1),
                };
                return Err(interpreter
                    .error(ErrorKind::Type, "", span)
                    .with_message(message)
                    .with_help_message(LibraryTorchMessage::CastOneSide));
            }
            let (a, b) = broadcast(interpreter, &a.0, &b.0, span)?;
            let tolerance = (bound.float(2, Some(1e-5))?, bound.float(3, Some(1e-8))?);
            let mismatched = mismatches(&a.to_f64_vec(), &b.to_f64_vec(), tolerance, bound.flag(4, false)?);
            Ok(Value::Bool(mismatched.is_empty()))
        }
        "equal" => {
            let bound = interpreter.bind(&full, &["input", "other"], arguments, false, span)?;
            let (a, b) =
                (compared(interpreter, bound.required(0)?, span)?, compared(interpreter, bound.required(1)?, span)?);
            Ok(Value::Bool(a.0.shape() == b.0.shape() && a.0.to_f64_vec() == b.0.to_f64_vec()))
        }
        _ => assert_close(interpreter, &full, arguments, span),
    }
}

/// `torch.testing.assert_close(actual, expected, rtol=None, atol=None, equal_nan=False, check_dtype=True, msg=None)`.
fn assert_close(interpreter: &Interpreter, full: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let names = ["actual", "expected", "rtol", "atol", "equal_nan", "check_dtype", "msg"];
    let bound = interpreter.bind(full, &names, arguments, false, span)?;
    let (actual, actual_dtype) = compared(interpreter, bound.required(0)?, bound.span_of(0))?;
    let (expected, expected_dtype) = compared(interpreter, bound.required(1)?, bound.span_of(1))?;
    // torch's own report, or the script's `msg=` as it is.
    let fail = |message: LibraryTorchMessage| {
        let message = match bound.optional(6) {
            Some(custom) => Message::Text { text: to_str(custom) },
            None => message.into(),
        };
        interpreter.error(ErrorKind::Assertion, "", span).with_message(message)
    };
    let tolerance = match (bound.optional(2), bound.optional(3)) {
        (Some(_), Some(_)) => (bound.float(2, None)?, bound.float(3, None)?),
        (None, None) => {
            let (a, b) = (default_tolerances(actual_dtype), default_tolerances(expected_dtype));
            (a.0.max(b.0), a.1.max(b.1))
        }
        (given, _) => {
            let missing = if given.is_some() { "atol" } else { "rtol" };
            let message = LibraryTorchMessage::BothTolerances { function: full.to_string(), missing: missing.into() };
            return Err(interpreter.error(ErrorKind::Value, "", span).with_message(message));
        }
    };
    if actual.shape() != expected.shape() {
        return Err(fail(LibraryTorchMessage::AttributeMismatch {
            attribute: "shape".into(),
            actual: size_text(actual.shape()),
            expected: size_text(expected.shape()),
        }));
    }
    if bound.flag(5, true)? && actual_dtype != expected_dtype {
        return Err(fail(LibraryTorchMessage::AttributeMismatch {
            attribute: "dtype".into(),
            actual: torch_name(actual_dtype),
            expected: torch_name(expected_dtype),
        })
        .with_help_message(LibraryTorchMessage::CastOrUnchecked));
    }
    let (a, e) = (actual.to_f64_vec(), expected.to_f64_vec());
    let mismatched = mismatches(&a, &e, tolerance, bound.flag(4, false)?);
    if mismatched.is_empty() {
        return Ok(Value::None);
    }
    let worst_by = |measure: &dyn Fn(usize) -> f64| -> (f64, usize) {
        (0..a.len()).map(|index| (measure(index), index)).fold((f64::NEG_INFINITY, 0), |best, next| {
            if next.0 > best.0 || (next.0.is_nan() && !best.0.is_nan()) {
                next
            } else {
                best
            }
        })
    };
    let absolute = worst_by(&|index| (a[index] - e[index]).abs());
    let relative = worst_by(&|index| (a[index] - e[index]).abs() / e[index].abs());
    let at = |index: usize| index_text(&crate::tensor::unravel_index(index, actual.shape()));
    let percent = 100.0 * mismatched.len() as f64 / a.len().max(1) as f64;
    Err(fail(LibraryTorchMessage::NotClose {
        mismatched: mismatched.len(),
        total: a.len(),
        percent: format!("{percent:.1}"),
        absolute: format_float(absolute.0),
        absolute_at: at(absolute.1),
        atol: format_float(tolerance.1),
        relative: format_float(relative.0),
        relative_at: at(relative.1),
        rtol: format_float(tolerance.0),
    }))
}

/// A tensor or a Python number as an f64 tensor, with the dtype torch would give it (a number is
/// float64).
fn compared(interpreter: &Interpreter, value: &Value, span: Span) -> Result<(Tensor, DType)> {
    match value {
        Value::Tensor(object) => {
            let var = object.get();
            let tensor = var.tensor().cast(DType::F64).map_err(|error| interpreter.tensor_error(error, span))?;
            Ok((tensor, var.dtype()))
        }
        Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
            Ok((interpreter.tensor_from_data(value, DType::F64, span)?, DType::F64))
        }
        other => Err(interpreter
            .error(ErrorKind::Type, "", span)
            .with_message(LibraryMessage::Operand { expected: Kind::Compared, got: other.type_name().to_string() })),
    }
}

/// Both sides broadcast to their common shape.
fn broadcast(interpreter: &Interpreter, a: &Tensor, b: &Tensor, span: Span) -> Result<(Tensor, Tensor)> {
    let error = |error| interpreter.tensor_error(error, span);
    let zero_for_a = Tensor::zeros(b.shape(), DType::F64).map_err(error)?;
    let zero_for_b = Tensor::zeros(a.shape(), DType::F64).map_err(error)?;
    Ok((a.binary(BinaryOp::Add, &zero_for_a).map_err(error)?, b.binary(BinaryOp::Add, &zero_for_b).map_err(error)?))
}

/// The flat indices where `|a − b| > atol + rtol·|b|` (NaN equal to NaN only with `equal_nan`).
fn mismatches(a: &[f64], b: &[f64], (rtol, atol): (f64, f64), equal_nan: bool) -> Vec<usize> {
    a.iter()
        .zip(b)
        .enumerate()
        .filter(|(_, (&x, &y))| {
            let close = if x.is_nan() || y.is_nan() {
                equal_nan && x.is_nan() && y.is_nan()
            } else {
                x == y || (x - y).abs() <= atol + rtol * y.abs()
            };
            !close
        })
        .map(|(index, _)| index)
        .collect()
}

/// torch's name of a dtype (`torch.float32`).
pub(crate) fn torch_name(dtype: DType) -> String {
    let pypto = dtype.pypto_name();
    let name = match pypto {
        "DT_FP32" => "float32",
        "DT_FP16" => "float16",
        "DT_BF16" => "bfloat16",
        "DT_FP64" => "float64",
        "DT_BOOL" => "bool",
        // DT_INT32 → int32, DT_UINT8 → uint8.
        other => return format!("torch.{}", other.trim_start_matches("DT_").to_lowercase()),
    };
    format!("torch.{name}")
}

fn size_text(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("torch.Size([{}])", dims.join(", "))
}

fn index_text(index: &[usize]) -> String {
    match index {
        [single] => format!("({single},)"),
        _ => format!("({})", index.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    }
}
