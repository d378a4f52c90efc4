//! Python's `enum` module as model code uses it (`class TileOpFormat(enum.Enum): ND = "ND"`):
//! `Enum`, `IntEnum`, `StrEnum`, `auto()`, `unique`. An enumeration is a class whose plain
//! attributes became its members when the class was made: one instance each, with `name` and
//! `value`, kept as CPython keeps them (`_member_names_`, and `_member_type_`: `object`, `int` or
//! `str`, the type an `IntEnum`'s or `StrEnum`'s members also compare and print as).
//! `Color(1)` finds a member by value, `Color["RED"]` by name; iterating, `len` and `in` see the
//! members in definition order (an alias, a second name for a value, is not one of them).

use std::cell::RefCell;
use std::rc::Rc;

use super::{Class, Instance};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::format::repr;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::operators::values_equal;
use crate::lang::interp::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{ClassMessage, LibraryMessage, RuntimeMessage};

/// The member type of the `enum` base class `name` (`enum.IntEnum`: `int`).
pub(crate) fn member_type_of_base(name: &str) -> Option<&'static str> {
    match name {
        "enum.Enum" => Some("object"),
        "enum.IntEnum" => Some("int"),
        "enum.StrEnum" => Some("str"),
        _ => None,
    }
}

/// The member type of an enumeration class (`None` for another class).
pub(crate) fn member_type(class: &Rc<Class>) -> Option<Rc<str>> {
    match &class.lookup("_member_type_")?.0 {
        Value::Builtin(name) => Some(name.clone()),
        _ => None,
    }
}

/// The members of an enumeration, in definition order.
pub(crate) fn members(class: &Rc<Class>) -> Vec<Value> {
    let names = match class.lookup("_member_names_").map(|(names, _)| names).as_ref() {
        Some(Value::List(names)) => names.borrow().clone(),
        _ => return Vec::new(),
    };
    names
        .iter()
        .filter_map(|name| match name {
            Value::Str(name) => class.lookup(name).map(|(member, _)| member),
            _ => None,
        })
        .collect()
}

/// The value of a member of an `IntEnum` or `StrEnum`, which stands for it in `==`, `str` and
/// formatting (`None` for anything else).
pub(crate) fn mixed_value(instance: &Instance) -> Option<Value> {
    match member_type(&instance.class)?.as_ref() {
        "int" | "str" => instance.get("value"),
        _ => None,
    }
}

/// `repr(member)`: `<Color.RED: 1>`.
pub(crate) fn member_repr(instance: &Instance) -> Option<String> {
    member_type(&instance.class)?;
    let name = instance.get("name").map(|name| crate::lang::interp::format::to_str(&name)).unwrap_or_default();
    let value = instance.get("value").map(|value| repr(&value)).unwrap_or_default();
    Some(format!("<{}.{name}: {value}>", instance.class.name))
}

/// `str(member)`: `Color.RED`; an `IntEnum`'s or `StrEnum`'s is its value's.
pub(crate) fn member_text(instance: &Instance) -> Option<String> {
    member_type(&instance.class)?;
    if let Some(value) = mixed_value(instance) {
        return Some(crate::lang::interp::format::to_str(&value));
    }
    let name = instance.get("name").map(|name| crate::lang::interp::format::to_str(&name)).unwrap_or_default();
    Some(format!("{}.{name}", instance.class.name))
}

/// `isinstance(value, enum.Enum)` (and `IntEnum`, `StrEnum`).
pub(crate) fn is_member_of_base(value: &Value, base: &str) -> bool {
    let Value::Instance(instance) = value else { return false };
    match (member_type(&instance.class), member_type_of_base(base)) {
        (Some(found), Some("object")) => !found.is_empty(),
        (Some(found), Some(wanted)) => found.as_ref() == wanted,
        _ => false,
    }
}

impl Interpreter {
    /// Turns the plain attributes of a new enumeration into its members (`auto()` numbered after
    /// the last int value, or the lowercase name in a `StrEnum`); a base enumeration with members
    /// cannot be extended.
    pub(crate) fn make_enumeration(&self, class: &Rc<Class>, member_type: &str, span: Span) -> Result<()> {
        if let Some(base) = &class.base {
            if !members(base).is_empty() {
                let message =
                    ClassMessage::ExtendEnumeration { class_name: class.name.clone(), base_name: base.name.clone() };
                return Err(self.coded(ErrorKind::Type, message, span));
            }
        }
        let mut names = Vec::new();
        let mut found: Vec<(Value, Value)> = Vec::new();
        let mut last_int = 0;
        let mut attributes = class.attributes.borrow_mut();
        for (name, slot) in attributes.iter_mut() {
            if name.starts_with('_') || !is_member_value(slot) {
                continue;
            }
            let value = match &*slot {
                Value::Object(object) if matches!(object.as_ref(), Object::EnumAuto) => match member_type {
                    "str" => Value::string(name.to_lowercase()),
                    _ => Value::Int(last_int + 1),
                },
                other => other.clone(),
            };
            let fits = match member_type {
                "int" => matches!(value, Value::Int(_) | Value::Bool(_)),
                "str" => matches!(value, Value::Str(_)),
                _ => true,
            };
            if !fits {
                let message = ClassMessage::EnumerationValue {
                    class_name: class.name.clone(),
                    name: name.clone(),
                    expected: member_type.to_string(),
                    got: value.type_name().to_string(),
                };
                return Err(self.coded(ErrorKind::Type, message, span));
            }
            if let Value::Int(number) = value {
                last_int = number;
            }
            if let Some((_, member)) = found.iter().find(|(existing, _)| values_equal(existing, &value)) {
                *slot = member.clone();
                continue;
            }
            let member = Value::Instance(Rc::new(Instance {
                class: class.clone(),
                attributes: RefCell::new(vec![
                    ("name".to_string(), Value::string(name.as_str())),
                    ("value".to_string(), value.clone()),
                ]),
            }));
            found.push((value, member.clone()));
            *slot = member;
            names.push(Value::string(name.as_str()));
        }
        attributes.push(("_member_names_".to_string(), Value::list(names)));
        attributes.push(("_member_type_".to_string(), Value::Builtin(Rc::from(member_type))));
        Ok(())
    }

