//! Ops that move values without arithmetic: reshape, permute/transpose, concat, strided slices,
//! tile views with a valid region, and assemble (write a tile into a tensor).

use super::handle::Tensor;
use super::shape::{broadcast_shapes, broadcast_strides, contiguous_strides, element_count, normalize_dim};
pub use super::slice_spec::SliceSpec;
use super::storage::{check_allocation, Storage};
use super::strided::{converts_in_copy, copy_strided, filled, gather};
use crate::error::{Result, TensorError};
use crate::messages::{ArgumentDetail, BoundsDetail, ShapeDetail};

impl Tensor {
    /// The same values with another shape of equal element count (aliases the buffer).
    pub fn reshape(&self, shape: &[usize]) -> Result<Tensor> {
        let count = element_count("reshape", shape)?;
        if count != self.numel() {
            return Err(TensorError::ShapeMismatch {
                op: "reshape",
                lhs: self.shape().to_vec(),
                rhs: shape.to_vec(),
                detail: ShapeDetail::ElementCount { count: self.numel(), target: count },
            });
        }
        Ok(self.reshaped_alias(shape))
    }

    /// Reorders dims: result dim `i` is input dim `order[i]` (a copy).
    pub fn permute(&self, order: &[usize]) -> Result<Tensor> {
        let rank = self.rank();
        let mut seen = vec![false; rank];
        if order.len() != rank || order.iter().any(|&a| a >= rank || std::mem::replace(&mut seen[a], true)) {
            return Err(TensorError::BadArgument {
                op: "permute",
                detail: ArgumentDetail::NotAPermutation { order: order.to_vec(), rank },
            });
        }
        if order.iter().enumerate().all(|(i, &a)| i == a) {
            return Ok(self.clone());
        }
        let shape: Vec<usize> = order.iter().map(|&a| self.shape()[a]).collect();
        let own = contiguous_strides(self.shape());
        let strides: Vec<usize> = order.iter().map(|&a| own[a]).collect();
        let storage = gather(&self.storage(), &shape, &strides, 0);
        let valid = self.valid_shape().map(|v| order.iter().map(|&a| v[a]).collect());
        Ok(Tensor::from_storage(storage, &shape)?.with_valid_shape(valid))
    }

    /// Swaps two dims (a copy); `.T` of a matrix is `transpose(0, 1)`.
    pub fn transpose(&self, dim0: isize, dim1: isize) -> Result<Tensor> {
        let a = normalize_dim("transpose", dim0, self.rank())?;
        let b = normalize_dim("transpose", dim1, self.rank())?;
        let mut order: Vec<usize> = (0..self.rank()).collect();
        order.swap(a, b);
        self.permute(&order)
    }

    /// Joins tensors of equal shape except along `dim`; the dtype is the promotion of all inputs.
    pub fn concat(tensors: &[Tensor], dim: isize) -> Result<Tensor> {
        let first =
            tensors.first().ok_or(TensorError::BadArgument { op: "concat", detail: ArgumentDetail::ConcatNothing })?;
        let axis = normalize_dim("concat", dim, first.rank())?;
        let mut shape = first.shape().to_vec();
        shape[axis] = 0;
        let mut dtype = first.dtype();
        for tensor in tensors {
            let same_rank = tensor.rank() == first.rank();
            let others_match =
                same_rank && (0..first.rank()).all(|a| a == axis || tensor.shape()[a] == first.shape()[a]);
            if !others_match {
                return Err(TensorError::ShapeMismatch {
                    op: "concat",
                    lhs: first.shape().to_vec(),
                    rhs: tensor.shape().to_vec(),
                    detail: ShapeDetail::ConcatDims { dim: axis },
                });
            }
            shape[axis] += tensor.shape()[axis];
            dtype = dtype.promote(tensor.dtype());
        }
        let count = element_count("concat", &shape)?;
        check_allocation("concat", count, dtype)?;
        let outer: usize = shape[..axis].iter().product();
        let inner: usize = shape[axis + 1..].iter().product();
        // Each part in the result dtype, copied element by element (exact for int64 too).
        let parts = tensors.iter().map(|tensor| tensor.cast_if_needed(dtype)).collect::<Result<Vec<_>>>()?;
        let mut out = Storage::from_i64(vec![0; count], dtype);
        let mut position = 0;
        for row in 0..outer {
            for part in &parts {
                let width = part.shape()[axis] * inner;
                let storage = part.storage();
                for offset in row * width..(row + 1) * width {
                    out.copy_element(position, &storage, offset);
                    position += 1;
                }
            }
        }
        Tensor::from_storage(out, &shape)
    }

