//! The target of a pypto decorator: a function defined with `def`. Stacked pypto decorators
//! (`@pypto.register_gradient(…)` over `@pypto.kernel`, `@pypto.kernel` twice) used to call the
//! decorator again without end, until the stack overflowed.

use super::error::{ErrorKind, Result};
use super::interpreter::Interpreter;
use super::value::{Object, Value};
use crate::lang::syntax::Span;

impl Interpreter {
    /// A pypto decorator (`@pypto.kernel`, `@pypto.frontend.jit`, `@pypto.register_gradient(…)`)
    /// applies to a function defined with `def`; anything else (a kernel: stacked decorators) is a
    /// type error here, because applying it would call the decorator again without end.
    pub(crate) fn check_decorator_target(&self, decorator: &Value, target: &Value, span: Span) -> Result<()> {
        let name = match decorator {
            Value::Builtin(name) if matches!(name.as_ref(), "pypto.kernel" | "pypto.frontend.jit") => name.to_string(),
            Value::Object(object) => match object.as_ref() {
                Object::KernelDecorator { .. } => "pypto.kernel".to_string(),
                Object::JitDecorator { .. } => "pypto.frontend.jit".to_string(),
                Object::GradientDecorator { .. } => "pypto.register_gradient".to_string(),
                _ => return Ok(()),
            },
            _ => return Ok(()),
        };
        if matches!(target, Value::Function(_)) {
            return Ok(());
        }
        Err(self
            .error(ErrorKind::Type, format!("@{name} decorates a function defined with `def`, not a '{}'", target.type_name()), span)
            .with_help("use one pypto decorator per function; a backward is its own `def` under @pypto.register_gradient(\"name\")"))
    }
}
