//! Comparisons into DT_BOOL masks, the logical ops on masks, `where` (select by a mask) and
//! `clip` with number or tensor bounds. All broadcast like numpy.

use serde::{Deserialize, Serialize};

use super::dtype::DType;
use super::elementwise::combined_valid_shape;
use super::handle::Tensor;
use super::shape::{broadcast_shapes, broadcast_strides, contiguous_strides, element_count, for_each_offset};
use super::storage::{check_allocation, zip_storage, Storage};
use crate::error::{Result, TensorError};
use crate::messages::ShapeDetail;

/// Element-wise comparisons (pypto `lt le gt ge eq ne`, the operators `< <= > >= == !=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub enum CompareOp {
    /// `a < b`
    Lt,
    /// `a <= b`
    Le,
    /// `a > b`
    Gt,
    /// `a >= b`
    Ge,
    /// `a == b`
    Eq,
    /// `a != b`
    Ne,
}

impl CompareOp {
    /// Every comparison.
    pub const ALL: [CompareOp; 6] =
        [CompareOp::Lt, CompareOp::Le, CompareOp::Gt, CompareOp::Ge, CompareOp::Eq, CompareOp::Ne];

    /// The op with this pypto name (`lt` …).
    pub fn from_name(name: &str) -> Option<CompareOp> {
        CompareOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// The pypto name.
    pub fn name(self) -> &'static str {
        match self {
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
        }
    }

    /// Whether the comparison holds for an ordering (`None`: a NaN took part, only `!=` holds).
    fn holds(self, ordering: Option<std::cmp::Ordering>) -> bool {
        let Some(ordering) = ordering else { return self == CompareOp::Ne };
        match self {
            CompareOp::Lt => ordering.is_lt(),
            CompareOp::Le => ordering.is_le(),
            CompareOp::Gt => ordering.is_gt(),
            CompareOp::Ge => ordering.is_ge(),
            CompareOp::Eq => ordering.is_eq(),
            CompareOp::Ne => ordering.is_ne(),
        }
    }
}

/// Logical ops of two masks (any dtype: nonzero is true).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub enum LogicalOp {
    /// `a and b`
    And,
    /// `a or b`
    Or,
}

impl Tensor {
    /// `self op other` element-wise with broadcasting, as a DT_BOOL tensor. Both sides are compared
    /// in their promoted dtype (exactly for integers, as torch).
    pub fn compare(&self, op: CompareOp, other: &Tensor) -> Result<Tensor> {
        let dtype = self.dtype().promote(other.dtype());
        let (shape, strides) = broadcast_pair(op.name(), self, other)?;
        let mut out = Vec::with_capacity(shape.iter().product());
        if dtype.is_float() {
            let (left, right) = (self.cast_if_needed(dtype)?.to_f64_vec(), other.cast_if_needed(dtype)?.to_f64_vec());
            for_each_offset(&shape, [&strides[0], &strides[1]], |[i, j]| {
                out.push(op.holds(left[i].partial_cmp(&right[j])))
            });
        } else {
            let (left, right) = (self.storage().to_i64_vec(), other.storage().to_i64_vec());
            for_each_offset(&shape, [&strides[0], &strides[1]], |[i, j]| {
                out.push(op.holds(Some(left[i].cmp(&right[j]))))
            });
        }
        let valid = combined_valid_shape(&shape, &[self, other]);
        Ok(Tensor::from_storage(Storage::Bool(out), &shape)?.with_valid_shape(valid))
    }

    /// `logical_and` / `logical_or` of two tensors (nonzero is true), as DT_BOOL.
    pub fn logical(&self, op: LogicalOp, other: &Tensor) -> Result<Tensor> {
        let name = match op {
            LogicalOp::And => "logical_and",
            LogicalOp::Or => "logical_or",
        };
        let (shape, strides) = broadcast_pair(name, self, other)?;
        let (left, right) = (self.truth_values(), other.truth_values());
        let mut out = Vec::with_capacity(shape.iter().product());
        for_each_offset(&shape, [&strides[0], &strides[1]], |[i, j]| {
            out.push(match op {
                LogicalOp::And => left[i] && right[j],
                LogicalOp::Or => left[i] || right[j],
            })
        });
        let valid = combined_valid_shape(&shape, &[self, other]);
        Ok(Tensor::from_storage(Storage::Bool(out), &shape)?.with_valid_shape(valid))
    }

    /// `logical_not(x)`: true where `x` is zero, as DT_BOOL.
    pub fn logical_not(&self) -> Result<Tensor> {
        let values = self.truth_values().into_iter().map(|truth| !truth).collect();
        Ok(Tensor::from_storage(Storage::Bool(values), self.shape())?
            .with_valid_shape(self.valid_shape().map(<[usize]>::to_vec)))
    }

