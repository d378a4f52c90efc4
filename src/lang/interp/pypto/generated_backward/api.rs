//! The script side of generated backward kernels: `pypto.autodiff.policy` and
//! `pypto.autodiff.last_backward`.

use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, Value};
use crate::lang::syntax::Span;

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
                        return Err(interpreter
                            .error(
                                ErrorKind::Value,
                                format!("pypto.autodiff.policy: unknown policy '{name}'"),
                                bound.span_of(0),
                            )
                            .with_help("the policies are \"auto\" (by cost), \"save\" and \"recompute\""))
                    }
                },
                Some(other) => {
                    return Err(interpreter.error(
                        ErrorKind::Type,
                        format!("pypto.autodiff.policy: the policy is a string, not {}", other.type_name()),
                        bound.span_of(0),
                    ))
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
        _ => Err(interpreter.error(ErrorKind::Attribute, format!("pypto has no function '{name}'"), span)),
    }
}
