//! The methods of strings (`s.split()`, `s.replace(a, b)`, `s.format(…)` …).

use crate::messages::OperationMessage;

use super::call::Bound;
use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::interpreter::Interpreter;
use super::value::Value;
use crate::lang::syntax::Span;

/// The methods strings have.
pub(crate) const STRING_METHODS: &[&str] = &[
    "join",
    "upper",
    "lower",
    "strip",
    "lstrip",
    "rstrip",
    "split",
    "rsplit",
    "splitlines",
    "startswith",
    "endswith",
    "replace",
    "format",
    "find",
    "rfind",
    "index",
    "rindex",
    "count",
    "partition",
    "rpartition",
    "isdigit",
    "isalpha",
    "isalnum",
    "isspace",
    "isupper",
    "islower",
    "title",
    "capitalize",
    "zfill",
    "ljust",
    "rjust",
    "center",
    "removeprefix",
    "removesuffix",
];

impl Interpreter {
    pub(crate) fn call_string_method(&self, text: &str, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
        if name == "format" {
            return self.format_string(text, arguments, span);
        }
        // Python's parameter names; only split, rsplit, splitlines and replace's count take keywords.
        let names: &[&str] = match name {
            "split" | "rsplit" => &["sep", "maxsplit"],
            "splitlines" => &["keepends"],
            "replace" => &["old", "new", "count"],
            "find" | "rfind" | "index" | "rindex" | "count" => &["sub", "start", "end"],
            "startswith" => &["prefix", "start", "end"],
            "endswith" => &["suffix", "start", "end"],
            "zfill" => &["width"],
            "ljust" | "rjust" | "center" => &["width", "fillchar"],
            "strip" | "lstrip" | "rstrip" => &["chars"],
            "join" => &["iterable"],
            "partition" | "rpartition" => &["sep"],
            "removeprefix" => &["prefix"],
            "removesuffix" => &["suffix"],
            _ => &[],
        };
        let keywords_allowed = |keyword: &str| {
            matches!((name, keyword), ("split" | "rsplit", _) | ("splitlines", _) | ("replace", "count"))
        };
        if let Some((keyword, _, keyword_span)) =
            arguments.keywords.iter().find(|(keyword, ..)| !keywords_allowed(keyword))
        {
            let message = if names.contains(&keyword.as_str()) {
                OperationMessage::NoKeywords { function: name.into() }.into()
            } else {
                crate::messages::Message::UnexpectedKeyword { function: name.into(), keyword: keyword.clone() }
            };
            return Err(self.coded(ErrorKind::Type, message, *keyword_span));
        }
        let bound = self.bind(name, names, arguments, false, span)?;
        let text_argument = |index: usize| -> Result<String> {
            match bound.required(index)? {
                Value::Str(argument) => Ok(argument.to_string()),
                other => Err(self.coded(
                    ErrorKind::Type,
                    OperationMessage::StrNeedsString { method: name.into(), got: other.type_name().into() },
                    span,
                )),
            }
        };
        Ok(match name {
            "join" => {
                let parts = self.iterate(bound.required(0)?, span)?;
                let pieces: Result<Vec<String>> = parts
                    .iter()
                    .map(|part| match part {
                        Value::Str(piece) => Ok(piece.to_string()),
                        other => Err(self.coded(
                            ErrorKind::Type,
                            OperationMessage::JoinItems { got: other.type_name().into() },
                            span,
                        )),
                    })
                    .collect();
                let joined = pieces?.join(text);
                self.check_string(joined.len(), span)?;
                Value::string(joined)
            }
            "upper" => Value::string(text.to_uppercase()),
            "lower" => Value::string(text.to_lowercase()),
            "strip" | "lstrip" | "rstrip" => {
                let characters = match bound.optional(0) {
                    None | Some(Value::None) => None,
                    Some(_) => Some(text_argument(0)?),
                };
                let strip = |character: char| match &characters {
                    None => character.is_whitespace(),
                    Some(set) => set.contains(character),
                };
                Value::string(match name {
                    "strip" => text.trim_matches(strip),
                    "lstrip" => text.trim_start_matches(strip),
                    _ => text.trim_end_matches(strip),
                })
            }
            "split" | "rsplit" => {
                let separator = match bound.optional(0) {
                    None | Some(Value::None) => None,
                    Some(_) => Some(text_argument(0)?),
                };
                let most = bound.int(1, Some(-1))?;
                let most = if most < 0 { usize::MAX } else { most as usize };
                Value::list(self.split_text(text, separator.as_deref(), most, name == "rsplit", span)?)
            }
            "splitlines" => {
                let keep_ends = match bound.optional(0) {
                    Some(value) => self.truthy(value, span)?,
                    None => false,
                };
                Value::list(split_lines(text, keep_ends).into_iter().map(Value::string).collect())
            }
            "find" | "rfind" | "index" | "rindex" => {
                let needle = text_argument(0)?;
                let window = self.char_window(text, &bound)?;
                let found = window.and_then(|(window, offset)| {
                    let byte = if name.starts_with('r') {
                        window.rfind(needle.as_str())
                    } else {
                        window.find(needle.as_str())
                    };
                    byte.map(|byte| offset + window[..byte].chars().count())
                });
                match found {
                    Some(index) => Value::Int(index as i64),
                    None if name.ends_with("find") => Value::Int(-1),
                    None => {
                        let text = "substring not found".to_string();
                        return Err(self.coded(ErrorKind::Value, crate::messages::Message::Text { text }, span));
                    }
                }
            }
            "count" => {
                let needle = text_argument(0)?;
                let count = match self.char_window(text, &bound)? {
                    None => 0,
                    Some((window, _)) if needle.is_empty() => window.chars().count() + 1,
                    Some((window, _)) => window.matches(needle.as_str()).count(),
                };
                Value::Int(count as i64)
            }
            "partition" | "rpartition" => {
                let separator = text_argument(0)?;
                if separator.is_empty() {
                    return Err(self.coded(ErrorKind::Value, OperationMessage::EmptySeparator, span));
                }
                let parts = if name == "partition" {
                    text.split_once(separator.as_str())
                } else {
                    text.rsplit_once(separator.as_str())
                };
                let (before, middle, after) = match parts {
                    Some((before, after)) => (before, separator.as_str(), after),
                    None if name == "partition" => (text, "", ""),
                    None => ("", "", text),
                };
                Value::tuple(vec![Value::string(before), Value::string(middle), Value::string(after)])
            }
            "isdigit" | "isalpha" | "isalnum" | "isspace" | "isupper" | "islower" => {
                let test: fn(char) -> bool = match name {
                    "isdigit" => |character| character.is_ascii_digit(),
                    "isalpha" => char::is_alphabetic,
                    "isalnum" => char::is_alphanumeric,
                    "isspace" => char::is_whitespace,
                    "isupper" => |character| !character.is_lowercase(),
                    _ => |character| !character.is_uppercase(),
                };
                let cased = !matches!(name, "isupper" | "islower") || text.chars().any(char::is_alphabetic);
                Value::Bool(!text.is_empty() && cased && text.chars().all(test))
            }
            "title" | "capitalize" => Value::string(change_case(text, name == "title")),
            "zfill" | "ljust" | "rjust" | "center" => {
                let width = bound.int(0, None)?.max(0) as usize;
                self.check_string(width, span)?;
                let fill = match name {
                    "zfill" => '0',
                    _ if bound.optional(1).is_some() => text_argument(1)?.chars().next().unwrap_or(' '),
                    _ => ' ',
                };
                Value::string(pad_text(text, name, width, fill))
            }
            "removeprefix" => Value::string(text.strip_prefix(text_argument(0)?.as_str()).unwrap_or(text)),
            "removesuffix" => Value::string(text.strip_suffix(text_argument(0)?.as_str()).unwrap_or(text)),
            "startswith" | "endswith" => {
                // A tuple of prefixes (suffixes) matches when any of them does.
                let candidates = match bound.required(0)? {
                    Value::Tuple(items) => items.iter().cloned().collect(),
                    other => vec![other.clone()],
                };
                let window = self.char_window(text, &bound)?;
                let mut matched = false;
                for candidate in candidates {
                    let Value::Str(affix) = &candidate else {
                        let got = candidate.type_name().into();
                        return Err(self.coded(
                            ErrorKind::Type,
                            OperationMessage::StrNeedsString { method: name.into(), got },
                            span,
                        ));
                    };
                    matched = window.is_some_and(|(window, _)| {
                        if name == "startswith" {
                            window.starts_with(&**affix)
                        } else {
                            window.ends_with(&**affix)
                        }
                    });
                    // Python stops at the first that matches (a later one is not even type-checked).
                    if matched {
                        break;
                    }
                }
                Value::Bool(matched)
            }
            _ => {
                let (old, new) = (text_argument(0)?, text_argument(1)?);
                let most = bound.int(2, Some(-1))?;
                let replaced = if most < 0 {
                    text.replace(old.as_str(), &new)
                } else {
                    text.replacen(old.as_str(), &new, most as usize)
                };
                self.check_string(replaced.len(), span)?;
                Value::string(replaced)
            }
        })
    }

