//! Instances: construction (a class's `__init__` or the fields of a dataclass/NamedTuple), their
//! attributes and methods, and the attributes of classes.

use std::cell::RefCell;
use std::rc::Rc;

use super::{Class, ClassKind, Instance};
use crate::lang::interp::api_table;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{ClassMessage, LibraryMessage, Message, RuntimeMessage};

impl Interpreter {
    /// `Class(arguments)`: a new instance, initialised by the class's `__init__` or, for a
    /// dataclass or NamedTuple, from its fields (then `__post_init__`, if the class has one).
    pub(crate) fn instantiate(&self, class: &Rc<Class>, arguments: Arguments, span: Span) -> Result<Value> {
        if super::enumeration::member_type(class).is_some() {
            return self.enumeration_member(class, arguments, span);
        }
        let instance = Rc::new(Instance { class: class.clone(), attributes: RefCell::new(Vec::new()) });
        self.instances.register(&instance);
        let value = Value::Instance(instance.clone());
        if let Some(generator) = class.generated("__init__") {
            self.initialise_fields(&instance, &generator, arguments, span)?;
            if let Some((function, owner)) = class.lookup("__post_init__") {
                self.call_method_of(&function, &owner, value.clone(), Arguments::empty(), span)?;
            }
            return Ok(value);
        }
        match class.lookup("__init__") {
            Some((function, owner)) => {
                let result = self.call_method_of(&function, &owner, value.clone(), arguments, span)?;
                if !matches!(result, Value::None) {
                    let got = result.type_name().to_string();
                    return Err(self.coded(
                        ErrorKind::Type,
                        ClassMessage::InitReturned { class_name: class.name.clone(), got },
                        span,
                    ));
                }
            }
            None if !arguments.positional.is_empty() || !arguments.keywords.is_empty() => {
                let given = arguments.positional.len() + arguments.keywords.len();
                let message = RuntimeMessage::TakesNoArguments { function: class.name.clone(), given };
                return Err(self
                    .coded(ErrorKind::Type, message, span)
                    .with_help_message(ClassMessage::DefineInit { class_name: class.name.clone() }));
            }
            None => {}
        }
        Ok(value)
    }

    /// `instance(arguments)`: its class's `__call__`.
    pub(crate) fn call_instance(
        &self,
        value: &Value,
        instance: &Instance,
        arguments: Arguments,
        span: Span,
    ) -> Result<Value> {
        match instance.class.lookup("__call__") {
            Some((function, owner)) => self.call_method_of(&function, &owner, value.clone(), arguments, span),
            None => Err(self
                .coded(ErrorKind::Type, RuntimeMessage::NotCallable { type_name: instance.class.name.clone() }, span)
                .with_help_message(ClassMessage::DefineCall { class_name: instance.class.name.clone() })),
        }
    }

    /// Binds `arguments` to the fields of `generator` (positionally, then by name, then defaults).
    pub(crate) fn initialise_fields(
        &self,
        instance: &Instance,
        generator: &Class,
        arguments: Arguments,
        span: Span,
    ) -> Result<()> {
        let name = &instance.class.name;
        let fields = &generator.fields;
        if arguments.positional.len() > fields.len() {
            let (expected, given) = (fields.len(), arguments.positional.len());
            return Err(self.coded(
                ErrorKind::Type,
                RuntimeMessage::TooManyPositional { function: name.clone(), expected, given },
                span,
            ));
        }
        let mut values: Vec<Option<Value>> = vec![None; fields.len()];
        for (slot, (value, _)) in values.iter_mut().zip(arguments.positional) {
            *slot = Some(value);
        }
        for (key, value, argument_span) in arguments.keywords {
            let Some(index) = fields.iter().position(|field| field.name == key) else {
                let known: Vec<&str> = fields.iter().map(|field| field.name.as_str()).collect();
                let suggestion = api_table::closest(&key, known.iter().copied()).map(str::to_string);
                let help = ClassMessage::Fields { class_name: name.clone(), fields: known.join(", "), suggestion };
                let message = Message::UnexpectedKeyword { function: name.clone(), keyword: key };
                return Err(self.coded(ErrorKind::Type, message, argument_span).with_help_message(help));
            };
            if values[index].is_some() {
                let message = RuntimeMessage::MultipleValues { function: name.clone(), parameter: key };
                return Err(self.coded(ErrorKind::Type, message, argument_span));
            }
            values[index] = Some(value);
        }
        for (field, value) in fields.iter().zip(values) {
            let value = match (value, &field.default, &field.factory) {
                (Some(value), _, _) => value,
                (None, Some(default), _) => default.clone(),
                (None, None, Some(factory)) => self.call_values(factory, Vec::new(), span)?,
                (None, None, None) => {
                    let message = Message::MissingArgument { function: name.clone(), parameter: field.name.clone() };
                    return Err(self.coded(ErrorKind::Type, message, span));
                }
            };
            instance.set(&field.name, value);
        }
        Ok(())
    }

