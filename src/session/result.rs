//! What running a cell returns, serialisable with serde: this is what the front end and the CLI
//! render. JSON shape (field names as written):
//! `{execution_count, status: "ok"|"error", stdout, displays: [{kind: "text"|"tensor"|"graph"|
//! "grad_check"|"schedule", …}], diagnostics: [{severity, code, message, cell, span: {start, end}, utf16_span, line,
//! column, end_line, end_column, help, note, traceback: [{function, cell, line, column, span, repeated}]}],
//! duration_ms, kernel_runs: [{name, vec_tile_shapes, cube_tile_shapes, options, calls}]}`.

use serde::Serialize;

use crate::autograd::{GradCheckReport, GraphData};
use crate::lang::interp::KernelRun;
use crate::lang::syntax::{Severity, Span};

/// Whether the cell ran to its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CellStatus {
    /// Ran to its end (warnings allowed).
    Ok,
    /// Stopped at a syntax or runtime error.
    Error,
}

/// The result of one `run_cell`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellResult {
    /// The cell's execution number (1, 2, …); diagnostics name cells by it.
    pub execution_count: usize,
    /// Ok or error.
    pub status: CellStatus,
    /// What `print` wrote.
    pub stdout: String,
    /// Rich displays (the value of the last expression).
    pub displays: Vec<Display>,
    /// Errors and warnings with spans.
    pub diagnostics: Vec<CellDiagnostic>,
    /// Wall time of the run in milliseconds.
    pub duration_ms: f64,
    /// Kernel calls with their recorded tile shapes and options (for the simulator views).
    pub kernel_runs: Vec<KernelRun>,
}

impl CellResult {
    /// Whether the cell ran to its end.
    pub fn is_ok(&self) -> bool {
        self.status == CellStatus::Ok
    }

    /// The first error, if any.
    pub fn error(&self) -> Option<&CellDiagnostic> {
        self.diagnostics.iter().find(|diagnostic| diagnostic.severity == Severity::Error)
    }
}

/// One line of a traceback: `function` was called at (`cell`, `line`, `column`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceLine {
    /// The function that was running.
    pub function: String,
    /// Execution number of the cell holding the call.
    pub cell: usize,
    /// 1-based line of the call in that cell.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// The call's bytes in that cell.
    pub span: Span,
    /// How many times in a row this same call appears (recursion is shown once).
    pub repeated: usize,
}

/// A diagnostic placed in a cell's source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellDiagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Stable code (`syntax/…`, `runtime/…`, `lang/…`).
    pub code: String,
    /// The message.
    pub message: String,
    /// Execution number of the cell whose source holds `span` (a function defined earlier may fail).
    pub cell: usize,
    /// Bytes in that cell's source (always on character boundaries).
    pub span: Span,
    /// The same span in UTF-16 code units from the cell's start (what JavaScript editors count).
    pub utf16_span: Span,
    /// 1-based line of the span's start.
    pub line: usize,
    /// 1-based column of the start (characters).
    pub column: usize,
    /// 1-based line of the span's end.
    pub end_line: usize,
    /// 1-based column of the end.
    pub end_column: usize,
    /// How to fix it.
    pub help: Option<String>,
    /// More context.
    pub note: Option<String>,
    /// Calls that led to it, innermost first.
    pub traceback: Vec<TraceLine>,
}

/// A rich display.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Display {
    /// A value shown as text (its repr).
    Text {
        /// The text.
        text: String,
    },
    /// A tensor.
    Tensor(TensorDisplay),
    /// A forward (and backward) graph.
    Graph(GraphDisplay),
    /// A gradient-check report.
    GradCheck(GradCheckDisplay),
    /// A simulated kernel schedule (`pypto.schedule`).
    Schedule(ScheduleDisplay),
    /// Cycles per vec tile shape, the best marked (`pypto.npu.sweep`).
    Sweep(SweepDisplay),
}

/// A tensor for display: shape, dtype, a preview of values and statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TensorDisplay {
    /// Dims.
    pub shape: Vec<usize>,
    /// `DT_FP32` …
    pub dtype: String,
    /// Whether it is part of a graph.
    pub requires_grad: bool,
    /// Nested-list text with `...` for long dims.
    pub preview: String,
    /// The first values (row-major, at most `TensorDisplay::MAX_VALUES`) for tables and heatmaps.
    pub values: Vec<f64>,
    /// Smallest element (NaN ignored; `None` when empty).
    pub min: Option<f64>,
    /// Largest element.
    pub max: Option<f64>,
    /// Mean of the elements.
    pub mean: Option<f64>,
}

impl TensorDisplay {
    /// How many values a display carries.
    pub const MAX_VALUES: usize = 4096;
}

/// A simulated schedule for display: the summary figures and the Chrome trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScheduleDisplay {
    /// Cycles, time, busy fraction per pipe, GM bytes, bound, peak occupancy per memory, notes.
    pub summary: crate::npu::Summary,
    /// Chrome Trace Event JSON (opens in Perfetto).
    pub trace_json: String,
}

/// A tile sweep for display: the rows (cycles, time, bound, UB peak or the error) and the best.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepDisplay {
    /// Kernel, preset, rows and the index of the best row.
    #[serde(flatten)]
    pub table: crate::lang::interp::pypto::sweep::SweepTable,
}

/// A graph for display.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphDisplay {
    /// Forward nodes.
    pub num_nodes: usize,
    /// Backward nodes (0 before any backward).
    pub num_backward_nodes: usize,
    /// Graphviz text.
    pub dot: String,
    /// The graph as data.
    pub graph: GraphData,
}

/// A gradient-check report for display.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GradCheckDisplay {
    /// Whether every input passed.
    pub passed: bool,
    /// Largest absolute error over the inputs.
    pub max_abs_err: f64,
    /// Largest relative error.
    pub max_rel_err: f64,
    /// Where each side ran (the analytic side in the inputs' dtypes, the numerical in f64 on the CPU).
    pub sides: String,
    /// The full report (per input: tolerance, worst elements, non-differentiable points).
    pub report: GradCheckReport,
}
