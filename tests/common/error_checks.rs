//! Checks of the errors the tensor core reports for bad input: typed, with the op and the shapes,
//! never a panic. Shared by the native and the wasm tests (wasm32 has a 32-bit `usize`).

use tilelab::error::TensorError;
use tilelab::tensor::{
    set_allocation_limit, BinaryOp, DType, ReduceOp, SliceSpec, SoftmaxOp, Tensor, DEFAULT_ALLOCATION_LIMIT,
};

/// f32 zeros of `shape`.
fn zeros(shape: &[usize]) -> Tensor {
    Tensor::zeros(shape, DType::F32).unwrap()
}

/// Shape errors name the op and both operands' full shapes.
pub fn shape_mismatch() {
    let error = zeros(&[2, 3]).binary(BinaryOp::Sub, &zeros(&[4])).unwrap_err();
    assert!(
        matches!(&error, TensorError::ShapeMismatch { op: "sub", lhs, rhs, .. } if lhs == &[2, 3] && rhs == &[4]),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.starts_with("sub: shapes [2, 3] and [4]"), "{message}");
    let message = zeros(&[2, 3]).matmul(&zeros(&[2, 3]), false, false, None).unwrap_err().to_string();
    assert_eq!(message, "matmul: shapes [2, 3] and [2, 3] do not match: inner dims 3 ≠ 2");
    let message = zeros(&[2, 2, 3]).matmul(&zeros(&[3, 3, 4]), false, false, None).unwrap_err().to_string();
    assert!(message.starts_with("matmul: shapes [2, 2, 3] and [3, 3, 4]"), "{message}");
    assert!(matches!(
        zeros(&[3]).matmul(&zeros(&[3, 1]), false, false, None),
        Err(TensorError::ShapeMismatch { op: "matmul", .. })
    ));
    let message = zeros(&[2, 3]).reshape(&[4, 2]).unwrap_err().to_string();
    assert!(message.starts_with("reshape: shapes [2, 3] and [4, 2]"), "{message}");
    let message = Tensor::concat(&[zeros(&[2, 3]), zeros(&[3, 2])], 0).unwrap_err().to_string();
    assert!(message.starts_with("concat: shapes [2, 3] and [3, 2]"), "{message}");
    let error = zeros(&[4, 4]).assign_slice(&[SliceSpec::full(4), SliceSpec::full(4)], &zeros(&[3])).unwrap_err();
    assert!(error.to_string().contains("[3]") && error.to_string().contains("[4, 4]"), "{error}");
}

/// Dims outside −rank..rank are `BadDim` errors naming the op and the valid range.
pub fn bad_dims() {
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
    assert!(matches!(
        matrix.reduce(ReduceOp::Sum, Some(&[1, -1]), false),
        Err(TensorError::BadArgument { op: "sum", .. })
    ));
    assert!(matches!(matrix.permute(&[1, 1]), Err(TensorError::BadArgument { op: "permute", .. })));
    assert!(matches!(
        Tensor::scalar(1.0, DType::F32).softmax_like(SoftmaxOp::Softmax, 0),
        Err(TensorError::BadArgument { .. })
    ));
    assert!(matches!(
        zeros(&[0, 2]).reduce(ReduceOp::Amax, Some(&[0]), false),
        Err(TensorError::BadArgument { op: "amax", .. })
    ));
}

/// Shapes whose element count does not fit in `usize` (32 bits in wasm) are errors, not panics.
pub fn element_count_overflow() {
    // usize::MAX · 2 does not fit, nor does 2^(b/2) · 2^(b/2) for a b-bit usize (the product, not the
    // factors, overflows: on wasm32 that is 65536 · 65536).
    let root = 1usize << (usize::BITS / 2);
    for shape in [&[usize::MAX, 2][..], &[root, root], &[3, usize::MAX / 2]] {
        assert!(
            matches!(Tensor::zeros(shape, DType::F32), Err(TensorError::ElementCountOverflow { op: "full", .. })),
            "{shape:?}"
        );
    }
    assert!(matches!(
        zeros(&[0]).reshape(&[usize::MAX, 2]),
        Err(TensorError::ElementCountOverflow { op: "reshape", .. })
    ));
    assert!(matches!(
        Tensor::randn(&[usize::MAX, 3], DType::F32, Some(1)),
        Err(TensorError::ElementCountOverflow { op: "randn", .. })
    ));
    assert!(matches!(
        Tensor::arange(0.0, 1e300, 1.0, DType::F32),
        Err(TensorError::ElementCountOverflow { op: "arange", .. })
    ));
    // A dim of 0 makes the count 0 whatever the other dims are.
    assert_eq!(Tensor::zeros(&[usize::MAX, 0], DType::F32).unwrap().numel(), 0);
}

/// Every allocating op refuses results above the cap set by `set_allocation_limit`.
pub fn allocation_cap() {
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

/// A tile that runs past the edge is an error that suggests `valid_shape`.
pub fn view_past_the_edge() {
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
