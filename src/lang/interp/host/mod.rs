//! The host modules real pypto scripts import around their kernels: `sys` (`argv`, `exit`), `os`
//! (`environ`, `getenv`, `os.path`'s string functions), `time` (`time`, `perf_counter`) and
//! `argparse` (see `argparse.rs`). pypto's examples read their run mode from `sys.argv` or an
//! `ArgumentParser`, their device from `os.environ["TILE_FWK_DEVICE_ID"]`, and time themselves;
//! with these a pasted example runs unchanged. A notebook has no command line (`sys.argv` is the
//! notebook's name, plus what `tilelab run FILE -- ARGS` passes), no files, and an environment
//! that holds only `TILE_FWK_DEVICE_ID=0`: the simulated NPU is device 0.

mod argparse;
pub(crate) mod clock;
pub(crate) mod files;
mod library;
pub(crate) mod pathlib;
pub(crate) mod re_module;
mod regex;
mod regex_parser;

use std::rc::Rc;

use super::api_table::{self, ApiKind};
use super::error::{ErrorKind, Result};
use super::eval::Arguments;
use super::format::to_str;
use super::interpreter::Interpreter;
use super::numpy::code_list;
use super::value::{Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{LibraryHostMessage, LibraryMessage};

pub use argparse::ArgumentParser;
pub(crate) use clock::seconds_since_epoch;

/// `os.getpid()`: a session is one process of its own (pypto names its output folders by it).
pub(crate) const PROCESS_ID: i64 = 1;

/// The working directory of a session without a host that has one (the page).
pub(crate) const DEFAULT_DIRECTORY: &str = "/notebook";

/// The device pypto examples select through `TILE_FWK_DEVICE_ID` (the simulated NPU's only one).
const DEVICE_ID: &str = "0";

/// What the host modules keep for a session: `os.environ` and `sys.argv` are the same objects
/// every time a script names them, so what it writes into them stays.
pub(crate) struct HostState {
    environ: Value,
    argv: Value,
    /// `sys.path`: the directories user modules are imported from (empty in the page).
    pub(crate) path: Value,
    /// The logging level and `abc.ABC` (see `library`).
    pub(crate) library: library::LibraryState,
}

impl Default for HostState {
    fn default() -> Self {
        HostState {
            environ: Value::dict(vec![(Value::string("TILE_FWK_DEVICE_ID"), Value::string(DEVICE_ID))]),
            argv: Value::list(vec![Value::string("notebook")]),
            path: Value::list(Vec::new()),
            library: Default::default(),
        }
    }
}

/// Whether `module` is one of the host modules.
pub(crate) fn is_host_module(module: &str) -> bool {
    let root = module.split('.').next().unwrap_or(module);
    matches!(root, "os" | "sys" | "time" | "argparse" | "pathlib" | "enum" | "re")
        || library::LIBRARY_MODULES.contains(&root)
}

/// Whether `module` is a library module `import` accepts (`logging`, `collections.abc` …).
pub(crate) fn is_importable_library_module(module: &str) -> bool {
    library::IMPORTABLE.contains(&module) || module == "enum"
}

impl Interpreter {
    /// Sets `sys.path`: the directories the user's modules are imported from, in order.
    pub fn set_module_path(&self, directories: &[String]) {
        if let Value::List(list) = &self.host.path {
            *list.borrow_mut() = directories.iter().map(|directory| Value::string(directory.as_str())).collect();
        }
    }

    /// Sets `sys.argv`: the program name then its arguments (the CLI's `tilelab run FILE -- ARGS`).
    pub fn set_command_line(&self, program: &str, arguments: &[String]) {
        let mut items = vec![Value::string(program)];
        items.extend(arguments.iter().map(|argument| Value::string(argument.as_str())));
        if let Value::List(list) = &self.host.argv {
            *list.borrow_mut() = items;
        }
    }
}

/// `module.name` for the host modules, through the API table.
pub(crate) fn module_attribute(interpreter: &Interpreter, module: &str, name: &str, span: Span) -> Result<Value> {
    if library::LIBRARY_MODULES.contains(&module.split('.').next().unwrap_or(module)) {
        return library::module_attribute(interpreter, module, name, span);
    }
    if module == "enum" {
        return super::classes::enumeration::module_attribute(interpreter, name, span);
    }
    let qualified = format!("{module}.{name}");
    match (qualified.as_str(), api_table::lookup(&qualified).map(|entry| entry.kind)) {
        ("os.environ", _) => Ok(interpreter.host.environ.clone()),
        ("sys.argv", _) => Ok(interpreter.host.argv.clone()),
        ("sys.path", _) => Ok(interpreter.host.path.clone()),
        _ if module == "pathlib" && pathlib::CLASSES.contains(&name) => Ok(Value::Builtin(Rc::from("pathlib.Path"))),
        (_, Some(ApiKind::Function)) => Ok(Value::Builtin(Rc::from(qualified.as_str()))),
        (_, Some(ApiKind::Module)) => Ok(Value::Module(Rc::from(qualified.as_str()))),
        (_, Some(ApiKind::Constant)) => Ok(constant(&qualified)),
        _ => {
            let known: Vec<&str> = api_table::members(module).map(|entry| entry.short_name()).collect();
            let help = LibraryHostMessage::HostModuleHas { module: module.to_string(), names: code_list(&known) };
            Err(super::pypto::missing_attribute(interpreter, module, name, help.into(), span))
        }
    }
}

/// The value of a documented constant of a host module.
fn constant(qualified: &str) -> Value {
    match qualified {
        "sys.executable" => Value::string("python3"),
        "sys.platform" => Value::string(if cfg!(target_arch = "wasm32") { "emscripten" } else { "linux" }),
        "sys.version" => Value::string("3.11 (TileLab tile script)"),
        "sys.maxsize" => Value::Int(i64::MAX),
        _ if qualified.starts_with("re.") => re_module::constant(&qualified[3..]).unwrap_or(Value::None),
        "sys.float_info.max" => Value::Float(f64::MAX),
        "sys.float_info.min" => Value::Float(f64::MIN_POSITIVE),
        "sys.float_info.epsilon" => Value::Float(f64::EPSILON),
        "sys.float_info.max_exp" => Value::Int(f64::MAX_EXP.into()),
        "sys.float_info.min_exp" => Value::Int(f64::MIN_EXP.into()),
        "sys.float_info.max_10_exp" => Value::Int(f64::MAX_10_EXP.into()),
        "sys.float_info.min_10_exp" => Value::Int(f64::MIN_10_EXP.into()),
        "sys.float_info.dig" => Value::Int(f64::DIGITS.into()),
        "sys.float_info.mant_dig" => Value::Int(f64::MANTISSA_DIGITS.into()),
        "sys.float_info.radix" => Value::Int(f64::RADIX.into()),
        // Round to nearest, as IEEE 754 arithmetic does.
        "sys.float_info.rounds" => Value::Int(1),
        "os.sep" => Value::string("/"),
        // argparse's help formatters only change how `--help` is laid out: their name is enough.
        other => Value::string(other.rsplit('.').next().unwrap_or(other)),
    }
}

/// Calls a function of a host module by qualified name.
pub(crate) fn call(interpreter: &Interpreter, name: &str, arguments: Arguments, span: Span) -> Result<Value> {
    if library::LIBRARY_MODULES.contains(&name.split('.').next().unwrap_or(name)) {
        if let Some(result) = library::call(interpreter, name, arguments, span) {
            return result;
        }
        return Err(interpreter
            .error(ErrorKind::Attribute, "", span)
            .with_message(LibraryMessage::NotAvailableHere { name: name.to_string() }));
    }
    if name.starts_with("enum.") {
        return super::classes::enumeration::call(interpreter, name, arguments, span);
    }
    if name.starts_with("re.") {
        return re_module::call(interpreter, name, arguments, span);
    }
    match name {
        "sys.exit" => {
            let bound = interpreter.bind(name, &["status"], arguments, false, span)?;
            Err(exit(interpreter, bound.optional(0), span))
        }
        "os.getenv" => {
            let bound = interpreter.bind(name, &["key", "default"], arguments, false, span)?;
            let key = bound.required(0)?.clone();
            let default = bound.optional(1).cloned().unwrap_or(Value::None);
            let Value::Dict(items) = &interpreter.host.environ else { return Ok(default) };
            let found = items
                .borrow()
                .iter()
                .find(|(candidate, _)| super::operators::values_equal(candidate, &key))
                .map(|(_, value)| value.clone());
            Ok(found.unwrap_or(default))
        }
        "os.getpid" => {
            interpreter.bind(name, &[], arguments, false, span)?;
            Ok(Value::Int(PROCESS_ID))
        }
        "os.getcwd" => {
            interpreter.bind(name, &[], arguments, false, span)?;
            Ok(Value::string(interpreter.current_directory()))
        }
        "pathlib.Path" => pathlib::construct(interpreter, name, arguments, span),
        "os.path.join" => {
            let bound = interpreter.bind(name, &[], arguments, true, span)?;
            let mut joined = String::new();
            for (part, _) in &bound.rest {
                let part = to_str(part);
                if part.starts_with('/') {
                    joined = part;
                } else if joined.is_empty() || joined.ends_with('/') {
                    joined.push_str(&part);
                } else {
                    joined = format!("{joined}/{part}");
                }
            }
            Ok(Value::string(joined))
        }
        "os.path.basename" | "os.path.dirname" | "os.path.splitext" | "os.path.abspath" => {
            let bound = interpreter.bind(name, &["path"], arguments, false, span)?;
            let path = to_str(bound.required(0)?);
            Ok(path_function(name, &path))
        }
        // The host's files where it has them (the CLI), as `pathlib.Path` reads them; the page has
        // none: nothing exists there.
        "os.path.exists" | "os.path.isfile" | "os.path.isdir" => {
            let bound = interpreter.bind(name, &["path"], arguments, false, span)?;
            let path = to_str(bound.required(0)?);
            let test = match name {
                "os.path.isdir" => "is_dir",
                "os.path.isfile" => "is_file",
                _ => "exists",
            };
            let found = interpreter.with_host_files(|files| path_test(files, test, &path));
            Ok(Value::Bool(found.unwrap_or(false)))
        }
        "os.listdir" | "os.path.getmtime" | "os.path.getctime" => {
            let bound = interpreter.bind(name, &["path"], arguments, false, span)?;
            let path = match bound.optional(0) {
                Some(path) => to_str(path),
                None if name == "os.listdir" => ".".to_string(),
                None => to_str(bound.required(0)?),
            };
            let answer = interpreter.with_host_files(|files| match name {
                "os.listdir" => {
                    files.list_directory(&path).map(|names| Value::list(names.into_iter().map(Value::string).collect()))
                }
                _ => files.modified_seconds(&path).map(Value::Float),
            });
            match answer {
                Some(Some(value)) => Ok(value),
                Some(None) => Err(interpreter
                    .error(ErrorKind::Value, "", span)
                    .with_message(LibraryHostMessage::NoSuchFile { path })),
                None => Err(interpreter
                    .error(ErrorKind::Unsupported, "", span)
                    .with_message(LibraryHostMessage::NeedsFiles { function: name.to_string() })),
            }
        }
        "time.time" => {
            interpreter.bind(name, &[], arguments, false, span)?;
            Ok(Value::Float(clock::seconds_since_epoch()))
        }
        "time.perf_counter" | "time.monotonic" => {
            interpreter.bind(name, &[], arguments, false, span)?;
            Ok(Value::Float(clock::monotonic_seconds()))
        }
        "argparse.ArgumentParser" => argparse::new_parser(interpreter, arguments, span),
        _ => Err(interpreter
            .error(ErrorKind::Attribute, "", span)
            .with_message(LibraryMessage::NotAvailableHere { name: name.to_string() })),
    }
}

/// `test` (`exists`, `is_dir`, `is_file`: pathlib's names) of the host's `path`; `os.path`'s
/// `exists`, `isdir`, `isfile` are the same questions.
pub(crate) fn path_test(files: &dyn crate::lang::interp::user_modules::ModuleLoader, test: &str, path: &str) -> bool {
    match test {
        "is_dir" => files.is_directory(path),
        "is_file" => !files.is_directory(path) && files.exists(path),
        _ => files.exists(path),
    }
}

/// The string functions of `os.path`.
fn path_function(name: &str, path: &str) -> Value {
    let (directory, base) = match path.rfind('/') {
        Some(index) => (&path[..index], &path[index + 1..]),
        None => ("", path),
    };
    match name {
        "os.path.basename" => Value::string(base),
        "os.path.dirname" => Value::string(if directory.is_empty() && path.starts_with('/') { "/" } else { directory }),
        "os.path.splitext" => {
            let split = base.rfind('.').filter(|&index| index > 0).map(|index| path.len() - base.len() + index);
            let (root, extension) = path.split_at(split.unwrap_or(path.len()));
            Value::tuple(vec![Value::string(root), Value::string(extension)])
        }
        "os.path.abspath" if path.starts_with('/') => Value::string(path),
        _ => Value::string(format!("{DEFAULT_DIRECTORY}/{path}")),
    }
}

/// `sys.exit(status)`: a `SystemExit` that ends the cell. `None` and 0 end it as a success (the
/// cell's effects stay, as after its last line); any other status is an error at the call.
pub(crate) fn exit(interpreter: &Interpreter, status: Option<&Value>, span: Span) -> super::error::RuntimeError {
    let ending = |status: String| {
        interpreter.error(ErrorKind::SystemExit, "", span).with_message(LibraryHostMessage::SystemExit { status })
    };
    match status {
        None | Some(Value::None) | Some(Value::Int(0)) => ending("0".to_string()),
        Some(Value::Int(code)) => ending(code.to_string()).with_help_message(LibraryHostMessage::ExitStatus),
        Some(other) => ending(to_str(other)),
    }
}

/// The message of a `SystemExit` with a success status (`sys.exit()`, `sys.exit(0)`): the English
/// of `LibraryHostMessage::SystemExit` with status 0.
const SUCCESS: &str = "SystemExit: 0";

/// Whether an error is a `SystemExit` with a success status (also `raise SystemExit`).
pub(crate) fn is_success_exit(error: &super::error::RuntimeError) -> bool {
    error.kind == ErrorKind::SystemExit && (error.message == SUCCESS || error.message == "SystemExit")
}

/// `object.name` for the host modules' objects.
pub(crate) fn object_attribute(value: &Value, object: &Object, name: &str) -> Option<Value> {
    match object {
        Object::Path(path) => pathlib::attribute(value, path, name),
        Object::TextFile(file) => files::attribute(value, file, name),
        Object::RegexMatch(_) => re_module::attribute(value, name),
        Object::ArgumentParser(_) => {
            argparse::METHODS.contains(&name).then(|| Value::Method(Rc::new((value.clone(), name.to_string()))))
        }
        _ => None,
    }
}

/// Calls a method of a host module's object.
pub(crate) fn call_method(
    interpreter: &Interpreter,
    receiver: &Value,
    object: &Object,
    name: &str,
    arguments: Arguments,
    span: Span,
) -> Option<Result<Value>> {
    match object {
        Object::Path(path) => Some(pathlib::call_method(interpreter, path, name, arguments, span)),
        Object::TextFile(file) => Some(files::call_method(interpreter, file, name, arguments, span)),
        Object::RegexMatch(found) => Some(re_module::call_method(interpreter, found, name, arguments, span)),
        Object::ArgumentParser(parser) => {
            Some(argparse::call_method(interpreter, receiver, parser, name, arguments, span))
        }
        _ => None,
    }
}
