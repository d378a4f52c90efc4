//! The methods of strings (`s.split()`, `s.replace(a, b)`, `s.format(…)` …).

use crate::messages::OperationMessage;

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
        let bound = self.bind(name, &["a", "b"], arguments, false, span)?;
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
            "splitlines" => Value::list(text.lines().map(Value::string).collect()),
            "find" | "rfind" | "index" | "rindex" => {
                let needle = text_argument(0)?;
                let found =
                    if name.starts_with('r') { text.rfind(needle.as_str()) } else { text.find(needle.as_str()) };
                match found {
                    Some(byte) => Value::Int(text[..byte].chars().count() as i64),
                    None if name.ends_with("find") => Value::Int(-1),
                    None => {
                        let text = "substring not found".to_string();
                        return Err(self.coded(ErrorKind::Value, crate::messages::Message::Text { text }, span));
                    }
                }
            }
            "count" => {
                let needle = text_argument(0)?;
                let count =
                    if needle.is_empty() { text.chars().count() + 1 } else { text.matches(needle.as_str()).count() };
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
                let fill = match bound.optional(1) {
                    Some(_) if name != "zfill" => text_argument(1)?.chars().next().unwrap_or(' '),
                    _ => {
                        if name == "zfill" {
                            '0'
                        } else {
                            ' '
                        }
                    }
                };
                Value::string(pad_text(text, name, width, fill))
            }
            "removeprefix" => Value::string(text.strip_prefix(text_argument(0)?.as_str()).unwrap_or(text)),
            "removesuffix" => Value::string(text.strip_suffix(text_argument(0)?.as_str()).unwrap_or(text)),
            "startswith" => Value::Bool(text.starts_with(text_argument(0)?.as_str())),
            "endswith" => Value::Bool(text.ends_with(text_argument(0)?.as_str())),
            _ => {
                let replaced = text.replace(text_argument(0)?.as_str(), text_argument(1)?.as_str());
                self.check_string(replaced.len(), span)?;
                Value::string(replaced)
            }
        })
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
