//! `pathlib.Path`: the paths pypto's tests build around their kernels. Their shared runners find
//! pypto's helper scripts with `Path(Path(__file__).parent.parent…, "dir").resolve()` and put
//! `str(that)` on `sys.path`. A path is a POSIX path held as its normalized text (pathlib's rules:
//! repeated and trailing slashes and `.` parts dropped); what only names it (`/`, `parent`, `name`,
//! `stem`, `suffix`, `parts`, `with_suffix` …) works everywhere. What reads the file system
//! (`exists`, `is_file`, `is_dir`, `read_text`) asks the host the CLI gives the interpreter (the
//! same one that reads user modules); the page has none and says so. `resolve` is lexical: `..`
//! drops the part before it, symbolic links are not followed.

use std::rc::Rc;

use super::super::error::{ErrorKind, Result};
use super::super::eval::Arguments;
use super::super::interpreter::Interpreter;
use super::super::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{LibraryHostMessage, LibraryMessage};

/// The names `pathlib` has here (all make the same kind of path).
pub(crate) const CLASSES: [&str; 4] = ["Path", "PurePath", "PosixPath", "PurePosixPath"];

/// A path's attributes that are values.
const PROPERTIES: [&str; 6] = ["parent", "name", "stem", "suffix", "suffixes", "parts"];

/// A path's methods.
const METHODS: [&str; 13] = [
    "resolve",
    "absolute",
    "exists",
    "is_file",
    "is_dir",
    "read_text",
    "joinpath",
    "with_suffix",
    "with_name",
    "as_posix",
    "is_absolute",
    "mkdir",
    "write_text",
];

/// pathlib's normal form of `text`: `a//b/./c/` is `a/b/c`, the empty path is `.`.
pub(crate) fn normalize(text: &str) -> String {
    let absolute = text.starts_with('/');
    let parts: Vec<&str> = text.split('/').filter(|part| !part.is_empty() && *part != ".").collect();
    match (absolute, parts.is_empty()) {
        (true, _) => format!("/{}", parts.join("/")),
        (false, true) => ".".to_string(),
        (false, false) => parts.join("/"),
    }
}

/// `left / right`: an absolute `right` replaces `left`.
pub(crate) fn join(left: &str, right: &str) -> String {
    if right.starts_with('/') || left == "." {
        normalize(right)
    } else {
        normalize(&format!("{left}/{right}"))
    }
}

/// The last part of a path (empty for `/` and `.`).
fn name(path: &str) -> &str {
    match path {
        "/" | "." => "",
        _ => path.rsplit('/').next().unwrap_or(path),
    }
}

/// The path without its last part (`/` and `.` are their own parents).
fn parent(path: &str) -> String {
    match path.rfind('/') {
        _ if path == "/" || path == "." => path.to_string(),
        Some(0) => "/".to_string(),
        Some(index) => path[..index].to_string(),
        None => ".".to_string(),
    }
}

/// The final suffix of a name (`.gz` of `a.tar.gz`; none for `.bashrc`).
fn suffix(name: &str) -> &str {
    match name.rfind('.') {
        Some(index) if index > 0 && index + 1 < name.len() => &name[index..],
        _ => "",
    }
}

/// `path` made absolute against `directory`, `..` dropping the part before it.
pub(crate) fn resolve(path: &str, directory: &str) -> String {
    let absolute = join(directory, path);
    let mut parts: Vec<&str> = Vec::new();
    for part in absolute.split('/').filter(|part| !part.is_empty()) {
        if part == ".." {
            parts.pop();
        } else {
            parts.push(part);
        }
    }
    format!("/{}", parts.join("/"))
}

/// A path value.
pub(crate) fn path_value(text: String) -> Value {
    Value::Object(Rc::new(Object::Path(text)))
}

/// The text of a path or string argument (pathlib accepts both, and `os.PathLike`'s paths).
fn part_text(interpreter: &Interpreter, value: &Value, span: Span) -> Result<String> {
    match value {
        Value::Str(text) => Ok(text.to_string()),
        Value::Object(object) => match object.as_ref() {
            Object::Path(text) => Ok(text.clone()),
            _ => Err(type_error(interpreter, value, span)),
        },
        _ => Err(type_error(interpreter, value, span)),
    }
}

fn type_error(interpreter: &Interpreter, value: &Value, span: Span) -> super::super::error::RuntimeError {
    interpreter
        .error(ErrorKind::Type, "", span)
        .with_message(LibraryHostMessage::PathPart { type_name: value.type_name().to_string() })
}

