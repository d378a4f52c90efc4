//! The gradient checker is itself tested: it catches wrong registered backwards (Swish without the
//! β·x·σ(1−σ) term, LayerNorm without the mean term), passes their correct versions, reports kinks
//! as non-differentiable, and raises no false alarm over 200 random seeds for the whole op table.
#![cfg(not(target_arch = "wasm32"))]

use super::support as autograd_support;

use std::rc::Rc;

use tilelab::autograd::{
    call_custom, check_gradient, register_custom_op, Attribute, Attributes, CheckMode, CheckOptions, Context,
    CustomBackward, ForwardOutput, Result, Var,
};
use tilelab::tensor::{BinaryOp, DType, ReduceOp, Tensor, UnaryOp};

const BETA: f64 = 1.5;

/// swish_β(x) = x·σ(βx), computed on tensors (the forward kernel knows nothing about autograd).
fn register_swish(name: &str, with_inner_term: bool) {
    let forward = Rc::new(|inputs: &[Tensor], attributes: &Attributes| -> Result<ForwardOutput> {
        let Some(Attribute::Float(beta)) = attributes.get("beta") else { unreachable!("the test passes beta") };
        let x = &inputs[0];
        let s = x.binary(BinaryOp::Mul, &Tensor::scalar(*beta, x.dtype()))?.unary(UnaryOp::Sigmoid)?;
        Ok(ForwardOutput { outputs: vec![x.binary(BinaryOp::Mul, &s)?], saved: vec![s] })
    });
    // d/dx x·σ(βx) = σ + β·x·σ(1−σ); the wrong version forgets the second term.
    let backward: CustomBackward = Rc::new(move |grads: &[Var], saved: &[Var], context: &Context| {
        let Some(Attribute::Float(beta)) = context.attributes.get("beta") else { unreachable!() };
        let (x, s) = (&saved[0], &saved[1]);
        let mut derivative = s.clone();
        if with_inner_term {
            let one_minus = s.scalar_like(1.0).sub(s)?;
            derivative = derivative.add(&x.mul(s)?.mul(&one_minus)?.scale(*beta)?)?;
        }
        Ok(vec![Some(grads[0].mul(&derivative)?)])
    });
    register_custom_op(name, forward, Some(backward));
}

fn swish_call(name: &'static str) -> impl Fn(&[Var]) -> Result<Var> {
    move |x: &[Var]| {
        let attributes = Attributes::from([("beta".to_string(), Attribute::Float(BETA))]);
        Ok(call_custom(name, &x[..1], attributes)?.remove(0))
    }
}

#[test]
fn catches_swish_missing_the_inner_term_and_passes_the_correct_one() {
    register_swish("swish_good", true);
    register_swish("swish_bad", false);
    let x = Tensor::randn(&[3, 4], DType::F32, Some(1)).unwrap();
    let good = check_gradient(&swish_call("swish_good"), std::slice::from_ref(&x), &CheckOptions::default()).unwrap();
    assert!(good.passed, "{good}");
    let bad = check_gradient(&swish_call("swish_bad"), std::slice::from_ref(&x), &CheckOptions::default()).unwrap();
    assert!(!bad.passed, "{bad}");
    // The worst element is named with its index and both values; the missing term is β·x·σ(1−σ) ≠ 0.
    let worst = &bad.inputs[0].worst[0];
    assert!((worst.analytic - worst.numerical).abs() > 1e-2, "{bad}");
    // The report is data for the notebook (serde) and readable text.
    let json = serde_json::to_string(&bad).unwrap();
    let back: tilelab::autograd::GradCheckReport = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (back.passed, back.inputs[0].compared, &back.inputs[0].worst[0].input_index),
        (false, 144, &worst.input_index)
    );
    assert!((back.inputs[0].worst[0].analytic - worst.analytic).abs() < 1e-12);
    assert!(bad.to_string().contains("FAIL"), "{bad}");
    let projected = CheckOptions { mode: CheckMode::Projection, ..CheckOptions::default() };
    assert!(!check_gradient(&swish_call("swish_bad"), &[x], &projected).unwrap().passed);
}

