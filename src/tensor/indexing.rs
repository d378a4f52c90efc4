//! Ops that index along one dim: `gather`, `scatter` (replace, add or multiply), `topk` (its
//! indices; the values are a gather) and `cumsum`. Values move exactly, in their own dtype.

use serde::{Deserialize, Serialize};

use super::dtype::DType;
use super::handle::Tensor;
use super::shape::{contiguous_strides, for_each_offset, normalize_dim};
use super::slice_spec::SliceSpec;
use super::storage::{check_allocation, Storage};
use crate::error::{Result, TensorError};
use crate::messages::{ArgumentDetail, BoundsDetail, ShapeDetail};

/// How `scatter` combines a source value with the element it lands on (pypto's `reduce=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
pub enum ScatterMode {
    /// The source value replaces the element (`reduce=None`).
    Replace,
    /// The source value is added (`reduce="add"`).
    Add,
    /// The element is multiplied by the source value (`reduce="multiply"`).
    Multiply,
}

impl ScatterMode {
    /// The mode of pypto's `reduce=` string (`None` for no reduction).
    pub fn from_reduce(reduce: Option<&str>) -> Option<ScatterMode> {
        match reduce {
            None => Some(ScatterMode::Replace),
            Some("add") => Some(ScatterMode::Add),
            Some("multiply") => Some(ScatterMode::Multiply),
            Some(_) => None,
        }
    }
}

impl Tensor {
    /// `gather(input, dim, index)`: `out[p] = input[p with p[dim] = index[p]]`; the result has
    /// `index`'s shape and `input`'s dtype. `index` is DT_INT32 or DT_INT64 of the same rank, no
    /// larger than `input` in the other dims, with values in `0..input.shape[dim]`.
    pub fn gather(&self, dim: isize, index: &Tensor) -> Result<Tensor> {
        let axis = self.check_index("gather", dim, index)?;
        let count = index.numel();
        check_allocation("gather", count, self.dtype())?;
        let offsets = self.indexed_offsets("gather", axis, index)?;
        let source = self.storage();
        let mut out = Storage::from_i64(vec![0; count], self.dtype());
        for (position, &offset) in offsets.iter().enumerate() {
            out.copy_element(position, &source, offset);
        }
        Tensor::from_storage(out, index.shape())
    }

    /// Rows `rows` of a 2-D tensor, `columns` columns of each from column `first`, as the leading
    /// rows of a `[height, columns]` tile (a gather of whole rows, as pypto's paged-cache gathers
    /// load them). Only valid columns are copied; the rest, and the rows past `rows`, are zero and
    /// outside the result's valid shape `[rows.len(), copied columns]`.
    pub fn take_rows(&self, rows: &[usize], height: usize, (first, columns): (usize, usize)) -> Result<Tensor> {
        let width = self.shape().get(1).copied().unwrap_or(0);
        let valid_width = self.valid_shape().map_or(width, |valid| valid[1]);
        let copied = valid_width.saturating_sub(first).min(columns);
        check_allocation("gather", height * columns, self.dtype())?;
        let source = self.storage();
        let mut out = Storage::from_i64(vec![0; height * columns], self.dtype());
        for (position, &row) in rows.iter().enumerate().take(height) {
            for column in 0..copied {
                out.copy_element(position * columns + column, &source, row * width + first + column);
            }
        }
        let valid = vec![rows.len().min(height), copied];
        Ok(Tensor::from_storage(out, &[height, columns])?.with_valid_shape(Some(valid)))
    }

