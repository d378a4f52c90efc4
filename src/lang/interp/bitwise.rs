//! Python's bitwise operators `& | ^ << >> ~` (and their augmented forms): on ints with Python's
//! meaning (a bool with a bool stays a bool; shifts by a negative count are an error; a result that
//! leaves i64 is an overflow error, where Python's ints would grow), on sets as union, intersection
//! and symmetric difference, and on tensors as pypto's `bitwise_*` functions (which also take bool
//! masks: `mask_a & mask_b` is the logical and), so a kernel runs them on the NPU.

use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::interpreter::Interpreter;
use super::value::Value;
use crate::lang::syntax::ast::BinaryOp;
use crate::lang::syntax::Span;
use crate::messages::{Message, OperationMessage};

/// Whether `op` is one of the bitwise operators.
pub(crate) fn is_bitwise(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor | BinaryOp::LeftShift | BinaryOp::RightShift)
}

/// The pypto function a bitwise operator on tensors calls.
fn tensor_function(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::BitAnd => "bitwise_and",
        BinaryOp::BitOr => "bitwise_or",
        BinaryOp::BitXor => "bitwise_xor",
        BinaryOp::LeftShift => "bitwise_left_shift",
        _ => "bitwise_right_shift",
    }
}

impl Interpreter {
    /// `left op right` for a bitwise `op`.
    pub(crate) fn bitwise(&self, op: BinaryOp, left: &Value, right: &Value, span: Span) -> Result<Value> {
        if matches!(left, Value::Tensor(_)) || matches!(right, Value::Tensor(_)) {
            let arguments =
                Arguments { positional: vec![(left.clone(), span), (right.clone(), span)], keywords: vec![] };
            return super::pypto::functions::call(self, tensor_function(op), arguments, span);
        }
        match (left, right) {
            (Value::Bool(a), Value::Bool(b)) if !matches!(op, BinaryOp::LeftShift | BinaryOp::RightShift) => {
                return Ok(Value::Bool(match op {
                    BinaryOp::BitAnd => a & b,
                    BinaryOp::BitOr => a | b,
                    _ => a ^ b,
                }));
            }
            (Value::Set(a), Value::Set(b)) if matches!(op, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor) => {
                return Ok(self.set_operation(op, &a.borrow(), &b.borrow()));
            }
            _ => {}
        }
        let (Some(a), Some(b)) = (integer(left), integer(right)) else {
            let message = Message::UnsupportedOperand {
                operator: op.symbol().to_string(),
                left: left.type_name().to_string(),
                right: right.type_name().to_string(),
            };
            return Err(self.error(ErrorKind::Type, String::new(), span).with_message(message));
        };
        let value = match op {
            BinaryOp::BitAnd => Some(a & b),
            BinaryOp::BitOr => Some(a | b),
            BinaryOp::BitXor => Some(a ^ b),
            _ if b < 0 => return Err(self.coded(ErrorKind::Value, OperationMessage::NegativeShiftCount, span)),
            BinaryOp::LeftShift => u32::try_from(b).ok().and_then(|count| a.checked_shl(count)).filter(|shifted| {
                // Shifted back, the value must be what it was: no bit (or sign) fell off the top.
                b < 64 && (shifted >> b) == a
            }),
            // An arithmetic shift: by 63 or more every bit is the sign bit.
            _ => Some(a >> b.min(63)),
        };
        value.map(Value::Int).ok_or_else(|| self.coded(ErrorKind::Overflow, OperationMessage::IntegerOverflow, span))
    }

    /// `~value`: `-x - 1` of an int or bool, `bitwise_not` of a tensor (logical not of a mask).
    pub(crate) fn invert(&self, value: &Value, span: Span) -> Result<Value> {
        match value {
            Value::Tensor(_) => {
                let arguments = Arguments { positional: vec![(value.clone(), span)], keywords: vec![] };
                super::pypto::functions::call(self, "bitwise_not", arguments, span)
            }
            other => match integer(other) {
                Some(number) => Ok(Value::Int(!number)),
                None => {
                    let message =
                        OperationMessage::BadUnaryOperand { operator: "~".into(), type_name: other.type_name().into() };
                    Err(self.coded(ErrorKind::Type, message, span))
                }
            },
        }
    }

    /// `a & b`, `a | b`, `a ^ b` of sets: members in the order Python's small sets keep them here
    /// (the left set's first, then the right's).
    fn set_operation(&self, op: BinaryOp, a: &[Value], b: &[Value]) -> Value {
        let members: Vec<Value> = match op {
            BinaryOp::BitAnd => a.iter().filter(|member| super::sets::contains(b, member)).cloned().collect(),
            BinaryOp::BitOr => a.iter().chain(b).cloned().collect(),
            _ => (a.iter().filter(|member| !super::sets::contains(b, member)))
                .chain(b.iter().filter(|member| !super::sets::contains(a, member)))
                .cloned()
                .collect(),
        };
        Value::set(super::sets::unique(members))
    }
}

/// An int or bool as an integer (a float is not one: `1.0 & 1` is a TypeError in Python).
fn integer(value: &Value) -> Option<i64> {
    match value {
        Value::Int(number) => Some(*number),
        Value::Bool(flag) => Some(i64::from(*flag)),
        _ => None,
    }
}
