//! Runtime errors of the interpreter: a kind (its diagnostic code), a message, the span where it
//! happened (in the cell that holds that code) and the traceback of calls that led there.

use serde::Serialize;

use crate::lang::syntax::Span;
use crate::messages::Message;

/// A byte span inside the source of one executed cell (`cell` is the session's execution number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct SourceSpan {
    /// The execution number of the cell whose source holds the span.
    pub cell: usize,
    /// The bytes.
    pub span: Span,
}

/// One call that led to an error: `function` was called at `call_site`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceFrame {
    /// The function that was running when the error left it.
    pub function: String,
    /// Where it was called.
    pub call_site: SourceSpan,
}

/// The kinds of runtime errors, each with a stable diagnostic code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ErrorKind {
    /// An undefined name.
    Name,
    /// An operation on values of the wrong type.
    Type,
    /// A value outside what a function accepts.
    Value,
    /// An index or key that does not exist.
    Index,
    /// An attribute that does not exist.
    Attribute,
    /// Division or modulo by zero.
    ZeroDivision,
    /// A failed `assert` or `assert_allclose`.
    Assertion,
    /// A tensor operation failed (shapes, dims, memory).
    Tensor,
    /// A view or write past a tensor's edge.
    ViewOutOfBounds,
    /// A tile shape that breaks the hardware rules (alignment).
    TileShape,
    /// An autograd failure (backward, custom gradients).
    Autograd,
    /// `backward()` on a value that does not require grad.
    BackwardWithoutGrad,
    /// The step budget ran out.
    StepBudget,
    /// Too many nested calls.
    CallDepth,
    /// A list, string or tensor larger than the session allows.
    SizeLimit,
    /// The session's live values exceed its memory budget (Python's `MemoryError`).
    Memory,
    /// The run passed its wall-clock deadline (`tilelab run --timeout`).
    Timeout,
    /// A construct outside the subset, or an unknown module.
    Unsupported,
    /// Integer overflow.
    Overflow,
    /// `break`/`continue`/`return` where they cannot go.
    Control,
    /// `sys.exit(status)` or a command line argparse cannot parse (Python's `SystemExit`).
    SystemExit,
    /// An import of a module no directory of `sys.path` has, or that fails to parse
    /// (Python's `ImportError`, `ModuleNotFoundError`).
    Import,
}

impl ErrorKind {
    /// The diagnostic code (`runtime/type-error`).
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::Name => "runtime/name-error",
            ErrorKind::Type => "runtime/type-error",
            ErrorKind::Value => "runtime/value-error",
            ErrorKind::Index => "runtime/index-error",
            ErrorKind::Attribute => "runtime/attribute-error",
            ErrorKind::ZeroDivision => "runtime/zero-division",
            ErrorKind::Assertion => "runtime/assertion-failed",
            ErrorKind::Tensor => "runtime/tensor-error",
            ErrorKind::ViewOutOfBounds => "runtime/view-out-of-bounds",
            ErrorKind::TileShape => "runtime/tile-shape",
            ErrorKind::Autograd => "runtime/autograd-error",
            ErrorKind::BackwardWithoutGrad => "runtime/backward-without-grad",
            ErrorKind::StepBudget => "runtime/step-budget",
            ErrorKind::CallDepth => "runtime/call-depth",
            ErrorKind::SizeLimit => "runtime/size-limit",
            ErrorKind::Memory => "runtime/memory-error",
            ErrorKind::Timeout => "runtime/timeout",
            ErrorKind::Unsupported => "runtime/unsupported",
            ErrorKind::Overflow => "runtime/overflow",
            ErrorKind::Control => "runtime/control-flow",
            ErrorKind::SystemExit => "runtime/system-exit",
            ErrorKind::Import => "runtime/import-error",
        }
    }
}

/// What a runtime error holds: its place and the calls that led to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorDetails {
    /// What went wrong.
    pub kind: ErrorKind,
    /// The message shown to the user.
    pub message: String,
    /// Where it happened.
    pub location: SourceSpan,
    /// A hint on how to fix it.
    pub help: Option<String>,
    /// Details (the worst mismatches of an assertion …).
    pub note: Option<String>,
    /// The calls from the innermost outwards.
    pub traceback: Vec<TraceFrame>,
    /// `message` as a message code with parameters, for the page's languages (common errors).
    pub message_code: Option<Message>,
    /// `help` as a message code.
    pub help_code: Option<Message>,
    /// `note` as a message code.
    pub note_code: Option<Message>,
}

/// A runtime error: a boxed `ErrorDetails`, so that `Result`s stay one pointer wide on the
/// interpreter's (recursive) hot path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuntimeError(Box<ErrorDetails>);

impl std::ops::Deref for RuntimeError {
    type Target = ErrorDetails;

    fn deref(&self) -> &ErrorDetails {
        &self.0
    }
}

impl std::ops::DerefMut for RuntimeError {
    fn deref_mut(&mut self) -> &mut ErrorDetails {
        &mut self.0
    }
}

impl RuntimeError {
    /// An error of `kind` at `location`.
    pub fn new(kind: ErrorKind, message: impl Into<String>, location: SourceSpan) -> Self {
        RuntimeError(Box::new(ErrorDetails {
            kind,
            message: message.into(),
            location,
            help: None,
            note: None,
            traceback: Vec::new(),
            message_code: None,
            help_code: None,
            note_code: None,
        }))
    }

    /// The same error with `message` as its text and its code.
    pub fn with_message(mut self, message: impl Into<Message>) -> Self {
        let message = message.into();
        self.message = message.english();
        self.message_code = Some(message);
        self
    }

    /// The same error with `help` as its hint and its code.
    pub fn with_help_message(mut self, help: impl Into<Message>) -> Self {
        let help = help.into();
        self.help = Some(help.english());
        self.help_code = Some(help);
        self
    }

    /// The same error with details given as a message code.
    pub fn with_note_message(mut self, note: impl Into<Message>) -> Self {
        let note = note.into();
        self.note = Some(note.english());
        self.note_code = Some(note);
        self
    }

    /// The same error with details.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// The same error with a hint.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl std::fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for RuntimeError {}

/// A warning found while running (rebinding a jit output, an unknown kernel option).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuntimeWarning {
    /// The diagnostic code.
    pub code: &'static str,
    /// The message.
    pub message: String,
    /// Where.
    pub location: SourceSpan,
    /// A hint.
    pub help: Option<String>,
    /// `message` as a message code with parameters, when it has one.
    pub message_code: Option<Message>,
    /// `help` as a message code.
    pub help_code: Option<Message>,
}

/// Result of the interpreter.
pub type Result<T> = std::result::Result<T, RuntimeError>;
