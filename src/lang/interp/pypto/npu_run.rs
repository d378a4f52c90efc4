//! A kernel call on the simulated NPU: the body ran once (its values are the call's values, computed
//! with the chip's dtype rules: stored narrow, computed in f32) while each op site captured its op;
//! the capture becomes `TileWork`, the compiler lowers it into per-core programs for the session's
//! preset and `npu::simulate` gives the schedule. The values are computed once: the compiled
//! programs are not executed again for them (`tests/npu/compiler.rs` proves on random kernels that
//! executing them gives the same values).

use std::rc::Rc;

use super::capture::TensorRef;
use super::work_jit::{record_jit, Returned};
use super::work_ops::Unsupported;
use crate::lang::interp::error::{ErrorKind, SourceSpan};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::{Interpreter, KernelFrame};
use crate::lang::interp::progress;
use crate::lang::interp::value::{Kernel, KernelStyle, Value};
use crate::lang::syntax::Span;
use crate::messages::{CompilerReason, NpuMessage};
use crate::messages::{KernelStage, Message};
use crate::npu::{lowering_target, simulate, NpuConfig, NpuError, Simulation};
use crate::tensor::{DType, Tensor};
use crate::tile::{lower_work, CubeTiles, KernelPlan, TileWork, WorkSettings, WorkStep};

/// The tensor arguments of a call with their parameter names, in call order.
pub(crate) fn named_tensors(kernel: &Kernel, arguments: &Arguments) -> Vec<(String, Tensor)> {
    let parameters = &kernel.function.definition.parameters.positional;
    let positional = arguments.positional.iter().enumerate().map(|(index, (value, _))| {
        (parameters.get(index).map_or_else(|| format!("arg{index}"), |parameter| parameter.name.name.clone()), value)
    });
    positional
        .chain(arguments.keywords.iter().map(|(name, value, _)| (name.clone(), value)))
        .filter_map(
            |(name, value)| {
                if let Value::Tensor(object) = value {
                    Some((name, object.get().tensor().clone()))
                } else {
                    None
                }
            },
        )
        .collect()
}

/// Whether a call runs on the NPU: no f64 tensor (f64 is the CPU reference dtype, as in a gradient
/// check's numerical side). A kernel called by a kernel records its own ops in its own frame.
pub(crate) fn wants_npu(tensors: &[(String, Tensor)]) -> bool {
    tensors.iter().all(|(_, tensor)| tensor.dtype() != DType::F64)
}

/// The tensors a functional kernel returned (a tensor, or a tuple/list of tensors).
pub(crate) fn returned_tensors(value: &Value) -> Result<Vec<Tensor>, Unsupported> {
    let item = |value: &Value| match value {
        Value::Tensor(object) => Ok(object.get().tensor().clone()),
        other => Err(Unsupported::new(CompilerReason::ReturnType { type_name: other.type_name().into() }, None)),
    };
    match value {
        Value::Tuple(items) => items.iter().map(item).collect(),
        Value::List(items) => items.borrow().iter().map(item).collect(),
        other => Ok(vec![item(other)?]),
    }
}

/// The kernel's tile settings as `WorkSettings`.
pub(crate) fn settings_of(interpreter: &Interpreter, kernel: &Kernel, frame: &KernelFrame) -> WorkSettings {
    let depth = |name: &str| {
        kernel
            .pass_options
            .iter()
            .find(|(key, _)| key == name)
            .and_then(|(_, value)| super::options::buffer_depth(value))
    };
    WorkSettings {
        vec_buffers: depth("vec_nbuffer_setting").unwrap_or(super::options::DEFAULT_BUFFER_DEPTH),
        cube_buffers: depth("cube_nbuffer_setting").unwrap_or(super::options::DEFAULT_BUFFER_DEPTH),
        vec_tile: frame.vec_tile_shapes.clone(),
        cube_tiles: frame.cube_tile_shapes.map(|[m, k, n]| CubeTiles { m, k, n }),
        vec_tile_line: frame.vec_tile_site.and_then(|site| interpreter.line_at(site)),
        vec_tile_lines: first_lines(interpreter, frame),
        cube_tile_line: frame.cube_tile_site.and_then(|site| interpreter.line_at(site)),
        ..WorkSettings::default()
    }
}

