//! The differentiable mirror of the tensor core's ops: each runs the forward kernel on the tensors
//! and records itself only when an input requires grad.

use super::error::{AutogradError, Result};
use super::mode::is_grad_enabled;
use super::op::{Op, SliceRange};
use super::var::{record, record_one, Var};
use crate::tensor::{normalize_dim, normalize_dims, BinaryOp, DType, ReduceOp, SliceSpec, SoftmaxOp, Tensor, UnaryOp};

impl Var {
    /// An element-wise op of one input.
    pub fn unary(&self, op: UnaryOp) -> Result<Var> {
        Ok(record_one(Op::Unary(op), &[self], self.tensor().unary(op)?))
    }

    /// An element-wise op with numpy broadcasting.
    pub fn binary(&self, op: BinaryOp, other: &Var) -> Result<Var> {
        Ok(record_one(Op::Binary(op), &[self, other], self.tensor().binary(op, other.tensor())?))
    }

    /// `self op other`, giving up both: as [`Var::binary`], and when no graph records the op (no
    /// input requires grad, or grad mode is off) the result may take over an operand's buffer
    /// ([`Tensor::binary_owned`]). A recorded op keeps its inputs for backward, so it never does.
    pub fn binary_owned(self, op: BinaryOp, other: Var) -> Result<Var> {
        if is_grad_enabled() && (self.requires_grad() || other.requires_grad()) {
            return self.binary(op, &other);
        }
        Ok(Var::constant(self.into_tensor().binary_owned(op, other.into_tensor())?))
    }

    /// `op(self)`, giving up `self`: as [`Var::unary`], and when no graph records the op the result
    /// may take over its buffer ([`Tensor::unary_owned`]).
    pub fn unary_owned(self, op: UnaryOp) -> Result<Var> {
        if is_grad_enabled() && self.requires_grad() {
            return self.unary(op);
        }
        Ok(Var::constant(self.into_tensor().unary_owned(op)?))
    }

    /// `clip(x, low, high)`; the gradient passes where `low ≤ x ≤ high` (bounds included, as PyTorch).
    pub fn clip(&self, low: Option<f64>, high: Option<f64>) -> Result<Var> {
        Ok(record_one(Op::Clip { low, high }, &[self], self.tensor().clip(low, high)?))
    }

    /// A reduction over `dims` (all when `None`).
    pub fn reduce(&self, op: ReduceOp, dims: Option<&[isize]>, keepdim: bool) -> Result<Var> {
        let output = self.tensor().reduce(op, dims, keepdim)?;
        let axes = match dims {
            Some(dims) => normalize_dims(op.name(), dims, self.tensor().rank())?,
            None => (0..self.tensor().rank()).collect(),
        };
        Ok(record_one(Op::Reduce { op, axes, keepdim }, &[self], output))
    }

    /// Softmax or log-softmax along `dim`.
    pub fn softmax_like(&self, op: SoftmaxOp, dim: isize) -> Result<Var> {
        let output = self.tensor().softmax_like(op, dim)?;
        let axis = normalize_dim("softmax", dim, self.tensor().rank())?;
        Ok(record_one(Op::Softmax { op, axis }, &[self], output))
    }

    /// `op(self) @ op(other)`.
    pub fn matmul(&self, other: &Var, a_trans: bool, b_trans: bool, out_dtype: Option<DType>) -> Result<Var> {
        let output = self.tensor().matmul(other.tensor(), a_trans, b_trans, out_dtype)?;
        Ok(record_one(Op::Matmul { a_trans, b_trans, out_dtype }, &[self, other], output))
    }

    /// Same values, another shape.
    pub fn reshape(&self, shape: &[usize]) -> Result<Var> {
        Ok(record_one(Op::Reshape { shape: shape.to_vec() }, &[self], self.tensor().reshape(shape)?))
    }

    /// Reorders dims.
    pub fn permute(&self, order: &[usize]) -> Result<Var> {
        Ok(record_one(Op::Permute { order: order.to_vec() }, &[self], self.tensor().permute(order)?))
    }

    /// Swaps two dims (a permute).
    pub fn transpose(&self, dim0: isize, dim1: isize) -> Result<Var> {
        let a = normalize_dim("transpose", dim0, self.tensor().rank())?;
        let b = normalize_dim("transpose", dim1, self.tensor().rank())?;
        let mut order: Vec<usize> = (0..self.tensor().rank()).collect();
        order.swap(a, b);
        self.permute(&order)
    }

    /// Joins values along `dim`.
    pub fn concat(values: &[Var], dim: isize) -> Result<Var> {
        let tensors: Vec<Tensor> = values.iter().map(|value| value.tensor().clone()).collect();
        let output = Tensor::concat(&tensors, dim)?;
        let axis = normalize_dim("concat", dim, output.rank())?;
        let inputs: Vec<&Var> = values.iter().collect();
        Ok(record_one(Op::Concat { axis }, &inputs, output))
    }

    /// A strided slice.
    pub fn slice(&self, specs: &[SliceSpec]) -> Result<Var> {
        let ranges = specs.iter().copied().map(SliceRange::from_spec).collect();
        Ok(record_one(Op::Slice { ranges }, &[self], self.tensor().slice(specs)?))
    }

    /// A copy of `self` with a strided slice replaced by `value` (broadcast): functional `x[s] = v`.
    pub fn assign_slice(&self, specs: &[SliceSpec], value: &Var) -> Result<Var> {
        let (specs, value) = &positive_steps(specs, value)?;
        let value = value.as_ref();
        let output = self.tensor().deep_copy();
        output.assign_slice(specs, value.tensor())?;
        let ranges = specs.iter().copied().map(SliceRange::from_spec).collect();
        Ok(record_one(Op::AssignSlice { ranges }, &[self, value], output))
    }

