//! Every op of the tensor core against the independent f64 reference in `tests/common/`, in f32, f16,
//! bf16 and f64, and every error the core reports for bad input. Natively; the browser and worker
//! tests run the same checks under wasm with SIMD.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{checks, layout_checks, matmul_checks, reference, round_to};
use tilelab::error::TensorError;
use tilelab::tensor::{set_allocation_limit, BinaryOp, DType, ReduceOp, SliceSpec, SoftmaxOp, Tensor, DEFAULT_ALLOCATION_LIMIT};

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
fn view_and_assemble_match_reference() {
    layout_checks::view_and_assemble();
}

#[test]
fn cast_rounds_once() {
    layout_checks::cast();
}

fn zeros(shape: &[usize]) -> Tensor {
    Tensor::zeros(shape, DType::F32).unwrap()
}

#[test]
fn shape_mismatch_names_op_and_shapes() {
    let error = zeros(&[2, 3]).binary(BinaryOp::Sub, &zeros(&[4])).unwrap_err();
    assert!(matches!(&error, TensorError::ShapeMismatch { op: "sub", lhs, rhs, .. } if lhs == &[2, 3] && rhs == &[4]), "{error:?}");
    let message = error.to_string();
    assert!(message.starts_with("sub: shapes [2, 3] and [4]"), "{message}");
    let message = zeros(&[2, 3]).matmul(&zeros(&[2, 3]), false, false, None).unwrap_err().to_string();
    assert_eq!(message, "matmul: shapes [2, 3] and [2, 3] do not match: inner dims 3 ≠ 2");
    let message = zeros(&[2, 2, 3]).matmul(&zeros(&[3, 3, 4]), false, false, None).unwrap_err().to_string();
    assert!(message.starts_with("matmul: shapes [2, 2, 3] and [3, 3, 4]"), "{message}");
    assert!(matches!(zeros(&[3]).matmul(&zeros(&[3, 1]), false, false, None), Err(TensorError::ShapeMismatch { op: "matmul", .. })));
    let message = zeros(&[2, 3]).reshape(&[4, 2]).unwrap_err().to_string();
    assert!(message.starts_with("reshape: shapes [2, 3] and [4, 2]"), "{message}");
    let message = Tensor::concat(&[zeros(&[2, 3]), zeros(&[3, 2])], 0).unwrap_err().to_string();
    assert!(message.starts_with("concat: shapes [2, 3] and [3, 2]"), "{message}");
    let error = zeros(&[4, 4]).assign_slice(&[SliceSpec::full(4), SliceSpec::full(4)], &zeros(&[3])).unwrap_err();
    assert!(error.to_string().contains("[3]") && error.to_string().contains("[4, 4]"), "{error}");
}

#[test]
fn bad_dims_are_errors() {
    let matrix = zeros(&[2, 3]);
    let bad = |result: Result<Tensor, TensorError>, op: &str, dim: isize| {
        let error = result.unwrap_err();
        assert!(matches!(&error, TensorError::BadDim { op: o, dim: d, rank: 2 } if *o == op && *d == dim), "{error:?}");
        assert!(error.to_string().contains("expected -2..=1"), "{error}");
    };
    bad(matrix.reduce(ReduceOp::Sum, Some(&[2]), false), "sum", 2);
    bad(matrix.reduce(ReduceOp::Var, Some(&[0, -3]), true), "var", -3);
    bad(matrix.softmax_like(SoftmaxOp::Softmax, 2), "softmax", 2);
    bad(matrix.softmax_like(SoftmaxOp::LogSoftmax, -3), "log_softmax", -3);
    bad(matrix.transpose(0, 5), "transpose", 5);
    bad(Tensor::concat(std::slice::from_ref(&matrix), -3), "concat", -3);
    assert!(matches!(matrix.reduce(ReduceOp::Sum, Some(&[1, -1]), false), Err(TensorError::BadArgument { op: "sum", .. })));
    assert!(matches!(matrix.permute(&[1, 1]), Err(TensorError::BadArgument { op: "permute", .. })));
    assert!(matches!(Tensor::scalar(1.0, DType::F32).softmax_like(SoftmaxOp::Softmax, 0), Err(TensorError::BadArgument { .. })));
    assert!(matches!(zeros(&[0, 2]).reduce(ReduceOp::Amax, Some(&[0]), false), Err(TensorError::BadArgument { op: "amax", .. })));
}