    /// `Color(value)`: the member of that value (a member of the class is itself).
    pub(crate) fn enumeration_member(&self, class: &Rc<Class>, arguments: Arguments, span: Span) -> Result<Value> {
        let bound = self.bind(&class.name, &["value"], arguments, false, span)?;
        let value = bound.required(0)?;
        let candidates = members(class);
        let same = |member: &Value| match (member, value) {
            (Value::Instance(member), Value::Instance(given)) => Rc::ptr_eq(member, given),
            (Value::Instance(member), _) => member.get("value").is_some_and(|own| values_equal(&own, value)),
            _ => false,
        };
        candidates.into_iter().find(same).ok_or_else(|| {
            let message = ClassMessage::NotEnumerationValue { value: repr(value), class_name: class.name.clone() };
            self.coded(ErrorKind::Value, message, bound.span_of(0))
        })
    }

    /// `Color["RED"]`: the member of that name (an alias too), else Python's `KeyError`.
    pub(crate) fn enumeration_item(&self, class: &Rc<Class>, key: &Value, span: Span) -> Result<Value> {
        let found = match key {
            Value::Str(name) if !name.starts_with('_') => class.lookup(name).map(|(member, _)| member),
            _ => None,
        };
        match found {
            Some(member @ Value::Instance(_)) => Ok(member),
            _ => {
                Err(self.error(ErrorKind::Index, "", span).with_message(RuntimeMessage::MissingKey { key: repr(key) }))
            }
        }
    }

    /// `Color.__members__`: a dict of every name (aliases too) to its member.
    pub(crate) fn enumeration_names(&self, class: &Rc<Class>) -> Value {
        let own = class.attributes.borrow();
        let entries = own
            .iter()
            .filter(|(name, value)| {
                !name.starts_with('_') && matches!(value, Value::Instance(member) if Rc::ptr_eq(&member.class, class))
            })
            .map(|(name, value)| (Value::string(name.as_str()), value.clone()))
            .collect();
        Value::dict(entries)
    }
}

/// Whether a class attribute becomes a member: not a method, a descriptor, a class or a kernel.
fn is_member_value(value: &Value) -> bool {
    match value {
        Value::Function(_) | Value::Kernel(_) | Value::Class(_) | Value::Builtin(_) | Value::Module(_) => false,
        Value::Object(object) => {
            !matches!(object.as_ref(), Object::StaticMethod(_) | Object::ClassMethod(_) | Object::Property(_))
        }
        _ => true,
    }
}

/// `enum.name` for the names the module has here.
pub(crate) fn module_attribute(interpreter: &Interpreter, name: &str, span: Span) -> Result<Value> {
    match name {
        "Enum" | "IntEnum" | "StrEnum" | "auto" | "unique" => {
            Ok(Value::Builtin(Rc::from(format!("enum.{name}").as_str())))
        }
        _ => Err(interpreter
            .error(ErrorKind::Attribute, "", span)
            .with_message(LibraryMessage::NotAvailableHere { name: format!("enum.{name}") })),
    }
}

/// Calls `enum.auto()` (a placeholder the class turns into a value) or `enum.unique(cls)` (an
/// error when a value has two names).
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    match name {
        "enum.auto" => {
            interpreter.bind(name, &[], arguments, false, span)?;
            Ok(Value::object(Object::EnumAuto))
        }
        "enum.unique" => {
            let bound = interpreter.bind(name, &["enumeration"], arguments, false, span)?;
            let value = bound.required(0)?.clone();
            let Value::Class(class) = &value else {
                let message = ClassMessage::UniqueTarget { got: value.type_name().to_string() };
                return Err(interpreter.coded(ErrorKind::Type, message, bound.span_of(0)));
            };
            let attributes = class.attributes.borrow();
            let member_name = |value: &Value| match value {
                Value::Instance(member) if Rc::ptr_eq(&member.class, class) => {
                    member.get("name").map(|own| crate::lang::interp::format::to_str(&own))
                }
                _ => None,
            };
            let alias = attributes.iter().find_map(|(alias, value)| {
                member_name(value).filter(|name| name != alias).map(|name| (alias.clone(), name))
            });
            if let Some((alias, name)) = alias {
                let message = ClassMessage::DuplicateEnumerationValue { class_name: class.name.clone(), alias, name };
                return Err(interpreter.coded(ErrorKind::Value, message, span));
            }
            drop(attributes);
            Ok(value)
        }
        _ => Err(interpreter
            .error(ErrorKind::Attribute, "", span)
            .with_message(LibraryMessage::NotAvailableHere { name: name.to_string() })),
    }
}
