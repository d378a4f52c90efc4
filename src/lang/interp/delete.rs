//! `del name`, `del items[i]`, `del mapping[key]`, `del obj.attribute` (kernel bodies free their
//! tiles this way).

use crate::messages::StatementMessage;
use std::rc::Rc;

use super::error::{ErrorKind, Result};
use super::interpreter::Interpreter;
use super::operators::values_equal;
use super::scope::Scope;
use super::value::Value;
use crate::lang::syntax::ast::{Expr, ExprKind};
use crate::lang::syntax::Span;

impl Interpreter {
    /// Deletes each target in order.
    pub(crate) fn delete(&self, targets: &[Expr], scope: &Rc<Scope>) -> Result<()> {
        for target in targets {
            match &target.kind {
                ExprKind::Name(name) => {
                    if scope.remove(name).is_none() {
                        return Err(self
                            .error(ErrorKind::Name, String::new(), target.span)
                            .with_message(crate::messages::Message::NameUndefined { name: name.to_string() }));
                    }
                }
                ExprKind::Tuple(items) | ExprKind::List(items) => self.delete(items, scope)?,
                ExprKind::Subscript { value, index } => {
                    let container = self.eval(value, scope)?;
                    let index = self.eval(index, scope)?;
                    self.delete_item(&container, &index, target.span)?;
                }
                ExprKind::Attribute { value, attribute } => {
                    let object = self.eval(value, scope)?;
                    self.delete_attribute(&object, &attribute.name, attribute.span)?;
                }
                _ => return Err(self.coded(ErrorKind::Unsupported, StatementMessage::CannotDelete, target.span)),
            }
        }
        Ok(())
    }

    fn delete_item(&self, container: &Value, index: &Value, span: Span) -> Result<()> {
        match container {
            Value::List(items) if !matches!(index, Value::Slice(_)) => {
                let length = items.borrow().len();
                let position = self.sequence_index(length, index, span)?;
                items.borrow_mut().remove(position);
                Ok(())
            }
            Value::Dict(entries) => {
                let mut entries = entries.borrow_mut();
                match entries.iter().position(|(key, _)| values_equal(key, index)) {
                    Some(position) => {
                        entries.remove(position);
                        Ok(())
                    }
                    None => Err(self.coded(
                        ErrorKind::Index,
                        crate::messages::RuntimeMessage::MissingKey { key: super::format::repr(index) },
                        span,
                    )),
                }
            }
            other => Err(self
                .coded(
                    ErrorKind::Type,
                    StatementMessage::CannotDeleteItems { type_name: other.type_name().into() },
                    span,
                )
                .with_help_message(StatementMessage::DeleteWhat)),
        }
    }

    fn delete_attribute(&self, object: &Value, name: &str, span: Span) -> Result<()> {
        let removed = match object {
            Value::Instance(instance) if instance.get(name).is_some() => {
                // The same rules as assignment (frozen dataclasses and NamedTuples refuse).
                self.set_instance_attribute(instance, name, Value::None, span)?;
                let mut attributes = instance.attributes.borrow_mut();
                let before = attributes.len();
                attributes.retain(|(key, _)| key != name);
                before != attributes.len()
            }
            Value::Instance(_) => false,
            Value::Class(class) => {
                let mut attributes = class.attributes.borrow_mut();
                let before = attributes.len();
                attributes.retain(|(key, _)| key != name);
                before != attributes.len()
            }
            other => {
                let message =
                    StatementMessage::CannotDeleteAttribute { name: name.into(), type_name: other.type_name().into() };
                return Err(self.coded(ErrorKind::Attribute, message, span));
            }
        };
        if removed {
            Ok(())
        } else {
            Err(self.coded(ErrorKind::Attribute, StatementMessage::NothingToDelete { name: name.into() }, span))
        }
    }
}
