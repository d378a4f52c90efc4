//! The kernels that write a new vector (`unary_to_vec`, `binary_scalar_to_vec`, a scalar spread on
//! the left of a broadcast) against the in-place kernels and each value alone, over many blocks.

use super::tests::{same, special_values, BINARY_OPS};
use super::*;
use crate::tensor::{DType, Rng, Tensor};

/// Over several blocks (and a ragged last one), the scalar op into a new vector and a scalar on the
/// left of a broadcast give each element's own result.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn scalar_ops_over_many_blocks_match_each_element() {
    let mut rng = Rng::new(11);
    let values = special_values(&mut rng, 5000);
    let tensor = Tensor::from_f32(values.clone(), &[5000], DType::F32).unwrap();
    let scalar = Tensor::scalar(1.25, DType::F32);
    for op in BINARY_OPS {
        let right = binary_scalar_to_vec(op, &values, 1.25);
        let left = scalar.binary(op, &tensor).unwrap().to_f32_vec();
        let agree = |x: f32, y: f32| same(x, y) || (matches!(op, BinaryOp::Maximum | BinaryOp::Minimum) && x == y);
        for (index, &value) in values.iter().enumerate() {
            assert!(agree(right[index], op.apply(value, 1.25)), "{op:?}({value}, 1.25) at {index}");
            assert!(agree(left[index], op.apply(1.25, value)), "{op:?}(1.25, {value}) at {index}");
        }
    }
}

/// Over several chunks of the σ kernel (1024) and blocks of the others, with a ragged end: every
/// unary op gives the same bits into a new vector as in place, and in place as on each value alone.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn unary_ops_over_many_chunks_match_in_place_and_each_value() {
    let mut rng = Rng::new(17);
    let input = special_values(&mut rng, 4099);
    for op in UnaryOp::ALL {
        let mut in_place = input.clone();
        unary_in_place(op, &mut in_place);
        let new_vector = unary_to_vec(op, &input);
        for (index, &x) in input.iter().enumerate() {
            let mut alone = [x];
            unary_in_place(op, &mut alone);
            assert!(same(new_vector[index], in_place[index]), "{op:?}({x}) at {index}: new vector vs in place");
            assert!(same(in_place[index], alone[0]), "{op:?}({x}) at {index}: in a chunk vs alone");
        }
    }
}

/// A column broadcast along rows (runs of one operand against one value of the other, both ways)
/// gives each element's own result.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn broadcast_runs_against_one_value_match_each_element() {
    let mut rng = Rng::new(19);
    let (rows, columns) = (3, 1501);
    let values = special_values(&mut rng, rows * columns);
    let column = [0.75f32, -2.0, f32::NAN];
    let matrix = Tensor::from_f32(values.clone(), &[rows, columns], DType::F32).unwrap();
    let spread = Tensor::from_f32(column.to_vec(), &[rows, 1], DType::F32).unwrap();
    for op in BINARY_OPS {
        let right = matrix.binary(op, &spread).unwrap().to_f32_vec();
        let left = spread.binary(op, &matrix).unwrap().to_f32_vec();
        let agree = |x: f32, y: f32| same(x, y) || (matches!(op, BinaryOp::Maximum | BinaryOp::Minimum) && x == y);
        for (index, &value) in values.iter().enumerate() {
            let other = column[index / columns];
            assert!(agree(right[index], op.apply(value, other)), "{op:?}({value}, {other}) at {index}");
            assert!(agree(left[index], op.apply(other, value)), "{op:?}({other}, {value}) at {index}");
        }
    }
}
