//! `torch.library` and `torch.ops`: the custom operators model code wraps its pypto kernels in (a
//! schema defined in a library, a Python kernel per dispatch key, calls through
//! `torch.ops.<namespace>.<name>`), so that such a file runs as written.
//!
//! Where it knowingly differs from torch: every tensor is on the simulated NPU (and in host
//! memory), so a call runs the operator's "NPU" kernel, else its "CPU" one, else a composite one;
//! a "Meta" kernel is kept (torch.compile would call it) but never runs, since no fake tensors
//! exist. Defining an operator again replaces its schema, as re-running a notebook cell that
//! makes a new `Library` does in torch. Kernels for autograd keys are refused (a backward is
//! registered with `pypto.register_gradient`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::schema::{self, Returns, Schema};
use crate::lang::interp::error::{ErrorKind, Result, RuntimeError};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::LibraryOperatorMessage;

/// The kernels that run, in the order a call looks for them.
const RUNNABLE: [&str; 4] = ["NPU", "CPU", "CompositeExplicitAutograd", "CompositeImplicitAutograd"];

/// Keys torch knows whose kernels never run here (no such device, no fake tensors).
const KEPT: [&str; 5] = ["Meta", "CUDA", "XLA", "MPS", "BackendSelect"];

/// Autograd keys: refused (see the module's note).
const AUTOGRAD: [&str; 5] = ["Autograd", "AutogradCPU", "AutogradCUDA", "AutogradNPU", "AutogradPrivateUse1"];

/// The session's operators: schemas and kernels by qualified name (`pypto::hc_pre`).
#[derive(Default)]
pub(crate) struct Operators {
    schemas: RefCell<HashMap<String, Rc<Schema>>>,
    kernels: RefCell<HashMap<String, Vec<(&'static str, Value)>>>,
}

/// Calls `torch.library.<name>`.
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("torch.{name}");
    match name {
        "library.Library" => {
            let bound = interpreter.bind(&full, &["ns", "kind", "dispatch_key"], arguments, false, span)?;
            let namespace = text(interpreter, &bound, 0)?;
            let kind = text(interpreter, &bound, 1)?;
            if !matches!(kind.as_str(), "DEF" | "IMPL" | "FRAGMENT") {
                return Err(interpreter.coded(ErrorKind::Value, LibraryOperatorMessage::LibraryKind { kind }, span));
            }
            Ok(Value::object(Object::OperatorLibrary { namespace }))
        }
        "library.define" => {
            let bound = interpreter.bind(&full, &["qualname", "schema", "lib", "tags"], arguments, false, span)?;
            let (namespace, operator) = qualified(interpreter, &text(interpreter, &bound, 0)?, None, bound.span_of(0))?;
            let written = text(interpreter, &bound, 1)?;
            let parsed = schema::parse_with_name(&operator, &written)
                .map_err(|message| schema_error(interpreter, message, bound.span_of(1)))?;
            interpreter.operators.define(&namespace, parsed);
            Ok(Value::None)
        }
        "library.register_fake" => {
            let bound = interpreter.bind(&full, &["op", "func", "lib"], arguments, false, span)?;
            let (namespace, operator) = qualified(interpreter, &text(interpreter, &bound, 0)?, None, bound.span_of(0))?;
            register_or_decorate(interpreter, format!("{namespace}::{operator}"), vec!["Meta"], bound.optional(1), span)
        }
        _ => {
            // `impl(lib, name, dispatch_key="")` (a Library first) or `impl(qualname, types, func=None, *, lib=None)`.
            if let Some((Value::Object(object), _)) = arguments.positional.first() {
                if let Object::OperatorLibrary { namespace } = object.as_ref() {
                    let namespace = namespace.clone();
                    let bound = interpreter.bind(&full, &["lib", "name", "dispatch_key"], arguments, false, span)?;
                    let (_, operator) = qualified(interpreter, &text(interpreter, &bound, 1)?, Some(&namespace), span)?;
                    let key = dispatch_key(interpreter, &optional_text(interpreter, &bound, 2)?, bound.span_of(2))?;
                    return Ok(Value::object(Object::OperatorRegistration {
                        operator: format!("{namespace}::{operator}"),
                        keys: vec![key],
                    }));
                }
            }
            let bound = interpreter.bind(&full, &["qualname", "types", "func", "lib"], arguments, false, span)?;
            let (namespace, operator) = qualified(interpreter, &text(interpreter, &bound, 0)?, None, bound.span_of(0))?;
            let names = match bound.required(1)? {
                Value::Str(_) => vec![text(interpreter, &bound, 1)?],
                other => interpreter
                    .iterate(other, bound.span_of(1))?
                    .iter()
                    .map(|item| match item {
                        Value::Str(name) => Ok(name.to_string()),
                        _ => text(interpreter, &bound, 1),
                    })
                    .collect::<Result<Vec<_>>>()?,
            };
            let keys = names
                .iter()
                .map(|name| dispatch_key(interpreter, &device_key(name), bound.span_of(1)))
                .collect::<Result<Vec<_>>>()?;
            register_or_decorate(interpreter, format!("{namespace}::{operator}"), keys, bound.optional(2), span)
        }
    }
}

