//! Integer and bool dtypes in the tensor core: casts between every pair against a model written
//! from the definitions (two's complement wrapping, truncation toward zero, round to nearest even),
//! torch's promotion, exact int64 arithmetic, comparisons, `where`, and the indexing ops against
//! plain loops.

use tilelab::tensor::{CompareOp, DType, ScatterMode, Storage, Tensor, UnaryOp};

/// Source values per dtype: the edges of each integer range, halves for the floats.
fn source_values(dtype: DType) -> Vec<f64> {
    match dtype {
        DType::I8 => vec![-128.0, -1.0, 0.0, 1.0, 100.0, 127.0],
        DType::U8 => vec![0.0, 1.0, 2.0, 128.0, 200.0, 255.0],
        DType::I16 => vec![-300.0, -1.0, 0.0, 1.0, 300.0, 32767.0],
        DType::I32 => vec![-70000.0, -1.0, 0.0, 1.0, 300.0, 2147483647.0],
        DType::I64 => vec![-4503599627370497.0, -1.0, 0.0, 1.0, 300.0, 4503599627370495.0],
        DType::Bool => vec![1.0, 0.0, 0.0, 1.0, 1.0, 0.0],
        // Representable in every float format.
        _ => vec![-2.75, -0.5, 0.0, 1.5, 3.25, 300.0],
    }
}

/// (bits, signed) of an integer dtype.
fn integer_format(dtype: DType) -> Option<(u32, bool)> {
    match dtype {
        DType::I8 => Some((8, true)),
        DType::I16 => Some((16, true)),
        DType::I32 => Some((32, true)),
        DType::I64 => Some((64, true)),
        DType::U8 => Some((8, false)),
        _ => None,
    }
}

/// `v` rounded to `precision` significant bits, ties to even; beyond `max` it overflows to ±inf.
fn round_to_precision(v: f64, precision: i32, max: f64) -> f64 {
    if v == 0.0 {
        return 0.0;
    }
    let step = 2f64.powi(v.abs().log2().floor() as i32 - (precision - 1));
    let rounded = (v / step).round_ties_even() * step;
    if rounded.abs() > max {
        f64::INFINITY.copysign(v)
    } else {
        rounded
    }
}

/// What a cast of `v` (a value of `from`) to `to` gives, from the definitions.
fn model_cast(v: f64, from: DType, to: DType) -> f64 {
    if to == DType::Bool {
        return f64::from(u8::from(v != 0.0));
    }
    if let Some((bits, signed)) = integer_format(to) {
        let (low, high) =
            if signed { (-(2i128.pow(bits - 1)), 2i128.pow(bits - 1) - 1) } else { (0, 2i128.pow(bits) - 1) };
        let integer = if from.is_float() {
            // Truncate toward zero, then saturate (pypto's CAST_TRUNC, Rust's `as`).
            (v.trunc() as i128).clamp(low, high)
        } else {
            // Two's complement: keep the low `bits` bits.
            let wrapped = (v as i128).rem_euclid(2i128.pow(bits));
            if wrapped > high {
                wrapped - 2i128.pow(bits)
            } else {
                wrapped
            }
        };
        return integer as f64;
    }
    match to {
        DType::F16 => round_to_precision(v, 11, 65504.0),
        DType::Bf16 => round_to_precision(v, 8, 3.3895313892515355e38),
        DType::F32 => round_to_precision(v, 24, f32::MAX as f64),
        _ => v,
    }
}

fn tensor_of(dtype: DType, values: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_f64(values.to_vec(), shape, dtype).unwrap()
}

#[test]
fn casts_between_every_pair_follow_the_definitions() {
    for from in DType::ALL {
        let values = source_values(from);
        let source = tensor_of(from, &values, &[2, 3]);
        assert_eq!(source.to_f64_vec(), values, "{from} stores its source values exactly");
        for to in DType::ALL {
            let cast = source.cast(to).unwrap();
            assert_eq!((cast.dtype(), cast.shape()), (to, &[2, 3][..]));
            let expected: Vec<f64> = values.iter().map(|&v| model_cast(v, from, to)).collect();
            assert_eq!(cast.to_f64_vec(), expected, "cast {from} → {to}");
        }
    }
}

