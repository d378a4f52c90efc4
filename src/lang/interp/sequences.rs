//! Indexing strings and ranges without materialising them: `s[i]` on a long string and `r[i]` on a
//! huge range are O(1) (they used to build every character or item first, O(n) per index). A
//! string's length in characters and whether it is ASCII are remembered for the last few long
//! strings, so a loop over `s[i]` and `len(s)` does not rescan it. Also iteration, which
//! materialises the items of any iterable.

use crate::messages::OperationMessage;
use std::rc::{Rc, Weak};

use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::interpreter::Interpreter;
use super::value::Value;
use crate::lang::syntax::Span;
use crate::tensor::SliceSpec;

/// Strings shorter than this are scanned each time (cheaper than the cache).
const CACHED_TEXT_BYTES: usize = 4096;
/// How many long strings the cache remembers.
const CACHED_TEXTS: usize = 4;

/// What the interpreter remembers of one long string.
pub(crate) struct TextFacts {
    text: Weak<str>,
    ascii: bool,
    characters: usize,
}

impl Interpreter {
    /// The items of an iterable value (materialised; bounded by the list limit).
    pub(crate) fn iterate(&self, value: &Value, span: Span) -> Result<Vec<Value>> {
        if let Value::Object(object) = value {
            if let super::value::Object::TextFile(file) = object.as_ref() {
                return super::host::files::iterate(self, file, span);
            }
        }
        match value {
            Value::List(items) => Ok(items.borrow().clone()),
            Value::Tuple(items) => Ok(items.as_ref().clone()),
            Value::Dict(entries) => Ok(entries.borrow().iter().map(|(key, _)| key.clone()).collect()),
            Value::Set(members) => Ok(members.borrow().clone()),
            Value::Str(text) => Ok(text.chars().map(|c| Value::string(c.to_string())).collect()),
            Value::Range(start, stop, step) => {
                let count = range_length(*start, *stop, *step);
                self.check_items(usize::try_from(count).unwrap_or(usize::MAX), span)?;
                Ok((0..count).map(|index| Value::Int((*start as i128 + index * *step as i128) as i64)).collect())
            }
            Value::Tensor(object) => self.tensor_rows(&object.get(), span),
            // `for _ in recorder:` inside `with pypto.function(…) as recorder:` is one pass of the block.
            Value::Object(object) if matches!(object.as_ref(), super::value::Object::RecordFunction { .. }) => {
                Ok(vec![Value::None])
            }
            Value::Instance(instance) if instance.is_named_tuple() => Ok(instance.field_values().unwrap_or_default()),
            Value::Class(class) if super::classes::enumeration::member_type(class).is_some() => {
                Ok(super::classes::enumeration::members(class))
            }
            other => Err(self.coded(
                ErrorKind::Type,
                OperationMessage::NotIterable { type_name: other.type_name().into() },
                span,
            )),
        }
    }

    /// Whether `text` is ASCII and its length in characters (scans a long string once, charged).
    pub(crate) fn text_facts(&self, text: &Rc<str>, span: Span) -> Result<(bool, usize)> {
        if text.len() < CACHED_TEXT_BYTES {
            return Ok((text.is_ascii(), text.chars().count()));
        }
        let mut cache = self.text_cache.borrow_mut();
        let known = cache.iter().find(|facts| facts.text.upgrade().is_some_and(|held| Rc::ptr_eq(&held, text)));
        if let Some(facts) = known {
            return Ok((facts.ascii, facts.characters));
        }
        self.charge_bytes(text.len(), span)?;
        let facts = TextFacts { text: Rc::downgrade(text), ascii: text.is_ascii(), characters: text.chars().count() };
        let answer = (facts.ascii, facts.characters);
        cache.retain(|facts| facts.text.strong_count() > 0);
        if cache.len() >= CACHED_TEXTS {
            cache.remove(0);
        }
        cache.push(facts);
        Ok(answer)
    }

    /// `text[index]` for an int index: O(1) on ASCII text.
    pub(crate) fn text_item(&self, text: &Rc<str>, index: &Value, span: Span) -> Result<Value> {
        let (ascii, characters) = self.text_facts(text, span)?;
        let position = self.sequence_index(characters, index, span)?;
        if ascii {
            return Ok(Value::string(&text[position..position + 1]));
        }
        self.charge_bytes(text.len(), span)?;
        let character = text.chars().nth(position).unwrap_or_default();
        Ok(Value::string(character.to_string()))
    }