/// `lib.define(schema)` and `lib.impl(name, fn, dispatch_key="")` of a `Library`.
pub(crate) fn library_method(
    interpreter: &Interpreter,
    namespace: &str,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    match name {
        "define" => {
            let bound =
                interpreter.bind("Library.define", &["schema", "alias_analysis", "tags"], arguments, false, span)?;
            let parsed = schema::parse(&text(interpreter, &bound, 0)?)
                .map_err(|message| schema_error(interpreter, message, bound.span_of(0)))?;
            let operator = parsed.name.clone();
            interpreter.operators.define(namespace, parsed);
            Ok(Value::string(operator))
        }
        "impl" => {
            let names = ["op_name", "fn", "dispatch_key", "with_keyset"];
            let bound = interpreter.bind("Library.impl", &names, arguments, false, span)?;
            let (_, operator) =
                qualified(interpreter, &text(interpreter, &bound, 0)?, Some(namespace), bound.span_of(0))?;
            let key = dispatch_key(interpreter, &optional_text(interpreter, &bound, 2)?, bound.span_of(2))?;
            let qualified_name = format!("{namespace}::{operator}");
            check_autograd(interpreter, &qualified_name, key, span)?;
            interpreter.operators.register(&qualified_name, key, bound.required(1)?.clone());
            Ok(Value::None)
        }
        _ => Err(interpreter.coded(
            ErrorKind::Attribute,
            crate::messages::OperationMessage::NoMethod { type_name: "Library".into(), name: name.into() },
            span,
        )),
    }
}

/// `library.name`: its namespace (`ns`) and methods.
pub(crate) fn library_attribute(object: &Value, namespace: &str, name: &str) -> Option<Value> {
    match name {
        "ns" => Some(Value::string(namespace)),
        "define" | "impl" => Some(Value::Method(Rc::new((object.clone(), name.to_string())))),
        _ => None,
    }
}

/// Calls the decorator of `torch.library.impl(…)`: registers the function and returns it.
pub(crate) fn decorate(interpreter: &Interpreter, object: &Object, arguments: Arguments, span: Span) -> Result<Value> {
    let Object::OperatorRegistration { operator, keys } = object else { unreachable!("a registration") };
    let bound = interpreter.bind("torch.library.impl", &["func"], arguments, false, span)?;
    let function = bound.required(0)?.clone();
    for key in keys {
        check_autograd(interpreter, operator, key, span)?;
        interpreter.operators.register(operator, key, function.clone());
    }
    Ok(function)
}

/// `torch.ops.<namespace>` (any name is a namespace, as in torch) and `torch.ops.<namespace>.<name>`.
pub(crate) fn ops_attribute(interpreter: &Interpreter, module: &str, name: &str, span: Span) -> Result<Value> {
    let Some(namespace) = module.strip_prefix("torch.ops.") else {
        return Ok(Value::Module(Rc::from(format!("torch.ops.{name}").as_str())));
    };
    if interpreter.operators.schemas.borrow().contains_key(&format!("{namespace}::{name}")) {
        return Ok(Value::Builtin(Rc::from(format!("torch.ops.{namespace}.{name}").as_str())));
    }
    Err(interpreter
        .coded(
            ErrorKind::Attribute,
            LibraryOperatorMessage::NoOperator { namespace: namespace.into(), name: name.into() },
            span,
        )
        .with_help_message(LibraryOperatorMessage::DefineOperator { namespace: namespace.into(), name: name.into() }))
}

