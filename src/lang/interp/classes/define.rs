//! The `class` statement (bases, body, decorators) and what `@dataclass` and `NamedTuple` make of
//! the annotated names of the body.

use std::cell::RefCell;
use std::rc::Rc;

use super::{Class, ClassKind, Field};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::exec::Flow;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::scope::Scope;
use crate::lang::interp::value::{Object, Value};
use crate::lang::syntax::ast::{ClassDef, ExprKind, Stmt, StmtKind};
use crate::lang::syntax::Span;
use crate::messages::{ClassMessage, Construct, UnsupportedMessage};

/// What a class statement's bases make of the class.
struct Bases {
    /// The base class.
    base: Option<Rc<Class>>,
    /// Whether the class is a NamedTuple.
    named_tuple: bool,
    /// The member type when it is an `enum` enumeration (`object`, `int` or `str`).
    enumeration: Option<&'static str>,
}

impl Interpreter {
    /// Runs a `class` statement: the bases, the body in a namespace of its own, the decorators
    /// bottom-up; binds the name in `scope`.
    pub(crate) fn define_class(&self, definition: &ClassDef, scope: &Rc<Scope>) -> Result<()> {
        let Bases { base, named_tuple, enumeration } = self.class_bases(definition, scope)?;
        let namespace = Scope::child(scope);
        for statement in &definition.body {
            let flow = match &statement.kind {
                // A method sees the scope around the class, not the class body (as in Python).
                StmtKind::FunctionDef(function) => {
                    self.step(statement.span)?;
                    let value = self.function_value(function, &namespace, scope)?;
                    namespace.set(&function.name.name, value);
                    Flow::Normal
                }
                _ => self.exec(statement, &namespace)?,
            };
            if !matches!(flow, Flow::Normal) {
                return Err(self.coded(ErrorKind::Control, ClassMessage::FlowInBody, statement.span));
            }
        }
        let mut names = namespace.snapshot();
        // Nothing keeps the namespace past the class: emptied, it holds nothing alive.
        namespace.restore(Default::default());
        let mut attributes = Vec::new();
        for name in definition_order(&definition.body) {
            if let Some(value) = names.remove(&name) {
                attributes.push((name, value));
            }
        }
        let mut rest: Vec<(String, Value)> = names.into_iter().collect();
        rest.sort_by(|a, b| a.0.cmp(&b.0));
        attributes.extend(rest);
        let annotations = annotated_names(&definition.body);
        let mut class = Class {
            name: definition.name.name.clone(),
            base,
            kind: ClassKind::Plain,
            fields: Vec::new(),
            annotations,
            attributes: RefCell::new(attributes),
        };
        if named_tuple {
            class.kind = ClassKind::NamedTuple;
            class.fields = self.own_fields(&class, definition.name.span)?;
            check_default_order(self, &class.fields, &class.name, definition.name.span)?;
            // A NamedTuple's fields live in its instances; the class keeps only methods and constants.
            let fields: Vec<String> = class.fields.iter().map(|field| field.name.clone()).collect();
            class.attributes.borrow_mut().retain(|(name, _)| !fields.contains(name));
        }
        let class = Rc::new(class);
        let member_type =
            enumeration.map(Rc::from).or_else(|| class.base.as_ref().and_then(super::enumeration::member_type));
        if let Some(member_type) = member_type {
            self.make_enumeration(&class, &member_type, definition.name.span)?;
        }
        let mut value = Value::Class(class);
        for decorator in definition.decorators.iter().rev() {
            let decorate = self.eval(decorator, scope)?;
            self.check_decorator_target(&decorate, &value, decorator.span)?;
            value = self.call_values(&decorate, vec![value], decorator.span)?;
        }
        scope.set(&definition.name.name, value);
        Ok(())
    }

    fn class_bases(&self, definition: &ClassDef, scope: &Rc<Scope>) -> Result<Bases> {
        let mut base: Option<Rc<Class>> = None;
        let mut named_tuple = false;
        let mut enumeration = None;
        for expression in &definition.bases {
            let single = base.is_none() && !named_tuple && enumeration.is_none();
            match &self.eval(expression, scope)? {
                Value::Class(class) if single => base = Some(class.clone()),
                Value::Builtin(name) if name.as_ref() == "typing.NamedTuple" && single => named_tuple = true,
                Value::Builtin(name) if single && super::enumeration::member_type_of_base(name).is_some() => {
                    enumeration = super::enumeration::member_type_of_base(name)
                }
                Value::Builtin(name) if name.as_ref() == "object" => {}
                Value::Class(_) | Value::Builtin(_) if !single => {
                    let message = UnsupportedMessage::NotSupported { construct: Construct::SeveralBases };
                    return Err(self
                        .coded(ErrorKind::Unsupported, message, expression.span)
                        .with_help_message(ClassMessage::SingleInheritance));
                }
                other => {
                    let message = ClassMessage::BadBase { got: other.type_name().to_string() };
                    return Err(self
                        .coded(ErrorKind::Type, message, expression.span)
                        .with_help_message(ClassMessage::Bases));
                }
            }
        }
        Ok(Bases { base, named_tuple, enumeration })
    }

