//! Static checks of a kernel plan against a configuration: core counts, buffer capacity per memory
//! (with the largest tile that would fit), alignment, views in bounds, valid buffer/flag ids. Also
//! the occupancy figures the summary reports.

use std::collections::BTreeMap;

use crate::tile::{CoreKind, KernelPlan, TileOp, TileProgram};

use super::capacity::{check_alignment, check_capacity};
use super::config::{Architecture, NpuConfig};
use super::error::{NpuError, Result};
use crate::messages::{ProgramDetail, ViewSubject};

/// Checks every program of `plan` against `config`; the first problem is the error.
pub fn check_plan(plan: &KernelPlan, config: &NpuConfig) -> Result<()> {
    check_plan_counting(plan, config).map(|_| ())
}

/// `check_plan`, which also counts each program's instructions per pipe (indexed by
/// `Pipe::index`) in its pass over them: the engine needs the counts, and a pass of its own over
/// every instruction of a large plan costs as much as streaming the plan from memory once more.
pub(crate) fn check_plan_counting(plan: &KernelPlan, config: &NpuConfig) -> Result<Vec<[u32; 7]>> {
    let mut counts: BTreeMap<&'static str, (usize, u32)> = BTreeMap::new();
    let mut pipe_counts = Vec::with_capacity(plan.programs.len());
    for (core, program) in plan.programs.iter().enumerate() {
        // The instruction checks run first, in the pass that also counts the pipes' instructions
        // (no pass of their own for the core kind); their error still ranks after kind, capacity,
        // alignment.
        let mut per_pipe = [0u32; 7];
        let instructions = check_instructions(core, program, plan, &mut per_pipe);
        let used = (0..7).filter(|&pipe| per_pipe[pipe] > 0).fold(0u8, |used, pipe| used | 1 << pipe);
        pipe_counts.push(per_pipe);
        let kind = if instructions.is_ok() { CoreKind::of_pipes(used) } else { program.core_kind() };
        if kind == CoreKind::Mixed && config.architecture == Architecture::Split {
            return Err(NpuError::InvalidProgram { core, instruction: None, detail: ProgramDetail::MixedCore });
        }
        let label = match (config.architecture, kind) {
            (Architecture::Split, CoreKind::Vector) => "vector",
            (Architecture::Split, _) => "cube",
            (Architecture::Coupled, _) => "AI",
        };
        counts.entry(label).or_insert((0, config.cores_for(kind))).0 += 1;
        check_capacity(program, config)?;
        check_alignment(program, config)?;
        instructions?;
    }
    for (kind, (programs, available)) in counts {
        if programs > available as usize {
            return Err(NpuError::TooManyCores { kind, programs, available });
        }
    }
    Ok(pipe_counts)
}

fn within(offsets: &[usize], shape: &[usize], bounds: &[usize]) -> bool {
    offsets.len() == bounds.len()
        && shape.len() == bounds.len()
        && offsets.iter().zip(shape).zip(bounds).all(|((offset, extent), bound)| offset + extent <= *bound)
}

/// `within` at the origin, without building a vector of zeros (the check runs once per instruction).
fn fits(shape: &[usize], bounds: &[usize]) -> bool {
    shape.len() == bounds.len() && shape.iter().zip(bounds).all(|(extent, bound)| extent <= bound)
}