/// Calls `torch.ops.<namespace>.<name>(…)`: binds the arguments by the schema, runs the kernel
/// that runs here, checks what it returned.
pub(crate) fn call_operator(interpreter: &Interpreter, path: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let (namespace, name) = path.split_once('.').unwrap_or(("", path));
    let operator = format!("{namespace}::{name}");
    let Some(schema) = interpreter.operators.schemas.borrow().get(&operator).cloned() else {
        return ops_attribute(interpreter, &format!("torch.ops.{namespace}"), name, span);
    };
    let names: Vec<&str> = schema.arguments.iter().map(|argument| argument.name.as_str()).collect();
    let bound = interpreter.bind(&format!("torch.ops.{namespace}.{name}"), &names, arguments, false, span)?;
    let mut forwarded = Arguments::empty();
    for (index, argument) in schema.arguments.iter().enumerate() {
        let value = match (&bound.values[index], &argument.default) {
            (Some((value, _)), _) => value.clone(),
            (None, Some(default)) => default.clone(),
            (None, None) => bound.required(index)?.clone(),
        };
        if !argument.kind.accepts(&value) {
            let message = LibraryOperatorMessage::OperatorArgument {
                operator: operator.clone(),
                argument: argument.name.clone(),
                expected: argument.kind.text.clone(),
                got: value.type_name().into(),
            };
            return Err(interpreter.coded(ErrorKind::Type, message, bound.span_of(index)));
        }
        match argument.keyword_only {
            true => forwarded.keywords.push((argument.name.clone(), value, bound.span_of(index))),
            false => forwarded.positional.push((value, bound.span_of(index))),
        }
    }
    let kernel = interpreter.operators.runnable(&operator).ok_or_else(|| {
        let registered = interpreter.operators.keys(&operator).join(", ");
        interpreter
            .coded(
                ErrorKind::Unsupported,
                LibraryOperatorMessage::NoKernel { operator: operator.clone(), registered },
                span,
            )
            .with_help_message(LibraryOperatorMessage::RunnableKernels)
    })?;
    let result = interpreter.call(&kernel, forwarded, span)?;
    check_returns(interpreter, &operator, &schema.returns, result, span)
}

impl Operators {
    fn define(&self, namespace: &str, schema: Schema) {
        let operator = format!("{namespace}::{}", schema.name);
        self.schemas.borrow_mut().insert(operator, Rc::new(schema));
    }

    fn register(&self, operator: &str, key: &'static str, kernel: Value) {
        let mut kernels = self.kernels.borrow_mut();
        let list = kernels.entry(operator.to_string()).or_default();
        list.retain(|(existing, _)| *existing != key);
        list.push((key, kernel));
    }

    /// The kernel a call runs: the first of `RUNNABLE` registered.
    fn runnable(&self, operator: &str) -> Option<Value> {
        let kernels = self.kernels.borrow();
        let list = kernels.get(operator)?;
        RUNNABLE
            .iter()
            .find_map(|key| list.iter().find(|(existing, _)| existing == key).map(|(_, kernel)| kernel.clone()))
    }

    fn keys(&self, operator: &str) -> Vec<&'static str> {
        self.kernels.borrow().get(operator).map(|list| list.iter().map(|(key, _)| *key).collect()).unwrap_or_default()
    }
}

/// The dispatch key named `key` ("" is "CompositeImplicitAutograd", "PrivateUse1" the NPU's), or
/// torch's error for a key it does not have.
fn dispatch_key(interpreter: &Interpreter, key: &str, span: Span) -> Result<&'static str> {
    let known = match key {
        "" => Some("CompositeImplicitAutograd"),
        "PrivateUse1" => Some("NPU"),
        _ => RUNNABLE.iter().chain(KEPT.iter()).chain(AUTOGRAD.iter()).find(|known| **known == key).copied(),
    };
    known.ok_or_else(|| {
        interpreter
            .coded(ErrorKind::Value, LibraryOperatorMessage::DispatchKey { key: key.into() }, span)
            .with_help_message(LibraryOperatorMessage::DispatchKeys)
    })
}

