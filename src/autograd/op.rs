//! The op vocabulary of the graph: the tensor core's fieldless enums plus the non-tensor parameters
//! each primitive needs to be differentiated.

use serde::{Deserialize, Serialize};

use crate::tensor::{BinaryOp, DType, ReduceOp, ScatterMode, SliceSpec, SoftmaxOp, UnaryOp};

/// One dim of a strided slice (serialisable mirror of `tensor::SliceSpec`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct SliceRange {
    /// First index.
    pub start: usize,
    /// Distance between indices (may be negative).
    pub step: isize,
    /// Number of indices.
    pub count: usize,
}

impl SliceRange {
    /// The tensor core's spec.
    pub fn spec(self) -> SliceSpec {
        SliceSpec { start: self.start, step: self.step, count: self.count }
    }

    /// From the tensor core's spec.
    pub fn from_spec(spec: SliceSpec) -> SliceRange {
        SliceRange { start: spec.start, step: spec.step, count: spec.count }
    }
}

/// A differentiable primitive with its parameters. Composites (layer norm …) are built from these.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub enum Op {
    /// An element-wise op of one input.
    Unary(UnaryOp),
    /// An element-wise op of two broadcast inputs.
    Binary(BinaryOp),
    /// `clip(x, low, high)`.
    Clip { low: Option<f64>, high: Option<f64> },
    /// A reduction over `axes` (sorted, non-negative).
    Reduce { op: ReduceOp, axes: Vec<usize>, keepdim: bool },
    /// Softmax or log-softmax along `axis`.
    Softmax { op: SoftmaxOp, axis: usize },
    /// `op(a) @ op(b)` with optional transposes and output dtype.
    Matmul { a_trans: bool, b_trans: bool, out_dtype: Option<DType> },
    /// Same values, another shape.
    Reshape { shape: Vec<usize> },
    /// Dims reordered: output dim `i` is input dim `order[i]`.
    Permute { order: Vec<usize> },
    /// Inputs joined along `axis`.
    Concat { axis: usize },
    /// A strided slice.
    Slice { ranges: Vec<SliceRange> },
    /// `target` with a strided slice replaced by `value` (functional `x[ranges] = value`).
    AssignSlice { ranges: Vec<SliceRange> },
    /// A tile of `shape` at `offsets`; zero outside `valid_shape`.
    View { shape: Vec<usize>, offsets: Vec<usize>, valid_shape: Vec<usize> },
    /// `target` with the valid region of `tile` written at `offsets` (functional assemble).
    Assemble { offsets: Vec<usize> },
    /// Conversion to another dtype.
    Cast { dtype: DType },
    /// `where(condition, input, other)`; the condition (input 0) is a constant mask.
    Where,
    /// `gather(input, axis, index)`; the index (input 1) is a constant integer tensor.
    Gather { axis: usize },
    /// `scatter(input, axis, index, src)` (inputs: input, index, src).
    Scatter { axis: usize, mode: ScatterMode },
    /// Running sums along `axis`.
    Cumsum { axis: usize },
    /// Φ(x), the standard normal CDF: an autograd-internal primitive so that the derivative of
    /// `gelu` (Φ(x) + xφ(x)) is itself differentiable for second order.
    NormalCdf,
    /// A user op from the custom-op registry.
    Custom { name: String },
    /// A checkpointed function: only its inputs are saved; it is recomputed inside backward.
    Checkpoint { name: String },
}

impl Op {
    /// A short display name (`mul`, `sum`, `matmul`, the custom op's name …).
    pub fn name(&self) -> String {
        match self {
            Op::Unary(op) => op.name().to_string(),
            Op::Binary(op) => op.name().to_string(),
            Op::Clip { .. } => "clip".into(),
            Op::Reduce { op, .. } => op.name().to_string(),
            Op::Softmax { op: SoftmaxOp::Softmax, .. } => "softmax".into(),
            Op::Softmax { op: SoftmaxOp::LogSoftmax, .. } => "log_softmax".into(),
            Op::Matmul { .. } => "matmul".into(),
            Op::Reshape { .. } => "reshape".into(),
            Op::Permute { .. } => "permute".into(),
            Op::Concat { .. } => "concat".into(),
            Op::Slice { .. } => "slice".into(),
            Op::AssignSlice { .. } => "assign_slice".into(),
            Op::View { .. } => "view".into(),
            Op::Assemble { .. } => "assemble".into(),
            Op::Cast { .. } => "cast".into(),
            Op::Where => "where".into(),
            Op::Gather { .. } => "gather".into(),
            Op::Scatter { .. } => "scatter".into(),
            Op::Cumsum { .. } => "cumsum".into(),
            Op::NormalCdf => "normal_cdf".into(),
            Op::Custom { name } => name.clone(),
            Op::Checkpoint { name } => format!("checkpoint({name})"),
        }
    }

