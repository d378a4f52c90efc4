//! Calls: script functions (argument binding, call depth, tracebacks), builtins, bound methods,
//! kernels and decorator objects; `Bound`, the argument reader of builtins.

use crate::messages::OperationMessage;
use std::rc::Rc;

use super::error::{ErrorKind, Result, SourceSpan, TraceFrame};
use super::eval::Arguments;
use super::exec::Flow;
use super::interpreter::Interpreter;
use super::scope::Scope;
use super::value::{Function, Object, Value};
use crate::autograd::Var;
use crate::lang::syntax::Span;
use crate::messages::{Expected, Message};
use crate::tensor::DType;

impl Interpreter {
    /// Calls any callable value.
    #[inline(never)]
    pub(crate) fn call(&self, callee: &Value, arguments: Arguments, span: Span) -> Result<Value> {
        match callee {
            Value::Function(function) => self.call_function(function, arguments, span),
            Value::Builtin(name) => self.call_builtin(name, arguments, span),
            Value::Method(bound) => self.call_method(&bound.0, &bound.1, arguments, span),
            Value::Kernel(kernel) => {
                super::pypto::kernel_call::run_kernel(self, &self.scoped_kernel(kernel), arguments, span)
            }
            Value::Object(object) if matches!(object.as_ref(), Object::WithOptions { .. }) => {
                self.call_with_options(object, arguments, span)
            }
            Value::Class(class) => self.instantiate(class, arguments, span),
            Value::Instance(instance) => self.call_instance(callee, instance, arguments, span),
            Value::Object(object) if matches!(object.as_ref(), Object::DataclassDecorator { .. }) => {
                let frozen = matches!(object.as_ref(), Object::DataclassDecorator { frozen: true });
                self.apply_dataclass_decorator(frozen, arguments, span)
            }
            Value::Object(object)
                if matches!(
                    object.as_ref(),
                    Object::JitDecorator { .. } | Object::KernelDecorator { .. } | Object::GradientDecorator { .. }
                ) =>
            {
                let bound = self.bind("decorator", &["function"], arguments, false, span)?;
                let function = bound.required(0)?.clone();
                self.check_decorator_target(callee, &function, bound.span_of(0))?;
                self.apply_decorator(callee.clone(), function, span)
            }
            Value::Object(object) if matches!(object.as_ref(), Object::OperatorRegistration { .. }) => {
                super::torch::library::decorate(self, object, arguments, span)
            }
            Value::Object(object) if matches!(object.as_ref(), Object::Api(_)) => {
                super::pypto::spec::call_object(self, object, arguments, span)
            }
            other => {
                Err(self.error(ErrorKind::Type, "", span).with_message(crate::messages::RuntimeMessage::NotCallable {
                    type_name: other.type_name().to_string(),
                }))
            }
        }
    }

    /// Calls a script function: binds its parameters in a fresh scope nested in its closure.
    #[inline(never)]
    pub(crate) fn call_function(&self, function: &Rc<Function>, arguments: Arguments, span: Span) -> Result<Value> {
        let limit = self.limits.get().call_depth;
        if self.depth.get() >= limit {
            return Err(self
                .coded(ErrorKind::CallDepth, OperationMessage::CallDepth { limit }, span)
                .with_help_message(OperationMessage::RecursionHelp));
        }
        self.check_stack(span)?;
        let scope = Scope::child(&function.closure);
        self.bind_parameters(function, arguments, &scope, span)?;
        self.depth.set(self.depth.get() + 1);
        self.cells.borrow_mut().push(function.cell);
        self.functions.borrow_mut().push(function.name.clone());
        let result = self.exec_block(&function.definition.body, &scope);
        scope.release_call_scope();
        self.scopes.register_if_held(&scope);
        self.functions.borrow_mut().pop();
        self.cells.borrow_mut().pop();
        self.depth.set(self.depth.get() - 1);
        match result {
            Ok(Flow::Return(value)) => Ok(value),
            Ok(Flow::Normal) => Ok(Value::None),
            Ok(Flow::Break | Flow::Continue) => {
                Err(self.coded(ErrorKind::Control, OperationMessage::BreakOutsideLoop, span))
            }
            Err(mut error) => {
                error.traceback.push(TraceFrame {
                    function: function.name.clone(),
                    call_site: SourceSpan { cell: self.current_cell(), span },
                });
                Err(error)
            }
        }
    }

