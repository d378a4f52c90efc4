//! The packed-panel GEMM driver shared by the portable and the wasm `simd128` kernels: cache
//! blocking over N, K and M, packing of B into column panels and of A into row panels, and the
//! loop that hands each register tile to a micro-kernel.
//!
//! The packing widens the stored values to f32 on the way (f32, bf16 or f16 sources): a bf16
//! matmul never materialises an f32 copy of its operands, it converts each value once, inside the
//! copy into the panel that the micro-kernel reads anyway.
//!
//! Every output element is accumulated in the same order whatever the micro-kernel's tile shape:
//! a plain sum over `p` inside each K block (multiply, then add — never fused), the block sums
//! added to the output in K order. So the portable and the SIMD GEMM give bit-identical results.

use half::{bf16, f16};

use super::MatrixRef;

/// A stored element type the GEMM reads: widened to f32 exactly while packing.
pub trait PackSource: Copy {
    /// The value as f32 (exact: f32, bf16 and f16 values are all f32 values).
    fn widen(self) -> f32;
}

impl PackSource for f32 {
    #[inline(always)]
    fn widen(self) -> f32 {
        self
    }
}

impl PackSource for bf16 {
    /// bf16 is the top half of an f32, so widening is a 16-bit shift (NaN payloads kept).
    #[inline(always)]
    fn widen(self) -> f32 {
        f32::from_bits(u32::from(self.to_bits()) << 16)
    }
}

impl PackSource for f64 {
    /// Narrowed to f32 (the f32 GEMM of an f64 tensor; the tensor core multiplies f64 itself).
    #[inline(always)]
    fn widen(self) -> f32 {
        self as f32
    }
}

impl PackSource for f16 {
    #[inline(always)]
    fn widen(self) -> f32 {
        self.to_f32()
    }
}

/// Depth of one K block: a `KC × NR` panel of B (8 KiB for NR = 8) stays in L1.
const KC: usize = 256;
/// Target rows of one M block: the packed `MC × KC` block of A (~96 KiB) stays in L2.
const MC_TARGET: usize = 96;
/// Target columns of one N block: the packed `KC × NC` block of B (1 MiB) stays in L2/L3.
const NC_TARGET: usize = 1024;

/// The part of the output one micro-kernel call updates: `rows × cols` values at the start of
/// `data`, rows `stride` apart (`rows ≤ MR`, `cols ≤ NR`).
pub struct TileMut<'a> {
    /// The output from the tile's top-left element to the end of the matrix.
    pub data: &'a mut [f32],
    /// Distance between rows of the output.
    pub stride: usize,
    /// Valid rows of the tile.
    pub rows: usize,
    /// Valid columns of the tile.
    pub cols: usize,
}

/// A register-blocked kernel: `tile += a_panel · b_panel` for one `MR × NR` tile.
pub trait MicroKernel {
    /// Rows of the register tile.
    const MR: usize;
    /// Columns of the register tile.
    const NR: usize;
    /// `a_panel` is `kc × MR` (the MR values of column `p` together), `b_panel` is `kc × NR`
    /// (the NR values of row `p` together); both zero-padded past the matrix edge.
    fn run(a_panel: &[f32], b_panel: &[f32], tile: TileMut<'_>);
}

/// `out = a @ b` (row-major `a.rows × b.cols`, overwritten) through the micro-kernel `K`.
/// Never inlined: the loop nest with the micro-kernel inlined is a function of its own, whatever
/// else a codegen unit holds. Inlined into its callers, V8 compiled it 37 % slower in the simd128
/// build with one codegen unit (512³ in node: 6.5 against 4.6 ms per call; as its own function
/// 4.5 with one unit or four).
#[inline(never)]
pub fn packed_gemm<K: MicroKernel, A: PackSource, B: PackSource>(
    a: MatrixRef<'_, A>,
    b: MatrixRef<'_, B>,
    out: &mut [f32],
) {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    assert_eq!(a.cols, b.rows, "gemm: inner dims differ");
    assert_eq!(out.len(), m * n, "gemm: output has the wrong length");
    out.fill(0.0);
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    let mc_block = (MC_TARGET / K::MR).max(1) * K::MR;
    let nc_block = (NC_TARGET / K::NR).max(1) * K::NR;
    let kc_max = k.min(KC);
    let mut a_pack = vec![0.0f32; kc_max * round_up(m.min(mc_block), K::MR)];
    let mut b_pack = vec![0.0f32; kc_max * round_up(n.min(nc_block), K::NR)];
    for jc in (0..n).step_by(nc_block) {
        let nc = nc_block.min(n - jc);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            pack_b(b, pc, kc, jc, nc, K::NR, &mut b_pack);
            for ic in (0..m).step_by(mc_block) {
                let mc = mc_block.min(m - ic);
                pack_a(a, ic, mc, pc, kc, K::MR, &mut a_pack);
                for jr in (0..nc).step_by(K::NR) {
                    let b_panel = &b_pack[jr * kc..(jr + K::NR) * kc];
                    for ir in (0..mc).step_by(K::MR) {
                        let a_panel = &a_pack[ir * kc..(ir + K::MR) * kc];
                        let start = (ic + ir) * n + jc + jr;
                        let tile = TileMut {
                            data: &mut out[start..],
                            stride: n,
                            rows: K::MR.min(mc - ir),
                            cols: K::NR.min(nc - jr),
                        };
                        K::run(a_panel, b_panel, tile);
                    }
                }
            }
        }
    }
}

