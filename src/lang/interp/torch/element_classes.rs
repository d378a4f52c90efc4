//! `torch.isnan`, `torch.isinf` and `torch.isfinite` (also as tensor methods): a bool tensor that
//! says which elements are NaN, ±infinity, or neither. Integer and bool tensors are always finite.

use crate::autograd::Var;
use crate::lang::interp::error::Result;
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::Span;
use crate::tensor::{DType, Tensor};

/// The functions of this file (without `torch.`).
pub(crate) const FUNCTIONS: [&str; 3] = ["isnan", "isinf", "isfinite"];

/// Calls `torch.<name>(input)`, `name` one of [`FUNCTIONS`].
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind(&format!("torch.{name}"), &["input"], arguments, false, span)?;
    let input = bound.tensor(0)?;
    let test: fn(f64) -> bool = match name {
        "isnan" => f64::is_nan,
        "isinf" => f64::is_infinite,
        _ => f64::is_finite,
    };
    let flags = input.tensor().to_f64_vec().into_iter().map(|value| f64::from(u8::from(test(value)))).collect();
    let result =
        Tensor::from_f64(flags, input.shape(), DType::Bool).map_err(|error| interpreter.tensor_error(error, span))?;
    Ok(TensorObject::value(Var::constant(result)))
}
