//! `argparse.ArgumentParser` as pypto's examples use it: positional arguments and options with
//! `type`, `nargs` (`?`, `*`, `+`, a count), `default`, `choices`, `required`, `dest`, `const` and the
//! actions `store`, `store_const`, `store_true`, `store_false`, `append`, `count`; `parse_args()`
//! reads `sys.argv[1:]` (the notebook's name alone, so every default) or the list it is given, and
//! returns a `Namespace` whose fields are the destinations. A command line it cannot parse is a
//! `SystemExit` error (argparse exits with status 2) that names the argument, as argparse does.
//! Argument groups add to the parser itself (mutual exclusion is not checked).

use std::cell::RefCell;
use std::rc::Rc;

use super::super::classes::{Class, ClassKind, Field, Instance};
use super::super::error::{ErrorKind, Result, RuntimeError};
use super::super::eval::Arguments;
use super::super::format::{repr, to_str};
use super::super::interpreter::Interpreter;
use super::super::operators::values_equal;
use super::super::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{LibraryHostMessage, LibraryMessage};

/// The methods of a parser.
pub(super) const METHODS: [&str; 11] = [
    "add_argument",
    "add_argument_group",
    "add_mutually_exclusive_group",
    "set_defaults",
    "parse_args",
    "parse_known_args",
    "print_help",
    "format_help",
    "print_usage",
    "format_usage",
    "error",
];

/// A parser: its description and its arguments in the order they were added.
pub struct ArgumentParser {
    program: String,
    description: Option<String>,
    arguments: Vec<Argument>,
    defaults: Vec<(String, Value)>,
}

/// What an argument does with what follows it on the command line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    Store,
    StoreConst,
    StoreTrue,
    StoreFalse,
    Append,
    Count,
}

/// How many values an argument takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Count {
    One,
    Optional,
    Any,
    AtLeastOne,
    Exactly(usize),
}

struct Argument {
    /// The option strings (`-m`, `--run_mode`); empty for a positional argument.
    flags: Vec<String>,
    destination: String,
    action: Action,
    count: Count,
    constant: Value,
    default: Value,
    convert: Option<Value>,
    choices: Option<Vec<Value>>,
    required: bool,
    help: Option<String>,
}

impl Argument {
    /// How the argument is named in messages (`--run_mode`, or the positional's name).
    fn display_name(&self) -> String {
        if self.flags.is_empty() {
            self.destination.clone()
        } else {
            self.flags.join("/")
        }
    }
}

/// `argparse.ArgumentParser(prog=None, usage=None, description=None, epilog=None, …)`.
pub(super) fn new_parser(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let names = [
        "prog",
        "usage",
        "description",
        "epilog",
        "parents",
        "formatter_class",
        "prefix_chars",
        "fromfile_prefix_chars",
        "argument_default",
        "conflict_handler",
        "add_help",
        "allow_abbrev",
        "exit_on_error",
    ];
    let bound = interpreter.bind("argparse.ArgumentParser", &names, arguments, false, span)?;
    let text = |index: usize| bound.optional(index).filter(|value| !matches!(value, Value::None)).map(to_str);
    let parser = ArgumentParser {
        program: text(0).unwrap_or_else(|| "notebook".to_string()),
        description: text(2),
        arguments: Vec::new(),
        defaults: Vec::new(),
    };
    Ok(Value::object(Object::ArgumentParser(RefCell::new(parser))))
}

/// A `Namespace` holding `fields`: an instance of a dataclass of that name, so it prints as
/// `Namespace(run_mode='npu', …)`, compares field by field and takes new attributes.
fn namespace(interpreter: &Interpreter, fields: Fields) -> Value {
    let class = Rc::new(Class {
        name: "Namespace".to_string(),
        base: None,
        kind: ClassKind::Dataclass { frozen: false },
        fields: fields.iter().map(|(name, _)| Field { name: name.clone(), default: None, factory: None }).collect(),
        annotations: fields.iter().map(|(name, _)| name.clone()).collect(),
        attributes: RefCell::new(Vec::new()),
    });
    let instance = Rc::new(Instance { class, attributes: RefCell::new(fields) });
    interpreter.instances.register(&instance);
    Value::Instance(instance)
}

