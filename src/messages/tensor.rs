//! Messages of the tensor core: two shapes that do not combine, a malformed argument, an index or
//! a view past a tensor's edge. Each is the op and a typed detail (grouped by meaning), the detail
//! itself a message (`{code, params}`) the page renders inside its sentence.

use serde::Serialize;

/// A tensor error whose detail is typed (the other tensor errors are [`super::AutogradMessage`]s).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum TensorMessage {
    /// Two shapes that do not combine.
    #[serde(rename = "tensor.shape_mismatch")]
    ShapeMismatch {
        /// The op.
        op: String,
        /// The left shape.
        lhs: Vec<usize>,
        /// The right shape.
        rhs: Vec<usize>,
        /// Why.
        detail: ShapeDetail,
    },
    /// A malformed argument to a tensor op.
    #[serde(rename = "tensor.bad_argument")]
    BadArgument {
        /// The op.
        op: String,
        /// What is wrong.
        detail: ArgumentDetail,
    },
    /// An index, a view or a write past a tensor's edge.
    #[serde(rename = "tensor.out_of_bounds")]
    OutOfBounds {
        /// The op.
        op: String,
        /// Where.
        detail: BoundsDetail,
    },
}

/// Why two shapes do not combine.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum ShapeDetail {
    /// Dim `dim` of the broadcast has sizes `left` and `right`.
    #[serde(rename = "tensor.shape.broadcast")]
    Broadcast {
        /// The dim, from the left of the result.
        dim: usize,
        /// The left size there.
        left: usize,
        /// The right size there.
        right: usize,
    },
    /// A matmul operand with fewer than 2 dims.
    #[serde(rename = "tensor.shape.matmul_rank")]
    MatmulRank,
    /// A matmul whose inner dims differ.
    #[serde(rename = "tensor.shape.inner_dims")]
    InnerDims {
        /// The left operand's last dim.
        left: usize,
        /// The right operand's second-to-last dim.
        right: usize,
    },
    /// A batched matmul whose batch dims do not broadcast.
    #[serde(rename = "tensor.shape.batch_dims")]
    BatchDims {
        /// The left batch dims.
        left: Vec<usize>,
        /// The right batch dims.
        right: Vec<usize>,
    },
    /// A reshape to a shape of another element count.
    #[serde(rename = "tensor.shape.element_count")]
    ElementCount {
        /// The tensor's element count.
        count: usize,
        /// The new shape's.
        target: usize,
    },
    /// A concat of tensors that differ in a dim other than the joined one.
    #[serde(rename = "tensor.shape.concat_dims")]
    ConcatDims {
        /// The joined dim.
        dim: usize,
    },
    /// A value assigned to a slice it does not broadcast to.
    #[serde(rename = "tensor.shape.value_to_slice")]
    ValueToSlice,
    /// A clip bound that does not broadcast to the input.
    #[serde(rename = "tensor.shape.bound_to_input")]
    BoundToInput,
    /// An assemble whose tile, offsets and output differ in rank.
    #[serde(rename = "tensor.shape.assemble_rank")]
    AssembleRank {
        /// The offsets given.
        offsets: usize,
    },
    /// A scatter source smaller than its index.
    #[serde(rename = "tensor.shape.scatter_source")]
    ScatterSource,
    /// A gather/scatter index of another rank, or larger than the input off its dim.
    #[serde(rename = "tensor.shape.index_shape")]
    IndexShape {
        /// The indexed dim.
        dim: usize,
    },
}

