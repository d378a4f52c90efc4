//! `with` statements: `pypto.no_grad()`, `pypto.options(…)` (a scope for the kernels called in
//! the block), `pypto.function(name, *tensors)` (pypto's older kernel recording: the block runs as
//! a jit kernel over the tensors named), and instances of script classes with `__enter__` and
//! `__exit__` (the exit runs however the block ends, and a true result suppresses the exception).

use crate::messages::StatementMessage;
use std::rc::Rc;
use std::sync::Arc;

use super::classes::Class;
use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::exec::Flow;
use super::handling::{catchable, exception_of};
use super::interpreter::Interpreter;
use super::pypto::spec::ApiObject;
use super::scope::Scope;
use super::value::{Kernel, KernelStyle, Object, Value};
use crate::autograd::set_grad_enabled;
use crate::lang::syntax::ast::{
    ArgumentKind, Expr, ExprKind, FunctionDef, Identifier, Parameter, Parameters, Stmt, StmtKind, WithItem,
};

impl Interpreter {
    /// Runs `with items: body`, entering the items left to right.
    pub(crate) fn exec_with(&self, items: &[WithItem], body: &[Stmt], scope: &Rc<Scope>) -> Result<Flow> {
        let Some((first, rest)) = items.split_first() else {
            return self.exec_block(body, scope);
        };
        let context = self.eval(&first.context, scope)?;
        match &context {
            Value::Object(object) => match object.as_ref() {
                Object::NoGrad => {
                    self.bind_with_target(first, context.clone(), scope)?;
                    let _guard = set_grad_enabled(false);
                    return self.exec_with(rest, body, scope);
                }
                Object::Api(ApiObject::Options(options)) => {
                    self.note_unmodelled_options(options, first.context.span);
                    self.bind_with_target(first, context.clone(), scope)?;
                    let _scope = self.enter_options(options);
                    return self.exec_with(rest, body, scope);
                }
                Object::RecordFunction { name } => {
                    self.bind_with_target(first, context.clone(), scope)?;
                    return self.run_recorded_function(name, first, rest, body, scope);
                }
                Object::TextFile(file) => {
                    self.bind_with_target(first, context.clone(), scope)?;
                    let flow = self.exec_with(rest, body, scope);
                    super::host::files::close(file);
                    return flow;
                }
                Object::ExpectedRaise { types, pattern } => {
                    self.bind_with_target(first, context.clone(), scope)?;
                    return self.expect_raise(types, pattern.as_deref(), first.context.span, rest, body, scope);
                }
                _ => {}
            },
            Value::Instance(instance) => {
                let class = &instance.class;
                return match (class.lookup("__enter__"), class.lookup("__exit__")) {
                    (Some(enter), Some(exit)) => self.exec_managed(&context, enter, exit, first, rest, body, scope),
                    _ => Err(self
                        .coded(
                            ErrorKind::Type,
                            StatementMessage::NoContextProtocol { class_name: class.name.to_string() },
                            first.context.span,
                        )
                        .with_help_message(StatementMessage::DefineEnterExit { class_name: class.name.to_string() })),
                };
            }
            _ => {}
        }
        Err(self
            .coded(
                ErrorKind::Type,
                StatementMessage::NotAContextManager { type_name: context.type_name().into() },
                first.context.span,
            )
            .with_help_message(StatementMessage::ContextManagers))
    }

    fn bind_with_target(&self, item: &WithItem, value: Value, scope: &Rc<Scope>) -> Result<()> {
        match &item.target {
            Some(target) => self.assign(target, value, scope),
            None => Ok(()),
        }
    }

    /// A user context manager: `__enter__`, the target bound to what it returned, the rest, then
    /// `__exit__(None, None, None)`, or `__exit__(type, exception, None)` when the rest raised.
    /// The session's limits (steps, memory, time) end the run without running `__exit__`.
    #[allow(clippy::too_many_arguments)]
    fn exec_managed(
        &self,
        context: &Value,
        enter: (Value, Rc<Class>),
        exit: (Value, Rc<Class>),
        first: &WithItem,
        rest: &[WithItem],
        body: &[Stmt],
        scope: &Rc<Scope>,
    ) -> Result<Flow> {
        let span = first.context.span;
        let entered = self.call_method_of(&enter.0, &enter.1, context.clone(), Arguments::empty(), span)?;
        let outcome = self.bind_with_target(first, entered, scope).and_then(|_| self.exec_with(rest, body, scope));
        let exit_with = |values: [Value; 3]| {
            let arguments =
                Arguments { positional: values.into_iter().map(|value| (value, span)).collect(), keywords: Vec::new() };
            self.call_method_of(&exit.0, &exit.1, context.clone(), arguments, span)
        };
        match outcome {
            Ok(flow) => {
                exit_with([Value::None, Value::None, Value::None])?;
                Ok(flow)
            }
            Err(error) if catchable(error.kind) => {
                let (name, message) = exception_of(&error);
                let exception_type = Value::Builtin(Rc::from(name.as_str()));
                let exception = Value::object(Object::Exception { name, message });
                let suppress = exit_with([exception_type, exception, Value::None])?;
                if self.truthy(&suppress, span)? {
                    Ok(Flow::Normal)
                } else {
                    Err(error)
                }
            }
            Err(error) => Err(error),
        }
    }

