//! Building tile programs: declare buffers and flags, push ops (the pipe follows from the op), and
//! rotate n-buffered slots with the producer/consumer flags they need.

use std::fmt;

use crate::messages::{LoweringReason, Message, NpuMessage};
use crate::tensor::DType;

use super::program::{Buffer, BufferId, Flag, Instruction, Memory, Pipe, TileOp, TileProgram};

/// A malformed tile program (an op between memories no pipe connects, an unknown buffer …).
#[derive(Clone, Debug, PartialEq)]
pub enum TileError {
    /// The op cannot run between these memories.
    InvalidOp { op: &'static str, detail: LoweringReason, source_line: Option<u32> },
}

impl TileError {
    /// The error as the CPU-fallback reason (`npu.fallback.lowering`), typed for the page.
    pub fn message(&self) -> Message {
        let TileError::InvalidOp { op, detail, source_line } = self;
        NpuMessage::FallbackLowering { op: op.to_string(), reason: detail.clone(), line: *source_line }.into()
    }
}

impl fmt::Display for TileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TileError::InvalidOp { op, detail, source_line } => {
                write!(f, "{op}: {}", detail.english())?;
                if let Some(line) = source_line {
                    write!(f, " (line {line})")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for TileError {}

/// Builds one [`TileProgram`] instruction by instruction.
#[derive(Debug, Default)]
pub struct ProgramBuilder {
    buffers: Vec<Buffer>,
    flag_count: u32,
    instructions: Vec<Instruction>,
    source_line: Option<u32>,
}

impl ProgramBuilder {
    /// An empty program.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the source line attached to the buffers and instructions pushed from now on.
    pub fn at_line(&mut self, line: Option<u32>) {
        self.source_line = line;
    }

    /// Declares a buffer of `shape` elements of `dtype` in `memory`.
    pub fn buffer(&mut self, name: &str, memory: Memory, shape: &[usize], dtype: DType) -> BufferId {
        self.grouped_buffer(name, memory, shape, dtype, 0)
    }

    /// Declares a buffer of UB group `group` (`Buffer::group`; 0: for the whole program).
    pub fn grouped_buffer(
        &mut self,
        name: &str,
        memory: Memory,
        shape: &[usize],
        dtype: DType,
        group: u32,
    ) -> BufferId {
        self.buffers.push(Buffer {
            name: name.to_string(),
            memory,
            shape: crate::tile::Dims::from(shape),
            dtype,
            source_line: self.source_line,
            group,
        });
        BufferId(self.buffers.len() as u32 - 1)
    }

    /// The group of a declared buffer (`Buffer::group`).
    pub fn buffer_group(&self, buffer: BufferId) -> u32 {
        self.buffers.get(buffer.0 as usize).map_or(0, |declared| declared.group)
    }

    /// A fresh flag.
    pub fn flag(&mut self) -> Flag {
        self.flag_count += 1;
        Flag(self.flag_count - 1)
    }

    /// The memory of a declared buffer.
    pub fn memory_of(&self, buffer: BufferId) -> Option<Memory> {
        self.buffers.get(buffer.0 as usize).map(|declared| declared.memory)
    }

    /// Appends `op`, waiting for `wait` before it starts and setting `set` when it ends.
    pub fn push(&mut self, op: TileOp, wait: Vec<Flag>, set: Vec<Flag>) -> Result<Pipe, TileError> {
        self.push_cross(op, wait, set, Vec::new(), Vec::new())
    }

    /// Appends `op` with core-local flags and cross-core flags (see `Instruction::cross_wait`).
    pub fn push_cross(
        &mut self,
        op: TileOp,
        wait: Vec<Flag>,
        set: Vec<Flag>,
        cross_wait: Vec<Flag>,
        cross_set: Vec<Flag>,
    ) -> Result<Pipe, TileError> {
        let pipe = pipe_of(&op, &self.buffers, self.source_line)?;
        self.instructions.push(Instruction {
            pipe,
            op,
            wait: wait.into(),
            set: set.into(),
            cross_wait: cross_wait.into(),
            cross_set: cross_set.into(),
            source_line: self.source_line,
        });
        Ok(pipe)
    }

    /// The number of instructions pushed so far.
    pub fn len(&self) -> usize {
        self.instructions.len()
    }

    /// Whether no instruction was pushed yet.
    pub fn is_empty(&self) -> bool {
        self.instructions.is_empty()
    }

    /// An instruction already pushed, to add flags once a later consumer is known.
    pub fn instruction_mut(&mut self, index: usize) -> Option<&mut Instruction> {
        self.instructions.get_mut(index)
    }

    /// The finished program.
    pub fn finish(self) -> TileProgram {
        TileProgram { buffers: self.buffers, flag_count: self.flag_count, instructions: self.instructions }
    }
}

/// The pipe that executes `op`, or an error when no pipe connects its memories.
pub fn pipe_of(op: &TileOp, buffers: &[Buffer], source_line: Option<u32>) -> Result<Pipe, TileError> {
    let invalid = |detail: LoweringReason| TileError::InvalidOp { op: op.name(), detail, source_line };
    let memory = |buffer: &BufferId| {
        buffers
            .get(buffer.0 as usize)
            .map(|declared| declared.memory)
            .ok_or_else(|| invalid(LoweringReason::UnknownBuffer { buffer: buffer.0 }))
    };
    let expect = |buffer: &BufferId, allowed: &[Memory], pipe: Pipe| -> Result<Pipe, TileError> {
        let found = memory(buffer)?;
        if allowed.contains(&found) {
            Ok(pipe)
        } else {
            let allowed = allowed.iter().map(|memory| memory.name().to_string()).collect();
            Err(invalid(LoweringReason::OperandMemory { found: found.name().into(), allowed }))
        }
    };
    let no_move = |from: Memory, to: Memory, transposed: bool| {
        let (from, to) = (from.name().to_string(), to.name().to_string());
        Err(invalid(if transposed {
            LoweringReason::NoTransposedMove { from, to }
        } else {
            LoweringReason::NoMove { from, to }
        }))
    };
    match op {
        TileOp::CopyIn { destination, .. } => expect(destination, &[Memory::L1, Memory::Ub], Pipe::Mte2),
        TileOp::CopyOut { source, .. } | TileOp::CopyOutAccumulate { source, .. } => match memory(source)? {
            Memory::Ub => Ok(Pipe::Mte3),
            Memory::L0C => Ok(Pipe::Fixpipe),
            other => Err(invalid(LoweringReason::NoCopyOut { memory: other.name().into() })),
        },
        TileOp::Move { source, destination, .. } => match (memory(source)?, memory(destination)?) {
            (Memory::L1, Memory::L0A | Memory::L0B) => Ok(Pipe::Mte1),
            (Memory::L0C, Memory::Ub | Memory::L1) => Ok(Pipe::Fixpipe),
            (from, to) => no_move(from, to, false),
        },
        TileOp::Mmad { a, b, c, .. } => {
            expect(a, &[Memory::L0A], Pipe::Cube)?;
            expect(b, &[Memory::L0B], Pipe::Cube)?;
            expect(c, &[Memory::L0C], Pipe::Cube)
        }
        TileOp::MoveTransposed { source, destination, .. } => match (memory(source)?, memory(destination)?) {
            (Memory::L1, Memory::L0A | Memory::L0B) => Ok(Pipe::Mte1),
            (from, to) => no_move(from, to, true),
        },
        TileOp::Unary { input, output, .. }
        | TileOp::Reduce { input, output, .. }
        | TileOp::Cast { input, output, .. }
        | TileOp::ScalarBinary { input, output, .. }
        | TileOp::Clip { input, output, .. }
        | TileOp::ReduceDims { input, output, .. } => {
            expect(input, &[Memory::Ub], Pipe::Vector)?;
            expect(output, &[Memory::Ub], Pipe::Vector)
        }
        TileOp::Binary { lhs, rhs, output, .. } | TileOp::BroadcastBinary { lhs, rhs, output, .. } => {
            expect(lhs, &[Memory::Ub], Pipe::Vector)?;
            expect(rhs, &[Memory::Ub], Pipe::Vector)?;
            expect(output, &[Memory::Ub], Pipe::Vector)
        }
        TileOp::Scalar { .. } => Ok(Pipe::Scalar),
        TileOp::Vector { inputs, output, .. } => {
            for input in inputs {
                if let super::vector_ops::VectorOperand::Tile { buffer, .. } = input {
                    expect(buffer, &[Memory::Ub], Pipe::Vector)?;
                }
            }
            expect(output, &[Memory::Ub], Pipe::Vector)
        }
    }
}

/// An n-buffered ring of slots between one producer pipe and one consumer pipe. Filling slot `s`
/// for the j-th time (j ≥ 1) must wait until its (j-1)-th contents were consumed.
#[derive(Clone, Debug)]
pub struct SlotRing {
    /// The buffers, one per slot.
    pub slots: Vec<BufferId>,
    ready: Vec<Flag>,
    free: Vec<Flag>,
    fills: usize,
}

impl SlotRing {
    /// `count` slots of `shape` in `memory` named `name_0`, `name_1` …
    pub fn new(
        builder: &mut ProgramBuilder,
        name: &str,
        count: usize,
        memory: Memory,
        shape: &[usize],
        dtype: DType,
    ) -> Self {
        let count = count.max(1);
        let slots = (0..count).map(|slot| builder.buffer(&format!("{name}_{slot}"), memory, shape, dtype)).collect();
        let ready = (0..count).map(|_| builder.flag()).collect();
        let free = (0..count).map(|_| builder.flag()).collect();
        SlotRing { slots, ready, free, fills: 0 }
    }

    /// The next slot to fill, with the flags the filling instruction waits for and sets.
    pub fn fill(&mut self) -> (usize, Vec<Flag>, Vec<Flag>) {
        let slot = self.fills % self.slots.len();
        let wait = if self.fills >= self.slots.len() { vec![self.free[slot]] } else { Vec::new() };
        self.fills += 1;
        (slot, wait, vec![self.ready[slot]])
    }

    /// The flag the first consumer of `slot` waits for.
    pub fn ready(&self, slot: usize) -> Flag {
        self.ready[slot]
    }

    /// The flag the last consumer of `slot` sets.
    pub fn free(&self, slot: usize) -> Flag {
        self.free[slot]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile::program::{GmRegion, TensorId};

    #[test]
    fn pipes_follow_memories() {
        let mut builder = ProgramBuilder::new();
        let l1 = builder.buffer("a", Memory::L1, &[16, 16], DType::F16);
        let l0a = builder.buffer("a0", Memory::L0A, &[16, 16], DType::F16);
        let region = GmRegion { tensor: TensorId(0), offsets: [0, 0].into(), shape: [16, 16].into() };
        assert_eq!(
            builder.push(TileOp::CopyIn { source: region.clone(), destination: l1 }, vec![], vec![]),
            Ok(Pipe::Mte2)
        );
        let moved = TileOp::Move { source: l1, offsets: [0, 0].into(), shape: [16, 16].into(), destination: l0a };
        assert_eq!(builder.push(moved, vec![], vec![]), Ok(Pipe::Mte1));
        // GM → L0A directly is not a path this IR offers.
        assert!(builder.push(TileOp::CopyIn { source: region, destination: l0a }, vec![], vec![]).is_err());
    }

    #[test]
    fn ring_waits_only_after_the_first_round() {
        let mut builder = ProgramBuilder::new();
        let mut ring = SlotRing::new(&mut builder, "x", 2, Memory::Ub, &[8, 16], DType::F32);
        let first = ring.fill();
        let second = ring.fill();
        let third = ring.fill();
        assert!(first.1.is_empty() && second.1.is_empty());
        assert_eq!((third.0, third.1.clone()), (0, vec![ring.free(0)]));
    }
}