fn round_up(value: usize, multiple: usize) -> usize {
    value.div_ceil(multiple) * multiple
}

/// Packs rows `row0..row0+rows`, columns `col0..col0+depth` of `a` into panels of `mr` rows:
/// panel `t`, column `p`, row `r` lands at `(t·depth + p)·mr + r`; rows past the edge are 0.
pub fn pack_a<T: PackSource>(
    a: MatrixRef<'_, T>,
    row0: usize,
    rows: usize,
    col0: usize,
    depth: usize,
    mr: usize,
    buffer: &mut [f32],
) {
    for (panel, start) in (0..rows).step_by(mr).enumerate() {
        let dest = &mut buffer[panel * depth * mr..(panel + 1) * depth * mr];
        let valid = mr.min(rows - start);
        if valid < mr {
            dest.fill(0.0);
        }
        // Row-major A, a whole panel of a register tile's height: written front to back.
        if a.col_stride == 1 && valid == mr {
            let (first, stride) = ((row0 + start) * a.row_stride + col0, a.row_stride);
            let interleaved = match mr {
                2 => interleave_rows::<T, 2>(a.data, first, stride, depth, dest),
                3 => interleave_rows::<T, 3>(a.data, first, stride, depth, dest),
                4 => interleave_rows::<T, 4>(a.data, first, stride, depth, dest),
                6 => interleave_rows::<T, 6>(a.data, first, stride, depth, dest),
                _ => false,
            };
            if interleaved {
                continue;
            }
        }
        for r in 0..valid {
            let base = (row0 + start + r) * a.row_stride + col0 * a.col_stride;
            if a.col_stride == 1 {
                // Row-major A: one contiguous source row, written with stride mr.
                widen_strided(&a.data[base..base + depth], &mut dest[r..], mr);
            } else {
                for p in 0..depth {
                    dest[p * mr + r] = a.data[base + p * a.col_stride].widen();
                }
            }
        }
    }
}

/// Packs rows `row0..row0+depth`, columns `col0..col0+cols` of `b` into panels of `nr` columns:
/// panel `t`, row `p`, column `c` lands at `(t·depth + p)·nr + c`; columns past the edge are 0.
pub fn pack_b<T: PackSource>(
    b: MatrixRef<'_, T>,
    row0: usize,
    depth: usize,
    col0: usize,
    cols: usize,
    nr: usize,
    buffer: &mut [f32],
) {
    for (panel, start) in (0..cols).step_by(nr).enumerate() {
        let dest = &mut buffer[panel * depth * nr..(panel + 1) * depth * nr];
        let valid = nr.min(cols - start);
        // Row-major B, a whole panel of a register tile's width: fixed-size row copies.
        if b.col_stride == 1 && valid == nr {
            let (first, stride) = (row0 * b.row_stride + col0 + start, b.row_stride);
            let copied = match nr {
                8 => copy_rows::<T, 8>(b.data, first, stride, dest),
                12 => copy_rows::<T, 12>(b.data, first, stride, dest),
                16 => copy_rows::<T, 16>(b.data, first, stride, dest),
                _ => false,
            };
            if copied {
                continue;
            }
        }
        for (p, row) in dest.chunks_exact_mut(nr).enumerate() {
            let base = (row0 + p) * b.row_stride + (col0 + start) * b.col_stride;
            if b.col_stride == 1 {
                // Row-major B: nr contiguous values per row.
                widen_into(&b.data[base..base + valid], &mut row[..valid]);
            } else {
                for (c, place) in row[..valid].iter_mut().enumerate() {
                    *place = b.data[base + c * b.col_stride].widen();
                }
            }
            row[valid..].fill(0.0);
        }
    }
}

