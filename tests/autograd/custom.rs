//! Custom ops: several outputs, contract violations reported as errors, a backward set later,
//! and second order through a backward written with differentiable ops.
#![cfg(not(target_arch = "wasm32"))]

use std::rc::Rc;

use tilelab::autograd::{
    call_custom, check_gradient, custom_op_names, grad, register_custom_op, register_gradient, unregister_custom_op,
    Attributes, AutogradError, CheckOptions, Context, CustomBackward, CustomForward, ForwardOutput, Result, Var,
};
use tilelab::tensor::{BinaryOp, DType, SliceSpec, Tensor, UnaryOp};

fn leaf(values: &[f64]) -> Var {
    Var::leaf(Tensor::from_f64(values.to_vec(), &[values.len()], DType::F64).unwrap())
}

/// Splits a vector into its two halves (two outputs).
fn split_forward() -> CustomForward {
    Rc::new(|inputs: &[Tensor], _: &Attributes| -> Result<ForwardOutput> {
        let half = inputs[0].numel() / 2;
        let first = inputs[0].slice(&[SliceSpec { start: 0, step: 1, count: half }])?;
        let second = inputs[0].slice(&[SliceSpec { start: half, step: 1, count: half }])?;
        Ok(ForwardOutput { outputs: vec![first, second], saved: vec![] })
    })
}

#[test]
fn a_custom_op_with_two_outputs_gets_zeros_for_the_unused_one() {
    // The backward joins the two output gradients; only the first half reaches the loss, so
    // d Σ first / dx = [1, 1, 0, 0].
    let backward: CustomBackward =
        Rc::new(|grads: &[Var], _: &[Var], _: &Context| Ok(vec![Some(Var::concat(grads, 0)?)]));
    register_custom_op("split_halves", split_forward(), Some(backward));
    let x = leaf(&[1.0, 2.0, 3.0, 4.0]);
    let outputs = call_custom("split_halves", std::slice::from_ref(&x), Attributes::new()).unwrap();
    assert_eq!(outputs.len(), 2);
    assert_eq!(outputs[1].tensor().to_f64_vec(), vec![3.0, 4.0]);
    outputs[0].sum().unwrap().backward().unwrap();
    assert_eq!(x.grad().unwrap().to_f64_vec(), vec![1.0, 1.0, 0.0, 0.0]);
    assert!(custom_op_names().contains(&"split_halves".to_string()));
}

#[test]
fn wrong_gradient_shapes_and_counts_are_errors() {
    let wrong_shape: CustomBackward = Rc::new(|grads: &[Var], _: &[Var], _: &Context| Ok(vec![Some(grads[0].clone())]));
    register_custom_op("split_wrong_shape", split_forward(), Some(wrong_shape));
    let x = leaf(&[1.0, 2.0, 3.0, 4.0]);
    let out = call_custom("split_wrong_shape", std::slice::from_ref(&x), Attributes::new()).unwrap();
    let error = out[0].sum().unwrap().backward().unwrap_err();
    assert!(matches!(error, AutogradError::GradientShapeMismatch { .. }), "{error}");
    assert!(error.to_string().contains("split_wrong_shape"), "{error}");

    let too_many: CustomBackward =
        Rc::new(|grads: &[Var], _: &[Var], _: &Context| Ok(vec![Some(grads[0].clone()), None]));
    register_custom_op("split_too_many", split_forward(), Some(too_many));
    let out = call_custom("split_too_many", std::slice::from_ref(&x), Attributes::new()).unwrap();
    assert!(matches!(out[0].sum().unwrap().backward().unwrap_err(), AutogradError::CustomOp { .. }));
}

#[test]
fn a_gradient_registered_after_the_forward_is_used_and_unknown_names_fail() {
    let forward: CustomForward = Rc::new(|inputs: &[Tensor], _: &Attributes| -> Result<ForwardOutput> {
        Ok(ForwardOutput { outputs: vec![inputs[0].unary(UnaryOp::Sin)?], saved: vec![] })
    });
    register_custom_op("late_sin", forward, None);
    // sin' = cos, written with differentiable ops on the saved input.
    register_gradient(
        "late_sin",
        Rc::new(|grads: &[Var], saved: &[Var], _: &Context| {
            Ok(vec![Some(grads[0].mul(&saved[0].unary(UnaryOp::Cos)?)?)])
        }),
    )
    .unwrap();
    let x = leaf(&[0.5]);
    call_custom("late_sin", std::slice::from_ref(&x), Attributes::new()).unwrap()[0].sum().unwrap().backward().unwrap();
    assert!((x.grad().unwrap().to_f64_vec()[0] - 0.5f64.cos()).abs() < 1e-15);
    assert!(matches!(
        register_gradient("never_registered", Rc::new(|_: &[Var], _: &[Var], _: &Context| Ok(vec![]))),
        Err(AutogradError::UnknownCustomOp { .. })
    ));
    assert!(unregister_custom_op("late_sin"));
    assert!(!unregister_custom_op("late_sin"));
}

#[test]
fn second_order_flows_through_a_differentiable_custom_backward() {
    // cube(x) = x³ with backward g·3x² written in Var ops: d²/dx² Σ cube = 6x, checked against
    // finite differences of the first derivative by the gradient checker.
    let forward: CustomForward = Rc::new(|inputs: &[Tensor], _: &Attributes| -> Result<ForwardOutput> {
        let x = &inputs[0];
        Ok(ForwardOutput { outputs: vec![x.binary(BinaryOp::Mul, x)?.binary(BinaryOp::Mul, x)?], saved: vec![] })
    });
    let backward: CustomBackward = Rc::new(|grads: &[Var], saved: &[Var], _: &Context| {
        let x = &saved[0];
        Ok(vec![Some(grads[0].mul(&x.mul(x)?.scale(3.0)?)?)])
    });
    register_custom_op("cube", forward, Some(backward));
    let derivative = |x: &[Var]| -> Result<Var> {
        let total = call_custom("cube", &x[..1], Attributes::new())?.remove(0).sum()?;
        Ok(grad(&[total], &x[..1], None, true)?.remove(0).expect("cube depends on x"))
    };
    let x = Tensor::from_f64(vec![0.3, -1.2, 2.0], &[3], DType::F64).unwrap();
    let report = check_gradient(&derivative, &[x], &CheckOptions::default()).unwrap();
    assert!(report.passed, "{report}");
}
