//! Values of a compiled plan: a kernel that has no body to run (a generated backward) gets its
//! values by executing its plan on the simulated NPU, over GM tensors built from its arguments.

use super::npu_run::NpuFailure;
use crate::error::TensorError;
use crate::messages::NpuMessage;
use crate::npu::{allocate_gm, execute, NpuError};
use crate::tensor::{SliceSpec, Tensor};
use crate::tile::{GmView, KernelPlan};

/// Runs `plan` on values: `inputs` fill the first GM tensors (the kernel's arguments); returns
/// every GM tensor after the run.
pub(crate) fn execute_plan(plan: &KernelPlan, views: &[GmView], inputs: &[Tensor]) -> Result<Vec<Tensor>, NpuFailure> {
    let failed = |error: NpuError| {
        NpuFailure::Fallback(
            NpuMessage::FallbackValues { error: Box::new(error.without_source_line().message()) }.into(),
        )
    };
    let refused = |error: TensorError| NpuFailure::Fallback(error.message());
    let mut gm = allocate_gm(plan).map_err(failed)?;
    for (slot, input) in gm.iter().zip(inputs) {
        let values =
            if input.dtype() == slot.dtype() { input.clone() } else { input.cast(slot.dtype()).map_err(refused)? };
        let values = values.reshape(slot.shape()).map_err(refused)?;
        slot.assign_slice(&full(slot.shape()), &values).map_err(refused)?;
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
        gm[view.tensor.0 as usize] = viewed.map_err(refused)?;
    }
    execute(plan, &gm).map_err(failed)?;
    Ok(gm)
}

fn full(shape: &[usize]) -> Vec<SliceSpec> {
    shape.iter().map(|&size| SliceSpec::full(size)).collect()
}
