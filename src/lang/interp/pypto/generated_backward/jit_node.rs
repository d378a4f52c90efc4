//! The autograd node of a `@pypto.frontend.jit` call whose backward is generated. The body runs
//! without the tape (its stores write the output arguments in place, as on the chip); the call
//! then becomes one autograd node whose inputs are the tensor arguments and whose outputs are the
//! arguments it wrote, and each written argument's value becomes that node's output. Its backward
//! is the kernel derived by `jit::derive_jit`, run on the simulated NPU. When no backward can be
//! derived (a warning says why) or the chip refuses it, the backward runs the body again on the
//! CPU with the tape, from the arguments as they were before the call.

use std::rc::Rc;

use super::jit::{derive_jit, written_arguments};
use super::rerun::KeptArguments;
use super::{BackwardFailure, BackwardWork};
use crate::autograd::{call_custom_once, enable_grad, AutogradError, CustomBackward, GeneratedShown};
use crate::autograd::{Attributes, CustomForward, ForwardOutput, Var};
use crate::lang::interp::error::{ErrorKind, Result, SourceSpan};
use crate::lang::interp::eval::Arguments;
use crate::lang::interp::interpreter::{Interpreter, KernelFrame};
use crate::lang::interp::pypto::capture::{Captured, TensorRef};
use crate::lang::interp::pypto::npu_run::settings_of;
use crate::lang::interp::pypto::work_jit::{record_jit, Returned};
use crate::lang::interp::value::{Kernel, TensorObject, Value};
use crate::lang::syntax::Span;
use crate::messages::{Message, NpuMessage};
use crate::npu::NpuConfig;
use crate::tensor::Tensor;
use crate::tile::WorkSettings;

/// A jit call about to run without the tape: its arguments as they were.
pub(crate) struct JitCall {
    /// The call's arguments, tensors by place (their values before the call are in `before`).
    arguments: KeptArguments,
    /// The tensor arguments' objects, in call order (a written one gets the node's output).
    objects: Vec<Rc<TensorObject>>,
    /// The tensor arguments' values before the call, in call order (the CPU fallback's inputs).
    before: Vec<Tensor>,
    /// The tensor arguments as autograd values, in call order.
    inputs: Vec<Var>,
}

impl JitCall {
    /// The tensor arguments as autograd values.
    pub(crate) fn inputs(&self) -> &[Var] {
        &self.inputs
    }
}

/// Takes what a generated jit backward needs from the call's arguments, before the body runs.
pub(crate) fn before_call(arguments: &Arguments) -> JitCall {
    let kept = KeptArguments::of(arguments);
    let inputs = super::tensor_inputs(arguments);
    let before = inputs.iter().map(|input| input.tensor().deep_copy()).collect();
    JitCall { arguments: kept, objects: tensor_objects(arguments), before, inputs }
}

