//! The interpreter's state: globals, limits, counters, the cell being run, output, warnings, the
//! registered backward functions and the kernel runs recorded for the simulator.

use crate::messages::OperationMessage;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use super::error::{ErrorKind, Result, RuntimeError, RuntimeWarning, SourceSpan};
use super::scope::Scope;
use super::value::Value;
use crate::lang::syntax::{ast::Module, Span};
use crate::messages::Message;

/// Per-session limits; each exceeded limit is a clear error at the span that crossed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Statements and expressions evaluated per cell.
    pub step_budget: u64,
    /// Nested calls of script functions.
    pub call_depth: usize,
    /// Elements of one tensor.
    pub tensor_elements: usize,
    /// Bytes of one tensor.
    pub tensor_bytes: usize,
    /// Items of one list, tuple or dict.
    pub list_items: usize,
    /// Bytes of one string (also the printed output of one cell).
    pub string_bytes: usize,
    /// Bytes of native stack that nested calls may use before they stop with a call-depth error
    /// (the thread running the session must have at least this much stack, plus a margin).
    pub stack_bytes: usize,
    /// Bytes of heap the session's live values may hold together (tensors, strings, lists, graph
    /// nodes: every allocation made while it runs that is still alive).
    pub memory_bytes: usize,
}

impl Limits {
    /// The default stack budget: fits a 1 MiB stack (wasm's default) with a margin, and the default
    /// call depth of 200 in release builds (about 2.6 KiB of stack per script call).
    pub const DEFAULT_STACK_BYTES: usize = 768 << 10;

    /// These limits with a memory budget of `memory_bytes` and the tensor limits in the default
    /// proportion: a tensor takes a quarter of it, in 4-byte elements (the CLI's `--memory`).
    pub fn with_memory(self, memory_bytes: usize) -> Limits {
        let tensor_bytes = memory_bytes / 4;
        Limits { memory_bytes, tensor_bytes, tensor_elements: tensor_bytes / 4, ..self }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            step_budget: 50_000_000,
            call_depth: 200,
            tensor_elements: 1 << 26,
            tensor_bytes: 256 << 20,
            list_items: 1_000_000,
            string_bytes: 16 << 20,
            stack_bytes: Limits::DEFAULT_STACK_BYTES,
            memory_bytes: 1 << 30,
        }
    }
}

pub(crate) use super::pypto::npu_context::KernelFrame;

