//! What the lowering needs to know about one unit before it emits anything: which step produces
//! each value, where each value lives (UB, streamed through L1, L0C), when it is last read, and
//! which side of a split chip each step runs on. Malformed units are errors here, at the step's line.

use super::super::builder::TileError;
use super::super::program::GmRegion;
use super::super::work::{TileWork, ValueId, WorkOperand, WorkStep, WorkUnit};
use crate::messages::{LoweringReason, StepFault};

/// The facts about one unit.
pub(super) struct UnitFacts {
    /// The step producing each value.
    pub producer: Vec<usize>,
    /// The last step reading each value from UB (`None`: never read there).
    pub last_ub_use: Vec<Option<usize>>,
    /// Whether each value has a UB tile.
    pub in_ub: Vec<bool>,
    /// Whether each value comes out of the cube (lives in L0C first).
    pub from_matmul: Vec<bool>,
    /// Whether each value is computed in UB and read by a matmul: it reaches L1 through a GM
    /// workspace (UB → GM by MTE3, then streamed into L1 like a load).
    pub staged: Vec<bool>,
    /// Whether the unit has a matmul (needs a cube core).
    pub has_matmul: bool,
    /// Whether the unit has work for a vector core (UB loads, vector ops, UB stores).
    pub has_vector_work: bool,
}

fn step_error(unit: usize, step: usize, line: Option<u32>, fault: StepFault) -> TileError {
    TileError::InvalidOp { op: "lower_work", detail: LoweringReason::Step { unit, step, fault }, source_line: line }
}

/// Whether the step runs on the vector unit.
pub(super) fn is_vector_op(step: &WorkStep) -> bool {
    matches!(
        step,
        WorkStep::Unary { .. }
            | WorkStep::Binary { .. }
            | WorkStep::Clip { .. }
            | WorkStep::Reduce { .. }
            | WorkStep::Cast { .. }
            | WorkStep::Vector { .. }
    )
}

/// The GM region a value was loaded from, if a Load produced it.
pub(super) fn load_region<'a>(unit: &'a WorkUnit, facts: &UnitFacts, value: ValueId) -> Option<&'a GmRegion> {
    match &unit.steps[facts.producer[value.0 as usize]].step {
        WorkStep::Load { region, .. } => Some(region),
        _ => None,
    }
}

/// The valid shape a matmul operand has in GM: its load region, or its valid shape when staged.
pub(super) fn operand_shape(unit: &WorkUnit, facts: &UnitFacts, value: ValueId) -> Vec<usize> {
    match load_region(unit, facts, value) {
        Some(region) => region.shape.to_vec(),
        None => unit.values[value.0 as usize].valid_shape.to_vec(),
    }
}