    /// Stops before the native stack runs out: the distance from the cell's first frame to here
    /// (stacks grow down, natively and in wasm's shadow stack) is checked against the budget.
    fn check_stack(&self, span: Span) -> Result<()> {
        let marker = 0u8;
        let here = std::hint::black_box(&marker) as *const u8 as usize;
        let base = self.stack_base.get();
        let budget = self.limits.get().stack_bytes;
        if base != 0 && base.saturating_sub(here) > budget {
            return Err(self
                .coded(
                    ErrorKind::CallDepth,
                    OperationMessage::StackBudget { depth: self.depth.get(), kib: budget >> 10 },
                    span,
                )
                .with_help_message(OperationMessage::RecursionHelp));
        }
        Ok(())
    }

    #[inline(never)]
    fn bind_parameters(&self, function: &Function, arguments: Arguments, scope: &Rc<Scope>, span: Span) -> Result<()> {
        let parameters = &function.definition.parameters;
        let name = &function.name;
        let mut positional = arguments.positional.into_iter();
        let mut filled: Vec<Option<Value>> = Vec::with_capacity(parameters.positional.len());
        for _ in &parameters.positional {
            filled.push(positional.next().map(|(value, _)| value));
        }
        let extra: Vec<Value> = positional.map(|(value, _)| value).collect();
        if !extra.is_empty() && parameters.varargs.is_none() {
            let given = parameters.positional.len() + extra.len();
            let expected = parameters.positional.len();
            let message =
                crate::messages::RuntimeMessage::TooManyPositional { function: name.to_string(), expected, given };
            return Err(self.error(ErrorKind::Type, "", span).with_message(message));
        }
        let mut keyword_only: Vec<Option<Value>> = vec![None; parameters.keyword_only.len()];
        let mut kwargs = Vec::new();
        for (key, value, argument_span) in arguments.keywords {
            if let Some(index) = parameters.positional.iter().position(|parameter| parameter.name.name == key) {
                if filled[index].is_some() {
                    let message =
                        crate::messages::RuntimeMessage::MultipleValues { function: name.to_string(), parameter: key };
                    return Err(self.error(ErrorKind::Type, "", argument_span).with_message(message));
                }
                filled[index] = Some(value);
            } else if let Some(index) = parameters.keyword_only.iter().position(|parameter| parameter.name.name == key)
            {
                keyword_only[index] = Some(value);
            } else if parameters.kwargs.is_some() {
                kwargs.push((Value::string(key), value));
            } else {
                let message = Message::UnexpectedKeyword { function: name.to_string(), keyword: key };
                return Err(self.error(ErrorKind::Type, "", argument_span).with_message(message));
            }
        }
        for (index, parameter) in parameters.positional.iter().enumerate() {
            let value = filled[index].take().or_else(|| function.defaults[index].clone());
            match value {
                Some(value) => scope.set(&parameter.name.name, value),
                None => {
                    let message =
                        Message::MissingArgument { function: name.to_string(), parameter: parameter.name.name.clone() };
                    return Err(self.error(ErrorKind::Type, "", span).with_message(message));
                }
            }
        }
        for (index, parameter) in parameters.keyword_only.iter().enumerate() {
            match keyword_only[index].take().or_else(|| function.keyword_defaults[index].clone()) {
                Some(value) => scope.set(&parameter.name.name, value),
                None => {
                    let parameter = parameter.name.name.clone();
                    let message =
                        crate::messages::RuntimeMessage::MissingKeyword { function: name.to_string(), parameter };
                    return Err(self.error(ErrorKind::Type, "", span).with_message(message));
                }
            }
        }
        if let Some(varargs) = &parameters.varargs {
            scope.set(&varargs.name.name, Value::tuple(extra));
        }
        if let Some(parameter) = &parameters.kwargs {
            scope.set(&parameter.name.name, Value::dict(kwargs));
        }
        Ok(())
    }