/// `Path(*parts)`, and `Path.cwd()`.
pub(crate) fn construct(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    let bound = interpreter.bind(name, &[], arguments, true, span)?;
    let mut path = ".".to_string();
    for (part, part_span) in &bound.rest {
        path = join(&path, &part_text(interpreter, part, *part_span)?);
    }
    Ok(path_value(path))
}

/// `left / right` with a path on either side, or `None` when neither is a path.
pub(crate) fn divide(interpreter: &Interpreter, left: &Value, right: &Value, span: Span) -> Option<Result<Value>> {
    let is_path = |value: &Value| matches!(value, Value::Object(object) if matches!(object.as_ref(), Object::Path(_)));
    if !is_path(left) && !is_path(right) {
        return None;
    }
    let joined = part_text(interpreter, left, span)
        .and_then(|left| Ok(join(&left, &part_text(interpreter, right, span)?)))
        .map(path_value);
    Some(joined)
}

/// `path.name` for a path's properties and methods.
pub(crate) fn attribute(receiver: &Value, path: &str, attribute: &str) -> Option<Value> {
    let base = name(path);
    let value = match attribute {
        "parent" => path_value(parent(path)),
        "name" => Value::string(base),
        "suffix" => Value::string(suffix(base)),
        "stem" => Value::string(&base[..base.len() - suffix(base).len()]),
        "suffixes" => {
            let trimmed = base.trim_start_matches('.');
            let pieces: Vec<Value> =
                trimmed.split('.').skip(1).map(|piece| Value::string(format!(".{piece}"))).collect();
            Value::list(if base.ends_with('.') { Vec::new() } else { pieces })
        }
        "parts" => {
            let mut parts: Vec<Value> = Vec::new();
            if path.starts_with('/') {
                parts.push(Value::string("/"));
            }
            parts.extend(path.split('/').filter(|part| !part.is_empty() && *part != ".").map(Value::string));
            Value::tuple(parts)
        }
        _ if METHODS.contains(&attribute) => Value::Method(Rc::new((receiver.clone(), attribute.to_string()))),
        _ => return None,
    };
    debug_assert!(PROPERTIES.contains(&attribute) || METHODS.contains(&attribute));
    Some(value)
}

/// Calls a path's method.
pub(crate) fn call_method(
    interpreter: &Interpreter,
    path: &str,
    method: &str,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    let qualified = format!("Path.{method}");
    match method {
        "joinpath" => {
            let bound = interpreter.bind(&qualified, &[], arguments, true, span)?;
            let mut joined = path.to_string();
            for (part, part_span) in &bound.rest {
                joined = join(&joined, &part_text(interpreter, part, *part_span)?);
            }
            Ok(path_value(joined))
        }
        "with_suffix" | "with_name" => {
            let bound = interpreter.bind(&qualified, &["value"], arguments, false, span)?;
            let value = part_text(interpreter, bound.required(0)?, span)?;
            let base = name(path);
            let replaced = if method == "with_name" {
                value
            } else {
                format!("{}{value}", &base[..base.len() - suffix(base).len()])
            };
            Ok(path_value(join(&parent(path), &replaced)))
        }
        "as_posix" => {
            interpreter.bind(&qualified, &[], arguments, false, span)?;
            Ok(Value::string(path))
        }
        "is_absolute" => {
            interpreter.bind(&qualified, &[], arguments, false, span)?;
            Ok(Value::Bool(path.starts_with('/')))
        }
        "resolve" | "absolute" => {
            interpreter.bind(&qualified, &["strict"], arguments, false, span)?;
            let directory = interpreter.current_directory();
            Ok(path_value(if method == "resolve" { resolve(path, &directory) } else { join(&directory, path) }))
        }
        "exists" | "is_file" | "is_dir" | "read_text" => {
            interpreter.bind(&qualified, &["encoding", "errors"], arguments, false, span)?;
            let answer = interpreter.with_host_files(|files| match method {
                "exists" | "is_dir" | "is_file" => Some(Value::Bool(super::path_test(files, method, path))),
                _ => files.read_file(path).map(Value::string),
            });
            match answer {
                Some(Some(value)) => Ok(value),
                Some(None) => Err(interpreter
                    .error(ErrorKind::Value, "", span)
                    .with_message(LibraryHostMessage::NoSuchFile { path: path.to_string() })),
                None => Err(interpreter
                    .error(ErrorKind::Unsupported, "", span)
                    .with_message(LibraryHostMessage::NeedsFiles { function: qualified })),
            }
        }
        // Writing files is nothing a tile script's result depends on; no host writes them.
        _ => Err(interpreter
            .error(ErrorKind::Attribute, "", span)
            .with_message(LibraryMessage::NotAvailableHere { name: qualified })),
    }
}