    /// `scatter(input, dim, index, src)`: a copy of `input` with `src[p]` written at
    /// `p with p[dim] = index[p]` (combined by `mode`). `src` is a tensor at least as large as
    /// `index` in every dim, or a 0-d tensor written everywhere `index` points.
    pub fn scatter(&self, dim: isize, index: &Tensor, source: &Tensor, mode: ScatterMode) -> Result<Tensor> {
        // A partial index tile scatters its valid region only (pypto's ops work on valid regions;
        // the rows past it hold no indices).
        if let Some(valid) = index.valid_shape() {
            let specs: Vec<SliceSpec> = valid.iter().map(|&count| SliceSpec::full(count)).collect();
            return self.scatter(dim, &index.slice(&specs)?.with_valid_shape(None), source, mode);
        }
        let axis = self.check_index("scatter", dim, index)?;
        let scalar = source.rank() == 0;
        if !scalar && (source.rank() != index.rank() || index.shape().iter().zip(source.shape()).any(|(&i, &s)| i > s))
        {
            return Err(TensorError::ShapeMismatch {
                op: "scatter",
                lhs: index.shape().to_vec(),
                rhs: source.shape().to_vec(),
                detail: ShapeDetail::ScatterSource,
            });
        }
        let offsets = self.indexed_offsets("scatter", axis, index)?;
        let source = source.cast_if_needed(self.dtype())?;
        let mut reads = Vec::with_capacity(offsets.len());
        let source_strides = if scalar { vec![0; index.rank()] } else { contiguous_strides(source.shape()) };
        for_each_offset(index.shape(), [&source_strides], |[from]| reads.push(from));
        let out = self.deep_copy().with_valid_shape(None);
        let values = source.storage();
        let integer = !self.dtype().is_float();
        out.write_storage(|storage| {
            for (&to, &from) in offsets.iter().zip(&reads) {
                match mode {
                    ScatterMode::Replace => storage.copy_element(to, &values, from),
                    // Integers combine exactly in i64 (wrapping to the dtype); floats in f64,
                    // rounded to the dtype after each update as a sequential loop would.
                    ScatterMode::Add if integer => {
                        storage.set_i64(to, storage.get_i64(to).wrapping_add(values.get_i64(from)))
                    }
                    ScatterMode::Multiply if integer => {
                        storage.set_i64(to, storage.get_i64(to).wrapping_mul(values.get_i64(from)))
                    }
                    ScatterMode::Add => storage.set_f64(to, storage.get_f64(to) + values.get_f64(from)),
                    ScatterMode::Multiply => storage.set_f64(to, storage.get_f64(to) * values.get_f64(from)),
                }
            }
        });
        Ok(out.with_valid_shape(self.valid_shape().map(<[usize]>::to_vec)))
    }

    /// The indices (DT_INT32) of the `k` largest (or smallest) elements along `dim`, in order:
    /// largest first (smallest first when `largest` is false); ties keep the lower index first and
    /// NaN counts as the largest value, as torch. The values are `gather(dim, indices)`.
    pub fn topk_indices(&self, k: usize, dim: isize, largest: bool) -> Result<Tensor> {
        let axis = normalize_dim("topk", dim, self.rank())?;
        let size = self.shape()[axis];
        if k == 0 || k > size {
            return Err(TensorError::BadArgument { op: "topk", detail: ArgumentDetail::TopkK { k, size, dim: axis } });
        }
        let moved = self.transpose(axis as isize, -1)?;
        let mut out = Vec::with_capacity(moved.numel() / size * k);
        let key = |value: f64| if value.is_nan() { f64::INFINITY } else { value };
        if self.dtype().is_float() {
            let values = moved.to_f64_vec();
            for row in values.chunks(size) {
                let mut order: Vec<usize> = (0..size).collect();
                // total_cmp after mapping NaN to +inf keeps NaN first among the largest; a stable
                // sort keeps equal values in index order.
                order.sort_by(|&a, &b| {
                    let by_value = key(row[a]).total_cmp(&key(row[b])).then(row[a].is_nan().cmp(&row[b].is_nan()));
                    if largest {
                        by_value.reverse()
                    } else {
                        by_value
                    }
                });
                out.extend(order[..k].iter().map(|&i| i as i64));
            }
        } else {
            let values = moved.storage().to_i64_vec();
            for row in values.chunks(size) {
                let mut order: Vec<usize> = (0..size).collect();
                order.sort_by(|&a, &b| if largest { row[b].cmp(&row[a]) } else { row[a].cmp(&row[b]) });
                out.extend(order[..k].iter().map(|&i| i as i64));
            }
        }
        let mut shape = moved.shape().to_vec();
        *shape.last_mut().expect("topk has at least one dim") = k;
        Tensor::from_storage(Storage::from_i64(out, DType::I32), &shape)?.transpose(axis as isize, -1)
    }

