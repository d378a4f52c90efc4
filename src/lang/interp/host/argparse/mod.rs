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
use super::super::error::{ErrorKind, Result};
use super::super::eval::Arguments;
use super::super::format::{repr, to_str};
use super::super::interpreter::Interpreter;
use super::super::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{LibraryHostMessage, LibraryMessage};

mod command_line;

use command_line::{help_text, parse, usage, usage_error, Fields};

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
    let parameters = ["action", "nargs", "const", "default", "type", "choices", "required", "help", "metavar", "dest"];
    let (positional, bound) = interpreter.bind_keywords("ArgumentParser.add_argument", &parameters, arguments, span)?;
    let names: Vec<String> = positional.iter().map(|(value, _)| to_str(value)).collect();
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
