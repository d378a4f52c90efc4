//! The wasm `simd128` kernels (f32x4). GEMM, reductions and the correctly rounded element-wise
//! ops mirror the portable kernels' order of operations, so both give bit-identical results (but
//! for the sign of a zero from `Maximum`/`Minimum` of −0 and +0: `f32x4.max` prefers +0). Exp,
//! Sigmoid and Silu use a vector eˣ within 1 ulp; ops without a vector form call the portable kernel.

use core::arch::wasm32::*;

use super::packing::{packed_gemm, MicroKernel, PackSource, TileMut};
use super::portable::{self, add_remainder, combine_sums, nan_max, REDUCTION_LANES};
use super::wasm_exp::{exp_in_place, sigmoid_raw};
use super::MatrixRef;
use crate::tensor::elementwise::{BinaryOp, UnaryOp};

/// `out = a @ b` with `out` row-major `a.rows × b.cols`, overwritten.
#[cfg(not(target_feature = "relaxed-simd"))]
pub fn gemm<A: PackSource, B: PackSource>(a: MatrixRef<'_, A>, b: MatrixRef<'_, B>, out: &mut [f32]) {
    // 4 × 8: eight f32x4 accumulators, two B vectors, the broadcast A value and the product fit
    // the 15 XMM registers V8 allocates (it keeps one as scratch). Measured in V8 (CPU time,
    // 512³): 4×8 ≈ 29–31 GFLOP/s, 2×16 ≈ 27–31, 3×12 ≈ 28–29, 4×12 ≈ 25–27, 5×8 ≈ 25–27,
    // 6×8 ≈ 22–25, 8×4 ≈ 24. Stepping p twice per loop iteration measured slower (≈ 18 against
    // ≈ 28 GFLOP/s, bench/matmul-cpu-time.mjs). Chromium 156 on a Xeon (family 6, model 167),
    // 512³: 4×8 ≈ 40, 2×16 ≈ 41, 3×12 ≈ 39, 5×8 ≈ 33, 6×8 ≈ 31; the micro-kernel alone on
    // L1-resident panels reaches 46 (11.2 of the 12 FLOP/cycle its mul + add ports allow).
    packed_gemm::<WasmKernel<4, 2>, A, B>(a, b, out)
}

/// `out = a @ b` with `out` row-major `a.rows × b.cols`, overwritten.
#[cfg(target_feature = "relaxed-simd")]
pub fn gemm<A: PackSource, B: PackSource>(a: MatrixRef<'_, A>, b: MatrixRef<'_, B>, out: &mut [f32]) {
    // 3 × 12: nine fused multiply-adds per step from three broadcasts and three B vectors (one
    // load per 1.5 FMA, against 1.33 for 4 × 8). Chromium 156 on a Xeon (family 6, model 167),
    // 512³: 3×12 ≈ 52–54 GFLOP/s, 4×8 ≈ 48–49, 2×16 ≈ 48–50, 6×8 ≈ 36, 5×8 ≈ 33; unrolling the
    // K loop by 2 or 4 by hand measured slower (≈ 40 and ≈ 17: V8 spills).
    packed_gemm::<WasmKernel<3, 3>, A, B>(a, b, out)
}

/// A register tile of `ROWS` rows × `VECTORS` f32x4 columns.
struct WasmKernel<const ROWS: usize, const VECTORS: usize>;

impl<const ROWS: usize, const VECTORS: usize> MicroKernel for WasmKernel<ROWS, VECTORS> {
    const MR: usize = ROWS;
    const NR: usize = 4 * VECTORS;

