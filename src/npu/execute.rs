//! Functional execution: runs the ops of a checked plan on real values, one tensor per buffer, with
//! the tensor core (stored in each buffer's dtype, computed in f32). Program order is a valid serial
//! order of a tile program (builders emit producers before consumers), and cores write disjoint
//! outputs, so executing core after core in program order gives the kernel's values.

use crate::tensor::{BinaryOp, DType, SliceSpec, Tensor};
use crate::tile::{BufferId, GmRegion, KernelPlan, TileOp};

type TensorResult<T> = std::result::Result<T, crate::error::TensorError>;

use super::error::{NpuError, Result};
use crate::messages::ExecutionDetail;

fn specs(offsets: &[usize], shape: &[usize]) -> Vec<SliceSpec> {
    offsets.iter().zip(shape).map(|(&start, &count)| SliceSpec { start, step: 1, count }).collect()
}

fn origin(shape: &[usize]) -> Vec<SliceSpec> {
    shape.iter().map(|&count| SliceSpec::full(count)).collect()
}

/// The leading `shape` block of a buffer as an operand: the buffer's own handle when it is that
/// shape (no copy), else a copy of the block. Only for inputs of ops that compute a new tensor.
fn operand(buffer: &Tensor, shape: &[usize]) -> TensorResult<Tensor> {
    if buffer.shape() == shape {
        Ok(buffer.clone())
    } else {
        buffer.slice(&origin(shape))
    }
}

/// Writes `values` into the leading `shape` block of buffer `id`. A fresh result (no other handle
/// holds it) that fills the whole buffer in the buffer's dtype becomes the buffer instead of being
/// copied into it: every other op result is written in place.
fn store(buffers: &mut [Tensor], id: BufferId, shape: &[usize], values: Tensor) -> TensorResult<()> {
    let target = &buffers[id.0 as usize];
    let whole = target.shape() == shape && values.shape() == shape && target.valid_shape().is_none();
    if whole && values.dtype() == target.dtype() && values.valid_shape().is_none() && values.is_sole_handle() {
        buffers[id.0 as usize] = values;
        return Ok(());
    }
    target.assign_slice(&origin(shape), &values)
}

/// A tensor op's failure as the detail of an execution error.
fn tensor_failure(error: &crate::error::TensorError) -> ExecutionDetail {
    ExecutionDetail::Tensor { error: Box::new(error.message()) }
}

/// Zero tensors for every GM tensor of `plan` (fill the inputs, read the outputs after `execute`).
pub fn allocate_gm(plan: &KernelPlan) -> Result<Vec<Tensor>> {
    allocate_gm_after(plan, Vec::new())
}

/// The GM tensors of `plan`: `first` as its first ones (inputs already in their GM shape and dtype,
/// checked by `execute`), zero tensors for the rest.
pub fn allocate_gm_after(plan: &KernelPlan, first: Vec<Tensor>) -> Result<Vec<Tensor>> {
    let given = first.len();
    let mut gm = first;
    for tensor in plan.tensors.iter().skip(given) {
        gm.push(Tensor::zeros(&tensor.shape, tensor.dtype).map_err(|error| NpuError::Execution {
            core: 0,
            instruction: None,
            detail: tensor_failure(&error),
        })?);
    }
    Ok(gm)
}

