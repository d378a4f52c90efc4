//! `Session`: the globals shared by the cells of a notebook, and `run_cell`.

use std::rc::Rc;

use super::display::{display_value, kernel_cell, kernel_schedules};
use super::kept_traces::KeptTraces;
use super::result::{CellDiagnostic, CellResult, CellStatus, Display, TraceLine};
use crate::lang::interp::{
    Interpreter, Limits, ModuleLoader, Object, RuntimeError, RuntimeWarning, SourceSpan, Value, FIRST_MODULE_CELL,
};
use crate::lang::syntax::line_index::floor_char_boundary;
use crate::lang::syntax::{parse, Diagnostic, LineIndex, Severity, Span};
use crate::tensor::set_allocation_limit;

/// A notebook session: cells share globals; re-running a cell redefines its names; a failed cell
/// leaves the bindings of earlier cells as they were.
pub struct Session {
    interpreter: Rc<Interpreter>,
    sources: Vec<String>,
    /// The path and source of each module the cells imported (module cell `FIRST_MODULE_CELL + i`).
    module_sources: Vec<(String, Rc<str>)>,
    /// Every kernel call's schedule of the last cell, for `take_schedules`.
    last_schedules: Vec<(String, Rc<crate::npu::Simulation>)>,
    /// The traces the cells' kernel schedules name by key.
    kept_traces: KeptTraces,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    /// Starts or stops keeping the Chrome trace of every kernel this thread simulates
    /// (`pypto.schedule` calls and sweep rows); `take_traces` hands them over.
    pub fn collect_traces(&mut self, enabled: bool) {
        crate::lang::interp::pypto::traces::collect_traces(enabled);
    }

    /// The traces simulated since the last call, in order (empty unless collecting).
    pub fn take_traces(&mut self) -> Vec<crate::lang::interp::pypto::traces::KernelTrace> {
        crate::lang::interp::pypto::traces::take_traces()
    }

    /// The schedule of every kernel call of the last cell that ran on the simulated NPU (kernel
    /// name, simulation), in call order (the cell's result groups them by kernel); empty once taken.
    pub fn take_schedules(&mut self) -> Vec<(String, Rc<crate::npu::Simulation>)> {
        std::mem::take(&mut self.last_schedules)
    }

    /// A session with the default limits.
    pub fn new() -> Session {
        Session::with_limits(Limits::default())
    }

    /// A session with `limits`.
    pub fn with_limits(limits: Limits) -> Session {
        Session {
            interpreter: Interpreter::new(limits),
            sources: Vec::new(),
            module_sources: Vec::new(),
            last_schedules: Vec::new(),
            kept_traces: KeptTraces::new(now_ms()),
        }
    }

    /// The interpreter (for the inspections of `inspect.rs`).
    pub(crate) fn interpreter(&self) -> &Interpreter {
        &self.interpreter
    }

    /// Sets the language of `help()` texts (`en`, `zh-CN`).
    pub fn set_language(&mut self, language: &str) {
        crate::lang::interp::api_table::set_help_language(language);
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.interpreter.limits()
    }

    /// Changes the limits for the next cells.
    pub fn set_limits(&mut self, limits: Limits) {
        self.interpreter.set_limits(limits);
    }