    #[inline(always)]
    fn run(a_panel: &[f32], b_panel: &[f32], tile: TileMut<'_>) {
        let depth = b_panel.len() / (4 * VECTORS);
        assert!(a_panel.len() >= depth * ROWS && b_panel.len() >= depth * 4 * VECTORS);
        let mut acc = [[f32x4_splat(0.0); VECTORS]; ROWS];
        let (mut a, mut b) = (a_panel.as_ptr(), b_panel.as_ptr());
        for _ in 0..depth {
            // SAFETY: the assert above keeps `depth` steps of ROWS (NR) values inside the panels.
            unsafe {
                let mut b_vectors = [f32x4_splat(0.0); VECTORS];
                for (v, vector) in b_vectors.iter_mut().enumerate() {
                    *vector = v128_load(b.add(4 * v) as *const v128);
                }
                for (r, acc_row) in acc.iter_mut().enumerate() {
                    let scale = v128_load32_splat(a.add(r) as *const u32);
                    for (value, &b_vector) in acc_row.iter_mut().zip(&b_vectors) {
                        *value = multiply_add(scale, b_vector, *value);
                    }
                }
                a = a.add(ROWS);
                b = b.add(4 * VECTORS);
            }
        }
        store_tile(&acc, tile);
    }
}

/// `a·b + c` per lane, multiply then add, each rounded: the order of operations the portable
/// kernel follows, so the simd128 GEMM is bit-exact with it.
#[cfg(not(target_feature = "relaxed-simd"))]
#[inline(always)]
fn multiply_add(a: v128, b: v128, c: v128) -> v128 {
    f32x4_add(c, f32x4_mul(a, b))
}

/// `a·b + c` per lane with `f32x4.relaxed_madd`: one fused multiply-add (one rounding) where the
/// CPU has FMA, so this build is not bit-exact with the portable kernel; its GEMM results stay
/// within the same f64 error bound (checked in `simd::tests` when built with relaxed-simd).
#[cfg(target_feature = "relaxed-simd")]
#[inline(always)]
fn multiply_add(a: v128, b: v128, c: v128) -> v128 {
    f32x4_relaxed_madd(a, b, c)
}

/// `tile += acc`, with vector loads and stores when the tile is whole.
#[inline(always)]
fn store_tile<const MR: usize, const VECTORS: usize>(acc: &[[v128; VECTORS]; MR], tile: TileMut<'_>) {
    let nr = 4 * VECTORS;
    if tile.rows == MR && tile.cols == nr {
        assert!(tile.data.len() >= (MR - 1) * tile.stride + nr);
        let out = tile.data.as_mut_ptr();
        for (r, acc_row) in acc.iter().enumerate() {
            for (v, &sum) in acc_row.iter().enumerate() {
                // SAFETY: the assert above keeps row r < MR, columns < NR inside `tile.data`.
                unsafe {
                    let place = out.add(r * tile.stride + 4 * v) as *mut v128;
                    v128_store(place, f32x4_add(v128_load(place), sum));
                }
            }
        }
        return;
    }
    for (r, acc_row) in acc.iter().enumerate().take(tile.rows) {
        let mut sums = [[0.0f32; 4]; VECTORS];
        for (sum, &vector) in sums.iter_mut().zip(acc_row) {
            // SAFETY: each entry of `sums` holds 4 values.
            unsafe { v128_store(sum.as_mut_ptr() as *mut v128, vector) };
        }
        let out_row = &mut tile.data[r * tile.stride..r * tile.stride + tile.cols];
        for (value, &sum) in out_row.iter_mut().zip(sums.iter().flatten()) {
            *value += sum;
        }
    }
}

/// Applies `vector` to whole f32x4 groups of `(a, b)` and `scalar` to the tail.
#[inline(always)]
fn map2(a: &[f32], b: &[f32], out: &mut [f32], vector: impl Fn(v128, v128) -> v128, scalar: impl Fn(f32, f32) -> f32) {
    let len = out.len().min(a.len()).min(b.len());
    let whole = len / 4 * 4;
    for i in (0..whole).step_by(4) {
        // SAFETY: i + 4 ≤ whole ≤ the length of all three slices.
        unsafe {
            let x = v128_load(a.as_ptr().add(i) as *const v128);
            let y = v128_load(b.as_ptr().add(i) as *const v128);
            v128_store(out.as_mut_ptr().add(i) as *mut v128, vector(x, y));
        }
    }
    for i in whole..len {
        out[i] = scalar(a[i], b[i]);
    }
}