/// Executes every program of `plan` on `gm` (one tensor per GM tensor of the plan, written in place).
pub fn execute(plan: &KernelPlan, gm: &[Tensor]) -> Result<()> {
    if gm.len() != plan.tensors.len() {
        return Err(NpuError::Execution {
            core: 0,
            instruction: None,
            detail: ExecutionDetail::GmCount { given: gm.len(), planned: plan.tensors.len() },
        });
    }
    for (given, declared) in gm.iter().zip(&plan.tensors) {
        if given.shape() != declared.shape.as_slice() || given.dtype() != declared.dtype {
            return Err(NpuError::Execution {
                core: 0,
                instruction: None,
                detail: ExecutionDetail::GmTensor {
                    name: declared.name.clone(),
                    shape: declared.shape.clone(),
                    dtype: format!("{:?}", declared.dtype),
                },
            });
        }
    }
    let mut states = Vec::with_capacity(plan.programs.len());
    for (core, program) in plan.programs.iter().enumerate() {
        let buffers: Vec<Tensor> = program
            .buffers
            .iter()
            .map(|buffer| Tensor::zeros(&buffer.shape, buffer.dtype))
            .collect::<std::result::Result<_, _>>()
            .map_err(|error| NpuError::Execution { core, instruction: None, detail: tensor_failure(&error) })?;
        states.push((buffers, 0usize));
    }
    let flags = plan.cross_core_flags as usize;
    let (mut sets, mut waits) = (vec![0u32; flags], vec![0u32; flags]);
    let mut additions = Vec::new();
    // Round robin: each core runs in program order until it waits on a cross-core flag not yet set.
    loop {
        let mut progress = false;
        for (core, program) in plan.programs.iter().enumerate() {
            let (buffers, next) = &mut states[core];
            while let Some(instruction) = program.instructions.get(*next) {
                if !instruction.cross_wait.iter().all(|flag| sets[flag.0 as usize] > waits[flag.0 as usize]) {
                    break;
                }
                for flag in &instruction.cross_wait {
                    waits[flag.0 as usize] += 1;
                }
                let failed = |error: crate::error::TensorError| NpuError::Execution {
                    core,
                    instruction: Some(*next),
                    detail: tensor_failure(&error),
                };
                if let TileOp::CopyOutAccumulate { source, destination, order } = &instruction.op {
                    // The tile leaves the core converted to the GM dtype (FIXPIPE / MTE3 convert on the
                    // way out, so an f32 L0C tile of a bf16 matmul is rounded to bf16 first).
                    let target = gm[destination.tensor.0 as usize].dtype();
                    let values = buffers[source.0 as usize]
                        .slice(&origin(&destination.shape))
                        .and_then(|values| values.cast(target))
                        .and_then(|values| values.cast(DType::F32))
                        .map_err(failed)?;
                    additions.push((*order, destination.clone(), values));
                } else {
                    run_op(&instruction.op, buffers.as_mut_slice(), gm).map_err(failed)?;
                }
                for flag in &instruction.cross_set {
                    sets[flag.0 as usize] += 1;
                }
                *next += 1;
                progress = true;
            }
        }
        let blocked =
            states.iter().enumerate().find(|(core, (_, next))| *next < plan.programs[*core].instructions.len());
        match (blocked, progress) {
            (None, _) => return add_in_program_order(additions, gm),
            (Some(_), true) => continue,
            (Some((core, (_, next))), false) => {
                return Err(NpuError::Execution {
                    core,
                    instruction: Some(*next),
                    detail: ExecutionDetail::FlagNeverSet,
                })
            }
        }
    }
}

/// Applies the atomic adds of a run: GM + tile in f32, stored in the GM dtype, in the kernel's
/// program order (the order the reference runs its iterations in). On hardware the adds land in
/// whatever order the cores reach them; fixing the order keeps a narrow output's rounding the same
/// on every chip and core count. Units never read what another unit adds into (the recorders
/// check it), so applying the adds after the run reads the same values.
fn add_in_program_order(mut additions: Vec<(u32, GmRegion, Tensor)>, gm: &[Tensor]) -> Result<()> {
    additions.sort_by_key(|(order, _, _)| *order);
    for (_, destination, values) in additions {
        let target = &gm[destination.tensor.0 as usize];
        let region = specs(&destination.offsets, &destination.shape);
        target
            .slice(&region)
            .and_then(|old| old.binary(BinaryOp::Add, &values))
            .and_then(|sum| target.assign_slice(&region, &sum))
            .map_err(|error| NpuError::Execution { core: 0, instruction: None, detail: tensor_failure(&error) })?;
    }
    Ok(())
}

