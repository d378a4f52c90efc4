//! The autograd node of a kernel call whose backward is generated. Before the forward runs on the
//! NPU, `prepare` derives the backward once (to know it can), decides which forward values it
//! saves (`policy`) and adds them to the forward's outputs, so the forward's schedule pays for
//! their GM writes. After the run, `attach` makes the call one autograd node that keeps those
//! values; its backward compiles the derived capture for the incoming gradients and runs it on the
//! simulated NPU, pushing its schedule after the forward's. Should the chip refuse the backward's
//! tiles, the body runs again on the CPU with the tape and the gradients come from that, with a
//! warning. The node does not keep the reference run's tape for that: the tape held every value the
//! body's ops save for their own backward (example 14's [2048, 3136] Swish: 77 MB) until the
//! backward ran, though the generated kernel needs none of them. A body that can be differentiated
//! into a kernel neither writes in place nor draws random numbers (`derive` refuses those), so the
//! second run computes what the first did.

use std::rc::Rc;

use super::policy::Choice;
use super::rerun::KeptArguments;
use super::GeneratedBackward;
use crate::autograd::{call_custom_once, enable_grad, is_grad_enabled, AutogradError, CustomBackward};
use crate::autograd::{Attributes, CustomForward, ForwardOutput, Var};
use crate::lang::interp::error::{Result, SourceSpan};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::{Interpreter, KernelFrame};
use crate::lang::interp::pypto::capture::{identity, TensorRef};
use crate::lang::interp::pypto::npu_run::{returned_tensors, settings_of};
use crate::lang::interp::value::{Kernel, TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{Message, NpuMessage};
use crate::tensor::Tensor;

/// The tensor arguments of a call as autograd values, in call order (taken before the call
/// consumes its arguments).
pub(crate) fn tensor_inputs(arguments: &Arguments) -> Vec<Var> {
    let positional = arguments.positional.iter().map(|(value, _)| value);
    let keywords = arguments.keywords.iter().map(|(_, value, _)| value);
    positional
        .chain(keywords)
        .filter_map(|value| if let Value::Tensor(object) = value { Some(object.get()) } else { None })
        .collect()
}

/// A functional kernel call about to run: what its generated backward needs from its arguments.
pub(crate) struct FunctionalCall {
    /// The arguments, tensors by place (the CPU fallback runs the body again on `inputs`).
    arguments: KeptArguments,
    /// The tensor arguments as autograd values, in call order.
    inputs: Vec<Var>,
}

impl FunctionalCall {
    /// Takes what a generated backward needs from a call's arguments, before the body runs.
    pub(crate) fn of(arguments: &Arguments) -> FunctionalCall {
        FunctionalCall { arguments: KeptArguments::of(arguments), inputs: tensor_inputs(arguments) }
    }

    /// The tensor arguments as autograd values.
    pub(crate) fn inputs(&self) -> &[Var] {
        &self.inputs
    }
}

/// Whether a call with these inputs wants a generated backward (grad on, an input requiring it).
pub(crate) fn wanted(inputs: &[Var]) -> bool {
    is_grad_enabled() && inputs.iter().any(Var::requires_grad)
}

/// A reference call, before the NPU run, with its generated backward derived and its saves chosen.
pub(crate) struct Prepared {
    generated: GeneratedBackward,
    inputs: Vec<Var>,
    rerun: Rerun,
    single: bool,
    output_count: usize,
    /// The save-or-recompute decisions.
    pub choices: Vec<Choice>,
    /// The forward's result with the saved values appended (what the NPU run computes), when it
    /// saves values it does not return.
    pub extended: Option<Value>,
}

/// Prepares the generated backward of a finished reference call, or `None` (with a warning when
/// the capture cannot be differentiated into ops).
pub(crate) fn prepare(
    interpreter: &Interpreter,
    kernel: &Rc<Kernel>,
    frame: &KernelFrame,
    named: &[(String, Tensor)],
    call: FunctionalCall,
    reference: &Value,
    span: Span,
) -> Result<Option<Prepared>> {
    let FunctionalCall { arguments: kept_arguments, inputs } = call;
    let needs: Vec<bool> = inputs.iter().map(Var::requires_grad).collect();
    if !wanted(&inputs) || inputs.len() != named.len() {
        return Ok(None);
    }
    let Ok(reference_outputs) = returned_tensors(reference) else { return Ok(None) };
    let return_line = frame
        .statement
        .and_then(|statement| interpreter.line_at(SourceSpan { cell: kernel.function.cell, span: statement }));
    let generated = GeneratedBackward {
        name: format!("{}.backward", kernel.name),
        forward_ops: frame.ops.clone(),
        inputs: named.iter().map(|(name, tensor)| (name.clone(), TensorRef::of(tensor))).collect(),
        outputs: reference_outputs.iter().map(TensorRef::of).collect(),
        vec_tile: frame.vec_tile_shapes.clone(),
        settings: settings_of(interpreter, kernel, frame),
        return_line,
    };
    let reads = match generated.check(&needs) {
        Ok(reads) => reads,
        Err(reason) => {
            if interpreter.npu.fallback_warned.borrow_mut().insert(generated.name.clone()) {
                let message =
                    NpuMessage::NoGeneratedBackward { kernel: kernel.name.clone(), reason: Box::new(reason.message()) };
                let help = Message::Npu(NpuMessage::NoGeneratedBackwardHelp);
                interpreter.warn_message("npu/no-generated-backward", Message::Npu(message), span, Some(help));
            }
            return Ok(None);
        }
    };
    let config = interpreter.npu_config(span)?;
    let arguments: Vec<TensorRef> = generated.inputs.iter().map(|(_, input)| input.clone()).collect();
    let policy = interpreter.npu.backward_policy.get();
    let choices = super::policy::choose(
        policy,
        &generated.forward_ops,
        &arguments,
        &generated.outputs,
        &reads,
        generated.vec_tile.as_deref(),
        &config,
    );
    let mut saved_values = Vec::new();
    for choice in choices.iter().filter(|choice| choice.save && !choice.output) {
        let kept = frame.kept_values.iter().flatten().find(
            |value| matches!(value, Value::Tensor(object) if identity(object.get().tensor()) == identity(&choice.value)),
        );
        match kept {
            Some(value) => saved_values.push(value.clone()),
            None => return Ok(None),
        }
    }
    let single = matches!(reference, Value::Tensor(_));
    let extended = (!saved_values.is_empty()).then(|| {
        let outputs: Vec<Value> = match reference {
            Value::Tensor(_) => vec![reference.clone()],
            Value::Tuple(items) => items.to_vec(),
            Value::List(items) => items.borrow().clone(),
            other => vec![other.clone()],
        };
        Value::tuple(outputs.into_iter().chain(saved_values).collect())
    });
    let output_count = reference_outputs.len();
    let rerun = Rerun { kernel: kernel.clone(), arguments: kept_arguments };
    Ok(Some(Prepared { generated, inputs, rerun, single, output_count, choices, extended }))
}

/// Makes the call one autograd node whose backward is the generated kernel; `result` is what the
/// NPU run returned (the extended result when values were saved). Returns what the caller gets.
pub(crate) fn attach(interpreter: &Interpreter, prepared: Prepared, result: &Value, span: Span) -> Result<Value> {
    let Prepared { generated, inputs, rerun, single, output_count, choices, .. } = prepared;
    let mut tensors = returned_tensors(result)
        .map_err(|reason| interpreter.error(crate::lang::interp::error::ErrorKind::Value, reason.to_string(), span))?;
    let extras = tensors.split_off(output_count.min(tensors.len()));
    let outputs = tensors;
    // Per saved value: where the backward finds it (an output, or an extra the node keeps).
    let mut extra_index = 0;
    let mut saved_places = Vec::new();
    for choice in choices.iter().filter(|choice| choice.save) {
        let output = generated.outputs.iter().position(|output| identity(output) == identity(&choice.value));
        let place = match (choice.output, output) {
            (true, Some(index)) => SavedPlace::Output(index),
            _ => {
                extra_index += 1;
                SavedPlace::Extra(extra_index - 1)
            }
        };
        saved_places.push((choice.value.clone(), place));
    }
    let slot = std::cell::RefCell::new(Some(ForwardOutput { outputs, saved: extras }));
    let forward: CustomForward = Rc::new(move |_inputs: &[Tensor], _attributes: &Attributes| {
        slot.borrow_mut().take().ok_or_else(|| AutogradError::BadArgument {
            op: "kernel".into(),
            detail: crate::messages::AutogradDetail::ForwardConsumed,
        })
    });
    let kernel_name = generated.name.trim_end_matches(".backward").to_string();
    let needs: Vec<bool> = inputs.iter().map(Var::requires_grad).collect();
    let shown = super::shown::shown(&generated, &choices, &needs);
    let backward = backward_of(interpreter, generated, inputs.clone(), rerun, saved_places, interpreter.at(span));
    let vars = call_custom_once(&kernel_name, forward, Some(backward), &inputs, Attributes::new(), shown)
        .map_err(|error| interpreter.autograd_error(error, span))?;
    let mut values: Vec<Value> = vars.into_iter().map(TensorObject::value).collect();
    Ok(if single { values.pop().unwrap_or(Value::None) } else { Value::tuple(values) })
}

/// Where the backward finds a saved value.
#[derive(Clone, Copy)]
enum SavedPlace {
    /// The forward's output `index`.
    Output(usize),
    /// Extra `index` the node keeps after the inputs.
    Extra(usize),
}

/// What the CPU fallback needs to run the body again with the tape.
struct Rerun {
    kernel: Rc<Kernel>,
    arguments: KeptArguments,
}

impl Rerun {
    /// The gradients of the call's outputs (`grads` their incoming gradients) with respect to
    /// `inputs`, by running the body again on them with the tape.
    fn gradients(
        &self,
        interpreter: &Interpreter,
        inputs: &[Var],
        grads: &[Var],
        span: Span,
    ) -> std::result::Result<Vec<Option<Var>>, AutogradError> {
        let _grad = enable_grad();
        let arguments = self.arguments.with_tensors(|index| TensorObject::value(inputs[index].clone()));
        let name = format!("{}.backward", self.kernel.name);
        let returned = interpreter
            .call_function(&self.kernel.function, arguments, span)
            .and_then(|value| interpreter.tensors_of(&value, span, &self.kernel.name))
            .map_err(|error| interpreter.stash(error, &name))?;
        let outputs: Vec<Var> = returned.into_iter().take(grads.len()).collect();
        crate::autograd::grad(&outputs, inputs, Some(grads), false)
    }
}

/// The node's backward: the generated kernel on the NPU (the body again on the CPU, with the tape,
/// if the chip refuses it).
fn backward_of(
    interpreter: &Interpreter,
    generated: GeneratedBackward,
    inputs: Vec<Var>,
    rerun: Rerun,
    saved_places: Vec<(TensorRef, SavedPlace)>,
    site: SourceSpan,
) -> CustomBackward {
    let weak = interpreter.me.clone();
    Rc::new(move |grads: &[Var], saved: &[Var], context| {
        let name = generated.name.clone();
        let Some(interpreter) = weak.upgrade() else {
            return Err(AutogradError::CustomOp { name, detail: crate::messages::AutogradDetail::SessionGone });
        };
        let values: Vec<Tensor> = saved.iter().take(inputs.len()).map(|var| var.tensor().clone()).collect();
        let kept: Vec<(TensorRef, Tensor)> = saved_places
            .iter()
            .filter_map(|(reference, place)| {
                let tensor = match place {
                    SavedPlace::Output(index) => context.outputs.get(*index)?.clone(),
                    SavedPlace::Extra(index) => saved.get(inputs.len() + index)?.tensor().clone(),
                };
                Some((reference.clone(), tensor))
            })
            .collect();
        let grad_values: Vec<Tensor> = grads.iter().map(|var| var.tensor().clone()).collect();
        let needs: Vec<bool> = inputs.iter().map(Var::requires_grad).collect();
        let config = interpreter.npu_config(site.span).map_err(|error| interpreter.stash(error, &name))?;
        // The backward holds more tiles than the forward: when the forward's vec tile overflows UB
        // in it, its rows are halved; and since a chain that nearly fills UB is cut through GM
        // workspaces, the tile of half the rows is simulated too and the faster one kept (the
        // forward keeps its own tile).
        let attempt = |tile: Option<&[usize]>| {
            generated
                .work(&values, &grad_values, &needs, &kept, &config, tile)
                .map_err(super::BackwardFailure::from)
                .and_then(|work| super::compile(work, &config))
        };
        let halved = |tile: &Option<Vec<usize>>| {
            let mut tile = tile.clone()?;
            let rows = tile.first_mut().filter(|rows| **rows > 1)?;
            *rows /= 2;
            Some(tile)
        };
        let mut tile = generated.vec_tile.clone();
        let mut compiled = loop {
            match (attempt(tile.as_deref()), halved(&tile)) {
                (Err(failure), Some(smaller)) if failure.is_ub_overflow() => tile = Some(smaller),
                (result, _) => break result,
            }
        };
        // Only the faster tiling's plan is executed for the values.
        if let (Ok(chosen), Some(smaller)) = (&compiled, halved(&tile)) {
            if let Ok(other) = attempt(Some(&smaller)) {
                if other.simulation.summary.cycles < chosen.simulation.summary.cycles {
                    compiled = Ok(other);
                }
            }
        }
        let ran = compiled.and_then(|compiled| compiled.gradients(&values));
        match ran {
            Ok((gradients, simulation)) => {
                record_backward_run(&interpreter, &name, simulation);
                Ok(gradients.into_iter().map(|gradient| gradient.map(Var::constant)).collect())
            }
            Err(reason) => {
                count_backward_on_cpu(&interpreter, &name, &reason, site, true);
                rerun.gradients(&interpreter, &inputs, grads, site.span)
            }
        }
    })
}

/// Counts a generated backward that ran on the NPU and keeps its schedule after the forward's.
pub(super) fn record_backward_run(interpreter: &Interpreter, name: &str, simulation: Rc<crate::npu::Simulation>) {
    let (npu, cpu) = interpreter.npu.call_counts.get();
    interpreter.npu.call_counts.set((npu + 1, cpu));
    if !interpreter.npu.untraced_call.get() {
        crate::lang::interp::pypto::traces::record_trace(name, &simulation);
        let mut schedules = interpreter.npu.schedules.borrow_mut();
        if schedules.len() < crate::lang::interp::pypto::npu_run::MAX_SCHEDULES_PER_CELL {
            schedules.push((name.to_string(), simulation));
        }
    }
}

/// Counts a generated backward that ran on the CPU and, when `warn` and not yet said for `name`,
/// warns once at the call's site with the reason.
pub(super) fn count_backward_on_cpu(
    interpreter: &Interpreter,
    name: &str,
    reason: &super::BackwardFailure,
    site: SourceSpan,
    warn: bool,
) {
    let (npu, cpu) = interpreter.npu.call_counts.get();
    interpreter.npu.call_counts.set((npu, cpu + 1));
    if warn && interpreter.npu.fallback_warned.borrow_mut().insert(name.to_string()) {
        let message = NpuMessage::GeneratedBackwardOnCpu { name: name.to_string(), reason: Box::new(reason.message()) };
        let help = Message::Npu(NpuMessage::GeneratedBackwardOnCpuHelp);
        interpreter.warn_message_in(site.cell, "npu/cpu-fallback", Message::Npu(message), site.span, Some(help));
    }
}
