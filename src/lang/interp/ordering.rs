//! Python's ordering of values (`<` on numbers, strings, lists and tuples; `min`, `max`, `sorted`).

use std::cmp::Ordering;

use super::operators::values_equal;
use super::value::Value;

/// Python ordering of numbers, strings, lists and tuples (`None` when not comparable). A
/// one-element tensor orders by its value, as torch's comparison of two does once made a bool
/// (`max(torch.full((b,), s))` iterates 0-d tensors).
pub fn order(left: &Value, right: &Value) -> Option<Ordering> {
    if let (Some(a), Some(b)) = (left.as_number(), right.as_number()) {
        return a.partial_cmp(&b);
    }
    let single = |value: &Value| match value {
        Value::Tensor(object) => object.get().tensor().item().ok(),
        other => other.as_number(),
    };
    if matches!(left, Value::Tensor(_)) || matches!(right, Value::Tensor(_)) {
        return single(left)?.partial_cmp(&single(right)?);
    }
    match (left, right) {
        (Value::Str(a), Value::Str(b)) => Some(a.cmp(b)),
        (Value::List(a), Value::List(b)) => order_sequences(&a.borrow(), &b.borrow()),
        (Value::Tuple(a), Value::Tuple(b)) => order_sequences(a, b),
        _ => None,
    }
}

fn order_sequences(a: &[Value], b: &[Value]) -> Option<Ordering> {
    for (x, y) in a.iter().zip(b) {
        if !values_equal(x, y) {
            return order(x, y);
        }
    }
    Some(a.len().cmp(&b.len()))
}
