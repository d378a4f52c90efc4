//! The parts of Python's library that pypto's tests and models import around their kernels:
//! `logging` (records at or above the level, WARNING by default, become `logging` warnings of the
//! cell: a terminal shows them on stderr), `copy` (`copy`, `deepcopy`), `json` (`dumps`, `loads`
//! of plain values), `abc` (`ABC`, `abstractmethod`), and `pytest` (`mark.*` and `fixture` leave
//! what they decorate callable as written, `raises` is a context manager, `skip`/`fail` raise), and
//! `pkgutil.find_loader` (whether a module is there to import).

use std::cell::Cell;
use std::rc::Rc;

use super::super::classes::{Class, ClassKind, Instance};
use super::super::error::{ErrorKind, Result};
use super::super::eval::Arguments;
use super::super::format::to_str;
use super::super::interpreter::Interpreter;
use super::super::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{LibraryMessage, Message};

/// The library modules (by first name) this file answers for.
pub(crate) const LIBRARY_MODULES: [&str; 9] =
    ["logging", "copy", "json", "abc", "pytest", "collections", "inspect", "gc", "pkgutil"];

/// The importable names of the library modules (`import …` checks these).
pub(crate) const IMPORTABLE: [&str; 11] = [
    "pkgutil",
    "logging",
    "copy",
    "json",
    "abc",
    "pytest",
    "collections",
    "collections.abc",
    "pypto.symbolic_scalar",
    "inspect",
    "gc",
];

/// Python's logging levels, by name.
const LEVELS: [(&str, i64); 6] =
    [("NOTSET", 0), ("DEBUG", 10), ("INFO", 20), ("WARNING", 30), ("ERROR", 40), ("CRITICAL", 50)];

/// What the library modules keep for a session: the logging level and the class `abc.ABC`.
pub(crate) struct LibraryState {
    log_level: Cell<i64>,
    abc: std::cell::OnceCell<Rc<Class>>,
}

impl Default for LibraryState {
    fn default() -> Self {
        LibraryState { log_level: Cell::new(30), abc: Default::default() }
    }
}

/// `module.name` for the library modules.
pub(crate) fn module_attribute(interpreter: &Interpreter, module: &str, name: &str, span: Span) -> Result<Value> {
    let builtin = |name: &str| Ok(Value::Builtin(Rc::from(format!("{module}.{name}").as_str())));
    match (module, name) {
        ("logging", _) if LEVELS.iter().any(|(level, _)| *level == name) => {
            Ok(Value::Int(LEVELS.iter().find(|(level, _)| *level == name).map_or(0, |(_, value)| *value)))
        }
        (
            "logging",
            "getLogger" | "basicConfig" | "setLevel" | "debug" | "info" | "warning" | "warn" | "error" | "critical"
            | "exception" | "log" | "disable",
        )
        | ("copy", "copy" | "deepcopy")
        | ("json", "dumps" | "loads" | "load")
        | ("abc", "abstractmethod")
        | ("inspect", "signature")
        | ("gc", "collect")
        | ("pkgutil", "find_loader")
        | ("pytest", "raises" | "skip" | "fail" | "fixture" | "param")
        | ("pytest.mark", _) => builtin(name),
        ("abc", "ABC") => Ok(Value::Class(abc_class(interpreter))),
        ("pytest", "mark") => Ok(Value::Module(Rc::from("pytest.mark"))),
        ("collections", "abc") => Ok(Value::Module(Rc::from("collections.abc"))),
        // The abstract container types name themselves (for imports and annotations).
        ("collections.abc", _) => builtin(name),
        _ => Err(interpreter
            .error(ErrorKind::Attribute, "", span)
            .with_message(LibraryMessage::NotAvailableHere { name: format!("{module}.{name}") })),
    }
}

/// The class `abc.ABC`: a base class with nothing in it (abstract methods are not enforced).
fn abc_class(interpreter: &Interpreter) -> Rc<Class> {
    interpreter
        .host
        .library
        .abc
        .get_or_init(|| {
            Rc::new(Class {
                name: "ABC".to_string(),
                base: None,
                kind: ClassKind::Plain,
                fields: Vec::new(),
                annotations: Vec::new(),
                attributes: Default::default(),
            })
        })
        .clone()
}

