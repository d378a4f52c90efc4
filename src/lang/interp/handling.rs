//! `try`/`except`/`else`/`finally`: errors of the script (Python's exceptions, raised or from an
//! operation) can be caught; the session's limits (steps, call depth, sizes, memory, time) cannot,
//! so a runaway loop inside `try` still stops.

use std::rc::Rc;

use super::error::{ErrorKind, Result, RuntimeError};
use super::exec::Flow;
use super::interpreter::Interpreter;
use super::raising::is_exception;
use super::scope::Scope;
use super::value::{Object, Value};
use crate::lang::syntax::ast::{ExceptHandler, TryStatement};

impl Interpreter {
    /// Runs a `try` statement.
    pub(crate) fn exec_try(&self, statement: &TryStatement, scope: &Rc<Scope>) -> Result<Flow> {
        let outcome = match self.exec_block(&statement.body, scope) {
            Err(error) if catchable(error.kind) => self.handle(statement, error, scope),
            Ok(Flow::Normal) => self.exec_block(&statement.orelse, scope),
            other => other,
        };
        if statement.finalbody.is_empty() {
            return outcome;
        }
        match self.exec_block(&statement.finalbody, scope)? {
            Flow::Normal => outcome,
            flow => Ok(flow),
        }
    }

    /// Runs the first handler that matches `error` (or gives the error back).
    fn handle(&self, statement: &TryStatement, error: RuntimeError, scope: &Rc<Scope>) -> Result<Flow> {
        let (name, message) = exception_of(&error);
        for handler in &statement.handlers {
            if self.handler_matches(handler, &name, error.kind, scope)? {
                if let Some(bound) = &handler.name {
                    let exception = Object::Exception { name: name.clone(), message: message.clone() };
                    scope.set(&bound.name, Value::object(exception));
                }
                // A bare `raise` in the handler raises this error again.
                self.handled.borrow_mut().push(error);
                let outcome = self.exec_block(&handler.body, scope);
                self.handled.borrow_mut().pop();
                return outcome;
            }
        }
        Err(error)
    }

    fn handler_matches(&self, handler: &ExceptHandler, name: &str, kind: ErrorKind, scope: &Rc<Scope>) -> Result<bool> {
        let Some(types) = &handler.types else { return Ok(true) };
        let value = self.eval(types, scope)?;
        let candidates = match &value {
            Value::Tuple(items) => items.as_ref().clone(),
            other => vec![other.clone()],
        };
        for candidate in &candidates {
            match candidate {
                Value::Builtin(candidate) if is_exception(candidate) => {
                    let lookup = kind == ErrorKind::Index && matches!(name, "IndexError" | "KeyError");
                    // `ModuleNotFoundError` is an `ImportError`.
                    let import = kind == ErrorKind::Import && candidate.as_ref() == "ImportError";
                    // `FileNotFoundError` is an `OSError`.
                    let os = name == "FileNotFoundError" && candidate.as_ref() == "OSError";
                    // `SystemExit` is not an `Exception` (it derives from `BaseException`).
                    let exception = candidate.as_ref() == "Exception" && kind != ErrorKind::SystemExit
                        || candidate.as_ref() == "BaseException";
                    if exception
                        || import
                        || os
                        || candidate.as_ref() == name
                        || (lookup && matches!(candidate.as_ref(), "IndexError" | "KeyError"))
                    {
                        return Ok(true);
                    }
                }
                other => {
                    return Err(self
                        .coded(
                            ErrorKind::Type,
                            crate::messages::StatementMessage::ExceptTypes { got: other.type_name().into() },
                            types.span,
                        )
                        .with_help_message(crate::messages::StatementMessage::ExceptForms))
                }
            }
        }
        Ok(false)
    }
}

/// Limits of the session end the run whatever the script says.
pub(crate) fn catchable(kind: ErrorKind) -> bool {
    !matches!(
        kind,
        ErrorKind::StepBudget
            | ErrorKind::CallDepth
            | ErrorKind::SizeLimit
            | ErrorKind::Memory
            | ErrorKind::Timeout
            | ErrorKind::Control
    )
}

/// The Python exception an error is (`ValueError`), and its message without the name.
pub(crate) fn exception_of(error: &RuntimeError) -> (String, String) {
    // A raised exception's message starts with its name (`ValueError: …`).
    if let Some((name, rest)) = error.message.split_once(": ") {
        if is_exception(name) {
            return (name.to_string(), rest.to_string());
        }
    }
    if is_exception(&error.message) {
        return (error.message.clone(), String::new());
    }
    let name = match error.kind {
        ErrorKind::Name => "NameError",
        ErrorKind::Type => "TypeError",
        ErrorKind::Value => "ValueError",
        ErrorKind::Index => "IndexError",
        ErrorKind::Attribute => "AttributeError",
        ErrorKind::ZeroDivision => "ZeroDivisionError",
        ErrorKind::Assertion => "AssertionError",
        ErrorKind::Unsupported => "NotImplementedError",
        ErrorKind::Overflow => "OverflowError",
        ErrorKind::SystemExit => "SystemExit",
        ErrorKind::Import => "ModuleNotFoundError",
        _ => "RuntimeError",
    };
    (name.to_string(), error.message.clone())
}