/// The line that first set each vec tile of the kernel.
fn first_lines(interpreter: &Interpreter, frame: &KernelFrame) -> Vec<(Vec<usize>, u32)> {
    let mut lines: Vec<(Vec<usize>, u32)> = Vec::new();
    for setting in &frame.vec_tile_history {
        if let Some(line) = interpreter.line_at(setting.site) {
            if !lines.iter().any(|(dims, _)| *dims == setting.dims) {
                lines.push((setting.dims.clone(), line));
            }
        }
    }
    lines
}

/// Records a finished kernel call as tile work; `vec_tile` replaces the kernel's own vec tile (a
/// sweep row).
pub(crate) fn work_of(
    interpreter: &Interpreter,
    kernel: &Kernel,
    frame: &KernelFrame,
    arguments: &[(String, Tensor)],
    result: &Value,
    vec_tile: Option<&[usize]>,
    ub_alignment: u64,
) -> Result<TileWork, Unsupported> {
    let settings = settings_of(interpreter, kernel, frame);
    let arguments: Vec<(String, TensorRef)> =
        arguments.iter().map(|(name, tensor)| (name.clone(), TensorRef::of(tensor))).collect();
    // A sweep row's tile replaces every tile the kernel set; otherwise the ops after each
    // `set_vec_tile_shapes` are expanded by it.
    let changes: Vec<(usize, Vec<usize>)> = match vec_tile {
        Some(_) => Vec::new(),
        None => frame.vec_tile_history.iter().map(|setting| (setting.from_op, setting.dims.clone())).collect(),
    };
    let vec_tile = vec_tile.map(<[usize]>::to_vec).or(settings.vec_tile.clone());
    let settings = WorkSettings { vec_tile, ub_granule: ub_alignment as usize, ..settings };
    let outputs: Vec<TensorRef> = match kernel.style {
        KernelStyle::Jit => Vec::new(),
        KernelStyle::Functional => returned_tensors(result)?.iter().map(TensorRef::of).collect(),
    };
    let line = frame.statement.and_then(|span| interpreter.line_at(SourceSpan { cell: kernel.function.cell, span }));
    let returned = Returned { tensors: &outputs, line };
    record_jit(&kernel.name, &frame.ops, &arguments, settings, ub_alignment, &changes, &returned)
}

/// Why tile work did not run on the simulator.
pub(crate) enum NpuFailure {
    /// The lowering or the functional execution refused it: the call falls back to the CPU.
    Fallback(Message),
    /// The chip refused the tiles (capacity, alignment, bounds): the user's error.
    Chip(NpuError),
}

/// Lowers `work` for `config` and simulates its schedule.
pub(crate) fn lower_and_simulate(
    work: &TileWork,
    config: &NpuConfig,
) -> Result<(Rc<KernelPlan>, Rc<Simulation>), NpuFailure> {
    lower_and_simulate_reporting(work, config, &|_| {})
}

/// [`lower_and_simulate`], telling `stage` when compiling and simulating start (a work compiled
/// recently for the same chip is not compiled again: [`super::recent_plans`]).
fn lower_and_simulate_reporting(
    work: &TileWork,
    config: &NpuConfig,
    stage: &dyn Fn(KernelStage),
) -> Result<(Rc<KernelPlan>, Rc<Simulation>), NpuFailure> {
    if let Some(found) = super::recent_plans::find(work, config) {
        return Ok(found);
    }
    stage(KernelStage::Compiling);
    let plan = lower_work(work, &lowering_target(config)).map_err(|error| NpuFailure::Fallback(error.message()))?;
    stage(KernelStage::Simulating);
    let simulation = simulate(&plan, config).map_err(NpuFailure::Chip)?;
    let (plan, simulation) = (Rc::new(plan), Rc::new(simulation));
    super::recent_plans::remember(work, config, &plan, &simulation);
    Ok((plan, simulation))
}

