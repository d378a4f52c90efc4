//! pypto operations that pypto documents as a formula over its other operations, written as those
//! operations so that each is captured in a kernel (the NPU runs them as vector ops) and
//! differentiates through them: `hypot(input, other) = √(input² + other²)` (broadcast) and
//! `prelu(input, weight)`: `input` where `input ≥ 0`, `weight · input` elsewhere, the 1-D weight
//! shared along dim 1 (the channel dim; one weight for a 1-D input). torch's `hypot` on the host is
//! the same formula. `var(x, dim, keepdim, correction=c)`: the population variance (the reduction
//! the NPU runs) times n / max(0, n − c), pypto's formula, as one more vector `mul`.
//! `rms_norm(input, gamma=None, epsilon=1e-6)`: pypto's operator, in f32, over the last dim, `gamma`
//! (shape `[C]`) scaling it, the result cast back to the input's dtype.

use super::super::capture::CapturedOp;
use crate::lang::interp::error::Result;
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{DTypeFamily, Value};
use crate::lang::syntax::Span;
use crate::tensor::{DType, ReduceOp};

/// The names this file binds.
pub(super) const NAMES: [&str; 4] = ["hypot", "prelu", "var", "rms_norm"];

/// `module.name(…)` for `module.name` = `full` (`pypto.hypot`, `torch.hypot`, `pypto.prelu`).
pub(crate) fn call(interpreter: &Interpreter, full: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let call = |name: &str, values: Vec<Value>| forward(interpreter, name, values, span);
    if full.ends_with(".hypot") {
        let bound = interpreter.bind(full, &["input", "other"], arguments, false, span)?;
        bound.tensor(0)?;
        bound.tensor(1)?;
        let (input, other) = (bound.required(0)?.clone(), bound.required(1)?.clone());
        let input_square = call("mul", vec![input.clone(), input])?;
        let other_square = call("mul", vec![other.clone(), other])?;
        let sum = call("add", vec![input_square, other_square])?;
        return call("sqrt", vec![sum]);
    }
    if full.ends_with(".var") {
        return variance(interpreter, full, arguments, span);
    }
    if full.ends_with(".rms_norm") {
        return rms_norm(interpreter, full, arguments, span);
    }
    let bound = interpreter.bind(full, &["input", "weight"], arguments, false, span)?;
    let rank = bound.tensor(0)?.shape().len();
    let channels = bound.tensor(1)?.shape().iter().product::<usize>();
    let input = bound.required(0)?.clone();
    let mut weight = bound.required(1)?.clone();
    if rank >= 3 {
        // [C] → [C, 1, …, 1]: broadcast along dim 1 of an [N, C, …] input.
        let mut shape = vec![Value::Int(channels as i64)];
        shape.extend((2..rank).map(|_| Value::Int(1)));
        weight = call("reshape", vec![weight, Value::list(shape)])?;
    }
    let kept = call("ge", vec![input.clone(), Value::Float(0.0)])?;
    let scaled = call("mul", vec![input.clone(), weight])?;
    call("where", vec![kept, input, scaled])
}

/// `pypto.var(x, dim=None, keepdim=False, correction=0)`: without `correction` (or with 0) the
/// population variance, as before; with it pypto's σ² = Σ(x − x̄)² / max(0, n − correction).
fn variance(interpreter: &Interpreter, full: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind(full, &["x", "dim", "keepdim", "correction"], arguments, false, span)?;
    let x = bound.tensor(0)?;
    let dims = bound.dims(1)?;
    let correction = bound.float(3, Some(0.0))?;
    let reduced = x.reduce(ReduceOp::Var, dims.as_deref(), bound.flag(2, false)?);
    let result = interpreter.tensor_result(reduced, span)?;
    interpreter.capture(Some(&result), || CapturedOp::reduce(ReduceOp::Var, x.tensor(), dims.clone()));
    if correction == 0.0 {
        return Ok(result);
    }
    let rank = x.shape().len() as isize;
    let count: usize = match &dims {
        None => x.shape().iter().product(),
        Some(dims) => dims.iter().map(|&dim| x.shape()[(if dim < 0 { dim + rank } else { dim }) as usize]).product(),
    };
    let count = count as f64;
    let scale = count / (count - correction).max(0.0);
    forward(interpreter, "mul", vec![result, Value::Float(scale)], span)
}

/// `pypto.name(*values)`, every argument at `span`: the composites are written as those calls.
fn forward(interpreter: &Interpreter, name: &str, values: Vec<Value>, span: Span) -> Result<Value> {
    let positional = values.into_iter().map(|value| (value, span)).collect();
    super::call(interpreter, name, Arguments { positional, keywords: Vec::new() }, span)
}

/// `pypto.rms_norm(input, gamma=None, epsilon=1e-6)`, pypto's formula: x = input in f32,
/// `x / sqrt(sum(x · x · (1/n), -1, keepdim) + epsilon)`, times `gamma` (reshaped to `[1, …, C]`),
/// cast back to the input's dtype.
fn rms_norm(interpreter: &Interpreter, full: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind(full, &["input", "gamma", "epsilon"], arguments, false, span)?;
    let (shape, dtype) = {
        let input = bound.tensor(0)?;
        (input.shape().to_vec(), input.dtype())
    };
    let epsilon = bound.float(2, Some(1e-6))?;
    let gamma = bound.optional(1).filter(|gamma| !matches!(gamma, Value::None)).cloned();
    let call = |name: &str, values: Vec<Value>| forward(interpreter, name, values, span);
    let f32 = Value::DType(DType::F32, DTypeFamily::Pypto);
    let x = call("cast", vec![bound.required(0)?.clone(), f32.clone()])?;
    let count = shape.last().copied().unwrap_or(1).max(1);
    let squares = call("mul", vec![call("mul", vec![x.clone(), x.clone()])?, Value::Float(1.0 / count as f64)])?;
    let mean = call("sum", vec![squares, Value::Int(-1), Value::Bool(true)])?;
    let root = call("sqrt", vec![call("add", vec![mean, Value::Float(epsilon)])?])?;
    let mut y = call("div", vec![x, root])?;
    if let Some(gamma) = gamma {
        let mut scale_shape = vec![Value::Int(1); shape.len().max(1)];
        let channels = match &gamma {
            Value::Tensor(object) => object.get().shape().iter().product::<usize>(),
            _ => 1,
        };
        *scale_shape.last_mut().expect("at least one dim") = Value::Int(channels as i64);
        let scale = call("cast", vec![call("reshape", vec![gamma, Value::list(scale_shape)])?, f32])?;
        y = call("mul", vec![y, scale])?;
    }
    if dtype == DType::F32 {
        return Ok(y);
    }
    call("cast", vec![y, Value::DType(dtype, DTypeFamily::Pypto)])
}
