//! `raise`: the exception types of Python that pypto code raises when it checks its arguments
//! (`raise ValueError(f"Unsupported activation: {name}")`), each ending the run with an error of
//! the matching kind and Python's `Name: message`.

use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::format::to_str;
use super::interpreter::Interpreter;
use super::scope::Scope;
use super::value::{Object, Value};
use crate::lang::syntax::ast::Expr;
use crate::lang::syntax::Span;
use crate::messages::{OperationMessage, StatementMessage, UnsupportedMessage};
use std::rc::Rc;

/// The exception types scripts can raise, with the kind of error each becomes.
const EXCEPTIONS: [(&str, ErrorKind); 18] = [
    ("NameError", ErrorKind::Name),
    ("BaseException", ErrorKind::Value),
    ("Exception", ErrorKind::Value),
    ("RuntimeError", ErrorKind::Value),
    ("ValueError", ErrorKind::Value),
    ("TypeError", ErrorKind::Type),
    ("KeyError", ErrorKind::Index),
    ("IndexError", ErrorKind::Index),
    ("AttributeError", ErrorKind::Attribute),
    ("ZeroDivisionError", ErrorKind::ZeroDivision),
    ("AssertionError", ErrorKind::Assertion),
    ("NotImplementedError", ErrorKind::Unsupported),
    ("OverflowError", ErrorKind::Overflow),
    ("SystemExit", ErrorKind::SystemExit),
    ("ModuleNotFoundError", ErrorKind::Import),
    ("ImportError", ErrorKind::Import),
    ("OSError", ErrorKind::Value),
    ("FileNotFoundError", ErrorKind::Value),
];

/// Whether `name` is one of the exception types.
pub(crate) fn is_exception(name: &str) -> bool {
    EXCEPTIONS.iter().any(|(exception, _)| *exception == name)
}

impl Interpreter {
    /// `ValueError("message")`: an exception value (raised by `raise`).
    pub(crate) fn make_exception(&self, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
        if let Some((_, _, keyword_span)) = arguments.keywords.first() {
            let message = OperationMessage::NoKeywords { function: name.into() };
            return Err(self.coded(ErrorKind::Type, message, *keyword_span));
        }
        let parts: Vec<String> = arguments.positional.iter().map(|(value, _)| to_str(value)).collect();
        let message = if parts.len() > 1 { format!("({})", parts.join(", ")) } else { parts.concat() };
        self.check_string(message.len(), span)?;
        Ok(Value::object(Object::Exception { name: name.to_string(), message }))
    }

    /// `raise exception [from cause]`: the run stops with the exception's error at `span`.
    pub(crate) fn raise(
        &self,
        exception: Option<&Expr>,
        cause: Option<&Expr>,
        scope: &Rc<Scope>,
        span: Span,
    ) -> Result<()> {
        let Some(exception) = exception else {
            // Re-raises the error the innermost running `except` handler caught, where it happened.
            return Err(match self.handled.borrow().last() {
                Some(error) => error.clone(),
                None => self
                    .coded(ErrorKind::Unsupported, UnsupportedMessage::NothingToReraise, span)
                    .with_help_message(UnsupportedMessage::RaiseNew),
            });
        };
        let value = self.eval(exception, scope)?;
        if let Some(cause) = cause {
            self.eval(cause, scope)?;
        }
        let (name, message) = match &value {
            Value::Builtin(name) if is_exception(name) => (name.to_string(), String::new()),
            Value::Object(object) => match object.as_ref() {
                Object::Exception { name, message } => (name.clone(), message.clone()),
                _ => return Err(self.not_an_exception(&value, exception.span)),
            },
            _ => return Err(self.not_an_exception(&value, exception.span)),
        };
        let kind =
            EXCEPTIONS.iter().find(|(exception, _)| *exception == name).map_or(ErrorKind::Value, |(_, kind)| *kind);
        let text = (!message.is_empty()).then_some(message);
        Err(self.coded(kind, StatementMessage::Raised { name, text }, span))
    }

    fn not_an_exception(&self, value: &Value, span: Span) -> super::error::RuntimeError {
        self.coded(ErrorKind::Type, StatementMessage::NotAnException { got: value.type_name().into() }, span)
            .with_help_message(StatementMessage::ExceptionTypes)
    }
}
