//! The differentiable mirror of the tensor core's masks and indexing ops: comparisons and logical
//! ops (constant DT_BOOL results), `where`, `gather`, `scatter`, `topk`, `cumsum`, `clip` with
//! tensor bounds and `round(decimals)`.

use super::error::{AutogradError, Result};
use super::op::Op;
use super::var::{record_one, Var};
use crate::tensor::{broadcast_shapes, normalize_dim, BinaryOp, CompareOp, LogicalOp, ScatterMode, Tensor, UnaryOp};

impl Var {
    /// `self op other` as a DT_BOOL mask (a constant: comparisons have no gradient).
    pub fn compare(&self, op: CompareOp, other: &Var) -> Result<Var> {
        Ok(Var::constant(self.tensor().compare(op, other.tensor())?))
    }

    /// `logical_and` / `logical_or` as a DT_BOOL mask (a constant).
    pub fn logical(&self, op: LogicalOp, other: &Var) -> Result<Var> {
        Ok(Var::constant(self.tensor().logical(op, other.tensor())?))
    }

    /// `logical_not` as a DT_BOOL mask (a constant).
    pub fn logical_not(&self) -> Result<Var> {
        Ok(Var::constant(self.tensor().logical_not()?))
    }

    /// `where(condition, input, other)`: differentiable in `input` and `other`.
    pub fn select(condition: &Var, input: &Var, other: &Var) -> Result<Var> {
        let output = Tensor::select(condition.tensor(), input.tensor(), other.tensor())?;
        Ok(record_one(Op::Where, &[condition, input, other], output))
    }

    /// `gather(self, dim, index)`: differentiable in `self`.
    pub fn gather(&self, dim: isize, index: &Var) -> Result<Var> {
        let output = self.tensor().gather(dim, index.tensor())?;
        let axis = normalize_dim("gather", dim, self.shape().len())?;
        Ok(record_one(Op::Gather { axis }, &[self, index], output))
    }

    /// `scatter(self, dim, index, src, reduce)`: differentiable in `self` and `src` (for the
    /// replacing and adding modes).
    pub fn scatter(&self, dim: isize, index: &Var, source: &Var, mode: ScatterMode) -> Result<Var> {
        let output = self.tensor().scatter(dim, index.tensor(), source.tensor(), mode)?;
        let axis = normalize_dim("scatter", dim, self.shape().len())?;
        Ok(record_one(Op::Scatter { axis, mode }, &[self, index, source], output))
    }

    /// `topk(self, k, dim, largest)` → (values, indices): the values are a gather of the indices,
    /// so the gradient flows to the selected elements.
    pub fn topk(&self, k: usize, dim: isize, largest: bool) -> Result<(Var, Var)> {
        let indices = Var::constant(self.tensor().topk_indices(k, dim, largest)?);
        Ok((self.gather(dim, &indices)?, indices))
    }

    /// Running sums along `dim`.
    pub fn cumsum(&self, dim: isize) -> Result<Var> {
        let output = self.tensor().cumsum(dim)?;
        let axis = normalize_dim("cumsum", dim, self.shape().len())?;
        Ok(record_one(Op::Cumsum { axis }, &[self], output))
    }

    /// `clip(self, min, max)` with tensor bounds (cast to this dtype, broadcast to this shape):
    /// `minimum(maximum(x, low), high)`, so `low > high` gives `high`, a NaN bound gives NaN, and
    /// the gradient flows to whichever of x and the bounds is selected (split at exact ties).
    pub fn clip_tensors(&self, low: Option<&Var>, high: Option<&Var>) -> Result<Var> {
        let mut result = self.clone();
        for (bound, op) in [(low, BinaryOp::Maximum), (high, BinaryOp::Minimum)] {
            let Some(bound) = bound else { continue };
            if broadcast_shapes("clip", self.shape(), bound.shape())? != self.shape() {
                return Err(AutogradError::BadArgument {
                    op: "clip".into(),
                    detail: crate::messages::AutogradDetail::ClipBound {
                        bound: bound.shape().to_vec(),
                        input: self.shape().to_vec(),
                    },
                });
            }
            let bound = if bound.dtype() == self.dtype() { bound.clone() } else { bound.cast(self.dtype())? };
            result = result.binary(op, &bound)?;
        }
        if low.is_none() && high.is_none() {
            return self.clip(None, None);
        }
        Ok(result)
    }

    /// `round(self, decimals)`: to the nearest multiple of 10^-decimals, ties to even, computed as
    /// torch does (`round(x·10^d)/10^d`, or `round(x/10^-d)·10^-d` for negative d); the gradient is
    /// zero. Integers are returned unchanged for `decimals ≥ 0`.
    pub fn round_decimals(&self, decimals: i64) -> Result<Var> {
        if decimals == 0 || (!self.dtype().is_float() && decimals > 0) {
            return self.unary(UnaryOp::Round);
        }
        if !self.dtype().is_float() {
            return Err(AutogradError::BadArgument {
                op: "round".into(),
                detail: crate::messages::AutogradDetail::RoundFloatOnly,
            });
        }
        let scale = self.scalar_like(10f64.powi(decimals.unsigned_abs().min(400) as i32));
        if decimals > 0 {
            self.mul(&scale)?.unary(UnaryOp::Round)?.div(&scale)
        } else {
            self.div(&scale)?.unary(UnaryOp::Round)?.mul(&scale)
        }
    }
}
