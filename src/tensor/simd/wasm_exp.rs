//! The wasm vector eˣ (f32x4) behind Exp, Sigmoid and Silu: within 1 ulp of the correctly rounded
//! value over the whole f32 range, at about 25 vector instructions per four values.
//!
//! Two things make it cheap in V8 (measured in headless Chromium and node, 2²⁰ values):
//! - Its constants are runtime values ([`ExpConstants`], made once per kernel call): V8 builds every
//!   `v128.const` inside the loop again (a 64-bit immediate move, then a move to XMM and a shuffle
//!   on the vector ports the arithmetic needs): with the constants rebuilt the same kernel took 5.2
//!   cycles per value, with them as runtime values 3.3 (Chromium, before the other changes).
//! - Whole blocks of 16 values whose |x| ≤ 86 (every lane of a normal result) take [`exp_fast`]:
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

/// `(k, eʳ)` with x = n·ln2 + r, |r| ≤ ln2/2, and n in the low bits of `k` (see [`ROUNDING`]).
#[inline(always)]
fn reduce(x: v128, constants: &ExpConstants) -> (v128, v128) {
    let k = multiply_add(x, constants.log2_e, constants.rounding);
    let n = f32x4_sub(k, constants.rounding);
    let r = multiply_add(n, constants.minus_ln2_low, multiply_add(n, constants.minus_ln2_high, x));
    // Estrin's scheme: shorter dependency chains than Horner, so more values are in flight.
    let [c2, c3, c4, c5, c6] = constants.polynomial;
    let r2 = f32x4_mul(r, r);
    let low = multiply_add(c3, r, c2);
    let high = multiply_add(c6, r2, multiply_add(c5, r, c4));
    let tail = multiply_add(high, r2, low);
    // 1 + (r + r²·tail): the small terms are summed first, so the last addition rounds once.
    (k, f32x4_add(constants.one, multiply_add(r2, tail, r)))
}

/// eˣ for lanes with |x| ≤ 86: eʳ with n added to its exponent field.
#[inline(always)]
fn exp_fast(x: v128, constants: &ExpConstants) -> v128 {
    let (k, series) = reduce(x, constants);
    i32x4_add(series, i32x4_shl(k, 23))
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

/// Values per step of the block kernels: four vectors share one range check.
const BLOCK: usize = 16;

/// `target[v] = e^source[v]` for the four vectors of one block (the same place for in-place use).
/// Plain loops over the vectors, not `array::map`: LLVM left that one as a call per vector.
///
/// # Safety
/// `source` must be readable and `target` writable for four vectors.
#[inline(always)]
unsafe fn exp_block(source: *const v128, target: *mut v128, constants: &ExpConstants) {
    let mut x = [f32x4_splat(0.0); BLOCK / 4];
    let mut outside = f32x4_splat(0.0);
    for (v, vector) in x.iter_mut().enumerate() {
        // SAFETY: the caller guarantees four readable vectors.
        *vector = unsafe { v128_load(source.add(v)) };
        outside = v128_or(outside, outside_fast_range(*vector, constants));
    }
    let wide = v128_any_true(outside);
    for (v, &vector) in x.iter().enumerate() {
        let y = if wide { exp_wide(vector, constants) } else { exp_fast(vector, constants) };
        // SAFETY: the caller guarantees four writable vectors.
        unsafe { v128_store(target.add(v), y) };
    }
}

/// `values[i] = e^values[i]`.
pub fn exp_in_place(values: &mut [f32]) {
    let constants = ExpConstants::new();
    let mut blocks = values.chunks_exact_mut(BLOCK);
    for block in &mut blocks {
        let place = block.as_mut_ptr() as *mut v128;
        // SAFETY: a block holds 16 values, four vectors, read and written in place.
        unsafe { exp_block(place, place, &constants) };
    }
    super::wasm::map1(blocks.into_remainder(), |x| exp(x, &constants));
}

/// `e^values[i]` into a new vector, written once: no copy of the input first (the in-place
/// kernel on a copy would read and write every value twice).
pub fn exp_to_vec(values: &[f32]) -> Vec<f32> {
    let constants = ExpConstants::new();
    let mut out = Vec::with_capacity(values.len());
    let whole = values.len() / BLOCK * BLOCK;
    for (source, target) in values.chunks_exact(BLOCK).zip(out.spare_capacity_mut().chunks_exact_mut(BLOCK)) {
        // SAFETY: both chunks hold 16 values (the target's are uninitialised; only written).
        unsafe { exp_block(source.as_ptr() as *const v128, target.as_mut_ptr() as *mut v128, &constants) };
    }
    // SAFETY: the loop above wrote the first `whole` values, within the capacity.
    unsafe { out.set_len(whole) };
    out.extend_from_slice(&values[whole..]);
    super::wasm::map1(&mut out[whole..], |x| exp(x, &constants));
    out
}

/// σ(x) per lane as the scalar rule: with e = e^−|x|, 1/(1+e) for x ≥ 0 and e/(1+e) below.
#[inline(always)]
pub fn sigmoid(x: v128, constants: &ExpConstants) -> v128 {
    let e = exp(f32x4_neg(f32x4_abs(x)), constants);
    let denominator = f32x4_add(constants.one, e);
    let positive = f32x4_div(constants.one, denominator);
    let negative = f32x4_div(e, denominator);
    v128_bitselect(positive, negative, f32x4_ge(x, f32x4_splat(0.0)))
}
