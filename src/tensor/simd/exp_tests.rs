//! The block structure of the vector exp: the 32-value blocks with one range check (the simd128
//! build reduces the next block before it finishes the current one), the per-vector and zero-padded
//! tails, and the direct `unary_to_vec` path. In the wasm builds these run the
//! fast and the wide path of `wasm_exp`; natively they check the same promises of the portable
//! kernel. The accuracy over the whole range is `tests::exp_family_within_stated_ulp_of_f64`.

use super::*;
use crate::tensor::Rng;

/// Whether `value` is within 1 ulp of e^x computed in f64 and rounded to f32.
fn within_one_ulp_of_exp(x: f32, value: f32) -> bool {
    let exact = f64::from(x).exp() as f32;
    if exact.is_infinite() || value.is_infinite() || exact == 0.0 {
        return value == exact || (exact == 0.0 && value.to_bits() <= 1);
    }
    value.to_bits().abs_diff(exact.to_bits()) <= 1
}

/// Every length from 0 to 100 (zero to three whole blocks of 32, whole vectors after them, a tail of
/// 1–3 values) in place and into a new vector: the same bits both ways, each within 1 ulp of f64.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn exp_of_ragged_lengths_in_place_and_into_a_new_vector() {
    let mut rng = Rng::new(21);
    for len in 0..=100 {
        let input: Vec<f32> = (0..len).map(|_| (rng.normal() * 20.0) as f32).collect();
        let mut in_place = input.clone();
        unary_in_place(UnaryOp::Exp, &mut in_place);
        let new_vector = unary_to_vec(UnaryOp::Exp, &input);
        assert_eq!(new_vector.len(), len);
        for (i, &x) in input.iter().enumerate() {
            assert_eq!(in_place[i].to_bits(), new_vector[i].to_bits(), "exp({x:e}) at {i} of {len}");
            assert!(within_one_ulp_of_exp(x, in_place[i]), "exp({x:e}) = {:e} at {i} of {len}", in_place[i]);
        }
    }
}

/// A value's exp does not depend on its neighbours: a block whose values all have |x| ≤ 86 takes
/// the fast path, the same block with one value past the fast range (overflow, a subnormal or zero
/// result, ±∞, NaN) the wide one; both give the same bits for the ordinary values, at every
/// position of the block and in the tails.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn exp_gives_the_same_bits_whichever_path_its_block_takes() {
    let mut rng = Rng::new(22);
    // Ordinary values, with the edges of the fast range and of the rounding of n among them.
    let mut ordinary: Vec<f32> = (0..99).map(|_| (rng.normal() * 30.0).clamp(-86.0, 86.0) as f32).collect();
    let half_ln2 = std::f32::consts::LN_2 / 2.0;
    ordinary.extend([86.0, -86.0, 0.0, -0.0, half_ln2, -half_ln2, 1e-30, 85.99999]);
    let mut alone = ordinary.clone();
    unary_in_place(UnaryOp::Exp, &mut alone);
    for outsider in [86.00001, -86.00001, 88.72284, 100.0, -95.0, -104.5, f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
        for position in [0, 5, 15, 16, 31, 32, 40, 63, 64, 95, 96, ordinary.len() - 1] {
            let mut mixed = ordinary.clone();
            mixed[position] = outsider;
            let results = [unary_to_vec(UnaryOp::Exp, &mixed), {
                let mut values = mixed.clone();
                unary_in_place(UnaryOp::Exp, &mut values);
                values
            }];
            for result in results {
                for (i, (&value, &reference)) in result.iter().zip(&alone).enumerate() {
                    if i == position {
                        assert!(within_one_ulp_of_exp(outsider, value) || (outsider.is_nan() && value.is_nan()));
                    } else {
                        assert_eq!(value.to_bits(), reference.to_bits(), "exp({:e}) next to {outsider:e}", ordinary[i]);
                    }
                }
            }
        }
    }
}
