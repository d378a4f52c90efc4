//! Runtime errors of statements: decorators, `del`, `except`, `import`, `raise` and `with`.

use serde::Serialize;

/// A runtime error of a statement, or its help.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum StatementMessage {
    /// A pypto decorator above something that is not a function.
    #[serde(rename = "decorator.target")]
    DecoratorTarget {
        /// The decorator.
        decorator: String,
        /// The decorated value's type.
        got: String,
    },
    /// Help of the decorator error.
    #[serde(rename = "decorator.one_per_function")]
    OneDecorator,
    /// `del` of something that is not a name, item or attribute.
    #[serde(rename = "delete.expression")]
    CannotDelete,
    /// `del x[i]` of a container that refuses.
    #[serde(rename = "delete.items")]
    CannotDeleteItems {
        /// The container's type.
        type_name: String,
    },
    /// Help of the delete error.
    #[serde(rename = "delete.what")]
    DeleteWhat,
    /// `nonlocal x` where no enclosing function binds `x` (or outside a function).
    #[serde(rename = "declare.no_nonlocal_binding")]
    NoNonlocalBinding {
        /// The name.
        name: String,
    },
    /// `del x.name` on a value without deletable attributes.
    #[serde(rename = "delete.attribute")]
    CannotDeleteAttribute {
        /// The attribute.
        name: String,
        /// The object's type.
        type_name: String,
    },
    /// `del x.name` of a missing attribute.
    #[serde(rename = "delete.no_attribute")]
    NothingToDelete {
        /// The attribute.
        name: String,
    },
    /// `except 3:`.
    #[serde(rename = "except.types")]
    ExceptTypes {
        /// The value's type.
        got: String,
    },
    /// Help: the forms of an except clause.
    #[serde(rename = "except.forms")]
    ExceptForms,
    /// An import of a module tile scripts do not have.
    #[serde(rename = "import.unavailable")]
    ModuleUnavailable {
        /// The module.
        module: String,
    },
    /// Help: the modules there are.
    #[serde(rename = "import.available")]
    AvailableModules,
    /// Help: a numpy submodule outside the subset.
    #[serde(rename = "import.numpy_subset")]
    NumpySubset,
    /// An import of a module that no directory of `sys.path` has.
    #[serde(rename = "import.not_found")]
    ModuleNotFound {
        /// The module.
        module: String,
    },
    /// Note: the directories an import searched.
    #[serde(rename = "import.searched")]
    SearchedDirectories {
        /// The directories, comma separated.
        directories: String,
    },
    /// Note: the page has no files to import modules from.
    #[serde(rename = "import.no_files")]
    NoFilesHere,
    /// An exception the script raised.
    #[serde(rename = "raise.exception")]
    Raised {
        /// `ValueError` …
        name: String,
        /// The exception's message, if it has one.
        text: Option<String>,
    },
    /// `raise 3`.
    #[serde(rename = "raise.not_an_exception")]
    NotAnException {
        /// The value's type.
        got: String,
    },
    /// Help: the exception types.
    #[serde(rename = "raise.exception_types")]
    ExceptionTypes,
    /// `with` of an instance whose class lacks `__enter__`/`__exit__`.
    #[serde(rename = "with.no_protocol")]
    NoContextProtocol {
        /// The class.
        class_name: String,
    },
    /// Help of the protocol error.
    #[serde(rename = "with.define_enter_exit")]
    DefineEnterExit {
        /// The class.
        class_name: String,
    },
    /// `with 3:`.
    #[serde(rename = "with.not_a_context_manager")]
    NotAContextManager {
        /// The value's type.
        type_name: String,
    },
    /// Help: the context managers there are.
    #[serde(rename = "with.context_managers")]
    ContextManagers,
    /// `with f:` where `f = pypto.function(…)`.
    #[serde(rename = "with.function_in_header")]
    FunctionInHeader,
    /// `with pypto.function("main", x + 1):`.
    #[serde(rename = "with.function_tensors_by_name")]
    FunctionTensorsByName,
    /// Help of the pypto.function errors.
    #[serde(rename = "with.write_function_header")]
    WriteFunctionHeader,
    /// `pypto.runtime._device_run_once_data_from_host(…)` before any `with pypto.function(…):`.
    #[serde(rename = "with.no_recorded_function")]
    NoRecordedFunction,
}