/// Checks each instruction; `counts` counts those checked per pipe (`Pipe::index`).
fn check_instructions(core: usize, program: &TileProgram, plan: &KernelPlan, counts: &mut [u32; 7]) -> Result<()> {
    for (index, instruction) in program.instructions.iter().enumerate() {
        counts[instruction.pipe.index()] += 1;
        let invalid = |detail: ProgramDetail| NpuError::InvalidProgram { core, instruction: Some(index), detail };
        let buffer = |id: crate::tile::BufferId| {
            program.buffers.get(id.0 as usize).ok_or_else(|| invalid(ProgramDetail::UnknownBuffer { id: id.0 }))
        };
        let out_of_bounds =
            |what: ViewSubject, offsets: &[usize], shape: &[usize], bounds: &[usize]| NpuError::ViewOutOfBounds {
                what,
                offsets: offsets.to_vec(),
                shape: shape.to_vec(),
                bounds: bounds.to_vec(),
                source_line: instruction.source_line,
            };
        if let Some(flag) = instruction.wait.iter().chain(&instruction.set).find(|flag| flag.0 >= program.flag_count) {
            return Err(invalid(ProgramDetail::UnknownFlag { id: flag.0 }));
        }
        if let Some(flag) =
            instruction.cross_wait.iter().chain(&instruction.cross_set).find(|flag| flag.0 >= plan.cross_core_flags)
        {
            return Err(invalid(ProgramDetail::UnknownCrossFlag { id: flag.0 }));
        }
        let zero = |rank: usize| vec![0; rank];
        match &instruction.op {
            TileOp::CopyIn { source: region, destination: local }
            | TileOp::CopyOut { source: local, destination: region }
            | TileOp::CopyOutAccumulate { source: local, destination: region, .. } => {
                let tensor = plan
                    .tensors
                    .get(region.tensor.0 as usize)
                    .ok_or_else(|| invalid(ProgramDetail::UnknownTensor { id: region.tensor.0 }))?;
                if !within(&region.offsets, &region.shape, &tensor.shape) {
                    return Err(out_of_bounds(
                        ViewSubject::OfTensor { name: tensor.name.clone() },
                        &region.offsets,
                        &region.shape,
                        &tensor.shape,
                    ));
                }
                let local = buffer(*local)?;
                if !fits(&region.shape, &local.shape) {
                    return Err(out_of_bounds(
                        ViewSubject::ValidShape { name: local.name.clone() },
                        &zero(region.shape.len()),
                        &region.shape,
                        &local.shape,
                    ));
                }
            }
            TileOp::Move { source, offsets, shape, destination } => {
                let (source, destination) = (buffer(*source)?, buffer(*destination)?);
                if !within(offsets, shape, &source.shape) {
                    return Err(out_of_bounds(
                        ViewSubject::SubTile { name: source.name.clone() },
                        offsets,
                        shape,
                        &source.shape,
                    ));
                }
                if !fits(shape, &destination.shape) {
                    return Err(out_of_bounds(
                        ViewSubject::ValidShape { name: destination.name.clone() },
                        &zero(shape.len()),
                        shape,
                        &destination.shape,
                    ));
                }
            }
            TileOp::Mmad { a, b, c, c_offsets, m, k, n, .. } => {
                let (a, b, c) = (buffer(*a)?, buffer(*b)?, buffer(*c)?);
                for (tile, offsets, shape) in [(a, [0, 0], [*m, *k]), (b, [0, 0], [*k, *n]), (c, *c_offsets, [*m, *n])]
                {
                    if !within(&offsets, &shape, &tile.shape) {
                        return Err(out_of_bounds(
                            ViewSubject::MmadOperand { name: tile.name.clone() },
                            &offsets,
                            &shape,
                            &tile.shape,
                        ));
                    }
                }
            }
            TileOp::Unary { input, output, valid_shape, .. } | TileOp::Cast { input, output, valid_shape } => {
                for tile in [buffer(*input)?, buffer(*output)?] {
                    if !fits(valid_shape, &tile.shape) {
                        return Err(out_of_bounds(
                            ViewSubject::ValidShape { name: tile.name.clone() },
                            &zero(valid_shape.len()),
                            valid_shape,
                            &tile.shape,
                        ));
                    }
                }
            }
            TileOp::Binary { lhs, rhs, output, valid_shape, .. } => {
                for tile in [buffer(*lhs)?, buffer(*rhs)?, buffer(*output)?] {
                    if !fits(valid_shape, &tile.shape) {
                        return Err(out_of_bounds(
                            ViewSubject::ValidShape { name: tile.name.clone() },
                            &zero(valid_shape.len()),
                            valid_shape,
                            &tile.shape,
                        ));
                    }
                }
            }
            TileOp::Reduce { input, output, valid_shape, .. } => {
                let (input, output) = (buffer(*input)?, buffer(*output)?);
                if !fits(valid_shape, &input.shape) {
                    return Err(out_of_bounds(
                        ViewSubject::ValidShape { name: input.name.clone() },
                        &zero(valid_shape.len()),
                        valid_shape,
                        &input.shape,
                    ));
                }
                if output.shape.first() < valid_shape.first() {
                    return Err(out_of_bounds(
                        ViewSubject::Rows { name: output.name.clone() },
                        &[0],
                        &valid_shape[..1],
                        &output.shape[..1],
                    ));
                }
            }
            TileOp::Scalar { .. } => {}
            TileOp::Vector { op, inputs, output, valid_shape } => {
                super::check_vector::check_vector(op, inputs, buffer(*output)?, valid_shape, &buffer).map_err(
                    |problem| match problem {
                        super::check_vector::Problem::Invalid(detail) => invalid(detail),
                        super::check_vector::Problem::OutOfBounds { what, shape, bounds } => {
                            out_of_bounds(what, &zero(shape.len()), &shape, &bounds)
                        }
                    },
                )?;
            }
            TileOp::MoveTransposed { source, offsets, shape, destination } => {
                let (source, destination) = (buffer(*source)?, buffer(*destination)?);
                if shape.len() != 2 {
                    return Err(invalid(ProgramDetail::TransposeRank { shape: shape.to_vec() }));
                }
                if !within(offsets, shape, &source.shape) {
                    return Err(out_of_bounds(
                        ViewSubject::SubTile { name: source.name.clone() },
                        offsets,
                        shape,
                        &source.shape,
                    ));
                }
                let reversed = [shape[1], shape[0]];
                if !within(&[0, 0], &reversed, &destination.shape) {
                    return Err(out_of_bounds(
                        ViewSubject::Transposed { name: destination.name.clone() },
                        &[0, 0],
                        &reversed,
                        &destination.shape,
                    ));
                }
            }
            TileOp::ScalarBinary { input, output, valid_shape, .. }
            | TileOp::Clip { input, output, valid_shape, .. } => {
                for tile in [buffer(*input)?, buffer(*output)?] {
                    if !fits(valid_shape, &tile.shape) {
                        return Err(out_of_bounds(
                            ViewSubject::ValidShape { name: tile.name.clone() },
                            &zero(valid_shape.len()),
                            valid_shape,
                            &tile.shape,
                        ));
                    }
                }
            }
            TileOp::BroadcastBinary { lhs, lhs_shape, rhs, rhs_shape, output, valid_shape, .. } => {
                for (tile, shape) in
                    [(buffer(*lhs)?, lhs_shape), (buffer(*rhs)?, rhs_shape), (buffer(*output)?, valid_shape)]
                {
                    if !fits(shape, &tile.shape) {
                        return Err(out_of_bounds(
                            ViewSubject::ValidShape { name: tile.name.clone() },
                            &zero(shape.len()),
                            shape,
                            &tile.shape,
                        ));
                    }
                }
                if crate::tensor::broadcast_shapes("binary", lhs_shape, rhs_shape).ok().as_deref()
                    != Some(valid_shape.as_slice())
                {
                    return Err(invalid(ProgramDetail::OperandsBroadcast {
                        lhs: lhs_shape.to_vec(),
                        rhs: rhs_shape.to_vec(),
                        written: valid_shape.to_vec(),
                    }));
                }
            }
            TileOp::ReduceDims { input, output, dims, valid_shape, .. } => {
                let (input, output) = (buffer(*input)?, buffer(*output)?);
                if let Some(dim) = dims.iter().find(|dim| **dim >= valid_shape.len()) {
                    return Err(invalid(ProgramDetail::ReduceDim { dim: *dim, rank: valid_shape.len() }));
                }
                if !fits(valid_shape, &input.shape) {
                    return Err(out_of_bounds(
                        ViewSubject::ValidShape { name: input.name.clone() },
                        &zero(valid_shape.len()),
                        valid_shape,
                        &input.shape,
                    ));
                }
                let reduced: Vec<usize> = valid_shape
                    .iter()
                    .enumerate()
                    .map(|(dim, extent)| if dims.contains(&dim) { 1 } else { *extent })
                    .collect();
                if !fits(&reduced, &output.shape) {
                    return Err(out_of_bounds(
                        ViewSubject::ReducedShape { name: output.name.clone() },
                        &zero(reduced.len()),
                        &reduced,
                        &output.shape,
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::{BinaryOp, DType, ReduceOp};
    use crate::tile::{Memory, ProgramBuilder};

    fn checked(op: impl Fn(&mut ProgramBuilder) -> TileOp) -> Result<()> {
        let mut builder = ProgramBuilder::new();
        let op = op(&mut builder);
        builder.push(op, vec![], vec![]).unwrap();
        let plan = KernelPlan {
            name: "k".into(),
            tensors: vec![],
            programs: vec![builder.finish()],
            cross_core_flags: 0,
            single_buffered_from: None,
        };
        check_plan(&plan, &NpuConfig::preset("teaching").unwrap())
    }

    #[test]
    fn broadcast_operands_must_broadcast_to_the_output() {
        // [16, 1] against [16, 64] broadcasts to [16, 64]; [8, 1] against [16, 64] does not.
        let broadcast = |rows: usize| {
            move |builder: &mut ProgramBuilder| {
                let (tile, column) = (
                    builder.buffer("x", Memory::Ub, &[16, 64], DType::F32),
                    builder.buffer("c", Memory::Ub, &[16, 1], DType::F32),
                );
                TileOp::BroadcastBinary {
                    op: BinaryOp::Mul,
                    lhs: tile,
                    lhs_shape: [16, 64].into(),
                    rhs: column,
                    rhs_shape: [rows, 1].into(),
                    output: tile,
                    valid_shape: [16, 64].into(),
                }
            }
        };
        assert!(checked(broadcast(16)).is_ok());
        assert!(matches!(checked(broadcast(8)), Err(NpuError::InvalidProgram { .. })));
    }

    #[test]
    fn a_reduction_must_fit_its_output_and_name_real_dims() {
        let reduce = |dims: Vec<usize>, output_shape: [usize; 2]| {
            move |builder: &mut ProgramBuilder| {
                let (input, output) = (
                    builder.buffer("x", Memory::Ub, &[16, 64], DType::F32),
                    builder.buffer("r", Memory::Ub, &output_shape, DType::F32),
                );
                TileOp::ReduceDims {
                    op: ReduceOp::Sum,
                    input,
                    output,
                    dims: crate::tile::Dims::from(&*dims),
                    valid_shape: [16, 64].into(),
                }
            }
        };
        assert!(checked(reduce(vec![0], [1, 64])).is_ok());
        assert!(
            matches!(checked(reduce(vec![1], [1, 64])), Err(NpuError::ViewOutOfBounds { .. })),
            "a row reduction is [16, 1], not [1, 64]"
        );
        assert!(matches!(checked(reduce(vec![2], [1, 64])), Err(NpuError::InvalidProgram { .. })));
    }
}