    /// `dataclass(cls)`: a class whose `__init__`, repr and `==` come from its annotated fields
    /// (a base dataclass's fields first).
    pub(crate) fn make_dataclass(&self, class: &Rc<Class>, frozen: bool, span: Span) -> Result<Value> {
        if class.kind == ClassKind::NamedTuple {
            let message = ClassMessage::DataclassOfNamedTuple { class_name: class.name.clone() };
            return Err(self.coded(ErrorKind::Type, message, span));
        }
        let mut fields: Vec<Field> = class
            .base
            .as_ref()
            .and_then(|base| base.chain().find(|c| c.kind != ClassKind::Plain))
            .map_or(Vec::new(), |c| c.fields.clone());
        for field in self.own_fields(class, span)? {
            match fields.iter_mut().find(|existing| existing.name == field.name) {
                Some(existing) => *existing = field,
                None => fields.push(field),
            }
        }
        check_default_order(self, &fields, &class.name, span)?;
        // The class attribute of a `field(default=…)` is its default, as in Python.
        let mut attributes = class.attributes.borrow().clone();
        attributes.retain_mut(|(name, value)| {
            let Value::Object(object) = value else { return true };
            let Object::Field { default, .. } = object.as_ref() else { return true };
            match default {
                Some(default) => {
                    *value = default.clone();
                    true
                }
                None => !fields.iter().any(|field| &field.name == name),
            }
        });
        Ok(Value::Class(Rc::new(Class {
            name: class.name.clone(),
            base: class.base.clone(),
            kind: ClassKind::Dataclass { frozen },
            fields,
            annotations: class.annotations.clone(),
            attributes: RefCell::new(attributes),
        })))
    }

    /// The fields the class's own annotations declare, with their defaults.
    fn own_fields(&self, class: &Class, span: Span) -> Result<Vec<Field>> {
        let attributes = class.attributes.borrow();
        let mut fields = Vec::new();
        for name in &class.annotations {
            let value = attributes.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
            let (default, factory) = match &value {
                Some(Value::Object(object)) => match object.as_ref() {
                    Object::Field { default, factory } => (default.clone(), factory.clone()),
                    _ => (Some(Value::Object(object.clone())), None),
                },
                _ => (value, None),
            };
            if let Some(mutable @ (Value::List(_) | Value::Dict(_))) = &default {
                let (kind, field) = (mutable.type_name().to_string(), name.clone());
                let help = ClassMessage::DefaultFactory { field: field.clone(), kind: kind.clone() };
                let message = ClassMessage::MutableDefault { kind, field, class_name: class.name.clone() };
                return Err(self.coded(ErrorKind::Value, message, span).with_help_message(help));
            }
            fields.push(Field { name: name.clone(), default, factory });
        }
        Ok(fields)
    }
}

/// A field without a default may not follow one with a default (the generated `__init__` could
/// not take them positionally).
fn check_default_order(interpreter: &Interpreter, fields: &[Field], class: &str, span: Span) -> Result<()> {
    let mut with_default: Option<&str> = None;
    for field in fields {
        let has_default = field.default.is_some() || field.factory.is_some();
        match with_default {
            Some(previous) if !has_default => {
                let message = ClassMessage::DefaultOrder {
                    class_name: class.to_string(),
                    field: field.name.clone(),
                    previous: previous.to_string(),
                };
                return Err(interpreter
                    .coded(ErrorKind::Type, message, span)
                    .with_help_message(ClassMessage::DefaultsLast));
            }
            _ if has_default => with_default = Some(&field.name),
            _ => {}
        }
    }
    Ok(())
}

/// The names the body annotates at its top level (`tile_m: int = 128`), in order.
fn annotated_names(body: &[Stmt]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for statement in body {
        if let StmtKind::AnnAssign { target, .. } = &statement.kind {
            if let ExprKind::Name(name) = &target.kind {
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
    }
    names
}

/// The names the body binds at its top level, in the order it binds them first.
fn definition_order(body: &[Stmt]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut note = |name: &str| {
        if !names.iter().any(|known| known == name) {
            names.push(name.to_string());
        }
    };
    for statement in body {
        match &statement.kind {
            StmtKind::Assign { targets, .. } => targets.iter().for_each(|target| {
                if let ExprKind::Name(name) = &target.kind {
                    note(name);
                }
            }),
            StmtKind::AnnAssign { target, .. } => {
                if let ExprKind::Name(name) = &target.kind {
                    note(name);
                }
            }
            StmtKind::FunctionDef(function) => note(&function.name.name),
            StmtKind::ClassDef(class) => note(&class.name.name),
            _ => {}
        }
    }
    names
}
