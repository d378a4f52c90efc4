//! `pypto.schedule(kernel, *args)`: runs the kernel once on the reference path, lowers what it
//! executed to a tile plan, simulates it on the session's preset and returns the schedule object
//! (DESIGN §2: `.cycles`, `.time_us`, `.pipe_busy`, `.gm_bytes_read`, `.gm_bytes_written`, `.bound`,
//! `.peak_occupancy`, `.trace_json()`).

use std::rc::Rc;

use super::kernel::run_kernel_recorded;
use super::lowering::{lower, LoweringError, TileSettings};
use crate::lang::interp::error::{ErrorKind, Result, RuntimeError};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::{Interpreter, KernelFrame};
use crate::lang::interp::value::{KernelStyle, Object, Value};
use crate::lang::syntax::Span;
use crate::npu::{simulate, NpuConfig, NpuError, Simulation};
use crate::tensor::Tensor;

/// What one recorded kernel run leaves for lowering: the frame, its tensors and the preset.
pub(crate) struct RecordedRun {
    /// The kernel's name.
    pub kernel: String,
    /// The kernel's frame (recorded ops, tile settings and where they were set).
    pub frame: KernelFrame,
    /// The tensor arguments, in call order.
    pub inputs: Vec<Tensor>,
    /// The tensor the kernel returned.
    pub output: Tensor,
    /// The session's NPU preset.
    pub config: NpuConfig,
}

/// Runs `kernel(*args)` on the reference path, recording the ops it executes (`what` names the
/// calling function in messages).
pub(crate) fn record(interpreter: &Interpreter, kernel: &Value, kernel_span: Span, arguments: Arguments, what: &str, span: Span) -> Result<RecordedRun> {
    let Value::Kernel(kernel) = kernel else {
        return Err(interpreter
            .error(ErrorKind::Type, format!("{what} needs a kernel, not {}", kernel.type_name()), kernel_span)
            .with_help("decorate the function with @pypto.kernel"));
    };
    if kernel.style != KernelStyle::Functional {
        return Err(interpreter
            .error(ErrorKind::Unsupported, format!("{what} lowers @pypto.kernel kernels for now; '{}' is a @pypto.frontend.jit kernel", kernel.name), kernel_span)
            .with_help("write it in the functional style: return the outputs instead of writing output parameters"));
    }
    let config = interpreter.npu_config(span)?;
    let inputs: Vec<Tensor> = arguments
        .positional
        .iter()
        .map(|(value, _)| value)
        .chain(arguments.keywords.iter().map(|(_, value, _)| value))
        .filter_map(|value| if let Value::Tensor(object) = value { Some(object.get().tensor().clone()) } else { None })
        .collect();
    let kernel = kernel.clone();
    let (result, frame) = run_kernel_recorded(interpreter, &kernel, arguments, span);
    let output = match &result? {
        Value::Tensor(object) => object.get().tensor().clone(),
        other => {
            return Err(interpreter.error(ErrorKind::Unsupported, format!("{what} lowers kernels that return one tensor for now; '{}' returned {}", kernel.name, other.type_name()), span));
        }
    };
    let Some(frame) = frame else {
        return Err(interpreter.error(ErrorKind::Value, format!("{what}: the kernel's frame was lost"), span));
    };
    Ok(RecordedRun { kernel: kernel.name.to_string(), frame, inputs, output, config })
}

impl RecordedRun {
    /// Lowers the recorded run with `settings` and simulates it on the preset.
    pub(crate) fn simulate(&self, settings: &TileSettings) -> std::result::Result<Simulation, ScheduleFailure> {
        let plan = lower(&self.frame.ops, &self.inputs, &self.output, settings, &self.config, None).map_err(|error| match error {
            LoweringError::Unsupported(message) => ScheduleFailure::Unsupported(message),
            LoweringError::Tile(error) => ScheduleFailure::Tile(error.to_string()),
        })?;
        simulate(&plan, &self.config).map_err(ScheduleFailure::Npu)
    }

    /// The tile settings the kernel itself chose.
    pub(crate) fn own_settings(&self) -> TileSettings {
        TileSettings { vec: self.frame.run.vec_tile_shapes.clone(), cube: self.frame.run.cube_tile_shapes }
    }
}

