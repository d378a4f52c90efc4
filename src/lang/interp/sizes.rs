//! Values as sizes and numbers: a shape from a list of ints, and torch's `__index__`/`__float__`
//! (a one-element tensor stands in for an int or a float where Python code passes one).

use super::error::{ErrorKind, Result};
use super::interpreter::Interpreter;
use super::value::Value;
use crate::lang::syntax::Span;
use crate::messages::OperationMessage;

impl Interpreter {
    /// A shape from a list/tuple of non-negative ints (or one int).
    pub(crate) fn to_shape(&self, value: &Value, span: Span, function: &str) -> Result<Vec<usize>> {
        let items = match value {
            Value::Int(_) | Value::Bool(_) => vec![value.clone()],
            Value::List(_) | Value::Tuple(_) => self.iterate(value, span)?,
            other => {
                let message =
                    OperationMessage::ShapeNotList { function: function.into(), got: other.type_name().into() };
                return Err(self.coded(ErrorKind::Type, message, span));
            }
        };
        items
            .iter()
            .map(|item| match index_of(item) {
                Some(size) if size >= 0 => Ok(size as usize),
                Some(size) => Err(self.coded(
                    ErrorKind::Value,
                    OperationMessage::NegativeSize { function: function.into(), size },
                    span,
                )),
                None => Err(self.coded(
                    ErrorKind::Type,
                    OperationMessage::ShapeItem { function: function.into(), got: item.type_name().into() },
                    span,
                )),
            })
            .collect()
    }
}

/// An int, or a one-element integer tensor (torch's `__index__`: `max(lengths)` of an int tensor
/// is a 0-d tensor that shapes and ranges take).
pub(crate) fn index_of(value: &Value) -> Option<i64> {
    match value {
        Value::Tensor(object) => {
            let var = object.get();
            let tensor = var.tensor();
            let integer = tensor.dtype().integer_range().is_some();
            integer.then(|| tensor.item().ok()).flatten().map(|value| value as i64)
        }
        other => other.as_int(),
    }
}

/// A number, or a one-element tensor's value (torch's `__float__`: `math.ceil(s_max / 128)`).
pub(crate) fn number_of(value: &Value) -> Option<f64> {
    match value {
        Value::Tensor(object) => object.get().tensor().item().ok(),
        other => other.as_number(),
    }
}
