//! Run natively and in the browser: the wasm SIMD kernels give the bits of the reference too.

use super::*;

/// Values with signed zeros, a NaN, infinities and subnormals among ordinary ones.
fn values(count: usize, seed: f32) -> Vec<f32> {
    let specials = [0.0, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e-40, -3.5, 1.0];
    (0..count)
        .map(|i| if i % 13 == 0 { specials[i / 13 % specials.len()] } else { (i as f32 * seed).sin() * 7.0 })
        .collect()
}

fn tensor(values: Vec<f32>, shape: &[usize]) -> Tensor {
    Tensor::from_f32(values, shape, DType::F32).unwrap()
}

fn f32_values(tensor: &Tensor) -> Vec<f32> {
    tensor.to_f32_vec()
}

/// Bitwise equality, any NaN equal to any NaN (which NaN an op returns is the hardware's choice).
fn same_bits(left: &[f32], right: &[f32]) -> bool {
    left.len() == right.len()
        && left.iter().zip(right).all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()))
}

/// Each op of two operands computed one element at a time: the reference.
fn reference(op: BinaryOp, left: &[f32], right: &[f32]) -> Vec<f32> {
    let at = |values: &[f32], i: usize| if values.len() == 1 { values[0] } else { values[i] };
    (0..left.len().max(right.len())).map(|i| op.apply(at(left, i), at(right, i))).collect()
}