/// Applies `vector` to `values` in place, four at a time; the last `< 4` values go through the
/// same vector code (zero-padded), so every element gets the same function.
#[inline(always)]
pub(super) fn map1(values: &mut [f32], vector: impl Fn(v128) -> v128) {
    let place = values.as_mut_ptr();
    // SAFETY: `values` is readable and writable for its length; in place is allowed.
    unsafe { map_raw(place, place, values.len(), vector) }
}

/// `target[i] = vector(source[i])` for `len` values, as [`map1`].
///
/// # Safety
/// `source` must be readable and `target` writable for `len` values; they may be the same
/// pointer (each vector is loaded before its result is stored), but must not overlap otherwise.
#[inline(always)]
unsafe fn map_raw(source: *const f32, target: *mut f32, len: usize, vector: impl Fn(v128) -> v128) {
    let whole = len / 4 * 4;
    for i in (0..whole).step_by(4) {
        // SAFETY: i + 4 ≤ whole ≤ len.
        unsafe { v128_store(target.add(i) as *mut v128, vector(v128_load(source.add(i) as *const v128))) };
    }
    if whole < len {
        let mut padded = [0.0f32; 4];
        // SAFETY: the tail's `len − whole < 4` values, read then written.
        unsafe {
            std::ptr::copy_nonoverlapping(source.add(whole), padded.as_mut_ptr(), len - whole);
            let place = padded.as_mut_ptr() as *mut v128;
            v128_store(place, vector(v128_load(place)));
            std::ptr::copy_nonoverlapping(padded.as_ptr(), target.add(whole), len - whole);
        }
    }
}

/// A new vector of `values.len()` results written by `fill` (given the source and the vector's
/// uninitialised buffer), or `None` when `fill` has no direct kernel (returns false).
fn written_once(values: &[f32], fill: impl FnOnce(*const f32, *mut f32) -> bool) -> Option<Vec<f32>> {
    let mut out = Vec::with_capacity(values.len());
    if !fill(values.as_ptr(), out.as_mut_ptr()) {
        return None;
    }
    // SAFETY: `fill` wrote all `values.len()` results (the capacity).
    unsafe { out.set_len(values.len()) };
    Some(out)
}

/// `out[i] = op(a[i], b[i])`.
pub fn binary(op: BinaryOp, a: &[f32], b: &[f32], out: &mut [f32]) {
    // f32x4.max/min are IEEE 754-2019 maximum/minimum: NaN propagates, as in BinaryOp::apply.
    macro_rules! with {
        ($vector:expr) => {
            map2(a, b, out, |x, y| $vector(x, y), |x, y| op.apply(x, y))
        };
    }
    match op {
        BinaryOp::Add => with!(f32x4_add),
        BinaryOp::Sub => with!(f32x4_sub),
        BinaryOp::Mul => with!(f32x4_mul),
        BinaryOp::Div => with!(f32x4_div),
        BinaryOp::Maximum => with!(f32x4_max),
        BinaryOp::Minimum => with!(f32x4_min),
        BinaryOp::Pow | BinaryOp::FloorDivide | BinaryOp::Remainder => portable::binary(op, a, b, out),
    }
}

/// `values[i] = op(values[i], scalar)`.
pub fn binary_scalar(op: BinaryOp, values: &mut [f32], scalar: f32) {
    let place = values.as_mut_ptr();
    // SAFETY: in place over `values`.
    if !unsafe { binary_scalar_raw(op, place, place, values.len(), scalar) } {
        portable::binary_scalar(op, values, scalar)
    }
}

/// Appends `op(values[i], scalar)` to `out`: each value read once and its result written once (a
/// copy first, then the op in place, moves every byte twice).
pub fn binary_scalar_extend(op: BinaryOp, out: &mut Vec<f32>, values: &[f32], scalar: f32) {
    out.reserve(values.len());
    let start = out.len();
    // SAFETY: `values.len()` values of spare capacity from `start` are written, after which they
    // are part of the vector.
    unsafe {
        if binary_scalar_raw(op, values.as_ptr(), out.as_mut_ptr().add(start), values.len(), scalar) {
            out.set_len(start + values.len());
            return;
        }
    }
    out.extend_from_slice(values);
    portable::binary_scalar(op, &mut out[start..], scalar);
}

