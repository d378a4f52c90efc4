//! The tile program IR: per-core lists of instructions, each on one pipe, joined by set/wait flags,
//! over buffers declared up front with their memory, shape and dtype.

use serde::Serialize;

use super::dims::Dims;

use crate::tensor::{BinaryOp, DType, ReduceOp, UnaryOp};

use super::flag_list::FlagList;
use super::vector_ops::{VectorOp, VectorOperand};

/// The in-order instruction queues of an AI core (Ascend naming).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Pipe {
    /// GM → L1 / UB data copies.
    Mte2,
    /// L1 → L0A / L0B data copies.
    Mte1,
    /// The matrix unit: L0A × L0B → L0C.
    Cube,
    /// L0C → GM / UB copies (with format and dtype conversion on the way).
    Fixpipe,
    /// The vector unit: UB → UB.
    Vector,
    /// UB → GM data copies.
    Mte3,
    /// The scalar unit (loop control, address arithmetic).
    Scalar,
}

impl Pipe {
    /// Every pipe, in display order.
    pub const ALL: [Pipe; 7] =
        [Pipe::Mte2, Pipe::Mte1, Pipe::Cube, Pipe::Fixpipe, Pipe::Vector, Pipe::Mte3, Pipe::Scalar];

    /// The Ascend name ("MTE2", "CUBE" …).
    pub fn name(self) -> &'static str {
        match self {
            Pipe::Mte2 => "MTE2",
            Pipe::Mte1 => "MTE1",
            Pipe::Cube => "CUBE",
            Pipe::Fixpipe => "FIXPIPE",
            Pipe::Vector => "VECTOR",
            Pipe::Mte3 => "MTE3",
            Pipe::Scalar => "SCALAR",
        }
    }

    /// The position in [`Pipe::ALL`] (a dense index for per-pipe arrays).
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The memories a tile can live in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Memory {
    /// Global memory (HBM behind L2), shared by all cores.
    Gm,
    /// The per-core L1 buffer (cube operand staging).
    L1,
    /// Left cube operand buffer.
    L0A,
    /// Right cube operand buffer.
    L0B,
    /// Cube accumulator buffer.
    L0C,
    /// Unified buffer (vector operands).
    Ub,
}

impl Memory {
    /// Every on-core memory (GM excluded).
    pub const ON_CORE: [Memory; 5] = [Memory::L1, Memory::L0A, Memory::L0B, Memory::L0C, Memory::Ub];

    /// The Ascend name ("UB", "L0A" …).
    pub fn name(self) -> &'static str {
        match self {
            Memory::Gm => "GM",
            Memory::L1 => "L1",
            Memory::L0A => "L0A",
            Memory::L0B => "L0B",
            Memory::L0C => "L0C",
            Memory::Ub => "UB",
        }
    }
}

/// An index into [`TileProgram::buffers`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct BufferId(pub u32);

/// An index into [`KernelPlan::tensors`] (a tensor in GM).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct TensorId(pub u32);

/// A counting flag between two pipes of one core: the k-th wait is released by the k-th set
/// (Ascend C `SetFlag`/`WaitFlag`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Flag(pub u32);

/// A buffer in an on-core memory, allocated for the whole program (like a `TQue` slot), or for the
/// tasks of one UB group (see `group`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Buffer {
    /// A short label for traces ("x_ping", "a_l0").
    pub name: String,
    /// The memory it lives in.
    pub memory: Memory,
    /// The full tile shape (ragged tiles use a smaller valid shape per instruction).
    pub shape: Dims,
    /// The element dtype.
    pub dtype: DType,
    /// The source line that set this tile shape, for diagnostics (filled by the language).
    pub source_line: Option<u32>,
    /// 0: the buffer has its memory for the whole program. Otherwise the UB group of the tasks that
    /// use it: a core runs the tasks of one group at a time (a kernel's tasks under different vec
    /// tiles), and each group's buffers take the memory the other groups' buffers had, as pypto
    /// allocates UB per task. The program waits for every access of one group's buffers before it
    /// writes another's. (Not serialised when 0: plans of one group read as they always did.)
    #[serde(skip_serializing_if = "is_program_wide")]
    pub group: u32,
}

fn is_program_wide(group: &u32) -> bool {
    *group == 0
}

/// Bytes `buffers` (of one memory, at its `alignment`) occupy: those of group 0 all the time, and
/// the largest of the other groups, which share their memory.
pub fn grouped_bytes<'a>(buffers: impl Iterator<Item = &'a Buffer>, alignment: u64) -> u64 {
    let mut whole = 0;
    let mut groups: Vec<(u32, u64)> = Vec::new();
    for buffer in buffers {
        let bytes = buffer.bytes(alignment);
        match (buffer.group, groups.iter_mut().find(|(group, _)| *group == buffer.group)) {
            (0, _) => whole += bytes,
            (_, Some((_, total))) => *total += bytes,
            (group, None) => groups.push((group, bytes)),
        }
    }
    whole + groups.iter().map(|&(_, bytes)| bytes).max().unwrap_or(0)
}

