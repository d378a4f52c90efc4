//! What the lowering needs to know about one unit before it emits anything: which step produces
//! each value, where each value lives (UB, streamed through L1, L0C), when it is last read, and
//! which side of a split chip each step runs on. Malformed units are errors here, at the step's line.

use super::super::builder::TileError;
use super::super::program::GmRegion;
use super::super::work::{TileWork, ValueId, WorkOperand, WorkStep, WorkUnit};

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
    /// Whether the unit has a matmul (needs a cube core).
    pub has_matmul: bool,
    /// Whether the unit has work for a vector core (UB loads, vector ops, UB stores).
    pub has_vector_work: bool,
}

fn step_error(unit: usize, index: usize, line: Option<u32>, detail: String) -> TileError {
    TileError::InvalidOp { op: "lower_work", detail: format!("unit {unit}, step {index}: {detail}"), source_line: line }
}

/// The values a step reads and the one it writes.
pub(super) fn step_values(step: &WorkStep) -> (Vec<ValueId>, Option<ValueId>) {
    let tile = |operand: &WorkOperand| match operand {
        WorkOperand::Tile(value) => Some(*value),
        WorkOperand::Scalar(_) => None,
    };
    match step {
        WorkStep::Load { output, .. } => (vec![], Some(*output)),
        WorkStep::Unary { input, output, .. } | WorkStep::Clip { input, output, .. } | WorkStep::Reduce { input, output, .. } | WorkStep::Cast { input, output } => {
            (vec![*input], Some(*output))
        }
        WorkStep::Binary { lhs, rhs, output, .. } => ([tile(lhs), tile(rhs)].into_iter().flatten().collect(), Some(*output)),
        WorkStep::Matmul { a, b, output, .. } => (vec![*a, *b], Some(*output)),
        WorkStep::Store { input, .. } => (vec![*input], None),
    }
}

/// Whether the step runs on the vector unit.
pub(super) fn is_vector_op(step: &WorkStep) -> bool {
    matches!(step, WorkStep::Unary { .. } | WorkStep::Binary { .. } | WorkStep::Clip { .. } | WorkStep::Reduce { .. } | WorkStep::Cast { .. })
}

/// The GM region a value was loaded from, if a Load produced it.
pub(super) fn load_region<'a>(unit: &'a WorkUnit, facts: &UnitFacts, value: ValueId) -> Option<&'a GmRegion> {
    match &unit.steps[facts.producer[value.0 as usize]].step {
        WorkStep::Load { region, .. } => Some(region),
        _ => None,
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
    let mut has_matmul = false;
    let mut has_vector_work = false;
    for (position, located) in unit.steps.iter().enumerate() {
        let fail = |detail: String| step_error(index, position, located.line, detail);
        let (reads, written) = step_values(&located.step);
        for value in reads.iter().chain(&written) {
            if value.0 as usize >= count {
                return Err(fail(format!("value {} does not exist (the unit has {count})", value.0)));
            }
        }
        for value in &reads {
            if producer[value.0 as usize] == usize::MAX {
                return Err(fail(format!("reads value {} before any step produced it", value.0)));
            }
        }
        if let Some(value) = written {
            if producer[value.0 as usize] != usize::MAX {
                return Err(fail(format!("value {} is produced twice", value.0)));
            }
            producer[value.0 as usize] = position;
        }
        let region_rank = |region: &GmRegion, value: ValueId| -> Result<(), TileError> {
            let tensor = work.tensors.get(region.tensor.0 as usize).ok_or_else(|| fail(format!("tensor {} does not exist", region.tensor.0)))?;
            let tile = &unit.values[value.0 as usize];
            if region.shape.len() != tile.shape.len() || tensor.shape.len() != tile.shape.len() || region.offsets.len() != tile.shape.len() {
                return Err(fail(format!("the region of '{}' has rank {} but the tile {:?} has rank {}", tensor.name, region.shape.len(), tile.shape, tile.shape.len())));
            }
            if region.shape.iter().zip(&tile.shape).any(|(extent, full)| extent > full) {
                return Err(fail(format!("the region {:?} of '{}' is larger than the tile {:?}", region.shape, tensor.name, tile.shape)));
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
                    if !matches!(unit.steps[producer[operand.0 as usize]].step, WorkStep::Load { .. }) {
                        return Err(fail(format!("matmul operand {} must be a tile loaded from GM (no path moves a computed UB tile into L1)", operand.0)));
                    }
                    if tile.shape.len() != 2 {
                        return Err(fail(format!("matmul operands are 2-D tiles, got {:?}", tile.shape)));
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
                    return Err(fail("a binary step needs at least one tile operand".into()));
                }
                if let WorkStep::Reduce { input, dims, .. } = step {
                    let rank = unit.values[input.0 as usize].shape.len();
                    if let Some(dim) = dims.iter().find(|dim| **dim >= rank) {
                        return Err(fail(format!("reduces dim {dim} of a {rank}-D tile")));
                    }
                }
            }
        }
    }
    // A loaded value read only by a matmul never touches UB; one read by vector steps does.
    Ok(UnitFacts { producer, last_ub_use, in_ub, from_matmul, has_matmul, has_vector_work })
}
