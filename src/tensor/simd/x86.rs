//! The native x86-64 GEMM micro-kernel on 256-bit AVX registers, chosen at run time where the CPU
//! has AVX (the baseline x86-64 build only assumes SSE2, where the portable kernel runs). It
//! multiplies, then adds — never fused — in the packing driver's order, so its results are bit
//! for bit those of the portable and the wasm `simd128` kernels (checked in `simd::tests`).

use std::arch::x86_64::*;

use super::packing::{packed_gemm, MicroKernel, PackSource, TileMut};
use super::MatrixRef;

/// Rows of the register tile.
const ROWS: usize = 6;
/// Columns of the register tile: two 8-wide vectors.
const COLS: usize = 16;

/// Whether this CPU runs the AVX kernel (std caches the CPUID answer).
pub fn available() -> bool {
    is_x86_feature_detected!("avx")
}

/// `out = a @ b` with `out` row-major `a.rows × b.cols`, overwritten; callers check [`available`].
pub fn gemm<A: PackSource, B: PackSource>(a: MatrixRef<'_, A>, b: MatrixRef<'_, B>, out: &mut [f32]) {
    // 6 × 16: twelve ymm accumulators, two B vectors and the broadcast A value fill 15 of the 16
    // registers; each step issues 12 multiplies and 12 adds for 192 FLOP.
    packed_gemm::<AvxKernel, A, B>(a, b, out)
}

struct AvxKernel;

impl MicroKernel for AvxKernel {
    const MR: usize = ROWS;
    const NR: usize = COLS;

    fn run(a_panel: &[f32], b_panel: &[f32], tile: TileMut<'_>) {
        let depth = b_panel.len() / COLS;
        assert!(a_panel.len() >= depth * ROWS && b_panel.len() >= depth * COLS);
        assert!(available(), "the AVX kernel runs only where the CPU has AVX");
        // SAFETY: AVX is present (asserted above) and the panels hold `depth` steps (asserted).
        unsafe { run_avx(a_panel, b_panel, depth, tile) }
    }
}

/// `tile += a_panel · b_panel` over `depth` steps.
///
/// # Safety
/// The CPU must have AVX, `a_panel` must hold `depth · ROWS` values and `b_panel` `depth · COLS`.
#[target_feature(enable = "avx")]
unsafe fn run_avx(a_panel: &[f32], b_panel: &[f32], depth: usize, tile: TileMut<'_>) {
    let mut acc = [[_mm256_setzero_ps(); 2]; ROWS];
    let (mut a, mut b) = (a_panel.as_ptr(), b_panel.as_ptr());
    for _ in 0..depth {
        // SAFETY: the caller guarantees `depth` steps of ROWS (COLS) values in the panels.
        unsafe {
            let low = _mm256_loadu_ps(b);
            let high = _mm256_loadu_ps(b.add(8));
            for (r, row) in acc.iter_mut().enumerate() {
                let scale = _mm256_broadcast_ss(&*a.add(r));
                row[0] = _mm256_add_ps(row[0], _mm256_mul_ps(scale, low));
                row[1] = _mm256_add_ps(row[1], _mm256_mul_ps(scale, high));
            }
            a = a.add(ROWS);
            b = b.add(COLS);
        }
    }
    let mut sums = [[0.0f32; COLS]; ROWS];
    for (row, values) in acc.iter().zip(sums.iter_mut()) {
        // SAFETY: each row of `sums` holds 16 f32, two unaligned 8-wide stores.
        unsafe {
            _mm256_storeu_ps(values.as_mut_ptr(), row[0]);
            _mm256_storeu_ps(values.as_mut_ptr().add(8), row[1]);
        }
    }
    for (r, row) in sums.iter().enumerate().take(tile.rows) {
        let out = &mut tile.data[r * tile.stride..r * tile.stride + tile.cols];
        for (value, &sum) in out.iter_mut().zip(row) {
            *value += sum;
        }
    }
}