    /// A strided slice (a copy), one spec per dim.
    pub fn slice(&self, specs: &[SliceSpec]) -> Result<Tensor> {
        let (shape, strides, base) = self.slice_geometry(specs)?;
        check_allocation("slice", shape.iter().product(), self.dtype())?;
        let storage = gather(&self.storage(), &shape, &strides, base);
        Tensor::from_storage(storage, &shape)
    }

    /// Writes `value` (broadcast to the slice's shape, rounded to this dtype) into a strided slice, in
    /// place: `x[specs] = value`.
    pub fn assign_slice(&self, specs: &[SliceSpec], value: &Tensor) -> Result<()> {
        let (shape, strides, base) = self.slice_geometry(specs)?;
        // As numpy and torch do, a value with more dims than the slice may drop leading dims of
        // size 1 (`m[:] = x.amax(-1, keepdim=True)` with `m` of shape [1]).
        let extra = value.rank().saturating_sub(shape.len());
        let value_shape = match value.shape()[..extra].iter().all(|&size| size == 1) {
            true => &value.shape()[extra..],
            false => value.shape(),
        };
        let target = broadcast_shapes("assign", value_shape, &shape)?;
        if target != shape {
            return Err(TensorError::ShapeMismatch {
                op: "assign",
                lhs: value.shape().to_vec(),
                rhs: shape,
                detail: ShapeDetail::ValueToSlice,
            });
        }
        // f32 to and from f16/bf16 converts during the copy (as the cast would), without a cast copy.
        let direct = value.dtype() == self.dtype() || converts_in_copy(value.dtype(), self.dtype());
        // A value in this very buffer (`out.move(f(out))` where `f` wrote in place) is copied
        // first: the copy reads it while it writes here.
        let value = match (direct, value.buffer_id() == self.buffer_id()) {
            (true, false) => value.clone(),
            (true, true) => value.deep_copy(),
            (false, _) => value.cast(self.dtype())?,
        };
        let source = value.storage();
        let source_strides = broadcast_strides(value_shape, &shape);
        // Negative steps are wrapped offsets (see `slice_geometry`): the copy wraps its sums too.
        self.write_storage(|storage| copy_strided(storage, (base, &strides), &source, (0, &source_strides), &shape));
        Ok(())
    }

    /// `self[specs] = source[source_specs]` (equal shapes), each value rounded to this dtype: the
    /// same as `assign_slice(specs, &source.slice(source_specs)?)`, without the slice's copy where
    /// the two are different buffers and the dtypes match or convert in the copy.
    pub fn assign_slice_from(&self, specs: &[SliceSpec], source: &Tensor, source_specs: &[SliceSpec]) -> Result<()> {
        let direct = source.dtype() == self.dtype() || converts_in_copy(source.dtype(), self.dtype());
        if !direct || source.buffer_id() == self.buffer_id() {
            return self.assign_slice(specs, &source.slice(source_specs)?);
        }
        let (shape, strides, base) = self.slice_geometry(specs)?;
        let (source_shape, source_strides, source_base) = source.slice_geometry(source_specs)?;
        if source_shape != shape {
            return Err(TensorError::ShapeMismatch {
                op: "assign",
                lhs: source_shape,
                rhs: shape,
                detail: ShapeDetail::ValueToSlice,
            });
        }
        let from = source.storage();
        self.write_storage(|storage| {
            copy_strided(storage, (base, &strides), &from, (source_base, &source_strides), &shape)
        });
        Ok(())
    }

    fn slice_geometry(&self, specs: &[SliceSpec]) -> Result<(Vec<usize>, Vec<usize>, usize)> {
        if specs.len() != self.rank() {
            return Err(TensorError::BadArgument {
                op: "slice",
                detail: ArgumentDetail::IndexCount { count: specs.len(), rank: self.rank() },
            });
        }
        let own = contiguous_strides(self.shape());
        let mut base = 0isize;
        let mut strides = Vec::with_capacity(specs.len());
        for (axis, spec) in specs.iter().enumerate() {
            let last = spec.start as isize + spec.step * (spec.count as isize - 1);
            if spec.count > 0 && (spec.start >= self.shape()[axis] || last < 0 || last >= self.shape()[axis] as isize) {
                return Err(TensorError::OutOfBounds {
                    op: "slice",
                    detail: BoundsDetail::Slice { dim: axis, size: self.shape()[axis] },
                });
            }
            base += spec.start as isize * own[axis] as isize;
            strides.push(spec.step * own[axis] as isize);
        }
        // Negative steps walk backwards; express them as wrapping offsets from `base`.
        let strides = strides.into_iter().map(|s| s as usize).collect();
        Ok((specs.iter().map(|s| s.count).collect(), strides, base as usize))
    }

