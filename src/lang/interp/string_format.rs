//! `str.format`: `"{} of {name:>8.3f}".format(…)` with Python's fields (automatic and numbered
//! positions, keywords, `.attribute` and `[index]` after them, `!r`/`!s` conversions, the format
//! specs f-strings take) and `{{`/`}}` for braces.

use crate::messages::Message;

use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::format::format_with_spec;
use super::interpreter::Interpreter;
use super::value::Value;
use crate::lang::syntax::Span;

impl Interpreter {
    /// `template.format(*positional, **keywords)`.
    pub(crate) fn format_string(&self, template: &str, arguments: Arguments, span: Span) -> Result<Value> {
        let fail = |kind: ErrorKind, text: String| self.coded(kind, Message::Text { text }, span);
        let mut text = String::new();
        let mut next_automatic = 0usize;
        let mut numbered = false;
        let mut characters = template.char_indices().peekable();
        while let Some((start, character)) = characters.next() {
            match character {
                '{' if characters.peek().map(|(_, next)| *next) == Some('{') => {
                    characters.next();
                    text.push('{');
                }
                '}' if characters.peek().map(|(_, next)| *next) == Some('}') => {
                    characters.next();
                    text.push('}');
                }
                '}' => return Err(fail(ErrorKind::Value, "Single '}' encountered in format string".into())),
                '{' => {
                    let end = loop {
                        match characters.next() {
                            Some((index, '}')) => break index,
                            Some((_, '{')) => {
                                let text = "nested replacement fields in a format spec are not supported".to_string();
                                return Err(fail(ErrorKind::Unsupported, text));
                            }
                            Some(_) => {}
                            None => {
                                return Err(fail(ErrorKind::Value, "Single '{' encountered in format string".into()))
                            }
                        }
                    };
                    let field = &template[start + 1..end];
                    let (field, spec) =
                        field.split_once(':').map_or((field, None), |(field, spec)| (field, Some(spec)));
                    let (field, conversion) =
                        field.split_once('!').map_or((field, None), |(field, conversion)| (field, Some(conversion)));
                    let name_end = field.find(['.', '[']).unwrap_or(field.len());
                    let (name, accessors) = field.split_at(name_end);
                    let mut value = if name.is_empty() {
                        if numbered {
                            let text = "cannot switch from manual field specification to automatic field numbering";
                            return Err(fail(ErrorKind::Value, text.into()));
                        }
                        next_automatic += 1;
                        self.positional_field(&arguments, next_automatic - 1, span)?
                    } else if let Ok(index) = name.parse::<usize>() {
                        numbered = true;
                        if next_automatic > 0 {
                            let text = "cannot switch from automatic field numbering to manual field specification";
                            return Err(fail(ErrorKind::Value, text.into()));
                        }
                        self.positional_field(&arguments, index, span)?
                    } else {
                        match arguments.keywords.iter().find(|(keyword, _, _)| keyword == name) {
                            Some((_, value, _)) => value.clone(),
                            None => return Err(fail(ErrorKind::Index, format!("'{name}'"))),
                        }
                    };
                    value = self.field_accessors(value, accessors, span)?;
                    let piece = match (conversion, spec) {
                        (Some("r"), _) => self.repr_of(&value, span)?,
                        (Some("s") | None, None) => self.text_of(&value, span)?,
                        (Some("s") | None, Some(spec)) => format_with_spec(&value, spec)
                            .map_err(|message| self.coded(ErrorKind::Value, message, span))?,
                        (Some(other), _) => {
                            return Err(fail(ErrorKind::Value, format!("Unknown conversion specifier {other}")))
                        }
                    };
                    text.push_str(&piece);
                    self.check_string(text.len(), span)?;
                }
                other => text.push(other),
            }
        }
        Ok(Value::string(text))
    }

    fn positional_field(&self, arguments: &Arguments, index: usize, span: Span) -> Result<Value> {
        match arguments.positional.get(index) {
            Some((value, _)) => Ok(value.clone()),
            None => {
                let text = format!("Replacement index {index} out of range for positional args tuple");
                Err(self.coded(ErrorKind::Index, Message::Text { text }, span))
            }
        }
    }

    /// The `.attribute` and `[index]` parts after a field's name.
    fn field_accessors(&self, mut value: Value, mut accessors: &str, span: Span) -> Result<Value> {
        while !accessors.is_empty() {
            let fail = |text: &str| self.coded(ErrorKind::Value, Message::Text { text: text.into() }, span);
            if let Some(rest) = accessors.strip_prefix('.') {
                let end = rest.find(['.', '[']).unwrap_or(rest.len());
                value = self.get_attribute(&value, &rest[..end], span)?;
                accessors = &rest[end..];
            } else if let Some(rest) = accessors.strip_prefix('[') {
                let end = rest.find(']').ok_or_else(|| fail("Missing ']' in format string"))?;
                let key = &rest[..end];
                let key = key.parse::<i64>().map_or_else(|_| Value::string(key), Value::Int);
                value = self.get_item(&value, &key, span)?;
                accessors = &rest[end + 1..];
            } else {
                return Err(fail("Only '.' or '[' may follow ']' in format field specifier"));
            }
        }
        Ok(value)
    }
}