#[test]
fn element_count_overflow_is_an_error() {
    // usize::MAX · 2 does not fit; neither does 2^32 · 2^32 (the product, not the factors, overflows).
    for shape in [&[usize::MAX, 2][..], &[1 << 32, 1 << 32], &[3, usize::MAX / 2]] {
        assert!(matches!(Tensor::zeros(shape, DType::F32), Err(TensorError::ElementCountOverflow { op: "full", .. })), "{shape:?}");
    }
    assert!(matches!(zeros(&[0]).reshape(&[usize::MAX, 2]), Err(TensorError::ElementCountOverflow { op: "reshape", .. })));
    assert!(matches!(Tensor::randn(&[usize::MAX, 3], DType::F32, Some(1)), Err(TensorError::ElementCountOverflow { op: "randn", .. })));
    assert!(matches!(Tensor::arange(0.0, 1e300, 1.0, DType::F32), Err(TensorError::ElementCountOverflow { op: "arange", .. })));
    // A dim of 0 makes the count 0 whatever the other dims are.
    assert_eq!(Tensor::zeros(&[usize::MAX, 0], DType::F32).unwrap().numel(), 0);
}

#[test]
fn allocations_above_the_cap_are_errors() {
    // A 1 KiB cap: 256 f32 fit, 257 do not; results of every allocating op are checked before they
    // are allocated (including results much larger than their inputs).
    set_allocation_limit(1024);
    let too_large = |result: Result<Tensor, TensorError>, op: &str| match result {
        Err(TensorError::AllocationTooLarge { op: o, bytes, limit: 1024 }) if o == op && bytes > 1024 => {}
        other => panic!("{op}: expected AllocationTooLarge, got {other:?}"),
    };
    assert!(Tensor::zeros(&[256], DType::F32).is_ok());
    assert!(Tensor::zeros(&[512], DType::F16).is_ok());
    too_large(Tensor::zeros(&[257], DType::F32), "full");
    too_large(Tensor::full(&[129], 1.0, DType::F64), "full");
    too_large(Tensor::from_f64(vec![0.0; 257], &[257], DType::F32), "tensor");
    too_large(Tensor::arange(0.0, 300.0, 1.0, DType::F32), "arange");
    too_large(Tensor::randn(&[300], DType::F32, Some(1)), "randn");
    too_large(Tensor::rand(&[300], DType::F32, Some(1)), "rand");
    too_large(zeros(&[16, 1]).binary(BinaryOp::Add, &zeros(&[1, 17])), "add");
    too_large(zeros(&[16, 1]).matmul(&zeros(&[1, 17]), false, false, None), "matmul");
    too_large(Tensor::concat(&[zeros(&[200]), zeros(&[100])], 0), "concat");
    too_large(zeros(&[200]).cast(DType::F64), "cast");
    too_large(zeros(&[4, 4]).view(&[20, 20], &[0, 0], Some(&[4, 4])), "view");
    let message = Tensor::zeros(&[1 << 20], DType::F32).unwrap_err().to_string();
    assert_eq!(message, "full: allocating 4.0 MiB exceeds the tensor memory limit of 1.0 KiB");
    set_allocation_limit(DEFAULT_ALLOCATION_LIMIT);
    assert!(Tensor::zeros(&[257], DType::F32).is_ok());
}

#[test]
fn view_past_the_edge_suggests_valid_shape() {
    // A 4×4 tile at (4, 8) of a 6×10 tensor: 2 rows and 2 columns exist.
    let source = zeros(&[6, 10]);
    let message = source.view(&[4, 4], &[4, 8], None).unwrap_err().to_string();
    assert!(message.contains("valid_shape") && message.contains("pass valid_shape with 2 in dim 0"), "{message}");
    assert!(matches!(source.view(&[4, 4], &[4, 8], Some(&[2, 4])), Err(TensorError::OutOfBounds { op: "view", .. })));
    assert!(source.view(&[4, 4], &[4, 8], Some(&[2, 2])).is_ok());
    assert!(matches!(source.view(&[4, 4], &[0, 0], Some(&[5, 4])), Err(TensorError::BadArgument { op: "view", .. })));
    assert!(matches!(source.view(&[4], &[0, 0], None), Err(TensorError::BadArgument { op: "view", .. })));
    let message = source.assemble(&zeros(&[4, 4]), &[4, 8]).unwrap_err().to_string();
    assert!(message.contains("valid_shape"), "{message}");
    let slice_error = source.slice(&[SliceSpec { start: 5, step: 1, count: 2 }, SliceSpec::full(10)]).unwrap_err();
    assert!(matches!(slice_error, TensorError::OutOfBounds { op: "slice", .. }), "{slice_error:?}");
}
