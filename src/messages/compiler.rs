//! Why the compiler cannot run a kernel on the NPU yet: the reason inside the CPU-fallback warning
//! (`npu.fallback.unsupported`), typed by meaning (a construct the tile recorder does not take, a
//! shape it cannot tile, a write it cannot order) so the page renders it in its language.

use serde::Serialize;

/// A reason the tile recorder refused a kernel.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum CompilerReason {
    /// An op with no tile form (rendered as `npu.fallback.op`).
    #[serde(rename = "npu.reason.op")]
    Op {
        /// The op.
        op: String,
    },
    /// An op with an operand of another type (a string, a list …).
    #[serde(rename = "npu.reason.operand_type")]
    OperandType {
        /// The op.
        op: String,
        /// The operand's Python type.
        type_name: String,
    },
    /// A vector op with an operand that is neither a tensor nor a number.
    #[serde(rename = "npu.reason.operand_not_tensor")]
    OperandNotTensor {
        /// The op.
        op: String,
    },
    /// An op whose operands are all numbers.
    #[serde(rename = "npu.reason.numbers_only")]
    NumbersOnly {
        /// The op.
        op: String,
    },
    /// `gather`/`scatter` with a number as index.
    #[serde(rename = "npu.reason.number_index")]
    NumberIndex {
        /// The op.
        op: String,
    },
    /// An op the recorder saw produce nothing.
    #[serde(rename = "npu.reason.no_result")]
    NoResult {
        /// The op.
        op: String,
    },
    /// A write (`x[...] =`, `assemble`, an in-place update) used as a value.
    #[serde(rename = "npu.reason.used_as_value")]
    UsedAsValue {
        /// The op.
        op: String,
    },
    /// A kernel-side op that is not part of a computation (a call, a loop bound …).
    #[serde(rename = "npu.reason.inside_computation")]
    InsideComputation,
    /// Reading with a step (`x[0:8:2]`).
    #[serde(rename = "npu.reason.index_step")]
    IndexStep,
    /// Writing with a step (`out[0:8:2] = …`).
    #[serde(rename = "npu.reason.write_step")]
    WriteStep,
    /// Writing a value that is not a tile into a region.
    #[serde(rename = "npu.reason.write_value")]
    WriteValue {
        /// The value's Python type.
        type_name: String,
    },
    /// Assigning a number to a region of an output.
    #[serde(rename = "npu.reason.number_into_region")]
    NumberIntoRegion,
    /// `transpose` with dims outside the tensor.
    #[serde(rename = "npu.reason.transpose_dims")]
    TransposeDims,
    /// `expand_clone` with a `valid_shape`.
    #[serde(rename = "npu.reason.expand_valid_shape")]
    ExpandValidShape,
    /// `expand_clone` to a shape its tile does not broadcast to.
    #[serde(rename = "npu.reason.expand_shape")]
    ExpandShape {
        /// The tile's shape.
        from: Vec<usize>,
        /// The shape asked for.
        to: Vec<usize>,
    },
    /// `reshape` of a tile with padding.
    #[serde(rename = "npu.reason.ragged_reshape")]
    RaggedReshape {
        /// The tile's shape.
        from: Vec<usize>,
        /// The shape asked for.
        to: Vec<usize>,
    },
    /// An element-wise op of tiles whose shapes do not broadcast.
    #[serde(rename = "npu.reason.tiles_broadcast")]
    TilesBroadcast {
        /// The op.
        op: String,
        /// The left tile's shape.
        lhs: Vec<usize>,
        /// The right tile's shape.
        rhs: Vec<usize>,
    },
    /// An op of a reduction taken with `keepdim=False`.
    #[serde(rename = "npu.reason.keepdim")]
    Keepdim {
        /// The op.
        op: String,
    },
    /// An operand that is a reduction taken with `keepdim=False`.
    #[serde(rename = "npu.reason.keepdim_operand")]
    KeepdimOperand,
    /// A `matmul` of tensors that are not 2-D (outside a batched matmul).
    #[serde(rename = "npu.reason.matmul_rank")]
    MatmulRank {
        /// The left operand's rank.
        left: usize,
        /// The right operand's rank.
        right: usize,
    },
    /// A batched `matmul` whose batch dims differ and are not 1.
    #[serde(rename = "npu.reason.batch_dims")]
    BatchDims {
        /// The left operand's shape.
        left: Vec<usize>,
        /// The right operand's shape.
        right: Vec<usize>,
    },
    /// A batched `matmul` whose products have different rows.
    #[serde(rename = "npu.reason.batch_ragged")]
    BatchRagged,
    /// A batched `matmul` with no product.
    #[serde(rename = "npu.reason.batch_empty")]
    BatchEmpty,
    /// A batched `matmul` operand in GM met outside a kernel's recorder.
    #[serde(rename = "npu.reason.batch_operand")]
    BatchOperand,
    /// A batch slice outside a batched `matmul`.
    #[serde(rename = "npu.reason.batch_slice")]
    BatchSlice,
    /// A `full`/`zeros`/`ones` tensor viewed.
    #[serde(rename = "npu.reason.view_of_filled")]
    ViewOfFilled,
    /// A `full`/`zeros`/`ones` tensor used other than as an operand of an element-wise op.
    #[serde(rename = "npu.reason.filled_used")]
    FilledUsed,
    /// `full`/`zeros`/`ones` of a computed tile.
    #[serde(rename = "npu.reason.fill_of_computed")]
    FillOfComputed {
        /// The op.
        op: String,
    },
    /// Writing into a `full`/`ones` tensor made in the kernel.
    #[serde(rename = "npu.reason.write_into_filled")]
    WriteIntoFilled,
    /// A view of a tensor the recorder did not see being made.
    #[serde(rename = "npu.reason.view_of_unseen")]
    ViewOfUnseen,
    /// A tensor the recorder did not see being made (`.T`, a reshape, one from outside).
    #[serde(rename = "npu.reason.unseen_tensor")]
    UnseenTensor,
    /// Writing into a tensor that is not a kernel argument.
    #[serde(rename = "npu.reason.write_not_argument")]
    WriteNotArgument,
    /// Writing a tensor the kernel also reads transposed.
    #[serde(rename = "npu.reason.write_read_transposed")]
    WriteReadTransposed {
        /// The tensor.
        name: String,
    },
    /// A tensor written through one shape and used through another.
    #[serde(rename = "npu.reason.two_shapes")]
    TwoShapes {
        /// The tensor.
        name: String,
    },
    /// A tile of another rank written into an output.
    #[serde(rename = "npu.reason.store_rank")]
    StoreRank {
        /// The tile's rank.
        tile: usize,
        /// The output's rank.
        output: usize,
    },
    /// One loop iteration reads what another writes (iterations run in any order).
    #[serde(rename = "npu.reason.iterations_overlap")]
    IterationsOverlap {
        /// The tensor.
        name: String,
        /// The reading iteration.
        reader: usize,
        /// The writing iteration.
        writer: usize,
    },
    /// A value of a tensor from before it was overwritten, needed in a later unit of work.
    #[serde(rename = "npu.reason.stale_value")]
    StaleValue {
        /// The tensor.
        name: String,
    },
    /// A tensor whose recorded definition reads the tensor itself (an op written in place into
    /// its own operand, under the same shape).
    #[serde(rename = "npu.reason.defined_by_itself")]
    DefinedByItself,
    /// A kernel returning something that is not a tensor.
    #[serde(rename = "npu.reason.return_type")]
    ReturnType {
        /// The returned value's Python type.
        type_name: String,
    },
}

