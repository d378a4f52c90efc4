//! Matrix multiplication: 2-D and batched (batch dims broadcast), optional transposes, output dtype.
//! f32 compute through the packed SIMD GEMM; the f64 reference path is a plain triple loop.

use super::dtype::DType;
use super::handle::Tensor;
use super::shape::{broadcast_shapes, broadcast_strides, contiguous_strides, element_count, for_each_offset};
use super::simd::{self, MatrixRef, PackSource};
use super::storage::{check_allocation, Storage};
use crate::error::{Result, TensorError};
use crate::messages::ShapeDetail;

impl Tensor {
    /// `op(a) @ op(b)` where `op` transposes the last two dims when asked. The result dtype is
    /// `out_dtype`, or the promotion of the inputs; accumulation is in f32 (f64 for the reference).
    pub fn matmul(&self, other: &Tensor, a_trans: bool, b_trans: bool, out_dtype: Option<DType>) -> Result<Tensor> {
        if self.rank() < 2 || other.rank() < 2 {
            return Err(TensorError::ShapeMismatch {
                op: "matmul",
                lhs: self.shape().to_vec(),
                rhs: other.shape().to_vec(),
                detail: ShapeDetail::MatmulRank,
            });
        }
        let (a_rank, b_rank) = (self.rank(), other.rank());
        let (m, k) = oriented(self.shape(), a_trans);
        let (k2, n) = oriented(other.shape(), b_trans);
        if k != k2 {
            return Err(TensorError::ShapeMismatch {
                op: "matmul",
                lhs: self.shape().to_vec(),
                rhs: other.shape().to_vec(),
                detail: ShapeDetail::InnerDims { left: k, right: k2 },
            });
        }
        let (a_batch_dims, b_batch_dims) = (&self.shape()[..a_rank - 2], &other.shape()[..b_rank - 2]);
        // Report the operands' full shapes: the batch dims alone would not tell the user which call failed.
        let batch = broadcast_shapes("matmul", a_batch_dims, b_batch_dims).map_err(|_| TensorError::ShapeMismatch {
            op: "matmul",
            lhs: self.shape().to_vec(),
            rhs: other.shape().to_vec(),
            detail: ShapeDetail::BatchDims { left: a_batch_dims.to_vec(), right: b_batch_dims.to_vec() },
        })?;
        let mut shape = batch.clone();
        shape.extend([m, n]);
        let count = element_count("matmul", &shape)?;
        let dtype = out_dtype.unwrap_or_else(|| self.dtype().promote(other.dtype()));
        check_allocation("matmul", count, dtype)?;
        let a_batch = broadcast_strides(&self.shape()[..a_rank - 2], &batch);
        let b_batch = broadcast_strides(&other.shape()[..b_rank - 2], &batch);
        let (a_size, b_size) = (m * k, k * n);
        // Integer operands or results take the f64 path: exact while every partial sum stays below
        // 2^53 (the f32 GEMM would round products above 2^24).
        let exact = |dtype: DType| dtype == DType::F64 || !dtype.is_float();
        let compute_f64 = exact(self.dtype()) || exact(other.dtype()) || exact(dtype);
        let storage = if compute_f64 {
            let (a, b) = (self.to_f64_vec(), other.to_f64_vec());
            let mut out = vec![0.0f64; count];
            let mut chunk = 0;
            for_each_offset(&batch, [&a_batch, &b_batch], |[ia, ib]| {
                let a = matrix(&a[ia * a_size..(ia + 1) * a_size], self.shape(), a_trans);
                let b = matrix(&b[ib * b_size..(ib + 1) * b_size], other.shape(), b_trans);
                reference_gemm(a, b, &mut out[chunk * m * n..(chunk + 1) * m * n]);
                chunk += 1;
            });
            Storage::from_f64(out, dtype)
        } else {
            // The operands stay in their storage dtype: the GEMM widens them while packing.
            let (a_storage, b_storage) = (self.storage(), other.storage());
            let mut out = vec![0.0f32; count];
            let mut chunk = 0;
            for_each_offset(&batch, [&a_batch, &b_batch], |[ia, ib]| {
                let a = Operand {
                    storage: &a_storage,
                    range: ia * a_size..(ia + 1) * a_size,
                    shape: self.shape(),
                    transposed: a_trans,
                };
                let b = Operand {
                    storage: &b_storage,
                    range: ib * b_size..(ib + 1) * b_size,
                    shape: other.shape(),
                    transposed: b_trans,
                };
                stored_gemm(a, b, &mut out[chunk * m * n..(chunk + 1) * m * n]);
                chunk += 1;
            });
            Storage::from_f32(out, dtype)
        };
        let valid = (self.valid_shape().is_some() || other.valid_shape().is_some()).then(|| {
            let (vm, _) = oriented(&self.valid_or_full_shape(), a_trans);
            let (_, vn) = oriented(&other.valid_or_full_shape(), b_trans);
            let mut valid = batch.clone();
            valid.extend([vm, vn]);
            valid
        });
        Ok(Tensor::from_storage(storage, &shape)?.with_valid_shape(valid))
    }
}

/// (rows, cols) of the last two dims after the optional transpose.
fn oriented(shape: &[usize], transposed: bool) -> (usize, usize) {
    let (rows, cols) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    if transposed {
        (cols, rows)
    } else {
        (rows, cols)
    }
}