    /// Running sums along `dim`. Floats keep their dtype (accumulated in f32, f64 for F64);
    /// integers and bools give DT_INT64, as torch and pypto.
    pub fn cumsum(&self, dim: isize) -> Result<Tensor> {
        let axis = normalize_dim("cumsum", dim, self.rank())?;
        let moved = self.transpose(axis as isize, -1)?;
        let size = self.shape()[axis].max(1);
        let storage = match self.dtype() {
            DType::F64 => {
                let mut values = moved.to_f64_vec();
                values.chunks_mut(size).for_each(|row| prefix_sums(row, |a, b| a + b));
                Storage::F64(values)
            }
            dtype if dtype.is_float() => {
                let mut values = moved.to_f32_vec();
                values.chunks_mut(size).for_each(|row| prefix_sums(row, |a, b| a + b));
                Storage::from_f32(values, dtype)
            }
            _ => {
                let mut values = moved.storage().to_i64_vec();
                values.chunks_mut(size).for_each(|row| prefix_sums(row, i64::wrapping_add));
                Storage::I64(values)
            }
        };
        let valid = self.valid_shape().map(<[usize]>::to_vec);
        Ok(Tensor::from_storage(storage, moved.shape())?.transpose(axis as isize, -1)?.with_valid_shape(valid))
    }

    /// Checks `index` for gather/scatter along `dim`; returns the axis.
    fn check_index(&self, op: &'static str, dim: isize, index: &Tensor) -> Result<usize> {
        let axis = normalize_dim(op, dim, self.rank())?;
        if !matches!(index.dtype(), DType::I32 | DType::I64) {
            return Err(TensorError::BadArgument {
                op,
                detail: ArgumentDetail::IndexDtype { dtype: index.dtype().pypto_name().to_string() },
            });
        }
        let fits = (0..self.rank()).all(|d| d == axis || index.shape()[d] <= self.shape()[d]);
        if index.rank() != self.rank() || !fits {
            return Err(TensorError::ShapeMismatch {
                op,
                lhs: self.shape().to_vec(),
                rhs: index.shape().to_vec(),
                detail: ShapeDetail::IndexShape { dim: axis },
            });
        }
        Ok(axis)
    }

    /// The flat offset into this tensor that each element of `index` selects along `axis`.
    fn indexed_offsets(&self, op: &'static str, axis: usize, index: &Tensor) -> Result<Vec<usize>> {
        let strides = contiguous_strides(self.shape());
        let mut others = strides.clone();
        others[axis] = 0;
        let mut bases = Vec::with_capacity(index.numel());
        for_each_offset(index.shape(), [&others], |[base]| bases.push(base));
        let size = self.shape()[axis];
        let positions = index.storage().to_i64_vec();
        bases
            .into_iter()
            .zip(positions)
            .map(|(base, position)| match usize::try_from(position) {
                Ok(position) if position < size => Ok(base + position * strides[axis]),
                _ => Err(TensorError::OutOfBounds {
                    op,
                    detail: BoundsDetail::Index { index: position, dim: axis, size },
                }),
            })
            .collect()
    }
}

