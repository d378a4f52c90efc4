//! pypto's option scopes: `with pypto.options(…):` (and a function decorated with
//! `@pypto.options(…)`) opens a scope whose pass and runtime options reach every kernel called in
//! it, inner scopes over outer ones and a kernel's own options over all of them (pypto compiles a
//! jit kernel when it is called, inside the scopes open then); `set_pass_options`/`set_options`
//! inside a scope change that scope. Also `pypto.function(name, *tensors)`, pypto's older way to
//! record a kernel: the `with` block runs as a jit kernel over the tensors named.

use std::rc::Rc;

use super::config::{merged, ScopedOptions};
use crate::lang::interp::error::Result;
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Kernel, Object, Value};
use crate::lang::syntax::Span;

/// One open scope: its options, changed in place by `set_pass_options` inside it.
pub(crate) struct OptionScope {
    pass_options: Vec<(String, Value)>,
    runtime_options: Vec<(String, Value)>,
}

/// Closes the scopes opened after it was made when dropped (also when the block fails).
pub(crate) struct ScopeGuard<'a> {
    interpreter: &'a Interpreter,
    depth: usize,
}

impl Drop for ScopeGuard<'_> {
    fn drop(&mut self) {
        let closed: Vec<OptionScope> = self.interpreter.option_scopes.borrow_mut().drain(self.depth..).collect();
        // Dropped after the borrow ends: the values may be anything.
        drop(closed);
    }
}

impl Interpreter {
    /// Opens the scope of `options` until the guard is dropped; options not modelled are noted.
    pub(crate) fn enter_options(&self, options: &ScopedOptions) -> ScopeGuard<'_> {
        let depth = self.option_scopes.borrow().len();
        self.option_scopes.borrow_mut().push(OptionScope {
            pass_options: options.pass_options.clone(),
            runtime_options: options.runtime_options.clone(),
        });
        ScopeGuard { interpreter: self, depth }
    }

    /// Calls a function decorated with `@pypto.options(…)` inside the options' scope.
    pub(crate) fn call_with_options(&self, object: &Object, arguments: Arguments, span: Span) -> Result<Value> {
        let Object::WithOptions { options, function } = object else {
            let message = "only a function decorated with @pypto.options opens its scope when called";
            return Err(self.error(crate::lang::interp::error::ErrorKind::Type, message, span));
        };
        let _scope = self.enter_options(options);
        self.call(function, arguments, span)
    }

    /// Notes, at `span`, the fields of `options` that have no effect here.
    pub(crate) fn note_unmodelled_options(&self, options: &ScopedOptions, span: Span) {
        if !options.other.is_empty() {
            let message = crate::messages::NpuMessage::OptionsNotModelled {
                function: "pypto.options".into(),
                names: options.other.join(", "),
            };
            let help = crate::messages::NpuMessage::SetTilesInside;
            self.warn_message("npu/option-not-modelled", message.into(), span, Some(help.into()));
        }
    }

    /// `kernel` with the options of the open scopes under its own; the kernel itself when no scope
    /// is open.
    pub(crate) fn scoped_kernel(&self, kernel: &Rc<Kernel>) -> Rc<Kernel> {
        let scopes = self.option_scopes.borrow();
        if scopes.is_empty() {
            return kernel.clone();
        }
        let mut pass_options = Vec::new();
        let mut runtime_options = Vec::new();
        for scope in scopes.iter() {
            pass_options = merged(&pass_options, &scope.pass_options);
            runtime_options = merged(&runtime_options, &scope.runtime_options);
        }
        Rc::new(Kernel {
            name: kernel.name.clone(),
            function: kernel.function.clone(),
            style: kernel.style,
            pass_options: merged(&pass_options, &kernel.pass_options),
            runtime_options: merged(&runtime_options, &kernel.runtime_options),
            // The first call's checks belong to the kernel, not to this view of it.
            checked: std::cell::Cell::new(kernel.checked.get()),
        })
    }

    /// `set_pass_options`/`set_options` inside a scope: the innermost scope takes the options
    /// (a later key replaces an earlier one). False when no scope is open.
    pub(crate) fn set_scoped_options(&self, pass: &[(String, Value)], runtime: &[(String, Value)]) -> bool {
        let mut scopes = self.option_scopes.borrow_mut();
        let Some(scope) = scopes.last_mut() else { return false };
        scope.pass_options = merged(&scope.pass_options, pass);
        scope.runtime_options = merged(&scope.runtime_options, runtime);
        true
    }
}

/// `pypto.function(name, *tensors)`: the context manager of a `with` statement (which runs its
/// block as the kernel, see `with_statement`).
pub(crate) fn record_function(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind("pypto.function", &["name"], arguments, true, span)?;
    let name = match bound.required(0)? {
        Value::Str(name) => name.to_string(),
        other => {
            let message = crate::messages::LibraryMessage::ArgumentType {
                function: "pypto.function".into(),
                parameter: "name".into(),
                expected: crate::messages::Kind::Str,
                got: other.type_name().to_string(),
            };
            return Err(interpreter
                .error(crate::lang::interp::error::ErrorKind::Type, "", bound.span_of(0))
                .with_message(message));
        }
    };
    Ok(Value::object(Object::RecordFunction { name }))
}
