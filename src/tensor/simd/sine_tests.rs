//! The f64-reduced sin and cos against f64 sin and cos rounded to f32 (the math library's, an
//! independent reference): within 1 ulp everywhere, and equal but for rare near-midpoint values.

use super::*;

fn ulps(left: f32, right: f32) -> u32 {
    if left.is_nan() && right.is_nan() {
        return 0;
    }
    let key = |value: f32| {
        let bits = value.to_bits() as i64;
        if bits < 0x8000_0000 {
            bits
        } else {
            0x8000_0000 - bits
        }
    };
    (key(left) - key(right)).unsigned_abs() as u32
}

/// Every 997th f32 of magnitude up to 2^23 of both signs, the f32s nearest k·π/2 (where the
/// reduction cancels most) with their neighbours, and the specials.
fn inputs() -> Vec<f32> {
    let mut values: Vec<f32> = (0..=LIMIT.to_bits()).step_by(997).map(f32::from_bits).collect();
    for k in (1..(1u64 << 23)).step_by(4099).chain(1..200) {
        let nearest = (k as f64 * std::f64::consts::FRAC_PI_2) as f32;
        if nearest <= LIMIT {
            values.extend([nearest, f32::from_bits(nearest.to_bits() - 1), f32::from_bits(nearest.to_bits() + 1)]);
        }
    }
    let negated: Vec<f32> = values.iter().map(|x| -x).collect();
    values.extend(negated);
    values.extend([0.0, -0.0, 1e9, -3e12, f32::MAX, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, f32::MIN_POSITIVE]);
    values
}

fn check(name: &str, kernel: fn(&mut [f32]), reference: fn(f64) -> f64) {
    let inputs = inputs();
    let mut values = inputs.clone();
    kernel(&mut values);
    let mut differing = 0;
    for (&x, &got) in inputs.iter().zip(&values) {
        let wanted = reference(x as f64) as f32;
        let distance = ulps(got, wanted);
        assert!(distance <= 1, "{name}({x:e}) = {got:e}, f64 reference {wanted:e}");
        assert_eq!(got.to_bits() == 0x8000_0000, wanted.to_bits() == 0x8000_0000, "{name}({x:e}): sign of zero");
        differing += usize::from(distance != 0);
    }
    assert!(differing * 1000 < inputs.len(), "{name}: {differing} of {} differ by an ulp", inputs.len());
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn sine_is_the_rounded_f64_sine() {
    check("sin", sin_in_place, f64::sin);
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn cosine_is_the_rounded_f64_cosine() {
    check("cos", cos_in_place, f64::cos);
}
