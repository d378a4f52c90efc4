//! Portable kernels: plain loops over fixed-size arrays that the native compiler vectorises, used
//! where wasm `simd128` is absent (public so tests can check the SIMD kernels against them).
//!
//! They follow the SIMD kernels' order of operations exactly (same GEMM blocking, the same 32
//! reduction lanes and the same final tree), so native and wasm builds give bit-identical GEMM,
//! reductions and correctly rounded element-wise ops (up to the sign of a zero chosen by
//! `Maximum`/`Minimum` of −0 and +0). Transcendental ops call the platform's math library, whose
//! last bit may differ between native and wasm (and wasm computes Exp, Sigmoid, Silu in f32x4).

use super::packing::{packed_gemm, MicroKernel, PackSource, TileMut};
use super::MatrixRef;
use crate::tensor::elementwise::{BinaryOp, UnaryOp};

/// Number of partial sums the reductions keep (eight f32x4 vectors in the SIMD kernel). Each
/// vector's chain of additions waits on the last (3 or 4 cycles an addition): with four, a sum of
/// 4 MiB in cache ran at ~74 GB/s in the wasm build, bound by those chains; with eight, at the
/// bandwidth the cache delivers (~96 GB/s for a plain wasm read loop on this machine).
pub const REDUCTION_LANES: usize = 32;

/// `out = a @ b` with `out` row-major `a.rows × b.cols`, overwritten.
pub fn gemm<A: PackSource, B: PackSource>(a: MatrixRef<'_, A>, b: MatrixRef<'_, B>, out: &mut [f32]) {
    // 2 × 16: eight 4-wide SSE2 accumulators. Measured on x86-64 (baseline SSE2 build, CPU time
    // at 512³): 2×16 ≈ 27 GFLOP/s, 4×8 ≈ 20–27, 6×8 ≈ 20–24, 8×4 ≈ 20, 8×8 spills (≈ 6).
    packed_gemm::<PortableKernel<2, 16>, A, B>(a, b, out)
}

/// A `ROWS × COLS` register tile of scalar accumulators that the compiler keeps in vector registers.
struct PortableKernel<const ROWS: usize, const COLS: usize>;

impl<const ROWS: usize, const COLS: usize> MicroKernel for PortableKernel<ROWS, COLS> {
    const MR: usize = ROWS;
    const NR: usize = COLS;

    fn run(a_panel: &[f32], b_panel: &[f32], tile: TileMut<'_>) {
        let mut acc = [[0.0f32; COLS]; ROWS];
        for (a_column, b_row) in a_panel.chunks_exact(ROWS).zip(b_panel.chunks_exact(COLS)) {
            let a_column: &[f32; ROWS] = a_column.try_into().expect("chunk of MR");
            let b_row: &[f32; COLS] = b_row.try_into().expect("chunk of NR");
            for (acc_row, &scale) in acc.iter_mut().zip(a_column) {
                for (value, &b_value) in acc_row.iter_mut().zip(b_row) {
                    *value += scale * b_value;
                }
            }
        }
        for (r, acc_row) in acc.iter().enumerate().take(tile.rows) {
            let out_row = &mut tile.data[r * tile.stride..r * tile.stride + tile.cols];
            for (value, &sum) in out_row.iter_mut().zip(acc_row) {
                *value += sum;
            }
        }
    }
}

/// `out[i] = op(a[i], b[i])`, one loop per op (as `unary_in_place`: the op chosen once, not per
/// value).
pub fn binary(op: BinaryOp, a: &[f32], b: &[f32], out: &mut [f32]) {
    macro_rules! per_op {
        ($($variant:ident)*) => {
            match op {
                $(BinaryOp::$variant => {
                    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                        *o = BinaryOp::$variant.apply(x, y);
                    }
                })*
            }
        };
    }
    per_op!(Add Sub Mul Div Pow Maximum Minimum FloorDivide Remainder);
}

