//! Reductions over any set of dims (negative dims, keepdim), and the stable softmax family.

use serde::{Deserialize, Serialize};

use super::dtype::DType;
use super::handle::Tensor;
use super::real::Real;
use super::shape::{normalize_dim, normalize_dims};
use super::simd;
use super::slice_spec::SliceSpec;
use super::storage::Storage;
use crate::error::{Result, TensorError};
use crate::messages::ArgumentDetail;

/// Reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub enum ReduceOp {
    /// Σ x
    Sum,
    /// Σ x / n
    Mean,
    /// largest element (NaN propagates)
    Amax,
    /// smallest element (NaN propagates)
    Amin,
    /// population variance Σ(x-μ)²/n (`correction` 0, as `numpy.var`)
    Var,
}

impl ReduceOp {
    /// Every reduction.
    pub const ALL: [ReduceOp; 5] = [ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Amax, ReduceOp::Amin, ReduceOp::Var];

    /// The op with this pypto name (`sum`, `amax` …).
    pub fn from_name(name: &str) -> Option<ReduceOp> {
        ReduceOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// The pypto name.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Amax => "amax",
            ReduceOp::Amin => "amin",
            ReduceOp::Var => "var",
        }
    }
}

/// The softmax family, normalised along one dim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub enum SoftmaxOp {
    /// `exp(x - max) / Σ exp(x - max)`
    Softmax,
    /// `x - max - log Σ exp(x - max)`
    LogSoftmax,
}

fn reduce_block<T: Real>(op: ReduceOp, block: &[T]) -> T {
    let n = T::of(block.len() as f64);
    match op {
        ReduceOp::Sum => block.iter().fold(T::zero(), |acc, &x| acc + x),
        ReduceOp::Mean => block.iter().fold(T::zero(), |acc, &x| acc + x) / n,
        ReduceOp::Amax => {
            block
                .iter()
                .fold(T::neg_infinity(), |acc, &x| if x.is_nan() || acc.is_nan() { T::nan() } else { acc.max(x) })
        }
        ReduceOp::Amin => {
            block.iter().fold(T::infinity(), |acc, &x| if x.is_nan() || acc.is_nan() { T::nan() } else { acc.min(x) })
        }
        ReduceOp::Var => {
            let mean = block.iter().fold(T::zero(), |acc, &x| acc + x) / n;
            block.iter().fold(T::zero(), |acc, &x| acc + (x - mean) * (x - mean)) / n
        }
    }
}

fn reduce_block_f32(op: ReduceOp, block: &[f32]) -> f32 {
    match op {
        ReduceOp::Sum => simd::sum(block),
        ReduceOp::Mean => simd::sum(block) / block.len() as f32,
        ReduceOp::Amax => simd::max(block),
        ReduceOp::Amin => -simd::max(&block.iter().map(|x| -x).collect::<Vec<_>>()),
        ReduceOp::Var => {
            let mean = simd::sum(block) / block.len() as f32;
            simd::sum_squared_deviation(block, mean) / block.len() as f32
        }
    }
}