/// Makes a finished jit call (its body ran without the tape and `frame` holds its capture) one
/// autograd node whose backward is generated; `named` are its tensor arguments.
pub(crate) fn attach_jit(
    interpreter: &Interpreter,
    kernel: &Rc<Kernel>,
    frame: &KernelFrame,
    named: &[(String, Tensor)],
    call: JitCall,
    span: Span,
) -> Result<()> {
    let JitCall { arguments, objects, before, inputs } = call;
    if inputs.len() != named.len() {
        return Ok(());
    }
    let references: Vec<TensorRef> = named.iter().map(|(_, tensor)| TensorRef::of(tensor)).collect();
    let written = written_arguments(&frame.ops, &references);
    if let Some(&index) = written.iter().find(|&&index| inputs[index].requires_grad()) {
        let text = format!(
            "kernel '{}' writes into `{}`, which requires grad: write the result into a new output tensor",
            kernel.name, named[index].0
        );
        return Err(interpreter.error(ErrorKind::Autograd, text, span));
    }
    if written.is_empty() {
        return Ok(());
    }
    let needs: Vec<bool> = inputs.iter().map(Var::requires_grad).collect();
    let name = format!("{}.backward", kernel.name);
    let derivable = match derive_jit(&frame.ops, &references, &needs) {
        Ok(_) => Ok(()),
        Err(reason) => {
            if interpreter.npu.fallback_warned.borrow_mut().insert(name.clone()) {
                let message =
                    NpuMessage::NoGeneratedBackward { kernel: kernel.name.clone(), reason: Box::new(reason.message()) };
                let help = Message::Npu(NpuMessage::NoGeneratedBackwardHelp);
                interpreter.warn_message("npu/no-generated-backward", Message::Npu(message), span, Some(help));
            }
            Err(reason)
        }
    };
    let outputs: Vec<Tensor> = written.iter().map(|&index| objects[index].get().tensor().clone()).collect();
    let slot = std::cell::RefCell::new(Some(ForwardOutput { outputs, saved: Vec::new() }));
    let forward: CustomForward = Rc::new(move |_inputs: &[Tensor], _attributes: &Attributes| {
        slot.borrow_mut().take().ok_or_else(|| AutogradError::BadArgument {
            op: "kernel".into(),
            detail: crate::messages::AutogradDetail::ForwardConsumed,
        })
    });
    let generated = JitBackward {
        name,
        ops: frame.ops.clone(),
        arguments: named.iter().map(|(name, _)| name.clone()).zip(references).collect(),
        written: written.clone(),
        settings: settings_of(interpreter, kernel, frame),
        return_line: frame
            .statement
            .and_then(|statement| interpreter.line_at(SourceSpan { cell: kernel.function.cell, span: statement })),
        derivable,
    };
    let rerun = Rerun { kernel: kernel.clone(), arguments, before };
    let backward = backward_of(interpreter, generated, rerun, interpreter.at(span));
    let shown = GeneratedShown::default();
    let vars = call_custom_once(&kernel.name, forward, Some(backward), &inputs, Attributes::new(), shown)
        .map_err(|error| interpreter.autograd_error(error, span))?;
    for (&index, var) in written.iter().zip(vars) {
        *objects[index].var.borrow_mut() = var;
    }
    Ok(())
}

fn tensor_objects(arguments: &Arguments) -> Vec<Rc<TensorObject>> {
    let positional = arguments.positional.iter().map(|(value, _)| value);
    let keywords = arguments.keywords.iter().map(|(_, value, _)| value);
    positional
        .chain(keywords)
        .filter_map(|value| if let Value::Tensor(object) = value { Some(object.clone()) } else { None })
        .collect()
}

/// What the backward of one jit call compiles.
struct JitBackward {
    name: String,
    ops: Vec<Captured>,
    /// The tensor arguments (parameter name, reference), in call order.
    arguments: Vec<(String, TensorRef)>,
    /// The arguments the forward wrote (the node's outputs, in order).
    written: Vec<usize>,
    settings: WorkSettings,
    return_line: Option<u32>,
    /// Whether `derive_jit` succeeded at the call, or why not.
    derivable: std::result::Result<(), super::NotDerivable>,
}

impl JitBackward {
    /// The backward's tile work for the arguments' values `values` and the written arguments'
    /// gradients `grads`.
    fn work(
        &self,
        values: &[Tensor],
        grads: &[Tensor],
        needs: &[bool],
        config: &NpuConfig,
    ) -> std::result::Result<BackwardWork, Message> {
        let references: Vec<TensorRef> = self.arguments.iter().map(|(_, reference)| reference.clone()).collect();
        let adjoint = derive_jit(&self.ops, &references, needs).map_err(|reason| reason.message())?;
        let mut arguments = self.arguments.clone();
        let mut tensors: Vec<Tensor> = values.to_vec();
        for (index, reference) in &adjoint.grad_outputs {
            let position =
                self.written.iter().position(|written| written == index).ok_or(NpuMessage::BackwardLostOutput)?;
            let gradient = grads.get(position).ok_or(NpuMessage::BackwardLostOutput)?;
            let gradient = gradient.reshape(reference.shape()).map_err(|error| error.message())?;
            let gradient = if gradient.dtype() == reference.dtype() {
                gradient
            } else {
                gradient.cast(reference.dtype()).map_err(|error| error.message())?
            };
            arguments.push((format!("grad_{}", self.arguments[*index].0), reference.clone()));
            tensors.push(gradient);
        }
        let mut gradients = Vec::new();
        for (index, output) in adjoint.gradients.iter().enumerate() {
            gradients.push(match output {
                Some(output) => {
                    arguments.push((format!("d_{}", self.arguments[index].0), output.clone()));
                    tensors.push(Tensor::zeros(output.shape(), output.dtype()).map_err(|error| error.message())?);
                    Some(arguments.len() - 1)
                }
                None => None,
            });
        }
        let returned = Returned { tensors: &[], line: self.return_line };
        let settings = self.settings.clone();
        let work = record_jit(&self.name, &adjoint.ops, &arguments, settings, config.ub_alignment, &[], &returned)
            .map_err(|reason| reason.message())?;
        Ok(BackwardWork { work, arguments: tensors, gradients })
    }
}