    /// What the gradient rule of this op reads: (all inputs, the outputs).
    pub fn saves(&self) -> SavePlan {
        const NONE: SavePlan = SavePlan { inputs: false, outputs: false };
        const INPUTS: SavePlan = SavePlan { inputs: true, outputs: false };
        const OUTPUTS: SavePlan = SavePlan { inputs: false, outputs: true };
        match self {
            Op::Unary(op) => match op {
                UnaryOp::Neg | UnaryOp::Ceil | UnaryOp::Floor | UnaryOp::Trunc | UnaryOp::Round | UnaryOp::Sign => NONE,
                UnaryOp::Exp
                | UnaryOp::Exp2
                | UnaryOp::Sqrt
                | UnaryOp::Rsqrt
                | UnaryOp::Reciprocal
                | UnaryOp::Tanh
                | UnaryOp::Sigmoid => OUTPUTS,
                UnaryOp::Abs
                | UnaryOp::Log
                | UnaryOp::Sin
                | UnaryOp::Cos
                | UnaryOp::Relu
                | UnaryOp::Silu
                | UnaryOp::GeluErf
                | UnaryOp::GeluTanh
                | UnaryOp::Erf
                | UnaryOp::Erfc
                | UnaryOp::Expm1
                | UnaryOp::Log1p
                | UnaryOp::Sinh
                | UnaryOp::Cosh
                | UnaryOp::Atan
                | UnaryOp::Asinh
                | UnaryOp::Log2
                | UnaryOp::Log10
                | UnaryOp::Tan
                | UnaryOp::Acosh
                | UnaryOp::Atanh
                | UnaryOp::Cbrt => INPUTS,
            },
            Op::Binary(op) => match op {
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::FloorDivide => NONE,
                BinaryOp::Mul | BinaryOp::Div | BinaryOp::Maximum | BinaryOp::Minimum | BinaryOp::Remainder => INPUTS,
                BinaryOp::Pow => SavePlan { inputs: true, outputs: true },
            },
            Op::Clip { .. }
            | Op::Matmul { .. }
            | Op::NormalCdf
            | Op::Checkpoint { .. }
            | Op::Where
            | Op::Gather { .. }
            | Op::Scatter { .. } => INPUTS,
            // A custom backward receives the outputs in its context.
            Op::Custom { .. } => SavePlan { inputs: true, outputs: true },
            Op::Reduce { op, .. } => match op {
                ReduceOp::Sum | ReduceOp::Mean => NONE,
                ReduceOp::Var => INPUTS,
                ReduceOp::Amax | ReduceOp::Amin => SavePlan { inputs: true, outputs: true },
            },
            Op::Softmax { .. } => OUTPUTS,
            Op::Reshape { .. }
            | Op::Permute { .. }
            | Op::Concat { .. }
            | Op::Slice { .. }
            | Op::AssignSlice { .. }
            | Op::View { .. }
            | Op::Assemble { .. }
            | Op::Cast { .. }
            | Op::Cumsum { .. } => NONE,
        }
    }
}

/// Which values an op keeps for its backward.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SavePlan {
    /// Keep every input.
    pub inputs: bool,
    /// Keep every output.
    pub outputs: bool,
}

/// Every unary op, in declaration order.
pub const ALL_UNARY: [UnaryOp; 35] = UnaryOp::ALL;

/// Every binary op.
pub const ALL_BINARY: [BinaryOp; 9] = BinaryOp::ALL;

/// Every reduction.
pub const ALL_REDUCE: [ReduceOp; 5] = ReduceOp::ALL;

