//! One unit's steps into a core's program. UB tiles are allocated per value (`slots`): a value
//! takes a free slot of its shape and dtype when it is produced and gives it back after its last
//! read, so a chain of any length needs only a few UB tiles and never leaves UB. Slots exist in
//! `vec_buffers` copies; units alternate between them, which is the ping-pong of
//! `vec_nbuffer_setting`.
//!
//! Two ways to share slots. By default tiles filled by a copy (GM loads, cube results) and tiles
//! the vector unit computes draw from separate slots, like Ascend C's input and output queues: the
//! next load into a slot then waits only for the vector unit's last read, not for a store. When
//! that does not fit UB (known from the slots before anything is emitted), the lowering is
//! `in_place`: an element-wise op may write over any input it reads for the last time (vector
//! instructions allow dst = src), which is what makes a 64×512 bf16 copy fit double-buffered and
//! what memory planning assumes when it decides where to cut.

use crate::tile::fast_hash::{FastMap, FastSet};

use super::super::builder::TileError;
use super::super::program::{BufferId, GmRegion, TileOp};
use super::super::vector_ops::VectorOperand;
use super::super::work::{ValueId, WorkOperand, WorkStep};
use super::analysis::{load_region, UnitFacts};
use super::cube::{default_tiles, extents, lower_matmul, MatmulJob, MatmulResult};
use super::emitter::Resource;
use super::slots::Slot;
use super::state::{CoreState, Handoff, Side};

