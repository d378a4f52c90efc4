//! Functions as values: `lambda` (a closure over the scope it is written in, with defaults
//! evaluated where it is written) and the builtins that take a function: `sorted(…, key=,
//! reverse=)`, `min`/`max(…, key=, default=)`, `map` and `filter` (which return lists, as
//! generator expressions do in tile scripts).

use std::cmp::Ordering;
use std::rc::Rc;
use std::sync::Arc;

use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::interpreter::Interpreter;
use super::operators::order;
use super::scope::Scope;
use super::value::{Function, Value};
use crate::lang::syntax::ast::FunctionDef;
use crate::lang::syntax::Span;
use crate::messages::{LibraryMessage, Message};

impl Interpreter {
    /// Calls a script function with positional values only (used by autograd callbacks).
    pub(crate) fn call_values(&self, callee: &Value, values: Vec<Value>, span: Span) -> Result<Value> {
        let arguments =
            Arguments { positional: values.into_iter().map(|value| (value, span)).collect(), keywords: Vec::new() };
        self.call(callee, arguments, span)
    }

    /// The function a `lambda` makes: it sees the names of `scope` when it runs.
    #[inline(never)]
    pub(crate) fn lambda_value(&self, definition: &Arc<FunctionDef>, scope: &Rc<Scope>) -> Result<Value> {
        self.new_function(definition.clone(), scope, scope).map(Value::Function)
    }

    /// A function of `definition` whose defaults are evaluated in `scope` now and whose body sees
    /// `closure`.
    pub(crate) fn new_function(
        &self,
        definition: Arc<FunctionDef>,
        scope: &Rc<Scope>,
        closure: &Rc<Scope>,
    ) -> Result<Rc<Function>> {
        let mut defaults = Vec::new();
        for parameter in &definition.parameters.positional {
            defaults.push(parameter.default.as_ref().map(|default| self.eval(default, scope)).transpose()?);
        }
        let mut keyword_defaults = Vec::new();
        for parameter in &definition.parameters.keyword_only {
            keyword_defaults.push(parameter.default.as_ref().map(|default| self.eval(default, scope)).transpose()?);
        }
        Ok(Rc::new(Function {
            name: definition.name.name.clone(),
            definition,
            defaults,
            keyword_defaults,
            closure: closure.clone(),
            cell: self.current_cell(),
        }))
    }

    /// `reversed(sequence)`: its items, last first (a list here, where Python gives an iterator).
    pub(crate) fn reversed(&self, arguments: Arguments, span: Span) -> Result<Value> {
        let bound = self.bind("reversed", &["sequence"], arguments, false, span)?;
        let mut items = self.iterate(bound.required(0)?, bound.span_of(0))?;
        items.reverse();
        Ok(Value::list(items))
    }

    /// `sorted(iterable, key=None, reverse=False)`: a new list, stable (equal keys keep their
    /// order, also when reversed).
    pub(crate) fn sorted(&self, arguments: Arguments, span: Span) -> Result<Value> {
        let bound = self.bind("sorted", &["iterable", "key", "reverse"], arguments, false, span)?;
        let items = self.iterate(bound.required(0)?, bound.span_of(0))?;
        let reverse = bound.flag(2, false)?;
        let keys = self.keys_of(&items, bound.optional(1), bound.span_of(1))?;
        let mut positions: Vec<usize> = (0..items.len()).collect();
        let mut incomparable = None;
        positions.sort_by(|&a, &b| {
            let ordering = order(&keys[a], &keys[b]).unwrap_or_else(|| {
                incomparable.get_or_insert((keys[a].type_name(), keys[b].type_name()));
                Ordering::Equal
            });
            if reverse {
                ordering.reverse()
            } else {
                ordering
            }
        });
        if let Some((left, right)) = incomparable {
            let message = LibraryMessage::LessThanUnsupported {
                function: "sorted".into(),
                left: left.to_string(),
                right: right.to_string(),
            };
            return Err(self.error(ErrorKind::Type, "", span).with_message(message));
        }
        Ok(Value::list(positions.into_iter().map(|position| items[position].clone()).collect()))
    }