impl Buffer {
    /// The bytes it takes in a memory whose allocation granule is `alignment`: the shape at the
    /// dtype's size, a UB/L1 column (last dim 1) padded to one granule per row, rounded up to the granule.
    pub fn bytes(&self, alignment: u64) -> u64 {
        let size = self.dtype.size_in_bytes() as u64;
        let (rows, last) = match self.shape.split_last() {
            Some((last, rest)) => (rest.iter().product::<usize>() as u64, *last as u64),
            None => (1, 1),
        };
        let row_bytes = last * size;
        let row_bytes = if last == 1 && matches!(self.memory, Memory::Ub | Memory::L1) {
            row_bytes.max(alignment)
        } else {
            row_bytes
        };
        (rows * row_bytes).div_ceil(alignment) * alignment
    }
}

/// A tensor in global memory.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GmTensor {
    /// Its name in the kernel.
    pub name: String,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its dtype.
    pub dtype: DType,
}

/// A rectangular region of a GM tensor: `offsets` per dim and the (valid) `shape` moved.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GmRegion {
    /// The tensor.
    pub tensor: TensorId,
    /// Start index per dim.
    pub offsets: Dims,
    /// Extent per dim (the valid shape of a ragged tile).
    pub shape: Dims,
}

/// What one instruction does. The pipe follows from the op and the memories involved.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum TileOp {
    /// GM region → L1 or UB buffer (MTE2).
    CopyIn { source: GmRegion, destination: BufferId },
    /// UB buffer → GM (MTE3) or L0C buffer → GM (FIXPIPE); `valid_shape` elements are moved.
    CopyOut { source: BufferId, destination: GmRegion },
    /// A sub-tile of an L1 buffer → L0A/L0B (MTE1), or L0C → UB (FIXPIPE).
    Move { source: BufferId, offsets: Dims, shape: Dims, destination: BufferId },
    /// `c[m×n] (+)= a[m×k] · b[k×n]` on the cube, `c_offsets` places the result inside `c`.
    Mmad {
        a: BufferId,
        b: BufferId,
        c: BufferId,
        c_offsets: [usize; 2],
        m: usize,
        k: usize,
        n: usize,
        accumulate: bool,
    },
    /// Element-wise unary op on a UB tile.
    Unary { op: UnaryOp, input: BufferId, output: BufferId, valid_shape: Dims },
    /// Element-wise binary op on UB tiles (same shape).
    Binary { op: BinaryOp, lhs: BufferId, rhs: BufferId, output: BufferId, valid_shape: Dims },
    /// Reduction of the last dim of a UB tile into one value per row.
    Reduce { op: ReduceOp, input: BufferId, output: BufferId, valid_shape: Dims },
    /// Dtype conversion of a UB tile.
    Cast { input: BufferId, output: BufferId, valid_shape: Dims },
    /// Scalar work of a given number of cycles (loop control, address arithmetic).
    Scalar { cycles: u64 },
    /// Element-wise binary op on UB tiles whose valid parts broadcast (numpy rules) to
    /// `valid_shape`: each operand reads its own valid shape (a `[rows, 1]` row statistic against a
    /// `[rows, columns]` tile).
    BroadcastBinary {
        op: BinaryOp,
        lhs: BufferId,
        lhs_shape: Dims,
        rhs: BufferId,
        rhs_shape: Dims,
        output: BufferId,
        valid_shape: Dims,
    },
    /// `output = op(input, scalar)`, or `op(scalar, input)` when `scalar_first`, on a UB tile.
    ScalarBinary { op: BinaryOp, input: BufferId, scalar: f64, scalar_first: bool, output: BufferId, valid_shape: Dims },
    /// `output = min(max(input, low), high)` on a UB tile; either bound may be absent.
    Clip { input: BufferId, output: BufferId, low: Option<f64>, high: Option<f64>, valid_shape: Dims },
    /// Reduction of the valid part of a UB tile over `dims`, kept as size-1 dims in `output`.
    ReduceDims { op: ReduceOp, input: BufferId, output: BufferId, dims: Dims, valid_shape: Dims },
    /// A `shape` sub-tile of an L1 buffer → L0A/L0B transposed (MTE1 load with transpose): the
    /// destination receives `shape` reversed at its origin.
    MoveTransposed { source: BufferId, offsets: Dims, shape: Dims, destination: BufferId },
    /// Like `CopyOut`, but adds the tile to what GM holds (atomic add): UB → GM (MTE3) or L0C → GM (FIXPIPE).
    /// `order` is the task's place in the kernel's program order: the functional execution adds
    /// in that order, so the rounding of a narrow output does not depend on which core ran what.
    CopyOutAccumulate { source: BufferId, destination: GmRegion, order: u32 },
    /// A selecting or structural op on UB tiles (see [`VectorOp`]): `output`'s `valid_shape`
    /// part is written.
    Vector { op: VectorOp, inputs: Vec<VectorOperand>, output: BufferId, valid_shape: Dims },
}