/// `values[i] = op(values[i], scalar)`, one loop per op (a loop over `op.apply` chose the op per
/// value in the native build: a jump and a scalar operation per element).
pub fn binary_scalar(op: BinaryOp, values: &mut [f32], scalar: f32) {
    macro_rules! per_op {
        ($($variant:ident)*) => {
            match op {
                $(BinaryOp::$variant => values.iter_mut().for_each(|x| *x = BinaryOp::$variant.apply(*x, scalar)),)*
            }
        };
    }
    per_op!(Add Sub Mul Div Pow Maximum Minimum FloorDivide Remainder);
}

/// `values[i] = op(values[i])`, one loop per op: the op is chosen once, not per value (one loop
/// over `op.apply` left the choice to the inliner, which in some builds called `apply` per value).
pub fn unary_in_place(op: UnaryOp, values: &mut [f32]) {
    macro_rules! per_op {
        ($($variant:ident)*) => {
            match op {
                $(UnaryOp::$variant => values.iter_mut().for_each(|x| *x = UnaryOp::$variant.apply(*x)),)*
            }
        };
    }
    per_op!(
        Neg Abs Exp Log Sqrt Rsqrt Reciprocal Sin Cos Tanh Sigmoid Relu Silu GeluErf GeluTanh Exp2 Erf Erfc
        Ceil Floor Trunc Round Sign Expm1 Log1p Sinh Cosh Atan Asinh Log2 Log10 Tan Acosh Atanh Cbrt
    );
}

/// Σ values, in 32 interleaved partial sums joined by [`combine_sums`].
pub fn sum(values: &[f32]) -> f32 {
    lane_sum(values, |x| x)
}

/// Largest value (−∞ for an empty slice; NaN if any value is NaN).
pub fn max(values: &[f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; REDUCTION_LANES];
    let chunks = values.chunks_exact(REDUCTION_LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (lane, &x) in lanes.iter_mut().zip(chunk) {
            *lane = nan_max(*lane, x);
        }
    }
    for (lane, &x) in lanes.iter_mut().zip(rest) {
        *lane = nan_max(*lane, x);
    }
    lanes.into_iter().fold(f32::NEG_INFINITY, nan_max)
}

/// `max` that returns NaN when either side is NaN (IEEE 754-2019 `maximum`, like `f32x4.max`).
pub fn nan_max(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else {
        a.max(b)
    }
}

/// Σ (values − mean)², in the same lanes as [`sum`].
pub fn sum_squared_deviation(values: &[f32], mean: f32) -> f32 {
    lane_sum(values, |x| (x - mean) * (x - mean))
}

/// Σ map(x): element `i` goes to partial sum `i mod 32`.
fn lane_sum(values: &[f32], map: impl Fn(f32) -> f32) -> f32 {
    let mut lanes = [0.0f32; REDUCTION_LANES];
    let chunks = values.chunks_exact(REDUCTION_LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (lane, &x) in lanes.iter_mut().zip(chunk) {
            *lane += map(x);
        }
    }
    add_remainder(&mut lanes, rest, map);
    combine_sums(lanes)
}

/// Adds the last `< 16` mapped values into the first lanes (shared with the SIMD kernel).
pub fn add_remainder(lanes: &mut [f32; REDUCTION_LANES], rest: &[f32], map: impl Fn(f32) -> f32) {
    for (lane, &x) in lanes.iter_mut().zip(rest) {
        *lane += map(x);
    }
}

/// Joins the 32 partial sums by halving: lane j += lane j+16, then j+8, j+4, j+2, j+1.
pub fn combine_sums(mut lanes: [f32; REDUCTION_LANES]) -> f32 {
    let mut width = REDUCTION_LANES / 2;
    while width > 0 {
        for j in 0..width {
            lanes[j] += lanes[j + width];
        }
        width /= 2;
    }
    lanes[0]
}