    /// Binds only the keywords of a call to the parameter `names`, for a builtin that reads its
    /// positionals itself (`*sizes` then keywords, `print(*values, sep=…)`): they come back beside.
    pub(crate) fn bind_keywords<'a>(
        &'a self,
        function: &str,
        names: &[&str],
        arguments: Arguments,
        span: Span,
    ) -> Result<(Vec<(Value, Span)>, Bound<'a>)> {
        let Arguments { positional, keywords } = arguments;
        let bound = self.bind(function, names, Arguments { positional: Vec::new(), keywords }, false, span)?;
        Ok((positional, bound))
    }

    /// Matches `arguments` to the parameter `names` of a builtin (`rest` collects extra positionals
    /// when `varargs`).
    pub(crate) fn bind<'a>(
        &'a self,
        function: &str,
        names: &[&str],
        arguments: Arguments,
        varargs: bool,
        span: Span,
    ) -> Result<Bound<'a>> {
        let mut values: Vec<Option<(Value, Span)>> = vec![None; names.len()];
        let mut rest = Vec::new();
        for (index, item) in arguments.positional.into_iter().enumerate() {
            if index < names.len() && !(varargs && index >= names.len()) {
                values[index] = Some(item);
            } else if varargs {
                rest.push(item);
            } else {
                let message = crate::messages::RuntimeMessage::AtMostPositional {
                    function: function.to_string(),
                    count: names.len(),
                };
                return Err(self.error(ErrorKind::Type, "", item.1).with_message(message));
            }
        }
        for (key, value, argument_span) in arguments.keywords {
            match names.iter().position(|name| *name == key) {
                Some(index) if values[index].is_some() => {
                    let message = crate::messages::RuntimeMessage::MultipleValues {
                        function: function.to_string(),
                        parameter: key,
                    };
                    return Err(self.error(ErrorKind::Type, "", argument_span).with_message(message));
                }
                Some(index) => values[index] = Some((value, argument_span)),
                None => {
                    let message = Message::UnexpectedKeyword { function: function.to_string(), keyword: key };
                    let names = names.join(", ");
                    return Err(self
                        .error(ErrorKind::Type, "", argument_span)
                        .with_message(message)
                        .with_help_message(Message::TakesArguments { function: function.to_string(), names }));
                }
            }
        }
        Ok(Bound {
            interpreter: self,
            function: function.to_string(),
            names: names.iter().map(|name| name.to_string()).collect(),
            values,
            rest,
            span,
        })
    }
}

/// The arguments of a builtin matched to its parameters, with typed accessors.
pub(crate) struct Bound<'a> {
    interpreter: &'a Interpreter,
    /// The builtin's name (for messages).
    pub function: String,
    names: Vec<String>,
    /// The value (and its span) of each parameter, if given.
    pub values: Vec<Option<(Value, Span)>>,
    /// Extra positional values (for `*args` builtins).
    pub rest: Vec<(Value, Span)>,
    /// The call's span.
    pub span: Span,
}