/// LayerNorm over the last dim of [rows, n]: y = (x − μ)/√(σ² + ε).
/// Correct backward: dx = (g − mean(g) − y·mean(g·y)) / √(σ² + ε); the wrong one drops mean(g).
fn register_layer_norm(name: &str, with_mean_term: bool) {
    let forward = Rc::new(|inputs: &[Tensor], _: &Attributes| -> Result<ForwardOutput> {
        let x = &inputs[0];
        let mean = x.reduce(ReduceOp::Mean, Some(&[-1]), true)?;
        let var = x.reduce(ReduceOp::Var, Some(&[-1]), true)?;
        let inv_std = var.binary(BinaryOp::Add, &Tensor::scalar(1e-5, x.dtype()))?.unary(UnaryOp::Rsqrt)?;
        let y = x.binary(BinaryOp::Sub, &mean)?.binary(BinaryOp::Mul, &inv_std)?;
        Ok(ForwardOutput { outputs: vec![y], saved: vec![inv_std] })
    });
    let backward: CustomBackward = Rc::new(move |grads: &[Var], saved: &[Var], context: &Context| {
        let g = &grads[0];
        let inv_std = &saved[1];
        let y = Var::constant(context.outputs[0].clone());
        let mut inner = g.sub(&y.mul(&g.mul(&y)?.reduce(ReduceOp::Mean, Some(&[-1]), true)?)?)?;
        if with_mean_term {
            inner = inner.sub(&g.reduce(ReduceOp::Mean, Some(&[-1]), true)?)?;
        }
        Ok(vec![Some(inner.mul(inv_std)?)])
    });
    register_custom_op(name, forward, Some(backward));
}

#[test]
fn catches_layer_norm_missing_the_mean_term_and_passes_the_correct_one() {
    register_layer_norm("layer_norm_good", true);
    register_layer_norm("layer_norm_bad", false);
    let x = Tensor::randn(&[3, 5], DType::F32, Some(2)).unwrap();
    // A weighted sum makes the loss sensitive to every output (Σ y alone has zero gradient).
    let weights = Tensor::randn(&[3, 5], DType::F32, Some(3)).unwrap();
    let loss = |name: &'static str| {
        let weights = weights.clone();
        move |x: &[Var]| {
            call_custom(name, &x[..1], Attributes::new())?.remove(0).mul(&Var::constant(weights.clone()))?.sum()
        }
    };
    let good = check_gradient(&loss("layer_norm_good"), std::slice::from_ref(&x), &CheckOptions::default()).unwrap();
    assert!(good.passed, "{good}");
    let bad = check_gradient(&loss("layer_norm_bad"), &[x], &CheckOptions::default()).unwrap();
    assert!(!bad.passed, "{bad}");
}

#[test]
fn kinks_are_reported_as_non_differentiable_not_as_wrong() {
    // relu at exactly 0: left derivative 0, right 1, the engine says 0 (PyTorch's choice). The
    // central difference gives ½; the checker must flag the point, not fail the rule.
    let x = Tensor::from_f64(vec![-1.0, 0.0, 2.0], &[3], DType::F32).unwrap();
    let report =
        check_gradient(&|x: &[Var]| x[0].unary(UnaryOp::Relu), std::slice::from_ref(&x), &CheckOptions::default())
            .unwrap();
    assert!(report.passed, "{report}");
    assert_eq!(report.inputs[0].non_differentiable.len(), 1, "{report}");
    assert_eq!(report.inputs[0].non_differentiable[0].input_index, vec![1]);
    // abs at 0, and a tie of amax ([2, 2, 1]: the gradient ½ to each of the two maxima).
    let abs = check_gradient(&|x: &[Var]| x[0].unary(UnaryOp::Abs), &[x], &CheckOptions::default()).unwrap();
    assert!(abs.passed && abs.inputs[0].non_differentiable.len() == 1, "{abs}");
    let tie = Tensor::from_f64(vec![2.0, 2.0, 1.0], &[3], DType::F32).unwrap();
    let amax = check_gradient(&|x: &[Var]| x[0].reduce(ReduceOp::Amax, None, false), &[tie], &CheckOptions::default())
        .unwrap();
    assert!(amax.passed, "{amax}");
    assert_eq!(amax.inputs[0].non_differentiable.len(), 2, "{amax}");
}

#[test]
fn no_false_alarm_over_200_seeds_for_the_whole_op_table() {
    let table = autograd_support::cases();
    for seed in 0..200u64 {
        for case in &table {
            let inputs = case.make_inputs(1000 + seed, DType::F32);
            let report =
                check_gradient(&*case.function, &inputs, &CheckOptions { seed, ..CheckOptions::default() }).unwrap();
            assert!(report.passed, "seed {seed}, {}:\n{report}", case.label);
        }
    }
}

#[test]
fn projection_mode_handles_a_large_input() {
    // 64×64 tanh(x)·w summed: 4096 inputs, checked by vᵀJu projections.
    let x = Tensor::randn(&[64, 64], DType::F32, Some(4)).unwrap();
    let w = Tensor::randn(&[64, 64], DType::F32, Some(5)).unwrap();
    let function = move |x: &[Var]| x[0].unary(UnaryOp::Tanh)?.mul(&Var::constant(w.clone()))?.sum();
    let report = check_gradient(&function, &[x], &CheckOptions::default()).unwrap();
    assert_eq!(report.mode, CheckMode::Projection);
    assert!(report.passed, "{report}");
    assert_eq!(report.inputs[0].compared, 3);
}
