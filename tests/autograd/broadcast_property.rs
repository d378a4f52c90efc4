//! Property: for random broadcast-compatible shapes (scalars, size-1 dims, missing leading dims),
//! every binary op's gradients pass the gradient check, and each gradient has its input's shape.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use tilelab::autograd::{check_gradient, CheckOptions, Var, ALL_BINARY};
use tilelab::tensor::{BinaryOp, DType, Rng, Tensor};

/// A shape and a partner that broadcasts with it: each partner dim is the same size or 1, and a
/// random number of leading dims is dropped.
fn shape_pair() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    prop::collection::vec((1usize..=3, any::<bool>()), 0..=3).prop_flat_map(|dims| {
        let rank = dims.len();
        (Just(dims), 0..=rank).prop_map(|(dims, dropped)| {
            let full: Vec<usize> = dims.iter().map(|&(size, _)| size).collect();
            let partner: Vec<usize> = dims[dropped..].iter().map(|&(size, keep)| if keep { size } else { 1 }).collect();
            (full, partner)
        })
    })
}

fn values(shape: &[usize], seed: u64, op: BinaryOp, right: bool) -> Tensor {
    let mut rng = Rng::new(seed);
    let count: usize = shape.iter().product();
    let data: Vec<f64> = (0..count)
        .map(|_| {
            let z = rng.normal();
            match (op, right) {
                (BinaryOp::Pow, false) => z.abs() + 0.5,
                (BinaryOp::Div | BinaryOp::FloorDivide | BinaryOp::Remainder, true) => z.signum() * (z.abs() + 0.5),
                _ => z,
            }
        })
        .collect();
    Tensor::from_f64(data, shape, DType::F64).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn binary_gradients_reduce_to_input_shapes((left, right) in shape_pair(), swap in any::<bool>(), seed in 0u64..1000) {
        let (left, right) = if swap { (right, left) } else { (left, right) };
        for op in ALL_BINARY {
            let inputs = [values(&left, seed, op, false), values(&right, seed + 1, op, true)];
            let report = check_gradient(&move |x: &[Var]| x[0].binary(op, &x[1]), &inputs, &CheckOptions::default()).unwrap();
            prop_assert!(report.passed, "{} {:?} {:?}:\n{}", op.name(), left, right, report);
            let (a, b) = (Var::leaf(inputs[0].clone()), Var::leaf(inputs[1].clone()));
            a.binary(op, &b).unwrap().sum().unwrap().backward().unwrap();
            prop_assert_eq!(a.grad().unwrap().shape().to_vec(), left.clone());
            prop_assert_eq!(b.grad().unwrap().shape().to_vec(), right.clone());
        }
    }
}
