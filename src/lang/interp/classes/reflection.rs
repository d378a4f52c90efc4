//! The builtins that work on classes and instances (`isinstance getattr hasattr setattr
//! staticmethod classmethod property`) and the `dataclasses` and `typing` modules.

use std::rc::Rc;

use crate::lang::interp::api_table;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, Value};
use crate::lang::syntax::Span;

/// The builtins of this module.
pub(crate) const CLASS_BUILTINS: [&str; 9] =
    ["isinstance", "getattr", "hasattr", "setattr", "staticmethod", "classmethod", "property", "object", "super"];

impl Interpreter {
    /// Calls one of `CLASS_BUILTINS`, or a function of `dataclasses` or `typing`.
    pub(crate) fn call_class_builtin(&self, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
        match name {
            "isinstance" => {
                let bound = self.bind(name, &["object", "classinfo"], arguments, false, span)?;
                let object = bound.required(0)?;
                let classinfo = bound.required(1)?;
                let candidates = match classinfo {
                    Value::Tuple(items) => items.as_ref().clone(),
                    other => vec![other.clone()],
                };
                let mut result = false;
                for candidate in &candidates {
                    result |= self.is_instance_of(object, candidate, bound.span_of(1))?;
                }
                Ok(Value::Bool(result))
            }
            "getattr" | "hasattr" => {
                let names: &[&str] =
                    if name == "getattr" { &["object", "name", "default"] } else { &["object", "name"] };
                let bound = self.bind(name, names, arguments, false, span)?;
                let attribute = self.attribute_name(bound.required(1)?, bound.span_of(1))?;
                let found = self.get_attribute(bound.required(0)?, &attribute, span);
                match (name, found, bound.values.get(2).and_then(|value| value.as_ref())) {
                    ("hasattr", found, _) => Ok(Value::Bool(found.is_ok())),
                    (_, Ok(value), _) => Ok(value),
                    (_, Err(error), _) if error.kind != ErrorKind::Attribute => Err(error),
                    (_, Err(_), Some((default, _))) => Ok(default.clone()),
                    (_, Err(error), None) => Err(error),
                }
            }
            "setattr" => {
                let bound = self.bind(name, &["object", "name", "value"], arguments, false, span)?;
                let attribute = self.attribute_name(bound.required(1)?, bound.span_of(1))?;
                self.set_attribute(bound.required(0)?, &attribute, bound.required(2)?.clone(), span)?;
                Ok(Value::None)
            }
            "staticmethod" | "classmethod" | "property" => {
                let bound = self.bind(name, &["function"], arguments, false, span)?;
                let function = bound.required(0)?.clone();
                if !matches!(function, Value::Function(_) | Value::Kernel(_)) {
                    return Err(self.error(
                        ErrorKind::Type,
                        format!("@{name} decorates a function defined with `def`"),
                        span,
                    ));
                }
                Ok(Value::object(match name {
                    "staticmethod" => Object::StaticMethod(function),
                    "classmethod" => Object::ClassMethod(function),
                    _ => Object::Property(function),
                }))
            }
            "super" => self.call_super(arguments, span),
            "object" => Err(self
                .error(ErrorKind::Unsupported, "object() instances are not supported in tile scripts", span)
                .with_help("`object` works as a base class: class Config(object): …")),
            "dataclasses.dataclass" => {
                let bound = self.bind("dataclasses.dataclass", &["cls", "frozen"], arguments, false, span)?;
                let frozen = bound.flag(1, false)?;
                match bound.optional(0) {
                    None => Ok(Value::object(Object::DataclassDecorator { frozen })),
                    Some(Value::Class(class)) => self.make_dataclass(class, frozen, span),
                    Some(other) => Err(self.error(
                        ErrorKind::Type,
                        format!("@dataclass decorates a class, not a '{}'", other.type_name()),
                        bound.span_of(0),
                    )),
                }
            }
            "dataclasses.field" => {
                let bound = self.bind("dataclasses.field", &["default", "default_factory"], arguments, false, span)?;
                let default = bound.values[0].as_ref().map(|(value, _)| value.clone());
                let factory = bound.values[1].as_ref().map(|(value, _)| value.clone());
                if default.is_some() && factory.is_some() {
                    return Err(self.error(
                        ErrorKind::Value,
                        "field() cannot take both default and default_factory",
                        span,
                    ));
                }
                Ok(Value::object(Object::Field { default, factory }))
            }
            "dataclasses.replace" => {
                let mut arguments = arguments;
                if arguments.positional.is_empty() {
                    // No object: the standard message, naming the keyword that cannot stand alone.
                    self.bind("dataclasses.replace", &["obj"], arguments, false, span)?;
                    return Err(self.error(
                        ErrorKind::Type,
                        "dataclasses.replace(obj, **changes) needs the object",
                        span,
                    ));
                }
                if arguments.positional.len() != 1 {
                    return Err(self.error(
                        ErrorKind::Type,
                        "dataclasses.replace(obj, **changes) takes one object",
                        span,
                    ));
                }
                let (object, object_span) = arguments.positional.remove(0);
                match &object {
                    Value::Instance(instance) if instance.named_fields().is_some() => {
                        self.replace_fields(instance, arguments, span)
                    }
                    other => Err(self.error(
                        ErrorKind::Type,
                        format!("replace() needs a dataclass instance, not '{}'", other.type_name()),
                        object_span,
                    )),
                }
            }
            "dataclasses.asdict" => {
                let bound = self.bind("dataclasses.asdict", &["obj"], arguments, false, span)?;
                match bound.required(0)? {
                    Value::Instance(instance) if instance.named_fields().is_some() => {
                        let fields = instance.named_fields().unwrap_or_default();
                        Ok(Value::dict(fields.into_iter().map(|(key, value)| (Value::string(key), value)).collect()))
                    }
                    other => Err(self.error(
                        ErrorKind::Type,
                        format!("asdict() needs a dataclass instance, not '{}'", other.type_name()),
                        span,
                    )),
                }
            }
            "typing.NamedTuple" => {
                self.bind("typing.NamedTuple", &["typename", "fields"], arguments, false, span)?;
                Err(self
                    .error(
                        ErrorKind::Unsupported,
                        "the call form NamedTuple(\"Name\", [...]) is not supported in tile scripts",
                        span,
                    )
                    .with_help("write the class form: class Name(NamedTuple):\n    a: int\n    b: int = 4"))
            }
            _ => Err(self
                .error(ErrorKind::Type, format!("{name} is a type for annotations; it cannot be called"), span)
                .with_help("annotations are accepted and ignored: use it after ':' or '->'")),
        }
    }

