//! `pypto.pypto_impl`, pypto's compiled core, as far as model files call it directly: the scalar
//! forms of the element-wise ops (`ScalarDivS(operand, Element(dtype, value), reverse_operand)`,
//! which their quantisation helpers wrap with `op_wrapper`) and the `Element` they take.

use super::super::error::Result;
use super::super::eval::Arguments;
use super::super::interpreter::Interpreter;
use super::super::value::Value;
use crate::lang::syntax::Span;

/// The scalar ops and the `pypto` op each one computes.
const SCALAR_OPS: [(&str, &str); 5] = [
    ("ScalarAddS", "add"),
    ("ScalarSubS", "sub"),
    ("ScalarMulS", "mul"),
    ("ScalarDivS", "div"),
    ("ScalarMaxS", "maximum"),
];

/// Whether `short` (`pypto_impl.ScalarDivS`) is a function of this file.
pub(crate) fn handles(short: &str) -> bool {
    short
        .strip_prefix("pypto_impl.")
        .is_some_and(|name| name == "Element" || SCALAR_OPS.iter().any(|(op, _)| *op == name))
}

/// Calls `pypto_impl.name`.
pub(crate) fn call(interpreter: &Interpreter, short: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let name = short.strip_prefix("pypto_impl.").unwrap_or(short);
    let full = format!("pypto.{short}");
    if name == "Element" {
        // A scalar of `dtype`: the number itself, an int for an integer dtype.
        let bound = interpreter.bind(&full, &["dtype", "data"], arguments, false, span)?;
        bound.required(0)?;
        let dtype = bound.dtype(0, crate::tensor::DType::F32)?;
        let data = bound.float(1, None)?;
        return Ok(if dtype.is_float() { Value::Float(data) } else { Value::Int(data.trunc() as i64) });
    }
    let op = SCALAR_OPS.iter().find(|(scalar, _)| *scalar == name).map_or("div", |(_, op)| op);
    let bound = interpreter.bind(&full, &["operand", "value", "reverse_operand"], arguments, false, span)?;
    let operand = (bound.required(0)?.clone(), bound.span_of(0));
    let value = (bound.required(1)?.clone(), bound.span_of(1));
    // `reverse_operand` puts the scalar first: `ScalarDivS(x, 127, True)` is 127 / x.
    let positional = if bound.flag(2, false)? { vec![value, operand] } else { vec![operand, value] };
    super::call_unmetered(interpreter, op, Arguments { positional, keywords: Vec::new() }, span)
}