#[test]
fn int64_keeps_every_bit() {
    // 2^62 + 3 is not an f64 (it would round to 2^62); stored, added, compared and gathered as int64
    // it stays exact.
    let big = (1i64 << 62) + 3;
    let x = Tensor::from_storage(Storage::I64(vec![big, 5]), &[2]).unwrap();
    let one = Tensor::from_storage(Storage::I64(vec![1]), &[1]).unwrap();
    let sum = x.binary(tilelab::tensor::BinaryOp::Add, &one).unwrap();
    assert_eq!(sum.storage().to_i64_vec(), vec![big + 1, 6]);
    let bigger = sum.compare(CompareOp::Gt, &x).unwrap();
    assert_eq!(bigger.storage().to_i64_vec(), vec![1, 1]);
    let index = Tensor::from_storage(Storage::I32(vec![0]), &[1]).unwrap();
    assert_eq!(x.gather(0, &index).unwrap().storage().to_i64_vec(), vec![big]);
    assert_eq!(x.cumsum(0).unwrap().storage().to_i64_vec(), vec![big, big + 5]);
}

#[test]
fn promotion_and_integer_arithmetic_follow_torch() {
    use tilelab::tensor::BinaryOp::*;
    let ints = Tensor::from_storage(Storage::I32(vec![7, -7, 7, -7]), &[4]).unwrap();
    let divisors = Tensor::from_storage(Storage::I32(vec![2, 2, -2, -2]), &[4]).unwrap();
    // Python: 7 // 2 = 3, -7 // 2 = -4, 7 // -2 = -4, -7 // -2 = 3; % takes the divisor's sign.
    assert_eq!(ints.binary(FloorDivide, &divisors).unwrap().storage().to_i64_vec(), vec![3, -4, -4, 3]);
    assert_eq!(ints.binary(Remainder, &divisors).unwrap().storage().to_i64_vec(), vec![1, 1, -1, -1]);
    // True division gives f32 (torch's default float): 7 / 2 = 3.5.
    let quotient = ints.binary(Div, &divisors).unwrap();
    assert_eq!((quotient.dtype(), quotient.to_f64_vec()), (DType::F32, vec![3.5, -3.5, -3.5, 3.5]));
    // int32 + fp16 → fp16; uint8 + int8 → int16 (200 + -100 = 100, no wrap).
    let half = tensor_of(DType::F16, &[0.5], &[1]);
    assert_eq!(ints.binary(Add, &half).unwrap().dtype(), DType::F16);
    let unsigned = tensor_of(DType::U8, &[200.0], &[1]);
    let signed = tensor_of(DType::I8, &[-100.0], &[1]);
    let mixed = unsigned.binary(Add, &signed).unwrap();
    assert_eq!((mixed.dtype(), mixed.to_f64_vec()), (DType::I16, vec![100.0]));
    // int8: 100 · 3 = 300 wraps to 44; 2 ** 10 = 1024 in int32.
    let hundred = tensor_of(DType::I8, &[100.0], &[1]);
    assert_eq!(hundred.binary(Mul, &tensor_of(DType::I8, &[3.0], &[1])).unwrap().to_f64_vec(), vec![44.0]);
    let two = tensor_of(DType::I32, &[2.0], &[1]);
    assert_eq!(two.binary(Pow, &tensor_of(DType::I32, &[10.0], &[1])).unwrap().to_f64_vec(), vec![1024.0]);
    // Errors name the fix: integer division by zero, negative integer powers, bool subtraction.
    let zero = tensor_of(DType::I32, &[0.0], &[1]);
    assert!(two.binary(FloorDivide, &zero).unwrap_err().to_string().contains("division by zero"));
    assert!(two.binary(Pow, &tensor_of(DType::I32, &[-1.0], &[1])).unwrap_err().to_string().contains("cast"));
    let mask = tensor_of(DType::Bool, &[1.0], &[1]);
    assert!(mask.binary(Sub, &mask).unwrap_err().to_string().contains("logical_not"));
}

#[test]
fn unary_ops_on_integers() {
    let x = Tensor::from_storage(Storage::I16(vec![-3, 0, 4]), &[3]).unwrap();
    // abs, neg, sign, relu, floor keep int16 and are exact; exp gives f32.
    for (op, expected) in [
        (UnaryOp::Abs, vec![3, 0, 4]),
        (UnaryOp::Neg, vec![3, 0, -4]),
        (UnaryOp::Sign, vec![-1, 0, 1]),
        (UnaryOp::Relu, vec![0, 0, 4]),
        (UnaryOp::Floor, vec![-3, 0, 4]),
    ] {
        let y = x.unary(op).unwrap();
        assert_eq!((y.dtype(), y.storage().to_i64_vec()), (DType::I16, expected), "{op:?}");
    }
    let e = x.unary(UnaryOp::Exp).unwrap();
    assert_eq!(e.dtype(), DType::F32);
    assert!((e.to_f64_vec()[2] - 4f64.exp()).abs() < 1e-4 * 4f64.exp());
    assert!(tensor_of(DType::Bool, &[1.0], &[1]).unary(UnaryOp::Neg).is_err());
}

