//! The builtins that work on classes and instances (`isinstance vars getattr hasattr setattr
//! staticmethod classmethod property`) and the `dataclasses` and `typing` modules.

use std::rc::Rc;

use crate::lang::interp::api_table;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{ClassMessage, Construct, Message, StatementMessage, UnsupportedMessage};

/// The builtins of this module.
pub(crate) const CLASS_BUILTINS: [&str; 11] = [
    "isinstance",
    "vars",
    "type",
    "getattr",
    "hasattr",
    "setattr",
    "staticmethod",
    "classmethod",
    "property",
    "object",
    "super",
];

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
            "type" => {
                let bound = self.bind(name, &["object"], arguments, false, span)?;
                Ok(type_of(bound.required(0)?))
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
            // An instance's own attributes (an argparse Namespace is one), a class's own
            // attributes and methods; a copy, where Python gives the live `__dict__`.
            "vars" => {
                let bound = self.bind(name, &["object"], arguments, false, span)?;
                let attributes = match bound.required(0)? {
                    Value::Instance(instance) if !instance.is_named_tuple() => instance.attributes.borrow().clone(),
                    Value::Class(class) => class.attributes.borrow().clone(),
                    _ => return Err(self.coded(ErrorKind::Type, ClassMessage::NoAttributeDict, bound.span_of(0))),
                };
                Ok(Value::dict(attributes.into_iter().map(|(key, value)| (Value::string(key), value)).collect()))
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
                    let got = function.type_name().to_string();
                    let message = StatementMessage::DecoratorTarget { decorator: name.to_string(), got };
                    return Err(self.coded(ErrorKind::Type, message, span));
                }
                Ok(Value::object(match name {
                    "staticmethod" => Object::StaticMethod(function),
                    "classmethod" => Object::ClassMethod(function),
                    _ => Object::Property(function),
                }))
            }
            "super" => self.call_super(arguments, span),
            "object" => Err(self
                .coded(
                    ErrorKind::Unsupported,
                    UnsupportedMessage::NotSupported { construct: Construct::ObjectInstances },
                    span,
                )
                .with_help_message(ClassMessage::ObjectAsBase)),
            "dataclasses.dataclass" => {
                let bound = self.bind("dataclasses.dataclass", &["cls", "frozen"], arguments, false, span)?;
                let frozen = bound.flag(1, false)?;
                match bound.optional(0) {
                    None => Ok(Value::object(Object::DataclassDecorator { frozen })),
                    Some(Value::Class(class)) => self.make_dataclass(class, frozen, span),
                    Some(other) => Err(self.dataclass_target(other, bound.span_of(0))),
                }
            }
            "dataclasses.field" => {
                let bound = self.bind("dataclasses.field", &["default", "default_factory"], arguments, false, span)?;
                let default = bound.values[0].as_ref().map(|(value, _)| value.clone());
                let factory = bound.values[1].as_ref().map(|(value, _)| value.clone());
                if default.is_some() && factory.is_some() {
                    return Err(self.coded(ErrorKind::Value, ClassMessage::FieldDefaultAndFactory, span));
                }
                Ok(Value::object(Object::Field { default, factory }))
            }
            "dataclasses.replace" => {
                let mut arguments = arguments;
                if arguments.positional.is_empty() {
                    // No object: the standard message, naming the keyword that cannot stand alone.
                    self.bind("dataclasses.replace", &["obj"], arguments, false, span)?;
                    return Err(self.coded(ErrorKind::Type, ClassMessage::ReplaceForm, span));
                }
                if arguments.positional.len() != 1 {
                    return Err(self.coded(ErrorKind::Type, ClassMessage::ReplaceForm, span));
                }
                let (object, object_span) = arguments.positional.remove(0);
                match &object {
                    Value::Instance(instance) if instance.named_fields().is_some() => {
                        self.replace_fields(instance, arguments, span)
                    }
                    other => {
                        let got = other.type_name().to_string();
                        let message = ClassMessage::NeedsDataclassInstance { function: "replace".into(), got };
                        Err(self.coded(ErrorKind::Type, message, object_span))
                    }
                }
            }
            "dataclasses.asdict" => {
                let bound = self.bind("dataclasses.asdict", &["obj"], arguments, false, span)?;
                match bound.required(0)? {
                    Value::Instance(instance) if instance.named_fields().is_some() => {
                        let fields = instance.named_fields().unwrap_or_default();
                        Ok(Value::dict(fields.into_iter().map(|(key, value)| (Value::string(key), value)).collect()))
                    }
                    other => {
                        let got = other.type_name().to_string();
                        let message = ClassMessage::NeedsDataclassInstance { function: "asdict".into(), got };
                        Err(self.coded(ErrorKind::Type, message, span))
                    }
                }
            }
            "typing.NamedTuple" => {
                self.bind("typing.NamedTuple", &["typename", "fields"], arguments, false, span)?;
                let message = UnsupportedMessage::NotSupported { construct: Construct::NamedTupleCall };
                Err(self
                    .coded(ErrorKind::Unsupported, message, span)
                    .with_help_message(ClassMessage::NamedTupleClassForm))
            }
            _ => Err(self
                .coded(ErrorKind::Type, ClassMessage::AnnotationCalled { name: name.to_string() }, span)
                .with_help_message(ClassMessage::AnnotationsIgnored)),
        }
    }

    /// Calls the decorator `dataclass(frozen=…)` returned on a class.
    pub(crate) fn apply_dataclass_decorator(&self, frozen: bool, arguments: Arguments, span: Span) -> Result<Value> {
        let bound = self.bind("dataclass", &["cls"], arguments, false, span)?;
        match bound.required(0)? {
            Value::Class(class) => self.make_dataclass(class, frozen, span),
            other => Err(self.dataclass_target(other, bound.span_of(0))),
        }
    }

    /// `@dataclass` above a value that is not a class.
    fn dataclass_target(&self, value: &Value, span: Span) -> crate::lang::interp::error::RuntimeError {
        self.coded(ErrorKind::Type, ClassMessage::DataclassTarget { got: value.type_name().to_string() }, span)
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
                "dict" => matches!(object, Value::Dict(_)),
                "tuple" => {
                    matches!(object, Value::Tuple(_))
                        || matches!(object, Value::Instance(instance) if instance.is_named_tuple())
                }
                "object" => true,
                // No fake tensors exist here: torch.compile does not run.
                "torch._subclasses.fake_tensor.FakeTensor" => false,
                "enum.Enum" | "enum.IntEnum" | "enum.StrEnum" => super::enumeration::is_member_of_base(object, name),
                // An ndarray is a TileLab tensor here (see `numpy`), as a torch tensor is.
                "pypto.Tensor" | "pypto.tensor" | "torch.Tensor" | "numpy.ndarray" => {
                    matches!(object, Value::Tensor(_))
                }
                _ if name.starts_with("collections.abc.") => abstract_container(name, object).ok_or_else(|| {
                    self.coded(ErrorKind::Type, ClassMessage::IsinstanceType { got: name.to_string() }, span)
                })?,
                _ if name.starts_with("typing.") => {
                    return Err(self
                        .coded(ErrorKind::Type, ClassMessage::IsinstanceAnnotation { name: name.to_string() }, span)
                        .with_help_message(ClassMessage::IsinstanceConcrete))
                }
                _ => {
                    return Err(self.coded(
                        ErrorKind::Type,
                        ClassMessage::IsinstanceType { got: name.to_string() },
                        span,
                    ))
                }
            },
            other => {
                let got = other.type_name().to_string();
                return Err(self.coded(ErrorKind::Type, ClassMessage::IsinstanceType { got }, span));
            }
        })
    }

    fn attribute_name(&self, value: &Value, span: Span) -> Result<String> {
        match value {
            Value::Str(text) => Ok(text.to_string()),
            other => Err(self.coded(
                ErrorKind::Type,
                ClassMessage::AttributeNameType { got: other.type_name().to_string() },
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
        let message = Message::NoModuleAttribute { module: "typing".into(), name: name.to_string() };
        let error = self.coded(ErrorKind::Attribute, message, span);
        Err(match api_table::closest(name, api_table::members("typing").map(|entry| entry.short_name())) {
            Some(near) => error.with_help_message(Message::DidYouMean { suggestion: format!("typing.{near}") }),
            None => error.with_help_message(ClassMessage::TypingNames),
        })
    }
}

/// Whether `name` is one of `CLASS_BUILTINS` or a `dataclasses`/`typing` function.
pub(crate) fn is_class_builtin(name: &str) -> bool {
    CLASS_BUILTINS.contains(&name) || name.starts_with("dataclasses.") || name.starts_with("typing.")
}

/// Whether `object` is an instance of the abstract container `collections.abc.<name>` (by what it
/// is, as Python's registered built-in types are); `None` for a name isinstance cannot test here.
fn abstract_container(name: &str, object: &Value) -> Option<bool> {
    let sequence = matches!(object, Value::Str(_) | Value::List(_) | Value::Tuple(_) | Value::Range(..));
    Some(match name.strip_prefix("collections.abc.")? {
        "Iterable" | "Collection" | "Container" | "Sized" => {
            sequence || matches!(object, Value::Dict(_) | Value::Set(_) | Value::Tensor(_))
        }
        "Sequence" => sequence,
        "MutableSequence" => matches!(object, Value::List(_)),
        "Mapping" | "MutableMapping" => matches!(object, Value::Dict(_)),
        "Set" | "MutableSet" => matches!(object, Value::Set(_)),
        "Callable" => matches!(
            object,
            Value::Function(_) | Value::Builtin(_) | Value::Method(_) | Value::Kernel(_) | Value::Class(_)
        ),
        _ => return None,
    })
}

/// `type(object)`: an instance's class; for a value of a builtin type the builtin that makes it
/// (`int`, `list`, `torch.Tensor` …), which `isinstance`, `==`, `is` and calls accept; for the
/// rest a type known by its name (printed `<class 'NoneType'>`).
fn type_of(object: &Value) -> Value {
    let name = match object {
        Value::Instance(instance) => return Value::Class(instance.class.clone()),
        Value::Object(inner) => match inner.as_ref() {
            Object::Exception { name, .. } => name.as_str(),
            _ => object.type_name(),
        },
        Value::Tensor(tensor) if tensor.torch.get() => "torch.Tensor",
        Value::Tensor(_) => "pypto.Tensor",
        other => other.type_name(),
    };
    Value::Builtin(Rc::from(name))
}

/// Whether a builtin's name is the name of a type (`type(…)` of a value), printed `<class '…'>`.
pub(crate) fn is_type_name(name: &str) -> bool {
    const TYPES: [&str; 22] = [
        "NoneType",
        "bool",
        "int",
        "float",
        "str",
        "list",
        "tuple",
        "dict",
        "set",
        "range",
        "slice",
        "ellipsis",
        "function",
        "builtin_function",
        "module",
        "method",
        "dtype",
        "kernel",
        "type",
        "object",
        "torch.Tensor",
        "pypto.Tensor",
    ];
    TYPES.contains(&name) || crate::lang::interp::raising::is_exception(name)
}
