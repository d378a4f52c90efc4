//! pypto's `SymbolicScalar`: loop indices, dims, values a kernel reads from an integer tensor and
//! what is computed from them. In pypto they are expressions that the kernel's control flow
//! evaluates at run time; here every value is known when the kernel runs, so they are ints and
//! compute at once. This file has the constructor (`pypto.SymbolicScalar(value)`,
//! `SymbolicScalar(name)`, `SymbolicScalar(name, value)`) and the methods pypto documents for
//! them, which every int has: `min`, `max`, `concrete`, `is_concrete`, `is_immediate`,
//! `is_symbol`, `is_expression`, `simplify`, `as_variable`.

use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryKernelMessage, LibraryMessage};

/// The methods of a symbolic scalar, which every int has here.
pub(crate) const METHODS: [&str; 9] =
    ["min", "max", "concrete", "is_concrete", "is_immediate", "is_symbol", "is_expression", "simplify", "as_variable"];

/// `pypto.SymbolicScalar(value)`, `SymbolicScalar(name)`, `SymbolicScalar(name, value)` (pybind's
/// parameters: `value`, `name`, or `name` and `value`). An int (or a copy of a scalar) is itself. A
/// named symbol is read where pypto's runtime reads it: given a value, that value; without one,
/// nothing here binds it (TileLab's loop indices and dims are values, not named symbols), so it
/// reads 0, which is what pypto's runtime symbol table holds for a symbol nothing writes (the
/// table starts zeroed); a warning says so.
pub(crate) fn construct(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let full = "pypto.SymbolicScalar";
    let bound = interpreter.bind(full, &["name", "value"], arguments, false, span)?;
    let expected_int = |value: &Value, at: Span| {
        interpreter.error(ErrorKind::Type, "", at).with_message(LibraryMessage::Expected {
            function: format!("{full}()"),
            expected: Kind::Int,
            got: value.type_name().to_string(),
        })
    };
    let int_value = |index: usize| -> Result<i64> {
        let value = bound.required(index)?;
        match value {
            Value::Bool(flag) => Ok(i64::from(*flag)),
            Value::Int(number) => Ok(*number),
            other => Err(expected_int(other, bound.span_of(index))),
        }
    };
    match (bound.optional(0), bound.optional(1)) {
        (Some(Value::Str(_)), Some(_)) => Ok(Value::Int(int_value(1)?)),
        (Some(Value::Str(name)), None) => {
            let message = LibraryKernelMessage::UnboundSymbol { name: name.to_string() };
            let help = LibraryKernelMessage::SymbolValue { name: name.to_string() };
            interpreter.warn_message("lang/unbound-symbol", message.into(), span, Some(help.into()));
            Ok(Value::Int(0))
        }
        (Some(_), None) => Ok(Value::Int(int_value(0)?)),
        (None, Some(_)) => Ok(Value::Int(int_value(1)?)),
        // An int first with a value second: pybind has no such form (its `(name, value)` takes a str).
        (Some(first), Some(_)) => {
            Err(interpreter.error(ErrorKind::Type, "", bound.span_of(0)).with_message(LibraryMessage::Expected {
                function: format!("{full}()"),
                expected: Kind::Str,
                got: first.type_name().into(),
            }))
        }
        (None, None) => Err(expected_int(bound.required(0)?, bound.span_of(0))),
    }
}

/// A method of a symbolic scalar on an int: `scalar.min(other)` / `max(other)` (pypto's
/// `(m - off).min(tile_m)`), and the questions pypto asks of an expression, answered for a value
/// that is known: concrete and immediate, neither a symbol nor an expression.
pub(crate) fn int_method(
    interpreter: &Interpreter,
    receiver: &Value,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    let function = format!("SymbolicScalar.{name}");
    match name {
        "min" | "max" => {
            let bound = interpreter.bind(&function, &["other"], arguments, false, span)?;
            scalar_extreme(interpreter, name, receiver, bound.required(0)?, span)
        }
        "concrete" | "simplify" => interpreter.bind(&function, &[], arguments, false, span).map(|_| receiver.clone()),
        "is_concrete" | "is_immediate" => {
            interpreter.bind(&function, &[], arguments, false, span).map(|_| Value::Bool(true))
        }
        "is_symbol" | "is_expression" => {
            interpreter.bind(&function, &[], arguments, false, span).map(|_| Value::Bool(false))
        }
        "as_variable" => interpreter.bind(&function, &[], arguments, false, span).map(|_| Value::None),
        _ => Err(interpreter.coded(
            ErrorKind::Attribute,
            crate::messages::OperationMessage::NoMethod { type_name: receiver.type_name().into(), name: name.into() },
            span,
        )),
    }
}

/// The smaller (`min`) or larger (`max`) of two scalars (`pypto.min(a, b)`, `a.min(b)`).
pub(crate) fn scalar_extreme(interpreter: &Interpreter, name: &str, a: &Value, b: &Value, span: Span) -> Result<Value> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Ok(Value::Int(if name == "min" { *x.min(y) } else { *x.max(y) })),
        _ => match (a.as_number(), b.as_number()) {
            (Some(x), Some(y)) if !matches!(a, Value::Tensor(_)) && !matches!(b, Value::Tensor(_)) => {
                Ok(Value::Float(if name == "min" { x.min(y) } else { x.max(y) }))
            }
            _ => {
                let message = LibraryMessage::TwoScalars {
                    function: format!("pypto.{name}"),
                    left: a.type_name().to_string(),
                    right: b.type_name().to_string(),
                };
                let help = LibraryMessage::TensorExtremes {
                    elementwise: format!("pypto.{}", if name == "min" { "minimum" } else { "maximum" }),
                    reduction: if name == "min" { "amin" } else { "amax" }.into(),
                };
                Err(interpreter.error(ErrorKind::Type, "", span).with_message(message).with_help_message(help))
            }
        },
    }
}