/// A malformed argument.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum ArgumentDetail {
    /// `amax`/`amin`/`mean`/`var` over a dim of size 0.
    #[serde(rename = "tensor.argument.empty_reduction")]
    EmptyReduction,
    /// softmax of a 0-d tensor.
    #[serde(rename = "tensor.argument.needs_a_dim")]
    NeedsADim,
    /// An op with no integer result given an integer tensor.
    #[serde(rename = "tensor.argument.needs_float")]
    NeedsFloat {
        /// The tensor's dtype (`DT_INT32`).
        dtype: String,
    },
    /// A bitwise op, shift or gcd of a float tensor (or a shift or gcd of DT_BOOL).
    #[serde(rename = "tensor.argument.needs_integer")]
    NeedsInteger {
        /// The operands' dtype (`DT_FP32`).
        dtype: String,
    },
    /// `a - b` of two bool tensors.
    #[serde(rename = "tensor.argument.bool_subtract")]
    BoolSubtract,
    /// `-a` of a bool tensor.
    #[serde(rename = "tensor.argument.bool_negate")]
    BoolNegate,
    /// An integer to a negative integer power.
    #[serde(rename = "tensor.argument.negative_power")]
    NegativePower,
    /// Integer `//` or `%` by zero.
    #[serde(rename = "tensor.argument.integer_division_by_zero")]
    IntegerDivisionByZero,
    /// Integer true division (the op promotes to f32 before it gets here).
    #[serde(rename = "tensor.argument.integer_true_division")]
    IntegerTrueDivision,
    /// A gather/scatter index of a non-integer dtype.
    #[serde(rename = "tensor.argument.index_dtype")]
    IndexDtype {
        /// Its dtype.
        dtype: String,
    },
    /// topk's `k` outside `1..=size`.
    #[serde(rename = "tensor.argument.topk_k")]
    TopkK {
        /// The k given.
        k: usize,
        /// The size of the dim.
        size: usize,
        /// The dim.
        dim: usize,
    },
    /// A permute order that is not a permutation.
    #[serde(rename = "tensor.argument.not_a_permutation")]
    NotAPermutation {
        /// The order given.
        order: Vec<usize>,
        /// The rank.
        rank: usize,
    },
    /// A concat of no tensors.
    #[serde(rename = "tensor.argument.concat_nothing")]
    ConcatNothing,
    /// A slice with another number of indices than dims.
    #[serde(rename = "tensor.argument.index_count")]
    IndexCount {
        /// Indices given.
        count: usize,
        /// The rank.
        rank: usize,
    },
    /// A view whose shape, offsets or valid shape has the wrong length.
    #[serde(rename = "tensor.argument.view_entries")]
    ViewEntries {
        /// The rank.
        rank: usize,
    },
    /// A valid shape larger than the tile.
    #[serde(rename = "tensor.argument.valid_shape_larger")]
    ValidShapeLarger {
        /// The valid shape.
        valid: Vec<usize>,
        /// The tile shape.
        shape: Vec<usize>,
    },
    /// A slice step of zero.
    #[serde(rename = "tensor.argument.zero_step")]
    ZeroStep,
    /// A dim given twice.
    #[serde(rename = "tensor.argument.repeated_dim")]
    RepeatedDim {
        /// The dim.
        dim: i64,
    },
    /// Data of another length than the shape's element count.
    #[serde(rename = "tensor.argument.data_length")]
    DataLength {
        /// Values given.
        values: usize,
        /// The shape.
        shape: Vec<usize>,
        /// Its element count.
        count: usize,
    },
    /// arange with a non-finite bound or a zero step (numbers as printed: `inf`, `NaN`).
    #[serde(rename = "tensor.argument.arange")]
    Arange {
        /// The start.
        start: String,
        /// The stop.
        stop: String,
        /// The step.
        step: String,
    },
    /// `item()` of a tensor of more than one element.
    #[serde(rename = "tensor.argument.item")]
    Item {
        /// Its shape.
        shape: Vec<usize>,
    },
}

/// An index, view or write past an edge.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum BoundsDetail {
    /// A gather/scatter index outside its dim.
    #[serde(rename = "tensor.bounds.index")]
    Index {
        /// The index.
        index: i64,
        /// The dim.
        dim: usize,
        /// Its size.
        size: usize,
    },
    /// A slice outside its dim.
    #[serde(rename = "tensor.bounds.slice")]
    Slice {
        /// The dim.
        dim: usize,
        /// Its size.
        size: usize,
    },
    /// A view tile running past the edge (`fits` elements would fit).
    #[serde(rename = "tensor.bounds.view")]
    View {
        /// The tile's offset in the dim.
        offset: usize,
        /// Its elements in the dim.
        count: usize,
        /// The dim.
        dim: usize,
        /// The tensor's size there.
        size: usize,
        /// Elements that fit.
        fits: usize,
    },
    /// An assemble writing past the output's edge.
    #[serde(rename = "tensor.bounds.assemble")]
    Assemble {
        /// Elements written in the dim.
        count: usize,
        /// The offset.
        offset: usize,
        /// The dim.
        dim: usize,
        /// The output's size there.
        size: usize,
    },
}

impl TensorMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        match self {
            TensorMessage::ShapeMismatch { op, lhs, rhs, detail } => {
                format!("{op}: shapes {lhs:?} and {rhs:?} do not match: {}", detail.english())
            }
            TensorMessage::BadArgument { op, detail } => format!("{op}: {}", detail.english()),
            TensorMessage::OutOfBounds { op, detail } => format!("{op}: {}", detail.english()),
        }
    }
}

