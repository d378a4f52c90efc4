//! `torch.nn.Module`, as pypto tests wrap a kernel call or a golden in a model: a class deriving
//! from it calls `super().__init__()` (or `super(Model, self).__init__()`), keeps its weights as
//! attributes, and is called like a function, which runs its `forward`. `parameters()` lists the
//! attributes that are tensors with `requires_grad` (torch's `nn.Parameter`s), then those of the
//! attributes that are modules; `eval()`, `train()` and `to(…)` return the model.

use std::cell::RefCell;
use std::rc::Rc;

use crate::lang::interp::classes::{Class, ClassKind};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::Value;
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryMessage};

/// The methods the class provides, by name (each a builtin `torch.nn.Module.<name>`).
const METHODS: [&str; 6] = ["__init__", "__call__", "parameters", "eval", "train", "to"];

impl Interpreter {
    /// The session's `torch.nn.Module` class (one per session, so `isinstance` and `super()` see
    /// the same class every time).
    pub(crate) fn torch_module_class(&self) -> Rc<Class> {
        self.torch_module
            .get_or_init(|| {
                let methods = METHODS
                    .iter()
                    .map(|name| {
                        (name.to_string(), Value::Builtin(Rc::from(format!("torch.nn.Module.{name}").as_str())))
                    })
                    .collect();
                Rc::new(Class {
                    name: "Module".to_string(),
                    base: None,
                    kind: ClassKind::Plain,
                    fields: Vec::new(),
                    annotations: Vec::new(),
                    attributes: RefCell::new(methods),
                })
            })
            .clone()
    }
}

/// Calls `torch.nn.Module.<method>` (`arguments` start with the model).
pub(crate) fn call(interpreter: &Interpreter, method: &str, mut arguments: Arguments, span: Span) -> Result<Value> {
    let full = format!("torch.nn.Module.{method}");
    if arguments.positional.is_empty() {
        let message = LibraryMessage::Needs { function: format!("{full}()"), what: Kind::Model };
        return Err(interpreter.error(ErrorKind::Type, "", span).with_message(message));
    }
    let (model, _) = arguments.positional.remove(0);
    if method == "__call__" {
        let forward = interpreter
            .get_attribute(&model, "forward", span)
            .map_err(|error| error.with_help_message(LibraryMessage::DefineForward))?;
        return interpreter.call(&forward, arguments, span);
    }
    // The model is not among the names a mistake lists (`Model(zz=1)` takes nothing).
    let names: &[&str] = match method {
        "parameters" => &["recurse"],
        "to" => &["device", "dtype"],
        "train" => &["mode"],
        _ => &[],
    };
    let bound = interpreter.bind(&full, names, arguments, false, span)?;
    match method {
        "__init__" => Ok(Value::None),
        "parameters" => Ok(Value::list(parameters(interpreter, &model, bound.flag(0, true)?))),
        _ => Ok(model),
    }
}

/// The tensors with `requires_grad` among the model's attributes, in the order they were set,
/// then (with `recurse`) those of its submodules, each tensor once.
fn parameters(interpreter: &Interpreter, model: &Value, recurse: bool) -> Vec<Value> {
    let module = interpreter.torch_module_class();
    let mut found: Vec<Value> = Vec::new();
    let mut pending = vec![model.clone()];
    let mut seen_models: Vec<*const ()> = Vec::new();
    while let Some(current) = pending.pop() {
        let Value::Instance(instance) = &current else { continue };
        if seen_models.contains(&(Rc::as_ptr(instance) as *const ())) {
            continue;
        }
        seen_models.push(Rc::as_ptr(instance) as *const ());
        let mut submodules = Vec::new();
        for (_, value) in instance.attributes.borrow().iter() {
            match value {
                Value::Tensor(tensor) if tensor.get().requires_grad() => {
                    let known = found.iter().any(|other| matches!(other, Value::Tensor(t) if Rc::ptr_eq(t, tensor)));
                    if !known {
                        found.push(value.clone());
                    }
                }
                Value::Instance(child) if recurse && child.class.derives_from(&module) => {
                    submodules.push(value.clone())
                }
                _ => {}
            }
        }
        // Submodules in the order they were set: the work list pops from the end.
        pending.extend(submodules.into_iter().rev());
    }
    found
}
