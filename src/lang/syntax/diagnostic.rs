//! Diagnostics: a severity, a stable code, a message a beginner understands, a byte span, and an
//! optional note (with its own span) and help line.

use super::span::Span;
use crate::messages::Message;
use serde::Serialize;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The cell cannot run.
    Error,
    /// The cell runs, but probably not as meant.
    Warning,
}

impl Severity {
    /// The lowercase word used when rendering (`error`, `warning`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A secondary message, usually pointing at a related place ("'(' opened here").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Note {
    /// The note's text.
    pub message: String,
    /// Where the note points, if anywhere.
    pub span: Option<Span>,
    /// `message` as a message code, for the page's languages.
    pub code: Option<Message>,
}

/// One problem found in the source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A stable kebab-case code such as `syntax/unclosed-bracket` (see [`SyntaxErrorKind`]).
    pub code: &'static str,
    /// The main message.
    pub message: String,
    /// The byte span the message is about.
    pub span: Span,
    /// An optional related note.
    pub note: Option<Note>,
    /// An optional suggestion ("use `assert cond, message`").
    pub help: Option<String>,
    /// `message` as a message code with parameters (the page renders it in its language).
    pub message_code: Option<Message>,
    /// `help` as a message code.
    pub help_code: Option<Message>,
}

impl Diagnostic {
    /// An error with `code`, `message` and `span`.
    pub fn error(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Diagnostic::new(Severity::Error, code, message.into(), span)
    }

    /// A warning with `code`, `message` and `span`.
    pub fn warning(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Diagnostic::new(Severity::Warning, code, message.into(), span)
    }

    fn new(severity: Severity, code: &'static str, message: String, span: Span) -> Self {
        Diagnostic { severity, code, message, span, note: None, help: None, message_code: None, help_code: None }
    }

    /// The same diagnostic with `message` as its text and its code.
    pub fn with_message(mut self, message: impl Into<Message>) -> Self {
        let message = message.into();
        self.message = message.english();
        self.message_code = Some(message);
        self
    }

    /// The same diagnostic with a help line given as a message code.
    pub fn with_help_message(mut self, help: impl Into<Message>) -> Self {
        let help = help.into();
        self.help = Some(help.english());
        self.help_code = Some(help);
        self
    }

    /// The same diagnostic with a note given as a message code.
    pub fn with_note_message(mut self, note: impl Into<Message>, span: Option<Span>) -> Self {
        let note = note.into();
        self.note = Some(Note { message: note.english(), span, code: Some(note) });
        self
    }

    /// The same diagnostic with a note attached.
    pub fn with_note(mut self, message: impl Into<String>, span: Option<Span>) -> Self {
        self.note = Some(Note { message: message.into(), span, code: None });
        self
    }

    /// The same diagnostic with a help line attached.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// Every kind of diagnostic the syntax layer produces; each has its own code and a fixture under
/// `tests/fixtures/syntax/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SyntaxErrorKind {
    /// A character that cannot start any token (`$`, `?`).
    InvalidCharacter,
    /// Full-width punctuation typed with a Chinese input method (`，` for `,`).
    FullWidthPunctuation,
    /// A string literal without its closing quote.
    UnterminatedString,
    /// A malformed or out-of-range number literal.
    InvalidNumber,
    /// An escape sequence Python does not know (a warning, as in Python).
    InvalidEscape,
    /// A malformed f-string.
    InvalidFString,
    /// Tabs and spaces mixed so that the indentation is ambiguous.
    MixedTabsAndSpaces,
    /// A dedent to a column no enclosing block uses.
    InconsistentDedent,
    /// An indented line where no block starts.
    UnexpectedIndent,
    /// A block header (`if …:`) with no indented body.
    ExpectedIndentedBlock,
    /// An opening bracket that is never closed.
    UnclosedBracket,
    /// A closing bracket of the wrong type.
    MismatchedBracket,
    /// A closing bracket with no opening one.
    UnmatchedClosingBracket,
    /// A backslash not at the end of a line.
    InvalidLineContinuation,
    /// A place where an expression is required but something else is found.
    ExpectedExpression,
    /// A required token (`:`, `)`, `in` …) is missing.
    ExpectedToken,
    /// A token that makes no sense where it is.
    UnexpectedToken,
    /// The left side of `=` (or `for … in`) is not assignable.
    InvalidAssignmentTarget,
    /// Parameters of a `def` that break Python's rules (duplicates, order).
    InvalidParameters,
    /// Call arguments that break Python's rules (positional after keyword, repeated keyword).
    InvalidArguments,
    /// `break`/`continue` outside a loop, `return` outside a `def`.
    OutsideContext,
    /// A Python feature outside the tile script subset.
    Unsupported,
    /// Nesting deeper than `ParseOptions::max_depth`.
    NestingTooDeep,
}

