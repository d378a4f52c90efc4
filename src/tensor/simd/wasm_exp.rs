//! The wasm vector eˣ (f32x4) behind Exp, Sigmoid and Silu: within 1 ulp of the correctly rounded
//! value over the whole f32 range, at about 25 vector instructions per four values.
//!
//! Two things make it cheap in V8 (measured in headless Chromium and node, 2²⁰ values):
//! - Its constants are runtime values ([`ExpConstants`], made once per kernel call): V8 builds every
//!   `v128.const` inside the loop again (a 64-bit immediate move, then a move to XMM and a shuffle
//!   on the vector ports the arithmetic needs): with the constants rebuilt the same kernel took 5.2
//!   cycles per value, with them as runtime values 3.3 (Chromium, before the other changes).
//! - Whole blocks of 32 values whose |x| ≤ 86 (every lane of a normal result) take [`exp_fast`]:
//!   the integer n comes from the bits of `x·log₂e + 1.5·2²³` (no float→int conversion) and 2ⁿ is
//!   added to the exponent field. A block holding any other value (overflow, subnormal or zero
//!   results, ±∞, NaN) takes [`exp_wide`], the same arithmetic on the clamped input with 2ⁿ applied
//!   as two multiplications (each factor a normal f32), so subnormal results round once. For
//!   |x| ≤ 86 both give the same bits, so a value's result does not depend on its neighbours.

use core::arch::wasm32::*;

/// ln2 ≈ LN2_HIGH + LN2_LOW (0.693145751953125 + 1.4286068e-6). LN2_HIGH has 15 significant bits,
/// so n·LN2_HIGH (|n| ≤ 151) is exact and x − n·LN2_HIGH cancels without rounding.
const LN2_HIGH: f32 = f32::from_bits(0x3f31_7200);
const LN2_LOW: f32 = f32::from_bits(0x35bf_be8e);
/// 1.5·2²³: adding it to |t| < 2²² rounds t to an integer (ties to even) held in the low mantissa
/// bits, and the float's bits shifted left by 23 are that integer's exponent field (the constant's
/// own bits vanish in the shift).
const ROUNDING: f32 = 12_582_912.0;
/// eʳ ≈ 1 + r + r²·(C₂ + C₃r + C₄r² + C₅r³ + C₆r⁴) on |r| ≤ ln2/2: a weighted least-squares fit of the
/// relative error on Chebyshev nodes, iterated to minimax (scripts/exp-coefficients.py), rounded to
/// f32; relative error 5.4·10⁻⁹ (0.05 ulp) before rounding of the arithmetic.
const POLYNOMIAL: [u32; 5] = [0x3eff_ffff, 0x3e2a_aa49, 0x3d2a_ab41, 0x3c09_1cff, 0x3ab5_ec74];
/// Largest |x| of the fast path: e^±86 and every intermediate 2ⁿ (|n| ≤ 124) are normal f32.
const FAST_LIMIT: f32 = 86.0;

/// The constants of [`exp`] as runtime values (see the module doc for why).
#[derive(Clone, Copy)]
pub struct ExpConstants {
    log2_e: v128,
    rounding: v128,
    minus_ln2_high: v128,
    minus_ln2_low: v128,
    polynomial: [v128; 5],
    one: v128,
    magnitude_mask: v128,
    fast_limit_bits: v128,
}

impl ExpConstants {
    /// The constants, hidden from the optimiser so that they stay loop-invariant values.
    #[inline(always)]
    pub fn new() -> ExpConstants {
        core::hint::black_box(ExpConstants {
            log2_e: f32x4_splat(std::f32::consts::LOG2_E),
            rounding: f32x4_splat(ROUNDING),
            minus_ln2_high: f32x4_splat(-LN2_HIGH),
            minus_ln2_low: f32x4_splat(-LN2_LOW),
            polynomial: POLYNOMIAL.map(|bits| f32x4_splat(f32::from_bits(bits))),
            one: f32x4_splat(1.0),
            magnitude_mask: i32x4_splat(0x7fff_ffff),
            fast_limit_bits: i32x4_splat(FAST_LIMIT.to_bits() as i32),
        })
    }
}

