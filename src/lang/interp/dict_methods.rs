//! The methods of `dict`: `keys`, `values`, `items`, `get`, `copy`, and the ones that change the
//! dict — `update` (a mapping, pairs, keyword arguments), `pop`, `setdefault`, `clear` — which
//! model tests use to build their case parameters (`params.update({"b": 4, "s": 2})`).

use std::cell::RefCell;

use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::interpreter::Interpreter;
use super::operators::values_equal;
use super::value::Value;
use crate::lang::syntax::Span;

/// The dict methods there are.
pub(crate) const DICT_METHODS: [&str; 9] =
    ["keys", "values", "items", "get", "copy", "update", "pop", "setdefault", "clear"];

type Entries = RefCell<Vec<(Value, Value)>>;

impl Interpreter {
    /// Calls `dict.name`.
    pub(crate) fn call_dict_method(
        &self,
        dict: &Value,
        entries: &Entries,
        name: &str,
        arguments: Arguments,
        span: Span,
    ) -> Result<Value> {
        if name == "update" {
            self.dict_update(dict, arguments, span)?;
            return Ok(Value::None);
        }
        let bound = self.bind(name, &["key", "default"], arguments, false, span)?;
        let find = |key: &Value| entries.borrow().iter().position(|(existing, _)| values_equal(existing, key));
        match name {
            "keys" => Ok(Value::list(entries.borrow().iter().map(|(key, _)| key.clone()).collect())),
            "values" => Ok(Value::list(entries.borrow().iter().map(|(_, value)| value.clone()).collect())),
            "items" => Ok(Value::list(
                entries.borrow().iter().map(|(key, value)| Value::tuple(vec![key.clone(), value.clone()])).collect(),
            )),
            "copy" => Ok(Value::dict(entries.borrow().clone())),
            "clear" => {
                entries.borrow_mut().clear();
                Ok(Value::None)
            }
            "pop" => {
                let key = bound.required(0)?;
                match (find(key), bound.values[1].as_ref()) {
                    (Some(index), _) => Ok(entries.borrow_mut().remove(index).1),
                    (None, Some((default, _))) => Ok(default.clone()),
                    (None, None) => {
                        let message = crate::messages::RuntimeMessage::MissingKey { key: super::format::repr(key) };
                        Err(self.error(ErrorKind::Index, "", bound.span_of(0)).with_message(message))
                    }
                }
            }
            "setdefault" => {
                let key = bound.required(0)?;
                if let Some(index) = find(key) {
                    return Ok(entries.borrow()[index].1.clone());
                }
                let default = bound.optional(1).cloned().unwrap_or(Value::None);
                self.set_item(dict, key, default.clone(), bound.span_of(0))?;
                Ok(default)
            }
            _ => {
                let key = bound.required(0)?;
                let found = find(key).map(|index| entries.borrow()[index].1.clone());
                Ok(found.unwrap_or_else(|| bound.optional(1).cloned().unwrap_or(Value::None)))
            }
        }
    }

    /// `dict.update(other=(), **keywords)`: `other` a dict or pairs, then the keywords, each
    /// replacing the value of a key already there (which keeps its place) or added at the end.
    fn dict_update(&self, dict: &Value, arguments: Arguments, span: Span) -> Result<()> {
        let Arguments { positional, keywords } = arguments;
        if positional.len() > 1 {
            self.bind("update", &["other"], Arguments { positional, keywords: Vec::new() }, false, span)?;
            return Ok(());
        }
        if let Some((other, other_span)) = positional.into_iter().next() {
            let pairs = match &other {
                Value::Dict(source) => source.borrow().clone(),
                _ => {
                    let mut pairs = Vec::new();
                    for item in self.iterate(&other, other_span)? {
                        let parts = self.iterate(&item, other_span)?;
                        let [key, value] = <[Value; 2]>::try_from(parts).map_err(|parts| {
                            let message = crate::messages::OperationMessage::UpdateSequence { length: parts.len() };
                            self.coded(ErrorKind::Value, message, other_span)
                        })?;
                        pairs.push((key, value));
                    }
                    pairs
                }
            };
            for (key, value) in pairs {
                self.set_item(dict, &key, value, other_span)?;
            }
        }
        for (key, value, key_span) in keywords {
            self.set_item(dict, &Value::string(key), value, key_span)?;
        }
        Ok(())
    }
}
