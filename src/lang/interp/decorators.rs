//! The target of a pypto decorator: a function defined with `def`. Stacked pypto decorators
//! (`@pypto.register_gradient(…)` over `@pypto.kernel`, `@pypto.kernel` twice) used to call the
//! decorator again without end, until the stack overflowed.

use super::error::{ErrorKind, Result};
use super::interpreter::Interpreter;
use super::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::StatementMessage;

impl Interpreter {
    /// Applies one `@decorator` to what the lines below it made. A kernel decorator over
    /// `@pypto.options(…)` makes the kernel and gives it the options.
    pub(crate) fn decorate(&self, decorator: Value, target: Value, span: Span) -> Result<Value> {
        if let (Some(name), Value::Object(object)) = (kernel_decorator(&decorator), &target) {
            if let Object::WithOptions { options, function } = object.as_ref() {
                if name != "pypto.register_gradient" {
                    let kernel = self.apply_decorator(decorator, function.clone(), span)?;
                    return super::pypto::config::decorate(self, options, kernel, span);
                }
            }
        }
        self.check_decorator_target(&decorator, &target, span)?;
        self.apply_decorator(decorator, target, span)
    }

    /// A pypto decorator (`@pypto.kernel`, `@pypto.frontend.jit`, `@pypto.register_gradient(…)`)
    /// applies to a function defined with `def`; anything else (a kernel: stacked decorators) is a
    /// type error here, because applying it would call the decorator again without end.
    pub(crate) fn check_decorator_target(&self, decorator: &Value, target: &Value, span: Span) -> Result<()> {
        let Some(name) = kernel_decorator(decorator) else { return Ok(()) };
        if matches!(target, Value::Function(_)) {
            return Ok(());
        }
        Err(self
            .coded(
                ErrorKind::Type,
                StatementMessage::DecoratorTarget { decorator: name.into(), got: target.type_name().into() },
                span,
            )
            .with_help_message(StatementMessage::OneDecorator))
    }
}

/// The name of a pypto decorator that makes (or registers) a kernel.
fn kernel_decorator(decorator: &Value) -> Option<&'static str> {
    match decorator {
        Value::Builtin(name) if name.as_ref() == "pypto.kernel" => Some("pypto.kernel"),
        Value::Builtin(name) if name.as_ref() == "pypto.frontend.jit" => Some("pypto.frontend.jit"),
        Value::Object(object) => match object.as_ref() {
            Object::KernelDecorator { .. } => Some("pypto.kernel"),
            Object::JitDecorator { .. } => Some("pypto.frontend.jit"),
            Object::GradientDecorator { .. } => Some("pypto.register_gradient"),
            _ => None,
        },
        _ => None,
    }
}
