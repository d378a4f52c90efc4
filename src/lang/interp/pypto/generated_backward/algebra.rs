//! The shared derivative rules (`autograd::algebra`) over a kernel capture: each op a rule asks
//! for is appended to the backward capture as a `Captured` op on fresh tensor references, at the
//! script line of the forward op it differentiates. Broadcasts stay implicit: a reduction's
//! gradient keeps its kept dims (`[R, 1]`) and the element-wise ops that read it broadcast it, as
//! the vector unit does; only an input's final gradient is reduced or widened to its shape.

use super::super::capture::{Arg, Captured, CapturedOp, TensorRef};
use crate::autograd::algebra::GradientAlgebra;
use crate::messages::{DerivationReason, Message, NpuMessage};
use crate::tensor::{BinaryOp, CompareOp, DType, ReduceOp, Tensor, UnaryOp};
use crate::tile::VectorOp;

/// Why a kernel has no generated backward: an op without an op-level adjoint (its rule reads
/// values), or a shape the tile compiler cannot take; the call keeps the CPU tape's backward.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NotDerivable {
    /// What could not be differentiated into ops.
    pub what: DerivationReason,
    /// Its script line.
    pub line: Option<u32>,
}

impl NotDerivable {
    /// The reason as a message (`npu.not_derivable`), typed for the page.
    pub(crate) fn message(&self) -> Message {
        NpuMessage::NotDerivable { what: self.what.clone(), line: self.line }.into()
    }
}

/// Builds the backward capture.
pub(crate) struct CaptureAlgebra {
    /// The ops built so far, in order.
    pub ops: Vec<Captured>,
    /// The line of the forward op being differentiated.
    pub line: Option<u32>,
}

fn shape_of(value: &Arg) -> Vec<usize> {
    match value {
        Arg::Tensor(tensor) => tensor.shape().to_vec(),
        Arg::Number(_) => Vec::new(),
    }
}

/// Numpy broadcasting of two shapes, or `None`.
pub(crate) fn broadcast_shapes(left: &[usize], right: &[usize]) -> Option<Vec<usize>> {
    let rank = left.len().max(right.len());
    (0..rank)
        .map(|position| {
            let dim = |shape: &[usize]| (position + shape.len()).checked_sub(rank).map_or(1, |index| shape[index]);
            match (dim(left), dim(right)) {
                (a, b) if a == b || b == 1 => Some(a),
                (1, b) => Some(b),
                _ => None,
            }
        })
        .collect()
}

impl CaptureAlgebra {
    /// An empty backward capture.
    pub(crate) fn new() -> CaptureAlgebra {
        CaptureAlgebra { ops: Vec::new(), line: None }
    }

    fn fail(&self, what: DerivationReason) -> NotDerivable {
        NotDerivable { what, line: self.line }
    }

    /// A failure of folding a gradient of numbers.
    fn arithmetic(&self, error: crate::error::TensorError) -> NotDerivable {
        self.fail(DerivationReason::Arithmetic { error: Box::new(error.message()) })
    }

    /// Appends `op` whose result has `shape` and `dtype`; returns the result.
    pub(crate) fn emit(&mut self, op: CapturedOp, shape: &[usize], dtype: DType) -> Arg {
        let result = TensorRef::fresh(shape, None, dtype);
        self.ops.push(Captured { op, result: Some(result.clone()), line: self.line });
        Arg::Tensor(result)
    }

    /// The tensor of a value, or an error for a number.
    fn tensor(&self, value: &Arg) -> Result<TensorRef, NotDerivable> {
        match value {
            Arg::Tensor(tensor) => Ok(tensor.clone()),
            Arg::Number(_) => Err(self.fail(DerivationReason::NumberGradient)),
        }
    }

    /// `Σ x` over `axes`, dims kept; a narrow float is summed in f32 (the gradient's final cast
    /// rounds it once, where a BF16 sum would round at every partial).
    fn reduce_sum(&mut self, x: &TensorRef, axes: &[usize]) -> Arg {
        let shape: Vec<usize> =
            x.shape().iter().enumerate().map(|(axis, &dim)| if axes.contains(&axis) { 1 } else { dim }).collect();
        let dims = Some(axes.iter().map(|&axis| axis as i64).collect());
        let x = match x.dtype() {
            DType::F16 | DType::Bf16 => match self.emit(CapturedOp::Cast { x: x.clone() }, x.shape(), DType::F32) {
                Arg::Tensor(wide) => wide,
                Arg::Number(_) => x.clone(),
            },
            _ => x.clone(),
        };
        let dtype = x.dtype();
        self.emit(CapturedOp::Reduce { op: ReduceOp::Sum, x, dims }, &shape, dtype)
    }