/// `a·b + c` per lane: fused where the relaxed build's CPU fuses `f32x4.relaxed_madd` (one rounding
/// less, which only tightens the error), multiply then add otherwise.
#[inline(always)]
fn multiply_add(a: v128, b: v128, c: v128) -> v128 {
    #[cfg(target_feature = "relaxed-simd")]
    return f32x4_relaxed_madd(a, b, c);
    #[cfg(not(target_feature = "relaxed-simd"))]
    return f32x4_add(f32x4_mul(a, b), c);
}

/// Lanes outside the fast path: |x| > 86 or NaN (on the bits: a NaN's magnitude bits exceed any
/// finite value's, so one signed integer compare catches both).
#[inline(always)]
fn outside_fast_range(x: v128, constants: &ExpConstants) -> v128 {
    i32x4_gt(v128_and(x, constants.magnitude_mask), constants.fast_limit_bits)
}

/// `(k, r)` with x = n·ln2 + r, |r| ≤ ln2/2, and n in the low bits of `k` (see [`ROUNDING`]).
#[inline(always)]
fn reduce_range(x: v128, constants: &ExpConstants) -> (v128, v128) {
    let k = multiply_add(x, constants.log2_e, constants.rounding);
    let n = f32x4_sub(k, constants.rounding);
    (k, multiply_add(n, constants.minus_ln2_low, multiply_add(n, constants.minus_ln2_high, x)))
}

/// eʳ for |r| ≤ ln2/2.
#[inline(always)]
fn series(r: v128, constants: &ExpConstants) -> v128 {
    // Estrin's scheme: shorter dependency chains than Horner, so more values are in flight.
    let [c2, c3, c4, c5, c6] = constants.polynomial;
    let r2 = f32x4_mul(r, r);
    let low = multiply_add(c3, r, c2);
    let high = multiply_add(c6, r2, multiply_add(c5, r, c4));
    let tail = multiply_add(high, r2, low);
    // 1 + (r + r²·tail): the small terms are summed first, so the last addition rounds once.
    f32x4_add(constants.one, multiply_add(r2, tail, r))
}

/// `(k, eʳ)` with x = n·ln2 + r (see [`reduce_range`]).
#[inline(always)]
fn reduce(x: v128, constants: &ExpConstants) -> (v128, v128) {
    let (k, r) = reduce_range(x, constants);
    (k, series(r, constants))
}

/// eˣ from [`reduce_range`]'s `(k, r)` of a lane with |x| ≤ 86: eʳ with n added to its exponent field.
#[inline(always)]
fn scale(k: v128, r: v128, constants: &ExpConstants) -> v128 {
    i32x4_add(series(r, constants), i32x4_shl(k, 23))
}

/// eˣ for lanes with |x| ≤ 86.
#[inline(always)]
fn exp_fast(x: v128, constants: &ExpConstants) -> v128 {
    let (k, r) = reduce_range(x, constants);
    scale(k, r, constants)
}

/// eˣ for any lanes: NaN stays NaN, results past the f32 range become +∞ or 0, subnormal results
/// round once. Same bits as [`exp_fast`] where |x| ≤ 86.
#[inline(never)]
fn exp_wide(x: v128, constants: &ExpConstants) -> v128 {
    // ln(f32::MAX) < 89 and e^-104 rounds to 0, so clamping changes no result and keeps |n| ≤ 151.
    let x = f32x4_min(f32x4_max(x, f32x4_splat(-104.0)), f32x4_splat(89.0));
    let (k, series) = reduce(x, constants);
    let n = i32x4_sub(k, constants.rounding);
    // 2ⁿ as 2^(n/2)·2^(n − n/2), each a normal f32, so n from −151 to 129 works.
    let first = i32x4_shr(n, 1);
    let second = i32x4_sub(n, first);
    let power = |e: v128| i32x4_shl(i32x4_add(e, i32x4_splat(127)), 23);
    f32x4_mul(f32x4_mul(series, power(first)), power(second))
}