    /// `with pytest.raises(types, match=pattern):`: the block must raise one of `types` (or a
    /// subclass this language knows: `ImportError` for `ModuleNotFoundError`, `Exception` for any)
    /// whose message contains `pattern` (a plain substring, not a regular expression); the error
    /// is then swallowed. Otherwise an AssertionError at the `with`, as pytest fails the test.
    fn expect_raise(
        &self,
        types: &[String],
        pattern: Option<&str>,
        span: crate::lang::syntax::Span,
        rest: &[WithItem],
        body: &[Stmt],
        scope: &Rc<Scope>,
    ) -> Result<Flow> {
        let expected = types.join(", ");
        let failure = |text: String| self.coded(ErrorKind::Assertion, crate::messages::Message::Text { text }, span);
        match self.exec_with(rest, body, scope) {
            Ok(_) => Err(failure(format!("DID NOT RAISE {expected}"))),
            Err(error) if catchable(error.kind) && error.kind != ErrorKind::SystemExit => {
                let (name, message) = exception_of(&error);
                let matches_type = types.iter().any(|wanted| {
                    wanted == &name
                        || wanted == "Exception"
                        || wanted == "BaseException"
                        || (wanted == "ImportError" && error.kind == ErrorKind::Import)
                        || (matches!(wanted.as_str(), "IndexError" | "KeyError") && error.kind == ErrorKind::Index)
                });
                if !matches_type {
                    return Err(error);
                }
                match pattern {
                    Some(pattern) if !message.contains(pattern) => {
                        Err(failure(format!("Regex pattern did not match.\n Regex: '{pattern}'\n Input: '{message}'")))
                    }
                    _ => Ok(Flow::Normal),
                }
            }
            Err(error) => Err(error),
        }
    }

