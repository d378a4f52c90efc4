//! The tile script language: `syntax` turns source text into an AST with diagnostics; the
//! interpreter (a later module) runs that AST.

pub mod syntax;