/// What a finished call needs to be compiled and simulated.
pub(crate) struct NpuCall<'a> {
    /// The kernel.
    pub kernel: &'a Kernel,
    /// Its frame (captured ops and settings).
    pub frame: &'a KernelFrame,
    /// The tensor arguments as received.
    pub arguments: &'a [(String, Tensor)],
    /// What the call returned.
    pub result: &'a Value,
    /// The call's number in the cell when it reports progress.
    pub progress_call: Option<usize>,
}

/// How many schedules one cell keeps for display.
pub const MAX_SCHEDULES_PER_CELL: usize = 256;

/// Where a kernel call ran.
#[derive(Clone)]
pub(crate) enum Outcome {
    /// On the simulated NPU, with this schedule.
    Npu(Rc<Simulation>),
    /// On the CPU reference path, for this reason.
    Cpu(Message),
}

/// The number a kernel call reports its stages under, when progress is reported (sweeps and
/// `pypto.schedule`, untraced calls, report progress of their own).
pub(crate) fn progress_call(interpreter: &Interpreter) -> Option<usize> {
    (!interpreter.npu.untraced_call.get() && progress::progress_enabled()).then(progress::next_kernel_call)
}

/// Compiles and simulates the call; a call that cannot run there falls back to the CPU with a
/// warning. `Err`: the chip refused the tiles.
pub(crate) fn run_on_npu(interpreter: &Interpreter, call: &NpuCall<'_>, span: Span) -> Result<Outcome, NpuError> {
    let config = match interpreter.npu_config(span) {
        Ok(config) => config,
        Err(error) => {
            let reason = error.message_code.clone().unwrap_or_else(|| Message::Text { text: error.message.clone() });
            fallback(interpreter, &call.kernel.name, reason.clone(), span);
            return Ok(Outcome::Cpu(reason));
        }
    };
    // A kernel that calls other kernels and itself only allocates or reshapes has all its work on
    // the NPU already.
    if call.frame.calls_kernels && call.frame.ops.iter().all(|op| !op.op.computes()) {
        return Ok(Outcome::Cpu(NpuMessage::CallsKernels.into()));
    }
    let work =
        match work_of(interpreter, call.kernel, call.frame, call.arguments, call.result, None, config.ub_alignment) {
            Ok(work) => work,
            Err(reason) => {
                fallback(interpreter, &call.kernel.name, reason.message(), span);
                return Ok(Outcome::Cpu(reason.message()));
            }
        };
    interpreter.npu.last_work.replace(Some(work.clone()));
    let stores = work.units.iter().flat_map(|unit| &unit.steps).any(|step| matches!(step.step, WorkStep::Store { .. }));
    if !stores {
        // A jit kernel that writes none of its outputs computes nothing anyone can see.
        return Ok(Outcome::Cpu(NpuMessage::NoOutput.into()));
    }
    // The compile's wall-clock time, from the start of lowering to the start of simulation.
    let compile_start = std::cell::Cell::new(None);
    let stage = |stage| {
        let now = crate::lang::interp::host::clock::monotonic_seconds;
        match stage {
            KernelStage::Compiling => compile_start.set(Some(now())),
            KernelStage::Simulating => {
                if let Some(start) = compile_start.get() {
                    interpreter.npu.compile_seconds.set(now() - start);
                }
            }
            KernelStage::Computing => {}
        }
        if let Some(number) = call.progress_call {
            progress::report_kernel_stage(&call.kernel.name, number, stage);
        }
    };
    match lower_and_simulate_reporting(&work, &config, &stage) {
        Ok((_, simulation)) => {
            let (npu, cpu) = interpreter.npu.call_counts.get();
            interpreter.npu.call_counts.set((npu + 1, cpu));
            if interpreter.npu.untraced_call.get() {
                return Ok(Outcome::Npu(simulation));
            }
            super::traces::record_trace(&call.kernel.name, &simulation);
            super::cost_model_output::write_swimlane(interpreter, call.kernel, &simulation, span);
            let mut schedules = interpreter.npu.schedules.borrow_mut();
            // A training loop calls kernels many times: a cell keeps the first schedules only.
            if schedules.len() < MAX_SCHEDULES_PER_CELL {
                schedules.push((call.kernel.name.clone(), simulation.clone()));
            }
            Ok(Outcome::Npu(simulation))
        }
        Err(NpuFailure::Fallback(reason)) => {
            fallback(interpreter, &call.kernel.name, reason.clone(), span);
            Ok(Outcome::Cpu(reason))
        }
        Err(NpuFailure::Chip(error)) => Err(error),
    }
}

