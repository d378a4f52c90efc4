//! Tests of the capture: index regions, tensor identity, operands that are not numbers.

use super::capture::*;
use crate::lang::interp::value::Value;
use crate::tensor::DType;
use crate::tensor::{BinaryOp, SliceSpec, Tensor};

fn spec(start: usize, step: isize, count: usize) -> SliceSpec {
    SliceSpec { start, step, count }
}

#[test]
fn an_index_is_the_region_it_reads_and_a_step_is_unsupported() {
    let source = Tensor::full(&[4, 6], 0.0, DType::F32).unwrap();
    // x[2, 1:] reads row 2 from column 1: the int keeps an extent of 1.
    match CapturedOp::index(&source, &[spec(2, 1, 1), spec(1, 1, 5)]) {
        CapturedOp::Index { offsets, extents, .. } => assert_eq!((offsets, extents), (vec![2, 1], vec![1, 5])),
        _ => panic!("a step-1 index is a region"),
    }
    assert!(matches!(CapturedOp::index(&source, &[spec(0, 2, 2), spec(0, 1, 6)]), CapturedOp::Unsupported { .. }));
    // A single element taken with a step is still a region.
    assert!(matches!(CapturedOp::index(&source, &[spec(3, 2, 1), spec(0, 1, 6)]), CapturedOp::Index { .. }));
}

#[test]
fn identity_is_the_buffer_and_shape_not_an_address() {
    let first = Tensor::full(&[2, 2], 1.0, DType::F32).unwrap();
    let reshaped = first.reshape(&[4]).unwrap();
    let second = Tensor::full(&[2, 2], 1.0, DType::F32).unwrap();
    assert_eq!(identity(&first).0, identity(&reshaped).0);
    assert_ne!(identity(&first), identity(&reshaped));
    assert_ne!(identity(&first), identity(&second));
}

#[test]
fn a_binary_op_with_a_value_that_is_not_a_number_is_unsupported() {
    let x = crate::lang::interp::value::TensorObject::value(crate::autograd::Var::constant(
        Tensor::full(&[2], 1.0, DType::F32).unwrap(),
    ));
    assert!(matches!(CapturedOp::binary(BinaryOp::Add, &x, &Value::Float(2.0)), CapturedOp::Binary { .. }));
    let captured = CapturedOp::binary(BinaryOp::Add, &x, &Value::string("a"));
    assert!(
        matches!(&captured, CapturedOp::Unsupported { what } if what.english().contains("str")),
        "{}",
        captured.name()
    );
}