    /// A tile of `shape` at `offsets`, zero outside `valid_shape`.
    pub fn view(&self, shape: &[usize], offsets: &[usize], valid_shape: Option<&[usize]>) -> Result<Var> {
        let output = self.tensor().view(shape, offsets, valid_shape)?;
        let op = Op::View {
            shape: shape.to_vec(),
            offsets: offsets.to_vec(),
            valid_shape: valid_shape.unwrap_or(shape).to_vec(),
        };
        Ok(record_one(op, &[self], output))
    }

    /// A copy of `self` with the valid region of `tile` written at `offsets` (functional assemble).
    pub fn assemble(&self, tile: &Var, offsets: &[usize]) -> Result<Var> {
        let output = self.tensor().deep_copy();
        output.assemble(tile.tensor(), offsets)?;
        Ok(record_one(Op::Assemble { offsets: offsets.to_vec() }, &[self, tile], output))
    }

    /// The values in another dtype; the gradient is cast back to this value's dtype.
    pub fn cast(&self, dtype: DType) -> Result<Var> {
        Ok(record_one(Op::Cast { dtype }, &[self], self.tensor().cast(dtype)?))
    }

    /// Φ(x), the standard normal CDF, ½(1 + erf(x/√2)) (used by the gelu rule).
    pub(crate) fn normal_cdf(&self) -> Result<Var> {
        let values: Vec<f64> = self
            .tensor()
            .to_f64_vec()
            .into_iter()
            .map(|x| 0.5 * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2)))
            .collect();
        let output = Tensor::from_f64(values, self.shape(), self.dtype())?;
        Ok(record_one(Op::NormalCdf, &[self], output))
    }

    /// The outputs of several values computed together (for custom ops and checkpoints).
    pub(crate) fn record_many(
        op: Op,
        inputs: &[&Var],
        outputs: Vec<Tensor>,
        extra: Vec<Var>,
        extension: super::node::Extension,
    ) -> Vec<Var> {
        record(op, inputs, outputs, extra, Some(extension))
    }

    /// `self + other`.
    pub fn add(&self, other: &Var) -> Result<Var> {
        self.binary(BinaryOp::Add, other)
    }

    /// `self - other`.
    pub fn sub(&self, other: &Var) -> Result<Var> {
        self.binary(BinaryOp::Sub, other)
    }

    /// `self * other`.
    pub fn mul(&self, other: &Var) -> Result<Var> {
        self.binary(BinaryOp::Mul, other)
    }

    /// `self / other`.
    pub fn div(&self, other: &Var) -> Result<Var> {
        self.binary(BinaryOp::Div, other)
    }

    /// `-self`.
    pub fn neg(&self) -> Result<Var> {
        self.unary(UnaryOp::Neg)
    }

    /// `self * factor` (the factor in this value's dtype).
    pub fn scale(&self, factor: f64) -> Result<Var> {
        self.mul(&self.scalar_like(factor))
    }

    /// `self + value`.
    pub fn add_scalar(&self, value: f64) -> Result<Var> {
        self.add(&self.scalar_like(value))
    }

    /// Σ of every element (a 0-d value).
    pub fn sum(&self) -> Result<Var> {
        self.reduce(ReduceOp::Sum, None, false)
    }

    /// Mean of every element (a 0-d value).
    pub fn mean(&self) -> Result<Var> {
        self.reduce(ReduceOp::Mean, None, false)
    }

    /// A 0-d constant in this value's dtype.
    pub fn scalar_like(&self, value: f64) -> Var {
        Var::constant(Tensor::scalar(value, self.dtype()))
    }

    /// A constant of zeros with this value's shape and dtype.
    pub fn zeros_like(&self) -> Result<Var> {
        Ok(Var::constant(Tensor::zeros(self.shape(), self.dtype())?))
    }

    /// The value as a 0-d f64, or an error for non-scalars.
    pub fn item(&self) -> Result<f64> {
        self.tensor().item().map_err(AutogradError::from)
    }
}

/// The same assignment with every step positive: a reversed dim of the slice becomes a forward dim
/// and the value is reversed along it (recorded, so differentiable). The tensor core's in-place
/// write is only used with positive steps.
fn positive_steps<'v>(specs: &[SliceSpec], value: &'v Var) -> Result<(Vec<SliceSpec>, std::borrow::Cow<'v, Var>)> {
    let mut positive = specs.to_vec();
    let mut value = std::borrow::Cow::Borrowed(value);
    let offset = specs.len().saturating_sub(value.shape().len());
    for (axis, spec) in specs.iter().enumerate() {
        let last = spec.start as isize + spec.step * (spec.count as isize - 1);
        if spec.step >= 0 || spec.count == 0 || last < 0 {
            continue;
        }
        positive[axis] = SliceSpec { start: last as usize, step: -spec.step, count: spec.count };
        if axis >= offset && value.shape().len() + offset == specs.len() && value.shape()[axis - offset] > 1 {
            let size = value.shape()[axis - offset];
            let flip: Vec<SliceSpec> = value
                .shape()
                .iter()
                .enumerate()
                .map(|(dim, &extent)| {
                    if dim == axis - offset {
                        SliceSpec { start: size - 1, step: -1, count: size }
                    } else {
                        SliceSpec::full(extent)
                    }
                })
                .collect();
            value = std::borrow::Cow::Owned(value.slice(&flip)?);
        }
    }
    Ok((positive, value))
}