/// Calls a method of a parser.
pub(super) fn call_method(
    interpreter: &Interpreter,
    receiver: &Value,
    parser: &RefCell<ArgumentParser>,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    let qualified = format!("ArgumentParser.{name}");
    match name {
        "add_argument" => {
            let argument = new_argument(interpreter, &parser.borrow(), arguments, span)?;
            parser.borrow_mut().arguments.push(argument);
            Ok(Value::None)
        }
        // Groups only change how `--help` is laid out: their arguments are the parser's.
        "add_argument_group" | "add_mutually_exclusive_group" => {
            interpreter.bind(&qualified, &["title", "description", "required"], arguments, false, span)?;
            Ok(receiver.clone())
        }
        "set_defaults" => {
            if let Some((_, extra)) = arguments.positional.first() {
                let message = LibraryHostMessage::KeywordsOnly { function: qualified.clone() };
                return Err(interpreter.error(ErrorKind::Type, "", *extra).with_message(message));
            }
            let mut parser = parser.borrow_mut();
            for (key, value, _) in arguments.keywords {
                match parser.arguments.iter_mut().find(|argument| argument.destination == key) {
                    Some(argument) => argument.default = value,
                    None => parser.defaults.push((key, value)),
                }
            }
            Ok(Value::None)
        }
        "parse_args" | "parse_known_args" => {
            let bound = interpreter.bind(&qualified, &["args", "namespace"], arguments, false, span)?;
            let tokens: Vec<String> = match bound.optional(0) {
                None | Some(Value::None) => {
                    let argv = super::module_attribute(interpreter, "sys", "argv", span)?;
                    interpreter.iterate(&argv, span)?.iter().skip(1).map(to_str).collect()
                }
                Some(given) => interpreter.iterate(given, bound.span_of(0))?.iter().map(to_str).collect(),
            };
            let (fields, extra) = parse(interpreter, &parser.borrow(), &tokens, span)?;
            if name == "parse_args" && !extra.is_empty() {
                let program = parser.borrow().program.clone();
                let message = LibraryHostMessage::Unrecognized { program, arguments: extra.join(" ") };
                return Err(usage_error(interpreter, &parser.borrow(), message, span));
            }
            let namespace = namespace(interpreter, fields);
            Ok(match name {
                "parse_args" => namespace,
                _ => Value::tuple(vec![namespace, Value::list(extra.into_iter().map(Value::string).collect())]),
            })
        }
        "print_help" | "print_usage" => {
            interpreter.bind(&qualified, &["file"], arguments, false, span)?;
            let parser = parser.borrow();
            let text = if name == "print_help" { help_text(&parser) } else { usage(&parser) };
            interpreter.write_output(&format!("{text}\n"), span)?;
            Ok(Value::None)
        }
        "format_help" | "format_usage" => {
            interpreter.bind(&qualified, &[], arguments, false, span)?;
            let parser = parser.borrow();
            Ok(Value::string(if name == "format_help" { help_text(&parser) } else { usage(&parser) }))
        }
        "error" => {
            let bound = interpreter.bind(&qualified, &["message"], arguments, false, span)?;
            let text = to_str(bound.required(0)?);
            let message = LibraryHostMessage::ParserError { program: parser.borrow().program.clone(), text };
            Err(usage_error(interpreter, &parser.borrow(), message, span))
        }
        _ => Err(interpreter.error(ErrorKind::Attribute, "", span).with_message(LibraryMessage::NoMethod {
            type_name: "ArgumentParser".to_string(),
            name: name.to_string(),
        })),
    }
}