    /// A tile of `shape` read at `offsets`: elements inside `valid_shape` (default: all of `shape`)
    /// come from this tensor, the rest read as 0. The valid region must lie inside the tensor.
    pub fn view(&self, shape: &[usize], offsets: &[usize], valid_shape: Option<&[usize]>) -> Result<Tensor> {
        let valid = valid_shape.unwrap_or(shape).to_vec();
        if shape.len() != self.rank() || offsets.len() != self.rank() || valid.len() != self.rank() {
            return Err(TensorError::BadArgument {
                op: "view",
                detail: ArgumentDetail::ViewEntries { rank: self.rank() },
            });
        }
        for axis in 0..self.rank() {
            if valid[axis] > shape[axis] {
                return Err(TensorError::BadArgument {
                    op: "view",
                    detail: ArgumentDetail::ValidShapeLarger { valid: valid.clone(), shape: shape.to_vec() },
                });
            }
            let end = offsets[axis].saturating_add(valid[axis]);
            if end > self.shape()[axis] {
                let fits = self.shape()[axis].saturating_sub(offsets[axis]);
                return Err(TensorError::OutOfBounds {
                    op: "view",
                    detail: BoundsDetail::View {
                        offset: offsets[axis],
                        count: valid[axis],
                        dim: axis,
                        size: self.shape()[axis],
                        fits,
                    },
                });
            }
        }
        let count = element_count("view", shape)?;
        check_allocation("view", count, self.dtype())?;
        let source = self.storage();
        let own = contiguous_strides(self.shape());
        let base: usize = offsets.iter().zip(&own).map(|(o, s)| o * s).sum();
        let mut tile = filled(count, 0.0, self.dtype());
        copy_strided(&mut tile, (0, &contiguous_strides(shape)), &source, (base, &own), &valid);
        Ok(Tensor::from_storage(tile, shape)?.with_valid_shape(Some(valid)))
    }

    /// Writes the valid region of `tile` into this tensor at `offsets`, in place (values rounded to
    /// this tensor's dtype). Only the valid region is written, so a ragged last tile stays in bounds.
    pub fn assemble(&self, tile: &Tensor, offsets: &[usize]) -> Result<()> {
        let specs = self.assemble_specs(tile, offsets)?;
        let valid = tile.valid_or_full_shape();
        let full: Vec<SliceSpec> = valid.iter().map(|&v| SliceSpec::full(v)).collect();
        let region = tile.slice(&full)?;
        self.assign_slice(&specs, &region)
    }