impl Tensor {
    /// Reduces over `dims` (all dims when `None`); `keepdim` keeps reduced dims as size 1.
    pub fn reduce(&self, op: ReduceOp, dims: Option<&[isize]>, keepdim: bool) -> Result<Tensor> {
        let rank = self.rank();
        let axes = match dims {
            Some(dims) => normalize_dims(op.name(), dims, rank)?,
            None => (0..rank).collect(),
        };
        if let Some(region) = self.valid_region_of(&axes) {
            return region.reduce(op, dims, keepdim);
        }
        let reduced: usize = axes.iter().map(|&a| self.shape()[a]).product();
        if reduced == 0 && matches!(op, ReduceOp::Amax | ReduceOp::Amin | ReduceOp::Mean | ReduceOp::Var) {
            return Err(TensorError::BadArgument { op: op.name(), detail: ArgumentDetail::EmptyReduction });
        }
        let kept: Vec<usize> = (0..rank).filter(|a| !axes.contains(a)).collect();
        let order: Vec<usize> = kept.iter().chain(axes.iter()).copied().collect();
        let moved = self.permute(&order)?;
        let out_shape: Vec<usize> = (0..rank)
            .filter_map(|a| if axes.contains(&a) { keepdim.then_some(1) } else { Some(self.shape()[a]) })
            .collect();
        let out_count: usize = out_shape.iter().product();
        let dtype = self.dtype();
        let storage = if !dtype.is_float() {
            integer_reduce(op, &moved.storage().to_i64_vec(), reduced, out_count, dtype)?
        } else if dtype == DType::F64 {
            let values = moved.to_f64_vec();
            Storage::F64(blocks(&values, reduced, out_count).map(|b| reduce_block(op, b)).collect())
        } else if let Storage::F32(values) = &*moved.storage() {
            // f32 already: reduce the buffer in place rather than a copy of it.
            Storage::F32(blocks(values, reduced, out_count).map(|b| reduce_block_f32(op, b)).collect())
        } else {
            let values = moved.to_f32_vec();
            Storage::from_f32(blocks(&values, reduced, out_count).map(|b| reduce_block_f32(op, b)).collect(), dtype)
        };
        let valid = self.valid_shape().map(|valid| {
            (0..rank).filter_map(|a| if axes.contains(&a) { keepdim.then_some(1) } else { Some(valid[a]) }).collect()
        });
        Ok(Tensor::from_storage(storage, &out_shape)?.with_valid_shape(valid))
    }

    /// The valid part of a tile along `axes` when its `valid_shape` is ragged there (pypto's ops
    /// work on a tile's valid region: what lies past it is undefined, not an operand), keeping the
    /// valid extents of the other axes; `None` when every axis of `axes` is whole.
    fn valid_region_of(&self, axes: &[usize]) -> Option<Tensor> {
        let valid = self.valid_shape()?;
        if axes.iter().all(|&axis| valid[axis] == self.shape()[axis]) {
            return None;
        }
        let specs: Vec<SliceSpec> = (0..self.rank())
            .map(|axis| SliceSpec::full(if axes.contains(&axis) { valid[axis] } else { self.shape()[axis] }))
            .collect();
        let region = self.slice(&specs).ok()?;
        let region_valid: Vec<usize> = (0..self.rank()).map(|axis| valid[axis].min(region.shape()[axis])).collect();
        Some(region.with_valid_shape(Some(region_valid)))
    }

    /// Softmax or log-softmax along `dim`, computed with the max subtracted so that inputs of ±1e4
    /// neither overflow nor lose the result.
    pub fn softmax_like(&self, op: SoftmaxOp, dim: isize) -> Result<Tensor> {
        let name = match op {
            SoftmaxOp::Softmax => "softmax",
            SoftmaxOp::LogSoftmax => "log_softmax",
        };
        if self.rank() == 0 {
            return Err(TensorError::BadArgument { op: name, detail: ArgumentDetail::NeedsADim });
        }
        if !self.dtype().is_float() {
            return Err(TensorError::BadArgument {
                op: name,
                detail: ArgumentDetail::NeedsFloat { dtype: self.dtype().pypto_name().to_string() },
            });
        }
        let axis = normalize_dim(name, dim, self.rank())?;
        if let Some(region) = self.valid_region_of(&[axis]) {
            // Normalised over the valid part; the rest of the tile stays 0, the valid shape kept.
            let out = Tensor::zeros(self.shape(), self.dtype())?;
            let specs: Vec<SliceSpec> = region.shape().iter().map(|&count| SliceSpec::full(count)).collect();
            out.assign_slice(&specs, &region.softmax_like(op, dim)?)?;
            return Ok(out.with_valid_shape(self.valid_shape().map(<[usize]>::to_vec)));
        }
        let last = self.rank() - 1;
        let moved = self.transpose(axis as isize, last as isize)?;
        let width = self.shape()[axis];
        let dtype = self.dtype();
        let storage = if dtype == DType::F64 {
            let mut values = moved.to_f64_vec();
            values.chunks_mut(width.max(1)).for_each(|row| softmax_row(op, row));
            Storage::F64(values)
        } else {
            let mut values = moved.to_f32_vec();
            values.chunks_mut(width.max(1)).for_each(|row| softmax_row(op, row));
            Storage::from_f32(values, dtype)
        };
        Tensor::from_storage(storage, moved.shape())?.transpose(axis as isize, last as isize)
    }
}

