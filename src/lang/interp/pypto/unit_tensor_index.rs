//! torch's indexing by one-element integer tensors inside a host index tuple
//! (`block_table[i, pos // block_size]` with `pos` read from a `[b, 1]` tensor): such a tensor picks
//! one position along its dim, like an int, but as an advanced index it leaves the result a dim of
//! size 1 per dim of its own. torch applies int indices first (they drop their dims) and then the
//! tensors: their dims go where the first of them was when they are next to each other, else
//! in front.

use crate::lang::interp::error::Result;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;

/// `result` (host `x[index]` with every one-element tensor taken as an int) with the tensors' unit
/// dims put back; `x` has `rank` dims. In a kernel a tile is indexed by ints and slices only.
pub(crate) fn put_back(
    interpreter: &Interpreter,
    rank: usize,
    index: &Value,
    result: Value,
    span: Span,
) -> Result<Value> {
    let Value::Tensor(object) = &result else { return Ok(result) };
    if interpreter.in_kernel() {
        return Ok(result);
    }
    match result_shape(rank, index, object.get().shape()) {
        Some(shape) => interpreter.tensor_result(object.get().reshape(&shape), span),
        None => Ok(result),
    }
}

/// Whether `value` is a one-element integer tensor of one dim or more (a 0-d one is an int).
pub(crate) fn is_unit_tensor(value: &Value) -> bool {
    match value {
        Value::Tensor(object) => {
            let var = object.get();
            let dtype = var.dtype();
            !dtype.is_float()
                && dtype != crate::tensor::DType::Bool
                && !var.shape().is_empty()
                && var.tensor().numel() == 1
        }
        _ => false,
    }
}

/// The result shape of host `x[index]` (`x` of `rank` dims) given `shape`, the result with every
/// one-element tensor taken as an int: `shape` with their unit dims put back; `None` when the index
/// has no such tensor.
fn result_shape(rank: usize, index: &Value, shape: &[usize]) -> Option<Vec<usize>> {
    let Value::Tuple(parts) = index else { return None };
    let units = parts.iter().filter(|part| is_unit_tensor(part)).count();
    if units == 0 {
        return None;
    }
    let explicit = parts.iter().filter(|part| !matches!(part, Value::Ellipsis)).count();
    let dims = parts.iter().filter_map(|part| match part {
        Value::Tensor(object) if is_unit_tensor(part) => Some(object.get().shape().len()),
        _ => None,
    });
    let count = dims.max().unwrap_or(0);
    // The result dims before the first unit tensor, and whether a slice or `...` parts the tensors.
    let (mut position, mut first, mut seen, mut parted) = (0, None, 0, false);
    for part in parts.iter() {
        match part {
            _ if is_unit_tensor(part) => {
                first.get_or_insert(position);
                seen += 1;
            }
            Value::Slice(_) | Value::Ellipsis if seen > 0 && seen < units => parted = true,
            Value::Slice(_) => position += 1,
            Value::Ellipsis => position += rank.saturating_sub(explicit),
            _ => {}
        }
    }
    let at = if parted { 0 } else { first.unwrap_or(0) };
    let mut result = shape.to_vec();
    for _ in 0..count {
        result.insert(at.min(result.len()), 1);
    }
    Some(result)
}