    /// The slice of this tensor that `assemble(tile, offsets)` writes, checked against the edges.
    pub fn assemble_specs(&self, tile: &Tensor, offsets: &[usize]) -> Result<Vec<SliceSpec>> {
        let valid = tile.valid_or_full_shape();
        if tile.rank() != self.rank() || offsets.len() != self.rank() {
            return Err(TensorError::ShapeMismatch {
                op: "assemble",
                lhs: tile.shape().to_vec(),
                rhs: self.shape().to_vec(),
                detail: ShapeDetail::AssembleRank { offsets: offsets.len() },
            });
        }
        for axis in 0..self.rank() {
            if offsets[axis].saturating_add(valid[axis]) > self.shape()[axis] {
                return Err(TensorError::OutOfBounds {
                    op: "assemble",
                    detail: BoundsDetail::Assemble {
                        count: valid[axis],
                        offset: offsets[axis],
                        dim: axis,
                        size: self.shape()[axis],
                    },
                });
            }
        }
        Ok(offsets.iter().zip(&valid).map(|(&start, &count)| SliceSpec { start, step: 1, count }).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::DType;

    fn grid() -> Tensor {
        // [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
        Tensor::arange(0.0, 12.0, 1.0, DType::F32).unwrap().reshape(&[3, 4]).unwrap()
    }

    #[test]
    fn transpose_and_permute() {
        assert_eq!(
            grid().transpose(0, 1).unwrap().to_f32_vec(),
            vec![0., 4., 8., 1., 5., 9., 2., 6., 10., 3., 7., 11.]
        );
        assert!(grid().permute(&[0, 0]).is_err());
    }

    #[test]
    fn python_slices_resolve_like_python() {
        // list(range(5))[::-2] = [4, 2, 0]; [1:-1] = [1, 2, 3]; [10:] = []
        assert_eq!(
            SliceSpec::from_python(None, None, Some(-2), 5).unwrap(),
            SliceSpec { start: 4, step: -2, count: 3 }
        );
        assert_eq!(
            SliceSpec::from_python(Some(1), Some(-1), None, 5).unwrap(),
            SliceSpec { start: 1, step: 1, count: 3 }
        );
        assert_eq!(SliceSpec::from_python(Some(10), None, None, 5).unwrap().count, 0);
    }

    #[test]
    fn huge_python_steps_select_one_element() {
        // list(range(5))[::2**63-1] = [0]; [::-2**63] = [4]; [1:4:2**40] = [1]
        assert_eq!(
            SliceSpec::from_python(None, None, Some(i64::MAX), 5).unwrap(),
            SliceSpec { start: 0, step: 1, count: 1 }
        );
        assert_eq!(
            SliceSpec::from_python(None, None, Some(i64::MIN), 5).unwrap(),
            SliceSpec { start: 4, step: 1, count: 1 }
        );
        let spec = SliceSpec::from_python(Some(1), Some(4), Some(1 << 40), 5).unwrap();
        assert_eq!(grid().slice(&[SliceSpec::full(3), spec]).unwrap().to_f32_vec(), vec![1.0, 5.0, 9.0]);
    }

    #[test]
    fn negative_step_slice() {
        let row = grid()
            .slice(&[
                SliceSpec { start: 1, step: 1, count: 1 },
                SliceSpec::from_python(None, None, Some(-1), 4).unwrap(),
            ])
            .unwrap();
        assert_eq!(row.to_f32_vec(), vec![7.0, 6.0, 5.0, 4.0]);
    }

    #[test]
    fn view_pads_outside_valid_region_with_zeros() {
        // A 2×3 tile at (2, 2) of the 3×4 grid: only 1×2 elements exist.
        let error = grid().view(&[2, 3], &[2, 2], None).unwrap_err().to_string();
        assert!(error.contains("valid_shape"), "{error}");
        let tile = grid().view(&[2, 3], &[2, 2], Some(&[1, 2])).unwrap();
        assert_eq!(tile.to_f32_vec(), vec![10.0, 11.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(tile.valid_shape(), Some(&[1, 2][..]));
    }

    #[test]
    fn assemble_writes_only_the_valid_region() {
        let out = Tensor::zeros(&[3, 4], DType::F32).unwrap();
        let tile = Tensor::ones(&[2, 3], DType::F32).unwrap().with_valid_shape(Some(vec![1, 2]));
        out.assemble(&tile, &[2, 2]).unwrap();
        assert_eq!(out.to_f32_vec(), vec![0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 1., 1.]);
        assert!(out.assemble(&Tensor::ones(&[2, 3], DType::F32).unwrap(), &[2, 2]).is_err());
    }

    #[test]
    fn concat_keeps_int64_exact() {
        let big = Tensor::from_storage(Storage::I64(vec![(1 << 60) + 1]), &[1]).unwrap();
        let small = Tensor::from_storage(Storage::I8(vec![-3]), &[1]).unwrap();
        let joined = Tensor::concat(&[big, small], 0).unwrap();
        assert_eq!((joined.dtype(), joined.storage().to_i64_vec()), (DType::I64, vec![(1 << 60) + 1, -3]));
    }

    #[test]
    fn concat_along_each_dim() {
        let joined = Tensor::concat(&[grid(), grid()], 1).unwrap();
        assert_eq!(joined.shape(), &[3, 8]);
        assert_eq!(&joined.to_f32_vec()[..8], &[0., 1., 2., 3., 0., 1., 2., 3.]);
        assert!(Tensor::concat(&[grid(), grid().transpose(0, 1).unwrap()], 0).is_err());
    }

    #[test]
    fn assign_through_a_negative_step() {
        // x[0, ::-1] = [10, 11, 12, 13] writes the row reversed: [13, 12, 11, 10].
        let x = grid();
        let value = Tensor::arange(10.0, 14.0, 1.0, DType::F32).unwrap();
        x.assign_slice(
            &[SliceSpec { start: 0, step: 1, count: 1 }, SliceSpec::from_python(None, None, Some(-1), 4).unwrap()],
            &value,
        )
        .unwrap();
        assert_eq!(&x.to_f32_vec()[..4], &[13.0, 12.0, 11.0, 10.0]);
    }

    #[test]
    fn assign_slice_broadcasts_and_aliases() {
        let x = grid();
        let alias = x.clone();
        x.assign_slice(
            &[SliceSpec::full(3), SliceSpec { start: 0, step: 2, count: 2 }],
            &Tensor::scalar(-1.0, DType::F32),
        )
        .unwrap();
        assert_eq!(&alias.to_f32_vec()[..4], &[-1.0, 1.0, -1.0, 3.0]);
    }
}