    /// A cast of `x` to `dtype` (none when it has it).
    pub(crate) fn cast(&mut self, x: &Arg, dtype: DType) -> Result<Arg, NotDerivable> {
        let tensor = self.tensor(x)?;
        if tensor.dtype() == dtype {
            return Ok(x.clone());
        }
        Ok(self.emit(CapturedOp::Cast { x: tensor.clone() }, tensor.shape(), dtype))
    }

    /// The gradient `gradient` brought to `input`'s shape: summed over the dims `input`
    /// broadcast, widened over the dims it has whole and the gradient kept as 1 (`g + 0·input`:
    /// the tile compiler's functional kernels have no explicit broadcast).
    pub(crate) fn finish(&mut self, gradient: &Arg, input: &TensorRef) -> Result<Arg, NotDerivable> {
        let tensor = self.tensor(gradient)?;
        let target = input.shape();
        if tensor.shape() == target {
            return Ok(gradient.clone());
        }
        if tensor.shape().len() != target.len() {
            let (gradient, input) = (tensor.shape().to_vec(), target.to_vec());
            return Err(self.fail(DerivationReason::RankBroadcast { gradient, input }));
        }
        let axes: Vec<usize> =
            (0..target.len()).filter(|&axis| target[axis] == 1 && tensor.shape()[axis] != 1).collect();
        let summed = if axes.is_empty() { gradient.clone() } else { self.reduce_sum(&tensor, &axes) };
        if shape_of(&summed) == target {
            return Ok(summed);
        }
        let zero = self.binary(BinaryOp::Mul, &Arg::Tensor(input.clone()), &Arg::Number(0.0))?;
        self.binary(BinaryOp::Add, &summed, &zero)
    }
}

impl GradientAlgebra for CaptureAlgebra {
    type Value = Arg;
    type Error = NotDerivable;

    fn unary(&mut self, op: UnaryOp, x: &Arg) -> Result<Arg, NotDerivable> {
        match x {
            Arg::Number(number) => {
                let value = Tensor::scalar(*number, DType::F64).unary(op).map_err(|error| self.arithmetic(error))?;
                Ok(Arg::Number(value.to_f64_vec()[0]))
            }
            Arg::Tensor(tensor) => {
                Ok(self.emit(CapturedOp::Unary { op, x: tensor.clone() }, tensor.shape(), tensor.dtype()))
            }
        }
    }

    fn binary(&mut self, op: BinaryOp, a: &Arg, b: &Arg) -> Result<Arg, NotDerivable> {
        let (dtype, shape) = match (a, b) {
            (Arg::Number(left), Arg::Number(right)) => {
                let value = Tensor::scalar(*left, DType::F64)
                    .binary(op, &Tensor::scalar(*right, DType::F64))
                    .map_err(|error| self.arithmetic(error))?;
                return Ok(Arg::Number(value.to_f64_vec()[0]));
            }
            (Arg::Tensor(tensor), Arg::Number(_)) | (Arg::Number(_), Arg::Tensor(tensor)) => {
                (tensor.dtype(), tensor.shape().to_vec())
            }
            (Arg::Tensor(left), Arg::Tensor(right)) => {
                let shape = broadcast_shapes(left.shape(), right.shape()).ok_or_else(|| {
                    let (lhs, rhs) = (left.shape().to_vec(), right.shape().to_vec());
                    self.fail(DerivationReason::Shapes { op: op.name().into(), lhs, rhs })
                })?;
                (left.dtype().promote(right.dtype()), shape)
            }
        };
        Ok(self.emit(CapturedOp::Binary { op, lhs: a.clone(), rhs: b.clone() }, &shape, dtype))
    }

    fn number(&mut self, value: f64, _like: &Arg) -> Arg {
        Arg::Number(value)
    }

    /// Φ(x) = ½(1 + erf(x/√2)): the vector unit has erf, not Φ.
    fn normal_cdf(&mut self, x: &Arg) -> Result<Arg, NotDerivable> {
        let scaled = self.binary(BinaryOp::Mul, x, &Arg::Number(std::f64::consts::FRAC_1_SQRT_2))?;
        let erf = self.unary(UnaryOp::Erf, &scaled)?;
        let shifted = self.binary(BinaryOp::Add, &erf, &Arg::Number(1.0))?;
        self.binary(BinaryOp::Mul, &shifted, &Arg::Number(0.5))
    }

