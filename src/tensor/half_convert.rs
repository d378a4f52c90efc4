//! f16 and bf16 buffers to and from f32, branch-free so the compiler vectorises the loops: wasm
//! has no half-precision instructions, and the `half` crate's per-element conversion there is a
//! chain of branches (a profile of a notebook on [2048, 3136] FP16 tensors spent 30 % of its time
//! in it). Bit for bit what `half` gives (round to nearest even; a NaN keeps its sign and top
//! payload bits and becomes quiet), which the tests check for every f16 and bf16 and at every f32
//! rounding boundary.

use half::{bf16, f16};

/// 2^112: scales an f16's exponent and mantissa, placed in an f32's, to its value (exact, since
/// every f16 is an f32 and f32 arithmetic keeps subnormals).
const F16_SCALE: f32 = f32::from_bits((127 + 112) << 23);

/// One f16 as f32.
#[inline]
pub(super) fn f16_bits_to_f32(bits: u16) -> f32 {
    let bits = bits as u32;
    let sign = (bits & 0x8000) << 16;
    let magnitude = bits & 0x7fff;
    let finite = (f32::from_bits(magnitude << 13) * F16_SCALE).to_bits();
    let mantissa = magnitude & 0x3ff;
    let quiet = if mantissa != 0 { 0x40_0000 } else { 0 };
    let special = 0x7f80_0000 | quiet | (mantissa << 13);
    f32::from_bits(sign | if magnitude >= 0x7c00 { special } else { finite })
}

/// One f32 as f16, rounded to nearest even.
#[inline]
fn f32_to_f16_bits(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = (bits >> 16) & 0x8000;
    let magnitude = bits & 0x7fff_ffff;
    // NaN: quiet, with the top payload bits; ≥ 65520 (which rounds past 65504): infinity.
    let nan = 0x7e00 | ((magnitude >> 13) & 0x3ff);
    let infinity = 0x7c00;
    // Below 2^-14 (f16 subnormals and zero): adding 0.5, whose f32 spacing is 2^-24 (the f16
    // subnormal spacing), rounds the value to nearest even; the mantissa bits then count 2^-24s.
    let subnormal = (f32::from_bits(magnitude) + 0.5).to_bits() - 0.5f32.to_bits();
    // Normal: re-bias the exponent, round the 13 dropped bits to nearest even (a carry may reach
    // the exponent, up to infinity).
    let odd = (magnitude >> 13) & 1;
    let normal = magnitude.wrapping_sub((127 - 15) << 23).wrapping_add(0xfff + odd) >> 13;
    let result = if magnitude > 0x7f80_0000 {
        nan
    } else if magnitude >= 0x477f_f000 {
        infinity
    } else if magnitude < 0x3880_0000 {
        subnormal
    } else {
        normal
    };
    (sign | result) as u16
}

/// One bf16 as f32 (a NaN becomes quiet).
#[inline]
pub(super) fn bf16_bits_to_f32(bits: u16) -> f32 {
    let bits = bits as u32;
    let quiet = if bits & 0x7fff > 0x7f80 { 0x40 } else { 0 };
    f32::from_bits((bits | quiet) << 16)
}

/// One f32 as bf16, rounded to nearest even (a NaN keeps its top bits and becomes quiet).
#[inline]
fn f32_to_bf16_bits(value: f32) -> u16 {
    let bits = value.to_bits();
    let nan = (bits >> 16) | 0x40;
    let rounded = (bits.wrapping_add(0x7fff + ((bits >> 16) & 1))) >> 16;
    (if bits & 0x7fff_ffff > 0x7f80_0000 { nan } else { rounded }) as u16
}

/// f16 values as f32.
pub fn f16_to_f32(values: &[f16]) -> Vec<f32> {
    values.iter().map(|value| f16_bits_to_f32(value.to_bits())).collect()
}

/// f32 values as f16 (round to nearest even).
pub fn f32_to_f16(values: &[f32]) -> Vec<f16> {
    let mut out: Vec<f16> = Vec::with_capacity(values.len());
    // SAFETY: `values.len()` values of spare capacity are written, after which they are part of
    // the vector.
    unsafe {
        narrow_f16(values.as_ptr(), out.as_mut_ptr(), values.len());
        out.set_len(values.len());
    }
    out
}

/// f16 values as f32 into `out` (same length).
pub fn f16_to_f32_into(values: &[f16], out: &mut [f32]) {
    assert_eq!(values.len(), out.len(), "widening into a slice of another length");
    for (target, value) in out.iter_mut().zip(values) {
        *target = f16_bits_to_f32(value.to_bits());
    }
}