    /// `where(condition, input, other)`: `input` where the condition is nonzero, else `other`; all
    /// three broadcast together, and the result has the promoted dtype of `input` and `other`.
    pub fn select(condition: &Tensor, input: &Tensor, other: &Tensor) -> Result<Tensor> {
        let shape = broadcast_shapes("where", condition.shape(), input.shape())?;
        let shape = broadcast_shapes("where", &shape, other.shape())?;
        let count = element_count("where", &shape)?;
        let dtype = input.dtype().promote(other.dtype());
        check_allocation("where", count, dtype)?;
        let (input, other) = (input.cast_if_needed(dtype)?, other.cast_if_needed(dtype)?);
        let truth = condition.truth_values();
        let strides = [
            broadcast_strides(condition.shape(), &shape),
            broadcast_strides(input.shape(), &shape),
            broadcast_strides(other.shape(), &shape),
        ];
        let walk =
            |visit: &mut dyn FnMut([usize; 3])| for_each_offset(&shape, [&strides[0], &strides[1], &strides[2]], visit);
        fn pick<T: Copy>(truth: &[bool], yes: &[T], no: &[T], walk: impl Fn(&mut dyn FnMut([usize; 3]))) -> Vec<T> {
            let mut out = Vec::with_capacity(truth.len());
            walk(&mut |[c, i, o]| out.push(if truth[c] { yes[i] } else { no[o] }));
            out
        }
        let storage = zip_storage!(
            &*input.storage(),
            &*other.storage(),
            (yes, no) => pick(&truth, yes, no, walk),
            unreachable!("both operands were cast to one dtype")
        );
        let valid = combined_valid_shape(&shape, &[condition, &input, &other]);
        Ok(Tensor::from_storage(storage, &shape)?.with_valid_shape(valid))
    }

    /// `clip(x, min, max)` with number bounds (see `clip_tensors`).
    pub fn clip(&self, low: Option<f64>, high: Option<f64>) -> Result<Tensor> {
        let bound = |value: Option<f64>| value.map(|value| Tensor::scalar(value, DType::F64));
        self.clip_tensors(bound(low).as_ref(), bound(high).as_ref())
    }

    /// `clip(x, min, max)`: `min(max(x, low), high)` with tensor bounds (broadcast to
    /// `x`'s shape); either may be absent. Where `low > high` the result is `high`, and a NaN bound
    /// gives NaN, as pypto documents. The result keeps `x`'s dtype and valid shape.
    pub fn clip_tensors(&self, low: Option<&Tensor>, high: Option<&Tensor>) -> Result<Tensor> {
        let dtype = self.dtype();
        let mut result = self.deep_copy();
        for (bound, is_low) in [(low, true), (high, false)] {
            let Some(bound) = bound else { continue };
            if broadcast_shapes("clip", self.shape(), bound.shape())? != self.shape() {
                return Err(TensorError::ShapeMismatch {
                    op: "clip",
                    lhs: self.shape().to_vec(),
                    rhs: bound.shape().to_vec(),
                    detail: ShapeDetail::BoundToInput,
                });
            }
            let bound = bound.cast_if_needed(dtype)?;
            let strides = [contiguous_strides(self.shape()), broadcast_strides(bound.shape(), self.shape())];
            let storage = if dtype.is_float() {
                let (values, limits) = (result.to_f64_vec(), bound.to_f64_vec());
                let mut out = Vec::with_capacity(values.len());
                for_each_offset(self.shape(), [&strides[0], &strides[1]], |[i, j]| {
                    let (value, limit) = (values[i], limits[j]);
                    let past = if is_low { value < limit } else { value > limit };
                    out.push(if limit.is_nan() || past { limit } else { value })
                });
                Storage::from_f64(out, dtype)
            } else {
                // Integers exactly, from their i64 values.
                let (values, limits) = (result.storage().to_i64_vec(), bound.storage().to_i64_vec());
                let mut out = Vec::with_capacity(values.len());
                for_each_offset(self.shape(), [&strides[0], &strides[1]], |[i, j]| {
                    out.push(if is_low { values[i].max(limits[j]) } else { values[i].min(limits[j]) })
                });
                Storage::from_i64(out, dtype)
            };
            result = Tensor::from_storage(storage, self.shape())?;
        }
        Ok(result.with_valid_shape(self.valid_shape().map(<[usize]>::to_vec)))
    }