impl CompilerReason {
    /// The reason in English.
    pub fn english(&self) -> String {
        use CompilerReason::*;
        match self {
            Op { op } => format!("`{op}`"),
            OperandType { op, type_name } => format!("`{op}` with a {type_name} operand"),
            OperandNotTensor { op } => format!("`{op}` with an operand that is not a tensor or a number"),
            NumbersOnly { op } => format!("`{op}` of numbers only"),
            NumberIndex { op } => format!("`{op}` with a number as index"),
            NoResult { op } => format!("`{op}` without a result"),
            UsedAsValue { op } => format!("`{op}` used as a value"),
            InsideComputation => "this op inside a computation".into(),
            IndexStep => "indexing with a step".into(),
            WriteStep => "writing with a step".into(),
            WriteValue { type_name } => format!("writing a {type_name} into a region"),
            NumberIntoRegion => "assigning a number to a region of an output (write a tile)".into(),
            TransposeDims => "`transpose` with these dims".into(),
            ExpandValidShape => "`expand_clone` with a valid_shape".into(),
            ExpandShape { from, to } => format!("`expand_clone` of a {from:?} tile to {to:?}"),
            RaggedReshape { from, to } => format!("`reshape` of a ragged {from:?} tile to {to:?}"),
            TilesBroadcast { op, lhs, rhs } => format!("`{op}` of tiles {lhs:?} and {rhs:?} (they do not broadcast)"),
            Keepdim { op } => format!("`{op}` of a reduction taken with keepdim=False (use keepdim=True)"),
            KeepdimOperand => "an op of a reduction taken with keepdim=False (use keepdim=True)".into(),
            MatmulRank { left, right } => format!("`matmul` of a {left}-D and a {right}-D tensor (not 2-D)"),
            BatchDims { left, right } => {
                format!("`matmul` of {left:?} and {right:?} (batch dims must be equal or 1)")
            }
            BatchRagged => "a batched `matmul` with ragged rows".into(),
            BatchEmpty => "a batched `matmul` with an empty batch".into(),
            BatchOperand => "a batched `matmul` operand in GM outside a kernel's recorder".into(),
            BatchSlice => "a batch slice outside a batched matmul".into(),
            ViewOfFilled => "`view` of a `full`/`zeros`/`ones` tensor".into(),
            FilledUsed => {
                "a `full`/`zeros`/`ones` tensor used other than as an operand of an element-wise op of its shape".into()
            }
            FillOfComputed { op } => {
                format!("`{op}` of a computed tile (use it as an operand of an element-wise op)")
            }
            WriteIntoFilled => {
                "writing into a `full`/`ones` tensor made in the kernel (make it with `pypto.tensor` or `zeros`)".into()
            }
            ViewOfUnseen => "`view` of a tensor the recorder did not see being made".into(),
            UnseenTensor => {
                "a tensor the recorder did not see being made (`.T`, a reshape, or a tensor from outside the kernel)"
                    .into()
            }
            WriteNotArgument => "writing into a tensor that is not a kernel argument".into(),
            WriteReadTransposed { name } => format!("writing `{name}`, which the kernel also reads transposed"),
            TwoShapes { name } => format!("`{name}` written through one shape and used through another (write one shape)"),
            StoreRank { tile, output } => format!("writing a {tile}-D tile into a {output}-D output"),
            IterationsOverlap { name, reader, writer } => {
                format!("iteration {reader} reads a region of `{name}` that iteration {writer} writes")
            }
            StaleValue { name } => format!(
                "a value made from the kernel's tensor `{name}` before it was overwritten is needed again after a new unit of work started (use it in the same pypto.loop iteration, under one tile shape)"
            ),
            DefinedByItself => {
                "a tensor whose recorded op reads the tensor itself (an op written in place into its own operand)".into()
            }
            ReturnType { type_name } => format!("returning a {type_name} from a kernel"),
        }
    }
}
