//! Algebraic laws of the tensor core on random shapes (proptest): broadcasting, reshape, transpose,
//! matmul against the f64 reference, and sums over dims. Native only (proptest is a native dev-dep).
#![cfg(not(target_arch = "wasm32"))]

use super::common;

use common::{assert_close, assert_exact, matmul_checks::check_matmul, random_tensor, reference, Inputs};
use proptest::prelude::*;
use tilelab::error::TensorError;
use tilelab::tensor::{BinaryOp, DType, ReduceOp, SliceSpec, Tensor};

/// A broadcast shape of rank 0..=4 with dims 0..=4, and two operand shapes that broadcast to it: each
/// operand drops some leading dims and turns some of the rest into 1.
fn broadcastable() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<usize>)> {
    (prop::collection::vec(0usize..=4, 0..=4), any::<u64>()).prop_map(|(target, seed)| {
        let mut inputs = Inputs::new(seed);
        let mut operand = || {
            let drop = inputs.below(target.len() + 1);
            target[drop..].iter().map(|&d| if inputs.unit() < 0.4 { 1 } else { d }).collect::<Vec<usize>>()
        };
        let (a, b) = (operand(), operand());
        (target, a, b)
    })
}

/// A shape of rank 1..=4 with dims 1..=5.
fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..=5, 1..=4)
}

fn f32_tensor(seed: u64, shape: &[usize]) -> (Tensor, Vec<f64>) {
    random_tensor(&mut Inputs::new(seed), shape, -100.0, 100.0, DType::F32)
}

