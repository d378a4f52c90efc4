//! The interpreter of tile scripts: values, scopes, evaluation of the statements and expressions of
//! the subset (DESIGN §2), the builtins, the `pypto` module (tensors on autograd `Var`s, kernels,
//! registered gradients, checks, displays), limits (step budget, call depth, sizes) and runtime
//! errors with spans and tracebacks.
//!
//! Entry point: [`Interpreter::new`] then [`Interpreter::run_module`] per cell (the session wraps it).
//!
//! Where the semantics knowingly differ from CPython: ints are 64-bit (overflow is an error, not a
//! bignum); a name assigned in a function is local from the assignment on (reading the global first
//! is allowed); tensors compare only through `pypto.allclose`. Tensor writes (`x[...] = v`,
//! `x += v`, `assemble`) are in place: without autograd they write the buffer (aliases see them),
//! with autograd the object takes the recorded result, and a user leaf with `requires_grad` refuses
//! (as in torch). Kernels run through one function, `pypto::kernel_call::run_kernel`, on the simulated
//! NPU; what the recorder cannot express runs on the CPU reference path with an `npu/cpu-fallback`
//! warning.

pub mod api_table;
mod bitwise;
mod builtins;
mod call;
mod classes;
mod comprehension;
mod cost;
mod decorators;
mod delete;
mod dict_methods;
mod error;
mod eval;
mod exec;
pub mod format;
mod functional;
mod handling;
pub mod host;
mod imports;
mod interpreter;
mod lines;
mod numpy;
mod numpy_random;
mod operators;
mod ordering;
pub mod progress;
pub mod pypto;
mod raising;
mod scope;
mod scope_collect;
mod sequences;
mod sets;
mod sizes;
mod string_format;
mod string_methods;
mod subscript;
pub mod torch;
mod user_modules;
mod value;
mod value_drop;
mod with_statement;

pub use error::{ErrorDetails, ErrorKind, Result, RuntimeError, RuntimeWarning, SourceSpan, TraceFrame};
pub use format::{format_float, repr, to_str};
pub use interpreter::{Interpreter, Limits};

pub use scope::Scope;
pub use user_modules::{ModuleLoader, FIRST_MODULE_CELL};
pub use value::{Function, Kernel, KernelStyle, Object, TensorObject, Value};
