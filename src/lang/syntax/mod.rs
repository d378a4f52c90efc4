//! The syntax half of the tile script language: source text → tokens (with byte spans) → an AST,
//! with every syntax error of a cell reported as a [`Diagnostic`] at its span.
//!
//! Entry point: [`parse`] (or [`parse_with_options`] to change the nesting limit). The parser never
//! panics and never gives up: the returned [`Module`] covers the whole input, with `Error` nodes
//! where the source was wrong. Render diagnostics for a terminal with [`LineIndex::render`].

pub mod ast;
pub mod cursor;
pub mod diagnostic;
pub mod lexer;
pub mod line_index;
pub mod literal;
mod parser;
pub mod span;
pub mod token;

pub use ast::Module;
pub use diagnostic::{Diagnostic, Note, Severity, SyntaxErrorKind};
pub use line_index::{LineColumn, LineIndex};
pub use span::Span;

/// Limits for the parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseOptions {
    /// The deepest nesting of brackets, operators and blocks accepted; deeper input is a
    /// `syntax/nesting-too-deep` diagnostic instead of a stack overflow.
    pub max_depth: usize,
}

impl ParseOptions {
    /// The default nesting limit (Python itself stops near 200 nested brackets).
    pub const DEFAULT_MAX_DEPTH: usize = 100;
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions { max_depth: Self::DEFAULT_MAX_DEPTH }
    }
}

/// The result of parsing: always a tree, plus every diagnostic sorted by position.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseOutput {
    /// The syntax tree (with `Error` nodes where the source was wrong).
    pub module: Module,
    /// Every problem found, errors and warnings, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

impl ParseOutput {
    /// Whether any diagnostic is an error (warnings alone do not stop a cell).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|diagnostic| diagnostic.severity == Severity::Error)
    }
}

/// Parse `source` with the default options.
pub fn parse(source: &str) -> ParseOutput {
    parse_with_options(source, ParseOptions::default())
}

/// Parse `source` with `options`.
pub fn parse_with_options(source: &str, options: ParseOptions) -> ParseOutput {
    let (module, diagnostics) = parser::parse_module(source, options);
    ParseOutput { module, diagnostics }
}
