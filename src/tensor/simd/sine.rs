//! sin and cos of f32 values without a branch per element, for the wasm build (where the math
//! library's scalar sinf/cosf were 7 % of a notebook that builds its inputs from sin and cos of
//! 6 M values). Each value is reduced by π/2 in f64 (π/2 in three parts, so k·part is exact for
//! |x| ≤ 2^23) and its sine or cosine evaluated by Taylor polynomials in f64 on [−π/4, π/4];
//! the f64 result is within 2^-40 of the true value, so the f32 rounding is correct but where the
//! true value lies that close to a midpoint of two f32s (then within 1 ulp). Values beyond 2^23,
//! infinities and NaN go to the math library.

/// The largest |x| reduced here.
const LIMIT: f32 = 8_388_608.0;
/// Values per block: a block with a value beyond [`LIMIT`] (or a NaN) runs element by element.
const BLOCK: usize = 64;
/// 2/π.
const TWO_OVER_PI: f64 = std::f64::consts::FRAC_2_PI;
/// π/2 = PART_1 + PART_2 + PART_3: the first two with 30 significant bits (k·part is exact for
/// k < 2^23), the third the f64 rounding of the rest (scripts/sine-constants.py).
const PART_1: f64 = 1.570_796_327_665_448_2;
const PART_2: f64 = -8.705_515_692_000_731e-10;
const PART_3: f64 = -3.503_434_398_089_93e-19;

/// sin(values[i]) in place.
pub fn sin_in_place(values: &mut [f32]) {
    in_place(values, 0, f32::sin);
}

/// cos(values[i]) in place.
pub fn cos_in_place(values: &mut [f32]) {
    in_place(values, 1, f32::cos);
}

/// sin(x + shift·π/2) per value: shift 0 is sin, 1 is cos.
fn in_place(values: &mut [f32], shift: i64, scalar: fn(f32) -> f32) {
    for block in values.chunks_mut(BLOCK) {
        let outside = |x: f32| x.abs() > LIMIT || x.is_nan();
        if block.iter().any(|&x| outside(x)) {
            // Each value as it would be alone: its result never depends on its neighbours.
            block.iter_mut().for_each(|x| *x = if outside(*x) { scalar(*x) } else { reduced(*x, shift) });
        } else {
            block.iter_mut().for_each(|x| *x = reduced(*x, shift));
        }
    }
}

/// 1.5·2^52: added to a value of magnitude below 2^51, the sum rounds it to the nearest integer
/// (ties to even) and holds that integer, plus 2^51, in its low mantissa bits.
const ROUNDING: f64 = 6_755_399_441_055_744.0;

#[inline]
fn reduced(x: f32, shift: i64) -> f32 {
    let x = x as f64;
    // k = x·2/π rounded to nearest even, and its quadrant read from the sum's bits: the compiler
    // vectorises this, where `k as i64` became a checked scalar conversion per lane (V8: 8
    // instructions each; sin of 6.4 M values 35 → 30 ms in TurboFan code, same bits).
    let shifted = x * TWO_OVER_PI + ROUNDING;
    let k = shifted - ROUNDING;
    // With k = 0, x itself (x − 0·part would turn −0 into +0).
    let r = if k == 0.0 { x } else { ((x - k * PART_1) - k * PART_2) - k * PART_3 };
    // 2^51 is a multiple of 4, so the low two bits are k's, as two's complement for a negative k.
    let quadrant = (shifted.to_bits() as i64).wrapping_add(shift) & 3;
    let r2 = r * r;
    // sin r = r − r³/3! + … + r¹³/13!; cos r = 1 − r²/2! + … + r¹²/12! (the next terms are below
    // 2^-41 for |r| ≤ π/4).
    // r·(1 + …) keeps the sign of a zero r.
    let sine = r
        * (1.0
            + r2 * (-1.0 / 6.0
                + r2 * (1.0 / 120.0
                    + r2 * (-1.0 / 5040.0
                        + r2 * (1.0 / 362_880.0 + r2 * (-1.0 / 39_916_800.0 + r2 * (1.0 / 6_227_020_800.0)))))));
    let cosine = 1.0
        + r2 * (-0.5
            + r2 * (1.0 / 24.0
                + r2 * (-1.0 / 720.0
                    + r2 * (1.0 / 40_320.0 + r2 * (-1.0 / 3_628_800.0 + r2 * (1.0 / 479_001_600.0))))));
    // sin(r + q·π/2): sin r, cos r, −sin r, −cos r.
    let value = if quadrant & 1 == 0 { sine } else { cosine };
    (if quadrant & 2 == 0 { value } else { -value }) as f32
}

#[cfg(test)]
#[path = "sine_tests.rs"]
mod tests;
