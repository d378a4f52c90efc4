//! Values of a compiled plan: a kernel that has no body to run (a generated backward) gets its
//! values by executing its plan on the simulated NPU, over GM tensors built from its arguments.

use super::npu_run::NpuFailure;
use crate::error::TensorError;
use crate::messages::NpuMessage;
use crate::npu::{allocate_gm_after, execute, NpuError};
use crate::tensor::Tensor;
use crate::tile::{GmView, KernelPlan, TileOp};

/// Runs `plan` on values: `inputs` fill the first GM tensors (the kernel's arguments); returns
/// every GM tensor after the run.
pub(crate) fn execute_plan(plan: &KernelPlan, views: &[GmView], inputs: &[Tensor]) -> Result<Vec<Tensor>, NpuFailure> {
    let failed = |error: NpuError| {
        NpuFailure::Fallback(
            NpuMessage::FallbackValues { error: Box::new(error.without_source_line().message()) }.into(),
        )
    };
    let refused = |error: TensorError| NpuFailure::Fallback(error.message());
    // Each input becomes its GM tensor in the GM dtype and shape, without zero-filling it first:
    // the caller's tensor itself when the plan never writes it (the run writes GM in place), else
    // a copy.
    let written = written_tensors(plan, views);
    let mut filled = Vec::with_capacity(inputs.len());
    for ((declared, input), written) in plan.tensors.iter().zip(inputs).zip(written) {
        let values = match (input.dtype() == declared.dtype, written) {
            (true, false) => input.clone(),
            (true, true) => input.deep_copy(),
            (false, _) => input.cast(declared.dtype).map_err(refused)?,
        };
        filled.push(values.reshape(&declared.shape).map_err(refused)?);
    }
    let mut gm = allocate_gm_after(plan, filled).map_err(failed)?;
    // A reshape view shares its base's memory; a transposed or gathering view is read-only, so a
    // copy of the base in the view's layout reads the same values as the strided or per-row DMA
    // would.
    for view in views {
        let base = &gm[view.base.0 as usize];
        let shape = &plan.tensors[view.tensor.0 as usize].shape;
        let viewed = match (&view.order, &view.rows) {
            (_, Some(gather)) => base.take_rows(&gather.rows, shape[0], (gather.column, shape[1])),
            (None, None) => base.reshape(shape),
            (Some(order), None) => base.permute(order),
        };
        gm[view.tensor.0 as usize] = viewed.map_err(refused)?;
    }
    execute(plan, &gm).map_err(failed)?;
    Ok(gm)
}

/// Per GM tensor of `plan`, whether an instruction stores into it (directly, or through a reshape
/// view of it).
fn written_tensors(plan: &KernelPlan, views: &[GmView]) -> Vec<bool> {
    let mut written = vec![false; plan.tensors.len()];
    for instruction in plan.programs.iter().flat_map(|program| &program.instructions) {
        if let TileOp::CopyOut { destination, .. } | TileOp::CopyOutAccumulate { destination, .. } = &instruction.op {
            written[destination.tensor.0 as usize] = true;
        }
    }
    for view in views {
        if written[view.tensor.0 as usize] {
            written[view.base.0 as usize] = true;
        }
    }
    written
}
