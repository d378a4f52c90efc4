//! The element-wise functions of one tensor (`pypto.exp`, `pypto.sin`, `pypto.gelu` …): each binds
//! pypto's parameter names for it, and a temporary argument lends its buffer to the result.

use super::super::capture::{CapturedOp, TensorRef};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::messages::LibraryMessage;
use crate::tensor::{DType, UnaryOp};

/// Calls `op` as the function `full` (`pypto.name`).
pub(super) fn call(
    interpreter: &Interpreter,
    full: &str,
    op: UnaryOp,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    // Only `gelu` has an `approximate=` keyword (torch's "none" | "tanh"); any other op rejects it
    // as an unexpected keyword, and any other mode is an error rather than a silent erf. The ops
    // added for pypto's names bind pypto's parameter names (`erf(self)`, `sign(a)`).
    let names: &[&str] = match op {
        UnaryOp::GeluErf => &["x", "approximate"],
        UnaryOp::Erf | UnaryOp::Atan => &["self"],
        UnaryOp::Sign => &["a"],
        UnaryOp::Exp2
        | UnaryOp::Erfc
        | UnaryOp::Ceil
        | UnaryOp::Floor
        | UnaryOp::Trunc
        | UnaryOp::Expm1
        | UnaryOp::Log1p
        | UnaryOp::Sinh
        | UnaryOp::Cosh
        | UnaryOp::Asinh
        | UnaryOp::Tan
        | UnaryOp::Acosh
        | UnaryOp::Atanh
        | UnaryOp::Cbrt => &["input"],
        // pypto's precision_type picks a hardware instruction; the simulation computes in f32.
        UnaryOp::Exp | UnaryOp::Log | UnaryOp::Log2 | UnaryOp::Log10 | UnaryOp::Sqrt | UnaryOp::Rsqrt => {
            &["input", "precision_type"]
        }
        UnaryOp::Reciprocal => &["a", "precision_type"],
        _ => &["x"],
    };
    let mut bound = interpreter.bind(full, names, arguments, false, span)?;
    if names.get(1) == Some(&"precision_type") {
        check_precision_type(interpreter, full, bound.values[1].as_ref())?;
    }
    let x = bound.tensor(0)?;
    let op = match op {
        UnaryOp::GeluErf => {
            let mode = bound.values.get(1).and_then(|given| given.as_ref().map(|(value, _)| value));
            gelu_op(interpreter, full, mode, bound.span_of(1))?
        }
        _ => op,
    };
    let captured = interpreter.in_kernel().then(|| CapturedOp::Unary { op, x: TensorRef::of(x.tensor()) });
    // A temporary argument (`pypto.sin(x * 0.37)`) lends its buffer to the result.
    drop(x);
    let (argument, argument_span) = bound.values[0].take().expect("bound above");
    let x = interpreter.owned_operand(argument, DType::F32, argument_span)?;
    let result = interpreter.tensor_result(x.unary_owned(op), span)?;
    if let Some(captured) = captured {
        interpreter.capture(Some(&result), || captured);
    }
    Ok(result)
}

/// pypto's `precision_type=` of `full` (given as `value`): a `pypto.PrecisionType` member, `None`
/// or nothing. It picks the hardware instruction on a device; the simulation computes in f32 either way.
pub(in super::super) fn check_precision_type(
    interpreter: &Interpreter,
    full: &str,
    value: Option<&(Value, Span)>,
) -> Result<()> {
    let Some((value, value_span)) = value else { return Ok(()) };
    // `None` is pypto's default (INTRINSIC, or HIGH_PRECISION for div and reciprocal).
    if matches!(value, Value::None) || super::super::copies::enum_member_name(value, "PrecisionType").is_some() {
        return Ok(());
    }
    let message = LibraryMessage::ArgumentType {
        function: full.to_string(),
        parameter: "precision_type".into(),
        expected: crate::messages::Kind::Enumeration { name: "PrecisionType".into() },
        got: value.type_name().to_string(),
    };
    Err(interpreter.error(ErrorKind::Type, "", *value_span).with_message(message))
}

/// The op of gelu's `approximate=` (torch's "none", the exact erf form, or "tanh"; absent: "none");
/// any other value is an error at `mode_span` naming the function `full`.
pub(crate) fn gelu_op(interpreter: &Interpreter, full: &str, mode: Option<&Value>, mode_span: Span) -> Result<UnaryOp> {
    match mode {
        None => Ok(UnaryOp::GeluErf),
        Some(Value::Str(mode)) if mode.as_ref() == "none" => Ok(UnaryOp::GeluErf),
        Some(Value::Str(mode)) if mode.as_ref() == "tanh" => Ok(UnaryOp::GeluTanh),
        Some(other) => {
            let message = LibraryMessage::OneOf {
                function: full.to_string(),
                parameter: "approximate".into(),
                choices: vec!["\"none\"".into(), "\"tanh\"".into()],
                got: Some(crate::lang::interp::format::repr(other)),
            };
            Err(interpreter
                .error(ErrorKind::Value, "", mode_span)
                .with_message(message)
                .with_help_message(LibraryMessage::GeluModes))
        }
    }
}
