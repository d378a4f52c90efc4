//! The interpreter of tile scripts: values, scopes, evaluation of the statements and expressions of
//! the subset (DESIGN §2), the builtins, the `pypto` module (tensors on autograd `Var`s, kernels,
//! registered gradients, checks, displays), limits (step budget, call depth, sizes) and runtime
//! errors with spans and tracebacks.
//!
//! Entry point: [`Interpreter::new`] then [`Interpreter::run_module`] per cell (the session wraps it).

mod builtins;
mod call;
mod error;
mod eval;
mod exec;
pub mod format;
mod interpreter;
mod operators;
pub mod pypto;
mod scope;
mod subscript;
mod value;

pub use error::{ErrorDetails, ErrorKind, Result, RuntimeError, RuntimeWarning, SourceSpan, TraceFrame};
pub use format::{format_float, repr, to_str};
pub use interpreter::{Interpreter, KernelRun, Limits};

pub use scope::Scope;
pub use value::{Function, Kernel, KernelStyle, Object, TensorObject, Value};
