//! What running a cell returns, serialisable with serde: this is what the front end and the CLI
//! render. Its JSON form is declared once, in TypeScript generated from these types
//! (`www/engine/contract.d.ts`, see [`super::contract`]).

use serde::Serialize;

use crate::autograd::gradcheck::InputReport;
use crate::autograd::{GradCheckReport, GraphData};
use crate::lang::syntax::{Severity, Span};

/// Whether the cell ran to its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum CellStatus {
    /// Ran to its end (warnings allowed).
    Ok,
    /// Stopped at a syntax or runtime error.
    Error,
}

/// The result of one `run_cell`.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
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
    /// The NPU schedule of each kernel the cell called (its last call), in first-call order.
    pub kernel_schedules: Vec<KernelSchedule>,
}

/// The NPU schedule of one kernel a cell called, shown after the cell's output.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct KernelSchedule {
    /// The kernel's name.
    pub kernel: String,
    /// How many of the cell's calls of it ran on the NPU.
    pub calls: usize,
    /// The execution number of the cell that defined it: the trace's source lines are its lines.
    pub cell: Option<usize>,
    /// The schedule of the last call. Its `trace_json` is empty: the trace is kept by the session
    /// under `trace_key` for the page to ask for when its reader opens it (`Session::kernel_trace`).
    pub schedule: ScheduleDisplay,
    /// The key of the last call's trace (`Session::kernel_trace`); None when the trace is too
    /// large to send (over [`KernelSchedule::MAX_TRACE_EVENTS`] events).
    pub trace_key: Option<String>,
}

impl KernelSchedule {
    /// Kernels listed per cell; a cell calling more shows the first ones.
    pub const MAX_KERNELS: usize = 8;
    /// Events above which the automatic view offers the summary only (`pypto.schedule` still
    /// returns the whole trace): keeps every trace the page asks for small enough to post and draw.
    pub const MAX_TRACE_EVENTS: usize = 50_000;
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
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
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
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
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
    /// 1-based line of the span's start.
    pub line: usize,
    /// 1-based column of the start (characters).
    pub column: usize,
    /// How to fix it.
    pub help: Option<String>,
    /// More context.
    pub note: Option<String>,
    /// Calls that led to it, innermost first.
    pub traceback: Vec<TraceLine>,
    /// `message` as a message code with parameters (the common diagnostics; the page renders it in
    /// its language, `message` stays the English).
    pub message_code: Option<crate::messages::Message>,
    /// `help` as a message code.
    pub help_code: Option<crate::messages::Message>,
    /// `note` as a message code.
    pub note_code: Option<crate::messages::Message>,
}

/// A rich display.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
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
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
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
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ScheduleDisplay {
    /// Cycles, time, busy fraction per pipe, GM bytes, bound, peak occupancy per memory, notes.
    pub summary: crate::npu::Summary,
    /// Chrome Trace Event JSON (opens in Perfetto).
    pub trace_json: String,
    /// The execution number of the cell that defined the kernel: the trace's source lines are its
    /// lines (None when unknown; the page then uses the cell showing the display).
    pub cell: Option<usize>,
}

/// A tile sweep for display: the rows (cycles, time, bound, UB peak or the error) and the best.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(as = "crate::lang::interp::pypto::sweep::SweepTable")]
pub struct SweepDisplay {
    /// Kernel, preset, rows and the index of the best row.
    #[serde(flatten)]
    pub table: crate::lang::interp::pypto::sweep::SweepTable,
}

/// A graph for display.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
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
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct GradCheckDisplay {
    /// Whether every input passed.
    pub passed: bool,
    /// Largest absolute error over the inputs.
    pub max_abs_err: f64,
    /// Largest relative error.
    pub max_rel_err: f64,
    /// Where each side ran (the analytic side in the inputs' dtypes, the numerical in f64 on the CPU).
    pub sides: String,
    /// The same as a message code with its parameters, which the page renders in its language.
    pub sides_message: Option<crate::messages::Message>,
    /// The full report (per input: tolerance, worst elements, non-differentiable points); its
    /// `element_errors` are moved to `error_maps`.
    pub report: GradCheckReport,
    /// Per input (full mode only), the error ratio of each element for the heatmap.
    pub error_maps: Vec<ErrorMap>,
    /// The sizes up to which the automatic mode compares every Jacobian entry (beyond them it
    /// compares random projections), so the page can say why a mode ran.
    pub full_limits: FullLimits,
}

/// When `check_gradient` compares the full Jacobian rather than projections.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ts_rs::TS)]
pub struct FullLimits {
    /// Most Jacobian entries (outputs × input elements) for the full mode.
    pub jacobian_entries: usize,
    /// Most input elements (all inputs together) for the full mode.
    pub input_elements: usize,
}