/// The indices `list(range(n))[start:stop:step]` selects, by Python's rules: a negative bound counts
/// from the end; bounds are then clamped to [0, n] going forward or to [−1, n−1] going backward
/// (−1 meaning "before the first"); missing bounds are the ends in the direction of the step.
fn python_indices(start: Option<i64>, stop: Option<i64>, step: i64, n: i64) -> Vec<i64> {
    let (low, high) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let resolve = |bound: i64| (if bound < 0 { bound + n } else { bound }).clamp(low, high);
    let first = start.map_or(if step > 0 { 0 } else { n - 1 }, resolve);
    let end = stop.map_or(if step > 0 { n } else { -1 }, resolve);
    let mut indices = Vec::new();
    let mut index = first;
    while (step > 0 && index < end) || (step < 0 && index > end) {
        indices.push(index);
        index += step;
    }
    indices
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// a + b = b + a and a·b = b·a bit for bit (IEEE + and × are commutative), max/min likewise; the
    /// result shape is the numpy rule (right-align, sizes equal or 1) restated in the reference.
    #[test]
    fn broadcasting_commutes_and_follows_the_shape_rule((target, a_shape, b_shape) in broadcastable(), seed in any::<u64>()) {
        let (a, _) = f32_tensor(seed, &a_shape);
        let (b, _) = f32_tensor(seed ^ 1, &b_shape);
        let expected_shape = reference::broadcast_shape(&a_shape, &b_shape).unwrap();
        for op in [BinaryOp::Add, BinaryOp::Mul, BinaryOp::Maximum, BinaryOp::Minimum] {
            let (ab, ba) = (a.binary(op, &b).unwrap(), b.binary(op, &a).unwrap());
            prop_assert_eq!(ab.shape(), &expected_shape[..]);
            prop_assert_eq!(ab.shape(), ba.shape());
            assert_exact(&format!("{op:?} commutes"), &ab.to_f64_vec(), &ba.to_f64_vec());
        }
        // The operands were cut from `target`, so the broadcast never exceeds it.
        prop_assert!(expected_shape.len() <= target.len());
    }

    /// x · ones(s) and x + zeros(s) equal x explicitly expanded to broadcast(shape(x), s): multiplying by
    /// 1 and adding 0 are exact, so broadcasting must only repeat values.
    #[test]
    fn broadcasting_against_ones_is_the_explicit_expansion((_target, a_shape, b_shape) in broadcastable(), seed in any::<u64>()) {
        let (a, a_values) = f32_tensor(seed, &a_shape);
        let shape = reference::broadcast_shape(&a_shape, &b_shape).unwrap();
        let expanded = reference::expand(&a_values, &a_shape, &shape);
        let ones = Tensor::ones(&b_shape, DType::F32).unwrap();
        let zeros = Tensor::zeros(&b_shape, DType::F32).unwrap();
        assert_exact("x·1", &a.binary(BinaryOp::Mul, &ones).unwrap().to_f64_vec(), &expanded);
        assert_exact("1·x", &ones.binary(BinaryOp::Mul, &a).unwrap().to_f64_vec(), &expanded);
        assert_exact("x+0", &a.binary(BinaryOp::Add, &zeros).unwrap().to_f64_vec(), &expanded);
    }

    /// Shapes broadcast exactly when the reference rule says so; otherwise the error names both shapes.
    #[test]
    fn incompatible_shapes_are_shape_errors(a_shape in prop::collection::vec(1usize..=4, 0..=3), b_shape in prop::collection::vec(1usize..=4, 0..=3)) {
        let (a, b) = (Tensor::zeros(&a_shape, DType::F32).unwrap(), Tensor::zeros(&b_shape, DType::F32).unwrap());
        match (reference::broadcast_shape(&a_shape, &b_shape), a.binary(BinaryOp::Sub, &b)) {
            (Some(shape), Ok(result)) => prop_assert_eq!(result.shape(), &shape[..]),
            (None, Err(TensorError::ShapeMismatch { op: "sub", lhs, rhs, .. })) => {
                prop_assert_eq!(lhs, a_shape);
                prop_assert_eq!(rhs, b_shape);
            }
            (expected, got) => prop_assert!(false, "expected {:?}, got {:?}", expected, got.map(|t| t.shape().to_vec())),
        }
    }

    /// reshape to the flat shape, to the dims in reverse order, and back gives the same tensor.
    #[test]
    fn reshape_round_trips(shape in shape(), seed in any::<u64>()) {
        let (tensor, values) = f32_tensor(seed, &shape);
        let reversed: Vec<usize> = shape.iter().rev().copied().collect();
        let back = tensor.reshape(&[values.len()]).unwrap().reshape(&reversed).unwrap().reshape(&shape).unwrap();
        prop_assert_eq!(back.shape(), &shape[..]);
        assert_exact("reshape round trip", &back.to_f64_vec(), &values);
    }

    /// transpose(i, j) twice is the identity, and so is a permutation followed by its inverse.
    #[test]
    fn transpose_is_an_involution(shape in shape(), seed in any::<u64>(), i in -4isize..4, j in -4isize..4, rotation in 0usize..4) {
        let rank = shape.len() as isize;
        // Into range, keeping i's sign so that negative dims are exercised too.
        let (i, j) = (i.rem_euclid(rank) - if i < 0 { rank } else { 0 }, j.rem_euclid(rank));
        let (tensor, values) = f32_tensor(seed, &shape);
        let twice = tensor.transpose(i, j).unwrap().transpose(i, j).unwrap();
        prop_assert_eq!(twice.shape(), &shape[..]);
        assert_exact("transpose twice", &twice.to_f64_vec(), &values);
        let order: Vec<usize> = (0..shape.len()).map(|a| (a + rotation) % shape.len()).collect();
        let mut inverse = vec![0; order.len()];
        order.iter().enumerate().for_each(|(position, &axis)| inverse[axis] = position);
        let back = tensor.permute(&order).unwrap().permute(&inverse).unwrap();
        assert_exact("permute then inverse", &back.to_f64_vec(), &values);
    }

    /// (AB)ᵀ = BᵀAᵀ, three ways: transposing the product, multiplying transposed copies, and using the
    /// a_trans/b_trans flags. Each side is a dot product of length k rounded in f32, so they agree
    /// within twice the bound (k+2)·ε·Σ|a_ip·b_pj|.
    #[test]
    fn transpose_of_a_product(m in 0usize..12, k in 0usize..12, n in 0usize..12, batch in 0usize..3, seed in any::<u64>()) {
        let batch_dims: Vec<usize> = if batch == 0 { vec![] } else { vec![batch] };
        let (a, a_values) = f32_tensor(seed, &[batch_dims.clone(), vec![m, k]].concat());
        let (b, b_values) = f32_tensor(seed ^ 7, &[batch_dims.clone(), vec![k, n]].concat());
        let product_t = a.matmul(&b, false, false, None).unwrap().transpose(-1, -2).unwrap();
        let copies = b.transpose(-1, -2).unwrap().matmul(&a.transpose(-1, -2).unwrap(), false, false, None).unwrap();
        let flags = b.matmul(&a, true, true, None).unwrap();
        prop_assert_eq!(product_t.shape(), &[batch_dims.clone(), vec![n, m]].concat()[..]);
        let (_, _, scale) = reference::matmul(&b_values, b.shape(), &a_values, a.shape(), true, true);
        let bound = |i: usize, _: f64| 2.0 * (k as f64 + 2.0) * f32::EPSILON as f64 * scale[i];
        assert_close("(AB)ᵀ vs BᵀAᵀ", &product_t.to_f64_vec(), &copies.to_f64_vec(), bound);
        assert_close("(AB)ᵀ vs flags", &product_t.to_f64_vec(), &flags.to_f64_vec(), bound);
    }

    /// matmul of random shapes (dims 0..=20, so 0 and 1 occur), transposes and broadcast batch dims,
    /// against the f64 reference.
    #[test]
    fn matmul_matches_the_reference(m in 0usize..=20, k in 0usize..=20, n in 0usize..=20, a_trans in any::<bool>(), b_trans in any::<bool>(), a_batch in prop::collection::vec(1usize..=3, 0..=2), b_one in any::<bool>(), seed in any::<u64>()) {
        let a_shape = [a_batch.clone(), if a_trans { vec![k, m] } else { vec![m, k] }].concat();
        // b repeats a's batch dims, or has 1s there (broadcast), or none at all.
        let b_batch: Vec<usize> = if b_one { a_batch.iter().map(|_| 1).collect() } else { a_batch.iter().skip(1).copied().collect() };
        let b_shape = [b_batch, if b_trans { vec![n, k] } else { vec![k, n] }].concat();
        check_matmul(&mut Inputs::new(seed), &a_shape, &b_shape, a_trans, b_trans, (DType::F32, DType::F32, None));
    }

    /// Σ over all dims = reducing dim 0 again and again. Both are f32 sums of the same n values in
    /// different orders; each errs by at most n·ε·Σ|x| from the exact sum, so they agree within twice that.
    #[test]
    fn sum_over_all_dims_is_iterated_sums(shape in shape(), seed in any::<u64>(), keepdim in any::<bool>()) {
        let (tensor, values) = f32_tensor(seed, &shape);
        let total = tensor.reduce(ReduceOp::Sum, None, keepdim).unwrap();
        prop_assert_eq!(total.shape(), &(if keepdim { vec![1; shape.len()] } else { vec![] })[..]);
        let mut iterated = tensor.clone();
        while iterated.rank() > 0 {
            iterated = iterated.reduce(ReduceOp::Sum, Some(&[0]), false).unwrap();
        }
        let n = values.len() as f64;
        let abs_sum: f64 = values.iter().map(|v| v.abs()).sum();
        let exact: f64 = values.iter().sum();
        let bound = 2.0 * n * f32::EPSILON as f64 * abs_sum;
        assert_close("Σ all vs iterated", &total.to_f64_vec(), &iterated.to_f64_vec(), |_, _| bound);
        assert_close("Σ all vs exact", &total.to_f64_vec(), &[exact], |_, _| bound / 2.0);
    }

    /// `SliceSpec::from_python` selects exactly the indices Python's slicing does.
    #[test]
    fn python_slices_select_what_python_selects(start in prop::option::of(-8i64..8), stop in prop::option::of(-8i64..8), step in prop_oneof![-4i64..0, 1i64..5], n in 0usize..7) {
        let spec = SliceSpec::from_python(start, stop, Some(step), n).unwrap();
        let selected: Vec<i64> = (0..spec.count as i64).map(|i| spec.start as i64 + i * spec.step as i64).collect();
        prop_assert_eq!(selected, python_indices(start, stop, step, n as i64));
    }

    /// Writing a slice of x into zeros at the same slice puts back exactly the selected elements:
    /// the slice of the result equals the slice of x, and every element not selected stays 0.
    #[test]
    fn assign_slice_writes_exactly_the_slice(rows in (prop::option::of(-6i64..6), prop::option::of(-6i64..6), prop_oneof![-3i64..0, 1i64..4]), cols in (prop::option::of(-6i64..6), prop::option::of(-6i64..6), prop_oneof![-3i64..0, 1i64..4]), seed in any::<u64>()) {
        let (x, values) = random_tensor(&mut Inputs::new(seed), &[4, 5], 1.0, 2.0, DType::F32);
        let specs = [SliceSpec::from_python(rows.0, rows.1, Some(rows.2), 4).unwrap(), SliceSpec::from_python(cols.0, cols.1, Some(cols.2), 5).unwrap()];
        let target = Tensor::zeros(&[4, 5], DType::F32).unwrap();
        target.assign_slice(&specs, &x.slice(&specs).unwrap()).unwrap();
        assert_exact("slice of the written tensor", &target.slice(&specs).unwrap().to_f64_vec(), &x.slice(&specs).unwrap().to_f64_vec());
        let (selected_rows, selected_cols) = (python_indices(rows.0, rows.1, rows.2, 4), python_indices(cols.0, cols.1, cols.2, 5));
        let expected: Vec<f64> = (0..20).map(|flat| {
            let selected = selected_rows.contains(&(flat as i64 / 5)) && selected_cols.contains(&(flat as i64 % 5));
            if selected { values[flat] } else { 0.0 }
        }).collect();
        assert_exact("only the slice is written", &target.to_f64_vec(), &expected);
    }
}