/// `torch.library.impl(qualname, types)` names device types ("cpu", "npu") or dispatch keys.
fn device_key(name: &str) -> String {
    match name {
        "cpu" => "CPU".into(),
        "npu" | "privateuseone" => "NPU".into(),
        "cuda" => "CUDA".into(),
        "meta" => "Meta".into(),
        other => other.into(),
    }
}

fn check_autograd(interpreter: &Interpreter, operator: &str, key: &str, span: Span) -> Result<()> {
    if !AUTOGRAD.contains(&key) {
        return Ok(());
    }
    let message = LibraryOperatorMessage::AutogradKernel { operator: operator.into(), key: key.into() };
    Err(interpreter
        .coded(ErrorKind::Unsupported, message, span)
        .with_help_message(LibraryOperatorMessage::RegisterGradient))
}

/// Registers `function` now, or returns the decorator that will.
fn register_or_decorate(
    interpreter: &Interpreter,
    operator: String,
    keys: Vec<&'static str>,
    function: Option<&Value>,
    span: Span,
) -> Result<Value> {
    let registration = Object::OperatorRegistration { operator, keys };
    match function {
        Some(function) => {
            let arguments = Arguments { positional: vec![(function.clone(), span)], keywords: Vec::new() };
            decorate(interpreter, &registration, arguments, span)
        }
        None => Ok(Value::object(registration)),
    }
}

/// `"ns::name"` (or `"name"` in `namespace`, overload `.default` dropped) as namespace and name.
fn qualified(interpreter: &Interpreter, text: &str, namespace: Option<&str>, span: Span) -> Result<(String, String)> {
    let (found, name) = match text.split_once("::") {
        Some((found, name)) => (Some(found), name),
        None => (None, text),
    };
    let name = name.split('.').next().unwrap_or(name).to_string();
    match (found, namespace) {
        (Some(found), Some(namespace)) if found != namespace => {
            let message = LibraryOperatorMessage::OperatorNamespace { name: text.into(), namespace: namespace.into() };
            Err(interpreter.coded(ErrorKind::Value, message, span))
        }
        (Some(found), _) => Ok((found.to_string(), name)),
        (None, Some(namespace)) => Ok((namespace.to_string(), name)),
        (None, None) => {
            let message = LibraryOperatorMessage::SchemaToken {
                schema: text.into(),
                position: text.len() + 1,
                token: "::".into(),
            };
            Err(interpreter.coded(ErrorKind::Value, message, span))
        }
    }
}

fn check_returns(
    interpreter: &Interpreter,
    operator: &str,
    returns: &Returns,
    result: Value,
    span: Span,
) -> Result<Value> {
    returns.take(result).map_err(|got| {
        let message =
            LibraryOperatorMessage::OperatorReturns { operator: operator.into(), expected: returns.text(), got };
        interpreter.coded(ErrorKind::Type, message, span)
    })
}

fn schema_error(interpreter: &Interpreter, message: LibraryOperatorMessage, span: Span) -> RuntimeError {
    interpreter.coded(ErrorKind::Value, message, span).with_help_message(LibraryOperatorMessage::SchemaForm)
}

fn text(interpreter: &Interpreter, bound: &crate::lang::interp::call::Bound, index: usize) -> Result<String> {
    match bound.required(index)? {
        Value::Str(text) => Ok(text.to_string()),
        other => Err(interpreter.coded(
            ErrorKind::Type,
            crate::messages::LibraryMessage::ArgumentType {
                function: bound.function.clone(),
                parameter: bound.name_of(index).into(),
                expected: crate::messages::Kind::Str,
                got: other.type_name().into(),
            },
            bound.span_of(index),
        )),
    }
}

fn optional_text(interpreter: &Interpreter, bound: &crate::lang::interp::call::Bound, index: usize) -> Result<String> {
    match bound.optional(index) {
        None => Ok(String::new()),
        Some(_) => text(interpreter, bound, index),
    }
}
