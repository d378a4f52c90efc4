//! Calling methods: each call records the class that defined the method and its receiver, so
//! that `super()` inside it finds the next class up; `super()` itself; and the text of instances
//! whose class defines `__str__` or `__repr__`.

use std::rc::Rc;

use super::{Class, Instance};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::format::{repr, to_str};
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{ClassMessage, RuntimeMessage};

/// A running method: the class that defined it, its receiver, and the call depth of its body.
pub(crate) struct MethodFrame {
    class: Rc<Class>,
    receiver: Value,
    depth: usize,
}

impl Interpreter {
    /// Calls `function`, defined in `owner`, as a method of `receiver` (`self` or `cls` first).
    pub(crate) fn call_method_of(
        &self,
        function: &Value,
        owner: &Rc<Class>,
        receiver: Value,
        arguments: Arguments,
        span: Span,
    ) -> Result<Value> {
        let frame = MethodFrame { class: owner.clone(), receiver: receiver.clone(), depth: self.depth.get() + 1 };
        self.method_frames.borrow_mut().push(frame);
        let result = self.call_with_receiver(function, receiver, arguments, span);
        self.method_frames.borrow_mut().pop();
        result
    }

    /// `super()`: the running method's receiver, seen from the class above the method's own.
    pub(crate) fn call_super(&self, arguments: Arguments, span: Span) -> Result<Value> {
        let bound = self.bind("super", &["type", "object"], arguments, false, span)?;
        // `super(Model, self)`, the two-argument form older code writes.
        if let (Some(Value::Class(class)), Some(receiver)) = (bound.optional(0), bound.optional(1)) {
            return Ok(Value::object(Object::Super { class: class.clone(), receiver: receiver.clone() }));
        }
        let frames = self.method_frames.borrow();
        let frame = frames.last().filter(|frame| frame.depth == self.depth.get()).ok_or_else(|| {
            self.coded(ErrorKind::Type, ClassMessage::SuperOutsideMethod, span)
                .with_help_message(ClassMessage::SuperInMethod)
        })?;
        Ok(Value::object(Object::Super { class: frame.class.clone(), receiver: frame.receiver.clone() }))
    }

    /// `super().name`.
    pub(crate) fn super_attribute(
        &self,
        value: &Value,
        class: &Rc<Class>,
        receiver: &Value,
        name: &str,
        span: Span,
    ) -> Result<Value> {
        let missing = || self.super_missing(name, span);
        if name == "__init__" && !defines_init(class.base.as_ref()) {
            // `object.__init__`, called through `call_super_method`.
            return Ok(Value::Method(Rc::new((value.clone(), name.to_string()))));
        }
        let base = class.base.clone().ok_or_else(missing)?;
        if name == "__init__" && base.generated("__init__").is_some() {
            return Ok(Value::Method(Rc::new((value.clone(), name.to_string()))));
        }
        let (found, _) = base.lookup(name).ok_or_else(missing)?;
        let builtin_method = matches!(&found, Value::Builtin(method) if method.starts_with("torch.nn.Module."));
        match &found {
            Value::Function(_) => Ok(Value::Method(Rc::new((value.clone(), name.to_string())))),
            Value::Builtin(_) if builtin_method => Ok(Value::Method(Rc::new((value.clone(), name.to_string())))),
            Value::Object(object) => match object.as_ref() {
                Object::StaticMethod(function) => Ok(function.clone()),
                Object::ClassMethod(_) => Ok(Value::Method(Rc::new((value.clone(), name.to_string())))),
                Object::Property(getter) => self.call_values(getter, vec![receiver.clone()], span),
                _ => Ok(found),
            },
            _ => Ok(found),
        }
    }

    /// `'super' object has no attribute 'name'`.
    fn super_missing(&self, name: &str, span: Span) -> crate::lang::interp::error::RuntimeError {
        let message = RuntimeMessage::NoAttribute { type_name: "super".into(), name: name.to_string() };
        self.coded(ErrorKind::Attribute, message, span)
    }

    /// Calls `super().name(arguments)`.
    pub(crate) fn call_super_method(
        &self,
        class: &Rc<Class>,
        receiver: &Value,
        name: &str,
        arguments: Arguments,
        span: Span,
    ) -> Result<Value> {
        let missing = || self.super_missing(name, span);
        let base_init =
            class.base.as_ref().is_some_and(|base| base.lookup(name).is_some() || base.generated(name).is_some());
        if name == "__init__" && !base_init {
            // No class above defines `__init__`: Python's `object.__init__`, which takes nothing.
            self.bind("object.__init__", &[], arguments, false, span)?;
            return Ok(Value::None);
        }
        let base = class.base.clone().ok_or_else(missing)?;
        if name == "__init__" {
            if let (Some(generator), Value::Instance(instance)) = (base.generated("__init__"), receiver) {
                self.initialise_fields(instance, &generator, arguments, span)?;
                return Ok(Value::None);
            }
        }
        let (found, owner) = base.lookup(name).ok_or_else(missing)?;
        let receiver_class = match receiver {
            Value::Instance(instance) => Value::Class(instance.class.clone()),
            other => other.clone(),
        };
        match &found {
            Value::Object(object) => match object.as_ref() {
                Object::ClassMethod(function) => self.call_method_of(function, &owner, receiver_class, arguments, span),
                Object::StaticMethod(function) => self.call(function, arguments, span),
                _ => Err(self.coded(ErrorKind::Type, ClassMessage::SuperNotCallable { name: name.to_string() }, span)),
            },
            _ => self.call_method_of(&found, &owner, receiver.clone(), arguments, span),
        }
    }

    /// `str(value)`: an instance's `__str__` (else `__repr__`) when its class defines one.
    pub(crate) fn text_of(&self, value: &Value, span: Span) -> Result<String> {
        match value {
            Value::Instance(instance) => match self.user_text(value, instance, &["__str__", "__repr__"], span)? {
                Some(text) => Ok(text),
                None => Ok(to_str(value)),
            },
            _ => Ok(to_str(value)),
        }
    }

    /// `repr(value)`: an instance's `__repr__` when its class defines one.
    pub(crate) fn repr_of(&self, value: &Value, span: Span) -> Result<String> {
        match value {
            Value::Instance(instance) => match self.user_text(value, instance, &["__repr__"], span)? {
                Some(text) => Ok(text),
                None => Ok(repr(value)),
            },
            _ => Ok(repr(value)),
        }
    }

    fn user_text(
        &self,
        value: &Value,
        instance: &Rc<Instance>,
        methods: &[&str],
        span: Span,
    ) -> Result<Option<String>> {
        for method in methods {
            if let Some((function @ Value::Function(_), owner)) = instance.class.lookup(method) {
                return match &self.call_method_of(&function, &owner, value.clone(), Arguments::empty(), span)? {
                    Value::Str(text) => Ok(Some(text.to_string())),
                    other => {
                        let got = other.type_name().to_string();
                        Err(self.coded(
                            ErrorKind::Type,
                            ClassMessage::TextMethodType { method: method.to_string(), got },
                            span,
                        ))
                    }
                };
            }
        }
        Ok(None)
    }
}

/// Whether `base` or a class above it has an `__init__` (its own, inherited or generated from
/// fields); without one, `super().__init__` is `object.__init__`.
fn defines_init(base: Option<&Rc<Class>>) -> bool {
    base.is_some_and(|base| base.lookup("__init__").is_some() || base.generated("__init__").is_some())
}
