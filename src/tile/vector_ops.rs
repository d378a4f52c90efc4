//! The vector unit's selecting and structural ops (beyond the element-wise arithmetic of
//! `Unary`/`Binary`): comparisons into a bool mask, select by a mask (`where`), round to decimals,
//! broadcast copies (`expand_clone`), running sums along a dim, concatenation, transposes of a UB
//! tile, gathers by an index tile and the padding of a partial tile (`fillpad`). One [`VectorOp`] names the op in both the work
//! (`WorkStep::Vector`) and the tile program (`TileOp::Vector`).

use serde::Serialize;

use crate::tensor::{CompareOp, IntegerOp};

/// Passes of a `gcd` over a tile: a binary-GCD loop runs up to 2 × 32 compare/subtract/shift steps
/// for int32 operands.
const GCD_PASSES: u64 = 64;

/// A selecting or structural vector op on UB tiles.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum VectorOp {
    /// `lhs op rhs` element-wise with numpy broadcasting, into a DT_BOOL mask (compared in the
    /// operands' dtype; a scalar takes the dtype of the tile operand).
    Compare(CompareOp),
    /// An integer-only element-wise op (`bitwise_and` … `gcd`) with numpy broadcasting: inputs
    /// `[lhs, rhs]` (`[x]` for `bitwise_not`), computed in the operands' promoted integer dtype.
    Integer(IntegerOp),
    /// `where(condition, input, other)`: inputs `[condition, input, other]`, broadcast together.
    Select,
    /// `round(x, decimals)`: to the nearest multiple of 10^-decimals, ties to even (`x·10^d`,
    /// round, `/10^d`: three passes over the tile).
    Round {
        /// Decimal places (negative: tens, hundreds …).
        decimals: i64,
    },
    /// A broadcast copy of the input to the output's shape (`expand_clone`).
    Expand,
    /// Running sums along `dim` (`cumsum`): a float keeps its dtype (accumulated in f32), an
    /// integer or bool gives DT_INT64.
    CumSum {
        /// The scanned dim.
        dim: usize,
    },
    /// The inputs joined along `dim` (`concat`).
    Concat {
        /// The joined dim.
        dim: usize,
    },
    /// The input with two dims swapped (`transpose` of a computed tile).
    Transpose {
        /// The swapped dims.
        dims: [usize; 2],
    },
    /// The matrix `input[offsets…, :, :]` of a batched tile: the leading dims indexed by
    /// `offsets`, the trailing ones whole (a batch's operand of a batched matmul).
    Slice {
        /// One index per leading dim.
        offsets: Vec<usize>,
    },
    /// The input's elements in row-major order laid out in the output's shape (`reshape` of a
    /// computed tile: a copy, since UB rows are padded to whole granules).
    Reshape,
    /// The DT_INT32 indices of the `k` largest (or smallest) elements along `dim`, in order
    /// (`topk`; its values are a gather by these indices).
    TopK {
        /// How many.
        k: usize,
        /// The searched dim.
        dim: usize,
        /// Largest first (else smallest first).
        largest: bool,
    },
    /// `gather(input, dim, index)`: inputs `[input, index]`; the output has the index's shape.
    Gather {
        /// The indexed dim.
        dim: usize,
    },
    /// `fillpad(input, "constant", value)`: the input's valid region, `value` in the rest of the
    /// output (whose valid shape is the whole tile).
    FillPad {
        /// The number written past the input's valid region.
        value: f64,
    },
    /// A tile of one number (Ascend's `Duplicate`): a `full`/`zeros`/`ones` tensor a kernel uses
    /// as a tile (written into a region, a matmul operand); no inputs.
    Duplicate {
        /// The number in every element.
        value: f64,
    },
    /// `scatter(input, dim, index, src, reduce)`: inputs `[input, index, src]` (`src` a tile of the
    /// index's shape or a number); the output has the input's shape.
    Scatter {
        /// The indexed dim.
        dim: usize,
        /// How a source value combines with the element it lands on.
        mode: crate::tensor::ScatterMode,
    },
}

impl VectorOp {
    /// A short name for traces.
    pub fn name(&self) -> &'static str {
        match self {
            VectorOp::Compare(op) => op.name(),
            VectorOp::Integer(op) => op.name(),
            VectorOp::Select => "select",
            VectorOp::Round { .. } => "round",
            VectorOp::Expand => "expand",
            VectorOp::CumSum { .. } => "cumsum",
            VectorOp::Concat { .. } => "concat",
            VectorOp::Transpose { .. } => "transpose",
            VectorOp::Reshape => "reshape",
            VectorOp::Slice { .. } => "slice",
            VectorOp::TopK { .. } => "topk",
            VectorOp::Gather { .. } => "gather",
            VectorOp::Scatter { .. } => "scatter",
            VectorOp::FillPad { .. } => "fillpad",
            VectorOp::Duplicate { .. } => "duplicate",
        }
    }

    /// Whether each output element depends only on the input elements at its own (broadcast)
    /// position, so the op can be cut over the vec-tile grid like any element-wise op.
    pub fn is_elementwise(&self) -> bool {
        matches!(
            self,
            VectorOp::Compare(_)
                | VectorOp::Integer(_)
                | VectorOp::Select
                | VectorOp::Round { .. }
                | VectorOp::Expand
                | VectorOp::FillPad { .. }
                | VectorOp::Duplicate { .. }
        )
    }

    /// The dims a vec-tile cell must hold whole for this op (a scan or a join along them).
    pub fn whole_dims(&self) -> Vec<usize> {
        match self {
            VectorOp::CumSum { dim } | VectorOp::Concat { dim } | VectorOp::TopK { dim, .. } => vec![*dim],
            _ => Vec::new(),
        }
    }

    /// Passes over the output tile the vector unit makes (the cost model charges one vector
    /// instruction per pass): rounding scales, rounds and scales back; a running sum along a dim
    /// of `scanned` elements adds one slice at a time, which the cost model charges as one pass
    /// per slice of 1/`scanned` of the tile (see docs/npu-model.md).
    pub fn passes(&self) -> u64 {
        match self {
            VectorOp::Round { decimals: 0 } => 1,
            VectorOp::Round { .. } => 3,
            // The vector unit has no divide of integers: a gcd is a binary-GCD loop of compare,
            // subtract and shift passes, about twice the bits of an int32 (see docs/npu-model.md).
            VectorOp::Integer(IntegerOp::Gcd) => GCD_PASSES,
            _ => 1,
        }
    }
}

/// An operand of a [`VectorOp`] in a tile program.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum VectorOperand {
    /// A UB buffer whose leading `shape` part (its valid part) is read.
    Tile {
        /// The buffer.
        buffer: super::program::BufferId,
        /// The valid shape read from the buffer's origin.
        shape: Vec<usize>,
    },
    /// A number, broadcast (an immediate of the instruction).
    Scalar(f64),
}