/// `destination[i] = source[i]` widened, four values per step: fixed-size chunks the compiler
/// turns into vector moves (a plain loop over a B row of 8–16 values measured ≈ 40 % slower).
#[inline(always)]
fn widen_into<T: PackSource>(source: &[T], destination: &mut [f32]) {
    let mut targets = destination.chunks_exact_mut(4);
    let mut sources = source.chunks_exact(4);
    for (target, source) in (&mut targets).zip(&mut sources) {
        for (place, &value) in target.iter_mut().zip(source) {
            *place = value.widen();
        }
    }
    for (place, &value) in targets.into_remainder().iter_mut().zip(sources.remainder()) {
        *place = value.widen();
    }
}

/// The B panel of `NR` whole columns starting at `data[first]`, rows `stride` apart: row `p`
/// goes to `dest[p·NR..(p+1)·NR]` (a fixed-size copy the compiler turns into vector moves; the
/// row-by-row loop of any width measured 2.9 cycles per value). Returns true.
#[inline(always)]
fn copy_rows<T: PackSource, const NR: usize>(data: &[T], first: usize, stride: usize, dest: &mut [f32]) -> bool {
    for (p, row) in dest.chunks_exact_mut(NR).enumerate() {
        let source: &[T; NR] = data[first + p * stride..][..NR].try_into().expect("NR values");
        for (place, &value) in row.iter_mut().zip(source) {
            *place = value.widen();
        }
    }
    true
}

/// `destination[i · stride] = source[i]` widened.
fn widen_strided<T: PackSource>(source: &[T], destination: &mut [f32], stride: usize) {
    for (place, &value) in destination.iter_mut().step_by(stride).zip(source) {
        *place = value.widen();
    }
}

