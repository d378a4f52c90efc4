//! Basic indexing on the host gives views, as in torch and numpy: `row = x[i]` (ints, slices and
//! `...`) is a tensor whose writes reach `x` (`x[b][j] = v`, `row[1:] = 0`, `x[i].add_(1)`). The
//! view holds its values (the tensor core has no strided views), so a write into it is written back
//! into its base at the index it was taken with; a write into the base after the view was taken is
//! not seen by the view, and a view of a view more than `MAX_DEPTH` deep is a copy. Indexing by a tensor copies, as in torch (except by a 0-d integer one, an int to torch), and a kernel's tiles are pypto's.

use std::rc::Rc;

use crate::lang::interp::error::Result;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{TensorObject, Value};
use crate::lang::syntax::Span;

/// Whether `index` is torch's basic index: ints (a 0-d integer tensor is one), slices and `...`
/// (alone or in a tuple).
fn is_basic(index: &Value) -> bool {
    let part = |value: &Value| {
        matches!(value, Value::Int(_) | Value::Slice(_) | Value::Ellipsis) || super::indexing::is_zero_d_integer(value)
    };
    match index {
        Value::Tuple(parts) => parts.iter().all(part),
        other => part(other),
    }
}

/// How many views of views a write goes back through: a loop that indexes what it indexed
/// (`x = x[1:]`) would otherwise keep every step alive and recurse through all of them.
const MAX_DEPTH: usize = 8;

/// How many bases `object` has above it.
fn depth(object: &Rc<TensorObject>) -> usize {
    let mut count = 0;
    let mut current = object.base.borrow().as_ref().map(|(base, _)| base.clone());
    while let Some(base) = current {
        count += 1;
        current = base.base.borrow().as_ref().map(|(above, _)| above.clone());
    }
    count
}

/// Makes `item` (what `base[index]` gave) a view of `base` when the index is basic, on the host
/// (past `MAX_DEPTH` views of views it stays a copy).
pub(crate) fn link(interpreter: &Interpreter, base: &Rc<TensorObject>, index: &Value, item: &Value) {
    if let Value::Tensor(view) = item {
        if !interpreter.in_kernel() && is_basic(index) && depth(base) < MAX_DEPTH {
            *view.base.borrow_mut() = Some((base.clone(), index.clone()));
        }
    }
}

/// After a write into `view`, writes its values into the tensor it views (and so on up).
pub(crate) fn write_through(interpreter: &Interpreter, view: &Rc<TensorObject>, span: Span) -> Result<()> {
    let base = view.base.borrow().clone();
    match base {
        Some((base, index)) => interpreter.set_item(&Value::Tensor(base), &index, Value::Tensor(view.clone()), span),
        None => Ok(()),
    }
}
