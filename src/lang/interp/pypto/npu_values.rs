//! The values of a kernel call on the simulated NPU: the plan executed on copies of the arguments
//! (GM views built over them), and the results written back where the caller sees them — in place
//! for a jit kernel's outputs, as new tensors keeping the reference's autograd node for a
//! `@pypto.kernel`'s returns.

use super::capture::identity;
use super::npu_run::NpuFailure;
use crate::autograd::Var;
use crate::lang::interp::value::{TensorObject, Value};
use crate::npu::{allocate_gm, execute, NpuError};
use crate::tensor::{SliceSpec, Tensor};
use crate::tile::{GmView, KernelPlan};

/// Runs `plan` on values: `inputs` fill the first GM tensors (the kernel's arguments); returns
/// every GM tensor after the run.
pub(crate) fn execute_plan(plan: &KernelPlan, views: &[GmView], inputs: &[Tensor]) -> Result<Vec<Tensor>, NpuFailure> {
    let failed = |error: NpuError| NpuFailure::Fallback(format!("the simulator could not compute the values: {error}"));
    let mut gm = allocate_gm(plan).map_err(failed)?;
    for (slot, input) in gm.iter().zip(inputs) {
        let values = if input.dtype() == slot.dtype() {
            input.clone()
        } else {
            input.cast(slot.dtype()).map_err(|error| NpuFailure::Fallback(error.to_string()))?
        };
        let values = values.reshape(slot.shape()).map_err(|error| NpuFailure::Fallback(error.to_string()))?;
        slot.assign_slice(&full(slot.shape()), &values).map_err(|error| NpuFailure::Fallback(error.to_string()))?;
    }
    // A reshape view shares its base's memory; a transposed view is read-only, so a copy of the
    // base in the view's layout reads the same values as the strided DMA would.
    for view in views {
        let base = &gm[view.base.0 as usize];
        let shape = &plan.tensors[view.tensor.0 as usize].shape;
        let viewed = match &view.order {
            None => base.reshape(shape),
            Some(order) => base.permute(order),
        };
        gm[view.tensor.0 as usize] = viewed.map_err(|error| NpuFailure::Fallback(error.to_string()))?;
    }
    execute(plan, &gm).map_err(failed)?;
    Ok(gm)
}

fn full(shape: &[usize]) -> Vec<SliceSpec> {
    shape.iter().map(|&size| SliceSpec::full(size)).collect()
}

/// The returned value with each tensor's values replaced by the simulator's, keeping its autograd
/// node: the graph (and the gradient) is the reference run's, the values are the NPU's. A new
/// tensor rather than an in-place write, since the graph may have saved the reference output.
pub(crate) fn with_values(result: &Value, outputs: &[Tensor]) -> Result<Value, String> {
    let mut outputs = outputs.iter();
    let mut replace = |value: &Value| -> Result<Value, String> {
        let (Value::Tensor(object), Some(values)) = (value, outputs.next()) else {
            return Err("the kernel's outputs changed".into());
        };
        let var = object.get();
        let values = values.reshape(var.shape()).map_err(|error| error.to_string())?;
        let values = if values.dtype() == var.dtype() {
            values
        } else {
            values.cast(var.dtype()).map_err(|error| error.to_string())?
        };
        let values = values.with_valid_shape(var.tensor().valid_shape().map(<[usize]>::to_vec));
        Ok(TensorObject::value(Var::from_parts(values, var.node().cloned(), var.output_index())))
    };
    match result {
        Value::Tuple(items) => Ok(Value::tuple(items.iter().map(&mut replace).collect::<Result<_, _>>()?)),
        Value::List(items) => {
            let items: Vec<Value> = items.borrow().iter().map(&mut replace).collect::<Result<_, _>>()?;
            Ok(Value::list(items))
        }
        single => replace(single),
    }
}

/// Writes `values` (same elements, maybe another tile form) into `target`'s storage.
pub(crate) fn overwrite(target: &Tensor, values: &Tensor) -> Result<(), String> {
    let values = values.reshape(target.shape()).map_err(|error| error.to_string())?;
    let values = if values.dtype() == target.dtype() {
        values
    } else {
        values.cast(target.dtype()).map_err(|error| error.to_string())?
    };
    target.assign_slice(&full(target.shape()), &values).map_err(|error| error.to_string())
}

/// The GM tensors of the arguments, deduplicated as the recorders do.
pub(crate) fn distinct(arguments: &[(String, Tensor)]) -> Vec<Tensor> {
    let mut seen = Vec::new();
    let mut tensors = Vec::new();
    for (_, tensor) in arguments {
        if !seen.contains(&identity(tensor)) {
            seen.push(identity(tensor));
            tensors.push(tensor.clone());
        }
    }
    tensors
}

/// The copies taken before the run, deduplicated by the identity of the arguments they copy.
pub(crate) fn distinct_copies(arguments: &[(String, Tensor)], before: &[(String, Tensor)]) -> Vec<Tensor> {
    let mut seen = Vec::new();
    let mut tensors = Vec::new();
    for ((_, tensor), (_, copy)) in arguments.iter().zip(before) {
        if !seen.contains(&identity(tensor)) {
            seen.push(identity(tensor));
            tensors.push(copy.clone());
        }
    }
    tensors
}
