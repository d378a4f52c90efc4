//! The methods of strings (`s.split()`, `s.replace(a, b)` …).

use crate::messages::OperationMessage;

use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::interpreter::Interpreter;
use super::value::Value;
use crate::lang::syntax::Span;

impl Interpreter {
    pub(crate) fn call_string_method(&self, text: &str, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
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
            "strip" => Value::string(text.trim()),
            "split" => match bound.optional(0) {
                None => Value::list(text.split_whitespace().map(Value::string).collect()),
                Some(_) => {
                    let separator = text_argument(0)?;
                    if separator.is_empty() {
                        return Err(self.coded(ErrorKind::Value, OperationMessage::EmptySeparator, span));
                    }
                    Value::list(text.split(separator.as_str()).map(Value::string).collect())
                }
            },
            "startswith" => Value::Bool(text.starts_with(text_argument(0)?.as_str())),
            "endswith" => Value::Bool(text.ends_with(text_argument(0)?.as_str())),
            _ => {
                let replaced = text.replace(text_argument(0)?.as_str(), text_argument(1)?.as_str());
                self.check_string(replaced.len(), span)?;
                Value::string(replaced)
            }
        })
    }
}