fn prefix_sums<T: Copy>(row: &mut [T], add: impl Fn(T, T) -> T) {
    for i in 1..row.len() {
        row[i] = add(row[i - 1], row[i]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(values: &[i64], shape: &[usize], dtype: DType) -> Tensor {
        Tensor::from_storage(Storage::from_i64(values.to_vec(), dtype), shape).unwrap()
    }

    fn grid() -> Tensor {
        // [[0, 1, 2], [3, 4, 5]]
        Tensor::arange(0.0, 6.0, 1.0, DType::F32).unwrap().reshape(&[2, 3]).unwrap()
    }

    #[test]
    fn gather_picks_along_each_dim() {
        // dim 1: [[x[0][2], x[0][0]], [x[1][1], x[1][1]]] = [[2, 0], [4, 4]].
        let index = ints(&[2, 0, 1, 1], &[2, 2], DType::I64);
        assert_eq!(grid().gather(1, &index).unwrap().to_f64_vec(), vec![2.0, 0.0, 4.0, 4.0]);
        // dim 0 with a [1, 3] index: [x[1][0], x[0][1], x[1][2]] = [3, 1, 5].
        let rows = ints(&[1, 0, 1], &[1, 3], DType::I32);
        assert_eq!(grid().gather(0, &rows).unwrap().to_f64_vec(), vec![3.0, 1.0, 5.0]);
        assert!(grid().gather(1, &ints(&[3], &[1, 1], DType::I64)).is_err());
        assert!(grid().gather(1, &grid()).is_err());
    }

    #[test]
    fn scatter_replaces_adds_and_multiplies() {
        // pypto's doc example: zeros [3, 5], dim 0, index [[1, 2], [0, 1]], src 2.0.
        let x = Tensor::zeros(&[3, 5], DType::F32).unwrap();
        let index = ints(&[1, 2, 0, 1], &[2, 2], DType::I64);
        let out = x.scatter(0, &index, &Tensor::scalar(2.0, DType::F32), ScatterMode::Replace).unwrap();
        let expected = [2., 0., 0., 0., 0., 2., 2., 0., 0., 0., 0., 2., 0., 0., 0.];
        assert_eq!(out.to_f64_vec(), expected);
        // add: index [[0, 0]] along dim 1 sends both src values to column 0: 0 + 1 + 2 = 3.
        let src = Tensor::from_f64(vec![1.0, 2.0], &[1, 2], DType::F32).unwrap();
        let added = grid().scatter(1, &ints(&[0, 0], &[1, 2], DType::I64), &src, ScatterMode::Add).unwrap();
        assert_eq!(added.to_f64_vec(), vec![3.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        let scaled = grid().scatter(1, &ints(&[2], &[1, 1], DType::I32), &src, ScatterMode::Multiply).unwrap();
        assert_eq!(scaled.to_f64_vec(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    }

    #[test]
    fn a_partial_index_tile_scatters_its_valid_rows_only() {
        // index [[2, 1], [0, 0]] with one valid row, along dim 0 into zeros [3, 2]: row 1 (read as
        // index 0 past the valid region) must not write 7 into row 0.
        let index = ints(&[2, 1, 0, 0], &[2, 2], DType::I64).with_valid_shape(Some(vec![1, 2]));
        let x = Tensor::zeros(&[3, 2], DType::F32).unwrap();
        let out = x.scatter(0, &index, &Tensor::scalar(7.0, DType::F32), ScatterMode::Replace).unwrap();
        assert_eq!(out.to_f64_vec(), vec![0.0, 0.0, 0.0, 7.0, 7.0, 0.0]);
    }

    #[test]
    fn topk_orders_and_breaks_ties_by_index() {
        let x = Tensor::from_f64(vec![1.0, 3.0, 3.0, f64::NAN, 0.0, 2.0], &[2, 3], DType::F32).unwrap();
        let largest = x.topk_indices(2, -1, true).unwrap();
        assert_eq!(largest.dtype(), DType::I32);
        // Row 0: 3 at 1 and 2 (tie: lower index first); row 1: NaN is the largest, then 2.
        assert_eq!(largest.storage().to_i64_vec(), vec![1, 2, 0, 2]);
        assert_eq!(x.topk_indices(1, 1, false).unwrap().storage().to_i64_vec(), vec![0, 1]);
        assert!(x.topk_indices(4, -1, true).is_err());
    }

    #[test]
    fn cumsum_along_dims_and_int_to_int64() {
        assert_eq!(grid().cumsum(1).unwrap().to_f64_vec(), vec![0.0, 1.0, 3.0, 3.0, 7.0, 12.0]);
        assert_eq!(grid().cumsum(0).unwrap().to_f64_vec(), vec![0.0, 1.0, 2.0, 3.0, 5.0, 7.0]);
        let counts = ints(&[1, 0, 1, 1], &[4], DType::Bool).cumsum(0).unwrap();
        assert_eq!((counts.dtype(), counts.storage().to_i64_vec()), (DType::I64, vec![1, 1, 2, 3]));
    }
}
