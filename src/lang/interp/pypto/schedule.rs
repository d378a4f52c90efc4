//! `pypto.schedule(kernel, *args)`: calls the kernel once (on the simulated NPU, as every call)
//! and returns the schedule of that call (DESIGN §2: `.cycles`, `.time_us`, `.pipe_busy`,
//! `.gm_bytes_read`, `.gm_bytes_written`, `.bound`, `.peak_occupancy`, `.trace_json()`).

use std::rc::Rc;

use super::kernel_call::run_kernel_call;
use super::npu_run::{lower_and_simulate, work_of, NpuFailure, Outcome};
use crate::lang::interp::error::{ErrorKind, Result};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::{Interpreter, KernelFrame};
use crate::lang::interp::value::{Kernel, Object, Value};
use crate::lang::syntax::Span;
use crate::messages::{Kind, LibraryKernelMessage, LibraryMessage, Message};
use crate::npu::{NpuConfig, Simulation};
use crate::tensor::Tensor;

/// One kernel call made for a display: the kernel, what it recorded, and its schedule.
pub(crate) struct RecordedRun {
    /// The kernel.
    pub kernel: Rc<Kernel>,
    /// The kernel's frame (recorded ops, tile settings and where they were set).
    pub frame: KernelFrame,
    /// The tensor arguments (parameter name, tensor).
    pub arguments: Vec<(String, Tensor)>,
    /// What the kernel returned.
    pub result: Value,
    /// The schedule of the call.
    pub simulation: Rc<Simulation>,
    /// The session's NPU preset.
    pub config: NpuConfig,
}

/// Calls `kernel(*args)` on the NPU (`what` names the calling function in messages); a call that
/// cannot run there is an error, since there is no schedule to show.
pub(crate) fn record(
    interpreter: &Interpreter,
    kernel: &Value,
    kernel_span: Span,
    arguments: Arguments,
    what: &str,
    span: Span,
) -> Result<RecordedRun> {
    let Value::Kernel(kernel) = kernel else {
        let message = LibraryMessage::Expected {
            function: what.to_string(),
            expected: Kind::Kernel,
            got: kernel.type_name().into(),
        };
        return Err(interpreter
            .error(ErrorKind::Type, "", kernel_span)
            .with_message(message)
            .with_help_message(LibraryKernelMessage::DecorateKernel));
    };
    let config = interpreter.npu_config(span)?;
    let arguments = allocate_specs(interpreter, arguments, what)?;
    let call = run_kernel_call(interpreter, &interpreter.scoped_kernel(kernel), arguments, span);
    call.result?;
    let result = call.reference.unwrap_or(Value::None);
    let Some(frame) = call.frame else {
        let message = LibraryKernelMessage::FrameLost { function: what.to_string() };
        return Err(interpreter.error(ErrorKind::Value, "", span).with_message(message));
    };
    let simulation = match call.outcome {
        Some(Outcome::Npu(simulation)) => simulation,
        Some(Outcome::Cpu(reason)) => {
            let message = LibraryKernelMessage::NotOnNpu {
                function: what.to_string(),
                kernel: kernel.name.clone(),
                reason: Box::new(reason),
            };
            return Err(interpreter.error(ErrorKind::Unsupported, "", span).with_message(message));
        }
        None => {
            let message =
                LibraryKernelMessage::F64Reference { function: what.to_string(), kernel: kernel.name.clone() };
            return Err(interpreter
                .error(ErrorKind::Unsupported, "", span)
                .with_message(message)
                .with_help_message(LibraryKernelMessage::NpuDtypes));
        }
    };
    Ok(RecordedRun { kernel: kernel.clone(), frame, arguments: call.arguments, result, simulation, config })
}

impl RecordedRun {
    /// The schedule with the vec tile `vec_tile` in place of the kernel's own (a sweep row).
    /// (A row names no source line: the row is its own tile shape, not the kernel's tile line.)
    pub(crate) fn simulate_with(
        &self,
        interpreter: &Interpreter,
        vec_tile: &[usize],
    ) -> std::result::Result<Rc<Simulation>, ScheduleFailure> {
        let work = work_of(
            interpreter,
            &self.kernel,
            &self.frame,
            &self.arguments,
            &self.result,
            Some(vec_tile),
            self.config.ub_alignment,
        )
        .map_err(|reason| ScheduleFailure::Unsupported(reason.message()))?;
        match lower_and_simulate(&work, &self.config) {
            Ok((_, simulation)) => Ok(simulation),
            Err(NpuFailure::Fallback(reason)) => Err(ScheduleFailure::Unsupported(reason)),
            Err(NpuFailure::Chip(error)) => Err(ScheduleFailure::Chip(error.without_source_line().message())),
        }
    }
}

/// Why a sweep row could not be simulated.
pub(crate) enum ScheduleFailure {
    /// The kernel cannot run on the NPU at all (no shape would help).
    Unsupported(crate::messages::Message),
    /// The chip refused the tiles (capacity, alignment …).
    Chip(crate::messages::Message),
}

