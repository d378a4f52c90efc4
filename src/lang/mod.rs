//! The tile script language: `syntax` turns source text into an AST with diagnostics; the
//! interpreter (`interp`) runs that AST: values, the builtins, the `pypto` module, limits.

pub mod interp;
pub mod syntax;