/// Calls a function of a library module by qualified name (`None`: not one of theirs).
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Option<Result<Value>> {
    let (module, function) = name.rsplit_once('.')?;
    Some(match (module, function) {
        ("logging", _) => log(interpreter, function, arguments, span),
        ("copy", _) => interpreter.bind(name, &["x", "memo"], arguments, false, span).and_then(|bound| {
            let value = bound.required(0)?.clone();
            copy_value(interpreter, &value, function == "deepcopy", span)
        }),
        ("json", "dumps") => {
            interpreter.bind(name, &["obj", "indent", "sort_keys"], arguments, false, span).and_then(|bound| {
                let mut text = String::new();
                dump(interpreter, bound.required(0)?, &mut text, bound.span_of(0))?;
                Ok(Value::string(text))
            })
        }
        // Values are freed when their last reference goes: there is nothing left to collect.
        // A module's loader is only tested for (`if pkgutil.find_loader("ml_dtypes")`): the module
        // itself stands for it when the script can import it, `None` otherwise.
        ("pkgutil", "find_loader") => interpreter.bind(name, &["fullname"], arguments, false, span).map(|bound| {
            let module = bound.optional(0).map(to_str).unwrap_or_default();
            if interpreter.has_module(&module) {
                Value::Module(Rc::from(module.as_str()))
            } else {
                Value::None
            }
        }),
        ("gc", "collect") => interpreter.bind(name, &["generation"], arguments, false, span).map(|_| Value::Int(0)),
        ("json", "loads" | "load") => {
            let parameter = if function == "load" { "fp" } else { "s" };
            interpreter.bind(name, &[parameter], arguments, false, span).and_then(|bound| {
                let given = bound.required(0)?;
                // `json.load(fp)`: what is left of an opened file, as Python reads it (`fp.read()`).
                let text = match function {
                    "load" => {
                        let none = Arguments { positional: Vec::new(), keywords: Vec::new() };
                        to_str(&interpreter.call_method(given, "read", none, span)?)
                    }
                    _ => to_str(given),
                };
                serde_json::from_str::<serde_json::Value>(&text).map(|parsed| load(&parsed)).map_err(|error| {
                    interpreter
                        .error(ErrorKind::Value, "", bound.span_of(0))
                        .with_message(Message::Text { text: format!("JSONDecodeError: {error}") })
                })
            })
        }
        // Decorators that leave the function as written: `@abc.abstractmethod`, `@pytest.fixture`,
        // `@pytest.mark.skip(reason=…)`, `@pytest.mark.parametrize(…)` (the driver calls the test).
        ("abc", "abstractmethod") | ("pytest", "fixture" | "marker") | ("pytest.mark", _) => {
            let decorated = arguments.keywords.is_empty()
                && arguments.positional.len() == 1
                && matches!(
                    arguments.positional[0].0,
                    Value::Function(_) | Value::Class(_) | Value::Kernel(_) | Value::Object(_)
                );
            match arguments.positional.into_iter().next() {
                Some((value, _)) if decorated => Ok(value),
                _ => Ok(Value::Builtin(Rc::from("pytest.marker"))),
            }
        }
        ("inspect", "signature") => interpreter.bind(name, &["obj"], arguments, false, span).and_then(|bound| {
            let function = match bound.required(0)? {
                Value::Function(function) => function.clone(),
                Value::Kernel(kernel) => kernel.function.clone(),
                other => {
                    let text =
                        format!("inspect.signature() takes a function defined with def, not a '{}'", other.type_name());
                    return Err(interpreter
                        .error(ErrorKind::Type, "", bound.span_of(0))
                        .with_message(Message::Text { text }));
                }
            };
            Ok(signature(interpreter, &function))
        }),
        ("pytest", "param") => Ok(Value::tuple(arguments.positional.into_iter().map(|(value, _)| value).collect())),
        ("pytest", "skip" | "fail") => interpreter.bind(name, &["reason"], arguments, false, span).and_then(|bound| {
            let reason = bound.optional(0).map(to_str).unwrap_or_default();
            let outcome = if function == "skip" { "Skipped" } else { "Failed" };
            Err(interpreter
                .error(ErrorKind::Assertion, "", span)
                .with_message(Message::Text { text: format!("{outcome}: {reason}") }))
        }),
        ("pytest", "raises") => {
            interpreter.bind(name, &["expected_exception", "match"], arguments, false, span).map(|bound| {
                let type_name = |value: &Value| match value {
                    Value::Builtin(name) => name.to_string(),
                    other => to_str(other),
                };
                let types = match bound.optional(0) {
                    Some(Value::Tuple(items)) => items.iter().map(type_name).collect(),
                    Some(other) => vec![type_name(other)],
                    None => vec!["Exception".to_string()],
                };
                Value::object(Object::ExpectedRaise { types, pattern: bound.optional(1).map(to_str) })
            })
        }
        _ => return None,
    })
}