#[test]
fn round_is_half_to_even_and_sign_of_nan_is_zero() {
    let x = tensor_of(DType::F32, &[0.5, 1.5, 2.5, -0.5, -2.5, 2.4999998, f64::NAN], &[7]);
    let rounded = x.unary(UnaryOp::Round).unwrap().to_f64_vec();
    assert_eq!(&rounded[..6], &[0.0, 2.0, 2.0, -0.0, -2.0, 2.0]);
    assert!(rounded[6].is_nan());
    assert_eq!(x.unary(UnaryOp::Sign).unwrap().to_f64_vec(), vec![1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 0.0]);
}

#[test]
fn where_broadcasts_three_ways() {
    // condition [2,1,1], input [1,3,1], other [4]: out[i][j][k] = cond[i] ? input[j] : other[k].
    let condition = Tensor::from_storage(Storage::Bool(vec![true, false]), &[2, 1, 1]).unwrap();
    let input = tensor_of(DType::F32, &[10.0, 20.0, 30.0], &[1, 3, 1]);
    let other = tensor_of(DType::I32, &[1.0, 2.0, 3.0, 4.0], &[4]);
    let out = Tensor::select(&condition, &input, &other).unwrap();
    assert_eq!((out.dtype(), out.shape()), (DType::F32, &[2, 3, 4][..]));
    let values = out.to_f64_vec();
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..4 {
                let expected = if i == 0 { 10.0 * (j + 1) as f64 } else { (k + 1) as f64 };
                assert_eq!(values[(i * 3 + j) * 4 + k], expected, "[{i}][{j}][{k}]");
            }
        }
    }
}

/// `gather`, `scatter` and `topk` against the loops of their definitions on a 3-d tensor.
#[test]
fn indexing_ops_match_their_definitions() {
    let shape = [2, 3, 4];
    let data: Vec<f64> = (0..24).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
    let x = tensor_of(DType::F32, &data, &shape);
    let at = |i: usize, j: usize, k: usize| data[(i * 3 + j) * 4 + k];
    for (dim, &size) in shape.iter().enumerate() {
        // An index of shape [2, 2, 3] with values within the size of `dim`.
        let positions: Vec<i64> = (0..12).map(|n| ((n * 5 + dim) % size) as i64).collect();
        let index = Tensor::from_storage(Storage::I64(positions.clone()), &[2, 2, 3]).unwrap();
        let gathered = x.gather(dim as isize, &index).unwrap().to_f64_vec();
        let updates = tensor_of(DType::F32, &(0..12).map(|n| 100.0 + n as f64).collect::<Vec<_>>(), &[2, 2, 3]);
        let added = x.scatter(dim as isize, &index, &updates, ScatterMode::Add).unwrap().to_f64_vec();
        let mut expected_added = data.clone();
        for i in 0..2 {
            for j in 0..2 {
                for k in 0..3 {
                    let n = (i * 2 + j) * 3 + k;
                    let p = positions[n] as usize;
                    let (a, b, c) = match dim {
                        0 => (p, j, k),
                        1 => (i, p, k),
                        _ => (i, j, p),
                    };
                    assert_eq!(gathered[n], at(a, b, c), "gather dim {dim} at {n}");
                    expected_added[(a * 3 + b) * 4 + c] += 100.0 + n as f64;
                }
            }
        }
        assert_eq!(added, expected_added, "scatter add along dim {dim}");
    }
    // topk along the last dim: the k largest by a full sort of each row.
    let (indices, k) = (x.topk_indices(3, -1, true).unwrap(), 3);
    let values = x.gather(-1, &indices).unwrap().to_f64_vec();
    for row in 0..6 {
        let mut sorted: Vec<f64> = data[row * 4..row * 4 + 4].to_vec();
        sorted.sort_by(|a, b| b.total_cmp(a));
        assert_eq!(&values[row * k..row * k + k], &sorted[..k], "row {row}");
    }
    assert_eq!(indices.dtype(), DType::I32);
}

#[test]
fn cumsum_keeps_floats_and_sums_integers_in_int64() {
    let x = tensor_of(DType::Bf16, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let rows = x.cumsum(-1).unwrap();
    assert_eq!((rows.dtype(), rows.to_f64_vec()), (DType::Bf16, vec![1.0, 3.0, 6.0, 4.0, 9.0, 15.0]));
    let counts = tensor_of(DType::I32, &[2147483647.0, 1.0], &[2]).cumsum(0).unwrap();
    assert_eq!((counts.dtype(), counts.storage().to_i64_vec()), (DType::I64, vec![2147483647, 2147483648]));
}