/// The matrix `op(x)` over one batch slice of a row-major `[.., r, c]` buffer.
fn matrix<'a, T>(data: &'a [T], shape: &[usize], transposed: bool) -> MatrixRef<'a, T> {
    let (stored_rows, stored_cols) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    let strides = contiguous_strides(&[stored_rows, stored_cols]);
    if transposed {
        MatrixRef { data, rows: stored_cols, cols: stored_rows, row_stride: strides[1], col_stride: strides[0] }
    } else {
        MatrixRef { data, rows: stored_rows, cols: stored_cols, row_stride: strides[0], col_stride: strides[1] }
    }
}

/// One batch slice of a matmul operand, still in its storage dtype.
struct Operand<'a> {
    storage: &'a Storage,
    range: std::ops::Range<usize>,
    shape: &'a [usize],
    transposed: bool,
}

/// `out = a @ b` through the packed GEMM, dispatched on both storage dtypes.
fn stored_gemm(a: Operand<'_>, b: Operand<'_>, out: &mut [f32]) {
    match a.storage {
        Storage::F32(values) => gemm_with_left(matrix(&values[a.range], a.shape, a.transposed), b, out),
        Storage::Bf16(values) => gemm_with_left(matrix(&values[a.range], a.shape, a.transposed), b, out),
        Storage::F16(values) => gemm_with_left(matrix(&values[a.range], a.shape, a.transposed), b, out),
        Storage::F64(values) => gemm_with_left(matrix(&values[a.range], a.shape, a.transposed), b, out),
        _ => unreachable!("integer operands take the f64 path"),
    }
}

fn gemm_with_left<A: PackSource>(a: MatrixRef<'_, A>, b: Operand<'_>, out: &mut [f32]) {
    match b.storage {
        Storage::F32(values) => simd::gemm(a, matrix(&values[b.range], b.shape, b.transposed), out),
        Storage::Bf16(values) => simd::gemm(a, matrix(&values[b.range], b.shape, b.transposed), out),
        Storage::F16(values) => simd::gemm(a, matrix(&values[b.range], b.shape, b.transposed), out),
        Storage::F64(values) => simd::gemm(a, matrix(&values[b.range], b.shape, b.transposed), out),
        _ => unreachable!("integer operands take the f64 path"),
    }
}

fn reference_gemm(a: MatrixRef<'_, f64>, b: MatrixRef<'_, f64>, out: &mut [f64]) {
    for i in 0..a.rows {
        for j in 0..b.cols {
            out[i * b.cols + j] = (0..a.cols).map(|p| a.at(i, p) * b.at(p, j)).sum();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_matmul_by_hand() {
        // [[1,2],[3,4]] @ [[5,6],[7,8]] = [[19,22],[43,50]]
        let a = Tensor::from_f32(vec![1., 2., 3., 4.], &[2, 2], DType::F32).unwrap();
        let b = Tensor::from_f32(vec![5., 6., 7., 8.], &[2, 2], DType::F32).unwrap();
        assert_eq!(a.matmul(&b, false, false, None).unwrap().to_f32_vec(), vec![19., 22., 43., 50.]);
        // aᵀ @ b = [[1,3],[2,4]] @ b = [[26,30],[38,44]]
        assert_eq!(a.matmul(&b, true, false, None).unwrap().to_f32_vec(), vec![26., 30., 38., 44.]);
        // a @ bᵀ = [[17,23],[39,53]]
        assert_eq!(a.matmul(&b, false, true, None).unwrap().to_f32_vec(), vec![17., 23., 39., 53.]);
    }

    #[test]
    fn mismatched_inner_dims_name_both() {
        let a = Tensor::zeros(&[4, 3], DType::F32).unwrap();
        let message = a.matmul(&a, false, false, None).unwrap_err().to_string();
        assert_eq!(message, "matmul: shapes [4, 3] and [4, 3] do not match: inner dims 3 ≠ 4");
    }

    #[test]
    fn batch_mismatch_names_the_full_shapes() {
        let error = Tensor::zeros(&[2, 2, 3], DType::F32).unwrap().matmul(
            &Tensor::zeros(&[3, 3, 4], DType::F32).unwrap(),
            false,
            false,
            None,
        );
        assert_eq!(
            error.unwrap_err().to_string(),
            "matmul: shapes [2, 2, 3] and [3, 3, 4] do not match: batch dims [2] and [3] do not broadcast"
        );
    }

    #[test]
    fn batched_with_broadcast_and_out_dtype() {
        let a = Tensor::ones(&[2, 1, 3, 4], DType::Bf16).unwrap();
        let b = Tensor::ones(&[5, 4, 2], DType::Bf16).unwrap();
        let c = a.matmul(&b, false, false, Some(DType::F32)).unwrap();
        assert_eq!(c.shape(), &[2, 5, 3, 2]);
        assert_eq!(c.dtype(), DType::F32);
        assert!(c.to_f32_vec().iter().all(|&x| x == 4.0));
    }

    #[test]
    fn valid_region_follows_rows_of_a_and_cols_of_b() {
        let a = Tensor::ones(&[4, 8], DType::F32).unwrap().with_valid_shape(Some(vec![3, 8]));
        let b = Tensor::ones(&[8, 16], DType::F32).unwrap().with_valid_shape(Some(vec![8, 10]));
        assert_eq!(a.matmul(&b, false, false, None).unwrap().valid_shape(), Some(&[3, 10][..]));
    }
}
