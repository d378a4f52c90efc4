//! The recorder's shared parts: why a capture cannot become tile work, and a unit under
//! construction whose steps compute tiles in "tile form" (reductions keep their dims, as on the
//! NPU).

use std::fmt;

use super::work_shapes::{broadcast, broadcast_valid};
use crate::messages::CompilerReason;
use crate::tensor::{BinaryOp, DType, ReduceOp, UnaryOp};
use crate::tile::{Dims, LocatedStep, TileValue, ValueId, WorkOperand, WorkStep, WorkUnit};

/// Why a kernel cannot be recorded as tile work: the op and its line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Unsupported {
    /// What cannot run (an op and how it was used; boxed: errors stay small).
    pub what: Box<CompilerReason>,
    /// The 1-based script line of the op.
    pub line: Option<u32>,
}

impl Unsupported {
    /// A reason at `line`.
    pub(crate) fn new(what: CompilerReason, line: Option<u32>) -> Unsupported {
        Unsupported { what: Box::new(what), line }
    }
}

impl Unsupported {
    /// The reason as a message code: an op with no tile lowering by its name; another use (an
    /// op's operands, a step) by its typed reason.
    pub(crate) fn message(&self) -> crate::messages::Message {
        use crate::messages::NpuMessage;
        match &*self.what {
            CompilerReason::Op { op } => NpuMessage::FallbackOp { op: op.clone(), line: self.line }.into(),
            what => NpuMessage::FallbackUnsupported { what: what.clone(), line: self.line }.into(),
        }
    }
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot run on the NPU yet: {}", self.what.english())?;
        if let Some(line) = self.line {
            write!(f, " at line {line}")?;
        }
        Ok(())
    }
}

/// A unit under construction.
#[derive(Default)]
pub(crate) struct UnitBuilder {
    pub unit: WorkUnit,
}

impl UnitBuilder {
    /// A new tile value.
    pub(crate) fn value(&mut self, shape: impl Into<Dims>, valid_shape: impl Into<Dims>, dtype: DType) -> ValueId {
        self.unit.values.push(TileValue { shape: shape.into(), valid_shape: valid_shape.into(), dtype });
        ValueId(self.unit.values.len() as u32 - 1)
    }

    /// The value `id`.
    pub(crate) fn tile(&self, id: ValueId) -> &TileValue {
        &self.unit.values[id.0 as usize]
    }

    /// Appends a step.
    pub(crate) fn push(&mut self, step: WorkStep, line: Option<u32>) {
        self.unit.steps.push(LocatedStep { step, line });
    }

    /// `op(input)` with the output in `dtype`.
    pub(crate) fn unary(&mut self, op: UnaryOp, input: ValueId, dtype: DType, line: Option<u32>) -> ValueId {
        let tile = self.tile(input).clone();
        let output = self.value(tile.shape.clone(), tile.valid_shape.clone(), dtype);
        self.push(WorkStep::Unary { op, input, output }, line);
        output
    }

    /// `op(lhs, rhs)` with numpy broadcasting between tiles.
    pub(crate) fn binary(
        &mut self,
        op: BinaryOp,
        lhs: WorkOperand,
        rhs: WorkOperand,
        dtype: DType,
        line: Option<u32>,
    ) -> Result<ValueId, Unsupported> {
        let shapes = |operand: &WorkOperand| match operand {
            WorkOperand::Tile(id) => (self.tile(*id).shape.clone(), self.tile(*id).valid_shape.clone()),
            WorkOperand::Scalar(_) => (Dims::new(), Dims::new()),
        };
        let ((lhs_shape, lhs_valid), (rhs_shape, rhs_valid)) = (shapes(&lhs), shapes(&rhs));
        let shape = broadcast(&lhs_shape, &rhs_shape).ok_or_else(|| {
            Unsupported::new(
                CompilerReason::TilesBroadcast {
                    op: op.name().into(),
                    lhs: lhs_shape.to_vec(),
                    rhs: rhs_shape.to_vec(),
                },
                line,
            )
        })?;
        // A broadcast dim takes the valid extent of the operand that is not size 1 there.
        let valid = broadcast_valid(&shape, &lhs_shape, &lhs_valid, &rhs_shape, &rhs_valid);
        let output = self.value(shape, valid, dtype);
        self.push(WorkStep::Binary { op, lhs, rhs, output }, line);
        Ok(output)
    }

    /// `op` over tile dims `dims`, kept as size-1 dims.
    pub(crate) fn reduce(
        &mut self,
        op: ReduceOp,
        input: ValueId,
        dims: Vec<usize>,
        dtype: DType,
        line: Option<u32>,
    ) -> ValueId {
        let tile = self.tile(input).clone();
        let keep = |shape: &[usize]| {
            shape.iter().enumerate().map(|(dim, &size)| if dims.contains(&dim) { 1 } else { size }).collect::<Vec<_>>()
        };
        let output = self.value(keep(&tile.shape), keep(&tile.valid_shape), dtype);
        self.push(WorkStep::Reduce { op, input, dims, output }, line);
        output
    }
}