const OPS: [BinaryOp; 4] = [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div];

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_sole_operand_takes_the_result_with_the_bits_of_the_reference() {
    let shape = [7, 37];
    for op in OPS {
        let (a, b) = (values(259, 0.37), values(259, 0.11));
        let wanted = reference(op, &a, &b);
        // The left operand given up: its buffer holds the result.
        let left = tensor(a.clone(), &shape);
        let (address, id) = (left.f32_data_address(), left.buffer_id());
        let result = left.binary_owned(op, tensor(b.clone(), &shape)).unwrap();
        assert!(same_bits(&f32_values(&result), &wanted), "{op:?}");
        assert_eq!(result.f32_data_address(), address, "{op:?}: written into the left operand's buffer");
        assert_ne!(result.buffer_id(), id, "{op:?}: a buffer id of its own");
        // Only the right operand given up: + and × write into it, − and ÷ into a new buffer.
        let kept = tensor(a.clone(), &shape);
        let right = tensor(b.clone(), &shape);
        let address = right.f32_data_address();
        let result = kept.clone().binary_owned(op, right).unwrap();
        assert!(same_bits(&f32_values(&result), &wanted), "{op:?} into the right");
        assert_eq!(result.f32_data_address() == address, matches!(op, BinaryOp::Add | BinaryOp::Mul), "{op:?}");
        assert!(same_bits(&f32_values(&kept), &a), "{op:?}: an operand with another handle is never written");
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn scalars_on_either_side_match_the_reference() {
    let v = values(300, 0.23);
    for op in OPS {
        for scalar in [2.5f32, -0.0, 0.0, f32::INFINITY] {
            let wanted_after = reference(op, &v, &[scalar]);
            let wanted_before = reference(op, &[scalar], &v);
            let owned = tensor(v.clone(), &[300]).binary_owned(op, tensor(vec![scalar], &[])).unwrap();
            assert!(same_bits(&f32_values(&owned), &wanted_after), "{op:?} {scalar}");
            let owned = tensor(vec![scalar], &[1]).binary_owned(op, tensor(v.clone(), &[300])).unwrap();
            assert!(same_bits(&f32_values(&owned), &wanted_before), "{scalar} {op:?} v, owned");
            // The borrowing form's scalar-first path, on a borrowed and on a widened operand.
            let borrowed = tensor(vec![scalar], &[]).binary(op, &tensor(v.clone(), &[300])).unwrap();
            assert!(same_bits(&f32_values(&borrowed), &wanted_before), "{scalar} {op:?} v");
            let half = Tensor::from_f32(v.clone(), &[300], DType::F16).unwrap();
            let widened_reference = reference(op, &[scalar], &half.to_f32_vec());
            let rounded = Tensor::from_f32(widened_reference, &[300], DType::F16).unwrap().to_f32_vec();
            let result = tensor(vec![scalar], &[]).binary(op, &half).unwrap();
            assert_eq!(result.dtype(), DType::F32);
            let mixed = Tensor::scalar(scalar as f64, DType::F16).binary(op, &half).unwrap();
            assert!(same_bits(&mixed.to_f32_vec(), &rounded), "{scalar} {op:?} f16");
        }
    }
}

/// `left op right` broadcast to `shape` one element at a time (numpy's rule by index arithmetic).
fn broadcast_reference(op: BinaryOp, shape: &[usize], left: (&[f32], &[usize]), right: (&[f32], &[usize])) -> Vec<f32> {
    let at = |(values, own): (&[f32], &[usize]), mut flat: usize| {
        let mut index = 0;
        let mut stride = 1;
        for axis in (0..shape.len()).rev() {
            let coordinate = flat % shape[axis];
            flat /= shape[axis];
            let own_axis = axis as isize - (shape.len() - own.len()) as isize;
            if own_axis >= 0 && own[own_axis as usize] != 1 {
                index += coordinate * stride;
            }
            if own_axis >= 0 {
                stride *= own[own_axis as usize];
            }
        }
        values[index]
    };
    (0..shape.iter().product()).map(|flat| op.apply(at(left, flat), at(right, flat))).collect()
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_sole_operand_takes_a_broadcast_result_with_the_bits_of_the_reference() {
    // Every way an operand broadcasts to [3, 4, 5]: rows, columns, planes, lower rank.
    let shape = [3usize, 4, 5];
    let full = values(60, 0.41);
    for small_shape in
        [&[1, 4, 5][..], &[3, 1, 5], &[3, 4, 1], &[4, 5], &[5], &[1, 1, 5], &[3, 1, 1], &[4, 1], &[1, 4, 1]]
    {
        let small = values(small_shape.iter().product(), 0.13);
        for op in OPS {
            // The full-shape operand on the left, given up: its buffer holds the result.
            let wanted = broadcast_reference(op, &shape, (&full, &shape), (&small, small_shape));
            let owned = tensor(full.clone(), &shape);
            let address = owned.f32_data_address();
            let kept = tensor(small.clone(), small_shape);
            let result = owned.binary_owned(op, kept.clone()).unwrap();
            assert_eq!(result.shape(), &shape);
            assert!(same_bits(&f32_values(&result), &wanted), "{op:?} with {small_shape:?}");
            assert_eq!(result.f32_data_address(), address, "{op:?} with {small_shape:?}: in place");
            assert!(same_bits(&f32_values(&kept), &small), "the broadcast operand is never written");
            // On the right: + and × write into it, − and ÷ into a new buffer.
            let wanted = broadcast_reference(op, &shape, (&small, small_shape), (&full, &shape));
            let owned = tensor(full.clone(), &shape);
            let address = owned.f32_data_address();
            let result = tensor(small.clone(), small_shape).binary_owned(op, owned).unwrap();
            assert!(same_bits(&f32_values(&result), &wanted), "{small_shape:?} {op:?} full");
            let in_place = matches!(op, BinaryOp::Add | BinaryOp::Mul);
            assert_eq!(result.f32_data_address() == address, in_place, "{small_shape:?} {op:?} full");
        }
    }
    // One element of rank 2 against a value of rank 1: written in place.
    let owned = tensor(vec![3.0], &[1, 1]);
    let address = owned.f32_data_address();
    let result = owned.binary_owned(BinaryOp::Div, tensor(vec![4.0], &[1])).unwrap();
    assert_eq!(
        (f32_values(&result), result.shape(), result.f32_data_address()),
        (vec![0.75], &[1usize, 1][..], address)
    );
    // Both operands broadcast ([3, 1] with [1, 4]): neither has the result's shape.
    let (column, row) = (values(3, 0.5), values(4, 0.6));
    let result = tensor(column.clone(), &[3, 1]).binary_owned(BinaryOp::Sub, tensor(row.clone(), &[1, 4])).unwrap();
    let wanted = broadcast_reference(BinaryOp::Sub, &[3, 4], (&column, &[3, 1]), (&row, &[1, 4]));
    assert!(same_bits(&f32_values(&result), &wanted));
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn views_and_other_dtypes_take_the_ordinary_path() {
    let a = values(6 * 5, 0.3);
    // A reshaped view shares the buffer: neither handle is the only one, so nothing is written.
    let base = tensor(a.clone(), &[6, 5]);
    let view = base.reshape(&[30]).unwrap();
    let result = view.binary_owned(BinaryOp::Add, tensor(values(30, 0.9), &[30])).unwrap();
    assert_ne!(result.f32_data_address(), base.f32_data_address());
    assert!(same_bits(&f32_values(&base), &a));
    // f16 operands compute as `binary` does.
    let half = Tensor::from_f32(a.clone(), &[30], DType::F16).unwrap();
    let wanted = half.binary(BinaryOp::Mul, &half).unwrap().to_f32_vec();
    let result = half.clone().binary_owned(BinaryOp::Mul, half).unwrap();
    assert_eq!(result.dtype(), DType::F16);
    assert!(same_bits(&result.to_f32_vec(), &wanted));
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_valid_shape_of_the_operands_carries_over() {
    let ragged = tensor(values(8, 0.5), &[2, 4]).with_valid_shape(Some(vec![1, 4]));
    let result = ragged.binary_owned(BinaryOp::Add, tensor(values(8, 0.2), &[2, 4])).unwrap();
    assert_eq!(result.valid_shape(), Some(&[1usize, 4][..]));
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_sole_tensor_takes_its_unary_result_with_the_bits_of_unary() {
    // Ops of the several kernel families: the sine reduction, exp's polynomial, the library ones.
    for op in [UnaryOp::Sin, UnaryOp::Cos, UnaryOp::Exp, UnaryOp::Sigmoid, UnaryOp::Tanh, UnaryOp::Rsqrt, UnaryOp::Neg]
    {
        let input = values(1037, 0.23);
        let wanted = f32_values(&tensor(input.clone(), &[17, 61]).unary(op).unwrap());
        let owned = tensor(input.clone(), &[17, 61]);
        let (address, id) = (owned.f32_data_address(), owned.buffer_id());
        let result = owned.unary_owned(op).unwrap();
        assert!(same_bits(&f32_values(&result), &wanted), "{op:?}");
        assert_eq!(result.f32_data_address(), address, "{op:?}: written into the operand's buffer");
        assert_ne!(result.buffer_id(), id, "{op:?}: a buffer id of its own");
        assert_eq!(result.shape(), &[17, 61]);
        // A handle someone else holds is never written.
        let kept = tensor(input.clone(), &[17, 61]);
        let result = kept.clone().unary_owned(op).unwrap();
        assert!(same_bits(&f32_values(&result), &wanted), "{op:?} from a shared buffer");
        assert_ne!(result.f32_data_address(), kept.f32_data_address(), "{op:?}");
        assert!(same_bits(&f32_values(&kept), &input), "{op:?}: the shared operand is unchanged");
    }
}
