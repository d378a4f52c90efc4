//! `re`: `match`, `search`, `fullmatch`, `findall`, `sub`, `split`, `escape` and the match object
//! (`group`, `groups`, `start`, `end`, `span`), over the engine in `regex.rs`. Model tests parse
//! their option strings with it (`re.match(r"uniform\[\s*([-+]?[0-9]*\.?[0-9]+)…", spec)`).

use std::rc::Rc;

use super::regex::{self, Regex, Spans};
use crate::lang::interp::call::Bound;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::format::to_str;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryHostMessage, LibraryMessage};

/// The text a match was found in and the spans of its groups (char positions).
#[derive(Debug, Clone)]
pub struct RegexMatch {
    text: Vec<char>,
    spans: Spans,
}

/// The methods of a match object.
pub(crate) const MATCH_METHODS: [&str; 5] = ["group", "groups", "start", "end", "span"];

impl RegexMatch {
    /// Python's `<re.Match object; span=(0, 5), match='hello'>`.
    pub(crate) fn repr(&self) -> String {
        let (start, end) = self.spans[0].unwrap_or((0, 0));
        let matched: String = self.text[start..end].iter().collect();
        format!("<re.Match object; span=({start}, {end}), match={}>", crate::lang::interp::format::quote(&matched))
    }

    fn group(&self, number: usize) -> Value {
        match self.spans.get(number).copied().flatten() {
            Some((start, end)) => Value::string(self.text[start..end].iter().collect::<String>()),
            None => Value::None,
        }
    }
}

/// The value of the `re` constant `name` (its flags).
pub(crate) fn constant(name: &str) -> Option<Value> {
    let flag = match name {
        "IGNORECASE" | "I" => regex::IGNORECASE,
        "MULTILINE" | "M" => regex::MULTILINE,
        "DOTALL" | "S" => regex::DOTALL,
        _ => return None,
    };
    Some(Value::Int(flag))
}

/// The str argument `index`.
fn text(interpreter: &Interpreter, bound: &Bound, index: usize) -> Result<String> {
    match bound.required(index)? {
        Value::Str(text) => Ok(text.to_string()),
        _ => {
            let message = LibraryMessage::Needs { function: format!("{}()", bound.function), what: Kind::Str };
            Err(interpreter.error(ErrorKind::Type, "", bound.span_of(index)).with_message(message))
        }
    }
}

/// Compiles the pattern (argument 0) with the flags argument `flags`.
fn compile(interpreter: &Interpreter, bound: &Bound, flags: usize) -> Result<Regex> {
    let pattern = text(interpreter, bound, 0)?;
    let flags = bound.int(flags, Some(0))?;
    Regex::new(&pattern, flags).map_err(|error| {
        let message = LibraryHostMessage::RegexPattern { reason: error.message, position: error.position, pattern };
        interpreter.error(ErrorKind::Value, "", bound.span_of(0)).with_message(message)
    })
}

/// Calls `re.name`.
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let short = name.strip_prefix("re.").unwrap_or(name);
    match short {
        "match" | "search" | "fullmatch" => {
            let bound = interpreter.bind(name, &["pattern", "string", "flags"], arguments, false, span)?;
            let regex = compile(interpreter, &bound, 2)?;
            let text: Vec<char> = text(interpreter, &bound, 1)?.chars().collect();
            let found = regex.find(&text, 0, short != "search", short == "fullmatch", false);
            Ok(found
                .map_or(Value::None, |spans| Value::Object(Rc::new(Object::RegexMatch(RegexMatch { text, spans })))))
        }
        "findall" => {
            let bound = interpreter.bind(name, &["pattern", "string", "flags"], arguments, false, span)?;
            let regex = compile(interpreter, &bound, 2)?;
            let text: Vec<char> = text(interpreter, &bound, 1)?.chars().collect();
            let items = matches(&regex, &text, 0)
                .into_iter()
                .map(|spans| {
                    let found = RegexMatch { text: text.clone(), spans };
                    match regex.groups {
                        0 => found.group(0),
                        1 => text_or_empty(found.group(1)),
                        groups => Value::tuple((1..=groups).map(|number| text_or_empty(found.group(number))).collect()),
                    }
                })
                .collect();
            Ok(Value::list(items))
        }
        "sub" => {
            let bound =
                interpreter.bind(name, &["pattern", "repl", "string", "count", "flags"], arguments, false, span)?;
            let regex = compile(interpreter, &bound, 4)?;
            let replacement = text(interpreter, &bound, 1)?;
            let text: Vec<char> = text(interpreter, &bound, 2)?.chars().collect();
            let count = bound.int(3, Some(0))?.max(0) as usize;
            let mut out = String::new();
            let mut last = 0;
            for spans in matches(&regex, &text, count) {
                let (start, end) = spans[0].unwrap_or((last, last));
                out.extend(&text[last..start]);
                out.push_str(&expand(&replacement, &RegexMatch { text: text.clone(), spans }));
                last = end;
            }
            out.extend(&text[last..]);
            Ok(Value::string(out))
        }
        "split" => {
            let bound = interpreter.bind(name, &["pattern", "string", "maxsplit", "flags"], arguments, false, span)?;
            let regex = compile(interpreter, &bound, 3)?;
            let text: Vec<char> = text(interpreter, &bound, 1)?.chars().collect();
            let count = bound.int(2, Some(0))?.max(0) as usize;
            let mut items = Vec::new();
            let mut last = 0;
            for spans in matches(&regex, &text, count) {
                let (start, end) = spans[0].unwrap_or((last, last));
                items.push(Value::string(text[last..start].iter().collect::<String>()));
                let found = RegexMatch { text: text.clone(), spans };
                items.extend((1..=regex.groups).map(|number| found.group(number)));
                last = end;
            }
            items.push(Value::string(text[last..].iter().collect::<String>()));
            Ok(Value::list(items))
        }
        _ => {
            // `re.escape(pattern)`: every char but letters, digits and `_` escaped.
            let bound = interpreter.bind(name, &["pattern"], arguments, false, span)?;
            let mut out = String::new();
            for c in text(interpreter, &bound, 0)?.chars() {
                if !(c.is_alphanumeric() || c == '_' || !c.is_ascii()) {
                    out.push('\\');
                }
                out.push(c);
            }
            Ok(Value::string(out))
        }
    }
}