/// eˣ per lane, within 1 ulp of the correctly rounded value (the path chosen per vector).
#[inline(always)]
pub fn exp(x: v128, constants: &ExpConstants) -> v128 {
    if v128_any_true(outside_fast_range(x, constants)) {
        exp_wide(x, constants)
    } else {
        exp_fast(x, constants)
    }
}

/// Vectors per block of the block kernels: eight vectors (32 values) share one range check, and
/// each stage of the arithmetic runs over all eight before the next (independent work side by side
/// for the out-of-order core: V8 does not reorder instructions).
const VECTORS: usize = 8;
/// Values per block.
const BLOCK: usize = 4 * VECTORS;

/// One block after its range check and range reduction: `k` and `r` of each vector (see
/// [`reduce_range`]), or `wide` when a value lies outside the fast range (then `k`, `r` are unused).
struct ReducedBlock {
    k: [v128; VECTORS],
    r: [v128; VECTORS],
    wide: bool,
}

/// Loads a block, checks its range and reduces it.
///
/// # Safety
/// `source` must be readable for [`VECTORS`] vectors.
#[inline(always)]
unsafe fn reduce_block(source: *const v128, constants: &ExpConstants) -> ReducedBlock {
    let mut x = [f32x4_splat(0.0); VECTORS];
    let mut outside = f32x4_splat(0.0);
    for (v, vector) in x.iter_mut().enumerate() {
        // SAFETY: the caller guarantees VECTORS readable vectors.
        *vector = unsafe { v128_load(source.add(v)) };
        outside = v128_or(outside, outside_fast_range(*vector, constants));
    }
    let mut block = ReducedBlock { k: x, r: x, wide: v128_any_true(outside) };
    for (v, &vector) in x.iter().enumerate() {
        (block.k[v], block.r[v]) = reduce_range(vector, constants);
    }
    block
}

/// Writes e^source of a block reduced by [`reduce_block`] (the wide path reloads its source, so
/// `target` may be `source`, not yet written).
///
/// # Safety
/// `source` must be readable and `target` writable for [`VECTORS`] vectors.
#[inline(always)]
unsafe fn finish_block(block: &ReducedBlock, source: *const v128, target: *mut v128, constants: &ExpConstants) {
    for v in 0..VECTORS {
        // SAFETY: the caller guarantees VECTORS readable and writable vectors.
        unsafe {
            let y = if block.wide {
                exp_wide(v128_load(source.add(v)), constants)
            } else {
                scale(block.k[v], block.r[v], constants)
            };
            v128_store(target.add(v), y);
        }
    }
}

/// `target[v] = e^source[v]` for `blocks` whole blocks (the same place for in-place use).
///
/// The relaxed build reduces and finishes each block in turn. The simd128 build, whose multiply
/// and add are two instructions with a longer chain between them, reduces the next block before
/// it finishes the current one (software pipelining: each block's chain is cut in two halves that
/// run side by side). Measured against the former kernel (16-value blocks, one vector's whole chain
/// after the other) in Chromium 156 on an AMD EPYC (family 26), renderer CPU time, fastest of 9
/// samples, 2²⁰ / 2²⁴ values: simd128 3.03 / 2.93 → 2.37 / 2.36 cycles per value, relaxed 2.05 /
/// 2.05 → 1.85 / 1.86, the same bits. Pipelining the relaxed build measured slower (2.07 against
/// 1.85 unpipelined: V8 spills the carried `k` and `r`).
///
/// # Safety
/// `source` must be readable and `target` writable for `blocks · BLOCK` values.
unsafe fn exp_blocks(source: *const v128, target: *mut v128, blocks: usize, constants: &ExpConstants) {
    if blocks == 0 {
        return;
    }
    let at = |i: usize| (source.wrapping_add(i * VECTORS), target.wrapping_add(i * VECTORS));
    // SAFETY (all blocks below): i < blocks, within the caller's guarantee.
    #[cfg(target_feature = "relaxed-simd")]
    for i in 0..blocks {
        let (from, to) = at(i);
        unsafe { finish_block(&reduce_block(from, constants), from, to, constants) };
    }
    #[cfg(not(target_feature = "relaxed-simd"))]
    {
        let mut current = unsafe { reduce_block(source, constants) };
        for i in 0..blocks {
            let (from, to) = at(i);
            let next = if i + 1 < blocks { Some(unsafe { reduce_block(at(i + 1).0, constants) }) } else { None };
            unsafe { finish_block(&current, from, to, constants) };
            match next {
                Some(block) => current = block,
                None => break,
            }
        }
    }
}

