//! Comprehensions: `[element for target in iterable if condition …]` (generator expressions too,
//! as lists) and `{key: value for …}`. The loop targets live in a scope of their own, as in
//! Python 3.

use std::rc::Rc;

use super::error::{ErrorKind, Result};
use super::interpreter::Interpreter;
use super::scope::Scope;
use super::value::Value;
use crate::lang::syntax::ast::{Comprehension, Expr};
use crate::lang::syntax::Span;

/// What a comprehension builds from each innermost iteration.
enum Produce<'a> {
    /// One list item.
    Item(&'a Expr, Vec<Value>),
    /// One dict entry (a later equal key replaces the earlier value, keeping its position).
    Entry(&'a Expr, &'a Expr, Vec<(Value, Value)>),
}

impl Interpreter {
    /// The list a comprehension makes.
    #[inline(never)]
    pub(crate) fn eval_comprehension(
        &self,
        element: &Expr,
        generators: &[Comprehension],
        scope: &Rc<Scope>,
        span: Span,
    ) -> Result<Value> {
        let inner = Scope::child(scope);
        let mut produce = Produce::Item(element, Vec::new());
        self.comprehension_level(&mut produce, generators, scope, &inner, span)?;
        let Produce::Item(_, items) = produce else { unreachable!("a list comprehension makes items") };
        Ok(Value::list(items))
    }

    /// The dict a dict comprehension makes.
    #[inline(never)]
    pub(crate) fn eval_dict_comprehension(
        &self,
        key: &Expr,
        value: &Expr,
        generators: &[Comprehension],
        scope: &Rc<Scope>,
        span: Span,
    ) -> Result<Value> {
        let inner = Scope::child(scope);
        let mut produce = Produce::Entry(key, value, Vec::new());
        self.comprehension_level(&mut produce, generators, scope, &inner, span)?;
        let Produce::Entry(_, _, entries) = produce else { unreachable!("a dict comprehension makes entries") };
        Ok(Value::dict(entries))
    }

    /// One `for` of the comprehension (the first iterable is evaluated outside, as in Python).
    fn comprehension_level(
        &self,
        produce: &mut Produce,
        generators: &[Comprehension],
        outer: &Rc<Scope>,
        inner: &Rc<Scope>,
        span: Span,
    ) -> Result<()> {
        let Some((generator, rest)) = generators.split_first() else {
            return self.produce(produce, inner, span);
        };
        let iterable = self.eval(&generator.iterable, outer)?;
        'items: for item in self.iterate(&iterable, generator.iterable.span)? {
            self.assign(&generator.target, item, inner)?;
            for condition in &generator.conditions {
                let test = self.eval(condition, inner)?;
                if !self.truthy(&test, condition.span)? {
                    continue 'items;
                }
            }
            self.comprehension_level(produce, rest, inner, inner, span)?;
        }
        Ok(())
    }

    fn produce(&self, produce: &mut Produce, inner: &Rc<Scope>, span: Span) -> Result<()> {
        match produce {
            Produce::Item(element, items) => {
                items.push(self.eval(element, inner)?);
                self.check_items(items.len(), span)
            }
            Produce::Entry(key, value, entries) => {
                let key_value = self.eval(key, inner)?;
                self.check_hashable(&key_value, key.span)?;
                let value = self.eval(value, inner)?;
                match entries.iter_mut().find(|(existing, _)| super::operators::values_equal(existing, &key_value)) {
                    Some(entry) => entry.1 = value,
                    None => entries.push((key_value, value)),
                }
                self.check_items(entries.len(), span)
            }
        }
    }

    /// A dict key must be hashable: lists, dicts and tensors are not (as in Python).
    pub(crate) fn check_hashable(&self, key: &Value, span: Span) -> Result<()> {
        match key {
            Value::List(_) | Value::Dict(_) | Value::Set(_) | Value::Tensor(_) => {
                let message = crate::messages::OperationMessage::Unhashable { type_name: key.type_name().into() };
                Err(self.coded(ErrorKind::Type, message, span))
            }
            _ => Ok(()),
        }
    }
}