/// What the CPU fallback needs to run the body again with the tape.
struct Rerun {
    kernel: Rc<Kernel>,
    arguments: KeptArguments,
    before: Vec<Tensor>,
}

impl Rerun {
    /// The gradients of the written arguments' values with respect to the tensor arguments, by
    /// running the body again on copies of the arguments as they were before the call.
    fn gradients(
        &self,
        interpreter: &Interpreter,
        written: &[usize],
        grads: &[Var],
        needs: &[bool],
        span: Span,
    ) -> std::result::Result<Vec<Option<Var>>, AutogradError> {
        let _grad = enable_grad();
        let mut leaves = Vec::new();
        let mut objects = Vec::new();
        let arguments = self.arguments.with_tensors(|index| {
            let leaf = Var::new(self.before[index].deep_copy(), needs[index]);
            leaves.push(leaf.clone());
            let object = TensorObject::value(leaf);
            objects.push(object.clone());
            object
        });
        let name = format!("{}.backward", self.kernel.name);
        interpreter
            .call_function(&self.kernel.function, arguments, span)
            .map_err(|error| interpreter.stash(error, &name))?;
        let outputs: Vec<Var> = written
            .iter()
            .filter_map(|&index| match &objects[index] {
                Value::Tensor(object) => Some(object.get()),
                _ => None,
            })
            .collect();
        let wanted: Vec<Var> =
            leaves.iter().zip(needs).filter(|(_, &need)| need).map(|(leaf, _)| leaf.clone()).collect();
        let mut found = crate::autograd::grad(&outputs, &wanted, Some(grads), false)?.into_iter();
        Ok(needs.iter().map(|&need| if need { found.next().flatten() } else { None }).collect())
    }
}

fn backward_of(interpreter: &Interpreter, generated: JitBackward, rerun: Rerun, site: SourceSpan) -> CustomBackward {
    let weak = interpreter.me.clone();
    Rc::new(move |grads: &[Var], saved: &[Var], _context| {
        let name = generated.name.clone();
        let Some(interpreter) = weak.upgrade() else {
            return Err(AutogradError::CustomOp { name, detail: crate::messages::AutogradDetail::SessionGone });
        };
        let count = generated.arguments.len();
        let values: Vec<Tensor> = saved.iter().take(count).map(|var| var.tensor().clone()).collect();
        let needs: Vec<bool> = saved.iter().take(count).map(Var::requires_grad).collect();
        let grad_values: Vec<Tensor> = grads.iter().map(|var| var.tensor().clone()).collect();
        let ran = if let Err(reason) = &generated.derivable {
            Err(BackwardFailure::Refused(reason.message()))
        } else {
            let config = interpreter.npu_config(site.span).map_err(|error| interpreter.stash(error, &name))?;
            generated
                .work(&values, &grad_values, &needs, &config)
                .map_err(BackwardFailure::from)
                .and_then(|work| super::compile(work, &config))
                .and_then(|compiled| compiled.gradients(&values))
        };
        match ran {
            Ok((gradients, simulation)) => {
                super::node::record_backward_run(&interpreter, &name, simulation);
                Ok(gradients.into_iter().map(|gradient| gradient.map(Var::constant)).collect())
            }
            Err(reason) => {
                let warn = generated.derivable.is_ok();
                super::node::count_backward_on_cpu(&interpreter, &name, &reason, site, warn);
                rerun.gradients(&interpreter, &generated.written, grads, &needs, site.span)
            }
        }
    })
}