/// The vectorised scalar ops through [`map_raw`]; false (nothing written) for the others.
///
/// # Safety
/// As [`map_raw`].
unsafe fn binary_scalar_raw(op: BinaryOp, source: *const f32, target: *mut f32, len: usize, scalar: f32) -> bool {
    let splat = f32x4_splat(scalar);
    macro_rules! with {
        ($vector:expr) => {
            // SAFETY: the caller's guarantee.
            unsafe { map_raw(source, target, len, |x| $vector(x, splat)) }
        };
    }
    match op {
        BinaryOp::Add => with!(f32x4_add),
        BinaryOp::Sub => with!(f32x4_sub),
        BinaryOp::Mul => with!(f32x4_mul),
        BinaryOp::Div => with!(f32x4_div),
        BinaryOp::Maximum => with!(f32x4_max),
        BinaryOp::Minimum => with!(f32x4_min),
        BinaryOp::Pow | BinaryOp::FloorDivide | BinaryOp::Remainder => return false,
    }
    true
}

/// `values[i] = op(values[i])`. The correctly rounded ops are vectorised and match the portable
/// kernel exactly; Exp, Sigmoid and Silu use `wasm_exp` (within 1, 2 and 3 ulp of the correctly
/// rounded value: tested in `simd::tests`, and found so over every 5th f32 bit pattern with
/// |x| ≤ 200); Sin and Cos are reduced in f64 (`sine`: within 1 ulp); the other transcendental
/// ops run the portable kernel.
pub fn unary_in_place(op: UnaryOp, values: &mut [f32]) {
    let place = values.as_mut_ptr();
    // SAFETY: in place over `values`.
    if unsafe { unary_raw(op, place, place, values.len()) } {
        return;
    }
    match op {
        UnaryOp::Exp => exp_in_place(values),
        UnaryOp::Sin => super::sine::sin_in_place(values),
        UnaryOp::Cos => super::sine::cos_in_place(values),
        UnaryOp::Log
        | UnaryOp::Tanh
        | UnaryOp::GeluErf
        | UnaryOp::GeluTanh
        | UnaryOp::Exp2
        | UnaryOp::Erf
        | UnaryOp::Erfc
        | UnaryOp::Ceil
        | UnaryOp::Floor
        | UnaryOp::Trunc
        | UnaryOp::Round
        | UnaryOp::Sign
        | UnaryOp::Expm1
        | UnaryOp::Log1p
        | UnaryOp::Sinh
        | UnaryOp::Cosh
        | UnaryOp::Atan
        | UnaryOp::Asinh
        | UnaryOp::Log2
        | UnaryOp::Log10
        | UnaryOp::Tan
        | UnaryOp::Acosh
        | UnaryOp::Atanh
        | UnaryOp::Cbrt => portable::unary_in_place(op, values),
        _ => unreachable!("{op:?} has a direct kernel"),
    }
}

/// `op(values[i])` into a new vector: the ops with a direct kernel read each value once and write
/// its result once (a copy, then the op in place, moves every byte twice: in V8 the copy alone
/// took as long as the op); exp has its own; the others run in place on a copy.
pub fn unary_to_vec(op: UnaryOp, values: &[f32]) -> Vec<f32> {
    // SAFETY: `written_once` passes the source and a buffer of its length.
    if let Some(out) = written_once(values, |source, target| unsafe { unary_raw(op, source, target, values.len()) }) {
        return out;
    }
    if op == UnaryOp::Exp {
        return super::wasm_exp::exp_to_vec(values);
    }
    let mut out = values.to_vec();
    unary_in_place(op, &mut out);
    out
}

