//! numpy's new axes in a host index (`g[:, i, None]`, `x[None]`): the index without its `None`
//! parts, and where each new unit dim goes in the result. A kernel's captured ops take no new axes
//! (`pypto.unsqueeze` there), so only host indexing uses this.

use std::rc::Rc;

use crate::lang::interp::value::Value;

/// `index` (into a tensor of `rank` dims) without its `None` parts, and the result dim each
/// becomes, counted as numpy does: a slice, `...` or `None` gives result dims in order, an int
/// none. `None` when the index has no new axis.
pub(crate) fn split(rank: usize, index: &Value) -> Option<(Value, Vec<usize>)> {
    let parts: &[Value] = match index {
        Value::Tuple(parts) => parts,
        Value::None => std::slice::from_ref(index),
        _ => return None,
    };
    if !parts.iter().any(|part| matches!(part, Value::None)) {
        return None;
    }
    let explicit = parts.iter().filter(|part| !matches!(part, Value::None | Value::Ellipsis)).count();
    let (mut kept, mut new_axes, mut position) = (Vec::new(), Vec::new(), 0);
    for part in parts {
        match part {
            Value::None => {
                new_axes.push(position);
                position += 1;
                continue;
            }
            Value::Ellipsis => position += rank.saturating_sub(explicit),
            Value::Slice(_) => position += 1,
            _ => {}
        }
        kept.push(part.clone());
    }
    Some((Value::Tuple(Rc::new(kept)), new_axes))
}

/// `shape` with a unit dim at each of `new_axes` (result dims, in order).
pub(crate) fn with_unit_dims(shape: &[usize], new_axes: &[usize]) -> Vec<usize> {
    let mut shape = shape.to_vec();
    for &axis in new_axes {
        shape.insert(axis.min(shape.len()), 1);
    }
    shape
}