/// `add_argument(*name_or_flags, action=, nargs=, const=, default=, type=, choices=, required=,
/// help=, metavar=, dest=)`.
fn new_argument(
    interpreter: &Interpreter,
    parser: &ArgumentParser,
    arguments: Arguments,
    span: Span,
) -> Result<Argument> {
    let names: Vec<String> = arguments.positional.iter().map(|(value, _)| to_str(value)).collect();
    let keywords = Arguments { positional: Vec::new(), keywords: arguments.keywords };
    let parameters = ["action", "nargs", "const", "default", "type", "choices", "required", "help", "metavar", "dest"];
    let bound = interpreter.bind("ArgumentParser.add_argument", &parameters, keywords, false, span)?;
    let given = |index: usize| bound.optional(index).filter(|value| !matches!(value, Value::None)).cloned();
    let Some(first) = names.first() else {
        return Err(interpreter.error(ErrorKind::Type, "", span).with_message(LibraryHostMessage::NeedsName));
    };
    let positional = !first.starts_with('-');
    if positional && names.len() > 1 {
        return Err(interpreter.error(ErrorKind::Value, "", span).with_message(LibraryHostMessage::PositionalName));
    }
    let destination = match given(9) {
        Some(dest) => to_str(&dest),
        None if positional => first.clone(),
        None => {
            let long = names.iter().find(|name| name.starts_with("--")).unwrap_or(first);
            long.trim_start_matches('-').replace('-', "_")
        }
    };
    if parser.arguments.iter().any(|argument| argument.flags.iter().any(|flag| names.contains(flag))) {
        let message = LibraryHostMessage::ConflictingOption { option: first.clone() };
        return Err(interpreter.error(ErrorKind::Value, "", span).with_message(message));
    }
    let action = match given(0).map(|action| to_str(&action)).as_deref() {
        None | Some("store") => Action::Store,
        Some("store_const") => Action::StoreConst,
        Some("store_true") => Action::StoreTrue,
        Some("store_false") => Action::StoreFalse,
        Some("append") => Action::Append,
        Some("count") => Action::Count,
        Some(other) => {
            return Err(interpreter
                .error(ErrorKind::Value, "", bound.span_of(0))
                .with_message(LibraryHostMessage::UnknownAction { action: other.to_string() })
                .with_help_message(LibraryHostMessage::Actions))
        }
    };
    let count = match &given(1) {
        None => Count::One,
        Some(Value::Int(count)) if *count >= 0 => Count::Exactly(*count as usize),
        Some(Value::Str(text)) if text.as_ref() == "?" => Count::Optional,
        Some(Value::Str(text)) if text.as_ref() == "*" => Count::Any,
        Some(Value::Str(text)) if text.as_ref() == "+" => Count::AtLeastOne,
        Some(other) => {
            return Err(interpreter
                .error(ErrorKind::Value, "", bound.span_of(1))
                .with_message(LibraryHostMessage::InvalidNargs { value: repr(other) })
                .with_help_message(LibraryHostMessage::Nargs))
        }
    };
    let default = match (given(3), action) {
        (Some(default), _) => default,
        (None, Action::StoreTrue) => Value::Bool(false),
        (None, Action::StoreFalse) => Value::Bool(true),
        (None, _) => Value::None,
    };
    let choices = match given(5) {
        None => None,
        Some(choices) => Some(interpreter.iterate(&choices, bound.span_of(5))?),
    };
    Ok(Argument {
        flags: if positional { Vec::new() } else { names },
        destination,
        action,
        count,
        constant: given(2).unwrap_or(Value::None),
        default,
        convert: given(4),
        choices,
        required: bound.flag(6, positional && count != Count::Optional && count != Count::Any)?,
        help: given(7).map(|help| to_str(&help)),
    })
}

/// A namespace's fields, in order.
type Fields = Vec<(String, Value)>;

/// Parses `tokens`: the fields of the namespace (every destination, then `set_defaults`' extra
/// names) and the tokens no argument took.
fn parse(
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
fn usage_error(
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
fn usage(parser: &ArgumentParser) -> String {
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
fn help_text(parser: &ArgumentParser) -> String {
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