/// A tile script interpreter: the globals of a session and everything a cell needs to run.
pub struct Interpreter {
    pub(crate) me: Weak<Interpreter>,
    pub(crate) globals: Rc<Scope>,
    pub(crate) limits: Cell<Limits>,
    pub(crate) steps: Cell<u64>,
    pub(crate) depth: Cell<usize>,
    pub(crate) stack_base: Cell<usize>,
    pub(crate) cells: RefCell<Vec<usize>>,
    pub(crate) functions: RefCell<Vec<String>>,
    pub(crate) output: RefCell<String>,
    pub(crate) warnings: RefCell<Vec<RuntimeWarning>>,
    /// The warnings given since the warnings were last taken, by code, place and message: one
    /// warning a place, as Python's warnings show it, however often a loop passes it.
    warned: RefCell<std::collections::HashSet<(&'static str, SourceSpan, String)>>,
    pub(crate) pending: RefCell<Option<RuntimeError>>,
    pub(crate) gradients: RefCell<HashMap<String, Value>>,
    /// The simulated NPU: the chip in use, the running kernels, what their calls produced.
    pub(crate) npu: super::pypto::npu_context::NpuContext,
    /// Where each cell's lines start (byte offsets), to turn spans into line numbers for traces.
    pub(crate) cell_lines: RefCell<HashMap<usize, Rc<Vec<usize>>>>,
    /// The file line of a cell's first line, for cells that come from a file (the CLI): lines in
    /// messages are then file lines. Cells not listed count their lines from 1.
    pub(crate) cell_first_lines: RefCell<HashMap<usize, u32>>,
    /// Every instance of a script class, for the collection of reference cycles between them.
    pub(crate) instances: super::classes::InstanceRegistry,
    /// The session's `torch.nn.Module` class, made when a script first names it.
    pub(crate) torch_module: std::cell::OnceCell<Rc<super::classes::Class>>,
    /// Call scopes that outlived their call (returned closures), for the collection of the cycles
    /// they form with their functions.
    pub(crate) scopes: super::scope_collect::ScopeRegistry,
    /// The methods running now, innermost last (what `super()` reads).
    pub(crate) method_frames: RefCell<Vec<super::classes::MethodFrame>>,
    /// The thread's live heap bytes when the session started, and when the running cell started
    /// (the budget counts from the first; only a cell that grows the heap can cross it, so a cell
    /// that frees memory runs even above the budget).
    pub(crate) memory_base: isize,
    pub(crate) memory_at_cell_start: Cell<isize>,
    /// Facts about the last few long strings indexed (see `sequences`).
    pub(crate) text_cache: RefCell<Vec<super::sequences::TextFacts>>,
    /// The `with pypto.options(…)` scopes open now, innermost last (what kernels called in them use).
    pub(crate) option_scopes: RefCell<Vec<super::pypto::option_scopes::OptionScope>>,
    /// The errors the running `except` handlers caught, innermost last (what a bare `raise` raises).
    pub(crate) handled: RefCell<Vec<RuntimeError>>,
    /// The user's modules and the loader that reads them (see `user_modules`).
    pub(crate) user_modules: super::user_modules::UserModules,
    /// `os.environ` and `sys.argv` (see `host`).
    pub(crate) host: super::host::HostState,
    /// `torch.npu.config.allow_internal_format`.
    pub(crate) internal_format: Cell<bool>,
    /// The custom operators `torch.library` defined (what `torch.ops` calls).
    pub(crate) operators: super::torch::library::Operators,
    /// The running `pypto.loop`s, innermost last (what `pypto.is_loop_begin/end` ask).
    pub(crate) pypto_loops: RefCell<Vec<super::pypto::loops::LoopFrame>>,
    /// When the run must stop, and the time limit to name in the error (native only: the CLI's
    /// `--timeout`; the page stops a runaway cell by terminating its worker).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) deadline: Cell<Option<(std::time::Instant, std::time::Duration)>>,
}

impl Interpreter {
    /// A fresh interpreter with `limits`.
    pub fn new(limits: Limits) -> Rc<Interpreter> {
        Rc::new_cyclic(|me| Interpreter {
            me: me.clone(),
            globals: Scope::root(),
            limits: Cell::new(limits),
            steps: Cell::new(0),
            depth: Cell::new(0),
            stack_base: Cell::new(0),
            cells: RefCell::new(Vec::new()),
            functions: RefCell::new(Vec::new()),
            output: RefCell::new(String::new()),
            warnings: RefCell::new(Vec::new()),
            warned: RefCell::new(std::collections::HashSet::new()),
            pending: RefCell::new(None),
            gradients: RefCell::new(HashMap::new()),
            npu: Default::default(),
            cell_lines: RefCell::new(HashMap::new()),
            cell_first_lines: RefCell::new(HashMap::new()),
            instances: Default::default(),
            scopes: Default::default(),
            torch_module: Default::default(),
            method_frames: RefCell::new(Vec::new()),
            memory_base: crate::memory::live_bytes(),
            memory_at_cell_start: Cell::new(0),
            text_cache: RefCell::new(Vec::new()),
            internal_format: Cell::new(false),
            operators: Default::default(),
            pypto_loops: RefCell::new(Vec::new()),
            host: Default::default(),
            user_modules: Default::default(),
            handled: RefCell::new(Vec::new()),
            option_scopes: RefCell::new(Vec::new()),
            #[cfg(not(target_arch = "wasm32"))]
            deadline: Cell::new(None),
        })
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.limits.get()
    }

    /// Changes the limits (from the next statement on).
    pub fn set_limits(&self, limits: Limits) {
        self.limits.set(limits);
    }

    /// The session's globals.
    pub fn globals(&self) -> &Rc<Scope> {
        &self.globals
    }