    /// Whether each element is nonzero (NaN counts as true, as Python's `bool(nan)`).
    fn truth_values(&self) -> Vec<bool> {
        match &*self.storage() {
            Storage::Bool(values) => values.clone(),
            storage if self.dtype().is_float() => storage.to_f64_vec().into_iter().map(|v| v != 0.0).collect(),
            storage => storage.to_i64_vec().into_iter().map(|v| v != 0).collect(),
        }
    }
}

/// The broadcast shape of two operands and the strides that read each at that shape.
fn broadcast_pair(op: &'static str, a: &Tensor, b: &Tensor) -> Result<(Vec<usize>, [Vec<usize>; 2])> {
    let shape = broadcast_shapes(op, a.shape(), b.shape())?;
    let count = element_count(op, &shape)?;
    check_allocation(op, count, DType::Bool)?;
    let strides = [broadcast_strides(a.shape(), &shape), broadcast_strides(b.shape(), &shape)];
    Ok((shape, strides))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(values: &[f64], shape: &[usize]) -> Tensor {
        Tensor::from_f64(values.to_vec(), shape, DType::F32).unwrap()
    }

    fn bools(tensor: &Tensor) -> Vec<i64> {
        tensor.storage().to_i64_vec()
    }

    #[test]
    fn comparisons_broadcast_into_bool_masks() {
        // [[1], [3]] < [2, 3] = [[T, T], [F, F]]; NaN compares false except !=.
        let mask = floats(&[1.0, 3.0], &[2, 1]).compare(CompareOp::Lt, &floats(&[2.0, 3.0], &[2])).unwrap();
        assert_eq!((mask.dtype(), mask.shape()), (DType::Bool, &[2, 2][..]));
        assert_eq!(bools(&mask), vec![1, 1, 0, 0]);
        let nan = floats(&[f64::NAN], &[1]);
        assert_eq!(bools(&nan.compare(CompareOp::Eq, &nan).unwrap()), vec![0]);
        assert_eq!(bools(&nan.compare(CompareOp::Ne, &nan).unwrap()), vec![1]);
    }

    #[test]
    fn int64_comparisons_are_exact() {
        // 2^53 and 2^53 + 1 are one f64; as int64 they differ.
        let big = |v: i64| Tensor::from_storage(Storage::I64(vec![v]), &[1]).unwrap();
        let (a, b) = (big(1 << 53), big((1 << 53) + 1));
        assert_eq!(bools(&a.compare(CompareOp::Lt, &b).unwrap()), vec![1]);
    }

    #[test]
    fn select_broadcasts_and_promotes() {
        let condition = Tensor::from_storage(Storage::Bool(vec![true, false]), &[2, 1]).unwrap();
        let input = floats(&[1.0, 2.0, 3.0], &[3]);
        let other = Tensor::scalar(-1.0, DType::F16);
        let picked = Tensor::select(&condition, &input, &other).unwrap();
        assert_eq!(picked.dtype(), DType::F32);
        assert_eq!(picked.to_f64_vec(), vec![1.0, 2.0, 3.0, -1.0, -1.0, -1.0]);
    }

    #[test]
    fn clip_takes_tensor_bounds() {
        // clip([-2, 0.5, 3], low=[-1, 1, -1], high=2) = [-1, 1, 2]; low > high gives high.
        let x = floats(&[-2.0, 0.5, 3.0], &[3]);
        let low = floats(&[-1.0, 1.0, -1.0], &[3]);
        let high = Tensor::scalar(2.0, DType::F32);
        assert_eq!(x.clip_tensors(Some(&low), Some(&high)).unwrap().to_f64_vec(), vec![-1.0, 1.0, 2.0]);
        let inverted = x.clip_tensors(Some(&Tensor::scalar(5.0, DType::F32)), Some(&high)).unwrap();
        assert_eq!(inverted.to_f64_vec(), vec![2.0, 2.0, 2.0]);
        assert!(x.clip_tensors(Some(&floats(&[0.0, 0.0], &[2])), None).is_err());
        assert_eq!(x.clip(None, Some(0.0)).unwrap().to_f64_vec(), vec![-2.0, 0.0, 0.0]);
    }

    #[test]
    fn logical_ops_treat_nonzero_as_true() {
        let a = floats(&[0.0, 2.0, -1.0], &[3]);
        let b = Tensor::from_storage(Storage::Bool(vec![true, true, false]), &[3]).unwrap();
        assert_eq!(bools(&a.logical(LogicalOp::And, &b).unwrap()), vec![0, 1, 0]);
        assert_eq!(bools(&a.logical(LogicalOp::Or, &b).unwrap()), vec![1, 1, 1]);
        assert_eq!(bools(&a.logical_not().unwrap()), vec![1, 0, 0]);
    }
}