/// Analyses unit `index` of `work`.
pub(super) fn analyse(work: &TileWork, index: usize) -> Result<UnitFacts, TileError> {
    let unit = &work.units[index];
    let count = unit.values.len();
    let mut producer = vec![usize::MAX; count];
    let mut last_ub_use = vec![None; count];
    let mut in_ub = vec![false; count];
    let mut from_matmul = vec![false; count];
    let mut staged = vec![false; count];
    let mut has_matmul = false;
    let mut has_vector_work = false;
    for (position, located) in unit.steps.iter().enumerate() {
        let fail = |fault: StepFault| step_error(index, position, located.line, fault);
        let (reads, written) = located.step.values();
        for value in reads.iter().chain(&written) {
            if value.0 as usize >= count {
                return Err(fail(StepFault::MissingValue { value: value.0, count }));
            }
        }
        for value in &reads {
            if producer[value.0 as usize] == usize::MAX {
                return Err(fail(StepFault::ReadBeforeProduced { value: value.0 }));
            }
        }
        if let Some(value) = written {
            if producer[value.0 as usize] != usize::MAX {
                return Err(fail(StepFault::ProducedTwice { value: value.0 }));
            }
            producer[value.0 as usize] = position;
        }
        let region_rank = |region: &GmRegion, value: ValueId| -> Result<(), TileError> {
            let tensor = work
                .tensors
                .get(region.tensor.0 as usize)
                .ok_or_else(|| fail(StepFault::MissingTensor { tensor: region.tensor.0 }))?;
            let tile = &unit.values[value.0 as usize];
            if region.shape.len() != tile.shape.len()
                || tensor.shape.len() != tile.shape.len()
                || region.offsets.len() != tile.shape.len()
            {
                return Err(fail(StepFault::RegionRank {
                    name: tensor.name.clone(),
                    rank: region.shape.len(),
                    tile: tile.shape.to_vec(),
                    tile_rank: tile.shape.len(),
                }));
            }
            if region.shape.iter().zip(&tile.shape).any(|(extent, full)| extent > full) {
                return Err(fail(StepFault::RegionLarger {
                    name: tensor.name.clone(),
                    region: region.shape.to_vec(),
                    tile: tile.shape.to_vec(),
                }));
            }
            Ok(())
        };
        match &located.step {
            WorkStep::Load { region, output } => region_rank(region, *output)?,
            WorkStep::Store { input, region, .. } => {
                region_rank(region, *input)?;
                if !from_matmul[input.0 as usize] {
                    in_ub[input.0 as usize] = true;
                    last_ub_use[input.0 as usize] = Some(position);
                    has_vector_work = true;
                }
            }
            WorkStep::Matmul { a, b, output, .. } => {
                has_matmul = true;
                for operand in [a, b] {
                    let tile = &unit.values[operand.0 as usize];
                    if tile.shape.len() != 2 {
                        return Err(fail(StepFault::MatmulOperandRank { shape: tile.shape.to_vec() }));
                    }
                    match unit.steps[producer[operand.0 as usize]].step {
                        WorkStep::Load { .. } => {}
                        WorkStep::Matmul { .. } => {
                            return Err(fail(StepFault::MatmulOfMatmul { value: operand.0 }));
                        }
                        _ => {
                            staged[operand.0 as usize] = true;
                            in_ub[operand.0 as usize] = true;
                            last_ub_use[operand.0 as usize] = Some(position);
                            has_vector_work = true;
                        }
                    }
                }
                from_matmul[output.0 as usize] = true;
            }
            step => {
                has_vector_work = true;
                for value in &reads {
                    in_ub[value.0 as usize] = true;
                    last_ub_use[value.0 as usize] = Some(position);
                }
                if let (Some(value), true) = (written, is_vector_op(step)) {
                    in_ub[value.0 as usize] = true;
                }
                if let WorkStep::Binary { lhs: WorkOperand::Scalar(_), rhs: WorkOperand::Scalar(_), .. } = step {
                    return Err(fail(StepFault::NumbersOnly));
                }
                if let WorkStep::Reduce { input, dims, .. } = step {
                    let rank = unit.values[input.0 as usize].shape.len();
                    if let Some(dim) = dims.iter().find(|dim| **dim >= rank) {
                        return Err(fail(StepFault::ReduceDim { dim: *dim, rank }));
                    }
                }
            }
        }
    }
    // A loaded value read only by a matmul never touches UB; one read by vector steps does.
    Ok(UnitFacts { producer, last_ub_use, in_ub, from_matmul, staged, has_matmul, has_vector_work })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::{DType, UnaryOp};
    use crate::tile::{GmTensor, LocatedStep, TensorId, TileValue, WorkSettings};

    fn work(steps: Vec<WorkStep>, values: usize) -> TileWork {
        let value = TileValue { shape: [16, 16].into(), valid_shape: [16, 16].into(), dtype: DType::F16 };
        let steps = steps
            .into_iter()
            .enumerate()
            .map(|(index, step)| LocatedStep { step, line: Some(index as u32 + 1) })
            .collect();
        TileWork {
            name: "k".into(),
            views: Vec::new(),
            ordered: Vec::new(),
            tensors: vec![GmTensor { name: "x".into(), shape: vec![16, 16], dtype: DType::F16 }],
            units: vec![WorkUnit { values: vec![value; values], steps, vec_tile: None }],
            settings: WorkSettings { vec_buffers: 1, ..WorkSettings::default() },
        }
    }

    fn load(output: u32) -> WorkStep {
        WorkStep::Load {
            region: GmRegion { tensor: TensorId(0), offsets: [0, 0].into(), shape: [16, 16].into() },
            output: ValueId(output),
        }
    }

    #[test]
    fn a_matmul_of_a_matmul_result_is_an_error_at_its_line() {
        let steps = vec![
            load(0),
            WorkStep::Matmul {
                a: ValueId(0),
                b: ValueId(0),
                a_transposed: false,
                b_transposed: false,
                output: ValueId(1),
            },
            WorkStep::Matmul {
                a: ValueId(1),
                b: ValueId(0),
                a_transposed: false,
                b_transposed: false,
                output: ValueId(2),
            },
        ];
        let error = analyse(&work(steps, 3), 0).err().expect("rejected");
        assert!(
            matches!(
                &error,
                TileError::InvalidOp {
                    source_line: Some(3),
                    detail: LoweringReason::Step { unit: 0, step: 2, fault: StepFault::MatmulOfMatmul { value: 1 } },
                    ..
                }
            ),
            "{error}"
        );
    }

    #[test]
    fn a_matmul_operand_computed_in_ub_is_staged_through_gm() {
        let steps = vec![
            load(0),
            WorkStep::Unary { op: UnaryOp::Exp, input: ValueId(0), output: ValueId(1) },
            WorkStep::Matmul {
                a: ValueId(1),
                b: ValueId(0),
                a_transposed: false,
                b_transposed: false,
                output: ValueId(2),
            },
        ];
        let facts = analyse(&work(steps, 3), 0).unwrap();
        assert_eq!(facts.staged, vec![false, true, false]);
        assert_eq!(facts.last_ub_use[1], Some(2), "the UB tile lives until it is copied out at the matmul");
    }

    #[test]
    fn values_are_placed_by_their_readers() {
        // x feeds the matmul only (streamed through L1, no UB tile); y feeds the matmul and exp (UB too).
        let steps = vec![
            load(0),
            load(1),
            WorkStep::Matmul {
                a: ValueId(0),
                b: ValueId(1),
                a_transposed: false,
                b_transposed: false,
                output: ValueId(2),
            },
            WorkStep::Unary { op: UnaryOp::Exp, input: ValueId(1), output: ValueId(3) },
        ];
        let facts = analyse(&work(steps, 4), 0).unwrap();
        assert_eq!(facts.in_ub, vec![false, true, false, true]);
        assert_eq!(facts.last_ub_use[1], Some(3));
        assert!(facts.has_matmul && facts.has_vector_work);
        let reads_before =
            analyse(&work(vec![WorkStep::Unary { op: UnaryOp::Exp, input: ValueId(0), output: ValueId(1) }], 2), 0);
        assert!(reads_before.is_err(), "reading a value nobody produced is an error");
    }
}