/// The position of each variant in the lists above; an exhaustive match, so adding a variant to
/// the tensor core without listing it here (and so without a gradient test) does not compile.
fn catalogue_position(op: &Op) -> usize {
    match op {
        Op::Unary(unary) => match unary {
            UnaryOp::Neg => 0,
            UnaryOp::Abs => 1,
            UnaryOp::Exp => 2,
            UnaryOp::Log => 3,
            UnaryOp::Sqrt => 4,
            UnaryOp::Rsqrt => 5,
            UnaryOp::Reciprocal => 6,
            UnaryOp::Sin => 7,
            UnaryOp::Cos => 8,
            UnaryOp::Tanh => 9,
            UnaryOp::Sigmoid => 10,
            UnaryOp::Relu => 11,
            UnaryOp::Silu => 12,
            UnaryOp::GeluErf => 13,
            UnaryOp::GeluTanh => 14,
            UnaryOp::Exp2 => 15,
            UnaryOp::Erf => 16,
            UnaryOp::Erfc => 17,
            UnaryOp::Ceil => 18,
            UnaryOp::Floor => 19,
            UnaryOp::Trunc => 20,
            UnaryOp::Round => 21,
            UnaryOp::Sign => 22,
            UnaryOp::Expm1 => 23,
            UnaryOp::Log1p => 24,
            UnaryOp::Sinh => 25,
            UnaryOp::Cosh => 26,
            UnaryOp::Atan => 27,
            UnaryOp::Asinh => 28,
            UnaryOp::Log2 => 29,
            UnaryOp::Log10 => 30,
            UnaryOp::Tan => 31,
            UnaryOp::Acosh => 32,
            UnaryOp::Atanh => 33,
            UnaryOp::Cbrt => 34,
        },
        Op::Binary(binary) => match binary {
            BinaryOp::Add => 0,
            BinaryOp::Sub => 1,
            BinaryOp::Mul => 2,
            BinaryOp::Div => 3,
            BinaryOp::Pow => 4,
            BinaryOp::Maximum => 5,
            BinaryOp::Minimum => 6,
            BinaryOp::FloorDivide => 7,
            BinaryOp::Remainder => 8,
        },
        Op::Reduce { op, .. } => match op {
            ReduceOp::Sum => 0,
            ReduceOp::Mean => 1,
            ReduceOp::Amax => 2,
            ReduceOp::Amin => 3,
            ReduceOp::Var => 4,
        },
        Op::Softmax { op: SoftmaxOp::Softmax, .. } => 0,
        Op::Softmax { op: SoftmaxOp::LogSoftmax, .. } => 1,
        Op::Clip { .. }
        | Op::Matmul { .. }
        | Op::Reshape { .. }
        | Op::Permute { .. }
        | Op::Concat { .. }
        | Op::Slice { .. }
        | Op::AssignSlice { .. }
        | Op::View { .. }
        | Op::Assemble { .. }
        | Op::Cast { .. }
        | Op::Where
        | Op::Gather { .. }
        | Op::Scatter { .. }
        | Op::Cumsum { .. }
        | Op::NormalCdf
        | Op::Custom { .. }
        | Op::Checkpoint { .. } => 0,
    }
}

/// The names of every differentiable primitive (the denominator of the gradient-check coverage):
/// the tensor core's differentiable ops plus the autograd-internal `normal_cdf`.
pub fn differentiable_op_names() -> Vec<String> {
    let mut ops: Vec<Op> = Vec::new();
    ops.extend(ALL_UNARY.iter().map(|&op| Op::Unary(op)));
    ops.extend(ALL_BINARY.iter().map(|&op| Op::Binary(op)));
    ops.extend(ALL_REDUCE.iter().map(|&op| Op::Reduce { op, axes: Vec::new(), keepdim: false }));
    ops.push(Op::Softmax { op: SoftmaxOp::Softmax, axis: 0 });
    ops.push(Op::Softmax { op: SoftmaxOp::LogSoftmax, axis: 0 });
    ops.push(Op::Clip { low: None, high: None });
    ops.push(Op::Matmul { a_trans: false, b_trans: false, out_dtype: None });
    ops.push(Op::Reshape { shape: Vec::new() });
    ops.push(Op::Permute { order: Vec::new() });
    ops.push(Op::Concat { axis: 0 });
    ops.push(Op::Slice { ranges: Vec::new() });
    ops.push(Op::AssignSlice { ranges: Vec::new() });
    ops.push(Op::View { shape: Vec::new(), offsets: Vec::new(), valid_shape: Vec::new() });
    ops.push(Op::Assemble { offsets: Vec::new() });
    ops.push(Op::Cast { dtype: DType::F64 });
    ops.push(Op::Where);
    ops.push(Op::Gather { axis: 0 });
    ops.push(Op::Scatter { axis: 0, mode: ScatterMode::Replace });
    ops.push(Op::Cumsum { axis: 0 });
    ops.push(Op::NormalCdf);
    debug_assert!(ops.iter().all(|op| catalogue_position(op) < ALL_UNARY.len()));
    ops.iter().map(Op::name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_lists_every_variant_once() {
        for (position, op) in ALL_UNARY.iter().enumerate() {
            assert_eq!(catalogue_position(&Op::Unary(*op)), position);
        }
        for (position, op) in ALL_BINARY.iter().enumerate() {
            assert_eq!(catalogue_position(&Op::Binary(*op)), position);
        }
        for (position, op) in ALL_REDUCE.iter().enumerate() {
            assert_eq!(catalogue_position(&Op::Reduce { op: *op, axes: vec![], keepdim: false }), position);
        }
        let names = differentiable_op_names();
        assert_eq!(names.len(), 35 + 9 + 5 + 2 + 15);
        let unique: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
    }
}
