//! The branch-free conversions against the `half` crate (natively its F16C path where the CPU has
//! one): every f16 and bf16, and f32s at and around every rounding boundary.

use half::{bf16, f16};

use super::*;

fn same_f32(left: f32, right: f32) -> bool {
    left.to_bits() == right.to_bits()
}

#[test]
fn every_f16_and_bf16_widens_as_half_does() {
    let all: Vec<u16> = (0..=u16::MAX).collect();
    let halves: Vec<f16> = all.iter().map(|&bits| f16::from_bits(bits)).collect();
    for (value, widened) in halves.iter().zip(f16_to_f32(&halves)) {
        assert!(same_f32(value.to_f32(), widened), "f16 {:#06x}: {widened}", value.to_bits());
    }
    let brains: Vec<bf16> = all.iter().map(|&bits| bf16::from_bits(bits)).collect();
    for (value, widened) in brains.iter().zip(bf16_to_f32(&brains)) {
        assert!(same_f32(value.to_f32(), widened), "bf16 {:#06x}: {widened}", value.to_bits());
    }
}

/// f32s around each boundary of `step`-spaced values: the values themselves, the midpoints to the
/// next (ties) and one f32 ulp either side of both.
fn boundaries(values: impl Iterator<Item = f32>, next: impl Fn(f32) -> f32) -> Vec<f32> {
    let mut out = Vec::new();
    for value in values.filter(|value| value.is_finite()) {
        let midpoint = ((value as f64 + next(value) as f64) / 2.0) as f32;
        for centre in [value, midpoint] {
            let bits = centre.to_bits();
            for candidate in [bits.wrapping_sub(1), bits, bits.wrapping_add(1)] {
                out.push(f32::from_bits(candidate));
                out.push(-f32::from_bits(candidate));
            }
        }
    }
    out
}

fn narrowing_cases(finite: Vec<f32>) -> Vec<f32> {
    let mut cases = finite;
    // A sweep of the whole f32 range (every 4093rd pattern: NaNs with payloads, infinities,
    // subnormals) and the specials.
    cases.extend((0..=u32::MAX).step_by(4093).map(f32::from_bits));
    cases.extend([
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        f32::MIN_POSITIVE,
        65504.0,
        65520.0,
    ]);
    cases
}

/// Natively the scalar rule; in the wasm build (the browser tests) also its vector form.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn f32_narrows_to_f16_as_half_does() {
    let halves = (0..0x7c00u16).map(|bits| f16::from_bits(bits).to_f32());
    let cases = narrowing_cases(boundaries(halves, |value| {
        let bits = f16::from_f32(value).to_bits();
        f16::from_bits(bits + 1).to_f32()
    }));
    for (&value, narrowed) in cases.iter().zip(f32_to_f16(&cases)) {
        let expected = f16::from_f32(value);
        assert_eq!(expected.to_bits(), narrowed.to_bits(), "f32 {value:e} ({:#010x})", value.to_bits());
    }
}

#[test]
fn f32_narrows_to_bf16_as_half_does() {
    let brains = (0..0x7f80u16).map(|bits| bf16::from_bits(bits).to_f32());
    let cases = narrowing_cases(boundaries(brains, |value| {
        let bits = bf16::from_f32(value).to_bits();
        bf16::from_bits(bits + 1).to_f32()
    }));
    for (&value, narrowed) in cases.iter().zip(f32_to_bf16(&cases)) {
        let expected = bf16::from_f32(value);
        assert_eq!(expected.to_bits(), narrowed.to_bits(), "f32 {value:e} ({:#010x})", value.to_bits());
    }
}
