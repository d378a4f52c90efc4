//! Generated backward kernels (DESIGN §2 autograd, issue 18): a `@pypto.kernel` without a
//! registered gradient is differentiated from its typed capture into a backward capture
//! (`derive`, through the rule table shared with autograd), which the kernel compiler tiles by the
//! forward's vec tile and runs on the simulated NPU like any kernel call; its schedule follows the
//! forward's. The call becomes one autograd node whose backward is that kernel (`node`).

mod algebra;
mod api;
mod blocks;
mod derive;
mod failure;
mod jit;
mod jit_node;
#[cfg(test)]
mod jit_tests;
mod node;
pub(crate) mod policy;
mod rerun;
mod shown;
#[cfg(test)]
mod tests;

pub(crate) use algebra::NotDerivable;
pub(crate) use api::call;
pub(crate) use derive::{derive, Adjoint, Forward};
pub(crate) use failure::BackwardFailure;
pub(crate) use jit_node::{attach_jit, before_call};
pub(crate) use node::{attach, prepare, tensor_inputs, wanted, FunctionalCall};
pub use policy::Policy;

use std::rc::Rc;

use super::capture::{identity, Arg, Captured, CapturedOp, TensorRef};
use super::npu_run::lower_and_simulate;
use super::npu_values::execute_plan;
use super::work_jit::{record_jit, Returned};
use crate::messages::{Message, NpuMessage};
use crate::npu::{NpuConfig, Simulation};
use crate::tensor::Tensor;
use crate::tile::{KernelPlan, TileWork, WorkSettings};

/// What a forward call leaves for its generated backward: its capture and tiling.
pub(crate) struct GeneratedBackward {
    /// The backward kernel's name (`<kernel>.backward`).
    pub name: String,
    /// The forward's ops.
    pub forward_ops: Vec<Captured>,
    /// The forward's tensor parameters' names and references, in order.
    pub inputs: Vec<(String, TensorRef)>,
    /// The tensors the forward returned (as its capture names them).
    pub outputs: Vec<TensorRef>,
    /// The forward's vec tile (the backward's units are cut by it too).
    pub vec_tile: Option<Vec<usize>>,
    /// The forward's buffer depths and cube tiles.
    pub settings: WorkSettings,
    /// The line of the forward's `return`.
    pub return_line: Option<u32>,
}

/// A backward compiled for one set of incoming gradients.
pub(crate) struct BackwardWork {
    /// The tile work.
    pub work: TileWork,
    /// The values of its arguments, in GM order.
    pub arguments: Vec<Tensor>,
    /// Per forward input: which GM tensor of the work holds its gradient.
    pub gradients: Vec<Option<usize>>,
}

impl GeneratedBackward {
    /// The tile form of each output's gradient: a reduction's result with its dims kept.
    pub(crate) fn gradient_forms(&self) -> Vec<Vec<usize>> {
        self.outputs
            .iter()
            .map(|output| {
                let made =
                    self.forward_ops.iter().rev().find(|op| op.result.as_ref().map(identity) == Some(identity(output)));
                match made.map(|op| &op.op) {
                    Some(CapturedOp::Reduce { x, dims, .. }) if x.shape().len() != output.shape().len() => {
                        let rank = x.shape().len() as i64;
                        let axes: Vec<usize> = match dims {
                            Some(dims) => {
                                dims.iter().map(|&dim| (if dim < 0 { dim + rank } else { dim }) as usize).collect()
                            }
                            None => (0..x.shape().len()).collect(),
                        };
                        x.shape()
                            .iter()
                            .enumerate()
                            .map(|(axis, &dim)| if axes.contains(&axis) { 1 } else { dim })
                            .collect()
                    }
                    _ => output.shape().to_vec(),
                }
            })
            .collect()
    }

    /// The backward capture for gradients referenced as `grad_outputs`.
    pub(crate) fn adjoint(&self, needs: &[bool], grad_outputs: &[TensorRef]) -> Result<Adjoint, NotDerivable> {
        let inputs: Vec<TensorRef> = self.inputs.iter().map(|(_, input)| input.clone()).collect();
        derive(&Forward { ops: &self.forward_ops, inputs: &inputs, outputs: &self.outputs }, needs, grad_outputs)
    }

    /// Whether a backward can be generated (checked once at the forward call, with gradients in
    /// the outputs' dtypes); the forward values it reads (each saved or recomputed).
    pub(crate) fn check(&self, needs: &[bool]) -> Result<Vec<TensorRef>, NotDerivable> {
        let grads: Vec<TensorRef> = self
            .gradient_forms()
            .iter()
            .zip(&self.outputs)
            .map(|(form, output)| TensorRef::fresh(form, None, output.dtype()))
            .collect();
        let adjoint = self.adjoint(needs, &grads)?;
        let made: std::collections::HashSet<_> =
            self.forward_ops.iter().filter_map(|op| op.result.as_ref()).map(identity).collect();
        let arguments: std::collections::HashSet<_> = self.inputs.iter().map(|(_, input)| identity(input)).collect();
        let mut reads: Vec<TensorRef> = Vec::new();
        for op in &adjoint.ops {
            for tensor in op.op.tensors() {
                let key = identity(tensor);
                let known = reads.iter().any(|read| identity(read) == key);
                if made.contains(&key) && !arguments.contains(&key) && !known {
                    reads.push(tensor.clone());
                }
            }
        }
        Ok(reads)
    }

