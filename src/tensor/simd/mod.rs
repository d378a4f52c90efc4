//! The hot loops of the tensor core. Each entry point picks the wasm `simd128` kernel when the
//! build has it and the portable kernel otherwise. Both follow one order of operations (see
//! `packing` for the GEMM, `portable::combine_sums` for the reductions), so they agree bit for bit
//! (but for the sign of the zero that `Maximum`/`Minimum` pick between −0 and +0), except the
//! vector exp family (Exp, Sigmoid, Silu), which stays within 1–3 ulp of the exact value.

mod packing;
pub mod portable;
#[cfg(any(test, all(target_arch = "wasm32", target_feature = "simd128")))]
mod sine;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm_exp;
#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
use portable as active;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use wasm as active;

use super::elementwise::{BinaryOp, UnaryOp};
pub use packing::PackSource;

/// Whether this build runs the wasm `simd128` kernels (else the portable ones).
pub const USES_WASM_SIMD: bool = cfg!(all(target_arch = "wasm32", target_feature = "simd128"));

/// Whether this build's GEMM fuses multiply and add with wasm `relaxed-simd` (the second build).
pub const USES_RELAXED_SIMD: bool = cfg!(all(target_arch = "wasm32", target_feature = "relaxed-simd"));

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

/// `out = a @ b` with `out` row-major `a.rows × b.cols`, overwritten (packed-panel GEMM); the
/// operands may be stored as f32, bf16 or f16 and are widened while packing.
/// Natively on x86-64 the AVX micro-kernel runs where the CPU has it (bit-identical results).
pub fn gemm<A: PackSource, B: PackSource>(a: MatrixRef<'_, A>, b: MatrixRef<'_, B>, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if x86::available() {
        return x86::gemm(a, b, out);
    }
    active::gemm(a, b, out)
}

/// `out[i] = op(a[i], b[i])`.
pub fn binary(op: BinaryOp, a: &[f32], b: &[f32], out: &mut [f32]) {
    active::binary(op, a, b, out)
}

/// `op(a[i], b[i])` into a new vector written once (no zero-fill before the kernel): the
/// same-shape f32 fast path of `Tensor::binary`. + − × ÷ are correctly rounded per element, so the
/// vectorised collect gives the same bits as [`binary`]; the other ops run [`binary`] itself.
pub fn binary_to_vec(op: BinaryOp, a: &[f32], b: &[f32]) -> Vec<f32> {
    let pairs = a.iter().zip(b);
    match op {
        BinaryOp::Add => pairs.map(|(&x, &y)| x + y).collect(),
        BinaryOp::Sub => pairs.map(|(&x, &y)| x - y).collect(),
        BinaryOp::Mul => pairs.map(|(&x, &y)| x * y).collect(),
        BinaryOp::Div => pairs.map(|(&x, &y)| x / y).collect(),
        _ => {
            let mut out = vec![0.0; a.len().min(b.len())];
            binary(op, a, b, &mut out);
            out
        }
    }
}

/// `values[i] = op(values[i], other[i])`. + − × ÷ are correctly rounded per element, so this gives
/// the bits of [`binary`]; the other ops run [`binary`] on a copy of `values`.
pub fn binary_assign(op: BinaryOp, values: &mut [f32], other: &[f32]) {
    let pairs = values.iter_mut().zip(other);
    match op {
        BinaryOp::Add => pairs.for_each(|(x, &y)| *x += y),
        BinaryOp::Sub => pairs.for_each(|(x, &y)| *x -= y),
        BinaryOp::Mul => pairs.for_each(|(x, &y)| *x *= y),
        BinaryOp::Div => pairs.for_each(|(x, &y)| *x /= y),
        _ => {
            let copy = values.to_vec();
            binary(op, &copy, other, values);
        }
    }
}

/// `values[i] = op(values[i], scalar)`.
pub fn binary_scalar(op: BinaryOp, values: &mut [f32], scalar: f32) {
    active::binary_scalar(op, values, scalar)
}

/// `op(values[i], scalar)` into a new vector, each value read and its result written once. Same
/// bits as [`binary_scalar`].
pub fn binary_scalar_to_vec(op: BinaryOp, values: &[f32], scalar: f32) -> Vec<f32> {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        let mut out = Vec::with_capacity(values.len());
        wasm::binary_scalar_extend(op, &mut out, values, scalar);
        out
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    block_by_block(values, |block| binary_scalar(op, block, scalar))
}

/// Appends `op(values[i], scalar)` to `out` (a run of a broadcast). Same bits as [`binary_scalar`].
pub fn binary_scalar_extend(op: BinaryOp, out: &mut Vec<f32>, values: &[f32], scalar: f32) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    wasm::binary_scalar_extend(op, out, values, scalar);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        let start = out.len();
        out.extend_from_slice(values);
        binary_scalar(op, &mut out[start..], scalar);
    }
}

/// `values[i] = op(values[i])`.
pub fn unary_in_place(op: UnaryOp, values: &mut [f32]) {
    active::unary_in_place(op, values)
}

/// `op(values[i])` into a new vector, each value read and its result written once. Same bits as
/// [`unary_in_place`].
pub fn unary_to_vec(op: UnaryOp, values: &[f32]) -> Vec<f32> {
    // The wasm kernels read the input and write the result directly (in V8 a copy block by block
    // cost as much as the op).
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return wasm::unary_to_vec(op, values);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    block_by_block(values, |block| unary_in_place(op, block))
}

/// `values` copied into a new vector block by block, `in_place` applied to each block while it is
/// still in the L1 cache: memory sees one read and one write per element (a copy of the whole
/// input, then a pass over it, would move every byte twice).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn block_by_block(values: &[f32], in_place: impl Fn(&mut [f32])) -> Vec<f32> {
    const BLOCK: usize = 2048;
    let mut out = Vec::with_capacity(values.len());
    for block in values.chunks(BLOCK) {
        let start = out.len();
        out.extend_from_slice(block);
        in_place(&mut out[start..]);
    }
    out
}

/// Σ values.
pub fn sum(values: &[f32]) -> f32 {
    active::sum(values)
}

/// Largest value (−∞ for an empty slice; NaN if any value is NaN).
pub fn max(values: &[f32]) -> f32 {
    active::max(values)
}

/// Σ (values − mean)².
pub fn sum_squared_deviation(values: &[f32], mean: f32) -> f32 {
    active::sum_squared_deviation(values, mean)
}

// Run natively and in the browser (`wasm-pack test --headless --chrome`, simd128 vs portable);
// natively both are one function, so every test also checks an independent f64 reference.
#[cfg(test)]
mod exp_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
#[path = "to_vec_tests.rs"]
mod to_vec_tests;