    fn matmul(&mut self, a: &Arg, b: &Arg, a_trans: bool, b_trans: bool) -> Result<Arg, NotDerivable> {
        let (left, right) = (self.tensor(a)?, self.tensor(b)?);
        if left.shape().len() != 2 || right.shape().len() != 2 {
            let (left, right) = (left.shape().len(), right.shape().len());
            return Err(self.fail(DerivationReason::MatmulRank { left, right }));
        }
        let shape = [left.shape()[usize::from(a_trans)], right.shape()[usize::from(!b_trans)]];
        // The gradient flows in f32 (the cube accumulates in f32; a narrow matmul writes f32 here).
        let dtype = left.dtype().promote(right.dtype()).promote(DType::F32);
        let op = CapturedOp::Matmul { a: left, b: right, a_transposed: a_trans, b_transposed: b_trans };
        Ok(self.emit(op, &shape, dtype))
    }

    fn sum_to_shape(&mut self, gradient: &Arg, shape: &[usize]) -> Result<Arg, NotDerivable> {
        let tensor = self.tensor(gradient)?;
        if tensor.shape() == shape || tensor.shape().len() != shape.len() {
            // Widening and rank changes wait for `finish`, where the input is known.
            return Ok(gradient.clone());
        }
        let axes: Vec<usize> = (0..shape.len()).filter(|&axis| shape[axis] == 1 && tensor.shape()[axis] != 1).collect();
        Ok(if axes.is_empty() { gradient.clone() } else { self.reduce_sum(&tensor, &axes) })
    }

    fn expand_reduced(
        &mut self,
        gradient: &Arg,
        shape: &[usize],
        axes: &[usize],
        keepdim: bool,
    ) -> Result<Arg, NotDerivable> {
        if !keepdim && !axes.is_empty() && axes.len() != shape.len() {
            return Err(self.fail(DerivationReason::Keepdim));
        }
        // Stays [R, 1]: the ops that read it broadcast it.
        Ok(gradient.clone())
    }

    fn sum_keepdim(&mut self, x: &Arg, axes: &[usize]) -> Result<Arg, NotDerivable> {
        let tensor = self.tensor(x)?;
        Ok(self.reduce_sum(&tensor, axes))
    }

    /// A compare into a DT_BOOL mask, then `where(mask, g, 0)`: two vector ops of the tile.
    fn select_where(&mut self, op: CompareOp, a: &Arg, b: &Arg, g: &Arg) -> Result<Arg, NotDerivable> {
        if let (Arg::Number(left), Arg::Number(right)) = (a, b) {
            // A mask of two numbers is a constant: g, or zero.
            let holds = Tensor::scalar(*left, DType::F64)
                .compare(op, &Tensor::scalar(*right, DType::F64))
                .map_err(|error| self.arithmetic(error))?
                .to_f64_vec()[0]
                != 0.0;
            return if holds { Ok(g.clone()) } else { self.binary(BinaryOp::Mul, g, &Arg::Number(0.0)) };
        }
        let gradient = self.tensor(g)?;
        let mask_shape = match (a, b) {
            (Arg::Number(_), Arg::Number(_)) => unreachable!("folded above"),
            (Arg::Tensor(tensor), Arg::Number(_)) | (Arg::Number(_), Arg::Tensor(tensor)) => tensor.shape().to_vec(),
            (Arg::Tensor(left), Arg::Tensor(right)) => {
                broadcast_shapes(left.shape(), right.shape()).ok_or_else(|| {
                    let (lhs, rhs) = (left.shape().to_vec(), right.shape().to_vec());
                    self.fail(DerivationReason::MaskShapes { lhs, rhs })
                })?
            }
        };
        let shape = broadcast_shapes(&mask_shape, gradient.shape()).ok_or_else(|| {
            let (mask, gradient) = (mask_shape.clone(), gradient.shape().to_vec());
            self.fail(DerivationReason::MaskOverGradient { mask, gradient })
        })?;
        let compare = CapturedOp::Vector { op: VectorOp::Compare(op), args: vec![a.clone(), b.clone()] };
        let mask = self.emit(compare, &mask_shape, DType::Bool);
        let select = CapturedOp::Vector { op: VectorOp::Select, args: vec![mask, g.clone(), Arg::Number(0.0)] };
        Ok(self.emit(select, &shape, gradient.dtype()))
    }
}
