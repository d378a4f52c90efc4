//! Reading a command line against a parser's arguments, as argparse does: options (exact or by a
//! unique prefix, `--flag=value`), positionals given the loose tokens in order, `type` and
//! `choices` applied to each value, defaults for what is absent; and the usage and help texts.

use super::super::super::error::{ErrorKind, Result, RuntimeError};
use super::super::super::eval::Arguments;
use super::super::super::format::{repr, to_str};
use super::super::super::interpreter::Interpreter;
use super::super::super::operators::values_equal;
use super::super::super::value::Value;
use super::{Action, Argument, ArgumentParser, Count};
use crate::lang::syntax::Span;
use crate::messages::LibraryHostMessage;

/// A namespace's fields, in order.
pub(super) type Fields = Vec<(String, Value)>;

/// Parses `tokens`: the fields of the namespace (every destination, then `set_defaults`' extra
/// names) and the tokens no argument took.
pub(super) fn parse(
    interpreter: &Interpreter,
    parser: &ArgumentParser,
    tokens: &[String],
    span: Span,
) -> Result<(Fields, Vec<String>)> {
    let mut values: Vec<Option<Value>> = vec![None; parser.arguments.len()];
    let mut loose = Vec::new();
    let mut extra = Vec::new();
    let mut index = 0;
    let mut only_positionals = false;
    while index < tokens.len() {
        let token = &tokens[index];
        index += 1;
        if token == "--" && !only_positionals {
            only_positionals = true;
            continue;
        }
        if only_positionals || !is_option(token) {
            loose.push(token.clone());
            continue;
        }
        let (flag, attached) = match token.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_string())),
            _ => (token.as_str(), None),
        };
        let Some(position) = find_option(parser, flag) else {
            extra.push(token.clone());
            continue;
        };
        let argument = &parser.arguments[position];
        let mut taken: Vec<String> = attached.into_iter().collect();
        let wanted = match argument.action {
            Action::StoreTrue | Action::StoreFalse | Action::StoreConst | Action::Count => 0,
            _ => match argument.count {
                Count::One => 1,
                Count::Exactly(count) => count,
                Count::Optional => 1,
                Count::Any | Count::AtLeastOne => usize::MAX,
            },
        };
        if wanted == 0 && !taken.is_empty() {
            let message = LibraryHostMessage::IgnoredExplicit {
                program: parser.program.clone(),
                argument: argument.display_name(),
                value: taken[0].clone(),
            };
            return Err(usage_error(interpreter, parser, message, span));
        }
        while taken.len() < wanted && index < tokens.len() && !is_option(&tokens[index]) {
            taken.push(tokens[index].clone());
            index += 1;
        }
        let value = option_value(interpreter, parser, argument, taken, values[position].take(), span)?;
        values[position] = Some(value);
    }
    assign_positionals(interpreter, parser, &mut values, loose, &mut extra, span)?;
    let mut fields = Vec::new();
    for (argument, value) in parser.arguments.iter().zip(values) {
        let value = match value {
            Some(value) => value,
            None if argument.required => {
                let message = LibraryHostMessage::Required {
                    program: parser.program.clone(),
                    arguments: argument.display_name(),
                };
                return Err(usage_error(interpreter, parser, message, span));
            }
            // A string default goes through `type`, as argparse converts it.
            None => match (&argument.default, &argument.convert) {
                (Value::Str(text), Some(_)) => convert(interpreter, parser, argument, text, span)?,
                (default, _) => default.clone(),
            },
        };
        match fields.iter_mut().find(|(name, _): &&mut (String, Value)| *name == argument.destination) {
            Some(field) => field.1 = value,
            None => fields.push((argument.destination.clone(), value)),
        }
    }
    for (name, value) in &parser.defaults {
        if !fields.iter().any(|(field, _)| field == name) {
            fields.push((name.clone(), value.clone()));
        }
    }
    Ok((fields, extra))
}

