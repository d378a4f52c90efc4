//! The integer-only element-wise ops (`bitwise_and/or/xor/not`, shifts, `gcd`) against a model
//! written here from torch's definitions: the bits of each value in the dtype's width, shifts with
//! torch's edge rules spelt out as loops, and the gcd as the largest common divisor found by trial.

use tilelab::tensor::{DType, IntegerOp, Storage, Tensor};

fn ints(values: &[i64], shape: &[usize], dtype: DType) -> Tensor {
    Tensor::from_storage(Storage::from_i64(values.to_vec(), dtype), shape).unwrap()
}

/// `value` wrapped to `bits` bits, signed or not (the dtype's two's complement).
fn wrap(value: i128, bits: u32, signed: bool) -> i64 {
    let modulus = 1i128 << bits;
    let mut low = value.rem_euclid(modulus);
    if signed && low >= modulus / 2 {
        low -= modulus;
    }
    low as i64
}

/// torch's `a << b`: 0 for a negative shift or one of the width or more; else `a · 2^b` wrapped.
fn left_shift(a: i64, b: i64, bits: u32, signed: bool) -> i64 {
    if b < 0 || b >= bits as i64 {
        return 0;
    }
    let mut value = a as i128;
    for _ in 0..b {
        value = wrap(value * 2, bits, signed) as i128;
    }
    value as i64
}

/// torch's `a >> b`: `floor(a / 2^b)`, with a shift past width − 1 (or a negative one) giving the
/// sign fill for a signed dtype (0 for an unsigned one).
fn right_shift(a: i64, b: i64, bits: u32, signed: bool) -> i64 {
    let widest = if signed { bits as i64 - 1 } else { bits as i64 };
    let shift = if b < 0 || b >= widest { widest } else { b };
    let mut value = a as i128;
    for _ in 0..shift {
        value = value.div_euclid(2);
    }
    value as i64
}

fn gcd_by_trial(a: i64, b: i64) -> i64 {
    let (a, b) = (a.abs(), b.abs());
    if a == 0 || b == 0 {
        return a.max(b);
    }
    (1..=a.min(b)).rev().find(|d| a % d == 0 && b % d == 0).unwrap()
}

/// The reference of one op on one pair, from the definitions above and bit loops.
fn reference(op: IntegerOp, a: i64, b: i64, bits: u32, signed: bool) -> i64 {
    let bit = |value: i64, index: u32| (value >> index.min(63)) & 1;
    let bitwise = |f: &dyn Fn(i64, i64) -> i64| {
        let mut out: i128 = 0;
        for index in 0..bits {
            out |= (f(bit(a, index), bit(b, index)) as i128) << index;
        }
        wrap(out, bits, signed)
    };
    match op {
        IntegerOp::BitwiseAnd => bitwise(&|x, y| x * y),
        IntegerOp::BitwiseOr => bitwise(&|x, y| (x + y).min(1)),
        IntegerOp::BitwiseXor => bitwise(&|x, y| (x + y) % 2),
        IntegerOp::BitwiseNot => bitwise(&|x, _| 1 - x),
        IntegerOp::LeftShift => left_shift(a, b, bits, signed),
        IntegerOp::RightShift => right_shift(a, b, bits, signed),
        IntegerOp::Gcd => gcd_by_trial(a, b),
    }
}

#[test]
fn every_op_matches_the_bit_model_in_every_integer_dtype() {
    let formats = [(DType::I8, 8, true), (DType::I16, 16, true), (DType::I32, 32, true), (DType::U8, 8, false)];
    for (dtype, bits, signed) in formats {
        let edge = if signed { -(1i64 << (bits - 1)) } else { 255 };
        let left: Vec<i64> = vec![0, 1, -1, 7, -100, 100, 77, edge, 12, -36, 3, 5];
        let right: Vec<i64> = vec![0, 3, 2, -1, 5, 9, bits as i64 - 1, 1, 18, 24, bits as i64, -7];
        let left: Vec<i64> = left.iter().map(|&v| wrap(v as i128, bits, signed)).collect();
        let right: Vec<i64> = right.iter().map(|&v| wrap(v as i128, bits, signed)).collect();
        let a = ints(&left, &[3, 4], dtype);
        let b = ints(&right, &[3, 4], dtype);
        for op in IntegerOp::ALL {
            let result = a.integer_op(op, (op.arity() == 2).then_some(&b)).unwrap();
            assert_eq!(result.dtype(), dtype, "{op:?}");
            let wanted: Vec<i64> = left
                .iter()
                .zip(&right)
                .map(|(&x, &y)| wrap(reference(op, x, y, bits, signed) as i128, bits, signed))
                .collect();
            assert_eq!(result.storage().to_i64_vec(), wanted, "{op:?} in {dtype:?}: {left:?} with {right:?}");
        }
    }
}

#[test]
fn a_row_broadcasts_and_a_scalar_operand_takes_the_tensors_dtype() {
    // [[1, 2, 4], [8, 16, 32]] << [1, 2, 3] (a row), and 0x00FF | each element of an int16 tensor.
    let a = ints(&[1, 2, 4, 8, 16, 32], &[2, 3], DType::I32);
    let row = ints(&[1, 2, 3], &[3], DType::I32);
    let shifted = a.integer_op(IntegerOp::LeftShift, Some(&row)).unwrap();
    assert_eq!(shifted.shape(), &[2, 3]);
    assert_eq!(shifted.storage().to_i64_vec(), vec![2, 8, 32, 16, 64, 256]);
    let x = ints(&[-256, 3, 4096], &[3], DType::I16);
    let mask = Tensor::scalar(255.0, DType::I16);
    assert_eq!(x.integer_op(IntegerOp::BitwiseOr, Some(&mask)).unwrap().storage().to_i64_vec(), vec![-1, 255, 4351]);
}

#[test]
fn floats_are_refused_and_bool_takes_only_the_logical_ops() {
    let x = Tensor::full(&[2], 3.0, DType::F32).unwrap();
    assert!(x.integer_op(IntegerOp::BitwiseAnd, Some(&x)).is_err());
    let mask = ints(&[1, 0, 1], &[3], DType::Bool);
    let other = ints(&[1, 1, 0], &[3], DType::Bool);
    let xor = mask.integer_op(IntegerOp::BitwiseXor, Some(&other)).unwrap();
    assert_eq!((xor.dtype(), xor.storage().to_i64_vec()), (DType::Bool, vec![0, 1, 1]));
    assert_eq!(mask.integer_op(IntegerOp::BitwiseNot, None).unwrap().storage().to_i64_vec(), vec![0, 1, 0]);
    assert!(mask.integer_op(IntegerOp::LeftShift, Some(&other)).is_err());
    assert!(mask.integer_op(IntegerOp::Gcd, Some(&other)).is_err());
}
