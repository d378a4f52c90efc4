//! Arithmetic on Python values (ints with overflow checks, floats, strings, lists, tuples); tensor
//! operands go to `pypto::tensor_ops`.

use crate::messages::{Construct, OperationMessage, UnsupportedMessage};

use super::error::{ErrorKind, Result};
use super::interpreter::Interpreter;
use super::value::Value;
use crate::lang::syntax::ast::BinaryOp;
use crate::lang::syntax::Span;

impl Interpreter {
    /// `left op right`.
    pub(crate) fn binary(&self, op: BinaryOp, left: &Value, right: &Value, span: Span) -> Result<Value> {
        if matches!(left, Value::Tensor(_)) || matches!(right, Value::Tensor(_)) {
            let result = self.tensor_binary(op, left, right, span)?;
            // An operation on a torch tensor is torch's (its dtype is torch's dtype object).
            for operand in [left, right] {
                if let Value::Tensor(object) = operand {
                    object.pass_torch_to(&result);
                }
            }
            return Ok(result);
        }
        if super::bitwise::is_bitwise(op) {
            return self.bitwise(op, left, right, span);
        }
        if let (Some(a), Some(b)) = (left.as_int(), right.as_int()) {
            return self.int_binary(op, a, b, span);
        }
        if let (Some(a), Some(b)) = (left.as_number(), right.as_number()) {
            return self.float_binary(op, a, b, span);
        }
        if op == BinaryOp::Divide {
            if let Some(joined) = super::host::pathlib::divide(self, left, right, span) {
                return joined;
            }
        }
        match (op, left, right) {
            (BinaryOp::Add, Value::Str(a), Value::Str(b)) => {
                self.check_string(a.len() + b.len(), span)?;
                self.charge_bytes(a.len() + b.len(), span)?;
                Ok(Value::string(format!("{a}{b}")))
            }
            (BinaryOp::Add, Value::List(a), Value::List(b)) => {
                self.check_items(a.borrow().len() + b.borrow().len(), span)?;
                self.charge_bytes((a.borrow().len() + b.borrow().len()) * std::mem::size_of::<Value>(), span)?;
                let mut items = a.borrow().clone();
                items.extend(b.borrow().iter().cloned());
                Ok(Value::list(items))
            }
            (BinaryOp::Subtract, Value::Set(a), Value::Set(b)) => Ok(self.set_difference(&a.borrow(), &b.borrow())),
            (BinaryOp::Add, Value::Tuple(a), Value::Tuple(b)) => {
                let mut items = a.as_ref().clone();
                items.extend(b.iter().cloned());
                self.check_items(items.len(), span)?;
                Ok(Value::tuple(items))
            }
            (BinaryOp::Multiply, sequence, Value::Int(count)) | (BinaryOp::Multiply, Value::Int(count), sequence)
                if matches!(sequence, Value::Str(_) | Value::List(_) | Value::Tuple(_)) =>
            {
                self.repeat(sequence, *count, span)
            }
            (BinaryOp::Modulo, Value::Str(_), _) => Err(self
                .coded(
                    ErrorKind::Unsupported,
                    UnsupportedMessage::NotSupported { construct: Construct::PercentFormat },
                    span,
                )
                .with_help_message(UnsupportedMessage::UseFString)),
            _ => Err(self.error(ErrorKind::Type, String::new(), span).with_message(
                crate::messages::Message::UnsupportedOperand {
                    operator: op.symbol().to_string(),
                    left: left.type_name().to_string(),
                    right: right.type_name().to_string(),
                },
            )),
        }
    }

    /// `left op= right`: tensors are updated in place (see `tensor_in_place`), other values rebound.
    pub(crate) fn binary_in_place(&self, op: BinaryOp, left: &Value, right: &Value, span: Span) -> Result<Value> {
        if let Value::Tensor(object) = left {
            return self.tensor_in_place(op, object, right, span);
        }
        if let (BinaryOp::Add, Value::List(items)) = (op, left) {
            let extra = self.iterate(right, span)?;
            let total = items.borrow().len() + extra.len();
            self.check_items(total, span)?;
            items.borrow_mut().extend(extra);
            return Ok(left.clone());
        }
        self.binary(op, left, right, span)
    }