/// Executes one op on the core's buffers and the GM tensors.
fn run_op(op: &TileOp, buffers: &mut [Tensor], gm: &[Tensor]) -> TensorResult<()> {
    let buffer = |buffers: &[Tensor], id: BufferId| buffers[id.0 as usize].clone();
    match op {
        // Copies go straight between the GM tensor and the buffer, converting the dtype on the way
        // (the DMA's conversion; the GM write rounds to the GM dtype).
        TileOp::CopyIn { source, destination } => buffers[destination.0 as usize].assign_slice_from(
            &origin(&source.shape),
            &gm[source.tensor.0 as usize],
            &specs(&source.offsets, &source.shape),
        )?,
        TileOp::CopyOut { source, destination } => gm[destination.tensor.0 as usize].assign_slice_from(
            &specs(&destination.offsets, &destination.shape),
            &buffers[source.0 as usize],
            &origin(&destination.shape),
        )?,
        TileOp::Move { source, offsets, shape, destination } => {
            let (source, target) = (&buffers[source.0 as usize], &buffers[destination.0 as usize]);
            target.assign_slice_from(&origin(shape), source, &specs(offsets, shape))?;
        }
        TileOp::Mmad { a, b, c, c_offsets, m, k, n, accumulate } => {
            let left = operand(&buffer(buffers, *a), &[*m, *k])?;
            let right = operand(&buffer(buffers, *b), &[*k, *n])?;
            let accumulator = buffer(buffers, *c);
            let region = specs(c_offsets, &[*m, *n]);
            let mut product = left.matmul(&right, false, false, Some(accumulator.dtype()))?;
            if *accumulate {
                product = accumulator.slice(&region).and_then(|old| old.binary(BinaryOp::Add, &product))?;
            }
            accumulator.assign_slice(&region, &product)?;
        }
        TileOp::Unary { op, input, output, valid_shape } => {
            let values = operand(&buffer(buffers, *input), valid_shape).and_then(|values| values.unary(*op))?;
            store(buffers, *output, valid_shape, values)?;
        }
        TileOp::Binary { op, lhs, rhs, output, valid_shape } => {
            let left = operand(&buffer(buffers, *lhs), valid_shape)?;
            let right = operand(&buffer(buffers, *rhs), valid_shape)?;
            let values = left.binary(*op, &right)?;
            drop((left, right));
            store(buffers, *output, valid_shape, values)?;
        }
        TileOp::Reduce { op, input, output, valid_shape } => {
            let values = operand(&buffer(buffers, *input), valid_shape)
                .and_then(|values| values.reduce(*op, Some(&[-1]), true))?;
            let rows = valid_shape.first().copied().unwrap_or(1);
            store(buffers, *output, &[rows, 1], values)?;
        }
        TileOp::Cast { input, output, valid_shape } => {
            // Rounded to the output's dtype as it is written (in place, as the copies are).
            let region = origin(valid_shape);
            buffers[output.0 as usize].assign_slice_from(&region, &buffers[input.0 as usize], &region)?;
        }
        TileOp::Scalar { .. } => {}
        TileOp::CopyOutAccumulate { .. } => unreachable!("accumulating stores are applied in program order"),
        TileOp::MoveTransposed { source, offsets, shape, destination } => {
            let values = buffer(buffers, *source).slice(&specs(offsets, shape))?.transpose(0, 1)?;
            store(buffers, *destination, &[shape[1], shape[0]], values)?;
        }
        TileOp::BroadcastBinary { op, lhs, lhs_shape, rhs, rhs_shape, output, valid_shape } => {
            let left = operand(&buffer(buffers, *lhs), lhs_shape)?;
            let right = operand(&buffer(buffers, *rhs), rhs_shape)?;
            let values = left.binary(*op, &right)?;
            drop((left, right));
            store(buffers, *output, valid_shape, values)?;
        }
        TileOp::ScalarBinary { op, input, scalar, scalar_first, output, valid_shape } => {
            // A float scalar is an f32 operand: the op is computed in f32 and stored in the output
            // dtype. An integer op (integer tile and result) computes in the tile's dtype, as the
            // reference does with an int scalar (an int64 one when it does not fit the dtype).
            let tile = operand(&buffer(buffers, *input), valid_shape)?;
            let number = Tensor::scalar(*scalar, scalar_dtype(tile.dtype(), buffer(buffers, *output).dtype(), *scalar));
            let values = if *scalar_first { number.binary(*op, &tile)? } else { tile.binary(*op, &number)? };
            drop(tile);
            store(buffers, *output, valid_shape, values)?;
        }
        TileOp::Clip { input, output, low, high, valid_shape } => {
            let values = in_compute_dtype(operand(&buffer(buffers, *input), valid_shape)?)?.clip(*low, *high)?;
            store(buffers, *output, valid_shape, values)?;
        }
        TileOp::ReduceDims { op, input, output, dims, valid_shape } => {
            let axes: Vec<isize> = dims.iter().map(|dim| *dim as isize).collect();
            let values =
                in_compute_dtype(operand(&buffer(buffers, *input), valid_shape)?)?.reduce(*op, Some(&axes), true)?;
            let reduced = values.shape().to_vec();
            store(buffers, *output, &reduced, values)?;
        }
        TileOp::Vector { op, inputs, output, valid_shape } => {
            let target = buffer(buffers, *output);
            super::execute_vector::run_vector(op, inputs, &target, valid_shape, buffers)?;
        }
    }
    Ok(())
}

/// Floats compute in f32; integers and bools in their own dtype (exact, as the reference).
fn in_compute_dtype(tile: Tensor) -> TensorResult<Tensor> {
    if tile.dtype().is_float() {
        tile.cast_if_needed(DType::F32)
    } else {
        Ok(tile)
    }
}

/// The dtype of a scalar operand: the integer tile's own dtype when the result is an integer too
/// and the number is an integer in its range (int64 out of range), else f32.
fn scalar_dtype(tile: DType, output: DType, scalar: f64) -> DType {
    if tile.is_float() || output.is_float() || scalar.fract() != 0.0 || !scalar.is_finite() {
        return DType::F32;
    }
    match tile.integer_range() {
        Some((low, high)) if scalar < low as f64 || scalar > high as f64 => DType::I64,
        Some(_) => tile,
        None => DType::I64,
    }
}