    /// The part of `text` between the optional `start` and `end` arguments (bound at 1 and 2), in
    /// characters with slice rules (negative from the end, clamped), and its first character's
    /// index; `None` when `start` lies beyond the end (Python finds nothing there, not even "").
    fn char_window<'t>(&self, text: &'t str, bound: &Bound) -> Result<Option<(&'t str, usize)>> {
        let length = text.chars().count() as i64;
        let position = |index: usize| -> Result<Option<i64>> {
            Ok(match bound.optional(index) {
                None | Some(Value::None) => None,
                Some(_) => {
                    let value = bound.int(index, None)?;
                    Some(if value < 0 { (value + length).max(0) } else { value })
                }
            })
        };
        let start = position(1)?.unwrap_or(0);
        if start > length {
            return Ok(None);
        }
        let end = position(2)?.unwrap_or(length).clamp(start, length);
        let byte = |characters: i64| text.char_indices().nth(characters as usize).map_or(text.len(), |(byte, _)| byte);
        Ok(Some((&text[byte(start)..byte(end)], start as usize)))
    }

    /// `text.split(separator, most)` (`rsplit` from the right): runs of whitespace without a separator.
    fn split_text(
        &self,
        text: &str,
        separator: Option<&str>,
        most: usize,
        right: bool,
        span: Span,
    ) -> Result<Vec<Value>> {
        let pieces: Vec<&str> = match separator {
            Some("") => return Err(self.coded(ErrorKind::Value, OperationMessage::EmptySeparator, span)),
            Some(separator) if right => {
                let mut pieces: Vec<&str> = text.rsplitn(most.saturating_add(1), separator).collect();
                pieces.reverse();
                pieces
            }
            Some(separator) => text.splitn(most.saturating_add(1), separator).collect(),
            None => {
                let words: Vec<&str> = text.split_whitespace().collect();
                if most >= words.len() {
                    words
                } else if right {
                    // The first words stay together, with their inner whitespace.
                    let kept = &words[..words.len() - most];
                    let end =
                        kept.last().map_or(0, |last| last.as_ptr() as usize - text.as_ptr() as usize + last.len());
                    let mut pieces = vec![text[..end].trim_start()];
                    pieces.extend(&words[words.len() - most..]);
                    pieces
                } else {
                    let start = words[most].as_ptr() as usize - text.as_ptr() as usize;
                    let mut pieces = words[..most].to_vec();
                    pieces.push(text[start..].trim_end());
                    pieces
                }
            }
        };
        Ok(pieces.into_iter().map(Value::string).collect())
    }
}

