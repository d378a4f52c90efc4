//! `pypto.from_torch(t)` and `pypto.to_torch(t)`. In pypto they wrap a torch tensor's memory as a
//! pypto tensor and back, sharing the data (a kernel's writes into the wrapper show in the torch
//! tensor). Here both sides are the same TileLab tensors, so both return the very object they are
//! given: aliasing, shape and dtype are exactly pypto's.

use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage, LibraryTorchMessage};

/// Calls `from_torch` or `to_torch` (names without `pypto.`).
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("pypto.{name}");
    let names: &[&str] =
        if name == "from_torch" { &["tensor", "name", "dynamic_axis", "tensor_format", "dtype"] } else { &["tensor"] };
    let bound = interpreter.bind(&full, names, arguments, false, span)?;
    let Value::Tensor(object) = bound.required(0)? else {
        let given = bound.required(0)?.type_name();
        let message =
            LibraryMessage::Expected { function: full.clone(), expected: Kind::Tensor, got: given.to_string() };
        return Err(interpreter.error(ErrorKind::Type, "", bound.span_of(0)).with_message(message));
    };
    if name == "from_torch" {
        let var = object.get();
        if let Some(Value::Str(label)) = bound.optional(1) {
            if !label.is_empty() {
                var.name_if_unnamed(label);
            }
        }
        // pypto reads the same bytes as another dtype: a reinterpretation, not a conversion.
        if let Some(value) = bound.optional(4) {
            let dtype = super::dtype_argument(interpreter, &full, Some(value), var.dtype(), bound.span_of(4))?;
            if dtype != var.dtype() {
                let message = LibraryTorchMessage::Reinterpret {
                    function: full.clone(),
                    dtype: dtype.pypto_name().to_string(),
                    from: var.dtype().pypto_name().to_string(),
                };
                return Err(interpreter
                    .error(ErrorKind::Unsupported, "", bound.span_of(4))
                    .with_message(message)
                    .with_help_message(LibraryTorchMessage::ConvertValues));
            }
        }
    }
    Ok(Value::Tensor(object.clone()))
}

/// `torch.is_tensor(obj)`, `torch.is_floating_point(input)` and `torch.from_numpy(ndarray)` (names
/// without `torch.`). An ndarray is a
/// TileLab tensor here, so `from_numpy` returns that very tensor: it shares the array's memory, as
/// torch's does (writes through either show in both).
pub(crate) fn torch_call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("torch.{name}");
    let parameter = if name == "is_floating_point" { "input" } else { "obj" };
    let bound = interpreter.bind(&full, &[parameter], arguments, false, span)?;
    let given = bound.required(0)?;
    match (name, given) {
        ("is_tensor", _) => Ok(Value::Bool(matches!(given, Value::Tensor(_)))),
        // torch's floating point dtypes: float16, bfloat16, float32, float64.
        ("is_floating_point", Value::Tensor(object)) => Ok(Value::Bool(object.get().dtype().is_float())),
        (_, Value::Tensor(_)) => Ok(given.clone()),
        _ => {
            let message =
                LibraryMessage::Expected { function: full, expected: Kind::Tensor, got: given.type_name().to_string() };
            Err(interpreter.error(ErrorKind::Type, "", bound.span_of(0)).with_message(message))
        }
    }
}