/// A reduction of integer (or bool) blocks, exactly: `sum` gives DT_INT64 (as torch), `amax`/`amin`
/// keep the dtype; `mean`/`var` have no integer result and ask for a cast, as torch does.
fn integer_reduce(op: ReduceOp, values: &[i64], size: usize, count: usize, dtype: DType) -> Result<Storage> {
    Ok(match op {
        ReduceOp::Sum => {
            Storage::I64(blocks(values, size, count).map(|b| b.iter().fold(0i64, |a, &x| a.wrapping_add(x))).collect())
        }
        ReduceOp::Amax => Storage::from_i64(
            blocks(values, size, count).map(|b| b.iter().copied().max().unwrap_or(0)).collect(),
            dtype,
        ),
        ReduceOp::Amin => Storage::from_i64(
            blocks(values, size, count).map(|b| b.iter().copied().min().unwrap_or(0)).collect(),
            dtype,
        ),
        ReduceOp::Mean | ReduceOp::Var => {
            return Err(TensorError::BadArgument {
                op: op.name(),
                detail: ArgumentDetail::NeedsFloat { dtype: dtype.pypto_name().to_string() },
            })
        }
    })
}

/// Splits `values` into `count` consecutive blocks of `size` (`size` may be 0: empty blocks).
fn blocks<T>(values: &[T], size: usize, count: usize) -> impl Iterator<Item = &[T]> {
    (0..count).map(move |i| &values[i * size..(i + 1) * size])
}

