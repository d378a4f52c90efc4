//! The loss scaler makes an f16 training step match the f32 step where plain f16 gradients underflow.
#![cfg(not(target_arch = "wasm32"))]

use tilelab::autograd::{LossScaler, LossScalerConfig, Result, Var};
use tilelab::tensor::{BinaryOp, DType, Tensor};

const ROWS: usize = 64;
/// A small loss weight, 2^-20 (exact in f16 as a subnormal): d loss / d residual = 2^-20·2r/64,
/// around 2^-26·r, below half of f16's smallest subnormal 2^-24, so plain f16 gradients are 0.
const LOSS_WEIGHT: f64 = 1.0 / (1u64 << 20) as f64;
const LEARNING_RATE: f64 = (1u64 << 20) as f64 * 0.01;

/// loss = 2^-20 · mean((x·w − t)²) in the dtype of the inputs.
fn loss(x: &Var, w: &Var, target: &Var) -> Result<Var> {
    let residual = x.matmul(w, false, false, None)?.sub(target)?;
    residual.mul(&residual)?.mean()?.mul(&Var::constant(Tensor::scalar(LOSS_WEIGHT, x.dtype())))
}

fn data(dtype: DType) -> (Var, Var, Var) {
    // Values drawn once and rounded to f16, so both runs see identical numbers.
    let round = |t: Tensor| t.cast(DType::F16).unwrap().cast(dtype).unwrap();
    let x = round(Tensor::randn(&[ROWS, 4], DType::F32, Some(1)).unwrap());
    let w = round(Tensor::randn(&[4, 1], DType::F32, Some(2)).unwrap());
    let target = round(Tensor::randn(&[ROWS, 1], DType::F32, Some(3)).unwrap());
    (Var::constant(x), Var::leaf(w), Var::constant(target))
}

/// One SGD step in f32 master weights: w − lr·g.
fn updated(w: &Var, gradient: &Tensor) -> Vec<f64> {
    let step = gradient.binary(BinaryOp::Mul, &Tensor::scalar(LEARNING_RATE, DType::F32)).unwrap();
    w.tensor().cast(DType::F32).unwrap().binary(BinaryOp::Sub, &step).unwrap().to_f64_vec()
}

#[test]
fn scaled_f16_step_matches_f32_where_plain_f16_underflows() {
    let (x, w, target) = data(DType::F32);
    loss(&x, &w, &target).unwrap().backward().unwrap();
    let reference = updated(&w, &w.grad().unwrap());
    let start = w.tensor().to_f64_vec();
    let movement: f64 = reference.iter().zip(&start).map(|(r, s)| (r - s).abs()).sum();
    assert!(movement > 1e-3, "the f32 step must move the weights ({movement})");

    // Plain f16: every gradient underflows to 0, the step does nothing.
    let (x16, w16, target16) = data(DType::F16);
    loss(&x16, &w16, &target16).unwrap().backward().unwrap();
    assert!(w16.grad().unwrap().to_f64_vec().iter().all(|&g| g == 0.0));

    // Scaled f16: backward from loss·2^15, unscale in f32, finite, same step as f32 within f16
    // precision (the update agrees to 1% of its size).
    let (x16, w16, target16) = data(DType::F16);
    let scaler = LossScaler::new(LossScalerConfig::default()).unwrap();
    scaler.scale_loss(&loss(&x16, &w16, &target16).unwrap()).unwrap().backward().unwrap();
    let unscaled = scaler.unscale(std::slice::from_ref(&w16)).unwrap();
    assert!(unscaled.finite);
    let scaled_step = updated(&w16, &unscaled.gradients[0]);
    for ((got, want), origin) in scaled_step.iter().zip(&reference).zip(&start) {
        let size = (want - origin).abs();
        assert!((got - want).abs() <= 0.01 * size + 1e-6, "scaled {got} vs f32 {want} (from {origin})");
    }
}

#[test]
fn an_overflowing_scale_is_detected_and_backed_off() {
    // loss = Σ w² with w = 10: the gradient 2w = 20 is fine, but scaled by 2^15 it is 655360 > 65504
    // (f16's maximum): inf, so the step is skipped and the scale halves.
    let w = Var::leaf(Tensor::full(&[2], 10.0, DType::F16).unwrap());
    w.mul(&w).unwrap().sum().unwrap().backward().unwrap();
    assert_eq!(w.grad().unwrap().to_f64_vec(), vec![20.0, 20.0]);
    w.zero_grad();
    let mut scaler = LossScaler::new(LossScalerConfig::default()).unwrap();
    let scaled = scaler.scale_loss(&w.mul(&w).unwrap().sum().unwrap()).unwrap();
    scaled.backward().unwrap();
    let unscaled = scaler.unscale(std::slice::from_ref(&w)).unwrap();
    assert!(!unscaled.finite);
    scaler.update(unscaled.finite);
    assert_eq!(scaler.scale(), 16384.0);
}
