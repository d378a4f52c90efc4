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
use crate::npu::{simulate, NpuError, Simulation};
use crate::tensor::Tensor;

/// Calls `pypto.schedule(kernel, *args, **kwargs)`.
pub(crate) fn call(interpreter: &Interpreter, mut arguments: Arguments, span: Span) -> Result<Value> {
    if arguments.positional.is_empty() {
        return Err(interpreter.error(ErrorKind::Type, "pypto.schedule(kernel, *args) needs a kernel", span));
    }
    let (kernel, kernel_span) = arguments.positional.remove(0);
    let Value::Kernel(kernel) = &kernel else {
        return Err(interpreter
            .error(ErrorKind::Type, format!("pypto.schedule needs a kernel, not {}", kernel.type_name()), kernel_span)
            .with_help("decorate the function with @pypto.kernel"));
    };
    if kernel.style != KernelStyle::Functional {
        return Err(interpreter
            .error(ErrorKind::Unsupported, format!("pypto.schedule lowers @pypto.kernel kernels for now; '{}' is a @pypto.frontend.jit kernel", kernel.name), kernel_span)
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
            return Err(interpreter.error(ErrorKind::Unsupported, format!("pypto.schedule lowers kernels that return one tensor for now; '{}' returned {}", kernel.name, other.type_name()), span));
        }
    };
    let Some(frame) = frame else {
        return Err(interpreter.error(ErrorKind::Value, "pypto.schedule: the kernel's frame was lost", span));
    };
    let settings = TileSettings { vec: frame.run.vec_tile_shapes.clone(), cube: frame.run.cube_tile_shapes };
    let plan = lower(&frame.ops, &inputs, &output, &settings, &config, None).map_err(|error| match error {
        LoweringError::Unsupported(message) => interpreter.error(ErrorKind::Unsupported, message, span),
        LoweringError::Tile(error) => tile_site_error(interpreter, &frame, None, error.to_string(), span),
    })?;
    let simulation = simulate(&plan, &config).map_err(|error| npu_error(interpreter, &frame, error, span))?;
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