/// The unary ops with a direct vector kernel (correctly rounded ones matching the portable kernel
/// exactly, and σ and SiLU); false (nothing written) for the others.
///
/// # Safety
/// As [`map_raw`].
unsafe fn unary_raw(op: UnaryOp, source: *const f32, target: *mut f32, len: usize) -> bool {
    let one = f32x4_splat(1.0);
    let zero = f32x4_splat(0.0);
    // SAFETY (every arm): the caller's guarantee.
    unsafe {
        match op {
            UnaryOp::Neg => map_raw(source, target, len, |x| f32x4_neg(x)),
            UnaryOp::Abs => map_raw(source, target, len, |x| f32x4_abs(x)),
            UnaryOp::Sqrt => map_raw(source, target, len, |x| f32x4_sqrt(x)),
            UnaryOp::Rsqrt => map_raw(source, target, len, |x| f32x4_div(one, f32x4_sqrt(x))),
            UnaryOp::Reciprocal => map_raw(source, target, len, |x| f32x4_div(one, x)),
            // x where x > 0 or x is NaN, else +0 (so −0 → +0, as the scalar rule).
            UnaryOp::Relu => {
                map_raw(source, target, len, |x| v128_bitselect(x, zero, v128_or(f32x4_gt(x, zero), f32x4_ne(x, x))))
            }
            UnaryOp::Sigmoid => sigmoid_raw(source, target, len, false),
            UnaryOp::Silu => sigmoid_raw(source, target, len, true),
            _ => return false,
        }
    }
    true
}

/// Σ values (32 partial sums in eight f32x4 accumulators, as the portable kernel).
pub fn sum(values: &[f32]) -> f32 {
    lane_sum(values, |x| x, |x| x)
}

/// Σ (values − mean)².
pub fn sum_squared_deviation(values: &[f32], mean: f32) -> f32 {
    let mean_vector = f32x4_splat(mean);
    lane_sum(
        values,
        |x| {
            let d = f32x4_sub(x, mean_vector);
            f32x4_mul(d, d)
        },
        |x| (x - mean) * (x - mean),
    )
}

/// Σ map(x): element `i` goes to partial sum `i mod 32`; lanes 4v..4v+4 live in vector `v`.
#[inline(always)]
fn lane_sum(values: &[f32], vector: impl Fn(v128) -> v128, scalar: impl Fn(f32) -> f32) -> f32 {
    let mut acc = [f32x4_splat(0.0); REDUCTION_LANES / 4];
    let chunks = values.chunks_exact(REDUCTION_LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (v, sum) in acc.iter_mut().enumerate() {
            // SAFETY: a chunk holds 32 values, so 4v + 4 ≤ 32.
            let x = unsafe { v128_load(chunk.as_ptr().add(4 * v) as *const v128) };
            *sum = f32x4_add(*sum, vector(x));
        }
    }
    let mut lanes = [0.0f32; REDUCTION_LANES];
    for (v, &sum) in acc.iter().enumerate() {
        // SAFETY: `lanes` holds 32 values.
        unsafe { v128_store(lanes.as_mut_ptr().add(4 * v) as *mut v128, sum) };
    }
    add_remainder(&mut lanes, rest, scalar);
    combine_sums(lanes)
}

/// Largest value (−∞ for an empty slice; NaN if any value is NaN).
pub fn max(values: &[f32]) -> f32 {
    let mut acc = [f32x4_splat(f32::NEG_INFINITY); REDUCTION_LANES / 4];
    let chunks = values.chunks_exact(REDUCTION_LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (v, best) in acc.iter_mut().enumerate() {
            // SAFETY: a chunk holds 32 values, so 4v + 4 ≤ 32.
            let x = unsafe { v128_load(chunk.as_ptr().add(4 * v) as *const v128) };
            *best = f32x4_max(*best, x);
        }
    }
    let mut lanes = [0.0f32; REDUCTION_LANES];
    for (v, &best) in acc.iter().enumerate() {
        // SAFETY: `lanes` holds 32 values.
        unsafe { v128_store(lanes.as_mut_ptr().add(4 * v) as *mut v128, best) };
    }
    rest.iter().chain(&lanes).fold(f32::NEG_INFINITY, |best, &x| nan_max(best, x))
}
