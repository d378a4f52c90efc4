//! Gradient checkpointing: same gradients as the plain graph, a fraction of the saved bytes.
#![cfg(not(target_arch = "wasm32"))]

use std::rc::Rc;

use tilelab::autograd::{checkpoint, AutogradError, CheckpointFunction, GraphData, Result, Var};
use tilelab::tensor::{DType, Tensor, UnaryOp};

const LAYERS: usize = 64;
const SEGMENT: usize = 8;
const BATCH: usize = 256;
const WIDTH: usize = 16;

/// One layer: x ↦ tanh(x·W).
fn layer(x: &Var, w: &Var) -> Result<Var> {
    x.matmul(w, false, false, None)?.unary(UnaryOp::Tanh)
}

fn weights() -> Vec<Var> {
    (0..LAYERS)
        .map(|i| {
            // Scaled so that activations stay in tanh's sensitive range through 64 layers.
            let w = Tensor::randn(&[WIDTH, WIDTH], DType::F32, Some(100 + i as u64)).unwrap();
            Var::leaf(w.binary(tilelab::tensor::BinaryOp::Mul, &Tensor::scalar(0.3, DType::F32)).unwrap())
        })
        .collect()
}

fn input() -> Var {
    Var::leaf(Tensor::randn(&[BATCH, WIDTH], DType::F32, Some(7)).unwrap())
}

fn segment() -> CheckpointFunction {
    Rc::new(|inputs: &[Var]| {
        let mut x = inputs[0].clone();
        for w in &inputs[1..] {
            x = layer(&x, w)?;
        }
        Ok(vec![x])
    })
}

#[test]
fn checkpointing_every_8_of_64_layers_saves_at_most_a_quarter_of_the_bytes_with_equal_gradients() {
    let (x, ws) = (input(), weights());
    let mut plain = x.clone();
    for w in &ws {
        plain = layer(&plain, w).unwrap();
    }
    let plain_loss = plain.sum().unwrap();
    let plain_graph = GraphData::from_outputs(std::slice::from_ref(&plain_loss));

    let (x2, ws2): (Var, Vec<Var>) =
        (Var::leaf(x.tensor().clone()), ws.iter().map(|w| Var::leaf(w.tensor().clone())).collect());
    let mut checkpointed = x2.clone();
    for chunk in ws2.chunks(SEGMENT) {
        let mut inputs = vec![checkpointed];
        inputs.extend(chunk.iter().cloned());
        checkpointed = checkpoint("segment", segment(), &inputs).unwrap().remove(0);
    }
    let checkpointed_loss = checkpointed.sum().unwrap();
    let checkpointed_graph = GraphData::from_outputs(std::slice::from_ref(&checkpointed_loss));

    // Same forward values (the same kernels run on the same values).
    assert_eq!(plain_loss.tensor().to_f32_vec(), checkpointed_loss.tensor().to_f32_vec());
    let ratio = checkpointed_graph.saved_bytes as f64 / plain_graph.saved_bytes as f64;
    let activation_ratio = checkpointed_graph.saved_activation_bytes as f64 / plain_graph.saved_activation_bytes as f64;
    println!(
        "checkpoint: saved {} B vs {} B without (ratio {ratio:.3}); activations only {} B vs {} B (ratio {activation_ratio:.3})",
        checkpointed_graph.saved_bytes, plain_graph.saved_bytes, checkpointed_graph.saved_activation_bytes, plain_graph.saved_activation_bytes
    );
    assert!(ratio <= 0.25, "ratio {ratio}");

    plain_loss.backward().unwrap();
    checkpointed_loss.backward().unwrap();
    // The recomputation replays the same f32 kernels, so the gradients are identical.
    assert_eq!(x.grad().unwrap().to_f32_vec(), x2.grad().unwrap().to_f32_vec());
    for (w, w2) in ws.iter().zip(&ws2) {
        assert_eq!(w.grad().unwrap().to_f32_vec(), w2.grad().unwrap().to_f32_vec());
    }
}

#[test]
fn a_captured_value_that_requires_grad_is_an_error() {
    let w = Var::leaf(Tensor::ones(&[2, 2], DType::F32).unwrap());
    let captured = w.clone();
    let function: CheckpointFunction =
        Rc::new(move |inputs: &[Var]| Ok(vec![inputs[0].matmul(&captured, false, false, None)?]));
    let x = Var::leaf(Tensor::ones(&[1, 2], DType::F32).unwrap());
    let y = checkpoint("captures", function, &[x]).unwrap().remove(0);
    let error = y.sum().unwrap().backward().unwrap_err();
    assert!(
        matches!(error, AutogradError::BadArgument { .. }) && error.to_string().contains("not among its inputs"),
        "{error}"
    );
}

#[test]
fn checkpoint_of_constants_records_nothing() {
    let x = Var::constant(Tensor::ones(&[2], DType::F32).unwrap());
    let out = checkpoint("constant", Rc::new(|inputs: &[Var]| Ok(vec![inputs[0].unary(UnaryOp::Exp)?])), &[x]).unwrap();
    assert!(!out[0].requires_grad());
}

#[test]
fn second_order_flows_through_a_checkpoint() {
    // g(x) = ∂/∂x Σ w ⊙ checkpoint(sin(x)·x·a); its gradient (second derivatives) is checked
    // against finite differences of g in f64.
    let a = Var::constant(Tensor::from_f64(vec![0.7, -1.3, 2.1], &[3], DType::F64).unwrap());
    let weights = Var::constant(Tensor::from_f64(vec![1.0, 0.5, -2.0], &[3], DType::F64).unwrap());
    let function: CheckpointFunction =
        Rc::new(|inputs: &[Var]| Ok(vec![inputs[0].unary(UnaryOp::Sin)?.mul(&inputs[0])?.mul(&inputs[1])?]));
    let derivative = move |x: &[Var]| -> Result<Var> {
        let out = checkpoint("sin_x", function.clone(), &[x[0].clone(), a.clone()])?.remove(0);
        let total = out.mul(&weights)?.sum()?;
        Ok(tilelab::autograd::grad(&[total], &x[..1], None, true)?.remove(0).expect("depends on x"))
    };
    let x = Tensor::from_f64(vec![0.4, -0.8, 1.5], &[3], DType::F64).unwrap();
    let report =
        tilelab::autograd::check_gradient(&derivative, &[x], &tilelab::autograd::CheckOptions::default()).unwrap();
    assert!(report.passed, "{report}");
}

#[test]
fn inputs_that_depend_on_each_other_are_not_counted_twice() {
    // y = checkpoint(u·v)(x, 2x): dy/dx = d(2x²)/dx = 4x.
    let x = Var::leaf(Tensor::from_f64(vec![1.5], &[1], DType::F64).unwrap());
    let doubled = x.scale(2.0).unwrap();
    let product: CheckpointFunction = Rc::new(|inputs: &[Var]| Ok(vec![inputs[0].mul(&inputs[1])?]));
    let y = checkpoint("product", product, &[x.clone(), doubled]).unwrap().remove(0);
    y.sum().unwrap().backward().unwrap();
    assert_eq!(x.grad().unwrap().to_f64_vec(), vec![6.0]);
}