impl GradCheckDisplay {
    /// The display of `report`: the per-element errors leave the report for capped error maps.
    pub fn from_report(report: &GradCheckReport, sides: String) -> GradCheckDisplay {
        let mut report = report.clone();
        let error_maps = report
            .inputs
            .iter_mut()
            .filter(|input| !input.element_errors.is_empty())
            .map(ErrorMap::take_from)
            .collect();
        GradCheckDisplay {
            passed: report.passed,
            max_abs_err: report.inputs.iter().map(|input| input.max_abs_error).fold(0.0, f64::max),
            max_rel_err: report.inputs.iter().map(|input| input.max_rel_error).fold(0.0, f64::max),
            sides,
            sides_message: None,
            report,
            error_maps,
            full_limits: FullLimits {
                jacobian_entries: crate::autograd::CheckOptions::default().full_limit,
                input_elements: crate::autograd::gradcheck::FULL_INPUT_LIMIT,
            },
        }
    }
}

/// One input's per-element error ratios: |analytic − numerical| / (atol·scale + rtol·|numerical|),
/// the largest over the element's Jacobian entries, so > 1 fails.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ErrorMap {
    /// Position among the inputs.
    pub input: usize,
    /// The input's shape.
    pub shape: Vec<usize>,
    /// The first `ErrorMap::MAX_ELEMENTS` ratios, row-major (∞ becomes null in JSON).
    pub errors: Vec<f64>,
    /// How many elements the input has.
    pub total: usize,
    /// Whether `errors` stops before `total`.
    pub truncated: bool,
}

impl ErrorMap {
    /// Ratios carried per input at most (a 64×64 input).
    pub const MAX_ELEMENTS: usize = 4096;

    /// The map of `input`, leaving its `element_errors` empty.
    fn take_from(input: &mut InputReport) -> ErrorMap {
        let mut errors = std::mem::take(&mut input.element_errors);
        let total = errors.len();
        errors.truncate(Self::MAX_ELEMENTS);
        ErrorMap { input: input.input, shape: input.shape.clone(), truncated: errors.len() < total, errors, total }
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::autograd::gradcheck::{check_gradient, CheckOptions, Tolerance};
    use crate::autograd::{call_custom, register_custom_op, Attributes, CustomBackward, ForwardOutput, Var};
    use crate::tensor::{BinaryOp, DType, Tensor};

    /// f(x) = x² element-wise with a wrong backward 3x (the true derivative is 2x). In f64 the
    /// central difference of x² is 2x up to rounding, and off-diagonal Jacobian entries are exactly
    /// 0 on both sides, so element i's ratio is |3xᵢ − 2xᵢ| / (atol·scale + rtol·|2xᵢ|) with the f64
    /// tolerances and scale = max(1, max|3xᵢ|) = 9 for these x.
    #[test]
    fn error_maps_carry_each_elements_error_over_its_tolerance() {
        let forward = Rc::new(|inputs: &[Tensor], _: &Attributes| -> crate::autograd::Result<ForwardOutput> {
            Ok(ForwardOutput { outputs: vec![inputs[0].binary(BinaryOp::Mul, &inputs[0])?], saved: vec![] })
        });
        let backward: CustomBackward =
            Rc::new(|grads: &[Var], saved: &[Var], _| Ok(vec![Some(grads[0].mul(&saved[0].scale(3.0)?)?)]));
        register_custom_op("square_with_wrong_backward", forward, Some(backward));
        let x_values = [-2.0, -1.0, 0.5, 0.0, 1.5, 3.0];
        let x = Tensor::from_f64(x_values.to_vec(), &[2, 3], DType::F64).unwrap();
        let function =
            |vars: &[Var]| Ok(call_custom("square_with_wrong_backward", &vars[..1], Attributes::new())?.remove(0));
        let report = check_gradient(&function, &[x], &CheckOptions::default()).unwrap();
        assert!(!report.passed);
        let display = GradCheckDisplay::from_report(&report, String::new());
        assert!(display.report.inputs[0].element_errors.is_empty(), "the ratios move to the error map");
        let map = &display.error_maps[0];
        assert_eq!((map.input, map.shape.clone(), map.total, map.truncated), (0, vec![2, 3], 6, false));
        let tolerance = Tolerance::for_dtype(DType::F64);
        for (i, &x) in x_values.iter().enumerate() {
            let expected = x.abs() / (tolerance.atol * 9.0 + tolerance.rtol * (2.0 * x).abs());
            assert!(
                (map.errors[i] - expected).abs() <= 1e-6 * expected,
                "element {i}: {} vs {expected}",
                map.errors[i]
            );
        }
    }

    /// An input of 5000 elements keeps its first 4096 ratios, flagged as truncated.
    #[test]
    fn error_maps_are_capped_and_flagged() {
        let report = check_gradient(
            &|vars: &[Var]| vars[0].mul(&vars[0]),
            &[Tensor::from_f64(vec![1.0; 4], &[4], DType::F64).unwrap()],
            &CheckOptions::default(),
        )
        .unwrap();
        let mut report = report.clone();
        report.inputs[0].shape = vec![50, 100];
        report.inputs[0].element_errors = (0..5000).map(f64::from).collect();
        let display = GradCheckDisplay::from_report(&report, String::new());
        let map = &display.error_maps[0];
        assert_eq!((map.errors.len(), map.total, map.truncated), (ErrorMap::MAX_ELEMENTS, 5000, true));
        assert_eq!(map.errors[4095], 4095.0);
    }
}