/// `values[i] = e^values[i]`.
pub fn exp_in_place(values: &mut [f32]) {
    let constants = ExpConstants::new();
    let blocks = values.len() / BLOCK;
    let place = values.as_mut_ptr() as *mut v128;
    // SAFETY: `blocks` whole blocks of `values`, read and written in place.
    unsafe { exp_blocks(place, place, blocks, &constants) };
    super::wasm::map1(&mut values[blocks * BLOCK..], |x| exp(x, &constants));
}

/// `e^values[i]` into a new vector, written once: no copy of the input first (the in-place
/// kernel on a copy would read and write every value twice).
pub fn exp_to_vec(values: &[f32]) -> Vec<f32> {
    let constants = ExpConstants::new();
    let mut out = Vec::with_capacity(values.len());
    let blocks = values.len() / BLOCK;
    let whole = blocks * BLOCK;
    // SAFETY: `whole` values of the input are read and `whole` values of the capacity written
    // (uninitialised until then: only written), after which they are the vector's length.
    unsafe {
        exp_blocks(values.as_ptr() as *const v128, out.as_mut_ptr() as *mut v128, blocks, &constants);
        out.set_len(whole);
    }
    out.extend_from_slice(&values[whole..]);
    super::wasm::map1(&mut out[whole..], |x| exp(x, &constants));
    out
}

/// σ(x) per lane as the scalar rule, given e = e^−|x|: 1/(1+e) for x ≥ 0 and e/(1+e) below (one
/// division: the numerator is chosen first).
#[inline(always)]
fn sigmoid_of(x: v128, e: v128, one: v128) -> v128 {
    let numerator = v128_bitselect(one, e, f32x4_ge(x, f32x4_splat(0.0)));
    f32x4_div(numerator, f32x4_add(one, e))
}

/// `target[i] = σ(source[i])`, or x·σ(x) (SiLU) when `times_x`: a chunk at a time, e^−|x| by the
/// block kernel into a scratch chunk (in the L1 cache), then the division.
///
/// # Safety
/// `source` must be readable and `target` writable for `len` values; they may be the same pointer
/// but must not overlap otherwise.
pub unsafe fn sigmoid_raw(source: *const f32, target: *mut f32, len: usize, times_x: bool) {
    const CHUNK: usize = 1024;
    let one = f32x4_splat(1.0);
    let mut scratch = [0.0f32; CHUNK];
    for start in (0..len).step_by(CHUNK) {
        let count = CHUNK.min(len - start);
        // SAFETY: values start .. start + count of both, within the caller's guarantee.
        let (from, to) = unsafe { (source.add(start), target.add(start)) };
        let e = &mut scratch[..count];
        for (index, e) in e.iter_mut().enumerate() {
            // SAFETY: index < count.
            *e = -unsafe { *from.add(index) }.abs();
        }
        exp_in_place(e);
        let whole = count / 4 * 4;
        for i in (0..whole).step_by(4) {
            // SAFETY: i + 4 ≤ whole ≤ count; `x` is loaded before the store to the same place.
            unsafe {
                let x = v128_load(from.add(i) as *const v128);
                let sigmoid = sigmoid_of(x, v128_load(e.as_ptr().add(i) as *const v128), one);
                v128_store(to.add(i) as *mut v128, if times_x { f32x4_mul(x, sigmoid) } else { sigmoid });
            }
        }
        for (i, &e) in e.iter().enumerate().skip(whole) {
            // SAFETY: i < count.
            unsafe {
                let x = *from.add(i);
                let sigmoid = f32x4_extract_lane::<0>(sigmoid_of(f32x4_splat(x), f32x4_splat(e), one));
                *to.add(i) = if times_x { x * sigmoid } else { sigmoid };
            }
        }
    }
}