/// Whether a token is an option string (a negative number is a value).
fn is_option(token: &str) -> bool {
    token.len() > 1 && token.starts_with('-') && token.parse::<f64>().is_err()
}

/// The option a flag names: exactly, or by a unique prefix of a long option (argparse's
/// abbreviations).
fn find_option(parser: &ArgumentParser, flag: &str) -> Option<usize> {
    let exact = parser.arguments.iter().position(|argument| argument.flags.iter().any(|candidate| candidate == flag));
    exact.or_else(|| {
        let matches: Vec<usize> = (0..parser.arguments.len())
            .filter(|&index| {
                flag.starts_with("--")
                    && parser.arguments[index].flags.iter().any(|candidate| candidate.starts_with(flag))
            })
            .collect();
        (matches.len() == 1).then(|| matches[0])
    })
}

/// The value an option stores given the tokens it took.
fn option_value(
    interpreter: &Interpreter,
    parser: &ArgumentParser,
    argument: &Argument,
    taken: Vec<String>,
    previous: Option<Value>,
    span: Span,
) -> Result<Value> {
    let (program, name) = (parser.program.clone(), argument.display_name());
    match argument.action {
        Action::StoreTrue => return Ok(Value::Bool(true)),
        Action::StoreFalse => return Ok(Value::Bool(false)),
        Action::StoreConst => return Ok(argument.constant.clone()),
        Action::Count => {
            let before = match previous {
                Some(Value::Int(count)) => count,
                _ => 0,
            };
            return Ok(Value::Int(before + 1));
        }
        Action::Store | Action::Append => {}
    }
    let converted =
        taken.iter().map(|token| convert(interpreter, parser, argument, token, span)).collect::<Result<Vec<_>>>()?;
    let value = match (argument.count, converted.len()) {
        (Count::One, 1) => converted[0].clone(),
        (Count::One, _) => {
            let message = LibraryHostMessage::ExpectedOne { program, argument: name };
            return Err(usage_error(interpreter, parser, message, span));
        }
        (Count::Optional, 0) => argument.constant.clone(),
        (Count::Optional, _) => converted[0].clone(),
        (Count::AtLeastOne, 0) => {
            let message = LibraryHostMessage::ExpectedAtLeastOne { program, argument: name };
            return Err(usage_error(interpreter, parser, message, span));
        }
        (Count::Exactly(count), found) if found != count => {
            let message = LibraryHostMessage::ExpectedCount { program, argument: name, count };
            return Err(usage_error(interpreter, parser, message, span));
        }
        _ => Value::list(converted),
    };
    if argument.action == Action::Append {
        let mut items = match &previous {
            Some(Value::List(items)) => items.borrow().clone(),
            _ => Vec::new(),
        };
        items.push(value);
        return Ok(Value::list(items));
    }
    Ok(value)
}

/// Gives the loose tokens to the positional arguments in order; what is left over is extra.
fn assign_positionals(
    interpreter: &Interpreter,
    parser: &ArgumentParser,
    values: &mut [Option<Value>],
    loose: Vec<String>,
    extra: &mut Vec<String>,
    span: Span,
) -> Result<()> {
    let positionals: Vec<usize> =
        (0..parser.arguments.len()).filter(|&index| parser.arguments[index].flags.is_empty()).collect();
    let mut remaining = &loose[..];
    for (order, &position) in positionals.iter().enumerate() {
        let argument = &parser.arguments[position];
        // What the positionals after this one need at least.
        let reserved: usize = positionals[order + 1..]
            .iter()
            .map(|&later| match parser.arguments[later].count {
                Count::One | Count::AtLeastOne => 1,
                Count::Exactly(count) => count,
                Count::Optional | Count::Any => 0,
            })
            .sum();
        let available = remaining.len().saturating_sub(reserved);
        let take = match argument.count {
            Count::One => 1.min(remaining.len()),
            Count::Exactly(count) => count.min(remaining.len()),
            Count::Optional => 1.min(available),
            Count::Any | Count::AtLeastOne => available,
        };
        let (taken, rest) = remaining.split_at(take);
        remaining = rest;
        if taken.is_empty() && matches!(argument.count, Count::Optional | Count::Any) {
            continue;
        }
        values[position] = Some(option_value(interpreter, parser, argument, taken.to_vec(), None, span)?);
    }
    extra.extend(remaining.iter().cloned());
    Ok(())
}