    /// `-value`.
    pub(crate) fn negate(&self, value: &Value, span: Span) -> Result<Value> {
        match value {
            Value::Bool(flag) => Ok(Value::Int(-i64::from(*flag))),
            Value::Int(number) => number.checked_neg().map(Value::Int).ok_or_else(|| self.overflow(span)),
            Value::Float(number) => Ok(Value::Float(-number)),
            Value::Tensor(object) => {
                let result = self.tensor_result(object.get().neg(), span)?;
                self.capture(Some(&result), || crate::lang::interp::pypto::capture::CapturedOp::Unary {
                    op: crate::tensor::UnaryOp::Neg,
                    x: crate::lang::interp::pypto::capture::TensorRef::of(object.get().tensor()),
                });
                Ok(result)
            }
            other => {
                let message =
                    OperationMessage::BadUnaryOperand { operator: "-".into(), type_name: other.type_name().into() };
                Err(self.coded(ErrorKind::Type, message, span))
            }
        }
    }

    fn overflow(&self, span: Span) -> super::error::RuntimeError {
        self.coded(ErrorKind::Overflow, OperationMessage::IntegerOverflow, span)
    }

    fn int_binary(&self, op: BinaryOp, a: i64, b: i64, span: Span) -> Result<Value> {
        let zero = || {
            self.error(ErrorKind::ZeroDivision, "", span).with_message(crate::messages::RuntimeMessage::DivisionByZero)
        };
        let value = match op {
            BinaryOp::Add => a.checked_add(b),
            BinaryOp::Subtract => a.checked_sub(b),
            BinaryOp::Multiply => a.checked_mul(b),
            BinaryOp::Divide => {
                if b == 0 {
                    return Err(zero());
                }
                return Ok(Value::Float(a as f64 / b as f64));
            }
            BinaryOp::FloorDivide => {
                if b == 0 {
                    return Err(zero());
                }
                a.checked_div_euclid(b).map(|_| floor_div(a, b))
            }
            BinaryOp::Modulo => {
                if b == 0 {
                    return Err(zero());
                }
                a.checked_rem(b).map(|r| if r != 0 && ((r < 0) != (b < 0)) { r + b } else { r })
            }
            BinaryOp::Power => {
                if b < 0 {
                    return Ok(Value::Float((a as f64).powf(b as f64)));
                }
                u32::try_from(b).ok().and_then(|exponent| a.checked_pow(exponent))
            }
            BinaryOp::MatMul => {
                return Err(self.matmul_of_numbers("int", "int", span));
            }
            BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor | BinaryOp::LeftShift | BinaryOp::RightShift => {
                return self.bitwise(op, &Value::Int(a), &Value::Int(b), span);
            }
        };
        value.map(Value::Int).ok_or_else(|| self.overflow(span))
    }

    fn float_binary(&self, op: BinaryOp, a: f64, b: f64, span: Span) -> Result<Value> {
        let zero = || {
            self.error(ErrorKind::ZeroDivision, "", span)
                .with_message(crate::messages::RuntimeMessage::FloatDivisionByZero)
        };
        Ok(Value::Float(match op {
            BinaryOp::Add => a + b,
            BinaryOp::Subtract => a - b,
            BinaryOp::Multiply => a * b,
            BinaryOp::Divide => {
                if b == 0.0 {
                    return Err(zero());
                }
                a / b
            }
            BinaryOp::FloorDivide => {
                if b == 0.0 {
                    return Err(zero());
                }
                (a / b).floor()
            }
            BinaryOp::Modulo => {
                if b == 0.0 {
                    return Err(zero());
                }
                let r = a % b;
                if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
                    r + b
                } else {
                    r
                }
            }
            BinaryOp::Power => a.powf(b),
            BinaryOp::MatMul => return Err(self.matmul_of_numbers("float", "float", span)),
            BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor | BinaryOp::LeftShift | BinaryOp::RightShift => {
                return self.bitwise(op, &Value::Float(a), &Value::Float(b), span);
            }
        }))
    }

    /// `@` of two numbers (a matmul needs tensors).
    fn matmul_of_numbers(&self, left: &str, right: &str, span: Span) -> super::error::RuntimeError {
        let message = crate::messages::Message::UnsupportedOperand {
            operator: "@".into(),
            left: left.into(),
            right: right.into(),
        };
        self.coded(ErrorKind::Type, message, span)
    }

    fn repeat(&self, sequence: &Value, count: i64, span: Span) -> Result<Value> {
        let count = count.max(0) as usize;
        match sequence {
            Value::Str(text) => {
                self.check_string(text.len().saturating_mul(count), span)?;
                self.charge_bytes(text.len() * count, span)?;
                Ok(Value::string(text.repeat(count)))
            }
            Value::List(items) => {
                let items = items.borrow();
                self.check_items(items.len().saturating_mul(count), span)?;
                self.charge_bytes(items.len() * count * std::mem::size_of::<Value>(), span)?;
                Ok(Value::list(items.iter().cloned().cycle().take(items.len() * count).collect()))
            }
            Value::Tuple(items) => {
                self.check_items(items.len().saturating_mul(count), span)?;
                Ok(Value::tuple(items.iter().cloned().cycle().take(items.len() * count).collect()))
            }
            _ => Err(self.coded(ErrorKind::Type, OperationMessage::RepeatSequence, span)),
        }
    }
}