impl StatementMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use StatementMessage::*;
        match self {
            DecoratorTarget { decorator, got } => format!("@{decorator} decorates a function defined with `def`, not a '{got}'"),
            OneDecorator => "use one pypto decorator per function; a backward is its own `def` under @pypto.register_gradient(\"name\")".into(),
            CannotDelete => "cannot delete this expression".into(),
            CannotDeleteItems { type_name } => format!("cannot delete items of a '{type_name}' here"),
            NoNonlocalBinding { name } => format!("no binding for nonlocal '{name}' found"),
            DeleteWhat => "delete one list index or dict key; to clear a tensor region, assign zeros to it".into(),
            CannotDeleteAttribute { name, type_name } => format!("cannot delete attribute '{name}' of a {type_name}"),
            NothingToDelete { name } => format!("no attribute '{name}' to delete"),
            ExceptTypes { got } => format!("an except clause takes exception types, not a '{got}'"),
            ExceptForms => "except ValueError:, except (KeyError, IndexError):, or except Exception:".into(),
            ModuleUnavailable { module } => format!("module '{module}' is not available in tile scripts"),
            AvailableModules => "tile scripts can import pypto (`import pypto as pt`, `from pypto import …`), torch, numpy (a small part), math, dataclasses, typing, abc, copy, json, logging, inspect, pytest, and the host modules sys, os, time and argparse".into(),
            NumpySubset => "the numpy here is what pypto examples' golden checks use (`import numpy as np`: np.array, np.asarray, np.abs, np.allclose, np.float32 …, and numpy.testing.assert_allclose); for the rest use the torch module or pypto tensors (pypto.as_tensor(data), t.tolist())".into(),
            ModuleNotFound { module } => format!("no module named '{module}'"),
            SearchedDirectories { directories } => format!("searched for `.py` files and packages in: {directories}"),
            NoFilesHere => "a notebook page has no files to import modules from: put the module's code in a cell above (`tilelab run FILE` imports the .py files next to FILE)".into(),
            Raised { name, text } => match text {
                Some(text) => format!("{name}: {text}"),
                None => name.clone(),
            },
            NotAnException { got } => format!("exceptions must be exception types, not '{got}'"),
            ExceptionTypes => "raise ValueError(\"…\"), TypeError, RuntimeError, NotImplementedError, …".into(),
            NoContextProtocol { class_name } => format!("'{class_name}' object does not support the context manager protocol"),
            DefineEnterExit { class_name } => format!("define `__enter__(self)` and `__exit__(self, exc_type, exc_value, traceback)` in {class_name}"),
            NotAContextManager { type_name } => format!("a {type_name} is not a context manager"),
            ContextManagers => "use `with pypto.no_grad():`, `with pypto.options(…):`, `with pypto.function(name, *tensors):`, or an instance of a class that defines __enter__ and __exit__".into(),
            FunctionInHeader => "pypto.function must be called in the with header".into(),
            FunctionTensorsByName => "pypto.function takes tensors the block can reach: a name, or a tensor kept elsewhere (`*inputs`, `inputs[0]`), not one the header makes (`a[0:16]`)".into(),
            WriteFunctionHeader => "name each tensor in the header: `with pypto.function(\"main\", a, b, out):`".into(),
            NoRecordedFunction => "no `with pypto.function(name, *tensors):` block has been recorded to run".into(),
        }
    }
}

impl From<StatementMessage> for super::Message {
    fn from(message: StatementMessage) -> Self {
        super::Message::Runtime(super::RuntimeMessage::Statement(message))
    }
}
