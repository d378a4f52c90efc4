//! One task of a tile expansion under construction (see `expand`): the unit's steps emitted for
//! each cell of the task, per-cell values recomputed in later phases, joined reductions accumulated.

use crate::tile::fast_hash::FastMap;

use crate::messages::LoweringReason;
use crate::tensor::{BinaryOp, ReduceOp};

use super::builder::TileError;
use super::dims::Dims;
use super::expand::{combiner, expand_error, Grid};
use super::program::GmRegion;
use super::work::{LocatedStep, StepReads, TileValue, ValueId, WorkOperand, WorkStep, WorkUnit};

/// A task under construction.
pub(super) struct TaskBuilder<'a> {
    pub(super) unit: &'a WorkUnit,
    pub(super) grid: &'a Grid,
    pub(super) producer: &'a FastMap<u32, usize>,
    /// Per value of the unit: whether it is one per task (else one per cell).
    pub(super) per_task: &'a [bool],
    pub(super) out: WorkUnit,
    /// Per value of the unit: the task's value, for the current cell if the value is per cell (the
    /// cells of a task are walked one at a time, and a cell's values die with it).
    pub(super) known: Vec<Option<ValueId>>,
}

impl TaskBuilder<'_> {
    fn new_value(&mut self, original: ValueId, cell: &[usize]) -> ValueId {
        let value = &self.unit.values[original.0 as usize];
        let shape = self.grid.parts(value, cell, |(_, extent, _)| extent);
        let valid_shape = self.grid.parts(value, cell, |(_, _, valid)| valid);
        self.out.values.push(TileValue { shape, valid_shape, dtype: value.dtype });
        ValueId(self.out.values.len() as u32 - 1)
    }

    /// Forgets the values of the cell just finished: later phases recompute what they read.
    pub(super) fn forget_cell(&mut self) {
        for (known, &per_task) in self.known.iter_mut().zip(self.per_task) {
            if !per_task {
                *known = None;
            }
        }
    }

    /// A GM region's `offsets` (one per dim of `value`) moved to the part of `value` in cell `cell`.
    fn moved(&self, offsets: &[usize], value: &TileValue, cell: &[usize]) -> Dims {
        let (lead, dims) = (self.grid.lead(value), cell.len().min(self.grid.rank()));
        let moved = offsets.iter().zip(lead..dims);
        moved.map(|(&offset, dim)| offset + self.grid.part(value, dim, cell[dim]).0).collect()
    }

    fn push(&mut self, step: WorkStep, line: Option<u32>) {
        self.out.steps.push(LocatedStep { step, line });
    }

    /// The task's value of `original` in `cell`, recomputed here if an earlier phase made it.
    fn operand(&mut self, original: ValueId, cell: &[usize]) -> Result<ValueId, TileError> {
        if let Some(value) = self.known[original.0 as usize] {
            return Ok(value);
        }
        let index = self.producer[&original.0];
        let line = self.unit.steps[index].line;
        if self.per_task[original.0 as usize] {
            return Err(expand_error(line, LoweringReason::ReadBeforePhase { value: original.0 }));
        }
        self.emit(index, cell, None)?;
        self.known[original.0 as usize].ok_or_else(|| expand_error(line, LoweringReason::RecomputedValue))
    }

    /// Emits step `index` for `cell`; `position` is the cell's place in the task (joined reductions
    /// start their accumulator at the first cell).
    pub(super) fn emit(&mut self, index: usize, cell: &[usize], position: Option<usize>) -> Result<(), TileError> {
        let located = &self.unit.steps[index];
        let line = located.line;
        let step = match &located.step {
            WorkStep::Load { region, output } => {
                let value = &self.unit.values[output.0 as usize];
                let valid = self.grid.parts(value, cell, |(_, _, valid)| valid);
                if valid.contains(&0) {
                    return Err(expand_error(line, LoweringReason::EmptyLoad));
                }
                let offsets = self.moved(&region.offsets, value, cell);
                let region = GmRegion { tensor: region.tensor, offsets, shape: valid };
                WorkStep::Load { region, output: self.new_value(*output, cell) }
            }
            WorkStep::Store { input, region, accumulate } => {
                let value = &self.unit.values[input.0 as usize];
                let (lead, dims) = (self.grid.lead(value), cell.len().min(self.grid.rank()));
                let shape: Dims = (region.shape.iter().zip(lead..dims))
                    .map(|(&size, dim)| {
                        let (offset, extent, _) = self.grid.part(value, dim, cell[dim]);
                        size.saturating_sub(offset).min(extent)
                    })
                    .collect();
                if shape.contains(&0) {
                    return Ok(());
                }
                let offsets = self.moved(&region.offsets, value, cell);
                let input = self.operand(*input, cell)?;
                WorkStep::Store {
                    input,
                    region: GmRegion { tensor: region.tensor, offsets, shape },
                    accumulate: *accumulate,
                }
            }
            WorkStep::Reduce { op, input, dims, output }
                if !self.grid.per_task(&self.unit.values[input.0 as usize])
                    && self.grid.per_task(&self.unit.values[output.0 as usize]) =>
            {
                return self.accumulate(index, *op, *input, dims, *output, cell, position);
            }
            other => {
                let (reads, written) = other.values();
                let mut mapped = StepReads::new();
                for &value in &reads {
                    mapped.push(self.operand(value, cell)?);
                }
                let output = written.expect("the other steps write a value");
                let new_output = self.new_value(output, cell);
                let map = |value: &ValueId| mapped[reads.iter().position(|read| read == value).expect("a read")];
                let operand = |operand: &WorkOperand| match operand {
                    WorkOperand::Tile(value) => WorkOperand::Tile(map(value)),
                    scalar => *scalar,
                };
                match other {
                    WorkStep::Unary { op, input, .. } => {
                        WorkStep::Unary { op: *op, input: map(input), output: new_output }
                    }
                    WorkStep::Binary { op, lhs, rhs, .. } => {
                        WorkStep::Binary { op: *op, lhs: operand(lhs), rhs: operand(rhs), output: new_output }
                    }
                    WorkStep::Clip { input, low, high, .. } => {
                        WorkStep::Clip { input: map(input), low: *low, high: *high, output: new_output }
                    }
                    WorkStep::Cast { input, .. } => WorkStep::Cast { input: map(input), output: new_output },
                    WorkStep::Reduce { op, input, dims, .. } => {
                        WorkStep::Reduce { op: *op, input: map(input), dims: dims.clone(), output: new_output }
                    }
                    WorkStep::Vector { op, inputs, .. } => WorkStep::Vector {
                        op: op.clone(),
                        inputs: inputs.iter().map(operand).collect(),
                        output: new_output,
                    },
                    WorkStep::Load { .. } | WorkStep::Store { .. } | WorkStep::Matmul { .. } => {
                        return Err(expand_error(line, LoweringReason::Unsplittable))
                    }
                }
            }
        };
        if let Some(output) = step.output() {
            let original = located.step.output().expect("same step kind");
            self.known[original.0 as usize] = Some(output);
        }
        self.push(step, line);
        Ok(())
    }

    /// One cell's contribution to a joined reduction: its partial, combined into the accumulator.
    #[allow(clippy::too_many_arguments)]
    fn accumulate(
        &mut self,
        index: usize,
        op: ReduceOp,
        input: ValueId,
        dims: &[usize],
        output: ValueId,
        cell: &[usize],
        position: Option<usize>,
    ) -> Result<(), TileError> {
        let line = self.unit.steps[index].line;
        let combine = combiner(op)
            .ok_or_else(|| expand_error(line, LoweringReason::ReduceAcrossTiles { op: op.name().into() }))?;
        let partial_op = if op == ReduceOp::Mean { ReduceOp::Sum } else { op };
        let source = self.operand(input, cell)?;
        let partial = self.new_value(output, cell);
        self.push(WorkStep::Reduce { op: partial_op, input: source, dims: dims.to_vec(), output: partial }, line);
        let running = match (position, self.known[output.0 as usize]) {
            (Some(0), _) | (_, None) => partial,
            (_, Some(previous)) => {
                let sum = self.new_value(output, cell);
                let step = WorkStep::Binary {
                    op: combine,
                    lhs: WorkOperand::Tile(previous),
                    rhs: WorkOperand::Tile(partial),
                    output: sum,
                };
                self.push(step, line);
                sum
            }
        };
        self.known[output.0 as usize] = Some(running);
        Ok(())
    }

    /// After the cells of `current`: a mean's accumulated sum is scaled by its valid count.
    pub(super) fn finish_reductions(&mut self, phase: &[usize], current: usize) -> Result<(), TileError> {
        for (index, located) in self.unit.steps.iter().enumerate() {
            let WorkStep::Reduce { op: ReduceOp::Mean, input, dims, output } = &located.step else { continue };
            let input_value = &self.unit.values[input.0 as usize];
            if phase[index] != current || self.grid.per_task(input_value) {
                continue;
            }
            let Some(sum) = self.known[output.0 as usize] else { continue };
            let count: usize = dims.iter().map(|&dim| input_value.valid_shape[dim]).product();
            let mean = ValueId(self.out.values.len() as u32);
            self.out.values.push(self.out.values[sum.0 as usize].clone());
            let step = WorkStep::Binary {
                op: BinaryOp::Mul,
                lhs: WorkOperand::Tile(sum),
                rhs: WorkOperand::Scalar(1.0 / count.max(1) as f64),
                output: mean,
            };
            self.push(step, located.line);
            self.known[output.0 as usize] = Some(mean);
        }
        Ok(())
    }
}
