//! `open(path)` for reading: a file of the host (under `tilelab run`) as a text file with `read`,
//! `readline`, `readlines`, `close`, its lines when iterated and `with` (pypto's cost-model example
//! reads its swimlane with `json.load(open(…))`). A missing file is Python's `FileNotFoundError`.
//! Writing files is nothing a tile script's result depends on: any mode but reading is an error.
//! The page has no files.

use std::cell::Cell;
use std::rc::Rc;

use super::to_str;
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::Interpreter;
use crate::lang::interp::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{LibraryHostMessage, LibraryMessage, Message, StatementMessage};

/// A file opened for reading: its text, read whole at `open`, and how far it has been read.
pub struct TextFile {
    name: String,
    text: String,
    /// The byte offset of the next character to read.
    position: Cell<usize>,
    closed: Cell<bool>,
}

/// The methods of a text file.
const METHODS: [&str; 4] = ["read", "readline", "readlines", "close"];

/// `open(file, mode="r", buffering=-1, encoding=None, errors=None, newline=None)`.
pub(crate) fn open(interpreter: &Interpreter, arguments: Arguments, span: Span) -> Result<Value> {
    let names = ["file", "mode", "buffering", "encoding", "errors", "newline"];
    let bound = interpreter.bind("open", &names, arguments, false, span)?;
    let path = to_str(bound.required(0)?);
    let mode = bound.optional(1).map_or_else(|| "r".to_string(), to_str);
    if !matches!(mode.as_str(), "r" | "rt") {
        let name = format!("writing files (open(…, {mode:?}))");
        return Err(interpreter
            .error(ErrorKind::Unsupported, "", bound.span_of(1))
            .with_message(LibraryMessage::NotAvailableHere { name }));
    }
    match interpreter.with_host_files(|files| files.read_file(&path)) {
        Some(Some(text)) => {
            let file = TextFile { name: path, text, position: Cell::new(0), closed: Cell::new(false) };
            Ok(Value::object(Object::TextFile(file)))
        }
        Some(None) => {
            let text = Some(format!("[Errno 2] No such file or directory: '{path}'"));
            Err(interpreter.coded(
                ErrorKind::Value,
                StatementMessage::Raised { name: "FileNotFoundError".into(), text },
                span,
            ))
        }
        None => Err(interpreter
            .error(ErrorKind::Unsupported, "", span)
            .with_message(LibraryHostMessage::NeedsFiles { function: "open".into() })),
    }
}

/// `file.name`, `file.closed`, `file.mode` and the methods.
pub(crate) fn attribute(value: &Value, file: &TextFile, name: &str) -> Option<Value> {
    match name {
        "name" => Some(Value::string(file.name.as_str())),
        "closed" => Some(Value::Bool(file.closed.get())),
        "mode" => Some(Value::string("r")),
        _ => METHODS.contains(&name).then(|| Value::Method(Rc::new((value.clone(), name.to_string())))),
    }
}

/// Calls method `name` of `file`.
pub(crate) fn call_method(
    interpreter: &Interpreter,
    file: &TextFile,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    let qualified = format!("TextIOWrapper.{name}");
    let names: &[&str] = if name == "read" { &["size"] } else { &[] };
    let bound = interpreter.bind(&qualified, names, arguments, false, span)?;
    if name == "close" {
        file.closed.set(true);
        return Ok(Value::None);
    }
    let rest = unread(interpreter, file, span)?;
    let taken = match name {
        "read" => match bound.optional(0).map(|_| bound.int(0, None)).transpose()? {
            Some(size) if size >= 0 => rest.char_indices().nth(size as usize).map_or(rest.len(), |(at, _)| at),
            _ => rest.len(),
        },
        "readline" => rest.find('\n').map_or(rest.len(), |at| at + 1),
        _ => rest.len(),
    };
    file.position.set(file.position.get() + taken);
    let text = &rest[..taken];
    Ok(match name {
        "readlines" => Value::list(lines(text)),
        _ => Value::string(text),
    })
}

/// The lines not read yet, each with its `\n` (`for line in file`), read to the end.
pub(crate) fn iterate(interpreter: &Interpreter, file: &TextFile, span: Span) -> Result<Vec<Value>> {
    let rest = unread(interpreter, file, span)?;
    file.position.set(file.text.len());
    Ok(lines(rest))
}

/// Closes `file` (the end of its `with` block).
pub(crate) fn close(file: &TextFile) {
    file.closed.set(true);
}

/// The text of `file` not read yet; reading a closed file is Python's `ValueError`.
fn unread<'a>(interpreter: &Interpreter, file: &'a TextFile, span: Span) -> Result<&'a str> {
    if file.closed.get() {
        let text = Message::Text { text: "I/O operation on closed file.".into() };
        return Err(interpreter.error(ErrorKind::Value, "", span).with_message(text));
    }
    Ok(&file.text[file.position.get()..])
}

fn lines(text: &str) -> Vec<Value> {
    text.split_inclusive('\n').map(Value::string).collect()
}
