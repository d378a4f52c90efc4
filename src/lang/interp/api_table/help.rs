//! `help(object)` and `dir(object=None)`, answered from the API table in the language the notebook
//! shows (set per thread by the front end, English by default).

use std::cell::RefCell;

use super::{lookup, members, ApiEntry, ApiKind};
use crate::lang::interp::error::Result;
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::format::repr;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Function, Value};
use crate::lang::syntax::Span;

thread_local! {
    static LANGUAGE: RefCell<String> = RefCell::new("en".to_string());
}

/// Sets the language of `help()` texts on this thread (`en`, `zh-CN`).
pub fn set_help_language(language: &str) {
    LANGUAGE.with(|current| *current.borrow_mut() = language.to_string());
}

fn language() -> String {
    LANGUAGE.with(|current| current.borrow().clone())
}

/// One line of a member list: `  view(x, shape, …)  — doc`.
fn member_line(entry: &ApiEntry, language: &str) -> String {
    format!("  {:<44} {}", entry.signature, entry.doc(language))
}

/// The help text of a table entry (with its members for a module or `Tensor`).
fn entry_help(entry: &ApiEntry, language: &str) -> String {
    let mut text = match entry.kind {
        ApiKind::Function => {
            // Only the last part becomes the signature (`dataclasses.dataclass` repeats its short name).
            let module = &entry.name[..entry.name.len() - entry.short_name().len()];
            format!("{module}{}\n\n{}", entry.signature, entry.doc(language))
        }
        _ => format!("{}\n\n{}", entry.name, entry.doc(language)),
    };
    let listed: Vec<String> = members(&entry.name).map(|member| member_line(member, language)).collect();
    if !listed.is_empty() {
        text.push_str("\n\n");
        text.push_str(&listed.join("\n"));
    }
    text
}

/// `def name(a, b=1, *rest)` of a user function, defaults shown by their values.
fn function_signature(function: &Function) -> String {
    let parameters = &function.definition.parameters;
    let mut parts: Vec<String> = parameters
        .positional
        .iter()
        .zip(function.defaults.iter().chain(std::iter::repeat(&None)))
        .map(|(parameter, default)| match default {
            Some(value) => format!("{}={}", parameter.name.name, repr(value)),
            None => parameter.name.name.clone(),
        })
        .collect();
    if let Some(rest) = &parameters.varargs {
        parts.push(format!("*{}", rest.name.name));
    }
    parts.extend(parameters.keyword_only.iter().map(|parameter| parameter.name.name.clone()));
    if let Some(rest) = &parameters.kwargs {
        parts.push(format!("**{}", rest.name.name));
    }
    format!("{}({})", function.name, parts.join(", "))
}

impl Interpreter {
    /// `help(object)`: prints what the object is and how to call it.
    pub(crate) fn call_help(&self, arguments: Arguments, span: Span) -> Result<Value> {
        let bound = self.bind("help", &["object"], arguments, false, span)?;
        let language = language();
        let chinese = language.starts_with("zh");
        let text = match bound.optional(0) {
            None => entry_help(lookup("pypto").expect("the table documents pypto"), &language),
            Some(Value::Builtin(name) | Value::Module(name)) => match lookup(name) {
                Some(entry) => entry_help(entry, &language),
                None => {
                    let what = match (bound.optional(0), chinese) {
                        (Some(Value::Module(_)), true) => "模块",
                        (Some(Value::Module(_)), false) => "a module",
                        (_, true) => "内置函数",
                        (_, false) => "a builtin function",
                    };
                    format!("{name}: {what}")
                }
            },
            Some(Value::Function(function)) => {
                let place = if chinese {
                    format!("定义于单元格 [{}]", function.cell)
                } else {
                    format!("defined in cell [{}]", function.cell)
                };
                format!("def {}\n\n{place}", function_signature(function))
            }
            Some(Value::Kernel(kernel)) => {
                let registered = self.gradients.borrow().contains_key(&kernel.name);
                let gradient = match (chinese, registered) {
                    (true, true) => "已注册反向",
                    (true, false) => "未注册反向：对其执行过的运算求导",
                    (false, true) => "has a registered gradient",
                    (false, false) => "no registered gradient: differentiated through the ops it ran",
                };
                let place = if chinese { "核函数，定义于单元格" } else { "kernel defined in cell" };
                format!("{}\n\n{place} [{}]; {gradient}", function_signature(&kernel.function), kernel.function.cell)
            }
            Some(Value::Class(class)) => crate::lang::interp::classes::class_help(class),
            Some(Value::Instance(instance)) => crate::lang::interp::classes::class_help(&instance.class),
            Some(Value::Tensor(_)) => {
                let listed: Vec<String> = members("Tensor").map(|member| member_line(member, &language)).collect();
                format!("Tensor\n\n{}", listed.join("\n"))
            }
            Some(Value::DType(dtype, _)) => match lookup(&format!("pypto.{}", dtype.pypto_name())) {
                Some(entry) => entry_help(entry, &language),
                None => dtype.pypto_name().to_string(),
            },
            Some(other) => format!("{}: {}", repr(other), other.type_name()),
        };
        self.write_output(&format!("{text}\n"), span)?;
        Ok(Value::None)
    }

    /// `dir()`: the notebook's names; `dir(module)` its members; `dir(tensor)` its attributes.
    pub(crate) fn call_dir(&self, arguments: Arguments, span: Span) -> Result<Value> {
        let bound = self.bind("dir", &["object"], arguments, false, span)?;
        let names: Vec<String> = match bound.optional(0) {
            None => self.globals().names(),
            // A user module (a file imported from the script's directory): its globals.
            Some(Value::Module(module)) if self.user_modules.globals(module).is_some() => {
                self.user_modules.globals(module).map(|globals| globals.names()).unwrap_or_default()
            }
            Some(Value::Module(module)) => members(module).map(|entry| entry.short_name().to_string()).collect(),
            Some(Value::Tensor(_)) => members("Tensor").map(|entry| entry.short_name().to_string()).collect(),
            Some(value @ (Value::Class(_) | Value::Instance(_))) => {
                crate::lang::interp::classes::attribute_names(value)
            }
            Some(_) => Vec::new(),
        };
        let mut names = names;
        names.sort();
        Ok(Value::list(names.into_iter().map(|name| Value::string(name.as_str())).collect()))
    }
}