impl SyntaxErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [SyntaxErrorKind; 23] = [
        SyntaxErrorKind::InvalidCharacter,
        SyntaxErrorKind::FullWidthPunctuation,
        SyntaxErrorKind::UnterminatedString,
        SyntaxErrorKind::InvalidNumber,
        SyntaxErrorKind::InvalidEscape,
        SyntaxErrorKind::InvalidFString,
        SyntaxErrorKind::MixedTabsAndSpaces,
        SyntaxErrorKind::InconsistentDedent,
        SyntaxErrorKind::UnexpectedIndent,
        SyntaxErrorKind::ExpectedIndentedBlock,
        SyntaxErrorKind::UnclosedBracket,
        SyntaxErrorKind::MismatchedBracket,
        SyntaxErrorKind::UnmatchedClosingBracket,
        SyntaxErrorKind::InvalidLineContinuation,
        SyntaxErrorKind::ExpectedExpression,
        SyntaxErrorKind::ExpectedToken,
        SyntaxErrorKind::UnexpectedToken,
        SyntaxErrorKind::InvalidAssignmentTarget,
        SyntaxErrorKind::InvalidParameters,
        SyntaxErrorKind::InvalidArguments,
        SyntaxErrorKind::OutsideContext,
        SyntaxErrorKind::Unsupported,
        SyntaxErrorKind::NestingTooDeep,
    ];

    /// The stable code stored in [`Diagnostic::code`].
    pub fn code(self) -> &'static str {
        match self {
            SyntaxErrorKind::InvalidCharacter => "syntax/invalid-character",
            SyntaxErrorKind::FullWidthPunctuation => "syntax/full-width-punctuation",
            SyntaxErrorKind::UnterminatedString => "syntax/unterminated-string",
            SyntaxErrorKind::InvalidNumber => "syntax/invalid-number",
            SyntaxErrorKind::InvalidEscape => "syntax/invalid-escape",
            SyntaxErrorKind::InvalidFString => "syntax/invalid-f-string",
            SyntaxErrorKind::MixedTabsAndSpaces => "syntax/mixed-tabs-and-spaces",
            SyntaxErrorKind::InconsistentDedent => "syntax/inconsistent-dedent",
            SyntaxErrorKind::UnexpectedIndent => "syntax/unexpected-indent",
            SyntaxErrorKind::ExpectedIndentedBlock => "syntax/expected-indented-block",
            SyntaxErrorKind::UnclosedBracket => "syntax/unclosed-bracket",
            SyntaxErrorKind::MismatchedBracket => "syntax/mismatched-bracket",
            SyntaxErrorKind::UnmatchedClosingBracket => "syntax/unmatched-closing-bracket",
            SyntaxErrorKind::InvalidLineContinuation => "syntax/invalid-line-continuation",
            SyntaxErrorKind::ExpectedExpression => "syntax/expected-expression",
            SyntaxErrorKind::ExpectedToken => "syntax/expected-token",
            SyntaxErrorKind::UnexpectedToken => "syntax/unexpected-token",
            SyntaxErrorKind::InvalidAssignmentTarget => "syntax/invalid-assignment-target",
            SyntaxErrorKind::InvalidParameters => "syntax/invalid-parameters",
            SyntaxErrorKind::InvalidArguments => "syntax/invalid-arguments",
            SyntaxErrorKind::OutsideContext => "syntax/outside-context",
            SyntaxErrorKind::Unsupported => "syntax/unsupported",
            SyntaxErrorKind::NestingTooDeep => "syntax/nesting-too-deep",
        }
    }

    /// An error of this kind.
    pub fn error(self, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::error(self.code(), message, span)
    }

    /// An error of this kind whose message is a message code.
    pub fn coded(self, message: impl Into<Message>, span: Span) -> Diagnostic {
        Diagnostic::error(self.code(), "", span).with_message(message)
    }

    /// A warning of this kind whose message is a message code.
    pub fn coded_warning(self, message: impl Into<Message>, span: Span) -> Diagnostic {
        Diagnostic::warning(self.code(), "", span).with_message(message)
    }

    /// A warning of this kind.
    pub fn warning(self, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic::warning(self.code(), message, span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_prefixed() {
        let mut codes: Vec<&str> = SyntaxErrorKind::ALL.iter().map(|kind| kind.code()).collect();
        assert!(codes.iter().all(|code| code.starts_with("syntax/")));
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), SyntaxErrorKind::ALL.len());
    }

    #[test]
    fn builders_fill_the_optional_parts() {
        let diagnostic = SyntaxErrorKind::UnclosedBracket
            .error("unclosed '(' opened here", Span::new(0, 1))
            .with_note("closed nowhere", Some(Span::empty(5)))
            .with_help("add ')'");
        assert_eq!(diagnostic.severity, Severity::Error);
        assert_eq!(diagnostic.code, "syntax/unclosed-bracket");
        assert_eq!(diagnostic.note.as_ref().map(|note| note.span), Some(Some(Span::empty(5))));
        assert_eq!(diagnostic.help.as_deref(), Some("add ')'"));
    }
}