    /// Calls `function` (a class attribute) as a method of `receiver`: `self` first.
    pub(crate) fn call_with_receiver(
        &self,
        function: &Value,
        receiver: Value,
        mut arguments: Arguments,
        span: Span,
    ) -> Result<Value> {
        arguments.positional.insert(0, (receiver, span));
        self.call(function, arguments, span)
    }

    /// `instance.name`: its own attribute, else the class's (a method bound to it, a property's
    /// value), else the NamedTuple helpers.
    pub(crate) fn instance_attribute(
        &self,
        value: &Value,
        instance: &Rc<Instance>,
        name: &str,
        span: Span,
    ) -> Result<Value> {
        if let Some(found) = instance.get(name) {
            return Ok(found);
        }
        if let Some((found, _)) = instance.class.lookup(name) {
            return self.bind_class_attribute(found, value, Value::Class(instance.class.clone()), name, span);
        }
        match name {
            "__class__" => return Ok(Value::Class(instance.class.clone())),
            "_replace" | "_asdict" if instance.is_named_tuple() => {
                return Ok(Value::Method(Rc::new((value.clone(), name.to_string()))));
            }
            "_fields" if instance.is_named_tuple() => return Ok(field_names(instance)),
            _ => {}
        }
        let mut known: Vec<String> = instance.attributes.borrow().iter().map(|(key, _)| key.clone()).collect();
        for class in instance.class.chain() {
            known.extend(class.attributes.borrow().iter().map(|(key, _)| key.clone()));
        }
        let message = RuntimeMessage::NoAttribute { type_name: instance.class.name.clone(), name: name.to_string() };
        let error = self.coded(ErrorKind::Attribute, message, span);
        Err(match api_table::closest(name, known.iter().map(String::as_str)) {
            Some(near) => error.with_help_message(Message::DidYouMean { suggestion: near.to_string() }),
            None => error,
        })
    }

    /// A class attribute as seen through an instance (`receiver`) or the class (`class`).
    fn bind_class_attribute(
        &self,
        found: Value,
        receiver: &Value,
        class: Value,
        name: &str,
        span: Span,
    ) -> Result<Value> {
        let is_instance = matches!(receiver, Value::Instance(_));
        match &found {
            Value::Builtin(method) if is_instance && method.starts_with("torch.nn.Module.") => {
                Ok(Value::Method(Rc::new((receiver.clone(), name.to_string()))))
            }
            Value::Function(_) | Value::Kernel(_) if is_instance => {
                Ok(Value::Method(Rc::new((receiver.clone(), name.to_string()))))
            }
            Value::Object(object) => match object.as_ref() {
                Object::StaticMethod(function) => Ok(function.clone()),
                Object::ClassMethod(_) => Ok(Value::Method(Rc::new((class, name.to_string())))),
                Object::Property(getter) if is_instance => self.call_values(getter, vec![receiver.clone()], span),
                _ => Ok(found),
            },
            _ => Ok(found),
        }
    }

    /// `Class.name`.
    pub(crate) fn class_attribute(&self, class: &Rc<Class>, name: &str, span: Span) -> Result<Value> {
        if let Some((found, _)) = class.lookup(name) {
            return self.bind_class_attribute(
                found,
                &Value::Class(class.clone()),
                Value::Class(class.clone()),
                name,
                span,
            );
        }
        match name {
            "__name__" => Ok(Value::string(class.name.as_str())),
            "__members__" if super::enumeration::member_type(class).is_some() => Ok(self.enumeration_names(class)),
            "_fields" if class.chain().any(|c| c.kind == ClassKind::NamedTuple) => {
                let generator = class.chain().find(|c| c.kind != ClassKind::Plain);
                let names = generator
                    .map_or(Vec::new(), |c| c.fields.iter().map(|field| Value::string(field.name.as_str())).collect());
                Ok(Value::tuple(names))
            }
            _ => {
                let message = ClassMessage::NoClassAttribute { class_name: class.name.clone(), name: name.to_string() };
                Err(self.coded(ErrorKind::Attribute, message, span))
            }
        }
    }

