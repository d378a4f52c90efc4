//! Every op of the tensor core against the independent f64 reference in `tests/common/`, in f32, f16,
//! bf16 and f64, and every error the core reports for bad input. Natively; the browser and worker
//! tests run the same checks under wasm with SIMD.
#![cfg(not(target_arch = "wasm32"))]

use super::common;

use common::{checks, error_checks, layout_checks, matmul_checks, reference, round_to};
use tilelab::tensor::DType;

#[test]
fn reference_rounding_matches_the_formats() {
    // bf16 keeps 8 significant bits: 1 + 2^-8 is the tie between 1 and 1 + 2^-7 and goes to even (1);
    // f16's largest finite value is 65504 = (2 − 2^-10)·2^15; 65520 is the tie with 2^16 and overflows.
    assert_eq!(round_to(DType::Bf16, 1.0 + 2f64.powi(-8)), 1.0);
    assert_eq!(round_to(DType::Bf16, 1.0 + 3.0 * 2f64.powi(-9)), 1.0 + 2f64.powi(-7));
    assert_eq!(round_to(DType::F16, 65504.0), 65504.0);
    assert_eq!(round_to(DType::F16, 65520.0), f64::INFINITY);
    assert_eq!(round_to(DType::F16, 2f64.powi(-25)), 0.0);
    assert_eq!(round_to(DType::F16, 3.0 * 2f64.powi(-25)), 2f64.powi(-23));
    assert_eq!(round_to(DType::F32, 0.1), 0.1f32 as f64);
    assert_eq!(reference::broadcast_shape(&[2, 1, 4], &[3, 1]), Some(vec![2, 3, 4]));
    assert_eq!(reference::broadcast_shape(&[3], &[4]), None);
}

#[test]
fn creation_matches_reference() {
    matmul_checks::creation();
    matmul_checks::arange();
    matmul_checks::from_data();
}

#[test]
fn unary_ops_match_reference() {
    checks::unary_ops();
    checks::unary_extremes();
}

#[test]
fn binary_ops_with_broadcasting_match_reference() {
    checks::binary_ops();
}

#[test]
fn clip_matches_reference() {
    checks::clip();
}

#[test]
fn reductions_match_reference() {
    checks::reductions();
    checks::nan_propagation();
}

#[test]
fn softmax_matches_reference() {
    checks::softmax();
    checks::softmax_extremes();
}

#[test]
fn matmul_2d_matches_reference() {
    matmul_checks::matmul_2d();
}

#[test]
fn matmul_batched_matches_reference() {
    matmul_checks::matmul_batched();
}

#[test]
fn reshape_transpose_permute_match_reference() {
    layout_checks::reshape();
    layout_checks::transpose_permute();
}

#[test]
fn concat_matches_reference() {
    layout_checks::concat();
}

#[test]
fn slice_and_assign_slice_match_reference() {
    layout_checks::slice_and_assign();
}

#[test]
fn region_to_region_copies_match_reference() {
    layout_checks::slice_to_slice();
}

#[test]
fn view_and_assemble_match_reference() {
    layout_checks::view_and_assemble();
}

#[test]
fn cast_rounds_once() {
    layout_checks::cast();
}

#[test]
fn shape_mismatch_names_op_and_shapes() {
    error_checks::shape_mismatch();
}

#[test]
fn bad_dims_are_errors() {
    error_checks::bad_dims();
}

#[test]
fn element_count_overflow_is_an_error() {
    error_checks::element_count_overflow();
}

#[test]
fn allocations_above_the_cap_are_errors() {
    error_checks::allocation_cap();
}

#[test]
fn view_past_the_edge_suggests_valid_shape() {
    error_checks::view_past_the_edge();
}