/// Calls `pypto.schedule(kernel, *args, **kwargs)`.
pub(crate) fn call(interpreter: &Interpreter, mut arguments: Arguments, span: Span) -> Result<Value> {
    if arguments.positional.is_empty() {
        let message = LibraryMessage::Needs { function: "pypto.schedule(kernel, *args)".into(), what: Kind::Kernel };
        return Err(interpreter.error(ErrorKind::Type, "", span).with_message(message));
    }
    let (kernel, kernel_span) = arguments.positional.remove(0);
    let warm = match arguments.keywords.iter().position(|(name, _, _)| name == "warm_l2") {
        Some(index) => match arguments.keywords.remove(index) {
            (_, Value::Bool(warm), _) => warm,
            (_, other, keyword_span) => {
                let message = LibraryMessage::ArgumentType {
                    function: "pypto.schedule".into(),
                    parameter: "warm_l2".into(),
                    expected: Kind::Bool,
                    got: other.type_name().to_string(),
                };
                return Err(interpreter
                    .error(ErrorKind::Type, "", keyword_span)
                    .with_message(message)
                    .with_help_message(LibraryKernelMessage::WarmL2));
            }
        },
        None => false,
    };
    let run = record(interpreter, &kernel, kernel_span, arguments, "pypto.schedule", span)?;
    if !warm {
        return Ok(Value::object(Object::Schedule(run.simulation)));
    }
    Ok(Value::object(Object::Schedule(Rc::new(warm_schedule(interpreter, &run, span)?))))
}

/// The schedule of `run`'s kernel run again right after itself: L2 holds what the first run left.
fn warm_schedule(interpreter: &Interpreter, run: &RecordedRun, span: Span) -> Result<Simulation> {
    // The lowering's and the chip's reasons are their own sentences.
    let failed = |reason: Message| {
        let reason = Box::new(reason);
        let message = LibraryKernelMessage::Failed { function: "pypto.schedule".into(), reason };
        interpreter.error(ErrorKind::Unsupported, "", span).with_message(message)
    };
    let work =
        work_of(interpreter, &run.kernel, &run.frame, &run.arguments, &run.result, None, run.config.ub_alignment)
            .map_err(|reason| failed(reason.message()))?;
    let plan = crate::tile::lower_work(&work, &crate::npu::lowering_target(&run.config))
        .map_err(|error| failed(error.message()))?;
    crate::npu::simulate_warm(&plan, &run.config).map_err(|error| failed(error.message()))
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
        "cores_used" => Value::Int(summary.cores_used as i64),
        "preset" => Value::string(summary.preset.as_str()),
        "notes" => Value::list(summary.notes.iter().map(|note| Value::string(note.english())).collect()),
        "trace_json" => Value::Method(Rc::new((receiver.clone(), name.to_string()))),
        _ => return None,
    })
}

/// `pypto.Tensor(shape, dtype)` specs among the arguments become zero tensors of that shape: the
/// schedule does not depend on the values. The reference pass still runs, so a spec must fit the
/// allocation limit (a spec of a bigger tensor is an error that says so).
fn allocate_specs(interpreter: &Interpreter, mut arguments: Arguments, what: &str) -> Result<Arguments> {
    let allocate = |value: &mut Value, value_span: Span| -> Result<()> {
        let Value::Object(object) = &*value else { return Ok(()) };
        let Object::Api(super::spec::ApiObject::TensorSpec { dims, dtype, .. }) = object.as_ref() else {
            return Ok(());
        };
        let mut shape = Vec::with_capacity(dims.len());
        for dim in dims {
            match dim {
                super::spec::SpecDim::Size(size) => shape.push(*size),
                _ => {
                    return Err(interpreter
                        .error(ErrorKind::Value, "", value_span)
                        .with_message(LibraryKernelMessage::SpecSizes { function: what.to_string() })
                        .with_help_message(LibraryKernelMessage::GiveSizes))
                }
            }
        }
        let elements = shape.iter().try_fold(1usize, |total, &size| total.checked_mul(size));
        let limit = interpreter.limits().tensor_elements;
        if elements.is_none_or(|elements| elements > limit) {
            return Err(interpreter
                .error(ErrorKind::Value, "", value_span)
                .with_message(LibraryKernelMessage::SpecTooBig { function: what.to_string(), shape, limit })
                .with_help_message(LibraryKernelMessage::SmallerShape));
        }
        let tensor = crate::tensor::Tensor::zeros(&shape, *dtype).map_err(|error| {
            let reason = Box::new(error.message());
            let message = LibraryKernelMessage::Failed { function: what.to_string(), reason };
            interpreter.error(ErrorKind::Value, "", value_span).with_message(message)
        })?;
        *value = crate::lang::interp::value::TensorObject::value(crate::autograd::Var::constant(tensor));
        Ok(())
    };
    for (value, value_span) in arguments.positional.iter_mut() {
        allocate(value, *value_span)?;
    }
    for (_, value, value_span) in arguments.keywords.iter_mut() {
        allocate(value, *value_span)?;
    }
    Ok(arguments)
}