    /// The NPU preset kernels will run on once the simulator exists.
    pub fn npu_preset(&self) -> String {
        self.npu.preset.borrow().clone()
    }

    /// Chooses the NPU preset.
    pub fn set_npu_preset(&self, preset: &str) {
        *self.npu.preset.borrow_mut() = preset.to_string();
    }

    /// Runs the statements of `module` (the source of cell number `cell`) in the globals. Returns
    /// the value of the last statement when it is an expression. The step budget restarts.
    pub fn run_module(&self, module: &Module, cell: usize) -> Result<Option<Value>> {
        self.steps.set(0);
        self.depth.set(0);
        self.memory_at_cell_start.set(crate::memory::live_bytes());
        let marker = 0u8;
        self.stack_base.set(std::hint::black_box(&marker) as *const u8 as usize);
        self.cells.borrow_mut().clear();
        self.cells.borrow_mut().push(cell);
        self.functions.borrow_mut().clear();
        self.npu.kernel_frames.borrow_mut().clear();
        self.method_frames.borrow_mut().clear();
        self.npu.fallback_warned.borrow_mut().clear();
        self.npu.schedules.borrow_mut().clear();
        self.option_scopes.borrow_mut().clear();
        // What the previous cells left in cycles of instances goes before this cell adds more.
        self.instances.collect();
        self.scopes.collect();
        match self.run_statements(module) {
            // `sys.exit()` / `sys.exit(0)` ends the cell as its last line would.
            Err(error) if super::host::is_success_exit(&error) => Ok(None),
            other => other,
        }
    }

    /// The statements of a cell; the value of its last expression statement.
    fn run_statements(&self, module: &Module) -> Result<Option<Value>> {
        let globals = self.globals.clone();
        let count = module.body.len();
        let mut last = None;
        for (index, statement) in module.body.iter().enumerate() {
            if index + 1 == count {
                if let crate::lang::syntax::ast::StmtKind::Expr(expression) = &statement.kind {
                    self.step(statement.span)?;
                    last = Some(self.eval(expression, &globals)?);
                    break;
                }
            }
            match self.exec(statement, &globals)? {
                super::exec::Flow::Normal => {}
                _ => return Err(self.coded(ErrorKind::Control, OperationMessage::OutsideFunction, statement.span)),
            }
        }
        Ok(last.filter(|value| !matches!(value, Value::None)))
    }

    /// Takes what `print` wrote since the last call.
    pub fn take_output(&self) -> String {
        std::mem::take(&mut self.output.borrow_mut())
    }

    /// Takes the warnings since the last call.
    pub fn take_warnings(&self) -> Vec<RuntimeWarning> {
        self.warned.borrow_mut().clear();
        std::mem::take(&mut self.warnings.borrow_mut())
    }

    /// Takes the schedules of the kernel calls simulated since the last call, in call order.
    pub fn take_schedules(&self) -> Vec<(String, Rc<crate::npu::Simulation>)> {
        std::mem::take(&mut self.npu.schedules.borrow_mut())
    }

    /// The cell whose code is running now.
    pub(crate) fn current_cell(&self) -> usize {
        self.cells.borrow().last().copied().unwrap_or(0)
    }

    /// `span` in the running cell.
    pub(crate) fn at(&self, span: Span) -> SourceSpan {
        SourceSpan { cell: self.current_cell(), span }
    }

    /// An error of `kind` at `span` of the running cell.
    pub(crate) fn error(&self, kind: ErrorKind, message: impl Into<String>, span: Span) -> RuntimeError {
        RuntimeError::new(kind, message, self.at(span))
    }

    /// An error of `kind` at `span` of the running cell whose message is a message code.
    pub(crate) fn coded(
        &self,
        kind: ErrorKind,
        message: impl Into<crate::messages::Message>,
        span: Span,
    ) -> RuntimeError {
        self.error(kind, "", span).with_message(message)
    }

    /// A warning whose message and help are message codes (the page renders them in its language).
    pub(crate) fn warn_message(&self, code: &'static str, message: Message, span: Span, help: Option<Message>) {
        self.warn_message_in(self.current_cell(), code, message, span, help);
    }

