//! A call of a kernel: its body runs once (values and capture), then the capture is compiled and
//! simulated on the NPU, and the call's autograd node is made (registered or generated backward).

use std::rc::Rc;

use super::autodiff::{record_gradient_node, run_detached};
use super::npu_run::{chip_error, named_tensors, run_on_npu, wants_npu, NpuCall, Outcome};
use crate::lang::interp::error::Result;
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::{Interpreter, KernelFrame};
use crate::lang::interp::value::{Kernel, KernelStyle, Value};
use crate::lang::syntax::Span;
use crate::messages::KernelStage;
use crate::tensor::{DType, Tensor};

/// Runs `kernel` on `arguments`: the one entry point of kernel execution. The body runs once on
/// the tensor core (through autograd `Var`s) while its ops are captured — its values are the call's
/// values — and the capture is compiled and simulated on the NPU for the schedule (`npu_run`). A
/// registered gradient makes the call one custom autograd node whose backward is the interpreted
/// gradient function; a `@pypto.kernel` without one gets a generated backward kernel
/// (`generated_backward`); other kernels keep the graph of what their body executed.
pub(crate) fn run_kernel(
    interpreter: &Interpreter,
    kernel: &Rc<Kernel>,
    arguments: Arguments,
    span: Span,
) -> Result<Value> {
    run_kernel_call(interpreter, kernel, arguments, span).result
}

/// A finished kernel call: its value, its frame, its tensor arguments and where it ran.
pub(crate) struct KernelCall {
    /// What the kernel returned (or its error).
    pub result: Result<Value>,
    /// The kernel's frame: recorded ops, tile settings and where they were set.
    pub frame: Option<KernelFrame>,
    /// The tensor arguments (parameter name, tensor).
    pub arguments: Vec<(String, Tensor)>,
    /// Where it ran (`None`: the CPU by design, for f64 tensors or a kernel called by a kernel).
    pub outcome: Option<Outcome>,
    /// What the reference run returned (the tensors the recorded ops made).
    pub reference: Option<Value>,
}

/// `run_kernel`, also returning the frame and where the call ran.
pub(crate) fn run_kernel_call(
    interpreter: &Interpreter,
    kernel: &Rc<Kernel>,
    arguments: Arguments,
    span: Span,
) -> KernelCall {
    let dtype = arguments
        .positional
        .iter()
        .map(|(value, _)| value)
        .chain(arguments.keywords.iter().map(|(_, value, _)| value))
        .find_map(|value| if let Value::Tensor(object) = value { Some(object.get().dtype()) } else { None })
        .unwrap_or(DType::F32);
    let named = named_tensors(kernel, &arguments);
    let on_npu = wants_npu(&named);
    let progress_call = if on_npu { super::npu_run::progress_call(interpreter) } else { None };
    if let Some(number) = progress_call {
        crate::lang::interp::progress::report_kernel_stage(&kernel.name, number, KernelStage::Computing);
    }
    if kernel.style == KernelStyle::Jit {
        interpreter.check_jit_rebinding(kernel, &arguments);
    }
    if let Some(outer) = interpreter.npu.kernel_frames.borrow_mut().last_mut() {
        outer.calls_kernels = true;
    }
    let unit_starts = if kernel.style == KernelStyle::Jit {
        super::work_jit::loop_body_starts(&kernel.function.definition.body)
    } else {
        Vec::new()
    };
    let gradient = interpreter.gradients.borrow().get(&kernel.name).cloned();
    // Without a registered gradient, a functional kernel's backward is generated (issue 18); the
    // frame keeps the tensors the body makes, for the values the backward saves.
    let generated_call = (on_npu && gradient.is_none() && kernel.style == KernelStyle::Functional)
        .then(|| super::generated_backward::FunctionalCall::of(&arguments))
        .filter(|call| super::generated_backward::wanted(call.inputs()));
    // A jit kernel's backward is generated too: its body runs without the tape, so its stores
    // write the output arguments in place as on the chip, and the call becomes one node. Not inside
    // another kernel: the caller's capture would see the outputs as the tensors it made.
    let nested = interpreter.in_kernel();
    let jit_call = (on_npu && !nested && gradient.is_none() && kernel.style == KernelStyle::Jit)
        .then(|| super::generated_backward::before_call(&arguments))
        .filter(|call| super::generated_backward::wanted(call.inputs()));
    interpreter.npu.kernel_frames.borrow_mut().push(KernelFrame {
        vec_tile_shapes: None,
        cube_tile_shapes: None,
        dtype,
        saved: Vec::new(),
        ops: Vec::new(),
        vec_tile_site: None,
        vec_tile_history: Vec::new(),
        cube_tile_site: None,
        statement: None,
        unit_starts,
        calls_kernels: false,
        kept_values: generated_call.as_ref().map(|_| Vec::new()),
    });
    let mut pending = None;
    let mut result = match (kernel.style, gradient) {
        (KernelStyle::Functional, Some(backward)) => {
            run_detached(interpreter, kernel, arguments, backward, span).map(|(value, gradient)| {
                pending = Some(gradient);
                value
            })
        }
        _ => {
            let _untaped = jit_call.as_ref().map(|_| crate::autograd::no_grad());
            interpreter.call_function(&kernel.function, arguments, span)
        }
    };
    let frame = interpreter.npu.kernel_frames.borrow_mut().pop();
    if let Some(frame) = &frame {
        interpreter.npu.last_tiles.replace((frame.vec_tile_shapes.clone(), frame.cube_tile_shapes));
    }
    if let (Ok(_), Some(frame)) = (&result, &frame) {
        if let Err(error) = super::vec_tiles::check_vec_tiles(interpreter, frame, span) {
            result = Err(error);
        }
    }
    let mut outcome = None;
    let reference = result.as_ref().ok().cloned();
    let mut prepared = None;
    if let (Some(call), Some(value), Some(frame)) = (generated_call, &reference, &frame) {
        let made = super::generated_backward::prepare(interpreter, kernel, frame, &named, call, value, span);
        match made {
            Ok(made) => prepared = made,
            Err(error) => result = Err(error),
        }
    }
    // The values a generated backward saves are outputs of the forward's NPU run too (their GM
    // writes are in its schedule); their values are the body's, as the outputs' are.
    let npu_result =
        result.clone().map(|value| prepared.as_ref().and_then(|prepared| prepared.extended.clone()).unwrap_or(value));
    if let (true, Ok(value), Some(frame)) = (on_npu, &npu_result, &frame) {
        let call = NpuCall { kernel, frame, arguments: &named, result: value, progress_call };
        match run_on_npu(interpreter, &call, span) {
            Ok(ran) => outcome = Some(ran),
            Err(error) => result = Err(chip_error(interpreter, kernel, frame, &error, span)),
        }
    }
    let finished = result.as_ref().ok().cloned();
    if let (Some(prepared), Ok(value), Some(Outcome::Npu(..))) = (prepared, &npu_result, &outcome) {
        if result.is_ok() {
            result = super::generated_backward::attach(interpreter, prepared, value, span);
        }
    }
    if let (Some(call), true, Some(frame)) = (jit_call, result.is_ok(), &frame) {
        if let Err(error) = super::generated_backward::attach_jit(interpreter, kernel, frame, &named, call, span) {
            result = Err(error);
        }
    }
    if let (Some(gradient), Some(value), Some(frame)) = (pending, finished, &frame) {
        result = record_gradient_node(interpreter, kernel, gradient, &value, reference.as_ref(), frame, span);
    }
    KernelCall { result, frame, arguments: named, outcome, reference }
}