    /// `instance.name = value` (refused for a frozen dataclass and a NamedTuple).
    pub(crate) fn set_instance_attribute(
        &self,
        instance: &Instance,
        name: &str,
        value: Value,
        span: Span,
    ) -> Result<()> {
        if instance.is_named_tuple() {
            let message =
                ClassMessage::NamedTupleImmutable { name: name.to_string(), class_name: instance.class.name.clone() };
            return Err(self
                .coded(ErrorKind::Attribute, message, span)
                .with_help_message(ClassMessage::UseReplaceMethod { name: name.to_string() }));
        }
        let frozen = instance.class.chain().any(|class| class.kind == ClassKind::Dataclass { frozen: true });
        if frozen {
            let message = ClassMessage::FrozenField { name: name.to_string(), class_name: instance.class.name.clone() };
            return Err(self
                .coded(ErrorKind::Attribute, message, span)
                .with_help_message(ClassMessage::UseDataclassesReplace { name: name.to_string() }));
        }
        if let Some((Value::Object(object), _)) = &instance.class.lookup(name) {
            if matches!(object.as_ref(), Object::Property(_)) {
                let class_name = instance.class.name.clone();
                let message = ClassMessage::PropertyWithoutSetter { name: name.to_string(), class_name };
                return Err(self.coded(ErrorKind::Attribute, message, span));
            }
        }
        instance.set(name, value);
        Ok(())
    }

    /// `Class.name = value`.
    pub(crate) fn set_class_attribute(&self, class: &Class, name: &str, value: Value) {
        let mut attributes = class.attributes.borrow_mut();
        match attributes.iter_mut().find(|(key, _)| key == name) {
            Some(slot) => slot.1 = value,
            None => attributes.push((name.to_string(), value)),
        }
    }

    /// Calls the method `name` of an instance or (a classmethod) of a class.
    pub(crate) fn call_class_method(
        &self,
        receiver: &Value,
        name: &str,
        arguments: Arguments,
        span: Span,
    ) -> Result<Value> {
        let (class, receiver_value) = match receiver {
            Value::Instance(instance) => (instance.class.clone(), receiver.clone()),
            Value::Class(class) => (class.clone(), receiver.clone()),
            other => {
                let message =
                    LibraryMessage::NoMethod { type_name: other.type_name().to_string(), name: name.to_string() };
                return Err(self.coded(ErrorKind::Attribute, message, span));
            }
        };
        match &class.lookup(name) {
            Some((Value::Object(object), owner)) => match object.as_ref() {
                Object::ClassMethod(function) => {
                    self.call_method_of(function, owner, Value::Class(class.clone()), arguments, span)
                }
                Object::StaticMethod(function) => self.call(function, arguments, span),
                _ => {
                    let message = RuntimeMessage::NotCallable { type_name: object_type(object).to_string() };
                    Err(self.coded(ErrorKind::Type, message, span))
                }
            },
            Some((function, owner)) => self.call_method_of(function, owner, receiver_value, arguments, span),
            None => match (receiver, name) {
                (Value::Instance(instance), "_replace") => self.replace_fields(instance, arguments, span),
                (Value::Instance(instance), "_asdict") => {
                    self.bind("_asdict", &[], arguments, false, span)?;
                    let fields = instance.named_fields().unwrap_or_default();
                    Ok(Value::dict(fields.into_iter().map(|(key, value)| (Value::string(key), value)).collect()))
                }
                _ => {
                    let message = LibraryMessage::NoMethod { type_name: class.name.clone(), name: name.to_string() };
                    Err(self.coded(ErrorKind::Attribute, message, span))
                }
            },
        }
    }

    /// A copy of a dataclass or NamedTuple instance with some fields changed (`_replace`,
    /// `dataclasses.replace`).
    pub(crate) fn replace_fields(&self, instance: &Rc<Instance>, arguments: Arguments, span: Span) -> Result<Value> {
        if let Some((_, argument_span)) = arguments.positional.first() {
            return Err(self.coded(ErrorKind::Type, ClassMessage::ReplaceForm, *argument_span));
        }
        let Some(fields) = instance.named_fields() else {
            let got = instance.class.name.clone();
            return Err(self.coded(
                ErrorKind::Type,
                ClassMessage::NeedsDataclassInstance { function: "replace".into(), got },
                span,
            ));
        };
        let mut keywords: Vec<(String, Value, Span)> =
            fields.into_iter().map(|(key, value)| (key, value, span)).collect();
        for (key, value, argument_span) in arguments.keywords {
            match keywords.iter_mut().find(|(existing, _, _)| existing == &key) {
                Some(slot) => slot.1 = value,
                None => {
                    let message = ClassMessage::NoField { class_name: instance.class.name.clone(), name: key };
                    return Err(self.coded(ErrorKind::Type, message, argument_span));
                }
            }
        }
        self.instantiate(&instance.class, Arguments { positional: Vec::new(), keywords }, span)
    }
}

fn field_names(instance: &Instance) -> Value {
    let names = instance.named_fields().unwrap_or_default();
    Value::tuple(names.into_iter().map(|(name, _)| Value::string(name)).collect())
}

fn object_type(object: &Object) -> &'static str {
    crate::lang::interp::value::object_name(object)
}