    /// Stops every cell run from now on with a located `runtime/timeout` error once `limit` has
    /// passed (`None`: no limit). Work inside one operation finishes before the check.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn set_time_limit(&mut self, limit: Option<std::time::Duration>) {
        self.interpreter.set_time_limit(limit);
    }

    /// Sets the script's command line, `sys.argv` (the program's name, then its arguments).
    pub fn set_command_line(&mut self, program: &str, arguments: &[String]) {
        self.interpreter.set_command_line(program, arguments);
    }

    /// Picks the NPU preset (`Ascend910B2`, `Ascend910A`, `teaching`).
    pub fn set_npu_preset(&mut self, preset: &str) -> Result<(), String> {
        let config = crate::npu::NpuConfig::preset(preset).map_err(|error| error.to_string())?;
        self.interpreter.set_npu_preset(&config.name);
        *self.interpreter.npu.custom.borrow_mut() = None;
        Ok(())
    }

    /// Picks a custom NPU preset from JSON text (every field of `pypto.npu.config()`), validated
    /// field by field; the error names the field.
    pub fn set_npu_config_json(&mut self, text: &str) -> Result<(), String> {
        let config = crate::npu::custom_preset_from_json(text).map_err(|error| error.to_string())?;
        self.interpreter.set_npu_preset(&config.name);
        *self.interpreter.npu.custom.borrow_mut() = Some(config);
        Ok(())
    }

    /// The NPU preset in use.
    pub fn npu_preset(&self) -> String {
        self.interpreter.npu_preset()
    }

    /// Forgets every variable, function and registered gradient (a fresh kernel, same limits).
    pub fn reset(&mut self) {
        let limits = self.interpreter.limits();
        let preset = self.interpreter.npu_preset();
        let custom = self.interpreter.npu.custom.borrow_mut().take();
        self.interpreter.globals().restore(Default::default());
        self.interpreter = Interpreter::new(limits);
        self.interpreter.set_npu_preset(&preset);
        *self.interpreter.npu.custom.borrow_mut() = custom;
        self.sources.clear();
        self.module_sources.clear();
        self.last_schedules.clear();
    }

    /// The names defined so far.
    pub fn variables(&self) -> Vec<String> {
        self.interpreter.globals().names()
    }

    /// The tensor bound to the global `name`, if it is one (tests read results without printing them).
    pub fn tensor(&self, name: &str) -> Option<crate::tensor::Tensor> {
        match self.interpreter.globals().get(name)? {
            crate::lang::interp::Value::Tensor(ref object) => Some(object.get().tensor().clone()),
            _ => None,
        }
    }

    /// The source of the cell with execution number `cell`.
    pub fn source_of(&self, cell: usize) -> Option<&str> {
        if let Some(index) = cell.checked_sub(FIRST_MODULE_CELL) {
            return self.module_sources.get(index).map(|(_, source)| source.as_ref());
        }
        cell.checked_sub(1).and_then(|index| self.sources.get(index)).map(String::as_str)
    }

    /// The file of module cell `cell` (a module a cell imported), if `cell` is one.
    pub fn module_file(&self, cell: usize) -> Option<&str> {
        let index = cell.checked_sub(FIRST_MODULE_CELL)?;
        self.module_sources.get(index).map(|(path, _)| path.as_str())
    }

    /// Lets `import name` read the user's modules through `loader` from `directories` (the
    /// initial `sys.path`), and names the script's file (`__file__`). Without a loader (the page)
    /// only the language's modules import.
    pub fn set_module_loader(&mut self, loader: Box<dyn ModuleLoader>, directories: &[String], script: &str) {
        self.interpreter.set_module_loader(Some(loader));
        self.interpreter.set_module_path(directories);
        self.interpreter.globals().set("__file__", Value::string(script));
    }

    /// Runs `code` as the next cell, a cell of a file whose first line is line `first_line` of the
    /// file: the lines named inside messages are then file lines (the CLI runs `.py` notebooks so).
    pub fn run_cell_at(&mut self, code: &str, first_line: usize) -> CellResult {
        self.interpreter.set_cell_first_line(self.sources.len() + 1, first_line);
        self.run_cell(code)
    }

    /// Parses and runs `code` as the next cell (reporting at most `MAX_DIAGNOSTICS` syntax
    /// errors, then one that counts the rest, and at most `MAX_DIAGNOSTICS` warnings).
    pub fn run_cell(&mut self, code: &str) -> CellResult {
        let started = now_ms();
        crate::lang::interp::progress::reset_kernel_calls();
        self.sources.push(code.to_string());
        let cell = self.sources.len();
        self.interpreter.set_cell_source(cell, code);
        set_allocation_limit(self.interpreter.limits().tensor_bytes);
        let parsed = parse(code);
        let mut diagnostics: Vec<CellDiagnostic> = parsed
            .diagnostics
            .iter()
            .take(MAX_DIAGNOSTICS)
            .map(|diagnostic| self.syntax_diagnostic(diagnostic, cell))
            .collect();
        if let Some(first_untold) = parsed.diagnostics.get(MAX_DIAGNOSTICS) {
            let untold = parsed.diagnostics.len() - MAX_DIAGNOSTICS;
            let summary = Diagnostic::error(
                "syntax/too-many-errors",
                format!("{untold} more syntax errors from here on are not shown (the first {MAX_DIAGNOSTICS} are)"),
                first_untold.span,
            )
            .with_help("fix the errors above and run the cell again");
            diagnostics.push(self.syntax_diagnostic(&summary, cell));
        }
        let mut displays = Vec::new();
        let status = if parsed.has_errors() {
            CellStatus::Error
        } else {
            let snapshot = self.interpreter.globals().snapshot();
            let gradients = self.interpreter.gradients.borrow().clone();
            let ran = self.interpreter.run_module(&parsed.module, cell);
            let mut next = FIRST_MODULE_CELL + self.module_sources.len();
            while let Some(module) = self.interpreter.module_source(next) {
                self.module_sources.push(module);
                next += 1;
            }
            match ran {
                Ok(value) => {
                    self.last_schedules = self.interpreter.take_schedules();
                    if let Some(value) = value {
                        displays.push(self.display_of(&value));
                    }
                    CellStatus::Ok
                }
                Err(error) => {
                    self.interpreter.globals().restore(snapshot);
                    *self.interpreter.gradients.borrow_mut() = gradients;
                    diagnostics.push(self.runtime_diagnostic(&error));
                    CellStatus::Error
                }
            }
        };
        for warning in self.interpreter.take_warnings().iter().take(MAX_DIAGNOSTICS) {
            diagnostics.push(self.warning_diagnostic(warning));
        }
        diagnostics.sort_by_key(|diagnostic| {
            (diagnostic.cell != cell, diagnostic.severity == Severity::Warning, diagnostic.span.start)
        });
        if status == CellStatus::Error {
            self.last_schedules = self.interpreter.take_schedules();
        }
        let duration_ms = now_ms() - started;
        let kept = &mut self.kept_traces;
        let kernel_cell = |kernel: &str| kernel_cell(&self.interpreter, kernel);
        let kernel_schedules = kernel_schedules(&self.last_schedules, kernel_cell, |simulation| kept.keep(simulation));
        CellResult {
            execution_count: cell,
            status,
            stdout: self.interpreter.take_output(),
            displays,
            diagnostics,
            duration_ms,
            kernel_schedules,
        }
    }

    /// The Chrome trace JSON a cell result's kernel schedule names by `key` (its `trace_key`); None
    /// for a key of another session or a trace no longer kept (see `KeptTraces::MAX_EVENTS`).
    pub fn kernel_trace(&self, key: &str) -> Option<String> {
        self.kept_traces.trace_json(key)
    }

    /// The display of a cell's value; a schedule names the cell that defined its kernel (found by
    /// the simulation it shares with this cell's kernel calls), so its events link to that cell.
    fn display_of(&self, value: &Value) -> Display {
        let mut display = display_value(value);
        if let (Display::Schedule(schedule), Value::Object(object)) = (&mut display, value) {
            if let Object::Schedule(simulation) = object.as_ref() {
                schedule.cell = self
                    .last_schedules
                    .iter()
                    .find(|(_, called)| Rc::ptr_eq(called, simulation))
                    .and_then(|(kernel, _)| kernel_cell(&self.interpreter, kernel));
            }
        }
        display
    }

    fn place(&self, location: SourceSpan) -> (Span, usize, usize) {
        let source = self.source_of(location.cell).unwrap_or("");
        let start = floor_char_boundary(source, location.span.start);
        let end = floor_char_boundary(source, location.span.end.max(start));
        let end = end.max(start);
        let index = LineIndex::new(source);
        let from = index.line_column(source, start);
        (Span::new(start, end), from.line, from.column)
    }

    fn syntax_diagnostic(&self, diagnostic: &Diagnostic, cell: usize) -> CellDiagnostic {
        let (span, line, column) = self.place(SourceSpan { cell, span: diagnostic.span });
        CellDiagnostic {
            severity: diagnostic.severity,
            code: diagnostic.code.to_string(),
            message: diagnostic.message.clone(),
            cell,
            span,
            line,
            column,
            help: diagnostic.help.clone(),
            note: diagnostic.note.as_ref().map(|note| note.message.clone()),
            traceback: Vec::new(),
            message_code: diagnostic.message_code.clone(),
            help_code: diagnostic.help_code.clone(),
            note_code: diagnostic.note.as_ref().and_then(|note| note.code.clone()),
        }
    }

    fn runtime_diagnostic(&self, error: &RuntimeError) -> CellDiagnostic {
        let (span, line, column) = self.place(error.location);
        let mut traceback: Vec<TraceLine> = Vec::new();
        for frame in &error.traceback {
            let (span, line, column) = self.place(frame.call_site);
            match traceback.last_mut() {
                Some(last)
                    if last.function == frame.function && last.cell == frame.call_site.cell && last.span == span =>
                {
                    last.repeated += 1
                }
                _ => traceback.push(TraceLine {
                    function: frame.function.clone(),
                    cell: frame.call_site.cell,
                    line,
                    column,
                    span,
                    repeated: 1,
                }),
            }
        }
        CellDiagnostic {
            severity: Severity::Error,
            code: error.kind.code().to_string(),
            message: error.message.clone(),
            cell: error.location.cell,
            span,
            line,
            column,
            help: error.help.clone(),
            note: error.note.clone(),
            traceback,
            message_code: error.message_code.clone(),
            help_code: error.help_code.clone(),
            note_code: error.note_code.clone(),
        }
    }

    fn warning_diagnostic(&self, warning: &RuntimeWarning) -> CellDiagnostic {
        let (span, line, column) = self.place(warning.location);
        CellDiagnostic {
            severity: Severity::Warning,
            code: warning.code.to_string(),
            message: warning.message.clone(),
            cell: warning.location.cell,
            span,
            line,
            column,
            help: warning.help.clone(),
            note: None,
            traceback: Vec::new(),
            message_code: warning.message_code.clone(),
            help_code: warning.help_code.clone(),
            note_code: None,
        }
    }
}

/// Syntax errors (and, separately, warnings) reported per cell: a pasted binary file can hold tens
/// of thousands, and each one costs the page a marker and the CLI a rendered snippet.
pub const MAX_DIAGNOSTICS: usize = 100;

impl Drop for Session {
    /// Functions hold the globals they were defined in and the globals hold the functions: clearing
    /// the globals breaks those cycles so a dropped session frees its values.
    fn drop(&mut self) {
        self.interpreter.globals().restore(Default::default());
    }
}

/// Milliseconds from a monotonic clock (wall clock in the browser, where `Instant` does not exist).
fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
    }
}
