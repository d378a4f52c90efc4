//! Messages of the tensor core and the autograd layer: `backward()` without a graph, gradients of
//! the wrong shape, freed or modified saved tensors, custom ops, dims out of range, memory limits.

use serde::Serialize;

/// An autograd or tensor error's message or help.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "code", content = "params")]
pub enum AutogradMessage {
    /// `x.backward()` where the tensor named `x` does not require grad.
    #[serde(rename = "autograd.backward_without_grad")]
    BackwardWithoutGrad {
        /// The tensor's name in the script.
        name: String,
    },
    /// `backward()` on an unnamed tensor that does not require grad.
    #[serde(rename = "autograd.backward_without_grad_unnamed")]
    BackwardWithoutGradUnnamed,
    /// Help: the tensors that could have required grad.
    #[serde(rename = "autograd.tensors_without_grad")]
    TensorsWithoutGrad {
        /// Their names, comma-separated.
        names: String,
        /// The first of them.
        first: String,
    },
    /// Help: create the inputs with `requires_grad=True`.
    #[serde(rename = "autograd.create_with_grad")]
    CreateWithGrad,
    /// `backward()` without a gradient on a non-scalar output.
    #[serde(rename = "autograd.non_scalar_output")]
    NonScalarOutput {
        /// The output's shape.
        shape: Vec<usize>,
    },
    /// A gradient of the wrong shape.
    #[serde(rename = "autograd.gradient_shape")]
    GradientShape {
        /// The op.
        op: String,
        /// The value's shape.
        expected: Vec<usize>,
        /// The gradient's shape.
        got: Vec<usize>,
    },
    /// A second backward through freed saved tensors.
    #[serde(rename = "autograd.saved_tensors_freed")]
    SavedTensorsFreed {
        /// The op.
        op: String,
    },
    /// A saved tensor modified in place after the forward.
    #[serde(rename = "autograd.saved_tensor_modified")]
    SavedTensorModified {
        /// The op.
        op: String,
    },
    /// A custom op without a backward was differentiated.
    #[serde(rename = "autograd.gradient_not_implemented")]
    GradientNotImplemented {
        /// The op.
        name: String,
    },
    /// No custom op of that name.
    #[serde(rename = "autograd.unknown_custom_op")]
    UnknownCustomOp {
        /// The name.
        name: String,
    },
    /// A matmul whose inner dims differ.
    #[serde(rename = "tensor.matmul_inner_dims")]
    MatmulInnerDims {
        /// The left shape.
        lhs: Vec<usize>,
        /// The right shape.
        rhs: Vec<usize>,
        /// The left operand's inner dim.
        left: usize,
        /// The right operand's inner dim.
        right: usize,
    },
    /// A dim outside `-rank..rank`.
    #[serde(rename = "tensor.dim_out_of_range")]
    DimOutOfRange {
        /// The op.
        op: String,
        /// The dim.
        dim: i64,
        /// The tensor's rank.
        rank: usize,
        /// The lowest dim allowed (`-rank`).
        low: i64,
        /// The highest dim allowed (`rank - 1`).
        high: i64,
    },
    /// A dim of a 0-d tensor.
    #[serde(rename = "tensor.dim_of_scalar")]
    DimOfScalar {
        /// The op.
        op: String,
        /// The dim.
        dim: i64,
    },
    /// A shape with more elements than the platform addresses.
    #[serde(rename = "tensor.too_many_elements")]
    TooManyElements {
        /// The op.
        op: String,
        /// The shape.
        shape: Vec<usize>,
    },
    /// An allocation over the tensor memory limit.
    #[serde(rename = "tensor.allocation_too_large")]
    AllocationTooLarge {
        /// The op.
        op: String,
        /// The size, as printed ("1.5 GiB").
        bytes: String,
        /// The limit, as printed.
        limit: String,
    },
}

impl AutogradMessage {
    /// The message in English.
    pub fn english(&self) -> String {
        use AutogradMessage::*;
        match self {
            BackwardWithoutGrad { name } => format!(
                "backward: '{name}' does not require grad: no tensor it was computed from has requires_grad=True"
            ),
            BackwardWithoutGradUnnamed => {
                "backward: this tensor does not require grad: no tensor it was computed from has requires_grad=True".into()
            }
            TensorsWithoutGrad { names, first } => format!(
                "tensors here without requires_grad: {names}; create the inputs you want gradients for with it, e.g. {first} = pypto.as_tensor(…, requires_grad=True)"
            ),
            CreateWithGrad => "create the inputs you want gradients for with requires_grad=True, e.g. pypto.as_tensor(data, requires_grad=True)".into(),
            NonScalarOutput { shape } => format!(
                "backward: the output has shape {shape:?}; backward() without a gradient needs a scalar (pass a gradient of the output's shape)"
            ),
            GradientShape { op, expected, got } => format!("{op}: gradient of shape {got:?} for a value of shape {expected:?}"),
            SavedTensorsFreed { op } => format!(
                "backward through {op}: its saved tensors were freed by an earlier backward; pass retain_graph=True to the first backward to call it twice"
            ),
            SavedTensorModified { op } => {
                format!("backward through {op}: a tensor it saved was modified in place after the forward")
            }
            GradientNotImplemented { name } => format!("gradient not implemented for {name}"),
            UnknownCustomOp { name } => format!("no custom op named {name} is registered"),
            MatmulInnerDims { lhs, rhs, left, right } => {
                format!("matmul: shapes {lhs:?} and {rhs:?} do not match: inner dims {left} ≠ {right}")
            }
            DimOutOfRange { op, dim, rank, low, high } => {
                format!("{op}: dim {dim} is out of range for a {rank}-d tensor (expected {low}..={high})")
            }
            DimOfScalar { op, dim } => format!("{op}: dim {dim} is out of range for a 0-d tensor"),
            TooManyElements { op, shape } => {
                format!("{op}: shape {shape:?} has more elements than this platform can address")
            }
            AllocationTooLarge { op, bytes, limit } => {
                format!("{op}: allocating {bytes} exceeds the tensor memory limit of {limit}")
            }
        }
    }
}

impl From<AutogradMessage> for super::Message {
    fn from(message: AutogradMessage) -> Self {
        super::Message::Autograd(message)
    }
}