/// Warns (once per kernel and cell) that a kernel ran on the CPU reference path, and why.
fn fallback(interpreter: &Interpreter, kernel: &str, reason: Message, span: Span) {
    let (npu, cpu) = interpreter.npu.call_counts.get();
    interpreter.npu.call_counts.set((npu, cpu + 1));
    if interpreter.npu.fallback_warned.borrow_mut().insert(kernel.to_string()) {
        let message = Message::CpuFallback { kernel: kernel.to_string(), reason: Box::new(reason) };
        interpreter.warn_message("npu/cpu-fallback", message, span, Some(Message::CpuFallbackHelp));
    }
}

/// A chip error at the line that set the tile (vec tiles for UB, cube tiles for L1/L0), or at the
/// call when the kernel set none.
pub(crate) fn chip_error(
    interpreter: &Interpreter,
    kernel: &Kernel,
    frame: &KernelFrame,
    error: &NpuError,
    span: Span,
) -> crate::lang::interp::error::RuntimeError {
    let (memory, help) = match error {
        NpuError::CapacityExceeded { memory, largest_tile, .. } => (
            Some(*memory),
            Some(match largest_tile {
                Some(largest) => Message::LargestTile { memory: memory.to_string(), tile: largest.clone() },
                None => Message::NoTileFits { memory: memory.to_string() },
            }),
        ),
        NpuError::Misaligned { memory, .. } => (Some(*memory), None),
        _ => (None, None),
    };
    // A kernel of several vec tiles: the setting of the tile whose buffer overflowed.
    let own_vec_tile = frame
        .vec_tile_history
        .iter()
        .find(|setting| error.source_line().is_some() && interpreter.line_at(setting.site) == error.source_line())
        .map(|setting| setting.site);
    let site = match memory {
        Some("UB") => own_vec_tile.or(frame.vec_tile_site).or(frame.cube_tile_site),
        Some(_) => frame.cube_tile_site.or(frame.vec_tile_site),
        None => None,
    };
    // Without a tile setting to blame, the kernel line the error names (counted in the kernel's
    // cell) is the location; the message then drops its "(line N)", which the span shows.
    let site = site.or_else(|| error.source_line().and_then(|line| line_span(interpreter, kernel.function.cell, line)));
    let kind = if memory.is_some() { ErrorKind::TileShape } else { ErrorKind::Value };
    let error = match site {
        Some(site) => crate::lang::interp::error::RuntimeError::new(kind, String::new(), site)
            .with_message(error.without_source_line().message()),
        None => interpreter.error(kind, String::new(), span).with_message(error.message()),
    };
    match help {
        Some(help) => error.with_help_message(help),
        None => error,
    }
}

/// The span of line `line` (1-based, counted in cell `cell`, the one that defines the kernel):
/// the whole line without its newline; `None` when the cell's lines are unknown.
fn line_span(interpreter: &Interpreter, cell: usize, line: u32) -> Option<SourceSpan> {
    let starts = interpreter.cell_lines.borrow().get(&cell)?.clone();
    // `line` counts in the cell's file (see `Interpreter::line_at`).
    let index = (line as usize).checked_sub(interpreter.first_line_of(cell))?;
    let start = *starts.get(index)?;
    let end = starts.get(index + 1).map_or(start, |next| next.saturating_sub(1).max(start));
    Some(SourceSpan { cell, span: Span::new(start, end) })
}
