//! The user's own modules: `import helpers`, `from pkg.sub import f` of `.py` files found in the
//! directories of `sys.path` (the CLI starts it with the script's directory and `PYTHONPATH`).
//! The interpreter reads no files itself (it compiles to wasm): whoever runs it passes a
//! [`ModuleLoader`]; the page passes none, and an import of a module it does not know says that a
//! notebook page has no files. Each module runs once, in globals of its own (`__name__` is its
//! dotted name, `__file__` its path), as a cell of its own: its spans, tracebacks and functions
//! belong to its source. A module is cached before its body runs, so an import cycle gets the
//! partly run module (as Python does) instead of running forever.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::error::{ErrorKind, Result, SourceSpan, TraceFrame};
use super::interpreter::Interpreter;
use super::scope::Scope;
use super::value::Value;
use crate::lang::syntax::{parse, Span};
use crate::messages::StatementMessage;

/// The execution number of the first module cell (notebook cells count from 1, far below).
pub const FIRST_MODULE_CELL: usize = 1 << 30;

/// Reads the files of the user's modules (the CLI's is `std::fs`).
pub trait ModuleLoader {
    /// The text of the file at `path`, if it is a readable file.
    fn read_file(&self, path: &str) -> Option<String>;
    /// Whether `path` is a directory.
    fn is_directory(&self, path: &str) -> bool;
    /// Whether anything is at `path` (`pathlib.Path.exists`).
    fn exists(&self, path: &str) -> bool {
        self.is_directory(path) || self.read_file(path).is_some()
    }
    /// The working directory relative paths start from (`Path.resolve`, `os.getcwd`).
    fn current_directory(&self) -> Option<String> {
        None
    }
    /// The names in the directory at `path`, sorted (`os.listdir`); `None` when it is none.
    fn list_directory(&self, path: &str) -> Option<Vec<String>> {
        let _ = path;
        None
    }
    /// When the file or directory at `path` last changed, in seconds since the epoch
    /// (`os.path.getmtime`, `getctime`); `None` when nothing is there.
    fn modified_seconds(&self, path: &str) -> Option<f64> {
        let _ = path;
        None
    }
    /// Writes `text` to the file at `path`, making its folders (pypto's cost model output); hosts
    /// without files write nothing.
    fn write_file(&self, path: &str, text: &str) -> std::result::Result<(), String> {
        let _ = (path, text);
        Ok(())
    }
}

/// A module loaded from a file: its globals, and the directory its submodules are in when it is a
/// package.
pub(crate) struct UserModule {
    pub(crate) globals: Rc<Scope>,
    package_directory: Option<String>,
}

/// The session's loader and the modules it loaded, by dotted name.
#[derive(Default)]
pub(crate) struct UserModules {
    loader: RefCell<Option<Box<dyn ModuleLoader>>>,
    modules: RefCell<HashMap<String, Rc<UserModule>>>,
    /// The path and source of each module cell, in cell order from `FIRST_MODULE_CELL`.
    sources: RefCell<Vec<(String, Rc<str>)>>,
}

impl UserModules {
    /// The path and source of module cell `cell`.
    pub(crate) fn source(&self, cell: usize) -> Option<(String, Rc<str>)> {
        self.sources.borrow().get(cell.checked_sub(FIRST_MODULE_CELL)?).cloned()
    }

    /// The globals of the loaded module `name`.
    pub(crate) fn globals(&self, name: &str) -> Option<Rc<Scope>> {
        self.modules.borrow().get(name).map(|module| module.globals.clone())
    }
}

impl Interpreter {
    /// Sets the loader that finds the user's modules (`None`: there are no files).
    pub fn set_module_loader(&self, loader: Option<Box<dyn ModuleLoader>>) {
        *self.user_modules.loader.borrow_mut() = loader;
    }

    /// The path and source of module cell `cell` (a module the script imported).
    pub fn module_source(&self, cell: usize) -> Option<(String, Rc<str>)> {
        self.user_modules.source(cell)
    }

    /// Loads the user module `full` (dotted) and its parent packages, each once: `Ok(false)` when
    /// there is no loader or no such file (the caller then reports what it searched).
    /// `read(files)` with the host's files, or `None` without a host that has files (the page).
    pub(crate) fn with_host_files<T>(&self, read: impl FnOnce(&dyn ModuleLoader) -> T) -> Option<T> {
        self.user_modules.loader.borrow().as_deref().map(read)
    }

    /// The working directory: the host's, or `/notebook` in the page.
    pub(crate) fn current_directory(&self) -> String {
        self.with_host_files(|files| files.current_directory())
            .flatten()
            .unwrap_or_else(|| super::host::DEFAULT_DIRECTORY.to_string())
    }

    pub(crate) fn load_user_module(&self, full: &str, span: Span) -> Result<bool> {
        if self.user_modules.modules.borrow().contains_key(full) {
            return Ok(true);
        }
        if self.user_modules.loader.borrow().is_none() {
            return Ok(false);
        }
        let (parent, last) = match full.rsplit_once('.') {
            Some((parent, last)) => (Some(parent), last),
            None => (None, full),
        };
        let directories = match parent {
            Some(parent) => {
                if !self.load_user_module(parent, span)? {
                    return Ok(false);
                }
                let modules = self.user_modules.modules.borrow();
                match modules.get(parent).and_then(|module| module.package_directory.clone()) {
                    Some(directory) => vec![directory],
                    None => return Ok(false),
                }
            }
            None => self.search_path(),
        };
        let Some((path, source, package_directory)) = self.find_module_file(last, &directories) else {
            return Ok(false);
        };
        self.run_user_module(full, &path, &source, package_directory, span)?;
        if let Some(globals) = parent.and_then(|parent| self.user_modules.globals(parent)) {
            globals.set(last, Value::Module(Rc::from(full)));
        }
        Ok(true)
    }