/// `inspect.signature(f)`: a `Signature` whose `parameters` maps each parameter's name (in order,
/// `*args` and `**kwargs` included) to the name.
fn signature(interpreter: &Interpreter, function: &super::super::value::Function) -> Value {
    let parameters = &function.definition.parameters;
    let names = parameters
        .positional
        .iter()
        .chain(&parameters.varargs)
        .chain(&parameters.keyword_only)
        .chain(&parameters.kwargs)
        .map(|parameter| {
            let name = Value::string(parameter.name.name.as_str());
            (name.clone(), name)
        })
        .collect();
    let class = Rc::new(Class {
        name: "Signature".to_string(),
        base: None,
        kind: ClassKind::Plain,
        fields: Vec::new(),
        annotations: Vec::new(),
        attributes: Default::default(),
    });
    let attributes = vec![("parameters".to_string(), Value::dict(names))];
    let instance = Rc::new(Instance { class, attributes: attributes.into() });
    interpreter.instances.register(&instance);
    Value::Instance(instance)
}

/// `logging.info(message, *args)` and the rest: a record at or above the level is a warning of the
/// cell, `LEVEL:root:message` (Python's default format); `basicConfig(level=…)` and `setLevel`
/// change the level; `getLogger` is the module itself (one root logger).
fn log(interpreter: &Interpreter, function: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let state = &interpreter.host.library;
    match function {
        "getLogger" => return Ok(Value::Module(Rc::from("logging"))),
        "basicConfig" | "setLevel" | "disable" => {
            let level = arguments
                .keywords
                .iter()
                .find(|(key, _, _)| key == "level")
                .map(|(_, value, _)| value)
                .or(arguments.positional.first().map(|(value, _)| value));
            if let Some(Value::Int(level)) = level {
                state.log_level.set(if function == "disable" { level + 1 } else { *level });
            }
            return Ok(Value::None);
        }
        _ => {}
    }
    let mut positional = arguments.positional.into_iter();
    let level = match function {
        "log" => match positional.next() {
            Some((Value::Int(level), _)) => level,
            _ => 0,
        },
        "debug" => 10,
        "info" => 20,
        "warning" | "warn" => 30,
        "critical" => 50,
        _ => 40,
    };
    let Some((message, _)) = positional.next() else { return Ok(Value::None) };
    if level < state.log_level.get() {
        return Ok(Value::None);
    }
    let mut text = to_str(&message);
    let values: Vec<Value> = positional.map(|(value, _)| value).collect();
    if !values.is_empty() {
        text = substitute(&text, &values);
    }
    let name = LEVELS.iter().rev().find(|(_, value)| *value <= level).map_or("NOTSET", |(name, _)| name);
    interpreter.warn_message("logging", Message::Text { text: format!("{name}:root:{text}") }, span, None);
    Ok(Value::None)
}