    /// Calls the decorator `dataclass(frozen=…)` returned on a class.
    pub(crate) fn apply_dataclass_decorator(
        &self,
        decorator: &Object,
        arguments: Arguments,
        span: Span,
    ) -> Result<Value> {
        let Object::DataclassDecorator { frozen } = decorator else {
            return Err(self.error(ErrorKind::Type, "not a dataclass decorator", span));
        };
        let bound = self.bind("dataclass", &["cls"], arguments, false, span)?;
        match bound.required(0)? {
            Value::Class(class) => self.make_dataclass(class, *frozen, span),
            other => Err(self.error(
                ErrorKind::Type,
                format!("@dataclass decorates a class, not a '{}'", other.type_name()),
                bound.span_of(0),
            )),
        }
    }

    /// `isinstance(object, candidate)` for one candidate class.
    fn is_instance_of(&self, object: &Value, candidate: &Value, span: Span) -> Result<bool> {
        Ok(match candidate {
            Value::Class(class) => matches!(object, Value::Instance(instance) if instance.class.derives_from(class)),
            Value::Builtin(name) => match name.as_ref() {
                "int" => matches!(object, Value::Int(_) | Value::Bool(_)),
                "float" => matches!(object, Value::Float(_)),
                "bool" => matches!(object, Value::Bool(_)),
                "str" => matches!(object, Value::Str(_)),
                "list" => matches!(object, Value::List(_)),
                "tuple" => {
                    matches!(object, Value::Tuple(_))
                        || matches!(object, Value::Instance(instance) if instance.is_named_tuple())
                }
                "object" => true,
                "pypto.Tensor" => matches!(object, Value::Tensor(_)),
                _ if name.starts_with("typing.") => {
                    return Err(self
                        .error(ErrorKind::Type, format!("{name} cannot be used with isinstance()"), span)
                        .with_help("check against a concrete type: isinstance(x, (list, tuple))"))
                }
                _ => return Err(self.error(ErrorKind::Type, format!("isinstance(): {name} is not a type"), span)),
            },
            other => {
                return Err(self.error(
                    ErrorKind::Type,
                    format!("isinstance() arg 2 must be a type or a tuple of types, not '{}'", other.type_name()),
                    span,
                ))
            }
        })
    }

    fn attribute_name(&self, value: &Value, span: Span) -> Result<String> {
        match value {
            Value::Str(text) => Ok(text.to_string()),
            other => Err(self.error(
                ErrorKind::Type,
                format!("attribute name must be a string, not '{}'", other.type_name()),
                span,
            )),
        }
    }

    /// `typing.name`: a name documented in the API table (annotations only, `NamedTuple` a base).
    pub(crate) fn typing_attribute(&self, name: &str, span: Span) -> Result<Value> {
        let qualified = format!("typing.{name}");
        if api_table::lookup(&qualified).is_some() {
            return Ok(Value::Builtin(Rc::from(qualified.as_str())));
        }
        let error = self.error(ErrorKind::Attribute, format!("module 'typing' has no attribute '{name}'"), span);
        Err(match api_table::closest(name, api_table::members("typing").map(|entry| entry.short_name())) {
            Some(near) => error.with_help(format!("did you mean `typing.{near}`?")),
            None => error.with_help(
                "annotations are ignored: any name from typing that is not listed by help(typing) can be left out",
            ),
        })
    }
}

/// Whether `name` is one of `CLASS_BUILTINS` or a `dataclasses`/`typing` function.
pub(crate) fn is_class_builtin(name: &str) -> bool {
    CLASS_BUILTINS.contains(&name) || name.starts_with("dataclasses.") || name.starts_with("typing.")
}