    /// `min`/`max` of one iterable or of several arguments, with `key=` and (for an iterable)
    /// `default=`; the first of equal extremes wins, as in Python.
    pub(crate) fn min_max(&self, name: &str, mut arguments: Arguments, span: Span) -> Result<Value> {
        let mut key = None;
        let mut default = None;
        for (keyword, value, keyword_span) in std::mem::take(&mut arguments.keywords) {
            match keyword.as_str() {
                "key" => key = Some((value, keyword_span)),
                "default" => default = Some(value),
                _ => {
                    let message = Message::UnexpectedKeyword { function: name.to_string(), keyword };
                    let help =
                        Message::TakesArguments { function: name.to_string(), names: "iterable, key, default".into() };
                    return Err(self
                        .error(ErrorKind::Type, "", keyword_span)
                        .with_message(message)
                        .with_help_message(help));
                }
            }
        }
        let items = match arguments.positional.len() {
            0 => {
                let message = LibraryMessage::AtLeastArguments { function: name.to_string(), count: 1, given: 0 };
                return Err(self.error(ErrorKind::Type, "", span).with_message(message));
            }
            1 => self.iterate(&arguments.positional[0].0, arguments.positional[0].1)?,
            _ if default.is_some() => {
                let message = LibraryMessage::DefaultSingleIterable { function: name.to_string() };
                return Err(self.error(ErrorKind::Type, "", span).with_message(message));
            }
            _ => arguments.positional.into_iter().map(|(value, _)| value).collect(),
        };
        let key_function =
            key.as_ref().map(|(function, _)| function).filter(|function| !matches!(function, Value::None));
        let key_span = key.as_ref().map_or(span, |(_, key_span)| *key_span);
        let keys = self.keys_of(&items, key_function, key_span)?;
        let mut best: Option<usize> = None;
        for position in 0..items.len() {
            let Some(current) = best else {
                best = Some(position);
                continue;
            };
            let ordering = order(&keys[position], &keys[current]).ok_or_else(|| {
                let message = LibraryMessage::CannotCompare {
                    function: name.to_string(),
                    left: keys[position].type_name().to_string(),
                    right: keys[current].type_name().to_string(),
                };
                self.error(ErrorKind::Type, "", span).with_message(message)
            })?;
            if (name == "min" && ordering.is_lt()) || (name == "max" && ordering.is_gt()) {
                best = Some(position);
            }
        }
        match (best, default) {
            (Some(position), _) => Ok(items[position].clone()),
            (None, Some(default)) => Ok(default),
            (None, None) => Err(self
                .error(ErrorKind::Value, "", span)
                .with_message(crate::messages::RuntimeMessage::EmptySequence { function: name.to_string() })
                .with_help_message(crate::messages::RuntimeMessage::GiveDefault { function: name.to_string() })),
        }
    }

    /// `map(function, *iterables)`: the list of `function` applied to the items side by side (as
    /// far as the shortest iterable goes).
    pub(crate) fn map(&self, arguments: Arguments, span: Span) -> Result<Value> {
        let bound = self.bind("map", &["function"], arguments, true, span)?;
        let function = bound.required(0)?.clone();
        if bound.rest.is_empty() {
            let message = LibraryMessage::AtLeastArguments { function: "map".into(), count: 2, given: 1 };
            return Err(self.error(ErrorKind::Type, "", span).with_message(message));
        }
        let columns: Vec<Vec<Value>> =
            bound.rest.iter().map(|(iterable, at)| self.iterate(iterable, *at)).collect::<Result<_>>()?;
        let count = columns.iter().map(Vec::len).min().unwrap_or(0);
        let mut results = Vec::with_capacity(count);
        for position in 0..count {
            let values = columns.iter().map(|column| column[position].clone()).collect();
            results.push(self.call_values(&function, values, span)?);
        }
        Ok(Value::list(results))
    }

    /// `filter(function, iterable)`: the items for which `function` is true (`None`: the true items).
    pub(crate) fn filter(&self, arguments: Arguments, span: Span) -> Result<Value> {
        let bound = self.bind("filter", &["function", "iterable"], arguments, false, span)?;
        let function = bound.optional(0).cloned();
        let mut kept = Vec::new();
        for item in self.iterate(bound.required(1)?, bound.span_of(1))? {
            let test = match &function {
                Some(function) => self.call_values(function, vec![item.clone()], span)?,
                None => item.clone(),
            };
            if self.truthy(&test, span)? {
                kept.push(item);
            }
        }
        Ok(Value::list(kept))
    }

    /// The sort keys of `items`: `key(item)` for each, or the items themselves.
    fn keys_of(&self, items: &[Value], key: Option<&Value>, span: Span) -> Result<Vec<Value>> {
        match key {
            None => Ok(items.to_vec()),
            Some(function) => items.iter().map(|item| self.call_values(function, vec![item.clone()], span)).collect(),
        }
    }
}