/// Why a recorded run could not be simulated.
pub(crate) enum ScheduleFailure {
    /// The lowering does not know an op of the kernel.
    Unsupported(String),
    /// The tile program builder refused the tiles.
    Tile(String),
    /// The simulator refused the plan (capacity, alignment …).
    Npu(NpuError),
}

/// Calls `pypto.schedule(kernel, *args, **kwargs)`.
pub(crate) fn call(interpreter: &Interpreter, mut arguments: Arguments, span: Span) -> Result<Value> {
    if arguments.positional.is_empty() {
        return Err(interpreter.error(ErrorKind::Type, "pypto.schedule(kernel, *args) needs a kernel", span));
    }
    let (kernel, kernel_span) = arguments.positional.remove(0);
    let run = record(interpreter, &kernel, kernel_span, arguments, "pypto.schedule", span)?;
    let simulation = run.simulate(&run.own_settings()).map_err(|failure| match failure {
        ScheduleFailure::Unsupported(message) => interpreter.error(ErrorKind::Unsupported, message, span),
        ScheduleFailure::Tile(message) => tile_site_error(interpreter, &run.frame, None, message, span),
        ScheduleFailure::Npu(error) => npu_error(interpreter, &run.frame, error, span),
    })?;
    super::traces::record_trace(&run.kernel, &simulation);
    Ok(Value::object(Object::Schedule(Rc::new(simulation))))
}

/// A tile error at the line that set the tile (vec tiles for UB, cube tiles for L1/L0), or at the
/// `pypto.schedule` call when the kernel set none.
fn tile_site_error(interpreter: &Interpreter, frame: &KernelFrame, memory: Option<&str>, message: String, span: Span) -> RuntimeError {
    let site = match memory {
        Some("UB") | None => frame.vec_tile_site.or(frame.cube_tile_site),
        Some(_) => frame.cube_tile_site.or(frame.vec_tile_site),
    };
    match site {
        Some(site) => RuntimeError::new(ErrorKind::TileShape, message, site),
        None => interpreter.error(ErrorKind::TileShape, message, span),
    }
}

fn npu_error(interpreter: &Interpreter, frame: &KernelFrame, error: NpuError, span: Span) -> RuntimeError {
    match &error {
        NpuError::CapacityExceeded { memory, largest_tile, .. } => {
            let help = match largest_tile {
                Some(largest) => format!("the largest tile that fits in {memory} is {largest:?}"),
                None => format!("no tile of this kind fits in {memory} beside the other buffers"),
            };
            tile_site_error(interpreter, frame, Some(memory), error.to_string(), span).with_help(help)
        }
        NpuError::Misaligned { memory, .. } => tile_site_error(interpreter, frame, Some(memory), error.to_string(), span),
        _ => interpreter.error(ErrorKind::Value, format!("pypto.schedule: {error}"), span),
    }
}

fn dict_of<T: Copy>(entries: &std::collections::BTreeMap<String, T>, value: impl Fn(T) -> Value) -> Value {
    Value::dict(entries.iter().map(|(key, item)| (Value::string(key.as_str()), value(*item))).collect())
}

/// `schedule.name` (None when the schedule has no such attribute).
pub(crate) fn attribute(receiver: &Value, simulation: &Simulation, name: &str) -> Option<Value> {
    let summary = &simulation.summary;
    Some(match name {
        "cycles" => Value::Int(summary.cycles as i64),
        "time_us" => Value::Float(summary.time_us),
        "pipe_busy" => dict_of(&summary.pipe_busy, Value::Float),
        "gm_bytes_read" => Value::Int(summary.gm_bytes_read as i64),
        "gm_bytes_written" => Value::Int(summary.gm_bytes_written as i64),
        "bound" => Value::string(summary.bound.as_str()),
        "peak_occupancy" => dict_of(&summary.peak_occupancy, |bytes| Value::Int(bytes as i64)),
        "capacities" => dict_of(&summary.capacities, |bytes| Value::Int(bytes as i64)),
        "flops" => Value::Int(summary.flops as i64),
        "preset" => Value::string(summary.preset.as_str()),
        "notes" => Value::list(summary.notes.iter().map(|note| Value::string(note.as_str())).collect()),
        "trace_json" => Value::Method(Rc::new((receiver.clone(), name.to_string()))),
        _ => return None,
    })
}