    /// A warning whose message and help are message codes, at `span` of the cell numbered `cell`.
    pub(crate) fn warn_message_in(
        &self,
        cell: usize,
        code: &'static str,
        message: Message,
        span: Span,
        help: Option<Message>,
    ) {
        let (english, location) = (message.english(), SourceSpan { cell, span });
        if !self.warned.borrow_mut().insert((code, location, english.clone())) {
            return;
        }
        let warning = RuntimeWarning {
            code,
            message: english,
            location,
            help: help.as_ref().map(Message::english),
            message_code: Some(message),
            help_code: help,
        };
        self.warnings.borrow_mut().push(warning);
    }

    /// Counts one step; past the budget (or the memory budget), an error at `span`.
    pub(crate) fn step(&self, span: Span) -> Result<()> {
        self.note_kernel_position(span);
        self.check_memory(span)?;
        self.charge(1, span)
    }

    /// A `MemoryError` at `span` when the session's live heap is past its budget and the running
    /// cell has grown it (by more than the small change of printing or parsing).
    pub(crate) fn check_memory(&self, span: Span) -> Result<()> {
        const SLACK_BYTES: isize = 1 << 20;
        let budget = self.limits.get().memory_bytes;
        let over = || {
            let live = crate::memory::live_bytes();
            let grew = live > self.memory_at_cell_start.get().saturating_add(SLACK_BYTES);
            let held = live.saturating_sub(self.memory_base).max(0) as usize;
            (grew && held > budget).then_some(held)
        };
        if over().is_none() {
            return Ok(());
        }
        // Garbage in reference cycles (returned closures, instances) goes before the error.
        self.scopes.collect();
        self.instances.collect();
        if let Some(held) = over() {
            return Err(self
                .coded(
                    ErrorKind::Memory,
                    OperationMessage::MemoryBudget { held: mebibytes(held), budget: mebibytes(budget) },
                    span,
                )
                .with_help_message(OperationMessage::FreeValues));
        }
        Ok(())
    }

    /// Inside a kernel: remembers where evaluation is (the line of the next recorded op), and marks
    /// the start of a unit of work when an outermost `pypto.loop` body starts again.
    fn note_kernel_position(&self, span: Span) {
        let mut frames = self.npu.kernel_frames.borrow_mut();
        let Some(frame) = frames.last_mut() else { return };
        frame.statement = Some(span);
        if frame.unit_starts.contains(&span)
            && frame.ops.last().is_none_or(|op| !matches!(op.op, super::pypto::capture::CapturedOp::UnitStart))
        {
            frame.ops.push(super::pypto::capture::Captured::unit_start());
        }
    }

    /// Appends printed text (bounded by the string limit).
    pub(crate) fn write_output(&self, text: &str, span: Span) -> Result<()> {
        let limit = self.limits.get().string_bytes;
        let mut output = self.output.borrow_mut();
        if output.len() + text.len() > limit {
            return Err(self.coded(ErrorKind::SizeLimit, OperationMessage::OutputLimit { limit }, span));
        }
        output.push_str(text);
        Ok(())
    }

    /// Checks a list/tuple/dict size against the limit.
    pub(crate) fn check_items(&self, count: usize, span: Span) -> Result<()> {
        let limit = self.limits.get().list_items;
        if count > limit {
            return Err(self.coded(ErrorKind::SizeLimit, OperationMessage::ListLimit { count, limit }, span));
        }
        Ok(())
    }

    /// Checks a string size against the limit.
    pub(crate) fn check_string(&self, bytes: usize, span: Span) -> Result<()> {
        let limit = self.limits.get().string_bytes;
        if bytes > limit {
            return Err(self.coded(ErrorKind::SizeLimit, OperationMessage::StringLimit { bytes, limit }, span));
        }
        Ok(())
    }
}

/// `bytes` in MiB, for messages.
fn mebibytes(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

impl Drop for Interpreter {
    /// The session ends: the cycles between closures and their scopes are broken so that they
    /// are freed with it.
    fn drop(&mut self) {
        self.scopes.release_all();
    }
}
