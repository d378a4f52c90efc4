//! Why a kernel's backward cannot be generated as tile ops (the derivation's `NotDerivable`): the
//! reason inside `npu.no_generated_backward` and `npu.generated_backward_on_cpu`, typed by the
//! construct (an op whose gradient reads values, an in-place update, two stores into one region …)
//! so the page renders it in its language.

use serde::Serialize;

/// A construct the backward derivation cannot turn into tile ops.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum DerivationReason {
    /// An op whose gradient reads values (no op-level adjoint).
    #[serde(rename = "npu.derive.no_adjoint")]
    NoAdjoint {
        /// The op.
        op: String,
    },
    /// The same tensor passed as two arguments.
    #[serde(rename = "npu.derive.same_tensor")]
    SameTensor,
    /// A jit kernel writing into an argument that requires grad.
    #[serde(rename = "npu.derive.writes_grad_argument")]
    WritesGradArgument {
        /// The argument's position.
        index: usize,
    },
    /// A store into a tensor the kernel made.
    #[serde(rename = "npu.derive.store_into_made")]
    StoreIntoMade,
    /// A tile written into a region of another rank.
    #[serde(rename = "npu.derive.region_rank")]
    RegionRank,
    /// An in-place update (`t += …`).
    #[serde(rename = "npu.derive.in_place")]
    InPlace,
    /// An index that drops a dim.
    #[serde(rename = "npu.derive.index_drops_dim")]
    IndexDropsDim,
    /// A read of an argument the kernel also writes.
    #[serde(rename = "npu.derive.read_of_written")]
    ReadOfWritten,
    /// Two stores into the same region of an output.
    #[serde(rename = "npu.derive.overlapping_stores")]
    OverlappingStores,
    /// A view of a computed tile.
    #[serde(rename = "npu.derive.view_of_computed")]
    ViewOfComputed,
    /// A gradient that is a number where a tensor is needed.
    #[serde(rename = "npu.derive.number_gradient")]
    NumberGradient,
    /// A gradient of another rank than its input (a broadcast across ranks).
    #[serde(rename = "npu.derive.rank_broadcast")]
    RankBroadcast {
        /// The gradient's shape.
        gradient: Vec<usize>,
        /// The input's shape.
        input: Vec<usize>,
    },
    /// An element-wise op of gradient terms whose shapes do not broadcast.
    #[serde(rename = "npu.derive.shapes")]
    Shapes {
        /// The op.
        op: String,
        /// The left shape.
        lhs: Vec<usize>,
        /// The right shape.
        rhs: Vec<usize>,
    },
    /// The adjoint of a matmul of tensors that are not 2-D.
    #[serde(rename = "npu.derive.matmul_rank")]
    MatmulRank {
        /// The left operand's rank.
        left: usize,
        /// The right operand's rank.
        right: usize,
    },
    /// The adjoint of a reduction taken with `keepdim=False` inside the kernel.
    #[serde(rename = "npu.derive.keepdim")]
    Keepdim,
    /// A compare mask of shapes that do not broadcast.
    #[serde(rename = "npu.derive.mask_shapes")]
    MaskShapes {
        /// The left shape.
        lhs: Vec<usize>,
        /// The right shape.
        rhs: Vec<usize>,
    },
    /// A mask that does not broadcast over the gradient it selects.
    #[serde(rename = "npu.derive.mask_over_gradient")]
    MaskOverGradient {
        /// The mask's shape.
        mask: Vec<usize>,
        /// The gradient's shape.
        gradient: Vec<usize>,
    },
    /// A derivative rule reading an operand the op does not have.
    #[serde(rename = "npu.derive.missing_operand")]
    MissingOperand,
    /// A derivative rule reading the result of an op without one.
    #[serde(rename = "npu.derive.no_result")]
    NoResult,
    /// `clip`'s gradient lost between its bounds.
    #[serde(rename = "npu.derive.clip_lost")]
    ClipLost,
    /// Folding a gradient of numbers failed (the tensor error).
    #[serde(rename = "npu.derive.arithmetic")]
    Arithmetic {
        /// The error.
        error: Box<super::Message>,
    },
}

impl DerivationReason {
    /// The reason in English.
    pub fn english(&self) -> String {
        use DerivationReason::*;
        match self {
            NoAdjoint { op } => format!("`{op}` has no op-level adjoint (its gradient reads values)"),
            SameTensor => "the same tensor passed as two arguments".into(),
            WritesGradArgument { index } => {
                format!("writes into argument {index}, which requires grad (write into a new output)")
            }
            StoreIntoMade => "a store into a tensor the kernel made (store the result into an output argument)".into(),
            RegionRank => "a tile written into a region of another rank".into(),
            InPlace => "an in-place update (`t += …`; write `t = t + …`)".into(),
            IndexDropsDim => "an index that drops a dim (keep it with a slice: x[i:i+1])".into(),
            ReadOfWritten => "a read of an argument the kernel also writes".into(),
            OverlappingStores => "two stores into the same region of an output".into(),
            ViewOfComputed => "a view of a computed tile (view the kernel's argument instead)".into(),
            NumberGradient => "a gradient that is a number".into(),
            RankBroadcast { gradient, input } => {
                format!("a gradient of shape {gradient:?} for an input of shape {input:?} (broadcast across ranks)")
            }
            Shapes { op, lhs, rhs } => format!("`{op}` of shapes {lhs:?} and {rhs:?}"),
            MatmulRank { left, right } => {
                format!("the adjoint of a matmul of a {left}-D and a {right}-D tensor (not 2-D)")
            }
            Keepdim => {
                "the adjoint of a reduction taken with keepdim=False inside the kernel (use keepdim=True)".into()
            }
            MaskShapes { lhs, rhs } => format!("a mask of shapes {lhs:?} and {rhs:?}"),
            MaskOverGradient { mask, gradient } => format!("a mask {mask:?} over a gradient {gradient:?}"),
            MissingOperand => "an operand the rule reads".into(),
            NoResult => "an op without a result".into(),
            ClipLost => "clip's lost gradient".into(),
            Arithmetic { error } => format!("folding a gradient of numbers failed: {}", error.english()),
        }
    }
}
