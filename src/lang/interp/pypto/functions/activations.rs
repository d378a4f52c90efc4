//! pypto's `lrelu(x, negative_slope=0.01)` and torch's `F.leaky_relu(input, negative_slope=0.01)`:
//! `x` where `x ≥ 0`, `negative_slope · x` elsewhere, written as pypto's own `ge`, `mul` and `where`
//! so that each is captured in a kernel (the NPU runs the three vector ops) and differentiates
//! through them.

use crate::lang::interp::error::Result;
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;

/// The names this file binds.
pub(super) const NAMES: [&str; 1] = ["lrelu"];

/// `module.name(…)`: `pypto.lrelu(other, negative_slope)` or `torch.nn.functional.leaky_relu(input,
/// negative_slope)`.
pub(crate) fn leaky_relu(interpreter: &Interpreter, full: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let first = if full.starts_with("pypto.") { "other" } else { "input" };
    let bound = interpreter.bind(full, &[first, "negative_slope"], arguments, false, span)?;
    let x = bound.required(0)?.clone();
    bound.tensor(0)?;
    let slope = Value::Float(bound.float(1, Some(0.01))?);
    let call = |name: &str, values: Vec<Value>| {
        let positional = values.into_iter().map(|value| (value, span)).collect();
        super::call(interpreter, name, Arguments { positional, keywords: Vec::new() }, span)
    };
    let kept = call("ge", vec![x.clone(), Value::Float(0.0)])?;
    let scaled = call("mul", vec![x.clone(), slope])?;
    call("where", vec![kept, x, scaled])
}
