//! The autograd node of a kernel call whose backward is generated: its backward compiles the
//! derived capture for the incoming gradients and runs it on the simulated NPU, pushing its
//! schedule after the forward's. Should the chip refuse the backward's tiles (its working set is
//! larger than the forward's), the gradients come from the reference run's tape on the CPU, with a
//! warning that says why.

use std::rc::Rc;

use super::GeneratedBackward;
use crate::autograd::{call_custom, is_grad_enabled, register_custom_op, AutogradError, CustomBackward, CustomForward};
use crate::autograd::{Attributes, ForwardOutput, Var};
use crate::lang::interp::error::{Result, SourceSpan};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::{Interpreter, KernelFrame};
use crate::lang::interp::pypto::capture::TensorRef;
use crate::lang::interp::pypto::npu_run::{returned_tensors, settings_of};
use crate::lang::interp::value::{Kernel, TensorObject, Value};
use crate::lang::syntax::Span;
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

/// What `attach` needs of a finished call that ran on the NPU.
pub(crate) struct FinishedCall<'a> {
    /// The kernel.
    pub kernel: &'a Kernel,
    /// Its frame.
    pub frame: &'a KernelFrame,
    /// The tensor arguments (parameter name, tensor), in call order.
    pub named: &'a [(String, Tensor)],
    /// The same, as autograd values.
    pub inputs: Vec<Var>,
    /// What the caller receives (the simulator's values).
    pub result: &'a Value,
    /// What the reference run returned (its tape reaches the inputs).
    pub reference: &'a Value,
}

/// Makes the call one autograd node whose backward is generated, when an input requires grad and
/// the capture can be differentiated into ops; `Ok(None)` leaves the call as it is (the reference
/// run's tape), with a warning when only the derivation stood in the way.
pub(crate) fn attach(interpreter: &Interpreter, call: FinishedCall<'_>, span: Span) -> Result<Option<Value>> {
    let needs: Vec<bool> = call.inputs.iter().map(Var::requires_grad).collect();
    if !is_grad_enabled() || !needs.iter().any(|&need| need) || call.inputs.len() != call.named.len() {
        return Ok(None);
    }
    let (Ok(outputs), Ok(reference_outputs)) = (returned_tensors(call.result), returned_tensors(call.reference)) else {
        return Ok(None);
    };
    let kernel = call.kernel;
    let return_line = call
        .frame
        .statement
        .and_then(|statement| interpreter.line_at(SourceSpan { cell: kernel.function.cell, span: statement }));
    let generated = GeneratedBackward {
        name: format!("{}.backward", kernel.name),
        forward_ops: call.frame.ops.clone(),
        inputs: call.named.iter().map(|(name, tensor)| (name.clone(), TensorRef::of(tensor))).collect(),
        outputs: reference_outputs.iter().map(TensorRef::of).collect(),
        vec_tile: call.frame.vec_tile_shapes.clone(),
        settings: settings_of(interpreter, kernel, call.frame),
        return_line,
    };
    if let Err(reason) = generated.check(&needs) {
        if interpreter.npu.fallback_warned.borrow_mut().insert(generated.name.clone()) {
            interpreter.warn(
                "npu/no-generated-backward",
                format!(
                    "kernel '{}' has no generated backward: {reason}; its backward runs on the CPU tape",
                    kernel.name
                ),
                span,
                Some("register one with @pypto.register_gradient, or use ops whose gradients are ops".into()),
            );
        }
        return Ok(None);
    }
    let reference_vars: Vec<Var> = match call.reference {
        Value::Tensor(object) => vec![object.get()],
        other => interpreter.tensors_of(other, span, &kernel.name)?,
    };
    let single = matches!(call.result, Value::Tensor(_));
    let slot = std::cell::RefCell::new(Some(ForwardOutput { outputs, saved: Vec::new() }));
    let forward: CustomForward = Rc::new(move |_inputs: &[Tensor], _attributes: &Attributes| {
        slot.borrow_mut().take().ok_or_else(|| AutogradError::BadArgument {
            op: "kernel".into(),
            detail: "the forward was already consumed".into(),
        })
    });
    let backward = backward_of(interpreter, generated, call.inputs.clone(), reference_vars, interpreter.at(span));
    register_custom_op(&kernel.name, forward, Some(backward));
    let vars = call_custom(&kernel.name, &call.inputs, Attributes::new())
        .map_err(|error| interpreter.autograd_error(error, span))?;
    let mut values: Vec<Value> = vars.into_iter().map(TensorObject::value).collect();
    Ok(Some(if single { values.pop().unwrap_or(Value::None) } else { Value::tuple(values) }))
}

/// The node's backward: the generated kernel on the NPU (the tape of the reference run if the
/// chip refuses it).
fn backward_of(
    interpreter: &Interpreter,
    generated: GeneratedBackward,
    inputs: Vec<Var>,
    reference: Vec<Var>,
    site: SourceSpan,
) -> CustomBackward {
    let weak = interpreter.me.clone();
    Rc::new(move |grads: &[Var], saved: &[Var], _context| {
        let name = generated.name.clone();
        let Some(interpreter) = weak.upgrade() else {
            return Err(AutogradError::CustomOp { name, detail: "the session that ran the kernel is gone".into() });
        };
        let values: Vec<Tensor> = saved.iter().take(inputs.len()).map(|var| var.tensor().clone()).collect();
        let grad_values: Vec<Tensor> = grads.iter().map(|var| var.tensor().clone()).collect();
        let needs: Vec<bool> = inputs.iter().map(Var::requires_grad).collect();
        let config = interpreter.npu_config(site.span).map_err(|error| interpreter.stash(error, &name))?;
        let ran = generated
            .work(&values, &grad_values, &needs, &[], config.ub_alignment)
            .and_then(|work| super::run(&work, &values, &config));
        match ran {
            Ok((gradients, simulation)) => {
                let simulation = Rc::new(simulation);
                let (npu, cpu) = interpreter.npu.call_counts.get();
                interpreter.npu.call_counts.set((npu + 1, cpu));
                if !interpreter.npu.untraced_call.get() {
                    crate::lang::interp::pypto::traces::record_trace(&name, &simulation);
                    let mut schedules = interpreter.npu.schedules.borrow_mut();
                    if schedules.len() < crate::lang::interp::pypto::npu_run::MAX_SCHEDULES_PER_CELL {
                        schedules.push((name.clone(), simulation));
                    }
                }
                Ok(gradients.into_iter().map(|gradient| gradient.map(Var::constant)).collect())
            }
            Err(reason) => {
                let (npu, cpu) = interpreter.npu.call_counts.get();
                interpreter.npu.call_counts.set((npu, cpu + 1));
                if interpreter.npu.fallback_warned.borrow_mut().insert(name.clone()) {
                    interpreter.warn_in(
                        site.cell,
                        "npu/cpu-fallback",
                        format!("the generated backward '{name}' ran on the CPU: {reason}"),
                        site.span,
                        Some(
                            "a smaller vec tile (set_vec_tile_shapes) leaves room for the backward's working set"
                                .into(),
                        ),
                    );
                }
                crate::autograd::grad(&reference, &inputs, Some(grads), false)
            }
        }
    })
}
