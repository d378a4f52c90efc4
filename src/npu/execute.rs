//! Functional execution: runs the ops of a checked plan on real values, one tensor per buffer, with
//! the tensor core (stored in each buffer's dtype, computed in f32). Program order is a valid serial
//! order of a tile program (builders emit producers before consumers), and cores write disjoint
//! outputs, so executing core after core in program order gives the kernel's values.

use crate::tensor::{BinaryOp, SliceSpec, Tensor};
use crate::tile::{KernelPlan, TileOp};

use super::error::{NpuError, Result};

fn specs(offsets: &[usize], shape: &[usize]) -> Vec<SliceSpec> {
    offsets.iter().zip(shape).map(|(&start, &count)| SliceSpec { start, step: 1, count }).collect()
}

fn origin(shape: &[usize]) -> Vec<SliceSpec> {
    shape.iter().map(|&count| SliceSpec::full(count)).collect()
}

/// Zero tensors for every GM tensor of `plan` (fill the inputs, read the outputs after `execute`).
pub fn allocate_gm(plan: &KernelPlan) -> Result<Vec<Tensor>> {
    plan.tensors
        .iter()
        .map(|tensor| Tensor::zeros(&tensor.shape, tensor.dtype).map_err(|error| NpuError::Execution { core: 0, instruction: None, detail: error.to_string() }))
        .collect()
}

/// Executes every program of `plan` on `gm` (one tensor per GM tensor of the plan, written in place).
pub fn execute(plan: &KernelPlan, gm: &[Tensor]) -> Result<()> {
    if gm.len() != plan.tensors.len() {
        return Err(NpuError::Execution { core: 0, instruction: None, detail: format!("{} GM tensors given, the plan has {}", gm.len(), plan.tensors.len()) });
    }
    for (given, declared) in gm.iter().zip(&plan.tensors) {
        if given.shape() != declared.shape.as_slice() || given.dtype() != declared.dtype {
            return Err(NpuError::Execution { core: 0, instruction: None, detail: format!("GM tensor '{}' must be {:?} {:?}", declared.name, declared.shape, declared.dtype) });
        }
    }
    for (core, program) in plan.programs.iter().enumerate() {
        let fail = |instruction: usize| move |error: crate::error::TensorError| NpuError::Execution { core, instruction: Some(instruction), detail: error.to_string() };
        let buffers: Vec<Tensor> = program.buffers.iter().map(|buffer| Tensor::zeros(&buffer.shape, buffer.dtype)).collect::<std::result::Result<_, _>>().map_err(fail(0))?;
        let buffer = |id: crate::tile::BufferId| &buffers[id.0 as usize];
        for (index, instruction) in program.instructions.iter().enumerate() {
            let fail = fail(index);
            match &instruction.op {
                TileOp::CopyIn { source, destination } => {
                    let target = buffer(*destination);
                    let values = gm[source.tensor.0 as usize].slice(&specs(&source.offsets, &source.shape)).and_then(|values| values.cast(target.dtype())).map_err(fail)?;
                    target.assign_slice(&origin(&source.shape), &values).map_err(fail)?;
                }
                TileOp::CopyOut { source, destination } => {
                    let target = &gm[destination.tensor.0 as usize];
                    let values = buffer(*source).slice(&origin(&destination.shape)).and_then(|values| values.cast(target.dtype())).map_err(fail)?;
                    target.assign_slice(&specs(&destination.offsets, &destination.shape), &values).map_err(fail)?;
                }
                TileOp::Move { source, offsets, shape, destination } => {
                    let values = buffer(*source).slice(&specs(offsets, shape)).map_err(fail)?;
                    buffer(*destination).assign_slice(&origin(shape), &values).map_err(fail)?;
                }
                TileOp::Mmad { a, b, c, c_offsets, m, k, n, accumulate } => {
                    let left = buffer(*a).slice(&origin(&[*m, *k])).map_err(fail)?;
                    let right = buffer(*b).slice(&origin(&[*k, *n])).map_err(fail)?;
                    let accumulator = buffer(*c);
                    let region = specs(c_offsets, &[*m, *n]);
                    let mut product = left.matmul(&right, false, false, Some(accumulator.dtype())).map_err(fail)?;
                    if *accumulate {
                        product = accumulator.slice(&region).and_then(|old| old.binary(BinaryOp::Add, &product)).map_err(fail)?;
                    }
                    accumulator.assign_slice(&region, &product).map_err(fail)?;
                }
                TileOp::Unary { op, input, output, valid_shape } => {
                    let values = buffer(*input).slice(&origin(valid_shape)).and_then(|values| values.unary(*op)).map_err(fail)?;
                    buffer(*output).assign_slice(&origin(valid_shape), &values).map_err(fail)?;
                }
                TileOp::Binary { op, lhs, rhs, output, valid_shape } => {
                    let left = buffer(*lhs).slice(&origin(valid_shape)).map_err(fail)?;
                    let right = buffer(*rhs).slice(&origin(valid_shape)).map_err(fail)?;
                    let values = left.binary(*op, &right).map_err(fail)?;
                    buffer(*output).assign_slice(&origin(valid_shape), &values).map_err(fail)?;
                }
                TileOp::Reduce { op, input, output, valid_shape } => {
                    let values = buffer(*input).slice(&origin(valid_shape)).and_then(|values| values.reduce(*op, Some(&[-1]), true)).map_err(fail)?;
                    let rows = valid_shape.first().copied().unwrap_or(1);
                    buffer(*output).assign_slice(&origin(&[rows, 1]), &values).map_err(fail)?;
                }
                TileOp::Cast { input, output, valid_shape } => {
                    let values = buffer(*input).slice(&origin(valid_shape)).map_err(fail)?;
                    buffer(*output).assign_slice(&origin(valid_shape), &values).map_err(fail)?;
                }
                TileOp::Scalar { .. } => {}
            }
        }
    }
    Ok(())
}