    /// `range(start, stop, step)[index]`: an int, or a range for a slice (as in Python).
    pub(crate) fn range_item(&self, start: i64, stop: i64, step: i64, index: &Value, span: Span) -> Result<Value> {
        let length = range_length(start, stop, step);
        let at = |position: i128| (start as i128 + position * step as i128) as i64;
        if let Value::Slice(bounds) = index {
            // The slice arithmetic works on i64 lengths; a wider range cannot be sliced (Python cannot either).
            let length = i64::try_from(length)
                .ok()
                .and_then(|length| usize::try_from(length).ok())
                .ok_or_else(|| self.range_too_long(span))?;
            let [first, last, stride] = &**bounds;
            let stride = super::subscript::clamp_step(*stride, length);
            let spec = SliceSpec::from_python(*first, *last, stride, length).map_err(|_| self.slice_step_zero(span))?;
            let new_step = (spec.step as i128 * step as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            let new_start = at(spec.start as i128);
            let new_stop = (new_start as i128 + spec.count as i128 * new_step as i128) as i64;
            return Ok(Value::Range(new_start, new_stop, new_step));
        }
        let Some(raw) = index.as_int() else {
            let message = crate::messages::RuntimeMessage::IndexType { got: index.type_name().into() };
            return Err(self.coded(ErrorKind::Type, message, span));
        };
        let resolved = if raw < 0 { raw as i128 + length } else { raw as i128 };
        if resolved < 0 || resolved >= length {
            let length = usize::try_from(length).unwrap_or(usize::MAX);
            let message = crate::messages::RuntimeMessage::IndexOutOfRange { index: raw, length };
            return Err(self.coded(ErrorKind::Index, message, span));
        }
        Ok(Value::Int(at(resolved)))
    }

    /// Python's `OverflowError` for a range whose length does not fit in 64 bits.
    pub(crate) fn range_too_long(&self, span: Span) -> super::error::RuntimeError {
        self.coded(ErrorKind::Overflow, OperationMessage::RangeTooLong, span)
            .with_help_message(OperationMessage::IterateRange)
    }
}

impl Interpreter {
    /// `zip(a, b, c, …)` of three or more iterables: tuples up to the shortest input.
    pub(crate) fn zip_many(&self, arguments: &super::eval::Arguments) -> Result<Value> {
        let mut columns = Vec::with_capacity(arguments.positional.len());
        for (value, value_span) in &arguments.positional {
            columns.push(self.iterate(value, *value_span)?);
        }
        let rows = columns.iter().map(Vec::len).min().unwrap_or(0);
        let mut columns: Vec<std::vec::IntoIter<Value>> = columns.into_iter().map(Vec::into_iter).collect();
        let tuples = (0..rows).map(|_| Value::tuple(columns.iter_mut().filter_map(Iterator::next).collect())).collect();
        Ok(Value::list(tuples))
    }
}

impl Interpreter {
    /// `dict()`, `dict(mapping)`, `dict(pairs)`, then `key=value` keywords (a later key replaces
    /// an earlier one's value, keeping its place, as Python's dicts do).
    pub(crate) fn dict_builtin(&self, arguments: Arguments, span: Span) -> Result<Value> {
        let Arguments { positional, keywords } = arguments;
        let mut items: Vec<(Value, Value)> = Vec::new();
        let mut insert = |key: Value, value: Value| match items
            .iter_mut()
            .find(|(existing, _)| super::operators::values_equal(existing, &key))
        {
            Some(slot) => slot.1 = value,
            None => items.push((key, value)),
        };
        if positional.len() > 1 {
            return Err(self.error(ErrorKind::Type, "", span).with_message(crate::messages::Message::Text {
                text: format!("dict expected at most 1 argument, got {}", positional.len()),
            }));
        }
        if let Some((source, source_span)) = positional.into_iter().next() {
            if let Value::Dict(mapping) = &source {
                for (key, value) in mapping.borrow().iter() {
                    insert(key.clone(), value.clone());
                }
            } else {
                for pair in self.iterate(&source, source_span)? {
                    let parts = self.iterate(&pair, source_span)?;
                    let [key, value] = <[Value; 2]>::try_from(parts).map_err(|parts| {
                        self.error(ErrorKind::Value, "", source_span).with_message(crate::messages::Message::Text {
                            text: format!(
                                "dictionary update sequence element has length {}; 2 is required",
                                parts.len()
                            ),
                        })
                    })?;
                    insert(key, value);
                }
            }
        }
        for (name, value, _) in keywords {
            insert(Value::string(name), value);
        }
        Ok(Value::dict(items))
    }
}

/// The number of values of `range(start, stop, step)` (`step` ≠ 0); up to 2**64 − 1, so wider
/// than an `i64` (`range(-2**63, 2**63 - 1)` has 2**64 − 1 values).
pub fn range_length(start: i64, stop: i64, step: i64) -> i128 {
    if step > 0 && stop > start {
        (stop as i128 - start as i128 + step as i128 - 1) / step as i128
    } else if step < 0 && start > stop {
        (start as i128 - stop as i128 - step as i128 - 1) / (-(step as i128))
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_lengths_match_python() {
        // len(range(0, 10, 3)) = |{0,3,6,9}| = 4; len(range(10, 0, -3)) = |{10,7,4,1}| = 4.
        assert_eq!(range_length(0, 10, 3), 4);
        assert_eq!(range_length(10, 0, -3), 4);
        assert_eq!(range_length(5, 5, 1), 0);
        assert_eq!(range_length(0, 10, -1), 0);
        // The widest range: 2**64 - 1 values, more than an i64 holds.
        assert_eq!(range_length(i64::MIN, i64::MAX, 1), (1i128 << 64) - 1);
    }
}