/// bf16 values as f32 into `out` (same length).
pub fn bf16_to_f32_into(values: &[bf16], out: &mut [f32]) {
    assert_eq!(values.len(), out.len(), "widening into a slice of another length");
    for (target, value) in out.iter_mut().zip(values) {
        *target = bf16_bits_to_f32(value.to_bits());
    }
}

/// f32 values as f16 into `out` (same length; round to nearest even).
pub fn f32_to_f16_into(values: &[f32], out: &mut [f16]) {
    assert_eq!(values.len(), out.len(), "narrowing into a slice of another length");
    // SAFETY: both slices hold `values.len()` elements and are distinct (one is borrowed mutably).
    unsafe { narrow_f16(values.as_ptr(), out.as_mut_ptr(), values.len()) }
}

/// f32 values as bf16 into `out` (same length; round to nearest even).
pub fn f32_to_bf16_into(values: &[f32], out: &mut [bf16]) {
    assert_eq!(values.len(), out.len(), "narrowing into a slice of another length");
    for (target, &value) in out.iter_mut().zip(values) {
        *target = bf16::from_bits(f32_to_bf16_bits(value));
    }
}

/// Writes the f16 of `len` values from `source` to `target`, eight at a time through the vector
/// code in the wasm build, the rest (and every value elsewhere) through [`f32_to_f16_bits`].
///
/// # Safety
/// `source` must be readable and `target` writable for `len` values (`target` may be
/// uninitialised), and they must not overlap.
unsafe fn narrow_f16(source: *const f32, target: *mut f16, len: usize) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    // SAFETY: as this function's contract.
    let whole = unsafe { wasm::narrow_whole(source, target as *mut u16, len) };
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let whole = 0;
    for i in whole..len {
        // SAFETY: i < len.
        unsafe { target.add(i).write(f16::from_bits(f32_to_f16_bits(source.add(i).read()))) };
    }
}

/// The wasm build's f32 → f16 narrowing, eight values at a time: [`f32_to_f16_bits`] per lane (the
/// compiler does not vectorise the scalar loop for `simd128`).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm {
    use core::arch::wasm32::*;

    /// The f16 bits of four f32 values, one per 32-bit lane: the lanes of [`super::f32_to_f16_bits`].
    #[inline(always)]
    fn f16_bits(bits: v128) -> v128 {
        let splat = u32x4_splat;
        let sign = v128_and(u32x4_shr(bits, 16), splat(0x8000));
        let magnitude = v128_and(bits, splat(0x7fff_ffff));
        let nan = v128_or(splat(0x7e00), v128_and(u32x4_shr(magnitude, 13), splat(0x3ff)));
        let subnormal = i32x4_sub(f32x4_add(magnitude, f32x4_splat(0.5)), splat(0.5f32.to_bits()));
        let odd = v128_and(u32x4_shr(magnitude, 13), splat(1));
        let rounded = i32x4_add(i32x4_sub(magnitude, splat((127 - 15) << 23)), i32x4_add(splat(0xfff), odd));
        let normal = u32x4_shr(rounded, 13);
        // The magnitude is below 2³¹: signed comparisons order it as the scalar rule does.
        let result = v128_bitselect(subnormal, normal, i32x4_lt(magnitude, splat(0x3880_0000)));
        let result = v128_bitselect(splat(0x7c00), result, i32x4_ge(magnitude, splat(0x477f_f000)));
        let result = v128_bitselect(nan, result, i32x4_gt(magnitude, splat(0x7f80_0000)));
        v128_or(sign, result)
    }

    /// Narrows all but the last `< 8` of `len` values from `source` into `target`; returns how
    /// many it narrowed.
    ///
    /// # Safety
    /// As [`super::narrow_f16`].
    pub(super) unsafe fn narrow_whole(source: *const f32, target: *mut u16, len: usize) -> usize {
        let whole = len / 8 * 8;
        for i in (0..whole).step_by(8) {
            // SAFETY: i + 8 ≤ whole ≤ len; the lanes hold 0 ..= 0xffff, so the saturating
            // narrowing keeps them.
            unsafe {
                let low = f16_bits(v128_load(source.add(i) as *const v128));
                let high = f16_bits(v128_load(source.add(i + 4) as *const v128));
                v128_store(target.add(i) as *mut v128, u16x8_narrow_i32x4(low, high));
            }
        }
        whole
    }
}

/// bf16 values as f32.
pub fn bf16_to_f32(values: &[bf16]) -> Vec<f32> {
    values.iter().map(|value| bf16_bits_to_f32(value.to_bits())).collect()
}

/// f32 values as bf16 (round to nearest even).
pub fn f32_to_bf16(values: &[f32]) -> Vec<bf16> {
    values.iter().map(|&value| bf16::from_bits(f32_to_bf16_bits(value))).collect()
}

#[cfg(test)]
#[path = "half_convert_tests.rs"]
mod tests;
