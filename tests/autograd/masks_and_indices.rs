//! Autograd with integer and bool tensors (they never require grad, ops into them cut the graph),
//! and the gradients of `where`, `topk`, `cumsum`, `round(decimals)` and `erf` against values
//! computed by hand.

use tilelab::autograd::{grad, Var};
use tilelab::tensor::{CompareOp, DType, ScatterMode, Storage, Tensor, UnaryOp};

fn leaf(values: &[f64], shape: &[usize]) -> Var {
    Var::leaf(Tensor::from_f64(values.to_vec(), shape, DType::F64).unwrap())
}

fn gradient_of(output: &Var, input: &Var) -> Vec<f64> {
    grad(std::slice::from_ref(output), std::slice::from_ref(input), None, false).unwrap()[0]
        .as_ref()
        .unwrap()
        .tensor()
        .to_f64_vec()
}

#[test]
fn integer_and_bool_tensors_never_require_grad() {
    let ints = Tensor::from_storage(Storage::I32(vec![1, 2]), &[2]).unwrap();
    let error = Var::try_new(ints.clone(), true).unwrap_err().to_string();
    assert!(error.contains("DT_INT32") && error.contains("pypto.cast"), "{error}");
    assert!(!Var::try_new(ints, false).unwrap().requires_grad());
    // A cast into an integer dtype and a comparison give constants: the graph stops there.
    let x = leaf(&[1.5, -2.5], &[2]);
    assert!(!x.cast(DType::I64).unwrap().requires_grad());
    let mask = x.compare(CompareOp::Gt, &x.scalar_like(0.0)).unwrap();
    assert_eq!((mask.dtype(), mask.requires_grad()), (DType::Bool, false));
    assert_eq!(mask.tensor().storage().to_i64_vec(), vec![1, 0]);
}

#[test]
fn where_sends_the_gradient_to_the_selected_branch() {
    // L = Σ w ⊙ where(c, a, b) with b broadcast from [3]: dL/da = w·c, dL/db = Σ_rows w·(1 − c).
    let condition = Var::constant(
        Tensor::from_storage(Storage::Bool(vec![true, false, true, false, false, true]), &[2, 3]).unwrap(),
    );
    let a = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let b = leaf(&[-1.0, -2.0, -3.0], &[3]);
    let weights = Var::constant(Tensor::from_f64(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], DType::F64).unwrap());
    let selected = Var::select(&condition, &a, &b).unwrap();
    assert_eq!(selected.tensor().to_f64_vec(), vec![1.0, -2.0, 3.0, -1.0, -2.0, 6.0]);
    let loss = selected.mul(&weights).unwrap().sum().unwrap();
    let gradients = grad(&[loss], &[a, b], None, false).unwrap();
    let values = |index: usize| gradients[index].as_ref().unwrap().tensor().to_f64_vec();
    assert_eq!(values(0), vec![1.0, 0.0, 3.0, 0.0, 0.0, 6.0]);
    assert_eq!(values(1), vec![4.0, 2.0 + 5.0, 0.0]);
}

#[test]
fn topk_values_take_the_gradient_of_the_selected_elements() {
    let x = leaf(&[0.3, 2.0, -1.0, 1.5], &[4]);
    let (values, indices) = x.topk(2, -1, true).unwrap();
    assert_eq!(values.tensor().to_f64_vec(), vec![2.0, 1.5]);
    assert_eq!((indices.dtype(), indices.tensor().storage().to_i64_vec()), (DType::I32, vec![1, 3]));
    // L = 10·v0 + v1: the gradient lands on x[1] (10) and x[3] (1).
    let weights = Var::constant(Tensor::from_f64(vec![10.0, 1.0], &[2], DType::F64).unwrap());
    let loss = values.mul(&weights).unwrap().sum().unwrap();
    assert_eq!(gradient_of(&loss, &x), vec![0.0, 10.0, 0.0, 1.0]);
}

#[test]
fn cumsum_gradient_is_the_reversed_running_sum() {
    // L = Σ_j w_j · Σ_{i≤j} x_i, so dL/dx_i = Σ_{j≥i} w_j: for w = [1, 2, 3, 4], [10, 9, 7, 4].
    let x = leaf(&[0.5, -1.0, 2.0, 3.0], &[4]);
    let weights = Var::constant(Tensor::from_f64(vec![1.0, 2.0, 3.0, 4.0], &[4], DType::F64).unwrap());
    let loss = x.cumsum(0).unwrap().mul(&weights).unwrap().sum().unwrap();
    assert_eq!(gradient_of(&loss, &x), vec![10.0, 9.0, 7.0, 4.0]);
}

#[test]
fn round_with_decimals_follows_torch_and_has_zero_gradient() {
    // torch.round(x, decimals=1): 1.25 → 1.2 (12.5 ties to even), 1.35 → 1.4; decimals=-1: 15 → 20,
    // 25 → 20 (2.5 ties to even).
    let x = leaf(&[1.25, 1.35, -0.44], &[3]);
    let rounded = x.round_decimals(1).unwrap();
    let values = rounded.tensor().to_f64_vec();
    for (got, want) in values.iter().zip([1.2, 1.4, -0.4]) {
        assert!((got - want).abs() < 1e-12, "{values:?}");
    }
    assert_eq!(gradient_of(&rounded.sum().unwrap(), &x), vec![0.0; 3]);
    let tens = leaf(&[15.0, 25.0, -34.0], &[3]).round_decimals(-1).unwrap();
    assert_eq!(tens.tensor().to_f64_vec(), vec![20.0, 20.0, -30.0]);
    // Integers: decimals ≥ 0 is the identity, negative decimals ask for a cast.
    let ints = Var::constant(Tensor::from_storage(Storage::I32(vec![15]), &[1]).unwrap());
    assert_eq!(ints.round_decimals(2).unwrap().tensor().storage().to_i64_vec(), vec![15]);
    assert!(ints.round_decimals(-1).unwrap_err().to_string().contains("pypto.cast"));
}

#[test]
fn erf_and_exp2_derivatives_at_known_points() {
    // erf'(0) = 2/√π, erfc'(0) = −2/√π, (2^x)'(3) = 8·ln 2.
    let x = leaf(&[0.0], &[1]);
    let slope = gradient_of(&x.unary(UnaryOp::Erf).unwrap().sum().unwrap(), &x)[0];
    assert!((slope - std::f64::consts::FRAC_2_SQRT_PI).abs() < 1e-15);
    let slope = gradient_of(&x.unary(UnaryOp::Erfc).unwrap().sum().unwrap(), &x)[0];
    assert!((slope + std::f64::consts::FRAC_2_SQRT_PI).abs() < 1e-15);
    let three = leaf(&[3.0], &[1]);
    let slope = gradient_of(&three.unary(UnaryOp::Exp2).unwrap().sum().unwrap(), &three)[0];
    assert!((slope - 8.0 * std::f64::consts::LN_2).abs() < 1e-12);
}

#[test]
fn scatter_multiply_has_no_gradient_and_says_so() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let index = Var::constant(Tensor::from_storage(Storage::I64(vec![0]), &[1]).unwrap());
    let scaled = x.scatter(0, &index, &x.scalar_like(3.0), ScatterMode::Multiply).unwrap();
    assert_eq!(scaled.tensor().to_f64_vec(), vec![3.0, 2.0]);
    let error = grad(&[scaled.sum().unwrap()], &[x], None, false).unwrap_err().to_string();
    assert!(error.contains("multiply"), "{error}");
}