    /// The directories of `sys.path`, as strings.
    pub(crate) fn search_path(&self) -> Vec<String> {
        match &self.host.path {
            Value::List(items) => items.borrow().iter().map(super::format::to_str).collect(),
            _ => Vec::new(),
        }
    }

    /// `name.py`, `name/__init__.py`, then a directory `name` (a namespace package) in the first
    /// directory that has one: its path, source and package directory.
    fn find_module_file(&self, name: &str, directories: &[String]) -> Option<(String, String, Option<String>)> {
        let loader = self.user_modules.loader.borrow();
        let loader = loader.as_ref()?;
        let join = |directory: &str, name: &str| {
            if directory.is_empty() || directory == "." {
                name.to_string()
            } else {
                format!("{}/{name}", directory.trim_end_matches('/'))
            }
        };
        for directory in directories {
            let package = join(directory, name);
            let init = join(&package, "__init__.py");
            if let Some(source) = loader.read_file(&init) {
                return Some((init, source, Some(package)));
            }
            let file = format!("{package}.py");
            if let Some(source) = loader.read_file(&file) {
                return Some((file, source, None));
            }
        }
        directories.iter().map(|directory| join(directory, name)).find(|package| loader.is_directory(package)).map(
            |package| {
                let init = join(&package, "__init__.py");
                (init, String::new(), Some(package))
            },
        )
    }

    /// Runs a module's source in globals of its own, as module cell `cell` (cached first).
    fn run_user_module(
        &self,
        full: &str,
        path: &str,
        source: &str,
        package_directory: Option<String>,
        span: Span,
    ) -> Result<()> {
        let cell = {
            let mut sources = self.user_modules.sources.borrow_mut();
            sources.push((path.to_string(), Rc::from(source)));
            FIRST_MODULE_CELL + sources.len() - 1
        };
        self.set_cell_source(cell, source);
        let globals = Scope::root();
        globals.set("__name__", Value::string(full));
        globals.set("__file__", Value::string(path));
        let module = Rc::new(UserModule { globals: globals.clone(), package_directory });
        self.user_modules.modules.borrow_mut().insert(full.to_string(), module);
        let parsed = parse(source);
        if let Some(first) =
            parsed.diagnostics.iter().find(|diagnostic| diagnostic.severity == crate::lang::syntax::Severity::Error)
        {
            self.user_modules.modules.borrow_mut().remove(full);
            let location = SourceSpan { cell, span: first.span };
            let mut error = super::error::RuntimeError::new(ErrorKind::Import, first.message.clone(), location);
            error.message_code = first.message_code.clone();
            return Err(with_import_frame(error, self.at(span)));
        }
        self.cells.borrow_mut().push(cell);
        let ran = parsed.module.body.iter().try_for_each(|statement| match self.exec(statement, &globals)? {
            super::exec::Flow::Normal => Ok(()),
            _ => {
                Err(self.coded(ErrorKind::Control, crate::messages::OperationMessage::OutsideFunction, statement.span))
            }
        });
        self.cells.borrow_mut().pop();
        if let Err(error) = ran {
            // A module that failed is not cached (a later import runs it again, as in Python).
            self.user_modules.modules.borrow_mut().remove(full);
            return Err(with_import_frame(error, self.at(span)));
        }
        Ok(())
    }

    /// Whether `module.name` is a user module's name, or pypto's `SymInt` (which scripts import
    /// from `pypto` and `pypto.symbolic_scalar` for their annotations).
    pub(crate) fn is_script_module_attribute(&self, module: &str, name: &str) -> bool {
        self.user_modules.globals(module).is_some()
            || (name == "SymInt" && matches!(module, "pypto" | "pypto.symbolic_scalar"))
    }

    /// `module.name` of a user module: a name of its globals, or a submodule (imported now);
    /// `SymInt` is `int` (loop bounds and shapes are concrete here).
    pub(crate) fn user_module_attribute(&self, module: &str, name: &str, span: Span) -> Result<Value> {
        if name == "SymInt" && self.user_modules.globals(module).is_none() {
            return Ok(Value::Builtin(Rc::from("int")));
        }
        if let Some(value) = self.user_modules.globals(module).and_then(|globals| globals.get(name)) {
            return Ok(value);
        }
        let submodule = format!("{module}.{name}");
        if self.load_user_module(&submodule, span)? {
            return Ok(Value::Module(Rc::from(submodule.as_str())));
        }
        let message =
            crate::messages::RuntimeMessage::NoAttribute { type_name: format!("module '{module}'"), name: name.into() };
        Err(self.error(ErrorKind::Attribute, "", span).with_message(message))
    }

    /// Whether a loader reads the user's modules (the CLI has one, the page none).
    pub(crate) fn has_module_loader(&self) -> bool {
        self.user_modules.loader.borrow().is_some()
    }

    /// The error of an import of `full` that no directory of `sys.path` has (it names them).
    pub(crate) fn module_not_found(&self, full: &str, span: Span) -> super::error::RuntimeError {
        let searched = self.search_path().join(", ");
        self.coded(ErrorKind::Import, StatementMessage::ModuleNotFound { module: full.into() }, span)
            .with_note_message(StatementMessage::SearchedDirectories { directories: searched })
    }
}

/// The error with the import that ran the module as the outermost frame of its traceback.
fn with_import_frame(mut error: super::error::RuntimeError, import: SourceSpan) -> super::error::RuntimeError {
    error.traceback.push(TraceFrame { function: "<module>".into(), call_site: import });
    error
}
