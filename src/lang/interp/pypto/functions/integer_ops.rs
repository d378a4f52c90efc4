//! pypto's integer-only element-wise functions (`bitwise_and/or/xor/not`, `bitwise_left_shift`,
//! `bitwise_right_shift`, `gcd`) and torch's functions of the same names on the host. Either
//! operand of a binary one may be a number (pypto's `*s` forms), which takes the tensor's dtype.
//! Not differentiable: the result is a constant.

use super::super::capture::CapturedOp;
use crate::autograd::Var;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage};
use crate::tensor::IntegerOp;
use crate::tile::VectorOp;

/// The names this file binds.
pub(super) const NAMES: [&str; 7] =
    ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift", "gcd"];

/// Calls `module.name` (`pypto`, or `torch` on the host) for one of `NAMES`.
pub(crate) fn call(
    interpreter: &Interpreter,
    module: &str,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    let Some(op) = IntegerOp::from_name(name) else { unreachable!("{name} is one of NAMES") };
    let full = format!("{module}.{name}");
    let names: &[&str] = if op.arity() == 1 { &["input"] } else { &["input", "other"] };
    let bound = interpreter.bind(&full, names, arguments, false, span)?;
    let values: Vec<Value> = (0..op.arity()).map(|index| bound.required(index).cloned()).collect::<Result<_>>()?;
    let Some(dtype) = values.iter().find_map(|value| match value {
        Value::Tensor(object) => Some(object.get().dtype()),
        _ => None,
    }) else {
        let message = LibraryMessage::Needs { function: format!("{full}()"), what: Kind::AtLeastOneTensor };
        return Err(interpreter.error(ErrorKind::Type, "", span).with_message(message));
    };
    let operands = values
        .iter()
        .enumerate()
        .map(|(index, value)| interpreter.operand(value, dtype, bound.span_of(index)))
        .collect::<Result<Vec<Var>>>()?;
    let tensor = operands[0]
        .tensor()
        .integer_op(op, operands.get(1).map(Var::tensor))
        .map_err(|error| interpreter.tensor_error(error, span))?;
    let result = interpreter.tensor_result(Ok(Var::constant(tensor)), span)?;
    let captured: Vec<&Value> = values.iter().collect();
    interpreter.capture(Some(&result), || CapturedOp::vector(VectorOp::Integer(op), &captured));
    Ok(result)
}