impl Bound<'_> {
    /// The value of parameter `index` unless missing or `None`.
    pub fn optional(&self, index: usize) -> Option<&Value> {
        match &self.values[index] {
            Some((Value::None, _)) | None => None,
            Some((value, _)) => Some(value),
        }
    }

    /// The name of parameter `index`.
    pub fn name_of(&self, index: usize) -> &str {
        &self.names[index]
    }

    /// The span of parameter `index` (the call's when missing).
    pub fn span_of(&self, index: usize) -> Span {
        self.values[index].as_ref().map_or(self.span, |(_, span)| *span)
    }

    /// The value of a required parameter.
    pub fn required(&self, index: usize) -> Result<&Value> {
        match &self.values[index] {
            Some((value, _)) => Ok(value),
            None => {
                Err(self.interpreter.error(ErrorKind::Type, "", self.span).with_message(Message::MissingArgument {
                    function: self.function.clone(),
                    parameter: self.names[index].clone(),
                }))
            }
        }
    }

    fn wrong(&self, index: usize, expected: Expected, got: &Value) -> super::error::RuntimeError {
        let message = crate::messages::RuntimeMessage::ArgumentType {
            function: self.function.clone(),
            parameter: self.names[index].clone(),
            expected,
            got: got.type_name().to_string(),
        };
        self.interpreter.error(ErrorKind::Type, "", self.span_of(index)).with_message(message)
    }

    /// A tensor parameter.
    pub fn tensor(&self, index: usize) -> Result<Var> {
        match self.required(index)? {
            Value::Tensor(object) => Ok(object.get()),
            other => Err(self.wrong(index, Expected::Tensor, other)),
        }
    }

    /// An integer parameter (with a default when missing or `None`).
    pub fn int(&self, index: usize, default: Option<i64>) -> Result<i64> {
        match (self.optional(index), default) {
            (None, Some(default)) => Ok(default),
            (None, None) => self.required(index).and_then(|value| Err(self.wrong(index, Expected::Int, value))),
            (Some(value), _) => super::sizes::index_of(value).ok_or_else(|| self.wrong(index, Expected::Int, value)),
        }
    }

    /// A float parameter (ints accepted).
    pub fn float(&self, index: usize, default: Option<f64>) -> Result<f64> {
        match (self.optional(index), default) {
            (None, Some(default)) => Ok(default),
            (None, None) => self.required(index).and_then(|value| Err(self.wrong(index, Expected::Number, value))),
            (Some(value), _) => {
                super::sizes::number_of(value).ok_or_else(|| self.wrong(index, Expected::Number, value))
            }
        }
    }

    /// A bool parameter.
    pub fn flag(&self, index: usize, default: bool) -> Result<bool> {
        match self.optional(index) {
            None => Ok(default),
            Some(Value::Bool(flag)) => Ok(*flag),
            Some(value) => value.as_int().map(|x| x != 0).ok_or_else(|| self.wrong(index, Expected::Bool, value)),
        }
    }

    /// A dtype parameter.
    pub fn dtype(&self, index: usize, default: DType) -> Result<DType> {
        match self.optional(index) {
            None => Ok(default),
            Some(Value::DType(dtype, _)) => Ok(*dtype),
            Some(value) => Err(self.wrong(index, Expected::PyptoDtype, value)),
        }
    }

    /// A shape: a list or tuple of non-negative ints (or one int).
    pub fn shape(&self, index: usize) -> Result<Vec<usize>> {
        let value = self.required(index)?;
        self.interpreter.to_shape(value, self.span_of(index), &self.function)
    }

    /// Dims for a reduction: `None` (all), an int, or a list of ints.
    pub fn dims(&self, index: usize) -> Result<Option<Vec<isize>>> {
        match self.optional(index) {
            None => Ok(None),
            Some(value) => {
                if let Some(dim) = value.as_int() {
                    return Ok(Some(vec![dim as isize]));
                }
                let items = self.interpreter.iterate(value, self.span_of(index))?;
                items
                    .iter()
                    .map(|item| {
                        item.as_int().map(|dim| dim as isize).ok_or_else(|| self.wrong(index, Expected::Ints, value))
                    })
                    .collect::<Result<Vec<_>>>()
                    .map(Some)
            }
        }
    }
}