/// One token through the argument's `type`, then checked against its `choices`.
fn convert(
    interpreter: &Interpreter,
    parser: &ArgumentParser,
    argument: &Argument,
    token: &str,
    span: Span,
) -> Result<Value> {
    let value = match &argument.convert {
        None => Value::string(token),
        Some(convert) => {
            let arguments = Arguments { positional: vec![(Value::string(token), span)], keywords: Vec::new() };
            interpreter.call(convert, arguments, span).map_err(|error| {
                let type_name = match convert {
                    Value::Builtin(name) => name.to_string(),
                    Value::Function(function) => function.name.clone(),
                    _ => "type".to_string(),
                };
                if error.kind == ErrorKind::SystemExit {
                    return error;
                }
                let message = LibraryHostMessage::InvalidValue {
                    program: parser.program.clone(),
                    argument: argument.display_name(),
                    type_name,
                    token: token.to_string(),
                };
                usage_error(interpreter, parser, message, span)
            })?
        }
    };
    if let Some(choices) = &argument.choices {
        if !choices.iter().any(|choice| values_equal(choice, &value)) {
            let listed: Vec<String> = choices.iter().map(repr).collect();
            let message = LibraryHostMessage::InvalidChoice {
                program: parser.program.clone(),
                argument: argument.display_name(),
                value: repr(&value),
                choices: listed.join(", "),
            };
            return Err(usage_error(interpreter, parser, message, span));
        }
    }
    Ok(value)
}

/// argparse's exit on a bad command line: a `SystemExit` with status 2 and argparse's message
/// (`{program}: error: …`), its usage line as the note.
pub(super) fn usage_error(
    interpreter: &Interpreter,
    parser: &ArgumentParser,
    message: LibraryHostMessage,
    span: Span,
) -> RuntimeError {
    interpreter
        .error(ErrorKind::SystemExit, "", span)
        .with_message(message)
        .with_note_message(LibraryHostMessage::Usage { line: usage_line(parser) })
        .with_help_message(LibraryHostMessage::CommandLine)
}

/// `usage: notebook [-h] [--run_mode {npu,sim}] example_id`.
pub(super) fn usage(parser: &ArgumentParser) -> String {
    LibraryHostMessage::Usage { line: usage_line(parser) }.english()
}

/// The usage line after `usage: `.
fn usage_line(parser: &ArgumentParser) -> String {
    let mut parts = vec![format!("{} [-h]", parser.program)];
    for argument in &parser.arguments {
        let metavar = match &argument.choices {
            Some(choices) => format!("{{{}}}", choices.iter().map(to_str).collect::<Vec<_>>().join(",")),
            None => argument.destination.to_uppercase(),
        };
        parts.push(match (argument.flags.first(), argument.action) {
            (None, _) if argument.count == Count::Optional => format!("[{}]", argument.destination),
            (None, _) => argument.destination.clone(),
            (Some(flag), Action::Store | Action::Append) if argument.required => format!("{flag} {metavar}"),
            (Some(flag), Action::Store | Action::Append) => format!("[{flag} {metavar}]"),
            (Some(flag), _) => format!("[{flag}]"),
        });
    }
    parts.join(" ")
}

/// The usage line, the description and one line per argument.
pub(super) fn help_text(parser: &ArgumentParser) -> String {
    let mut text = usage(parser);
    if let Some(description) = &parser.description {
        text.push_str(&format!("\n\n{description}"));
    }
    text.push_str("\n\noptions:\n  -h, --help  show this help message and exit");
    for argument in &parser.arguments {
        let help = argument.help.as_deref().unwrap_or("");
        text.push_str(&format!("\n  {}  {help}", argument.display_name()));
    }
    text
}
