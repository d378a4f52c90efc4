//! `import` and `from … import`: the modules of the API table (`pypto`, its submodules, and any
//! module another area documents there), `torch`, `math`, `dataclasses`, `typing`, `__future__`; the
//! modules real pypto files import that a notebook cannot have get a diagnostic that says what to
//! use instead.

use crate::messages::StatementMessage;
use std::rc::Rc;

use super::api_table::{self, ApiKind};
use super::error::{ErrorKind, Result};
use super::interpreter::Interpreter;
use super::scope::Scope;
use super::value::Value;
use crate::lang::syntax::ast::{Identifier, ImportAlias};
use crate::lang::syntax::Span;

/// Modules of the language itself (not in the API table as modules of their own).
const LANGUAGE_MODULES: [&str; 3] = ["math", "__future__", "torch_npu"];

/// Modules of Python's library a tile script cannot have whatever files are around it.
const UNAVAILABLE_ROOTS: [&str; 1] = ["numpy"];

/// What to use instead of a module a notebook cannot import (by the module's first name).
fn instead_of(root: &str) -> StatementMessage {
    match root {
        "numpy" => StatementMessage::NumpySubset,
        _ => StatementMessage::AvailableModules,
    }
}

impl Interpreter {
    /// `import a.b as c`: binds `c` to `a.b`, or `a` to `a` without `as`.
    pub(crate) fn import(&self, alias: &ImportAlias, scope: &Rc<Scope>) -> Result<()> {
        let full = dotted(&alias.path);
        let path_span = match (alias.path.first(), alias.path.last()) {
            (Some(first), Some(last)) => first.span.cover(last.span),
            _ => alias.span,
        };
        self.check_importable(&full, path_span)?;
        match &alias.alias {
            Some(name) => scope.set(&name.name, Value::Module(Rc::from(full.as_str()))),
            // `import pkg.sub` binds `pkg`, whose globals now hold `sub`.
            None => {
                let root = alias.path.first().map_or("pypto", |part| part.name.as_str());
                scope.set(root, Value::Module(Rc::from(root)));
            }
        }
        Ok(())
    }

    /// `from module import name as alias, …`: each name is the module's attribute of that name.
    pub(crate) fn import_from(&self, module: &[Identifier], names: &[ImportAlias], scope: &Rc<Scope>) -> Result<()> {
        let full = dotted(module);
        let module_span =
            module.first().map_or(Span::empty(0), |first| first.span.cover(module[module.len() - 1].span));
        self.check_importable(&full, module_span)?;
        let module_value = Value::Module(Rc::from(full.as_str()));
        let user_module = self.user_modules.globals(&full).is_some();
        for alias in names {
            let Some(name) = alias.path.first() else { continue };
            if name.name == "*" {
                self.import_star(&full, scope);
                continue;
            }
            let submodule = format!("{full}.{}", name.name);
            let value = if full == "__future__" {
                Value::None
            } else if user_module
                && self.user_modules.globals(&full).is_some_and(|globals| globals.get(&name.name).is_none())
                && self.load_user_module(&submodule, name.span)?
            {
                // `from pkg import sub` of a submodule not imported yet.
                Value::Module(Rc::from(submodule.as_str()))
            } else {
                self.get_attribute(&module_value, &name.name, name.span).map_err(|mut error| {
                    error.message = format!("cannot import name '{}' from '{full}'", name.name);
                    error
                })?
            };
            let bound = alias.alias.as_ref().unwrap_or(name);
            scope.set(&bound.name, value);
        }
        Ok(())
    }

    /// `from module import *`: the module's public names (a user module's globals without a
    /// leading underscore; nothing for the language's modules, whose names are looked up by name).
    fn import_star(&self, full: &str, scope: &Rc<Scope>) {
        let Some(globals) = self.user_modules.globals(full) else { return };
        for name in globals.names().iter().filter(|name| !name.starts_with('_')) {
            if let Some(value) = globals.get(name) {
                scope.set(name, value);
            }
        }
    }

    /// Whether `full` is a module of the language or a user module already imported (what
    /// `pkgutil.find_loader` finds without running a file).
    pub(crate) fn has_module(&self, full: &str) -> bool {
        api_table::lookup(full).is_some_and(|entry| entry.kind == ApiKind::Module)
            || LANGUAGE_MODULES.contains(&full)
            || super::host::is_importable_library_module(full)
            || self.user_modules.globals(full).is_some()
    }

    /// An error at `span` unless `full` names a module a tile script can import: one of the
    /// language's, or a user module (loaded here, once, with its parent packages).
    fn check_importable(&self, full: &str, span: Span) -> Result<()> {
        let documented = api_table::lookup(full).is_some_and(|entry| entry.kind == ApiKind::Module);
        if documented || LANGUAGE_MODULES.contains(&full) || super::host::is_importable_library_module(full) {
            return Ok(());
        }
        let root = full.split('.').next().unwrap_or(full);
        // A submodule of the language's own modules (`torch._dynamo`) is never a user file.
        let language_root = UNAVAILABLE_ROOTS.contains(&root)
            || LANGUAGE_MODULES.contains(&root)
            || super::host::is_importable_library_module(root)
            || api_table::lookup(root).is_some_and(|entry| entry.kind == ApiKind::Module);
        if !language_root && self.load_user_module(full, span)? {
            return Ok(());
        }
        if self.has_module_loader() && !language_root {
            return Err(self.module_not_found(full, span).with_help_message(instead_of(root)));
        }
        let error = self
            .coded(ErrorKind::Unsupported, StatementMessage::ModuleUnavailable { module: full.into() }, span)
            .with_help_message(instead_of(root));
        // In the page, a name that could be the user's own file says why it cannot be imported there.
        Err(if self.has_module_loader() || language_root {
            error
        } else {
            error.with_note_message(StatementMessage::NoFilesHere)
        })
    }
}

fn dotted(path: &[Identifier]) -> String {
    path.iter().map(|part| part.name.as_str()).collect::<Vec<_>>().join(".")
}