fn softmax_row<T: Real>(op: SoftmaxOp, row: &mut [T]) {
    let max = row.iter().fold(T::neg_infinity(), |acc, &x| acc.max(x));
    let shift = if max.is_finite() { max } else { T::zero() };
    let total = row.iter().fold(T::zero(), |acc, &x| acc + (x - shift).exp());
    match op {
        SoftmaxOp::Softmax => row.iter_mut().for_each(|x| *x = (*x - shift).exp() / total),
        SoftmaxOp::LogSoftmax => {
            let log_total = total.ln();
            row.iter_mut().for_each(|x| *x = *x - shift - log_total)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix() -> Tensor {
        // [[1, 2, 3], [4, 5, 6]]
        Tensor::from_f32(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], DType::F32).unwrap()
    }

    #[test]
    fn sums_over_each_dim() {
        assert_eq!(matrix().reduce(ReduceOp::Sum, Some(&[0]), false).unwrap().to_f32_vec(), vec![5.0, 7.0, 9.0]);
        let rows = matrix().reduce(ReduceOp::Sum, Some(&[-1]), true).unwrap();
        assert_eq!(rows.shape(), &[2, 1]);
        assert_eq!(rows.to_f32_vec(), vec![6.0, 15.0]);
        assert_eq!(matrix().reduce(ReduceOp::Sum, None, false).unwrap().item().unwrap(), 21.0);
    }

    #[test]
    fn variance_is_the_population_variance() {
        // var([1,2,3]) = ((1-2)² + 0 + (3-2)²)/3 = 2/3
        let var = matrix().reduce(ReduceOp::Var, Some(&[1]), false).unwrap().to_f64_vec();
        assert!((var[0] - 2.0 / 3.0).abs() < 1e-6 && (var[1] - 2.0 / 3.0).abs() < 1e-6);
    }

    #[test]
    fn amax_amin_mean() {
        assert_eq!(matrix().reduce(ReduceOp::Amax, Some(&[0]), false).unwrap().to_f32_vec(), vec![4.0, 5.0, 6.0]);
        assert_eq!(matrix().reduce(ReduceOp::Amin, Some(&[1]), false).unwrap().to_f32_vec(), vec![1.0, 4.0]);
        assert_eq!(matrix().reduce(ReduceOp::Mean, Some(&[0, 1]), false).unwrap().item().unwrap(), 3.5);
    }

    #[test]
    fn softmax_is_stable_at_1e4() {
        // softmax([1e4, 0, -1e4]) = [1, e^-1e4, …] ≈ [1, 0, 0]; log_softmax = [0, -1e4, -2e4].
        let x = Tensor::from_f32(vec![1e4, 0.0, -1e4], &[3], DType::F32).unwrap();
        assert_eq!(x.softmax_like(SoftmaxOp::Softmax, -1).unwrap().to_f32_vec(), vec![1.0, 0.0, 0.0]);
        assert_eq!(x.softmax_like(SoftmaxOp::LogSoftmax, 0).unwrap().to_f32_vec(), vec![0.0, -1e4, -2e4]);
    }

    #[test]
    fn softmax_along_first_dim() {
        // Columns of [[0, 0], [ln 3, 0]] → [[1/4, 1/2], [3/4, 1/2]].
        let x = Tensor::from_f64(vec![0.0, 0.0, 3f64.ln(), 0.0], &[2, 2], DType::F64).unwrap();
        let y = x.softmax_like(SoftmaxOp::Softmax, 0).unwrap().to_f64_vec();
        for (got, want) in y.iter().zip([0.25, 0.5, 0.75, 0.5]) {
            assert!((got - want).abs() < 1e-12);
        }
    }

    #[test]
    fn integer_reductions_are_exact() {
        // sum of int32 [2^31 − 1, 1] is 2^31 in int64 (torch promotes sums of integers to int64).
        let x = Tensor::from_storage(Storage::I32(vec![i32::MAX, 1, -5, 7]), &[2, 2]).unwrap();
        let total = x.reduce(ReduceOp::Sum, Some(&[1]), false).unwrap();
        assert_eq!((total.dtype(), total.storage().to_i64_vec()), (DType::I64, vec![1 << 31, 2]));
        let largest = x.reduce(ReduceOp::Amax, None, false).unwrap();
        assert_eq!((largest.dtype(), largest.storage().to_i64_vec()), (DType::I32, vec![i32::MAX as i64]));
        assert!(x.reduce(ReduceOp::Mean, None, false).is_err());
        assert!(x.softmax_like(SoftmaxOp::Softmax, -1).is_err());
    }

    #[test]
    fn empty_max_is_an_error() {
        let empty = Tensor::zeros(&[0, 3], DType::F32).unwrap();
        assert!(empty.reduce(ReduceOp::Amax, Some(&[0]), false).is_err());
        assert_eq!(empty.reduce(ReduceOp::Sum, Some(&[0]), false).unwrap().to_f32_vec(), vec![0.0; 3]);
    }

    #[test]
    fn a_partial_tile_reduces_its_valid_region_only() {
        // Rows of [[-3, -3, 9], [-1, -2, 9]] with 2 valid columns: the 9s lie past the valid region.
        let tile = Tensor::from_f32(vec![-3.0, -3.0, 9.0, -1.0, -2.0, 9.0], &[2, 3], DType::F32)
            .unwrap()
            .with_valid_shape(Some(vec![2, 2]));
        let row = |op| tile.reduce(op, Some(&[-1]), true).unwrap();
        assert_eq!(row(ReduceOp::Amax).to_f32_vec(), vec![-3.0, -1.0]);
        assert_eq!(row(ReduceOp::Amin).to_f32_vec(), vec![-3.0, -2.0]);
        assert_eq!(row(ReduceOp::Sum).to_f32_vec(), vec![-6.0, -3.0]);
        assert_eq!(row(ReduceOp::Mean).to_f32_vec(), vec![-3.0, -1.5]);
        assert_eq!(row(ReduceOp::Var).to_f32_vec(), vec![0.0, 0.25]);
        assert_eq!(row(ReduceOp::Amax).shape(), &[2, 1]);
        // Along the whole axis 0 nothing is cut: both rows count, the column past the edge too.
        assert_eq!(tile.reduce(ReduceOp::Amax, Some(&[0]), false).unwrap().to_f32_vec(), vec![-1.0, -2.0, 9.0]);
        // Softmax over [-1, -2]: e^-1/(e^-1+e^-2) = 1/(1+e^-1); the column past the edge stays 0.
        let soft = tile.softmax_like(SoftmaxOp::Softmax, -1).unwrap();
        let first = 1.0 / (1.0 + (-1.0f64).exp());
        let expected = [0.5, 0.5, 0.0, first, 1.0 - first, 0.0];
        for (got, want) in soft.to_f32_vec().iter().zip(expected) {
            assert!((*got as f64 - want).abs() < 1e-6, "{got} vs {want}");
        }
        assert_eq!(soft.valid_shape(), Some(&[2, 2][..]));
    }
}