/// The A panel of `MR` whole rows starting at `data[first]`, `stride` apart: column `p` of the
/// rows goes to `dest[p·MR..(p+1)·MR]`, so the panel is written front to back. Returns true.
#[inline(always)]
fn interleave_rows<T: PackSource, const MR: usize>(
    data: &[T],
    first: usize,
    stride: usize,
    depth: usize,
    dest: &mut [f32],
) -> bool {
    let rows: [&[T]; MR] = std::array::from_fn(|r| &data[first + r * stride..first + r * stride + depth]);
    for (p, column) in dest.chunks_exact_mut(MR).take(depth).enumerate() {
        for (place, row) in column.iter_mut().zip(&rows) {
            *place = row[p].widen();
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_major(data: &[f32], rows: usize, cols: usize) -> MatrixRef<'_, f32> {
        MatrixRef { data, rows, cols, row_stride: cols, col_stride: 1 }
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn pack_a_interleaves_rows_and_pads_with_zero() {
        // A = [[1,2,3],[4,5,6],[7,8,9]]; rows 1..3, columns 1..3, panels of 2 rows:
        // panel 0 holds rows 1,2 → column-interleaved [5,8, 6,9]; rows past the edge would be 0.
        let values: Vec<f32> = (1..=9).map(|x| x as f32).collect();
        let mut buffer = vec![f32::NAN; 4];
        pack_a(row_major(&values, 3, 3), 1, 2, 1, 2, 2, &mut buffer);
        assert_eq!(buffer, [5.0, 8.0, 6.0, 9.0]);
        // All three rows in panels of 2: the second panel is row 2 and a zero row.
        let mut buffer = vec![f32::NAN; 12];
        pack_a(row_major(&values, 3, 3), 0, 3, 0, 3, 2, &mut buffer);
        assert_eq!(buffer, [1.0, 4.0, 2.0, 5.0, 3.0, 6.0, 7.0, 0.0, 8.0, 0.0, 9.0, 0.0]);
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn pack_b_reads_through_strides() {
        // Bᵀ stored row-major as [[1,2],[3,4],[5,6]], so B = [[1,3,5],[2,4,6]] (col_stride 2).
        // Panels of 2 columns over all of B: [1,3, 2,4] then [5,0, 6,0].
        let values: Vec<f32> = (1..=6).map(|x| x as f32).collect();
        let b = MatrixRef { data: &values[..], rows: 2, cols: 3, row_stride: 1, col_stride: 2 };
        let mut buffer = vec![f32::NAN; 8];
        pack_b(b, 0, 2, 0, 3, 2, &mut buffer);
        assert_eq!(buffer, [1.0, 3.0, 2.0, 4.0, 5.0, 0.0, 6.0, 0.0]);
    }

    /// Element (i, j) of the 13 × 11 test matrix: distinct, exact in f32 and bf16.
    fn element(i: usize, j: usize) -> f32 {
        (i * 16 + j) as f32
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn pack_a_matches_a_naive_loop_for_every_panel_height_and_ragged_edge() {
        // The unrolled heights (2, 3, 4, 6) and a generic one (5), f32 and bf16 sources, row
        // blocks that end in a partial panel and column blocks of every depth up to 9.
        let (rows, cols) = (13, 11);
        let values: Vec<f32> = (0..rows * cols).map(|x| element(x / cols, x % cols)).collect();
        let halves: Vec<bf16> = values.iter().map(|&x| bf16::from_f32(x)).collect();
        for mr in [2, 3, 4, 5, 6] {
            for (row0, block_rows) in [(0, 13), (1, 12), (2, 7), (5, 1usize)] {
                for (col0, depth) in [(0, 11), (2, 9), (3, 1), (10, 1), (1, 4)] {
                    let panels = block_rows.div_ceil(mr);
                    let mut expected = vec![0.0f32; panels * depth * mr];
                    for (index, place) in expected.iter_mut().enumerate() {
                        let (panel, p, r) = (index / (depth * mr), index / mr % depth, index % mr);
                        if panel * mr + r < block_rows {
                            *place = element(row0 + panel * mr + r, col0 + p);
                        }
                    }
                    let mut packed = vec![f32::NAN; expected.len()];
                    pack_a(row_major(&values, rows, cols), row0, block_rows, col0, depth, mr, &mut packed);
                    assert_eq!(packed, expected, "f32, mr {mr}, rows {row0}+{block_rows}, cols {col0}+{depth}");
                    let halves = MatrixRef { data: &halves[..], rows, cols, row_stride: cols, col_stride: 1 };
                    packed.fill(f32::NAN);
                    pack_a(halves, row0, block_rows, col0, depth, mr, &mut packed);
                    assert_eq!(packed, expected, "bf16, mr {mr}, rows {row0}+{block_rows}, cols {col0}+{depth}");
                }
            }
        }
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn pack_b_matches_a_naive_loop_for_every_panel_width_and_ragged_edge() {
        // Panel widths 8, 12, 16 (whole vectors) and 5, 3; column blocks ending in partial panels.
        let (rows, cols) = (11, 13);
        let values: Vec<f32> = (0..rows * cols).map(|x| element(x / cols, x % cols)).collect();
        for nr in [3, 5, 8, 12, 16] {
            for (col0, block_cols) in [(0, 13), (1, 12), (4, 9), (12, 1usize)] {
                for (row0, depth) in [(0, 11), (3, 5), (10, 1)] {
                    let panels = block_cols.div_ceil(nr);
                    let mut expected = vec![0.0f32; panels * depth * nr];
                    for (index, place) in expected.iter_mut().enumerate() {
                        let (panel, p, c) = (index / (depth * nr), index / nr % depth, index % nr);
                        if panel * nr + c < block_cols {
                            *place = element(row0 + p, col0 + panel * nr + c);
                        }
                    }
                    let mut packed = vec![f32::NAN; expected.len()];
                    pack_b(row_major(&values, rows, cols), row0, depth, col0, block_cols, nr, &mut packed);
                    assert_eq!(packed, expected, "nr {nr}, cols {col0}+{block_cols}, rows {row0}+{depth}");
                }
            }
        }
    }
}