    /// `with pypto.function(name, a, b, out):` runs the block as a jit kernel `name` whose
    /// parameters are the tensors named (the block sees them under the same names and writes
    /// outputs in place), on the simulated NPU, when the statement runs.
    fn run_recorded_function(
        &self,
        name: &str,
        first: &WithItem,
        rest: &[WithItem],
        body: &[Stmt],
        scope: &Rc<Scope>,
    ) -> Result<Flow> {
        let span = first.context.span;
        let ExprKind::Call { arguments, .. } = &first.context.kind else {
            return Err(self
                .coded(ErrorKind::Unsupported, StatementMessage::FunctionInHeader, span)
                .with_help_message(StatementMessage::WriteFunctionHeader));
        };
        let named_by_keyword = arguments.iter().any(|argument| matches!(argument.kind, ArgumentKind::Keyword { .. }));
        let mut parameters = Parameters::default();
        let mut values = Vec::new();
        let tensors = arguments.iter().filter(|argument| !matches!(argument.kind, ArgumentKind::Keyword { .. }));
        let mut unnamed = Vec::new();
        for argument in tensors.skip(usize::from(!named_by_keyword)) {
            // A tensor named in the header is a parameter of that name; one given by another
            // expression (`*self.inputs`, `inputs[0]`) is reached in the block the way the block
            // reaches it, and is bound to the run's tensor by object (see `run_recorded_on`).
            let (name, given, expression_span) = match &argument.kind {
                ArgumentKind::Positional(expression) => match &expression.kind {
                    ExprKind::Name(tensor) => {
                        (tensor.clone(), vec![self.lookup(tensor, scope, expression.span)?], expression.span)
                    }
                    _ => (String::new(), vec![self.eval(expression, scope)?], expression.span),
                },
                ArgumentKind::Unpack(expression) => {
                    let sequence = self.eval(expression, scope)?;
                    (String::new(), self.iterate(&sequence, expression.span)?, expression.span)
                }
                _ => return Err(self.unnamed_tensor(argument.span)),
            };
            for value in given {
                // A tensor made by the header's expression (`a[0:16]`) is one the block cannot reach.
                if name.is_empty() && matches!(&value, Value::Tensor(object) if Rc::strong_count(object) == 1) {
                    return Err(self.unnamed_tensor(argument.span));
                }
                let name = if name.is_empty() {
                    if let Value::Tensor(object) = &value {
                        unnamed.push((values.len(), object.clone()));
                    }
                    format!("__function_tensor_{}", values.len())
                } else {
                    name.clone()
                };
                let identifier = Identifier { name, span: expression_span };
                parameters.positional.push(Parameter {
                    name: identifier,
                    annotation: None,
                    default: None,
                    span: argument.span,
                });
                values.push((value, expression_span));
            }
        }
        // The `as` name is the block's own too (`for _ in recorder:`, `del recorder` inside it).
        // A parameter after the tensors whose default is the recorder (reruns pass only tensors).
        if let Some(target @ Expr { kind: ExprKind::Name(name), span: target_span }) = &first.target {
            let identifier = Identifier { name: name.clone(), span: *target_span };
            let default = Some(target.clone());
            parameters.positional.push(Parameter { name: identifier, annotation: None, default, span: *target_span });
        }
        let kernel_body = match (rest.first(), body.last()) {
            (Some(next), Some(last)) => {
                vec![Stmt {
                    kind: StmtKind::With { items: rest.to_vec(), body: body.to_vec() },
                    span: next.context.span.cover(last.span),
                }]
            }
            _ => body.to_vec(),
        };
        let identifier = Identifier { name: name.to_string(), span };
        let definition =
            FunctionDef { decorators: Vec::new(), name: identifier, parameters, returns: None, body: kernel_body };
        let function = self.new_function(Arc::new(definition), scope, scope)?;
        let kernel = Kernel {
            name: name.to_string(),
            function,
            style: KernelStyle::Jit,
            pass_options: Vec::new(),
            runtime_options: Vec::new(),
            checked: std::cell::Cell::new(false),
        };
        let kernel = Value::Kernel(Rc::new(kernel));
        *self.npu.recorded_function.borrow_mut() = Some(kernel.clone());
        *self.npu.recorded_objects.borrow_mut() = unnamed;
        self.call(&kernel, Arguments { positional: values, keywords: Vec::new() }, span)?;
        Ok(Flow::Normal)
    }

    /// `pypto.runtime._device_run_once_data_from_host(a, b, out)`: the last recorded function run
    /// again with its tensors bound to these (`pypto.from_torch` shares a torch tensor's storage, so
    /// the outputs land in the torch tensors, as pypto copies them back to the host).
    pub(crate) fn run_recorded_on(&self, arguments: Arguments, span: crate::lang::syntax::Span) -> Result<Value> {
        let name = "pypto.runtime._device_run_once_data_from_host";
        let tensors = self.bind(name, &[], arguments, true, span)?.rest;
        let arguments = Arguments { positional: tensors, keywords: Vec::new() };
        let recorded = self.npu.recorded_function.borrow().clone();
        let Some(kernel) = recorded else {
            return Err(self
                .coded(ErrorKind::Value, StatementMessage::NoRecordedFunction, span)
                .with_help_message(StatementMessage::WriteFunctionHeader));
        };
        // A tensor the block reaches by object holds the run's tensor while the block runs; what the
        // block leaves in it is then the run's tensor's, and the recorded tensor gets its own back.
        let swapped: Vec<_> = (self.npu.recorded_objects.borrow().iter())
            .filter_map(|(position, recorded)| match arguments.positional.get(*position) {
                Some((Value::Tensor(given), _)) if !Rc::ptr_eq(given, recorded) => {
                    Some((recorded.clone(), given.clone(), recorded.var.replace(given.get())))
                }
                _ => None,
            })
            .collect();
        let result = self.call(&kernel, arguments, span);
        for (recorded, given, own) in swapped {
            given.var.replace(recorded.var.replace(own));
        }
        result.map(|_| Value::None)
    }

    fn unnamed_tensor(&self, span: crate::lang::syntax::Span) -> super::error::RuntimeError {
        self.coded(ErrorKind::Unsupported, StatementMessage::FunctionTensorsByName, span)
            .with_help_message(StatementMessage::WriteFunctionHeader)
    }
}