/// A log message's `%s`-style placeholders (`%s`, `%d`, `%r`, `%f`, `%%`) filled in turn with the values.
fn substitute(format: &str, values: &[Value]) -> String {
    let mut out = String::new();
    let mut values = values.iter();
    let mut characters = format.chars().peekable();
    while let Some(character) = characters.next() {
        match (character, characters.peek()) {
            ('%', Some('%')) => {
                characters.next();
                out.push('%');
            }
            ('%', Some('s' | 'd' | 'r' | 'f' | 'i')) => {
                characters.next();
                out.push_str(&values.next().map(to_str).unwrap_or_default());
            }
            _ => out.push(character),
        }
    }
    out
}

/// `copy.copy` (a new container of the same items, a new instance with the same attributes) and
/// `copy.deepcopy` (the same, all the way down); tensors are copied with their data.
fn copy_value(interpreter: &Interpreter, value: &Value, deep: bool, span: Span) -> Result<Value> {
    let item = |value: &Value| if deep { copy_value(interpreter, value, true, span) } else { Ok(value.clone()) };
    Ok(match value {
        Value::List(items) => Value::list(items.borrow().iter().map(item).collect::<Result<_>>()?),
        Value::Tuple(items) if deep => Value::tuple(items.iter().map(item).collect::<Result<_>>()?),
        Value::Set(items) => Value::Set(Rc::new(std::cell::RefCell::new(items.borrow().clone()))),
        Value::Dict(items) => Value::dict(
            items.borrow().iter().map(|(key, value)| Ok((key.clone(), item(value)?))).collect::<Result<_>>()?,
        ),
        Value::Tensor(_) => interpreter.call_method(value, "clone", Arguments::empty(), span)?,
        Value::Instance(instance) => {
            let attributes = instance
                .attributes
                .borrow()
                .iter()
                .map(|(name, value)| Ok((name.clone(), item(value)?)))
                .collect::<Result<Vec<_>>>()?;
            let copied = Rc::new(Instance { class: instance.class.clone(), attributes: attributes.into() });
            interpreter.instances.register(&copied);
            Value::Instance(copied)
        }
        other => other.clone(),
    })
}

/// `json.dumps` of plain values, spaced as Python's default (`", "`, `": "`).
fn dump(interpreter: &Interpreter, value: &Value, out: &mut String, span: Span) -> Result<()> {
    match value {
        Value::None => out.push_str("null"),
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Value::Int(_) | Value::Float(_) => out.push_str(&to_str(value)),
        Value::Str(text) => out.push_str(&serde_json::Value::String(text.to_string()).to_string()),
        Value::List(_) | Value::Tuple(_) => {
            let items: Vec<Value> = match value {
                Value::List(items) => items.borrow().clone(),
                Value::Tuple(items) => items.as_ref().clone(),
                _ => Vec::new(),
            };
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                dump(interpreter, item, out, span)?;
            }
            out.push(']');
        }
        Value::Dict(items) => {
            out.push('{');
            for (index, (key, item)) in items.borrow().iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                let key = match key {
                    Value::Str(_) => key.clone(),
                    other => Value::string(to_str(other)),
                };
                dump(interpreter, &key, out, span)?;
                out.push_str(": ");
                dump(interpreter, item, out, span)?;
            }
            out.push('}');
        }
        other => {
            let text = format!("Object of type {} is not JSON serializable", other.type_name());
            return Err(interpreter.error(ErrorKind::Type, "", span).with_message(Message::Text { text }));
        }
    }
    Ok(())
}

/// The script value of parsed JSON.
fn load(parsed: &serde_json::Value) -> Value {
    match parsed {
        serde_json::Value::Null => Value::None,
        serde_json::Value::Bool(flag) => Value::Bool(*flag),
        serde_json::Value::Number(number) => match number.as_i64() {
            Some(int) => Value::Int(int),
            None => Value::Float(number.as_f64().unwrap_or(f64::NAN)),
        },
        serde_json::Value::String(text) => Value::string(text.as_str()),
        serde_json::Value::Array(items) => Value::list(items.iter().map(load).collect()),
        serde_json::Value::Object(entries) => {
            Value::dict(entries.iter().map(|(key, value)| (Value::string(key.as_str()), load(value))).collect())
        }
    }
}