impl TileOp {
    /// A short op name for traces.
    pub fn name(&self) -> &'static str {
        match self {
            TileOp::CopyIn { .. } => "copy_in",
            TileOp::CopyOut { .. } => "copy_out",
            TileOp::Move { .. } => "move",
            TileOp::Mmad { .. } => "mmad",
            TileOp::Unary { op, .. } => op.name(),
            TileOp::Binary { op, .. } => op.name(),
            TileOp::Reduce { op, .. } => reduce_name(*op),
            TileOp::Cast { .. } => "cast",
            TileOp::Scalar { .. } => "scalar",
            TileOp::BroadcastBinary { op, .. } | TileOp::ScalarBinary { op, .. } => op.name(),
            TileOp::Clip { .. } => "clip",
            TileOp::ReduceDims { op, .. } => op.name(),
            TileOp::MoveTransposed { .. } => "move_transposed",
            TileOp::CopyOutAccumulate { .. } => "copy_out_add",
            TileOp::Vector { op, .. } => op.name(),
        }
    }
}

fn reduce_name(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Sum => "row_sum",
        ReduceOp::Mean => "row_mean",
        ReduceOp::Amax => "row_max",
        ReduceOp::Amin => "row_min",
        ReduceOp::Var => "row_var",
    }
}

/// One instruction: an op on a pipe, the flags it waits for before starting and sets when done.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Instruction {
    /// The pipe whose queue it sits in.
    pub pipe: Pipe,
    /// The op.
    pub op: TileOp,
    /// Flags consumed before the start.
    pub wait: FlagList,
    /// Flags set at the end.
    pub set: FlagList,
    /// Cross-core flags (indices below `KernelPlan::cross_core_flags`) consumed before the start:
    /// how a vector core waits for a cube core's result in GM on a split chip.
    pub cross_wait: FlagList,
    /// Cross-core flags set at the end.
    pub cross_set: FlagList,
    /// The kernel source line it comes from (filled by the language).
    pub source_line: Option<u32>,
}

/// The kind of core a program runs on (split 910B: cube cores and vector cores).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CoreKind {
    /// Uses the cube pipes (MTE2 → L1, MTE1, CUBE, FIXPIPE).
    Cube,
    /// Uses the vector pipes (MTE2 → UB, VECTOR, MTE3).
    Vector,
    /// Uses both (only on coupled architectures).
    Mixed,
}

impl CoreKind {
    /// The kind of a program whose instructions use the pipes of `used` (bit `Pipe::index` each).
    pub fn of_pipes(used: u8) -> CoreKind {
        let uses = |pipes: &[Pipe]| pipes.iter().any(|pipe| used >> pipe.index() & 1 == 1);
        match (uses(&[Pipe::Mte1, Pipe::Cube, Pipe::Fixpipe]), uses(&[Pipe::Vector, Pipe::Mte3])) {
            (true, true) => CoreKind::Mixed,
            (true, false) => CoreKind::Cube,
            _ => CoreKind::Vector,
        }
    }
}

/// The program of one core: buffers, flags and the instruction list in program order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TileProgram {
    /// The buffers, indexed by [`BufferId`].
    pub buffers: Vec<Buffer>,
    /// The number of flags used (indexed by [`Flag`]).
    pub flag_count: u32,
    /// Instructions in program order; each pipe runs its own ones in this order.
    pub instructions: Vec<Instruction>,
}

impl TileProgram {
    /// Which kind of core this program needs.
    pub fn core_kind(&self) -> CoreKind {
        // One pass over the pipes (a cube program has no vector instruction to stop a search early).
        CoreKind::of_pipes(self.instructions.iter().fold(0u8, |used, instruction| used | 1 << instruction.pipe.index()))
    }
}

/// A whole kernel: its GM tensors and one program per core used.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelPlan {
    /// The kernel name.
    pub name: String,
    /// Tensors in GM, indexed by [`TensorId`].
    pub tensors: Vec<GmTensor>,
    /// One program per core (core i runs `programs[i]`).
    pub programs: Vec<TileProgram>,
    /// The number of cross-core flags the programs use.
    pub cross_core_flags: u32,
    /// The UB n-buffering depth the kernel asked for when only one copy of its tiles fits UB (its
    /// tasks then run one copy at a time), `None` when the plan keeps the depth asked for.
    pub single_buffered_from: Option<usize>,
}
