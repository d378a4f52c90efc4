//! The script side of generated backward kernels: `pypto.autodiff.policy` and
//! `pypto.autodiff.last_backward`.

use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage, Message};

/// Calls `pypto.autodiff.policy` or `pypto.autodiff.last_backward` (`name` without `pypto.`).
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    match name {
        "autodiff.policy" => {
            let bound = interpreter.bind("pypto.autodiff.policy", &["policy"], arguments, false, span)?;
            let previous = interpreter.npu.backward_policy.get();
            match bound.optional(0) {
                None => {}
                Some(Value::Str(name)) => match super::Policy::parse(name) {
                    Some(policy) => interpreter.npu.backward_policy.set(policy),
                    None => {
                        let choices = ["\"auto\"", "\"save\"", "\"recompute\""].map(String::from).to_vec();
                        let got = Some(crate::lang::interp::format::repr(&Value::Str(name.clone())));
                        let function = "pypto.autodiff.policy".into();
                        let message = LibraryMessage::OneOf { function, parameter: "policy".into(), choices, got };
                        return Err(interpreter.error(ErrorKind::Value, "", bound.span_of(0)).with_message(message));
                    }
                },
                Some(other) => {
                    let message = LibraryMessage::ArgumentType {
                        function: "pypto.autodiff.policy".into(),
                        parameter: "policy".into(),
                        expected: Kind::Str,
                        got: other.type_name().into(),
                    };
                    return Err(interpreter.error(ErrorKind::Type, "", bound.span_of(0)).with_message(message));
                }
            }
            // The policy in force before the call (so a cell can restore it).
            Ok(Value::string(previous.name()))
        }
        "autodiff.last_backward" => {
            interpreter.bind("pypto.autodiff.last_backward", &[], arguments, false, span)?;
            let schedules = interpreter.npu.schedules.borrow();
            let last = schedules.iter().rev().find(|(name, _)| name.ends_with(".backward"));
            Ok(last.map_or(Value::None, |(_, simulation)| Value::object(Object::Schedule(simulation.clone()))))
        }
        _ => {
            let message = Message::NoModuleAttribute { module: "pypto".into(), name: name.into() };
            Err(interpreter.error(ErrorKind::Attribute, "", span).with_message(message))
        }
    }
}