fn text_or_empty(value: Value) -> Value {
    if matches!(value, Value::None) {
        Value::string("")
    } else {
        value
    }
}

/// The non-overlapping matches left to right (at most `count`, 0 for all). After an empty match
/// the next one must not be empty at the same place (CPython's rule: `re.sub("x*", "-", "abxd")`
/// is `-a-b--d-`).
fn matches(regex: &Regex, text: &[char], count: usize) -> Vec<Spans> {
    let mut found = Vec::new();
    let mut at = 0;
    let mut must_advance = false;
    while at <= text.len() && (count == 0 || found.len() < count) {
        let Some(spans) = regex.find(text, at, false, false, must_advance) else { break };
        let (start, end) = spans[0].unwrap_or((at, at));
        must_advance = start == end;
        at = end;
        found.push(spans);
    }
    found
}

/// A replacement template: `\1` … `\99`, `\g<n>`, and the usual char escapes.
fn expand(template: &str, found: &RegexMatch) -> String {
    let chars: Vec<char> = template.chars().collect();
    let mut out = String::new();
    let mut index = 0;
    let group_text = |number: usize| match &found.group(number) {
        Value::Str(text) => text.to_string(),
        _ => String::new(),
    };
    while index < chars.len() {
        let c = chars[index];
        index += 1;
        if c != '\\' || index == chars.len() {
            out.push(c);
            continue;
        }
        let next = chars[index];
        index += 1;
        match next {
            '0'..='9' => {
                let mut number = next.to_digit(10).unwrap_or(0) as usize;
                if chars.get(index).is_some_and(|c| c.is_ascii_digit()) {
                    number = number * 10 + chars[index].to_digit(10).unwrap_or(0) as usize;
                    index += 1;
                }
                out.push_str(&group_text(number));
            }
            'g' if chars.get(index) == Some(&'<') => {
                let close = chars[index..].iter().position(|c| *c == '>').map_or(chars.len(), |offset| index + offset);
                let digits: String = chars[index + 1..close].iter().collect();
                out.push_str(&group_text(digits.parse().unwrap_or(0)));
                index = close + 1;
            }
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '\\' => out.push('\\'),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// `match.name` (a method, bound to the match).
pub(crate) fn attribute(value: &Value, name: &str) -> Option<Value> {
    MATCH_METHODS.contains(&name).then(|| Value::Method(Rc::new((value.clone(), name.to_string()))))
}

/// Calls a method of a match object.
pub(crate) fn call_method(
    interpreter: &Interpreter,
    found: &RegexMatch,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    let full = format!("Match.{name}");
    let group_number = |value: &Value, span: Span| -> Result<usize> {
        match value.as_int() {
            Some(number) if number >= 0 && (number as usize) < found.spans.len() => Ok(number as usize),
            _ => Err(interpreter
                .error(ErrorKind::Index, "", span)
                .with_message(LibraryHostMessage::NoSuchGroup { group: to_str(value) })),
        }
    };
    match name {
        "group" => {
            let (numbers, _) = interpreter.bind_keywords(&full, &[], arguments, span)?;
            match numbers.as_slice() {
                [] => Ok(found.group(0)),
                [(value, span)] => Ok(found.group(group_number(value, *span)?)),
                many => {
                    let items = many
                        .iter()
                        .map(|(value, span)| group_number(value, *span).map(|number| found.group(number)))
                        .collect::<Result<Vec<_>>>()?;
                    Ok(Value::tuple(items))
                }
            }
        }
        "groups" => {
            let bound = interpreter.bind(&full, &["default"], arguments, false, span)?;
            let default = bound.optional(0).cloned().unwrap_or(Value::None);
            let items = (1..found.spans.len())
                .map(|number| match found.group(number) {
                    Value::None => default.clone(),
                    text => text,
                })
                .collect();
            Ok(Value::tuple(items))
        }
        _ => {
            let bound = interpreter.bind(&full, &["group"], arguments, false, span)?;
            let number = match bound.optional(0) {
                Some(value) => group_number(value, bound.span_of(0))?,
                None => 0,
            };
            // A group that took no part spans (-1, -1), as in Python.
            let (start, end) = found.spans[number].map_or((-1, -1), |(start, end)| (start as i64, end as i64));
            Ok(match name {
                "start" => Value::Int(start),
                "end" => Value::Int(end),
                _ => Value::tuple(vec![Value::Int(start), Value::Int(end)]),
            })
        }
    }
}
