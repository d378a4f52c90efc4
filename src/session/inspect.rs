//! What the notebook asks a session between runs: the parser's diagnostics of a cell being typed
//! (no run), and a summary of the variables the cells defined (the variables panel).

use serde::Serialize;

use super::result::CellDiagnostic;
use super::run::Session;
use crate::lang::interp::{repr, Value};
use crate::lang::syntax::line_index::floor_char_boundary;
use crate::lang::syntax::{parse, LineIndex, Span};

/// One variable for the variables panel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariableSummary {
    /// Its name.
    pub name: String,
    /// Its type (`Tensor`, `kernel`, `int` …).
    pub kind: String,
    /// A tensor's dims.
    pub shape: Option<Vec<usize>>,
    /// A tensor's dtype (`DT_FP32` …).
    pub dtype: Option<String>,
    /// Whether a tensor requires grad.
    pub requires_grad: Option<bool>,
    /// A short text of the value (numbers, strings, short lists); empty for tensors and functions.
    pub preview: String,
    /// The cell that defined a function or kernel.
    pub cell: Option<usize>,
}

/// Longest value preview sent to the panel.
const MAX_PREVIEW_CHARS: usize = 60;

/// The diagnostics the parser finds in `code` (as if it were cell `cell`), without running it.
pub fn check_syntax(code: &str, cell: usize) -> Vec<CellDiagnostic> {
    let parsed = parse(code);
    let index = LineIndex::new(code);
    parsed
        .diagnostics
        .iter()
        .map(|diagnostic| {
            let start = floor_char_boundary(code, diagnostic.span.start.min(code.len()));
            let span = Span::new(start, floor_char_boundary(code, diagnostic.span.end.min(code.len())).max(start));
            let from = index.line_column(code, span.start);
            CellDiagnostic {
                severity: diagnostic.severity,
                code: diagnostic.code.to_string(),
                message: diagnostic.message.clone(),
                cell,
                span,
                line: from.line,
                column: from.column,
                help: diagnostic.help.clone(),
                note: diagnostic.note.as_ref().map(|note| note.message.clone()),
                traceback: Vec::new(),
                message_code: diagnostic.message_code.clone(),
                help_code: diagnostic.help_code.clone(),
                note_code: diagnostic.note.as_ref().and_then(|note| note.code.clone()),
            }
        })
        .collect()
}

impl Session {
    /// The variables the cells defined, by name (modules and imported names left out).
    pub fn variable_summaries(&self) -> Vec<VariableSummary> {
        let globals = self.interpreter().globals();
        globals
            .names()
            .into_iter()
            .filter_map(|name| {
                let value = globals.get(&name)?;
                let mut summary = VariableSummary {
                    name,
                    kind: value.type_name().to_string(),
                    shape: None,
                    dtype: None,
                    requires_grad: None,
                    preview: String::new(),
                    cell: None,
                };
                match &value {
                    Value::Module(_) | Value::Builtin(_) => return None,
                    Value::Tensor(object) => {
                        let var = object.get();
                        summary.shape = Some(var.shape().to_vec());
                        summary.dtype = Some(var.dtype().pypto_name().to_string());
                        summary.requires_grad = Some(var.requires_grad());
                    }
                    Value::Function(function) => summary.cell = Some(function.cell),
                    Value::Kernel(kernel) => summary.cell = Some(kernel.function.cell),
                    // A container's length, not its repr: a long list would be printed in full first.
                    Value::List(items) => summary.preview = format!("{} items", items.borrow().len()),
                    Value::Tuple(items) => summary.preview = format!("{} items", items.len()),
                    Value::Dict(entries) => summary.preview = format!("{} entries", entries.borrow().len()),
                    other => {
                        let text = repr(other);
                        summary.preview = if text.chars().count() > MAX_PREVIEW_CHARS {
                            format!("{}…", text.chars().take(MAX_PREVIEW_CHARS).collect::<String>())
                        } else {
                            text
                        };
                    }
                }
                Some(summary)
            })
            .collect()
    }
}