    /// The backward's tile work for `inputs` (the forward's argument values) and `grads` (the
    /// gradients of its outputs); `saved` are forward values it reads instead of recomputing.
    pub(crate) fn work(
        &self,
        inputs: &[Tensor],
        grads: &[Tensor],
        needs: &[bool],
        saved: &[(TensorRef, Tensor)],
        config: &NpuConfig,
        vec_tile: Option<&[usize]>,
    ) -> Result<BackwardWork, Message> {
        let (ub_alignment, cores) = (config.ub_alignment, config.vector_cores as usize);
        let mut grad_values = Vec::new();
        for (gradient, form) in grads.iter().zip(self.gradient_forms()) {
            grad_values.push(gradient.reshape(&form).map_err(|error| error.message())?);
        }
        let grad_refs: Vec<TensorRef> = grad_values.iter().map(TensorRef::of).collect();
        let adjoint = self.adjoint(needs, &grad_refs).map_err(|reason| reason.message())?;
        let mut arguments: Vec<(String, TensorRef)> = Vec::new();
        let mut values = Vec::new();
        let named_inputs =
            self.inputs.iter().map(|(name, input)| (name.clone(), input.clone())).zip(inputs.iter().cloned());
        let named_grads = grad_refs
            .iter()
            .enumerate()
            .map(|(index, grad)| (format!("grad_out{index}"), grad.clone()))
            .zip(grad_values);
        let named_saved = saved
            .iter()
            .enumerate()
            .map(|(index, (reference, value))| ((format!("saved{index}"), reference.clone()), value.clone()));
        for ((name, reference), value) in named_inputs.chain(named_grads).chain(named_saved) {
            if arguments.iter().all(|(_, known)| identity(known) != identity(&reference)) {
                arguments.push((name, reference));
                values.push(value);
            }
        }
        let mut outputs = Vec::new();
        let mut gradients = Vec::new();
        for gradient in &adjoint.gradients {
            gradients.push(match gradient {
                Some(Arg::Tensor(tensor)) => {
                    outputs.push(tensor.clone());
                    Some(outputs.len() - 1)
                }
                Some(Arg::Number(_)) | None => None,
            });
        }
        // Forward ops first: a value the backward reads and nobody saved is recomputed in its tile.
        let ops: Vec<Captured> = self.forward_ops.iter().chain(&adjoint.ops).cloned().collect();
        let settings = WorkSettings { vec_tile: vec_tile.map(<[usize]>::to_vec), ..self.settings.clone() };
        if let Some(blocked) = self.blocked(&ops, &arguments, &outputs, cores, vec_tile) {
            // Row blocks: the outputs are zero-initialised arguments the units write or add into.
            let first_output = arguments.len();
            for (index, output) in blocked.outputs.iter().enumerate() {
                arguments.push((format!("grad_in{index}"), output.clone()));
                let zeros = Tensor::zeros(output.shape(), output.dtype()).map_err(|error| error.message())?;
                values.push(zeros);
            }
            let returned = Returned { tensors: &[], line: self.return_line };
            let work = record_jit(&self.name, &blocked.ops, &arguments, settings, ub_alignment, &[], &returned)
                .map_err(|reason| reason.message())?;
            let gradients = gradients.iter().map(|slot| slot.map(|index| first_output + index)).collect();
            return Ok(BackwardWork { work, arguments: values, gradients });
        }
        // One unit over the whole tensors, expanded by the forward's vec tile like any kernel.
        let returned = Returned { tensors: &outputs, line: self.return_line };
        let work = record_jit(&self.name, &ops, &arguments, settings, ub_alignment, &[], &returned)
            .map_err(|reason| reason.message())?;
        let first_output = arguments.len();
        let gradients = gradients.iter().map(|slot| slot.map(|index| first_output + index)).collect();
        Ok(BackwardWork { work, arguments: values, gradients })
    }
}

/// A backward compiled and simulated, its values not computed yet: several tilings of one
/// backward are simulated and only the fastest one's plan is executed ([`Compiled::gradients`]).
pub(crate) struct Compiled {
    work: BackwardWork,
    plan: Rc<KernelPlan>,
    /// The schedule of the plan.
    pub simulation: Rc<Simulation>,
}

/// Compiles and simulates a backward (its values come from [`Compiled::gradients`]).
pub(crate) fn compile(work: BackwardWork, config: &NpuConfig) -> Result<Compiled, BackwardFailure> {
    let (plan, simulation) = lower_and_simulate(&work.work, config).map_err(failed)?;
    Ok(Compiled { work, plan, simulation })
}

fn failed(failure: super::npu_run::NpuFailure) -> BackwardFailure {
    match failure {
        super::npu_run::NpuFailure::Fallback(reason) => BackwardFailure::Refused(reason),
        super::npu_run::NpuFailure::Chip(error) => BackwardFailure::Chip(error),
    }
}

impl Compiled {
    /// Executes the plan: per forward input, its gradient (in the input's shape and dtype) or
    /// `None`; with the schedule.
    pub(crate) fn gradients(self, inputs: &[Tensor]) -> Result<(Vec<Option<Tensor>>, Rc<Simulation>), BackwardFailure> {
        let Compiled { work, plan, simulation } = self;
        let gm = execute_plan(&plan, &work.work.views, &work.arguments).map_err(failed)?;
        let mut gradients = Vec::new();
        for (input, slot) in inputs.iter().zip(&work.gradients) {
            gradients.push(match slot {
                Some(index) => {
                    let value = gm.get(*index).ok_or_else(|| Message::from(NpuMessage::BackwardLostOutput))?;
                    let value = value.reshape(input.shape()).map_err(|error| error.message())?;
                    Some(if value.dtype() == input.dtype() {
                        value
                    } else {
                        value.cast(input.dtype()).map_err(|error| error.message())?
                    })
                }
                None => None,
            });
        }
        Ok((gradients, simulation))
    }
}