impl ShapeDetail {
    /// The detail in English.
    pub fn english(&self) -> String {
        use ShapeDetail::*;
        match self {
            Broadcast { dim, left, right } => format!(
                "dim {dim} of the broadcast has sizes {left} and {right}; broadcasting needs equal sizes or a 1"
            ),
            MatmulRank => "both operands need at least 2 dims".into(),
            InnerDims { left, right } => format!("inner dims {left} ≠ {right}"),
            BatchDims { left, right } => format!("batch dims {left:?} and {right:?} do not broadcast"),
            ElementCount { count, target } => format!("{count} elements cannot be viewed as {target}"),
            ConcatDims { dim } => format!("all dims except dim {dim} must be equal"),
            ValueToSlice => "the value must broadcast to the shape of the slice".into(),
            BoundToInput => "a bound must broadcast to the shape of the input".into(),
            AssembleRank { offsets } => format!("tile, offsets ({offsets}) and output must have the same rank"),
            ScatterSource => "src must have the rank of index and be at least as large in every dim".into(),
            IndexShape { dim } => {
                format!("index must have the rank of the input and be no larger in every dim but {dim}")
            }
        }
    }
}

impl ArgumentDetail {
    /// The detail in English.
    pub fn english(&self) -> String {
        use ArgumentDetail::*;
        const CAST_TO_FLOAT: &str = "cast it with pypto.cast(x, pypto.DT_FP32) first";
        const LOGICAL_NOT: &str = "to invert a mask use pypto.logical_not";
        match self {
            EmptyReduction => "cannot reduce over an empty dim".into(),
            NeedsADim => "needs at least one dim".into(),
            NeedsFloat { dtype } => format!("needs a float tensor, not {dtype}; {CAST_TO_FLOAT}"),
            NeedsInteger { dtype } => format!(
                "needs integer tensors (DT_INT8, DT_INT16, DT_INT32, DT_INT64 or DT_UINT8), not {dtype}; cast them with pypto.cast(x, pypto.DT_INT32) first"
            ),
            BoolSubtract => format!("subtracting two DT_BOOL tensors is not supported; {LOGICAL_NOT}"),
            BoolNegate => format!("negating a DT_BOOL tensor is not supported; {LOGICAL_NOT}"),
            NegativePower => "integers to negative integer powers are not allowed; cast to a float dtype first".into(),
            IntegerDivisionByZero => "integer division by zero (ZeroDivisionError)".into(),
            IntegerTrueDivision => "true division of integers is computed in f32".into(),
            IndexDtype { dtype } => format!(
                "index must be DT_INT32 or DT_INT64, not {dtype}; convert it with pypto.cast(index, pypto.DT_INT64)"
            ),
            TopkK { k, size, dim } => format!("k must be in 1..={size} (the size of dim {dim}), got {k}"),
            NotAPermutation { order, rank } => format!("{order:?} is not a permutation of the {rank} dims"),
            ConcatNothing => "needs at least one tensor".into(),
            IndexCount { count, rank } => format!("{count} indices for a {rank}-d tensor"),
            ViewEntries { rank } => {
                format!("shape, offsets and valid_shape need {rank} entries each, one per dim of the tensor")
            }
            ValidShapeLarger { valid, shape } => {
                format!("valid_shape {valid:?} is larger than the tile shape {shape:?}")
            }
            ZeroStep => "slice step cannot be zero".into(),
            RepeatedDim { dim } => format!("dim {dim} is repeated"),
            DataLength { values, shape, count } => {
                format!("{values} values cannot fill shape {shape:?} ({count} elements)")
            }
            Arange { start, stop, step } => {
                format!("start, stop and step must be finite and step non-zero (got {start}, {stop}, {step})")
            }
            Item { shape } => format!("only one-element tensors have an item; this one has shape {shape:?}"),
        }
    }
}

impl BoundsDetail {
    /// The detail in English.
    pub fn english(&self) -> String {
        match self {
            BoundsDetail::Index { index, dim, size } => {
                format!("index {index} is out of range for dim {dim} of size {size}")
            }
            BoundsDetail::Slice { dim, size } => format!("index out of range for dim {dim} of size {size}"),
            BoundsDetail::View { offset, count, dim, size, fits } => format!(
                "the tile at offset {offset} with {count} elements runs past the edge of dim {dim} (size {size}); pass valid_shape with {fits} in dim {dim} for a ragged last tile"
            ),
            BoundsDetail::Assemble { count, offset, dim, size } => format!(
                "writing {count} elements at offset {offset} runs past dim {dim} of the output (size {size}); give the tile a valid_shape"
            ),
        }
    }
}

impl From<TensorMessage> for super::Message {
    fn from(message: TensorMessage) -> Self {
        super::Message::Tensor(Box::new(message))
    }
}

/// The TypeScript declarations of the family's enums (the code list reads its codes from them).
pub(super) fn declarations(config: &ts_rs::Config) -> Vec<String> {
    use ts_rs::TS;
    vec![
        TensorMessage::decl(config),
        ShapeDetail::decl(config),
        ArgumentDetail::decl(config),
        BoundsDetail::decl(config),
    ]
}