/// `str.splitlines(keepends)`: Python's line boundaries (\n, \r, \r\n, \v, \f, \x1c–\x1e, \x85,
/// \u2028, \u2029), the boundary kept at the end of each line when `keep_ends`.
fn split_lines(text: &str, keep_ends: bool) -> Vec<&str> {
    let is_boundary = |character: char| {
        matches!(
            character,
            '\n' | '\r' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}'
        )
    };
    let mut lines = Vec::new();
    let mut line_start = 0;
    let mut characters = text.char_indices().peekable();
    while let Some((byte, character)) = characters.next() {
        if !is_boundary(character) {
            continue;
        }
        let mut boundary_end = byte + character.len_utf8();
        if character == '\r' && characters.peek().is_some_and(|&(_, next)| next == '\n') {
            characters.next();
            boundary_end += 1;
        }
        lines.push(&text[line_start..if keep_ends { boundary_end } else { byte }]);
        line_start = boundary_end;
    }
    if line_start < text.len() {
        lines.push(&text[line_start..]);
    }
    lines
}

/// `str.title()` (every word capitalised) or `str.capitalize()` (the first character only).
fn change_case(text: &str, every_word: bool) -> String {
    let mut result = String::with_capacity(text.len());
    let mut word_start = true;
    for (index, character) in text.chars().enumerate() {
        let upper = if every_word { word_start } else { index == 0 };
        if upper {
            result.extend(character.to_uppercase());
        } else {
            result.extend(character.to_lowercase());
        }
        word_start = !character.is_alphabetic();
    }
    result
}

/// `zfill`, `ljust`, `rjust` and `center` to `width` characters with `fill`.
fn pad_text(text: &str, name: &str, width: usize, fill: char) -> String {
    let length = text.chars().count();
    if length >= width {
        return text.to_string();
    }
    let missing = width - length;
    let run = |count: usize| std::iter::repeat_n(fill, count).collect::<String>();
    match name {
        "zfill" => match text.strip_prefix(['-', '+']) {
            Some(digits) => format!("{}{}{digits}", &text[..1], run(missing)),
            None => format!("{}{text}", run(missing)),
        },
        "ljust" => format!("{text}{}", run(missing)),
        "rjust" => format!("{}{text}", run(missing)),
        // Python puts the odd character on the right unless the width is odd and the text even.
        _ => {
            let left = missing / 2 + (missing & width & 1);
            format!("{}{text}{}", run(left), run(missing - left))
        }
    }
}