fn floor_div(a: i64, b: i64) -> i64 {
    let quotient = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        quotient - 1
    } else {
        quotient
    }
}

/// Python `==` on values (numbers across int/float/bool; containers element-wise). Containers
/// nested deeper than 64 levels (or containing themselves) compare by identity there.
pub fn values_equal(left: &Value, right: &Value) -> bool {
    equal_at(left, right, 0)
}

fn equal_at(left: &Value, right: &Value, depth: usize) -> bool {
    if depth > 64 {
        return match (left, right) {
            (Value::List(a), Value::List(b)) => std::rc::Rc::ptr_eq(a, b),
            (Value::Tuple(a), Value::Tuple(b)) => std::rc::Rc::ptr_eq(a, b),
            (Value::Dict(a), Value::Dict(b)) => std::rc::Rc::ptr_eq(a, b),
            (Value::Set(a), Value::Set(b)) => std::rc::Rc::ptr_eq(a, b),
            _ => false,
        };
    }
    // A container that is being written to (`d[(d,)] = 1`) compares by identity only.
    match (left, right) {
        (Value::List(a), Value::List(b)) if std::rc::Rc::ptr_eq(a, b) => return true,
        (Value::Dict(a), Value::Dict(b)) if std::rc::Rc::ptr_eq(a, b) => return true,
        (Value::Set(a), Value::Set(b)) if std::rc::Rc::ptr_eq(a, b) => return true,
        (Value::Set(a), Value::Set(b)) if a.try_borrow().is_err() || b.try_borrow().is_err() => return false,
        (Value::List(a), Value::List(b)) if a.try_borrow().is_err() || b.try_borrow().is_err() => return false,
        (Value::Dict(a), Value::Dict(b)) if a.try_borrow().is_err() || b.try_borrow().is_err() => return false,
        _ => {}
    }
    // An `IntEnum`'s or `StrEnum`'s member is equal to its value.
    match (left, right) {
        (Value::Instance(_), Value::Instance(_)) => {}
        (Value::Instance(member), other) | (other, Value::Instance(member)) => {
            if let Some(value) = super::classes::enumeration::mixed_value(member) {
                return equal_at(&value, other, depth + 1);
            }
        }
        _ => {}
    }
    let values_equal = |a: &Value, b: &Value| equal_at(a, b, depth + 1);
    let sequences_equal =
        |a: &[Value], b: &[Value]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| equal_at(x, y, depth + 1));
    if let (Some(a), Some(b)) = (left.as_number(), right.as_number()) {
        return a == b;
    }
    match (left, right) {
        (Value::None, Value::None) | (Value::Ellipsis, Value::Ellipsis) => true,
        (Value::Str(a), Value::Str(b)) => a == b,
        (Value::List(a), Value::List(b)) => sequences_equal(&a.borrow(), &b.borrow()),
        (Value::Tuple(a), Value::Tuple(b)) => sequences_equal(a, b),
        (Value::Dict(a), Value::Dict(b)) => {
            let (a, b) = (a.borrow(), b.borrow());
            a.len() == b.len()
                && a.iter().all(|(key, value)| {
                    b.iter().any(|(other_key, other)| values_equal(key, other_key) && values_equal(value, other))
                })
        }
        (Value::Set(a), Value::Set(b)) => super::sets::same_members(&a.borrow(), &b.borrow()),
        (Value::Range(a0, a1, a2), Value::Range(b0, b1, b2)) => (a0, a1, a2) == (b0, b1, b2),
        (Value::DType(a, _), Value::DType(b, _)) => a == b,
        (Value::Module(a), Value::Module(b)) | (Value::Builtin(a), Value::Builtin(b)) => a == b,
        (Value::Function(a), Value::Function(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::Kernel(a), Value::Kernel(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::Object(a), Value::Object(b)) => match (a.as_ref(), b.as_ref()) {
            (super::value::Object::Path(a), super::value::Object::Path(b)) => a == b,
            (super::value::Object::Device(a), super::value::Object::Device(b)) => a == b,
            _ => std::rc::Rc::ptr_eq(a, b) || super::pypto::spec::same_object(a, b),
        },
        (Value::Class(a), Value::Class(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::Instance(a), Value::Instance(b)) if std::rc::Rc::ptr_eq(a, b) => true,
        // A NamedTuple is a tuple of its fields; a dataclass equals an instance of the same class
        // with equal fields; other instances only themselves.
        (Value::Instance(a), Value::Tuple(b)) | (Value::Tuple(b), Value::Instance(a)) if a.is_named_tuple() => {
            sequences_equal(&a.field_values().unwrap_or_default(), b)
        }
        (Value::Instance(a), Value::Instance(b)) if a.is_named_tuple() && b.is_named_tuple() => {
            sequences_equal(&a.field_values().unwrap_or_default(), &b.field_values().unwrap_or_default())
        }
        (Value::Instance(a), Value::Instance(b)) => {
            std::rc::Rc::ptr_eq(&a.class, &b.class)
                && a.class.generated("__eq__").is_some()
                && sequences_equal(&a.field_values().unwrap_or_default(), &b.field_values().unwrap_or_default())
        }
        _ => false,
    }
}

pub use super::ordering::order;

/// Python `is`: identity for shared objects, equality for the immutable singletons and scalars.
pub(crate) fn identical(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::None, Value::None) | (Value::Ellipsis, Value::Ellipsis) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::List(a), Value::List(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::Dict(a), Value::Dict(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::Set(a), Value::Set(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::Tuple(a), Value::Tuple(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::Tensor(a), Value::Tensor(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::Function(a), Value::Function(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::Kernel(a), Value::Kernel(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::Object(a), Value::Object(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::Class(a), Value::Class(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::Instance(a), Value::Instance(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::DType(a, _), Value::DType(b, _)) => a == b,
        (Value::Module(a), Value::Module(b)) | (Value::Builtin(a), Value::Builtin(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    #[test]
    fn floor_division_rounds_towards_negative_infinity() {
        // Python: 7 // 2 = 3, -7 // 2 = -4, 7 // -2 = -4, -7 // -2 = 3.
        assert_eq!([floor_div(7, 2), floor_div(-7, 2), floor_div(7, -2), floor_div(-7, -2)], [3, -4, -4, 3]);
    }

    #[test]
    fn equality_crosses_numeric_types_and_survives_cycles() {
        assert!(values_equal(&Value::Int(1), &Value::Float(1.0)));
        assert!(values_equal(&Value::Bool(true), &Value::Int(1)));
        assert!(!values_equal(&Value::string("1"), &Value::Int(1)));
        let list = Value::list(Vec::new());
        if let Value::List(items) = &list {
            items.borrow_mut().push(list.clone());
        }
        assert!(values_equal(&list, &list.clone()), "a list that contains itself equals itself");
        if let Value::List(items) = &list {
            items.borrow_mut().clear();
        }
    }

    #[test]
    fn ordering_is_lexicographic_for_sequences() {
        let a = Value::list(vec![Value::Int(1), Value::Int(2)]);
        let b = Value::list(vec![Value::Int(1), Value::Int(3)]);
        assert_eq!(order(&a, &b), Some(Ordering::Less));
        assert_eq!(order(&Value::string("b"), &Value::string("a")), Some(Ordering::Greater));
        assert_eq!(order(&Value::None, &Value::Int(1)), None);
    }
}