/// Lowers unit `index` (with `facts` and the UB `slots` of its values) into `core`; `handoffs` are
/// the GM hand-offs by (unit, value).
pub(super) fn lower_unit(
    core: &mut CoreState<'_>,
    index: usize,
    facts: &UnitFacts,
    slots: &[Option<Slot>],
    handoffs: &FastMap<(usize, u32), Handoff>,
) -> Result<(), TileError> {
    let work = core.work;
    let unit = &work.units[index];
    let copy = core.units_done % work.settings.vec_buffers.max(1);
    core.units_done += 1;
    core.unit = index;
    let vector_side = core.side != Side::Cube;
    let cube_side = core.side != Side::Vector;
    // Staged matmul operands already copied out (vector side) / already waited for (cube side).
    let (mut staged_written, mut staged_waited) = (FastSet::default(), FastSet::default());
    // Cross-core flags are counted: a stage workspace's flags are waited for once, at the first
    // copy of the value that loads it (a second matmul reading the same tile follows in the queue).
    let mut stage_waited = FastSet::default();
    let mut ub: Vec<Option<BufferId>> = vec![None; unit.values.len()];
    for (position, located) in unit.steps.iter().enumerate() {
        core.emitter.at_line(located.line);
        let (reads, written) = located.step.values();
        let mut output = None;
        if vector_side {
            if let Some(value) = written {
                if let Some(((shape, dtype, filled_by_copy), slot)) = &slots[value.0 as usize] {
                    let buffer = core.ub_buffer(shape, *dtype, *slot, *filled_by_copy, copy);
                    ub[value.0 as usize] = Some(buffer);
                    output = Some(buffer);
                }
            }
        }
        let tile = |value: &ValueId| ub[value.0 as usize].expect("values read in UB were placed in UB");
        let valid = |value: &ValueId| unit.values[value.0 as usize].valid_shape.clone();
        match &located.step {
            WorkStep::Load { region, .. } => {
                if let Some(destination) = output {
                    let op = TileOp::CopyIn { source: region.clone(), destination };
                    let waits = core.stage_flags.waits_of(index, position);
                    core.emitter.emit(
                        op,
                        &[Resource::Tensor(region.tensor)],
                        &[Resource::Buffer(destination)],
                        waits,
                        vec![],
                    )?;
                }
            }
            WorkStep::Matmul { a, b, a_transposed, b_transposed, output: result } => {
                let handoff = |value: &ValueId| {
                    handoffs.get(&(index, value.0)).ok_or(TileError::InvalidOp {
                        op: "matmul",
                        detail: crate::messages::LoweringReason::NoWorkspace { value: value.0 },
                        source_line: located.line,
                    })
                };
                if vector_side {
                    // A computed operand goes to its workspace band once; the cube side streams it from there.
                    for operand in [a, b] {
                        if facts.staged[operand.0 as usize] && staged_written.insert(operand.0) {
                            let (source, handoff) = (tile(operand), handoff(operand)?);
                            let op = TileOp::CopyOut { source, destination: handoff.region.clone() };
                            core.emitter.emit(
                                op,
                                &[Resource::Buffer(source)],
                                &[Resource::Tensor(handoff.region.tensor)],
                                vec![],
                                handoff.flag.into_iter().collect(),
                            )?;
                        }
                    }
                }
                let region = |operand: &ValueId| match load_region(unit, facts, *operand) {
                    Some(region) => Ok(region),
                    None => handoff(operand).map(|handoff| &handoff.region),
                };
                let (a_region, b_region) = (region(a)?, region(b)?);
                let [m, _, n] = extents(a_region, *a_transposed, b_region, *b_transposed);
                if cube_side {
                    let mut operand_waits = [Vec::new(), Vec::new()];
                    for (wait, operand) in operand_waits.iter_mut().zip([a, b]) {
                        if facts.staged[operand.0 as usize] && staged_waited.insert(operand.0) {
                            wait.extend(handoff(operand)?.flag);
                        }
                        let producer = facts.producer[operand.0 as usize];
                        if stage_waited.insert(producer) {
                            wait.extend(core.stage_flags.waits_of(index, producer));
                        }
                    }
                    let result_kind = match (output, handoffs.get(&(index, result.0))) {
                        (Some(tile), _) => MatmulResult::Ub(tile),
                        (None, Some(handoff)) => MatmulResult::Workspace(handoff.clone()),
                        (None, None) => MatmulResult::Stores,
                    };
                    let stores = unit
                        .steps
                        .iter()
                        .enumerate()
                        .filter_map(|(at, later)| match &later.step {
                            WorkStep::Store { input, region, accumulate } if input == result => {
                                Some((region.clone(), *accumulate, later.line, core.stage_flags.sets_of(index, at)))
                            }
                            _ => None,
                        })
                        .collect();
                    let shape = &unit.values[result.0 as usize].shape;
                    let producer_line = |value: &ValueId| unit.steps[facts.producer[value.0 as usize]].line;
                    let job = MatmulJob {
                        a: (a_region, unit.values[a.0 as usize].dtype, *a_transposed, producer_line(a)),
                        b: (b_region, unit.values[b.0 as usize].dtype, *b_transposed, producer_line(b)),
                        operand_waits,
                        output_shape: [shape[0], shape.get(1).copied().unwrap_or(1)],
                        stores,
                        result: result_kind,
                        line: located.line,
                    };
                    let a_shape = &unit.values[a.0 as usize].shape;
                    let bytes = job.a.1.size_in_bytes().max(job.b.1.size_in_bytes());
                    let k_full = if *a_transposed { a_shape[0] } else { a_shape[1] };
                    let tiles = work
                        .settings
                        .cube_tiles
                        .unwrap_or_else(|| default_tiles([job.output_shape[0], k_full, job.output_shape[1]], bytes));
                    lower_matmul(core, job, tiles)?;
                } else if let (Some(destination), Some(handoff)) = (output, handoffs.get(&(index, result.0))) {
                    // The vector core picks the result up from the workspace once the cube core's flag says it is there.
                    let source = GmRegion {
                        tensor: handoff.region.tensor,
                        offsets: handoff.region.offsets.clone(),
                        shape: [m, n].into(),
                    };
                    core.emitter.at_line(located.line);
                    let op = TileOp::CopyIn { source, destination };
                    core.emitter.emit(
                        op,
                        &[Resource::Tensor(handoff.region.tensor)],
                        &[Resource::Buffer(destination)],
                        handoff.flag.into_iter().collect(),
                        vec![],
                    )?;
                }
            }
            // Stores of cube results are FIXPIPE copies emitted with their matmul.
            WorkStep::Store { input, region, accumulate } if vector_side && !facts.from_matmul[input.0 as usize] => {
                let source = tile(input);
                let destination = region.clone();
                let op = if *accumulate {
                    TileOp::CopyOutAccumulate { source, destination, order: core.unit as u32 }
                } else {
                    TileOp::CopyOut { source, destination }
                };
                let sets = core.stage_flags.sets_of(index, position);
                core.emitter.emit(op, &[Resource::Buffer(source)], &[Resource::Tensor(region.tensor)], vec![], sets)?;
            }
            WorkStep::Store { .. } => {}
            step if vector_side => {
                let output_value = written.expect("vector steps produce a value");
                let destination = output.expect("vector results live in UB");
                let valid_shape = valid(&output_value);
                let op = match step {
                    WorkStep::Unary { op, input, .. } => {
                        TileOp::Unary { op: *op, input: tile(input), output: destination, valid_shape }
                    }
                    WorkStep::Clip { input, low, high, .. } => {
                        TileOp::Clip { input: tile(input), output: destination, low: *low, high: *high, valid_shape }
                    }
                    WorkStep::Cast { input, .. } => {
                        TileOp::Cast { input: tile(input), output: destination, valid_shape }
                    }
                    WorkStep::Reduce { op, input, dims, .. } => TileOp::ReduceDims {
                        op: *op,
                        input: tile(input),
                        output: destination,
                        dims: crate::tile::Dims::from(dims),
                        valid_shape: valid(input),
                    },
                    WorkStep::Binary { op, lhs, rhs, .. } => match (lhs, rhs) {
                        (WorkOperand::Tile(left), WorkOperand::Tile(right)) => {
                            let (left_shape, right_shape) = (valid(left), valid(right));
                            if left_shape == valid_shape && right_shape == valid_shape {
                                TileOp::Binary {
                                    op: *op,
                                    lhs: tile(left),
                                    rhs: tile(right),
                                    output: destination,
                                    valid_shape,
                                }
                            } else {
                                TileOp::BroadcastBinary {
                                    op: *op,
                                    lhs: tile(left),
                                    lhs_shape: left_shape,
                                    rhs: tile(right),
                                    rhs_shape: right_shape,
                                    output: destination,
                                    valid_shape,
                                }
                            }
                        }
                        (WorkOperand::Tile(input), WorkOperand::Scalar(scalar)) => TileOp::ScalarBinary {
                            op: *op,
                            input: tile(input),
                            scalar: *scalar,
                            scalar_first: false,
                            output: destination,
                            valid_shape,
                        },
                        (WorkOperand::Scalar(scalar), WorkOperand::Tile(input)) => TileOp::ScalarBinary {
                            op: *op,
                            input: tile(input),
                            scalar: *scalar,
                            scalar_first: true,
                            output: destination,
                            valid_shape,
                        },
                        (WorkOperand::Scalar(_), WorkOperand::Scalar(_)) => {
                            unreachable!("analysis rejects scalar-only binaries")
                        }
                    },
                    WorkStep::Vector { op, inputs, .. } => TileOp::Vector {
                        op: op.clone(),
                        inputs: inputs
                            .iter()
                            .map(|operand| match operand {
                                WorkOperand::Tile(value) => {
                                    VectorOperand::Tile { buffer: tile(value), shape: valid(value).to_vec() }
                                }
                                WorkOperand::Scalar(number) => VectorOperand::Scalar(*number),
                            })
                            .collect(),
                        output: destination,
                        valid_shape,
                    },
                    _ => unreachable!("the other steps are matched above"),
                };
                // The tiles read, on the stack but for a wide vector op.
                let mut inline = [Resource::Buffer(destination); 3];
                let wide: Vec<Resource>;
                let inputs: &[Resource] = match reads.len() <= inline.len() {
                    true => {
                        inline
                            .iter_mut()
                            .zip(reads.iter())
                            .for_each(|(slot, value)| *slot = Resource::Buffer(tile(value)));
                        &inline[..reads.len()]
                    }
                    false => {
                        wide = reads.iter().map(|value| Resource::Buffer(tile(value))).collect();
                        &wide
                    }
                };
                core.emitter.emit(op, inputs, &[Resource::Buffer(destination)], vec![], vec![])?;
            }
            _ => {}
        }
    }
    Ok(())
}
